"""The parameters the user's functions get: ``p`` (:class:`UserParams`) and the sets they are checked at
(:class:`ParamSet`), as objects for Python and as rows for Octave (:func:`param_rows`)."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import cast

import numpy as np

from crossdyn.equations.protocol import fmt_vec
from crossdyn.models.spec import ArmParams, ArmSpec, params_from_arrays

_SEQUENCES = {"L": "L", "l": "L", "m": "m", "Lc": "Lc", "lc": "Lc", "J": "J", "I": "J", "b": "b", "fc": "fc",
              "armature": "armature", "Ia": "armature"}


class _ReadOnlyParams:
    """What every ``p`` handed to a user's function shares: read-only, and ``p["m1"]`` as ``p.m1``."""

    def __setattr__(self, name, value):
        raise AttributeError("p is read-only")

    def __getitem__(self, key):
        try:
            return self.__dict__[key]
        except KeyError:
            return self.__getattr__(key)  # type: ignore[attr-defined]


class UserParams(_ReadOnlyParams):
    """The ``p`` passed to the user's functions (read-only).

    0-based sequences (read-only NumPy arrays): ``p.L`` (= ``p.l``), ``p.m``,
    ``p.Lc`` (= ``p.lc``), ``p.J`` (= ``p.I``), ``p.b``, ``p.fc``, ``p.armature`` (= ``p.Ia``).
    1-based scalars: ``p.L1`` (= ``p.l1``), ``p.m1``, ``p.Lc1`` (= ``p.lc1``),
    ``p.J1`` (= ``p.I1``), ``p.b1``, ``p.fc1``, ``p.armature1`` (= ``p.Ia1``), … up to the number of links.
    ``armature`` is the reflected rotor inertia I_a (kg m², 0 unless the spec sets it): it belongs on
    the diagonal of M (M_ii += I_ai).
    Gravity: ``p.g`` = in-plane magnitude |(gx, gy)|, ``p.gx``, ``p.gy``,
    ``p.gravity`` = (gx, gy, gz).  ``p.n`` = number of links.  ``p["m1"]`` works too.
    """

    def __init__(self, L, m, Lc, J, b, fc, gravity, armature=None):
        n = len(L)
        d = self.__dict__
        arrays = {}
        armature = np.zeros(n) if armature is None else armature
        for key, value in (("L", L), ("m", m), ("Lc", Lc), ("J", J), ("b", b), ("fc", fc), ("armature", armature)):
            a = np.array(value, dtype=float)
            a.setflags(write=False)
            arrays[key] = a
        for alias, key in _SEQUENCES.items():
            d[alias] = arrays[key]
            for i in range(n):
                d[f"{alias}{i + 1}"] = float(arrays[key][i])
        g = tuple(float(v) for v in gravity) + (0.0,) * (3 - len(gravity))
        d["gravity"], d["gx"], d["gy"] = g, g[0], g[1]
        d["g"] = math.hypot(g[0], g[1])
        d["n"] = n

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        n = self.__dict__.get("n", 0)
        base = name.rstrip("0123456789")
        if base in _SEQUENCES and base != name:
            raise AttributeError(f"p.{name}: this arm has {n} links (p.{base}1 … p.{base}{n})")
        raise AttributeError(
            f"p has no parameter {name!r}; available: sequences p.m, p.L (p.l), p.Lc (p.lc), p.J (p.I), p.b, "
            f"p.fc, p.armature (p.Ia) (0-based), scalars p.m1 … p.m{n}, p.L1, p.Lc1, p.J1, p.Ia1, … (1-based), "
            "p.g, p.gx, p.gy, p.n")


    def __repr__(self) -> str:
        d = self.__dict__
        return (f"p(n={d['n']}, L={list(d['L'])}, m={list(d['m'])}, Lc={list(d['Lc'])}, J={list(d['J'])}, "
                f"g={d['g']:g})")


