"""Tolerances for comparing an engine's derivatives with the reference, derived from how each is computed.

**Analytical, float64, per entry** (:func:`analytic_terms`, the one the ``derivatives`` group uses): a computed sum
carries the round-off of the terms it sums, not of its result: |fl(Σ t_k) − Σ t_k| ≤ γ_m Σ |t_k|, γ_m ≈ m ε_mach
(Higham, *Accuracy and Stability of Numerical Algorithms*, 2nd ed., §3.1, eq. 3.5).  Pinocchio's derivative
recursions express every spatial quantity in the world frame (Carpentier & Mansard, RSS 2018, §IV), so the terms an
entry of ∂τ/∂x sums are world-frame moments: body j's weight and inertial force about the world origin, of size
m_j |g| ρ_j, and its inertia about that origin, s_j = ‖I_j‖ + m_j ρ_j², with ρ_j = |c_j| (c_j the body's centre
of mass in the world), plus 1 m where the arm has a prismatic joint (the force terms a prismatic row sums carry no
lever arm).  With
ω = Σ|q̇_i| and α = Σ|q̈_i| bounding the bodies' angular rates (revolute) and S = Σ_j s_j:

    T(∂τ/∂q̈) = S,     T(∂τ/∂q̇) = 2 ω S,     T(∂τ/∂q) = Σ_j m_j |g| ρ_j + S (α + ω²)

(∂M/∂q · q̈, ∂(C q̇)/∂q, ∂G/∂q: inertia × acceleration, inertia × velocity², weight × lever), each plus max|block|
(the terms added after the recursions: the damping diag(b)).  The inverse blocks' tolerance is K n ε_mach T.  The
forward blocks come from them through M⁻¹ (∂q̈/∂x = −M⁻¹ ∂τ/∂x, ∂q̈/∂τ = M⁻¹): an error δ in ∂τ/∂x reaches entry
(i, k) as (|M⁻¹| |δ|)_ik ≤ (Σ_l |M⁻¹|_il) K n ε_mach T_x, and the solve with M adds its own normwise error κ(M)
ε_mach ‖∂q̈/∂x‖ (the perturbation bound of a linear solve, Higham §7.1); for M⁻¹ itself δ(M⁻¹) = −M⁻¹ δM M⁻¹, so
(|M⁻¹| 𝟙 𝟙ᵀ |M⁻¹|)_ik K n ε_mach T(∂τ/∂q̈).  Measured on pan-tilt (docs/explanation/derivatives.md): Pinocchio's
∂τ/∂q differs from both references (complex step and SymPy, which agree to 5.6e-17) by 4.2e-16 at an entry of
−2.2e-3, where the world-frame weight moment is 0.8 kg × 9.81 m/s² × 0.22 m ≈ 1.7 N m: ε_mach × 1.7 ≈ 3.8e-16.

**Analytical, float64, per state** (:func:`analytic`, kept for callers with no model to hand; too tight where an
entry is a small difference of large world-frame terms): the error is round-off propagated through the recursions and, for the forward-dynamics blocks, through a solve with M (q̈ = M⁻¹ (…)), so per block

    |D − D_ref| ≤ K n ε_mach κ(M) max|D_ref|   (forward blocks),     K n ε_mach max|D_ref|   (inverse blocks),

with κ(M) = ‖M‖₂ ‖M⁻¹‖₂ from the reference M, n the joints (the recursions' depth: round-off grows about linearly
with the number of bodies a path crosses) and K = :data:`ANALYTIC_K` operations per body.  The reference itself is
exact to a few ε_mach (complex step; tested against SymPy to 1e-14) and is inside that bound.

**Finite differences** at step ε of a function f (MuJoCo's ``mjd_transitionFD`` / ``mjd_inverseFD``), per entry:

    centred:  |D − J| ≤ S ε²/6 |f'''| + C ε_mach |f| / ε           forward:  |D − J| ≤ S ε/2 |f''| + 2 C ε_mach |f| / ε

(truncation of Taylor's series; round-off of f's two evaluations divided by the step).  The derivatives f'' and f'''
along each input are measured on the reference (:func:`truncation`): the reference's own difference quotient at a
larger step ε₂ = :data:`EPS2`, minus the exact J, is the leading truncation term at ε₂ (ε₂²/6 f''' or ε₂/2 f''),
scaled to ε by (ε/ε₂)² or ε/ε₂.  S = :data:`SAFETY` covers the next Taylor term; C = :data:`ROUND_OFF_C` is the
relative round-off of one evaluation of the engine's step in units of ε_mach (or, larger, the engine's evaluation
error measured at the states: :func:`noise`), amplified by κ(M) where f solves
with M (a step's q̈ = M⁻¹ (…): the perturbation bound of a linear solve); |f| is the size of the terms
f_i sums, |f_i(x)| + Σ_j |∂f_i/∂x_j| |x_j| (an output that is a small difference of large terms, τ = M q̈ + … at a
large q̈, carries the round-off of those terms).
"""
from __future__ import annotations

