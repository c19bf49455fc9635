"""Deprecated: moved to crossdyn.native.friction.runs, crossdyn.native.friction.episodes, crossdyn.native.friction.softness (issue 22).  Re-exports their public names and warns; listed
in ``SHIMS`` in tests/test_layout.py (it points up a level, and nothing in crossdyn/ imports it)."""
import warnings

from crossdyn.native.friction.runs import *  # noqa: F401,F403
from crossdyn.native.friction.episodes import *  # noqa: F401,F403
from crossdyn.native.friction.softness import *  # noqa: F401,F403

warnings.warn("crossdyn.drive.friction_native moved to crossdyn.native.friction.runs", DeprecationWarning, stacklevel=2)
