"""Measure the agreement figures quoted in docs/explanation/derivatives.md (issue 41).

    PYTHONPATH=. python scripts/derivatives_agreement.py

Per arm: the two reference paths' worst relative disagreement over the six blocks; Pinocchio's and MuJoCo's worst
fraction of their tolerance (crossdyn.derivatives.tolerance) used.  States: 8 (Pinocchio, reference paths) or 3
(MuJoCo) from tests/test_derivatives.py's generator (seed 0).
"""
from __future__ import annotations

import functools
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from test_derivatives import ROBOTS, states  # noqa: E402

from crossdyn.derivatives import BLOCKS, reference, transition  # noqa: E402
from crossdyn.derivatives import tolerance as tol  # noqa: E402
from crossdyn.derivatives.blocks import worst_relative  # noqa: E402
from crossdyn.derivatives.engines import (FiniteDifference, file_model, mujoco_engine, mujoco_inverse,  # noqa: E402
                                          mujoco_transition, mujoco_values, pinocchio)
from crossdyn.derivatives.symbolic import spatial_symbolic, symbolic  # noqa: E402
from crossdyn.models.compile import compile_arm  # noqa: E402
from crossdyn.models.presets import PRESETS  # noqa: E402
from crossdyn.models.spatial_presets import SPATIAL_PRESETS  # noqa: E402
from crossdyn.robots import read_robot  # noqa: E402
from crossdyn.steps import semi_implicit_euler_step  # noqa: E402


def paths() -> None:
    for name, make in PRESETS.items():
        spec = make()
        Q, QD, T = states(spec.n, N=8)
        w = worst_relative(symbolic(spec, Q, QD, T), reference.complex_step(compile_arm(spec), Q, QD, T))
        print(f"paths {name:20s} {max(w.values()):.1e}")
    for name, make in SPATIAL_PRESETS.items():
        sspec = make()
        model = sspec.to_robot_model()
        Q, QD, T = states(model.n, N=8)
        w = worst_relative(spatial_symbolic(sspec, Q / 2, QD, T), reference.complex_step(model, Q / 2, QD, T))
        print(f"paths {name:20s} {max(w.values()):.1e}")


def used(got, ref, limit) -> float:
    return float(np.max(np.abs(got - ref) / limit))


def engines(model, label: str) -> None:
    n = model.n
    Q, QD, T = states(n, N=8)
    ref = reference.complex_step(model, Q, QD, T)
    p = pinocchio(model, Q, QD, T, QDD=ref.qdd)
    frac = max(used(p.block(b), ref.block(b), tol.analytic_terms(model, ref, b)) for b in BLOCKS)
    print(f"pinocchio {label:24s} {frac:.2f} of its tolerance")
    Q, QD, T = states(n, N=3)
    ref = reference.complex_step(model, Q, QD, T)
    fd, inv, dt = reference.forward(model), reference.inverse(model), 1e-3
    exact = transition.chain_rule(functools.partial(reference.complex_step, model), Q, QD, T, dt, "semi-implicit-euler")

    def step(X):
        return np.concatenate(semi_implicit_euler_step(fd, X[:, :n], X[:, n:2 * n], X[:, 2 * n:], dt), axis=1)
    X, J = np.concatenate((Q, QD, T), 1), np.concatenate((exact.A, exact.B), 2)
    engine = mujoco_engine(model, dt)
    Xi = np.concatenate((Q, QD, ref.qdd), 1)
    Ji = np.concatenate((ref.dtau_dq, ref.dtau_dqd, ref.dtau_dqdd), 2)
    for eps in (1e-6, 1e-4):
        for centred in (True, False):
            t = mujoco_transition(model, Q, QD, T, dt, FiniteDifference(eps, centred), engine)
            P = tol.perturbed_points(X, eps, centred)  # MuJoCo's rounding where the quotient evaluates it
            stepped, _ = mujoco_values(model, P[:, :n], P[:, n:2 * n], P[:, 2 * n:], dt, engine)
            limit = tol.finite_difference(step, X, J, eps, centred, np.linalg.cond(ref.dtau_dqdd),
                                          tol.noise(stepped, step(P)))
            print(f"mujoco transitionFD {label:24s} eps {eps:g} {'centred' if centred else 'forward'}: "
                  f"{used(np.concatenate((t.A, t.B), 2), J, limit):.2f} of its tolerance")
        got = np.concatenate(mujoco_inverse(model, Q, QD, ref.qdd, eps, engine), 2)
        P = tol.perturbed_points(Xi, eps, False)
        _, forces = mujoco_values(model, P[:, :n], P[:, n:2 * n], P[:, 2 * n:], dt, engine)
        limit = tol.finite_difference(lambda X: inv(X[:, :n], X[:, n:2 * n], X[:, 2 * n:]), Xi, Ji, eps, False,
                                      noise=tol.noise(forces, inv(P[:, :n], P[:, n:2 * n], P[:, 2 * n:])))
        print(f"mujoco inverseFD    {label:24s} eps {eps:g} forward: {used(got, Ji, limit):.2f} of its tolerance")


def main() -> None:
    paths()
    with tempfile.TemporaryDirectory() as tmp:
        engines(file_model(PRESETS["planar3r-friction"](), tmp), "planar3r-friction")
    for file in ROBOTS:
        engines(read_robot(ROOT / "examples" / "robots" / file), file)


if __name__ == "__main__":
    main()
