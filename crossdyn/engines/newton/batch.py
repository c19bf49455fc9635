"""NVIDIA Newton as a batched engine (``newton`` in ``compare --batch``): one world per arm, ``SolverFeatherstone``.

Newton 1.8 batches by worlds: ``ModelBuilder.replicate(builder, N)`` (or ``add_world`` once per arm) copies
``builder``'s bodies and joints into N worlds of one scene, and ``finalize`` makes one :class:`newton.Model` whose
arrays hold every world's values (world i's bodies and joints at i n … i n + n − 1, its joint coordinates at
``joint_q[i n:(i + 1) n]``); ``SolverFeatherstone`` steps each world's articulation.  Here the spec's generated
MJCF is parsed once (``add_mjcf``) into an arm builder, replicated N times, and world i's entries of the scene
builder's lists are given arm i's values before ``finalize``: ``body_mass``, ``body_com`` (Lc, 0, 0),
``body_inertia`` diag(J, J, J) with the point-mass floor, the joint offset ``joint_X_p`` (L of the link before, 0,
0) and ``joint_damping`` — the values each arm's own MJCF compiles to (:func:`arm_values`; those
:func:`crossdyn.engines.mjx.planar.batched_fields` gives MJX and MuJoCo Warp).  ``finalize`` derives every world's
inverse masses and inertias from them; the rest poses are Newton's ``eval_fk`` at q = 0.  The model equals,
array for array, the one made of each arm's own MJCF through ``add_mjcf`` and ``add_world`` (tested; only the
unused collision capsules keep the spec's lengths), which costs ~20 ms an arm to parse; ``add_world`` in a loop
costs ~1.5 ms an arm, ``replicate`` and the list edits ~0.3 ms (3R, measured).

``SolverFeatherstone`` bakes ``body_I_m`` and ``body_X_com`` from ``body_mass``, ``body_inertia`` and ``body_com``
when it is built (measured: arrays assigned after the solver is built change nothing until
``notify_model_changed(BODY_INERTIAL_PROPERTIES)``), so the solver is built after ``finalize`` and
``Model.set_gravity``; no model array is changed after it.

Defaults that change the dynamics, as in the single-arm adapter (:mod:`crossdyn.engines.newton.planar`), listed in
the run's config and switchable back by ``run(pb, NewtonOptions(...))`` (the single-arm engine's knobs), on the command
line ``compare --batch --engines newton@newton_gravity=true`` (:data:`crossdyn.batch.engines.KNOBS`): **gravity** (Newton ignores the MJCF's ``<option gravity>``; the spec's vector is set in every
world with ``Model.set_gravity``), **inertia validation** (``finalize(skip_validation_inertia=True)``: the values
as given, not raised by ``balance_inertia``), **angular damping** (``SolverFeatherstone(angular_damping=0)``, not
Newton's 0.05), **contacts** (``contacts=None``: the collision pipeline never runs, so the arm builder's capsules,
whose lengths are the spec's and not arm i's, play no part).  Coulomb joint friction is not applied by
``SolverFeatherstone``: an arm with f_c > 0 is unsupported.

The shared torque is held over each step (``Control.joint_f``, the same τ in every world); q and q̇ are read every
``save_every`` steps.  float32 only (Newton has no float64 path); on Warp's preferred device (a CUDA GPU when
present, else the CPU).
"""
from __future__ import annotations

import time
import warnings

import numpy as np

from crossdyn.engines.batching import DEVICE, Knob

from crossdyn.errors import EngineError, EngineUnsupported
from crossdyn.models.inertia import ABSOLUTE_FLOOR, RELATIVE_FLOOR
from crossdyn.models.spec import ArmParams, ArmSpec

INTEGRATOR = "semi-implicit-euler"
"""``SolverFeatherstone``'s only integrator (as the single-arm ``newton`` engine reports it)."""


def arm_values(p: ArmParams) -> dict:
    """Per-arm values of the arm builder's fields, leading axes (N, n), as each arm's generated MJCF writes them
    (:func:`crossdyn.models.mjcf.to_mjcf`): ``body_mass`` m, ``body_com`` (Lc, 0, 0), ``body_inertia`` the diagonal
    (J, J, J) with J raised to the point-mass floor max(1e-14 m L², 2e-15) kg m²
    (:func:`crossdyn.models.inertia.inertia_floor`), ``joint_pos`` the translation of ``joint_X_p``: (0, 0, 0) for
    the first joint, (L of the link before, 0, 0) for the others, and ``joint_damping`` b."""
    L, m, Lc, J, b = (np.asarray(x, dtype=float) for x in p[:5])
    N, n = L.shape
    floor = np.maximum(RELATIVE_FLOOR * m * L**2, ABSOLUTE_FLOOR)
    Jz = np.where(J < floor, floor, J)
    com = np.zeros((N, n, 3))
    com[:, :, 0] = Lc
    pos = np.zeros((N, n, 3))
    pos[:, 1:, 0] = L[:, :-1]
    return {"body_mass": m, "body_com": com, "body_inertia": np.repeat(Jz[:, :, None], 3, axis=2),
            "joint_pos": pos, "joint_damping": b}


