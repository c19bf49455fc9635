"""The statuses and verdicts every result uses, one enum each (string-valued: ``summary.json`` keeps its words).

:class:`RunStatus` says whether an engine's run produced results; :class:`Verdict` what the judging found.
Both compare equal to their strings (``RunStatus.OK == "ok"``), so documents written before the enums read the
same.
"""
from __future__ import annotations

import enum


class RunStatus(str, enum.Enum):
    """What became of one engine's (or one native experiment's) run."""

    OK = "ok"                    # ran to the end
    DIVERGED = "diverged"        # ran, but the state left every physical scale (NaN or blow-up)
    FAILED = "failed"            # the engine raised or its process died (the reason is kept)
    SKIPPED = "skipped"          # not run on purpose (not installed, not asked for)
    UNSUPPORTED = "unsupported"  # the engine cannot represent the arm or option (the reason is kept)

    def __str__(self) -> str:
        return self.value


class Verdict(str, enum.Enum):
    """The outcome of judging: FAIL takes precedence over INCONCLUSIVE over PASS.

    ``NOT_EXERCISED`` is a group's or a phenomenon's, never a whole run's: the arm declares the phenomenon (effort
    limits, joint limits, contact, Coulomb friction) but this run never reached it, so nothing about it was checked
    (0 checks), like a skipped test.  It does not change the combined verdict of the others (:meth:`combine`); a
    phenomenon the user asked about (``--require``, ``--native``, …) is INCONCLUSIVE instead."""

    PASS = "PASS"
    FAIL = "FAIL"
    INCONCLUSIVE = "INCONCLUSIVE"
    NOT_EXERCISED = "NOT_EXERCISED"

    def __str__(self) -> str:
        return self.value

    @property
    def word(self) -> str:
        """The verdict as the terminal and the report print it (``NOT EXERCISED``: two words)."""
        return self.value.replace("_", " ")

    @staticmethod
    def outcomes() -> tuple["Verdict", ...]:
        """The verdicts a whole run can end with: PASS, FAIL, INCONCLUSIVE (not NOT_EXERCISED)."""
        return (Verdict.PASS, Verdict.FAIL, Verdict.INCONCLUSIVE)

    @staticmethod
    def combine(verdicts) -> "Verdict":
        """The combined verdict of several: FAIL if any failed, else INCONCLUSIVE if any was, else PASS; a
        NOT_EXERCISED one counts for nothing, and when every one is NOT_EXERCISED (or there is none that is not)
        nothing was judged: INCONCLUSIVE if any was NOT_EXERCISED, PASS for an empty list (as before)."""
        vs = [Verdict(v) for v in verdicts]
        if Verdict.FAIL in vs:
            return Verdict.FAIL
        if Verdict.INCONCLUSIVE in vs:
            return Verdict.INCONCLUSIVE
        if vs and all(v == Verdict.NOT_EXERCISED for v in vs):
            return Verdict.INCONCLUSIVE
        return Verdict.PASS


RUN_STATUSES = tuple(s.value for s in RunStatus)


class Exit(enum.IntEnum):
    """The exit status of every ``crossdyn`` command, one table (``crossdyn --help`` prints it).

    A verdict maps to its status by :meth:`of`; several verdicts combine first (:meth:`Verdict.combine`: FAIL
    takes precedence over INCONCLUSIVE over PASS)."""

    PASS = 0              # every check made passed (and at least one was made); NOT_EXERCISED ones may remain
    FAIL = 1              # a check failed: a real departure, named in the output
    USAGE = 2             # usage or input error: the message names the file, line or element and the value
    INCONCLUSIVE = 3      # nothing failed, but something asked about could not be judged (the reason is printed)
    INTERRUPTED = 130     # Ctrl-C: what finished is written
    BROKEN_PIPE = 141     # the reader of stdout went away (``crossdyn … | head``)

    @staticmethod
    def of(verdict) -> "Exit":
        """The exit status of a verdict (a :class:`Verdict` or its word, any case); NOT_EXERCISED alone judged
        nothing: INCONCLUSIVE's status."""
        v = Verdict(str(verdict).upper().replace(" ", "_"))
        return Exit.INCONCLUSIVE if v == Verdict.NOT_EXERCISED else Exit[v.name]


EXIT_TABLE = "\n".join([
    "exit status (every command):",
    "  0    PASS: every check made passed; the output counts them (and names any declared phenomenon the run "
    "did not exercise: NOT EXERCISED, 0 checks)",
    "  1    FAIL: a real departure; the output names it (FAIL wins over INCONCLUSIVE, which wins over PASS)",
    "  2    usage or input error: the message names the file, line or element and the value",
    "  3    INCONCLUSIVE: nothing failed, but something asked about could not be judged (the reason says how "
    "to exercise it)",
    "  130  interrupted (Ctrl-C): what finished is written",
    "  141  broken pipe (the reader of the output went away)",
])
"""The table as ``crossdyn --help`` prints it (docs/reference/exit-status.md quotes it)."""
