"""``compare ROBOT --native``: each engine's own enforcement of the file's joint limits, characterised per limit
contact (:func:`native_limits`).

**Limits on a robot file: off in every engine, no applied law.**  A URDF states where a joint stops
(``<limit lower upper>``), an MJCF its ``range``; neither states how (a stop stiffness and damping in N m/rad and
N m s/rad: URDF has none, and MJCF's ``solreflimit`` acts in constraint space, mujoco #732).  crossdyn's
compliant limit law τ_lim = −k(q − hi) − c q̇ (:mod:`crossdyn.analytic.laws.limit`), which the planar arms apply
from their spec's ``limit_stiffness``/``limit_damping``, therefore has no k and c on a file, and crossdyn does not
invent them.  Every engine's own enforcement is off in a default comparison, each listed in its ``config()`` with
the knob that switches it back: ``pybullet@limits=true``, ``mujoco@limits=true`` (MuJoCo's solver on for the
limits alone), ``drake-discrete@limits=true`` (a continuous Drake plant ignores limits), ``dart@enforce_limits=true``
(``World.step`` only), ``newton@limits=true`` (Newton's penalty spring past a limit, float32; run when named, as
every GPU engine), ``genesis@joint_limit=true``; Pinocchio has no limit enforcement in its dynamics.  The default
motion stays inside the limits by a margin (:mod:`crossdyn.robotcompare.motion`), so no engine would have met them
anyway.

**The native run.**  With ``--native`` the default comparison runs unchanged, and then every selected engine
family that enforces limits by itself (:func:`native_engines`) runs a second motion that drives the joints into
their upper limits (:func:`limit_motion`): the tracking law of :mod:`crossdyn.robotcompare.motion`, the same
feedforward + PD on the run's own state, about a centre just inside each joint's upper limit, so that the target
passes the limit and comes back.  The limit-free reference (crossdyn's spatial model, DOP853) runs it too and goes
through the limit: the engines' departure from it there is their enforcement.  Each limit contact is measured by
the planar arms' code (:func:`crossdyn.native.limits.episodes.contacts`: penetration depth, time in contact,
rebound ratio, peak limit torque, energy absorbed), the limit torque inferred from the motion by crossdyn's
inverse dynamics (:func:`inferred_limit_torque`); entry and exit speeds are added.  An engine of such a family that
is not installed is listed as skipped with its install command, one that cannot enforce the file's limits (Newton's
importer leaving a limited joint without a penalty) as unsupported with the reason: never left out silently.

**Not judged.**  With no law there is nothing to judge the characterisation against (the planar judging,
:mod:`crossdyn.native.limits.verdict`, compares each contact with the event-exact law's): the section's verdict is
INCONCLUSIVE, saying why, and so is the comparison's where nothing else failed.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from crossdyn.analytic.laws.limit import LimitLaw
from crossdyn.robots.model import RobotModel
from crossdyn.robotcompare import motion

PUSH_DEPTH_RAD = 0.1
PUSH_DEPTH_M = 0.005
PUSH_FRACTION = 0.1
"""d per joint: the centre of the limit motion lies d inside the upper limit, d = min(0.1 rad or 5 mm, 10 % of the
range); the target swings ±3 d about it (three in-phase components of amplitude d), so it passes the limit by up to
2 d and comes back inside by up to 4 d (never nearer the lower limit than 60 % of the range)."""

NATIVE_ENGINES = {"mujoco": ("@limits=true", "MuJoCo's soft limit constraint: the file's range, its solreflimit/"
                                             "solimplimit (default (0.02, 1))"),
                  "pybullet": ("@limits=true", "PyBullet's hard limit in stepSimulation (the URDF's <limit>)"),
                  "drake": ("drake-discrete@limits=true", "Drake's discrete plant's penalty limit (a continuous plant "
                                                          "ignores limits)"),
                  "dart": ("dart@enforce_limits=true", "DART's limit constraint in World.step (dart-rk4's crossdyn "
                                                       "RK4 has none)"),
                  "newton": ("@limits=true", "Newton's penalty past the file's limits in SolverFeatherstone "
                                             "(joint_limit_ke, joint_limit_kd as its importer sets them: 1e4, 10), "
                                             "float32"),
                  "genesis": ("@joint_limit=true", "Genesis's joint-limit constraint (RigidOptions.enable_joint_limit, "
                                                   "its default), float32")}
"""Engine family → (the name that runs it with its own limits: a suffix to the engine's own name, or a whole name;
what enforces them).  Pinocchio has none; of the float32 GPU engines MuJoCo Warp is left out (its limits are
MuJoCo's, characterised by ``mujoco``)."""

NO_LAW = ("a robot file states where its joints stop (URDF <limit lower upper>, MJCF range; a spatial arm: its spec's "
          "limits) but not how (no stop "
          "stiffness or damping in N m/rad), so crossdyn has no limit law to judge the engines' own enforcement "
          "against: characterised per limit contact (summary limits), not judged")


def native_engines(specs) -> dict[str, str]:
    """{native engine name: what enforces its limits} for the engine specs ``specs`` (plain names only: a name with
    options is the user's own run), each family once: ``mujoco-rk4`` → ``mujoco-rk4@limits=true``, any Drake name →
    ``drake-discrete@limits=true``, any DART name → ``dart@enforce_limits=true``, ``newton`` →
    ``newton@limits=true``, ``genesis`` → ``genesis@joint_limit=true``."""
    out: dict[str, str] = {}
    for spec in specs:
        if "@" in spec:
            continue
        family = spec.split("-", 1)[0]
        if family not in NATIVE_ENGINES or spec in ("pybullet-noflag",) or spec.startswith("mujoco-warp"):
            continue
        name, what = NATIVE_ENGINES[family]
        out.setdefault(spec + name if name.startswith("@") else name, what)
    return out


def missing_engines(not_run: dict[str, str]) -> dict[str, dict]:
    """The native rows of the engines not run (``{spec: why}``, the comparison's: not installed, or not reading the
    file's format) whose family enforces limits (:func:`native_engines`): {native name: {"status": "skipped" where
    the library is not installed, else "unsupported"; "reason": why; "enforced_by"}}, as the comparison's own table
    lists them."""
    out: dict[str, dict] = {}
    for spec, why in not_run.items():
        for name, what in native_engines([spec]).items():
            out.setdefault(name, {"enforced_by": what, "status": "skipped" if "install" in why else "unsupported",
                                  "reason": why})
    return out


def push_depth(model: RobotModel) -> np.ndarray:
    """d per joint (:data:`PUSH_FRACTION`); nan where a joint lacks a finite lower or upper limit."""
    lo, hi = model.lower(), model.upper()
    base = np.array([PUSH_DEPTH_RAD if j.type.rotates else PUSH_DEPTH_M for j in model.joints])
    both = np.isfinite(lo) & np.isfinite(hi) & (hi > lo)
    return np.where(both, np.minimum(base, PUSH_FRACTION * np.where(both, hi - lo, 0.0)), np.nan)


def limit_motion(model: RobotModel, seed: int = 0) -> motion.DesiredMotion | None:
    """The default multi-sine (:func:`crossdyn.robotcompare.motion.multisine_motion`) with every joint that has both
    limits moved to a centre hi − d, amplitude d per component and phase 0: q_d(0) = hi − d (inside), rising into
    the limit first (:data:`PUSH_FRACTION`).  None when no joint has both limits."""
    d = push_depth(model)
    pushed = np.isfinite(d)
    if not np.any(pushed):
        return None
    base = motion.multisine_motion(model, seed)
    centre = np.where(pushed, model.upper() - np.where(pushed, d, 0.0), base.center)
    amp = np.where(pushed[:, None], np.where(pushed, d, 0.0)[:, None], base.amplitude)
    phase = np.where(pushed[:, None], 0.0, base.phase)
    return motion.DesiredMotion(centre, amp, phase, base.frequencies_hz)


def bounds(model: RobotModel) -> LimitLaw:
    """The file's limits as a :class:`LimitLaw` with k = c = 0 (the bounds alone: what the contact
    characterisation reads; no torque)."""
    z = np.zeros(model.n)
    return LimitLaw(model.lower(), model.upper(), z, z)


def inferred_limit_torque(model: RobotModel, traj) -> np.ndarray:
    """τ_lim per sample inferred from a run by crossdyn's inverse dynamics (the planar arms' inference,
    :func:`crossdyn.native.limits.episodes.inferred_torque`, on the file's model): τ_lim,k = RNEA_ref(q_k, q̇_k, q̈_k)
    + b q̇_k − τ_k, q̈_k = (q̇_{k+1} − q̇_k)/dt (armature included; the last sample repeats the one before)."""
    from crossdyn.native.limits.episodes import inferred_torque
    from crossdyn.spatial import rnea

    b = motion.damping(model)

    def inverse(q, qd, qdd):
        return np.asarray(rnea(model, q, qd, qdd, armature=True), float).reshape(q.shape) + b * qd

    return inferred_torque(None, traj, inverse)


def characterise(model: RobotModel, traj, native: bool) -> list[dict]:
    """The limit contacts of one run (:func:`crossdyn.native.limits.episodes.contacts`) with each contact's entry and
    exit speeds |q̇_j| added (``entry_speed``, ``exit_speed``: rad/s or m/s; the exit speed None while open).
    ``native``: τ_lim inferred (:func:`inferred_limit_torque`); else 0 (the limit-free reference applies none)."""
    from crossdyn.native.limits.episodes import contacts

    tau = inferred_limit_torque(model, traj) if native else np.zeros_like(np.asarray(traj.q, float))
    rows = contacts(bounds(model), traj.t, traj.q, traj.qd, tau)
    qd = np.asarray(traj.qd, float)
    for c in rows:
        j = c["joint"] - 1
        i0, i1 = (min(int(round(c[k] / traj.dt)), len(qd) - 1) for k in ("t_enter_s", "t_exit_s"))
        c["joint_name"] = model.joints[j].name
        c["limit"] = float(model.upper()[j] if c["side"] == "upper" else model.lower()[j])
        c["entry_speed"] = float(abs(qd[i0, j]))
        c["exit_speed"] = None if c["open"] else float(abs(qd[i1, j]))
        if not native:  # no limit torque in a limit-free run: nothing to measure from it
            c.update(peak_torque_nm=None, energy_absorbed_j=None, effective_stiffness_nm_per_rad=None)
    return rows


def _fmt(x, spec: str = ".3g") -> str:
    return "-" if x is None else format(x, spec)


def table(section: dict) -> list[str]:
    """The console lines of ``summary["limits"]``: one row per limit contact of the reference and each engine
    (pen: the largest excursion beyond the limit; t: time in contact; v_in, v_out: entry and exit speeds;
    tau_max: the peak limit torque inferred; rad, s, rad/s, N m, or m, m/s, N on a prismatic joint)."""
    if not section.get("engines"):
        return []
    runs = ([("reference (no limits)", section["reference"])] if "reference" in section else []) + list(
        section["engines"].items())
    lines = ["native limits: each engine's own enforcement of the file's limits, per contact (pen: beyond the "
             "limit, t: in contact, v_in/v_out: entry/exit speed, tau_max: peak limit torque inferred)",
             f"  {'run':<28} {'joint':<20} {'side':<5} {'pen':>9} {'t':>7} {'v_in':>7} {'v_out':>7} {'tau_max':>9}"]
    for name, run in runs:
        if run is None or not run.get("contacts"):
            lines.append(f"  {name:<28} {run['status'] if run else '-'}: "
                         f"{(run or {}).get('reason') or 'no limit contact'}")
            continue
        for c in run["contacts"]:
            lines.append(f"  {name:<28} {c['joint_name']:<20} {c['side']:<5} {_fmt(c['max_penetration_rad']):>9} "
                         f"{_fmt(c['time_in_contact_s']):>7} {_fmt(c['entry_speed']):>7} {_fmt(c['exit_speed']):>7} "
                         f"{_fmt(c['peak_torque_nm']):>9}")
    lines += [f"  {name}: {run['enforced_by']}" for name, run in section.get("engines", {}).items()]
    return lines


def _engine_run(name: str, job, law, q0, qd0) -> dict:
    """One engine with its own limits on the limit motion: its status, its limit setting as its ``config()`` states
    it, every limit contact and per joint the largest excursion beyond the upper limit (rad or m).  An engine that
    cannot load the file is ``unsupported``; one whose library raises, ``failed`` (the reason kept)."""
    from crossdyn.comparison.containment import engine_code, failure_reason
    from crossdyn.errors import EngineError, EngineUnsupported
    from crossdyn.robotcompare import runs
    from crossdyn.robotcompare.measure import build_file_engine

    model = job.file_model(name)
    engine = None
    try:
        with engine_code():
            engine = build_file_engine(name, model, job.dt)
            config = engine.config().get("joint_limits")
            traj = runs.step_engine(engine, job.taus, q0, qd0, job.dt, law=law)
    except EngineUnsupported as e:
        return {"status": "unsupported", "reason": str(e)}
    except EngineError as e:
        return {"status": "failed", "reason": failure_reason(e)}
    finally:
        if engine is not None:
            engine.close()
    beyond = np.max(np.asarray(traj.q, float) - job.model.upper(), axis=0)
    return {"status": traj.status, "reason": traj.message, "joint_limits": config,
            "max_beyond_upper": {j: float(b) for j, b in zip(job.model.joint_names, beyond, strict=True)
                                 if np.isfinite(b)},
            "contacts": characterise(job.model, traj, native=True)}


def native_limits(job, specs, seed: int, say: Callable[[str], None],
                  not_run: dict[str, str] | None = None) -> tuple[dict, list[str], list[str]]:
    """``summary["limits"]`` of ``compare ROBOT --native`` (module docstring), its INCONCLUSIVE lines and its
    failure lines (an engine that failed on the limit motion).  ``job``: the comparison's
    :class:`~crossdyn.robotcompare.measure.RobotJob` (its dt and step count); ``specs``: the engines it ran;
    ``not_run``: those it could not run, {spec: why} (listed, :func:`missing_engines`)."""
    from crossdyn.robotcompare import runs

    model = job.model
    desired = limit_motion(model, seed)
    engines = native_engines(specs)
    missing = {k: v for k, v in missing_engines(not_run or {}).items() if k not in engines}
    why = ("no joint of the file has both a lower and an upper limit: nothing to drive into a limit"
           if desired is None else
           "none of the engines run enforces joint limits by itself (name mujoco-rk4, pybullet, drake-discrete, "
           "dart or newton in --engines)" if not engines else NO_LAW)
    section: dict = {"verdict": "INCONCLUSIVE", "because": why, "applied_law": None,
                     "default_run": "every engine's own limit enforcement off, listed in its config (joint_limits)"}
    if desired is None or not engines:
        if missing:
            section["engines"] = missing
        return section, [f"native limits: {why}"], []
    law = motion.tracking_law(model, desired, job.dt, len(job.taus))
    q0, qd0, _ = (x[0] for x in desired.at(np.zeros(1)))
    section["motion"] = {**desired.params(), "pushed_depth": {j: float(d) for j, d in
                                                                zip(model.joint_names, push_depth(model), strict=True)
                                                                if np.isfinite(d)},
                         "description": "the tracking law about a centre d inside each upper limit, the target "
                                        "passing the limit by up to 2 d and back (limits.PUSH_FRACTION)"}
    say(f"[{model.name}] native limits: the limit-free reference on the limit motion")
    ref, _ = runs.track(model, law, len(job.taus), q0, qd0, job.dt)
    section["reference"] = {"status": ref.status, "contacts": characterise(model, ref, native=False),
                            "note": "crossdyn's model has no limits: it passes them as a limit-free engine does"}
    section["engines"], failures = {}, []
    for name, what in engines.items():
        say(f"[{model.name}] native limits: {name} ({what})")
        row = {"enforced_by": what, **_engine_run(name, job, law, q0, qd0)}
        section["engines"][name] = row
        if row["status"] not in ("ok", "unsupported"):
            failures.append(f"{name}: native limits: {row['status']}: {row['reason']}")
    section["engines"].update(missing)
    return section, [f"native limits: {why}"], failures
