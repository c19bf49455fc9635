"""Engine adapters behind one interface (:class:`~crossdyn.engines.base.Engine`), looked up by name.

=====================  =====================================================
name                   engine and integrator
=====================  =====================================================
analytic               crossdyn's Lagrangian model, RK4
analytic-euler         … semi-implicit Euler
analytic-explicit-euler … explicit Euler
analytic-reference     … adaptive DOP853 (rtol = atol = 1e-12)
pybullet               PyBullet (semi-implicit Euler, its only integrator)
mujoco                 MuJoCo, Euler (semi-implicit, eulerdamp disabled)
mujoco-euler           … Euler (same as ``mujoco``)
mujoco-rk4             … RK4
mujoco-implicit        … implicit
mujoco-implicitfast    … implicitfast
mjx                    MuJoCo MJX (JAX, float32), Euler (semi-implicit, eulerdamp disabled)
mjx-euler              … Euler (same as ``mjx``)
mjx-rk4                … RK4
pinocchio              Pinocchio ABA + crossdyn's RK4
pinocchio-rk4          … RK4 (same as ``pinocchio``)
pinocchio-euler        … + crossdyn's semi-implicit Euler
dart                   DART (dartpy), World.step: semi-implicit Euler (the only one dartpy exposes)
dart-rk4               DART forward dynamics + crossdyn's RK4
drake                  Drake MultibodyPlant, continuous, error-controlled RK3 (accuracy 1e-10)
drake-rk2 / -rk3 / -rk5 … continuous, Drake's RK2 / RK3 / RK5 at a fixed step dt
drake-euler            … continuous, Drake's semi-explicit (semi-implicit) Euler at dt
drake-implicit         … continuous, Drake's implicit Euler at dt
drake-discrete         … discrete plant (time_step = dt), Drake's default discrete solver
=====================  =====================================================
"""
from crossdyn.engines.base import (Engine, EngineError, EngineUnsupported, available_engines, engine_names, make_engine,
                                   register)

register("analytic", "crossdyn.engines.analytic_engine", "AnalyticEngine", integrator="rk4")
register("analytic-rk4", "crossdyn.engines.analytic_engine", "AnalyticEngine", integrator="rk4")
register("analytic-euler", "crossdyn.engines.analytic_engine", "AnalyticEngine", integrator="semi-implicit-euler")
register("analytic-explicit-euler", "crossdyn.engines.analytic_engine", "AnalyticEngine", integrator="euler")
register("analytic-reference", "crossdyn.engines.analytic_engine", "AnalyticEngine", integrator="reference")
register("pybullet", "crossdyn.engines.pybullet_engine", "PyBulletEngine")
register("mujoco", "crossdyn.engines.mujoco_engine", "MuJoCoEngine", integrator="Euler")
register("mujoco-euler", "crossdyn.engines.mujoco_engine", "MuJoCoEngine", integrator="Euler")
register("mujoco-rk4", "crossdyn.engines.mujoco_engine", "MuJoCoEngine", integrator="RK4")
register("mujoco-implicit", "crossdyn.engines.mujoco_engine", "MuJoCoEngine", integrator="implicit")
register("mujoco-implicitfast", "crossdyn.engines.mujoco_engine", "MuJoCoEngine", integrator="implicitfast")
register("mjx", "crossdyn.engines.mjx_engine", "MJXEngine", integrator="Euler")
register("mjx-euler", "crossdyn.engines.mjx_engine", "MJXEngine", integrator="Euler")
register("mjx-rk4", "crossdyn.engines.mjx_engine", "MJXEngine", integrator="RK4")
register("pinocchio", "crossdyn.engines.pinocchio_engine", "PinocchioEngine", integrator="rk4")
register("pinocchio-rk4", "crossdyn.engines.pinocchio_engine", "PinocchioEngine", integrator="rk4")
register("pinocchio-euler", "crossdyn.engines.pinocchio_engine", "PinocchioEngine", integrator="semi-implicit-euler")
register("dart", "crossdyn.engines.dart_engine", "DartEngine", integrator="semi-implicit-euler")
register("dart-rk4", "crossdyn.engines.dart_engine", "DartEngine", integrator="rk4")
register("drake", "crossdyn.engines.drake_engine", "DrakeEngine", integrator="rk3-adaptive")
register("drake-rk2", "crossdyn.engines.drake_engine", "DrakeEngine", integrator="rk2")
register("drake-rk3", "crossdyn.engines.drake_engine", "DrakeEngine", integrator="rk3")
register("drake-rk5", "crossdyn.engines.drake_engine", "DrakeEngine", integrator="rk5")
register("drake-euler", "crossdyn.engines.drake_engine", "DrakeEngine", integrator="euler")
register("drake-implicit", "crossdyn.engines.drake_engine", "DrakeEngine", integrator="implicit")
register("drake-discrete", "crossdyn.engines.drake_engine", "DrakeEngine", integrator="discrete")

__all__ = ["Engine", "EngineError", "EngineUnsupported", "available_engines", "engine_names", "make_engine",
           "register"]
