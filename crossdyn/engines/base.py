"""The engine interface every adapter implements: :class:`Engine`, its :class:`Capabilities`, and its optional hooks.

An engine is built from an :class:`~crossdyn.models.spec.ArmSpec` (through the
generated URDF or MJCF, never a hand-written model) and a time step ``dt``.
All quantities follow :mod:`crossdyn.conventions`: SI, radians, relative joint
angles, gravity from the spec, and

    M(q) q̈ + C(q, q̇) q̇ + G(q) + F(q̇) = τ.

Methods every adapter implements
--------------------------------
``reset(q, qd)``                 set the state
``step(tau)``                    advance one step of ``dt`` holding τ constant (zero-order hold)
``state() -> (q, qd)``           copies of the current state
``inverse_dynamics(q, qd, qdd)`` τ that produces q̈ at (q, q̇), joint friction included where the engine models it
``mass_matrix(q)``               M(q), symmetric, (n, n)
``forward_dynamics(q, qd, tau)`` q̈ at (q, q̇) under τ, without integrating
``energy(q, qd) -> (T, U)``      kinetic and potential energy (U as in :mod:`crossdyn.analytic.energy`)
``config()``                     every setting that can change the physics, as a JSON-able dict

Hooks with a default here (an adapter overrides the ones it has; :attr:`Engine.capabilities` says which)
----------------------------------------------------------------------------------------------------------
``read_state_into(q, qd)``       the state written into preallocated rows (default: from ``state()``)
``tip_kinematics(q, qd)``        the contact sphere's centre (the ``tip`` frame): x (2,), ẋ (2,), J (2, n), from the
                                 engine's own library where it has one (``capabilities.tip_frame``,
                                 :attr:`Engine.tip_source`), else crossdyn's analytic kinematics
``step_applied(tau, extra)``     one step with τ to the actuators and ``extra`` applied around them
                                 (``capabilities.step_applied``; default: :class:`EngineUnsupported`)
``rollout(tau)``                 a whole open-loop run in one library call (``capabilities.rollout``)
``rollout_many(q0, qd0, tau)``   several open-loop runs in one library call (``capabilities.batch``)
``set_applied_friction(law)``    the regularised Coulomb law the runner applies (:attr:`Engine.applied_friction`)
``set_contact(*settings)``       the native contact's softness in the engine's own terms (calibration)
``set_limit_settings(**kw)``     the native limit's settings in the engine's own terms (calibration)
``contact_points()``             the native contact points after the last step
``contact_forces(q, qd)``        the engine's generalized contact forces at (q, q̇)
``stiffest_friction()``          the native dry friction set to its stiffest (what was set; None: no such setting)
``warnings()``                   the library's warnings so far (name → count; default: none)

State an adapter sets for the runner and ``compare`` (class defaults here): :attr:`Engine.native_limits`,
:attr:`Engine.native_contact`, :attr:`Engine.contact_implicit`, :attr:`Engine.contact_in_forward_dynamics`,
:attr:`Engine.velocity_clamp`, :attr:`Engine.clamped_at`, :attr:`Engine.error_controlled`,
:attr:`Engine.accuracy`, :attr:`Engine.order`, :attr:`Engine.dtype`.

The registry (names → adapters, ``name@key=value`` options) is :mod:`crossdyn.engines.registry`.
"""
from __future__ import annotations

import abc
import math
from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING, Any, Callable, ClassVar

import numpy as np

from crossdyn.errors import EngineError, EngineUnsupported
from crossdyn.models.spec import ArmSpec, ContactSpec

if TYPE_CHECKING:
    from crossdyn.analytic.laws.friction import FrictionLaw


