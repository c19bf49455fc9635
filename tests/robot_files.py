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
"""
from __future__ import annotations

import importlib.metadata
from functools import lru_cache
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parent.parent / "examples" / "robots"

ERD_INSTALL = "pip install 'example-robot-data>=4.1' (or pip install -e '.[dev]')"
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


ALL_FILES = {
    "erd_panda": erd_panda_urdf, "erd_ur5": erd_ur5_urdf,
    "pybullet_panda": pybullet_panda_urdf, "pybullet_iiwa": pybullet_iiwa_urdf,
    "menagerie_panda": menagerie_panda_xml, "menagerie_panda_coupled": menagerie_panda_coupled_xml,
    "menagerie_panda_nohand": menagerie_panda_nohand_xml,
    "menagerie_ur5e": menagerie_ur5e_xml, "menagerie_ur5e_general": menagerie_ur5e_general_xml,
    "menagerie_iiwa14": menagerie_iiwa14_xml, "ur5e_description": ur5e_description_urdf,
}
"""Every real robot file by a short name (for parametrised tests)."""
