"""The real robot files the tests read, in one place: published URDFs from installed packages and MJCF/URDF fixtures.

Every function returns the file's :class:`~pathlib.Path`, or calls :func:`pytest.skip` with the command that installs
what is missing.  Nothing is fetched from the network: the URDFs come from packages installed as test dependencies
(``pip install -e '.[dev]'`` brings example-robot-data; ``pip install -e '.[pybullet]'`` brings PyBullet, whose wheel
holds ``pybullet_data``), the MJCF fixtures live in ``examples/robots`` (shipped: ``crossdyn examples DIR`` copies them) (Menagerie's published numbers without
meshes; each file's header names its source commit and what was changed).

Where each package keeps its files:

* example-robot-data (cmeel wheel): ``<site-packages>/cmeel.prefix/share/example-robot-data/robots/…``, found through
  the distribution's own file list (:func:`importlib.metadata.files`), so no path is guessed from ``sys.prefix``.
* pybullet_data: ``pybullet_data.getDataPath()``.
* robosuite (``make`` installs the wheel with ``--no-deps``: its assets only, never imported):
  ``<robosuite>/models/assets/robots/<name>/robot.xml`` with a ``meshes/`` folder beside it, found with
  :func:`importlib.util.find_spec` (which imports nothing).
* rtb-data (likewise): ``<rtbdata>/xacro/<description>/urdf/<robot>.urdf``.
"""
from __future__ import annotations

import importlib.metadata
from functools import lru_cache
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parent.parent / "examples" / "robots"

ERD_INSTALL = "pip install 'example-robot-data>=4.1' (or pip install -e '.[dev]')"
CORPUS_INSTALL = "pip install --no-deps 'robosuite==1.5.2' 'rtb-data==2.0.0' (make installs them)"
PYBULLET_INSTALL = "pip install 'crossdyn[pybullet]' (pybullet_data comes inside the pybullet wheel)"


@lru_cache(maxsize=None)
def _erd_robots_dir() -> Path | None:
    """example-robot-data's ``robots`` folder located from the installed distribution's file list, or None."""
    try:
        files = importlib.metadata.files("example-robot-data") or []
    except importlib.metadata.PackageNotFoundError:
        return None
    marker = "example-robot-data/robots/"
    for f in files:
        located = Path(str(f.locate())).as_posix()
        if marker in located:
            folder = Path(located[: located.index(marker) + len(marker)])
            if folder.is_dir():
                return folder
    return None


def _erd(relative: str) -> Path:
    folder = _erd_robots_dir()
    if folder is None:
        pytest.skip(f"example-robot-data is not installed: {ERD_INSTALL}")
    path = folder / relative
    if not path.is_file():
        pytest.skip(f"example-robot-data has no {relative} (installed version "
                    f"{importlib.metadata.version('example-robot-data')}): {ERD_INSTALL}")
    return path


def erd_robots_dir() -> Path:
    """example-robot-data's ``robots`` folder (``…/cmeel.prefix/share/example-robot-data/robots``)."""
    folder = _erd_robots_dir()
    if folder is None:
        pytest.skip(f"example-robot-data is not installed: {ERD_INSTALL}")
    return folder


def erd_panda_urdf() -> Path:
    """example-robot-data's Franka Panda with hand: 7 revolute joints, 2 prismatic fingers; Franka's published
    inertials (the same numbers as Menagerie's panda.xml), joint damping 0.003 (fingers 0.3), no armature."""
    return _erd("panda_description/urdf/panda.urdf")


def erd_ur5_urdf() -> Path:
    """example-robot-data's UR5 (not the e-series): 6 revolute joints."""
    return _erd("ur_description/urdf/ur5_robot.urdf")


def pybullet_data_dir() -> Path:
    """The folder of ``pybullet_data`` (shipped inside the PyBullet wheel)."""
    try:
        import pybullet_data
    except ImportError:
        pytest.skip(f"pybullet_data is not installed: {PYBULLET_INSTALL}")
    return Path(pybullet_data.getDataPath())


def _pybullet(relative: str) -> Path:
    path = pybullet_data_dir() / relative
    if not path.is_file():
        pytest.skip(f"pybullet_data has no {relative}: {PYBULLET_INSTALL}")
    return path


def pybullet_panda_urdf() -> Path:
    """pybullet_data's Franka Panda: placeholder inertia diag(0.1) on every link, masses unlike Franka's,
    ``panda_link8`` with mass 0 and inertia diag(0.1)."""
    return _pybullet("franka_panda/panda.urdf")


def pybullet_iiwa_urdf() -> Path:
    """pybullet_data's KUKA iiwa (``kuka_iiwa/model.urdf``): 7 revolute joints, masses unlike Menagerie's iiwa14."""
    return _pybullet("kuka_iiwa/model.urdf")


def _package_dir(module: str) -> Path | None:
    """The folder of an installed package, found without importing it (robosuite imports OpenCV and more)."""
    import importlib.util

    spec = importlib.util.find_spec(module)
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    return Path(locations[0]) if locations else None


def _packaged(module: str, relative: str) -> Path:
    folder = _package_dir(module)
    path = folder / relative if folder is not None else None
    if path is None or not path.is_file():
        pytest.skip(f"{module} has no {relative}: {CORPUS_INSTALL}")
    return path


