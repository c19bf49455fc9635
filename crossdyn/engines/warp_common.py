"""What the Warp-based engines (``mujoco-warp``, ``newton``) share: Warp's device choice and its console output."""
from __future__ import annotations

from typing import Any

from crossdyn.errors import EngineError

DEVICES = ("auto", "cpu", "cuda")
"""The ``device`` knob's values: ``auto`` (Warp's preferred device: the first CUDA GPU, else the CPU), ``cpu``,
``cuda``."""


def quiet_warp(wp: Any) -> None:
    """Keep Warp's start-up banner and its per-module "load on device … (compiled)" lines (log level INFO) off
    crossdyn's output; warnings still show."""
    wp.config.quiet = True
    wp.config.log_level = max(int(wp.config.log_level), int(getattr(wp, "LOG_WARNING", 30)))


def warp_device(device: str, engine: str) -> str:
    """The Warp device name for ``engine``'s ``device`` knob (``auto``: Warp's preferred device)."""
    import warp as wp  # type: ignore[import-untyped,import-not-found,unused-ignore]

    if device not in DEVICES:
        raise EngineError(f"{engine} device: must be one of {', '.join(DEVICES)}, got {device!r}")
    if device == "auto":
        return str(wp.get_preferred_device())
    if device == "cuda" and not wp.is_cuda_available():
        raise EngineError(f"{engine} device: cuda asked for, but Warp finds no CUDA device")
    return "cuda:0" if device == "cuda" else "cpu"
