"""Typed options of identification, excitation, MJCF, the batch runners and the pytest plugin: the keyword calls
and the options objects give the same results; errors belong to crossdyn's hierarchy; the CLI turns input errors
into exit 2 and lets crossdyn's own bugs through as tracebacks."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from crossdyn.errors import CrossdynError, InputError, UsageError
from crossdyn.models import get_preset


def test_identify_keywords_and_options_agree_and_the_result_is_typed():
    from crossdyn.identification import IdentificationResult, IdentifyOptions, identify
    from crossdyn.identification.report import to_dict

    spec = get_preset("planar2r")
    a = identify(spec, engine=None, optimise=False, duration=2.5, rate=100.0)
    b = identify(spec, None, options=IdentifyOptions(optimise=False, duration=2.5, rate=100.0))
    assert isinstance(a, IdentificationResult)
    assert a.to_summary() == b.to_summary() == to_dict(b)
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.seed = 3  # type: ignore[misc]
    with pytest.raises(TypeError, match="unexpected keyword argument 'estimater'"):
        identify(spec, None, estimater="wls")
    with pytest.raises(TypeError, match="IdentifyOptions"):
        identify(spec, None, None, None, "wls")  # type: ignore[arg-type]


def test_excitation_keywords_and_options_agree():
    from crossdyn.identification import ExcitationOptions, closed_form_base
    from crossdyn.identification.excitation import optimise_excitation

    spec = get_preset("planar2r")
    base = closed_form_base(spec)
    a = optimise_excitation(spec, base, harmonics=3, period=2.0, maxiter=3, starts=1)
    b = optimise_excitation(spec, base, options=ExcitationOptions(harmonics=3, period=2.0, maxiter=3, starts=1))
    assert a.cond == b.cond and np.array_equal(a.trajectory.a, b.trajectory.a)


def test_mjcf_options_are_the_keywords():
    from crossdyn.models.mjcf import MjcfOptions, to_mjcf

    spec = get_preset("planar2r-floor")
    assert to_mjcf(spec, MjcfOptions(timestep=0.002, native_contact=True)) == \
        to_mjcf(spec, timestep=0.002, native_contact=True)
    with pytest.raises(TypeError, match="MjcfOptions"):
        to_mjcf(spec, 0.002)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="integrator"):
        to_mjcf(spec, integrator="Verlet")


def test_batch_problem_runs_a_batched_engine():
    from crossdyn.batch.engines import BatchProblem, run_batch_engine
    from crossdyn.batch.sampling import random_params, random_starts
    from crossdyn.status import RunStatus

    spec = get_preset("planar2r")
    p = random_params(spec, 3, 0, 0.2)
    problem = BatchProblem.of(spec, p, random_starts(spec, 3, 0, 0.2), np.zeros((10, 2)), 1e-3, 5)
    run = run_batch_engine("numpy-rk4", problem)
    assert run.status == RunStatus.OK and run.q is not None and run.q.shape == (3, 3, 2)


def test_error_kinds_belong_to_the_hierarchy():
    from crossdyn.identification.data import DataError
    from crossdyn.pytest_plugin import CrossdynUsageError
    from crossdyn.sweeps.execute import SweepUsageError

    for kind in (CrossdynUsageError, SweepUsageError):
        assert issubclass(kind, UsageError) and issubclass(kind, ValueError)
    assert issubclass(DataError, InputError) and issubclass(InputError, CrossdynError)


def test_plugin_options_reject_an_unknown_keyword():
    from crossdyn.pytest_plugin import AgreementOptions, _agreement_options

    assert _agreement_options(None, {"duration": 0.5}) == AgreementOptions(duration=0.5)
    with pytest.raises(TypeError, match="'durations'"):
        _agreement_options(None, {"durations": 0.5})


def test_cli_input_errors_exit_2_and_crossdyn_bugs_are_tracebacks(monkeypatch, capsys):
    from crossdyn.cli import derive, main

    assert main(["identify", "planar2r", "--noise", "bogus=1"]) == 2
    assert "crossdyn: error: --noise" in capsys.readouterr().err

    def bug(args):
        raise KeyError("a bug in crossdyn")

    monkeypatch.setattr(derive, "run", bug)
    with pytest.raises(KeyError, match="a bug in crossdyn"):
        main(["derive", "planar2r"])


@pytest.mark.parametrize("name, message", [
    ("mujoco@eulerdamp=maybe", "option eulerdamp=maybe: must be true or false"),
    ("mujoco@autoreset=2", "option autoreset=2: must be true or false"),
    ("mujoco@contact_impedance=abc", "option contact_impedance=abc: must be a finite number"),
    ("pybullet@link_damping=nan", "option link_damping=nan: must be a finite number"),
])
def test_an_engine_option_of_the_wrong_kind_is_refused_naming_the_key_and_the_value(name, message):
    # before: any non-empty text switched a bool default back ("eulerdamp=maybe" ran with MuJoCo's implicit damping
    # and PASSed); a number given text failed inside the adapter with "could not convert string to float"
    from crossdyn.engines import make_engine
    from crossdyn.errors import EngineError

    pytest.importorskip(name.split("@")[0])
    with pytest.raises(EngineError, match=message.replace("(", r"\(")):
        make_engine(name, get_preset("planar2r"))
    ok = make_engine(name.split("@")[0] + "@" + name.split("@")[1].split("=")[0] + "=" +
                     ("true" if "must be true" in message else "0.001"), get_preset("planar2r"))
    assert ok.name.startswith(name.split("@")[0])


def test_a_file_engine_option_of_the_wrong_kind_is_refused(tmp_path):
    from crossdyn.engines.files import make_file_engine
    from crossdyn.errors import EngineError
    from crossdyn.models.urdf import to_urdf
    from crossdyn.robots import read_robot

    pytest.importorskip("pinocchio")
    path = tmp_path / "arm.urdf"
    path.write_text(to_urdf(get_preset("planar2r")))
    with pytest.raises(EngineError, match="option damping=yes: must be true or false"):
        make_file_engine("pinocchio@damping=yes", read_robot(path))
