"""Property-based tests (hypothesis) of the input boundaries and of the generated models.

* Any valid arm spec (1-5 links, random lengths, masses, centres of mass within the link, inertias >= 0
  including 0 = point mass, damping, any gravity vector) becomes a URDF and an MJCF that every engine loads
  (PyBullet, MuJoCo Euler and RK4, Pinocchio through ``make_engine``; DART and Drake in 100 examples each of
  their own) and whose mass matrix, gravity torque and inverse dynamics agree with the analytic model to 1e-9
  relative.
* Any invalid spec dict or TOML file gets :class:`SpecError` naming the field, never another exception;
  arbitrary values in any field, and arbitrary text as a TOML file, never raise anything else.
* Any valid torque CSV loads and reproduces its rows; any corrupted one gets :class:`ProfileError` naming the
  line, never another exception.

* Any printable arm name (quotes, backslashes, ``--``, ``]]>``, ``<``, unicode, ``/``, ``::``) round-trips through
  TOML, URDF and MJCF and loads in every engine.

Examples per run (``max_examples``): 400 valid specs through 4 engines each, 100 through DART and 100 through
Drake, 700 invalid spec dicts, 300 arbitrary-value dicts, 200 arbitrary TOML texts, 150 valid and 250 corrupted
CSVs, 60 names: 2,260 in all.
"""
from __future__ import annotations

import copy
import importlib.util
import math
from dataclasses import replace
import tempfile
import tomllib
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, example, given, settings, strategies as st

from crossdyn import analytic
from crossdyn.inputs.profiles import CSVProfile, ProfileError
from crossdyn.conventions import MAX_LINKS
from crossdyn.engines import make_engine
from crossdyn.models import (ArmSpec, LinkSpec, SpecError, SpecWarning, engine_inertias, load_spec, spec_from_dict,
                             to_mjcf, to_urdf)

ENGINES = ("pybullet", "mujoco", "mujoco-rk4", "pinocchio")
FAST = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
_TMP = tempfile.TemporaryDirectory(prefix="crossdyn-props-")
TMP = Path(_TMP.name)


# ------------------------------------------------------------------------------------------ valid specs
@st.composite
def links(draw) -> LinkSpec:
    length = draw(st.floats(0.05, 3.0))
    mass = draw(st.floats(0.01, 20.0))
    point = draw(st.booleans())
    inertia = 0.0 if point else draw(st.floats(1e-4, 0.5)) * mass * length**2
    if not point and draw(st.integers(0, 9)) == 0:  # within 1e-6 m of the joint: MuJoCo's sameframe trap
        com = draw(st.floats(0.0, 2e-6))
    else:
        com = draw(st.floats(0.05 if point else 0.0, 1.0)) * length  # a point mass at the joint carries nothing
    damping = draw(st.one_of(st.just(0.0), st.floats(0.0, 2.0)))
    return LinkSpec(length, mass, com, inertia, damping)


gravity = st.one_of(
    st.just((0.0, -9.81, 0.0)), st.just((0.0, 0.0, 0.0)),
    st.tuples(st.floats(-20, 20), st.floats(-20, 20), st.floats(-20, 20)),
)


@st.composite
def specs(draw) -> ArmSpec:
    n = draw(st.integers(1, 5))
    with warnings.catch_warnings():
        warnings.simplefilter("error", SpecWarning)  # a valid spec within the link warns about nothing
        return ArmSpec(tuple(draw(links()) for _ in range(n)), draw(gravity), name="hypothesis-arm")


@settings(max_examples=400, **FAST)
@given(spec=specs(), seed=st.integers(0, 2**32 - 1))
@example(  # found by this test: MuJoCo's compiler moved a centre of mass 6e-8 m from the joint onto it
    spec=ArmSpec((LinkSpec(1.0, 1.0, 5.960464477539063e-08, 0.5),), name="hypothesis-arm"), seed=0)
@example(  # found by this test: the absolute inertia floor (1e-14 kg m^2) is 1.3e-9 of this light arm's M
    spec=ArmSpec((LinkSpec(0.125, 0.125, 0.0078125, 0.0),), name="hypothesis-arm"), seed=0)
@pytest.mark.slow  # moved to the slow tier: keeps make test within its 7-min budget
def test_any_valid_spec_loads_in_every_engine_and_agrees(spec, seed):
    _assert_engines_agree(spec, seed, ENGINES)


