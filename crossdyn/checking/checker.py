"""``crossdyn check``: verify hand-derived M(q), C(q, q̇), G(q) against the analytic reference.

The user writes a Python file defining

* ``M(q, p)`` → n×n (also accepted: ``mass_matrix``),
* ``C(q, qd, p)`` → the n×n matrix C (so that C q̇ is the Coriolis/centrifugal
  torque) *or* the n-vector C q̇ — told apart by shape (also accepted:
  ``coriolis``, ``bias``),
* ``G(q, p)`` → the n-vector on the left-hand side, M q̈ + C q̇ + G = τ
  (also accepted: ``gravity``),

any of which may be missing; ``names={"M": "my_mass", …}`` maps other names.
``p`` (:class:`UserParams`) carries the parameters both as 0-based sequences
(``p.m``, ``p.L``, ``p.Lc``, ``p.J``, ``p.b``, ``p.fc``) and as 1-based scalars
(``p.m1``, ``p.L1`` = ``p.l1``, ``p.Lc1`` = ``p.lc1``, ``p.J1`` = ``p.I1``, ``p.b1``,
``p.fc1``, …), plus ``p.g`` = |gravity| (in-plane), ``p.gx``, ``p.gy`` and ``p.n``.

What :func:`check` does, one module per step
---------------------------------------------
1. :mod:`~crossdyn.checking.sampling`: N random states and K random valid parameter sets besides the arm's own
   (each link keeps its kind: rod, point mass or general).
2. :mod:`~crossdyn.checking.evaluation` and :mod:`~crossdyn.checking.entries`: the user's functions and the
   analytic reference at every state × set, compared entry by entry (M, C q̇, the C matrix when one is given, G):
   an entry is wrong at a set when its largest error exceeds :data:`RTOL` × the quantity's largest magnitude.
3. :mod:`~crossdyn.checking.structure`: M symmetric and positive definite, Ṁ − 2C skew-symmetric, C the
   Christoffel matrix, energy conserved in free motion (the user's equations integrated with crossdyn's RK4).
4. :mod:`~crossdyn.checking.explanations` and :mod:`~crossdyn.checking.wrong_arm`: one mistake that explains many
   entries comes first (a factor, a flipped sign, C q̇ + G returned as C, a transposed C, a file written for
   another arm's link kinds); the entries it accounts for get no term-by-term lists.
5. :mod:`~crossdyn.checking.entry_diagnosis` (with :mod:`~crossdyn.checking.diagnosis` and
   :mod:`~crossdyn.checking.general_sets`): for every other wrong entry, the terms whose coefficients are off,
   the polynomial their error follows across the parameter sets, and the parameters it depends on wrongly.
6. :mod:`~crossdyn.checking.friction`: a friction function ``F(qd, p)`` (or ``friction``) the file defines is
   compared entry by entry with crossdyn's F_i = b_i q̇_i + f_c,i sign(q̇_i); an arm with friction checked against
   a file without one gets a note saying friction was not checked.

A file written for another number of links (it fails at the arm's n but runs, with k-sized results, at k links)
is reported as such, naming both counts.  A file that cannot be used — import error, missing or non-callable
functions, wrong shapes, exceptions or non-finite values inside the user's functions — raises
:class:`UserFileError` naming the function and the state, with the user's traceback (frames in their file only).

The names this module has always offered (the result types, the sampling helpers, the user-equation types)
are re-exported here.
"""
from __future__ import annotations

import dataclasses
import io
import time
from typing import Any, Unpack

import numpy as np

