"""The sweep report: DuckDB queries over the Parquet dataset, plots, ``sweep.md`` and a self-contained ``sweep.html``.

* pass rates and error percentiles per engine × integrator × dt;
* a speed–accuracy plot: for each engine one point per dt, the 90th percentile of the trajectory
  error against the median compute time per simulated second (us_per_step / dt), with the
  Pareto front (points no other point beats on both) marked;
* the trajectory error against each arm parameter (reach, total mass, centre-of-mass and inertia
  fractions, damping, links);
* every comparison that did not pass, FAIL and INCONCLUSIVE apart, with its status and reasons;
* the workers lost and the chunks run again in every run of the sweep (``runs`` of ``sweep.json``).

Verdicts are counted apart: a row is PASS, FAIL or INCONCLUSIVE (``crossdyn.sweep-row/2``; rows of the
former schema's ``pass``/``fail`` read as PASS/FAIL), and the pass rate is PASS / all rows (an inconclusive
comparison is not a pass).  :attr:`SweepReport.verdict` is the sweep's: FAIL if any row failed or any chunk is
missing, else INCONCLUSIVE if any row was, else PASS.

DuckDB reads the chunk files listed in ``DIR/sweep.json`` (all ``results/chunk-*.parquet`` if there is
none) directly: nothing is loaded into pandas but the small aggregated tables.
"""
from __future__ import annotations

import base64
import html
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from crossdyn.status import Verdict
from crossdyn.sweeps.execute import SweepUsageError, results_dir
from crossdyn.sweeps.recovery import lines

PERCENTILES = (0.5, 0.9, 0.99)
ARM_PARAMETERS = (
    ("reach_m", "reach Σ L [m]"),
    ("total_mass_kg", "total mass Σ m [kg]"),
    ("com_fraction_mean", "mean Lc / L"),
    ("inertia_fraction_mean", "mean J / (m L²)"),
    ("damping_max", "max damping b [N m s/rad]"),
    ("dof", "links"),
)


@dataclass
class SweepReport:
    """The report's tables (pandas DataFrames) and the files written."""

    rows: int
    expected: int | None
    missing_chunks: int
    by_engine: Any  # pandas.DataFrame (pandas is imported only when a report is written)
    pareto: Any
    failures: Any
    files: list[Path] = field(default_factory=list)
    counts: dict = field(default_factory=dict)
    """Rows per verdict (``PASS``, ``FAIL``, ``INCONCLUSIVE``) and ``checks``, the checks made in all."""
    recovery: list[str] = field(default_factory=list)
    """Workers lost and chunks re-run over every run of the sweep (:func:`crossdyn.sweeps.recovery.lines`)."""

    @property
    def verdict(self) -> Verdict:
        """FAIL if a row failed or a chunk is missing, else INCONCLUSIVE if a row was, else PASS."""
        if self.missing_chunks or self.counts.get("FAIL"):
            return Verdict.FAIL
        return Verdict.INCONCLUSIVE if self.counts.get("INCONCLUSIVE") else Verdict.PASS


def chunk_files(out) -> tuple[list[Path], int, int | None]:
    """The Parquet files of the sweep in ``out``, how many listed chunks are missing, the expected row count."""
    out = Path(out)
    res = results_dir(out)
    man = out / "sweep.json"
    if man.is_file():
        try:
            data = json.loads(man.read_text(encoding="utf-8"))
            listed = [res / name for name in data["chunks"]]
            expected = int(data["comparisons"])
        except (ValueError, KeyError, TypeError) as e:
            raise SweepUsageError(f"{man}: not a crossdyn sweep manifest ({e})") from None
        present = [p for p in listed if p.is_file()]
        return present, len(listed) - len(present), expected
    return sorted(res.glob("chunk-*.parquet")), 0, None


