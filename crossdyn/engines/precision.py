"""An engine's floating-point precision as part of its tolerance: the round-off an engine computing in a given
dtype legitimately leaves against crossdyn's float64 reference.

Every engine declares its dtype (:attr:`crossdyn.engines.base.Engine.dtype`, ``"float64"`` by default; MJX from
its ``dtype`` option, float32 by default).  The base tolerances of :mod:`crossdyn.comparison.tolerances` are set
for float64 arithmetic (four orders above its rounding), so a float64 engine gets no extra term.  A narrower dtype
gets, added to the base tolerance:

* **static quantities** (τ from inverse dynamics, M, q̈ from forward dynamics), :func:`static_roundoff`:
  ``STATIC_K`` · eps(dtype) · scale, scale = the quantity's magnitude at the states (max(torque scale Σ mᵢ|g|rᵢ,
  max|τ|): the inertial terms at q̇ ≤ 10 rad/s, q̈ ≤ 50 rad/s² reach 20× the torque scale on a 4R arm; max|M|;
  max(1, max|q̈|)).  For q̈ the term is ``FD_K`` · eps · κ · scale instead, κ = max cond₂(M) over the
  states: q̈ = M⁻¹(τ − h) amplifies the relative error of M and h by up to κ (the bound of a linear solve).
  Measured, MJX float32 on planar3r against the float64 reference, in eps of the scale: M 0.9–2.1 (1.05e-6 of
  max|M| = 4.15 at the default states), τ 6.9, q̈ 5.1 with κ = 157.  ``STATIC_K`` = 100 leaves ≥ 14× margin on M
  and τ and stays ~100× below a 1 % model error (a link mass +1 % changes M and τ by ~1e-2 relative);
  ``FD_K`` = 10 leaves ~300× on q̈ at κ = 157 and stays ~50× below a 1 % model error there.
* **trajectory** (against the reference and against the same-scheme analytic run), :func:`trajectory_roundoff`:
  ``TRAJECTORY_K`` · :data:`FLOAT32_GROWTH_RAD` · max(1, T/1 s)² for float32: the batch's measured float32
  growth, max over 100 random planar arms at 1 s, dt = 1e-3 s (p50/p99/max 1.15e-6/2.28e-6/3.07e-6 rad,
  confirmed by an independent float64 re-run), ×10 as every Richardson-based trajectory tolerance, and grown
  quadratically beyond 1 s (assumed, conservative: only the 1 s figure is measured; a chaotic run can outgrow it).
  Other non-float64 dtypes: scaled by eps(dtype)/eps(float32).
* **energy** (the free-swing drift and the work–energy balance, both relative to the energy scale),
  :func:`energy_roundoff`: ``ENERGY_K`` · eps(dtype) · max(1, T/1 s).  Measured: an engine computing in float32
  (the seeded-fault benchmark's honest float32 engine, MuJoCo RK4 with every state rounded to float32) drifts
  1.26e-6 of E_scale over planar2r's 2 s free swing, 10.6 eps32 (MJX float32: 1.12e-6), against RK4's float64
  tolerance 1e-6 — a FAIL of the dtype, not of the model.  ``ENERGY_K`` = 100 (as ``STATIC_K``) leaves 19× on it
  at 2 s; the linear growth in T is assumed (a random walk of round-off grows as √T).  A hidden joint damping of
  0.01 N m s/rad drifts ~1e-2 there.
* **tip kinematics** (the engine's own tip position, Jacobian and velocity against crossdyn's analytic forward
  kinematics), :func:`tip_roundoff`: ``TIP_K`` · eps(dtype) · reach · (n + 1) · max(1, max|q|) m for x and J (m,
  m/rad), × max(1, max|q̇|) for ẋ (m/s).  Where it comes from: the tip is n + 1 composed transforms (n joint
  rotations with their link offsets, then the tip's fixed offset).  Each composition (a rotation product, an offset
  rotated and added) leaves a relative error of a few eps on every frame after it, which the levers (≤ the reach)
  carry to the tip: ≤ c · (n + 1) · eps · reach.  The joint angles themselves are rounded to the dtype on their way
  in, |δq_j| ≤ eps |q_j| / 2, each moving the tip by |δq_j| × its lever ≤ eps · max|q| · reach / 2 per joint:
  hence the factor max(1, max|q|) rad (angles beyond 1 rad lose absolute precision).  Measured, float32, 1,000
  random states (|q| ≤ π, |q̇| ≤ 10 rad/s), the worst of x, J and ẋ in units of that product (ẋ's × max|q̇|):
  MuJoCo Warp's site 1.06 (planar2r-floor) / 0.68 (planar3r-wall), Newton's site on its body pose 0.57 / 0.51
  (x up to 4.7e-7 m, ẋ up to 7.9e-6 m/s).  ``TIP_K`` = 10 leaves ≥ 9× margin; on planar3r-wall at |q| ≤ π the
  term is 3.6e-5 m, 28× below a link 1 mm too long or a tip site 1 mm off.
"""
from __future__ import annotations

import numpy as np

