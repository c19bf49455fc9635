"""crossdyn benchmarks (`make bench`): ratios measured side by side in one run.

Prints a table and writes benchmarks/results.json.  Timings are medians of
repeated blocks, with the adapter loop and the raw loop of each engine
*alternated* block by block so that machine load affects both alike.

    python benchmarks/run.py [--quick]
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from crossdyn import analytic  # noqa: E402
from crossdyn.analytic.integrators import simulate  # noqa: E402
from crossdyn.engines import make_engine  # noqa: E402
from crossdyn.models import get_preset  # noqa: E402

ARM = "planar3r"
Q0 = np.array([-1.3, 0.2, -0.1])
TAU = np.array([0.5, -0.2, 0.1])


def alternate_blocks(loops: dict, steps: int, blocks: int) -> dict:
    """µs per step of each loop in every block, the loops alternated block by block."""
    times: dict = {k: [] for k in loops}
    for _ in range(blocks):
        for name, fn in loops.items():
            t = time.perf_counter()
            fn(steps)
            times[name].append((time.perf_counter() - t) / steps * 1e6)
    return times


def alternate(loops: dict, steps: int, blocks: int) -> dict:
    """Median µs per step of each loop, measured in alternating blocks."""
    return {k: statistics.median(v) for k, v in alternate_blocks(loops, steps, blocks).items()}


def ratio_of(a: str, b: str, loops: dict, steps: int, blocks: int) -> dict:
    """a/b side by side: the median of the per-block ratios (a's block and b's next to it), its spread (min,
    max over the blocks) and each loop's median µs per step."""
    alternate_blocks(loops, min(steps, 100), 1)  # one untimed warm-up block each (numba's cache load, first calls)
    times = alternate_blocks(loops, steps, blocks)
    ratios = [x / y for x, y in zip(times[a], times[b], strict=True)]
    return {"ratio": statistics.median(ratios), "spread": [min(ratios), max(ratios)],
            a: statistics.median(times[a]), b: statistics.median(times[b])}


def cpu_name() -> str:
    """The CPU's model name, its core count and the load average now (named beside every figure)."""
    name = platform.processor() or "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            name = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), name)
    except OSError:
        pass
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return f"{name}, {os.cpu_count()} cores, load {load:.1f}"


def wall_runs(argv: list[str], runs: int = 3) -> dict:
    """A crossdyn command run ``runs`` times in fresh processes: median wall seconds, the spread (min, max) and
    the peak RSS (MiB, the largest)."""
    walls, peaks = zip(*(wall_and_memory(argv) for _ in range(runs)), strict=True)
    return {"median_s": statistics.median(walls), "spread_s": [min(walls), max(walls)], "peak_mib": max(peaks),
            "runs": runs, "cpu": cpu_name()}


# ------------------------------------------------------------------ adapter vs raw loops
def adapter_loop(engine):
    tau = TAU.copy()

    def run(steps):
        engine.reset(Q0, np.zeros(3))
        step, state = engine.step, engine.state
        for _ in range(steps):
            step(tau)
            state()
    return run


def raw_mujoco(integrator: str):
    import mujoco

    from crossdyn.models import to_mjcf

    m = mujoco.MjModel.from_xml_string(to_mjcf(get_preset(ARM), timestep=1e-3, integrator=integrator))
    d = mujoco.MjData(m)
    tau = TAU.copy()

    def run(steps):
        d.qpos[:], d.qvel[:] = Q0, 0.0
        mj_step = mujoco.mj_step
        for _ in range(steps):
            d.ctrl[:] = tau
            mj_step(m, d)
            d.qpos.copy()
            d.qvel.copy()
    return run


