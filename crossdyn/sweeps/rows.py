"""One row per (arm, engine, dt, profile): the columns of the sweep's Parquet dataset.

Rows are plain dicts built from a comparison's summary (see ``summary.schema.json``); the Arrow
schema :data:`SCHEMA` fixes every column's type, so files of different chunks (and a chunk whose
metrics are all missing because it failed) always read as one table.  Timing columns are
:data:`TIMING_COLUMNS`; every other column is a function of the inputs only.

The row's judgement (schema ``crossdyn.sweep-row/2``), taken from the comparison's ``summary.json``
(``crossdyn.compare/2``), one engine at a time:

* ``verdict``: ``PASS``, ``FAIL`` or ``INCONCLUSIVE`` (:class:`crossdyn.status.Verdict`), the combination (FAIL over
  INCONCLUSIVE over PASS) of the engine's metric groups' verdicts, of the summary's ``failures`` and
  ``inconclusive`` lines that name this engine (``ENGINE: …`` or ``ENGINE@option…: …``) and of the lines that name
  no engine of the chunk (the reference, a phenomenon section: they hold for every engine of the comparison).  An
  engine that failed or diverged is FAIL; one skipped or unsupported made no check and is INCONCLUSIVE.
* ``checks``: the checks (compared samples, states, events) the engine's groups made, in all; ``<group>_checks``
  and ``<group>_verdict`` per metric group of :data:`GROUP_COLUMNS` (null when the group was not judged: e.g.
  ``armature`` and ``effort`` exist only for arms that declare them); ``<group>_pass`` for :data:`PASS_COLUMNS`.
* ``failures`` / ``inconclusive``: the lines behind a FAIL / an INCONCLUSIVE, ``; ``-separated (the engine's name
  dropped from its own lines).
* ``not_exercised`` (added in 2.1 of the comparison's document; null in rows written before): the phenomena the arm
  declares that the run never reached, not asked about (the engine's NOT_EXERCISED groups, ``effort: …``, and the
  arm-wide sections' lines, ``limits: …``), ``; ``-separated: 0 checks, not counted in ``verdict`` (a PASS row
  with a ``not_exercised`` line passed on everything else; ``<group>_verdict`` says ``NOT_EXERCISED``).
"""
from __future__ import annotations

import json

from crossdyn.status import RunStatus, Verdict

ROW_SCHEMA_VERSION = "crossdyn.sweep-row/2"

VERSION_KEYS = ("crossdyn", "python", "numpy", "scipy", "mujoco", "pybullet", "pinocchio")
LINK_KEYS = ("length", "mass", "com", "inertia", "damping", "friction")
TIMING_COLUMNS = ("us_per_step", "compute_s_per_sim_s", "group_wall_s")

METRICS = (
    # column, (summary section, key)
    ("trajectory_max_abs_error_rad", ("trajectory", "max_abs_error_rad")),
    ("trajectory_rms_error_rad", ("trajectory", "rms_error_rad")),
    ("trajectory_tolerance_rad", ("trajectory", "tolerance_rad")),
    ("richardson_estimate_rad", ("trajectory", "richardson_estimate_rad")),
    ("same_integrator_error_rad", ("trajectory", "same_integrator_error_rad")),
    ("ee_max_error_m", ("trajectory", "ee_max_error_m")),
    ("divergence_time_s", ("trajectory", "divergence_time_s")),
    ("inverse_dynamics_max_abs_error_nm", ("inverse_dynamics", "max_abs_error_nm")),
    ("forward_dynamics_max_abs_error", ("forward_dynamics", "max_abs_error")),
    ("mass_matrix_max_abs_error", ("mass_matrix", "max_abs_error")),
    ("energy_max_rel_drift", ("energy", "max_rel_drift")),
    ("work_energy_residual_rel", ("energy", "work_energy_residual_rel")),
    ("us_per_step", ("speed", "us_per_step")),
)
PASS_COLUMNS = ("trajectory", "inverse_dynamics", "forward_dynamics", "mass_matrix", "energy")
GROUP_COLUMNS = PASS_COLUMNS + ("armature", "effort")
"""The engine's judged groups with a verdict and a check-count column each (``checks`` totals every group)."""


