"""A report as a list of blocks, rendered as Markdown and as one self-contained HTML page (images embedded as
base64 data URIs): the page layout every crossdyn report shares (``compare``'s ``report.html``, ``check``'s
``check.html``, ``identify``'s ``identify.html``).

Blocks: ``("h", level, text)`` (a level-2 heading may carry a fourth element, :data:`FOLDED`), ``("p", text)``
(Markdown: ``**strong**``, ``*emphasis*``), ``("table", header, rows)``, ``("img", file, caption)``,
``("pre", text)`` (preformatted, e.g. a traceback) and ``("ul", items)`` (a bulleted list).

Both renderings open with a table of contents linking every level-2 section (ids as GitHub makes them from the
heading: :func:`slug`).  In HTML each section is a ``<section>``, or a ``<details>`` collapsed for a heading marked
:data:`FOLDED` (open where it holds a FAIL or an INCONCLUSIVE, and when a link points into it); tables and
preformatted text scroll sideways in their own box and images shrink to the page, so that the page itself never
scrolls sideways, down to a phone's 390 px.

Level 1 (no crossdyn import): the judging packages (level 8) and the comparison report (level 9) all render
through it.
"""
from __future__ import annotations

import base64
import html
import re

FOLDED = "details"
"""The fourth element of a level-2 heading whose section is collapsed in HTML (:func:`folded`)."""


def folded(blocks: list[tuple]) -> list[tuple]:
    """``blocks`` with each level-2 heading marked :data:`FOLDED` (the Markdown is unchanged)."""
    return [(b[0], b[1], b[2], FOLDED) if b[0] == "h" and b[1] == 2 else b for b in blocks]


VERDICT_WORDS = ("PASS", "FAIL", "INCONCLUSIVE", "NOT EXERCISED")
"""A table cell that starts with one of these is coloured by it (CSS class of the same name)."""

CSS = ("body{font-family:sans-serif;max-width:1100px;margin:1.5em auto;padding:0 1em;line-height:1.4}"
       "h1,h2,p,li,figcaption,summary{overflow-wrap:anywhere}"
       ".scroll{overflow-x:auto;max-width:100%;margin:.5em 0 1.2em}"
       "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:3px 8px;font-size:13px;"
       "vertical-align:top}th{background:#f3f3f3}img{max-width:100%;height:auto}figure{margin:1em 0}"
       "td.PASS,td.FAIL,td.INCONCLUSIVE{white-space:nowrap}.PASS{color:#080;font-weight:bold}.FAIL{color:#b00;font-weight:bold}"
       ".INCONCLUSIVE{color:#a60;font-weight:bold}.NOT_EXERCISED{color:#555;font-weight:bold}nav.toc{background:#f7f7f7;padding:.4em 1em;margin:1em 0}"
       "nav.toc ol{display:flex;flex-wrap:wrap;gap:.1em 1.4em;list-style:none;margin:.3em 0;padding:0}details{border-top:1px solid #ddd;padding:.2em 0}"
       "summary{cursor:pointer}summary h2{display:inline;font-size:1.2em}pre{background:#f4f4f4;padding:.4em}"
       # on a phone a verdict cell's figure may wrap, so that a summary table fits the screen
       "@media (max-width:600px){td.PASS,td.FAIL,td.INCONCLUSIVE{white-space:normal;min-width:9em}}")

SCRIPT = ("<script>function openTarget(){const t=document.getElementById(decodeURIComponent(location.hash.slice(1)));"
          "if(t&&t.tagName==='DETAILS'){t.open=true;}}window.addEventListener('hashchange',openTarget);openTarget();"
          # a browser marks how many embedded images decoded, and whether the page is wider than the window
          # (read by the tests through headless Chromium)
          "window.addEventListener('load',()=>{const imgs=[...document.images];document.body.dataset.imagesLoaded="
          "imgs.filter(i=>i.complete&&i.naturalWidth>0).length+'/'+imgs.length;document.body.dataset.layout="
          "document.documentElement.scrollWidth+'/'+window.innerWidth;});</script>")


def slug(text: str, taken: set[str] | None = None) -> str:
    """A heading's anchor as GitHub writes it: lower case, punctuation dropped (letters of any script, digits,
    ``-`` and ``_`` kept), spaces as ``-``; ``-1``, ``-2`` … appended to a repeat (``taken``, updated)."""
    base = re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")
    out, k = base, 0
    while taken is not None and out in taken:
        k += 1
        out = f"{base}-{k}"
    if taken is not None:
        taken.add(out)
    return out


def contents(blocks) -> list[tuple[str, str]]:
    """(anchor, heading) of every level-2 section, in order."""
    taken: set[str] = set()
    return [(slug(b[2], taken), b[2]) for b in blocks if b[0] == "h" and b[1] == 2]


def render_markdown(blocks) -> str:
    """Markdown: the title, a contents list, then headings, paragraphs, pipe tables (``|`` in a cell escaped),
    images by file name, fenced preformatted text, bulleted lists."""
    out = []
    for i, blk in enumerate(blocks):
        if blk[0] == "h":
            out.append("#" * blk[1] + " " + blk[2])
        elif blk[0] == "p":
            out.append(blk[1])
        elif blk[0] == "table":
            header, rows = blk[1], blk[2]
            out.append("| " + " | ".join(str(h).replace("|", "\\|") for h in header) + " |")
            out.append("|" + "---|" * len(header))
            for r in rows:
                out.append("| " + " | ".join(str(c).replace("|", "\\|") for c in r) + " |")
        elif blk[0] == "img":
            out.append(f"![{blk[2]}]({blk[1]})")
        elif blk[0] == "pre":
            out += ["```", blk[1].rstrip("\n"), "```"]
        elif blk[0] == "ul":
            out += [f"- {item}" for item in blk[1]]
        out.append("")
        if i == 0 and blk[0] == "h" and blk[1] == 1:
            out += ["Contents: " + " · ".join(f"[{h}](#{a})" for a, h in contents(blocks)), ""]
    return "\n".join(out)