def raw_pybullet():
    import pybullet as p

    from crossdyn.models import to_urdf

    cid = p.connect(p.DIRECT)
    with tempfile.NamedTemporaryFile("w", suffix=".urdf", delete=False) as fh:
        fh.write(to_urdf(get_preset(ARM)))
    body = p.loadURDF(fh.name, useFixedBase=True, flags=p.URDF_USE_INERTIA_FROM_FILE, physicsClientId=cid)
    os.unlink(fh.name)
    joints = [1, 2, 3]  # PyBullet joint 0 is the URDF's fixed world_to_base
    p.setGravity(0, -9.81, 0, physicsClientId=cid)
    p.setTimeStep(1e-3, physicsClientId=cid)
    for j in [-1] + joints:
        p.changeDynamics(body, j, linearDamping=0, angularDamping=0, maxJointVelocity=1e4, physicsClientId=cid)
    p.setJointMotorControlArray(body, joints, p.VELOCITY_CONTROL, forces=[0.0] * 3, physicsClientId=cid)
    tau = TAU.tolist()

    def run(steps):
        for j, q in zip(joints, Q0):
            p.resetJointState(body, j, float(q), 0.0, physicsClientId=cid)
        for _ in range(steps):
            p.setJointMotorControlArray(body, joints, p.TORQUE_CONTROL, forces=tau, physicsClientId=cid)
            p.stepSimulation(physicsClientId=cid)
            s = p.getJointStates(body, joints, physicsClientId=cid)
            np.array([x[0] for x in s]), np.array([x[1] for x in s])
    return run


def raw_pinocchio():
    import pinocchio as pin

    from crossdyn.models import to_urdf

    model = pin.buildModelFromXML(to_urdf(get_preset(ARM)))
    model.gravity.linear = np.array([0.0, -9.81, 0.0])
    data = model.createData()
    tau = TAU.copy()
    dt = 1e-3

    def run(steps):
        q, v = Q0.copy(), np.zeros(3)
        aba = pin.aba
        for _ in range(steps):
            a1 = aba(model, data, q, v, tau).copy()
            v2 = v + 0.5 * dt * a1
            a2 = aba(model, data, q + 0.5 * dt * v, v2, tau).copy()
            v3 = v + 0.5 * dt * a2
            a3 = aba(model, data, q + 0.5 * dt * v2, v3, tau).copy()
            v4 = v + dt * a3
            a4 = aba(model, data, q + dt * v3, v4, tau).copy()
            q = q + dt / 6 * (v + 2 * v2 + 2 * v3 + v4)
            v = v + dt / 6 * (a1 + 2 * a2 + 2 * a3 + a4)
            q.copy(), v.copy()
    return run


def raw_dart():
    """dartpy directly: the generated URDF through DartLoader (fixed root, collision aspects removed as in the
    adapter — with them World.step is ~30 % slower), forces set, World.step, state read."""
    import dartpy as dart

    from crossdyn.engines.dart.planar import load_skeleton
    from crossdyn.models import to_urdf

    skel = load_skeleton(to_urdf(get_preset(ARM)))
    for k in range(skel.getNumShapeNodes()):
        if skel.getShapeNode(k).hasCollisionAspect():
            skel.getShapeNode(k).removeCollisionAspect()
    world = dart.simulation.World()
    world.setTimeStep(1e-3)
    world.setGravity(np.array([0.0, -9.81, 0.0]))
    world.addSkeleton(skel)
    tau = TAU.copy()

    def run(steps):
        skel.setPositions(Q0)
        skel.setVelocities(np.zeros(3))
        set_forces, step = skel.setForces, world.step
        for _ in range(steps):
            set_forces(tau)
            step()
            skel.getPositions(), skel.getVelocities()
    return run


def raw_dart_rk4():
    """DART's computeForwardDynamics inside a hand-written RK4 (what ``dart-rk4`` does)."""
    from crossdyn.engines.dart.planar import load_skeleton
    from crossdyn.models import to_urdf

    skel = load_skeleton(to_urdf(get_preset(ARM)))
    skel.setGravity(np.array([0.0, -9.81, 0.0]))
    tau = TAU.copy()
    dt = 1e-3

    def aba(q, v):
        skel.setPositions(q)
        skel.setVelocities(v)
        skel.setForces(tau)
        skel.computeForwardDynamics()
        return skel.getAccelerations()

    def run(steps):
        q, v = Q0.copy(), np.zeros(3)
        for _ in range(steps):
            a1 = aba(q, v)
            v2 = v + 0.5 * dt * a1
            a2 = aba(q + 0.5 * dt * v, v2)
            v3 = v + 0.5 * dt * a2
            a3 = aba(q + 0.5 * dt * v2, v3)
            v4 = v + dt * a3
            a4 = aba(q + dt * v3, v4)
            q = q + dt / 6 * (v + 2 * v2 + 2 * v3 + v4)
            v = v + dt / 6 * (a1 + 2 * a2 + 2 * a3 + a4)
            q.copy(), v.copy()
    return run


