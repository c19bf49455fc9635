"""identify.json, identify.md, identify.html (self-contained: plots embedded as base64 PNG)."""
from __future__ import annotations

import base64
import html
import io
import json
from pathlib import Path

import numpy as np

from crossdyn.io import write_bytes_atomic, write_json_atomic, write_text_atomic


def to_dict(res, diagnosis=None) -> dict:
    """``identify.json``: :meth:`~crossdyn.identification.result.IdentificationResult.to_summary`."""
    return res.to_summary(diagnosis)


def table_lines(res) -> list[str]:
    """The parameter table: true value (or -), estimate, standard error, 95 % and family-wise intervals."""
    fw = f"{100 * (1 - 0.05 / res.base.r):.2f} % (family-wise)"
    head = (f"{'symbol':7} {'parameter':38} {'true':>11} {'estimate':>12} {'stderr':>9} {'95 % interval':>25} "
            f"{fw:>27} {'rel. err':>9}")
    lines = [head]
    for p in res.parameters():
        t = "-" if p["true"] is None else f"{p['true']:.6g}"
        rel = "-" if p["relative_error"] is None else f"{p['relative_error']:.1e}"
        flag = ("" if p["inside_interval"] in (None, True) else
                "  outside 95 %" if p["inside_familywise_interval"] else "  OUTSIDE family-wise")
        ci = f"[{p['ci95'][0]:.5g}, {p['ci95'][1]:.5g}]"
        cf = f"[{p['ci_familywise'][0]:.5g}, {p['ci_familywise'][1]:.5g}]"
        lines.append(f"{p['symbol']:7} {p['name']:38} {t:>11} {p['estimate']:>12.6g} {p['stderr']:>9.2e} {ci:>25} "
                     f"{cf:>27} {rel:>9}{flag}")
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
    """``fit.png`` (:func:`fit_figure`) and ``rls.png`` (:func:`rls_figure`) as PNG bytes."""
    import matplotlib

    matplotlib.use("Agg")
    return {"fit.png": _png(fit_figure(res)), "rls.png": _png(rls_figure(res))}


def markdown(res, diagnosis=None) -> str:
    lines = [f"# crossdyn identify {res.spec.name}", "",
             f"- source: {res.data.source}; regression rows: {res.rows.model}; estimator: {res.estimator}",
             f"- noise: {json.dumps(res.noise.as_dict())}; seed {res.seed}",
             f"- base parameters: {res.base.r} (closed form; numerical QR rank {res.numerical_rank})"]
    if res.excitation is not None:
        ex = res.excitation
        lines.append(f"- excitation: Fourier, {ex.trajectory.harmonics} harmonics, period {ex.trajectory.period:g} s; "
                     f"cond(Y_base) optimised {ex.cond:.3g} vs random {ex.cond_random:.3g} "
                     f"(ratio {ex.ratio:.2f}); bounds: {ex.bounds.source}")
    lines += ["", "## Parameters", "", "```", *table_lines(res), "```", "", "## Validation", "",
              f"relative RMS torque prediction error on {res.validation['source']}:", ""]
    for j, v in enumerate(res.validation_rms):
        lines.append(f"- joint {j + 1}: {v:.3e} (tolerance {res.validation_tolerance:g})")
    if diagnosis is not None:
        lines += ["", "## Engines identified from their own data", ""]
        lines += [f"- {d.summary()}" for d in diagnosis[1]]
    verdict, reason = res.judgement()
    lines += ["", f"verdict: {verdict.value} ({res.checks_line()}): {reason}", ""]
    lines += [f"note: {note}" for note in res.info.get("notes", [])] + ([""] if res.info.get("notes") else [])
    return "\n".join(lines)


def write_outputs(res, out: Path, diagnosis=None) -> dict[str, Path]:
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    imgs = plots(res)
    paths = {"json": write_json_atomic(out / "identify.json", to_dict(res, diagnosis))}
    md = markdown(res, diagnosis)
    for name, data in imgs.items():
        write_bytes_atomic(out / name, data)
    paths["md"] = write_text_atomic(out / "identify.md", md + "\n" + "\n".join(f"![{k}]({k})" for k in imgs) + "\n")
    body = [f"<pre>{html.escape(md)}</pre>"]
    for name, data in imgs.items():
        body.append(f'<figure><img alt="{name}" src="data:image/png;base64,{base64.b64encode(data).decode()}">'
                    f"<figcaption>{name}</figcaption></figure>")
    page = ("<!doctype html><html><head><meta charset='utf-8'><meta name='viewport' content='width=device-width, "
            "initial-scale=1'><title>crossdyn identify</title><style>pre{overflow-x:auto}img{max-width:100%;"
            "height:auto}</style></head><body>"
            + "\n".join(body) + "</body></html>\n")
    paths["html"] = write_text_atomic(out / "identify.html", page)
    return paths
