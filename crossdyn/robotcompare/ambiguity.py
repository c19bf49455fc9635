"""An engine's departure that the file's own ambiguity explains: judged INCONCLUSIVE, naming the ambiguity and the
engine's reading, never FAIL.

A robot file can be read in more than one way where it writes what no rigid body has (a massless link with an
inertia, principal moments off the triangle inequality); the reader records each such link with the readings engines
are known to take (:mod:`crossdyn.robots.ambiguity`).  When an engine's static groups (inverse dynamics, mass
matrix) FAIL on such a file, :func:`reading_of` evaluates crossdyn's reference on the model with each combination
of readings (:func:`crossdyn.robots.ambiguity.combinations`, the fewest links read otherwise first) at the same
random states, and takes the first whose ID and M agree with the engine's within the groups' own tolerances (the
rule that judged them): the engine holds that reading.  :func:`judged_ambiguous` then turns each FAIL group of that
engine into INCONCLUSIVE, quoting the reading and the agreement ("drake-rk4 reads panda_link8 and panda_grasptarget
as a 1 kg sphere of water density …: its ID and M match crossdyn's model with that reading to 3.6e-16 of their
scales").  The driven run, its energy balance and forward dynamics follow from the model the engine holds, so they
are not judged either.  Where no combination agrees, the groups stay FAIL: the departure is not the ambiguity's.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from crossdyn.comparison.groups.static import StaticValues
from crossdyn.comparison.references import StaticStates
from crossdyn.comparison.result import MetricResult, judge
from crossdyn.robots.ambiguity import (Ambiguity, Reading, ambiguity_words, choice_words, combinations,
                                       with_readings)
from crossdyn.robots.model import RobotModel
from crossdyn.status import Verdict

STATIC = ("inverse_dynamics", "mass_matrix")
"""The groups whose tolerances decide whether the engine holds a reading (τ and M at the random states)."""


@dataclass(frozen=True)
class ReadingMatch:
    """The combination of readings an engine's ID and M agree with, and by how much (relative to the reference's
    largest |τ| and |M| at the states)."""

    choice: tuple[tuple[Ambiguity, Reading], ...]
    id_rel: float
    m_rel: float

    def words(self, engine: str) -> str:
        """What the engine reads, the agreement, and the file's ambiguity it is."""
        return (f"{engine} reads {choice_words(self.choice)}, where {ambiguity_words(self.choice)}: its ID and M "
                f"match crossdyn's model with that reading to {max(self.id_rel, self.m_rel):.2g} of their scales, "
                "so it is not judged against the file as written")


def _tolerance(group: MetricResult | None, key: str) -> float | None:
    value = None if group is None else group.values.get(key)
    return None if value is None else float(value)


def reading_of(model: RobotModel, st: StaticStates, values: StaticValues,
               groups: dict[str, MetricResult]) -> ReadingMatch | None:
    """The first combination of readings of ``model.ambiguities`` under which crossdyn's reference agrees with the
    engine's ID and M at the static states within the ID and M groups' tolerances; None where none does (or the
    file has no ambiguity)."""
    from crossdyn.spatial.fast import crba, rnea  # the compiled kernels, as the static states' reference

    tol_id = _tolerance(groups.get("inverse_dynamics"), "tolerance_nm")
    tol_m = _tolerance(groups.get("mass_matrix"), "tolerance")
    if not model.ambiguities or tol_id is None or tol_m is None:
        return None
    if not (np.all(np.isfinite(values.tau)) and np.all(np.isfinite(values.M))):
        return None
    tau_scale = max(float(np.max(np.abs(st.tau_ref))), 1e-300)
    m_scale = max(float(np.max(np.abs(st.M_ref))), 1e-300)
    for choice in combinations(model.ambiguities):
        alt = with_readings(model, choice)
        err_id = float(np.max(np.abs(np.asarray(rnea(alt, st.q, st.qd, st.qdd, armature=True)) - values.tau)))
        if err_id > tol_id:
            continue
        err_m = float(np.max(np.abs(np.asarray(crba(alt, st.q, armature=True)) - values.M)))
        if err_m <= tol_m:
            return ReadingMatch(choice, err_id / tau_scale, err_m / m_scale)
    return None


def judged_ambiguous(metrics: dict[str, MetricResult], match: ReadingMatch, engine: str) -> dict[str, MetricResult]:
    """``metrics`` with every FAIL group INCONCLUSIVE: the static groups quote the reading (:meth:`ReadingMatch.words`),
    the others say they follow from it."""
    out = {}
    for name, group in metrics.items():
        if group.verdict is not Verdict.FAIL:
            out[name] = group
            continue
        values = dict(group.values)
        departure = values.get("failed_because")
        because = match.words(engine) if name in STATIC else (
            f"{engine} holds another reading of the file's ambiguity (see inverse_dynamics): the {name} group "
            "follows from the model it holds, so it is not judged")
        if departure:
            because += f" (against the file as written: {departure})"
        out[name] = MetricResult(name, judge(values, Verdict.INCONCLUSIVE, group.checks, because))
    return out
