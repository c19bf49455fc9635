"""The engine registry: engine names → adapter class, the library and the extra it needs, and the
``name@key=value`` option syntax.

Each registered name is an :class:`EngineEntry`: the adapter (``module.cls``, imported lazily on first use), the
keyword arguments the name stands for (``mujoco-rk4`` is ``MuJoCoEngine(integrator="RK4")``), the library whose
presence makes it available (``None``: a core dependency), the ``pip`` extra that installs it, and the options
that switch its own physics on (:meth:`EngineEntry.native_option`: ``native_limits``, ``native_contact``, DART's
``enforce_limits``).  ``user:FILE`` is the one prefixed family: the user's equations, the file as ``path``.

A name may carry adapter options after ``@`` (:func:`split_options`)::

    pybullet@link_damping=0.04@inertia_from_file=false  →  ("pybullet", {"link_damping": 0.04,
                                                                          "inertia_from_file": False})

values read as booleans (true/false), integers, floats, or else strings.  :func:`make_engine` checks every option
against what the adapter takes (its options dataclass, :attr:`crossdyn.engines.base.Engine.Options`, or its
constructor's keywords) and names the valid ones when one is unknown.
"""
from __future__ import annotations

import importlib
import importlib.util
import inspect
from dataclasses import dataclass, field, fields, is_dataclass
from types import MappingProxyType
import math
import typing
from typing import TYPE_CHECKING, Any, Mapping

from crossdyn.errors import EngineError, EngineUnsupported, did_you_mean

if TYPE_CHECKING:
    from crossdyn.engines.base import Engine
    from crossdyn.models.spec import ArmSpec

USER_PREFIX = "user:"
"""``user:FILE``: the user's own equations of motion (:class:`crossdyn.engines.user_engine.UserModelEngine`)."""


@dataclass(frozen=True)
class EngineEntry:
    """One registered engine name: ``module.cls(spec, dt, **kwargs)``."""

    name: str
    module: str
    cls: str
    kwargs: Mapping[str, Any] = field(default_factory=dict)
    library: str | None = None
    """The import name whose presence makes the engine available (``None``: installed with crossdyn)."""
    extra: str | None = None
    """The ``pip install 'crossdyn[EXTRA]'`` extra that installs ``library`` (``None``: a core dependency)."""
    native: Mapping[str, str] = field(default_factory=dict)
    """Phenomenon (``"limits"``, ``"contact"``) → the boolean option that makes this engine simulate it with its
    own physics (``mujoco@native_limits=true``); a phenomenon not listed has no native mode here."""
    integrator: str = ""
    """The scheme the name steps with, the same on every arm kind (crossdyn's words: ``semi-implicit-euler``,
    ``rk4``, ``rk3-adaptive``, …; the adapters' ``integrator`` says it in the engine's own words)."""
    file: str | None = None
    """``module.Class`` of the adapter that loads a robot file (a URDF or MJCF, or the one crossdyn writes of a
    textbook DH arm), built with :attr:`file_kwargs`; None: the name does not read robot files (:attr:`refusals`
    says why)."""
    file_kwargs: Mapping[str, Any] = field(default_factory=dict)
    refusals: Mapping[str, str] = field(default_factory=dict)
    """Arm kind (``"planar"``, ``"files"``) → why the name does not run on it (the feature it lacks)."""
    default_for: Mapping[str, int] = field(default_factory=dict)
    """Arm kind (``"planar"``, ``"files"``, ``"batch"``) → this name's place in that kind's default ``compare``
    (absent: not run by default there)."""
    batch: str | None = None
    """The batched runner (:mod:`crossdyn.batch.engines`: ``jax``, ``numpy``, ``mujoco``, ``mjx``, ``mujoco-warp``,
    ``newton``, ``genesis``) that runs the name over N arms with ``compare --batch``, with the same scheme as
    :attr:`integrator`; None: the name has no batched runner."""
    batch_dtype: str = "float64"
    """The floating-point type the batched runner computes in."""
    batch_note: str = ""
    """What the batched runner is (``crossdyn compare --batch``'s config and error messages)."""

    def __post_init__(self) -> None:
        for name in ("kwargs", "native", "file_kwargs", "refusals", "default_for"):
            object.__setattr__(self, name, MappingProxyType(dict(getattr(self, name))))

    def as_row(self) -> tuple:
        """The entry as plain, picklable values (``EngineEntry(*row)`` rebuilds it)."""
        return tuple(dict(v) if isinstance(v, Mapping) else v for v in (getattr(self, f.name) for f in fields(self)))

    def file_adapter(self) -> type:
        """The robot-file adapter class (its module imports no engine library); EngineError when the name reads no
        robot file, naming why."""
        if self.file is None:
            raise EngineError(f"engine {self.name!r} does not read robot files: "
                              f"{self.refusals.get('files', 'it has no robot-file adapter')}")
        module, _, cls = self.file.rpartition(".")
        return getattr(importlib.import_module(module), cls)

    def available(self) -> bool:
        """True when the adapter's library imports (without importing it; a dotted name imports its parent)."""
        if self.library is None:
            return True
        try:
            return importlib.util.find_spec(self.library) is not None
        except (ImportError, ValueError):  # mujoco.mjx without mujoco
            return False

    def install_hint(self) -> str:
        """Why the engine is not available and what to run: "not installed: pip install 'crossdyn[drake]'"."""
        return f"not installed: pip install 'crossdyn[{self.extra}]'" if self.extra else "not installed"

    def native_option(self, phenomenon: str) -> str | None:
        """The option that runs ``phenomenon`` natively on this engine, or None."""
        return self.native.get(phenomenon)

    def adapter(self) -> type:
        """The adapter class (imports its module: raises ImportError when the library is missing);
        :class:`EngineUnsupported` for a name without one (batched only), naming why."""
        if not self.module:
            raise EngineUnsupported(f"engine {self.name!r} has no single-arm adapter: "
                                    f"{self.refusals.get('planar', 'batched only')}")
        return getattr(importlib.import_module(self.module), self.cls)


