"""The audit's logic on robots built by hand (crossdyn.robots.model), with crossdyn's spatial reference: bodies
matched by tree position when the names differ, a joint axis pointing the other way mapped by sign, a base turned
about gravity aligned, tolerances at their stated edge, and the explanations — file B's parameter groups put into
file A, and the hypotheses tried on an engine's numbers.  The "engine" numbers here are the reference of a model
changed in a known way (an inertia dropped, the armature ignored, every inertia replaced): the explanation must
recover exactly that change; real engines are in test_audit_engines.py."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from crossdyn.audit import enginediff, explain
from crossdyn.audit.filediff import diff_files
from crossdyn.audit.match import _about, match_bodies, world_frames
from crossdyn.audit.result import AGREE, AMBIGUOUS, BY_DESIGN, DIFFERS, Tolerances
from crossdyn.audit.run import file_pair
from crossdyn.robots.model import Body, Format, Inertial, Joint, JointType, Note, RobotModel, Severity


def T(p=(0.0, 0.0, 0.0)) -> np.ndarray:
    t = np.eye(4)
    t[:3, 3] = p
    return t


def arm(n: int = 5, prefix: str = "link", armature: float = 0.0, masses=None, notes=(), merged=()) -> RobotModel:
    bodies, joints = [], []
    for i in range(n):
        m = masses[i] if masses is not None else 1.0 + 0.5 * i
        inertia = np.diag([0.01, 0.02, 0.015]) * (1 + i)
        bodies.append(Body(f"{prefix}{i + 1}", Inertial(m, [0.01 * i, 0.02, 0.1], inertia),
                           merged if i == n - 1 else ()))
        axis = [0, 0, 1] if i % 2 == 0 else [0, 1, 0]
        joints.append(Joint(f"{prefix}_j{i + 1}", JointType.REVOLUTE, T((0, 0, 0.2 if i else 0.1)), axis,
                            lower=-2.0, upper=2.0, effort=50.0, velocity=2.0, armature=armature))
    return RobotModel("hand-built", f"{prefix}.urdf", Format.URDF, "base", tuple(bodies), tuple(joints),
                      tuple(range(-1, n - 1)), notes=notes)


def test_bodies_matched_by_position_and_opposite_axes_mapped_by_sign():
    a = arm()
    b = arm(prefix="seg")
    flipped = dataclasses.replace(b.joints[2], axis=-b.joints[2].axis, lower=-2.0, upper=2.0)
    b = dataclasses.replace(b, joints=b.joints[:2] + (flipped,) + b.joints[3:])
    m = match_bodies(a, b)
    assert [(p.name_a, p.name_b, p.how) for p in m.pairs] == [(f"link{i}", f"seg{i}", "position") for i in
                                                                range(1, 6)]
    assert [p.sign for p in m.pairs] == [1, 1, -1, 1, 1]
    diff = diff_files(a, b, m, Tolerances())  # same robot, one axis written the other way: named, not relabelled
    assert [(r.element, r.parameter) for r in diff.differing] == [("joint link_j3 / seg_j3", "axis direction")]
    assert not diff_files(a, b, m, Tolerances(), match_sign=True).differing  # matched by sign, as asked
    s = enginediff.sample_states(a, 20, 0)
    _, checks, _ = file_pair(a, b, s, enginediff.reference(a, s), Tolerances())
    assert all(c.status == AGREE and c.max_rel < 1e-13 for c in checks)


def test_a_base_turned_about_gravity_is_aligned_and_a_turn_about_x_is_not():
    a = arm()
    j0 = a.joints[0]
    for angle in (0.7, -np.pi / 2):
        origin = j0.origin.copy()
        origin[:3, :3] = _about(np.array([0, 0, -1.0]), angle) @ origin[:3, :3]
        b = dataclasses.replace(a, joints=(dataclasses.replace(j0, origin=origin),) + a.joints[1:])
        m = match_bodies(a, b)
        assert m.turn == pytest.approx(-angle, abs=1e-12)
        assert not diff_files(a, b, m, Tolerances()).differing
    origin = j0.origin.copy()
    origin[:3, :3] = _about(np.array([1.0, 0, 0]), 0.1) @ origin[:3, :3]  # tilted: gravity sees it
    b = dataclasses.replace(a, joints=(dataclasses.replace(j0, origin=origin),) + a.joints[1:])
    assert {r.parameter for r in diff_files(a, b, match_bodies(a, b), Tolerances()).differing} >= {
        "CoM (world)", "joint axis (world)"}


def test_tolerances_at_their_edge():
    a = arm()
    tol = Tolerances()

    def moved(**change) -> RobotModel:
        body = a.bodies[2]
        inertial = Inertial(change.get("mass", body.inertial.mass), body.inertial.com + change.get("dc", 0.0),
                            body.inertial.inertia + change.get("dI", 0.0))
        return dataclasses.replace(a, bodies=a.bodies[:2] + (dataclasses.replace(body, inertial=inertial),)
                                   + a.bodies[3:])

    def differing(b: RobotModel) -> set[str]:
        return {r.parameter for r in diff_files(a, b, match_bodies(a, b), tol).differing}

    assert differing(moved(dc=np.array([0.9e-6, 0, 0]))) == set()
    assert differing(moved(dc=np.array([1.1e-6, 0, 0]))) == {"CoM (world)"}
    lam = 0.06  # link3's largest principal moment: 0.02 × 3
    assert differing(moved(dI=np.diag([0.9e-5 * lam, 0, 0]))) == set()
    assert differing(moved(dI=np.diag([1.1e-5 * lam, 0, 0]))) == {"inertia about CoM (world)"}
    assert differing(moved(mass=2.0 * (1 + 1.1e-6))) == {"mass"}


def test_file_substitution_names_the_armature_and_the_masses():
    a = arm(n=7)
    tol = Tolerances()
    s = enginediff.sample_states(a, 40, 0)
    ref = enginediff.reference(a, s)
    _, checks, _ = file_pair(a, arm(n=7, prefix="p", armature=0.1), s, ref, tol)
    by = {c.quantity: c for c in checks}
    assert by["M"].explanation == "armature 0.1 on all 7 joints explains the whole M difference"
    assert by["G"].status == AGREE and by["C·q̇"].status == AGREE
    masses = [1.0, 1.5, 2.5, 3.0, 3.0, 3.5, 4.3]  # links 3, 4 and 7 heavier
    _, checks, _ = file_pair(a, arm(n=7, masses=masses), s, ref, tol)
    assert {c.quantity: c.explanation for c in checks}["G"] == "masses of 3 of 7 links explain the whole G difference"


def engine_numbers(model: RobotModel, s, armature: bool = True) -> dict:
    return enginediff.reference(model, s, armature=armature)


def test_engine_hypotheses_recover_the_change_made():
    note = Note("link 'tip' (welded to 'link5')", "mass 0 with inertia diag(0.1, 0.1, 0.1)", Severity.AMBIGUOUS)
    a = arm(notes=(note,), merged=("tip",))
    s = explain.subset(enginediff.sample_states(a, 64, 0))
    ref = enginediff.reference(a, s)
    # the massless part's inertia dropped from link5 (what MuJoCo's importer does)
    dropped = explain.with_inertial(a, 4, d_inertia=-0.1 * np.eye(3))
    values = engine_numbers(dropped, s)
    checks = explain.explain_engine(a, "mujoco", enginediff.compare("f", ref, values, 1e-10, "mujoco"), s, values)
    statuses = {c.quantity: c.status for c in checks}
    assert statuses == {"M": AMBIGUOUS, "G": AGREE, "C·q̇": AMBIGUOUS, "ID": AMBIGUOUS}
    text = next(c.explanation for c in checks if c.quantity == "M")
    assert "'link5'" in text and "diag(-0.1, -0.1, -0.1)" in text and "tip" in text
    # every inertia replaced, masses kept: by design for pybullet-noflag, a difference for any other engine
    replaced = a
    for k in range(a.n):
        replaced = explain.with_inertial(replaced, k, d_inertia=np.diag([0.003, 0.001, 0.002]) * (k + 1))
    values = engine_numbers(replaced, s)
    for engine, status in (("pybullet-noflag", BY_DESIGN), ("dart", DIFFERS)):
        checks = explain.explain_engine(a, engine, enginediff.compare("f", ref, values, 1e-10, engine), s, values)
        assert {c.status for c in checks if c.quantity != "G"} == {status}
        assert "inertias of the bodies differ" in checks[0].explanation
    # the armature ignored
    b = arm(armature=0.1)
    values = engine_numbers(b, s, armature=False)
    checks = explain.explain_engine(b, "x", enginediff.compare("f", enginediff.reference(b, s), values, 1e-10,
                                                                 "x"), s, values)
    assert checks[0].status == DIFFERS and checks[0].explanation.startswith("it ignores the armature")
    # an armature the engine adds and reports (Genesis's default_armature 0.1): named from its config
    c = arm()
    values = engine_numbers(arm(armature=0.1), s)
    config = {"armature": {j.name: 0.1 for j in c.joints}}
    checks = explain.explain_engine(c, "x", enginediff.compare("f", enginediff.reference(c, s), values, 1e-10, "x"),
                                    s, values, config)
    assert checks[0].status == DIFFERS and checks[0].explanation.startswith("it holds another armature on 5 joint(s)")


def test_world_frames_compose_the_origins():
    a = arm(n=3)
    w = world_frames(a)
    assert np.allclose([x.p for x in w], [[0, 0, 0.1], [0, 0, 0.3], [0, 0, 0.5]])
    assert np.allclose(w[2].com, [0.02, 0.02, 0.6])
