"""Event-exact references: the arm integrated with a switched law, every switch located and restarted at.

* :mod:`.events` — the loop they share (:func:`integrate_events`: DOP853 with dense output, hold boundaries,
  event roots by Brent's method) and their options (:class:`ReferenceOptions`);
* :mod:`.limits` — the joint-limit law (:func:`simulate_limits`, :func:`rk4_limits`);
* :mod:`.stick_slip` — the set-valued Coulomb law (:func:`simulate_stick_slip`, :func:`rk4_regularised`);
* :mod:`.contact` — the tip sphere's contact law (:func:`simulate_contact`, :func:`fixed_step_contact`).
"""
from crossdyn.analytic.references.contact import (
    ContactOptions, ContactRun, fixed_step_contact, simulate_contact,
)
from crossdyn.analytic.references.events import EventOptions, EventRun, ReferenceOptions, integrate_events
from crossdyn.analytic.references.limits import LimitRun, rk4_limits, simulate_limits
from crossdyn.analytic.references.stick_slip import StickSlipRun, rk4_regularised, simulate_stick_slip

__all__ = [
    "ContactOptions", "ContactRun", "EventOptions", "EventRun", "LimitRun", "ReferenceOptions", "StickSlipRun",
    "fixed_step_contact", "integrate_events", "rk4_limits", "rk4_regularised", "simulate_contact",
    "simulate_limits", "simulate_stick_slip",
]
