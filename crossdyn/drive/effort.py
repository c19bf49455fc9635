"""Deprecated: moved to crossdyn.native.effort (issue 22).  Re-exports their public names and warns; listed
in ``SHIMS`` in tests/test_layout.py (it points up a level, and nothing in crossdyn/ imports it)."""
import warnings

from crossdyn.native.effort import *  # noqa: F401,F403

warnings.warn("crossdyn.drive.effort moved to crossdyn.native.effort", DeprecationWarning, stacklevel=2)