_REGISTRY: dict[str, EngineEntry] = {}
_PREFIXED: dict[str, EngineEntry] = {
    USER_PREFIX: EngineEntry(USER_PREFIX, "crossdyn.engines.user_engine", "UserModelEngine"),
}


def register(name: str, module: str, cls: str, **kwargs) -> None:
    """Register an engine name (lazily imported ``module.cls(spec, dt, **kwargs)``).

    A name registered this way (a test's engine, a variant with a knob set) needs the library of the built-in
    engines of the same module (none for a module of its own) and has no native modes; :func:`register_entry`
    takes a full :class:`EngineEntry`."""
    same = next((e for e in _REGISTRY.values() if e.module == module), None)
    register_entry(EngineEntry(name, module, cls, kwargs, same.library if same else None, same.extra if same else None))


def register_entry(entry: EngineEntry) -> None:
    """Register (or replace) ``entry`` under ``entry.name``."""
    _REGISTRY[entry.name] = entry


def registered() -> list[tuple]:
    """Every registered entry as plain, picklable tuples (:func:`restore` registers them again): a worker process
    started from a fresh interpreter (a forkserver) then knows the engines registered at run time here too."""
    return [e.as_row() for e in _REGISTRY.values()]


def restore(entries: list[tuple]) -> None:
    """Register the entries :func:`registered` gave (those of this process's own are left as they are)."""
    for row in entries:
        if row[0] not in _REGISTRY:
            register_entry(EngineEntry(*row))


def entry(name: str) -> EngineEntry:
    """The registry entry of ``name`` (options after ``@`` ignored; ``user:FILE`` gives the user family's)."""
    base = name if name.startswith(USER_PREFIX) else name.split("@", 1)[0]
    for prefix, e in _PREFIXED.items():
        if base.startswith(prefix):
            return e
    if base not in _REGISTRY:
        raise EngineError(f"unknown engine {base!r}{did_you_mean(base, single_arm_names())}; available engines: {', '.join(single_arm_names())}, user:FILE")
    return _REGISTRY[base]


def engine_names() -> list[str]:
    """Every registered name, in registration order."""
    return list(_REGISTRY)


def single_arm_names() -> list[str]:
    """Every registered name that runs on one arm (the batched-only ``jax-*`` and ``numpy-*`` left out)."""
    return [name for name, e in _REGISTRY.items() if e.module]


