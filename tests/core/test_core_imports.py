"""core holds no import circle, and no import hidden inside a function to dodge one (issue 24).

The one kind of import a function may make is a compiled kernel's, loaded on the first solve
so that numba's import (about a second) is paid by a solve, not by `rigedit --help`. The
solvers' package, ik/, is held to the same rule."""
from __future__ import annotations

import ast
from pathlib import Path

import grimp

CORE = Path(__file__).resolve().parents[2] / "rigedit" / "core"
# Modules a function may import on first use: the compiled kernels.
LAZY = ("kernel", "fabrik_limited")


def _in_core(name: str) -> bool:
    return name.startswith("rigedit.core.")


def test_no_import_circle_in_core():
    graph = grimp.build_graph("rigedit")
    circles = []
    for module in sorted(m for m in graph.modules if _in_core(m)):
        for imported in graph.find_modules_directly_imported_by(module):
            if not _in_core(imported) or imported == module:
                continue
            back = graph.find_shortest_chain(importer=imported, imported=module)
            if back is not None and all(_in_core(m) or m == "rigedit.core" for m in back):
                circles.append((module,) + tuple(back))
    assert not circles, "\n".join(" -> ".join(c) for c in circles)


def test_no_import_inside_a_function_in_core():
    hidden = []
    for path in sorted(CORE.rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        for fn in ast.walk(tree):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(fn):
                if isinstance(node, ast.ImportFrom):
                    names = [(node.module or "")] + [a.name for a in node.names]
                elif isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                else:
                    continue
                if not any(lazy in n for n in names for lazy in LAZY):
                    hidden.append(f"{path.relative_to(CORE)}:{node.lineno}")
    assert not hidden, hidden
