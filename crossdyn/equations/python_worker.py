"""The child process that runs a user's Python file inside the sandbox (:mod:`crossdyn.sandbox`).

Started by :class:`crossdyn.equations.python_sandboxed.SandboxedModel` as ``python -I -c "…main()"``; it imports
the user's file (:class:`~crossdyn.equations.python_file.UserModel`, exactly as crossdyn's own process did before)
and answers requests on its standard input with replies on its standard output.

The wire format carries no code, only numbers and text, so that a hostile submission cannot exploit the parent:
a message is one JSON line ``{"op": …, …, "arrays": [[name, [shape…]], …]}`` followed by the arrays as raw
little-endian float64, in that order (never pickle).  The user's prints go to standard error (a log file), never
into the replies; a process forked by the user's code never writes a reply (only the worker's own PID does).
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from crossdyn.steps import rk4_step  # NumPy only: the same step as the analytic model's

MAX_HEADER = 1 << 20
"""The longest JSON line either side accepts (bytes)."""
MAX_PRINTED = 1 << 16
"""What the user's code printed during one request, sent back (characters; the rest is dropped)."""


def read_message(stream, max_floats: int | None = None) -> tuple[dict, dict]:
    """(header, arrays) of one message from a binary ``stream``; EOFError at its end, ValueError when malformed."""
    import numpy as np

    line = stream.readline(MAX_HEADER + 1)
    if not line:
        raise EOFError
    if len(line) > MAX_HEADER or not line.endswith(b"\n"):
        raise ValueError("message header too long or cut")
    header = json.loads(line)
    if not isinstance(header, dict):
        raise ValueError("message header is not an object")
    arrays = {}
    for name, shape in header.pop("arrays", []):
        shape = tuple(int(s) for s in shape)
        if any(s < 0 for s in shape):
            raise ValueError(f"negative shape {shape}")
        count = int(np.prod(shape, dtype=np.int64))
        if max_floats is not None and count > max_floats:
            raise ValueError(f"array {name} of {count} values is larger than expected ({max_floats})")
        data = stream.read(8 * count)
        if len(data) != 8 * count:
            raise EOFError
        arrays[str(name)] = np.frombuffer(data, "<f8").reshape(shape).astype(float)
    return header, arrays


def write_message(stream, header: dict, arrays: dict | None = None) -> None:
    """Write one message (see the module docstring) and flush."""
    import numpy as np

    arrays = {k: np.ascontiguousarray(v, "<f8") for k, v in (arrays or {}).items() if v is not None}
    header = dict(header, arrays=[[k, list(v.shape)] for k, v in arrays.items()])
    stream.write(json.dumps(header).encode() + b"\n")
    for v in arrays.values():
        stream.write(v.tobytes())
    stream.flush()



