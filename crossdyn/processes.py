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
