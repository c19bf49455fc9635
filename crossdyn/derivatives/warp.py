"""Warp engines' own derivatives: one step differentiated by ``wp.Tape`` (reverse mode, float32).

* **Newton** (:func:`newton_transition`): ``SolverFeatherstone.step`` of the Newton file adapter
  (:class:`~crossdyn.engines.newton.file.NewtonFileEngine`, its neutralised defaults applied: the model's gravity,
  the file's inertias, no limit penalty, angular damping 0, the file's damping and armature), the solver crossdyn
  compares (semi-implicit Euler in generalized coordinates: q̇⁺ = q̇ + h q̈(q, q̇, τ), q⁺ = q + h q̇⁺, q̈ by CRBA +
  Cholesky).  Newton documents Featherstone as differentiable: with ``finalize(requires_grad=True)`` and states
  and control created with ``requires_grad=True`` the solver keeps its intermediates per step, and the tape's
  backward pass runs the adjoint of every kernel.  N states are N copies of the robot (``ModelBuilder.replicate``,
  one world each, independent), stepped once inside one tape; each output row r of x⁺ = (q⁺, q̇⁺) is one backward
  pass seeded with 1 at row r of every world, which gives row r of A = ∂x⁺/∂(q, q̇) and B = ∂x⁺/∂τ at every state
  at once: 2n backward passes in all.  The derivative is taken at the float32 state the engine holds,
  x₃₂ = fl₃₂(x) (:func:`float32_states`), which the group's reference is evaluated at too.

MuJoCo Warp is not here: its step is not differentiable by ``wp.Tape`` (:data:`MUJOCO_WARP_NOT_DIFFERENTIABLE`).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from crossdyn.derivatives.blocks import Transition
from crossdyn.robots.model import RobotModel

MUJOCO_WARP_NOT_DIFFERENTIABLE = (
    "MuJoCo Warp's step is not differentiable by wp.Tape: mujoco_warp 4.0.0 compiles its step's modules with "
    "enable_backward=False (forward, smooth, passive, solver, ...); measured on planar3r (CPU, warp 1.19): a tape "
    "around mujoco_warp.step warns for 88 kernels without adjoints and its backward pass gives all-zero "
    "dq̇⁺/dq and dq̇⁺/dτ, where the exact Jacobians are not zero")
"""Why ``mujoco-warp`` offers no derivatives (measured; docs/explanation/derivatives.md, section Engines)."""


def float32_states(*arrays: Any) -> tuple[np.ndarray, ...]:
    """The (N, n) float64 arrays rounded to float32 and back: the states a float32 engine holds and differentiates."""
    return tuple(np.atleast_2d(np.asarray(a, dtype=float)).astype(np.float32).astype(float) for a in arrays)


def newton_engine(model: RobotModel, dt: float) -> Any:
    """The Newton file adapter of ``model`` at ``dt`` with its default (neutralised) options, on the CPU unless a
    CUDA device is Warp's preferred one."""
    from crossdyn.engines.newton.file import NewtonFileEngine

    return NewtonFileEngine(model, dt)


def _taped_step(eng: Any, Q: np.ndarray, QD: np.ndarray, TAU: np.ndarray) -> tuple:
    """One ``SolverFeatherstone.step`` of N copies (engine order, (N, n)) recorded on a ``wp.Tape``: returns
    (tape, state in, state out, control)."""
    wp, newton = eng.wp, eng.newton
    m, _ = eng._finalize(Q.shape[0], stepping=True, requires_grad=True)
    solver = eng.Solver(m, angular_damping=float(eng.options.angular_damping))
    s0, s1, control = m.state(requires_grad=True), m.state(requires_grad=True), m.control(requires_grad=True)
    s0.joint_q.assign(Q.astype(np.float32).ravel())
    s0.joint_qd.assign(QD.astype(np.float32).ravel())
    control.joint_f.assign(TAU.astype(np.float32).ravel())
    tape = wp.Tape()
    with tape:
        newton.eval_fk(m, s0.joint_q, s0.joint_qd, s0)
        solver.step(s0, s1, control, None, eng.dt)
    return tape, s0, s1, control


def newton_transition(model: RobotModel, Q, QD, TAU, dt: float, engine: Any = None) -> Transition:
    """A (N, 2n, 2n), B (N, 2n, n) of one Newton Featherstone step at the float32 states (module docstring), rows
    and columns (q, q̇) and τ in the model's joint order; ``engine``: :func:`newton_engine` of ``model`` at ``dt``."""
    eng = engine if engine is not None else newton_engine(model, dt)
    wp = eng.wp
    Q, QD, TAU = float32_states(Q, QD, TAU)
    N, n = Q.shape
    G = np.empty((N, 2 * n, 3 * n))  # engine order: rows (q⁺, q̇⁺), columns (q, q̇, τ)
    with wp.ScopedDevice(eng.device):
        tape, s0, s1, control = _taped_step(eng, eng.to_engine(Q), eng.to_engine(QD), eng.to_engine(TAU))
        for r in range(2 * n):
            out = s1.joint_q if r < n else s1.joint_qd
            seed = np.zeros((N, n), dtype=np.float32)
            seed[:, r % n] = 1.0
            tape.backward(grads={out: wp.array(seed.ravel(), dtype=wp.float32)})
            for c, arr in enumerate((s0.joint_q, s0.joint_qd, control.joint_f)):
                G[:, r, c * n:(c + 1) * n] = arr.grad.numpy().astype(float).reshape(N, n)
            tape.zero()
    idx = eng._idx  # model joint i is engine coordinate idx[i]
    rows, cols = np.concatenate((idx, n + idx)), np.concatenate((idx, n + idx, 2 * n + idx))
    G = G[:, rows][:, :, cols]
    return Transition(f"newton {eng.newton.__version__} SolverFeatherstone.step by wp.Tape (warp {wp.__version__}, "
                      "float32)", "semi-implicit-euler", float(dt), Q, QD, TAU, G[:, :, :2 * n], G[:, :, 2 * n:])
