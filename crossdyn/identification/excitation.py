"""Excitation trajectories: finite Fourier series per joint (Swevers, Ganseman, Tükel, De Schutter, Van Brussel
1997), optimised for the condition number of the base regressor.

Joint j follows, with base angular frequency ω_f = 2π/T_f and N harmonics,

    q_j(t)   = q0_j + Σ_{l=1..N} [ a_jl/(ω_f l) sin(ω_f l t) − b_jl/(ω_f l) cos(ω_f l t) ]
    q̇_j(t)   = Σ_l [ a_jl cos(ω_f l t) + b_jl sin(ω_f l t) ]
    q̈_j(t)   = Σ_l ω_f l [ −a_jl sin(ω_f l t) + b_jl cos(ω_f l t) ]

periodic with period T_f (so the data can be averaged over periods and start/stop transients avoided).

The condition number is cond(Y_base) = σ_max/σ_min of the base regressor stacked at ``samples`` equally spaced
points of one period, columns as they are (SI units; Gautier & Khalil 1992, Swevers 1997, FloBaRoID's
``cond(YBase)``), the same definition for the optimised and the random trajectory.

Random trajectory (the comparison): coefficients a, b standard normal (seeded), q0 the centre of the range, scaled
by 1/s with s = max( max|q − q0|/Δq, max|q̇|/q̇_max, max|q̈|/q̈_max ) on a 400-point grid, so that it touches at
least one bound there (between grid points it may exceed it by the sampling error: 1 − cos(π/20) = 1.2 % for a 2 Hz
harmonic over 10 s).

Optimised trajectory: q, q̇, q̈ are linear in x = (a, b, q0), so the bounds |q − c| ≤ Δq, |q̇| ≤ q̇_max,
|q̈| ≤ q̈_max at ``samples``/2 grid points are linear inequalities A x ≤ u.  scipy's SLSQP minimises, under them,
the smooth upper bound of log cond

    f(x) = (1/p) [ log Σ_k σ_k^p + log Σ_k σ_k^(−p) ],   log cond ≤ f ≤ log cond + 2 log(r)/p   (p = 10)

(σ_max and σ_min of the optimum are multiple, where log cond itself is not differentiable), with its gradient by the
chain rule (:func:`optimise_excitation`), from the seeded random trajectory and ``starts − 1`` further random ones;
the best by cond wins.  Its result is then checked on a 20000-point grid, with a bound on what lies between its
points, and shrunk about q0 (never stretched) if it overshoots a bound between the optimiser's grid points.  It need
not touch a bound: with 5 s periods cond(Y_base) has its minimum inside the bounds (the gravity and viscous columns
grow with the amplitude, the Coulomb column sign q̇ does not); the default family (20 harmonics over 10 s) reaches
them, its optimum spreading the velocities over their magnitudes (E|q̇|/rms q̇ ≈ 0.4, a sinusoid's 0.9), which
separates the viscous from the Coulomb column.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from crossdyn.identification.parameters import BaseParameters
from crossdyn.models.spec import ArmSpec

DEFAULT_HALF_RANGE = 1.5
"""rad; position half-range about the centre when the spec has no limits."""
EQUILIBRATE = False
"""True: cond of Y_base with unit-norm columns. Default False, cond of Y_base as it is (Gautier & Khalil 1992,
FloBaRoID): both are printed by benchmarks/excitation.py; with unit-norm columns the optimised trajectory (optimised
for the plain number) is 1.6-2.9x below the random one on planar2r, 2.1-3.3x on planar3r."""
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
        harmonic = np.arange(1, self.harmonics + 1)
        wl = wf * harmonic                                      # (N,)
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

    def fit(self, bounds: Bounds, grid: int = 20000) -> "FourierTrajectory":
        """The same shape shrunk about q0 by the smallest factor k ≤ 1 that meets every bound everywhere, not only on
        the ``grid``: each peak is read off the grid and raised by ε·max|p|, ε = (ω_N Δt)²/8, the most a
        trigonometric polynomial p of top angular frequency ω_N can exceed its grid maximum between points Δt
        apart (Bernstein: |p''| ≤ ω_N² max|p|, and p' = 0 at the true peak); then per joint
        q0 + k·peak(q − q0) ≤ c + Δq, q0 − k·peak(q0 − q) ≥ c − Δq, k·peak|q̇| ≤ q̇_max, k·peak|q̈| ≤ q̈_max."""
        t = np.linspace(0, self.period, grid, endpoint=False)
        q, qd, qdd = self.evaluate(t)
        eps = (2 * np.pi * self.harmonics / self.period * self.period / grid) ** 2 / 8
        d = q - self.q0
        up, lo = bounds.center + bounds.half_range - self.q0, self.q0 - (bounds.center - bounds.half_range)
        if np.any(up < 0) or np.any(lo < 0):
            raise ValueError("q0 outside the position bounds")
        dmax = np.abs(d).max(0)
        with np.errstate(divide="ignore"):
            k = min(1.0, np.min(np.where(d.max(0) > 0, up / (d.max(0) + eps * dmax), np.inf)),
                    np.min(np.where(d.min(0) < 0, lo / (-d.min(0) + eps * dmax), np.inf)),
                    np.min(bounds.qd_max / (np.abs(qd).max(0) * (1 + eps))),
                    np.min(bounds.qdd_max / (np.abs(qdd).max(0) * (1 + eps))))
        return self if k >= 1.0 else FourierTrajectory(self.q0, self.a * k, self.b * k, self.period)

    def params(self) -> dict:
        return {"kind": "fourier", "period_s": self.period, "harmonics": self.harmonics,
                "q0": self.q0.tolist(), "a": self.a.tolist(), "b": self.b.tolist()}


HARMONICS = 20
"""Default number of harmonics of the optimised excitation (and of its random comparison), of 1/PERIOD Hz."""
PERIOD = 10.0
"""s; default period of the excitation."""
STARTS = 2
"""Default number of SLSQP starts (the seeded random trajectory and one more)."""
SMOOTHING = 10.0
"""p of the smooth upper bound of log cond (see the module docstring)."""


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
    starts: int = 1
    seconds: float = 0.0

    @property
    def ratio(self) -> float:
        return self.cond_random / self.cond

    def as_dict(self) -> dict:
        return {"trajectory": self.trajectory.params(), "condition_number": self.cond,
                "condition_number_random": self.cond_random, "ratio": self.ratio,
                "bounds": self.bounds.as_dict(), "optimiser_iterations": self.iterations,
                "optimiser_starts": self.starts, "optimiser_seconds": self.seconds,
                "optimiser": "scipy.optimize.minimize SLSQP on a smooth upper bound of log cond(Y_base), "
                             "bounds as linear constraints"}


def _smooth_log_cond(s: np.ndarray, p: float) -> float:
    """(1/p)[log Σ σ^p + log Σ σ^(−p)], computed stably (σ scaled by its largest first)."""
    if s[-1] <= 0:
        return 1e3
    x = s / s[0]
    return float((np.log(np.sum(x ** p)) + np.log(np.sum(x ** -p))) / p)


def bound_constraints(bounds: Bounds, harmonics: int, period: float, samples: int):
    """(A, u) with A x ≤ u the position, velocity and acceleration bounds at ``samples`` points of one period,
    x = (a.ravel(), b.ravel(), q0) as in :func:`optimise_excitation`."""
    n, H = len(bounds.center), harmonics
    t = np.linspace(0, period, samples, endpoint=False)
    wl = 2 * np.pi / period * np.arange(1, H + 1)
    S, C = np.sin(np.outer(t, wl)), np.cos(np.outer(t, wl))
    maps = ((np.hstack([S / wl, -C / wl]), bounds.half_range, True),   # q − q0
            (np.hstack([C, S]), bounds.qd_max, False),                   # q̇
            (np.hstack([-S * wl, C * wl]), bounds.qdd_max, False))       # q̈
    rows, upper = [], []
    for j in range(n):
        for M, lim, position in maps:
            for sign in (1.0, -1.0):
                A = np.zeros((samples, 2 * n * H + n))
                A[:, j * H:(j + 1) * H] = sign * M[:, :H]
                A[:, n * H + j * H:n * H + (j + 1) * H] = sign * M[:, H:]
                u = np.full(samples, lim[j])
                if position:  # ±(q0 + d) ≤ Δq ± c
                    A[:, 2 * n * H + j] = sign
                    u = u + sign * bounds.center[j]
                rows.append(A)
                upper.append(u)
    return np.vstack(rows), np.concatenate(upper)


@dataclass(frozen=True)
class ExcitationOptions:
    """How :func:`optimise_excitation` searches (every field a keyword of it too).

    ``samples``: regressor grid points per period (None: 20 per second); the constraints hold at every second
    one (SLSQP's time grows with their number), the result everywhere (:meth:`FourierTrajectory.fit`).
    ``starts``: SLSQP starts (start 0 the seeded random trajectory, start k > 0 that of seed ``seed + 7919 k``);
    ``smoothing``: p of the smooth upper bound of log cond.
    """

    harmonics: int = HARMONICS
    period: float = PERIOD
    samples: int | None = None
    seed: int = 0
    maxiter: int = 100
    starts: int = STARTS
    smoothing: float = SMOOTHING

    @property
    def grid(self) -> int:
        """Regressor grid points per period."""
        return int(round(20 * self.period)) if self.samples is None else int(self.samples)


class _LogCondObjective:
    """f(x), the smooth upper bound of log cond(Y_base) (module docstring), and ∂f/∂x by the chain rule: Y_base's
    rows at time t depend only on the state there, so 6n + 1 batched regressor evaluations (central differences
    in each of q_j, q̇_j, q̈_j at every sample at once) give ∂Y/∂state; ∂f/∂Y = U diag(∂f/∂σ) Vᵀ; the state is
    linear in x = (a.ravel(), b.ravel(), q0).  The last evaluation is kept (SLSQP asks for f and ∂f at one x)."""

    STEP = 1e-5
    """Central-difference step in each state component (rad, rad/s, rad/s²)."""

    def __init__(self, spec: ArmSpec, base: BaseParameters, opt: ExcitationOptions):
        n, H, period = spec.n, opt.harmonics, opt.period
        self.n, self.H, self.base, self.p, self.smoothing = n, H, base, spec.params(), opt.smoothing
        t = np.linspace(0, period, opt.grid, endpoint=False)
        wl = 2 * np.pi / period * np.arange(1, H + 1)
        Sn, Cs = np.sin(np.outer(t, wl)), np.cos(np.outer(t, wl))
        # q = q0 + Pa a − Pb b,  q̇ = Va a + Vb b,  q̈ = Aa a + Ab b per joint (rows: time, columns: harmonic)
        self.Pa, self.Pb, self.Va, self.Vb, self.Aa, self.Ab = Sn / wl, Cs / wl, Cs, Sn, -Sn * wl, Cs * wl
        self.coulomb = [k for k, col in enumerate(base.columns) if base.full.kinds[col] == "fc"]
        self.memo: dict[bytes, tuple[float, np.ndarray]] = {}

    def value(self, x) -> float:
        return self(x)[0]

    def gradient(self, x) -> np.ndarray:
        return self(x)[1]

    def __call__(self, x) -> tuple[float, np.ndarray]:
        key = x.tobytes()
        if key not in self.memo:
            self.memo.clear()
            self.memo[key] = self._evaluate(x)
        return self.memo[key]

    def _evaluate(self, x) -> tuple[float, np.ndarray]:
        n, H, base, h, p = self.n, self.H, self.base, self.STEP, self.smoothing
        a, b, q0 = x[:n * H].reshape(n, H), x[n * H:2 * n * H].reshape(n, H), x[2 * n * H:]
        state = np.stack([q0 + self.Pa @ a.T - self.Pb @ b.T, self.Va @ a.T + self.Vb @ b.T,
                          self.Aa @ a.T + self.Ab @ b.T])                 # (3, S, n)
        X = np.repeat(state[None], 6 * n + 1, axis=0)
        for m in range(3 * n):
            X[1 + 2 * m, m // n, :, m % n] += h
            X[2 + 2 * m, m // n, :, m % n] -= h
        Y = base.evaluate(self.p, X[:, 0], X[:, 1], X[:, 2])           # (6n + 1, S, n, r)
        dY = (Y[1::2] - Y[2::2]) / (2 * h)                              # (3n, S, n, r)
        dY[..., self.coulomb] = 0.0   # sign q̇: zero derivative wherever it is defined (a step would straddle a zero)
        U, sv, Vt = np.linalg.svd(Y[0].reshape(-1, base.r), full_matrices=False)
        if sv[-1] <= 0:
            return 1e3, np.zeros_like(x)
        z = sv / sv[0]
        sp, sm = np.sum(z ** p), np.sum(z ** -p)
        f = float((np.log(sp) + np.log(sm)) / p)
        dfds = (z ** (p - 1) / sp - z ** (-p - 1) / sm) / sv[0]
        G = ((U * dfds) @ Vt).reshape(Y.shape[1:])                      # ∂f/∂Y (S, n, r)
        g = np.einsum("msnr,snr->ms", dY, G).reshape(3, n, -1)           # ∂f/∂(q, q̇, q̈)_j(t): (3, n, S)
        ga = g[0] @ self.Pa + g[1] @ self.Va + g[2] @ self.Aa            # (n, H)
        gb = -g[0] @ self.Pb + g[1] @ self.Vb + g[2] @ self.Ab
        return f, np.concatenate([ga.ravel(), gb.ravel(), g[0].sum(axis=1)])


def optimise_excitation(spec: ArmSpec, base: BaseParameters, bounds: Bounds | None = None,
                        options: ExcitationOptions | None = None, **overrides) -> Excitation:
    """Fourier coefficients and offsets minimising cond(Y_base) under ``bounds`` (see the module docstring).

    ``options`` (:class:`ExcitationOptions`) or its fields as keywords (``harmonics``, ``period``, ``samples``,
    ``seed``, ``maxiter``, ``starts``, ``smoothing``).  Start 0 is the seeded random trajectory (the one reported
    beside the result); start k > 0 the random trajectory of seed ``seed + 7919 k`` (7919: a prime, so that the
    starts of neighbouring seeds do not coincide).  The best start by cond(Y_base) wins.
    """
    import time

    import scipy.optimize  # type: ignore[import-untyped]

    if options is not None and not isinstance(options, ExcitationOptions):
        raise TypeError(f"optimise_excitation: options must be an ExcitationOptions, got {options!r}")
    opt = replace(options or ExcitationOptions(), **overrides)
    t0 = time.perf_counter()
    bounds = default_bounds(spec) if bounds is None else bounds
    n, H, period, samples = spec.n, opt.harmonics, opt.period, opt.grid
    rnd = random_fourier(bounds, H, period, opt.seed)
    A, u = bound_constraints(bounds, H, period, max(1, samples // 2))
    objective = _LogCondObjective(spec, base, opt)
    cons = [{"type": "ineq", "fun": lambda x: u - A @ x, "jac": lambda x: -A}]
    best, best_cond, nit = rnd, np.inf, 0
    for k in range(max(1, int(opt.starts))):
        r0 = rnd if k == 0 else random_fourier(bounds, H, period, opt.seed + 7919 * k)
        x0 = np.concatenate([r0.a.ravel(), r0.b.ravel(), r0.q0])
        res = scipy.optimize.minimize(objective.value, x0, jac=objective.gradient, method="SLSQP", constraints=cons,
                                      options={"maxiter": opt.maxiter, "ftol": 1e-6})
        nit += int(res.nit)
        x = res.x
        traj = FourierTrajectory(x[2 * n * H:], x[:n * H].reshape(n, H), x[n * H:2 * n * H].reshape(n, H), period)
        if np.any(np.abs(traj.q0 - bounds.center) > bounds.half_range):  # offsets outside the range: keep the start
            traj = r0
        traj = traj.fit(bounds)  # SLSQP's small constraint violations and overshoots between grid points
        c = condition_number(spec, base, traj, 4 * samples)
        if c < best_cond:
            best, best_cond = traj, c
    return Excitation(best, rnd, best_cond, condition_number(spec, base, rnd, 4 * samples), bounds, nit,
                      max(1, int(opt.starts)), time.perf_counter() - t0)
