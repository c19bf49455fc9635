"""A report page measured in headless Chromium at a given viewport width: how many of its images decoded, and
whether the page is wider than the window (document ``scrollWidth`` against ``innerWidth``), as shipped and with
every collapsed section opened.  Used by the browser tests of the compare, check and identify reports."""
from __future__ import annotations

import html
import re
import shutil
import subprocess
from pathlib import Path

import pytest

VIEWPORTS = [(1366, 900), (390, 844)]
"""A desktop's and a phone's viewport (width, height) in CSS px."""
VIEWPORT_IDS = ["desktop", "phone"]


def chromium() -> str:
    """The browser's path; the test skips, saying why, where there is none."""
    browser = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if browser is None:
        pytest.skip("no Chromium on this machine (looked for chromium, chromium-browser, google-chrome); the "
                    "layout and the images in a browser are not checked")
    return browser


def viewport_probe(report_html: str, width: int, height: int) -> str:
    """A page showing the report in a ``width`` × ``height`` px frame (headless Chromium keeps its window at least
    500 px wide, so a phone's 390 px is a frame's), which copies the report's own measurements (images decoded,
    scrollWidth/innerWidth) onto its body, then opens every collapsed section and measures again: a wide table
    inside one must scroll in its own box too."""
    return ("<!DOCTYPE html><html><body style='margin:0'>"
            f"<iframe id='f' style='width:{width}px;height:{height}px;border:0' "
            f'srcdoc="{html.escape(report_html, quote=True)}"></iframe><script>'
            "const f = document.getElementById('f');"
            "function probe() { const d = f.contentDocument, b = document.body.dataset;"
            "  b.imagesLoaded = d.body.dataset.imagesLoaded; b.layout = d.body.dataset.layout;"
            "  d.querySelectorAll('details').forEach(x => { x.open = true; });"
            "  b.openLayout = d.documentElement.scrollWidth + '/' + f.contentWindow.innerWidth; }"
            "if (f.contentDocument && f.contentDocument.body && f.contentDocument.body.dataset.layout) probe();"
            "else f.addEventListener('load', probe);</script></body></html>")


def measure(report_html: str, width: int, height: int, tmp_path) -> dict[str, str]:
    """The probe's body attributes after Chromium loaded the report in a ``width`` px frame: ``data-images-loaded``
    (decoded/all), ``data-layout`` and ``data-open-layout`` (scrollWidth/innerWidth)."""
    return dump_body(viewport_probe(report_html, width, height), width, height, tmp_path)


def dump_body(probe_html: str, width: int, height: int, tmp_path) -> dict[str, str]:
    """The ``data-*`` attributes of ``probe_html``'s body after headless Chromium ran its scripts in a window of
    ``width`` (at least 500) × ``height`` px, and the body tag itself (``body``)."""
    page = tmp_path / "probe.html"
    page.write_text(probe_html)
    dom = subprocess.run(
        [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
         f"--window-size={max(width, 500) + 40},{height + 40}", f"--user-data-dir={tmp_path / 'profile'}",
         "--virtual-time-budget=5000", "--dump-dom", page.as_uri()],
        capture_output=True, text=True, timeout=120).stdout
    body = dom[dom.index("<body"):dom.index(">", dom.index("<body"))]
    return dict(re.findall(r'(data-[a-z-]+)="([^"]*)"', body)) | {"body": body}


def assert_fits(found: dict[str, str], width: int, images: int) -> None:
    """Every one of ``images`` images decoded, and the page no wider than the ``width`` px viewport, as shipped and
    with every collapsed section open."""
    assert found.get("data-images-loaded") == f"{images}/{images}", found["body"]
    for attribute in ("data-layout", "data-open-layout"):
        assert re.fullmatch(r"\d+/\d+", found.get(attribute, "")), (attribute, found["body"])
        scroll_width, inner_width = map(int, found[attribute].split("/"))
        assert inner_width == width and scroll_width <= inner_width, (attribute, scroll_width, inner_width)


CODE_PROBE = ("<script>window.addEventListener('load', () => {"
              " const wide = [...document.querySelectorAll('pre')].filter(p => p.scrollWidth > p.clientWidth)"
              "   .map(p => p.scrollWidth + '>' + p.clientWidth + ': ' + p.textContent.split('\\n')[0].slice(0, 60));"
              " const b = document.body.dataset; b.pres = document.querySelectorAll('pre').length;"
              " b.innerWidth = window.innerWidth; b.pageLayout = document.documentElement.scrollWidth + '/' + innerWidth;"
              " b.wide = JSON.stringify(wide); });</script>")


def code_blocks(pages: list[Path], width: int, height: int, tmp_path) -> dict[Path, dict[str, str]]:
    """Built docs pages, each in Chromium at a ``width`` × ``height`` window (one browser per page, all at once):
    per page ``data-pres`` (how many ``pre`` blocks), ``data-wide`` (a JSON list of those whose ``scrollWidth``
    exceeds their ``clientWidth``, i.e. that scroll sideways: widths and first line), ``data-inner-width`` and
    ``data-page-layout`` (scrollWidth/innerWidth).

    The probe script is added to a copy of each page written next to it, so its stylesheets and images load."""
    browser, runs = chromium(), {}
    for k, page in enumerate(pages):
        probe = page.with_name(f"_probe_{page.name}")
        probe.write_text(page.read_text(encoding="utf-8").replace("</body>", CODE_PROBE + "</body>", 1),
                         encoding="utf-8")
        runs[page] = (probe, subprocess.Popen(
            [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
             f"--window-size={width},{height}", f"--user-data-dir={tmp_path / f'profile{k}'}",
             "--virtual-time-budget=5000", "--dump-dom", probe.as_uri()],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True))
    found = {}
    for page, (probe, proc) in runs.items():
        dom = proc.communicate(timeout=120)[0]
        probe.unlink()
        body = dom[dom.index("<body"):dom.index(">", dom.index("<body"))]
        found[page] = {k: html.unescape(v) for k, v in re.findall(r'(data-[a-z-]+)="([^"]*)"', body)} | {"body": body}
    return found