@settings(max_examples=100, **FAST)
@given(spec=specs(), seed=st.integers(0, 2**32 - 1))
@example(spec=ArmSpec((LinkSpec(0.125, 0.125, 0.0078125, 0.0),), name="hypothesis-arm"), seed=0)
def test_any_valid_spec_loads_in_dart_and_agrees(spec, seed):
    pytest.importorskip("dartpy")  # the `engines` extra (installed by `make test`)
    _assert_engines_agree(spec, seed, ("dart",))


def _assert_engines_agree(spec, seed, engines):
    urdf, mjcf = to_urdf(spec), to_mjcf(spec)
    assert urdf.count('type="revolute"') == spec.n and urdf.count("<collision") == 0 and mjcf.count('type="hinge"') == spec.n
    rng = np.random.default_rng(seed)
    n = spec.n
    q = rng.uniform(-np.pi, np.pi, n)
    qd = rng.uniform(-3, 3, n)
    qdd = rng.uniform(-10, 10, n)
    # point masses (J = 0) reach the engines as the documented floor (models/inertia.py): the engines are
    # compared with the analytic model of the arm they were given, and the floor's own effect is bounded
    J_engine, subs = engine_inertias(spec)
    given_spec = replace(spec, links=tuple(replace(l, inertia=J) for l, J in zip(spec.links, J_engine)))
    assert [s.link for s in subs] == [i + 1 for i, l in enumerate(spec.links) if l.inertia == 0.0]
    M_ref = analytic.mass_matrix(given_spec, q)
    floor_effect = np.max(np.abs(M_ref - analytic.mass_matrix(spec, q)))
    assert floor_effect <= sum(s.engine_inertia for s in subs) + 8 * np.finfo(float).eps * np.max(np.abs(M_ref))
    G_ref = analytic.gravity(given_spec, q)
    tau_ref = analytic.inverse_dynamics(given_spec, q, qd, qdd)
    m_scale = float(np.max(np.abs(M_ref)))
    # a torque scale that bounds every term: gravity, M q'', velocity products, damping
    t_scale = (spec.torque_scale() + m_scale * (np.max(np.abs(qdd)) + n * np.max(np.abs(qd)) ** 2)
               + sum(l.damping for l in spec.links) * np.max(np.abs(qd)))
    for name in engines:
        with make_engine(name, spec, 1e-3) as engine:  # built from the generated URDF / MJCF
            assert engine.n == n
            M = np.asarray(engine.mass_matrix(q))
            assert M.shape == (n, n) and np.all(np.isfinite(M))
            assert np.max(np.abs(M - M_ref)) <= 1e-9 * m_scale, (name, M, M_ref)
            G = np.asarray(engine.inverse_dynamics(q, np.zeros(n), np.zeros(n)))
            assert np.max(np.abs(G - G_ref)) <= 1e-9 * t_scale, (name, G, G_ref)
            tau = np.asarray(engine.inverse_dynamics(q, qd, qdd))
            assert np.max(np.abs(tau - tau_ref)) <= 1e-9 * t_scale, (name, tau, tau_ref)


@pytest.mark.skipif(importlib.util.find_spec("pydrake") is None, reason="drake not installed")
@settings(max_examples=100, **FAST)  # Drake builds two diagrams per arm: fewer examples (~2 s)
@given(spec=specs(), seed=st.integers(0, 2**32 - 1))
def test_any_valid_spec_loads_in_drake_and_agrees(spec, seed):
    _assert_engines_agree(spec, seed, ("drake",))


# ------------------------------------------------------------------------------------------ invalid specs
def _link_dict(link: LinkSpec) -> dict:
    return {"length": link.length, "mass": link.mass, "com": link.com, "inertia": link.inertia,
            "damping": link.damping}


@st.composite
def valid_dicts(draw) -> dict:
    n = draw(st.integers(1, 4))
    return {"name": "arm", "gravity": list(draw(gravity)), "links": [_link_dict(draw(links())) for _ in range(n)]}


NOT_A_NUMBER = st.one_of(st.text(max_size=5), st.booleans(), st.none(), st.lists(st.floats(), max_size=2),
                         st.dictionaries(st.text(max_size=3), st.integers(), max_size=2))
NON_FINITE = st.sampled_from([math.nan, math.inf, -math.inf])
POSITIVE_FIELDS = ("length", "mass")
NONNEG_FIELDS = ("inertia", "damping", "friction")


