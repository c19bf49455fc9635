"""Preset spatial arms (issue 27): the textbook arms courses ask students to derive M, C, G for by hand.

Every link is a uniform solid cylinder (mass m, length L, radius r: I = m r²/2 about its own axis,
m (3 r² + L²)/12 about the two others, about its centre); radii are small, lengths and masses are round numbers.
Gravity is (0, 0, −9.81) m/s² in the world (z up) for all of them.  Four use Spong–Hutchinson–Vidyasagar's
standard (distal) DH frames and tables (*Robot Modeling and Control*, ch. 3: the cylindrical, SCARA and
articulated/elbow manipulators; the RP arm in the same style), so a student's M, C, G in Spong's frames are
compared entry by entry; two are written with explicit origins and axes (URDF's convention).

=================  ====  ==========================================================================================
``rp-polar``        RP   revolute θ1 about a horizontal axis, then a prismatic d2 along the link, in a vertical
                         plane; θ1 from the horizontal x0 (DH θ offset π/2), the link-2 centre of mass at d2
``rpp-cylindrical`` RPP  Spong's cylindrical arm: θ1 about the vertical, d2 up the column, d3 out horizontally
``scara``           RRP  Spong's SCARA (α1 = π: z1, z2 point down, d3 moves the quill down)
``elbow-rrr``       RRR  Spong's articulated (elbow) arm, the first three joints of a PUMA-like arm without the
                         shoulder offset: θ1 about the vertical, θ2, θ3 about horizontal parallel axes
``ppp-cartesian``   PPP  a gantry: x, then y, then z (explicit origins and axes)
``pan-tilt``        RR   pan about the vertical, tilt about the horizontal y (explicit origins and axes)
=================  ====  ==========================================================================================
"""
from __future__ import annotations

import math

from crossdyn.models.spatial_spec import Convention, JointKind, SpatialArmSpec, SpatialJoint, SpatialLink

R, P = JointKind.REVOLUTE, JointKind.PRISMATIC
HALF_PI = math.pi / 2


NOTES = {
    "rp-polar": ("RP polar arm in a vertical plane (frame 0: z0 horizontal = the revolute axis, y0 up; "
                 "theta1 from the horizontal x0, DH theta offset pi/2; the prismatic d2 along the "
                 "link, link 2's centre of mass at distance d2 from joint 1); Spong-style standard DH"),
    "rpp-cylindrical": ("RPP cylindrical arm, Spong's table: d1 = 1 m column, d2 up the column, d3 out "
                        "horizontally (alpha2 = -pi/2); standard DH"),
    "scara": ("RRP SCARA, Spong's table: a1 = 0.5 m, alpha1 = pi (z1, z2 point down), a2 = 0.4 m, "
              "d3 moves the quill down; standard DH"),
    "elbow-rrr": ("spatial anthropomorphic RRR (the first three joints of a PUMA-like elbow arm, no "
                  "shoulder offset), Spong's articulated-arm table: d1 = 0.6 m, alpha1 = pi/2, "
                  "a2 = 0.5 m, a3 = 0.4 m; standard DH"),
    "ppp-cartesian": ("PPP Cartesian (gantry) arm: x, then y, then z; explicit origins and axes"),
    "pan-tilt": ("RR pan-tilt unit: pan about the vertical z, tilt about the horizontal y, the head's "
                 "centre of mass off the tilt axis; explicit origins and axes"),
}
"""What each preset is, in words (``crossdyn arms``, ``crossdyn info``)."""

SUMMARY = {name: (kinds, convention, NOTES[name]) for name, kinds, convention in (
    ("rp-polar", "RP", "dh-standard"),
    ("rpp-cylindrical", "RPP", "dh-standard"),
    ("scara", "RRP", "dh-standard"),
    ("elbow-rrr", "RRR", "dh-standard"),
    ("ppp-cartesian", "PPP", "origin"),
    ("pan-tilt", "RR", "origin"),
)}
"""(joint types, convention, notes) per preset without building it: ``crossdyn arms`` stays numpy-free."""


def cylinder(mass: float, length: float, radius: float, along: str, com=(0.0, 0.0, 0.0)) -> SpatialLink:
    """A uniform solid cylinder whose axis is ``along`` ("x", "y" or "z" of the link frame), centre at ``com``."""
    axial = mass * radius**2 / 2
    transverse = mass * (3 * radius**2 + length**2) / 12
    d = {k: (axial if k == along else transverse) for k in "xyz"}
    return SpatialLink(mass, tuple(com), (d["x"], 0.0, 0.0, d["y"], 0.0, d["z"]))  # type: ignore[arg-type]


