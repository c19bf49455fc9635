"""MuJoCo MJX as a batched engine (``mjx``, ``mjx-rk4`` in ``compare --batch``): ``vmap`` over per-arm model
fields, float32.  The knobs are the single-arm engine's (``eulerdamp``, ``precision``: JAX's matmul precision for
MJX, which overrides ``--precision`` for this engine).
"""
from __future__ import annotations

from crossdyn.engines.batching import EULERDAMP, BatchProblem, Knob

OPTIONS = "crossdyn.engines.mjx.planar:BatchOptions"
KNOBS = (EULERDAMP,
         Knob("precision", "choice", "default", "JAX's matmul precision for MJX (default: TF32 on NVIDIA GPUs; "
              "overrides --precision for this engine)", ("highest", "high", "default")))


def defaults(pb: BatchProblem) -> dict:
    """The knobs a run starts from: the problem's ``--precision`` (the engine's own knob overrides it)."""
    return {"precision": pb.precision}


def batched(engine, pb: BatchProblem, opt) -> tuple:
    """N arms under MJX: :func:`crossdyn.engines.mjx.planar.rollout_batch` (vmap over per-arm model fields)."""
    from crossdyn.engines.mjx import planar as mjx_engine

    timing: dict = {}
    integ = "RK4" if engine.integrator == "rk4" else "Euler"
    Q, QD = mjx_engine.rollout_batch(pb.spec, pb.p, pb.q0, pb.qd0, pb.tau, pb.dt, integrator=integ,
                                     save_every=pb.save_every, precision=opt.precision, eulerdamp=opt.eulerdamp,
                                     timing=timing)
    import jax

    cfg = {"dtype": "float32", "precision": opt.precision, "device": str(jax.devices()[0]), "eulerdamp": opt.eulerdamp,
           "cleared_options": dict(mjx_engine.CLEARED_OPTIONS), "batched_fields": list(mjx_engine.BATCHED_FIELDS)}
    return Q, QD, timing["compile_s"], timing["run_s"], cfg
