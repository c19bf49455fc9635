"""The [contact] and [[obstacles]] spec keys (issue 13): validation naming the key and line, TOML round trip,
the generated tip frame, and the contact law against its own definitions."""
import math

import numpy as np
import pytest

from crossdyn.analytic.laws.contact import ContactLaw
from crossdyn.analytic.kinematics import end_effector, end_effector_jacobian
from crossdyn.cli import main
from crossdyn.models import ArmSpec, SpecError, dumps_spec, get_preset, load_spec, spec_from_dict
from crossdyn.models.mjcf import to_mjcf
from crossdyn.models.spec import ContactSpec, Obstacle
from crossdyn.models.urdf import to_urdf

ARM = """name = "floor"

[[links]]
length = 1.0
mass = 1.0
com = 0.5
inertia = 0.08

[contact]
radius = 0.02
stiffness = 2.0e4
damping = 50.0
friction = 0.0

[[obstacles]]
point = [0.0, -1.5, 0.0]
normal = [0.0, 1.0, 0.0]
"""


@pytest.mark.parametrize("old,new,key,line", [
    ("normal = [0.0, 1.0, 0.0]", "normal = [0.0, 0.0, 0.0]", "obstacles[1].normal", 17),
    ("normal = [0.0, 1.0, 0.0]", "normal = [0.0, 2.0, 0.0]", "obstacles[1].normal", 17),
    ("stiffness = 2.0e4", "stiffness = -2.0e4", "contact.stiffness", 11),
    ("radius = 0.02", "radius = 0.0", "contact.radius", 10),
    ("damping = 50.0", "damping = -1.0", "contact.damping", 12),
    ("friction = 0.0", "friction = -0.3", "contact.friction", 13),
    ("point = [0.0, -1.5, 0.0]", "point = [0.0, -1.5, 0.1]", "obstacles[1].point", 16),
    ("normal = [0.0, 1.0, 0.0]", "normal = [0.0, 0.6, 0.8]", "obstacles[1].normal", 17),
    ("point = [0.0, -1.5, 0.0]", "point = [0.0, -1.5]", "obstacles[1].point", 16),
    ("friction = 0.0", "mu = 0.0", "contact: unknown key(s) mu", 13),
])
def test_bad_contact_spec_exits_2_naming_file_line_and_key(tmp_path, capsys, old, new, key, line):
    bad = tmp_path / "bad.toml"
    assert old in ARM
    bad.write_text(ARM.replace(old, new))
    assert main(["info", str(bad)]) == 2
    err = capsys.readouterr().err
    assert str(bad) in err and f"line {line}" in err and key in err, err
    assert "Traceback" not in err


def test_obstacles_without_contact_table_is_refused():
    with pytest.raises(SpecError, match=r"\[contact\]"):
        spec_from_dict({"links": [{"length": 1.0, "mass": 1.0, "com": 0.5, "inertia": 0.1}],
                        "obstacles": [{"point": [0, -1, 0], "normal": [0, 1, 0]}]})


def test_contact_spec_round_trips_and_normal_is_normalised(tmp_path):
    path = tmp_path / "arm.toml"
    path.write_text(ARM.replace("normal = [0.0, 1.0, 0.0]", "normal = [0.0, 1.0000000001, 0.0]"))
    spec = load_spec(path)
    assert spec.has_contact and spec.obstacles[0].normal == (0.0, 1.0, 0.0)
    assert spec.contact == ContactSpec(0.02, 2.0e4, 50.0, 0.0)
    for name in ("planar2r-floor", "planar3r-wall"):
        arm = get_preset(name)
        import tomllib

        assert spec_from_dict(tomllib.loads(dumps_spec(arm)), "x") == arm


def test_tip_frame_only_for_arms_with_contact():
    floor, plain = get_preset("planar2r-floor"), get_preset("planar2r")
    assert 'name="tip"' in to_urdf(floor) and 'name="tip"' in to_mjcf(floor)
    assert "tip" not in to_urdf(plain) and "tip" not in to_mjcf(plain)


def test_contact_law_definitions():
    """The law at hand-computed states: the penetration, a force that never pulls, τ = J_cᵀF by virtual work."""
    arm = get_preset("planar3r-wall")
    law, p = ContactLaw.of(arm), arm.params()
    assert ContactLaw.of(get_preset("planar3r")) is None
    # penetration: wall at x = 1.6 facing -x, sphere r = 0.02: a tip at x = 1.59 penetrates 0.01 m
    assert law.penetration(np.array([1.59, 0.3]))[0] == pytest.approx(0.01, abs=1e-15)
    assert law.penetration(np.array([1.50, 0.3]))[0] < 0
    # the damper alone would pull while the sphere leaves fast: clipped at zero
    fn = law.normal_force(np.array([0.001]), np.array([-1.0]))  # k d + c d' = 20 - 50 < 0
    assert fn[0] == 0.0
    assert law.normal_force(np.array([-0.001]), np.array([5.0]))[0] == 0.0  # outside: nothing
    # τ = J_cᵀF: the power τ·q̇ equals F·ẋ_c, with ẋ_c differentiated numerically from the contact point
    rng = np.random.default_rng(0)
    for _ in range(5):
        q = rng.uniform(-0.5, 0.5, 3)
        qd = rng.uniform(-1, 1, 3)
        tau = law.torque(p, q, qd)
        tip, J = end_effector(p, q), end_effector_jacobian(p, q)
        F, fn, ft, delta, _ = law.force(tip, J @ qd, float(qd.sum()))

        def contact_point(t):
            qq = q + t * qd
            return end_effector(p, qq) - law.radius * law.normals[0]  # the material point: moves with the link

        def material(t):  # the contact point as a point of the last link: rotate the offset with the link
            qq = q + t * qd
            th = qq.sum() - q.sum()
            off = -law.radius * law.normals[0]
            rot = np.array([[math.cos(th), -math.sin(th)], [math.sin(th), math.cos(th)]])
            return end_effector(p, qq) + rot @ off

        h = 1e-6
        xc_dot = (material(h) - material(-h)) / (2 * h)
        assert tau @ qd == pytest.approx(F @ xc_dot, rel=1e-7, abs=1e-9)  # central difference: O(h²) ≈ 1e-12
        assert contact_point(0.0) == pytest.approx(material(0.0))


def test_obstacle_dataclass_validation_names_index():
    links = get_preset("planar2r").links
    with pytest.raises(SpecError, match=r"obstacles\[2\]\.normal"):
        ArmSpec(links, contact=ContactSpec(), obstacles=(Obstacle((0, -1, 0), (0, 1, 0)), Obstacle((0, 0, 0), (0, 0, 0))))


def test_info_lists_contact_obstacles_and_joint_extras(capsys):
    assert main(["info", "planar3r-wall"]) == 0
    out = capsys.readouterr().out
    assert "contact: tip sphere r = 0.02 m, k = 20000 N/m, c = 50 N s/m, mu = 0.3" in out
    assert "obstacle 1: half-plane through (1.6, 0) m, outward normal (-1, 0)" in out
    assert main(["info", "planar2r-limits"]) == 0
    assert "joint 1: limits [-1.65, -1.4] rad (law k = 50 N m/rad, c = 0.5 N m s/rad)" in capsys.readouterr().out
