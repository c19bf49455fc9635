"""Reliability of `crossdyn compare`: diverging or failing engines are contained, nothing finished is lost,
runs are deterministic, and versions are recorded.

* Divergence containment: an engine whose state becomes non-finite, exceeds the velocity bound, whose
  library raises, or whose worker process dies, is marked ``diverged``/``failed`` with the time and the
  reason, while every other engine's results, plots and report are written; exit code 1.  PyBullet's
  velocity clamp is detected and reported.
* Nothing lost: files are written atomically (a writer killed half-way through summary.json or the
  baseline, or a disk that fills up, leaves the previous file intact); a baseline is only rewritten with
  --update-baseline (previous kept as .bak); Ctrl-C writes what finished, marks the rest skipped, says so
  and exits 130 without a traceback, with --jobs 1 and --jobs 2.
* Determinism: identical summary.json numbers (timings excepted) across runs and across --jobs 1 / 2.
* Versions: summary and baseline record crossdyn's, Python's and every engine's version; a baseline from
  other versions is a warning in the terminal and in report.md.
"""
from __future__ import annotations

import errno
import json
import os
import platform
import signal
import subprocess
import sys
import time
from importlib import metadata
from pathlib import Path

import numpy as np
import pytest

from crossdyn.cli import main
from crossdyn.comparison.compare import DEFAULT_ENGINES
from crossdyn.engines import available_engines, make_engine, register
from crossdyn.engines.base import Engine

from conftest import strip_timings

QUICK = ["--quiet", "--duration", "0.5", "--states", "50"]


# ------------------------------------------------------------------------------------------ a faulty engine
class FaultyEngine(Engine):
    """A real engine (``inner``) that, once a step ends after ``after`` s, suffers one fault:

    ``nan``   its state reads as non-finite;          ``fast``  |q̇| reads 5000 rad/s (bound: 1000);
    ``raise`` its library raises (the PyBullet client is disconnected, then stepped: pybullet.error);
    ``crash`` the process dies (os._exit(9), as a segfaulting library would).
    Queries (M, inverse/forward dynamics, energy) go to a second, healthy copy.
    """

    def __init__(self, spec, dt=1e-3, inner="pybullet", fault="nan", after=0.2):
        super().__init__(spec, dt)
        self.inner, self.fault, self.after = inner, fault, after
        self._query = make_engine(inner, spec, dt)
        self._sim = make_engine(inner, spec, dt)
        self.integrator = self._sim.integrator
        self.name = f"faulty-{fault}"
        self._k = 0

    def _faulty(self) -> bool:
        return self._k * self.dt > self.after + 1e-9

    def reset(self, q, qd):
        self._sim.close()
        self._sim = make_engine(self.inner, self.spec, self.dt)
        self._k = 0
        self._sim.reset(q, qd)

    def step(self, tau):
        self._k += 1
        if self._faulty() and self.fault == "raise":
            self._sim.close()
        if self._faulty() and self.fault == "crash":
            os._exit(9)
        self._sim.step(tau)

    def state(self):
        q, qd = self._sim.state()
        if self._faulty() and self.fault == "nan":
            q = q * np.nan
        if self._faulty() and self.fault == "fast":
            qd = qd + 5000.0
        return q, qd

    def inverse_dynamics(self, q, qd, qdd):
        return self._query.inverse_dynamics(q, qd, qdd)

    def mass_matrix(self, q):
        return self._query.mass_matrix(q)

    def forward_dynamics(self, q, qd, tau):
        return self._query.forward_dynamics(q, qd, tau)

    def energy(self, q, qd):
        return self._query.energy(q, qd)

    def config(self):
        return {**self._query.config(), "fault": self.fault, "fault_after_s": self.after}

    def close(self):
        self._sim.close()
        self._query.close()


for _fault in ("nan", "fast", "raise", "crash"):
    register(f"faulty-{_fault}", __name__, "FaultyEngine", fault=_fault, after=0.2)
register("pybullet-clamp-0.1", "crossdyn.engines.pybullet.planar", "PyBulletEngine", max_joint_velocity=0.1)
register("faulty-raise-at-once", __name__, "FaultyEngine", fault="raise", after=0.0)
register("faulty-cannot-build", __name__, "FaultyEngine", inner="no-such-engine")

FIRST_BAD_T = 0.2 + 1e-3  # the first state after the fault: the end of the first step ending after 0.2 s


