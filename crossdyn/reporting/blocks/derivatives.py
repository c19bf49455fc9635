"""Section "Derivatives" of a report (``compare ARM --derivatives``, every arm kind): each engine's worst ratio
|got − reference| / tolerance per block (:mod:`crossdyn.comparison.groups.derivatives`); nothing without the
option."""
from __future__ import annotations

from crossdyn.reporting.blocks.text import fmt

NOT_OFFERED = "not offered"
SENSITIVITY_CAPTION = ("gradients through time: the reference's rollout sensitivities ∂q(t)/∂c (a torque offset on "
                       "every joint) and ∂q(t)/∂m (a link's mass), and each engine's relative difference from them")
"""The caption of ``sensitivity.png`` (:mod:`crossdyn.reporting.plots.sensitivity`) in either report."""


def derivatives_cell(engine: dict) -> str:
    """``PASS 5400 (0.72 of tol.)``: the group's verdict, its checks and its worst ratio; ``not offered`` for an
    engine without the group."""
    d = engine.get("derivatives")
    if not isinstance(d, dict) or "verdict" not in d:
        return NOT_OFFERED
    ratio = d.get("worst_ratio")
    shown = "NaN" if ratio is None else f"{ratio:.2g}"
    return f"{d['verdict']} {d.get('checks', 0)} ({shown} of tol.)"


def derivatives_blocks(summary: dict) -> list[tuple]:
    """The section: how the derivatives were judged, then one row per engine that offers them with its worst ratio
    per block (a ratio ≤ 1 is within the tolerance; NaN: a non-finite derivative), and the engines that do not."""
    info = summary.get("derivatives")
    if not isinstance(info, dict):
        return []
    engines = summary.get("engines", {})
    offered = {n: e["derivatives"] for n, e in engines.items() if isinstance(e.get("derivatives"), dict)}
    keys: list[str] = []
    for d in offered.values():
        keys += [k for k in d.get("blocks", {}) if k not in keys]
    labels = {k: b.get("label", k) for d in offered.values() for k, b in d.get("blocks", {}).items()}
    rows = []
    for name, d in offered.items():
        blocks = d.get("blocks", {})
        rows.append([name, f"{d.get('verdict')} ({d.get('checks', 0)} checks)"]
                    + [_ratio(blocks[k]) if k in blocks else "–" for k in keys])
    b: list[tuple] = [("h", 2, "Derivatives"),
                      ("p", f"Each engine's own derivatives against crossdyn's complex-step reference at "
                            f"{info.get('states')} of the static states; the worst |got − reference| / tolerance per "
                            "block (≤ 1 passes; NaN: a non-finite entry, a FAIL). " + str(info.get("method", "")))]
    if rows:
        b.append(("table", ["engine", "verdict"] + [labels[k] for k in keys], rows))
    rest = [n for n in engines if n not in offered]
    if rest:
        from crossdyn.comparison.groups.derivatives import not_offered_because

        why = {n: not_offered_because(n) for n in rest}
        b.append(("p", f"Not offered: {', '.join(n if why[n] is None else f'{n} ({why[n]})' for n in rest)}."))
    for name, d in offered.items():
        for key in ("failed_because", "inconclusive_because"):
            if d.get(key):
                b.append(("p", f"{name}: {d[key]}"))
    return b + rollout_blocks(offered)


def rollout_blocks(offered: dict[str, dict]) -> list[tuple]:
    """"Gradients through time": per engine and direction, how long its rollout sensitivity keeps three correct
    digits against the reference, its largest relative difference and the reference's size at the end (reported,
    not judged: :mod:`crossdyn.derivatives.rollout`)."""
    rows, scenario, trusted = [], "", 1e-3
    for name, d in offered.items():
        entry = d.get("rollout")
        if not isinstance(entry, dict):
            continue
        scenario, trusted = entry.get("scenario", scenario), entry.get("trusted_relative", trusted)
        for key, v in entry.items():
            if isinstance(v, dict) and "relative" in v:
                worst = v.get("max_relative")
                rows.append([name, "torque offset" if key == "torque_offset" else key,
                             f"{v['agrees_until_s']:g} of {entry['horizon_s']:g}",
                             "NaN" if worst is None else fmt(float(worst)), fmt(float(v["final_norm"]))])
    if not rows:
        return []
    return [("h", 3, "Gradients through time"),
            ("p", f"Rollout sensitivities ({scenario}) by each engine's own derivatives chained through its steps, "
                  "against crossdyn's reference (the complex step through its replica of the engine's scheme); "
                  "reported, not judged. \"agrees until\": the time up to which the relative difference stays "
                  f"within {trusted:g}."),
            ("table", ["engine", "direction", "agrees until [s]", "largest relative difference", "‖∂q(T)/∂·‖ (reference)"],
             rows)]


def _ratio(block: dict) -> str:
    r = block.get("max_ratio")
    return "NaN" if r is None else fmt(float(r))
