"""Kinetic, potential and total energy (batched).

    T = ½ q̇ᵀ M(q) q̇,     U = −Σ mi g·p_ci,     E = T + U

U is zero when every centre of mass is at the base (its reference does not
matter for drift, which crossdyn reports in joules or relative to
:meth:`~crossdyn.models.spec.ArmSpec.energy_scale`).
"""
from __future__ import annotations

import numpy as np

from crossdyn.analytic.dynamics import as_params, mass_matrix
from crossdyn.analytic.kinematics import com_positions


def kinetic_energy(arm, q, qd) -> np.ndarray:
    p = as_params(arm)
    qd = np.asarray(qd, float)
    return 0.5 * np.einsum("...i,...ij,...j->...", qd, mass_matrix(p, q), qd)


def potential_energy(arm, q) -> np.ndarray:
    p = as_params(arm)
    pc = com_positions(p, q)
    return -np.sum(p.m * (p.gravity[..., None, 0] * pc[..., 0] + p.gravity[..., None, 1] * pc[..., 1]), axis=-1)


def total_energy(arm, q, qd) -> np.ndarray:
    return kinetic_energy(arm, q, qd) + potential_energy(arm, q)
