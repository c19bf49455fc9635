"""The user's own equations as an engine: ``make_engine("user:my_arm.py", spec, dt)``.

The file defines ``M(q, p)``, ``C(q, qd, p)`` (the n×n matrix or the vector C q̇) and
``G(q, p)`` exactly as for ``crossdyn check`` (see :mod:`crossdyn.equations.python_file`;
alternative names and ``names={"M": ...}`` are accepted).  All three are required
here.  The engine integrates

    q̈ = M_user⁻¹ (τ − C_user q̇ − G_user − F),   F = b q̇ + f_c sign(q̇) from the spec,

with crossdyn's integrators (:data:`crossdyn.analytic.integrators.STEPS`, RK4 by
default), torque held over each step (zero-order hold).  Energy is
T = ½ q̇ᵀ M_user q̇ and U the analytic potential of the spec (the user supplies no
potential).  Exceptions, wrong shapes or non-numbers from the user's functions
raise :class:`~crossdyn.equations.protocol.UserFileError` (an
:class:`~crossdyn.io.InputError`) naming the function and the state;
non-finite values pass through, as in a diverging physics engine.
"""
from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from crossdyn import analytic
from crossdyn.version import __version__
from crossdyn.analytic.integrators import STEPS
from crossdyn.engines.base import Capabilities, Engine, EngineError
from crossdyn.models.spec import ArmSpec
from crossdyn.equations.loader import load_model
from crossdyn.equations.params import param_rows
from crossdyn.equations.python_file import ROLE_NAMES, UserFileError, own_params, parse_names