FLOAT64 = "float64"
STATIC_K = 100.0
"""Multiple of eps(dtype)·scale allowed for a static quantity (see the module docstring)."""
FD_K = 10.0
"""Multiple of eps(dtype)·cond(M)·scale allowed for q̈ from forward dynamics (see the module docstring)."""
FLOAT32_GROWTH_RAD = 3.07e-6
"""Measured float32 round-off of a trajectory after 1 s (rad): max over 100 arms of the float32 batch against
float64 with the same integrator (p50 1.15e-6, p99 2.28e-6)."""
FLOAT32_GROWTH_S = 1.0
"""The duration at which :data:`FLOAT32_GROWTH_RAD` was measured (s)."""
TRAJECTORY_K = 10.0
"""Multiple of the measured growth allowed (as ``trajectory_factor`` for the Richardson estimate)."""


def eps(dtype: str) -> float:
    """Machine epsilon of ``dtype`` (float32: 1.19e-7, float64: 2.22e-16)."""
    return float(np.finfo(np.dtype(dtype)).eps)


def is_float64(dtype: str | None) -> bool:
    """True for float64 (and for an engine that declares nothing: float64 by default)."""
    return dtype is None or np.dtype(dtype) == np.dtype(FLOAT64)


def static_roundoff(dtype: str | None, scale: float, condition: float | None = None) -> float:
    """Round-off term of a static quantity: ``STATIC_K`` · eps(dtype) · scale, or with a condition number κ
    (forward dynamics) ``FD_K`` · eps(dtype) · κ · scale; 0 for float64."""
    if is_float64(dtype):
        return 0.0
    assert dtype is not None
    if condition is None:
        return STATIC_K * eps(dtype) * float(scale)
    return FD_K * eps(dtype) * float(condition) * float(scale)


def static_origin(dtype: str, condition: float | None = None) -> str:
    """The stated origin of :func:`static_roundoff`, for the summary and the failure line."""
    k, cond = (STATIC_K, "") if condition is None else (FD_K, f" × cond(M) {condition:.3g}")
    return (f"{dtype} round-off: {k:g} × eps {eps(dtype):.3g}{cond} × scale (measured: MJX float32 on planar3r "
            "within 7 eps of the scale)")


def trajectory_roundoff(dtype: str | None, duration: float) -> float:
    """Round-off term of a trajectory of ``duration`` s (rad); 0 for float64 (see the module docstring)."""
    if is_float64(dtype):
        return 0.0
    assert dtype is not None
    growth = max(1.0, float(duration) / FLOAT32_GROWTH_S) ** 2
    return TRAJECTORY_K * FLOAT32_GROWTH_RAD * growth * eps(dtype) / eps("float32")


ENERGY_K = 100.0
"""Multiple of eps(dtype) (per second beyond 1 s) allowed in a relative energy figure (see the module docstring)."""


def energy_roundoff(dtype: str | None, duration: float) -> float:
    """Round-off term of a relative energy figure (drift, work–energy balance) over ``duration`` s; 0 for float64."""
    if is_float64(dtype):
        return 0.0
    assert dtype is not None
    return ENERGY_K * eps(dtype) * max(1.0, float(duration) / FLOAT32_GROWTH_S)


def energy_origin(dtype: str, duration: float) -> str:
    """The stated origin of :func:`energy_roundoff`."""
    return (f"{dtype} round-off: {ENERGY_K:g} × eps {eps(dtype):.3g} × max(1, T/1 s), T = {duration:g} s (measured: "
            "a float32 RK4 engine drifts 10.6 eps over a 2 s free swing)")


def trajectory_origin(dtype: str, duration: float) -> str:
    """The stated origin of :func:`trajectory_roundoff`."""
    return (f"{dtype} round-off: {TRAJECTORY_K:g} × measured float32 growth {FLOAT32_GROWTH_RAD:g} rad at "
            f"{FLOAT32_GROWTH_S:g} s (max of 100 arms, batch vs float64) × max(1, T/1 s)², T = {duration:g} s")


TIP_K = 10.0
"""Multiple of eps(dtype) · reach · (n + 1) · max(1, max|q|) allowed in the tip kinematics (see the module
docstring: measured ≤ 1.06 of that product for MuJoCo Warp and Newton in float32)."""


def tip_factor(n: int, max_angle: float) -> float:
    """The round-off's growth with the chain: (n + 1) composed transforms × max(1, max|q|) (see the module
    docstring)."""
    return float(n + 1) * max(1.0, float(max_angle))


def tip_roundoff(dtype: str | None, reach: float, n: int, max_angle: float) -> float:
    """Round-off term of the tip position (m) and Jacobian (m/rad): ``TIP_K`` · eps(dtype) · reach · (n + 1) ·
    max(1, max|q|); multiply by max(1, max|q̇|) for the tip velocity (m/s).  0 for float64."""
    if is_float64(dtype):
        return 0.0
    assert dtype is not None
    return TIP_K * eps(dtype) * float(reach) * tip_factor(n, max_angle)


def tip_origin(dtype: str, reach: float, n: int, max_angle: float) -> str:
    """The stated origin of :func:`tip_roundoff`."""
    return (f"{dtype} round-off: {TIP_K:g} × eps {eps(dtype):.3g} × reach {reach:.3g} m × (n + 1 = {n + 1} composed "
            f"transforms) × max(1, max|q| = {max_angle:.3g} rad); × max(1, max|q̇|) for the velocity")
