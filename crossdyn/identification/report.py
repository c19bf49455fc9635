"""identify.json, identify.md, identify.html (self-contained: plots embedded as base64 PNG).

The report (:func:`report_blocks`, rendered by :mod:`crossdyn.pages`, the layout every crossdyn report shares):
the verdict and what it rests on, a summary table (one row per base-parameter group: its true values inside their
family-wise intervals; one per joint's validation: its relative RMS torque error within the tolerance), the plots
(fit.png, rls.png), then the details collapsed: every parameter, the validation, the engines' own identification,
the run."""
from __future__ import annotations

import io
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from crossdyn import pages
from crossdyn.io import write_bytes_atomic, write_json_atomic, write_text_atomic
from crossdyn.pages import folded


def to_dict(res, diagnosis=None) -> dict:
    """``identify.json``: :meth:`~crossdyn.identification.result.IdentificationResult.to_summary`."""
    return res.to_summary(diagnosis)


@dataclass(frozen=True)
class TableLayout:
    """How :func:`table_lines` lays the parameter table out for an arm kind: the symbol column's width (None: the
    longest symbol, at least 9), whether the parameter's formula comes last (the spatial names are long) or second
    (38 wide), the true-value column's width, the intervals' significant digits and the 95 % column's width (the
    family-wise one is 2 wider)."""

    symbol_width: int | None
    name_last: bool
    true_width: int
    interval_digits: int
    interval_width: int


TABLES = {"planar": TableLayout(7, False, 11, 5, 25), "spatial": TableLayout(None, True, 12, 6, 27)}
"""The parameter table's layout per arm kind (:attr:`IdentificationResult.kind`)."""


def interval_cell(p: dict, key: str, digits: int) -> str:
    """A parameter's interval (``key``: ``"ci95"`` or ``"ci_familywise"``) as the verdict judges it: with true
    values the judged interval (``key + "_judged"``: widened to the allowance where the statistical one is
    narrower, then marked ``*``, :data:`ALLOWANCE_FOOTNOTE`), without them the statistical one."""
    judged = p.get(key + "_judged")
    lo, hi = p[key] if judged is None else judged
    mark = "*" if judged is not None and p["widened_by_allowance"][key] else ""
    return f"[{lo:.{digits}g}, {hi:.{digits}g}]{mark}"


def error_cell(p: dict, none: str = "-") -> str:
    """A parameter's relative error; ``n/a (true 0)`` where the true value is 0 (no relative error against 0: its
    absolute error is |estimate|, judged against its interval and allowance)."""
    if p["relative_error"] is None:
        return none
    return "n/a (true 0)" if p.get("true_zero") else f"{p['relative_error']:.1e}"


ALLOWANCE_FOOTNOTE = ("*: widened to estimate ± allowance, as judged (the statistical interval is narrower; "
                      "identify.json keeps both): allowance = {floor:g}·max(|true|, scale), {lo:.2g} to {hi:.2g} here: crossdyn's "
                      "noise-free recovery tolerance (round-off, the engines' integration error); scale: the "
                      "parameter value that changes the torque data by 1 % of its RMS")
"""The parameter tables' note under a ``*`` (:func:`allowance_notes`)."""
TRUE_ZERO_NOTE = "n/a (true 0): no relative error against a true value of 0; its absolute error is |estimate|"
"""The parameter tables' note under ``n/a (true 0)`` (:func:`allowance_notes`)."""


def allowance_notes(res) -> list[str]:
    """The notes under a parameter table: :data:`ALLOWANCE_FOOTNOTE` where an interval is widened to its allowance,
    :data:`TRUE_ZERO_NOTE` where a true value is 0 (none without true values)."""
    if res.truth is None:
        return []
    from crossdyn.identification.common import RELATIVE_FLOOR

    out = []
    if np.any(res.widened() | res.widened(True)):
        a = res.allowances()
        out.append(ALLOWANCE_FOOTNOTE.format(floor=RELATIVE_FLOOR, lo=float(np.min(a)), hi=float(np.max(a))))
    if np.any(res.true_zero()):
        out.append(TRUE_ZERO_NOTE)
    return out


