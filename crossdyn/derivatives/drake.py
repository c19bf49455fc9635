"""Drake's derivatives by automatic differentiation: the six blocks of :class:`~crossdyn.derivatives.blocks.Derivatives`
from Drake's own dynamics on a ``MultibodyPlant<AutoDiffXd>`` (issue 41).

The plant is the one crossdyn's Drake adapter builds (:meth:`pydrake.systems.framework.System.ToAutoDiffXd` of it:
the same bodies, armature as reflected rotor inertia, gravity set to the model's, joint limits off, root welded):

* **robot files and DH presets** (:class:`~crossdyn.engines.drake.file.DrakeFileEngine`, :func:`file`): its continuous
  query plant.  Joint damping as the variant's stepping applies it: Drake's own reading of the file
  (``Joint.default_damping``, kept in the plant) for ``drake`` and ``drake-rk3`` (Drake's integrators step that plant);
  the model's b (``Joint.damping``, crossdyn's reading) for ``drake-rk4`` (crossdyn's RK4 on M⁻¹(τ − b ⊙ q̇ − bias)),
  set in the autodiff context by ``Joint.SetDampingVector``;
* **planar presets** (:class:`~crossdyn.engines.drake.planar.DrakeEngine`, :func:`planar`): its continuous query plant
  (built from the generated URDF, damping read by Drake from ``<dynamics damping>``), the plant every continuous
  variant (``drake``, ``drake-rk2`` … ``drake-implicit``) integrates.

At each state the inputs x = (q, q̇, τ) are seeded with ``InitializeAutoDiff`` (3n derivative directions, the unit
vectors) and

* q̈ = the plant's generalized-acceleration output port (Drake's articulated-body forward dynamics, force elements
  included: gravity and joint damping) with τ on the applied generalized force port (the actuation port, whose effort
  limits clamp, held at zero), so ``ExtractGradient(q̈)`` = [∂q̈/∂q  ∂q̈/∂q̇  ∂q̈/∂τ];
* τ = ``CalcInverseDynamics(q, q̇, q̈, forces)`` with ``forces`` = ``CalcForceElementsContribution`` (gravity and joint
  damping as applied forces, so τ = M q̈ + C q̇ − τ_g + b ⊙ q̇), seeded at (q, q̇, q̈) with q̈ the reference's (both sides
  differentiate at one point): ``ExtractGradient(τ)`` = [∂τ/∂q  ∂τ/∂q̇  ∂τ/∂q̈].

Forward-mode autodiff in float64 carries each derivative through the same operations as the value, so it is exact to
round-off (the analytical tolerance, :func:`crossdyn.derivatives.tolerance.analytic_terms`).  A discrete plant
(``drake-discrete``) is not differentiated here: its step solves with M + h B (damping implicit) under SAP, whose
derivatives are the step's, not the continuous ∂q̈/∂x this module's reference has.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from crossdyn.derivatives.blocks import Derivatives
from crossdyn.robots.model import RobotModel

FILE_INTEGRATORS = {"drake": "rk3-adaptive", "drake-rk3": "rk3", "drake-rk4": "rk4"}
"""The robot-file variants differentiated → their adapter's ``integrator`` (which sets whose damping applies)."""


def _seeded(*arrays: np.ndarray) -> np.ndarray:
    """The concatenated inputs as AutoDiffXd scalars with the unit vectors as derivatives (``InitializeAutoDiff``)."""
    from pydrake.autodiffutils import InitializeAutoDiff

    return InitializeAutoDiff(np.concatenate(arrays))[:, 0]  # type: ignore[arg-type]  # pydrake's stub: ndarray[float64]


