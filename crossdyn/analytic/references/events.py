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
from typing import Any, Callable, TypedDict, Unpack

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


@dataclass(frozen=True)
class EventOptions:
    """How :func:`integrate_events` runs (every field a keyword of it; the module docstring has the rules).

    ``hold``: the hold period h (s; None: one interval).  ``on_hold(t, y)``: called at the start of every hold
    interval (t = 0 included).  ``on_event(t, y, hits)`` -> new y or None, ``hits`` [(t_i, i, rising)] the roots
    handled at t.  ``accept(i, t_i, dense)`` -> bool filters roots (``dense`` the step's dense output).
    ``direction``: 0 any strict sign change (g_old g_new < 0), −1 falling (g_old > 0 ≥ g_new), +1 rising
    (g_old < 0 ≤ g_new).  ``min_separation`` (s): roots this close to the last restart are dropped.
    ``record(t, y)`` -> a value stored per grid point.  ``output_dt``: the output grid's step (s); ``rtol``,
    ``atol``: the solver's tolerances; ``max_steps``: the step budget; ``name`` prefixes error messages;
    ``method``: the scipy OdeSolver class (DOP853; Radau, implicit with a dense output of order 3, for stiff
    stretches).
    """

    hold: float | None = None
    on_hold: Callable | None = None
    on_event: Callable | None = None
    accept: Callable | None = None
    direction: int = 0
    min_separation: float | None = None
    record: Callable | None = None
    output_dt: float = 1e-3
    rtol: float = 1e-11
    atol: float = 1e-11
    max_steps: int = 1_000_000
    name: str = "reference"
    method: Any = DOP853


class EventKeywords(TypedDict, total=False):
    """The keywords of :func:`integrate_events`: the fields of :class:`EventOptions`."""

    hold: float | None
    on_hold: Callable | None
    on_event: Callable | None
    accept: Callable | None
    direction: int
    min_separation: float | None
    record: Callable | None
    output_dt: float
    rtol: float
    atol: float
    max_steps: int
    name: str
    method: Any


ON_SURFACE = 1e-9
"""|g_i| at or below which an event function that just switched counts as on its surface when the solver
restarts there.  The root is located to round-off (Brent, 4 eps in t), so g_i(t_i) is a few ulps of g's scale and
of either sign: with the sign before the crossing, the next step would find the same root again, a step later
by round-off, and again (seen with OpenBLAS's Sandybridge kernel: > 10⁶ steps at one event).  1e-9 (m, rad, N)
is far below any physical scale of the references' events and far above their round-off."""


def integrate_events(rhs: Callable, events: Callable, y0, duration: float, **options: Unpack[EventKeywords]) -> EventRun:
    """Integrate ẏ = ``rhs(t, y)`` over [0, ``duration``] exact at hold boundaries and event roots (module docstring).

    ``events(t, y)`` -> g (m,): a root of g_i is a switch.  The keywords (``hold``, ``on_hold``, ``on_event``,
    ``accept``, ``direction``, ``min_separation``, ``record``, ``output_dt``, ``rtol``, ``atol``, ``max_steps``,
    ``name``, ``method``) are the fields of :class:`EventOptions`.  Raises FloatingPointError (prefixed with
    ``name``) when the solver fails or takes more than ``max_steps`` steps.
    """
    return _EventLoop(rhs, events, EventOptions(**options)).run(np.array(y0, dtype=float), duration)


