"""Measure the engines: one after the other in this process, or in worker processes, one per engine.

Each worker builds its own engines, so results are identical for any number of processes.  A worker that
dies (a library crashing the interpreter) fails only its own engine; an error in crossdyn's own code inside a
worker is sent back and raised here (never reported as a failed engine).  Ctrl-C terminates the running
workers; engines that finished keep their results, the others are ``skipped``.

Start method: ``fork`` (fast, nothing to pickle), unless JAX has been imported in this process: its runtime
threads make a fork unsafe (JAX warns "os.fork() is incompatible with multithreaded code"; ``compare --engines
mjx@dtype=float64,…`` deadlocked), so each worker is then forked from a fresh ``forkserver`` process, which never
had them (the job is pickled to it, with the engines registered at run time in this process: each worker
registers them again before it builds its engine).
"""
from __future__ import annotations

import multiprocessing as mp
import pickle
import signal
import sys
from dataclasses import dataclass, field, replace
from multiprocessing.connection import wait
from typing import Any, Callable

from crossdyn.comparison.measure import measure_engine
from crossdyn.comparison.options import without_progress
from crossdyn.comparison.references import EngineJob
from crossdyn.comparison.result import EngineRun, RunRecord, skipped
from crossdyn.status import RunStatus

Say = Callable[[str], None]


def run_sequential(engines, job: EngineJob, say: Say) -> tuple[dict, bool]:
    """Measure engines one after the other in this process; Ctrl-C keeps what finished."""
    spec = job.spec
    runs: dict = {}
    same_cache: dict = dict(job.same_runs or {})
    current = None
    try:
        for name in engines:
            current = name
            runs[name] = measure_engine(name, job, same_cache, say)
            if runs[name].status == RunStatus.SKIPPED:  # Ctrl-C inside the engine's run
                raise KeyboardInterrupt
            say(f"[{spec.name}] {name}: done ({runs[name].status})")  # after its result is kept
        return runs, False
    except KeyboardInterrupt:
        for name in engines:
            if name not in runs:
                runs[name] = skipped(name, "while this engine ran" if name == current else "before this engine ran")
        return {name: runs[name] for name in engines}, True


def start_method() -> str:
    """``forkserver`` once JAX is imported in this process (its threads make a fork unsafe), else ``fork``."""
    return "forkserver" if "jax" in sys.modules else "fork"


