"""The diagnosis of each wrong entry, from :mod:`crossdyn.checking.diagnosis`'s pieces.

For every wrong entry no explanation accounts for: the terms whose coefficients are off, with found and
expected values (at the arm's own parameters, or at the worst random set where the own ones hide the error), the
polynomial the coefficient error follows across the parameter sets, and which parameters the entry depends on
that it should not (or vice versa), from finite-difference sensitivities ∂e/∂ln P.  The polynomial is named in
the parameters the file uses (:mod:`crossdyn.checking.general_sets`).
"""
from __future__ import annotations

import dataclasses
import io
import math
import re
from dataclasses import dataclass

import numpy as np

from crossdyn.checking import diagnosis
from crossdyn.checking.entries import Compared
from crossdyn.checking.evaluation import (
    PLANAR_PARAMS, QUANTITY_ROLE, Equations, evaluate_reference, evaluate_user,
)
from crossdyn.checking.general_sets import GENERAL_SETS, GeneralSets, free_list, general_fit, general_sets
from crossdyn.checking.results import ATOL, RTOL, EntryFinding, EntryStatus
from crossdyn.checking.sampling import Sample, free_parameters, perturbed, special_values
from crossdyn.equations.python_file import ParamSet


@dataclass(frozen=True)
class Sensitivity:
    """∂e/∂ln P by central differences at parameter set ``base``, for each free parameter (``labels``): the
    user's entries, the reference's and their error, each (P, …entry…) as the largest over the states."""

    base: int
    labels: list[str]
    d_user: np.ndarray
    d_ref: np.ndarray
    d_err: np.ndarray


def sensitivities(model: Equations, sink: io.StringIO, sample: Sample, quantities: list[str], base: int,
                  n_states: int = 12, h: float = 1e-4) -> dict[str, Sensitivity]:
    """Finite-difference sensitivities of user and reference entries of ``quantities`` at set ``base``."""
    ps0 = sample.sets[base]
    params = free_parameters(sample.kinds, sample.own)
    labels = [f"{name}{i + 1}" for name, i in params]
    Qs, QDs = sample.Q[:n_states], sample.QD[:n_states]
    roles = tuple(sorted({QUANTITY_ROLE[q] for q in quantities}))
    psets = [perturbed(ps0, sample.kinds, name, i, factor) for name, i in params for factor in (1 + h, 1 - h)]
    user = evaluate_user(model, PLANAR_PARAMS, psets, Qs, QDs, sink, roles=roles)           # (2P, states, …)
    ref = evaluate_reference(psets, Qs, QDs, set(quantities))
    result = {}
    for q in quantities:
        du = (user[q][0::2] - user[q][1::2]) / (2 * h)                          # (P, states, …)
        dr = (ref[q][0::2] - ref[q][1::2]) / (2 * h)
        result[q] = Sensitivity(base, labels, np.abs(du).max(axis=1), np.abs(dr).max(axis=1),
                                np.abs(du - dr).max(axis=1))
    return result


def diagnose_findings(model: Equations, sink: io.StringIO, sample: Sample, compared: dict[str, Compared],
                      findings: list[EntryFinding], seed: int) -> tuple[list[EntryFinding], GeneralSets | None]:
    """``findings`` with every one that no explanation accounts for diagnosed, and the general sets used (if any).

    The sensitivities are taken at the parameter set where the wrong quantities are worst; the general sets
    (:func:`general_sets`, from the random stream ``[seed, 12]``) only with 3 random sets or more.
    """
    todo = [k for k, f in enumerate(findings) if f.explained_by is None]
    wrong_quantities = sorted({findings[k].quantity for k in todo if findings[k].status == EntryStatus.WRONG})
    dependence = None
    general = None
    if wrong_quantities:
        S = len(sample.sets)
        base = int(max(range(S), key=lambda s: max(
            float(np.max(compared[q].err[s] / max(compared[q].tol[s], 1e-300))) for q in wrong_quantities)))
        dependence = sensitivities(model, sink, sample, wrong_quantities, base)
        if S - 1 >= 3:
            general = general_sets(model, sink, sample, wrong_quantities, GENERAL_SETS,
                                   np.random.default_rng([seed, 12]))
    diagnoser = _Diagnoser(compared, sample, dependence, general)
    out = list(findings)
    for k in todo:
        out[k] = diagnoser.diagnose(findings[k])
    return out, general


