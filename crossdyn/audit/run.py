"""``audit(files)``: read every file, diff each later file against the first (bodies matched, every parameter in
the world frame at q = 0, M/G/C·q̇/ID through crossdyn's reference), load each file in every engine that reads its
format and compare the engine's M/G/C·q̇/ID with the reference from the same file, then explain each difference
(:mod:`crossdyn.audit.explain`).  The same random states serve every file (mapped through the body matching) and
every engine.
"""
from __future__ import annotations

import time
from dataclasses import replace
from typing import Callable

import numpy as np

from crossdyn.audit import enginediff, explain
from crossdyn.audit.common import lock_joints, locked_words
from crossdyn.audit.enginediff import QUANTITIES, States, sample_states
from crossdyn.audit.filediff import diff_files
from crossdyn.audit.match import match_bodies, state_map
from crossdyn.audit.result import AuditResult, DynamicsCheck, EngineRun, FileDiff, Tolerances
from crossdyn.errors import EngineError, EngineUnsupported, InputError, did_you_mean
from crossdyn.robots.checks import singular_mass_message
from crossdyn.robots.model import RobotModel
from crossdyn.status import RunStatus


def engine_names(requested: list[str] | None) -> list[str]:
    """The engines asked for (None: every float64 file engine crossdyn has, ``FILE_ENGINES``; the float32 ones,
    ``GPU_FILE_ENGINES``, when named); an unknown name is an InputError."""
    if requested is not None and not requested:
        return []
    from crossdyn.engines.files import ALL_FILE_ENGINES, FILE_ENGINES

    if requested is None:
        return list(FILE_ENGINES)
    unknown = [e for e in requested if e.split("@", 1)[0] not in ALL_FILE_ENGINES]
    if unknown:
        hint = did_you_mean(unknown[0].split("@", 1)[0], ALL_FILE_ENGINES) if len(unknown) == 1 else ""
        raise InputError(f"audit: --engines: unknown engine(s) {', '.join(unknown)}{hint}; file engines: "
                         f"{', '.join(ALL_FILE_ENGINES)}", where="--engines", value=",".join(unknown))
    return list(requested)


def mapped_states(s: States, idx: np.ndarray, sign: np.ndarray) -> States:
    return States(s.Q[:, idx] * sign, s.QD[:, idx] * sign, s.QDD[:, idx] * sign, s.description)


def values_in_a(values: dict, idx: np.ndarray, sign: np.ndarray, n_a: int) -> dict:
    """File b's quantities in file a's joint order and signs (idx, sign: :func:`state_map`)."""
    out = {}
    for q, x in values.items():
        if q == "M":
            y = np.empty((len(x), n_a, n_a))
            y[:, idx[:, None], idx[None, :]] = x * sign[:, None] * sign[None, :]
        else:
            y = np.empty((len(x), n_a))
            y[:, idx] = x * sign
        out[q] = y
    return out


def pair_checks(a: RobotModel, b: RobotModel, diff: FileDiff, s: States, ref_a: dict, tol: Tolerances) -> list:
    """The dynamics checks of b's reference against a's at a's states ``s`` (mapped to b's coordinates through
    ``diff.matching``, which must be complete), explained."""
    idx, sign = state_map(diff.matching, b.n)
    ref_b = values_in_a(enginediff.reference(b, mapped_states(s, idx, sign)), idx, sign, a.n)
    checks = enginediff.compare(a.source, ref_a, ref_b, tol.files_rel, other_file=b.source)
    fit_s = explain.subset(s)
    target = {q: v[:len(fit_s.Q)] for q, v in ref_b.items()}

    def residuals(model: RobotModel) -> dict:
        ref = enginediff.reference(model, fit_s)
        return {q: enginediff.relative(target[q], ref[q])[0] for q in QUANTITIES}

    return explain.explain_files(a, b, diff, checks, residuals)


def common_chain(a: RobotModel, b: RobotModel, diff: FileDiff, s: States, tol: Tolerances) -> tuple[FileDiff, list]:
    """Files whose bodies do not all match: the dynamics compared on the matched joints, every other joint fixed
    at 0 (:func:`crossdyn.audit.common.lock_joints`), the diff saying which; or the reason it could not be done."""
    keep_a, keep_b = {p.a for p in diff.matching.pairs}, {p.b for p in diff.matching.pairs}
    if not keep_a:
        return replace(diff, common="no body of the two files matched: M, G, C·q̇, ID not compared"), []
    a_c, b_c = lock_joints(a, keep_a), lock_joints(b, keep_b)
    matching = match_bodies(a_c, b_c)
    if not matching.complete:
        return replace(diff, common="the matched bodies do not match again once the other joints are fixed: M, "
                                    "G, C·q̇, ID not compared"), []
    cols = sorted(keep_a)
    s_c = States(s.Q[:, cols], s.QD[:, cols], s.QDD[:, cols], s.description)
    words = "; ".join(w for w in (locked_words(a, keep_a), locked_words(b, keep_b)) if w)
    checks = pair_checks(a_c, b_c, replace(diff, matching=matching), s_c, enginediff.reference(a_c, s_c), tol)
    return replace(diff, common=f"M, G, C·q̇, ID compared on the {len(cols)} joints both files have, {words} "
                                f"(their bodies welded to their parents)"), checks


