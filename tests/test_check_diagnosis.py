"""`crossdyn check` diagnoses (issue 11 items 8-12): each mistake named as a person wrote it.

Expected differences come from computer algebra (tests/mutations.py runs the files' functions on sympy
symbols), never from the checker; the mutated files are generated from the reference files in
tests/check_files/ by editing one node of their syntax tree.
"""
import json
from pathlib import Path

import pytest
import sympy as sp

from crossdyn.checking.checker import UserFileError, check
from crossdyn.cli import main
from mutations import CATEGORIES, mutations, parse_polynomial, symbolic, terms

FILES = Path(__file__).parent / "check_files"
FAST = {"states": 200, "random_params": 5, "energy": False}
PER_CATEGORY = {"power": 2, "factor2": 2, "missing": 2, "extra": 1, "lc": 1, "sincos": 1, "sign": 2}   # 11


def variant(tmp_path, base: str, old: str, new: str, name: str = "mine.py") -> Path:
    src = (FILES / base).read_text()
    assert src.count(old) == 1, f"edit target not unique in {base}: {old!r}"
    path = tmp_path / name
    path.write_text(src.replace(old, new))
    return path


def expected_differences(original: str, mutated: str, n: int) -> dict[str, dict[str, sp.Expr]]:
    """entry → {term: (mutated − original) coefficient}; of a symmetric M the upper triangle (the checker
    reports M12 for M21), of an asymmetric one every entry."""
    a, b = symbolic(original, n), symbolic(mutated, n)
    symmetric = all(sp.expand(b["M"][i, j] - b["M"][j, i]) == 0 for i in range(n) for j in range(n))
    out = {}
    for role in b:
        for idx, expr in b[role].items():
            if role == "M" and idx[0] > idx[1] and symmetric:
                continue
            d = terms(expr - a[role][idx])
            if d:
                out[role + "".join(str(i + 1) for i in idx)] = d
    return out


# ----------------------------------------------------------------------------- items 10 and 12

@pytest.mark.parametrize("arm, file, n", [("planar2r", "textbook_2r.py", 2),
                                          pytest.param("planar3r", "textbook_3r.py", 3, marks=pytest.mark.slow),
                                          ("planar2r-pointmass", "pointmass_2r.py", 2),
                                          pytest.param("planar3r-general", "textbook_3r.py", 3,
                                                       marks=pytest.mark.slow)])  # the 3R cases: 4 s each
def test_single_term_mutations_are_named_in_the_files_own_parameters(tmp_path, arm, file, n):
    source = (FILES / file).read_text()
    original = symbolic(source, n)
    muts = mutations(source, PER_CATEGORY)
    assert len(muts) >= 10 and {c for c, _, _ in muts} == set(CATEGORIES)
    for cat, site, text in muts:
        where = f"{file} {cat} #{site}"
        path = tmp_path / f"{cat}_{site}.py"
        path.write_text(text)
        want = expected_differences(source, text, n)
        assert want, f"{where}: the mutation changes nothing"
        r = check(arm, path, **FAST)
        assert {f.entry for f in r.wrong} == set(want), where
        for entry, diffs in want.items():
            f = r.finding(entry)
            said = "\n".join(f.messages)
            assert f.explained_by is None, where
            if cat == "sincos":
                for term in diffs:
                    if term.startswith("cos("):
                        assert f"{term.replace('cos', 'sin')} is used where {term} belongs" in said, (where, said)
                continue
            assert {t.term for t in f.terms} == set(diffs), (where, said)
            for t in f.terms:
                if t.difference is None:
                    # a whole coefficient of the opposite sign: said as such, and true
                    assert "sign is flipped" in (t.reading or ""), (where, said)
                    base = terms(original[entry[0]][tuple(int(c) - 1 for c in entry[1:])])[t.term]
                    assert sp.expand(diffs[t.term] + 2 * base) == 0, where
                    continue
                got = parse_polynomial(t.difference, n)
                assert sp.expand(got - diffs[t.term]) == 0, (where, t.term, t.difference, diffs[t.term])


