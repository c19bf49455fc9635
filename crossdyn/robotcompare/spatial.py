"""``crossdyn compare`` on a spatial arm spec (a preset such as ``scara``, or a TOML file with ``[arm] kind =
"spatial"``): :func:`compare_spatial`.

crossdyn writes the arm's URDF and MJCF (:mod:`crossdyn.robots.write_urdf`, :mod:`crossdyn.robots.write_mjcf`) into
the run's folder, and every engine loads one of them with its traps neutralised and listed in its ``config``, as for
a user's robot file (:mod:`crossdyn.robotcompare.compare`).  Which file (:data:`PREFERRED`):

* MuJoCo loads the MJCF: its own format, read without the URDF importer's conversions;
* the others load the URDF where the URDF holds the whole arm, else the MJCF where they read MJCF (Pinocchio,
  Drake).  A URDF has no armature: an arm with armature goes to MuJoCo, Pinocchio and Drake through the MJCF, and an
  engine that reads only URDF (PyBullet) or whose MJCF reading is unusable (DART) is ``unsupported``, naming the
  joints.  A URDF has no gravity either: the engines are given the spec's, as every engine loading a URDF is given
  the model's (each config lists ``gravity_set``).

**The reference is the spec's own model** (:meth:`SpatialArmSpec.to_robot_model`), not the files read back.  Each
written file is read back (:func:`crossdyn.robots.read_robot`) and compared with it, parameter by parameter, to
:data:`ROUND_TRIP_TOL` relative to each parameter's scale: a difference is listed in the notes (the writers print
``repr`` floats; measured ≤ 2e-16), so a writer's loss shows as a note and as the engines' FAIL, never silently.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from crossdyn.robots.model import Format, RobotModel
from crossdyn.robotcompare.compare import RobotComparison, compare_robot
from crossdyn.robotcompare.options import RobotCompareOptions

PREFERRED: dict[str, tuple[Format, ...]] = {
    "mujoco": (Format.MJCF, Format.URDF),
    "mujoco.mjx": (Format.MJCF, Format.URDF),   # MJX: C MuJoCo's compiled model of the file, as mujoco
    "pinocchio": (Format.URDF, Format.MJCF),
    "pydrake": (Format.URDF, Format.MJCF),
    "dartpy": (Format.URDF,),
    "pybullet": (Format.URDF,),
}
"""Per engine library (every name of the library alike: ``mujoco``, ``mujoco-rk4``, …), the formats it loads a
spatial arm from, best first (module docstring); a library not listed, URDF then MJCF.  DART's MJCF parser
ignores ``<inertial>`` (:mod:`crossdyn.engines.dart.file`) and PyBullet's ``loadMJCF`` reads no inertia: URDF only."""

ROUND_TRIP_TOL = 1e-12
"""Relative tolerance of a written file read back against the spec's model (float64 ``repr`` is exact; the
origins' rpy → matrix conversion rounds at ~1e-16)."""


def _close(a, b, scale: float) -> bool:
    return bool(np.all(np.abs(np.asarray(a, float) - np.asarray(b, float)) <= ROUND_TRIP_TOL * max(scale, 1.0)))


def round_trip_differences(ref: RobotModel, read: RobotModel, label: str) -> list[str]:
    """What the file read back (``read``) holds differently from the spec's model ``ref``: one line per
    parameter beyond :data:`ROUND_TRIP_TOL` (armature and gravity, which URDF cannot hold, are not listed here:
    :func:`arm_files` routes around them)."""
    if read.joint_names != ref.joint_names or read.parents != ref.parents:
        return [f"{label}: read back with joints {list(read.joint_names)} (parents {list(read.parents)}), the spec "
                f"has {list(ref.joint_names)} ({list(ref.parents)})"]
    out = []
    for jr, jf, br, bf in zip(ref.joints, read.joints, ref.bodies, read.bodies, strict=True):
        X_ref = jr.origin @ _translation(jr.anchor)
        X_read = jf.origin @ _translation(jf.anchor)
        pairs = {"origin": (X_read, X_ref, 1.0), "axis": (jf.axis, jr.axis, 1.0),
                 "damping": (jf.damping, jr.damping, 1.0),
                 "mass": (bf.inertial.mass, br.inertial.mass, br.inertial.mass),
                 "com": (bf.inertial.com, br.inertial.com, 1.0),
                 "inertia": (bf.inertial.inertia, br.inertial.inertia, float(np.abs(br.inertial.inertia).max()))}
        out += [f"{label}: joint {jr.name!r}: {key} read back as {np.round(np.asarray(got, float), 15).tolist()}, the "
                f"spec's is {np.round(np.asarray(want, float), 15).tolist()}"
                for key, (got, want, scale) in pairs.items() if not _close(got, want, scale)]
    return out


