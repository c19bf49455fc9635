"""The options of :func:`crossdyn.checking.check`, validated once (the same checks from Python as from the CLI
where they overlap)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict

from crossdyn.errors import InputError
from crossdyn.models.user_equations import parse_names

DEFAULT_STATES = 1000
DEFAULT_RANDOM_PARAMS = 20


@dataclass(frozen=True)
class CheckOptions:
    """How :func:`~crossdyn.checking.check` samples and what it runs.

    ``states``: random states per parameter set (≥ 1); ``random_params``: random parameter sets besides the arm's
    own (≥ 0); ``names``: the user's function names when not M/C/G (a dict, or ``"M=...,C=...,G=..."``);
    ``seed``: the random seed; ``energy``: run the energy check; ``timeout``: seconds each Octave call may take;
    ``compare_arms=False``: the quick check the wrong-arm search runs (no search for matching arms, no
    term-by-term diagnosis).  Raises :class:`~crossdyn.errors.InputError` (a ``ValueError``) for bad values.
    """

    states: int = DEFAULT_STATES
    random_params: int = DEFAULT_RANDOM_PARAMS
    names: dict[str, str] | str | None = None
    seed: int = 0
    energy: bool = True
    timeout: float | None = None
    compare_arms: bool = True

    def __post_init__(self) -> None:
        states, random_params = self.states, self.random_params
        if isinstance(states, bool) or not isinstance(states, int) or states < 1:
            raise InputError(f"states: must be an integer >= 1, got {states!r}", "states", states)
        if isinstance(random_params, bool) or not isinstance(random_params, int) or random_params < 0:
            raise InputError(f"random_params: must be an integer >= 0, got {random_params!r}", "random_params",
                             random_params)
        if isinstance(self.names, str):
            try:
                object.__setattr__(self, "names", parse_names(self.names))
            except ValueError as e:
                raise InputError(str(e), "names", self.names) from None

    @property
    def function_names(self) -> dict[str, str] | None:
        """``names`` as a dict (a string is parsed when the options are made)."""
        return self.names if not isinstance(self.names, str) else parse_names(self.names)


class CheckKeywords(TypedDict, total=False):
    """:class:`CheckOptions`'s fields as keyword arguments of :func:`~crossdyn.checking.check`."""

    states: int
    random_params: int
    names: dict[str, str] | str | None
    seed: int
    energy: bool
    timeout: float | None
    compare_arms: bool
