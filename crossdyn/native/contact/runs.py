"""The tip's contact in native mode: each engine's own contact configured from k, c, μ, run and judged (issue 13).

Applied mode computes the law F_n = max(0, k δ + c δ̇) from each engine's state and applies τ = Jᵀ F; natively
the engine's own contact acts instead:

- **MuJoCo** (``mujoco…@native_contact=true``): sphere–plane contact with the direct ``solref = (−k A0, −c A0)``
  and ``solimp`` d = 1e-4, whose force is k δ + c δ̇ to O(d) (:mod:`crossdyn.models.mjcf`); condim 3, elliptic
  cone, friction μ when μ > 0.
- **PyBullet** (``pybullet@native_contact=true``): the tip link's collision sphere against static planes,
  ``contactStiffness = k``, ``contactDamping = c`` (Bullet's ERP/CFM: the spring–damper solved implicitly over
  the step), restitution 0, lateral friction μ (:mod:`crossdyn.engines.pybullet.planar`).
- **Drake**, discrete plant only (``drake-discrete@native_contact=true``): point contact between a sphere on the
  tip body and half spaces, SAP's linear model f = (k (φ + τ v))₊ with τ = c/k — the law solved implicitly over
  the step, like PyBullet (:mod:`crossdyn.engines.drake.planar`).
- **unsupported**, with the reason (:data:`UNSUPPORTED`): the analytic model, Pinocchio, DART, Drake's
  continuous plant (see there).

Only the contact is native: each run gets every other law as the reference does — the spec's joint-limit law and
the applied Coulomb law (``exp.friction``), held over each step by the runner
(:func:`run_native`), and the law's runs (:func:`crossdyn.native.contact.reference.law_run`, the reference and
the integration-error estimates) get them held over each step the same way.

Each native run is characterised per contact episode (:mod:`crossdyn.native.contact.episodes`).  The whole run's
episodes are shown beside the reference's with the tip path's deviation from it; each native episode is *judged*
against the law restarted at the engine's own state just before that touch (the sequence and timing of later
contacts is sensitive to small differences, Chung & Pollard 2016), with a tolerance built from (1) the
integration-error estimate — the law integrated from the same state with the engine's own scheme at dt
(semi-implicit Euler with the force held over the step for MuJoCo Euler, RK4 with the law at every stage for
MuJoCo RK4, semi-implicit Euler with the force solved implicitly for PyBullet and Drake) departs from the located
reference by that much — and (2) the engine's measured contact softness
(:func:`crossdyn.native.contact.softness.probe_softness`: its contact force's largest relative departure from what
the law gives in that scheme, at probe states) times the reference's value.
"""
from __future__ import annotations

from typing import Any

from crossdyn.engines import registry
from crossdyn.analytic.laws.contact import ContactLaw
from crossdyn.drive.runner import run_engine
from crossdyn.native.contact.episodes import characterise, path_deviation
from crossdyn.native.contact.reference import reference_run, spec_law
from crossdyn.native.contact.softness import probe_softness
from crossdyn.native.contact.verdict import ContactRun, Scheme, judge
from crossdyn.native.experiment import Experiment, engine_failure, experiment_form
from crossdyn.processes import fork_map
from crossdyn.status import RunStatus

__all__ = ["UNSUPPORTED", "characterise_native_contact", "estimate_scheme", "native_contact_variant",
           "reference_run", "run_native", "summary_of", "unsupported_reason"]

UNSUPPORTED = {
    "analytic": "the analytic model has no contact of its own: the law is crossdyn's (applied mode), and it is "
                "the reference here",
    "pinocchio": "Pinocchio computes rigid-body dynamics without collision response: its forward dynamics has no "
                 "contact between the tip and an obstacle to configure (contact needs a constraint or compliance "
                 "model built on top of it: that is crossdyn's applied mode)",
    "dart": "DART's contact is a rigid LCP constraint (restitution, friction, an error-reduction parameter) with no "
            "stiffness or damping to set from k and c: it cannot represent the spring-damper law",
    "drake": "Drake's continuous plant's point contact is Hunt-Crossley, f = k x (1 + d x'), not the spring-damper "
             "law: native contact is configured on the discrete plant only (drake-discrete@native_contact=true: "
             "SAP's linear model f = (k (x + tau x'))+ with relaxation time tau = c/k)",
    "mjx": "MJX is not run natively here (its contact follows MuJoCo's; compare mujoco@native_contact=true)",
    "jax": "the JAX model has no contact of its own (applied mode only)",
    "numpy": "the NumPy model has no contact of its own (applied mode only)",
    "user": "a user's equations have no contact of their own (applied mode only)",
}


def native_contact_variant(name: str) -> str | None:
    """The engine name that runs ``name`` with its own contact (``…@native_contact=true``), or None: the registry's
    native option (:func:`crossdyn.engines.registry.native_variant`; MuJoCo's explicit integrators, PyBullet,
    drake-discrete)."""
    return registry.native_variant(name, "contact")


