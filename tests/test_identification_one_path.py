"""Issue 37 ("one plant"): planar and spatial arms go through one identification driver, one result type and one
report writer; the spatial module keeps only the spatial kind's adapter."""
from __future__ import annotations

import ast
import importlib
import json
from pathlib import Path

import numpy as np

from crossdyn.identification import report as R
from crossdyn.identification.result import IdentificationResult
from crossdyn.models import get_preset

I = importlib.import_module("crossdyn.identification.identify")  # the module (the package re-exports the function)
ROOT = Path(__file__).resolve().parent.parent
MERGED = {"table_lines", "SpatialIdentification", "SpatialIdentifyOptions", "identify_spatial", "judgement",
          "inside", "relative_errors", "parameters", "to_summary", "checks", "_estimate", "_collect"}
"""Names the spatial path defined for itself before the merge; none may come back in spatial_identify.py."""


def _defined(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    return {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef))} | \
        {t.id for n in ast.walk(tree) if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}


def test_spatial_module_no_longer_defines_the_merged_names():
    spatial = _defined(ROOT / "crossdyn" / "identification" / "spatial_identify.py")
    assert spatial & MERGED == set()
    assert "SpatialPlant" in spatial            # what it keeps: the spatial kind's adapter
    cli = _defined(ROOT / "crossdyn" / "cli" / "identify_spatial.py")
    assert "run_spatial" not in cli and "run" not in cli


def _driver_calls(monkeypatch) -> list:
    calls = []
    real = I._fit_simulated

    def spy(plant, *a, **k):
        calls.append(plant.kind)
        return real(plant, *a, **k)

    monkeypatch.setattr(I, "_fit_simulated", spy)
    return calls


def test_both_kinds_go_through_one_driver_to_one_result(monkeypatch, tmp_path):
    calls = _driver_calls(monkeypatch)
    planar = I.identify(get_preset("planar2r"), None, optimise=False, duration=1.0)
    spatial = I.identify(get_preset("rp-polar", spatial=True).to_robot_model(), None, duration=1.0)
    assert calls == ["planar", "spatial"]
    assert type(planar) is type(spatial) is IdentificationResult
    assert (planar.kind, spatial.kind) == ("planar", "spatial")
    for res in (planar, spatial):
        assert res.judgement()[0].value == "PASS"     # noise-free: every true value recovered
        assert np.max(res.relative_errors()) <= 1e-6
        assert res.checks()["parameters_compared_to_truth"] == res.base.r
    assert planar.rls_trace is not None and spatial.rls_trace is None
    # one report writer: each kind's files, the table through the same function
    p = R.write_outputs(planar, tmp_path / "p")
    s = R.write_outputs(spatial, tmp_path / "s")
    assert p["report"].name == s["report"].name == "identify.html"      # identify ROBOT writes HTML too (issue 38)
    page = s["html"].read_text()
    assert "<h1>crossdyn identify: " in page and "— PASS" in page.split("</h1>")[0]   # the verdict in the title
    assert page.index("<h2>Summary") < page.index("<h2>Plots") and page.count("data:image/png;base64,") == 1
    assert "rls.png" not in page and (tmp_path / "s" / "fit.png").is_file()    # no RLS trace on a spatial arm
    assert "kind" not in json.loads(p["json"].read_text())
    assert json.loads(s["json"].read_text())["kind"] == "spatial"
    assert R.table_lines(spatial)[0].split()[0] == "symbol" and R.table_lines(spatial)[0].endswith("parameter")
    assert all(line.strip() in s["md"].read_text() for line in R.table_lines(spatial))


def test_the_spatial_plant_refuses_what_it_lacks():
    import pytest

    from crossdyn.identification.data import DataError, NoiseModel

    model = get_preset("rp-polar", spatial=True).to_robot_model()
    with pytest.raises(DataError, match="torque noise only"):
        I.identify(model, None, duration=0.5, noise=NoiseModel(encoder=1e-4))
    with pytest.raises(DataError, match="engine"):
        I.identify(model, "mujoco", duration=0.5)
    with pytest.raises(DataError, match="simulated data only"):
        I.identify(model, None, csv="x.csv")
