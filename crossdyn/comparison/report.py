"""Write a comparison's outputs: summary.json, tidy time series, plots, report.md and report.html.

Every file is written atomically (temporary file, then rename).  The HTML report
is self-contained: images are embedded as base64 data URIs.
"""
from __future__ import annotations

import base64
import html
import io
from pathlib import Path

import numpy as np

from crossdyn.io import write_bytes_atomic, write_json_atomic, write_text_atomic

PLOTS = ("arm.png", "angles.png", "tracking.png", "error.png", "energy.png", "id_error_hist.png", "convergence.png",
         "animation.gif", "limit_angles.png", "limit_torque.png", "stick_slip.png", "contact.png", "tip_path.png",
         "native_contact.png")
"""Every figure a report may hold (tracking.png for closed-loop profiles only)."""


# --------------------------------------------------------------------------- tables
def timeseries(cmp) -> "pandas.DataFrame":  # noqa: F821
    """One row per engine × run × time: t, q1…qn, qd1…qdn, tau1…taun, err1…errn (vs reference), energy."""
    import pandas as pd

    n = cmp.spec.n
    frames = []

    def add(engine: str, run: str, traj, energy=None, ref=None):
        if traj is None:
            return
        k = len(traj.t)
        data = {"engine": [engine] * k, "run": [run] * k, "t": traj.t}
        for j in range(n):
            data[f"q{j + 1}"] = traj.q[:, j]
        for j in range(n):
            data[f"qd{j + 1}"] = traj.qd[:, j]
        tau = np.full((k, n), np.nan)
        tau[: len(traj.tau)] = traj.tau
        for j in range(n):
            data[f"tau{j + 1}"] = tau[:, j]
        err = np.full((k, n), np.nan)
        if ref is not None:
            m = min(k, len(ref.q))
            err[:m] = traj.q[:m] - ref.q[:m]
        for j in range(n):
            data[f"err{j + 1}"] = err[:, j]
        data["energy"] = energy if energy is not None else np.full(k, np.nan)
        frames.append(pd.DataFrame(data))

    add("reference", "driven", cmp.reference)
    add("reference", "free", cmp.reference_free)
    for name, run in cmp.runs.items():
        add(name, "driven", run.driven, run.driven_energy, cmp.reference)
        add(name, "free", run.free, run.free_energy, cmp.reference_free)
    return pd.concat(frames, ignore_index=True)


# --------------------------------------------------------------------------- plots
def _png(fig) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90, bbox_inches="tight")
    import matplotlib.pyplot as plt

    plt.close(fig)
    return buf.getvalue()


STYLES = [("-", "o"), ("--", "s"), (":", "^"), ("-.", "D"), ((0, (5, 1, 1, 1)), "v"), ((0, (1, 1)), "x"),
          ((0, (3, 1, 1, 1, 1, 1)), "P"), ((0, (8, 2)), "*")]
"""Line style and marker per engine, so engines whose curves coincide stay distinguishable."""

COINCIDE_RAD = 1e-9
"""Engines whose driven trajectories differ by less than this (rad) everywhere are noted as coinciding."""


def coincidences(runs: dict, which: str = "driven") -> dict[str, tuple[str, float]]:
    """engine → (an earlier-listed engine it coincides with, their max |q_a − q_b| in rad) where below
    :data:`COINCIDE_RAD` — the legend says so, since the later curve hides exactly under the earlier one."""
    out: dict[str, tuple[str, float]] = {}
    names = list(runs)
    for i, b in enumerate(names):
        for a in names[:i]:
            if a in out:
                continue
            ta, tb = getattr(runs[a], which), getattr(runs[b], which)
            if ta is None or tb is None:
                continue
            qa, qb = ta.q, tb.q
            k = min(len(qa), len(qb))
            if k == len(qa) == len(qb) and k:
                d = float(np.max(np.abs(qa[:k] - qb[:k])))
                if d < COINCIDE_RAD:
                    out[b] = (a, d)
                    break
    return out


def _label(name: str, same: dict) -> str:
    if name not in same:
        return name
    other, d = same[name]
    return f"{name} (= {other} within {max(d, 1e-300):.0e} rad)" if d > 0 else f"{name} (= {other} exactly)"


def _legend_outside(ax, **kw):
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, fontsize=8, **kw)


def desired_motion(cmp, times):
    from crossdyn.comparison.compare import desired_motion as dm

    return dm(cmp.profile, times)


def draw_arm(spec, q, title: str | None = None) -> bytes:
    """PNG of the arm at configuration ``q``: links, joints, centres of mass, the gravity direction, labels."""
    import matplotlib.pyplot as plt

    from crossdyn.analytic.kinematics import com_positions, joint_positions

    p = spec.params()
    q = np.asarray(q, dtype=float)
    P = joint_positions(p, q[None])[0]
    C = com_positions(p, q[None])[0]
    reach = spec.reach() * 1.15
    fig, ax = plt.subplots(figsize=(5.5, 5.5))
    ax.plot(P[:, 0], P[:, 1], "-", color="0.25", lw=4, solid_capstyle="round", zorder=1)
    ax.plot(P[:-1, 0], P[:-1, 1], "o", ms=9, mfc="white", mec="k", mew=1.5, zorder=3, label="joints (axes +z)")
    ax.plot(C[:, 0], C[:, 1], "o", ms=7, color="C3", zorder=4, label="centres of mass")
    ax.plot([P[-1, 0]], [P[-1, 1]], "s", ms=6, color="C0", zorder=4, label="end effector")
    for i in range(spec.n):
        mid = (P[i] + P[i + 1]) / 2
        ax.annotate(f"link {i + 1}", mid, xytext=(6, 6), textcoords="offset points", fontsize=8)
    g = np.asarray(spec.gravity[:2], dtype=float)
    if np.linalg.norm(g) > 0:
        d = g / np.linalg.norm(g) * 0.25 * reach
        start = np.array([-0.85 * reach, 0.85 * reach]) - np.minimum(d, 0) * 0
        ax.annotate("", start + d, start, arrowprops=dict(arrowstyle="->", color="C2", lw=2))
        ax.annotate(f"g = {np.linalg.norm(g):.3g} m/s²", start, xytext=(4, 4), textcoords="offset points",
                    fontsize=8, color="C2")
    ax.plot([0], [0], marker=(3, 0, 0), ms=16, color="0.5", zorder=0)  # the fixed base
    draw_obstacles(ax, spec, reach)
    if spec.has_contact:
        import matplotlib.patches as mpatches

        ax.add_patch(mpatches.Circle(P[-1], spec.contact.radius, fill=False, color="C0", lw=1, zorder=5))
    ax.text(0.98, 0.02, "q = [" + ", ".join(f"{v:.4g}" for v in q) + "] rad", transform=ax.transAxes,
            ha="right", va="bottom", fontsize=8, color="0.3")
    ax.set(xlim=(-reach, reach), ylim=(-reach, reach), aspect="equal", xlabel="x [m]", ylabel="y [m]",
           title=title or f"{spec.name} at q0")
    ax.grid(alpha=0.3)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=3, fontsize=8, frameon=False)
    return _png(fig)


