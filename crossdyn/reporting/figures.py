"""What every figure of the report shares: PNG encoding, a line style and marker per engine, which engines'
curves coincide (the legend says so), legends outside the data, and the obstacles drawn as shaded half-planes.

Plot modules call :func:`png` through this module (``figures.png(fig)``), so that one patch sees every figure.
"""
from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np


def png(fig) -> bytes:
    """The figure as PNG bytes (90 dpi, tight bounding box); the figure is closed."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90, bbox_inches="tight")
    import matplotlib.pyplot as plt

    plt.close(fig)
    return buf.getvalue()


PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
           "#17becf", "#000000", "#000080")
"""Twelve distinct colours for series (engines, runs): matplotlib's ten, then black and navy (the same
twelve as the identification report's :data:`crossdyn.identification.report.SERIES_COLOURS`)."""

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


def label(name: str, same: dict, unit: str = "rad") -> str:
    """The legend entry of engine ``name``: its name, and which earlier engine it coincides with (``same``), within
    how much (in ``unit``: rad, or "rad or m" on an arm with prismatic joints)."""
    if name not in same:
        return name
    other, d = same[name]
    return f"{name} (= {other} within {max(d, 1e-300):.0e} {unit})" if d > 0 else f"{name} (= {other} exactly)"


def legend_outside(ax, **kw):
    """The legend to the right of the axes, outside the data."""
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, fontsize=8, **kw)


