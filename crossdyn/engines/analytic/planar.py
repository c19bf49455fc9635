"""The analytic model as an engine: crossdyn's own Lagrangian dynamics and integrators.

Integrators (see :mod:`crossdyn.analytic.integrators`): ``rk4`` (default),
``semi-implicit-euler`` (the scheme of PyBullet and MuJoCo's ``Euler``),
``euler`` (explicit) and ``reference`` (adaptive DOP853, rtol = atol = 1e-12,
restarted every step).  Joint friction F(q̇) = b q̇ + f_c sign(q̇) from the spec is
applied exactly as written in :mod:`crossdyn.conventions`.

Stepping uses float-only code generated per arm (:mod:`crossdyn.analytic.codegen`,
``fast=True``, the default) and the NumPy model with ``fast=False``; both give the
same numbers to rounding (tested to 1e-12).  With numba installed (the optional extra ``[numba]``) the
``rk4``, ``semi-implicit-euler`` and ``euler`` steps run the same equations compiled
(:mod:`crossdyn.analytic.compiled`, identical to the generated Python to 1e-14 relative per state, tested),
on the state held in one array ``(q, q̇)``; ``CROSSDYN_NUMBA=0`` or no numba: the generated Python.
"""
from __future__ import annotations

import functools

import numpy as np

from crossdyn import analytic
from crossdyn.version import __version__
from crossdyn.analytic import codegen, compiled
from crossdyn.analytic.integrators import STEPS
from crossdyn.engines.base import Capabilities, Engine, EngineError
from crossdyn.models.spec import ArmSpec

_FAST_STEPS = {"rk4": "rk4", "semi-implicit-euler": "semi_implicit_euler", "euler": "euler"}


class AnalyticEngine(Engine):
    name = "analytic"
    capabilities = Capabilities(native_friction=True, armature=True)

    def __init__(self, spec: ArmSpec, dt: float = 1e-3, integrator: str = "rk4", method: str = "auto",
                 fast: bool = True, rtol: float = 1e-12, atol: float = 1e-12):
        super().__init__(spec, dt)
        if integrator not in STEPS:
            raise EngineError(f"analytic integrator: must be one of {', '.join(STEPS)}, got {integrator!r}")
        self.integrator = integrator
        self.method = method
        self.params = spec.params()
        self.rtol, self.atol = rtol, atol
        self._compiled = codegen.compile_model(spec) if fast and method == "auto" and spec.n <= codegen.MAX_N else None
        if self._compiled is not None and integrator in _FAST_STEPS:
            self._fast_step = getattr(self._compiled, _FAST_STEPS[integrator])
        else:
            self._fast_step = None
        self._step = STEPS[integrator]
        self._q = (0.0,) * self.n
        self._qd = (0.0,) * self.n
        # the compiled kernel (numba): constants packed once, state x = (q, q̇) stepped in place
        self._kernel: functools.partial | None = None
        if self._fast_step is not None and compiled.AVAILABLE:
            self._x = np.zeros(2 * self.n)
            # everything but τ bound once: a step is one call into the kernel (x is updated in place)
            self._kernel = functools.partial(compiled.STEPS[integrator], self._x, compiled.pack(spec), self.n,
                                             self.dt, compiled.workspace(self.n))

    def _fd(self, q, qd, tau):
        if self._compiled is not None:
            return np.array(self._compiled.fd(q, qd, tau))
        return analytic.forward_dynamics(self.params, q, qd, tau, self.method)

    def reset(self, q, qd) -> None:
        if self._kernel is not None:  # in place: the bound kernel holds this array
            self._x[:self.n] = np.asarray(q, dtype=float).reshape(self.n)
            self._x[self.n:] = np.asarray(qd, dtype=float).reshape(self.n)
        self._q = tuple(np.asarray(q, dtype=float).reshape(self.n).tolist())
        self._qd = tuple(np.asarray(qd, dtype=float).reshape(self.n).tolist())

    def step(self, tau) -> None:
        if self._kernel is not None:
            self._kernel(np.ascontiguousarray(tau, dtype=float))  # checks len(tau) == n (ValueError)
            return
        tau = tau.tolist() if isinstance(tau, np.ndarray) else [float(x) for x in tau]
        if self._fast_step is not None:
            self._q, self._qd = self._fast_step(self._q, self._qd, tau, self.dt)
            return
        kwargs = {"rtol": self.rtol, "atol": self.atol} if self.integrator == "reference" else {}
        q, qd = self._step(self._fd, np.array(self._q), np.array(self._qd), np.array(tau), self.dt, **kwargs)
        self._q, self._qd = tuple(q.tolist()), tuple(qd.tolist())

    def state(self):
        if self._kernel is not None:
            return self._x[:self.n].copy(), self._x[self.n:].copy()
        return np.array(self._q), np.array(self._qd)

    def read_state_into(self, q_out: np.ndarray, qd_out: np.ndarray) -> None:
        if self._kernel is not None:
            q_out[:] = self._x[:self.n]
            qd_out[:] = self._x[self.n:]
        else:
            q_out[:] = self._q
            qd_out[:] = self._qd

    def inverse_dynamics(self, q, qd, qdd):
        return analytic.inverse_dynamics(self.params, q, qd, qdd, self.method)

    def mass_matrix(self, q):
        return analytic.mass_matrix(self.params, q, self.method)

    def forward_dynamics(self, q, qd, tau):
        return analytic.forward_dynamics(self.params, q, qd, tau, self.method)

    def energy(self, q, qd):
        return float(analytic.kinetic_energy(self.params, q, qd)), float(analytic.potential_energy(self.params, q))

    def energies(self, q, qd) -> np.ndarray:
        """E = T + V at every row of q, q̇ (K × n): :meth:`energy`'s functions, batched (one call for K states)."""
        return np.asarray(analytic.kinetic_energy(self.params, q, qd) + analytic.potential_energy(self.params, q),
                          float)

    def config(self) -> dict:
        cfg = {
            "engine": "analytic", "version": __version__, "integrator": self.integrator, "dt": self.dt,
            "model": self.method, "generated_code": self._compiled is not None,
            "compiled_numba": self._kernel is not None,
            "torque_sampling": "zero-order hold at step start",
            "joint_damping": [lk.damping for lk in self.spec.links],
            "joint_friction": [lk.friction for lk in self.spec.links],
            "friction_model": "F = b*qd + fc*sign(qd)",
            "inertia_substitutions": [],
        }
        if self.spec.has_armature:
            cfg["armature"] = [lk.armature for lk in self.spec.links]
        if self.integrator == "reference":
            cfg.update(reference="scipy DOP853, restarted every step", rtol=self.rtol, atol=self.atol)
        return cfg
