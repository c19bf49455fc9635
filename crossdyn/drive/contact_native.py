"""Deprecated: moved to crossdyn.native.contact.runs, crossdyn.native.contact.verdict, crossdyn.native.contact.reference (issue 22).  Re-exported lazily
(:mod:`crossdyn.drive._moved`: drive does not import the level above it)."""
import warnings

from crossdyn.drive._moved import forward

warnings.warn("crossdyn.drive.contact_native moved to crossdyn.native.contact", DeprecationWarning, stacklevel=2)

__getattr__, __dir__ = forward(__name__, ("crossdyn.native.contact.runs", "crossdyn.native.contact.verdict", "crossdyn.native.contact.reference"))