def table_lines(res) -> list[str]:
    """The parameter table of either kind (:data:`TABLES`): symbol, true value (or -), estimate, standard error,
    95 % and family-wise intervals as judged (:func:`interval_cell`), relative error (:func:`error_cell`), the
    parameter's formula; a flag where the true value lies outside the 95 % or the family-wise interval; then the
    notes on the allowance and true zeros (:func:`allowance_notes`)."""
    lay = TABLES[res.kind]
    fw = f"{100 * (1 - 0.05 / res.base.r):.2f} % (family-wise)"
    sw = lay.symbol_width or max(9, *(len(s) for s in res.base.symbols))
    iw, d = lay.interval_width, lay.interval_digits

    def line(symbol: str, name: str, cells: list[str], flag: str = "") -> str:
        first = f"{symbol:{sw}}" if lay.name_last else f"{symbol:{sw}} {name:38}"
        return " ".join([first, *cells]) + (f"  {name}" if lay.name_last else "") + flag

    lines = [line("symbol", "parameter", [f"{'true':>{lay.true_width}}", f"{'estimate':>12}", f"{'stderr':>9}",
                                          f"{'95 % interval':>{iw + 1}}", f"{fw:>{iw + 3}}", f"{'rel. err':>12}"])]
    for p in res.parameters():
        t = "-" if p["true"] is None else f"{p['true']:.6g}"
        flag = ("" if p["inside_interval"] in (None, True) else
                "  outside 95 %" if p["inside_familywise_interval"] else "  OUTSIDE family-wise")
        ci, cf = interval_cell(p, "ci95", d), interval_cell(p, "ci_familywise", d)
        ci, cf = (c if c.endswith("*") else c + " " for c in (ci, cf))
        lines.append(line(p["symbol"], p["name"], [f"{t:>{lay.true_width}}", f"{p['estimate']:>12.6g}",
                                                   f"{p['stderr']:>9.2e}", f"{ci:>{iw + 1}}", f"{cf:>{iw + 3}}",
                                                   f"{error_cell(p):>12}"], flag))
    return lines + allowance_notes(res)


def console_lines(res, diagnosis=None) -> list[str]:
    """What ``crossdyn identify`` prints above its verdict line (and, for a spatial arm, ``identify.md``): the run,
    the parameter table (:func:`table_lines`), the validation; the planar kind adds the excitation's condition
    numbers and the engines' own identification, the spatial kind the base reduction and the solvers."""
    validation = ("validation (relative RMS torque error per joint): "
                  + ", ".join(f"{v:.2e}" for v in res.validation_rms) + f"  (tolerance {res.validation_tolerance:g})")
    table = ["  " + s for s in table_lines(res)]
    if res.kind == "spatial":
        b, m = res.base, res.spec
        unid = list(b.unidentifiable)
        return [f"{m.name} ({m.n} joints, spatial): {res.data.source}, rows {res.rows.model}, estimator "
                f"{res.est.method}, {len(res.rows.y)} equations, {b.r} base parameters of {b.full.p} "
                f"(numeric QR, gap {b.gap:.2g})",
                f"unidentifiable (no torque sees them): {', '.join(unid) if unid else 'none'}",
                *table, validation, *solver_lines(res.est)]
    lines = [f"{res.spec.name} ({res.spec.n}R): {res.data.source}, rows {res.rows.model}, estimator {res.estimator}, "
             f"{len(res.rows.y)} equations, {res.base.r} base parameters"]
    if res.excitation is not None:
        ex = res.excitation
        lines.append(f"excitation: cond(Y_base) {ex.cond:.3g} optimised vs {ex.cond_random:.3g} random "
                     f"(same bounds): {ex.ratio:.2f}x lower")
    lines += table + [validation]
    if diagnosis is not None:
        lines += ["  " + d.summary() for d in diagnosis[1]]
    return lines


def _png(fig) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90)
    import matplotlib.pyplot as plt

    plt.close(fig)
    return buf.getvalue()


SERIES_COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
                  "#bcbd22", "#17becf", "#000000", "#000080")
