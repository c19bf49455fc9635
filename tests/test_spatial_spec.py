"""Spatial arm specs (issue 27): DH tables (standard and modified) and explicit origins → RobotModel, the TOML
format, the presets' registration, the planar path unchanged, and bad input exiting 2 naming row and value.

References are independent of crossdyn.models.spatial_spec: the DH matrices and the joint motions are written out
here with numpy from their textbook definitions (Spong: Rz(θ) Tz(d) Tx(a) Rx(α); Craig: Rx(α) Tx(a) Rz(θ) Tz(d));
the RobotModel side composes ``Joint.origin`` and the motion exactly as crossdyn/robots/model.py's docstring
states.  Tolerance 1e-12 m / 1e-12 (rotation entries): a chain of ≤ 6 products of unit-scale 4×4 matrices
accumulates a few 1e-16; 1e-12 leaves 1e3 of headroom and still catches any wrong factor (≥ 1e-3 here).
"""
from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from crossdyn.cli import main
from crossdyn.models import ArmSpec, SpecError, get_preset, load_arm, load_spec
from crossdyn.models.spatial_presets import SPATIAL_PRESETS
from crossdyn.models.spatial_spec import (Convention, JointKind, SpatialArmSpec, SpatialJoint, SpatialLink,
                                          from_robot_model)
from crossdyn.models.spatial_spec_io import dumps_spatial_spec, spatial_spec_from_dict

TOL = 1e-12
ROOT = Path(__file__).resolve().parent.parent


# --- independent references ---------------------------------------------------------------------------------------

def _rz(t):
    c, s = math.cos(t), math.sin(t)
    return np.array([[c, -s, 0, 0], [s, c, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1.0]])


def _rx(t):
    c, s = math.cos(t), math.sin(t)
    return np.array([[1.0, 0, 0, 0], [0, c, -s, 0], [0, s, c, 0], [0, 0, 0, 1]])


def _tr(x, y, z):
    T = np.eye(4)
    T[:3, 3] = (x, y, z)
    return T


def _rodrigues(u, q):
    u = np.asarray(u, float) / np.linalg.norm(u)
    K = np.array([[0, -u[2], u[1]], [u[2], 0, -u[0]], [-u[1], u[0], 0]])
    T = np.eye(4)
    T[:3, :3] = np.eye(3) + math.sin(q) * K + (1 - math.cos(q)) * K @ K
    return T


def model_pose(model, q):
    """Last body's pose in the world from the RobotModel, per its docstring: X_i = origin·T(a)·Rot(axis,q)·T(−a)
    or origin·T(q axis)."""
    T = np.eye(4)
    for j, qi in zip(model.joints, q, strict=True):
        a = j.anchor
        move = (_tr(*a) @ _rodrigues(j.axis, qi) @ _tr(*-a)) if j.type.rotates else _tr(*(qi * j.axis))
        T = T @ j.origin @ move
    return T


def random_dh_arm(rng, convention, n):
    joints = tuple(SpatialJoint(JointKind.REVOLUTE if rng.random() < 0.5 else JointKind.PRISMATIC,
                                tuple(rng.uniform(-1.5, 1.5, 4))) for _ in range(n))
    links = tuple(SpatialLink(1.0, (0.1, 0.0, 0.0), (0.02, 0.0, 0.0, 0.02, 0.0, 0.02)) for _ in range(n))
    return SpatialArmSpec(joints, links, convention)


