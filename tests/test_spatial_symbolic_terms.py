"""crossdyn.analytic.spatial_terms: a user's wrong spatial entry named to the term (missing, sign, factor) from the
shipped collected derivation, at random states and independent random parameters; an error outside the entry's
terms (a wrong power) is said to be one.  The users' entries here are the correct printed terms with one
mutation, evaluated as Python (as a student's file would be)."""
from __future__ import annotations

from math import cos, sin  # noqa: F401 — the users' entries below use them

import pytest
import sympy as sp

from crossdyn.analytic import spatial_generated as sg
from crossdyn.analytic.spatial_terms import entry_terms, name_error


def _user(d, key, replace: dict | None = None, extra: str = ""):
    """The entry printed term by term (each term's text, optionally replaced) as a Python function."""
    texts = [sp.pycode(t, fully_qualified_modules=False) for t in entry_terms(d, key)]
    texts = [replace.get(sp.sstr(t), x) if replace else x for t, x in zip(entry_terms(d, key), texts, strict=True)]
    body = " + ".join(f"({x})" for x in texts if x) or "0"
    names = ", ".join(str(s) for s in d.params)
    src = (f"def f(q, qd, p):\n    {', '.join(str(s) for s in d.q)}, = q\n"
           f"    {', '.join(str(s) for s in d.qd)}, = qd\n"
           f"    {names}, = ({', '.join(f'p.{s}' for s in d.params)},)\n    return {body}{extra}\n")
    ns: dict = {"cos": cos, "sin": sin}
    exec(src, ns)  # noqa: S102 — our own test function
    return ns["f"]


def test_the_correct_entry_has_no_finding():
    d, values = sg.shipped("scara")
    assert name_error(d, ("M", 0, 0), _user(d, ("M", 0, 0)), values) is None


def test_rp_missing_m2_d2_squared_is_named():
    d, values = sg.shipped("rp-polar")
    finding = name_error(d, ("M", 0, 0), _user(d, ("M", 0, 0), {"m2*q2**2": ""}), values)
    assert finding is not None and finding.explained
    assert finding.messages() == ["M11: the term m2*q2**2 is missing"]


def test_scara_missing_prismatic_gravity_is_named():
    d, values = sg.shipped("scara")
    finding = name_error(d, ("G", 2, 0), _user(d, ("G", 2, 0), {"-g*m3": ""}), values)
    assert finding is not None and finding.messages() == ["G3: the term -g*m3 is missing"]


@pytest.mark.parametrize("mutation, expected", [
    ({"2*a1*a2*m2*cos(q2)": "-2*a1*a2*m2*cos(q2)"}, "M11: the term 2*a1*a2*m2*cos(q2) has the wrong sign"),
    ({"2*a1*a2*m2*cos(q2)": "a1*a2*m2*cos(q2)"}, "M11: the term 2*a1*a2*m2*cos(q2) is multiplied by 1/2 (expected 1)"),
])
def test_scara_sign_and_factor_are_named(mutation, expected):
    d, values = sg.shipped("scara")
    finding = name_error(d, ("M", 0, 0), _user(d, ("M", 0, 0), mutation), values)
    assert finding is not None and finding.messages() == [expected]


def test_wrong_power_is_not_a_combination_of_the_terms():
    d, values = sg.shipped("rp-polar")
    finding = name_error(d, ("M", 0, 0), _user(d, ("M", 0, 0), {"m2*q2**2": "m2*q2**3"}), values)
    assert finding is not None and not finding.explained
    assert "not a combination" in finding.messages()[0]


@pytest.mark.parametrize("name", ["rp-polar", "rpp-cylindrical", "scara", "elbow-rrr", "ppp-cartesian", "pan-tilt"])
def test_ten_single_term_mutations_per_preset_are_named(name):
    """min(10, number of terms) mutations spread over the entries (a term dropped, or its sign flipped, in turn),
    each named to its entry and term."""
    d, values = sg.shipped(name)
    cases = [(key, t) for key in d.collected for t in entry_terms(d, key)]
    step = max(1, len(cases) // 10)
    chosen = cases[::step][:10]
    assert len(chosen) == min(10, len(cases))
    for k, (key, term) in enumerate(chosen):
        text = sp.sstr(term)
        drop = k % 2 == 0
        user = _user(d, key, {text: "" if drop else sp.pycode(-term, fully_qualified_modules=False)})
        finding = name_error(d, key, user, values, seed=k)
        label = f"{key[0]}{key[1] + 1}" + ("" if key[0] == "G" else f"{key[2] + 1}")
        want = f"{label}: the term {text} " + ("is missing" if drop else "has the wrong sign")
        assert finding is not None and finding.messages() == [want], (name, key, text)
