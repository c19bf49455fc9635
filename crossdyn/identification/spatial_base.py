"""Base (identifiable) inertial parameters of a spatial arm, found numerically (issue 27).

The planar grouping is closed form (:mod:`crossdyn.identification.parameters`); for revolute and prismatic joints
about arbitrary axes it is read off the regressor instead (Gautier 1991): τ = W θ with W the joint-torque regressor
of :func:`crossdyn.spatial.regressor` stacked at random states (q, q̇, q̈), θ per body the standard parameters
(m, m c_x, m c_y, m c_z, XX, XY, YY, XZ, YZ, ZZ — the inertia about the BODY FRAME ORIGIN, crossdyn.spatial's and
Pinocchio's order).  QR with column pivoting, W Π = Q R: the first r pivoted columns are independent, the others
combinations of them, W_dep = W_ind K with K = R11⁻¹ R12, so that

    τ = W_ind β,    β = θ_ind + K θ_dep            (each base parameter a stated combination)

r is the number of |R_kk| above :data:`RANK_RTOL` × |R_00| (rounding puts the others ~1e-15 × |R_00|; a column
that matters sits ≥ ~1e-4 × |R_00| at random states of these arms).  A parameter whose column is zero (it never
acts) is dependent with K = 0: not identifiable.  The coefficients K are numbers, as the arm's geometry is: with
a2 = 0.4 m the planar L₂² m₃ appears as 0.16 m3.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg

from crossdyn.robots.model import RobotModel
from crossdyn.spatial import parameters, regressor, rnea

RANK_RTOL = 1e-8
PARAMETER_KINDS = ("m", "mx", "my", "mz", "XX", "XY", "YY", "XZ", "YZ", "ZZ")
COEFF_ATOL = 1e-10
"""A coefficient of K below this (relative to the largest) is rounding and is not written."""


@dataclass(frozen=True)
class SpatialBase:
    """The base parameters: ``names`` of θ, the ``independent`` and ``dependent`` indices (pivot order), K,
    β's values at the arm's own parameters and each β as text."""

    names: tuple[str, ...]
    independent: tuple[int, ...]
    dependent: tuple[int, ...]
    K: np.ndarray
    theta: np.ndarray
    beta: np.ndarray

    @property
    def rank(self) -> int:
        return len(self.independent)

    def combination(self, k: int) -> str:
        """β_k as text: θ_ind + Σ_j K_kj θ_dep_j."""
        terms = [self.names[self.independent[k]]]
        scale = float(np.max(np.abs(self.K[k]), initial=0.0))
        for j, c in zip(self.dependent, self.K[k], strict=True):
            if abs(c) > COEFF_ATOL * max(scale, 1.0):
                size = "" if abs(abs(c) - 1.0) <= COEFF_ATOL else f"{abs(c):.6g} "
                terms.append(f"{'+' if c > 0 else '-'} {size}{self.names[j]}")
        return " ".join(terms)

    def unidentifiable(self) -> list[str]:
        """Parameters that appear in no base parameter (their column is zero at every state)."""
        used = np.any(np.abs(self.K) > COEFF_ATOL * max(1.0, float(np.max(np.abs(self.K), initial=0.0))), axis=0)
        return [self.names[j] for j, u in zip(self.dependent, used, strict=True) if not u]


def parameter_names(model: RobotModel) -> tuple[str, ...]:
    return tuple(f"{kind}{i}" for i in range(1, len(model.joints) + 1) for kind in PARAMETER_KINDS)


def random_states(model: RobotModel, count: int, rng: np.random.Generator,
                  prismatic=(0.2, 1.2)) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """q (revolute in [−π, π], prismatic in ``prismatic`` m), q̇ in [−2, 2], q̈ in [−5, 5]."""
    n = len(model.joints)
    Q = rng.uniform(-np.pi, np.pi, (count, n))
    for i, j in enumerate(model.joints):
        if not j.type.rotates:
            Q[:, i] = rng.uniform(float(prismatic[0]), float(prismatic[1]), count)
    return Q, rng.uniform(-2.0, 2.0, (count, n)), rng.uniform(-5.0, 5.0, (count, n))


def stacked(model: RobotModel, states) -> np.ndarray:
    """W: the regressor at ``states`` (Q, QD, QDD) stacked, (N n, 10 n)."""
    Y = regressor(model, *states)
    return Y.reshape(-1, Y.shape[-1])


def spatial_base(model: RobotModel, count: int = 200, seed: int = 0, prismatic=(0.2, 1.2)) -> SpatialBase:
    """The base parameters of ``model`` from its regressor at ``count`` random states (module docstring)."""
    W = stacked(model, random_states(model, count, np.random.default_rng(seed), prismatic))
    _, R, piv = scipy.linalg.qr(W, mode="economic", pivoting=True)
    d = np.abs(np.diag(R))
    r = int(np.sum(d > RANK_RTOL * d[0]))
    K = scipy.linalg.solve_triangular(R[:r, :r], R[:r, r:])
    theta = parameters(model)
    ind, dep = tuple(int(i) for i in piv[:r]), tuple(int(i) for i in piv[r:])
    beta = theta[list(ind)] + K @ theta[list(dep)]
    return SpatialBase(parameter_names(model), ind, dep, K, theta, beta)


def identify_exact(model: RobotModel, base: SpatialBase, count: int = 200, seed: int = 1,
                   torque_noise: float = 0.0, prismatic=(0.2, 1.2)) -> tuple[np.ndarray, float]:
    """β̂ by least squares on the base regressor from the reference's torques at fresh random states (+ Gaussian
    torque noise of ``torque_noise`` N m / N), and the validation: max |W_ind β̂ − τ| / max |τ| at other states."""
    rng = np.random.default_rng(seed)
    states = random_states(model, count, rng, prismatic)
    tau = rnea(model, *states, armature=False).reshape(-1)
    tau = tau + torque_noise * rng.standard_normal(tau.shape)
    Wb = stacked(model, states)[:, list(base.independent)]
    beta, *_ = np.linalg.lstsq(Wb, tau, rcond=None)
    check = random_states(model, count, rng, prismatic)
    t2 = rnea(model, *check, armature=False).reshape(-1)
    err = float(np.max(np.abs(stacked(model, check)[:, list(base.independent)] @ beta - t2)) / np.max(np.abs(t2)))
    return beta, err
