#!/usr/bin/env bash
# The runs scripts/same_outputs.py compares before and after a refactor:
#   PYTHONPATH=<tree> bash scripts/reference_runs.sh OUT      (then python scripts/same_outputs.py BEFORE AFTER)
# The three arm kinds' worlds, each through the commands that read it (issue 37: a refactor that merges them must
# leave every output as it was):
# - planar presets: the demo, a limits arm, a friction arm, a contact arm, an armature arm, a check (.py, .m), an
#   identification, a small sweep, --batch, and export;
# - textbook (DH) arms: compare on a DH preset, a check and an identification of a spatial arm, export;
# - robot files: compare on a URDF and an MJCF, identify on a URDF, audit of one file and of a pair.
# Short durations and two engines each, so that it runs in a few minutes.
set -uo pipefail
out=${1:?usage: reference_runs.sh OUT}
here=$(cd "$(dirname "$0")/.." && pwd)
cx() { "${CROSSDYN:-crossdyn}" "$@" --quiet > /dev/null 2>&1; echo "exit $? : crossdyn $*"; }
mkdir -p "$out/inputs"
cp "$here/examples/check/my_3r_buggy.py" "$here/examples/check/my_3r_buggy.m" "$here/examples/check/my_scara_buggy.py" \
   "$here/examples/robots/ur5e_description.urdf" "$here/examples/robots/menagerie_ur5e.xml" \
   "$here/examples/robots/menagerie_ur5e_general.xml" "$out/inputs/"  # paths in check.json name the output folder
cx demo --out "$out/demo"
cx compare planar2r-limits --duration 1 --engines analytic,mujoco,pybullet --native --no-plots --out "$out/limits"
cx compare planar3r-friction --duration 1 --engines analytic,mujoco-rk4,pinocchio --no-plots --out "$out/friction"
cx compare planar2r-floor --duration 1 --engines analytic,mujoco,drake-discrete --no-plots --out "$out/contact"
cx compare planar3r-geared --duration 1 --engines analytic,mujoco,dart --no-plots --out "$out/armature"
"${CROSSDYN:-crossdyn}" check planar3r "$out/inputs/my_3r_buggy.py" --out "$out/check" > /dev/null 2>&1; echo "exit $? : check"
"${CROSSDYN:-crossdyn}" check planar3r "$out/inputs/my_3r_buggy.m" --out "$out/check_m" > /dev/null 2>&1; echo "exit $? : check .m"
cx identify planar2r --duration 4 --out "$out/identify"
cat > "$out/sweep.toml" <<TOML
name = "reference"
arms = ["planar2r"]
engines = ["mujoco", "pinocchio"]
dt = [0.002]
profiles = ["multisine-motion"]
duration = 0.3
states = 50
TOML
cx sweep "$out/sweep.toml" --out "$out/sweep" --workers 1 --no-report
# the planar batch path (MuJoCo's rollout over N arms; --batch needs the jax extra)
cx compare planar3r --batch 8 --engines mujoco --duration 0.1 --out "$out/batch"
mkdir -p "$out/export"
ex() { "${CROSSDYN:-crossdyn}" export "$@" > /dev/null 2>&1; echo "exit $? : crossdyn export $*"; }
ex planar3r-wall --urdf "$out/export/planar3r-wall.urdf" --mjcf "$out/export/planar3r-wall.xml" --toml "$out/export/planar3r-wall.toml"
# textbook (DH) arms and robot files; MuJoCo's RK4 on them is named $FILE_RK4 (before the one engine table of issue
# 37 it was `mujoco` there: FILE_RK4=mujoco for a run of such a tree)
rk4=${FILE_RK4:-mujoco-rk4}
cx compare scara --duration 0.5 --engines "pinocchio,$rk4" --no-plots --out "$out/dh_scara"
"${CROSSDYN:-crossdyn}" check scara "$out/inputs/my_scara_buggy.py" --out "$out/check_scara" > /dev/null 2>&1; echo "exit $? : check scara"
cx identify rp-polar --duration 2 --out "$out/identify_rp"
ex scara --urdf "$out/export/scara.urdf" --mjcf "$out/export/scara.xml"
# robot files
cx compare "$out/inputs/ur5e_description.urdf" --duration 0.2 --engines "pinocchio,$rk4" --no-plots --out "$out/file_urdf"
cx compare "$out/inputs/menagerie_ur5e.xml" --duration 0.2 --engines "pinocchio,$rk4" --no-plots --out "$out/file_mjcf"
cx identify "$out/inputs/ur5e_description.urdf" --engine exact --duration 1 --out "$out/identify_urdf"
cx audit "$out/inputs/menagerie_ur5e.xml" --engines "pinocchio,$rk4" --states 20 --no-plots --out "$out/audit_one"
cx audit "$out/inputs/menagerie_ur5e.xml" "$out/inputs/menagerie_ur5e_general.xml" --engines "pinocchio,$rk4" --states 20 --no-plots --out "$out/audit_pair"
