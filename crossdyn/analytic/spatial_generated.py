"""The spatial presets' M, C, G, derived once and shipped; a user's arm derived within a time budget.

Shipped: ``crossdyn/analytic/generated/spatial/NAME.json`` per preset of ``crossdyn.models.spatial_presets``,
written by ``scripts/generate_spatial_symbolic.py`` (``--check`` compares instead of writing; a test does the
same).  Each file holds the symbols (q, q̇, geometry, gravity, inertial, with their assumptions), the preset's
numbers for them, and every entry of M (upper triangle), C and G as (π_k, Y_k) string pairs in SymPy's syntax,
collected per inertial parameter (:mod:`crossdyn.analytic.spatial_symbolic`).  Reading one parses strings
(no derivation); the numerical functions are compiled on first use (lambdify with common subexpressions).

A user's arm: :func:`derive_within` runs the derivation in a child process and waits ``budget_s`` seconds
(default :data:`BUDGET_S`) for it, sent back pickled (SymPy rebuilds the expressions from their arguments; a Puma
560's: 0.8 s, where parsing :func:`to_json`'s text took 13 s); past the budget the child is ended and a :class:`NumericOnly` says that term naming is
unavailable and M, C, G are checked numerically only.
"""
from __future__ import annotations

import json
import multiprocessing
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import sympy as sp

from crossdyn.analytic.spatial_arm import SymArm
from crossdyn.analytic.spatial_symbolic import SpatialDerivation, derive

SHIPPED_DIR = Path(__file__).resolve().parent / "generated" / "spatial"
BUDGET_S = 20.0
"""Seconds a user's arm may take to derive before the numeric-only fallback (the presets take ≤ 0.2 s here;
the issue's plain-SymPy spatial RRR took 15.6 s)."""
FORMAT_VERSION = 1


@dataclass(frozen=True)
class NumericOnly:
    """The symbolic derivation did not finish in time: no term naming, a numeric check only."""

    name: str
    budget_s: float
    reason: str

    def message(self) -> str:
        return (f"{self.name}: term naming is unavailable ({self.reason}); M, C and G are checked numerically "
                "only, entry by entry")


def _symbol_table(d: SpatialDerivation) -> list[list]:
    syms = [*d.q, *d.qd, *d.params]
    return [[str(s), "positive" if getattr(s, "is_positive", False) else "real"] for s in syms]


def to_json(d: SpatialDerivation, values: dict | None = None, info: str = "") -> str:
    """The derivation as deterministic JSON text (sorted keys, one entry per line)."""
    doc: dict[str, Any] = {
        "format": FORMAT_VERSION, "name": d.name, "types": d.types, "info": info,
        "symbols": _symbol_table(d), "params": [str(s) for s in d.params],
        "inertial": [str(s) for s in d.inertial], "values": dict(sorted((values or {}).items())),
        "entries": [[name, i, j, [[sp.sstr(pi), sp.sstr(Y)] for pi, Y in pairs]]
                    for (name, i, j), pairs in d.collected.items()],
    }
    lines = ["{"]
    for key in sorted(doc):
        if key == "entries":
            rows = ",\n".join("  " + json.dumps(e, ensure_ascii=False) for e in doc[key])
            lines.append(f' "entries": [\n{rows}\n ],')
        else:
            lines.append(f" {json.dumps(key)}: {json.dumps(doc[key], ensure_ascii=False, sort_keys=True)},")
    lines[-1] = lines[-1].rstrip(",")
    return "\n".join(lines) + "\n}\n"


def from_json(text: str, seconds: float | None = None) -> tuple[SpatialDerivation, dict]:
    """(the derivation, the numbers) from :func:`to_json`'s text."""
    t0 = time.perf_counter()
    doc = json.loads(text)
    table = {name: sp.Symbol(name, **{kind: True}) for name, kind in doc["symbols"]}
    local = {**table, "sin": sp.sin, "cos": sp.cos}
    n = len(doc["types"])
    q = tuple(table[f"q{i + 1}"] for i in range(n))
    qd = tuple(table[f"qd{i + 1}"] for i in range(n))
    collected = {}
    for name, i, j, pairs in doc["entries"]:
        collected[(name, i, j)] = tuple((sp.sympify(pi, locals=local), sp.sympify(Y, locals=local))
                                        for pi, Y in pairs)

    def expr(key):
        return sp.Add(*(pi * Y for pi, Y in collected[key]))

    M = sp.Matrix(n, n, lambda i, j: expr(("M", min(i, j), max(i, j))))
    C = sp.Matrix(n, n, lambda i, j: expr(("C", i, j)))
    G = sp.Matrix(n, 1, lambda i, _: expr(("G", i, 0)))
    d = SpatialDerivation(doc["name"], doc["types"], q, qd, tuple(table[s] for s in doc["params"]),
                          tuple(table[s] for s in doc["inertial"]), M, C, G, collected,
                          time.perf_counter() - t0 if seconds is None else seconds)
    return d, dict(doc["values"])


def shipped_names() -> list[str]:
    return sorted(p.stem for p in SHIPPED_DIR.glob("*.json"))


@lru_cache(maxsize=None)
def shipped(name: str) -> tuple[SpatialDerivation, dict]:
    """The preset ``name``'s shipped derivation and numbers (KeyError naming the presets if there is none)."""
    path = SHIPPED_DIR / f"{name}.json"
    if not path.is_file():
        raise KeyError(f"no shipped spatial derivation {name!r}; shipped: {', '.join(shipped_names())}")
    return from_json(path.read_text(encoding="utf-8"))


def shipped_info(name: str) -> str:
    """The preset's convention and notes, as shipped."""
    shipped(name)
    return str(json.loads((SHIPPED_DIR / f"{name}.json").read_text(encoding="utf-8"))["info"])


def _child(arm: SymArm, conn) -> None:
    try:
        conn.send(("ok", derive(arm)))        # pickled: 13x faster to read back than to_json's text (a Puma 560)
    except Exception as exc:  # noqa: BLE001 — reported to the parent, which decides
        conn.send(("error", f"{type(exc).__name__}: {exc}"))
    finally:
        conn.close()


def derive_within(arm: SymArm, budget_s: float = BUDGET_S) -> SpatialDerivation | NumericOnly:
    """Derive ``arm`` in a child process; :class:`NumericOnly` if it takes longer than ``budget_s`` seconds."""
    t0 = time.perf_counter()
    ctx = multiprocessing.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(arm, child), daemon=True)
    proc.start()
    child.close()
    try:
        if not parent.poll(budget_s):
            return NumericOnly(arm.name, budget_s, f"the symbolic derivation took longer than {budget_s:g} s")
        status, payload = parent.recv()
    finally:
        if proc.is_alive():
            proc.terminate()
        proc.join(5.0)
        parent.close()
    if status != "ok":
        return NumericOnly(arm.name, budget_s, f"the symbolic derivation failed: {payload}")
    d = payload
    return SpatialDerivation(d.name, d.types, d.q, d.qd, d.params, d.inertial, d.M, d.C, d.G, d.collected,
                             time.perf_counter() - t0)
