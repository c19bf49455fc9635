"""Checks of the user's equations alone, whatever the reference says: :func:`structure_checks` runs the table an
arm's plant declares (:attr:`crossdyn.checking.plant.Plant.structure`) for both kinds; a planar arm's
(:data:`PLANAR_STRUCTURE`) are these (a spatial arm's: :mod:`crossdyn.checking.spatial_structure`):

* M symmetric (|M − Mᵀ| ≤ :data:`RTOL` × |M|) and positive definite (smallest eigenvalue of ½(M + Mᵀ) above
  1e-12 × the largest);
* N = Ṁ − 2C skew-symmetric (N + Nᵀ = 0) when a C matrix is given, Ṁ by a central finite difference of the
  user's M along q̇;
* C is the Christoffel-symbol matrix (a note, not an error, when C q̇ is right: a C matrix is not unique);
* energy conserved in free motion: the user's M q̈ + C q̇ + G = 0 integrated with crossdyn's RK4,
  E = ½ q̇ᵀ M_user q̇ + U (U the analytic potential; missing functions taken from the reference).
"""
from __future__ import annotations

import io
from collections.abc import Callable

import numpy as np

from crossdyn import analytic
from crossdyn.analytic.integrators import STEPS
from crossdyn.checking.entries import Values, entry_name, entry_indices
from crossdyn.checking.evaluation import Equations, ParamsView, evaluate_user
from crossdyn.checking.plant import Run
from crossdyn.checking.results import RTOL, CheckStatus, StructuralCheck
from crossdyn.checking.sampling import Sample
from crossdyn.models import ArmSpec
from crossdyn.equations.python_file import ParamSet, fmt_vec, quiet

ENERGY_TOL = 1e-6
"""Allowed energy drift in free motion, relative to the arm's energy scale (RK4 at 2 ms gives ~1e-10)."""
SKEW = "Mdot - 2C skew-symmetric"
CHRISTOFFEL = "C is the Christoffel matrix"
ENERGY = "energy conserved in free motion"
SWING_FAILURES = {"singular": "your M became singular", "diverged": "your equations diverged"}
"""What a free swing that stopped early (the Octave model's status) says."""


def structure_checks(run: Run) -> list[StructuralCheck]:
    """Every structural check the arm's plant declares (:attr:`Plant.structure`), in the report's order: the one
    structure pass of both arm kinds (a spatial arm's steps are in :mod:`crossdyn.checking.spatial_structure`)."""
    return [check for step in run.plant.structure for check in step(run)]


def m_checks(run: Run) -> list[StructuralCheck]:
    """M symmetric and positive definite, when M is compared."""
    values, sample = run.values, run.sample
    if "M" not in values.compared:
        return []
    return [check_symmetric(values.user["M"], values.ref["M"]),
            check_positive_definite(values.user["M"], sample.Q, sample.sets)]


def skew_check(run: Run) -> list[StructuralCheck]:
    """Ṁ − 2C skew-symmetric (a note when C q̇ and M are right: the C is valid, not Christoffel's), or why not."""
    model, values = run.model, run.values
    if model.c_kind == "matrix" and model.has("M"):
        skew = check_skew(model, run.plant.params, run.sink, run.sample, values.user["C"],
                          np.max(np.abs(values.ref["M"]), axis=(1, 2, 3)))
        if skew.status == CheckStatus.FAILED and values.cqd_ok and not values.compared["M"].wrong.any():
            skew = StructuralCheck(
                skew.name, CheckStatus.NOTE,
                skew.message + "; C qd is right, so your equations of motion are right, but this C is not the "
                "Christoffel one (the skew-symmetry matters for passivity-based control proofs)",
                skew.value, skew.details)
        return [skew]
    if model.has("C") and model.c_kind == "vector":
        return [StructuralCheck(SKEW, CheckStatus.SKIPPED, "your C returns the vector C qd, so there is no matrix to test")]
    if model.c_kind == "matrix":
        return [StructuralCheck(SKEW, CheckStatus.SKIPPED, "needs your M (the file has none)")]
    return []


def christoffel_check(run: Run) -> list[StructuralCheck]:
    """The C matrix against the Christoffel one, when it is compared."""
    return [check_christoffel(run.values, run.model.n)] if "C" in run.values.compared else []