@dataclass(frozen=True, eq=False, repr=False)
class ParamSet:
    """One set of arm parameters, as crossdyn's :class:`ArmParams` (``arm``) and as the user's ``p`` (``user``).

    Built as ``ParamSet(index, L, m, Lc, J, b, fc, gravity, armature=None)``: the sequences become float arrays,
    ``armature`` zeros when None.  ``index`` 0 is the arm's own set, k > 0 random set k, < 0 a probe set.
    """

    index: int
    L: np.ndarray
    m: np.ndarray
    Lc: np.ndarray
    J: np.ndarray
    b: np.ndarray
    fc: np.ndarray
    gravity: tuple
    armature: np.ndarray = cast(np.ndarray, None)  # None → zeros in __post_init__: always an array after it
    arm: ArmParams = field(init=False)
    user: UserParams = field(init=False)

    def __post_init__(self) -> None:
        put = object.__setattr__
        for key in ("L", "m", "Lc", "J", "b", "fc"):
            put(self, key, np.array(getattr(self, key), float))
        put(self, "armature", np.zeros(len(self.L)) if self.armature is None else np.array(self.armature, float))
        put(self, "gravity", tuple(float(v) for v in self.gravity))
        Ia = self.armature if np.any(self.armature) else None
        put(self, "arm", params_from_arrays(self.L, self.m, self.Lc, self.J, gravity=self.gravity[:2], b=self.b,
                                            fc=self.fc, Ia=Ia))
        put(self, "user", UserParams(self.L, self.m, self.Lc, self.J, self.b, self.fc, self.gravity, self.armature))

    @property
    def label(self) -> str:
        if self.index < 0:
            return "a probe parameter set (testing whether your functions read p)"
        return "the arm's own parameters" if self.index == 0 else f"random parameter set {self.index}"

    def with_values(self, **changes) -> "ParamSet":
        vals: dict = {k: getattr(self, k).copy() for k in ("L", "m", "Lc", "J", "b", "fc", "armature")}
        vals.update(changes)
        return ParamSet(self.index, **vals, gravity=self.gravity)

    def to_dict(self) -> dict:
        out = {"index": self.index, "label": self.label, "L": self.L.tolist(), "m": self.m.tolist(),
               "Lc": self.Lc.tolist(), "J": self.J.tolist()}
        if np.any(self.armature):
            out["armature"] = self.armature.tolist()
        return out

    def describe(self) -> str:
        text = f"L = {fmt_vec(self.L)} m, m = {fmt_vec(self.m)} kg, Lc = {fmt_vec(self.Lc)} m, J = {fmt_vec(self.J)} kg m^2"
        if np.any(self.armature):
            text += f", armature = {fmt_vec(self.armature)} kg m^2"
        return text


def own_params(spec: ArmSpec) -> ParamSet:
    """The arm's own parameter set (index 0)."""
    p = spec.params()
    armature = p.Ia if p.Ia is not None else np.zeros(len(p.L))
    return ParamSet(0, p.L, p.m, p.Lc, p.J, p.b, p.fc, spec.gravity, armature)


def param_rows(sets: list) -> np.ndarray:
    """(S, 7n + 3) rows [L, m, Lc, J, b, fc, Ia, gx, gy, gz] of parameter sets (:class:`ParamSet`), for Octave
    (Ia: the reflected rotor inertia, ``p.armature`` / ``p.Ia1`` … in the user's functions)."""
    return np.stack([np.concatenate([ps.L, ps.m, ps.Lc, ps.J, ps.b, ps.fc, ps.armature,
                                     (tuple(ps.gravity) + (0.0,) * 3)[:3]]) for ps in sets])


class NamedParams(_ReadOnlyParams):
    """The ``p`` of a spatial arm (issue 27): one read-only scalar per parameter name (``p.m2``, ``p.cz2``,
    ``p.Ixx2``, ``p.L1``, ``p.d1``, ``p.g``, …, exactly the names of the arm's symbolic model), ``p["m2"]`` too,
    and ``p.n`` (number of joints).  Built from a layout (the names in order) and one row of numbers."""

    def __init__(self, layout, row, n: int):
        d = self.__dict__
        d["_layout"] = tuple(str(k) for k in layout)
        for k, v in zip(d["_layout"], row, strict=True):
            d[k] = float(v)
        d["n"] = int(n)

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise AttributeError(f"p has no parameter {name!r}; this arm's parameters are "
                             f"{', '.join('p.' + k for k in self.__dict__['_layout'])} and p.n")


    def __repr__(self) -> str:
        return "p(" + ", ".join(f"{k}={self.__dict__[k]:g}" for k in self.__dict__["_layout"]) + ")"