def make_plots(cmp, animation: bool = True) -> dict[str, bytes]:
    """The report's figures as file name → bytes."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    spec, ref = cmp.spec, cmp.reference
    n = spec.n
    runs = {k: r for k, r in cmp.runs.items() if r.driven is not None}
    colors = {name: f"C{i}" for i, name in enumerate(cmp.runs)}
    styles = {name: STYLES[i % len(STYLES)] for i, name in enumerate(cmp.runs)}
    order = {name: i for i, name in enumerate(cmp.runs)}
    same = coincidences(runs)
    out: dict[str, bytes] = {}

    same_free = coincidences(cmp.runs, "free")

    def kw(name, points, coinciding=None):
        ls, marker = styles[name]
        step = max(points // 12, 1)  # markers staggered per engine: coinciding curves still show each marker
        return dict(color=colors[name], ls=ls, marker=marker, ms=4, lw=1.2,
                    label=_label(name, same if coinciding is None else coinciding),
                    markevery=(order[name] * step // max(len(order), 1) % step, step))

    out["arm.png"] = draw_arm(spec, cmp.q0, f"{spec.name} at the start q0")

    desired = desired_motion(cmp, ref.t)
    fig, axes = plt.subplots(n, 1, figsize=(9, 2.2 * n + 0.6), sharex=True, squeeze=False)
    for j in range(n):
        ax = axes[j, 0]
        ax.plot(ref.t, ref.q[:, j], "k-", lw=3, alpha=0.3, label="reference (analytic, DOP853)")
        if desired is not None:
            ax.plot(ref.t, desired[:, j], color="0.2", ls=(0, (2, 2)), lw=1.5, label="desired q_d (controller)")
        for name, r in runs.items():
            ax.plot(r.driven.t, r.driven.q[:, j], **kw(name, len(r.driven.t)))
        ax.set_ylabel(f"q{j + 1} [rad]")
    axes[-1, 0].set_xlabel("t [s]")
    _legend_outside(axes[0, 0])
    axes[0, 0].set_title(f"{spec.name}: joint angles under {cmp.profile.name}")
    out["angles.png"] = _png(fig)

    if desired is not None:
        fig, ax = plt.subplots(figsize=(9, 3.6))
        for name, r in runs.items():
            d = desired_motion(cmp, r.driven.t)
            e = np.max(np.abs(r.driven.q - d), axis=1)
            ax.semilogy(r.driven.t, np.maximum(e, 1e-17), **kw(name, len(e)))
        ax.set(xlabel="t [s]", ylabel="max_i |q_i − q_d,i| [rad]",
               title="tracking error: each engine's arm against the controller's desired motion")
        _legend_outside(ax)
        out["tracking.png"] = _png(fig)

    fig, ax = plt.subplots(figsize=(9, 3.6))
    floored = False
    for name, r in runs.items():
        k = min(len(r.driven.q), len(ref.q))
        e = np.max(np.abs(r.driven.q[:k] - ref.q[:k]), axis=1)
        floored |= bool(np.any(e < 1e-17))
        ax.semilogy(r.driven.t[:k], np.maximum(e, 1e-17), **kw(name, k))
    if any(r.driven.status == "diverged" for r in runs.values()):
        ax.axhline(cmp.options.tolerances.divergence_rad, color="r", ls=":", lw=1,
                   label=f"divergence threshold {cmp.options.tolerances.divergence_rad:g} rad "
                         "(a run whose error passes it counts as diverged)")
    ax.set(xlabel="t [s]", ylabel="max_i |q_i − q_ref,i| [rad]", title="trajectory error against the reference"
           + (" (errors of exactly 0 drawn at 1e-17)" if floored else ""))
    _legend_outside(ax)
    out["error.png"] = _png(fig)

    fig, ax = plt.subplots(figsize=(9, 3.6))
    for name, r in cmp.runs.items():
        if r.free_energy is not None:
            t = r.free.t[: len(r.free_energy)]
            ax.plot(t, r.free_energy - r.free_energy[0], **kw(name, len(t), same_free))
    ax.set(xlabel="t [s]", ylabel="E(t) − E(0) [J]", title=f"energy in free motion (scale {spec.energy_scale():.4g} J)")
    _legend_outside(ax)
    out["energy.png"] = _png(fig)

    fig, ax = plt.subplots(figsize=(9, 3.6))
    zeros = {}
    for name, r in cmp.runs.items():
        if r.id_errors is not None:
            a = np.abs(r.id_errors).ravel()
            zeros[name] = int(np.sum(a == 0))
            e = np.log10(np.maximum(a, 1e-18))
            ls, _ = styles[name]
            ax.hist(e, bins=40, histtype="step", color=colors[name], ls=ls, lw=1.4,
                    label=f"{name} ({zeros[name]} of {a.size} exactly 0)" if zeros[name] else name)
    ax.set(xlabel="log10 |τ_engine − τ_analytic| [N m]", ylabel="count",
           title="inverse-dynamics error at random states" + (" (exact zeros drawn at −18)" if any(zeros.values())
                                                               else ""))
    _legend_outside(ax)
    out["id_error_hist.png"] = _png(fig)

    fig, (a1, a2) = plt.subplots(1, 2, figsize=(12, 4.2))
    for name, r in cmp.runs.items():
        c = r.convergence
        if not c:
            continue
        pts = [(d, e, s) for d, e, s in zip(c["dt"], c["max_abs_error_rad"], c["compute_s_per_sim_s"]) if e]
        if not pts:
            continue
        d, e, s = map(np.array, zip(*pts))
        ls, marker = styles[name]
        a1.loglog(d, e, color=colors[name], ls=ls, marker=marker, label=name)
        a2.loglog(s, e, color=colors[name], ls=ls, marker=marker, label=name)
        for di, ei, si in zip(d, e, s):
            a2.annotate(f"{di * 1e3:g} ms", (si, ei), xytext=(4, 2), textcoords="offset points", fontsize=6,
                        color=colors[name])
    a1.set(xlabel="dt [s]", ylabel="max |q − q_exact| [rad]", title="convergence (free motion, 1 s)")
    a2.set(xlabel="compute time per simulated second [s]", ylabel="max |q − q_exact| [rad]",
           title="speed–accuracy (each point labelled with its dt)")
    _legend_outside(a2)
    from matplotlib.ticker import NullFormatter

    for ax in (a1, a2):
        ax.xaxis.set_minor_formatter(NullFormatter())
    out["convergence.png"] = _png(fig)

    if animation:
        out["animation.gif"] = _animation(cmp, runs, colors, same, styles)
    out.update(limit_plots(cmp))
    out.update(stick_slip_plot(cmp))
    out.update(contact_plots(cmp, colors, styles))
    out.update(native_contact_plots(cmp))
    return out


def _animation(cmp, runs, colors, same=None, styles=None, frames: int = 40) -> bytes:
    """GIF of every engine's arm overlaid, with end-effector traces.

    Matplotlib draws the axes once; each frame only redraws the arm and trace artists on
    the cached background (blitting) and hands the pixels to Pillow, ~10× faster than
    re-rendering whole figures.
    """
    import matplotlib.pyplot as plt
    from PIL import Image

    from crossdyn.analytic.kinematics import joint_positions

    p = cmp.spec.params()
    reach = cmp.spec.reach() * 1.1
    same, styles = same or {}, styles or {}
    fig = plt.figure(figsize=(8.0, 6.0), dpi=80)  # 640 x 480 px: the GIF is at least 480 px on each side
    ax = fig.add_axes((0.1, 0.09, 0.52, 0.83))
    ax.set(xlim=(-reach, reach), ylim=(-reach, reach), aspect="equal", xlabel="x [m]", ylabel="y [m]",
           title=f"{cmp.spec.name}: every engine")
    draw_obstacles(ax, cmp.spec, reach)
    trajs = {"reference": cmp.reference, **{k: r.driven for k, r in runs.items()}}
    pts = {k: joint_positions(p, t.q) for k, t in trajs.items()}
    artists = []
    for k in trajs:
        c = "k" if k == "reference" else colors[k]
        ls, marker = ("-", "o") if k == "reference" else styles.get(k, ("-", "o"))
        (line,) = ax.plot([], [], color=c, ls=ls, marker=marker, lw=3 if k == "reference" else 1.5,
                          alpha=0.4 if k == "reference" else 0.9, label=_label(k, same).replace(" (=", "\n(="), ms=5,
                          animated=True)
        (trace,) = ax.plot([], [], "-", color=c, lw=0.6, alpha=0.6, animated=True)
        artists.append((k, line, trace))
    fig.legend(handles=[a[1] for a in artists], fontsize=9, loc="upper left", bbox_to_anchor=(0.64, 0.92),
               frameon=False, labelspacing=0.8)
    canvas = fig.canvas
    canvas.draw()
    background = canvas.copy_from_bbox(fig.bbox)
    K = len(cmp.reference.t)
    images = []
    for k_now in np.linspace(0, K - 1, frames).astype(int):
        canvas.restore_region(background)
        for k, line, trace in artists:
            P = pts[k]
            kk = min(k_now, len(P) - 1)
            line.set_data(P[kk, :, 0], P[kk, :, 1])
            trace.set_data(P[: kk + 1, -1, 0], P[: kk + 1, -1, 1])
            ax.draw_artist(trace)
            ax.draw_artist(line)
        rgba = np.asarray(canvas.buffer_rgba())
        images.append(Image.fromarray(rgba[..., :3].copy()).quantize(colors=64, method=Image.Quantize.MEDIANCUT))
    plt.close(fig)
    buf = io.BytesIO()
    images[0].save(buf, format="GIF", save_all=True, append_images=images[1:], duration=80, loop=0)
    return buf.getvalue()


# --------------------------------------------------------------------------- report
def _fmt(x, unit: str = "") -> str:
    if x is None:
        return "–"
    if isinstance(x, float):
        return f"{x:.3g}{unit}"
    return f"{x}{unit}"


def _mark(ok) -> str:
    return "–" if ok is None else ("PASS" if ok else "FAIL")


METRICS = ("trajectory", "inverse_dynamics", "forward_dynamics", "mass_matrix", "energy")


def engine_result(e: dict) -> str:
    """An engine's result beside its run status: ``pass``, ``FAIL: trajectory, energy`` (the metrics out of
    tolerance), ``FAIL: run diverged`` / ``failed``, or ``skipped`` / ``unsupported`` (not failures)."""
    if e["status"] in ("skipped", "unsupported"):
        return e["status"]
    fails = [m for m in METRICS if isinstance(e.get(m), dict) and e[m].get("pass") is False]
    if e["status"] != "ok":
        return f"FAIL: run {e['status']}" + (f"; {', '.join(fails)}" if fails else "")
    return f"FAIL: {', '.join(fails)}" if fails else "pass"


PROFILE_UNITS = {"value": "N m", "after": "N m", "before": "N m", "offset": "N m", "time": "s", "frequency": "Hz",
                 "f0": "Hz", "f1": "Hz", "duration": "s", "phase": "rad", "base_frequency": "Hz",
                 "amplitude_rad": "rad", "center": "rad"}


def profile_parameters(prof: dict) -> str:
    """`` (value = [3.14, 0.628] N m)``: the parameters a reader needs to rerun the profile (short ones only;
    closed-loop gains and targets have a section of their own)."""
    if not isinstance(prof, dict) or prof.get("closed_loop"):
        return ""
    skip = {"name", "closed_loop", "n", "arm", "formula", "sweep", "phase_rule", "phases", "joint_delays",
            "peak_normalisation", "mass_matrix_at_center", "gravity_stiffness_at_center", "gravity_at_center",
            "law", "sha256", "time_range"}
    parts = []
    for k, v in prof.items():
        if k in skip or isinstance(v, dict):
            continue
        if isinstance(v, list):
            v = "[" + ", ".join(f"{x:.4g}" if isinstance(x, float) else str(x) for x in v) + "]"
        elif isinstance(v, float):
            v = f"{v:.4g}"
        unit = PROFILE_UNITS.get(k, "N m" if k == "amplitude" else "")
        parts.append(f"{k} = {v}" + (f" {unit}" if unit else ""))
    return f" ({', '.join(parts)})" if parts else ""


def arm_blocks(summary: dict, images) -> list[tuple]:
    """The arm: a parameter table, gravity, and the drawing at q0 (if drawn)."""
    spec = summary.get("spec") or {}
    b: list[tuple] = [("h", 2, f"The arm: {summary['arm']}")]
    rows = [[str(i), _fmt(float(l["length"])), _fmt(float(l["mass"])), _fmt(float(l["com"])),
             _fmt(float(l["inertia"])), _fmt(float(l.get("damping", 0.0))), _fmt(float(l.get("friction", 0.0)))]
            for i, l in enumerate(spec.get("links", []), start=1)]
    b.append(("table", ["link", "L [m]", "m [kg]", "Lc [m]", "J [kg m²]", "damping b [N m s/rad]",
                        "friction f_c [N m]"], rows))
    g = spec.get("gravity", [0.0, -9.81, 0.0])
    b.append(("p", f"Gravity g = ({', '.join(f'{x:g}' for x in g)}) m/s². Lc: centre of mass from the proximal "
                   "joint along the link; J: inertia about the centre of mass, about z. Start q0 = "
                   f"{np.round(summary['start']['q0'], 4).tolist()} rad, q̇0 = "
                   f"{np.round(summary['start']['qd0'], 4).tolist()} rad/s."))
    if "arm.png" in images:
        b.append(("img", "arm.png", "the arm at the start q0 (joints, centres of mass, gravity)"))
    return b


def control_blocks(summary: dict, images) -> list[tuple]:
    """Closed-loop runs: the control law, its gains and targets, and each engine's tracking error."""
    prof = summary["profile"]
    if not prof.get("closed_loop"):
        return []
    b: list[tuple] = [("h", 2, f"Control ({prof['name']}, closed loop)")]
    vec = lambda v: ", ".join(f"{x:g}" for x in v)  # noqa: E731
    b.append(("p", f"Law: τ = {prof.get('law', '?')}, evaluated from each engine's own state at the start of every "
                   f"step with crossdyn's analytic model. Gains: K_p = ({vec(prof['kp'])}), K_d = ({vec(prof['kd'])})."))
    traj = prof.get("trajectory") or (prof.get("target") if isinstance(prof.get("target"), dict) else None)
    if traj is None:
        b.append(("p", f"Target: the fixed configuration q_d = ({vec(prof['target'])}) rad (q̇_d = 0)."))
    else:
        src = traj.get("source") or {}
        where = f" from {src['file']} ({src.get('space', 'joint')} way-points)" if src.get("file") else ""
        b.append(("p", f"Target: a {traj['kind']} trajectory{where}; outside its times it holds its end point."))
        rows = []
        for k, (t, q) in enumerate(zip(traj["times"], traj["waypoints"]), start=1):
            row = [str(k), f"{t:g}", vec(np.round(q, 5))]
            if src.get("cartesian_points"):
                row.append(vec(src["cartesian_points"][k - 1])
                           + (f"; φ = {src['orientations'][k - 1]:g}" if src.get("orientations") else ""))
            rows.append(row)
        b.append(("table", ["point", "t [s]", "q [rad]"] + (["x, y [m]"] if src.get("cartesian_points") else []), rows))
    eng = summary["engines"]
    b.append(("p", "Tracking error |q − q_d| of each engine's arm against the desired motion: a property of the "
                   "gains and the time step, reported, not judged (the engines are judged against the reference)."))
    b.append(("table", ["engine", "max |q − q_d| [rad]", "RMS [rad]", "final [rad]"],
              [[k, _fmt(v["tracking"]["max_abs_error_rad"]), _fmt(v["tracking"]["rms_error_rad"]),
                _fmt(v["tracking"]["final_abs_error_rad"])] for k, v in eng.items() if v.get("tracking")]))
    if "tracking.png" in images:
        b.append(("img", "tracking.png", "tracking error against the desired motion"))
    return b


