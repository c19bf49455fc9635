"""Genesis (``genesis-world``, Quadrants/Taichi kernels on a GPU or the CPU) as an engine, from the generated MJCF.

Genesis is not a dependency of ``[all]`` (≈ 3.2 GB plus torch, which it imports but does not declare: ≈ 8.5 GB and
20 min in all): ``pip install 'crossdyn[genesis]'`` installs it.  Without it the registry reports the engine
"not installed: pip install 'crossdyn[genesis]'" and nothing of this module but the pure configuration
(:func:`genesis_settings`) is used.

Defaults of Genesis found to change the dynamics, each neutralised here, listed in :meth:`GenesisEngine.config` and
switchable back by ``genesis@key=value``:

* **armature** (``armature_default``): ``gs.morphs.MJCF(default_armature=0.1)`` adds a rotor inertia of
  0.1 kg m² to **every** joint, whatever the file says ("applied to all joints regardless of whether they are
  actuated"; measured on crossdyn's planar3r MJCF, whose armature is 0: 0.72 rad after 1 s against MuJoCo C, and
  1e-16 rad against MuJoCo C given the same armature).  The adapter passes ``default_armature=None`` and then sets
  each dof's armature to the file's value (``set_dofs_armature``); ``armature_default=true`` keeps Genesis's 0.1.
* **integrator** (``integrator``): Genesis's default ``approximate_implicitfast`` ("wrong in theory", its docs
  say); the adapter uses ``Euler`` (semi-implicit, "consistent with its MuJoCo counterpart"); ``implicitfast`` and
  ``approximate_implicitfast`` can be asked for.
* **gravity and dt**: ``SimOptions`` defaults are gravity (0, 0, −9.81) (about the planar arms' joint axes: none)
  and dt = 0.01 s; the adapter passes the spec's gravity and the run's dt.
* **collisions and joint limits**: ``RigidOptions`` enables collision, self-collision and joint limits by default;
  crossdyn's arms are compared without them (crossdyn applies its limit and contact laws): all three off
  (``joint_limit=true`` and ``collision=true`` switch them back).  The generated MJCF writes ``limited="false"``,
  so on crossdyn's own arms ``joint_limit=true`` does not change the motion (measured: planar2r-limits entering
  its limit, 7.98e-5 rad from the reference either way); it matters for a user's file with ranges (the file engine
  ``genesis``: a pendulum held at its 0.2 rad limit instead of 0.860 rad at 0.3 s).  Likewise ``collision=true``
  cannot change a generated arm: its link capsules have contype = conaffinity = 0 and applied mode adds no
  obstacle (measured: planar3r folded at q = (0, 2.97, 2.97), link 3 driven through link 1 for 0.1 s, the same
  state to the last bit on or off, where Drake's link–link contact moves it 6.3e-3 rad); it matters for a user's
  file with collision geometry (the file engine: 0.353 rad at 0.2 s).  Both tested in tests/test_genesis.py.
* **joint damping is integrated implicitly** (not switchable): Genesis's ``Euler`` always takes its implicit
  damping pass, as MuJoCo's Euler with ``eulerdamp`` on; on planar3r with damping 0.5 N m s/rad it follows C
  MuJoCo with eulerdamp to 3.8e-7 rad over 0.3 s and crossdyn's explicit semi-implicit Euler only to 1.9e-4 rad.
  Named in :meth:`GenesisEngine.config` (``joint_damping``); without damping the two schemes coincide.
* **mass matrix read after a reset** (not a default but a trap of the API): ``get_mass_mat`` returns the M that
  the last step computed at its start state; ``set_dofs_position`` does not refresh it.  :meth:`mass_matrix` steps
  once with τ = 0 from (q, 0) and reads M(q).

Checked on Genesis 1.4.5 and left as they are, because they already match the file: damping, stiffness and
frictionloss (read from the MJCF), force range (±inf: the MJCF sets none), ``SimOptions.substeps`` 1, hibernation
(``use_hibernation`` False).  Genesis warns that the planar arms' links have "dubious inertia" against an estimate
from their geometry; it keeps the file's inertia (its M matches crossdyn's analytic M to float32).
* **precision** (``dtype``): ``gs.init(precision="32")`` by default; ``dtype=float64`` runs ``precision="64"``.

M, forward and inverse dynamics are Genesis's own terms read at the start of one step (:meth:`_start_terms`):
Genesis has no inverse-dynamics call, so τ = M q̈ − force(τ = 0) (= M q̈ + qf_bias + b q̇) from its rigid solver's
state.  Energy is Genesis's ``get_kinetic_energy``/``get_potential_energy`` (Genesis 1.4.5).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from crossdyn.engines.base import Capabilities, Engine, EngineError
from crossdyn.models.mjcf import to_mjcf
from crossdyn.models.spec import ArmSpec

GENESIS_DEFAULT_ARMATURE = 0.1
"""``gs.morphs.MJCF``'s ``default_armature`` (kg m², every joint), Genesis 1.4."""
INTEGRATORS = ("Euler", "implicitfast", "approximate_implicitfast")
INSTALL_HINT = "not installed: pip install 'crossdyn[genesis]'"


