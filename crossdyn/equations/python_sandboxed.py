"""A user's Python file run in a sandboxed child process (:mod:`crossdyn.sandbox`), behind the same calls as
:class:`~crossdyn.equations.python_file.UserModel` (:class:`~crossdyn.equations.protocol.Equations`).

The file is copied into the child's own temporary folder, read-only, with what :mod:`crossdyn.equations.submission`
says comes with it (a single check: the file's own folder, so that its helper modules import), and imported there by
:mod:`crossdyn.equations.python_worker`; messages and tracebacks name the user's path, not the copy.  Like the
Octave model it answers batch calls — :meth:`SandboxedModel.evaluate` (every state × parameter set in one round
trip), :meth:`~SandboxedModel.parts`, :meth:`~SandboxedModel.engine_init` / :meth:`~SandboxedModel.engine_step`
(one RK4 step per round trip) — so the checker and the ``user:`` engine cross the process boundary once per batch
or step, not once per function call.

A child that dies (a CPU limit's SIGXCPU, the kernel's SIGKILL, ...) or whose user code met a blocked action
(MemoryError at the address-space limit, EROFS writing outside its folder, ECONNREFUSED/ENETUNREACH with the
network off, EAGAIN forking past the process limit) raises :class:`UserFileError` with ``violation`` set to the
reason ("exceeded 2 GiB", "network is disabled", ...).
"""
from __future__ import annotations

import os
import select
import subprocess
import sys
import tempfile
import weakref
from pathlib import Path

import numpy as np

from crossdyn import processes, sandbox
from crossdyn.equations import progress, submission
from crossdyn.equations.params import ParamSet
from crossdyn.equations.protocol import ROLE_NAMES, OneCallParts, UserFileError
from crossdyn.equations.python_worker import MAX_PRINTED, read_message, write_message

_BOOT = ("import sys; sys.path.insert(0, {root!r}); "
         "from crossdyn.equations.python_worker import main; main()")


def _row(p) -> np.ndarray:
    """[L, m, Lc, J, b, fc, Ia, gx, gy, gz] of a user's ``p`` (UserParams)."""
    g = (tuple(p.gravity) + (0.0,) * 3)[:3]
    return np.concatenate([p.L, p.m, p.Lc, p.J, p.b, p.fc, p.armature, g])


def _label(ps) -> str | None:
    if ps is None:
        return None
    return f"{ps.label} ({ps.describe()})" if isinstance(ps, ParamSet) else str(ps)


def _close(proc: subprocess.Popen, workdir: str, log, owner: int) -> None:
    if os.getpid() != owner:          # a forked copy of the process that started the worker: not ours to end
        return
    processes.end_group(proc, wait=5.0)
    processes.close_pipes(proc)
    try:
        log.close()
    except OSError:
        pass
    submission.remove_tree(workdir)


class _Worker:
    """One worker process: its pipes, its folder and log; ended by :meth:`end`, at garbage collection or at exit
    (only by the process that started it, never by a forked copy)."""

    def __init__(self, policy: sandbox.Policy):
        self.workdir = tempfile.mkdtemp(prefix="crossdyn-python-")
        root = str(Path(__file__).resolve().parents[2])
        # the worker writes the call it makes into a progress file: a grader's, bound read-write into the sandbox,
        # or its own in its folder (what a timed-out request names, read before the folder is removed)
        self.progress_file, writable = progress.for_child(self.workdir)
        run = sandbox.launch([sys.executable, "-I", "-c", _BOOT.format(root=root)], self.workdir, policy,
                             extra_env={progress.ENV: self.progress_file}, writable=writable)
        self.log = open(Path(self.workdir) / "worker.log", "w+b")
        self.proc = subprocess.Popen(run.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log,
                                     **run.popen_kwargs())
        self.owner = os.getpid()
        self.key: tuple | None = None          # set once the user's file is loaded: then it may be reused
        self.blocked: list[str] = []           # attempts the sandbox blocked (reported by the worker's audit hook)
        self.functions: dict[str, tuple[str, bool]] = {}
        self.finalizer = weakref.finalize(self, _close, self.proc, self.workdir, self.log, self.owner)

    def healthy(self) -> bool:
        return self.finalizer.alive and self.proc.poll() is None and os.getpid() == self.owner

    def end(self) -> None:
        if self.finalizer.alive and os.getpid() == self.owner:
            try:
                if self.proc.poll() is None and self.proc.stdin is not None:
                    write_message(self.proc.stdin, {"op": "close"})
                    self.proc.wait(timeout=2)
            except (OSError, ValueError, subprocess.TimeoutExpired):
                pass
            self.finalizer()