def report_blocks(summary: dict, images: list[str]) -> list[tuple]:
    """The report as blocks: ("h", level, text), ("p", text), ("table", header, rows), ("img", file, caption)."""
    eng = summary["engines"]
    b: list[tuple] = []
    verdict = summary["verdict"].upper()
    b.append(("h", 1, f"crossdyn comparison: {summary['arm']} — {verdict}"))
    prof = summary["profile"]
    b.append(("p", f"{summary['dof']}R arm, dt = {summary['dt']:g} s, duration = {summary['duration']:g} s, profile "
                   f"{prof.get('name', prof)}{profile_parameters(prof)}; start q0 = "
                   f"{np.round(summary['start']['q0'], 4).tolist()} rad. Reference: "
                   "analytic model integrated by DOP853 (rtol = atol = 1e-12) restarted at every hold interval. "
                   f"Versions: {', '.join(f'{k} {v}' for k, v in summary['versions'].items() if v)}."))
    if summary.get("interrupted"):
        b.append(("p", "**Interrupted (Ctrl-C): engines marked skipped did not run; everything else is complete.**"))
    if summary["failures"]:
        b.append(("p", "Failures: " + "; ".join(summary["failures"])))
    for note in summary.get("notes", []):
        b.append(("p", f"Note: {note}."))
    base = summary.get("baseline")
    if base:
        b.append(("p", f"Baseline {base['file']}: " + ("; ".join(base["regressions"]) if base["regressions"]
                                                        else "no regression") + "."))
        for w in base["warnings"]:
            b.append(("p", f"**Warning (baseline):** {w}."))
    if summary["inertia_substitutions"]:
        b.append(("p", "Inertia substitutions (point masses, every engine file): " + "; ".join(
            f"link {s['link']}: J {s['spec_inertia']:g} → {s['engine_inertia']:.3g} kg m²"
            for s in summary["inertia_substitutions"])))
    b += arm_blocks(summary, images)
    b.append(("h", 2, "Status"))
    b.append(("p", "Run: did the engine run to the end (ok, diverged, failed, skipped; unsupported: it cannot "
                   "represent this arm, see the notes). Result: pass, or the "
                   "metrics out of tolerance."))
    b.append(("table", ["engine", "run", "result", "reason"],
              [[k, v["status"], engine_result(v), v.get("reason") or ""] for k, v in eng.items()]))
    b += control_blocks(summary, images)

    def rows(metric, cols):
        out = []
        for k, v in eng.items():
            m = v.get(metric)
            if not m:
                continue
            out.append([k] + [f(m) for _, f in cols] + [_mark(m.get("pass"))])
        return out

    tols = summary.get("tolerances", {})
    b.append(("h", 2, "Trajectory (driven run)"))
    b.append(("p", "What it measures: each engine's joint angles under the profile against the reference (the "
                   "analytic model integrated by DOP853 to 1e-12). Where the tolerance comes from: an engine with "
                   "a fixed step has an integration error of its own, so the tolerance is "
                   f"{tols.get('trajectory_factor', 10):g} × its *self-consistency* estimate — the same engine "
                   "rerun at dt/2 (torque still held for dt), |q(dt) − q(dt/2)| scaled by Richardson's "
                   "2ᵖ/(2ᵖ − 1) for an order-p integrator — plus "
                   f"{tols.get('trajectory_floor_rad', 1e-9):g} rad: integration error of the expected size "
                   "passes, a model error does not. *Same integrator*: the engine is also run against the analytic "
                   "model stepped by the same scheme (semi-implicit Euler for PyBullet and MuJoCo Euler, RK4 for "
                   "MuJoCo RK4 and Pinocchio) at the same dt, where integration error cancels and only model "
                   f"differences remain; that must be below {tols.get('trajectory_same_integrator_rad', 1e-8):g} rad."))
    cols = [("max |e| [rad]", lambda m: _fmt(m["max_abs_error_rad"])), ("RMS [rad]", lambda m: _fmt(m["rms_error_rad"])),
            ("EE max [m]", lambda m: _fmt(m["ee_max_error_m"])),
            ("diverged at [s]", lambda m: _fmt(m["divergence_time_s"])),
            ("self-consistency [rad]", lambda m: _fmt(m["self_consistency_rad"])),
            ("tolerance [rad]", lambda m: _fmt(m["tolerance_rad"])),
            ("same integrator", lambda m: m.get("same_integrator") or "–"),
            ("vs same integrator [rad]", lambda m: _fmt(m.get("same_integrator_error_rad")))]
    b.append(("table", ["engine"] + [c for c, _ in cols] + ["result"], rows("trajectory", cols)))
    b.append(("h", 2, "Inverse dynamics, forward dynamics, mass matrix (random states)"))
    b.append(("p", f"What it measures: τ(q, q̇, q̈), q̈(q, q̇, τ) and M(q) from each engine's own query functions at "
                   f"the same {next((v['inverse_dynamics']['states'] for v in eng.values() if v.get('inverse_dynamics')), 'random')} "
                   "random states, against the analytic model. No integration is involved, so the tolerances are "
                   f"rounding-level: {tols.get('inverse_dynamics_rel', 1e-9):g} × the torque scale Σ mᵢ|g|rᵢ "
                   f"({summary.get('torque_scale_nm', float('nan')):.4g} N m) for τ, "
                   f"{tols.get('forward_dynamics_rel', 1e-9):g} × max(1, max|q̈|) for q̈ and "
                   f"{tols.get('mass_matrix_rel', 1e-9):g} × max|M| for M."))
    cols = [("τ max |e| [N m]", lambda m: _fmt(m["max_abs_error_nm"])),
            ("tolerance [N m]", lambda m: _fmt(m["tolerance_nm"]))]
    b.append(("table", ["engine"] + [c for c, _ in cols] + ["result"], rows("inverse_dynamics", cols)))
    cols = [("q̈ max |e| [rad/s²]", lambda m: _fmt(m["max_abs_error"])),
            ("tolerance [rad/s²]", lambda m: _fmt(m["tolerance"]))]
    b.append(("table", ["engine"] + [c for c, _ in cols] + ["result"], rows("forward_dynamics", cols)))
    cols = [("M max |e| [kg m²]", lambda m: _fmt(m["max_abs_error"])),
            ("tolerance [kg m²]", lambda m: _fmt(m["tolerance"]))]
    b.append(("table", ["engine"] + [c for c, _ in cols] + ["result"], rows("mass_matrix", cols)))
    b.append(("h", 2, "Energy"))
    b.append(("p", "What it measures: the drift of total energy T + U in free motion (no torque, no damping) and, "
                   "for the driven run, the work–energy balance E(t) − E(0) − ∫τ·q̇ dt + ∫(b q̇² + f_c|q̇|) dt, both "
                   f"relative to the energy scale Σ mᵢ|g|rᵢ ({summary.get('energy_scale_j', float('nan')):.4g} J). "
                   "Where the tolerance comes from: what each integrator family is known to leave "
                   f"(RK4 {tols.get('energy_rk4', 1e-6):g}, semi-implicit Euler {tols.get('energy_symplectic', 2e-3):g}, "
                   f"explicit Euler and implicit schemes {tols.get('energy_explicit', 1e-2):g}); the balance may "
                   "also use 10 × its own dt/2 (Richardson) estimate when that is larger."))
    cols = [("free-swing drift [rel.]", lambda m: _fmt(m["max_rel_drift"])),
            ("work–energy residual [rel.]", lambda m: _fmt(m["work_energy_residual_rel"])),
            ("tolerance [rel.]", lambda m: _fmt(m["tolerance"]))]
    b.append(("table", ["engine"] + [c for c, _ in cols] + ["result"], rows("energy", cols)))
    b.append(("h", 2, "Convergence and speed"))
    b.append(("p", "What it measures: the free-motion error at several time steps against a dense DOP853 "
                   "solution, the empirical order of accuracy (slope of log error against log dt; expected: the "
                   "integrator's order) and the cost in µs per step through the adapter. Reported, not judged: "
                   "it has no tolerance."))
    conv_rows = []
    for k, v in eng.items():
        c, s = v.get("convergence"), v.get("speed")
        if not c:
            continue
        conv_rows.append([k, " / ".join(_fmt(e) for e in c["max_abs_error_rad"]), _fmt(c["empirical_order"]),
                          str(c["expected_order"]), _fmt(s["us_per_step"] if s else None)])
    dts = " / ".join(f"{d * 1e3:g}" for d in next((v["convergence"]["dt_s"] for v in eng.values() if v.get("convergence")), []))
    b.append(("table", ["engine", f"error at dt = {dts} ms [rad]", "order", "expected", "µs/step"], conv_rows))
    b += _armature_blocks(summary)
    b += _effort_blocks(summary)
    b += _limit_blocks(summary)
    b += friction_blocks(summary)
    b += _contact_blocks(summary)
    b += contact_native_blocks(summary)
    b.append(("h", 2, "Engine configuration audit"))
    b.append(("p", "Every setting that can change the physics, as each adapter reports it."))
    for k, v in eng.items():
        cfg = v.get("config") or {}
        b.append(("table", [f"{k}: setting", "value"], [[ck, str(cv)] for ck, cv in cfg.items()]))
    b.append(("h", 2, "Plots"))
    captions = {"angles.png": "joint angles" + (" (dashed: the controller's desired motion)"
                                                if summary["profile"].get("closed_loop") else ""),
                "tracking.png": "tracking error against the desired motion", "error.png": "error against the reference (log scale)",
                "energy.png": "energy in free motion", "id_error_hist.png": "inverse-dynamics error histogram",
                "convergence.png": "convergence and speed–accuracy", "animation.gif": "animation, every engine overlaid",
                "limit_angles.png": "joint angles with the limit band shaded (outside it: beyond a limit)",
                "limit_torque.png": "limit torque per engine (native: inferred by inverse dynamics)",
                "stick_slip.png": "stick/slip timeline per joint: bars where the joint is stuck (reference: the "
                                  "set-valued law's sticking mode; engines: |qd| below the stick threshold)",
                "contact.png": "contact: normal force and penetration against time, per engine (applied mode)",
                "tip_path.png": "the tip's path per engine, the obstacles drawn (a line per half-plane, its inside "
                                "shaded)",
                "native_contact.png": "native contact: penetration and normal force against time (native forces "
                                      "inferred by inverse dynamics) and the tip path with the obstacles"}
    for img in images:
        if img not in ("arm.png", "tracking.png"):  # shown with the arm and the control sections
            b.append(("img", img, captions.get(img, img)))
    return b


