"""The typed result of :func:`crossdyn.identification.identify`: estimate, validation and verdict.

The verdict (:class:`crossdyn.status.Verdict`, FAIL over INCONCLUSIVE over PASS):

- FAIL when the validation relative RMS torque error of a joint exceeds the tolerance, or when a known true
  value lies outside its family-wise interval (Bonferroni, level 1 − 0.05/r for r base parameters);
- INCONCLUSIVE when the consistent estimator's solvers certified no optimum (its answer may be the solver's
  error, not the data's: :func:`~crossdyn.identification.estimators.solve_consistent`), or when there is no true value to compare against (a CSV record judged without ``truth="spec"``):
  the validation alone cannot tell a right estimate from a wrong one that predicts the same torque;
- PASS otherwise: all r true values inside their family-wise intervals and every joint's validation within
  the tolerance.

A known true value is "inside an interval" when |β̂ − β| ≤ max(t·stderr, FLOOR·max(|β|, β_scale)), FLOOR =
:data:`~crossdyn.identification.common.RELATIVE_FLOOR`.  :meth:`IdentificationResult.to_summary` is
``identify.json``; its ``checks`` count what was compared.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from crossdyn.identification import data as D
from crossdyn.identification.common import RELATIVE_FLOOR, relative_errors
from crossdyn.identification.estimators import Estimate
from crossdyn.identification.excitation import Excitation
from crossdyn.identification.parameters import BaseParameters
from crossdyn.models.spec import ArmSpec
from crossdyn.status import Verdict

NO_TRUTH_REASON = ("no true values to compare the estimate against: the arm file of a CSV record is taken as a "
                   "nominal model (pass --truth spec, or truth=\"spec\", to judge the estimate against its values)")


@dataclass(frozen=True)
class IdentificationResult:
    """One identification: the data and rows fitted, the estimate, the validation, and the inputs that made it."""

    spec: ArmSpec
    base: BaseParameters
    excitation: Excitation | None
    data: D.JointData
    rows: D.Rows
    est: Estimate
    truth: np.ndarray | None          # the spec's base parameters, None for a CSV (a nominal model, not a truth)
    scale: np.ndarray
    validation_rms: np.ndarray        # per joint: relative RMS torque prediction error
    validation: dict
    rls_trace: np.ndarray
    rls_forgetting: float
    estimator: str
    noise: D.NoiseModel
    seed: int
    validation_tolerance: float
    numerical_rank: int
    info: dict = field(default_factory=dict)

    def inside(self, familywise: bool = False) -> np.ndarray:
        """Each known true value inside its 95 % interval (``familywise``: the Bonferroni interval at level
        1 − 0.05/r, so that all r together hold with 95 % probability)."""
        if self.truth is None:
            raise ValueError("inside(): no known true values (identified from a CSV record)")
        lo, hi = self.est.interval(1 - 0.05 / self.base.r if familywise else 0.95)
        half = np.maximum(hi - self.est.beta, RELATIVE_FLOOR * np.maximum(np.abs(self.truth), self.scale))
        return np.abs(self.est.beta - self.truth) <= half

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
        """Per base parameter: name, symbol, true value, estimate, stderr, 95 % interval, relative error."""
        lo, hi = self.est.interval()
        flo, fhi = self.familywise_interval()
        out = []
        for k in range(self.base.r):
            t = None if self.truth is None else float(self.truth[k])
            out.append({"name": self.base.names[k], "symbol": self.base.symbols[k], "true": t,
                        "spec_value": float(self.info["nominal"][k]),
                        "estimate": float(self.est.beta[k]), "stderr": float(self.est.stderr[k]),
                        "ci95": [float(lo[k]), float(hi[k])],
                        "ci_familywise": [float(flo[k]), float(fhi[k])],
                        "relative_error": None if t is None else
                        float(relative_errors(self.est.beta[k], t, self.scale[k])),
                        "inside_interval": None if t is None else bool(self.inside()[k]),
                        "inside_familywise_interval": None if t is None else bool(self.inside(True)[k])})
        return out

    def to_summary(self, diagnosis=None) -> dict:
        """``identify.json``: the document (``diagnosis``: ``(base, [EngineDiagnosis])`` of
        :func:`~crossdyn.identification.diagnosis.diagnose_engines`, added as ``engine_diagnosis``)."""
        ex = self.excitation
        out = {
            "schema": SCHEMA, "arm": self.spec.name, "dof": self.spec.n, "source": self.data.source, "estimator": self.estimator,
            "model": self.rows.model, "seed": self.seed, "noise": self.noise.as_dict(),
            "samples": int(len(self.rows.y)), "base_parameters": self.base.r, "numerical_rank": self.numerical_rank,
            "parameters": self.parameters(),
            "condition_number": None if ex is None else ex.cond,
            "condition_number_random": None if ex is None else ex.cond_random,
            "excitation": None if ex is None else ex.as_dict(),
            "residual_rms": self.est.residual_rms,
            "validation_rms": {f"joint{j + 1}": float(v) for j, v in enumerate(self.validation_rms)},
            "validation_tolerance": self.validation_tolerance, "validation": self.validation,
            "rls": {"forgetting_factor": self.rls_forgetting, "final": self.rls_trace[-1].tolist()},
            "estimator_info": self.est.info, "passed": self.passed, "notes": list(self.info.get("notes", [])),
            "familywise_level": 1 - 0.05 / self.base.r,
        }
        verdict, reason = self.judgement()
        out["verdict"], out["verdict_reason"], out["checks"] = verdict.value, reason, self.checks()
        if self.est.theta is not None:
            out["consistent_full_parameters"] = dict(zip(self.base.full.names, map(float, self.est.theta), strict=False))
        if diagnosis is not None:
            base, diags = diagnosis
            out["engine_diagnosis"] = [d.as_dict(base) for d in diags]
        return out


SCHEMA = "crossdyn.identify/1"
"""``identify.json``'s ``schema`` word (its JSON Schema: ``crossdyn/cli/schemas/identify.schema.json``)."""

Result = IdentificationResult
"""The name it had before (``crossdyn.identification.identify.Result``)."""
