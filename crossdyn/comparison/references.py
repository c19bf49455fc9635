"""What every engine is measured against: the reference runs (analytic model, DOP853), the analytic values at
the random states of the static metrics, and the dense free-motion reference of the convergence study.

Computed once per comparison, shared by every engine (:class:`EngineJob` is what each worker receives).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from crossdyn.comparison.containment import attach_friction
from crossdyn.comparison.options import CompareOptions
from crossdyn.models.spec import ArmSpec


@dataclass(frozen=True)
class StaticStates:
    """The random states of the static metrics and the analytic values at them (shared by every engine)."""

    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray
    tau: np.ndarray
    tau_ref: np.ndarray
    """τ = M q̈ + C q̇ + G + F at (q, q̇, q̈)."""
    M_ref: np.ndarray
    """M(q)."""
    qdd_ref: np.ndarray
    """q̈ = M⁻¹(τ − C q̇ − G − F) at (q, q̇, τ)."""


@dataclass(frozen=True)
class EngineJob:
    """Everything one engine's measurement needs (what each worker process receives)."""

    spec: ArmSpec
    opt: CompareOptions
    profile: Any
    """The driving :class:`~crossdyn.inputs.profiles.Profile`."""
    free_profile: Any
    """The zero-torque profile of the free swing (energy)."""
    q0: np.ndarray
    qd0: np.ndarray
    reference: Any
    """The reference run (analytic model, DOP853) of the driven profile."""
    static: StaticStates
    conv_q0: np.ndarray
    """Start of the convergence study's free swing."""
    dense: Any
    """Dense free-motion reference of the convergence study, or None."""
    friction: Any = None
    """The applied regularised Coulomb law (``spec`` is then the arm with f_c = 0), or None."""
    same_runs: Any = None
    """{scheme: (run, perturbed run)} of the same-scheme runs computed once for every engine
    (:func:`prepared_runs`; each engine's worker starts its cache with them), or None."""


def reference_runs(spec: ArmSpec, profile, free_profile, q0, qd0, opt: CompareOptions, friction=None,
                   free: bool = True):
    """(driven, free) runs of the analytic model, DOP853 restarted at each step (rtol = atol = 1e-12), the free
    one not run again where its inputs are the driven one's (a zero-torque drop:
    :func:`crossdyn.drive.runner.run_engine_many`); without ``free``, (driven, None)."""
    from crossdyn.drive.runner import run_engine, run_engine_many
    from crossdyn.engines import make_engine

    ref_engine = attach_friction(make_engine("analytic-reference", spec, opt.dt), friction)  # crossdyn's own
    if not free:
        return run_engine(ref_engine, profile, q0, qd0, opt.duration), None
    reference, reference_free = run_engine_many(ref_engine, [(profile, q0, qd0), (free_profile, q0, qd0)],
                                                opt.duration)
    return reference, reference_free


def shared_schemes(engines) -> tuple[str, ...]:
    """The replicable schemes (the registry's ``integrator``, :data:`~crossdyn.comparison.groups.trajectory.
    REPLICA_SCHEMES`) that two or more of ``engines`` step with: their same-scheme runs are worth computing once
    for all (:func:`prepared_runs`).  crossdyn's analytic engines (the model itself: no same-scheme run), ``user:``
    engines and unknown names are left out."""
    from crossdyn.comparison.groups.trajectory import REPLICA_SCHEMES
    from crossdyn.engines.registry import USER_PREFIX, entry

    counts: dict[str, int] = {}
    for name in engines:
        base = name.split("@", 1)[0]
        if name.startswith(USER_PREFIX) or base.startswith("analytic"):
            continue
        try:
            scheme = entry(base).integrator
        except Exception:  # noqa: BLE001 — an unknown name is refused elsewhere, with its message
            continue
        if scheme in REPLICA_SCHEMES:
            counts[scheme] = counts.get(scheme, 0) + 1
    return tuple(scheme for scheme, count in counts.items() if count >= 2)