def _armature_blocks(summary: dict) -> list[tuple]:
    """Section "Rotor armature" (arms with ``armature``): per engine whether it carries I_a, the I_a it holds,
    its max |M − M_analytic| (analytic M with armature), or the reason it cannot and the diagonal it lacks."""
    eng = {k: v["armature"] for k, v in summary["engines"].items() if v.get("armature")}
    if not eng:
        return []
    rows = []
    for k, a in eng.items():
        held = a["engine_armature_kgm2"]
        if a["supported"]:
            rows.append([k, "yes", "–" if held is None else " / ".join(_fmt(x) for x in held),
                         _fmt(a["max_abs_M_error_kgm2"]),
                         "–" if a["max_abs_diag_error_kgm2"] is None else
                         " / ".join(_fmt(x) for x in a["max_abs_diag_error_kgm2"]), ""])
        else:
            gap = a["missing_on_diagonal_kgm2"]
            rows.append([k, "**unsupported**", "–", "–",
                         "–" if gap is None else "lacks " + " / ".join(_fmt(x) for x in gap),
                         a["reason"] or ""])
    Ia = next(iter(eng.values()))["armature_kgm2"]
    return [("h", 2, "Rotor armature"),
            ("p", f"Reflected rotor inertia I_a = {' / '.join(_fmt(x) for x in Ia)} kg m² per joint, added to M_ii "
                  "by the analytic model. Per engine: whether it carries it, the I_a it holds, and its mass "
                  "matrix against the analytic one with armature at the static states (largest entry error, "
                  "then per diagonal entry); an engine that cannot is not compared, and what its M lacks on the "
                  "diagonal at q0 is shown."),
            ("table", ["engine", "carries I_a", "I_a held [kg m²]", "max |M − M_analytic| [kg m²]",
                       "diagonal [kg m²]", "reason"], rows)]


