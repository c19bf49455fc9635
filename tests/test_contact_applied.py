"""Applied contact: every engine's own tip kinematics, the runner's held contact law, the contact profiles and
their plumbing into compare (crossdyn.engines.*.tip_kinematics, crossdyn.drive.runner,
crossdyn.drive.contact_applied, crossdyn.inputs.profiles drop/swing/press)."""
import dataclasses
import json
from importlib import resources

import numpy as np
import pytest

from crossdyn.analytic.laws.contact import ContactLaw
from crossdyn.analytic.kinematics import end_effector, end_effector_jacobian
from crossdyn.inputs.profiles import ProfileError, default_profile, make_profile
from crossdyn.drive.runner import run_engine
from crossdyn.engines import available_engines, make_engine
from crossdyn.engines.base import EngineError
from crossdyn.models import load_arm

ENGINES = [e for e in ("analytic", "pybullet", "mujoco", "mujoco-rk4", "pinocchio", "dart", "dart-rk4", "drake",
                       "drake-discrete") if e in available_engines()]
FK_TOL = 1e-12
"""m, m/s, m/rad: forward kinematics is exact geometry; measured ≤ 1.1e-14 (velocity at |q̇| ≤ 10 rad/s) on
every engine, the rest is rounding.  (PyBullet's worldLinkFramePosition field is float32, 6e-8 m off: the
adapter reads the inertial frame's position, which coincides for the massless tip link.)"""


@pytest.fixture(scope="module")
def floor():
    return load_arm("planar2r-floor")


@pytest.fixture(scope="module")
def wall():
    return load_arm("planar3r-wall")


@pytest.mark.parametrize("name", ENGINES)
@pytest.mark.parametrize("arm", ["planar2r-floor", "planar3r-wall"])
def test_every_engines_tip_kinematics_equal_the_analytic_ones(name, arm):
    """The forward-kinematics cross-check: x, ẋ, J from the engine's own library (its tip_source) against
    crossdyn.analytic.kinematics at random states, both given and as the engine's current state."""
    spec = load_arm(arm)
    p = spec.params()
    rng = np.random.default_rng(7)
    with make_engine(name, spec, 1e-3) as e:
        assert e.tip_source and (name.startswith("analytic") or "crossdyn.analytic" not in e.tip_source)
        for _ in range(10):
            q, qd = rng.uniform(-np.pi, np.pi, spec.n), rng.uniform(-10, 10, spec.n)
            J_ref = end_effector_jacobian(p, q)
            e.reset(q, qd)
            for x, v, J in (e.tip_kinematics(q, qd), e.tip_kinematics()):
                assert x.shape == (2,) and v.shape == (2,) and J.shape == (2, spec.n)
                assert np.max(np.abs(x - end_effector(p, q))) <= FK_TOL
                assert np.max(np.abs(v - J_ref @ qd)) <= FK_TOL * 10
                assert np.max(np.abs(J - J_ref)) <= FK_TOL


def test_tip_kinematics_need_a_tip():
    """An arm without contact has no tip frame in the generated models: said, not guessed."""
    spec = load_arm("planar2r")
    for name in ("mujoco", "pybullet", "pinocchio"):
        with make_engine(name, spec, 1e-3) as e, pytest.raises(EngineError, match="no 'tip'"):
            e.tip_kinematics()


def test_runner_applies_the_held_law_from_the_engines_state(floor):
    """τ = commanded + J_cᵀ F(x_k, ẋ_k) at every step, recorded; without the law the arm falls through the floor."""
    prof = default_profile(floor)
    q0, qd0 = prof.start
    law = ContactLaw.of(floor)
    tr = run_engine(make_engine("analytic", floor, 1e-3), prof, q0, qd0, 1.0)
    c = tr.info["contact"]
    assert "applied_contact" in tr.info["config"] and "tip_kinematics" in tr.info["config"]
    K = len(tr.tau)
    tau_c = np.array([law.torque(floor.params(), tr.q[k], tr.qd[k]) for k in range(K)])
    assert np.max(np.abs(c["torque"] - tau_c)) <= 1e-9  # the same law from the analytic kinematics
    assert np.max(np.abs(tr.tau - prof.sample(tr.t[:K]) - tau_c)) <= 1e-9
    assert c["normal_force"].max() > 100 and c["penetration"].max() > 1e-3  # it struck the floor
    assert c["penetration"].max() < law.radius  # and the law held it (penetration under the sphere radius)
    free = run_engine(make_engine("analytic", floor, 1e-3), prof, q0, qd0, 1.0, contact_law=False)
    assert "contact" not in free.info
    assert np.max(law.penetration(end_effector(floor.params(), free.q))) > 0.2  # through the floor


