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

PLOTS = ("angles.png", "error.png", "energy.png", "id_error_hist.png", "convergence.png", "animation.gif")


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


def make_plots(cmp, animation: bool = True) -> dict[str, bytes]:
    """The report's figures as file name → bytes."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    spec, ref = cmp.spec, cmp.reference
    n = spec.n
    runs = {k: r for k, r in cmp.runs.items() if r.driven is not None}
    colors = {name: f"C{i}" for i, name in enumerate(runs)}
    out: dict[str, bytes] = {}

    fig, axes = plt.subplots(n, 1, figsize=(8, 2.2 * n), sharex=True, squeeze=False)
    for j in range(n):
        ax = axes[j, 0]
        ax.plot(ref.t, ref.q[:, j], "k-", lw=2.5, alpha=0.35, label="reference (DOP853)")
        for name, r in runs.items():
            ax.plot(r.driven.t, r.driven.q[:, j], lw=1, color=colors[name], label=name)
        ax.set_ylabel(f"q{j + 1} [rad]")
    axes[-1, 0].set_xlabel("t [s]")
    axes[0, 0].legend(fontsize=7, ncol=3)
    axes[0, 0].set_title(f"{spec.name}: joint angles under {cmp.profile.name}")
    out["angles.png"] = _png(fig)

    fig, ax = plt.subplots(figsize=(8, 3.5))
    for name, r in runs.items():
        k = min(len(r.driven.q), len(ref.q))
        e = np.max(np.abs(r.driven.q[:k] - ref.q[:k]), axis=1)
        ax.semilogy(r.driven.t[:k], np.maximum(e, 1e-17), color=colors[name], lw=1, label=name)
    ax.axhline(cmp.options.tolerances.divergence_rad, color="r", ls=":", lw=1, label="divergence threshold")
    ax.set(xlabel="t [s]", ylabel="max |q − q_ref| [rad]", title="trajectory error against the reference")
    ax.legend(fontsize=7)
    out["error.png"] = _png(fig)

    fig, ax = plt.subplots(figsize=(8, 3.5))
    for name, r in cmp.runs.items():
        if r.free_energy is not None:
            ax.plot(r.free.t[: len(r.free_energy)], r.free_energy - r.free_energy[0], color=colors.get(name), lw=1,
                    label=name)
    ax.set(xlabel="t [s]", ylabel="E(t) − E(0) [J]", title=f"energy in free motion (scale {spec.energy_scale():.4g} J)")
    ax.legend(fontsize=7)
    out["energy.png"] = _png(fig)

    fig, ax = plt.subplots(figsize=(8, 3.5))
    for name, r in cmp.runs.items():
        if r.id_errors is not None:
            e = np.log10(np.maximum(np.abs(r.id_errors).ravel(), 1e-18))
            ax.hist(e, bins=40, histtype="step", color=colors.get(name), label=name)
    ax.set(xlabel="log10 |τ_engine − τ_analytic| [N m]", ylabel="count",
           title="inverse-dynamics error at random states")
    ax.legend(fontsize=7)
    out["id_error_hist.png"] = _png(fig)

    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 3.8))
    for name, r in cmp.runs.items():
        c = r.convergence
        if not c:
            continue
        pts = [(d, e, s) for d, e, s in zip(c["dt"], c["max_abs_error_rad"], c["compute_s_per_sim_s"]) if e]
        if not pts:
            continue
        d, e, s = map(np.array, zip(*pts))
        a1.loglog(d, e, "o-", color=colors.get(name), label=name)
        a2.loglog(s, e, "o-", color=colors.get(name), label=name)
    a1.set(xlabel="dt [s]", ylabel="max |q − q_exact| [rad]", title="convergence (free motion, 1 s)")
    a2.set(xlabel="compute time per simulated second [s]", ylabel="max |q − q_exact| [rad]", title="speed–accuracy")
    a1.legend(fontsize=7)
    from matplotlib.ticker import NullFormatter

    for ax in (a1, a2):
        ax.xaxis.set_minor_formatter(NullFormatter())
    out["convergence.png"] = _png(fig)

    if animation:
        out["animation.gif"] = _animation(cmp, runs, colors)
    return out


def _animation(cmp, runs, colors, frames: int = 40) -> bytes:
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
    fig, ax = plt.subplots(figsize=(4.5, 4.5), dpi=60)
    ax.set(xlim=(-reach, reach), ylim=(-reach, reach), aspect="equal", title=f"{cmp.spec.name}: every engine")
    trajs = {"reference": cmp.reference, **{k: r.driven for k, r in runs.items()}}
    pts = {k: joint_positions(p, t.q) for k, t in trajs.items()}
    artists = []
    for k in trajs:
        c = "k" if k == "reference" else colors[k]
        (line,) = ax.plot([], [], "o-", color=c, lw=2 if k == "reference" else 1,
                          alpha=0.5 if k == "reference" else 0.9, label=k, ms=3, animated=True)
        (trace,) = ax.plot([], [], "-", color=c, lw=0.6, alpha=0.6, animated=True)
        artists.append((k, line, trace))
    ax.legend(handles=[a[1] for a in artists], fontsize=6, loc="upper right")
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


def report_blocks(summary: dict, images: list[str]) -> list[tuple]:
    """The report as blocks: ("h", level, text), ("p", text), ("table", header, rows), ("img", file, caption)."""
    eng = summary["engines"]
    b: list[tuple] = []
    verdict = summary["verdict"].upper()
    b.append(("h", 1, f"crossdyn comparison: {summary['arm']} — {verdict}"))
    prof = summary["profile"]
    b.append(("p", f"{summary['dof']}R arm, dt = {summary['dt']:g} s, duration = {summary['duration']:g} s, profile "
                   f"{prof.get('name', prof)}; start q0 = {np.round(summary['start']['q0'], 4).tolist()} rad. Reference: "
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
    b.append(("h", 2, "Status"))
    b.append(("table", ["engine", "status", "reason"], [[k, v["status"], v.get("reason") or ""] for k, v in eng.items()]))

    def rows(metric, cols):
        out = []
        for k, v in eng.items():
            m = v.get(metric)
            if not m:
                continue
            out.append([k] + [f(m) for _, f in cols] + [_mark(m.get("pass"))])
        return out

    b.append(("h", 2, "Trajectory (driven run)"))
    cols = [("max |e| [rad]", lambda m: _fmt(m["max_abs_error_rad"])), ("RMS [rad]", lambda m: _fmt(m["rms_error_rad"])),
            ("EE max [m]", lambda m: _fmt(m["ee_max_error_m"])),
            ("diverged at [s]", lambda m: _fmt(m["divergence_time_s"])),
            ("self-consistency [rad]", lambda m: _fmt(m["self_consistency_rad"])),
            ("tolerance [rad]", lambda m: _fmt(m["tolerance_rad"])),
            ("same integrator", lambda m: m.get("same_integrator") or "–"),
            ("vs same integrator [rad]", lambda m: _fmt(m.get("same_integrator_error_rad")))]
    b.append(("table", ["engine"] + [c for c, _ in cols] + ["result"], rows("trajectory", cols)))
    b.append(("h", 2, "Inverse dynamics, forward dynamics, mass matrix (random states)"))
    cols = [("τ max |e| [N m]", lambda m: _fmt(m["max_abs_error_nm"])), ("tolerance", lambda m: _fmt(m["tolerance_nm"]))]
    b.append(("table", ["engine"] + [c for c, _ in cols] + ["result"], rows("inverse_dynamics", cols)))
    cols = [("q̈ max |e| [rad/s²]", lambda m: _fmt(m["max_abs_error"])), ("tolerance", lambda m: _fmt(m["tolerance"]))]
    b.append(("table", ["engine"] + [c for c, _ in cols] + ["result"], rows("forward_dynamics", cols)))
    cols = [("M max |e| [kg m²]", lambda m: _fmt(m["max_abs_error"])), ("tolerance", lambda m: _fmt(m["tolerance"]))]
    b.append(("table", ["engine"] + [c for c, _ in cols] + ["result"], rows("mass_matrix", cols)))
    b.append(("h", 2, "Energy"))
    cols = [("free-swing drift (rel.)", lambda m: _fmt(m["max_rel_drift"])),
            ("work–energy residual (rel.)", lambda m: _fmt(m["work_energy_residual_rel"])),
            ("tolerance", lambda m: _fmt(m["tolerance"]))]
    b.append(("table", ["engine"] + [c for c, _ in cols] + ["result"], rows("energy", cols)))
    b.append(("h", 2, "Convergence and speed"))
    conv_rows = []
    for k, v in eng.items():
        c, s = v.get("convergence"), v.get("speed")
        if not c:
            continue
        conv_rows.append([k, " / ".join(_fmt(e) for e in c["max_abs_error_rad"]), _fmt(c["empirical_order"]),
                          str(c["expected_order"]), _fmt(s["us_per_step"] if s else None)])
    dts = " / ".join(f"{d * 1e3:g}" for d in next((v["convergence"]["dt_s"] for v in eng.values() if v.get("convergence")), []))
    b.append(("table", ["engine", f"error at dt = {dts} ms [rad]", "order", "expected", "µs/step"], conv_rows))
    b.append(("h", 2, "Engine configuration audit"))
    b.append(("p", "Every setting that can change the physics, as each adapter reports it."))
    for k, v in eng.items():
        cfg = v.get("config") or {}
        b.append(("table", [f"{k}: setting", "value"], [[ck, str(cv)] for ck, cv in cfg.items()]))
    b.append(("h", 2, "Plots"))
    captions = {"angles.png": "joint angles", "error.png": "error against the reference (log scale)",
                "energy.png": "energy in free motion", "id_error_hist.png": "inverse-dynamics error histogram",
                "convergence.png": "convergence and speed–accuracy", "animation.gif": "animation, every engine overlaid"}
    for img in images:
        b.append(("img", img, captions.get(img, img)))
    return b


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
