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
``tip_kinematics(q, qd)``        the contact sphere's centre (the ``tip`` frame): x (2,), ẋ (2,), J (2, n),
                                 from the engine's own library where it has one (:attr:`Engine.tip_source`)
"""
from __future__ import annotations

import abc
from typing import Callable

import numpy as np

from crossdyn.models.spec import ArmSpec


from crossdyn.errors import EngineError, EngineUnsupported  # noqa: E402,F401  (defined once, re-exported)


class Engine(abc.ABC):
    """Base class of the engine adapters (see the module docstring for the contract)."""

    name: str = "engine"
    integrator: str = ""
    supports: frozenset = frozenset()
    """Optional physics of the spec this adapter represents (``"armature"``).  An adapter that does not
    list one is reported "unsupported" for an arm that uses it (:meth:`unsupported`), never run silently
    without it."""

    def unsupported(self) -> list[str]:
        """Why this engine cannot represent this arm (empty: it can).  Each reason names the physics
        and the engine; ``compare`` marks such an engine "unsupported" instead of measuring it."""
        out = []
        if self.spec.has_armature and "armature" not in self.supports:
            links = [i for i, l in enumerate(self.spec.links, 1) if l.armature > 0]
            out.append(f"armature (reflected rotor inertia, joints {', '.join(map(str, links))}) is not modelled "
                       f"by {self.name}{self._unsupported_why.get('armature', '')}")
        return out

    _unsupported_why: dict = {}

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

    tip_source: str = "crossdyn.analytic.kinematics (end_effector, end_effector_jacobian; the engine has no tip frame of its own)"
    """Where :meth:`tip_kinematics` comes from (stated in every applied-contact run's ``config``)."""

    def tip_kinematics(self, q=None, qd=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The tip (the centre of the contact sphere, the end of the last link) in the world's x–y plane:

            x = x_tip(q) (2,),  ẋ = J(q) q̇ (2,),  J = ∂x_tip/∂q (2, n)

        at (q, q̇), or at the engine's current state when ``q`` is None.  Adapters with a tip frame of their own
        (MuJoCo site, PyBullet link, Pinocchio frame, Drake frame, DART body node) override this with their
        library's kinematics, so applied contact (:mod:`crossdyn.drive.runner`) also cross-checks their forward
        kinematics; this default is crossdyn's analytic kinematics (:attr:`tip_source`).
        """
        import math

        if q is None:
            q, qd = self.state()
        q = [float(v) for v in np.asarray(q, dtype=float).reshape(self.n)]
        qd = [0.0] * self.n if qd is None else [float(v) for v in np.asarray(qd, dtype=float).reshape(self.n)]
        L = self.__dict__.get("_tip_lengths")
        if L is None:
            L = self.__dict__["_tip_lengths"] = [float(l.length) for l in self.spec.links]
        # crossdyn.analytic.kinematics (end_effector, end_effector_jacobian) in plain floats: this runs every step
        th, segs = 0.0, []
        for qi, Li in zip(q, L):
            th += qi
            segs.append((Li * math.cos(th), Li * math.sin(th)))
        jx, jy, sx, sy = [0.0] * self.n, [0.0] * self.n, 0.0, 0.0
        for j in range(self.n - 1, -1, -1):  # column j sums the segments from link j to the tip
            sx += segs[j][0]
            sy += segs[j][1]
            jx[j], jy[j] = -sy, sx
        J = np.array([jx, jy])
        return np.array([sx, sy]), J @ np.array(qd), J

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
_REGISTRY_PREFIXED: dict[str, tuple[str, str, dict]] = {
    "user:": ("crossdyn.engines.user_engine", "UserModelEngine", {}),  # user:FILE, the file as ``path``
}
"""name → (module, class name, keyword arguments); imported lazily on first use."""


def register(name: str, module: str, cls: str, **kwargs) -> None:
    """Register an engine name (lazily imported ``module.cls(spec, dt, **kwargs)``)."""
    _REGISTRY[name] = (module, cls, kwargs)


def engine_names() -> list[str]:
    return list(_REGISTRY)


def split_options(name: str) -> tuple[str, dict]:
    """``"pybullet@link_damping=0.04@inertia_from_file=false"`` → ("pybullet", {...}).

    Options switch an adapter's keyword arguments from the command line (e.g. to put a
    neutralised engine default back on purpose).  Values are read as booleans
    (true/false), numbers, or else strings.
    """
    base, *parts = name.split("@")
    options: dict = {}
    for part in parts:
        key, sep, raw = part.partition("=")
        if not sep or not key.isidentifier():
            raise EngineError(f"engine {name!r}: option {part!r} must look like key=value")
        low = raw.strip().lower()
        if low in ("true", "false"):
            value: object = low == "true"
        else:
            try:
                value = int(raw) if raw.strip().lstrip("+-").isdigit() else float(raw)
            except ValueError:
                value = raw
        options[key] = value
    return base, options


def make_engine(name: str, spec: ArmSpec, dt: float = 1e-3, **options) -> Engine:
    """Build the engine registered as ``name`` for ``spec``.

    ``name`` may carry adapter options after ``@`` (see :func:`split_options`), e.g.
    ``pybullet@link_damping=0.04``.  Raises :class:`EngineError` naming the known engines
    for an unknown name, saying how to install it for one whose library is missing, and
    naming the option for an option the adapter does not take.
    """
    import importlib
    import inspect

    if isinstance(name, str) and "@" in name and not name.startswith("user:"):
        base, extra = split_options(name)
        engine = make_engine(base, spec, dt, **{**extra, **options})
        engine.name = name
        return engine
    if isinstance(name, str) and name.startswith("user:"):  # the user's own equations: user:FILE
        module, cls, _ = _REGISTRY_PREFIXED["user:"]
        return getattr(importlib.import_module(module), cls)(spec, dt, path=name[len("user:"):], **options)
    if name not in _REGISTRY:
        raise EngineError(f"unknown engine {name!r}; available engines: {', '.join(engine_names())}, user:FILE")
    module, cls, kwargs = _REGISTRY[name]
    try:
        mod = importlib.import_module(module)
    except ImportError as e:
        raise EngineError(f"engine {name!r} is not installed ({e}); available engines: "
                          f"{', '.join(available_engines())}") from None
    factory = getattr(mod, cls)
    accepted = inspect.signature(factory).parameters
    takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in accepted.values())
    unknown = [] if takes_any else [k for k in options if k not in accepted]
    if unknown:
        valid = [k for k in accepted if k not in ("spec", "dt")]
        raise EngineError(f"engine {name!r}: unknown option(s) {', '.join(unknown)}; it takes: {', '.join(valid)}")
    engine = factory(spec, dt, **{**kwargs, **options})
    engine.name = name  # messages and results carry the name it was asked for
    return engine


def available_engines() -> list[str]:
    """Registered engines whose library imports."""
    import importlib.util

    libs = {"crossdyn.engines.pybullet_engine": "pybullet", "crossdyn.engines.mujoco_engine": "mujoco",
            "crossdyn.engines.pinocchio_engine": "pinocchio", "crossdyn.engines.dart_engine": "dartpy",
            "crossdyn.engines.drake_engine": "pydrake", "crossdyn.engines.mjx_engine": "mujoco.mjx"}
    out = []
    for name, (module, _, _) in _REGISTRY.items():
        lib = libs.get(module)
        if lib is None or importlib.util.find_spec(lib) is not None:
            out.append(name)
    return out
