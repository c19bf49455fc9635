"""The joint-torque regressor: τ = Y(q, q̇, q̈) π, linear in the bodies' inertial parameters (Atkeson, An and
Hollerbach 1986; Featherstone 2008 builds the same f_i in Table 5.1), batched.

Per body, π_i = [m, m c_x, m c_y, m c_z, Ī_xx, Ī_xy, Ī_yy, Ī_xz, Ī_yz, Ī_zz] with Ī the rotational inertia about
the BODY FRAME ORIGIN (Pinocchio's ``Inertia.toDynamicParameters`` order); π = [π_1; …; π_n].  With the body's
velocity [ω; v] and acceleration [ω̇; v̇] from the RNEA's forward pass (gravity as a_0 = −a_g) and α = v̇ + ω × v,
the body force f_i = [n; f] = A_i π_i is

    n = ℒ(ω̇) Ī + ω × ℒ(ω) Ī − α × h,        f = α m + (ω̇× + ω× ω×) h

(ℒ(w) Ī = Ī w, :func:`~crossdyn.spatial.transforms.inertia_times`), and body i's force reaches joint j, an
ancestor of i or i itself, as τ_j = S_jᵀ ʲX*_i f_i:  Y[j, block i] = S_jᵀ ʲX*_i A_i, zero elsewhere.  The rigid
body only: Y π = RNEA(armature=False).
"""
from __future__ import annotations

import numpy as np

from crossdyn.robots.model import RobotModel
from crossdyn.spatial.kinematics import as_states, bodies, joint_transforms
from crossdyn.spatial.rnea import body_accelerations
from crossdyn.spatial.transforms import cross, dynamic_parameters, force_to_parent, inertia_times, skew


def body_regressor(w: np.ndarray, v: np.ndarray, dw: np.ndarray, dv: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A_i split as (moment rows, force rows), each (N, 3, 10): f_i = A_i π_i for any inertial parameters π_i."""
    N = w.shape[0]
    alpha = dv + cross(w, v)
    W = skew(w)
    An = np.zeros((N, 3, 10))
    Af = np.zeros((N, 3, 10))
    An[:, :, 1:4] = -skew(alpha)
    An[:, :, 4:] = inertia_times(dw) + W @ inertia_times(w)
    Af[:, :, 0] = alpha
    Af[:, :, 1:4] = skew(dw) + W @ W
    return An, Af


def regressor(model: RobotModel, Q, QD, QDD) -> np.ndarray:
    """Y(q, q̇, q̈) with Y π = RNEA(q, q̇, q̈, armature=False): (N, n, 10 n), or (n, 10 n) for one state."""
    (Q, QD, QDD), single = as_states(model, Q, QD, QDD)
    b = bodies(model)
    N, n = Q.shape
    transforms = joint_transforms(model, Q)
    motion = body_accelerations(b, transforms, QD, QDD, model.gravity)
    Y = np.zeros((N, n, 10 * n))
    for i in range(n):
        An, Af = (np.swapaxes(A, 1, 2) for A in body_regressor(*motion[i]))  # (N, 10, 3): columns as a batch
        j = i
        while True:
            Y[:, j, 10 * i:10 * i + 10] = An @ b.S[j, :3] + Af @ b.S[j, 3:]
            if b.parents[j] < 0:
                break
            R, p = transforms[j]
            An, Af = force_to_parent(R[:, None], p[:, None], An, Af)
            j = b.parents[j]
    return Y[0] if single else Y


def parameters(model: RobotModel) -> np.ndarray:
    """π (10 n,): every body's [m, m c, Ī_xx, Ī_xy, Ī_yy, Ī_xz, Ī_yz, Ī_zz] about its frame origin, in body order."""
    return np.concatenate([dynamic_parameters(b.inertial.mass, b.inertial.com, b.inertial.inertia)
                           for b in model.bodies]) if model.n else np.zeros(0)