from crossdyn.checking.entries import entry_name, entry_summary, evaluate_and_compare, mostly_wrong
from crossdyn.checking.entry_diagnosis import diagnose_findings
from crossdyn.checking.evaluation import QUANTITY_ROLE, Equations, check_link_count, roles_ignoring_p
from crossdyn.checking.explanations import attach, explanations
from crossdyn.checking.friction import check_friction
from crossdyn.checking.general_sets import GENERAL_MAX_STATES, GENERAL_SETS, GeneralSets, free_list
from crossdyn.checking.options import DEFAULT_RANDOM_PARAMS, DEFAULT_STATES, CheckKeywords, CheckOptions
from crossdyn.checking.results import (
    ATOL, RTOL, UNITS, CheckResult, CheckStatus, CheckVerdict, EntryFinding, EntryStatus, StructuralCheck,
)
from crossdyn.checking.sampling import (
    Sample, draw_sample, free_parameters, link_kinds, perturbed, random_param_sets, special_values,
)
from crossdyn.checking.structure import ENERGY_TOL, structure_checks
from crossdyn.checking.wrong_arm import QUICK_RANDOM_PARAMS, matching_arm
from crossdyn.models import ArmSpec, load_arm
from crossdyn.equations.loader import load_model
from crossdyn.equations.python_file import (  # noqa: F401  (names the checker's users also reach here)
    ROLE_ARGS, ROLE_NAMES, ParamSet, UserFileError, UserModel, UserParams, fmt_vec, own_params, parse_names, quiet,
    written_for_links,
)

__all__ = [
    "check", "run_check", "CheckOptions", "CheckResult", "EntryFinding", "StructuralCheck", "EntryStatus",
    "CheckStatus", "CheckVerdict", "RTOL", "ATOL", "ENERGY_TOL", "GENERAL_SETS", "GENERAL_MAX_STATES",
    "DEFAULT_STATES", "DEFAULT_RANDOM_PARAMS", "UNITS", "QUANTITY_ROLE", "link_kinds", "random_param_sets",
    "free_parameters", "perturbed", "special_values", "entry_name", "UserFileError", "UserModel", "UserParams",
    "ParamSet", "parse_names",
]


def check(arm: str | ArmSpec | Any, file: Any, options: CheckOptions | None = None,
          **keywords: Unpack[CheckKeywords]) -> CheckResult:
    """Check the user's file ``file`` against the analytic model of ``arm`` (preset, TOML path or spec).

    ``file``: a Python file, or MATLAB (a .m script of local functions or a folder of function files,
    run by GNU Octave).  ``options`` (:class:`CheckOptions`) or its fields as keywords (``states=1000,
    random_params=20, names=None, seed=0, energy=True, timeout=None``; keywords override ``options``).

    Raises :class:`UserFileError` when the file cannot be used, :class:`ValueError` for bad arguments.
    """
    if options is None:
        options = CheckOptions(**keywords)
    elif keywords:
        options = dataclasses.replace(options, **keywords)
    return run_check(arm, file, options)


def run_check(arm: str | ArmSpec | Any, file: Any, options: CheckOptions) -> CheckResult:
    """:func:`check` with its options made: sample, evaluate, compare, check the structure, explain, diagnose."""
    t0 = time.perf_counter()
    spec = load_arm(arm)
    model = load_model(file, spec.n, options.function_names, timeout=options.timeout)
    rng = np.random.default_rng(options.seed)
    sample = draw_sample(spec, options.states, options.random_params, rng)
    sink = io.StringIO()
    check_link_count(model, spec, sample, sink)  # a file for another number of links: say so first
    params_note, sample = _parameters_read(model, sample, sink)
    values = evaluate_and_compare(model, sink, sample)
    structure = structure_checks(model, sink, spec, sample, values, options.energy, rng)
    m_symmetric = all(s.status == CheckStatus.OK for s in structure if s.name == "M symmetric")
    summary, findings = entry_summary(values, sample, m_symmetric)

    found = explanations(values.compared, sample.sets, sample.Q)
    if mostly_wrong(summary) and options.compare_arms:
        quick = CheckOptions(states=min(options.states, 200), random_params=QUICK_RANDOM_PARAMS,
                             names=options.function_names, seed=options.seed, energy=False, compare_arms=False)
        match = matching_arm(spec, lambda cand: run_check(cand, file, quick).passed, quick.states)
        if match is not None:
            found.insert(0, match)
    found, findings = attach(found, findings)
    general = None
    if options.compare_arms:              # the quick check of the wrong-arm search diagnoses nothing
        findings, general = diagnose_findings(model, sink, sample, values.compared, findings, options.seed)

    fr = check_friction(model, sample, sink, options.function_names, options.seed)
    summary, findings = summary + fr.rows, findings + fr.findings
    failed = any(s.status == CheckStatus.FAILED for s in structure)
    wrong = any(f.status == EntryStatus.WRONG for f in findings) or failed
    return CheckResult(
        arm=spec.name, arm_spec=spec.to_dict(), file=str(file), n=spec.n,
        functions=model.describe() | ({"F": fr.signature} if fr.signature else {}),
        c_form=model.c_kind, states=options.states, random_params=len(sample.sets) - 1, seed=options.seed,
        verdict=CheckVerdict.WRONG if wrong else CheckVerdict.CORRECT, findings=findings, entries=summary,
        structure=structure, notes=values.notes + _notes(model, sink, sample, findings, general, params_note)
        + ([fr.note] if fr.note else []),
        hints=[], param_sets=[ps.to_dict() for ps in sample.sets], runtime_s=time.perf_counter() - t0,
        explanations=found, params_note=params_note, language=getattr(model, "language", "python"),
        checks=count_checks(values.compared | ({"F": fr.compared} if fr.compared else {}), structure),
        friction=fr.to_dict())


