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
integration error only, whose "interval" would otherwise be narrower than the integration error itself.  The
reports print each interval as judged, β̂ ± max(t·stderr, allowance) (:meth:`IdentificationResult.judged_interval`,
marked ``*`` where the allowance widens it), and no relative error against a true value of 0.

The result is :class:`~crossdyn.identification.result.IdentificationResult`; the cross-engine diagnosis is
:mod:`crossdyn.identification.diagnosis` (both re-exported here, where they were).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field, fields, replace
from typing import Any, Protocol

import numpy as np

from crossdyn.identification import data as D
from crossdyn.identification.common import (CONTACT_NOTE, MOVED_THRESHOLD, RELATIVE_FLOOR,  # noqa: F401
                                            VALIDATION_TOLERANCE, free_arm, parameter_scale, relative_errors)
from crossdyn.identification.diagnosis import EngineDiagnosis, compare_section, diagnose_engines  # noqa: F401
from crossdyn.identification.estimators import Estimate, consistent, estimate, rls
from crossdyn.identification.excitation import (HARMONICS, PERIOD, Bounds, Excitation, FourierTrajectory,
                                                default_bounds, optimise_excitation, random_fourier)
from crossdyn.identification.parameters import BaseParameters, closed_form_base, numerical_base
from crossdyn.identification.result import IdentificationResult, Result  # noqa: F401
from crossdyn.models.spec import ArmSpec


TRUTHS = ("auto", "spec", "none")
"""``IdentifyOptions.truth``: what the estimate is judged against (see :class:`IdentifyOptions`)."""


@dataclass(frozen=True)
class IdentifyOptions:
    """How :func:`identify` excites, samples, fits and judges (every field a keyword of :func:`identify` too).

    ``duration`` None is one excitation period; ``noise`` None is noise-free; ``harmonics``, ``period`` and ``dt``
    None are the arm kind's defaults (:attr:`Plant.defaults`: planar 20 harmonics, 10 s, 1 ms; spatial 5, 4 s,
    2 ms); ``model`` ``auto`` is the exact discrete relation for noise-free engine data and filtered
    differentiation otherwise.  ``truth``: what the estimate is judged against — ``spec`` the arm file's base
    parameters, ``none`` nothing (the verdict is then INCONCLUSIVE unless validation fails), ``auto`` (default)
    ``spec`` for simulated data (the spec made them) and ``none`` for a CSV record (its arm file is a nominal
    model unless the user says it is the truth).
    """

    estimator: str = "ols"
    noise: D.NoiseModel | None = None
    seed: int = 0
    duration: float | None = None
    dt: float | None = None
    rate: float = 200.0
    model: str = "auto"
    harmonics: int | None = None
    period: float | None = None
    optimise: bool = True
    forgetting: float = 0.999
    friction: bool = True
    validation_tolerance: float = VALIDATION_TOLERANCE
    truth: str = "auto"

    def resolved(self, defaults: dict | None = None) -> "IdentifyOptions":
        """The defaults that depend on the arm kind (``defaults``: its ``harmonics``, ``period``, ``dt``; default
        the planar ones) or on other fields (``duration`` one period, ``noise`` none) filled in."""
        kind = {**PLANAR_DEFAULTS, **(defaults or {})}
        given = {k: getattr(self, k) for k in kind}
        o = replace(self, **{k: kind[k] if v is None else v for k, v in given.items()})
        return replace(o, noise=o.noise or D.NoiseModel(), duration=o.period if o.duration is None else o.duration)

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


PLANAR_DEFAULTS = {"harmonics": HARMONICS, "period": PERIOD, "dt": 1e-3}
"""The planar kind's excitation and simulation defaults (:attr:`IdentifyOptions.resolved`)."""


