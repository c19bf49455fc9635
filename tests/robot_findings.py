"""Issue 26's five findings on real robot files, measured at the engine level, and the figures the tests assert.

Shared by tests/test_robot_fixtures.py (engines called directly) and the ``crossdyn audit`` tests (the same files,
the same states, the same metrics, so the audit's figures can be held to the same bands).

States: ``states(lower, upper)`` draws N = 100 states with ``numpy.random.default_rng(0)``: q uniform within the
joint limits, q̇ uniform in [−1, 1] (rad/s, or m/s for the fingers).  Metrics, over all states and entries:

* ``max_abs(a, b)``  = max |a − b|                       (N m for G and C·q̇, kg m² for M)
* ``global_rel(a, b)`` = max |a − b| / max |b|           (b the reference; "17 %" in the issue's words)
* ``state_rel(a, b)`` = per state max |a − b| / max |b|  (an array of N; the issue's "2–24 %" is its range)

Each :class:`Figure` keeps the issue's number beside the one measured here (docs/_incoming/fixtures.md says how) and
the band a test asserts, with where that band comes from.
"""
from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import numpy as np

N_STATES = 100
SEED = 0
QD_MAX = 1.0
G_VECTOR = (0.0, 0.0, -9.81)


@dataclass(frozen=True)
class Figure:
    """One measured figure: the issue's value, ours, and the band a test asserts (with its origin)."""

    what: str
    issue: float | None
    measured: float
    low: float
    high: float
    band: str

    def check(self, value: float) -> None:
        assert self.low <= value <= self.high, (
            f"{self.what}: {value:.6g} outside [{self.low:.6g}, {self.high:.6g}] ({self.band}); "
            f"measured when written: {self.measured:.6g}, issue 26: {self.issue}")


SEED_SPREAD = "seeds 0-4 of the same draw gave values within ±3 % of seed 0's; band ±10 % around seed 0's value"

FIGURES = {
    # (a) pybullet_data Panda against example-robot-data's, both read by Pinocchio
    "a_G_abs": Figure("pybullet Panda vs example-robot-data Panda: max |ΔG| (N m)", 7.3, 5.5708, 5.0, 6.2,
                      SEED_SPREAD + " (seeds 0-4: 5.45-5.61 N m); the issue's 7.3 N m is not reproduced"),
    "a_G_rel": Figure("pybullet Panda vs example-robot-data Panda: max |ΔG| / max |G|", 0.17, 0.1012, 0.09, 0.113,
                      SEED_SPREAD + " (seeds 0-4: 0.099-0.102); the issue's 17 % is not reproduced"),
    # (b) pybullet_data iiwa against Menagerie's iiwa14
    "b_masses_differ": Figure("pybullet iiwa vs Menagerie iiwa14: moving links whose mass differs", 6, 6, 6, 6,
                              "exact: the masses typed in both files (only link 6, 1.8 kg, agrees)"),
    "b_G_abs": Figure("pybullet iiwa vs Menagerie iiwa14: max |ΔG| (N m), at joint 2", 26.4, 26.627, 24.0, 29.3,
                      "±10 % around seed 0's value (the maximum over 100 draws moves with the draw)"),
    "b_G_rel": Figure("pybullet iiwa vs Menagerie iiwa14: max |ΔG| / max |G(Menagerie)|", 0.49, 0.3325, 0.30, 0.366,
                      "±10 % around seed 0's value; the issue's 49 % is b_G_rel_pb's normalisation"),
    "b_G_rel_pb": Figure("pybullet iiwa vs Menagerie iiwa14: max |ΔG| / max |G(pybullet iiwa)|", 0.49, 0.4981, 0.45,
                         0.55, "±10 % around seed 0's value; normalised by the URDF's own G, as the issue's 49 %"),
    # (c) Menagerie vs its URDF: armature
    "c_M_rel": Figure("Menagerie Panda vs example-robot-data Panda: max |ΔM| / max |M|", 0.03, 0.02722, 0.025, 0.030,
                      "ΔM = 0.1·I exactly (armature); max |M| over the draw moves it: ±10 %"),
    "c_zeroed_rel": Figure("same, armature zeroed: max over M, G, C·q̇ of the global relative difference", 1e-14,
                           5.27e-10, 0.0, 1e-8,
                           "Menagerie writes the hand's quat with 7 digits (0.9238795 0 0 -0.3826834): an angle "
                           "error ~1e-8 rad moves the hand; with the exact quaternion the files agree to 1e-14 "
                           "(c_exact_quat_rel); band: 20× the measured 5.3e-10, far below any physical difference"),
    "c_exact_quat_rel": Figure("same, exact hand quaternion: global relative difference", 1e-14, 8.3e-15, 0.0, 1e-13,
                               "float64 rounding of 9-joint recursions with entries up to ~55 N m: 1e-13 relative"),
    # (d) one URDF, two readers
    "d_C_rel": Figure("pybullet Panda, MuJoCo's URDF importer vs Pinocchio: max |ΔC·q̇| / max |C·q̇|", 0.096,
                      0.1109, 0.08, 0.14, "the inertias of massless panda_link8 and panda_grasptarget (0.1 kg m² each) dropped: a "
                      "fixed cause; the "
                      "magnitude moves with the q̇ draw: ±25 %"),
    "d_noflag_M_min": Figure("pybullet Panda, PyBullet without URDF_USE_INERTIA_FROM_FILE vs with it: smallest "
                             "per-state max |ΔM| / max |M|", 0.02, 0.2513, 0.20, 0.30, "±20 % around seed 0's value"),
    "d_noflag_M_max": Figure("same, largest per-state value", 0.24, 0.7127, 0.60, 0.82, "±15 % around seed 0's value"),
    # (e) UR5e: Menagerie vs the UR description
    "e_wrist1_rel": Figure("UR5e wrist_1 inertia, Menagerie vs UR description, common frame: max |ΔI| / max |I|",
                           0.14, 0.142857, 0.1428, 0.1429,
                           "analytic: (0.0025599 − 0.0021942) / 0.0025599 = 0.142857 (the same diagonal, rotated 90°)"),
    "e_offset_max_mm": Figure("UR5e joint-axis lines at q = 0, Menagerie vs UR description: largest distance (mm)",
                              0.5, 0.728, 0.70, 0.75,
                              "analytic: Menagerie 0.138 − 0.131 + 0.127 = 0.134 m against d4 = 0.1333 m (0.7 mm) "
                              "and 0.425 + 0.392 = 0.817 m against 0.425 + 0.3922 m (0.2 mm): hypot(0.7, 0.2) = "
                              "0.728 mm, the wrist_2 axis; d1 0.163 vs 0.1625 m gives the issue's 0.5 mm"),
}


