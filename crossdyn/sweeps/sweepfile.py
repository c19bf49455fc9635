"""The sweep file: which arms × engines × time steps × profiles a sweep measures, validated.

::

    name = "engines-2026"                       # optional (default: the file's stem)
    arms = ["planar2r", "planar3r", "my_arm.toml"]   # presets or arm TOML files (relative to this file)
    random_arms = { count = 200, links = [2, 4], seed = 1 }   # optional ranges, see RANDOM_KEYS
    engines = ["mujoco", "mujoco-rk4", "pybullet", "pinocchio"]
    dt = [0.004, 0.002, 0.001, 0.0005]          # s
    profiles = ["multisine-motion", "zero"]     # optional, default ["multisine-motion"]; NAME@key=value, .csv
    duration = 1.0                              # s, optional, default 1.0
    states = 1000                               # random states for the static metrics, optional
    seed = 0                                    # seed of those states, optional
    tolerances = "tol.toml"                     # optional overrides, as for ``crossdyn compare``

At least one of ``arms`` and ``random_arms``.  Unknown keys, empty lists, duplicates, bad ranges
and values raise :class:`~crossdyn.io.InputError` naming the file, the line, the key and
the value (the command line turns it into exit code 2).

Random arms: link count uniform in ``links`` (inclusive), each link's length L [m], mass m [kg],
centre of mass Lc = ``com`` × L (a fraction of the length, so it is always on the link),
inertia J = ``inertia`` × m L² (a fraction of m L²: a uniform rod is 1/12), viscous damping
b [N m s/rad], all uniform in their ranges, drawn from ``numpy.random.default_rng(seed)`` in a
fixed order: the same file gives the same arms everywhere.
"""
from __future__ import annotations

import hashlib
import math
import os
from dataclasses import dataclass, field
from pathlib import Path

from crossdyn.errors import did_you_mean
from crossdyn.io import InputError
from crossdyn.models.spec import ArmSpec, SpecError

TOP_KEYS = ("name", "arms", "random_arms", "engines", "dt", "profiles", "duration", "states", "seed",
            "tolerances")
RANDOM_KEYS = {
    # key: (default range, lowest allowed, highest allowed, what, unit)
    "length": ((0.3, 1.0), 0.0, math.inf, "link length L", "m"),
    "mass": ((0.5, 2.0), 0.0, math.inf, "link mass m", "kg"),
    "com": ((0.3, 0.7), 0.0, 1.0, "centre of mass Lc as a fraction of L", ""),
    "inertia": ((0.04, 0.12), 0.0, math.inf, "inertia J as a fraction of m L^2", ""),
    "damping": ((0.0, 0.0), 0.0, math.inf, "joint damping b", "N m s/rad"),
}
MAX_STEPS = 2_000_000
"""Most time steps one run may take (duration / dt), as for ``crossdyn compare``."""
MAX_STATES = 1_000_000
MAX_RANDOM_ARMS = 1_000_000


@dataclass(frozen=True)
class ArmEntry:
    """One arm of the sweep and where it came from (``preset``, ``file`` or ``random``)."""

    spec: ArmSpec
    source: str


@dataclass(frozen=True)
class Sweep:
    """A validated sweep file."""

    name: str
    arms: tuple[ArmEntry, ...]
    engines: tuple[str, ...]
    dts: tuple[float, ...]
    profiles: tuple[str, ...] = ("multisine-motion",)
    duration: float = 1.0
    states: int = 1000
    seed: int = 0
    tolerances: dict = field(default_factory=dict)  # overrides (Tolerances fields)
    engine_digests: dict = field(default_factory=dict)  # user:FILE -> sha256 of FILE (part of chunk hashes)

    @property
    def comparisons(self) -> int:
        return len(self.arms) * len(self.engines) * len(self.dts) * len(self.profiles)


def _where(path, text: str, key: str) -> str:
    from crossdyn.models.spec_io import _line_of

    line = _line_of(text, key)
    return f"{path}: line {line}: {key}" if line else f"{path}: {key}"