def _stderr_progress(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def _quiet(msg: str) -> None:
    pass


def _worker(name: str, job: EngineJob, verbose: bool, conn, engines: list | None = None) -> None:
    """Child process: measure one engine and send ("run", EngineRun) back through ``conn``, or ("error",
    exception, traceback text) for an error in crossdyn's own code (the parent raises it).  ``engines``: the
    parent's registered engines (:func:`crossdyn.engines.registry.registered`), for a worker from a forkserver."""
    import traceback

    from crossdyn.engines import registry

    registry.restore(engines or [])
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C (and terminates us)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # forked with it blocked
    try:
        message: tuple = ("run", measure_engine(name, job, dict(job.same_runs or {}),
                                                _stderr_progress if verbose else _quiet))
    except Exception as e:  # noqa: BLE001 — not contained: crossdyn's own error, raised again in the parent
        message = ("error", e, traceback.format_exc())
    try:
        conn.send(message)
    except (pickle.PicklingError, TypeError, AttributeError):  # the error does not pickle: its traceback text
        conn.send(("error", None, message[2]))
    conn.close()


class WorkerError(RuntimeError):
    """crossdyn's own code raised in a worker process and the exception could not be sent back as it was."""


def _received(message: tuple) -> EngineRun:
    """The worker's run, or raise the error crossdyn's own code raised there (with its traceback noted)."""
    if message[0] == "run":
        return message[1]
    error, text = message[1], message[2]
    if isinstance(error, BaseException):
        error.add_note(f"raised in the engine worker process:\n{text}")
        raise error
    raise WorkerError(text)


def _exit_reason(code) -> str:
    if code is None:
        return "still running"
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"


@dataclass
class _Pool:
    """The running workers of :func:`run_parallel` (receiving end of each pipe → (engine name, process))."""

    ctx: Any
    job: EngineJob
    verbose: bool
    running: dict = field(default_factory=dict)
    started: list = field(default_factory=list)
    runs: dict = field(default_factory=dict)

    def start(self, name: str) -> None:
        recv, send = self.ctx.Pipe(duplex=False)
        from crossdyn.engines.registry import registered

        proc = self.ctx.Process(target=_worker, args=(name, self.job, self.verbose, send, registered()), daemon=True,
                                name=f"crossdyn-{name}")
        # Ctrl-C is held back while forking: arriving inside fork's at-fork hooks it would be
        # printed and swallowed ("Exception ignored"); held, it is raised right after, here
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            proc.start()
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        send.close()
        self.running[recv] = (name, proc)
        self.started.append(proc)

    def collect(self, say: Say) -> None:
        """Wait for at least one worker and keep the results of those that finished."""
        spec = self.job.spec
        ready: list[Any] = wait(list(self.running))
        for conn in ready:
            name, proc = self.running[conn]
            try:
                message = conn.recv()
            except (EOFError, OSError):  # the process died without sending its result
                proc.join()
                self.runs[name] = EngineRun(name, RunStatus.FAILED, f"the worker process measuring {name} died "
                                            f"({_exit_reason(proc.exitcode)}) before reporting a result")
                say(f"[{spec.name}] {name}: failed: {self.runs[name].reason}")
            else:
                self.runs[name] = _received(message)
                say(f"[{spec.name}] {name}: done ({self.runs[name].status})")  # after its result is kept
            del self.running[conn]
            conn.close()
            proc.join()

    def stop(self) -> None:
        """Ctrl-C: keep what just finished, terminate the others."""
        for conn, (name, proc) in list(self.running.items()):
            if name not in self.runs and conn.poll(0):
                try:  # it finished just now: keep its result
                    message = conn.recv()
                except (EOFError, OSError):
                    message = None
                if message is not None and message[0] == "run":
                    self.runs[name] = message[1]
            if name not in self.runs and proc.is_alive():
                proc.terminate()
        for proc in self.started:
            proc.join(timeout=5)
            if proc.is_alive():
                proc.kill()
                proc.join()
        for conn in self.running:
            conn.close()

    def terminate_all(self) -> None:
        """crossdyn's own error in one worker: end the others before it propagates."""
        for _, proc in self.running.values():
            if proc.is_alive():
                proc.terminate()
        for proc in self.started:
            proc.join(timeout=5)
        for conn in self.running:
            conn.close()


def run_parallel(engines, job: EngineJob, jobs: int, say: Say) -> tuple[dict, bool]:
    """Measure engines in worker processes, one process per engine, at most ``jobs`` at a time."""
    spec, opt = job.spec, job.opt
    method = start_method()
    if method == "forkserver":
        say(f"[{spec.name}] JAX is loaded in this process (its threads may be running): engine workers "
            "start from a forkserver (forking this process could deadlock)")
    pool = _Pool(mp.get_context(method), replace(job, opt=without_progress(opt)), opt.progress is not None)
    pending = list(engines)
    interrupted = False
    try:
        while pending or pool.running:
            while pending and len(pool.running) < jobs:
                pool.start(pending.pop(0))
            pool.collect(say)
    except KeyboardInterrupt:
        interrupted = True
        pool.stop()
        for name in engines:
            if name not in pool.runs:
                ran = any(p.name == f"crossdyn-{name}" for p in pool.started)
                pool.runs[name] = skipped(name, "while this engine ran" if ran else "before this engine ran")
    except BaseException:
        pool.terminate_all()
        raise
    return {name: pool.runs[name] for name in engines}, interrupted


__all__ = ["run_sequential", "run_parallel", "start_method", "RunRecord", "WorkerError"]
