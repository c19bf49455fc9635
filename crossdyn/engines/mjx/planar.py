"""MuJoCo MJX (JAX) as an engine, built from the generated MJCF, in float32 as MJX runs.

Registry names: ``mjx`` (= ``mjx-euler``, semi-implicit Euler, ``eulerdamp`` disabled as for C MuJoCo) and
``mjx-rk4``.  The model is the generated MJCF compiled by C MuJoCo and put on the JAX device
(``mjx.put_model``); every option MJX does not support is cleared first and listed in :meth:`config`:

* ``energy`` enable flag (the MJCF sets it for C MuJoCo's energy queries): MJX rejects it
  (``NotImplementedError: mjENBL_ENERGY``).  It changes no dynamics; MJX computes no energy, so
  :meth:`MJXEngine.energy` forms T = ½ q̇ᵀ M q̇ from MJX's own mass matrix and U = −Σ m g·p_c from
  MJX's own centres of mass (``xipos``).
* ``autoreset`` (C MuJoCo's reset on a bad acceleration, disabled by crossdyn anyway): MJX has none;
  a diverging arm turns non-finite and stays visible.

Choices that change the numbers, each in :meth:`config` and switchable by ``mjx@key=value``:

* **float32**: MJX allocates its data in JAX's default float type.  Under ``jax_enable_x64`` (on
  globally) ``mjx.make_data`` gives float64 data and MJX then silently runs in float64 — with MJX
  3.17 it does not raise, it changes precision.  This adapter builds and runs MJX inside the scoped
  ``jax.enable_x64(False)``, so it is float32 whatever the global setting (``dtype=float64`` runs
  it in float64 on purpose, for diagnosis).
* **matmul precision**: on NVIDIA GPUs JAX's default precision for float32 matrix products is TF32
  (≈ 10-bit mantissa).  MJX forms M, its factorisation and the RNE with such products, so the
  adapter runs under ``jax.default_matmul_precision("highest")`` (true float32);
  ``precision=default`` restores JAX's default (no effect on a CPU).
* ``eulerdamp`` disabled (Euler's implicit joint damping), as in the C MuJoCo adapter;
  ``eulerdamp=True`` restores MuJoCo's default.
* Coulomb friction (``frictionloss``) is a constraint in MJX as in C MuJoCo (not f_c sign(q̇)).

One arm at a time through the usual :class:`~crossdyn.engines.base.Engine` interface, each call a
jitted MJX function: slow per step on a CPU (≈ 0.1–1 ms of dispatch per step), which is fine for
checking; the batched path (:func:`rollout_batch`, ``vmap`` over arms with per-arm parameters) is
where MJX is fast.
"""
from __future__ import annotations

import contextlib
import io
from dataclasses import dataclass, replace
from functools import lru_cache

import jax
import jax.numpy as jnp
import mujoco  # type: ignore[import-untyped,import-not-found,unused-ignore]
import numpy as np

from crossdyn.engines.base import Capabilities, Engine, EngineError
from crossdyn.models.inertia import ABSOLUTE_FLOOR, RELATIVE_FLOOR, engine_inertias
from crossdyn.models.mjcf import to_mjcf
from crossdyn.models.spec import ArmParams, ArmSpec

with contextlib.redirect_stdout(io.StringIO()):  # mjx prints "Failed to import warp" without the warp extra
    from mujoco import mjx

_INTEGRATORS = {"euler": "Euler", "rk4": "RK4"}
_SCHEMES = {"Euler": "semi-implicit-euler", "RK4": "rk4"}
PRECISIONS = ("highest", "high", "default")
CLEARED_OPTIONS = {
    "energy": "enable flag cleared: MJX rejects mjENBL_ENERGY (it computes no energy; dynamics unchanged)",
    "autoreset": "MJX has no auto-reset: a divergence turns non-finite and stays visible",
}


class _Scope:
    def __init__(self, dtype: str, precision: str):
        self._cms = [jax.enable_x64(dtype == "float64"), jax.default_matmul_precision(precision)]

    def __enter__(self):
        for cm in self._cms:
            cm.__enter__()

    def __exit__(self, *exc):
        for cm in reversed(self._cms):
            cm.__exit__(*exc)


def build_mj_model(spec: ArmSpec, dt: float, integrator: str, eulerdamp: bool = False) -> mujoco.MjModel:
    """The generated MJCF compiled by C MuJoCo, with the options MJX does not support cleared."""
    xml = to_mjcf(spec, timestep=dt, integrator=integrator, eulerdamp=eulerdamp)
    try:
        m = mujoco.MjModel.from_xml_string(xml)
    except ValueError as e:
        raise EngineError(f"mjx: could not build {spec.name!r}: {e}") from None
    m.opt.enableflags &= ~int(mujoco.mjtEnableBit.mjENBL_ENERGY)
    return m