class Worker:
    """The requests the parent sends: load, eval (a batch), one (one state), links, engine_init, engine_step."""

    def __init__(self) -> None:
        self.model: Any = None
        self.display = ""
        self.copy = ""
        self.engine_set: Any = None
        self.iso: Any = None
        self.sets: dict = {}
        self.friction: Any = None              # (name, function, arguments) once friction_find found one
        self.recorder: Any = None              # the audit hook recording blocked attempts (sandbox.AttemptRecorder)
        import io
        self.sink = io.StringIO()              # what the user's code printed, sent back with each reply

    # ------------------------------------------------------------------ requests
    def load(self, h: dict, a: dict) -> tuple[dict, dict]:
        from crossdyn.equations.python_file import UserModel

        class Model(UserModel):
            def _where(self, q, qd, ps):          # ps: a label text (the parent's ParamSet or engine label)
                from crossdyn.equations.protocol import fmt_vec
                s = f"at q = {fmt_vec(q)}" + (f", qd = {fmt_vec(qd)}" if qd is not None else "")
                if ps:
                    s += (", " if str(ps).startswith(("in ", "during ", "from ")) else ", with ") + str(ps)
                return s

        from crossdyn import sandbox
        iso = h.get("isolation") or {}
        limits = sandbox.Limits(**iso["limits"]) if iso.get("limits") else None
        self.iso = sandbox.Isolation(iso.get("mechanism", "off"), bool(iso.get("network_blocked")),
                                     bool(iso.get("filesystem_read_only")), limits)
        self.display, self.copy = h["display"], h["path"]
        if self.recorder is None and self.iso.active:    # before the user's file is imported: its top level counts
            from crossdyn.equations import progress
            self.recorder = sandbox.AttemptRecorder(os.getcwd(), self.iso, [os.environ.get(progress.ENV, "")])
            sys.addaudithook(self.recorder)
        self.model = Model(h["path"], int(h["n"]), h.get("names") or None, strict=bool(h["strict"]))
        m = self.model
        return {"functions": {r: [m.name(r), m.takes_p(r)] for r in ("M", "C", "G") if m.has(r)}}, {}

    def _set(self, row, label):
        """(the ParamSet of a row [L, m, Lc, J, b, fc, Ia, gx, gy, gz], label); one per row, made once."""
        from crossdyn.equations.params import ParamSet
        key = row.tobytes()
        if key not in self.sets:
            n, r = self.model.n, list(row)
            self.sets[key] = ParamSet(0, *(r[k * n:(k + 1) * n] for k in range(6)), gravity=tuple(r[7 * n: 7 * n + 3]),
                                      armature=r[6 * n: 7 * n])
        return self.sets[key], label

    def _p(self, row, label, layout):
        """The user's ``p`` for a row: the planar UserParams, or (``layout``: the names of a spatial arm's
        parameters, issue 27) a NamedParams."""
        if layout:
            from crossdyn.equations.params import NamedParams
            return NamedParams(layout, row, self.model.n), label
        ps, label = self._set(row, label)
        return ps.user, label

    def eval(self, h: dict, a: dict) -> tuple[dict, dict]:
        import numpy as np
        from crossdyn.equations.python_file import quiet

        m = self.model
        m.c_kind = h.get("c_kind")
        roles = [r for r in h["roles"] if m.has(r)]
        Q, QD, P = a["Q"], a["QD"], a["P"]
        labels = h.get("labels") or []
        S, N, n = len(P), len(Q), m.n
        Mu = np.empty((S, N, n, n)) if "M" in roles else None
        Gu = np.empty((S, N, n)) if "G" in roles else None
        Cu = None
        with quiet(self.sink):
            for k in range(S):
                p, label = self._p(P[k], labels[k] if k < len(labels) else None, h.get("layout"))
                for i in range(N):
                    if Mu is not None:
                        Mu[k, i] = m.M(Q[i], p, label)
                    if "C" in roles:
                        _, c = m.C(Q[i], QD[i], p, label)
                        if Cu is None:
                            Cu = np.empty((S, N) + c.shape)
                        Cu[k, i] = c
                    if Gu is not None:
                        Gu[k, i] = m.G(Q[i], p, label)
        out = {r: a for r, a in (("M", Mu), ("C", Cu), ("G", Gu)) if a is not None}
        return {"c_kind": m.c_kind}, out

    def one(self, h: dict, a: dict) -> tuple[dict, dict]:
        from crossdyn.equations.python_file import quiet

        m = self.model
        m.c_kind = h.get("c_kind")
        ps, label = self._set(a["row"], h.get("label"))
        out = {}
        with quiet(self.sink):
            for r in h["roles"]:
                if not m.has(r):
                    continue
                if r == "M":
                    out["M"] = m.M(a["q"], ps.user, label)
                elif r == "G":
                    out["G"] = m.G(a["q"], ps.user, label)
                else:
                    out["C"] = m.C(a["q"], a["qd"], ps.user, label)[1]
        return {"c_kind": m.c_kind}, out

    def friction_find(self, h: dict, a: dict) -> tuple[dict, dict]:
        """The file's friction function F(qd[, p]) (:mod:`crossdyn.equations.user_friction`): [name, arguments]."""
        from crossdyn.equations import user_friction
        self.friction = user_friction.find(self.model.module, self.model.path, dict(h.get("names") or {}))
        return {"found": None if self.friction is None else [self.friction[0], self.friction[2]]}, {}

    def friction_values(self, h: dict, a: dict) -> tuple[dict, dict]:
        """F at every parameter set (rows P, labels) × state (Q, QD): (S, N, n), as the check's own process."""
        from crossdyn.equations import user_friction
        if self.friction is None:
            raise ValueError("friction_values before friction_find found a function")
        name, fn, k = self.friction
        labels = h.get("labels") or []
        sets = [(self._set(row, None)[0].user, labels[s] if s < len(labels) else "") for s, row in enumerate(a["P"])]
        return {}, {"F": user_friction.values(self.model.path, name, fn, k, sets, a["Q"], a["QD"], self.sink)}

    def links(self, h: dict, a: dict) -> tuple[dict, dict]:
        from crossdyn.equations.python_file import written_for_links
        found = written_for_links(self.model, tuple(h["gravity"]))
        return {"found": list(found) if found else None}, {}

    def engine_init(self, h: dict, a: dict) -> tuple[dict, dict]:
        self.engine_set = self._set(a["row"], None)[0]
        return {}, {}

    def engine_step(self, h: dict, a: dict) -> tuple[dict, dict]:
        """One RK4 step of M q̈ + C q̇ + G + b q̇ + f_c sign(q̇) = τ (the user engine's own step, done here)."""
        import numpy as np
        from crossdyn.equations.python_file import quiet

        m, ps, label = self.model, self.engine_set, h.get("label")
        m.c_kind = h.get("c_kind")
        b, fc = ps.arm.b, ps.arm.fc

        def fd(q, qd, tau):
            M = m.M(q, ps.user, label)
            rhs = tau - (m.Cqd(q, qd, ps.user, label) + m.G(q, ps.user, label)) - (b * qd + fc * np.sign(qd))
            return np.linalg.solve(M, rhs)

        with quiet(self.sink), np.errstate(all="ignore"):
            q, qd = rk4_step(fd, a["q"], a["qd"], a["tau"], float(h["dt"]))
        return {"c_kind": m.c_kind}, {"q": q, "qd": qd}

    def free_swing(self, h: dict, a: dict) -> tuple[dict, dict]:
        """An RK4 free swing (τ = 0) of M q̈ + C q̇ + G = 0, as :meth:`OctaveModel.free_swing`: status, the step it
        failed at, q and T = ½ q̇ᵀ M q̇ every ``every`` steps (and at the end), T at the start."""
        import numpy as np
        from crossdyn.equations.python_file import quiet

        m, label = self.model, h.get("label")
        m.c_kind = h.get("c_kind")
        p = self._set(a["row"], None)[0].user
        steps, every, dt = int(h["steps"]), int(h["every"]), float(h["dt"])

        def fd(q, qd, tau):
            return np.linalg.solve(m.M(q, p, label), tau - m.Cqd(q, qd, p, label) - m.G(q, p, label))

        q, qd = a["q0"].copy(), a["qd0"].copy()
        zero = np.zeros(m.n)
        qs, T = [], []
        status, k = 0, 0
        with quiet(self.sink):
            T0 = 0.5 * qd @ m.M(q, p, label) @ qd
            for k in range(1, steps + 1):
                try:
                    q, qd = rk4_step(fd, q, qd, zero, dt)
                except np.linalg.LinAlgError:
                    status = 2
                    break
                if not (np.all(np.isfinite(q)) and np.all(np.isfinite(qd)) and np.max(np.abs(qd)) < 1e4):
                    status = 1
                    break
                if k % every == 0 or k == steps:
                    qs.append(q.copy())
                    T.append(0.5 * qd @ m.M(q, p, label) @ qd)
        return ({"status": status, "k": k, "T0": float(T0), "c_kind": m.c_kind},
                {"qs": np.array(qs).reshape(-1, m.n), "T": np.array(T, float)})

    # ------------------------------------------------------------------ errors
    def error(self, e: BaseException) -> dict:
        from crossdyn.equations.protocol import UserFileError
        from crossdyn import sandbox

        cause = e.__context__ if isinstance(e, UserFileError) and e.__context__ is not None else e
        iso = self.iso or sandbox.Isolation("off", False, False, None)
        violation = sandbox.violation_of_exception(cause, iso)
        err: dict[str, Any]
        if isinstance(e, UserFileError):
            err = {"message": e.message, "function": e.function, "where": e.where,
                   "user_traceback": e.user_traceback}
        elif isinstance(e, Exception) and type(e).__name__ == "LinAlgError":
            err = {"message": f"the mass matrix is singular ({e})", "function": None, "where": "",
                   "user_traceback": "", "kind": "linalg"}
        else:
            err = {"message": f"{type(e).__name__}: {e}", "function": None, "where": "", "user_traceback": ""}
        if violation is None:
            violation = sandbox.violation_of_text(f"{err['message']}\n{err['user_traceback']}", iso) \
                if isinstance(cause, (OSError, MemoryError)) else None
        for key in ("message", "where", "user_traceback"):
            if err[key] and self.copy:
                err[key] = err[key].replace(self.copy, self.display)
        err["violation"] = violation
        err["type"] = type(cause).__name__
        return err


