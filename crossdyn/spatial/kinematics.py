"""Forward kinematics of a :class:`~crossdyn.robots.model.RobotModel`: joint transforms, motion subspaces, world
poses, batched over N states.

Body i's frame in its parent's at coordinate q (the model's convention, :mod:`crossdyn.robots.model`):

    X_i(q) = origin · T(anchor) · Rot(axis, q) · T(−anchor)     revolute, continuous
    X_i(q) = origin · T(q · axis)                               prismatic

so R_i = R_o Rot(a, q) and p_i = p_o + R_o (anchor − Rot(a, q) anchor) for a revolute joint, R_i = R_o and
p_i = p_o + R_o a q for a prismatic one.

The joint's motion subspace S_i (Featherstone ch. 3–4: v_i = ⁱX_λ v_λ + S_i q̇_i) in body i's coordinates is
constant: a revolute joint turns the body about the line through ``anchor`` along a, so the body-frame origin moves
with ω × (0 − anchor):

    S_i = [a; anchor × a]     revolute, continuous             S_i = [0; a]     prismatic

(anchor = 0 gives Featherstone's revolute joint of ch. 4, [a; 0]).  Since S_i is constant in body coordinates, S̊_i = 0 and the
velocity-product term of the acceleration recursion is c_i = v_i × S_i q̇_i.
"""
from __future__ import annotations

import numpy as np

from crossdyn.robots.model import Joint, RobotModel
from crossdyn.spatial.compiled import Bodies, bodies_of, compile_model, motion_subspace
from crossdyn.spatial.transforms import rotate, rotation


def as_states(model: RobotModel, *arrays) -> tuple[list[np.ndarray], bool]:
    """The arrays as (N, n) batches of one dtype, and whether a single (n,) state was given (callers then return
    unbatched shapes).  The dtype is the arrays' own promoted with float64 (``np.result_type``): integers become
    float64, complex stays complex (complex-step derivatives, f'(x) = Im f(x + ih)/h), object arrays stay object;
    the NumPy path computes in that dtype throughout.  Raises ValueError naming the argument and its shape when it
    does not fit the model."""
    n = model.n
    given = [np.asarray(a) for a in arrays]
    dtype = np.result_type(*given, np.float64)
    out = [a.astype(dtype, copy=False) for a in given]
    single = out[0].ndim == 1
    for k, a in enumerate(out):
        if a.ndim != (1 if single else 2) or a.shape[-1] != n or (not single and a.shape[0] != out[0].shape[0]):
            raise ValueError(f"argument {k + 1}: expected shape ({'' if single else 'N, '}{n}) for "
                             f"{model.name!r} ({n} joints), got {a.shape}")
    return [a[None, :] if single else a for a in out], single


def bodies(model: RobotModel) -> Bodies:
    """The model's :class:`Bodies`, computed once per model (:func:`crossdyn.spatial.compiled.compile_model`)."""
    return compile_model(model).bodies


def joint_transform(joint: Joint, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(R, p) of the body's frame in its parent's at coordinates q (N,): R (N, 3, 3), p (N, 3)."""
    Ro, po = joint.origin[:3, :3], joint.origin[:3, 3]
    a = np.asarray(joint.axis, dtype=float)
    if joint.type.rotates:
        R = Ro @ rotation(a, q)
        anchor = joint.anchor
        return R, po + anchor @ Ro.T - rotate(R, anchor)
    N = q.shape[0]
    return np.broadcast_to(Ro, (N, 3, 3)), po + q[:, None] * (Ro @ a)


def joint_transforms(model: RobotModel, Q: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """[(R_i, p_i)] for every body: its frame in its parent's at the states Q (N, n).  The arithmetic of
    :func:`joint_transform` (Rodrigues' R = 1 + sin q a× + (1 − cos q) a× a×), on the model's constants computed
    once (:func:`crossdyn.spatial.compiled.compile_model`): the same numbers."""
    c = compile_model(model)
    out = []
    for i in range(model.n):
        q = Q[:, i]
        if c.rotates[i]:
            angle = q[..., None, None]
            R = c.Ro[i] @ (np.eye(3) + np.sin(angle) * c.K[i] + (1.0 - np.cos(angle)) * c.KK[i])
            out.append((R, c.fixed_p[i] - rotate(R, c.anchor[i])))
        else:
            out.append((np.broadcast_to(c.Ro[i], (q.shape[0], 3, 3)), c.po[i] + q[:, None] * c.Ra[i]))
    return out


def world_transforms(model: RobotModel, Q: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """[(⁰R_i, ⁰p_i)]: every body's frame in the world (= base) frame, by ⁰X_i = ⁰X_λ(i) X_i(q_i)."""
    out: list[tuple[np.ndarray, np.ndarray]] = []
    for i, (R, p) in enumerate(joint_transforms(model, Q)):
        lam = model.parents[i]
        if lam < 0:
            out.append((np.array(R), np.array(p)))
        else:
            R0, p0 = out[lam]
            out.append((R0 @ R, p0 + rotate(R0, p)))
    return out


def body_poses(model: RobotModel, Q) -> np.ndarray:
    """World poses of the bodies as 4×4 homogeneous transforms: (N, n, 4, 4), or (n, 4, 4) for one state."""
    (Q,), single = as_states(model, Q)
    N, n = Q.shape
    out = np.zeros((N, n, 4, 4), dtype=Q.dtype)
    out[..., 3, 3] = 1.0
    for i, (R, p) in enumerate(world_transforms(model, Q)):
        out[:, i, :3, :3] = R
        out[:, i, :3, 3] = p
    return out[0] if single else out


def com_positions(model: RobotModel, Q) -> np.ndarray:
    """World positions of the bodies' centres of mass, ⁰R_i c_i + ⁰p_i: (N, n, 3), or (n, 3) for one state."""
    (Q,), single = as_states(model, Q)
    out = np.stack([rotate(R, b.inertial.com) + p
                    for (R, p), b in zip(world_transforms(model, Q), model.bodies, strict=True)], axis=1)
    return out[0] if single else out


__all__ = ["Bodies", "as_states", "bodies", "bodies_of", "body_poses", "com_positions", "joint_transform", "joint_transforms",
           "motion_subspace", "world_transforms"]
