"""The version of crossdyn (one place; level 0: imports nothing)."""
__version__ = "0.1.0"
