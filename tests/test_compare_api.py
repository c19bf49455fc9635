"""compare() from Python: options validated like the command line's, a typed result whose to_summary() is the
summary.json document, and crossdyn's own errors raised (never reported as a failed engine)."""
from __future__ import annotations

import dataclasses

import pytest

from crossdyn import CompareOptions, Comparison, compare
from crossdyn.cli import main
from crossdyn.errors import InputError
from crossdyn.status import RunStatus, Verdict

QUICK = dict(duration=0.05, n_states=5, convergence_dts=())


def test_a_string_of_engines_is_refused_from_python():
    with pytest.raises(InputError, match="list or tuple of engine names") as e:
        compare("planar2r", engines="mujoco-rk4", **QUICK)
    assert "'mujoco-rk4'" in str(e.value) and "['mujoco-rk4']" in str(e.value)
    with pytest.raises(ValueError):  # an InputError is a ValueError, as users have always caught
        CompareOptions(engines="mujoco-rk4")


def test_an_unknown_engine_is_refused_naming_it_and_the_known_ones():
    with pytest.raises(InputError) as e:
        compare("planar2r", engines=["mujoco_rk4"], **QUICK)
    msg = str(e.value)
    assert "unknown engine 'mujoco_rk4'" in msg and "mujoco-rk4" in msg and "pinocchio" in msg


@pytest.mark.parametrize("argv,fragment", [
    (["--engines", "mujoco_rk4"], "unknown engine 'mujoco_rk4'"),
    (["--engines", "mujoco,mujoco"], "named more than once"),
    (["--engines", ","], "no engine named"),
])
def test_the_cli_refuses_the_same_engines(tmp_path, capsys, argv, fragment):
    assert main(["compare", "planar2r", "--out", str(tmp_path), "--quiet", *argv]) == 2
    err = capsys.readouterr().err
    assert fragment in err and "--engines" in err
    if "unknown" in fragment:
        assert "mujoco-rk4" in err


@pytest.mark.parametrize("field,value,fragment", [
    ("engines", (), "no engine named"),
    ("engines", ("mujoco", "mujoco"), "named more than once"),
    ("engines", [1, 2], "list or tuple of engine names"),
    ("duration", 0.0015, "whole number"),
    ("dt", -1e-3, "dt: must be a positive number"),
    ("n_states", 0, "n_states"),
    ("seed", -1, "seed"),
    ("jobs", 0, "jobs"),
    ("q0", (0.0, float("nan")), "q0"),
    ("convergence_dts", (1e-3, 0.0), "convergence_dts"),
])
def test_options_are_validated_when_built(field, value, fragment):
    with pytest.raises(InputError, match=fragment):
        CompareOptions(**{field: value})


def test_options_are_frozen_and_lists_become_tuples():
    opt = CompareOptions(engines=["mujoco-rk4"], convergence_dts=[2e-3, 1e-3])
    assert opt.engines == ("mujoco-rk4",) and opt.convergence_dts == (2e-3, 1e-3)
    with pytest.raises(dataclasses.FrozenInstanceError):
        opt.duration = 1.0  # type: ignore[misc]


def test_the_result_is_typed_and_to_summary_is_the_document():
    result = compare("planar2r", engines=["mujoco-rk4", "pinocchio"], **QUICK)
    assert isinstance(result, Comparison) and result.verdict is Verdict.PASS and result.passed
    run = result.runs["pinocchio"]
    assert run.status is RunStatus.OK and run.metrics["trajectory"].passed is True
    doc = result.to_summary()
    assert doc == result.summary and doc["verdict"] == "PASS" and doc["engines"]["pinocchio"]["status"] == "ok"
    assert list(doc["engines"]["pinocchio"])[:2] == ["trajectory", "inverse_dynamics"]
    assert result["engines"] is result.summary["engines"]  # dict-style access reads the document
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.interrupted = True  # type: ignore[misc]


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_bug_in_crossdyn_is_raised_not_reported_as_a_failed_engine(monkeypatch, jobs):
    """In a worker process too: the error is sent back and raised here (forked workers see the patch)."""
    from crossdyn.comparison import metrics
    from crossdyn.comparison.pool import start_method

    if jobs > 1 and start_method() != "fork":
        # JAX was imported in this test process (another test file on this worker): the pool's workers start from
        # a forkserver and would not see a patch made here, so the same check runs in a fresh process of its own
        import subprocess
        import sys

        code = ("import pytest\nfrom crossdyn import compare\nfrom crossdyn.comparison import metrics\n"
                "def broken(*a, **k):\n    raise ZeroDivisionError(\"a bug in crossdyn's own metric\")\n"
                "metrics.joint_trajectory_errors = broken\n"
                "with pytest.raises(ZeroDivisionError, match='a bug in crossdyn'):\n"
                f"    compare('planar2r', engines=['mujoco-rk4', 'pinocchio'], jobs={jobs}, **{QUICK!r})\n"
                "print('raised')\n")
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0 and proc.stdout.strip().endswith("raised"), proc.stdout + proc.stderr
        return

    def broken(*args, **kwargs):
        raise ZeroDivisionError("a bug in crossdyn's own metric")

    monkeypatch.setattr(metrics, "joint_trajectory_errors", broken)
    with pytest.raises(ZeroDivisionError, match="a bug in crossdyn"):
        compare("planar2r", engines=["mujoco-rk4", "pinocchio"], jobs=jobs, **QUICK)


def test_an_engine_raising_is_still_contained(monkeypatch):
    from crossdyn.engines.pinocchio.planar import PinocchioEngine

    def broken(self, q):
        raise RuntimeError("the library fell over")

    monkeypatch.setattr(PinocchioEngine, "mass_matrix", broken)
    result = compare("planar2r", engines=["mujoco-rk4", "pinocchio"], **QUICK)
    e = result.summary["engines"]["pinocchio"]
    assert e["status"] == "failed" and e["reason"] == "RuntimeError: the library fell over"
    assert "trajectory" in e  # what was measured before it raised is kept
    assert result.summary["engines"]["mujoco-rk4"]["status"] == "ok" and not result.passed
