"""Comparisons of engines against the analytic reference: profiles, metrics, reports, the checker."""
