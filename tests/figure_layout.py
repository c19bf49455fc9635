"""What a reader of any report figure can rely on, measured on the real matplotlib figure after drawing it:
no two texts overlap, no axes is empty, every axis that shows a scale has a label, and series have distinct
colours.  Used by tests/test_report_figures.py on every figure the compare and identify reports make."""
from __future__ import annotations

import itertools
from contextlib import contextmanager

OVERLAP_PX = 2.0
"""Two text boxes may touch, or overlap by up to this much (pixels, in either direction), but no more."""


def _drawn(fig):
    """``fig`` drawn, and its renderer (a figure the report code closed gets an Agg canvas again)."""
    if not hasattr(fig.canvas, "get_renderer"):
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        FigureCanvasAgg(fig)
    fig.canvas.draw()
    return fig.canvas.get_renderer()


def _visible(t) -> bool:
    return t.get_visible() and bool(t.get_text().strip())


def text_boxes(fig) -> list[tuple[str, object]]:
    """(what, display-space box) of every text the figure shows: its texts (the suptitle one of them), each axes' titles, axis
    labels, offset texts, tick labels drawn (inside the view interval), texts and annotations, and each legend
    as one box (its entries sit inside it)."""
    from crossdyn.reporting.figures import tick_labels

    r = _drawn(fig)
    out = [(f"figure text {t.get_text()!r}", t) for t in fig.texts if _visible(t)]  # the suptitle among them
    boxes = [(w, t.get_window_extent(r)) for w, t in out]
    boxes += [(f"figure legend {i}", leg.get_window_extent(r)) for i, leg in enumerate(fig.legends)]
    for k, ax in enumerate(fig.axes):
        texts = [ax.title, ax._left_title, ax._right_title, ax.xaxis.label, ax.yaxis.label,
                 ax.xaxis.get_offset_text(), ax.yaxis.get_offset_text(), *ax.texts,
                 *tick_labels(ax.xaxis), *tick_labels(ax.yaxis)]
        boxes += [(f"axes {k} {type(t).__name__} {t.get_text()!r}", t.get_window_extent(r)) for t in texts
                  if _visible(t)]
        if ax.get_legend() is not None:
            boxes.append((f"axes {k} legend", ax.get_legend().get_window_extent(r)))
    return boxes


def overlapping_texts(fig, tolerance: float = OVERLAP_PX) -> list[str]:
    """Every pair of text boxes whose intersection is wider and taller than ``tolerance`` pixels."""
    found = []
    for (wa, a), (wb, b) in itertools.combinations(text_boxes(fig), 2):
        w = min(a.x1, b.x1) - max(a.x0, b.x0)
        h = min(a.y1, b.y1) - max(a.y0, b.y0)
        if w > tolerance and h > tolerance:
            found.append(f"{wa} overlaps {wb} by {w:.1f} x {h:.1f} px")
    return found


def empty_axes(fig) -> list[int]:
    """The axes that draw nothing: no line, collection, patch, image or text of data."""
    return [k for k, ax in enumerate(fig.axes) if ax.get_visible() and not (ax.has_data() or ax.texts)]


def unlabelled_axes(fig) -> list[str]:
    """Each axis (x or y of an axes) that shows a scale (tick labels) but has no label; an axis whose tick labels
    are hidden because it shares them with a labelled neighbour (``sharex`` subplots) shows no scale."""
    from crossdyn.reporting.figures import tick_labels

    _drawn(fig)
    out = []
    for k, ax in enumerate(fig.axes):
        for name, axis in (("x", ax.xaxis), ("y", ax.yaxis)):
            if tick_labels(axis) and not axis.label.get_text().strip():
                out.append(f"axes {k} ({ax.get_title()!r}): no {name} label")
    return out


def line_colours(ax) -> list[tuple]:
    """The RGBA colour of each labelled line of ``ax`` (a legend entry)."""
    from matplotlib.colors import to_rgba

    return [to_rgba(ln.get_color()) for ln in ax.get_lines() if not ln.get_label().startswith("_")]


@contextmanager
def captured_figures(monkeypatch):
    """The figures the report code saves, in order, as it saves them: wraps :func:`figures.png` (compare's
    plots) and ``Figure.savefig`` (identify's), each still saving — the real figure, inspected before it closes."""
    import matplotlib.figure

    import crossdyn.reporting.figures as figures

    seen: list = []
    png, savefig = figures.png, matplotlib.figure.Figure.savefig

    def keep_png(fig):
        seen.append(fig)
        return png(fig)

    def keep_savefig(self, *args, **kwargs):
        if self not in seen:
            seen.append(self)
        return savefig(self, *args, **kwargs)

    monkeypatch.setattr(figures, "png", keep_png)
    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", keep_savefig)
    yield seen
