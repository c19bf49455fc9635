"""``csv``: torques read from a file of ``time`` and ``tau1 … tauN`` columns (see :class:`CSVProfile`)."""
from __future__ import annotations

import csv
import hashlib
import os
from pathlib import Path

import numpy as np

from crossdyn.inputs.profiles.base import OpenLoopProfile, ProfileError
from crossdyn.io import number_cell


class CSVProfile(OpenLoopProfile):
    """Torques from a CSV file: a ``time`` (or ``t``) column (s, strictly increasing, finite) and ``tau1 … tauN``
    (N m, finite), in any column order; other columns are errors.

    ``interpolation="linear"`` (default) interpolates linearly between rows; ``"zoh"`` holds each
    row's value until the next row's time.  The file must cover [0, duration] of the run
    (first time ≤ 0, last time ≥ duration), else :class:`ProfileError`.  Every error names the
    file, the row (file line number) and column, and the value.
    """

    name = "csv"
    INTERPOLATIONS = ("linear", "zoh")

    def __init__(self, n: int, path, interpolation: str = "linear"):
        super().__init__(n)
        if interpolation not in self.INTERPOLATIONS:
            raise ProfileError(f"interpolation: must be one of {', '.join(self.INTERPOLATIONS)}, got {interpolation!r}")
        self.path = Path(path)
        self.interpolation = interpolation
        self.times, self.values, self.sha256 = self._read()

    def _read(self):
        where = str(self.path)
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            raise ProfileError(f"{where}: no such file") from None
        except OSError as e:
            raise ProfileError(f"{where}: cannot read: {e}") from None
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError as e:
            raise ProfileError(f"{where}: not UTF-8 text: {e}") from None
        rows = list(csv.reader(text.splitlines()))
        lines = [(i, r) for i, r in enumerate(rows, start=1) if any(c.strip() for c in r)]
        if not lines:
            raise ProfileError(f"{where}: empty file; expected a header 'time,tau1,...,tau{self.n}' and rows")
        header_line, header = lines[0]
        header = [h.strip() for h in header]
        if "t" in header and "time" not in header:  # `t` is accepted for `time`
            header = ["time" if h == "t" else h for h in header]
        wanted = ["time"] + [f"tau{j}" for j in range(1, self.n + 1)]
        missing = [c for c in wanted if c not in header]
        if missing:
            raise ProfileError(f"{where}: line {header_line}: missing column(s) {', '.join(missing)}; "
                               f"the header must name {', '.join(wanted)} (found {', '.join(header) or 'nothing'})")
        extra = [c for c in header if c not in wanted]
        if extra:
            raise ProfileError(f"{where}: line {header_line}: unexpected column(s) {', '.join(extra)} for a "
                               f"{self.n}-joint arm; expected {', '.join(wanted)}")
        dup = sorted({c for c in header if header.count(c) > 1})
        if dup:
            raise ProfileError(f"{where}: line {header_line}: duplicate column(s) {', '.join(dup)}")
        cols = [header.index(c) for c in wanted]
        data = np.empty((len(lines) - 1, len(wanted)))
        for r, (line, row) in enumerate(lines[1:]):
            if len(row) != len(header):
                raise ProfileError(f"{where}: line {line}: expected {len(header)} cells, got {len(row)}: {row!r}")
            for c, col in enumerate(cols):
                data[r, c] = number_cell(row[col].strip(), f"{where}: line {line}, column {wanted[c]!r}", ProfileError)
        if len(data) == 0:
            raise ProfileError(f"{where}: no data rows after the header")
        t = data[:, 0]
        bad = np.nonzero(np.diff(t) <= 0)[0]
        if len(bad):
            i = int(bad[0]) + 1
            raise ProfileError(f"{where}: line {lines[i + 1][0]}, column 'time': times must be strictly increasing; "
                               f"{float(t[i])!r} follows {float(t[i - 1])!r}")
        return t.copy(), data[:, 1:].copy(), hashlib.sha256(raw).hexdigest()

    def validate(self, n: int, duration: float) -> None:
        super().validate(n, duration)
        if self.times[0] > 0.0:
            raise ProfileError(f"{self.path}: the profile starts at t = {float(self.times[0])!r} s; "
                               "it must start at or before 0 s")
        if self.times[-1] < duration - 1e-9 * max(1.0, duration):
            raise ProfileError(f"{self.path}: the profile ends at t = {float(self.times[-1])!r} s, "
                               f"shorter than the requested duration {duration!r} s: shorten --duration to "
                               f"{float(self.times[-1])!r} s or less, or add rows up to t = {duration!r} s")

    def sample(self, times):
        t = np.asarray(times, dtype=float).reshape(-1)
        if t.size and (t.min() < self.times[0] or t.max() > self.times[-1]):
            bad = t[(t < self.times[0]) | (t > self.times[-1])][0]
            raise ProfileError(f"{self.path}: t = {float(bad)!r} s is outside the profile's time range "
                               f"[{float(self.times[0])!r}, {float(self.times[-1])!r}] s")
        if self.interpolation == "zoh":
            idx = np.searchsorted(self.times, t, side="right") - 1
            return self.values[idx]
        return np.stack([np.interp(t, self.times, self.values[:, j]) for j in range(self.n)], axis=-1)

    def params(self):
        return {"name": self.name, "closed_loop": False, "n": self.n, "path": os.fspath(self.path),
                "sha256": self.sha256, "rows": int(len(self.times)),
                "time_range": [float(self.times[0]), float(self.times[-1])], "interpolation": self.interpolation}
