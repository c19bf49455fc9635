"""Run a comparison of engines against the analytic reference: one entry point, :func:`compare`.

For one arm and one torque profile, every engine is measured against the
analytic model on six things (each with its tolerance, see
:mod:`crossdyn.comparison.tolerances`):

1. **trajectory** under the profile from a start near the hanging equilibrium:
   error against the reference (analytic model, adaptive DOP853 restarted at each
   hold interval), divergence time, self-consistency (same engine at dt/2 with the
   torque still held for dt) and its Richardson error estimate, and the error
   against the analytic model run with the *same* integrator (isolates model error);
2. **inverse dynamics**, 3. **forward dynamics** and **mass matrix** at
   ``n_states`` random states;
4. **energy** in free motion from the same start (drift relative to the energy
   scale) and the work–energy balance of the driven run;
5. **convergence**: free-motion error at several dt against a dense DOP853
   solution, the empirical order, and compute time per simulated second;
6. **speed**: µs per step through the adapter (the driven run).

An engine that cannot be built, raises, or diverges is recorded with its status
and reason; the others go on.  Ctrl-C stops the run and returns what finished.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, replace
from typing import Callable

import numpy as np

from crossdyn.version import __version__
from crossdyn.analytic.integrators import ORDERS
from crossdyn.comparison import metrics
from crossdyn.comparison.tolerances import Tolerances
from crossdyn.engines.base import EngineUnsupported
from crossdyn.inputs.profiles.base import held
from crossdyn.models.spec import ArmSpec

DEFAULT_ENGINES = ("analytic", "pybullet", "mujoco", "mujoco-rk4", "pinocchio", "dart", "drake", "drake-discrete")
"""Engines of a default comparison (those installed): MuJoCo with Euler and RK4, DART (semi-implicit Euler),
Drake continuous (error-controlled RK3) and discrete."""

ORDER = {**ORDERS, "mujoco-implicit": 1, "mujoco-implicitfast": 1}
"""Order of accuracy of every scheme an engine reports (crossdyn's integrators, plus MuJoCo's implicit ones)."""


@dataclass
class CompareOptions:
    """Options of :func:`compare` (defaults give the run of ``crossdyn compare ARM``)."""

    duration: float = 3.0
    dt: float = 1e-3
    engines: tuple[str, ...] | None = None
    profile: str | None = None  # a profile name or CSV path; None: the default multi-sine
    tolerances: Tolerances = field(default_factory=Tolerances)
    n_states: int = 1000
    seed: int = 0
    convergence_dts: tuple[float, ...] = (4e-3, 2e-3, 1e-3, 5e-4)
    convergence_duration: float = 1.0
    jobs: int = 1  # engines measured in parallel processes (results identical for any value)
    q0: tuple[float, ...] | None = None
    """Start configuration (rad); None: a trajectory-tracking profile's first point, else :func:`hanging_start`."""
    qd0: tuple[float, ...] | None = None
    """Start velocity (rad/s); None: the trajectory's initial velocity, else at rest."""
    progress: Callable[[str], None] | None = None
    native_friction: bool = False
    """Coulomb friction (f_c > 0): False (applied mode) builds every engine with f_c = 0 and the runner applies
    the regularised law −f_c tanh(q̇/v_s) (:class:`crossdyn.analytic.stick_slip.FrictionLaw`) to all of them and
    to the reference; True leaves each engine's own friction (MuJoCo frictionloss, PyBullet's velocity motor,
    DART's constraint, f_c sign(q̇) in the analytic model and Pinocchio)."""
    characterise_friction: bool = False
    """Applied mode with f_c > 0: also run MuJoCo and PyBullet with their own friction against the set-valued
    stick–slip reference (:mod:`crossdyn.drive.friction_native`): stick intervals and creep while stuck, in
    ``summary["friction"]["native"]`` and the notes, judged (:mod:`crossdyn.comparison.native_friction`: a
    departure fails) (slow: the event-exact reference restarts every step)."""
    native: bool = False
    """Arms with a limit law: also run each compared engine that has its own limits with them
    (:func:`native_limit_variant`) and judge their limit contacts against the event-exact law
    (:mod:`crossdyn.drive.limit_contacts`, :mod:`crossdyn.comparison.native_limits`)."""
    calibrate_limits: bool = False
    """Arms with a limit law: fit MuJoCo's solreflimit/solimplimit to the law, and (when PyBullet is compared) PyBullet's
    jointLimitForce/erp (:mod:`crossdyn.drive.limit_calibration`)."""
    contact_characterise: bool = False
    """Arms with contact: run MuJoCo, PyBullet and drake-discrete with their own contact and characterise each
    contact episode as ``native`` does, but print it without judging it (the verdict stays the applied mode's;
    ``crossdyn compare`` sets it for arms with contact unless ``--no-native-contact``)."""
    calibrate_contact: bool = False
    """Arms with contact: fit MuJoCo's contact solref/solimp and PyBullet's contactStiffness/contactDamping to the
    law (:mod:`crossdyn.drive.contact_calibration`).  With ``native``, arms with contact also run MuJoCo and
    PyBullet with their own contact (:mod:`crossdyn.drive.contact_native`)."""


def _engine(name: str, spec: ArmSpec, dt: float, friction=None):
    """``make_engine``, with the applied friction law (or None) attached for the runner."""
    from crossdyn.engines import make_engine

    engine = make_engine(name, spec, dt)
    if friction is not None:
        engine.set_applied_friction(friction)
    return engine


@dataclass
class EngineRun:
    """Everything measured for one engine (arrays for plots, ``summary`` for JSON)."""

    name: str
    status: str = "ok"
    reason: str = ""
    config: dict = field(default_factory=dict)
    driven: object = None  # Trajectory
    free: object = None  # Trajectory
    free_energy: np.ndarray | None = None
    driven_energy: np.ndarray | None = None
    id_errors: np.ndarray | None = None
    convergence: dict = field(default_factory=dict)
    summary: dict = field(default_factory=dict)


@dataclass(frozen=True)
class StaticStates:
    """The random states of the static metrics and the analytic values at them (shared by every engine)."""

    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray
    tau: np.ndarray
    tau_ref: np.ndarray
    """τ = M q̈ + C q̇ + G + F at (q, q̇, q̈)."""
    M_ref: np.ndarray
    """M(q)."""
    qdd_ref: np.ndarray
    """q̈ = M⁻¹(τ − C q̇ − G − F) at (q, q̇, τ)."""


@dataclass(frozen=True)
class EngineJob:
    """Everything one engine's measurement needs (what each worker process receives)."""

    spec: ArmSpec
    opt: "CompareOptions"
    profile: object
    """The driving :class:`~crossdyn.drive.profiles.Profile`."""
    free_profile: object
    """The zero-torque profile of the free swing (energy)."""
    q0: np.ndarray
    qd0: np.ndarray
    reference: object
    """The reference run (analytic model, DOP853) of the driven profile."""
    static: StaticStates
    conv_q0: np.ndarray
    """Start of the convergence study's free swing."""
    dense: object
    """Dense free-motion reference of the convergence study, or None."""
    friction: object = None
    """The applied regularised Coulomb law (``spec`` is then the arm with f_c = 0), or None."""


@dataclass
class Comparison:
    """Result of :func:`compare`."""

    spec: ArmSpec
    options: CompareOptions
    profile: object
    q0: np.ndarray
    reference: object  # Trajectory
    reference_free: object
    runs: dict
    summary: dict
    interrupted: bool = False
    native_limit_runs: dict = field(default_factory=dict)
    """compare --native: engine name (``…@native_limits=true``) → its Trajectory."""
    stick_slip_timelines: dict = field(default_factory=dict)
    """compare --characterise-friction: "reference" and each native engine → {"t", "stuck" (K, joints with f_c)}."""
    native_contact_runs: dict = field(default_factory=dict)
    """compare --native on an arm with contact: engine name (``…@native_contact=true``) → its Trajectory."""
    native_contact_reference: object = None
    """compare --native on an arm with contact: the law's reference run the native runs are compared with."""

    @property
    def passed(self) -> bool:
        return self.summary["verdict"] == "pass"