@pytest.mark.parametrize("name, same", [("pybullet", "analytic-euler"), ("mujoco", "analytic-euler"),
                                        ("dart", "analytic-euler"), ("mujoco-rk4", "analytic"),
                                        ("pinocchio", "analytic")])
def test_engines_integrate_the_same_held_law(name, same, wall):
    """Each engine's tip kinematics feed the same law: an engine and the analytic model with its integrator agree
    to rounding through a strike with friction (planar3r-wall's swing, 1 s)."""
    if name.split("-")[0] not in " ".join(available_engines()):
        pytest.skip(f"{name} not installed")
    prof = default_profile(wall)
    q0, qd0 = prof.start
    a = run_engine(make_engine(name, wall, 1e-3), prof, q0, qd0, 1.2)
    b = run_engine(make_engine(same, wall, 1e-3), prof, q0, qd0, 1.2)
    assert a.info["contact"]["normal_force"].max() > 50  # it struck the wall
    assert np.max(np.abs(a.info["contact"]["tangential_force"])) > 10  # with friction
    assert np.max(np.abs(a.q - b.q)) <= 1e-9  # measured ≤ 2e-13


def test_contact_hold_keeps_the_force_for_the_period(floor):
    """compare's dt/2 self-consistency run: the law evaluated every dt, held over both half steps."""
    prof = default_profile(floor)
    tr = run_engine(make_engine("analytic", floor, 5e-4), prof, *prof.start, 0.8, contact_hold=1e-3)
    fn = tr.info["contact"]["normal_force"][:, 0]
    assert fn.max() > 100
    assert np.array_equal(fn[0::2], fn[1::2])


def test_balance_of_the_held_law_closes_at_first_order(floor):
    """W_c + V + D → 0 as dt → 0 (the continuous law's E_arm + V + D balance); first order for the held law."""
    from crossdyn.drive.contact_applied import characterise

    law = ContactLaw.of(floor)
    prof = default_profile(floor)
    res = []
    for dt in (1e-3, 5e-4):
        tr = run_engine(make_engine("analytic", floor, dt), prof, *prof.start, 0.5)  # the first strike
        c = characterise(law, tr)
        assert c["first_touch_s"] is not None and c["dissipated_j"] > 0
        res.append(c["balance_residual_j"] / abs(c["dissipated_j"]))
    assert 1.6 < res[0] / res[1] < 2.5  # measured 0.28 -> 0.14 of D (0.067 at dt/4): order 1


@pytest.mark.parametrize("force", [20.0, 5.0])
def test_press_reaches_the_desired_normal_force(floor, force):
    """The computed-torque press: at rest at the press pose the law's F_n = k δ* = F_d; its steady normal force
    reaches F_d (measured 8e-12 N off after 1 s; tolerance 1e-6 N: the equilibrium is exact, the rest is the
    exponential approach)."""
    prof = make_profile("press", floor, force=force)
    assert prof.params()["penetration_at_press_m"] == pytest.approx(force / floor.contact.stiffness)
    tr = run_engine(make_engine("analytic", floor, 1e-3), prof, *prof.start, 1.0)
    fn = tr.info["contact"]["normal_force"][:, 0]
    assert fn[0] == 0.0  # starts clear of the floor
    assert np.max(np.abs(fn[-100:] - force)) <= 1e-6


