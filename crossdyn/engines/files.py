"""Engines that load a user's robot file (URDF, MJCF): one adapter per library, behind :class:`FileEngine`.

=================  ====================================================================  =======  =======
name               library and how the file is loaded                                    URDF     MJCF
=================  ====================================================================  =======  =======
pinocchio          Pinocchio ``buildModelFromUrdf`` / ``buildModelFromMJCF``             yes      yes
mujoco             MuJoCo ``MjModel.from_xml_path`` (URDF through its importer)          yes      yes
pybullet           PyBullet ``loadURDF(flags=URDF_USE_INERTIA_FROM_FILE)``               yes      no
pybullet-noflag    PyBullet ``loadURDF`` without the flag (its default)                  yes      no
drake              Drake ``Parser.AddModels``, continuous plant, root welded             yes      yes
dart               DART ``dart.utils.DartLoader`` / ``dart.utils.MjcfParser``            yes      see docs
mujoco-warp        MuJoCo Warp on C MuJoCo's compiled model (as ``mujoco``), float32     yes      yes
mjx                MuJoCo MJX on C MuJoCo's compiled model (as ``mujoco``), float32      yes      yes
newton             Newton ``ModelBuilder.add_urdf`` / ``add_mjcf``, Featherstone, float32 yes      yes
genesis            Genesis ``gs.morphs.URDF(fixed=True)`` / ``gs.morphs.MJCF``, float32   yes      yes
=================  ====================================================================  =======  =======

``mujoco-warp``, ``newton``, ``genesis`` and ``mjx`` (:data:`GPU_FILE_ENGINES`, float32) run only when named.

Every adapter's library is imported when the engine is built, never here: this module imports on a light install.
"""
from __future__ import annotations

import importlib.util

from crossdyn.engines.file_engine import FileEngine, FileOptions, joint_permutation
from crossdyn.engines.registry import (USER_PREFIX, check_option_values, defaults, entry, file_entries,
                                       knob_hint, split_options)
from crossdyn.errors import EngineError, did_you_mean
from crossdyn.robots.model import Format, RobotModel

__all__ = ["ALL_FILE_ENGINES", "FILE_ENGINES", "GPU_FILE_ENGINES", "FileEngine", "FileOptions", "file_engine_names", "file_engine_status", "joint_permutation",
           "make_file_engine"]

def _adapters() -> dict[str, type[FileEngine]]:
    """Name → robot-file adapter, the default names first (the order messages list them in)."""
    entries = file_entries()
    order = [*defaults("files"), *(name for name in entries if name not in defaults("files"))]
    return {name: entries[name].file_adapter() for name in order}


ALL_FILE_ENGINES: dict[str, type[FileEngine]] = _adapters()
"""Every name that reads robot files → its adapter class (the classes import their library only when built), from
the one engine table (:mod:`crossdyn.engines.registry`): a name means there what it means on a planar arm
(``mujoco`` semi-implicit Euler, ``mujoco-rk4`` RK4, ``dart`` DART's ``World.step``, ``drake`` Drake's
error-controlled RK3), with its keyword arguments (:func:`make_file_engine`)."""

FILE_ENGINES: dict[str, type[FileEngine]] = {name: ALL_FILE_ENGINES[name] for name in defaults("files")}
"""The names a default ``compare`` or ``audit`` of a robot file runs (float64; ``pybullet-noflag`` is left out of a
default ``compare``, :data:`crossdyn.robotcompare.options.DEFAULT_LEFT_OUT`)."""

GPU_FILE_ENGINES: dict[str, type[FileEngine]] = {name: cls for name, cls in ALL_FILE_ENGINES.items()
                                                 if cls.dtype == "float32"}
"""The float32 GPU simulators (Warp: a CUDA GPU or the CPU; Genesis, outside ``[all]``): run when named (``--engines mujoco-warp,newton``), not by
default: their kernels compile for minutes at first use on a CPU, and they are judged with a float32 term."""


def file_engine_names() -> list[str]:
    return list(ALL_FILE_ENGINES)


def _installed(library: str) -> bool:
    try:
        return importlib.util.find_spec(library) is not None
    except (ImportError, ValueError):
        return False


def file_engine_status(name: str, fmt: Format | None) -> str | None:
    """None when engine ``name`` is installed and reads ``fmt`` (None: any format); else why not (the name reads no
    robot file, the install command, or why the engine cannot read that format)."""
    if name.startswith(USER_PREFIX):       # the user's equations (crossdyn.robotcompare.user_engine): any format
        return None
    base = name.split("@", 1)[0]
    cls = ALL_FILE_ENGINES.get(base)
    if cls is None:
        return _not_a_file_engine(base)
    known = entry(base)                               # the library and extra are the engine table's
    if known.library is not None and not _installed(known.library):
        return known.install_hint()
    if fmt is not None and fmt not in cls.formats:
        return cls.unsupported_formats.get(fmt, f"{base} does not read {fmt.value.upper()}")
    return None


def make_file_engine(spec: str, model: RobotModel, dt: float = 1e-3) -> FileEngine:
    """The file engine ``spec`` ("name" or "name@key=value@key=value", :func:`crossdyn.engines.registry.split_options`)
    loaded with ``model``'s file.  Raises :class:`EngineError` for an unknown name or option, a missing library or a
    format the engine does not read (:class:`crossdyn.errors.EngineUnsupported`)."""
    base, options = split_options(spec)
    cls = ALL_FILE_ENGINES.get(base)
    if cls is None:
        raise EngineError(_not_a_file_engine(base))
    why = file_engine_status(base, model.format)
    if why is not None and why.startswith("not installed"):
        raise EngineError(f"engine {base!r} is {why}")
    valid = cls.option_names()
    unknown = [k for k in options if k not in valid]
    if unknown:
        raise EngineError(f"file engine {base!r}: unknown option(s) {', '.join(unknown)}; it takes: {', '.join(valid)}"
                          + knob_hint(unknown, valid))
    check_option_values(base, getattr(cls, "Options", None), options)
    engine = cls(model, dt, **{**entry(base).file_kwargs, **options})
    engine.name = spec
    return engine


def _not_a_file_engine(name: str) -> str:
    """Why ``name`` reads no robot file: the table's reason for a known engine, else the names that do."""
    try:
        known = entry(name)
    except EngineError:
        return f"unknown engine {name!r}{did_you_mean(name, ALL_FILE_ENGINES)}; the engines that read robot files: {', '.join(ALL_FILE_ENGINES)}"
    why = known.refusals.get("files", "it has no robot-file adapter")
    return f"{name!r} does not read robot files: {why}; the engines that do: {', '.join(ALL_FILE_ENGINES)}"