@dataclass(frozen=True)
class Capabilities:
    """What an adapter class can do beyond the required methods; each adapter sets its own as a class attribute
    (:attr:`Engine.capabilities`), and an instance may narrow it to its variant (Drake's continuous plants have
    no native limits or contact; DART's limits run in ``World.step`` only).

    Callers test these flags instead of probing for attributes; a hook whose flag is False raises
    :class:`EngineUnsupported` (or returns its stated default)."""

    native_limits: bool = False
    """Can enforce the spec's joint limits with its own mechanism (option ``native_limits`` / ``enforce_limits``)."""
    native_contact: bool = False
    """Has tip–obstacle contact of its own (option ``native_contact``)."""
    native_friction: bool = False
    """Applies the spec's Coulomb friction f_c itself (a constraint, or f_c sign(q̇)); without it an arm with
    f_c > 0 is refused (:class:`EngineUnsupported`) or the runner applies crossdyn's law."""
    armature: bool = False
    """Models the spec's rotor armature I_a (reflected inertia on M's diagonal); without it such an arm is reported
    unsupported (:meth:`Engine.unsupported`)."""
    effort: bool = False
    """Its actuators clamp τ to the spec's effort limit natively (MuJoCo ``forcerange``, Drake ``effort_limit``)."""
    tip_frame: bool = False
    """:meth:`Engine.tip_kinematics` comes from the engine's own library (a site, link, frame or body node)."""
    error_control: bool = False
    """Its integrator can be error-controlled (an ``accuracy`` target sets the error, not dt)."""
    step_applied: bool = False
    """Has :meth:`Engine.step_applied`: τ to the actuators, the runner's law torques applied around them."""
    rollout: bool = False
    """Has :meth:`Engine.rollout`: an open-loop run in one library call (bit-identical to stepping)."""
    batch: bool = False
    """Has :meth:`Engine.rollout_many`: several open-loop runs in one library call."""

    def names(self) -> frozenset[str]:
        """The flags that are set, by name."""
        return frozenset(f.name for f in fields(self) if getattr(self, f.name))


