"""Inertia as the engines receive it, and the substitutions that makes necessary.

Planar dynamics about +z joints depend only on each link's Izz (angular velocity
is always along z), so every generated model uses the isotropic tensor
diag(J, J, J) about the centre of mass: it satisfies MuJoCo's triangle
inequality and changes nothing in the plane.

MuJoCo rejects a moving body whose inertia is not strictly positive, so a point
mass (J = 0) — or any J below :func:`inertia_floor` — is replaced in *every*
generated file (URDF and MJCF alike) by that floor, the smallest value that loads
everywhere, scaled to the link.  The substitution is returned so reports can
state it; its effect on M is at most the floor itself (≈1e-14 m L²).
"""
from __future__ import annotations

from dataclasses import dataclass

from crossdyn.models.spec import ArmSpec, LinkSpec

RELATIVE_FLOOR = 1e-14
ABSOLUTE_FLOOR = 2e-15  # MuJoCo requires > mjMINVAL = 1e-15


def inertia_floor(link: LinkSpec) -> float:
    """Smallest Izz written to an engine file for this link: max(1e-14 m L², 2e-15) kg m²."""
    return max(RELATIVE_FLOOR * link.mass * link.length**2, ABSOLUTE_FLOOR)


@dataclass(frozen=True)
class InertiaSubstitution:
    link: int  # 1-based
    spec_inertia: float
    engine_inertia: float
    reason: str

    def as_dict(self) -> dict:
        return {"link": self.link, "spec_inertia": self.spec_inertia, "engine_inertia": self.engine_inertia,
                "reason": self.reason}


def engine_inertias(spec: ArmSpec) -> tuple[list[float], list[InertiaSubstitution]]:
    """Izz per link as written to URDF/MJCF, and the substitutions made."""
    values, subs = [], []
    for i, link in enumerate(spec.links, start=1):
        floor = inertia_floor(link)
        if link.inertia < floor:
            values.append(floor)
            subs.append(InertiaSubstitution(i, link.inertia, floor,
                                            "point mass: engines need a strictly positive inertia"))
        else:
            values.append(link.inertia)
    return values, subs
