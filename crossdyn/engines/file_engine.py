"""The interface of an engine that loads a user's robot file (URDF or MJCF): :class:`FileEngine`.

A file engine is built from a :class:`~crossdyn.robots.model.RobotModel` (``model.source`` is the file it was read
from): the adapter writes the copy its library loads (:func:`crossdyn.robots.prepare.prepared_copy`: visual,
collision, transmission, actuator, contact, keyframe and sensor elements removed, listed in :meth:`config`), loads it,
neutralises the library's defaults that would change the dynamics (each listed in :meth:`config`, each switchable
back by ``name@key=value``) and answers in the MODEL's joint order: arrays are mapped by joint name.

Batched queries (``Q``, ``QD``, ``QDD``, ``TAU`` shaped (N, n); one state (n,) works too and gives one answer)::

    mass_matrix(Q)                 M(q)                        (N, n, n), armature on the diagonal as the engine reads it
    gravity(Q)                     G(q)                        (N, n)
    bias(Q, QD)                    C(q, q̇) q̇ + G(q)            (N, n)
    inverse_dynamics(Q, QD, QDD)   M(q) q̈ + C(q, q̇) q̇ + G(q)   (N, n)
    forward_dynamics(Q, QD, TAU)   M(q)⁻¹ (τ − C(q, q̇) q̇ − G(q))

with the rigid bodies and the armature as the engine reads them from the file; the file's joint damping and
friction are NOT included (``audit`` compares them as parameters).  Stepping (``reset``, ``step``, ``state``)
simulates the rigid bodies, the armature and, unless the engine's ``damping`` option is False, the file's viscous
joint damping −b q̇ (b from the model's joints); no limits, no Coulomb friction, no contact (each adapter's
:meth:`config` says how), and τ unclamped by the file's effort limits (``config()["effort_limits"]``).
"""
from __future__ import annotations

import abc
import tempfile
from dataclasses import asdict, dataclass, fields, is_dataclass
from pathlib import Path
from typing import Any, Callable, ClassVar

import numpy as np

from crossdyn.errors import EngineError, EngineUnsupported
from crossdyn.robots.model import Format, RobotModel


EFFORT_UNCLAMPED = ("not applied: tau goes in as a generalized force, whatever the file's effort (URDF <limit effort>, "
                    "MJCF actuatorfrcrange or actuator forcerange) says (measured per engine: "
                    "crossdyn.robotcompare.effort.file_effort_check)")
"""What :meth:`FileEngine.base_config` says of the file's effort limits (an adapter that cannot say it overrides it)."""


@dataclass(frozen=True)
class FileOptions:
    """Knobs every file engine has (an adapter's ``Options`` subclasses this)."""

    damping: bool = True
    """Stepping applies the file's viscous joint damping −b q̇ (queries never include it)."""


def as_batch(a: np.ndarray | Any, n: int, what: str) -> tuple[np.ndarray, bool]:
    """``a`` as a float (N, n) array and whether it was one state (n,)."""
    x = np.asarray(a, dtype=float)
    single = x.ndim == 1
    x = np.atleast_2d(x)
    if x.ndim != 2 or x.shape[1] != n:
        raise EngineError(f"{what}: expected shape (N, {n}) or ({n},), got {np.shape(a)}")
    return x, single


def joint_permutation(model_names: tuple[str, ...], engine_names: list[str], engine: str) -> np.ndarray:
    """idx with ``engine_vector[idx] = model_vector``: the engine's coordinate of each model joint, by name.

    Raises :class:`EngineError` naming the joints one side has and the other lacks."""
    where = {name: i for i, name in enumerate(engine_names)}
    missing = [j for j in model_names if j not in where]
    extra = [j for j in engine_names if j not in set(model_names)]
    if missing or extra:
        raise EngineError(f"{engine}: the engine's joints differ from the model's: missing {missing}, extra {extra}")
    return np.array([where[j] for j in model_names], dtype=int)


