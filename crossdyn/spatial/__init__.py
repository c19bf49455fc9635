"""crossdyn's own spatial rigid-body reference for robot files: Featherstone's algorithms in NumPy, batched.

A model under test like :mod:`crossdyn.analytic` (written here, not borrowed from an engine), on the
:class:`~crossdyn.robots.model.RobotModel` that :func:`crossdyn.robots.read_robot` reads from a URDF or MJCF file:
fixed-base trees of revolute, continuous and prismatic joints.  Every function takes states batched over a leading
axis, (N, n), and returns (N, …); a single (n,) state returns the unbatched shape.

* :func:`rnea` (τ = M q̈ + C q̇ + G), :func:`gravity_torque` (G), :func:`bias` (C q̇ + G), :func:`coriolis` (C q̇):
  :mod:`~crossdyn.spatial.rnea`, Table 5.1 of Featherstone, *Rigid Body Dynamics Algorithms* (2008);
* :func:`crba` (M): :mod:`~crossdyn.spatial.crba`, ch. 6;  :func:`aba` (q̈): :mod:`~crossdyn.spatial.aba`,
  Table 7.1;
* :func:`regressor` and :func:`parameters` (Y π = τ, Pinocchio's parameter order): :mod:`~crossdyn.spatial.regressor`;
* :func:`energy` (T, U): :mod:`~crossdyn.spatial.energy`;  :func:`body_poses`: :mod:`~crossdyn.spatial.kinematics`;
  spatial algebra: :mod:`~crossdyn.spatial.transforms`.

Armature (``Joint.armature``, reflected rotor inertia) enters as M + diag(I_a) where ``armature=True``.
"""
from crossdyn.spatial.aba import aba
from crossdyn.spatial.crba import crba
from crossdyn.spatial.energy import energy, kinetic_energy, potential_energy
from crossdyn.spatial.kinematics import body_poses, com_positions, motion_subspace
from crossdyn.spatial.regressor import parameters, regressor
from crossdyn.spatial.rnea import bias, coriolis, gravity_torque, rnea

__all__ = ["aba", "bias", "body_poses", "com_positions", "coriolis", "crba", "energy", "gravity_torque",
           "kinetic_energy", "motion_subspace", "parameters", "potential_energy", "regressor", "rnea"]
