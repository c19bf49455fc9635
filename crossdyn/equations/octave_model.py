r"""Hand-derived M, C, G written in MATLAB, evaluated by GNU Octave.

Accepted inputs (the same roles, names and ``--names`` mapping as a Python file):

* ``my_arm.m``: a script file holding local functions (Octave's ``1;`` first line; a file that
  starts with ``function`` gets the ``1;`` added on its first line, so line numbers stay true);
* ``my_folder/``: function files (``M.m``, ``C.m``, ``G.m`` or ``mass_matrix.m`` …).

The functions are called as ``M(q, p)``, ``C(q, qd, p)`` (the n×n matrix or the n-vector
C q̇, told apart by shape), ``G(q, p)`` with ``q``, ``qd`` column vectors and ``p`` a struct:
1-based column vectors ``p.m``, ``p.L`` (= ``p.l``), ``p.Lc`` (= ``p.lc``), ``p.J`` (= ``p.I``),
``p.b``, ``p.fc``, ``p.armature`` (= ``p.Ia``, the reflected rotor inertia I_a of each joint, kg m²,
0 for an arm without); scalars ``p.m1``, ``p.L1``, ``p.Lc1``, ``p.J1``, ``p.Ia1`` (= ``p.armature1``), … ;
``p.g`` = |gravity| in the plane, ``p.gx``, ``p.gy``, ``p.n`` — the names of the Python side's ``p``.  Functions declared without ``p`` (``M(q)``,
``C(q, qd)``, ``G(q)``: parameters written as numbers) are called without it.

Every evaluation of a batch — all states × all parameter sets — runs inside ONE Octave call
(a loop in Octave that writes one float64 result file), so a default check (21,000
evaluations per function) costs one round trip, not 63,000.  Octave errors become
:class:`UserFileError` with the user's file, line and message; a call that does not return
within the timeout stops Octave and says so.
"""
from __future__ import annotations

import importlib.resources
import re
from pathlib import Path
from typing import cast

import numpy as np

from crossdyn.equations import progress, submission
from crossdyn import sandbox
from crossdyn.equations.octave_session import (OctaveDied, OctaveSession, OctaveTimeout, OctaveUnavailable,
                                               octave_string)
from crossdyn.equations.protocol import ROLE_ARGS, ROLE_ARGS_NO_P, ROLE_NAMES, OneCallParts, UserFileError

DEFAULT_TIMEOUT = 60.0
"""Seconds one Octave call (one batch of evaluations) may take before it is stopped."""


# The Octave side ships as package data (crossdyn/equations/octave/*.m): the helpers (parameter structs, the
# batch loop, error reports; sourced once per session), the batch value class and the batch-aware zeros(...).
M_FILES = ("crossdyn_helpers__.m", "crossdyn_value__.m", "zeros.m")


def m_file(name: str) -> str:
    """The text of one of crossdyn's own Octave files (:data:`M_FILES`), read from the installed package."""
    return importlib.resources.files("crossdyn.equations").joinpath("octave", name).read_text(encoding="utf-8")


VECTORISE_MIN = 64
"""Batches smaller than this (states x sets) are evaluated one call at a time (the batch value's
operator overhead, ~0.1 ms each, only pays off over many states)."""


def is_matlab_path(path: str | Path) -> bool:
    """True for a ``.m`` file, or a folder holding ``.m`` files and no ``.py`` file."""
    path = Path(path)
    if path.suffix.lower() == ".m":
        return True
    if path.is_dir():
        try:
            names = [p.suffix.lower() for p in path.iterdir() if p.is_file()]
        except OSError:
            return False
        return ".m" in names and ".py" not in names
    return False


def _starts_with_function(text: str) -> bool:
    """True when the first statement of an .m file is a ``function`` definition (a function file)."""
    in_block = False
    for line in text.splitlines():
        s = line.strip()
        if in_block:
            if s in ("%}", "#}"):
                in_block = False
            continue
        if s in ("%{", "#{"):
            in_block = True
            continue
        if not s or s[0] in "%#":
            continue
        return re.match(r"function\b", s) is not None
    return False


