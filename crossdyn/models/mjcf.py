"""MJCF (MuJoCo XML) text generated from an :class:`~crossdyn.models.spec.ArmSpec`.

Nested bodies ``link1 … linkN`` with hinge joints ``joint1 … jointN`` about +z
and explicit ``<inertial>`` elements; the compiler is told ``angle="radian"``,
``inertiafromgeom="false"`` and never to balance or bound inertia, so the file
carries the spec's physics exactly (point masses: see
:mod:`crossdyn.models.inertia`).  Contacts are disabled (geoms are visual only,
``contype = conaffinity = 0``), ``armature`` (reflected rotor inertia, added by MuJoCo
to the diagonal of M) and ``frictionloss``/``damping`` come from the spec.  One ``motor`` actuator per joint, gear 1, no control
limits, so ``ctrl`` is τ in N m; a spec effort limit becomes the motor's ``forcerange`` (MuJoCo clamps
the actuator force to it).  The energy flag is on.  An arm with contact gets a ``tip`` site at
the end of the last link (the centre of its contact sphere).

**Native contact** (``native_contact=True``, arms with contact only; off by default, so the file is unchanged
otherwise): a ``tip_sphere`` geom (radius r, massless) at the tip and one ``plane`` geom per obstacle in the
worldbody (through the obstacle's point, its z axis along the obstacle's outward normal: MuJoCo's plane is the
half-space below it), contact enabled only between the sphere and the planes (sphere ``contype=1
conaffinity=2``, planes ``contype=2 conaffinity=1``, links 0/0), ``margin = gap = 0``, ``condim`` 1 when μ = 0,
else 3 with ``friction = (μ, 0, 0)`` and the elliptic cone.  Both geoms carry the same ``solref``/``solimp``
(MuJoCo mixes the two geoms' values), so the contact's own.  Why those values (:func:`contact_solref`): MuJoCo's
contact force on one row is f = (a_ref − a0)/(A + R), a_ref = −B v − K d·pos, K = −solref[0]/dmax²,
B = −solref[1]/dmax, R = (1 − d)/d · A0 (A0 = ``body_invweight0`` of the tip's body, MuJoCo's diagonal
approximation of A = J M⁻¹ Jᵀ), d the impedance from ``solimp``.  With d = dmin = dmax that is
f = (−solref[0] δ − solref[1] δ̇ − d a0)/(d A + (1 − d) A0): the impedance scales the force and the
free acceleration a0 leaks in with weight d.  At MuJoCo's smallest impedance d = mjMINIMP = 1e-4 and
solref = (−k A0, −c A0) this is f = k δ + c δ̇ to O(d) (relative d (A − A0)/A0, absolute d a0/A0), and
MuJoCo's f ≥ 0 clips it like the law.  The literal (−k, −c) would give (k δ + c δ̇ − d a0)/(d A + (1−d) A0),
N/m scaled by an arm- and pose-dependent mass (mujoco #732, #1165).

``eulerdamp``: with the Euler integrator MuJoCo by default integrates joint
damping implicitly; crossdyn disables that by default (``eulerdamp=False``) so
that Euler is plain semi-implicit Euler like PyBullet and the analytic model.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any
from xml.sax.saxutils import quoteattr

from crossdyn.models.inertia import engine_inertias
from crossdyn.models.spec import ArmSpec

INTEGRATORS = ("Euler", "RK4", "implicit", "implicitfast")
CONTACT_IMPEDANCE = 1e-4
"""d of the native contact's ``solimp`` (dmin = dmax): MuJoCo's smallest (mjMINIMP), see the module docstring."""


def contact_solref(stiffness: float, damping: float, invweight: float, impedance: float = CONTACT_IMPEDANCE):
    """(solref, solimp) of the native contact that gives f = k δ + c δ̇ (module docstring): the direct form
    (−k A0, −c A0) with A0 = ``invweight`` (the tip body's ``body_invweight0``, 1/kg) and d = dmin = dmax =
    ``impedance``.  ``invweight = 1`` gives the literal (−k, −c)."""
    d = float(impedance)
    return (-float(stiffness) * invweight, -float(damping) * invweight), (d, d, 0.001, 0.5, 2.0)


def _typed(raw) -> str:
    """A value as the user typed it after ``key=``: "A,B" for a sequence."""
    return ",".join(map(str, raw)) if isinstance(raw, (list, tuple)) else str(raw)


def _numbers(raw, count: int, name: str, what: str) -> tuple[float, ...]:
    """``raw`` ("A,B,..." as on the command line, or a sequence) as ``count`` finite floats; ValueError naming
    ``name`` and the value."""
    parts = raw.split(",") if isinstance(raw, str) else (list(raw) if isinstance(raw, (list, tuple)) else [raw])
    try:
        values = tuple(float(v) for v in parts)
    except (TypeError, ValueError):
        values = ()
    if len(values) != count or not all(math.isfinite(v) for v in values):
        raise ValueError(f"{name}={_typed(raw)}: must be {count} comma-separated finite numbers ({what})")
    return values


def check_contact_solref(raw, timestep: float, name: str = "contact_solref") -> tuple[float, float]:
    """The native contact's ``solref`` given by the user, checked: the standard form (timeconst ≥ 2 timestep —
    MuJoCo raises a smaller one to 2 timestep (``refsafe``) — and dampratio > 0) or the direct form (−stiffness < 0,
    −damping ≤ 0).  Mixed signs (which MuJoCo accepts and reads as neither) are refused: ValueError naming ``name``
    and the value."""
    a, b = _numbers(raw, 2, name, "TIMECONST,DAMPRATIO both > 0, or the direct -STIFFNESS,-DAMPING both <= 0")
    if a > 0 and b > 0:
        if a < 2 * timestep:
            raise ValueError(f"{name}={_typed(raw)}: timeconst {a!r} s is below 2 timestep = {2 * timestep!r} s, "
                             "which MuJoCo silently raises it to")
    elif not (a < 0 and b <= 0):
        raise ValueError(f"{name}={_typed(raw)}: must be TIMECONST,DAMPRATIO (both > 0) or the direct "
                         "-STIFFNESS,-DAMPING (first < 0, second <= 0)")
    return a, b


def check_contact_solimp(raw, name: str = "contact_solimp") -> tuple[float, float, float, float, float]:
    """The native contact's ``solimp`` (dmin, dmax, width, midpoint, power) given by the user, checked against the
    ranges MuJoCo silently clamps to: dmin, dmax in [1e-4, 0.9999], width > 0, midpoint in (0, 1), power ≥ 1;
    ValueError naming ``name`` and the value."""
    d0, d1, width, mid, power = _numbers(raw, 5, name, "DMIN,DMAX,WIDTH,MIDPOINT,POWER")
    if not (1e-4 <= d0 <= 0.9999 and 1e-4 <= d1 <= 0.9999 and width > 0 and 0 < mid < 1 and power >= 1):
        raise ValueError(f"{name}={_typed(raw)}: needs dmin and dmax in [1e-4, 0.9999], width > 0, midpoint in "
                         "(0, 1) and power >= 1 (MuJoCo clamps other values silently)")
    return d0, d1, width, mid, power


def _flat(raw) -> list:
    """The numbers of ``raw`` ("A,B,..." as typed, or a sequence, nested per joint or flat) as one list."""
    if isinstance(raw, str):
        return raw.split(",")
    if isinstance(raw, (list, tuple)):
        return [v for r in raw for v in _flat(r)]
    return [raw]


def _per_joint(raw, joints: int, per: int, name: str, what: str) -> list[tuple[float, ...]]:
    """``raw`` as ``joints`` groups of ``per`` finite numbers: ``per`` numbers (every limited joint) or ``per`` per
    limited joint, in joint order; ValueError naming ``name`` and the value."""
    try:
        values = [float(v) for v in _flat(raw)]
    except (TypeError, ValueError):
        values = []
    if joints < 1 or len(values) not in (per, per * joints) or not all(math.isfinite(v) for v in values):
        raise ValueError(f"{name}={_typed(raw)}: must be {per} comma-separated finite numbers (every limited joint) "
                         f"or {per} per limited joint, {per * joints} for this arm's {joints} ({what})")
    if len(values) == per:
        values = values * joints
    return [tuple(values[i:i + per]) for i in range(0, per * joints, per)]


def _joint_checked(check, groups: list, raw, name: str) -> tuple:
    """Each joint's group through ``check`` (a contact check), its ValueError naming the whole value and the
    joint (the j-th limited one)."""
    out = []
    for j, group in enumerate(groups, start=1):
        try:
            out.append(check(group))
        except ValueError as e:
            raise ValueError(f"{name}={_typed(raw)}: limited joint {j}: {str(e).split(': ', 1)[1]}") from None
    return tuple(out)


def check_limit_solref(raw, joints: int, timestep: float, name: str = "limit_solref") -> tuple:
    """MuJoCo's ``solreflimit`` of each of the ``joints`` limited joints given by the user (the MuJoCo limit
    calibration's values): ``TC,DR`` for every limited joint or ``TC1,DR1,TC2,DR2,…`` one pair per limited joint
    in joint order, each pair checked as :func:`check_contact_solref` checks the contact's (standard form with
    timeconst ≥ 2 timestep, or direct −STIFFNESS,−DAMPING).  Returns one (a, b) per limited joint; ValueError naming
    ``name``, the value and the joint."""
    groups = _per_joint(raw, joints, 2, name, "TIMECONST,DAMPRATIO or -STIFFNESS,-DAMPING")
    return _joint_checked(lambda g: check_contact_solref(g, timestep, name), groups, raw, name)


def check_limit_solimp(raw, joints: int, name: str = "limit_solimp") -> tuple:
    """MuJoCo's ``solimplimit`` of each of the ``joints`` limited joints: five numbers (DMIN,DMAX,WIDTH,MIDPOINT,
    POWER) for every limited joint or five per limited joint in joint order, each checked as
    :func:`check_contact_solimp` checks the contact's.  Returns one 5-tuple per limited joint."""
    groups = _per_joint(raw, joints, 5, name, "DMIN,DMAX,WIDTH,MIDPOINT,POWER")
    return _joint_checked(lambda g: check_contact_solimp(g, name), groups, raw, name)


