"""Two derivation slips that break many entries at once, named as one root cause (issue 40):

* **a term of Christoffel's formula with the wrong sign, or left out.**  crossdyn's C is

      C_ij = Σ_k c_ijk q̇_k,   c_ijk = ½ (∂M_ij/∂q_k + ∂M_ik/∂q_j − ∂M_jk/∂q_i),

  so C = T₁ + T₂ + T₃ with T₁_ij = ½ Σ_k ∂M_ij/∂q_k q̇_k, T₂_ij = ½ Σ_k ∂M_ik/∂q_j q̇_k and
  T₃_ij = −½ Σ_k ∂M_jk/∂q_i q̇_k.  A file whose C is C − 2 T_t (the sign of term t flipped: the classic "+" for
  the "−") or C − T_t (term t left out) is recognised for the C matrix and for C q̇ (where T₁ q̇ = T₂ q̇: those two
  are told apart only by the matrix).  ∂M/∂q comes from central differences of crossdyn's M (step h = 1e-5 rad):
  their error, h²/6·|∂³M| + ε/h·|M| ≈ 4e-11 |M| per unit |q̇|, is allowed for as 1e-9·max|M|·max|q̇|·n (25 times
  that), far below a slip's own size (a multiple of |T_t|).

* **angles measured from a vertical or from −x** (G with sin where cos belongs).  crossdyn measures q₁ from +x with
  gravity along −y.  Measuring q₁ from the downward vertical (θ₁ = q₁ − π/2) gives exactly crossdyn's G for the
  same arm with gravity along +x (U = m g y = −m g L cos q₁ either way); from the upward vertical, gravity along −x;
  from −x, gravity along +y.  M and C do not depend on q₁, so G alone is wrong — and the energy check fails with it.
  Recognised when the file's G equals crossdyn's G with the gravity turned so, within the entries' tolerance.

Each explanation is ``{"text", "quantities"}`` as in :mod:`crossdyn.checking.explanations`.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from crossdyn.checking.entries import Compared

FD_STEP = 1e-5
"""h (rad) of the central differences of M."""

FD_ALLOWANCE = 1e-9
"""× max|M| × max|q̇| × n: the allowance for the differences' error (about 25 × its bound)."""

TERMS = ("∂M_ij/∂q_k", "∂M_ik/∂q_j", "∂M_jk/∂q_i")
ORDINALS = ("first", "second", "third")
FORMULA = "c_ijk = ½(∂M_ij/∂q_k + ∂M_ik/∂q_j − ∂M_jk/∂q_i)"


def christoffel_terms(mass: Callable[[np.ndarray], np.ndarray], Q: np.ndarray, QD: np.ndarray) -> np.ndarray:
    """(T₁, T₂, T₃) stacked, shape (3, N, n, n), at the states (Q, QD) of one parameter set; ``mass(Q)`` is
    crossdyn's M, (N, n, n)."""
    n = Q.shape[1]
    dM = np.empty((Q.shape[0], n, n, n))                   # [N, k, i, j] = ∂M_ij/∂q_k
    for k in range(n):
        step = np.zeros(n)
        step[k] = FD_STEP
        dM[:, k] = (mass(Q + step) - mass(Q - step)) / (2 * FD_STEP)
    t1 = 0.5 * np.einsum("nkij,nk->nij", dM, QD)
    t2 = 0.5 * np.einsum("njik,nk->nij", dM, QD)
    t3 = -0.5 * np.einsum("nijk,nk->nij", dM, QD)
    return np.stack([t1, t2, t3])


