"""The work a comparison runs side by side (issue 39's time budget) gives what it gives one after the other.

``processes.fork_map``/``fork_call`` (children forked, results pickled back), the runner's one-row state check,
the same-scheme runs computed once for every engine (``references.shared_schemes``, ``prepared_runs``) and the
native contact characterisation run beside the engines (``phenomenon_contact.start_native``)."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from crossdyn import processes
from crossdyn.drive.runner import _first_bad


def _square(x):
    return x * x


def test_fork_map_returns_the_sequential_values_in_order():
    items = list(range(7))
    assert processes.fork_map(_square, items, 3) == [x * x for x in items]
    assert processes.fork_map(_square, items, 1) == [x * x for x in items]  # sequential here
    assert processes.fork_map(_square, [], 2) == []


def _in_a_fresh_interpreter(code: str) -> dict:
    """``code`` run by a new Python (no JAX loaded: in this test process an earlier test may have imported it, and
    fork_map then computes in this process, as it must), its last line of output read as JSON."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    head = "import json, os, sys, time\nimport numpy as np\nfrom crossdyn import processes\n"
    done = subprocess.run([sys.executable, "-c", head + code], capture_output=True, text=True, timeout=120,
                          cwd=root, env={**__import__("os").environ, "PYTHONPATH": str(root)})
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_fork_map_values_come_from_the_children():
    got = _in_a_fresh_interpreter(
        "pids = processes.fork_map(lambda _: os.getpid(), [0, 1, 2], 2)\n"
        "print(json.dumps({'here': os.getpid(), 'pids': pids, 'jax': 'jax' in sys.modules}))")
    assert not got["jax"] and got["here"] not in got["pids"]  # computed in forked children, not here
    assert len(set(got["pids"])) == 3


def test_fork_map_raises_the_childs_error_with_its_traceback():
    got = _in_a_fresh_interpreter(
        "def boom(x):\n"
        "    if x == 2:\n"
        "        raise ValueError(f'item {x} is bad')\n"
        "    return x\n"
        "try:\n"
        "    processes.fork_map(boom, [1, 2, 3], 2)\n"
        "    print(json.dumps({'raised': None}))\n"
        "except ValueError as e:\n"
        "    print(json.dumps({'raised': str(e), 'notes': getattr(e, '__notes__', [])}))")
    assert got["raised"] == "item 2 is bad"
    assert any("raised in a child process" in note for note in got["notes"])


@pytest.mark.slow  # the fast tier's 7-minute budget (measured this session); .ci/run runs the slow tier
def test_fork_map_computes_here_once_jax_is_loaded():
    """A fork after JAX has started its threads may deadlock: fork_map then computes in this process."""
    got = _in_a_fresh_interpreter(
        "import jax\n"
        "pids = processes.fork_map(lambda _: os.getpid(), [0, 1, 2], 2)\n"
        "print(json.dumps({'here': os.getpid(), 'pids': pids}))")
    assert got["pids"] == [got["here"]] * 3


def test_fork_call_result_and_close():
    got = _in_a_fresh_interpreter(
        "started = processes.fork_call(lambda: np.arange(5) * 2.0)\n"
        "first = started.result().tolist()\n"
        "try:\n"
        "    started.result(); again = None\n"
        "except RuntimeError as e:\n"
        "    again = str(e)\n"
        "slow = processes.fork_call(lambda: time.sleep(60))\n"
        "slow.close()\n"
        "print(json.dumps({'first': first, 'again': again, 'exit': slow.proc.exitcode}))")
    assert got["first"] == [0.0, 2.0, 4.0, 6.0, 8.0]
    assert "already taken" in got["again"]
    assert got["exit"] is not None and got["exit"] != 0  # close() ends the child at once


def test_first_bad_one_row_is_the_block_test():
    """The one-row fast path answers as the array test does: NaN, ±inf in q, |q̇| over the limit (inf allowed
    under an infinite limit)."""
    rows_q = [[0.0, 1.0], [np.nan, 0.0], [np.inf, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0]]
    rows_qd = [[1.0, -1.0], [0.0, 0.0], [0.0, 0.0], [0.0, np.nan], [5.0, 0.0], [-np.inf, 0.0]]
    Q, QD = np.array(rows_q), np.array(rows_qd)
    for limit in (2.0, math.inf):
        for i in range(len(Q)):
            block = _first_bad(np.vstack([Q[i], Q[i]]), np.vstack([QD[i], QD[i]]), 0, 2, limit)
            assert _first_bad(Q, QD, i, i + 1, limit) == (None if block is None else i), (i, limit)
    assert _first_bad(Q, QD, 0, 1, 2.0) is None and _first_bad(Q, QD, 4, 5, 2.0) == 4


