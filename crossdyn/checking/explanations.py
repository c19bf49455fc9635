"""One mistake that explains many entries, said first: a quantity that is exactly α × the expected one (the
opposite sign of G, a factor of 2 throughout M, C or G), C q̇ + G returned as C, a transposed C.

Each explanation is ``{"text", "quantities"}`` (``"arm"`` too for :mod:`crossdyn.checking.wrong_arm`'s); the
entries it accounts for (``"entries"``) get no term-by-term diagnosis.
"""
from __future__ import annotations

import dataclasses
import functools
from typing import Any, Callable

import numpy as np

from crossdyn.checking import diagnosis, slips
from crossdyn.checking.entries import Compared
from crossdyn.checking.evaluation import evaluate_reference
from crossdyn.checking.results import ATOL, RTOL, EntryFinding, EntryStatus
from crossdyn.equations.python_file import ParamSet

NAMES = {"M": "M", "Cqd": "C qd", "C": "C", "G": "G"}


def explanations(compared: dict[str, Compared], sets: list[ParamSet], Q: np.ndarray,
                 QD: np.ndarray | None = None) -> list[dict[str, Any]]:
    """Whole-quantity mistakes: a constant factor (a flipped sign, a factor of 2), G inside C, a transposed C, and
    (with the states' velocities ``QD``) a Christoffel term's sign or an angle convention
    (:mod:`crossdyn.checking.slips`).

    A factor is accepted only when user = α × expected holds for every entry, state and parameter set within the
    entries' tolerance (α the least-squares ratio).  C q̇ + G is recognised within the sum of both tolerances.
    """
    scaled = _scale_factors(compared)
    out = [_factor_text(q, alpha) for q, alpha in scaled.items() if not (q == "Cqd" and "C" in scaled)]
    if "Cqd" in compared and compared["Cqd"].wrong.any() and "Cqd" not in scaled:
        c = compared["Cqd"]
        g_ref = compared["G"].ref if "G" in compared else evaluate_reference(sets, Q, None, {"G"})["G"]
        g_tol = RTOL * np.max(np.abs(g_ref), axis=(1, 2)) + ATOL
        if np.all(np.abs(c.user - c.ref - g_ref) <= (c.tol + g_tol)[:, None, None]):
            out.append({"text": "your C returns C qd + G (the 'bias' torque): crossdyn expects C qd alone; G is "
                                "checked separately", "quantities": ["Cqd"]})
    if "C" in compared and compared["C"].wrong.any() and "C" not in scaled:
        c = compared["C"]
        if np.all(np.abs(np.swapaxes(c.user, -1, -2) - c.ref) <= c.tol[:, None, None, None]):
            out.append({"text": "your C is the transpose of the Christoffel-symbol matrix",
                        "quantities": ["C", "Cqd"]})
    if QD is not None:
        out += _slips(compared, sets, Q, QD, explained={q for ex in out for q in ex["quantities"]})
    return out


def _slips(compared: dict[str, Compared], sets: list[ParamSet], Q: np.ndarray, QD: np.ndarray,
           explained: set[str]) -> list[dict[str, Any]]:
    """A Christoffel term's slip and an angle convention (:mod:`crossdyn.checking.slips`), for the quantities no
    whole-quantity pattern explained."""
    from crossdyn.analytic import dynamics as analytic

    out = []
    if not explained & {"C", "Cqd"}:
        masses: list[Callable[[np.ndarray], np.ndarray]] = [functools.partial(analytic.mass_matrix, ps.arm)
                                                            for ps in sets]
        found = slips.christoffel_slip(compared, masses, Q, QD)
        out += [found] if found else []
    if "G" not in explained:
        g = float(np.linalg.norm(sets[0].arm.gravity))

        def gravity_for(direction: tuple[float, float]) -> np.ndarray:
            return np.stack([analytic.gravity(ps.arm._replace(gravity=g * np.array(direction)), Q) for ps in sets])

        found = slips.angle_convention(compared, gravity_for, g)
        out += [found] if found else []
    return out


def _scale_factors(compared: dict[str, Compared]) -> dict[str, float]:
    """quantity → α for each wrong quantity that is exactly α × the expected one."""
    scaled = {}
    for q, c in compared.items():
        if not c.wrong.any():
            continue
        u, r = c.user.reshape(c.user.shape[0], -1), c.ref.reshape(c.ref.shape[0], -1)
        tol = c.tol[:, None]
        rr = float(np.sum(r * r))
        if rr == 0:
            continue
        alpha = float(np.sum(u * r)) / rr
        if np.all(np.abs(u - alpha * r) <= tol):
            scaled[q] = alpha
    return scaled


def _factor_text(q: str, alpha: float) -> dict[str, Any]:
    """The explanation of quantity ``q`` being α × the expected one (said once, for the C matrix, of C and C q̇)."""
    covers = ["C", "Cqd"] if q == "C" else [q]
    what = NAMES[q]
    if abs(alpha + 1) < 1e-6:
        text = f"your {what} is exactly the negative of the expected one"
        if q == "G":
            text += " — crossdyn writes G on the left-hand side: M qdd + C qd + G = tau, G = dU/dq"
    else:
        frac = diagnosis._nice(alpha)
        factor = f"{alpha:.6g}" if frac[0] > 2 else (("-" if alpha < 0 else "") + (frac[1] or "1"))
        text = f"your {what} is exactly {factor} times the expected one (a factor of {factor} throughout {what})"
    return {"text": text, "quantities": covers}


def attach(found: list[dict[str, Any]],
           findings: list[EntryFinding]) -> tuple[list[dict[str, Any]], list[EntryFinding]]:
    """Each finding explained by the first explanation that covers its quantity; each explanation gets the wrong
    entries it accounts for (``"entries"``), and one that accounts for none is dropped."""
    by = [f.explained_by for f in findings]
    for ex in found:
        for k, f in enumerate(findings):
            if by[k] is None and f.quantity in ex["quantities"]:
                by[k] = ex["text"]
        ex["entries"] = [f.entry for k, f in enumerate(findings)
                         if by[k] == ex["text"] and f.status == EntryStatus.WRONG]
    findings = [f if b == f.explained_by else dataclasses.replace(f, explained_by=b)
                for f, b in zip(findings, by, strict=True)]
    return [ex for ex in found if ex["entries"]], findings
