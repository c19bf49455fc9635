"""Run every example of the documentation site (``docs/**/*.md``) as a pytest item, with Sybil.

The conventions (``docs/reference/writing-docs.md`` states them for writers):

- ```` ```python ```` blocks run in page order in one namespace per page (Sybil's ``PythonCodeBlockParser``); a
  block whose first line starts with ``>>>`` is a doctest with ``NUMBER | ELLIPSIS | NORMALIZE_WHITESPACE``.
- ```` ```console ```` blocks: each line starting with ``$ `` is a command run by ``bash -o pipefail`` in the page's
  folder; the lines after it, up to the next ``$ ``, are its expected output (stdout and stderr together),
  compared by :func:`output_differences` (``tests/printed_numbers.py``'s rule: text equal after whitespace runs
  collapse, each number within one unit of its last printed digit, an integer exactly; ``...`` alone on a line
  matches any number of lines, ``...`` inside a line any text).  The status must be 0 unless
  ``<!-- docs: exit N -->`` says otherwise.
- ``<!-- docs: slow -->``: the example carries ``@pytest.mark.slow``; ``<!-- docs: skip REASON -->``: not run (a
  missing reason fails the collection); ``<!-- docs: file NAME -->`` before a block (toml, python, ...): the
  block's text is written to ``NAME`` in the page's folder when the page reaches it (or before a later block
  that runs without it, in the slow tier), and not run; ``<!-- docs: timeout S -->``: the commands' limit.
- The page's folder is a fresh temporary directory holding a copy of the repository's ``examples/``; Python
  blocks run with it as the working directory too.  Commands find the venv's ``crossdyn`` first on ``PATH`` and
  import the checkout under test (``PYTHONPATH``).  Each command ends, with its whole process group, after its
  timeout (60 s; 300 s in a slow block).
"""
from __future__ import annotations

import difflib
import doctest
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Iterator

from printed_numbers import NUMBER, resolution
from sybil import Document, Example, Region, Sybil
from sybil.evaluators.doctest import NUMBER as DOCTEST_NUMBER
from sybil.parsers.markdown import PythonCodeBlockParser

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
PAGE_DIR = "_docs_page_dir"  # the key of the page's folder in the page's namespace
TIMEOUT_S, SLOW_TIMEOUT_S = 60.0, 300.0
DOCTEST_FLAGS = DOCTEST_NUMBER | doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
EXCLUDED_DIRS = ("_build", "_incoming")

OPEN_FENCE = re.compile(r"^[ \t]*(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^\n]*?)[ \t]*$")
DIRECTIVE = re.compile(r"^[ \t]*<!--\s*docs:\s*(?P<body>.*?)\s*-->[ \t]*$", re.M)  # alone on its line
KNOWN = ("exit", "slow", "skip", "file", "timeout")


class DocsSyntaxError(ValueError):
    """A page breaks the conventions (a bare skip, an unknown directive, a directive before no block ...)."""


@dataclass
class Block:
    """One top-level fenced code block of a page and the ``<!-- docs: ... -->`` directives right before it."""

    start: int          # the opening fence's offset in the page
    end: int            # just after the closing fence
    language: str
    source: str
    line: int           # the opening fence's line (1-based)
    directives: dict[str, str] = field(default_factory=dict)

    @property
    def skipped(self) -> bool:
        return "skip" in self.directives

    @property
    def slow(self) -> bool:
        return "slow" in self.directives


def fenced_blocks(text: str) -> list[Block]:
    """The page's top-level fenced blocks, CommonMark's way: a block closes at a fence of its character at least
    as long, with nothing after it; fences inside a block (a Markdown sample shown in ````` ````markdown `````)
    are its text."""
    blocks: list[Block] = []
    lines = text.splitlines(keepends=True)
    offset, i = 0, 0
    while i < len(lines):
        m = OPEN_FENCE.match(lines[i].rstrip("\n"))
        if not m:
            offset += len(lines[i])
            i += 1
            continue
        fence, start, first = m.group("fence"), offset, i
        closing = re.compile(rf"^[ \t]*{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$")
        offset += len(lines[i])
        i += 1
        body_start = offset
        while i < len(lines) and not closing.match(lines[i].rstrip("\n")):
            offset += len(lines[i])
            i += 1
        body = text[body_start:offset]
        if i < len(lines):
            offset += len(lines[i])
            i += 1
        language = (m.group("info").split() or [""])[0].strip("{}")
        blocks.append(Block(start, offset, language, body, first + 1))
    return blocks