def raw_drake(name: str):
    """A plain pydrake loop: the generated URDF in AddMultibodyPlantSceneGraph, actuators, Simulator.AdvanceTo.

    ``drake-discrete``: a discrete plant (time_step = 1 ms); ``drake-rk3``: continuous, RK3 at a fixed 1 ms
    step; ``drake``: continuous, error-controlled RK3 at accuracy 1e-10, steps of at most 1 ms."""
    from pydrake.multibody.parsing import Parser
    from pydrake.multibody.plant import AddMultibodyPlantSceneGraph
    from pydrake.systems.analysis import ResetIntegratorFromFlags, Simulator
    from pydrake.systems.framework import DiagramBuilder

    from crossdyn.models import to_urdf

    dt = 1e-3
    builder = DiagramBuilder()
    plant, _ = AddMultibodyPlantSceneGraph(builder, dt if name == "drake-discrete" else 0.0)
    Parser(plant).AddModelsFromString(to_urdf(get_preset(ARM)), "urdf")
    for i in (1, 2, 3):
        plant.AddJointActuator(f"tau{i}", plant.GetJointByName(f"joint{i}"))
    plant.Finalize()
    plant.mutable_gravity_field().set_gravity_vector([0.0, -9.81, 0.0])
    sim = Simulator(builder.Build())
    root = sim.get_mutable_context()
    ctx = plant.GetMyMutableContextFromRoot(root)
    u = plant.get_actuation_input_port().FixValue(ctx, np.zeros(3))
    integ = None if name == "drake-discrete" else ResetIntegratorFromFlags(sim, "runge_kutta3", dt)
    tau = TAU.copy()

    def run(steps):
        root.SetTime(0.0)
        plant.SetPositions(ctx, Q0)
        plant.SetVelocities(ctx, np.zeros(3))
        if integ is not None:
            integ.Reset()
            integ.set_maximum_step_size(dt)
            if name == "drake":
                integ.set_target_accuracy(1e-10)
            else:
                integ.set_fixed_step_mode(True)
        sim.Initialize()
        for k in range(1, steps + 1):
            u.GetMutableData().set_value(tau)
            sim.AdvanceTo(k * dt)
            plant.GetPositions(ctx), plant.GetVelocities(ctx)
    return run


def speed_accuracy(names, dts=(4e-3, 2e-3, 1e-3, 5e-4), duration: float = 1.0) -> dict:
    """Error against the analytic DOP853 reference after ``duration`` of a sine drive, and compute time per
    simulated second, of each engine at each dt (the points of the speed–accuracy plot)."""
    from crossdyn.inputs.profiles import make_profile
    from crossdyn.drive.runner import run_engine

    spec = get_preset(ARM)
    profile = make_profile("sine", spec, amplitude=[3.0, 1.0, 0.3], frequency=1.5, phase=[0.0, 1.0, 2.0])
    out: dict = {}
    for dt in dts:
        with make_engine("analytic-reference", spec, dt) as ref_engine:
            ref = run_engine(ref_engine, profile, Q0, np.zeros(3), duration).q
        for name in names:
            with make_engine(name, spec, dt) as engine:
                t = time.perf_counter()
                run = run_engine(engine, profile, Q0, np.zeros(3), duration)
                wall = time.perf_counter() - t
            err = float(np.max(np.abs(run.q - ref))) if run.status == "ok" else None
            out.setdefault(name, []).append({"dt_s": dt, "max_abs_error_rad": err, "compute_s_per_sim_s": wall / duration})
    return out


