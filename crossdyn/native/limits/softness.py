"""A native limit's own softness, measured in short side runs: the static give under a known held load.

The compliant law holds a joint pushed into its limit by a steady load τ_h at the static penetration τ_h / k
(N m over N m/rad).  A native limit (MuJoCo's soft constraint, PyBullet's, DART's and Drake's rigid stops)
gives by its own amount δ; :func:`held_load_give` measures it with the engine itself:

* start at rest at a configuration ``q_c`` with joint j exactly at the limit;
* torque, computed by crossdyn from the engine's state every step (zero-order hold like every profile):
  τ = G(q) + σ τ_h e_j − D q̇ — the arm's own gravity compensated (analytic G, which every engine matches to
  1e-13), the load pushing joint j into the limit (σ = +1 at the upper limit, −1 at the lower), and a damper
  D_ii = 2 sqrt(k_j M_ii(q_c)) (critical for the law's stiffness) that lets the run settle without changing
  the equilibrium;
* ``duration`` (1 s) later, δ = the mean penetration over the last 20 % of the run, and ``unsettled`` its
  range over that window (a give still moving, or chattering, is that much less certain).

The effective static stiffness τ_h / δ is the engine's measured softness (shown, not judged: a rigid stop's is
1e5–1e7 N m/rad, the law's is k).  :func:`softness` repeats the measurement at the configuration of every
reference contact on a (joint, side) with one load (the largest peak limit torque of those contacts) and
reports the *configuration spread* of the give relative to the law's, (max δ − min δ + max unsettled) /
(τ_h / k): how far even a correctly configured stop of this engine cannot hold one joint-space stiffness over
the motion (MuJoCo's limit stiffness is an acceleration in constraint space, d k_r / ((1 − d) (M⁻¹)_jj) in
N m/rad, so it follows the configuration; a joint-space spring does not).  Its *mean* departure from τ_h / k is
not part of it: that is what the native verdict judges (:mod:`crossdyn.native.limits.verdict`), and an
allowance that grew with it would pass any stop.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from crossdyn.inputs.profiles import Profile
from crossdyn.drive.runner import run_engine
from crossdyn.native.experiment import legacy_form

SIDE_RUN_S = 1.0
"""s: length of one held-load side run (MuJoCo's direct-form limit on planar2r-limits settles in ~0.5 s)."""

SETTLED_FRACTION = 0.2
"""The last fraction of a side run over which the give is averaged (and its range taken)."""


class HeldLoad(Profile):
    """τ = G(q) + σ τ_h e_j − D q̇ (see the module docstring): a known load into one limit, gravity held."""

    name = "held-load"
    closed_loop = True

    def __init__(self, spec, joint: int, load: float, damping: np.ndarray):
        super().__init__(spec.n)
        self.spec, self.joint, self.load, self.damping = spec, int(joint), float(load), np.asarray(damping, float)

    def __call__(self, t, q, qd):
        from crossdyn import analytic

        n = self.spec.n
        g = analytic.inverse_dynamics(self.spec, np.asarray(q, float)[None], np.zeros((1, n)), np.zeros((1, n)))[0]
        tau = g - self.damping * np.asarray(qd, float)
        tau[self.joint] += self.load
        return tau

    def params(self) -> dict:
        return {"name": self.name, "joint": self.joint + 1, "load_nm": self.load}


class Stop(NamedTuple):
    """One limit of one joint: ``joint`` (0-based index), ``side`` ("upper" or "lower") and ``bound`` (rad)."""

    joint: int
    side: str
    bound: float


def _stop_pack(a: dict) -> tuple:
    stop = Stop(a.pop("joint"), a.pop("side"), a.pop("bound"))
    return (a.pop("engine"), a.pop("spec"), stop), a


@legacy_form(("engine", "spec", "joint", "side", "bound", "load", "q_c", "duration", "limit_law"), 7, _stop_pack,
             marker=Stop, at=2)
def held_load_give(engine, spec, stop: Stop, load: float, q_c, duration: float = SIDE_RUN_S,
                   limit_law: bool = False) -> dict:
    """The static give of ``engine``'s own limit (``stop``: the ``side`` of joint index ``joint``, at ``bound``)
    under the held ``load`` (N m, > 0) from rest at ``q_c`` with the joint at the limit.  {"give_rad",
    "unsettled_rad", "status"}; give in rad beyond the limit (≥ 0: a stop that pushes the joint back inside gives
    0).  ``limit_law=True`` applies crossdyn's law instead (applied mode: the give is then τ_h / k, a check)."""
    from crossdyn import analytic

    joint, side, bound = stop

    q0 = np.array(q_c, dtype=float)
    q0[joint] = bound
    M = analytic.mass_matrix(spec, q0)
    k = spec.links[joint].limit_stiffness
    damping = 2.0 * np.sqrt(k * np.diag(M))
    sigma = 1.0 if side == "upper" else -1.0
    tr = run_engine(engine, HeldLoad(spec, joint, sigma * load, damping), q0, np.zeros(spec.n), duration,
                    saturate=False, limit_law=limit_law)
    if tr.status != "ok":
        return {"give_rad": None, "unsettled_rad": None, "status": f"{tr.status}: {tr.message}"}
    pen = sigma * (tr.q[:, joint] - bound)
    tail = pen[int(len(pen) * (1 - SETTLED_FRACTION)):]
    return {"give_rad": max(float(np.mean(tail)), 0.0), "unsettled_rad": float(np.ptp(tail)), "status": "ok"}


def softness(engine, spec, law, ref_contacts: list[dict], ref_traj, duration: float = SIDE_RUN_S) -> dict:
    """Per (joint, side) with reference contacts: the load τ_h (the largest reference peak limit torque there),
    the law's give τ_h / k, the engine's give at every contact's configuration (the reference's state at the
    contact's deepest sample) and its effective stiffness τ_h / δ, and the softness fraction
    ``(max δ − min δ + max unsettled) / (τ_h / k)`` (module docstring).  Keyed ``"joint side"`` (1-based)."""
    out = {}
    t = np.asarray(ref_traj.t)
    by_key: dict = {}
    for c in ref_contacts:
        by_key.setdefault((c["joint"], c["side"]), []).append(c)
    for (jn, side), cs in sorted(by_key.items()):
        j = jn - 1
        bound = law.upper[j] if side == "upper" else law.lower[j]
        load = max(c["peak_torque_nm"] for c in cs)
        k = spec.links[j].limit_stiffness
        law_give = load / k
        rows = []
        for c in cs:
            i0, i1 = (int(np.searchsorted(t, c[key] - 1e-12)) for key in ("t_enter_s", "t_exit_s"))
            seg = ref_traj.q[i0:i1 + 1, j]
            i = i0 + int(np.argmax(seg) if side == "upper" else np.argmin(seg)) if len(seg) else i0
            g = held_load_give(engine, spec, Stop(j, side, bound), load, ref_traj.q[min(i, len(ref_traj.q) - 1)],
                               duration)
            g["t_s"] = float(t[min(i, len(t) - 1)])
            g["effective_stiffness_nm_per_rad"] = (load / g["give_rad"]) if g["give_rad"] else None
            rows.append(g)
        gives = [r["give_rad"] for r in rows if r["give_rad"] is not None]
        unsettled = max((r["unsettled_rad"] for r in rows if r["unsettled_rad"] is not None), default=0.0)
        fraction = ((max(gives) - min(gives) + unsettled) / law_give) if gives else None
        out[f"{jn} {side}"] = {"joint": jn, "side": side, "load_nm": load, "law_give_rad": law_give,
                               "law_stiffness_nm_per_rad": k, "at_contacts": rows, "softness_fraction": fraction}
    return out
