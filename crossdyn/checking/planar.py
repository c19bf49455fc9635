"""A planar arm in the check pipeline (:mod:`crossdyn.checking.plant`): its model and its stages.

The model: :func:`~crossdyn.checking.sampling.draw_sample` (random sets that keep each link's kind), ``p`` a
:class:`~crossdyn.equations.params.UserParams` (:data:`~crossdyn.checking.evaluation.PLANAR_PARAMS`), the analytic
closed form as the reference (:func:`~crossdyn.checking.evaluation.evaluate_reference`; the C matrix up to
:data:`crossdyn.analytic.dynamics.SYMBOLIC_MAX_N` links), the structural checks of
:data:`~crossdyn.checking.structure.PLANAR_STRUCTURE` (energy by an RK4 free swing).

Before the comparison: a file written for another number of links is named as such
(:func:`~crossdyn.checking.evaluation.check_link_count`); functions that do not read p are checked at the arm's own
parameters only (the one rule of :func:`~crossdyn.checking.evaluation.parameters_read`, for every arm).  The stages after the entry summary, in order: whole-quantity explanations
(:mod:`~crossdyn.checking.explanations`), the wrong-arm search (:mod:`~crossdyn.checking.wrong_arm`), the
explained entries marked, term diagnosis over general parameter sets (:mod:`~crossdyn.checking.entry_diagnosis`),
friction (:mod:`~crossdyn.checking.friction`), and the notes on link kinds, general sets and special values.
"""
from __future__ import annotations

import dataclasses
import io
from dataclasses import dataclass
from typing import Any

import numpy as np

from crossdyn import analytic
from crossdyn.checking.entries import mostly_wrong
from crossdyn.checking.entry_diagnosis import diagnose_findings
from crossdyn.checking.evaluation import (
    PLANAR_PARAMS, Equations, ParamsView, check_link_count, evaluate_reference,
)
from crossdyn.checking.explanations import attach, explanations
from crossdyn.checking.friction import check_friction
from crossdyn.checking.general_sets import GeneralSets, free_list
from crossdyn.checking.options import CheckOptions
from crossdyn.checking.plant import Found, Run
from crossdyn.checking.results import EntryFinding
from crossdyn.checking.sampling import Sample, draw_sample, special_values
from crossdyn.checking.structure import PLANAR_STRUCTURE
from crossdyn.checking.wrong_arm import QUICK_RANDOM_PARAMS, matching_arm
from crossdyn.equations.python_file import ROLE_NAMES, ParamSet
from crossdyn.models import ArmSpec


def link_count(model: Equations, plant: Any, sample: Sample, sink: io.StringIO) -> tuple[Sample, str]:
    """A file for another number of links: say so first (:func:`check_link_count` raises)."""
    check_link_count(model, plant.spec, sample, sink)
    return sample, ""


def explain(run: Run, found: Found) -> Found:
    """Whole-quantity mistakes (a factor, a flipped sign, C q̇ + G as C, a transposed C)."""
    return dataclasses.replace(found, explanations=explanations(run.values.compared, run.sample.sets, run.sample.Q,
                                                                 run.sample.QD))


def wrong_arm(run: Run, found: Found) -> Found:
    """When most entries are wrong: the arm (other link kinds, gravity) the file was written for, said first."""
    options = run.options
    if not (mostly_wrong(found.summary) and options.compare_arms):
        return found
    from crossdyn.checking.checker import run_check     # the same pipeline, quick, on each candidate arm

    quick = CheckOptions(states=min(options.states, 200), random_params=QUICK_RANDOM_PARAMS,
                         names=options.function_names, seed=options.seed, energy=False, compare_arms=False)
    match = matching_arm(run.plant.spec, lambda cand: run_check(cand, run.file, quick).passed,  # type: ignore[attr-defined]
                         quick.states)
    return found if match is None else dataclasses.replace(found, explanations=[match, *found.explanations])


def mark_explained(run: Run, found: Found) -> Found:
    """The entries an explanation accounts for get no term-by-term lists."""
    said, findings = attach(found.explanations, found.findings)
    return dataclasses.replace(found, explanations=said, findings=findings)


def diagnose(run: Run, found: Found) -> Found:
    """Every other wrong entry: its terms, their polynomial across the sets, the parameters it depends on wrongly
    (not in the wrong-arm search's quick checks); then the notes on kinds, general sets and special values."""
    general = None
    findings = found.findings
    if run.options.compare_arms:
        findings, general = diagnose_findings(run.model, run.sink, run.sample, run.values.compared, findings,
                                              run.options.seed)
    return dataclasses.replace(found, findings=findings,
                               notes=found.notes + _general_notes(findings, general, len(run.sample.kinds)))


