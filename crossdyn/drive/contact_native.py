"""Deprecated: moved to crossdyn.native.contact.runs, crossdyn.native.contact.verdict, crossdyn.native.contact.reference (issue 22).  Re-exports their public names and warns; listed
in ``SHIMS`` in tests/test_layout.py (it points up a level, and nothing in crossdyn/ imports it)."""
import warnings

from crossdyn.native.contact.runs import *  # noqa: F401,F403
from crossdyn.native.contact.verdict import *  # noqa: F401,F403
from crossdyn.native.contact.reference import *  # noqa: F401,F403

warnings.warn("crossdyn.drive.contact_native moved to crossdyn.native.contact.runs", DeprecationWarning, stacklevel=2)
