"""What every native experiment shares: the run it is about (:class:`Experiment`), the record a phenomenon
registers (:class:`Phenomenon`), and the bridge that keeps the calls written before the grouping working
(:func:`legacy_form`).

An experiment is one arm driven by one torque profile from one start state for ``duration`` seconds at the
step ``dt``: the six values every native characterisation, calibration and reference run took as separate
arguments (``spec, profile, q0, qd0, duration, dt``).  They travel together as one frozen :class:`Experiment`.
"""
from __future__ import annotations

import functools
import inspect
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, TypeVar

from crossdyn.errors import CrossdynError, EngineError

R = TypeVar("R")

EXPERIMENT_FIELDS = ("spec", "profile", "q0", "qd0", "duration", "dt")


@dataclass(frozen=True, eq=False)
class Experiment:
    """One arm (``spec``, an ArmSpec) driven by ``profile`` (a torque profile) from (``q0``, ``qd0``) for
    ``duration`` s at the step ``dt`` s: what an engine run, a law's reference run and a calibration share."""

    spec: Any
    profile: Any
    q0: Any
    qd0: Any
    duration: float
    dt: float = 1e-3
    friction: Any = None
    """The applied regularised Coulomb law (:class:`crossdyn.analytic.laws.friction.FrictionLaw`) that every run of
    the experiment gets, as the reference and the applied runs get it (``spec`` then has f_c = 0), or None."""

    def with_profile(self, profile: Any) -> Experiment:
        """The same experiment driven by another profile (e.g. the profile held for dt, for a dt/2 run)."""
        return Experiment(self.spec, profile, self.q0, self.qd0, self.duration, self.dt, self.friction)

    def engine(self, name: str, dt: float | None = None, **options: Any) -> Any:
        """``make_engine(name, spec, dt)`` (default the experiment's dt) with the experiment's applied Coulomb law
        attached, so that a native run of one phenomenon gets friction exactly as the reference does."""
        from crossdyn.engines import make_engine

        eng = make_engine(name, self.spec, self.dt if dt is None else dt, **options)
        if self.friction is not None:
            eng.set_applied_friction(self.friction)
        return eng

    def held_laws(self) -> Callable[[Any, Any], Any] | None:
        """τ(q, q̇) of the laws the runner applies beside a native contact: the spec's limit law
        (:class:`crossdyn.analytic.laws.limit.LimitLaw`) plus the applied Coulomb law, from the state at a
        step's start, held over the step (:mod:`crossdyn.drive.runner`); None when the arm has neither."""
        limit = None
        if self.spec.has_limit_law:
            from crossdyn.analytic.laws.limit import LimitLaw

            limit = LimitLaw.of(self.spec)
        friction = self.friction
        if limit is None and friction is None:
            return None

        import numpy as np

        def torque(q, qd):
            q, qd = np.asarray(q, dtype=float), np.asarray(qd, dtype=float)
            out = np.zeros(len(q)) if limit is None else np.asarray(limit.torque(q, qd), dtype=float)
            return out if friction is None else out + friction.torque(qd)
        return torque


@dataclass(frozen=True, eq=False)
class NativeRun:
    """One engine's native run: the engine ``name`` it ran as, its Trajectory ``traj``, and ``make(name, dt)``,
    which builds that engine again (context-managed, configured as the run's) for its side runs."""

    name: str
    traj: Any
    make: Callable[[str, float], Any]


@dataclass(frozen=True)
class Phenomenon:
    """One phenomenon's entry points (the interface is described in :mod:`crossdyn.native`): what a driving loop
    needs to characterise, calibrate and judge an engine's own mechanism for it, the same fields for each.

    * ``name``: "limits", "friction", "contact" (also its key in ``summary.json``);
    * ``applies(spec) -> bool``: the arm has this law;
    * ``native_variant(engine name) -> str | None``: the name that runs that engine with its own mechanism;
    * ``episodes(spec, law, traj, native) -> list[dict]``: the per-episode measures of one run;
    * ``characterise(experiment, engines, reference=None) -> dict``: every engine run natively and measured
      against the law's reference (None where the driving loop still does it: limits);
    * ``judge``: the verdict of native runs, ``{"pass", "departures", …}`` per run; its arguments still differ
      (limits: ``judge_native_run(experiment, law, NativeRun, LimitReference)``, one run; friction:
      ``judge(characterisation, dt)``, every engine; contact: ``judge(ContactRun, episodes, Scheme, softness)``,
      one run, already called by ``characterise``);
    * ``failures(verdicts) -> list[str]``: one line per departure, ``verdicts`` keyed by engine (run label);
    * ``calibrate``: engine family → ``fit(experiment, engine, reference=None) -> dict`` (empty: none)."""

    name: str
    applies: Callable[[Any], bool]
    native_variant: Callable[[str], "str | None"]
    episodes: Callable[..., list]
    characterise: Callable[..., dict] | None
    judge: Callable[..., dict]
    failures: Callable[[dict], list]
    calibrate: dict = field(default_factory=dict)


