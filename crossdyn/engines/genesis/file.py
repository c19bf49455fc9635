"""Genesis reading a robot file: ``gs.morphs.URDF`` (``fixed=True``) or ``gs.morphs.MJCF``, one scene per engine.

Genesis is outside ``[all]`` (``pip install 'crossdyn[genesis]'``, ≈ 8.5 GB with torch).  Its defaults that change
the dynamics, each switched off, listed in :meth:`GenesisFileEngine.config` and switchable back by
``genesis@key=value`` (as the planar ``genesis`` engine, :mod:`crossdyn.engines.genesis.planar`):

=======================  ===========================  ================================================================
knob                     crossdyn (Genesis's default)  what Genesis's default does
=======================  ===========================  ================================================================
``armature_default``     false (true)                  ``default_armature=0.1`` kg m² on every joint whose armature the
                                                       file leaves at 0
``fixed``                true (false, URDF)            a URDF's base link floats (a free joint, 6 more dofs)
``joint_limit``          false (true)                  the file's ranges become constraints while stepping (a
                                                       pendulum falling through [−0.2, 0.2] rad: 0.860 rad at 0.3 s
                                                       off, held at 0.2002 on; measured)
``collision``            false (true)                  collision and self-collision; ``true`` also keeps the URDF's
                                                       ``<collision>`` elements in the copy (an arm striking a box on
                                                       its fixed base: 0.353 rad apart at 0.2 s; measured).  An
                                                       MJCF's collisions are removed from the copy either way
``integrator``           Euler (approximate_implicitfast)  Genesis's default is "wrong in theory", its docs say
=======================  ===========================  ================================================================

Left as Genesis does it: ``merge_fixed_links=True`` (exact: pybullet_data's Panda, whose massless ``panda_link8``
carries inertia diag(0.1), reads within 2e-7 of max|M| merged or not, measured).  Gravity and dt are the model's and the run's (Genesis: (0, 0, −9.81), 0.01 s).  Genesis's Euler integrates joint
damping implicitly (not switchable; in ``config``).  ``dtype``: ``gs.init(precision=…)``, float32 by default (once
per process).

Queries are Genesis's own terms read at the start of one step from the state (Genesis exposes M and the bias only
there): M = ``get_mass_mat`` (armature included), bias = the rigid solver's ``qf_bias`` (C q̇ + G, no damping), ID =
M q̈ + bias, FD = M⁻¹ (τ − bias).  One state at a time (a step each).
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import numpy as np

from crossdyn.engines.file_engine import FileEngine, FileOptions
from crossdyn.errors import EngineError
from crossdyn.robots.model import Format, RobotModel
from crossdyn.robots.prepare import prepare

INTEGRATORS = ("Euler", "implicitfast", "approximate_implicitfast")
GENESIS_DEFAULT_ARMATURE = 0.1


@dataclass(frozen=True)
class GenesisFileOptions(FileOptions):
    armature_default: bool = False
    """Keep Genesis's ``default_armature`` 0.1 kg m² on every joint the file leaves at 0."""
    fixed: bool = True
    """URDF: the base welded to the world (Genesis's default: floating)."""
    joint_limit: bool = False
    """Keep ``RigidOptions.enable_joint_limit`` (Genesis's default True)."""
    collision: bool = False
    """Keep Genesis's collision and self-collision (its defaults True) and a URDF's ``<collision>`` geometry."""
    integrator: str = "Euler"
    """``Euler`` (semi-implicit), ``implicitfast`` or ``approximate_implicitfast`` (Genesis's default)."""
    dtype: str = "float32"
    """``gs.init(precision=…)``: float32 (Genesis's default) or float64; one per process."""
    backend: str = "cpu"
    """``gs.init(backend=…)``: ``cpu`` or ``gpu``."""


def _arr(x: Any) -> np.ndarray:
    return np.asarray(x.detach().cpu().numpy() if hasattr(x, "detach") else x, dtype=float)


