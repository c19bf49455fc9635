"""Structural checks of a spatial arm's equations, the user's functions alone (issue 27).

* M symmetric (max |M − Mᵀ| ≤ RTOL × max |M| + ATOL at every set) and positive definite (every state × set);
* Ṁ − 2C skew-symmetric (C given as a matrix), Ṁ = Σ_k ∂M/∂q_k q̇_k by central differences;
* energy, in its instantaneous form: with free motion M q̈ = −C q̇ − G the kinetic energy changes by
  dT/dt = ½ q̇ᵀ Ṁ q̇ − q̇ᵀ (C q̇) − q̇ᵀ G, so T + U is conserved exactly when the power balance
  ½ q̇ᵀṀq̇ − q̇ᵀ(C q̇) = 0 holds and G is a gradient (∂G_i/∂q_j = ∂G_j/∂q_i: some U with G = ∂U/∂q);
  both are checked at the arm's own parameters on :data:`FD_STATES` states.

Central differences with step :data:`FD_STEP`: truncation ~h² |f‴|/6 ~ 1e-11 and rounding ~ε|f|/h ~ 1e-11 of
the entries' scale for these arms, so :data:`FD_RTOL` = 1e-6 of the scale is far above our own precision and far
below a wrong term (a term is ≥ ~1e-3 of the entry's scale at random parameters).
"""
from __future__ import annotations

import io

import numpy as np

from crossdyn.checking.spatial_arms import SpatialArm
from crossdyn.checking.evaluation import evaluate_user
from crossdyn.checking.plant import Run
from crossdyn.checking.results import ATOL, RTOL, CheckStatus, StructuralCheck

FD_STATES = 40
FD_STEP = 1e-5
FD_RTOL = 1e-6


def m_checks(run: Run) -> list[StructuralCheck]:
    """M symmetric (to RTOL of the user's own M, + ATOL) and positive definite (every eigenvalue above 0), or
    skipped without an M."""
    user = run.values.user
    if "M" not in user:
        return [StructuralCheck("M symmetric", CheckStatus.SKIPPED, "no M"),
                StructuralCheck("M positive definite", CheckStatus.SKIPPED, "no M")]
    M = user["M"]
    scale = np.max(np.abs(M), axis=(1, 2, 3))
    asym = np.max(np.abs(M - np.swapaxes(M, -1, -2)), axis=(1, 2, 3))
    bad = asym > RTOL * scale + ATOL
    out = [StructuralCheck("M symmetric", CheckStatus.FAILED if bad.any() else CheckStatus.OK,
                           f"max |M - M^T| = {float(asym.max()):.3g} kg m^2" + (
                               f" (wrong at {int(bad.sum())} of {len(bad)} parameter sets)" if bad.any() else ""),
                           float(asym.max()))]
    eig = np.linalg.eigvalsh((M + np.swapaxes(M, -1, -2)) / 2)[..., 0]
    k, i = np.unravel_index(np.argmin(eig), eig.shape)
    ok = bool(eig.min() > 0)
    out.append(StructuralCheck("M positive definite", CheckStatus.OK if ok else CheckStatus.FAILED,
                               f"smallest eigenvalue {float(eig.min()):.4g} kg m^2" + (
                                   "" if ok else f" (at state {int(i)} of parameter set {int(k)})"),
                               float(eig.min()), {"param_set": int(k)} if not ok else {}))
    return out


def _differences(model, arm: SpatialArm, own: dict, Q: np.ndarray, QD: np.ndarray, sink: io.StringIO):
    """(Ṁ (N, n, n) or None, ∂G/∂q (N, n, n) or None) at own parameters by central differences."""
    n, N, h = arm.n, len(Q), FD_STEP
    stack = [Q + h * QD, Q - h * QD] + [Q + s * h * np.eye(n)[j] for j in range(n) for s in (1, -1)]
    vals = evaluate_user(model, arm, [own], np.concatenate(stack), np.zeros((N * len(stack), n)), sink,
                         roles=("M", "G"))
    Mdot = dG = None
    if "M" in vals:
        M = vals["M"][0]
        Mdot = (M[:N] - M[N:2 * N]) / (2 * h)
    if "G" in vals:
        G = vals["G"][0]
        dG = np.stack([(G[(2 + 2 * j) * N:(3 + 2 * j) * N] - G[(3 + 2 * j) * N:(4 + 2 * j) * N]) / (2 * h)
                       for j in range(n)], axis=-1)        # dG[k, i, j] = ∂G_i/∂q_j
    return Mdot, dG