"""Twelve distinct colours for the RLS plot's parameters (matplotlib's ten, black, navy); from the
13th on the colours repeat with a dashed line."""


def fit_figure(res):
    """``fit.png``: per joint the measured torque and the fit against the sample index, and the residual (the
    energy model: per hold interval)."""
    import matplotlib.pyplot as plt

    rows = res.rows
    pred = rows.W @ res.est.beta
    if rows.model == "energy":
        fig, ax = plt.subplots(2, 1, figsize=(8, 5), sharex=True)
        ax[0].plot(rows.y, lw=0.8, label="measured τ·Δq")
        ax[0].plot(pred, lw=0.8, ls="--", label="fit")
        ax[0].set_ylabel("τ·Δq per step [J]")
        ax[0].legend()
        ax[1].plot(rows.y - pred, lw=0.8)
        ax[1].set_ylabel("residual [J]")
        ax[1].set_xlabel("hold interval")
    else:
        n = res.spec.n
        fig, ax = plt.subplots(n, 2, figsize=(10, 2.2 * n + 0.4), squeeze=False, sharex=True)
        for j in range(n):
            sel = rows.joint == j
            ax[j, 0].plot(rows.y[sel], lw=0.8, label="measured")
            ax[j, 0].plot(pred[sel], lw=0.8, ls="--", label="fit")
            ax[j, 0].set_ylabel(f"τ{j + 1} [N m]")
            ax[j, 1].plot(rows.y[sel] - pred[sel], lw=0.8)
            ax[j, 1].set_ylabel(f"residual τ{j + 1} [N m]")
        for a in ax[-1]:
            a.set_xlabel("sample (regression row of the joint)")
        ax[0, 0].legend(fontsize=8)
    fig.suptitle("torque fit and residual (identification data)")
    fig.tight_layout()
    return fig


