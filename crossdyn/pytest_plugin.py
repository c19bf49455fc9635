"""pytest plugin placeholder (filled by the comparisons work)."""
