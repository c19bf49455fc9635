"""crossdyn.sandbox: what a sandboxed child can and cannot do, with real processes under real bubblewrap.

Each test starts a real child through :func:`crossdyn.sandbox.launch` with low limits (1 GiB, 16-32 processes),
so that a test that failed could not take the machine down."""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import threading

import pytest

from crossdyn import sandbox
from crossdyn.errors import UsageError

LOW = sandbox.Limits(memory=1 * sandbox.GiB, cpu=20, processes=32, file_size=8 * sandbox.MiB)
POLICY = sandbox.Policy(sandbox.Mode.AUTO, LOW)

needs_bwrap = pytest.mark.skipif(
    not sys.platform.startswith("linux") or shutil.which("bwrap") is None
    or sandbox.isolation(POLICY).mechanism != "bubblewrap",
    reason="bubblewrap (bwrap) is not installed or cannot create its namespaces here (make test installs it as root)")


@pytest.fixture
def open_dir():
    """A folder in /tmp others may enter (pytest's own are private to their user, here root), removed after."""
    import tempfile
    from pathlib import Path
    path = Path(tempfile.mkdtemp(prefix="crossdyn-test-"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def run(code: str, workdir, policy=POLICY, env=None, timeout=60) -> subprocess.CompletedProcess:
    launched = sandbox.launch([sys.executable, "-I", "-c", code], workdir, policy, extra_env=env)
    return subprocess.run(launched.argv, capture_output=True, text=True, timeout=timeout, **launched.popen_kwargs())


def test_parsing_sizes_counts_and_modes():
    assert sandbox.parse_size("2GiB", "--limit-memory") == 2 * sandbox.GiB
    assert sandbox.parse_size("512M", "--limit-memory") == 512 * sandbox.MiB
    assert sandbox.parse_count("60s", "--limit-cpu") == 60
    limits = sandbox.parse_limits("memory=1GiB,cpu=30,processes=16,file=8MiB")
    assert limits == sandbox.Limits(1 * sandbox.GiB, 30, 16, 8 * sandbox.MiB)
    assert sandbox.Limits().describe() == "2 GiB, 60 s CPU, 64 processes, 64 MiB files"
    for bad, call in (("lots", lambda: sandbox.parse_size("lots", "--limit-memory")),
                      ("ten", lambda: sandbox.parse_count("ten", "--limit-cpu")),
                      ("memory", lambda: sandbox.parse_limits("memory", "--limits")),
                      ("paranoid", lambda: sandbox.parse_mode("paranoid"))):
        with pytest.raises(UsageError, match=bad):
            call()
    policy = sandbox.Policy(sandbox.Mode.STRICT, limits)
    assert sandbox.current() == sandbox.Policy() or os.environ.get(sandbox.ENVIRONMENT_VARIABLE)
    old = os.environ.get(sandbox.ENVIRONMENT_VARIABLE)
    try:
        sandbox.set_current(policy)
        assert sandbox.current() == policy
    finally:
        if old is None:
            os.environ.pop(sandbox.ENVIRONMENT_VARIABLE, None)
        else:
            os.environ[sandbox.ENVIRONMENT_VARIABLE] = old


def test_the_process_tag_is_kept():
    from crossdyn import processes
    assert sandbox.TAG_VARIABLE == processes.TAG_VARIABLE and sandbox.TAG_VARIABLE in sandbox.KEPT


def test_off_describes_itself_and_strict_names_what_is_missing(monkeypatch):
    assert sandbox.isolation(sandbox.Policy(sandbox.Mode.OFF)).describe().startswith("off")
    monkeypatch.setenv("PATH", "/nonexistent")          # neither bwrap nor unshare can be found
    monkeypatch.setattr(sandbox, "_WORKS", {})
    with pytest.raises(UsageError, match="network isolation and a read-only filesystem"):
        sandbox.isolation(sandbox.Policy(sandbox.Mode.STRICT))
    assert sandbox.isolation(sandbox.Policy(sandbox.Mode.AUTO)).mechanism == "limits only"


@needs_bwrap
def test_auto_is_bubblewrap_and_says_so():
    iso = sandbox.isolation(POLICY)
    assert iso.describe() == "bubblewrap: no network, read-only filesystem; 1 GiB, 20 s CPU, 32 processes, 8 MiB files"
    assert sandbox.isolation(sandbox.Policy(sandbox.Mode.STRICT, LOW)).mechanism == "bubblewrap"


@needs_bwrap
def test_environment_is_reduced_and_home_is_fresh(tmp_path, monkeypatch):
    monkeypatch.setenv("CROSSDYN_TEST_SECRET", "s3cr3t-token-123")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "aws-456")
    r = run("import os; print(sorted(os.environ)); print(os.environ['HOME']); print(os.listdir(os.environ['HOME']))",
            tmp_path / "work")
    assert r.returncode == 0, r.stderr
    assert "s3cr3t" not in r.stdout and "CROSSDYN_TEST_SECRET" not in r.stdout and "AWS" not in r.stdout
    lines = r.stdout.splitlines()
    assert lines[1] == str((tmp_path / "work" / "home").resolve()) and lines[2] == "[]"


@needs_bwrap
def test_writes_outside_the_folder_fail_and_inside_succeed(open_dir):
    tmp_path = open_dir
    victim = tmp_path / "victim.txt"
    victim.write_text("keep")
    work = tmp_path / "work"
    r = run(f"open('inside.txt', 'w').write('ok')\nimport os\n"
            f"try:\n    open({str(victim)!r}, 'w').write('pwned')\nexcept OSError as e:\n    print('blocked', e.errno)\n"
            f"try:\n    os.remove({str(victim)!r})\nexcept OSError as e:\n    print('blocked', e.errno)\n", work)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["blocked", "30", "blocked", "30"]        # EROFS, twice
    assert victim.read_text() == "keep"
    assert (work / "inside.txt").read_text() == "ok"


@needs_bwrap
def test_a_writable_file_is_the_one_thing_outside_the_folder_it_may_write(open_dir):
    """``launch(writable=[FILE])`` (a grader's progress file): the child writes that file in place; the file beside
    it stays read-only, and the bound file cannot be removed or replaced."""
    from crossdyn.equations import progress

    beside = open_dir / "beside.txt"
    beside.write_text("keep")
    shared = progress.create(open_dir / ".running")
    launched = sandbox.launch([sys.executable, "-I", "-c",
                               f"f = open({str(shared)!r}, 'r+b'); f.write(b'C(q, qd, p)'); f.close()\n"
                               "import os\n"
                               f"for act in (lambda: open({str(beside)!r}, 'w'), lambda: os.remove({str(shared)!r})):\n"
                               "    try:\n        act()\n    except OSError as e:\n        print('blocked', e.errno)\n"],
                              open_dir / "work", POLICY, writable=[shared])
    r = subprocess.run(launched.argv, capture_output=True, text=True, timeout=60, **launched.popen_kwargs())
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["blocked", "30", "blocked", "30"]        # EROFS: the file beside, the folder
    assert progress.read(shared) == "C(q, qd, p)" and beside.read_text() == "keep"


@pytest.mark.slow  # 3-10 s: make test's 7-minute budget (the slow tier runs it in CI)
def test_a_timed_out_python_request_names_the_call_that_was_running(tmp_path):
    """The sandboxed Python worker writes the call it makes into its own progress file: a request that times out
    names it (read before the worker's folder is removed)."""
    import numpy as np
    from pathlib import Path
    from crossdyn.equations.protocol import UserFileError
    from crossdyn.equations.python_sandboxed import open_model

    text = (Path(__file__).parent / "check_files" / "textbook_2r.py").read_text()
    f = tmp_path / "loops.py"
    f.write_text(text.replace("def C(q, qd, p):\n", "def C(q, qd, p):\n    while True:\n        pass\n"))
    model = open_model(f, 2, policy=POLICY, timeout=2)
    with pytest.raises(UserFileError, match=r"loops.py: C\(q, qd, p\) did not return within 2 s") as e:
        model.evaluate(np.zeros((1, 2)), np.ones((1, 2)), np.array([[1, 1, 1, 1, .5, .5, .1, .1, 0, 0, 0, 0, 0, 0,
                                                                     0, -9.81, 0]], float), roles=("C",))
    assert e.value.timed_out
    assert not Path(model.workdir).exists()


@needs_bwrap
def test_network_is_disabled_even_to_localhost(tmp_path):
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(5)
    server.settimeout(0.5)
    port = server.getsockname()[1]
    accepted = []

    def serve():
        try:
            accepted.append(server.accept())
        except OSError:
            pass
    thread = threading.Thread(target=serve)
    thread.start()
    try:
        r = run(f"import socket\ntry:\n    socket.create_connection(('127.0.0.1', {port}), timeout=3)\n    print('connected')\n"
                "except OSError as e:\n    print('refused', e.errno)", tmp_path / "work")
    finally:
        thread.join()
        server.close()
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("refused") and not accepted


@needs_bwrap
def test_a_fork_bomb_is_stopped_at_the_process_limit(tmp_path):
    code = ("import os, time\nn = 0\ntry:\n    while True:\n        if os.fork() == 0:\n            time.sleep(3)\n"
            "            os._exit(0)\n        n += 1\nexcept OSError as e:\n    print('stopped', n, e.errno)\n")
    r = run(code, tmp_path / "work")
    assert r.returncode == 0, r.stderr
    word, n, err = r.stdout.split()
    assert word == "stopped" and int(n) < LOW.processes and int(err) == 11    # EAGAIN
    reason = sandbox.violation_of_exception(BlockingIOError(11, "Resource temporarily unavailable"),
                                            sandbox.isolation(POLICY))
    assert reason == "exceeded 32 processes"


@needs_bwrap
def test_memory_beyond_the_limit_raises_memory_error(tmp_path):
    r = run("try:\n    x = bytearray(3 * 1024**3)\n    print('allocated')\nexcept MemoryError:\n    print('MemoryError')",
            tmp_path / "work")
    assert r.stdout.strip() == "MemoryError", r.stderr
    assert sandbox.violation_of_exception(MemoryError(), sandbox.isolation(POLICY)) == "exceeded 1 GiB"


@needs_bwrap
def test_cpu_limit_ends_the_child_with_sigxcpu(tmp_path):
    policy = sandbox.Policy(sandbox.Mode.AUTO, sandbox.Limits(memory=LOW.memory, cpu=1, processes=16))
    r = run("while True: pass", tmp_path / "work", policy)
    assert r.returncode in (128 + 24, 128 + 9)        # bwrap's 128 + SIGXCPU (or the hard limit's SIGKILL)
    assert sandbox.violation_of_exit(r.returncode, policy.limits).startswith(("exceeded 1 s CPU", "killed"))


@pytest.mark.skipif(not sys.platform.startswith("linux") or shutil.which("unshare") is None
                    or not sandbox._works((shutil.which("unshare") or "unshare", "--net", "--", "true")),
                    reason="unshare --net does not work here")
@pytest.mark.slow  # the fast tier's 7-minute budget (.ci/run runs the slow tier)
def test_without_bubblewrap_unshare_closes_the_network_and_the_limits_hold(open_dir, monkeypatch):
    monkeypatch.setattr(sandbox, "_bwrap", lambda: None)
    iso = sandbox.isolation(POLICY)
    assert iso.describe() == "unshare: no network, writable filesystem; 1 GiB, 20 s CPU, 32 processes, 8 MiB files"
    with pytest.raises(UsageError, match="a read-only filesystem not available"):
        sandbox.isolation(sandbox.Policy(sandbox.Mode.STRICT, LOW))
    script = ("id -u; tail -n +3 /proc/self/net/dev | cut -d: -f1; i=0; while [ $i -lt 100 ]; do sleep 3 & i=$((i+1)); done 2>&1 | tail -1")
    launched = sandbox.launch(["sh", "-c", script], open_dir / "work", POLICY)
    r = subprocess.run(launched.argv, capture_output=True, text=True, timeout=60, **launched.popen_kwargs())
    lines = r.stdout.split()
    assert lines[0] != "0" or os.getuid() != 0, r.stdout           # root's child runs unprivileged
    assert lines[1] == "lo", r.stdout                                 # a network namespace of its own: no interfaces
    assert "Cannot fork" in r.stdout + r.stderr, r.stdout + r.stderr  # the process limit holds


def test_numpy_is_reachable_through_links():
    """The child is given both the folder NumPy is imported from and the folder its files really are in: a site
    folder of symlinks (tests/test_wheel.py's base install) pointing into a venv inside a folder others cannot enter
    (a clone in a `mktemp -d` folder) left the sandboxed child without NumPy ('No module named numpy')."""
    from pathlib import Path

    import numpy

    from crossdyn.sandbox import _needed_paths

    needed = set(_needed_paths())
    assert Path(numpy.__file__).resolve().parents[1] in needed
    assert Path(numpy.__file__).parents[1].resolve() in needed