def test_bracket_with_two_wrong_powers_is_named_as_such(tmp_path):
    # M11 of a 3R with m3*(L1 + L2 + ...) where m3*(L1**2 + L2**2 + ...) belongs: four monomials, one slip
    f = variant(tmp_path, "textbook_3r.py", "+ m3 * (L1**2 + L2**2 + Lc3**2 + 2 * L1 * L2 * c2",
                "+ m3 * (L1 + L2 + Lc3**2 + 2 * L1 * L2 * c2")
    r = check("planar3r", f, states=200, random_params=20, energy=False)
    assert [x.entry for x in r.wrong] == ["M11"]
    t = next(t for t in r.finding("M11").terms if t.term == "1")
    L1, L2, m3 = sp.symbols("L1 L2 m3", positive=True)
    assert sp.expand(parse_polynomial(t.difference, 3) - (m3 * L1 + m3 * L2 - m3 * L1**2 - m3 * L2**2)) == 0
    assert t.reading == "yours has m3*(L1 + L2) where m3*(L1^2 + L2^2) belongs"


def test_L_where_Lc_belongs_on_a_rod_arm_is_told_from_a_missing_half(tmp_path):
    # for rods Lc3 = L3/2, so m3*L2*L3 - m3*L2*Lc3 = m3*L2*Lc3 at every kind-keeping set; the general sets tell
    f = variant(tmp_path, "textbook_3r.py", "m23 = p.J3 + m3 * (Lc3**2 + L2 * Lc3 * c3)",
                "m23 = p.J3 + m3 * (Lc3**2 + L2 * p.L3 * c3)")
    r = check("planar3r", f, **FAST)
    t = next(t for t in r.finding("M23").terms if t.term == "cos(q3)")
    assert t.difference == "m3*L2*L3 - m3*L2*Lc3"
    assert t.reading == "yours has m3*L2*L3 where m3*L2*Lc3 belongs"
    assert any("involves L2, L3, m3 and Lc3" in d for d in r.finding("M23").dependence)


def test_readme_example_names_terms_as_written():
    r = check("planar3r", Path(__file__).parent.parent / "examples/check/my_3r_buggy.py")
    m12 = r.finding("M12")
    assert [t.difference for t in m12.terms] == ["-m3*L2*Lc3"]
    assert m12.terms[0].reading == "yours lacks m3*L2*Lc3"
    assert any(d.startswith("the error in M12 involves L2, m3 and Lc3") for d in m12.dependence)
    assert r.finding("M11").terms[0].reading == "yours has m3*L1 where m3*L1^2 belongs"


def test_file_without_Lc_is_named_in_L_and_m_only(tmp_path):
    # the point-mass file never reads Lc or J: no general sets, no Lc in its diagnosis
    f = variant(tmp_path, "pointmass_2r.py", "m2 * l2**2 + m2 * l1 * l2 * c2]", "m2 * l2**2 + m2 * l1 * c2]")
    r = check("planar2r-pointmass", f, **FAST)
    t = r.finding("M12").terms[0]
    assert t.difference == "m2*L1 - m2*L1*L2"
    assert not any("terms are named in the parameters your file uses" in x for x in r.notes)


# ----------------------------------------------------------------------------- item 11

