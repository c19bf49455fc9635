"""Every input boundary rejects bad input with exit code 2 and a message naming the file, the line / row /
field and the bad value -- never a Python traceback (unless --debug).

Boundaries: the arm TOML, the tolerance TOML, the baseline JSON, the torque CSV, the user's equations file
and every command-line option of ``compare``, ``check``, ``export``, ``info`` and ``demo``.  Each case below
is one distinct bad input (``len(CASES)`` is the count stated in docs/results/audits.md); each is
fed through ``crossdyn.cli.main`` exactly as the console script does, and a few through the console script
itself in a subprocess.  Control tests show the unmodified base files are accepted, so every rejection is
caused by the one defect a case introduces.
"""
from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

import crossdyn
from crossdyn.cli import main
from crossdyn.conventions import MAX_LINKS
from crossdyn.equations.octave_session import find_octave

PKG_DIR = str(Path(crossdyn.__file__).parent)

# ------------------------------------------------------------------------------------------ base inputs
# a valid 2-link arm; line numbers: 1 name, 2 [[links]], 3-6 link 1, 7 [[links]], 8 length, 9 mass, 10 com,
# 11 inertia, 12... extra keys of link 2
LINK1 = {"length": "1.0", "mass": "1.0", "com": "0.5", "inertia": "0.08"}
LINK2 = {"length": "0.8", "mass": "0.8", "com": "0.4", "inertia": "0.04"}


def arm(top: str = 'name = "a"', **link2) -> str:
    """The base arm with link 2's keys overridden (value None drops the key, new keys are appended)."""
    l2 = {**LINK2, **link2}
    lines = [top, "[[links]]", *(f"{k} = {v}" for k, v in LINK1.items()), "[[links]]",
             *(f"{k} = {v}" for k, v in l2.items() if v is not None)]
    return "\n".join(lines) + "\n"


def n_links(n: int) -> str:
    return 'name = "long"\n' + "".join("[[links]]\nlength = 0.1\nmass = 0.1\ncom = 0.05\ninertia = 0.0001\n"
                                       for _ in range(n))


BASELINE = {"schema": "crossdyn.baseline/1", "arm": "planar2r", "dof": 2, "dt": 0.001, "duration": 0.1,
            "profile": {"name": "multisine-motion"}, "versions": {"crossdyn": "0.1.0", "mujoco": "3.0.0"},
            "engines": {"mujoco": {"status": "ok", "trajectory.max_abs_error_rad": 1.0,
                                   "trajectory.max_abs_error_rad.floor": 0.0}}}


def baseline(**changes) -> str:
    data = json.loads(json.dumps(BASELINE))
    for path, value in changes.items():
        *head, last = path.split("__")
        d = data
        for part in head:
            d = d[part]
        if value is _DROP:
            del d[last]
        else:
            d[last] = value
    return json.dumps(data)


_DROP = object()
CSV_OK = "time,tau1,tau2\n0,0.1,0\n0.05,0.2,0\n0.1,0.1,0\n"
EQ_HEAD = "from math import cos\n"  # line 1 of every equations file below


@dataclass
class Case:
    id: str
    argv: list[str]
    files: dict = field(default_factory=dict)
    fragments: list[str] = field(default_factory=list)
    user_traceback: bool = False  # the user's own traceback is shown on purpose (frames in their file only)
    octave: bool = False          # a MATLAB case: needs GNU Octave (skipped, with the reason, without it)
    code: int = 2                 # the exit status: 2 (input error) but for a file that never returns (3, nothing judged)


# common command prefixes; a case's own options come after and win (argparse keeps the last)
CMP = ["compare", "planar2r", "--out", "{d}/out", "--quiet", "--no-plots", "--engines", "mujoco",
       "--duration", "0.1", "--states", "10", "--jobs", "1"]
CHK = ["check", "planar2r", "{d}/eq.py", "--states", "10", "--random-params", "1", "--out", "{d}/ck"]
TOML = "{d}/arm.toml"
CHKM = ["check", "planar2r", "{d}/eq.m", "--states", "10", "--random-params", "1", "--out", "{d}/ck"]
M_HEAD = "1;\nfunction out = M(q, p)\n"   # lines 1-2 of every MATLAB file below; line 3 is the body


def c(id, argv, files=None, fragments=(), **kw):
    return Case(id, list(argv), dict(files or {}), list(fragments), **kw)


