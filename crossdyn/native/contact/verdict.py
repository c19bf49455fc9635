"""Judging a native contact (compare --native): each native episode against the law restarted at the engine's
own pre-contact state, and the characterisation's table with its PASS/FAIL lines.

The sequence and timing of later contacts is sensitive to small differences (Chung & Pollard 2016), so each
native episode is judged against the law restarted at the engine's own state just before that touch, with a
tolerance per quantity X built from measured numbers only:

    |X_native − X_ref| ≤ |X_est − X_ref| + s_X · min(ε, ε_max) · max(|X_ref|, |X_est|) + resolution_X

* X_ref: the law's exact run from that state (:func:`~crossdyn.native.contact.reference.exact_run`);
* X_est: the law integrated from the same state with the engine's own scheme at dt (its integration-error
  estimate: semi-implicit Euler with the force held for MuJoCo Euler, RK4 with the law at every stage for MuJoCo
  RK4, the force solved implicitly for PyBullet and Drake), its forces inferred as the engine's are;
* ε: the engine's measured contact softness (:func:`~crossdyn.native.contact.softness.probe_softness`), s_X
  :data:`SOFTNESS_ORDER`, ε_max :data:`SOFTNESS_LIMIT` (beyond it the softness itself is a departure);
* resolution_X: what one sample interval can hide (the native episode's ``resolution``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from crossdyn.analytic.laws.contact import ContactLaw
from crossdyn.native.contact.episodes import QUANTITIES, characterise
from crossdyn.native.contact.reference import exact_run, law_run
from crossdyn.native.experiment import Experiment, legacy_form
from crossdyn.status import RunStatus

SOFTNESS_ORDER = {"energy_dissipated_j": 2.0}
"""How many times the relative force departure ε a quantity's allowance takes: 1, but 2 for the energy dissipated
(a product of force and displacement, each moved by ~ε)."""
SOFTNESS_LIMIT = 0.05
"""A native contact whose force departs from the law by more than this (relative, at the probe states) is not the
law's contact: that departure itself fails, and it is not used as an allowance."""


class _Shifted:
    """``profile`` seen from time ``t0`` on (a run restarted at t0 gets the torque the original run got)."""

    def __init__(self, profile, t0: float):
        self.profile, self.t0 = profile, float(t0)
        self.closed_loop = getattr(profile, "closed_loop", False) or not hasattr(profile, "sample")
        self.name = getattr(profile, "name", "profile")

    def sample(self, times):
        return self.profile.sample(np.asarray(times) + self.t0)

    def __call__(self, t, q, qd):
        return self.profile(t + self.t0, q, qd)


@dataclass(frozen=True, eq=False)
class ContactRun:
    """A run judged against the contact law: the ``engine`` that made it, the arm ``spec``, the ``law``, the
    ``profile`` that drove it, its Trajectory ``traj`` and the applied Coulomb law it ran with (``friction``, or
    None), which the law's restarted runs get too."""

    engine: str
    spec: Any
    law: ContactLaw
    profile: Any
    traj: Any
    friction: Any = None


class Scheme(NamedTuple):
    """How the law is integrated for a restarted run: ``name`` ("exact": :func:`exact_run`; else a
    :func:`law_run` scheme), at the step ``dt``, with ``substeps`` and ``locate`` (see :func:`law_run`)."""

    name: str
    dt: float
    substeps: int = 1
    locate: bool = False


def _restarted_pack(a: dict) -> tuple:
    run = ContactRun("", a.pop("spec"), a.pop("law"), a.pop("profile"), a.pop("traj"))
    scheme = Scheme(a.pop("scheme"), a.pop("dt"), a.pop("substeps", 1), a.pop("locate", False))
    return (run, a.pop("episode"), scheme), a


@legacy_form(("spec", "law", "profile", "traj", "episode", "scheme", "dt", "substeps", "locate", "margin_s",
              "inferred"), 7, _restarted_pack, marker=ContactRun)
