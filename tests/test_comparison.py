"""crossdyn compare: a correct set-up passes, broken set-ups fail naming the engine and metric,
the summary follows its schema, the HTML report's images decode, and runs are deterministic."""
import base64
import io
import json
import re
from importlib import resources

import jsonschema
import numpy as np
import pytest
from PIL import Image

from crossdyn.cli import main
from crossdyn.comparison.compare import DEFAULT_ENGINES
from crossdyn.engines import available_engines, register
from crossdyn.engines.mujoco.planar import MuJoCoEngine

from browser_probe import VIEWPORT_IDS, VIEWPORTS, assert_fits, chromium, measure
from conftest import strip_timings

DART = {"dart"} & set(available_engines())  # in the default engines when dartpy (the `engines` extra) is installed



class WrongMassMuJoCo(MuJoCoEngine):
    """MuJoCo built from an MJCF whose link-2 mass differs from the spec's by 2 % (the spec kept for reporting)."""

    def __init__(self, spec, dt=1e-3, **kw):
        super().__init__(spec.with_link(1, mass=spec.links[1].mass * 1.02), dt, **kw)
        self.spec = spec


register("pybullet-default-link-damping", "crossdyn.engines.pybullet.planar", "PyBulletEngine", link_damping=0.04)
register("mujoco-wrong-mass", __name__, "WrongMassMuJoCo", integrator="Euler")


@pytest.fixture(scope="module")
def default_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("compare")
    code = main(["compare", "planar3r", "--out", str(out), "--quiet"])
    return code, out, json.loads((out / "summary.json").read_text())


@pytest.mark.slow  # fast tier's 7-minute budget; covered in the slow tier, which .ci/run runs
def test_default_compare_planar3r_passes(default_run):
    code, out, summary = default_run
    assert code == 0 and summary["verdict"] == "PASS", summary["failures"]
    assert set(summary["engines"]) == {name for name in DEFAULT_ENGINES if name in available_engines()}
    for name, e in summary["engines"].items():
        assert e["status"] == "ok"
        assert e["inverse_dynamics"]["max_abs_error_nm"] < 1e-9 * summary["torque_scale_nm"]
    # integrator orders measured, not assumed: Euler-type ~1, RK4 ~4
    assert abs(summary["engines"]["pybullet"]["convergence"]["empirical_order"] - 1) < 0.2
    assert abs(summary["engines"]["mujoco-rk4"]["convergence"]["empirical_order"] - 4) < 0.4
    if DART:  # DART's World.step is semi-implicit Euler: same arithmetic as PyBullet's
        assert abs(summary["engines"]["dart"]["convergence"]["empirical_order"] - 1) < 0.2
        assert summary["engines"]["dart"]["trajectory"]["same_integrator_error_rad"] < 1e-12
        assert summary["versions"]["dartpy"]
    if "drake-discrete" in summary["engines"]:  # Drake's discrete plant: semi-implicit Euler
        assert abs(summary["engines"]["drake-discrete"]["convergence"]["empirical_order"] - 1) < 0.2
    # the slow error-controlled `drake` runs on request only (its convergence: test_drake.py), and the run says so
    assert "drake" not in summary["engines"]
    left_out = [n for n in summary["notes"] if n.startswith("left out of the default engines by choice")]
    assert len(left_out) == ("drake" in available_engines())
    if left_out:
        assert "drake, error-controlled RK3" in left_out[0] and left_out[0].endswith(",drake-discrete,drake")
    for f in ("summary.json", "timeseries.csv", "timeseries.parquet", "report.md", "report.html",
              "angles.png", "error.png", "energy.png", "id_error_hist.png", "convergence.png", "animation.gif"):
        assert (out / f).stat().st_size > 0, f


def test_summary_validates_against_documented_schema(default_run):
    schema = json.loads(resources.files("crossdyn.comparison").joinpath("summary.schema.json").read_text())
    jsonschema.validate(default_run[2], schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**default_run[2], "verdict": "maybe"}, schema)


def test_html_report_is_self_contained_and_images_decode(default_run):
    html = (default_run[1] / "report.html").read_text()
    images = re.findall(r'src="data:image/(png|gif);base64,([A-Za-z0-9+/=]+)"', html)
    assert len(images) == 7  # the arm at q0, angles, error, energy, ID histogram, convergence, animation
    for kind, data in images:
        img = Image.open(io.BytesIO(base64.b64decode(data)))
        img.load()
        assert img.format.lower() == kind and img.size[0] > 100
    assert "PASS" in html and "Engine configuration audit" in html


