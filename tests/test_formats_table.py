"""The robot-file formats are one table (:mod:`crossdyn.robots.formats`): every suffix list, reader, engine copy and
audit fact derives from its rows, and a new format is one reader plus one row.

Real files: example-robot-data's UR5 URDF (pip package) and Menagerie's Panda MJCF (``examples/robots``), through
``tests/robot_files.py``.
"""
from __future__ import annotations

import ast
import dataclasses
import enum
import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from crossdyn.errors import InputError
from crossdyn.robots import read_robot, robot_format
from crossdyn.robots.format_enum import Format
from crossdyn.robots.formats import (FORMATS, ROBOT_SUFFIXES, RobotFormat, by_suffix, format_of, format_row, resolve,
                                     suffixes)
from crossdyn.robots.formats import read_robot as table_read_robot
from robot_files import erd_ur5_urdf, menagerie_panda_nohand_xml

ROOT = Path(__file__).resolve().parent.parent / "crossdyn"


def same_model(a, b) -> bool:
    """Two RobotModels hold the same (RobotModel compares by identity)."""
    return json.dumps(a.as_dict(), sort_keys=True, default=str) == json.dumps(b.as_dict(), sort_keys=True, default=str)


# ---- the table itself ----------------------------------------------------------------------------------------------
def test_one_row_per_format_and_the_suffixes_as_before():
    assert [row.format for row in FORMATS] == list(Format)
    assert ROBOT_SUFFIXES == suffixes(FORMATS) == (".urdf", ".xml", ".mjcf")
    assert len(set(ROBOT_SUFFIXES)) == len(ROBOT_SUFFIXES), "a suffix names one format"
    assert [row.root_tag for row in FORMATS] == ["robot", "mujoco"]
    assert by_suffix(".URDF") is format_row(Format.URDF) and by_suffix("arm.mjcf") is format_row(Format.MJCF)
    assert by_suffix("dir.v2/arm.xml") is format_row(Format.MJCF) and by_suffix(".sdf") is None


def test_every_function_a_row_names_resolves_inside_robots():
    """Readers, writers and preparers are in crossdyn.robots (the layer rule holds for the strings too)."""
    for row in FORMATS:
        for ref in (row.reader, row.writer, row.preparer):
            assert ref is not None and ref.startswith("crossdyn.robots."), ref
            assert callable(resolve(ref)), ref


def test_suffix_lists_everywhere_are_the_tables():
    """compare and identify take the same robot-file suffixes (identify lacked .mjcf), and no module keeps its own."""
    from crossdyn.cli import identify_spatial, robot_compare

    assert identify_spatial.ROBOT_SUFFIXES is robot_compare.ROBOT_SUFFIXES is ROBOT_SUFFIXES
    assert ".mjcf" in identify_spatial.ROBOT_SUFFIXES
    assert robot_compare.is_robot_file("arm.MJCF") and not robot_compare.is_robot_file("arm.toml")
    own = []
    for p in sorted(ROOT.rglob("*.py")):
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Assign) and isinstance(node.value, (ast.Tuple, ast.List, ast.Set)):
                strings = {e.value for e in node.value.elts if isinstance(e, ast.Constant)}
                if strings & {".urdf", ".mjcf"}:
                    own.append(f"{p.relative_to(ROOT)}:{node.lineno}")
    assert not own, f"suffix lists outside the format table: {own}"


def test_identify_reads_a_mjcf_suffix_as_a_robot_file(tmp_path):
    """identify's suffix list lacked .mjcf: ARM.mjcf went to the planar/spec loader."""
    from crossdyn.cli.identify_spatial import spatial_model

    arm = tmp_path / "panda.mjcf"
    arm.write_bytes(menagerie_panda_nohand_xml().read_bytes())
    model = spatial_model(str(arm))
    assert model is not None and model.format is Format.MJCF and model.n == 7


def test_the_audit_facts_are_the_rows():
    from crossdyn.audit.filediff import FORMAT_GAPS, FORMAT_REQUIRES

    assert FORMAT_GAPS == {Format.MJCF: frozenset({"velocity"})}
    assert FORMAT_REQUIRES == {Format.URDF: frozenset({"effort", "velocity"})}
    assert all(FORMAT_GAPS.get(row.format, frozenset()) == row.gaps for row in FORMATS)


def test_adapters_read_only_formats_of_the_table():
    from crossdyn.engines.newton.file import NewtonFileEngine
    from crossdyn.engines.pinocchio.file import PinocchioFileEngine

    for engine in (NewtonFileEngine, PinocchioFileEngine):
        assert engine.formats == frozenset(engine.loaders) <= {row.format for row in FORMATS}


