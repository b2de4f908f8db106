"""No module of Triage reaches into another library's private names.

A private name (one leading underscore) is one a library may change in any release; code
built on it breaks on an upgrade with no warning. Checked over ``triage/`` and ``ui/``:

- no ``lib._name`` read on a third-party module (or a name imported from one);
- no import of a private module of any library, the standard one included
  (``import scipy.special._ufuncs``, ``from importlib._bootstrap import ...``,
  ``importlib.import_module("scipy.special._ufuncs")``).

Start-up measures that need care belong in :mod:`triage.base.startup`, on public names.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIRST_PARTY = {"triage", "ui", "bench", "tests", "main"}


def _private(part: str) -> bool:
    return part.startswith("_") and not part.startswith("__")


def _other(module: str) -> bool:
    return module.split(".")[0] not in FIRST_PARTY


def _third_party(module: str) -> bool:
    return _other(module) and module.split(".")[0] not in sys.stdlib_module_names


def _imported_names(tree: ast.AST) -> tuple[dict[str, str], list[tuple[int, str]]]:
    """Local names bound to third-party modules or their members, and private imports."""
    names: dict[str, str] = {}
    hits: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if _other(alias.name) and any(_private(p) for p in alias.name.split(".")):
                    hits.append((node.lineno, f"import {alias.name}"))
                if _third_party(alias.name):
                    names[alias.asname or alias.name.split(".")[0]] = alias.name
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                if _other(node.module) and any(_private(p) for p in full.split(".")):
                    hits.append((node.lineno, f"from {node.module} import {alias.name}"))
                if _third_party(node.module):
                    names[alias.asname or alias.name] = full
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant) \
                and isinstance(node.args[0].value, str):
            func = ast.unparse(node.func)
            target = node.args[0].value
            if (func.endswith("import_module") or func == "__import__") and _other(target) \
                    and any(_private(p) for p in target.split(".")):
                hits.append((node.lineno, f"{func}({target!r})"))
    return names, hits


def private_names(paths: list[Path]) -> list[str]:
    """``path:line what`` wherever a module uses another library's private name."""
    out: list[str] = []
    for path in paths:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        names, hits = _imported_names(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and _private(node.attr):
                base = node.value
                while isinstance(base, ast.Attribute):
                    base = base.value
                if isinstance(base, ast.Name) and base.id in names:
                    hits.append((node.lineno, ast.unparse(node)))
        where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name
        out += [f"{where}:{line} {what}" for line, what in sorted(set(hits))]
    return out


def test_no_module_uses_another_librarys_private_names():
    paths = sorted(p for pkg in ("triage", "ui") for p in (ROOT / pkg).rglob("*.py"))
    assert private_names(paths) == []


def test_the_check_catches_offenders(tmp_path):
    peek = tmp_path / "peek.py"
    peek.write_text(
        "import importlib\nimport numpy as np\nimport scipy.special._ufuncs\n"
        "from sqlite_utils import plugins\nfrom importlib._bootstrap import _ModuleLockManager\n"
        "from triage.base import jobs\n"
        "ufuncs = importlib.import_module('scipy.special._ufuncs')\n"
        "x = np._core, plugins._plugins_loaded, scipy.special._ufuncs._beta_ppf\n"
        "y = jobs._SHARED, np.__version__, np.array, ufuncs.ndtri\n")
    assert private_names([peek]) == [
        "peek.py:3 import scipy.special._ufuncs",
        "peek.py:5 from importlib._bootstrap import _ModuleLockManager",
        "peek.py:7 importlib.import_module('scipy.special._ufuncs')",
        "peek.py:8 np._core", "peek.py:8 plugins._plugins_loaded",
        "peek.py:8 scipy.special._ufuncs", "peek.py:8 scipy.special._ufuncs._beta_ppf"]
