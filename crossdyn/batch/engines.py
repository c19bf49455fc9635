"""Batched engines: N arms (one parameter set and start each) under one shared open-loop torque sequence.

Every runner takes a :class:`BatchProblem` (``p`` an :class:`~crossdyn.models.spec.ArmParams` of (N, n) fields,
starts (N, n), ``tau`` (K, n) held over each step: zero-order hold) and returns q, q̇ at steps 0, s, 2s, …, K as
float64 arrays (N, K/s + 1, n); :func:`run_batch_engine` wraps them in a :class:`BatchRun`.

=================  =============================================================  =========  ========
name               engine                                                         integrator dtype
=================  =============================================================  =========  ========
jax-rk4            crossdyn's analytic model on JAX (:mod:`crossdyn.analytic.jax_model`)  rk4   float64
jax-rk4-f32        … in float32                                                   rk4        float32
jax-euler          … semi-implicit Euler                                          s-i Euler  float64
jax-euler-f32      … semi-implicit Euler in float32                               s-i Euler  float32
numpy-rk4          the NumPy model, batched (``analytic.integrators`` steps)      rk4        float64
numpy-euler        … semi-implicit Euler                                          s-i Euler  float64
mujoco-rk4         C MuJoCo, ``mujoco.rollout`` with one compiled model per arm   rk4        float64
mujoco             … Euler (eulerdamp disabled)                                   s-i Euler  float64
mjx-rk4            MuJoCo MJX, ``vmap`` over arms with per-arm model fields       rk4        float32
mjx                … Euler (eulerdamp disabled)                                   s-i Euler  float32
mujoco-warp        MuJoCo Warp, one world per arm, per-world model fields         s-i Euler  float32
mujoco-warp-rk4    … RK4                                                          rk4        float32
newton             NVIDIA Newton ``SolverFeatherstone``, one world per arm         s-i Euler  float32
genesis            Genesis, one entity per arm (its own MJCF) in one scene        s-i Euler  float32
=================  =============================================================  =========  ========

The float64 JAX run of the same integrator is each engine's reference (:mod:`crossdyn.batch.compare`).  The names,
their integrators, dtypes, extras and the default list are rows of the one engine table
(:mod:`crossdyn.engines.registry`: an entry's ``batch`` runner), so a name means the same scheme with ``--batch``
as on one arm; this module holds the runners and the knobs they honour.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from crossdyn.engines import registry as _registry
from crossdyn.models.spec import ArmParams, ArmSpec
from crossdyn.status import RunStatus

MUJOCO_MAX_ARMS = 20_000
"""``mujoco`` / ``mujoco-rk4`` compile one C MuJoCo model per arm (≈ 1 ms each): beyond this many arms they are skipped."""


@dataclass(frozen=True)
class BatchEngine:
    name: str
    library: str
    integrator: str       # as in crossdyn.analytic.integrators
    dtype: str
    description: str


def _from_table() -> dict[str, BatchEngine]:
    """The batched engines: the names of the one engine table (:mod:`crossdyn.engines.registry`) that have a
    batched runner, with the table's integrator (the same scheme as the name's single-arm run)."""
    from crossdyn.engines.registry import batched

    return {name: BatchEngine(name, e.batch, e.integrator, e.batch_dtype, e.batch_note)
            for name, e in batched().items()}


ENGINES = _from_table()
DEFAULT_ENGINES = _registry.defaults("batch")
REFERENCE = {"rk4": "jax-rk4", "semi-implicit-euler": "jax-euler"}


@dataclass(frozen=True)
class Knob:
    """One ``name@key=value`` of a batched engine: a field of the single-arm adapter's options dataclass
    (:attr:`BatchEngine.options`) that the batched runner honours.  ``kind``: ``bool``, ``number`` (finite, at
    least ``minimum``) or ``choice`` (one of ``choices``); ``engine_default``: the library's own value, which
    crossdyn's setting (the dataclass default) neutralises; ``what``: what the engine's default would do."""

    name: str
    kind: str
    engine_default: object
    what: str
    choices: tuple = ()
    minimum: float | None = None

    def check(self, engine: str, value: object, valid: str) -> None:
        """Raise :class:`~crossdyn.errors.EngineError` naming ``engine``, the key and the value if ``value`` is
        not of this knob's kind, with the engine's valid keys ``valid``."""
        from crossdyn.errors import EngineError

        if self.kind == "bool":
            ok, expect = isinstance(value, bool), "true or false"
        elif self.kind == "number":
            ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) \
                and (self.minimum is None or value >= self.minimum)
            expect = "a finite number" + (f" >= {self.minimum:g}" if self.minimum is not None else "")
        else:
            ok, expect = value in self.choices, "one of " + ", ".join(map(str, self.choices))
        if not ok:
            raise EngineError(f"engine {engine!r}: option {self.name}={_shown(value)}: must be {expect}; it takes: "
                              f"{valid}")


def _shown(value: object) -> str:
    """A knob's value as it was typed (``true``, not ``True``)."""
    return str(value).lower() if isinstance(value, bool) else str(value)


