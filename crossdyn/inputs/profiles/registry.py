"""The one registry of profiles: for each name its builder, its one-line description and its parameters with their
typed defaults (:data:`REGISTRY`).

:func:`make_profile` fills every parameter left out (or given as None) from :data:`PROFILE_PARAMS`, and
``crossdyn compare --list-profiles`` (:func:`crossdyn.inputs.profile_options.format_profile_list`) prints the same
entries, so the builder and the help cannot disagree.  Defaults that depend on the arm are :class:`FromSpec`
rules: open-loop torques scale with :func:`joint_gravity_scale`, targets start from
:func:`hanging_configuration`.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any, Callable

import numpy as np

from crossdyn.analytic.gravity_helpers import hanging_configuration, joint_gravity_scale
from crossdyn.inputs.profiles.base import Profile, ProfileError, _scalar, _vector
from crossdyn.inputs.profiles.closed_loop import ComputedTorqueProfile, PDGravityProfile
from crossdyn.inputs.profiles.contact import DROP_HEIGHT, SWING_ANGLE, PressProfile, make_drop, make_swing
from crossdyn.inputs.profiles.csv_file import CSVProfile
from crossdyn.inputs.profiles.open_loop import (
    ChirpProfile, ConstantProfile, MotionMultiSineProfile, MultiSineProfile, SineProfile, StepProfile, ZeroProfile,
)
from crossdyn.inputs.trajectories import JointTrajectory, cubic, quintic
from crossdyn.models.spec import ArmSpec

DEFAULT_TORQUE_FRACTION = 0.2
"""Open-loop profiles built by name without torques apply this fraction of each joint's gravity torque scale
(:func:`joint_gravity_scale`): enough to move the arm visibly, too little to flip it over."""

DEFAULT_STEP_RAD = 0.5
"""Closed-loop profiles built by name without a target move every joint this far from hanging."""

DEFAULT_MOVE_S = 2.0
"""Duration of the default computed-torque / pd-gravity trajectory (quintic, rest to rest)."""


def default_move(spec: ArmSpec, kind: str = "quintic", time: float = DEFAULT_MOVE_S, start=None,
                 to=None) -> JointTrajectory:
    """A rest-to-rest move from ``start`` (default: hanging) to ``to`` (default: start + 0.5 rad per joint)
    in ``time`` seconds, ``kind`` cubic or quintic."""
    q_a = hanging_configuration(spec) if start is None else _vector(start, spec.n, "from")
    q_b = q_a + DEFAULT_STEP_RAD if to is None else _vector(to, spec.n, "to")
    time = _scalar(time, "time", positive=True)
    if kind not in ("cubic", "quintic"):
        raise ProfileError(f"kind: must be cubic or quintic, got {kind!r}")
    return (cubic if kind == "cubic" else quintic)([0.0, time], [q_a, q_b])


@dataclass(frozen=True)
class FromSpec:
    """A default that depends on the arm: ``rule(spec)`` is the value, ``text`` how the help states it."""

    text: str
    rule: Callable[[ArmSpec], Any]


def _gravity_torque(spec: ArmSpec) -> np.ndarray:
    """τ_i = DEFAULT_TORQUE_FRACTION × joint i's gravity torque scale (N m)."""
    return DEFAULT_TORQUE_FRACTION * joint_gravity_scale(spec)


GRAVITY_TORQUE = FromSpec(f"{DEFAULT_TORQUE_FRACTION:g} x each joint's gravity torque scale", _gravity_torque)
"""The torque default of the open-loop profiles."""


def _format(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, tuple):
        return ",".join(_format(v) for v in value)
    return str(value)


@dataclass(frozen=True)
class ProfileParam:
    """One parameter of a profile as the command line takes it (``--profile NAME@key=value``) and as
    :func:`make_profile` fills it in."""

    key: str
    kind: str
    """``vector`` (one number, or n comma-separated: one per joint), ``number``, ``integers`` (comma-separated),
    ``choice``, ``bool``, ``file``."""
    unit: str
    value: Any
    """The typed default :func:`make_profile` passes when the key is left out: a number, a tuple, a string, a bool,
    a :class:`FromSpec` rule, or None (the profile decides; :attr:`text` says what it does)."""
    doc: str
    choices: tuple[str, ...] = ()
    text: str = ""
    """How the help states the default where :attr:`value` does not say it."""
    build: bool = True
    """False for a command-line key that :func:`~crossdyn.inputs.profile_options.parse_profile` turns into another
    parameter (``computed-torque@to=…`` into its ``trajectory``): :func:`make_profile` does not take it."""

    @property
    def default(self) -> str:
        """The default as ``--list-profiles`` prints it."""
        if self.text:
            return self.text
        return self.value.text if isinstance(self.value, FromSpec) else _format(self.value)

    def resolve(self, spec: ArmSpec) -> Any:
        """The default value for ``spec``."""
        return self.value.rule(spec) if isinstance(self.value, FromSpec) else self.value


