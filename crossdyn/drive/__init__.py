"""What feeds an engine: torque profiles, joint trajectories (and 2R/3R inverse kinematics), and the one
driving loop (``runner``) through which every engine is stepped with a zero-order-hold torque."""