_EULERDAMP = Knob("eulerdamp", "bool", True, "MuJoCo's implicit joint damping under Euler (no effect under RK4)")
_DEVICE = Knob("device", "choice", "auto", "Warp's device: auto (a CUDA GPU, else the CPU), cpu or cuda",
               ("auto", "cpu", "cuda"))
KNOBS: dict[str, tuple[str, tuple[Knob, ...]]] = {
    "mujoco": ("crossdyn.engines.mujoco_engine:MuJoCoOptions", (
        _EULERDAMP,
        Knob("autoreset", "bool", True, "MuJoCo's silent reset of an arm on a bad acceleration"))),
    "mjx": ("crossdyn.engines.mjx_engine:BatchOptions", (
        _EULERDAMP,
        Knob("precision", "choice", "default", "JAX's matmul precision for MJX (default: TF32 on NVIDIA GPUs; "
             "overrides --precision for this engine)", ("highest", "high", "default")))),
    "mujoco-warp": ("crossdyn.engines.mujoco_warp_engine:MuJoCoWarpOptions", (_EULERDAMP, _DEVICE)),
    "newton": ("crossdyn.engines.newton_engine:NewtonOptions", (
        Knob("angular_damping", "number", 0.05, "SolverFeatherstone's angular damping (not applied to "
             "articulated joints in Newton 1.8)", minimum=0.0),
        Knob("newton_gravity", "bool", True, "Newton's builder gravity, -9.81 along +z (the MJCF's ignored)"),
        Knob("validate_inertia", "bool", True, "finalize's validation and correction of the inertias"),
        _DEVICE)),
    "genesis": ("crossdyn.engines.genesis_engine:GenesisOptions", (
        Knob("armature_default", "bool", True, "gs.morphs.MJCF's default_armature: 0.1 kg m² on every joint"),)),
}
"""Per batched library: its knobs' options dataclass (``module:Class``, the single-arm adapter's, imported when the
engine runs) and the knobs the batched runner honours.  A library not listed (``jax``, ``numpy``: crossdyn's own
model) takes none.  Declared here so that a bad ``--engines`` is refused before a library is imported;
tests/test_batch_knobs.py checks every knob against its dataclass."""


def split_batch_engine(name: str) -> tuple[str, dict]:
    """``"newton@angular_damping=0.05"`` → ("newton", {"angular_damping": 0.05}), parsed as the single-arm
    registry parses engine names (:func:`crossdyn.engines.registry.split_options`) and checked against the
    batched engine's :data:`KNOBS`.  Raises :class:`~crossdyn.errors.EngineError` naming the engine, the key and
    the value, with the keys the engine takes (as :func:`crossdyn.engines.registry.make_engine`)."""
    from crossdyn.engines.registry import split_options
    from crossdyn.errors import EngineError

    base, options = split_options(name)
    if base not in ENGINES:
        raise EngineError(f"unknown batched engine {base!r}; the batched engines are: {', '.join(ENGINES)}")
    library = ENGINES[base].library
    if library not in KNOBS:
        if options:
            raise EngineError(f"engine {base!r}: takes no options (crossdyn's own model: no engine default to switch "
                              f"back); got {', '.join(f'{k}={_shown(v)}' for k, v in options.items())}")
        return base, options
    knobs = {k.name: k for k in KNOBS[library][1]}
    valid = ", ".join(knobs)
    unknown = [k for k in options if k not in knobs]
    if unknown:
        raise EngineError(f"engine {base!r}: unknown option(s) {', '.join(f'{k}={_shown(options[k])}' for k in unknown)}; "
                          f"it takes: {valid}")
    for key, value in options.items():
        knobs[key].check(base, value, valid)
    return base, options


def batch_engine_list(text: str, label: str = "engines") -> tuple[str, ...]:
    """A comma-separated list of batched engines (split as the single-arm list,
    :func:`crossdyn.engines.registry.split_engine_list`), each checked by :func:`split_batch_engine`; an
    :class:`~crossdyn.errors.EngineError` names ``label``, the engine, the key and the value."""
    from crossdyn.engines.registry import split_engine_list
    from crossdyn.errors import EngineError

    engines = tuple(split_engine_list(text))
    bad = [e for e in engines if e.split("@", 1)[0] not in ENGINES]
    if bad or not engines:
        raise EngineError(f"{label}: {', '.join(bad) or repr(text)} is not a batched engine; with --batch the "
                          f"engines are: {', '.join(ENGINES)}")
    for name in engines:
        try:
            split_batch_engine(name)
        except EngineError as e:
            raise EngineError(f"{label} {name}: {e}") from None
    return engines


