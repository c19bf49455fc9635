"""The optional parts of crossdyn: which ``pip`` extra installs what, and the one message a missing one gives.

The base install (numpy, scipy, sympy, tomli-w, matplotlib) runs ``check``, ``derive``, ``info``, ``export`` and
``examples``.  Everything else is an extra of pyproject.toml; :data:`EXTRAS` names, per extra, the modules whose
presence means it is installed (found with :func:`importlib.util.find_spec`, nothing imported but a dotted name's
parent).  A command that needs an extra calls :func:`require` before any work: a missing one raises
:class:`MissingExtra`, an :class:`~crossdyn.errors.InputError` (exit 2) whose message ends with the ``pip``
command, never a traceback.
"""
from __future__ import annotations

import importlib.util

from crossdyn.errors import InputError

EXTRAS: dict[str, tuple[str, ...]] = {
    "mujoco": ("mujoco",),
    "pybullet": ("pybullet",),
    "pinocchio": ("pinocchio",),
    "dart": ("dartpy",),
    "drake": ("pydrake",),
    "mjx": ("jax", "mujoco", "mujoco.mjx"),
    "warp": ("mujoco", "mujoco_warp", "warp"),  # MuJoCo Warp (mujoco-warp engines)
    "newton": ("newton", "warp"),  # NVIDIA Newton (newton engine)
    "genesis": ("genesis", "torch"),  # Genesis imports torch without declaring it; outside [all] (~8.5 GB)
    "jax": ("jax", "mujoco", "mujoco.mjx"),
    "sweep": ("dask", "distributed", "duckdb", "pyarrow", "pandas"),
    "identify": ("cvxpy", "clarabel"),
    "parquet": ("pyarrow",),
    "numba": ("numba",),  # optional speed: the analytic engine compiled (crossdyn.analytic.compiled)
    "latex": ("antlr4",),
}
"""Extra → the import names it installs (those crossdyn imports).  The engine extras also bring pandas (a comparison
writes its time series with it): :data:`COMPARE_NEEDS`."""

ENGINE_EXTRAS = ("mujoco", "pybullet", "pinocchio", "dart", "drake", "mjx", "warp", "newton", "genesis")
"""One extra per engine family; ``pip install 'crossdyn[all]'`` installs all but :data:`OUTSIDE_ALL`."""

OUTSIDE_ALL = ("genesis",)
"""Engine extras ``[all]`` leaves out: Genesis (3.2 GB plus torch, ≈ 8.5 GB and 20 min to install)."""

DISTRIBUTIONS = {"mujoco": "mujoco", "pybullet": "pybullet", "pinocchio": "pin", "dart": "dartpy", "drake": "drake",
                 "mjx": "mujoco-mjx", "warp": "mujoco-warp", "newton": "newton", "genesis": "genesis-world",
                 "jax": "jax"}
"""Engine extra → the distribution whose version ``crossdyn info --engines`` prints."""

COMPARE_NEEDS = ("pandas",)
"""What ``compare`` needs besides its engines (each engine extra installs it)."""


class MissingExtra(InputError):
    """A command or engine whose extra is not installed (exit 2, the message names the ``pip`` command)."""


def pip_command(extra: str) -> str:
    """``pip install 'crossdyn[EXTRA]'``."""
    return f"pip install 'crossdyn[{extra}]'"


def found(module: str) -> bool:
    """True when ``module`` can be imported (its spec is found; a dotted name imports its parent only)."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a parent package missing or broken
        return False


def missing(extra: str) -> list[str]:
    """The modules of ``extra`` (a name of :data:`EXTRAS`) that are not installed."""
    return [m for m in EXTRAS[extra] if not found(m)]


def require(extra: str, what: str) -> None:
    """Raise :class:`MissingExtra` (exit 2) when ``extra`` is not fully installed: "WHAT needs M (not installed):
    pip install 'crossdyn[EXTRA]'"."""
    gone = missing(extra)
    if gone:
        raise MissingExtra(f"{what} needs {', '.join(gone)} (not installed): {pip_command(extra)}")


def require_modules(modules: tuple[str, ...], what: str, extra: str) -> None:
    """As :func:`require` for a command's own list of ``modules`` that ``extra`` installs."""
    gone = [m for m in modules if not found(m)]
    if gone:
        raise MissingExtra(f"{what} needs {', '.join(gone)} (not installed): {pip_command(extra)}")


def version(extra: str) -> str | None:
    """The installed version of the engine extra's distribution (:data:`DISTRIBUTIONS`), or None."""
    import importlib.metadata

    try:
        return importlib.metadata.version(DISTRIBUTIONS[extra])
    except (importlib.metadata.PackageNotFoundError, KeyError):
        return None