def _summary(out: Path) -> dict:
    return json.loads((out / "summary.json").read_text())


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.slow  # moved to the slow tier: keeps make test within its 7-min budget
def test_faulty_engines_are_contained_and_the_rest_is_written(tmp_path, capsys, jobs):
    out = tmp_path / "out"
    engines = "faulty-nan,faulty-fast,faulty-raise,mujoco,pybullet-clamp-0.1"
    code = main(["compare", "planar2r", "--engines", engines, "--out", str(out), "--jobs", jobs, "--no-animation",
                 *QUICK])
    stdout = capsys.readouterr().out
    assert code == 1
    s = _summary(out)
    e = s["engines"]
    assert s["verdict"] == "FAIL"
    assert e["faulty-nan"]["status"] == "diverged" and "non-finite" in e["faulty-nan"]["reason"]
    assert e["faulty-fast"]["status"] == "diverged" and "rad/s" in e["faulty-fast"]["reason"]
    assert e["faulty-raise"]["status"] == "failed" and "Not connected to physics server" in e["faulty-raise"]["reason"]
    for name in ("faulty-nan", "faulty-fast", "faulty-raise"):
        assert e[name]["stopped_at_s"] == pytest.approx(FIRST_BAD_T, abs=1e-12)
        assert f"{FIRST_BAD_T:g}" in e[name]["reason"]  # the reason says when
        assert e[name]["trajectory"]["pass"] is False
        assert any(f.startswith(f"{name}: {e[name]['status']}") for f in s["failures"])
        assert name in stdout
        # the static quantities of a diverged engine are still measured (they do not depend on the run)
        assert e[name]["mass_matrix"]["pass"] is True
    # PyBullet reaching its own velocity clamp (0.1 rad/s here) is a failure that names the clamp, not a pass
    clamp = e["pybullet-clamp-0.1"]
    assert clamp["status"] == "failed" and "clamp" in clamp["reason"] and "max_joint_velocity" in clamp["reason"]
    assert 0 < clamp["stopped_at_s"] < 0.5
    # the healthy engine is complete and passes
    ok = e["mujoco"]
    assert ok["status"] == "ok" and ok["stopped_at_s"] is None
    for metric in ("trajectory", "inverse_dynamics", "forward_dynamics", "mass_matrix", "energy"):
        assert ok[metric]["pass"] is True, metric
    assert len(ok["convergence"]["max_abs_error_rad"]) == 4
    # plots, time series and reports are written, with every engine
    for f in ("angles.png", "error.png", "energy.png", "id_error_hist.png", "convergence.png"):
        assert (out / f).stat().st_size > 1000, f
    report = (out / "report.md").read_text()
    for name in ("faulty-nan", "faulty-fast", "faulty-raise", "pybullet-clamp-0.1"):
        assert f"| {name} | {e[name]['status']} |" in report
    import pandas as pd

    df = pd.read_csv(out / "timeseries.csv")
    driven = df[df.run == "driven"]
    assert len(driven[driven.engine == "mujoco"]) == 501
    assert driven[driven.engine == "faulty-nan"].t.max() == pytest.approx(FIRST_BAD_T - 1e-3)  # last good state


@pytest.mark.slow  # 3-10 s: make test's 7-minute budget (the slow tier runs it in CI)
def test_every_engine_failing_still_writes_everything_quietly(tmp_path, capsys, recwarn):
    out = tmp_path / "out"
    code = main(["compare", "planar2r", "--engines", "faulty-raise-at-once,faulty-cannot-build", "--out", str(out),
                 "--jobs", "1", "--no-animation", *QUICK])
    err = capsys.readouterr().err
    assert code == 1
    e = _summary(out)["engines"]
    assert e["faulty-raise-at-once"]["status"] == "failed" and e["faulty-raise-at-once"]["stopped_at_s"] == 1e-3
    assert e["faulty-cannot-build"]["status"] == "failed" and "no-such-engine" in e["faulty-cannot-build"]["reason"]
    for f in ("summary.json", "timeseries.csv", "report.md", "report.html", "angles.png"):
        assert (out / f).stat().st_size > 0, f
    assert not (out / "convergence.png").exists()  # no engine made a convergence point: no empty figure
    assert "Traceback" not in err and "Warning" not in err, err
    assert not [str(w.message) for w in recwarn], "no library warning either (e.g. matplotlib's empty legend)"


def test_a_dying_worker_process_fails_only_its_engine(tmp_path, capsys):
    out = tmp_path / "out"
    code = main(["compare", "planar2r", "--engines", "faulty-crash,mujoco", "--out", str(out), "--jobs", "2",
                 "--no-plots", *QUICK])
    assert code == 1
    e = _summary(out)["engines"]
    assert e["faulty-crash"]["status"] == "failed" and "exit code 9" in e["faulty-crash"]["reason"]
    assert e["mujoco"]["status"] == "ok" and e["mujoco"]["trajectory"]["pass"] is True


