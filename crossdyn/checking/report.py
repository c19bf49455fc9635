"""The report of a check: the terminal text, ``check.md`` and ``check.html`` of a
:class:`~crossdyn.checking.results.CheckResult` (and of a file that could not be used).

The same text is the failure message of the pytest fixture ``crossdyn_equations_match``.
"""
from __future__ import annotations

import html

def indent(text: str, pad: str) -> str:
    return "\n".join(pad + line if line else line for line in text.splitlines())


def _functions_line(result) -> str:
    n = result.n
    parts = []
    for role, sig in result.functions.items():
        if sig is None:
            parts.append(f"no {role}")
        elif role == "M":
            parts.append(f"{sig} -> {n}x{n} matrix")
        elif role == "C":
            parts.append(f"{sig} -> {n}x{n} matrix C (C qd = C @ qd)" if result.c_form == "matrix"
                         else f"{sig} -> {n}-vector, taken as C qd")
        else:
            parts.append(f"{sig} -> {n}-vector")
    return "; ".join(parts)


def _scope_line(result) -> str:
    k = result.random_params
    sets = "the arm's own parameters" if k == 0 else f"{k + 1} parameter sets (the arm's own + {k} random)"
    return (f"{result.states} random states x {sets}, seed {result.seed}; an entry is wrong when its error "
            f"exceeds {result.rtol:g} x the largest value of that quantity")


def _verdict_line(result) -> str:
    wrong = result.wrong
    checked = len(result.entries)
    failed = [s.name for s in result.structure if s.status == "failed"]
    if result.verdict == "correct":
        s = f"CORRECT: all {checked} checked entries match the analytic model"
        if any(s_.status == "note" for s_ in result.structure):
            s += " (see the notes)"
        return s
    parts = []
    if wrong:
        parts.append(f"{len(wrong)} entr{'y' if len(wrong) == 1 else 'ies'} wrong: "
                     + ", ".join(f.entry for f in wrong))
    if failed:
        parts.append("failed: " + ", ".join(failed))
    return "WRONG: " + "; ".join(parts)


def _finding_head(f) -> str:
    sets = f"wrong at {len(f.wrong_param_sets)} of {f.n_param_sets} parameter sets"
    if f.status == "note":
        sets = f"differs at {len(f.wrong_param_sets)} of {f.n_param_sets} parameter sets"
    entry = f"{f.entry} (= {f.mirror})" if f.mirror else f.entry
    rel = ("the expected value is 0" if f.max_rel_error is None else
           f"{100 * f.max_rel_error:.3g} % of the entry's largest value")
    head = f"{entry}: max error {f.max_abs_error:.4g} {f.unit} ({rel}), {sets}"
    where = f"worst at q = {_v(f.worst_q)}"
    if f.worst_qd is not None:
        where += f", qd = {_v(f.worst_qd)}"
    where += ", " + ("the arm's own parameters" if f.worst_param_set == 0 else
                     f"random parameter set {f.worst_param_set}")
    return head + "\n" + where


def _rel(x) -> str:
    return "n/a (expected 0)" if x is None else f"{x:.3g}"


def _v(x) -> str:
    return "[" + ", ".join(f"{v:.4g}" for v in x) + "]"


def _param_set_line(ps: dict) -> str:
    return (f"{ps['label']}: L = {_v(ps['L'])}, m = {_v(ps['m'])}, Lc = {_v(ps['Lc'])}, J = {_v(ps['J'])}")


def _mark(status: str) -> str:
    return {"ok": "ok", "failed": "FAILED", "note": "note", "skipped": "skipped"}[status]


def _explanation_lines(result) -> list[tuple[str, str]]:
    """(heading, text) per global explanation: one mistake that accounts for several wrong entries."""
    out = []
    for ex in result.explanations:
        entries = ex["entries"]
        what = f"{len(entries)} wrong entr{'y' if len(entries) == 1 else 'ies'} ({', '.join(entries)})"
        out.append((f"One mistake explains {what}:", ex["text"]))
    return out