def test_shared_schemes_counts_the_engines_sharing_a_replicable_scheme():
    from crossdyn.comparison.references import shared_schemes

    assert shared_schemes(("analytic", "pybullet", "dart", "mujoco-rk4")) == ("semi-implicit-euler",)
    assert set(shared_schemes(("pybullet", "dart", "mujoco-rk4", "pinocchio"))) == {"semi-implicit-euler", "rk4"}
    # the analytic engines are the model itself; one engine alone gains nothing; unknown names are left out
    assert shared_schemes(("analytic", "analytic-rk4", "mujoco-rk4", "no-such-engine")) == ()


def _summary(jobs):
    from crossdyn.comparison.compare import compare

    cmp = compare("planar2r-floor", duration=0.6, dt=0.001, engines=["analytic", "mujoco", "pybullet", "dart"],
                  jobs=jobs, contact_characterise=True)  # as the CLI sets it on a contact arm
    return cmp, _untimed(json.loads(json.dumps(cmp.summary, default=str)))


TIMINGS = {"us_per_step", "compute_s_per_sim_s", "wall_s", "run_s", "seconds", "runtime_s"}


def _untimed(obj):
    """The document without its timings (they differ from run to run; scripts/same_outputs.py's keys)."""
    if isinstance(obj, dict):
        return {k: _untimed(v) for k, v in obj.items() if k not in TIMINGS}
    if isinstance(obj, list):
        return [_untimed(v) for v in obj]
    return obj


@pytest.mark.slow
def test_side_by_side_comparison_equals_the_sequential_one():
    """jobs = 2 (the references and the shared same-scheme runs side by side, the engines in workers, the native
    contact characterisation beside them) gives the document jobs = 1 gives, native contact included."""
    par, doc_par = _summary(2)
    seq, doc_seq = _summary(1)
    assert par.summary["contact"]["native"]["engines"], "the native contact section ran"
    assert par.summary["contact"]["checks"] > 0
    assert doc_par == doc_seq
    np.testing.assert_array_equal(par.reference.q, seq.reference.q)
    np.testing.assert_array_equal(par.reference_free.q, seq.reference_free.q)


def test_step_choice_side_by_side_equals_one_after_the_other():
    """The replica studies of the step's choice (one per scheme) computed in children give the same choice."""
    from crossdyn.comparison.dt_study import choose_planar_dt
    from crossdyn.comparison.start import resolve_profile, start_state
    from crossdyn.comparison.tolerances import Tolerances
    from crossdyn.models import load_arm

    spec = load_arm("planar2r-floor")
    profile = resolve_profile(None, spec)
    start = start_state(spec, profile, None, None)
    engines = ("pybullet", "mujoco-rk4")  # two schemes: semi-implicit Euler and RK4

    def choice(jobs):
        return choose_planar_dt(spec, profile, start, (0.001, 0.8), engines, Tolerances(), lambda dt: None, jobs)

    one, two = choice(1), choice(2)
    assert one.limiting == "semi-implicit-euler" and one.changed  # the drop needs a smaller step
    assert two == one


@pytest.mark.parametrize("name", ["analytic-euler", "pybullet"])
def test_a_run_with_an_earlier_runs_inputs_is_that_run(name):
    """planar2r-floor's drop (zero torque) and the free swing from the same start: run_engine_many makes it once,
    and the copy is what running it gives (every array, bit for bit), under its own profile's name."""
    from crossdyn.comparison.containment import build_engine
    from crossdyn.comparison.start import resolve_profile, start_state
    from crossdyn.drive.runner import run_engine, run_engine_many, same_inputs
    from crossdyn.inputs.profiles import make_profile
    from crossdyn.models import load_arm

    spec = load_arm("planar2r-floor")
    drop, free = resolve_profile(None, spec), make_profile("zero", spec)
    q0, qd0 = start_state(spec, drop, None, None)
    engine = build_engine(name, spec, 0.001, None)
    runs = [(drop, q0, qd0), (free, q0, qd0)]
    assert same_inputs(engine, runs, 0.6)
    driven, again = run_engine_many(engine, runs, 0.6)
    alone = run_engine(engine, free, q0, qd0, 0.6)
    assert again.info["profile"] == alone.info["profile"] != driven.info["profile"]
    assert np.max(alone.info["contact"]["normal_force"]) > 0  # the tip struck the floor: the law acted
    for field in ("t", "q", "qd", "tau"):
        assert getattr(again, field).tobytes() == getattr(alone, field).tobytes(), field
    for key, value in alone.info["contact"].items():
        assert np.asarray(again.info["contact"][key]).tobytes() == np.asarray(value).tobytes(), key
    kicked = make_profile("constant", spec, value=0.1)  # another torque: not the same inputs
    assert not same_inputs(engine, [(drop, q0, qd0), (kicked, q0, qd0)], 0.6)