def friction(run: Run, found: Found) -> Found:
    """The file's friction F(qd, p) against crossdyn's, entry by entry (or the note that it was not checked)."""
    fr = check_friction(run.model, run.sample, run.sink, run.options.function_names, run.options.seed)
    return dataclasses.replace(
        found, summary=found.summary + fr.rows, findings=found.findings + fr.findings,
        functions={"F": fr.signature} if fr.signature else {}, compared={"F": fr.compared} if fr.compared else {},
        friction=fr.to_dict(), closing_notes=found.closing_notes + ([fr.note] if fr.note else []))


def context_notes(run: Run, found: Found) -> Found:
    """The notes on the link kinds the random sets keep (first, before the general sets' note of :func:`diagnose`)
    and on testing the arm's own parameters only."""
    notes: list[str] = []
    kinds = run.sample.kinds
    if any(k != "general" for k in kinds) and found.findings:
        notes.append("random parameter sets keep each link's kind (" + ", ".join(
            f"link {i + 1}: {k}" for i, k in enumerate(kinds)) + "); for a rod Lc = L/2 and J = mL^2/12 follow L "
            "and m, for a point mass Lc = L and J = 0")
    notes += found.notes                       # the general sets' note (diagnose) follows the kinds' note
    own_special = special_values(run.sample.own)
    if len(run.sample.sets) == 1 and not found.params_note:
        msg = ("--random-params 0: only the arm's own parameters were tested, so an error hidden by their "
               "special values would go unnoticed")
        if own_special:
            msg += f" (this arm has {'; '.join(text for _, text in own_special)})"
        notes.append(msg)
    return dataclasses.replace(found, notes=notes)


def _general_notes(findings: list[EntryFinding], general: GeneralSets | None, n: int) -> list[str]:
    """The note on the general parameter sets that named terms, when some were named."""
    if general is None or not any(f.terms for f in findings):
        return []
    return [f"terms are named in the parameters your file uses: {len(general.sets)} more parameter sets "
            f"with {free_list(general.read, n)} independent of L and m (your file reads them) serve only "
            "to tell, e.g., m3*L2*Lc3 from 1/2*m3*L2*L3; they do not decide what is wrong"]


@dataclass(frozen=True)
class PlanarPlant:
    """A planar arm (:class:`~crossdyn.models.ArmSpec`) for :func:`crossdyn.checking.checker.run_check`."""

    spec: ArmSpec
    kind = "planar"
    params: ParamsView = PLANAR_PARAMS
    prepare = (link_count,)
    structure = PLANAR_STRUCTURE
    stages = (explain, wrong_arm, mark_explained, diagnose, friction, context_notes)

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def n(self) -> int:
        return self.spec.n

    def sample(self, options: CheckOptions, rng: np.random.Generator) -> Sample[ParamSet]:
        return draw_sample(self.spec, options.states, options.random_params, rng)

    def probe_set(self, own: ParamSet) -> ParamSet:
        """Lengths x1.3, masses x1.7: every link keeps its kind (a rod's Lc = L/2 and J = mL²/12, a point mass's
        Lc = L and J = 0), so a file written for its arm's kind of links runs there too."""
        return ParamSet(-1, own.L * 1.3, own.m * 1.7, own.Lc * 1.3, own.J * 1.7 * 1.3**2, own.b, own.fc, own.gravity)

    def reference(self, sample: Sample, user: dict[str, np.ndarray]) -> tuple[dict, dict, list[str]]:
        """The analytic M, C q̇, G (and the C matrix, up to SYMBOLIC_MAX_N links) of every quantity the user gave."""
        notes: list[str] = []
        want = set(user)
        if "C" in want and self.n > analytic.dynamics.SYMBOLIC_MAX_N:
            want.discard("C")
            notes.append(f"the C matrix is not compared entry by entry: crossdyn's reference C matrix exists up to "
                         f"{analytic.dynamics.SYMBOLIC_MAX_N} links (C qd is compared)")
        ref = evaluate_reference(sample.sets, sample.Q, sample.QD, want | ({"M"} if "C" in want else set()))
        return user, ref, notes

    def missing_note(self, role: str) -> str:
        what = {"M": "M", "C": "C qd", "G": "G"}[role]
        return f"your file defines no {role} (looked for {' / '.join(ROLE_NAMES[role])}): {what} not checked"

    def arm_spec(self) -> dict[str, Any]:
        return self.spec.to_dict()

    def param_sets(self, sets: list) -> list[dict[str, Any]]:
        return [ps.to_dict() for ps in sets]
