"""Identification data: joint records from an engine or a CSV file, and the regression rows built from them.

Simulated data: the excitation q_d(t) is tracked with feed-forward torque from the arm's model plus PD,

    τ_k = τ_ff(t_k) + M(q_d(t_k)) [K_p (q_d(t_k) − q_k) + K_d (q̇_d(t_k) − q̇_k)],
    τ_ff = M q̈_d + C q̇_d + G + F (analytic, along the reference)

(gains in acceleration units, scaled by the reference's mass matrix so that a light distal link is not
over-damped into the explicit-discretisation instability kd·dt/M > 2)
through :func:`crossdyn.drive.runner.run_engine` (the one loop every engine runs through; τ held over
each step).  The record is q_k, q̇_k (k = 0 … K) and τ_k (k = 0 … K−1).

Regression rows W β = y, three ways:

``step``      the discrete dynamics of a semi-implicit Euler engine: q̇_{k+1} = q̇_k + dt q̈_k with
              q̈_k = M⁻¹(τ_k − C q̇_k − G − F) at (q_k, q̇_k), so q̈_k = (q̇_{k+1} − q̇_k)/dt exactly and
              τ_k = Y(q_k, q̇_k, q̈_k) θ holds to rounding (armature: its column I_ai q̈_i takes the same
              difference quotient, since the engine's M includes diag(I_a)).
``energy``    the energy balance over each hold interval: with τ constant on [t_k, t_{k+1}],
              E(x_{k+1}) − E(x_k) + ∫ (b q̇² + f_c |q̇|) dt = τ_k · (q_{k+1} − q_k), E = e(q, q̇) θ
              (:func:`~crossdyn.identification.parameters.energy_regressor`; armature adds the rotor's
              kinetic energy ½ I_ai q̇_i², columns ½ Δ(q̇_i²)); exact for a continuous-time
              integrator up to its integration error (RK4: ~1e-10 rad), the friction integrals by 3-point
              Gauss–Legendre on the cubic Hermite interpolant of q.  Identifies the same base parameters.
``filtered``  the way measured data is treated: samples at ``rate`` Hz, q̇ (when absent) and q̈ by zero-phase
              filtered differentiation — Butterworth low-pass run forwards and backwards
              (scipy.signal.sosfiltfilt), then central differences — and parallel filtering: every regressor
              column and τ through the same filter, ends trimmed, decimated (:func:`rows_filtered`).
"""
from __future__ import annotations

import csv
import math
from dataclasses import dataclass, field
from typing import Any, cast
from pathlib import Path

import numpy as np

from crossdyn import analytic
from crossdyn.io import InputError, number_cell
from crossdyn.identification.parameters import BaseParameters, energy_regressor, full_regressor
from crossdyn.models.spec import ArmSpec


class DataError(InputError):
    """Identification input (a CSV file, a noise option) is unusable; the message names the file and place
    (exit code 2 on the command line)."""


class EngineCannotRepresent(DataError):
    """The engine cannot represent the arm (``Engine.unsupported()``, e.g. PyBullet and rotor armature): its data
    would be a different arm's, so it is refused (exit 2 with the reason) rather than fitted."""


def _columns(base: BaseParameters) -> dict:
    """The optional column blocks ``base`` was built with: friction (b, f_c) and armature (I_a)."""
    return {"friction": "b1" in base.full.names, "armature": "Ia1" in base.full.names}


@dataclass
class JointData:
    """q, q̇ (optional), q̈ (optional), τ on a time grid t (shape (K,) / (K, n)).

    For a simulated record, ``step_record`` is True: q, q̇ have K+1 rows (states at t_0 … t_K) and τ has K
    rows (held over each step).  Otherwise every array has one row per time.
    """

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray | None
    qdd: np.ndarray | None
    tau: np.ndarray
    source: str
    step_record: bool = False
    integrator: str = ""
    info: dict = field(default_factory=dict)

    @property
    def n(self) -> int:
        return self.q.shape[1]


