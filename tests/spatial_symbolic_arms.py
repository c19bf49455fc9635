"""Small spatial arms written by hand for tests/test_spatial_symbolic*.py, random numbers for their symbols, and
Pinocchio built from a RobotModel through its own API (an independent path: spatial algebra, no Lagrangian)."""
from __future__ import annotations

import numpy as np
import sympy as sp

from crossdyn.analytic.spatial_arm import LinkInertia, SymArm, SymJoint, dh_arm, rot, trans

HALF_PI = sp.pi / 2


def rp_polar() -> SymArm:
    """RP polar arm in a vertical plane: joint 1 about the base's y axis (horizontal), the prismatic joint along the
    arm; gravity (0, 0, −g) lies in the plane of motion."""
    return dh_arm("rp-test", [(0, HALF_PI, 0, 0), (0, 0, 0, 0)], "RP",
                  links=[LinkInertia(("cz",), "diagonal"), LinkInertia(("cz",), "diagonal")],
                  gravity=(0, -sp.Symbol("g", positive=True), 0))


def scara() -> SymArm:
    """SCARA (RRP), standard DH: a1 = L1, a2 = L2, α2 = π, d1 = d1, prismatic d3; gravity (0, 0, −g)."""
    return dh_arm("scara-test", [("L1", 0, "d1", 0), ("L2", sp.pi, 0, 0), (0, 0, 0, 0)], "RRP")


def elbow() -> SymArm:
    """Anthropomorphic RRR (PUMA's first three joints without offsets), standard DH: α1 = π/2, a2 = L2, a3 = L3."""
    return dh_arm("elbow-test", [(0, HALF_PI, "d1", 0), ("L2", 0, 0, 0), ("L3", 0, 0, 0)], "RRR")


def modified_rpr() -> SymArm:
    """Modified (Craig) DH, R P R with a fixed θ offset, a −π/2 twist and an oblique (π/3) twist."""
    return dh_arm("craig-test", [(0, 0, "d1", 0), ("a1", -HALF_PI, 0, HALF_PI), ("a2", sp.pi / 3, "d3", 0)],
                  "RPR", convention="modified")


def oblique() -> SymArm:
    """Explicit joints: an x-axis revolute, a prismatic along (0, 3/5, 4/5), a y-axis revolute with a rotor
    armature Ia3; gravity along −z."""
    j1 = SymJoint("revolute", (1, 0, 0), trans(0, 0, "h"), trans("L1", 0, 0))
    j2 = SymJoint("prismatic", (0, sp.Rational(3, 5), sp.Rational(4, 5)), rot((0, 0, 1), sp.pi / 6), trans(0, "L2", 0))
    j3 = SymJoint("revolute", (0, 1, 0), sp.eye(4), trans(0, 0, "L3"), armature=True)
    return SymArm("oblique-test", (j1, j2, j3))


def twisted() -> SymArm:
    """Standard DH with angles that are no rational multiple of π (α1 = 1/10 rad, θ2 = 3/10 rad): SymPy's EX
    domain (cos(1/10) is no algebraic number)."""
    return dh_arm("twisted-test", [("a1", sp.Rational(1, 10), 0, 0), ("a2", HALF_PI, "d2", sp.Rational(3, 10))], "RP")


ARMS = {"rp": rp_polar, "scara": scara, "elbow": elbow, "craig": modified_rpr, "oblique": oblique,
        "twisted": twisted}


def random_values(arm: SymArm, rng: np.random.Generator) -> dict:
    """Numbers for every symbol: lengths in [0.2, 1.2], g = 9.81, masses in [0.5, 3], CoM in [−0.3, 0.3], an
    inertia R diag Rᵀ with principal moments satisfying the triangle inequality."""
    vals = {str(s): rng.uniform(0.2, 1.2) for s in arm.geometry_symbols()}
    vals.update({str(s): 9.81 for s in arm.gravity_symbols()})
    for i, j in enumerate(arm.joints):
        k = i + 1
        vals[f"m{k}"] = rng.uniform(0.5, 3.0)
        for c in j.link.com:
            vals[f"{c}{k}"] = rng.uniform(-0.3, 0.3)
        a, b = rng.uniform(0.01, 0.1, 2)
        d = np.array([a, b, rng.uniform(abs(a - b) + 1e-3, a + b)])
        Rq, _ = np.linalg.qr(rng.normal(size=(3, 3)))
        I = Rq @ np.diag(d) @ Rq.T if j.link.inertia == "full" else np.diag(d)
        names = {"full": ("Ixx", "Ixy", "Ixz", "Iyy", "Iyz", "Izz"), "diagonal": ("Ixx", "Iyy", "Izz"),
                 "none": ()}[j.link.inertia]
        idx = {"Ixx": (0, 0), "Ixy": (0, 1), "Ixz": (0, 2), "Iyy": (1, 1), "Iyz": (1, 2), "Izz": (2, 2)}
        for nm in names:
            vals[f"{nm}{k}"] = I[idx[nm]]
        if j.armature:
            vals[f"Ia{k}"] = rng.uniform(0.01, 0.2)
    return vals


def to_pinocchio(model):
    """Pinocchio's Model and Data for a chain RobotModel (anchors 0): unaligned revolute/prismatic joints at the
    joint origins, each body's inertia from (m, c, I_c)."""
    import pinocchio as pin

    pm = pin.Model()
    parent = 0
    for body, joint in zip(model.bodies, model.joints, strict=True):
        placement = pin.SE3(joint.origin[:3, :3].copy(), joint.origin[:3, 3].copy())
        jm = (pin.JointModelRevoluteUnaligned(joint.axis.copy()) if joint.type.rotates
              else pin.JointModelPrismaticUnaligned(joint.axis.copy()))
        parent = pm.addJoint(parent, jm, placement, joint.name)
        inertial = body.inertial
        pm.appendBodyToJoint(parent, pin.Inertia(inertial.mass, inertial.com.copy(), inertial.inertia.copy()),
                             pin.SE3.Identity())
    pm.armature = np.array([j.armature for j in model.joints], dtype=float)
    pm.gravity.linear = model.gravity.copy()
    return pm, pm.createData()


def relative_error(a, b) -> float:
    """max |a − b| / max |b| over everything (states stacked; the reference's scale, or 1 where it is all 0)."""
    a, b = np.asarray(a), np.asarray(b)
    scale = float(np.max(np.abs(b)))
    return float(np.max(np.abs(a - b)) / (scale if scale > 0 else 1.0))
