"""Spatial vector algebra, batched over a leading axis (Featherstone, *Rigid Body Dynamics Algorithms*, 2008, ch. 2).

Conventions (Featherstone's, also Pinocchio's up to the order of the halves):

* A spatial motion vector is ``[ω; v]`` (angular first): ω the angular velocity, v the velocity of the body-fixed
  point at the frame's origin, both in that frame's coordinates.  A spatial force is ``[n; f]``: the moment about
  the frame's origin and the force.
* A frame B placed in frame A with rotation R (columns: B's axes in A) and origin p (in A).  The Plücker transform
  of motion vectors from A to B coordinates is (eq. 2.28 with Table 2.2's rotation and translation)

      ᴮX_A = [[E, 0], [−E p×, E]],   E = Rᵀ      i.e.  ω_B = E ω_A,   v_B = E (v_A − p × ω_A),

  and force vectors go back from B to A with its transpose, ᴬX*_B = (ᴮX_A)ᵀ:  n_A = R n_B + p × R f_B,
  f_A = R f_B.
* Spatial cross products (eqs. 2.31, 2.32): ``[ω; v] × [ω'; v'] = [ω × ω'; ω × v' + v × ω']`` on motion vectors and
  ``[ω; v] ×* [n; f] = [ω × n + v × f; ω × f]`` on forces.
* A rigid body's spatial inertia about a frame's origin (eq. 2.63), from its mass m, centre of mass c and rotational
  inertia I_c about c:  ``I = [[Ī, m c×], [−m c×, m 1]]`` with ``Ī = I_c − m c× c×`` (the parallel-axis theorem);
  it is linear in the ten inertial parameters (m, h = m c, Ī), which is how the regressor uses it.

The functions below work on 3-vectors (…, 3) and 3×3 blocks (…, 3, 3) so that a batch of N states costs a few
numpy calls per body; :func:`plucker` and :func:`spatial_inertia` build the 6×6 forms where an algorithm needs them
(the articulated-body inertias of :mod:`crossdyn.spatial.aba`).
"""
from __future__ import annotations

import numpy as np

INERTIA_ORDER = ("xx", "xy", "yy", "xz", "yz", "zz")
"""The order of the six rotational-inertia parameters (Pinocchio's ``Inertia.toDynamicParameters``)."""


def floating(x) -> np.ndarray:
    """x as an array of its own dtype promoted with float64: integers become float64, complex (complex-step
    derivatives) and object arrays stay as they are."""
    x = np.asarray(x)
    return x.astype(np.result_type(x, np.float64), copy=False)


def cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a × b over the last axis (…, 3), broadcasting; a hand-written np.cross without its per-call overhead."""
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    return np.stack((a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0), axis=-1)


def skew(v: np.ndarray) -> np.ndarray:
    """The 3×3 matrix v× with (v×) w = v × w: shape (…, 3, 3)."""
    v = floating(v)
    z = np.zeros(v.shape[:-1], dtype=v.dtype)
    x, y, w = v[..., 0], v[..., 1], v[..., 2]
    return np.stack((np.stack((z, -w, y), -1), np.stack((w, z, -x), -1), np.stack((-y, x, z), -1)), -2)


def rotation(axis: np.ndarray, angle: np.ndarray) -> np.ndarray:
    """Rot(a, θ) by Rodrigues' formula, R = 1 + sin θ a× + (1 − cos θ) a× a×, for a unit axis a: (N, 3, 3)."""
    K = skew(axis)
    angle = floating(angle)[..., None, None]
    return np.eye(3) + np.sin(angle) * K + (1.0 - np.cos(angle)) * (K @ K)


def rotate(R: np.ndarray, x: np.ndarray) -> np.ndarray:
    """R x for R (…, 3, 3), x (…, 3)."""
    return np.einsum("...ij,...j->...i", R, x)


def rotate_back(R: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Rᵀ x for R (…, 3, 3), x (…, 3)."""
    return np.einsum("...ji,...j->...i", R, x)


def motion_to_child(R: np.ndarray, p: np.ndarray, w: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """ᶜX_P [ω; v] for a child frame at (R, p) in its parent: (Rᵀ ω, Rᵀ (v − p × ω))."""
    return rotate_back(R, w), rotate_back(R, v - cross(p, w))


def force_to_parent(R: np.ndarray, p: np.ndarray, n: np.ndarray, f: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """ᴾX*_C [n; f] = (ᶜX_P)ᵀ [n; f] for a child frame at (R, p) in its parent: (R n + p × R f, R f)."""
    Rf = rotate(R, f)
    return rotate(R, n) + cross(p, Rf), Rf


def plucker(R: np.ndarray, p: np.ndarray) -> np.ndarray:
    """The 6×6 motion transform ᶜX_P = [[Rᵀ, 0], [−Rᵀ p×, Rᵀ]] for a child at (R, p) in its parent: (…, 6, 6)."""
    E = np.swapaxes(R, -1, -2)
    X = np.zeros(R.shape[:-2] + (6, 6), dtype=np.result_type(R, p, np.float64))
    X[..., :3, :3] = E
    X[..., 3:, 3:] = E
    X[..., 3:, :3] = -E @ skew(p)
    return X


def inertia_about_origin(mass: float, com: np.ndarray, inertia_com: np.ndarray) -> np.ndarray:
    """Ī = I_c + m (|c|² 1 − c cᵀ) = I_c − m c× c×: the rotational inertia about the frame's origin (3×3)."""
    c = np.asarray(com, dtype=float)
    return np.asarray(inertia_com, dtype=float) + mass * (float(c @ c) * np.eye(3) - np.outer(c, c))


def spatial_inertia(mass: float, com: np.ndarray, inertia_com: np.ndarray) -> np.ndarray:
    """Featherstone eq. 2.63: I = [[I_c − m c× c×, m c×], [−m c×, m 1]] about the frame's origin (6×6)."""
    C = skew(np.asarray(com, dtype=float))
    out = np.zeros((6, 6))
    out[:3, :3] = inertia_about_origin(mass, com, inertia_com)
    out[:3, 3:] = mass * C
    out[3:, :3] = -mass * C
    out[3:, 3:] = mass * np.eye(3)
    return out


def dynamic_parameters(mass: float, com: np.ndarray, inertia_com: np.ndarray) -> np.ndarray:
    """The ten inertial parameters in Pinocchio's order [m, m c_x, m c_y, m c_z, Ī_xx, Ī_xy, Ī_yy, Ī_xz, Ī_yz, Ī_zz]
    with Ī about the frame's ORIGIN (:func:`inertia_about_origin`)."""
    Ib = inertia_about_origin(mass, com, inertia_com)
    h = mass * np.asarray(com, dtype=float)
    return np.array([mass, *h, Ib[0, 0], Ib[0, 1], Ib[1, 1], Ib[0, 2], Ib[1, 2], Ib[2, 2]])


def inertia_times(w: np.ndarray) -> np.ndarray:
    """The 3×6 matrix ℒ(w) with Ī w = ℒ(w) [Ī_xx, Ī_xy, Ī_yy, Ī_xz, Ī_yz, Ī_zz]ᵀ: shape (…, 3, 6)."""
    x, y, z = w[..., 0], w[..., 1], w[..., 2]
    o = np.zeros_like(x)
    return np.stack((np.stack((x, y, o, z, o, o), -1),
                     np.stack((o, x, y, o, z, o), -1),
                     np.stack((o, o, o, x, y, z), -1)), -2)
