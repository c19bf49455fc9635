"""The typed result of :func:`crossdyn.identification.identify`: estimate, validation and verdict.

The verdict (:class:`crossdyn.status.Verdict`, FAIL over INCONCLUSIVE over PASS):

- FAIL when the validation relative RMS torque error of a joint exceeds the tolerance, or when a known true
  value lies outside its family-wise interval (Bonferroni, level 1 − 0.05/r for r base parameters);
- INCONCLUSIVE when the consistent estimator's solvers certified no optimum (its answer may be the solver's
  error, not the data's: :func:`~crossdyn.identification.estimators.solve_consistent`), or when there is no true value to compare against (a CSV record judged without ``truth="spec"``):
  the validation alone cannot tell a right estimate from a wrong one that predicts the same torque;
- PASS otherwise: all r true values inside their family-wise intervals and every joint's validation within
  the tolerance.

A known true value is "inside an interval" when abs(β̂ − β) ≤ max(t·stderr, FLOOR·max(abs(β), β_scale)), FLOOR =
:data:`~crossdyn.identification.common.RELATIVE_FLOOR`.  :meth:`IdentificationResult.to_summary` is
``identify.json``; its ``checks`` count what was compared.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from crossdyn.identification import data as D
from crossdyn.identification.common import RELATIVE_FLOOR, relative_errors
from crossdyn.identification.estimators import Estimate
from crossdyn.identification.excitation import Excitation
from crossdyn.status import Verdict

ALLOWANCE_RULE = ("a true value is inside its interval when |estimate - true| <= max(t*stderr, allowance), "
                  f"allowance = {RELATIVE_FLOOR:g} * max(|true|, scale): crossdyn's noise-free recovery tolerance "
                  "(round-off and the engines' integration error), scale = the parameter value that changes the torque data by "
                  "1 % of its RMS; ci95_judged and ci_familywise_judged are the intervals so widened")
"""What the allowance is and where it comes from, in words (``identify.json``'s ``interval_allowance``, the
reports' footnote); its factor is :data:`~crossdyn.identification.common.RELATIVE_FLOOR`."""

NO_TRUTH_REASON = ("no true values to compare the estimate against: the arm file of a CSV record is taken as a "
                   "nominal model (pass --truth spec, or truth=\"spec\", to judge the estimate against its values)")


@dataclass(frozen=True)
class IdentificationResult:
    """One identification of either arm kind: the data and rows fitted, the estimate, the validation, and the inputs
    that made it.  ``kind`` is the plant's (:class:`crossdyn.identification.identify.Plant`): ``"planar"`` (``spec`` an
    :class:`~crossdyn.models.spec.ArmSpec`, ``base`` the closed-form set) or ``"spatial"`` (``spec`` a
    :class:`~crossdyn.robots.model.RobotModel`, ``base`` the numeric set, no RLS trace); the verdict, the parameter
    table and the checks are the same for both, ``identify.json`` adds each kind's own fields."""

    spec: Any                         # the arm: an ArmSpec (planar) or a RobotModel (spatial); both have name, n
    base: Any                         # BaseParameters (planar) or NumericBase (spatial): r, symbols, names, full
    excitation: Excitation | None
    data: D.JointData
    rows: D.Rows
    est: Estimate
    truth: np.ndarray | None          # the spec's base parameters, None for a CSV (a nominal model, not a truth)
    scale: np.ndarray
    validation_rms: np.ndarray        # per joint: relative RMS torque prediction error
    validation: dict
    rls_trace: np.ndarray | None      # None: not computed (spatial arms)
    rls_forgetting: float
    estimator: str
    noise: D.NoiseModel
    seed: int
    validation_tolerance: float
    numerical_rank: int
    info: dict = field(default_factory=dict)
    kind: str = "planar"

    def allowances(self) -> np.ndarray:
        """Per base parameter, the allowance a = FLOOR·max(abs(β), β_scale) (FLOOR = :data:`RELATIVE_FLOOR`, the
        noise-free recovery tolerance; β_scale: the value of β_k that changes the torque data by 1 % of its RMS,
        :func:`~crossdyn.identification.common.parameter_scale`): the least half-width an interval is judged with,
        so that round-off and the engines' integration error (≤ 1.2e-9 relative, noise-free) do not read as a wrong
        estimate when the statistical interval is narrower than that (needs the true values)."""
        if self.truth is None:
            raise ValueError("allowances(): no known true values (identified from a CSV record)")
        return RELATIVE_FLOOR * np.maximum(np.abs(self.truth), self.scale)

    def judged_half_width(self, familywise: bool = False) -> np.ndarray:
        """The half-width the verdict judges with: max(t·stderr, a), the statistical interval's (95 %, or
        ``familywise``: the Bonferroni interval at level 1 − 0.05/r) widened to the allowance a
        (:meth:`allowances`) where it is narrower; without true values the statistical one."""
        hi = self.est.interval(1 - 0.05 / self.base.r if familywise else 0.95)[1]
        return hi - self.est.beta if self.truth is None else np.maximum(hi - self.est.beta, self.allowances())

    def judged_interval(self, familywise: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """The interval the verdict judges: β̂ ± :meth:`judged_half_width`."""
        half = self.judged_half_width(familywise)
        return self.est.beta - half, self.est.beta + half

    def widened(self, familywise: bool = False) -> np.ndarray:
        """Per base parameter, whether the allowance governs its judged interval (wider than the statistical one)."""
        hi = self.est.interval(1 - 0.05 / self.base.r if familywise else 0.95)[1]
        return self.allowances() > hi - self.est.beta

    def true_zero(self) -> np.ndarray:
        """Per base parameter, whether its true value is 0 — within its allowance of 0 (:meth:`allowances`: the
        check cannot tell it from 0): its error is absolute, there is no relative error against it."""
        if self.truth is None:
            raise ValueError("true_zero(): no known true values (identified from a CSV record)")
        return np.abs(self.truth) <= self.allowances()

    def inside(self, familywise: bool = False) -> np.ndarray:
        """Each known true value inside its judged 95 % interval (``familywise``: the Bonferroni interval at level
        1 − 0.05/r, so that all r together hold with 95 % probability), allowance included (:meth:`judged_interval`):
        abs(β̂ − β) ≤ max(t·stderr, a)."""
        if self.truth is None:
            raise ValueError("inside(): no known true values (identified from a CSV record)")
        return np.abs(self.est.beta - self.truth) <= self.judged_half_width(familywise)

    def relative_errors(self) -> np.ndarray:
        """``|β̂ − β| / max(|β|, scale)`` per base parameter (needs the true values)."""
        if self.truth is None:
            raise ValueError("relative_errors(): no known true values (identified from a CSV record)")
        return relative_errors(self.est.beta, self.truth, self.scale)

    def familywise_interval(self) -> tuple[np.ndarray, np.ndarray]:
        """The Bonferroni intervals at level 1 − 0.05/r: all r hold together with 95 % probability."""
        return self.est.interval(1 - 0.05 / self.base.r)

    def judgement(self) -> tuple[Verdict, str]:
        """(verdict, reason): see the module docstring."""
        bad = [f"joint {j + 1} {v:.3g}" for j, v in enumerate(self.validation_rms) if not v <= self.validation_tolerance]
        reasons = []
        if bad:
            reasons.append(f"validation relative RMS torque error above {self.validation_tolerance:g}: {', '.join(bad)}")
        if self.truth is not None:
            # family-wise: with r = 8 parameters, per-parameter 95 % intervals would fail a correct
            # identification in 1 − 0.95⁸ = 34 % of runs
            out = [s for s, ok in zip(self.base.symbols, self.inside(familywise=True), strict=True) if not ok]
            if out:
                reasons.append(f"true value outside its family-wise interval: {', '.join(out)}")
        unjudged = self.est.uncertified()
        if unjudged is not None:        # a FAIL could be the solver's, not the data's
            return Verdict.INCONCLUSIVE, unjudged + "".join(f"; also {r}" for r in reasons)
        if reasons:
            return Verdict.FAIL, "; ".join(reasons)
        if self.truth is None:
            return Verdict.INCONCLUSIVE, NO_TRUTH_REASON + f"; validation within {self.validation_tolerance:g}"
        return Verdict.PASS, (f"all {self.base.r} true values inside their family-wise intervals; validation "
                              f"within {self.validation_tolerance:g} on all {self.spec.n} joints")

    @property
    def verdict(self) -> Verdict:
        return self.judgement()[0]

    @property
    def passed(self) -> bool:
        """The verdict is PASS (an INCONCLUSIVE one is not a pass)."""
        return self.verdict == Verdict.PASS

    def checks(self) -> dict:
        """What the verdict compared: base parameters against the truth (their family-wise intervals), joints'
        validation errors against the tolerance, the torque values those errors were computed from (validation
        rows, all joints); ``total`` = parameters compared + torque values compared."""
        r = self.base.r if self.truth is not None else 0
        values = int(self.validation.get("torque_values", 0))
        return {"parameters_compared_to_truth": r, "intervals_checked": r,
                "validation_joints_checked": int(len(self.validation_rms)), "validation_torque_values": values,
                "total": r + values, "truth": "spec" if self.truth is not None else "none"}

    def checks_line(self) -> str:
        """``"4008 checks: 8 parameters compared to the truth (family-wise intervals), 4000 torque values on 2
        joints validated"``: what the verdict rests on."""
        c = self.checks()
        return (f"{c['total']} checks: {c['parameters_compared_to_truth']} parameters compared to the truth "
                f"(family-wise intervals), {c['validation_torque_values']} torque values on "
                f"{c['validation_joints_checked']} joints validated")

    def parameters(self) -> list[dict]:
        """Per base parameter: name, symbol, true value (None without), the spec's value (planar arms), estimate,
        stderr, the statistical 95 % and family-wise intervals (``ci95``, ``ci_familywise``), relative error,
        whether the true value lies inside each judged interval; with true values also :meth:`judged_fields`."""
        lo, hi = self.est.interval()
        flo, fhi = self.familywise_interval()
        known = self.truth is not None
        rel = self.relative_errors() if known else None
        ins, insf = (self.inside(), self.inside(True)) if known else (None, None)
        judged = self.judged_fields() if known else None
        nominal = self.info.get("nominal")
        out = []
        for k in range(self.base.r):
            p: dict = {"name": self.base.names[k], "symbol": self.base.symbols[k],
                       "true": float(self.truth[k]) if self.truth is not None else None}
            if nominal is not None:
                p["spec_value"] = float(nominal[k])
            p.update({"estimate": float(self.est.beta[k]), "stderr": float(self.est.stderr[k]),
                      "ci95": [float(lo[k]), float(hi[k])], "ci_familywise": [float(flo[k]), float(fhi[k])],
                      "relative_error": None if rel is None else float(rel[k]),
                      "inside_interval": None if ins is None else bool(ins[k]),
                      "inside_familywise_interval": None if insf is None else bool(insf[k])})
            if judged is not None:
                p.update(judged[k])
            out.append(p)
        return out

    def judged_fields(self) -> list[dict]:
        """Per base parameter (needs the true values), what the verdict judges beside the statistical intervals:
        ``allowance`` (:meth:`allowances`), ``ci95_judged`` and ``ci_familywise_judged`` (:meth:`judged_interval`:
        the true value lies inside these when ``inside_…`` is true, up to the round-off of β̂ ± half-width),
        ``widened_by_allowance`` (per interval), ``absolute_error`` abs(β̂ − β), ``true_zero`` (:meth:`true_zero`:
        then no relative error is shown), ``relative_to`` what ``relative_error`` divides by: ``"true value"``
        (abs(β) ≥ β_scale) or ``"scale"``."""
        lo, hi = self.judged_interval()
        flo, fhi = self.judged_interval(True)
        allow, zero, w95, wfw = self.allowances(), self.true_zero(), self.widened(), self.widened(True)
        assert self.truth is not None
        err = np.abs(self.est.beta - self.truth)
        return [{"allowance": float(allow[k]), "ci95_judged": [float(lo[k]), float(hi[k])],
                 "ci_familywise_judged": [float(flo[k]), float(fhi[k])],
                 "widened_by_allowance": {"ci95": bool(w95[k]), "ci_familywise": bool(wfw[k])},
                 "absolute_error": float(err[k]), "true_zero": bool(zero[k]),
                 "relative_to": "true value" if abs(self.truth[k]) >= self.scale[k] else "scale"}
                for k in range(self.base.r)]

    def _common_summary(self) -> dict:
        """The fields of ``identify.json`` both kinds write."""
        verdict, reason = self.judgement()
        return {"schema": SCHEMA, "arm": self.spec.name, "dof": self.spec.n, "source": self.data.source,
                "model": self.rows.model, "seed": self.seed, "samples": int(len(self.rows.y)),
                "base_parameters": self.base.r, "numerical_rank": self.numerical_rank,
                "parameters": self.parameters(), "residual_rms": self.est.residual_rms,
                "validation_rms": {f"joint{j + 1}": float(v) for j, v in enumerate(self.validation_rms)},
                "validation_tolerance": self.validation_tolerance, "validation": self.validation,
                "estimator_info": self.est.info, "passed": verdict == Verdict.PASS,
                "notes": list(self.info.get("notes", [])), "familywise_level": 1 - 0.05 / self.base.r,
                "verdict": verdict.value, "verdict_reason": reason, "checks": self.checks(),
                "interval_allowance": {"relative_floor": RELATIVE_FLOOR, "rule": ALLOWANCE_RULE}}

    def _spatial_summary(self) -> dict:
        """The spatial kind's own fields: ``kind``, the torque noise, the numeric base reduction, cond(W), the run."""
        b = self.base
        return {"kind": "spatial", "estimator": self.est.method, "noise": {"torque_std_Nm": self.noise.torque},
                "base_reduction": {"tolerance": b.tolerance, "gap": b.gap, **b.info,
                                   "unidentifiable": list(b.unidentifiable), "full_parameters": b.full.p},
                "condition_number": float(np.linalg.cond(self.rows.W)),
                "run": {"seconds": self.info["seconds"], "bounds": self.info["bounds"],
                        "trajectory": self.info["trajectory"], "data": self.data.info}}

    def _planar_summary(self) -> dict:
        """The planar kind's own fields: the full noise model, the optimised excitation, RLS, the consistent θ."""
        ex = self.excitation
        out = {"estimator": self.estimator, "noise": self.noise.as_dict(),
               "condition_number": None if ex is None else ex.cond,
               "condition_number_random": None if ex is None else ex.cond_random,
               "excitation": None if ex is None else ex.as_dict()}
        if self.rls_trace is not None:
            out["rls"] = {"forgetting_factor": self.rls_forgetting, "final": self.rls_trace[-1].tolist()}
        if self.est.theta is not None:
            out["consistent_full_parameters"] = dict(zip(self.base.full.names, map(float, self.est.theta), strict=False))
        return out

    def to_summary(self, diagnosis=None) -> dict:
        """``identify.json``: the fields both kinds write and the kind's own (``diagnosis``: ``(base,
        [EngineDiagnosis])`` of :func:`~crossdyn.identification.diagnosis.diagnose_engines`, added as
        ``engine_diagnosis``)."""
        out = {**self._common_summary(), **(self._spatial_summary() if self.kind == "spatial" else
                                             self._planar_summary())}
        if diagnosis is not None:
            base, diags = diagnosis
            out["engine_diagnosis"] = [d.as_dict(base) for d in diags]
        return out


SCHEMA = "crossdyn.identify/1"
"""``identify.json``'s ``schema`` word (its JSON Schema: ``crossdyn/cli/schemas/identify.schema.json``)."""

Result = IdentificationResult
"""The name it had before (``crossdyn.identification.identify.Result``)."""