def plot_speed_accuracy(points: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 5.5))
    markers = "os^vD<>phX*P"
    for i, (name, pts) in enumerate(points.items()):
        pts = [p for p in pts if p["max_abs_error_rad"]]
        x = [p["compute_s_per_sim_s"] for p in pts]
        y = [max(p["max_abs_error_rad"], 1e-16) for p in pts]
        ax.loglog(x, y, marker=markers[i % len(markers)], ls="-" if i < 10 else "--", label=name)
        for p, xx, yy in zip(pts, x, y):
            ax.annotate(f"{p['dt_s'] * 1e3:g} ms", (xx, yy), fontsize=6, xytext=(3, 2), textcoords="offset points")
    ax.set_xlabel("compute time per simulated second [s]")
    ax.set_ylabel("max |q - q_ref| after 1 s [rad]")
    ax.set_title(f"speed-accuracy, {ARM}, sine drive (labels: dt)")
    ax.grid(True, which="both", lw=0.3)
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.0, 0.5))
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def raw_analytic():
    """The step the adapter wraps, called directly: the numba kernel on one (q, q̇) array where numba is
    installed (crossdyn.analytic.compiled), else the generated float-only RK4 on tuples."""
    from crossdyn.analytic import compiled
    from crossdyn.analytic.codegen import compile_model

    if compiled.AVAILABLE:
        kernel, P, W = compiled.STEPS["rk4"], compiled.pack(get_preset(ARM)), compiled.workspace(3)
        tau_a = TAU.copy()

        def run_compiled(steps):
            x = np.concatenate([Q0, np.zeros(3)])
            for _ in range(steps):
                kernel(x, P, 3, 1e-3, W, tau_a)
                x[:3].copy(), x[3:].copy()
        return run_compiled
    rk4 = compile_model(get_preset(ARM)).rk4
    tau = TAU.tolist()

    def run(steps):
        q, v = tuple(Q0.tolist()), (0.0, 0.0, 0.0)
        for _ in range(steps):
            q, v = rk4(q, v, tau, 1e-3)
            np.array(q), np.array(v)
    return run


# ------------------------------------------------------------------ batched analytic vs rollout
def batched_vs_rollout(N: int, nstep: int, blocks: int) -> dict:
    import mujoco
    from mujoco import rollout

    from crossdyn.models import to_mjcf

    spec = get_preset(ARM)
    rng = np.random.default_rng(0)
    q0 = Q0 + 0.1 * rng.standard_normal((N, 3))
    m = mujoco.MjModel.from_xml_string(to_mjcf(spec, timestep=1e-3, integrator="RK4"))
    datas = [mujoco.MjData(m) for _ in range(2)]
    spec_full = mujoco.mjtState.mjSTATE_FULLPHYSICS
    nstate = mujoco.mj_stateSize(m, spec_full)
    init = np.zeros((N, nstate))
    d = datas[0]
    for i in range(N):
        d.qpos[:], d.qvel[:] = q0[i], 0.0
        mujoco.mj_getState(m, d, init[i], spec_full)
    control = np.tile(TAU, (N, nstep, 1))
    tau = np.broadcast_to(TAU, (N, 3))

    def run_rollout(_):
        rollout.rollout(m, datas, init, control, persistent_pool=True)

    def run_batched(_):
        simulate(spec, q0, np.zeros((N, 3)), torque=lambda t, q, qd: tau, dt=1e-3, duration=nstep * 1e-3,
                 method="rk4")

    r = ratio_of("batched", "rollout", {"rollout": run_rollout, "batched": run_batched}, 1, blocks)
    return {**r, "batched": r["batched"] / (N * nstep), "rollout": r["rollout"] / (N * nstep)}  # per traj-step


def states_per_s(name: str, fn: str, N: int = 100_000, reps: int = 10) -> float:
    spec = get_preset(name)
    p = spec.params()
    rng = np.random.default_rng(1)
    a, b, c = (rng.uniform(-3, 3, (N, spec.n)) for _ in range(3))
    f = getattr(analytic, fn)
    f(p, a, b, c)
    best = []
    for _ in range(reps):
        t = time.perf_counter()
        f(p, a, b, c)
        best.append(time.perf_counter() - t)
    return N / statistics.median(best)


def closed_loop_overhead(engines, label: str, plain_spec, law_spec, steps: int, blocks: int, attach=None) -> dict:
    """µs per step of the runner's closed-loop path (pd-gravity towards (−1, 0.3, 0) from Q0) per engine, built
    from ``law_spec`` (then ``attach(engine)``) against ``plain_spec``, measured side by side in alternating
    blocks: ``{engine: {plain_us_per_step, <label>_us_per_step, ratio}}``."""
    from crossdyn.inputs.profiles import make_profile
    from crossdyn.drive.runner import run_engine

    out = {}
    for name in engines:
        runs = {}
        for key, arm in (("plain", plain_spec), (label, law_spec)):
            eng = make_engine(name, arm, 1e-3)
            if key == label and attach is not None:
                attach(eng)
            prof = make_profile("pd-gravity", arm, target=[-1.0, 0.3, 0.0])
            runs[key] = (lambda e, p: lambda n: run_engine(e, p, Q0, np.zeros(3), n * 1e-3))(eng, prof)
        us = alternate(runs, steps, blocks)
        out[name] = {"plain_us_per_step": us["plain"], f"{label}_us_per_step": us[label],
                     "ratio": us[label] / us["plain"]}
    return out