class Engine(abc.ABC):
    """Base class of the engine adapters (see the module docstring for the contract)."""

    name: str = "engine"
    integrator: str = ""
    capabilities: Capabilities = Capabilities()
    """What this adapter can do (an instance may narrow its class's record to its variant)."""
    Options: ClassVar[type | None] = None
    """The adapter's frozen options dataclass (its knobs, ``name@key=value``), or None: keywords of ``__init__``."""

    # state the runner and ``compare`` read; adapters that have it set it in their own __init__
    native_limits: bool = False
    """This instance enforces the spec's joint limits itself (crossdyn's applied limit law must then be off)."""
    native_contact: bool = False
    """This instance has its own tip–obstacle contact (crossdyn's applied contact law must then be off)."""
    contact_implicit: bool = False
    """The native contact's spring–damper is solved implicitly over the step (PyBullet's ERP/CFM, Drake's SAP)."""
    contact_in_forward_dynamics: bool = False
    """:meth:`forward_dynamics` includes the native contact's force (MuJoCo's mj_forward)."""
    velocity_clamp: float | None = None
    """``|q̇|`` (rad/s) at which the engine clamps joint velocities, or None (no clamp)."""
    clamped_at: float | None = None
    """Time at which a joint speed first reached :attr:`velocity_clamp` (None: never)."""
    accuracy: float | None = None
    """The error-controlled integrator's target accuracy, or None."""
    order: int | None = None
    """The integrator's order where the adapter states it (Drake's RK2/RK3/RK5), else None."""
    applied_friction: FrictionLaw | None = None
    """The regularised Coulomb law the runner applies to this engine (:meth:`set_applied_friction`), or None."""
    dtype: str = "float64"
    """The floating-point type the engine computes in (MJX: its ``dtype`` option, float32 by default).  A narrower
    type widens every tolerance by its round-off (:mod:`crossdyn.engines.precision`)."""

    @property
    def supports(self) -> frozenset:
        """Optional physics of the spec this adapter represents (``"armature"``), from :attr:`capabilities`.  An
        adapter that does not list one is reported "unsupported" for an arm that uses it (:meth:`unsupported`),
        never run silently without it."""
        return frozenset({"armature"}) if self.capabilities.armature else frozenset()

    def unsupported(self) -> list[str]:
        """Why this engine cannot represent this arm (empty: it can).  Each reason names the physics
        and the engine; ``compare`` marks such an engine "unsupported" instead of measuring it."""
        out = []
        if self.spec.has_armature and "armature" not in self.supports:
            links = [i for i, lk in enumerate(self.spec.links, 1) if lk.armature > 0]
            out.append(f"armature (reflected rotor inertia, joints {', '.join(map(str, links))}) is not modelled "
                       f"by {self.name}{self._unsupported_why.get('armature', '')}")
        return out

    _unsupported_why: ClassVar[dict[str, str]] = {}

    def __init__(self, spec: ArmSpec, dt: float = 1e-3):
        if not (isinstance(dt, (int, float)) and dt > 0 and np.isfinite(dt)):
            raise EngineError(f"dt: must be a positive number of seconds, got {dt!r}")
        self.spec = spec
        self.n = spec.n
        self.dt = float(dt)

    def _contact_spec(self) -> ContactSpec:
        """The spec's ``[contact]`` table (adapters ask for it only with native contact, which needs one)."""
        if self.spec.contact is None:
            raise EngineError(f"{self.name}: arm {self.spec.name!r} has no [contact] and [[obstacles]]")
        return self.spec.contact

    @classmethod
    def _options(cls, options: Any, knobs: dict[str, Any]) -> Any:
        """The adapter's options: ``options`` (an instance of :attr:`Options`, or None for the defaults) with the
        keyword ``knobs`` replaced; an unknown knob raises :class:`EngineError` naming the valid ones."""
        opts = cls.Options
        if opts is None:
            raise TypeError(f"{cls.__name__} declares no Options dataclass")
        if options is not None and not isinstance(options, opts):
            raise EngineError(f"{cls.name} options: must be a {opts.__name__}, got {options!r}")
        base: Any = opts() if options is None else options
        valid = [f.name for f in fields(opts)]
        unknown = [k for k in knobs if k not in valid]
        if unknown:
            raise EngineError(f"engine {cls.name!r}: unknown option(s) {', '.join(unknown)}; it takes: "
                              f"{', '.join(valid)}")
        return replace(base, **knobs) if knobs else base

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

    # ------------------------------------------------------------------ hooks with a default
    def read_state_into(self, q_out: np.ndarray, qd_out: np.ndarray) -> None:
        """Write the current state into preallocated rows (the runner's fast path; by default from :meth:`state`)."""
        q_out[:], qd_out[:] = self.state()

    @property
    def error_controlled(self) -> bool:
        """True when the step error, not dt, sets the accuracy (an error-controlled integrator at :attr:`accuracy`)."""
        return False

    def set_applied_friction(self, law: FrictionLaw | None) -> None:
        """Give the runner the regularised Coulomb law to apply to this engine (None: none).  ``compare`` builds
        such engines from the spec with f_c = 0, so their own friction is off and the law is the only one."""
        self.applied_friction = law

    def step_applied(self, tau, extra) -> None:
        """One step with the actuators given τ (clamped natively to their effort limits) and ``extra`` applied as a
        generalized force around them (the runner's limit, friction and contact torques), so that an actuator
        clamp never clamps the laws' torque (``capabilities.step_applied``)."""
        raise EngineUnsupported(f"{self.name}: no applied-torque path around its actuators (step_applied)")

    def rollout(self, tau: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Step through the open-loop torque sequence ``tau`` (K, n) in one library call from the current state;
        the K states after each step, bit-identical to K calls of :meth:`step` (``capabilities.rollout``)."""
        raise EngineUnsupported(f"{self.name}: no one-call rollout")

    def rollout_many(self, q0: np.ndarray, qd0: np.ndarray, tau: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """B open-loop runs from (B, n) starts under (B, K, n) torques in one library call; q, q̇ of shape (B, K, n),
        bit-identical to B runs of :meth:`rollout`; the engine's own state untouched (``capabilities.batch``)."""
        raise EngineUnsupported(f"{self.name}: no batched rollout")

    def set_contact(self, *settings: Any) -> None:
        """Set the native contact's softness, in the engine's own terms (MuJoCo: solref, solimp; PyBullet:
        contactStiffness, contactDamping) — for calibration."""
        raise EngineUnsupported(f"{self.name}: no native contact settings")

    def set_limit_settings(self, *args: Any, **settings: Any) -> None:
        """Set the native joint limit's settings, in the engine's own terms (PyBullet: limit_force, limit_erp) —
        for calibration."""
        raise EngineUnsupported(f"{self.name}: no native limit settings")

    def contact_points(self) -> list:
        """The engine's native contact points between the tip and the obstacles after the last step."""
        raise EngineUnsupported(f"{self.name}: no native contact points")

    def contact_forces(self, q, qd=None) -> np.ndarray:
        """The generalized contact forces the engine computes at (q, q̇)."""
        raise EngineUnsupported(f"{self.name}: no contact forces of its own")

    def stiffest_friction(self) -> str | None:
        """Set the engine's dry-friction softness to the stiffest it allows and say what was set; None (the
        default): it has no such setting."""
        return None

    def warnings(self) -> dict[str, int]:
        """The library's warnings raised so far on the simulated state (name → count); none by default."""
        return {}

    tip_source: str = "crossdyn.analytic.kinematics (end_effector, end_effector_jacobian; the engine has no tip frame of its own)"
    """Where :meth:`tip_kinematics` comes from (stated in every applied-contact run's ``config``)."""

    def tip_kinematics(self, q=None, qd=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The tip (the centre of the contact sphere, the end of the last link) in the world's x–y plane:

            x = x_tip(q) (2,),  ẋ = J(q) q̇ (2,),  J = ∂x_tip/∂q (2, n)

        at (q, q̇), or at the engine's current state when ``q`` is None.  Adapters with a tip frame of their own
        (MuJoCo, MuJoCo Warp and MJX site, PyBullet link, Pinocchio frame, Drake frame, DART body node, Newton site
        on its body pose, Genesis link; ``capabilities.tip_frame``)
        override this with their library's kinematics, so applied contact (:mod:`crossdyn.drive.runner`) also
        cross-checks their forward kinematics; this default is crossdyn's analytic kinematics (:attr:`tip_source`).
        """
        if q is None:
            q, qd = self.state()
        qs = [float(v) for v in np.asarray(q, dtype=float).reshape(self.n)]
        qds = [0.0] * self.n if qd is None else [float(v) for v in np.asarray(qd, dtype=float).reshape(self.n)]
        L = self.__dict__.get("_tip_lengths")
        if L is None:
            L = self.__dict__["_tip_lengths"] = [float(lk.length) for lk in self.spec.links]
        # crossdyn.analytic.kinematics (end_effector, end_effector_jacobian) in plain floats: this runs every step
        th, segs = 0.0, []
        for qi, Li in zip(qs, L, strict=True):
            th += qi
            segs.append((Li * math.cos(th), Li * math.sin(th)))
        jx, jy, sx, sy = [0.0] * self.n, [0.0] * self.n, 0.0, 0.0
        for j in range(self.n - 1, -1, -1):  # column j sums the segments from link j to the tip
            sx += segs[j][0]
            sy += segs[j][1]
            jx[j], jy[j] = -sy, sx
        J = np.array([jx, jy])
        return np.array([sx, sy]), J @ np.array(qds), J

    def close(self) -> None:
        """Release engine resources (e.g. a PyBullet client); nothing to release by default."""
        return None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r} {self.spec.name} dt={self.dt}>"


EngineFactory = Callable[..., Engine]

__all__ = ["Capabilities", "Engine", "EngineError", "EngineFactory", "EngineUnsupported"]
