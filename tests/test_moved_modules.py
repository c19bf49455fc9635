"""Issue 22's moves and issue 37's removals: the old import paths are gone, crossdyn's Octave code ships as package
data, and every options dataclass agrees with the keywords it backs."""
from __future__ import annotations

import dataclasses
import importlib
import sys
from typing import get_type_hints

import pytest

REMOVED = {
    # old path (issue 22's deprecated re-export, removed in issue 37) -> {new home: names it re-exported from there}
    "crossdyn.analytic.contact": {"crossdyn.analytic.laws.contact": ("ContactLaw", "effective_mass"),
                                  "crossdyn.analytic.references.contact": ("simulate_contact", "fixed_step_contact")},
    "crossdyn.analytic.limits": {"crossdyn.analytic.laws.limit": ("LimitLaw",),
                                 "crossdyn.analytic.references.limits": ("simulate_limits", "rk4_limits")},
    "crossdyn.analytic.stick_slip": {"crossdyn.analytic.laws.friction": ("FrictionLaw", "without_friction"),
                                     "crossdyn.analytic.references.stick_slip": ("simulate_stick_slip",
                                                                                 "rk4_regularised")},
    "crossdyn.analytic.events": {"crossdyn.analytic.references.events": ("integrate_events", "hold_bounds",
                                                                         "output_grid", "SIMULTANEOUS")},
    "crossdyn.models.user_equations": {"crossdyn.equations.python_file": ("UserModel",),
                                       "crossdyn.equations.protocol": ("UserFileError",),
                                       "crossdyn.equations.params": ("ParamSet", "UserParams", "own_params")},
    "crossdyn.models.octave_equations": {"crossdyn.equations.octave_model": ("OctaveModel", "is_matlab_path")},
    "crossdyn.models.octave_session": {"crossdyn.equations.octave_session": ("OctaveSession", "find_octave",
                                                                             "octave_string")},
    "crossdyn.models.equations": {"crossdyn.equations.loader": ("load_model",),
                                  "crossdyn.equations.params": ("param_rows",)},
    "crossdyn.drive.profiles": {"crossdyn.inputs.profiles": ("make_profile", "Profile", "PROFILES", "drop_pose")},
    "crossdyn.drive.profile_options": {"crossdyn.inputs.profile_options": ("parse_profile", "split_profile_option")},
    "crossdyn.drive.trajectories": {"crossdyn.inputs.trajectories": ("JointTrajectory", "quintic", "ik_2r")},
    "crossdyn.drive.trajectory_file": {"crossdyn.inputs.trajectory_file": ("load_trajectory", "TrajectoryFileError")},
    "crossdyn.drive.effort": {"crossdyn.native.effort": ("native_effort_check",)},
    "crossdyn.drive.limit_contacts": {"crossdyn.native.limits.episodes": ("contacts",)},
    "crossdyn.drive.limit_softness": {"crossdyn.native.limits.softness": ("held_load_give",)},
    "crossdyn.drive.limit_calibration": {"crossdyn.native.limits.calibration": ("calibrate_mujoco_limits",),
                                         "crossdyn.native.fitting": ("fit",)},
    "crossdyn.drive.limits_native": {"crossdyn.native.limits.runs": ("characterise_native",)},
    "crossdyn.drive.friction_native": {"crossdyn.native.friction.softness": ("creep_floor",)},
    "crossdyn.drive.contact_events": {"crossdyn.native.contact.verdict": ("judge",),
                                      "crossdyn.native.contact.reference": ("law_run",)},
    "crossdyn.drive.contact_native": {"crossdyn.native.contact.verdict": ("table",)},
    "crossdyn.drive.contact_calibration": {"crossdyn.native.contact.calibration": ("calibrate_mujoco_contact",)},
    "crossdyn.comparison.native_limits": {"crossdyn.native.limits.verdict": ("judge_native_run",)},
    "crossdyn.comparison.native_friction": {"crossdyn.native.friction.verdict": ("failures", "judge")},
    "crossdyn.comparison.report": {"crossdyn.reporting": ("render_markdown", "write_outputs"),
                                   "crossdyn.reporting.blocks": ("limit_blocks",)},
}
REGISTRY_NAMES = ("EngineEntry", "available_engines", "engine_names", "make_engine", "register", "split_options")
"""Once re-exported by ``crossdyn.engines.base`` (a module ``__getattr__``, with a DeprecationWarning)."""


