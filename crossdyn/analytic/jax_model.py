"""The analytic model on JAX: jit-compiled, batched (``vmap``) over states, starts and parameter sets.

Same equations as the generated float code (:mod:`crossdyn.analytic.codegen`): the Lagrangian of a
planar chain written in **absolute** angles θ = T q (θi = q1 + … + qi, T lower-triangular ones),
ω = θ̇.  With

    r_ik = L_k (k < i), Lc_i (k = i);    h_k = m_k Lc_k + L_k Σ_{i>k} m_i;
    K_kk = m_k Lc_k² + L_k² Σ_{i>k} m_i,  K_kl = L_min(k,l) h_max(k,l)   (= Σ_{i≥max(k,l)} m_i r_ik r_il);
    A_kl = K_kl cos(θk − θl) + J_k δ_kl,  S_kl = K_kl sin(θk − θl),  γ(θ) = gx sin θ − gy cos θ,

Euler–Lagrange gives, per link k,  Σ_l A_kl θ̈_l + Σ_l S_kl ω_l² + h_k γ(θk) = u_k − u_{k+1},
u = τ − F(q̇), F = b q̇ + f_c sign(q̇).  Mapped to joint space by Tᵀ (a reverse cumulative sum):

    M = Tᵀ A T,   C q̇ = Tᵀ (S ω²),   G = Tᵀ (h γ),   τ = M q̈ + C q̇ + G + F,
    T = ½ ωᵀ A ω,   U = Σ_k h_k (−gx cos θk − gy sin θk)   (= −Σ m_i g·p_ci),

and forward dynamics solves A θ̈ = r by an unrolled LDLᵀ (n ≤ 8; ``jnp.linalg.solve`` beyond), then
q̈ = T⁻¹ θ̈.  The C matrix (Christoffel symbols) is formed from ∂M/∂q by ``jax.jacfwd``.

Every product above is written elementwise (sums of products, no ``dot``/``einsum``), so no matrix
unit with reduced precision (TF32 on NVIDIA GPUs for float32) ever touches this model.  The
``precision`` knob (default ``"highest"``) is nevertheless applied around every call as
``jax.default_matmul_precision``, so code composed with it inherits the same setting.

**float64 and x64.**  JAX computes in float32 unless ``jax_enable_x64`` is on.  This module never
turns x64 on globally: each call runs under the scoped ``jax.enable_x64(dtype is float64)``, so a
float64 model and MuJoCo MJX (which allocates its data in the default float dtype: under global x64,
MJX silently runs in float64, see :mod:`crossdyn.engines.mjx.planar`) can share one process.

Arguments: ``arm`` is an :class:`~crossdyn.models.spec.ArmSpec` or an
:class:`~crossdyn.models.spec.ArmParams` whose fields are (n,) or (N, n) (gravity (2,) or (N, 2));
states are (n,) or (N, n).  A batched argument is mapped (``vmap`` axis 0), an unbatched one is
shared.  Results are JAX arrays (``np.asarray`` them), on the default JAX device (a GPU when JAX
sees one).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable, TypedDict, Unpack

import jax
import jax.numpy as jnp
import numpy as np

from crossdyn.analytic.dynamics import as_params
from crossdyn.models.spec import ArmParams

DTYPES = {"float64": np.float64, "float32": np.float32}
PRECISIONS = ("highest", "high", "default")
UNROLL_MAX_N = 8
"""Forward dynamics solves by an unrolled LDLᵀ up to this many links, by ``jnp.linalg.solve`` beyond."""
METHODS = ("rk4", "semi-implicit-euler", "euler")


def _dtype(dtype) -> np.dtype:
    d = np.dtype(dtype)
    if d not in (np.float64, np.float32):
        raise ValueError(f"dtype must be float64 or float32, got {dtype!r}")
    return d


def _check_precision(precision: str) -> str:
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}, got {precision!r}")
    return precision


class _Scope:
    """x64 on/off and matmul precision for one call (both scoped; nothing global changes)."""

    def __init__(self, dtype, precision: str):
        self.x64 = jax.enable_x64(_dtype(dtype) == np.float64)
        self.prec = jax.default_matmul_precision(_check_precision(precision))

    def __enter__(self):
        self.x64.__enter__()
        self.prec.__enter__()
        return self

    def __exit__(self, *exc):
        self.prec.__exit__(*exc)
        return self.x64.__exit__(*exc)


def scope(dtype="float64", precision: str = "highest") -> _Scope:
    """Context in which JAX computes in ``dtype`` with matmul ``precision`` (for callers composing jitted code)."""
    return _Scope(dtype, precision)


# ----------------------------------------------------------------------------- single-arm core
def _rev_cumsum(x, axis=-1):
    """(Tᵀ x)_j = Σ_{k ≥ j} x_k."""
    return jnp.flip(jnp.cumsum(jnp.flip(x, axis), axis), axis)


def _coefficients(p):
    """h (n,) and K (n, n) of the module docstring, elementwise from L, m, Lc."""
    L, m, Lc = p.L, p.m, p.Lc
    n = L.shape[-1]
    beyond = _rev_cumsum(m) - m                      # Σ_{i>k} m_i
    h = m * Lc + L * beyond
    kk = m * Lc * Lc + L * L * beyond
    i = np.arange(n)
    lower = i[:, None] < i[None, :]                   # k < l
    K = jnp.where(lower, L[:, None] * h[None, :], L[None, :] * h[:, None])
    K = jnp.where(i[:, None] == i[None, :], kk[:, None] * np.eye(n), K)
    return h, K


def _angles(q, qd):
    return jnp.cumsum(q), jnp.cumsum(qd)


def _gamma(p, th):
    return p.gravity[0] * jnp.sin(th) - p.gravity[1] * jnp.cos(th)


def _cos_sin(th):
    """cos(θk − θl) and sin(θk − θl), (n, n).  Up to :data:`UNROLL_MAX_N` links only the n(n−1)/2 pairs k < l are
    evaluated (cos symmetric, sin antisymmetric, diagonal 1 and 0): a third of the trigonometry for 3R."""
    n = th.shape[-1]
    if n > UNROLL_MAX_N:
        d = th[:, None] - th[None, :]
        return jnp.cos(d), jnp.sin(d)
    one, zero = jnp.ones_like(th[0]), jnp.zeros_like(th[0])
    c = [[one] * n for _ in range(n)]
    s = [[zero] * n for _ in range(n)]
    for k in range(n):
        for j in range(k + 1, n):
            d = th[j] - th[k]
            c[k][j] = c[j][k] = jnp.cos(d)
            sd = jnp.sin(d)
            s[k][j], s[j][k] = -sd, sd
    return jnp.stack([jnp.stack(r) for r in c]), jnp.stack([jnp.stack(r) for r in s])


def _A_S(p, th):
    h, K = _coefficients(p)
    cos, sin = _cos_sin(th)
    A = K * cos + jnp.diag(p.J)
    S = K * sin
    return h, A, S


def _friction(p, qd):
    return p.b * qd + p.fc * jnp.sign(qd)


def _mass_matrix(p, q):
    th = jnp.cumsum(q)
    _, A, _ = _A_S(p, th)
    return _rev_cumsum(_rev_cumsum(A, 0), 1)


def _coriolis(p, q, qd):
    th, w = _angles(q, qd)
    _, _, S = _A_S(p, th)
    return _rev_cumsum(jnp.sum(S * (w * w)[None, :], axis=1))


def _gravity(p, q):
    th = jnp.cumsum(q)
    h, _ = _coefficients(p)
    return _rev_cumsum(h * _gamma(p, th))


def _coriolis_matrix(p, q, qd):
    """C_ij = Σ_k ½ (∂M_ij/∂q_k + ∂M_ik/∂q_j − ∂M_jk/∂q_i) q̇_k."""
    dM = jax.jacfwd(lambda x: _mass_matrix(p, x))(q)     # dM[i, j, k] = ∂M_ij/∂q_k
    gam = 0.5 * (dM + jnp.swapaxes(dM, 1, 2) - jnp.transpose(dM, (2, 1, 0)))
    return jnp.sum(gam * qd[None, None, :], axis=2)


def _inverse_dynamics(p, q, qd, qdd):
    th, w = _angles(q, qd)
    h, A, S = _A_S(p, th)
    acc = jnp.cumsum(qdd)
    Q = jnp.sum(A * acc[None, :], axis=1) + jnp.sum(S * (w * w)[None, :], axis=1) + h * _gamma(p, th)
    return _rev_cumsum(Q) + _friction(p, qd)


def _ldl_solve(A, r):
    """Solve A x = r (A symmetric positive definite, (n, n)) by an LDLᵀ unrolled at trace time."""
    n = r.shape[-1]
    a = [[A[i, j] for j in range(n)] for i in range(n)]
    D, Lm = [None] * n, [[None] * n for _ in range(n)]
    for j in range(n):
        d = a[j][j]
        for k in range(j):
            d = d - Lm[j][k] * Lm[j][k] * D[k]
        D[j] = d
        for i in range(j + 1, n):
            s = a[j][i]
            for k in range(j):
                s = s - Lm[i][k] * Lm[j][k] * D[k]
            Lm[i][j] = s / d
    y = [None] * n
    for i in range(n):
        s = r[i]
        for k in range(i):
            s = s - Lm[i][k] * y[k]
        y[i] = s
    x = [None] * n
    for i in range(n - 1, -1, -1):
        s = y[i] / D[i]
        for k in range(i + 1, n):
            s = s - Lm[k][i] * x[k]
        x[i] = s
    return jnp.stack(x)


def _forward_dynamics(p, q, qd, tau):
    th, w = _angles(q, qd)
    h, A, S = _A_S(p, th)
    u = tau - _friction(p, qd)
    net = u - jnp.concatenate([u[1:], jnp.zeros_like(u[:1])])          # u_k − u_{k+1}
    r = net - jnp.sum(S * (w * w)[None, :], axis=1) - h * _gamma(p, th)
    acc = _ldl_solve(A, r) if q.shape[-1] <= UNROLL_MAX_N else jnp.linalg.solve(A, r)
    return jnp.concatenate([acc[:1], acc[1:] - acc[:-1]])


def _kinetic(p, q, qd):
    th, w = _angles(q, qd)
    _, A, _ = _A_S(p, th)
    return 0.5 * jnp.sum(A * w[:, None] * w[None, :])


def _potential(p, q):
    th = jnp.cumsum(q)
    h, _ = _coefficients(p)
    return jnp.sum(h * (-p.gravity[0] * jnp.cos(th) - p.gravity[1] * jnp.sin(th)))


def _step_fn(method: str):
    fd = _forward_dynamics

    def rk4(p, q, qd, tau, dt):
        k1v = fd(p, q, qd, tau)
        k2q = qd + 0.5 * dt * k1v
        k2v = fd(p, q + 0.5 * dt * qd, k2q, tau)
        k3q = qd + 0.5 * dt * k2v
        k3v = fd(p, q + 0.5 * dt * k2q, k3q, tau)
        k4q = qd + dt * k3v
        k4v = fd(p, q + dt * k3q, k4q, tau)
        return (q + dt / 6.0 * (qd + 2 * k2q + 2 * k3q + k4q),
                qd + dt / 6.0 * (k1v + 2 * k2v + 2 * k3v + k4v))

    def semi_implicit_euler(p, q, qd, tau, dt):
        qd_new = qd + dt * fd(p, q, qd, tau)
        return q + dt * qd_new, qd_new

    def euler(p, q, qd, tau, dt):
        return q + dt * qd, qd + dt * fd(p, q, qd, tau)

    return {"rk4": rk4, "semi-implicit-euler": semi_implicit_euler, "euler": euler}[method]


def _rollout_core(method: str, steps: int, save_every: int, const_tau: bool) -> Callable[..., Any]:
    """Single arm: (p, q0, qd0, tau, dt) → (q, q̇) at steps 0, s, 2s, …, K (shape (K/s + 1, n))."""
    step = _step_fn(method)

    def run(p, q0, qd0, tau, dt):
        def inner(carry, tau_k):
            q, qd = carry
            return step(p, q, qd, tau if const_tau else tau_k, dt), None

        def outer(carry, tau_chunk):
            carry, _ = jax.lax.scan(inner, carry, tau_chunk, length=save_every)
            return carry, carry

        chunks = None if const_tau else tau.reshape((steps // save_every, save_every) + tau.shape[1:])
        _, (Q, QD) = jax.lax.scan(outer, (q0, qd0), chunks, length=steps // save_every)
        return jnp.concatenate([q0[None], Q]), jnp.concatenate([qd0[None], QD])

    return run


# ----------------------------------------------------------------------------- batching
_CORES: dict[str, Callable[..., Any]] = {
    "mass_matrix": _mass_matrix, "coriolis": _coriolis, "gravity": _gravity,
    "coriolis_matrix": _coriolis_matrix, "inverse_dynamics": _inverse_dynamics,
    "forward_dynamics": _forward_dynamics, "kinetic_energy": _kinetic, "potential_energy": _potential,
}


CPU_CHUNK = 4096
"""On a CPU, batches larger than this run in chunks of this many arms (``lax.map`` over ``vmap``), each chunk through
all its steps while its working set stays in cache; on a GPU the whole batch runs at once."""


@lru_cache(maxsize=256)
def _compiled(core_key, p_axes: tuple, arg_axes: tuple, x64: bool, precision: str, chunk: int | None = None):
    """jit(vmap(core)) for one pattern of batched/shared arguments (cached; jit caches shapes).  With ``chunk``, the
    batched arguments (length a multiple of ``chunk``) go through ``lax.map`` over chunks of that many arms."""
    core: Callable[..., Any] = _CORES[core_key] if isinstance(core_key, str) else _rollout_core(*core_key)
    axes = (ArmParams(*p_axes),) + arg_axes
    if not (any(a == 0 for a in p_axes) or any(a == 0 for a in arg_axes)):
        return jax.jit(core)
    vm = jax.vmap(core, in_axes=axes)
    if chunk is None:
        return jax.jit(vm)

    def chunked(*args):
        leaves, treedef = jax.tree_util.tree_flatten(args)
        ax = jax.tree_util.tree_leaves(axes, is_leaf=lambda x: x is None)
        idx = [i for i, a in enumerate(ax) if a == 0]
        xs = [leaves[i].reshape((-1, chunk) + leaves[i].shape[1:]) for i in idx]

        def body(part):
            cur = list(leaves)
            for i, x in zip(idx, part, strict=True):
                cur[i] = x
            return vm(*jax.tree_util.tree_unflatten(treedef, cur))

        out = jax.lax.map(body, xs)
        return jax.tree_util.tree_map(lambda o: o.reshape((-1,) + o.shape[2:]), out)

    return jax.jit(chunked)


def params_to_jax(arm, dtype="float64") -> ArmParams:
    """The arm's parameters as JAX arrays of ``dtype`` (call inside :func:`scope` for float64)."""
    p = as_params(arm)
    d = _dtype(dtype)
    fields: list[Any] = [jnp.asarray(np.asarray(x, dtype=np.float64), dtype=d) for x in p]
    return ArmParams(*fields)