def energy_check(run: Run) -> list[StructuralCheck]:
    """Energy in free motion (``options.energy``), integrated with the user's M (planar arms)."""
    if not run.options.energy:
        return []
    if not run.model.has("M"):
        return [StructuralCheck(ENERGY, CheckStatus.SKIPPED, "needs your M (the file has none)")]
    return [check_energy(run.model, run.plant.spec, run.sample.own, run.rng, run.sink)]   # type: ignore[attr-defined]


PLANAR_STRUCTURE = (m_checks, skew_check, christoffel_check, energy_check)
"""A planar arm's structural checks, in the report's order."""


def check_symmetric(Mu: np.ndarray, Mr: np.ndarray) -> StructuralCheck:
    """M = Mᵀ within :data:`RTOL` of the reference M's magnitude at every parameter set."""
    asym = np.abs(Mu - np.swapaxes(Mu, -1, -2))
    scale = np.max(np.abs(Mr), axis=(1, 2, 3))
    rel = asym.max(axis=(1, 2, 3)) / np.maximum(scale, 1e-300)
    worst = float(asym.max())
    if np.all(rel <= RTOL):
        return StructuralCheck("M symmetric", CheckStatus.OK, f"max |M - M^T| = {worst:.3g} kg m^2", worst)
    k, i, a, b = np.unravel_index(np.argmax(asym), asym.shape)
    return StructuralCheck("M symmetric", CheckStatus.FAILED,
                           f"M{a + 1}{b + 1} - M{b + 1}{a + 1} = "
                           f"{Mu[k, i, a, b] - Mu[k, i, b, a]:.4g} kg m^2 (max |M - M^T| = {worst:.3g})",
                           worst, {"param_set": int(k), "state": int(i)})


def check_positive_definite(Mu: np.ndarray, Q: np.ndarray, sets: list[ParamSet]) -> StructuralCheck:
    """The smallest eigenvalue of ½(M + Mᵀ) above 1e-12 × the largest, at every state and parameter set."""
    sym = 0.5 * (Mu + np.swapaxes(Mu, -1, -2))
    eig = np.linalg.eigvalsh(sym)[..., 0]                       # (S, N) smallest
    k, i = np.unravel_index(np.argmin(eig), eig.shape)
    lo = float(eig[k, i])
    scale = float(np.max(np.abs(np.linalg.eigvalsh(sym)[..., -1])))
    if lo > 1e-12 * scale:
        return StructuralCheck("M positive definite", CheckStatus.OK, f"smallest eigenvalue {lo:.4g} kg m^2", lo)
    return StructuralCheck("M positive definite", CheckStatus.FAILED,
                           f"smallest eigenvalue {lo:.4g} kg m^2, at q = {fmt_vec(Q[i])} "
                           f"with {sets[k].label}", lo, {"param_set": int(k), "q": Q[i].tolist()})


def check_skew(model: Equations, params: ParamsView, sink: io.StringIO, sample: Sample, Cu: np.ndarray,
               Mr_scale: np.ndarray, per_set: int = 40, eps: float = 1e-6) -> StructuralCheck:
    """N = Ṁ − 2C with Ṁ = (M(q + ε q̇) − M(q − ε q̇)) / 2ε from the user's M; N + Nᵀ must vanish
    (|N + Nᵀ| ≤ 1e-5 × |M| × |q̇|, at the first ``per_set`` states of every parameter set)."""
    Q, QD, sets = sample.Q, sample.QD, sample.sets
    worst, where = 0.0, None
    rel_worst = 0.0
    n_states = min(per_set, len(Q))
    Qs, QDs = Q[:n_states], QD[:n_states]
    Mplus = evaluate_user(model, params, sets, Qs + eps * QDs, QDs, sink, roles=("M",))["M"]
    Mminus = evaluate_user(model, params, sets, Qs - eps * QDs, QDs, sink, roles=("M",))["M"]
    N_ = (Mplus - Mminus) / (2 * eps) - 2 * Cu[:, :n_states]                     # (S, states, n, n)
    sym = np.max(np.abs(N_ + np.swapaxes(N_, -1, -2)), axis=(-1, -2))            # (S, states)
    qd_scale = float(np.max(np.abs(QDs))) or 1.0
    rel = sym / (np.maximum(Mr_scale, 1e-300)[:, None] * qd_scale)
    if rel.size:
        k0, i0 = np.unravel_index(np.argmax(rel), rel.shape)
        rel_worst, worst, where = float(rel[k0, i0]), float(sym[k0, i0]), (int(k0), int(i0))
    msg = f"max |N + N^T| = {worst:.3g} N m s for N = Mdot - 2C (Mdot by central differences of your M)"
    status = CheckStatus.OK if rel_worst <= 1e-5 else CheckStatus.FAILED
    details = {}
    if where is not None and status != CheckStatus.OK:
        k, i = where
        details = {"param_set": int(k), "q": Q[i].tolist(), "qd": QD[i].tolist()}
        msg += f", worst at q = {fmt_vec(Q[i])}, qd = {fmt_vec(QD[i])} with {sets[k].label}"
    return StructuralCheck(SKEW, status, msg, worst, details)


