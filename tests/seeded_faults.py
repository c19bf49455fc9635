"""Seeded faults: real engines with one known defect each, which claim to be the unfaulted engine.

Used by ``benchmarks/verdicts.py`` (the fault matrix) and ``tests/test_seeded_faults.py`` (its fast subset).  Every
MuJoCo fault is :class:`FaultyMuJoCo`: crossdyn's MuJoCo adapter (RK4 unless told) built from the arm's generated
MJCF, with the defect put into MuJoCo's compiled model (``body_mass``, ``dof_damping``, ``dof_armature``,
``opt.gravity``) or into its input path, while ``config()`` returns what the unfaulted adapter reports for the same
arm and ``dtype`` says ``"float64"`` (the float32 fault claims float64; the honest float32 control declares
float32).  The Coriolis fault is a user file (``user:FILE``): tests/check_files/textbook_nr.py with one entry of C
negated (:func:`coriolis_flip_file`).

==========  =======================================================================================================
fault       the defect
==========  =======================================================================================================
mass        ``body_mass`` of link 2 × 1.01 (its inertia about its centre of mass unchanged)
damping     ``dof_damping`` + 0.01 N m s/rad on every joint (the spec says none, or less)
armature    ``dof_armature`` + 0.1 kg m² on every joint (the spec says none)
gravity     ``opt.gravity`` rotated by 1° in the arm's plane (about the joint axes, z)
delay       the torque given at step k (commanded and the runner's limit/friction/contact torques alike) is applied
            at step k + 1 (zero at the first step); ``mujoco.rollout`` off, so every run takes this step
float32     state rounded to float32 after every step, queries (M, τ, q̈, energy) in and out through float32
contact     the tip contact's stiffness k × 2 (the spec's ``[contact]``: the law the runner applies to this engine,
            and MuJoCo's own contact when native)
limit       every joint's ``limit_stiffness`` × 2 (the law the runner applies to this engine, and MuJoCo's
            ``solreflimit`` when native)
coulomb     the Coulomb friction the engine is given is dropped: the applied law's torque is taken back out of the
            generalized force (applied mode), f_c = 0 in the MJCF (native mode)
==========  =======================================================================================================

:func:`register` puts the names of :data:`ENGINES` into crossdyn's registry (module ``seeded_faults``: the test's
and the benchmark's ``sys.path`` hold tests/).
"""
from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import numpy as np

from crossdyn.engines import registry
from crossdyn.engines.mujoco.planar import MuJoCoEngine, MuJoCoOptions
from crossdyn.models.spec import ArmSpec

CHECK_FILES = Path(__file__).resolve().parent / "check_files"
CLEAN_FILE = CHECK_FILES / "textbook_nr.py"
"""The user file of a planar nR arm (Jacobian route, independent of crossdyn) the Coriolis fault is made from."""

FAULTS = ("mass", "damping", "armature", "gravity", "delay", "float32", "contact", "limit", "coulomb")
"""The faults :class:`FaultyMuJoCo` can carry (``none``: the unfaulted adapter)."""

MASS_LINK = 2
"""The link (1-based) whose mass is 1 % high."""
MASS_FACTOR = 1.01
HIDDEN_DAMPING = 0.01
"""N m s/rad added to every joint."""
ADDED_ARMATURE = 0.1
"""kg m² added to every joint (as genesis-world adds by default)."""
GRAVITY_TILT_DEG = 1.0
STIFFNESS_FACTOR = 2.0
"""Contact and limit stiffness factor."""

ENGINES = {f"seeded-{fault}": {"fault": fault} for fault in FAULTS}
"""Registered fault engines: ``seeded-mass`` … ``seeded-coulomb`` (each declares float64)."""
ENGINES["seeded-float32-declared"] = {"fault": "float32", "declared_dtype": "float32"}
"""The honest float32 control: the same float32 engine declaring float32 (its tolerance then includes round-off)."""


def _f32(x) -> np.ndarray:
    """``x`` rounded to float32, as float64 values."""
    return np.asarray(x, dtype=np.float64).astype(np.float32).astype(np.float64)


def built_spec(spec: ArmSpec, fault: str) -> ArmSpec:
    """The arm the faulted engine is really built from: the faults that live in the spec's laws (contact and
    limit stiffness, Coulomb friction) changed; every other fault leaves the spec as it is."""
    if fault == "contact" and spec.contact is not None:
        return replace(spec, contact=replace(spec.contact, stiffness=STIFFNESS_FACTOR * spec.contact.stiffness))
    if fault == "limit":
        out = spec
        for i, link in enumerate(spec.links):
            if link.limit_stiffness > 0:
                out = out.with_link(i, limit_stiffness=STIFFNESS_FACTOR * link.limit_stiffness)
        return out
    if fault == "coulomb":
        return spec.with_links(friction=0.0)
    return spec


