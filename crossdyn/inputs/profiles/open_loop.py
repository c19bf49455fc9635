"""Open-loop profiles: torques of time only, sampled many times at once (:meth:`Profile.sample`).

``zero``         τ = 0
``constant``     τ = value
``step``         τ_i = before_i for t < time_i, after_i from time_i on
``sine``         τ_i = offset_i + A_i sin(2π f_i t + φ_i)
``chirp``        τ_i = offset_i + A_i sin(φ(t)), instantaneous frequency f0 → f1 linearly over
                 ``duration`` seconds, f1 afterwards
``multisine``    Fourier excitation: τ_i = offset_i + (A_i / c) Σ_k sin(2π h_k f0 (t − i T0/n) + φ_k),
                 harmonics h_k of the base frequency f0 = 1/T0, Schroeder phases
                 φ_k = −π k (k − 1)/K (deterministic, low crest factor), joint i delayed by i/n of a
                 period; c normalises the peak of the sum to 1, so A_i is the peak amplitude
``multisine-motion``  the torques (sums of sinusoids) that move the arm, linearised about a configuration
                 (default: hanging), along a multi-sine joint motion of given amplitude in rad — the
                 comparison default (see :class:`MotionMultiSineProfile`)

The defaults a profile built by name gets are :data:`crossdyn.inputs.profiles.registry.PROFILE_PARAMS`; the
classes' own keyword defaults agree with them where they have one (tests/test_profiles.py).
"""
from __future__ import annotations

import numpy as np

from crossdyn import analytic
from crossdyn.analytic.gravity_helpers import gravity_stiffness, hanging_configuration
from crossdyn.inputs.profiles.base import OpenLoopProfile, ProfileError, _scalar, _vector
from crossdyn.models.spec import ArmSpec


class ZeroProfile(OpenLoopProfile):
    name = "zero"

    def sample(self, times):
        return np.zeros((np.size(times), self.n))

    def params(self):
        return {"name": self.name, "closed_loop": False, "n": self.n}


class ConstantProfile(OpenLoopProfile):
    name = "constant"

    def __init__(self, n: int, value=0.0):
        super().__init__(n)
        self.value = _vector(value, self.n, "value")

    def sample(self, times):
        return np.broadcast_to(self.value, (np.size(times), self.n)).copy()

    def params(self):
        return {"name": self.name, "closed_loop": False, "n": self.n, "value": self.value.tolist()}


class StepProfile(OpenLoopProfile):
    """τ_i = before_i for t < time_i, after_i for t ≥ time_i."""

    name = "step"

    def __init__(self, n: int, after=1.0, time=0.0, before=0.0):
        super().__init__(n)
        self.after = _vector(after, self.n, "after")
        self.before = _vector(before, self.n, "before")
        self.time = _vector(time, self.n, "time")

    def sample(self, times):
        t = np.asarray(times, dtype=float).reshape(-1, 1)
        return np.where(t < self.time, self.before, self.after)

    def params(self):
        return {"name": self.name, "closed_loop": False, "n": self.n, "before": self.before.tolist(),
                "after": self.after.tolist(), "time": self.time.tolist()}


class SineProfile(OpenLoopProfile):
    """τ_i = offset_i + A_i sin(2π f_i t + φ_i)."""

    name = "sine"

    def __init__(self, n: int, amplitude=1.0, frequency=0.5, phase=0.0, offset=0.0):
        super().__init__(n)
        self.amplitude = _vector(amplitude, self.n, "amplitude")
        self.frequency = _vector(frequency, self.n, "frequency")
        self.phase = _vector(phase, self.n, "phase")
        self.offset = _vector(offset, self.n, "offset")
        self._omega = 2 * np.pi * self.frequency

    def sample(self, times):
        t = np.asarray(times, dtype=float).reshape(-1, 1)
        return self.offset + self.amplitude * np.sin(self._omega * t + self.phase)

    def params(self):
        return {"name": self.name, "closed_loop": False, "n": self.n, "amplitude": self.amplitude.tolist(),
                "frequency": self.frequency.tolist(), "phase": self.phase.tolist(), "offset": self.offset.tolist(),
                "formula": "offset + amplitude*sin(2*pi*frequency*t + phase)"}


