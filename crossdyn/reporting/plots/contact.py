"""Contact: the normal force and penetration against time and the tip's path among the obstacles, for applied
mode (the law held per step) and for the engines' own contact (compare --native)."""
from __future__ import annotations

from typing import Any

import numpy as np

from crossdyn.reporting import figures
from crossdyn.reporting.figures import draw_obstacles, legend_outside


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
    legend_outside(a1)
    out = {"contact.png": figures.png(fig)}

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
    legend_outside(ax)
    out["tip_path.png"] = figures.png(fig)
    return out


def native_contact_plots(cmp) -> dict[str, bytes]:
    """compare --native on an arm with contact: ``native_contact.png`` — penetration and normal force against time
    (summed over the obstacles) for the law's reference and each engine's own contact (forces inferred by inverse
    dynamics), and the tip path with the obstacles drawn.  Nothing otherwise."""
    runs = getattr(cmp, "native_contact_runs", {}) or {}
    ref = getattr(cmp, "native_contact_reference", None)
    if not runs or ref is None:
        return {}
    import matplotlib.pyplot as plt

    from crossdyn.analytic.laws.contact import ContactLaw
    from crossdyn.native.contact import episodes as ce

    spec = cmp.spec
    law = ContactLaw.of(spec)
    assert law is not None, "native contact runs without a contact law"  # compare makes them for contact arms only
    fig = plt.figure(figsize=(11, 6))
    a_pen, a_f = fig.add_subplot(2, 2, 1), fig.add_subplot(2, 2, 3)
    a_path = fig.add_subplot(1, 2, 2)
    for i, (name, tr, native) in enumerate([("reference", ref, False)] + [(k, t, True) for k, t in runs.items()]):
        tips, delta, _, _ = ce.tip_motion(spec, law, tr.q, tr.qd)
        fn, _ = ce.inferred_forces(spec, law, tr) if native else ce.law_forces(spec, law, tr.q, tr.qd)
        colour = figures.PALETTE[i % len(figures.PALETTE)]
        style: dict[str, Any] = dict(color="k", lw=3, alpha=0.3) if not native else dict(color=colour, lw=1.1)
        a_pen.plot(tr.t[:len(delta)], 1e3 * np.clip(delta, 0, None).sum(axis=1), label=name, **style)
        a_f.plot(tr.t[:len(fn)], fn.sum(axis=1), label=name, **style)
        a_path.plot(tips[:, 0], tips[:, 1], label=name, **style)
    a_pen.set(ylabel="penetration [mm]")
    a_f.set(xlabel="t [s]", ylabel="normal force [N]")
    lo, hi = a_path.get_xlim(), a_path.get_ylim()
    for a, n in zip(law.points, law.normals, strict=True):  # each obstacle's surface line, the inside hatched
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
    legend_outside(a_path)
    return {"native_contact.png": figures.png(fig)}
