"""What every batched runner shares (``compare --batch``: N arms under one open-loop torque sequence).

Each engine library that runs N arms at once has a ``batch`` module beside its adapters
(``crossdyn/engines/LIBRARY/batch.py``; the engine table's :data:`crossdyn.engines.registry.BATCH_RUNNERS` names
it), with

* ``OPTIONS``: ``"module:Class"`` of the single-arm adapter's options dataclass whose fields its knobs set (None:
  it takes none), and ``KNOBS``: the :class:`Knob` s (``name@key=value``) the runner honours;
* a runner ``f(engine, problem, options) -> (Q, QD, compile_s, run_s, config)``: ``engine`` has the batched name's
  ``integrator`` and ``dtype``, ``problem`` is a :class:`BatchProblem`, Q and QD are float64 arrays
  (N, K/s + 1, n) of q and q̇ at steps 0, s, 2s, …, K with τ held over each step (zero-order hold).

A runner raises :class:`BatchSkip` (or :class:`~crossdyn.errors.EngineUnsupported`) for a problem it does not take
on purpose, with the reason: the run is then ``skipped``.  Importing a batch module imports no engine library.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from crossdyn.models.spec import ArmParams, ArmSpec


class BatchSkip(Exception):
    """A batched engine that does not run this problem on purpose (the message says why): status skipped."""


@dataclass(frozen=True)
class Knob:
    """One ``name@key=value`` of a batched engine: a field of the single-arm adapter's options dataclass
    (the batch module's ``OPTIONS``) that the batched runner honours.  ``kind``: ``bool``, ``number`` (finite, at
    least ``minimum``) or ``choice`` (one of ``choices``); ``engine_default``: the library's own value, which
    crossdyn's setting (the dataclass default) neutralises; ``what``: what the engine's default would do."""

    name: str
    kind: str
    engine_default: object
    what: str
    choices: tuple = ()
    minimum: float | None = None

    def check(self, engine: str, value: object, valid: str) -> None:
        """Raise :class:`~crossdyn.errors.EngineError` naming ``engine``, the key and the value if ``value`` is
        not of this knob's kind, with the engine's valid keys ``valid``."""
        from crossdyn.errors import EngineError

        if self.kind == "bool":
            ok, expect = isinstance(value, bool), "true or false"
        elif self.kind == "number":
            ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) \
                and (self.minimum is None or value >= self.minimum)
            expect = "a finite number" + (f" >= {self.minimum:g}" if self.minimum is not None else "")
        else:
            ok, expect = value in self.choices, "one of " + ", ".join(map(str, self.choices))
        if not ok:
            raise EngineError(f"engine {engine!r}: option {self.name}={shown(value)}: must be {expect}; it takes: "
                              f"{valid}")


def shown(value: object) -> str:
    """A knob's value as it was typed (``true``, not ``True``)."""
    return str(value).lower() if isinstance(value, bool) else str(value)


EULERDAMP = Knob("eulerdamp", "bool", True, "MuJoCo's implicit joint damping under Euler (no effect under RK4)")
DEVICE = Knob("device", "choice", "auto", "Warp's device: auto (a CUDA GPU, else the CPU), cpu or cuda",
              ("auto", "cpu", "cuda"))


@dataclass(frozen=True)
class BatchProblem:
    """What every batched engine is given: N arms (``p`` of (N, n) fields), their starts ``q0``, ``qd0`` (N, n),
    the shared torque sequence ``tau`` (K, n) held over each step of ``dt``, and the sampling: q, q̇ are kept at
    steps 0, ``save_every``, 2 ``save_every``, …, K.  ``precision`` is JAX's matmul precision."""

    spec: ArmSpec
    p: ArmParams
    q0: np.ndarray
    qd0: np.ndarray
    tau: np.ndarray
    dt: float
    save_every: int
    precision: str = "highest"

    @classmethod
    def of(cls, spec: ArmSpec, p: ArmParams, starts, tau, dt: float, save_every: int,
           precision: str = "highest") -> "BatchProblem":
        """The problem with ``starts = (q0, qd0)`` and ``tau`` as float64 arrays."""
        q0, qd0 = starts
        return cls(spec, p, np.asarray(q0, float), np.asarray(qd0, float), np.asarray(tau, float), dt,
                   save_every, precision)
