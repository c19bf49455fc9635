"""Batched comparisons: many random arms of one kind on batched engines (JAX, MJX, mujoco.rollout, NumPy).

Imports no optional library until used: JAX and MJX come with the ``crossdyn[jax]`` extra.
"""
from crossdyn.batch.compare import BatchOptions, BatchResult, batch_compare, write_batch_outputs
from crossdyn.batch.engines import DEFAULT_ENGINES, ENGINES

__all__ = ["BatchOptions", "BatchResult", "DEFAULT_ENGINES", "ENGINES", "batch_compare", "write_batch_outputs"]
