"""The check and identify reports in the layout every crossdyn report shares (crossdyn.pages): the verdict and a
one-screen summary table first, the plots, then the details collapsed, a table of contents linking every section;
the summary's cells agree with the documents (check.json, identify.json); in headless Chromium at a desktop's and a
phone's width the page never scrolls sideways and every image loads (tests/browser_probe.py)."""
from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest

from browser_probe import VIEWPORT_IDS, VIEWPORTS, assert_fits, measure
from crossdyn.cli import main

FILES = Path(__file__).parent / "check_files"
CHECK = ["--states", "100", "--random-params", "3"]


@pytest.fixture(scope="module")
def wrong_check(tmp_path_factory):
    """A check of textbook_3r.py with one wrong term in M13 (wrong entries, failed structural checks)."""
    tmp = tmp_path_factory.mktemp("check")
    f = tmp / "m13.py"
    f.write_text((FILES / "textbook_3r.py").read_text().replace(
        "m13 = p.J3 + m3 * (Lc3**2 + L1 * Lc3 * c23", "m13 = p.J3 + m3 * (Lc3**2 + L1 * c23"))
    assert main(["check", "planar3r-general", str(f), *CHECK, "--quiet", "--out", str(tmp / "out")]) == 1
    return tmp / "out"


@pytest.fixture(scope="module")
def failed_identification(tmp_path_factory):
    """An identification from a damped PyBullet (link damping crossdyn's model does not have): FAIL."""
    out = tmp_path_factory.mktemp("identify") / "out"
    assert main(["identify", "planar2r", "--engine", "pybullet@link_damping=0.04", "--no-optimise", "--duration",
                 "2", "--quiet", "--out", str(out)]) == 1
    return out


def sections_in_order(page: str) -> list[str]:
    """The ids of the page's sections, in order, each marked ``details`` when collapsed."""
    return [(f"{i}(details)" if tag == "details" else i)
            for tag, i in re.findall(r'<(section|details) id="([^"]+)"', page)]


def contents_links(page: str) -> list[str]:
    nav = page[page.index('<nav class="toc">'):page.index("</nav>")]
    return re.findall(r'href="#([^"]+)"', nav)


def summary_table(md: str) -> dict[str, list[str]]:
    """The Markdown summary table's rows by their first cell."""
    part = md[md.index("## Summary"):]
    part = part[:part.index("\n## ", 3)]
    rows = [[c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]] for line in part.splitlines()
            if line.startswith("|") and not line.startswith("|---")]
    return {r[0]: r[1:] for r in rows[1:]}


def test_check_report_opens_with_the_verdict_and_a_summary_that_agrees_with_check_json(wrong_check):
    data = json.loads((wrong_check / "check.json").read_text())
    page, md = (wrong_check / "check.html").read_text(), (wrong_check / "check.md").read_text()
    body = page[page.index("<body>"):]
    assert body.index("— FAIL</h1>") < body.index("Verdict: FAIL.") < body.index('<nav class="toc">') < body.index(
        'id="summary"')
    assert sections_in_order(page) == ["summary", "wrong-entries", "structure-of-your-equations(details)",
                                       "every-entry(details)", "parameter-sets(details)", "run-settings(details)"]
    assert contents_links(page) == [s.removesuffix("(details)") for s in sections_in_order(page)]
    # the structural checks failed: their collapsed section is shown open
    assert '<details id="structure-of-your-equations" open>' in page and '<details id="every-entry">' in page
    rows = summary_table(md)
    for quantity, name in (("M", "M(q)"), ("C", "C(q, qd) as a matrix"), ("Cqd", "C(q, qd) qd"), ("G", "G(q)")):
        wrong = [f["entry"] for f in data["findings"] if f["quantity"] == quantity and f["status"] == "wrong"]
        worst = max(e["max_abs_error"] for e in data["entries"] if e["quantity"] == quantity)
        cell = rows[name][0]
        assert cell.startswith(f"{'FAIL' if wrong else 'PASS'} ({data['checks'][quantity]} checks), max error "), cell
        assert float(cell.split("max error ")[1].split()[0]) == pytest.approx(worst, rel=0.05)   # 2 digits
    assert rows["M(q)"][1] == "M13 wrong"
    for s in data["structure"]:
        word = {"ok": "PASS", "failed": "FAIL", "note": "PASS"}[s["status"]]
        assert rows[s["name"]][0].startswith(f"{word} (1 check), "), rows[s["name"]]
    assert sum(1 for r in rows.values() if r[0].startswith(("PASS", "FAIL"))) == 4 + data["checks"]["structure"]


