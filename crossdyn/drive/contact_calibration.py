"""Deprecated: moved to crossdyn.native.contact.calibration (issue 22).  Re-exports their public names and warns; listed
in ``SHIMS`` in tests/test_layout.py (it points up a level, and nothing in crossdyn/ imports it)."""
import warnings

from crossdyn.native.contact.calibration import *  # noqa: F401,F403

warnings.warn("crossdyn.drive.contact_calibration moved to crossdyn.native.contact.calibration", DeprecationWarning, stacklevel=2)
