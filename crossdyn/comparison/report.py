"""Deprecated: the comparison's report moved to :mod:`crossdyn.reporting` (plots per subject, report blocks,
Markdown/HTML rendering, file output).  This module only re-exports its names, including the former private
helpers some code imported (``_limit_blocks`` is now ``limit_blocks``, …), and warns.

It points up a level (comparison 8 → reporting 9); ``tests/test_layout.py`` lists it in ``SHIMS`` (nothing in
``crossdyn/`` may import it).
"""
import warnings

from crossdyn.reporting import (COINCIDE_RAD, METRICS, PLOTS, PROFILE_UNITS, STYLES, arm_blocks, coincidences,
                                contact_native_blocks, contact_plots, control_blocks, draw_arm, draw_obstacles,
                                engine_result, friction_blocks, limit_plots, make_plots, native_contact_plots,
                                native_limit_blocks, profile_parameters, render_html, render_markdown,
                                report_blocks, stick_slip_plot, stick_slip_timelines, timeseries, write_outputs)
from crossdyn.reporting.blocks import armature_blocks as _armature_blocks
from crossdyn.reporting.blocks import contact_blocks as _contact_blocks
from crossdyn.reporting.blocks import effort_blocks as _effort_blocks
from crossdyn.reporting.blocks import fmt as _fmt
from crossdyn.reporting.blocks import limit_blocks as _limit_blocks
from crossdyn.reporting.blocks import mark as _mark
from crossdyn.reporting.blocks import vec as _vec
from crossdyn.reporting.figures import desired_motion
from crossdyn.reporting.figures import half_plane_polygon as _half_plane_polygon
from crossdyn.reporting.figures import label as _label
from crossdyn.reporting.figures import legend_outside as _legend_outside
from crossdyn.reporting.figures import png as _png

warnings.warn("crossdyn.comparison.report moved to crossdyn.reporting", DeprecationWarning, stacklevel=2)

__all__ = ["COINCIDE_RAD", "METRICS", "PLOTS", "PROFILE_UNITS", "STYLES", "arm_blocks", "coincidences",
           "contact_native_blocks", "contact_plots", "control_blocks", "desired_motion", "draw_arm",
           "draw_obstacles", "engine_result", "friction_blocks", "limit_plots", "make_plots", "native_contact_plots",
           "native_limit_blocks", "profile_parameters", "render_html", "render_markdown", "report_blocks",
           "stick_slip_plot", "stick_slip_timelines", "timeseries", "write_outputs", "_armature_blocks",
           "_contact_blocks", "_effort_blocks", "_fmt", "_half_plane_polygon", "_label", "_legend_outside",
           "_limit_blocks", "_mark", "_png", "_vec"]
