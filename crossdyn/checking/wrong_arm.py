"""The wrong-arm search: when most entries are wrong, is the file right for another arm with as many links?

"your file matches planar2r-pointmass, not planar2r" — equations derived for point masses checked against
rods (or the other way round) are wrong almost everywhere, and one sentence says why.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from typing import Any

from crossdyn.checking.sampling import link_kinds
from crossdyn.models import ArmSpec
from crossdyn.models.user_equations import UserFileError

QUICK_RANDOM_PARAMS = 5
"""Random parameter sets of each candidate's quick check."""


def candidates(spec: ArmSpec) -> Iterator[tuple[ArmSpec, str | None]]:
    """(arm, None) for the named presets and ``planar<n>r``, then (this arm made of point masses, "point") and
    (this arm made of uniform rods, "rod"), each made when it is reached."""
    from crossdyn.models.presets import PRESETS, planarNr

    for arm in [f() for f in PRESETS.values()] + [planarNr(spec.n)]:
        yield arm, None
    yield dataclasses.replace(spec, links=tuple(dataclasses.replace(link, com=link.length, inertia=0.0)
                                                for link in spec.links)), "point"
    yield dataclasses.replace(spec, links=tuple(dataclasses.replace(
        link, com=link.length / 2, inertia=link.mass * link.length**2 / 12) for link in spec.links)), "rod"


def matching_arm(spec: ArmSpec, passes: Callable[[ArmSpec], bool], states: int) -> dict[str, Any] | None:
    """The first arm with as many links as ``spec`` but other link kinds whose check the file passes.

    Candidates: the named presets and ``planar<n>r`` with the same number of links (with this arm's gravity
    if theirs differs: only the kinds of link are compared), then this arm with every link a point mass
    (Lc = L, J = 0) and with every link a uniform rod (Lc = L/2, J = mL²/12) — one candidate per combination
    of link kinds, each checked quickly by ``passes`` (at ``states`` states: no energy check,
    :data:`QUICK_RANDOM_PARAMS` random parameter sets, no diagnosis); a file that cannot run for a candidate
    (:class:`UserFileError`) does not match it.
    """
    seen = {tuple(link_kinds(spec))}
    for cand, uniform in candidates(spec):
        ck = tuple(link_kinds(cand))
        if cand.n != spec.n or (uniform is None and cand.name == spec.name) or ck in seen:
            continue
        seen.add(ck)
        same_g = tuple(cand.gravity) == tuple(spec.gravity)
        cand = cand if same_g else dataclasses.replace(cand, gravity=spec.gravity)
        try:
            matches = passes(cand)
        except UserFileError:
            continue                      # the file cannot run for this arm: not a match
        if matches:
            return _match(spec, cand, uniform, same_g, f"at {states} states x {QUICK_RANDOM_PARAMS + 1} parameter sets")
    return None


def _match(spec: ArmSpec, cand: ArmSpec, uniform: str | None, same_g: bool, how: str) -> dict[str, Any]:
    """The explanation that the file matches ``cand`` (a preset, or ``spec`` made of one kind of link)."""
    theirs = ", ".join(sorted(set(link_kinds(spec))))
    if uniform is None:
        gnote = "" if same_g else ", with this arm's gravity"
        text = (f"your file matches {cand.name}, not {spec.name}: every entry agrees with {cand.name} "
                f"({', '.join(sorted(set(link_kinds(cand))))} links{gnote}) {how}; check it against that arm, or "
                f"derive it again for {spec.name}'s links ({theirs})")
        name = cand.name
    else:
        what = ("point masses at the link ends (Lc = L, J = 0)" if uniform == "point" else
                "uniform rods (Lc = L/2, J = mL^2/12)")
        text = (f"your file is written for {what}, not {spec.name}'s links ({theirs}): every entry agrees "
                f"with {spec.name} made of {what.split(' (')[0]} {how}")
        name = f"{spec.name} with {uniform} links"
    return {"text": text, "quantities": ["M", "Cqd", "C", "G"], "arm": name}