def effort_overhead(steps: int, blocks: int, engines=("analytic", "pybullet", "mujoco", "pinocchio")) -> dict:
    """The closed-loop path (the torque saturated every step) on planar3r with effort limits (never reached,
    1e3 N m) against the same arm without: the applied-mode cost."""
    spec = get_preset(ARM)
    return closed_loop_overhead(engines, "effort", spec, spec.with_links(effort=1e3), steps, blocks)


def friction_overhead(steps: int, blocks: int, engines=("analytic", "pybullet", "mujoco", "pinocchio")) -> dict:
    """The closed-loop path on planar3r with the applied regularised Coulomb law (f_c = 0.2 N m per joint, the
    engine built with f_c = 0, −f_c tanh(q̇/v_s) added every step) against the same arm without friction: the
    applied-mode cost (issue 12 asks ≤ 1.3×)."""
    from crossdyn.analytic.laws.friction import FrictionLaw

    spec = get_preset(ARM)
    law = FrictionLaw.of(spec.with_links(friction=0.2), 1e-3)
    return closed_loop_overhead(engines, "friction", spec, spec, steps, blocks,
                                attach=lambda eng: setattr(eng, "applied_friction", law))


def limit_overhead(steps: int, blocks: int, engines=("analytic", "pybullet", "mujoco", "pinocchio", "dart",
                                                     "drake-discrete")) -> dict:
    """The closed-loop path on planar3r with the applied compliant limit law (limits ±3 rad, k = 50 N m/rad,
    c = 0.5 N m s/rad on every joint: evaluated every step, never reached, so both runs follow the same motion)
    against the same arm without: the applied-mode cost of the limit law (issue 12 asks ≤ 1.3×).  MuJoCo and
    Drake take the law's torque through ``step_applied``."""
    installed = [e for e in engines if not (e.startswith("dart") and importlib.util.find_spec("dartpy") is None)
                 and not (e.startswith("drake") and importlib.util.find_spec("pydrake") is None)]
    spec = get_preset(ARM)
    limited = spec.with_links(limits=(-3.0, 3.0), limit_stiffness=50.0, limit_damping=0.5)
    return closed_loop_overhead(installed, "limits", spec, limited, steps, blocks)


