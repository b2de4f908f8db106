"""The core stays Qt-free: nothing under triage/ may import PySide6, ui, or a Qt backend."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

CORE = Path(__file__).resolve().parent.parent / "triage"
FORBIDDEN = ("PySide6", "PyQt5", "PyQt6", "shiboken6", "ui", "matplotlib.backends.backend_qtagg",
             "matplotlib.pyplot")


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return names


def _offending(names: list[str]) -> list[str]:
    return [n for n in names if any(n == f or n.startswith(f + ".") for f in FORBIDDEN)]


def test_no_core_module_imports_qt_or_ui():
    offenders = {}
    for path in sorted(CORE.rglob("*.py")):
        bad = _offending(_imports(path))
        if bad:
            offenders[str(path.relative_to(CORE.parent))] = bad
    assert offenders == {}


def test_the_checker_catches_a_forbidden_import(tmp_path):
    # The guard above must be able to fail: feed it a module that imports Qt.
    bad = tmp_path / "bad.py"
    bad.write_text("from PySide6.QtWidgets import QWidget\nimport ui.desk\n")
    assert _offending(_imports(bad)) == ["PySide6.QtWidgets", "ui.desk"]


def test_running_a_headless_command_loads_no_qt():
    code = (
        "import sys, triage.cli.program\n"
        "triage.cli.program.build_parser()\n"
        "import triage.project.core\n"
        "print(sorted(m for m in sys.modules if m.startswith(('PySide6', 'ui'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=CORE.parent, check=True)
    assert out.stdout.strip() == "[]"