def limited_joints(spec: ArmSpec) -> list[int]:
    """Indices (0-based) of the joints with a limit law, the ones whose native limit ``limit_solref``/
    ``limit_solimp`` set, in joint order."""
    return [j for j, link in enumerate(spec.links) if link.limit_stiffness > 0]


def _f(x: float) -> str:
    return repr(float(x))


def _armature(a: float) -> str:
    return _f(a) if a else "0"


def _quat(com: float) -> str:
    """MuJoCo's compiler treats an inertial frame within 1e-6 m of the body frame, with the identity
    orientation, as the body frame itself (``body_sameframe``): a centre of mass at 0 < Lc < 1e-6 m would
    silently move onto the joint.  A half turn about z keeps the frames distinct and changes nothing, the
    inertia being isotropic."""
    return ' quat="0 0 0 1"' if 0 < abs(com) < 1e-5 else ""


def _limit(link, native_limits: bool, solref=None, solimp=None) -> str:
    """``limited="false"``, or with ``native_limits`` and a limit law MuJoCo's own limit: ``range`` and the
    direct (negative) ``solreflimit = (−k, −c)`` form of the law's stiffness and damping, or the given
    ``solref`` (and ``solimp``: ``solimplimit``, else MuJoCo's default) of this joint."""
    if not (native_limits and link.limit_stiffness > 0):
        return 'limited="false"'
    lo, hi = link.limits
    solref = (-link.limit_stiffness, -link.limit_damping) if solref is None else solref
    imp = "" if solimp is None else f' solimplimit="{" ".join(map(_f, solimp))}"'
    return f'limited="true" range="{_f(lo)} {_f(hi)}" solreflimit="{" ".join(map(_f, solref))}"{imp}'


