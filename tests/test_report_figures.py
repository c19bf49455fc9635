"""Every figure the compare and identify reports make, measured after matplotlib draws it (tests/figure_layout.py):
no two texts overlap by more than 2 px (tick labels, axis labels, titles, legends, annotations), no axes is
empty, every axis that shows a scale is labelled, and the identification's 12 RLS series have 12 colours."""
import itertools

import matplotlib
import numpy as np
import pytest
from matplotlib.colors import to_rgb

from crossdyn.comparison.compare import compare
from crossdyn.engines import available_engines
from crossdyn.identification import identify
from crossdyn.identification import report as id_report
from crossdyn.models import get_preset
from crossdyn.reporting import make_plots
from crossdyn.reporting.figures import PALETTE, place_labels
from figure_layout import captured_figures, empty_axes, line_colours, overlapping_texts, unlabelled_axes

matplotlib.use("Agg")
DTS = (4e-3, 2e-3, 1e-3, 5e-4)


def _layout_faults(figs: dict) -> list[str]:
    faults = []
    for name, fig in figs.items():
        faults += [f"{name}: {f}" for f in overlapping_texts(fig)]
        faults += [f"{name}: axes {k} is empty" for k in empty_axes(fig)]
        faults += [f"{name}: {f}" for f in unlabelled_axes(fig)]
    return faults


def _compare_figures(monkeypatch, engines, arm="planar3r", duration=0.3, **kw) -> dict:
    """The figures of a real comparison (planar3r unless ``arm``), by file name, as the report code saved them."""
    cmp = compare(arm, duration=duration, engines=engines, n_states=20, jobs=1, **kw)
    with captured_figures(monkeypatch) as seen:
        names = list(make_plots(cmp, animation=False))
    assert len(names) == len(seen)
    return dict(zip(names, seen, strict=True))


