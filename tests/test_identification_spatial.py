"""identify on spatial arms: the numeric base-parameter reduction (same span as the planar closed form; the ranks
the grouping rules give for an RP arm, a SCARA, an elbow RRR, a 6R; Y_b β = τ at fresh states), noise-free recovery
through crossdyn's spatial simulation, the consistent estimator's pseudo-inertia LMI, the command line on a URDF.

The arms are built here with RobotModel's own constructors (explicit origins and axes, random physically valid
inertials from tests/spatial_models.py), not from a preset module, so the reduction is checked on arms whose
structure is stated in this file.  Expected ranks (rigid bodies, no friction), from the grouping rules of Gautier and
Khalil (1990), "Direct calculation of minimum set of inertial parameters of serial robots", IEEE TRA 6(3), and
Mayeda, Yoshida and Osuka (1990) — worked out for each arm in its docstring below.
"""
import json

import numpy as np
import pytest

pytestmark = pytest.mark.slow  # the whole module: keeps make test within its 7-min budget (CI runs it)

from crossdyn.identification.base_numeric import (full_regressor, numeric_base, random_states, reduce_columns,
                                                  spatial_parameters, stacked_regressor)
from crossdyn.identification.parameters import closed_form_base, full_parameters
from crossdyn.identification.parameters import full_regressor as planar_regressor
from crossdyn.identification.parameters import random_states as planar_states
from crossdyn.identification.data import NoiseModel
from crossdyn.identification.identify import identify
from crossdyn.models import get_preset
from crossdyn.robots.model import Body, Format, Joint, JointType, RobotModel
from crossdyn.spatial import rnea
from spatial_models import random_inertial

R, P = JointType.REVOLUTE, JointType.PRISMATIC


def pose(rx: float = 0.0, p=(0.0, 0.0, 0.0)) -> np.ndarray:
    """Rx(rx) with translation p, 4×4."""
    T = np.eye(4)
    c, s = np.cos(rx), np.sin(rx)
    T[:3, :3] = [[1, 0, 0], [0, c, -s], [0, s, c]]
    T[:3, 3] = p
    return T


def chain(name: str, joints, gravity=(0.0, 0.0, -9.81), seed: int = 0) -> RobotModel:
    """A serial chain: joints as (type, origin, axis[, limits]); random valid inertials, damping, friction, armature."""
    rng = np.random.default_rng(seed)
    js, bodies = [], []
    for i, (kind, origin, axis, *lim) in enumerate(joints):
        lo, hi = lim[0] if lim else (None, None)
        js.append(Joint(f"j{i + 1}", kind, origin, np.asarray(axis, float), lower=lo, upper=hi,
                        damping=float(rng.uniform(0.05, 0.5)), friction=float(rng.uniform(0.05, 0.5)),
                        armature=float(rng.uniform(0.01, 0.1))))
        bodies.append(Body(f"b{i + 1}", random_inertial(rng)))
    return RobotModel(name, "<test>", Format.URDF, "base", tuple(bodies), tuple(js), tuple(range(-1, len(js) - 1)),
                      gravity=np.asarray(gravity, float))


def rp_arm() -> RobotModel:
    """RP in a vertical plane: joint 1 about the horizontal z (gravity −y), joint 2 slides along body 1's x.
    Body 1: ZZ1R, MX1R, MY1R (a revolute first joint not parallel to gravity); body 2 (prismatic): its inertia
    groups into body 1, its first moment along the joint axis is h·q terms (MZ-like), across the slide in the plane
    it reaches τ2 through −m c⊥ q̈1, across the plane it groups into body 1; m2 stays: 3 + 3 = 6."""
    return chain("rp", [(R, pose(), (0, 0, 1)), (P, pose(np.pi / 2), (0, 0, 1), (0.2, 1.2))], gravity=(0, -9.81, 0))


