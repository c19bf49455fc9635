"""The compliant joint-limit law: the torque a limit stop puts on a joint, from the joint's state.

Per joint with limits [lo, hi], stiffness k (N m/rad) and damping c (N m s/rad):

    τ_lim = min(0, −k (q − hi) − c q̇)    for q > hi     (pushes back, never pulls)
    τ_lim = max(0, −k (q − lo) − c q̇)    for q < lo
    τ_lim = 0                            for lo ≤ q ≤ hi

so the arm obeys M q̈ + C q̇ + G + F = τ + τ_lim.  τ_lim is discontinuous where a joint enters a limit with
c q̇ ≠ 0 and has a kink where the clipped force −k(q − hi) − c q̇ reaches 0 (the stop *releases* the joint
before it is back inside: the damper would pull); :meth:`LimitLaw.events` gives the functions whose roots are
those switches, for the event-exact reference (:func:`crossdyn.analytic.references.limits.simulate_limits`).

The spec keys ``limit_stiffness``/``limit_damping`` give the law (:meth:`LimitLaw.of`); the runner applies it
(applied mode, :mod:`crossdyn.drive.runner`).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class LimitLaw:
    """Limits and the compliant law's coefficients, one entry per joint (±inf: no limit on that side)."""

    lower: np.ndarray
    upper: np.ndarray
    stiffness: np.ndarray
    damping: np.ndarray
    _rows: tuple = field(init=False, repr=False, compare=False)
    """(index, lo, hi, k, c) as Python floats per joint with a finite side (set in ``__post_init__``)."""

    @classmethod
    def from_spec(cls, spec, stiffness, damping) -> "LimitLaw":
        """The spec's ``limits`` (joints without limits: ±inf) with stiffness k and damping c (scalars or per joint)."""
        n = spec.n
        lo = np.array([-np.inf if link.limits is None else link.limits[0] for link in spec.links])
        hi = np.array([np.inf if link.limits is None else link.limits[1] for link in spec.links])
        k = np.broadcast_to(np.asarray(stiffness, dtype=float), (n,)).copy()
        c = np.broadcast_to(np.asarray(damping, dtype=float), (n,)).copy()
        if np.any(k <= 0) or np.any(c < 0) or not np.all(np.isfinite(k)) or not np.all(np.isfinite(c)):
            raise ValueError(f"limit law: stiffness must be > 0 and damping >= 0 (finite), got k = {k}, c = {c}")
        return cls(lo, hi, k, c)

    @classmethod
    def of(cls, spec) -> "LimitLaw | None":
        """The law the spec sets (``limit_stiffness``/``limit_damping`` per link; links without: no limit), or None."""
        if not spec.has_limit_law:
            return None
        on = [link.limit_stiffness > 0 for link in spec.links]
        return cls(np.array([link.limits[0] if o else -np.inf for link, o in zip(spec.links, on, strict=True)]),
                   np.array([link.limits[1] if o else np.inf for link, o in zip(spec.links, on, strict=True)]),
                   np.array([link.limit_stiffness for link in spec.links]),
                   np.array([link.limit_damping for link in spec.links]))

    def __post_init__(self) -> None:
        # per joint with a finite side: (index, lo, hi, k, c) as Python floats, for the one-state path of
        # torque() (the runner calls it every step; NumPy on arrays of a few joints costs several µs)
        rows = tuple((i, float(lo), float(hi), float(k), float(c)) for i, (lo, hi, k, c) in
                     enumerate(zip(self.lower, self.upper, self.stiffness, self.damping, strict=False))
                     if np.isfinite(lo) or np.isfinite(hi))
        object.__setattr__(self, "_rows", rows)


    def torque(self, q, qd) -> np.ndarray:
        """τ_lim(q, q̇) (see the module docstring); batched over leading axes."""
        q, qd = np.asarray(q, dtype=float), np.asarray(qd, dtype=float)
        if q.ndim == 1:  # one state: scalar arithmetic per limited joint (same law, same numbers)
            out = np.zeros(q.shape[0])
            for i, lo, hi, k, c in self._rows:
                qi = q[i]
                if qi > hi:
                    f = -k * (qi - hi) - c * qd[i]
                    out[i] = f if f < 0.0 else 0.0  # pushes back, never pulls
                elif qi < lo:
                    f = -k * (qi - lo) - c * qd[i]
                    out[i] = f if f > 0.0 else 0.0
            return out
        with np.errstate(invalid="ignore"):  # inf − inf where a side has no limit: masked out below
            up = np.minimum(0.0, -self.stiffness * (q - self.upper) - self.damping * qd)
            down = np.maximum(0.0, -self.stiffness * (q - self.lower) - self.damping * qd)
        return np.where(q > self.upper, up, 0.0) + np.where(q < self.lower, down, 0.0)

    def events(self, q, qd) -> np.ndarray:
        """The event functions (4n): q − hi, q − lo, and the unclipped forces at hi and at lo."""
        f_up = -self.stiffness * (q - self.upper) - self.damping * qd
        f_down = -self.stiffness * (q - self.lower) - self.damping * qd
        return np.concatenate([q - self.upper, q - self.lower, f_up, f_down])
