"""Where an engine's own code runs, and how its failure is contained.

An engine's library (or a user's equations file behind ``user:FILE``) may raise anything; inside
:func:`engine_code` any such exception becomes :class:`EngineRaised` (an :class:`~crossdyn.errors.EngineError`
that keeps the original), which the comparison reports as that engine ``failed``.  Everything outside these
blocks is crossdyn's own code: its exceptions propagate (a bug in crossdyn is never a "failed engine").
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Callable, Iterator, TypeVar

from crossdyn.errors import EngineError

T = TypeVar("T")


class EngineRaised(EngineError):
    """An engine's own code raised ``original`` (any exception): contained, reported as the engine failing."""

    def __init__(self, original: BaseException):
        super().__init__(f"{type(original).__name__}: {original}")
        self.original = original


def failure_reason(e: BaseException) -> str:
    """``"Type: message"`` of what the engine raised (the original exception for :class:`EngineRaised`)."""
    orig = e.original if isinstance(e, EngineRaised) else e
    return f"{type(orig).__name__}: {orig}"


@contextmanager
def engine_code() -> Iterator[None]:
    """Run an engine's (or a user's engine file's) code: what it raises becomes :class:`EngineRaised`."""
    try:
        yield
    except EngineError:
        raise
    except Exception as e:  # noqa: BLE001 — an engine's library or a user's file: contained, reported per engine
        raise EngineRaised(e) from e


def call(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``fn(*args, **kwargs)`` as :func:`engine_code`."""
    with engine_code():
        return fn(*args, **kwargs)


def attach_friction(engine: Any, friction: Any) -> Any:
    """Give ``engine`` the applied regularised Coulomb law the runner applies (None: leave it without)."""
    if friction is not None:
        engine.set_applied_friction(friction)
    return engine


def build_engine(name: str, spec: Any, dt: float, friction: Any = None, **options: Any) -> Any:
    """``make_engine(name, spec, dt, **options)`` with the applied friction law (or None) attached, contained."""
    from crossdyn.engines import make_engine

    with engine_code():
        return attach_friction(make_engine(name, spec, dt, **options), friction)