@pytest.mark.parametrize("convention", [Convention.DH_STANDARD, Convention.DH_MODIFIED])
def test_dh_to_robot_model_matches_the_product_of_dh_matrices(convention):
    """Forward kinematics of the last DH frame: the RobotModel (times the last link's frame offset) equals the
    direct product of the table's matrices, written here, for random rows, types and states."""
    rng = np.random.default_rng(27)
    worst = 0.0
    for _ in range(20):
        n = int(rng.integers(1, 7))
        arm = random_dh_arm(rng, convention, n)
        model = arm.to_robot_model()
        assert all(np.all(j.anchor == 0) for j in model.joints)
        for _ in range(10):
            q = rng.uniform(-3, 3, n)
            ref = np.eye(4)
            for j, qi in zip(arm.joints, q, strict=True):
                c = dict(zip(convention.columns, j.dh, strict=True))
                th = c["theta"] + (qi if j.type is JointKind.REVOLUTE else 0.0)
                d = c["d"] + (qi if j.type is JointKind.PRISMATIC else 0.0)
                ref = ref @ (_rz(th) @ _tr(0, 0, d) @ _tr(c["a"], 0, 0) @ _rx(c["alpha"])
                             if convention is Convention.DH_STANDARD else
                             _rx(c["alpha"]) @ _tr(c["a"], 0, 0) @ _rz(th) @ _tr(0, 0, d))
            last = arm.joints[-1].dh
            off = (_tr(last[0], 0, 0) @ _rx(last[1])) if convention is Convention.DH_STANDARD else np.eye(4)
            worst = max(worst, float(np.abs(model_pose(model, q) @ off - ref).max()))
            worst = max(worst, float(np.abs(arm.dh_forward_kinematics(q) - ref).max()))
    assert worst <= TOL, worst


def test_standard_dh_inertial_is_carried_into_the_body_frame():
    """dh-standard: link i's centre of mass, given in DH frame i, lands at the same world point through the model
    (body frame · c_body) as through the DH product (frame i · c)."""
    rng = np.random.default_rng(3)
    arm = random_dh_arm(rng, Convention.DH_STANDARD, 4)
    model = arm.to_robot_model()
    q = rng.uniform(-2, 2, 4)
    body, ref = np.eye(4), np.eye(4)
    for i, j in enumerate(model.joints):
        body = body @ j.origin @ (_rodrigues(j.axis, q[i]) if j.type.rotates else _tr(*(q[i] * j.axis)))
        ref = ref @ arm.dh_transform(i, q[i])
        c_model = body @ np.append(model.bodies[i].inertial.com, 1.0)
        c_ref = ref @ np.append(arm.links[i].com, 1.0)
        assert np.abs(c_model - c_ref).max() <= TOL
        R_model = body[:3, :3] @ model.bodies[i].inertial.inertia @ body[:3, :3].T
        R_ref = ref[:3, :3] @ arm.links[i].inertia_matrix @ ref[:3, :3].T
        assert np.abs(R_model - R_ref).max() <= TOL


def test_origin_convention_and_round_trip_through_robot_model():
    """``origin`` joints: X = T(xyz) R(rpy) · motion (URDF's rpy, written here as Rz Ry Rx); a RobotModel read
    back into a spec (from_robot_model) gives the same kinematics and inertials."""
    rng = np.random.default_rng(5)
    joints = tuple(SpatialJoint(JointKind.PRISMATIC if k == 1 else JointKind.REVOLUTE, None,
                                tuple(rng.uniform(-1, 1, 3)), tuple(rng.uniform(-3, 3, 3)),
                                tuple(rng.uniform(-1, 1, 3))) for k in range(4))
    links = tuple(SpatialLink(1.0 + k, tuple(rng.uniform(-.2, .2, 3)), (0.03, 0.001, 0.0, 0.02, 0.002, 0.025))
                  for k in range(4))
    arm = SpatialArmSpec(joints, links, Convention.ORIGIN, base_xyz=(0.1, 0.2, 0.3), base_rpy=(0.3, -0.2, 0.1))

    def rpy(r, p, y):
        ry = np.array([[math.cos(p), 0, math.sin(p), 0], [0, 1, 0, 0], [-math.sin(p), 0, math.cos(p), 0],
                       [0, 0, 0, 1.0]])
        return _rz(y) @ ry @ _rx(r)

    for _ in range(10):
        q = rng.uniform(-3, 3, 4)
        ref = _tr(0.1, 0.2, 0.3) @ rpy(0.3, -0.2, 0.1)
        for j, qi in zip(joints, q, strict=True):
            move = _rodrigues(j.axis, qi) if j.type is JointKind.REVOLUTE else _tr(
                *(qi * np.array(j.axis) / np.linalg.norm(j.axis)))
            ref = ref @ _tr(*j.xyz) @ rpy(*j.rpy) @ move
        model = arm.to_robot_model()
        assert np.abs(model_pose(model, q) - ref).max() <= TOL
        back = from_robot_model(model).to_robot_model()
        assert np.abs(model_pose(back, q) - ref).max() <= TOL
    for a, b in zip(model.bodies, back.bodies, strict=True):
        assert np.abs(a.inertial.inertia - b.inertial.inertia).max() <= TOL and a.inertial.mass == b.inertial.mass


