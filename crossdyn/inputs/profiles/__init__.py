"""Torque profiles: the torque sources every engine is driven with, through one code path.

Sampling (zero-order hold)
--------------------------
A profile is evaluated once at the start of each step, τ_k = profile(t_k, q_k, q̇_k)
with t_k = k·dt and (q_k, q̇_k) the engine's *own* state, and that τ_k is held
constant over [t_k, t_k + dt) — by every engine and by the analytic reference
(see :mod:`crossdyn.conventions`).  Open-loop profiles ignore the state, and
their :meth:`Profile.sample` evaluates many times at once (vectorised; equal to
calling the profile at each time).  Closed-loop profiles compute τ from the
state with the *analytic* model, so every engine gets the same control law.

One module per idea:

* :mod:`~crossdyn.inputs.profiles.base` — the protocol (:class:`Profile`, :class:`OpenLoopProfile`,
  :class:`ProfileError`) and :func:`held` (a profile re-sampled every period: the dt/2 runs);
* :mod:`~crossdyn.inputs.profiles.open_loop` — ``zero``, ``constant``, ``step``, ``sine``, ``chirp``,
  ``multisine``, ``multisine-motion``;
* :mod:`~crossdyn.inputs.profiles.csv_file` — ``csv``, a file of ``time`` and ``tau1 … tauN`` columns,
  **linearly interpolated** between rows (``interpolation="zoh"``: the last row at or before t);
* :mod:`~crossdyn.inputs.profiles.closed_loop` — ``pd-gravity`` and ``computed-torque`` (analytic model);
* :mod:`~crossdyn.inputs.profiles.contact` — the contact scenarios ``drop``, ``swing`` (each carries its start
  state, ``start``) and ``press``;
* :mod:`~crossdyn.inputs.profiles.registry` — the one registry: builders, descriptions and typed defaults
  (:data:`PROFILE_PARAMS`), :func:`make_profile`, :func:`default_profile`.

The gravity helpers the defaults use (hanging pose, gravity stiffness, gravity torque scale) are physics of the arm:
:mod:`crossdyn.analytic.gravity_helpers`, re-exported here.

Every profile's :meth:`Profile.params` is a JSON-able description, recorded with every result.
:func:`make_profile` builds one by name; :func:`default_profile` is the comparison default.
"""
from crossdyn.analytic.gravity_helpers import gravity_stiffness, hanging_configuration, joint_gravity_scale
from crossdyn.inputs.profiles.base import HeldClosedLoop, HeldOpenLoop, OpenLoopProfile, Profile, ProfileError, held
from crossdyn.inputs.profiles.closed_loop import ComputedTorqueProfile, PDGravityProfile
from crossdyn.inputs.profiles.contact import (
    DROP_HEIGHT, SWING_ANGLE, ContactScenarioProfile, PressProfile, drop_pose, swing_pose,
)
from crossdyn.inputs.profiles.csv_file import CSVProfile
from crossdyn.inputs.profiles.open_loop import (
    ChirpProfile, ConstantProfile, MotionMultiSineProfile, MultiSineProfile, SineProfile, StepProfile, ZeroProfile,
)
from crossdyn.inputs.profiles.registry import (
    DEFAULT_MOVE_S, DEFAULT_STEP_RAD, DEFAULT_TORQUE_FRACTION, GRAVITY_TORQUE, PROFILE_PARAMS, PROFILES, REGISTRY,
    FromSpec, ProfileEntry, ProfileParam, contact_default_profile, default_move, default_profile, make_profile,
    profile_names,
)

__all__ = [
    "CSVProfile", "ChirpProfile", "ComputedTorqueProfile", "ConstantProfile", "ContactScenarioProfile",
    "DEFAULT_MOVE_S", "DEFAULT_STEP_RAD", "DEFAULT_TORQUE_FRACTION", "DROP_HEIGHT", "FromSpec", "GRAVITY_TORQUE",
    "HeldClosedLoop", "HeldOpenLoop", "MotionMultiSineProfile", "MultiSineProfile", "OpenLoopProfile",
    "PDGravityProfile", "PROFILES", "PROFILE_PARAMS", "PressProfile", "Profile", "ProfileEntry", "ProfileError",
    "ProfileParam", "REGISTRY", "SWING_ANGLE", "SineProfile", "StepProfile", "ZeroProfile",
    "contact_default_profile", "default_move", "default_profile", "drop_pose", "gravity_stiffness",
    "hanging_configuration", "held", "joint_gravity_scale", "make_profile", "profile_names", "swing_pose",
]