_EXECUTABLES: dict = {}


def run_timed(fn, args, key, timing: dict | None):
    """Call the jitted ``fn`` on ``args`` through an ahead-of-time compiled executable (cached under ``key`` and
    the arguments' shapes), filling ``timing`` with ``compile_s`` (0 when cached) and ``run_s`` (to completion)."""
    import time

    sig = (key, tuple((tuple(x.shape), str(x.dtype)) for x in jax.tree_util.tree_leaves(args)))
    t0 = time.perf_counter()
    exe = _EXECUTABLES.get(sig)
    if exe is None:
        exe = fn.lower(*args).compile()
        if len(_EXECUTABLES) > 64:
            _EXECUTABLES.clear()
        _EXECUTABLES[sig] = exe
    t1 = time.perf_counter()
    out = jax.block_until_ready(exe(*args))
    if timing is not None:
        timing.update(compile_s=t1 - t0, run_s=time.perf_counter() - t1)
    return out


def _call(core_key, arm, arrays, dtype, precision, extra=(), extra_axes=(), timing=None):
    d = _dtype(dtype)
    with _Scope(d, precision):
        p = params_to_jax(arm, d)
        n = p.L.shape[-1]
        p_axes = tuple(0 if x.ndim == 2 else None for x in p)  # (N, n) fields, (N, 2) gravity: one per arm
        arrs = [jnp.asarray(a, dtype=d) for a in arrays]
        for a in arrs:
            if a.shape[-1] != n:
                raise ValueError(f"expected states with {n} joints (last axis), got shape {a.shape}")
        axes = tuple(0 if a.ndim == 2 else None for a in arrs) + tuple(extra_axes)
        args = (p, *arrs, *extra)
        leaves, treedef = jax.tree_util.tree_flatten(args)
        ax = jax.tree_util.tree_leaves((ArmParams(*p_axes),) + axes, is_leaf=lambda x: x is None)
        N = max((x.shape[0] for x, a in zip(leaves, ax, strict=True) if a == 0), default=0)
        chunk = CPU_CHUNK if (CPU_CHUNK and N > CPU_CHUNK and jax.default_backend() == "cpu") else None
        if chunk:  # pad the batch to whole chunks with copies of the last arm; trimmed below
            pad = -N % chunk
            leaves = [jnp.concatenate([x, jnp.repeat(x[-1:], pad, axis=0)]) if a == 0 and pad else x
                      for x, a in zip(leaves, ax, strict=True)]
            args = jax.tree_util.tree_unflatten(treedef, leaves)
        fn = _compiled(core_key, p_axes, axes, d == np.float64, precision, chunk)
        if timing is None:
            out = fn(*args)
        else:
            out = run_timed(fn, args, (core_key, p_axes, axes, d == np.float64, precision, chunk), timing)
        return jax.tree_util.tree_map(lambda o: o[:N], out) if chunk else out