def test_coinciding_points_share_a_label_and_no_label_covers_another_text():
    """An error-controlled engine's dt study: four points on one spot get one label ``4, 2, 1, 0.5 ms`` (the
    report printed "1 2ms4ms" over each other); spread points keep their own; nothing overlaps."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    drake = [(0.45, 2e-11), (0.451, 2.01e-11), (0.452, 2e-11), (0.46, 2e-11)]
    mujoco = [(1e-3, 3e-2), (2e-3, 1.6e-2), (4e-3, 8e-3), (8e-3, 4e-3)]
    for pts in (drake, mujoco):
        ax.loglog(*np.array(pts).T, "o-")
    ax.set(xlabel="compute time per simulated second [s]", ylabel="max error [rad]", title="speed–accuracy")
    dts = ["4", "2", "1", "0.5"]
    place_labels(ax, [(drake, dts, "C0", "drake"), (mujoco, dts, "C1", "mujoco")], unit="ms")
    texts = sorted(t.get_text() for t in ax.texts)
    assert texts == sorted(["4, 2, 1, 0.5 ms", "4 ms", "2 ms", "1 ms", "0.5 ms"])
    assert overlapping_texts(fig) == []
    plt.close(fig)


def test_tick_labels_beyond_a_log_axis_limit_are_not_counted_as_drawn():
    """A 10^-12 tick sits below a log axis that starts at 8e-12: matplotlib does not draw its label, and
    :func:`tick_labels` must not count it (an absolute slack of 1e-9 of the largest limit once took it for a
    drawn label overlapping the x axis' 10^-3: a false layout fault in CI)."""
    import matplotlib.pyplot as plt

    from crossdyn.reporting.figures import tick_labels

    fig, ax = plt.subplots()
    ax.loglog([6.8e-4, 0.7], [8e-12, 0.09])
    ax.set_ylim(8e-12, 0.09)
    fig.canvas.draw()
    texts = {lab.get_text() for lab in tick_labels(ax.yaxis)}
    assert "$\\mathdefault{10^{-12}}$" not in texts and "$\\mathdefault{10^{-10}}$" in texts, texts
    plt.close(fig)


@pytest.mark.slow  # the fast tier's 7-minute budget (.ci/run runs the slow tier)
def test_compare_figures_have_no_overlapping_text_no_empty_axes_and_labelled_axes(monkeypatch):
    """planar3r with the dt study at 4, 2, 1 and 0.5 ms (speed–accuracy labels beside each point)."""
    figs = _compare_figures(monkeypatch, ["mujoco", "pybullet"], convergence_dts=DTS)
    assert {"arm.png", "angles.png", "error.png", "energy.png", "id_error_hist.png", "convergence.png"} <= set(figs)
    assert _layout_faults(figs) == []
    labels = " ".join(t.get_text() for t in figs["convergence.png"].axes[1].texts)
    for dt in ("4", "2", "1", "0.5"):  # every dt is named beside its point(s)
        assert dt in labels.replace(" ms", "").replace(",", " ").split()


@pytest.mark.slow
@pytest.mark.skipif("drake" not in available_engines(), reason="pydrake is not installed")
def test_speed_accuracy_labels_of_drake_do_not_overlap(monkeypatch):
    """Drake's error-controlled RK3 gives about the same error and cost at every dt: its points (nearly) coincide,
    and share labels (``4, 2, 1, 0.5 ms``, or split where timing noise moves a point apart)."""
    from matplotlib.colors import to_rgba

    figs = _compare_figures(monkeypatch, ["drake", "mujoco"], convergence_dts=DTS)
    assert overlapping_texts(figs["convergence.png"]) == []
    drake = [t.get_text() for t in figs["convergence.png"].axes[1].texts if to_rgba(t.get_color()) == to_rgba(PALETTE[0])]
    named = sorted(x for label in drake for x in label.removesuffix(" ms").split(", "))
    assert named == sorted(["4", "2", "1", "0.5"]), drake


@pytest.mark.slow
def test_sensitivity_figure_is_laid_out(monkeypatch):
    """``compare --derivatives``: the gradients-through-time figure (reference size, engines' relative difference)."""
    pytest.importorskip("pinocchio")
    figs = _compare_figures(monkeypatch, ["pinocchio", "mujoco"], duration=0.2, derivatives=True)
    assert "sensitivity.png" in figs
    assert _layout_faults({"sensitivity.png": figs["sensitivity.png"]}) == []
    assert len(figs["sensitivity.png"].axes[1].get_lines()) == 1 + 3  # the 1e-3 line; pinocchio x 2, mujoco x 1


@pytest.mark.slow
@pytest.mark.parametrize("arm, duration, figures", [
    ("planar2r-limits", 1.2, {"limit_angles.png", "limit_torque.png"}),
    ("planar3r-friction", 0.5, {"stick_slip.png"}),
    ("planar2r-floor", 0.8, {"contact.png", "tip_path.png"})])
def test_phenomenon_figures_are_laid_out(monkeypatch, arm, duration, figures):
    """The figures of joint limits, Coulomb friction and contact, on the presets that have them."""
    figs = _compare_figures(monkeypatch, ["mujoco", "pybullet"], arm=arm, duration=duration)
    assert figures <= set(figs)
    assert _layout_faults(figs) == []


def test_a_study_that_was_not_run_gets_no_figure(monkeypatch):
    """No dt study: no convergence figure (not an empty frame), and no figure with an empty axes."""
    figs = _compare_figures(monkeypatch, ["mujoco"], convergence_dts=())
    assert "convergence.png" not in figs
    assert all(not empty_axes(f) for f in figs.values())


def test_identification_figures_are_laid_out_and_its_12_parameters_have_12_colours():
    res = identify(get_preset("planar3r"), engine=None, optimise=False, duration=2.0)
    assert res.base.r == 12
    figs = {"fit.png": id_report.fit_figure(res), "rls.png": id_report.rls_figure(res)}
    assert _layout_faults(figs) == []
    colours = [to_rgb(c) for c in line_colours(figs["rls.png"].axes[0])]
    assert len(colours) == 12
    # pairwise distinct, and not merely by a shade: RGB distance at least 0.25 (of at most 1.73; matplotlib's ten
    # colours are 0.26 apart at the closest, brown and grey)
    closest = min(np.linalg.norm(np.subtract(a, b)) for a, b in itertools.combinations(colours, 2))
    assert closest > 0.25, closest
    assert [to_rgb(c) for c in PALETTE] == [to_rgb(c) for c in id_report.SERIES_COLOURS]


@pytest.mark.skipif("drake" not in available_engines(), reason="pydrake is not installed")
def test_sweep_speed_accuracy_labels_do_not_overlap(monkeypatch, tmp_path):
    """A sweep's speed–accuracy plot: every engine's point per dt labelled, no label over another text, with
    Drake's (nearly) coinciding points (real engines, the chunks run in this process)."""
    pytest.importorskip("duckdb")
    from crossdyn.sweeps.plan import plan_chunks, run_chunk
    from crossdyn.sweeps.report import write_report
    from crossdyn.sweeps.rows import to_parquet_bytes
    from crossdyn.sweeps.sweepfile import load_sweep

    (tmp_path / "s.toml").write_text('arms = ["planar2r"]\nengines = ["drake", "mujoco", "pinocchio"]\n'
                                     "dt = [0.004, 0.002, 0.001]\nduration = 0.1\nstates = 5\n")
    rows = [r for c in plan_chunks(load_sweep(tmp_path / "s.toml")) for r in run_chunk(c)]
    (tmp_path / "out" / "results").mkdir(parents=True)
    (tmp_path / "out" / "results" / "chunk-0.parquet").write_bytes(to_parquet_bytes(rows))
    with captured_figures(monkeypatch) as seen:
        write_report(tmp_path / "out")
    pareto = seen[0]
    assert pareto.axes[0].get_xlabel().startswith("compute time")
    assert _layout_faults({"sweep_pareto.png": pareto}) == []
    named = [x for t in pareto.axes[0].texts for x in t.get_text().split(", ")]
    assert sorted(named) == sorted(["0.004", "0.002", "0.001"] * 3)
