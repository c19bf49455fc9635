"""The analytic model as an engine: crossdyn's own Lagrangian dynamics and integrators.

Integrators (see :mod:`crossdyn.analytic.integrators`): ``rk4`` (default),
``semi-implicit-euler`` (the scheme of PyBullet and MuJoCo's ``Euler``),
``euler`` (explicit) and ``reference`` (adaptive DOP853, rtol = atol = 1e-12,
restarted every step).  Joint friction F(q̇) = b q̇ + f_c sign(q̇) from the spec is
applied exactly as written in :mod:`crossdyn.conventions`.
"""
from __future__ import annotations

import numpy as np

from crossdyn import __version__, analytic
from crossdyn.analytic.integrators import STEPS
from crossdyn.engines.base import Engine, EngineError
from crossdyn.models.spec import ArmSpec


class AnalyticEngine(Engine):
    name = "analytic"

    def __init__(self, spec: ArmSpec, dt: float = 1e-3, integrator: str = "rk4", method: str = "auto"):
        super().__init__(spec, dt)
        if integrator not in STEPS:
            raise EngineError(f"analytic integrator: must be one of {', '.join(STEPS)}, got {integrator!r}")
        self.integrator = integrator
        self.method = method
        self.params = spec.params()
        self._step = STEPS[integrator]
        self._q = np.zeros(self.n)
        self._qd = np.zeros(self.n)

    def _fd(self, q, qd, tau):
        return analytic.forward_dynamics(self.params, q, qd, tau, self.method)

    def reset(self, q, qd) -> None:
        self._q = np.array(q, dtype=float).reshape(self.n)
        self._qd = np.array(qd, dtype=float).reshape(self.n)

    def step(self, tau) -> None:
        self._q, self._qd = self._step(self._fd, self._q, self._qd, np.asarray(tau, dtype=float), self.dt)

    def state(self):
        return self._q.copy(), self._qd.copy()

    def inverse_dynamics(self, q, qd, qdd):
        return analytic.inverse_dynamics(self.params, q, qd, qdd, self.method)

    def mass_matrix(self, q):
        return analytic.mass_matrix(self.params, q, self.method)

    def forward_dynamics(self, q, qd, tau):
        return self._fd(np.asarray(q, float), np.asarray(qd, float), np.asarray(tau, float))

    def energy(self, q, qd):
        return float(analytic.kinetic_energy(self.params, q, qd)), float(analytic.potential_energy(self.params, q))

    def config(self) -> dict:
        return {
            "engine": "analytic", "version": __version__, "integrator": self.integrator, "dt": self.dt,
            "model": self.method, "torque_sampling": "zero-order hold at step start",
            "joint_damping": [l.damping for l in self.spec.links],
            "joint_friction": [l.friction for l in self.spec.links],
            "friction_model": "F = b*qd + fc*sign(qd)",
            "inertia_substitutions": [],
        }