@dataclass(frozen=True)
class MjcfOptions:
    """What :func:`to_mjcf` writes besides the arm (every field a keyword of :func:`to_mjcf` too).

    ``integrator`` one of :data:`INTEGRATORS`; ``eulerdamp`` MuJoCo's implicit joint damping under Euler (off:
    plain semi-implicit Euler); ``radius`` of the visual capsules; ``native_limits``: MuJoCo's own joint limits for
    links with a limit law (:func:`_limit`); ``native_contact``: MuJoCo's own contact between the tip sphere and
    the obstacles, with :func:`contact_solref` of ``contact_invweight`` (the tip body's ``body_invweight0``, which
    only a compiled model knows: :class:`crossdyn.engines.mujoco.planar.MuJoCoEngine` compiles once to read it)
    and ``contact_impedance``; ``contact_cone`` elliptic or pyramidal; ``contact_solref``/``contact_solimp``
    (:func:`check_contact_solref`, :func:`check_contact_solimp`), when given, written instead (e.g. calibrated ones);
    ``limit_solref``/``limit_solimp`` (:func:`check_limit_solref`, :func:`check_limit_solimp`; with
    ``native_limits``) the limited joints' ``solreflimit``/``solimplimit`` instead of (−k, −c) and MuJoCo's default.
    """

    timestep: float = 0.001
    integrator: str = "Euler"
    eulerdamp: bool = False
    radius: float = 0.02
    native_limits: bool = False
    native_contact: bool = False
    contact_invweight: float = 1.0
    contact_impedance: float = CONTACT_IMPEDANCE
    contact_cone: str = "elliptic"
    contact_solref: tuple[float, float] | None = None
    contact_solimp: tuple[float, float, float, float, float] | None = None
    limit_solref: Any = None
    limit_solimp: Any = None

    def check(self, spec: ArmSpec) -> None:
        """ValueError naming the option that cannot be written for ``spec``."""
        if self.integrator not in INTEGRATORS:
            raise ValueError(f"integrator: must be one of {', '.join(INTEGRATORS)}, got {self.integrator!r}")
        if not self.timestep > 0:
            raise ValueError(f"timestep: must be > 0 s, got {self.timestep!r}")
        if self.native_contact and not spec.has_contact:
            raise ValueError(f"native_contact: arm {spec.name!r} has no [contact] and [[obstacles]]")
        if self.contact_cone not in ("elliptic", "pyramidal"):
            raise ValueError(f"contact_cone: must be elliptic or pyramidal, got {self.contact_cone!r}")
        if self.contact_solref is not None:
            check_contact_solref(self.contact_solref, self.timestep)
        if self.contact_solimp is not None:
            check_contact_solimp(self.contact_solimp)
        self.limit_settings(spec)

    def limit_settings(self, spec: ArmSpec) -> list[tuple]:
        """(solref, solimp) of each joint of ``spec`` for :func:`_limit`: the checked ``limit_solref``/
        ``limit_solimp`` on the limited joints, None where not given; ValueError when given without
        ``native_limits`` on an arm with a limit law."""
        joints = limited_joints(spec)
        given = [(k, v) for k, v in (("limit_solref", self.limit_solref), ("limit_solimp", self.limit_solimp))
                 if v is not None]
        if given and not (self.native_limits and joints):
            key, value = given[0]
            raise ValueError(f"{key}={_typed(value)}: needs native_limits=true on an arm with a limit law "
                             f"(limit_stiffness > 0); arm {spec.name!r}")
        solref = (None,) * len(joints) if self.limit_solref is None else \
            check_limit_solref(self.limit_solref, len(joints), self.timestep)
        solimp = (None,) * len(joints) if self.limit_solimp is None else \
            check_limit_solimp(self.limit_solimp, len(joints))
        out: list[tuple] = [(None, None)] * spec.n
        for j, r, i in zip(joints, solref, solimp, strict=True):
            out[j] = (r, i)
        return out


