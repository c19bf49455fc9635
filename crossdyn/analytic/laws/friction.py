"""Coulomb joint friction as applied to every engine (applied mode): the regularised law φ = −f_c ⊙ tanh(q̇ / v_s).

A smooth function of the joint velocities that every engine can be given per step.  :meth:`FrictionLaw.of` picks
v_s from the arm and the step: held over a step dt, the law's slope f_c/v_s acts like a damper, and the explicit
step of q̇ ↦ q̇ − dt M⁻¹ (f_c/v_s) q̇ is monotone (no sign flip, no chatter about q̇ = 0) when
dt · λ_max(M⁻¹ F_c) / v_s ≤ 1 (F_c = diag(f_c), the largest over 64 sampled configurations and q0); v_s is set so
that this number is 0.5 (and v_s ≥ 1e-3 rad/s).  As v_s → 0 the regularised runs converge to the set-valued
reference (:func:`crossdyn.analytic.references.stick_slip.simulate_stick_slip`, tested with
:func:`~crossdyn.analytic.references.stick_slip.rk4_regularised`).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from crossdyn.analytic.dynamics import mass_matrix

V_S_MIN = 1e-3
"""rad/s: the smallest regularisation velocity :meth:`FrictionLaw.of` picks."""

STABILITY_NUMBER = 0.5
"""dt · λ_max(M⁻¹ F_c) / v_s that :meth:`FrictionLaw.of` aims at (≤ 1: the held law's step is monotone)."""


def without_friction(spec):
    """The spec with every link's Coulomb friction set to 0 (what the engines get in applied mode)."""
    return replace(spec, links=tuple(replace(link, friction=0.0) for link in spec.links))


def max_friction_rate(spec, q0=None, samples: int = 64) -> float:
    """max over ``q0`` and ``samples`` configurations (fixed seed) of λ_max(M(q)⁻¹ F_c), F_c = diag(f_c) (1/s²·s:
    the rate, per unit of q̇/v_s, at which the friction torque decelerates the arm); the generalized eigenvalue
    of (F_c, M), so a light tip joint with a small f_c does not count as if it had the largest one."""
    from scipy.linalg import eigh

    fc = np.array([link.friction for link in spec.links], dtype=float)
    rng = np.random.default_rng(0)
    qs = rng.uniform(-np.pi, np.pi, size=(samples, spec.n))
    if q0 is not None:
        qs = np.vstack([np.asarray(q0, float)[None, :], qs])
    return float(max(eigh(np.diag(fc), mass_matrix(spec, q), eigvals_only=True)[-1] for q in qs))


@dataclass(frozen=True)
class FrictionLaw:
    """The regularised Coulomb law φ = −f_c ⊙ tanh(q̇ / v_s) (applied mode)."""

    fc: np.ndarray
    v_s: float

    @classmethod
    def of(cls, spec, dt: float, q0=None) -> "FrictionLaw | None":
        """The spec's f_c with v_s = max(1e-3, dt · λ_max(M⁻¹ F_c) / 0.5) (module docstring), or None."""
        if not spec.has_friction:
            return None
        fc = np.array([link.friction for link in spec.links], dtype=float)
        v_s = max(V_S_MIN, dt * max_friction_rate(spec, q0) / STABILITY_NUMBER)
        return cls(fc, float(v_s))

    def torque(self, qd) -> np.ndarray:
        """φ(q̇) = −f_c ⊙ tanh(q̇ / v_s)."""
        return -self.fc * np.tanh(np.asarray(qd, dtype=float) / self.v_s)

    def describe(self) -> str:
        return (f"phi = -fc*tanh(qd/v_s), fc = {[float(f) for f in self.fc]} N m, v_s = {self.v_s:.3g} rad/s "
                f"(dt*lambda_max(M^-1 diag(fc))/v_s <= {STABILITY_NUMBER})")
