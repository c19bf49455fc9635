"""Deprecated: moved to crossdyn.native.limits.episodes (issue 22).  Re-exported lazily
(:mod:`crossdyn.drive._moved`: drive does not import the level above it)."""
import warnings

from crossdyn.drive._moved import forward

warnings.warn("crossdyn.drive.limit_contacts moved to crossdyn.native.limits.episodes", DeprecationWarning, stacklevel=2)

__getattr__, __dir__ = forward(__name__, ("crossdyn.native.limits.episodes",))
