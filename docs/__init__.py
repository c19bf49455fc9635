"""Makes docs/ a package so that pytest imports docs/conftest.py as ``docs.conftest``: a second top-level
``conftest`` module would shadow tests/conftest.py, whose helpers the tests import (``from conftest import ...``)."""
