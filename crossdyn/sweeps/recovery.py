"""What a sweep run recovered from: workers lost in the middle of it and the chunks that were run again.

Two things re-run a chunk, and a run records both:

* **Dask**: when a worker process dies unexpectedly (killed, out of memory, an engine crashing the
  interpreter), the scheduler logs a ``remove-worker`` event naming the tasks the worker was running
  (``processing-tasks``) and the finished results it held that no client had fetched yet
  (``lost-computed-tasks``), then runs those tasks again on another worker (up to ``allowed-failures``
  times).  The client reads the scheduler's event log (topic ``all``) once at the end of the run and keeps
  the events newer than the run's start whose ``expected`` flag is false (a worker the cluster retired on
  purpose is not lost).
* **crossdyn**: a chunk Dask gave up on (``KilledWorker``) is split into single comparisons, and a single
  comparison killed with its worker gets one more run on its own (:mod:`crossdyn.sweeps.execute`).

The record of each run is appended to ``runs`` in ``DIR/sweep.json`` (earlier runs of a resumed sweep are kept),
printed at the end of ``crossdyn sweep`` and shown in the report (:func:`lines`).
"""
from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class LostWorker:
    """A worker that left the cluster unexpectedly during the run."""

    worker: str  # its address
    at: str  # UTC time of the scheduler's event, ISO 8601
    tasks: int  # tasks of this sweep it was running or holding the unfetched result of


@dataclass
class Recovery:
    """Lost workers and re-run chunks of one run (what ``runs[i]`` of ``sweep.json`` holds, with the run's figures)."""

    lost_workers: list[LostWorker] = field(default_factory=list)
    rerun: dict[str, list[tuple[float, str]]] = field(default_factory=dict)
    """Chunk file name -> (when, on the scheduler's clock; what happened to it), one entry per event."""
    offset: float = 0.0
    """The scheduler's clock minus this process's (crossdyn's own entries are stamped on the scheduler's)."""

    def add(self, chunk_file: str, why: str, at: float | None = None) -> None:
        self.rerun.setdefault(chunk_file, []).append((time.time() + self.offset if at is None else at, why))

    def to_dict(self) -> dict:
        """``lost_workers`` and ``rerun_chunks`` (each chunk's events in the order they happened)."""
        return {"lost_workers": [asdict(w) for w in self.lost_workers],
                "rerun_chunks": [{"chunk": c, "why": [w for _, w in sorted(ev, key=lambda e: e[0])]}
                                 for c, ev in self.rerun.items()]}


def _iso(t: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


def scheduler_time(client) -> float:
    """The scheduler's clock now (its event timestamps are on that clock, which may not be this machine's)."""
    return float(client.run_on_scheduler(time.time))


def read_lost_workers(client, since: float, tasks: dict[str, str], rec: Recovery) -> None:
    """Add to ``rec`` the workers the scheduler removed unexpectedly since ``since`` and, for each task of ours
    (``tasks``: Dask key -> chunk file name) it was running or holding, why its chunk was run again."""
    for t, msg in client.get_events("all"):
        if t < since or not isinstance(msg, dict) or msg.get("action") != "remove-worker" or msg.get("expected"):
            continue
        worker = str(msg.get("worker", "?"))
        running = [k for k in msg.get("processing-tasks", ()) if k in tasks]
        held = [k for k in msg.get("lost-computed-tasks", ()) if k in tasks]
        rec.lost_workers.append(LostWorker(worker, _iso(t), len(running) + len(held)))
        for k in running:  # Dask runs it again unless that was one death too many (then: KilledWorker, below)
            rec.add(tasks[k], f"its worker {worker} died with it running or queued there", t)
        for k in held:
            rec.add(tasks[k], f"its worker {worker} died holding its unfetched result: Dask computed it again", t)


def append_run(out: Path, run_record: dict) -> None:
    """Append one run's record to ``runs`` in ``out/sweep.json``."""
    from crossdyn.io import write_json_atomic

    path = Path(out) / "sweep.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data.setdefault("runs", []).append(run_record)
    write_json_atomic(path, data)


def earlier_runs(out: Path) -> list[dict]:
    """``runs`` of an existing ``out/sweep.json`` (kept when a resumed sweep rewrites the manifest)."""
    path = Path(out) / "sweep.json"
    try:
        runs = json.loads(path.read_text(encoding="utf-8")).get("runs", [])
    except (OSError, ValueError, AttributeError):
        return []
    return runs if isinstance(runs, list) else []


def lines(runs: list[dict]) -> list[str]:
    """Sentences saying, over all runs, how many workers were lost and which chunks were run again and why."""
    if not runs:
        return ["Workers lost and chunks re-run: not recorded (no run record in sweep.json)."]
    lost = [w for r in runs for w in r.get("lost_workers", [])]
    rerun = [c for r in runs for c in r.get("rerun_chunks", [])]
    named = ", ".join(f"{w['worker']} at {w['at']}" for w in lost[:4]) + (", …" if len(lost) > 4 else "")
    head = (f"Workers lost: {len(lost)}" + (f" ({named})" if lost else "")
            + f"; chunks re-run: {len(rerun)}" + (":" if rerun else " (every chunk ran once)."))
    return [head] + [f"- {c['chunk']}: {'; '.join(c['why'])}" for c in rerun]