def available_engines() -> list[str]:
    """Registered engines whose library imports and that run on a planar arm (the batched-only names refused:
    :attr:`EngineEntry.refusals`)."""
    return [name for name, e in _REGISTRY.items() if e.available() and "planar" not in e.refusals]


def native_variant(name: str, phenomenon: str) -> str | None:
    """``name`` with the option that runs ``phenomenon`` natively switched on (``mujoco-rk4@native_limits=true``),
    ``name`` itself when it already has it, or None when the engine has no native mode for it (or is unknown)."""
    try:
        option = entry(name).native_option(phenomenon)
    except EngineError:
        return None
    if option is None:
        return None
    return name if f"{option}=true" in name else f"{name}@{option}=true"


NATIVE_PHENOMENA = ("limits", "contact")
"""Phenomena an engine can run with its own mechanism in place of the law crossdyn applies in applied mode."""


def native_mechanisms(name: str) -> tuple[str, ...]:
    """The phenomena (:data:`NATIVE_PHENOMENA`) that ``name``'s options hand to the engine's own mechanism
    (``mujoco-rk4@native_limits=true@limit_solref=…`` → ("limits",)); empty for a plain name or an unknown one.

    Such a name is a native run: in an applied-mode run crossdyn would add its law on top of the engine's own
    limit or contact, counting the phenomenon twice."""
    if "@" not in name:
        return ()
    try:
        base, options = split_options(name)
        known = entry(base)
    except EngineError:
        return ()
    return tuple(p for p in NATIVE_PHENOMENA
                 if (key := known.native_option(p)) is not None and options.get(key) is True)


def split_options(name: str) -> tuple[str, dict]:
    """``"pybullet@link_damping=0.04@inertia_from_file=false"`` → ("pybullet", {...}).

    Options switch an adapter's keyword arguments from the command line (e.g. to put a
    neutralised engine default back on purpose).  Values are read as booleans
    (true/false), numbers, or else strings.
    """
    base, *parts = name.split("@")
    options: dict = {}
    for part in parts:
        key, sep, raw = part.partition("=")
        if not sep or not key.isidentifier():
            raise EngineError(f"engine {name!r}: option {part!r} must look like key=value")
        low = raw.strip().lower()
        if low in ("true", "false"):
            value: object = low == "true"
        else:
            try:
                value = int(raw) if raw.strip().lstrip("+-").isdigit() else float(raw)
            except ValueError:
                value = raw
        options[key] = value
    return base, options


def split_engine_list(text: str) -> list[str]:
    """``--engines A,B,...`` as engine names.  A comma followed by a number (a digit, a sign or a point) continues
    the option value before it, so that ``"pybullet@limit_force=1,2,mujoco@native_contact=true@contact_solref=
    -3e4,-95"`` is two engines, each with its list-valued option, as the calibrations print them."""
    names: list[str] = []
    for part in text.split(","):
        piece = part.strip()
        if names and "=" in names[-1] and piece[:1] in tuple("0123456789+-."):
            names[-1] += "," + piece
        elif piece:
            names.append(piece)
    return names


def option_names(factory) -> tuple[list[str], bool]:
    """(the options ``factory`` takes besides spec and dt, whether it takes any keyword at all): its constructor's
    named keywords, then the fields of its options dataclass (``factory.Options``) in declaration order."""
    params = inspect.signature(factory).parameters
    named = [k for k, p in params.items() if k not in ("spec", "dt", "options")
             and p.kind not in (inspect.Parameter.VAR_KEYWORD, inspect.Parameter.VAR_POSITIONAL)]
    opts = getattr(factory, "Options", None)
    owner = next((c for c in getattr(factory, "__mro__", ()) if "Options" in vars(c)), None)
    # the options dataclass speaks for the constructor that reads it (a subclass's own __init__ speaks for itself)
    if opts is not None and is_dataclass(opts) and owner is not None and factory.__init__ is owner.__init__:
        return named + [f.name for f in fields(opts) if f.name not in named], False
    takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    return named, takes_any


