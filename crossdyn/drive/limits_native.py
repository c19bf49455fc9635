"""Deprecated: moved to crossdyn.native.limits.runs (issue 22).  Re-exports their public names and warns; listed
in ``SHIMS`` in tests/test_layout.py (it points up a level, and nothing in crossdyn/ imports it)."""
import warnings

from crossdyn.native.limits.runs import *  # noqa: F401,F403

warnings.warn("crossdyn.drive.limits_native moved to crossdyn.native.limits.runs", DeprecationWarning, stacklevel=2)
