"""``crossdyn check`` on a spatial textbook arm (issue 27): revolute and prismatic joints, spatial axes.

The user's file defines ``M(q, p)``, ``C(q, qd, p)`` (the n×n matrix or the vector C q̇) and ``G(q, p)`` as for a
planar arm (:mod:`crossdyn.checking.checker`), with ``p`` the arm's general parameters by name
(:mod:`crossdyn.checking.spatial_arms`: ``p.L2``, ``p.d1``, ``p.g``, ``p.m2``, ``p.cz2``, ``p.Ixx2``, …; in MATLAB
a struct with the same fields).  Steps:

1. N random states (revolute q in [−π, π], prismatic q in the arm's range, q̇ in [−2, 2]) and K random valid
   parameter sets besides the arm's own (:func:`~crossdyn.checking.spatial_arms.random_values`: physically
   consistent inertias);
2. the user's M, C q̇ (and the C matrix), G at every state × set, against crossdyn's spatial reference
   (:mod:`crossdyn.spatial`: CRBA for M, RNEA for C q̇ + G and G, on the arm's RobotModel), entry by entry: an entry
   is wrong at a set when its error exceeds :data:`~crossdyn.checking.results.RTOL` × the quantity's largest
   magnitude there (:func:`crossdyn.checking.entries.compare`, the planar rule); a C matrix entry that differs from
   the Christoffel one while C q̇ is right is a note (C is not unique);
3. structure of the user's functions alone (:mod:`crossdyn.checking.spatial_structure`);
4. every wrong entry named to the term in the general parameters (:mod:`crossdyn.checking.spatial_terms`) from the
   symbolic Lagrangian collected per inertial parameter (:mod:`crossdyn.analytic.spatial_symbolic`).
"""
from __future__ import annotations

import io
import time
from dataclasses import dataclass, replace

import numpy as np

from crossdyn.checking.entries import Compared, Values, compare, entry_summary
from crossdyn.checking.options import CheckOptions
from crossdyn.checking.results import CheckResult, CheckStatus, CheckVerdict, EntryStatus
from crossdyn.checking.spatial_arms import SpatialArm, load_spatial, random_values
from crossdyn.checking.spatial_eval import draw_states, evaluate_user, reference
from crossdyn.checking.spatial_naming import name_findings
from crossdyn.checking.spatial_structure import structure_checks
from crossdyn.equations.loader import load_model

SPATIAL_STATES = 300
"""Default random states for a spatial arm (``--states``): with :data:`SPATIAL_RANDOM_PARAMS` sets, 3,300
evaluations of each function, within the 3 s check budget of issue 27 in Octave too."""
SPATIAL_RANDOM_PARAMS = 10


@dataclass(frozen=True)
class _SampleView:
    """What :func:`crossdyn.checking.entries.entry_summary` reads of a sample."""

    Q: np.ndarray
    QD: np.ndarray
    sets: list


def check_spatial(arm, file, options: CheckOptions | None = None) -> CheckResult:
    """Check ``file`` against the spatial arm ``arm`` (a preset name or a :class:`SpatialArm`); see the module
    docstring.  Raises :class:`~crossdyn.equations.protocol.UserFileError` when the file cannot be used."""
    options = options or CheckOptions(states=SPATIAL_STATES, random_params=SPATIAL_RANDOM_PARAMS)
    t0 = time.perf_counter()
    sa = load_spatial(arm)
    model = load_model(file, sa.n, options.function_names, timeout=options.timeout)
    rng = np.random.default_rng(options.seed)
    Q, QD = draw_states(sa, options.states, rng)
    sets = [dict(sa.values)] + [random_values(sa, rng) for _ in range(options.random_params)]
    sink = io.StringIO()
    notes: list[str] = []
    user = evaluate_user(model, sa, sets, Q, QD, sink)
    ref = reference(sa, sets, Q, QD)
    if "C" in user:
        from crossdyn.checking.spatial_naming import christoffel

        try:
            ref["C"] = christoffel(sa, sets, Q, QD)
        except NotImplementedError as e:     # no symbolic model in time: C q̇ is compared, the C matrix is not
            del user["C"]
            notes.append(f"the C matrix is not compared entry by entry ({e}); C qd is")
    compared: dict[str, Compared] = {q: compare(q, user[q], ref[q]) for q in ("M", "Cqd", "C", "G") if q in user}
    for role, what in (("M", "M"), ("C", "C qd"), ("G", "G")):
        if not model.has(role):
            notes.append(f"your file defines no {role}: {what} not checked")
    values = Values(user, ref, compared, notes)
    structure = structure_checks(model, sa, sets[0], Q, QD, user, sink)
    m_symmetric = all(s.status == CheckStatus.OK for s in structure if s.name == "M symmetric")
    view = _SampleView(Q, QD, sets)
    summary, findings = entry_summary(values, view, m_symmetric)  # type: ignore[arg-type]
    wrong = [f for f in findings if f.status == EntryStatus.WRONG]
    if wrong:
        named, naming_notes = name_findings(model, sa, wrong, options.seed, sink)
        findings = [named.get(f.entry, f) for f in findings]
        notes += naming_notes
    printed = sink.getvalue()
    if printed:
        lines = printed.splitlines()
        notes.append(f"your file printed {len(lines)} lines while being checked (not shown; first: {lines[0][:80]!r})")
    failed = any(s.status == CheckStatus.FAILED for s in structure)
    verdict = CheckVerdict.WRONG if wrong or failed else CheckVerdict.CORRECT
    checks: dict[str, int] = {q: int(c.err.size) for q, c in compared.items()}
    checks["structure"] = sum(1 for s in structure if s.status != CheckStatus.SKIPPED)
    checks["total"] = sum(checks.values())
    return CheckResult(
        arm=sa.name, arm_spec=sa.to_dict(), file=str(file), n=sa.n, functions=model.describe(), c_form=model.c_kind,
        states=options.states, random_params=len(sets) - 1, seed=options.seed, verdict=verdict, findings=findings,
        entries=summary, structure=structure, notes=notes, hints=[],
        param_sets=[_set_dict(k, v, sa) for k, v in enumerate(sets)], runtime_s=time.perf_counter() - t0,
        language=getattr(model, "language", "python"), checks=checks)


def _set_dict(k: int, values: dict, arm: SpatialArm) -> dict:
    label = "the arm's own parameters" if k == 0 else f"random parameter set {k}"
    return {"index": k, "label": label, "values": {name: float(values[name]) for name in arm.layout}}


def with_defaults(options: CheckOptions, states_given: bool, params_given: bool) -> CheckOptions:
    """``options`` with the spatial defaults where the caller left the planar ones."""
    return replace(options, states=options.states if states_given else SPATIAL_STATES,
                   random_params=options.random_params if params_given else SPATIAL_RANDOM_PARAMS)