def connect(files: list[Path]):
    """A DuckDB connection with the sweep's rows as view ``r`` (rows of ``crossdyn.sweep-row/1``, written before
    the check counts, get ``checks`` and ``inconclusive`` as NULL; rows written before NOT_EXERCISED get
    ``not_exercised`` as NULL)."""
    import duckdb

    con = duckdb.connect()
    listing = ", ".join("'" + str(p).replace("'", "''") + "'" for p in files)
    source = f"read_parquet([{listing}], union_by_name = true)"
    have = {row[0] for row in con.execute(f"DESCRIBE SELECT * FROM {source}").fetchall()}
    extra = "".join(f", NULL::{t} AS {c}" for c, t in (("checks", "BIGINT"), ("inconclusive", "VARCHAR"),
                                                         ("not_exercised", "VARCHAR"))
                    if c not in have)
    con.execute(f"CREATE VIEW r AS SELECT *{extra} FROM {source}")
    return con


def _q(p: float) -> str:
    return f"p{round(p * 100)}"


VERDICT = "upper(verdict)"
"""A row's verdict word (rows of ``crossdyn.sweep-row/1`` said ``pass``/``fail``)."""

COUNTS_SQL = f"""
SELECT count(*) FILTER (WHERE {VERDICT} = 'PASS'), count(*) FILTER (WHERE {VERDICT} = 'FAIL'),
       count(*) FILTER (WHERE {VERDICT} = 'INCONCLUSIVE'), coalesce(sum(checks), 0)::BIGINT FROM r
"""

BY_ENGINE_SQL = f"""
SELECT engine, coalesce(integrator, '-') AS integrator, dt,
       count(*) AS comparisons,
       count(*) FILTER (WHERE {VERDICT} = 'PASS') AS passed,
       count(*) FILTER (WHERE {VERDICT} = 'FAIL') AS failed,
       count(*) FILTER (WHERE {VERDICT} = 'INCONCLUSIVE') AS inconclusive,
       count(*) FILTER (WHERE status <> 'ok') AS not_ok,
       count(*) FILTER (WHERE {VERDICT} = 'PASS') / count(*) AS pass_rate,
       coalesce(sum(checks), 0)::BIGINT AS checks,
       {{traj}},
       max(trajectory_max_abs_error_rad) AS traj_max,
       quantile_cont(inverse_dynamics_max_abs_error_nm, 0.99) AS id_p99,
       quantile_cont(energy_max_rel_drift, 0.9) AS drift_p90,
       median(us_per_step) AS us_per_step_median,
       median(compute_s_per_sim_s) AS compute_s_per_sim_s_median
FROM r GROUP BY ALL ORDER BY engine, integrator, dt DESC
"""

FAILURES_SQL = f"""
SELECT arm, engine, dt, profile, status,
       CASE WHEN {VERDICT} = 'PASS' THEN 'NOT EXERCISED' ELSE {VERDICT} END AS verdict,
       CASE WHEN {VERDICT} = 'INCONCLUSIVE' THEN inconclusive WHEN status <> 'ok' THEN reason
            WHEN {VERDICT} = 'PASS' THEN not_exercised ELSE failures END AS why
FROM r WHERE {VERDICT} <> 'PASS' OR coalesce(not_exercised, '') <> ''
ORDER BY {VERDICT} = 'PASS', {VERDICT} DESC, arm, engine, dt DESC, profile
"""
"""The rows that did not pass (FAIL, INCONCLUSIVE), then the PASS rows with a phenomenon NOT EXERCISED (verdict
``NOT EXERCISED``: 0 checks of it, the row's verdict the rest's; ``why`` its ``not_exercised`` lines)."""


def sweep_verdict(out) -> tuple[Verdict, dict]:
    """The sweep's verdict in ``out`` without writing the report (as :attr:`SweepReport.verdict`) and its tally."""
    files, missing, expected = chunk_files(out)
    tally = counts(connect(files)) if files else {"PASS": 0, "FAIL": 0, "INCONCLUSIVE": 0, "checks": 0}
    rows = sum(v for k, v in tally.items() if k != "checks")
    return SweepReport(rows, expected, missing, None, None, None, counts=tally).verdict, tally


