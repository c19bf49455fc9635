"""Issue 38: the MJCF reader's ambiguity records (:mod:`crossdyn.robots.mjcf_ambiguity`), as the URDF reader's.

Small 3-joint MJCFs written here, each with one construct MuJoCo's compiler reads one way and another engine's MJCF
parser another (measured when written, M at q = (0.3, −0.4, 0.5) against crossdyn's model of the file): ``boundmass``
/ ``boundinertia`` (MuJoCo, Pinocchio, Newton raise; Drake reads the <inertial>: ΔM 0.31), ``balanceinertia`` (MuJoCo
and Newton balance; Pinocchio keeps the moments, ΔM 0.046; Drake refuses), ``inertiafromgeom="true"`` with a body
holding an <inertial> and no geom (MuJoCo keeps it; Pinocchio, Drake, Newton read the body massless, ΔM 0.147).
crossdyn reads each body as MuJoCo does, and an engine that holds the other reading is INCONCLUSIVE naming it.
Controls: the same arm without the construct has no record, and a real departure on it still FAILs.
"""
from __future__ import annotations

import numpy as np
import pytest

from crossdyn.comparison.groups import static
from crossdyn.comparison.tolerances import Tolerances
from crossdyn.robotcompare import ambiguity as judging
from crossdyn.robotcompare.compare import _static_states
from crossdyn.robots import read_robot
from crossdyn.robots.model import AmbiguityKind
from crossdyn.status import Verdict

mujoco = pytest.importorskip("mujoco")

L2 = '<inertial pos="0.1 0 0" mass="0.7" diaginertia="0.02 0.02 0.02"/>'
CAPSULE = '<geom type="capsule" fromto="0 0 0 0.2 0 0" size="0.03"/>'


def _arm(l2: str = L2, l3_extra: str = "", compiler: str = "", l1_extra: str = "") -> str:
    """A base welded to the world, then three hinges; ``l2``: the middle body's inertial/geoms."""
    return f"""<mujoco model="arm3">
  <compiler angle="radian"{compiler}/>
  <worldbody><body name="base">
    <body name="l1"><joint name="j1" axis="0 0 1"/>
      <inertial pos="0.1 0 0" mass="1" diaginertia="0.01 0.01 0.01"/>{l1_extra}
      <body name="l2" pos="0.2 0 0"><joint name="j2" axis="0 1 0"/>
        {l2}
        <body name="l3" pos="0.2 0 0"><joint name="j3" axis="0 1 0"/>
          <inertial pos="0.1 0 0" mass="0.5" diaginertia="0.01 0.01 0.01"/>{l3_extra}
        </body>
      </body>
    </body>
  </body></worldbody>
</mujoco>
"""


FILES = {
    "bound": _arm('<inertial pos="0.1 0 0" mass="0.2" diaginertia="0.002 0.002 0.002"/>',
                  compiler=' boundmass="0.3" boundinertia="0.005"'),
    "balance": _arm('<inertial pos="0.1 0 0" mass="0.5" diaginertia="0.01 0.01 0.1"/>',
                    compiler=' balanceinertia="true"'),
    "bound_then_balance": _arm('<inertial pos="0.1 0 0" mass="0.5" fullinertia="0.01 0.02 0.1 0.001 0 0"/>',
                               compiler=' balanceinertia="true" boundinertia="0.015"'),
    "fromgeom": _arm(L2 + CAPSULE, l3_extra='<geom type="sphere" pos="0.1 0 0" size="0.05"/>',
                     compiler=' inertiafromgeom="true"'),
    "plain": _arm(),
}


def _file(tmp_path, name: str):
    path = tmp_path / f"{name}.xml"
    path.write_text(FILES[name])
    return path


def _mujoco_M(path, q) -> np.ndarray:
    m = mujoco.MjModel.from_xml_path(str(path))
    d = mujoco.MjData(m)
    d.qpos[:] = q
    mujoco.mj_forward(m, d)
    M = np.zeros((m.nv, m.nv))
    mujoco.mj_fullM(m, d, M)
    return M


@pytest.mark.parametrize("name, kinds", [
    ("bound", {("l2", AmbiguityKind.BOUNDED)}),
    ("balance", {("l2", AmbiguityKind.BALANCED)}),
    ("bound_then_balance", {("l1", AmbiguityKind.BOUNDED), ("l2", AmbiguityKind.BOUNDED),
                            ("l3", AmbiguityKind.BOUNDED), ("l2", AmbiguityKind.BALANCED)}),
    ("fromgeom", {("l1", AmbiguityKind.INERTIAL_WITHOUT_GEOMS)}),
    ("plain", set())])
