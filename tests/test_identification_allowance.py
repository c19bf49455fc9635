"""Issue 40 (identification): every interval the verdict judges is printed as judged — the statistical interval
widened to its allowance where that is wider, marked ``*`` with the allowance's origin noted — so a true value of 0
lies inside what is printed; no relative error is printed against a true 0 (``n/a (true 0)``).  The same in the
terminal, identify.md, identify.html and identify.json, for planar arms, spatial arms and robot files.

No floating-point text is compared byte for byte: the printed intervals are parsed and compared as numbers."""
from __future__ import annotations

import json
import re
from dataclasses import replace

import numpy as np
import pytest

from crossdyn.cli import main
from crossdyn.identification import report as R
from crossdyn.identification.identify import identify
from crossdyn.models import get_preset

NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?"
INTERVAL = re.compile(rf"\[({NUMBER}), ({NUMBER})\](\*?)")


def _row(text: str, symbol: str) -> str:
    """The table row of ``symbol`` (a terminal line or a Markdown table row)."""
    rows = [line for line in text.splitlines()
            if line.split() and line.replace("|", " ").split()[0] == symbol]
    assert len(rows) == 1, (symbol, rows)
    return rows[0]


def _printed_intervals(row: str) -> list[tuple[float, float, bool]]:
    """The 95 % and the family-wise interval printed in a row, as numbers, and whether each is marked ``*``."""
    found = [(float(a), float(b), star == "*") for a, b, star in INTERVAL.findall(row)]
    assert len(found) == 2, row
    return found


def _assert_true_zeros_inside_what_is_printed(text: str, doc: dict) -> None:
    """Each parameter whose true value is 0: both printed intervals contain 0, no relative error is printed
    against it (``n/a (true 0)``), and the allowance's note is printed where an interval is marked."""
    zeros = [p for p in doc["parameters"] if p["true_zero"]]
    assert zeros, "the arm has no true 0 to check"
    for p in zeros:
        assert p["true"] == 0.0
        row = _row(text, p["symbol"])
        for lo, hi, _ in _printed_intervals(row):
            assert lo <= 0.0 <= hi, row
        assert "n/a (true 0)" in row, row
    if any(star for p in doc["parameters"] for *_, star in _printed_intervals(_row(text, p["symbol"]))):
        assert "widened to estimate ± allowance" in text and "noise-free recovery tolerance" in text


def _assert_judged_fields(doc: dict) -> None:
    """identify.json: the judged intervals contain the statistical ones, are at least the allowance wide, and say
    exactly what inside_… says (the verdict's test); the allowance's rule is written."""
    assert "1e-06" in doc["interval_allowance"]["rule"] and doc["interval_allowance"]["relative_floor"] == 1e-6
    for p in doc["parameters"]:
        for key, inside in (("ci95", "inside_interval"), ("ci_familywise", "inside_familywise_interval")):
            (slo, shi), (jlo, jhi) = p[key], p[key + "_judged"]
            assert jlo <= slo and shi <= jhi
            # 1e-9: the round-off of β̂ ± a, at most 2.2e-16·|β̂| ≤ 2.2e-10·a since a ≥ 1e-6·|β| (β̂ ≈ β here)
            assert (jhi - jlo) / 2 >= p["allowance"] * (1 - 1e-9)
            assert p["widened_by_allowance"][key] == ((shi - slo) < (jhi - jlo))
            assert p[inside] == (jlo <= p["true"] <= jhi)
        assert p["absolute_error"] == abs(p["estimate"] - p["true"])
        assert p["relative_to"] in ("true value", "scale")


def _identify_and_check(tmp_path, capsys, argv) -> dict:
    """``identify ARGV`` PASSes; its JSON's judged fields hold, and every true 0 lies inside the intervals printed in
    the terminal and in identify.md.  Returns identify.json."""
    rc = main(["identify", *argv, "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert rc == 0 and "verdict: PASS" in out
    doc = json.loads((tmp_path / "identify.json").read_text())
    _assert_judged_fields(doc)
    _assert_true_zeros_inside_what_is_printed(out, doc)
    _assert_true_zeros_inside_what_is_printed((tmp_path / "identify.md").read_text(), doc)
    return doc


@pytest.mark.parametrize("argv", [["planar2r", "--duration", "1", "--no-optimise"],
                                  ["rp-polar", "--engine", "exact", "--duration", "1"]],
                         ids=["planar", "spatial"])
def test_a_true_zero_lies_inside_every_printed_interval(tmp_path, capsys, argv):
    doc = _identify_and_check(tmp_path, capsys, argv)
    html = (tmp_path / "identify.html").read_text()
    for p in doc["parameters"]:
        if p["true_zero"]:
            cells = re.search(rf"<tr><td>{re.escape(p['symbol'])}</td>(.*?)</tr>", html, re.S)
            assert cells is not None and "n/a (true 0)" in cells.group(1)
            for lo, hi, _ in INTERVAL.findall(cells.group(1)):
                assert float(lo) <= 0.0 <= float(hi)


def test_a_summary_row_gives_no_relative_error_against_true_zeros():
    res = identify(get_preset("planar2r"), None, optimise=False, duration=1.0)
    rows = {row[0]: row[1] for row in R.summary_rows(res)}
    assert "relative error" not in rows["viscous friction"] and "max absolute error" in rows["viscous friction"]
    assert "max relative error" in rows["first moment along the link"]
    assert "absolute" not in rows["first moment along the link"]


def test_a_true_value_outside_its_judged_interval_is_printed_outside():
    """The printed (judged) interval is what the verdict uses: move a true 0 beyond the allowance and the row is
    flagged, the verdict FAILs, and 0 lies outside the printed interval."""
    res = identify(get_preset("planar2r"), None, optimise=False, duration=1.0)
    k = res.base.symbols.index("b1")
    truth = res.truth.copy()
    truth[k] = 3 * res.allowances()[k] + 3 * abs(res.est.beta[k]) + 10 * res.est.stderr[k]
    moved = replace(res, truth=truth)
    assert moved.judgement()[0].value == "FAIL" and "b1" in moved.judgement()[1]
    row = _row("\n".join(R.table_lines(moved)), "b1")
    assert "OUTSIDE family-wise" in row and "n/a (true 0)" not in row
    assert all(not lo <= truth[k] <= hi for lo, hi, _ in _printed_intervals(row))
    # the same parameter at its true 0: inside, and the only difference is the allowance
    ok = _row("\n".join(R.table_lines(res)), "b1")
    assert all(lo <= 0.0 <= hi for lo, hi, _ in _printed_intervals(ok))
    assert np.all(res.judged_half_width(True) >= res.allowances())


@pytest.mark.slow   # about 8 s: a 6-joint URDF's 48 base parameters
def test_a_robot_files_true_zeros_lie_inside_what_is_printed(tmp_path, capsys):
    from robot_files import erd_ur5_urdf

    _identify_and_check(tmp_path, capsys, [str(erd_ur5_urdf()), "--engine", "exact", "--duration", "1"])
