"""ArmSpec validation, presets and the TOML format."""
import math
import warnings

import pytest

from crossdyn.models import (ArmSpec, LinkSpec, SpecError, SpecWarning, dumps_spec, get_preset, load_arm,
                             load_spec, planarNr, preset_names, spec_from_dict)
from crossdyn.conventions import MAX_LINKS


def good_link(**kw):
    base = dict(length=1.0, mass=1.0, com=0.5, inertia=0.08)
    base.update(kw)
    return LinkSpec(**base)


@pytest.mark.parametrize("field,value,fragment", [
    ("mass", 0.0, "mass"), ("mass", -1.0, "mass"), ("length", 0.0, "length"), ("length", -0.5, "length"),
    ("inertia", -0.1, "inertia"), ("mass", math.nan, "finite"), ("com", math.inf, "finite"),
    ("damping", -1.0, "damping"), ("friction", -0.1, "friction"), ("mass", "1.0", "number"),
])
def test_bad_link_value_names_link_field_and_value(field, value, fragment):
    links = (good_link(), good_link(**{field: value}))
    with pytest.raises(SpecError) as err:
        ArmSpec(links)
    msg = str(err.value)
    assert "link 2" in msg and field in msg and fragment in msg and repr(value) in msg


def test_no_links_and_too_many_links():
    with pytest.raises(SpecError, match="at least one link"):
        ArmSpec(())
    with pytest.raises(SpecError, match=f"at most {MAX_LINKS}"):
        ArmSpec(tuple(good_link() for _ in range(MAX_LINKS + 1)))


@pytest.mark.parametrize("gravity", [(0.0, -9.81), (0.0, -9.81, 0.0, 1.0), (0.0, math.nan, 0.0), "down"])
def test_bad_gravity(gravity):
    with pytest.raises(SpecError, match="gravity"):
        ArmSpec((good_link(),), gravity=gravity)


def test_com_beyond_link_end_warns_but_is_valid():
    with pytest.warns(SpecWarning, match="com"):
        spec = ArmSpec((good_link(com=1.5),))
    assert spec.links[0].com == 1.5


def test_spec_is_immutable():
    spec = get_preset("planar2r")
    with pytest.raises(Exception):
        spec.name = "other"  # type: ignore[misc]
    with pytest.raises(Exception):
        spec.links[0].mass = 3.0  # type: ignore[misc]


def test_presets_have_the_documented_physics():
    for name in ("planar2r", "planar3r"):
        for link in get_preset(name).links:  # uniform rods
            assert link.com == pytest.approx(link.length / 2)
            assert link.inertia == pytest.approx(link.mass * link.length**2 / 12)
    for link in get_preset("planar2r-pointmass").links:
        assert link.com == link.length and link.inertia == 0.0
    gen = get_preset("planar3r-general")
    assert any(l.com != l.length / 2 for l in gen.links)
    for n in (1, 5, 12):
        assert planarNr(n).n == n and get_preset(f"planar{n}r").n == n
    with pytest.raises(SpecError, match="unknown arm 'planarx'.*planar2r"):
        get_preset("planarx")
    assert "planar3r-general" in preset_names()


def test_toml_round_trip(tmp_path, preset):
    path = tmp_path / "arm.toml"
    path.write_text(dumps_spec(preset))
    loaded = load_spec(path)
    assert loaded == preset
    assert load_arm(str(path)) == preset


def test_toml_documented_example(tmp_path):
    path = tmp_path / "my.toml"
    path.write_text('''name = "my-arm"
gravity = [0.0, -9.81, 0.0]
[[links]]
length = 1.0     # m
mass = 1.0       # kg
com = 0.5        # m
inertia = 0.0833 # kg m^2
damping = 0.0
friction = 0.0
[[links]]
length = 0.5
mass = 0.4
com = 0.25
inertia = 0.01
''')
    spec = load_spec(path)
    assert spec.name == "my-arm" and spec.n == 2 and spec.links[1].damping == 0.0


@pytest.mark.parametrize("text,fragments", [
    ("[[links]]\nlength = 1.0\nmass = 1.0\ncom = 0.5\n", ["links[1]", "missing", "inertia"]),
    ("[[links]]\nlength = 1.0\nmas = 1.0\nmass = 1.0\ncom = 0.5\ninertia = 0.1\n", ["links[1]", "unknown", "mas"]),
    ("[[links]]\nlength = 1.0\nmass = -2.0\ncom = 0.5\ninertia = 0.1\n", ["links[1].mass", "-2.0"]),
    ("[[links]]\nlength = 1.0\nmass = 'heavy'\ncom = 0.5\ninertia = 0.1\n", ["links[1].mass", "heavy"]),
    ("[[links]]\nlength = nan\nmass = 1.0\ncom = 0.5\ninertia = 0.1\n", ["links[1].length", "finite"]),
    ("name = 'x'\n", ["links", "at least one link"]),
    ("colour = 'red'\n[[links]]\nlength = 1.0\nmass = 1.0\ncom = 0.5\ninertia = 0.1\n", ["unknown", "colour"]),
    ("gravity = [0, -9.81]\n[[links]]\nlength = 1.0\nmass = 1.0\ncom = 0.5\ninertia = 0.1\n", ["gravity"]),
    ("[[links]\nlength = 1.0\n", ["not valid TOML", "line"]),
])
def test_bad_toml_names_file_field_and_value(tmp_path, text, fragments):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(SpecError) as err:
        load_spec(path)
    msg = str(err.value)
    assert str(path) in msg
    for f in fragments:
        assert f in msg, (f, msg)


def test_missing_file(tmp_path):
    with pytest.raises(SpecError, match="no such file"):
        load_spec(tmp_path / "absent.toml")


def test_spec_from_dict_rejects_non_table_link():
    with pytest.raises(SpecError, match=r"links\[1\]"):
        spec_from_dict({"links": [3]})


def test_with_link_copies():
    spec = get_preset("planar2r")
    heavier = spec.with_link(1, mass=2.0)
    assert heavier.links[1].mass == 2.0 and spec.links[1].mass == 0.8
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        spec.with_links(damping=0.1)
