"""The pytest plugin as a user meets it: a real inner pytest run (pytester) in a temporary project with its own
test folder, run from another working directory."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "check"
ARM_TOML = """name = "my-arm"
[[links]]
length = 1.0
mass = 1.0
com = 0.5
inertia = 0.0833
[[links]]
length = 0.8
mass = 0.8
com = 0.4
inertia = 0.04267
"""


@pytest.fixture
def project(pytester):
    """tests/ holding an arm TOML, a user's equations file, a torque CSV, and a working directory elsewhere."""
    tests = pytester.mkdir("suite")
    (tests / "arm.toml").write_text(ARM_TOML)
    shutil.copy(EXAMPLES / "my_2r.py", tests / "my_2r.py")
    rows = ["time,tau1,tau2"] + [f"{t / 10:.1f},0.1,0.0" for t in range(0, 11)]
    (tests / "tau.csv").write_text("\n".join(rows) + "\n")
    (tests / "move.toml").write_text("interpolation = \"quintic\"\n[[points]]\nt = 0.0\nq = [-1.5708, 0.0]\n"
                                     "[[points]]\nt = 0.5\nq = [-1.4, 0.2]\n")
    elsewhere = pytester.mkdir("elsewhere")
    return tests, elsewhere


def run(pytester, tests: Path, elsewhere: Path, body: str):
    (tests / "test_user.py").write_text(body)
    import os

    os.chdir(elsewhere)  # pytester restores the working directory afterwards
    return pytester.runpytest_subprocess(str(tests / "test_user.py"), "-p", "no:cacheprovider", "-q")


@pytest.mark.slow  # moved to the slow tier: keeps make test within its 7-min budget
def test_relative_paths_resolve_against_the_test_files_folder(pytester, project):
    tests, elsewhere = project
    result = run(pytester, tests, elsewhere, """
def test_toml_user_engine_and_csv(crossdyn_engines_agree):
    s = crossdyn_engines_agree("arm.toml", engines=["mujoco-rk4", "user:my_2r.py"], profile="tau.csv",
                               duration=0.5)
    assert s["verdict"] == "PASS" and "user:" in "".join(s["engines"])

def test_profile_options_naming_files(crossdyn_engines_agree):
    s = crossdyn_engines_agree("arm.toml", engines=["pinocchio"], duration=0.5,
                               profile="computed-torque@trajectory=move.toml")
    assert s["profile"]["name"] == "computed-torque" and s["verdict"] == "PASS"
    s = crossdyn_engines_agree("arm.toml", engines=["pinocchio"], duration=0.5, profile="tau.csv@interpolation=zoh")
    assert s["verdict"] == "PASS"

def test_without_the_fixture():
    from crossdyn.pytest_plugin import assert_engines_agree
    assert assert_engines_agree("arm.toml", engines=["pinocchio"], duration=0.2)["verdict"] == "PASS"
""")
    result.assert_outcomes(passed=3)


def test_a_missing_file_is_a_clear_usage_error_not_a_disagreement(pytester, project):
    tests, elsewhere = project
    result = run(pytester, tests, elsewhere, """
def test_missing(crossdyn_engines_agree):
    crossdyn_engines_agree("no_such_arm.toml")
""")
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "CrossdynUsageError: arm no_such_arm.toml: no such file (looked in" in out
    assert str(tests) in out and "engines disagree" not in out


@pytest.mark.slow  # fast tier's 7-minute budget; covered in the slow tier, which .ci/run runs
def test_a_failure_shows_crossdyns_message_not_the_plugins_source(pytester, project):
    tests, elsewhere = project
    (tests / "wrong.py").write_text((EXAMPLES / "my_2r.py").read_text().replace("def G(", "def G_unused(")
                                    + "\n\ndef G(q, p):\n    return [0.0 * q[0], 0.0]\n")
    result = run(pytester, tests, elsewhere, """
def test_disagree(crossdyn_engines_agree):
    crossdyn_engines_agree("arm.toml", engines=["user:wrong.py"], duration=0.3)
""")
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "engines disagree on my-arm" in out and "user:" in out and "trajectory" in out
    assert "__tracebackhide__" not in out and "def assert_engines_agree" not in out
    assert "compare(spec, opt)" not in out  # none of the plugin's source lines


@pytest.mark.slow  # the fast tier's 7-minute budget (.ci/run runs the slow tier)
def test_equations_fixture_passes_a_correct_file_and_fails_with_the_checks_diagnosis(pytester, project):
    tests, elsewhere = project
    shutil.copy(EXAMPLES / "my_3r_buggy.py", tests / "my_3r_buggy.py")
    result = run(pytester, tests, elsewhere, """
def test_correct(crossdyn_equations_match):
    assert crossdyn_equations_match("planar2r", "my_2r.py").passed

def test_buggy(crossdyn_equations_match):
    crossdyn_equations_match("planar3r", "my_3r_buggy.py")

def test_missing(crossdyn_equations_match):
    crossdyn_equations_match("planar3r", "nope.py")
""")
    result.assert_outcomes(passed=1, failed=2)
    out = result.stdout.str()
    # the check's own text: the verdict line, the entries and the named terms
    assert "WRONG: 2 entries wrong: M11, M12" in out and "yours lacks m3*L2*Lc3" in out
    assert "CrossdynUsageError: equations file nope.py: no such file" in out
    assert "def assert_equations_match" not in out and "render_text(result)" not in out


@pytest.mark.slow  # fast tier's 7-minute budget; covered in the slow tier, which .ci/run runs
def test_an_engine_string_with_a_list_valued_option_stays_one_engine(pytester, project):
    """The calibrations print strings like ``mujoco@contact_solref=0.02,1``: given to the plugin as one string,
    the comma before a number continues the option (as in ``compare --engines``), so the engine is built and its
    own check speaks (this arm has no contact), not "unknown engine '1'"."""
    tests, elsewhere = project
    result = run(pytester, tests, elsewhere, """
def test_string(crossdyn_engines_agree):
    crossdyn_engines_agree("arm.toml", engines="pinocchio,mujoco@contact_solref=0.02,1", duration=0.2)
""")
    out = result.stdout.str()
    assert "unknown engine '1'" not in out
    assert "contact_solref=0.02,1: arm 'my-arm' has no [contact]" in out
