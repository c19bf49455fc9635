"""What an arm kind plugs into the one check pipeline (:func:`crossdyn.checking.checker.run_check`).

The driver is the same for every arm: sample states and parameter sets → evaluate the user's functions
(:func:`crossdyn.checking.evaluation.evaluate_user`) and the arm's reference → compare entry by entry
(:func:`crossdyn.checking.entries.evaluate_and_compare`) → structural checks
(:func:`crossdyn.checking.structure.structure_checks`) → the arm's stages (explanations, diagnosis, …) → one
:class:`~crossdyn.checking.results.CheckResult`.  A :class:`Plant` is what differs (in the style of
``scipy.integrate.solve_ivp``'s methods: one driver, the kinds as plug-ins in :data:`crossdyn.checking.checker.PLANTS`):

* its model: how parameter sets are drawn (:meth:`Plant.sample`), reach the user's ``p`` (:attr:`Plant.params`)
  and give the reference values (:meth:`Plant.reference`);
* ``prepare``: steps before the comparison (a planar arm: the link count); then, for every arm, functions that do
  not read p are checked at the arm's own parameters only (:func:`~crossdyn.checking.evaluation.parameters_read`,
  with the plant's :meth:`Plant.probe_set`);
* ``structure``: its structural checks, in the report's order;
* ``stages``: its optional stages after the entry summary (a planar arm: whole-quantity explanations, the wrong-arm
  search, term diagnosis over general parameter sets, friction; a spatial arm: term naming from its symbolic
  model), each a pure function ``(Run, Found) → Found``.

Planar: :class:`crossdyn.checking.planar.PlanarPlant`; spatial: :class:`crossdyn.checking.spatial_check.SpatialPlant`.
"""
from __future__ import annotations

import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from crossdyn.checking.results import EntryFinding, StructuralCheck

if TYPE_CHECKING:
    from crossdyn.checking.entries import Values
    from crossdyn.checking.evaluation import Equations, ParamsView
    from crossdyn.checking.options import CheckOptions
    from crossdyn.checking.sampling import Sample


@dataclass(frozen=True)
class Run:
    """What every structural check and stage reads: the arm's plant, the user's equations, the file, the options,
    the sample, the compared values, the sink of what the file printed, the check's random generator and (for the
    stages) the structural checks made."""

    plant: Plant
    model: Equations
    file: Any
    options: CheckOptions
    sample: Sample
    values: Values
    sink: io.StringIO
    rng: np.random.Generator
    structure: list[StructuralCheck] = field(default_factory=list)


@dataclass(frozen=True)
class Found:
    """What the stages build up, in order: the entry summary rows, the findings, the explanations said first,
    the notes (before the one on what the file printed) and ``closing_notes`` (after it), functions and values
    compared beyond M, C, G (friction's F), the friction record, the parameters note of a file that ignores p."""

    summary: list[dict[str, Any]]
    findings: list[EntryFinding]
    explanations: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    closing_notes: list[str] = field(default_factory=list)
    functions: dict[str, Any] = field(default_factory=dict)
    compared: dict[str, Any] = field(default_factory=dict)
    friction: dict[str, Any] = field(default_factory=dict)
    params_note: str = ""


Prepare = Callable[["Equations", "Plant", "Sample", io.StringIO], "tuple[Sample, str]"]
"""A step before the comparison: (the sample to go on with, a parameters note or "")."""
StructureStep = Callable[[Run], list[StructuralCheck]]
Stage = Callable[[Run, Found], Found]


class Plant(Protocol):
    """One kind of arm as the pipeline sees it (module docstring)."""

    @property
    def kind(self) -> str:
        """"planar" or "spatial"."""

    @property
    def name(self) -> str: ...

    @property
    def n(self) -> int: ...

    @property
    def params(self) -> ParamsView:
        """How a parameter set reaches the user's ``p`` (:func:`~crossdyn.checking.evaluation.evaluate_user`)."""

    @property
    def prepare(self) -> Sequence[Prepare]: ...

    @property
    def structure(self) -> Sequence[StructureStep]: ...

    @property
    def stages(self) -> Sequence[Stage]: ...

    def sample(self, options: CheckOptions, rng: np.random.Generator) -> Sample:
        """The random states and parameter sets (the arm's own first), drawn from ``rng``."""

    def probe_set(self, own: Any) -> Any:
        """A valid parameter set in which every parameter differs from ``own`` (the arm's): where a function that
        takes p but returns the same numbers is found to ignore it
        (:func:`~crossdyn.checking.evaluation.roles_ignoring_p`)."""

    def reference(self, sample: Sample, user: dict[str, np.ndarray]) -> tuple[dict, dict, list[str]]:
        """(the user's values to compare, the reference's, notes on what cannot be compared)."""

    def missing_note(self, role: str) -> str:
        """The note for a role (M, C, G) the file does not define."""

    def arm_spec(self) -> dict[str, Any]:
        """``check.json``'s ``arm_spec``."""

    def param_sets(self, sets: list) -> list[dict[str, Any]]:
        """``check.json``'s ``param_sets``."""
