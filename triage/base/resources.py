"""Where the data shipped with Triage lives: the demo pool, the picture demo, the icon.

In a checkout (and an editable install) that is the repository's ``resources/`` folder. A
wheel (``pip install .``, ``pipx install .``) has no checkout: its build copies the same
folders into the package as ``triage/resources/`` (see ``setup.py``), which is looked at
first.
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parents[1]


def resource_dir() -> Path:
    """The folder holding ``demo/``, ``demo_pictures/`` and ``icons/``."""
    packaged = _PACKAGE / "resources"
    return packaged if packaged.is_dir() else _PACKAGE.parent / "resources"


def resource(*parts: str) -> Path:
    """The path of one shipped file or folder, e.g. ``resource("demo", "idioms.csv")``."""
    return resource_dir().joinpath(*parts)
