"""The robot-file comparison's figure (``compare ROBOT.urdf``, a DH arm): each joint's error against crossdyn's
spatial reference over the driven run, one panel per joint in the joint's own unit (rad for a revolute joint, m
for a prismatic one: :func:`crossdyn.conventions.joint_unit`).

Reads a :class:`crossdyn.robotcompare.compare.RobotComparison` by its attributes only (``model``,
``job.reference``, ``runs``): this package is a peer of :mod:`crossdyn.robotcompare` and does not import it."""
from __future__ import annotations

import numpy as np

from crossdyn.conventions import joint_unit
from crossdyn.reporting import figures
from crossdyn.reporting.figures import EngineLooks, driven_runs, legend_outside

PLOTS = ("trajectory_error.png", "sensitivity.png")
"""Every figure a robot-file report may hold."""

FLOOR = 1e-17
"""An error of exactly 0 is drawn here on the log scale (the title says so)."""


def joint_error_plot(result) -> bytes | None:
    """``trajectory_error.png``: per joint j (a panel each), |q_j − q_ref,j| of every engine's driven run against
    time, log scale, in the joint's unit; None when no engine produced a driven run."""
    import matplotlib.pyplot as plt

    runs = {k: r for k, r in driven_runs(result).items() if len(r.driven.q)}
    if not runs:
        return None
    ref = result.job.reference
    joints = result.model.joints
    n = len(joints)
    rotating = [j.type.rotates for j in joints]
    looks = EngineLooks.of(result, "rad" if all(rotating) else ("m" if not any(rotating) else "rad or m"))
    fig, axes = plt.subplots(n, 1, figsize=(9, 1.7 * n + 0.9), sharex=True, squeeze=False)
    floored = False
    for name, r in runs.items():
        k = min(len(r.driven.q), len(ref.q))
        err = np.abs(r.driven.q[:k] - ref.q[:k])
        floored |= bool(np.any(err < FLOOR))
        for j in range(n):
            axes[j, 0].semilogy(r.driven.t[:k], np.maximum(err[:, j], FLOOR), **looks.kw(name, k))
    for j, joint in enumerate(joints):
        axes[j, 0].set_ylabel(f"{joint.name}\n{joint.type.value} [{joint_unit(rotating[j])}]", fontsize=8)
    axes[-1, 0].set_xlabel("t [s]")
    axes[0, 0].set_title(f"{result.model.name}: |q_j − q_ref,j| per joint, each engine against crossdyn's reference"
                         + (f" (errors of exactly 0 drawn at {FLOOR:g})" if floored else ""), fontsize=9)
    legend_outside(axes[0, 0])
    return figures.png(fig)


def robot_plots(result) -> dict[str, bytes]:
    """The report's figures as file name → bytes (:data:`PLOTS`, those that could be drawn)."""
    import matplotlib

    from crossdyn.reporting.plots.sensitivity import sensitivity_plot

    matplotlib.use("Agg")
    out = {}
    for name, figure in (("trajectory_error.png", joint_error_plot(result)), ("sensitivity.png", sensitivity_plot(result))):
        if figure is not None:
            out[name] = figure
    return out
