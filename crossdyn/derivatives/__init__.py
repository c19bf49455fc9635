"""Derivatives of the dynamics, cross-validated (issue 41): reference derivatives by two independent paths, exact
transition Jacobians of crossdyn's integrators, the engines' own derivatives, and tolerances derived from each method.

* :mod:`~crossdyn.derivatives.blocks`: the :class:`Derivatives` (six blocks) and :class:`Transition` (A, B) results
  and the pure checks (relative error, finiteness: a NaN derivative fails);
* :mod:`~crossdyn.derivatives.reference`: complex-step differentiation of the spatial RNEA/ABA (every arm kind);
* :mod:`~crossdyn.derivatives.symbolic`: SymPy differentiation of the planar and spatial-preset Lagrangian models;
* :mod:`~crossdyn.derivatives.transition`: A, B of explicit Euler, semi-implicit Euler and RK4 (chain rule; complex
  step through :mod:`crossdyn.steps`);
* :mod:`~crossdyn.derivatives.engines`: Pinocchio's analytical derivatives, MuJoCo's ``mjd_transitionFD`` and
  ``mjd_inverseFD``;
* :mod:`~crossdyn.derivatives.drake`: Drake's, by AutoDiffXd of its adapters' continuous plants;
* :mod:`~crossdyn.derivatives.tolerance`: the tolerances, from round-off and conditioning or from FD truncation.

The package sits above :mod:`crossdyn.engines` (level 4.5 in ``tests/test_layout.py``): it builds the engines' models.
"""
from crossdyn.derivatives.blocks import (BLOCKS, BlockVerdict, Derivatives, Transition, judge, nonfinite_blocks,
                                        relative_error, within)

__all__ = ["BLOCKS", "BlockVerdict", "Derivatives", "Transition", "judge", "nonfinite_blocks", "relative_error", "within"]