def _contact_attrs(spec: ArmSpec, o: MjcfOptions) -> str:
    """The native contact's geom attributes (condim, friction, margin, gap, solref, solimp), "" without it."""
    if not o.native_contact or spec.contact is None:
        return ""
    c = spec.contact
    solref, solimp = contact_solref(c.stiffness, c.damping, o.contact_invweight, o.contact_impedance)
    if o.contact_solref is not None:  # checked by MjcfOptions.check; the given values, as floats
        solref = check_contact_solref(o.contact_solref, o.timestep)
    if o.contact_solimp is not None:
        solimp = check_contact_solimp(o.contact_solimp)
    friction = f' condim="3" friction="{_f(c.friction)} 0 0"' if c.friction > 0 else ' condim="1"'
    return (f'{friction} margin="0" gap="0" solref="{" ".join(map(_f, solref))}" '
            f'solimp="{" ".join(map(_f, solimp))}"')


def _header(spec: ArmSpec, o: MjcfOptions) -> list[str]:
    g = " ".join(_f(v) for v in spec.gravity)
    cone = f' cone="{o.contact_cone}"' if o.native_contact else ""
    return [
        f"<mujoco model={quoteattr(spec.name)}>",
        "  <!-- generated by crossdyn from an arm spec (the name is the model's name attribute); SI units, joint axes +z -->",
        '  <compiler angle="radian" inertiafromgeom="false" balanceinertia="false" boundmass="0" boundinertia="0"/>',
        f'  <option timestep="{_f(o.timestep)}" gravity="{g}" integrator="{o.integrator}"{cone}>',
        f'    <flag contact="{"enable" if o.native_contact else "disable"}" energy="enable" eulerdamp="{"enable" if o.eulerdamp else "disable"}"/>',
        "  </option>",
        "  <worldbody>",
    ]


