"""A GNU Octave process driven through pipes: one ``octave-cli`` per session, many calls.

Octave reads commands from its standard input; after each command the session prints a
sentinel line with a random token, and :meth:`OctaveSession.call` returns every line printed
before it.  A call that has not printed its sentinel after ``timeout`` seconds is stopped by
killing the process (its whole process group), and :class:`OctaveTimeout` is raised — a user
function that never returns cannot hang crossdyn.  A round trip costs ~35 µs; Octave's own
interpreter (~1–2 µs per scalar operation) is what costs time, so callers evaluate many
states inside one call (a loop in Octave) instead of one call per state.

Only the standard library is used (``subprocess``, ``select``); numbers travel as raw
float64 files (``fwrite``/``fread`` in Octave, :func:`numpy.fromfile` here).
"""
from __future__ import annotations

import os
import secrets
import select
import shutil
import signal
import subprocess
import tempfile
import time
import weakref

from crossdyn import processes, sandbox
from crossdyn.equations import progress, submission

INSTALL_HINT = ("GNU Octave is needed to check MATLAB (.m) files: install it with "
                "'sudo apt-get install --no-install-recommends octave' (Debian/Ubuntu), 'brew install octave' "
                "(macOS), 'sudo dnf install octave' (Fedora) or from https://octave.org/download, so that "
                "'octave-cli' is on PATH (or set CROSSDYN_OCTAVE=/path/to/octave-cli)")


class OctaveUnavailable(RuntimeError):
    """No ``octave-cli`` on this machine (the message says how to install it)."""


class OctaveTimeout(RuntimeError):
    """A call did not finish within its timeout; the Octave process was stopped.  ``running``: the call the
    progress file named then (:mod:`crossdyn.equations.progress`; "" when none)."""

    def __init__(self, message: str, running: str = ""):
        super().__init__(message)
        self.running = running


class OctaveDied(RuntimeError):
    """The Octave process exited during a call (its last output is in the message)."""


def find_octave() -> str | None:
    """Path of ``octave-cli`` (``$CROSSDYN_OCTAVE`` first, then PATH), or None."""
    env = os.environ.get("CROSSDYN_OCTAVE")
    if env:
        return env if os.path.isfile(env) and os.access(env, os.X_OK) else None
    return shutil.which("octave-cli")


def octave_version(executable: str | None = None) -> str | None:
    exe = executable or find_octave()
    if exe is None:
        return None
    try:
        out = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    first = out.splitlines()[0] if out else ""
    return first.rsplit(" ", 1)[-1] if first else None


def _kill(proc: subprocess.Popen) -> None:
    if proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        try:
            proc.kill()
        except ProcessLookupError:
            pass
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass


def _cleanup(proc: subprocess.Popen, tmpdir: str) -> None:
    _kill(proc)
    processes.close_pipes(proc)
    submission.remove_tree(tmpdir)


class OctaveSession:
    """One ``octave-cli`` process; :meth:`call` runs code and returns the lines it printed.

    ``tmpdir`` is a private temporary folder for data files, removed by :meth:`close`
    (also at garbage collection and interpreter exit).
    """

    def __init__(self, timeout: float = 60.0, executable: str | None = None, policy: sandbox.Policy | None = None):
        exe = executable or find_octave()
        if exe is None:
            raise OctaveUnavailable(INSTALL_HINT)
        self.executable = exe
        self.timeout = timeout
        self.tmpdir = tempfile.mkdtemp(prefix="crossdyn-octave-")
        self._token = "@@CROSSDYN-" + secrets.token_hex(8) + "@@"
        # the file Octave writes the user's function it is in (crossdyn_progress__): a grader's, bound read-write
        # into the sandbox, or one in the session's own folder (read at a timeout before the folder goes)
        self.progress_file, writable = progress.for_child(self.tmpdir)
        # the sandbox (crossdyn.sandbox): its own folder (tmpdir) writable, the rest read-only, no network, limits
        run = sandbox.launch([exe, "--norc", "--no-history", "--quiet", "--no-window-system", "--no-line-editing"],
                             self.tmpdir, policy, extra_env={"OCTAVE_HISTFILE": os.devnull, "TERM": "dumb"},
                             read_only=[exe], writable=writable)
        self.isolation = run.isolation
        try:
            self.proc = subprocess.Popen(run.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.STDOUT, **run.popen_kwargs())
        except OSError as e:
            shutil.rmtree(self.tmpdir, ignore_errors=True)
            raise OctaveUnavailable(f"cannot start {exe}: {e}; {INSTALL_HINT}") from None
        self._finalizer = weakref.finalize(self, _cleanup, self.proc, self.tmpdir)
        self._buffer = b""
        self.closed = False
        self.call("more off; page_screen_output(false); warning('off', 'all');", timeout=max(timeout, 60.0))

    # ------------------------------------------------------------------ I/O
    def _readline(self, deadline: float) -> str:
        assert self.proc.stdout is not None      # Popen(stdout=PIPE)
        fd = self.proc.stdout.fileno()
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                raise EOFError
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line.decode("utf-8", "replace")

    def call(self, code: str, timeout: float | None = None) -> list[str]:
        """Run ``code`` (one or more Octave statements); return the printed lines.

        Raises :class:`OctaveTimeout` (the process is stopped; the session is closed) or
        :class:`OctaveDied`.  Octave errors are *not* caught here: wrap ``code`` in
        ``try … catch`` to report them (an uncaught error ends a non-interactive Octave).
        """
        if self.closed:
            raise OctaveDied("the Octave session was closed")
        timeout = self.timeout if timeout is None else timeout
        payload = code.rstrip() + f"\nfflush(stdout); printf('\\n{self._token}\\n'); fflush(stdout);\n"
        assert self.proc.stdin is not None       # Popen(stdin=PIPE)
        try:
            self.proc.stdin.write(payload.encode("utf-8"))
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            self.close()
            raise OctaveDied("Octave exited before the call") from None
        deadline = time.monotonic() + timeout
        lines: list[str] = []
        try:
            while True:
                line = self._readline(deadline)
                if line.endswith(self._token):
                    head = line[: -len(self._token)]
                    if head:
                        lines.append(head)
                    if lines and lines[-1] == "":
                        lines.pop()            # the newline printed before the token
                    return lines
                lines.append(line)
        except TimeoutError:
            running = progress.read(self.progress_file)      # before close() removes the session's folder
            self.close()
            raise OctaveTimeout(f"Octave did not finish within {timeout:g} s and was stopped", running) from None
        except EOFError:
            rc = self.proc.poll()
            self.close()
            tail = "; ".join(ln for ln in lines[-5:] if ln.strip())
            raise OctaveDied(f"Octave exited (code {rc}) during the call" + (f": {tail}" if tail else "")) from None

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._finalizer()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def octave_string(text: str | os.PathLike) -> str:
    """``text`` as an Octave single-quoted string literal."""
    return "'" + str(text).replace("'", "''") + "'"
