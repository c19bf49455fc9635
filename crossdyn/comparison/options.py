"""The options of a comparison: :class:`CompareOptions`, frozen and validated when built.

The checks are the command line's (``crossdyn compare``): the same functions raise the same
:class:`~crossdyn.errors.InputError` from Python (``compare(engines="mujoco-rk4")``) as from the CLI (exit 2);
only the label in the message differs (``engines`` here, ``--engines`` there).
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field, replace
from typing import Any, Callable

from crossdyn.comparison.tolerances import Tolerances
from crossdyn.errors import InputError, did_you_mean

DEFAULT_ENGINES = ("analytic", "pybullet", "mujoco", "mujoco-rk4", "pinocchio", "dart", "drake-discrete")
"""Engines of a default comparison (those installed): MuJoCo with Euler and RK4, DART (semi-implicit Euler),
Drake's discrete plant.  Each library that can step the arm is in it once at least; a default ``compare
planar3r`` measures them all in a few seconds."""

ON_REQUEST = {"drake": "error-controlled RK3 at accuracy 1e-10, ~0.5-0.7 ms a step, 50-100x MuJoCo's: alone it "
                       "tripled a default comparison's time"}
"""Engines left out of :data:`DEFAULT_ENGINES` by choice, with the reason (printed as a note by a default
comparison): each runs when named (``--engines``)."""


def left_out_note(available: tuple[str, ...] | list[str]) -> str | None:
    """The note of a default comparison naming the installed engines left out by choice (:data:`ON_REQUEST`)
    and how to add them; None when none of them is installed."""
    out = [name for name in ON_REQUEST if name in available]
    if not out:
        return None
    asked = ",".join([e for e in DEFAULT_ENGINES if e in available] + out)
    return (f"left out of the default engines by choice: {'; '.join(f'{n}, {ON_REQUEST[n]}' for n in out)}; "
            f"add with --engines {asked}")

MAX_STEPS = 2_000_000
"""Most time steps one run may take (duration / dt): every run keeps its whole trajectory in memory."""
MAX_STATES = 1_000_000
"""Most random states for the static metrics (n_states)."""


def check_run_length(duration: float, dt: float, label: str = "") -> None:
    """duration and dt positive and finite, duration a whole number K = duration/dt of steps, K ≤ MAX_STEPS.

    ``label`` prefixes the option names (``"--"`` on the command line)."""
    for name, v in (("duration", duration), ("dt", dt)):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not (math.isfinite(v) and v > 0):
            raise InputError(f"{label}{name}: must be a positive number of seconds, got {v!r}", name, v)
    k = round(duration / dt)
    if k > MAX_STEPS:
        raise InputError(f"{label}duration {duration:g} s at {label}dt {dt:g} s is {duration / dt:.3g} steps; "
                         f"a run may take at most {MAX_STEPS:,} steps (each keeps its whole trajectory in memory): "
                         f"shorten {label}duration or raise {label}dt", "duration", duration)
    if k < 1 or abs(k * dt - duration) > 1e-9 * max(1.0, duration):
        raise InputError(f"{label}duration {duration:g} s is not a whole number of {label}dt {dt:g} s steps",
                         "duration", duration)


def check_counts(n_states: int, seed: int, jobs: int, label: str = "", states_name: str = "n_states") -> None:
    """1 ≤ n_states ≤ MAX_STATES, seed ≥ 0, jobs ≥ 1 (integers)."""
    for name, v in ((states_name, n_states), ("seed", seed), ("jobs", jobs)):
        if isinstance(v, bool) or not isinstance(v, numbers.Integral):
            raise InputError(f"{label}{name}: must be an integer, got {v!r}", name, v)
    if not 1 <= n_states <= MAX_STATES:
        raise InputError(f"{label}{states_name}: must be between 1 and {MAX_STATES:,}, got {n_states:,}",
                         states_name, n_states)
    if seed < 0:
        raise InputError(f"{label}seed: must be an integer >= 0, got {seed}", "seed", seed)
    if jobs < 1:
        raise InputError(f"{label}jobs: must be >= 1, got {jobs}", "jobs", jobs)


def check_engines(engines: Any, label: str = "engines", shown: str | None = None) -> tuple[str, ...]:
    """The engine names as a tuple; :class:`InputError` for a string (a list of names belongs there), an empty
    list, a name given twice, an unknown engine (naming the known ones) or one not installed.

    ``user:FILE`` names pass (the file is read when the engine is built); options after ``@`` are checked
    by building the engine, which the command line does once before the run."""
    from crossdyn.engines import available_engines, engine_names
    from crossdyn.engines.registry import split_engine_list

    if isinstance(engines, str):
        raise InputError(f"{label}: must be a list or tuple of engine names, got the string {engines!r} (a string "
                         f"would be read as one engine per character); write [{engines!r}] or "
                         f"{split_engine_list(engines)!r}", label, engines)
    if not isinstance(engines, (list, tuple)) or not all(isinstance(e, str) for e in engines):
        raise InputError(f"{label}: must be a list or tuple of engine names (strings), got {engines!r}",
                         label, engines)
    shown = repr(shown if shown is not None else list(engines))
    names = tuple(engines)
    known = engine_names()
    if not names:
        raise InputError(f"{label}: no engine named in {shown}; valid engines: {', '.join(known)}, user:FILE",
                         label, engines)
    twice = sorted({e for e in names if names.count(e) > 1})
    if twice:
        raise InputError(f"{label}: {', '.join(twice)} named more than once in {shown}", label, engines)
    installed = available_engines()
    for e in names:
        if e.startswith("user:"):
            continue
        base = e.split("@", 1)[0]
        if base not in known:
            raise InputError(f"{label}: unknown engine {base!r}{did_you_mean(base, known)}; valid engines: {', '.join(known)}, user:FILE "
                             "(options after @, e.g. pybullet@link_damping=0.04)", label, e)
        if base not in installed:
            from crossdyn.engines.registry import entry

            if "planar" in entry(base).refusals:
                raise InputError(f"{label}: engine {base!r} does not run on a planar arm: "
                                 f"{entry(base).refusals['planar']}", label, e)
            raise InputError(f"{label}: engine {base!r} is {entry(base).install_hint()} (installed engines: "
                             f"{', '.join(installed)})", label, e)
    return names


def _state(value: Any, name: str) -> tuple[float, ...] | None:
    """A start state as a tuple of finite floats (None stays None); its length is checked against the arm."""
    if value is None:
        return None
    try:
        vals = tuple(float(x) for x in (value.tolist() if hasattr(value, "tolist") else value))
    except (TypeError, ValueError):
        raise InputError(f"{name}: must be a sequence of numbers (one per joint), got {value!r}", name,
                         value) from None
    if not all(math.isfinite(v) for v in vals):
        raise InputError(f"{name}: must be finite numbers, got {value!r}", name, value)
    return vals


@dataclass(frozen=True)
class CompareOptions:
    """Options of :func:`crossdyn.comparison.compare.compare` (defaults give the run of ``crossdyn compare ARM``).

    Validated when built (:class:`~crossdyn.errors.InputError`, a ``ValueError``): ``duration``/``dt`` positive
    and a whole number of steps, ``engines`` a list or tuple of known, installed engine names (never a string),
    ``n_states``, ``seed``, ``jobs`` in range, start states finite.
    """

    duration: float = 3.0
    dt: float = 1e-3
    choose_dt: bool = False
    """``dt`` is a default the comparison may lower: where an engine's scheme would leave its trajectory unjudgeable
    at ``dt`` (its tolerance past the bound), run at the dt/2ᵏ that a replica study predicts judgeable
    (:mod:`crossdyn.comparison.dt_choice`; the summary's ``dt_choice`` says why).  ``crossdyn compare`` sets it
    when ``--dt`` is not given; False keeps ``dt`` as given."""
    engines: tuple[str, ...] | None = None
    """Engine names (``None``: :data:`DEFAULT_ENGINES`, those installed)."""
    profile: Any = None
    """A :class:`~crossdyn.inputs.profiles.Profile`, a profile name or CSV path; None: the default multi-sine."""
    tolerances: Tolerances = field(default_factory=Tolerances)
    n_states: int = 1000
    seed: int = 0
    convergence_dts: tuple[float, ...] = (4e-3, 2e-3, 1e-3, 5e-4)
    convergence_duration: float = 1.0
    jobs: int = 1
    """Engines measured in parallel processes (results identical for any value)."""
    q0: tuple[float, ...] | None = None
    """Start configuration (rad); None: a profile's own start or a trajectory-tracking profile's first point,
    else :func:`crossdyn.inputs.start.default_start` (the hanging start when it is valid)."""
    qd0: tuple[float, ...] | None = None
    """Start velocity (rad/s); None: the trajectory's initial velocity, else at rest."""
    allow_invalid_start: bool = False
    """Run from a start inside an obstacle or beyond a joint limit (:func:`crossdyn.inputs.start.check_start`);
    False refuses it (:class:`crossdyn.inputs.start.InvalidStart`, exit 2)."""
    progress: Callable[[str], None] | None = None
    native_friction: bool = False
    """Coulomb friction (f_c > 0): False (applied mode) builds every engine with f_c = 0 and the runner applies
    the regularised law −f_c tanh(q̇/v_s) (:class:`crossdyn.analytic.laws.friction.FrictionLaw`) to all of them and
    to the reference; True leaves each engine's own friction (MuJoCo frictionloss, PyBullet's velocity motor,
    DART's constraint, f_c sign(q̇) in the analytic model and Pinocchio)."""
    characterise_friction: bool = False
    """Applied mode with f_c > 0: also run MuJoCo and PyBullet with their own friction against the set-valued
    stick–slip reference (:mod:`crossdyn.native.friction.runs`), judged
    (:mod:`crossdyn.native.friction.verdict`: a departure fails) (slow)."""
    derivatives: bool = False
    """``--derivatives``: every engine that offers derivatives gets the ``derivatives`` group
    (:mod:`crossdyn.comparison.groups.derivatives`) at the first 50 static states; False: no such group."""
    native: bool = False
    """Arms with a limit law: also run each compared engine that has its own limits with them and judge their
    limit contacts against the event-exact law; arms with contact: each engine's own contact, judged."""
    calibrate_limits: bool = False
    """Arms with a limit law: fit MuJoCo's solreflimit/solimplimit to the law, and (when PyBullet is compared)
    PyBullet's jointLimitForce/erp (:mod:`crossdyn.native.limits.calibration`)."""
    contact_characterise: bool = False
    """Arms with contact: run MuJoCo, PyBullet and drake-discrete with their own contact and characterise each
    contact episode, without judging it (``crossdyn compare`` sets it unless ``--no-native-contact``)."""
    calibrate_contact: bool = False
    """Arms with contact: fit MuJoCo's contact solref/solimp and PyBullet's contactStiffness/contactDamping to the
    law (:mod:`crossdyn.native.contact.calibration`)."""
    require: tuple[str, ...] = ()
    """Phenomena asked about (``--require limits,effort``; names from :data:`REQUIRABLE`): one the arm declares
    but the run never reached is INCONCLUSIVE instead of NOT_EXERCISED, one the arm does not declare is
    INCONCLUSIVE too (:meth:`asks_about` adds the phenomena the native and calibration options ask about)."""

    def asks_about(self, phenomenon: str) -> bool:
        """Whether the user asked about ``phenomenon`` (one of :data:`REQUIRABLE`): named in :attr:`require`, or
        implied by an option that studies it (``native``: limits and contact; ``calibrate_limits``: limits;
        ``calibrate_contact``: contact; ``characterise_friction`` and ``native_friction``: friction)."""
        implied = {"limits": self.native or self.calibrate_limits,
                   "contact": self.native or self.calibrate_contact,
                   "friction": self.characterise_friction or self.native_friction}
        return phenomenon in self.require or bool(implied.get(phenomenon))

    def __post_init__(self) -> None:
        check_run_length(self.duration, self.dt)
        check_counts(self.n_states, self.seed, self.jobs)
        if self.engines is not None:
            object.__setattr__(self, "engines", check_engines(self.engines))
        if isinstance(self.convergence_dts, str) or not all(
                isinstance(d, (int, float)) and not isinstance(d, bool) and math.isfinite(d) and d > 0
                for d in self.convergence_dts):
            raise InputError(f"convergence_dts: must be positive step sizes in seconds, got "
                             f"{self.convergence_dts!r}", "convergence_dts", self.convergence_dts)
        object.__setattr__(self, "convergence_dts", tuple(self.convergence_dts))
        d = self.convergence_duration
        if isinstance(d, bool) or not isinstance(d, (int, float)) or not (math.isfinite(d) and d > 0):
            raise InputError(f"convergence_duration: must be a positive number of seconds, got {d!r}",
                             "convergence_duration", d)
        if not isinstance(self.tolerances, Tolerances):
            raise InputError(f"tolerances: must be a Tolerances, got {type(self.tolerances).__name__}",
                             "tolerances", self.tolerances)
        object.__setattr__(self, "q0", _state(self.q0, "q0"))
        object.__setattr__(self, "qd0", _state(self.qd0, "qd0"))
        object.__setattr__(self, "require", check_require(self.require))


REQUIRABLE = ("limits", "effort", "contact", "friction", "armature")
"""The phenomena ``--require`` names: joint limits, actuator effort limits, tip contact, Coulomb friction, rotor
armature."""


def check_require(require: Any, label: str = "require") -> tuple[str, ...]:
    """``require`` as a tuple of :data:`REQUIRABLE` names (a comma-separated string or a sequence);
    :class:`InputError` (exit 2) naming an unknown one and the known ones."""
    names = [n.strip() for n in require.split(",")] if isinstance(require, str) else list(require or ())
    for n in names:
        if n not in REQUIRABLE:
            raise InputError(f"{label}: unknown phenomenon {n!r}; known: {', '.join(REQUIRABLE)}", label, n)
    return tuple(dict.fromkeys(names))


def without_progress(opt: CompareOptions) -> CompareOptions:
    """The options with no progress callback (what a worker process receives: callbacks do not pickle)."""
    return replace(opt, progress=None)