def arm_builder(newton, spec: ArmSpec, dt: float):
    """The spec's generated MJCF parsed into one arm builder (bodies and joints 0 … n−1 along the chain)."""
    from crossdyn.models.mjcf import to_mjcf

    b = newton.ModelBuilder()
    b.add_mjcf(to_mjcf(spec, timestep=dt))
    if b.body_count != spec.n or b.joint_count != spec.n or len(b.joint_damping) != spec.n:
        raise EngineError(f"newton batch: the MJCF of {spec.name} gave {b.body_count} bodies, {b.joint_count} joints "
                          f"and {len(b.joint_damping)} dofs; expected {spec.n} each")
    return b


def scene_builder(newton, wp, spec: ArmSpec, p: ArmParams, dt: float):
    """One world per arm: ``replicate`` of the arm builder (world i's bodies and joints at i n … i n + n − 1), then
    every world's entries of the scene's lists given arm i's values (:func:`arm_values`), before ``finalize``."""
    arm = arm_builder(newton, spec, dt)
    v = arm_values(p)
    N = v["body_mass"].shape[0]
    scene = newton.ModelBuilder()
    scene.replicate(arm, N)
    rotations = [wp.transform_get_rotation(x) for x in scene.joint_X_p]
    scene.body_mass[:] = v["body_mass"].reshape(-1).tolist()
    scene.body_com[:] = [wp.vec3(*x) for x in v["body_com"].reshape(-1, 3).tolist()]
    scene.body_inertia[:] = [wp.mat33(a, 0.0, 0.0, 0.0, b, 0.0, 0.0, 0.0, c)
                             for a, b, c in v["body_inertia"].reshape(-1, 3).tolist()]
    scene.joint_X_p[:] = [wp.transform(wp.vec3(*x), r)
                          for x, r in zip(v["joint_pos"].reshape(-1, 3).tolist(), rotations, strict=True)]
    scene.joint_damping[:] = v["joint_damping"].reshape(-1).tolist()
    return scene


def build_model(newton, wp, spec: ArmSpec, p: ArmParams, dt: float, device: str, *, validate_inertia: bool = False,
                newton_gravity: bool = False):
    """The batch's model on ``device``: :func:`scene_builder`, ``finalize`` without Newton's inertia correction
    (unless ``validate_inertia``), then the spec's gravity in every world (unless ``newton_gravity``: Newton's −9.81
    along +z).  Returns (model, the warnings ``finalize`` gave)."""
    scene = scene_builder(newton, wp, spec, p, dt)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = scene.finalize(device=device, skip_validation_inertia=not validate_inertia)
    if not newton_gravity:
        model.set_gravity([float(g) for g in spec.gravity])
    newton.eval_fk(model, model.joint_q, model.joint_qd, model)  # the bodies' rest poses from arm i's joint offsets
    return model, [str(w.message) for w in caught]


def run(pb, options=None) -> tuple:
    """``pb`` (a :class:`crossdyn.batch.engines.BatchProblem`) on Newton: (Q, QD, setup_s, run_s, config).
    ``options``: a :class:`crossdyn.engines.newton.planar.NewtonOptions` (the single-arm engine's knobs, each
    neutralised default switchable back); None: its defaults."""
    import newton  # type: ignore[import-untyped,import-not-found,unused-ignore]
    import warp as wp  # type: ignore[import-untyped,import-not-found,unused-ignore]
    from newton.solvers import SolverFeatherstone  # type: ignore[import-untyped,import-not-found,unused-ignore]

    from crossdyn.engines.newton.planar import NewtonOptions
    from crossdyn.engines.warp_common import quiet_warp, warp_device

    opt = options if options is not None else NewtonOptions()

    if np.any(np.asarray(pb.p.fc) > 0):
        raise EngineUnsupported("Coulomb joint friction: Newton's SolverFeatherstone does not apply "
                                "Model.joint_friction")
    quiet_warp(wp)
    N, n = pb.q0.shape
    device = warp_device(opt.device, "newton")
    t0 = time.perf_counter()
    with wp.ScopedDevice(device):
        model, caught = build_model(newton, wp, pb.spec, pb.p, pb.dt, device, validate_inertia=opt.validate_inertia,
                                    newton_gravity=opt.newton_gravity)
        if model.world_count != N or model.joint_coord_count != N * n or model.joint_dof_count != N * n:
            raise EngineError(f"newton batch: {model.world_count} worlds, {model.joint_coord_count} coordinates; "
                              f"expected {N} worlds of {n}")
        # after finalize and set_gravity: nothing it derives at construction is stale
        solver = SolverFeatherstone(model, angular_damping=float(opt.angular_damping))
        s0, s1, control = model.state(), model.state(), model.control()
        s0.joint_q.assign(pb.q0.reshape(-1).astype(np.float32))
        s0.joint_qd.assign(pb.qd0.reshape(-1).astype(np.float32))
        newton.eval_fk(model, s0.joint_q, s0.joint_qd, s0)
        setup = time.perf_counter() - t0
        Q, QD = [pb.q0.copy()], [pb.qd0.copy()]
        t0 = time.perf_counter()
        for k in range(len(pb.tau)):
            control.joint_f.assign(np.tile(pb.tau[k], N).astype(np.float32))
            solver.step(s0, s1, control, None, pb.dt)  # type: ignore[arg-type]
            s0, s1 = s1, s0
            if (k + 1) % pb.save_every == 0:
                Q.append(s0.joint_q.numpy().reshape(N, n).astype(float))
                QD.append(s0.joint_qd.numpy().reshape(N, n).astype(float))
        wp.synchronize()
        run_s = time.perf_counter() - t0
    return np.stack(Q, axis=1), np.stack(QD, axis=1), setup, run_s, _config(newton, wp, model, solver, caught, opt)


