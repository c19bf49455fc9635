"""A native friction's own softness: the creep floor, measured in a side run.

A soft dry-friction constraint (MuJoCo's ``frictionloss``) lets a joint that should stick creep.  Its **creep
floor** (:func:`creep_floor`) is the least creep it can have at this dt: the arm at rest, gravity compensated,
joint j loaded with 0.95 f_c (the set-valued law still sticks) with the engine's softness settings at their
stiffest (:func:`stiffest_friction`: MuJoCo's ``solreffriction`` timeconst 2 dt — MuJoCo's own lower bound —
dampratio 1, ``solimpfriction`` d = 0.9999; engines without such settings as they are).
"""
from __future__ import annotations

import numpy as np

from crossdyn.inputs.profiles import Profile
from crossdyn.drive.runner import run_engine

FLOOR_LOAD_FRACTION = 0.95
"""The creep-floor side run loads the joint with this fraction of f_c: the set-valued law still sticks (below
f_c), and the heaviest stick load a soft constraint creeps fastest under."""

FLOOR_RUN_S = 0.5
"""s: length of the creep-floor side run."""


def stiffest_friction(engine) -> str | None:
    """Set ``engine``'s dry-friction softness to the stiffest it allows and say what was set (None: it has no such
    setting; :meth:`crossdyn.engines.base.Engine.stiffest_friction`).  MuJoCo's frictionloss constraint has reference a_ref = −b v with b = 2 / (d_max · timeconst) and
    impedance d; held below f_c it creeps at v = (1 − d) timeconst d_max a0 / (2 d) (a0: the unconstrained
    acceleration), least at timeconst = 2 dt (MuJoCo clamps lower values up to it) and d = 0.9999 (its maximum)."""
    return engine.stiffest_friction()  # the adapter knows its own setting (Engine.stiffest_friction)


class _HeldFrictionLoad(Profile):
    """τ = G(q) + 0.95 f_c,j e_j: the arm's gravity compensated, joint j loaded just below breakaway."""

    closed_loop = True
    name = "held-friction-load"

    def __init__(self, spec, joint: int, load: float):
        super().__init__(spec.n)
        self.spec, self.joint, self.load = spec, joint, load

    def __call__(self, t, q, qd):
        from crossdyn import analytic

        n = self.n
        tau = analytic.inverse_dynamics(self.spec, np.asarray(q, float)[None], np.zeros((1, n)),
                                        np.zeros((1, n)))[0]
        tau[self.joint] += self.load
        return tau

    def params(self):
        return {"name": self.name, "joint": self.joint + 1, "load_nm": self.load}


def creep_floor(engine, spec, q0, joint: int, duration: float = FLOOR_RUN_S) -> dict:
    """The engine's creep under a held load of 0.95 f_c on ``joint`` (index) from rest at ``q0``, gravity
    compensated: the set-valued law does not move.  {"rate_rad_s": |q_j(T) − q_j(T/2)| / (T/2) (after the
    constraint has taken up the load), "displacement_rad": |q_j(T) − q_j(0)|, "load_nm", "status"}."""
    from crossdyn.analytic.laws.friction import without_friction  # noqa: F401  (documents the law it departs from)

    load = FLOOR_LOAD_FRACTION * spec.links[joint].friction
    tr = run_engine(engine, _HeldFrictionLoad(spec, joint, load), np.asarray(q0, float), np.zeros(spec.n),
                    duration, saturate=False)
    if tr.status != "ok":
        return {"rate_rad_s": None, "displacement_rad": None, "load_nm": load, "status": f"{tr.status}: {tr.message}"}
    h = len(tr.q) // 2
    return {"rate_rad_s": float(abs(tr.q[-1, joint] - tr.q[h, joint]) / (tr.t[-1] - tr.t[h])),
            "displacement_rad": float(abs(tr.q[-1, joint] - tr.q[0, joint])), "load_nm": load, "status": "ok"}


