"""Default tolerances of a comparison, the reason for each, and TOML overrides.

A correct set-up meets every default; each is chosen from what the metric can
legitimately show, never widened to make a run pass:

* **Static quantities** (inverse-dynamics torque, mass matrix, forward
  acceleration) are evaluated at the same states by every engine, so a correct
  model agrees to rounding error (measured ~1e-13 N m).  Tolerances are
  1e-9 relative to the arm's torque scale Σ mᵢ|g|rᵢ, to max|M|, and to
  max(1, max|q̈|): four orders of magnitude above rounding, many below any
  modelling error (a wrong inertia gives ~1e-2).
* **Trajectory, same integrator** — the engine against crossdyn's analytic model
  integrated by the *same* scheme at the same dt (semi-implicit Euler for
  PyBullet and MuJoCo ``Euler``, RK4 for MuJoCo ``RK4`` and Pinocchio):
  integration error cancels, so what remains is model error.  Measured
  ~1e-15 rad; tolerance 1e-8 rad.
* **Trajectory, against the reference** (adaptive DOP853 at rtol = atol = 1e-12):
  integration error of order p is expected, so the tolerance is
  ``trajectory_factor`` (10) × the engine's own Richardson error estimate
  |q(dt) − q(dt/2)|·2ᵖ/(2ᵖ − 1) from its self-consistency run (which holds the torque and every
  applied law — contact, limits, friction — for dt, as the reference does), plus 1e-9 rad for
  rounding.  It scales as dtᵖ by construction.  An error-controlled engine (``drake``), whose error is set by
  its accuracy target rather than dt, uses the larger of that estimate and |q − q(accuracy/10)|.
* **Energy drift** in free motion (from the fixed start near the hanging
  equilibrium), relative to the energy scale Σ mᵢ|g|rᵢ: RK4 1e-6 (its energy
  error is O(dt⁴); measured ~1e-14); symplectic (semi-implicit) Euler keeps
  energy bounded but oscillating at O(dt): 2e-3 (measured 1.7e-5); explicit Euler
  gains energy O(dt): 1e-2; MuJoCo ``implicit``/``implicitfast`` dissipate O(dt): 1e-2.
* **Work–energy balance** of the driven run, E(t) − E(0) − ∫τ·q̇ dt + ∫(b q̇² + f_c|q̇|) dt:
  the larger of the energy tolerance above and ``trajectory_factor`` × its
  Richardson estimate from the dt/2 run (first-order schemes under a strong
  closed-loop profile legitimately leave ~1 % here; the estimate predicted the
  measured residual of PD control on planar2r to 0.1 %).  The dissipation integral is exact for a velocity
  quadratic within each step (:func:`crossdyn.comparison.metrics.dissipated_energy`): the trapezoid rule used
  before left a second-order bookkeeping error through contacts that was no engine's (5.1e-6 on a damped contact
  arm at dt = 1 ms, above RK4's 1e-6).  The held laws (contact, limits) themselves close the balance exactly
  (their torque is held over the step, its work τ·Δq).

**Upper bounds: a tolerance too wide to mean anything makes the check INCONCLUSIVE, not PASS.**  A tolerance
derived from the run's own error estimate grows with the motion's sensitivity; past a physical scale of the
quantity the comparison can no longer tell a correct engine from a wrong one (a contact arm started inside its
floor: 10–27 rad errors "within" 373–710 rad).  The rule per metric:

* **Trajectory against the reference**: the derived tolerance must not exceed ``trajectory_bound_fraction``
  (5 %) of the reference's largest joint range over the run, max_j (max_t q_j − min_t q_j), that range taken as
  at least ``trajectory_bound_floor_rad`` (0.02 rad, so the bound is never below 1e-3 rad: about one count of a
  12-bit joint encoder, 2π/4096 = 1.5e-3 rad; a run that barely moves is still judged down to what a joint sensor
  resolves).  Beyond it: "the run is too sensitive to judge at dt = …: its own dt/2 rerun differs by … rad".
  A tolerance the user set (``trajectory_abs_rad``) is the user's choice and is not bounded.
* **Trajectory, same integrator**: its tolerance (1e-8 rad, plus the engine's round-off, plus the motion's
  sensitivity to round-off: ``trajectory_factor`` × the same-scheme run's change when its start moves by the
  run's accumulated float64 round-off, see :mod:`crossdyn.comparison.groups.trajectory`) has the same bound.
* **Work–energy balance**: its tolerance must not exceed ``energy_bound_fraction`` (5 %) of the energy scale
  Σ mᵢ|g|rᵢ.  The free-swing drift tolerances (1e-6 … 1e-2 of that scale) are fixed and below it.
* **Static groups** (inverse dynamics, mass matrix, forward dynamics): already relative to physical scales
  (1e-9 of the torque scale, of max|M|, of max(1, max|q̈|), plus the engine's round-off), far below any bound.
* **Convergence**: informational (errors at several dt against a dense DOP853 run, the empirical order):
  reported, not judged, so it has no tolerance to bound.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields
from pathlib import Path

from crossdyn.io import InputError


@dataclass(frozen=True)
class Tolerances:
    inverse_dynamics_rel: float = 1e-9
    mass_matrix_rel: float = 1e-9
    forward_dynamics_rel: float = 1e-9
    trajectory_same_integrator_rad: float = 1e-8
    trajectory_factor: float = 10.0
    trajectory_floor_rad: float = 1e-9
    trajectory_abs_rad: float | None = None  # if set, replaces the Richardson-scaled tolerance
    energy_rk4: float = 1e-6
    energy_symplectic: float = 2e-3
    energy_explicit: float = 1e-2
    energy_implicit: float = 1e-2
    divergence_rad: float = 1e-2  # the trajectory error that counts as "diverged from the reference"
    trajectory_bound_fraction: float = 0.05  # a derived trajectory tolerance above this × the joint range: unjudged
    trajectory_bound_floor_rad: float = 0.02  # the joint range used for that bound is at least this
    energy_bound_fraction: float = 0.05  # a work–energy tolerance above this (relative to E_scale): unjudged

    def energy_for(self, integrator: str) -> float:
        """Energy tolerance for a scheme named as in :mod:`crossdyn.analytic.integrators`."""
        if integrator in ("rk4", "reference"):
            return self.energy_rk4
        if integrator == "semi-implicit-euler":
            return self.energy_symplectic
        if integrator == "euler":
            return self.energy_explicit
        return self.energy_implicit

    def as_dict(self) -> dict:
        return asdict(self)


def load_tolerances(path: str | Path) -> Tolerances:
    """Read a TOML file of overrides (keys as in :class:`Tolerances`, all optional)."""
    from crossdyn.models.spec_io import _line_of

    from crossdyn.io import read_toml

    path = Path(path)
    text, data = read_toml(path, "tolerance file")
    known = {f.name for f in fields(Tolerances)}
    values = {}
    for key, value in data.items():
        line = _line_of(text, key)
        where = f"{path}: line {line}" if line else f"{path}"
        if key not in known:
            raise InputError(f"{where}: unknown tolerance {key!r}; known: {', '.join(sorted(known))}", key, value)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
            raise InputError(f"{where}: {key}: must be a positive number, got {value!r}", key, value)
        values[key] = float(value)
    return Tolerances(**values)
