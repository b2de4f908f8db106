"""Packaging hook: a wheel carries the shipped data, so it runs without a checkout.

Everything else is declared in ``pyproject.toml``. The data stays where the checkout and
the other tools keep it (``resources/demo``, ``resources/demo_pictures``,
``resources/icons``); building a wheel copies those folders into the package as
``triage/resources/``, where :mod:`triage.base.resources` looks first. An editable install
(``pip install -e .``, ``make``) copies nothing and reads the checkout's folder.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
SHIPPED = ("demo", "demo_pictures", "icons")
# Scripts that made the data, and Python's caches, stay behind.
LEFT_OUT = ("*.py", "__pycache__", "*.pyc")


class BuildWithResources(build_py):
    """``build_py`` that also copies ``resources/<SHIPPED>`` into ``triage/resources``."""

    def run(self) -> None:
        """Build the packages, then add the shipped data beside them."""
        super().run()
        if getattr(self, "editable_mode", False):
            return
        target = Path(self.build_lib) / "triage" / "resources"
        for name in SHIPPED:
            source = ROOT / "resources" / name
            if not source.is_dir():
                raise SystemExit(f"setup.py: {source} is missing; the wheel would be "
                                 "incomplete")
            shutil.rmtree(target / name, ignore_errors=True)
            shutil.copytree(source, target / name, ignore=shutil.ignore_patterns(*LEFT_OUT))


setup(cmdclass={"build_py": BuildWithResources})
