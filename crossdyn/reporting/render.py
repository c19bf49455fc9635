"""The report's blocks rendered as Markdown (``report.md``) and as self-contained HTML (``report.html``): the
layout every crossdyn report shares, :mod:`crossdyn.pages` (level 1, so that ``check`` and ``identify``, a level
below this package, render through it too); re-exported here under the names the comparison report uses."""
from __future__ import annotations

from crossdyn.pages import (CSS, SCRIPT, VERDICT_WORDS, block_html, cell, contents, inline, needs_reader,
                            render_html, render_markdown, sections, slug)

__all__ = ["CSS", "SCRIPT", "VERDICT_WORDS", "block_html", "cell", "contents", "inline", "needs_reader",
           "render_html", "render_markdown", "sections", "slug"]