@dataclass(frozen=True)
class _Terms:
    """What the term-by-term fit of one entry found."""

    terms: list[diagnosis.TermDiff]
    messages: list[str]
    unexplained: float
    named_general: bool      # every off term's difference is named in the general parameters
    complete: bool           # every term that is off is listed


class _Diagnoser:
    """Diagnoses findings one by one, keeping the bases of terms and candidate monomials per quantity."""

    def __init__(self, compared: dict[str, Compared], sample: Sample, dependence: dict[str, Sensitivity] | None,
                 general: GeneralSets | None):
        self.compared, self.sample, self.dependence, self.general = compared, sample, dependence, general
        self.own_special = special_values(sample.own)
        sets = sample.sets
        self.S = len(sets)
        self.n = len(sets[0].L)
        self.g = math.hypot(*sets[0].gravity[:2])
        self.bases: dict[str, diagnosis.Basis | None] = {}
        self.cands: dict[str, diagnosis.Monomials] = {}
        self.gbases: dict[str, diagnosis.Basis | None] = {}
        self.gcands: dict[str, diagnosis.Monomials] = {}

    def _monomials(self, key: str, sets: list[ParamSet], kinds: list[str]) -> diagnosis.Monomials:
        L, m, Lc, J = (np.stack([getattr(ps, a) for ps in sets]) for a in ("L", "m", "Lc", "J"))
        return diagnosis.monomials(L, m, Lc, J, kinds, factor=self.g if key == "G" else 1.0,
                                   factor_name="g" if key == "G" else "")

    def candidates(self, key: str) -> diagnosis.Monomials:
        """Monomials in the kind-keeping sets' parameters (times g for G)."""
        if key not in self.cands:
            self.cands[key] = self._monomials(key, self.sample.sets, self.sample.kinds)
        return self.cands[key]

    def general_candidates(self, key: str) -> diagnosis.Monomials:
        """Monomials over the kind-keeping and the general sets together, Lc and J free where the file reads them."""
        assert self.general is not None
        if key not in self.gcands:
            self.gcands[key] = self._monomials(key, self.sample.sets + self.general.sets, self.general.kinds)
        return self.gcands[key]

    def diagnose(self, f: EntryFinding) -> EntryFinding:
        """``f`` with its terms, their differences, its dependence and its messages filled in."""
        if f.quantity not in self.bases:
            self.bases[f.quantity] = diagnosis.make_basis(f.quantity, self.sample.Q, self.sample.QD)
        basis = self.bases[f.quantity]
        k_star = 0 if 0 in f.wrong_param_sets or f.status == EntryStatus.NOTE else f.worst_param_set
        found = None
        if basis is None:
            messages = ["no term-by-term diagnosis: too few states for the basis of terms (increase --states)"]
        else:
            found = self._fit_terms(f, basis, k_star)
            messages = found.messages
        terms = found.terms if found is not None else []
        dependence, involved = self._dependence(f, terms, found is not None and found.named_general
                                                and found.complete)
        messages += dependence
        if f.hidden_by_own_params:
            messages.append(self._hidden(f, involved))
        return dataclasses.replace(
            f, terms_param_set=k_star, terms=terms, messages=messages, dependence=dependence,
            basis_note=basis.note if basis is not None else f.basis_note,
            unexplained=found.unexplained if found is not None else f.unexplained)

    def _fit_terms(self, f: EntryFinding, basis: diagnosis.Basis, k_star: int) -> _Terms:
        """Fit user and reference entry in the basis at every set; name the terms that are off."""
        cmp_ = self.compared[f.quantity]
        sel = (slice(None), slice(None)) + f.index
        U, R = cmp_.user[sel].T, cmp_.ref[sel].T                  # (N, S)
        cu, ru = diagnosis.fit(basis, U)
        cr, _ = diagnosis.fit(basis, R)
        resid_norm = np.linalg.norm(U - R, axis=0)
        unexplained = ru / np.maximum(resid_norm, 1e-300)
        exact = bool(np.all(unexplained[f.wrong_param_sets] < 1e-6))   # judged where the entry is wrong
        tol = RTOL * cmp_.qscale[k_star] + ATOL
        tols = RTOL * cmp_.qscale + ATOL                          # (S,)
        idx = diagnosis.off_terms(basis.names, cu[:, k_star], cr[:, k_star], tol, exact)
        complete = int(np.sum(np.abs(cu[:, k_star] - cr[:, k_star]) > tol)) == len(idx)
        key = "G" if f.quantity == "G" else "other"
        gfit = None
        if exact and self.general is not None and self.S >= 4:
            gfit = general_fit(self.general, f.quantity, f.index, basis, self.gbases)
        named_general = bool(idx) and gfit is not None
        in_general: set[str] = set()
        terms = []
        for t in idx:
            fitres = None
            if gfit is not None:
                fitres = diagnosis.explain_difference(np.concatenate([cu[t] - cr[t], gfit[t]]),
                                                      self.general_candidates(key))
            if fitres is None:
                named_general = False
            else:
                in_general.add(basis.names[t])
            terms.append(self._term(f, basis.names[t], cu[t], cr[t], k_star, tols, exact, fitres))
        swaps = _trig_swaps(basis.names, idx, cu, cr, tols) if exact else []
        messages = self._term_messages(f, terms, swaps, in_general, k_star)
        if not exact:
            messages.append(f"{f.entry}: {100 * float(unexplained[k_star]):.3g} % of the error is not a combination "
                            "of the usual terms (1, cos/sin of joint angles and their sums"
                            + {"Cqd": ", times qdi*qdj", "C": ", times qdj"}.get(f.quantity, "")
                            + "): look for products like cos(q2)*cos(q3) or squares like cos(q2)**2"
                            + ("; the coefficients above are approximate" if idx else ""))
        return _Terms(terms, messages, float(unexplained[k_star]), named_general, complete)

    def _term(self, f: EntryFinding, name: str, cu: np.ndarray, cr: np.ndarray, k_star: int, tols: np.ndarray,
              exact: bool, fitres: tuple | None) -> diagnosis.TermDiff:
        """One off term: its coefficients at ``k_star``, the polynomial its difference follows and its reading
        (``fitres``: the difference already fitted over the general sets too, if it could be)."""
        key = "G" if f.quantity == "G" else "other"
        difference = reading = None
        if exact and np.all(np.abs(cu + cr) <= tols) and np.all(np.abs(cr) > tols):
            reading = "its sign is flipped (yours = -expected at every parameter set)"
            if fitres is not None:
                difference = diagnosis.format_polynomial(*fitres)
        elif exact and (self.S >= 4 or fitres is not None):
            if fitres is None:
                fitres = diagnosis.explain_difference(cu - cr, self.candidates(key))
            if fitres is not None:
                coefs, names = fitres
                difference = diagnosis.format_polynomial(coefs, names)
                reading = diagnosis.reading(coefs, names) or None
                if reading and np.all(np.abs(cr) <= tols):  # nothing is expected: the whole term is extra
                    reading = "the term does not belong there (the expected coefficient is 0 at every parameter set)"
        if exact and reading:
            reading += _armature_reading(f, name, cu - cr, self.sample.sets, tols)
        return diagnosis.TermDiff(name, float(cu[k_star]), float(cr[k_star]), difference, reading)

    def _term_messages(self, f: EntryFinding, terms: list[diagnosis.TermDiff], swaps: list[tuple[str, str]],
                       in_general: set[str], k_star: int) -> list[str]:
        """A sentence per off term (found and expected, then the difference's polynomial), then the swaps."""
        at = "at the arm's own parameters" if k_star == 0 else f"at random parameter set {k_star}"
        swapped = {name for pair in swaps for name in pair}
        out = []
        for t in terms:
            out.append(f"{f.entry}: {t.describe()} ({at})")
            if t.term in swapped:
                continue
            if t.difference:
                s = (f"    the difference in the {_term_phrase(t.term)} (yours - expected) is exactly "
                     f"{t.difference} at every one of the {self.S} parameter sets")
                if t.term in in_general and self.general is not None:
                    s += f" (and {len(self.general.sets)} more with {free_list(self.general.read, self.n)} free)"
                out.append(s + (f": {t.reading}" if t.reading else ""))
            elif t.reading:
                out.append(f"    the {_term_phrase(t.term)}: {t.reading}")
        for yours, expected in swaps:
            out.append(f"{f.entry}: {yours} is used where {expected} belongs (same coefficient, at every parameter set)")
        return out

    def _dependence(self, f: EntryFinding, terms: list[diagnosis.TermDiff],
                    named: bool) -> tuple[list[str], set[str] | None]:
        """What the entry depends on that it should not (or vice versa), and the parameters its error involves
        (None when unknown); ``named``: the terms' differences are exact in the general parameters."""
        if self.dependence is None or f.quantity not in self.dependence or f.status != EntryStatus.WRONG:
            return [], None
        sens = self.dependence[f.quantity]
        sel = (slice(None),) + f.index
        eps = 1e-7 * max(float(self.compared[f.quantity].qscale[sens.base]), 1e-300)
        dependence = diagnosis.classify_dependence(f.entry, sens.labels, sens.d_user[sel], sens.d_ref[sel],
                                                   sens.d_err[sel], eps)
        involved = {lab for lab, d in zip(sens.labels, sens.d_err[sel], strict=True) if d > eps}
        if named and terms and all(t.difference for t in terms):
            # the exact differences, in the parameters the file uses, say which parameters the error involves
            symbols = _symbols([t.difference for t in terms if t.difference])
            order = {lab: k for k, lab in enumerate(_param_order(self.n))}
            ordered = sorted(symbols, key=lambda x: order.get(x, 99))
            dependence = [d for d in dependence if not d.startswith(f"the error in {f.entry} ")]
            dependence.append(f"the error in {f.entry} involves {diagnosis._list(ordered)} "
                              "(it does not change with the other parameters)")
            involved = set(ordered)
        return dependence, involved

    def _hidden(self, f: EntryFinding, involved: set[str] | None) -> str:
        """The note that the arm's own parameters hide this error (naming the special values involved)."""
        msg = (f"{f.entry} matches at the arm's own parameters but not at {len(f.wrong_param_sets)} of "
               f"{self.S - 1} random parameter sets: the default parameters hide this error")
        special = [text for params, text in self.own_special if involved is None or params & involved]
        if special:
            msg += f" (this arm has {'; '.join(special)})"
        return msg


