"""Deprecated: moved to crossdyn.native.limits.episodes (issue 22).  Re-exports their public names and warns; listed
in ``SHIMS`` in tests/test_layout.py (it points up a level, and nothing in crossdyn/ imports it)."""
import warnings

from crossdyn.native.limits.episodes import *  # noqa: F401,F403

warnings.warn("crossdyn.drive.limit_contacts moved to crossdyn.native.limits.episodes", DeprecationWarning, stacklevel=2)
