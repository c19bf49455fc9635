"""``crossdyn identify`` on a spatial arm: a spatial preset or spec (``[arm] kind = "spatial"``), or a robot file
(``.urdf``, MJCF ``.xml`` or ``.mjcf``: :data:`crossdyn.robots.formats.ROBOT_SUFFIXES`, as ``compare``) read by
:func:`crossdyn.robots.read_robot`.

The data are simulated by crossdyn's spatial reference (``--engine spatial``, the default: ABA, semi-implicit Euler)
or taken from its inverse dynamics along the excitation (``--engine exact``); the base parameters are found
numerically (:mod:`crossdyn.identification.base_numeric`).  What the planar path has and this one does not yet
(other engines, ``--data`` CSV records, encoder and velocity noise, ``--diagnose-engines``) exits 2 saying so.
Writes ``identify.json`` (schema crossdyn.identify/1, ``"kind": "spatial"``) and ``identify.md``.
"""
from __future__ import annotations

import sys
from pathlib import Path

from crossdyn.cli.common import out_dir, publish
from crossdyn.robots.formats import ROBOT_SUFFIXES
from crossdyn.status import Exit


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


def run_spatial(args, model) -> int:
    """``crossdyn identify`` for a spatial arm (see the module docstring)."""
    from crossdyn.identification.spatial_identify import SpatialIdentifyOptions, identify_spatial, table_lines
    from crossdyn.identification.common import VALIDATION_TOLERANCE
    from crossdyn.identification.report import solver_lines
    from crossdyn.io import check_out_dir, write_json_atomic, write_text_atomic

    _refuse(args)
    options = SpatialIdentifyOptions(estimator=args.estimator, source=args.engine or "spatial", seed=args.seed,
                                     duration=args.duration, rate=args.rate, torque_noise=_torque_noise(args.noise),
                                     validation_tolerance=args.tolerance or VALIDATION_TOLERANCE)
    out = out_dir(args, "identify", model.name)
    check_out_dir(out, "identify: --out")
    res = identify_spatial(model, options)
    out.mkdir(parents=True, exist_ok=True)
    summary = res.to_summary()
    write_json_atomic(out / "identify.json", summary)
    verdict, reason = res.judgement()
    head = [f"{model.name} ({model.n} joints, spatial): {res.data.source}, rows {res.rows.model}, estimator "
            f"{res.est.method}, {len(res.rows.y)} equations, {res.base.r} base parameters of {res.base.full.p} "
            f"(numeric QR, gap {res.base.gap:.2g})"]
    unid = summary["base_reduction"]["unidentifiable"]
    lines = head + [f"unidentifiable (no torque sees them): {', '.join(unid) if unid else 'none'}"] + \
        ["  " + s for s in table_lines(res)] + \
        ["validation (relative RMS torque error per joint): " + ", ".join(f"{v:.2e}" for v in res.validation_rms)
         + f"  (tolerance {options.validation_tolerance:g})"] + solver_lines(res.est)
    write_text_atomic(out / "identify.md", "\n".join(["```"] + lines + [f"verdict: {verdict.value}: {reason}", "```"])
                      + "\n")
    publish(args, out / "identify.json")
    if not args.quiet:
        print("\n".join(lines))
    checks = summary["checks"]
    print(f"verdict: {verdict.value} ({checks['total']} checks: {checks['parameters_compared_to_truth']} parameters "
          f"compared to the truth (family-wise intervals), {checks['validation_torque_values']} torque values on "
          f"{model.n} joints validated): {reason}  ({out / 'identify.json'})")
    if not args.quiet:
        for note in res.notes:
            print(f"  note: {note}")
    sys.stdout.flush()
    return Exit.of(verdict)
