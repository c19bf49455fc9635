"""Excitation trajectories: finite Fourier series per joint (Swevers, Ganseman, Tükel, De Schutter, Van Brussel
1997), optimised for the condition number of the base regressor.

Joint j follows, with base angular frequency ω_f = 2π/T_f and N harmonics,

    q_j(t)   = q0_j + Σ_{l=1..N} [ a_jl/(ω_f l) sin(ω_f l t) − b_jl/(ω_f l) cos(ω_f l t) ]
    q̇_j(t)   = Σ_l [ a_jl cos(ω_f l t) + b_jl sin(ω_f l t) ]
    q̈_j(t)   = Σ_l ω_f l [ −a_jl sin(ω_f l t) + b_jl cos(ω_f l t) ]

periodic with period T_f (so the data can be averaged over periods and start/stop transients avoided).

Bounds are met by construction: a coefficient vector is scaled by 1/s with
s = max( max|q − q0|/Δq, max|q̇|/q̇_max, max|q̈|/q̈_max ) evaluated on a dense grid, so the scaled trajectory
touches at least one bound and violates none.  The optimiser (scipy.optimize.minimize, L-BFGS-B) works on the
unscaled coefficients and minimises log cond(Y_base) of the scaled trajectory, Y_base stacked at ``samples``
points of one period; a random trajectory gets the same scaling, so the two are compared under the same bounds.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from crossdyn.identification.parameters import BaseParameters
from crossdyn.models.spec import ArmSpec

DEFAULT_HALF_RANGE = 1.5
"""rad; position half-range about the centre when the spec has no limits."""
EQUILIBRATE = False
"""True: cond of Y_base with unit-norm columns. Default False, cond of Y_base as it is (Swevers 1997): with unit-norm
columns random Fourier trajectories come within 2x of the optimum on planar2r, so the plain number is reported."""
DEFAULT_QD_MAX = 2.5
"""rad/s"""
DEFAULT_QDD_MAX = 10.0
"""rad/s²"""


@dataclass(frozen=True)
class Bounds:
    """Per-joint centre and half-range of q (rad), and |q̇|, |q̈| bounds."""

    center: np.ndarray
    half_range: np.ndarray
    qd_max: np.ndarray
    qdd_max: np.ndarray
    source: str

    def as_dict(self) -> dict:
        return {"center": self.center.tolist(), "half_range": self.half_range.tolist(),
                "qd_max": self.qd_max.tolist(), "qdd_max": self.qdd_max.tolist(), "source": self.source}


def default_bounds(spec: ArmSpec, qd_max: float = DEFAULT_QD_MAX, qdd_max: float = DEFAULT_QDD_MAX,
                   half_range: float = DEFAULT_HALF_RANGE) -> Bounds:
    """Spec limits where given (95 % of the range about its middle), else joint 1 about hanging (−π/2) and the
    others about 0, ±``half_range`` rad."""
    n = spec.n
    center = np.zeros(n)
    center[0] = -np.pi / 2
    half = np.full(n, float(half_range))
    source = []
    for i, link in enumerate(spec.links):
        if link.limits is not None:
            lo, hi = link.limits
            center[i] = 0.5 * (lo + hi)
            half[i] = 0.475 * (hi - lo)
            source.append(f"q{i + 1}: spec limits")
    return Bounds(center, half, np.full(n, float(qd_max)), np.full(n, float(qdd_max)),
                  "; ".join(source) if source else
                  f"default: q1 about -pi/2, others about 0, +-{half_range:g} rad (the spec has no limits)")


@dataclass(frozen=True)
class FourierTrajectory:
    """q(t) = q0 + Σ_l (a_l sin(ω_f l t) − b_l cos(ω_f l t))/(ω_f l) per joint; a, b of shape (n, N)."""

    q0: np.ndarray
    a: np.ndarray
    b: np.ndarray
    period: float

    @property
    def n(self) -> int:
        return self.a.shape[0]

    @property
    def harmonics(self) -> int:
        return self.a.shape[1]

    def evaluate(self, t) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(q, q̇, q̈) at times t: shape (len(t), n) each."""
        t = np.atleast_1d(np.asarray(t, dtype=float))
        wf = 2 * np.pi / self.period
        l = np.arange(1, self.harmonics + 1)
        wl = wf * l                                      # (N,)
        S, C = np.sin(np.outer(t, wl)), np.cos(np.outer(t, wl))   # (T, N)
        q = self.q0 + (S / wl) @ self.a.T - (C / wl) @ self.b.T
        qd = C @ self.a.T + S @ self.b.T
        qdd = (-S * wl) @ self.a.T + (C * wl) @ self.b.T
        return q, qd, qdd

    def scale(self, bounds: Bounds, grid: int = 400) -> "FourierTrajectory":
        """The same shape scaled by 1/s so that it just meets the bounds (see the module docstring)."""
        t = np.linspace(0, self.period, grid, endpoint=False)
        q, qd, qdd = self.evaluate(t)
        room = bounds.half_range - np.abs(self.q0 - bounds.center)   # the offset q0 uses part of the range
        s = max(np.max(np.abs(q - self.q0) / room), np.max(np.abs(qd) / bounds.qd_max),
                np.max(np.abs(qdd) / bounds.qdd_max))
        return FourierTrajectory(self.q0, self.a / s, self.b / s, self.period)

    def params(self) -> dict:
        return {"kind": "fourier", "period_s": self.period, "harmonics": self.harmonics,
                "q0": self.q0.tolist(), "a": self.a.tolist(), "b": self.b.tolist()}


