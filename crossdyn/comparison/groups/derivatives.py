"""Metric group ``derivatives`` (``compare ARM --derivatives``, issue 41): the engine's own derivatives of the
dynamics against crossdyn's complex-step reference (:mod:`crossdyn.derivatives`), at the run's static states (the
first :data:`MAX_STATES` of them), for every arm kind (planar presets, DH/spatial presets, robot files).

Engines that offer derivatives (:data:`OFFERED`):

* **Pinocchio**, analytical: the six blocks ∂q̈/∂q, ∂q̈/∂q̇, ∂q̈/∂τ, ∂τ/∂q, ∂τ/∂q̇, ∂τ/∂q̈
  (``computeABADerivatives``/``computeRNEADerivatives``), each against the complex step with the analytical float64
  per-entry tolerance K n ε_mach × the world-frame terms the entry sums (through |M⁻¹| and κ(M) for the forward
  blocks; :func:`crossdyn.derivatives.tolerance.analytic_terms`);
* **MuJoCo** (Euler), finite differences: one ``mj_step``'s transition Jacobians by ``mjd_transitionFD`` (centred,
  ε = 1e-6) split into the blocks ∂q⁺/∂q, ∂q⁺/∂q̇, ∂q̇⁺/∂q, ∂q̇⁺/∂q̇, ∂q⁺/∂τ, ∂q̇⁺/∂τ against the exact Jacobians of
  crossdyn's semi-implicit Euler (chain rule on the complex-step blocks), and ∂τ/∂q, ∂τ/∂q̇, ∂τ/∂q̈ by
  ``mjd_inverseFD`` (forward, ε = 1e-6), each entry within its finite-difference tolerance (truncation measured on
  the reference + round-off: C κ ε_mach |f| or MuJoCo's evaluation error measured at the points the quotient
  evaluates, :func:`crossdyn.derivatives.tolerance.perturbed_points`);
* **Drake**, automatic differentiation: the six blocks from the ``AutoDiffXd`` copy of the adapter's continuous plant
  (:mod:`crossdyn.derivatives.drake`), analytical tolerance as Pinocchio's;
* **Newton**, reverse mode in float32: one ``SolverFeatherstone.step`` of the Newton file adapter differentiated by
  ``wp.Tape`` (:mod:`crossdyn.derivatives.warp`), the six transition blocks against the exact Jacobians of
  semi-implicit Euler at the same float32 states, per-entry float32 tolerance
  (:func:`crossdyn.derivatives.tolerance.float32_step`).  MuJoCo Warp is not offered (:data:`NOT_OFFERED_BECAUSE`).

* **MJX**, automatic differentiation (``jax.jacfwd``) through ``mjx.forward``, ``mjx.inverse`` and one ``mjx.step``
  (Euler, or RK4 for ``mjx-rk4``) against the complex step and the exact Jacobians of the same scheme, with the
  tolerance of round-off in MJX's dtype (:mod:`crossdyn.comparison.groups.derivatives_mjx`).

Other engines: "not offered" (no group, nothing counted).  A check is one entry of one block at one state; a block
PASSes when every entry is finite and within its tolerance; a NaN or infinite entry FAILs (never raises).  The group
FAILs naming the engine, the block, the entry (row, column: output, input, 1-based joints) and the state.  The
dynamics differentiated are the smooth ones: rigid bodies, armature, viscous damping; Coulomb friction, limits and
contact are not (not differentiable, or constraints off in both engines' derivative models).
"""
from __future__ import annotations

import functools
from typing import Any

import numpy as np

from crossdyn.derivatives.warp import MUJOCO_WARP_NOT_DIFFERENTIABLE
from crossdyn.comparison.groups.derivative_checks import LABELS, BlockCheck, check_block, inconclusive  # noqa: F401
from crossdyn.comparison.groups.derivatives_mjx import MJXDerivatives, MJXRK4Derivatives
from crossdyn.status import Verdict

MAX_STATES = 50
"""At most this many of the static states are differentiated (the first ones): the reference's complex step costs
N·3n RNEA/ABA evaluations and the finite-difference tolerance N·3n more."""
EPS = 1e-6
"""MuJoCo's finite-difference step (``mjd_transitionFD`` centred, ``mjd_inverseFD`` forward)."""

