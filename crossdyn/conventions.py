"""Units and conventions, written down once and held by every part of crossdyn.

* **Units**: SI throughout — metres, kilograms, seconds, newtons, newton-metres,
  radians (never degrees), joules.
* **Plane and axes**: the arm moves in the x–y plane of the world frame; every
  joint axis is +z.  The base is fixed at the world origin.
* **Joint angles**: ``q[0]`` (q1) is measured from the world +x axis; ``q[1:]``
  (q2 … qn) are *relative* to the previous link.  Counter-clockwise (right-hand
  rule about +z) is positive.  The absolute angle of link i is
  θi = q1 + … + qi.
* **Gravity**: a 3-vector in the world frame, default (0, −9.81, 0) m/s²
  ("down" is −y).  Only its x and y components act on a planar arm.
* **Equation of motion**:  M(q) q̈ + C(q, q̇) q̇ + G(q) + F(q̇) = τ, with G on the
  left-hand side (G = ∂U/∂q) and F the joint friction
  F(q̇) = b ⊙ q̇ + f_c ⊙ sign(q̇) (viscous damping b, Coulomb friction f_c).
  τ is the torque the actuator at joint i applies to link i (and, reacting, to
  link i−1), positive counter-clockwise.
* **Torque sampling**: every simulator receives τ as a zero-order hold: the
  value sampled at the start of a step is held constant over that step.
* **Array shapes**: a state is ``q`` of shape (n,); batched functions accept
  (N, n) and return (N, n) or (N, n, n) without a Python loop over N.
* **Energy**: kinetic T = ½ q̇ᵀ M q̇; potential U = −Σ mᵢ g·p_ci, zero when every
  centre of mass is at the base height; E = T + U.  Drift is reported relative to
  the energy scale Σ mᵢ |g| rᵢ (rᵢ = the reach from the base to link i's centre of
  mass), which does not depend on where U is zero.
"""

DEFAULT_GRAVITY = (0.0, -9.81, 0.0)
"""Default gravity vector (m/s²), world frame."""

MAX_LINKS = 32
"""Largest number of links crossdyn accepts in one arm."""