class Plant(Protocol):
    """What an arm kind supplies to :func:`identify`: its regressor rows, its base set and naming, its data, its
    feasibility projection (the consistent estimator).  :class:`PlanarPlant` (closed-form regressor and base set)
    and :class:`crossdyn.identification.spatial_identify.SpatialPlant` (the spatial regressor, numeric base set)."""

    @property
    def kind(self) -> str: ...                 # "planar" | "spatial": the result's kind (identify.json's fields)

    @property
    def arm(self) -> Any: ...                  # ArmSpec | RobotModel: name, n

    @property
    def defaults(self) -> dict: ...            # harmonics, period, dt

    @property
    def notes(self) -> tuple[str, ...]: ...    # what the run left out (a planar arm's contact, the optimiser)

    @property
    def rls(self) -> bool: ...                 # whether the result carries a recursive-least-squares trace

    def base_set(self, o: IdentifyOptions) -> tuple[Any, int]: ...       # (base set, numerical rank)

    def excite(self, base, o: IdentifyOptions, given: Excitation | None) -> tuple[Bounds, Excitation | None,
                                                                                   FourierTrajectory]: ...

    def collect(self, engine: str | None, traj, o: IdentifyOptions, rng) -> D.JointData: ...

    def rows(self, base, data: D.JointData, model: str) -> D.Rows: ...

    def validation_rows(self, base, vdata: D.JointData, model: str) -> D.Rows: ...

    def consistent(self, W, y, base, joint=None, rho=None) -> Estimate: ...

    def run_notes(self, engine: str | None, data: D.JointData) -> list[str]: ...

    def run_info(self, bounds: Bounds, traj: FourierTrajectory) -> dict: ...


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
    info: dict = field(default_factory=dict)


def _validation_rows(spec, base, vdata: D.JointData, model: str) -> D.Rows:
    """Per-joint torque rows for validation.  Energy rows are one scalar per interval, so data identified with
    them (continuous integrators) is validated through filtered differentiation at the simulation rate."""
    if model == "energy":
        model = "filtered"
        vdata = D.resample(vdata, 1.0 / float(vdata.info.get("dt", 1e-3)))
    return D.build_rows(spec, base, vdata, model)


def per_joint_rms(pred: np.ndarray, y: np.ndarray, joint: np.ndarray, n: int) -> np.ndarray:
    """Per joint j: ‖pred − y‖_rms / ‖y‖_rms over the rows of joint j."""
    out = []
    for j in range(n):
        sel = joint == j
        out.append(float(np.sqrt(np.mean((pred[sel] - y[sel]) ** 2)) / max(np.sqrt(np.mean(y[sel] ** 2)), 1e-300)))
    return np.array(out)


_per_joint_rms = per_joint_rms


def validation_error(spec, base, beta, vdata: D.JointData, model: str) -> tuple[np.ndarray, int]:
    """Per joint: the relative RMS torque prediction error of ``beta`` on the validation data ``vdata``; and the
    number of torque values compared (validation rows, all joints)."""
    rows = _validation_rows(spec, base, vdata, model)
    return per_joint_rms(rows.W @ beta, rows.y, rows.joint, spec.n), int(len(rows.y))


def collect(spec: ArmSpec, engine: str | None, trajectory, options: IdentifyOptions, rng,
            engine_spec: ArmSpec | None = None) -> D.JointData:
    """Data for one trajectory of a planar arm (``options``: duration, dt, rate, noise): simulated on ``engine``
    (None: the analytic model's exact inverse dynamics)."""
    o = options.resolved()
    assert o.duration is not None and o.noise is not None and o.dt is not None
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


