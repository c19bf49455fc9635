"""Deprecated: moved to crossdyn.native.contact.reference, crossdyn.native.contact.episodes, crossdyn.native.contact.softness, crossdyn.native.contact.verdict (issue 22).  Re-exports their public names and warns; listed
in ``SHIMS`` in tests/test_layout.py (it points up a level, and nothing in crossdyn/ imports it)."""
import warnings

from crossdyn.native.contact.reference import *  # noqa: F401,F403
from crossdyn.native.contact.episodes import *  # noqa: F401,F403
from crossdyn.native.contact.softness import *  # noqa: F401,F403
from crossdyn.native.contact.verdict import *  # noqa: F401,F403

warnings.warn("crossdyn.drive.contact_events moved to crossdyn.native.contact.reference", DeprecationWarning, stacklevel=2)