def _with_armature(P, n: int) -> np.ndarray:
    """Parameter rows (S, 7n + 3) [L, m, Lc, J, b, fc, Ia, g]; rows of 6n + 3 (no Ia) get Ia = 0."""
    P = np.atleast_2d(np.asarray(P, float))
    if P.shape[-1] == 6 * n + 3:
        return np.concatenate([P[:, : 6 * n], np.zeros((len(P), n)), P[:, 6 * n:]], axis=1)
    return P.reshape(-1, 7 * n + 3)


def _mat(x) -> str:
    """A float vector as an exact Octave column literal (17 significant digits round-trip)."""
    return "[" + "; ".join(repr(float(v)).replace("inf", "Inf").replace("nan", "NaN")
                           for v in np.asarray(x, float).ravel()) + "]"


def _vec(x) -> str:
    return "[" + ", ".join(f"{v:.6g}" for v in np.asarray(x, float).ravel()) + "]"


class OctaveModel(OneCallParts):
    """The user's MATLAB functions, run in one Octave session.

    ``functions``: role → (name, takes_p).  ``c_kind`` ("matrix" | "vector") is known after the
    first evaluation of C.  :meth:`evaluate` runs a whole batch in one Octave call.
    """

    language = "matlab"

    def __init__(self, path: str | Path, n: int, names: dict[str, str] | None = None, *,
                 timeout: float | None = None, policy: sandbox.Policy | None = None):
        self.path = Path(path)
        self.n = n
        # an explicit timeout is a hard limit per call; by default a big batch gets more time when one
        # evaluation is slow (a file the batch values cannot run, ~1 ms a state), see _batch_timeout
        self.timeout = DEFAULT_TIMEOUT if timeout is None else timeout
        self.scale_timeout = timeout is None
        self._state_cost: float | None = None
        self.c_kind: str | None = None
        self.printed: list[str] = []
        if not self.path.exists():
            raise UserFileError(f"{self.path}: no such file or folder")
        try:
            self.session = OctaveSession(timeout=self.timeout, policy=policy)
        except OctaveUnavailable as e:
            raise UserFileError(f"{self.path}: cannot check a MATLAB file here: {e}") from None
        except (OctaveTimeout, OctaveDied) as e:
            raise UserFileError(f"{self.path}: Octave did not start: {e}") from None
        self._source_map: dict[str, Path] = {}
        self.isolation = self.session.isolation
        self._src = self.path
        # a single file's own folder goes on Octave's path (its helper functions in other .m files), a class's lone
        # file's does not (crossdyn.equations.submission)
        scope = submission.scope_of(self.path)
        self._folder = None if self.path.is_dir() or scope.folder is None else self.path.resolve().parent
        if self.isolation.active:     # the sandboxed Octave reads its own copy (the user's folder may be closed)
            self._src = submission.copy_into(self.path, Path(self.session.tmpdir) / "submission", "matlab")
            self._folder = None if self._folder is None else self._src.parent
            self._source_map[str(self._src.resolve())] = self.path
        self._load()
        self.functions = self._resolve(names or {})

    # ------------------------------------------------------------------ loading
    def _call(self, code: str, timeout: float | None = None, what: str = "") -> list[str]:
        progress.enter(what or "Octave")  # the batch writes the user's function it runs (crossdyn_progress__)
        try:
            return self.session.call(code, timeout)
        except OctaveTimeout as e:
            t = self.timeout if timeout is None else timeout
            what = e.running or what
            raise UserFileError(f"{self.path}: {what or 'Octave'} did not return within {t:g} s and was stopped "
                                "(an endless loop? --timeout sets the limit)", timed_out=True) from None
        except OctaveDied as e:
            iso = self.isolation
            violation = (sandbox.violation_of_exit(self.session.proc.returncode, iso.limits if iso.active else None)
                         or sandbox.violation_of_text(str(e), iso))
            raise UserFileError(f"{self.path}: {what or 'Octave'}: {e}" + (f" ({violation})" if violation else ""),
                                violation=violation) from None
        finally:
            progress.leave()

    def call(self, code: str, what: str) -> list[str]:
        """Run Octave ``code`` in this model's session (``what`` names it in a timeout's message); the lines printed."""
        return self._call(code, what=what)

    def _load(self) -> None:
        tmp = Path(self.session.tmpdir)
        helpers = tmp / "crossdyn_helpers__.m"
        helpers.write_text(m_file("crossdyn_helpers__.m"))
        (tmp / "crossdyn_value__.m").write_text(m_file("crossdyn_value__.m"))
        self._zdir = tmp / "batch_zeros"
        self._zdir.mkdir()
        (self._zdir / "zeros.m").write_text(m_file("zeros.m"))
        self.vectorise = True
        self.last_paths = ""
        self._progress_file = self.session.progress_file    # writable inside its sandbox (OctaveSession)
        self._call(f"source({octave_string(helpers)}); global crossdyn_progress_file__; "
                   f"crossdyn_progress_file__ = {octave_string(self._progress_file)};", what="loading crossdyn's helpers")
        if self.path.is_dir():
            files = sorted(p.name for p in self.path.glob("*.m"))
            if not files:
                raise UserFileError(f"{self.path}: the folder holds no .m files (one function per file: M.m, C.m, G.m)")
            for name in files:      # a parse error met at call time ends Octave: find it here, with its line
                f = self._src.resolve() / name
                out = self._call(f"try\n if exist('__parse_file__'), __parse_file__({octave_string(f)}); end\n"
                                 f"catch err\n crossdyn_report__(err, 0, 0, 0);\nend", what="reading the folder")
                err = self._parse_error(out) if any(ln.startswith("@@ERR@@") for ln in out) else None
                if err is not None:
                    text = err["full"]
                    m = re.search(r"near line (\d+)", text)
                    detail = " ".join(ln.strip() for ln in text.splitlines()[1:] if ln.strip()
                                      and not ln.strip().startswith(">>>") and set(ln.strip()) != {"^"})
                    raise UserFileError(f"{self.path / name}: Octave could not parse the file"
                                        + (f": line {m.group(1)}" if m else "") + (f": {detail}" if detail else ""),
                                        user_traceback=text)
            code = f"addpath({octave_string(self._src.resolve())});"
            out = self._call(code, what="adding the folder")
            self.printed += out
            return
        if self.path.suffix.lower() != ".m":
            raise UserFileError(f"{self.path}: not a MATLAB file (expected a .m file or a folder of them)")
        try:
            text = self.path.read_text(encoding="utf-8", errors="replace")
        except OSError as e:
            raise UserFileError(f"{self.path}: cannot read: {e}") from None
        source = self._src.resolve()
        if self._folder is not None:
            self.printed += self._call(f"addpath({octave_string(self._folder)}, '-end');", what="adding your folder")
        if _starts_with_function(text):
            # a function file: make it a script of local functions, on the same line numbers
            copy = Path(self.session.tmpdir) / ("crossdyn_user__" + re.sub(r"\W", "_", self.path.stem) + ".m")
            copy.write_text("1; " + text)
            self._source_map[str(copy)] = self.path
            source = copy
        # __parse_file__ first: its error carries the parse error's line and text (source's says only "source")
        code = (f"try\n if exist('__parse_file__'), __parse_file__({octave_string(source)}); end\n"
                f" source({octave_string(source)});\n printf('@@LOADED@@\\n');\n"
                f"catch err\n crossdyn_report__(err, 0, 0, 0);\nend")
        out = self._call(code, what="loading the file")
        if "@@LOADED@@" not in out:
            err = self._parse_error(out)
            start = next((k for k, ln in enumerate(out) if "parse error" in ln and not ln.startswith("@@")), None)
            if start is None and "parse error" in err["full"]:
                out, start = err["full"].splitlines(), 0
            if start is not None:           # Octave prints the parse error; the exception only says "source"
                block = [ln for ln in out[start:] if not ln.startswith("@@")]
                text = "\n".join(block).strip()
                for copy_name, real in self._source_map.items():
                    text = text.replace(copy_name, str(real))
                m = re.search(r"near line (\d+)(?:, column \d+)? of file (.+?)$", block[0].strip())
                where = f"{self.path}: line {m.group(1)}" if m else ""
                detail = " ".join(ln.strip() for ln in block[1:] if ln.strip() and not ln.strip().startswith(">>>")
                                  and set(ln.strip()) != {"^"})
                raise UserFileError(f"{self.path}: Octave could not parse the file: {where or block[0].strip()}"
                                    + (f": {detail}" if detail else ""), user_traceback=text)
            raise UserFileError(f"{self.path}: Octave could not run the file: {err['message']}"
                                + (f" ({err['at']})" if err.get("at") else ""), user_traceback=err["trace"],
                                violation=self._violation(err["full"]))
        self.printed += [ln for ln in out if ln != "@@LOADED@@"]

    def _resolve(self, names: dict[str, str]) -> dict[str, tuple[str, bool]]:
        wanted = sorted({c for cands in ROLE_NAMES.values() for c in cands} | set(names.values()))
        cells = "{" + ", ".join(octave_string(w) for w in wanted) + "}"
        out = self._call(f"crossdyn_probe__({cells});", what="looking up your functions")
        info = {}
        for line in out:
            if line.startswith("@@FN@@ "):
                _, name, kind, a = line.split()
                info[name] = (int(kind), int(a))
        found: dict[str, tuple[str, bool]] = {}
        for role, candidates in ROLE_NAMES.items():
            choice: str | None
            if role in names:
                name = names[role]
                exists, _ = info.get(name, (0, 0))
                if exists not in (2, 103):
                    raise UserFileError(f"{self.path}: --names maps {role} to {name!r}, which the file does not "
                                        "define as a function", function=name)
                choice = name
            else:
                choice = next((c for c in candidates if info.get(c, (0, 0))[0] in (2, 103)), None)
            if choice is None:
                continue
            nargs = info[choice][1]
            full = 3 if role == "C" else 2
            if nargs >= 0 and nargs < full - 1:
                raise UserFileError(f"{self.path}: {choice} takes {nargs} argument{'s' if nargs != 1 else ''}; "
                                    f"expected {choice}{ROLE_ARGS[role]} or {choice}{ROLE_ARGS_NO_P[role]}",
                                    function=choice)
            found[role] = (choice, nargs < 0 or nargs >= full)
        if not found:
            raise UserFileError(f"{self.path}: defines none of M / mass_matrix, C / coriolis / bias, G / gravity as "
                                "a function (use --names M=...,C=...,G=... for other names; a script file needs "
                                "'1;' before its functions)")
        return found

    # ------------------------------------------------------------------ description

    def describe(self) -> dict[str, str | None]:
        return {role: (self.signature(role) if role in self.functions else None) for role in ROLE_NAMES}

    # ------------------------------------------------------------------ evaluation
    def evaluate(self, Q, QD, P, roles=("M", "C", "G"), labels=None, timeout: float | None = None,
                 layout=None) -> dict:
        """Every state × every parameter set in one Octave call.

        ``Q``, ``QD``: (N, n); ``P``: (S, 7n + 3) rows [L, m, Lc, J, b, fc, Ia, gx, gy, gz]
        (:func:`crossdyn.equations.params.param_rows`); (S, 6n + 3) rows without Ia mean no armature.
        Returns role → array: "M" (S, N, n, n), "C" (S, N, n, n) or (S, N, n) per :attr:`c_kind`,
        "G" (S, N, n).  ``labels[s]`` describes parameter set s in error messages.
        """
        Q = np.ascontiguousarray(Q, float).reshape(-1, self.n)
        QD = np.zeros_like(Q) if QD is None else np.ascontiguousarray(QD, float).reshape(-1, self.n)
        was, self._layout = getattr(self, "_layout", ()), tuple(str(k) for k in layout or ())
        if self._layout != was:     # a spatial arm (issue 27): p's fields are the layout's names
            self._call("crossdyn_layout__({" + ", ".join(octave_string(k) for k in self._layout) + "});",
                       what="the parameter names")
        if layout:
            P = np.atleast_2d(np.ascontiguousarray(P, float))
        else:
            P = _with_armature(np.ascontiguousarray(P, float), self.n)
        roles = [r for r in ("M", "C", "G") if r in roles and self.has(r)]
        n, N, S = self.n, len(Q), len(P)
        if not roles or N == 0 or S == 0:
            return {}
        tmp = Path(self.session.tmpdir)
        inp, outp = tmp / "in.bin", tmp / "out.bin"
        header = np.array([n, N, S, 1.0])
        np.concatenate([header, Q.ravel(), QD.ravel(), P.ravel()]).astype("<f8").tofile(inp)
        names = "{" + ", ".join(octave_string(self.name(r) if r in roles else "") for r in ("M", "C", "G")) + "}"
        nargs = " ".join(str((3 if r == "C" else 2) if (not self.has(r) or self.takes_p(r)) else (2 if r == "C" else 1))
                         for r in ("M", "C", "G"))
        ckind = {None: 0, "matrix": 1, "vector": 2}[self.c_kind]
        try:
            outp.unlink()
        except FileNotFoundError:
            pass
        vec = int(self.vectorise and N * S >= VECTORISE_MIN)
        if timeout is None:
            timeout = self._batch_timeout(Q, QD, P, roles, N * S, labels)
        lines = self._call(f"crossdyn_batch__({octave_string(inp)}, {octave_string(outp)}, {names}, [{nargs}], {ckind}, "
                           f"{octave_string(self._zdir)}, {vec});", timeout, what="your functions")
        ok = [ln for ln in lines if ln.startswith("@@OK@@")]
        if not ok:
            self._raise_call_error(lines, Q, QD, labels)
        self.printed += [ln for ln in lines if not ln.startswith("@@")]
        ck = int(ok[-1].split()[1])
        self.last_paths = ok[-1].split()[2]        # per role M, C, G: v (batch value), l (loop), - (absent)
        if ck:
            self.c_kind = {1: "matrix", 2: "vector"}[ck]
        data = np.fromfile(outp, "<f8")[1:]
        out = {}
        pos = 0
        for r, size in (("M", n * n), ("C", n * n), ("G", n)):
            if r not in roles:
                continue
            block = data[pos: pos + size * N * S].reshape(S, N, size)
            pos += size * N * S
            if r == "G":
                out[r] = block
            elif r == "C" and self.c_kind == "vector":
                out[r] = block[..., :n]
            else:
                out[r] = np.swapaxes(block.reshape(S, N, n, n), -1, -2)    # Octave is column-major
        return out

    def _batch_timeout(self, Q, QD, P, roles, count: int, labels=None) -> float:
        """The limit for a batch of ``count`` states x sets: the timeout, or (default timeout only) 10 x the
        cost of one state measured inside Octave x the count, if larger: slow but finite files are not stopped."""
        if not self.scale_timeout or count < VECTORISE_MIN:
            return self.timeout
        if self._state_cost is None:
            for _ in range(2):          # the second call: the first one includes Octave parsing the functions
                self._one(tuple(roles), Q[0], QD[0], P[0:1], labels[0] if labels else None, row=True)
        return max(self.timeout, 10.0 * (self._state_cost or 0.0) * count)    # _one set it

    # ------------------------------------------------------------------ one state (engines, integration)
    @staticmethod
    def _row(p) -> np.ndarray:
        """[L, m, Lc, J, b, fc, Ia, gx, gy, gz] of crossdyn's ``p`` object (UserParams)."""
        g = (tuple(p.gravity) + (0.0,) * 3)[:3]
        return np.concatenate([p.L, p.m, p.Lc, p.J, p.b, p.fc, p.armature, g])[None, :]

    def _one(self, roles, q, qd, p, where, row: bool = False) -> dict:
        """M, C, G at one state: numbers travel in the command and the printed reply (no files)."""
        n = self.n
        q = np.asarray(q, float).reshape(n)
        qd = np.zeros(n) if qd is None else np.asarray(qd, float).reshape(n)
        names = "{" + ", ".join(octave_string(self.name(r) if self.has(r) and r in roles else "")
                                for r in ("M", "C", "G")) + "}"
        if row and getattr(self, "_layout", None):      # a spatial arm's named row (evaluate's layout)
            prow = np.asarray(p, float).reshape(-1)
        else:
            prow = _with_armature(np.asarray(p, float), n)[0] if row else self._row(p)[0]
        lines = self._call(f"crossdyn_one__({_mat(q)}, {_mat(qd)}, {_mat(prow)}, {names}, "
                           f"[{self._nargs()}], {self._ckind()});", what="your functions")
        if not any(ln.startswith("@@OK@@") for ln in lines):
            label = where.label if hasattr(where, "label") else where
            self._raise_call_error(lines, q[None, :], qd[None, :], None if label is None else [str(label)])
        okline = next(ln for ln in lines if ln.startswith("@@OK@@")).split()
        ck = int(okline[1])
        self._state_cost = float(okline[3])           # seconds Octave spent on this state's functions
        if ck:
            self.c_kind = {1: "matrix", 2: "vector"}[ck]
        self.printed += [ln for ln in lines if not ln.startswith("@@")]
        out = {}
        for line in lines:
            if line.startswith("@@V@@ "):
                parts = line.split()
                role = ("M", "C", "G")[int(parts[1]) - 1]
                if len(parts) > 2:
                    v = np.array([float(x) for x in parts[2:]])
                    if role == "M" or (role == "C" and self.c_kind == "matrix"):
                        v = v.reshape(n, n).T                  # Octave is column-major
                    out[role] = v
        return out

    def _nargs(self) -> str:
        return " ".join(str((3 if r == "C" else 2) if (not self.has(r) or self.takes_p(r)) else (2 if r == "C" else 1))
                        for r in ("M", "C", "G"))

    def _ckind(self) -> int:
        return {None: 0, "matrix": 1, "vector": 2}[self.c_kind]

    # ------------------------------------------------------------------ an engine's step
    def engine_init(self, p) -> None:
        """Hold the parameters and functions in Octave for :meth:`engine_step` (needs M, C and G)."""
        if self.c_kind is None:
            self._one(("C",), np.zeros(self.n), np.zeros(self.n), p, None)     # learn C's form
        names = "{" + ", ".join(octave_string(self.name(r)) for r in ("M", "C", "G")) + "}"
        self._call(f"crossdyn_engine_init__({_mat(self._row(p)[0])}, {names}, [{self._nargs()}], {self._ckind()});")

    def engine_step(self, q, qd, tau, dt: float, label: str = "") -> tuple[np.ndarray, np.ndarray]:
        """One RK4 step of M q̈ + C q̇ + G + b q̇ + f_c sign(q̇) = τ inside Octave (one round trip)."""
        lines = self._call(f"crossdyn_engine_step__({_mat(q)}, {_mat(qd)}, {_mat(tau)}, {dt!r});",
                           what="your functions")
        ok = next((ln for ln in lines if ln.startswith("@@OK@@ ")), None)
        if ok is None:
            err = self._parse_error(lines)
            at = f" ({err['at']})" if err["at"] else ""
            raise UserFileError(f"{self.path}: an Octave error{at} while stepping: {err['message']}",
                                where=f"from q = {_vec(q)}, qd = {_vec(qd)}, tau = {_vec(tau)} {label}".rstrip(),
                                user_traceback=err["trace"], violation=self._violation(err["full"]))
        v = np.array([float(x) for x in ok.split()[1:]])
        return v[: self.n], v[self.n:]

    def M(self, q, p, ps=None) -> np.ndarray:
        return self._one(("M",), q, None, p, ps)["M"]

    def G(self, q, p, ps=None) -> np.ndarray:
        return self._one(("G",), q, None, p, ps)["G"]

    def C(self, q, qd, p, ps=None) -> tuple[str, np.ndarray]:
        # the kind known *before* this call (None on a model's very first C call: as it always was)
        return cast(str, self.c_kind), self._one(("C",), q, qd, p, ps)["C"]

    def free_swing(self, q0, qd0, p, dt: float, steps: int, every: int = 5):
        """RK4 free swing (τ = 0) of M q̈ + C q̇ + G = 0 from (q0, q̇0) in ONE Octave call, the same steps as
        :func:`crossdyn.analytic.integrators.rk4_step`.  Returns (status "ok" | "diverged" | "singular",
        step of failure, q at the recorded steps (R, n), T = ½ q̇ᵀ M q̇ there (R,), T at the start)."""
        n = self.n
        tmp = Path(self.session.tmpdir)
        inp, outp = tmp / "in.bin", tmp / "out.bin"
        np.concatenate([[n, 1, 1, 1], np.asarray(q0, float), np.asarray(qd0, float),
                        self._row(p)[0]]).astype("<f8").tofile(inp)
        names = "{" + ", ".join(octave_string(self.name(r)) for r in ("M", "C", "G")) + "}"
        nargs = " ".join(str((3 if r == "C" else 2) if self.takes_p(r) else (2 if r == "C" else 1))
                         for r in ("M", "C", "G"))
        ckind = {None: 0, "matrix": 1, "vector": 2}[self.c_kind]
        timeout = self.timeout                      # 4 stages a step, M again every `every` steps
        if self.scale_timeout and self._state_cost is not None:
            timeout = max(timeout, 10.0 * self._state_cost * steps * (4 + 1 / every))
        lines = self._call(f"crossdyn_free__({octave_string(inp)}, {octave_string(outp)}, {names}, [{nargs}], "
                           f"{ckind}, {dt!r}, {int(steps)}, {int(every)});", timeout, what="your functions (free swing)")
        if not any(ln.startswith("@@OK@@") for ln in lines):
            self._raise_call_error(lines, np.asarray(q0, float)[None, :], np.asarray(qd0, float)[None, :],
                                   ["the arm's own parameters, in the energy check (free motion)"], free=True)
        self.printed += [ln for ln in lines if not ln.startswith("@@")]
        data = np.fromfile(outp, "<f8")
        status, k, r, T0 = int(data[0]), int(data[1]), int(data[2]), float(data[3])
        rec = data[4:].reshape(-1, n + 1)[:r]
        return {0: "ok", 1: "diverged", 2: "singular"}[status], k, rec[:, :n], rec[:, n], T0

    # ------------------------------------------------------------------ errors
    def _user_file(self, file: str) -> str | None:
        if not file:
            return None
        if file in self._source_map:
            return str(self._source_map[file])
        try:
            fp = Path(file).resolve()
        except (OSError, ValueError):
            return None
        root = self._src.resolve()
        if fp == root or (root.is_dir() and root in fp.parents):
            return str(self.path / fp.relative_to(root)) if root.is_dir() else str(self.path)
        return None

    def _parse_error(self, lines: list[str]) -> dict:
        role = s = i = 0
        ident, msg, frames = "", [], []
        for line in lines:
            if line.startswith("@@ERR@@ "):
                role, s, i = (int(x) for x in line.split()[1:4])
            elif line.startswith("@@ID@@"):
                ident = line[7:].strip()
            elif line.startswith("@@MSG@@"):
                msg.append(line[8:])
            elif line.startswith("@@AT@@ "):
                ln, col, name, file = line[7:].split("|", 3)
                frames.append((int(ln), int(col), name, file))
        message = "\n".join(m for m in msg).strip()
        # parse errors name the file in the message: map a temporary copy back to the user's path
        for tmp, real in self._source_map.items():
            message = message.replace(tmp, str(real))
        user_frames = [(ln, col, name, self._user_file(file)) for ln, col, name, file in frames
                       if self._user_file(file)]
        trace = ""
        if user_frames:
            trace = "Octave stack (frames in your file only, most recent first):\n" + "".join(
                f"  {f}: line {ln}, column {col}, in {name}\n" for ln, col, name, f in user_frames)
        trace += f"error: {message}"
        at = f"{user_frames[0][3]}: line {user_frames[0][0]}" if user_frames else ""
        if not at:
            m = re.search(r"near line (\d+)(?:, column \d+)? of file (\S+)", message)
            if m:
                at = f"{m.group(2)}: line {m.group(1)}"
        return {"role": role, "set": s, "state": i, "id": ident, "message": message.splitlines()[0] if message
                else "(no message)", "full": message, "trace": trace, "at": at, "frames": user_frames}

    def _raise_call_error(self, lines, Q, QD, labels, free: bool = False):
        err = self._parse_error(lines)
        if not err["role"]:
            tail = "; ".join(ln for ln in lines[-5:] if ln.strip())
            raise UserFileError(f"{self.path}: Octave failed: {tail or 'no output'}", violation=self._violation(tail))
        role = {1: "M", 2: "C", 3: "G"}[err["role"]]
        name = self.name(role)
        sig = self.signature(role)
        k, i = (0, 0) if free else (err["set"] - 1, err["state"] - 1)
        where = (("during a free swing from " if free else "at ") + f"q = {_vec(Q[i])}"
                 + (f", qd = {_vec(QD[i])}" if role == "C" or free else ""))
        if labels is not None and 0 <= k < len(labels):
            where += f", with {labels[k]}"
        ident, msg = err["id"], err["full"]
        n = self.n
        if ident == "crossdyn:shape":
            expected = {"M": f"({n}, {n})", "C": f"({n}, {n}) for the matrix C or ({n},) for C qd",
                        "G": f"({n},)"}[role]
            shape = msg.strip("[]").replace(" ", ", ")
            raise UserFileError(f"{sig} returned size [{msg.strip('[]')}] ({shape.count(',') + 1}-D); expected "
                                f"{expected} for this {n}-link arm", function=name, where=where)
        if ident == "crossdyn:type":
            raise UserFileError(f"{sig} returned a {msg} that is not an array of real numbers", function=name,
                                where=where)
        if ident == "crossdyn:complex":
            raise UserFileError(f"{sig} returned complex values", function=name, where=where)
        if ident == "crossdyn:ckind":
            now, before = ("matrix" if msg.split()[0] == "1" else "vector"), ("matrix" if msg.split()[1] == "1"
                                                                              else "vector")
            raise UserFileError(f"{sig} returned a {now} here but a {before} elsewhere; return either the n x n "
                                "matrix C or the n-vector C qd, always", function=name, where=where)
        at = f" ({err['at']})" if err["at"] else ""
        violation = self._violation(msg)
        raise UserFileError(f"{sig} raised an Octave error{at}: {err['message']}"
                            + (f" ({violation})" if violation else ""), function=name, where=where,
                            user_traceback=err["trace"], violation=violation)

    def _violation(self, text: str) -> str | None:
        """The blocked action or broken limit an Octave error's text tells (sandboxed sessions only)."""
        return sandbox.violation_of_text(text, self.isolation)

    def close(self) -> None:
        self.session.close()

    def __del__(self):
        s = getattr(self, "session", None)
        if s is not None:
            s.close()
