"""Comparisons of engines against the analytic reference: profiles, metrics, reports, the checker.

Imports nothing heavy, so the CLI can register its subcommands without loading engines.
"""