def _recorded_qd(data: JointData) -> np.ndarray:
    """q̇ of a record that must have it (a simulated step record always does)."""
    if data.qd is None:
        raise DataError(f"{data.source}: the record has no joint velocities q̇ (a simulated step record has them)")
    return data.qd


# ------------------------------------------------------------------------------------------ simulation
class TrackingProfile:
    """Closed loop: τ = τ_ff(t_k) + M(q_d)[K_p (q_d − q) + K_d (q̇_d − q̇)], reference precomputed per step."""

    name = "identification-tracking"
    closed_loop = True

    def __init__(self, spec: ArmSpec, trajectory, dt: float, duration: float, kp=400.0, kd=40.0):
        self.n = spec.n
        steps = int(round(duration / dt))
        t = np.arange(steps + 1) * dt
        self.qd_ref, self.vd_ref, ad = trajectory.evaluate(t)
        self.ff = analytic.inverse_dynamics(spec, self.qd_ref, self.vd_ref, ad)
        self.M = analytic.mass_matrix(spec, self.qd_ref)
        self.dt = dt
        self.kp, self.kd = float(kp), float(kd)
        self.trajectory = trajectory

    def __call__(self, t, q, qd):
        k = int(round(t / self.dt))
        return self.ff[k] + self.M[k] @ (self.kp * (self.qd_ref[k] - q) + self.kd * (self.vd_ref[k] - qd))

    def params(self) -> dict:
        return {"name": self.name, "closed_loop": True, "n": self.n, "kp": self.kp, "kd": self.kd,
                "law": "tau_ff(t) + M(q_d)(kp*(q_d - q) + kd*(qd_d - qd)), tau_ff = analytic M qdd_d + C qd_d + G + F",
                "trajectory": self.trajectory.params()}


def simulate(spec: ArmSpec, engine_name: str, trajectory, duration: float, dt: float = 1e-3,
             engine_spec: ArmSpec | None = None) -> JointData:
    """Run the tracking controller on ``engine_name`` (a registry name, options after ``@`` allowed).

    ``engine_spec`` (default ``spec``) is what the engine is built from; the controller always uses ``spec``.
    The recorded τ is the torque the engine was given: with effort limits, the runner's saturated one
    (``info["effort"]`` counts the saturated steps per joint).  An engine that cannot represent the arm
    (``Engine.unsupported()``) raises :class:`EngineCannotRepresent`.
    """
    from crossdyn.drive.runner import run_engine
    from crossdyn.engines import make_engine
    from crossdyn.inputs.start import check_start

    engine = make_engine(engine_name, engine_spec or spec, dt)
    reasons = engine.unsupported()
    if reasons:  # e.g. PyBullet without armature: fitting its data would identify another arm
        engine.close()
        raise EngineCannotRepresent(f"{engine_name}: cannot identify {(engine_spec or spec).name} from this engine: "
                                    + "; ".join(reasons), "engine", engine_name)
    try:
        profile = TrackingProfile(spec, trajectory, dt, duration)
        q0, qd0, _ = trajectory.evaluate([0.0])
        check_start(spec, q0[0], "the excitation's start q(0)")  # inside the limits by construction: checked
        run = run_engine(engine, cast(Any, profile), q0[0], qd0[0], duration)  # a Profile by its interface
        config = engine.config()
        integrator = engine.integrator
    finally:
        engine.close()
    if run.status != "ok":
        raise RuntimeError(f"{engine_name}: the identification run {run.status}: {run.message}")
    info = {"engine": engine_name, "config": config, "dt": dt, "duration": duration}
    if "effort" in (run.info or {}):  # run.tau is the applied torque: saturated to the effort limits by the runner
        info["effort"] = {**run.info["effort"], "steps": len(run.tau)}
    return JointData(run.t, run.q, run.qd, None, run.tau, f"engine {engine_name}", True, str(integrator), info)


def exact_data(spec: ArmSpec, trajectory, duration: float, rate: float) -> JointData:
    """The analytic model's data: τ = inverse dynamics along the trajectory itself, sampled at ``rate`` Hz."""
    t = np.arange(int(round(duration * rate)) + 1) / rate
    q, qd, qdd = trajectory.evaluate(t)
    return JointData(t, q, qd, qdd, analytic.inverse_dynamics(spec, q, qd, qdd), "analytic inverse dynamics")


