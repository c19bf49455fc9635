"""Judging engines against the analytic reference: metrics, tolerances, the comparison itself, baselines and
reports.

Imports nothing heavy, so the command line can register its subcommands without loading engines.
"""
