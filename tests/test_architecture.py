"""The house rules a reader relies on: small modules, short functions, no import circles.

The layer contracts themselves are import-linter's (``lint-imports`` in ``make test``);
these checks cover what it does not. Import circles count every import: at the top of a
module, inside a function (lazy), and under ``if TYPE_CHECKING:``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("triage", "ui")
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 60
LONG_REASON = "# long:"


def _sources(root: Path = ROOT) -> list[Path]:
    return sorted(p for pkg in PACKAGES for p in (root / pkg).rglob("*.py"))


def oversized_modules(paths: list[Path], limit: int = MAX_MODULE_LINES) -> list[str]:
    """``path: N lines`` for every module longer than ``limit`` lines."""
    out = []
    for path in paths:
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > limit:
            out.append(f"{path.name}: {lines} lines")
    return out


def long_functions(paths: list[Path], limit: int = MAX_FUNCTION_LINES) -> list[str]:
    """``path:line name (N lines)`` for functions over ``limit`` lines with no stated reason.

    A long function is allowed when a ``# long: <reason>`` comment sits in its first lines.
    """
    out = []
    for path in paths:
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        for node in ast.walk(ast.parse(text, filename=str(path))):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            head = "\n".join(lines[node.lineno - 1:node.lineno + 15])
            if length > limit and LONG_REASON not in head:
                out.append(f"{path.relative_to(path.parents[1])}:{node.lineno} {node.name} "
                           f"({length} lines)")
    return out


def import_cycles(*packages: str) -> list[list[str]]:
    """Strongly connected groups of modules that import each other, counting every import."""
    graph = grimp.build_graph(*packages, cache_dir=None, exclude_type_checking_imports=False)
    modules = sorted(graph.modules)
    edges = {m: sorted(graph.find_modules_directly_imported_by(m)) for m in modules}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []
    counter = 0

    def visit(start: str) -> None:
        # Iterative Tarjan: a recursive one would hit Python's limit on deep chains.
        nonlocal counter
        work = [(start, iter(edges.get(start, ())))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(edges.get(child, ()))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    cycles.append(sorted(group))

    for module in modules:
        if module not in index:
            visit(module)
    return cycles


# Private names of other libraries that Triage reads on purpose, each with its reason.
THIRD_PARTY_PRIVATE = {
    "argparse._SubParsersAction": "the type add_subparsers() returns (annotations only)",
    "os._exit": "a forked child ends without the parent's exit handlers (report/side.py)",
}


def private_reads(paths: list[Path], allowed: dict[str, str] | None = None) -> list[str]:
    """``path:line expr`` wherever code reads ``x._name`` of an object other than self/cls."""
    allowed = THIRD_PARTY_PRIVATE if allowed is None else allowed
    out: list[tuple[str, int, str]] = []
    for path in paths:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Attribute) or not node.attr.startswith("_") \
                    or (node.attr.startswith("__") and node.attr.endswith("__")):
                continue
            if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
                continue
            expr = ast.unparse(node)
            if expr not in allowed:
                out.append((str(path.relative_to(path.parents[1])), node.lineno, expr))
    return [f"{name}:{line} {expr}" for name, line, expr in sorted(out)]


def test_no_module_reads_another_objects_private_attributes():
    assert private_reads(sorted((ROOT / "triage").rglob("*.py"))) == []


def test_no_module_is_over_400_lines():
    assert oversized_modules(_sources()) == []


def test_no_function_is_over_60_lines_without_a_reason():
    assert long_functions(_sources()) == []


def test_no_import_circles_in_triage():
    assert import_cycles("triage") == []


def test_no_import_circles_in_triage_and_ui_together():
    assert import_cycles(*PACKAGES) == []


# -- the guards above must be able to fail ---------------------------------------------


def test_the_size_checks_catch_offenders(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    big = pkg / "big.py"
    body = "\n".join(f"    x{i} = {i}" for i in range(70))
    big.write_text("def long_one():\n" + body + "\n" + "\n" * 340 + "y = 1\n")
    excused = pkg / "excused.py"
    excused.write_text("def long_two():\n    # long: a table of constants\n" + body + "\n")
    assert oversized_modules([big, excused]) == ["big.py: 412 lines"]
    assert long_functions([big, excused]) == ["pkg/big.py:1 long_one (71 lines)"]


def test_the_cycle_check_catches_a_circle(tmp_path, monkeypatch):
    pkg = tmp_path / "circle_pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from circle_pkg import b\n")
    (pkg / "b.py").write_text("from circle_pkg import a\n")
    # Lazy and annotation-only imports close circles too.
    (pkg / "c.py").write_text("def f():\n    from circle_pkg import d\n")
    (pkg / "d.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                              "    from circle_pkg import c\n")
    (pkg / "e.py").write_text("from circle_pkg import a\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert import_cycles("circle_pkg") == [["circle_pkg.a", "circle_pkg.b"],
                                           ["circle_pkg.c", "circle_pkg.d"]]


def test_the_private_read_check_catches_offenders(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "peek.py").write_text(
        "class A:\n    def f(self, other):\n        self._mine = other._theirs\n"
        "        return cls_of(self).__name__, self._mine\n"
        "def g(project):\n    project._live = None\n    return project.state._ranks()\n")
    assert private_reads([pkg / "peek.py"]) == [
        "pkg/peek.py:3 other._theirs", "pkg/peek.py:6 project._live",
        "pkg/peek.py:7 project.state._ranks"]


@pytest.mark.parametrize("package", PACKAGES)
def test_every_package_folder_has_an_init(package):
    # A folder without __init__.py would hide its modules from the contracts above.
    folders = {p.parent for p in (ROOT / package).rglob("*.py")}
    assert sorted(str(f.relative_to(ROOT)) for f in folders
                  if not (f / "__init__.py").exists()) == []