# --- TOML ---------------------------------------------------------------------------------------------------------

SCARA_TOML = """\
[arm]
kind = "spatial"
name = "scara"
convention = "dh-standard"
gravity = [0.0, 0.0, -9.81]

[[joints]]
type = "revolute"
dh = [0.5, 3.141592653589793, 0.0, 0.0]   # a, alpha, d, theta

[[joints]]
type = "revolute"
dh = [0.4, 0.0, 0.0, 0.0]

[[joints]]
type = "prismatic"
dh = [0.0, 0.0, 0.0, 0.0]
limits = [0.0, 0.4]

[[links]]
mass = 3.0
com = [-0.25, 0.0, 0.0]
inertia = [0.0024, 0.0, 0.0, 0.0637, 0.0, 0.0637]

[[links]]
mass = 2.0
com = [-0.2, 0.0, 0.0]
inertia = [[0.0009, 0.0, 0.0], [0.0, 0.027116666666666667, 0.0], [0.0, 0.0, 0.027116666666666667]]

[[links]]
mass = 1.0
com = [0.0, 0.0, -0.3]
inertia = [0.0301, 0.0, 0.0, 0.0301, 0.0, 0.0002]
"""


def test_toml_example_is_the_scara_preset(tmp_path):
    """The documented example (docs/_incoming/spatial-spec.md) loads to the preset's physics (inertias typed to
    the digits shown, so compared to 1e-15 kg m²)."""
    path = tmp_path / "scara.toml"
    path.write_text(SCARA_TOML)
    spec = load_spec(path, spatial=True)
    preset = get_preset("scara", spatial=True)
    assert isinstance(spec, SpatialArmSpec) and spec.convention is preset.convention
    assert spec.joints == preset.joints
    for a, b in zip(spec.links, preset.links, strict=True):
        assert a.mass == b.mass and a.com == b.com and np.allclose(a.inertia, b.inertia, rtol=0, atol=1e-15)


@pytest.mark.parametrize("name", list(SPATIAL_PRESETS))
def test_every_preset_round_trips_through_toml(tmp_path, name):
    spec = get_preset(name, spatial=True)
    path = tmp_path / f"{name}.toml"
    path.write_text(dumps_spatial_spec(spec))
    back = load_spec(path, spatial=True)
    assert back == spec  # dataclass equality: every float exact (repr round-trips)


def test_modified_dh_and_urdf_specs(tmp_path):
    """A Craig table (alpha, a, d, theta) and a spec read from a URDF file give the kinematics they describe."""
    data = {"arm": {"kind": "spatial", "convention": "dh-modified"},
            "joints": [{"type": "revolute", "dh": [0.0, 0.0, 0.3, 0.0]},
                       {"type": "prismatic", "dh": [-math.pi / 2, 0.2, 0.1, 0.0]}],
            "links": [{"mass": 1.0, "com": [0, 0, 0], "inertia": [0.01, 0, 0, 0.01, 0, 0.01]}] * 2}
    spec = spatial_spec_from_dict(data, "craig.toml")
    q = np.array([0.7, 0.25])
    ref = _rz(0.7) @ _tr(0, 0, 0.3) @ _rx(-math.pi / 2) @ _tr(0.2, 0, 0) @ _tr(0, 0, 0.35)
    assert np.abs(model_pose(spec.to_robot_model(), q) - ref).max() <= TOL
    urdf = tmp_path / "pt.urdf"
    urdf.write_text(get_preset("pan-tilt", spatial=True).to_urdf())
    toml = tmp_path / "from_urdf.toml"
    toml.write_text('[arm]\nkind = "spatial"\nurdf = "pt.urdf"\n')
    read = load_spec(toml, spatial=True)
    assert isinstance(read, SpatialArmSpec) and read.convention is Convention.ORIGIN and read.n == 2
    q = np.array([0.4, -0.9])
    assert np.abs(model_pose(read.to_robot_model(), q)
                  - model_pose(get_preset("pan-tilt", spatial=True).to_robot_model(), q)).max() <= TOL


