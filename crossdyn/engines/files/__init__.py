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
newton             Newton ``ModelBuilder.add_urdf`` / ``add_mjcf``, Featherstone, float32 yes      yes
genesis            Genesis ``gs.morphs.URDF(fixed=True)`` / ``gs.morphs.MJCF``, float32   yes      yes
=================  ====================================================================  =======  =======

``mujoco-warp``, ``newton`` and ``genesis`` (:data:`GPU_FILE_ENGINES`, float32) run only when named.

Every adapter's library is imported when the engine is built, never here: this module imports on a light install.
"""
from __future__ import annotations

import importlib.util

from crossdyn.engines.files.base import FileEngine, FileOptions, joint_permutation
from crossdyn.engines.files.dart import DartFileEngine
from crossdyn.engines.files.drake import DrakeFileEngine
from crossdyn.engines.files.genesis import GenesisFileEngine
from crossdyn.engines.files.mujoco import MuJoCoFileEngine
from crossdyn.engines.files.mujoco_warp import MuJoCoWarpFileEngine
from crossdyn.engines.files.newton import NewtonFileEngine
from crossdyn.engines.files.pinocchio import PinocchioFileEngine
from crossdyn.engines.files.pybullet import PyBulletFileEngine, PyBulletNoFlagFileEngine
from crossdyn.engines.registry import check_option_values, split_options
from crossdyn.errors import EngineError
from crossdyn.robots.model import Format, RobotModel

__all__ = ["ALL_FILE_ENGINES", "FILE_ENGINES", "GPU_FILE_ENGINES", "FileEngine", "FileOptions", "file_engine_names", "file_engine_status", "joint_permutation",
           "make_file_engine"]

FILE_ENGINES: dict[str, type[FileEngine]] = {
    "pinocchio": PinocchioFileEngine,
    "mujoco": MuJoCoFileEngine,
    "pybullet": PyBulletFileEngine,
    "pybullet-noflag": PyBulletNoFlagFileEngine,
    "drake": DrakeFileEngine,
    "dart": DartFileEngine,
}
"""Name → adapter class (the classes import their library only when built): the float64 engines, run by default."""

GPU_FILE_ENGINES: dict[str, type[FileEngine]] = {
    "mujoco-warp": MuJoCoWarpFileEngine,
    "newton": NewtonFileEngine,
    "genesis": GenesisFileEngine,
}
"""The float32 GPU simulators (Warp: a CUDA GPU or the CPU; Genesis, outside ``[all]``): run when named (``--engines mujoco-warp,newton``), not by
default: their kernels compile for minutes at first use on a CPU, and they are judged with a float32 term."""

ALL_FILE_ENGINES: dict[str, type[FileEngine]] = {**FILE_ENGINES, **GPU_FILE_ENGINES}
"""Every file engine a name can select."""


def file_engine_names() -> list[str]:
    return list(ALL_FILE_ENGINES)


def _installed(library: str) -> bool:
    try:
        return importlib.util.find_spec(library) is not None
    except (ImportError, ValueError):
        return False


def file_engine_status(name: str, fmt: Format) -> str | None:
    """None when engine ``name`` is installed and reads ``fmt``; else why not (the install command, or why the
    engine cannot read that format)."""
    base = name.split("@", 1)[0]
    cls = ALL_FILE_ENGINES.get(base)
    if cls is None:
        return f"unknown file engine {base!r}; file engines: {', '.join(ALL_FILE_ENGINES)}"
    if not _installed(cls.library):
        return f"not installed: pip install 'crossdyn[{cls.extra}]'"
    if fmt not in cls.formats:
        return cls.unsupported_formats.get(fmt, f"{base} does not read {fmt.value.upper()}")
    return None


def make_file_engine(spec: str, model: RobotModel, dt: float = 1e-3) -> FileEngine:
    """The file engine ``spec`` ("name" or "name@key=value@key=value", :func:`crossdyn.engines.registry.split_options`)
    loaded with ``model``'s file.  Raises :class:`EngineError` for an unknown name or option, a missing library or a
    format the engine does not read (:class:`crossdyn.errors.EngineUnsupported`)."""
    base, options = split_options(spec)
    cls = ALL_FILE_ENGINES.get(base)
    if cls is None:
        raise EngineError(f"unknown file engine {base!r}; file engines: {', '.join(ALL_FILE_ENGINES)}")
    why = file_engine_status(base, model.format)
    if why is not None and why.startswith("not installed"):
        raise EngineError(f"engine {base!r} is {why}")
    valid = cls.option_names()
    unknown = [k for k in options if k not in valid]
    if unknown:
        raise EngineError(f"file engine {base!r}: unknown option(s) {', '.join(unknown)}; it takes: {', '.join(valid)}")
    check_option_values(base, getattr(cls, "Options", None), options)
    engine = cls(model, dt, **options)
    engine.name = spec
    return engine