def parse_directive(body: str, where: str) -> tuple[str, str]:
    """``exit 2`` -> ("exit", "2"), checked: a known name, and the argument it needs."""
    name, _, arg = body.strip().partition(" ")
    arg = arg.strip()
    if name not in KNOWN:
        raise DocsSyntaxError(f"{where}: unknown directive <!-- docs: {body} --> (known: {', '.join(KNOWN)})")
    if name == "skip" and not arg:
        raise DocsSyntaxError(f"{where}: <!-- docs: skip --> needs a reason: <!-- docs: skip REASON -->")
    if name == "exit" and not re.fullmatch(r"\d{1,3}", arg):
        raise DocsSyntaxError(f"{where}: <!-- docs: exit N --> needs a status 0..255, got {arg!r}")
    if name == "timeout" and not re.fullmatch(r"\d+(\.\d*)?", arg):
        raise DocsSyntaxError(f"{where}: <!-- docs: timeout S --> needs seconds, got {arg!r}")
    if name == "file" and (not arg or Path(arg).is_absolute() or ".." in Path(arg).parts):
        raise DocsSyntaxError(f"{where}: <!-- docs: file NAME --> needs a relative file name, got {arg!r}")
    if name == "slow" and arg:
        raise DocsSyntaxError(f"{where}: <!-- docs: slow --> takes no argument, got {arg!r}")
    return name, arg


def attach_directives(text: str, blocks: list[Block], path: str) -> None:
    """Give each block the directives written right before it (only blank lines and other directives between);
    a directive followed by prose or by nothing fails, as does one that does not fit its block's language."""
    gaps = [(0 if k == 0 else blocks[k - 1].end, b.start, b) for k, b in enumerate(blocks)]
    gaps.append((blocks[-1].end if blocks else 0, len(text), None))
    for gap_start, gap_end, block in gaps:
        gap = text[gap_start:gap_end]
        found = list(DIRECTIVE.finditer(gap))
        for m in found:
            where = f"{path}:{text.count(chr(10), 0, gap_start + m.start()) + 1}"
            rest = DIRECTIVE.sub("", gap[m.end():])
            if block is None or rest.strip():
                raise DocsSyntaxError(f"{where}: <!-- docs: {m.group('body')} --> is not followed by a code block")
            name, arg = parse_directive(m.group("body"), where)
            if block is not None:
                check_fits(name, block, where)
                block.directives[name] = arg


def check_fits(name: str, block: Block, where: str) -> None:
    if name in ("exit", "timeout") and block.language != "console":
        raise DocsSyntaxError(f"{where}: <!-- docs: {name} --> applies to a console block, not {block.language!r}")
    if name == "slow" and block.language not in ("console", "python"):
        raise DocsSyntaxError(f"{where}: <!-- docs: slow --> applies to a console or python block")
    if name == "file" and block.language == "console":
        raise DocsSyntaxError(f"{where}: <!-- docs: file --> applies to a block showing a file, not a console")
    if name == "slow" and "file" in block.directives or name == "file" and block.slow:
        raise DocsSyntaxError(f"{where}: a file block is always written (it cannot be slow)")


# --- comparing output --------------------------------------------------------------------------------------------

def normalised_lines(text: str) -> list[str]:
    """Lines with whitespace runs collapsed to one space, stripped; blank lines dropped."""
    return [" ".join(line.split()) for line in text.splitlines() if line.strip()]


@lru_cache(maxsize=None)
def piece_pattern(piece: str) -> re.Pattern[str]:
    """A piece of a shown line (the text between two ``...``) as a regular expression: numbers become groups, the
    rest literal."""
    parts, last = [], 0
    for m in NUMBER.finditer(piece):
        parts.append(re.escape(piece[last:m.start()]))
        parts.append(f"({NUMBER.pattern})")
        last = m.end()
    parts.append(re.escape(piece[last:]))
    return re.compile("".join(parts))


def tolerance(shown: str) -> float:
    """How far a printed number may be from the shown one: one unit of the shown number's last digit
    (:func:`printed_numbers.resolution`), but an integer (a count, a status, a version part) exactly."""
    return resolution(shown) if re.search(r"[.eE]", shown) else 0.0


def _numbers_agree(m: re.Match[str], piece: str) -> bool:
    return all(abs(float(p) - float(s)) <= tolerance(s) * (1 + 1e-9)
               for p, s in zip(m.groups(), NUMBER.findall(piece)))


