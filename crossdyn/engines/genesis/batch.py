"""Genesis as a batched engine (``genesis`` in ``compare --batch``): one entity per arm, all in one scene.

Genesis's own batch (``scene.build(n_envs=N)``) copies ONE model into N environments: per-environment mass, centre
of mass and inertia exist (``RigidOptions.batch_links_info``, ``set_links_mass(..., envs_idx)``), but a link's
frame offset in its parent — the arm's link length — has no per-environment setter, so N arms of different
lengths cannot be N environments.  They are N entities instead: arm i's own generated MJCF
(:func:`crossdyn.models.spec.arm_spec`) added to one scene with collisions off (the adapter's settings,
:func:`crossdyn.engines.genesis.planar.genesis_settings`: Euler, joint limits off, the file's armature, not
Genesis's 0.1), so that one ``scene.step()`` advances every arm in one rigid-solver call.  The torque is held over
each step (``rigid_solver.control_dofs_force`` on every dof at once); q and q̇ are read every ``save_every`` steps.

float32 by default, as ``gs.init`` runs once per process (a process initialised at precision 64 runs it at float64
and says so in ``config``).  Joint damping is integrated implicitly by Genesis's Euler (no switch; the arms of
``compare --batch`` keep the spec's damping, 0 on planar2r/planar3r): with damping b the run follows MuJoCo's Euler
with ``eulerdamp`` on, O(dt·b) from crossdyn's semi-implicit Euler.
"""
from __future__ import annotations

import time

import numpy as np

from crossdyn.engines.batching import Knob

INTEGRATORS = {"semi-implicit-euler": "Euler"}


def _scene(gs, pb, integrator: str, knobs):
    """The scene with one entity per arm, built; the global dof indices (N, n) of the arms' joints."""
    from dataclasses import replace

    from crossdyn.models.spec import arm_spec
    from crossdyn.engines.genesis.planar import GenesisOptions, add_arm, genesis_settings, init_genesis, new_scene

    N, n = pb.q0.shape
    options = replace(knobs or GenesisOptions(), integrator=INTEGRATORS[integrator])
    specs = [arm_spec(pb.spec, pb.p, i) for i in range(N)]
    settings = genesis_settings(specs[0], pb.dt, options)
    init_genesis(gs, dict(settings, init=dict(settings["init"], precision=_precision(gs))), "genesis batch")
    scene = new_scene(gs, settings)
    entities = [add_arm(gs, scene, s, pb.dt, settings) for s in specs]
    scene.build()
    dofs = np.array([[e.get_joint(f"joint{j}").dofs_idx[0] for j in range(1, n + 1)] for e in entities])
    return scene, dofs, settings


def _precision(gs) -> str:
    """The precision this process's Genesis runs at ("32" unless ``gs.init`` ran at 64 already)."""
    if getattr(gs, "_initialized", False) and np.dtype(getattr(gs, "np_float", np.float32)) == np.float64:
        return "64"
    return "32"


def run(integrator: str, pb, options=None) -> tuple:
    """``pb`` (a :class:`crossdyn.batch.engines.BatchProblem`) on Genesis: (Q, QD, setup_s, run_s, config).
    ``options``: a :class:`~crossdyn.engines.genesis.planar.GenesisOptions` (``genesis@armature_default=true`` keeps
    Genesis's 0.1 kg m² on every joint); its integrator is the batched engine's."""
    import genesis as gs  # type: ignore[import-untyped,import-not-found,unused-ignore]

    from crossdyn.errors import EngineUnsupported
    from crossdyn.models.spec import armature_of

    if np.any(np.asarray(pb.p.b) > 0):
        raise EngineUnsupported("joint damping: Genesis's Euler integrates it implicitly (no switch to make it "
                                "explicit); the batch's reference, semi-implicit Euler, integrates it explicitly")
    g = np.asarray(pb.p.gravity, dtype=float)
    if g.ndim == 2 and not np.allclose(g, g[:1]):
        raise ValueError("genesis batch: one gravity per scene; these arms have several (gravity (N, 2))")
    t0 = time.perf_counter()
    N, n = pb.q0.shape
    scene, dofs, settings = _scene(gs, pb, integrator, options)
    solver, idx = scene.sim.rigid_solver, dofs.reshape(-1)
    Ia = armature_of(pb.p)
    keep_default = bool(getattr(options, "armature_default", False))
    if not keep_default:
        solver.set_dofs_armature(np.zeros(N * n) if Ia is None else np.broadcast_to(Ia, (N, n)).reshape(-1), idx)
    solver.set_dofs_position(pb.q0.reshape(-1), idx)
    solver.set_dofs_velocity(pb.qd0.reshape(-1), idx)
    setup = time.perf_counter() - t0

    def read(get) -> np.ndarray:
        return np.asarray(get(idx).cpu().numpy(), dtype=float).reshape(N, n)

    Q, QD = [pb.q0.copy()], [pb.qd0.copy()]
    t0 = time.perf_counter()
    for k in range(len(pb.tau)):
        solver.control_dofs_force(np.tile(pb.tau[k], N), idx)
        scene.step()
        if (k + 1) % pb.save_every == 0:
            Q.append(read(solver.get_dofs_position))
            QD.append(read(solver.get_dofs_velocity))
    run_s = time.perf_counter() - t0
    dtype = "float64" if _precision(gs) == "64" else "float32"
    cfg = {"dtype": dtype, "genesis_version": getattr(gs, "__version__", "unknown"), "device": "cpu",
           "layout": f"{N} entities (one per arm, its own MJCF) in one scene, collisions off",
           "rigid_options": settings["rigid"], "armature": ("Genesis's default 0.1 kg m^2 on every joint (armature_default=true)" if keep_default
                        else "the arms' own (Genesis's default 0.1 neutralised)"),
           "joint_damping": "implicit (Genesis's Euler)", "run_s_includes": "host reads of the saved states"}
    return np.stack(Q, axis=1), np.stack(QD, axis=1), setup, run_s, cfg


OPTIONS = "crossdyn.engines.genesis.planar:GenesisOptions"
KNOBS = (Knob("armature_default", "bool", True, "gs.morphs.MJCF's default_armature: 0.1 kg m² on every joint"),)


def batched(engine, pb, opt) -> tuple:
    """The batched-runner entry (:mod:`crossdyn.engines.batching`): :func:`run` with the name's integrator; what
    Genesis cannot do as the reference does raises EngineUnsupported (the run is skipped)."""
    return run(engine.integrator, pb, opt)
