"""What the identification workflow and the cross-engine diagnosis share: tolerances, the parameter scale, the
relative error, and the free arm (identification leaves the arm's contact out)."""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from crossdyn.identification import data as D
from crossdyn.identification.parameters import BaseParameters
from crossdyn.models.spec import ArmSpec

RELATIVE_FLOOR = 1e-6
"""Noise-free recovery tolerance (relative), also the floor of the interval check (see
:mod:`crossdyn.identification.identify`)."""

VALIDATION_TOLERANCE = 0.05
"""Default limit on the validation relative RMS torque error per joint (exit 1 above it)."""

MOVED_THRESHOLD = 1e-4
"""A base parameter "moved" (cross-engine diagnosis) when its estimate differs from the spec's by more than
this, relative to max(|β|, the parameter's scale); noise-free recovery is ≤ 1e-10 for every engine, so
1e-4 is far above recovery error and far below the traps' effects (≥ 4e-4 relative)."""

CONTACT_NOTE = ("the arm's [contact] and [[obstacles]] are left out of the simulated runs: the regressor models the "
                "free arm, and an excitation that strikes an obstacle would add contact torques no column explains "
                "(identify from data taken clear of the obstacles)")


def parameter_scale(base: BaseParameters, rows: D.Rows) -> np.ndarray:
    """Per base parameter: the size of β_k that would change the data by 1 % of its RMS (for zero-valued
    parameters, e.g. friction absent from the spec): 0.01 · rms(y) / rms(W_k)."""
    col = np.sqrt(np.mean(rows.W ** 2, axis=0))
    col[col == 0] = np.inf
    return 0.01 * float(np.sqrt(np.mean(rows.y ** 2))) / col


def relative_errors(beta_hat, beta_true, scale) -> np.ndarray:
    """|β̂ − β| / max(|β|, scale), per base parameter."""
    return np.abs(np.asarray(beta_hat) - beta_true) / np.maximum(np.abs(beta_true), scale)


def free_arm(spec: ArmSpec) -> ArmSpec:
    """``spec`` without its tip sphere and obstacles (identification simulates the free arm: :data:`CONTACT_NOTE`)."""
    return replace(spec, contact=None, obstacles=())
