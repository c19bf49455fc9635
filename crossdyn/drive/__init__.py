"""The driving loop: :mod:`crossdyn.drive.runner` steps every engine with a zero-order-hold torque and the applied
laws (limit, friction, contact, effort saturation).  What feeds an engine (profiles, trajectories) is
:mod:`crossdyn.inputs`."""
