#!/usr/bin/env bash
# The runs scripts/same_outputs.py compares before and after a refactor:
#   PYTHONPATH=<tree> bash scripts/reference_runs.sh OUT      (then python scripts/same_outputs.py BEFORE AFTER)
# The demo, a limits arm, a friction arm, a contact arm, an armature arm, a check, a class check, an
# identification and a small sweep; short durations, two engines each, so that it runs in a few minutes.
set -uo pipefail
out=${1:?usage: reference_runs.sh OUT}
here=$(cd "$(dirname "$0")/.." && pwd)
cx() { "${CROSSDYN:-crossdyn}" "$@" --quiet > /dev/null 2>&1; echo "exit $? : crossdyn $*"; }
mkdir -p "$out/inputs"
cp "$here/examples/check/my_3r_buggy.py" "$here/examples/check/my_3r_buggy.m" "$out/inputs/"  # paths in check.json name the output folder
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
