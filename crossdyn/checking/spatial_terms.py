"""Naming the wrong term of a spatial arm's entry (issue 27), in the general parameters.

The reference entry is a sum of terms a_j T_j, each a rational number times a monomial in cos qᵢ, sin qᵢ (revolute),
qᵢ (prismatic), q̇ᵢ, the DH lengths, g and the inertial parameters (the symbolic Lagrangian of
:mod:`crossdyn.analytic.spatial_symbolic`, collected per inertial parameter and expanded).  The user's entry E_u is
evaluated on a grid of states × parameter sets in which every one of those variables varies independently; the
error is e = E_u − E_ref.  A single-term mistake replaces one term a_j T_j by some u(x) (0 when dropped), so
r_j = e + a_j T_j is u: we test every j for r_j ≡ 0 (the term is missing) or for r_j being one monomial
κ Π x_v^{k_v} — fitted as log|r_j| = log|κ| + Σ k_v log|x_v| by least squares (on the points where |r_j| is not
rounding), accepted when every k_v is within :data:`EXPONENT_TOL` of an integer and κ Π x_v^{k_v} reproduces r_j to
:data:`MONOMIAL_RTOL` × max |r_j| at every point.
The accepted hypothesis closest to the reference term (fewest exponent changes) names the term: missing, wrong
sign, wrong factor, or written as another monomial (a wrong power, a missing factor, L where a centre-of-mass
component belongs).  An error that is itself one monomial and replaces no term is an extra term.  Anything else
is reported as not one term, with the entry's expected terms.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from functools import cached_property
from fractions import Fraction

import numpy as np
import sympy as sp

ZERO_RTOL = 1e-9
"""r_j is 0 when max |r_j| ≤ ZERO_RTOL × the entry's largest magnitude (double rounding is ~1e-15 of it)."""
EXPONENT_TOL = 1e-6
"""A fitted exponent is an integer when it is this close to one (exact data fits to ~1e-12)."""
MONOMIAL_RTOL = 1e-8
"""The monomial reproduces r_j to this relative error at every point (exact data: ~1e-14)."""
FLOOR_RTOL = 1e-7
"""Points where |r_j| is below this × the entry's scale are left out of the log fit (rounding dominates their logs:
a sin² q near q = 0), though the fitted monomial must reproduce r_j there too."""


@dataclass(frozen=True)
class Grid:
    """The naming grid: per variable (a SymPy atom: cos(q1), q2, qd1, m2, …) its values at P points."""

    atoms: tuple
    values: np.ndarray          # (V, P)

    @cached_property
    def logs(self) -> np.ndarray:
        return np.log(np.abs(self.values))

    @cached_property
    def design(self) -> np.ndarray:
        """The log fit's design matrix [1, log|x_1|, …, log|x_V|] at every point, (P, V + 1)."""
        return np.vstack([np.ones(self.values.shape[1]), self.logs]).T

    @cached_property
    def solver(self) -> np.ndarray:
        """The least-squares solution operator of :attr:`design` when every point is kept (its pseudo-inverse,
        (V + 1, P)): the fits of many r at once are one product."""
        return np.linalg.pinv(self.design)


@dataclass(frozen=True)
class TermName:
    """What is wrong in one entry: ``kind`` missing | sign | factor | written | extra | unnamed, the reference
    term (None for extra/unnamed), the user's version of it, and the sentence."""

    kind: str
    term: sp.Expr | None
    user: sp.Expr | None
    message: str


def term_values(terms, grid: Grid, symbols, arrays) -> np.ndarray:
    """Each term evaluated at the grid: (J, P).  A term that is a number times a product of the grid's atoms (every
    term of an expanded entry) is that product of their values, no SymPy call (:func:`_exponents`); any other is
    lambdified (one call per such term)."""
    out = np.empty((len(terms), grid.values.shape[1]))
    for j, t in enumerate(terms):
        coeff, k = _exponents(t, grid)
        if coeff.is_Number and t == coeff * sp.Mul(*(a ** int(e) for a, e in zip(grid.atoms, k, strict=True) if e)):
            row = np.full(grid.values.shape[1], float(coeff))
            for v in np.flatnonzero(k):
                row *= grid.values[v] ** int(k[v])
            out[j] = row
        else:
            f = sp.lambdify(symbols, t, modules="numpy")
            out[j] = np.broadcast_to(np.asarray(f(*arrays), float), arrays[0].shape).ravel()
    return out


def candidates(e: np.ndarray, T: np.ndarray, grid: Grid, scale: float) -> np.ndarray:
    """For every term j whether r_j = e + T_j could be missing or one monomial, all at once: r_j ≡ 0, or some points
    dropped from its log fit (:func:`fit_monomial` decides those), or its fit over all points (one product with
    :attr:`Grid.solver`, the least-squares fit :func:`fit_monomial` makes) gives integer exponents.  The others
    :func:`fit_monomial` would reject; only the candidates are fitted one by one."""
    out = np.zeros(len(T), bool)
    for lo in range(0, len(T), 1024):                  # (1024, P) at a time
        R = e[None, :] + T[lo:lo + 1024]
        absR = np.abs(R)
        zero = absR.max(axis=1) <= ZERO_RTOL * scale
        partial = ~np.all(absR > FLOOR_RTOL * scale, axis=1)
        with np.errstate(divide="ignore"):
            coef = np.log(np.where(absR > 0, absR, 1.0)) @ grid.solver.T
        k = coef[:, 1:]
        integer = np.max(np.abs(k - np.round(k)), axis=1, initial=0.0) <= EXPONENT_TOL
        out[lo:lo + 1024] = zero | partial | integer
    return out