def test_press_against_a_wall_without_friction(wall):
    """The 3R press (redundant arm, the wall's normal along −x): F_d to 1e-6 N (measured 5e-10)."""
    spec = dataclasses.replace(wall, contact=dataclasses.replace(wall.contact, friction=0.0))
    prof = make_profile("press", spec, force=20.0)
    tr = run_engine(make_engine("analytic", spec, 1e-3), prof, *prof.start, 1.0)
    assert np.max(np.abs(tr.info["contact"]["normal_force"][-100:, 0] - 20.0)) <= 1e-6


def test_contact_profiles_defaults_and_errors(floor, wall):
    """drop for a floor, swing for a wall; each starts clear of its obstacles and strikes one; bad poses refused."""
    from crossdyn.inputs.profile_options import format_profile_list, parse_profile, profile_start

    d, s = default_profile(floor), default_profile(wall)
    assert d.name == "drop" and s.name == "swing"
    law_f, law_w = ContactLaw.of(floor), ContactLaw.of(wall)
    assert law_f.penetration(end_effector(floor.params(), d.pose))[0] <= -0.3 + 1e-9  # 0.3 m clear
    assert law_w.penetration(end_effector(wall.params(), s.pose))[0] < 0
    assert np.array_equal(profile_start(d)[0], d.pose)
    with pytest.raises(ProfileError, match="inside obstacle"):
        make_profile("drop", floor, pose=[-np.pi / 2, 0.0])  # hanging: 0.3 m through the floor
    with pytest.raises(ProfileError, match="nothing below"):
        make_profile("drop", wall)
    with pytest.raises(ProfileError, match="no obstacle is struck"):
        make_profile("swing", floor, angle=0.2)
    with pytest.raises(ProfileError, match="no \\[contact\\]"):
        make_profile("press", load_arm("planar2r"))
    p = parse_profile("press@force=7@approach=0.1", floor)
    assert p.force == 7.0 and p.approach == 0.1
    listing = format_profile_list()
    assert all(f"{name}:" in listing for name in ("drop", "swing", "press"))


@pytest.fixture(scope="module")
def short_compare(floor):
    from crossdyn.comparison.compare import compare

    engines = [e for e in ("analytic", "mujoco", "pybullet") if e in available_engines()]
    return compare(floor, duration=0.6, engines=engines, n_states=20)


def test_compare_reports_applied_contact(short_compare):
    import jsonschema

    s = short_compare.summary
    # the RK4 engine is judged and passes; the semi-implicit Euler ones' own dt/2 reruns differ by a sizeable part of
    # the motion (sqrt(k / m_n) dt = 0.24): their derived tolerance (0.39 rad) exceeds its bound (5 % of the 1.13
    # rad the arm moves), so their trajectory is INCONCLUSIVE, not PASS (issue 23)
    assert s["verdict"] == "INCONCLUSIVE" and not s["failures"], s["failures"]
    assert s["engines"]["analytic"]["trajectory"]["verdict"] == "PASS"
    for name in s["engines"]:
        traj = s["engines"][name]["trajectory"]
        if name != "analytic":
            assert traj["verdict"] == "INCONCLUSIVE" and traj["tolerance_rad"] > traj["tolerance_bound_rad"]
            assert "too sensitive to judge at dt = 0.001 s" in traj["inconclusive_because"]
    con = s["contact"]
    assert con["mode"] == "applied" and "native" not in con  # left to native contact
    assert con["reference"]["first_touch_s"] is not None and con["reference"]["peak_normal_force_n"] > 100
    assert con["held_law"]["omega_dt"] > 0.1  # k = 2e4 N/m at dt = 1 ms is coarse: said in a note
    assert any("sqrt(k / m_n) dt" in n for n in s["notes"]) and any("contact (applied mode)" in n for n in s["notes"])
    for name, e in s["engines"].items():
        assert e["energy"]["max_rel_drift"] is None and "convergence" not in e
        assert e["config"]["tip_kinematics"] and "applied_contact" in e["config"]  # stated in the audit
        assert con["engines"][name]["time_in_contact_s"] > 0
        if name == "analytic":  # no tip frame of its own: its tip IS crossdyn's kinematics, nothing to compare
            assert "tip_kinematics" not in e and con["engines"][name]["max_tip_position_error_m"] is None
            assert "no tip frame of its own" in con["engines"][name]["tip_kinematics"]
            continue
        fk = e["tip_kinematics"]
        assert fk["pass"] and fk["max_tip_position_error_m"] <= FK_TOL
        assert con["engines"][name]["max_tip_position_error_m"] == fk["max_tip_position_error_m"]
    # the RK4 engine and the reference hold the same law: their contact quantities agree closely
    assert con["engines"]["analytic"]["impulse_n_s"] == pytest.approx(con["reference"]["impulse_n_s"], rel=1e-5)
    schema = json.loads(resources.files("crossdyn.comparison").joinpath("summary.schema.json").read_text())
    jsonschema.validate(json.loads(json.dumps(s, default=float)), schema)


