"""The options every judging command shares (``compare``, ``check``, ``identify``, ``sweep``, ``demo``; ``audit``
when it exists), added by one function, :func:`add_judging_options`, so that they read and mean the same:

``--out DIR``
    where the reports go.  One default scheme: ``crossdyn-report/COMMAND/SUBJECT``, the subject being the arm's name
    (``compare``, ``check``, ``identify``), the sweep's name (``sweep``) or nothing (``demo``):
    ``crossdyn compare planar2r`` writes ``crossdyn-report/compare/planar2r``.  Running the same command again
    overwrites (a sweep resumes) the same folder; runs on different arms or by different commands never collide.
``--quiet``
    no progress lines; the verdict line (``verdict: PASS (N checks: …)``) and the lines naming each FAIL and
    INCONCLUSIVE are still printed, on standard output.
``--json``
    the command's result document on standard output and nothing else (the human-readable lines go to standard
    error; so do the engines' own C-level prints); the exit status is unchanged.  The document is the JSON file the
    command writes into ``--out`` (``summary.json``, ``check.json``, ``identify.json``, ``sweep-report.json``,
    ``demo.json``), byte for byte, and carries ``schema`` (e.g. ``"crossdyn.compare/2"``); its JSON Schema ships in
    the package (:data:`SCHEMAS`; ``crossdyn info --schema COMMAND`` prints it).

Every judging command's ``--help`` ends with :data:`EXIT_LINE`; the whole table is in ``crossdyn --help``
(:data:`crossdyn.status.EXIT_TABLE`).

Commands whose output *is* the product (``derive``, ``export``, ``info``, ``arms``, ``examples``) do not take
these options: they write to standard output or to the file named.

Importing this module is cheap (argparse, contextlib, os, sys).
"""
from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path

JUDGING_COMMANDS = ("compare", "check", "identify", "sweep", "demo", "audit")
"""The commands that judge and take :func:`add_judging_options`."""

REPORT_ROOT = "crossdyn-report"
"""The root of every default ``--out``: ``crossdyn-report/COMMAND/SUBJECT``."""

SUBJECT = {"compare": "ARM", "check": "ARM", "identify": "ARM", "sweep": "NAME", "demo": "", "audit": "ROBOT"}
"""What names a command's default report folder below ``crossdyn-report/COMMAND/`` (the arm's name; the sweep
file's ``name``; nothing for ``demo``)."""

SCHEMAS = {
    "compare": ("crossdyn.comparison", "summary.schema.json"),
    "check": ("crossdyn.cli", "schemas/check.schema.json"),
    "identify": ("crossdyn.cli", "schemas/identify.schema.json"),
    "sweep": ("crossdyn.cli", "schemas/sweep-report.schema.json"),
    "demo": ("crossdyn.cli", "schemas/demo.schema.json"),
    "compare-batch": ("crossdyn.cli", "schemas/batch.schema.json"),
    "check-summary": ("crossdyn.cli", "schemas/grades.schema.json"),
    "compare-robot": ("crossdyn.cli", "schemas/robot-compare.schema.json"),
    "audit": ("crossdyn.cli", "schemas/audit.schema.json"),
}
"""Per judging command, the package and file name of the JSON Schema its ``--json`` document follows
(``compare-batch``: ``compare --batch``'s; ``compare-robot``: ``compare ROBOT.urdf``'s)."""

DOCUMENTS = {"compare": "summary.json", "check": "check.json", "identify": "identify.json",
             "sweep": "sweep-report.json", "demo": "demo.json", "compare-batch": "batch_summary.json",
             "check-summary": "grades.json", "compare-robot": "summary.json", "audit": "summary.json"}
"""Per judging command, the file in ``--out`` that ``--json`` prints (``check-summary``: ``grades.json`` beside the
``--summary`` CSV)."""

EXIT_LINE = "exit status: 0 PASS, 1 FAIL, 3 INCONCLUSIVE, 2 usage or input error, 130 interrupted; see crossdyn --help"
"""The one line each judging command's ``--help`` ends with (the table: :data:`crossdyn.status.EXIT_TABLE`)."""

OUT_HELP = ("where the reports go (default: {default}; every judging command writes crossdyn-report/COMMAND/SUBJECT "
            "unless told otherwise)")
QUIET_HELP = ("no progress lines; the verdict line and the lines naming each FAIL and INCONCLUSIVE are still printed")
JSON_HELP = ("print the result document ({document}, schema {schema}: `crossdyn info --schema {command}`) on "
             "standard output and nothing else (the other lines go to standard error); the exit status is "
             "unchanged")


