"""The arm itself: its drawing at the start configuration and the animation of every engine's arm overlaid."""
from __future__ import annotations

import io
from typing import Any

import numpy as np

from crossdyn.reporting import figures
from crossdyn.reporting.figures import EngineLooks, draw_obstacles, label


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
    return figures.png(fig)


def animation_gif(cmp, runs: dict, looks: EngineLooks, frames: int = 40) -> bytes:
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
    fig = plt.figure(figsize=(8.0, 6.0), dpi=80)  # 640 x 480 px: the GIF is at least 480 px on each side
    ax = fig.add_axes((0.1, 0.09, 0.52, 0.83))
    ax.set(xlim=(-reach, reach), ylim=(-reach, reach), aspect="equal", xlabel="x [m]", ylabel="y [m]",
           title=f"{cmp.spec.name}: every engine")
    draw_obstacles(ax, cmp.spec, reach)
    trajs = {"reference": cmp.reference, **{k: r.driven for k, r in runs.items()}}
    pts = {k: joint_positions(p, t.q) for k, t in trajs.items()}
    artists = []
    for k in trajs:
        c = "k" if k == "reference" else looks.colors[k]
        ls, marker = ("-", "o") if k == "reference" else looks.styles.get(k, ("-", "o"))
        (line,) = ax.plot([], [], color=c, ls=ls, marker=marker, lw=3 if k == "reference" else 1.5,
                          alpha=0.4 if k == "reference" else 0.9,
                          label=label(k, looks.same).replace(" (=", "\n(="), ms=5, animated=True)
        (trace,) = ax.plot([], [], "-", color=c, lw=0.6, alpha=0.6, animated=True)
        artists.append((k, line, trace))
    fig.legend(handles=[a[1] for a in artists], fontsize=9, loc="upper left", bbox_to_anchor=(0.64, 0.92),
               frameon=False, labelspacing=0.8)
    canvas: Any = fig.canvas  # Agg's: copy_from_bbox, restore_region, buffer_rgba
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
        images.append(Image.fromarray(rgba[..., :3].copy()))
    plt.close(fig)
    # one 64-colour palette, from the last frame (every artist and the longest traces: every colour drawn),
    # each frame mapped to it without dithering: a median cut per frame was most of the animation's time
    palette = images[-1].quantize(colors=64, method=Image.Quantize.MEDIANCUT)
    images = [im.quantize(palette=palette, dither=Image.Dither.NONE) for im in images]
    buf = io.BytesIO()
    images[0].save(buf, format="GIF", save_all=True, append_images=images[1:], duration=80, loop=0)
    return buf.getvalue()