def _translation(p) -> np.ndarray:
    T = np.eye(4)
    T[:3, 3] = p
    return T


@dataclass(frozen=True)
class ArmFiles:
    """The spec's model (the reference), the files written and each read back (gravity set to the spec's)."""

    reference: RobotModel
    paths: dict[Format, Path]
    models: dict[Format, RobotModel]
    notes: tuple[str, ...]

    def holds(self, fmt: Format) -> bool:
        """Whether the file of format ``fmt`` holds the whole arm (URDF: not its armature)."""
        return fmt is Format.MJCF or not np.any(self.reference.armature())

    def model_for(self, spec: str) -> RobotModel | str:
        """The model whose file engine ``spec`` loads (:data:`PREFERRED`), or why it cannot load the arm."""
        from crossdyn.engines.files import file_engine_status

        from crossdyn.engines.registry import entry
        from crossdyn.errors import EngineError

        if spec.startswith("user:"):          # the user's equations: the spec's own model (its parameter names)
            return self.reference
        name = spec.split("@", 1)[0]
        try:
            library = entry(name).library
        except EngineError:
            library = None
        formats = PREFERRED.get(library or "", (Format.URDF, Format.MJCF))
        for fmt in formats:
            if self.holds(fmt) and file_engine_status(name, fmt) is None:
                return self.models[fmt]
        why = [file_engine_status(name, fmt) or "" for fmt in formats]
        installed = [w for w in why if w.startswith("not installed") or w.startswith("unknown")]
        if installed:
            return installed[0]
        arm = [j.name for j in self.reference.joints if j.armature]
        return (f"the arm has armature ({', '.join(arm)}), which a URDF cannot hold, and {name} loads a spatial arm "
                "from its URDF only")

    def loads(self, specs) -> dict[str, str]:
        """{engine spec: the file it loads} for the engines that load one."""
        out = {}
        for spec in specs:
            m = self.model_for(spec)
            if not isinstance(m, str):
                out[spec] = str(m.source)
        return out


def arm_files(spec, folder: Path, dt: float = 1e-3) -> ArmFiles:
    """Write ``spec``'s URDF and MJCF into ``folder`` (``NAME.urdf``, ``NAME.xml``), read each back, compare it with
    the spec's model (:func:`round_trip_differences`)."""
    from crossdyn.io import write_text_atomic
    from crossdyn.robots import read_robot
    from crossdyn.robots.formats import format_row

    folder.mkdir(parents=True, exist_ok=True)
    reference = spec.to_robot_model()
    paths = {fmt: folder / f"{spec.name}{format_row(fmt).engine_suffix}" for fmt in (Format.URDF, Format.MJCF)}
    write_text_atomic(paths[Format.URDF], spec.to_urdf())
    write_text_atomic(paths[Format.MJCF], spec.to_mjcf(dt))
    models, notes = {}, []
    for fmt, path in paths.items():
        read = read_robot(path)
        models[fmt] = replace(read, gravity=np.array(reference.gravity, dtype=float))
        notes += round_trip_differences(reference, read, path.name)
    if np.any(reference.armature()):
        notes.append(f"{paths[Format.URDF].name}: the arm's armature is not in it (URDF has none): every engine that "
                     "reads MJCF loads the MJCF instead")
    return ArmFiles(reference, paths, models, tuple(notes))


def compare_spatial(spec, options: RobotCompareOptions, folder: Path) -> RobotComparison:
    """The robot comparison (:func:`crossdyn.robotcompare.compare_robot`) of a spatial arm spec: its files written
    into ``folder``, each engine on the file :data:`PREFERRED` gives it, judged against the spec's own model."""
    files = arm_files(spec, folder, options.dt)
    result = compare_robot(files.reference, options, files.model_for)
    s = result.summary
    engine_files = files.loads(result.runs)
    s["file"] = str(spec.source or f"preset {spec.name}")
    s["format"] = "spatial-spec"
    s["arm"] = {"kind": "spatial", "convention": spec.convention.value, "type": spec.type_string,
                "files": {fmt.value: str(p) for fmt, p in files.paths.items()}, "engine_files": engine_files,
                "reference": "the spec's own RobotModel (SpatialArmSpec.to_robot_model), not the files read back"}
    loads = "; ".join(f"{e} loads {Path(p).name}" for e, p in engine_files.items())
    s["notes"] = [f"arm {spec.name!r} ({spec.type_string}, {spec.convention.value}): crossdyn wrote "
                  f"{files.paths[Format.URDF].name} and {files.paths[Format.MJCF].name} into {folder}; {loads}; "
                  "the reference is the spec's own model"] + list(files.notes) + list(s["notes"])
    return result
