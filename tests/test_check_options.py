"""`crossdyn.check` from Python: typed options (or their fields as keywords), frozen results, statuses as enums
that still read as the words check.json holds."""
import dataclasses
import json
from pathlib import Path

import pytest

import crossdyn
from crossdyn.checking import CheckOptions, CheckResult, check
from crossdyn.checking.grading import GradeOptions, GradeVerdict
from crossdyn.checking.results import CheckStatus, CheckVerdict, EntryStatus
from crossdyn.errors import InputError

FILES = Path(__file__).parent / "check_files"
BUGGY = Path(__file__).parent.parent / "examples" / "check" / "my_3r_buggy.py"


def test_options_and_keywords_give_the_same_check():
    opts = CheckOptions(states=60, random_params=3, energy=False)
    a = check("planar3r", BUGGY, opts).to_dict()
    b = crossdyn.check("planar3r", BUGGY, states=60, random_params=3, energy=False).to_dict()
    c = check("planar3r", BUGGY, CheckOptions(states=10), states=60, random_params=3, energy=False).to_dict()
    for d in (a, b, c):
        d.pop("runtime_s")
    assert a == b == c
    assert a["verdict"] == "wrong" and a["wrong_entries"]


@pytest.mark.parametrize("bad", [{"states": 0}, {"states": True}, {"random_params": -1}, {"names": "M"}])
def test_bad_options_are_input_errors_and_value_errors(bad):
    with pytest.raises(InputError):
        CheckOptions(**bad)
    with pytest.raises(ValueError):
        check("planar2r", FILES / "textbook_2r.py", **bad)


def test_names_given_as_text_are_parsed_once():
    assert CheckOptions(names="M=my_mass, G=grav").names == {"M": "my_mass", "G": "grav"}


def test_results_are_frozen_and_statuses_are_enums_that_read_as_words():
    r = check("planar3r", BUGGY, states=60, random_params=3, energy=False)
    assert isinstance(r, CheckResult) and r.verdict is CheckVerdict.WRONG and r.verdict == "wrong"
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.verdict = CheckVerdict.CORRECT
    f = r.wrong[0]
    assert f.status is EntryStatus.WRONG
    with pytest.raises(dataclasses.FrozenInstanceError):
        f.explained_by = "x"
    assert all(isinstance(s.status, CheckStatus) for s in r.structure)
    text = json.dumps(r.to_dict())
    assert '"verdict": "wrong"' in text and '"status": "ok"' in text


def test_grade_options_are_typed():
    assert GradeOptions().timeout > 0 and str(GradeVerdict.TIMEOUT) == "timeout"
    assert dataclasses.replace(GradeOptions(), jobs=2).jobs == 2