OFFERED = {"pinocchio": "pinocchio", "mujoco": "mujoco", "mujoco-euler": "mujoco", "mujoco-rk4": "mujoco",
           **dict.fromkeys(("drake", "drake-rk2", "drake-rk3", "drake-rk5", "drake-euler", "drake-implicit"), "drake"),
           "drake-rk4": "drake-rk4", "newton": "newton",
           "mjx": "mjx", "mjx-euler": "mjx", "mjx-rk4": "mjx-rk4"}
"""Engine name → which derivatives it offers (Pinocchio's analytical ones; MuJoCo's finite differences of its
Euler step and of its inverse dynamics).  ``mjd_transitionFD`` refuses RK4, so for ``mujoco-rk4`` (the robot files'
default MuJoCo) the step differentiated is MuJoCo's Euler step of the same model (the method says so); its inverse
dynamics do not depend on the integrator.  A name with options (``mujoco@eulerdamp=true``) is not offered: the
derivative model is built with the adapter's defaults, not the options.  Drake's variants whose plant is continuous
differentiate that plant by AutoDiffXd (:class:`DrakeDerivatives`; ``drake-rk4`` with the
model's damping, which crossdyn's RK4 applies); ``drake-discrete`` is not offered (its step, damping implicit under
SAP, is not the continuous dynamics the reference differentiates).  ``newton``: its ``SolverFeatherstone`` step (the
solver crossdyn compares) by ``wp.Tape`` in float32 (:class:`NewtonDerivatives`).  ``mujoco-warp`` and its variants
are not offered: :data:`NOT_OFFERED_BECAUSE` (measured: MuJoCo Warp 4.0.0 compiles its step without adjoints, and
the tape's gradients come back all zero).  MJX: ``jax.jacfwd`` through its forward and inverse dynamics and one
step of the name's integrator (:mod:`crossdyn.comparison.groups.derivatives_mjx`)."""

NOT_OFFERED_BECAUSE = {"mujoco-warp": MUJOCO_WARP_NOT_DIFFERENTIABLE}
"""Engine family → why it offers no derivatives (the report's "Not offered" line; :func:`not_offered_because`)."""


def not_offered_because(engine: str) -> str | None:
    """Why ``engine`` (a name with its variant, e.g. ``mujoco-warp-rk4``) offers no derivatives, where measured."""
    if offers(engine):
        return None
    return next((why for family, why in NOT_OFFERED_BECAUSE.items()
                 if engine == family or engine.startswith(family + "-") or engine.startswith(family + "@")), None)



def offers(engine: str) -> bool:
    """Whether engine ``engine`` offers derivatives this group judges."""
    return engine in OFFERED


class PinocchioDerivatives:
    """Pinocchio's analytical blocks (:func:`crossdyn.derivatives.engines.pinocchio`); a subclass may alter
    :meth:`blocks` (the seeded derivative faults of the tests)."""

    name = "pinocchio"

    def blocks(self, model, Q, QD, TAU, QDD):
        from crossdyn.derivatives.engines import pinocchio
        return pinocchio(model, Q, QD, TAU, QDD=QDD)

    def judge(self, model, ref, dt: float) -> list[BlockCheck]:
        """The six blocks against the complex-step reference ``ref``, analytical tolerance."""
        from crossdyn.comparison.containment import engine_code
        from crossdyn.derivatives import BLOCKS
        from crossdyn.derivatives import tolerance as tol

        with engine_code():
            got = self.blocks(model, ref.q, ref.qd, ref.tau, ref.qdd)
        method = (f"analytical ({got.source}); tolerance {tol.ANALYTIC_K} n eps_mach x the world-frame terms each "
                  f"entry sums (through |M^-1| and cond(M) for the forward blocks)")
        return [check_block(b, got.block(b), ref.block(b), tol.analytic_terms(model, ref, b), method)
                for b in BLOCKS]