from typing import Callable

import numpy as np

EPS_MACH = float(np.finfo(float).eps)
ANALYTIC_K = 16
"""Round-off operations per body along one path of the recursions (the RNEA's forward and backward passes take
about a dozen multiply-adds per body for each entry of a derivative column)."""
EPS2 = 1e-3
"""The larger step at which the reference's own difference quotient measures f'' or f''' (truncation ≫ round-off
there: ε₂²/6 ~ 2e-7 against ε_mach/ε₂ ~ 2e-13)."""
SAFETY = 2.0
"""Factor on the measured leading truncation term, for the next term of the series (O(ε⁴ f⁽⁵⁾) or O(ε² f''') with
ε ≤ ε₂, at most the measured term's size)."""
ROUND_OFF_C = 8.0
"""Relative round-off of one evaluation of an engine's step or inverse dynamics, in units of ε_mach."""


def analytic(M: np.ndarray, ref: np.ndarray, forward: bool) -> np.ndarray:
    """Per state (N, 1, 1): the absolute tolerance of an analytical float64 block against ``ref`` (N, n, n) (module
    docstring), κ(M) from the reference mass matrix M (N, n, n) for the forward-dynamics blocks."""
    n = M.shape[-1]
    kappa = np.linalg.cond(M) if forward else np.ones(M.shape[0])
    scale = np.max(np.abs(ref), axis=(1, 2))
    return (ANALYTIC_K * n * EPS_MACH * kappa * scale)[:, None, None]


def world_terms(model, Q, QD, QDD) -> dict[str, np.ndarray]:
    """Per state (N,): T(∂τ/∂q), T(∂τ/∂q̇), T(∂τ/∂q̈), the sizes of the world-frame terms an entry of each
    inverse-dynamics block sums (module docstring), for ``model`` (a :class:`~crossdyn.robots.model.RobotModel`) at
    the states (N, n); without the max|block| term :func:`analytic_terms` adds."""
    from crossdyn.spatial.kinematics import com_positions

    Q, QD, QDD = (np.atleast_2d(np.asarray(a, dtype=float)) for a in (Q, QD, QDD))
    prismatic = any(j.type.value == "prismatic" for j in model.joints)
    rho = float(prismatic) + np.linalg.norm(com_positions(model, Q), axis=-1)  # (N, bodies), metres
    mass = np.array([b.inertial.mass for b in model.bodies], dtype=float)
    inertia = np.array([np.max(np.abs(np.linalg.eigvalsh(b.inertial.inertia))) for b in model.bodies])
    S = np.sum(inertia + mass * rho ** 2, axis=1)
    omega, alpha = np.sum(np.abs(QD), axis=1), np.sum(np.abs(QDD), axis=1)
    weight = np.sum(mass * float(np.linalg.norm(model.gravity)) * rho, axis=1)
    return {"dtau_dq": weight + S * (alpha + omega ** 2), "dtau_dqd": 2.0 * omega * S, "dtau_dqdd": S}


