"""Seeded faults on the GPU simulators (issue 28): MuJoCo Warp, Newton and Genesis with one known defect each, claiming
to be the unfaulted adapter.

The same faults as tests/seeded_faults.py (the MuJoCo matrix of benchmarks/verdicts.py), put into the new engines'
own model arrays or input path:

==========  =======================================================================================================
fault       the defect (``mujoco-warp``: in the C ``MjModel`` before ``put_model`` again; ``newton``: in the
            finalized ``Model``'s arrays, the Featherstone solvers built again; ``genesis``: through the built
            scene's setters, ``set_links_mass``, ``set_dofs_damping``/``_armature``, ``sim.set_gravity``)
==========  =======================================================================================================
mass        link 2's mass × 1.01 (MuJoCo Warp ``body_mass``; Newton ``body_mass`` and ``body_inv_mass``), its
            inertia about its centre of mass unchanged
damping     joint damping + 0.01 N m s/rad on every joint (``dof_damping``; Newton ``joint_damping``)
armature    armature + 0.1 kg m² on every joint (``dof_armature``; Newton ``joint_armature``)
gravity     gravity rotated by 1° about z (``opt.gravity``; Newton ``Model.set_gravity``)
delay       the torque given at step k (the runner's law torques with it) is applied at step k + 1
float32     the engine computes in float32 but declares ``dtype = "float64"``: the tolerance that claim selects
            leaves no room for float32 round-off (MuJoCo Warp and Newton have no float64 build to degrade, so
            there the fault is the false claim; Genesis has one: its fault is ``genesis@dtype=float64`` built in
            a process whose ``gs.init`` ran at precision 32, the adapter's refusal taken out, so its kernels
            really run in float32 while its config says float64)
contact     the tip contact's stiffness × 2 in the spec the runner's contact law is built from (applied mode)
limit       every joint's ``limit_stiffness`` × 2 in the spec the runner's limit law is built from (applied mode)
coulomb     the regularised Coulomb law the comparison gives the engine (``set_applied_friction``) is dropped
==========  =======================================================================================================

The Coriolis fault of the matrix is a user file (a wrong equation of motion, ``user:FILE``), not an engine: the new
engines have no parameter that flips one entry of C(q, q̇), so it is ``unsupported`` for them
(:data:`UNSUPPORTED`).

:func:`register` registers ``mujoco-warp-seeded-<fault>``, ``newton-seeded-<fault>`` and ``genesis-seeded-<fault>``
(each class is made at first use, so that importing this module needs none of the three).
"""
from __future__ import annotations

import math

import numpy as np

from crossdyn.engines import registry

from seeded_faults import ADDED_ARMATURE, GRAVITY_TILT_DEG, HIDDEN_DAMPING, MASS_FACTOR, MASS_LINK, built_spec

FAULTS = ("mass", "damping", "armature", "gravity", "delay", "float32", "contact", "limit", "coulomb")
BASES = {"mujoco-warp": ("crossdyn.engines.mujoco_warp.planar", "MuJoCoWarpEngine"),
         "newton": ("crossdyn.engines.newton.planar", "NewtonEngine"),
         "genesis": ("crossdyn.engines.genesis.planar", "GenesisEngine")}
CLASS_OF = {"mujoco-warp": "FaultyMuJoCoWarp", "newton": "FaultyNewton", "genesis": "FaultyGenesis"}
UNSUPPORTED = {"coriolis": "the Coriolis fault is a user file (one entry of C(q, q̇) negated in a hand-written "
                           "equation of motion); MuJoCo Warp, Newton and Genesis compute C from the model by their "
                           "own recursions and have no parameter that flips one entry"}


def tilt(g, degrees: float = GRAVITY_TILT_DEG) -> list[float]:
    """``g`` rotated by ``degrees`` about z."""
    a = math.radians(degrees)
    gx, gy = float(g[0]), float(g[1])
    return [math.cos(a) * gx - math.sin(a) * gy, math.sin(a) * gx + math.cos(a) * gy, float(g[2])]


class _Delay:
    """Holds each step's (τ, extra) for the next step (zero at the first)."""

    def __init__(self, n: int):
        self.n = n
        self.reset()

    def reset(self) -> None:
        self.late = (np.zeros(self.n), np.zeros(self.n))

    def swap(self, tau, extra=None) -> tuple[np.ndarray, np.ndarray]:
        now = (np.array(tau, dtype=float), np.zeros(self.n) if extra is None else np.array(extra, dtype=float))
        out, self.late = self.late, now
        return out