def mass_matrix(arm, q, dtype="float64", precision="highest"):
    """M(q), (…, n, n)."""
    return _call("mass_matrix", arm, [q], dtype, precision)


def coriolis(arm, q, qd, dtype="float64", precision="highest"):
    """C(q, q̇) q̇, (…, n)."""
    return _call("coriolis", arm, [q, qd], dtype, precision)


def coriolis_matrix(arm, q, qd, dtype="float64", precision="highest"):
    """C(q, q̇), Christoffel symbols of M (Ṁ − 2C skew-symmetric), (…, n, n)."""
    return _call("coriolis_matrix", arm, [q, qd], dtype, precision)


def gravity(arm, q, dtype="float64", precision="highest"):
    """G(q) = ∂U/∂q, (…, n)."""
    return _call("gravity", arm, [q], dtype, precision)


def inverse_dynamics(arm, q, qd, qdd, dtype="float64", precision="highest"):
    """τ = M q̈ + C q̇ + G + F, (…, n)."""
    return _call("inverse_dynamics", arm, [q, qd, qdd], dtype, precision)


def forward_dynamics(arm, q, qd, tau, dtype="float64", precision="highest"):
    """q̈ = M⁻¹ (τ − C q̇ − G − F), (…, n)."""
    return _call("forward_dynamics", arm, [q, qd, tau], dtype, precision)


