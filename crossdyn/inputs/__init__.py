"""What feeds an engine: torque profiles (:mod:`crossdyn.inputs.profiles`: open loop, CSV, closed loop, contact
scenarios, ``held``, one registry of defaults), joint trajectories and 2R/3R inverse kinematics
(:mod:`crossdyn.inputs.trajectories`, trajectory TOML files: :mod:`crossdyn.inputs.trajectory_file`) and their
command-line syntax ``NAME@key=value`` (:mod:`crossdyn.inputs.profile_options`).  The loop that drives an engine
with them is :mod:`crossdyn.drive.runner`."""
