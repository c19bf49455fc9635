"""Coulomb joint friction: the event-exact reference of the set-valued stick–slip law (issue 12).

**Set-valued law** (per joint j with Coulomb level f_c,j > 0): the arm obeys M q̈ + C q̇ + G + B q̇ = τ + φ with

    φ_j = −f_c,j sign(q̇_j)                  slipping (q̇_j ≠ 0, or leaving rest in the direction d_j)
    φ_j ∈ [−f_c,j, f_c,j] with q̇_j = q̈_j = 0  sticking

:func:`simulate_stick_slip` integrates it exactly at the switches: adaptive DOP853 in one mode (the sticking set S
and the slip directions fixed), every switch located by Brent's method on the dense output and the integrator
restarted there (:func:`crossdyn.analytic.references.events.integrate_events`) — a slipping joint's q̇_j s_j
falling through 0 (it stops), a sticking joint's needed friction torque λ_j reaching ±f_c,j (it breaks away).  At each switch (and at each hold boundary of the commanded torque)
the consistent mode is found by **enumeration** over the joints at rest (n ≤ 5 in practice: 3^m candidates for
m joints at rest): each is sticking or slipping in direction ±1; a mode is consistent when the stick torques
λ_S, solved from q̈_S = 0, i.e. (M⁻¹)_SS λ_S = −(M⁻¹ r)_S with r = τ − C q̇ − G − B q̇ + φ_slip, satisfy
|λ_j| < f_c,j, and every joint leaving rest accelerates the way it slips (q̈_j d_j ≥ 0).  Candidates with more
sticking joints are tried first; M positive definite makes the consistent mode unique except exactly at a
switch, where the tie goes to slipping (a strict margin of 1e-12 f_c on |λ_j|).

The regularised law the runner applies to every engine (applied mode), φ = −f_c ⊙ tanh(q̇ / v_s), is
:class:`crossdyn.analytic.laws.friction.FrictionLaw`; as v_s → 0 its runs converge to this reference (tested with
:func:`rk4_regularised`).
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Callable, Unpack

import numpy as np

from crossdyn.analytic.dynamics import as_params, forward_dynamics, mass_matrix
from crossdyn.analytic.laws.friction import (  # noqa: F401  (re-exported: the law this reference is the limit of)
    STABILITY_NUMBER, V_S_MIN, FrictionLaw, max_friction_rate, without_friction,
)
from crossdyn.analytic.references.events import HeldTorque, ReferenceKeywords, ReferenceOptions, integrate_events

_MARGIN = 1e-12  # relative: a stick torque within this of ±f_c counts as breaking away (the tie at a switch)


@dataclass
class StickSlipRun:
    """Result of :func:`simulate_stick_slip`: states on the output grid, every switch, the stick intervals."""

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    events: list = field(default_factory=list)
    """(time s, joint 1-based, "stick" | "slip +" | "slip -")"""
    sticking: np.ndarray | None = None
    """bool (len(t), n): joint j sticking at output time t (the mode in force just after t)."""
    steps: int = 0


class _Mode:
    """Sticking set and slip signs: s_j = 0 sticking, ±1 slipping that way."""

    def __init__(self, signs):
        self.s = np.asarray(signs, dtype=int)

    @property
    def stuck(self):
        return np.nonzero(self.s == 0)[0]


def _solve(Minv, r, fc, mode: _Mode):
    """(q̈, λ) of a mode: λ_S from (M⁻¹)_SS λ_S = −(M⁻¹ r)_S, φ = −f_c s on the slipping joints."""
    phi = -fc * mode.s
    S = mode.stuck
    lam = np.zeros(len(fc))
    if len(S):
        a = Minv @ (r + phi)
        lam[S] = np.linalg.solve(Minv[np.ix_(S, S)], -a[S])
        phi = phi.copy()
        phi[S] = lam[S]
    qdd = Minv @ (r + phi)
    qdd[S] = 0.0
    return qdd, lam


def _consistent_mode(Minv, r, fc, qd, rest) -> _Mode:
    """Enumerate stick/slip± for the joints at rest (``rest``: indices); the first consistent mode (docstring)."""
    base = np.where(fc > 0, np.sign(qd), 0).astype(int)  # moving joints slip their way; f_c = 0: free (s = 0 …)
    free = fc <= 0
    rest = [j for j in rest if not free[j]]
    for n_slip in range(len(rest) + 1):
        for slipping in itertools.combinations(rest, n_slip):
            for dirs in itertools.product((1, -1), repeat=n_slip):
                s = base.copy()
                for j in rest:
                    s[j] = 0
                for j, d in zip(slipping, dirs, strict=True):
                    s[j] = d
                mode = _Mode(s)
                mode.s[free] = 0
                qdd, lam = _solve_free(Minv, r, fc, mode, free)
                ok = all(abs(lam[j]) < fc[j] * (1 - _MARGIN) for j in rest if s[j] == 0)
                ok = ok and all(qdd[j] * d >= -1e-12 * (1 + abs(qdd[j])) for j, d in zip(slipping, dirs, strict=True))
                if ok:
                    return mode
    raise FloatingPointError("stick-slip reference: no consistent sticking set (M not positive definite?)")


def _solve_free(Minv, r, fc, mode: _Mode, free):
    """:func:`_solve` where joints without friction (``free``) are neither sticking nor slipping."""
    if not free.any():
        return _solve(Minv, r, fc, mode)
    s = mode.s.astype(float)
    phi = -fc * s
    S = np.array([j for j in range(len(fc)) if s[j] == 0 and not free[j]], dtype=int)
    lam = np.zeros(len(fc))
    if len(S):
        a = Minv @ (r + phi)
        lam[S] = np.linalg.solve(Minv[np.ix_(S, S)], -a[S])
        phi[S] = lam[S]
    qdd = Minv @ (r + phi)
    qdd[S] = 0.0
    return qdd, lam


def simulate_stick_slip(spec, q0, qd0, duration: float, torque: Callable | None = None, hold: float | None = None,
                        **options: Unpack[ReferenceKeywords]) -> StickSlipRun:
    """Integrate M q̈ + C q̇ + G + B q̇ = τ(t) + φ with the set-valued Coulomb law, exact at every switch.

    ``spec``: an ArmSpec whose links' ``friction`` are the f_c (damping B kept). ``torque(t)`` is the commanded
    torque (default 0), held over intervals of ``hold`` s (None: continuous).  Keywords (:class:`ReferenceOptions`):
    states every ``output_dt`` (1e-3 s); ``rtol``, ``atol`` (1e-11); ``max_steps`` (1,000,000).
    """
    opts = ReferenceOptions(**options)
    fc = np.array([link.friction for link in spec.links], dtype=float)
    p = as_params(without_friction(spec))  # forward_dynamics with B q̇ but no Coulomb term
    n = p.n
    free = fc <= 0
    x = np.concatenate([np.asarray(q0, float), np.asarray(qd0, float)])
    tau = HeldTorque(torque, hold, n)

    def parts(t, y):
        q, qd = y[:n], y[n:]
        M = mass_matrix(p, q)
        Minv = np.linalg.inv(M)
        r = M @ forward_dynamics(p, q, qd, tau.at(t))  # τ − C q̇ − G − B q̇
        return Minv, r

    def decide(t, y):
        qd = y[n:]
        rest = [j for j in range(n) if qd[j] == 0.0]
        Minv, r = parts(t, y)
        return _consistent_mode(Minv, r, fc, qd, rest)

    events: list = []
    state = {"mode": decide(0.0, x)}

    def on_hold(t, y):
        if hold is not None and t > 0:
            tau.on_hold(t, y)
            state["mode"] = decide(t, y)

    def rhs(tt, y):
        Minv, r = parts(tt, y)
        qdd, _ = _solve_free(Minv, r, fc, state["mode"], free)
        return np.concatenate([y[n:], qdd])  # sticking joints: q̇_j = 0 and q̈_j = 0, so they stay put

    def g(tt, y):
        m = state["mode"]
        Minv, r = parts(tt, y)
        _, lam = _solve_free(Minv, r, fc, m, free)
        slip = np.where((m.s != 0), y[n:] * m.s, np.inf)  # a slipping joint stops: q̇_j s_j ↓ 0
        stick = np.where((m.s == 0) & ~free, fc - np.abs(lam), np.inf)  # breaks away: |λ_j| ↑ f_c
        return np.concatenate([slip, stick])

    def on_event(t, y, hits):
        m = state["mode"]
        y[n:][(m.s == 0) & ~free] = 0.0  # sticking joints stay exactly at rest
        for _, i, _ in hits:
            if i < n:
                y[n + i] = 0.0  # the joint that stopped
        state["mode"] = mode = decide(t, y)
        for j in range(n):
            if not free[j] and mode.s[j] != m.s[j]:
                events.append((float(t), j + 1, "stick" if mode.s[j] == 0 else
                               ("slip +" if mode.s[j] > 0 else "slip -")))
        return y

    run = integrate_events(rhs, g, x, duration, hold=hold, on_hold=on_hold, on_event=on_event, direction=-1,
                           record=lambda t, y: (state["mode"].s == 0) & ~free, name="stick-slip reference",
                           **opts.event_options())
    return StickSlipRun(run.t, run.y[:, :n].copy(), run.y[:, n:].copy(), events, np.array(run.extra, dtype=bool),
                        run.steps)


def rk4_regularised(spec, law: FrictionLaw, q0, qd0, duration: float, dt: float,
                    torque: Callable | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Fixed-step RK4 of M q̈ + C q̇ + G + B q̇ = τ(t) − f_c tanh(q̇/v_s), the law inside every stage: the
    independent check that :func:`simulate_stick_slip` is what the regularised law converges to as v_s → 0."""
    p = as_params(without_friction(spec))
    n = p.n
    tau_fn = torque if torque is not None else (lambda t: np.zeros(n))

    def f(t, q, qd):
        return forward_dynamics(p, q, qd, np.asarray(tau_fn(t), float) + law.torque(qd))

    q, qd = np.asarray(q0, float).copy(), np.asarray(qd0, float).copy()
    for k in range(int(round(duration / dt))):
        t = k * dt
        a1 = f(t, q, qd)
        v2 = qd + 0.5 * dt * a1
        a2 = f(t + dt / 2, q + 0.5 * dt * qd, v2)
        v3 = qd + 0.5 * dt * a2
        a3 = f(t + dt / 2, q + 0.5 * dt * v2, v3)
        v4 = qd + dt * a3
        a4 = f(t + dt, q + dt * v3, v4)
        q, qd = q + dt / 6 * (qd + 2 * v2 + 2 * v3 + v4), qd + dt / 6 * (a1 + 2 * a2 + 2 * a3 + a4)
    return q, qd
