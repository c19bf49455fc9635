"""Run a sweep on Dask distributed: chunks submitted incrementally, one Parquet file per finished chunk.

* **Cluster**: a ``LocalCluster`` of worker processes (one per core, one thread each: PyBullet
  clients are neither picklable nor thread-safe, so every engine is built inside its worker) started
  for the run, or the user's cluster at ``--scheduler tcp://HOST:PORT``.
* **Submission**: at most ``in_flight`` chunks (default 2 × threads + 2) are on the cluster at a
  time; as each completes (``as_completed``) the next is submitted, so a million-row sweep neither
  blocks the client building futures nor floods the scheduler.
* **Results**: each finished chunk's rows go to ``DIR/results/chunk-<hash>.parquet``, written
  atomically (temporary file + rename) by this process; a re-run skips chunks whose file exists.
* **Crashes**: the scheduler reschedules a task whose worker died once
  (``distributed.scheduler.allowed-failures = 1``, set for the local cluster); when it kills a
  second worker Dask gives up (``KilledWorker``).  A chunk of several comparisons is then run one
  comparison per task, so only the comparison that crashes is recorded as failed (with the reason); a single
  comparison that Dask gives up on only because it sat on workers another one killed gets one more run of its
  own before it is recorded failed.
* **Ctrl-C**: the finished chunks are on disk; running ones are cancelled; ``interrupted`` is set.
* **Record**: the workers lost during the run and the chunks run again, and why (:mod:`crossdyn.sweeps.recovery`),
  are in :attr:`SweepRun.recovery` and appended to ``runs`` in ``DIR/sweep.json``.
"""
from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from crossdyn.errors import UsageError
from crossdyn.sweeps.plan import Chunk, plan_chunks, run_chunk
from crossdyn.sweeps.recovery import Recovery, append_run, earlier_runs, read_lost_workers, scheduler_time

SWEEP_SCHEMA = "crossdyn.sweep/1"
ALLOWED_FAILURES = 1
"""Times the scheduler re-runs a task whose worker died before giving up on it (Dask's allowed-failures)."""
LOCAL_CONFIG = {
    "distributed.scheduler.allowed-failures": ALLOWED_FAILURES,
    # background work a sweep does not use, which costs CPU per second of wall time (measured on the idle
    # local cluster: 4.6 % of a core with Dask's defaults): the statistical profiler sampling the task
    # thread every 10 ms, the event-loop health check every 20 ms, memory and system monitors
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "500ms",
    "distributed.admin.system-monitor.interval": "2s",
    "distributed.worker.memory.monitor-interval": "1s",
}
"""Dask settings of the local cluster ``crossdyn sweep`` starts."""


class SweepUsageError(UsageError):
    """A sweep cannot start for a reason the user can fix (bad --scheduler, bad --workers): exit 2."""


@dataclass
class SweepRun:
    """What a call of :func:`run_sweep` did."""

    out: Path
    chunks: list[Chunk]
    skipped: int = 0  # chunks already written by an earlier run
    written: int = 0
    failed_comparisons: int = 0
    interrupted: bool = False
    wall_s: float = 0.0
    workers: int = 0
    notes: list[str] = field(default_factory=list)
    recovery: Recovery = field(default_factory=Recovery)

    @property
    def complete(self) -> bool:
        return self.skipped + self.written == len(self.chunks)


def results_dir(out) -> Path:
    return Path(out) / "results"


def manifest(sweep, chunks) -> dict:
    """``DIR/sweep.json``: the sweep's settings and the chunk files that make it up (what the report reads)."""
    return {"schema": SWEEP_SCHEMA, "name": sweep.name, "comparisons": sweep.comparisons,
            "arms": [a.spec.name for a in sweep.arms], "engines": list(sweep.engines), "dt": list(sweep.dts),
            "profiles": list(sweep.profiles), "duration": sweep.duration, "states": sweep.states,
            "seed": sweep.seed, "tolerances": sweep.tolerances, "chunks": [c.file_name for c in chunks]}