class ChirpProfile(OpenLoopProfile):
    """Linear chirp: instantaneous frequency f0 + (f1 − f0) t / T for t ≤ T, then f1.

    τ_i = offset_i + A_i sin(φ(t) + phase_i),  φ(t) = 2π (f0 t + (f1 − f0) t² / (2T)) for t ≤ T,
    φ(t) = φ(T) + 2π f1 (t − T) after.
    """

    name = "chirp"

    def __init__(self, n: int, amplitude=1.0, f0=0.1, f1=5.0, duration=1.0, phase=0.0, offset=0.0):
        super().__init__(n)
        self.amplitude = _vector(amplitude, self.n, "amplitude")
        self.f0 = _scalar(f0, "f0")
        self.f1 = _scalar(f1, "f1")
        self.duration = _scalar(duration, "duration", positive=True)
        self.phase = _vector(phase, self.n, "phase")
        self.offset = _vector(offset, self.n, "offset")

    def sample(self, times):
        t = np.asarray(times, dtype=float).reshape(-1, 1)
        T, f0, f1 = self.duration, self.f0, self.f1
        tc = np.minimum(t, T)
        phi = 2 * np.pi * (f0 * tc + (f1 - f0) * tc * tc / (2 * T) + f1 * (t - tc))
        return self.offset + self.amplitude * np.sin(phi + self.phase)

    def params(self):
        return {"name": self.name, "closed_loop": False, "n": self.n, "amplitude": self.amplitude.tolist(),
                "f0": self.f0, "f1": self.f1, "duration": self.duration, "phase": self.phase.tolist(),
                "offset": self.offset.tolist(), "sweep": "linear, then constant f1"}


class MultiSineProfile(OpenLoopProfile):
    """Fourier (multi-sine) excitation with Schroeder phases (see the module docstring)."""

    name = "multisine"

    def __init__(self, n: int, amplitude=1.0, base_frequency=0.5, harmonics=(1, 2, 3, 4, 5), offset=0.0):
        super().__init__(n)
        self.amplitude = _vector(amplitude, self.n, "amplitude")
        self.base_frequency = _scalar(base_frequency, "base_frequency", positive=True)
        h = np.asarray(harmonics)
        if h.ndim != 1 or len(h) == 0 or not np.all(np.isfinite(h.astype(float))) or np.any(h <= 0) \
                or np.any(h != np.round(h)) or len(set(h.tolist())) != len(h):
            raise ProfileError(f"harmonics: must be distinct positive integers, got {harmonics!r}")
        self.harmonics = h.astype(int)
        self.offset = _vector(offset, self.n, "offset")
        K = len(self.harmonics)
        k = np.arange(1, K + 1)
        self.phases = -np.pi * k * (k - 1) / K  # Schroeder
        # time delay of joint i: i/n of the base period
        self.delays = np.arange(self.n) / (self.n * self.base_frequency)
        self._w = 2 * np.pi * self.base_frequency * self.harmonics  # (K,)
        grid = np.linspace(0.0, 1.0 / self.base_frequency, 4096, endpoint=False)
        self.peak = float(np.max(np.abs(np.sin(np.outer(grid, self._w) + self.phases).sum(axis=1))))

    def sample(self, times):
        t = np.asarray(times, dtype=float).reshape(-1, 1, 1) - self.delays[:, None]  # (K, n, 1)
        s = np.sin(t * self._w + self.phases).sum(axis=-1)  # (K, n)
        return self.offset + (self.amplitude / self.peak) * s

    def params(self):
        return {"name": self.name, "closed_loop": False, "n": self.n, "amplitude": self.amplitude.tolist(),
                "base_frequency": self.base_frequency, "harmonics": self.harmonics.tolist(),
                "phases": self.phases.tolist(), "phase_rule": "Schroeder: -pi*k*(k-1)/K",
                "joint_delays": self.delays.tolist(), "peak_normalisation": self.peak, "offset": self.offset.tolist()}



