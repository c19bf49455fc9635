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
    """The outcome of judging: FAIL takes precedence over INCONCLUSIVE over PASS."""

    PASS = "PASS"
    FAIL = "FAIL"
    INCONCLUSIVE = "INCONCLUSIVE"

    def __str__(self) -> str:
        return self.value

    @staticmethod
    def combine(verdicts) -> "Verdict":
        """The combined verdict of several: FAIL if any failed, else INCONCLUSIVE if any was, else PASS."""
        vs = [Verdict(v) for v in verdicts]
        if Verdict.FAIL in vs:
            return Verdict.FAIL
        if Verdict.INCONCLUSIVE in vs:
            return Verdict.INCONCLUSIVE
        return Verdict.PASS


RUN_STATUSES = tuple(s.value for s in RunStatus)
