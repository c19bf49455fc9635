"""Joint limits, natively: each engine's own limit (MuJoCo's soft constraint, PyBullet's, DART's and Drake's
rigid stops) against crossdyn's compliant limit law τ_lim = −k(q − hi) − c q̇ (clipped).

* :mod:`~crossdyn.native.limits.episodes`: per limit contact of a run (penetration, peak torque, time in
  contact, rebound, energy absorbed; a native run's limit torque inferred by inverse dynamics);
* :mod:`~crossdyn.native.limits.softness`: held-load side runs, a native stop's give;
* :mod:`~crossdyn.native.limits.calibration`: MuJoCo's solreflimit/solimplimit and PyBullet's
  jointLimitForce/erp fitted to the law;
* :mod:`~crossdyn.native.limits.reference`: the event-exact continuous law a native run is judged against;
* :mod:`~crossdyn.native.limits.runs`: the native engine names, applied vs native runs;
* :mod:`~crossdyn.native.limits.verdict`: the verdict (PASS/FAIL per contact and quantity) and its lines.
"""
from crossdyn.native.experiment import Phenomenon
from crossdyn.native.limits.calibration import calibrate_mujoco_limits, calibrate_pybullet_limits
from crossdyn.native.limits.episodes import QUANTITIES, characterise
from crossdyn.native.limits.reference import continuous_reference
from crossdyn.native.limits.runs import characterise_native, native_variant
from crossdyn.native.limits.verdict import failures, judge, judge_native_run

__all__ = ["PHENOMENON", "QUANTITIES", "applies", "calibrate_mujoco_limits", "calibrate_pybullet_limits",
           "characterise", "characterise_native", "continuous_reference", "failures", "judge", "judge_native_run",
           "native_variant"]


def applies(spec) -> bool:
    """The arm has a compliant limit law on some joint."""
    return bool(spec.has_limit_law)


PHENOMENON = Phenomenon("limits", applies, native_variant, episodes=characterise, characterise=None,
                        judge=judge_native_run, failures=failures,
                        calibrate={"mujoco": calibrate_mujoco_limits, "pybullet": calibrate_pybullet_limits})
