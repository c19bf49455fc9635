"""Profiles from the command line: ``NAME@key=value@key=value`` (the engines' option syntax).

``sine@amplitude=1@frequency=0.5``, vectors as ``1,0.5,0`` (one number per joint, or one for all),
``computed-torque@trajectory=move.toml@kp=900``, ``tau.csv@interpolation=zoh``.  The parameters, units and
defaults of every profile are :data:`crossdyn.inputs.profiles.PROFILE_PARAMS` (:func:`format_profile_list`
prints them).  A bad key or value is a :class:`~crossdyn.inputs.profiles.ProfileError` naming the profile,
the key and the value and listing the valid keys.
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from crossdyn.inputs.profiles import (
    DEFAULT_TORQUE_FRACTION, PROFILE_PARAMS, REGISTRY, Profile, ProfileError, default_move, make_profile,
    profile_names,
)
from crossdyn.inputs.trajectory_file import load_trajectory
from crossdyn.models.spec import ArmSpec


def _valid_keys(name: str) -> str:
    params = PROFILE_PARAMS[name]
    if not params:
        return f"profile {name!r} takes no parameters"
    return "valid keys: " + ", ".join(f"{p.key} [{p.unit}]" if p.unit != "-" else p.key for p in params)


def _convert(name: str, param, raw: str, n: int, where: str):
    def bad(why):
        return ProfileError(f"{where}: profile {name!r}, key {param.key!r}: {why}, got {raw!r}; {_valid_keys(name)}")

    if param.kind in ("vector", "number", "integers"):
        parts = [x.strip() for x in raw.split(",")]
        try:
            vals = [float(x) for x in parts]
        except ValueError:
            raise bad("not a number" + (" or comma-separated numbers" if param.kind != "number" else "")) from None
        if not all(math.isfinite(v) for v in vals):
            raise bad("must be finite")
        if param.kind == "number":
            if len(vals) != 1:
                raise bad("must be one number")
            return vals[0]
        if param.kind == "integers":
            if not all(v == int(v) and v > 0 for v in vals) or len(set(vals)) != len(vals):
                raise bad("must be distinct positive integers, comma-separated")
            return [int(v) for v in vals]
        if len(vals) not in (1, n):
            raise bad(f"must be one number or {n} comma-separated numbers (one per joint)")
        return vals[0] if len(vals) == 1 else np.array(vals)
    if param.kind == "choice":
        if raw not in param.choices:
            raise bad(f"must be one of {', '.join(param.choices)}")
        return raw
    if param.kind == "bool":
        low = raw.lower()
        if low not in ("true", "false", "1", "0", "yes", "no"):
            raise bad("must be true or false")
        return low in ("true", "1", "yes")
    if param.kind == "file":
        if not raw:
            raise bad("needs a file path")
        return raw
    raise AssertionError(param.kind)


def split_profile_option(text: str) -> tuple[str, list[tuple[str, str]]]:
    """``NAME@k=v@k2=v2`` → (NAME, [(k, v), (k2, v2)]); a key without ``=`` is an error."""
    base, *opts = text.split("@")
    pairs = []
    for opt in opts:
        if "=" not in opt:
            raise ProfileError(f"--profile {text}: {opt!r} is not key=value (options follow the profile name as "
                               "@key=value)")
        k, v = opt.split("=", 1)
        pairs.append((k.strip(), v.strip()))
    return base.strip(), pairs


def parse_profile(text: str, spec: ArmSpec, q0=None) -> Profile:
    """The profile described by ``text`` (``NAME@key=value…``, or a CSV path optionally followed by
    ``@interpolation=zoh``) for ``spec``.  ``q0`` (``--q0``) is where the default computed-torque move starts."""
    where = f"--profile {text}"
    if Path(text).is_file():  # a CSV file whose name contains '@' still works
        return make_profile("csv", spec, path=text)
    base, pairs = split_profile_option(text)
    kw: dict[str, Any]
    if base.endswith(".csv") or Path(base).is_file():
        name, kw = "csv", {"path": base}
    elif base in profile_names() and base != "csv":
        name, kw = base, {}
    else:
        raise ProfileError(f"--profile: unknown profile {base!r}; valid profiles: "
                           f"{', '.join(n for n in profile_names() if n != 'csv')}, or a CSV file path "
                           "(crossdyn compare --list-profiles shows their parameters)")
    params = {p.key: p for p in PROFILE_PARAMS[name]}
    for key, raw in pairs:
        if key not in params:
            raise ProfileError(f"{where}: profile {name!r} has no key {key!r} (value {raw!r}); {_valid_keys(name)}")
        if key in kw:
            raise ProfileError(f"{where}: profile {name!r}, key {key!r} given twice")
        kw[key] = _convert(name, params[key], raw, spec.n, where)
    try:
        if name in ("computed-torque", "pd-gravity") and "trajectory" in kw:
            move_keys = sorted(set(kw) & {"to", "from", "time", "kind", "target"})
            if move_keys:
                raise ProfileError(f"{where}: profile {name!r}: trajectory={kw['trajectory']} and "
                                   f"{', '.join(move_keys)} both give the motion; use one")
            traj = load_trajectory(kw.pop("trajectory"), spec)
            if name == "pd-gravity":
                kw["target"] = traj
            else:
                kw["trajectory"] = traj
        elif name == "computed-torque":
            move = {k: kw.pop(k) for k in ("to", "from", "time", "kind") if k in kw}
            start = move.pop("from", q0)
            kw["trajectory"] = default_move(spec, start=start, **move)
        return make_profile(name, spec, **kw)
    except ProfileError as e:
        msg = str(e)
        raise ProfileError(msg if msg.startswith("--profile") or msg.startswith(str(kw.get("path", "\0")))
                           else f"{where}: profile {name!r}: {msg}") from None


def profile_start(profile: Profile):
    """(q0, q̇0) of a profile that carries its start (``start``: the contact scenarios ``drop``, ``swing``,
    ``press``), else of a trajectory-tracking profile (its first way-point, at rest unless the trajectory says
    otherwise), or None for profiles without either."""
    start = getattr(profile, "start", None)
    if start is not None:
        return np.array(start[0], dtype=float), np.array(start[1], dtype=float)
    traj = getattr(profile, "trajectory", None)
    if traj is None:
        return None
    q, qd, _ = traj(traj.t0)
    return q, qd


def format_profile_list() -> str:
    """Every profile with its parameters, units and defaults (``crossdyn compare --list-profiles``)."""
    lines = ["Profiles for --profile NAME@key=value@key=value (vectors: one number for every joint, or one per "
             "joint as 1,0.5,0).", f"Torque defaults of open-loop profiles are {DEFAULT_TORQUE_FRACTION:g} x each "
             "joint's gravity torque scale |g| sum_k>=i (m_k Lc_k + L_k sum_j>k m_j): the largest gravity torque "
             "that joint can feel (crossdyn info prints it).", ""]
    for name in profile_names():
        lines.append(f"{name}: {REGISTRY[name].doc}")
        for p in PROFILE_PARAMS[name]:
            unit = "" if p.unit == "-" else f" [{p.unit}]"
            choices = f" ({'|'.join(p.choices)})" if p.choices else ""
            lines.append(f"    {p.key}{unit}{choices}: {p.doc}; default {p.default}")
    lines += ["", "--q0 and --qd0 (rad, rad/s, comma-separated) set the start of every run; without --q0 a "
              "trajectory-tracking run starts on the trajectory's first point, others near the hanging pose.",
              "Trajectory files: see crossdyn/inputs/trajectory_file.py or docs/howto/torque-profiles.md (joint q or Cartesian xy "
              "way-points with times t, cubic or quintic)."]
    return "\n".join(lines)
