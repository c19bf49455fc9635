"""A comparison's files: summary.json, the tidy time series (CSV, Parquet where pyarrow is installed), the plots,
report.md and report.html.

Every file is written atomically (temporary file, then rename).  The HTML report is self-contained: images are
embedded as base64 data URIs.
"""
from __future__ import annotations

import io
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from crossdyn.io import write_bytes_atomic, write_json_atomic, write_text_atomic
from crossdyn.reporting.blocks import report_blocks
from crossdyn.reporting.plots import PLOTS, make_plots
from crossdyn.reporting.render import render_html, render_markdown


def timeseries(cmp) -> Any:
    """One row per engine × run × time (a pandas DataFrame): t, q1…qn, qd1…qdn, tau1…taun, err1…errn (vs
    reference), energy."""
    import pandas as pd  # type: ignore[import-untyped]  # (no pandas-stubs installed)

    n = cmp.spec.n
    frames = []

    def add(engine: str, run: str, traj, energy=None, ref=None):
        if traj is None:
            return
        k = len(traj.t)
        data = {"engine": [engine] * k, "run": [run] * k, "t": traj.t}
        for j in range(n):
            data[f"q{j + 1}"] = traj.q[:, j]
        for j in range(n):
            data[f"qd{j + 1}"] = traj.qd[:, j]
        tau = np.full((k, n), np.nan)
        tau[: len(traj.tau)] = traj.tau
        for j in range(n):
            data[f"tau{j + 1}"] = tau[:, j]
        err = np.full((k, n), np.nan)
        if ref is not None:
            m = min(k, len(ref.q))
            err[:m] = traj.q[:m] - ref.q[:m]
        for j in range(n):
            data[f"err{j + 1}"] = err[:, j]
        data["energy"] = energy if energy is not None else np.full(k, np.nan)
        frames.append(pd.DataFrame(data))

    add("reference", "driven", cmp.reference)
    add("reference", "free", cmp.reference_free)
    for name, run in cmp.runs.items():
        add(name, "driven", run.driven, run.driven_energy, cmp.reference)
        add(name, "free", run.free, run.free_energy, cmp.reference_free)
    return pd.concat(frames, ignore_index=True)


def write_outputs(cmp, out_dir: str | Path, plots: bool = True, animation: bool = True) -> dict[str, Path]:
    """Write summary.json, timeseries.csv/.parquet, plots and both reports into ``out_dir``."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written: dict[str, Path] = {}
    written["summary.json"] = write_json_atomic(out_dir / "summary.json", cmp.summary)
    df = timeseries(cmp)
    written["timeseries.csv"] = write_text_atomic(out_dir / "timeseries.csv", df.to_csv(index=False))
    try:
        buf = io.BytesIO()
        df.to_parquet(buf, index=False)
        written["timeseries.parquet"] = write_bytes_atomic(out_dir / "timeseries.parquet", buf.getvalue())
    except ImportError:  # pyarrow missing: CSV still written
        pass
    with warnings.catch_warnings():  # e.g. "No artists with labels" when every engine failed before plotting
        warnings.filterwarnings("ignore", category=UserWarning, module="matplotlib")
        warnings.filterwarnings("ignore", message="No artists with labels", category=UserWarning)
        images = make_plots(cmp, animation=animation) if plots else {}
    for name, data in images.items():
        written[name] = write_bytes_atomic(out_dir / name, data)
    for name in PLOTS:  # a figure an earlier run left here, of a study this run did not make, would mislead
        if name not in images:
            (out_dir / name).unlink(missing_ok=True)
    blocks = report_blocks(cmp.summary, list(images))
    written["report.md"] = write_text_atomic(out_dir / "report.md", render_markdown(blocks))
    written["report.html"] = write_text_atomic(out_dir / "report.html", render_html(blocks, images))
    return written
