"""What the per-phenomenon steps of a comparison read (:class:`Context`) and what they add (:class:`Outcome`)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numpy as np

from crossdyn.comparison.options import CompareOptions
from crossdyn.comparison.result import EngineRun
from crossdyn.models.spec import ArmSpec
from crossdyn.native.experiment import Experiment


@dataclass(frozen=True)
class Context:
    """A comparison after its engines ran."""

    spec: ArmSpec
    """The arm the engines were built with (f_c = 0 in applied friction mode)."""
    user_spec: ArmSpec
    """The arm as given."""
    opt: CompareOptions
    profile: Any
    q0: np.ndarray
    qd0: np.ndarray
    reference: Any
    runs: Mapping[str, EngineRun]
    engines: tuple[str, ...]
    friction: Any = None
    """The applied regularised Coulomb law, or None."""
    dense: Any = None
    """The convergence study's dense free-motion reference, or None."""
    say: Callable[[str], None] = print
    native_contact: Any = None
    """The native contact work started beside the engines' runs
    (:func:`crossdyn.comparison.phenomenon_contact.start_native`: a :class:`crossdyn.processes.Forked`), or None:
    :func:`~crossdyn.comparison.phenomenon_contact.native_section` then computes it."""

    def experiment(self, spec: ArmSpec | None = None, profile: Any = None) -> Experiment:
        """The comparison's run as a native :class:`~crossdyn.native.experiment.Experiment` (of ``spec``, by
        default the engines' arm, with the applied Coulomb law ``friction`` every run of that arm gets; driven by
        ``profile``, by default the comparison's).  Another ``spec`` (e.g. the arm as given, f_c kept) gets no
        applied law."""
        own = spec is None or spec is self.spec
        return Experiment(self.spec if own else spec, profile if profile is not None else self.profile,
                          self.q0, self.qd0, self.opt.duration, self.opt.dt, self.friction if own else None)


@dataclass
class Outcome:
    """What the phenomena add to the document: sections, notes, failures, and the side runs kept for plots."""

    sections: dict = field(default_factory=dict)
    notes: list = field(default_factory=list)
    failures: list = field(default_factory=list)
    inconclusive: list = field(default_factory=list)
    """One line per group or section that could not be judged: why, and how to exercise it."""
    not_exercised: list = field(default_factory=list)
    """One line per declared phenomenon the run never reached, not asked about: what it reached, how to reach it."""
    native_limit_runs: dict = field(default_factory=dict)
    stick_slip_timelines: dict = field(default_factory=dict)
    native_contact_runs: dict = field(default_factory=dict)
    native_contact_reference: Any = None