def load_sweep(path: str | os.PathLike, check_engines: bool = True) -> Sweep:
    """Read and validate a sweep file (see the module docstring)."""
    from crossdyn.io import read_toml

    path = Path(path)
    text, data = read_toml(path, "sweep file", missing="no such sweep file")
    return sweep_from_dict(data, path, text, check_engines=check_engines)


class _Reader:
    """Typed reads of the sweep file's top-level keys; every error names the file, the line, the key, the value."""

    def __init__(self, data: dict, path: Path, text: str):
        self.data, self.path, self.text = data, path, text

    def err(self, key: str, msg: str, value=None) -> InputError:
        return InputError(f"{_where(self.path, self.text, key)}: {msg}", key, value)

    def str_list(self, key: str, required: bool, default=None) -> list[str]:
        """A non-empty list of distinct non-empty strings (stripped)."""
        if key not in self.data:
            if required:
                raise InputError(f"{self.path}: missing key {key!r}", key)
            return list(default or [])
        value = self.data[key]
        if not isinstance(value, list):
            raise self.err(key, f"must be a list of strings, got {value!r}", value)
        if not value:
            raise self.err(key, "must not be empty, got []", value)
        for v in value:
            if not isinstance(v, str) or not v.strip():
                raise self.err(key, f"must be a list of non-empty strings, got {v!r} in {value!r}", value)
        twice = sorted({v for v in value if value.count(v) > 1})
        if twice:
            raise self.err(key, f"{twice[0]!r} is listed more than once", value)
        return [v.strip() for v in value]

    def number(self, key: str, default, kind=float, positive=True):
        """A finite positive float, or a positive (``positive``) / non-negative integer."""
        value = self.data.get(key, default)
        ok = not isinstance(value, bool) and isinstance(value, (int, float) if kind is float else int)
        if ok and kind is float:
            ok = math.isfinite(value) and (value > 0 if positive else value >= 0)
        if ok and kind is int:
            ok = value > 0 if positive else value >= 0
        if not ok:
            what = "a positive number" if kind is float else ("a positive integer" if positive
                                                              else "an integer >= 0")
            raise self.err(key, f"must be {what}, got {value!r}", value)
        return kind(value)

    def name(self) -> str:
        unknown = sorted(set(self.data) - set(TOP_KEYS))
        if unknown:
            raise self.err(unknown[0], f"unknown key; allowed: {', '.join(TOP_KEYS)}", self.data[unknown[0]])
        name = self.data.get("name", self.path.stem or "sweep")
        if not isinstance(name, str) or not name.strip():
            raise self.err("name", f"must be a non-empty string, got {name!r}", name)
        return name.strip()

    def arms(self) -> list[ArmEntry]:
        """``arms`` (presets, TOML files relative to the sweep file) then ``random_arms``; names must differ."""
        if "arms" not in self.data and "random_arms" not in self.data:
            raise InputError(f"{self.path}: give arms = [...] and/or random_arms = {{ count = N, ... }}; neither "
                             "is set", "arms")
        arms: list[ArmEntry] = []
        for arm in self.str_list("arms", required=False):
            arms.append(_load_arm(arm, self.path.parent, lambda msg, a=arm: self.err("arms", f"{a!r}: {msg}", a)))
        if "random_arms" in self.data:
            arms.extend(random_arms(self.data["random_arms"], lambda k, msg, v: self.err(
                "random_arms", f"{k}: {msg}" if k else msg, v)))
        names = [a.spec.name for a in arms]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise self.err("arms", f"two arms are named {twice[0]!r}; arm names must differ (rows are keyed by "
                                   "them)", twice[0])
        return arms

    def dts(self, duration: float) -> list:
        """``dt``: positive, distinct, each a whole number of steps of ``duration`` and at most MAX_STEPS of them."""
        if "dt" not in self.data:
            raise InputError(f"{self.path}: missing key 'dt' (a list of time steps in s)", "dt")
        dts = self.data["dt"]
        if not isinstance(dts, list) or not dts:
            raise self.err("dt", f"must be a non-empty list of time steps in s, got {dts!r}", dts)
        for v in dts:
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v <= 0:
                raise self.err("dt", f"must be a list of positive numbers of seconds, got {v!r} in {dts!r}", dts)
            k = round(duration / v)
            if k > MAX_STEPS:
                raise self.err("dt", f"{v!r} s over duration {duration:g} s is {duration / v:.3g} steps; a run may "
                                     f"take at most {MAX_STEPS:,} steps", v)
            if k < 1 or abs(k * v - duration) > 1e-9 * max(1.0, duration):
                raise self.err("dt", f"duration {duration:g} s is not a whole number of {v!r} s steps", v)
        if len(set(map(float, dts))) != len(dts):
            raise self.err("dt", f"a time step is listed more than once in {dts!r}", dts)
        return dts

    def profiles(self, first_arm: ArmSpec) -> list[str]:
        """``profiles``: names, NAME@key=value (as --profile), CSV files (relative to the sweep file), the ones
        with options or a file built once for the first arm."""
        from crossdyn.inputs.profile_options import parse_profile
        from crossdyn.inputs.profiles import ProfileError, profile_names

        known = [p for p in profile_names() if p != "csv"]
        checked = []
        for p in self.str_list("profiles", required=False, default=["multisine-motion"]):
            base, at, rest = p.partition("@")
            if base.endswith(".csv"):
                csv = (self.path.parent / base).resolve()
                if not csv.is_file():
                    raise self.err("profiles", f"{p!r}: no such CSV file ({csv})", p)
                p = str(csv) + at + rest
            elif base not in known:
                raise self.err("profiles", f"unknown profile {base!r}; valid profiles: {', '.join(known)}, or a .csv "
                                           "file (options after @, e.g. sine@amplitude=0.5)", p)
            if at or base.endswith(".csv"):
                try:
                    parse_profile(p, first_arm)
                except (ProfileError, ValueError) as e:
                    raise self.err("profiles", f"{p!r}: {str(e).splitlines()[0]}", p) from None
            checked.append(p)
        return checked

    def tolerances(self) -> dict:
        """The overrides of the tolerance file ``tolerances`` names (the fields that differ from the defaults)."""
        if "tolerances" not in self.data:
            return {}
        tpath = self.data["tolerances"]
        if not isinstance(tpath, str) or not tpath.strip():
            raise self.err("tolerances", f"must be the path of a tolerance TOML file, got {tpath!r}", tpath)
        from crossdyn.comparison.tolerances import Tolerances, load_tolerances

        tol = load_tolerances(self.path.parent / tpath)
        default = Tolerances().as_dict()
        return {k: v for k, v in tol.as_dict().items() if v != default[k]}