# ------------------------------------------------------------------------------------------ noise
@dataclass(frozen=True)
class NoiseModel:
    """Measurement effects, applied the way a real robot's data arrives.

    ``encoder``: resolution of the joint encoders in rad (q rounded to it; 0: none); ``torque``: standard
    deviation of additive Gaussian torque noise in N m; ``velocity``: "measured" keeps q̇ (plus Gaussian noise
    ``velocity_std`` rad/s), "differentiate" drops it so it is obtained by filtered differentiation of q.
    """

    encoder: float = 0.0
    torque: float = 0.0
    velocity: str = "measured"
    velocity_std: float = 0.0

    @property
    def is_zero(self) -> bool:
        return self.encoder == 0 and self.torque == 0 and self.velocity == "measured" and self.velocity_std == 0

    def as_dict(self) -> dict:
        return {"encoder_rad": self.encoder, "torque_std_Nm": self.torque, "velocity": self.velocity,
                "velocity_std_rad_s": self.velocity_std}

    @classmethod
    def parse(cls, text: str) -> "NoiseModel":
        """``encoder=1e-4,torque=0.05,velocity=differentiate`` (any subset); DataError naming the key."""
        kw: dict = {}
        names = {"encoder": float, "torque": float, "velocity": str, "velocity_std": float}
        for item in filter(None, (s.strip() for s in text.split(","))):
            key, eq, val = item.partition("=")
            key = key.strip()
            if not eq or key not in names:
                raise DataError(f"--noise: {item!r}: expected KEY=VALUE with KEY one of {', '.join(names)}")
            if names[key] is float:
                try:
                    x = float(val)
                except ValueError:
                    raise DataError(f"--noise: {key}: must be a number, got {val!r}") from None
                if not (math.isfinite(x) and x >= 0):
                    raise DataError(f"--noise: {key}: must be a finite number >= 0, got {val!r}")
                kw[key] = x
            else:
                if val not in ("measured", "differentiate"):
                    raise DataError(f"--noise: velocity: must be 'measured' or 'differentiate', got {val!r}")
                kw[key] = val
        return cls(**kw)


def resample(data: JointData, rate: float) -> JointData:
    """A simulated step record sampled at ``rate`` Hz (every m-th step).

    The torque attributed to sample t_k is (τ_{k−1} + τ_k)/2, the centre of the zero-order hold around t_k:
    the held signal lags the continuous torque by dt/2, which the raw τ_k would turn into a bias that looks
    like viscous friction (measured: b1 −0.02 N m s/rad on planar2r at dt = 1 ms).
    """
    if not data.step_record:
        return data
    dt = float(data.info.get("dt", data.t[1] - data.t[0]))
    m = max(1, int(round(1.0 / (rate * dt))))
    idx = np.arange(1, len(data.tau), m)
    tau = 0.5 * (data.tau[idx - 1] + data.tau[idx])
    return JointData(data.t[idx], data.q[idx], _recorded_qd(data)[idx], None, tau, data.source, False,
                     data.integrator, {**data.info, "rate_hz": 1.0 / (m * dt)})


def add_noise(data: JointData, noise: NoiseModel, rng: np.random.Generator) -> JointData:
    q = data.q.copy()
    if noise.encoder > 0:
        q = np.round(q / noise.encoder) * noise.encoder
    qd = None if (noise.velocity == "differentiate" or data.qd is None) else data.qd.copy()
    if qd is not None and noise.velocity_std > 0:
        qd = qd + rng.normal(0.0, noise.velocity_std, qd.shape)
    tau = data.tau + (rng.normal(0.0, noise.torque, data.tau.shape) if noise.torque > 0 else 0.0)
    return JointData(data.t, q, qd, None if noise.velocity == "differentiate" else data.qdd, tau, data.source,
                     data.step_record, data.integrator, {**data.info, "noise": noise.as_dict()})