def hanging_start(spec: ArmSpec) -> np.ndarray:
    """A start near the stable equilibrium: the hanging configuration plus small alternating offsets."""
    from crossdyn.inputs.profiles import hanging_configuration

    return hanging_configuration(spec) + np.array([0.15 * (-1) ** i / (1 + i) for i in range(spec.n)])


def start_state(spec: ArmSpec, profile, q0=None, qd0=None) -> tuple[np.ndarray, np.ndarray]:
    """(q0, q̇0) of a run: as given; else a trajectory-tracking profile's first point (and velocity there);
    else :func:`hanging_start` at rest."""
    from crossdyn.inputs.profile_options import profile_start

    start = profile_start(profile) if q0 is None or qd0 is None else None
    if q0 is None:
        q0 = start[0] if start is not None else hanging_start(spec)
    if qd0 is None:
        qd0 = start[1] if start is not None and np.allclose(np.asarray(q0), start[0]) else np.zeros(spec.n)
    return np.array(q0, dtype=float).reshape(spec.n), np.array(qd0, dtype=float).reshape(spec.n)


def desired_motion(profile, times) -> np.ndarray | None:
    """The desired joint motion q_d(t) of a closed-loop profile at ``times`` ((K, n)), or None (open loop)."""
    if not getattr(profile, "closed_loop", False):
        return None
    t = np.asarray(times, dtype=float)
    traj = getattr(profile, "trajectory", None)
    if traj is not None:
        return traj.evaluate(t)[0]
    target = getattr(profile, "target", None)
    if target is not None:
        return np.broadcast_to(np.asarray(target, float), (len(t), len(target))).copy()
    return None


def same_integrator(engine) -> str | None:
    """The analytic integrator that performs the same arithmetic as ``engine``'s, or None.

    Adapters name their scheme in crossdyn's terms (``engine.integrator``): PyBullet and
    MuJoCo ``Euler`` are ``semi-implicit-euler`` — unless MuJoCo integrates damping
    implicitly (``eulerdamp``) on a damped arm, which no analytic scheme reproduces.
    """
    from crossdyn.engines.analytic_engine import AnalyticEngine

    if isinstance(engine, AnalyticEngine):
        return None  # it *is* the analytic model
    scheme = str(getattr(engine, "integrator", ""))
    config = engine.config()
    if engine.spec.has_damping and (config.get("eulerdamp") or config.get("implicit_damping")):
        return None  # MuJoCo Euler with eulerdamp, Drake's discrete solver: damping implicit
    return scheme if scheme in ("rk4", "semi-implicit-euler", "euler") else None


def integration_order(engine) -> int:
    """The engine's own ``order`` where it states one (Drake's RK2/RK3/RK5), else from :data:`ORDER`."""
    order = getattr(engine, "order", None)
    return int(order) if order else ORDER.get(str(getattr(engine, "integrator", "")), 1)


