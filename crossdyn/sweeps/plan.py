"""A sweep cut into chunks of comparisons, and the work one chunk does (inside a Dask worker).

A *group* is one ``compare`` call: one arm, one profile, one dt, every engine of the sweep (the
analytic reference — the expensive part — is computed once per group and shared by its engines).
A *chunk* is one Dask task: consecutive groups, enough of them to do at least
:data:`TARGET_CHUNK_S` of estimated work (Dask's per-task overhead is ~1 ms).  The plan depends
only on the sweep file, never on the number of workers, so rows do not either.

A chunk's name is a hash of everything that determines its rows (arm specs, profiles, dts,
engines and their user files' contents, duration, states, seed, tolerances, the row schema):
re-running a sweep skips chunks whose file exists.
"""
from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass

from crossdyn.sweeps.rows import ROW_SCHEMA_VERSION

TARGET_CHUNK_S = 0.25
"""Estimated seconds of work per chunk (≥ 100 ms so Dask's ~1 ms per task stays below 1 %)."""
REFERENCE_S_PER_STEP = 7e-4
"""Measured cost of the adaptive DOP853 reference per step, driven + free run (planar3r, ~0.65 ms)."""
ENGINE_S_PER_STEP = 5e-5
"""Measured cost per step of one engine's driven, free and dt/2 runs and its energies (~40–70 µs)."""
ENGINE_S_PER_STATE = 3e-5
"""Measured cost of one engine's inverse/forward dynamics and mass matrix at one random state."""


@dataclass(frozen=True)
class Group:
    """One comparison call: one arm × profile × dt, all the sweep's engines."""

    arm: dict  # ArmSpec.to_dict()
    source: str  # preset / file / random
    profile: str
    dt: float


@dataclass(frozen=True)
class Chunk:
    """One Dask task: groups run one after the other in one worker."""

    key: str  # hash of the inputs (the file name's stem after "chunk-")
    groups: tuple[Group, ...]
    engines: tuple[str, ...]
    duration: float
    states: int
    seed: int
    tolerances: tuple  # sorted (key, value) overrides

    @property
    def file_name(self) -> str:
        return f"chunk-{self.key}.parquet"

    @property
    def comparisons(self) -> int:
        return len(self.groups) * len(self.engines)

    def single(self, group: Group, engine: str) -> "Chunk":
        """One comparison of this chunk as a chunk of its own (run alone when the whole chunk kept crashing)."""
        part = hashlib.sha256(json.dumps([self.key, group.__dict__, engine], sort_keys=True).encode()).hexdigest()
        return Chunk(f"{self.key}-{part[:8]}", (group,), (engine,), self.duration, self.states, self.seed,
                     self.tolerances)


def estimate_seconds(group: Group, n_engines: int, duration: float, states: int) -> float:
    steps = duration / group.dt
    return steps * (REFERENCE_S_PER_STEP + n_engines * ENGINE_S_PER_STEP) + n_engines * states * ENGINE_S_PER_STATE


def plan_chunks(sweep, target_s: float = TARGET_CHUNK_S) -> list[Chunk]:
    """The sweep's chunks, in a fixed order (arm, profile, dt)."""
    groups = [Group(a.spec.to_dict(), a.source, p, dt) for a in sweep.arms for p in sweep.profiles
              for dt in sweep.dts]
    tol = tuple(sorted(sweep.tolerances.items()))
    chunks, current, cost = [], [], 0.0
    for g in groups:
        current.append(g)
        cost += estimate_seconds(g, len(sweep.engines), sweep.duration, sweep.states)
        if cost >= target_s:
            chunks.append(_chunk(current, sweep, tol))
            current, cost = [], 0.0
    if current:
        chunks.append(_chunk(current, sweep, tol))
    return chunks


def _chunk(groups, sweep, tol) -> Chunk:
    identity = {"schema": ROW_SCHEMA_VERSION, "groups": [g.__dict__ for g in groups], "engines": sweep.engines,
                "engine_files": sweep.engine_digests, "duration": sweep.duration, "states": sweep.states,
                "seed": sweep.seed, "tolerances": tol}
    key = hashlib.sha256(json.dumps(identity, sort_keys=True, default=repr).encode()).hexdigest()[:24]
    return Chunk(key, tuple(groups), tuple(sweep.engines), sweep.duration, sweep.states, sweep.seed, tol)


_WARM: set = set()


def _warm_up(spec, engines, dt: float) -> None:
    """Build and step each engine once per process (a few steps, results dropped), so that the first
    comparison's µs/step does not include first-call costs (imports, MuJoCo's thread pool, code generation)."""
    from crossdyn.comparison.compare import CompareOptions, compare

    todo = tuple(e for e in engines if (e, spec.n) not in _WARM)
    if todo:
        compare(spec, CompareOptions(duration=20 * dt, dt=dt, engines=todo, n_states=2, convergence_dts=()))
        _WARM.update((e, spec.n) for e in todo)


def run_chunk(chunk: Chunk) -> list[dict]:
    """Run every comparison of ``chunk`` (metrics only: no plots, no files) and return its rows.

    Engines are built here, in the worker process.  An engine that fails is one failed row (compare
    contains it); an input error in a group (a :class:`~crossdyn.errors.CrossdynError` or ``ValueError``) fails
    that group's rows with the reason.
    """
    from crossdyn.errors import CrossdynError
    from crossdyn.comparison.compare import CompareOptions, compare
    from crossdyn.comparison.tolerances import Tolerances
    from crossdyn.models.spec_io import spec_from_dict
    from crossdyn.sweeps.rows import failed_rows, rows_from_summary

    tol = Tolerances(**dict(chunk.tolerances))
    rows: list[dict] = []
    for g in chunk.groups:
        t0 = time.perf_counter()
        try:
            spec = spec_from_dict(g.arm, g.arm.get("name", "arm"))
            _warm_up(spec, chunk.engines, g.dt)
            opt = CompareOptions(duration=chunk.duration, dt=g.dt, engines=chunk.engines,
                                 profile=g.profile, tolerances=tol, n_states=chunk.states, seed=chunk.seed,
                                 convergence_dts=(), jobs=1)
            result = compare(spec, opt)
        except (CrossdynError, ValueError) as e:  # a group its input cannot run (a profile option this arm does
            # not take): recorded, the sweep goes on; anything else is crossdyn's bug and fails the task, which the
            # client isolates to its comparison and records with the reason (execute.py, **Crashes**)
            rows.extend(failed_rows(chunk, g, f"{type(e).__name__}: {e}"))
            continue
        rows.extend(rows_from_summary(chunk, g, result.summary, time.perf_counter() - t0))
    return rows