def autodiff_blocks(plant: Any, damping: np.ndarray | None, Q, QD, TAU, QDD) -> tuple[np.ndarray, ...]:
    """The six blocks (N, n, n) each, in the plant's coordinate order, of the AutoDiffXd copy of the continuous
    ``plant`` at the states (N, n) in that order (module docstring); ``damping`` (n,): the joint damping set in the
    autodiff context, in the plant's velocity order (None: the plant's own)."""
    from pydrake.autodiffutils import AutoDiffXd, ExtractGradient
    from pydrake.multibody.tree import JointIndex, MultibodyForces_

    ad = plant.ToAutoDiffXd()
    ctx = ad.CreateDefaultContext()
    if ad.num_actuators():
        ad.get_actuation_input_port().FixValue(ctx, np.zeros(ad.num_actuated_dofs()))
    if damping is not None:
        for i in range(ad.num_joints()):
            joint = ad.get_joint(JointIndex(i))
            if joint.num_velocities():
                start = joint.velocity_start()
                joint.SetDampingVector(ctx, damping[start:start + joint.num_velocities()])
    applied, acc = ad.get_applied_generalized_force_input_port(), ad.get_generalized_acceleration_output_port()
    forces = MultibodyForces_[AutoDiffXd](ad)
    N, n = Q.shape
    fwd, inv = np.empty((N, n, 3 * n)), np.empty((N, n, 3 * n))
    for k in range(N):
        x = _seeded(Q[k], QD[k], TAU[k])
        ad.SetPositions(ctx, x[:n])
        ad.SetVelocities(ctx, x[n:2 * n])
        applied.FixValue(ctx, x[2 * n:])
        fwd[k] = ExtractGradient(acc.Eval(ctx))
        a = _seeded(Q[k], QD[k], QDD[k])
        ad.SetPositions(ctx, a[:n])
        ad.SetVelocities(ctx, a[n:2 * n])
        forces.SetZero()
        ad.CalcForceElementsContribution(ctx, forces)
        inv[k] = ExtractGradient(ad.CalcInverseDynamics(ctx, a[2 * n:], forces))
    return tuple(m[:, :, c * n:(c + 1) * n] for m in (fwd, inv) for c in range(3))


def _batch(*arrays) -> tuple[np.ndarray, ...]:
    return tuple(np.atleast_2d(np.asarray(a, dtype=float)) for a in arrays)


def file(model: RobotModel, Q, QD, TAU, QDD, engine: str = "drake") -> Derivatives:
    """The six blocks of Drake variant ``engine`` (a key of :data:`FILE_INTEGRATORS`) on the robot-file adapter's
    plant of ``model``, in the model's joint order; the inverse blocks at ``QDD`` (module docstring)."""
    from dataclasses import replace

    from crossdyn.engines.drake.file import DrakeFileEngine, DrakeFileOptions
    from crossdyn.engines.drake.planar import drake_version

    if engine not in FILE_INTEGRATORS:
        raise ValueError(f"engine: one of {', '.join(FILE_INTEGRATORS)}, got {engine!r}")
    eng = DrakeFileEngine(model, options=replace(DrakeFileOptions(), integrator="rk4"))  # the queries' plant only
    try:
        ours = FILE_INTEGRATORS[engine] == "rk4"
        b = eng.to_engine(np.array([[j.damping for j in model.joints]], dtype=float))[0] if ours else None
        Q, QD, TAU, QDD = (eng.to_engine(a) for a in _batch(Q, QD, TAU, QDD))
        sel = np.ix_(np.arange(len(Q)), eng._idx, eng._idx)
        blocks = [m[sel] for m in autodiff_blocks(eng.plant, b, Q, QD, TAU, QDD)]
    finally:
        eng.close()
    damping = "the model's b (crossdyn's RK4)" if ours else "Drake's reading of the file"
    return Derivatives(f"forward-mode AutoDiffXd of drake {drake_version()}'s plant of the file, damping {damping}",
                       *(eng.to_model(a) for a in (Q, QD, TAU, QDD)), *blocks)


def planar(spec: Any, Q, QD, TAU, QDD) -> Derivatives:
    """The six blocks on the planar adapter's continuous query plant of arm ``spec`` (module docstring), whose
    coordinates are the spec's joints in order; the inverse blocks at ``QDD``."""
    from crossdyn.engines.drake.planar import DrakeEngine, drake_version

    eng = DrakeEngine(spec)
    Q, QD, TAU, QDD = _batch(Q, QD, TAU, QDD)
    return Derivatives(f"forward-mode AutoDiffXd of drake {drake_version()}'s planar adapter plant (damping from its URDF)",
                       Q, QD, TAU, QDD, *autodiff_blocks(eng.qplant, None, Q, QD, TAU, QDD))