class UserModelEngine(Engine):
    """An engine running the equations of motion written in a user's Python file."""

    name = "user"
    # armature: the user's M carries it (p.armature / p.Ia1 …), as crossdyn check tests; friction from the spec
    capabilities = Capabilities(native_friction=True, armature=True)

    def __init__(self, spec: ArmSpec, dt: float = 1e-3, path: str | Path | None = None, integrator: str = "rk4",
                 names: dict[str, str] | str | None = None):
        super().__init__(spec, dt)
        if path is None or not str(path).strip():
            raise EngineError("user engine: give the file as user:FILE (e.g. user:my_arm.py)")
        if integrator not in STEPS:
            raise EngineError(f"user engine integrator: must be one of {', '.join(STEPS)}, got {integrator!r}")
        try:
            self._load(path, spec, integrator, names)
        except UserFileError as e:  # the file cannot be used: an engine that cannot be built
            raise EngineError(str(e)) from None

    def _load(self, path, spec: ArmSpec, integrator: str, names) -> None:
        if isinstance(names, str):
            try:
                names = parse_names(names)
            except ValueError as e:
                raise EngineError(str(e)) from None
        self.path = Path(path)
        self.name = f"user:{path}"
        self.integrator = integrator
        self._step = STEPS[integrator]
        self.model = load_model(self.path, spec.n, names, strict=False)   # Python, or MATLAB through Octave
        self._octave = hasattr(self.model, "evaluate")
        missing = [r for r in ROLE_NAMES if not self.model.has(r)]
        if missing:
            raise EngineError(f"user engine: {self.path} must define M, C and G; missing "
                              + ", ".join(f"{r} (looked for {' / '.join(ROLE_NAMES[r])})" for r in missing))
        own = own_params(spec)
        self._row = param_rows([own])
        self.p = own.user
        self.params = own.arm
        self._label = f"in the user engine ({spec.name})"
        self._q = np.zeros(self.n)
        self._qd = np.zeros(self.n)
        probe = 0.3 * np.arange(1, self.n + 1)
        self._parts(probe, -0.5 * probe)          # shapes checked now, and C's form (matrix or vector) known
        self._octave_steps = self._octave and integrator == "rk4"
        self.batched_energies = self._octave     # energies(): one call for every state (comparison's energy group)
        if self._octave_steps:                    # RK4 steps inside Octave: one round trip per step
            self.model.engine_init(self.p)

    # ------------------------------------------------------------------ model
    def _parts(self, q, qd):
        m = self.model
        if self._octave:                          # one Octave call for the three
            M, c, g = m.parts(q, qd, self.p, self._label)
            return M, c + g
        M = m.M(q, self.p, self._label)
        h = m.Cqd(q, qd, self.p, self._label) + m.G(q, self.p, self._label)
        return M, h

    def _fd(self, q, qd, tau):
        M, h = self._parts(q, qd)
        rhs = tau - h - analytic.friction(self.params, qd)
        return np.linalg.solve(M, rhs)

    def _octave_batch(self, q, qd=None):
        """M, C q̇, G at every state of a batch in one Octave call."""
        q = np.asarray(q, float)
        shape = q.shape[:-1]
        Q = q.reshape(-1, self.n)
        QD = None if qd is None else np.broadcast_to(np.asarray(qd, float), q.shape).reshape(-1, self.n)
        roles = ("M",) if qd is None else ("M", "C", "G")
        out = self.model.evaluate(Q, QD, self._row, roles=roles, labels=[self._label])
        M = out["M"][0]
        if qd is None:
            return M.reshape(shape + (self.n, self.n)), None
        c = out["C"][0]
        if self.model.c_kind == "matrix":
            c = np.einsum("kij,kj->ki", c, QD)
        return M.reshape(shape + (self.n, self.n)), (c + out["G"][0]).reshape(shape + (self.n,))

    def _batched(self, fn, *arrays):
        arrays = [np.asarray(a, dtype=float) for a in arrays]
        if arrays[0].ndim == 1:
            return fn(*arrays)
        shape = np.broadcast_shapes(*(a.shape for a in arrays))
        arrays = [np.broadcast_to(a, shape).reshape(-1, self.n) for a in arrays]
        out = np.array([fn(*row) for row in zip(*arrays, strict=True)])
        return out.reshape(shape[:-1] + out.shape[1:])

    # ------------------------------------------------------------------ Engine interface
    def reset(self, q, qd) -> None:
        self._q = np.array(q, dtype=float).reshape(self.n)
        self._qd = np.array(qd, dtype=float).reshape(self.n)

    def step(self, tau) -> None:
        tau = np.asarray(tau, dtype=float).reshape(self.n)
        if self._octave_steps:
            self._q, self._qd = self.model.engine_step(self._q, self._qd, tau, self.dt, self._label)
            return
        with np.errstate(all="ignore"):
            self._q, self._qd = self._step(self._fd, self._q, self._qd, tau, self.dt)

    def state(self):
        return self._q.copy(), self._qd.copy()

    def inverse_dynamics(self, q, qd, qdd):
        if self._octave and np.ndim(q) > 1:
            q, qd, qdd = np.broadcast_arrays(*(np.asarray(a, float) for a in (q, qd, qdd)))
            M, h = self._octave_batch(q, qd)
            return np.einsum("...ij,...j->...i", M, qdd) + h + analytic.friction(self.params, qd)

        def one(q, qd, qdd):
            M, h = self._parts(q, qd)
            return M @ qdd + h + analytic.friction(self.params, qd)
        return self._batched(one, q, qd, qdd)

    def mass_matrix(self, q):
        if self._octave and np.ndim(q) > 1:
            return self._octave_batch(q)[0]
        return self._batched(lambda q: self.model.M(q, self.p, self._label), q)

    def forward_dynamics(self, q, qd, tau):
        if self._octave and np.ndim(q) > 1:
            q, qd, tau = np.broadcast_arrays(*(np.asarray(a, float) for a in (q, qd, tau)))
            M, h = self._octave_batch(q, qd)
            return np.linalg.solve(M, (tau - h - analytic.friction(self.params, qd))[..., None])[..., 0]
        return self._batched(self._fd, q, qd, tau)

    def energy(self, q, qd):
        q, qd = np.asarray(q, float), np.asarray(qd, float)
        M = self.model.M(q, self.p, self._label)
        return float(0.5 * qd @ M @ qd), float(analytic.potential_energy(self.params, q))

    def energies(self, q, qd) -> np.ndarray:
        """E = T + U at every row of q, q̇ (K × n): :meth:`energy` batched, M at every state in one call to the
        process running the user's code (a sandboxed Python worker or Octave); one state at a time otherwise."""
        q, qd = np.asarray(q, float).reshape(-1, self.n), np.asarray(qd, float).reshape(-1, self.n)
        if not self._octave:
            return np.array([sum(self.energy(a, v)) for a, v in zip(q, qd, strict=True)])
        M = self._octave_batch(q)[0]
        T = 0.5 * np.einsum("ki,kij,kj->k", qd, M, qd)
        return T + np.array([float(analytic.potential_energy(self.params, a)) for a in q])

    def config(self) -> dict:
        try:
            digest = hashlib.sha256(self.path.read_bytes()).hexdigest()
        except OSError:
            digest = None
        return {
            "engine": "user", "file": str(self.path.resolve()), "sha256": digest, "version": __version__,
            "language": getattr(self.model, "language", "python"),
            "functions": self.model.describe(), "c_form": self.model.c_kind,
            "integrator": self.integrator, "dt": self.dt, "torque_sampling": "zero-order hold at step start",
            "joint_damping": [lk.damping for lk in self.spec.links],
            "joint_friction": [lk.friction for lk in self.spec.links],
            "friction_model": "F = b*qd + fc*sign(qd) (from the spec, added to your equations)",
            "energy": "T = 1/2 qd^T M_user qd, U = analytic potential of the spec",
            "inertia_substitutions": [],
            "sandbox": self._isolation(),
        }

    def close(self) -> None:
        """End the process running the user's code (a sandboxed Python worker or Octave), if any."""
        close = getattr(getattr(self, "model", None), "close", None)
        if close is not None:
            close()

    def _isolation(self) -> str:
        """The isolation the user's code runs under (:meth:`crossdyn.sandbox.Isolation.describe`)."""
        iso = getattr(self.model, "isolation", None)
        return iso.describe() if iso is not None else "off: the user's code runs with crossdyn's rights (--sandbox off)"
