"""MuJoCo (4.x) as an engine, built from the generated MJCF.

The model comes from :func:`crossdyn.models.mjcf.to_mjcf` (radians,
``inertiafromgeom="false"``, no balancing/bounding of inertia, contacts
disabled, armature (reflected rotor inertia), damping and frictionloss from the spec, one ``motor``
actuator per joint with gear 1 and no control limits, energy flag on).

Choices this adapter makes, each stated in :meth:`MuJoCoEngine.config`:

* **Integrator**: ``Euler`` (semi-implicit; the default), ``RK4``, ``implicit``
  or ``implicitfast``, chosen by the caller (registry names ``mujoco``,
  ``mujoco-euler``, ``mujoco-rk4``, ``mujoco-implicit``, ``mujoco-implicitfast``).
* **Joint damping with Euler**: MuJoCo by default integrates it implicitly
  (``eulerdamp``); this adapter disables that (``eulerdamp=False``) so Euler is
  plain semi-implicit Euler with explicit damping, like PyBullet and the analytic
  model.  ``eulerdamp=True`` restores MuJoCo's default.  (``implicit`` and
  ``implicitfast`` always treat damping implicitly.)
* **Torque input**: ``d.ctrl`` of the gear-1 motor actuators (``qfrc_applied``
  stays 0); held constant over the step (zero-order hold).
* **Bad controls**: MuJoCo silently replaces a NaN, infinite or > 1e10 ``ctrl`` by zero
  (``mjWARN_BADCTRL``); :meth:`step` raises :class:`EngineError` instead.
* **Auto-reset**: MuJoCo silently resets the state to ``qpos0`` when the
  acceleration becomes non-finite or huge; this adapter disables that
  (``mjDSBL_AUTORESET``, ``autoreset=False``) so a divergence stays visible.
* **Queries** (inverse/forward dynamics, mass matrix, energy) use a second
  ``MjData``, so a query never disturbs the simulated state.
  ``mj_inverse`` is given ``qacc`` first; its ``qfrc_inverse`` includes
  damping·q̇ (joint friction as F = b q̇ is therefore included, like the analytic
  model).  Forward dynamics is ``mj_forward`` → ``qacc``; the mass matrix is
  ``mj_fullM`` after ``mj_fwdPosition``; energy is ``d.energy`` after
  ``mj_energyPos``/``mj_energyVel`` (potential −Σ m g·p_c, zero at base height).
* **Coulomb friction**: MuJoCo's ``frictionloss`` is a soft dry-friction
  *constraint* (solver-dependent), not F = f_c sign(q̇): with f_c > 0 expect
  disagreement with the analytic model (stated in ``config()``).

* **Native contact** (``native_contact=True``, registry option ``mujoco@native_contact=true``; arms with
  ``[contact]`` and ``[[obstacles]]``): MuJoCo's own contact between the tip sphere and the obstacle planes
  (:func:`crossdyn.models.mjcf.to_mjcf`), with the direct ``solref = (−k A0, −c A0)`` and ``solimp`` d = 1e-4
  that make its force k δ + c δ̇ (derivation in :mod:`crossdyn.models.mjcf`).  A0 (the tip body's
  ``body_invweight0``) is known only after compiling, so the adapter compiles twice.  crossdyn's applied law
  must then be off.  Friction (μ > 0): condim 3, elliptic cone; MuJoCo's friction rows are soft (K = 0,
  B = −solref[1]/d: viscous c·impratio inside the cone) and its cone projection couples normal and friction
  force while sliding — measured, not assumed (:mod:`crossdyn.native.contact`).
  ``contact_impedance`` (d), ``contact_mass_scaled=false`` (literal (−k, −c)) and ``contact_cone`` are
  switches for showing what they change; ``contact_solref``/``contact_solimp`` set the two geoms' values
  themselves, checked against MuJoCo's valid ranges (``mujoco@contact_solref=-5374,-14.6@contact_solimp=
  0.00021,0.00021,0.001,0.5,2``, the kind of string ``compare --calibrate-contact`` prints: ``compare --native``
  adds ``@native_contact=true``; without it they wait, and ``config()`` says so).

* **Native limits** (``native_limits=True``, ``mujoco@native_limits=true``): ``range`` and the direct
  ``solreflimit = (−k, −c)`` of the spec's limit law on each limited joint; ``limit_solref``/``limit_solimp`` set
  ``solreflimit``/``solimplimit`` themselves (one group for every limited joint or one per limited joint, checked as
  the contact's), the kind of string ``compare --calibrate-limits`` prints
  (``mujoco-rk4@native_limits=true@limit_solref=0.138,4.87,0.089,0.341@limit_solimp=…``).

``self.model`` and ``self.data`` are public (the stepping pair), e.g. for
``mujoco.rollout``.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import mujoco  # type: ignore[import-untyped,import-not-found,unused-ignore]
import numpy as np

from crossdyn.engines.base import Capabilities, Engine, EngineError
from crossdyn.models.inertia import engine_inertias
from crossdyn.models.mjcf import check_contact_solimp, check_contact_solref, to_mjcf
from crossdyn.models.spec import ArmSpec

_INTEGRATORS = {"euler": "Euler", "rk4": "RK4", "implicit": "implicit", "implicitfast": "implicitfast"}
_SCHEMES = {"Euler": "semi-implicit-euler", "RK4": "rk4", "implicit": "mujoco-implicit",
            "implicitfast": "mujoco-implicitfast"}


_log = logging.getLogger("crossdyn.engines.mujoco")


def _on_mujoco_warning(message: str) -> None:
    """MuJoCo's default handler appends warnings to MUJOCO_LOG.TXT in the working directory; crossdyn logs
    them instead (logger ``crossdyn.engines.mujoco``).  Instability itself is reported by the runner
    (non-finite state → ``diverged``) and per-model counts by :meth:`MuJoCoEngine.warnings`."""
    _log.info("mujoco: %s", message.strip())


mujoco.set_mju_user_warning(_on_mujoco_warning)


def _zaxis(quat) -> list[float]:
    """The z axis of a geom's frame (a plane's normal) from its quaternion."""
    mat = np.zeros(9)
    mujoco.mju_quat2Mat(mat, np.asarray(quat, dtype=float))
    return [float(v) for v in mat.reshape(3, 3)[:, 2]]


def _flag_names(flags: int, enum) -> list[str]:
    return [name for name, member in enum.__members__.items()
            if not name.endswith(("NDISABLE", "NENABLE")) and flags & int(member)]


@dataclass(frozen=True)
class MuJoCoOptions:
    """MuJoCo's knobs (``mujoco@key=value``; the module docstring says what each one does)."""

    eulerdamp: bool = False
    """MuJoCo's implicit joint damping under Euler (True: MuJoCo's default)."""
    autoreset: bool = False
    """MuJoCo's silent reset on a bad acceleration (True: MuJoCo's default)."""
    native_limits: bool = False
    """MuJoCo's own joint limits: ``range`` and the direct ``solreflimit = (−k, −c)`` of the spec's limit law."""
    native_contact: bool = False
    """MuJoCo's own contact between the tip sphere and the obstacle planes."""
    contact_impedance: float = 1e-4
    """The native contact's impedance d (``solimp``), in [1e-4, 0.9999]."""
    contact_mass_scaled: bool = True
    """solref = (−k A0, −c A0), A0 the tip body's ``body_invweight0`` (False: the literal (−k, −c))."""
    contact_cone: str = "elliptic"
    """The friction cone: ``elliptic`` or ``pyramidal``."""
    contact_solref: Any = None
    """The native contact's ``solref`` on the tip sphere and the planes, "TIMECONST,DAMPRATIO" (both > 0) or the
    direct "-STIFFNESS,-DAMPING" (what ``compare --calibrate-contact`` fits); None: (−k A0, −c A0)."""
    contact_solimp: Any = None
    """The native contact's ``solimp``, "DMIN,DMAX,WIDTH,MIDPOINT,POWER"; None: d = ``contact_impedance``."""
    limit_solref: Any = None
    """The native limits' ``solreflimit`` (needs ``native_limits=true``): "TC,DR" for every limited joint or
    "TC1,DR1,TC2,DR2,…" one pair per limited joint in joint order (standard form, timeconst ≥ 2 dt, or direct
    "-K,-C"; what ``compare --calibrate-limits`` fits); None: the direct (−k, −c) of the spec's law."""
    limit_solimp: Any = None
    """The native limits' ``solimplimit``: five numbers (DMIN,DMAX,WIDTH,MIDPOINT,POWER) for every limited joint or
    five per limited joint; None: MuJoCo's default (0.9, 0.95, 0.001, 0.5, 2)."""


