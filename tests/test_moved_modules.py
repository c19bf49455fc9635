"""Issue 22's moves in analytic/ and equations/: the old import paths still work (with a DeprecationWarning),
crossdyn's Octave code ships as package data, and every options dataclass agrees with the keywords it backs."""
from __future__ import annotations

import dataclasses
import importlib
import sys
import warnings
from typing import get_type_hints

import pytest

OLD_PATHS = {
    "crossdyn.analytic.contact": ("ContactLaw", "simulate_contact", "fixed_step_contact", "effective_mass"),
    "crossdyn.analytic.limits": ("LimitLaw", "simulate_limits", "rk4_limits"),
    "crossdyn.analytic.stick_slip": ("FrictionLaw", "simulate_stick_slip", "rk4_regularised", "without_friction"),
    "crossdyn.analytic.events": ("integrate_events", "hold_bounds", "output_grid", "SIMULTANEOUS"),
    "crossdyn.models.user_equations": ("UserModel", "UserFileError", "ParamSet", "UserParams", "own_params"),
    "crossdyn.models.octave_equations": ("OctaveModel", "is_matlab_path"),
    "crossdyn.models.octave_session": ("OctaveSession", "find_octave", "octave_string"),
    "crossdyn.models.equations": ("load_model", "param_rows"),
}


@pytest.mark.parametrize("module", list(OLD_PATHS))
def test_old_paths_keep_their_names_and_warn(module):
    sys.modules.pop(module, None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        mod = importlib.import_module(module)
        for name in OLD_PATHS[module]:
            assert getattr(mod, name) is not None
    assert any(issubclass(w.category, DeprecationWarning) and "moved to" in str(w.message) for w in caught)


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