@dataclass(frozen=True)
class EngineLooks:
    """How each compared engine is drawn: colour (:data:`PALETTE`) and line style/marker (:data:`STYLES`) in the
    order compared, and the engines whose driven (``same``) or free (``same_free``) trajectories coincide."""

    colors: dict[str, str]
    styles: dict[str, Any]
    order: dict[str, int]
    same: dict[str, tuple[str, float]]
    same_free: dict[str, tuple[str, float]]
    unit: str = "rad"
    """The unit of the joints' q in the legend's "within" (rad; "rad or m" on an arm with prismatic joints)."""

    @classmethod
    def of(cls, cmp, unit: str = "rad") -> EngineLooks:
        names = list(cmp.runs)
        return cls(colors={name: PALETTE[i % len(PALETTE)] for i, name in enumerate(names)},
                   styles={name: STYLES[i % len(STYLES)] for i, name in enumerate(names)},
                   order={name: i for i, name in enumerate(names)},
                   same=coincidences(driven_runs(cmp)), same_free=coincidences(cmp.runs, "free"), unit=unit)

    def kw(self, name: str, points: int, coinciding: dict | None = None) -> dict:
        """Line keywords for engine ``name`` on a curve of ``points`` samples: markers staggered per engine every
        ``points // 12`` samples, so that coinciding curves still show each marker."""
        ls, marker = self.styles[name]
        step = max(points // 12, 1)
        return dict(color=self.colors[name], ls=ls, marker=marker, ms=4, lw=1.2,
                    label=label(name, self.same if coinciding is None else coinciding, self.unit),
                    markevery=(self.order[name] * step // max(len(self.order), 1) % step, step))


def driven_runs(cmp) -> dict:
    """The engines that produced a driven run, in the order compared."""
    return {k: r for k, r in cmp.runs.items() if r.driven is not None}


def desired_motion(cmp, times) -> np.ndarray | None:
    """The controller's desired motion q_d at ``times`` ((K, n)) for a closed-loop profile, None for open loop."""
    from crossdyn.comparison.compare import desired_motion as dm

    return dm(cmp.profile, times)


def half_plane_polygon(point, normal, lim: float) -> np.ndarray:
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
        poly = half_plane_polygon(a, n, lim)
        if len(poly) >= 3:
            ax.fill(poly[:, 0], poly[:, 1], color="tab:brown", alpha=0.18, lw=0, zorder=0)
        t = np.array([-n[1], n[0]])
        ends = np.array([a - 3 * lim * t, a + 3 * lim * t])
        ax.plot(ends[:, 0], ends[:, 1], "-", color="tab:brown", lw=1.5, zorder=0,
                label="obstacle (inside shaded)" if i == 1 else None)
    ax.set_xlim(-lim, lim)
    ax.set_ylim(-lim, lim)


CLUSTER_PX = 12.0
"""Points of one series closer than this on screen (pixels) share one label (e.g. an error-controlled engine's
dt study, whose points coincide): ``1, 2, 4 ms`` instead of three labels printed over each other."""

OFFSETS = [(4, 3), (4, -11), (-4, 3), (-4, -11), (4, 12), (4, -20), (-4, 12), (-4, -20)] + [
    (dx, dy) for r in (20, 32, 46, 62) for dx, dy in ((r, 0), (0, r), (r, r), (r, -r), (-r, 0), (0, -r), (-r, r),
                                                     (-r, -r))]
"""Where a point's label may go (points from the point; the text's left or right edge by the sign of dx): near
ones first, then rings further out."""


def tick_labels(axis) -> list:
    """The tick labels ``axis`` draws: visible, non-empty, at a tick inside its view interval (a locator also
    places ticks beyond the limits, which are not drawn; on a log axis "inside" is judged in log scale, where an
    absolute slack took a 10^-12 tick beyond a lower limit of 8e-12 for a drawn one)."""
    scale = axis.get_transform()  # compared in the axis' own scale: on a log axis 1e-12 lies outside [8e-12, 0.09]
    lo, hi = sorted(np.ravel(scale.transform(np.array(axis.get_view_interval(), dtype=float))))
    slack = 1e-9 * max(hi - lo, 1e-300)
    out = []
    for tick in axis.get_major_ticks() + axis.get_minor_ticks():
        loc = float(np.ravel(scale.transform(np.array([tick.get_loc()], dtype=float)))[0])
        if lo - slack <= loc <= hi + slack:
            out += [lab for lab in (tick.label1, tick.label2) if lab.get_visible() and lab.get_text()]
    return out


def drawn_text_boxes(fig, renderer) -> list:
    """The display-space boxes of the text a reader sees in ``fig``: titles, axis labels, visible tick labels,
    annotations and texts, legends (each as one box) — what new labels must not overlap."""
    boxes = []
    for ax in fig.axes:
        boxes += [t.get_window_extent(renderer) for t in (ax.title, ax.xaxis.label, ax.yaxis.label, *ax.texts)
                  if t.get_visible() and t.get_text()]
        boxes += [lab.get_window_extent(renderer) for axis in (ax.xaxis, ax.yaxis) for lab in tick_labels(axis)]
        if ax.get_legend() is not None:
            boxes.append(ax.get_legend().get_window_extent(renderer))
    return boxes


def _clusters(ax, points: Sequence) -> list[list[int]]:
    """Indices of ``points`` grouped where consecutive ones (in screen order) lie within :data:`CLUSTER_PX`."""
    xy = ax.transData.transform(np.asarray(points, dtype=float))
    groups: list[list[int]] = []
    for i in np.lexsort((xy[:, 1], xy[:, 0])):
        near = next((g for g in groups if np.min(np.hypot(*(xy[g] - xy[i]).T)) < CLUSTER_PX), None)
        if near is None:
            groups.append([int(i)])
        else:
            near.append(int(i))
    return groups


def place_labels(ax, series: Sequence[tuple[Sequence, Sequence[str], Any, str]], unit: str = "",
                 fontsize: float = 7) -> None:
    """Label the points of each series ``(points (x, y), labels, colour, name)`` on ``ax`` without overlapping
    any text already in the figure or each other: points of one series within :data:`CLUSTER_PX` share one
    label (their labels joined, then ``unit``); each label takes the first of :data:`OFFSETS` where its box
    lies inside the axes and meets no other text.  Call it after the axes' data, limits, titles and legend are
    final (it draws the figure once to measure)."""
    fig = ax.figure
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    taken = drawn_text_boxes(fig, renderer)
    inside = ax.get_window_extent(renderer)
    for points, labels, color, _name in series:
        if not points:
            continue
        for group in _clusters(ax, points):
            group.sort()  # in the order given
            text = ", ".join(labels[i] for i in group) + (f" {unit}" if unit else "")
            anchor = points[group[0]]
            note = None
            for dx, dy in OFFSETS:
                if note is not None:
                    note.remove()
                note = ax.annotate(text, anchor, xytext=(dx, dy), textcoords="offset points", fontsize=fontsize,
                                   color=color, ha="left" if dx >= 0 else "right", va="bottom")
                box = note.get_window_extent(renderer)
                if (box.x0 >= inside.x0 and box.x1 <= inside.x1 and box.y0 >= inside.y0 and box.y1 <= inside.y1
                        and not any(box.overlaps(b) for b in taken)):
                    break
            if note is not None:
                taken.append(note.get_window_extent(renderer))
