"""Deprecated: moved to crossdyn.native.limits.softness (issue 22).  Re-exported lazily
(:mod:`crossdyn.drive._moved`: drive does not import the level above it)."""
import warnings

from crossdyn.drive._moved import forward

warnings.warn("crossdyn.drive.limit_softness moved to crossdyn.native.limits.softness", DeprecationWarning, stacklevel=2)

__getattr__, __dir__ = forward(__name__, ("crossdyn.native.limits.softness",))