def sweep_from_dict(data: dict, path: Path, text: str = "", check_engines: bool = True) -> Sweep:
    """Validate the sweep file's table ``data`` (read from ``path``, whose ``text`` gives the line numbers)."""
    r = _Reader(data, path, text)
    name = r.name()
    arms = r.arms()
    duration = r.number("duration", 1.0)
    dts = r.dts(duration)
    checked = r.profiles(arms[0].spec)
    states = r.number("states", 1000, int)
    if states > MAX_STATES:
        raise r.err("states", f"must be at most {MAX_STATES:,}, got {states:,}", states)
    seed = r.number("seed", 0, int, positive=False)
    tolerances = r.tolerances()
    engines = r.str_list("engines", required=True)
    engines, digests = _check_engines(engines, path.parent, arms, min(map(float, dts)), check_engines,
                                      lambda e, msg: r.err("engines", f"{e!r}: {msg}", e))
    return Sweep(name, tuple(arms), tuple(engines), tuple(float(d) for d in dts), tuple(checked),
                 duration, states, seed, tolerances, digests)


def _load_arm(arm: str, base: Path, err) -> ArmEntry:
    from crossdyn.models.presets import get_preset
    from crossdyn.models.spec_io import load_spec

    if arm.endswith(".toml"):
        p = base / arm
        if not p.is_file():
            raise err(f"no such arm file ({p})")
        return ArmEntry(load_spec(p), "file")  # its own errors name the arm file, line and key
    try:
        return ArmEntry(get_preset(arm), "preset")
    except SpecError as e:
        raise err(str(e).replace(f"arm {arm!r}: ", "")) from None