@pytest.mark.parametrize("old", sorted(REMOVED))
def test_the_old_paths_are_gone_and_their_names_live_at_the_new(old):
    sys.modules.pop(old, None)
    with pytest.raises(ModuleNotFoundError) as e:
        importlib.import_module(old)
    assert e.value.name == old
    for new, names in REMOVED[old].items():
        module = importlib.import_module(new)
        for name in names:
            assert getattr(module, name) is not None, f"{new}.{name}"


def test_engines_base_no_longer_re_exports_the_registry():
    import crossdyn.engines.base as base
    from crossdyn.engines import registry

    for name in REGISTRY_NAMES:
        assert getattr(registry, name) is not None
        assert not hasattr(base, name), f"crossdyn.engines.base.{name}"


def test_the_octave_helpers_ship_as_package_data():
    from crossdyn.equations.octave_model import M_FILES, m_file

    texts = {name: m_file(name) for name in M_FILES}
    assert "function [O, ckind, ok] = crossdyn_loop__(" in texts["crossdyn_helpers__.m"]
    assert texts["crossdyn_helpers__.m"].lstrip("% \n").find("1;") >= 0
    assert "classdef crossdyn_value__" in texts["crossdyn_value__.m"]
    assert "function z = zeros(varargin)" in texts["zeros.m"]


def test_both_languages_answer_the_equations_protocol(tmp_path):
    from crossdyn.equations import Equations, load_model

    f = tmp_path / "eq.py"
    f.write_text("import numpy as np\ndef M(q, p):\n    return np.eye(2)\n")
    assert isinstance(load_model(f, 2), Equations)


def _pairs():
    from crossdyn.analytic import integrators
    from crossdyn.analytic.references import contact, events

    return [(events.EventOptions, events.EventKeywords), (events.ReferenceOptions, events.ReferenceKeywords),
            (contact.ContactOptions, contact.ContactKeywords), (integrators.SimulateOptions, integrators.SimulateKeywords)]


def test_every_options_dataclass_matches_its_keywords():
    for options, keywords in _pairs():
        assert {f.name for f in dataclasses.fields(options)} == set(get_type_hints(keywords)), options.__name__
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(options(), dataclasses.fields(options)[0].name, None)


def test_rollout_options_match_their_keywords_read_from_the_source():
    """jax_model imports JAX, which this test session must not (the comparison tests fork): read it with ast."""
    import ast
    from pathlib import Path

    import crossdyn

    tree = ast.parse((Path(crossdyn.__file__).parent / "analytic" / "jax_model.py").read_text(encoding="utf-8"))
    fields = {node.name: {s.target.id for s in node.body if isinstance(s, ast.AnnAssign)}
              for node in tree.body if isinstance(node, ast.ClassDef)}
    assert fields["RolloutOptions"] == fields["RolloutKeywords"] == {"save_every", "dtype", "precision", "timing"}


def test_an_unknown_keyword_is_refused():
    from crossdyn.analytic.references import simulate_limits
    from crossdyn.analytic.laws import LimitLaw
    from crossdyn.models.presets import get_preset

    spec = get_preset("planar2r")
    with pytest.raises(TypeError, match="output_step"):
        simulate_limits(spec, LimitLaw.from_spec(spec, 1e3, 1.0), [0.0, 0.0], [0.0, 0.0], 0.01, output_step=1e-3)