@st.composite
def mutations(draw):
    """A valid dict, one defect, and what the error must name: (data, field fragments, value or None)."""
    data = draw(valid_dicts())
    n = len(data["links"])
    k = draw(st.integers(1, n))
    link = data["links"][k - 1]
    kind = draw(st.sampled_from([
        "drop-key", "extra-link-key", "extra-top-key", "not-a-number", "non-finite", "non-positive", "negative",
        "gravity-length", "gravity-component", "name", "no-links", "too-many-links", "links-not-list",
        "link-not-table", "limits"]))
    where = f"links[{k}]"
    if kind == "drop-key":
        key = draw(st.sampled_from(["length", "mass", "com", "inertia"]))
        del link[key]
        return data, [where, key], None
    if kind == "extra-link-key":
        key = draw(st.sampled_from(["mas", "Length", "izz", "colour", "joint"]))
        link[key] = 1.0
        return data, [where, key], None
    if kind == "extra-top-key":
        key = draw(st.sampled_from(["gravit", "Name", "link", "units"]))
        data[key] = 1
        return data, [key], None
    if kind == "not-a-number":
        key = draw(st.sampled_from(["length", "mass", "com", "inertia", "damping"]))
        link[key] = draw(NOT_A_NUMBER)
        return data, [f"{where}.{key}"], link[key]
    if kind == "non-finite":
        key = draw(st.sampled_from(["length", "mass", "com", "inertia", "damping"]))
        link[key] = draw(NON_FINITE)
        return data, [f"{where}.{key}"], link[key]
    if kind == "non-positive":
        key = draw(st.sampled_from(POSITIVE_FIELDS))
        link[key] = draw(st.one_of(st.just(0.0), st.just(-0.0), st.floats(-1e6, -1e-300)))
        return data, [f"{where}.{key}"], link[key]
    if kind == "negative":
        key = draw(st.sampled_from(NONNEG_FIELDS))
        link[key] = draw(st.floats(-1e6, -1e-300))
        return data, [f"{where}.{key}"], link[key]
    if kind == "gravity-length":
        data["gravity"] = draw(st.lists(st.floats(-10, 10), max_size=6).filter(lambda g: len(g) != 3))
        return data, ["gravity"], None
    if kind == "gravity-component":
        i = draw(st.integers(0, 2))
        data["gravity"][i] = draw(st.one_of(NON_FINITE, st.text(max_size=3), st.booleans(), st.none()))
        return data, [f"gravity[{i + 1}]"], data["gravity"][i]
    if kind == "name":
        data["name"] = draw(st.one_of(st.just(""), st.just("   "), st.integers(), st.none(), st.lists(st.text())))
        return data, ["name"], data["name"]
    if kind == "no-links":
        if draw(st.booleans()):
            del data["links"]
        else:
            data["links"] = []
        return data, ["links"], None
    if kind == "too-many-links":
        data["links"] = [dict(link) for _ in range(draw(st.integers(MAX_LINKS + 1, 80)))]
        return data, ["links", str(MAX_LINKS)], None
    if kind == "links-not-list":
        data["links"] = draw(st.one_of(st.integers(), st.text(max_size=4), st.just({"length": 1.0})))
        return data, ["links"], None
    if kind == "link-not-table":
        data["links"][k - 1] = draw(st.one_of(st.integers(), st.text(max_size=4), st.lists(st.floats(), max_size=3)))
        return data, [where], None
    # limits: reversed, wrong length, not numbers
    link["limits"] = draw(st.one_of(
        st.tuples(st.floats(0, 3), st.floats(-3, 0)).map(list),
        st.lists(st.floats(-3, 3), max_size=4).filter(lambda v: len(v) != 2),
        st.tuples(st.text(max_size=2), st.floats(0, 1)).map(list)))
    return data, [f"{where}.limits"], None


@settings(max_examples=700, **FAST)
@given(case=mutations())
def test_any_invalid_spec_dict_gets_spec_error_naming_the_field(case):
    data, fragments, value = case
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SpecWarning)
        with pytest.raises(SpecError) as err:
            spec_from_dict(copy.deepcopy(data), "arm.toml")
    msg = str(err.value)
    assert msg.startswith("arm.toml: "), msg
    for fragment in fragments:
        assert fragment in msg, (fragment, msg)
    if value is not None and isinstance(value, (int, float, str)):
        assert repr(value) in msg or str(value) in msg, (value, msg)


ANY_VALUE = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=6)),
    lambda children: st.one_of(st.lists(children, max_size=4), st.dictionaries(st.text(max_size=6), children,
                                                                               max_size=4)),
    max_leaves=12)
FIELDS = ("length", "mass", "com", "inertia", "damping", "friction", "limits")


