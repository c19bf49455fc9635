"""Compare printed output with the output a document shows, number by number, at the printed resolution.

A README example prints physical values rounded to a few digits; on another CPU (another BLAS kernel, other
SIMD paths) the last bit of a float can move and a value that sits on a rounding boundary prints one unit
differently in its last digit.  So the text around the numbers must match exactly, and each number must agree
within **one unit in the last digit shown** (``0.214235`` → 1e-6; ``2.30e-03`` → 1e-5; ``52.3`` → 0.1;
an integer → 1, as it may be a rounded value; the docs runner, tests/docs_runner.py, takes integers
exactly).  Examples print no solver internals (step counts) and no round-off-level figures, so this is
the whole tolerance.
"""
from __future__ import annotations

import re

NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")


def resolution(token: str) -> float:
    """One unit in the last digit of a printed number."""
    mantissa, _, exponent = token.lower().partition("e")
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    return 10.0 ** (int(exponent or 0) - decimals)


def differences(printed: str, shown: str) -> list[str]:
    """Where ``printed`` departs from ``shown``: text that differs, or a number off by more than its resolution."""
    text_p, text_s = NUMBER.sub("#", printed), NUMBER.sub("#", shown)
    if text_p != text_s:
        return [f"text differs:\n--- printed\n{printed}\n--- shown\n{shown}"]
    out = []
    for p, s in zip(NUMBER.findall(printed), NUMBER.findall(shown)):
        if abs(float(p) - float(s)) > resolution(s) * (1 + 1e-9):
            out.append(f"{p} printed where {s} is shown (more than {resolution(s):g} apart)")
    return out