CASES = [
    # ---------------------------------------------------------------------------------------------- arm TOML
    c("arm-missing-key", ["info", TOML], {"arm.toml": arm(inertia=None)},
      ["arm.toml", "line 7", "links[2]", "missing", "inertia"]),
    c("arm-extra-link-key", ["info", TOML], {"arm.toml": arm(mas="1.0")},
      ["arm.toml", "line 12", "links[2]", "unknown", "mas"]),
    c("arm-extra-top-key", ["info", TOML], {"arm.toml": arm(top='colour = "red"')},
      ["arm.toml", "unknown", "colour"]),
    c("arm-mass-string", ["info", TOML], {"arm.toml": arm(mass='"heavy"')},
      ["arm.toml", "line 9", "links[2].mass", "'heavy'"]),
    c("arm-length-bool", ["info", TOML], {"arm.toml": arm(length="true")},
      ["arm.toml", "line 8", "links[2].length", "True"]),
    c("arm-length-nan", ["info", TOML], {"arm.toml": arm(length="nan")},
      ["arm.toml", "line 8", "links[2].length", "finite", "nan"]),
    c("arm-inertia-inf", ["info", TOML], {"arm.toml": arm(inertia="inf")},
      ["arm.toml", "line 11", "links[2].inertia", "finite", "inf"]),
    c("arm-com-nan", ["info", TOML], {"arm.toml": arm(com="nan")},
      ["arm.toml", "line 10", "links[2].com", "nan"]),
    c("arm-mass-zero", ["info", TOML], {"arm.toml": arm(mass="0.0")},
      ["arm.toml", "line 9", "links[2].mass", "> 0", "0.0"]),
    c("arm-mass-negative", ["info", TOML], {"arm.toml": arm(mass="-1.5")},
      ["arm.toml", "line 9", "links[2].mass", "> 0", "-1.5"]),
    c("arm-length-zero", ["info", TOML], {"arm.toml": arm(length="0.0")},
      ["arm.toml", "line 8", "links[2].length", "> 0", "0.0"]),
    c("arm-length-negative", ["info", TOML], {"arm.toml": arm(length="-0.8")},
      ["arm.toml", "line 8", "links[2].length", "> 0", "-0.8"]),
    c("arm-inertia-negative", ["info", TOML], {"arm.toml": arm(inertia="-0.04")},
      ["arm.toml", "line 11", "links[2].inertia", ">= 0", "-0.04"]),
    c("arm-damping-negative", ["info", TOML], {"arm.toml": arm(damping="-0.3")},
      ["arm.toml", "line 12", "links[2].damping", "-0.3"]),
    c("arm-friction-negative", ["info", TOML], {"arm.toml": arm(friction="-0.2")},
      ["arm.toml", "line 12", "links[2].friction", "-0.2"]),
    c("arm-armature-negative", ["info", TOML], {"arm.toml": arm(armature="-0.05")},
      ["arm.toml", "line 12", "links[2].armature", "-0.05"]),
    c("arm-effort-zero", ["info", TOML], {"arm.toml": arm(effort="0.0")},
      ["arm.toml", "line 12", "links[2].effort", "0.0"]),
    c("arm-limit-stiffness-without-limits", ["info", TOML], {"arm.toml": arm(limit_stiffness="50.0")},
      ["arm.toml", "line 12", "links[2].limit_stiffness", "50.0", "needs limits"]),
    c("arm-limits-reversed", ["info", TOML], {"arm.toml": arm(limits="[1.0, -1.0]")},
      ["arm.toml", "line 12", "links[2].limits", "[1.0, -1.0]"]),
    c("arm-limits-string", ["info", TOML], {"arm.toml": arm(limits='"wide"')},
      ["arm.toml", "line 12", "links[2].limits", "'wide'"]),
    c("arm-no-links", ["info", TOML], {"arm.toml": 'name = "a"\n'}, ["arm.toml", "links", "at least one link"]),
    c("arm-zero-links", ["info", TOML], {"arm.toml": "links = []\n"},
      ["arm.toml", "line 1", "links", "at least one link"]),
    c("arm-33-links", ["info", TOML], {"arm.toml": n_links(MAX_LINKS + 1)},
      ["arm.toml", f"{MAX_LINKS + 1} links", f"at most {MAX_LINKS} links"]),
    c("arm-50-links", ["info", TOML], {"arm.toml": n_links(50)}, ["arm.toml", "50 links", f"at most {MAX_LINKS} links"]),
    c("arm-gravity-2-vector", ["info", TOML], {"arm.toml": arm(top="gravity = [0.0, -9.81]")},
      ["arm.toml", "line 1", "gravity", "3-vector", "[0.0, -9.81]"]),
    c("arm-gravity-string", ["info", TOML], {"arm.toml": arm(top='gravity = "down"')},
      ["arm.toml", "line 1", "gravity", "'down'"]),
    c("arm-gravity-nan", ["info", TOML], {"arm.toml": arm(top="gravity = [0.0, nan, 0.0]")},
      ["arm.toml", "line 1", "gravity[2]", "finite", "nan"]),
    c("arm-name-not-string", ["info", TOML], {"arm.toml": arm(top="name = 3")},
      ["arm.toml", "line 1", "name", "string", "3"]),
    c("arm-links-not-array", ["info", TOML], {"arm.toml": "links = 3\n"}, ["arm.toml", "links", "array of tables", "3"]),
    c("arm-link-not-table", ["info", TOML], {"arm.toml": "links = [1, 2]\n"},
      ["arm.toml", "links[1]", "must be a table", "1"]),
    c("arm-toml-syntax", ["info", TOML], {"arm.toml": "[[links]]\nlength = = 1.0\n"},
      ["arm.toml", "not valid TOML", "line 2"]),
    c("arm-not-utf8", ["info", TOML], {"arm.toml": b"\xff\xfe\x00name"}, ["arm.toml", "cannot read", "utf-8"]),
    c("arm-is-directory", ["info", TOML], {"arm.toml/x": ""}, ["arm.toml", "cannot read", "directory"]),
    c("arm-missing-file", ["info", "{d}/absent.toml"], {}, ["absent.toml", "no such file"]),
    c("arm-unknown-preset", ["info", "planar9x"], {}, ["'planar9x'", "planar2r", "planar3r-general", "planar<N>r"]),
    c("arm-preset-0-links", ["info", "planar0r"], {}, ["'planar0r'", f"1 <= N <= {MAX_LINKS}", "N = 0"]),
    c("arm-preset-50-links", ["info", "planar50r"], {}, ["'planar50r'", f"at most {MAX_LINKS} links", "N = 50"]),
    c("arm-bad-through-compare", [*CMP[:1], TOML, *CMP[2:]], {"arm.toml": arm(mass="-2.0")},
      ["arm.toml", "line 9", "links[2].mass", "-2.0"]),
    c("arm-bad-through-check", ["check", TOML, "{d}/eq.py", "--out", "{d}/ck"],
      {"arm.toml": arm(inertia="-1.0"), "eq.py": EQ_HEAD}, ["arm.toml", "line 11", "links[2].inertia", "-1.0"]),
    c("arm-bad-through-export", ["export", TOML, "--urdf", "{d}/a.urdf"], {"arm.toml": arm(length="0")},
      ["arm.toml", "line 8", "links[2].length", "0"]),
    # ---------------------------------------------------------------------------------------- tolerance TOML
    c("tol-unknown-key", [*CMP, "--tolerances", "{d}/tol.toml"], {"tol.toml": "trajectory_abs = 1e-3\n"},
      ["tol.toml", "line 1", "unknown tolerance 'trajectory_abs'", "trajectory_abs_rad"]),
    c("tol-string", [*CMP, "--tolerances", "{d}/tol.toml"], {"tol.toml": 'energy_rk4 = "tight"\n'},
      ["tol.toml", "line 1", "energy_rk4", "'tight'"]),
    c("tol-nan", [*CMP, "--tolerances", "{d}/tol.toml"], {"tol.toml": "# overrides\nenergy_symplectic = 1e-3\nenergy_rk4 = nan\n"},
      ["tol.toml", "line 3", "energy_rk4", "nan"]),
    c("tol-inf", [*CMP, "--tolerances", "{d}/tol.toml"], {"tol.toml": "mass_matrix_rel = inf\n"},
      ["tol.toml", "line 1", "mass_matrix_rel", "inf"]),
    c("tol-zero", [*CMP, "--tolerances", "{d}/tol.toml"], {"tol.toml": "trajectory_factor = 0\n"},
      ["tol.toml", "line 1", "trajectory_factor", "positive", "0"]),
    c("tol-negative", [*CMP, "--tolerances", "{d}/tol.toml"], {"tol.toml": "trajectory_abs_rad = -1e-3\n"},
      ["tol.toml", "line 1", "trajectory_abs_rad", "positive", "-0.001"]),
    c("tol-bool", [*CMP, "--tolerances", "{d}/tol.toml"], {"tol.toml": "divergence_rad = true\n"},
      ["tol.toml", "line 1", "divergence_rad", "True"]),
    c("tol-table", [*CMP, "--tolerances", "{d}/tol.toml"], {"tol.toml": "[energy]\nrk4 = 1e-6\n"},
      ["tol.toml", "unknown tolerance 'energy'"]),
    c("tol-syntax", [*CMP, "--tolerances", "{d}/tol.toml"], {"tol.toml": "energy_rk4 = = 1\n"},
      ["tol.toml", "not valid TOML", "line 1"]),
    c("tol-missing-file", [*CMP, "--tolerances", "{d}/absent-tol.toml"], {}, ["absent-tol.toml", "no such"]),
    # ----------------------------------------------------------------------------------------- baseline JSON
    c("base-json-syntax", [*CMP, "--baseline", "{d}/b.json"], {"b.json": '{"schema": \n  "crossdyn.baseline/1",,}'},
      ["b.json", "not valid JSON", "line 2"]),
    c("base-a-list", [*CMP, "--baseline", "{d}/b.json"], {"b.json": "[1, 2]"}, ["b.json", "not a crossdyn baseline", "list"]),
    c("base-wrong-schema", [*CMP, "--baseline", "{d}/b.json"], {"b.json": baseline(schema="crossdyn.compare/1")},
      ["b.json", "not a crossdyn baseline", "crossdyn.compare/1"]),
    c("base-future-schema", [*CMP, "--baseline", "{d}/b.json"], {"b.json": baseline(schema="crossdyn.baseline/9")},
      ["b.json", "not a crossdyn baseline it can read", "crossdyn.baseline/9", "crossdyn.baseline/2"]),
    c("base-missing-key", [*CMP, "--baseline", "{d}/b.json"], {"b.json": baseline(arm=_DROP)},
      ["b.json", "missing the key 'arm'"]),
    c("base-extra-key", [*CMP, "--baseline", "{d}/b.json"], {"b.json": baseline(comment="mine")},
      ["b.json", "unknown key", "comment"]),
    c("base-engines-list", [*CMP, "--baseline", "{d}/b.json"], {"b.json": baseline(engines=["mujoco"])},
      ["b.json", "engines", "must be an object", "list"]),
    c("base-versions-list", [*CMP, "--baseline", "{d}/b.json"], {"b.json": baseline(versions=["3.0"])},
      ["b.json", "versions", "must be an object", "list"]),
    c("base-version-number", [*CMP, "--baseline", "{d}/b.json"], {"b.json": baseline(versions__mujoco=3)},
      ["b.json", "versions.mujoco", "3"]),
    c("base-engine-entry-number", [*CMP, "--baseline", "{d}/b.json"], {"b.json": baseline(engines__mujoco=7)},
      ["b.json", "engines.mujoco", "7"]),
    c("base-engine-extra-key", [*CMP, "--baseline", "{d}/b.json"], {"b.json": baseline(engines__mujoco__speed=1)},
      ["b.json", "engines.mujoco", "unknown key", "speed"]),
    c("base-bad-status", [*CMP, "--baseline", "{d}/b.json"], {"b.json": baseline(engines__mujoco__status="great")},
      ["b.json", "engines.mujoco.status", "'great'", "ok, diverged, failed, skipped"]),
    c("base-metric-string", [*CMP, "--baseline", "{d}/b.json"],
      {"b.json": baseline(**{"engines__mujoco__trajectory.max_abs_error_rad": "big"})},
      ["b.json", "engines.mujoco.trajectory.max_abs_error_rad", "'big'"]),
    c("base-metric-nan", [*CMP, "--baseline", "{d}/b.json"],
      {"b.json": baseline(**{"engines__mujoco__trajectory.max_abs_error_rad": math.nan})},
      ["b.json", "engines.mujoco.trajectory.max_abs_error_rad", "nan"]),
    c("base-metric-negative", [*CMP, "--baseline", "{d}/b.json"],
      {"b.json": baseline(**{"engines__mujoco__trajectory.max_abs_error_rad": -0.5})},
      ["b.json", "engines.mujoco.trajectory.max_abs_error_rad", "-0.5"]),
    c("base-floor-null", [*CMP, "--baseline", "{d}/b.json"],
      {"b.json": baseline(**{"engines__mujoco__trajectory.max_abs_error_rad.floor": None})},
      ["b.json", "engines.mujoco.trajectory.max_abs_error_rad.floor", "None"]),
    c("base-dt-negative", [*CMP, "--baseline", "{d}/b.json"], {"b.json": baseline(dt=-0.001)},
      ["b.json", "dt", "positive", "-0.001"]),
    c("base-missing-file", [*CMP, "--baseline", "{d}/absent.json"], {}, ["absent.json", "--update-baseline"]),
    # ------------------------------------------------------------------------------------------- torque CSV
    c("csv-missing-joint-column", [*CMP, "--profile", "{d}/tau.csv"], {"tau.csv": "time,tau1\n0,0\n0.1,0\n"},
      ["tau.csv", "line 1", "missing column", "tau2"]),
    c("csv-extra-column", [*CMP, "--profile", "{d}/tau.csv"], {"tau.csv": "time,tau1,tau2,tau3\n0,0,0,0\n0.1,0,0,0\n"},
      ["tau.csv", "line 1", "tau3"]),
    c("csv-duplicate-column", [*CMP, "--profile", "{d}/tau.csv"], {"tau.csv": "time,tau1,tau2,tau2\n0,0,0,0\n"},
      ["tau.csv", "line 1", "tau2"]),
    c("csv-non-numeric", [*CMP, "--profile", "{d}/tau.csv"], {"tau.csv": CSV_OK.replace("0.2", "abc")},
      ["tau.csv", "line 3", "tau1", "'abc'"]),
    c("csv-nan-torque", [*CMP, "--profile", "{d}/tau.csv"], {"tau.csv": CSV_OK.replace("0.2,0", "0.2,nan")},
      ["tau.csv", "line 3", "tau2", "'nan'"]),
    c("csv-inf-torque", [*CMP, "--profile", "{d}/tau.csv"], {"tau.csv": CSV_OK.replace("0.2", "-inf")},
      ["tau.csv", "line 3", "tau1", "'-inf'"]),
    c("csv-repeated-time", [*CMP, "--profile", "{d}/tau.csv"], {"tau.csv": CSV_OK.replace("0.1,0.1", "0.05,0.1")},
      ["tau.csv", "line 4", "time", "increasing", "0.05"]),
    c("csv-decreasing-time", [*CMP, "--profile", "{d}/tau.csv"],
      {"tau.csv": "time,tau1,tau2\n0,0,0\n0.2,0,0\n0.1,0,0\n"}, ["tau.csv", "line 4", "time", "0.1", "0.2"]),
    c("csv-shorter-than-duration", [*CMP, "--profile", "{d}/tau.csv", "--duration", "0.2"], {"tau.csv": CSV_OK},
      ["tau.csv", "ends at t = 0.1", "0.2", "shorten --duration to 0.1 s or less"]),
    c("csv-starts-late", [*CMP, "--profile", "{d}/tau.csv"], {"tau.csv": "time,tau1,tau2\n0.02,0,0\n0.1,0,0\n"},
      ["tau.csv", "starts at t = 0.02"]),
    c("csv-ragged-row", [*CMP, "--profile", "{d}/tau.csv"], {"tau.csv": "time,tau1,tau2\n0,0,0\n0.1,0\n"},
      ["tau.csv", "line 3", "3 cells", "2"]),
    c("csv-empty", [*CMP, "--profile", "{d}/tau.csv"], {"tau.csv": ""}, ["tau.csv", "empty", "time,tau1"]),
    c("csv-header-only", [*CMP, "--profile", "{d}/tau.csv"], {"tau.csv": "time,tau1,tau2\n"}, ["tau.csv", "no data rows"]),
    c("csv-not-utf8", [*CMP, "--profile", "{d}/tau.csv"], {"tau.csv": b"time,tau1,tau2\n\xff,0,0\n"},
      ["tau.csv", "UTF-8"]),
    c("csv-missing-file", [*CMP, "--profile", "{d}/absent.csv"], {}, ["absent.csv", "no such file"]),
    c("csv-for-the-wrong-arm-in-demo", ["demo", "--out", "{d}/demo", "--duration", "0.1", "--profile", "{d}/tau.csv"],
      {"tau.csv": CSV_OK},
      ["tau.csv", "missing column", "tau3"]),
    # --------------------------------------------------------------------------------- profile and engine names
    c("profile-unknown", [*CMP, "--profile", "square"], {},
      ["'square'", "zero", "sine", "multisine-motion", "pd-gravity", "CSV"]),
    c("profile-key-unknown", [*CMP, "--profile", "sine@amp=1"], {},
      ["--profile sine@amp=1", "'sine'", "'amp'", "'1'", "amplitude [N m]", "frequency [Hz]"]),
    c("profile-value-not-a-number", [*CMP, "--profile", "sine@frequency=fast"], {},
      ["'sine'", "'frequency'", "'fast'", "not a number", "valid keys"]),
    c("profile-vector-wrong-length", [*CMP, "--profile", "constant@value=1,2,3"], {},
      ["'constant'", "'value'", "'1,2,3'", "2 comma-separated", "valid keys: value [N m]"]),
    c("profile-value-nan", [*CMP, "--profile", "step@after=nan"], {}, ["'step'", "'after'", "'nan'", "finite"]),
    c("profile-harmonics-not-integers", [*CMP, "--profile", "multisine@harmonics=1,2.5"], {},
      ["'multisine'", "'harmonics'", "'1,2.5'", "integers"]),
    c("profile-option-without-value", [*CMP, "--profile", "sine@amplitude"], {}, ["sine@amplitude", "key=value"]),
    c("profile-choice-bad", [*CMP, "--profile", "computed-torque@kind=linear"], {},
      ["'computed-torque'", "'kind'", "'linear'", "cubic, quintic"]),
    c("profile-bool-bad", [*CMP, "--profile", "computed-torque@friction=maybe"], {},
      ["'computed-torque'", "'friction'", "'maybe'", "true or false"]),
    c("profile-zero-takes-nothing", [*CMP, "--profile", "zero@value=1"], {}, ["'zero'", "'value'", "no parameters"]),
    c("profile-key-twice", [*CMP, "--profile", "sine@phase=1@phase=2"], {}, ["'sine'", "'phase'", "twice"]),
    c("profile-trajectory-and-to", [*CMP, "--profile", "computed-torque@trajectory={d}/t.toml@to=0,0"],
      {"t.toml": "[[points]]\nt = 0.0\nq = [0.0, 0.0]\n[[points]]\nt = 1.0\nq = [0.1, 0.0]\n"},
      ["'computed-torque'", "trajectory=", "to", "use one"]),
    c("q0-wrong-length", [*CMP, "--q0", "1,2,3"], {}, ["--q0 1,2,3", "2 joints", "3 value"]),
    c("q0-not-a-number", [*CMP, "--q0", "a,b"], {}, ["--q0 a,b", "comma-separated numbers in rad"]),
    c("qd0-nan", [*CMP, "--qd0", "nan,0"], {}, ["--qd0 nan,0", "finite", "rad/s"]),
    c("compare-no-arm", ["compare", "--out", "{d}/out"], {}, ["ARM", "crossdyn arms"]),
    # ------------------------------------------------------------------------------------- trajectory TOML
    c("traj-missing-file", [*CMP, "--profile", "computed-torque@trajectory={d}/absent.toml"], {},
      ["absent.toml", "no such trajectory file"]),
    c("traj-unknown-key", [*CMP, "--profile", "computed-torque@trajectory={d}/t.toml"],
      {"t.toml": 'interp = "cubic"\n[[points]]\nt = 0.0\nq = [0.0, 0.0]\n[[points]]\nt = 1.0\nq = [0.1, 0.0]\n'},
      ["t.toml", "line 1", "unknown key 'interp'", "interpolation"]),
    c("traj-unknown-point-key", [*CMP, "--profile", "computed-torque@trajectory={d}/t.toml"],
      {"t.toml": "[[points]]\nt = 0.0\nq = [0.0, 0.0]\n[[points]]\ntime = 1.0\nq = [0.1, 0.0]\n"},
      ["t.toml", "line 5", "points[2]", "'time'"]),
    c("traj-bad-interpolation", [*CMP, "--profile", "pd-gravity@trajectory={d}/t.toml"],
      {"t.toml": 'interpolation = "linear"\n[[points]]\nt = 0.0\nq = [0.0, 0.0]\n[[points]]\nt = 1.0\nq = [0.1, 0.0]\n'},
      ["t.toml", "line 1", "interpolation", "'linear'", "cubic"]),
    c("traj-times-not-increasing", [*CMP, "--profile", "computed-torque@trajectory={d}/t.toml"],
      {"t.toml": "[[points]]\nt = 0.5\nq = [0.0, 0.0]\n[[points]]\nt = 0.5\nq = [0.1, 0.0]\n"},
      ["t.toml", "line 5", "points[2].t", "increasing", "0.5"]),
    c("traj-q-wrong-length", [*CMP, "--profile", "computed-torque@trajectory={d}/t.toml"],
      {"t.toml": "[[points]]\nt = 0.0\nq = [0.0, 0.0]\n[[points]]\nt = 1.0\nq = [0.1, 0.0, 0.2]\n"},
      ["t.toml", "line 6", "points[2].q", "2 numbers", "[0.1, 0.0, 0.2]"]),
    c("traj-q-string", [*CMP, "--profile", "computed-torque@trajectory={d}/t.toml"],
      {"t.toml": '[[points]]\nt = 0.0\nq = [0.0, "up"]\n[[points]]\nt = 1.0\nq = [0.1, 0.0]\n'},
      ["t.toml", "line 3", "points[1].q", "'up'"]),
    c("traj-unreachable", [*CMP, "--profile", "computed-torque@trajectory={d}/t.toml"],
      {"t.toml": "[[points]]\nt = 0.0\nxy = [0.3, -1.5]\n[[points]]\nt = 1.0\nxy = [5.0, 0.0]\n"},
      ["t.toml", "line 6", "points[2]", "(5, 0)", "out of reach", "[0.2, 1.8]"]),
    c("traj-mixed-kinds", [*CMP, "--profile", "computed-torque@trajectory={d}/t.toml"],
      {"t.toml": "[[points]]\nt = 0.0\nq = [0.0, 0.0]\n[[points]]\nt = 1.0\nxy = [1.0, 0.5]\n"},
      ["t.toml", "line 6", "points[2]", "mixes joint (q) and Cartesian (xy)"]),
    c("traj-phi-on-2r", [*CMP, "--profile", "computed-torque@trajectory={d}/t.toml"],
      {"t.toml": "[[points]]\nt = 0.0\nxy = [0.3, -1.5]\nphi = 0.1\n[[points]]\nt = 1.0\nxy = [1.0, 0.5]\n"},
      ["t.toml", "line 4", "points[1].phi", "2R", "0.1"]),
    c("traj-one-point", [*CMP, "--profile", "computed-torque@trajectory={d}/t.toml"],
      {"t.toml": "[[points]]\nt = 0.0\nq = [0.0, 0.0]\n"}, ["t.toml", "at least 2 way-points", "1"]),
    c("traj-toml-syntax", [*CMP, "--profile", "computed-torque@trajectory={d}/t.toml"],
      {"t.toml": "[[points]]\nt = = 0.0\n"}, ["t.toml", "not valid TOML", "line 2"]),
    c("engine-unknown", [*CMP, "--engines", "mujoco,bullet"], {},
      ["--engines", "'bullet'", "pybullet", "mujoco-rk4", "pinocchio", "user:FILE"]),
    c("engines-empty", [*CMP, "--engines", ",,"], {}, ["--engines", "',,'", "pybullet"]),
    c("engine-twice", [*CMP, "--engines", "mujoco,pinocchio,mujoco"], {}, ["--engines", "mujoco", "more than once"]),
    c("engine-option-unknown", [*CMP, "--engines", "pybullet@damping=0.1"], {},
      ["--engines pybullet@damping=0.1", "unknown option", "damping", "link_damping"]),
    c("engine-option-without-value", [*CMP, "--engines", "pybullet@link_damping"], {},
      ["--engines pybullet@link_damping", "'link_damping'", "key=value"]),
    c("engine-option-bad-value", [*CMP, "--engines", "mujoco@integrator=RK5"], {},
      ["--engines mujoco@integrator=RK5", "integrator", "'RK5'", "RK4"]),
    c("engine-user-missing-file", [*CMP, "--engines", "user:{d}/absent.py"], {}, ["--engines", "absent.py", "no such file"]),
    c("engine-user-syntax-error", [*CMP, "--engines", "user:{d}/eq.py"], {"eq.py": EQ_HEAD + "def M(q p):\n    pass\n"},
      ["eq.py", "line 2", "SyntaxError"], user_traceback=True),
    c("engine-user-missing-functions", [*CMP, "--engines", "user:{d}/eq.py"],
      {"eq.py": EQ_HEAD + "def M(q, p):\n    return [[1, 0], [0, 1]]\n"}, ["eq.py", "must define M, C and G", "G"]),
    # -------------------------------------------------------------------------------- compare / demo options
    c("dt-zero", [*CMP, "--dt", "0"], {}, ["--dt", "0.0"]),
    c("dt-negative", [*CMP, "--dt", "-0.001"], {}, ["--dt", "-0.001"]),
    c("dt-nan", [*CMP, "--dt", "nan"], {}, ["--dt", "nan"]),
    c("dt-inf", [*CMP, "--dt", "inf"], {}, ["--dt", "inf"]),
    c("dt-not-a-number", [*CMP, "--dt", "fast"], {}, ["--dt", "'fast'"]),
    c("duration-zero", [*CMP, "--duration", "0"], {}, ["--duration", "0.0"]),
    c("duration-nan", [*CMP, "--duration", "nan"], {}, ["--duration", "nan"]),
    c("duration-not-whole-steps", [*CMP, "--duration", "0.0015"], {}, ["--duration 0.0015", "whole number", "--dt 0.001"]),
    c("duration-too-many-steps", [*CMP, "--duration", "2001"], {}, ["--duration 2001", "--dt 0.001", "2,000,000"]),
    c("states-zero", [*CMP, "--states", "0"], {}, ["--states", "0"]),
    c("states-too-many", [*CMP, "--states", "1000001"], {}, ["--states", "1,000,001", "1,000,000"]),
    c("states-not-an-integer", [*CMP, "--states", "ten"], {}, ["--states", "'ten'"]),
    c("seed-negative", [*CMP, "--seed", "-4"], {}, ["--seed", "-4"]),
    c("jobs-zero", [*CMP, "--jobs", "0"], {}, ["--jobs", "0"]),
    c("update-baseline-without-file", [*CMP, "--update-baseline"], {}, ["--update-baseline", "--baseline FILE"]),
    c("out-under-a-regular-file", [*CMP, "--out", "{d}/file.txt/sub"], {"file.txt": "x"},
      ["--out {d}/file.txt/sub", "{d}/file.txt is a file"]),
    c("out-is-a-regular-file", [*CMP, "--out", "{d}/file.txt"], {"file.txt": "x"}, ["--out {d}/file.txt", "is a file"]),
    c("out-in-proc", [*CMP, "--out", "/proc/crossdyn-out"], {}, ["--out /proc/crossdyn-out", "cannot create"]),
    c("baseline-unwritable", [*CMP, "--baseline", "{d}/file.txt/b.json", "--update-baseline"], {"file.txt": "x"},
      ["--baseline {d}/file.txt/b.json", "{d}/file.txt is a file"]),
    c("baseline-is-a-directory", [*CMP, "--baseline", "{d}", "--update-baseline"], {}, ["--baseline {d}", "directory"]),
    c("unknown-option", [*CMP, "--fast"], {}, ["unrecognized arguments", "--fast"]),
    c("demo-jobs-zero", ["demo", "--out", "{d}/demo", "--jobs", "0"], {}, ["--jobs", "0"]),
    c("demo-dt-zero", ["demo", "--out", "{d}/demo", "--dt", "0"], {}, ["--dt", "0.0"]),
    c("demo-unknown-profile", ["demo", "--out", "{d}/demo", "--profile", "square"], {}, ["'square'", "multisine"]),
    c("demo-seed-negative", ["demo", "--out", "{d}/demo", "--seed", "-1"], {}, ["--seed", "-1"]),
    c("demo-out-under-a-file", ["demo", "--out", "{d}/file.txt/demo"], {"file.txt": "x"},
      ["--out {d}/file.txt/demo", "{d}/file.txt is a file"]),
    # ------------------------------------------------------------------------------------ check and its file
    c("check-states-zero", [*CHK, "--states", "0"], {"eq.py": EQ_HEAD}, ["--states", "0"]),
    c("check-states-too-many", [*CHK, "--states", "1000001"], {"eq.py": EQ_HEAD}, ["--states", "1,000,001"]),
    c("check-random-params-negative", [*CHK, "--random-params", "-1"], {"eq.py": EQ_HEAD}, ["--random-params", "-1"]),
    c("check-seed-negative", [*CHK, "--seed", "-1"], {"eq.py": EQ_HEAD}, ["--seed", "-1"]),
    c("check-names-bad", [*CHK, "--names", "M=1x"], {"eq.py": EQ_HEAD}, ["--names", "'1x'"]),
    c("check-names-unknown-role", [*CHK, "--names", "K=mass"], {"eq.py": EQ_HEAD}, ["--names", "'K'"]),
    c("check-out-under-a-file", [*CHK, "--out", "{d}/file.txt/ck"], {"eq.py": EQ_HEAD, "file.txt": "x"},
      ["--out {d}/file.txt/ck", "{d}/file.txt is a file"]),
    c("eq-missing-file", ["check", "planar2r", "{d}/absent.py", "--out", "{d}/ck"], {}, ["absent.py", "no such file"]),
    c("eq-not-python", ["check", "planar2r", "{d}/eq.txt", "--out", "{d}/ck"], {"eq.txt": "M = [[1]]\n"},
      ["eq.txt", "cannot be imported as Python"]),
    c("eq-syntax-error", CHK, {"eq.py": EQ_HEAD + "def M(q p):\n    pass\n"}, ["eq.py", "line 2", "SyntaxError"],
      user_traceback=True),
    c("eq-import-error", CHK, {"eq.py": "import no_such_module_xyz\n"},
      ["eq.py", "line 1", "no_such_module_xyz", "ModuleNotFoundError"], user_traceback=True),
    c("eq-exits-on-import", CHK, {"eq.py": "import sys\nsys.exit(3)\n"}, ["eq.py", "line 2", "SystemExit"],
      user_traceback=True),
    c("eq-M-not-a-function", CHK, {"eq.py": "M = 3\n"}, ["eq.py", "M", "not a function"]),
    c("eq-M-wrong-signature", CHK, {"eq.py": "def M():\n    return 1\n"}, ["eq.py", "M()", "M(q, p)"]),
    c("eq-M-nan", CHK, {"eq.py": EQ_HEAD + "def M(q, p):\n    return [[float('nan'), 0], [0, 1]]\n"},
      ["eq.py", "M(q, p)", "NaN", "M11", "at q = ["]),
    c("eq-M-inf", CHK, {"eq.py": EQ_HEAD + "def M(q, p):\n    return [[1, 0], [0, 1e400]]\n"},
      ["eq.py", "M(q, p)", "infinite", "M22", "at q = ["]),
    c("eq-M-wrong-shape", CHK, {"eq.py": EQ_HEAD + "def M(q, p):\n    return [[1, 0, 0], [0, 1, 0]]\n"},
      ["eq.py", "M(q, p)", "(2, 3)", "(2, 2)"]),
    c("eq-M-returns-string", CHK, {"eq.py": EQ_HEAD + "def M(q, p):\n    return 'M'\n"},
      ["eq.py", "M(q, p)", "str"]),
    c("eq-M-returns-none", CHK, {"eq.py": EQ_HEAD + "def M(q, p):\n    return None\n"}, ["eq.py", "M(q, p)", "shape ()"]),
    c("eq-G-raises", CHK, {"eq.py": EQ_HEAD + "def G(q, p):\n    return [1 / 0, 0]\n"},
      ["eq.py", "line 3", "ZeroDivisionError", "G"], user_traceback=True),
    c("eq-unknown-parameter", CHK, {"eq.py": EQ_HEAD + "def G(q, p):\n    return [p.mass1, 0]\n"},
      ["eq.py", "line 3", "p.mass1", "'mass1'", "p.m1"], user_traceback=True),
    # ------------------------------------------------------------------------------ MATLAB equations (Octave)
    c("eq-m-parse-error", CHKM, {"eq.m": M_HEAD + "  out = [1 2; 3 4;\nend\n"}, ["eq.m", "line 4", "parse"],
      octave=True),
    c("eq-m-undefined-name", CHKM, {"eq.m": M_HEAD + "  out = eye(2) * undefined_thing;\nend\n"},
      ["eq.m", "line 3", "M(q, p)", "'undefined_thing' undefined", "at q = ["], octave=True),
    c("eq-m-no-such-field", CHKM, {"eq.m": M_HEAD + "  out = eye(2) * p.mass1;\nend\n"},
      ["eq.m", "line 3", "M(q, p)", "mass1"], octave=True),
    c("eq-m-error-call", CHKM, {"eq.m": M_HEAD + "  error('M is not ready');\nend\n"},
      ["eq.m", "line 3", "M is not ready"], octave=True),
    c("eq-m-wrong-shape", CHKM, {"eq.m": M_HEAD + "  out = [1 2 3];\nend\n"}, ["eq.m", "M(q, p)", "size [1 3]"],
      octave=True),
    c("eq-m-returns-text", CHKM, {"eq.m": M_HEAD + "  out = 'abcd';\nend\n"},
      ["M(q, p)", "char", "not an array of real numbers"], octave=True),
    c("eq-m-complex", CHKM, {"eq.m": M_HEAD + "  out = [1i 0; 0 1];\nend\n"}, ["M(q, p)", "complex"], octave=True),
    c("eq-m-nan", CHKM, {"eq.m": M_HEAD + "  out = [NaN 0; 0 1];\nend\n"}, ["M(q, p)", "NaN", "M11"], octave=True),
    c("eq-m-no-functions", CHKM, {"eq.m": "1;\nx = 3;\n"}, ["eq.m", "defines none of M"], octave=True),
    c("eq-m-no-arguments", CHKM, {"eq.m": "1;\nfunction out = M()\n  out = eye(2);\nend\n"},
      ["eq.m", "M takes 0 arguments", "M(q, p) or M(q)"], octave=True),
    c("eq-m-endless-loop", [*CHKM, "--timeout", "2"], {"eq.m": M_HEAD + "  while true\n  end\nend\n"},
      ["eq.m", "did not return within 2 s", "stopped"], octave=True, code=3),  # INCONCLUSIVE: nothing was compared
    c("eq-m-names-missing", [*CHKM, "--names", "M=inertia"], {"eq.m": M_HEAD + "  out = eye(2);\nend\n"},
      ["eq.m", "--names maps M to 'inertia'"], octave=True),
    c("eq-m-folder-parse-error", ["check", "planar2r", "{d}/fns", "--out", "{d}/ck"],
      {"fns/M.m": "function out = M(q, p)\n  out = [1 0; 0 1;\nend\n", "fns/G.m": "function out = G(q, p)\n  out = [0; 0];\nend\n"},
      ["fns/M.m", "line 3", "parse"], octave=True),
    c("eq-folder-without-m", ["check", "planar2r", "{d}/sub", "--out", "{d}/ck"], {"sub/notes.txt": "x"},
      ["sub", "is a folder without .m files", "--summary"]),
    c("engine-user-m-parse-error", [*CMP, "--engines", "user:{d}/eq.m"], {"eq.m": M_HEAD + "  out = [1 2;\nend\n"},
      ["eq.m", "line 4", "parse"], octave=True),
    c("check-timeout-zero", [*CHK, "--timeout", "0"], {"eq.py": EQ_HEAD}, ["--timeout", "0"]),
    c("check-timeout-nan", [*CHK, "--timeout", "nan"], {"eq.py": EQ_HEAD}, ["--timeout", "nan"]),
    c("check-jobs-zero", ["check", "planar2r", "{d}", "--summary", "{d}/g.csv", "--jobs", "0"], {},
      ["--jobs", "0"]),
    c("check-summary-on-a-file", ["check", "planar2r", "{d}/eq.py", "--summary", "{d}/g.csv"], {"eq.py": EQ_HEAD},
      ["--summary", "needs a folder", "eq.py"]),
    c("check-summary-not-csv", ["check", "planar2r", "{d}", "--summary", "{d}/g.xlsx"], {},
      ["--summary", "g.xlsx", ".csv"]),
    # --------------------------------------------------------------------------------------------- derive
    c("derive-too-many-links", ["derive", "planar9r"], {}, ["planar9r", "9 links", "up to 8"]),
    c("derive-bad-format", ["derive", "planar2r", "--format", "word"], {}, ["--format", "'word'", "matlab"]),
    c("derive-out-is-a-directory", ["derive", "planar2r", "--out", "{d}"], {}, ["--out {d}", "directory"]),
    # ---------------------------------------------------------------------------------------------- export
    c("export-no-output", ["export", "planar2r"], {}, ["--urdf", "--mjcf", "--toml"]),
    c("export-dt-zero", ["export", "planar2r", "--mjcf", "{d}/a.xml", "--dt", "0"], {}, ["--dt", "0.0"]),
    c("export-dt-nan", ["export", "planar2r", "--mjcf", "{d}/a.xml", "--dt", "nan"], {}, ["--dt", "nan"]),
    c("export-urdf-under-a-file", ["export", "planar2r", "--urdf", "{d}/file.txt/a.urdf"], {"file.txt": "x"},
      ["--urdf {d}/file.txt/a.urdf", "{d}/file.txt is a file"]),
    c("export-mjcf-is-a-directory", ["export", "planar2r", "--mjcf", "{d}"], {}, ["--mjcf {d}", "directory"]),
    c("export-toml-in-proc", ["export", "planar2r", "--toml", "/proc/crossdyn.toml"], {},
      ["--toml /proc/crossdyn.toml", "cannot"]),
    # ------------------------------------------------------------------------------------------------ info
    c("info-schema-with-arm", ["info", "planar2r", "--schema", "compare"], {}, ["--schema", "without ARM"]),
    c("info-typo", ["info", "planar3"], {}, ["unknown arm 'planar3'", "did you mean 'planar3r'", ".urdf"]),
    c("no-command", [], {}, ["no COMMAND", "compare", "check"]),
]
IDS = [case.id for case in CASES]
assert len(set(IDS)) == len(IDS), "case ids must be distinct"