def difference_checks(run: Run) -> list[StructuralCheck]:
    """Ṁ − 2C skew-symmetric, the power balance and G a gradient (module docstring), at the arm's own
    parameters on the first :data:`FD_STATES` states; ``run.values.user``: the user's values, set 0 own."""
    model, arm, user, sample = run.model, run.plant.arm, run.values.user, run.sample   # type: ignore[attr-defined]
    out: list[StructuralCheck] = []
    Q, QD = sample.Q, sample.QD
    Qs, QDs = Q[:FD_STATES], QD[:FD_STATES]
    Mdot, dG = _differences(model, arm, sample.own, Qs, QDs, run.sink)
    C = user["C"][0, :FD_STATES] if "C" in user else None
    Cqd = user["Cqd"][0, :FD_STATES] if "Cqd" in user else None
    if Mdot is None or C is None:
        out.append(StructuralCheck("Mdot - 2C skew-symmetric", CheckStatus.SKIPPED,
                                   "needs M and the C matrix (your C returns C qd)" if Mdot is not None and
                                   Cqd is not None else "needs M and C"))
    else:
        S = Mdot - 2 * C
        err = float(np.max(np.abs(S + np.swapaxes(S, -1, -2))))
        tol = FD_RTOL * (float(np.max(np.abs(Mdot))) + 2 * float(np.max(np.abs(C)))) + ATOL
        out.append(StructuralCheck("Mdot - 2C skew-symmetric", CheckStatus.OK if err <= tol else CheckStatus.FAILED,
                                   f"max |S + S^T| = {err:.3g} (tolerance {tol:.3g}, Mdot by central differences "
                                   f"at {len(Qs)} states)", err))
    if Mdot is None or Cqd is None:
        out.append(StructuralCheck("energy: power balance", CheckStatus.SKIPPED, "needs M and C"))
    else:
        power = 0.5 * np.einsum("ki,kij,kj->k", QDs, Mdot, QDs) - np.einsum("ki,ki->k", QDs, Cqd)
        scale = 0.5 * np.einsum("ki,kij,kj->k", np.abs(QDs), np.abs(Mdot), np.abs(QDs)) + np.einsum(
            "ki,ki->k", np.abs(QDs), np.abs(Cqd))
        err, tol = float(np.max(np.abs(power))), FD_RTOL * float(np.max(scale)) + ATOL
        out.append(StructuralCheck("energy: power balance", CheckStatus.OK if err <= tol else CheckStatus.FAILED,
                                   f"max |qd^T (Mdot/2) qd - qd^T (C qd)| = {err:.3g} W (tolerance {tol:.3g}): "
                                   + ("C qd does no work in free motion" if err <= tol else
                                      "C qd does work: kinetic energy would not be conserved"), err))
    if dG is None:
        out.append(StructuralCheck("energy: G is a gradient", CheckStatus.SKIPPED, "no G"))
    else:
        err = float(np.max(np.abs(dG - np.swapaxes(dG, -1, -2))))
        # + the rounding of a central difference, 100 ε max|G| / h (a G that is constant has dG = 0 exactly)
        tol = FD_RTOL * float(np.max(np.abs(dG))) + 100 * np.finfo(float).eps * float(np.max(np.abs(
            user["G"][0]))) / FD_STEP
        out.append(StructuralCheck("energy: G is a gradient", CheckStatus.OK if err <= tol else CheckStatus.FAILED,
                                   f"max |dG_i/dq_j - dG_j/dq_i| = {err:.3g} (tolerance {tol:.3g}): " + (
                                       "G = dU/dq for some potential U" if err <= tol else
                                       "no potential U has this G: energy would not be conserved"), err))
    return out


SPATIAL_STRUCTURE = (m_checks, difference_checks)
"""A spatial arm's structural checks (run by :func:`crossdyn.checking.structure.structure_checks`), in order."""
