"""crossdyn's own analytic model as batched engines (``jax-*`` and ``numpy-*`` in ``compare --batch``): the
references every batched engine is judged against (the float64 JAX run of the same integrator), and their float32
and NumPy twins.  No knobs: crossdyn's model has no engine default to switch back.
"""
from __future__ import annotations

import time

import numpy as np

from crossdyn.engines.batching import BatchProblem

OPTIONS = None
KNOBS: tuple = ()


def jax(engine, pb: BatchProblem, options: None = None) -> tuple:
    """crossdyn's analytic model on JAX (:func:`crossdyn.analytic.jax_model.rollout`), in the name's dtype."""
    from crossdyn.analytic import jax_model

    timing: dict = {}
    Q, QD = jax_model.rollout(pb.p, pb.q0, pb.qd0, pb.tau, pb.dt, method=engine.integrator, save_every=pb.save_every,
                              dtype=engine.dtype, precision=pb.precision, timing=timing)
    cfg = {"dtype": engine.dtype, "precision": pb.precision, "device": jax_model.device_kind(),
           "x64": f"scoped jax.enable_x64({engine.dtype == 'float64'})"}
    return np.asarray(Q, float), np.asarray(QD, float), timing["compile_s"], timing["run_s"], cfg


def numpy(engine, pb: BatchProblem, options: None = None) -> tuple:
    """crossdyn's NumPy model stepped over all arms at once (:data:`crossdyn.analytic.integrators.STEPS`)."""
    from crossdyn.analytic.dynamics import forward_dynamics
    from crossdyn.analytic.integrators import STEPS

    step, p, s = STEPS[engine.integrator], pb.p, pb.save_every

    def fd(q, qd, u):
        return forward_dynamics(p, q, qd, u)

    K = pb.tau.shape[0]
    q, qd = np.array(pb.q0, float), np.array(pb.qd0, float)
    Q = np.empty((q.shape[0], K // s + 1, q.shape[1]))
    QD = np.empty_like(Q)
    Q[:, 0], QD[:, 0] = q, qd
    t = time.perf_counter()
    with np.errstate(all="ignore"):
        for k in range(K):
            q, qd = step(fd, q, qd, pb.tau[k], pb.dt)
            if (k + 1) % s == 0:
                Q[:, (k + 1) // s], QD[:, (k + 1) // s] = q, qd
    return Q, QD, None, time.perf_counter() - t, {"dtype": "float64", "method": "auto (closed form 2R/3R)"}