class MuJoCoDerivatives:
    """MuJoCo's ``mjd_transitionFD`` (Euler) and ``mjd_inverseFD`` (:mod:`crossdyn.derivatives.engines`); a subclass
    may alter :meth:`transition` or :meth:`inverse`."""

    name = "mujoco"

    def __init__(self, integrator: str = "Euler") -> None:
        self.integrator = integrator
        """The engine's own integrator (named in the method where it is not the Euler step differentiated)."""

    def transition(self, model, Q, QD, TAU, dt, engine):
        from crossdyn.derivatives.engines import FiniteDifference, mujoco_transition
        return mujoco_transition(model, Q, QD, TAU, dt, FiniteDifference(EPS, True), engine)

    def inverse(self, model, Q, QD, QDD, engine):
        from crossdyn.derivatives.engines import mujoco_inverse
        return mujoco_inverse(model, Q, QD, QDD, EPS, engine)

    def judge(self, model, ref, dt: float) -> list[BlockCheck]:
        from crossdyn.comparison.containment import engine_code
        from crossdyn.derivatives.engines import mujoco_engine

        with engine_code():
            engine = mujoco_engine(model, dt)
            return self._transition_blocks(model, ref, dt, engine) + self._inverse_blocks(model, ref, engine)

    def _transition_blocks(self, model, ref, dt, engine) -> list[BlockCheck]:
        """mjd_transitionFD's A, B against the chain rule of semi-implicit Euler on the complex-step blocks."""
        from crossdyn.derivatives import reference, transition
        from crossdyn.derivatives import tolerance as tol
        from crossdyn.derivatives.engines import mujoco_values
        from crossdyn.steps import semi_implicit_euler_step

        n, (Q, QD, T) = model.n, (ref.q, ref.qd, ref.tau)
        fd = reference.forward(model)
        exact = transition.chain_rule(functools.partial(reference.complex_step, model), Q, QD, T, dt,
                                      "semi-implicit-euler")

        def step(X):
            return np.concatenate(semi_implicit_euler_step(fd, X[:, :n], X[:, n:2 * n], X[:, 2 * n:], dt), axis=1)
        got = self.transition(model, Q, QD, T, dt, engine)
        X, J = np.concatenate((Q, QD, T), 1), np.concatenate((exact.A, exact.B), 2)
        P = tol.perturbed_points(X, EPS, True)
        stepped, _ = mujoco_values(model, P[:, :n], P[:, n:2 * n], P[:, 2 * n:], dt, engine)
        limit = tol.finite_difference(step, X, J, EPS, True, np.linalg.cond(ref.dtau_dqdd),
                                      tol.noise(stepped, step(P)))
        G = np.concatenate((got.A, got.B), 2)
        method = (f"finite differences ({got.source}) against the exact Jacobian of semi-implicit Euler; tolerance "
                  f"2 truncation + round-off / eps per entry" + ("" if self.integrator == "Euler" else
                                                                 f" (MuJoCo's Euler step: {self.integrator} refused)"))
        keys = (("dqnext_dq", 0, 0), ("dqnext_dqd", 0, 1), ("dqnext_dtau", 0, 2),
                ("dqdnext_dq", 1, 0), ("dqdnext_dqd", 1, 1), ("dqdnext_dtau", 1, 2))
        def part(a, r, c):
            return a[:, r * n:(r + 1) * n, c * n:(c + 1) * n]
        return [check_block(k, part(G, r, c), part(J, r, c), part(limit, r, c), method) for k, r, c in keys]

    def _inverse_blocks(self, model, ref, engine) -> list[BlockCheck]:
        """mjd_inverseFD's ∂τ blocks against the complex step, forward-difference tolerance."""
        from crossdyn.derivatives import reference
        from crossdyn.derivatives import tolerance as tol
        from crossdyn.derivatives.engines import mujoco_values

        n, (Q, QD, A) = model.n, (ref.q, ref.qd, ref.qdd)
        inv = reference.inverse(model)

        def f(X):
            return inv(X[:, :n], X[:, n:2 * n], X[:, 2 * n:])
        X = np.concatenate((Q, QD, A), 1)
        J = np.concatenate((ref.dtau_dq, ref.dtau_dqd, ref.dtau_dqdd), 2)
        got = np.concatenate(self.inverse(model, Q, QD, A, engine), 2)
        P = tol.perturbed_points(X, EPS, False)
        _, forces = mujoco_values(model, P[:, :n], P[:, n:2 * n], P[:, 2 * n:], 1e-3, engine)
        limit = tol.finite_difference(f, X, J, EPS, False, noise=tol.noise(forces, f(P)))
        method = f"finite differences (mjd_inverseFD, forward, eps = {EPS:g}); tolerance 2 truncation + 2 round-off / eps"
        cols = [slice(c * n, (c + 1) * n) for c in range(3)]
        return [check_block(k, got[:, :, s], J[:, :, s], limit[:, :, s], method)
                for s, k in zip(cols, ("dtau_dq", "dtau_dqd", "dtau_dqdd"), strict=True)]