def line_matches(printed: str, shown: str) -> bool:
    """One printed line against one shown line: the text equal, each number within its printed resolution, each
    ``...`` any text.  Every place a piece could match is tried (a ``...`` followed by ``PASS 10800`` must find the
    ``PASS`` whose number agrees, not the first ``PASS``)."""
    pieces = shown.split("...")

    def match(pos: int, k: int) -> bool:
        pattern, last = piece_pattern(pieces[k]), k == len(pieces) - 1
        starts = [pos] if k == 0 else range(pos, len(printed) + 1)
        for start in starts:
            m = pattern.fullmatch(printed, start) if last else pattern.match(printed, start)
            if m is not None and _numbers_agree(m, pieces[k]) and (last or match(m.end(), k + 1)):
                return True
        return False

    return match(0, 0)


def lines_match(printed: list[str], shown: list[str]) -> bool:
    """The shown lines match the printed ones, a ``...`` line standing for any number of lines."""
    memo: dict[tuple[int, int], bool] = {}

    def match(i: int, j: int) -> bool:
        if (i, j) not in memo:
            if j == len(shown):
                memo[i, j] = i == len(printed)
            elif shown[j] == "...":
                memo[i, j] = match(i, j + 1) or (i < len(printed) and match(i + 1, j))
            else:
                memo[i, j] = i < len(printed) and line_matches(printed[i], shown[j]) and match(i + 1, j + 1)
        return memo[i, j]

    return match(0, 0)


def output_differences(printed: str, shown: str) -> str:
    """Empty when ``printed`` matches ``shown``; else a diff of the two (whitespace-normalised)."""
    p, s = normalised_lines(printed), normalised_lines(shown)
    if lines_match(p, s):
        return ""
    diff = difflib.unified_diff(s, p, "shown in the docs", "printed", lineterm="", n=2)
    return ("output differs (text must be equal; each number within one unit of its last shown digit):\n"
            + "\n".join(diff))


# --- running ------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Command:
    line: int       # the command's line in the page
    command: str
    shown: str      # the expected output


def commands(block: Block, path: str) -> list[Command]:
    """The ``$ `` commands of a console block with their expected output (a trailing ``\\`` continues a
    command on the next line)."""
    out: list[Command] = []
    lines = block.source.splitlines()
    k = 0
    while k < len(lines):
        line = lines[k]
        if not line.startswith("$ "):
            if line.strip() and not out:
                raise DocsSyntaxError(f"{path}:{block.line + 1 + k}: a console block starts with a `$ ` command")
            k += 1
            continue
        first, cmd = k, line[2:]
        while cmd.endswith("\\") and k + 1 < len(lines):
            k += 1
            cmd = cmd[:-1] + "\n" + lines[k]
        k += 1
        shown = []
        while k < len(lines) and not lines[k].startswith("$ "):
            shown.append(lines[k])
            k += 1
        out.append(Command(block.line + 1 + first, cmd, "\n".join(shown)))
    if not out:
        raise DocsSyntaxError(f"{path}:{block.line}: a console block without a `$ ` command")
    return out


def command_env() -> dict[str, str]:
    """The environment of a documented command: the venv's scripts first, the checkout importable, a fixed
    terminal width (argparse wraps help to it) and a non-interactive plotting backend — and XLA's defaults, as a
    reader has them: tests/conftest.py compiles at backend optimisation level 0 for the tests' own JAX calls, and
    a documented ``compare planar3r --batch 1000`` inheriting that ran its MJX rollout unoptimised, past the
    example's 300 s (37 s with the defaults)."""
    env = dict(os.environ)
    flags = " ".join(f for f in env.get("XLA_FLAGS", "").split() if f != "--xla_backend_optimization_level=0")
    if flags:
        env["XLA_FLAGS"] = flags
    else:
        env.pop("XLA_FLAGS", None)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env["PYTHONPATH"] = os.pathsep.join(p for p in [str(ROOT), env.get("PYTHONPATH", "")] if p)
    env.update(COLUMNS="100", MPLBACKEND="Agg", PYTHONUNBUFFERED="1", NO_COLOR="1")
    return env