class _EventLoop:
    """The loop of :func:`integrate_events`: the output grid being filled, the state, the step count."""

    def __init__(self, rhs: Callable, events: Callable, opts: EventOptions):
        self.rhs, self.events, self.o = rhs, events, opts
        self.steps = 0
        self.filled = 1
        self.eps4 = 4 * np.finfo(float).eps
        self.just_switched: set[int] = set()

    def run(self, x: np.ndarray, duration: float) -> EventRun:
        o = self.o
        self.grid = grid = output_grid(duration, o.output_dt)
        self.out = np.empty((len(grid), len(x)))
        self.extra: list = [None] * len(grid) if o.record is not None else []
        self.out[0] = x
        if o.record is not None:
            self.extra[0] = o.record(0.0, x)
        t = 0.0
        for t_end in hold_bounds(duration, o.hold):
            if o.on_hold is not None:
                o.on_hold(t, x)
            while t < t_end - 1e-15:
                t, x = self._until_switch(t, x, t_end)
        while self.filled < len(grid):
            self.out[self.filled] = x
            if o.record is not None:
                self.extra[self.filled] = o.record(grid[self.filled], x)
            self.filled += 1
        return EventRun(grid, self.out, self.extra, self.steps, t, x)

    def _until_switch(self, t: float, x: np.ndarray, t_end: float) -> tuple[float, np.ndarray]:
        """One solver run from (t, x): to the first accepted root (handled there) or to ``t_end``."""
        o = self.o
        solver = o.method(self.rhs, t, x, t_end, rtol=o.rtol, atol=o.atol)
        g_old = np.asarray(self.events(t, x), dtype=float)
        for i in self.just_switched:  # the switch we restart at: on its surface, not about to cross it again
            if abs(g_old[i]) <= ON_SURFACE:
                g_old[i] = 0.0
        self.just_switched = set()
        t_restart = t
        while solver.status == "running":
            solver.step()
            self.steps += 1
            if self.steps > o.max_steps:
                raise FloatingPointError(f"{o.name}: more than {o.max_steps} steps by t = {solver.t:.6g} s")
            dense = solver.dense_output()
            g_new = np.asarray(self.events(solver.t, solver.y), dtype=float)
            hits = self._roots(solver, dense, g_old, g_new, t_restart)
            t_stop = min(hits)[0] if hits else solver.t
            self._fill(solver, dense, t_stop)
            if hits:
                return t_stop, self._switch(t_stop, dense, hits)
            g_old = g_new
        if solver.status == "failed":
            raise FloatingPointError(f"{o.name}: {o.method.__name__} failed at t = {solver.t:.6g} s")
        return solver.t, solver.y.copy()

    def _roots(self, solver, dense, g_old: np.ndarray, g_new: np.ndarray, t_restart: float) -> list:
        """[(t_i, i, rising)] of the event functions that changed sign over the step (and were accepted)."""
        o = self.o
        finite = np.isfinite(g_old) & np.isfinite(g_new)
        if o.direction == 0:
            crossed = g_old * g_new < 0
        elif o.direction < 0:
            crossed = (g_old > 0) & (g_new <= 0)
        else:
            crossed = (g_old < 0) & (g_new >= 0)
        hits = []
        for index in np.nonzero(crossed & finite)[0]:
            i = int(index)
            if g_new[i] == 0.0:
                t_i = solver.t
            else:
                t_i = brentq(lambda s, i=i: self.events(s, dense(s))[i], solver.t_old, solver.t, xtol=1e-15,
                             rtol=self.eps4)
            if o.accept is not None and not o.accept(i, t_i, dense):
                continue
            if o.min_separation is not None and not t_i > t_restart + o.min_separation:
                continue  # the switch we restarted at
            hits.append((t_i, i, bool(g_new[i] > g_old[i])))
        return hits

    def _fill(self, solver, dense, t_stop: float) -> None:
        """The output grid up to ``t_stop`` from the step's dense output."""
        grid, record = self.grid, self.o.record
        while self.filled < len(grid) and grid[self.filled] <= t_stop + 1e-15:
            y = dense(grid[self.filled]) if grid[self.filled] < solver.t else solver.y
            self.out[self.filled] = y
            if record is not None:
                self.extra[self.filled] = record(grid[self.filled], y)
            self.filled += 1

    def _switch(self, t: float, dense, hits: list) -> np.ndarray:
        """The state at the switch t, after ``on_event`` (a reset or None); the mode recorded from t on."""
        o = self.o
        x = dense(t).copy()
        now = sorted(h for h in hits if h[0] <= t + SIMULTANEOUS)
        self.just_switched = {i for _, i, _ in now}
        if o.on_event is not None:
            reset = o.on_event(t, x, now)
            if reset is not None:
                x = np.asarray(reset, dtype=float)
        grid, filled = self.grid, self.filled
        if o.record is not None and filled < len(grid) and abs(grid[filled - 1] - t) < 1e-15:
            self.extra[filled - 1] = o.record(t, x)  # the mode in force from t on
        return x


@dataclass(frozen=True)
class ReferenceOptions:
    """The integration settings every event-exact reference shares (keywords of :func:`simulate_limits`,
    :func:`simulate_stick_slip`, :func:`simulate_contact`): states every ``output_dt`` s, DOP853 with ``rtol`` and
    ``atol``, at most ``max_steps`` steps."""

    output_dt: float = 1e-3
    rtol: float = 1e-11
    atol: float = 1e-11
    max_steps: int = 1_000_000

    def event_options(self) -> ReferenceKeywords:
        """These settings as keywords of :func:`integrate_events`."""
        return ReferenceKeywords(output_dt=self.output_dt, rtol=self.rtol, atol=self.atol, max_steps=self.max_steps)


class ReferenceKeywords(TypedDict, total=False):
    """The keywords of the references: the fields of :class:`ReferenceOptions`."""

    output_dt: float
    rtol: float
    atol: float
    max_steps: int


class HeldTorque:
    """The commanded torque of a reference: ``torque(t)`` (default 0, n joints) sampled at the start of every hold
    interval of ``hold`` s and held, as the engines get it (``hold=None``: evaluated continuously)."""

    def __init__(self, torque: Callable | None, hold: float | None, n: int):
        self.fn: Callable = torque if torque is not None else (lambda t: np.zeros(n))
        self.hold = hold
        self.held = np.asarray(self.fn(0.0), float)

    def at(self, t: float) -> np.ndarray:
        """τ in force at t."""
        return self.held if self.hold is not None else np.asarray(self.fn(t), float)

    def on_hold(self, t: float, y) -> None:
        """A hold boundary: sample τ(t) (for :func:`integrate_events`' ``on_hold``)."""
        if self.hold is not None:
            self.held = np.asarray(self.fn(t), float)