class _Progress:
    """One status line: chunks and comparisons done, rate, ETA (redrawn in place on a terminal)."""

    def __init__(self, total_cmp: int, done_cmp: int, stream=None, every_s: float = 5.0):
        self.total, self.start_done, self.done = total_cmp, done_cmp, done_cmp
        self.failed = 0
        self.t0 = time.perf_counter()
        self.stream = stream if stream is not None else sys.stderr
        self.tty = getattr(self.stream, "isatty", lambda: False)()
        self.every_s, self.last = every_s, -1e9
        self.shown: int | None = None

    def update(self, n_cmp: int, failed: int = 0, force: bool = False) -> None:
        self.done += n_cmp
        self.failed += failed
        now = time.perf_counter()
        if not (force or self.tty or now - self.last >= self.every_s) or self.shown == self.done:
            return
        self.last, self.shown = now, self.done
        elapsed = now - self.t0
        rate = (self.done - self.start_done) / elapsed if elapsed > 0 else 0.0
        left = self.total - self.done
        eta = f"{_hms(left / rate)}" if rate > 0 else "?"
        line = (f"sweep: {self.done}/{self.total} comparisons ({100 * self.done / max(self.total, 1):.0f} %), "
                f"{rate:.2f}/s, ETA {eta}, failed {self.failed}")
        if self.tty:
            print("\r" + line.ljust(90), end="", file=self.stream, flush=True)
        else:
            print(line, file=self.stream, flush=True)

    def close(self) -> None:
        if self.tty:
            print(file=self.stream, flush=True)


def _hms(s: float) -> str:
    s = int(round(s))
    return f"{s // 3600}h{s % 3600 // 60:02d}m{s % 60:02d}s" if s >= 3600 else f"{s // 60}m{s % 60:02d}s"


def _write_chunk(out: Path, chunk: Chunk, rows: list[dict]) -> None:
    from crossdyn.io import write_bytes_atomic
    from crossdyn.sweeps.rows import to_parquet_bytes

    write_bytes_atomic(results_dir(out) / chunk.file_name, to_parquet_bytes(rows))


def _start_client(scheduler: str | None, workers: int | None, notes: list[str]):
    """A ``distributed.Client`` (and the LocalCluster it owns, or None)."""
    import logging
    import signal

    import dask
    from distributed import Client, LocalCluster

    if scheduler:
        try:
            client = Client(scheduler, timeout="10s")
        except (OSError, TimeoutError, ValueError) as e:
            raise SweepUsageError(f"--scheduler {scheduler}: cannot connect: {e}") from None
        if workers:
            try:
                client.wait_for_workers(workers, timeout=120)
            except (TimeoutError, OSError):
                have = len(client.scheduler_info().get("workers", {}))
                client.close()
                raise SweepUsageError(f"--workers {workers}: the scheduler at {scheduler} has {have} worker(s) "
                                      "after waiting 120 s") from None
        allowed = client.run_on_scheduler(lambda dask_scheduler: dask_scheduler.allowed_failures)
        if allowed != ALLOWED_FAILURES:
            notes.append(f"the scheduler re-runs a task whose worker died {allowed} time(s) before giving up "
                         f"(start it with DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES={ALLOWED_FAILURES} "
                         "to retry a crashing comparison once)")
        return client, None
    n = workers or os.cpu_count() or 1
    # Ctrl-C is for this process (it cancels the running chunks): the cluster's threads are started with
    # SIGINT blocked, the worker processes ignore it (preload), so a terminal's Ctrl-C kills no worker
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        with dask.config.set(LOCAL_CONFIG):
            cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address="127.0.0.1:0", host="127.0.0.1",
                                   silence_logs=logging.CRITICAL, preload=["crossdyn.sweeps.worker_setup"])
            client = Client(cluster)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
    return client, cluster


def _prepare(sweep, out: Path) -> tuple[list[Chunk], set[str]]:
    """The sweep's chunks and the chunk files already in ``out/results`` (``sweep.json`` written, stale
    temporary files of a killed client removed)."""
    from crossdyn.io import write_json_atomic

    chunks = plan_chunks(sweep)
    results_dir(out).mkdir(parents=True, exist_ok=True)
    for stale in results_dir(out).glob(".chunk-*.tmp"):  # a write cut short by a killed client: never counted
        if time.time() - stale.stat().st_mtime > 600:  # (a younger one may be another client's write)
            stale.unlink(missing_ok=True)
    runs = earlier_runs(out)
    write_json_atomic(out / "sweep.json", {**manifest(sweep, chunks), **({"runs": runs} if runs else {})})
    return chunks, {p.name for p in results_dir(out).glob("chunk-*.parquet")}


