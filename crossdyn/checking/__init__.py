"""Judging a user's hand-derived equations: the checker (``check``) and its term-level diagnosis."""
