"""PyBullet (``pybullet``, ``pybullet-noflag``): its adapters, side by side.

* ``planar``: the adapter of a planar arm (:class:`crossdyn.engines.base.Engine`, built from an ArmSpec and the
  URDF/MJCF it writes);
* ``file``: the adapter of a robot file or a textbook DH arm's files
  (:class:`crossdyn.engines.file_engine.FileEngine`).

The engine table (:mod:`crossdyn.engines.registry`) names which adapter each engine name uses on each arm kind;
importing this package imports no engine library.
"""