def engine_of(name: str) -> BatchEngine:
    """The :class:`BatchEngine` of ``name`` (its knobs after ``@`` checked by :func:`split_batch_engine`)."""
    return ENGINES[split_batch_engine(name)[0]]


def batch_options(engine: BatchEngine, knobs: dict):
    """The engine's options dataclass with ``knobs`` set (None for an engine that takes none)."""
    import importlib

    if engine.library not in KNOBS:
        return None
    module, cls = KNOBS[engine.library][0].split(":")
    return getattr(importlib.import_module(module), cls)(**knobs)


def knob_config(engine: BatchEngine, options) -> dict:
    """Every knob of ``engine`` for its run's config: the value used, crossdyn's setting (the dataclass default),
    the engine's own default and what it does; ``switched_back`` where the run used the engine's own."""
    if options is None:
        return {}
    base = type(options)()
    return {k.name: {"used": getattr(options, k.name), "crossdyn": getattr(base, k.name),
                     "engine_default": k.engine_default, "what": k.what,
                     "switched_back": getattr(options, k.name) != getattr(base, k.name)
                     and getattr(options, k.name) == k.engine_default}
            for k in KNOBS[engine.library][1]}


@dataclass(frozen=True)
class BatchProblem:
    """What every batched engine is given: N arms (``p`` of (N, n) fields), their starts ``q0``, ``qd0`` (N, n),
    the shared torque sequence ``tau`` (K, n) held over each step of ``dt``, and the sampling: q, q̇ are kept at
    steps 0, ``save_every``, 2 ``save_every``, …, K.  ``precision`` is JAX's matmul precision."""

    spec: ArmSpec
    p: ArmParams
    q0: np.ndarray
    qd0: np.ndarray
    tau: np.ndarray
    dt: float
    save_every: int
    precision: str = "highest"

    @classmethod
    def of(cls, spec: ArmSpec, p: ArmParams, starts, tau, dt: float, save_every: int,
           precision: str = "highest") -> "BatchProblem":
        """The problem with ``starts = (q0, qd0)`` and ``tau`` as float64 arrays."""
        q0, qd0 = starts
        return cls(spec, p, np.asarray(q0, float), np.asarray(qd0, float), np.asarray(tau, float), dt,
                   save_every, precision)


@dataclass
class BatchRun:
    name: str
    q: np.ndarray | None
    qd: np.ndarray | None
    status: RunStatus = RunStatus.OK  # ok | failed | skipped
    message: str = ""
    wall_s: float = 0.0            # whole call
    compile_s: float | None = None  # JIT compilation (JAX engines), or per-arm model compilation (mujoco)
    run_s: float = 0.0             # stepping alone
    config: dict = field(default_factory=dict)


_Output = tuple  # (Q, QD, compile_s, run_s, config)


def _jax(engine: BatchEngine, pb: BatchProblem, knobs: dict) -> _Output:
    from crossdyn.analytic import jax_model

    timing: dict = {}
    Q, QD = jax_model.rollout(pb.p, pb.q0, pb.qd0, pb.tau, pb.dt, method=engine.integrator, save_every=pb.save_every,
                              dtype=engine.dtype, precision=pb.precision, timing=timing)
    cfg = {"dtype": engine.dtype, "precision": pb.precision, "device": jax_model.device_kind(),
           "x64": f"scoped jax.enable_x64({engine.dtype == 'float64'})"}
    return np.asarray(Q, float), np.asarray(QD, float), timing["compile_s"], timing["run_s"], cfg


def _mjx(engine: BatchEngine, pb: BatchProblem, knobs: dict) -> _Output:
    from crossdyn.engines import mjx_engine

    timing: dict = {}
    integ = "RK4" if engine.integrator == "rk4" else "Euler"
    # --precision (the problem's) unless the engine's own knob says otherwise
    opt = batch_options(engine, {"precision": pb.precision, **knobs})
    Q, QD = mjx_engine.rollout_batch(pb.spec, pb.p, pb.q0, pb.qd0, pb.tau, pb.dt, integrator=integ,
                                     save_every=pb.save_every, precision=opt.precision, eulerdamp=opt.eulerdamp,
                                     timing=timing)
    import jax

    cfg = {"dtype": "float32", "precision": opt.precision, "device": str(jax.devices()[0]), "eulerdamp": opt.eulerdamp,
           "cleared_options": dict(mjx_engine.CLEARED_OPTIONS), "batched_fields": list(mjx_engine.BATCHED_FIELDS),
           "knobs": knob_config(engine, opt)}
    return Q, QD, timing["compile_s"], timing["run_s"], cfg