EXPLAINED = {
    "G of the opposite sign": ("textbook_2r.py", "return [g1, g2]", "return [-g1, -g2]", "planar2r",
                               "your G is exactly the negative of the expected one", {"G1", "G2"}),
    "factor 2 throughout M": ("textbook_2r.py", "return [[m11, m12], [m12, m22]]",
                              "return [[2 * m11, 2 * m12], [2 * m12, 2 * m22]]", "planar2r",
                              "your M is exactly 2 times the expected one", {"M11", "M12", "M22"}),
    "factor 2 throughout G": ("textbook_3r.py", "return [g1, g2, g3]", "return [2 * g1, 2 * g2, 2 * g3]",
                              "planar3r", "your G is exactly 2 times the expected one", {"G1", "G2", "G3"}),
    "factor 2 throughout C": ("textbook_2r.py", "h = -p.m2 * p.L1 * p.Lc2 * sin(q[1])",
                              "h = -2 * p.m2 * p.L1 * p.Lc2 * sin(q[1])", "planar2r",
                              "your C is exactly 2 times the expected one", {"Cqd1", "Cqd2", "C11", "C12", "C21"}),
    "transposed C": ("textbook_2r.py", "return [[h * qd[1], h * (qd[0] + qd[1])],\n            [-h * qd[0], 0.0]]",
                     "return [[h * qd[1], -h * qd[0]],\n            [h * (qd[0] + qd[1]), 0.0]]", "planar2r",
                     "your C is the transpose of the Christoffel-symbol matrix", {"Cqd1", "Cqd2", "C12", "C21"}),
    "C qd + G returned as C": ("pointmass_2r.py", "k * qd[0]**2])", "k * qd[0]**2]) + gravity(q, p)",
                               "planar2r-pointmass", "your C returns C qd + G", {"Cqd1", "Cqd2"}),
}


@pytest.mark.parametrize("case", list(EXPLAINED))
def test_one_global_explanation_comes_first_and_replaces_the_term_lists(tmp_path, capsys, case):
    base, old, new, arm, text, entries = EXPLAINED[case]
    f = variant(tmp_path, base, old, new)
    r = check(arm, f, **FAST)
    assert {x.entry for x in r.wrong} == entries
    assert len(r.explanations) == 1 and r.explanations[0]["text"].startswith(text)
    assert set(r.explanations[0]["entries"]) == entries
    assert all(x.explained_by == r.explanations[0]["text"] and x.terms == [] for x in r.wrong)
    out = tmp_path / "out"
    assert main(["check", arm, str(f), "--states", "200", "--random-params", "5", "--out", str(out)]) == 1
    printed = capsys.readouterr().out
    assert printed.index("One mistake explains") < printed.index("Structure of your equations")
    assert text in printed
    assert "term has coefficient" not in printed and "coefficient (yours - expected)" not in printed
    data = json.loads((out / "check.json").read_text())
    assert data["explanations"][0]["entries"] == r.explanations[0]["entries"]
    assert "One mistake explains" in (out / "check.md").read_text()


def test_an_unrelated_mistake_is_still_listed_beside_the_explanation(tmp_path, capsys):
    src = (FILES / "textbook_2r.py").read_text().replace("return [g1, g2]", "return [-g1, -g2]")
    src = src.replace("m22 = p.J2 + p.m2 * p.Lc2**2", "m22 = p.J2 + p.m2 * p.Lc2")
    f = tmp_path / "two.py"
    f.write_text(src)
    r = check("planar2r", f, **FAST)
    assert [x["entries"] for x in r.explanations] == [["G1", "G2"]]
    m22 = r.finding("M22")
    assert m22.explained_by is None and m22.terms[0].reading == "yours has m2*Lc2 where m2*Lc2^2 belongs"


# ----------------------------------------------------------------------------- item 8

def test_point_mass_file_against_the_rod_arm_names_the_matching_preset(tmp_path, capsys):
    f = FILES / "pointmass_2r.py"
    r = check("planar2r", f, **FAST)
    assert r.exit_code == 1
    assert r.explanations[0]["text"].startswith("your file matches planar2r-pointmass, not planar2r")
    assert {x.entry for x in r.wrong} == set(r.explanations[0]["entries"])
    assert all(x.terms == [] for x in r.wrong)
    assert main(["check", "planar2r", str(f), "--states", "200", "--random-params", "5",
                 "--out", str(tmp_path / "o")]) == 1
    assert "your file matches planar2r-pointmass, not planar2r" in capsys.readouterr().out


