"""``crossdyn check``: verify hand-derived M(q), C(q, q̇), G(q) against the analytic reference — one pipeline for
every kind of arm (:func:`run_check`), the kind plugged in as a :mod:`~crossdyn.checking.plant` (:data:`PLANTS`:
a planar arm, :mod:`crossdyn.checking.planar`; a spatial arm, :mod:`crossdyn.checking.spatial_check`).

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

What :func:`check` does for a planar arm, one module per step
-------------------------------------------------------------
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
import importlib
import io
import time
from typing import Any, Unpack

import numpy as np

from crossdyn.checking.entries import entry_name, entry_summary, evaluate_and_compare
from crossdyn.checking.evaluation import QUANTITY_ROLE, Equations, parameters_read
from crossdyn.checking.general_sets import GENERAL_MAX_STATES, GENERAL_SETS
from crossdyn.checking.options import DEFAULT_RANDOM_PARAMS, DEFAULT_STATES, CheckKeywords, CheckOptions
from crossdyn.checking.plant import Found, Plant, Run
from crossdyn.checking.results import (
    ATOL, RTOL, UNITS, CheckResult, CheckStatus, CheckVerdict, EntryFinding, EntryStatus, StructuralCheck,
)
from crossdyn.checking.sampling import free_parameters, link_kinds, perturbed, random_param_sets, special_values
from crossdyn.checking.structure import ENERGY_TOL, structure_checks
from crossdyn.models import PRESETS, ArmSpec, load_arm
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
    """Check the user's file ``file`` against the model of ``arm``: a planar preset, TOML path or spec, or a spatial
    one (preset name, spec file, SpatialArmSpec; its own defaults are :func:`~crossdyn.checking.spatial_check.check_spatial`'s).

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


PLANTS = {"planar": "crossdyn.checking.planar:PlanarPlant", "spatial": "crossdyn.checking.spatial_check:SpatialPlant"}
"""The arm kinds the one pipeline knows, as plug-ins (:mod:`crossdyn.checking.plant`): kind → its plant class
(imported when an arm of that kind is checked: a planar check never loads SymPy's spatial machinery)."""


def plant_of(arm: str | ArmSpec | Any) -> Plant:
    """The plant of ``arm``: a planar spec, preset or TOML file (:class:`~crossdyn.checking.planar.PlanarPlant`),
    or a spatial preset, spec file, SpatialArmSpec or SpatialArm (:class:`~crossdyn.checking.spatial_check.SpatialPlant`)."""
    kind = "planar"
    if not isinstance(arm, ArmSpec) and not (isinstance(arm, str) and arm in PRESETS):
        from crossdyn.checking.spatial_arms import is_spatial

        kind = "spatial" if is_spatial(arm) else "planar"
    module, name = PLANTS[kind].split(":")
    cls = getattr(importlib.import_module(module), name)
    if kind == "spatial":
        from crossdyn.checking.spatial_arms import load_spatial

        return cls(load_spatial(arm))
    return cls(load_arm(arm))


def run_check(arm: str | ArmSpec | Any, file: Any, options: CheckOptions) -> CheckResult:
    """:func:`check` with its options made, for every kind of arm: sample, evaluate, compare, check the structure,
    then the arm's own stages (explanations, diagnosis, …), one :class:`CheckResult`."""
    t0 = time.perf_counter()
    plant = plant_of(arm)
    model = load_model(file, plant.n, options.function_names, timeout=options.timeout)
    rng = np.random.default_rng(options.seed)
    sample = plant.sample(options, rng)
    sink = io.StringIO()
    params_note = ""
    for prepare in (*plant.prepare, parameters_read):    # functions that ignore p: at the arm's own parameters
        sample, note = prepare(model, plant, sample, sink)
        params_note = params_note or note
    values = evaluate_and_compare(model, plant, sink, sample)
    run = Run(plant, model, file, options, sample, values, sink, rng)
    run = dataclasses.replace(run, structure=structure_checks(run))
    m_symmetric = all(s.status == CheckStatus.OK for s in run.structure if s.name == "M symmetric")
    found = Found(*entry_summary(values, sample, m_symmetric), params_note=params_note)
    for stage in plant.stages:
        found = stage(run, found)
    return _result(run, found, time.perf_counter() - t0)


def _result(run: Run, found: Found, runtime_s: float) -> CheckResult:
    """The one result of both arm kinds: verdict WRONG when an entry is wrong or a structural check failed."""
    plant, model, options, sets = run.plant, run.model, run.options, run.sample.sets
    failed = any(s.status == CheckStatus.FAILED for s in run.structure)
    wrong = any(f.status == EntryStatus.WRONG for f in found.findings) or failed
    return CheckResult(
        arm=plant.name, arm_spec=plant.arm_spec(), file=str(run.file), n=plant.n,
        functions=model.describe() | found.functions, c_form=model.c_kind, states=options.states,
        random_params=len(sets) - 1, seed=options.seed, verdict=CheckVerdict.WRONG if wrong else CheckVerdict.CORRECT,
        findings=found.findings, entries=found.summary, structure=run.structure,
        notes=run.values.notes + found.notes + _printed(model, run.sink) + found.closing_notes, hints=[],
        param_sets=plant.param_sets(sets), runtime_s=runtime_s, explanations=found.explanations,
        params_note=found.params_note, language=getattr(model, "language", "python"),
        checks=count_checks(run.values.compared | found.compared, run.structure), friction=found.friction,
        blocked_attempts=tuple(getattr(model, "blocked", ())))


def count_checks(compared: dict, structure) -> dict[str, int]:
    """Values compared per quantity (entries × states × parameter sets: the size of its error array), structural
    checks made (ok, failed or note; not skipped), and their total."""
    out = {quantity: int(np.asarray(cmp_.err).size) for quantity, cmp_ in compared.items()}
    out["structure"] = sum(1 for s in structure if s.status != CheckStatus.SKIPPED)
    out["total"] = sum(out.values())
    return out


def _printed(model: Equations, sink: io.StringIO) -> list[str]:
    """The note on what the file printed while being checked (its prints, Octave's lines), if it printed."""
    g = sink.getvalue() + "".join(line + "\n" for line in getattr(model, "printed", []))
    if not g:
        return []
    lines = g.splitlines()
    return [f"your file printed {len(lines)} lines while being checked (not shown; first: {lines[0][:80]!r})"]
