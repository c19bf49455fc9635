"""The tip's contact, natively: each engine's own contact (MuJoCo's soft contact, PyBullet's ERP/CFM, Drake's
SAP) configured from k, c, μ, against crossdyn's law F_n = max(0, k δ + c δ̇).

* :mod:`~crossdyn.native.contact.reference`: the law's own runs (the event-exact reference; the law with an
  engine's scheme, for the integration-error estimate);
* :mod:`~crossdyn.native.contact.episodes`: per contact episode of a run (penetration, peak force, duration,
  restitution, impulse, energy dissipated, path deviation; a native run's force inferred);
* :mod:`~crossdyn.native.contact.softness`: the engine's contact force against the law's at probe states;
* :mod:`~crossdyn.native.contact.calibration`: MuJoCo's solref/solimp and PyBullet's stiffness/damping fitted;
* :mod:`~crossdyn.native.contact.runs`: which engines have native contact, every engine run natively;
* :mod:`~crossdyn.native.contact.verdict`: the verdict (each episode against the law restarted at the engine's
  own pre-contact state), the table with its PASS/FAIL lines.
"""
from crossdyn.native.contact.calibration import calibrate_mujoco_contact, calibrate_pybullet_contact
from crossdyn.native.contact.episodes import QUANTITIES, characterise, path_deviation
from crossdyn.native.contact.reference import exact_run, law_run, reference_run
from crossdyn.native.contact.runs import characterise_native_contact, native_contact_variant, run_native, summary_of
from crossdyn.native.contact.softness import probe_softness
from crossdyn.native.contact.verdict import describe_departure, failures, judge, table
from crossdyn.native.experiment import Phenomenon

__all__ = ["PHENOMENON", "QUANTITIES", "applies", "calibrate_mujoco_contact", "calibrate_pybullet_contact",
           "characterise", "characterise_native_contact", "describe_departure", "exact_run", "failures", "judge",
           "law_run", "native_contact_variant", "path_deviation", "probe_softness", "reference_run", "run_native",
           "summary_of", "table"]


def applies(spec) -> bool:
    """The arm has a tip sphere and at least one obstacle."""
    return bool(spec.has_contact)


PHENOMENON = Phenomenon("contact", applies, native_contact_variant, episodes=characterise,
                        characterise=characterise_native_contact, judge=judge, failures=failures,
                        calibrate={"mujoco": calibrate_mujoco_contact, "pybullet": calibrate_pybullet_contact})