def _effort_blocks(summary: dict) -> list[tuple]:
    """Section "Effort limits" (arms with ``effort``): applied-mode saturation and each engine's native
    behaviour per joint.  Nothing for an arm without effort limits."""
    eng = {k: v["effort"] for k, v in summary["engines"].items() if v.get("effort")}
    if not eng:
        return []
    rows = []
    for k, e in eng.items():
        native = {r["joint"]: r for r in e["native"]}
        for j, (limit, sat) in enumerate(zip(e["limit_nm"], e["saturated_steps"]), start=1):
            if limit is None:
                continue
            r = native.get(j)
            rows.append([k, str(j), _fmt(limit), str(sat),
                         "–" if r is None else ("honoured" if r["honoured"] else "**ignored**")])
    return [("h", 2, "Effort limits"),
            ("p", "Applied mode: crossdyn saturates the commanded torque to ±effort before every engine, so all "
                  "integrate the same torque (steps at the limit counted per joint). Native: the engine's own "
                  "limit from the generated model, given 3× the limit for one step from rest."),
            ("table", ["engine", "joint", "effort [N m]", "saturated steps (applied)", "native"], rows)]


def native_contact_plots(cmp) -> dict[str, bytes]:
    """compare --native on an arm with contact: ``native_contact.png`` — penetration and normal force against time
    (summed over the obstacles) for the law's reference and each engine's own contact (forces inferred by inverse
    dynamics), and the tip path with the obstacles drawn.  Nothing otherwise."""
    runs = getattr(cmp, "native_contact_runs", {}) or {}
    ref = getattr(cmp, "native_contact_reference", None)
    if not runs or ref is None:
        return {}
    import matplotlib.pyplot as plt

    from crossdyn.analytic.contact import ContactLaw
    from crossdyn.native.contact import episodes as ce

    spec = cmp.spec
    law = ContactLaw.of(spec)
    fig = plt.figure(figsize=(11, 6))
    a_pen, a_f = fig.add_subplot(2, 2, 1), fig.add_subplot(2, 2, 3)
    a_path = fig.add_subplot(1, 2, 2)
    for i, (name, tr, native) in enumerate([("reference", ref, False)] + [(k, t, True) for k, t in runs.items()]):
        tips, delta, _, _ = ce.tip_motion(spec, law, tr.q, tr.qd)
        fn, _ = ce.inferred_forces(spec, law, tr) if native else ce.law_forces(spec, law, tr.q, tr.qd)
        style = dict(color="k", lw=3, alpha=0.3) if not native else dict(color=f"C{i}", lw=1.1)
        a_pen.plot(tr.t[:len(delta)], 1e3 * np.clip(delta, 0, None).sum(axis=1), label=name, **style)
        a_f.plot(tr.t[:len(fn)], fn.sum(axis=1), label=name, **style)
        a_path.plot(tips[:, 0], tips[:, 1], label=name, **style)
    a_pen.set(ylabel="penetration [mm]")
    a_f.set(xlabel="t [s]", ylabel="normal force [N]")
    lo, hi = a_path.get_xlim(), a_path.get_ylim()
    for a, n in zip(law.points, law.normals):  # each obstacle's surface line, the inside hatched
        t = np.array([-n[1], n[0]])
        span = 3.0 * max(hi[1] - hi[0], lo[1] - lo[0], 1.0)
        line = np.array([a - span * t, a + span * t])
        a_path.plot(line[:, 0], line[:, 1], color="saddlebrown", lw=2)
        a_path.fill([line[0, 0], line[1, 0], line[1, 0] - span * n[0], line[0, 0] - span * n[0]],
                    [line[0, 1], line[1, 1], line[1, 1] - span * n[1], line[0, 1] - span * n[1]],
                    color="saddlebrown", alpha=0.15)
    a_path.set(xlim=lo, ylim=hi, xlabel="x [m]", ylabel="y [m]", title="tip path (the sphere's centre)")
    a_path.set_aspect("equal", adjustable="datalim")
    a_pen.set_title(f"{spec.name}: native contact")
    _legend_outside(a_path)
    return {"native_contact.png": _png(fig)}


def limit_plots(cmp) -> dict[str, bytes]:
    """Arms with a limit law: ``limit_angles.png`` (each limited joint's angle, reference, applied and native
    runs, the band between the limits shaded) and ``limit_torque.png`` (τ_lim per engine: the law's torque for
    the reference and applied runs, inferred by inverse dynamics for native runs).  Nothing otherwise."""
    if not cmp.spec.has_limit_law:
        return {}
    import matplotlib.pyplot as plt

    from crossdyn.analytic.limits import LimitLaw
    from crossdyn.native.limits import episodes as lc

    spec = cmp.spec
    law = LimitLaw.of(spec)
    joints = [j for j in range(spec.n) if np.isfinite(law.upper[j]) or np.isfinite(law.lower[j])]
    trajs = [("reference", cmp.reference, False)]
    trajs += [(k, r.driven, False) for k, r in cmp.runs.items() if r.driven is not None]
    trajs += [(k, t, True) for k, t in getattr(cmp, "native_limit_runs", {}).items()]
    out = {}
    for fname, ylabel in (("limit_angles.png", "q{} [rad]"), ("limit_torque.png", "τ_lim{} [N m]")):
        fig, axes = plt.subplots(len(joints), 1, figsize=(9, 2.2 * len(joints) + 0.6), sharex=True, squeeze=False)
        for ax, j in zip(axes[:, 0], joints):
            if fname == "limit_angles.png":
                ax.axhspan(law.lower[j], law.upper[j], color="tab:green", alpha=0.12, label="within the limits")
            for i, (name, tr, native) in enumerate(trajs):
                y = tr.q[:, j] if fname == "limit_angles.png" else \
                    (lc.inferred_torque(spec, tr) if native else lc.law_torque(law, tr.q, tr.qd))[:, j]
                style = dict(color="k", lw=3, alpha=0.3) if name == "reference" else \
                    dict(color=f"C{i}", lw=1.2, ls="--" if native else "-")
                ax.plot(tr.t[: len(y)], y, label=name, **style)
            ax.set_ylabel(ylabel.format(j + 1))
        axes[-1, 0].set_xlabel("t [s]")
        _legend_outside(axes[0, 0])
        axes[0, 0].set_title(f"{spec.name}: " + ("joint angles and limits" if fname == "limit_angles.png"
                                                 else "limit torque per engine"))
        out[fname] = _png(fig)
    return out


def friction_blocks(summary: dict) -> list[tuple]:
    """Section "Coulomb friction, native" (compare --characterise-friction): per engine its creep floor and every
    check of the verdict with the terms of its tolerance.  Nothing otherwise."""
    native = (summary.get("friction") or {}).get("native")
    if not native or "verdict" not in native:
        return []
    ref = {r["joint"]: r for r in native["reference"]["joints"]}
    b = [("h", 2, "Coulomb friction, native"),
         ("p", "Each engine with its own friction (MuJoCo frictionloss, PyBullet's velocity motor) against the "
               "set-valued stick–slip reference (event-exact, torque held per step). Stuck: |q̇| below "
               f"{native['v_stick_rad_s']:g} rad/s at both ends of a step. Tolerance per quantity = integration (10 × "
               "the run's Richardson estimate, dt against dt/2, first order) + sampling (dt per interval end) + "
               "threshold (the stick criterion applied to the reference's own motion moves its transitions by this "
               "much) + softness (creep only: the engine's creep floor — its creep under a held 0.95 f_c load, "
               "gravity compensated, with its softness settings at their stiffest — × the longest reference stick)."),
         ("table", ["joint", "f_c [N m]", "reference stick intervals", "reference stick time [s]", "intervals [s]"],
          [[str(j), _fmt(r["fc_nm"]), str(r["stick_intervals"]), _fmt(r["stick_time_s"]),
            ", ".join(f"{a:.3f}–{z:.3f}" for a, z in r["intervals_s"][:6])] for j, r in ref.items()])]
    for name, v in native["verdict"].items():
        e = native["engines"].get(name, {})
        floors = ", ".join(f"joint {r['joint']} {_fmt((r.get('creep_floor') or {}).get('rate_rad_s'))} rad/s"
                           for r in e.get("joints", []))
        b.append(("p", f"{name}: {'PASS' if v['pass'] else 'FAIL'}, {len(v['checks'])} checks, "
                       f"{len(v['departures'])} beyond tolerance. Creep floor ({e.get('creep_floor_setting', '–')}): "
                       f"{floors or '–'}."))
        if v["checks"]:
            b.append(("table", ["joint", "quantity", "interval", "reference", "native", "integration", "sampling",
                                "threshold", "softness", "tolerance", "result"],
                      [[str(c["joint"]), c["quantity"], str(c["interval"] or "–"), _fmt(c["reference"]),
                        _fmt(c["native"]), _fmt(c["integration"]), _fmt(c["sampling"]), _fmt(c["threshold"]),
                        _fmt(c["softness"]), _fmt(c["tolerance"]), "PASS" if c["pass"] else "FAIL"]
                       for c in v["checks"]]))
    return b


