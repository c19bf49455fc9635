"""Moved: :mod:`crossdyn.inputs.profiles` (issue 22). This module re-exports its public names and warns."""
import warnings

from crossdyn.inputs.profiles import (  # noqa: F401
    CSVProfile, ChirpProfile, ComputedTorqueProfile, ConstantProfile, ContactScenarioProfile, DEFAULT_MOVE_S,
    DEFAULT_STEP_RAD, DEFAULT_TORQUE_FRACTION, DROP_HEIGHT, MotionMultiSineProfile, MultiSineProfile,
    OpenLoopProfile, PDGravityProfile, PROFILES, PROFILE_PARAMS, PressProfile, Profile, ProfileError, ProfileParam,
    SWING_ANGLE, SineProfile, StepProfile, ZeroProfile, contact_default_profile, default_move, default_profile,
    drop_pose, gravity_stiffness, hanging_configuration, joint_gravity_scale, make_profile, profile_names,
    swing_pose,
)

warnings.warn("crossdyn.drive.profiles moved to crossdyn.inputs.profiles", DeprecationWarning, stacklevel=2)
