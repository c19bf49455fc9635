"""crossdyn's one error hierarchy.

Every error crossdyn raises on purpose derives from :class:`CrossdynError`, and also from the built-in class
users have always caught (``except ValueError`` keeps working for bad input, ``except RuntimeError`` for an
engine that failed)::

    CrossdynError
    ├── InputError (ValueError)      a file or value given by the user is invalid     exit 2
    │   └── UsageError               bad command-line usage                            exit 2
    └── EngineError (RuntimeError)   an engine could not do what it was asked          reported per engine
        └── EngineUnsupported        ... because it cannot represent the arm            reported as unsupported

The command line turns :class:`InputError` (and so :class:`UsageError`) into exit status 2 with its one-line
message.  Anything else that escapes is crossdyn's own bug: it is never reported as a failed engine.
"""
from __future__ import annotations

from typing import Any


class CrossdynError(Exception):
    """The root of every error crossdyn raises on purpose."""


class InputError(CrossdynError, ValueError):
    """A file or value given by the user is invalid; the message names the file, the line or field, and the value.

    ``where`` is the location of the bad value (``"links[2].mass"``), ``value`` the value found.  The command
    line turns it into exit code 2 with the one-line message.  :class:`crossdyn.models.SpecError` is the
    arm-spec kind of it.
    """

    def __init__(self, message: str, where: str | None = None, value: Any = None):
        super().__init__(message)
        self.where = where
        self.value = value


class UsageError(InputError):
    """Bad command-line usage or bad input: exit code 2 with a one-line message."""


class EngineError(CrossdynError, RuntimeError):
    """An engine could not be built or stepped as asked."""


class EngineUnsupported(EngineError):
    """The engine cannot represent this arm or option (the message says why)."""


def did_you_mean(name: str, known: Any) -> str:
    """``" (did you mean 'planar3r'?)"`` when ``name`` is a near miss of one of the ``known`` names (difflib's
    ratio ≥ 0.75, the closest first, at most two), else ``""``: appended to an "unknown …" message."""
    import difflib

    close = difflib.get_close_matches(str(name), [str(k) for k in known], n=2, cutoff=0.75)
    return f" (did you mean {' or '.join(repr(c) for c in close)}?)" if close else ""