def _give_back(worker: _Worker) -> None:
    """A model is done with ``worker``: keep it for the next :func:`open_model` of the same file, or end it."""
    if worker.key is not None and worker.healthy() and len(_IDLE.setdefault(worker.key, [])) < MAX_IDLE:
        _IDLE[worker.key].append(worker)
    else:
        worker.end()


class SandboxedModel(OneCallParts):
    """The user's Python functions, run in a sandboxed worker process (see the module docstring)."""

    language = "python"

    def __init__(self, path: str | Path, n: int, names: dict[str, str] | None = None, strict: bool = True,
                 policy: sandbox.Policy | None = None, timeout: float | None = None, key: tuple | None = None):
        self.path = Path(path)
        self.n = n
        self.strict = strict
        self.timeout = timeout
        self.c_kind: str | None = None
        if not self.path.is_file():
            raise UserFileError(f"{self.path}: no such file" if not self.path.exists() else f"{self.path}: not a file")
        self.policy = policy or sandbox.current()
        self.isolation = sandbox.isolation(self.policy)
        worker = _take(key)
        fresh = worker is None
        self.worker = worker = worker or _spare(self.policy) or _Worker(self.policy)
        self.proc, self._log, self.workdir = worker.proc, worker.log, worker.workdir
        self.blocked: list[str] = worker.blocked     # the worker's: a reused worker's import-time attempts count too
        self._release = weakref.finalize(self, _give_back, worker)
        if fresh:
            self._load(names, key)
        self.functions = worker.functions

    def _load(self, names: dict[str, str] | None, key: tuple | None) -> None:
        # the file with its own folder (a single check), its submission's folder or alone (a class): submission.py
        copy = submission.copy_into(self.path, Path(self.workdir) / "submission", "python")
        iso = self.isolation
        limits = None if iso.limits is None else {k: getattr(iso.limits, k) for k in
                                                  ("memory", "cpu", "processes", "file_size")}
        reply, _ = self._request({"op": "load", "path": str(copy), "display": str(self.path), "n": self.n,
                                  "names": names or {}, "strict": self.strict,
                                  "isolation": {"mechanism": iso.mechanism, "network_blocked": iso.network_blocked,
                                                "filesystem_read_only": iso.filesystem_read_only,
                                                "limits": limits}})
        self.worker.functions = {r: (str(v[0]), bool(v[1])) for r, v in reply["functions"].items()}
        self.worker.key = key

    # ------------------------------------------------------------------ the channel
    def _request(self, header: dict, arrays: dict | None = None, max_floats: int = 1 << 28) -> tuple[dict, dict]:
        if self.proc.poll() is not None or self.proc.stdin is None or self.proc.stdout is None:
            self._died()
        try:
            write_message(self.proc.stdin, dict(header, c_kind=self.c_kind), arrays)
        except (BrokenPipeError, OSError):
            self._died()
        if self.timeout is not None and self.proc.stdout is not None:
            ready, _, _ = select.select([self.proc.stdout.fileno()], [], [], self.timeout)
            if not ready:
                running = progress.read(self.worker.progress_file)     # before end() removes the worker's folder
                self.end()
                what = f"{running} did not return within {self.timeout:g} s and was stopped" if running else \
                    f"your functions did not return within {self.timeout:g} s and were stopped"
                raise UserFileError(f"{self.path}: {what} (an endless loop? --timeout sets the limit)",
                                    timed_out=True)
        try:
            reply, data = read_message(self.proc.stdout, max_floats)
        except EOFError:
            self._died()
        except ValueError as e:
            self.end()
            raise UserFileError(f"{self.path}: the sandboxed worker sent a malformed reply ({e})") from None
        if isinstance(reply.get("blocked"), list):     # blocked attempts, caught or not (sandbox.AttemptRecorder)
            self.blocked += [str(b) for b in reply["blocked"] if str(b) not in self.blocked]
            del self.blocked[sandbox.MAX_RECORDED:]
        if isinstance(reply.get("printed"), str):      # the user's prints: to the caller's sink, as in-process
            sys.stdout.write(reply["printed"][:MAX_PRINTED])
        if "c_kind" in reply and reply["c_kind"] in ("matrix", "vector", None):
            self.c_kind = reply["c_kind"]
        if not reply.get("ok"):
            self._raise(reply.get("error") or {})
        return reply, data

    def _died(self):
        try:
            rc = self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            rc = None
        self._log.seek(0)
        tail = [ln for ln in self._log.read()[-4000:].decode("utf-8", "replace").splitlines() if ln.strip()]
        violation = sandbox.violation_of_exit(rc, self.isolation.limits if self.isolation.active else None)
        if violation is None and tail:
            violation = sandbox.violation_of_text(tail[-1], self.isolation)
        self.end()
        how = f"was killed by signal {-rc}" if rc is not None and rc < 0 else f"exited with code {rc}"
        raise UserFileError(f"{self.path}: the process running your functions {how}"
                            + (f" ({violation})" if violation else "") + (f": {tail[-1]}" if tail else ""),
                            violation=violation) from None

    def _raise(self, err: dict):
        if err.get("kind") == "linalg":       # a singular M while stepping: as numpy raises it in-process
            raise np.linalg.LinAlgError(str(err.get("message")))
        message = str(err.get("message") or "failed")
        violation = err.get("violation")
        if violation:
            message += f" ({violation})"
        raise UserFileError(message, function=err.get("function"), where=str(err.get("where") or ""),
                            user_traceback=str(err.get("user_traceback") or ""), violation=violation)

    def close(self) -> None:
        """Done with the file: its worker is kept for the next :func:`open_model` of the same file, or ended."""
        self._release()

    def end(self) -> None:
        """End the worker now (it died, timed out or answered nonsense)."""
        self._release.detach()
        self.worker.end()

    # ------------------------------------------------------------------ the Equations protocol

    def describe(self) -> dict[str, str | None]:
        return {role: (self.signature(role) if role in self.functions else None) for role in ROLE_NAMES}

    def _one(self, roles, q, qd, p, ps) -> dict:
        n = self.n
        arrays = {"q": np.asarray(q, float).reshape(n), "qd": np.zeros(n) if qd is None else
                  np.asarray(qd, float).reshape(n), "row": _row(p)}
        return self._request({"op": "one", "roles": list(roles), "label": _label(ps)}, arrays, 4 * n * n)[1]

    def M(self, q, p, ps=None) -> np.ndarray:
        return self._one(("M",), q, None, p, ps)["M"]

    def G(self, q, p, ps=None) -> np.ndarray:
        return self._one(("G",), q, None, p, ps)["G"]

    def C(self, q, qd, p, ps=None) -> tuple[str, np.ndarray]:
        c = self._one(("C",), q, qd, p, ps)["C"]
        return str(self.c_kind), c

    def evaluate(self, Q, QD, P, roles=("M", "C", "G"), labels=None, timeout: float | None = None,
                 layout=None) -> dict:
        """Every state × parameter set in one round trip, as :meth:`OctaveModel.evaluate` (the same arrays);
        ``layout`` (a spatial arm's parameter names, issue 27): the rows are those parameters, ``p`` a
        :class:`~crossdyn.equations.params.NamedParams`."""
        n = self.n
        Q = np.ascontiguousarray(Q, float).reshape(-1, n)
        QD = np.zeros_like(Q) if QD is None else np.ascontiguousarray(QD, float).reshape(-1, n)
        P = np.ascontiguousarray(P, float)
        if P.shape[1] == 6 * n + 3 and not layout:        # rows without armature
            P = np.concatenate([P[:, :6 * n], np.zeros((len(P), n)), P[:, 6 * n:]], axis=1)
        roles = [r for r in ("M", "C", "G") if r in roles and self.has(r)]
        if not roles or len(Q) == 0 or len(P) == 0:
            return {}
        head = {"op": "eval", "roles": roles, "labels": list(labels or [])} | (
            {"layout": [str(k) for k in layout]} if layout else {})
        _, out = self._request(head,
                               {"Q": Q, "QD": QD, "P": P}, 3 * len(Q) * len(P) * n * n)
        return out

    def free_swing(self, q0, qd0, p, dt: float, steps: int, every: int = 5):
        """An RK4 free swing (τ = 0) in one round trip, as :meth:`OctaveModel.free_swing`: (status "ok" |
        "diverged" | "singular", step of failure, q at the recorded steps (R, n), T there (R,), T at the start)."""
        n = self.n
        reply, out = self._request({"op": "free_swing", "dt": float(dt), "steps": int(steps), "every": int(every),
                                    "label": "in the energy check (free motion from a random start)"},
                                   {"q0": np.asarray(q0, float).reshape(n), "qd0": np.asarray(qd0, float).reshape(n),
                                    "row": _row(p)}, (n + 1) * (int(steps) + 1))
        status = {0: "ok", 1: "diverged", 2: "singular"}[int(reply["status"])]
        return status, int(reply["k"]), out["qs"].reshape(-1, n), out["T"].reshape(-1), float(reply["T0"])

    def find_friction(self, names: dict[str, str] | None) -> tuple[str, int] | None:
        """(name, arguments) of the file's friction function F(qd[, p]), or None
        (:func:`crossdyn.equations.user_friction.find`, run in the worker)."""
        reply, _ = self._request({"op": "friction_find", "names": dict(names or {})})
        found = reply.get("found")
        return (str(found[0]), int(found[1])) if found else None

    def friction_values(self, name: str, k: int, sets, Q, QD) -> np.ndarray:
        """The file's F at every parameter set (:class:`ParamSet`) × state, (S, N, n), in one round trip
        (:func:`crossdyn.equations.user_friction.values` in the worker: the same checks and messages)."""
        n = self.n
        Q = np.ascontiguousarray(Q, float).reshape(-1, n)
        QD = np.ascontiguousarray(QD, float).reshape(-1, n)
        P = np.array([_row(ps.user) for ps in sets], float).reshape(len(sets), -1)
        _, out = self._request({"op": "friction_values", "name": name, "k": int(k),
                                "labels": [_label(ps) for ps in sets]}, {"Q": Q, "QD": QD, "P": P},
                               len(Q) * len(sets) * n)
        return out["F"].reshape(len(sets), len(Q), n)

    def written_for_links(self, gravity) -> tuple[int, str] | None:
        reply, _ = self._request({"op": "links", "gravity": [float(g) for g in gravity]})
        found = reply.get("found")
        return (int(found[0]), str(found[1])) if found else None

    def engine_init(self, p) -> None:
        self._request({"op": "engine_init"}, {"row": _row(p)})

    def engine_step(self, q, qd, tau, dt: float, label: str = "") -> tuple[np.ndarray, np.ndarray]:
        """One RK4 step of M q̈ + C q̇ + G + b q̇ + f_c sign(q̇) = τ in the worker (one round trip)."""
        n = self.n
        _, out = self._request({"op": "engine_step", "dt": float(dt), "label": label},
                               {"q": np.asarray(q, float).reshape(n), "qd": np.asarray(qd, float).reshape(n),
                                "tau": np.asarray(tau, float).reshape(n)}, 2 * n)
        return out["q"], out["qd"]