@dataclass(frozen=True)
class GenesisOptions:
    """The knobs of ``genesis`` (``genesis@key=value``)."""

    armature_default: bool = False
    """Keep Genesis's ``default_armature`` 0.1 kg m² on every joint instead of the file's armature."""
    integrator: str = "Euler"
    """Genesis's rigid integrator: ``Euler`` (crossdyn), ``implicitfast``, ``approximate_implicitfast`` (Genesis's)."""
    dtype: str = "float32"
    """``gs.init(precision=…)``: ``float32`` (Genesis's default, "32") or ``float64`` ("64")."""
    backend: str = "cpu"
    """``gs.init(backend=…)``: ``cpu`` or ``gpu``."""
    joint_limit: bool = False
    """Keep Genesis's ``RigidOptions.enable_joint_limit`` (its default True): the MJCF's ranges become constraints."""
    collision: bool = False
    """Keep Genesis's collision and self-collision (its defaults True) and the morph's collision geometry."""


def genesis_settings(spec: ArmSpec, dt: float, options: GenesisOptions | None = None) -> dict[str, Any]:
    """What the adapter passes to Genesis for ``spec`` at step ``dt``, as plain data (no Genesis needed):

    ``init`` (``gs.init`` keywords), ``sim`` (``gs.options.SimOptions``), ``rigid`` (``gs.options.RigidOptions``;
    the integrator by name, ``gs.integrator.<name>``), ``morph`` (``gs.morphs.MJCF`` keywords besides the file),
    ``armature`` (kg m² per dof set after ``scene.build()``, or None: Genesis's default kept) and ``neutralised``
    (Genesis's default → crossdyn's setting, for :meth:`GenesisEngine.config`)."""
    opt = options or GenesisOptions()
    if opt.integrator not in INTEGRATORS:
        raise EngineError(f"genesis integrator: must be one of {', '.join(INTEGRATORS)}, got {opt.integrator!r}")
    if opt.dtype not in ("float32", "float64"):
        raise EngineError(f"genesis dtype: must be float32 or float64, got {opt.dtype!r}")
    if opt.backend not in ("cpu", "gpu"):
        raise EngineError(f"genesis backend: must be cpu or gpu, got {opt.backend!r}")
    gravity = tuple(float(g) for g in spec.gravity)
    file_armature = [float(lk.armature) for lk in spec.links]
    neutralised = {
        "default_armature": (f"{GENESIS_DEFAULT_ARMATURE} kg m^2 on every joint" if opt.armature_default else
                             f"Genesis's {GENESIS_DEFAULT_ARMATURE} kg m^2 on every joint -> the file's armature"),
        "integrator": f"Genesis's approximate_implicitfast -> {opt.integrator}",
        "gravity": f"Genesis's (0, 0, -9.81) -> the spec's {list(gravity)}",
        "dt": f"Genesis's 0.01 s -> {dt:g} s",
        "enable_collision": "Genesis's True" if opt.collision else ("Genesis's True -> False (no effect on the "
                                                                     "generated arm: its link geoms have contype = "
                                                                     "conaffinity = 0; measured bit-identical)"),
        "enable_self_collision": "Genesis's True" if opt.collision else "Genesis's True -> False",
        "enable_joint_limit": ("Genesis's True" if opt.joint_limit
                               else "Genesis's True -> False (crossdyn applies its limit law; the generated MJCF "
                                    "writes limited=\"false\", so only a file with ranges is affected)"),
    }
    return {
        "init": {"backend": opt.backend, "precision": "64" if opt.dtype == "float64" else "32"},
        "sim": {"dt": float(dt), "gravity": gravity, "substeps": 1},
        "rigid": {"dt": float(dt), "gravity": gravity, "integrator": opt.integrator,
                  "enable_collision": opt.collision, "enable_self_collision": opt.collision,
                  "enable_joint_limit": opt.joint_limit},
        "morph": {"collision": opt.collision,
                  "default_armature": GENESIS_DEFAULT_ARMATURE if opt.armature_default else None},
        "armature": None if opt.armature_default else file_armature,
        "neutralised": neutralised,
    }