def _schema():
    import pyarrow as pa  # type: ignore[import-untyped]

    f64, s = pa.float64(), pa.string()
    cols = [("chunk", s), ("arm", s), ("arm_source", s), ("dof", pa.int32()), ("profile", s), ("dt", f64),
            ("duration", f64), ("engine", s), ("integrator", s), ("status", s), ("reason", s), ("verdict", s),
            ("failures", s), ("inconclusive", s), ("not_exercised", s), ("checks", pa.int64()),
            ("reference_status", s)]
    cols += [(c, f64) for c, _ in METRICS]
    cols += [(f"{p}_pass", pa.bool_()) for p in PASS_COLUMNS]
    cols += [(f"{p}_verdict", s) for p in GROUP_COLUMNS] + [(f"{p}_checks", pa.int64()) for p in GROUP_COLUMNS]
    cols += [("compute_s_per_sim_s", f64), ("group_wall_s", f64)]
    cols += [(k, pa.list_(f64)) for k in LINK_KEYS] + [("gravity", pa.list_(f64))]
    cols += [("reach_m", f64), ("total_mass_kg", f64), ("com_fraction_mean", f64), ("inertia_fraction_mean", f64),
             ("damping_max", f64), ("energy_scale_j", f64), ("torque_scale_nm", f64)]
    cols += [(f"version_{k}", s) for k in VERSION_KEYS] + [("engine_config", s), ("schema", s)]
    return pa.schema(cols)


_SCHEMA = None


def schema():
    global _SCHEMA
    if _SCHEMA is None:
        _SCHEMA = _schema()
    return _SCHEMA


def arm_columns(arm: dict) -> dict:
    """The arm's parameters: per-link lists (as in the arm TOML) and scalar summaries for plots."""
    links = arm["links"]
    out: dict = {k: [float(link.get(k, 0.0)) for link in links] for k in LINK_KEYS}
    out["gravity"] = [float(g) for g in arm.get("gravity", (0.0, -9.81, 0.0))]
    L, m = out["length"], out["mass"]
    out["reach_m"] = sum(L)
    out["total_mass_kg"] = sum(m)
    out["com_fraction_mean"] = sum(c / length for c, length in zip(out["com"], L, strict=False)) / len(L)
    out["inertia_fraction_mean"] = sum(j / (mm * length * length)
                                       for j, mm, length in zip(out["inertia"], m, L, strict=False)) / len(L)
    out["damping_max"] = max(out["damping"])
    return out


def _base(chunk, group, engine: str) -> dict:
    return {"chunk": chunk.key, "arm": group.arm["name"], "arm_source": group.source, "dof": len(group.arm["links"]),
            "profile": group.profile, "dt": group.dt, "duration": chunk.duration, "engine": engine,
            "schema": ROW_SCHEMA_VERSION, **arm_columns(group.arm)}


def _owner(line: str, engines) -> str | None:
    """The chunk's engine a summary line names (``mujoco: …``, ``mujoco@native_limits=true: …``, ``pybullet limit
    calibration: …``), else None."""
    head = line.split(": ", 1)[0].split("@", 1)[0].strip()
    if head in engines:
        return head
    first = head.split(" ", 1)[0]
    return first if first in engines else None


def _lines_for(engine: str, lines, engines) -> list[str]:
    """The lines that concern ``engine``: its own (its name dropped, options kept) and those naming no engine."""
    out = []
    for line in lines:
        owner = _owner(line, engines)
        if owner is None:
            out.append(line)
        elif owner == engine:
            out.append(line[len(engine) + 2:] if line.startswith(f"{engine}: ") else line)
    return out