def render_text(result) -> str:
    lines = [f"crossdyn check {result.arm} {result.file}",
             f"  your functions: {_functions_line(result)}",
             f"  compared at {_scope_line(result)}",
             *([f"  {result.params_note}"] if getattr(result, "params_note", "") else []),
             "",
             _verdict_line(result)]
    for ex_head, text in _explanation_lines(result):
        lines += ["", ex_head, f"  {text}"]
    wrong = [f for f in result.findings if f.status == "wrong" and f.explained_by is None]
    notes = [f for f in result.findings if f.status == "note" and f.explained_by is None]
    used_sets: set[int] = set()
    for group, title in ((wrong, None), (notes, "Your C matrix differs from the Christoffel one (not an error):")):
        if not group:
            continue
        lines.append("")
        if title:
            lines.append(title)
        for f in group:
            used_sets.update(k for k in (f.worst_param_set, f.terms_param_set) if k is not None)
            head = _finding_head(f).splitlines()
            lines.append(f"  {head[0]}")
            lines += [f"    {h}" for h in head[1:]]
            for m in f.messages:
                lines.append(f"    {m}")
    lines.append("")
    lines.append("Structure of your equations:")
    for s in result.structure:
        lines.append(f"  {_mark(s.status):8s}{s.name}: {s.message}")
    if result.hints:
        lines.append("")
        lines.append("Hints:")
        lines += [f"  - {h}" for h in result.hints]
    if result.notes:
        lines.append("")
        lines.append("Notes:")
        lines += [f"  - {n}" for n in result.notes]
    used_sets.update(s.details["param_set"] for s in result.structure if "param_set" in s.details)
    used_sets.discard(0)
    if used_sets:
        lines.append("")
        lines.append("Parameter sets named above:")
        for k in sorted(used_sets)[:8]:
            lines.append(f"  {_param_set_line(result.param_sets[k])}")
    lines.append("")
    lines.append(f"verdict: {result.status.value} ({checks_line(result.checks)})")
    lines.append(f"checked in {result.runtime_s:.2f} s; exit code {result.exit_code}")
    return "\n".join(lines)


def checks_line(checks: dict) -> str:
    """``"2405 checks: M 800, C 800, Cqd 400, G 400 values compared (entries × states × parameter sets), 5
    structural"``: what the verdict rests on."""
    values = {k: v for k, v in checks.items() if k not in ("structure", "total")}
    total = checks.get("total", sum(checks.values()))
    return (f"{total} checks: " + ", ".join(f"{k} {v}" for k, v in values.items())
            + " values compared (entries x states x parameter sets), "
            + f"{checks.get('structure', 0)} structural")


def render_markdown(result) -> str:
    out = [f"# crossdyn check: `{result.file}` against `{result.arm}`", "",
           f"**{_verdict_line(result)}** (exit code {result.exit_code})", "",
           f"verdict: **{result.status.value}** ({checks_line(result.checks)})", "",
           f"- your functions: {_functions_line(result)}",
           f"- compared at {_scope_line(result)}",
           *([f"- {result.params_note}"] if getattr(result, "params_note", "") else []),
           f"- checked in {result.runtime_s:.2f} s", ""]
    for ex_head, text in _explanation_lines(result):
        out += [f"## {ex_head.rstrip(':')}", "", text, ""]
    for status, title in (("wrong", "Wrong entries"), ("note", "Notes on your C matrix (not errors)")):
        group = [f for f in result.findings if f.status == status and f.explained_by is None]
        if not group:
            continue
        out += [f"## {title}", ""]
        for f in group:
            head = _finding_head(f).splitlines()
            out += [f"### {head[0].split(': ', 1)[0]}", "", head[0].split(": ", 1)[1] + "; " + head[1], ""]
            out += [f"- {m.strip()}" for m in f.messages]
            out.append("")
    out += ["## Structure of your equations", "", "| check | result | details |", "|---|---|---|"]
    for s in result.structure:
        out.append(f"| {s.name} | {_mark(s.status)} | {s.message.replace('|', chr(92) + '|')} |")
    out.append("")
    if result.hints:
        out += ["## Hints", ""] + [f"- {h}" for h in result.hints] + [""]
    if result.notes:
        out += ["## Notes", ""] + [f"- {n}" for n in result.notes] + [""]
    out += ["## Every entry", "", "| entry | result | max abs error | max rel error |", "|---|---|---|---|"]
    for e in result.entries:
        out.append(f"| {e['entry']} | {'ok' if e['ok'] else 'differs'} | {e['max_abs_error']:.3g} | "
                   f"{_rel(e['max_rel_error'])} |")
    out += ["", "## Parameter sets", ""]
    out += [f"- {_param_set_line(ps)}" for ps in result.param_sets]
    return "\n".join(out) + "\n"


_CSS = ("body{font-family:system-ui,sans-serif;max-width:72rem;margin:2rem auto;padding:0 1rem;line-height:1.4}"
        "table{border-collapse:collapse;margin:.5rem 0}td,th{border:1px solid #ccc;padding:.25rem .5rem;"
        "text-align:left;vertical-align:top}.ok{color:#176f2c}.wrong,.FAILED{color:#b00020;font-weight:600}"
        ".note{color:#8a5a00}code,pre{background:#f4f4f4;padding:.1rem .3rem}")


