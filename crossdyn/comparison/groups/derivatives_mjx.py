"""MJX as a derivative source of the ``derivatives`` metric group (:mod:`crossdyn.comparison.groups.derivatives`):
``jax.jacfwd`` through ``mjx.forward``, ``mjx.inverse`` and one ``mjx.step`` (:mod:`crossdyn.derivatives.mjx`).

Twelve blocks per state: ∂q̈/∂q, ∂q̈/∂q̇, ∂q̈/∂τ and ∂τ/∂q, ∂τ/∂q̇, ∂τ/∂q̈ against the complex-step reference, and
one step's ∂q⁺/∂q, ∂q⁺/∂q̇, ∂q⁺/∂τ, ∂q̇⁺/∂q, ∂q̇⁺/∂q̇, ∂q̇⁺/∂τ against the exact Jacobians of the same scheme
(:func:`crossdyn.derivatives.transition.chain_rule` on the complex-step blocks: semi-implicit Euler for ``mjx`` and
``mjx-euler``, RK4 for ``mjx-rk4``).  Tolerances from the method (:func:`crossdyn.derivatives.mjx.tolerance`):
autodiff is exact to round-off in its dtype — float64 the analytical bound, float32 (MJX's default) the float32
round-off term of :mod:`crossdyn.engines.precision`, × κ(M) where the block solves with M.
"""
from __future__ import annotations

import functools

from crossdyn.comparison.groups.derivative_checks import BlockCheck, check_block

STEP_KEYS = (("dqnext_dq", 0, 0), ("dqnext_dqd", 0, 1), ("dqnext_dtau", 0, 2),
             ("dqdnext_dq", 1, 0), ("dqdnext_dqd", 1, 1), ("dqdnext_dtau", 1, 2))
"""The step's blocks: key, row block (q⁺, q̇⁺), column block (q, q̇, τ)."""


class MJXDerivatives:
    """MJX's autodiff blocks (Euler step; :class:`MJXRK4Derivatives` for ``mjx-rk4``); a subclass may alter
    :meth:`dynamics` or :meth:`transition` (the seeded derivative faults of the tests)."""

    name = "mjx"
    integrator = "Euler"
    dtype = "float32"

    def engine(self, model, dt: float):
        from crossdyn.derivatives.mjx import mjx_engine
        return mjx_engine(model, dt, self.integrator, self.dtype)

    def dynamics(self, engine, Q, QD, TAU, QDD):
        from crossdyn.derivatives import mjx
        return mjx.dynamics(engine, Q, QD, TAU, QDD)

    def transition(self, engine, Q, QD, TAU):
        from crossdyn.derivatives import mjx
        return mjx.transition(engine, Q, QD, TAU)

    def judge(self, model, ref, dt: float) -> list[BlockCheck]:
        """The six dynamics blocks against the complex-step reference ``ref`` and the step's six against the exact
        Jacobians of the scheme, each with the autodiff tolerance of its dtype."""
        from crossdyn.comparison.containment import engine_code
        from crossdyn.derivatives import BLOCKS, reference
        from crossdyn.derivatives import mjx as dmjx
        from crossdyn.derivatives import transition as tr

        with engine_code():
            engine = self.engine(model, dt)
            try:
                got = self.dynamics(engine, ref.q, ref.qd, ref.tau, ref.qdd)
                step = self.transition(engine, ref.q, ref.qd, ref.tau)
            finally:
                engine.close()
        M, n = ref.dtau_dqdd, model.n
        method = dmjx.method(self.dtype, "mjx.forward / mjx.inverse")
        out = [check_block(b, got.block(b), ref.block(b), dmjx.tolerance(self.dtype, M, ref.block(b),
                                                                           b.startswith("dqdd")), method)
               for b in BLOCKS]
        exact = tr.chain_rule(functools.partial(reference.complex_step, model), ref.q, ref.qd, ref.tau, dt,
                              dmjx.SCHEMES[self.integrator])
        smethod = dmjx.method(self.dtype, f"one mjx.step, {self.integrator}") + \
            f"; against the exact Jacobian of {exact.method}"
        G = [step.A[:, :, :n], step.A[:, :, n:], step.B]
        J = [exact.A[:, :, :n], exact.A[:, :, n:], exact.B]
        for key, r, c in STEP_KEYS:
            ref_block = J[c][:, r * n:(r + 1) * n]
            out.append(check_block(key, G[c][:, r * n:(r + 1) * n], ref_block,
                                   dmjx.tolerance(self.dtype, M, ref_block, True), smethod))
        return out


class MJXRK4Derivatives(MJXDerivatives):
    """``mjx-rk4``: MJX's RK4 step, against the exact Jacobian of crossdyn's RK4."""

    integrator = "RK4"
