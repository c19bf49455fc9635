"""The engine base class's declared interface: the capabilities record, the optional hooks and their defaults, the
registry's entries and native options, and the adapters' options dataclasses."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from crossdyn.engines import Capabilities, Engine, EngineError, EngineUnsupported, available_engines, make_engine
from crossdyn.engines import registry
from crossdyn.models.presets import get_preset

HOOKS = {"step_applied": "step_applied", "rollout": "rollout", "batch": "rollout_many", "tip_frame": "tip_kinematics"}


# crossdyn's own adapters (not those other test modules register); the MJX adapters import JAX, which this (forking) test session must not: they are checked in tests/test_mjx.py.
NOT_JAX = [n for n in available_engines()
           if registry.entry(n).module.startswith("crossdyn.engines.") and registry.entry(n).extra != "jax"]


@pytest.mark.parametrize("name", [n if registry.entry(n).extra not in ("mjx", "warp", "newton", "genesis") else
                                  pytest.param(n, marks=pytest.mark.slow)  # their imports: the 7-min budget
                                  for n in NOT_JAX])
def test_capabilities_match_the_hooks_each_adapter_overrides(name):
    check_capabilities_match_hooks(name)


def check_capabilities_match_hooks(name: str) -> None:
    """Each capability flag is True exactly where the adapter overrides the hook it stands for."""
    cls = registry.entry(name).adapter()
    caps = cls.capabilities
    assert isinstance(caps, Capabilities) and dataclasses.is_dataclass(caps)
    with pytest.raises(dataclasses.FrozenInstanceError):
        caps.rollout = True  # type: ignore[misc]
    for flag, hook in HOOKS.items():
        overridden = getattr(cls, hook) is not getattr(Engine, hook)
        assert getattr(caps, flag) == overridden, (name, flag)
    assert cls.capabilities.armature == ("armature" in make_engine(name, get_preset("planar2r")).supports)


def test_hook_defaults_raise_unsupported_or_say_none():
    spec = get_preset("planar2r")
    with make_engine("analytic", spec) as e:
        assert e.capabilities.names() == {"native_friction", "armature"}
        for call in (lambda: e.step_applied(np.zeros(2), np.zeros(2)), lambda: e.rollout(np.zeros((3, 2))),
                     lambda: e.rollout_many(np.zeros((2, 2)), np.zeros((2, 2)), np.zeros((2, 3, 2))),
                     lambda: e.set_contact(1.0, 2.0), lambda: e.set_limit_settings(limit_erp=0.2),
                     e.contact_points, lambda: e.contact_forces(np.zeros(2))):
            with pytest.raises(EngineUnsupported):
                call()
        assert e.stiffest_friction() is None and e.warnings() == {} and e.error_controlled is False
        assert e.velocity_clamp is None and e.accuracy is None and e.order is None and e.applied_friction is None
        q, qd = np.zeros(2), np.zeros(2)
        e.reset([0.1, -0.2], [0.3, 0.4])
        e.read_state_into(q, qd)
        assert q.tolist() == [0.1, -0.2] and qd.tolist() == [0.3, 0.4]


def test_applied_friction_is_set_through_the_declared_method():
    from crossdyn.analytic.laws.friction import FrictionLaw

    spec = get_preset("planar2r")
    law = FrictionLaw.of(spec.with_links(friction=0.1), dt=1e-3)
    assert law is not None
    with make_engine("analytic", spec) as e:
        e.set_applied_friction(law)
        assert e.applied_friction is law and "applied_friction" in vars(e)
        assert Engine.applied_friction is None  # the class default untouched


def test_instances_narrow_their_class_capabilities_to_the_variant():
    pytest.importorskip("pydrake")
    spec = get_preset("planar2r")
    with make_engine("drake", spec) as cont, make_engine("drake-discrete", spec) as disc:
        assert not cont.capabilities.native_limits and disc.capabilities.native_limits
        assert cont.capabilities.error_control and not disc.capabilities.error_control
        assert type(cont).capabilities.native_limits  # the class's record is unchanged


def test_registry_entries_name_library_extra_and_native_options():
    assert registry.entry("drake-discrete").extra == "drake" and registry.entry("mjx-rk4").extra == "mjx"  # issue 24: one extra per engine
    assert registry.entry("analytic").library is None and registry.entry("pybullet@link_damping=1").name == "pybullet"
    assert registry.entry("user:my_arm.py").cls == "UserModelEngine"
    assert registry.native_variant("mujoco-rk4", "limits") == "mujoco-rk4@native_limits=true"
    assert registry.native_variant("dart", "limits") == "dart@enforce_limits=true"
    assert registry.native_variant("dart-rk4", "limits") is None and registry.native_variant("drake", "contact") is None
    assert registry.native_variant("pybullet@native_contact=true", "contact") == "pybullet@native_contact=true"
    assert registry.native_variant("mujoco-implicit", "contact") is None
    assert registry.native_variant("no-such-engine", "limits") is None
    with pytest.raises(EngineError, match="unknown engine"):
        registry.entry("no-such-engine")


def test_options_dataclass_and_keyword_knobs_build_the_same_engine():
    from crossdyn.engines.pybullet.planar import PyBulletEngine, PyBulletOptions

    spec = get_preset("planar2r")
    with PyBulletEngine(spec, 1e-3, PyBulletOptions(link_damping=0.04)) as a, \
            PyBulletEngine(spec, 1e-3, link_damping=0.04) as b, make_engine("pybullet@link_damping=0.04", spec) as c:
        assert a.options == b.options == c.options and a.config() == b.config() == c.config()
    with pytest.raises(EngineError, match=r"unknown option\(s\) dampng; it takes: inertia_from_file"):
        PyBulletEngine(spec, 1e-3, dampng=1)
    with pytest.raises(EngineError, match="must be a PyBulletOptions"):
        PyBulletEngine(spec, 1e-3, options={"link_damping": 0.04})  # type: ignore[arg-type]


def test_unknown_option_names_every_knob_in_order():
    with pytest.raises(EngineError) as e:
        make_engine("mujoco@nope=1", get_preset("planar2r"))
    assert str(e.value).endswith("it takes: integrator, eulerdamp, autoreset, native_limits, native_contact, "
                                 "contact_impedance, contact_mass_scaled, contact_cone, contact_solref, contact_solimp, "
                                 "limit_solref, limit_solimp")


def test_registry_names_live_in_the_registry_only():
    """engines.base no longer re-exports the registry (issue 37: the engines.base <-> engines.registry circle)."""
    import crossdyn.engines.base as base

    for name in ("EngineEntry", "available_engines", "engine_names", "make_engine", "register", "split_options"):
        assert hasattr(registry, name), name
        with pytest.raises(AttributeError):
            getattr(base, name)