def _kind(hint: Any) -> str | None:
    """``"bool"`` for a field typed ``bool``, ``"number"`` for ``float``/``int`` (or either ``| None``), else None
    (strings, ``Any`` and unions with ``str`` take what they are given and check it themselves)."""
    if hint is bool:
        return "bool"
    args = set(typing.get_args(hint)) - {type(None)} if typing.get_args(hint) else {hint}
    if args and args <= {float, int}:
        return "number"
    return None


def check_option_values(engine: str, options_cls: Any, options: Mapping[str, Any]) -> None:
    """Raise :class:`EngineError` naming ``engine``, the key and the value where a ``name@key=value`` value is not
    of its field's type in the options dataclass ``options_cls``: a ``bool`` field takes only true or false (so
    ``eulerdamp=maybe`` is refused, not read as true), a number field a finite number (``None`` where the field
    allows it)."""
    if options_cls is None or not is_dataclass(options_cls):
        return
    try:
        hints = typing.get_type_hints(options_cls)
    except (NameError, TypeError):  # a hint that cannot be resolved: the adapter checks its own values
        return
    for key, value in options.items():
        kind = _kind(hints.get(key))
        if kind == "bool" and not isinstance(value, bool):
            expect = "true or false"
        elif kind == "number" and not (value is None and type(None) in typing.get_args(hints[key])) and (
                isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value)):
            expect = "a finite number"
        else:
            continue
        shown = str(value).lower() if isinstance(value, bool) else str(value)
        raise EngineError(f"engine {engine!r}: option {key}={shown}: must be {expect}")


KNOBS_OF_THE_OTHER_ARM_KIND = {
    "native_limits": ("limits", "native_limits is a planar arm's native mode: the engine's own limit in place of "
                                "the spec's compliant limit law; a robot file or a spatial arm has no limit law, and "
                                "limits=true switches the engine's own enforcement of the file's <limit> back on"),
    "limits": ("native_limits", "limits switches back the engine's own enforcement of a robot file's or spatial "
                                "arm's <limit> (off by default: crossdyn's model there has no limit law); a planar "
                                "arm's generated file declares limits only in the native mode, native_limits=true "
                                "(the engine's own limit in place of the spec's limit law, on the links with one)"),
}
"""One name, one meaning on every arm kind: an option of this table given where the adapter does not take it, while it
takes the other name, is answered with what each name means (:func:`knob_hint`)."""


def knob_hint(unknown, valid) -> str:
    """``"; "`` and what each name in ``unknown`` means where the adapter takes its counterpart of the other arm kind
    (:data:`KNOBS_OF_THE_OTHER_ARM_KIND`), for an unknown-option message; ``""`` when none applies."""
    hints = [why for key in unknown for other, why in [KNOBS_OF_THE_OTHER_ARM_KIND.get(key, ("", ""))]
             if other and other in valid]
    return "".join(f"; {why}" for why in hints)


def make_engine(name: str, spec: ArmSpec, dt: float = 1e-3, **options) -> Engine:
    """Build the engine registered as ``name`` for ``spec``.

    ``name`` may carry adapter options after ``@`` (see :func:`split_options`), e.g.
    ``pybullet@link_damping=0.04``.  Raises :class:`EngineError` naming the known engines
    for an unknown name, saying how to install it for one whose library is missing, and
    naming the option for an option the adapter does not take.
    """
    if isinstance(name, str) and "@" in name and not name.startswith(USER_PREFIX):
        base, extra = split_options(name)
        engine = make_engine(base, spec, dt, **{**extra, **options})
        engine.name = name
        return engine
    if isinstance(name, str) and name.startswith(USER_PREFIX):  # the user's own equations: user:FILE
        user = _PREFIXED[USER_PREFIX]
        return user.adapter()(spec, dt, path=name[len(USER_PREFIX):], **options)
    if name not in _REGISTRY:
        raise EngineError(f"unknown engine {name!r}{did_you_mean(name, single_arm_names())}; available engines: {', '.join(single_arm_names())}, user:FILE")
    e = _REGISTRY[name]
    if "planar" in e.refusals:
        raise EngineUnsupported(f"engine {name!r} does not run on a planar arm: {e.refusals['planar']}")
    if not e.available():
        raise EngineError(f"engine {name!r} is {e.install_hint()}; available engines: "
                          f"{', '.join(available_engines())}")
    try:
        factory = e.adapter()
    except ImportError as err:
        raise EngineError(f"engine {name!r} is not installed ({err}; {e.install_hint()}); available engines: "
                          f"{', '.join(available_engines())}") from None
    valid, takes_any = option_names(factory)
    unknown = [] if takes_any else [k for k in options if k not in valid and k != "options"]
    if unknown:
        raise EngineError(f"engine {name!r}: unknown option(s) {', '.join(unknown)}; it takes: {', '.join(valid)}"
                          + knob_hint(unknown, valid))
    check_option_values(name, getattr(factory, "Options", None), options)
    engine = factory(spec, dt, **{**e.kwargs, **options})
    engine.name = name  # messages and results carry the name it was asked for
    return engine