class MotionMultiSineProfile(OpenLoopProfile):
    """A multi-sine whose torques would move the *linearised* arm along a chosen small joint motion.

    The reference motion is q_r,i(t) = c_i + a_i s(t − d_i), s(t) = Σ_k sin(ω_k t + φ_k) / peak (harmonics
    ω_k = 2π h_k f0, Schroeder phases, joint delays d_i = i/(n f0), peak-normalised, so |q_r − c| ≤ a);
    the torque is its inverse dynamics linearised about c (default: the hanging configuration):

        τ(t) = G(c) + K(c) (q_r − c) + M(c) q̈_r,   K = ∂G/∂q

    i.e. per joint a fixed sum of sinusoids.  Because the torque follows the arm's own modes, the arm stays
    within a few ``amplitude`` of c for any harmonic content, even near a natural frequency (an arm started
    at rest at c also oscillates freely by about ``amplitude``).  M(c), K(c) come from the analytic model
    and are recorded in :meth:`params`.
    """

    name = "multisine-motion"

    def __init__(self, spec: ArmSpec, amplitude=0.05, base_frequency=0.25, harmonics=(1, 2, 3), center=None):
        super().__init__(spec.n)
        self.spec = spec
        self.amplitude = _vector(amplitude, self.n, "amplitude")
        self.center = hanging_configuration(spec) if center is None else _vector(center, self.n, "center")
        base = MultiSineProfile(self.n, 1.0, base_frequency, harmonics)
        self.base_frequency, self.harmonics = base.base_frequency, base.harmonics
        self.phases, self.delays, self.peak, self._w = base.phases, base.delays, base.peak, base._w
        self.M = analytic.mass_matrix(spec, self.center)
        self.K = gravity_stiffness(spec, self.center)
        self.offset = analytic.gravity(spec, self.center)
        # C[j, i, k] = a_i (K_ji − ω_k² M_ji) / peak
        self._C = (self.K[:, :, None] - self._w**2 * self.M[:, :, None]) * (self.amplitude / self.peak)[None, :, None]

    def sample(self, times):
        t = np.asarray(times, dtype=float).reshape(-1, 1, 1) - self.delays[:, None]  # (T, n, 1)
        S = np.sin(t * self._w + self.phases)  # (T, n, K)
        return self.offset + np.einsum("tik,jik->tj", S, self._C)

    def reference(self, times) -> np.ndarray:
        """The joint motion q_r(t) the torque is designed for (shape (K, n))."""
        t = np.asarray(times, dtype=float).reshape(-1, 1, 1) - self.delays[:, None]
        return self.center + (self.amplitude / self.peak) * np.sin(t * self._w + self.phases).sum(axis=-1)

    def params(self):
        return {"name": self.name, "closed_loop": False, "n": self.n, "arm": self.spec.name,
                "amplitude_rad": self.amplitude.tolist(), "center": self.center.tolist(),
                "base_frequency": self.base_frequency, "harmonics": self.harmonics.tolist(),
                "phases": self.phases.tolist(), "phase_rule": "Schroeder: -pi*k*(k-1)/K",
                "joint_delays": self.delays.tolist(), "peak_normalisation": self.peak,
                "mass_matrix_at_center": self.M.tolist(), "gravity_stiffness_at_center": self.K.tolist(),
                "gravity_at_center": self.offset.tolist(),
                "law": "G(c) + K(c)(q_r - c) + M(c) qdd_r, q_r = c + a*s(t - d)"}


