"""MJX's own derivatives by forward-mode automatic differentiation (``jax.jacfwd``) through its functions, on the
model the MJX robot-file adapter builds (:class:`crossdyn.engines.mjx.file.MJXFileEngine`: C MuJoCo's compiled
model of the file, the ``mujoco`` adapter's neutralised defaults, ``mjx.put_model``), in the model's joint order.

All three differentiate the adapter's **stepping** model, whose passive forces carry the file's viscous joint
damping −b ⊙ q̇ (as the stepping applies it, and as the reference's FD(q, q̇, τ) = ABA(q, q̇, τ − b ⊙ q̇) and
ID = RNEA + b ⊙ q̇ have it: :mod:`crossdyn.derivatives.reference`); contact and constraints are off, eulerdamp is
disabled (the adapter's defaults):

* :func:`dynamics`: ∂q̈/∂q, ∂q̈/∂q̇, ∂q̈/∂τ = ``jacfwd`` of q̈ = ``mjx.forward(qpos, qvel, qfrc_applied = τ).qacc``
  and ∂τ/∂q, ∂τ/∂q̇, ∂τ/∂q̈ = ``jacfwd`` of ``mjx.inverse(qpos, qvel, qacc).qfrc_inverse`` (M q̈ + bias − passive:
  includes + b ⊙ q̇), the inverse blocks at the q̈ given (the reference's, so that both sides differentiate at one
  point);
* :func:`transition`: A = ∂(q⁺, q̇⁺)/∂(q, q̇), B = ∂(q⁺, q̇⁺)/∂τ = ``jacfwd`` of one ``mjx.step`` with τ in
  ``qfrc_applied``, the integrator the engine name stands for: Euler (MuJoCo's, semi-implicit: crossdyn's
  ``semi-implicit-euler``) or RK4 (crossdyn's ``rk4``), whose exact Jacobians :mod:`crossdyn.derivatives.transition`
  gives.

Every function runs in the adapter's dtype scope (float32 by default, MJX's own; ``dtype="float64"`` under the
scoped ``jax.enable_x64``) and is jitted and ``vmap``-ped over the N states, the model an argument (one compilation
per model structure and N, at XLA's backend optimisation level 0: :data:`COMPILER_OPTIONS`).  The
tolerances they are judged with (:func:`tolerance`): autodiff carries no truncation error, only round-off in its
dtype, so float64 gets the analytical bound of :func:`crossdyn.derivatives.tolerance.analytic` and float32 the
float32 round-off term of :func:`crossdyn.engines.precision.static_roundoff`.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from crossdyn.derivatives.blocks import Derivatives, Transition
from crossdyn.robots.model import RobotModel

SCHEMES = {"Euler": "semi-implicit-euler", "RK4": "rk4"}
"""MJX's integrator → the crossdyn step it is (whose exact Jacobians :mod:`crossdyn.derivatives.transition` gives)."""


def mjx_engine(model: RobotModel, dt: float, integrator: str = "Euler", dtype: str = "float32") -> Any:
    """The MJX robot-file adapter of ``model`` at ``dt`` with its default options (``integrator``, ``dtype``)."""
    from crossdyn.engines.mjx.file import MJXFileEngine, MJXFileOptions

    if integrator not in SCHEMES:
        raise ValueError(f"integrator: one of {', '.join(SCHEMES)}, got {integrator!r}")
    return MJXFileEngine(model, dt, replace(MJXFileOptions(), integrator=integrator, dtype=dtype))


COMPILER_OPTIONS = {"xla_backend_optimization_level": 0}
"""XLA options the Jacobians are compiled with: backend optimisation level 0 (as the test suite compiles MJX,
tests/conftest.py).  MJX's Jacobians are large functions; level 0 compiles them several times faster and changes
only last-bit effects such as fused multiply-adds, far below the float32 tolerance."""


def _forward(mx: Any, d0: Any, qpos0: Any, qadr: Any, q: Any, v: Any, tau: Any) -> Any:
    from crossdyn.engines.mjx.planar import mjx
    return mjx.forward(mx, d0.replace(qpos=qpos0.at[qadr].set(q), qvel=v, qfrc_applied=tau)).qacc


def _inverse(mx: Any, d0: Any, qpos0: Any, qadr: Any, q: Any, v: Any, a: Any) -> Any:
    from crossdyn.engines.mjx.planar import mjx
    return mjx.inverse(mx, d0.replace(qpos=qpos0.at[qadr].set(q), qvel=v, qacc=a)).qfrc_inverse


def _step(mx: Any, d0: Any, qpos0: Any, qadr: Any, q: Any, v: Any, tau: Any) -> Any:
    import jax.numpy as jnp

    from crossdyn.engines.mjx.planar import mjx
    d = mjx.step(mx, d0.replace(qpos=qpos0.at[qadr].set(q), qvel=v, qfrc_applied=tau))
    return jnp.concatenate((d.qpos[qadr], d.qvel))


_JACOBIANS: dict[str, Any] = {}


