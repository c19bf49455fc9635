"""Moved to crossdyn.analytic.laws.friction (the law) and crossdyn.analytic.references.stick_slip (the reference) (issue 22).

``crossdyn.analytic.stick_slip`` keeps working (the docs document it): it re-exports the names it held, with a
DeprecationWarning."""
import warnings

from crossdyn.analytic.laws.friction import STABILITY_NUMBER, V_S_MIN, FrictionLaw, max_friction_rate, without_friction
from crossdyn.analytic.references.stick_slip import StickSlipRun, rk4_regularised, simulate_stick_slip

__all__ = ["STABILITY_NUMBER", "V_S_MIN", "FrictionLaw", "max_friction_rate", "without_friction", "StickSlipRun", "rk4_regularised", "simulate_stick_slip"]

warnings.warn(
    "crossdyn.analytic.stick_slip moved to crossdyn.analytic.laws.friction (the law) and crossdyn.analytic.references.stick_slip (the reference)",
    DeprecationWarning, stacklevel=2)