def inline(text: str) -> str:
    """A paragraph's Markdown as HTML: escaped, ``**strong**`` and ``*emphasis*`` (an asterisk between word
    characters, as in ``b*qd``, stays an asterisk)."""
    t = html.escape(text)
    t = re.sub(r"\*\*(\S(?:.*?\S)?)\*\*", r"<strong>\1</strong>", t)
    return re.sub(r"(?<![\w*])\*(\S(?:[^*]*?\S)?)\*(?![\w*])", r"<em>\1</em>", t)


def cell(value) -> str:
    """A table cell, coloured when it starts with a verdict word (:data:`VERDICT_WORDS`); a summary cell
    ``PASS (3001 checks), 2.45e-10 rad`` on two lines that do not wrap (the verdict, then the figure)."""
    text = str(value)
    word = re.match(r"NOT EXERCISED|[A-Z]+", text)
    if not (word and word.group(0) in VERDICT_WORDS):
        return f"<td>{html.escape(text)}</td>"
    two = re.match(r"(.*? checks?\)), (.*)$", text)
    inner = f"{html.escape(two.group(1))}<br>{html.escape(two.group(2))}" if two else html.escape(text)
    return f'<td class="{word.group(0).replace(" ", "_")}">{inner}</td>'


def block_html(blk, images: dict[str, bytes]) -> str:
    """One block as HTML ("" for an image whose file is not in ``images``); a table, and preformatted text, in a
    sideways-scrolling box."""
    if blk[0] == "h":
        return f"<h{blk[1]}>{html.escape(blk[2])}</h{blk[1]}>"
    if blk[0] == "p":
        return f"<p>{inline(blk[1])}</p>"
    if blk[0] == "table":
        head = "<tr>" + "".join(f"<th>{html.escape(str(h))}</th>" for h in blk[1]) + "</tr>"
        body = "".join("<tr>" + "".join(cell(c) for c in r) + "</tr>" for r in blk[2])
        return f'<div class="scroll"><table>{head}{body}</table></div>'
    if blk[0] == "pre":
        return f'<pre class="scroll">{html.escape(blk[1])}</pre>'
    if blk[0] == "ul":
        return "<ul>" + "".join(f"<li>{inline(item)}</li>" for item in blk[1]) + "</ul>"
    if blk[0] == "img" and blk[1] in images:
        mime = "image/gif" if blk[1].endswith(".gif") else "image/png"
        b64 = base64.b64encode(images[blk[1]]).decode("ascii")
        return (f'<figure><img alt="{html.escape(blk[2])}" src="data:{mime};base64,{b64}">'
                f"<figcaption>{html.escape(blk[2])}</figcaption></figure>")
    return ""


def sections(blocks) -> tuple[list, list[tuple[tuple, list]]]:
    """The blocks before the first level-2 heading, and each level-2 heading with the blocks under it."""
    head: list = []
    out: list[tuple[tuple, list]] = []
    for blk in blocks:
        if blk[0] == "h" and blk[1] == 2:
            out.append((blk, []))
        elif out:
            out[-1][1].append(blk)
        else:
            head.append(blk)
    return head, out


def needs_reader(body) -> bool:
    """Whether a section says FAIL or INCONCLUSIVE somewhere (a collapsed one is then shown open)."""
    words = re.compile(r"\b(FAIL|INCONCLUSIVE)\b")
    return any(words.search(b[1]) if b[0] in ("p", "pre") else b[0] == "table" and any(
        words.search(str(c)) for r in b[2] for c in r) or b[0] == "ul" and any(words.search(i) for i in b[1])
        for b in body)


def render_html(blocks, images: dict[str, bytes]) -> str:
    """One HTML page: the first block (the title) as its title, the blocks before the first section, a table of
    contents, then each section (:func:`sections`) with its id, collapsed ones as ``<details>``; PASS/FAIL/
    INCONCLUSIVE cells coloured, ``images`` (file → bytes) embedded; an image block whose file is not in
    ``images`` is left out."""
    head, secs = sections(blocks)
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           f"<title>{html.escape(blocks[0][2])}</title><style>{CSS}</style></head><body>"]
    out += [block_html(blk, images) for blk in head]
    anchors = contents(blocks)
    out.append('<nav class="toc"><strong>Contents</strong><ol>' + "".join(
        f'<li><a href="#{a}">{html.escape(h)}</a></li>' for a, h in anchors) + "</ol></nav>")
    for (anchor, _), (h, body) in zip(anchors, secs, strict=True):
        inner = "\n".join(x for x in (block_html(b, images) for b in body) if x)
        if len(h) > 3 and h[3] == FOLDED:
            state = " open" if needs_reader(body) else ""
            out.append(f'<details id="{anchor}"{state}><summary><h2>{html.escape(h[2])}</h2></summary>\n{inner}\n'
                       "</details>")
        else:
            out.append(f'<section id="{anchor}"><h2>{html.escape(h[2])}</h2>\n{inner}\n</section>')
    out.append(SCRIPT)
    out.append("</body></html>")
    return "\n".join(out) + "\n"