_IDLE: dict[tuple, list[_Worker]] = {}
"""Workers given back by :meth:`SandboxedModel.close`, by file and options (this process's own)."""
MAX_IDLE = 2


def open_model(path: str | Path, n: int, names: dict[str, str] | None = None, strict: bool = True,
               policy: sandbox.Policy | None = None, timeout: float | None = None) -> SandboxedModel:
    """A :class:`SandboxedModel` of ``path``: a worker given back by an earlier one's :meth:`~SandboxedModel.close`
    for the same file (unchanged: same size and modification time) and options, else a new one.

    An engine built several times in one process (``compare`` builds the ``user:`` engine for its main run and for
    each convergence side run) so starts one worker, not one per build (~0.3 s each).  The user's module is
    imported once per worker: state the file keeps in globals carries over between those builds."""
    policy = policy or sandbox.current()
    try:
        st = Path(path).stat()
        key: tuple | None = (str(Path(path).resolve()), st.st_size, st.st_mtime_ns, n,
                             tuple(sorted((names or {}).items())), strict, policy.to_text(), timeout)
    except OSError:
        key = None
    return SandboxedModel(path, n, names, strict, policy, timeout, key=key)


_SPARE: dict[str, _Worker] = {}
"""A worker started ahead (:func:`prestart`), by policy, not yet given a file."""


def prestart(policy: sandbox.Policy | None = None) -> None:
    """Start a worker now, so that its start-up (Python, NumPy: ~0.3 s) overlaps the caller's own (``crossdyn
    check`` calls it before importing the checker); the next :class:`SandboxedModel` under ``policy`` takes it."""
    policy = policy or sandbox.current()
    if policy.mode != sandbox.Mode.OFF and policy.to_text() not in _SPARE:
        _SPARE[policy.to_text()] = _Worker(policy)


def _spare(policy: sandbox.Policy) -> _Worker | None:
    worker = _SPARE.pop(policy.to_text(), None)
    return worker if worker is not None and worker.healthy() else None


def _take(key: tuple | None) -> _Worker | None:
    """A healthy worker given back for ``key`` (this process's own), or None."""
    idle = _IDLE.get(key, []) if key is not None else []
    while idle:
        worker = idle.pop()
        if worker.healthy():
            return worker
        worker.end()
    return None