GRAMMAR = ("judging commands (" + ", ".join(JUDGING_COMMANDS) + ") share three options:\n"
           "  --out DIR  where the reports go: crossdyn-report/COMMAND/ARM unless given (sweep/NAME, demo)\n"
           "  --quiet    no progress lines; the verdict line is still printed\n"
           "  --json     the result document alone on standard output (schema: crossdyn info --schema COMMAND)\n"
           "\n"
           "derive, export, info and examples produce output (standard output or the file named) and judge nothing.")
"""The paragraph ``crossdyn --help`` prints before the exit table (one line per option: the docs render it as
reStructuredText, where a wrapped line would end the list)."""


JSON_ALSO = {"compare": " (with --batch: batch_summary.json, schema crossdyn.batch/2: `crossdyn info --schema "
                        "compare-batch`; on a robot file: summary.json, schema crossdyn.robot-compare/1: `crossdyn "
                        "info --schema compare-robot`)",
             "check": " (with --summary CSV: grades.json, written beside the CSV, schema crossdyn.grades/1: "
                      "`crossdyn info --schema check-summary`)"}
"""What a command's ``--json`` help adds: another document it prints in another mode."""


def default_out_text(command: str) -> str:
    """The default ``--out`` of ``command`` as its help shows it: ``crossdyn-report/compare/ARM``."""
    subject = SUBJECT[command]
    return f"{REPORT_ROOT}/{command}" + (f"/{subject}" if subject else "")


def default_out(command: str, subject: str = "") -> Path:
    """The default ``--out`` of ``command`` on ``subject`` (an arm's name, a sweep's name, or none); a character
    other than a letter, digit, ``.``, ``_``, ``+`` or ``-`` in the subject becomes ``-`` (a name is one folder)."""
    import re

    safe = re.sub(r"[^\w.+-]", "-", subject).strip(".")
    return Path(REPORT_ROOT) / command / safe if safe else Path(REPORT_ROOT) / command


def out_dir(args, command: str, subject: str = "") -> Path:
    """``--out`` if given, else the default scheme's folder."""
    return Path(args.out) if getattr(args, "out", None) else default_out(command, subject)


def schema_text(command: str) -> str:
    """The JSON Schema of ``command``'s ``--json`` document, as shipped in the package."""
    from importlib import resources

    package, name = SCHEMAS[command]
    return resources.files(package).joinpath(name).read_text(encoding="utf-8")


SCHEMA_IDS = {"compare": "crossdyn.compare/2", "check": "crossdyn.check/1", "identify": "crossdyn.identify/1",
              "sweep": "crossdyn.sweep-report/1", "demo": "crossdyn.demo/1", "compare-batch": "crossdyn.batch/2",
              "check-summary": "crossdyn.grades/1", "compare-robot": "crossdyn.robot-compare/1",
              "audit": "crossdyn.audit/1"}
"""The ``schema`` word each document carries (equal to its schema's ``$id``; a test holds them equal)."""


def add_judging_options(parser, command: str, quiet: bool = True) -> None:
    """Add ``--out``, ``--quiet`` and ``--json`` to ``command``'s parser, with one help text each, and end its
    ``--help`` with :data:`EXIT_LINE`.  ``quiet=False``: the parser already has ``--quiet`` (``compare``/``demo``
    share one set of run options)."""
    parser.add_argument("--out", metavar="DIR", default=None,
                        help=OUT_HELP.format(default=default_out_text(command)))
    if quiet:
        parser.add_argument("--quiet", action="store_true", help=QUIET_HELP)
    parser.add_argument("--json", action="store_true",
                        help=JSON_HELP.format(document=DOCUMENTS[command], schema=SCHEMA_IDS[command],
                                              command=command) + JSON_ALSO.get(command, ""))
    parser.epilog = ((parser.epilog + "\n\n") if parser.epilog else "") + EXIT_LINE
    parser.set_defaults(judging=command)


def publish(args, path) -> None:
    """Name the document ``--json`` prints: the JSON file the command just wrote (``summary.json``, …)."""
    args.document = Path(path)


@contextlib.contextmanager
def stdout_to_stderr(enabled: bool):
    """While the body runs, file descriptor 1 points at standard error (and ``sys.stdout`` at ``sys.stderr``), so
    that nothing but the document reaches standard output: neither crossdyn's lines nor an engine's C-level
    prints, nor a forked worker's.  Restored on the way out."""
    if not enabled:
        yield
        return
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        os.dup2(2, 1)
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(saved, 1)
        os.close(saved)


def run_command(args) -> int:
    """Run ``args.func``; with ``--json`` its printed lines go to standard error and the document it published
    (:func:`publish`) is printed to standard output afterwards, unchanged."""
    if not getattr(args, "json", False):
        return args.func(args)
    with stdout_to_stderr(True):
        code = args.func(args)
    document = getattr(args, "document", None)
    if document is not None and Path(document).is_file():
        sys.stdout.write(Path(document).read_text(encoding="utf-8"))
        sys.stdout.flush()
    return code