def christoffel_slip(compared: dict[str, Compared], masses: list[Callable[[np.ndarray], np.ndarray]],
                     Q: np.ndarray, QD: np.ndarray) -> dict[str, Any] | None:
    """The Christoffel-term slip that makes the file's C (or C q̇) exactly what it is, or None."""
    wrong = [q for q in ("C", "Cqd") if q in compared and compared[q].wrong.any()]
    if not wrong:
        return None
    terms = np.stack([christoffel_terms(mass, Q, QD) for mass in masses], axis=1)   # (3, S, N, n, n)
    scale = np.array([np.max(np.abs(mass(Q[:50]))) for mass in masses])
    allow = FD_ALLOWANCE * scale * np.max(np.abs(QD)) * Q.shape[1]                   # (S,)
    for factor, how in ((2.0, "sign"), (1.0, "missing")):
        fits = [t for t in range(3) if all(_fits(compared[q], q, factor * terms[t], QD, allow) for q in wrong)]
        if fits:
            return {"text": _slip_text(fits, how, "C" in wrong), "quantities": ["C", "Cqd"]}
    return None


def _fits(c: Compared, quantity: str, term: np.ndarray, QD: np.ndarray, allow: np.ndarray) -> bool:
    """user = ref − term within the entries' tolerance plus the differences' allowance (per parameter set)."""
    shift = term if quantity == "C" else np.einsum("snij,nj->sni", term, QD)
    bound = (c.tol + allow).reshape((-1,) + (1,) * (c.user.ndim - 1))
    return bool(np.all(np.abs(c.user - (c.ref - shift)) <= bound))


def _slip_text(fits: list[int], how: str, matrix: bool) -> str:
    names = " or the ".join(f"{ORDINALS[t]} ({TERMS[t]})" for t in fits)
    if how == "sign":
        slip = f"the {names} term of Christoffel's formula has the wrong sign"
        if fits == [2]:
            slip += " (yours has + ∂M_jk/∂q_i where the formula has −)"
    else:
        slip = f"the {names} term of Christoffel's formula is missing"
    why = "" if matrix or len(fits) == 1 else " (C qd alone cannot tell these apart)"
    return (f"{slip}: {FORMULA}, C_ij = Σ_k c_ijk qd_k{why}. This one slip accounts for every wrong C entry, and "
            "for the failed structure checks that follow from C (Mdot − 2C skew-symmetric, C the Christoffel "
            "matrix, energy conserved)")


CONVENTIONS = (
    ("the downward vertical (q1 = 0 hanging)", (1.0, 0.0), "[9.81, 0.0, 0.0]"),
    ("the upward vertical (q1 = 0 pointing up)", (-1.0, 0.0), "[-9.81, 0.0, 0.0]"),
    ("the −x axis", (0.0, 1.0), "[0.0, 9.81, 0.0]"),
)
"""(where your q1 is measured from, crossdyn's gravity direction that makes your G right, the TOML line's value)."""


def angle_convention(compared: dict[str, Compared], gravity_for: Callable[[tuple[float, float]], np.ndarray],
                     g: float) -> dict[str, Any] | None:
    """The angle convention (q₁ from a vertical or from −x) under which the file's G is right, or None.

    ``gravity_for(direction)`` is crossdyn's G, (S, N, n), for the same arms with gravity of magnitude g along the
    unit in-plane ``direction``."""
    c = compared.get("G")
    if c is None or not c.wrong.any() or any(compared[q].wrong.any() for q in ("M", "C", "Cqd") if q in compared):
        return None
    for where, direction, toml in CONVENTIONS:
        turned = gravity_for(direction)
        if np.all(np.abs(c.user - turned) <= c.tol[:, None, None]):
            value = toml.replace("9.81", f"{g:g}")
            return {"text": f"your q1 appears to be measured from {where}; crossdyn measures q1 from +x with "
                            f"gravity along −y. Your G is exactly crossdyn's for the same arm with gravity along "
                            f"{_axis(direction)}: check against a spec with `gravity = {value}` (crossdyn export "
                            "ARM --toml FILE, edit the line, crossdyn check FILE yours.py). The failed energy "
                            "check follows from this G", "quantities": ["G"]}
    return None


def _axis(direction: tuple[float, float]) -> str:
    return {(1.0, 0.0): "+x", (-1.0, 0.0): "−x", (0.0, 1.0): "+y"}[direction]
