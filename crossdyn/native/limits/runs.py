"""Joint limits in native mode: MuJoCo's and PyBullet's own limits set from the spec's law, characterised.

The applied mode (:mod:`crossdyn.drive.runner`) adds τ_lim = −k(q − hi) − c q̇ (clipped) from the engine's state;
natively, MuJoCo gets ``range`` and the direct ``solreflimit = (−k, −c)`` (``mujoco@native_limits=true``,
:func:`crossdyn.models.mjcf.to_mjcf`) and crossdyn's law is left out.  MuJoCo's direct form acts in constraint
space (mujoco #732: its units are scaled by the constraint's effective mass and ``solimplimit``'s impedance), so
it is *not* the N m/rad law: :func:`characterise_native` measures the difference instead of assuming it away.
Only the limits are native: both runs get every other law as the reference does (the applied Coulomb law of
``exp.friction``, the tip contact law, effort saturation).
PyBullet (``pybullet@native_limits=true``) gets the URDF ``<limit lower upper>`` and enforces it with its own
hard limit solver: it has no stiffness or damping to set (its torque cap ``limit_force`` and the world's
``limit_erp`` change it: :func:`crossdyn.native.limits.calibration.calibrate_pybullet_limits`).  Per joint: the largest penetration beyond each
limit, natively and applied, and the largest joint-angle difference between the two runs.
"""
from __future__ import annotations

import numpy as np

from crossdyn.analytic.laws.limit import LimitLaw
from crossdyn.engines import registry
from crossdyn.drive.runner import run_engine
from crossdyn.native.experiment import Experiment, experiment_form
from crossdyn.native.limits.episodes import torque_away_from_limits


def native_variant(name: str) -> str | None:
    """The engine name that runs ``name`` with its own joint limits, or None (a name that already carries other
    options included): the registry's native option (:func:`crossdyn.engines.registry.native_variant`) — MuJoCo
    (``range`` + solreflimit), PyBullet and Drake's discrete plant (URDF limits, ``@native_limits=true``), DART in
    World.step (``@enforce_limits=true``).  Continuous Drake plants ignore limits; dart-rk4 does not step the
    constraint.  A name that already has ``@native_limits=true`` (a limit calibration's rerun string,
    ``mujoco-rk4@native_limits=true@limit_solref=…``) is its own native run."""
    if "@native_limits=true" in name:
        return name
    return None if "@" in name else registry.native_variant(name, "limits")


def _penetration(q: np.ndarray, lo: float, hi: float) -> float:
    return float(max(np.max(q - hi, initial=0.0), np.max(lo - q, initial=0.0)))


@experiment_form("engine")
def characterise_native(exp: Experiment, engine: str = "mujoco-rk4") -> dict:
    """Applied vs native limits for one engine name (``mujoco…`` or ``pybullet``): per joint with a law,
    penetrations, the largest angle difference (rad) and the native run's inferred limit torque away from its
    limits (:func:`crossdyn.native.limits.episodes.torque_away_from_limits`, N m: ~0 when the run has every other
    law the reference has); plus each run's status."""
    spec, profile, q0, qd0, duration = exp.spec, exp.profile, exp.q0, exp.qd0, exp.duration
    with exp.engine(engine) as eng:  # both runs get the applied Coulomb law, if any, as the reference does
        applied = run_engine(eng, profile, q0, qd0, duration)
    with exp.engine(f"{engine}@native_limits=true") as eng:
        native = run_engine(eng, profile, q0, qd0, duration, limit_law=False)
    m = min(len(applied.q), len(native.q))
    law = LimitLaw.of(spec)
    assert law is not None  # the arm has a limit law
    away = torque_away_from_limits(spec, law, native, exp.friction)
    joints = []
    for j, link in enumerate(spec.links):
        if link.limit_stiffness <= 0:
            continue
        lo, hi = link.limits
        joints.append({"joint": j + 1, "k": link.limit_stiffness, "c": link.limit_damping,
                       "penetration_applied_rad": _penetration(applied.q[:, j], lo, hi),
                       "penetration_native_rad": _penetration(native.q[:, j], lo, hi),
                       "max_angle_difference_rad": float(np.max(np.abs(applied.q[:m, j] - native.q[:m, j]))),
                       "native_torque_away_from_limits_nm": away[j]})
    return {"engine": engine, "applied_status": applied.status, "native_status": native.status, "joints": joints}