class _Scheduler:
    """The client side of one sweep run: at most ``limit`` chunks on the cluster, each finished one written,
    a crashing chunk split into single comparisons (module docstring, **Crashes**)."""

    def __init__(self, client, out: Path, run: SweepRun, bar: _Progress, todo: list[Chunk], limit: int):
        from distributed import as_completed

        self.client, self.out, self.run, self.bar, self.limit = client, out, run, bar, limit
        self.pending = iter(todo)
        self.futures: dict = {}  # future -> (chunk to write, chunk run, index in the split chunk or None)
        self.parts: dict = {}  # parent key -> {"rows": {index: rows}, "n": int}
        self.ac = as_completed()
        self.second_chance: set = set()  # (parent key, index) of singles resubmitted once after a KilledWorker
        self.tasks: dict[str, str] = {}  # Dask key of every task submitted -> its chunk's file name

    def submit(self, chunk: Chunk, parent: Chunk | None = None, index: int | None = None) -> None:
        fut = self.client.submit(run_chunk, chunk, pure=False,
                                 key=f"crossdyn-sweep-{chunk.key}-{time.monotonic_ns()}")
        self.futures[fut] = (parent or chunk, chunk, index)
        self.tasks[fut.key] = (parent or chunk).file_name
        self.ac.add(fut)

    def fill(self) -> None:
        while len(self.futures) < self.limit:
            chunk = next(self.pending, None)
            if chunk is None:
                return
            self.submit(chunk)

    def loop(self) -> None:
        """Until every chunk is written: poll, not block (a Ctrl-C that another thread of this process receives
        still reaches the main thread within 50 ms; a thread blocked in Condition.wait would not wake for it)."""
        self.fill()
        while not self.ac.is_empty():
            if not self.ac.has_ready():
                time.sleep(0.05)
                continue
            for fut in self.ac.next_batch(block=False):
                self.handle(fut)
            self.fill()

    def handle(self, fut) -> None:
        parent, chunk, index = self.futures.pop(fut)
        # a finished result whose worker died before this client fetched it (killed by the next comparison it
        # ran) is "lost" for a moment: the scheduler recomputes it, and exception() waits for that and is None
        err = None if fut.status == "finished" else fut.exception()
        if err is None:
            rows = fut.result()
        elif self._retried(err, parent, chunk, index):
            fut.release()
            return
        else:
            from crossdyn.sweeps.rows import failed_rows

            rows = failed_rows(parent, chunk.groups[0], _reason(err), engines=chunk.engines)
        fut.release()
        if index is not None:  # one comparison of a split chunk: the chunk's file waits for all of them
            rows = self._collect_part(parent, index, rows)
            if rows is None:
                return
        failed = sum(1 for r in rows if r["status"] != "ok")
        _write_chunk(self.out, parent, rows)
        self.run.written += 1
        self.run.failed_comparisons += failed
        self.bar.update(parent.comparisons, failed)

    def _retried(self, err: BaseException, parent: Chunk, chunk: Chunk, index: int | None) -> bool:
        """Resubmit what a failed task should be run as instead: a chunk of several comparisons one comparison per
        task (to find the one that crashes); a single comparison killed with its worker once more on its own."""
        if index is None and chunk.comparisons > 1:
            singles = [(g, e) for g in chunk.groups for e in chunk.engines]
            self.parts[chunk.key] = {"rows": {}, "n": len(singles)}
            self.run.recovery.add(chunk.file_name, f"{_reason(err)}: split into {len(singles)} single comparisons")
            for i, (g, e) in enumerate(singles):
                self.submit(chunk.single(g, e), parent=chunk, index=i)
            return True
        if index is not None and _killed(err) and (parent.key, index) not in self.second_chance:
            # a single comparison queued on a worker that another comparison crashed counts that death too
            # (Dask marks every task processing there as suspicious): one more run on its own, as a new task,
            # tells a bystander (it finishes) from the crasher (it kills its worker twice again)
            self.second_chance.add((parent.key, index))
            self.run.recovery.add(parent.file_name, f"comparison {index + 1} of the split chunk was killed with its "
                                                    "worker: run once more on its own")
            self.submit(chunk, parent=parent, index=index)
            return True
        return False

    def _collect_part(self, parent: Chunk, index: int, rows: list[dict]) -> list[dict] | None:
        """The split chunk's rows in order once all its comparisons are back, else None."""
        for r in rows:
            r["chunk"] = parent.key
        entry = self.parts[parent.key]
        entry["rows"][index] = rows
        if len(entry["rows"]) < entry["n"]:
            return None
        del self.parts[parent.key]
        return [r for i in sorted(entry["rows"]) for r in entry["rows"][i]]

    def cancel(self) -> None:
        for fut in list(self.futures):
            fut.cancel()