def stick_slip_timelines(cmp) -> dict:
    """Per run: {"t", "stuck" (K, friction joints), "threshold"} for :func:`stick_slip_plot` — "reference" the
    set-valued law's sticking mode (:func:`crossdyn.analytic.stick_slip.simulate_stick_slip`, the torque held
    per step; open-loop profiles), the --characterise-friction native runs as measured there (|q̇| < 1e-4 rad/s
    over a step), and every compared engine's driven run: |q̇| < v_s, the regularisation velocity, in applied
    mode (the regularised law never stops a joint: below v_s it is in its viscous, sticking regime), 1e-4 rad/s
    when the engines keep their own friction (--native-friction)."""
    from crossdyn.native.friction.episodes import V_STICK, stuck_mask

    spec = cmp.spec
    joints = [j for j, l in enumerate(spec.links) if l.friction > 0]
    if not joints:
        return {}
    given = getattr(cmp, "stick_slip_timelines", {}) or {}
    out = {}
    if "reference" in given:
        out["reference"] = {**given["reference"], "threshold": "sticking mode"}
    elif not getattr(cmp.profile, "closed_loop", True):
        from crossdyn.analytic.stick_slip import simulate_stick_slip

        dt = cmp.options.dt
        try:
            ref = simulate_stick_slip(spec, cmp.q0, cmp.summary["start"]["qd0"], cmp.options.duration,
                                      torque=lambda t: cmp.profile.sample(np.array([t]))[0], hold=dt, output_dt=dt)
            out["reference"] = {"t": ref.t, "stuck": ref.sticking[:, joints], "threshold": "sticking mode"}
        except (ValueError, FloatingPointError):  # a reference that cannot be computed: engines only
            pass
    v_s = (cmp.summary.get("friction") or {}).get("v_s_rad_s")
    for name, run in cmp.runs.items():
        if run.driven is None:
            continue
        if v_s is not None:
            stuck = np.abs(run.driven.qd[:, joints]) < v_s
            out[name] = {"t": run.driven.t, "stuck": stuck, "threshold": f"|qd| < v_s = {v_s:.2g} rad/s (applied)"}
        else:
            out[name] = {"t": run.driven.t, "stuck": np.column_stack([stuck_mask(run.driven.qd[:, j]) for j in joints]),
                         "threshold": f"|qd| < {V_STICK:g} rad/s"}
    for name, line in given.items():
        if name != "reference":
            out[f"{name} (native)"] = {**line, "threshold": f"|qd| < {V_STICK:g} rad/s"}
    return out


def stick_slip_plot(cmp) -> dict[str, bytes]:
    """Arms with Coulomb friction: ``stick_slip.png``, per joint with f_c > 0 one row of horizontal bars per run
    (reference first) over the intervals where it is stuck (:func:`stick_slip_timelines`).  Nothing otherwise."""
    lines = stick_slip_timelines(cmp)
    if not lines:
        return {}
    import matplotlib.pyplot as plt

    from crossdyn.native.friction.episodes import intervals

    joints = [j for j, l in enumerate(cmp.spec.links) if l.friction > 0]
    names = list(lines)
    fig, axes = plt.subplots(len(joints), 1, figsize=(9, 0.35 * len(names) * len(joints) + 1.2), sharex=True,
                             squeeze=False)
    for c, (ax, j) in enumerate(zip(axes[:, 0], joints)):
        for row, name in enumerate(names):
            t, stuck = np.asarray(lines[name]["t"]), np.asarray(lines[name]["stuck"])[:, c]
            dt = float(t[1] - t[0]) if len(t) > 1 else 1.0
            bars = [(a, b - a + dt) for a, b in intervals(stuck, t)]
            ax.broken_barh(bars, (row - 0.35, 0.7), color="k" if name == "reference" else f"C{row}",
                           alpha=0.35 if name == "reference" else 0.8)
        ax.set_yticks(range(len(names)))
        ax.set_yticklabels([f"{n}: {lines[n]['threshold']}" for n in names], fontsize=7)
        ax.set_ylim(-0.6, len(names) - 0.4)
        ax.invert_yaxis()
        ax.set_ylabel(f"joint {j + 1}\nf_c = {cmp.spec.links[j].friction:g} N m", fontsize=8)
        ax.grid(axis="x", alpha=0.3)
    axes[-1, 0].set_xlabel("t [s]")
    axes[0, 0].set_title(f"{cmp.spec.name}: stick/slip timeline (bars: stuck)")
    return {"stick_slip.png": _png(fig)}


def _half_plane_polygon(point, normal, lim: float) -> np.ndarray:
    """The part of the square [−lim, lim]² inside the half-plane (p − point)·normal < 0 (Sutherland–Hodgman)."""
    box = [np.array(c, dtype=float) for c in ((-lim, -lim), (lim, -lim), (lim, lim), (-lim, lim))]
    a, n = np.asarray(point, dtype=float)[:2], np.asarray(normal, dtype=float)[:2]
    out = []
    for i, cur in enumerate(box):
        prev = box[i - 1]
        dc, dp = (cur - a) @ n, (prev - a) @ n
        if (dc < 0) != (dp < 0):
            out.append(prev + (cur - prev) * dp / (dp - dc))
        if dc < 0:
            out.append(cur)
    return np.array(out).reshape(-1, 2)


def draw_obstacles(ax, spec, lim: float) -> None:
    """Each half-plane obstacle of ``spec`` on ``ax``: its surface line across the square [−lim, lim]² and its
    inside shaded (nothing for an arm without obstacles)."""
    for i, ob in enumerate(getattr(spec, "obstacles", ()) or (), start=1):
        a, n = np.asarray(ob.point[:2], dtype=float), np.asarray(ob.normal[:2], dtype=float)
        poly = _half_plane_polygon(a, n, lim)
        if len(poly) >= 3:
            ax.fill(poly[:, 0], poly[:, 1], color="tab:brown", alpha=0.18, lw=0, zorder=0)
        t = np.array([-n[1], n[0]])
        ends = np.array([a - 3 * lim * t, a + 3 * lim * t])
        ax.plot(ends[:, 0], ends[:, 1], "-", color="tab:brown", lw=1.5, zorder=0,
                label="obstacle (inside shaded)" if i == 1 else None)
    ax.set_xlim(-lim, lim)
    ax.set_ylim(-lim, lim)


def contact_plots(cmp, colors: dict | None = None, styles: dict | None = None) -> dict[str, bytes]:
    """Arms with contact: ``contact.png`` (the normal force Σ F_n and the penetration max δ against time, per
    engine and the reference) and ``tip_path.png`` (the tip's path per engine with the obstacles drawn)."""
    if not cmp.spec.has_contact:
        return {}
    import matplotlib.pyplot as plt

    trajs = [("reference", cmp.reference)] + [(k, r.driven) for k, r in cmp.runs.items() if r.driven is not None]
    trajs = [(k, t) for k, t in trajs if (t.info or {}).get("contact") is not None]
    if not trajs:
        return {}
    colors, styles = colors or {}, styles or {}

    def look(k):
        if k == "reference":
            return dict(color="k", lw=3, alpha=0.3, ls="-", label="reference (analytic, DOP853)")
        ls, _ = styles.get(k, ("-", None))
        return dict(color=colors.get(k), lw=1.2, ls=ls, label=k)

    radius = cmp.spec.contact.radius
    fig, (a1, a2) = plt.subplots(2, 1, figsize=(9, 6), sharex=True)
    for k, t in trajs:
        c = t.info["contact"]
        tt = t.t[: len(c["normal_force"])]
        a1.plot(tt, c["normal_force"].sum(axis=1), **look(k))
        a2.plot(tt, np.maximum(c["penetration"].max(axis=1), -radius), **look(k))
    a2.axhline(0.0, color="tab:brown", lw=1)
    a1.set(ylabel="normal force Σ F_n [N]", title=f"{cmp.spec.name}: contact (applied mode, law held per step)")
    a2.set(xlabel="t [s]", ylabel="penetration max δ [m]\n(< 0: the gap, shown down to −r)")
    _legend_outside(a1)
    out = {"contact.png": _png(fig)}

    lim = cmp.spec.reach() * 1.1
    fig, ax = plt.subplots(figsize=(7, 6))
    draw_obstacles(ax, cmp.spec, lim)
    for k, t in trajs:
        tip = t.info["contact"]["tip"]
        ax.plot(tip[:, 0], tip[:, 1], **look(k))
    ax.plot([0], [0], marker=(3, 0, 0), ms=14, color="0.5")
    ax.set(aspect="equal", xlabel="x [m]", ylabel="y [m]",
           title=f"{cmp.spec.name}: tip path (the sphere's centre; it touches at r = {radius:g} m from a line)")
    ax.grid(alpha=0.3)
    _legend_outside(ax)
    out["tip_path.png"] = _png(fig)
    return out


