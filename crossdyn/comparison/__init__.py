"""Judging engines against the analytic reference: the comparison itself, its metrics, tolerances, baselines
and reports.

* :mod:`~crossdyn.comparison.compare` — :func:`compare`, the short orchestrator;
* :mod:`~crossdyn.comparison.options` — :class:`CompareOptions` (frozen, validated as the command line does);
* :mod:`~crossdyn.comparison.references` — the reference runs and analytic values every engine is measured against;
* :mod:`~crossdyn.comparison.start` — start state, profile, the profile held for dt;
* :mod:`~crossdyn.comparison.measure` and :mod:`crossdyn.comparison.groups` — one engine, one module per metric
  group (trajectory, static, energy, convergence, armature, effort, tip kinematics);
* :mod:`~crossdyn.comparison.containment` — where an engine's own code runs and how its failure is contained;
* :mod:`~crossdyn.comparison.pool` — engines measured in worker processes;
* :mod:`~crossdyn.comparison.phenomena` (with ``phenomenon_limits``, ``phenomenon_contact``,
  ``phenomenon_friction``) — the per-phenomenon sections, notes and failures, one loop;
* :mod:`~crossdyn.comparison.result` — :class:`Comparison`, :class:`EngineRun`, :class:`MetricResult` and
  ``to_summary()`` (the ``summary.json`` document); :mod:`~crossdyn.comparison.metrics`,
  :mod:`~crossdyn.comparison.tolerances`, :mod:`~crossdyn.comparison.baseline`.

Imports nothing heavy, so the command line can register its subcommands without loading engines.
"""
