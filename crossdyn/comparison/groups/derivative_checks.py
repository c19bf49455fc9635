"""The per-block check of the ``derivatives`` metric group (:mod:`crossdyn.comparison.groups.derivatives`), shared
by every engine's derivative source: :func:`check_block` judges one block (N, p, m) of an engine's derivatives against
the reference with an absolute tolerance, :class:`BlockCheck` is its result, :data:`LABELS` names the blocks."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from crossdyn.status import Verdict

LABELS = {"dqdd_dq": "∂q̈/∂q", "dqdd_dqd": "∂q̈/∂q̇", "dqdd_dtau": "∂q̈/∂τ", "dtau_dq": "∂τ/∂q",
          "dtau_dqd": "∂τ/∂q̇", "dtau_dqdd": "∂τ/∂q̈", "dqnext_dq": "∂q⁺/∂q", "dqnext_dqd": "∂q⁺/∂q̇",
          "dqdnext_dq": "∂q̇⁺/∂q", "dqdnext_dqd": "∂q̇⁺/∂q̇", "dqnext_dtau": "∂q⁺/∂τ", "dqdnext_dtau": "∂q̇⁺/∂τ"}
"""The blocks' keys in ``summary.json`` and how they are written."""


@dataclass(frozen=True)
class BlockCheck:
    """One block judged: ``verdict``; ``checks`` entries × states; ``max_ratio`` the largest |got − ref| / tolerance
    (NaN when an entry is not finite); ``worst`` the entry with that ratio (or the first non-finite one)."""

    key: str
    verdict: Verdict
    checks: int
    max_ratio: float
    worst: dict
    method: str

    def to_dict(self) -> dict:
        ratio = self.max_ratio if np.isfinite(self.max_ratio) else None
        return {"label": LABELS[self.key], "verdict": self.verdict.value, "checks": self.checks,
                "max_ratio": ratio, "method": self.method, "worst_entry": self.worst}


def check_block(key: str, got, ref, tolerance, method: str) -> BlockCheck:
    """Judge one block (N, p, m) against the reference with ``tolerance`` (absolute: scalar, (N, 1, 1) or per entry):
    PASS when every entry is finite and within it (an exact entry within any tolerance, zero included), else FAIL;
    the worst entry located (state, row, column, 0-based
    state, 1-based row/column).  Pure; a NaN never raises."""
    got, ref = np.asarray(got, dtype=float), np.asarray(ref, dtype=float)
    tol = np.broadcast_to(np.asarray(tolerance, dtype=float), got.shape)
    diff = np.abs(got - ref)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.where(diff == 0, 0.0, diff / tol)  # an exact entry passes a zero tolerance (a block of zeros)
    bad = ~np.isfinite(got) | ~np.isfinite(ref)
    score = np.where(bad, np.inf, np.nan_to_num(ratio, nan=np.inf))
    s, i, j = (int(x) for x in np.unravel_index(int(np.argmax(score)), got.shape))
    ok = not bad.any() and bool(np.all(ratio <= 1.0))
    worst = {"state": s, "row": i + 1, "column": j + 1, "got": _num(got[s, i, j]), "reference": _num(ref[s, i, j]),
             "tolerance": _num(tol[s, i, j])}
    max_ratio = float("nan") if bad.any() else float(np.max(ratio))
    return BlockCheck(key, Verdict.PASS if ok else Verdict.FAIL, int(got.size), max_ratio, worst, method)


def _num(x) -> float | None:
    x = float(x)
    return x if np.isfinite(x) else None


def inconclusive(block: BlockCheck, reason: str) -> BlockCheck:
    """``block`` made INCONCLUSIVE with ``reason`` (kept in its worst entry): a bound this group cannot state."""
    return BlockCheck(block.key, Verdict.INCONCLUSIVE, block.checks, block.max_ratio,
                      {**block.worst, "inconclusive_because": reason}, block.method)
