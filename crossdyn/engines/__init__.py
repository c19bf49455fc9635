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
mujoco-warp            MuJoCo Warp (float32, GPU or CPU), Euler (semi-implicit, eulerdamp disabled)
mujoco-warp-euler      … Euler (same as ``mujoco-warp``)
mujoco-warp-rk4        … RK4 (also ``-implicit``, ``-implicitfast``)
newton                 NVIDIA Newton (float32, GPU or CPU), SolverFeatherstone: semi-implicit Euler
genesis                Genesis (not in ``[all]``), Euler, its default armature 0.1 neutralised
=====================  =====================================================

The names, the library and ``pip`` extra each needs, and the options that switch an engine's own physics on are
the registry's (:mod:`crossdyn.engines.registry`); what each adapter can do is its
:class:`~crossdyn.engines.base.Capabilities` record.
"""
from crossdyn.engines.base import Capabilities, Engine, EngineError, EngineUnsupported
from crossdyn.engines.registry import (EngineEntry, available_engines, engine_names, make_engine, native_variant,
                                       register, register_entry, split_options)

__all__ = ["Capabilities", "Engine", "EngineEntry", "EngineError", "EngineUnsupported", "available_engines",
           "engine_names", "make_engine", "native_variant", "register", "register_entry", "split_options"]