def scara_arm() -> RobotModel:
    """RRP SCARA, all axes vertical, gravity along them: ZZ1R; link 2 ZZ2R, MX2R, MY2R (no gravity on the revolute
    joints, so only these three of a revolute link parallel to the previous one); the vertical prismatic
    link: its mass M3 (the rest groups into link 2): 1 + 3 + 1 = 5."""
    return chain("scara", [(R, pose(), (0, 0, 1)), (R, pose(0, (0.5, 0, 0)), (0, 0, 1)),
                           (P, pose(0, (0.4, 0, 0)), (0, 0, 1), (0.0, 0.4))])


def elbow_arm() -> RobotModel:
    """Elbow RRR (first three joints of a PUMA without offsets): joint 1 vertical (ZZ1R only), joints 2 and 3
    horizontal and parallel: 7 each (XXR, XY, XZ, YZ, ZZR, MXR, MYR): 1 + 7 + 7 = 15 (Mayeda et al.'s 7n − 6)."""
    return chain("elbow", [(R, pose(0, (0, 0, 0.6)), (0, 0, 1)), (R, pose(np.pi / 2), (0, 0, 1)),
                           (R, pose(0, (0.5, 0, 0)), (0, 0, 1))])


ARMS = {"rp": (rp_arm, 6), "scara": (scara_arm, 5), "elbow": (elbow_arm, 15)}


@pytest.mark.parametrize("name", ["planar2r", "planar3r", "planar3r-general", "planar5r", "planar3r-geared"])
def test_numeric_reduction_spans_the_planar_closed_form(name):
    spec = get_preset(name)
    armature = spec.has_armature
    cf = closed_form_base(spec, armature=armature)
    full = full_parameters(spec, armature=armature)
    q, qd, qdd = planar_states(spec.n, 100, np.random.default_rng(4))
    W = planar_regressor(spec.params(), q, qd, qdd, armature=armature).reshape(-1, full.p)
    nb = reduce_columns(W, full)
    assert nb.r == cf.r
    # every closed-form base parameter is a combination of the numeric ones: B_cf = C B_num
    C = np.linalg.lstsq(nb.B.T, cf.B.T, rcond=None)[0].T
    assert np.max(np.abs(C @ nb.B - cf.B)) <= 1e-10 * np.max(np.abs(cf.B))
    # and the names say which parameters: planar2r's are the closed form's groups
    if name == "planar2r":
        # MX1R = m1·Lc1 + m2·L1, ZZ1R = J1 + m1·Lc1² + m2·L1², MX2R = m2·Lc2 with L1 = 1 m
        assert nb.names[:4] == ("mx1 + m2", "Izz1 + m2", "mx2", "Izz2") and nb.symbols[:2] == ("mx1R", "Izz1R")


@pytest.mark.parametrize("name", list(ARMS))
def test_spatial_ranks_match_the_grouping_rules(name):
    make, rigid = ARMS[name]
    model = make()
    nb = numeric_base(model, friction=False)
    assert nb.r == rigid
    assert nb.gap > 1e10  # the rank is decided by 10 orders of magnitude at least (measured ≥ 4e14)
    full = numeric_base(model, friction=True, armature=True)
    assert model.n * 2 + rigid <= full.r <= model.n * 3 + rigid  # b, f_c always; I_a1 can merge


def test_ur5_has_36_rigid_base_parameters():
    """A 6R arm whose first joint is parallel to gravity: 36 (Gautier & Khalil 1990's count for the PUMA 560,
    Mayeda et al.'s 7n − 6); here on the UR5 from example-robot-data."""
    from crossdyn.robots import read_robot
    from robot_files import erd_ur5_urdf

    assert numeric_base(read_robot(erd_ur5_urdf()), friction=False).r == 36