@settings(max_examples=300, **FAST)
@given(data=valid_dicts(), target=st.sampled_from(("name", "gravity", "links", "link-field", "link")),
       field=st.sampled_from(FIELDS), value=ANY_VALUE)
def test_any_value_anywhere_is_a_spec_or_a_spec_error(data, target, field, value):
    if target == "link-field":
        data["links"][0][field] = value
    elif target == "link":
        data["links"][0] = value
    else:
        data[target] = value
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SpecWarning)
        try:
            spec = spec_from_dict(data, "arm.toml")
        except SpecError as e:
            assert str(e).startswith("arm.toml: ")
            return
    assert isinstance(spec, ArmSpec) and 1 <= spec.n <= MAX_LINKS


def _toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(float(v)) if isinstance(v, float) else str(v)
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f'"{k}" = {_toml_value(x)}' for k, x in v.items()) + "}"
    raise TypeError(v)


def _toml(data: dict) -> str:
    """The layout of the docs: top-level keys, then one [[links]] table per link (when links are tables)."""
    top = {k: v for k, v in data.items() if k != "links" or not (isinstance(v, list) and v and
                                                                    all(isinstance(x, dict) for x in v))}
    lines = [f'"{k}" = {_toml_value(v)}' for k, v in top.items()]  # TOML has no null: TypeError
    if "links" not in top and "links" in data:
        for link in data["links"]:
            lines.append("[[links]]")
            lines += [f'"{k}" = {_toml_value(v)}' for k, v in link.items()]
    return "\n".join(lines) + "\n"