def random_arms(table, err) -> list[ArmEntry]:
    """``count`` valid random arms from the ``random_arms`` table (see the module docstring)."""
    import numpy as np

    from crossdyn.conventions import MAX_LINKS
    from crossdyn.models.spec import LinkSpec

    if not isinstance(table, dict):
        raise err(None, f"must be a table {{ count = N, links = [lo, hi], seed = S, ... }}, got {table!r}", table)
    allowed = ("count", "links", "seed", *RANDOM_KEYS)
    unknown = sorted(set(table) - set(allowed))
    if unknown:
        raise err(unknown[0], f"unknown key; allowed: {', '.join(allowed)}", table[unknown[0]])
    count = table.get("count")
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= MAX_RANDOM_ARMS:
        raise err("count", f"must be an integer from 1 to {MAX_RANDOM_ARMS:,}, got {count!r}", count)
    seed = table.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise err("seed", f"must be an integer >= 0, got {seed!r}", seed)

    def pair(key, value, lo, hi, integer=False):
        num = (int,) if integer else (int, float)
        if (not isinstance(value, list) or len(value) != 2
                or any(isinstance(v, bool) or not isinstance(v, num) or not math.isfinite(v) for v in value)):
            kind = "integers" if integer else "numbers"
            raise err(key, f"must be a range [low, high] of two {kind}, got {value!r}", value)
        a, b = value
        if a > b:
            raise err(key, f"range [low, high] has low > high: {value!r}", value)
        if a < lo or b > hi or (lo == 0 and key in ("length", "mass") and a <= 0):
            bounds = ("> 0" if key in ("length", "mass") else
                      f"within [{lo:g}, {hi:g}]" if math.isfinite(hi) else f">= {lo:g}")
            raise err(key, f"must be {bounds}, got {value!r}", value)
        return a, b

    links = pair("links", table.get("links", [2, 3]), 1, MAX_LINKS, integer=True)
    ranges = {k: pair(k, table[k], lo, hi) if k in table else default
              for k, (default, lo, hi, _, _) in RANDOM_KEYS.items()}
    rng = np.random.default_rng(seed)
    out = []
    width = len(str(count - 1))
    for i in range(count):
        n = int(rng.integers(links[0], links[1] + 1))
        draws = {k: rng.uniform(lo, hi, n) for k, (lo, hi) in ranges.items()}  # fixed order: RANDOM_KEYS
        built = []
        for j in range(n):
            L, m = float(draws["length"][j]), float(draws["mass"][j])
            built.append(LinkSpec(L, m, float(draws["com"][j]) * L, float(draws["inertia"][j]) * m * L * L,
                                  float(draws["damping"][j]), 0.0))
        out.append(ArmEntry(ArmSpec(tuple(built), name=f"random{seed}-{i:0{width}d}"), "random"))
    return out


def _check_engines(engines, base: Path, arms, dt: float, build: bool, err):
    """Engine names as known to the registry; user:FILE resolved against the sweep file's folder."""
    from crossdyn.engines import EngineError, available_engines, engine_names, make_engine

    known, installed = engine_names(), available_engines()
    out, digests = [], {}
    for e in engines:
        if e.startswith("user:"):
            p = (base / e[len("user:"):]).resolve()
            if not p.is_file():
                raise err(e, f"no such file ({p})")
            name = f"user:{p}"
            digests[name] = hashlib.sha256(p.read_bytes()).hexdigest()
        else:
            name = e
            b = e.split("@", 1)[0]
            if b not in known:
                raise err(e, f"unknown engine{did_you_mean(b, known)}; valid engines: {', '.join(known)}, user:FILE "
                             "(options after @, e.g. pybullet@link_damping=0.04)")
            if b not in installed:
                raise err(e, f"not installed; installed: {', '.join(installed)}")
        if build and ("@" in e or e.startswith("user:")):  # options / the user's file checked by building once
            try:
                make_engine(name, arms[0].spec, dt).close()
            except (EngineError, TypeError, ValueError) as ex:
                raise err(e, f"cannot be built for arm {arms[0].spec.name}: {str(ex).splitlines()[0]}") from None
        out.append(name)
    return out, digests
