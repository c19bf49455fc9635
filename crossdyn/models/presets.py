"""Preset arms: ``planar2r``, ``planar3r``, ``planar2r-pointmass``, ``planar3r-general``, ``planar3r-geared``, ``planar2r-limits``, ``planar3r-friction``, ``planar2r-floor``, ``planar3r-wall``,
``planarNr``.

Uniform rods have Lc = L/2 and J = mL²/12; a point mass sits at the link's end
(Lc = L, J = 0); the general 3R has arbitrary Lc and J (the textbook a1…a6 form).
"""
from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal, overload

from crossdyn.models.spec import ArmSpec, ContactSpec, LinkSpec, Obstacle, SpecError

if TYPE_CHECKING:
    from crossdyn.models.spatial_spec import SpatialArmSpec


def rod(length: float, mass: float, damping: float = 0.0, friction: float = 0.0) -> LinkSpec:
    """A uniform slender rod: Lc = L/2, J = m L²/12."""
    return LinkSpec(length, mass, length / 2, mass * length**2 / 12, damping, friction)


def point_mass(length: float, mass: float) -> LinkSpec:
    """A massless link with its mass concentrated at its distal end: Lc = L, J = 0."""
    return LinkSpec(length, mass, length, 0.0)


def planar2r() -> ArmSpec:
    return ArmSpec((rod(1.0, 1.0), rod(0.8, 0.8)), name="planar2r",
                   notes="2R, uniform rods L = (1, 0.8) m, m = (1, 0.8) kg")


def planar3r() -> ArmSpec:
    return ArmSpec((rod(1.0, 1.0), rod(0.8, 0.8), rod(0.6, 0.5)), name="planar3r",
                   notes="3R, uniform rods L = (1, 0.8, 0.6) m, m = (1, 0.8, 0.5) kg")


def planar2r_pointmass() -> ArmSpec:
    return ArmSpec((point_mass(1.0, 1.0), point_mass(0.8, 0.8)), name="planar2r-pointmass",
                   notes="2R, point masses at the link ends, L = (1, 0.8) m, m = (1, 0.8) kg")


def planar3r_general() -> ArmSpec:
    links = (
        LinkSpec(1.0, 1.2, 0.45, 0.11),
        LinkSpec(0.8, 0.9, 0.35, 0.06),
        LinkSpec(0.6, 0.5, 0.25, 0.02),
    )
    return ArmSpec(links, name="planar3r-general", notes="3R with arbitrary centres of mass and inertias")


GEARED_ARMATURE = (0.05, 0.03, 0.01)
"""kg m²: reflected rotor inertias of ``planar3r-geared`` (gear ratio² × rotor inertia, e.g. 100² × 5e-6 kg m²
at the shoulder): comparable to the links' own inertia about their joints, as on a geared robot."""


GEARED_EFFORT = (2.0, 0.8, 0.16)
"""N m: effort limits of ``planar3r-geared``'s motors (the default profile, peaks 2.67, 1.09, 0.215 N m, saturates them)."""


def planar3r_geared() -> ArmSpec:
    """planar3r with geared motors: rotor armature and an effort limit on every joint."""
    links = tuple(replace(link, armature=a, effort=e) for link, a, e in zip(planar3r().links, GEARED_ARMATURE, GEARED_EFFORT, strict=False))
    return ArmSpec(links, name="planar3r-geared",
                   notes="planar3r with rotor armature (0.05, 0.03, 0.01) kg m^2 (reflected motor inertia) and "
                         "effort limits (2, 0.8, 0.16) N m (the default profile saturates them)")


def planar2r_limits() -> ArmSpec:
    """planar2r with joint limits its default profile reaches (about the hanging pose q = (−π/2, 0)), and the
    compliant limit law k = 50 N m/rad, c = 0.5 N m s/rad on both joints."""
    arm = planar2r()
    links = (replace(arm.links[0], limits=(-1.65, -1.40), limit_stiffness=50.0, limit_damping=0.5),
             replace(arm.links[1], limits=(-0.10, 0.12), limit_stiffness=50.0, limit_damping=0.5))
    return ArmSpec(links, name="planar2r-limits",
                   notes="planar2r with limits (-1.65, -1.40), (-0.10, 0.12) rad and a compliant limit law")


FRICTION_FC = (1.5, 0.6, 0.15)
"""N m: planar3r-friction's Coulomb levels (with damping 0.05 N m s/rad): its default profile makes every joint
stick and slip (applied mode, v_s = 0.037 rad/s at dt = 1 ms: |qd| < v_s 40 %, 60 %, 82 % of the time)."""


def planar3r_friction() -> ArmSpec:
    """planar3r with Coulomb friction f_c = (1.5, 0.6, 0.15) N m and damping 0.05 N m s/rad on every joint."""
    links = tuple(replace(link, friction=f, damping=0.05) for link, f in zip(planar3r().links, FRICTION_FC, strict=False))
    return ArmSpec(links, name="planar3r-friction",
                   notes="planar3r with Coulomb friction (1.5, 0.6, 0.15) N m and damping 0.05 N m s/rad (joints "
                         "stick and slip under the default profile)")