# ------------------------------------------------------------------------------------------ rows
@dataclass
class Rows:
    """The stacked regression W β = y; ``joint`` gives each row's joint (−1 for energy rows)."""

    W: np.ndarray
    y: np.ndarray
    joint: np.ndarray
    model: str
    info: dict = field(default_factory=dict)

    def slice(self, start: int, stop: int) -> "Rows":
        return Rows(self.W[start:stop], self.y[start:stop], self.joint[start:stop], self.model, self.info)


def _stack(Y: np.ndarray, tau: np.ndarray, model: str, info: dict | None = None) -> Rows:
    K, n, r = Y.shape
    return Rows(Y.reshape(K * n, r), tau.reshape(K * n), np.tile(np.arange(n), K), model, info or {})


def rows_step(spec: ArmSpec, base: BaseParameters, data: JointData) -> Rows:
    """``step`` rows (see the module docstring); needs a simulated step record."""
    dt = np.diff(data.t)[:, None]
    qd = _recorded_qd(data)
    qdd = np.diff(qd, axis=0) / dt
    Y = base.regressor(full_regressor(spec.params(), data.q[:-1], qd[:-1], qdd, **_columns(base)))
    return _stack(Y, data.tau, "step")


_GL_S = 0.5 + 0.5 * np.array([-math.sqrt(3 / 5), 0.0, math.sqrt(3 / 5)])
_GL_W = np.array([5 / 18, 8 / 18, 5 / 18])


def rows_energy(spec: ArmSpec, base: BaseParameters, data: JointData) -> Rows:
    """``energy`` rows, one per hold interval (see the module docstring); needs a simulated step record."""
    p = spec.params()
    cols_on = _columns(base)
    friction, armature = cols_on["friction"], cols_on["armature"]
    qd = _recorded_qd(data)
    e = energy_regressor(p, data.q, qd)                               # (K+1, 3n)
    dE = np.diff(e, axis=0)
    cols = [dE]
    if friction:
        dt = np.diff(data.t)[:, None]
        q0, q1, v0, v1 = data.q[:-1], data.q[1:], qd[:-1], qd[1:]
        Ib, Ic = np.zeros_like(q0), np.zeros_like(q0)
        for s, w in zip(_GL_S, _GL_W, strict=False):
            # derivative of the cubic Hermite interpolant of q at fraction s of the step
            v = ((6 * s * s - 6 * s) * (q0 - q1) / dt + (3 * s * s - 4 * s + 1) * v0 + (3 * s * s - 2 * s) * v1)
            Ib += w * v * v
            Ic += w * np.abs(v)
        cols += [Ib * dt, Ic * dt]
    if armature:  # rotor kinetic energy ½ I_ai q̇_i²
        cols.append(0.5 * np.diff(qd ** 2, axis=0))
    W_full = np.concatenate(cols, axis=1)
    y = np.einsum("ki,ki->k", data.tau, np.diff(data.q, axis=0))
    W = base.regressor(W_full)
    return Rows(W, y, np.full(len(y), -1), "energy")


def butter_filtfilt(x: np.ndarray, rate: float, cutoff: float, order: int = 4) -> np.ndarray:
    """Zero-phase Butterworth low-pass along axis 0 (scipy.signal.butter + filtfilt)."""
    import scipy.signal  # type: ignore[import-untyped]

    sos = scipy.signal.butter(order, cutoff, fs=rate, output="sos")
    return scipy.signal.sosfiltfilt(sos, x, axis=0)


def central_derivative(x: np.ndarray, h: float) -> np.ndarray:
    """dx/dt along axis 0 by the 5-point central difference (error h⁴ x⁽⁵⁾/30), 2-point at the two ends."""
    d = np.gradient(x, h, axis=0, edge_order=2)
    d[2:-2] = (-x[4:] + 8 * x[3:-1] - 8 * x[1:-3] + x[:-4]) / (12 * h)
    return d