NOT_FILES = {
    "analytic": "crossdyn's closed-form planar model; a robot file's reference is crossdyn's spatial model, "
                "which compare runs as the reference",
    "batch-only": "a batched engine only (crossdyn's analytic model over N arms: compare --batch); a single arm's "
                  "analytic names are analytic-rk4 and analytic-euler",
}
"""Why a family of names reads no robot file (:attr:`EngineEntry.refusals`)."""


# The engine table (:func:`_builtin` registers it; see its docstring), written with short names deleted after it.
_LIMITS = {"limits": "native_limits"}
both = {"limits": "native_limits", "contact": "native_contact"}
# one folder per library (crossdyn/engines/LIBRARY/): planar.py, file.py, batch.py
an, pb, mj, mx, pin, dart, drake, mw, nt, gs = (f"crossdyn.engines.{m}.planar" for m in (
    "analytic", "pybullet", "mujoco", "mjx", "pinocchio", "dart", "drake", "mujoco_warp", "newton", "genesis"))
F = "crossdyn.engines."
fpb, fpbn, fmj, fmw = F + "pybullet.file.PyBulletFileEngine", F + "pybullet.file.PyBulletNoFlagFileEngine", \
    F + "mujoco.file.MuJoCoFileEngine", F + "mujoco_warp.file.MuJoCoWarpFileEngine"