@dataclass(frozen=True)
class ProfileEntry:
    """A profile in the registry: ``build(spec, **params)`` makes it, ``doc`` is its line in the help."""

    name: str
    build: Callable[..., Profile]
    doc: str
    params: tuple[ProfileParam, ...] = ()


def _per_joint(cls: Callable[..., Profile]) -> Callable[..., Profile]:
    """A builder for a profile class that takes the number of joints."""
    return lambda spec, **kw: cls(spec.n, **kw)


def _pd_target(spec: ArmSpec) -> np.ndarray:
    return hanging_configuration(spec) + DEFAULT_STEP_RAD


P = ProfileParam
_OFFSET = P("offset", "vector", "N m", 0.0, "offset")
_PHASE = P("phase", "vector", "rad", 0.0, "phase")
_KP, _KD = P("kp", "vector", "1/s^2", 400.0, "K_p"), P("kd", "vector", "1/s", 40.0, "K_d")
_TORQUE = P("torque", "vector", "N m", 0.0, "torque held throughout")
_VELOCITY = P("velocity", "vector", "rad/s", 0.0, "start velocity")

_ENTRIES = (
    ProfileEntry("zero", _per_joint(ZeroProfile), "tau = 0"),
    ProfileEntry("constant", _per_joint(ConstantProfile), "tau = value",
                 (P("value", "vector", "N m", GRAVITY_TORQUE, "torque held at every joint"),)),
    ProfileEntry("step", _per_joint(StepProfile), "tau = before, then after from `time` on",
                 (P("after", "vector", "N m", GRAVITY_TORQUE, "torque from `time` on"),
                  P("time", "vector", "s", 0.5, "switching time"),
                  P("before", "vector", "N m", 0.0, "torque before `time`"))),
    ProfileEntry("sine", _per_joint(SineProfile), "tau = offset + amplitude sin(2 pi frequency t + phase)",
                 (P("amplitude", "vector", "N m", GRAVITY_TORQUE, "A in offset + A sin(2 pi f t + phase)"),
                  P("frequency", "vector", "Hz", 0.5, "f"), _PHASE, _OFFSET)),
    ProfileEntry("chirp", _per_joint(ChirpProfile), "linear frequency sweep f0 -> f1 over `duration`, then f1",
                 (P("amplitude", "vector", "N m", GRAVITY_TORQUE, "amplitude"),
                  P("f0", "number", "Hz", 0.1, "start frequency"),
                  P("f1", "number", "Hz", 5.0, "end frequency (held after `duration`)"),
                  P("duration", "number", "s", 1.0, "sweep time"), _PHASE, _OFFSET)),
    ProfileEntry("multisine", _per_joint(MultiSineProfile), "sum of harmonics, Schroeder phases, peak = amplitude",
                 (P("amplitude", "vector", "N m", GRAVITY_TORQUE, "peak torque"),
                  P("base_frequency", "number", "Hz", 0.5, "f0 (harmonics are multiples)"),
                  P("harmonics", "integers", "-", (1, 2, 3, 4, 5), "harmonic numbers"), _OFFSET)),
    ProfileEntry("multisine-motion", MotionMultiSineProfile,
                 "torques that swing the linearised arm by `amplitude` about `center` (the default profile)",
                 (P("amplitude", "vector", "rad", 0.05, "joint motion amplitude"),
                  P("base_frequency", "number", "Hz", 0.25, "f0"),
                  P("harmonics", "integers", "-", (1, 2, 3), "harmonic numbers"),
                  P("center", "vector", "rad", None, "configuration linearised about", text="hanging"))),
    ProfileEntry("csv", _per_joint(CSVProfile), "FILE.csv[@interpolation=zoh]: columns time (or t), tau1..tauN",
                 (P("interpolation", "choice", "-", "linear", "between rows", CSVProfile.INTERPOLATIONS),)),
    ProfileEntry("pd-gravity", PDGravityProfile, "closed loop: tau = kp (q_d - q) + kd (qd_d - qd) + G(q)",
                 (P("target", "vector", "rad", FromSpec(f"hanging + {DEFAULT_STEP_RAD:g} per joint", _pd_target),
                    "fixed set-point (q_d' = 0)"),
                  P("trajectory", "file", "-", None, "trajectory TOML file to track instead of target", text="none",
                    build=False),
                  P("kp", "vector", "N m/rad", 100.0, "K_p"), P("kd", "vector", "N m s/rad", 20.0, "K_d"))),
    ProfileEntry("computed-torque", ComputedTorqueProfile,
                 "closed loop: tau = M(q)(qdd_d + kd e' + kp e) + C qd + G + F",
                 (P("trajectory", "file", "-",
                    FromSpec(f"quintic, hanging -> +{DEFAULT_STEP_RAD:g} rad in {DEFAULT_MOVE_S:g} s", default_move),
                    "trajectory TOML file (joint or Cartesian way-points)"),
                  P("to", "vector", "rad", None, "end of the default move", text=f"start + {DEFAULT_STEP_RAD:g}",
                    build=False),
                  P("from", "vector", "rad", None, "start of the default move", text="--q0, else hanging",
                    build=False),
                  P("time", "number", "s", DEFAULT_MOVE_S, "duration of the default move", build=False),
                  P("kind", "choice", "-", "quintic", "spline of the default move", ("cubic", "quintic"), build=False),
                  P("kp", "vector", "1/s^2", 400.0, "K_p (e'' + K_d e' + K_p e = 0)"), _KD,
                  P("friction", "bool", "-", True, "compensate joint friction F(q')"))),
    ProfileEntry("drop", make_drop, "contact: from `pose` at rest, a constant `torque`: the arm falls onto an "
                 "obstacle (default for an arm with a floor)",
                 (P("pose", "vector", "rad", None, "start pose (at rest)",
                    text=f"straight arm, tip {DROP_HEIGHT:g} m clear of the obstacles"), _TORQUE, _VELOCITY)),
    ProfileEntry("swing", make_swing, "contact: from `pose` at rest, a constant `torque`: the arm swings into an "
                 "obstacle (default for an arm with a wall)",
                 (P("pose", "vector", "rad", None, "start pose (at rest)",
                    text="straight arm `angle` from hanging, towards an obstacle"),
                  P("angle", "number", "rad", SWING_ANGLE, "swing amplitude of the default pose"), _TORQUE, _VELOCITY)),
    ProfileEntry("press", PressProfile, "contact, closed loop: computed torque to a pose pressing the obstacle, plus "
                 "J^T(-F_d n) in contact: the steady normal force is F_d",
                 (P("force", "number", "N", 20.0, "desired normal force F_d"),
                  P("obstacle", "number", "-", 1, "which [[obstacles]] entry (1-based)"),
                  P("approach", "number", "m", 0.05, "start: the tip this far out from the contact"),
                  P("time", "number", "s", 0.5, "duration of the quintic approach"), _KP, _KD)),
)
del P