def judgement(engine: str, e: dict, summary: dict, engines) -> dict:
    """The row's ``verdict``, ``checks``, per-group ``<group>_verdict``/``_checks``/``_pass``, ``failures`` and
    ``inconclusive`` of one engine of a comparison's summary (see the module docstring)."""
    out: dict = {}
    for p in GROUP_COLUMNS:
        g: dict = e[p] if isinstance(e.get(p), dict) else {}
        out[f"{p}_verdict"] = None if g.get("verdict") is None else str(g["verdict"])
        out[f"{p}_checks"] = None if g.get("checks") is None else int(g["checks"])
        if p in PASS_COLUMNS:
            out[f"{p}_pass"] = None if g.get("pass") is None else bool(g["pass"])
    verdicts = [Verdict(g["verdict"]) for g in e.values() if isinstance(g, dict) and g.get("verdict") is not None]
    checks: dict = e["checks"] if isinstance(e.get("checks"), dict) else {}
    out["checks"] = sum(int(n) for n in checks.values())
    failures = _lines_for(engine, summary.get("failures", []), engines)
    inconclusive = _lines_for(engine, summary.get("inconclusive", []), engines)
    ref = summary.get("reference", {})
    if ref.get("status") is not None and str(ref["status"]) != RunStatus.OK and not any(
            f.startswith("reference: ") for f in failures):
        failures.insert(0, f"reference: {ref.get('status')}: {ref.get('reason')}")
    status = str(e.get("status", RunStatus.FAILED))
    if status in (RunStatus.SKIPPED, RunStatus.UNSUPPORTED):
        inconclusive.insert(0, f"{status}: {e.get('reason', '')}; no check made")
    elif status != RunStatus.OK and not failures:
        failures.append(f"{status}: {e.get('reason', '')}")
    if status == RunStatus.OK and out["checks"] == 0 and not inconclusive:
        inconclusive.append("no check was made")
    verdicts += [Verdict.FAIL] * bool(failures) + [Verdict.INCONCLUSIVE] * bool(inconclusive)
    idle = [f"{k}: {g.get('not_exercised_because', '')}" for k, g in e.items()
            if isinstance(g, dict) and g.get("verdict") == Verdict.NOT_EXERCISED]
    idle += [line for line in summary.get("not_exercised", []) if line.split(":", 1)[0] in SECTIONS]
    out.update(verdict=Verdict.combine(verdicts).value, failures="; ".join(failures),
               inconclusive="; ".join(inconclusive), not_exercised="; ".join(idle))
    return out


SECTIONS = ("limits", "contact", "friction")
"""The comparison's arm-wide phenomenon sections (their ``not_exercised`` lines hold for every engine)."""


def rows_from_summary(chunk, group, summary: dict, wall_s: float) -> list[dict]:
    """One row per engine of one comparison's summary."""
    versions = summary.get("versions", {})
    ref = summary.get("reference", {})
    ref_status = None if ref.get("status") is None else str(ref["status"])  # RunStatus or its word: the word
    rows = []
    for engine in chunk.engines:
        e = summary["engines"].get(engine, {})
        row = _base(chunk, group, engine)
        for col, (section, key) in METRICS:
            v = e.get(section, {}).get(key) if isinstance(e.get(section), dict) else None
            row[col] = None if v is None else float(v)
        row.update(judgement(engine, e, summary, chunk.engines))
        row.update(
            integrator=(e.get("config") or {}).get("integrator"), status=str(e.get("status", RunStatus.FAILED)),
            reason=e.get("reason", ""), reference_status=ref_status,
            compute_s_per_sim_s=None if row["us_per_step"] is None else row["us_per_step"] * 1e-6 / group.dt,
            group_wall_s=wall_s, energy_scale_j=summary.get("energy_scale_j"),
            torque_scale_nm=summary.get("torque_scale_nm"),
            engine_config=json.dumps(e.get("config") or {}, sort_keys=True, default=str),
            **{f"version_{k}": versions.get(k) for k in VERSION_KEYS},
        )
        rows.append(row)
    return rows


def failed_rows(chunk, group, reason: str, engines=None) -> list[dict]:
    """Rows of comparisons that produced no result (the worker died, the group could not start)."""
    from crossdyn.comparison.compare import _versions

    from crossdyn.models.spec_io import spec_from_dict

    versions = _versions()
    spec = spec_from_dict(group.arm, group.arm["name"])
    rows = []
    for engine in engines or chunk.engines:
        row = _base(chunk, group, engine)
        row.update({c: None for c, _ in METRICS})
        row.update({f"{p}_pass": None for p in PASS_COLUMNS})
        row.update({f"{p}_{k}": None for p in GROUP_COLUMNS for k in ("verdict", "checks")})
        row.update(integrator=None, status=RunStatus.FAILED.value, reason=reason, failures=f"failed: {reason}",
                   verdict=Verdict.FAIL.value, inconclusive="", not_exercised="", checks=0, reference_status=None, compute_s_per_sim_s=None, group_wall_s=None,
                   energy_scale_j=spec.energy_scale(), torque_scale_nm=spec.torque_scale(), engine_config="{}",
                   **{f"version_{k}": versions.get(k) for k in VERSION_KEYS})
        rows.append(row)
    return rows


def to_parquet_bytes(rows: list[dict]) -> bytes:
    """The rows as one Parquet file's bytes (columns and types from :func:`schema`)."""
    import pyarrow as pa  # type: ignore[import-untyped]
    import pyarrow.parquet as pq  # type: ignore[import-untyped]

    table = pa.Table.from_pylist(rows, schema=schema())
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink)
    return sink.getvalue().to_pybytes()
