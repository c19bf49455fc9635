"""The typed result of :func:`crossdyn.identification.identify`: estimate, validation and verdict.

The verdict fails when the validation relative RMS torque error of a joint exceeds the tolerance, or when a known
true value lies outside its family-wise interval (Bonferroni, level 1 − 0.05/r for r base parameters).  A known
true value is "inside an interval" when |β̂ − β| ≤ max(t·stderr, FLOOR·max(|β|, β_scale)), FLOOR =
:data:`~crossdyn.identification.common.RELATIVE_FLOOR`.  :meth:`IdentificationResult.to_summary` is
``identify.json``.
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

    @property
    def passed(self) -> bool:
        ok = bool(np.all(self.validation_rms <= self.validation_tolerance))
        if self.truth is not None:
            # family-wise: with r = 8 parameters, per-parameter 95 % intervals would fail a correct
            # identification in 1 − 0.95⁸ = 34 % of runs
            ok = ok and bool(np.all(self.inside(familywise=True)))
        return ok

    def parameters(self) -> list[dict]:
        """Per base parameter: name, symbol, true value, estimate, stderr, 95 % interval, relative error."""
        lo, hi = self.est.interval()
        out = []
        for k in range(self.base.r):
            t = None if self.truth is None else float(self.truth[k])
            out.append({"name": self.base.names[k], "symbol": self.base.symbols[k], "true": t,
                        "spec_value": float(self.info["nominal"][k]),
                        "estimate": float(self.est.beta[k]), "stderr": float(self.est.stderr[k]),
                        "ci95": [float(lo[k]), float(hi[k])],
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
            "arm": self.spec.name, "dof": self.spec.n, "source": self.data.source, "estimator": self.estimator,
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
        }
        if self.est.theta is not None:
            out["consistent_full_parameters"] = dict(zip(self.base.full.names, map(float, self.est.theta), strict=False))
        if diagnosis is not None:
            base, diags = diagnosis
            out["engine_diagnosis"] = [d.as_dict(base) for d in diags]
        return out


Result = IdentificationResult
"""The name it had before (``crossdyn.identification.identify.Result``)."""
