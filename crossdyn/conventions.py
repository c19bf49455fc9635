"""Units and conventions, written down once and held by every part of crossdyn.

* **Units**: SI throughout — metres, kilograms, seconds, newtons, newton-metres,
  radians (never degrees), joules.  A joint's quantities are in its own unit: a revolute joint's q in rad
  (q̇ rad/s, q̈ rad/s², τ N m), a prismatic joint's in m (m/s, m/s², τ a force in N): :func:`joint_unit`.
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
from __future__ import annotations

from dataclasses import dataclass

DEFAULT_GRAVITY = (0.0, -9.81, 0.0)
"""Default gravity vector (m/s²), world frame."""

MAX_LINKS = 32
"""Largest number of links crossdyn accepts in one arm."""

JOINT_UNITS = {"position": ("rad", "m"), "velocity": ("rad/s", "m/s"), "acceleration": ("rad/s^2", "m/s^2"),
               "effort": ("N m", "N")}
"""A joint quantity's unit on a revolute joint (q in radians) and on a prismatic joint (q in metres): q, q̇, q̈ and
the joint's effort τ (a torque about a revolute axis, a force along a prismatic one)."""


def joint_unit(rotates: bool, quantity: str = "position") -> str:
    """The unit of a joint's ``quantity`` (:data:`JOINT_UNITS`): ``rad`` for a revolute joint's q, ``m`` for a
    prismatic joint's."""
    return JOINT_UNITS[quantity][0 if rotates else 1]


def by_unit(values, rotates, quantity: str = "position") -> dict[str, float | None]:
    """The largest of per-joint ``values`` per unit of ``quantity``: ``{"rad": max over the revolute joints, "m":
    max over the prismatic ones}``, the revolute unit first, only the units of the joints present (a value None,
    not computed, is left out; a unit whose values are all None maps to None).  Errors in different units are
    never folded into one maximum."""
    out: dict[str, float | None] = {}
    for rot in (True, False):
        picked = [v for v, r in zip(values, rotates, strict=True) if r is rot]
        if picked:
            known = [v for v in picked if v is not None]
            out[joint_unit(rot, quantity)] = max(known) if known else None
    return out


def mass_matrix_unit(rotates_i: bool, rotates_j: bool) -> str:
    """The unit of the mass-matrix entry M_ij = ∂τ_i/∂q̈_j: kg m² between two revolute joints, kg m between a
    revolute and a prismatic one, kg between two prismatic joints."""
    return {2: "kg m^2", 1: "kg m", 0: "kg"}[int(rotates_i) + int(rotates_j)]


def mass_matrix_by_unit(per_entry, rotates) -> dict[str, float | None]:
    """The largest entry of ``per_entry`` (an n × n nested list, e.g. max |M − M_ref| per entry) per unit
    (:func:`mass_matrix_unit`), in the order kg m², kg m, kg; only the units present."""
    found: dict[str, list[float]] = {}
    for i, row in enumerate(per_entry):
        for j, v in enumerate(row):
            found.setdefault(mass_matrix_unit(rotates[i], rotates[j]), []).extend([] if v is None else [v])
    return {u: (max(found[u]) if found[u] else None) for u in ("kg m^2", "kg m", "kg") if u in found}


UNIT_WORDS = {"position": ("rad", "m"), "acceleration": ("rad/s²", "m/s²")}
"""How a reason line writes a joint quantity's unit (the terminal's words: ``rad/s²`` where ``summary.json``'s
``unit`` keys say ``rad/s^2``)."""


@dataclass(frozen=True)
class JointUnits:
    """The units a verdict's reason line gives its joint figures, from the arm's joint kinds (``rotates``: True per
    revolute joint, False per prismatic one; ``names``: the joints' names).

    A figure that is one joint's (the largest error over the joints) takes that joint's unit
    (:meth:`at`); on an arm with both kinds it also names the joint (``3.2e-04 m (joint 'finger1')``).  A figure
    over every joint (a tolerance, a bound, a start perturbation applied to each q) takes :meth:`word`: ``rad``
    on an all-revolute arm, ``m`` on an all-prismatic one, ``rad or m`` where both are present (each joint's
    error is judged against it in its own unit).  With no joints given (the planar arms) every word is ``rad``,
    as it always was."""

    rotates: tuple[bool, ...] = ()
    names: tuple[str, ...] = ()

    @property
    def mixed(self) -> bool:
        """True where the arm has revolute and prismatic joints both."""
        return True in self.rotates and False in self.rotates

    def word(self, quantity: str = "position") -> str:
        """The unit of a figure over every joint: ``rad`` (no joint prismatic), ``m`` (all prismatic) or
        ``rad or m`` (both; ``rad/s² or m/s²`` for an acceleration)."""
        rot, lin = UNIT_WORDS[quantity]
        if self.mixed:
            return f"{rot} or {lin}"
        return lin if self.rotates and not any(self.rotates) else rot

    def at(self, per_joint, quantity: str = "position") -> str:
        """The unit of a figure that is the largest of ``per_joint`` (one value per joint; None entries
        skipped): that joint's unit, and on an arm of both kinds its name too (``m (joint 'finger1')``).
        Without per-joint values of the arm's length: :meth:`word`."""
        values = list(per_joint) if per_joint is not None else []
        if not self.mixed or len(values) != len(self.rotates):
            return self.word(quantity)
        known = [(v, j) for j, v in enumerate(values) if v is not None and v == v]
        if not known:
            return self.word(quantity)
        j = max(known)[1]
        unit = UNIT_WORDS[quantity][0 if self.rotates[j] else 1]
        return f"{unit} (joint {self.names[j]!r})" if j < len(self.names) else unit


ALL_REVOLUTE = JointUnits()
"""The planar arms' units: every joint figure in rad (the default of the reason lines)."""
