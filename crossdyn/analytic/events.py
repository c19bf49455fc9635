"""Event-exact integration of a switched ODE: the loop shared by the limit, stick–slip and contact references.

:func:`integrate_events` integrates ẏ = f(t, y) from y(0) = y0 to ``duration`` with adaptive DOP853
(scipy.integrate.DOP853, dense output of order 7) and makes sure that no step ever straddles a switch of the
right-hand side:

* **hold boundaries** — with ``hold`` = h the interval [0, duration] is cut at h, 2h, …; the integrator
  stops exactly there and ``on_hold(t, y)`` is called before each interval (where a zero-order-hold input, a
  commanded torque sampled like the engines get it, is updated);
* **events** — ``events(t, y)`` returns a vector g of event functions; after every accepted step each
  component whose sign changed between the step's ends (in the chosen ``direction``; components that are
  ±inf at either end are inactive) is located on the step's dense output by Brent's method (``brentq``,
  xtol 1e-15, rtol 4 ε) — with a ``direction`` of ±1, exactly 0 at the step's end is a root there.  Roots that ``accept`` rejects
  are dropped, and so (with ``min_separation``) are roots within that many seconds of the last restart (the
  switch just handled, whose function may touch 0 again by rounding).  The integration stops at the earliest
  root t*, ``on_event(t*, y(t*), hits)`` is called with every root within 1e-13 s of t* (sorted (t_i, i,
  rising)) and may return a new state (a reset) or None, and DOP853 restarts at t*.

The right-hand side may depend on a mode that the callbacks change (the stick–slip reference); it is never
evaluated across a change, since each change happens at a restart.  The state at a root is the dense output of
the step that straddles it (whose right-hand side switched inside it): accurate to that step's local error.
A component exactly 0 where an integration (re)starts is not a sign change: the caller handles switches under
way at t = 0.  States are reported on the output grid
0, output_dt, … ≤ duration from the dense output of the step that covers each grid time (``record(t, y)``
adds an extra per-grid-point value, e.g. the mode in force).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np
from scipy.integrate import DOP853
from scipy.optimize import brentq

SIMULTANEOUS = 1e-13
"""s: roots within this of the earliest one are handled at the same restart."""


@dataclass
class EventRun:
    """Result of :func:`integrate_events`."""

    t: np.ndarray
    """The output grid (s)."""
    y: np.ndarray
    """States on the grid, shape (len(t), len(y0))."""
    extra: list = field(default_factory=list)
    """``record(t, y)`` per grid point (empty without ``record``)."""
    steps: int = 0
    """Accepted DOP853 steps."""
    t_end: float = 0.0
    y_end: np.ndarray | None = None
    """The state at ``duration`` (after any reset there)."""


def output_grid(duration: float, output_dt: float) -> np.ndarray:
    """0, output_dt, 2 output_dt, … never beyond ``duration``."""
    return np.arange(int(np.floor(duration / output_dt + 1e-9)) + 1) * output_dt


def hold_bounds(duration: float, hold: float | None) -> list:
    """The ends of the hold intervals: h, 2h, … (< duration), then duration (just duration when ``hold`` is None)."""
    return (np.arange(hold, duration, hold).tolist() if hold is not None else []) + [duration]


def integrate_events(rhs: Callable, events: Callable, y0, duration: float, *, hold: float | None = None,
                     on_hold: Callable | None = None, on_event: Callable | None = None,
                     accept: Callable | None = None, direction: int = 0, min_separation: float | None = None,
                     record: Callable | None = None, output_dt: float = 1e-3, rtol: float = 1e-11,
                     atol: float = 1e-11, max_steps: int = 1_000_000, name: str = "reference",
                     method=DOP853) -> EventRun:
    """Integrate ẏ = ``rhs(t, y)`` over [0, ``duration``] exact at hold boundaries and event roots (module docstring).

    ``events(t, y)`` -> g (m,): a root of g_i is a switch.  ``direction``: 0 any strict sign change
    (g_old g_new < 0), −1 falling (g_old > 0 ≥ g_new), +1 rising (g_old < 0 ≤ g_new).
    ``accept(i, t_i, dense)`` -> bool filters roots (``dense`` the step's dense output).
    ``on_event(t, y, hits)`` -> new y or None, with ``hits`` [(t_i, i, rising)] of the roots handled at t.
    ``on_hold(t, y)`` is called at the start of every hold interval (t = 0 included).
    ``record(t, y)`` -> a value stored per grid point.  ``method``: the scipy OdeSolver class (DOP853; Radau,
    implicit with a dense output of order 3, for stiff stretches).  Raises FloatingPointError (prefixed with
    ``name``) when the solver fails or takes more than ``max_steps`` steps.
    """
    x = np.array(y0, dtype=float)
    grid = output_grid(duration, output_dt)
    out = np.empty((len(grid), len(x)))
    extra: list = [None] * len(grid) if record is not None else []
    out[0] = x
    if record is not None:
        extra[0] = record(0.0, x)
    filled = 1
    t, steps = 0.0, 0
    eps4 = 4 * np.finfo(float).eps
    for t_end in hold_bounds(duration, hold):
        if on_hold is not None:
            on_hold(t, x)
        while t < t_end - 1e-15:
            solver = method(rhs, t, x, t_end, rtol=rtol, atol=atol)
            g_old = np.asarray(events(t, x), dtype=float)
            t_restart = t
            restarted = False
            while solver.status == "running":
                solver.step()
                steps += 1
                if steps > max_steps:
                    raise FloatingPointError(f"{name}: more than {max_steps} steps by t = {solver.t:.6g} s")
                dense = solver.dense_output()
                g_new = np.asarray(events(solver.t, solver.y), dtype=float)
                finite = np.isfinite(g_old) & np.isfinite(g_new)
                if direction == 0:
                    crossed = g_old * g_new < 0
                elif direction < 0:
                    crossed = (g_old > 0) & (g_new <= 0)
                else:
                    crossed = (g_old < 0) & (g_new >= 0)
                hits = []
                for i in np.nonzero(crossed & finite)[0]:
                    i = int(i)
                    if g_new[i] == 0.0:
                        t_i = solver.t
                    else:
                        t_i = brentq(lambda s, i=i: events(s, dense(s))[i], solver.t_old, solver.t, xtol=1e-15,
                                     rtol=eps4)
                    if accept is not None and not accept(i, t_i, dense):
                        continue
                    if min_separation is not None and not t_i > t_restart + min_separation:
                        continue  # the switch we restarted at
                    hits.append((t_i, i, bool(g_new[i] > g_old[i])))
                t_stop = min(hits)[0] if hits else solver.t
                while filled < len(grid) and grid[filled] <= t_stop + 1e-15:
                    y = dense(grid[filled]) if grid[filled] < solver.t else solver.y
                    out[filled] = y
                    if record is not None:
                        extra[filled] = record(grid[filled], y)
                    filled += 1
                if hits:
                    t = t_stop
                    x = dense(t).copy()
                    now = sorted(h for h in hits if h[0] <= t + SIMULTANEOUS)
                    if on_event is not None:
                        reset = on_event(t, x, now)
                        if reset is not None:
                            x = np.asarray(reset, dtype=float)
                    if record is not None and filled < len(grid) and abs(grid[filled - 1] - t) < 1e-15:
                        extra[filled - 1] = record(t, x)  # the mode in force from t on
                    restarted = True
                    break
                g_old = g_new
            if not restarted:
                if solver.status == "failed":
                    raise FloatingPointError(f"{name}: {method.__name__} failed at t = {solver.t:.6g} s")
                t, x = solver.t, solver.y.copy()
    while filled < len(grid):
        out[filled] = x
        if record is not None:
            extra[filled] = record(grid[filled], x)
        filled += 1
    return EventRun(grid, out, extra, steps, t, x)
