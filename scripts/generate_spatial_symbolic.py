"""Write (or with --check, compare) the spatial presets' shipped symbolic M, C, G.

    python scripts/generate_spatial_symbolic.py [--check]

One JSON file per preset of crossdyn.models.spatial_presets under crossdyn/analytic/generated/spatial/
(crossdyn.analytic.spatial_generated describes the format).  --check exits 1 naming the presets whose regenerated
text differs from the shipped file (or that have no file), 0 when all are equal.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from crossdyn.analytic.spatial_from_spec import sym_arm  # noqa: E402
from crossdyn.analytic.spatial_generated import SHIPPED_DIR, to_json  # noqa: E402
from crossdyn.analytic.spatial_symbolic import derive  # noqa: E402


def generated() -> dict[str, str]:
    """{preset name: the JSON text of its derivation}."""
    from crossdyn.models.spatial_presets import SPATIAL_PRESETS

    out = {}
    for name, make in SPATIAL_PRESETS.items():
        spec = make()
        arm, values = sym_arm(spec)
        out[name] = to_json(derive(arm), values, arm.info + (f"; {spec.notes}" if spec.notes else ""))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="compare with the shipped files instead of writing")
    args = ap.parse_args(argv)
    texts = generated()
    if args.check:
        stale = [n for n, t in texts.items()
                 if not (SHIPPED_DIR / f"{n}.json").is_file() or (SHIPPED_DIR / f"{n}.json").read_text() != t]
        for n in stale:
            print(f"stale: {SHIPPED_DIR / (n + '.json')} (run scripts/generate_spatial_symbolic.py)")
        return 1 if stale else 0
    SHIPPED_DIR.mkdir(parents=True, exist_ok=True)
    for n, t in texts.items():
        (SHIPPED_DIR / f"{n}.json").write_text(t, encoding="utf-8")
        print(f"wrote {SHIPPED_DIR / (n + '.json')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
