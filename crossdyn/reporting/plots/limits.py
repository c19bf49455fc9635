"""Joint limits: each limited joint's angle with the band between its limits, and the limit torque per run."""
from __future__ import annotations

import numpy as np

from crossdyn.reporting import figures
from crossdyn.reporting.figures import legend_outside


def limit_plots(cmp) -> dict[str, bytes]:
    """Arms with a limit law: ``limit_angles.png`` (each limited joint's angle, reference, applied and native
    runs, the band between the limits shaded) and ``limit_torque.png`` (τ_lim per engine: the law's torque for
    the reference and applied runs, inferred by inverse dynamics for native runs).  Nothing otherwise."""
    if not cmp.spec.has_limit_law:
        return {}
    import matplotlib.pyplot as plt

    from crossdyn.analytic.laws.limit import LimitLaw
    from crossdyn.native.limits import episodes as lc

    spec = cmp.spec
    law = LimitLaw.of(spec)
    assert law is not None, "an arm with a limit law has a LimitLaw"
    joints = [j for j in range(spec.n) if np.isfinite(law.upper[j]) or np.isfinite(law.lower[j])]
    trajs = [("reference", cmp.reference, False)]
    trajs += [(k, r.driven, False) for k, r in cmp.runs.items() if r.driven is not None]
    trajs += [(k, t, True) for k, t in getattr(cmp, "native_limit_runs", {}).items()]
    out = {}
    for fname, ylabel in (("limit_angles.png", "q{} [rad]"), ("limit_torque.png", "τ_lim{} [N m]")):
        fig, axes = plt.subplots(len(joints), 1, figsize=(9, 2.2 * len(joints) + 0.6), sharex=True, squeeze=False)
        for ax, j in zip(axes[:, 0], joints, strict=True):
            if fname == "limit_angles.png":
                ax.axhspan(law.lower[j], law.upper[j], color="tab:green", alpha=0.12, label="within the limits")
            for i, (name, tr, native) in enumerate(trajs):
                y = tr.q[:, j] if fname == "limit_angles.png" else \
                    (lc.inferred_torque(spec, tr) if native else lc.law_torque(law, tr.q, tr.qd))[:, j]
                style = dict(color="k", lw=3, alpha=0.3) if name == "reference" else \
                    dict(color=figures.PALETTE[i % len(figures.PALETTE)], lw=1.2, ls="--" if native else "-")
                ax.plot(tr.t[: len(y)], y, label=name, **style)
            ax.set_ylabel(ylabel.format(j + 1))
        axes[-1, 0].set_xlabel("t [s]")
        legend_outside(axes[0, 0])
        axes[0, 0].set_title(f"{spec.name}: " + ("joint angles and limits" if fname == "limit_angles.png"
                                                 else "limit torque per engine"))
        out[fname] = figures.png(fig)
    return out