# ------------------------------------------------------------------------------------------ atomic writes
def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    """The disk fills half-way through the data: the exception propagates, the old file is intact."""
    import crossdyn.io as cio

    target = tmp_path / "summary.json"
    cio.write_json_atomic(target, {"old": True})
    before = target.read_bytes()
    real_fdopen = os.fdopen

    class HalfFull:
        def __init__(self, fh):
            self.fh = fh

        def write(self, data):
            self.fh.write(data[: len(data) // 2])
            self.fh.flush()
            raise OSError(errno.ENOSPC, "No space left on device")

        def __getattr__(self, name):
            return getattr(self.fh, name)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.fh.close()

    monkeypatch.setattr(cio.os, "fdopen", lambda fd, mode: HalfFull(real_fdopen(fd, mode)))
    with pytest.raises(OSError, match="No space left"):
        cio.write_json_atomic(target, {"new": list(range(1000))})
    assert target.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["summary.json"]


def test_disk_full_during_compare_is_exit_2_and_keeps_the_previous_summary(tmp_path, monkeypatch, capsys):
    import crossdyn.io as cio

    out = tmp_path / "out"
    args = ["compare", "planar2r", "--engines", "mujoco", "--out", str(out), "--no-plots", *QUICK]
    assert main(args) == 0
    before = (out / "summary.json").read_bytes()
    names_before = sorted(p.name for p in out.iterdir())

    def full(fd, mode):
        os.close(fd)
        raise OSError(errno.ENOSPC, "No space left on device", str(out / "summary.json"))

    monkeypatch.setattr(cio.os, "fdopen", full)
    assert main(args + ["--seed", "1"]) == 2
    err = capsys.readouterr().err
    assert "summary.json" in err and "No space left on device" in err and "Traceback" not in err
    assert (out / "summary.json").read_bytes() == before
    assert sorted(p.name for p in out.iterdir()) == names_before  # no temporary left behind


_HALF_WRITER = r"""
import os, sys, time
import crossdyn.io as cio
target = sys.argv[1]
real_fdopen = os.fdopen
class Half:
    def __init__(self, fh, path): self.fh, self.path = fh, path
    def write(self, data):
        if self.path.endswith(target):
            self.fh.write(data[: len(data) // 2]); self.fh.flush(); os.fsync(self.fh.fileno())
            print("HALF-WRITTEN", flush=True)
            time.sleep(60)
        return self.fh.write(data)
    def __getattr__(self, name): return getattr(self.fh, name)
    def __enter__(self): return self
    def __exit__(self, *exc): self.fh.close()
real_mkstemp = cio.tempfile.mkstemp
last = {}
def mkstemp(prefix="", suffix="", dir=None):
    fd, path = real_mkstemp(prefix=prefix, suffix=suffix, dir=dir)
    last[fd] = prefix
    return fd, path
cio.tempfile.mkstemp = mkstemp
cio.os.fdopen = lambda fd, mode: Half(real_fdopen(fd, mode), last.get(fd, "").rstrip("."))
from crossdyn.cli import main
sys.exit(main(sys.argv[2:]))
"""


@pytest.mark.parametrize("target", ["summary.json", "baseline.json"])
def test_a_writer_killed_half_way_leaves_the_previous_file_intact(tmp_path, target):
    out, base = tmp_path / "out", tmp_path / "baseline.json"
    args = ["compare", "planar2r", "--engines", "mujoco", "--out", str(out), "--no-plots", *QUICK,
            "--baseline", str(base), "--update-baseline"]
    assert main(args) == 0
    old = {"summary.json": (out / "summary.json").read_bytes(), "baseline.json": base.read_bytes()}
    proc = subprocess.Popen([sys.executable, "-c", _HALF_WRITER, target, *args, "--seed", "1"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = ""
        while "HALF-WRITTEN" not in line:
            line = proc.stdout.readline()
            assert line or proc.poll() is None, proc.stderr.read()
        time.sleep(0.05)
        proc.kill()  # SIGKILL: no cleanup handler runs
    finally:
        proc.wait(timeout=30)
    folder = out if target == "summary.json" else tmp_path
    assert (folder / target).read_bytes() == old[target]  # the previous file, whole
    json.loads((folder / target).read_text())
    halves = [p for p in folder.iterdir() if p.name.startswith(f".{target}.") and p.name.endswith(".tmp")]
    assert len(halves) == 1  # the half-written data went to the temporary file only ...
    with pytest.raises(json.JSONDecodeError):
        json.loads(halves[0].read_text())  # ... and it is indeed half a file
    if target == "baseline.json":
        assert base.with_name("baseline.json.bak").read_bytes() == old[target]


def test_baseline_is_only_rewritten_with_update_baseline(tmp_path, capsys):
    base = tmp_path / "b.json"
    args = ["compare", "planar2r", "--engines", "mujoco", "--no-plots", *QUICK, "--baseline", str(base)]
    assert main(args + ["--update-baseline", "--out", str(tmp_path / "a")]) == 0
    assert not base.with_name("b.json.bak").exists()
    first, mtime = base.read_bytes(), base.stat().st_mtime_ns
    assert main(args + ["--out", str(tmp_path / "b"), "--seed", "3"]) == 0  # compares, never writes
    assert base.read_bytes() == first and base.stat().st_mtime_ns == mtime
    assert not base.with_name("b.json.bak").exists()
    assert main(args + ["--update-baseline", "--out", str(tmp_path / "c"), "--seed", "3"]) == 0
    assert base.with_name("b.json.bak").read_bytes() == first  # the previous one kept
    assert base.read_bytes() != first  # other random states: other metrics
    assert json.loads(base.read_text())["engines"]["mujoco"]["status"] == "ok"


# ------------------------------------------------------------------------------------------ Ctrl-C
def _children(pid: int) -> list[int]:
    try:
        out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True).stdout
    except FileNotFoundError:
        return []
    return [int(x) for x in out.split()]


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def _signal_state(pid: int) -> str:
    """SigBlk / SigIgn of a process (hex masks from /proc), to explain an interrupt that did not arrive."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            return " ".join(line.strip() for line in fh if line.startswith(("SigBlk", "SigIgn")))
    except OSError:
        return "gone"


def _interrupt_after_first_engine(cmd):
    """Run ``cmd`` in its own process group; send Ctrl-C (SIGINT to the group) once an engine has finished.

    Returns (return code, stdout, stderr, the engine that finished, the child processes seen then).
    """
    # a program started from a terminal has Ctrl-C at its default disposition and unblocked, whatever the test
    # runner's own process (a pytest-xdist worker) inherited; set so, then exec'd (no fork of this process
    # after JAX or other threads started, as preexec_fn would need)
    shell = ("import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
             "signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT}); os.execv(sys.argv[1], sys.argv[1:])")
    proc = subprocess.Popen([sys.executable, "-c", shell, *cmd], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    finished, lines, children = None, [], []
    try:
        for line in proc.stderr:
            lines.append(line)
            if ": done (" in line:  # the first engine has finished and its result is kept
                finished = line.split("] ", 1)[1].split(":", 1)[0]
                children = _children(proc.pid)
                lines.append(f"[test] signal state of {proc.pid} at Ctrl-C: {_signal_state(proc.pid)}\n")
                os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C does: the whole process group
                break
        stdout, rest = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    return proc.returncode, stdout, "".join(lines) + rest, finished, children


@pytest.mark.parametrize("jobs", ["1", pytest.param("2", marks=pytest.mark.slow)])  # each 6 s
def test_ctrl_c_writes_what_finished_marks_the_rest_skipped_and_says_so(tmp_path, jobs):
    out, base = tmp_path / "out", tmp_path / "b.json"
    base.write_text("{}")  # an existing file that an interrupted run must not replace
    cmd = [sys.executable, "-m", "crossdyn.cli", "compare", "planar3r", "--out", str(out), "--jobs", jobs,
           "--no-animation", "--baseline", str(base), "--update-baseline"]
    code, stdout, err, finished, children = _interrupt_after_first_engine(cmd)
    assert finished is not None, err
    assert code == 130, err
    assert "Traceback" not in err + stdout
    s = _summary(out)
    e = s["engines"]
    assert s["interrupted"] is True and s["verdict"] == "FAIL"
    assert e[finished]["status"] == "ok" and e[finished]["trajectory"]["pass"] is True
    skipped = [k for k, v in e.items() if v["status"] == "skipped"]
    assert skipped and finished not in skipped
    assert all("interrupted (Ctrl-C)" in e[k]["reason"] for k in skipped)
    assert set(e) == {name for name in DEFAULT_ENGINES if name in available_engines()}
    # it says so: in the terminal, in the failures, in the report
    assert f"wrote the results of {finished}" in err and all(k in err.split("skipped:")[1] for k in skipped)
    assert any("interrupted" in f for f in s["failures"])
    assert "Interrupted (Ctrl-C)" in (out / "report.md").read_text()
    assert (out / "angles.png").stat().st_size > 0
    # the baseline is not replaced by a partial run
    assert base.read_text() == "{}" and "NOT updated" in err
    # no worker process outlives the run
    deadline = time.time() + 5
    while any(_alive(c) for c in children) and time.time() < deadline:
        time.sleep(0.1)
    assert not any(_alive(c) for c in children)


@pytest.mark.slow  # moved to the slow tier: keeps make test within its 7-min budget
def test_ctrl_c_during_demo_writes_both_arms_and_the_index(tmp_path):
    out = tmp_path / "demo"
    code, stdout, err, finished, children = _interrupt_after_first_engine(
        [sys.executable, "-m", "crossdyn", "demo", "--out", str(out), "--no-animation"])
    assert finished is not None and code == 130 and "Traceback" not in err + stdout, err
    for arm in ("planar2r", "planar3r"):
        s = _summary(out / arm)
        assert s["interrupted"] is True and s["verdict"] == "FAIL"
    index = (out / "index.md").read_text()
    assert "planar2r" in index and "planar3r" in index and "FAIL" in index
    deadline = time.time() + 5
    while any(_alive(c) for c in children) and time.time() < deadline:
        time.sleep(0.1)
    assert not any(_alive(c) for c in children)


# ------------------------------------------------------------------------------------------ determinism


@pytest.mark.slow  # ~10-25 s: moved to the slow tier to keep make test within its 7-min budget
def test_identical_numbers_across_runs_and_jobs(tmp_path):
    args = ["compare", "planar3r-general", "--quiet", "--duration", "1", "--states", "200", "--no-plots"]
    runs = {}
    for label, jobs in (("jobs1", "1"), ("jobs2", "2"), ("jobs2-again", "2")):
        assert main(args + ["--out", str(tmp_path / label), "--jobs", jobs]) == 0
        runs[label] = tmp_path / label
    summaries = {k: _summary(v) for k, v in runs.items()}
    assert summaries["jobs1"]["engines"]["pybullet"]["speed"]["us_per_step"] > 0  # timings exist (and differ)
    stripped = {k: strip_timings(v) for k, v in summaries.items()}
    assert stripped["jobs1"] == stripped["jobs2"] == stripped["jobs2-again"]
    csv = {k: (v / "timeseries.csv").read_bytes() for k, v in runs.items()}
    assert csv["jobs1"] == csv["jobs2"] == csv["jobs2-again"]


# ------------------------------------------------------------------------------------------ versions
@pytest.mark.slow  # moved to the slow tier: keeps make test within its 7-min budget
def test_versions_are_recorded_and_other_versions_warn_in_the_report(tmp_path, capsys):
    base = tmp_path / "b.json"
    args = ["compare", "planar2r", "--engines", "mujoco,pybullet,pinocchio", "--no-plots", *QUICK,
            "--baseline", str(base)]
    assert main(args + ["--update-baseline", "--out", str(tmp_path / "a")]) == 0
    expected = {"crossdyn": metadata.version("crossdyn"), "python": platform.python_version(),
                "mujoco": metadata.version("mujoco"), "pybullet": metadata.version("pybullet"),
                "pinocchio": metadata.version("pin"), "numpy": metadata.version("numpy"),
                "scipy": metadata.version("scipy")}
    summary = _summary(tmp_path / "a")
    stored = json.loads(base.read_text())
    for key, version in expected.items():
        assert summary["versions"][key] == version, key
        assert stored["versions"][key] == version, key
    for name in ("mujoco", "pybullet", "pinocchio"):  # and each engine's own config names its version
        assert summary["engines"][name]["config"]["version"] == expected[name]
    capsys.readouterr()

    stored["versions"]["mujoco"] = "0.0.1"
    stored["versions"]["python"] = "2.7.18"
    base.write_text(json.dumps(stored))
    assert main(args + ["--out", str(tmp_path / "b")]) == 0  # other versions warn; they do not fail
    stdout = capsys.readouterr().out
    report = (tmp_path / "b" / "report.md").read_text()
    for text in (f"mujoco version differs: baseline 0.0.1, this run {expected['mujoco']}",
                 f"python version differs: baseline 2.7.18, this run {expected['python']}"):
        assert text in stdout and text in report
    assert "Warning (baseline)" in report and "no regression" in report
    html = (tmp_path / "b" / "report.html").read_text()
    assert "mujoco version differs" in html