def _materialise(case: Case, d: Path):
    for name, content in case.files.items():
        path = d / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
    sub = lambda s: s.replace("{d}", str(d))  # noqa: E731
    return [sub(a) for a in case.argv], [sub(f) for f in case.fragments]


def run_main(argv) -> int:
    try:
        return main(argv)
    except SystemExit as e:  # argparse's own errors (already exit code 2)
        return e.code


def _crossdyn_frames(text: str) -> list[str]:
    return [line for line in text.splitlines() if "File \"" in line and PKG_DIR in line]


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_bad_input_exits_2_naming_file_place_and_value(case, tmp_path, capsys, monkeypatch):
    if "/proc/" in " ".join(case.argv) and not os.path.isdir("/proc/self"):
        pytest.skip("no /proc on this system")
    if case.octave and find_octave() is None:
        pytest.skip("GNU Octave (octave-cli) is not installed; 'make test' installs it")
    monkeypatch.chdir(tmp_path)  # nothing may be written into the repository
    argv, fragments = _materialise(case, tmp_path)
    code = run_main(argv)
    cap = capsys.readouterr()
    text = cap.out + cap.err
    assert code == case.code, f"exit code {code}\n{text}"
    for fragment in fragments:
        assert fragment in cap.err, f"{fragment!r} missing from stderr:\n{cap.err}"
    assert not _crossdyn_frames(text), f"crossdyn's own traceback reached the user:\n{text}"
    if case.user_traceback:  # only the user's frames, in their file
        assert "frames in your file only" in cap.err or "SyntaxError" in cap.err
    else:
        assert "Traceback" not in text, text
    assert not (tmp_path / "out" / "summary.json").exists()  # nothing ran


