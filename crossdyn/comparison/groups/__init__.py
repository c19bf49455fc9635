"""One module per metric group of an engine (``trajectory``, ``inverse_dynamics`` …): each returns a
:class:`~crossdyn.comparison.result.MetricResult`.  The engine's own calls are made inside
:func:`~crossdyn.comparison.containment.engine_code`; the judging is crossdyn's (its errors propagate)."""
