"""The switched and regularised laws crossdyn applies to an arm: a torque or force from the state.

* :mod:`.limit` — the compliant joint-limit law τ_lim(q, q̇) (:class:`LimitLaw`);
* :mod:`.friction` — Coulomb joint friction as applied to every engine, φ = −f_c ⊙ tanh(q̇ / v_s)
  (:class:`FrictionLaw`);
* :mod:`.contact` — the tip sphere's spring–damper contact with half-plane obstacles (:class:`ContactLaw`) and the
  arm's inertia felt at the tip (:func:`effective_mass`).

Their event-exact references are in :mod:`crossdyn.analytic.references`.
"""
from crossdyn.analytic.laws.contact import (
    DEFAULT_SLIP_VELOCITY, FRICTION_STABILITY, ContactLaw, effective_mass, min_tangent_mass,
)
from crossdyn.analytic.laws.friction import STABILITY_NUMBER, V_S_MIN, FrictionLaw, max_friction_rate, without_friction
from crossdyn.analytic.laws.limit import LimitLaw

__all__ = [
    "DEFAULT_SLIP_VELOCITY", "FRICTION_STABILITY", "STABILITY_NUMBER", "V_S_MIN", "ContactLaw", "FrictionLaw",
    "LimitLaw", "effective_mass", "max_friction_rate", "min_tangent_mass", "without_friction",
]