class DrakeDerivatives(PinocchioDerivatives):
    """Drake's six blocks by forward-mode AutoDiffXd of the adapter's continuous plant (:mod:`crossdyn.derivatives.drake`),
    judged as Pinocchio's: autodiff in float64 is exact to round-off, the analytical tolerance.  ``engine`` sets whose
    damping applies (``drake-rk4``: the model's, as crossdyn's RK4; else Drake's reading of the file); ``spec``, a
    planar preset's, differentiates the planar adapter's plant of it (:meth:`for_planar`)."""

    name = "drake"

    def __init__(self, engine: str = "drake", spec: Any = None) -> None:
        self.engine, self.spec = engine, spec

    @classmethod
    def for_planar(cls, engine: str, spec: Any) -> DrakeDerivatives | None:
        """A planar comparison's source for ``engine`` on arm ``spec``: None unless a Drake variant offered here."""
        return cls(engine, spec) if OFFERED.get(engine, "").startswith("drake") else None

    def blocks(self, model, Q, QD, TAU, QDD):
        from crossdyn.derivatives import drake
        if self.spec is not None:
            return drake.planar(self.spec, Q, QD, TAU, QDD)
        return drake.file(model, Q, QD, TAU, QDD, "drake-rk4" if self.engine == "drake-rk4" else "drake")


TRANSITION_KEYS = (("dqnext_dq", 0, 0), ("dqnext_dqd", 0, 1), ("dqnext_dtau", 0, 2),
                   ("dqdnext_dq", 1, 0), ("dqdnext_dqd", 1, 1), ("dqdnext_dtau", 1, 2))
"""The six transition blocks: key, row block (q⁺, q̇⁺), column block (q, q̇, τ) of [A B]."""


def transition_part(G: np.ndarray, r: int, c: int) -> np.ndarray:
    """Block (r, c) of (N, 2n, 3n) [A B], n = G.shape[1] // 2."""
    n = G.shape[1] // 2
    return G[:, r * n:(r + 1) * n, c * n:(c + 1) * n]


class NewtonDerivatives:
    """Newton's ``SolverFeatherstone.step`` differentiated by ``wp.Tape`` in float32
    (:func:`crossdyn.derivatives.warp.newton_transition`): the six transition blocks against the exact Jacobians of
    semi-implicit Euler at the same float32 states, per-entry float32 tolerance
    (:func:`crossdyn.derivatives.tolerance.float32_step`); a subclass may alter :meth:`transition`."""

    name = "newton"

    def transition(self, model, Q, QD, TAU, dt):
        from crossdyn.derivatives.warp import newton_transition
        return newton_transition(model, Q, QD, TAU, dt)

    def judge(self, model, ref, dt: float) -> list[BlockCheck]:
        from crossdyn.comparison.containment import engine_code
        from crossdyn.derivatives import reference, transition
        from crossdyn.derivatives import tolerance as tol
        from crossdyn.derivatives.warp import float32_states

        with engine_code():
            got = self.transition(model, ref.q, ref.qd, ref.tau, dt)
        Q32, QD32, T32 = float32_states(ref.q, ref.qd, ref.tau)  # the states the engine holds and differentiates
        ref32 = reference.complex_step(model, Q32, QD32, T32)
        # semi-implicit Euler's chain rule evaluates the blocks at x_k only: the reference at the float32 states
        exact = transition.chain_rule(lambda *_: ref32, Q32, QD32, T32, dt, "semi-implicit-euler")
        limit = tol.float32_step(model, ref32, dt)
        G, J = np.concatenate((got.A, got.B), 2), np.concatenate((exact.A, exact.B), 2)
        method = (f"reverse mode ({got.source}) against the exact Jacobian of semi-implicit Euler at the float32 "
                  f"states; tolerance the analytical one with eps_mach = eps32 (2^-23) through the step, plus eps32 "
                  f"x the terms of each float32 sum")
        return [check_block(k, transition_part(G, r, c), transition_part(J, r, c), limit[k], method)
                for k, r, c in TRANSITION_KEYS]


SOURCES: dict[str, Any] = {"pinocchio": PinocchioDerivatives, "mujoco": MuJoCoDerivatives, "drake": DrakeDerivatives,
                           "drake-rk4": functools.partial(DrakeDerivatives, "drake-rk4"), "newton": NewtonDerivatives,
                           "mjx": MJXDerivatives, "mjx-rk4": MJXRK4Derivatives}