fpin, fdart = F + "pinocchio.file.PinocchioFileEngine", F + "dart.file.DartFileEngine"
fdrake, fnt = F + "drake.file.DrakeFileEngine", F + "newton.file.NewtonFileEngine"
fgs, fmx = F + "genesis.file.GenesisFileEngine", F + "mjx.file.MJXFileEngine"
no_files = {"files": NOT_FILES["analytic"]}
batch_only = {"planar": NOT_FILES["batch-only"], "files": NOT_FILES["batch-only"]}
eu, r4 = {"integrator": "Euler"}, {"integrator": "RK4"}
# name, planar module, class, its kwargs, library, extra, native modes, integrator, robot-file adapter, its
# kwargs, refusals, {arm kind: place in its default compare}
_TABLE: list[tuple] = [
    ("analytic", an, "AnalyticEngine", {"integrator": "rk4"}, None, None, {}, "rk4", None, {}, no_files,
     {"planar": 0}),
    ("analytic-rk4", an, "AnalyticEngine", {"integrator": "rk4"}, None, None, {}, "rk4", None, {}, no_files, {}),
    ("analytic-euler", an, "AnalyticEngine", {"integrator": "semi-implicit-euler"}, None, None, {},
     "semi-implicit-euler", None, {}, no_files, {}),
    ("analytic-explicit-euler", an, "AnalyticEngine", {"integrator": "euler"}, None, None, {}, "euler", None, {},
     no_files, {}),
    ("analytic-reference", an, "AnalyticEngine", {"integrator": "reference"}, None, None, {}, "reference", None,
     {}, no_files, {}),
    ("pybullet", pb, "PyBulletEngine", {}, "pybullet", "pybullet", both, "semi-implicit-euler", fpb, {}, {},
     {"planar": 1, "files": 2}),
    # PyBullet's default loading (inertias from the collision shapes): listed for files, left out by default
    ("pybullet-noflag", pb, "PyBulletEngine", {"inertia_from_file": False}, "pybullet", "pybullet", {},
     "semi-implicit-euler", fpbn, {}, {}, {"files": 3}),
    ("mujoco", mj, "MuJoCoEngine", eu, "mujoco", "mujoco", both, "semi-implicit-euler", fmj, eu, {},
     {"planar": 2}),
    ("mujoco-euler", mj, "MuJoCoEngine", eu, "mujoco", "mujoco", both, "semi-implicit-euler", fmj, eu, {}, {}),
    ("mujoco-rk4", mj, "MuJoCoEngine", r4, "mujoco", "mujoco", both, "rk4", fmj, r4, {},
     {"planar": 3, "files": 1}),
    # the implicit integrators' native contact is not characterised (the estimate needs the engine's scheme)
    ("mujoco-implicit", mj, "MuJoCoEngine", {"integrator": "implicit"}, "mujoco", "mujoco", _LIMITS, "implicit",
     fmj, {"integrator": "implicit"}, {}, {}),
    ("mujoco-implicitfast", mj, "MuJoCoEngine", {"integrator": "implicitfast"}, "mujoco", "mujoco", _LIMITS,
     "implicitfast", fmj, {"integrator": "implicitfast"}, {}, {}),
    ("mjx", mx, "MJXEngine", eu, "mujoco.mjx", "mjx", {}, "semi-implicit-euler", fmx, eu, {}, {}),
    ("mjx-euler", mx, "MJXEngine", eu, "mujoco.mjx", "mjx", {}, "semi-implicit-euler", fmx, eu, {}, {}),
    ("mjx-rk4", mx, "MJXEngine", r4, "mujoco.mjx", "mjx", {}, "rk4", fmx, r4, {}, {}),
    ("pinocchio", pin, "PinocchioEngine", {"integrator": "rk4"}, "pinocchio", "pinocchio", {}, "rk4", fpin, {},
     {}, {"planar": 4, "files": 0}),
    ("pinocchio-rk4", pin, "PinocchioEngine", {"integrator": "rk4"}, "pinocchio", "pinocchio", {}, "rk4", fpin,
     {}, {}, {}),
    ("pinocchio-euler", pin, "PinocchioEngine", {"integrator": "semi-implicit-euler"}, "pinocchio", "pinocchio",
     {}, "semi-implicit-euler", fpin, {"integrator": "semi-implicit-euler"}, {}, {}),
    # DART's limit constraint runs in World.step only (not under dart-rk4)
    ("dart", dart, "DartEngine", {"integrator": "semi-implicit-euler"}, "dartpy", "dart",
     {"limits": "enforce_limits"}, "semi-implicit-euler", fdart, {"native_step": True}, {}, {"planar": 5}),
    ("dart-rk4", dart, "DartEngine", {"integrator": "rk4"}, "dartpy", "dart", {}, "rk4", fdart, {}, {},
     {"files": 5}),
    # continuous plants ignore joint limits and have Hunt-Crossley contact: native modes on the discrete plant
    ("drake", drake, "DrakeEngine", {"integrator": "rk3-adaptive"}, "pydrake", "drake", {}, "rk3-adaptive",
     fdrake, {"integrator": "rk3-adaptive"}, {}, {}),
    ("drake-rk2", drake, "DrakeEngine", {"integrator": "rk2"}, "pydrake", "drake", {}, "rk2", fdrake,
     {"integrator": "rk2"}, {}, {}),
    ("drake-rk3", drake, "DrakeEngine", {"integrator": "rk3"}, "pydrake", "drake", {}, "rk3", fdrake,
     {"integrator": "rk3"}, {}, {}),
    # crossdyn's RK4 on Drake's continuous dynamics (Drake has no RK4)
    ("drake-rk4", drake, "DrakeEngine", {"integrator": "rk4"}, "pydrake", "drake", {}, "rk4", fdrake,
     {"integrator": "rk4"}, {}, {"files": 4}),
    ("drake-rk5", drake, "DrakeEngine", {"integrator": "rk5"}, "pydrake", "drake", {}, "rk5", fdrake,
     {"integrator": "rk5"}, {}, {}),
    # Drake's semi_explicit_euler: v then q with the new v
    ("drake-euler", drake, "DrakeEngine", {"integrator": "euler"}, "pydrake", "drake", {}, "semi-implicit-euler",
     fdrake, {"integrator": "euler"}, {}, {}),
    ("drake-implicit", drake, "DrakeEngine", {"integrator": "implicit"}, "pydrake", "drake", {}, "implicit-euler",
     fdrake, {"integrator": "implicit"}, {}, {}),
    ("drake-discrete", drake, "DrakeEngine", {"integrator": "discrete"}, "pydrake", "drake", both, "semi-implicit-euler",
     fdrake, {"integrator": "discrete"}, {}, {"planar": 6}),
    # the GPU simulators (issue 28); they run on the CPU too, float32; on robot files only when named
    ("mujoco-warp", mw, "MuJoCoWarpEngine", eu, "mujoco_warp", "warp", {}, "semi-implicit-euler", fmw, eu, {},
     {}),
    ("mujoco-warp-euler", mw, "MuJoCoWarpEngine", eu, "mujoco_warp", "warp", {}, "semi-implicit-euler", fmw, eu,
     {}, {}),
    ("mujoco-warp-rk4", mw, "MuJoCoWarpEngine", r4, "mujoco_warp", "warp", {}, "rk4", fmw, r4, {}, {}),
    ("mujoco-warp-implicit", mw, "MuJoCoWarpEngine", {"integrator": "implicit"}, "mujoco_warp", "warp", {},
     "implicit", fmw, {"integrator": "implicit"}, {}, {}),
    ("mujoco-warp-implicitfast", mw, "MuJoCoWarpEngine", {"integrator": "implicitfast"}, "mujoco_warp", "warp",
     {}, "implicitfast", fmw, {"integrator": "implicitfast"}, {}, {}),
    ("newton", nt, "NewtonEngine", {}, "newton", "newton", {}, "semi-implicit-euler", fnt, {}, {}, {}),
    ("genesis", gs, "GenesisEngine", {}, "genesis", "genesis", {}, "semi-implicit-euler", fgs, {}, {}, {}),
    # batched only: crossdyn's analytic model over N arms (compare --batch), each batched engine's reference
    ("jax-rk4", "", "", {}, "jax", "jax", {}, "rk4", None, {}, batch_only, {"batch": 0}),
    ("jax-rk4-f32", "", "", {}, "jax", "jax", {}, "rk4", None, {}, batch_only, {"batch": 1}),
    ("jax-euler", "", "", {}, "jax", "jax", {}, "semi-implicit-euler", None, {}, batch_only, {}),
    ("jax-euler-f32", "", "", {}, "jax", "jax", {}, "semi-implicit-euler", None, {}, batch_only, {}),
    ("numpy-rk4", "", "", {}, None, None, {}, "rk4", None, {}, batch_only, {"batch": 4}),
    ("numpy-euler", "", "", {}, None, None, {}, "semi-implicit-euler", None, {}, batch_only, {}),
]
# the batched runner of each name that has one (compare --batch), in the order crossdyn --batch lists them:
# name → (runner, dtype, what it is); the batch defaults are default_for["batch"] (mjx-rk4, mujoco-rk4 below)
_BATCH: dict[str, tuple[str, str, str]] = {
    "jax-rk4": ("jax", "float64", "crossdyn analytic model on JAX, RK4, float64"),
    "jax-rk4-f32": ("jax", "float32", "crossdyn analytic model on JAX, RK4, float32"),
    "jax-euler": ("jax", "float64", "crossdyn analytic model on JAX, semi-implicit Euler, float64"),
    "jax-euler-f32": ("jax", "float32", "crossdyn analytic model on JAX, semi-implicit Euler, float32"),
    "numpy-rk4": ("numpy", "float64", "crossdyn analytic model, NumPy batch, RK4"),
    "numpy-euler": ("numpy", "float64", "crossdyn analytic model, NumPy batch, semi-implicit Euler"),
    "mujoco-rk4": ("mujoco", "float64", "C MuJoCo via mujoco.rollout, one model per arm, RK4"),
    "mujoco": ("mujoco", "float64", "C MuJoCo via mujoco.rollout, one model per arm, Euler"),
    "mujoco-euler": ("mujoco", "float64", "C MuJoCo via mujoco.rollout, one model per arm, Euler"),
    "mjx-rk4": ("mjx", "float32", "MuJoCo MJX, vmap over per-arm model fields, RK4"),
    "mjx": ("mjx", "float32", "MuJoCo MJX, vmap over per-arm model fields, Euler"),
    "mjx-euler": ("mjx", "float32", "MuJoCo MJX, vmap over per-arm model fields, Euler"),
    "mujoco-warp": ("mujoco-warp", "float32", "MuJoCo Warp, one world per arm with per-world model fields, Euler"),
    "mujoco-warp-euler": ("mujoco-warp", "float32",
                          "MuJoCo Warp, one world per arm with per-world model fields, Euler"),
    "mujoco-warp-rk4": ("mujoco-warp", "float32", "MuJoCo Warp, one world per arm with per-world model fields, RK4"),
    "newton": ("newton", "float32",
               "NVIDIA Newton SolverFeatherstone, one world per arm (replicated builder, per-world values)"),
    "genesis": ("genesis", "float32", "Genesis, one entity per arm (its own MJCF) in one scene, collisions off, Euler"),
}
_BATCH_DEFAULTS = {"mjx-rk4": 2, "mujoco-rk4": 3}
BATCH_RUNNERS: dict[str, str] = {
    "jax": "crossdyn.engines.analytic.batch:jax",
    "numpy": "crossdyn.engines.analytic.batch:numpy",
    "mujoco": "crossdyn.engines.mujoco.batch:batched",
    "mjx": "crossdyn.engines.mjx.batch:batched",
    "mujoco-warp": "crossdyn.engines.mujoco_warp.batch:batched",
    "newton": "crossdyn.engines.newton.batch:batched",
    "genesis": "crossdyn.engines.genesis.batch:batched",
}
"""Batched runner (an entry's ``batch``) → ``module:function`` in its library's folder (the batch module declares
its knobs: :mod:`crossdyn.engines.batching`)."""
del both, an, pb, mj, mx, pin, dart, drake, mw, nt, gs, F, fpb, fpbn, fmj, fmw, fpin, fdart, fdrake, fnt, fgs, fmx, no_files, \
    batch_only, eu, r4  # the table's abbreviations


