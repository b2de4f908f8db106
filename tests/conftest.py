"""Test set-up: Qt renders offscreen, every test gets its own data directory."""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("MPLBACKEND", "Agg")

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _isolated_user_dirs(tmp_path_factory, monkeypatch):
    """Keep the app's data/config (recent projects, demo, logs) out of the real home."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("TRIAGE_DATA_DIR", str(home / "data"))
    monkeypatch.setenv("TRIAGE_CONFIG_DIR", str(home / "config"))
    yield
    # A GUI test hands collection to the GUI thread (ui.gui_collector); the next test starts
    # from the plain collector, whatever ran before it on this worker.
    collector = sys.modules.get("ui.gui_collector")
    if collector is not None:
        collector.stop_collecting_on_gui_thread()