def count_checks(compared: dict, structure) -> dict[str, int]:
    """Values compared per quantity (entries × states × parameter sets: the size of its error array), structural
    checks made (ok, failed or note; not skipped), and their total."""
    out = {quantity: int(np.asarray(cmp_.err).size) for quantity, cmp_ in compared.items()}
    out["structure"] = sum(1 for s in structure if s.status != CheckStatus.SKIPPED)
    out["total"] = sum(out.values())
    return out


def _parameters_read(model: Equations, sample: Sample, sink: io.StringIO) -> tuple[str, Sample]:
    """("", ``sample``), or, when some function does not read p (parameters written as numbers, so other arms'
    parameters cannot reach the equations), the note that says so and the sample at the arm's own parameters."""
    no_p = roles_ignoring_p(model, sample, sink)
    if not no_p:
        return "", sample
    which = ", ".join(model.signature(r) for r in no_p)
    return (f"{which} {'does' if len(no_p) == 1 else 'do'} not read p (parameters written as numbers), so random "
            "parameter sets cannot apply: everything is checked at the arm's own parameters only"), sample.only_own()


def _notes(model: Equations, sink: io.StringIO, sample: Sample, findings: list[EntryFinding],
           general: GeneralSets | None, params_note: str) -> list[str]:
    """The notes that follow the comparison's: the link kinds the random sets keep, the general sets used to
    name terms, the risk of testing the arm's own parameters only, and what the file printed."""
    notes = []
    kinds, n = sample.kinds, len(sample.kinds)
    if any(k != "general" for k in kinds) and findings:
        notes.append("random parameter sets keep each link's kind (" + ", ".join(
            f"link {i + 1}: {k}" for i, k in enumerate(kinds)) + "); for a rod Lc = L/2 and J = mL^2/12 follow L "
            "and m, for a point mass Lc = L and J = 0")
    if general is not None and any(f.terms for f in findings):
        notes.append(f"terms are named in the parameters your file uses: {len(general.sets)} more parameter sets "
                     f"with {free_list(general.read, n)} independent of L and m (your file reads them) serve only "
                     "to tell, e.g., m3*L2*Lc3 from 1/2*m3*L2*L3; they do not decide what is wrong")
    own_special = special_values(sample.own)
    if len(sample.sets) == 1 and not params_note:
        msg = ("--random-params 0: only the arm's own parameters were tested, so an error hidden by their "
               "special values would go unnoticed")
        if own_special:
            msg += f" (this arm has {'; '.join(text for _, text in own_special)})"
        notes.append(msg)
    g = sink.getvalue() + "".join(line + "\n" for line in getattr(model, "printed", []))
    if g:
        lines = g.splitlines()
        notes.append(f"your file printed {len(lines)} lines while being checked (not shown; first: {lines[0][:80]!r})")
    return notes

