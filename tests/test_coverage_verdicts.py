"""A phenomenon the arm declares but the run never exercised is NOT EXERCISED (0 checks, the verdict left to the rest:
exit 0 when that passed), or INCONCLUSIVE (exit 3) when the user asked about it (``--require``, ``--native``,
``--calibrate-*``), with the measured reason and a start that exercises it; that printed start really does (issue
23, case 1 and the coverage rule; issue 39, "not exercised is not could not judge").

Every arm is written here into tmp_path; every run goes through ``crossdyn compare`` (exit status, printed lines,
summary.json).  Each test runs the arm as a user would, reads the suggestion off the printed line, runs it, and
asserts PASS with checks > 0 for the phenomenon."""
from __future__ import annotations

import json
import re

import numpy as np
import pytest

from crossdyn.cli import main
from crossdyn.reporting import render_markdown, report_blocks

PLANAR3R = [(1.0, 1.0, 0.5, 1 / 12), (0.8, 0.8, 0.4, 0.8 * 0.8**2 / 12), (0.6, 0.5, 0.3, 0.5 * 0.6**2 / 12)]


def _arm(tmp_path, name: str, links: list[tuple], extra: list[dict], tail: str = "") -> str:
    """An arm TOML (planar links (L, m, c, I) with the per-link extra keys), written to tmp_path."""
    text = f'name = "{name}"\ngravity = [0.0, -9.81, 0.0]\n'
    for (length, mass, com, inertia), keys in zip(links, extra, strict=True):
        text += f"\n[[links]]\nlength = {length}\nmass = {mass}\ncom = {com}\ninertia = {inertia!r}\n"
        text += "".join(f"{k} = {v}\n" for k, v in keys.items())
    path = tmp_path / f"{name}.toml"
    path.write_text(text + tail)
    return str(path)


def _compare(tmp_path, capsys, arm: str, args: list[str], tag: str) -> tuple[int, str, dict]:
    out_dir = tmp_path / tag
    code = main(["compare", arm, "--no-plots", "--states", "20", "--quiet", "--out", str(out_dir)] + args)
    printed = capsys.readouterr().out
    return code, printed, json.loads((out_dir / "summary.json").read_text())


def _suggestion(line: str) -> list[str]:
    """The ``try --profile … --q0 … [--qd0 …]`` of an INCONCLUSIVE or NOT EXERCISED line, as arguments."""
    m = re.search(r"try (--profile \S+ --q0 \S+(?: --qd0 \S+)?)", line)
    assert m, line
    return m.group(1).split()


def _line(printed: str, prefix: str, word: str = "INCONCLUSIVE") -> str:
    lines = [ln for ln in printed.splitlines() if ln.startswith(f"  {word} {prefix}")]
    assert len(lines) >= 1, printed
    return lines[0]


@pytest.mark.slow  # 3-10 s: make test's 7-minute budget (the slow tier runs it in CI)
def test_case1_limits_never_reached_is_inconclusive_without_calibration_and_the_suggested_start_passes(tmp_path,
                                                                                                   capsys):
    """Case 1: a 3R arm with wide limits its default motion never reaches, --native --calibrate-limits: was a
    PASS with 0 limit contacts after a calibration that could not calibrate anything."""
    arm = _arm(tmp_path, "student3r", PLANAR3R, [
        {"limits": [-2.3, -0.85], "limit_stiffness": 200.0, "limit_damping": 1.0},
        {"limits": [-1.5, 1.5], "limit_stiffness": 200.0, "limit_damping": 1.0},
        {"limits": [-1.5, 1.5], "limit_stiffness": 200.0, "limit_damping": 1.0}])
    code, printed, s = _compare(tmp_path, capsys, arm, ["--engines", "mujoco,pybullet", "--native",
                                                        "--calibrate-limits", "--duration", "0.5"], "before")
    line = _line(printed, "limits:")
    assert code == 3 and s["verdict"] == "INCONCLUSIVE" and "verdict: INCONCLUSIVE" in printed
    lim = s["limits"]
    assert lim["verdict"] == "INCONCLUSIVE" and lim["checks"] == 0 and s["checks"]["limits"] == 0
    assert "no joint reached a limit: q1 stayed in [" in line and "against [-2.3, -0.85]" in line
    # the ranges quoted are the reference's own
    q1 = np.array([c for c in re.findall(r"q1 stayed in \[(\S+), (\S+)\]", line)[0]], dtype=float)
    assert -2.3 < q1[0] <= q1[1] < -0.85
    assert "calibration" not in lim and "calibration_pybullet" not in lim and lim["native"] == {}
    assert "calibration and native limits skipped: no limit contact to calibrate against" in lim["skipped"]
    assert all(rows == [] for rows in lim["contacts"].values())
    md = render_markdown(report_blocks(s, []))
    assert "Verdict: INCONCLUSIVE, 0 checks (a check is a limit contact" in md and "no joint reached a limit" in md

    args = _suggestion(line)
    code, printed, s = _compare(tmp_path, capsys, arm, ["--engines", "mujoco,pybullet", "--duration", "0.5"] + args,
                                "after")
    lim = s["limits"]
    assert code == 0 and s["verdict"] == "PASS", printed
    assert lim["verdict"] == "PASS" and lim["checks"] >= 2 and s["checks"]["limits"] == lim["checks"]
    assert len(lim["contacts"]["reference"]) >= 1 and all(lim["contacts"][e] for e in ("mujoco", "pybullet"))
    assert f"Verdict: PASS, {lim['checks']} checks" in render_markdown(report_blocks(s, []))