def _common_init(engine, fault: str) -> None:
    if fault not in FAULTS:
        raise ValueError(f"fault: one of {', '.join(FAULTS)}; got {fault!r}")
    engine.fault = fault
    engine._claimed = engine.config()  # what the unfaulted adapter reports for this arm, before the seeding
    engine._delay = _Delay(engine.n)
    if fault == "float32":
        engine.dtype = "float64"


def _drop_friction(engine, law) -> bool:
    """The Coulomb fault: the law the comparison gives is dropped (the runner then applies none)."""
    if engine.fault == "coulomb":
        engine.applied_friction = None
        return True
    return False


def make_classes():
    """The two faulty classes (imports MuJoCo Warp and Newton)."""
    import mujoco_warp as mjw  # type: ignore[import-untyped,import-not-found,unused-ignore]
    import warp as wp  # type: ignore[import-untyped,import-not-found,unused-ignore]
    from newton.solvers import SolverFeatherstone  # type: ignore[import-untyped,import-not-found,unused-ignore]

    from crossdyn.engines.mujoco_warp.planar import MuJoCoWarpEngine
    from crossdyn.engines.newton.planar import NewtonEngine

    class FaultyMuJoCoWarp(MuJoCoWarpEngine):
        """``mujoco-warp`` with one seeded fault, claiming to be the unfaulted adapter."""

        def __init__(self, spec, dt=1e-3, fault="mass", options=None, **knobs):
            self.fault = fault
            super().__init__(built_spec(spec, fault), dt, options, **knobs)
            _common_init(self, fault)
            m = self.mj_model
            if fault == "mass":
                m.body_mass[MASS_LINK] *= MASS_FACTOR
            elif fault == "damping":
                m.dof_damping[:] += HIDDEN_DAMPING
            elif fault == "armature":
                m.dof_armature[:] += ADDED_ARMATURE
            elif fault == "gravity":
                m.opt.gravity[:] = tilt(m.opt.gravity)
            with wp.ScopedDevice(self.device):
                self.model = mjw.put_model(m)

        def config(self) -> dict:
            return dict(getattr(self, "_claimed", None) or super().config())

        def set_applied_friction(self, law) -> None:
            if not _drop_friction(self, law):
                super().set_applied_friction(law)

        def reset(self, q, qd) -> None:
            super().reset(q, qd)
            if hasattr(self, "_delay"):
                self._delay.reset()

        def step(self, tau) -> None:
            if self.fault == "delay" and not getattr(self, "_inner", False):
                tau, _ = self._delay.swap(tau)
            super().step(tau)

        def step_applied(self, tau, extra) -> None:
            if self.fault == "delay":
                tau, extra = self._delay.swap(tau, extra)
                self._inner = True
                try:
                    super().step_applied(tau, extra)
                finally:
                    self._inner = False
                return
            super().step_applied(tau, extra)

    class FaultyNewton(NewtonEngine):
        """``newton`` with one seeded fault, claiming to be the unfaulted adapter."""

        def __init__(self, spec, dt=1e-3, fault="mass", options=None, **knobs):
            self.fault = fault
            super().__init__(built_spec(spec, fault), dt, options, **knobs)
            _common_init(self, fault)
            m = self.model
            with wp.ScopedDevice(self.device):
                if fault == "mass":
                    mass = m.body_mass.numpy()
                    mass[MASS_LINK - 1] *= MASS_FACTOR
                    m.body_mass.assign(mass)
                    m.body_inv_mass.assign(np.where(mass > 0, 1.0 / np.where(mass > 0, mass, 1.0), 0.0)
                                           .astype(np.float32))
                elif fault == "damping":
                    m.joint_damping.assign(m.joint_damping.numpy() + np.float32(HIDDEN_DAMPING))
                elif fault == "armature":
                    m.joint_armature.assign(m.joint_armature.numpy() + np.float32(ADDED_ARMATURE))
                elif fault == "gravity":
                    m.set_gravity(tilt(m.gravity.numpy()[0]))
                damp = float(self.options.angular_damping)
                self.solver = SolverFeatherstone(m, angular_damping=damp)
                self._qsolver = SolverFeatherstone(m, angular_damping=damp)
            self._damping = m.joint_damping.numpy().astype(float)

        def config(self) -> dict:
            return dict(getattr(self, "_claimed", None) or super().config())

        def set_applied_friction(self, law) -> None:
            if not _drop_friction(self, law):
                super().set_applied_friction(law)

        def reset(self, q, qd) -> None:
            super().reset(q, qd)
            if hasattr(self, "_delay"):
                self._delay.reset()

        def step(self, tau) -> None:
            if self.fault == "delay":
                tau, _ = self._delay.swap(tau)  # Newton has no step_applied: the law torques arrive inside τ
            super().step(tau)

    return FaultyMuJoCoWarp, FaultyNewton


