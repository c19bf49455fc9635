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

from crossdyn.errors import EngineError

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

    def __post_init__(self) -> None:
        object.__setattr__(self, "kwargs", MappingProxyType(dict(self.kwargs)))
        object.__setattr__(self, "native", MappingProxyType(dict(self.native)))

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
        """The adapter class (imports its module: raises ImportError when the library is missing)."""
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
    return [(e.name, e.module, e.cls, dict(e.kwargs), e.library, e.extra, dict(e.native)) for e in _REGISTRY.values()]


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
        raise EngineError(f"unknown engine {base!r}; available engines: {', '.join(engine_names())}, user:FILE")
    return _REGISTRY[base]


def engine_names() -> list[str]:
    """Every registered name, in registration order."""
    return list(_REGISTRY)


def available_engines() -> list[str]:
    """Registered engines whose library imports."""
    return [name for name, e in _REGISTRY.items() if e.available()]


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
        raise EngineError(f"unknown engine {name!r}; available engines: {', '.join(engine_names())}, user:FILE")
    e = _REGISTRY[name]
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
        raise EngineError(f"engine {name!r}: unknown option(s) {', '.join(unknown)}; it takes: {', '.join(valid)}")
    check_option_values(name, getattr(factory, "Options", None), options)
    engine = factory(spec, dt, **{**e.kwargs, **options})
    engine.name = name  # messages and results carry the name it was asked for
    return engine


def _builtin() -> None:
    """The engines crossdyn ships (the table in :mod:`crossdyn.engines`)."""
    limits = {"limits": "native_limits"}
    both = {"limits": "native_limits", "contact": "native_contact"}
    an, pb, mj, mx, pin, dart, drake, mw, nt, gs = (f"crossdyn.engines.{m}_engine" for m in (
        "analytic", "pybullet", "mujoco", "mjx", "pinocchio", "dart", "drake", "mujoco_warp", "newton", "genesis"))
    table: list[tuple[str, str, str, dict, str | None, str | None, dict]] = [
        ("analytic", an, "AnalyticEngine", {"integrator": "rk4"}, None, None, {}),
        ("analytic-rk4", an, "AnalyticEngine", {"integrator": "rk4"}, None, None, {}),
        ("analytic-euler", an, "AnalyticEngine", {"integrator": "semi-implicit-euler"}, None, None, {}),
        ("analytic-explicit-euler", an, "AnalyticEngine", {"integrator": "euler"}, None, None, {}),
        ("analytic-reference", an, "AnalyticEngine", {"integrator": "reference"}, None, None, {}),
        ("pybullet", pb, "PyBulletEngine", {}, "pybullet", "pybullet", both),
        ("mujoco", mj, "MuJoCoEngine", {"integrator": "Euler"}, "mujoco", "mujoco", both),
        ("mujoco-euler", mj, "MuJoCoEngine", {"integrator": "Euler"}, "mujoco", "mujoco", both),
        ("mujoco-rk4", mj, "MuJoCoEngine", {"integrator": "RK4"}, "mujoco", "mujoco", both),
        # the implicit integrators' native contact is not characterised (the estimate needs the engine's scheme)
        ("mujoco-implicit", mj, "MuJoCoEngine", {"integrator": "implicit"}, "mujoco", "mujoco", limits),
        ("mujoco-implicitfast", mj, "MuJoCoEngine", {"integrator": "implicitfast"}, "mujoco", "mujoco", limits),
        ("mjx", mx, "MJXEngine", {"integrator": "Euler"}, "mujoco.mjx", "mjx", {}),
        ("mjx-euler", mx, "MJXEngine", {"integrator": "Euler"}, "mujoco.mjx", "mjx", {}),
        ("mjx-rk4", mx, "MJXEngine", {"integrator": "RK4"}, "mujoco.mjx", "mjx", {}),
        ("pinocchio", pin, "PinocchioEngine", {"integrator": "rk4"}, "pinocchio", "pinocchio", {}),
        ("pinocchio-rk4", pin, "PinocchioEngine", {"integrator": "rk4"}, "pinocchio", "pinocchio", {}),
        ("pinocchio-euler", pin, "PinocchioEngine", {"integrator": "semi-implicit-euler"}, "pinocchio", "pinocchio", {}),
        # DART's limit constraint runs in World.step only (not under dart-rk4)
        ("dart", dart, "DartEngine", {"integrator": "semi-implicit-euler"}, "dartpy", "dart",
         {"limits": "enforce_limits"}),
        ("dart-rk4", dart, "DartEngine", {"integrator": "rk4"}, "dartpy", "dart", {}),
        # continuous plants ignore joint limits and have Hunt-Crossley contact: native modes on the discrete plant
        ("drake", drake, "DrakeEngine", {"integrator": "rk3-adaptive"}, "pydrake", "drake", {}),
        ("drake-rk2", drake, "DrakeEngine", {"integrator": "rk2"}, "pydrake", "drake", {}),
        ("drake-rk3", drake, "DrakeEngine", {"integrator": "rk3"}, "pydrake", "drake", {}),
        ("drake-rk5", drake, "DrakeEngine", {"integrator": "rk5"}, "pydrake", "drake", {}),
        ("drake-euler", drake, "DrakeEngine", {"integrator": "euler"}, "pydrake", "drake", {}),
        ("drake-implicit", drake, "DrakeEngine", {"integrator": "implicit"}, "pydrake", "drake", {}),
        ("drake-discrete", drake, "DrakeEngine", {"integrator": "discrete"}, "pydrake", "drake", both),
        # the GPU simulators (issue 28); they run on the CPU too, float32
        ("mujoco-warp", mw, "MuJoCoWarpEngine", {"integrator": "Euler"}, "mujoco_warp", "warp", {}),
        ("mujoco-warp-euler", mw, "MuJoCoWarpEngine", {"integrator": "Euler"}, "mujoco_warp", "warp", {}),
        ("mujoco-warp-rk4", mw, "MuJoCoWarpEngine", {"integrator": "RK4"}, "mujoco_warp", "warp", {}),
        ("mujoco-warp-implicit", mw, "MuJoCoWarpEngine", {"integrator": "implicit"}, "mujoco_warp", "warp", {}),
        ("mujoco-warp-implicitfast", mw, "MuJoCoWarpEngine", {"integrator": "implicitfast"}, "mujoco_warp", "warp",
         {}),
        ("newton", nt, "NewtonEngine", {}, "newton", "newton", {}),
        ("genesis", gs, "GenesisEngine", {}, "genesis", "genesis", {}),
    ]
    for name, module, cls, kwargs, library, extra, native in table:
        register_entry(EngineEntry(name, module, cls, kwargs, library, extra, native))


_builtin()