def planar2r_floor() -> ArmSpec:
    """planar2r above a floor at y = −1.5 m (the hanging arm reaches −1.8 m: it comes to rest on the floor),
    tip sphere r = 0.02 m, k = 2e4 N/m, c = 50 N s/m, frictionless."""
    return ArmSpec(planar2r().links, name="planar2r-floor", contact=ContactSpec(0.02, 2.0e4, 50.0, 0.0),
                   obstacles=(Obstacle((0.0, -1.5, 0.0), (0.0, 1.0, 0.0)),),
                   notes="planar2r with a floor at y = -1.5 m; tip sphere r = 0.02 m, k = 2e4 N/m, c = 50 N s/m")


def planar3r_wall() -> ArmSpec:
    """planar3r beside a wall at x = 1.6 m facing −x (the arm reaches 2.4 m), tip sphere r = 0.02 m,
    k = 2e4 N/m, c = 50 N s/m, tip friction μ = 0.3."""
    return ArmSpec(planar3r().links, name="planar3r-wall", contact=ContactSpec(0.02, 2.0e4, 50.0, 0.3),
                   obstacles=(Obstacle((1.6, 0.0, 0.0), (-1.0, 0.0, 0.0)),),
                   notes="planar3r with a wall at x = 1.6 m; tip sphere r = 0.02 m, k = 2e4 N/m, c = 50 N s/m, mu = 0.3")


def planarNr(n: int) -> ArmSpec:
    """n uniform rods, lengths 1.0 → 0.6 m and masses 1.0 → 0.5 kg from base to tip."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise SpecError(f"planarNr: n must be an integer >= 1, got {n!r}", "n", n)
    span = max(n - 1, 1)
    links = tuple(rod(1.0 - 0.4 * i / span, 1.0 - 0.5 * i / span) for i in range(n))
    return ArmSpec(links, name=f"planar{n}r", notes=f"{n}R, uniform rods")


PRESETS = {
    "planar2r": planar2r,
    "planar3r": planar3r,
    "planar2r-pointmass": planar2r_pointmass,
    "planar3r-general": planar3r_general,
    "planar3r-geared": planar3r_geared,
    "planar2r-limits": planar2r_limits,
    "planar3r-friction": planar3r_friction,
    "planar2r-floor": planar2r_floor,
    "planar3r-wall": planar3r_wall,
}
"""Named presets; ``planar<N>r`` (e.g. ``planar5r``) is also accepted for any N ≥ 1."""

_NR = re.compile(r"^planar(\d+)r$")


def preset_names() -> list[str]:
    return [*PRESETS, "planar<N>r"]


def spatial_preset_names() -> list[str]:
    from crossdyn.models.spatial_presets import SPATIAL_PRESETS

    return list(SPATIAL_PRESETS)


@overload
def get_preset(name: str, spatial: Literal[False] = False) -> ArmSpec: ...


@overload
def get_preset(name: str, spatial: Literal[True]) -> ArmSpec | SpatialArmSpec: ...


def get_preset(name: str, spatial: bool = False) -> ArmSpec | SpatialArmSpec:
    """The preset ``name``: planar (:data:`PRESETS`, ``planar<N>r``) or, with ``spatial=True``, spatial
    (:data:`crossdyn.models.spatial_presets.SPATIAL_PRESETS`; refused with exit 2 otherwise)."""
    if name in PRESETS:
        return PRESETS[name]()
    from crossdyn.models.spatial_presets import SPATIAL_PRESETS

    if name in SPATIAL_PRESETS:
        arm = SPATIAL_PRESETS[name]()
        if not spatial:
            from crossdyn.models.spec_io import spatial_refused

            raise spatial_refused(name, f"preset {name}")
        return arm
    match = _NR.match(name)
    if match:
        from crossdyn.conventions import MAX_LINKS

        n = int(match.group(1))
        if not 1 <= n <= MAX_LINKS:
            raise SpecError(f"arm {name!r}: planar<N>r needs 1 <= N <= {MAX_LINKS} (crossdyn supports at most "
                            f"{MAX_LINKS} links per arm), got N = {n}", "arm", name)
        return planarNr(n)
    from crossdyn.errors import did_you_mean

    known = [*preset_names(), *SPATIAL_PRESETS]
    raise SpecError(f"unknown arm {name!r}{did_you_mean(name, known)}; presets are: {', '.join(preset_names())}, "
                    f"and the spatial {', '.join(SPATIAL_PRESETS)}; or a path to a .toml spec, or a robot file "
                    "(.urdf, .xml MJCF) where the command reads one (compare, audit, identify)",
                    "arm", name)


@overload
def load_arm(arm: str | Path | ArmSpec, spatial: Literal[False] = False) -> ArmSpec: ...


@overload
def load_arm(arm: str | Path | ArmSpec | SpatialArmSpec, spatial: Literal[True]) -> ArmSpec | SpatialArmSpec: ...


def load_arm(arm, spatial: bool = False):
    """Resolve ARM as given on a command line: a preset name, a TOML path, or a spec.  Spatial arms (presets or
    ``[arm] kind = "spatial"`` files) only with ``spatial=True``: the commands that take them ask for them; the
    others exit 2 naming the arm."""
    from crossdyn.models.spatial_spec import SpatialArmSpec

    if isinstance(arm, ArmSpec):
        return arm
    if isinstance(arm, SpatialArmSpec):
        if not spatial:
            from crossdyn.models.spec_io import spatial_refused

            raise spatial_refused(arm.name, arm.source or "spec")
        return arm
    text = str(arm)
    if text.endswith(".toml") or Path(text).is_file():
        from crossdyn.models.spec_io import load_spec

        return load_spec(text, spatial=True) if spatial else load_spec(text)
    return get_preset(text, spatial=True) if spatial else get_preset(text)
