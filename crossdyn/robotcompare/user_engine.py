"""``user:FILE`` on a textbook DH arm: the user's own M(q), C(q, q̇), G(q) — the file ``crossdyn check ARM FILE``
checks — as an engine of ``compare ARM``, beside the engines that load the URDF and MJCF crossdyn writes of the arm.

The user's functions take ``p`` with the arm's parameter names (:class:`~crossdyn.equations.params.NamedParams`:
``p.m2``, ``p.d1``, ``p.g``, …, the layout of :class:`~crossdyn.checking.spatial_arms.SpatialArm`), at the arm's own
values.  Queries: M from ``M``, the bias C q̇ + G from ``C`` (a matrix or the vector C q̇) and ``G``; inverse and
forward dynamics from those (:class:`~crossdyn.engines.file_engine.FileEngine`'s defaults).  Stepping: crossdyn's
RK4 on that forward dynamics, the arm's joint damping explicit (the ``user:`` engine of a planar arm steps the same
way).  The user's code runs sandboxed (``--sandbox``, :mod:`crossdyn.sandbox`) as in ``check``.

A robot file (URDF, MJCF) has no parameter names crossdyn gives a user's equations: ``user:FILE`` is unsupported
there, naming why.
"""
from __future__ import annotations

import io
from typing import Any

import numpy as np

from crossdyn.engines.file_engine import FileEngine
from crossdyn.errors import EngineError, EngineUnsupported
from crossdyn.robots.model import Format, RobotModel

PREFIX = "user:"
NOT_A_DH_ARM = ("a user's equations take p with the parameter names crossdyn gives a planar preset or a textbook "
                "DH arm (crossdyn check ARM FILE); a robot file's URDF or MJCF names none")


def spatial_arm_of(model: RobotModel):
    """The check's :class:`~crossdyn.checking.spatial_arms.SpatialArm` of the arm ``model`` was built from (a spatial
    preset by name, a spatial spec by its file), or None for a robot file."""
    from crossdyn.checking.spatial_arms import load_spatial
    from crossdyn.errors import InputError

    for arm in (model.name, model.source):
        try:
            return load_spatial(arm)
        except (InputError, OSError, ValueError):
            continue
    return None


class UserEquationsFileEngine(FileEngine):
    name = PREFIX
    formats = frozenset({Format.URDF, Format.MJCF})
    integrator = "rk4 (crossdyn's, on your M, C and G)"

    def __init__(self, model: RobotModel, dt: float = 1e-3, options: Any = None, *, path: str, **kw: Any):
        super().__init__(model, dt, options, **kw)
        from crossdyn.equations.loader import load_model
        from crossdyn.equations.params import NamedParams
        from crossdyn.equations.protocol import UserFileError

        self.path = path
        self.arm = spatial_arm_of(model)
        if self.arm is None:
            raise EngineUnsupported(f"user:{path}: {NOT_A_DH_ARM} ({model.source})")
        if self.arm.n != model.n:
            raise EngineError(f"user:{path}: the arm {self.arm.name} has {self.arm.n} joints, the model {model.n}")
        try:
            self.equations = load_model(path, model.n)
        except UserFileError as e:
            raise EngineError(f"user:{path}: {e}") from None
        missing = [r for r in ("M", "G") if not self.equations.has(r)]
        if missing:
            raise EngineError(f"user:{path}: the file defines no {' or '.join(missing)} (an engine needs M, C and G)")
        self.row = self.arm.row(self.arm.values)
        self.p = NamedParams(self.arm.layout, self.row, model.n)
        self.printed = io.StringIO()
        self.set_joint_order(list(model.joint_names))

    def _values(self, Q: np.ndarray, QD: np.ndarray, roles: tuple[str, ...]) -> dict[str, np.ndarray]:
        from crossdyn.checking.spatial_eval import evaluate_user

        out = evaluate_user(self.equations, self.arm, [self.arm.values], Q, QD, self.printed, roles)
        return {k: v[0] for k, v in out.items()}

    def _mass_matrix(self, Q: np.ndarray) -> np.ndarray:
        return self._values(Q, np.zeros_like(Q), ("M",))["M"]

    def _bias(self, Q: np.ndarray, QD: np.ndarray) -> np.ndarray:
        got = self._values(Q, QD, ("C", "G"))
        return got["G"] + (got["Cqd"] if "Cqd" in got else 0.0)

    def _gravity(self, Q: np.ndarray) -> np.ndarray:
        return self._values(Q, np.zeros_like(Q), ("G",))["G"]

    def close(self) -> None:
        closer = getattr(self.equations, "close", None)
        if callable(closer):
            closer()
        super().close()

    def config(self) -> dict:
        return {**self.base_config(), "file": self.path, "equations": f"your M, C, G from {self.path}",
                "parameters": f"the arm {self.arm.name}'s own values, p with its names ({', '.join(self.arm.layout)})",
                "stepping": self.integrator + "; the arm's joint damping explicit"}