def fit_monomial(r: np.ndarray, grid: Grid, scale: float) -> tuple[Fraction | float, np.ndarray] | None:
    """(κ, exponents) when r is one monomial on the grid (module docstring), else None."""
    X = grid.design
    keep = np.abs(r) > FLOOR_RTOL * scale        # where the logs are trustworthy (sin q near 0 makes some tiny)
    if keep.sum() < X.shape[1] + 5:
        return None
    if keep.all():
        coef = grid.solver @ np.log(np.abs(r))
    else:
        coef, *_ = np.linalg.lstsq(X[keep], np.log(np.abs(r[keep])), rcond=None)
    k = np.round(coef[1:])
    if np.max(np.abs(coef[1:] - k), initial=0.0) > EXPONENT_TOL:
        return None
    mono = np.prod(grid.values ** k[:, None], axis=0)
    kappa = float(np.median(r[keep] / mono[keep]))
    if np.max(np.abs(kappa * mono - r)) > MONOMIAL_RTOL * float(np.max(np.abs(r))):   # at every point
        return None
    frac = Fraction(kappa).limit_denominator(1000)
    return (frac if abs(float(frac) - kappa) <= 1e-9 * abs(kappa) else kappa), k.astype(int)


def _expr(kappa, k: np.ndarray, grid: Grid) -> sp.Expr:
    c = sp.Rational(kappa.numerator, kappa.denominator) if isinstance(kappa, Fraction) else sp.Float(kappa, 6)
    return c * sp.Mul(*(a ** int(e) for a, e in zip(grid.atoms, k, strict=True) if e))


def _exponents(term: sp.Expr, grid: Grid) -> tuple[sp.Expr, np.ndarray]:
    """(coefficient, exponents over the grid's atoms) of a reference monomial."""
    coeff, rest = term.as_coeff_Mul()
    powers = rest.as_powers_dict()
    return coeff, np.array([int(powers.get(a, 0)) for a in grid.atoms])


def name_term(entry: str, e: np.ndarray, terms: list[sp.Expr], T: np.ndarray, grid: Grid,
              scale: float, deadline: float = float("inf")) -> TermName | None:
    """The single-term mistake that explains the error ``e`` of ``entry`` (module docstring); None when
    ``time.monotonic()`` passes ``deadline`` first (only the :func:`candidates` are fitted one by one)."""
    zero = ZERO_RTOL * scale
    best: list[tuple[int, int, TermName]] = []
    maybe = candidates(e, T, grid, scale) if len(terms) else np.zeros(0, bool)
    for j in map(int, np.flatnonzero(maybe)):
        if time.monotonic() > deadline:
            return None
        term, r = terms[j], e + T[j]
        if np.max(np.abs(r)) <= zero:
            return TermName("missing", term, sp.Integer(0), f"the term {_s(term)} is missing")
        fit = fit_monomial(r, grid, scale)
        if fit is None:
            continue
        kappa, k = fit
        user = _expr(kappa, k, grid)
        coeff, k_ref = _exponents(term, grid)
        changed = int(np.sum(np.abs(k - k_ref)))
        if changed == 0:
            ratio = sp.nsimplify(user / term) if isinstance(kappa, Fraction) else float(kappa) / float(coeff)
            if ratio == -1:
                best.append((0, j, TermName("sign", term, user, f"the term {_s(term)} has the wrong sign "
                                                                 f"(written as {_s(user)})")))
            else:
                best.append((1, j, TermName("factor", term, user, f"the term {_s(term)} is off by the factor "
                                                                   f"{_s(ratio)} (written as {_s(user)})")))
        else:
            best.append((1 + changed, j, TermName("written", term, user, f"the term {_s(term)} is written as "
                                                                           f"{_s(user)}{_what(k, k_ref, grid)}")))
    if best:
        best.sort(key=lambda b: (b[0], b[1]))
        top = [b for b in best if b[0] == best[0][0]]
        if len(top) == 1:
            return top[0][2]
        return TermName(top[0][2].kind, top[0][2].term, top[0][2].user, top[0][2].message + " (or: " + "; ".join(
            b[2].message for b in top[1:3]) + ")")
    if time.monotonic() > deadline:
        return None
    fit = fit_monomial(e, grid, scale)
    if fit is not None:
        extra = _expr(*fit, grid)
        return TermName("extra", None, extra, f"it has a term {_s(extra)} that does not belong there")
    return TermName("unnamed", None, None, "the error is not one term dropped, changed or added (several terms, or "
                                           "a form that is not a product of the variables); expected: "
                                           + " + ".join(_s(t) for t in terms[:12])
                                           + (" + …" if len(terms) > 12 else ""))


def _what(k: np.ndarray, k_ref: np.ndarray, grid: Grid) -> str:
    """Which variables' powers changed, in words: ' (q2: power 3 instead of 2; …)'."""
    parts = []
    for a, ku, kr in zip(grid.atoms, k, k_ref, strict=True):
        if ku != kr:
            parts.append(f"{_s(a)}: " + ("missing" if ku == 0 else "not in the term" if kr == 0 else
                                          f"power {ku} instead of {kr}"))
    return " (" + "; ".join(parts) + ")" if parts else ""


def _s(x) -> str:
    return sp.sstr(x)