def _versions() -> dict:
    import platform
    from importlib import metadata

    out = {"crossdyn": __version__, "python": platform.python_version()}
    for dist in ("numpy", "scipy", "mujoco", "pybullet", "pin", "sympy", "dartpy", "drake"):
        try:
            out["pinocchio" if dist == "pin" else dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out["pinocchio" if dist == "pin" else dist] = None
    return out


def _states(spec: ArmSpec, count: int, seed: int):
    rng = np.random.default_rng(seed)
    n = spec.n
    return (rng.uniform(-np.pi, np.pi, (count, n)), rng.uniform(-10, 10, (count, n)),
            rng.uniform(-50, 50, (count, n)), rng.uniform(-1, 1, (count, n)) * spec.torque_scale())


def _dense_free_reference(spec: ArmSpec, q0, duration: float, max_evaluations: int = 2_000_000):
    """DOP853 (rtol = atol = 1e-12) over the whole free motion, with dense output, for the convergence study.

    Returns None when it needs more than ``max_evaluations`` right-hand sides (a joint sticking under
    Coulomb friction makes q̇ chatter about 0): the study is then skipped and the summary says why.
    """
    from scipy.integrate import solve_ivp

    from crossdyn.analytic.codegen import compile_model
    from crossdyn.analytic.integrators import StiffnessError

    n = spec.n
    zero = (0.0,) * n
    fd = compile_model(spec).fd
    calls = [0]

    def rhs(t, x):
        calls[0] += 1
        if calls[0] > max_evaluations:
            raise StiffnessError("too stiff")
        return np.concatenate([x[n:], fd(x[:n], x[n:], zero)])

    try:
        return solve_ivp(rhs, (0.0, duration), np.concatenate([q0, np.zeros(n)]), method="DOP853",
                         rtol=1e-12, atol=1e-12, dense_output=True)
    except StiffnessError:
        return None


def compare(arm, options: CompareOptions | None = None, **kwargs) -> Comparison:
    """Compare every requested engine against the analytic reference (see the module docstring).

    ``arm`` is an :class:`ArmSpec`, a preset name or a TOML path; ``options`` a :class:`CompareOptions`, or
    its fields as keywords (``compare("planar2r", duration=1.0, engines=["mujoco-rk4"])``).
    """
    from crossdyn import analytic
    from crossdyn.inputs.profiles import make_profile
    from crossdyn.drive.runner import run_engine
    from crossdyn.engines import available_engines
    from crossdyn.models import load_arm
    from crossdyn.models.inertia import engine_inertias

    spec = arm if isinstance(arm, ArmSpec) else load_arm(arm)
    if options is not None and kwargs:
        raise TypeError("compare: give either options or keyword options, not both")
    opt = options or CompareOptions(**kwargs)
    tol = opt.tolerances
    say = opt.progress or (lambda msg: None)
    engines = list(opt.engines) if opt.engines else [e for e in DEFAULT_ENGINES if e in available_engines()]
    profile = _profile(opt.profile, spec)
    q0, qd0 = start_state(spec, profile, opt.q0, opt.qd0)
    dt, duration = opt.dt, opt.duration
    params = spec.params()
    escale, tscale = spec.energy_scale(), spec.torque_scale()
    free_profile = make_profile("zero", spec)
    user_spec, friction = spec, None
    if spec.has_friction and not opt.native_friction:  # applied mode: engines without f_c, the runner applies it
        from crossdyn.analytic.stick_slip import FrictionLaw, without_friction

        friction = FrictionLaw.of(spec, dt, q0)
        spec = without_friction(spec)

    say(f"[{spec.name}] reference: analytic model, DOP853 (rtol = atol = 1e-12), {duration:g} s at dt = {dt:g} s")
    ref_engine = _engine("analytic-reference", spec, dt, friction)
    reference = run_engine(ref_engine, profile, q0, qd0, duration)
    reference_free = run_engine(ref_engine, free_profile, q0, qd0, duration)
    same_cache: dict = {}
    qs, qds, qdds, taus = _states(spec, opt.n_states, opt.seed)
    if spec.has_effort:  # forward dynamics is judged on torques an actuator can give (MuJoCo's motors clamp)
        limit = spec.effort_limits()
        taus = np.clip(taus, -limit, limit)
    tau_ref = analytic.inverse_dynamics(spec, qs, qds, qdds)
    M_ref = analytic.mass_matrix(spec, qs)
    qdd_ref = analytic.forward_dynamics(spec, qs, qds, taus)
    conv_q0 = q0 + 0.5 * np.array([(-1) ** i for i in range(spec.n)])
    dense = _dense_free_reference(spec, conv_q0, opt.convergence_duration) \
        if opt.convergence_dts and not spec.has_limit_law and not spec.has_contact and friction is None else None

    static = StaticStates(qs, qds, qdds, taus, tau_ref, M_ref, qdd_ref)
    job = EngineJob(spec, opt, profile, free_profile, q0, qd0, reference, static, conv_q0, dense, friction)
    runs: dict[str, EngineRun] = {}
    interrupted = False
    if opt.jobs > 1 and len(engines) > 1:
        runs, interrupted = _run_parallel(engines, job, opt.jobs, say)
    else:
        runs, interrupted = _run_sequential(engines, job, say)

    _, subs = engine_inertias(spec)
    summary = {
        "schema": "crossdyn.compare/1",
        "arm": spec.name,
        "dof": spec.n,
        "spec": user_spec.to_dict(),
        "dt": dt,
        "duration": duration,
        "profile": profile.params(),
        "start": {"q0": q0.tolist(), "qd0": qd0.tolist()},
        "reference": {"model": "analytic (closed form / symbolic)", "integrator": "DOP853", "rtol": 1e-12,
                      "atol": 1e-12, "restarted_each_step": True, "status": reference.status,
                      "reason": reference.message, "free_status": reference_free.status,
                      "free_reason": reference_free.message},
        "energy_scale_j": escale,
        "torque_scale_nm": tscale,
        "inertia_substitutions": [s.as_dict() for s in subs],
        "versions": _versions(),
        "tolerances": tol.as_dict(),
        "engines": {name: run.summary | {"status": run.status, "reason": run.reason, "config": run.config,
                                         "stopped_at_s": _stopped_at(run)}
                    for name, run in runs.items()},
        "interrupted": interrupted,
    }
    failures, native_runs = [], {}
    for name, run in runs.items():
        if run.status != "ok":
            if run.status not in ("skipped", "unsupported"):
                failures.append(f"{name}: {run.status}: {run.reason}")
            continue
        for metric, values in run.summary.items():
            if isinstance(values, dict) and values.get("pass") is False:
                failures.append(f"{name}: {metric}: {values.get('failed_because', 'out of tolerance')}")
    if interrupted:  # a partial run never passes
        skipped = [name for name, run in runs.items() if run.status == "skipped"]
        failures.append(f"interrupted (Ctrl-C): not measured: {', '.join(skipped)}")
    if reference.status != "ok":
        failures.insert(0, f"reference: {reference.status}: {reference.message} (trajectory errors are measured "
                           "only up to that time)")
    notes = []
    if friction is not None:
        notes.append(f"Coulomb friction (applied mode): every engine is built with f_c = 0 (its own friction off: "
                     f"MuJoCo frictionloss, PyBullet's velocity motor, DART's constraint; Drake, which has none, "
                     f"then runs) and crossdyn applies {friction.describe()} from each engine's own state at every "
                     "step, held over the step, and to the reference the same way. v_s is chosen so that the held "
                     "law's step is monotone (no chatter about qd = 0); the set-valued stick-slip law is its v_s -> 0 "
                     "limit (crossdyn.analytic.stick_slip.simulate_stick_slip). Not measured with it: the free-swing "
                     "energy drift, the convergence study. --native-friction compares the engines' own friction")
    elif spec.has_friction:
        notes.append("Coulomb friction (f_c > 0) is modelled differently by each engine: F = f_c sign(qd) in the "
                     "analytic model, stick-slip constraints in PyBullet (velocity motor), MuJoCo (frictionloss) "
                     "and DART (joint Coulomb friction constraint); "
                     "expect disagreement wherever a joint slows to rest, and a reference that cannot follow sticking")
    for name, run in runs.items():
        if run.status == "unsupported":
            notes.append(f"{name} was not compared: {run.reason}")
    armature_note = _armature_note(runs)
    if armature_note:
        notes.append(armature_note)
    efforts = {name: run.summary["effort"] for name, run in runs.items() if "effort" in run.summary}
    ignoring = [f"{name} (joint {', '.join(map(str, e['native_ignored_joints']))})"
                for name, e in efforts.items() if e["native_ignored_joints"]]
    if ignoring:
        honouring = [name for name, e in efforts.items() if not e["native_ignored_joints"]]
        notes.append("effort limit: ignored natively by " + ", ".join(ignoring) + " (given 3x the limit for one "
                     "step they applied all of it)" + (f"; honoured natively by {', '.join(honouring)}"
                                                       if honouring else "")
                     + ". crossdyn saturates the torque itself before every engine (applied mode), so the runs "
                       "above are comparable; an engine driven directly would exceed the limit")
    if spec.has_limit_law:
        notes.append("joint limits: crossdyn applies the compliant limit law (limit_stiffness, limit_damping) from "
                     "each engine's own state at every step, held over the step (applied mode), and the reference "
                     "gets it the same way; the engines' own limits are off. Not measured with it: the free-swing "
                     "energy drift (the law stores and dissipates energy), the convergence study (its dense "
                     "reference has no limits), the native limit behaviour (compare --native measures it)")
        wdt = _limit_law_omega_dt(spec, q0, dt)
        if wdt > 0.1:  # heuristic: at k = 5000 on planar2r-limits (0.17) the held law ran away by 3 rad
            notes.append(f"joint limits: the law is held over each step, and with these stiffnesses "
                         f"sqrt(k / M_jj) dt reaches {wdt:.2g} (> 0.1): the held law is far from the continuous "
                         "one (first order in dt, and it can pump energy); lower dt to make the comparison mean "
                         "the physical law")
    elif opt.convergence_dts and dense is None and friction is None and not spec.has_contact:
        notes.append("convergence study skipped: the free-motion reference (DOP853 over the whole run) could not "
                     "be computed in a bounded number of steps (a joint sticking under Coulomb friction?)")
    if (opt.native and not spec.has_contact or opt.calibrate_limits) and not spec.has_limit_law:
        notes.append("--native / --calibrate-limits: this arm has no joint-limit law (limit_stiffness), nothing to "
                     "run natively or calibrate")
    if spec.has_contact:
        summary["contact"] = _contact_summary(spec, reference, runs, notes)
    if spec.has_limit_law:
        summary["limits"] = _limit_contacts(spec, opt, profile, q0, qd0, reference, runs, failures, notes, say,
                                            native_runs, friction)
    timelines: dict = {}
    native_contact_runs, native_contact_reference = {}, None
    if opt.calibrate_contact and not spec.has_contact:
        notes.append("--calibrate-contact: this arm has no contact ([contact] and [[obstacles]]), nothing to calibrate")
    if spec.has_contact and (opt.native or opt.contact_characterise or opt.calibrate_contact):
        native_contact_runs, native_contact_reference = _contact_native(spec, opt, profile, q0, qd0, engines, summary,
                                                                        failures, notes, say)
    if friction is not None:
        summary["friction"] = {"mode": "applied", "law": "-fc*tanh(qd/v_s)", "fc_nm": friction.fc.tolist(),
                               "v_s_rad_s": friction.v_s}
        if opt.characterise_friction:
            notes.extend(_friction_native(user_spec, profile, q0, qd0, duration, dt, summary, say, failures,
                                          timelines))
    summary["notes"] = notes
    summary["failures"] = failures
    summary["verdict"] = "fail" if failures else "pass"
    return Comparison(user_spec, opt, profile, q0, reference, reference_free, runs, summary, interrupted,
                      native_runs, timelines, native_contact_runs=native_contact_runs,
                      native_contact_reference=native_contact_reference)


def _profile(profile, spec):
    """A Profile from None (the default), a Profile, a profile name or a CSV path."""
    from crossdyn.inputs.profiles import Profile, default_profile, make_profile

    if profile is None:
        return default_profile(spec)
    if isinstance(profile, Profile):
        return profile
    from crossdyn.inputs.profile_options import parse_profile

    return parse_profile(str(profile), spec)


def _stopped_at(run: EngineRun) -> float | None:
    """Time (s) of the first bad state of a diverged or failed driven run; None if it ran to the end."""
    driven = run.driven
    t = getattr(driven, "diverged_at", None) if driven is not None else None
    return None if t is None else float(t)


def _engine_job(name: str, job: EngineJob, same_cache: dict, say) -> EngineRun:
    """Measure one engine; never raises (failures and Ctrl-C become the run's status)."""
    spec = job.spec
    run = EngineRun(name)
    try:
        _measure_engine(run, job, same_cache, say)
    except KeyboardInterrupt:
        run.status, run.reason = "skipped", "interrupted (Ctrl-C) while this engine ran"
        return run
    except EngineUnsupported as e:  # the engine cannot represent this arm (e.g. Drake, Coulomb friction)
        run.status, run.reason = "unsupported", str(e)
        say(f"[{spec.name}] {name}: unsupported: {run.reason}")
    except Exception as e:  # noqa: BLE001 — contain any engine failure, report it, go on
        run.status, run.reason = "failed", f"{type(e).__name__}: {e}"
        say(f"[{spec.name}] {name}: failed: {run.reason}")
    return run


def _run_sequential(engines, job: EngineJob, say) -> tuple[dict, bool]:
    """Measure engines one after the other in this process; Ctrl-C keeps what finished."""
    spec = job.spec
    runs: dict = {}
    same_cache: dict = {}
    current = None
    try:
        for name in engines:
            current = name
            runs[name] = _engine_job(name, job, same_cache, say)
            if runs[name].status == "skipped":  # Ctrl-C inside the engine's run
                raise KeyboardInterrupt
            say(f"[{spec.name}] {name}: done ({runs[name].status})")  # after its result is kept
        return runs, False
    except KeyboardInterrupt:
        for name in engines:
            if name not in runs:
                when = "while this engine ran" if name == current else "before this engine ran"
                runs[name] = EngineRun(name, "skipped", f"interrupted (Ctrl-C) {when}")
        return {name: runs[name] for name in engines}, True


def _stderr_progress(msg: str) -> None:
    import sys

    print(msg, file=sys.stderr, flush=True)


def _worker(name: str, job: EngineJob, verbose: bool, conn) -> None:
    """Child process: measure one engine and send the :class:`EngineRun` back through ``conn``."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C (and terminates us)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # forked with it blocked
    run = _engine_job(name, job, {}, _stderr_progress if verbose else (lambda msg: None))
    conn.send(run)
    conn.close()


def _exit_reason(code) -> str:
    import signal

    if code is None:
        return "still running"
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"


def _jax_started() -> bool:
    """JAX's backends are up in this process, and with them its thread pools: a fork now can deadlock in the
    child (JAX warns "os.fork() is incompatible with multithreaded code"), as ``compare --engines
    mjx@dtype=float64,…`` did — the CLI builds an engine with options once to check them."""
    import sys

    if "jax" not in sys.modules:
        return False
    from jax._src import xla_bridge

    return xla_bridge.backends_are_initialized()


def _run_parallel(engines, job: EngineJob, jobs: int, say) -> tuple[dict, bool]:
    """Measure engines in worker processes, one process per engine, at most ``jobs`` at a time.

    Each process builds its own engines, so results are identical to a sequential run.  A process
    that dies (e.g. a library crashing the interpreter) fails only its own engine.  Ctrl-C
    terminates the running processes; engines that finished keep their results, the others are
    ``skipped``.
    """
    import multiprocessing as mp
    import signal
    from multiprocessing.connection import wait

    spec, opt = job.spec, job.opt
    # fork (fast, nothing to pickle), unless JAX's threads exist here: then each worker is forked from a fresh
    # forkserver process instead, which never had them (the job is pickled to it); a crashing engine is still
    # contained in its own process either way (engines registered at run time in this process, not by an
    # import, are unknown to a forkserver's children: they are reported failed with the reason)
    ctx = mp.get_context("forkserver" if _jax_started() else "fork")
    if _jax_started():
        say(f"[{spec.name}] JAX's threads are running in this process (an MJX engine was built): engine workers "
            "start from a forkserver (forking this process would deadlock)")
    job = replace(job, opt=_without_progress(opt))
    verbose = opt.progress is not None
    pending = list(engines)
    running: dict = {}  # receiving end of the pipe -> (name, process)
    started: list = []
    runs: dict = {}
    interrupted = False
    try:
        while pending or running:
            while pending and len(running) < jobs:
                name = pending.pop(0)
                recv, send = ctx.Pipe(duplex=False)
                proc = ctx.Process(target=_worker, args=(name, job, verbose, send), daemon=True,
                                   name=f"crossdyn-{name}")
                # Ctrl-C is held back while forking: arriving inside fork's at-fork hooks it would be
                # printed and swallowed ("Exception ignored"); held, it is raised right after, here
                blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
                try:
                    proc.start()
                finally:
                    signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
                send.close()
                running[recv] = (name, proc)
                started.append(proc)
            for conn in wait(list(running)):
                name, proc = running[conn]
                try:
                    runs[name] = conn.recv()
                    say(f"[{spec.name}] {name}: done ({runs[name].status})")  # after its result is kept
                except (EOFError, OSError):  # the process died without sending its result
                    proc.join()
                    runs[name] = EngineRun(name, "failed", f"the worker process measuring {name} died "
                                           f"({_exit_reason(proc.exitcode)}) before reporting a result")
                    say(f"[{spec.name}] {name}: failed: {runs[name].reason}")
                del running[conn]
                conn.close()
                proc.join()
    except KeyboardInterrupt:
        interrupted = True
        for conn, (name, proc) in list(running.items()):
            if name not in runs and conn.poll(0):
                try:  # it finished just now: keep its result
                    runs[name] = conn.recv()
                except (EOFError, OSError):
                    pass
            if name not in runs and proc.is_alive():
                proc.terminate()
        for proc in started:
            proc.join(timeout=5)
            if proc.is_alive():
                proc.kill()
                proc.join()
        for conn in running:
            conn.close()
        for name in engines:
            if name not in runs:
                ran = any(p.name == f"crossdyn-{name}" for p in started)
                runs[name] = EngineRun(name, "skipped", "interrupted (Ctrl-C) "
                                       + ("while this engine ran" if ran else "before this engine ran"))
    return {name: runs[name] for name in engines}, interrupted


def _without_progress(opt: CompareOptions) -> CompareOptions:
    return replace(opt, progress=None)


def _effort_group(engine, driven) -> dict:
    """Metric group ``effort``: the applied-mode saturation of the driven run, and whether the engine
    honours the limit natively (:func:`crossdyn.drive.effort.native_effort_check`).  Informational: the
    comparison itself runs in applied mode, so every engine integrates the same saturated torque."""
    from crossdyn.native.effort import native_effort_check

    native = native_effort_check(engine)
    info = (driven.info or {}).get("effort", {})
    return {"mode": "applied: crossdyn saturates the commanded torque to [-effort, effort] before every engine",
            "limit_nm": info.get("limit_nm"), "saturated_steps": info.get("saturated_steps"),
            "native": native, "native_ignored_joints": [r["joint"] for r in native if not r["honoured"]]}


def _armature_group(spec, engine, q0) -> dict:
    """Metric group ``armature`` (arms with rotor armature I_a): does the engine carry it, and the I_a it holds
    (``config()["armature"]``).  For an engine that cannot (:meth:`Engine.unsupported`), the reason and, as a
    check of it, the deficit I_a − (M_analytic − M_engine)_ii on the diagonal at q0 (0: it lacks all of I_a).
    The engine's max |M − M_analytic| over the static states is added by :func:`_armature_m_errors`."""
    from crossdyn import analytic

    Ia = [float(l.armature) for l in spec.links]
    supported = "armature" in engine.supports
    held = engine.config().get("armature")
    out = {"armature_kgm2": Ia, "supported": supported,
           "engine_armature_kgm2": [float(x) for x in held] if isinstance(held, (list, tuple)) else None,
           "reason": None if supported else next((r for r in engine.unsupported() if r.startswith("armature")), None),
           "max_abs_M_error_kgm2": None, "max_abs_diag_error_kgm2": None, "missing_on_diagonal_kgm2": None}
    if not supported:
        try:
            q = np.asarray(q0, dtype=float)
            gap = np.diag(analytic.mass_matrix(spec, q) - np.asarray(engine.mass_matrix(q), dtype=float))
            out["missing_on_diagonal_kgm2"] = [float(x) for x in gap]
        except Exception as e:  # noqa: BLE001 — an engine that cannot even say its M is reported, not fatal
            out["missing_on_diagonal_kgm2"] = None
            out["reason"] = f"{out['reason']}; its mass matrix could not be read: {e}"
    return out


def _armature_m_errors(M_e, M_ref) -> dict:
    """max |M_engine − M_analytic| (analytic M with armature) over the static states, and per diagonal entry."""
    diag = np.abs(np.diagonal(M_e, axis1=-2, axis2=-1) - np.diagonal(M_ref, axis1=-2, axis2=-1))
    return {"max_abs_M_error_kgm2": metrics.max_abs(M_e, M_ref),
            "max_abs_diag_error_kgm2": [float(x) for x in np.max(diag, axis=0)]}


def _armature_note(runs) -> str | None:
    """One note line: which engines carry the armature (with their M error) and which cannot."""
    groups = {name: run.summary["armature"] for name, run in runs.items() if "armature" in run.summary}
    if not groups:
        return None
    first = next(iter(groups.values()))
    carried = [name for name, g in groups.items() if g["supported"]]
    errors = [g["max_abs_M_error_kgm2"] for g in groups.values() if g["max_abs_M_error_kgm2"] is not None]
    lacking = [name for name, g in groups.items() if not g["supported"]]
    return (f"rotor armature I_a = {first['armature_kgm2']} kg m^2 (added to M_ii): carried by "
            + (", ".join(carried) if carried else "no engine")
            + (f" (max |M - M_analytic| {max(errors):.2g} kg m^2 at most)" if errors else "")
            + (f"; unsupported by {', '.join(lacking)} (not compared, reason above)" if lacking else ""))


def _friction_native(spec, profile, q0, qd0, duration, dt, summary, say, failures=None, timelines=None) -> list[str]:
    """Native stick–slip of MuJoCo and PyBullet against the set-valued reference, judged
    (:mod:`crossdyn.comparison.native_friction`): into ``summary`` and ``failures``, the stick timelines into
    ``timelines``, notes back."""
    from crossdyn.native.friction import verdict as native_friction
    from crossdyn.native.friction.runs import characterise_friction
    from crossdyn.engines import available_engines

    names = [e for e in ("mujoco", "pybullet") if e in available_engines()]
    say(f"[{spec.name}] friction: native {', '.join(names)} against the set-valued stick-slip reference")
    try:
        native = characterise_friction(spec, profile, q0, qd0, duration, dt, names)
    except (ValueError, FloatingPointError) as e:
        return [f"friction: native characterisation not run: {e}"]
    for key, part in [("reference", native["reference"])] + list(native["engines"].items()):
        line = part.pop("timeline", None)
        if line is not None and timelines is not None:
            timelines[key] = line
    verdicts = native_friction.judge(native, dt)
    native["verdict"] = verdicts
    summary["friction"]["native"] = native
    if failures is not None:
        failures.extend(native_friction.failures(verdicts))
    ref = {r["joint"]: r for r in native["reference"]["joints"]}
    notes = []
    for name, e in native["engines"].items():
        if e["status"] != "ok":
            notes.append(f"friction, native {name}: {e['status']} {e.get('reason', '')}")
            continue
        parts = [f"joint {r['joint']}: stuck {r['stick_time_s']:.3g} s (reference {ref[r['joint']]['stick_time_s']:.3g} s), "
                 f"creep while stuck {r['creep_while_stuck_rad']:.2g} rad (floor "
                 f"{(r['creep_floor'].get('rate_rad_s') or 0):.2g} rad/s)" for r in e["joints"]]
        v = verdicts[name]
        notes.append(f"friction, native {name} ({e['friction_model']}; stuck = |qd| < {native['v_stick_rad_s']:g} "
                     f"rad/s): " + "; ".join(parts) + f" -> {'PASS' if v['pass'] else 'FAIL'} "
                     f"({len(v['departures'])} of {len(v['checks'])} checks beyond tolerance = 10 x Richardson "
                     f"(dt vs dt/2) + sampling (dt per interval end) + threshold (the stick criterion on the reference) + creep floor ({e['creep_floor_setting']}) "
                     "x longest reference stick)")
    return notes


CONTACT_OMEGA_DT_NOTE = 0.1
"""sqrt(k / m_n) dt above which ``compare`` says the held contact law is far from the continuous one (the limit
law's heuristic: at dt = 1 ms on planar2r-floor's drop, 0.16, the semi-implicit Euler engines end 0.17 rad from
the reference while RK4 engines are 5e-6 rad from it)."""


def _tip_kinematics_group(engine, spec: ArmSpec, driven, static) -> dict:
    """Metric group ``tip_kinematics``: the engine's tip position, velocity and Jacobian (from its own library:
    ``engine.tip_source``) against crossdyn's analytic kinematics at the first 100 static states and along the
    driven run; judged at :data:`crossdyn.drive.contact_applied.FK_TOLERANCE_REL` of the reach."""
    from crossdyn.drive.contact_applied import FK_TOLERANCE_REL, run_fk_errors, tip_fk_errors

    params = spec.params()
    at = tip_fk_errors(engine, params, static.q[:100], static.qd[:100])
    along = run_fk_errors(params, driven) or {}
    scale = spec.reach()
    vscale = scale * max(1.0, float(np.max(np.abs(static.qd[:100]))),
                         float(np.max(np.abs(driven.qd))) if len(driven.qd) else 0.0)
    pos = max(at["position_m"], along.get("position_m", 0.0))
    vel = max(at["velocity_m_s"], along.get("velocity_m_s", 0.0))
    out = {"source": getattr(engine, "tip_source", None), "max_tip_position_error_m": pos,
           "max_tip_velocity_error_m_s": vel, "max_jacobian_error_m": at["jacobian_m"],
           "states": int(min(100, len(static.q))), "along_run": along,
           "tolerance_m": FK_TOLERANCE_REL * scale, "velocity_tolerance_m_s": FK_TOLERANCE_REL * vscale}
    out["pass"] = bool(pos <= out["tolerance_m"] and at["jacobian_m"] <= out["tolerance_m"]
                       and vel <= out["velocity_tolerance_m_s"])
    if not out["pass"]:
        out["failed_because"] = (f"tip kinematics differ from the analytic ones: position {pos:.3g} m, Jacobian "
                                 f"{at['jacobian_m']:.3g} m (tolerance {out['tolerance_m']:.3g}), velocity {vel:.3g} "
                                 f"m/s (tolerance {out['velocity_tolerance_m_s']:.3g})")
    return out


def _contact_summary(spec: ArmSpec, reference, runs: dict, notes: list) -> dict:
    """summary["contact"] (applied mode): the law, the held law's coarseness, and per run (reference and every
    engine that ran) the contact quantities of :func:`crossdyn.drive.contact_applied.characterise` and the
    engine's tip-kinematics discrepancy.  ``summary["contact"]["native"]`` is left to native contact."""
    from crossdyn.analytic.contact import ContactLaw
    from crossdyn.drive.contact_applied import characterise, held_law_coarseness

    law = ContactLaw.of(spec, dt=reference.dt)
    coarse = held_law_coarseness(spec, law, reference)
    engines = {}
    for name, run in runs.items():
        if run.status not in ("ok", "diverged", "failed") or run.driven is None:
            continue
        entry = characterise(law, run.driven) or {}
        fk = run.summary.get("tip_kinematics", {})
        entry.update(tip_kinematics=fk.get("source"), max_tip_position_error_m=fk.get("max_tip_position_error_m"),
                     max_tip_velocity_error_m_s=fk.get("max_tip_velocity_error_m_s"),
                     max_jacobian_error_m=fk.get("max_jacobian_error_m"))
        engines[name] = entry
    out = {"mode": "applied", "law": law.describe(), "stiffness_n_m": law.stiffness, "damping_n_s_m": law.damping,
           "friction_mu": law.friction, "radius_m": law.radius, "slip_velocity_m_s": law.slip_velocity,
           "obstacles": [{"point": p.tolist(), "normal": n.tolist()} for p, n in zip(law.points, law.normals)],
           "held_law": coarse, "reference": characterise(law, reference), "engines": engines,
           "energy": "work-energy residual with the held contact torque among the applied torques: its work "
                     "-sum tau_c.dq is the law's stored energy plus dissipation, so the residual is the balance "
                     "E_arm + V + D; the free-swing drift is not measured (the arm strikes the obstacles)"}
    notes.append(f"contact (applied mode): crossdyn applies the tip contact law ({law.describe()}), computed from each "
                 "engine's own tip kinematics (MuJoCo site, PyBullet link, Pinocchio frame, Drake frame, DART body "
                 "node; the analytic kinematics for the others) at every step, tau_c = J_c^T F held over the step, "
                 "and to the reference the same way; the engines' own contact is off. Not measured with it: the "
                 "free-swing energy drift (the law stores and dissipates energy; the work-energy residual, which "
                 "includes the contact torque's work, is the balance E_arm + V + D), the convergence study (its "
                 "dense reference has no contact)")
    wdt = coarse["omega_dt"]
    if wdt is not None and wdt > CONTACT_OMEGA_DT_NOTE:
        notes.append(f"contact: the law is held over each step, and sqrt(k / m_n) dt reaches {wdt:.2g} (> "
                     f"{CONTACT_OMEGA_DT_NOTE:g}; m_n the arm's effective mass along the normal at the contact): a "
                     f"contact lasts about {math.pi / max(wdt, 1e-300):.0f} steps, the held law is far from the "
                     "continuous one (first order in dt), and first-order engines depart from the reference by far "
                     "more than RK4 ones; lower dt to make the comparison mean the physical law")
    fs = coarse["friction_step"]
    if fs is not None and fs > 1.0:
        notes.append(f"contact friction: held over a step, mu F_n tanh(v_t / v_s) is an explicit damper with dt mu "
                     f"F_n / (v_s m_t) up to {fs:.3g} (> 1): the held law overshoots v_t = 0 instead of sticking "
                     f"(v_s = {law.slip_velocity:g} m/s); every engine and the reference integrate the same held "
                     "law, so the comparison stands, but the sticking it shows is not the continuous law's")
    return out


def _limit_law_omega_dt(spec: ArmSpec, q0, dt: float) -> float:
    """max over joints with a limit law of sqrt(k_j / M_jj(q0)) · dt: how coarse the held law is."""
    from crossdyn import analytic

    M = analytic.mass_matrix(spec, np.asarray(q0, dtype=float))
    return max((math.sqrt(l.limit_stiffness / M[j, j]) * dt for j, l in enumerate(spec.links)
                if l.limit_stiffness > 0), default=0.0)


def native_limit_variant(name: str) -> str | None:
    """The engine name that runs ``name`` with its own joint limits, or None: MuJoCo (``range`` + solreflimit),
    PyBullet and Drake's discrete plant (URDF limits, ``@native_limits=true``), DART in World.step
    (``@enforce_limits=true``).  Continuous Drake plants ignore limits; dart-rk4 does not step the constraint."""
    if "@" in name:
        return None
    if name.startswith("mujoco") or name == "pybullet" or name == "drake-discrete":
        return f"{name}@native_limits=true"
    if name == "dart":
        return f"{name}@enforce_limits=true"
    return None


def _limit_contacts(spec, opt, profile, q0, qd0, reference, runs, failures, notes, say, native_runs,
                    friction=None) -> dict:
    """summary["limits"]: per limit contact the characterisation of the reference and every applied run, and
    with ``opt.native`` of MuJoCo's and PyBullet's native runs, judged (a departure fails naming engine, joint,
    quantity); see :mod:`crossdyn.drive.limit_contacts`."""
    from crossdyn.analytic.limits import LimitLaw
    from crossdyn.native.limits import episodes as lc
    from crossdyn.drive.runner import run_engine

    law = LimitLaw.of(spec)
    out = {"contacts": {"reference": lc.characterise(spec, law, reference, native=False)}, "native": {}}
    for name, run in runs.items():
        if run.status == "ok" and run.driven is not None:
            out["contacts"][name] = lc.characterise(spec, law, run.driven, native=False)
    if opt.calibrate_limits:
        from crossdyn.native.limits.calibration import calibrate_mujoco_limits

        say(f"[{spec.name}] calibrating MuJoCo's solreflimit/solimplimit to the limit law")
        out["calibration"] = calibrate_mujoco_limits(spec, profile, q0, qd0, opt.duration, opt.dt,
                                                     reference=reference)
        if "pybullet" in runs:
            from crossdyn.native.limits.calibration import calibrate_pybullet_limits

            say(f"[{spec.name}] calibrating PyBullet's jointLimitForce/erp to the limit law")
            try:
                out["calibration_pybullet"] = calibrate_pybullet_limits(spec, profile, q0, qd0, opt.duration, opt.dt,
                                                                        reference=reference)
            except Exception as e:  # noqa: BLE001 - a crashing engine is reported, not raised
                failures.append(f"pybullet limit calibration: error: {type(e).__name__}: {e}")
    if not opt.native:
        return out
    from crossdyn.native.limits.reference import continuous_reference
    from crossdyn.native.limits.verdict import judge_native_run

    cont, method = continuous_reference(spec, law, profile, q0, qd0, opt.duration, opt.dt, reference,
                                       friction)
    out["native_reference"] = method
    out["contacts"]["reference (continuous law)"] = cont_contacts = lc.characterise(spec, law, cont, native=False)
    natives = [(native_limit_variant(n), n, None, native_limit_variant(n)) for n in runs
               if runs[n].status == "ok" and native_limit_variant(n) is not None]
    cal = out.get("calibration")
    if cal:  # the calibrated MuJoCo limit, judged like the others
        natives.append((f"{cal['engine']}@native_limits=true", cal["engine"], cal,
                        f"{cal['engine']}@native_limits=true (calibrated)"))
    pcal = out.get("calibration_pybullet")
    if pcal:  # the calibrated PyBullet limit: its settings are engine options, so every side run gets them too
        natives.append((pcal["options"], pcal["engine"], None, f"{pcal['engine']}@native_limits=true (calibrated)"))
    for native_name, name, calibrated, label in natives:
        say(f"[{spec.name}] {label}: native limits")

        def make(engine_name, step, calibrated=calibrated):
            eng = _engine(engine_name, spec, step, friction)  # applied friction, if any, as the others
            for j, solref, solimp in zip(calibrated["joints"] if calibrated else (), calibrated["solreflimit"]
                                         if calibrated else (), calibrated["solimplimit"] if calibrated else ()):
                eng.model.jnt_solref[j - 1], eng.model.jnt_solimp[j - 1] = solref, solimp
            return eng
        try:
            with make(native_name, opt.dt) as eng:
                traj = run_engine(eng, profile, q0, qd0, opt.duration, limit_law=False)
            if traj.status != "ok":
                failures.append(f"{label}: {traj.status}: {traj.message}")
            native_runs[label] = traj
            out["contacts"][label] = lc.characterise(spec, law, traj, native=True)
            verdict = judge_native_run(spec, law, native_name, traj, make, held(profile, opt.dt), q0, qd0,
                                       opt.duration, opt.dt, cont_contacts, cont, opt.tolerances.trajectory_factor)
        except Exception as e:  # noqa: BLE001 - a crashing engine is reported, not raised
            failures.append(f"{label}: error: {type(e).__name__}: {e}")
            continue
        out["native"][label] = verdict
        failures.extend(native_limit_failures(label, verdict))
    notes.append("native limits: judged per contact against the " + method + "; tolerance per quantity = 10 x "
                 "the native run's own Richardson estimate (dt vs dt/2) + the inference error (torque quantities: "
                 "the inverse-dynamics inference applied to the reference) + sampling (time in contact: 2 dt) + the engine's measured softness (the "
                 "configuration spread of its static give under a held load, side runs, relative to the law's) "
                 "x |reference value|; each term in summary limits.native and the report")
    return out


def native_limit_failures(label: str, verdict: dict) -> list[str]:
    """One failure line per native departure, naming the engine, the joint, the limit, the contact and the
    quantity, with the tolerance and where it comes from."""
    out = []
    for d in verdict["departures"]:
        where = f"joint {d['joint']} {d['side']} limit" + (f", contact {d['contact']}" if d["contact"] else "")
        if d["quantity"] == "count":
            why = "tolerance 0"
        else:
            integ = "no dt/2 estimate" if d["integration"] is None else f"integration {d['integration']:.2g}"
            why = (f"tolerance {d['tolerance']:.3g} = {integ} + inference {d['inference']:.2g} + sampling "
                   f"{d['sampling']:.2g} + softness {d['softness']:.2g}")
        out.append(f"{label}: native limit departs at {where}: {d['quantity']} {d['native']:.4g} vs reference "
                   f"{d['reference']:.4g} ({why})")
    return out


def _contact_native(spec, opt, profile, q0, qd0, engines, summary, failures, notes, say) -> dict:
    """summary["contact"]["native"] (compare --native: each engine's own contact, characterised per episode and
    judged, :mod:`crossdyn.drive.contact_native`) and summary["contact"]["calibration"] (--calibrate-contact,
    :mod:`crossdyn.drive.contact_calibration`); departures become failures naming engine, obstacle, quantity.
    Returns the native runs' trajectories and the reference run."""
    from crossdyn.native.contact import runs as cn
    from crossdyn.native.contact.verdict import describe_departure

    out = summary.setdefault("contact", {})
    say(f"[{spec.name}] native contact: reference (the law, RK4 with located switches)")
    reference = cn.reference_run(spec, profile, q0, qd0, opt.duration, opt.dt)
    runs = {}
    if opt.native or opt.contact_characterise:
        native = cn.characterise_native_contact(spec, profile, q0, qd0, opt.duration, opt.dt, engines, reference, say)
        runs = {k: v["trajectory"] for k, v in native["engines"].items() if "trajectory" in v}
        native["judged"] = bool(opt.native)
        out["native"] = cn.summary_of(native)
        for name, e in native["engines"].items():
            if not opt.native:  # characterised and printed; the verdict stays the applied mode's
                continue
            if e["status"] != "ok":
                failures.append(f"{name}: native contact run {e['status']}: {e['reason']}")
            failures.extend(describe_departure(d) for d in e.get("verdict", {}).get("departures", []))
        notes.append(("native contact (characterised, NOT judged: the verdict above is the applied mode's; "
                      "compare --native makes each departure fail): " if not opt.native else "native contact: ")
                     + "each engine's own contact (MuJoCo: direct solref (-k A0, -c A0), solimp "
                     "d = 1e-4; PyBullet: contactStiffness k, contactDamping c; drake-discrete: SAP with relaxation "
                     "time c/k); each episode judged against the law restarted at the engine's own pre-contact state, "
                     "tolerance = integration-error estimate (the law with the engine's scheme at dt) + the engine's "
                     "measured contact-force departure from the law in that scheme + the dt grid's resolution; the "
                     "whole run's tip path is compared with the reference, not judged"
                     + (f". Not native (reasons above): {', '.join(native['unsupported'])}" if native["unsupported"]
                        else ""))
    if opt.calibrate_contact:
        from crossdyn.native.contact.calibration import calibrate_mujoco_contact, calibrate_pybullet_contact

        cal = {}
        for name in engines:
            base = name.split("@", 1)[0]
            if base in ("mujoco", "mujoco-euler", "mujoco-rk4") and "mujoco" not in cal:
                say(f"[{spec.name}] calibrating {base}'s contact solref/solimp to the law")
                cal["mujoco"] = calibrate_mujoco_contact(spec, profile, q0, qd0, opt.duration, opt.dt, base,
                                                         reference)
            elif base == "pybullet" and "pybullet" not in cal:
                say(f"[{spec.name}] calibrating PyBullet's contactStiffness/contactDamping to the law")
                cal["pybullet"] = calibrate_pybullet_contact(spec, profile, q0, qd0, opt.duration, opt.dt, base,
                                                             reference)
        out["calibration"] = cal
    return runs, reference


def _check(value, limit) -> bool:
    return value is not None and limit is not None and value <= limit


def _measure_engine(run: EngineRun, job: EngineJob, same_cache: dict, say) -> None:
    from crossdyn.drive.runner import run_engine, run_engine_many

    spec, opt, profile, free_profile = job.spec, job.opt, job.profile, job.free_profile
    q0, qd0, reference, conv_q0, dense = job.q0, job.qd0, job.reference, job.conv_q0, job.dense
    tol = opt.tolerances
    dt, duration = opt.dt, opt.duration
    params = spec.params()
    name = run.name
    engine = _engine(name, spec, dt, job.friction)
    try:
        run.config = engine.config()
        if job.friction is not None or spec.has_friction:  # Coulomb friction: which mode (CompareOptions)
            run.config["native_friction"] = job.friction is None
            if job.friction is not None:
                run.config["applied_friction"] = job.friction.describe()
        if spec.has_contact:  # applied contact: the law, and where this engine's tip kinematics come from
            from crossdyn.analytic.contact import ContactLaw

            run.config["applied_contact"] = ContactLaw.of(spec, dt=engine.dt).describe()
            run.config["tip_kinematics"] = getattr(engine, "tip_source", None)
        reasons = engine.unsupported()
        if spec.has_armature:
            run.summary["armature"] = _armature_group(spec, engine, q0)
        if reasons:  # the engine cannot represent this arm (e.g. PyBullet and armature): say so, measure nothing
            run.status, run.reason = "unsupported", "; ".join(reasons)
            say(f"[{spec.name}] {name}: unsupported: {run.reason}")
            return
        say(f"[{spec.name}] {name}: driven run ({profile.name}) and free swing")
        t0 = time.perf_counter()
        # one library call for both where the engine can (MuJoCo: mujoco.rollout, two trajectories)
        driven, free = run_engine_many(engine, [(profile, q0, qd0), (free_profile, q0, qd0)], duration)
        wall = time.perf_counter() - t0
        run.driven = driven
        steps = max(len(driven.t) - 1, 1) + max(len(free.t) - 1, 1)
        if driven.status != "ok":
            run.status = driven.status
            run.reason = driven.message or f"{driven.status} at t = {driven.diverged_at} s"
        traj = metrics.trajectory_errors(driven.t, driven.q, reference.q, params, tol.divergence_rad)

        # self-consistency: the same engine at dt/2, torque still held for dt
        order = integration_order(engine)
        with _engine(name, spec, dt / 2, job.friction) as half_engine:
            half = run_engine(half_engine, held(profile, dt), q0, qd0, duration, contact_hold=dt)
        q_half = half.q[::2]
        self_cons = metrics.max_abs(driven.q[: len(q_half)], q_half[: len(driven.q)]) if half.status == "ok" else None
        estimate = metrics.richardson_estimate(driven.q, q_half, order) if half.status == "ok" else None
        accuracy_estimate = None
        if getattr(engine, "error_controlled", False) and getattr(engine, "accuracy", None):
            # an error-controlled integrator's error is set by its accuracy target, not by dt: its internal steps
            # may be shorter than dt/2, so the dt/2 run shares its error and Richardson underestimates it (drake on
            # planar2r-floor's drop: error 1.3e-8 rad, 20x the dt/2 difference). Estimate: the same run at 1/10
            # of the target (1/100 gives the same estimate, 1.23e-8 against 1.28e-8, at twice the cost); the
            # tolerance takes the larger of the two estimates.
            from crossdyn.engines import make_engine

            with make_engine(name, spec, dt, accuracy=engine.accuracy / 10) as tight_engine:
                if job.friction is not None:
                    tight_engine.set_applied_friction(job.friction)
                tight = run_engine(tight_engine, profile, q0, qd0, duration)
            if tight.status == "ok" and driven.status == "ok":
                accuracy_estimate = metrics.max_abs(driven.q[: len(tight.q)], tight.q[: len(driven.q)])
                estimate = accuracy_estimate if estimate is None else max(estimate, accuracy_estimate)
        if tol.trajectory_abs_rad is not None:
            traj_tol = tol.trajectory_abs_rad
        elif estimate is not None:
            traj_tol = tol.trajectory_factor * estimate + tol.trajectory_floor_rad
        else:
            traj_tol = None
        traj.update(self_consistency_rad=self_cons, richardson_estimate_rad=estimate, integration_order=order,
                    accuracy_estimate_rad=accuracy_estimate,
                    tolerance_rad=traj_tol)

        # same integrator, analytic model: integration error cancels, model error remains
        scheme = same_integrator(engine)
        if scheme is not None:
            if scheme not in same_cache:
                ana = _engine({"semi-implicit-euler": "analytic-euler", "rk4": "analytic-rk4",
                               "euler": "analytic-explicit-euler"}[scheme], spec, dt, job.friction)
                same_cache[scheme] = run_engine(ana, profile, q0, qd0, duration)
            same = same_cache[scheme]
            traj["same_integrator"] = scheme
            traj["same_integrator_error_rad"] = metrics.max_abs(driven.q[: len(same.q)], same.q[: len(driven.q)])
            traj["same_integrator_tolerance_rad"] = tol.trajectory_same_integrator_rad
        else:
            traj["same_integrator"] = None
            traj["same_integrator_error_rad"] = None
        ok_ref = _check(traj["max_abs_error_rad"], traj_tol)
        ok_same = scheme is None or _check(traj["same_integrator_error_rad"], tol.trajectory_same_integrator_rad)
        traj["pass"] = bool(ok_ref and ok_same and driven.status == "ok")
        if not traj["pass"]:
            why = []
            if driven.status != "ok":
                why.append(f"run {driven.status}")
            if not ok_ref:
                why.append(f"max error vs reference {traj['max_abs_error_rad']:.3g} rad > tolerance "
                           f"{traj_tol if traj_tol is None else f'{traj_tol:.3g}'} rad")
            if not ok_same:
                why.append(f"error vs analytic {scheme} {traj['same_integrator_error_rad']:.3g} rad > "
                           f"{tol.trajectory_same_integrator_rad:g} rad (model differs)")
            traj["failed_because"] = "; ".join(why)
        run.summary["trajectory"] = traj
        desired = desired_motion(profile, driven.t)
        if desired is not None:  # closed loop: how well the engine's arm follows the controller's target
            e = driven.q - desired
            run.summary["tracking"] = {
                "max_abs_error_rad": metrics.max_abs(driven.q, desired),
                "rms_error_rad": float(np.sqrt(np.mean(e**2))) if e.size else None,
                "final_abs_error_rad": float(np.max(np.abs(e[-1]))) if e.size else None,
                "max_abs_error_per_joint_rad": np.max(np.abs(e), axis=0).tolist() if e.size else None,
                "note": "|q - q_d| against the controller's desired motion: a property of the gains, "
                        "reported, not judged",
            }

        # static quantities at random states
        st = job.static
        qs, qds, qdds, taus, tau_ref, M_ref, qdd_ref = st.q, st.qd, st.qdd, st.tau, st.tau_ref, st.M_ref, st.qdd_ref
        say(f"[{spec.name}] {name}: inverse/forward dynamics and mass matrix at {len(qs)} states")
        tau_e = np.array([engine.inverse_dynamics(qs[k], qds[k], qdds[k]) for k in range(len(qs))])
        M_e = np.array([engine.mass_matrix(qs[k]) for k in range(len(qs))])
        qdd_e = np.array([engine.forward_dynamics(qs[k], qds[k], taus[k]) for k in range(len(qs))])
        run.id_errors = tau_e - tau_ref
        tscale = spec.torque_scale()
        mscale = float(np.max(np.abs(M_ref)))
        ascale = max(1.0, float(np.max(np.abs(qdd_ref))))
        id_max = metrics.max_abs(tau_e, tau_ref)
        run.summary["inverse_dynamics"] = {
            "max_abs_error_nm": id_max, "max_abs_error_per_joint_nm": metrics.per_entry_max(tau_e, tau_ref),
            "rms_error_per_joint_nm": np.sqrt(np.mean((tau_e - tau_ref) ** 2, axis=0)).tolist(),
            "states": len(qs), "tolerance_nm": tol.inverse_dynamics_rel * tscale,
            "pass": id_max <= tol.inverse_dynamics_rel * tscale,
        }
        fd_max = metrics.max_abs(qdd_e, qdd_ref)
        run.summary["forward_dynamics"] = {
            "max_abs_error": fd_max, "max_abs_error_per_joint": metrics.per_entry_max(qdd_e, qdd_ref),
            "unit": "rad/s^2", "tolerance": tol.forward_dynamics_rel * ascale,
            "pass": fd_max <= tol.forward_dynamics_rel * ascale,
        }
        m_max = metrics.max_abs(M_e, M_ref)
        run.summary["mass_matrix"] = {
            "max_abs_error": m_max, "max_abs_error_per_entry": metrics.per_entry_max(M_e, M_ref),
            "unit": "kg m^2", "tolerance": tol.mass_matrix_rel * mscale, "pass": m_max <= tol.mass_matrix_rel * mscale,
        }
        if "armature" in run.summary:
            run.summary["armature"] |= _armature_m_errors(M_e, M_ref)
        for key in ("inverse_dynamics", "forward_dynamics", "mass_matrix"):
            s = run.summary[key]
            if not s["pass"]:
                err = s.get("max_abs_error_nm", s.get("max_abs_error"))
                s["failed_because"] = f"max error {err:.3g} > tolerance {s.get('tolerance_nm', s.get('tolerance')):.3g}"

        # energy: free swing from the same start, and the work–energy balance of the driven run
        run.free = free
        run.free_energy = np.array([sum(engine.energy(q, v)) for q, v in zip(free.q, free.qd)])
        run.driven_energy = np.array([sum(engine.energy(q, v)) for q, v in zip(driven.q, driven.qd)])
        escale = spec.energy_scale()
        drift = metrics.energy_drift(run.free_energy, escale)
        b = np.array([l.damping for l in spec.links])
        fc = np.array([l.friction for l in spec.links])
        residual = metrics.work_energy_residual(driven.q, driven.qd, driven.tau, run.driven_energy, dt, b, fc)
        energy_tol = tol.energy_for(scheme or str(engine.integrator))
        wer = float(np.max(np.abs(residual))) / escale
        # the balance is only as good as the integrator: its own O(dtᵖ) error, estimated (like the trajectory's)
        # from the dt/2 run sampled on the dt grid, where the held torques are the same intervals
        wer_estimate = None
        if half.status == "ok" and len(q_half) == len(driven.q):
            e_half = np.array([sum(engine.energy(q, v)) for q, v in zip(q_half, half.qd[::2])])
            res_half = metrics.work_energy_residual(q_half, half.qd[::2], half.tau[::2], e_half, dt, b, fc)
            wer_estimate = float(np.max(np.abs(residual - res_half))) * metrics.richardson_factor(order) / escale
        wer_tol = energy_tol if wer_estimate is None else max(energy_tol, tol.trajectory_factor * wer_estimate)
        energy = {"max_rel_drift": drift if not (spec.has_damping or spec.has_friction or spec.has_limit_law
                                                          or spec.has_contact or job.friction is not None) else None,
                  "work_energy_residual_rel": wer, "work_energy_richardson_estimate": wer_estimate,
                  "work_energy_tolerance": wer_tol, "energy_scale_j": escale, "tolerance": energy_tol,
                  "free_status": free.status}
        energy["pass"] = bool(free.status == "ok" and wer <= wer_tol
                              and (energy["max_rel_drift"] is None or drift <= energy_tol))
        if not energy["pass"]:
            energy["failed_because"] = (f"free-swing drift {drift:.3g} (tolerance {energy_tol:g}), work-energy "
                                        f"residual {wer:.3g} (tolerance {wer_tol:.3g}), relative to {escale:.4g} J")
        run.summary["energy"] = energy

        # speed
        run.summary["speed"] = {"us_per_step": wall / steps * 1e6, "steps": steps}
        if spec.has_contact:
            run.summary["tip_kinematics"] = _tip_kinematics_group(engine, spec, driven, st)
        if spec.has_effort:
            run.summary["effort"] = _effort_group(engine, driven)

        # convergence (free motion, dense DOP853 reference)
        if dense is not None:
            say(f"[{spec.name}] {name}: convergence at dt = {', '.join(f'{d:g}' for d in opt.convergence_dts)} s")
            errs, costs = [], []
            for cdt in opt.convergence_dts:
                with _engine(name, spec, cdt, job.friction) as ce:
                    t1 = time.perf_counter()
                    ctraj = run_engine(ce, free_profile, conv_q0, np.zeros(spec.n), opt.convergence_duration)
                    cost = (time.perf_counter() - t1) / opt.convergence_duration
                exact = dense.sol(ctraj.t)[: spec.n].T
                errs.append(metrics.max_abs(ctraj.q, exact) if ctraj.status == "ok" else None)
                costs.append(cost)
            run.convergence = {"dt": list(opt.convergence_dts), "max_abs_error_rad": errs,
                               "compute_s_per_sim_s": costs}
            run.summary["convergence"] = {
                "dt_s": list(opt.convergence_dts), "max_abs_error_rad": errs,
                "compute_s_per_sim_s": costs, "empirical_order": metrics.empirical_order(opt.convergence_dts, errs),
                # an error-controlled integrator (Drake's ``drake``) meets its accuracy at any dt: order ~0
                "expected_order": 0 if getattr(engine, "error_controlled", False) else order,
            }
    finally:
        engine.close()
