"""The reference pages that restate facts of the code agree with the code, so that they cannot drift: the exit
statuses (docs/reference/exit-status.md against crossdyn.status), the API page (every public name documented),
the summary.json schema's fields, the engines' knobs (docs/reference/engines.md against each adapter's options)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

import crossdyn
from crossdyn.status import EXIT_TABLE, Exit

DOCS = Path(__file__).resolve().parent.parent / "docs" / "reference"


def table_rows(text: str, header: str) -> list[list[str]]:
    """The rows of the Markdown table whose header line starts with ``| header``, cells stripped."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"| {header}"))
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    return rows


def test_exit_status_page_is_the_exit_enum_and_the_help_text():
    rows = table_rows((DOCS / "exit-status.md").read_text(), "Status")
    assert [(int(r[0]), r[1].strip("`")) for r in rows] == [(int(e), e.name) for e in Exit]
    printed = {int(m.group(1)): " ".join(m.group(2).split())
               for m in re.finditer(r"^\s+(\d+)\s+(.*)$", EXIT_TABLE, re.M)}
    assert {int(r[0]): " ".join(r[2].split()) for r in rows} == printed


def test_api_page_documents_every_public_name():
    text = (DOCS / "api.md").read_text()
    documented = set(re.findall(r"^\.\. auto(?:function|class|exception|module):: ([\w.]+)", text, re.M))
    modules = {d for d in documented if re.search(r"automodule:: " + re.escape(d) + "$", text, re.M)}
    for name in crossdyn.__all__:
        if name == "__version__":
            continue
        obj = getattr(crossdyn, name)
        where = obj.__name__ if name == "analytic" else f"{obj.__module__}.{obj.__qualname__}"
        assert where in documented or obj.__module__ in modules, f"{name} ({where}) is not on docs/reference/api.md"


@pytest.mark.slow  # imports every adapter's library (12 s)
def test_engines_page_lists_exactly_each_adapters_knobs():
    """Every option an engine takes (``name@key=value``: its constructor's keywords and options dataclass,
    :func:`crossdyn.engines.registry.option_names`) has a row in docs/reference/engines.md's knob table, and
    no row names a knob the engine does not take."""
    from crossdyn.engines.registry import engine_names, entry, option_names

    rows = table_rows((DOCS / "engines.md").read_text(), "Engines")
    listed: dict[str, set[str]] = {}
    for family, knob, *_ in rows:
        listed.setdefault(family.strip("`").rstrip("*"), set()).add(knob.strip("`"))
    for name in engine_names():
        # the longest family that names it (``mujoco-warp-rk4`` is ``mujoco-warp*``'s, not ``mujoco*``'s)
        family = max((f for f in listed if name == f or name.startswith(f + "-")), key=len, default=None)
        if not entry(name).module:
            continue  # batched only (jax-*, numpy-*): no adapter, no options (test_batch_knobs checks the batch's)
        adapter = entry(name).adapter()
        if not adapter.__module__.startswith("crossdyn."):
            continue  # an engine another test registered in this process (test_reliability's faulty-nan, ...)
        takes, _ = option_names(adapter)
        if not takes:
            continue
        assert family is not None, f"engine {name}: no rows in docs/reference/engines.md's knob table"
        assert set(takes) == listed[family], (
            f"engine {name}: docs/reference/engines.md lists {sorted(listed[family])}, the adapter takes "
            f"{sorted(takes)}: add the missing rows (knob, crossdyn's setting, the engine's default)")


def test_schema_page_lists_every_top_level_field():
    import json

    schema = json.loads((DOCS.parent.parent / "crossdyn" / "comparison" / "summary.schema.json").read_text())
    rows = table_rows((DOCS / "schema.md").read_text(), "Field")
    page = {r[0].strip("`"): (r[1], r[2] == "yes") for r in rows}
    json_type = {"verdict": "string", "schema": "string"}  # a $ref to the verdict enum; a const
    truth = {name: (prop.get("type") or json_type[name], name in schema["required"])
             for name, prop in schema["properties"].items()}
    assert page == truth
