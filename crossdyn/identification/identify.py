"""The identification workflow: excitation → data → estimate → validation, and the cross-engine diagnosis.

Validation runs a second, different trajectory (a random Fourier series under the same bounds, another seed)
through the same source and reports, per joint, the relative RMS torque prediction error
‖τ_pred − τ_meas‖_rms / ‖τ_meas‖_rms with τ_pred = Y_base(q, q̇, q̈) β̂ at the validation samples (q̈ obtained
as for the identification data).  For a CSV without a validation file the last quarter of the samples is
held out.

The verdict fails when a known true value lies outside its family-wise interval (Bonferroni, level
1 − 0.05/r for r base parameters: all r hold together with 95 % probability; the per-parameter 95 % intervals
are reported too).  A known true value (from the spec) is "inside an interval" when |β̂ − β| ≤ max(t·stderr, FLOOR·max(|β|, β_scale))
— FLOOR = 1e-6 is the noise-free recovery tolerance: noise-free data leave a residual of rounding and
integration error only, whose "interval" would otherwise be narrower than the integration error itself.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from crossdyn.engines import EngineUnsupported
from crossdyn.identification import data as D
from crossdyn.identification.estimators import Estimate, estimate, rls
from crossdyn.identification.excitation import (HARMONICS, PERIOD, Excitation, default_bounds, optimise_excitation,
                                                random_fourier)
from crossdyn.identification.parameters import BaseParameters, closed_form_base, numerical_base
from crossdyn.models.spec import ArmSpec

RELATIVE_FLOOR = 1e-6
"""Noise-free recovery tolerance (relative), also the floor of the interval check (see the module docstring)."""

VALIDATION_TOLERANCE = 0.05
"""Default limit on the validation relative RMS torque error per joint (exit 1 above it)."""

MOVED_THRESHOLD = 1e-4
"""A base parameter "moved" (cross-engine diagnosis) when its estimate differs from the spec's by more than
this, relative to max(|β|, the parameter's scale); noise-free recovery is ≤ 1e-10 for every engine, so
1e-4 is far above recovery error and far below the traps' effects (≥ 4e-4 relative)."""


def parameter_scale(base: BaseParameters, rows: D.Rows) -> np.ndarray:
    """Per base parameter: the size of β_k that would change the data by 1 % of its RMS (for zero-valued
    parameters, e.g. friction absent from the spec): 0.01 · rms(y) / rms(W_k)."""
    col = np.sqrt(np.mean(rows.W ** 2, axis=0))
    col[col == 0] = np.inf
    return 0.01 * float(np.sqrt(np.mean(rows.y ** 2))) / col


def relative_errors(beta_hat, beta_true, scale) -> np.ndarray:
    return np.abs(np.asarray(beta_hat) - beta_true) / np.maximum(np.abs(beta_true), scale)


@dataclass
class Result:
    spec: ArmSpec
    base: BaseParameters
    excitation: Excitation | None
    data: D.JointData
    rows: D.Rows
    est: Estimate
    truth: np.ndarray | None
    scale: np.ndarray
    validation_rms: np.ndarray
    validation: dict
    rls_trace: np.ndarray
    rls_forgetting: float
    estimator: str
    noise: D.NoiseModel
    seed: int
    validation_tolerance: float
    numerical_rank: int
    info: dict = field(default_factory=dict)

    def inside(self, familywise: bool = False) -> np.ndarray:
        """Each known true value inside its 95 % interval (``familywise``: the Bonferroni interval at level
        1 − 0.05/r, so that all r together hold with 95 % probability)."""
        lo, hi = self.est.interval(1 - 0.05 / self.base.r if familywise else 0.95)
        half = np.maximum(hi - self.est.beta, RELATIVE_FLOOR * np.maximum(np.abs(self.truth), self.scale))
        return np.abs(self.est.beta - self.truth) <= half

    @property
    def passed(self) -> bool:
        ok = bool(np.all(self.validation_rms <= self.validation_tolerance))
        if self.truth is not None:
            # family-wise: with r = 8 parameters, per-parameter 95 % intervals would fail a correct
            # identification in 1 − 0.95⁸ = 34 % of runs
            ok = ok and bool(np.all(self.inside(familywise=True)))
        return ok

    def parameters(self) -> list[dict]:
        lo, hi = self.est.interval()
        out = []
        for k in range(self.base.r):
            t = None if self.truth is None else float(self.truth[k])
            out.append({"name": self.base.names[k], "symbol": self.base.symbols[k], "true": t,
                        "spec_value": float(self.info["nominal"][k]),
                        "estimate": float(self.est.beta[k]), "stderr": float(self.est.stderr[k]),
                        "ci95": [float(lo[k]), float(hi[k])],
                        "relative_error": None if t is None else
                        float(relative_errors(self.est.beta[k], t, self.scale[k])),
                        "inside_interval": None if t is None else bool(self.inside()[k]),
                        "inside_familywise_interval": None if t is None else bool(self.inside(True)[k])})
        return out


def _validation_rows(spec, base, vdata: D.JointData, model: str) -> tuple[D.Rows, np.ndarray, np.ndarray]:
    """Per-joint torque rows for validation.  Energy rows are one scalar per interval, so data identified with
    them (continuous integrators) is validated through filtered differentiation at the simulation rate."""
    if model == "energy":
        model = "filtered"
        vdata = D.resample(vdata, 1.0 / float(vdata.info.get("dt", 1e-3)))
    rows = D.build_rows(spec, base, vdata, model)
    return rows, rows.y, rows.joint


def validation_error(spec, base, beta, vdata: D.JointData, model: str) -> np.ndarray:
    rows, y, joint = _validation_rows(spec, base, vdata, model)
    pred = rows.W @ beta
    out = []
    for j in range(spec.n):
        sel = joint == j
        out.append(float(np.sqrt(np.mean((pred[sel] - y[sel]) ** 2)) / max(np.sqrt(np.mean(y[sel] ** 2)), 1e-300)))
    return np.array(out)


def collect(spec: ArmSpec, engine: str | None, trajectory, duration: float, dt: float, rate: float,
            noise: D.NoiseModel, rng, engine_spec: ArmSpec | None = None) -> D.JointData:
    """Data for one trajectory: simulated on ``engine`` (None: the analytic model's exact inverse dynamics)."""
    if engine is None:
        data = D.exact_data(spec, trajectory, duration, rate)
        if noise.is_zero:
            return data
        return D.add_noise(data, noise, rng)
    data = D.simulate(spec, engine, trajectory, duration, dt, engine_spec)
    if noise.is_zero:
        return data
    return D.add_noise(D.resample(data, rate), noise, rng)


CONTACT_NOTE = ("the arm's [contact] and [[obstacles]] are left out of the simulated runs: the regressor models the "
                "free arm, and an excitation that strikes an obstacle would add contact torques no column explains "
                "(identify from data taken clear of the obstacles)")


def free_arm(spec: ArmSpec) -> ArmSpec:
    """``spec`` without its tip sphere and obstacles (identification simulates the free arm: :data:`CONTACT_NOTE`)."""
    from dataclasses import replace

    return replace(spec, contact=None, obstacles=())


def effort_notes(spec: ArmSpec, engine: str | None, data: D.JointData) -> list[str]:
    """A note when the arm's effort limits shaped the data: saturated tracking torque (the arm then did not
    follow the planned excitation; τ in the data is the applied, saturated torque, which the fit uses, so the
    estimate stays exact) or, for the analytic inverse dynamics (no engine), torques beyond the limits."""
    if not spec.has_effort:
        return []
    lim = spec.effort_limits()
    if engine is None:
        peak = np.max(np.abs(data.tau), axis=0)
        over = [f"joint {j + 1} {peak[j]:.3g} > {lim[j]:.3g} N m" for j in range(spec.n) if peak[j] > lim[j]]
        return [f"the analytic inverse dynamics ignore the effort limits: {', '.join(over)}"] if over else []
    eff = data.info.get("effort")
    if not eff or not any(eff["saturated_steps"]):
        return []
    frac = ", ".join(f"joint {j + 1} {100 * s / max(eff['steps'], 1):.1f} %" for j, s in enumerate(eff["saturated_steps"]))
    return [f"the effort limits saturated the tracking torque ({frac} of the steps): the arm did not follow the "
            "planned excitation (its condition number describes the plan, not the run); the data hold the applied, "
            "saturated torque, which is what the fit uses"]


def identify(spec: ArmSpec, engine: str | None = "analytic", csv=None, validation_csv=None,
             estimator: str = "ols", noise: D.NoiseModel | None = None, seed: int = 0, duration: float | None = None,
             dt: float = 1e-3, rate: float = 200.0, model: str = "auto", harmonics: int = HARMONICS,
             period: float = PERIOD,
             optimise: bool = True, forgetting: float = 0.999, friction: bool = True,
             validation_tolerance: float = VALIDATION_TOLERANCE, engine_spec: ArmSpec | None = None,
             excitation: Excitation | None = None) -> Result:
    """Identify ``spec``'s base parameters from ``engine``'s simulated data or a CSV record.

    ``engine=None`` and no CSV: the analytic model's own inverse dynamics along the excitation.
    """
    notes = []
    if spec.has_contact and csv is None:
        spec, engine_spec = free_arm(spec), None if engine_spec is None else free_arm(engine_spec)
        notes.append(CONTACT_NOTE)
    noise = noise or D.NoiseModel()
    rng = np.random.default_rng(seed)
    # rotor armature (I_a1 merges into ZZ1R, I_a2 … I_an are base parameters): columns only when the spec has it
    base = closed_form_base(spec, friction, armature=spec.has_armature)
    nb = numerical_base(spec, friction, seed=seed, armature=spec.has_armature)
    truth = base.values()
    duration = period if duration is None else duration
    if csv is not None:
        excitation = None
        data = D.read_csv(csv, spec.n, min_samples=max(base.r + 1, 8))
        if noise.velocity == "differentiate":
            data.qd = None
        rows = D.build_rows(spec, base, data, "filtered" if model == "auto" else model)
        if rows.W.shape[0] <= base.r:
            raise D.DataError(f"{csv}: {len(data.t)} samples give {rows.W.shape[0]} equations after filtering: "
                              f"too few for the {base.r} base parameters")
        if validation_csv is not None:
            vdata = D.read_csv(validation_csv, spec.n, min_samples=max(base.r + 1, 8))
            vrows = D.build_rows(spec, base, vdata, "filtered" if model == "auto" else model)
            fit_rows = rows
        else:
            # hold out the last quarter of the samples (rows are ordered by time, n per sample)
            cut = (3 * len(rows.y) // 4) // spec.n * spec.n
            fit_rows, vrows = rows.slice(0, cut), rows.slice(cut, len(rows.y))
        est = estimate(estimator, fit_rows, base)
        pred = vrows.W @ est.beta
        vrms = np.array([float(np.sqrt(np.mean((pred[vrows.joint == j] - vrows.y[vrows.joint == j]) ** 2))
                               / max(np.sqrt(np.mean(vrows.y[vrows.joint == j] ** 2)), 1e-300))
                         for j in range(spec.n)])
        rows = fit_rows
        vinfo = {"source": str(validation_csv) if validation_csv else "last quarter of the samples held out"}
    else:
        bounds = default_bounds(spec)
        if excitation is None and optimise:
            excitation = optimise_excitation(spec, base, bounds, harmonics=harmonics, period=period, seed=seed)
        traj = excitation.trajectory if excitation else random_fourier(bounds, harmonics, period, seed)
        data = collect(spec, engine, traj, duration, dt, rate, noise, rng, engine_spec)
        rows = D.build_rows(spec, base, data, model)
        est = estimate(estimator, rows, base)
        vtraj = random_fourier(bounds, harmonics, period, seed + 1000)
        vdata = collect(spec, engine, vtraj, duration, dt, rate, noise, rng, engine_spec)
        vrms = validation_error(spec, base, est.beta, vdata, rows.model)
        vinfo = {"source": f"a random Fourier trajectory (seed {seed + 1000}) under the same bounds, same source",
                 "trajectory": vtraj.params()}
        notes += effort_notes(spec, engine, data)
    every = max(1, len(rows.y) // 400)
    _, trace = rls(rows.W, rows.y, forgetting, every=every)
    scale = parameter_scale(base, rows)
    # a CSV's arm spec is a nominal model, not a known truth: reported beside the estimate, not tested
    return Result(spec, base, excitation, data, rows, est, None if csv is not None else truth, scale, vrms,
                  vinfo, trace, forgetting, estimator, noise, seed, validation_tolerance, nb.rank,
                  {"model": rows.model, "rls_every_rows": every, "engine": engine, "nominal": truth.tolist(),
                   "notes": notes})


# ------------------------------------------------------------------------------------------ diagnosis
@dataclass
class EngineDiagnosis:
    engine: str
    model: str
    beta: np.ndarray
    truth: np.ndarray
    relative: np.ndarray
    moved: list[dict]
    status: str = "ok"
    message: str = ""

    def as_dict(self, base: BaseParameters) -> dict:
        return {"engine": self.engine, "status": self.status, "message": self.message, "model": self.model,
                "max_relative_error": float(np.max(self.relative)) if len(self.relative) and self.status == "ok"
                else None,
                "moved": self.moved,
                "parameters": [{"name": base.names[k], "symbol": base.symbols[k], "true": float(self.truth[k]),
                                "estimate": float(self.beta[k]) if self.status == "ok" else None,
                                "relative_error": float(self.relative[k]) if self.status == "ok" else None}
                               for k in range(base.r)]}

    def summary(self, top: int = 3) -> str:
        if self.status != "ok":
            return f"{self.engine}: {self.status}: {self.message}"
        if not self.moved:
            return (f"{self.engine}: every base parameter as specified (max relative deviation "
                    f"{np.max(self.relative):.1e})")
        def label(m):
            return m["symbol"] if m["symbol"] == m["name"] else f"{m['symbol']} ({m['name']})"

        parts = [f"{label(m)} were {m['estimate']:.6g} instead of {m['true']:.6g} "
                 f"({m['change']:+.3g}, {m['relative']:.1e} relative)" for m in self.moved[:top]]
        more = f"; {len(self.moved) - top} more moved less" if len(self.moved) > top else ""
        return f"{self.engine}: behaves as if " + "; ".join(parts) + more


def diagnose_engines(spec: ArmSpec, engines, duration: float = 2.5, dt: float = 1e-3, seed: int = 0,
                     threshold: float = MOVED_THRESHOLD, engine_specs: dict | None = None,
                     optimise: bool = False) -> tuple[BaseParameters, list[EngineDiagnosis]]:
    """Identify each engine's base parameters from its own noise-free data and compare with the spec's.

    Uses the exact discrete relation for each engine's integrator (``auto``: step rows for semi-implicit
    Euler, energy rows otherwise) and OLS.  A base parameter "moved" when its relative deviation exceeds
    ``threshold``; moved parameters are listed largest first.  ``engine_specs`` maps an engine name to the
    spec it is built from (a deliberately different model), default ``spec``.  An engine that cannot represent
    the arm (``Engine.unsupported()``: PyBullet or DART and rotor armature; Drake and Coulomb friction) is
    reported with status "unsupported" and the reason, never fitted.
    """
    from crossdyn.identification.excitation import default_bounds

    if spec.has_contact:  # the free arm (CONTACT_NOTE)
        spec = free_arm(spec)
        engine_specs = {k: free_arm(v) for k, v in (engine_specs or {}).items()}
    base = closed_form_base(spec, armature=spec.has_armature)
    truth = base.values()
    bounds = default_bounds(spec)
    traj = optimise_excitation(spec, base, bounds, seed=seed).trajectory if optimise else \
        random_fourier(bounds, seed=seed)
    out = []
    for name in engines:
        try:
            data = D.simulate(spec, name, traj, duration, dt, (engine_specs or {}).get(name))
            rows = D.build_rows(spec, base, data)
            est = estimate("ols", rows, base)
        except (D.EngineCannotRepresent, EngineUnsupported) as e:  # e.g. PyBullet and armature: say why, fit nothing
            out.append(EngineDiagnosis(name, "", np.full(base.r, np.nan), truth, np.full(base.r, np.nan), [],
                                       "unsupported", str(e)))
            continue
        except Exception as e:  # noqa: BLE001 — an engine failing is a result for the report
            out.append(EngineDiagnosis(name, "", np.full(base.r, np.nan), truth, np.full(base.r, np.nan), [],
                                       "failed", f"{type(e).__name__}: {e}"))
            continue
        scale = parameter_scale(base, rows)
        rel = relative_errors(est.beta, truth, scale)
        order = np.argsort(-rel)
        moved = [{"symbol": base.symbols[k], "name": base.names[k], "true": float(truth[k]),
                  "estimate": float(est.beta[k]), "change": float(est.beta[k] - truth[k]),
                  "relative": float(rel[k])} for k in order if rel[k] > threshold]
        out.append(EngineDiagnosis(name, rows.model, est.beta, truth, rel, moved))
    return base, out


def compare_section(spec: ArmSpec, engines, duration: float = 2.5, dt: float = 1e-3, seed: int = 0,
                    engine_specs: dict | None = None) -> tuple[dict, str]:
    """For ``crossdyn compare --identify``: (JSON-able dict, Markdown section) of :func:`diagnose_engines`.

    The dict is ``{"base_parameters": [{symbol, name, true}], "engines": [EngineDiagnosis.as_dict()]}``.
    """
    base, diags = diagnose_engines(spec, engines, duration, dt, seed, engine_specs=engine_specs)
    data = {"base_parameters": [{"symbol": s, "name": n, "true": float(v)}
                                for s, n, v in zip(base.symbols, base.names, base.values())],
            "threshold_relative": MOVED_THRESHOLD,
            "engines": [d.as_dict(base) for d in diags]}
    lines = ["## Base parameters identified from each engine's own data", "",
             f"Noise-free excitation ({duration:g} s, dt = {dt:g} s), exact discrete relation per integrator, OLS; "
             f"a parameter has moved when it differs from the spec's by more than {MOVED_THRESHOLD:g} relative.", ""]
    lines += [f"- {d.summary()}" for d in diags]
    return data, "\n".join(lines) + "\n"