def test_crossdyn_reads_each_body_as_mujoco_and_records_the_other_readings(tmp_path, name, kinds):
    """crossdyn's M equals MuJoCo's compilation of the file (to 1e-14 of max|M|: the float64 arithmetic of two
    CRBAs), and each body read otherwise elsewhere has its record, MuJoCo's reading first."""
    from crossdyn.spatial import crba

    path = _file(tmp_path, name)
    model = read_robot(path)
    assert {(a.link, a.kind) for a in model.ambiguities} == kinds
    for q in ([0.0, 0.0, 0.0], [0.3, -0.4, 0.5], [-1.1, 0.7, 2.0]):
        M_ref = _mujoco_M(path, q)
        M = np.asarray(crba(model, np.array([q]), armature=True))[0]
        assert np.max(np.abs(M - M_ref)) <= 1e-14 * np.max(np.abs(M_ref))
    for a in model.ambiguities:
        assert "MuJoCo" in a.readings[0].who and len(a.readings) == 2


def test_bound_before_balance_and_balance_to_the_mean():
    """MuJoCo's order, measured: boundinertia raises the moments first (0.01, 0.01, 0.1 with a bound of 0.05 stay
    (0.05, 0.05, 0.1), inside the triangle), and a balanced inertia is trace/3 · 1 whatever its orientation."""
    from crossdyn.robots.mjcf_ambiguity import balanced, off_triangle
    from crossdyn.robots.mjcf_parts import bounded
    from crossdyn.robots.mjcf_xml import Compiler
    from crossdyn.robots.model import Inertial

    c = Compiler(balanceinertia=True, boundinertia=0.05)
    written = Inertial(0.5, np.zeros(3), np.diag([0.01, 0.01, 0.1]))
    assert np.allclose(np.linalg.eigvalsh(balanced(bounded(written, c), c).inertia), [0.05, 0.05, 0.1],
                       rtol=1e-14, atol=0)
    loose = Compiler(balanceinertia=True)
    assert off_triangle(written.inertia)
    assert np.array_equal(balanced(written, loose).inertia, 0.04 * np.eye(3))
    assert balanced(written, Compiler()) is written


def _engine_values(engine_name: str, model, st):
    from crossdyn.engines.files import make_file_engine

    engine = make_file_engine(engine_name, model, 1e-3)
    try:
        return static.evaluate(engine, st, batched=True)
    finally:
        engine.close()


def _groups(st, values):
    scale = float(np.max(np.abs(st.tau_ref)))
    tol = Tolerances()
    return {"inverse_dynamics": static.inverse_dynamics_scaled(scale, st, values, tol),
            "mass_matrix": static.mass_matrix_group(st, values, tol)}


@pytest.mark.parametrize("name, engine, module, words", [
    ("balance", "pinocchio", "pinocchio", "l2 as the moments written, not balanced (as Pinocchio's MJCF parser"),
    ("fromgeom", "pinocchio", "pinocchio", "l1 as massless (the <inertial> set aside)"),
    ("bound", "drake-rk4", "pydrake", "l2 as the <inertial>'s values, not raised to the bound (as Drake's"),
    ("fromgeom", "drake-rk4", "pydrake", "l1 as massless (the <inertial> set aside)")])
def test_the_engines_reading_is_identified(tmp_path, name, engine, module, words):
    """The engine FAILs against the file as MuJoCo compiles it and matches crossdyn's model with its reading to
    round-off (measured ≤ 6e-16 of the scales); judged, every group is INCONCLUSIVE naming the ambiguity."""
    pytest.importorskip(module)
    model = read_robot(_file(tmp_path, name))
    st = _static_states(model, 50, 0)
    values = _engine_values(engine, model, st)
    groups = _groups(st, values)
    assert groups["inverse_dynamics"].verdict is Verdict.FAIL or groups["mass_matrix"].verdict is Verdict.FAIL
    match = judging.reading_of(model, st, values, groups)
    assert match is not None
    text = match.words(engine)
    assert words in text and "the file is ambiguous" in text, text
    assert max(match.id_rel, match.m_rel) < 1e-12
    judged = judging.judged_ambiguous(groups, match, engine)
    assert all(g.verdict is not Verdict.FAIL for g in judged.values())


@pytest.mark.parametrize("engine, module", [("pinocchio", "pinocchio"), ("mujoco", "mujoco")])
def test_the_engines_that_read_as_mujoco_agree(tmp_path, engine, module):
    """Control: Pinocchio raises to the bounds as MuJoCo does; MuJoCo itself on the balanced file."""
    pytest.importorskip(module)
    for name in ("bound", "balance") if engine == "mujoco" else ("bound",):
        model = read_robot(_file(tmp_path, name))
        st = _static_states(model, 50, 0)
        groups = _groups(st, _engine_values(engine, model, st))
        assert all(g.verdict is Verdict.PASS for g in groups.values()), (name, groups)