def restarted(run: ContactRun, episode: dict, scheme: Scheme, margin_s: float = 0.02, inferred: bool = False):
    """The law's run restarted at the state the run ``run.traj`` had just before ``episode`` (its
    ``start_sample``), long enough to close the episode (twice its duration plus ``margin_s``, within the run),
    integrated by ``scheme``, characterised; returns its first episode against the same obstacle (or None).
    ``inferred``: its forces inferred from the motion like a native run's
    (:func:`crossdyn.native.contact.episodes.inferred_forces`), so that an estimate is measured the way the
    engine is."""
    spec, law, profile, traj, dt = run.spec, run.law, run.profile, run.traj, scheme.dt
    i0 = episode["start_sample"]
    t0 = float(traj.t[i0])
    T = min(float(traj.t[-1]) - t0, 2 * episode["duration_s"] + margin_s)
    if T < dt:
        return None
    shifted, T = _Shifted(profile, t0), round(T / dt) * dt
    exp = Experiment(spec, shifted, traj.q[i0], traj.qd[i0], T, dt, run.friction)
    law_traj = (exact_run(exp, law) if scheme.name == "exact" else
                law_run(exp, scheme.name, scheme.substeps, scheme.locate, law))
    eps = [e for e in characterise(spec, law, law_traj, native=inferred) if e["obstacle"] == episode["obstacle"]]
    return eps[0] if eps else None


def _judge_pack(a: dict) -> tuple:
    run = ContactRun(a.pop("engine"), a.pop("spec"), a.pop("law"), a.pop("profile"), a.pop("traj"))
    scheme = Scheme(a.pop("scheme"), run.traj.dt, a.pop("substeps", 1), a.pop("locate", False))
    return (run, a.pop("native"), scheme, a.pop("softness")), a


@legacy_form(("engine", "spec", "law", "profile", "traj", "native", "scheme", "softness", "substeps", "locate"), 8,
             _judge_pack, marker=ContactRun)
def judge(run: ContactRun, native: list[dict], scheme: Scheme, softness: float) -> dict:
    """Each native episode of ``run`` (``native``: its episodes) against the law restarted at the engine's own
    state just before it.

    The reference for episode i is the law's exact run (:func:`exact_run`) started at the native run's state at
    the sample before the touch, so what is judged is the engine's contact itself, not the
    trajectory's accumulated departure before it (the order and timing of later contacts is sensitive to small
    differences: the tip path's deviation from the global reference is reported beside, not judged).  Tolerance
    per quantity: the integration-error estimate |X_est − X_ref| (the law integrated from the same state with the
    engine's scheme at its dt: ``scheme``; its forces inferred from its motion as the
    engine's are, so the estimate includes what that inference does to an RK4 step's average force) plus
    ``softness`` · |X_ref| (the engine's measured relative contact-force departure,
    :func:`crossdyn.native.contact.softness.probe_softness`, times :data:`SOFTNESS_ORDER`; a softness beyond
    :data:`SOFTNESS_LIMIT` is itself a departure, ``contact_force_vs_law``, and allows no more than the limit),
    plus the quantity's resolution on the dt grid (the native episode's ``resolution``: dt for the duration, the
    peak force times dt for the impulse, one step's change of the normal speed at touch and release for the
    restitution; 0 for the others).
    Returns {"pass", "checked", "softness", "episodes": [{"reference", "estimate"} per native episode],
    "departures": [{"engine", "obstacle", "episode", "quantity", "reference", "native", "tolerance"}]}.
    """
    engine, traj = run.engine, run.traj
    departures, checked = [], 1
    rows: list[dict | None] = []
    if softness > SOFTNESS_LIMIT:
        departures.append({"engine": engine, "obstacle": None, "episode": None, "quantity": "contact_force_vs_law",
                           "reference": 0.0, "native": softness, "tolerance": SOFTNESS_LIMIT})
    for e in native:
        if e["open"]:
            rows.append(None)
            continue
        ref = restarted(run, e, Scheme("exact", traj.dt))
        est = restarted(run, e, scheme, inferred=True)
        rows.append({"reference": ref, "estimate": est})
        if ref is None:
            departures.append({"engine": engine, "obstacle": e["obstacle"], "episode": e["episode"],
                               "quantity": "count", "reference": 0, "native": 1, "tolerance": 0})
            continue
        for qn in QUANTITIES:
            xr, xn = ref[qn], e[qn]
            if xr is None or xn is None:
                continue
            xe = est[qn] if est is not None and est[qn] is not None else None
            err = abs(xe - xr) if xe is not None else abs(xr)
            scale = max(abs(xr), abs(xe)) if xe is not None else abs(xr)
            tol = (err + SOFTNESS_ORDER.get(qn, 1.0) * min(softness, SOFTNESS_LIMIT) * scale
                   + e.get("resolution", {}).get(qn, 0.0))
            checked += 1
            if not abs(xn - xr) <= tol:
                departures.append({"engine": engine, "obstacle": e["obstacle"], "episode": e["episode"],
                                   "quantity": qn, "reference": xr, "native": xn, "tolerance": tol})
    return {"pass": not departures, "checked": checked, "softness": softness, "episodes": rows,
            "departures": departures}