def render_html(result) -> str:
    e = html.escape
    cls = "ok" if result.verdict == "correct" else "wrong"
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>crossdyn check: {e(result.file)}</title>"
             f"<style>{_CSS}</style></head><body>",
             f"<h1>crossdyn check: <code>{e(result.file)}</code> against <code>{e(result.arm)}</code></h1>",
             f"<p class='{cls}'>{e(_verdict_line(result))} (exit code {result.exit_code})</p>",
             f"<ul><li>your functions: {e(_functions_line(result))}</li><li>compared at {e(_scope_line(result))}</li>"
             + (f"<li>{e(result.params_note)}</li>" if getattr(result, "params_note", "") else "")
             + f"<li>checked in {result.runtime_s:.2f} s</li>"
             + f"<li>verdict: <b>{result.status.value}</b> ({e(checks_line(result.checks))})</li></ul>"]
    for ex_head, text in _explanation_lines(result):
        parts.append(f"<h2 class='wrong'>{e(ex_head.rstrip(':'))}</h2><p>{e(text)}</p>")
    for status, title in (("wrong", "Wrong entries"), ("note", "Notes on your C matrix (not errors)")):
        group = [f for f in result.findings if f.status == status and f.explained_by is None]
        if not group:
            continue
        parts.append(f"<h2>{e(title)}</h2>")
        for f in group:
            head = _finding_head(f).splitlines()
            parts.append(f"<h3 class='{status}'>{e(head[0].split(': ', 1)[0])}</h3><p>{e(head[0].split(': ', 1)[1])}; "
                         f"{e(head[1])}</p>")
            if f.terms:
                parts.append("<table><tr><th>term</th><th>your coefficient</th><th>expected</th>"
                             "<th>difference across parameter sets</th></tr>")
                for t in f.terms:
                    diff = t.difference or ""
                    if t.reading:
                        diff = (diff + ": " if diff else "") + t.reading
                    parts.append(f"<tr><td><code>{e(t.term)}</code></td><td>{t.found:.6g}</td><td>{t.expected:.6g}"
                                 f"</td><td>{e(diff)}</td></tr>")
                parts.append("</table>")
            parts.append("<ul>" + "".join(f"<li>{e(m.strip())}</li>" for m in f.messages) + "</ul>")
    parts.append("<h2>Structure of your equations</h2><table><tr><th>check</th><th>result</th><th>details</th></tr>")
    for s in result.structure:
        parts.append(f"<tr><td>{e(s.name)}</td><td class='{_mark(s.status)}'>{_mark(s.status)}</td>"
                     f"<td>{e(s.message)}</td></tr>")
    parts.append("</table>")
    for title, items in (("Hints", result.hints), ("Notes", result.notes)):
        if items:
            parts.append(f"<h2>{title}</h2><ul>" + "".join(f"<li>{e(i)}</li>" for i in items) + "</ul>")
    parts.append("<h2>Every entry</h2><table><tr><th>entry</th><th>result</th><th>max abs error</th>"
                 "<th>max rel error</th></tr>")
    for x in result.entries:
        c = "ok" if x["ok"] else "wrong"
        parts.append(f"<tr><td>{e(x['entry'])}</td><td class='{c}'>{'ok' if x['ok'] else 'differs'}</td>"
                     f"<td>{x['max_abs_error']:.3g}</td><td>{_rel(x['max_rel_error'])}</td></tr>")
    parts.append("</table><h2>Parameter sets</h2><ul>")
    parts += [f"<li>{e(_param_set_line(ps))}</li>" for ps in result.param_sets]
    parts.append("</ul></body></html>")
    return "\n".join(parts) + "\n"


def render_unusable_markdown(data: dict) -> str:
    out = [f"# crossdyn check: `{data['file']}` against `{data['arm']}`", "",
           ("**The file could not be judged: it did not return in time** (INCONCLUSIVE, exit code 3)."
            if data.get("timeout") else "**The file cannot be used** (exit code 2)."), "", data["error"], ""]
    if data.get("where"):
        out += [data["where"], ""]
    if data.get("user_traceback"):
        out += ["```", data["user_traceback"].rstrip(), "```", ""]
    return "\n".join(out)


def render_unusable_html(data: dict) -> str:
    e = html.escape
    tb = f"<pre>{e(data['user_traceback'])}</pre>" if data.get("user_traceback") else ""
    where = f"<p>{e(data['where'])}</p>" if data.get("where") else ""
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>crossdyn check: {e(data['file'])}</title>"
            f"<style>{_CSS}</style></head><body><h1>crossdyn check: <code>{e(data['file'])}</code> against "
            f"<code>{e(data['arm'])}</code></h1><p class='wrong'>"
            + ("The file could not be judged: it did not return in time (INCONCLUSIVE, exit code 3)."
               if data.get("timeout") else "The file cannot be used (exit code 2).") + "</p>"
            f"<p>{e(data['error'])}</p>{where}{tb}</body></html>\n")