def unsupported_reason(name: str) -> str:
    """Why ``name`` has no native contact here (one line)."""
    base = name.split("@", 1)[0]
    if base.startswith("mujoco-implicit"):
        return ("MuJoCo's implicit integrators are not characterised natively here (the estimate needs the "
                "engine's scheme): use mujoco or mujoco-rk4")
    for key, why in UNSUPPORTED.items():
        if base.startswith(key):
            return why
    return f"{base}: no native contact configured by crossdyn"


def estimate_scheme(engine) -> tuple[str, int, bool]:
    """(scheme, substeps, locate) of :func:`crossdyn.native.contact.reference.law_run` that does what ``engine`` does
    with its contact force: solved implicitly over the step (PyBullet's ERP/CFM, Drake's SAP:
    ``contact_implicit``), RK4 at every stage (MuJoCo RK4), else semi-implicit Euler with the force held."""
    if engine.contact_implicit:
        return "implicit-contact", 1, False
    if engine.integrator == "rk4":
        return "rk4", 1, False
    return "semi-implicit-euler", 1, False


def run_native(engine, profile, q0, qd0, duration: float):
    """``run_engine`` with the applied contact law off (``contact_law=False``): the engine's own contact acts
    instead.  Every other law acts as it does on the reference: the spec's joint-limit law (applied from the
    engine's state, held over the step), the applied Coulomb law the engine was given
    (:meth:`~crossdyn.native.experiment.Experiment.engine`), effort saturation."""
    return run_engine(engine, profile, q0, qd0, duration, contact_law=False)


@experiment_form("engines", "reference", "say", "jobs")
def characterise_native_contact(exp: Experiment, engines, reference=None, say=None, jobs: int = 1) -> dict:
    """Run each engine of ``engines`` (names; each mapped by :func:`native_contact_variant`) with its own contact,
    characterise and judge it (module docstring); up to ``jobs`` engines at a time, each in a child process
    (:func:`crossdyn.processes.fork_map`: the same entries as one after the other).  Returns {"reference": {"method", "episodes"}, "engines":
    {native name: {"status", "reason", "config", "softness", "estimate", "episodes", "episode_count",
    "path_deviation_m", "verdict", "trajectory"}}, "unsupported": {name: reason}}."""
    say = say or (lambda msg: None)
    spec = exp.spec
    law = spec_law(spec)
    if reference is None:
        reference = reference_run(exp)
    ref_eps = characterise(spec, law, reference, native=False)
    out: dict[str, Any] = {"law": law.describe(),
           "reference": {"method": reference.info.get("engine", reference.method), "status": reference.status,
                         "episodes": ref_eps},
           "engines": {}, "unsupported": {}}
    natives: list[str] = []
    for name in engines:
        native = native_contact_variant(name)
        if native is None:
            out["unsupported"][name] = unsupported_reason(name)
        elif native not in natives:
            natives.append(native)
    for native in natives:
        say(f"[{spec.name}] {native}: native contact")
    entries = fork_map(lambda native: _native_entry(exp, native, law, reference, ref_eps), natives, jobs)
    out["engines"] = dict(zip(natives, entries, strict=True))
    return out


def _native_entry(exp: Experiment, native: str, law: ContactLaw, reference, ref_eps: list) -> dict:
    """One engine's native contact run, characterised per episode and judged (an engine that fails is
    :attr:`RunStatus.FAILED` with the reason)."""
    spec = exp.spec
    entry: dict = {"status": RunStatus.OK, "reason": ""}
    try:
        with exp.engine(native) as eng:  # the applied Coulomb law, if any, as the reference gets it
            traj = run_native(eng, exp.profile, exp.q0, exp.qd0, exp.duration)
            cfg = eng.config()
            scheme, substeps, locate = estimate_scheme(eng)
        with exp.engine(native) as probe:
            soft = probe_softness(probe, spec, law, implicit=scheme == "implicit-contact")
    except Exception as e:  # noqa: BLE001 — an engine's failure is a result (engine_failure); crossdyn's bugs raise
        if not engine_failure(e):
            raise
        entry.update(status=RunStatus.FAILED, reason=f"{type(e).__name__}: {e}")
        return entry
    entry["config"] = {k: v for k, v in cfg.items() if k.startswith("contact") or k in (
        "obstacle_planes", "impratio", "physics_engine_parameters")}
    entry["softness"] = soft
    if traj.status != "ok":
        entry.update(status=traj.status, reason=traj.message)
    entry["estimate"] = {"scheme": scheme, "substeps": substeps, "located": locate}
    entry["episodes"] = characterise(spec, law, traj, native=True, reference=reference)
    entry["episode_count"] = {"native": len(entry["episodes"]), "reference": len(ref_eps)}
    entry["path_deviation_m"] = path_deviation(spec, traj, reference)
    softness = soft["relative_force_error_max"] or 0.0
    run = ContactRun(native, spec, law, exp.profile, traj, exp.friction)
    entry["verdict"] = judge(run, entry["episodes"], Scheme(scheme, traj.dt, substeps, locate), softness)
    entry["trajectory"] = traj
    return entry


def summary_of(native: dict) -> dict:
    """``native`` without the trajectories (JSON)."""
    return {**native, "engines": {k: {kk: vv for kk, vv in v.items() if kk != "trajectory"}
                                  for k, v in native["engines"].items()}}
