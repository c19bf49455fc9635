"""Regression baselines: store a comparison's metrics, and fail when a later run is worse.

A baseline is JSON (``crossdyn.baseline/2``): the arm (its name and a fingerprint of its parameters), dt,
duration, profile, the versions of crossdyn, Python and every engine, and per engine the metrics below.
Baselines written under ``crossdyn.baseline/1`` (no fingerprint) still load: their arm is compared by name only,
with a warning.  Any other schema is an input error (exit 2) naming it.

A baseline made with another set-up — another arm (its name or any parameter), dt or duration — is refused
before anything runs (:func:`check_setup`: an :class:`InputError`, exit 2): its metrics do not compare with
this run's, and a regression verdict on them would be our bookkeeping, not a departure.
A metric *regresses* when

    new > old · (1 + rel_band) + abs_floor

(``rel_band`` 0.5 by default; ``abs_floor`` 1e-3 of that metric's tolerance, so
values at rounding level, ~1e-14, never flap).  An engine whose status was ``ok``
and is not any more also regresses.  Baselines from other engine versions still
compare, with a warning.  A baseline is only rewritten by ``--update-baseline``,
which keeps the previous file as ``FILE.bak``.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

from crossdyn.io import write_bytes_atomic, write_json_atomic
from crossdyn.io import InputError

SCHEMA = "crossdyn.baseline/2"
SCHEMAS = ("crossdyn.baseline/1", SCHEMA)
"""The schemas this version reads."""
METRICS = {
    # metric path: (summary key of its tolerance, or None for "no floor")
    "trajectory.max_abs_error_rad": "trajectory.tolerance_rad",
    "trajectory.same_integrator_error_rad": "trajectory.same_integrator_tolerance_rad",
    "inverse_dynamics.max_abs_error_nm": "inverse_dynamics.tolerance_nm",
    "forward_dynamics.max_abs_error": "forward_dynamics.tolerance",
    "mass_matrix.max_abs_error": "mass_matrix.tolerance",
    "energy.max_rel_drift": "energy.tolerance",
    "energy.work_energy_residual_rel": "energy.tolerance",
}


def _get(d: dict, path: str):
    for part in path.split("."):
        if not isinstance(d, dict) or part not in d:
            return None
        d = d[part]
    return d


def fingerprint(spec_dict: dict) -> str:
    """A short digest of the arm's parameters (the spec as ``summary.json`` writes it): equal iff every
    parameter is equal."""
    import hashlib

    text = json.dumps(spec_dict, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def baseline_from_summary(summary: dict) -> dict:
    engines = {}
    for name, e in summary["engines"].items():
        engines[name] = {"status": e["status"], **{m: _get(e, m) for m in METRICS},
                         **{f"{m}.floor": (_get(e, t) or 0.0) * 1e-3 for m, t in METRICS.items()}}
    return {"schema": SCHEMA, "arm": summary["arm"], "arm_fingerprint": fingerprint(summary["spec"]),
            "dof": summary["dof"], "dt": summary["dt"],
            "duration": summary["duration"], "profile": summary["profile"], "versions": summary["versions"],
            "engines": engines}


TOP_KEYS = ("schema", "arm", "arm_fingerprint", "dof", "dt", "duration", "profile", "versions", "engines")
STATUSES = ("ok", "diverged", "failed", "skipped", "unsupported")


def load_baseline(path: str | Path) -> dict:
    """Read and validate a baseline; :class:`InputError` names the file, the field and the bad value."""
    from crossdyn.io import read_input_text

    path = Path(path)
    text = read_input_text(path, "baseline", missing="no baseline there; create one with --update-baseline")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError(f"{path}: not valid JSON (line {e.lineno}, column {e.colno}): {e.msg}") from None
    if not isinstance(data, dict) or data.get("schema") not in SCHEMAS:
        raise InputError(f"{path}: not a crossdyn baseline it can read (schema "
                        f"{data.get('schema') if isinstance(data, dict) else type(data).__name__!r}; it reads "
                        f"{', '.join(SCHEMAS)})", "schema", data.get("schema") if isinstance(data, dict) else None)
    validate_baseline(data, str(path))
    return data


def _bad(source: str, where: str, what: str, value) -> InputError:
    return InputError(f"{source}: {where}: {what}, got {value!r}", where, value)


def _is_number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def validate_baseline(data: dict, source: str = "baseline") -> None:
    """Check every field a comparison reads (types, finiteness, known keys); raise :class:`InputError`."""
    for key in ("arm", "dt", "duration", "engines", "versions"):
        if key not in data:
            raise InputError(f"{source}: baseline is missing the key {key!r}", key)
    extra = sorted(set(data) - set(TOP_KEYS))
    if extra:
        raise InputError(f"{source}: unknown key(s) {', '.join(extra)}; a baseline has {', '.join(TOP_KEYS)}", extra[0])
    if not isinstance(data["arm"], str) or not data["arm"]:
        raise _bad(source, "arm", "must be the arm's name (a string)", data["arm"])
    for key in ("dt", "duration"):
        if not _is_number(data[key]) or data[key] <= 0:
            raise _bad(source, key, "must be a positive number of seconds", data[key])
    if "dof" in data and (not isinstance(data["dof"], int) or isinstance(data["dof"], bool) or data["dof"] < 1):
        raise _bad(source, "dof", "must be an integer >= 1", data["dof"])
    if "profile" in data and not isinstance(data["profile"], dict):
        raise _bad(source, "profile", "must be an object", data["profile"])
    if not isinstance(data["versions"], dict):
        raise InputError(f"{source}: versions: must be an object (name -> version), got "
                        f"{type(data['versions']).__name__}", "versions", data["versions"])
    for name, version in data["versions"].items():
        if version is not None and not isinstance(version, str):
            raise _bad(source, f"versions.{name}", "must be a version string or null", version)
    if not isinstance(data["engines"], dict):
        raise InputError(f"{source}: engines: must be an object, got {type(data['engines']).__name__}",
                        "engines", data["engines"])
    allowed = ("status", *METRICS, *(f"{m}.floor" for m in METRICS))
    for name, entry in data["engines"].items():
        where = f"engines.{name}"
        if not isinstance(entry, dict):
            raise _bad(source, where, "must be an object of metrics", entry)
        if entry.get("status") not in STATUSES:
            raise _bad(source, f"{where}.status", f"must be one of {', '.join(STATUSES)}", entry.get("status"))
        extra = sorted(set(entry) - set(allowed))
        if extra:
            raise InputError(f"{source}: {where}: unknown key(s) {', '.join(extra)}; allowed: {', '.join(allowed)}",
                            f"{where}.{extra[0]}")
        for key, value in entry.items():
            if key == "status":
                continue
            if value is None and not key.endswith(".floor"):
                continue
            if not _is_number(value) or value < 0:
                raise _bad(source, f"{where}.{key}", "must be a finite number >= 0"
                           + ("" if key.endswith(".floor") else " or null"), value)


def check_setup(baseline: dict, source: str, spec_dict: dict, dt: float, duration: float) -> None:
    """Refuse (:class:`InputError`) a baseline made with another arm, dt or duration, naming each difference."""
    diffs = []
    if baseline["arm"] != spec_dict.get("name"):
        diffs.append(f"arm {baseline['arm']!r} in the baseline, {spec_dict.get('name')!r} in this run")
    elif baseline.get("arm_fingerprint") not in (None, fingerprint(spec_dict)):
        diffs.append(f"arm {baseline['arm']!r} has other parameters than when the baseline was made (fingerprint "
                     f"{baseline['arm_fingerprint']} there, {fingerprint(spec_dict)} now)")
    for key, now in (("dt", dt), ("duration", duration)):
        if baseline[key] != now:
            diffs.append(f"{key} = {baseline[key]!r} s in the baseline, {now!r} s in this run")
    if diffs:
        raise InputError(f"{source}: the baseline was made with another set-up ({'; '.join(diffs)}): its metrics do "
                         "not compare with this run's; re-run with the baseline's settings, or write a new "
                         "baseline with --update-baseline", "baseline", source)


def compare_to_baseline(summary: dict, baseline: dict, rel_band: float = 0.5) -> dict:
    """Regressions (fail) and warnings (different set-up or versions) of ``summary`` against ``baseline``."""
    regressions: list[str] = []
    warnings: list[str] = []
    setup = [(key, unit) for key, unit in (("arm", ""), ("dt", " s"), ("duration", " s")) if summary[key] != baseline[key]]
    if setup:  # metrics measured on another set-up do not compare: one reason, not one "regressed" line per metric
        what = "; ".join(f"{key} = {baseline[key]!r}{unit} in the baseline, {summary[key]!r}{unit} in this run"
                         for key, unit in setup)
        regressions.append(f"the baseline was made with another set-up ({what}): its metrics do not compare with "
                           "this run's; re-run with the baseline's settings, or write a new baseline with "
                           "--update-baseline")
        return {"regressions": regressions, "warnings": warnings, "rel_band": rel_band}
    if baseline.get("arm_fingerprint") is None:
        warnings.append(f"the baseline ({baseline['schema']}) did not record the arm's parameters: compared by "
                        "name only; --update-baseline records them")
    if summary["profile"] != baseline.get("profile"):
        warnings.append("the torque profile differs from the baseline's")
    for name, version in baseline["versions"].items():
        now = summary["versions"].get(name)
        if now != version:
            warnings.append(f"{name} version differs: baseline {version}, this run {now}")
    for name, old in baseline["engines"].items():
        new = summary["engines"].get(name)
        if new is None:
            warnings.append(f"engine {name} is in the baseline but not in this run")
            continue
        if old.get("status") == "ok" and new["status"] != "ok":
            regressions.append(f"{name}: status {new['status']} (baseline ok): {new.get('reason', '')}")
            continue
        for metric in METRICS:
            before, now = old.get(metric), _get(new, metric)
            if before is None or now is None:
                continue
            limit = before * (1 + rel_band) + old.get(f"{metric}.floor", 0.0)
            if now > limit:
                regressions.append(f"{name}: {metric} regressed: {now:.3g} > baseline {before:.3g} "
                                   f"(limit {limit:.3g})")
    return {"regressions": regressions, "warnings": warnings, "rel_band": rel_band}


def update_baseline(path: str | Path, summary: dict) -> Path | None:
    """Write the baseline for ``summary`` to ``path``; keep an existing one as ``path.bak``. Returns the backup."""
    path = Path(path)
    backup = None
    if path.exists():
        backup = path.with_name(path.name + ".bak")
        write_bytes_atomic(backup, path.read_bytes())
    write_json_atomic(path, baseline_from_summary(summary))
    return backup