@pytest.mark.parametrize("name", list(ARMS))
def test_base_regressor_reproduces_the_torque(name):
    model = ARMS[name][0]()
    nb = numeric_base(model, friction=True, armature=True, seed=1)
    q, qd, qdd = random_states(model, 200, np.random.default_rng(77))  # fresh states
    tau = rnea(model, q, qd, qdd, armature=True) + np.array([j.damping for j in model.joints]) * qd \
        + np.array([j.friction for j in model.joints]) * np.sign(qd)
    Yb = nb.regressor(full_regressor(model, q, qd, qdd, armature=True))
    assert np.max(np.abs(Yb @ nb.values() - tau)) <= 1e-10 * np.max(np.abs(tau))
    # the full regressor factorises through the base set: Y = Y_b B
    Y = full_regressor(model, q, qd, qdd, armature=True)
    assert np.max(np.abs(Y - Yb @ nb.B)) <= 1e-10 * np.max(np.abs(Y))


def test_names_are_the_combinations_in_B():
    nb = numeric_base(elbow_arm(), friction=False)
    for name, row in zip(nb.names, nb.B, strict=True):
        assert len(name.split(" + ")) + len(name.split(" − ")) - 1 == np.count_nonzero(row)
    assert "m1" in nb.unidentifiable and "Izz1" not in nb.unidentifiable  # m1 moves about a fixed axis only
    assert nb.names[0].startswith("Izz1 + Iyy2")


def test_parameters_are_the_model_values():
    model = scara_arm()
    full = spatial_parameters(model, friction=True, armature=True)
    assert full.p == 13 * model.n and full.names[:3] == ("m1", "mx1", "my1")
    assert full.values[0] == model.bodies[0].inertial.mass and full.values[-1] == model.joints[-1].armature
    assert stacked_regressor(model, armature=True, states=7).shape == (21, full.p)


@pytest.mark.parametrize("source", ["exact", "spatial"])
def test_noise_free_recovery(source):
    model = scara_arm()
    res = identify(model, None if source == "exact" else source, duration=1.0, period=2.0, dt=2e-3)
    assert np.max(res.relative_errors()) <= 1e-8   # measured ~1e-13: rounding only (step rows are exact)
    assert res.judgement()[0].value == "PASS"
    assert np.all(res.validation_rms <= 1e-9)


def test_noisy_recovery_keeps_truth_inside_intervals():
    res = identify(rp_arm(), None, noise=NoiseModel(torque=0.05), seed=3)
    assert res.judgement()[0].value == "PASS"
    assert np.max(res.relative_errors()) > 1e-6     # the noise is seen …
    assert np.all(res.inside(familywise=True))      # … and covered by the intervals


def test_consistent_estimate_is_physical():
    pytest.importorskip("cvxpy")
    model = rp_arm()
    res = identify(model, None, estimator="consistent", noise=NoiseModel(torque=0.5), seed=5)
    th = res.est.theta
    assert th is not None
    for i in range(model.n):
        m, h, Ib = th[10 * i], th[10 * i + 1:10 * i + 4], th[10 * i + 4:10 * i + 10]
        Ibar = np.array([[Ib[0], Ib[1], Ib[3]], [Ib[1], Ib[2], Ib[4]], [Ib[3], Ib[4], Ib[5]]])
        J = np.block([[0.5 * np.trace(Ibar) * np.eye(3) - Ibar, h[:, None]], [h[None, :], np.array([[m]])]])
        assert np.min(np.linalg.eigvalsh(J)) >= -1e-8 * max(1.0, np.max(np.abs(J)))
    assert np.all(th[10 * model.n:] >= -1e-9)  # friction, armature
    ref = identify(model, None, estimator="consistent")
    assert np.max(ref.relative_errors()) <= 1e-6  # noise-free: the truth is feasible, so it is found


