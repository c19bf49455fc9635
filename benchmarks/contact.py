"""Applied contact's per-step cost (`make bench`): the runner with the tip contact law against the same arm
without it, measured side by side in alternating blocks (medians), per engine.

planar3r-wall (planar3r + a wall, k = 2e4 N/m, c = 50 N s/m, mu = 0.3) and planar3r, the closed-loop pd-gravity
path (the step loop in both: the law needs the state every step); with contact, every step also asks the engine
for its own tip kinematics (tip_kinematics: MuJoCo's site, PyBullet's link, Pinocchio's frame, Drake's frame,
DART's body node; analytic kinematics for analytic) and evaluates the law and J_c^T F.

    python benchmarks/contact.py [--quick]
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from run import closed_loop_overhead  # noqa: E402  (benchmarks/run.py)

from crossdyn.models import get_preset  # noqa: E402


def contact_overhead(steps: int, blocks: int, engines) -> dict:
    """planar3r-wall (applied contact) against planar3r, the closed-loop path of benchmarks/run.py."""
    return closed_loop_overhead(engines, "contact", get_preset("planar3r"), get_preset("planar3r-wall"), steps,
                                blocks)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true", help="fewer repetitions (for a smoke run)")
    args = ap.parse_args()
    steps, blocks = (300, 3) if args.quick else (2000, 7)
    engines = ["analytic", "pybullet", "mujoco", "mujoco-rk4", "pinocchio"]
    if importlib.util.find_spec("dartpy") is not None:
        engines += ["dart"]
    if importlib.util.find_spec("pydrake") is not None:
        engines += ["drake-discrete"]
    res = contact_overhead(steps, blocks, engines)
    (HERE / "results_contact.json").write_text(json.dumps(res, indent=2) + "\n")
    print(f"applied contact (planar3r-wall) / no contact (planar3r), closed-loop pd-gravity, medians of {blocks} "
          f"alternating blocks of {steps} steps")
    print(f"{'engine':15s} {'no contact us/step':>19s} {'contact us/step':>16s} {'ratio':>6s}")
    for name, v in res.items():
        print(f"{name:15s} {v['plain_us_per_step']:19.1f} {v['contact_us_per_step']:16.1f} {v['ratio']:6.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