def rp_polar() -> SpatialArmSpec:
    joints = (SpatialJoint(R, (0.0, HALF_PI, 0.0, HALF_PI)),
              SpatialJoint(P, (0.0, 0.0, 0.0, 0.0), limits=(0.2, 1.2)))
    links = (cylinder(2.0, 1.0, 0.05, "z", (0.0, 0.0, 0.5)), cylinder(1.0, 0.8, 0.04, "z"))
    return SpatialArmSpec(joints, links, Convention.DH_STANDARD, name="rp-polar", base_rpy=(HALF_PI, 0.0, 0.0),
                          notes=NOTES["rp-polar"],
                          source="preset rp-polar")


def rpp_cylindrical() -> SpatialArmSpec:
    joints = (SpatialJoint(R, (0.0, 0.0, 1.0, 0.0)),
              SpatialJoint(P, (0.0, -HALF_PI, 0.0, 0.0), limits=(0.1, 0.9)),
              SpatialJoint(P, (0.0, 0.0, 0.0, 0.0), limits=(0.3, 1.0)))
    links = (cylinder(5.0, 1.0, 0.08, "z", (0.0, 0.0, -0.5)), cylinder(2.0, 0.3, 0.06, "z"),
             cylinder(1.0, 0.8, 0.04, "z", (0.0, 0.0, -0.4)))
    return SpatialArmSpec(joints, links, Convention.DH_STANDARD, name="rpp-cylindrical",
                          notes=NOTES["rpp-cylindrical"],
                          source="preset rpp-cylindrical")


def scara() -> SpatialArmSpec:
    joints = (SpatialJoint(R, (0.5, math.pi, 0.0, 0.0)),
              SpatialJoint(R, (0.4, 0.0, 0.0, 0.0)),
              SpatialJoint(P, (0.0, 0.0, 0.0, 0.0), limits=(0.0, 0.4)))
    links = (cylinder(3.0, 0.5, 0.04, "x", (-0.25, 0.0, 0.0)), cylinder(2.0, 0.4, 0.03, "x", (-0.2, 0.0, 0.0)),
             cylinder(1.0, 0.6, 0.02, "z", (0.0, 0.0, -0.3)))
    return SpatialArmSpec(joints, links, Convention.DH_STANDARD, name="scara",
                          notes=NOTES["scara"],
                          source="preset scara")


def elbow_rrr() -> SpatialArmSpec:
    joints = (SpatialJoint(R, (0.0, HALF_PI, 0.6, 0.0)),
              SpatialJoint(R, (0.5, 0.0, 0.0, 0.0)),
              SpatialJoint(R, (0.4, 0.0, 0.0, 0.0)))
    links = (cylinder(4.0, 0.6, 0.06, "y", (0.0, -0.3, 0.0)), cylinder(3.0, 0.5, 0.04, "x", (-0.25, 0.0, 0.0)),
             cylinder(2.0, 0.4, 0.03, "x", (-0.2, 0.0, 0.0)))
    return SpatialArmSpec(joints, links, Convention.DH_STANDARD, name="elbow-rrr",
                          notes=NOTES["elbow-rrr"],
                          source="preset elbow-rrr")


def ppp_cartesian() -> SpatialArmSpec:
    joints = (SpatialJoint(P, xyz=(0.0, 0.0, 0.5), axis=(1.0, 0.0, 0.0), limits=(-0.5, 0.5)),
              SpatialJoint(P, xyz=(0.0, 0.0, 0.1), axis=(0.0, 1.0, 0.0), limits=(-0.5, 0.5)),
              SpatialJoint(P, xyz=(0.0, 0.0, 0.0), axis=(0.0, 0.0, 1.0), limits=(-0.5, 0.5)))
    links = (cylinder(5.0, 1.0, 0.05, "y"), cylinder(3.0, 0.2, 0.05, "z"),
             cylinder(1.0, 0.5, 0.03, "z", (0.0, 0.0, -0.25)))
    return SpatialArmSpec(joints, links, Convention.ORIGIN, name="ppp-cartesian",
                          notes=NOTES["ppp-cartesian"],
                          source="preset ppp-cartesian")


def pan_tilt() -> SpatialArmSpec:
    joints = (SpatialJoint(R, xyz=(0.0, 0.0, 0.1), axis=(0.0, 0.0, 1.0)),
              SpatialJoint(R, xyz=(0.0, 0.0, 0.1), axis=(0.0, 1.0, 0.0), limits=(-1.5, 1.5)))
    links = (cylinder(0.5, 0.1, 0.03, "z", (0.0, 0.0, 0.05)), cylinder(0.8, 0.12, 0.04, "x", (0.04, 0.0, 0.02)))
    return SpatialArmSpec(joints, links, Convention.ORIGIN, name="pan-tilt",
                          notes=NOTES["pan-tilt"],
                          source="preset pan-tilt")


SPATIAL_PRESETS = {
    "rp-polar": rp_polar,
    "rpp-cylindrical": rpp_cylindrical,
    "scara": scara,
    "elbow-rrr": elbow_rrr,
    "ppp-cartesian": ppp_cartesian,
    "pan-tilt": pan_tilt,
}
"""The spatial presets by name (``crossdyn arms`` lists them after the planar ones)."""