def test_cli_identifies_a_urdf(tmp_path, capsys):
    from crossdyn.cli import main
    from robot_files import erd_ur5_urdf

    rc = main(["identify", str(erd_ur5_urdf()), "--engine", "exact", "--duration", "1", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert rc == 0 and "48 base parameters of 72" in out and "verdict: PASS" in out
    doc = json.loads((tmp_path / "identify.json").read_text())
    assert doc["kind"] == "spatial" and doc["numerical_rank"] == 48 and doc["verdict"] == "PASS"
    assert max(p["relative_error"] for p in doc["parameters"]) <= 1e-8


@pytest.mark.parametrize("argv, word", [(["--engine", "mujoco"], "--engine mujoco"),
                                        (["--noise", "encoder=1e-4"], "torque=S only"),
                                        (["--diagnose-engines", "mujoco"], "--diagnose-engines")])
def test_cli_refuses_what_the_spatial_path_lacks(tmp_path, capsys, argv, word):
    from crossdyn.cli import main
    from robot_files import erd_ur5_urdf

    rc = main(["identify", str(erd_ur5_urdf()), *argv, "--out", str(tmp_path / "o")])
    assert rc == 2 and word in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


PRESET_RANKS = {"rp-polar": 6, "rpp-cylindrical": 5, "scara": 5, "elbow-rrr": 15, "ppp-cartesian": 3, "pan-tilt": 8}
"""Rigid base parameters of the spatial presets by the grouping rules: rp-polar and scara as the RP and SCARA arms
above; rpp-cylindrical: ZZ1R, m2 (τ2 = (m2 + m3)(q̈2 + g), m3 from τ3), m3, and the slide's first moments along
(mz3) and across (mx3, through −m c q̈1 in τ3) its axis in the horizontal plane: 5; elbow-rrr 7n − 6 = 15;
ppp-cartesian: only the masses (τ1 = (m1 + m2 + m3) q̈1, …): 3; pan-tilt (vertical pan, horizontal tilt): 7n − 6 = 8."""


@pytest.mark.parametrize("name", list(PRESET_RANKS))
def test_spatial_presets_ranks_and_torque(name):
    model = get_preset(name, spatial=True).to_robot_model()
    nb = numeric_base(model, friction=False)
    assert nb.r == PRESET_RANKS[name] and nb.gap > 1e10
    full = numeric_base(model, seed=2)
    q, qd, qdd = random_states(model, 100, np.random.default_rng(11))
    tau = rnea(model, q, qd, qdd) + np.array([j.damping for j in model.joints]) * qd
    assert np.max(np.abs(full.regressor(full_regressor(model, q, qd, qdd)) @ full.values() - tau)) \
        <= 1e-10 * np.max(np.abs(tau))


def test_cli_identifies_a_spatial_toml_spec(tmp_path, capsys):
    from crossdyn.cli import main
    from crossdyn.models.spatial_spec_io import dumps_spatial_spec

    spec = tmp_path / "rp.toml"
    spec.write_text(dumps_spatial_spec(get_preset("rp-polar", spatial=True)))
    rc = main(["identify", str(spec), "--engine", "exact", "--duration", "2", "--noise", "torque=0.01",
               "--out", str(tmp_path / "o")])
    out = capsys.readouterr().out
    assert rc == 0 and "10 base parameters of 24" in out  # 6 rigid + b, f_c on 2 joints; 20 + 4 full
    doc = json.loads((tmp_path / "o" / "identify.json").read_text())
    assert doc["noise"] == {"torque_std_Nm": 0.01} and all(p["inside_familywise_interval"] for p in doc["parameters"])


def test_planar_arms_keep_the_planar_path(tmp_path, capsys):
    from crossdyn.cli import main
    from crossdyn.cli.identify_spatial import spatial_model

    assert spatial_model("planar2r") is None and spatial_model("planar3r-geared") is None
    assert spatial_model("scara").n == 3
    assert main(["identify", str(tmp_path / "missing.urdf"), "--out", str(tmp_path / "o")]) == 2
    assert "missing.urdf: no such robot file" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["elbow-rrr", "rp-polar"])
def test_base_set_does_not_depend_on_the_random_states(name):
    """Another seed and fewer states give the same kept columns and the same B (the grouping is structural;
    measured difference 8e-16)."""
    model = get_preset(name, spatial=True).to_robot_model()
    a, b = numeric_base(model, seed=0), numeric_base(model, seed=5, states=40)
    assert a.columns == b.columns and a.names == b.names
    assert np.max(np.abs(a.B - b.B)) <= 1e-12
