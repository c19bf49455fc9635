"""The identification workflow: excitation → data → estimate → validation (:func:`identify`).

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

The result is :class:`~crossdyn.identification.result.IdentificationResult`; the cross-engine diagnosis is
:mod:`crossdyn.identification.diagnosis` (both re-exported here, where they were).
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields, replace

import numpy as np

from crossdyn.identification import data as D
from crossdyn.identification.common import (CONTACT_NOTE, MOVED_THRESHOLD, RELATIVE_FLOOR,  # noqa: F401
                                            VALIDATION_TOLERANCE, free_arm, parameter_scale, relative_errors)
from crossdyn.identification.diagnosis import EngineDiagnosis, compare_section, diagnose_engines  # noqa: F401
from crossdyn.identification.estimators import Estimate, estimate, rls
from crossdyn.identification.excitation import (HARMONICS, PERIOD, Excitation, default_bounds, optimise_excitation,
                                                random_fourier)
from crossdyn.identification.parameters import BaseParameters, closed_form_base, numerical_base
from crossdyn.identification.result import IdentificationResult, Result  # noqa: F401
from crossdyn.models.spec import ArmSpec


TRUTHS = ("auto", "spec", "none")
"""``IdentifyOptions.truth``: what the estimate is judged against (see :class:`IdentifyOptions`)."""


@dataclass(frozen=True)
class IdentifyOptions:
    """How :func:`identify` excites, samples, fits and judges (every field a keyword of :func:`identify` too).

    ``duration`` None is one excitation period; ``noise`` None is noise-free; ``model`` ``auto`` is the exact
    discrete relation for noise-free engine data and filtered differentiation otherwise.  ``truth``: what the
    estimate is judged against — ``spec`` the arm file's base parameters, ``none`` nothing (the verdict is then
    INCONCLUSIVE unless validation fails), ``auto`` (default) ``spec`` for simulated data (the spec made them)
    and ``none`` for a CSV record (its arm file is a nominal model unless the user says it is the truth).
    """

    estimator: str = "ols"
    noise: D.NoiseModel | None = None
    seed: int = 0
    duration: float | None = None
    dt: float = 1e-3
    rate: float = 200.0
    model: str = "auto"
    harmonics: int = HARMONICS
    period: float = PERIOD
    optimise: bool = True
    forgetting: float = 0.999
    friction: bool = True
    validation_tolerance: float = VALIDATION_TOLERANCE
    truth: str = "auto"

    def resolved(self) -> "IdentifyOptions":
        """The defaults that depend on other fields filled in (``duration`` one period, ``noise`` none)."""
        return replace(self, noise=self.noise or D.NoiseModel(),
                       duration=self.period if self.duration is None else self.duration)

    @classmethod
    def of(cls, options: "IdentifyOptions | None", overrides: dict) -> "IdentifyOptions":
        """``options`` (default: the defaults) with the keyword arguments ``overrides`` applied."""
        if options is not None and not isinstance(options, cls):
            raise TypeError(f"identify: options must be an IdentifyOptions, got {options!r}")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(overrides) - known)
        if unknown:
            raise TypeError(f"identify() got an unexpected keyword argument {unknown[0]!r}")
        return replace(options or cls(), **overrides)


@dataclass
class _Fit:
    """What one data source gave: the data and rows fitted, the estimate, the validation."""

    data: D.JointData
    rows: D.Rows
    est: Estimate
    validation_rms: np.ndarray
    validation: dict
    excitation: Excitation | None = None
    notes: list[str] = field(default_factory=list)


def _validation_rows(spec, base, vdata: D.JointData, model: str) -> tuple[D.Rows, np.ndarray, np.ndarray]:
    """Per-joint torque rows for validation.  Energy rows are one scalar per interval, so data identified with
    them (continuous integrators) is validated through filtered differentiation at the simulation rate."""
    if model == "energy":
        model = "filtered"
        vdata = D.resample(vdata, 1.0 / float(vdata.info.get("dt", 1e-3)))
    rows = D.build_rows(spec, base, vdata, model)
    return rows, rows.y, rows.joint


def _per_joint_rms(pred: np.ndarray, y: np.ndarray, joint: np.ndarray, n: int) -> np.ndarray:
    """Per joint j: ‖pred − y‖_rms / ‖y‖_rms over the rows of joint j."""
    out = []
    for j in range(n):
        sel = joint == j
        out.append(float(np.sqrt(np.mean((pred[sel] - y[sel]) ** 2)) / max(np.sqrt(np.mean(y[sel] ** 2)), 1e-300)))
    return np.array(out)


def validation_error(spec, base, beta, vdata: D.JointData, model: str) -> tuple[np.ndarray, int]:
    """Per joint: the relative RMS torque prediction error of ``beta`` on the validation data ``vdata``; and the
    number of torque values compared (validation rows, all joints)."""
    rows, y, joint = _validation_rows(spec, base, vdata, model)
    return _per_joint_rms(rows.W @ beta, y, joint, spec.n), int(len(y))


def collect(spec: ArmSpec, engine: str | None, trajectory, options: IdentifyOptions, rng,
            engine_spec: ArmSpec | None = None) -> D.JointData:
    """Data for one trajectory (``options``: duration, dt, rate, noise): simulated on ``engine`` (None: the
    analytic model's exact inverse dynamics)."""
    o = options.resolved()
    assert o.duration is not None and o.noise is not None
    if engine is None:
        data = D.exact_data(spec, trajectory, o.duration, o.rate)
        if o.noise.is_zero:
            return data
        return D.add_noise(data, o.noise, rng)
    data = D.simulate(spec, engine, trajectory, o.duration, o.dt, engine_spec)
    if o.noise.is_zero:
        return data
    return D.add_noise(D.resample(data, o.rate), o.noise, rng)


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


def _fit_csv(spec: ArmSpec, base: BaseParameters, csv, validation_csv, o: IdentifyOptions) -> _Fit:
    """A recorded CSV: fit it, validate on ``validation_csv`` or on its own last quarter (held out)."""
    assert o.noise is not None
    model = "filtered" if o.model == "auto" else o.model
    data = D.read_csv(csv, spec.n, min_samples=max(base.r + 1, 8))
    if o.noise.velocity == "differentiate":
        data.qd = None
    rows = D.build_rows(spec, base, data, model)
    if rows.W.shape[0] <= base.r:
        raise D.DataError(f"{csv}: {len(data.t)} samples give {rows.W.shape[0]} equations after filtering: "
                          f"too few for the {base.r} base parameters")
    if validation_csv is not None:
        vdata = D.read_csv(validation_csv, spec.n, min_samples=max(base.r + 1, 8))
        vrows = D.build_rows(spec, base, vdata, model)
        fit_rows = rows
    else:
        # hold out the last quarter of the samples (rows are ordered by time, n per sample)
        cut = (3 * len(rows.y) // 4) // spec.n * spec.n
        fit_rows, vrows = rows.slice(0, cut), rows.slice(cut, len(rows.y))
    est = estimate(o.estimator, fit_rows, base)
    vrms = _per_joint_rms(vrows.W @ est.beta, vrows.y, vrows.joint, spec.n)
    vinfo = {"source": str(validation_csv) if validation_csv else "last quarter of the samples held out",
             "torque_values": int(len(vrows.y))}
    return _Fit(data, fit_rows, est, vrms, vinfo)


def _fit_simulated(spec: ArmSpec, base: BaseParameters, engine: str | None, engine_spec: ArmSpec | None,
                   excitation: Excitation | None, o: IdentifyOptions, rng) -> _Fit:
    """The excitation (optimised unless given or ``optimise`` is off) run on ``engine``, fitted, and validated on
    a random Fourier trajectory of seed + 1000 under the same bounds through the same source."""
    bounds = default_bounds(spec)
    if excitation is None and o.optimise:
        excitation = optimise_excitation(spec, base, bounds, harmonics=o.harmonics, period=o.period, seed=o.seed)
    traj = excitation.trajectory if excitation else random_fourier(bounds, o.harmonics, o.period, o.seed)
    data = collect(spec, engine, traj, o, rng, engine_spec)
    rows = D.build_rows(spec, base, data, o.model)
    est = estimate(o.estimator, rows, base)
    vtraj = random_fourier(bounds, o.harmonics, o.period, o.seed + 1000)
    vdata = collect(spec, engine, vtraj, o, rng, engine_spec)
    vrms, compared = validation_error(spec, base, est.beta, vdata, rows.model)
    vinfo = {"source": f"a random Fourier trajectory (seed {o.seed + 1000}) under the same bounds, same source",
             "trajectory": vtraj.params(), "torque_values": compared}
    return _Fit(data, rows, est, vrms, vinfo, excitation, effort_notes(spec, engine, data))


def identify(spec: ArmSpec, engine: str | None = "analytic", csv=None, validation_csv=None,
             options: IdentifyOptions | None = None, *, engine_spec: ArmSpec | None = None,
             excitation: Excitation | None = None, **overrides) -> IdentificationResult:
    """Identify ``spec``'s base parameters from ``engine``'s simulated data or a CSV record.

    ``engine=None`` and no CSV: the analytic model's own inverse dynamics along the excitation.  ``options``
    (:class:`IdentifyOptions`) or its fields as keywords (``identify(spec, estimator="wls", seed=3)``).
    """
    o = IdentifyOptions.of(options, overrides).resolved()
    if o.truth not in TRUTHS:
        raise D.DataError(f"truth: must be one of {', '.join(TRUTHS)}, got {o.truth!r}")
    notes = []
    if spec.has_contact and csv is None:
        spec, engine_spec = free_arm(spec), None if engine_spec is None else free_arm(engine_spec)
        notes.append(CONTACT_NOTE)
    rng = np.random.default_rng(o.seed)
    # rotor armature (I_a1 merges into ZZ1R, I_a2 … I_an are base parameters): columns only when the spec has it
    base = closed_form_base(spec, o.friction, armature=spec.has_armature)
    nb = numerical_base(spec, o.friction, seed=o.seed, armature=spec.has_armature)
    truth = base.values()
    if csv is not None:
        fit = _fit_csv(spec, base, csv, validation_csv, o)
    else:
        fit = _fit_simulated(spec, base, engine, engine_spec, excitation, o, rng)
    rows = fit.rows
    every = max(1, len(rows.y) // 400)
    _, trace = rls(rows.W, rows.y, o.forgetting, every=every)
    assert o.noise is not None
    info = {"model": rows.model, "rls_every_rows": every, "engine": engine, "nominal": truth.tolist(),
            "notes": notes + fit.notes}
    # a CSV's arm spec is a nominal model, not a known truth, unless asked (truth="spec"): reported beside the
    # estimate, not tested
    use_truth = o.truth == "spec" or (o.truth == "auto" and csv is None)
    info["truth"] = "spec" if use_truth else "none"
    return IdentificationResult(spec, base, fit.excitation, fit.data, rows, fit.est,
                                truth if use_truth else None, parameter_scale(base, rows),
                                fit.validation_rms, fit.validation, trace, o.forgetting, o.estimator, o.noise,
                                o.seed, o.validation_tolerance, nb.rank, info)