def init_genesis(gs: Any, settings: dict, who: str) -> None:  # pragma: no cover - needs Genesis
    """``gs.init`` with ``settings["init"]`` unless this process ran it already; :class:`EngineError` if it ran at
    another precision (``gs.init`` runs once per process: a second precision would be silently ignored)."""
    s = settings["init"]
    if not getattr(gs, "_initialized", False):
        gs.init(backend=getattr(gs, s["backend"]), precision=s["precision"], logging_level="warning")
    bits = "64" if np.dtype(getattr(gs, "np_float", np.float32)) == np.float64 else "32"
    if bits != s["precision"]:
        raise EngineError(f"{who}: Genesis was initialised with precision={bits} in this process (gs.init runs "
                          "once); run float32 and float64 in separate processes")


def new_scene(gs: Any, settings: dict) -> Any:  # pragma: no cover - needs Genesis
    """A Genesis scene with ``settings``' SimOptions and RigidOptions (:func:`genesis_settings`), no viewer."""
    rigid = dict(settings["rigid"], integrator=getattr(gs.integrator, settings["rigid"]["integrator"]))
    return gs.Scene(sim_options=gs.options.SimOptions(**settings["sim"]),
                    rigid_options=gs.options.RigidOptions(**rigid), show_viewer=False)


def add_arm(gs: Any, scene: Any, spec: ArmSpec, dt: float, settings: dict) -> Any:  # pragma: no cover - needs Genesis
    """Add ``spec``'s generated MJCF to ``scene`` as one entity (``gs.morphs.MJCF`` with ``settings["morph"]``)."""
    import os
    import tempfile

    fd, path = tempfile.mkstemp(suffix=".xml")
    with os.fdopen(fd, "w") as f:
        f.write(to_mjcf(spec, timestep=dt))
    try:
        return scene.add_entity(gs.morphs.MJCF(file=path, **settings["morph"]))
    finally:
        os.unlink(path)