def wall_and_memory(argv: list[str]) -> tuple[float, float]:
    """Wall time (s) and peak RSS (MiB) of a crossdyn command in a fresh process."""
    exe = str(Path(sys.executable).with_name("crossdyn"))
    code = ("import resource, subprocess, sys, time; t = time.perf_counter();"
            f"r = subprocess.run({[exe] + argv!r}, stdout=subprocess.DEVNULL);"
            "w = time.perf_counter() - t;"
            "print(w, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    return float(out[0]), float(out[1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true", help="fewer repetitions (for a smoke run)")
    args = ap.parse_args()
    steps, blocks = (500, 3) if args.quick else (3000, 7)
    spec = get_preset(ARM)
    results: dict = {"arm": ARM, "dt": 1e-3, "steps_per_block": steps, "blocks": blocks}

    pairs = {
        "analytic": (make_engine("analytic", spec, 1e-3), raw_analytic()),
        "pybullet": (make_engine("pybullet", spec, 1e-3), raw_pybullet()),
        "mujoco": (make_engine("mujoco", spec, 1e-3), raw_mujoco("Euler")),
        "mujoco-rk4": (make_engine("mujoco-rk4", spec, 1e-3), raw_mujoco("RK4")),
        "pinocchio": (make_engine("pinocchio", spec, 1e-3), raw_pinocchio()),
    }
    try:  # DART: the `engines` extra
        pairs["dart"] = (make_engine("dart", spec, 1e-3), raw_dart())
        pairs["dart-rk4"] = (make_engine("dart-rk4", spec, 1e-3), raw_dart_rk4())
    except ImportError:
        print("dartpy not installed: DART not benchmarked (pip install -e '.[engines]')")
    if importlib.util.find_spec("pydrake") is not None:
        for name in ("drake-discrete", "drake-rk3", "drake"):
            pairs[name] = (make_engine(name, spec, 1e-3), raw_drake(name))
    results["cpu"] = cpu_name()
    per_engine = {}
    for name, (engine, raw) in pairs.items():
        # Drake's error-controlled RK3 at accuracy 1e-10 takes ~12 substeps per ms: a tenth of the steps
        r = ratio_of("adapter", "raw", {"adapter": adapter_loop(engine), "raw": raw},
                     steps // 10 if name == "drake" else steps, blocks)
        per_engine[name] = {"adapter_us_per_step": r["adapter"], "raw_us_per_step": r["raw"],
                            "ratio": r["ratio"], "spread": r["spread"]}
    results["engines"] = per_engine
    results["adapter_overhead"] = {k: v["ratio"] for k, v in per_engine.items()}
    mj = ratio_of("analytic", "mujoco_rk4", {"analytic": adapter_loop(pairs["analytic"][0]),
                                             "mujoco_rk4": raw_mujoco("RK4")}, steps, blocks)
    results["analytic_rk4_us_per_step"] = mj["analytic"]
    results["mujoco_rk4_us_per_step"] = mj["mujoco_rk4"]
    results["analytic_rk4_vs_mujoco_rk4"] = mj["ratio"]
    results["analytic_rk4_vs_mujoco_rk4_spread"] = mj["spread"]
    results["analytic_compiled_numba"] = pairs["analytic"][0].config()["compiled_numba"]

    results["effort_applied_overhead"] = effort_overhead(steps, blocks)
    results["friction_applied_overhead"] = friction_overhead(steps, blocks)
    results["limit_applied_overhead"] = limit_overhead(steps, blocks)

    b = batched_vs_rollout(N=1000, nstep=100 if args.quick else 300, blocks=3 if args.quick else 5)
    results["batched_rk4_us_per_traj_step"] = b["batched"]
    results["rollout_rk4_us_per_traj_step"] = b["rollout"]
    results["batched_rk4_vs_rollout"] = b["ratio"]
    results["batched_rk4_vs_rollout_spread"] = b["spread"]
    results["batched_id_states_per_s"] = {a: states_per_s(a, "inverse_dynamics") for a in ("planar2r", "planar3r")}
    results["batched_fd_states_per_s"] = {a: states_per_s(a, "forward_dynamics") for a in ("planar2r", "planar3r")}

    sa_engines = ["analytic-euler", "analytic", "mujoco", "mujoco-rk4", "mujoco-implicit"]
    if importlib.util.find_spec("dartpy") is not None:
        sa_engines += ["dart", "dart-rk4"]
    if importlib.util.find_spec("pydrake") is not None:
        sa_engines += ["drake", "drake-rk2", "drake-rk3", "drake-rk5", "drake-implicit", "drake-discrete"]
    results["speed_accuracy"] = speed_accuracy(sa_engines, dts=(4e-3, 2e-3, 1e-3) if args.quick else
                                               (4e-3, 2e-3, 1e-3, 5e-4))
    plot_speed_accuracy(results["speed_accuracy"], HERE / "speed_accuracy.png")

    with tempfile.TemporaryDirectory() as tmp:
        results["help_wall_s"] = min(wall_and_memory(["--help"])[0] for _ in range(3))
        n_runs = 1 if args.quick else 3  # the protocol: the median of 3 runs, each in a fresh process
        results["compare_planar3r"] = wall_runs(["compare", "planar3r", "--quiet", "--out", tmp + "/c"], n_runs)
        results["demo"] = wall_runs(["demo", "--quiet", "--out", tmp + "/d"], n_runs)
        results["compare_planar3r_wall_s"] = results["compare_planar3r"]["median_s"]
        results["compare_planar3r_peak_mib"] = results["compare_planar3r"]["peak_mib"]
        results["demo_wall_s"], results["demo_peak_mib"] = results["demo"]["median_s"], results["demo"]["peak_mib"]

    for name in pairs:
        pairs[name][0].close()
    from check_matlab import matlab_vs_python  # noqa: E402  (benchmarks/check_matlab.py)

    results["check_matlab_vs_python"] = matlab_vs_python()
    from check_spatial import check_times  # noqa: E402  (benchmarks/check_spatial.py, issue 27)

    results["check_spatial"] = check_times()
    from check_spatial import every_entry_wrong_6dof  # noqa: E402  (issue 39: term naming's budget)

    results["check_6dof_every_entry_wrong"] = every_entry_wrong_6dof()
    (HERE / "results.json").write_text(json.dumps(results, indent=2) + "\n")

    cpu = results["cpu"]
    print(f"crossdyn benchmarks ({ARM}, dt = 1 ms; medians of {blocks} alternating blocks of {steps} steps; "
          f"ratio: median of the per-block ratios [min - max])  CPU: {cpu}")
    print(f"{'engine':14s} {'adapter us/step':>16s} {'raw us/step':>12s} {'ratio':>6s}  spread")
    for name, v in per_engine.items():
        print(f"{name:14s} {v['adapter_us_per_step']:16.2f} {v['raw_us_per_step']:12.2f} {v['ratio']:6.2f}  "
              f"[{v['spread'][0]:.2f} - {v['spread'][1]:.2f}]")
    lo, hi = results["analytic_rk4_vs_mujoco_rk4_spread"]
    print(f"analytic RK4 ({'numba' if results['analytic_compiled_numba'] else 'generated Python'}) / MuJoCo RK4 "
          f"mj_step: {results['analytic_rk4_us_per_step']:.2f} / "
          f"{results['mujoco_rk4_us_per_step']:.2f} us = {results['analytic_rk4_vs_mujoco_rk4']:.2f} "
          f"[{lo:.2f} - {hi:.2f}]  ({cpu})")
    lo, hi = results["batched_rk4_vs_rollout_spread"]
    print(f"batched analytic RK4 (NumPy) / mujoco.rollout RK4 (N = 1000, per trajectory-step): "
          f"{b['batched']:.3f} / {b['rollout']:.3f} us = {results['batched_rk4_vs_rollout']:.2f} "
          f"[{lo:.2f} - {hi:.2f}]  ({cpu})")
    print("effort limits, applied mode (closed loop, saturated every step) / no limits: " + ", ".join(
        f"{k} {v['ratio']:.2f}" for k, v in results["effort_applied_overhead"].items()))
    print("Coulomb friction, applied mode (closed loop, -fc*tanh(qd/v_s) every step) / none: " + ", ".join(
        f"{k} {v['ratio']:.2f}" for k, v in results["friction_applied_overhead"].items()))
    print("joint-limit law, applied mode (closed loop, k(q - hi) + c qd every step) / none: " + ", ".join(
        f"{k} {v['ratio']:.2f}" for k, v in results["limit_applied_overhead"].items()))
    for key in ("batched_id_states_per_s", "batched_fd_states_per_s"):
        print(f"{key}: " + ", ".join(f"{a} {v / 1e6:.2f} M/s" for a, v in results[key].items()))
    print(f"crossdyn --help: {results['help_wall_s']:.3f} s")
    for key, what in (("demo", "demo (make demo: planar2r + planar3r)"),
                      ("compare_planar3r", "compare planar3r (default engines)")):
        w = results[key]
        print(f"{what}: {w['median_s']:.1f} s, median of {w['runs']} [{w['spread_s'][0]:.1f} - "
              f"{w['spread_s'][1]:.1f} s], peak {w['peak_mib']:.0f} MiB  ({w['cpu']})")
    print("speed-accuracy (error after 1 s [rad] @ compute s per simulated s), dt = "
          + ", ".join(f"{p['dt_s'] * 1e3:g}" for p in next(iter(results["speed_accuracy"].values()))) + " ms:")
    for name, pts in results["speed_accuracy"].items():
        print(f"  {name:16s} " + "  ".join(
            f"{p['max_abs_error_rad']:.1e}@{p['compute_s_per_sim_s']:.3f}" if p["max_abs_error_rad"] is not None
            else "failed" for p in pts))
    mc = results["check_matlab_vs_python"]
    print("check planar3r, MATLAB vs Python: " + ("skipped (no octave-cli)" if mc is None else
          f"{mc['matlab_s']:.2f} / {mc['python_s']:.2f} s = {mc['ratio']:.2f} (target <= 3)"))
    cs = results["check_spatial"]
    print("check spatial presets (default, s): " + ", ".join(f"{k} {v:.2f}" for k, v in cs["seconds"].items())
          + f" (target <= {cs['target_s']:g})")
    six = results["check_6dof_every_entry_wrong"]
    print("check puma560-rtb, every entry wrong: " + (six["skipped"] if "skipped" in six else
          f"{six['seconds']:.1f} s (target <= {six['target_s']:g}), {six['wrong']} wrong entries, terms named for "
          f"{six['named']}, {six['unavailable']} left 'term naming unavailable'"))
    print(f"wrote {HERE / 'results.json'}, {HERE / 'speed_accuracy.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