def check_christoffel(values: Values, n: int) -> StructuralCheck:
    """Every entry of the user's C matrix equals the Christoffel-symbol matrix's (a note when C q̇ is right)."""
    compared = values.compared["C"]
    if not compared.wrong.any():
        return StructuralCheck(CHRISTOFFEL, CheckStatus.OK, "every entry of your C matches the Christoffel-symbol matrix")
    bad = [entry_name("C", idx, n) for idx in entry_indices("C", n) if compared.wrong[(slice(None),) + idx].any()]
    if values.cqd_ok:
        return StructuralCheck(CHRISTOFFEL, CheckStatus.NOTE,
                               f"C qd is right but your C is not the Christoffel-symbol matrix (entries "
                               f"{', '.join(bad)} differ); a C matrix is not unique, so this is not an error")
    return StructuralCheck(CHRISTOFFEL, CheckStatus.FAILED,
                           f"your C differs from the Christoffel-symbol matrix in {', '.join(bad)}")


class _UserDynamics:
    """The user's M q̈ + C q̇ + G = τ at the arm's own parameters (crossdyn's C q̇ or G where the file has none,
    no friction), and its energy E = ½ q̇ᵀ M_user q̇ + U with U the analytic potential."""

    where = "in the energy check (free motion from a random start)"

    def __init__(self, model: Equations, own: ParamSet):
        self.model, self.p = model, own.user
        self.arm = own.arm._replace(b=np.zeros_like(own.arm.b), fc=np.zeros_like(own.arm.fc))

    def fd(self, q: np.ndarray, qd: np.ndarray, tau: np.ndarray) -> np.ndarray:
        model, p, where = self.model, self.p, self.where
        parts = getattr(model, "parts", None)
        if parts is not None:                  # one call for all three (Octave)
            M, c, g = parts(q, qd, p, where)
        else:
            M = model.M(q, p, where)
            c = model.Cqd(q, qd, p, where) if model.has("C") else None
            g = model.G(q, p, where) if model.has("G") else None
        h = c if c is not None else analytic.coriolis(self.arm, q, qd)
        h = h + (g if g is not None else analytic.gravity(self.arm, q))
        return np.linalg.solve(M, tau - h)

    def energy(self, q: np.ndarray, qd: np.ndarray) -> float:
        return 0.5 * qd @ self.model.M(q, self.p, self.where) @ qd + float(analytic.potential_energy(self.arm, q))

    def ref_fd(self, q: np.ndarray, qd: np.ndarray, tau: np.ndarray) -> np.ndarray:
        return analytic.forward_dynamics(self.arm, q, qd, tau)

    def ref_energy(self, q: np.ndarray, qd: np.ndarray) -> float:
        return float(analytic.total_energy(self.arm, q, qd))

    def swing_drift(self, q0: np.ndarray, qd0: np.ndarray, dt: float, steps: int) -> tuple[float, str | None]:
        """The drift of a whole swing in one call to the Octave model (the same RK4 steps), or its failure."""
        status, k, qs, T, T0 = self.model.free_swing(q0, qd0, self.p, dt, steps, every=5)   # type: ignore[attr-defined]
        if status != "ok":
            return 0.0, f"{SWING_FAILURES['singular' if status == 'singular' else 'diverged']} at t = {k * dt:.3g} s"
        E0 = T0 + float(analytic.potential_energy(self.arm, q0))
        return float(np.max(np.abs(T + analytic.potential_energy(self.arm, qs) - E0))), None