def counts(con) -> dict:
    """Rows per verdict and the checks made in all."""
    p, f, i, c = con.execute(COUNTS_SQL).fetchone()
    return {"PASS": int(p), "FAIL": int(f), "INCONCLUSIVE": int(i), "checks": int(c)}


def query(con):
    """(by engine × integrator × dt, Pareto points, failures) as DataFrames."""
    traj = ", ".join(f"quantile_cont(trajectory_max_abs_error_rad, {p}) AS traj_{_q(p)}" for p in PERCENTILES)
    by_engine = con.execute(BY_ENGINE_SQL.format(traj=traj)).df()
    pareto = by_engine[["engine", "dt", "traj_p90", "compute_s_per_sim_s_median"]].dropna().copy()
    pts = list(zip(pareto["compute_s_per_sim_s_median"], pareto["traj_p90"], strict=False))
    pareto["pareto"] = [not any((c2 <= c and e2 <= e) and (c2 < c or e2 < e) for c2, e2 in pts) for c, e in pts]
    failures = con.execute(FAILURES_SQL).df()
    return by_engine, pareto, failures


def _fmt(v) -> str:
    import math

    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    if isinstance(v, float):
        return f"{v:.3g}" if abs(v) >= 1e-3 or v == 0 else f"{v:.2e}"
    return str(v)


def _md_table(df, columns, headers=None) -> list[str]:
    headers = headers or columns
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    for rec in df[columns].itertuples(index=False):
        lines.append("| " + " | ".join(_fmt(v).replace("|", "\\|") for v in rec) + " |")
    return lines


