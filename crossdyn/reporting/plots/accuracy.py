"""Accuracy without a trajectory, and its cost: the inverse-dynamics error at random states, the convergence of
the free-motion error with dt and the speed–accuracy trade-off."""
from __future__ import annotations

import numpy as np

from crossdyn.reporting import figures
from crossdyn.reporting.figures import EngineLooks, legend_outside


def id_error_plot(cmp, looks: EngineLooks) -> bytes | None:
    """``id_error_hist.png``: histogram of log10 |τ_engine − τ_analytic| per engine (exact zeros counted in the
    legend and drawn at −18); None when no engine was evaluated at the random states."""
    import matplotlib.pyplot as plt

    if all(r.id_errors is None for r in cmp.runs.values()):
        return None

    fig, ax = plt.subplots(figsize=(9, 3.6))
    zeros = {}
    for name, r in cmp.runs.items():
        if r.id_errors is not None:
            a = np.abs(r.id_errors).ravel()
            zeros[name] = int(np.sum(a == 0))
            e = np.log10(np.maximum(a, 1e-18))
            ls, _ = looks.styles[name]
            ax.hist(e, bins=40, histtype="step", color=looks.colors[name], ls=ls, lw=1.4,
                    label=f"{name} ({zeros[name]} of {a.size} exactly 0)" if zeros[name] else name)
    ax.set(xlabel="log10 |τ_engine − τ_analytic| [N m]", ylabel="count",
           title="inverse-dynamics error at random states" + (" (exact zeros drawn at −18)" if any(zeros.values())
                                                               else ""))
    legend_outside(ax)
    return figures.png(fig)


def convergence_plot(cmp, looks: EngineLooks) -> bytes | None:
    """``convergence.png``: max |q − q_exact| against dt (log–log; the slope is the empirical order) and against
    the compute time per simulated second, each point labelled with its dt in ms (coinciding points of one
    engine share a label, and no label covers another text: :func:`~crossdyn.reporting.figures.place_labels`);
    None when the study was not run (an arm with contact, limits or applied friction, no ``convergence_dts``) or
    no engine produced a point."""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import NullLocator

    if not any(e for r in cmp.runs.values() for e in (r.convergence or {}).get("max_abs_error_rad", [])):
        return None

    fig, (a1, a2) = plt.subplots(1, 2, figsize=(12, 4.2))
    labels = []
    for name, r in cmp.runs.items():
        c = r.convergence
        if not c:
            continue
        pts = [(d, e, s) for d, e, s in zip(c["dt"], c["max_abs_error_rad"], c["compute_s_per_sim_s"], strict=False)
               if e]
        if not pts:
            continue
        d, e, s = map(np.array, zip(*pts, strict=True))
        ls, marker = looks.styles[name]
        color = looks.colors[name]
        a1.loglog(d, e, color=color, ls=ls, marker=marker, label=name)
        a2.loglog(s, e, color=color, ls=ls, marker=marker, label=name)
        labels.append((list(zip(s, e, strict=True)), [f"{di * 1e3:g}" for di in d], color, name))
    a1.set(xlabel="dt [s]", ylabel="max |q − q_exact| [rad]", title="convergence (free motion, 1 s)")
    a2.set(xlabel="compute time per simulated second [s]", ylabel="max |q − q_exact| [rad]",
           title="speed–accuracy (points labelled with dt)")
    legend_outside(a2)
    for ax in (a1, a2):  # no minor x ticks (their labels crowded the axis; laying them out was half the figure's
        ax.xaxis.set_minor_locator(NullLocator())  # time): the points carry their dt
    figures.place_labels(a2, labels, unit="ms")  # an error-controlled engine's points coincide: one label
    return figures.png(fig)
