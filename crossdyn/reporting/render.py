"""The report's blocks rendered as Markdown (``report.md``) and as self-contained HTML (``report.html``, images
embedded as base64 data URIs)."""
from __future__ import annotations

import base64
import html


def render_markdown(blocks) -> str:
    """Markdown: headings, paragraphs, pipe tables (``|`` in a cell escaped), images by file name."""
    out = []
    for blk in blocks:
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
        out.append("")
    return "\n".join(out)


def render_html(blocks, images: dict[str, bytes]) -> str:
    """One HTML page: the first block (the title) as its title, PASS/FAIL cells coloured, ``images`` (file →
    bytes) embedded; an image block whose file is not in ``images`` is left out."""
    css = ("body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em}"
           "table{border-collapse:collapse;margin:.5em 0 1.2em}td,th{border:1px solid #ccc;padding:3px 8px;"
           "font-size:13px}th{background:#f3f3f3}td:last-child{font-weight:bold}img{max-width:100%}"
           ".PASS{color:#080}.FAIL{color:#b00}")
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           f"<title>{html.escape(blocks[0][2])}</title><style>{css}</style></head><body>"]
    for blk in blocks:
        if blk[0] == "h":
            out.append(f"<h{blk[1]}>{html.escape(blk[2])}</h{blk[1]}>")
        elif blk[0] == "p":
            out.append(f"<p>{html.escape(blk[1]).replace('**', '')}</p>")
        elif blk[0] == "table":
            out.append("<table><tr>" + "".join(f"<th>{html.escape(str(h))}</th>" for h in blk[1]) + "</tr>")
            for r in blk[2]:
                out.append("<tr>" + "".join(f'<td class="{html.escape(str(c))}">{html.escape(str(c))}</td>' for c in r)
                           + "</tr>")
            out.append("</table>")
        elif blk[0] == "img":
            data = images.get(blk[1])
            if data is None:
                continue
            mime = "image/gif" if blk[1].endswith(".gif") else "image/png"
            b64 = base64.b64encode(data).decode("ascii")
            out.append(f'<figure><img alt="{html.escape(blk[2])}" src="data:{mime};base64,{b64}">'
                       f"<figcaption>{html.escape(blk[2])}</figcaption></figure>")
    # a browser marks how many embedded images decoded (read by the tests through headless Chromium)
    out.append("<script>window.addEventListener('load', () => { const imgs = [...document.images]; "
               "document.body.dataset.imagesLoaded = imgs.filter(i => i.complete && i.naturalWidth > 0).length "
               "+ '/' + imgs.length; });</script>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"