def _bodies(spec: ArmSpec, o: MjcfOptions, contact_attrs: str) -> list[str]:
    """The nested link bodies (joint, inertial, visual capsule; the tip site and sphere on the last)."""
    inertias, _ = engine_inertias(spec)
    settings = o.limit_settings(spec)
    out: list[str] = []
    indent, offset = "    ", 0.0
    for i, (link, J) in enumerate(zip(spec.links, inertias, strict=True), start=1):
        out += [
            f'{indent}<body name="link{i}" pos="{_f(offset)} 0 0">',
            f'{indent}  <joint name="joint{i}" type="hinge" axis="0 0 1" {_limit(link, o.native_limits, *settings[i - 1])} armature="{_armature(link.armature)}" '
            f'damping="{_f(link.damping)}" frictionloss="{_f(link.friction)}"/>',
            f'{indent}  <inertial pos="{_f(link.com)} 0 0"{_quat(link.com)} mass="{_f(link.mass)}" '
            f'diaginertia="{_f(J)} {_f(J)} {_f(J)}"/>',
            f'{indent}  <geom type="capsule" fromto="0 0 0 {_f(link.length)} 0 0" size="{_f(o.radius)}" '
            'contype="0" conaffinity="0" group="1"/>',
        ]
        if i == spec.n and spec.has_contact:  # the tip: the centre of the contact sphere (crossdyn.analytic.laws.contact)
            out.append(f'{indent}  <site name="tip" pos="{_f(link.length)} 0 0" size="{_f(o.radius)}"/>')
            if o.native_contact and spec.contact is not None:
                out.append(f'{indent}  <geom name="tip_sphere" type="sphere" pos="{_f(link.length)} 0 0" '
                           f'size="{_f(spec.contact.radius)}" mass="0" contype="1" conaffinity="2"{contact_attrs} '
                           'group="2"/>')
        indent += "  "
        offset = link.length
    for _ in range(spec.n):
        indent = indent[:-2]
        out.append(f"{indent}</body>")
    return out


def to_mjcf(spec: ArmSpec, options: MjcfOptions | None = None, **overrides) -> str:
    """Return the MJCF document for ``spec``: ``options`` (:class:`MjcfOptions`) or its fields as keywords
    (``to_mjcf(spec, timestep=1e-3, integrator="RK4")``)."""
    if options is not None and not isinstance(options, MjcfOptions):
        raise TypeError(f"to_mjcf: options must be an MjcfOptions, got {options!r} (timestep=... as a keyword)")
    o = replace(options or MjcfOptions(), **overrides)
    o.check(spec)
    contact_attrs = _contact_attrs(spec, o)
    out = _header(spec, o)
    if o.native_contact:  # the obstacles: planes through the point, z axis along the outward normal
        for j, ob in enumerate(spec.obstacles, start=1):
            out.append(f'    <geom name="obstacle{j}" type="plane" pos="{_f(ob.point[0])} {_f(ob.point[1])} 0" '
                       f'zaxis="{_f(ob.normal[0])} {_f(ob.normal[1])} 0" size="0 0 1" contype="2" conaffinity="1"'
                       f'{contact_attrs} group="2"/>')
    out += _bodies(spec, o, contact_attrs)
    out.append("  </worldbody>")
    out.append("  <actuator>")
    for i, link in enumerate(spec.links, start=1):
        force = "" if link.effort is None else \
            f' forcelimited="true" forcerange="{_f(-link.effort)} {_f(link.effort)}"'  # the effort limit, N m
        out.append(f'    <motor name="tau{i}" joint="joint{i}" gear="1" ctrllimited="false"{force}/>')
    out += ["  </actuator>", "</mujoco>"]
    return "\n".join(out) + "\n"
