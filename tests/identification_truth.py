"""Identification data made without crossdyn: a 2R arm's equations of motion written out by hand.

Issue 23: the identification tests must not grade crossdyn with its own model.  This module writes the planar
2R arm's inverse dynamics from the textbook (angles from +x, each relative to the previous link, gravity along
−y, uniform-rod links given by L, m, Lc, J about the centre of mass), with viscous and Coulomb friction by the
sign law, evaluates it along a prescribed smooth trajectory (a finite Fourier series, derivatives exact), and
writes the arm file and the CSV record ``time, q1, q2, tau1, tau2`` (no q̇, no q̈: the filtered path) that
``crossdyn identify ARM --data FILE --truth spec`` reads.

    M11 = J1 + m1 Lc1² + J2 + m2 (L1² + Lc2² + 2 L1 Lc2 cos q2)
    M12 = J2 + m2 (Lc2² + L1 Lc2 cos q2),   M22 = J2 + m2 Lc2²,   h = m2 L1 Lc2 sin q2
    τ1 = M11 q̈1 + M12 q̈2 − h (2 q̇1 q̇2 + q̇2²) + g [(m1 Lc1 + m2 L1) cos q1 + m2 Lc2 cos(q1 + q2)] + b1 q̇1 + fc1 sgn q̇1
    τ2 = M12 q̈1 + M22 q̈2 + h q̇1² + g m2 Lc2 cos(q1 + q2) + b2 q̇2 + fc2 sgn q̇2

The true base parameters (the closed-form base set of a planar 2R arm with friction):
ZZ1R = J1 + m1 Lc1² + m2 L1², MX1R = m1 Lc1 + m2 L1, ZZ2R = J2 + m2 Lc2², MX2R = m2 Lc2, b1, b2, fc1, fc2.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

G = 9.81


@dataclass(frozen=True)
class Arm2R:
    L: tuple[float, float] = (1.0, 0.8)
    m: tuple[float, float] = (1.0, 0.8)
    Lc: tuple[float, float] = (0.5, 0.4)
    J: tuple[float, float] = (1.0 / 12, 0.8 * 0.64 / 12)
    b: tuple[float, float] = (0.3, 0.2)
    fc: tuple[float, float] = (0.5, 0.3)
    name: str = "handwritten2r"

    def base_parameters(self) -> dict[str, float]:
        (L1, _), (m1, m2), (c1, c2), (J1, J2) = self.L, self.m, self.Lc, self.J
        return {"ZZ1R": J1 + m1 * c1 ** 2 + m2 * L1 ** 2, "MX1R": m1 * c1 + m2 * L1,
                "ZZ2R": J2 + m2 * c2 ** 2, "MX2R": m2 * c2,
                "b1": self.b[0], "b2": self.b[1], "fc1": self.fc[0], "fc2": self.fc[1]}

    def toml(self) -> str:
        links = "".join(f"[[links]]\nlength = {self.L[i]!r}\nmass = {self.m[i]!r}\ncom = {self.Lc[i]!r}\n"
                        f"inertia = {self.J[i]!r}\ndamping = {self.b[i]!r}\nfriction = {self.fc[i]!r}\n"
                        for i in range(2))
        return f'name = "{self.name}"\ngravity = [0.0, {-G!r}, 0.0]\n' + links

    def inverse_dynamics(self, q, qd, qdd) -> np.ndarray:
        (L1, _), (m1, m2), (c1, c2), (J1, J2) = self.L, self.m, self.Lc, self.J
        q1, q2 = q[:, 0], q[:, 1]
        v1, v2 = qd[:, 0], qd[:, 1]
        a1, a2 = qdd[:, 0], qdd[:, 1]
        M11 = J1 + m1 * c1 ** 2 + J2 + m2 * (L1 ** 2 + c2 ** 2 + 2 * L1 * c2 * np.cos(q2))
        M12 = J2 + m2 * (c2 ** 2 + L1 * c2 * np.cos(q2))
        M22 = J2 + m2 * c2 ** 2
        h = m2 * L1 * c2 * np.sin(q2)
        g2 = G * m2 * c2 * np.cos(q1 + q2)
        g1 = G * (m1 * c1 + m2 * L1) * np.cos(q1) + g2
        tau1 = M11 * a1 + M12 * a2 - h * (2 * v1 * v2 + v2 ** 2) + g1 + self.b[0] * v1 + self.fc[0] * np.sign(v1)
        tau2 = M12 * a1 + M22 * a2 + h * v1 ** 2 + g2 + self.b[1] * v2 + self.fc[1] * np.sign(v2)
        return np.stack([tau1, tau2], axis=1)


def fourier_trajectory(t: np.ndarray, seed: int, harmonics: int = 5, f0: float = 0.1):
    """q_j(t) = q0_j + Σ_k a_jk sin(2π k f0 t + φ_jk) / k with q̇, q̈ exact; amplitudes and phases from ``seed``
    (the same seed, the same trajectory); q0 near the hanging pose so the motion stays within a reachable band."""
    rng = np.random.default_rng(seed)
    q0 = np.array([-np.pi / 2, 0.0]) + rng.uniform(-0.3, 0.3, 2)
    a = rng.uniform(0.25, 0.6, (2, harmonics))
    phi = rng.uniform(0, 2 * np.pi, (2, harmonics))
    w = 2 * np.pi * f0 * np.arange(1, harmonics + 1)
    arg = w[None, None, :] * t[:, None, None] + phi[None]          # (K, 2, H)
    amp = a[None] / np.arange(1, harmonics + 1)
    q = q0 + np.sum(amp * np.sin(arg), axis=2)
    qd = np.sum(amp * w * np.cos(arg), axis=2)
    qdd = -np.sum(amp * w ** 2 * np.sin(arg), axis=2)
    return q, qd, qdd


def write_dataset(folder, seed: int, arm: Arm2R = Arm2R(), rate: float = 1000.0, duration: float = 10.0,
                  torque_std: float = 0.0):
    """Write ``arm.toml`` and ``data_<seed>.csv`` (time, q1, q2, tau1, tau2) into ``folder``; τ noise N(0, σ²)
    from ``seed`` when ``torque_std`` > 0.  Returns (arm path, csv path)."""
    from pathlib import Path

    folder = Path(folder)
    arm_path = folder / "arm.toml"
    arm_path.write_text(arm.toml())
    t = np.arange(int(round(duration * rate)) + 1) / rate
    q, qd, qdd = fourier_trajectory(t, seed)
    tau = arm.inverse_dynamics(q, qd, qdd)
    if torque_std > 0:
        tau = tau + np.random.default_rng(10_000 + seed).normal(0.0, torque_std, tau.shape)
    csv_path = folder / f"data_{seed}.csv"
    lines = ["time,q1,q2,tau1,tau2"] + [",".join(repr(float(x)) for x in (t[k], *q[k], *tau[k])) for k in range(len(t))]
    csv_path.write_text("\n".join(lines) + "\n")
    return arm_path, csv_path