def test_terminal_table_and_report(short_compare, tmp_path):
    from crossdyn.cli.compare import format_table
    from crossdyn.reporting import write_outputs

    table = format_table(short_compare.summary)
    assert "contact (applied)" in table and "peak F_n [N]" in table and "reference" in table
    files = write_outputs(short_compare, tmp_path, plots=True, animation=False)
    names = {p.name for p in tmp_path.iterdir()}
    assert {"contact.png", "tip_path.png", "arm.png"} <= names, files
    md = (tmp_path / "report.md").read_text()
    assert "## Contact" in md and "contact.png" in md


def test_half_plane_polygon():
    from crossdyn.reporting import half_plane_polygon as _half_plane_polygon

    poly = _half_plane_polygon((0.0, -1.5), (0.0, 1.0), 2.0)  # the floor's inside: y < -1.5
    assert poly[:, 1].max() == pytest.approx(-1.5) and poly[:, 1].min() == pytest.approx(-2.0)
    assert len(_half_plane_polygon((0.0, -5.0), (0.0, 1.0), 2.0)) == 0  # entirely outside the square


def test_batch_refuses_contact(capsys):
    from crossdyn.cli import main

    assert main(["compare", "planar2r-floor", "--batch", "4"]) == 2
    assert "tip contact with obstacles" in capsys.readouterr().err


def test_held_tip_friction_stays_monotone_and_tends_to_the_stated_law(wall):
    """With the force held over dt, v_s = max(slip_velocity, force_slip F_n) keeps dt μ F_n / (v_s m_t) ≤ 0.5
    wherever the arm touches (m_t,min from 64 sampled configurations: the arm's actual m_t is at least that up to
    sampling, so 0.5 x 1.05 is the bound tested); force_slip ∝ dt, so the law tends to v_s = slip_velocity as
    dt → 0.  Before this rule (v_s = 1e-3 m/s) the number reached 229 on this swing and the press drifted 0.5 N
    from F_d; with it the press with μ = 0.3 reaches F_d = 20 N to 5.8e-3 N after 1 s (tested ≤ 0.02 N: the tip's
    tangential residual decays slowly while friction holds it)."""
    from crossdyn.drive.contact_applied import held_law_coarseness

    laws = [ContactLaw.of(wall, dt=dt) for dt in (1e-3, 5e-4, 2.5e-4)]
    assert laws[0].force_slip > 0 and ContactLaw.of(wall).force_slip == 0.0
    assert laws[0].force_slip / laws[1].force_slip == pytest.approx(2.0)
    assert laws[1].force_slip / laws[2].force_slip == pytest.approx(2.0)
    prof = default_profile(wall)
    tr = run_engine(make_engine("analytic", wall, 1e-3), prof, *prof.start, 1.3)
    coarse = held_law_coarseness(wall, laws[0], tr)
    assert coarse["contact_steps"] > 0 and 0 < coarse["friction_step"] <= 0.5 * 1.05
    press = make_profile("press", wall, force=20.0)
    tr = run_engine(make_engine("analytic", wall, 1e-3), press, *press.start, 1.0)
    assert np.max(np.abs(tr.info["contact"]["normal_force"][-100:, 0] - 20.0)) <= 0.02