def make_genesis_class():
    """The faulty Genesis class (imports Genesis's adapter; Genesis itself is imported when one is built)."""
    from dataclasses import replace

    from crossdyn.engines.genesis.planar import GenesisEngine, genesis_settings

    class FaultyGenesis(GenesisEngine):
        """``genesis`` with one seeded fault, claiming to be the unfaulted adapter.

        Genesis has no ``step_applied``: the runner's law torques arrive inside τ, so the delay holds them too.
        Its queries (M, q̈, τ, energy, tip) reset to the asked state, and M, q̈, τ step once from it
        (:meth:`GenesisEngine._start_terms`): they go around the delay (``_inner``), which a query's reset leaves
        as it was."""

        def __init__(self, spec, dt=1e-3, fault="mass", options=None, **knobs):
            self.fault = fault
            self._inner = False
            super().__init__(built_spec(spec, fault), dt, options, **knobs)
            _common_init(self, fault)
            e = self.entity
            if fault == "mass":
                link = e.get_link(f"link{MASS_LINK}").idx_local
                mass = float(e.get_links_mass([link]).cpu().numpy().reshape(-1)[0])
                e.set_links_mass(np.array([MASS_FACTOR * mass]), [link])
            elif fault == "damping":
                e.set_dofs_damping(e.get_dofs_damping(self.dofs).cpu().numpy() + HIDDEN_DAMPING, self.dofs)
            elif fault == "armature":
                e.set_dofs_armature(e.get_dofs_armature(self.dofs).cpu().numpy() + ADDED_ARMATURE, self.dofs)
            elif fault == "gravity":
                self.scene.sim.set_gravity(np.array(tilt(self.settings["sim"]["gravity"])))
            elif fault == "float32":
                # the float64 adapter's own claim (config, settings, dtype), its refusal to run in a precision-32
                # process taken out: Genesis computes in float32 (gs.init ran once, at 32) while it says float64
                claimed = replace(self.options, dtype="float64")
                self.options, self.settings = claimed, genesis_settings(self.spec, self.dt, claimed)
                self._claimed = super().config()  # dtype float64 (set by _common_init), precision "64"

        def config(self) -> dict:
            return dict(getattr(self, "_claimed", None) or super().config())

        def set_applied_friction(self, law) -> None:
            if not _drop_friction(self, law):
                super().set_applied_friction(law)

        def reset(self, q, qd) -> None:
            super().reset(q, qd)
            if hasattr(self, "_delay") and not self._inner:
                self._delay.reset()

        def step(self, tau) -> None:
            if self.fault == "delay" and not self._inner:
                tau, _ = self._delay.swap(tau)
            super().step(tau)

        def _start_terms(self, q, qd, tau):
            self._inner = True
            try:
                return super()._start_terms(q, qd, tau)
            finally:
                self._inner = False

        def energy(self, q, qd):
            self._inner = True
            try:
                return super().energy(q, qd)
            finally:
                self._inner = False

        def tip_kinematics(self, q=None, qd=None):
            self._inner = True
            try:
                return super().tip_kinematics(q, qd)
            finally:
                self._inner = False

    return FaultyGenesis


_CLASSES: dict[str, type] = {}


def __getattr__(name: str):
    """``FaultyMuJoCoWarp``, ``FaultyNewton`` and ``FaultyGenesis``, made at first use (so that importing this module
    needs none of the engines; the Genesis class apart, as its environment has neither Warp engine)."""
    if name == "FaultyGenesis":
        if name not in _CLASSES:
            _CLASSES[name] = make_genesis_class()
        return _CLASSES[name]
    if name in ("FaultyMuJoCoWarp", "FaultyNewton"):
        if name not in _CLASSES:
            a, b = make_classes()
            _CLASSES.update(FaultyMuJoCoWarp=a, FaultyNewton=b)
        return _CLASSES[name]
    raise AttributeError(name)


def engine_name(base: str, fault: str) -> str:
    return f"{base}-seeded-{fault}"


def register() -> None:
    """Register ``<base>-seeded-<fault>`` for every base and every fault (idempotent)."""
    for base in BASES:
        for fault in FAULTS:
            registry.register(engine_name(base, fault), __name__, CLASS_OF[base], fault=fault)
