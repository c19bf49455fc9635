"""A native contact's own softness, measured: the engine's contact force against the law's at probe states.

From random states with the tip 0.5–10 mm into one obstacle, the engine's acceleration gives its contact force by
inverse dynamics (τ_c = M q̈ + C q̇ + G − τ, F_n from τ_c = J_tipᵀ (F_n n + F_t t) − r F_t by least squares); its
relative departure |F_n,engine − F_n,law| / F_n,law from the law (in the engine's scheme) is the softness the
verdict allows for (:mod:`crossdyn.native.contact.verdict`).
"""
from __future__ import annotations

import numpy as np

from crossdyn.analytic.laws.contact import ContactLaw
from crossdyn.analytic.kinematics import end_effector, end_effector_jacobian
from crossdyn.native.contact.episodes import law_forces
from crossdyn.native.contact.reference import implicit_step_force


def probe_softness(engine, spec, law: ContactLaw, count: int = 12, seed: int = 0, max_penetration: float = 0.01,
                   implicit: bool = False):
    """The engine's own contact against the law, measured: from ``count`` random states with the tip 0.5–10 mm
    into an obstacle (joint speeds ±0.3 rad/s, τ = 0), the engine's acceleration — its forward dynamics where that
    includes its contact (MuJoCo's ``mj_forward``), else one step of dt (PyBullet: the force its solver holds over
    the step) — gives its contact force by inverse dynamics, compared with the law at the same state (``implicit``:
    with the law's force over one step solved implicitly,
    :func:`crossdyn.native.contact.reference.implicit_step_force`, what an engine whose contact is an implicit
    spring–damper should give).

    Returns {"relative_force_error_median", "relative_force_error_max", "states"}: |F_n,engine − F_n,law| / F_n,law
    over the probes (the engine's contact softness, in the tolerance of :func:`crossdyn.native.contact.verdict.judge`).
    """
    from crossdyn import analytic

    p = spec.params()
    rng = np.random.default_rng(seed)
    qs = rng.uniform(-np.pi, np.pi, (200_000, spec.n))
    delta = law.penetration(end_effector(p, qs))
    good = np.nonzero((delta.max(axis=1) > 5e-4) & (delta.max(axis=1) < max_penetration)
                      & ((delta > 0).sum(axis=1) == 1))[0][:4 * count]
    errors = []
    for i in good:
        q, qd = qs[i], rng.uniform(-0.3, 0.3, spec.n)
        f_law, _ = law_forces(spec, law, q[None], qd[None])
        j = int(np.argmax(delta[i]))
        if implicit:
            f_imp, *_ = implicit_step_force(spec, law, q, qd, np.zeros(spec.n), engine.dt)
            f_law = np.zeros_like(f_law)
            f_law[0, j] = f_imp[0] if len(f_imp) else 0.0
        if f_law[0, j] < 1.0:  # clipped or nearly: no force to compare
            continue
        if engine.contact_in_forward_dynamics:  # MuJoCo: mj_forward computes its contacts
            qdd = np.asarray(engine.forward_dynamics(q, qd, np.zeros(spec.n)))
        else:  # PyBullet computes its contact only inside stepSimulation: the force held over one step
            engine.reset(q, qd)
            engine.step(np.zeros(spec.n))
            qdd = (engine.state()[1] - qd) / engine.dt
        tau_c = analytic.inverse_dynamics(spec, q[None], qd[None], qdd[None])[0]
        J = end_effector_jacobian(p, q)
        cols = [J.T @ law.normals[j]] + ([J.T @ law.tangents[j] - law.radius] if law.friction > 0 else [])
        x, *_ = np.linalg.lstsq(np.stack(cols, axis=1), tau_c, rcond=None)
        errors.append(abs(x[0] - f_law[0, j]) / f_law[0, j])
        if len(errors) >= count:
            break
    if not errors:
        return {"relative_force_error_median": None, "relative_force_error_max": None, "states": 0}
    return {"relative_force_error_median": float(np.median(errors)), "relative_force_error_max": float(np.max(errors)),
            "states": len(errors)}
