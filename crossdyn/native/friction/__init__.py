"""Coulomb friction, natively: each engine's own stick–slip (MuJoCo's frictionloss, PyBullet's velocity motor,
DART's velocity constraint) against the set-valued reference
(:func:`crossdyn.analytic.references.stick_slip.simulate_stick_slip`).

* :mod:`~crossdyn.native.friction.episodes`: stick intervals of a run, creep while stuck;
* :mod:`~crossdyn.native.friction.softness`: the creep floor (side run at the stiffest settings);
* :mod:`~crossdyn.native.friction.runs`: every engine run natively (and at dt/2) against the reference;
* :mod:`~crossdyn.native.friction.verdict`: the verdict (PASS/FAIL per joint and quantity) and its lines.

No calibration: friction has none.
"""
from crossdyn.native.experiment import Phenomenon
from crossdyn.native.friction.episodes import V_STICK, intervals, measure_joint, stuck_mask, stuck_intervals
from crossdyn.native.friction.runs import characterise_friction
from crossdyn.native.friction.softness import creep_floor, stiffest_friction
from crossdyn.native.friction.verdict import failures, judge

__all__ = ["PHENOMENON", "V_STICK", "applies", "characterise_friction", "creep_floor", "failures", "intervals",
           "judge", "measure_joint", "native_variant", "stiffest_friction", "stuck_intervals", "stuck_mask"]


def applies(spec) -> bool:
    """Some joint has Coulomb friction f_c > 0."""
    return bool(spec.has_friction)


def native_variant(name: str) -> str | None:
    """The engines whose own friction is characterised: MuJoCo and PyBullet, by their plain names (without
    crossdyn's applied law they keep f_c natively)."""
    return name if name in ("mujoco", "pybullet") else None


PHENOMENON = Phenomenon("friction", applies, native_variant, episodes=stuck_intervals,
                        characterise=characterise_friction, judge=judge, failures=failures)