def _rk4_drift(fd: Callable, energy: Callable, q0: np.ndarray, qd0: np.ndarray, dt: float,
               steps: int) -> tuple[float, str | None]:
    """The largest |E − E0| every 5 steps (and at the end) of an RK4 free swing from (q0, q̇0) with τ = 0, or what
    stopped it (a singular M, a diverging state)."""
    step = STEPS["rk4"]
    zero = np.zeros(len(q0))
    q, qd = q0.copy(), qd0.copy()
    E0 = energy(q, qd)
    worst = 0.0
    for k in range(steps):
        try:
            q, qd = step(fd, q, qd, zero, dt)
        except np.linalg.LinAlgError:
            return worst, f"{SWING_FAILURES['singular']} at t = {(k + 1) * dt:.3g} s"
        if not (np.all(np.isfinite(q)) and np.all(np.isfinite(qd)) and np.max(np.abs(qd)) < 1e4):
            return worst, f"{SWING_FAILURES['diverged']} at t = {(k + 1) * dt:.3g} s"
        if (k + 1) % 5 == 0 or k + 1 == steps:
            worst = max(worst, abs(energy(q, qd) - E0))
    return worst, None


def check_energy(model: Equations, spec: ArmSpec, own: ParamSet, rng: np.random.Generator, sink: io.StringIO,
                 starts: int = 2, dt: float = 2e-3, duration: float = 0.5) -> StructuralCheck:
    """Integrate the user's M q̈ + C q̇ + G = 0 (no friction, τ = 0) with RK4; E = ½q̇ᵀM_user q̇ + U.

    The same RK4 integrates crossdyn's model from the same starts; the allowed drift is
    the larger of :data:`ENERGY_TOL` and 10 × the reference's own drift, so integration
    error (which a fast multi-link swing can make ~1e-6) is never blamed on the user.
    """
    dyn = _UserDynamics(model, own)
    subs = [r for r in ("C", "G") if not model.has(r)]
    fast = hasattr(model, "free_swing") and not subs
    steps = int(round(duration / dt))
    scale = spec.energy_scale()
    drift, ref_drift, worst_start = 0.0, 0.0, None
    with quiet(sink):
        for _ in range(starts):
            q0 = rng.uniform(-np.pi, np.pi, spec.n)
            qd0 = rng.uniform(-1.0, 1.0, spec.n)
            for is_ref in (False, True):
                if is_ref:
                    d, failure = _rk4_drift(dyn.ref_fd, dyn.ref_energy, q0, qd0, dt, steps)
                elif fast:
                    d, failure = dyn.swing_drift(q0, qd0, dt, steps)
                else:
                    d, failure = _rk4_drift(dyn.fd, dyn.energy, q0, qd0, dt, steps)
                if failure is not None:
                    return StructuralCheck(ENERGY, CheckStatus.FAILED, f"{failure} of a free swing from "
                                           f"q0 = {fmt_vec(q0)}, qd0 = {fmt_vec(qd0)}", None)
                if is_ref:
                    ref_drift = max(ref_drift, d / scale)
                elif d / scale > drift:
                    drift, worst_start = d / scale, (q0, qd0)
    return _energy_verdict(drift, ref_drift, worst_start, scale, f"RK4, dt = {dt * 1e3:g} ms, {duration:g} s from "
                           f"{starts} random starts; your M" + "".join(f", reference {r}" for r in subs)
                           + ", analytic potential")


def _energy_verdict(drift: float, ref_drift: float, worst_start: tuple[np.ndarray, np.ndarray] | None,
                    scale: float, how: str) -> StructuralCheck:
    """Failed when the user's drift exceeds max(:data:`ENERGY_TOL`, 10 × the reference's drift)."""
    tol = max(ENERGY_TOL, 10 * ref_drift)
    status = CheckStatus.OK if drift <= tol else CheckStatus.FAILED
    msg = (f"max drift {drift:.3g} of the energy scale {scale:.4g} J ({how}; crossdyn's model drifts {ref_drift:.2g} "
           f"under the same integrator; tolerance {tol:.2g})")
    details = {"reference_drift": ref_drift, "tolerance": tol}
    if status == CheckStatus.FAILED and worst_start is not None:
        details.update(q0=worst_start[0].tolist(), qd0=worst_start[1].tolist())
        msg += f"; worst from q0 = {fmt_vec(worst_start[0])}, qd0 = {fmt_vec(worst_start[1])}"
    return StructuralCheck(ENERGY, status, msg, drift, details)
