"""Moved to crossdyn.analytic.references.events (issue 22).

``crossdyn.analytic.events`` keeps working (the docs document it): it re-exports the names it held, with a
DeprecationWarning."""
import warnings

from crossdyn.analytic.references.events import SIMULTANEOUS, EventRun, hold_bounds, integrate_events, output_grid

__all__ = ["SIMULTANEOUS", "EventRun", "hold_bounds", "integrate_events", "output_grid"]

warnings.warn(
    "crossdyn.analytic.events moved to crossdyn.analytic.references.events",
    DeprecationWarning, stacklevel=2)