def _jacobian(which: str) -> Any:
    """The jitted, vmapped ``jax.jacfwd`` of :func:`_forward`, :func:`_inverse` or :func:`_step` in (q, v, x), the
    model an argument: one compilation per model structure and number of states, shared by every engine (the arms
    of a batch, a test's faulted sources) whose MJX model has the same shapes and options."""
    if which not in _JACOBIANS:
        import jax

        f = {"forward": _forward, "inverse": _inverse, "step": _step}[which]
        jac = jax.jacfwd(f, argnums=(4, 5, 6))
        _JACOBIANS[which] = jax.jit(jax.vmap(jac, in_axes=(None, None, None, None, 0, 0, 0)),
                                    compiler_options=dict(COMPILER_OPTIONS))
    return _JACOBIANS[which]


def _call(eng: Any, which: str, A, B, C) -> list[np.ndarray]:
    """The three Jacobians (N, p, n) of function ``which`` at the model-order states, in the model's joint order
    (rows: the outputs, by joint; the step's 2n rows are q⁺ then q̇⁺)."""
    f = np.dtype(eng.options.dtype)
    args = [np.asarray(eng.to_engine(np.atleast_2d(np.asarray(X, dtype=float))), f) for X in (A, B, C)]
    qpos0, qadr = np.asarray(eng.ms.qpos0, f), np.asarray(eng._qadr, dtype=np.int32)
    with eng.scope():
        jacs = _jacobian(which)(eng.mxs, eng._ds0, qpos0, qadr, *args)
    idx = eng._idx
    rows = idx if which != "step" else np.concatenate((idx, eng.n + idx))
    return [np.asarray(J, dtype=float)[:, rows][:, :, idx] for J in jacs]


def dynamics(eng: Any, Q, QD, TAU, QDD) -> Derivatives:
    """The six blocks by ``jax.jacfwd`` (module docstring) at the states (N, n), the inverse blocks at ``QDD``."""
    Q, QD, TAU, QDD = (np.atleast_2d(np.asarray(X, dtype=float)) for X in (Q, QD, TAU, QDD))
    fq, fv, ft = _call(eng, "forward", Q, QD, TAU)
    iq, iv, ia = _call(eng, "inverse", Q, QD, QDD)
    return Derivatives(f"mjx {eng.mj.__version__} jax.jacfwd of mjx.forward/mjx.inverse ({eng.options.dtype})",
                       Q, QD, TAU, QDD, fq, fv, ft, iq, iv, ia)


def transition(eng: Any, Q, QD, TAU) -> Transition:
    """A (N, 2n, 2n), B (N, 2n, n) of one ``mjx.step`` by ``jax.jacfwd`` (module docstring)."""
    Q, QD, TAU = (np.atleast_2d(np.asarray(X, dtype=float)) for X in (Q, QD, TAU))
    dq, dv, dt_ = _call(eng, "step", Q, QD, TAU)
    integrator = eng.options.integrator
    return Transition(f"mjx {eng.mj.__version__} jax.jacfwd of mjx.step ({integrator}, {eng.options.dtype})",
                      SCHEMES[integrator], float(eng.dt), Q, QD, TAU, np.concatenate((dq, dv), 2), dt_)


def tolerance(dtype: str, M: np.ndarray, ref: np.ndarray, forward: bool) -> np.ndarray:
    """Per state (N, 1, 1): the absolute tolerance of an autodiff block against ``ref`` (N, p, m).

    Forward-mode autodiff has no truncation error: the derivative is the exact derivative of the computed function,
    wrong only by the round-off of its evaluation in ``dtype``.  float64: the analytical bound K n ε_mach (κ(M))
    max|ref| of :func:`crossdyn.derivatives.tolerance.analytic`.  float32: the float32 round-off term of a static
    quantity as :func:`crossdyn.engines.precision.static_roundoff` states it, with scale = max|ref| per state:
    ``FD_K`` eps₃₂ κ(M) scale for a block that solves with M (∂q̈/∂·, a step's Jacobians), ``STATIC_K`` eps₃₂ scale
    for an inverse-dynamics block.  κ(M) = cond₂ of the reference's M (N, n, n) at each state."""
    from crossdyn.derivatives import tolerance as tol
    from crossdyn.engines import precision

    if precision.is_float64(dtype):
        return tol.analytic(M, ref, forward)
    scale = np.max(np.abs(ref), axis=(1, 2))
    kappa = np.linalg.cond(M) if forward else [None] * len(scale)
    return np.array([precision.static_roundoff(dtype, s, k) for s, k in zip(scale, kappa)])[:, None, None]


def method(dtype: str, what: str) -> str:
    """The stated method and tolerance of a block (``summary.json``'s ``method``)."""
    from crossdyn.derivatives import tolerance as tol
    from crossdyn.engines import precision

    if precision.is_float64(dtype):
        bound = f"{tol.ANALYTIC_K} n eps_mach (x cond(M) forward) max|block| (autodiff, float64: analytical bound)"
    else:
        bound = (f"{dtype} round-off (crossdyn.engines.precision): {precision.FD_K:g} eps cond(M) max|block| "
                 f"forward and step, {precision.STATIC_K:g} eps max|block| inverse")
    return f"automatic differentiation (jax.jacfwd of {what}, {dtype}); tolerance {bound}"