@pytest.mark.slow
def test_case1_suggested_start_gets_the_native_limits_and_calibration_judged(tmp_path, capsys):
    """The same arm from the printed start, with --native --calibrate-limits (18 s): the calibration is spent now
    that there is a limit contact, and the native runs are judged per contact (checks > 0; MuJoCo's native limit
    departs from the compliant law k = 200 N m/rad, so FAIL is the measured outcome, not INCONCLUSIVE)."""
    arm = _arm(tmp_path, "student3r", PLANAR3R, [
        {"limits": [-2.3, -0.85], "limit_stiffness": 200.0, "limit_damping": 1.0},
        {"limits": [-1.5, 1.5], "limit_stiffness": 200.0, "limit_damping": 1.0},
        {"limits": [-1.5, 1.5], "limit_stiffness": 200.0, "limit_damping": 1.0}])
    common = ["--engines", "mujoco-rk4", "--native", "--calibrate-limits", "--duration", "0.5"]
    code, printed, s = _compare(tmp_path, capsys, arm, common, "before")
    assert code == 3 and "calibration" not in s["limits"]
    code, printed, s = _compare(tmp_path, capsys, arm, common + _suggestion(_line(printed, "limits:")), "after")
    lim = s["limits"]
    assert "skipped" not in lim and lim["calibration"]["evaluations"] > 0 and lim["native"]
    assert lim["verdict"] != "INCONCLUSIVE" and lim["checks"] > 0 and s["checks"]["limits"] == lim["checks"]
    assert (lim["verdict"] == "FAIL") == any("native limit departs" in f for f in s["failures"])


def test_a_contact_never_touched_is_not_exercised_and_the_suggested_start_touches(tmp_path, capsys):
    """A wall 1.2 m to the side of a 2R arm that starts in the drop pose and is driven about it: NOT EXERCISED
    (every other group PASSes: exit 0)."""
    wall = ('\n[contact]\nradius = 0.02\nstiffness = 20000.0\ndamping = 50.0\n\n'
            '[[obstacles]]\npoint = [1.2, 0.0, 0.0]\nnormal = [-1.0, 0.0, 0.0]\n')
    # mujoco-rk4: judged well inside its bound (semi-implicit Euler at dt = 1 ms is INCONCLUSIVE on this strike)
    arm = _arm(tmp_path, "wall2r", PLANAR3R[:2], [{}, {}], wall)
    common = ["--engines", "mujoco-rk4", "--duration", "0.5", "--no-native-contact"]
    code, printed, s = _compare(tmp_path, capsys, arm, common, "before")
    line = _line(printed, "contact:", "NOT EXERCISED")
    assert code == 0 and s["verdict"] == "PASS" and s["inconclusive"] == [], printed
    assert s["contact"]["verdict"] == "NOT_EXERCISED" and s["contact"]["checks"] == 0
    assert s["not_exercised"] == [line.removeprefix("  NOT EXERCISED ")] and "not exercised: contact — try" in printed
    gap = float(re.search(r"closest approach of the tip sphere (\S+) m", line).group(1))
    assert gap > 0.5 and s["contact"]["reference"]["contacts"] == 0

    code, printed, s = _compare(tmp_path, capsys, arm, common + _suggestion(line), "after")
    assert code == 0 and s["verdict"] == "PASS", printed
    assert s["contact"]["verdict"] == "PASS" and s["contact"]["checks"] >= 1
    assert s["contact"]["reference"]["contacts"] >= 1 and s["contact"]["engines"]["mujoco-rk4"]["contacts"] >= 1