class GenesisEngine(Engine):
    name = "genesis"
    integrator = "semi-implicit-euler"
    Options = GenesisOptions
    capabilities = Capabilities(armature=True, tip_frame=True)

    def __init__(self, spec: ArmSpec, dt: float = 1e-3, options: GenesisOptions | None = None, **knobs):
        super().__init__(spec, dt)
        self.options = opt = self._options(options, knobs)
        self.settings = s = genesis_settings(spec, self.dt, opt)
        self.dtype = opt.dtype
        self.integrator = {"Euler": "semi-implicit-euler"}.get(opt.integrator, opt.integrator)
        try:
            import genesis as gs  # type: ignore[import-untyped,import-not-found,unused-ignore]
        except ImportError as e:
            raise EngineError(f"genesis is {INSTALL_HINT} ({e})") from None
        self.gs = gs
        self._build(gs, s)

    def _build(self, gs: Any, s: dict) -> None:  # pragma: no cover - needs Genesis
        init_genesis(gs, s, f"genesis dtype={self.options.dtype}")
        self.scene = new_scene(gs, s)
        self.entity = add_arm(gs, self.scene, self.spec, self.dt, s)
        self.scene.build()
        self.dofs = [self.entity.get_joint(f"joint{i}").dofs_idx_local[0] for i in range(1, self.n + 1)]
        if s["armature"] is not None:
            self.entity.set_dofs_armature(np.asarray(s["armature"]), self.dofs)
        self.reset(np.zeros(self.n), np.zeros(self.n))

    # ------------------------------------------------------------------ simulation (needs Genesis)
    def reset(self, q, qd) -> None:  # pragma: no cover - needs Genesis
        self.entity.set_dofs_position(np.asarray(q, dtype=float), self.dofs)
        self.entity.set_dofs_velocity(np.asarray(qd, dtype=float), self.dofs)

    def step(self, tau) -> None:  # pragma: no cover - needs Genesis
        tau = np.asarray(tau, dtype=float)
        if not np.all(np.isfinite(tau)):
            raise EngineError(f"genesis: control {tau.tolist()} is not finite")
        self.entity.control_dofs_force(tau, self.dofs)
        self.scene.step()

    def state(self):  # pragma: no cover - needs Genesis
        def arr(x):
            return np.asarray(x.detach().cpu().numpy() if hasattr(x, "detach") else x, dtype=float).reshape(self.n)
        return arr(self.entity.get_dofs_position(self.dofs)), arr(self.entity.get_dofs_velocity(self.dofs))

    def _start_terms(self, q, qd, tau):  # pragma: no cover - needs Genesis
        """Genesis's M(q) and its smooth generalised force at the state (q, q̇) under τ.

        Genesis computes them at the START of a step and exposes no call that does it without one
        (``set_dofs_position`` leaves ``get_mass_mat`` at the previous step's M: measured M₁₁ 1.9155 against 1.9312
        on planar2r), so the adapter resets to (q, q̇), steps once under τ, reads them, and restores its state.
        ``force`` = qf_passive − qf_bias + qf_applied (``get_dofs_force``): qf_passive = −b q̇ (joint damping; the
        stiffness is 0), qf_bias = C(q, q̇)q̇ + G(q), qf_applied = τ."""
        def arr(x):
            return np.asarray(x.detach().cpu().numpy() if hasattr(x, "detach") else x, dtype=float)

        saved = self.state()
        self.reset(q, qd)
        self.step(tau)
        M = arr(self.entity.get_mass_mat())[np.ix_(self.dofs, self.dofs)]
        force = arr(self.entity.get_dofs_force(self.dofs)).reshape(self.n)
        self.reset(*saved)
        return 0.5 * (M + M.T), force

    def mass_matrix(self, q):  # pragma: no cover - needs Genesis
        """Genesis's M(q) (armature included), read at the start of one step from (q, 0)."""
        zero = np.zeros(self.n)
        return self._start_terms(q, zero, zero)[0]

    def forward_dynamics(self, q, qd, tau):  # pragma: no cover - needs Genesis
        """q̈ = M(q)⁻¹ · force, Genesis's smooth acceleration at (q, q̇) under τ (damping explicit, no constraint):
        the same whatever the integrator, with no (q̇₁ − q̇₀)/dt cancellation."""
        M, force = self._start_terms(q, qd, np.asarray(tau, dtype=float))
        return np.linalg.solve(M, force)

    def inverse_dynamics(self, q, qd, qdd):  # pragma: no cover - needs Genesis
        """τ = M(q)q̈ − force(q, q̇; τ = 0) from Genesis's own M and smooth force: qf_bias (C q̇ + G, armature in M)
        minus qf_passive (−b q̇, the joint damping, as the engine interface's τ includes it: MuJoCo's
        ``qfrc_inverse``, Newton's ``+ b q̇``).  Without damping the two forms agree: force = −qf_bias."""
        M, force = self._start_terms(q, qd, np.zeros(self.n))
        return M @ np.asarray(qdd, dtype=float) - force

    def energy(self, q, qd):  # pragma: no cover - needs Genesis
        """(T, U) from Genesis's ``get_kinetic_energy`` (½ VᵀIV per link + ½ armature q̇²) and
        ``get_potential_energy`` (−Σ m g·p_c) at (q, q̇), which ``set_dofs_position``/``_velocity`` bring up to date."""
        saved = self.state()
        self.reset(q, qd)
        T = float(self.entity.get_kinetic_energy())
        U = float(self.entity.get_potential_energy())
        self.reset(*saved)
        return T, U

    tip_source = ("Genesis link 'linkN' (the last link; Genesis keeps no MJCF sites) at the state: get_pos, get_quat, "
                  "composed with the tip's offset in that link (the MJCF site's position, the link's length along x); "
                  "velocity get_vel + get_ang x offset; get_jacobian(link, local_point=offset)")

    def tip_kinematics(self, q=None, qd=None):  # pragma: no cover - needs Genesis
        """The tip's world position, linear velocity and translational Jacobian (x–y rows), by Genesis at (q, q̇)
        or the simulated state: x = p + R s from the last link's pose (s = (L_n, 0, 0), where the MJCF puts the
        ``tip`` site, which Genesis does not keep), ẋ = v + ω × (x − p) from the link origin's ``get_vel`` and
        ``get_ang``, J from ``get_jacobian(link, local_point=s)``."""
        def arr(x):
            return np.asarray(x.detach().cpu().numpy() if hasattr(x, "detach") else x, dtype=float)

        if not self.spec.has_contact:
            raise EngineError("genesis: the arm has no [contact]: no tip")
        offset = np.array([float(self.spec.links[-1].length), 0.0, 0.0])
        saved = None if q is None else self.state()
        if q is not None:
            self.reset(q, np.zeros(self.n) if qd is None else qd)
        link = self.entity.get_link(f"link{self.n}")
        p, quat = arr(link.get_pos()).reshape(3), arr(link.get_quat()).reshape(4)  # quat (w, x, y, z)
        v, w = arr(link.get_vel()).reshape(3), arr(link.get_ang()).reshape(3)
        J = arr(self.entity.get_jacobian(link, local_point=offset))[:3, self.dofs]
        if saved is not None:
            self.reset(*saved)
        u, s0 = quat[1:], quat[0]
        x = p + offset + 2.0 * np.cross(u, np.cross(u, offset) + s0 * offset)
        return x[:2], (v + np.cross(w, x - p))[:2], J[:2]

    def config(self) -> dict:
        s = self.settings
        return {"engine": "genesis", "version": getattr(self.gs, "__version__", "unknown"),
                "options": asdict(self.options), "integrator": self.integrator, "dt": self.dt, "dtype": self.dtype,
                "model_source": "generated MJCF -> gs.morphs.MJCF", "init": s["init"], "sim_options": s["sim"],
                "rigid_options": s["rigid"], "morph": s["morph"], "armature": s["armature"],
                "neutralised": s["neutralised"], "torque_input": "entity.control_dofs_force",
                "inverse_dynamics": ("M(q) q'' + qf_bias(q, q') - qf_passive(q, q') (joint damping included) read "
                                     "from Genesis's rigid solver at one step's start"),
                "joint_damping": ("implicit: Genesis's Euler always integrates joint damping implicitly (as MuJoCo's "
                                  "Euler with eulerdamp on); Genesis has no switch to make it explicit"),
                "implicit_damping": True}
