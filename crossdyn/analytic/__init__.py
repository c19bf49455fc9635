"""The analytic model: closed form (2R/3R), symbolic nR, recursive Newton–Euler, energy, integrators.

Sub-packages: :mod:`crossdyn.analytic.laws` (the limit, friction and contact laws: torque or force from the
state) and :mod:`crossdyn.analytic.references` (the event loop and the event-exact limit, stick–slip and contact
references); :mod:`crossdyn.analytic.gravity_helpers` (hanging pose, gravity stiffness, joint gravity scale).
"""
from crossdyn.analytic.dynamics import (
    as_params, bias, coriolis, coriolis_matrix, forward_dynamics, friction, gravity, inverse_dynamics,
    mass_matrix, parameter_vector, regressor,
)
from crossdyn.analytic.energy import kinetic_energy, potential_energy, total_energy
from crossdyn.analytic.integrators import Trajectory, simulate
from crossdyn.analytic.kinematics import com_positions, end_effector, joint_positions
from crossdyn.analytic.rnea import crba, rnea

__all__ = [
    "Trajectory", "as_params", "bias", "com_positions", "coriolis", "coriolis_matrix", "crba", "end_effector",
    "forward_dynamics", "friction", "gravity", "inverse_dynamics", "joint_positions", "kinetic_energy",
    "mass_matrix", "parameter_vector", "potential_energy", "regressor", "rnea", "simulate", "total_energy",
]