def test_the_table_loads_without_numpy():
    code = ("import sys, crossdyn.robots, crossdyn.robots.formats, crossdyn.cli.identify_spatial, "
            "crossdyn.cli.robot_compare; sys.exit('numpy' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True).returncode == 0


# ---- each row on a real file ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("fmt, path, direct", [
    (Format.URDF, erd_ur5_urdf, "crossdyn.robots.urdf:read_urdf"),
    (Format.MJCF, menagerie_panda_nohand_xml, "crossdyn.robots.mjcf:read_mjcf"),
], ids=["urdf-erd-ur5", "mjcf-menagerie-panda"])
def test_each_row_reads_a_real_file_as_its_reader_does(fmt, path, direct):
    path = path()
    assert format_of(path) is robot_format(path) is fmt
    via_table = read_robot(path)
    assert via_table.format is fmt and via_table.n > 0
    assert same_model(via_table, resolve(direct)(path))
    assert same_model(via_table, format_row(fmt).read(path))


@pytest.mark.parametrize("fmt", list(Format))
def test_each_writer_writes_a_file_its_row_reads_back(tmp_path, fmt):
    model = read_robot(erd_ur5_urdf())
    row = format_row(fmt)
    out = tmp_path / f"ur5{row.engine_suffix}"
    out.write_text(row.write(model), encoding="utf-8")
    assert format_of(out) is fmt
    back = read_robot(out)
    assert back.format is fmt and back.joint_names == model.joint_names


@pytest.mark.parametrize("fmt, path", [(Format.URDF, erd_ur5_urdf), (Format.MJCF, menagerie_panda_nohand_xml)],
                         ids=["urdf", "mjcf"])
def test_the_engine_copy_has_its_rows_suffix(tmp_path, fmt, path):
    from crossdyn.robots.prepare import prepare

    copy = prepare(read_robot(path()), tmp_path, "someengine")
    assert copy.path.name.endswith(f".someengine{format_row(fmt).engine_suffix}")
    assert format_of(copy.path) is fmt


def test_format_of_refuses_a_root_it_does_not_know_naming_file_and_tag(tmp_path):
    p = tmp_path / "world.urdf"
    p.write_text('<sdf version="1.9"><model name="arm"/></sdf>', encoding="utf-8")
    with pytest.raises(InputError) as e:
        format_of(p)
    assert str(e.value) == f"{p}: root element <sdf> is neither <robot> (URDF) nor <mujoco> (MJCF)"
    assert e.value.value == "sdf"
    with pytest.raises(InputError, match="no such robot file"):
        format_of(tmp_path / "absent.urdf")


# ---- a new format: one reader plus one row -------------------------------------------------------------------------
Toy = enum.Enum("Toy", {"TOY": "toy"})
"""A test-only format's name (a real one is a member of Format)."""


def read_toy(path):
    """The toy format's reader: ``<toyarm urdf="FILE"/>`` is the URDF it names (relative to it)."""
    from crossdyn.robots.urdf import read_urdf

    p = Path(path)
    model = read_urdf(p.parent / ET.parse(p).getroot().attrib["urdf"])
    return dataclasses.replace(model, source=str(p), format=Toy.TOY)


TOY = RobotFormat(Toy.TOY, "TOY", "toyarm", (".toy",), f"{__name__}:read_toy", ".toy",  # type: ignore[arg-type]
                  "crossdyn.robots.prepare:prepare_urdf", doc="A made-up format: a pointer to a URDF.")


def test_a_new_row_is_picked_up_without_touching_other_code(tmp_path):
    urdf = erd_ur5_urdf()
    toy = tmp_path / "arm.toy"
    toy.write_text(f'<toyarm urdf="{urdf}"/>', encoding="utf-8")
    table = (*FORMATS, TOY)
    assert suffixes(table) == (*ROBOT_SUFFIXES, ".toy") and by_suffix("ARM.TOY", table) is TOY
    assert format_of(toy, table) is Toy.TOY
    model = table_read_robot(toy, table)
    assert model.format is Toy.TOY and model.joint_names == read_robot(urdf).joint_names
    with pytest.raises(InputError) as e:  # the shipped table is untouched
        format_of(toy)
    assert "root element <toyarm> is neither <robot> (URDF) nor <mujoco> (MJCF)" in str(e.value)
    with pytest.raises(InputError) as e:
        format_of(_sdf(tmp_path), table)
    assert str(e.value).endswith("is neither <robot> (URDF) nor <mujoco> (MJCF) nor <toyarm> (TOY)")
    with pytest.raises(InputError, match="crossdyn writes no TOY file"):
        TOY.write(model)


def _sdf(folder: Path) -> Path:
    p = folder / "other.sdf"
    p.write_text("<sdf/>", encoding="utf-8")
    return p
