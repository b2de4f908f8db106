"""How the GUI is put together: composed objects, no mixins.

Import circles in ui/ (lazy and typing-only imports counted) are checked with the rest of
the project in tests/test_architecture.py.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_main_window_composes_objects_and_nothing_in_ui_is_a_mixin():
    from PySide6.QtWidgets import QMainWindow

    from ui.main_window import MainWindow

    assert MainWindow.__bases__ == (QMainWindow,)
    mixins = [f"{path.name}:{node.name}" for path in (ROOT / "ui").rglob("*.py")
              for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
              if isinstance(node, ast.ClassDef) and node.name.endswith("Mixin")]
    assert mixins == []
