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

import time
from dataclasses import dataclass, field

import numpy as np

from crossdyn.engines import registry as _registry
from crossdyn.engines.batching import BatchProblem, BatchSkip, Knob, shown as _shown
from crossdyn.errors import EngineUnsupported
from crossdyn.status import RunStatus


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

    return {name: BatchEngine(name, e.batch or "", e.integrator, e.batch_dtype, e.batch_note)
            for name, e in batched().items()}


ENGINES = _from_table()
DEFAULT_ENGINES = _registry.defaults("batch")
REFERENCE = {"rk4": "jax-rk4", "semi-implicit-euler": "jax-euler"}


def _batch_module(key: str):
    """The batch module of runner ``key`` (the table's :data:`~crossdyn.engines.registry.BATCH_RUNNERS`): light to
    import, it imports its engine library only when it runs."""
    import importlib

    return importlib.import_module(_registry.BATCH_RUNNERS[key].split(":")[0])


KNOBS: dict[str, tuple[str, tuple[Knob, ...]]] = {
    key: (m.OPTIONS, m.KNOBS) for key in _registry.BATCH_RUNNERS if (m := _batch_module(key)).OPTIONS}
"""Per batched library: its knobs' options dataclass (``module:Class``, the single-arm adapter's, imported when the
engine runs) and the knobs the batched runner honours, as its batch module declares them
(:mod:`crossdyn.engines.batching`).  A library without (``jax``, ``numpy``: crossdyn's own model) takes none.
Known before any engine library is imported, so that a bad ``--engines`` is refused first;
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


def _run(engine: BatchEngine, problem: BatchProblem, knobs: dict) -> tuple:
    """The engine's batched runner on ``problem`` with its knobs set: (Q, QD, compile_s, run_s, config), the
    config with every knob's value and default (:func:`knob_config`) where the engine has knobs."""
    import importlib

    module, function = _registry.BATCH_RUNNERS[engine.library].split(":")
    runner = getattr(importlib.import_module(module), function)
    start: dict = getattr(_batch_module(engine.library), "defaults", lambda pb: {})(problem)
    opt = batch_options(engine, {**start, **knobs})
    Q, QD, compile_s, run_s, cfg = runner(engine, problem, opt)
    return Q, QD, compile_s, run_s, ({**cfg, "knobs": knob_config(engine, opt)} if opt is not None else cfg)


def run_batch_engine(name: str, problem: BatchProblem) -> BatchRun:
    """Run the batched engine ``name`` (knobs after ``@``: :func:`split_batch_engine`, whose EngineError a bad
    name raises) on ``problem``; a failing library is contained (status ``failed`` with the message), a missing
    one or a problem it does not take is ``skipped``."""
    base, knobs = split_batch_engine(name)
    engine = ENGINES[base]
    t = time.perf_counter()
    try:
        Q, QD, compile_s, run_s, cfg = _run(engine, problem, knobs)
    except BatchSkip as e:
        return BatchRun(name, None, None, RunStatus.SKIPPED, str(e), time.perf_counter() - t)
    except EngineUnsupported as e:  # what the engine cannot represent (Featherstone's Coulomb friction): skipped
        return BatchRun(name, None, None, RunStatus.SKIPPED, f"unsupported: {e}", time.perf_counter() - t)
    except ImportError as e:
        extra = EXTRAS.get(engine.library, "jax")
        return BatchRun(name, None, None, RunStatus.SKIPPED, f"not installed ({e}); pip install 'crossdyn[{extra}]'",
                        time.perf_counter() - t)
    except _library_errors() as e:  # a library error is a result, not a crash
        return BatchRun(name, None, None, RunStatus.FAILED, f"{type(e).__name__}: {e}", time.perf_counter() - t)
    cfg = {"engine": name, "batched_engine": base, "description": engine.description, "integrator": engine.integrator,
           **cfg}
    return BatchRun(name, Q, QD, RunStatus.OK, "", time.perf_counter() - t, compile_s, run_s, cfg)
