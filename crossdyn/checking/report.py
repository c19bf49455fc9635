"""The report of a check: the terminal text, ``check.md`` and ``check.html`` of a
:class:`~crossdyn.checking.results.CheckResult` (and of a file that could not be used).

The same text is the failure message of the pytest fixture ``crossdyn_equations_match``.  ``check.md`` and
``check.html`` are the blocks of :func:`report_blocks` rendered by :mod:`crossdyn.pages`, the page layout every
crossdyn report shares: the verdict, a summary table (per quantity and per structural check), the diagnosis, then
the details collapsed.
"""
from __future__ import annotations

from crossdyn import pages
from crossdyn.pages import folded


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
        quantities = {f.quantity for f in wrong}
        parts.append("failed: " + ", ".join(_follows(name, quantities) for name in failed))
    return "WRONG: " + "; ".join(parts)


STRUCTURE_READS = {"M symmetric": ("M",), "M positive definite": ("M",), "Mdot - 2C skew-symmetric": ("M", "C"),
                   "C is the Christoffel matrix": ("M", "C"), "energy conserved in free motion": ("M", "C", "G"),
                   "energy: power balance": ("M", "C"), "energy: G is a gradient": ("G",)}
"""The quantities each structural check reads (C: the C matrix or C q̇)."""


def _follows(check: str, wrong: set[str]) -> str:
    """``check``, with "(follows from the wrong G)" when a quantity it reads has wrong entries: not a second
    mistake."""
    names = [q for q in STRUCTURE_READS.get(check, ()) if q in wrong or (q == "C" and "Cqd" in wrong)]
    listed = " and ".join(names) if len(names) < 3 else ", ".join(names[:-1]) + " and " + names[-1]
    return f"{check} (follows from the wrong {listed})" if names else check


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
    if "values" in ps:       # a spatial arm's set: its general parameters by name
        return f"{ps['label']}: " + ", ".join(f"{k} = {v:.4g}" for k, v in ps["values"].items())
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
    for ex_head, text in _explanation_lines(result):   # right under the verdict: the root cause first
        lines.append(f"{ex_head} {text}")
    if result.explanations:
        lines.append("")
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
    if getattr(result, "blocked_attempts", ()):
        lines += ["", blocked_line(result.blocked_attempts)]
    lines.append("")
    lines.append(f"verdict: {result.status.value} ({checks_line(result.checks)})")
    lines.append(f"checked in {result.runtime_s:.2f} s; {exit_words(result.exit_code, result.verdict.value)}")
    return "\n".join(lines)


def checks_line(checks: dict) -> str:
    """``"2405 checks: M 800, C 800, Cqd 400, G 400 values compared (entries × states × parameter sets), 5
    structural"``: what the verdict rests on."""
    values = {k: v for k, v in checks.items() if k not in ("structure", "total")}
    total = checks.get("total", sum(checks.values()))
    return (f"{total} checks: " + ", ".join(f"{k} {v}" for k, v in values.items())
            + " values compared (entries x states x parameter sets), "
            + f"{checks.get('structure', 0)} structural")


QUANTITIES = (("M", "M(q)"), ("C", "C(q, qd) as a matrix"), ("Cqd", "C(q, qd) qd"), ("G", "G(q)"), ("F", "F(qd)"))
"""The quantities a check compares entry by entry, in summary order, and their names in the summary table."""

STRUCTURE_WORDS = {"ok": "PASS", "failed": "FAIL", "note": "PASS", "skipped": "skipped"}
"""A structural check's status as the summary's verdict word (a note is not an error: PASS, with the note)."""


def _figure(message: str) -> str:
    """The figure of a structural check's message: its first clause (up to the first ", " or "; " outside
    brackets), parentheses dropped (``"max drift 0.167 of the energy scale 27.27 J (RK4, …); worst from …"`` →
    ``"max drift 0.167 of the energy scale 27.27 J"``)."""
    depth, paren, out = 0, 0, []
    for k, ch in enumerate(message):
        depth += (ch in "([") - (ch in ")]")
        paren += (ch == "(") - (ch == ")")
        if depth == 0 and message.startswith((", ", "; "), k):
            break
        out.append(ch if paren == 0 and ch != ")" else "")
    return " ".join("".join(out).split())