def differentiate(data: JointData, cutoff: float | None = None, trim: float = 0.05,
                  decimate: bool = True) -> JointData:
    """q̇ (if absent) and q̈ by zero-phase filtered differentiation; τ filtered alike; ends trimmed.

    Butterworth order 4 low-pass at ``cutoff`` (default min(10 Hz, rate/5)) run forwards and backwards
    (scipy.signal.sosfiltfilt) on q, q̇ and τ; derivatives by 5-point central differences of the filtered
    signals; then every m-th sample kept, m = ⌊rate/(2·cutoff)⌋: the filter correlates the noise of
    neighbouring samples, and least squares' standard errors assume independent rows (without decimation
    they come out about √m too small).
    """
    t, h = data.t, uniform_step(data)
    rate = 1.0 / h
    cutoff = cutoff or min(10.0, 0.2 * rate)
    q = butter_filtfilt(data.q, rate, cutoff)
    qd = central_derivative(q, h) if data.qd is None else butter_filtfilt(data.qd, rate, cutoff)
    qdd = central_derivative(qd, h) if data.qdd is None else data.qdd
    tau = butter_filtfilt(data.tau, rate, cutoff)
    k = int(round(trim * len(t)))
    m = max(1, int(rate / (2 * cutoff))) if decimate else 1
    sl = slice(k, len(t) - k if k else None, m)
    return JointData(t[sl], q[sl], qd[sl], qdd[sl], tau[sl], data.source, False, data.integrator,
                     {**data.info, "filter": f"Butterworth order 4, cutoff {cutoff:g} Hz, sosfiltfilt; 5-point "
                      f"central differences; {k} samples trimmed at each end; every {m}. sample kept"})


def uniform_step(data: JointData) -> float:
    """The sample period of ``data``, which filtered differentiation needs uniform (DataError otherwise)."""
    dts = np.diff(data.t)
    h = float(np.median(dts))
    if np.max(np.abs(dts - h)) > 1e-6 * h:
        raise DataError(f"{data.source}: filtered differentiation needs a uniform sample rate "
                        f"(time steps between {np.min(dts):g} and {np.max(dts):g} s)")
    return h


DERIVATIVE_CUTOFF_FACTOR = 2.0
"""The derivative filter's cutoff (on q, q̇) over the parallel filter's (on Y and τ).  With both at one cutoff the
content of q near the cutoff is attenuated twice on the regressor's side (once in q, once in Y) and once in τ:
noise-free recovery 3.4e-5 and planar2r's validation error 7.4e-4; at twice the cutoff 4.0e-6 and 3.3e-5."""


