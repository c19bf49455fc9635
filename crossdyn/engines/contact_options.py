"""The native contact's settings given as engine options (``pybullet@contact_stiffness=K@contact_damping=C``),
checked before an adapter uses them; MuJoCo's ``contact_solref``/``contact_solimp`` are checked by
:func:`crossdyn.models.mjcf.check_contact_solref` and :func:`crossdyn.models.mjcf.check_contact_solimp`."""
from __future__ import annotations

import math

from crossdyn.engines.base import EngineError
from crossdyn.models.spec import ArmSpec


def tip_contact(spec: ArmSpec, native_contact: bool, stiffness, damping) -> tuple[float, float, str]:
    """(contactStiffness N/m, contactDamping N s/m, where they come from) of PyBullet's tip: the options
    ``contact_stiffness`` (finite, > 0) and ``contact_damping`` (finite, >= 0) where given, else the spec's k and c
    (0, 0 without a ``[contact]``).  A given one needs an arm with contact (without ``native_contact=true`` it
    waits for the native run, e.g. the one ``compare`` adds); a bad one raises :class:`EngineError` naming the
    option and the value."""
    for key, value, lowest in (("contact_stiffness", stiffness, "> 0 N/m"), ("contact_damping", damping, ">= 0 N s/m")):
        if value is None:
            continue
        number = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
        if spec.contact is None or not number or value < 0 or (value == 0 and key == "contact_stiffness"):
            raise EngineError(f"pybullet {key}={value}: needs an arm with [contact] and [[obstacles]] and a finite "
                              f"number {lowest}")
    k, c = (spec.contact.stiffness, spec.contact.damping) if spec.contact is not None else (0.0, 0.0)
    source = "the spec's k, c" if stiffness is None and damping is None else \
        "options contact_stiffness/contact_damping (the spec's where not given)" + \
        ("" if native_contact else ": used by the native contact only (native_contact=true)")
    return (float(k if stiffness is None else stiffness), float(c if damping is None else damping), source)