def prepared_runs(spec: ArmSpec, profile, free_profile, start, opt: CompareOptions, friction=None,
                  schemes: tuple[str, ...] = (), jobs: int = 1):
    """(driven reference, free reference, {scheme: same-scheme runs}) from ``start`` = (q0, q̇0):
    :func:`reference_runs`'s two runs and
    :func:`crossdyn.comparison.groups.trajectory.same_scheme_runs` of each of ``schemes``, up to ``jobs`` of them
    at a time (:func:`crossdyn.processes.fork_map`: each the same run as computed alone, the two references each
    on an engine of its own, as reset between runs)."""
    from crossdyn.comparison.groups.trajectory import same_scheme_runs
    from crossdyn.processes import fork_map

    q0, qd0 = start

    def one(task: str):
        if task == "both":  # the free run's inputs are the driven one's: one run (reference_runs)
            return reference_runs(spec, profile, free_profile, q0, qd0, opt, friction)
        if task in ("driven", "free"):
            only = free_profile if task == "free" else profile
            return reference_runs(spec, only, only, q0, qd0, opt, friction, free=False)[0]
        return same_scheme_runs(task, spec, profile, q0, qd0, opt.dt, opt.duration, friction)

    if not schemes and jobs <= 1:
        return (*reference_runs(spec, profile, free_profile, q0, qd0, opt, friction), {})
    from crossdyn.drive.runner import same_inputs
    from crossdyn.engines import make_engine

    probe = attach_friction(make_engine("analytic-reference", spec, opt.dt), friction)
    if same_inputs(probe, [(profile, q0, qd0), (free_profile, q0, qd0)], opt.duration):
        (reference, reference_free), *same = fork_map(one, ("both", *schemes), jobs)
    else:
        reference, reference_free, *same = fork_map(one, ("driven", "free", *schemes), jobs)
    return reference, reference_free, dict(zip(schemes, same, strict=True))


def random_states(spec: ArmSpec, count: int, seed: int):
    """``count`` random (q, q̇, q̈, τ): q ∈ U[−π, π], q̇ ∈ U[−10, 10], q̈ ∈ U[−50, 50], τ ∈ U[−1, 1]·torque scale."""
    rng = np.random.default_rng(seed)
    n = spec.n
    return (rng.uniform(-np.pi, np.pi, (count, n)), rng.uniform(-10, 10, (count, n)),
            rng.uniform(-50, 50, (count, n)), rng.uniform(-1, 1, (count, n)) * spec.torque_scale())


def static_states(spec: ArmSpec, count: int, seed: int) -> StaticStates:
    """The random states and the analytic τ, M, q̈ there.  With effort limits the torques are clipped to them
    (forward dynamics is judged on torques an actuator can give: MuJoCo's motors clamp)."""
    from crossdyn import analytic

    qs, qds, qdds, taus = random_states(spec, count, seed)
    if spec.has_effort:
        limit = spec.effort_limits()
        taus = np.clip(taus, -limit, limit)
    return StaticStates(qs, qds, qdds, taus, analytic.inverse_dynamics(spec, qs, qds, qdds),
                        analytic.mass_matrix(spec, qs), analytic.forward_dynamics(spec, qs, qds, taus))


def convergence_start(spec: ArmSpec, q0) -> np.ndarray:
    """The convergence study's start: q0 + 0.5 (−1)ⁱ rad."""
    return q0 + 0.5 * np.array([(-1) ** i for i in range(spec.n)])


def dense_free_reference(spec: ArmSpec, q0, duration: float, max_evaluations: int = 2_000_000):
    """DOP853 (rtol = atol = 1e-12) over the whole free motion, with dense output, for the convergence study.

    Returns None when it needs more than ``max_evaluations`` right-hand sides (a joint sticking under
    Coulomb friction makes q̇ chatter about 0): the study is then skipped and the summary says why.
    """
    from scipy.integrate import solve_ivp  # type: ignore[import-untyped]

    from crossdyn.analytic.codegen import compile_model
    from crossdyn.analytic.integrators import StiffnessError

    n = spec.n
    zero = (0.0,) * n
    fd = compile_model(spec).fd
    calls = [0]

    def rhs(t, x):
        calls[0] += 1
        if calls[0] > max_evaluations:
            raise StiffnessError("too stiff")
        return np.concatenate([x[n:], fd(x[:n], x[n:], zero)])

    try:
        return solve_ivp(rhs, (0.0, duration), np.concatenate([q0, np.zeros(n)]), method="DOP853",
                         rtol=1e-12, atol=1e-12, dense_output=True)
    except StiffnessError:
        return None


def needs_dense_reference(spec: ArmSpec, opt: CompareOptions, friction) -> bool:
    """The convergence study runs on smooth arms only: no limit law, no contact, no applied friction."""
    return bool(opt.convergence_dts) and not spec.has_limit_law and not spec.has_contact and friction is None


def versions() -> dict:
    """crossdyn's, Python's and every engine library's version (None: not installed)."""
    import platform
    from importlib import metadata

    from crossdyn.version import __version__

    out: dict[str, str | None] = {"crossdyn": __version__, "python": platform.python_version()}
    for dist in ("numpy", "scipy", "mujoco", "pybullet", "pin", "sympy", "dartpy", "drake"):
        try:
            out["pinocchio" if dist == "pin" else dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out["pinocchio" if dist == "pin" else dist] = None
    return out