def file_pair(a: RobotModel, b: RobotModel, s: States, ref_a: dict, tol: Tolerances, seed: int = 0,
              match_sign: bool = False):
    """The file diff of ``b`` against ``a``, the dynamics checks of b's reference against a's, explained (on the
    joints both have where some bodies are unmatched: :func:`common_chain`), and b's states (mapped from a's, or
    b's own).  A joint whose axis points the opposite way is compared through q_B = −q_A either way;
    ``match_sign`` says whether that reversal is a difference (False: FAIL, "axis reversed") or only called out."""
    matching = match_bodies(a, b)
    diff = diff_files(a, b, matching, tol, match_sign)
    if not matching.complete:
        diff, checks = common_chain(a, b, diff, s, tol)
        return diff, checks, sample_states(b, len(s.Q), seed)
    return diff, pair_checks(a, b, diff, s, ref_a, tol), mapped_states(s, *state_map(matching, b.n))


def run_engine(model: RobotModel, name: str, s: States, ref: dict, tol: Tolerances):
    """One engine on one file: its run record and its dynamics checks (explained)."""
    from crossdyn.engines.files import file_engine_status, make_file_engine

    why = file_engine_status(name, model.format)
    if why is not None:
        return EngineRun(model.source, name, RunStatus.SKIPPED if why.startswith(("not installed", "unknown"))
                         else RunStatus.UNSUPPORTED, why), []
    try:
        engine = make_file_engine(name, model)
        values = enginediff.engine_values(engine, s)
        config = engine.config()
    except EngineUnsupported as e:  # the engine cannot represent the file: not counted (compare says the same)
        return EngineRun(model.source, name, RunStatus.UNSUPPORTED, str(e)), []
    except EngineError as e:
        return EngineRun(model.source, name, RunStatus.FAILED, str(e)), []
    checks = enginediff.compare(model.source, ref, values, tol.engine_rel, engine=name,
                                dtype=getattr(engine, "dtype", None))
    fit_s = explain.subset(s)
    checks = explain.explain_engine(model, name, checks, fit_s, {q: v[:len(fit_s.Q)] for q, v in values.items()},
                                    config)
    return EngineRun(model.source, name, RunStatus.OK, None, config), checks


def audit(files: list[str], engines: list[str] | None = None, states: int = 100, seed: int = 0,
          tol: Tolerances | None = None, progress: Callable[[str], None] | None = None,
          match_sign: bool = False) -> AuditResult:
    """Audit ``files`` (one or more robot files, the first the reference of the file diffs) with ``engines``
    (None: every file engine; [] none) at ``states`` random states from ``seed``; ``match_sign``: joints whose axes
    point opposite ways are matched by sign (q → −q) instead of failing as "axis reversed"."""
    from crossdyn.robots import read_robot

    t0 = time.perf_counter()
    tol = tol or Tolerances()
    say = progress or (lambda line: None)
    names = engine_names(engines)
    models = [read_robot(f) for f in files]
    singular = singular_mass_message(models[0]) if len(models) == 1 else None
    if singular is not None:  # one file whose M(q) is singular: exit 2 with the cause (a pair's diff still runs)
        raise InputError(f"audit: {singular}", where=models[0].source)
    a = models[0]
    s = sample_states(a, states, seed)
    ref_a = enginediff.reference(a, s)
    diffs: list[FileDiff] = []
    checks: list[DynamicsCheck] = []
    per_file = [(a, s, ref_a)]
    for b in models[1:]:
        diff, pair_checks, s_b = file_pair(a, b, s, ref_a, tol, seed, match_sign)
        say(f"{b.source} against {a.source}: bodies matched "
            + ", ".join(f"{p.name_a} = {p.name_b} ({p.how})" for p in diff.matching.pairs)
            + (f"; unmatched: {', '.join(diff.matching.only_a + diff.matching.only_b)}"
               if not diff.matching.complete else ""))
        say(f"{b.source} against {a.source}: {len(diff.differing)} of {len(diff.rows)} parameters differ")
        diffs.append(diff)
        checks += pair_checks
        per_file.append((b, s_b, enginediff.reference(b, s_b)))
    runs: list[EngineRun] = []
    for model, s_m, ref in per_file:
        for name in names:
            run, engine_checks = run_engine(model, name, s_m, ref, tol)
            say(f"{name} on {model.source}: {run.status.value}" + (f" ({run.reason})" if run.reason else ""))
            runs.append(run)
            checks += engine_checks
    return AuditResult(tuple(files), tuple(models), states, seed, tol, tuple(diffs), tuple(runs), tuple(checks),
                       s.description, time.perf_counter() - t0, match_sign)
