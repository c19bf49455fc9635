"""``crossdyn identify`` on a spatial arm, the CLI side of the spatial kind's adapter: a spatial preset or spec
(``[arm] kind = "spatial"``), or a robot file (``.urdf``, MJCF ``.xml`` or ``.mjcf``:
:data:`crossdyn.robots.formats.ROBOT_SUFFIXES`, as ``compare``) read by :func:`crossdyn.robots.read_robot`.

The data are simulated by crossdyn's spatial reference (``--engine spatial``, the default: ABA, semi-implicit Euler)
or taken from its inverse dynamics along the excitation (``--engine exact``); the base parameters are found
numerically (:mod:`crossdyn.identification.base_numeric`).  What the planar path has and this one does not yet
(other engines, ``--data`` CSV records, encoder and velocity noise, ``--diagnose-engines``) exits 2 saying so.
:func:`crossdyn.cli.identify.run` then runs the one driver and report writer: ``identify.json`` (schema
crossdyn.identify/1, ``"kind": "spatial"``) and ``identify.md``.
"""
from __future__ import annotations

from pathlib import Path

from crossdyn.robots.formats import ROBOT_SUFFIXES


def spatial_model(arm: str):
    """The :class:`~crossdyn.robots.model.RobotModel` of ARM when it is a spatial arm (a robot file, a spatial preset
    or spec), else None (a planar arm: the planar path takes it)."""
    if Path(arm).suffix.lower() in ROBOT_SUFFIXES:
        from crossdyn.robots import read_robot

        return read_robot(arm)
    from crossdyn.models import load_arm
    from crossdyn.models.spatial_spec import SpatialArmSpec

    spec = load_arm(arm, spatial=True)
    return spec.to_robot_model() if isinstance(spec, SpatialArmSpec) else None


def _refuse(args) -> None:
    """Exit 2 (UsageError) for what the spatial path does not take, naming the option."""
    from crossdyn.io import UsageError

    engine = args.engine or "spatial"
    if engine not in ("spatial", "exact"):
        raise UsageError(f"identify: --engine {engine}: a spatial arm is simulated by crossdyn's spatial reference "
                         "(--engine spatial, the default) or taken exact (--engine exact); other engines are not "
                         "wired for spatial arms yet")
    for option, given in (("--data", args.data), ("--diagnose-engines", args.diagnose_engines),
                          ("--truth none", args.truth == "none"), ("--model " + args.model, args.model != "auto")):
        if given:
            raise UsageError(f"identify: {option}: not available for spatial arms yet (simulated data only, "
                             "judged against the arm's own parameters)")


def _torque_noise(text: str) -> float:
    from crossdyn.identification import data as D
    from crossdyn.io import UsageError

    noise = D.NoiseModel.parse(text)
    if noise.encoder or noise.velocity != "measured" or noise.velocity_std:
        raise UsageError(f"identify: --noise {text}: spatial arms take torque=S only so far (encoder and velocity "
                         "noise need the filtered rows of the planar path)")
    return noise.torque


def spatial_options(args) -> tuple:
    """(engine: ``"spatial"``, or None for ``--engine exact``; :class:`~crossdyn.identification.identify.
    IdentifyOptions`; no ``--diagnose-engines``) of a spatial arm, after refusing what its path does not take."""
    from crossdyn.identification import data as D
    from crossdyn.identification.common import VALIDATION_TOLERANCE
    from crossdyn.identification.identify import IdentifyOptions

    _refuse(args)
    options = IdentifyOptions(estimator=args.estimator, seed=args.seed, duration=args.duration, rate=args.rate,
                              noise=D.NoiseModel(torque=_torque_noise(args.noise)),
                              validation_tolerance=args.tolerance or VALIDATION_TOLERANCE, truth=args.truth or "auto")
    engine = args.engine or "spatial"
    return None if engine == "exact" else engine, options, []
