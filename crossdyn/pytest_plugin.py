"""A pytest plugin so your own test suite can assert, in one line, that engines agree on your arm and that your
hand-derived equations are right.

Installed with crossdyn (entry point ``pytest11``); it imports nothing heavy until used::

    def test_my_arm_engines_agree(crossdyn_engines_agree):
        crossdyn_engines_agree("my_arm.toml", engines=["pybullet", "mujoco-rk4", "pinocchio"])

    def test_my_equations(crossdyn_equations_match):
        crossdyn_equations_match("planar3r", "my3r.py")   # fails with the check's diagnosis

or without the fixtures::

    from crossdyn.pytest_plugin import assert_engines_agree, assert_equations_match

**Paths** (an arm TOML, ``user:FILE`` engines, a torque CSV, a tolerance TOML, an equations file) are resolved
against the directory of the test file that calls them first, then the working directory, so a suite runs the
same from any folder.  A path found in neither is a :class:`CrossdynUsageError` naming the path and both
places looked in — never an "engines disagree" failure.

**Failures** show crossdyn's own message (every metric out of tolerance, by engine; or the check's diagnosis);
an INCONCLUSIVE comparison (nothing departed, but something asked about could not be judged) fails too, with its
reasons: a test that checked nothing must not pass.  A phenomenon the arm declares but the short run never reached
(an effort limit never saturated, …) is NOT EXERCISED: the test passes on everything else and pytest shows a
:class:`NotExercisedWarning` naming it and how to exercise it; ``require=("effort",)`` makes it fail instead
(as ``compare --require``),
not this module's source: its frames are hidden from pytest's traceback.
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

import pytest

from crossdyn.errors import UsageError


class CrossdynUsageError(UsageError):
    """A fixture was called with something that cannot be used (a missing file, an unknown arm): not a failure of
    the physics, a mistake in the test (a :class:`crossdyn.errors.UsageError`, so a ``ValueError`` too)."""


class NotExercisedWarning(UserWarning):
    """A passing comparison left a phenomenon the arm declares unexercised (0 checks of it, like a skipped test):
    the message names it and how to exercise it (``require=`` makes it a failure)."""


@dataclass(frozen=True)
class AgreementOptions:
    """How :func:`assert_engines_agree` compares (every field a keyword of it too): ``duration`` and ``dt`` in s,
    ``tolerances`` a :class:`~crossdyn.comparison.tolerances.Tolerances` or a TOML path (None: the defaults),
    ``states`` random states for the static metrics, ``convergence`` the dt-convergence runs (4, 2, 1 ms),
    ``require`` the phenomena that must be exercised (``("effort", "limits")``, as ``compare --require``)."""

    duration: float = 1.0
    dt: float = 1e-3
    tolerances: Any = None
    states: int = 200
    convergence: bool = False
    require: tuple[str, ...] = ()


def _caller_dir() -> Path | None:
    """The directory of the first calling frame outside this module (the test file)."""
    here = Path(__file__).resolve()
    for frame in inspect.stack()[1:]:
        path = Path(frame.filename)
        if path.resolve() != here and path.suffix == ".py" and path.is_file():
            return path.resolve().parent
    return None


def _resolve(path: str | Path, base: Path | None, what: str) -> str:
    """``path`` as it exists: absolute as given, else under ``base`` (the test's folder), else under the working
    directory; :class:`CrossdynUsageError` naming every place looked in otherwise."""
    __tracebackhide__ = True
    p = Path(path).expanduser()
    if p.is_absolute():
        if p.exists():
            return str(p)
        raise CrossdynUsageError(f"{what} {path}: no such file")
    places = ([base] if base is not None else []) + [Path.cwd()]
    for folder in places:
        if (folder / p).exists():
            return str(folder / p)
    raise CrossdynUsageError(f"{what} {path}: no such file (looked in {' and '.join(str(f) for f in places)})")


def _looks_like_path(text: str) -> bool:
    return text.endswith((".toml", ".csv", ".py", ".m")) or "/" in text or "\\" in text


def _arm(arm, base: Path | None):
    """An ArmSpec from a spec, a preset name or a TOML path (resolved against the test's folder)."""
    __tracebackhide__ = True
    from crossdyn.models import ArmSpec, SpecError, load_arm, preset_names

    if isinstance(arm, ArmSpec):
        return arm
    text = str(arm)
    if not isinstance(arm, Path) and not _looks_like_path(text):
        try:
            return load_arm(text)
        except SpecError as e:
            raise CrossdynUsageError(f"arm {text!r}: {e} (presets: {', '.join(preset_names())}, or a TOML path)") \
                from None
    try:
        return load_arm(_resolve(text, base, "arm"))
    except SpecError as e:
        raise CrossdynUsageError(str(e)) from None


def _engine(name: str, base: Path | None) -> str:
    """``user:FILE[@options]`` with FILE resolved; other names unchanged."""
    __tracebackhide__ = True
    if not name.startswith("user:"):
        return name
    file, _, options = name[len("user:"):].partition("@")
    return "user:" + _resolve(file, base, "engine user:") + (f"@{options}" if options else "")


def _profile(text: str, base: Path | None) -> str:
    """A profile spec ``NAME|FILE[@key=value...]`` with the file, and any option value that is a file
    (``computed-torque@trajectory=move.toml``), resolved against the test's folder."""
    __tracebackhide__ = True
    head, *options = text.split("@")
    if _looks_like_path(head):
        head = _resolve(head, base, "profile")
    resolved = []
    for option in options:
        key, eq, value = option.partition("=")
        if eq and _looks_like_path(value):
            value = _resolve(value, base, f"profile option {key}=")
        resolved.append(key + eq + value)
    return "@".join([head, *resolved])


def _agreement_options(options: AgreementOptions | None, overrides: dict) -> AgreementOptions:
    """``options`` with the keyword arguments applied (a TypeError naming an unknown one, as a call would)."""
    __tracebackhide__ = True
    if options is not None and not isinstance(options, AgreementOptions):
        raise TypeError(f"assert_engines_agree: options must be an AgreementOptions, got {options!r} "
                        "(duration=..., dt=... as keywords)")
    unknown = sorted(set(overrides) - {f.name for f in fields(AgreementOptions)})
    if unknown:
        raise TypeError(f"assert_engines_agree() got an unexpected keyword argument {unknown[0]!r}")
    return replace(options or AgreementOptions(), **overrides)


def _compare_options(o: AgreementOptions, engines, profile, base: Path | None):
    """The :class:`~crossdyn.comparison.compare.CompareOptions` of the call (the tolerance file read)."""
    __tracebackhide__ = True
    from crossdyn.comparison.compare import CompareOptions
    from crossdyn.comparison.tolerances import Tolerances, load_tolerances

    tolerances = o.tolerances
    if isinstance(tolerances, (str, Path)):
        tolerances = load_tolerances(_resolve(tolerances, base, "tolerances"))
    return CompareOptions(duration=o.duration, dt=o.dt, engines=engines, profile=profile,
                          tolerances=tolerances or Tolerances(), n_states=o.states,
                          convergence_dts=(4e-3, 2e-3, 1e-3) if o.convergence else (), require=o.require)


def assert_engines_agree(arm, engines=None, profile=None, options: AgreementOptions | None = None, *,
                         base_dir: str | Path | None = None, **overrides) -> dict:
    """Run a comparison (short by default) and raise ``AssertionError`` unless every metric passes.

    ``arm`` is a preset name, a TOML path or an :class:`~crossdyn.models.spec.ArmSpec`; ``engines`` names (``user:FILE``
    included); ``profile`` a profile name or a CSV path; ``options`` an :class:`AgreementOptions`, or its fields as
    keywords (``duration``, ``dt``, ``tolerances`` — a :class:`~crossdyn.comparison.tolerances.Tolerances` or a TOML
    path —, ``states``, ``convergence``, ``require``).  Relative paths are looked up in ``base_dir`` (default: the calling test
    file's folder), then the working directory.  Returns the summary dict.
    """
    __tracebackhide__ = True
    from crossdyn.comparison.compare import compare
    from crossdyn.engines import EngineError, make_engine
    from crossdyn.io import InputError

    o = _agreement_options(options, overrides)
    base = Path(base_dir) if base_dir is not None else _caller_dir()
    spec = _arm(arm, base)
    if isinstance(engines, str):
        from crossdyn.engines.registry import split_engine_list

        engines = split_engine_list(engines)  # a list-valued option (limit_force=1,2) stays with its engine
    engines = tuple(_engine(e, base) for e in engines) if engines else None
    if isinstance(profile, (str, Path)):
        profile = _profile(str(profile), base)
    try:
        opt = _compare_options(o, engines, profile, base)
        for name in engines or ():  # a bad name or a file that cannot be used is a usage error, not a disagreement
            make_engine(name, spec, o.dt).close()
        result = compare(spec, opt)
    except (InputError, EngineError, ValueError) as e:
        raise CrossdynUsageError(str(e)) from None
    if result.summary["failures"]:
        raise AssertionError(f"engines disagree on {result.spec.name}:\n  " + "\n  ".join(result.summary["failures"]))
    if not result.passed:  # nothing failed, but something asked about was not judged: a failed test, not a skip
        raise AssertionError(f"comparison of {result.spec.name} is INCONCLUSIVE (nothing departed, but it could not "
                             "judge):\n  " + "\n  ".join(result.summary["inconclusive"]))
    if result.summary.get("not_exercised"):
        import warnings

        warnings.warn(NotExercisedWarning(f"{result.spec.name}: PASS, but NOT EXERCISED (0 checks; require=(...) "
                                          "makes it fail):\n  " + "\n  ".join(result.summary["not_exercised"])),
                      stacklevel=2)
    return result.summary


@pytest.fixture
def crossdyn_engines_agree(request):
    """:func:`assert_engines_agree`, with relative paths resolved against the requesting test file's folder."""
    base = Path(str(request.path)).resolve().parent

    def agree(arm, *args, **kwargs):
        __tracebackhide__ = True
        kwargs.setdefault("base_dir", base)
        return assert_engines_agree(arm, *args, **kwargs)

    return agree


def assert_equations_match(arm, file, *, states: int = 1000, random_params: int = 20, names=None, seed: int = 0,
                           base_dir: str | Path | None = None):
    """Run ``crossdyn check`` on your equations ``file`` (M, C, G) for ``arm`` and raise ``AssertionError`` whose
    message is the check's own diagnosis text (which entries and terms are wrong) unless everything matches.

    Paths resolve like :func:`assert_engines_agree`'s.  A file that cannot be used (an import error, a wrong
    shape) is a :class:`CrossdynUsageError` with the check's message.  Returns the
    :class:`~crossdyn.checking.checker.CheckResult`.
    """
    __tracebackhide__ = True
    from crossdyn.checking import checker, report

    base = Path(base_dir) if base_dir is not None else _caller_dir()
    spec = _arm(arm, base)
    path = _resolve(file, base, "equations file")
    try:
        result = checker.check(spec, path, states=states, random_params=random_params, names=names, seed=seed)
    except checker.UserFileError as e:
        raise CrossdynUsageError(f"crossdyn check: cannot use {file}\n{report.indent(e.report(), '  ')}") from None
    except ValueError as e:
        raise CrossdynUsageError(str(e)) from None
    if not result.passed:
        raise AssertionError(report.render_text(result))
    return result


@pytest.fixture
def crossdyn_equations_match(request):
    """:func:`assert_equations_match`, with relative paths resolved against the requesting test file's folder."""
    base = Path(str(request.path)).resolve().parent

    def match(arm, file, **kwargs):
        __tracebackhide__ = True
        kwargs.setdefault("base_dir", base)
        return assert_equations_match(arm, file, **kwargs)

    return match