def run_command(cmd: str, cwd: str, timeout: float) -> tuple[int | None, str]:
    """Run ``cmd`` with bash in ``cwd``; (status, stdout+stderr).  The status is None when it ran past
    ``timeout``: then its whole process group is killed."""
    proc = subprocess.Popen(["bash", "-o", "pipefail", "-c", cmd], cwd=cwd, env=command_env(),
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
        status: int | None = proc.returncode
    except subprocess.TimeoutExpired:
        status = None
    try:
        os.killpg(proc.pid, signal.SIGKILL)  # whatever it left running
    except ProcessLookupError:
        pass
    if status is None:
        out, _ = proc.communicate()
    return status, out


def console_evaluator(block: Block, path: str) -> Callable[[Example], str | None]:
    cmds = commands(block, path)
    want = int(block.directives.get("exit", "0"))
    timeout = float(block.directives.get("timeout", SLOW_TIMEOUT_S if block.slow else TIMEOUT_S))

    def evaluate(example: Example) -> str | None:
        for c in cmds:
            status, out = run_command(c.command, example.namespace[PAGE_DIR], timeout)
            head = f"{path}:{c.line}: $ {c.command}"
            if status is None:
                return f"{head}\nran past its {timeout:g} s timeout (killed); it printed:\n{out}"
            if status != want:
                return f"{head}\nexited {status}, the page expects {want}; it printed:\n{out}"
            diff = output_differences(out, c.shown)
            if diff:
                return f"{head}\n{diff}"
        return None

    return evaluate


WRITTEN = "_docs_files_written"  # the offsets of the page's file blocks written so far


def write_file(block: Block, namespace: dict[str, Any]) -> None:
    target = Path(namespace[PAGE_DIR]) / block.directives["file"]
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(block.source, encoding="utf-8")
    namespace.setdefault(WRITTEN, set()).add(block.start)


class Step:
    """An example's evaluator that runs in the page's folder; ``slow`` tells pytest to mark it.

    Before it runs, the page's file blocks above it that were not written yet are written, in page order: in the
    slow tier (``-m slow``) the file blocks are deselected with the other fast examples, and a slow block still
    finds the files the page showed before it."""

    def __init__(self, evaluator: Callable[[Example], Any], slow: bool, files_before: list[Block]) -> None:
        self.evaluator, self.slow, self.files_before = evaluator, slow, files_before

    def __call__(self, example: Example) -> Any:
        __tracebackhide__ = True
        for block in self.files_before:
            if block.start not in example.namespace.get(WRITTEN, ()):
                write_file(block, example.namespace)
        before = os.getcwd()
        os.chdir(example.namespace[PAGE_DIR])
        try:
            return self.evaluator(example)
        finally:
            os.chdir(before)


PYTHON = PythonCodeBlockParser(doctest_optionflags=DOCTEST_FLAGS)


def parse_page(document: Document) -> Iterator[Region]:
    """Sybil's parser for a docs page: its Python blocks (Sybil's own parser, kept when top-level and not
    skipped), console blocks and file blocks, each evaluated in the page's folder."""
    blocks = fenced_blocks(document.text)
    attach_directives(document.text, blocks, document.path)
    files = [b for b in blocks if "file" in b.directives and not b.skipped]

    def step(evaluator: Callable[[Example], Any], start: int, slow: bool) -> Step:
        return Step(evaluator, slow, [f for f in files if f.start < start])

    for region in PYTHON(document):
        block = next((b for b in blocks if b.start <= region.start < b.end), None)
        if block is not None and block.language == "python" and not block.skipped and "file" not in block.directives:
            yield Region(region.start, region.end, region.parsed, step(region.evaluator, region.start, block.slow),
                         region.lexemes)
    for block in blocks:
        if block.skipped:
            continue
        if block.language == "console":
            yield Region(block.start, block.end, block,
                         step(console_evaluator(block, document.path), block.start, block.slow))
        elif "file" in block.directives:
            yield Region(block.start, block.end, block,
                         step(lambda example, b=block: write_file(b, example.namespace), block.start, False))


def setup_page(namespace: dict[str, Any]) -> None:
    """The page's folder: a fresh temporary directory with a copy of ``examples/``."""
    folder = tempfile.mkdtemp(prefix="crossdyn-docs-")
    shutil.copytree(EXAMPLES, Path(folder) / "examples")
    namespace[PAGE_DIR] = folder


def teardown_page(namespace: dict[str, Any]) -> None:
    folder = namespace.pop(PAGE_DIR, None)
    if folder:
        shutil.rmtree(folder, ignore_errors=True)


class DocsSybil(Sybil):
    """Every ``.md`` under the docs folder but ``_build/`` and ``_incoming/``."""

    def should_parse(self, path: Path) -> bool:
        try:
            rel = Path(path).relative_to(self.path)
        except ValueError:
            return False
        return rel.suffix == ".md" and not (set(rel.parts[:-1]) & set(EXCLUDED_DIRS))


def docs_sybil(docs: Path) -> Sybil:
    return DocsSybil(parsers=[parse_page], path=str(docs.resolve()), setup=setup_page, teardown=teardown_page,
                     name="docs")


def mark_items(items: list[Any]) -> None:
    """Mark the slow examples ``slow`` (a page's examples stay on one worker, in order, by ``--dist loadfile``:
    its blocks share a namespace and a folder)."""
    import pytest

    for item in items:
        example = getattr(item, "example", None)
        if example is None or not isinstance(example, Example):
            continue
        if getattr(example.region.evaluator, "slow", False):
            item.add_marker(pytest.mark.slow)