def quantity_row(result, quantity: str, name: str) -> list[str] | None:
    """A summary row of one compared quantity: its verdict with the values compared and the largest error (absolute
    with its unit, and relative to the quantity's largest value), and its wrong entries; None if not compared."""
    rows = [e for e in result.entries if e["quantity"] == quantity]
    if not rows:
        return None
    wrong = [f.entry for f in result.findings if f.quantity == quantity and f.status == "wrong"]
    differs = [f.entry for f in result.findings if f.quantity == quantity and f.status == "note"]
    worst = max(rows, key=lambda e: e["max_abs_error"])
    rels = [e["max_rel_error"] for e in rows if e["max_rel_error"] is not None]
    rel = f" (relative {max(rels):.2g})" if rels else ""
    unit = {"M": "kg m^2", "C": "N m s"}.get(quantity, "N m")
    cell = (f"{'FAIL' if wrong else 'PASS'} ({result.checks.get(quantity, 0)} checks), max error "
            f"{worst['max_abs_error']:.2g} {unit}{rel}")
    what = (", ".join(wrong) + " wrong" if wrong else f"all {len(rows)} entries match") + (
        f"; {', '.join(differs)} differ from the Christoffel C (not an error)" if differs else "")
    return [name, cell, what]


def summary_rows(result) -> list[list[str]]:
    """The summary table's rows: per compared quantity (:func:`quantity_row`), a friction function found but not
    checked, then each structural check (:data:`STRUCTURE_WORDS`, one check each, its figure)."""
    rows = [r for q, name in QUANTITIES if (r := quantity_row(result, q, name)) is not None]
    fr = result.friction or {}
    if fr.get("function") and not fr.get("checked"):
        rows.append(["F(qd)", "not checked", fr.get("note") or f"{fr['function']} was not compared"])
    wrong = {f.quantity for f in result.wrong}
    for st in result.structure:
        word = STRUCTURE_WORDS[st.status.value]
        cell = word if word == "skipped" else f"{word} (1 check), {_figure(st.message)}"
        follows = _follows(st.name, wrong) if st.status == "failed" else st.name
        rows.append([st.name, cell, "note: " + st.message if st.status == "note"
                     else (follows[len(st.name) + 1:] if st.status != "skipped" else st.message)])
    return rows


def verdict_blocks(result) -> list[tuple]:
    """The title with the verdict, the verdict line (what is wrong) and what the verdict rests on."""
    status = result.status.value
    b: list[tuple] = [("h", 1, f"crossdyn check: {result.file} against {result.arm} — {status}"),
                      ("p", f"**Verdict: {status}.** {_verdict_line(result)} "
                            f"({exit_words(result.exit_code, result.verdict.value)}). "
                            f"The verdict rests on {checks_line(result.checks)}.")]
    if getattr(result, "blocked_attempts", ()):
        b.append(("p", f"**{blocked_line(result.blocked_attempts)}**"))
    if getattr(result, "params_note", ""):
        b.append(("p", f"**Note:** {result.params_note}"))
    return b


def summary_blocks(result) -> list[tuple]:
    """Section "Summary": what was compared, then one row per quantity and per structural check
    (:func:`summary_rows`)."""
    return [("h", 2, "Summary"),
            ("table", ["function or check", "result", "entries"], summary_rows(result)),
            ("p", "Each row: the verdict, the values compared (entries x states x parameter sets; a structural "
                  f"check is one) and the largest error. Your functions: {_functions_line(result)}. Compared at "
                  f"{_scope_line(result)}.")]


def finding_blocks(f) -> list[tuple]:
    """One wrong (or noteworthy) entry: its heading, where it is worst, its terms table and its messages."""
    from crossdyn.checking import diagnosis   # coefficients as the terminal prints them (round-off shown as 0)

    head = _finding_head(f).splitlines()
    entry, what = head[0].split(": ", 1)
    b: list[tuple] = [("h", 3, entry), ("p", f"{what}; {head[1]}")]
    if f.terms:
        b.append(("table", ["term", "your coefficient", "expected", "difference across parameter sets"],
                  [[t.term, diagnosis.fmt(t.found, 6), diagnosis.fmt(t.expected, 6),
                    (t.difference or "") + (": " if t.difference and t.reading else "") + (t.reading or "")]
                   for t in f.terms]))
    if f.messages:
        b.append(("ul", [m.strip() for m in f.messages]))
    return b


def diagnosis_blocks(result) -> list[tuple]:
    """What is wrong and how to fix it: each explanation (one mistake behind several entries), the wrong entries,
    the notes on a C matrix that differs from the Christoffel one, the hints and notes."""
    b: list[tuple] = []
    for ex_head, text in _explanation_lines(result):
        b += [("h", 2, ex_head.rstrip(":")), ("p", text)]
    for status, title in (("wrong", "Wrong entries"), ("note", "Notes on your C matrix (not errors)")):
        group = [f for f in result.findings if f.status == status and f.explained_by is None]
        if group:
            b.append(("h", 2, title))
            for f in group:
                b += finding_blocks(f)
    for title, items in (("Hints", result.hints), ("Notes", result.notes)):
        if items:
            b += [("h", 2, title), ("ul", list(items))]
    return b


