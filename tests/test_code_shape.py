"""The shape rules, read from the source with ``ast``: no function in ``crossdyn/`` longer than 80 lines
(``end_lineno - lineno + 1``, docstring included), none with more than 8 parameters (``self``/``cls`` aside,
``*args``/``**kwargs`` count one each), no module over 600 lines.

:data:`EXEMPT` names the few that keep their shape on purpose, each with the reason.
"""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "crossdyn"
MAX_LINES, MAX_PARAMS, MAX_MODULE = 80, 8, 600

# "path:function" -> why it keeps its length or its parameters
EXEMPT: dict[str, str] = {}


def functions():
    for p in sorted(ROOT.rglob("*.py")):
        tree = ast.parse(p.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                yield f"{p.relative_to(ROOT)}:{node.name}", node


def n_params(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    a = node.args
    names = [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs if x.arg not in ("self", "cls")]
    return len(names) + (a.vararg is not None) + (a.kwarg is not None)


def test_no_function_longer_than_80_lines():
    bad = [f"{k} ({node.end_lineno - node.lineno + 1} lines)" for k, node in functions()
           if node.end_lineno - node.lineno + 1 > MAX_LINES and k not in EXEMPT]
    assert not bad, "split these functions:\n  " + "\n  ".join(bad)


def test_no_function_with_more_than_8_parameters():
    bad = [f"{k} ({n_params(node)} parameters)" for k, node in functions()
           if n_params(node) > MAX_PARAMS and k not in EXEMPT]
    assert not bad, "group these parameters (an options dataclass):\n  " + "\n  ".join(bad)


def test_no_module_over_600_lines():
    bad = [f"{p.relative_to(ROOT)} ({n} lines)" for p in sorted(ROOT.rglob("*.py"))
           if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_MODULE]
    assert not bad, "split these modules:\n  " + "\n  ".join(bad)


def test_every_exemption_is_still_needed_and_says_why():
    found = {k: node for k, node in functions()}
    stale = [k for k in EXEMPT if k not in found
             or (found[k].end_lineno - found[k].lineno + 1 <= MAX_LINES and n_params(found[k]) <= MAX_PARAMS)]
    assert not stale, f"exemptions no longer needed: {stale}"
    assert all(len(why) > 20 for why in EXEMPT.values())


def test_the_rules_can_fail():
    tree = ast.parse("def f(a, b, c, d, e, f, g, h, i):\n" + "    x = 1\n" * 80)
    node = tree.body[0]
    assert n_params(node) == 9 and node.end_lineno - node.lineno + 1 == 81