def test_friction_on_a_joint_that_never_slides_is_not_exercised_and_the_suggested_start_slides(tmp_path, capsys):
    """Coulomb friction 3 N m on joint 3 (more than gravity and the default profile ever put on it): NOT
    EXERCISED, exit 0."""
    arm = _arm(tmp_path, "fric3r", PLANAR3R, [{}, {}, {"friction": 3.0}])
    common = ["--engines", "mujoco", "--duration", "0.5"]
    code, printed, s = _compare(tmp_path, capsys, arm, common, "before")
    line = _line(printed, "friction:", "NOT EXERCISED")
    fr = s["friction"]
    assert code == 0 and s["verdict"] == "PASS", printed
    assert fr["verdict"] == "NOT_EXERCISED" and fr["checks"] == 0 and fr["sliding_samples"] == 0
    reached = float(re.search(r"joint 3 \(f_c = 3 N m\) reached \|qd\| (\S+) rad/s", line).group(1))
    assert reached < fr["kinetic_threshold_rad_s"]

    code, printed, s = _compare(tmp_path, capsys, arm, common + _suggestion(line), "after")
    fr = s["friction"]
    assert code == 0 and s["verdict"] == "PASS", printed
    assert fr["verdict"] == "PASS" and fr["checks"] == fr["sliding_samples"] > 0


def test_an_effort_limit_never_reached_is_not_exercised_unless_required_and_the_suggested_profile_saturates(
        tmp_path, capsys):
    """Effort 10 N m on joint 1, whose default torques stay near 2 N m: NOT EXERCISED and PASS (exit 0) on
    everything else; with --require effort the same run is INCONCLUSIVE (exit 3), as before issue 39."""
    arm = _arm(tmp_path, "eff3r", PLANAR3R, [{"effort": 10.0}, {}, {}])
    common = ["--engines", "mujoco", "--duration", "0.5"]
    code, printed, s = _compare(tmp_path, capsys, arm, common, "before")
    line = _line(printed, "effort:", "NOT EXERCISED")
    eff = s["engines"]["mujoco"]["effort"]
    assert code == 0 and s["verdict"] == "PASS" and s["inconclusive"] == [], printed
    assert eff["verdict"] == "NOT_EXERCISED" and eff["checks"] == 0 and eff["saturated_steps"][0] == 0
    assert eff["pass"] is None and "no joint saturated" in eff["not_exercised_because"]
    assert "joint 1 max |tau|" in line and eff["max_abs_torque_nm"][0] < 10.0
    verdict = next(ln for ln in printed.splitlines() if ln.startswith("verdict: "))
    assert verdict.startswith("verdict: PASS (") and "effort 0; not exercised: effort — try --profile constant" in verdict
    md = render_markdown(report_blocks(s, []))
    assert "NOT EXERCISED (0 checks) |" in md and "NOT EXERCISED: no joint saturated" in md
    assert md.split("\n## ")[0].count("NOT EXERCISED (declared by the arm, never reached by this run") == 1

    code, printed, s = _compare(tmp_path, capsys, arm, common + ["--require", "effort"], "required")
    assert code == 3 and s["verdict"] == "INCONCLUSIVE" and s["not_exercised"] == [], printed
    assert s["engines"]["mujoco"]["effort"]["verdict"] == "INCONCLUSIVE"
    assert _suggestion(_line(printed, "mujoco: effort:")) == _suggestion(line)

    code, printed, s = _compare(tmp_path, capsys, arm, common + _suggestion(line), "after")
    eff = s["engines"]["mujoco"]["effort"]
    assert code == 0 and s["verdict"] == "PASS", printed
    assert eff["verdict"] == "PASS" and eff["checks"] == eff["saturated_steps"][0] > 0


def test_armature_is_judged_against_the_analytic_mass_matrix_and_fails_where_it_is_missing():
    """The armature group compares the engine's M_ii with the analytic M (which carries I_a) at the static states:
    the analytic M of the same arm without armature (what an engine lacking it computes) fails, naming the joint
    and the I_a it carries (0)."""
    from dataclasses import replace

    from crossdyn import analytic
    from crossdyn.comparison.groups.armature import with_mass_matrix_errors
    from crossdyn.comparison.result import MetricResult
    from crossdyn.models.presets import get_preset

    spec = get_preset("planar3r-geared")
    bare = replace(spec, links=tuple(replace(link, armature=0.0) for link in spec.links))
    qs = np.random.default_rng(0).uniform(-np.pi, np.pi, (12, 3))
    M_ref = np.array([analytic.mass_matrix(spec, q) for q in qs])
    M_bare = np.array([analytic.mass_matrix(bare, q) for q in qs])
    group = MetricResult("armature", {"armature_kgm2": [link.armature for link in spec.links]})
    ok = with_mass_matrix_errors(group, M_ref + 1e-15, M_ref, 1e-12)
    assert ok.values["verdict"] == "PASS" and ok.checks == 12
    bad = with_mass_matrix_errors(group, M_bare, M_ref, 1e-12)
    assert bad.values["verdict"] == "FAIL" and bad.checks == 12
    assert "M_11 departs" in bad.failed_because and "carries 0 kg m^2" in bad.failed_because