def _plots(con, pareto, out: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    files = []
    from crossdyn.reporting.figures import place_labels

    fig, ax = plt.subplots(figsize=(7, 4.5))
    labels = []
    for engine, sub in pareto.groupby("engine", sort=True):
        sub = sub.sort_values("compute_s_per_sim_s_median")
        (line,) = ax.plot(sub["compute_s_per_sim_s_median"], sub["traj_p90"], "o-", label=engine)
        by_dt = sub.sort_values("dt", ascending=False)
        labels.append((list(zip(by_dt["compute_s_per_sim_s_median"], by_dt["traj_p90"], strict=True)),
                       [f"{dt:g}" for dt in by_dt["dt"]], line.get_color(), engine))
    front = pareto[pareto["pareto"]].sort_values("compute_s_per_sim_s_median")
    if len(front):
        ax.plot(front["compute_s_per_sim_s_median"], front["traj_p90"], "k--", lw=1, label="Pareto front")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("compute time per simulated second [s] (median over arms)")
    ax.set_ylabel("trajectory error, 90th percentile [rad]")
    ax.set_title("speed–accuracy per engine (labels: dt in s)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    place_labels(ax, labels)  # after the layout: coinciding dts share a label, none covers another
    files.append(out / "sweep_pareto.png")
    fig.savefig(files[-1], dpi=110)
    plt.close(fig)

    data = con.execute("SELECT engine, dt, trajectory_max_abs_error_rad AS err, "
                       + ", ".join(c for c, _ in ARM_PARAMETERS)
                       + " FROM r WHERE trajectory_max_abs_error_rad > 0").df()
    if len(data):
        dts = sorted(data["dt"].unique())
        dt = dts[len(dts) // 2]  # one dt, so that integration error (∝ dtᵖ) does not mix in
        data = data[data["dt"] == dt]
        fig, axes = plt.subplots(2, 3, figsize=(11, 6.5), sharey=True)
        for ax, (col, label) in zip(axes.flat, ARM_PARAMETERS, strict=False):
            for engine, sub in data.groupby("engine", sort=True):
                ax.scatter(sub[col], sub["err"], s=10, label=engine, alpha=0.7)
            ax.set_yscale("log")
            ax.set_xlabel(label)
            ax.grid(True, alpha=0.3)
        for ax in axes[:, 0]:
            ax.set_ylabel("trajectory error [rad]")
        axes.flat[0].legend(fontsize=7)
        fig.suptitle(f"trajectory error against the arm's parameters (dt = {dt:g} s)")
        fig.tight_layout()
        files.append(out / "sweep_parameters.png")
        fig.savefig(files[-1], dpi=110)
        plt.close(fig)
    return files


def write_report(out, quiet: bool = True) -> SweepReport:
    """Query ``out``'s dataset and write ``sweep.md``, ``sweep.html`` and the plots into ``out``."""
    from crossdyn.io import write_text_atomic

    out = Path(out)
    if not out.is_dir():
        raise SweepUsageError(f"{out}: no such sweep directory")
    files, missing, expected = chunk_files(out)
    if not files:
        raise SweepUsageError(f"{out}: no results yet (no chunk files in {results_dir(out)})")
    con = connect(files)
    n_rows = con.execute("SELECT count(*) FROM r").fetchone()[0]
    by_engine, pareto, failures = query(con)
    meta = json.loads((out / "sweep.json").read_text(encoding="utf-8")) if (out / "sweep.json").is_file() else {}
    versions = con.execute("SELECT DISTINCT version_crossdyn, version_mujoco, version_pybullet, version_pinocchio, "
                           "version_numpy, version_python FROM r ORDER BY ALL").fetchall()
    plots = _plots(con, pareto, out)

    tally = counts(con)
    md = [f"# Sweep {meta.get('name', out.name)}", ""]
    md += _summary_lines(n_rows, expected, missing, tally, int(by_engine["not_ok"].sum()))
    recovery = lines(meta.get("runs", []))
    md += ["", *recovery, ""]
    if meta:
        md.append(f"Arms: {len(meta.get('arms', []))}; engines: {', '.join(meta.get('engines', []))}; dt: "
                  f"{', '.join(f'{d:g}' for d in meta.get('dt', []))} s; profiles: "
                  f"{', '.join(Path(p).name for p in meta.get('profiles', []))}; {meta.get('duration'):g} s each; "
                  f"{meta.get('states')} random states.")
    md.append("Versions: " + "; ".join(f"crossdyn {v[0]}, MuJoCo {v[1]}, PyBullet {v[2]}, Pinocchio {v[3]}, "
                                       f"NumPy {v[4]}, Python {v[5]}" for v in versions))
    md += ["", "## Pass rate and errors per engine × integrator × dt", "",
           "Trajectory error: max |q − q_ref| over the run [rad], percentiles over arms and profiles; inverse "
           "dynamics: 99th percentile of the max torque error [N m]; energy: 90th percentile of the free-swing "
           "drift (relative); compute: median seconds of compute per simulated second.", ""]
    cols = ["engine", "integrator", "dt", "comparisons", "passed", "failed", "inconclusive", "pass_rate", "checks"] + \
        [f"traj_{_q(p)}" for p in PERCENTILES] + ["traj_max", "id_p99", "drift_p90", "us_per_step_median",
                                                  "compute_s_per_sim_s_median"]
    heads = ["engine", "integrator", "dt [s]", "n", "PASS", "FAIL", "INCONCLUSIVE", "pass rate", "checks"] + \
        [f"traj {_q(p)} [rad]" for p in PERCENTILES] + ["traj max", "ID p99 [N m]", "drift p90", "µs/step",
                                                        "compute s / sim s"]
    md += _md_table(by_engine, cols, heads)
    md += ["", "## Speed against accuracy", "",
           "One point per engine and dt; points on the dashed line are Pareto-optimal (no other engine and dt "
           "is both faster and more accurate).", "", "![speed-accuracy](sweep_pareto.png)", ""]
    md += _md_table(pareto.sort_values(["engine", "dt"], ascending=[True, False]),
                    ["engine", "dt", "compute_s_per_sim_s_median", "traj_p90", "pareto"],
                    ["engine", "dt [s]", "compute s / sim s", "traj p90 [rad]", "Pareto-optimal"])
    if len(plots) > 1:
        md += ["", "## Error against the arm's parameters", "", "![parameters](sweep_parameters.png)"]
    idle = len(failures) - tally["FAIL"] - tally["INCONCLUSIVE"]
    md += ["", f"## Comparisons that did not pass ({tally['FAIL'] + tally['INCONCLUSIVE']}: {tally['FAIL']} FAIL, "
           f"{tally['INCONCLUSIVE']} INCONCLUSIVE)" + (f"; {idle} PASS with a phenomenon NOT EXERCISED" if idle else ""),
           ""]
    if len(failures):
        md += _md_table(failures.head(500), ["arm", "engine", "dt", "profile", "status", "verdict", "why"])
        if len(failures) > 500:
            md.append(f"\n… and {len(failures) - 500} more (query `{results_dir(out)}` for all of them).")
    else:
        md.append("None.")
    md.append("")
    text = "\n".join(md)
    written = [write_text_atomic(out / "sweep.md", text), write_text_atomic(out / "sweep.html", _html(text, out))]
    con.close()
    return SweepReport(n_rows, expected, missing, by_engine, pareto, failures, written + plots, tally, recovery)


def _summary_lines(n_rows: int, expected, missing: int, tally: dict, not_ok: int) -> list[str]:
    """The report's first lines: comparisons per verdict, the checks they made, the verdict."""
    done = f"{n_rows} of {expected} comparisons" if expected else f"{n_rows} comparisons"
    verdict = SweepReport(n_rows, expected, missing, None, None, None, counts=tally).verdict
    return [f"{done}: {tally['PASS']} PASS, {tally['FAIL']} FAIL, {tally['INCONCLUSIVE']} INCONCLUSIVE "
            f"({tally['checks']} checks: compared samples, states and events); {not_ok} did not run to the end "
            "(failed, diverged, skipped, unsupported)." + (f" **{missing} chunk(s) not run yet** (re-run the sweep "
                                                           "to finish)." if missing else ""),
            f"Verdict: **{verdict.value}** (FAIL if a comparison failed or a chunk is missing, else INCONCLUSIVE if "
            "one could not be judged, else PASS)."]


def _html(markdown: str, out: Path) -> str:
    """``sweep.md`` as one HTML file: tables as tables, images embedded as data URIs."""
    import re

    body: list[str] = []
    table: list[str] = []

    def flush():
        if table:
            rows = [r for r in table if not re.fullmatch(r"\|(---\|)+", r)]
            cells = [[html.escape(c.strip().replace("\\|", "|")) for c in re.split(r"(?<!\\)\|", r)[1:-1]]
                     for r in rows]
            body.append("<table><tr>" + "".join(f"<th>{c}</th>" for c in cells[0]) + "</tr>"
                        + "".join("<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>" for r in cells[1:])
                        + "</table>")
            table.clear()

    for line in markdown.splitlines():
        if line.startswith("|"):
            table.append(line)
            continue
        flush()
        m = re.fullmatch(r"!\[(.*)\]\((.*)\)", line)
        if m:
            data = base64.b64encode((out / m.group(2)).read_bytes()).decode()
            body.append(f'<p><img alt="{html.escape(m.group(1))}" src="data:image/png;base64,{data}"></p>')
        elif line.startswith("## "):
            body.append(f"<h2>{html.escape(line[3:])}</h2>")
        elif line.startswith("# "):
            body.append(f"<h1>{html.escape(line[2:])}</h1>")
        elif line.strip():
            esc = html.escape(line)
            esc = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", esc)
            esc = re.sub(r"`(.+?)`", r"<code>\1</code>", esc)
            body.append(f"<p>{esc}</p>")
    flush()
    style = ("body{font-family:sans-serif;max-width:1200px;margin:2em auto}table{border-collapse:collapse;"
             "font-size:12px}td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}img{max-width:100%}")
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>crossdyn sweep</title><style>{style}"
            f"</style></head><body>{''.join(body)}</body></html>\n")