def robosuite_xml(robot: str) -> Path:
    """robosuite's MJCF of ``robot`` (``panda``, ``iiwa``, ``ur5e``, ``sawyer``, ``jaco``, ``kinova3``, ``xarm7``):
    every body states its inertial; its geoms name mesh files in ``meshes/`` beside it; the fixed ``base`` body has
    ``<inertial mass="0">``."""
    return _packaged("robosuite", f"models/assets/robots/{robot}/robot.xml")


def rtb_puma560_urdf() -> Path:
    """rtb-data's Puma 560 URDF: no ``<inertial>`` on any link (engines read 1 kg and unit inertia)."""
    return _packaged("rtbdata", "xacro/unimation_puma560_description/urdf/puma560_robot.urdf")


def pybullet_xarm6_urdf() -> Path:
    """pybullet_data's xArm6: ``<mechanicalReduction>reduction</mechanicalReduction>`` (an unexpanded xacro value)
    in a ``<transmission>``, which enters no dynamics."""
    return _pybullet("xarm/xarm6_robot.urdf")


def _fixture(name: str) -> Path:
    path = FIXTURES / name
    if not path.is_file():  # part of the repository: missing means a broken checkout, not an optional package
        raise FileNotFoundError(f"test fixture {path} is missing from the checkout")
    return path


def menagerie_panda_xml() -> Path:
    """Menagerie's panda.xml (with hand, fingers as two free slide joints; tendon/equality removed), no meshes."""
    return _fixture("menagerie_panda.xml")


def menagerie_panda_coupled_xml() -> Path:
    """Menagerie's panda.xml with its finger tendon, joint equality and tendon servo kept (crossdyn refuses it)."""
    return _fixture("menagerie_panda_coupled.xml")


def menagerie_panda_nohand_xml() -> Path:
    """Menagerie's panda_nohand.xml (7 revolute joints), no meshes."""
    return _fixture("menagerie_panda_nohand.xml")


def menagerie_ur5e_xml() -> Path:
    """Menagerie's ur5e.xml, the version with position servos and damping 200/15 (base rotated π/2 about z)."""
    return _fixture("menagerie_ur5e.xml")


def menagerie_ur5e_general_xml() -> Path:
    """Menagerie's ur5e.xml, the version with general servos and no damping (base rotated π about z)."""
    return _fixture("menagerie_ur5e_general.xml")


def menagerie_iiwa14_xml() -> Path:
    """Menagerie's iiwa14.xml (7 revolute joints, no armature, no damping), no meshes."""
    return _fixture("menagerie_iiwa14.xml")


def ur5e_description_urdf() -> Path:
    """A UR5e URDF written from Universal Robots' ROS 2 description (2024 masses, full xacro frames), no meshes."""
    return _fixture("ur5e_description.urdf")


def puma560_rtb_toml() -> Path:
    """A Puma 560 spatial arm spec (standard DH) written from the Robotics Toolbox's ``models.DH.Puma560`` (Corke;
    Armstrong, Khatib, Burdick 1986): armature Jm·G², damping B·G²; link 1 and link 3 edited (the file's header)."""
    return _fixture("puma560_rtb.toml")


ALL_FILES = {
    "erd_panda": erd_panda_urdf, "erd_ur5": erd_ur5_urdf,
    "pybullet_panda": pybullet_panda_urdf, "pybullet_iiwa": pybullet_iiwa_urdf,
    "menagerie_panda": menagerie_panda_xml, "menagerie_panda_coupled": menagerie_panda_coupled_xml,
    "menagerie_panda_nohand": menagerie_panda_nohand_xml,
    "menagerie_ur5e": menagerie_ur5e_xml, "menagerie_ur5e_general": menagerie_ur5e_general_xml,
    "menagerie_iiwa14": menagerie_iiwa14_xml, "ur5e_description": ur5e_description_urdf,
}
"""Every real robot file by a short name (for parametrised tests)."""


CORPUS = {
    "erd_ur5": erd_ur5_urdf, "erd_panda": erd_panda_urdf,
    "pybullet_iiwa": pybullet_iiwa_urdf, "pybullet_panda": pybullet_panda_urdf, "pybullet_xarm6": pybullet_xarm6_urdf,
    "robosuite_panda": lambda: robosuite_xml("panda"), "robosuite_iiwa": lambda: robosuite_xml("iiwa"),
    "robosuite_ur5e": lambda: robosuite_xml("ur5e"), "robosuite_sawyer": lambda: robosuite_xml("sawyer"),
    "robosuite_jaco": lambda: robosuite_xml("jaco"), "rtb_puma560": rtb_puma560_urdf,
}
"""The published robot files a user would try first (issue 38's corpus), by a short name."""


def unforced_beside_replica(spec: str, model, q0, qd0, steps: int, dt: float):
    """(engine ``spec``'s run on ``model`` from (q0, q̇0) with no torque for ``steps`` steps of ``dt``, crossdyn's
    semi-implicit Euler replica of the same run on its own limitless model, the engine's config): the drive past a
    joint limit that the limit tests compare with and without each engine's own enforcement."""
    import numpy as np

    from crossdyn.engines.files import make_file_engine
    from crossdyn.robotcompare import runs

    taus = np.zeros((steps, model.n))
    engine = make_file_engine(spec, model, dt)
    try:
        run = runs.step_engine(engine, taus, q0, qd0, dt)
        config = engine.config()
    finally:
        engine.close()
    return run, runs.integrate(model, "semi-implicit-euler", taus, q0, qd0, dt), config
