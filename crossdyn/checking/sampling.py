"""Where the user's equations are evaluated: random states and random parameter sets.

States: q uniform in [−π, π], q̇ in [−2, 2] rad/s.  Parameter sets: the arm's own, then random valid ones that
draw L in [0.4, 1.6] m and m in [0.5, 2.5] kg and keep each link's kind — a uniform rod keeps Lc = L/2,
J = mL²/12; a point mass keeps Lc = L, J = 0 (so equations written for that kind of link are not flagged); a
general link draws Lc inside the link and J ≥ 0 (J stays 0 if it is 0).  Gravity (direction and magnitude)
stays the arm's.  Random sets exist because errors hide behind special values: with L1 = 1 m, L1² = L1.
"""
from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Collection
from dataclasses import dataclass
from typing import Generic, TypeVar

import numpy as np

from crossdyn.models import ArmSpec
from crossdyn.equations.python_file import ParamSet, own_params


SetT = TypeVar("SetT")


@dataclass(frozen=True)
class Sample(Generic[SetT]):
    """The random states (``Q``, ``QD``: (N, n)) and the parameter sets (the arm's own first: a planar arm's
    :class:`ParamSet`, a spatial arm's dict of values) with the link kinds that every random set of a planar arm
    keeps (none for a spatial arm)."""

    Q: np.ndarray
    QD: np.ndarray
    sets: list[SetT]
    kinds: list[str] = dataclasses.field(default_factory=list)

    @property
    def own(self) -> SetT:
        """The arm's own parameters (set 0)."""
        return self.sets[0]

    def only_own(self) -> "Sample[SetT]":
        """The same states at the arm's own parameters alone."""
        return dataclasses.replace(self, sets=[self.own])


def draw_sample(spec: ArmSpec, states: int, random_params: int, rng: np.random.Generator) -> Sample[ParamSet]:
    """``states`` random states, then ``random_params`` random parameter sets besides the arm's own, from ``rng``
    in that order (q, then q̇, then the sets)."""
    n = spec.n
    Q = rng.uniform(-np.pi, np.pi, (states, n))
    QD = rng.uniform(-2.0, 2.0, (states, n))
    sets = [own_params(spec)] + random_param_sets(spec, random_params, rng)
    return Sample(Q, QD, sets, link_kinds(spec))


def link_kinds(spec: ArmSpec) -> list[str]:
    """``"rod"`` (Lc = L/2, J = mL²/12), ``"point"`` (Lc = L, J = 0) or ``"general"`` per link."""
    kinds = []
    for link in spec.links:
        if math.isclose(link.com, link.length, rel_tol=1e-9) and link.inertia == 0:
            kinds.append("point")
        elif math.isclose(link.com, link.length / 2, rel_tol=1e-9) and \
                math.isclose(link.inertia, link.mass * link.length**2 / 12, rel_tol=1e-9):
            kinds.append("rod")
        else:
            kinds.append("general")
    return kinds


def random_param_sets(spec: ArmSpec, count: int, rng: np.random.Generator) -> list[ParamSet]:
    """``count`` random valid parameter sets that keep each link's kind and the arm's gravity."""
    kinds = link_kinds(spec)
    base = own_params(spec)
    out = []
    for k in range(1, count + 1):
        L, m, Lc, J = draw_links(rng, kinds, base.J)
        out.append(ParamSet(k, L, m, Lc, J, base.b, base.fc, spec.gravity, base.armature))  # armature kept
    return out


def draw_links(rng: np.random.Generator, kinds: list[str], own_J,
               free: Collection[tuple[str, int]] = frozenset()) -> tuple[np.ndarray, ...]:
    """Random L in [0.4, 1.6] m and m in [0.5, 2.5] kg per link, with Lc and J following each link's kind (a rod:
    L/2, mL²/12; a point mass: L, 0; a general link: Lc inside the link, J ≥ 0, kept 0 where the arm's is 0);
    then, for (name, link) in ``free``, Lc or J drawn freely whatever the kind."""
    n = len(kinds)
    L = rng.uniform(0.4, 1.6, n)
    m = rng.uniform(0.5, 2.5, n)
    Lc, J = np.empty(n), np.empty(n)
    for i, kind in enumerate(kinds):
        if kind == "rod":
            Lc[i], J[i] = L[i] / 2, m[i] * L[i] ** 2 / 12
        elif kind == "point":
            Lc[i], J[i] = L[i], 0.0
        else:
            Lc[i] = L[i] * rng.uniform(0.15, 0.85)
            J[i] = 0.0 if own_J[i] == 0 else m[i] * L[i] ** 2 * rng.uniform(0.01, 0.12)
        if ("Lc", i) in free:
            Lc[i] = L[i] * rng.uniform(0.15, 0.85)
        if ("J", i) in free:
            J[i] = m[i] * L[i] ** 2 * rng.uniform(0.01, 0.12)
    return L, m, Lc, J


def free_parameters(kinds: list[str], own: ParamSet) -> list[tuple[str, int]]:
    """The independent parameters per link: L, m always; Lc and J for general links (J if non-zero)."""
    out = []
    for i, kind in enumerate(kinds):
        out += [("L", i), ("m", i)]
        if kind == "general":
            out.append(("Lc", i))
            if own.J[i] != 0:
                out.append(("J", i))
    return out


def perturbed(ps: ParamSet, kinds: list[str], name: str, i: int, factor: float) -> ParamSet:
    """``ps`` with parameter ``name`` of link i scaled by ``factor``; a rod's or point's Lc and J follow."""
    L, m, Lc, J = ps.L.copy(), ps.m.copy(), ps.Lc.copy(), ps.J.copy()
    {"L": L, "m": m, "Lc": Lc, "J": J}[name][i] *= factor
    if kinds[i] == "rod":
        Lc[i], J[i] = L[i] / 2, m[i] * L[i] ** 2 / 12
    elif kinds[i] == "point":
        Lc[i], J[i] = L[i], 0.0
    return ps.with_values(L=L, m=m, Lc=Lc, J=J)


def special_values(own: ParamSet) -> list[tuple[set[str], str]]:
    """Parameter values of the arm that can hide errors (a 1, or two equal values), with the parameters involved."""
    out = []
    n = len(own.L)
    for i in range(n):
        if own.L[i] == 1.0:
            out.append(({f"L{i + 1}"}, f"L{i + 1} = 1 m, so L{i + 1}^2 = L{i + 1}"))
        if own.m[i] == 1.0:
            out.append(({f"m{i + 1}"}, f"m{i + 1} = 1 kg"))
    for name in ("L", "m"):
        arr = getattr(own, name)
        for i, j in itertools.combinations(range(n), 2):
            if arr[i] == arr[j]:
                out.append(({f"{name}{i + 1}", f"{name}{j + 1}"}, f"{name}{i + 1} = {name}{j + 1}"))
    return out