class GenesisFileEngine(FileEngine):
    name = "genesis"
    formats = frozenset({Format.URDF, Format.MJCF})
    Options = GenesisFileOptions
    integrator = "semi-implicit-euler"
    dtype = "float32"

    def __init__(self, model: RobotModel, dt: float = 1e-3, options: Any = None, **kw: Any):
        super().__init__(model, dt, options, **kw)
        opt = self.options
        if opt.integrator not in INTEGRATORS or opt.dtype not in ("float32", "float64") or opt.backend not in (
                "cpu", "gpu"):
            raise EngineError(f"genesis: integrator one of {', '.join(INTEGRATORS)}, dtype float32/float64, backend "
                              f"cpu/gpu; got {opt.integrator!r}, {opt.dtype!r}, {opt.backend!r}")
        self.dtype = opt.dtype  # type: ignore[misc]
        self.integrator = {"Euler": "semi-implicit-euler"}.get(opt.integrator, opt.integrator)
        import genesis as gs  # type: ignore[import-untyped,import-not-found,unused-ignore]

        self.gs = gs
        # collision=true: Genesis's default needs the file's geometry, which the copy otherwise removes (URDF only)
        self.prepared = prepare(model, self.folder, "genesis", keep_collision=self.options.collision)
        self._build()

    def _build(self) -> None:  # pragma: no cover - needs Genesis
        gs, opt, model = self.gs, self.options, self.model
        precision = "64" if opt.dtype == "float64" else "32"
        if not getattr(gs, "_initialized", False):
            gs.init(backend=getattr(gs, opt.backend), precision=precision, logging_level="warning")
        bits = "64" if np.dtype(getattr(gs, "np_float", np.float32)) == np.float64 else "32"
        if bits != precision:
            raise EngineError(f"genesis dtype={opt.dtype}: Genesis was initialised with precision={bits} in this "
                              "process (gs.init runs once); run float32 and float64 in separate processes")
        gravity = tuple(float(g) for g in model.gravity)
        self.scene = gs.Scene(
            sim_options=gs.options.SimOptions(dt=self.dt, gravity=gravity, substeps=1),
            rigid_options=gs.options.RigidOptions(dt=self.dt, gravity=gravity,
                                                  integrator=getattr(gs.integrator, opt.integrator),
                                                  enable_collision=opt.collision,
                                                  enable_self_collision=opt.collision,
                                                  enable_joint_limit=opt.joint_limit),
            show_viewer=False)
        common = {"file": str(self.prepared.path), "collision": opt.collision,
                  "default_armature": GENESIS_DEFAULT_ARMATURE if opt.armature_default else None}
        try:
            if model.format is Format.URDF:
                morph = gs.morphs.URDF(fixed=opt.fixed, **common)
            else:
                morph = gs.morphs.MJCF(**common)
            self.entity = self.scene.add_entity(morph)
            self.scene.build()
        except (ValueError, KeyError, RuntimeError, OSError) as e:
            raise EngineError(f"genesis: could not load {model.source}: {e}") from None
        try:
            self.dofs = [self.entity.get_joint(j).dofs_idx_local[0] for j in model.joint_names]
        except Exception as e:  # Genesis raises its own GenesisException for an unknown name
            raise EngineError(f"genesis: {model.source}: a joint of the model is not in Genesis's entity: {e}") \
                from None
        if self.entity.n_dofs != self.n:
            raise EngineError(f"genesis: {model.source}: {self.entity.n_dofs} dofs in Genesis, {self.n} in the model "
                              "(a floating base? fixed=false)")
        self.armature = _arr(self.entity.get_dofs_armature(self.dofs)).reshape(self.n)
        self.reset(np.zeros(self.n), np.zeros(self.n))

    # ---- stepping (model order: self.dofs lists Genesis's dof of each model joint) -------------------------------
    def reset(self, q: np.ndarray, qd: np.ndarray) -> None:  # pragma: no cover - needs Genesis
        self.entity.set_dofs_position(np.asarray(q, dtype=float).reshape(self.n), self.dofs)
        self.entity.set_dofs_velocity(np.asarray(qd, dtype=float).reshape(self.n), self.dofs)

    def step(self, tau: np.ndarray) -> None:  # pragma: no cover - needs Genesis
        tau = np.asarray(tau, dtype=float).reshape(self.n)
        if not np.all(np.isfinite(tau)):
            raise EngineError(f"genesis: torque {tau.tolist()} is not finite")
        self.entity.control_dofs_force(tau, self.dofs)
        self.scene.step()

    def state(self) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover - needs Genesis
        return (_arr(self.entity.get_dofs_position(self.dofs)).reshape(self.n),
                _arr(self.entity.get_dofs_velocity(self.dofs)).reshape(self.n))

    # ---- queries: Genesis's terms at the start of one step ---------------------------------------------------------
    def _terms(self, q: np.ndarray, qd: np.ndarray) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover
        """(M, qf_bias) at (q, q̇): reset there, one step with τ = 0, read, restore (see the planar adapter: Genesis
        refreshes M only in a step)."""
        from genesis.utils.misc import qd_to_torch  # type: ignore[import-untyped,import-not-found,unused-ignore]

        saved = self.state()
        self.reset(q, qd)
        self.step(np.zeros(self.n))
        M = _arr(self.entity.get_mass_mat())[np.ix_(self.dofs, self.dofs)]
        start = self.entity._dof_start
        bias = _arr(qd_to_torch(self.entity._solver.dyn_state.dofs.qf_bias, None, [start + d for d in self.dofs],
                                transpose=True, copy=True)).reshape(-1)[: self.n]
        self.reset(*saved)
        return 0.5 * (M + M.T), bias

    def _mass_matrix(self, Q: np.ndarray) -> np.ndarray:  # pragma: no cover - needs Genesis
        return np.array([self._terms(q, np.zeros(self.n))[0] for q in Q])

    def _bias(self, Q: np.ndarray, QD: np.ndarray) -> np.ndarray:  # pragma: no cover - needs Genesis
        return np.array([self._terms(q, qd)[1] for q, qd in zip(Q, QD)])

    def _inverse_dynamics(self, Q: np.ndarray, QD: np.ndarray, QDD: np.ndarray) -> np.ndarray:  # pragma: no cover
        out = []
        for q, qd, qdd in zip(Q, QD, QDD):
            M, bias = self._terms(q, qd)
            out.append(M @ qdd + bias)
        return np.array(out)

    def _forward_dynamics(self, Q: np.ndarray, QD: np.ndarray, TAU: np.ndarray) -> np.ndarray:  # pragma: no cover
        out = []
        for q, qd, tau in zip(Q, QD, TAU):
            M, bias = self._terms(q, qd)
            out.append(np.linalg.solve(M, tau - bias))
        return np.array(out)

    def config(self) -> dict:  # pragma: no cover - needs Genesis
        opt = self.options
        return {**self.base_config(),
                "library": f"genesis {self.gs.__version__}", "dtype": opt.dtype, "backend": opt.backend,
                "loader": (f"gs.morphs.{'URDF' if self.model.format is Format.URDF else 'MJCF'}"
                           f"({os.path.basename(self.prepared.path)})"),
                "copy_removed": list(self.prepared.removed),
                "default_armature": (f"Genesis's {GENESIS_DEFAULT_ARMATURE} kg m^2 on every joint left at 0"
                                     if opt.armature_default else f"None (Genesis's default {GENESIS_DEFAULT_ARMATURE} "
                                     "kg m^2 on every joint the file leaves at 0)"),
                "armature": dict(zip(self.model.joint_names, self.armature.tolist())),
                "fixed_base": opt.fixed if self.model.format is Format.URDF else "as the MJCF (no free joint)",
                "merge_fixed_links": "Genesis's default True (exact: measured on pybullet_data's Panda, whose massless "
                                     "panda_link8 carries inertia diag(0.1), M within 2e-7 either way)",
                "integrator": f"{opt.integrator} (Genesis's default approximate_implicitfast)",
                "joint_damping": "integrated implicitly by Genesis's Euler (not switchable)",
                "implicit_damping": True,
                "gravity_set": "SimOptions/RigidOptions gravity = the model's (Genesis's (0, 0, -9.81))",
                "dt": f"{self.dt:g} s (Genesis's 0.01 s)",
                "effort_limits": ("not measured (Genesis is outside [all]): control_dofs_force may be clamped to the "
                                  "entity's dofs_force_range, which Genesis reads from the file's effort"),
                "joint_limit": ("on (Genesis's default): the file's ranges are constraints" if opt.joint_limit
                                else "off (Genesis's default on): the file's ranges are not enforced (measured: a "
                                "pendulum passes its 0.2 rad limit, 0.860 rad at 0.3 s; held at 0.2002 on)"),
                "collision": ("on (Genesis's default), the URDF's <collision> geometry kept (an MJCF's is removed "
                              "from the copy)" if opt.collision else "off (Genesis's default on) and the file's "
                              "collision geometry removed from the copy; it matters where a link meets another "
                              "that is not its neighbour (measured: 0.353 rad at 0.2 s, tests/test_genesis.py)"),
                "queries": "at the start of one step from the state: get_mass_mat, the rigid solver's qf_bias; "
                           "ID = M qdd + bias; FD = M^-1 (tau - bias)"}
