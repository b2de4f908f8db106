"""How the GUI is put together: composed objects, no mixins, no import circles in ui/."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _ui_modules() -> dict[str, Path]:
    modules = {}
    for path in (ROOT / "ui").rglob("*.py"):
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        modules[name.removesuffix(".__init__")] = path
    return modules


def _imports(path: Path, name: str, modules: dict[str, Path]) -> set[str]:
    """Every ui module ``path`` imports: at the top, inside functions, for typing only."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            # ``from ui.panels import gain`` imports the submodule; ``import X`` the package.
            for alias in node.names:
                full = f"{base}.{alias.name}"
                targets.append(full if full in modules else base)
        for target in targets:
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in graph[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in graph:
        if node not in index:
            visit(node)
    return groups


def test_no_import_circles_in_ui_counting_lazy_and_typing_imports():
    modules = _ui_modules()
    graph = {name: _imports(path, name, modules) for name, path in modules.items()}
    assert _circles(graph) == []
    # The check sees lazy and typing-only imports: the old circle is found when planted.
    planted = {**graph, "ui.lead_report": graph["ui.lead_report"] | {"ui.lead_window"}}
    assert _circles(planted) == [["ui.lead_report", "ui.lead_window"]]


def test_the_main_window_composes_objects_and_nothing_in_ui_is_a_mixin():
    from PySide6.QtWidgets import QMainWindow

    from ui.main_window import MainWindow

    assert MainWindow.__bases__ == (QMainWindow,)
    mixins = [f"{path.name}:{node.name}" for path in _ui_modules().values()
              for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
              if isinstance(node, ast.ClassDef) and node.name.endswith("Mixin")]
    assert mixins == []
