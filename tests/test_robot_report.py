"""Issue 37 ("one plant"): the robot-file and DH-arm report in the planar report's layout (the verdict first, the
summary table, the plots open, the details collapsed; the same renderer, crossdyn.pages), and every joint error in
its joint's unit: a prismatic joint's in m (N, m/s²), a revolute joint's in rad (N m, rad/s²), in the terminal
table, summary.json and the report.  A DH preset with a prismatic joint (rp-polar, crossdyn's own URDF/MJCF of it)
and a real file with prismatic fingers (example-robot-data's Panda)."""
from __future__ import annotations

import contextlib
import io
import json
import re

import jsonschema
import pytest

from browser_probe import VIEWPORT_IDS, VIEWPORTS, assert_fits, measure
from crossdyn.cli import main
from robot_files import erd_panda_urdf

RUN = ["--engines", "mujoco", "--states", "10", "--quiet"]


def run(args: list[str]) -> tuple[int, str]:
    """``crossdyn ARGS``: its exit status and standard output."""
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        code = main(args)
    return code, buf.getvalue()


@pytest.fixture(scope="module")
def rp_polar(tmp_path_factory):
    """``compare rp-polar`` (joint1 revolute, joint2 prismatic) in MuJoCo's Euler: errors of 1e-4 rad and 1e-5 m,
    far apart, so that a unit on the wrong joint shows."""
    pytest.importorskip("mujoco")
    out = tmp_path_factory.mktemp("rp") / "out"
    code, text = run(["compare", "rp-polar", "--duration", "0.2", "--out", str(out), *RUN])
    return code, text, out, json.loads((out / "summary.json").read_text())


@pytest.fixture(scope="module")
def panda(tmp_path_factory):
    """``compare panda.urdf`` (example-robot-data: 7 revolute joints, 2 prismatic fingers)."""
    pytest.importorskip("mujoco")
    out = tmp_path_factory.mktemp("panda") / "out"
    code, text = run(["compare", str(erd_panda_urdf()), "--duration", "0.05", "--out", str(out), *RUN])
    return code, text, out, json.loads((out / "summary.json").read_text())


def table_cell(text: str, engine: str) -> str:
    """The terminal table's trajectory cell of ``engine`` (``PASS 201 (0.00012 rad, 2.4e-06 m)``)."""
    line = next(ln for ln in text.splitlines() if ln.startswith(engine + " "))
    return re.search(r"(?:PASS|FAIL|INCONCLUSIVE) \d+ \([^)]*\)", line).group(0)


def by_unit_figures(cell: str) -> dict[str, float]:
    """``… (1.2e-04 rad, 2.4e-06 m)`` → {"rad": 1.2e-4, "m": 2.4e-6}."""
    inside = cell[cell.index("(") + 1:cell.rindex(")")]
    return {u: float(v) for v, u in (part.split(" ", 1) for part in inside.split(", "))}


@pytest.mark.parametrize("which", ["rp_polar", "panda"])
def test_the_terminal_table_shows_a_prismatic_joints_error_in_m(which, request):
    code, text, out, s = request.getfixturevalue(which)
    per_joint = s["engines"]["mujoco"]["trajectory"]["max_abs_error_per_joint_rad"]
    units = s["joint_units"]
    assert "m" in units and "rad" in units
    shown = by_unit_figures(table_cell(text, "mujoco"))
    assert list(shown) == ["rad", "m"]
    for unit, value in shown.items():
        largest = max(e for e, u in zip(per_joint, units, strict=True) if u == unit)
        assert value == pytest.approx(largest, rel=0.05)  # two significant digits: within half a unit of the second
    assert shown["m"] != pytest.approx(max(per_joint), rel=0.05)  # not the maximum over mixed units
    prismatic = [n for n, t in zip(s["joints"], s["joint_types"], strict=True) if t == "prismatic"]
    assert f"units: prismatic joints ({', '.join(prismatic)}) in m, N, m/s^2" in text
    inv = by_unit_figures(re.search(r"(?:PASS|FAIL|INCONCLUSIVE) \d+ \([^)]*N\)", text).group(0))
    assert list(inv) == ["N m", "N"]


def test_summary_json_names_each_joints_unit_and_splits_the_errors_by_unit(rp_polar):
    from crossdyn.cli.common import schema_text

    code, text, out, s = rp_polar
    jsonschema.validate(s, json.loads(schema_text("compare-robot")))
    assert s["joint_types"] == ["continuous", "prismatic"] and s["joint_units"] == ["rad", "m"]
    e = s["engines"]["mujoco"]
    traj = e["trajectory"]
    assert traj["max_abs_error_by_unit"] == {"rad": traj["max_abs_error_per_joint_rad"][0],
                                             "m": traj["max_abs_error_per_joint_rad"][1]}
    assert traj["max_abs_error_rad"] == max(traj["max_abs_error_per_joint_rad"])  # the old key is kept
    inv = e["inverse_dynamics"]
    assert inv["max_abs_error_by_unit"] == {"N m": inv["max_abs_error_per_joint_nm"][0],
                                            "N": inv["max_abs_error_per_joint_nm"][1]}
    assert list(e["forward_dynamics"]["max_abs_error_by_unit"]) == ["rad/s^2", "m/s^2"]
    mm = e["mass_matrix"]
    entries = mm["max_abs_error_per_entry"]
    assert mm["max_abs_error_by_unit"] == {"kg m^2": entries[0][0], "kg m": max(entries[0][1], entries[1][0]),
                                           "kg": entries[1][1]}