def states(lower: np.ndarray, upper: np.ndarray, n: int = N_STATES, seed: int = SEED) -> tuple[np.ndarray, np.ndarray]:
    """N states (q, q̇): q uniform within [lower, upper], q̇ uniform in [−QD_MAX, QD_MAX]."""
    rng = np.random.default_rng(seed)
    q = rng.uniform(lower, upper, (n, len(lower)))
    qd = rng.uniform(-QD_MAX, QD_MAX, (n, len(lower)))
    return q, qd


def max_abs(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.abs(a - b).max())


def global_rel(a: np.ndarray, b: np.ndarray) -> float:
    """max |a − b| / max |b| over all states and entries (b the reference)."""
    return float(np.abs(a - b).max() / np.abs(b).max())


def state_rel(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per state: max |a − b| / max |b| over that state's entries."""
    n = len(a)
    return np.abs(a - b).reshape(n, -1).max(1) / np.abs(b).reshape(n, -1).max(1)


def urdf_without_geometry(path: Path, out_dir: Path) -> Path:
    """A copy of a URDF without its <visual>/<collision> elements (MuJoCo's importer opens every mesh, and the
    pybullet_data/example-robot-data files name theirs by package:// paths it cannot resolve).  Inertials, joints
    and frames are untouched, and no body of these files lacks an <inertial>, so MuJoCo derives nothing from
    geometry either way."""
    tree = ET.parse(path)
    for link in tree.getroot().iter("link"):
        for tag in ("visual", "collision"):
            for element in link.findall(tag):
                link.remove(element)
    out = out_dir / f"{path.stem}_nogeom.urdf"
    tree.write(out)
    return out


def pinocchio_dynamics(path: Path, q: np.ndarray, qd: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pinocchio from a URDF: (M, G, C·q̇) per state, rigid bodies only (a URDF has no armature)."""
    import pinocchio as pin

    model = pin.buildModelFromUrdf(str(path))
    model.gravity.linear = np.array(G_VECTOR)
    data = model.createData()
    ms, gs, cs = [], [], []
    for qi, qdi in zip(q, qd):
        m = pin.crba(model, data, qi).copy()
        ms.append(np.triu(m) + np.triu(m, 1).T)
        g = pin.computeGeneralizedGravity(model, data, qi).copy()
        gs.append(g)
        cs.append(pin.rnea(model, data, qi, qdi, np.zeros(model.nv)) - g)
    return np.array(ms), np.array(gs), np.array(cs)


def mujoco_dynamics(model, q: np.ndarray, qd: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """MuJoCo: (M with the model's armature, G = qfrc_bias at q̇ = 0, C·q̇ = qfrc_bias − G) per state.
    qfrc_bias holds no damping or friction (those are qfrc_passive)."""
    import mujoco

    data = mujoco.MjData(model)
    ms, gs, cs = [], [], []
    for qi, qdi in zip(q, qd):
        data.qpos[:], data.qvel[:] = qi, 0.0
        mujoco.mj_forward(model, data)
        g = data.qfrc_bias.copy()
        m = np.zeros((model.nv, model.nv))
        mujoco.mj_fullM(model, data, m)
        data.qvel[:] = qdi
        mujoco.mj_forward(model, data)
        ms.append(m)
        gs.append(g)
        cs.append(data.qfrc_bias - g)
    return np.array(ms), np.array(gs), np.array(cs)


def pybullet_dynamics(path: Path, q: np.ndarray, qd: np.ndarray,
                      inertia_from_file: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """PyBullet (DIRECT, fixed base): (M, G, C·q̇) per state, with or without URDF_USE_INERTIA_FROM_FILE."""
    import pybullet as p

    client = p.connect(p.DIRECT)
    try:
        p.setGravity(*G_VECTOR, physicsClientId=client)
        flags = p.URDF_USE_INERTIA_FROM_FILE if inertia_from_file else 0
        body = p.loadURDF(str(path), useFixedBase=True, flags=flags, physicsClientId=client)
        zero = [0.0] * q.shape[1]
        ms = [p.calculateMassMatrix(body, list(qi), physicsClientId=client) for qi in q]
        gs = [p.calculateInverseDynamics(body, list(qi), zero, zero, physicsClientId=client) for qi in q]
        bs = [p.calculateInverseDynamics(body, list(qi), list(qdi), zero, physicsClientId=client)
              for qi, qdi in zip(q, qd)]
    finally:
        p.disconnect(client)
    g = np.array(gs)
    return np.array(ms), g, np.array(bs) - g
