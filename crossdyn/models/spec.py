"""Arm specifications: the one description every model and engine is built from.

An :class:`ArmSpec` is an immutable list of :class:`LinkSpec` plus a gravity
vector and a name.  It is validated when constructed; a bad value raises
:class:`SpecError` naming the link, the field and the value.

Conventions (see :mod:`crossdyn.conventions`): link i is attached at joint i
(its proximal end), rotates about +z, and extends ``length`` metres along its
own x axis; its centre of mass lies ``com`` metres from the joint along the
link; ``inertia`` is the moment of inertia about the centre of mass about z.
"""
from __future__ import annotations

import math
import numbers
import unicodedata
import warnings
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:  # numpy is imported lazily: `crossdyn arms` and `--help` stay fast
    import numpy as np

from crossdyn.conventions import DEFAULT_GRAVITY, MAX_LINKS
from crossdyn.io import InputError


class SpecError(InputError):
    """An arm specification (or a file describing one) is invalid.

    ``where`` is the location of the bad value (``"links[2].mass"``), ``value``
    the value found.
    """


class SpecWarning(UserWarning):
    """A spec is valid but physically unusual (e.g. centre of mass beyond the link end)."""


def _number(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise SpecError(f"{where}: must be a number, got {value!r} ({type(value).__name__})", where, value)
    x = float(value)
    if not math.isfinite(x):
        raise SpecError(f"{where}: must be finite, got {value!r}", where, value)
    return x


@dataclass(frozen=True)
class LinkSpec:
    """One rigid link and the joint at its proximal end.

    Attributes
    ----------
    length : float
        L, m, joint-to-joint distance (> 0).
    mass : float
        m, kg (> 0).
    com : float
        Lc, m, distance of the centre of mass from the proximal joint, along the link.
    inertia : float
        J, kg m², about the centre of mass, about z (≥ 0; 0 is a point mass).
    damping : float
        b, N m s/rad, viscous friction at the proximal joint (≥ 0).
    friction : float
        f_c, N m, Coulomb friction at the proximal joint (≥ 0).
    limits : (lower, upper) or None
        Joint limits in rad; informational (engines are built with limits off).
    armature : float
        I_a, kg m², reflected rotor inertia at the proximal joint (≥ 0; gear ratio² × rotor
        inertia): adds I_a to the diagonal entry M_ii of the mass matrix, i.e. the kinetic energy
        ½ I_a q̇_i² of a rotor spinning with the joint (the MuJoCo/Pinocchio ``armature`` model;
        the rotor's own gyroscopic coupling to the link's rotation is neglected).
    limit_stiffness, limit_damping : float
        k (N m/rad) and c (N m s/rad) of the compliant limit law (:mod:`crossdyn.analytic.laws.limit`), applied
        by the runner when k > 0 (needs ``limits``); 0: limits stay informational.
    effort : float or None
        N m, symmetric actuator effort limit of the proximal joint (> 0; None: unlimited): the commanded
        torque is saturated to [−effort, effort] before it is applied (:mod:`crossdyn.drive.runner`).
    """

    length: float
    mass: float
    com: float
    inertia: float
    damping: float = 0.0
    friction: float = 0.0
    limits: tuple[float, float] | None = None
    armature: float = 0.0
    effort: float | None = None
    limit_stiffness: float = 0.0
    limit_damping: float = 0.0

    def validate(self, where: str = "link") -> None:
        """Raise :class:`SpecError` naming ``where`` and the field if a value is invalid."""
        for name in ("length", "mass", "com", "inertia", "damping", "friction", "armature", "limit_stiffness",
                     "limit_damping"):
            object.__setattr__(self, name, _number(getattr(self, name), f"{where}.{name}"))
        if self.length <= 0:
            raise SpecError(f"{where}.length: must be > 0 m, got {self.length!r}", f"{where}.length", self.length)
        if self.mass <= 0:
            raise SpecError(f"{where}.mass: must be > 0 kg, got {self.mass!r}", f"{where}.mass", self.mass)
        if self.inertia < 0:
            raise SpecError(f"{where}.inertia: must be >= 0 kg m^2, got {self.inertia!r}", f"{where}.inertia", self.inertia)
        if self.damping < 0:
            raise SpecError(f"{where}.damping: must be >= 0 N m s/rad, got {self.damping!r}", f"{where}.damping", self.damping)
        if self.friction < 0:
            raise SpecError(f"{where}.friction: must be >= 0 N m, got {self.friction!r}", f"{where}.friction", self.friction)
        if self.armature < 0:
            raise SpecError(f"{where}.armature: must be >= 0 kg m^2, got {self.armature!r}", f"{where}.armature",
                            self.armature)
        for name, unit in (("limit_stiffness", "N m/rad"), ("limit_damping", "N m s/rad")):
            if getattr(self, name) < 0:
                raise SpecError(f"{where}.{name}: must be >= 0 {unit}, got {getattr(self, name)!r}", f"{where}.{name}",
                                getattr(self, name))
        if self.limit_stiffness > 0 and self.limits is None:
            raise SpecError(f"{where}.limit_stiffness: needs limits = [lower, upper] on this link, got "
                            f"{self.limit_stiffness!r} without limits", f"{where}.limit_stiffness", self.limit_stiffness)
        if self.limit_damping > 0 and not self.limit_stiffness > 0:
            raise SpecError(f"{where}.limit_damping: needs limit_stiffness > 0 on this link, got {self.limit_damping!r}",
                            f"{where}.limit_damping", self.limit_damping)
        if self.effort is not None:
            e = _number(self.effort, f"{where}.effort")
            if not e > 0:
                raise SpecError(f"{where}.effort: must be > 0 N m (a symmetric limit; omit it for none), got "
                                f"{self.effort!r}", f"{where}.effort", self.effort)
            object.__setattr__(self, "effort", e)
        if self.com < 0 or self.com > self.length:
            warnings.warn(
                f"{where}.com = {self.com!r} m lies outside the link [0, {self.length!r}] m; "
                "valid, but unusual for a physical link (check the value is measured from the proximal joint)",
                SpecWarning,
                stacklevel=4,
            )
        if self.limits is not None:
            lim = self.limits
            if not isinstance(lim, (tuple, list)) or len(lim) != 2:
                raise SpecError(f"{where}.limits: must be [lower, upper], got {lim!r}", f"{where}.limits", lim)
            lo, hi = (_number(v, f"{where}.limits") for v in lim)
            if not lo < hi:
                raise SpecError(f"{where}.limits: lower must be < upper, got {list(lim)!r}", f"{where}.limits", lim)
            object.__setattr__(self, "limits", (lo, hi))


@dataclass(frozen=True)
class ContactSpec:
    """The sphere at the arm's tip and its spring–damper contact law (the ``[contact]`` table).

    The sphere (radius r, massless, centred on the tip of the last link) touches every obstacle with the
    normal force F_n = max(0, k δ + c δ̇) while δ > 0 (δ the penetration, m; the damper acts only while
    penetrating and the force never pulls), plus Coulomb friction μ F_n against the tangential slip at the
    contact point (:mod:`crossdyn.analytic.laws.contact`).

    Attributes
    ----------
    radius : float
        r, m (> 0).
    stiffness : float
        k, N/m (> 0).
    damping : float
        c, N s/m (≥ 0).
    friction : float
        μ, Coulomb coefficient at the tip (≥ 0; 0 = frictionless).
    """

    radius: float = 0.02
    stiffness: float = 2.0e4
    damping: float = 50.0
    friction: float = 0.0

    def validate(self, where: str = "contact") -> None:
        for name in ("radius", "stiffness", "damping", "friction"):
            object.__setattr__(self, name, _number(getattr(self, name), f"{where}.{name}"))
        for name, unit, strict in (("radius", "m", True), ("stiffness", "N/m", True), ("damping", "N s/m", False),
                                   ("friction", "(a Coulomb coefficient)", False)):
            x = getattr(self, name)
            if (x <= 0) if strict else (x < 0):
                raise SpecError(f"{where}.{name}: must be {'>' if strict else '>='} 0 {unit}, got {x!r}",
                                f"{where}.{name}", x)


@dataclass(frozen=True)
class Obstacle:
    """A half-plane obstacle (an ``[[obstacles]]`` table): world points p with (p − point)·normal < 0 are inside.

    ``point`` (m) and ``normal`` (a unit vector pointing out of the obstacle, into free space) are 3-vectors
    in the world frame that must lie in the arm's plane (z components 0): the obstacle is a line in the x–y
    plane, a wall or a floor.  A normal within 1e-6 of unit length is accepted and normalised.
    """

    point: tuple[float, float, float]
    normal: tuple[float, float, float]

    def validate(self, where: str = "obstacles[1]") -> None:
        for name in ("point", "normal"):
            v = getattr(self, name)
            if isinstance(v, (str, bytes)) or not hasattr(v, "__len__") or len(v) != 3:
                raise SpecError(f"{where}.{name}: must be a 3-vector [x, y, z] in the arm's plane (z = 0), got {v!r}",
                                f"{where}.{name}", v)
            v = tuple(_number(x, f"{where}.{name}[{i}]") for i, x in enumerate(v, 1))
            if v[2] != 0.0:
                raise SpecError(f"{where}.{name}: must lie in the arm's x-y plane (z component 0: the obstacle is a "
                                f"line in the plane the arm moves in), got {list(v)!r}", f"{where}.{name}", list(v))
            object.__setattr__(self, name, v)
        length = math.hypot(self.normal[0], self.normal[1])
        if abs(length - 1.0) > 1e-6:
            raise SpecError(f"{where}.normal: must be a unit vector (pointing out of the obstacle), got "
                            f"{list(self.normal)!r} (length {length:.6g})", f"{where}.normal", list(self.normal))
        object.__setattr__(self, "normal", (self.normal[0] / length, self.normal[1] / length, 0.0))


class ArmParams(NamedTuple):
    """Numeric parameters of an arm as arrays, the form the analytic model consumes.

    Every field has shape (n,) — or (N, n) for a batch of N parameter sets —
    except ``gravity`` which is (2,) or (N, 2) (the in-plane components gx, gy).
    ``Ia`` (armature, kg m², added to the diagonal of M) may be None: no armature (the default,
    so ``ArmParams(L, m, Lc, J, b, fc, gravity)`` keeps working); see :func:`armature_of`.
    """

    L: np.ndarray
    m: np.ndarray
    Lc: np.ndarray
    J: np.ndarray
    b: np.ndarray
    fc: np.ndarray
    gravity: np.ndarray
    Ia: np.ndarray | None = None

    @property
    def n(self) -> int:
        return self.L.shape[-1]


def armature_of(p: ArmParams):
    """``p.Ia`` as an array, or None when the arm has no armature (None or all zeros).

    Derivations add it to M only when it is not None, so an arm without armature gets
    exactly the numbers it got before armature existed.
    """
    Ia = getattr(p, "Ia", None)
    if Ia is None:
        return None
    import numpy as np

    Ia = np.asarray(Ia, dtype=float)
    return Ia if np.any(Ia) else None


def _check_free_pose(spec: "ArmSpec") -> None:
    """Reject an obstacle layout that leaves the arm no valid start pose (:class:`SpecError` naming the obstacle).

    Rules (sufficient, cheap): (1) the base (the origin) lies inside obstacle k, (0 − a_k)·n_k < 0: every pose
    starts inside it; (2) none of the straight poses (q_1 = 0, 0.005, … < 2π, the other joints 0) has its tip
    sphere (radius r at p = Σ L (cos q_1, sin q_1)) clear of every obstacle, r − (p − a_k)·n_k ≤ 0 for all k:
    the sampled search finds no free pose, and the obstacle most often penetrated is named.  Joint limits are
    not part of this check (a start beyond them is refused when a run starts)."""
    # pure Python (no numpy): loading a spec stays cheap (`crossdyn arms`, `--help` import no numpy)
    assert spec.contact is not None
    for k, ob in enumerate(spec.obstacles, 1):
        inside = ob.point[0] * ob.normal[0] + ob.point[1] * ob.normal[1]  # (a − 0)·n > 0: the origin is inside
        if inside > 0.0:
            raise SpecError(f"obstacles[{k}]: the arm's base (0, 0) is {inside:.4g} m inside this obstacle "
                            f"(point {list(ob.point)}, normal {list(ob.normal)}): no pose of the arm is valid",
                            f"obstacles[{k}]", ob)
    reach, r = sum(link.length for link in spec.links), spec.contact.radius
    entered = [0] * len(spec.obstacles)
    for i in range(math.ceil(2 * math.pi / 0.005)):
        x, y = reach * math.cos(0.005 * i), reach * math.sin(0.005 * i)
        pen = [r - ((x - ob.point[0]) * ob.normal[0] + (y - ob.point[1]) * ob.normal[1]) for ob in spec.obstacles]
        if max(pen) <= 0.0:
            return
        entered[pen.index(max(pen))] += 1
    k = entered.index(max(entered)) + 1
    raise SpecError(f"obstacles[{k}]: no straight pose of the arm has its tip sphere clear of every obstacle "
                    f"(sampled every 0.005 rad of joint 1; obstacle {k} is the one most often entered): no "
                    "valid start pose", f"obstacles[{k}]", spec.obstacles[k - 1])


@dataclass(frozen=True)
class ArmSpec:
    """A planar serial arm: links from base to tip, gravity and a name.

    Immutable and validated at construction.  ``gravity`` is the world gravity
    vector in m/s² (default (0, −9.81, 0)).
    """

    links: tuple[LinkSpec, ...]
    gravity: tuple[float, float, float] = DEFAULT_GRAVITY
    name: str = "arm"
    notes: str = field(default="", compare=False)
    contact: ContactSpec | None = None
    obstacles: tuple[Obstacle, ...] = ()

    def __post_init__(self) -> None:
        links = self.links
        if not isinstance(links, (tuple, list)):
            raise SpecError(f"links: must be a list of links, got {links!r}", "links", links)
        if len(links) == 0:
            raise SpecError("links: an arm needs at least one link, got none", "links", [])
        if len(links) > MAX_LINKS:
            raise SpecError(
                f"links: crossdyn supports at most {MAX_LINKS} links, got {len(links)}", "links", len(links)
            )
        for i, link in enumerate(links):
            if not isinstance(link, LinkSpec):
                raise SpecError(f"links[{i + 1}]: must be a LinkSpec, got {link!r}", f"links[{i + 1}]", link)
            link.validate(f"link {i + 1}")
        object.__setattr__(self, "links", tuple(links))
        g = self.gravity
        if isinstance(g, (str, bytes)) or not hasattr(g, "__len__") or len(g) != 3:
            raise SpecError(f"gravity: must be a 3-vector [gx, gy, gz] in m/s^2, got {g!r}", "gravity", g)
        object.__setattr__(self, "gravity", tuple(_number(v, f"gravity[{i}]") for i, v in enumerate(g, 1)))
        if not isinstance(self.name, str) or not self.name.strip():
            raise SpecError(f"name: must be a non-empty string, got {self.name!r}", "name", self.name)
        bad = [c for c in self.name if unicodedata.category(c) in ("Cc", "Cs", "Co", "Cn")]
        if bad:  # control characters cannot be written into XML (URDF, MJCF) at all
            raise SpecError(f"name: must not contain control or unassigned characters, got {self.name!r} "
                            f"(found {bad[0]!r})", "name", self.name)
        if self.contact is not None:
            if not isinstance(self.contact, ContactSpec):
                raise SpecError(f"contact: must be a ContactSpec, got {self.contact!r}", "contact", self.contact)
            self.contact.validate("contact")
        obstacles = self.obstacles
        if not isinstance(obstacles, (tuple, list)):
            raise SpecError(f"obstacles: must be a list of obstacles, got {obstacles!r}", "obstacles", obstacles)
        for i, ob in enumerate(obstacles, 1):
            if not isinstance(ob, Obstacle):
                raise SpecError(f"obstacles[{i}]: must be an Obstacle, got {ob!r}", f"obstacles[{i}]", ob)
            ob.validate(f"obstacles[{i}]")
        object.__setattr__(self, "obstacles", tuple(obstacles))
        if obstacles and self.contact is None:
            raise SpecError("obstacles: need a [contact] table (the tip sphere's radius, stiffness, damping and "
                            "friction) to touch them", "contact", None)
        if obstacles:
            _check_free_pose(self)

    # ------------------------------------------------------------------ views
    @property
    def n(self) -> int:
        """Number of links (= joints = degrees of freedom)."""
        return len(self.links)

    @property
    def dof(self) -> int:
        return self.n

    def params(self) -> ArmParams:
        """The parameters as float arrays (see :class:`ArmParams`)."""
        import numpy as np

        arr = lambda attr: np.array([getattr(link, attr) for link in self.links], dtype=float)  # noqa: E731
        return ArmParams(
            L=arr("length"), m=arr("mass"), Lc=arr("com"), J=arr("inertia"),
            b=arr("damping"), fc=arr("friction"), gravity=np.array(self.gravity[:2], dtype=float),
            Ia=arr("armature") if self.has_armature else None,
        )

    @property
    def has_friction(self) -> bool:
        return any(link.friction > 0 for link in self.links)

    @property
    def has_armature(self) -> bool:
        return any(link.armature > 0 for link in self.links)

    @property
    def has_limit_law(self) -> bool:
        """Some joint has limits and a compliant limit law (limit_stiffness > 0): the runner applies it."""
        return any(link.limit_stiffness > 0 for link in self.links)

    @property
    def has_contact(self) -> bool:
        """The arm has a tip sphere and at least one obstacle: the contact law applies (:mod:`crossdyn.analytic.laws.contact`)."""
        return self.contact is not None and len(self.obstacles) > 0

    @property
    def has_effort(self) -> bool:
        return any(link.effort is not None for link in self.links)

    def effort_limits(self):
        """Per-joint effort limits in N m (inf where a joint has none), or None when no joint has one."""
        if not self.has_effort:
            return None
        import numpy as np

        return np.array([math.inf if link.effort is None else link.effort for link in self.links])

    @property
    def has_damping(self) -> bool:
        return any(link.damping > 0 for link in self.links)

    def energy_scale(self) -> float:
        """Σ mᵢ ``|g|`` rᵢ, rᵢ = reach from the base to link i's centre of mass (J).

        A scale for potential energy that does not depend on where U = 0; used to
        make energy drift relative.  Falls back to Σ mᵢ rᵢ² (1 rad/s)² with no gravity.
        """
        g = math.hypot(self.gravity[0], self.gravity[1])
        reach, total, kin = 0.0, 0.0, 0.0
        for link in self.links:
            r = reach + abs(link.com)
            total += link.mass * g * r
            kin += link.mass * r * r + link.inertia
            reach += link.length
        return total if total > 0 else kin

    def torque_scale(self) -> float:
        """Σ mᵢ ``|g|`` rᵢ with ``|g|`` ≥ 9.81: a typical joint torque (N m), for relative tolerances."""
        g = max(math.hypot(self.gravity[0], self.gravity[1]), 9.81)
        reach, total = 0.0, 0.0
        for link in self.links:
            total += link.mass * g * (reach + abs(link.com))
            reach += link.length
        return total

    def reach(self) -> float:
        return sum(link.length for link in self.links)

    def with_links(self, **changes: Any) -> "ArmSpec":
        """A copy with the given fields changed on every link (e.g. ``damping=0``)."""
        return replace(self, links=tuple(replace(link, **changes) for link in self.links))

    def with_link(self, index: int, **changes: Any) -> "ArmSpec":
        """A copy with fields of link ``index`` (0-based) changed."""
        links = list(self.links)
        links[index] = replace(links[index], **changes)
        return replace(self, links=tuple(links))

    def to_dict(self) -> dict:
        """Plain-data form (the TOML layout)."""
        out: dict = {"name": self.name, "gravity": list(self.gravity), "links": []}
        for link in self.links:
            d: dict = {"length": link.length, "mass": link.mass, "com": link.com, "inertia": link.inertia,
                 "damping": link.damping, "friction": link.friction}
            if link.limits is not None:
                d["limits"] = list(link.limits)
            if link.armature:  # written only when set: specs without it keep their exact form
                d["armature"] = link.armature
            if link.effort is not None:
                d["effort"] = link.effort
            if link.limit_stiffness:
                d["limit_stiffness"] = link.limit_stiffness
            if link.limit_damping:
                d["limit_damping"] = link.limit_damping
            out["links"].append(d)
        if self.contact is not None:
            c = self.contact
            out["contact"] = {"radius": c.radius, "stiffness": c.stiffness, "damping": c.damping,
                              "friction": c.friction}
        if self.obstacles:
            out["obstacles"] = [{"point": list(o.point), "normal": list(o.normal)} for o in self.obstacles]
        return out


def params_from_arrays(L, m, Lc, J, gravity=(0.0, -9.81), b=None, fc=None, Ia=None) -> ArmParams:
    """Build :class:`ArmParams` from arrays (possibly batched, shape (N, n)).

    Used for batches of parameter sets, which an :class:`ArmSpec` cannot hold.
    """
    import numpy as np

    L = np.asarray(L, dtype=float)
    zeros = np.zeros_like(L)
    return ArmParams(
        L=L, m=np.asarray(m, float), Lc=np.asarray(Lc, float), J=np.asarray(J, float),
        b=zeros if b is None else np.asarray(b, float), fc=zeros if fc is None else np.asarray(fc, float),
        gravity=np.asarray(gravity, float)[..., :2], Ia=None if Ia is None else np.asarray(Ia, float),
    )


def arm_spec(spec: ArmSpec, p: ArmParams, i: int) -> ArmSpec:
    """Arm ``i`` of the batch as an ArmSpec (for the per-arm engines and for reports)."""
    links = tuple(LinkSpec(float(p.L[i, k]), float(p.m[i, k]), float(p.Lc[i, k]), float(p.J[i, k]),
                           float(p.b[i, k]), float(p.fc[i, k])) for k in range(spec.n))
    return ArmSpec(links, spec.gravity, f"{spec.name}-batch-{i}")
