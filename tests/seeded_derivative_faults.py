"""Seeded derivative faults (issue 41): real engines' derivative sources with one known defect each, handed to the
``derivatives`` group through its ``source=`` hook (:func:`crossdyn.comparison.groups.derivatives.derivatives_group`).
Each is a subclass of the engine's own source that alters what the engine returns, while the group judges it with
the tolerance of the method the engine claims.

Used by ``benchmarks/verdicts.py --derivatives`` (the derivative fault matrix) and ``tests/test_seeded_faults.py``.

============  =====================================================================================================
fault         the defect
============  =====================================================================================================
fd-eps        MuJoCo's ``mjd_transitionFD`` and ``mjd_inverseFD`` at ε = 1e-2 while the group states (and bounds for)
              ε = 1e-6: the truncation error grows by (1e-2/1e-6)² centred, 1e4 forward
float32       Pinocchio's six blocks rounded to float32 (relative round-off 6e-8) judged as float64
undamped      Pinocchio's ∂q̈/∂q̇ without the viscous term −M⁻¹ diag(b) (needs b ≠ 0 to be seen)
transposed    Pinocchio's ∂τ/∂q returned transposed (a row/column-major mix-up; seen where ∂τ/∂q is not symmetric)
============  =====================================================================================================
"""
from __future__ import annotations

import numpy as np

from crossdyn.comparison.groups import derivatives as dg

FD_EPS = 1e-2
"""The too-large finite-difference step of the ``fd-eps`` fault (the group's is :data:`dg.EPS` = 1e-6)."""


class LargeStepMuJoCo(dg.MuJoCoDerivatives):
    """MuJoCo's finite differences at ε = :data:`FD_EPS` passed off as ε = 1e-6."""

    def transition(self, model, Q, QD, TAU, dt, engine):
        from crossdyn.derivatives.engines import FiniteDifference, mujoco_transition
        return mujoco_transition(model, Q, QD, TAU, dt, FiniteDifference(FD_EPS, True), engine)

    def inverse(self, model, Q, QD, QDD, engine):
        from crossdyn.derivatives.engines import mujoco_inverse
        return mujoco_inverse(model, Q, QD, QDD, FD_EPS, engine)


class Float32Pinocchio(dg.PinocchioDerivatives):
    """Pinocchio's blocks rounded to float32 and back: float32 passed off as float64."""

    def blocks(self, model, Q, QD, TAU, QDD):
        d = super().blocks(model, Q, QD, TAU, QDD)
        for name in ("dqdd_dq", "dqdd_dqd", "dqdd_dtau", "dtau_dq", "dtau_dqd", "dtau_dqdd"):
            block = getattr(d, name)
            block[:] = block.astype(np.float32).astype(float)
        return d


class UndampedPinocchio(dg.PinocchioDerivatives):
    """Pinocchio's ∂q̈/∂q̇ with the viscous term −M⁻¹ diag(b) dropped."""

    def blocks(self, model, Q, QD, TAU, QDD):
        d = super().blocks(model, Q, QD, TAU, QDD)
        b = np.array([j.damping for j in model.joints])
        d.dqdd_dqd[:] = d.dqdd_dqd + d.dqdd_dtau @ np.diag(b)
        return d


class TransposedPinocchio(dg.PinocchioDerivatives):
    """Pinocchio's ∂τ/∂q returned transposed."""

    def blocks(self, model, Q, QD, TAU, QDD):
        d = super().blocks(model, Q, QD, TAU, QDD)
        d.dtau_dq[:] = np.swapaxes(d.dtau_dq, 1, 2).copy()
        return d


FAULTS = {
    "fd-eps": ("MuJoCo finite differences at eps 1e-2 claimed 1e-6", "mujoco", LargeStepMuJoCo),
    "float32": ("Pinocchio's blocks in float32 claimed float64", "pinocchio", Float32Pinocchio),
    "undamped": ("damping term dropped from dqdd/dqd", "pinocchio", UndampedPinocchio),
    "transposed": ("dtau/dq transposed", "pinocchio", TransposedPinocchio),
}
"""Fault key → (title, the engine whose source it alters, the source class)."""

BLOCK = {"undamped": "∂q̈/∂q̇", "transposed": "∂τ/∂q"}
"""The block a fault alters, where it alters one (the failure must name it)."""
