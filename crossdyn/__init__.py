"""crossdyn: cross-validate planar robot-arm dynamics — hand-derived equations and physics engines against an
analytic Lagrangian model.

The public API, for scripts (imported lazily, so ``import crossdyn`` stays cheap)::

    from crossdyn import load_arm, make_engine, compare, check

    spec = load_arm("planar2r")                       # a preset name or a TOML path -> ArmSpec
    result = compare(spec, duration=1.0, engines=["mujoco-rk4", "pinocchio"])
    result.passed, result.summary["engines"]["mujoco-rk4"]["trajectory"]
    check("planar3r", "my_3r.py").passed               # your hand-derived M, C, G

Options are frozen dataclasses (``CompareOptions``, ``CheckOptions``, ``IdentifyOptions``; their fields are also
accepted as keywords) and results are typed (``Comparison``, ``CheckResult``, ``IdentificationResult``, each with
the document the command line writes: ``to_summary()`` / ``to_dict()``).  Errors derive from ``CrossdynError``
(bad input: ``InputError``, a ``ValueError``).

Packages, one per stage (each imports only from the ones before it; ``tests/test_layout.py`` holds it):
``models`` (specs, URDF/MJCF) → ``analytic`` (the model under test: laws, references) and ``equations`` (your
M, C, G) → ``engines`` (adapters, capabilities, registry) → ``inputs`` (profiles, trajectories) → ``drive`` (the
runner) → ``native`` (engines' own limits, friction, contact) → ``comparison`` / ``checking`` /
``identification`` / ``batch`` → ``reporting`` → ``sweeps`` → ``cli``.
"""
from crossdyn.version import __version__

_API = {
    # name: (module, attribute)
    "load_arm": ("crossdyn.models", "load_arm"),
    "get_preset": ("crossdyn.models", "get_preset"),
    "ArmSpec": ("crossdyn.models", "ArmSpec"),
    "LinkSpec": ("crossdyn.models", "LinkSpec"),
    "SpecError": ("crossdyn.models", "SpecError"),
    "to_urdf": ("crossdyn.models", "to_urdf"),
    "to_mjcf": ("crossdyn.models", "to_mjcf"),
    "make_engine": ("crossdyn.engines", "make_engine"),
    "engine_names": ("crossdyn.engines", "engine_names"),
    "available_engines": ("crossdyn.engines", "available_engines"),
    "EngineError": ("crossdyn.engines", "EngineError"),
    "make_profile": ("crossdyn.inputs.profiles", "make_profile"),
    "run_engine": ("crossdyn.drive.runner", "run_engine"),
    "compare": ("crossdyn.comparison.compare", "compare"),
    "CompareOptions": ("crossdyn.comparison.options", "CompareOptions"),
    "Comparison": ("crossdyn.comparison.result", "Comparison"),
    "Tolerances": ("crossdyn.comparison.tolerances", "Tolerances"),
    "check": ("crossdyn.checking.checker", "check"),
    "CheckResult": ("crossdyn.checking.checker", "CheckResult"),
    "CheckOptions": ("crossdyn.checking.options", "CheckOptions"),
    "identify": ("crossdyn.identification.identify", "identify"),
    "IdentifyOptions": ("crossdyn.identification.identify", "IdentifyOptions"),
    "IdentificationResult": ("crossdyn.identification.result", "IdentificationResult"),
    "CrossdynError": ("crossdyn.errors", "CrossdynError"),
    "InputError": ("crossdyn.errors", "InputError"),
    "RunStatus": ("crossdyn.status", "RunStatus"),
    "Verdict": ("crossdyn.status", "Verdict"),
}

__all__ = ["__version__", "analytic", *_API]


def __getattr__(name: str):
    """Import a public name on first use (PEP 562)."""
    import importlib

    if name == "analytic":
        return importlib.import_module("crossdyn.analytic")
    try:
        module, attr = _API[name]
    except KeyError:
        raise AttributeError(f"module 'crossdyn' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module), attr)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