@dataclass(frozen=True)
class PlanarPlant:
    """The planar kind (:class:`Plant`): the closed-form regressor and base set (:mod:`~crossdyn.identification.
    parameters`), the condition-number-optimised excitation, data from an engine or the exact inverse dynamics,
    the planar consistent estimator.  A spec with contact is identified as its free arm (:data:`CONTACT_NOTE`)."""

    arm: ArmSpec
    engine_spec: ArmSpec | None = None
    kind: str = "planar"
    defaults: dict = field(default_factory=lambda: dict(PLANAR_DEFAULTS))
    notes: tuple[str, ...] = ()
    rls: bool = True

    @classmethod
    def of(cls, spec: ArmSpec, engine_spec: ArmSpec | None = None, simulated: bool = True) -> "PlanarPlant":
        """The plant of ``spec``: its free arm when it has contact and the data are simulated (:data:`CONTACT_NOTE`)."""
        if not (spec.has_contact and simulated):
            return cls(spec, engine_spec)
        return cls(free_arm(spec), None if engine_spec is None else free_arm(engine_spec), notes=(CONTACT_NOTE,))

    def base_set(self, o: IdentifyOptions) -> tuple[BaseParameters, int]:
        """The closed-form base set; rotor armature columns only when the spec has it (I_a1 merges into ZZ1R)."""
        base = closed_form_base(self.arm, o.friction, armature=self.arm.has_armature)
        return base, numerical_base(self.arm, o.friction, seed=o.seed, armature=self.arm.has_armature).rank

    def excite(self, base, o: IdentifyOptions, given: Excitation | None):
        """The bounds of the spec; the excitation ``given``, else optimised (``optimise``), else random Fourier."""
        assert o.harmonics is not None and o.period is not None
        bounds = default_bounds(self.arm)
        if given is None and o.optimise:
            given = optimise_excitation(self.arm, base, bounds, harmonics=o.harmonics, period=o.period, seed=o.seed)
        return bounds, given, given.trajectory if given else random_fourier(bounds, o.harmonics, o.period, o.seed)

    def collect(self, engine: str | None, traj, o: IdentifyOptions, rng) -> D.JointData:
        return collect(self.arm, engine, traj, o, rng, self.engine_spec)

    def rows(self, base, data: D.JointData, model: str) -> D.Rows:
        return D.build_rows(self.arm, base, data, model)

    def validation_rows(self, base, vdata: D.JointData, model: str) -> D.Rows:
        return _validation_rows(self.arm, base, vdata, model)

    def consistent(self, W, y, base, joint=None, rho=None) -> Estimate:
        return consistent(W, y, base, joint=joint, rho=rho)

    def run_notes(self, engine: str | None, data: D.JointData) -> list[str]:
        return effort_notes(self.arm, engine, data)

    def run_info(self, bounds: Bounds, traj: FourierTrajectory) -> dict:
        return {}


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
    vrms = per_joint_rms(vrows.W @ est.beta, vrows.y, vrows.joint, spec.n)
    vinfo = {"source": str(validation_csv) if validation_csv else "last quarter of the samples held out",
             "torque_values": int(len(vrows.y))}
    return _Fit(data, fit_rows, est, vrms, vinfo)


def _fit_simulated(plant: Plant, base, engine: str | None, excitation: Excitation | None, o: IdentifyOptions,
                   rng) -> _Fit:
    """Either kind: the excitation run on ``engine`` through the plant, fitted, and validated on a random Fourier
    trajectory of seed + 1000 under the same bounds through the same source."""
    assert o.harmonics is not None and o.period is not None
    bounds, excitation, traj = plant.excite(base, o, excitation)
    data = plant.collect(engine, traj, o, rng)
    rows = plant.rows(base, data, o.model)
    est = estimate(o.estimator, rows, base, plant.consistent)
    vtraj = random_fourier(bounds, o.harmonics, o.period, o.seed + 1000)
    vrows = plant.validation_rows(base, plant.collect(engine, vtraj, o, rng), rows.model)
    vrms = per_joint_rms(vrows.W @ est.beta, vrows.y, vrows.joint, plant.arm.n)
    vinfo: dict = {"source": f"a random Fourier trajectory (seed {o.seed + 1000}) under the same bounds, same source"}
    if plant.kind == "planar":
        vinfo["trajectory"] = vtraj.params()
    vinfo["torque_values"] = int(len(vrows.y))
    return _Fit(data, rows, est, vrms, vinfo, excitation, plant.run_notes(engine, data), plant.run_info(bounds, traj))


