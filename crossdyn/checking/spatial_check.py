"""``crossdyn check`` on a spatial textbook arm (issue 27): revolute and prismatic joints, spatial axes.

The user's file defines ``M(q, p)``, ``C(q, qd, p)`` (the n×n matrix or the vector C q̇) and ``G(q, p)`` as for a
planar arm (:mod:`crossdyn.checking.checker`), with ``p`` the arm's general parameters by name
(:mod:`crossdyn.checking.spatial_arms`: ``p.L2``, ``p.d1``, ``p.g``, ``p.m2``, ``p.cz2``, ``p.Ixx2``, …; in MATLAB
a struct with the same fields).  Steps:

1. N random states (revolute q in [−π, π], prismatic q in the arm's range, q̇ in [−2, 2]) and K random valid
   parameter sets besides the arm's own (:func:`~crossdyn.checking.spatial_arms.random_values`: physically
   consistent inertias); functions that do not read p (the arm's numbers written in, ``derive --numeric``) are
   checked at the arm's own parameters only, as on a planar arm
   (:func:`~crossdyn.checking.evaluation.parameters_read`);
2. the user's M, C q̇ (and the C matrix), G at every state × set, against crossdyn's spatial reference
   (:mod:`crossdyn.spatial`: CRBA for M, RNEA for C q̇ + G and G, on the arm's RobotModel), entry by entry: an entry
   is wrong at a set when its error exceeds :data:`~crossdyn.checking.results.RTOL` × the quantity's largest
   magnitude there (:func:`crossdyn.checking.entries.compare`, the planar rule); a C matrix entry that differs from
   the Christoffel one while C q̇ is right is a note (C is not unique);
3. structure of the user's functions alone (:mod:`crossdyn.checking.spatial_structure`);
4. every wrong entry named to the term in the general parameters (:mod:`crossdyn.checking.spatial_terms`) from the
   symbolic Lagrangian collected per inertial parameter (:mod:`crossdyn.analytic.spatial_symbolic`).

These are :class:`SpatialPlant`'s model and stages in the one check pipeline
(:func:`crossdyn.checking.checker.run_check`, :mod:`crossdyn.checking.plant`); the planar-only stages (link count,
whole-quantity explanations, wrong arm, general parameter sets, friction) are not among them.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from crossdyn.checking.evaluation import QUANTITY_ROLE
from crossdyn.checking.options import CheckOptions
from crossdyn.checking.plant import Found, Run
from crossdyn.checking.results import CheckResult, EntryStatus
from crossdyn.checking.sampling import Sample
from crossdyn.checking.spatial_arms import SpatialArm, load_spatial, random_values
from crossdyn.checking.spatial_eval import draw_states, reference
from crossdyn.checking.spatial_naming import name_findings
from crossdyn.checking.spatial_structure import SPATIAL_STRUCTURE

SPATIAL_STATES = 300
"""Default random states for a spatial arm (``--states``): with :data:`SPATIAL_RANDOM_PARAMS` sets, 3,300
evaluations of each function, within the 3 s check budget of issue 27 in Octave too."""
SPATIAL_RANDOM_PARAMS = 10
PROBE_SEED = 39
"""The random stream of :meth:`SpatialPlant.probe_set` (the other parameter set that tells a function that ignores
p; any seed does: every parameter of a random set differs from the arm's own)."""


def name_terms(run: Run, found: Found) -> Found:
    """Every wrong entry named to the term in the general parameters, and the notes on how; not the entries of a
    function without p (the arm's numbers written in: its terms cannot be told apart in the parameters)."""
    model = run.model
    no_p = [r for r in ("M", "C", "G") if model.has(r) and not model.takes_p(r)]
    wrong = [f for f in found.findings if f.status == EntryStatus.WRONG]
    nameable = [f for f in wrong if QUANTITY_ROLE[f.quantity] not in no_p]
    skipped = [r for r in no_p if any(QUANTITY_ROLE[f.quantity] == r for f in wrong)]
    notes = [f"terms are not named for {', '.join(model.signature(r) for r in skipped)}: without p (the arm's "
             "numbers written in) their terms cannot be told apart in the general parameters"] if skipped else []
    if not nameable:
        return dataclasses.replace(found, notes=found.notes + notes)
    named, more = name_findings(model, run.plant.arm, nameable, run.options.seed, run.sink)  # type: ignore[attr-defined]
    return dataclasses.replace(found, findings=[named.get(f.entry, f) for f in found.findings],
                               notes=found.notes + more + notes)


@dataclass(frozen=True)
class SpatialPlant:
    """A spatial arm (:class:`SpatialArm`) for :func:`crossdyn.checking.checker.run_check`: p by name, the
    reference of :mod:`crossdyn.spatial`, the structure of :data:`SPATIAL_STRUCTURE`, term naming."""

    arm: SpatialArm
    kind = "spatial"
    prepare = ()
    structure = SPATIAL_STRUCTURE
    stages = (name_terms,)

    @property
    def name(self) -> str:
        return self.arm.name

    @property
    def n(self) -> int:
        return self.arm.n

    @property
    def params(self) -> SpatialArm:
        return self.arm

    def sample(self, options: CheckOptions, rng: np.random.Generator) -> Sample[dict]:
        """States (prismatic q in the arm's range), then the arm's own values and random valid sets."""
        Q, QD = draw_states(self.arm, options.states, rng)
        return Sample(Q, QD, [dict(self.arm.values)] + [random_values(self.arm, rng)
                                                         for _ in range(options.random_params)])

    def probe_set(self, own: dict) -> dict:
        """A random valid set, gravity varied too (:func:`random_values`, its own fixed stream
        :data:`PROBE_SEED`: the check's sample is drawn the same whether or not the file reads p)."""
        return random_values(self.arm, np.random.default_rng(PROBE_SEED), vary_gravity=True)

    def reference(self, sample: Sample, user: dict[str, np.ndarray]) -> tuple[dict, dict, list[str]]:
        """CRBA's M, RNEA's C q̇ and G, and the Christoffel C matrix from the symbolic model when the user gives a
        matrix (without one in time, the user's C matrix is dropped with a note: C q̇ is compared)."""
        ref = reference(self.arm, sample.sets, sample.Q, sample.QD)
        notes: list[str] = []
        if "C" in user:
            from crossdyn.checking.spatial_naming import christoffel

            try:
                ref["C"] = christoffel(self.arm, sample.sets, sample.Q, sample.QD)
            except NotImplementedError as e:     # no symbolic model in time: C q̇ is compared, the C matrix is not
                user = {k: v for k, v in user.items() if k != "C"}
                notes.append(f"the C matrix is not compared entry by entry ({e}); C qd is")
        return user, ref, notes

    def missing_note(self, role: str) -> str:
        return f"your file defines no {role}: {({'M': 'M', 'C': 'C qd', 'G': 'G'})[role]} not checked"

    def arm_spec(self) -> dict[str, Any]:
        return self.arm.to_dict()

    def param_sets(self, sets: list) -> list[dict[str, Any]]:
        labels = self.arm.labels(sets)
        return [{"index": k, "label": labels[k], "values": {name: float(v[name]) for name in self.arm.layout}}
                for k, v in enumerate(sets)]


def check_spatial(arm, file, options: CheckOptions | None = None) -> CheckResult:
    """Check ``file`` against the spatial arm ``arm`` (a preset name, a spec or a :class:`SpatialArm`) with the
    spatial defaults (:data:`SPATIAL_STATES`, :data:`SPATIAL_RANDOM_PARAMS`) unless ``options`` are given: the one
    pipeline, :func:`crossdyn.checking.checker.run_check`.  Raises
    :class:`~crossdyn.equations.protocol.UserFileError` when the file cannot be used."""
    from crossdyn.checking.checker import run_check

    options = options or CheckOptions(states=SPATIAL_STATES, random_params=SPATIAL_RANDOM_PARAMS)
    return run_check(load_spatial(arm), file, options)


def with_defaults(options: CheckOptions, states_given: bool, params_given: bool) -> CheckOptions:
    """``options`` with the spatial defaults where the caller left the planar ones."""
    return replace(options, states=options.states if states_given else SPATIAL_STATES,
                   random_params=options.random_params if params_given else SPATIAL_RANDOM_PARAMS)