# --- the planar path ----------------------------------------------------------------------------------------------

def test_planar_specs_unchanged_and_spatial_arms_refused_where_not_taken(tmp_path):
    """Planar presets and files load as ArmSpec exactly as before (also with spatial=True); a spatial arm given
    to a command that takes planar arms only is an InputError naming the arm, not a crash later."""
    assert isinstance(load_arm("planar3r"), ArmSpec) and load_arm("planar3r") == load_arm("planar3r", spatial=True)
    path = tmp_path / "p.toml"
    path.write_text('name = "p"\n[[links]]\nlength = 1.0\nmass = 1.0\ncom = 0.5\ninertia = 0.08\n')
    assert load_spec(path) == load_spec(path, spatial=True) == ArmSpec(
        (get_preset("planar2r").links[0].__class__(1.0, 1.0, 0.5, 0.08),), name="p")
    for arm in ("scara", str(_write(tmp_path, SCARA_TOML))):
        with pytest.raises(SpecError, match="is a spatial arm.*planar arms only"):
            load_arm(arm)


def _write(tmp_path, text, name="scara.toml"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_arms_lists_and_info_describes_spatial_presets(capsys):
    assert main(["arms"]) == 0
    listed = capsys.readouterr().out
    assert all(name in listed for name in SPATIAL_PRESETS)
    assert main(["info", *SPATIAL_PRESETS]) == 0
    out = capsys.readouterr().out
    assert out.count("convention: dh-standard: T_i = Rz(theta_i) Tz(d_i) Tx(a_i) Rx(alpha_i)") == 4
    assert out.count("convention: origin:") == 2
    assert "1      revolute            0        pi/2         0.6           0" in out  # elbow-rrr's first row


def test_check_of_a_spatial_arm_with_an_unusable_file_exits_2(tmp_path, capsys):
    """check takes spatial arms (issue 27, tests/test_check_spatial.py); a file whose M returns None is unusable."""
    equations = tmp_path / "eq.py"
    equations.write_text("def M(q, p): pass\n")
    assert main(["check", "scara", str(equations), "--out", str(tmp_path / "out")]) == 2
    assert "cannot use" in capsys.readouterr().err


# --- bad input: exit 2 naming file, line, key and value -----------------------------------------------------------

def _bad(text_old, text_new):
    assert text_old in SCARA_TOML, text_old
    return SCARA_TOML.replace(text_old, text_new, 1)


BAD = [
    ("dh with 3 columns", _bad("dh = [0.4, 0.0, 0.0, 0.0]", "dh = [0.4, 0.0, 0.0]"),
     ["line 13", "joints[2].dh", "must be 4 numbers", "a, alpha, d, theta", "[0.4, 0.0, 0.0]"]),
    ("dh with 5 columns", _bad("dh = [0.4, 0.0, 0.0, 0.0]", "dh = [0.4, 0.0, 0.0, 0.0, 1.0]"),
     ["line 13", "joints[2].dh", "(5)"]),
    ("unknown joint type", _bad('type = "prismatic"', 'type = "spherical"'),
     ["line 16", "joints[3].type", "'spherical'", "revolute, prismatic"]),
    ("inertia not positive definite", _bad("inertia = [0.0301, 0.0, 0.0, 0.0301, 0.0, 0.0002]",
                                           "inertia = [0.0301, 0.0, 0.0, 0.0301, 0.0, 0.0]"),
     ["line 33", "links[3].inertia", "not positive definite", "0.0301, 0.0, 0.0, 0.0301, 0.0, 0.0"]),
    ("inertia not symmetric", _bad("[0.0009, 0.0, 0.0], [0.0, 0.027116666666666667, 0.0]",
                                   "[0.0009, 0.001, 0.0], [0.0, 0.027116666666666667, 0.0]"),
     ["line 28", "links[2].inertia", "not symmetric", "0.001"]),
    ("inertia off the triangle inequality", _bad("inertia = [0.0024, 0.0, 0.0, 0.0637, 0.0, 0.0637]",
                                                 "inertia = [0.0024, 0.0, 0.0, 0.0637, 0.0, 0.07]"),
     ["line 23", "links[1].inertia", "triangle inequality", "0.07"]),
    ("inertia with 5 numbers", _bad("inertia = [0.0024, 0.0, 0.0, 0.0637, 0.0, 0.0637]",
                                    "inertia = [0.0024, 0.0, 0.0, 0.0637, 0.0]"),
     ["line 23", "links[1].inertia", "must be 6 numbers"]),
    ("negative mass", _bad("mass = 2.0", "mass = -2.0"), ["line 26", "links[2].mass", "-2.0"]),
    ("unknown convention", _bad('convention = "dh-standard"', 'convention = "dh-craig"'),
     ["line 4", "arm.convention", "'dh-craig'", "dh-modified"]),
    ("unknown key in a joint", _bad('limits = [0.0, 0.4]', 'limit = [0.0, 0.4]'),
     ["line 18", "joints[3]", "unknown key(s) limit"]),
    ("axis given with a DH convention", _bad('dh = [0.0, 0.0, 0.0, 0.0]', 'axis = [0.0, 0.0, 1.0]'),
     ["line 17", "joints[3].axis", "its DH row"]),
    ("one link too few", SCARA_TOML[:SCARA_TOML.rindex("[[links]]")],
     ["links: 2 links for 3 joints"]),
    ("not spatial kind", _bad('kind = "spatial"', 'kind = "planar"'), ["line 2", "arm.kind", "'planar'"]),
    ("prismatic axis of zero length", _bad('convention = "dh-standard"', 'convention = "origin"').replace(
        'dh = [0.5, 3.141592653589793, 0.0, 0.0]   # a, alpha, d, theta', 'axis = [0.0, 0.0, 1.0]').replace(
        'dh = [0.4, 0.0, 0.0, 0.0]', 'axis = [0.0, 0.0, 1.0]').replace(
        'dh = [0.0, 0.0, 0.0, 0.0]', 'axis = [0.0, 0.0, 0.0]'),
     ["line 17", "joints[3].axis", "prismatic joint's axis must have a length > 0", "[0.0, 0.0, 0.0]"]),
    ("dh row with the origin convention", _bad('convention = "dh-standard"', 'convention = "origin"'),
     ["line 9", "joints[1].dh", "convention"]),
]


@pytest.mark.parametrize("label,text,fragments", BAD, ids=[b[0] for b in BAD])
def test_bad_spatial_toml_exits_2_naming_row_and_value(tmp_path, capsys, label, text, fragments):
    path = _write(tmp_path, text, "bad.toml")
    assert main(["info", str(path)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and str(path) in err, err
    for fragment in fragments:
        assert fragment in err, (fragment, err)


def test_bad_spatial_toml_through_the_console(tmp_path):
    """The same through ``python -m crossdyn`` in a subprocess: exit 2, one line, no traceback."""
    path = _write(tmp_path, BAD[0][1], "bad.toml")
    r = subprocess.run([sys.executable, "-m", "crossdyn", "info", str(path)], capture_output=True, text=True,
                       cwd=ROOT, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert r.returncode == 2 and "Traceback" not in r.stderr and "joints[2].dh" in r.stderr, r.stderr


def test_arms_summary_is_the_presets_own():
    """``crossdyn arms`` prints SUMMARY without building the presets (numpy-free): it must say what they are."""
    from crossdyn.models.spatial_presets import SUMMARY

    assert list(SUMMARY) == list(SPATIAL_PRESETS)
    for name, (kinds, convention, notes) in SUMMARY.items():
        spec = SPATIAL_PRESETS[name]()
        assert (spec.type_string, spec.convention.value, spec.notes, spec.name) == (kinds, convention, notes, name)


def test_standard_dh_anchor_form_is_the_same_motion():
    """The other exact RobotModel of a standard DH row (body frame = DH frame i: origin C = Rz(θ)Tz(d)Tx(a)Rx(α),
    axis R_Cᵀ ẑ, anchor −R_Cᵀ p_C) moves like the anchor-free one crossdyn writes: Rz(q)·C = C·T(a)·Rot(u, q)·T(−a)
    and Tz(q)·C = C·T(q u).  crossdyn uses the anchor-free form because URDF has no anchor (the written file must
    read back as the same model)."""
    rng = np.random.default_rng(11)
    for _ in range(50):
        a, alpha, d, theta, q = rng.uniform(-2, 2, 5)
        C = _rz(theta) @ _tr(0, 0, d) @ _tr(a, 0, 0) @ _rx(alpha)
        R, p = C[:3, :3], C[:3, 3]
        u, anchor = R.T @ np.array([0.0, 0.0, 1.0]), -R.T @ p
        revolute = C @ _tr(*anchor) @ _rodrigues(u, q) @ _tr(*-anchor)
        assert np.abs(_rz(q) @ C - revolute).max() <= TOL
        assert np.abs(_tr(0, 0, q) @ C - C @ _tr(*(q * u))).max() <= TOL


def test_info_prints_the_rp_arms_textbook_m11_and_g1(capsys):
    """rp-polar at q0 = (0, 0.2 m): M11 = I1 + m1 lc1² + I2 + m2 d2² and G1 = (m1 lc1 + m2 d2) g cos θ1, with the
    cylinders' transverse inertias m (3 r² + L²)/12 (the preset's values, typed here)."""
    i1, i2 = 2.0 * (3 * 0.05**2 + 1.0) / 12, 1.0 * (3 * 0.04**2 + 0.8**2) / 12
    m11 = i1 + 2.0 * 0.5**2 + i2 + 1.0 * 0.2**2
    g1 = (2.0 * 0.5 + 1.0 * 0.2) * 9.81
    assert main(["info", "rp-polar"]) == 0
    out = capsys.readouterr().out
    assert f"    [{m11:+.6f}  +0.000000]" in out and f"G(q0) = [{g1:+.6f}," in out, out


def test_from_robot_model_moves_mjcf_anchors_into_the_frames():
    """A RobotModel whose joints turn about points off the body origins (MJCF's joint pos) becomes an anchor-free
    spec whose centres of mass move exactly as before (world positions at random states)."""
    from dataclasses import replace

    from crossdyn.robots.model import RobotModel

    rng = np.random.default_rng(8)
    base = random_dh_arm(rng, Convention.DH_MODIFIED, 3).to_robot_model()
    joints = tuple(replace(j, anchor=rng.uniform(-0.3, 0.3, 3)) for j in base.joints)
    anchored = RobotModel(base.name, base.source, base.format, base.base, base.bodies, joints, base.parents)
    back = from_robot_model(anchored).to_robot_model()

    def coms(model, q):
        T, out = np.eye(4), []
        for j, b, qi in zip(model.joints, model.bodies, q, strict=True):
            a = j.anchor
            T = T @ j.origin @ ((_tr(*a) @ _rodrigues(j.axis, qi) @ _tr(*-a)) if j.type.rotates else
                                _tr(*(qi * j.axis)))
            out.append((T @ np.append(b.inertial.com, 1.0))[:3])
        return np.array(out)

    for _ in range(10):
        q = rng.uniform(-2, 2, 3)
        assert np.abs(coms(back, q) - coms(anchored, q)).max() <= TOL


def test_export_of_a_spatial_arm(tmp_path, capsys):
    """--native is for planar arms (exit 2); a URDF of an arm whose gravity is not (0, 0, -9.81) says so."""
    assert main(["export", "scara", "--urdf", str(tmp_path / "s.urdf"), "--native"]) == 2
    assert "spatial arm" in capsys.readouterr().err
    path = _write(tmp_path, SCARA_TOML.replace("gravity = [0.0, 0.0, -9.81]", "gravity = [0.0, -9.81, 0.0]"))
    assert main(["export", str(path), "--urdf", str(tmp_path / "g.urdf"), "--mjcf", str(tmp_path / "g.xml")]) == 0
    assert "the URDF cannot hold the arm's gravity [0.0, -9.81, 0.0]" in capsys.readouterr().err
    assert 'gravity="0.0 -9.81 0.0"' in (tmp_path / "g.xml").read_text()