def plant_of(arm, engine_spec: ArmSpec | None = None, simulated: bool = True) -> Plant:
    """The plant of ``arm``: :class:`PlanarPlant` for an :class:`~crossdyn.models.spec.ArmSpec`,
    :class:`~crossdyn.identification.spatial_identify.SpatialPlant` for a :class:`~crossdyn.robots.model.RobotModel`."""
    if isinstance(arm, ArmSpec):
        return PlanarPlant.of(arm, engine_spec, simulated)
    from crossdyn.identification.spatial_identify import SpatialPlant
    from crossdyn.robots.model import RobotModel

    if not isinstance(arm, RobotModel):
        raise TypeError(f"identify: arm must be an ArmSpec or a RobotModel, got {type(arm).__name__}")
    return SpatialPlant(arm)


def identify(arm, engine: str | None = "analytic", csv=None, validation_csv=None,
             options: IdentifyOptions | None = None, *, engine_spec: ArmSpec | None = None,
             excitation: Excitation | None = None, **overrides) -> IdentificationResult:
    """Identify ``arm``'s base parameters from ``engine``'s simulated data or a CSV record; ``arm`` a planar
    :class:`~crossdyn.models.spec.ArmSpec` or a spatial :class:`~crossdyn.robots.model.RobotModel` (a spatial
    preset's, a URDF's or MJCF's): its :class:`Plant` supplies the regressor, base set and data, this one driver
    the rest.

    ``engine=None`` and no CSV: the model's own inverse dynamics along the excitation; for a spatial arm
    ``"analytic"`` (default) or ``"spatial"`` is crossdyn's spatial ABA (no other engine, no CSV yet).
    ``options`` (:class:`IdentifyOptions`) or its fields as keywords (``identify(spec, estimator="wls", seed=3)``).
    """
    start = time.perf_counter()
    plant = plant_of(arm, engine_spec, simulated=csv is None)
    o = IdentifyOptions.of(options, overrides).resolved(plant.defaults)
    if o.truth not in TRUTHS:
        raise D.DataError(f"truth: must be one of {', '.join(TRUTHS)}, got {o.truth!r}")
    if plant.kind != "planar" and (csv is not None or engine_spec is not None):
        raise D.DataError("identify: a spatial arm is identified from simulated data only (no CSV, no engine_spec)")
    rng = np.random.default_rng(o.seed)
    base, rank = plant.base_set(o)
    truth = base.values()
    if csv is not None:
        fit = _fit_csv(plant.arm, base, csv, validation_csv, o)
    else:
        fit = _fit_simulated(plant, base, engine, excitation, o, rng)
    fit.info["seconds"] = time.perf_counter() - start
    return _result(plant, base, rank, truth, fit, engine, csv is not None, o)


def _result(plant: Plant, base, rank: int, truth: np.ndarray, fit: _Fit, engine: str | None, from_csv: bool,
            o: IdentifyOptions) -> IdentificationResult:
    """The result of either kind (RLS trace where the plant keeps one; the spec's values as the truth unless a
    CSV record is judged without ``truth="spec"``)."""
    rows, trace, every = fit.rows, None, max(1, len(fit.rows.y) // 400)
    info: dict = {"model": rows.model, "engine": engine, "notes": list(plant.notes) + fit.notes, **fit.info}
    if plant.rls:
        _, trace = rls(rows.W, rows.y, o.forgetting, every=every)
        info.update({"rls_every_rows": every, "nominal": truth.tolist()})
    # a CSV's arm spec is a nominal model, not a known truth, unless asked (truth="spec"): reported beside the
    # estimate, not tested
    use_truth = o.truth == "spec" or (o.truth == "auto" and not from_csv)
    info["truth"] = "spec" if use_truth else "none"
    assert o.noise is not None
    return IdentificationResult(plant.arm, base, fit.excitation, fit.data, rows, fit.est,
                                truth if use_truth else None, parameter_scale(base, rows),
                                fit.validation_rms, fit.validation, trace, o.forgetting, o.estimator, o.noise,
                                o.seed, o.validation_tolerance, rank, info, plant.kind)