class FaultyMuJoCo(MuJoCoEngine):
    """crossdyn's MuJoCo adapter with one seeded fault (see the module docstring), claiming to be the unfaulted one:
    :meth:`config` is the unfaulted adapter's for the same arm, :attr:`dtype` is ``declared_dtype``."""

    def __init__(self, spec: ArmSpec, dt: float = 1e-3, integrator: str = "RK4", fault: str = "none",
                 declared_dtype: str = "float64", options: MuJoCoOptions | None = None, **knobs):
        if fault not in FAULTS + ("none",):
            raise ValueError(f"fault: one of {', '.join(FAULTS)}, none; got {fault!r}")
        self.fault = fault  # before the adapter's __init__, which resets the state
        self._late: tuple[np.ndarray, np.ndarray] = (np.zeros(spec.n), np.zeros(spec.n))
        super().__init__(built_spec(spec, fault), dt, integrator, options, **knobs)
        self.dtype = declared_dtype
        self._claimed = MuJoCoEngine(spec, dt, integrator, options, **knobs).config()
        m = self.model
        if fault == "mass":
            m.body_mass[MASS_LINK] *= MASS_FACTOR
        elif fault == "damping":
            m.dof_damping[:] += HIDDEN_DAMPING
        elif fault == "armature":
            m.dof_armature[:] += ADDED_ARMATURE
        elif fault == "gravity":
            a = math.radians(GRAVITY_TILT_DEG)
            gx, gy = float(m.opt.gravity[0]), float(m.opt.gravity[1])
            m.opt.gravity[:2] = (math.cos(a) * gx - math.sin(a) * gy, math.sin(a) * gx + math.cos(a) * gy)
        if fault in ("delay", "float32"):
            # every run through step(): mujoco.rollout would apply the torques on time, in float64
            self.capabilities = replace(self.capabilities, rollout=False, batch=False)

    def config(self) -> dict:
        """What the unfaulted adapter reports for this arm (the fault claims to be it)."""
        return dict(self._claimed)

    def reset(self, q, qd) -> None:
        if self.fault == "float32":
            q, qd = _f32(q), _f32(qd)
        super().reset(q, qd)
        self._late = (np.zeros(self.n), np.zeros(self.n))

    def step(self, tau) -> None:
        if self.fault == "delay":
            self._delayed(np.array(tau, dtype=float), np.zeros(self.n))
        elif self.fault == "float32":
            super().step(_f32(tau))
            self._qpos[:] = _f32(self._qpos)
            self._qvel[:] = _f32(self._qvel)
        else:
            super().step(tau)

    def step_applied(self, tau, extra) -> None:
        if self.fault == "delay":
            self._delayed(np.array(tau, dtype=float), np.array(extra, dtype=float))
            return
        if self.fault == "coulomb" and self.applied_friction is not None:
            # the runner added φ(q̇_k) from this state to ``extra``: the engine drops it
            extra = np.asarray(extra, dtype=float) - self.applied_friction.torque(self._qvel.copy())
        elif self.fault == "float32":
            extra = _f32(extra)
        super().step_applied(tau, extra)

    def _delayed(self, tau: np.ndarray, extra: np.ndarray) -> None:
        """Apply the previous step's (τ, extra) and keep this step's for the next."""
        (late_tau, late_extra), self._late = self._late, (tau, extra)
        self.data.qfrc_applied[:] = late_extra
        try:
            MuJoCoEngine.step(self, late_tau)
        finally:
            self.data.qfrc_applied[:] = 0.0

    # queries: float32 in and out for the float32 fault, the model's own otherwise
    def inverse_dynamics(self, q, qd, qdd):
        if self.fault != "float32":
            return super().inverse_dynamics(q, qd, qdd)
        return _f32(super().inverse_dynamics(_f32(q), _f32(qd), _f32(qdd)))

    def mass_matrix(self, q):
        if self.fault != "float32":
            return super().mass_matrix(q)
        return _f32(super().mass_matrix(_f32(q)))

    def forward_dynamics(self, q, qd, tau):
        if self.fault != "float32":
            return super().forward_dynamics(q, qd, tau)
        return _f32(super().forward_dynamics(_f32(q), _f32(qd), _f32(tau)))

    def energy(self, q, qd):
        if self.fault != "float32":
            return super().energy(q, qd)
        T, U = super().energy(_f32(q), _f32(qd))
        return float(np.float32(T)), float(np.float32(U))


CORIOLIS_EDIT = ("    return out\n\n\ndef G",
                 "    out[0, 1] = -out[0, 1]  # seeded fault: one Coriolis entry's sign flipped\n    return out\n\n\ndef G")


def coriolis_flip_file(folder: Path) -> Path:
    """tests/check_files/textbook_nr.py with C[0, 1] (joint 1's Coriolis/centrifugal coefficient of q̇_2) negated,
    written into ``folder``."""
    src = CLEAN_FILE.read_text()
    old, new = CORIOLIS_EDIT
    assert src.count(old) == 1, "the Coriolis edit no longer applies to textbook_nr.py"
    path = Path(folder) / "textbook_nr_coriolis_flip.py"
    path.write_text(src.replace(old, new))
    return path


def register() -> None:
    """Register :data:`ENGINES` (idempotent)."""
    for name, kwargs in ENGINES.items():
        registry.register(name, __name__, "FaultyMuJoCo", **kwargs)