def test_identify_report_opens_with_the_verdict_then_summary_then_plots(failed_identification):
    data = json.loads((failed_identification / "identify.json").read_text())
    page = (failed_identification / "identify.html").read_text()
    md = (failed_identification / "identify.md").read_text()
    body = page[page.index("<body>"):]
    assert body.index("— FAIL</h1>") < body.index('<nav class="toc">') < body.index('id="summary"') < body.index(
        'id="plots"') < body.index("<img")
    assert sections_in_order(page) == ["summary", "plots", "parameters(details)", "validation(details)",
                                       "run(details)"]
    assert contents_links(page) == [s.removesuffix("(details)") for s in sections_in_order(page)]
    assert '<details id="parameters" open>' in page    # a true value outside its interval: shown open
    rows = summary_table(md)
    params = {p["symbol"]: p for p in data["parameters"]}
    groups = [r for name, r in rows.items() if not name.startswith("validation")]
    assert sorted(s for r in groups for s in r[1].split(";")[0].split(", ")) == sorted(params)
    for r in groups:
        members = [params[s] for s in r[1].split(";")[0].split(", ")]
        failed = not all(p["inside_familywise_interval"] for p in members)
        zero = all(p["true_zero"] for p in members)     # no relative error against a true 0 (issue 40)
        kind = ("true values 0: max absolute error " if zero else "max relative error ")
        assert r[0].startswith(f"{'FAIL' if failed else 'PASS'} ({len(members)} checks), {kind}")
        err = float(r[0].rsplit(" ", 1)[1])
        assert err == pytest.approx(max(p["absolute_error" if zero else "relative_error"] for p in members), rel=0.05)
    for j in (1, 2):
        cell = rows[f"validation, joint {j}"][0]
        rms = data["validation_rms"][f"joint{j}"]
        word = "PASS" if rms <= data["validation_tolerance"] else "FAIL"
        assert cell.startswith(f"{word} ({data['checks']['validation_torque_values'] // 2} checks)"), cell
        assert float(cell.rsplit(" ", 1)[1]) == pytest.approx(rms, rel=0.05)


@pytest.mark.parametrize("width, height", VIEWPORTS, ids=VIEWPORT_IDS)
def test_check_report_fits_a_desktop_and_a_phone_in_a_real_browser(wrong_check, width, height, tmp_path):
    assert_fits(measure((wrong_check / "check.html").read_text(), width, height, tmp_path), width, images=0)


@pytest.mark.parametrize("width, height", VIEWPORTS, ids=VIEWPORT_IDS)
def test_identify_report_fits_a_desktop_and_a_phone_and_its_images_load(failed_identification, width, height,
                                                                         tmp_path):
    found = measure((failed_identification / "identify.html").read_text(), width, height, tmp_path)
    assert_fits(found, width, images=2)


def test_the_check_report_states_the_isolation_the_file_ran_in(tmp_path):
    """Issue 29: the report, like the terminal and check.json, states the sandbox in force."""
    from crossdyn.cli import main

    out = tmp_path / "c"
    assert main(["check", "planar2r", str(FILES.parent.parent / "examples/check/my_2r.py"), "--states", "20",
                 "--random-params", "1",
                 "--quiet", "--out", str(out)]) == 0
    stated = json.loads((out / "check.json").read_text())["sandbox"]
    assert stated
    for page in ("check.md", "check.html"):     # the page's text as a reader sees it (HTML: "file&#x27;s")
        assert f"Isolation (the sandbox your file ran in): {stated}." in html.unescape((out / page).read_text())