def test_a_real_departure_is_not_the_ambiguity(tmp_path):
    """Control: a heavier l3 (×1.1, a body with no record) in crossdyn's model of the bound file, against
    Pinocchio on the file: ID FAILs and no reading of the file's ambiguity explains it."""
    pytest.importorskip("pinocchio")
    path = _file(tmp_path, "bound")
    heavier = tmp_path / "heavier.xml"
    heavier.write_text(FILES["bound"].replace('mass="0.5" diaginertia="0.01 0.01 0.01"',
                                              'mass="0.55" diaginertia="0.01 0.01 0.01"'))
    edited = read_robot(heavier)
    st = _static_states(edited, 50, 0)
    groups = _groups(st, _engine_values("pinocchio", read_robot(path), st))
    assert groups["inverse_dynamics"].verdict is Verdict.FAIL
    assert judging.reading_of(edited, st, _engine_values("pinocchio", read_robot(path), st), groups) is None


def test_drake_refusing_an_unphysical_inertia_is_unsupported(tmp_path):
    """Drake's MJCF parser ignores balanceinertia and refuses the moments as written: unsupported, not failed."""
    pytest.importorskip("pydrake")
    from crossdyn.engines.files import make_file_engine
    from crossdyn.errors import EngineUnsupported

    with pytest.raises(EngineUnsupported, match="IsPhysicallyValid"):
        make_file_engine("drake-rk4", read_robot(_file(tmp_path, "balance")), 1e-3)


def test_json_safe_and_a_nan_forward_dynamics_fails(tmp_path):
    """An engine holding a singular M (a body read massless at the end of the chain) gives NaN q̈: the FD group
    FAILs on it (it passed before: NaN > tolerance is False) and summary.json writes null for it."""
    from crossdyn.comparison.groups.fd_propagated import propagated_forward_dynamics_group
    from crossdyn.robotcompare.compare import as_json_safe

    model = read_robot(_file(tmp_path, "plain"))
    st = _static_states(model, 5, 0)
    qdd = np.array(st.qdd_ref, float)
    qdd[2, 1] = np.nan
    fd = propagated_forward_dynamics_group(st, qdd, Tolerances(), float(np.max(np.abs(st.tau_ref))))
    assert fd.verdict is Verdict.FAIL
    assert as_json_safe({"a": [np.float64("nan"), float("inf"), 1.0]}) == {"a": [None, None, 1.0]}


@pytest.mark.slow
def test_compare_names_the_ambiguity(tmp_path):
    """``crossdyn compare`` on the bound file with MuJoCo and Drake: MuJoCo PASSes, Drake is INCONCLUSIVE naming
    boundmass/boundinertia (exit 3, never a FAIL)."""
    pytest.importorskip("pydrake")
    import json

    from crossdyn.cli import main

    out = tmp_path / "run"
    code = main(["compare", str(_file(tmp_path, "bound")), "--engines", "mujoco,drake-rk4", "--duration", "0.02",
                 "--states", "10", "--quiet", "--no-plots", "--out", str(out)])
    s = json.loads((out / "summary.json").read_text())
    assert code == 3 and s["verdict"] == "INCONCLUSIVE" and not s["failures"]
    lines = [x for x in s["inconclusive"] if x.startswith("drake-rk4: inverse_dynamics")]
    assert lines and "boundmass/boundinertia" in lines[0] and "Drake's MJCF parser" in lines[0]
    assert all(g["verdict"] == "PASS" for k, g in s["engines"]["mujoco"].items()
               if isinstance(g, dict) and "verdict" in g)


@pytest.mark.slow
def test_newton_reads_as_measured(tmp_path):
    """Newton (float32) raises to the bounds and balances as MuJoCo does, reads the body with an <inertial> and no
    geom massless under inertiafromgeom="true", and refuses moments off the triangle inequality (unsupported)."""
    pytest.importorskip("newton")
    from crossdyn.engines.files import make_file_engine
    from crossdyn.errors import EngineUnsupported

    for name in ("bound", "balance"):
        model = read_robot(_file(tmp_path, name))
        st = _static_states(model, 20, 0)
        values = _engine_values("newton", model, st)
        M_scale = float(np.max(np.abs(st.M_ref)))
        assert np.max(np.abs(values.M - st.M_ref)) < 1e-6 * M_scale  # float32 round-off, far below ΔM 0.046
    model = read_robot(_file(tmp_path, "fromgeom"))
    st = _static_states(model, 20, 0)
    values = _engine_values("newton", model, st)
    groups = _groups(st, values)
    assert groups["mass_matrix"].verdict is Verdict.FAIL
    assert np.max(np.abs(values.M - st.M_ref)) > 1e-3  # ΔM 0.02: l1 massless
    off = tmp_path / "off.xml"
    off.write_text(FILES["balance"].replace(' balanceinertia="true"', ""))
    with pytest.raises(EngineUnsupported, match="A \\+ B >= C"):
        make_file_engine("newton", read_robot(off), 1e-3)

