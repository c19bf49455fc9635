"""The one thing pyproject.toml cannot say: the package list (``crossdyn*`` as found, plus ``crossdyn.examples``,
which is the repository's top-level examples/ folder: pyproject.toml's package-dir maps it, so the wheel carries
crossdyn/examples/ for ``crossdyn examples DIR`` while the checkout keeps examples/ where the README and the tests
use it).  Everything else is in pyproject.toml."""
from setuptools import find_packages, setup

setup(packages=find_packages(include=["crossdyn*"]) + ["crossdyn.examples"])