def rows_filtered(spec: ArmSpec, base: BaseParameters, data: JointData, cutoff: float | None = None,
                  trim: float = 0.05) -> Rows:
    """``filtered`` rows by parallel filtering (Gautier and Khalil's IDIM-LS practice).

    With q̇ and q̈ both given, the model at each sample as it stands (nothing filtered).  Otherwise:

    1. q (and q̇ when given) through a zero-phase Butterworth low-pass of order 4 at
       min(:data:`DERIVATIVE_CUTOFF_FACTOR` · ``cutoff``, 0.4·rate), run forwards and backwards
       (scipy.signal.sosfiltfilt); q̇ (when absent) and q̈ by 5-point central differences of the filtered signals;
    2. the regressor Y(q_F, q̇_F, q̈_F) at every sample — its Coulomb column sgn(q̇_F) a sharp step;
    3. every column of Y (the friction columns included) and τ through the same zero-phase low-pass F (Butterworth
       order 4 at ``cutoff``, default min(10 Hz, rate/5), sosfiltfilt): F(τ) = F(Y θ) = F(Y) θ
       because F is linear, so the smoothing of each f_c·sgn(q̇) step in the measured torque is matched by the
       same smoothing of the regressor's column (filtering τ alone biases b up and f_c down: measured b +12–45 %,
       f_c −4–13 % on a 2R arm with friction before this);
    4. ends trimmed (``trim`` of the samples at each end) and every m-th sample kept, m = ⌊rate/(2·cutoff)⌋:
       F correlates the noise of neighbouring samples, least squares' standard errors assume independent rows.
    """
    if data.qdd is not None and data.qd is not None:
        Y = base.regressor(full_regressor(spec.params(), data.q, data.qd, data.qdd, **_columns(base)))
        return _stack(Y, data.tau, "filtered", {"filter": "none (q, qd, qdd given)"})
    t, h = data.t, uniform_step(data)
    rate = 1.0 / h
    cutoff = cutoff or min(10.0, 0.2 * rate)
    fq = min(DERIVATIVE_CUTOFF_FACTOR * cutoff, 0.4 * rate)    # the derivative filter, above F's band
    q = butter_filtfilt(data.q, rate, fq)
    qd = central_derivative(q, h) if data.qd is None else butter_filtfilt(data.qd, rate, fq)
    qdd = central_derivative(qd, h) if data.qdd is None else data.qdd
    Y = base.regressor(full_regressor(spec.params(), q, qd, qdd, **_columns(base)))     # (K, n, r)
    Yf = butter_filtfilt(Y, rate, cutoff)
    tau = butter_filtfilt(data.tau, rate, cutoff)
    k = int(round(trim * len(t)))
    m = max(1, int(rate / (2 * cutoff)))
    sl = slice(k, len(t) - k if k else None, m)
    info = {"filter": f"parallel filtering: Butterworth order 4, sosfiltfilt, at {fq:g} Hz on q (5-point central "
                      f"differences for q̇, q̈), at {cutoff:g} Hz on every regressor column and on τ alike; {k} samples "
                      f"trimmed at each end; every {m}. sample kept",
            "cutoff_hz": cutoff, "rate_hz": rate, "decimation": m,
            "noise_correlation": filtered_noise_correlation(rate, cutoff, m)}
    return _stack(Yf[sl], tau[sl], "filtered", info)


def filtered_noise_correlation(rate: float, cutoff: float, m: int, order: int = 4, tol: float = 1e-4) -> list[float]:
    """ρ_l, l = 0, 1, …: the correlation between kept samples l apart of white noise after the zero-phase filter
    and the decimation by ``m`` of :func:`rows_filtered` — the autocorrelation of the filter's impulse response g
    at lags l·m, ρ_l = Σ_i g_i g_{i+lm} / Σ_i g_i², listed until |ρ_l| < ``tol`` (at most 50 lags).

    The kept samples are not independent (measured ρ_1 ≈ 0.10, ρ_2 ≈ −0.07 at 1 kHz, 10 Hz, m = 50; the
    low-frequency noise power is then 1 + 2 Σ ρ_l ≈ 1.1 times a white sequence's), so the estimators' covariance
    uses these ρ_l (:func:`crossdyn.identification.estimators.ols`) instead of assuming independent rows."""
    span = int(64 * rate / cutoff) + 1
    delta = np.zeros((2 * span + 1, 1))
    delta[span, 0] = 1.0
    g = butter_filtfilt(delta, rate, cutoff, order)[:, 0]
    g0 = float(g @ g)
    rho = [1.0]
    for lag in range(1, 51):
        k = lag * m
        if k >= len(g):
            break
        r = float(g[:-k] @ g[k:]) / g0
        if abs(r) < tol and abs(rho[-1]) < tol:
            break
        rho.append(r)
    return rho


def rows_exact(spec: ArmSpec, base: BaseParameters, data: JointData) -> Rows:
    """Rows at the samples using the q̈ given (the analytic model's own data)."""
    Y = base.regressor(full_regressor(spec.params(), data.q, data.qd, data.qdd, **_columns(base)))
    return _stack(Y, data.tau, "exact")


def auto_model(data: JointData) -> str:
    """The exact discrete relation for a noise-free simulated record, else ``filtered``."""
    if not data.step_record:
        return "exact" if (data.qdd is not None and data.qd is not None) else "filtered"
    return "step" if data.integrator.lower() in ("semi-implicit-euler", "euler") else "energy"


