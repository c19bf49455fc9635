"""``sensitivity.png`` (``compare ARM --derivatives``, every arm kind): gradients through time — each engine's
rollout sensitivities ∂q(t)/∂c (a torque offset c on every joint) and ∂q(t)/∂m_b (a link's mass) against crossdyn's
reference over the horizon (:mod:`crossdyn.derivatives.rollout`): left, the reference's ‖∂q(t)/∂·‖ (how fast the
gradients grow); right, each engine's relative difference from it, with the line below which a gradient keeps
three correct digits.

Reads a comparison's ``runs`` (name → run with ``metrics``) by attribute only, as the other figures do."""
from __future__ import annotations

import numpy as np

from crossdyn.reporting import figures
from crossdyn.reporting.figures import legend_outside

FLOOR = 1e-17
"""A relative difference of exactly 0 is drawn here on the log scale."""


def rollouts(result) -> dict[str, dict]:
    """Engine name → its ``derivatives`` group's ``rollout`` entry (those that have one)."""
    out = {}
    for name, run in result.runs.items():
        group = getattr(run, "metrics", {}).get("derivatives")
        entry = None if group is None else group.values.get("rollout")
        if isinstance(entry, dict):
            out[name] = entry
    return out


def _directions(entry: dict) -> list[str]:
    return [k for k, v in entry.items() if isinstance(v, dict) and "relative" in v]


def sensitivity_plot(result) -> bytes | None:
    """The figure (module docstring), or None when no engine has a rollout entry."""
    import matplotlib.pyplot as plt

    entries = rollouts(result)
    if not entries:
        return None
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(12, 4.2))
    styles = ("-", "--", ":", "-.")
    drawn_ref: set[str] = set()
    for e, (name, entry) in enumerate(entries.items()):
        t = np.asarray(entry["t_s"])
        for d, key in enumerate(_directions(entry)):
            v = entry[key]
            unit = "rad/(N m)" if key == "torque_offset" else "rad/kg"
            label = f"∂q/∂c [{unit}]" if key == "torque_offset" else f"∂q/∂m, {key} [{unit}]"
            ref_label = f"{label}, {entry['method']}"
            if ref_label not in drawn_ref:
                drawn_ref.add(ref_label)
                a1.semilogy(t[1:], np.maximum(np.asarray(v["reference_norm"][1:], float), FLOOR), styles[d % 4],
                            label=ref_label)
            rel = np.array([np.nan if x is None else x for x in v["relative"]], dtype=float)
            a2.semilogy(t[1:], np.maximum(rel[1:], FLOOR), styles[d % 4], color=f"C{e}",
                        label=f"{name}: {'torque offset' if key == 'torque_offset' else key}")
    trusted = next(iter(entries.values()))["trusted_relative"]
    a2.axhline(trusted, color="grey", lw=0.8)
    a2.set_ylim(top=max(a2.get_ylim()[1], 3e3 * trusted))  # the line, its label, and no tick under the title
    a2.annotate(f"{trusted:g}: three correct digits", (0.99, trusted), xycoords=("axes fraction", "data"),
                fontsize=7, color="grey", va="bottom", ha="right")
    a1.set(xlabel="t [s]", ylabel="‖∂q(t)/∂·‖ (reference)", title="gradients through time: their size")
    a2.set(xlabel="t [s]", ylabel="‖s_engine − s_ref‖ / ‖s_ref‖",
           title="each engine's gradients against the reference")
    a1.legend(fontsize=7, loc="lower right")
    legend_outside(a2)
    return figures.png(fig)