class FileEngine(abc.ABC):
    """An engine loading a user's robot file (see the module docstring for the contract)."""

    name: str = "file-engine"
    formats: ClassVar[frozenset[Format]] = frozenset()
    """The formats this adapter reads."""
    Options: ClassVar[type] = FileOptions
    integrator: str = ""
    dtype: ClassVar[str] = "float64"
    """The floating-point type the engine computes in (a float32 engine is judged with a float32 round-off term,
    :mod:`crossdyn.engines.precision`)."""
    unsupported_formats: ClassVar[dict[Format, str]] = {}
    """Format → why this engine does not read it (the table in docs)."""

    def __init__(self, model: RobotModel, dt: float = 1e-3, options: Any = None, **kw: Any):
        if not dt > 0:
            raise EngineError(f"{self.name}: dt must be > 0 s, got {dt!r}")
        self.model = model
        self.n = model.n
        self.dt = float(dt)
        self.options = options if options is not None else self.Options(**kw)
        if model.format not in self.formats:
            raise EngineUnsupported(f"{self.name}: {self.unsupported_formats.get(model.format, 'cannot read')} "
                                    f"({model.source})")
        self._tmp = tempfile.TemporaryDirectory(prefix=f"crossdyn-{self.name}-")
        self.folder = Path(self._tmp.name)
        self._q = np.zeros(self.n)
        self._qd = np.zeros(self.n)
        self._b = np.array([j.damping for j in model.joints], dtype=float)
        self._idx = np.arange(self.n)

    # ---- joint order -------------------------------------------------------------------------------------------
    def set_joint_order(self, engine_names: list[str]) -> None:
        """Map the model's joints onto the engine's coordinates by name (see :func:`joint_permutation`); a file whose
        joints have no names (MJCF allows it) is mapped in file order when the counts agree (``joint_order``)."""
        self.joint_order = "by name"
        if any(not name for name in engine_names) and len(engine_names) == self.n:
            self.joint_order = "in file order (the file's joints are unnamed)"
            self._idx = np.arange(self.n)
            return
        self._idx = joint_permutation(self.model.joint_names, list(engine_names), self.name)

    def to_engine(self, X: np.ndarray) -> np.ndarray:
        """Model-order rows (N, n) → engine-order rows."""
        out = np.empty_like(X)
        out[:, self._idx] = X
        return out

    def to_model(self, X: np.ndarray) -> np.ndarray:
        """Engine-order rows (N, n) → model order."""
        return X[:, self._idx]

    # ---- the batched queries, built on the per-engine hooks ---------------------------------------------------
    def _batched(self, fn: Callable[..., np.ndarray], *arrays: Any) -> np.ndarray:
        batches = [as_batch(a, self.n, f"{self.name}") for a in arrays]
        single = batches[0][1]
        N = batches[0][0].shape[0]
        if any(b[0].shape[0] != N for b in batches):
            raise EngineError(f"{self.name}: arrays have different numbers of states")
        out = fn(*(self.to_engine(b[0]) for b in batches))
        if out.ndim == 3:
            out = out[:, self._idx][:, :, self._idx]
        else:
            out = self.to_model(out)
        return out[0] if single else out

    def mass_matrix(self, Q: np.ndarray) -> np.ndarray:
        """M(q), (N, n, n), armature included as the engine reads it."""
        return self._batched(self._mass_matrix, Q)

    def gravity(self, Q: np.ndarray) -> np.ndarray:
        """G(q), (N, n)."""
        return self._batched(self._gravity, Q)

    def bias(self, Q: np.ndarray, QD: np.ndarray) -> np.ndarray:
        """C(q, q̇) q̇ + G(q), (N, n)."""
        return self._batched(self._bias, Q, QD)

    def inverse_dynamics(self, Q: np.ndarray, QD: np.ndarray, QDD: np.ndarray) -> np.ndarray:
        """M q̈ + C q̇ + G, (N, n): rigid bodies + armature, no joint damping or friction."""
        return self._batched(self._inverse_dynamics, Q, QD, QDD)

    def forward_dynamics(self, Q: np.ndarray, QD: np.ndarray, TAU: np.ndarray) -> np.ndarray:
        """q̈ = M⁻¹ (τ − C q̇ − G), (N, n): no joint damping or friction."""
        return self._batched(self._forward_dynamics, Q, QD, TAU)

    @abc.abstractmethod
    def _mass_matrix(self, Q: np.ndarray) -> np.ndarray: ...

    @abc.abstractmethod
    def _bias(self, Q: np.ndarray, QD: np.ndarray) -> np.ndarray: ...

    def _gravity(self, Q: np.ndarray) -> np.ndarray:
        return self._bias(Q, np.zeros_like(Q))

    def _inverse_dynamics(self, Q: np.ndarray, QD: np.ndarray, QDD: np.ndarray) -> np.ndarray:
        return np.einsum("nij,nj->ni", self._mass_matrix(Q), QDD) + self._bias(Q, QD)

    def _forward_dynamics(self, Q: np.ndarray, QD: np.ndarray, TAU: np.ndarray) -> np.ndarray:
        return np.linalg.solve(self._mass_matrix(Q), (TAU - self._bias(Q, QD))[..., None])[..., 0]

    # ---- stepping: RK4 on the engine's own forward dynamics unless the adapter has its own -------------------
    def reset(self, q: np.ndarray, qd: np.ndarray) -> None:
        self._q = np.array(q, dtype=float).reshape(self.n)
        self._qd = np.array(qd, dtype=float).reshape(self.n)

    def state(self) -> tuple[np.ndarray, np.ndarray]:
        return self._q.copy(), self._qd.copy()

    def _qdd(self, q: np.ndarray, qd: np.ndarray, tau: np.ndarray) -> np.ndarray:
        damping = self._b * qd if self.options.damping else 0.0
        return self.forward_dynamics(q, qd, tau - damping)

    def step(self, tau: np.ndarray) -> None:
        """One step of dt, τ held (default: classical RK4 on the engine's forward dynamics, damping explicit)."""
        tau = np.asarray(tau, dtype=float).reshape(self.n)
        q, v, h = self._q, self._qd, self.dt
        k1q, k1v = v, self._qdd(q, v, tau)
        k2q, k2v = v + 0.5 * h * k1v, self._qdd(q + 0.5 * h * k1q, v + 0.5 * h * k1v, tau)
        k3q, k3v = v + 0.5 * h * k2v, self._qdd(q + 0.5 * h * k2q, v + 0.5 * h * k2v, tau)
        k4q, k4v = v + h * k3v, self._qdd(q + h * k3q, v + h * k3v, tau)
        self._q = q + h / 6 * (k1q + 2 * k2q + 2 * k3q + k4q)
        self._qd = v + h / 6 * (k1v + 2 * k2v + 2 * k3v + k4v)

    # ---- what the engine did to the file ----------------------------------------------------------------------
    def options_dict(self) -> dict:
        return asdict(self.options) if is_dataclass(self.options) and not isinstance(self.options, type) else {}

    def base_config(self) -> dict:
        """What every adapter reports: the file, the format, the model's joint order, gravity, dt, the options."""
        return {"engine": self.name, "file": self.model.source, "format": self.model.format.value,
                "joints": list(self.model.joint_names), "gravity": self.model.gravity.tolist(), "dt": self.dt,
                "integrator": self.integrator, "joint_order": getattr(self, "joint_order", "by name"), "options": self.options_dict(),
                "queries": "rigid bodies + armature as the engine reads them; joint damping and friction excluded",
                "stepping_damping": ("the file's joint damping -b*qd" if self.options.damping
                                     else "off (damping=false)"),
                "effort_limits": EFFORT_UNCLAMPED}

    @abc.abstractmethod
    def config(self) -> dict:
        """Every setting that can change the physics, what was neutralised and what the copy lacks."""

    @classmethod
    def option_names(cls) -> list[str]:
        return [f.name for f in fields(cls.Options)]

    def close(self) -> None:
        self._tmp.cleanup()