def sections(page: str) -> list[str]:
    """The page's section ids in order, a collapsed one marked ``(details)``."""
    return [f"{i}(details)" if tag == "details" else i for tag, i in re.findall(r'<(section|details) id="([^"]+)"',
                                                                                  page)]


@pytest.mark.parametrize("which", ["rp_polar", "panda"])
def test_the_report_opens_with_the_verdict_then_the_summary_then_the_plots_open(which, request):
    code, text, out, s = request.getfixturevalue(which)
    page = (out / "report.html").read_text()
    body = page[page.index("<body>"):]
    verdict = s["verdict"]
    assert re.search(rf"<h1>crossdyn comparison: {s['robot']} \([^)]*\) — {verdict}</h1>", body)
    first = re.search(r"<p>(.*?)</p>", body).group(1)  # the verdict line, as the terminal prints it
    assert first.startswith(f"<strong>Verdict: {verdict}.</strong> The verdict rests on {s['checks']['total']} "
                            "checks")
    assert f"verdict: {verdict} ({s['checks']['total']} checks" in text
    order = sections(page)
    assert order[0] == "summary" and "plots" in order
    assert all(x.endswith("(details)") for x in order[order.index("plots") + 1:])
    assert order[order.index("plots") + 1:][:1] == ["errors-per-joint(details)"]
    assert body.index("</h1>") < body.index('<section id="summary">') < body.index('<section id="plots">') \
        < body.index("<img") < body.index("<details")
    plots = body[body.index('<section id="plots">'):body.index("</section>", body.index('<section id="plots">'))]
    assert plots.count('<img alt="Trajectory error per joint') == 1 and "data:image/png;base64," in plots
    assert (out / "trajectory_error.png").read_bytes()[:4] == b"\x89PNG"


def summary_rows(md: str) -> dict[str, list[str]]:
    part = md[md.index("## Summary"):]
    part = part[:part.index("\n## ", 3)]
    rows = [[c.strip() for c in line.split("|")[1:-1]] for line in part.splitlines()
            if line.startswith("|") and not line.startswith("|---")]
    return {r[0]: r[1:] for r in rows[1:]}


def test_the_reports_summary_states_each_unit_with_its_error_and_tolerance(rp_polar):
    code, text, out, s = rp_polar
    traj = s["engines"]["mujoco"]["trajectory"]
    cell = summary_rows((out / "report.md").read_text())["mujoco"][1]
    m = re.fullmatch(r"(PASS|FAIL|INCONCLUSIVE) \((\d+) checks\), (\S+) rad, (\S+) m; tolerance (\S+) rad, (\S+) m",
                     cell)
    assert m, cell
    assert m.group(1) == traj["verdict"] and int(m.group(2)) == traj["checks"]
    assert float(m.group(3)) == pytest.approx(traj["max_abs_error_per_joint_rad"][0], rel=5e-3)
    assert float(m.group(4)) == pytest.approx(traj["max_abs_error_per_joint_rad"][1], rel=5e-3)
    assert float(m.group(5)) == float(m.group(6)) == pytest.approx(traj["tolerance_rad"], rel=5e-3)
    md = (out / "report.md").read_text()
    per_joint = md[md.index("## Errors per joint"):]
    assert re.search(r"\| joint2 \| prismatic \| \S+ m \|", per_joint)
    assert re.search(r"\| joint1 \| continuous \| \S+ rad \|", per_joint)
    assert re.search(r"\| joint2 \| prismatic \| \S+ N \|", per_joint)


@pytest.mark.parametrize("width, height", VIEWPORTS, ids=VIEWPORT_IDS)
def test_the_robot_report_fits_a_desktop_and_a_phone_and_its_plot_loads(panda, width, height, tmp_path):
    code, text, out, s = panda
    assert_fits(measure((out / "report.html").read_text(), width, height, tmp_path), width, images=1)


def test_a_revolute_arm_keeps_its_terminal_cells_and_gets_no_units_line():
    from crossdyn.robotcompare.report import cell, units_line

    entry = {"trajectory": {"verdict": "PASS", "checks": 3, "max_abs_error_rad": 2e-9,
                            "max_abs_error_by_unit": {"rad": 2e-9}},
             "energy": {"verdict": "PASS", "checks": 3, "work_energy_residual_rel": 1e-7}}
    assert cell(entry, "trajectory") == "PASS 3 (2e-09 rad)"
    assert cell({"trajectory": {"verdict": "PASS", "checks": 3, "max_abs_error_rad": 2e-9}}, "trajectory") == \
        "PASS 3 (2e-09 rad)"  # a document without units by joint type: as before
    assert cell(entry, "energy") == "PASS 3 (1e-07 of E_scale)" and cell(entry, "mass_matrix") == "-"
    assert units_line({"joints": ["a", "b"], "joint_units": ["rad", "rad"]}) is None


def test_errors_per_unit_are_never_folded_into_one_maximum():
    from crossdyn.conventions import by_unit, joint_unit, mass_matrix_by_unit

    rot = [True, False, True]
    assert by_unit([1e-3, 5e-2, 2e-3], rot) == {"rad": 2e-3, "m": 5e-2}
    assert by_unit([1e-3, None, 2e-3], rot, "effort") == {"N m": 2e-3, "N": None}
    assert by_unit([1.0, 2.0], [False, False], "acceleration") == {"m/s^2": 2.0}
    assert joint_unit(False, "velocity") == "m/s" and joint_unit(True, "velocity") == "rad/s"
    m = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]
    assert mass_matrix_by_unit(m, rot) == {"kg m^2": 9.0, "kg m": 8.0, "kg": 5.0}
