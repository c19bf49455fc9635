"""``crossdyn derive ARM``: print the correct M, C (Christoffel) and G of an arm.

An arm with joint friction also gets F(qd) = d ⊙ qd + fc ⊙ sign(qd) (every format).
``--format text|latex|matlab|python|sympy``; ``--symbols`` (default: m1, L1, Lc1, J1, g, … with the
textbook a1…aK groups defined) or ``--numeric`` (the arm's numbers written in; the functions then
take no p).  The MATLAB and Python outputs are valid input to ``crossdyn check``.  ``--out FILE``
writes the text to a file (atomically) instead of standard output.  The maths is
:mod:`crossdyn.analytic.derive`; importing this module is cheap (argparse only).
"""
from __future__ import annotations

FORMATS = ("text", "latex", "matlab", "python", "sympy")


def add_parser(sub) -> None:
    """Register ``derive`` on the ``crossdyn`` subparsers object."""
    p = sub.add_parser(
        "derive", help="print the correct M, C and G of an arm (text, LaTeX, MATLAB, Python or SymPy)",
        description="Print the correct mass matrix M, the Christoffel Coriolis matrix C and the gravity vector G "
                    "(M qdd + C qd + G = tau) of an arm, and for an arm with joint friction F(qd) = d .* qd + fc .* sign(qd) "
                    "(M qdd + C qd + G + F = tau), in symbols grouped in the textbook a1...aK form with the "
                    "groups defined, or with the arm's numbers.  The MATLAB and Python outputs pass "
                    "'crossdyn check'.  The output is the product: it goes to standard output, or to --out FILE; "
                    "derive judges nothing (no verdict, exit 0 or 2).")
    p.add_argument("arm", metavar="ARM", help="preset name (planar, or spatial: rp-polar, rpp-cylindrical, scara, "
                                              "elbow-rrr, ppp-cartesian, pan-tilt) or TOML spec path (at most 8 links)")
    p.add_argument("--format", default="text", choices=FORMATS, help="output format (default text)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--symbols", dest="numeric", action="store_false",
                      help="parameters as symbols m1, L1, Lc1, J1, g, ... (default)")
    mode.add_argument("--numeric", dest="numeric", action="store_true",
                      help="the arm's numbers written in (functions without p)")
    p.add_argument("--out", metavar="FILE", help="write to FILE instead of standard output")
    p.set_defaults(func=run, numeric=False)


def run(args) -> int:
    from crossdyn.io import check_out_file, write_text_atomic
    from crossdyn.models import load_arm

    if args.out:
        check_out_file(args.out, "derive: --out")
    spatial = _spatial_text(args)
    if spatial is not None:
        text = spatial
    else:
        text = _planar_text(args, load_arm(args.arm))
    if args.out:
        write_text_atomic(args.out, text)
        print(f"wrote {args.out}")
    else:
        print(text, end="")
    return 0


def _planar_text(args, spec) -> str:
    from crossdyn.analytic import derive
    from crossdyn.io import UsageError

    if spec.n > derive.MAX_N:
        raise UsageError(f"derive: {args.arm} has {spec.n} links; derive writes out arms of up to {derive.MAX_N} "
                         "links (C has ~n^3 terms)")
    return derive.render(derive.derive(spec, symbols=not args.numeric), args.format)


def _spatial_text(args) -> str | None:
    """A spatial arm's text: a spatial preset from its shipped derivation, a spatial spec file derived within
    the time budget (past it, exit 2 saying term naming is unavailable); None for a planar arm."""
    from crossdyn.analytic import spatial_derive, spatial_generated
    from crossdyn.io import UsageError

    if args.arm in spatial_generated.shipped_names():
        d, values = spatial_generated.shipped(args.arm)
        info = spatial_generated.shipped_info(args.arm)
    else:
        from crossdyn.models import load_arm

        spec = load_arm(args.arm, spatial=True)
        if getattr(spec, "kind", "planar") != "spatial":
            return None
        from crossdyn.analytic.spatial_from_spec import sym_arm

        arm, values = sym_arm(spec)
        out = spatial_generated.derive_within(arm, spatial_generated.BUDGET_S)
        if isinstance(out, spatial_generated.NumericOnly):
            raise UsageError(f"derive: {out.message()}")
        d, info = out, arm.info
    return spatial_derive.render(d, args.format, values if args.numeric else None, info)