def describe_departure(d: dict) -> str:
    """One line naming the engine, the obstacle and the quantity."""
    if d["quantity"] == "contact_force_vs_law":
        return (f"{d['engine']}: native contact force departs from the law by {100 * d['native']:.3g} % at the probe "
                f"states (limit {100 * d['tolerance']:.3g} %)")
    where = f"obstacle {d['obstacle']}" + (f", episode {d['episode']}" if d["episode"] else "")
    return (f"{d['engine']}: native contact departs at {where}: {d['quantity']} {d['native']:.4g} against "
            f"{d['reference']:.4g} (tolerance {d['tolerance']:.2g})")


def failures(verdicts: dict) -> list[str]:
    """One line per departure of every native run in ``verdicts`` (engine → :func:`judge`'s verdict)."""
    return [describe_departure(d) for v in verdicts.values() for d in v.get("departures", [])]


def table(native: dict) -> list[str]:
    """The characterisation as text lines (compare's output, the report): per engine and episode."""
    head = (f"  {'run':<34} {'ob':>2} {'ep':>2} {'t_in s':>7} {'pen mm':>7} {'F_max N':>8} {'dur ms':>7} "
            f"{'e':>6} {'J N s':>7} {'E_diss J':>8} {'path mm':>7}")
    lines = [head]

    def row(label, e):
        def f(x, scale=1.0, fmt="{:.3g}"):
            return "-" if x is None else fmt.format(x * scale)
        return (f"  {label:<34} {e['obstacle']:>2} {e['episode']:>2} {e['t_enter_s']:>7.4f} "
                f"{f(e['max_penetration_m'], 1e3):>7} {f(e['peak_normal_force_n']):>8} {f(e['duration_s'], 1e3):>7} "
                f"{f(e['restitution']):>6} {f(e['impulse_ns']):>7} {f(e['energy_dissipated_j']):>8} "
                f"{f(e.get('path_deviation_m'), 1e3):>7}")

    for e in native["reference"]["episodes"]:
        lines.append(row("reference", e))
    for name, entry in native["engines"].items():
        if entry["status"] != RunStatus.OK and not entry.get("episodes"):
            lines.append(f"  {name}: {entry['status']}: {entry['reason']}")
            continue
        for e in entry["episodes"]:
            lines.append(row(name, e))
        lines.append(_verdict_line(name, entry, native.get("judged", True)))
    for name, why in native["unsupported"].items():
        lines.append(f"  {name}: unsupported natively: {why}")
    return lines


def _verdict_line(name: str, entry: dict, judged: bool) -> str:
    """The line under an engine's episodes: PASS/FAIL (or, characterised only, whether it is within tolerance),
    with the softness, the estimate's scheme and the whole-run path deviation."""
    v = entry["verdict"]
    soft = entry["softness"]
    verdict = ('PASS' if v['pass'] else 'FAIL') if judged else \
        ('within tolerance, not judged' if v['pass'] else 'departs, not judged (--native judges)')
    return (f"    -> {name}: {verdict} (each episode against the law restarted at "
            f"its pre-contact state: {v['checked']} checked, "
            f"{len(v['departures'])} departures); contact force vs the law in the engine's scheme "
            f"(max |F - F_law| / F_law over {soft['states']} probes) {_pct(soft['relative_force_error_max'])}; "
            f"estimate scheme {entry['estimate']['scheme']}; whole-run path deviation "
            f"{entry['path_deviation_m'] * 1e3:.3g} mm")


def _pct(x) -> str:
    return "-" if x is None else f"{100 * x:.3g} %"


