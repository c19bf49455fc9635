"""The typed result of a comparison: :class:`Comparison` of :class:`EngineRun` of :class:`MetricResult`.

Every result is a frozen dataclass; :meth:`Comparison.to_summary` writes the ``summary.json`` document
(schema ``crossdyn.compare/2``) from them.  Statuses are :class:`~crossdyn.status.RunStatus`, outcomes a
:class:`~crossdyn.status.Verdict` (``"PASS"``/``"FAIL"``/``"INCONCLUSIVE"`` in the document).

**Checks.**  A check is one compared sample, state or event.  Every judged metric group states how many it made
(``checks``) and its ``verdict`` (:func:`judge`): PASS only when at least one check was made and all were within
tolerance; FAIL for a departure (``failed_because`` quotes the measured figures); INCONCLUSIVE when the run could
not see what the group asks about (``inconclusive_because`` says why and how to exercise it); NOT_EXERCISED (0
checks) when the arm declares a phenomenon the run never reached and the user did not ask about it
(``not_exercised_because`` says what the run reached and how to exercise it).  The document's ``checks`` totals
them per group, the ``verdict`` combines every group's (FAIL over INCONCLUSIVE over PASS; a NOT_EXERCISED group
changes nothing, and the document lists it under ``not_exercised``).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Mapping

import numpy as np

from crossdyn.models.spec import ArmSpec
from crossdyn.status import RunStatus, Verdict


SCHEMA = "crossdyn.compare/2"
"""The document's schema name; 2.1 (same name: every reader of 2 reads it) added ``not_exercised`` and the
NOT_EXERCISED group verdict."""


def judge(values: dict, verdict: Verdict | str | bool, checks: int, because: str | None = None) -> dict:
    """Write a judged group's outcome into ``values`` (and return it): ``verdict``, ``checks``, ``pass`` (True for
    PASS, False for FAIL, None for INCONCLUSIVE and NOT_EXERCISED) and ``failed_because`` / ``inconclusive_because`` /
    ``not_exercised_because`` from ``because``.  A bool verdict is PASS/FAIL; a PASS with no check made is
    INCONCLUSIVE (nothing was compared); NOT_EXERCISED makes no check."""
    v = (Verdict.PASS if verdict else Verdict.FAIL) if isinstance(verdict, bool) else Verdict(verdict)
    checks = 0 if v == Verdict.NOT_EXERCISED else int(checks)
    if v == Verdict.PASS and checks == 0:
        v, because = Verdict.INCONCLUSIVE, because or "no check was made (nothing compared)"
    values["verdict"], values["checks"] = v.value, checks
    values["pass"] = {Verdict.PASS: True, Verdict.FAIL: False}.get(v)
    for key in ("failed_because", "inconclusive_because", "not_exercised_because"):
        values.pop(key, None)
    if v == Verdict.FAIL:
        values["failed_because"] = because or values.get("failed_because") or "out of tolerance"
    elif v == Verdict.INCONCLUSIVE:
        values["inconclusive_because"] = because or "not judged"
    elif v == Verdict.NOT_EXERCISED:
        values["not_exercised_because"] = because or "not reached by this run"
    return values


def unexercised(values: dict, asked: bool, because: str) -> dict:
    """A declared phenomenon the run never reached (0 checks): INCONCLUSIVE when the user asked about it
    (``asked``: ``--require``, ``--native``, ``--calibrate-*`` or a friction option named it), else NOT_EXERCISED."""
    return judge(values, Verdict.INCONCLUSIVE if asked else Verdict.NOT_EXERCISED, 0, because)


@dataclass(frozen=True)
class MetricResult:
    """One metric group of one engine (``trajectory``, ``inverse_dynamics``, …): its values as written in
    ``summary.json`` (keys in the document's order) and, for judged groups, ``verdict``, ``checks``, ``pass`` and
    ``failed_because`` / ``inconclusive_because`` (:func:`judge`)."""

    name: str
    values: Mapping[str, Any]

    @property
    def verdict(self) -> Verdict | None:
        """The group's verdict; None for an informational group (reported, not judged)."""
        v = self.values.get("verdict")
        if v is not None:
            return Verdict(v)
        p = self.values.get("pass")
        return None if p is None else (Verdict.PASS if p else Verdict.FAIL)

    @property
    def checks(self) -> int:
        """How many samples, states or events the group compared (0 for an informational group)."""
        return int(self.values.get("checks") or 0)

    @property
    def passed(self) -> bool | None:
        """True/False for a PASS/FAIL group, None for an informational, inconclusive or not exercised one."""
        v = self.verdict
        return None if v in (None, Verdict.INCONCLUSIVE, Verdict.NOT_EXERCISED) else v == Verdict.PASS

    @property
    def failed_because(self) -> str | None:
        return self.values.get("failed_because")

    @property
    def inconclusive_because(self) -> str | None:
        return self.values.get("inconclusive_because")

    @property
    def not_exercised_because(self) -> str | None:
        return self.values.get("not_exercised_because")

    def to_summary(self) -> dict:
        return dict(self.values)


@dataclass
class RunRecord:
    """What is measured of one engine so far (mutable while the engine is measured; see :meth:`freeze`).

    Kept apart from :class:`EngineRun` so that a run interrupted or failed half-way keeps what it measured."""

    name: str
    status: RunStatus = RunStatus.OK
    reason: str = ""
    config: dict = field(default_factory=dict)
    driven: Any = None
    free: Any = None
    free_energy: np.ndarray | None = None
    driven_energy: np.ndarray | None = None
    id_errors: np.ndarray | None = None
    convergence: dict = field(default_factory=dict)
    metrics: dict[str, MetricResult] = field(default_factory=dict)

    def add(self, metric: MetricResult) -> None:
        self.metrics[metric.name] = metric

    def freeze(self) -> "EngineRun":
        return EngineRun(self.name, RunStatus(self.status), self.reason, self.config, self.driven, self.free,
                         self.free_energy, self.driven_energy, self.id_errors, self.convergence,
                         dict(self.metrics))


@dataclass(frozen=True)
class EngineRun:
    """Everything measured for one engine: arrays for plots, :class:`MetricResult` per group for the document."""

    name: str
    status: RunStatus = RunStatus.OK
    reason: str = ""
    config: Mapping[str, Any] = field(default_factory=dict)
    driven: Any = None
    """The driven run's :class:`~crossdyn.drive.runner.Trajectory`."""
    free: Any = None
    """The free swing's Trajectory."""
    free_energy: np.ndarray | None = None
    driven_energy: np.ndarray | None = None
    id_errors: np.ndarray | None = None
    convergence: Mapping[str, Any] = field(default_factory=dict)
    metrics: Mapping[str, MetricResult] = field(default_factory=dict)

    @property
    def summary(self) -> dict:
        """The metric groups as in ``summary.json`` (``{group: values}``, in measuring order)."""
        return {name: m.to_summary() for name, m in self.metrics.items()}

    @property
    def stopped_at(self) -> float | None:
        """Time (s) of the first bad state of a diverged or failed driven run; None if it ran to the end."""
        t = getattr(self.driven, "diverged_at", None) if self.driven is not None else None
        return None if t is None else float(t)

    @property
    def checks(self) -> dict[str, int]:
        """Checks made per judged metric group."""
        return {name: m.checks for name, m in self.metrics.items() if m.verdict is not None}

    def to_summary(self) -> dict:
        """This engine's entry of ``summary["engines"]``."""
        return self.summary | {"status": self.status.value, "reason": self.reason, "config": dict(self.config),
                               "stopped_at_s": self.stopped_at, "checks": self.checks}


def skipped(name: str, why: str) -> EngineRun:
    """An engine not measured because of Ctrl-C (``why``: while or before it ran)."""
    return EngineRun(name, RunStatus.SKIPPED, f"interrupted (Ctrl-C) {why}")


@dataclass(frozen=True)
class Comparison:
    """Result of :func:`crossdyn.comparison.compare.compare`.

    ``summary`` is the ``summary.json`` document (:meth:`to_summary`, built once: the command line adds the
    baseline to it); ``result["engines"]`` reads it too."""

    spec: ArmSpec
    options: Any
    """The :class:`~crossdyn.comparison.options.CompareOptions` of the run."""
    profile: Any
    q0: np.ndarray
    reference: Any
    """The reference run (analytic model, DOP853) of the driven profile."""
    reference_free: Any
    runs: Mapping[str, EngineRun]
    header: Mapping[str, Any]
    """The document's keys before ``engines`` (schema, arm, set-up, reference, scales, versions, tolerances)."""
    sections: Mapping[str, Any] = field(default_factory=dict)
    """Per phenomenon (``contact``, ``limits``, ``friction``), its part of the document."""
    notes: tuple[str, ...] = ()
    failures: tuple[str, ...] = ()
    verdict: Verdict = Verdict.PASS
    inconclusive: tuple[str, ...] = ()
    """One line per group or section that could not be judged (why, and how to exercise it)."""
    interrupted: bool = False
    native_limit_runs: Mapping[str, Any] = field(default_factory=dict)
    """compare --native: engine name (``…@native_limits=true``) → its Trajectory."""
    stick_slip_timelines: Mapping[str, Any] = field(default_factory=dict)
    """compare --characterise-friction: "reference" and each native engine → {"t", "stuck"}."""
    native_contact_runs: Mapping[str, Any] = field(default_factory=dict)
    """compare --native on an arm with contact: engine name (``…@native_contact=true``) → its Trajectory."""
    native_contact_reference: Any = None
    """compare --native on an arm with contact: the law's reference run the native runs are compared with."""
    not_exercised: tuple[str, ...] = ()
    """One line per phenomenon the arm declares that the run never reached and the user did not ask about (what
    the run reached, and how to exercise it): 0 checks, the verdict left as the rest decides."""

    def to_summary(self) -> dict:
        """The ``summary.json`` document (schema ``crossdyn.compare/2``)."""
        return {**self.header,
                "engines": {name: run.to_summary() for name, run in self.runs.items()},
                "interrupted": self.interrupted,
                **self.sections,
                "notes": list(self.notes), "failures": list(self.failures), "inconclusive": list(self.inconclusive),
                "not_exercised": list(self.not_exercised),
                "checks": check_totals(self.runs, self.sections),
                "verdict": self.verdict.value}

    @cached_property
    def summary(self) -> dict:
        return self.to_summary()

    @property
    def passed(self) -> bool:
        return self.summary["verdict"] == Verdict.PASS

    def __getitem__(self, key: str) -> Any:
        """``result["engines"]`` and the like: the :attr:`summary` document's entries."""
        return self.summary[key]


def check_totals(runs: Mapping[str, EngineRun], sections: Mapping[str, Any]) -> dict[str, int]:
    """Checks made per metric group over every engine, and per phenomenon section (its ``checks``), plus
    ``total``."""
    totals: dict[str, int] = {}
    for run in runs.values():
        for group, n in run.checks.items():
            totals[group] = totals.get(group, 0) + n
    for name, section in sections.items():
        if isinstance(section, Mapping) and isinstance(section.get("checks"), int):
            totals[name] = totals.get(name, 0) + section["checks"]
    totals["total"] = sum(totals.values())
    return totals
