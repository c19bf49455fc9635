"""Coulomb friction: when each joint is stuck, per run (the stick/slip timeline)."""
from __future__ import annotations

import numpy as np

from crossdyn.reporting import figures


def stick_slip_timelines(cmp) -> dict:
    """Per run: {"t", "stuck" (K, friction joints), "threshold"} for :func:`stick_slip_plot` — "reference" the
    set-valued law's sticking mode (:func:`crossdyn.analytic.references.stick_slip.simulate_stick_slip`, the torque held
    per step; open-loop profiles), the --characterise-friction native runs as measured there (|q̇| < 1e-4 rad/s
    over a step), and every compared engine's driven run: |q̇| < v_s, the regularisation velocity, in applied
    mode (the regularised law never stops a joint: below v_s it is in its viscous, sticking regime), 1e-4 rad/s
    when the engines keep their own friction (--native-friction)."""
    from crossdyn.native.friction.episodes import V_STICK, stuck_mask

    spec = cmp.spec
    joints = [j for j, link in enumerate(spec.links) if link.friction > 0]
    if not joints:
        return {}
    given = getattr(cmp, "stick_slip_timelines", {}) or {}
    out = {}
    if "reference" in given:
        out["reference"] = {**given["reference"], "threshold": "sticking mode"}
    elif not getattr(cmp.profile, "closed_loop", True):
        from crossdyn.analytic.references.stick_slip import simulate_stick_slip

        dt = cmp.options.dt
        try:
            ref = simulate_stick_slip(spec, cmp.q0, cmp.summary["start"]["qd0"], cmp.options.duration,
                                      torque=lambda t: cmp.profile.sample(np.array([t]))[0], hold=dt, output_dt=dt)
            assert ref.sticking is not None  # simulate_stick_slip always records the mode
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

    joints = [j for j, link in enumerate(cmp.spec.links) if link.friction > 0]
    names = list(lines)
    fig, axes = plt.subplots(len(joints), 1, figsize=(9, 0.35 * len(names) * len(joints) + 1.2), sharex=True,
                             squeeze=False)
    for c, (ax, j) in enumerate(zip(axes[:, 0], joints, strict=True)):
        for row, name in enumerate(names):
            t, stuck = np.asarray(lines[name]["t"]), np.asarray(lines[name]["stuck"])[:, c]
            dt = float(t[1] - t[0]) if len(t) > 1 else 1.0
            bars = [(a, b - a + dt) for a, b in intervals(stuck, t)]
            ax.broken_barh(bars, (row - 0.35, 0.7), color="k" if name == "reference" else figures.PALETTE[row % len(figures.PALETTE)],
                           alpha=0.35 if name == "reference" else 0.8)
        ax.set_yticks(range(len(names)))
        ax.set_yticklabels([f"{n}: {lines[n]['threshold']}" for n in names], fontsize=7)
        ax.set_ylim(-0.6, len(names) - 0.4)
        ax.invert_yaxis()
        ax.set_ylabel(f"joint {j + 1}\nf_c = {cmp.spec.links[j].friction:g} N m", fontsize=8)
        ax.grid(axis="x", alpha=0.3)
    axes[-1, 0].set_xlabel("t [s]")
    axes[0, 0].set_title(f"{cmp.spec.name}: stick/slip timeline (bars: stuck)")
    return {"stick_slip.png": figures.png(fig)}