def test_toml_arm_is_compared_with_presets_of_the_same_size(tmp_path):
    arm = tmp_path / "mine.toml"
    arm.write_text('name = "mine"\n' + "".join(
        f"[[links]]\nlength = {L}\nmass = {m}\ncom = {c}\ninertia = {J}\n"
        for L, m, c, J in ((0.9, 1.3, 0.3, 0.05), (0.7, 0.6, 0.5, 0.01))))
    r = check(str(arm), FILES / "pointmass_2r.py", **FAST)
    assert r.explanations and r.explanations[0]["arm"] == "planar2r-pointmass"
    assert r.explanations[0]["text"].startswith("your file matches planar2r-pointmass, not mine")


def test_a_file_with_one_mistake_is_not_sent_to_another_arm(tmp_path):
    f = variant(tmp_path, "textbook_2r.py", "m22 = p.J2 + p.m2 * p.Lc2**2", "m22 = p.J2 + p.m2 * p.Lc2")
    r = check("planar2r", f, **FAST)
    assert r.explanations == [] and [x.entry for x in r.wrong] == ["M22"]


# ----------------------------------------------------------------------------- item 9

@pytest.mark.parametrize("arm, file, k, n", [("planar4r", "textbook_3r.py", 3, 4),
                                             ("planar4r", "unpack", 3, 4),
                                             ("planar2r", "unpack", 3, 2),
                                             ("planar3r", "textbook_2r.py", 2, 3)])
def test_file_for_another_number_of_links_exits_2_naming_both_counts(tmp_path, capsys, arm, file, k, n):
    if file == "unpack":   # q1, q2, q3 = q: "too many values to unpack" for a 4-link q
        path = variant(tmp_path, "textbook_3r.py", "def M(q, p):\n", "def M(q, p):\n    q1, q2, q3 = q\n",
                       name="unpack.py")
    else:
        path = FILES / file
    assert main(["check", arm, str(path), "--states", "50", "--random-params", "2", "--out",
                 str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert f"{path}: your functions are written for {k} links" in err
    assert f"but the arm {arm} has {n} links" in err
    assert "Traceback" not in err and "checker.py" not in err
    with pytest.raises(UserFileError, match=f"written for {k} links"):
        check(arm, path, states=20, random_params=0)


def test_a_broken_file_is_not_blamed_on_the_link_count(tmp_path):
    f = variant(tmp_path, "textbook_2r.py", "return [[m11, m12], [m12, m22]]", "return [m11, m12, m22]")
    with pytest.raises(UserFileError, match=r"returned shape \(3,\); expected \(2, 2\)"):
        check("planar2r", f, states=20, random_params=0)


def test_a_file_that_only_works_for_rods_still_gets_its_diagnosis(tmp_path):
    # the general sets are for naming only: a file that refuses them is named from the rod sets, not exit 2
    src = (FILES / "textbook_2r.py").read_text()
    src = src.replace("def M(q, p):\n", "def M(q, p):\n    assert abs(p.Lc2 - p.L2 / 2) < 1e-12, 'rods only'\n")
    f = tmp_path / "rods.py"
    f.write_text(src.replace("m22 = p.J2 + p.m2 * p.Lc2**2", "m22 = p.J2 + p.m2 * p.Lc2"))
    r = check("planar2r", f, **FAST)
    assert [x.entry for x in r.wrong] == ["M22"]
    assert r.finding("M22").terms[0].reading == "yours has m2*Lc2 where m2*Lc2^2 belongs"


def test_point_mass_3r_file_against_the_general_3r_is_told_its_links(tmp_path):
    # no 3-link point-mass preset exists: the arm made of point masses is the candidate
    src = (FILES / "textbook_3r.py").read_text()
    point = tmp_path / "point3r.py"
    point.write_text(src.replace("p.Lc", "p.L").replace("p.J1", "0.0").replace("p.J2", "0.0").replace("p.J3", "0.0"))
    r = check("planar3r-general", point, **FAST)
    assert r.explanations and r.explanations[0]["text"].startswith(
        "your file is written for point masses at the link ends (Lc = L, J = 0), not planar3r-general's links")
    assert all(x.terms == [] for x in r.wrong)