def kinetic_energy(arm, q, qd, dtype="float64", precision="highest"):
    return _call("kinetic_energy", arm, [q, qd], dtype, precision)


def potential_energy(arm, q, dtype="float64", precision="highest"):
    return _call("potential_energy", arm, [q], dtype, precision)


def total_energy(arm, q, qd, dtype="float64", precision="highest"):
    return kinetic_energy(arm, q, qd, dtype, precision) + potential_energy(arm, q, dtype, precision)


@dataclass(frozen=True)
class RolloutOptions:
    """The keywords of :func:`rollout` beyond the step: states kept every ``save_every`` steps (None: start and end
    only), the ``dtype`` ("float64" | "float32") and matmul ``precision``, and a ``timing`` dict to fill."""

    save_every: int | None = None
    dtype: Any = "float64"
    precision: str = "highest"
    timing: dict | None = None


class RolloutKeywords(TypedDict, total=False):
    """The keywords of :func:`rollout`: the fields of :class:`RolloutOptions`."""

    save_every: int | None
    dtype: Any
    precision: str
    timing: dict | None


def rollout(arm, q0, qd0, tau, dt: float, steps: int | None = None, method: str = "rk4",
            **options: Unpack[RolloutKeywords]):
    """Integrate from (q0, q̇0) with the torque held over each step (zero-order hold).

    ``tau``: a sequence, (K, n) shared by every arm or (N, K, n) one per arm; or, when ``steps`` is given,
    a constant torque (n,) or (N, n) held for all ``steps``.  ``method``: ``rk4``, ``semi-implicit-euler``
    or ``euler`` (one step as in :mod:`crossdyn.analytic.integrators`).  Returns (q, q̇) at steps
    0, s, 2s, …, K (s = ``save_every``, default K: start and end only), shape (K/s + 1, n), or
    (N, K/s + 1, n) when anything is batched.  A diverging arm turns non-finite; nothing stops the batch.
    Keywords (:class:`RolloutOptions`): ``save_every``, ``dtype`` ("float64"), ``precision`` ("highest");
    ``timing`` (a dict) receives ``compile_s`` and ``run_s`` (see :func:`run_timed`).
    """
    opts = RolloutOptions(**options)
    save_every, dtype, precision, timing = opts.save_every, opts.dtype, opts.precision, opts.timing
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    if not (np.isfinite(dt) and dt > 0):
        raise ValueError(f"dt must be > 0, got {dt!r}")
    tau_np = np.asarray(tau)
    const = steps is not None
    if steps is not None:
        K = int(steps)
        tau_batched = tau_np.ndim == 2
    else:
        if tau_np.ndim not in (2, 3):
            raise ValueError(f"tau: expected (K, n) or (N, K, n), got shape {tau_np.shape}")
        K = tau_np.shape[-2]
        tau_batched = tau_np.ndim == 3
    s = K if save_every is None else int(save_every)
    if K < 1 or s < 1 or K % s:
        raise ValueError(f"steps ({K}) must be a positive multiple of save_every ({s})")
    d = _dtype(dtype)
    with _Scope(d, precision):
        tau_j = jnp.asarray(tau_np, dtype=d)
        dt_j = jnp.asarray(dt, dtype=d)
    # the torque's vmap axis: 0 if batched; shape checks through _call for the states
    return _call((method, K, s, const), arm, [q0, qd0], d, precision, extra=(tau_j, dt_j),
                 extra_axes=(0 if tau_batched else None, None), timing=timing)


def device_kind() -> str:
    """The platform JAX computes on (``cpu``, ``gpu``, ``tpu``) and its first device."""
    dev = jax.devices()[0]
    return f"{dev.platform}: {getattr(dev, 'device_kind', str(dev))}"
