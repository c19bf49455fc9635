"""Rollout sensitivities: how the joint angles at time t depend on what came before — the torque profile and a
link's mass — by crossdyn's reference and by an engine's own derivatives chained through time (issue 41).

Over K steps of one integrator (x = (q, q̇), x_{k+1} = Φ(x_k, τ_k; m), τ held over each step) two directions are
followed from x_0:

* a **torque offset** c on every joint at every step, τ_k = τ̄_k + c·1 (N m; N on a prismatic joint):
  s_τ(t_k) = ∂q(t_k)/∂c, (n,) per step;
* the **mass of one link** b (by default the last: the payload a user identifies), m_b → m_b + δ with its centre
  of mass and its rotational inertia about it unchanged: s_m(t_k) = ∂q(t_k)/∂m_b (rad/kg, m/kg).

The inverse dynamics are affine in m_b (τ = Σ_b Y_b(q, q̇, q̈) π_b, the inertial parameters π_b = (m, m c,
I_c + m (‖c‖² 1 − c cᵀ)) affine in m), so

    ∂ID/∂m_b (q, q̇, q̈) = y_b(q, q̇, q̈) = RNEA of the point mass 1 at b's centre of mass alone (gravity on),
    ∂q̈/∂m_b = −M⁻¹ y_b   at q̈ = FD(q, q̇, τ).

**Tangent-linear integration** (:func:`tangent_rollout`): the step function of :mod:`crossdyn.steps` is run on
arrays whose row 0 is the state and whose rows 1… are its tangents (δq, δq̇) along each direction, with a forward
dynamics whose tangent rows are

    δq̈ = a_q δq + a_q̇ δq̇ + a_τ (δτ − y_b δm)          (a_q = ∂q̈/∂q, a_q̇ = ∂q̈/∂q̇, a_τ = ∂q̈/∂τ = M⁻¹);

the steps only add and scale rows, so the tangent rows follow the step's recursion stage by stage: the exact
directional derivative of the discrete rollout, to the round-off of the blocks.  An engine's sensitivity is this
recursion on its own blocks along its own trajectory (:func:`pinocchio`); MuJoCo's is the product of its
``mjd_transitionFD`` Jacobians, δx_{k+1} = A_k δx_k + B_k δτ (:func:`mujoco`, torque direction only: MuJoCo has no
derivative with respect to a mass).

**Reference** (:func:`reference`): the complex step through crossdyn's replica of the scheme, one batched rollout of
two complex rows (row 0: τ + i h 1; row 1: the mass direction, τ − i h y_b at every stage), s = Im q / h — exact to
round-off with no subtraction (:mod:`crossdyn.derivatives.reference`).

The sensitivities grow where the motion is unstable (a swinging chain separates nearby trajectories
exponentially): there any engine's sensitivity departs from the reference, because the two follow their own
trajectories, which separate too.  :func:`agreement` reports how long they agree; nothing here is judged.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable

import numpy as np

from crossdyn.derivatives.reference import H, damping, forward
from crossdyn.derivatives.transition import STEP_FUNCTIONS
from crossdyn.robots.model import Body, Inertial, RobotModel

HORIZON_S = 0.5
"""The rollout's horizon (s) in ``compare --derivatives``, at most :data:`MAX_STEPS` steps of the run's dt."""
MAX_STEPS = 500
"""At most this many steps are followed (the reference costs one complex forward dynamics per stage)."""
TRUSTED = 1e-3
"""An engine's sensitivity "agrees" while its relative difference from the reference stays within this: three
correct digits, what a gradient-based optimiser or an identification needs of a gradient (a finite-difference
engine starts near 1e-6: its step's truncation and round-off)."""

Blocks = Callable[[np.ndarray, np.ndarray, np.ndarray], tuple[np.ndarray, ...]]
"""(q, q̇, τ) (n,) → (q̈, a_q, a_q̇, a_τ, y_b): the forward dynamics, its blocks and ∂ID/∂m_b at q̈."""


@dataclass(frozen=True, eq=False)
class Sensitivity:
    """q(t_k) (K+1, n) of a rollout and its sensitivities along the torque offset and the mass of body ``body``
    ((K+1, n) each; None where the source has no such derivative)."""

    source: str
    method: str
    dt: float
    body: str
    q: np.ndarray
    dq_dtau: np.ndarray
    dq_dmass: np.ndarray | None

    @property
    def t(self) -> np.ndarray:
        return self.dt * np.arange(len(self.q))


def point_mass(model: RobotModel, body: int) -> RobotModel:
    """``model`` with every body massless except a point mass of 1 kg at body ``body``'s centre of mass (no
    armature, no damping): its RNEA is ∂ID/∂m_b (module docstring)."""
    bodies = tuple(Body(b.name, Inertial(1.0 if k == body else 0.0, b.inertial.com, np.zeros((3, 3))), b.merged)
                   for k, b in enumerate(model.bodies))
    joints = tuple(replace(j, armature=0.0, damping=0.0) for j in model.joints)
    return replace(model, bodies=bodies, joints=joints)


def mass_torque(model: RobotModel, body: int) -> Callable[..., np.ndarray]:
    """y_b(Q, Q̇, Q̈) = ∂ID/∂m_b, batched (N, n), real inputs."""
    from crossdyn.spatial import fast

    unit = point_mass(model, body)
    return lambda Q, QD, QDD: fast.rnea(unit, Q, QD, QDD, armature=False)


def _step(method: str):
    if method not in STEP_FUNCTIONS:
        raise ValueError(f"method: one of {', '.join(STEP_FUNCTIONS)}, got {method!r}")
    return STEP_FUNCTIONS[method]


def _rollout(step, fd, Q0, QD0, tau: np.ndarray, dt: float) -> np.ndarray:
    """q of every step (K+1, rows, n) of ``step`` from rows (Q0, QD0) under the rows' torque tau(k) (rows, n)."""
    q, qd = Q0, QD0
    out = [q]
    for k in range(len(tau)):
        q, qd = step(fd, q, qd, tau[k], dt)
        out.append(q)
    return np.array(out)


def reference(model: RobotModel, q0, qd0, tau, dt: float, method: str, body: int = -1) -> Sensitivity:
    """The complex-step sensitivities of crossdyn's replica of ``method`` (module docstring): ``tau`` (K, n) the
    torque profile τ̄_k, ``body`` the link whose mass is followed (index into ``model.bodies``)."""
    from crossdyn.spatial import fast

    step, fd = _step(method), forward(model)
    body = range(model.n)[body]
    y, b = mass_torque(model, body), damping(model)

    def fd_c(Qc, Vc, Tc):  # the real row by the compiled kernels, the complex rows by the NumPy path
        q, v = Qc.real[:1], Vc.real[:1]
        real = fast.aba(model, q, v, Tc.real[:1] - b * v)
        shift = np.zeros(Tc.shape, dtype=complex)
        shift[1] = 1j * H * y(q, v, real)[0]
        return fd(Qc, Vc, Tc - shift)

    tau = np.asarray(tau, dtype=float)
    T = np.repeat(tau[:, None, :].astype(complex), 2, axis=1)
    T[:, 0] += 1j * H
    q0c, qd0c = (np.repeat(np.asarray(a, dtype=complex)[None], 2, axis=0) for a in (q0, qd0))
    Q = _rollout(step, fd_c, q0c, qd0c, T, dt)
    return Sensitivity(f"complex step through crossdyn.steps ({method}) of crossdyn.spatial", method, float(dt),
                       model.bodies[body].name, Q[:, 0].real, Q[:, 0].imag / H, Q[:, 1].imag / H)


def tangent_rollout(blocks: Blocks, q0, qd0, tau, dt: float, method: str, mass: bool = True) -> Sensitivity:
    """The tangent-linear sensitivities (module docstring) of the rollout whose forward dynamics and blocks are
    ``blocks`` (a :data:`Blocks`), followed along its own trajectory (``source`` and ``body`` left for the caller
    to name: ``dataclasses.replace``)."""
    step = _step(method)
    tau = np.asarray(tau, dtype=float)
    n = tau.shape[1]
    dm = np.array([0.0, 0.0, 1.0 if mass else 0.0])

    def fd_t(Qa, Va, Ta):
        a, a_q, a_v, a_t, y = blocks(Qa[0], Va[0], Ta[0])
        rows = [a] + [a_q @ Qa[j] + a_v @ Va[j] + a_t @ (Ta[j] - y * dm[j]) for j in (1, 2)]
        return np.array(rows)

    T = np.zeros((len(tau), 3, n))
    T[:, 0], T[:, 1] = tau, 1.0
    start = np.zeros((3, n))
    q0a, qd0a = start.copy(), start.copy()
    q0a[0], qd0a[0] = q0, qd0
    Q = _rollout(step, fd_t, q0a, qd0a, T, dt)
    return Sensitivity("tangent-linear", method, float(dt), "", Q[:, 0], Q[:, 1], Q[:, 2] if mass else None)


def reference_blocks(model: RobotModel, body: int = -1) -> Blocks:
    """crossdyn's blocks by the complex step (:func:`crossdyn.derivatives.reference.complex_step`) with y_b: the
    reference's own tangent-linear path (a check of :func:`reference` by a second route)."""
    from crossdyn.derivatives.reference import complex_step

    y = mass_torque(model, range(model.n)[body])

    def blocks(q, qd, tau):
        d = complex_step(model, q, qd, tau)
        return d.qdd[0], d.dqdd_dq[0], d.dqdd_dqd[0], d.dqdd_dtau[0], y(d.q, d.qd, d.qdd)[0]
    return blocks


def agreement(engine: Sensitivity, ref: Sensitivity, trusted: float = TRUSTED) -> dict:
    """How the engine's sensitivities compare with the reference's over time: per direction the relative
    difference ‖s − s_ref‖ / ‖s_ref‖ at each step, its largest value, and the time until which it stays within
    ``trusted`` (the whole horizon when it never leaves it); the reference's ‖s‖ at the end (growth)."""
    out: dict[str, Any] = {"source": engine.source, "reference": ref.source, "method": engine.method,
                           "dt": engine.dt, "steps": len(ref.q) - 1, "horizon_s": float(ref.t[-1]),
                           "trusted_relative": trusted}
    for key, mine, theirs in (("torque_offset", engine.dq_dtau, ref.dq_dtau),
                              (f"mass of {ref.body}", engine.dq_dmass, ref.dq_dmass)):
        if mine is None or theirs is None:
            continue
        scale = np.linalg.norm(theirs, axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            rel = np.linalg.norm(mine - theirs, axis=1) / np.where(scale > 0, scale, np.inf)
        rel[0] = 0.0  # both 0 at t = 0
        bad = np.flatnonzero(~(rel <= trusted))
        out[key] = {"relative": rel, "reference_norm": scale,
                    "max_relative": float(np.max(rel)) if np.all(np.isfinite(rel)) else None,
                    "agrees_until_s": float(ref.t[-1] if bad.size == 0 else ref.t[bad[0] - 1]),
                    "final_norm": float(scale[-1])}
    return out


def _dparams_dmass(com: np.ndarray) -> np.ndarray:
    """∂π/∂m of Pinocchio's dynamic parameters π = (m, m c, I_o: xx, xy, yy, xz, yz, zz) with c and I_c fixed:
    (1, c, the entries of ‖c‖² 1 − c cᵀ), I_o = I_c + m (‖c‖² 1 − c cᵀ)."""
    S = float(com @ com) * np.eye(3) - np.outer(com, com)
    return np.concatenate(([1.0], com, [S[0, 0], S[0, 1], S[1, 1], S[0, 2], S[1, 2], S[2, 2]]))


def pinocchio_blocks(model: RobotModel, engine: Any = None, body: int = -1) -> Blocks:
    """Pinocchio's blocks (analytical, :func:`crossdyn.derivatives.engines.pinocchio`: damping included as its
    stepping applies it) and its y_b from ``computeJointTorqueRegressor`` times ∂π/∂m_b (:func:`_dparams_dmass`),
    in the model's joint order; ``engine`` a :class:`~crossdyn.engines.pinocchio.file.PinocchioFileEngine`."""
    from crossdyn.derivatives.engines import pinocchio
    from crossdyn.engines.pinocchio.file import PinocchioFileEngine

    eng = engine if engine is not None else PinocchioFileEngine(model)
    pin, pm, data = eng.pin, eng.pmodel, eng.data
    jid = pm.getJointId(model.joints[range(model.n)[body]].name)
    cols = slice(10 * (jid - 1), 10 * jid)
    dpi = _dparams_dmass(np.array(pm.inertias[jid].lever))
    idx = eng._vidx[eng._idx]

    def blocks(q, qd, tau):
        d = pinocchio(model, q, qd, tau, engine=eng)
        P, V, A = eng._to_pin_q(eng.to_engine(d.q)), eng._v(eng.to_engine(d.qd)), eng._v(eng.to_engine(d.qdd))
        Y = pin.computeJointTorqueRegressor(pm, data, P[0], V[0], A[0])
        return d.qdd[0], d.dqdd_dq[0], d.dqdd_dqd[0], d.dqdd_dtau[0], (Y[:, cols] @ dpi)[idx]
    return blocks


def pinocchio(model: RobotModel, q0, qd0, tau, dt: float, body: int = -1) -> Sensitivity:
    """Pinocchio's sensitivities: its analytical blocks chained through its stepping (crossdyn's RK4 on its ABA,
    the ``pinocchio`` engine) along its own trajectory (:func:`tangent_rollout`)."""
    import pinocchio as pin  # type: ignore[import-untyped,import-not-found,unused-ignore]

    source = (f"pinocchio {pin.__version__}: computeABADerivatives and computeJointTorqueRegressor, tangent-linear "
              "through its RK4")
    return replace(tangent_rollout(pinocchio_blocks(model, body=body), q0, qd0, tau, dt, "rk4"), source=source,
                   body=model.bodies[range(model.n)[body]].name)


def _own_rollout(eng: Any, q0, qd0, tau: np.ndarray) -> np.ndarray:
    """The states (K+1, 2n) of the engine's own rollout from (q0, q̇0) under ``tau`` (K, n)."""
    eng.reset(np.asarray(q0, dtype=float), np.asarray(qd0, dtype=float))
    states = [np.concatenate(eng.state())]
    for k in range(len(tau)):
        eng.step(tau[k])
        states.append(np.concatenate(eng.state()))
    return np.array(states)


def _chained(tr, X: np.ndarray, dt: float, what: str) -> Sensitivity:
    """The torque-offset sensitivity of the rollout X (K+1, 2n) by the product of its steps' Jacobians ``tr``
    (a :class:`~crossdyn.derivatives.blocks.Transition` at X[:-1]): δx_{k+1} = A_k δx_k + B_k 1."""
    n = X.shape[1] // 2
    dx, out, ones = np.zeros(2 * n), [np.zeros(n)], np.ones(n)
    for k in range(len(X) - 1):
        dx = tr.A[k] @ dx + tr.B[k] @ ones
        out.append(dx[:n].copy())
    return Sensitivity(f"{tr.source}, {what}", tr.method, float(dt), "", X[:, :n], np.array(out), None)


def mujoco(model: RobotModel, q0, qd0, tau, dt: float, eps: float = 1e-6) -> Sensitivity:
    """MuJoCo's torque-offset sensitivity: its own Euler rollout, and the product of its ``mjd_transitionFD``
    Jacobians (centred, ``eps``) along it, δx_{k+1} = A_k δx_k + B_k 1 (no mass direction: MuJoCo has no
    derivative with respect to a body's mass)."""
    from crossdyn.derivatives.engines import FiniteDifference, mujoco_engine, mujoco_transition

    eng = mujoco_engine(model, dt)
    tau = np.asarray(tau, dtype=float)
    X = _own_rollout(eng, q0, qd0, tau)
    n = tau.shape[1]
    tr = mujoco_transition(model, X[:-1, :n], X[:-1, n:], tau, dt, FiniteDifference(eps, True), engine=eng)
    return _chained(tr, X, dt, "chained along its own rollout")


def newton(model: RobotModel, q0, qd0, tau, dt: float) -> Sensitivity:
    """Newton's torque-offset sensitivity: its own rollout (``SolverFeatherstone``, float32) and the product of its
    ``wp.Tape`` step Jacobians along it (:func:`crossdyn.derivatives.warp.newton_transition`, every step's state
    one world of one taped step); no mass direction (not taped here)."""
    from crossdyn.derivatives.warp import newton_engine, newton_transition

    eng = newton_engine(model, dt)
    tau = np.asarray(tau, dtype=float)
    X = _own_rollout(eng, q0, qd0, tau)
    n = tau.shape[1]
    tr = newton_transition(model, X[:-1, :n], X[:-1, n:], tau, dt)
    return _chained(tr, X, dt, "chained along its own rollout")


def summary(agreement_: dict, points: int = 51) -> dict:
    """:func:`agreement` made JSON-safe for ``summary.json``: its curves at ``points`` times spread over the horizon
    (``t_s``; every step when there are fewer), the scalars as they are."""
    steps = agreement_["steps"]
    pick = np.unique(np.linspace(0, steps, min(points, steps + 1)).round().astype(int))
    out = {k: v for k, v in agreement_.items() if not isinstance(v, dict)}
    out["t_s"] = [float(agreement_["dt"] * k) for k in pick]
    for key, v in agreement_.items():
        if isinstance(v, dict):
            out[key] = {**{k: x for k, x in v.items() if not isinstance(x, np.ndarray)},
                        "relative": [float(x) if np.isfinite(x) else None for x in v["relative"][pick]],
                        "reference_norm": [float(x) for x in v["reference_norm"][pick]]}
    return out


SOURCES: dict[str, Callable[..., Sensitivity]] = {"pinocchio": pinocchio, "mujoco": mujoco, "newton": newton}
"""Derivative source (:data:`crossdyn.comparison.groups.derivatives.OFFERED`'s values) → its rollout sensitivities."""


def free_fall(model: RobotModel, source: str, q0, dt: float) -> dict | None:
    """The rollout entry of ``compare --derivatives`` for derivative source ``source`` (None: it has none): the
    free motion from (q0, q̇ = 0) under τ̄ = 0 for :data:`HORIZON_S` (at most :data:`MAX_STEPS` steps of dt), the
    engine's sensitivities against the reference of its own scheme (:func:`summary` of :func:`agreement`)."""
    fn = SOURCES.get(source)
    if fn is None:
        return None
    steps = max(1, min(MAX_STEPS, int(round(HORIZON_S / dt))))
    tau, qd0 = np.zeros((steps, model.n)), np.zeros(model.n)
    q0 = np.asarray(q0, dtype=float)
    mine = fn(model, q0, qd0, tau, dt)
    ref = reference(model, q0, qd0, tau, dt, mine.method)
    return {"scenario": f"free motion from the first static state at rest, tau = 0, {steps} steps of {dt:g} s",
            **summary(agreement(mine, ref))}