def _check(integrator: str, dtype: str, precision: str) -> str:
    key = str(integrator).lower()
    if key not in _INTEGRATORS:
        raise EngineError(f"mjx integrator: must be one of {', '.join(_INTEGRATORS.values())}, got {integrator!r}")
    if dtype not in ("float32", "float64"):
        raise EngineError(f"mjx dtype: must be float32 or float64, got {dtype!r}")
    if precision not in PRECISIONS:
        raise EngineError(f"mjx precision: must be one of {', '.join(PRECISIONS)}, got {precision!r}")
    return _INTEGRATORS[key]


class MJXEngine(Engine):
    name = "mjx"
    capabilities = Capabilities(native_friction=True, effort=True, tip_frame=True, step_applied=True, rollout=True)
    """MJX's contacts stay disabled and the MJCF's armature is not claimed (reported unsupported); its ``forcerange``
    clamps like C MuJoCo's; the tip is MJX's own ``tip`` site (:meth:`MJXEngine.tip_kinematics`)."""

    def __init__(self, spec: ArmSpec, dt: float = 1e-3, integrator: str = "Euler", eulerdamp: bool = False,
                 dtype: str = "float32", precision: str = "highest"):
        super().__init__(spec, dt)
        self.mujoco_integrator = _check(integrator, dtype, precision)
        self.integrator = _SCHEMES[self.mujoco_integrator]
        self.eulerdamp, self.dtype, self.precision = bool(eulerdamp), dtype, precision
        self.mj_model = build_mj_model(spec, self.dt, self.mujoco_integrator, self.eulerdamp)
        m = self.mj_model
        if m.nq != self.n or m.nv != self.n or m.nu != self.n:
            raise EngineError(f"mjx: model has nq={m.nq}, nv={m.nv}, nu={m.nu}; expected {self.n} each")
        with self._scope():
            self.model = mjx.put_model(m)
            self._data0 = mjx.make_data(self.model)
            self._step = jax.jit(mjx.step)
            self._queries = jax.jit(_queries)  # all four queries in one compiled function (compile time)
            # every Data the adapter hands MJX comes out of a jitted function: a host-made array and a jit
            # output differ in placement, and mixing them makes jit compile mjx.step a second time
            self._set = jax.jit(lambda d, q, qd, u: d.replace(qpos=q, qvel=qd, ctrl=u))
            self._set_ctrl = jax.jit(lambda d, u: d.replace(ctrl=u))
            self._set_applied = jax.jit(lambda d, u, f: d.replace(ctrl=u, qfrc_applied=f))
        self._float = np.dtype(self.dtype)
        self.data = self._data0
        self.reset(np.zeros(self.n), np.zeros(self.n))

    def _scope(self):
        return _Scope(self.dtype, self.precision)

    def _data(self, q, qd=None, tau=None):
        f = self._float
        z = np.zeros(self.n, f)
        return self._set(self._data0, np.asarray(q, f), z if qd is None else np.asarray(qd, f),
                         z if tau is None else np.asarray(tau, f))

    # ------------------------------------------------------------------ simulation
    def reset(self, q, qd) -> None:
        with self._scope():
            self.data = self._data(q, qd)

    def step(self, tau) -> None:
        tau = np.asarray(tau, dtype=float)
        if not np.all(np.isfinite(tau)):
            raise EngineError(f"mjx: control {tau.tolist()} is not finite")
        with self._scope():
            self.data = self._step(self.model, self._set_ctrl(self.data, tau.astype(self._float)))

    def step_applied(self, tau, extra) -> None:
        """One step with the actuators given τ (clamped by their ``forcerange``, if any) and ``extra`` applied
        as a generalized force around them (``qfrc_applied``; the runner's limit, friction and contact torques),
        like :meth:`crossdyn.engines.mujoco.planar.MujocoEngine.step_applied`; the next plain step applies none."""
        tau, extra = np.asarray(tau, dtype=float), np.asarray(extra, dtype=float)
        if not (np.all(np.isfinite(tau)) and np.all(np.isfinite(extra))):
            raise EngineError(f"mjx: control {tau.tolist()} or applied force {extra.tolist()} is not finite")
        f = self._float
        with self._scope():
            self.data = self._step(self.model, self._set_applied(self.data, tau.astype(f), extra.astype(f)))
            self.data = self._set_applied(self.data, tau.astype(f), np.zeros(self.n, f))

    def state(self):
        return np.asarray(self.data.qpos, dtype=float), np.asarray(self.data.qvel, dtype=float)

    def rollout(self, tau: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The whole open-loop torque sequence ``tau`` (K, n) in one jitted ``lax.scan`` (the runner's fast
        path); returns the K states after each step and leaves the engine at the last one."""
        tau = np.asarray(tau, dtype=float)
        if not np.all(np.isfinite(tau)):
            raise EngineError("mjx: a control in the torque sequence is not finite")
        with self._scope():
            fn = _scan_rollout(self.model.opt.integrator)
            self.data, (Q, QD) = fn(self.model, self.data, jnp.asarray(tau.astype(self._float)))
        return np.asarray(Q, dtype=float), np.asarray(QD, dtype=float)

    # ------------------------------------------------------------------ queries
    def _query(self, q, qd=None, tau=None, qdd=None):
        z = np.zeros(self.n, self._float)
        with self._scope():
            out = self._queries(self.model, self._data(q, qd, tau), z if qdd is None else np.asarray(qdd, self._float))
        return [np.asarray(x, dtype=float) for x in out]

    def inverse_dynamics(self, q, qd, qdd):
        return self._query(q, qd, qdd=qdd)[1]

    def mass_matrix(self, q):
        M = self._query(q)[2]
        return 0.5 * (M + M.T)

    def forward_dynamics(self, q, qd, tau):
        return self._query(q, qd, tau)[0]

    def energy(self, q, qd):
        """T = ½ q̇ᵀ M q̇ (MJX's M), U = −Σ m g·p_c (MJX's body centres ``xipos``); MJX has no energy of its own."""
        qd = np.asarray(qd, dtype=float)
        _, _, M, xipos = self._query(q)
        mass = np.asarray(self.mj_model.body_mass, dtype=float)
        g = np.asarray(self.mj_model.opt.gravity, dtype=float)
        return 0.5 * float(qd @ M @ qd), float(-np.sum(mass * (xipos @ g)))

    tip_source = ("MJX site 'tip' at the state (the engine's dtype): kinematics, com_pos, com_vel; site_xpos, the "
                  "site body's cvel moved to the site, J = jax.jacfwd of site_xpos through mjx.kinematics")

    def tip_kinematics(self, q=None, qd=None):
        """The ``tip`` site's world position, linear velocity and translational Jacobian (x–y rows), by MJX at
        (q, q̇) or the simulated state (:func:`_tip`, jitted once per engine)."""
        m = self.mj_model
        fn = self.__dict__.get("_tip_fn")
        if fn is None:
            sid = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_SITE, "tip")
            if sid < 0:
                raise EngineError("mjx: the model has no 'tip' site (the arm has no [contact])")
            body = int(m.site_bodyid[sid])
            with self._scope():
                fn = self._tip_fn = jax.jit(lambda mx, d: _tip(mx, d, sid, body, int(m.body_rootid[body])))
        if q is None:
            q, qd = self.state()
        with self._scope():
            x, v, J = fn(self.model, self._data(q, qd))
        return (np.asarray(x, dtype=float)[:2], np.asarray(v, dtype=float)[:2], np.asarray(J, dtype=float)[:2])

    # ------------------------------------------------------------------ description
    def config(self) -> dict:
        m = self.mj_model
        _, subs = engine_inertias(self.spec)
        return {
            "engine": "mjx", "version": mujoco.__version__, "jax_version": jax.__version__,
            "device": str(jax.devices()[0]), "integrator": self.integrator, "mujoco_integrator": self.mujoco_integrator,
            "dt": float(m.opt.timestep), "model_source": "generated MJCF (C MuJoCo compiler) -> mjx.put_model",
            "dtype": self.dtype,
            "x64": "MJX built and run under the scoped jax.enable_x64(" + str(self.dtype == "float64") + ")",
            "precision": self.precision,
            "precision_note": "jax.default_matmul_precision around every MJX call; 'default' is TF32 for float32 "
                              "matrix products on NVIDIA GPUs, true float32 on a CPU",
            "eulerdamp": self.eulerdamp, "cleared_options": dict(CLEARED_OPTIONS),
            "enableflags": [k for k, v in mujoco.mjtEnableBit.__members__.items()
                            if not k.endswith("NENABLE") and int(m.opt.enableflags) & int(v)],
            "gravity": [float(g) for g in m.opt.gravity],
            "torque_input": "data.ctrl -> motor actuators (gear 1, no ctrl limits)",
            "torque_sampling": "zero-order hold at step start",
            "joint_damping": [float(x) for x in m.dof_damping],
            "damping_treatment": ("implicit (eulerdamp enabled)" if self.eulerdamp and self.mujoco_integrator == "Euler"
                                  else "explicit"),
            "joint_frictionloss": [float(x) for x in m.dof_frictionloss],
            "coulomb_friction_model": "MJX frictionloss: soft dry-friction constraint, not f_c*sign(qd)",
            "armature": [float(x) for x in m.dof_armature],
            "contacts": "disabled (flag contact=disable, contype=conaffinity=0)",
            "masses": [float(x) for x in m.body_mass[1:]],
            "inertia_substitutions": [s.as_dict() for s in subs],
            "energy": "computed by the adapter from MJX's M and xipos (MJX has no energy)",
            "inverse_dynamics": "mjx.inverse (qacc set first); qfrc_inverse includes damping*qd",
            "stepping": "one jitted mjx.step per call (slow per step); open-loop profiles in one jitted scan",
        }


def _queries(mx, d, qacc):
    """(q̈ from mjx.forward, qfrc_inverse for ``qacc``, M, body centres of mass) at the state in ``d``."""
    fwd = mjx.forward(mx, d)
    inv = mjx.inverse(mx, fwd.replace(qacc=qacc))
    return fwd.qacc, inv.qfrc_inverse, mjx.full_m(mx, fwd), fwd.xipos


def _tip(mx, d, site: int, body: int, root: int):
    """MJX's ``site`` at the state in ``d``: x = ``site_xpos``, ẋ = v + ω × (x − c) from the site body's ``cvel``
    (rot:lin about c, the subtree centre of mass of its root), J = ∂x/∂q by ``jax.jacfwd`` through
    ``mjx.kinematics``."""
    k = mjx.com_vel(mx, mjx.com_pos(mx, mjx.kinematics(mx, d)))
    x = k.site_xpos[site]
    J = jax.jacfwd(lambda q: mjx.kinematics(mx, d.replace(qpos=q)).site_xpos[site])(d.qpos)
    cvel = k.cvel[body]
    return x, cvel[3:] + jnp.cross(cvel[:3], x - k.subtree_com[root]), J


@lru_cache(maxsize=8)
def _scan_rollout(integrator):
    def run(mx, d, tau):
        def body(d, u):
            d = mjx.step(mx, d.replace(ctrl=u))
            return d, (d.qpos, d.qvel)
        return jax.lax.scan(body, d, tau)
    return jax.jit(run)


# ---------------------------------------------------------------------------------------- batch
BATCHED_FIELDS = ("body_pos", "body_ipos", "body_mass", "body_inertia", "body_subtreemass", "dof_damping",
                  "dof_frictionloss")
"""Model fields that carry an arm's parameters in the MJCF; the batch path gives each arm its own."""


def batched_fields(spec: ArmSpec, p: ArmParams) -> dict:
    """Per-arm values (leading axis N) of :data:`BATCHED_FIELDS` for the parameter sets ``p`` (fields (N, n)),
    as the MJCF of each arm would compile them (link i+1 at (L_i, 0, 0); centre of mass at (Lc, 0, 0);
    inertia diag(J, J, J) with the point-mass floor of :func:`crossdyn.models.inertia.inertia_floor`)."""
    L, m, Lc, J, b, fc = (np.asarray(x, dtype=float) for x in p[:6])
    N, n = L.shape
    pos = np.zeros((N, n + 1, 3))
    pos[:, 2:, 0] = L[:, :-1]
    ipos = np.zeros((N, n + 1, 3))
    ipos[:, 1:, 0] = Lc
    mass = np.zeros((N, n + 1))
    mass[:, 1:] = m
    floor = np.maximum(RELATIVE_FLOOR * m * L**2, ABSOLUTE_FLOOR)  # inertia_floor(link), vectorised
    Jz = np.where(J < floor, floor, J)
    inertia = np.zeros((N, n + 1, 3))
    inertia[:, 1:, :] = Jz[:, :, None]
    subtree = np.zeros((N, n + 1))
    subtree[:, 1:] = np.cumsum(m[:, ::-1], axis=1)[:, ::-1]
    subtree[:, 0] = subtree[:, 1]
    return {"body_pos": pos, "body_ipos": ipos, "body_mass": mass, "body_inertia": inertia,
            "body_subtreemass": subtree, "dof_damping": b, "dof_frictionloss": fc}


@lru_cache(maxsize=16)
def _batch_fn(steps: int, save_every: int, const_tau: bool, tau_batched: bool):
    def one(mx, d0, q0, qd0, tau):
        d = d0.replace(qpos=q0, qvel=qd0)

        def inner(d, u):
            return mjx.step(mx, d.replace(ctrl=tau if const_tau else u)), None

        def outer(d, chunk):
            d, _ = jax.lax.scan(inner, d, chunk, length=save_every)
            return d, (d.qpos, d.qvel)

        chunks = None if const_tau else tau.reshape((steps // save_every, save_every) + tau.shape[1:])
        _, (Q, QD) = jax.lax.scan(outer, d, chunks, length=steps // save_every)
        return jnp.concatenate([q0[None], Q]), jnp.concatenate([qd0[None], QD])

    def batched(mx, axes, d0, q0, qd0, tau):
        return jax.vmap(one, in_axes=(axes.tree, None, 0, 0, 0 if tau_batched else None))(mx, d0, q0, qd0, tau)

    return jax.jit(batched, static_argnums=(1,))


@dataclass(frozen=True)
class BatchOptions:
    """How :func:`rollout_batch` runs: ``steps`` (None: the torque's K; a number: the torque held constant for that
    many steps), the MuJoCo ``integrator`` (Euler, RK4), ``save_every`` (None: only the first and last state),
    ``dtype`` and matmul ``precision`` (as :class:`MJXEngine`'s), ``eulerdamp``."""

    steps: int | None = None
    integrator: str = "RK4"
    save_every: int | None = None
    dtype: str = "float32"
    precision: str = "highest"
    eulerdamp: bool = False


def rollout_batch(spec: ArmSpec, params: ArmParams, q0, qd0, tau, dt: float, options: BatchOptions | None = None,
                  **knobs):
    """N arms at once on MJX: ``params`` fields (N, n) (gravity and the MJCF's other options from ``spec``),
    starts (N, n), torque (K, n) / (N, K, n), or held constant ((n,) / (N, n)) for ``options.steps``.

    ``options`` (:class:`BatchOptions`; the defaults when None) with any keyword knob of it replaced; the keyword
    ``timing`` (a dict) receives ``compile_s`` and ``run_s``.  The model is ``spec``'s generated MJCF with
    :data:`BATCHED_FIELDS` replaced per arm and mapped with ``vmap``.  Returns (q, q̇) at steps 0, s, …, K as
    NumPy float64 copies of MJX's values, (N, K/s + 1, n).
    """
    from crossdyn.analytic.jax_model import run_timed

    timing: dict | None = knobs.pop("timing", None)
    opt = replace(options or BatchOptions(), **knobs)
    steps, integrator, save_every, dtype = opt.steps, opt.integrator, opt.save_every, opt.dtype
    precision, eulerdamp = opt.precision, opt.eulerdamp
    mj_integrator = _check(integrator, dtype, precision)
    m = build_mj_model(spec, dt, mj_integrator, eulerdamp)
    tau = np.asarray(tau, dtype=float)
    const = steps is not None
    K = int(steps) if steps is not None else tau.shape[-2]
    tau_batched = tau.ndim == (2 if const else 3)
    s = K if save_every is None else int(save_every)
    if K < 1 or K % s:
        raise ValueError(f"steps ({K}) must be a positive multiple of save_every ({s})")
    f = np.dtype(dtype)
    with _Scope(dtype, precision):
        mx = mjx.put_model(m)
        d0 = mjx.make_data(mx)
        fields = {k: jnp.asarray(v.astype(f)) for k, v in batched_fields(spec, params).items()}
        mx = mx.tree_replace(fields)
        axes = jax.tree_util.tree_map(lambda _: None, mx).tree_replace({k: 0 for k in fields})
        fn = _batch_fn(K, s, const, tau_batched)
        static = _Hashable(axes)
        args = (mx, d0, jnp.asarray(np.asarray(q0, f)), jnp.asarray(np.asarray(qd0, f)), jnp.asarray(tau.astype(f)))
        run = jax.jit(lambda *a: fn(a[0], static, *a[1:]))
        Q, QD = run_timed(run, args, ("mjx", mj_integrator, K, s, const, tau_batched, dtype, precision, eulerdamp,
                                      spec.n, float(dt), str(jax.tree_util.tree_structure((mx, d0)))), timing)
        return np.asarray(Q, dtype=float), np.asarray(QD, dtype=float)


class _Hashable:
    """A pytree of vmap axes passed as a static argument (hashed by identity of its structure)."""

    def __init__(self, tree):
        self.tree = tree
        leaves, treedef = jax.tree_util.tree_flatten(tree, is_leaf=lambda x: x is None)
        self._key = (str(treedef), tuple(leaves))

    def __hash__(self):
        return hash(self._key)

    def __eq__(self, other):
        return isinstance(other, _Hashable) and self._key == other._key
