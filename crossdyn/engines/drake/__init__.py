"""Drake's MultibodyPlant (``drake``, ``drake-rk*``, ``drake-euler``, ``drake-implicit``, ``drake-discrete``): its
adapters, side by side.

* ``planar``: the adapter of a planar arm (:class:`crossdyn.engines.base.Engine`, built from an ArmSpec and the
  URDF/MJCF it writes);
* ``file``: the adapter of a robot file or a textbook DH arm's files
  (:class:`crossdyn.engines.file_engine.FileEngine`).

The engine table (:mod:`crossdyn.engines.registry`) names which adapter each engine name uses on each arm kind;
importing this package imports no engine library.
"""


SCHEMES = {
    # registry integrator: (Drake's integration scheme, error control, crossdyn's scheme name, order); the planar
    # adapter and the robot-file adapter step each name with the same scheme and the same settings (at most one step of
    # dt; fixed-step mode unless error-controlled; ``rk4`` is crossdyn's RK4 on Drake's continuous dynamics)
    "rk3-adaptive": ("runge_kutta3", True, "drake-rk3-error-controlled", 3),
    "rk2": ("runge_kutta2", False, "rk2", 2),
    "rk3": ("runge_kutta3", False, "rk3", 3),
    "rk4": (None, False, "rk4", 4),  # crossdyn's RK4 on the continuous plant's forward dynamics
    "rk5": ("runge_kutta5", False, "rk5", 5),
    "euler": ("semi_explicit_euler", False, "semi-implicit-euler", 1),
    "implicit": ("implicit_euler", False, "implicit-euler", 1),
    "discrete": (None, False, "semi-implicit-euler", 1),  # the discrete plant's own update
}
"""Every Drake engine name's scheme (the registry's ``integrator``: ``drake-rk5`` → ``rk5``), shared by both adapters."""