class MuJoCoEngine(Engine):
    name = "mujoco"
    capabilities = Capabilities(native_limits=True, native_contact=True, native_friction=True, armature=True,
                                effort=True, tip_frame=True, step_applied=True, rollout=True, batch=True)
    Options = MuJoCoOptions

    def __init__(self, spec: ArmSpec, dt: float = 1e-3, integrator: str = "Euler",
                 options: MuJoCoOptions | None = None, **knobs):
        """``integrator`` (Euler, RK4, implicit, implicitfast: the registry name's), ``options`` (the defaults when
        None) with any keyword knob of :class:`MuJoCoOptions` replaced."""
        super().__init__(spec, dt)
        opt = self.options = self._options(options, knobs)
        contact_impedance, contact_cone = opt.contact_impedance, opt.contact_cone
        self.native_limits = bool(opt.native_limits)
        self.native_contact = bool(opt.native_contact)
        if self.native_contact and not spec.has_contact:
            raise EngineError(f"mujoco native_contact: arm {spec.name!r} has no [contact] and [[obstacles]]")
        if not 1e-4 <= float(contact_impedance) <= 0.9999:
            raise EngineError(f"mujoco contact_impedance: must be in [1e-4, 0.9999] (MuJoCo clamps d to it), "
                              f"got {contact_impedance!r}")
        if contact_cone not in ("elliptic", "pyramidal"):
            raise EngineError(f"mujoco contact_cone: must be elliptic or pyramidal, got {contact_cone!r}")
        self.contact_impedance = float(contact_impedance)
        self.contact_solref, self.contact_solimp = self._given_contact(opt, dt)
        self.limit_solref, self.limit_solimp = self._given_limits(opt, dt)
        self.contact_mass_scaled = bool(opt.contact_mass_scaled)
        self.contact_cone = contact_cone
        self.contact_invweight = 1.0
        self.contact_in_forward_dynamics = self.native_contact
        """forward_dynamics (mj_forward on the query data) includes the native contact's force."""
        key = str(integrator).lower()
        if key not in _INTEGRATORS:
            raise EngineError(f"mujoco integrator: must be one of {', '.join(_INTEGRATORS.values())}, "
                              f"got {integrator!r}")
        self.mujoco_integrator = _INTEGRATORS[key]
        self.integrator = _SCHEMES[self.mujoco_integrator]
        self.name = f"mujoco-{key}"
        self.eulerdamp = bool(opt.eulerdamp)
        self.autoreset = bool(opt.autoreset)
        def build():
            self.mjcf = to_mjcf(spec, timestep=self.dt, integrator=self.mujoco_integrator, eulerdamp=self.eulerdamp,
                                native_limits=self.native_limits, native_contact=self.native_contact,
                                contact_invweight=self.contact_invweight, contact_impedance=self.contact_impedance,
                                contact_cone=self.contact_cone, contact_solref=self.contact_solref,
                                contact_solimp=self.contact_solimp, limit_solref=self.limit_solref,
                                limit_solimp=self.limit_solimp)
            try:
                return mujoco.MjModel.from_xml_string(self.mjcf)
            except ValueError as e:
                raise EngineError(f"mujoco: could not build {spec.name!r}: {e}") from None

        self.model = build()
        if self.native_contact and self.contact_mass_scaled and self.contact_solref is None:
            # A0 = the tip body's body_invweight0 (MuJoCo's diagonal approximation of J M^-1 J^T for contacts),
            # known only once compiled; the file is written again with solref = (-k A0, -c A0)
            self.contact_invweight = float(self.model.body_invweight0[self.n, 0])
            self.model = build()
        m = self.model
        if not self.autoreset:
            m.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_AUTORESET)
        if m.nq != self.n or m.nv != self.n or m.nu != self.n:
            raise EngineError(f"mujoco: model has nq={m.nq}, nv={m.nv}, nu={m.nu}; expected {self.n} each")
        self.data = mujoco.MjData(m)
        self._query = mujoco.MjData(m)
        self._badctrl = self.data.warning[int(mujoco.mjtWarning.mjWARN_BADCTRL)]  # live view
        # views into the stepping data, made once (each attribute access builds a new numpy wrapper)
        self._qpos, self._qvel, self._ctrl = self.data.qpos, self.data.qvel, self.data.ctrl
        self._mj_step = mujoco.mj_step
        self._M = np.zeros((self.n, self.n))
        self._state_spec = mujoco.mjtState.mjSTATE_FULLPHYSICS
        self._nstate = mujoco.mj_stateSize(m, self._state_spec)
        # components of a state vector are stored in bit order: time, qpos, qvel, …
        self._state_offsets = (mujoco.mj_stateSize(m, mujoco.mjtState.mjSTATE_TIME),
                               mujoco.mj_stateSize(m, mujoco.mjtState.mjSTATE_TIME | mujoco.mjtState.mjSTATE_QPOS))
        self.reset(np.zeros(self.n), np.zeros(self.n))

    def _given_contact(self, opt: MuJoCoOptions, dt: float) -> tuple:
        """The options ``contact_solref``/``contact_solimp`` as floats (None when not given), checked: they need an
        arm with contact (without ``native_contact=true`` they wait for the native run, e.g. the one ``compare``
        adds: ``config()`` says so), MuJoCo's valid ranges (:func:`crossdyn.models.mjcf.check_contact_solref`), and
        do not combine with the knobs they replace (``contact_mass_scaled=false``, ``contact_impedance``)."""
        given = {k: getattr(opt, k) for k in ("contact_solref", "contact_solimp") if getattr(opt, k) is not None}
        for key, value in given.items():
            if not self.spec.has_contact:
                raise EngineError(f"mujoco {key}={value}: arm {self.spec.name!r} has no [contact] and [[obstacles]] "
                                  "(a setting of the native contact)")
        if "contact_solref" in given and not opt.contact_mass_scaled:
            raise EngineError(f"mujoco contact_solref={given['contact_solref']}: gives the solref itself; "
                              "contact_mass_scaled=false (the literal (-k, -c)) cannot be combined with it")
        if "contact_solimp" in given and opt.contact_impedance != MuJoCoOptions.contact_impedance:
            raise EngineError(f"mujoco contact_solimp={given['contact_solimp']}: gives the impedance itself; "
                              f"contact_impedance={opt.contact_impedance} cannot be combined with it")
        try:
            solref = None if opt.contact_solref is None else check_contact_solref(opt.contact_solref, float(dt))
            solimp = None if opt.contact_solimp is None else check_contact_solimp(opt.contact_solimp)
        except ValueError as e:
            raise EngineError(f"mujoco {e}") from None
        return solref, solimp

    def _given_limits(self, opt: MuJoCoOptions, dt: float) -> tuple:
        """The options ``limit_solref``/``limit_solimp`` as one tuple per limited joint (None when not given),
        checked by :meth:`crossdyn.models.mjcf.MjcfOptions.limit_settings`: ``native_limits=true`` on an arm with a
        limit law, the count (one group for every limited joint, or one per limited joint) and MuJoCo's ranges."""
        if opt.limit_solref is None and opt.limit_solimp is None:
            return None, None
        from crossdyn.models.mjcf import MjcfOptions, limited_joints

        try:
            settings = MjcfOptions(timestep=float(dt), native_limits=self.native_limits, limit_solref=opt.limit_solref,
                                   limit_solimp=opt.limit_solimp).limit_settings(self.spec)
        except ValueError as e:
            raise EngineError(f"mujoco {e}") from None
        joints = limited_joints(self.spec)
        solref = None if opt.limit_solref is None else tuple(settings[j][0] for j in joints)
        solimp = None if opt.limit_solimp is None else tuple(settings[j][1] for j in joints)
        return solref, solimp

    # ------------------------------------------------------------------ simulation
    def reset(self, q, qd) -> None:
        m, d = self.model, self.data
        mujoco.mj_resetData(m, d)
        d.qpos[:] = q
        d.qvel[:] = qd

    @property
    def time(self) -> float:
        return float(self.data.time)

    def step(self, tau) -> None:
        self._ctrl[:] = tau
        self._mj_step(self.model, self.data)
        if self._badctrl.number:
            raise EngineError(f"mujoco: control {self._ctrl.tolist()} is NaN, infinite or beyond 1e10; MuJoCo "
                              "replaced it by zero (mjWARN_BADCTRL) — the step did not apply the torque")

    def step_applied(self, tau, extra) -> None:
        """One step with the actuators given τ (clamped by their ``forcerange``, if any) and ``extra`` applied
        as a generalized force around them (``qfrc_applied``; the runner's limit and friction torques)."""
        self.data.qfrc_applied[:] = extra
        try:
            self.step(tau)
        finally:
            self.data.qfrc_applied[:] = 0.0

    def state(self):
        return self._qpos.copy(), self._qvel.copy()

    def rollout(self, tau: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Step through the whole open-loop torque sequence ``tau`` (K, n) in one ``mujoco.rollout`` call.

        Starts from the current state; returns the K states after each step (q, q̇ of shape (K, n)) and
        leaves the engine at the last one.  Bit-identical to K calls of :meth:`step` (tested).
        """
        from mujoco import rollout as _rollout

        m, d = self.model, self.data
        state0 = np.empty(self._nstate)
        mujoco.mj_getState(m, d, state0, self._state_spec)
        states, _ = _rollout.rollout(m, d, state0[None], np.asarray(tau, dtype=float)[None])
        states = states[0]
        mujoco.mj_setState(m, d, states[-1], self._state_spec)
        d.ctrl[:] = tau[-1]
        iq, iv = self._state_offsets
        return states[:, iq:iq + self.n].copy(), states[:, iv:iv + self.n].copy()

    def rollout_many(self, q0: np.ndarray, qd0: np.ndarray, tau: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """B open-loop runs in one ``mujoco.rollout`` call, on up to 2 threads.

        ``q0``, ``qd0``: (B, n) starts; ``tau``: (B, K, n).  Returns q, q̇ of shape (B, K, n) — the states
        after each step, bit-identical to B runs of :meth:`rollout`.  The engine's own state is untouched.
        """
        from mujoco import rollout as _rollout

        m = self.model
        B = len(q0)
        scratch = mujoco.MjData(m)
        init = np.empty((B, self._nstate))
        for b in range(B):
            mujoco.mj_resetData(m, scratch)
            scratch.qpos[:], scratch.qvel[:] = q0[b], qd0[b]
            mujoco.mj_getState(m, scratch, init[b], self._state_spec)
        datas = [scratch] + [mujoco.MjData(m) for _ in range(min(B, 2) - 1)]
        states, _ = _rollout.rollout(m, datas, init, np.asarray(tau, dtype=float))
        iq, iv = self._state_offsets
        return states[:, :, iq:iq + self.n].copy(), states[:, :, iv:iv + self.n].copy()

    def read_state_into(self, q_out: np.ndarray, qd_out: np.ndarray) -> None:
        """Write the current state into preallocated rows (the runner's fast path)."""
        q_out[:] = self._qpos
        qd_out[:] = self._qvel

    # ------------------------------------------------------------------ queries (separate MjData)
    def _set_query(self, q, qd=None, tau=None):
        d = self._query
        d.qpos[:] = q
        d.qvel[:] = 0.0 if qd is None else qd
        d.ctrl[:] = 0.0 if tau is None else tau
        d.qfrc_applied[:] = 0.0
        return d

    def inverse_dynamics(self, q, qd, qdd):
        d = self._set_query(q, qd)
        d.qacc[:] = qdd
        mujoco.mj_inverse(self.model, d)
        return d.qfrc_inverse.copy()

    def mass_matrix(self, q):
        d = self._set_query(q)
        mujoco.mj_fwdPosition(self.model, d)
        mujoco.mj_fullM(self.model, d, self._M)
        M = self._M.copy()
        return 0.5 * (M + M.T)

    def forward_dynamics(self, q, qd, tau):
        d = self._set_query(q, qd, tau)
        mujoco.mj_forward(self.model, d)
        return d.qacc.copy()

    def energy(self, q, qd):
        d = self._set_query(q, qd)
        mujoco.mj_fwdPosition(self.model, d)
        mujoco.mj_energyPos(self.model, d)
        mujoco.mj_energyVel(self.model, d)
        return float(d.energy[1]), float(d.energy[0])

    tip_source = ("MuJoCo site 'tip' on the query MjData at the state: mj_kinematics, mj_comPos, mj_comVel; "
                  "site_xpos, mj_objectVelocity (world frame), mj_jacSite")

    def tip_kinematics(self, q=None, qd=None):
        """The ``tip`` site's world position, linear velocity and translational Jacobian (x–y rows), by MuJoCo,
        at (q, q̇) or the stepping data's current state (copied into the query data, which it leaves as is)."""
        m, d = self.model, self._query
        sid = self.__dict__.get("_tip_site")
        if sid is None:
            sid = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_SITE, "tip")
            if sid < 0:
                raise EngineError("mujoco: the model has no 'tip' site (the arm has no [contact])")
            self._tip_site = sid
            self._tip_buf = (np.zeros(6), np.zeros((3, m.nv)), np.zeros((3, m.nv)))
        d.qpos[:] = self._qpos if q is None else q
        d.qvel[:] = self._qvel if q is None else (0.0 if qd is None else qd)
        mujoco.mj_kinematics(m, d)
        mujoco.mj_comPos(m, d)
        mujoco.mj_comVel(m, d)
        vel, jacp, jacr = self._tip_buf
        mujoco.mj_objectVelocity(m, d, mujoco.mjtObj.mjOBJ_SITE, sid, vel, 0)  # [angular, linear], world frame
        mujoco.mj_jacSite(m, d, jacp, jacr, sid)
        return d.site_xpos[sid, :2].copy(), vel[3:5].copy(), jacp[:2].copy()

    def warnings(self) -> dict:
        """MuJoCo warnings raised so far on the stepping data (name → count), e.g. ``mjWARN_BADQACC``."""
        out = {}
        for name, member in mujoco.mjtWarning.__members__.items():
            if name != "mjNWARNING" and self.data.warning[int(member)].number:
                out[name] = int(self.data.warning[int(member)].number)
        return out

    def stiffest_friction(self) -> str | None:
        """Set the dry friction's softness to the stiffest MuJoCo allows and say what was set.  MuJoCo's frictionloss
        constraint has reference a_ref = −b v with b = 2 / (d_max · timeconst) and impedance d; held below f_c it
        creeps at v = (1 − d) timeconst d_max a0 / (2 d) (a0: the unconstrained acceleration), least at
        timeconst = 2 dt (MuJoCo clamps lower values up to it) and d = 0.9999 (its maximum)."""
        model = self.model
        dt = float(model.opt.timestep)
        model.dof_solref[:] = (2 * dt, 1.0)
        model.dof_solimp[:, 0] = model.dof_solimp[:, 1] = 0.9999
        return f"solreffriction ({2 * dt:g}, 1), solimpfriction d = 0.9999"

    def set_contact(self, solref, solimp) -> None:
        """Set the native contact's solref/solimp on the tip sphere and every obstacle plane (MuJoCo mixes the
        two geoms' values; equal values make the contact's own) — for calibration."""
        m = self.model
        ids = [m.geom("tip_sphere").id] + [m.geom(f"obstacle{j}").id for j in range(1, len(self.spec.obstacles) + 1)]
        for g in ids:
            m.geom_solref[g] = solref
            m.geom_solimp[g] = solimp

    # ------------------------------------------------------------------ description
    def _contact_config(self) -> dict:
        """Every setting of the native contact, read back from the compiled model."""
        m, c = self.model, self._contact_spec()
        sphere = m.geom("tip_sphere").id
        planes = [m.geom(f"obstacle{j}").id for j in range(1, len(self.spec.obstacles) + 1)]
        return {
            "contacts": "native: MuJoCo's contact between the tip sphere and the obstacle planes only (sphere "
                        "contype 1 conaffinity 2, planes contype 2 conaffinity 1, links 0/0); crossdyn's applied "
                        "contact law off",
            "contact_law": f"k = {c.stiffness:g} N/m, c = {c.damping:g} N s/m, mu = {c.friction:g}, r = {c.radius:g} m",
            "contact_solref": [float(x) for x in m.geom_solref[sphere]],
            "contact_solimp": [float(x) for x in m.geom_solimp[sphere]],
            "contact_solref_form": ("given (contact_solref option)" if self.contact_solref is not None else
                                    "direct (-k A0, -c A0), A0 = body_invweight0 of the tip body = "
                                    f"{self.contact_invweight:.9g} 1/kg: force = k d + c d' to O(impedance)"
                                    if self.contact_mass_scaled else
                                    "direct literal (-k, -c) (contact_mass_scaled=false): force = (k d + c d' - "
                                    "imp a0) / (imp A + (1 - imp) A0), not N/m"),
            "contact_impedance": (self.contact_impedance if self.contact_solimp is None else
                                  "given (contact_solimp option)"),
            "contact_condim": int(m.geom_condim[sphere]),
            "contact_friction": [float(x) for x in m.geom_friction[sphere]],
            "contact_margin": float(m.geom_margin[sphere]), "contact_gap": float(m.geom_gap[sphere]),
            "contact_cone": self.contact_cone,
            "contact_friction_model": ("none (condim 1)" if c.friction == 0 else
                                       "soft: friction rows K = 0, B = -solref[1]/imp (viscous, c*impratio inside "
                                       "the cone); the cone projection couples normal and friction force while "
                                       "sliding"),
            "obstacle_planes": [{"pos": [float(v) for v in m.geom_pos[g]], "normal": _zaxis(m.geom_quat[g]),
                                 "solref": [float(x) for x in m.geom_solref[g]],
                                 "solimp": [float(x) for x in m.geom_solimp[g]]} for g in planes],
            "impratio": float(m.opt.impratio),
        }

    def config(self) -> dict:
        m = self.model
        o = m.opt
        _, subs = engine_inertias(self.spec)
        euler_damping = ("implicit (eulerdamp enabled)" if self.eulerdamp else "explicit (eulerdamp disabled)")
        damping_treatment = {"Euler": euler_damping, "RK4": "explicit (in qfrc_passive)",
                             "implicit": "implicit (implicit integrator)",
                             "implicitfast": "implicit (implicitfast integrator)"}[self.mujoco_integrator]
        return {
            "engine": "mujoco", "version": mujoco.__version__, "integrator": self.integrator,
            "mujoco_integrator": self.mujoco_integrator, "dt": float(o.timestep), "model_source": "generated MJCF",
            "eulerdamp": self.eulerdamp, "autoreset": self.autoreset,
            "disableflags": _flag_names(int(o.disableflags), mujoco.mjtDisableBit),
            "enableflags": _flag_names(int(o.enableflags), mujoco.mjtEnableBit),
            "gravity": [float(g) for g in o.gravity],
            "solver": {"solver": int(o.solver), "iterations": int(o.iterations), "tolerance": float(o.tolerance),
                       "ls_iterations": int(o.ls_iterations), "ls_tolerance": float(o.ls_tolerance),
                       "noslip_iterations": int(o.noslip_iterations), "cone": int(o.cone),
                       "jacobian": int(o.jacobian), "impratio": float(o.impratio)},
            "torque_input": "d.ctrl -> motor actuators (gear 1, no ctrl limits); qfrc_applied = 0",
            "bad_ctrl": "NaN/inf/>1e10 ctrl (which MuJoCo zeroes) raises EngineError in step()",
            "torque_sampling": "zero-order hold at step start",
            "joint_damping": [float(x) for x in m.dof_damping],
            "damping_treatment": damping_treatment,
            "joint_frictionloss": [float(x) for x in m.dof_frictionloss],
            "coulomb_friction_model": "MuJoCo frictionloss: soft dry-friction constraint, not f_c*sign(qd)",
            "armature": [float(x) for x in m.dof_armature],
            **({"native_limits": "MuJoCo joint limits: range and solreflimit = (-k, -c) (direct form) from the "
                                 "spec's limit law; crossdyn's applied law should then be off (limit_law=False)",
                "jnt_range": m.jnt_range.tolist(), "jnt_solref": m.jnt_solref.tolist(),
                "jnt_solimp": m.jnt_solimp.tolist(),
                "limit_solref_form": "given (limit_solref option)" if self.limit_solref is not None else
                                     "direct (-k, -c) of the spec's limit law",
                "limit_solimp_source": "given (limit_solimp option)" if self.limit_solimp is not None else
                                       "MuJoCo's default"}
               if self.native_limits else {}),
            "joint_limited": [bool(x) for x in m.jnt_limited],
            **(self._contact_config() if self.native_contact else
               {"contacts": "disabled (flag contact=disable, contype=conaffinity=0)",
                **({"contact_solref_solimp": f"given ({self.contact_solref}, {self.contact_solimp}): used by the "
                                             "native contact only (native_contact=true)"}
                   if (self.contact_solref, self.contact_solimp) != (None, None) else {})}),
            "masses": [float(x) for x in m.body_mass[1:]],
            "body_inertia": [[float(v) for v in row] for row in m.body_inertia[1:]],
            "com_offsets": [[float(v) for v in row] for row in m.body_ipos[1:]],
            "inertia_substitutions": [s.as_dict() for s in subs],
            "inverse_dynamics": "mj_inverse (qacc set first); qfrc_inverse includes damping*qd",
            "query_data": "separate MjData for queries",
        }
