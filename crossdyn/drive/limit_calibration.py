"""Deprecated: moved to crossdyn.native.limits.calibration, crossdyn.native.fitting (issue 22).  Re-exports their public names and warns; listed
in ``SHIMS`` in tests/test_layout.py (it points up a level, and nothing in crossdyn/ imports it)."""
import warnings

from crossdyn.native.limits.calibration import *  # noqa: F401,F403
from crossdyn.native.fitting import *  # noqa: F401,F403

warnings.warn("crossdyn.drive.limit_calibration moved to crossdyn.native.limits.calibration", DeprecationWarning, stacklevel=2)