def test_timeseries_is_tidy(default_run):
    import pandas as pd

    df = pd.read_parquet(default_run[1] / "timeseries.parquet")
    assert {"engine", "run", "t", "q1", "q3", "tau1", "err1", "energy"} <= set(df.columns)
    assert set(df.engine) == {"reference"} | {name for name in DEFAULT_ENGINES if name in available_engines()}
    one = df[(df.engine == "pybullet") & (df.run == "driven")]
    assert len(one) == 3001 and np.all(np.diff(one.t) > 0)




@pytest.mark.slow  # moved to the slow tier: keeps make test within its 7-min budget
def test_runs_are_deterministic(tmp_path, default_run):
    out = tmp_path / "again"
    assert main(["compare", "planar3r", "--out", str(out), "--quiet", "--no-plots"]) == 0
    again = json.loads((out / "summary.json").read_text())
    assert strip_timings(again) == strip_timings(default_run[2])


@pytest.mark.slow  # the fast tier's 7-minute budget (.ci/run runs the slow tier)
def test_pybullet_link_damping_left_on_fails_and_names_engine_and_metric(tmp_path, capsys):
    code = main(["compare", "planar3r", "--engines", "pybullet,pybullet-default-link-damping", "--duration", "1",
                 "--out", str(tmp_path), "--quiet", "--no-plots"])
    out = capsys.readouterr().out
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert code == 1 and summary["verdict"] == "FAIL"
    bad = summary["engines"]["pybullet-default-link-damping"]
    assert bad["trajectory"]["pass"] is False and bad["trajectory"]["same_integrator_error_rad"] > 1e-6
    assert summary["engines"]["pybullet"]["trajectory"]["pass"] is True
    assert "pybullet-default-link-damping: trajectory" in out
    # the terminal table: the run status (it ran to the end: ok) beside the result (its trajectory failed)
    row = next(line for line in out.splitlines() if line.startswith("pybullet-default-link-damping "))
    assert row.split()[1:4] == ["ok", "FAIL:", "trajectory"], row
    good = next(line for line in out.splitlines() if line.startswith("pybullet "))
    assert good.split()[1:3] == ["ok", "pass"], good


def test_mjcf_with_a_different_mass_fails_on_static_metrics(tmp_path, capsys):
    code = main(["compare", "planar3r", "--engines", "mujoco-wrong-mass", "--duration", "1",
                 "--out", str(tmp_path), "--quiet", "--no-plots"])
    out = capsys.readouterr().out
    summary = json.loads((tmp_path / "summary.json").read_text())
    e = summary["engines"]["mujoco-wrong-mass"]
    assert code == 1
    for metric in ("inverse_dynamics", "mass_matrix", "forward_dynamics", "trajectory"):
        assert e[metric]["pass"] is False, metric
        assert f"mujoco-wrong-mass: {metric}" in out
    # M entries involving link 2 only: M33 (link 3 alone) is untouched by link 2's mass
    per_entry = np.array(e["mass_matrix"]["max_abs_error_per_entry"])
    assert per_entry[2, 2] < 1e-12 and per_entry[0, 0] > 1e-3


@pytest.mark.slow  # moved to the slow tier: keeps make test within its 7-min budget
def test_baseline_update_compare_and_regression(tmp_path, capsys):
    base = tmp_path / "baseline.json"
    args = ["compare", "planar2r", "--engines", "mujoco,pinocchio", "--duration", "1", "--quiet", "--no-plots",
            "--baseline", str(base)]
    assert main(args + ["--out", str(tmp_path / "a")]) == 2  # no baseline yet: bad input
    assert "--update-baseline" in capsys.readouterr().err
    assert main(args + ["--update-baseline", "--out", str(tmp_path / "b")]) == 0
    first = base.read_text()
    assert main(args + ["--out", str(tmp_path / "c")]) == 0
    assert base.read_text() == first  # comparing never rewrites it
    data = json.loads(first)
    data["engines"]["mujoco"]["trajectory.max_abs_error_rad"] /= 100  # pretend it used to be much better
    data["versions"]["mujoco"] = "0.0.1"
    base.write_text(json.dumps(data))
    assert main(args + ["--out", str(tmp_path / "d")]) == 1
    out = capsys.readouterr().out
    assert "mujoco: trajectory.max_abs_error_rad regressed" in out and "mujoco version differs" in out
    assert main(args + ["--update-baseline", "--out", str(tmp_path / "e")]) == 0
    assert json.loads((tmp_path / "baseline.json.bak").read_text())["versions"]["mujoco"] == "0.0.1"