def _contact_blocks(summary: dict) -> list[tuple]:
    """Section "Contact" (arms with [contact]): the applied law, its coarseness at this dt, and per run the
    contact quantities and the engine's tip-kinematics discrepancy."""
    con = summary.get("contact")
    if not isinstance(con, dict):
        return []
    keys = ("first_touch_s", "max_penetration_m", "peak_normal_force_n", "time_in_contact_s", "contacts",
            "impulse_n_s", "dissipated_j", "contact_work_j", "balance_residual_j", "max_tip_position_error_m")
    rows = []
    for name, e in [("reference", con.get("reference") or {})] + list(con.get("engines", {}).items()):
        rows.append([name] + [str(e.get(k)) if k == "contacts" else _fmt(e.get(k)) for k in keys])
    held = con.get("held_law", {})
    return [("h", 2, "Contact"),
            ("p", f"Applied mode: {con['law']}. The force comes from each engine's own tip kinematics at the start of "
                  "every step and is held over it, τ_c = J_cᵀ F (the reference gets it the same way); the engines' "
                  f"own contact is off. sqrt(k / m_n) dt = {_fmt(held.get('omega_dt'))} (m_n: the effective mass "
                  "along the normal over the reference's contacts; > 0.1 means the held law is coarse), "
                  f"dt μ F_n / (v_s m_t) = {_fmt(held.get('friction_step'))} (> 1: the held friction overshoots "
                  "v_t = 0). Impulse Σ F_n dt; dissipated D = Σ dD/dt dt; contact work W_c = Σ τ_c·Δq (exact for the "
                  "held torque); balance residual max |W_c + V + D| (O(dt) for the held law)."),
            ("table", ["run", "first touch [s]", "max penetration [m]", "peak F_n [N]", "in contact [s]",
                       "contacts", "impulse [N s]", "dissipated [J]", "contact work [J]", "balance residual [J]",
                       "tip FK error [m]"], rows)]


def _limit_blocks(summary: dict) -> list[tuple]:
    """Section "Joint limits" (arms with a limit law): per limit contact of every run, and the native verdicts."""
    lim = summary.get("limits")
    if not lim:
        return []
    rows = []
    for name, contacts in lim["contacts"].items():
        for c in contacts:
            rows.append([name, str(c["joint"]), c["side"], f"{c['t_enter_s']:.3f}", _fmt(c["max_penetration_rad"]),
                         _fmt(c["peak_torque_nm"]), _fmt(c["time_in_contact_s"]), _fmt(c["rebound_ratio"]),
                         _fmt(c["energy_absorbed_j"]), _fmt(c.get("effective_stiffness_nm_per_rad"))])
    b = [("h", 2, "Joint limits"),
         ("p", "Per limit contact (an interval beyond one limit; gaps under 10 ms merged): the largest "
               "penetration, the peak limit torque, the time in contact, the rebound velocity ratio |q̇ exit| / "
               "|q̇ entry| and the energy the stop absorbed (−∫ τ_lim q̇ dt). Reference and applied runs: the "
               "law's torque; native runs (compare --native): the engine's own limit, its torque inferred by "
               "inverse dynamics."),
         ("table", ["run", "joint", "side", "entry [s]", "max penetration [rad]", "peak torque [N m]",
                    "time in contact [s]", "rebound ratio", "energy absorbed [J]",
                    "peak torque / penetration [N m/rad]"], rows)]
    cal = lim.get("calibration")
    if cal:
        b.append(("p", f"Calibration ({cal['engine']}, compare --calibrate-limits): the solreflimit/solimplimit that "
                       "best reproduce the law on this arm and motion, fitted per joint (Nelder–Mead on the RMS "
                       f"joint-angle difference to the reference, {cal['evaluations']} runs). Residual "
                       f"{_fmt(cal['residual_rms_rad'])} rad against {_fmt(cal['default_residual_rms_rad'])} rad "
                       f"with MuJoCo's default limit ({_fmt(cal['improvement_over_default'])}× closer) and "
                       f"{_fmt(cal['direct_residual_rms_rad'])} rad with the direct form (−k, −c)."))
        b.append(("table", ["joint", "solreflimit (timeconst, dampratio)", "solimplimit"],
                  [[str(j), " ".join(f"{x:.4g}" for x in r), " ".join(f"{x:.4g}" for x in i)]
                   for j, r, i in zip(cal["joints"], cal["solreflimit"], cal["solimplimit"])]))
    pcal = lim.get("calibration_pybullet")
    if pcal:
        b.append(("p", f"Calibration ({pcal['engine']}, compare --calibrate-limits): PyBullet's limit is a hard "
                       "velocity-level constraint with no stiffness or damping; two settings change it — "
                       "jointLimitForce (per joint: caps the limit's torque, so the stop gives way) and erp "
                       "(world-global: one value for every limit; the fraction of a penetration pushed back per "
                       f"step). Fitted (Nelder–Mead from a coarse grid, {pcal['evaluations']} runs): residual "
                       f"{_fmt(pcal['residual_rms_rad'])} rad against {_fmt(pcal['default_residual_rms_rad'])} rad "
                       f"with PyBullet's defaults ({_fmt(pcal['improvement_over_default'])}× closer). The fitted stop "
                       "is torque-capped, not a spring. Measured to leave the limit unchanged: "
                       f"{', '.join(pcal['inert_settings'])}. Rerun: {pcal['options']}"))
        b.append(("table", ["joint", "jointLimitForce [N m]", "erp (world-global)"],
                  [[str(j), f"{f:.4g}", f"{pcal['limit_erp']:.4g}"] for j, f in zip(pcal["joints"],
                                                                                   pcal["limit_force"])]))
    if lim.get("native"):
        b.append(("p", "Native verdict (compare --native): every native contact against the "
                       f"{lim.get('native_reference', 'reference')}. Tolerance per quantity = integration (10 × the "
                       "native run's own Richardson estimate, dt against dt/2, first order) + inference (peak torque "
                       "and energy: native limit torques are inferred by inverse dynamics; the same inference on the "
                       "reference errs by this much) + sampling (time in contact: entry and exit on the dt grid, "
                       "2 dt) + softness (the engine's measured softness fraction × |reference|)."))
    for name, v in lim.get("native", {}).items():
        b += native_limit_blocks(name, v)
    return b


def native_limit_blocks(name: str, v: dict) -> list[tuple]:
    """One native run's verdict: its measured softness (held-load side runs) and every check with its terms."""
    deps = v["departures"]
    b = [("p", f"{name}: {'PASS' if v['pass'] else 'FAIL'}, {v.get('checked', 0)} quantities checked, "
               f"{len(deps)} beyond tolerance.")]
    soft = v.get("softness") or {}
    if soft:
        b.append(("p", f"{name}: measured softness (held-load side runs: the arm at rest with the joint at its "
                       "limit at each reference contact's deepest configuration, gravity compensated, the load held "
                       "into the limit for 1 s; give = mean penetration over the last 0.2 s; softness fraction = "
                       "(spread of the give over the configurations + its unsettled range) / the law's give)."))
        rows = []
        for s in soft.values():
            gives = [r["give_rad"] for r in s["at_contacts"] if r["give_rad"] is not None]
            stiff = [r["effective_stiffness_nm_per_rad"] for r in s["at_contacts"]]
            rows.append([str(s["joint"]), s["side"], _fmt(s["load_nm"]), _fmt(s["law_give_rad"]),
                         " / ".join(_fmt(g) for g in gives) or "–",
                         " / ".join("rigid" if k is None else _fmt(k) for k in stiff),
                         _fmt(s["law_stiffness_nm_per_rad"]), _fmt(s["softness_fraction"])])
        b.append(("table", ["joint", "side", "held load [N m]", "law's give [rad]", "engine's give [rad]",
                            "engine's stiffness [N m/rad]", "law's k [N m/rad]", "softness fraction"], rows))
    rows = [[str(c["joint"]), c["side"], str(c["contact"] or "–"), c["quantity"], _fmt(c["reference"]),
             _fmt(c["native"]), _fmt(c["integration"]), _fmt(c["inference"]), _fmt(c["sampling"]),
             _fmt(c["softness"]), _fmt(c["tolerance"]), "PASS" if c["pass"] else "FAIL"]
            for c in v.get("checks", []) + [d for d in deps if d["quantity"] == "count"]]
    if rows:
        b.append(("table", ["joint", "side", "contact", "quantity", "reference", "native", "integration",
                            "inference", "sampling", "softness", "tolerance", "result"], rows))
    return b


