"""The derivative blocks every path returns, and the pure checks on them.

Forward dynamics q̈ = FD(q, q̇, τ) and inverse dynamics τ = ID(q, q̇, q̈) of an arm with viscous joint damping b,

    τ = M(q) q̈ + C(q, q̇) q̇ + G(q) + b ⊙ q̇,

have the partial derivatives (each (N, n, n), row i = output i, column j = input j)

    ∂q̈/∂q,  ∂q̈/∂q̇,  ∂q̈/∂τ = M⁻¹          ∂τ/∂q,  ∂τ/∂q̇,  ∂τ/∂q̈ = M

related, at q̈ = FD(q, q̇, τ), by the implicit-function identity ∂q̈/∂x = −M⁻¹ ∂τ/∂x (x = q, q̇).  One discrete step
x_{k+1} = Φ(x_k, u_k) of an integrator, x = (q, q̇), u = τ held over the step, has the transition Jacobians
A = ∂x_{k+1}/∂x_k (2n × 2n) and B = ∂x_{k+1}/∂u_k (2n × n).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from crossdyn.status import Verdict

BLOCKS = ("dqdd_dq", "dqdd_dqd", "dqdd_dtau", "dtau_dq", "dtau_dqd", "dtau_dqdd")
"""The six blocks of :class:`Derivatives`, in order."""


@dataclass(frozen=True, eq=False)
class Derivatives:
    """The six derivative blocks at N states, (N, n, n) each, in the model's joint order.

    ``q``, ``qd``, ``tau`` (N, n) are the states; ``qdd`` = FD(q, q̇, τ) of the path that computed them (the inverse
    dynamics blocks are taken at (q, q̇, q̈)); ``source`` names the path."""

    source: str
    q: np.ndarray
    qd: np.ndarray
    tau: np.ndarray
    qdd: np.ndarray
    dqdd_dq: np.ndarray
    dqdd_dqd: np.ndarray
    dqdd_dtau: np.ndarray
    dtau_dq: np.ndarray
    dtau_dqd: np.ndarray
    dtau_dqdd: np.ndarray

    def block(self, name: str) -> np.ndarray:
        """The block called ``name`` (one of :data:`BLOCKS`)."""
        if name not in BLOCKS:
            raise ValueError(f"block: one of {', '.join(BLOCKS)}, got {name!r}")
        return getattr(self, name)


@dataclass(frozen=True, eq=False)
class Transition:
    """A = ∂x_{k+1}/∂x_k (N, 2n, 2n) and B = ∂x_{k+1}/∂u_k (N, 2n, n) of one step of ``dt`` by ``method``, x = (q, q̇),
    at the states ``q``, ``qd`` under the held torque ``tau`` (N, n); ``source`` names the path."""

    source: str
    method: str
    dt: float
    q: np.ndarray
    qd: np.ndarray
    tau: np.ndarray
    A: np.ndarray
    B: np.ndarray


def relative_error(a: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """Per state, max |a − ref| / max(max |ref|, tiny): (N,), the error relative to the block's largest entry (a
    block of zeros compares absolutely).  NaN anywhere in a state's ``a`` or ``ref`` makes that state's error NaN."""
    a, ref = np.asarray(a), np.asarray(ref)
    axes = tuple(range(1, a.ndim))
    scale = np.maximum(np.max(np.abs(ref), axis=axes), np.finfo(float).tiny)
    err = np.max(np.abs(a - ref), axis=axes) / scale
    bad = ~(np.all(np.isfinite(a), axis=axes) & np.all(np.isfinite(ref), axis=axes))
    return np.where(bad, np.nan, err)


def within(a: np.ndarray, ref: np.ndarray, tolerance) -> np.ndarray:
    """Per state (N,): |a − ref| ≤ tolerance entrywise (tolerance broadcast: a scalar or per entry) and every entry
    finite.  A NaN or infinite derivative is a failure, never a pass (``nan <= tol`` is False, made explicit)."""
    a, ref = np.asarray(a), np.asarray(ref)
    axes = tuple(range(1, a.ndim))
    finite = np.all(np.isfinite(a), axis=axes) & np.all(np.isfinite(ref), axis=axes)
    with np.errstate(invalid="ignore"):
        ok = np.all(np.abs(a - ref) <= tolerance, axis=axes)
    return finite & ok


def nonfinite_blocks(d: Derivatives | Transition) -> list[str]:
    """The names of the blocks (or ``A``/``B``) holding a NaN or infinite entry: [] when all are finite."""
    names = BLOCKS if isinstance(d, Derivatives) else ("A", "B")
    return [name for name in names if not np.all(np.isfinite(getattr(d, name)))]


def worst_relative(d: Derivatives, ref: Derivatives) -> dict[str, float]:
    """Per block, the largest :func:`relative_error` over the states (NaN if any state's is NaN)."""
    out = {}
    for name in BLOCKS:
        e = relative_error(d.block(name), ref.block(name))
        out[name] = float("nan") if np.any(np.isnan(e)) else float(np.max(e))
    return out



@dataclass(frozen=True)
class BlockVerdict:
    """The judgement of one block: ``verdict`` PASS when every entry of every state is finite and within its
    tolerance, else FAIL; ``used`` the largest |got − ref| / tolerance (NaN when an entry is not finite);
    ``nonfinite`` the number of states holding a NaN or infinite entry; ``states`` how many were judged."""

    name: str
    verdict: Verdict
    used: float
    nonfinite: int
    states: int


def judge(name: str, got: np.ndarray, ref: np.ndarray, tolerance) -> BlockVerdict:
    """:class:`BlockVerdict` of block ``name``: ``got`` against ``ref`` (N, p, m) with ``tolerance`` (absolute; a
    scalar, per state (N, 1, 1) or per entry).  A NaN or infinite derivative FAILs (:func:`within`), whatever the
    tolerance."""
    got, ref = np.asarray(got), np.asarray(ref)
    ok = within(got, ref, tolerance)
    axes = tuple(range(1, got.ndim))
    finite = np.all(np.isfinite(got), axis=axes) & np.all(np.isfinite(ref), axis=axes)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.abs(got - ref) / np.broadcast_to(tolerance, got.shape)
    used = float(np.max(ratio)) if np.all(finite) else float("nan")
    return BlockVerdict(name, Verdict.PASS if np.all(ok) else Verdict.FAIL, used, int(np.sum(~finite)), len(ok))
