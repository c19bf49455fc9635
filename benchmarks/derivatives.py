"""The cost of each engine's derivatives per state beside the cost of its forward dynamics (`make bench`, issue 41):
µs per state, measured side by side in one process on the same states, with the ratio and the machine's load.

* **Pinocchio** (analytical): ``computeABADerivatives`` + ``computeRNEADerivatives`` (the six blocks the
  ``derivatives`` group judges) against ``pin.aba``;
* **MuJoCo** (finite differences, ε = 1e-6 as the group uses): ``mjd_transitionFD`` (centred; the step's A, B) and
  ``mjd_inverseFD`` (forward) against one ``mj_step`` and one ``mj_inverse`` of the same stepping model (the
  functions they differentiate: a centred transition costs ~2·(2n + n) steps, a forward inverse ~3n + 1 calls);
* **crossdyn's reference**: the complex step of the spatial RNEA/ABA (:func:`crossdyn.derivatives.reference.complex_step`,
  batched over the states) against the same NumPy ABA on the same batch.

On planar3r (its MJCF), the pan-tilt spatial preset and example-robot-data's UR5 URDF.  The library calls are timed
directly on the engines' models as crossdyn builds them (:mod:`crossdyn.derivatives.engines`), outside crossdyn's
wrappers; each figure is the best of ``--repeats`` passes over ``--states`` states.

    python benchmarks/derivatives.py [--states 50] [--repeats 5]
"""
from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def per_state_us(fn, states, repeats: int) -> float:
    """Best of ``repeats`` passes of fn(state) over every state, in µs per state."""
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        for s in states:
            fn(*s)
        best = min(best, (time.perf_counter() - t) / len(states))
    return best * 1e6


def batch_us(fn, repeats: int, count: int) -> float:
    """Best of ``repeats`` calls of fn() (one batch of ``count`` states), in µs per state."""
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best / count * 1e6


def pinocchio_rows(model, Q, QD, T, repeats: int) -> list[tuple[str, str, float, str, float]]:
    """(engine, derivative call, µs, forward call, µs) for Pinocchio on ``model``'s file."""
    import numpy as np

    from crossdyn.engines.pinocchio.file import PinocchioFileEngine

    eng = PinocchioFileEngine(model)
    pin, m, d = eng.pin, eng.pmodel, eng.data
    P, V, U = eng._to_pin_q(eng.to_engine(Q)), eng._v(eng.to_engine(QD)), eng._v(eng.to_engine(T))
    A = np.array([pin.aba(m, d, p, v, u) for p, v, u in zip(P, V, U)])

    def derivatives(p, v, u, a):
        pin.computeABADerivatives(m, d, p, v, u)
        pin.computeRNEADerivatives(m, d, p, v, a)
    deriv = per_state_us(derivatives, list(zip(P, V, U, A)), repeats)
    forward = per_state_us(lambda p, v, u: pin.aba(m, d, p, v, u), list(zip(P, V, U)), repeats)
    return [("pinocchio", "computeABADerivatives + computeRNEADerivatives", deriv, "aba", forward)]


def mujoco_rows(model, Q, QD, T, repeats: int) -> list[tuple[str, str, float, str, float]]:
    """MuJoCo's ``mjd_transitionFD`` against ``mj_step`` and ``mjd_inverseFD`` against ``mj_inverse``."""
    import numpy as np

    from crossdyn.comparison.groups.derivatives import EPS
    from crossdyn.derivatives.engines import _set_state, mujoco_engine

    eng = mujoco_engine(model, 1e-3)
    mj, ms, ds = eng.mj, eng.ms, eng.ds
    n = model.n
    a, b = np.empty((2 * ms.nv, 2 * ms.nv)), np.empty((2 * ms.nv, ms.nu))
    mats = [np.empty((ms.nv, ms.nv)) for _ in range(3)]
    states = list(zip(Q, QD, T))

    def prepared(fn):
        def call(q, qd, tau):
            _set_state(eng, q, qd)
            ds.ctrl[:] = tau[:ms.nu] if ms.nu == n else 0.0
            ds.qacc[:] = tau[:ms.nv] if ms.nv == n else 0.0
            fn()
        return call
    base = per_state_us(prepared(lambda: None), states, repeats)  # setting the state, subtracted from each figure
    fd = per_state_us(prepared(lambda: mj.mjd_transitionFD(ms, ds, EPS, True, a, b, None, None)), states, repeats)
    step = per_state_us(prepared(lambda: mj.mj_step(ms, ds)), states, repeats)
    inv_fd = per_state_us(prepared(lambda: mj.mjd_inverseFD(ms, ds, EPS, False, *mats, None, None, None, None)),
                          states, repeats)
    inv = per_state_us(prepared(lambda: mj.mj_inverse(ms, ds)), states, repeats)
    return [("mujoco", "mjd_transitionFD (centred)", fd - base, "mj_step", step - base),
            ("mujoco", "mjd_inverseFD (forward)", inv_fd - base, "mj_inverse", inv - base)]


def reference_rows(model, Q, QD, T, repeats: int) -> list[tuple[str, str, float, str, float]]:
    """crossdyn's complex-step reference against its NumPy ABA, batched over the states."""
    from crossdyn.derivatives import reference
    from crossdyn.spatial.aba import aba

    deriv = batch_us(lambda: reference.complex_step(model, Q, QD, T), repeats, len(Q))
    forward = batch_us(lambda: aba(model, Q, QD, T), repeats, len(Q))
    return [("crossdyn reference", "complex step, six blocks (NumPy, batched)", deriv, "ABA (NumPy, batched)",
             forward)]


def arms(folder: Path):
    """(label, RobotModel) of planar3r, pan-tilt and the UR5 URDF."""
    from robot_files import erd_ur5_urdf

    from crossdyn.derivatives.engines import file_model
    from crossdyn.models.presets import PRESETS
    from crossdyn.models.spatial_presets import SPATIAL_PRESETS
    from crossdyn.robots import read_robot

    return [("planar3r", file_model(PRESETS["planar3r"](), folder)),
            ("pan-tilt", file_model(SPATIAL_PRESETS["pan-tilt"](), folder)),
            ("UR5 URDF", read_robot(erd_ur5_urdf()))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--states", type=int, default=50)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "tests"))
    from crossdyn.robotcompare import motion

    cpu = f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores"
    print(f"derivatives per state beside forward dynamics (µs per state, best of {args.repeats} passes over "
          f"{args.states} states)  CPU: {cpu}, load {os.getloadavg()[0]:.2f}")
    print(f"{'arm':9s} {'n':>2s}  {'engine':18s} {'derivatives':46s} {'µs':>9s}  {'forward':22s} {'µs':>8s} {'ratio':>8s}")
    with tempfile.TemporaryDirectory() as folder:
        for label, model in arms(Path(folder)):
            st = motion.states_within_limits(model, args.states, 0)
            for rows in (pinocchio_rows, mujoco_rows, reference_rows):
                for engine, dname, d, fname, f in rows(model, st.q, st.qd, st.tau, args.repeats):
                    print(f"{label:9s} {model.n:2d}  {engine:18s} {dname:46s} {d:9.1f}  {fname:22s} {f:8.2f} "
                          f"{d / f:7.1f}x")
    print(f"load after the table: {os.getloadavg()[0]:.2f} (1-min average)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