_PACKAGE = Path(__file__).resolve().parent.parent
_ENGINES = _PACKAGE / "engines"


def engine_failure(error: BaseException) -> bool:
    """Whether ``error`` is an engine's failure, reported as that engine's result, rather than crossdyn's own
    bug, which must propagate: an :class:`~crossdyn.errors.EngineError`, or any exception whose innermost
    traceback frame lies in an engine adapter (``crossdyn/engines/``) or outside crossdyn (an engine library).
    Every other crossdyn error (bad input included) and every bug in crossdyn's own code is not."""
    if isinstance(error, EngineError):
        return True
    if isinstance(error, CrossdynError):
        return False
    tb = error.__traceback__
    if tb is None:
        return False
    while tb.tb_next is not None:
        tb = tb.tb_next
    where = Path(tb.tb_frame.f_code.co_filename).resolve()
    return where.is_relative_to(_ENGINES) or not where.is_relative_to(_PACKAGE)


def experiment_of(arguments: dict) -> Experiment:
    """Take the experiment's arguments out of ``arguments`` (a legacy call's bound arguments) into one
    :class:`Experiment` (``dt`` 1e-3 s when it was not given); what is left stays in ``arguments``."""
    return Experiment(spec=arguments.pop("spec"), profile=arguments.pop("profile"), q0=arguments.pop("q0"),
                      qd0=arguments.pop("qd0"), duration=arguments.pop("duration"), dt=arguments.pop("dt", 1e-3))


_OMITTED = object()


def legacy_form(names: tuple, required: int, pack: Callable[[dict], tuple], marker: type = Experiment,
                at: int = 0) -> Callable[[Callable[..., R]], Callable[..., R]]:
    """Decorator: the function keeps accepting its call from before the grouping.

    ``names`` is the old parameter list, its first ``required`` ones without a default.  A call whose argument
    at position ``at`` (or, by name, the grouped parameter there) is not a ``marker`` is bound to the old list;
    the arguments it gave (an omitted optional one is left out, so the new default applies) go through
    ``pack(arguments)`` to the new call's (args, kwargs).  The new, grouped form is the function's own
    signature."""
    P = inspect.Parameter
    old = inspect.Signature([P(n, P.POSITIONAL_OR_KEYWORD, default=P.empty if i < required else _OMITTED)
                             for i, n in enumerate(names)])

    def wrap(fn: Callable[..., R]) -> Callable[..., R]:
        grouped = list(inspect.signature(fn).parameters)[at]

        @functools.wraps(fn)
        def call(*args: Any, **kwargs: Any) -> R:
            if grouped in kwargs or (len(args) > at and isinstance(args[at], marker)):
                return fn(*args, **kwargs)
            arguments = dict(old.bind(*args, **kwargs).arguments)
            new_args, new_kwargs = pack(arguments)
            return fn(*new_args, **new_kwargs)

        call.__doc__ = (fn.__doc__ or "") + f"\n\n    Also callable as before the grouping: ({', '.join(names)})."
        return call

    return wrap


def experiment_form(*rest: str) -> Callable[[Callable[..., R]], Callable[..., R]]:
    """:func:`legacy_form` for the common case: the old call began ``spec, profile, q0, qd0, duration[, dt]``
    (now one :class:`Experiment`, the first parameter) and went on with ``rest`` (optional), unchanged."""
    def pack(a: dict) -> tuple:
        return (experiment_of(a),), a

    return legacy_form(EXPERIMENT_FIELDS + rest, len(EXPERIMENT_FIELDS) - 1, pack)
