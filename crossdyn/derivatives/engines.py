"""The engines' own derivatives on the models crossdyn builds for them (the file adapters of
:mod:`crossdyn.engines`, their neutralised defaults applied), in the model's joint order.

* **Pinocchio** (:func:`pinocchio`): analytical (Carpentier & Mansard, RSS 2018).  ``computeABADerivatives(q, v,
  τ − b ⊙ v)`` gives ``ddq_dq``, ``ddq_dv``, ``Minv``; ``computeRNEADerivatives(q, v, q̈)`` gives ``dtau_dq``,
  ``dtau_dv``, ``M``.  Pinocchio's algorithms ignore joint damping (the adapter's docstring), so the viscous term
  is added here exactly as crossdyn's stepping adds it: ∂q̈/∂q̇ = ddq_dv − M⁻¹ diag(b), ∂τ/∂q̇ = dtau_dv + diag(b).
  ``Minv`` and ``M`` are read from their upper triangles (Pinocchio fills those) and mirrored.
* **MuJoCo** (:func:`mujoco_transition`, :func:`mujoco_inverse`): finite differences.  ``mjd_transitionFD(m, d, ε,
  centred)`` differentiates one ``mj_step`` of the adapter's stepping model (passive damping on, eulerdamp and
  autoreset disabled, contact and constraints off); its state is x = (dq, q̇, act) with dq the tangent of qpos
  (= q for hinge and slide joints) and na = 0 here.  B needs actuators: the stepping model is the adapter's
  ``native_effort`` one (a plain motor per joint, gear 1, so ctrl = τ) with the force limits removed
  (``actuator_forcelimited = 0``: the derivative of τ itself, not of the clamp).  MuJoCo's ``Euler`` is
  semi-implicit (q̇⁺ = q̇ + h q̈, q⁺ = q + h q̇⁺), crossdyn's ``semi-implicit-euler`` (``mjd_transitionFD``
  refuses ``RK4``).  ``mjd_inverseFD(m, d, ε, 0, …)`` differentiates ``mj_inverse``
  (qfrc_inverse = M q̈ + bias − passive: includes +b ⊙ q̇) by forward differences; its outputs are transposed
  (DfDq[j, i] = ∂f_i/∂q_j) and are transposed back here.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from crossdyn.derivatives.blocks import Derivatives, Transition
from crossdyn.robots.model import RobotModel

MUJOCO_INTEGRATORS = {"Euler": "semi-implicit-euler"}
"""MuJoCo's integrator → the crossdyn step it is (whose exact Jacobian :mod:`crossdyn.derivatives.transition` gives).
``RK4`` is not here: ``mjd_transitionFD`` refuses it (MuJoCo 3.x/4.0: "RK4 integrator is not supported")."""


@dataclass(frozen=True)
class FiniteDifference:
    """A finite-difference scheme: step ``eps`` (in the inputs' units) and centred (f(x+ε) − f(x−ε))/2ε or forward
    (f(x+ε) − f(x))/ε."""

    eps: float = 1e-6
    centred: bool = True

    def __str__(self) -> str:
        return f"{'centred' if self.centred else 'forward'}, eps = {self.eps:g}"


def _states(*arrays) -> tuple[np.ndarray, ...]:
    return tuple(np.atleast_2d(np.asarray(a, dtype=float)) for a in arrays)


def _full(upper: np.ndarray) -> np.ndarray:
    """A symmetric matrix from its upper triangle."""
    return np.triu(upper) + np.triu(upper, 1).T


def pinocchio(model: RobotModel, Q, QD, TAU, QDD=None, engine: Any = None) -> Derivatives:
    """Pinocchio's analytical blocks at the states (module docstring); the inverse-dynamics blocks at ``QDD`` (the
    reference's q̈, so that both sides differentiate at one point) or, when None, at Pinocchio's own q̈ = ABA; ``engine``:
    a :class:`~crossdyn.engines.pinocchio.file.PinocchioFileEngine` of ``model`` (built when None)."""
    from crossdyn.engines.pinocchio.file import PinocchioFileEngine

    eng = engine if engine is not None else PinocchioFileEngine(model)
    pin, m, d = eng.pin, eng.pmodel, eng.data
    Q, QD, TAU = _states(Q, QD, TAU)
    given = None if QDD is None else eng._v(eng.to_engine(_states(QDD)[0]))
    b = np.array([j.damping for j in model.joints], dtype=float)
    P, V, T = eng._to_pin_q(eng.to_engine(Q)), eng._v(eng.to_engine(QD)), eng._v(eng.to_engine(TAU - b * QD))
    idx = eng._vidx[eng._idx]  # Pinocchio's v index of the model's joint k
    sel = np.ix_(idx, idx)
    N, n = Q.shape
    out = {k: np.empty((N, n, n)) for k in ("fq", "fv", "ft", "iq", "iv", "ia")}
    QDD = np.empty((N, n))
    for k in range(N):
        pin.computeABADerivatives(m, d, P[k], V[k], T[k])
        out["fq"][k], out["fv"][k] = d.ddq_dq[sel], d.ddq_dv[sel]
        Minv = _full(np.array(d.Minv))
        out["ft"][k] = Minv[sel]
        a = np.array(d.ddq) if given is None else given[k]
        QDD[k] = a[idx]
        pin.computeRNEADerivatives(m, d, P[k], V[k], a)
        out["iq"][k], out["iv"][k] = d.dtau_dq[sel], d.dtau_dv[sel]
        out["ia"][k] = _full(np.array(d.M))[sel]
    B = np.diag(b)
    return Derivatives(f"pinocchio {pin.__version__} computeABADerivatives/computeRNEADerivatives", Q, QD, TAU, QDD,
                       out["fq"], out["fv"] - out["ft"] @ B, out["ft"], out["iq"], out["iv"] + B, out["ia"])


def mujoco_engine(model: RobotModel, dt: float, integrator: str = "Euler") -> Any:
    """The MuJoCo file adapter of ``model`` whose stepping model has a motor per joint (``native_effort``, gear 1)
    with its force limits removed (module docstring)."""
    from crossdyn.engines.mujoco.file import MuJoCoFileEngine, MuJoCoFileOptions

    if integrator not in MUJOCO_INTEGRATORS:
        raise ValueError(f"integrator: one of {', '.join(MUJOCO_INTEGRATORS)}, got {integrator!r}")
    eng = MuJoCoFileEngine(model, dt, replace(MuJoCoFileOptions(), integrator=integrator, native_effort=True))
    eng.ms.actuator_forcelimited[:] = 0
    return eng


def _set_state(eng: Any, q: np.ndarray, qd: np.ndarray) -> None:
    eng.mj.mj_resetData(eng.ms, eng.ds)
    eng.ds.qpos[eng._qadr] = eng.to_engine(q[None])[0]
    eng.ds.qvel[:] = eng.to_engine(qd[None])[0]


def mujoco_transition(model: RobotModel, Q, QD, TAU, dt: float, scheme: FiniteDifference = FiniteDifference(),
                      engine: Any = None) -> Transition:
    """A, B of one ``mj_step`` (Euler) by ``mjd_transitionFD`` with ``scheme`` (module docstring), rows and columns
    (q, q̇) and τ in the model's joint order; ``method`` is the crossdyn step MuJoCo's integrator is; ``engine``:
    :func:`mujoco_engine` of ``model`` at ``dt`` (built when None)."""
    eng = engine if engine is not None else mujoco_engine(model, dt)
    mj, ms, ds = eng.mj, eng.ms, eng.ds
    Q, QD, TAU = _states(Q, QD, TAU)
    N, n = Q.shape
    act_dof = ms.jnt_dofadr[ms.actuator_trnid[:, 0]]  # motor k drives dof act_dof[k]
    perm = np.concatenate((eng._idx, n + eng._idx))
    A, B = np.empty((N, 2 * n, 2 * n)), np.empty((N, 2 * n, n))
    a, b = np.empty((2 * n, 2 * n)), np.empty((2 * n, ms.nu))
    for k in range(N):
        _set_state(eng, Q[k], QD[k])
        ds.ctrl[:] = eng.to_engine(TAU[k][None])[0][act_dof]
        mj.mjd_transitionFD(ms, ds, scheme.eps, scheme.centred, a, b, None, None)
        b_dof = np.empty((2 * n, n))
        b_dof[:, act_dof] = b
        A[k], B[k] = a[np.ix_(perm, perm)], b_dof[np.ix_(perm, eng._idx)]
    integrator = eng.integrator
    return Transition(f"mujoco {mj.__version__} mjd_transitionFD ({integrator}, {scheme})",
                      MUJOCO_INTEGRATORS[integrator], float(dt), Q, QD, TAU, A, B)


def mujoco_inverse(model: RobotModel, Q, QD, QDD, eps: float, engine: Any = None) -> tuple[np.ndarray, ...]:
    """(∂τ/∂q, ∂τ/∂q̇, ∂τ/∂q̈) (N, n, n) of ``mj_inverse`` on the stepping model (damping on) by ``mjd_inverseFD``
    at step ``eps`` (forward differences), in the model's joint order."""
    eng = engine if engine is not None else mujoco_engine(model, 1e-3)
    mj, ms, ds = eng.mj, eng.ms, eng.ds
    Q, QD, QDD = _states(Q, QD, QDD)
    N, n = Q.shape
    sel = np.ix_(eng._idx, eng._idx)
    out = [np.empty((N, n, n)) for _ in range(3)]
    mats = [np.empty((n, n)) for _ in range(3)]
    for k in range(N):
        _set_state(eng, Q[k], QD[k])
        ds.qacc[:] = eng.to_engine(QDD[k][None])[0]
        mj.mjd_inverseFD(ms, ds, eps, False, *mats, None, None, None, None)
        for o, mat in zip(out, mats):
            o[k] = mat.T[sel]
    return tuple(out)


def file_model(arm: Any, folder: Any, dt: float = 1e-3) -> RobotModel:
    """The :class:`RobotModel` an engine reads for a planar or spatial preset ``arm``: its MJCF (``to_mjcf``, which
    carries gravity and armature) written into ``folder`` and read back with :func:`crossdyn.robots.read_robot`."""
    from pathlib import Path

    from crossdyn.io import write_text_atomic
    from crossdyn.models.mjcf import to_mjcf
    from crossdyn.robots import read_robot

    path = Path(folder) / f"{arm.name}.xml"
    text = arm.to_mjcf(dt) if hasattr(arm, "to_mjcf") else to_mjcf(arm, timestep=dt)
    write_text_atomic(path, text)
    return read_robot(path)


def mujoco_values(model: RobotModel, Q, QD, U, dt: float, engine: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """The values whose derivatives :func:`mujoco_transition` and :func:`mujoco_inverse` take, at the states (N, n):
    the state after one ``mj_step`` under τ = ``U`` (N, 2n) and ``qfrc_inverse`` of ``mj_inverse`` at q̈ = ``U``
    (N, n), on the same stepping model, in the model's joint order (for
    :func:`crossdyn.derivatives.tolerance.noise`)."""
    eng = engine if engine is not None else mujoco_engine(model, dt)
    mj, ms, ds = eng.mj, eng.ms, eng.ds
    Q, QD, U = _states(Q, QD, U)
    steps, forces = np.empty((Q.shape[0], 2 * Q.shape[1])), np.empty(Q.shape)
    for k in range(Q.shape[0]):
        eng.reset(Q[k], QD[k])
        eng.step(U[k])
        steps[k] = np.concatenate(eng.state())
        _set_state(eng, Q[k], QD[k])
        ds.qacc[:] = eng.to_engine(U[k][None])[0]
        mj.mj_inverse(ms, ds)
        forces[k] = eng.to_model(np.array(ds.qfrc_inverse)[None])[0]
    return steps, forces