def _config(newton, wp, model, solver, caught: list, opt) -> dict:
    """What the run used, every neutralised default with Newton's own value beside it."""
    from dataclasses import asdict

    from crossdyn.engines.newton.planar import NEWTON_ANGULAR_DAMPING

    return {
        "dtype": "float32", "device": str(model.device), "newton_version": newton.__version__,
        "warp_version": wp.__version__, "solver": "SolverFeatherstone", "worlds": int(model.world_count),
        "model_source": "generated MJCF -> ModelBuilder.add_mjcf (one arm builder) -> ModelBuilder.replicate (one "
                        "world per arm) -> world i's body_mass, body_com, body_inertia, joint_X_p, joint_damping "
                        "set to arm i's -> finalize -> eval_fk (rest poses)",
        "batched_fields": ["body_mass", "body_com", "body_inertia", "joint_X_p", "joint_damping"],
        "gravity": [float(x) for x in model.gravity.numpy()[0]],
        "options": asdict(opt),
        "gravity_source": ("Newton's builder default (-9.81 along +z; the MJCF's gravity ignored)" if opt.newton_gravity
                           else "the spec's, set in every world by Model.set_gravity (Newton's builder default: "
                                "-9.81 along +z, the MJCF's <option gravity> not applied)"),
        "angular_damping": float(solver.angular_damping), "angular_damping_default": NEWTON_ANGULAR_DAMPING,
        "angular_damping_note": "stored by SolverFeatherstone but not applied to articulated joints in Newton 1.8 "
                                "(the single-arm newton engine's measurement)",
        "inertia_validation": ("Newton's finalize validation and correction (balance_inertia, eigenvalue floor, "
                               "+1e-6 shift)" if opt.validate_inertia else
                               "skipped (finalize(skip_validation_inertia=True)): the arms' inertias as they are "
                               "(Newton's default: balance_inertia, eigenvalue floor, +1e-6 shift)"),
        "finalize_warnings": list(caught),
        "solver_built": "after finalize and set_gravity (SolverFeatherstone bakes body_I_m, body_X_com from "
                        "body_mass, body_inertia, body_com when built); no model array changed afterwards",
        "update_mass_matrix_interval": int(solver.update_mass_matrix_interval),
        "torque_input": "Control.joint_f (generalized joint force), the same in every world",
        "torque_sampling": "zero-order hold",
        "contacts": "none: solver.step(..., contacts=None), Newton's collision pipeline not run",
        "joint_friction": "not supported by SolverFeatherstone (a batch with f_c > 0 is skipped)",
        "run_s_includes": "host writes of the torque and reads of the saved states",
    }


OPTIONS = "crossdyn.engines.newton.planar:NewtonOptions"
KNOBS = (Knob("angular_damping", "number", 0.05, "SolverFeatherstone's angular damping (not applied to articulated "
              "joints in Newton 1.8)", minimum=0.0),
         Knob("newton_gravity", "bool", True, "Newton's builder gravity, -9.81 along +z (the MJCF's ignored)"),
         Knob("validate_inertia", "bool", True, "finalize's validation and correction of the inertias"),
         DEVICE)


def batched(engine, pb, opt) -> tuple:
    """The batched-runner entry (:mod:`crossdyn.engines.batching`): :func:`run` (semi-implicit Euler, Newton's
    only scheme here); what Featherstone cannot represent raises EngineUnsupported (the run is skipped)."""
    return run(pb, opt)