def analytic_terms(model, ref, name: str) -> np.ndarray:
    """The per-entry absolute tolerance (N, n, n) of an analytical float64 block ``name`` against the reference
    :class:`~crossdyn.derivatives.blocks.Derivatives` ``ref`` (module docstring): K n ε_mach (T + max|block|) for
    ∂τ/∂x; (Σ_l |M⁻¹|_il) K n ε_mach T_x + κ(M) ε_mach max|∂q̈/∂x| for ∂q̈/∂q, ∂q̈/∂q̇; (|M⁻¹| 𝟙 𝟙ᵀ |M⁻¹|) K n ε_mach
    T(∂τ/∂q̈) + κ(M) ε_mach max|M⁻¹| for ∂q̈/∂τ."""
    terms = world_terms(model, ref.q, ref.qd, ref.qdd)
    N, n = ref.q.shape
    unit = ANALYTIC_K * n * EPS_MACH
    inverse_of = {"dqdd_dq": "dtau_dq", "dqdd_dqd": "dtau_dqd", "dqdd_dtau": "dtau_dqdd"}
    inv = inverse_of.get(name, name)
    size = np.max(np.abs(ref.block(inv)), axis=(1, 2))
    T = (unit * (terms[inv] + size))[:, None, None]  # the inverse block's round-off, per entry
    if name == inv:
        return np.broadcast_to(T, (N, n, n))
    absinv = np.abs(ref.dqdd_dtau)
    rows = np.sum(absinv, axis=2)[:, :, None]
    through = rows * T if name != "dqdd_dtau" else rows * T * np.sum(absinv, axis=1)[:, None, :]
    solve = (np.linalg.cond(ref.dtau_dqdd) * EPS_MACH * np.max(np.abs(ref.block(name)), axis=(1, 2)))[:, None, None]
    return through + solve


def _quotients(f: Callable[[np.ndarray], np.ndarray], X: np.ndarray, step: float, centred: bool) -> np.ndarray:
    """The difference quotients of f at X (N, m) along each input, (N, p, m), in one batch of N·m (or 2 N·m) rows."""
    N, m = X.shape
    rep = np.repeat(X, m, axis=0).reshape(N, m, m)
    plus = f((rep + step * np.eye(m)).reshape(N * m, m))
    base = f((rep - step * np.eye(m)).reshape(N * m, m)) if centred else np.repeat(f(X), m, axis=0)
    D = (plus - base) / ((2.0 if centred else 1.0) * step)
    return np.swapaxes(D.reshape(N, m, -1), 1, 2)


def truncation(f: Callable[[np.ndarray], np.ndarray], X: np.ndarray, J: np.ndarray, eps: float,
               centred: bool) -> np.ndarray:
    """The leading truncation error (N, p, m) of a difference quotient at step ``eps``, measured on the reference
    f (batched (K, m) → (K, p)) with exact Jacobian J (N, p, m): |D(ε₂) − J| (ε/ε₂)² centred, (ε/ε₂) forward."""
    D2 = _quotients(f, X, EPS2, centred)
    return np.abs(D2 - J) * (eps / EPS2) ** (2 if centred else 1)


def finite_difference(f: Callable[[np.ndarray], np.ndarray], X: np.ndarray, J: np.ndarray, eps: float,
                      centred: bool, amplification=1.0, noise=None) -> np.ndarray:
    """The per-entry absolute tolerance (N, p, m) of a difference quotient at step ``eps`` against the exact J
    (module docstring): S · truncation + C κ ε_mach |f| / ε (twice that, forward); ``amplification`` κ, a scalar or
    per state (N,), is κ(M) where f solves with M (a step's forward dynamics), 1 otherwise.  ``noise`` (p,): the
    engine's measured evaluation error per output, max over the states of |f_engine(x) − f(x)| (:func:`noise`); where
    it exceeds C κ ε_mach |f| it replaces it (an engine whose formulation rounds more than C ε_mach)."""
    kappa = np.broadcast_to(np.asarray(amplification, dtype=float), (X.shape[0],))
    size = kappa[:, None, None] * (np.abs(f(X)) + np.einsum("npm,nm->np", np.abs(J), np.abs(X)))[:, :, None]
    per_eval = ROUND_OFF_C * EPS_MACH * size
    if noise is not None:
        per_eval = np.maximum(per_eval, np.asarray(noise, dtype=float)[None, :, None])
    round_off = (1.0 if centred else 2.0) * per_eval / eps
    return SAFETY * truncation(f, X, J, eps, centred) + round_off