def test_count_of_distinct_bad_inputs_matches_the_audits_page():
    section = (Path(__file__).parent.parent / "docs" / "results" / "audits.md").read_text(encoding="utf-8")
    m = re.search(r"(\d+) distinct bad inputs", section)
    assert m, "docs/results/audits.md states the count of distinct bad inputs"
    assert int(m.group(1)) == len(CASES)


# ------------------------------------------------------------------------------------------ controls
def test_controls_the_base_inputs_are_valid(tmp_path, capsys):
    """The bases the cases corrupt are accepted, so each rejection above is the defect's doing."""
    (tmp_path / "arm.toml").write_text(arm(damping="0.1", friction="0.0", limits="[-1.0, 1.0]"))
    assert run_main(["info", str(tmp_path / "arm.toml")]) == 0
    (tmp_path / "tau.csv").write_text(CSV_OK)
    (tmp_path / "tol.toml").write_text("energy_rk4 = 1e-6\ntrajectory_abs_rad = 1e-3\n")
    (tmp_path / "b.json").write_text(baseline())
    code = run_main(["compare", "planar2r", "--out", str(tmp_path / "out"), "--quiet", "--no-plots", "--engines",
                     "mujoco", "--duration", "0.1", "--states", "10", "--jobs", "1", "--profile", str(tmp_path / "tau.csv"),
                     "--tolerances", str(tmp_path / "tol.toml"), "--baseline", str(tmp_path / "b.json")])
    assert code in (0, 1)  # ran: a verdict, not a usage error
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["profile"]["name"] == "csv" and summary["tolerances"]["trajectory_abs_rad"] == 1e-3
    assert "baseline" in summary
    (tmp_path / "eq.py").write_text(EQ_HEAD + "def M(q, p):\n    return [[1, 0], [0, 1]]\n")
    assert run_main(["check", "planar2r", str(tmp_path / "eq.py"), "--states", "10", "--random-params", "1",
                     "--out", str(tmp_path / "ck")]) == 1  # usable (and wrong): exit 1, not 2
    capsys.readouterr()


