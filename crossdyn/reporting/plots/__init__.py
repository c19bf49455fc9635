"""The report's figures, one module per subject: the arm (drawing, animation), the motion (angles, tracking,
error, energy), accuracy (inverse-dynamics error, convergence, speed–accuracy), joint limits, friction
(stick/slip timeline) and contact (applied and native)."""
from __future__ import annotations

from crossdyn.reporting.figures import EngineLooks, desired_motion, driven_runs
from crossdyn.reporting.plots.accuracy import convergence_plot, id_error_plot
from crossdyn.reporting.plots.arm import animation_gif, draw_arm
from crossdyn.reporting.plots.contact import contact_plots, native_contact_plots
from crossdyn.reporting.plots.friction import stick_slip_plot, stick_slip_timelines
from crossdyn.reporting.plots.limits import limit_plots
from crossdyn.reporting.plots.motion import angles_plot, energy_plot, error_plot, tracking_plot
from crossdyn.reporting.plots.sensitivity import sensitivity_plot

PLOTS = ("arm.png", "angles.png", "tracking.png", "error.png", "energy.png", "id_error_hist.png", "convergence.png",
         "animation.gif", "limit_angles.png", "limit_torque.png", "stick_slip.png", "contact.png", "tip_path.png",
         "native_contact.png", "sensitivity.png")
"""Every figure a report may hold (tracking.png for closed-loop profiles only; energy.png, id_error_hist.png and
convergence.png only where their study ran: no convergence figure on an arm with contact, limits or applied
friction, whose convergence study is not run; sensitivity.png with ``--derivatives`` only)."""


def make_plots(cmp, animation: bool = True) -> dict[str, bytes]:
    """The report's figures as file name → bytes, in the order of :data:`PLOTS` (those that apply to this arm,
    profile and run)."""
    import matplotlib

    matplotlib.use("Agg")
    spec = cmp.spec
    runs = driven_runs(cmp)
    looks = EngineLooks.of(cmp)
    out: dict[str, bytes] = {"arm.png": draw_arm(spec, cmp.q0, f"{spec.name} at the start q0")}
    desired = desired_motion(cmp, cmp.reference.t)
    out["angles.png"] = angles_plot(cmp, runs, looks, desired)
    if desired is not None:
        out["tracking.png"] = tracking_plot(cmp, runs, looks)
    out["error.png"] = error_plot(cmp, runs, looks)
    for name, figure in (("energy.png", energy_plot(cmp, looks)), ("id_error_hist.png", id_error_plot(cmp, looks)),
                         ("convergence.png", convergence_plot(cmp, looks))):
        if figure is not None:  # a study that was not run (or nothing it could draw) gets no figure
            out[name] = figure
    if animation:
        out["animation.gif"] = animation_gif(cmp, runs, looks)
    out.update(limit_plots(cmp))
    out.update(stick_slip_plot(cmp))
    out.update(contact_plots(cmp, looks.colors, looks.styles))
    out.update(native_contact_plots(cmp))
    figure = sensitivity_plot(cmp)
    if figure is not None:
        out["sensitivity.png"] = figure
    return out


__all__ = ["PLOTS", "make_plots", "draw_arm", "animation_gif", "angles_plot", "tracking_plot", "error_plot",
           "energy_plot", "id_error_plot", "convergence_plot", "limit_plots", "stick_slip_plot",
           "stick_slip_timelines", "contact_plots", "native_contact_plots", "sensitivity_plot"]