def _builtin() -> None:
    """The engines crossdyn ships: ONE table of names, each with the adapter of every arm kind it runs on, the
    scheme it steps with there (the same on every kind), its library and extra, and each arm kind's default
    ``compare`` it is part of, and its batched runner (``compare --batch``) where it has one.  The CLI's lists,
    the extras, :data:`crossdyn.batch.engines.ENGINES` and ``crossdyn info --engines`` derive from it."""
    for row in _TABLE:
        name, default_for = row[0], dict(row[11])
        if name in _BATCH_DEFAULTS:
            default_for["batch"] = _BATCH_DEFAULTS[name]
        batch, dtype, note = _BATCH.get(name, (None, "float64", ""))
        columns: dict[str, Any] = dict(zip((f.name for f in fields(EngineEntry)), row[:11]))
        register_entry(EngineEntry(**columns, default_for=default_for, batch=batch, batch_dtype=dtype,
                                   batch_note=note))


def defaults(kind: str) -> tuple[str, ...]:
    """The names a default ``compare`` runs on arm kind ``kind`` (``"planar"``, ``"files"``, ``"batch"``), in their
    order."""
    return tuple(sorted((name for name, e in _REGISTRY.items() if kind in e.default_for),
                        key=lambda name: _REGISTRY[name].default_for[kind]))


def batched() -> dict[str, EngineEntry]:
    """Every name with a batched runner (``compare --batch``), in the order ``--batch`` lists them."""
    order = {name: i for i, name in enumerate(_BATCH)}
    return dict(sorted(((n, e) for n, e in _REGISTRY.items() if e.batch is not None),
                       key=lambda item: order.get(item[0], len(order))))


def file_entries() -> dict[str, EngineEntry]:
    """Every name that reads robot files (those of a textbook DH arm included), in table order."""
    return {name: e for name, e in _REGISTRY.items() if e.file is not None}


_builtin()
