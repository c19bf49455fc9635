"""Moved to crossdyn.analytic.laws.contact (the law) and crossdyn.analytic.references.contact (the reference) (issue 22).

``crossdyn.analytic.contact`` keeps working (the docs document it): it re-exports the names it held, with a
DeprecationWarning."""
import warnings

from crossdyn.analytic.laws.contact import DEFAULT_SLIP_VELOCITY, FRICTION_STABILITY, ContactLaw, effective_mass, min_tangent_mass
from crossdyn.analytic.references.contact import EVENT_KINDS, N_LEDGER, ContactRun, fixed_step_contact, simulate_contact

__all__ = ["DEFAULT_SLIP_VELOCITY", "FRICTION_STABILITY", "ContactLaw", "effective_mass", "min_tangent_mass", "EVENT_KINDS", "N_LEDGER", "ContactRun", "fixed_step_contact", "simulate_contact"]

warnings.warn(
    "crossdyn.analytic.contact moved to crossdyn.analytic.laws.contact (the law) and crossdyn.analytic.references.contact (the reference)",
    DeprecationWarning, stacklevel=2)
