"""Engine adapters behind one interface (:class:`~crossdyn.engines.base.Engine`), looked up by name.

=====================  =====================================================
name                   engine and integrator
=====================  =====================================================
analytic               crossdyn's Lagrangian model, RK4
analytic-euler         … semi-implicit Euler
analytic-explicit-euler … explicit Euler
analytic-reference     … adaptive DOP853 (rtol = atol = 1e-12)
=====================  =====================================================
"""
from crossdyn.engines.base import Engine, EngineError, available_engines, engine_names, make_engine, register

register("analytic", "crossdyn.engines.analytic_engine", "AnalyticEngine", integrator="rk4")
register("analytic-rk4", "crossdyn.engines.analytic_engine", "AnalyticEngine", integrator="rk4")
register("analytic-euler", "crossdyn.engines.analytic_engine", "AnalyticEngine", integrator="semi-implicit-euler")
register("analytic-explicit-euler", "crossdyn.engines.analytic_engine", "AnalyticEngine", integrator="euler")
register("analytic-reference", "crossdyn.engines.analytic_engine", "AnalyticEngine", integrator="reference")

__all__ = ["Engine", "EngineError", "available_engines", "engine_names", "make_engine", "register"]