def detail_blocks(result, sandbox: str = "") -> list[tuple]:
    """The details, collapsed in HTML (:func:`crossdyn.pages.folded`): every structural check with its whole
    message, every entry's errors, the parameter sets, the run's settings."""
    return folded([
        ("h", 2, "Structure of your equations"),
        ("table", ["check", "result", "details"],
         [[s.name, STRUCTURE_WORDS[s.status.value] + (" (note)" if s.status == "note" else ""), s.message]
          for s in result.structure]),
        ("h", 2, "Every entry"),
        ("table", ["entry", "result", "max abs error", "max rel error"],
         [[e["entry"], "ok" if e["ok"] else "differs", f"{e['max_abs_error']:.3g}", _rel(e["max_rel_error"])]
          for e in result.entries]),
        ("h", 2, "Parameter sets"), ("ul", [_param_set_line(ps) for ps in result.param_sets]),
        ("h", 2, "Run settings"),
        ("p", f"{result.states} random states, {result.random_params} random parameter sets, seed {result.seed}, "
              f"rtol {result.rtol:g}, {getattr(result, 'language', 'python')} file; checked in "
              f"{result.runtime_s:.2f} s."),
        ("p", f"Isolation (the sandbox your file ran in): {sandbox or 'not stated'}.")])


def report_blocks(result, sandbox: str = "") -> list[tuple]:
    """The check report as blocks (:mod:`crossdyn.pages`): the verdict, the summary table, the diagnosis, then the
    details collapsed (``sandbox``: the isolation in force, :meth:`crossdyn.sandbox.Isolation.describe`, stated in
    the run settings).  A check draws no figure: its errors are entries, listed in the summary and the details."""
    return (verdict_blocks(result) + summary_blocks(result) + diagnosis_blocks(result)
            + detail_blocks(result, sandbox))


def render_markdown(result, sandbox: str = "") -> str:
    """``check.md``: :func:`report_blocks` as Markdown."""
    return pages.render_markdown(report_blocks(result, sandbox))


def render_html(result, sandbox: str = "") -> str:
    """``check.html``: :func:`report_blocks` as one self-contained page."""
    return pages.render_html(report_blocks(result, sandbox), {})


def blocked_line(attempts) -> str:
    """``blocked attempts (stopped by the sandbox, whether or not the file caught the error): write /etc/x, …``."""
    return "blocked attempts (stopped by the sandbox, whether or not the file caught the error): " + ", ".join(attempts)


_CLASS_STATUS = {"correct": "PASS", "wrong": "FAIL", "unusable": "FAIL", "violation": "FAIL", "timeout": "INCONCLUSIVE"}


def exit_words(code: int, graded: str) -> str:
    """``"exit code 1"`` for a check run alone; inside a class run (``crossdyn check DIR --summary``, which sets
    :data:`crossdyn.checking.grading.CLASS_RUN` for each submission's check) what the class table makes of the
    submission instead: ``"graded wrong, FAIL, in the class table"`` — nobody sees that check's exit code."""
    import os

    run = os.environ.get("CROSSDYN_CLASS_RUN", "")
    if not run:
        return f"exit code {code}"
    status = "FAIL" if graded == "timeout" and run == "timeout-fails" else _CLASS_STATUS.get(graded, "")
    return f"graded {graded}, {status}, in the class table" if status else f"graded {graded} in the class table"


def unusable_blocks(data: dict) -> list[tuple]:
    """The report of a file that could not be judged (``data``: check.json's content): its verdict, the error,
    where it happened, the traceback."""
    timeout, violation = bool(data.get("timeout")), data.get("violation")
    word = "INCONCLUSIVE" if timeout else "violation" if violation else "unusable"
    graded = "timeout" if timeout else "violation" if violation else "unusable"
    code = exit_words(3 if timeout else 2, graded)
    what = (f"**The file could not be judged: it did not return in time** (INCONCLUSIVE, 0 checks, {code})."
            if timeout else f"**The file broke a sandbox limit or tried something blocked: {violation}** ({code})."
            if violation else f"**The file cannot be used** ({code}).")
    b: list[tuple] = [("h", 1, f"crossdyn check: {data['file']} against {data['arm']} — {word}"), ("p", what),
                      ("h", 2, "What went wrong"), ("p", data["error"])]
    if data.get("sandbox"):
        b.append(("p", f"Isolation (the sandbox the file ran in): {data['sandbox']}."))
    if data.get("where"):
        b.append(("p", data["where"]))
    if data.get("user_traceback"):
        b.append(("pre", data["user_traceback"]))
    return b


def render_unusable_markdown(data: dict) -> str:
    return pages.render_markdown(unusable_blocks(data))


def render_unusable_html(data: dict) -> str:
    return pages.render_html(unusable_blocks(data), {})