def rls_figure(res):
    """``rls.png``: each base parameter's recursive-least-squares estimate over the batch estimate against the
    rows processed, one colour per parameter (:data:`SERIES_COLOURS`), the legend beside the axes."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 4))
    tr = res.rls_trace
    ref = np.where(np.abs(res.est.beta) > 0, np.abs(res.est.beta), 1.0)
    k_colours = len(SERIES_COLOURS)
    for k in range(res.base.r):
        ax.plot(np.arange(len(tr)) * res.info["rls_every_rows"], tr[:, k] / ref[k], lw=0.9,
                color=SERIES_COLOURS[k % k_colours], ls="-" if k < k_colours else "--", label=res.base.symbols[k])
    ax.set_ylim(-1, 3)
    ax.set_xlabel("rows processed")
    ax.set_ylabel("RLS estimate / batch estimate")
    ax.set_title(f"recursive least squares, forgetting factor {res.rls_forgetting:g}")
    ax.legend(fontsize=7, ncol=1 + res.base.r // 13, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    fig.tight_layout()
    return fig


def plots(res) -> dict[str, bytes]:
    """``fit.png`` (:func:`fit_figure`) and, where the run has a recursive-least-squares trace (a planar arm),
    ``rls.png`` (:func:`rls_figure`), as PNG bytes."""
    import matplotlib

    matplotlib.use("Agg")
    out = {"fit.png": _png(fit_figure(res))}
    if res.rls_trace is not None:
        out["rls.png"] = _png(rls_figure(res))
    return out


GROUPS = (("ZZ", "inertia about the joint axis"), ("MX", "first moment along the link"),
          ("MY", "first moment across the link"), ("Ia", "rotor armature"), ("b", "viscous friction"),
          ("fc", "Coulomb friction"))
"""The base parameters' groups in the summary, by the letters their symbols start with (``ZZ1R``, ``b2``, …);
a symbol of no group is a group of its own letters."""


def parameter_groups(res) -> list[tuple[str, list[dict]]]:
    """(group name, its parameters) in :data:`GROUPS` order, then any other group in the order met."""
    import re

    names = dict(GROUPS)
    found: dict[str, list[dict]] = {}
    for p in res.parameters():
        key = re.sub(r"\d.*$|R$", "", p["symbol"]) or p["symbol"]
        found.setdefault(key, []).append(p)
    order = [k for k, _ in GROUPS if k in found] + [k for k in found if k not in names]
    return [(names.get(k, k), found[k]) for k in order]


def group_row(name: str, params: list[dict]) -> list[str]:
    """A summary row of one parameter group: PASS when every true value lies inside its family-wise interval,
    FAIL when one does not, INCONCLUSIVE without true values (CSV data); its largest relative error, and its
    largest absolute error over the parameters whose true value is 0 (no relative error against 0)."""
    symbols = ", ".join(p["symbol"] for p in params)
    if params[0]["true"] is None:
        return [name, "INCONCLUSIVE (0 checks), no true values to compare (estimates only)", symbols]
    out = [p["symbol"] for p in params if not p["inside_familywise_interval"]]
    rel = [p["relative_error"] for p in params if not p["true_zero"]]
    zero = [p["absolute_error"] for p in params if p["true_zero"]]
    errors = ([f"max relative error {max(rel):.2g}"] if rel else []) + \
        ([f"true value{'s' if len(zero) > 1 else ''} 0: max absolute error {max(zero):.2g}"] if zero else [])
    cell = f"{'FAIL' if out else 'PASS'} ({len(params)} checks), {'; '.join(errors)}"
    return [name, cell, symbols + (f"; outside the family-wise interval: {', '.join(out)}" if out else "")]


def summary_rows(res) -> list[list[str]]:
    """One row per parameter group (:func:`group_row`), then one per joint's validation: PASS when its relative
    RMS torque prediction error is within the tolerance, with its torque values compared."""
    rows = [group_row(name, params) for name, params in parameter_groups(res)]
    n = len(res.validation_rms)
    per_joint = int(res.validation.get("torque_values", 0)) // max(n, 1)
    for j, v in enumerate(res.validation_rms):
        word = "PASS" if v <= res.validation_tolerance else "FAIL"
        rows.append([f"validation, joint {j + 1}", f"{word} ({per_joint} checks), relative RMS error {v:.2g}",
                     f"torque predicted on new data; tolerance {res.validation_tolerance:g}"])
    return rows


def parameter_rows(res) -> list[list[str]]:
    """The parameter table: symbol, parameter, true value (– without), estimate, standard error, 95 % and
    family-wise intervals as judged (:func:`interval_cell`), the allowance, relative error (:func:`error_cell`),
    and whether the true value lies inside (PASS/FAIL; – without)."""
    rows = []
    for p in res.parameters():
        inside = ("–" if p["inside_interval"] is None else "PASS" if p["inside_interval"] else
                  "PASS (outside 95 %)" if p["inside_familywise_interval"] else "FAIL")
        rows.append([p["symbol"], p["name"], "–" if p["true"] is None else f"{p['true']:.6g}",
                     f"{p['estimate']:.6g}", f"{p['stderr']:.2e}", interval_cell(p, "ci95", 5),
                     interval_cell(p, "ci_familywise", 5), f"{p['allowance']:.2g}" if "allowance" in p else "–",
                     error_cell(p, "–"), inside])
    return rows


def run_lines(res) -> list[str]:
    """The run: data source, regression rows, estimator, noise, seed, base parameters, excitation."""
    lines = [f"source: {res.data.source}; regression rows: {res.rows.model} ({len(res.rows.y)} rows); estimator: "
             f"{res.estimator}",
             f"noise: {json.dumps(res.noise.as_dict())}; seed {res.seed}",
             f"base parameters: {res.base.r} (closed form; numerical QR rank {res.numerical_rank})"]
    if res.excitation is not None:
        ex = res.excitation
        lines.append(f"excitation: Fourier, {ex.trajectory.harmonics} harmonics, period {ex.trajectory.period:g} s; "
                     f"cond(Y_base) optimised {ex.cond:.3g} vs random {ex.cond_random:.3g} "
                     f"(ratio {ex.ratio:.2f}); bounds: {ex.bounds.source}")
    lines += solver_lines(res.est)
    return lines


def solver_lines(est) -> list[str]:
    """The convex estimator's solvers: each attempt's status, and how the answer kept was certified."""
    if "attempts" not in est.info:
        return []
    tried = "; ".join(f"{a['solver']} {a.get('status')}" for a in est.info["attempts"])
    return [f"solvers: {tried}; kept {est.info.get('solver')} ({est.info.get('status')}): "
            f"{est.info.get('certificate')}"]


def report_blocks(res, diagnosis=None, images=("fit.png", "rls.png")) -> list[tuple]:
    """The identification report as blocks (:mod:`crossdyn.pages`): the verdict with what it rests on, the summary
    table (:func:`summary_rows`), the plots, then collapsed: the parameters, the validation, the engines identified
    from their own data, the run."""
    verdict, reason = res.judgement()
    fw = f"{100 * (1 - 0.05 / res.base.r):.2f} %"
    b: list[tuple] = [("h", 1, f"crossdyn identify: {res.spec.name} — {verdict.value}"),
                      ("p", f"**verdict: {verdict.value} ({res.checks_line()})**: {reason}.")]
    b += [("p", f"Note: {note}") for note in res.info.get("notes", [])]
    b += [("h", 2, "Summary"),
          ("table", ["parameters or check", "result", "which"], summary_rows(res)),
          ("p", "Each row: the verdict, the values compared and the largest error; a parameter passes when its "
                f"true value lies inside its family-wise ({fw}) interval. " + run_lines(res)[0] + "."),
          ("h", 2, "Plots")]
    captions = {"fit.png": "fit.png: measured torque and the fit, and the residual",
                "rls.png": "rls.png: recursive least squares, each base parameter over its batch estimate"}
    b += [("img", name, captions.get(name, name)) for name in images]
    details: list[tuple] = [("h", 2, "Parameters"),
                            ("table", ["symbol", "parameter", "true", "estimate", "stderr", "95 % interval",
                                       f"{fw} (family-wise)", "allowance", "rel. err", "true value inside"],
                             parameter_rows(res)),
                            *[("p", note) for note in allowance_notes(res)],
                            ("h", 2, "Validation"),
                            ("p", f"Relative RMS torque prediction error on {res.validation['source']}:"),
                            ("ul", [f"joint {j + 1}: {v:.3e} (tolerance {res.validation_tolerance:g})"
                                    for j, v in enumerate(res.validation_rms)])]
    if diagnosis is not None:
        details += [("h", 2, "Engines identified from their own data"), ("ul", [d.summary() for d in diagnosis[1]])]
    return b + folded(details + [("h", 2, "Run"), ("ul", run_lines(res))])


def markdown(res, diagnosis=None) -> str:
    """``identify.md``: :func:`report_blocks` as Markdown (images by file name, beside it)."""
    return pages.render_markdown(report_blocks(res, diagnosis))


def write_outputs(res, out: Path, diagnosis=None) -> dict[str, Path]:
    """The one report writer, for every arm kind: identify.json, fit.png (and rls.png where the run has an RLS
    trace: a planar arm), identify.md and identify.html (self-contained, images embedded: the verdict, the summary
    table, the plots, the details collapsed).  A spatial arm's identify.md is its console table and verdict.
    ``"report"``: the file the verdict line names (the HTML)."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    imgs = plots(res)
    paths = {"json": write_json_atomic(out / "identify.json", to_dict(res, diagnosis))}
    for name, data in imgs.items():
        write_bytes_atomic(out / name, data)
    blocks = report_blocks(res, diagnosis, tuple(imgs))
    if res.kind == "spatial":
        verdict, reason = res.judgement()
        text = "\n".join(["```", *console_lines(res), f"verdict: {verdict.value}: {reason}", "```"]) + "\n"
        paths["md"] = write_text_atomic(out / "identify.md", text)
    else:
        paths["md"] = write_text_atomic(out / "identify.md", pages.render_markdown(blocks))
    paths["html"] = write_text_atomic(out / "identify.html", pages.render_html(blocks, imgs))
    return {**paths, "report": paths["html"]}