REGISTRY: dict[str, ProfileEntry] = {e.name: e for e in _ENTRIES}
"""Every profile by name, in the order ``--list-profiles`` shows them."""

PROFILE_PARAMS: dict[str, tuple[ProfileParam, ...]] = {e.name: e.params for e in _ENTRIES}
"""The command-line parameters of every profile, with unit and default (``crossdyn compare --list-profiles``)."""

def profile_names() -> list[str]:
    """Every profile's name."""
    return list(REGISTRY)


def make_profile(name: str, spec: ArmSpec, **params) -> Profile:
    """Build the profile ``name`` for ``spec``: parameters as the profile class takes them; every one left out or
    given as None gets its default from :data:`PROFILE_PARAMS`."""
    entry = REGISTRY.get(name)
    if entry is None:
        raise ProfileError(f"unknown profile {name!r}; valid profiles: {', '.join(profile_names())}")
    kw = dict(params)
    for p in entry.params:
        if p.build and kw.get(p.key) is None and p.value is not None:
            kw[p.key] = p.resolve(spec)
    try:
        return entry.build(spec, **kw)
    except TypeError as e:
        raise ProfileError(f"profile {name!r}: {e}") from None


PROFILES: dict[str, Callable[..., Profile]] = {name: partial(make_profile, name) for name in REGISTRY}
"""Builders by name, ``PROFILES[name](spec, **params)`` = :func:`make_profile` (defaults: :data:`PROFILE_PARAMS`)."""


def default_profile(spec: ArmSpec, amplitude: float = 0.05) -> Profile:
    """The comparison default: a gentle multi-sine about the hanging equilibrium (start there:
    :func:`hanging_configuration`, at rest); for an arm with contact, the scenario its obstacles call for
    (:func:`contact_default_profile`).

    :class:`MotionMultiSineProfile` with ``amplitude`` rad per joint and harmonics 1, 2, 3 of 0.25 Hz (one
    period in 4 s), which lie around the first natural frequencies of the presets (≈ 0.2–0.5 Hz): peak
    torques ≈ 4–16 % of ``spec.torque_scale()`` (2.6 N m at joint 1 of ``planar3r``), the arm swings by
    about 0.1 rad and neighbouring trajectories stay neighbours (a 1e-9 rad perturbation grows < 10× in
    5 s for 2R…8R presets) — not chaotic.
    """
    if spec.has_contact:
        return contact_default_profile(spec)
    return make_profile("multisine-motion", spec, amplitude=amplitude)


def contact_default_profile(spec: ArmSpec) -> Profile:
    """``drop`` (from :func:`drop_pose`) when an obstacle faces against gravity (a floor: n·g < 0), else ``swing``
    (from :func:`swing_pose`): planar2r-floor drops onto its floor, planar3r-wall swings into its wall."""
    g = np.asarray(spec.gravity[:2], dtype=float)
    floors = [o for o in spec.obstacles if float(np.dot(o.normal[:2], g)) < 0.0]
    return make_profile("drop" if floors else "swing", spec)
