"""Drake reading a robot file (being written: built, it raises EngineUnsupported)."""
from __future__ import annotations

from typing import Any

import numpy as np

from crossdyn.engines.files.base import FileEngine
from crossdyn.errors import EngineUnsupported
from crossdyn.robots.model import Format, RobotModel


class DrakeFileEngine(FileEngine):
    name = "drake"
    formats = frozenset({Format.URDF, Format.MJCF})
    library = "pydrake"
    extra = "drake"

    def __init__(self, model: RobotModel, dt: float = 1e-3, options: Any = None, **kw: Any):
        super().__init__(model, dt, options, **kw)
        raise EngineUnsupported("drake: the file adapter is not written yet")

    def _mass_matrix(self, Q: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def _bias(self, Q: np.ndarray, QD: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def config(self) -> dict:
        return self.base_config()
