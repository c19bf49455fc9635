"""Deprecated: moved to crossdyn.native.contact.reference, crossdyn.native.contact.episodes, crossdyn.native.contact.softness, crossdyn.native.contact.verdict (issue 22).  Re-exported lazily
(:mod:`crossdyn.drive._moved`: drive does not import the level above it)."""
import warnings

from crossdyn.drive._moved import forward

warnings.warn("crossdyn.drive.contact_events moved to crossdyn.native.contact", DeprecationWarning, stacklevel=2)

__getattr__, __dir__ = forward(__name__, ("crossdyn.native.contact.reference", "crossdyn.native.contact.episodes", "crossdyn.native.contact.softness", "crossdyn.native.contact.verdict"))