def derivatives_group(engine: str, model, Q, QD, TAU, dt: float, source: Any = None, rollout: bool = False):
    """The ``derivatives`` :class:`~crossdyn.comparison.result.MetricResult` of engine ``engine`` on ``model`` (the
    :class:`~crossdyn.robots.model.RobotModel` the engine loads) at the first :data:`MAX_STATES` states (Q, q̇, τ)
    (module docstring); ``source`` replaces the engine's derivative source (a test's seeded fault); ``rollout``: add
    the engine's rollout sensitivities against the reference's (``values["rollout"]``, reported, not judged:
    :func:`crossdyn.derivatives.rollout.free_fall`), as ``compare --derivatives`` does."""
    from crossdyn.comparison.result import MetricResult, judge
    from crossdyn.derivatives import reference

    Q, QD, TAU = (np.asarray(a, dtype=float)[:MAX_STATES] for a in (Q, QD, TAU))
    src = source if source is not None else (MuJoCoDerivatives("RK4") if engine == "mujoco-rk4"
                                             else SOURCES[OFFERED[engine]]())
    ref = reference.complex_step(model, Q, QD, TAU)
    blocks = src.judge(model, ref, dt)
    verdicts = [b.verdict for b in blocks]
    failed = [b for b in blocks if b.verdict is Verdict.FAIL]
    verdict = (Verdict.FAIL if failed else Verdict.INCONCLUSIVE if Verdict.INCONCLUSIVE in verdicts
               else Verdict.PASS)
    because = None
    if failed:
        because = "; ".join(_failure(engine, b) for b in failed)
    elif verdict is Verdict.INCONCLUSIVE:
        because = "; ".join(f"{LABELS[b.key]}: {b.worst['inconclusive_because']}" for b in blocks
                            if b.verdict is Verdict.INCONCLUSIVE)
    values = {"engine": engine, "states": len(Q), "reference": ref.source,
              "blocks": {b.key: b.to_dict() for b in blocks},
              "worst_ratio": _worst(blocks)}
    if rollout and source is None and len(Q):  # reported, not judged (crossdyn.derivatives.rollout)
        from crossdyn.derivatives.rollout import free_fall

        sensitivity = free_fall(model, OFFERED[engine], Q[0], dt)
        if sensitivity is not None:
            values["rollout"] = sensitivity
    return MetricResult("derivatives", judge(values, verdict, sum(b.checks for b in blocks), because))


def _worst(blocks: list[BlockCheck]) -> float | None:
    ratios = [b.max_ratio for b in blocks]
    return None if any(not np.isfinite(r) for r in ratios) else float(max(ratios))


def _failure(engine: str, b: BlockCheck) -> str:
    """``engine`` block (row, column) at state s: got vs reference (tolerance), or 'not finite'."""
    w = b.worst
    where = f"{engine} {LABELS[b.key]} entry ({w['row']}, {w['column']}) at state {w['state']}"
    if w["got"] is None or w["reference"] is None:
        return f"{where}: not finite (a NaN or infinite derivative)"
    return f"{where}: {w['got']:.6g} vs reference {w['reference']:.6g} ({b.max_ratio:.3g}x its tolerance {w['tolerance']:.3g})"


def summary_entry(n_states: int) -> dict:
    """The document's top-level ``derivatives`` (``--derivatives`` only): how many states, which engines offer
    derivatives, the reference and the tolerances' method."""
    return {"states": min(int(n_states), MAX_STATES), "max_states": MAX_STATES,
            "offered_by": sorted(OFFERED), "fd_eps": EPS,
            "reference": "complex step (h = 1e-30) of crossdyn.spatial's RNEA/ABA with armature and viscous damping",
            "method": ("Tolerances (crossdyn.derivatives.tolerance): analytical float64 K n eps_mach x the "
                       "world-frame terms each entry sums (through |M^-1|, plus cond(M) eps_mach max|block|, for the "
                       "forward blocks); finite differences 2 x truncation (measured on the "
                       "reference) + round-off / eps (C cond(M) eps_mach |f|, or the engine's evaluation error "
                       "measured at the points the quotient evaluates); automatic differentiation (MJX) the round-off "
                       "of its dtype (float32: crossdyn.engines.precision's static term, x cond(M) for the forward "
                       "and step blocks).")}