def test_tolerance_file_overrides_and_is_validated(tmp_path, capsys):
    tol = tmp_path / "tol.toml"
    tol.write_text("trajectory_abs_rad = 1e-12\n")  # far tighter than Euler can meet
    code = main(["compare", "planar2r", "--engines", "mujoco", "--duration", "0.5", "--tolerances", str(tol),
                 "--out", str(tmp_path / "o"), "--quiet", "--no-plots"])
    assert code == 1
    tol.write_text("trajectory_abs_rad = -1\n")
    assert main(["compare", "planar2r", "--tolerances", str(tol), "--out", str(tmp_path / "p")]) == 2
    assert "trajectory_abs_rad" in capsys.readouterr().err


@pytest.mark.parametrize("argv,fragment", [
    (["--engines", "bullet"], "unknown engine 'bullet'"),
    (["--profile", "square"], "unknown profile 'square'"),
    (["--dt", "0"], "--dt"),
    (["--duration", "0.0015"], "whole number"),
])
def test_bad_usage_exits_2(tmp_path, capsys, argv, fragment):
    assert main(["compare", "planar2r", "--out", str(tmp_path), *argv]) == 2
    assert fragment in capsys.readouterr().err


def test_pytest_plugin_fixture(crossdyn_engines_agree):
    summary = crossdyn_engines_agree("planar2r", engines=["mujoco-rk4", "pinocchio"], duration=0.5)
    assert summary["verdict"] == "PASS"
    with pytest.raises(AssertionError, match="mujoco-wrong-mass"):
        crossdyn_engines_agree("planar2r", engines=["mujoco-wrong-mass"], duration=0.5)


@pytest.mark.slow  # moved to the slow tier: keeps make test within its 7-min budget
def test_user_equations_run_as_an_engine(tmp_path, capsys):
    """`--engines user:FILE` puts hand-derived equations through the same comparisons as every engine."""
    from pathlib import Path

    examples = Path(__file__).resolve().parent.parent / "examples" / "check"
    good = f"user:{examples / 'my_2r.py'}"
    assert main(["compare", "planar2r", "--engines", f"{good},mujoco-rk4", "--duration", "0.5", "--quiet",
                 "--no-plots", "--out", str(tmp_path / "good")]) == 0
    bad = f"user:{examples / 'my_3r_buggy.py'}"
    assert main(["compare", "planar3r", "--engines", bad, "--duration", "0.5", "--quiet", "--no-plots",
                 "--out", str(tmp_path / "bad")]) == 1
    summary = json.loads((tmp_path / "bad" / "summary.json").read_text())
    e = summary["engines"][bad]
    assert e["mass_matrix"]["pass"] is False and e["inverse_dynamics"]["pass"] is False
    per_entry = np.array(e["mass_matrix"]["max_abs_error_per_entry"])
    # the buggy file is wrong in M12 (at planar3r's own parameters) and right in M22, M23, M33
    assert per_entry[0, 1] > 1e-3 and per_entry[1, 1] < 1e-12 and per_entry[2, 2] < 1e-12


@pytest.mark.slow  # the fast tier's 7-minute budget (.ci/run runs the slow tier)
@pytest.mark.parametrize("width, height", VIEWPORTS, ids=VIEWPORT_IDS)
def test_html_report_shows_its_images_in_a_real_browser(width, height, tmp_path):
    """Headless Chromium, where installed, at a desktop's and a phone's width: every embedded image loads, and the
    page is never wider than its viewport (document scrollWidth <= innerWidth), as shipped and with every
    collapsed section opened (tests/browser_probe.py).  Without a browser the decode test above stands."""
    chromium()
    out = tmp_path / "r"
    assert main(["compare", "planar2r", "--engines", "mujoco", "--duration", "0.5", "--quiet", "--out", str(out)]) == 0
    assert_fits(measure((out / "report.html").read_text(), width, height, tmp_path), width, images=7)


