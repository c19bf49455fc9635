"""The engine interface every adapter implements, and the engine registry.

An engine is built from an :class:`~crossdyn.models.spec.ArmSpec` (through the
generated URDF or MJCF, never a hand-written model) and a time step ``dt``.
All quantities follow :mod:`crossdyn.conventions`: SI, radians, relative joint
angles, gravity from the spec, and

    M(q) q̈ + C(q, q̇) q̇ + G(q) + F(q̇) = τ.

Methods
-------
``reset(q, qd)``                 set the state
``step(tau)``                    advance one step of ``dt`` holding τ constant (zero-order hold)
``state() -> (q, qd)``           copies of the current state
``inverse_dynamics(q, qd, qdd)`` τ that produces q̈ at (q, q̇), joint friction included where the engine models it
``mass_matrix(q)``               M(q), symmetric, (n, n)
``forward_dynamics(q, qd, tau)`` q̈ at (q, q̇) under τ, without integrating
``energy(q, qd) -> (T, U)``      kinetic and potential energy (U as in :mod:`crossdyn.analytic.energy`)
``config()``                     every setting that can change the physics, as a JSON-able dict
"""
from __future__ import annotations

import abc
from typing import Callable

import numpy as np

from crossdyn.models.spec import ArmSpec


class EngineError(RuntimeError):
    """An engine could not be built or used (not installed, unknown name, library error)."""


class Engine(abc.ABC):
    """Base class of the engine adapters (see the module docstring for the contract)."""

    name: str = "engine"
    integrator: str = ""

    def __init__(self, spec: ArmSpec, dt: float = 1e-3):
        if not (isinstance(dt, (int, float)) and dt > 0 and np.isfinite(dt)):
            raise EngineError(f"dt: must be a positive number of seconds, got {dt!r}")
        self.spec = spec
        self.n = spec.n
        self.dt = float(dt)

    @abc.abstractmethod
    def reset(self, q, qd) -> None: ...

    @abc.abstractmethod
    def step(self, tau) -> None: ...

    @abc.abstractmethod
    def state(self) -> tuple[np.ndarray, np.ndarray]: ...

    @abc.abstractmethod
    def inverse_dynamics(self, q, qd, qdd) -> np.ndarray: ...

    @abc.abstractmethod
    def mass_matrix(self, q) -> np.ndarray: ...

    @abc.abstractmethod
    def forward_dynamics(self, q, qd, tau) -> np.ndarray: ...

    @abc.abstractmethod
    def energy(self, q, qd) -> tuple[float, float]: ...

    @abc.abstractmethod
    def config(self) -> dict: ...

    def close(self) -> None:
        """Release engine resources (e.g. a PyBullet client)."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r} {self.spec.name} dt={self.dt}>"


EngineFactory = Callable[..., Engine]
_REGISTRY: dict[str, tuple[str, str, dict]] = {}
"""name → (module, class name, keyword arguments); imported lazily on first use."""


def register(name: str, module: str, cls: str, **kwargs) -> None:
    """Register an engine name (lazily imported ``module.cls(spec, dt, **kwargs)``)."""
    _REGISTRY[name] = (module, cls, kwargs)


def engine_names() -> list[str]:
    return list(_REGISTRY)


def make_engine(name: str, spec: ArmSpec, dt: float = 1e-3, **options) -> Engine:
    """Build the engine registered as ``name`` for ``spec``.

    Raises :class:`EngineError` naming the known engines for an unknown name, and
    saying how to install it for one whose library is missing.
    """
    import importlib

    if isinstance(name, str) and name.startswith("user:"):
        from crossdyn.engines.user_engine import UserModelEngine

        return UserModelEngine(spec, dt, path=name[len("user:"):], **options)
    if name not in _REGISTRY:
        raise EngineError(f"unknown engine {name!r}; available engines: {', '.join(engine_names())}, user:FILE")
    module, cls, kwargs = _REGISTRY[name]
    try:
        mod = importlib.import_module(module)
    except ImportError as e:
        raise EngineError(f"engine {name!r} is not installed ({e}); available engines: "
                          f"{', '.join(available_engines())}") from None
    return getattr(mod, cls)(spec, dt, **{**kwargs, **options})


def available_engines() -> list[str]:
    """Registered engines whose library imports."""
    import importlib.util

    libs = {"crossdyn.engines.pybullet_engine": "pybullet", "crossdyn.engines.mujoco_engine": "mujoco",
            "crossdyn.engines.pinocchio_engine": "pinocchio"}
    out = []
    for name, (module, _, _) in _REGISTRY.items():
        lib = libs.get(module)
        if lib is None or importlib.util.find_spec(lib) is not None:
            out.append(name)
    return out
