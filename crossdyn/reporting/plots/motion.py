"""The driven and free motion: joint angles (with the controller's desired motion), tracking error, error against
the reference, and the energy in free motion."""
from __future__ import annotations

import numpy as np

from crossdyn.reporting import figures
from crossdyn.reporting.figures import EngineLooks, desired_motion, legend_outside


def angles_plot(cmp, runs: dict, looks: EngineLooks, desired: np.ndarray | None) -> bytes:
    """``angles.png``: per joint q_j(t) of the reference (thick, grey), the desired motion q_d (dashed, closed
    loop only) and every engine's driven run."""
    import matplotlib.pyplot as plt

    spec, ref = cmp.spec, cmp.reference
    n = spec.n
    fig, axes = plt.subplots(n, 1, figsize=(9, 2.2 * n + 0.6), sharex=True, squeeze=False)
    for j in range(n):
        ax = axes[j, 0]
        ax.plot(ref.t, ref.q[:, j], "k-", lw=3, alpha=0.3, label="reference (analytic, DOP853)")
        if desired is not None:
            ax.plot(ref.t, desired[:, j], color="0.2", ls=(0, (2, 2)), lw=1.5, label="desired q_d (controller)")
        for name, r in runs.items():
            ax.plot(r.driven.t, r.driven.q[:, j], **looks.kw(name, len(r.driven.t)))
        ax.set_ylabel(f"q{j + 1} [rad]")
    axes[-1, 0].set_xlabel("t [s]")
    legend_outside(axes[0, 0])
    axes[0, 0].set_title(f"{spec.name}: joint angles under {cmp.profile.name}")
    return figures.png(fig)


def tracking_plot(cmp, runs: dict, looks: EngineLooks) -> bytes:
    """``tracking.png`` (closed-loop profiles): max_i |q_i − q_d,i| of each engine's arm against time."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 3.6))
    for name, r in runs.items():
        d = desired_motion(cmp, r.driven.t)
        e = np.max(np.abs(r.driven.q - d), axis=1)
        ax.semilogy(r.driven.t, np.maximum(e, 1e-17), **looks.kw(name, len(e)))
    ax.set(xlabel="t [s]", ylabel="max_i |q_i − q_d,i| [rad]",
           title="tracking error: each engine's arm against the controller's desired motion")
    legend_outside(ax)
    return figures.png(fig)


def error_plot(cmp, runs: dict, looks: EngineLooks) -> bytes:
    """``error.png``: max_i |q_i − q_ref,i| against time on a log scale (exact zeros drawn at 1e-17), with the
    divergence threshold when a run diverged."""
    import matplotlib.pyplot as plt

    ref = cmp.reference
    fig, ax = plt.subplots(figsize=(9, 3.6))
    floored = False
    for name, r in runs.items():
        k = min(len(r.driven.q), len(ref.q))
        e = np.max(np.abs(r.driven.q[:k] - ref.q[:k]), axis=1)
        floored |= bool(np.any(e < 1e-17))
        ax.semilogy(r.driven.t[:k], np.maximum(e, 1e-17), **looks.kw(name, k))
    if any(r.driven.status == "diverged" for r in runs.values()):
        ax.axhline(cmp.options.tolerances.divergence_rad, color="r", ls=":", lw=1,
                   label=f"divergence threshold {cmp.options.tolerances.divergence_rad:g} rad "
                         "(a run whose error passes it counts as diverged)")
    ax.set(xlabel="t [s]", ylabel="max_i |q_i − q_ref,i| [rad]", title="trajectory error against the reference"
           + (" (errors of exactly 0 drawn at 1e-17)" if floored else ""))
    legend_outside(ax)
    return figures.png(fig)


def energy_plot(cmp, looks: EngineLooks) -> bytes | None:
    """``energy.png``: E(t) − E(0) of every engine's free-motion run; None when no engine ran it.  On an arm
    that does not conserve energy (damping, friction, a limit law, contact) the title says the drift is not
    judged: the curve is the physics, not an error."""
    import matplotlib.pyplot as plt

    if all(r.free_energy is None for r in cmp.runs.values()):
        return None
    spec = cmp.spec
    dissipative = spec.has_damping or spec.has_friction or spec.has_limit_law or spec.has_contact
    fig, ax = plt.subplots(figsize=(9, 3.6))
    for name, r in cmp.runs.items():
        if r.free_energy is not None:
            t = r.free.t[: len(r.free_energy)]
            ax.plot(t, r.free_energy - r.free_energy[0], **looks.kw(name, len(t), looks.same_free))
    ax.set(xlabel="t [s]", ylabel="E(t) − E(0) [J]",
           title=f"energy in free motion (scale {cmp.spec.energy_scale():.4g} J)"
           + ("; not judged: the arm does not conserve energy" if dissipative else ""))
    legend_outside(ax)
    return figures.png(fig)