def contact_native_blocks(summary: dict) -> list[tuple]:
    """Section "Native contact" (arms with contact: by default characterised, with --native judged; with
    --calibrate-contact the calibration): the per-episode
    characterisation of the reference and each engine's own contact, the verdicts, the calibration."""
    contact = summary.get("contact") or {}
    native, cal = contact.get("native"), contact.get("calibration")
    if not native and not cal:
        return []
    b = [("h", 2, "Native contact")]
    if native:
        rows = []
        runs = [("reference", native["reference"]["episodes"])] + [(k, v.get("episodes", []))
                                                                  for k, v in native["engines"].items()]
        for name, eps in runs:
            for e in eps:
                rows.append([name, str(e["obstacle"]), str(e["episode"]), f"{e['t_enter_s']:.4f}",
                             _fmt(e["max_penetration_m"]), _fmt(e["peak_normal_force_n"]), _fmt(e["duration_s"]),
                             _fmt(e["restitution"]), _fmt(e["impulse_ns"]), _fmt(e["energy_dissipated_j"]),
                             _fmt(e.get("path_deviation_m"))])
        b += [("p", f"The law: {native['law']}. Reference: {native['reference']['method']}. Per contact episode "
                    "(an interval with the tip sphere inside an obstacle): the largest penetration, the peak normal "
                    "force, the duration, the coefficient of restitution (normal separation speed / impact speed), "
                    "the normal impulse, the energy the contact dissipated (work–energy balance) and the tip's "
                    "largest distance from the reference's over the episode. Native forces are inferred from the "
                    "motion by inverse dynamics."),
              ("table", ["run", "obstacle", "episode", "entry [s]", "max penetration [m]", "peak normal force [N]",
                         "duration [s]", "restitution", "impulse [N s]", "energy dissipated [J]",
                         "tip path deviation [m]"], rows)]
        for name, e in native["engines"].items():
            v = e.get("verdict")
            if v is None:
                b.append(("p", f"{name}: {e['status']}: {e['reason']}"))
                continue
            soft = e["softness"]["relative_force_error_max"]
            judged = native.get("judged", True)
            word = ("PASS" if v["pass"] else "FAIL") if judged else (
                "within tolerance (characterised, not judged: compare --native judges)" if v["pass"] else
                "departs (characterised, not judged: compare --native makes this fail)")
            b.append(("p", f"{name}: {word}, {v['checked']} quantities checked, "
                           f"{len(v['departures'])} beyond tolerance (each episode against the law restarted at the "
                           "engine's pre-contact state; tolerance = integration-error estimate + the engine's "
                           f"measured contact-force departure from the law, {_fmt(soft)}); whole-run tip path "
                           f"deviation {_fmt(e['path_deviation_m'])} m."))
            if v["departures"]:
                b.append(("table", ["obstacle", "episode", "quantity", "reference", "native", "tolerance"],
                          [[str(d["obstacle"] or "–"), str(d["episode"] or "–"), d["quantity"], _fmt(d["reference"]),
                            _fmt(d["native"]), _fmt(d["tolerance"])] for d in v["departures"]]))
        for name, why in native["unsupported"].items():
            b.append(("p", f"{name}: unsupported natively: {why}"))
    for name, c in (cal or {}).items():
        if name == "mujoco":
            b.append(("p", f"Calibration ({c['engine']}, compare --calibrate-contact): solref "
                           f"{_vec(c['solref'])}, solimp {_vec(c['solimp'])} reproduce the law best on this arm and "
                           f"motion (Nelder–Mead on the RMS joint-angle difference to the reference, {c['evaluations']} "
                           f"runs): residual {_fmt(c['residual_rms_rad'])} rad, against "
                           f"{_fmt(c['direct_residual_rms_rad'])} rad with crossdyn's direct setting "
                           f"{_vec(c['direct_solref'])} ({_fmt(c['improvement_over_direct'])}× closer), "
                           f"{_fmt(c['literal_residual_rms_rad'])} rad with the literal (−k, −c) "
                           f"({_fmt(c['improvement_over_literal'])}×) and {_fmt(c['default_residual_rms_rad'])} rad "
                           f"with MuJoCo's default contact ({_fmt(c['improvement_over_default'])}×)."))
        else:
            b.append(("p", f"Calibration ({c['engine']}, compare --calibrate-contact): contactStiffness "
                           f"{_fmt(c['contact_stiffness'])} N/m, contactDamping {_fmt(c['contact_damping'])} N s/m: "
                           f"residual {_fmt(c['residual_rms_rad'])} rad against {_fmt(c['direct_residual_rms_rad'])} "
                           f"rad with (k, c) ({_fmt(c['improvement_over_direct'])}× closer), {c['evaluations']} runs."))
    return b


def _vec(values) -> str:
    return "(" + ", ".join(f"{v:.4g}" for v in values) + ")"


def render_markdown(blocks) -> str:
    out = []
    for blk in blocks:
        if blk[0] == "h":
            out.append("#" * blk[1] + " " + blk[2])
        elif blk[0] == "p":
            out.append(blk[1])
        elif blk[0] == "table":
            header, rows = blk[1], blk[2]
            out.append("| " + " | ".join(str(h).replace("|", "\\|") for h in header) + " |")
            out.append("|" + "---|" * len(header))
            for r in rows:
                out.append("| " + " | ".join(str(c).replace("|", "\\|") for c in r) + " |")
        elif blk[0] == "img":
            out.append(f"![{blk[2]}]({blk[1]})")
        out.append("")
    return "\n".join(out)


def render_html(blocks, images: dict[str, bytes]) -> str:
    css = ("body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em}"
           "table{border-collapse:collapse;margin:.5em 0 1.2em}td,th{border:1px solid #ccc;padding:3px 8px;"
           "font-size:13px}th{background:#f3f3f3}td:last-child{font-weight:bold}img{max-width:100%}"
           ".PASS{color:#080}.FAIL{color:#b00}")
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           f"<title>{html.escape(blocks[0][2])}</title><style>{css}</style></head><body>"]
    for blk in blocks:
        if blk[0] == "h":
            out.append(f"<h{blk[1]}>{html.escape(blk[2])}</h{blk[1]}>")
        elif blk[0] == "p":
            out.append(f"<p>{html.escape(blk[1]).replace('**', '')}</p>")
        elif blk[0] == "table":
            out.append("<table><tr>" + "".join(f"<th>{html.escape(str(h))}</th>" for h in blk[1]) + "</tr>")
            for r in blk[2]:
                out.append("<tr>" + "".join(f'<td class="{html.escape(str(c))}">{html.escape(str(c))}</td>' for c in r)
                           + "</tr>")
            out.append("</table>")
        elif blk[0] == "img":
            data = images.get(blk[1])
            if data is None:
                continue
            mime = "image/gif" if blk[1].endswith(".gif") else "image/png"
            b64 = base64.b64encode(data).decode("ascii")
            out.append(f'<figure><img alt="{html.escape(blk[2])}" src="data:{mime};base64,{b64}">'
                       f"<figcaption>{html.escape(blk[2])}</figcaption></figure>")
    # a browser marks how many embedded images decoded (read by the tests through headless Chromium)
    out.append("<script>window.addEventListener('load', () => { const imgs = [...document.images]; "
               "document.body.dataset.imagesLoaded = imgs.filter(i => i.complete && i.naturalWidth > 0).length "
               "+ '/' + imgs.length; });</script>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def write_outputs(cmp, out_dir: str | Path, plots: bool = True, animation: bool = True) -> dict[str, Path]:
    """Write summary.json, timeseries.csv/.parquet, plots and both reports into ``out_dir``."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written: dict[str, Path] = {}
    written["summary.json"] = write_json_atomic(out_dir / "summary.json", cmp.summary)
    df = timeseries(cmp)
    written["timeseries.csv"] = write_text_atomic(out_dir / "timeseries.csv", df.to_csv(index=False))
    try:
        buf = io.BytesIO()
        df.to_parquet(buf, index=False)
        written["timeseries.parquet"] = write_bytes_atomic(out_dir / "timeseries.parquet", buf.getvalue())
    except ImportError:  # pyarrow missing: CSV still written
        pass
    import warnings

    with warnings.catch_warnings():  # e.g. "No artists with labels" when every engine failed before plotting
        warnings.filterwarnings("ignore", category=UserWarning, module="matplotlib")
        warnings.filterwarnings("ignore", message="No artists with labels", category=UserWarning)
        images = make_plots(cmp, animation=animation) if plots else {}
    for name, data in images.items():
        written[name] = write_bytes_atomic(out_dir / name, data)
    blocks = report_blocks(cmp.summary, list(images))
    written["report.md"] = write_text_atomic(out_dir / "report.md", render_markdown(blocks))
    written["report.html"] = write_text_atomic(out_dir / "report.html", render_html(blocks, images))
    return written