def random_fourier(bounds: Bounds, harmonics: int = 5, period: float = 5.0, seed: int = 0) -> FourierTrajectory:
    """Coefficients a, b standard normal (seeded), shifted so q is centred, scaled to the bounds."""
    rng = np.random.default_rng(seed)
    n = len(bounds.center)
    a, b = rng.standard_normal((n, harmonics)), rng.standard_normal((n, harmonics))
    return _centred(bounds, a, b, period).scale(bounds)


def _centred(bounds: Bounds, a, b, period) -> FourierTrajectory:
    # q0 such that the mean of q over a period is the centre (the sin/cos terms have zero mean)
    return FourierTrajectory(bounds.center.copy(), np.asarray(a, float), np.asarray(b, float), period)


def condition_number(spec: ArmSpec, base: BaseParameters, traj: FourierTrajectory, samples: int = 200,
                     equilibrate: bool = EQUILIBRATE) -> float:
    """cond(Y_base) with Y_base stacked at ``samples`` equally spaced points of one period."""
    t = np.linspace(0, traj.period, samples, endpoint=False)
    q, qd, qdd = traj.evaluate(t)
    Y = base.evaluate(spec.params(), q, qd, qdd).reshape(-1, base.r)
    if equilibrate:
        norms = np.linalg.norm(Y, axis=0)
        if np.any(norms == 0):
            return float("inf")
        Y = Y / norms
    return float(np.linalg.cond(Y))


@dataclass(frozen=True)
class Excitation:
    trajectory: FourierTrajectory
    random: FourierTrajectory
    cond: float
    cond_random: float
    bounds: Bounds
    iterations: int

    @property
    def ratio(self) -> float:
        return self.cond_random / self.cond

    def as_dict(self) -> dict:
        return {"trajectory": self.trajectory.params(), "condition_number": self.cond,
                "condition_number_random": self.cond_random, "ratio": self.ratio,
                "bounds": self.bounds.as_dict(), "optimiser_iterations": self.iterations,
                "optimiser": "scipy.optimize.minimize L-BFGS-B on log cond(Y_base)"}


def optimise_excitation(spec: ArmSpec, base: BaseParameters, bounds: Bounds | None = None, harmonics: int = 5,
                        period: float = 5.0, samples: int = 100, seed: int = 0, maxiter: int = 60) -> Excitation:
    """Fourier coefficients minimising cond(Y_base) under ``bounds``, started from the seeded random trajectory."""
    import scipy.optimize

    bounds = default_bounds(spec) if bounds is None else bounds
    rnd = random_fourier(bounds, harmonics, period, seed)
    n = spec.n

    def unpack(x):
        a, b = x[: n * harmonics].reshape(n, harmonics), x[n * harmonics: 2 * n * harmonics].reshape(n, harmonics)
        # the offsets move within half the position range: q0 = centre + ½ Δq tanh(z)
        q0 = bounds.center + 0.5 * bounds.half_range * np.tanh(x[2 * n * harmonics:])
        return FourierTrajectory(q0, a, b, period).scale(bounds)

    def cost(x):
        c = condition_number(spec, base, unpack(x), samples)
        return np.log(c) if np.isfinite(c) else 1e3

    x0 = np.concatenate([rnd.a.ravel(), rnd.b.ravel(), np.zeros(n)])
    res = scipy.optimize.minimize(cost, x0, method="L-BFGS-B", options={"maxiter": maxiter})
    best = unpack(res.x)
    return Excitation(best, rnd, condition_number(spec, base, best, 4 * samples),
                      condition_number(spec, base, rnd, 4 * samples), bounds, int(res.nit))