@settings(max_examples=200, **FAST)
@given(case=mutations(), text=st.one_of(st.none(), st.text(max_size=60)))
def test_any_toml_file_is_a_spec_or_a_spec_error(case, text):
    """Corrupted specs written as TOML files, and arbitrary text: load_spec raises SpecError naming the file."""
    data, fragments, _ = case
    try:
        body = _toml(data) if text is None else text
    except TypeError:
        assume(False)
    path = TMP / "arm.toml"
    path.write_text(body, encoding="utf-8", errors="surrogatepass") if text is None else path.write_bytes(
        body.encode("utf-8", errors="replace"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SpecWarning)
        try:
            load_spec(path)
        except SpecError as e:
            assert str(e).startswith(f"{path}: "), str(e)
            if text is None:
                try:
                    tomllib.loads(body)
                except tomllib.TOMLDecodeError:
                    return  # None values etc. cannot all be written as TOML
                for fragment in fragments:
                    assert fragment in str(e), (fragment, str(e))
            return
    assert text is not None  # every mutation is invalid; only arbitrary text may happen to be a valid spec


# ------------------------------------------------------------------------------------------ torque CSVs
@st.composite
def csv_tables(draw):
    n = draw(st.integers(1, 4))
    rows = draw(st.integers(2, 12))
    steps = draw(st.lists(st.floats(1e-3, 1.0), min_size=rows - 1, max_size=rows - 1))
    t = np.concatenate([[draw(st.sampled_from([0.0, -0.5]))], np.cumsum(steps)])
    t[1:] += t[0]
    tau = np.array(draw(st.lists(st.lists(st.floats(-100, 100), min_size=n, max_size=n), min_size=rows,
                                 max_size=rows)))
    order = draw(st.permutations(["time"] + [f"tau{j}" for j in range(1, n + 1)]))
    return n, t, tau, order


def _write_csv(path, t, tau, order, cells=None) -> None:
    cols = {"time": [repr(float(x)) for x in t], **{f"tau{j + 1}": [repr(float(x)) for x in tau[:, j]]
                                                    for j in range(tau.shape[1])}}
    lines = [",".join(order)] + [",".join(cols[c][i] for c in order) for i in range(len(t))]
    for (line, col), text in (cells or {}).items():
        parts = lines[line - 1].split(",")
        parts[order.index(col)] = text
        lines[line - 1] = ",".join(parts)
    path.write_text("\n".join(lines) + "\n")


@settings(max_examples=150, **FAST)
@given(table=csv_tables())
def test_any_valid_csv_loads_and_reproduces_its_rows(table):
    n, t, tau, order = table
    path = TMP / "tau.csv"
    _write_csv(path, t, tau, order)
    prof = CSVProfile(n, path)
    prof.validate(n, float(t[-1]))
    assert np.array_equal(prof.sample(t), tau)  # linear interpolation passes through its knots exactly
    mid = (t[:-1] + t[1:]) / 2
    # halfway between rows: the mean (to rounding, which grows as |t| / dt for closely spaced rows)
    assert np.allclose(prof.sample(mid), (tau[:-1] + tau[1:]) / 2, rtol=0, atol=1e-9 * max(1.0, np.abs(tau).max()))
    with pytest.raises(ProfileError, match="shorter than the requested duration"):
        prof.validate(n, float(t[-1]) + 0.5)


@settings(max_examples=250, **FAST)
@given(table=csv_tables(), defect=st.sampled_from(["text", "nan", "inf", "empty", "time-repeat", "drop-column",
                                                  "extra-column"]),
       row=st.integers(0, 100), col=st.integers(0, 100), word=st.text(alphabet="abcxyz_-", min_size=1, max_size=4))
def test_any_corrupted_csv_gets_profile_error_naming_the_line(table, defect, row, col, word):
    n, t, tau, order = table
    line = 2 + row % len(t)  # a data row (line 1 is the header)
    name = order[col % len(order)]
    path = TMP / "bad.csv"
    if defect in ("text", "nan", "inf", "empty"):
        text = {"text": word, "nan": "nan", "inf": "-inf", "empty": ""}[defect]
        _write_csv(path, t, tau, order, {(line, name): text})
        expect = [f"line {line}", repr(name)]
    elif defect == "time-repeat":
        line = max(line, 3)
        t = t.copy()
        t[line - 2] = t[line - 3]  # a time equal to the previous row's
        _write_csv(path, t, tau, order)
        expect = [f"line {line}", "time", "increasing"]
    elif defect == "drop-column":
        col_name = f"tau{1 + col % n}"
        _write_csv(path, t, tau[:, :n], order)
        text = path.read_text().replace(col_name, "torque", 1)
        path.write_text(text)
        expect = ["line 1", col_name]
    else:
        _write_csv(path, t, tau, order)
        lines = path.read_text().splitlines()
        path.write_text("\n".join([lines[0] + f",tau{n + 1}"] + [x + ",0" for x in lines[1:]]) + "\n")
        expect = ["line 1", f"tau{n + 1}"]
    with pytest.raises(ProfileError) as err:
        CSVProfile(n, path)
    msg = str(err.value)
    assert msg.startswith(str(path)), msg
    for fragment in expect:
        assert fragment in msg, (fragment, msg)


# ------------------------------------------------------------------------------------------ names
def _printable_name(name: str) -> bool:
    import unicodedata

    return bool(name.strip()) and all(unicodedata.category(c) not in ("Cc", "Cs", "Co", "Cn") for c in name)


@settings(max_examples=60, **FAST)
@given(name=st.text(min_size=1, max_size=30).filter(_printable_name))
@example(name="it's")
@example(name='say "hi"')
@example(name="back\\slash")
@example(name="my--arm")
@example(name="a]]>b")
@example(name="<arm>")
@example(name="a & b")
@example(name="ünïcödé ✓ 机械臂")
@example(name="/")
@example(name="::")  # found in Drake: an empty scoped model name aborted the process (Drake is given its own name)
def test_any_printable_name_round_trips_through_toml_urdf_mjcf_and_every_engine(name):
    """Names with quotes, backslashes, unicode, ``--``, ``]]>`` and ``<`` survive every format and loader."""
    import xml.etree.ElementTree as ET

    from crossdyn.models import dumps_spec, get_preset

    spec = replace(get_preset("planar2r"), name=name)
    assert tomllib.loads(dumps_spec(spec))["name"] == name
    path = TMP / "name.toml"
    path.write_text(dumps_spec(spec), encoding="utf-8")
    assert load_spec(path) == spec
    assert ET.fromstring(to_urdf(spec)).get("name") == name  # a comment holding "--" would not even parse
    assert ET.fromstring(to_mjcf(spec)).get("model") == name
    for engine in ENGINES + (("drake",) if importlib.util.find_spec("pydrake") else ()):
        e = make_engine(engine, spec, 1e-3)
        try:
            np.testing.assert_allclose(e.mass_matrix(np.array([0.3, -0.2])),
                                       analytic.mass_matrix(spec, np.array([0.3, -0.2])), rtol=1e-12)
        finally:
            e.close()


@pytest.mark.parametrize("bad", ["nul\x00name", "bell\x07", "escape\x1b[0m"])
def test_names_with_control_characters_are_a_spec_error(bad):
    from crossdyn.models import get_preset

    with pytest.raises(SpecError, match="name: must not contain control"):
        replace(get_preset("planar2r"), name=bad)
