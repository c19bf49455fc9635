"""A planar :class:`~crossdyn.models.spec.ArmSpec` compiled to crossdyn's one tree model, a
:class:`~crossdyn.robots.model.RobotModel`: the model :func:`crossdyn.robots.urdf.read_urdf` reads back from the URDF
that :func:`crossdyn.models.urdf.to_urdf` writes, built without writing or parsing it.

The chain (n links, joint i moving link i; SI units, radians):

* base ``world`` (the URDF's root link; its fixed child ``base`` is welded to it, massless);
* body i = ``link{i}``, joint i = ``joint{i}``, ``revolute`` about +z (axis (0, 0, 1), anchor 0), parent i − 1;
* joint i's origin (link i's frame in link i − 1's at q = 0) = T(L_{i−1}, 0, 0), L_0 = 0, no rotation, so that

      X_i(q) = T(L_{i−1}, 0, 0) · Rot_z(q_i),

  the planar convention of :mod:`crossdyn.models.spec` (link i extends along its own x);
* body i's inertial: mass m_i, centre of mass (Lc_i, 0, 0), inertia diag(J_i, J_i, J_i) about it — the isotropic
  tensor every generated file carries, J_i raised to :func:`crossdyn.models.inertia.inertia_floor` for a point mass
  exactly as the files are (:func:`~crossdyn.models.inertia.engine_inertias`); in the plane only Izz = J_i acts;
* an arm with contact ends in the massless ``tip`` link fixed at T(L_n, 0, 0): merged into body n (``Body.merged``);
* per joint: damping b_i, Coulomb friction f_c,i, effort (the spec's, 1e9 N m where it has none, as the URDF
  says), velocity 1e9 rad/s, limits ±1e6 rad (the URDF's "never reached"; ``native_limits=True``: the spec's limits
  on the joints with a compliant limit law, as ``to_urdf(native_limits=True)`` writes them), gear 1.

Two things differ from the model read back from the URDF, on purpose: **armature** is the spec's I_a,i (URDF has no
armature; the MJCF :func:`crossdyn.models.mjcf.to_mjcf` writes it) and **gravity** is the spec's vector (URDF has
none; the reader assumes (0, 0, −9.81)).  The dynamics of this model by :mod:`crossdyn.spatial` are then

    τ = (M(q) + diag(I_a)) q̈ + C(q, q̇) q̇ + G(q),

the analytic model's without its joint friction F(q̇) = b q̇ + f_c sign q̇ (RNEA, CRBA and ABA do not apply
``Joint.damping`` or ``Joint.friction``).

A free function, not an ``ArmSpec`` method (unlike ``SpatialArmSpec.to_robot_model``): it needs the inertia floor
and the URDF's joint limit, whose modules import :mod:`crossdyn.models.spec`, so a method delegating here would close
an import cycle (:mod:`tests.test_layout` counts lazy imports too).  It lives in ``models`` because ``models`` sits
above ``robots`` (level 2.5 over 2): a spec may become a ``RobotModel``; ``robots`` never imports ``models``.
"""
from __future__ import annotations

import numpy as np

from crossdyn.models.inertia import engine_inertias
from crossdyn.models.spec import ArmSpec
from crossdyn.models.urdf import JOINT_LIMIT
from crossdyn.robots.model import Body, Format, Inertial, Joint, JointType, RobotModel
from crossdyn.robots.write_urdf import NO_EFFORT

VELOCITY = 1e9
"""rad/s: every joint's velocity limit (the URDF's ``velocity="1e9"``)."""


def _translation(x: float) -> np.ndarray:
    T = np.eye(4)
    T[0, 3] = x
    return T


def compile_arm(spec: ArmSpec, native_limits: bool = False) -> RobotModel:
    """The :class:`RobotModel` of ``spec`` (module docstring): ``read_urdf(to_urdf(spec, native_limits=…))`` with
    the spec's armature and gravity, built directly."""
    inertias, _ = engine_inertias(spec)
    bodies, joints, offset = [], [], 0.0
    for i, (link, J) in enumerate(zip(spec.links, inertias, strict=True), start=1):
        lo, hi = (link.limits if native_limits and link.limit_stiffness > 0 and link.limits is not None
                  else (-JOINT_LIMIT, JOINT_LIMIT))
        joints.append(Joint(f"joint{i}", JointType.REVOLUTE, _translation(offset), np.array([0.0, 0.0, 1.0]),
                            lower=float(lo), upper=float(hi),
                            effort=NO_EFFORT if link.effort is None else float(link.effort), velocity=VELOCITY,
                            damping=float(link.damping), friction=float(link.friction),
                            armature=float(link.armature)))
        inertial = Inertial(float(link.mass), np.array([link.com, 0.0, 0.0]), float(J) * np.eye(3))
        bodies.append(Body(f"link{i}", inertial))
        offset = link.length
    if spec.has_contact:  # the massless tip frame welded to the last link (to_urdf's ``tip_joint``)
        bodies[-1] = Body(bodies[-1].name, bodies[-1].inertial, ("tip",))
    return RobotModel(spec.name, f"planar spec {spec.name}", Format.URDF, "world", tuple(bodies), tuple(joints),
                      tuple(range(-1, spec.n - 1)), np.array(spec.gravity, dtype=float))