# ------------------------------------------------------------------------------------------ warnings
@pytest.mark.parametrize("com,why", [("1.5", "outside the link"), ("-0.1", "outside the link")],
                         ids=["com-beyond-link-end", "com-behind-joint"])
def test_com_outside_the_link_is_one_clear_warning_line(tmp_path, capsys, com, why):
    path = tmp_path / "arm.toml"
    path.write_text(arm(com=com))
    assert run_main(["info", str(path)]) == 0
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err  # once, not once per validation pass, and no Python source line
    assert lines[0].startswith("crossdyn: warning: ") and str(path) in lines[0]
    assert "links[2].com" in lines[0] and com in lines[0] and why in lines[0]
    assert "SpecWarning" not in err
    # every command that loads an arm says it, even one that then stops on a usage error
    assert run_main(["export", str(path), "--toml", str(tmp_path / "copy.toml")]) == 0
    assert "crossdyn: warning: " in capsys.readouterr().err
    assert run_main(["compare", str(path), "--dt", "0", "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "crossdyn: warning: " in err and "links[2].com" in err and "--dt" in err


def test_debug_flag_shows_the_traceback(tmp_path, capsys):
    from crossdyn.models import SpecError

    path = tmp_path / "arm.toml"
    path.write_text(arm(mass="-1.0"))
    with pytest.raises(SpecError, match=r"links\[2\]\.mass"):
        main(["--debug", "info", str(path)])


# ------------------------------------------------------------------------------------------ the console script
SUBPROCESS_CASES = ["arm-mass-negative", "base-metric-string", "csv-non-numeric", "out-under-a-regular-file"]


@pytest.mark.parametrize("case_id", SUBPROCESS_CASES)
def test_console_script_exits_2_without_traceback(case_id, tmp_path):
    case = CASES[IDS.index(case_id)]
    argv, fragments = _materialise(case, tmp_path)
    proc = subprocess.run([sys.executable, "-m", "crossdyn.cli", *argv], capture_output=True, text=True,
                          cwd=tmp_path, timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout
    assert proc.stderr.startswith("crossdyn: error: ")
    for fragment in fragments:
        assert fragment in proc.stderr