def _close_quietly(thing) -> None:
    """Close a Dask client or cluster at the end of a run; its own shutdown errors (Dask's, after a Ctrl-C or a
    lost scheduler) must not hide what finished."""
    try:
        thing.close(timeout=10)
    except Exception:  # noqa: BLE001 — Dask's shutdown, not crossdyn's logic: what finished is on disk
        pass


def run_sweep(sweep, out, scheduler: str | None = None, workers: int | None = None, in_flight: int | None = None,
              progress_stream=None, quiet: bool = False, client=None) -> SweepRun:
    """Run every chunk of ``sweep`` not yet in ``out/results/`` (see the module docstring).

    ``client``: an existing ``distributed.Client`` to use (left open); otherwise one is started
    (``scheduler`` / ``workers``) and closed at the end.
    """
    out = Path(out)
    t0 = time.perf_counter()
    chunks, have = _prepare(sweep, out)
    todo = [c for c in chunks if c.file_name not in have]
    run = SweepRun(out, chunks, skipped=len(chunks) - len(todo))
    if not todo:
        run.wall_s = time.perf_counter() - t0
        return run
    stream = progress_stream if progress_stream is not None else sys.stderr
    bar = _Progress(sum(c.comparisons for c in chunks), sum(c.comparisons for c in chunks if c.file_name in have),
                    stream)
    if quiet:
        bar.update = lambda *a, **k: None  # type: ignore[method-assign]
    own = client is None
    cluster = None
    if own:
        client, cluster = _start_client(scheduler, workers, run.notes)
    run.workers = len(client.scheduler_info().get("workers", {}))
    since = scheduler_time(client)
    run.recovery.offset = since - time.time()
    threads = sum(client.nthreads().values()) or 1
    driver = _Scheduler(client, out, run, bar, todo, in_flight or 2 * threads + 2)
    try:
        driver.loop()
        bar.update(0, force=True)
    except KeyboardInterrupt:
        run.interrupted = True
    finally:
        bar.close()
        driver.cancel()
        _read_recovery(client, since, driver.tasks, run)
        if own:
            _close_quietly(client)
        if cluster is not None:
            _close_quietly(cluster)
    run.wall_s = time.perf_counter() - t0
    append_run(out, {"started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - run.wall_s)),
                     "wall_s": round(run.wall_s, 3), "workers": run.workers, "chunks_written": run.written,
                     "interrupted": run.interrupted, **run.recovery.to_dict()})
    return run


def _read_recovery(client, since: float, tasks: dict[str, str], run: SweepRun) -> None:
    """The workers lost and chunks Dask re-ran, from the scheduler's event log (a note if it cannot be read)."""
    try:
        read_lost_workers(client, since, tasks, run.recovery)
    except Exception as e:  # noqa: BLE001 — a scheduler gone after Ctrl-C: the rows on disk still count
        run.notes.append(f"could not read the scheduler's event log for lost workers: {type(e).__name__}: {e}")


def _killed(err: BaseException) -> bool:
    from distributed.scheduler import KilledWorker

    return isinstance(err, KilledWorker)


def _reason(err: BaseException) -> str:
    """Why a task produced no rows (no worker address: rows must not depend on where it ran)."""
    from distributed.scheduler import KilledWorker

    if isinstance(err, KilledWorker):
        n = getattr(err, "allowed_failures", ALLOWED_FAILURES)
        return (f"the worker process running it died {n + 1} times (retried {n}; an engine crashing the "
                "interpreter?): dask KilledWorker")
    return f"{type(err).__name__}: {err}"