def build_rows(spec: ArmSpec, base: BaseParameters, data: JointData, model: str = "auto") -> Rows:
    model = auto_model(data) if model == "auto" else model
    if model in ("step", "energy") and not data.step_record:
        raise DataError(f"model {model!r} needs a simulated step record (noise-free engine data)")
    return {"step": rows_step, "energy": rows_energy, "filtered": rows_filtered,
            "exact": rows_exact}[model](spec, base, data)


# ------------------------------------------------------------------------------------------ CSV
def write_csv(path, data: JointData, velocities: bool = True) -> None:
    """``time, q1..qn, [qd1..qdn,] tau1..taun`` (a step record: the state at the start of each step)."""
    from crossdyn.io import write_text_atomic

    n = data.n
    K = len(data.tau)
    header = ["time", *[f"q{i + 1}" for i in range(n)]]
    if velocities and data.qd is not None:
        header += [f"qd{i + 1}" for i in range(n)]
    header += [f"tau{i + 1}" for i in range(n)]
    lines = [",".join(header)]
    for k in range(K):
        row = [data.t[k], *data.q[k]]
        if velocities and data.qd is not None:
            row += list(data.qd[k])
        row += list(data.tau[k])
        lines.append(",".join(repr(float(x)) for x in row))
    write_text_atomic(path, "\n".join(lines) + "\n")


def read_csv(path, n: int, min_samples: int) -> JointData:
    """A user's record ``time, q1..qn, tau1..taun`` (optional ``qd1..``, ``qdd1..``); DataError naming the
    file, the line and the column for a missing column, a non-number, non-increasing time, or fewer than
    ``min_samples`` rows."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DataError(f"{path}: no such data file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise DataError(f"{path}: cannot read data file: {e}") from None
    reader = csv.reader(text.splitlines())
    try:
        header = [h.strip() for h in next(reader)]
    except StopIteration:
        raise DataError(f"{path}: empty file; expected a header time,q1..q{n},tau1..tau{n}") from None
    need = ["time", *[f"q{i + 1}" for i in range(n)], *[f"tau{i + 1}" for i in range(n)]]
    for name in need:
        if name not in header:
            raise DataError(f"{path}: line 1: missing column {name!r} (the arm has {n} joints; "
                            f"expected time, q1..q{n}, tau1..tau{n}, optional qd1..qd{n}, qdd1..qdd{n})")
    optional = {k: [f"{k}{i + 1}" for i in range(n)] for k in ("qd", "qdd")}
    for names in optional.values():
        present = [c for c in names if c in header]
        if present and len(present) != n:
            missing = next(c for c in names if c not in header)
            raise DataError(f"{path}: line 1: missing column {missing!r} (give all of {', '.join(names)} or none)")
    col = {h: j for j, h in enumerate(header)}
    rows: list = []
    for lineno, row in enumerate(reader, start=2):
        if not row or all(not c.strip() for c in row):
            continue
        vals = {}
        for name in header:
            j = col[name]
            cell = row[j].strip() if j < len(row) else ""
            vals[name] = number_cell(cell, f"{path}: line {lineno}, column {name!r}", DataError)
        if rows and vals["time"] <= rows[-1][1]["time"]:
            raise DataError(f"{path}: line {lineno}, column 'time': time must increase, got {vals['time']!r} "
                            f"after {rows[-1][1]['time']!r} (line {rows[-1][0]})")
        rows.append((lineno, vals))
    if len(rows) < min_samples:
        raise DataError(f"{path}: {len(rows)} samples: too few to identify the arm's parameters "
                        f"(need at least {min_samples})")
    arr = lambda names: np.array([[v[c] for c in names] for _, v in rows])  # noqa: E731
    t = arr(["time"])[:, 0]
    q = arr([f"q{i + 1}" for i in range(n)])
    tau = arr([f"tau{i + 1}" for i in range(n)])
    qd = arr(optional["qd"]) if optional["qd"][0] in header else None
    qdd = arr(optional["qdd"]) if optional["qdd"][0] in header else None
    return JointData(t, q, qd, qdd, tau, f"file {path}", False, "", {"path": str(path), "rows": len(rows)})