@pytest.mark.slow  # moved to the slow tier: keeps make test within its 7-min budget
def test_closed_loop_energy_balance_tolerance_follows_the_integration_error(tmp_path):
    """Euler under PD control leaves ~1 % in the work–energy balance: integration error, not model error.
    Its Richardson estimate (from the dt/2 run) predicts it, so a correct engine passes and a damped one fails."""
    code = main(["compare", "planar2r", "--profile", "pd-gravity", "--engines", "mujoco,pybullet@link_damping=0.04",
                 "--duration", "2", "--quiet", "--no-plots", "--out", str(tmp_path)])
    summary = json.loads((tmp_path / "summary.json").read_text())
    good, bad = summary["engines"]["mujoco"], summary["engines"]["pybullet@link_damping=0.04"]
    assert good["energy"]["work_energy_residual_rel"] > 1e-3  # a real, sizeable integration error ...
    assert good["energy"]["pass"] and good["trajectory"]["pass"]  # ... that is not held against the engine
    est, actual = good["energy"]["work_energy_richardson_estimate"], good["energy"]["work_energy_residual_rel"]
    assert 0.8 < est / actual < 1.25  # the estimate predicts the residual
    assert code == 1 and not bad["trajectory"]["pass"]


@pytest.mark.slow  # fast tier's 7-minute budget; covered in the slow tier, which .ci/run runs
def test_coulomb_friction_is_reported_not_ground_through(tmp_path):
    """With f_c > 0 a joint that should stick makes sign(q̇) chatter: the adaptive reference gives up at that
    time with a reason (instead of running for ever), a note explains the engines' different friction
    models, and engines with the same F = f_c sign(q̇) model still agree with the analytic one.  That is native
    mode (``--native-friction``); the default applied mode is tests/test_friction_compare.py."""
    from crossdyn.models import dumps_spec, get_preset

    arm = tmp_path / "rough.toml"
    arm.write_text(dumps_spec(get_preset("planar3r").with_links(damping=0.2, friction=0.05)))
    code = main(["compare", str(arm), "--engines", "pinocchio,mujoco", "--duration", "1", "--quiet",
                 "--no-plots", "--native-friction", "--out", str(tmp_path / "o")])
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert code == 1 and summary["engines"]["mujoco"]["config"]["native_friction"] is True
    assert summary["reference"]["status"] == "failed" and "Coulomb" in summary["reference"]["reason"]
    assert any("Coulomb friction" in n for n in summary["notes"])
    pin = summary["engines"]["pinocchio"]
    assert pin["trajectory"]["same_integrator_error_rad"] < 1e-8 and pin["inverse_dynamics"]["pass"]
    assert summary["engines"]["mujoco"]["inverse_dynamics"]["pass"] is False  # frictionloss is another model


def test_a_baseline_made_with_another_set_up_is_refused_before_the_run(tmp_path, capsys):
    """Another dt, or the same arm name with another parameter: exit 2 naming the difference, nothing run."""
    import json

    base = tmp_path / "baseline.json"
    args = ["compare", "planar2r", "--engines", "mujoco", "--duration", "0.5", "--quiet", "--no-plots",
            "--states", "50", "--baseline", str(base)]
    assert main(args + ["--update-baseline", "--out", str(tmp_path / "a")]) == 0
    capsys.readouterr()
    assert main(args + ["--dt", "0.0005", "--out", str(tmp_path / "b")]) == 2
    err = capsys.readouterr().err
    assert "another set-up" in err and "dt = 0.001 s in the baseline, 0.0005 s in this run" in err
    assert not (tmp_path / "b").exists()  # refused before anything ran
    # the same name with one mass changed (a user's edited arm file): another arm, refused
    from crossdyn.models import get_preset

    spec = get_preset("planar2r").to_dict()
    spec["links"][1]["mass"] *= 1.01
    arm = tmp_path / "planar2r.toml"
    arm.write_text(toml_of(spec))
    assert main(["compare", str(arm), *args[2:], "--out", str(tmp_path / "c")]) == 2
    err = capsys.readouterr().err
    assert "arm 'planar2r' has other parameters than when the baseline was made" in err
    # a baseline written under crossdyn.baseline/1 (no fingerprint) still loads, compared by name with a warning
    doc = json.loads(base.read_text())
    doc["schema"] = "crossdyn.baseline/1"
    del doc["arm_fingerprint"]
    base.write_text(json.dumps(doc))
    assert main(args + ["--out", str(tmp_path / "d")]) == 0
    assert "did not record the arm's parameters" in capsys.readouterr().out


def toml_of(spec: dict) -> str:
    """The arm document as TOML (written by hand: the test does not use crossdyn's writer)."""
    lines = [f'name = "{spec["name"]}"', f"gravity = {list(spec['gravity'])}"]
    for link in spec["links"]:
        lines.append("[[links]]")
        lines += [f"{k} = {v!r}" for k, v in link.items() if isinstance(v, (int, float)) and not isinstance(v, bool)]
    return "\n".join(lines) + "\n"
