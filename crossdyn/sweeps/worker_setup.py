"""Dask worker preload for the local cluster of ``crossdyn sweep``: the worker process ignores SIGINT.

A terminal's Ctrl-C goes to every process of the foreground group, the workers included.  The
sweep's client handles it (cancels the running chunks, keeps the finished ones, exits 130) and
closes the cluster; workers that died of the same Ctrl-C would only print tracebacks.
"""
from __future__ import annotations


def dask_setup(worker) -> None:  # called by distributed in the worker process's main thread
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