def _numpy(engine: BatchEngine, pb: BatchProblem, knobs: dict) -> _Output:
    from crossdyn.analytic.dynamics import forward_dynamics
    from crossdyn.analytic.integrators import STEPS

    step, p, s = STEPS[engine.integrator], pb.p, pb.save_every

    def fd(q, qd, u):
        return forward_dynamics(p, q, qd, u)

    K = pb.tau.shape[0]
    q, qd = np.array(pb.q0, float), np.array(pb.qd0, float)
    Q = np.empty((q.shape[0], K // s + 1, q.shape[1]))
    QD = np.empty_like(Q)
    Q[:, 0], QD[:, 0] = q, qd
    t = time.perf_counter()
    with np.errstate(all="ignore"):
        for k in range(K):
            q, qd = step(fd, q, qd, pb.tau[k], pb.dt)
            if (k + 1) % s == 0:
                Q[:, (k + 1) // s], QD[:, (k + 1) // s] = q, qd
    return Q, QD, None, time.perf_counter() - t, {"dtype": "float64", "method": "auto (closed form 2R/3R)"}


def mujoco_models(spec: ArmSpec, p: ArmParams, dt: float, integrator: str, options=None) -> list:
    """One C MuJoCo model per arm, each compiled from that arm's own generated MJCF (as the ``mujoco`` engine,
    with ``options``, a :class:`~crossdyn.engines.mujoco_engine.MuJoCoOptions`; None: its defaults)."""
    from crossdyn.batch.sampling import arm_spec
    from crossdyn.engines.mujoco_engine import MuJoCoEngine

    return [MuJoCoEngine(arm_spec(spec, p, i), dt, integrator=integrator, options=options).model
            for i in range(p.L.shape[0])]


def _mujoco_start_states(mujoco, models, datas, pb: BatchProblem, spec_bits) -> np.ndarray:
    """Each arm's full physics state at its start (q0_i, q̇0_i), as ``mujoco.rollout`` takes it."""
    state = np.empty((pb.q0.shape[0], mujoco.mj_stateSize(models[0], spec_bits)))
    for i in range(pb.q0.shape[0]):
        d = datas[0]
        mujoco.mj_resetData(models[i], d)
        d.qpos[:], d.qvel[:] = pb.q0[i], pb.qd0[i]
        mujoco.mj_getState(models[i], d, state[i], spec_bits)
    return state


def _mujoco(engine: BatchEngine, pb: BatchProblem, knobs: dict) -> _Output:
    import mujoco  # type: ignore[import-untyped]
    from mujoco import rollout as _rollout

    N, n = pb.q0.shape
    s = pb.save_every
    if N > MUJOCO_MAX_ARMS:
        raise _Skip(f"{N:,} arms: C MuJoCo needs one compiled model per arm (limit {MUJOCO_MAX_ARMS:,})")
    t = time.perf_counter()
    integ = "RK4" if engine.integrator == "rk4" else "Euler"
    opt = batch_options(engine, knobs)
    models = mujoco_models(pb.spec, pb.p, pb.dt, integ, opt)
    compile_s = time.perf_counter() - t
    spec_bits = mujoco.mjtState.mjSTATE_FULLPHYSICS
    iq = mujoco.mj_stateSize(models[0], mujoco.mjtState.mjSTATE_TIME)
    iv = iq + n
    datas = [mujoco.MjData(models[0]) for _ in range(2)]
    state = _mujoco_start_states(mujoco, models, datas, pb, spec_bits)
    K = pb.tau.shape[0]
    Q = np.empty((N, K // s + 1, n))
    QD = np.empty_like(Q)
    Q[:, 0], QD[:, 0] = pb.q0, pb.qd0
    t = time.perf_counter()
    for c in range(K // s):  # chunks of s steps: memory N × s × nstate
        ctrl = np.ascontiguousarray(np.broadcast_to(pb.tau[c * s:(c + 1) * s], (N, s, n)))
        states, _ = _rollout.rollout(models, datas, state, ctrl)
        state = np.ascontiguousarray(states[:, -1])
        Q[:, c + 1], QD[:, c + 1] = state[:, iq:iq + n], state[:, iv:iv + n]
    return Q, QD, compile_s, time.perf_counter() - t, {
        "dtype": "float64", "version": mujoco.__version__, "threads": len(datas), "models": "one per arm",
        "eulerdamp": opt.eulerdamp, "autoreset": opt.autoreset, "knobs": knob_config(engine, opt)}


class _Skip(Exception):
    """A batched engine that does not run this problem on purpose (the message says why): status skipped."""


def _mujoco_warp(engine: BatchEngine, pb: BatchProblem, knobs: dict) -> _Output:
    from crossdyn.batch import warp_batch

    opt = batch_options(engine, knobs)
    Q, QD, setup, run_s, cfg = warp_batch.run(engine.integrator, pb, opt)
    return Q, QD, setup, run_s, {**cfg, "knobs": knob_config(engine, opt)}


def _newton(engine: BatchEngine, pb: BatchProblem, knobs: dict) -> _Output:
    from crossdyn.batch import newton_batch
    from crossdyn.errors import EngineUnsupported

    opt = batch_options(engine, knobs)
    try:
        Q, QD, setup, run_s, cfg = newton_batch.run(pb, opt)
        return Q, QD, setup, run_s, {**cfg, "knobs": knob_config(engine, opt)}
    except EngineUnsupported as e:  # what Featherstone cannot represent (Coulomb friction): skipped, with the reason
        raise _Skip(f"unsupported: {e}") from e


def _genesis(engine: BatchEngine, pb: BatchProblem, knobs: dict) -> _Output:
    from crossdyn.batch import genesis_batch

    from crossdyn.errors import EngineUnsupported

    opt = batch_options(engine, knobs)
    try:
        Q, QD, setup, run_s, cfg = genesis_batch.run(engine.integrator, pb, opt)
    except EngineUnsupported as e:  # what Genesis cannot do as the reference does (damping explicitly): skipped
        raise _Skip(f"unsupported: {e}") from e
    return Q, QD, setup, run_s, {**cfg, "knobs": knob_config(engine, opt)}


_RUNNERS = {"jax": _jax, "mjx": _mjx, "numpy": _numpy, "mujoco": _mujoco, "mujoco-warp": _mujoco_warp,
            "newton": _newton, "genesis": _genesis}
EXTRAS = {e.batch: e.extra for e in _registry.batched().values() if e.extra}
"""The extra that installs each batched runner's library (the table's ``extra``; ``numpy``: none, a core
dependency)."""


def _library_errors() -> tuple[type[BaseException], ...]:
    """What the batched engines' libraries raise when they fail: XLA's runtime errors (out of memory included)
    are RuntimeErrors, C MuJoCo's are ``mujoco.FatalError`` (a plain Exception) or ValueError.  Anything else
    escaping a runner is crossdyn's own bug and is not turned into a "failed" engine."""
    errors: tuple[type[BaseException], ...] = (RuntimeError, MemoryError, OSError, ValueError, FloatingPointError)
    import sys

    mujoco = sys.modules.get("mujoco")  # only a runner that imported it can raise its errors
    fatal = getattr(mujoco, "FatalError", None)
    genesis = getattr(sys.modules.get("genesis"), "GenesisException", None)
    return errors + tuple(e for e in (fatal, genesis) if isinstance(e, type))


def run_batch_engine(name: str, problem: BatchProblem) -> BatchRun:
    """Run the batched engine ``name`` (knobs after ``@``: :func:`split_batch_engine`, whose EngineError a bad
    name raises) on ``problem``; a failing library is contained (status ``failed`` with the message), a missing
    one or a problem it does not take is ``skipped``."""
    base, knobs = split_batch_engine(name)
    engine = ENGINES[base]
    t = time.perf_counter()
    try:
        Q, QD, compile_s, run_s, cfg = _RUNNERS[engine.library](engine, problem, knobs)
    except _Skip as e:
        return BatchRun(name, None, None, RunStatus.SKIPPED, str(e), time.perf_counter() - t)
    except ImportError as e:
        extra = EXTRAS.get(engine.library, "jax")
        return BatchRun(name, None, None, RunStatus.SKIPPED, f"not installed ({e}); pip install 'crossdyn[{extra}]'",
                        time.perf_counter() - t)
    except _library_errors() as e:  # a library error is a result, not a crash
        return BatchRun(name, None, None, RunStatus.FAILED, f"{type(e).__name__}: {e}", time.perf_counter() - t)
    cfg = {"engine": name, "batched_engine": base, "description": engine.description, "integrator": engine.integrator,
           **cfg}
    return BatchRun(name, Q, QD, RunStatus.OK, "", time.perf_counter() - t, compile_s, run_s, cfg)
