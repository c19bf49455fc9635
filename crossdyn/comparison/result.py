"""The typed result of a comparison: :class:`Comparison` of :class:`EngineRun` of :class:`MetricResult`.

Every result is a frozen dataclass; :meth:`Comparison.to_summary` writes today's ``summary.json`` document
(schema ``crossdyn.compare/1``) from them, key for key.  Statuses are :class:`~crossdyn.status.RunStatus`,
the overall outcome a :class:`~crossdyn.status.Verdict` (written ``"pass"``/``"fail"`` in the document).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Mapping

import numpy as np

from crossdyn.models.spec import ArmSpec
from crossdyn.status import RunStatus, Verdict


@dataclass(frozen=True)
class MetricResult:
    """One metric group of one engine (``trajectory``, ``inverse_dynamics``, …): its values as written in
    ``summary.json`` (keys in the document's order) and, for judged groups, ``pass`` and ``failed_because``."""

    name: str
    values: Mapping[str, Any]

    @property
    def passed(self) -> bool | None:
        """True/False for a judged group, None for an informational one (no ``pass`` key)."""
        p = self.values.get("pass")
        return None if p is None else bool(p)

    @property
    def failed_because(self) -> str | None:
        return self.values.get("failed_because")

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

    def to_summary(self) -> dict:
        """This engine's entry of ``summary["engines"]``."""
        return self.summary | {"status": self.status.value, "reason": self.reason, "config": dict(self.config),
                               "stopped_at_s": self.stopped_at}


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
    interrupted: bool = False
    native_limit_runs: Mapping[str, Any] = field(default_factory=dict)
    """compare --native: engine name (``…@native_limits=true``) → its Trajectory."""
    stick_slip_timelines: Mapping[str, Any] = field(default_factory=dict)
    """compare --characterise-friction: "reference" and each native engine → {"t", "stuck"}."""
    native_contact_runs: Mapping[str, Any] = field(default_factory=dict)
    """compare --native on an arm with contact: engine name (``…@native_contact=true``) → its Trajectory."""
    native_contact_reference: Any = None
    """compare --native on an arm with contact: the law's reference run the native runs are compared with."""

    def to_summary(self) -> dict:
        """The ``summary.json`` document (schema ``crossdyn.compare/1``)."""
        return {**self.header,
                "engines": {name: run.to_summary() for name, run in self.runs.items()},
                "interrupted": self.interrupted,
                **self.sections,
                "notes": list(self.notes), "failures": list(self.failures),
                "verdict": self.verdict.value.lower()}

    @cached_property
    def summary(self) -> dict:
        return self.to_summary()

    @property
    def passed(self) -> bool:
        return self.summary["verdict"] == "pass"

    def __getitem__(self, key: str) -> Any:
        """``result["engines"]`` and the like: the :attr:`summary` document's entries."""
        return self.summary[key]
