"""Processes crossdyn starts on a user's behalf, and ending all of them.

A grader runs each submission as ``crossdyn check`` in a process group of its own; that check may start
``octave-cli`` in a session of its own again (so that a terminal's Ctrl-C reaches crossdyn, which closes it), and a
student's MATLAB file may start more (``system('… &')``).  Killing the check's process group does not reach those:
they were left running with parent PID 1.  So every process started for one submission carries a tag in its
environment (:data:`TAG_VARIABLE`, inherited by everything it starts), and :func:`end_tagged` ends every process
that carries it (Linux: read from ``/proc``; elsewhere the process group alone).
"""
from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable

TAG_VARIABLE = "CROSSDYN_RUN_TAG"


def new_tag() -> str:
    """A fresh tag for the processes of one run."""
    return secrets.token_hex(12)


def tagged(env: dict[str, str], tag: str) -> dict[str, str]:
    """``env`` with the tag set (every process started with it, and their children, carry it)."""
    return {**env, TAG_VARIABLE: tag}


def tagged_pids(tag: str, variable: str = TAG_VARIABLE) -> list[int]:
    """The processes whose environment has ``variable=tag`` (Linux ``/proc``; elsewhere none are found).

    A process's environment is the one it started with: a tag cannot be dropped by the processes themselves
    without re-executing, which a grader's submissions have no reason to do."""
    needle = f"{variable}={tag}".encode()
    found = []
    if not sys.platform.startswith("linux"):
        return found
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environ = (entry / "environ").read_bytes()
        except OSError:  # gone, or not ours to read
            continue
        if needle in environ.split(b"\0"):
            found.append(int(entry.name))
    return found


def end_group(proc: subprocess.Popen, wait: float = 10.0) -> None:
    """SIGKILL ``proc``'s process group (it was started with ``start_new_session=True``) and reap ``proc``."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.wait(timeout=wait)
    except subprocess.TimeoutExpired:
        pass


def close_pipes(proc: subprocess.Popen) -> None:
    """Close ``proc``'s stdin and stdout pipes (an already closed or broken one is no error)."""
    for stream in (proc.stdin, proc.stdout):
        try:
            if stream is not None:
                stream.close()
        except OSError:
            pass


def end_tagged(tag: str) -> list[int]:
    """SIGKILL every process carrying ``tag``, each with its process group unless that group is ours; the PIDs."""
    ended = []
    for pid in tagged_pids(tag):
        try:
            group = os.getpgid(pid)
            if group != os.getpgrp():
                os.killpg(group, signal.SIGKILL)
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            continue
        ended.append(pid)
    return ended


def fork_map(fn: Callable[[Any], Any], items, jobs: int) -> list:
    """``[fn(x) for x in items]``, computed up to ``jobs`` at a time in forked child processes (each result
    pickled back through a pipe), returned in the order of ``items``: the same values as the sequential list,
    computed side by side.  Sequential in this process where ``jobs`` ≤ 1, there is one item, the platform has no
    ``fork``, JAX is loaded (its threads make a fork unsafe), or this process is a daemonic child (which may not
    start children).  An exception raised by ``fn`` in a child is
    raised again here (its traceback text noted); Ctrl-C or any error here ends the children still running.
    The children ignore SIGINT: the parent handles Ctrl-C."""
    import multiprocessing as mp
    from multiprocessing.connection import wait

    items = list(items)
    if (jobs <= 1 or len(items) <= 1 or "jax" in sys.modules or "fork" not in mp.get_all_start_methods()
            or mp.current_process().daemon):  # a daemonic process may not start children
        return [fn(x) for x in items]
    ctx = mp.get_context("fork")
    pending = list(enumerate(items))
    running: dict[Any, tuple[int, Any]] = {}  # the receiving end of each child's pipe → (its item's index, it)
    results: dict[int, Any] = {}
    try:
        while pending or running:
            while pending and len(running) < jobs:
                i, x = pending.pop(0)
                recv, send = ctx.Pipe(duplex=False)
                proc = ctx.Process(target=_fork_child, args=(fn, x, send), daemon=True)
                proc.start()
                send.close()
                running[recv] = (i, proc)
            for conn in wait(list(running)):
                i, proc = running.pop(conn)
                results[i] = _fork_result(conn, proc)
    except BaseException:
        for conn, (_, proc) in running.items():
            proc.terminate()
            proc.join()
            conn.close()
        raise
    return [results[i] for i in range(len(items))]


def _fork_child(fn: Callable[[Any], Any], x: Any, conn) -> None:
    """A :func:`fork_map` child: ("ok", fn(x)), or ("error", exception or None, traceback text), sent back."""
    import pickle
    import traceback

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        message: tuple = ("ok", fn(x))
    except Exception as e:  # noqa: BLE001 — raised again in the parent
        message = ("error", e, traceback.format_exc())
    try:
        conn.send(message)
    except (pickle.PicklingError, TypeError, AttributeError):  # what failed to pickle: its text
        conn.send(("error", None, message[2] if message[0] == "error" else traceback.format_exc()))
    conn.close()


def _fork_result(conn, proc) -> Any:
    """The value a :func:`fork_map` child sent, or the error it raised (raised again here)."""
    try:
        message = conn.recv()
    except EOFError:
        proc.join()
        message = ("error", None, f"the child process ended without a result (exit code {proc.exitcode})")
    finally:
        conn.close()
        proc.join()
    if message[0] == "ok":
        return message[1]
    error, text = message[1], message[2]
    if isinstance(error, BaseException):
        error.add_note(f"raised in a child process:\n{text}")
        raise error
    raise RuntimeError(f"a child process failed:\n{text}")


class Forked:
    """A call running in a forked child (:func:`fork_call`): :meth:`result` waits for its value (or raises its
    error, once), :meth:`close` ends it if it is still running."""

    def __init__(self, proc, conn):
        self.proc, self.conn, self.done = proc, conn, False

    def result(self) -> Any:
        if self.done:
            raise RuntimeError("Forked.result: already taken")
        self.done = True
        return _fork_result(self.conn, self.proc)

    def close(self) -> None:
        if not self.done:
            self.done = True
            self.proc.terminate()
            self.proc.join()
            self.conn.close()


def fork_call(fn: Callable[[], Any]) -> Forked | None:
    """``fn()`` started in a forked child process, to run beside this one (its value pickled back: the same value
    as calling it here); None where the platform has no ``fork`` or JAX is loaded (its threads make a fork
    unsafe) or this process is a daemonic child: the caller then calls ``fn`` itself.  The caller ends it with
    :meth:`Forked.close` where it does not take its result."""
    import multiprocessing as mp

    if "jax" in sys.modules or "fork" not in mp.get_all_start_methods() or mp.current_process().daemon:
        return None
    ctx = mp.get_context("fork")
    recv, send = ctx.Pipe(duplex=False)
    # not daemonic, so that ``fn`` may start children of its own (fork_map); the caller closes it
    proc = ctx.Process(target=_fork_child, args=(lambda _: fn(), None, send), daemon=False)
    proc.start()
    send.close()
    return Forked(proc, recv)