def main() -> None:
    """Serve requests until the parent closes the pipe."""
    proto_out = os.fdopen(os.dup(1), "wb")
    proto_in = os.fdopen(os.dup(0), "rb")
    os.dup2(2, 1)                       # the user's prints (and os.write(1, …)) go to the log, never into replies
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    sys.stdout = sys.stderr
    sys.dont_write_bytecode = True      # python -I ignores PYTHONDONTWRITEBYTECODE; a .pyc write is no user's attempt
    me = os.getpid()
    import numpy  # noqa: F401  (imported before the first request: a prestarted worker is ready sooner)
    import crossdyn.equations.python_file  # noqa: F401
    worker = Worker()
    ops = {"load": worker.load, "eval": worker.eval, "one": worker.one, "links": worker.links,
           "engine_init": worker.engine_init, "engine_step": worker.engine_step, "free_swing": worker.free_swing,
           "friction_find": worker.friction_find, "friction_values": worker.friction_values}
    while True:
        try:
            header, arrays = read_message(proto_in)
        except EOFError:
            return
        op = header.get("op")
        if op == "close":
            return
        try:
            reply, data = ops[str(op)](header, arrays)
            reply = dict(reply, ok=True)
        except BaseException as e:      # the user's code may raise anything, SystemExit included
            if os.getpid() != me:
                os._exit(0)
            if isinstance(e, KeyboardInterrupt):
                raise
            reply, data = {"ok": False, "error": worker.error(e)}, {}
        if os.getpid() != me:           # a child the user's code forked: it never answers
            os._exit(0)
        blocked = worker.recorder.new() if worker.recorder is not None else []
        if blocked:
            reply["blocked"] = blocked
        printed = worker.sink.getvalue()
        if printed:
            reply["printed"] = printed[:MAX_PRINTED]
            worker.sink.seek(0)
            worker.sink.truncate()
        write_message(proto_out, reply, data)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    main()
