"""Sweeps: many arms × engines × time steps × profiles measured on Dask, stored as Parquet, reported
with DuckDB (``crossdyn sweep``).  Level 10: imports comparison, reporting and below."""