def _armature_reading(f: EntryFinding, term: str, diff: np.ndarray, sets: list[ParamSet], tols: np.ndarray) -> str:
    """For a diagonal M_ii whose constant term is off by exactly ∓I_ai at every parameter set (the rotor
    armature, kept at the arm's value in every set): name it, e.g. " = p.Ia1, joint 1's rotor armature"."""
    if f.quantity != "M" or term != "1" or len(f.index) != 2 or f.index[0] != f.index[1]:
        return ""
    i = f.index[0]
    Ia = float(sets[0].armature[i])
    if Ia <= 0 or any(float(ps.armature[i]) != Ia for ps in sets):
        return ""
    k = i + 1
    if np.all(np.abs(np.asarray(diff) + Ia) <= tols):
        return f" = p.Ia{k}, the rotor armature of joint {k} (its kinetic energy 1/2 Ia{k} qd{k}^2 puts it on {f.entry})"
    if np.all(np.abs(np.asarray(diff) - Ia) <= tols):
        return f" = p.Ia{k}, the rotor armature of joint {k}, counted twice"
    return ""


def _param_order(n: int) -> list[str]:
    return [f"{name}{i + 1}" for i in range(n) for name in ("L", "m", "Lc", "J")]


def _symbols(polynomials: list[str]) -> set[str]:
    """The parameters (L1, m3, Lc2, J1, …) named in difference polynomials."""
    return {tok for p in polynomials for tok in re.findall(r"[A-Za-z]+\d+", p) if re.fullmatch(r"(L|Lc|m|J)\d+", tok)}


def _trig_swaps(names: tuple[str, ...], idx: list[int], cu: np.ndarray, cr: np.ndarray,
                tols: np.ndarray) -> list[tuple[str, str]]:
    """Pairs (yours, expected) like ("sin(q1)", "cos(q1)"): the user's coefficient of one equals the
    expected coefficient of the other, and vice versa, at every parameter set."""
    out = []
    pos = {name: k for k, name in enumerate(names)}
    for t in idx:
        name = names[t]
        if "cos(" not in name:
            continue
        u = pos.get(name.replace("cos(", "sin("))
        if u is None or u not in idx:
            continue
        if np.all(np.abs(cu[u] - cr[t]) <= tols) and np.all(np.abs(cu[t] - cr[u]) <= tols):
            if np.any(np.abs(cr[t]) > tols):
                out.append((names[u], name))
            else:
                out.append((name, names[u]))
    return out


def _term_phrase(term: str) -> str:
    return "constant term" if term == "1" else f"{term} coefficient"
