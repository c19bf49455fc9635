"""pytest runs every example of the docs pages (``docs/**/*.md`` but ``_build/`` and ``_incoming/``) with Sybil.

The runner and its conventions: ``tests/docs_runner.py``; for writers: ``docs/reference/writing-docs.md``.
"""
import sys
from pathlib import Path


sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

try:
    from docs_runner import docs_sybil, mark_items  # noqa: E402
except ImportError as e:  # sybil missing: say which extra brings it rather than fail with a bare import error
    raise ImportError(f"the docs' examples need the docs extra: pip install -e '.[docs]' ({e})") from e

pytest_collect_file = docs_sybil(Path(__file__).parent).pytest()


def pytest_itemcollected(item):
    """Mark each slow example as it is collected, before `-m "not slow"` deselects."""
    mark_items([item])
