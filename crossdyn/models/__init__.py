"""Arm specifications, presets, TOML I/O and the URDF/MJCF generators."""
from crossdyn.models.inertia import InertiaSubstitution, engine_inertias
from crossdyn.models.mjcf import to_mjcf
from crossdyn.models.presets import PRESETS, get_preset, load_arm, planarNr, preset_names, point_mass, rod
from crossdyn.models.spec import ArmParams, ArmSpec, LinkSpec, SpecError, SpecWarning, params_from_arrays
from crossdyn.models.spec_io import dumps_spec, load_spec, save_spec, spec_from_dict
from crossdyn.models.urdf import to_urdf

__all__ = [
    "ArmParams", "ArmSpec", "InertiaSubstitution", "LinkSpec", "PRESETS", "SpecError", "SpecWarning",
    "dumps_spec", "engine_inertias", "get_preset", "load_arm", "load_spec", "params_from_arrays", "planarNr",
    "point_mass", "preset_names", "rod", "save_spec", "spec_from_dict", "to_mjcf", "to_urdf",
]
