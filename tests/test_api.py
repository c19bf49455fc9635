"""The public API at the top level, and the scripting example of docs/howto/scripting.md, run as written."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from printed_numbers import differences

ROOT = Path(__file__).resolve().parent.parent


def readme_example() -> tuple[str, str]:
    """The Python block of docs/howto/scripting.md and the output block after it."""
    section = (ROOT / "docs" / "howto" / "scripting.md").read_text(encoding="utf-8")
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    shown = re.search(r"```text\n(.*?)```", section, re.S).group(1)
    return code, shown


def test_readme_example_runs_and_prints_what_the_readme_shows():
    code, shown = readme_example()
    assert len(code.strip().splitlines()) <= 12
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert not differences(proc.stdout, shown)  # text exact, numbers to one unit of their last digit


def test_public_names_are_importable_and_lazy():
    code = ("import sys, crossdyn; heavy = [m for m in ('mujoco', 'pybullet', 'pinocchio', 'sympy') if m in "
            "sys.modules]; assert not heavy, heavy; "
            "from crossdyn import load_arm, make_engine, compare, check, CompareOptions, Tolerances, analytic, "
            "get_preset, make_profile, run_engine, engine_names, ArmSpec, __version__; "
            "import crossdyn.comparison.compare as c, crossdyn.checking.checker as k; "
            "assert compare is c.compare and check is k.check; print(sorted(crossdyn.__all__)[:3])")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr


def test_unknown_public_name_is_an_attribute_error():
    import crossdyn

    try:
        crossdyn.no_such_thing
    except AttributeError as e:
        assert "no_such_thing" in str(e)
    else:
        raise AssertionError("expected AttributeError")


def test_the_printed_output_comparison_can_fail():
    assert differences("t 0.215235 s", "t 0.215236 s") == []
    assert differences("t 0.215235 s", "t 0.215237 s")
    assert differences("a 2.31e-03 m", "a 2.30e-03 m") == []
    assert differences("a 2.32e-03 m", "a 2.30e-03 m")
    assert differences("over 229 steps", "over 243 steps")
    assert differences("3 passed", "3 failed")
