"""An engine name that switches on the engine's own limits or contact (a calibration's rerun string) is a native
run only: its applied-mode row would add crossdyn's law on top of the engine's own mechanism and count the
phenomenon twice — a FAIL of crossdyn's bookkeeping, not of the engine (before this, a pasted
``mujoco-rk4@native_limits=true@limit_solref=…`` got an applied row that failed by 0.04 rad and 1.5e4 in
inverse dynamics while its native verdict was right)."""
from __future__ import annotations

import json

import pytest

from crossdyn.cli import main
from crossdyn.engines.registry import native_mechanisms
from crossdyn.errors import InputError

pytest.importorskip("mujoco")

NATIVE = "mujoco-rk4@native_limits=true@limit_solref=0.02,1"
START = ["--profile", "zero", "--q0=-1.42,-0.075", "--qd0", "0.7,0", "--duration", "0.4"]


@pytest.mark.parametrize("name, phenomena", [
    ("mujoco", ()), ("mujoco@native_limits=false", ()), (NATIVE, ("limits",)),
    ("pybullet@native_contact=true", ("contact",)), ("dart@enforce_limits=true", ("limits",)),
    ("drake-discrete@native_contact=true@native_limits=true", ("limits", "contact")), ("user:my.py", ()),
])
def test_native_mechanisms_reads_the_engines_own_native_option(name, phenomena):
    assert native_mechanisms(name) == phenomena


def test_without_native_the_name_is_refused_before_the_run(tmp_path, capsys):
    code = main(["compare", "planar2r-limits", "--engines", f"mujoco-rk4,{NATIVE}", *START, "--quiet",
                 "--no-plots", "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert code == 2 and f"--engines: {NATIVE} runs the engine's own limits" in err and "add --native" in err
    assert "native=True" not in err  # the command line's words, not the API's
    assert not (tmp_path / "o" / "summary.json").exists()
    from crossdyn import compare

    with pytest.raises(InputError, match="native=True"):
        compare("planar2r-limits", engines=[NATIVE], duration=0.2)


def test_with_native_it_is_judged_in_the_native_section_alone(tmp_path):
    main(["compare", "planar2r-limits", "--engines", f"mujoco-rk4,{NATIVE}", "--native", *START, "--quiet",
          "--no-plots", "--out", str(tmp_path)])
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert list(summary["engines"]) == ["mujoco-rk4"]        # no applied-mode row for the native name
    assert summary["engines"]["mujoco-rk4"]["trajectory"]["verdict"] == "PASS"
    native = summary["limits"]["native"]
    assert NATIVE in native and native[NATIVE]["checked"] > 0  # its own limits, judged against the law
    assert any(n.startswith(f"{NATIVE}: runs its own limits") for n in summary["notes"])


def test_native_names_alone_are_judged_by_their_native_section(tmp_path, capsys):
    """No applied-mode run at all: the verdict rests on the native section's checks (no "no engine made a check")."""
    code = main(["compare", "planar2r-limits", "--engines", NATIVE, "--native", *START, "--quiet", "--no-plots",
                 "--out", str(tmp_path)])
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["engines"] == {} and summary["checks"]["limits"] > 0
    assert not any("no engine made a check" in line for line in summary["inconclusive"])
    assert code == 1 and summary["verdict"] == "FAIL"  # solref (0.02, 1) is not the law: a real departure
