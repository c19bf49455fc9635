"""crossdyn: cross-validate planar robot-arm dynamics against PyBullet, MuJoCo and Pinocchio."""
__version__ = "0.1.0"