def noise(engine_values: np.ndarray, reference_values: np.ndarray) -> np.ndarray:
    """(p,): the engine's evaluation error per output, max over the N states of |engine − reference| ((N, p) each):
    the reference is exact to a few ε_mach, so this is the engine's own round-off (plus any model difference), the
    size of the error each evaluation inside a difference quotient carries."""
    return np.max(np.abs(np.asarray(engine_values) - np.asarray(reference_values)), axis=0)


def perturbed_points(X: np.ndarray, eps: float, centred: bool) -> np.ndarray:
    """The points a difference quotient at step ``eps`` evaluates f at, (K, m): every state X (N, m) and X ± ε e_j
    (+ only, forward).  The engine's evaluation error measured there (:func:`noise` of its values against the
    reference's) is the round-off its quotient actually divides by ε: measured at the base states alone it can be
    smaller (the UR5e URDF's ``mj_inverse`` rounds up to 2.6× more at the perturbed configurations, whose
    world-frame terms differ; docs/explanation/derivatives.md)."""
    N, m = X.shape
    rep = np.repeat(X, m, axis=0).reshape(N, m, m)
    rows = [X, (rep + eps * np.eye(m)).reshape(N * m, m)]
    if centred:
        rows.append((rep - eps * np.eye(m)).reshape(N * m, m))
    return np.concatenate(rows)


EPS_FLOAT32 = float(np.finfo(np.float32).eps)


def float32_step(model, ref, dt: float) -> dict[str, np.ndarray]:
    """Per-entry absolute tolerances (N, n, n) of the six blocks of one semi-implicit Euler step differentiated in
    float32 (a Warp engine's ``wp.Tape``), keyed as the ``derivatives`` group's transition blocks, against the exact
    Jacobians at the same (float32) states; ``ref`` the reference's forward blocks there.

    The step's Jacobian is q̇⁺_x = I_v + h a_x, q⁺_x = I_q + h q̇⁺_x (:mod:`crossdyn.derivatives.transition`; I_q, I_v
    the identity where x is q, q̇).  a_x carries the analytical round-off of :func:`analytic_terms` with ε_mach the
    float32 unit ε₃₂ = 2⁻²³ (the same model: K n ε × the world-frame terms an entry sums, through |M⁻¹|, plus the
    solve's κ(M) ε max|a_x|); each float32 sum of the recursion adds ε₃₂ × the size of its terms (Higham eq. 3.5):

        δ(q̇⁺_x) = h δ(a_x) + ε₃₂ (|I_v| + h |a_x|),     δ(q⁺_x) = h δ(q̇⁺_x) + ε₃₂ (|I_q| + h |q̇⁺_x|).
    """
    scale = EPS_FLOAT32 / EPS_MACH
    N, n = ref.q.shape
    eye, zero = np.broadcast_to(np.eye(n), (N, n, n)), np.zeros((N, n, n))
    out: dict[str, np.ndarray] = {}
    for x, a, I_q, I_v in (("dq", "dqdd_dq", eye, zero), ("dqd", "dqdd_dqd", zero, eye),
                           ("dtau", "dqdd_dtau", zero, zero)):
        ax = ref.block(a)
        v_x = I_v + dt * ax
        dv = dt * scale * analytic_terms(model, ref, a) + EPS_FLOAT32 * (np.abs(I_v) + dt * np.abs(ax))
        out[f"dqdnext_{x}"] = dv
        out[f"dqnext_{x}"] = dt * dv + EPS_FLOAT32 * (np.abs(I_q) + dt * np.abs(v_x))
    return out
