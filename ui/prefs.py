"""Per-user preferences (QSettings, INI file) and the user's data directory.

``TRIAGE_CONFIG_DIR`` and ``TRIAGE_DATA_DIR`` override the platform locations (tests and
screenshots use them so nothing touches the real home directory).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import platformdirs
from PySide6.QtCore import QByteArray, QSettings

APP = "triage"
MAX_RECENT = 10


def config_dir() -> Path:
    env = os.environ.get("TRIAGE_CONFIG_DIR")
    return Path(env) if env else Path(platformdirs.user_config_dir(APP))


def data_dir() -> Path:
    env = os.environ.get("TRIAGE_DATA_DIR")
    return Path(env) if env else Path(platformdirs.user_data_dir(APP))


def log_path() -> Path:
    return data_dir() / "triage.log"


class Prefs:
    """Recent projects, last project, font zoom, window layout, last annotator per project.

    Values are stored as JSON text: INI files lose the types of lists and numbers.
    """

    def __init__(self, path: Path | None = None):
        path = path or config_dir() / "triage.ini"
        path.parent.mkdir(parents=True, exist_ok=True)
        self.qsettings = QSettings(str(path), QSettings.Format.IniFormat)

    def _get(self, key: str, default: Any) -> Any:
        raw = self.qsettings.value(key)
        if raw is None:
            return default
        try:
            return json.loads(str(raw))
        except ValueError:
            return default

    def _set(self, key: str, value: Any) -> None:
        self.qsettings.setValue(key, json.dumps(value))
        self.qsettings.sync()

    # -- projects --------------------------------------------------------------------
    def recent_projects(self) -> list[str]:
        value = self._get("recent_projects", [])
        return [str(p) for p in value] if isinstance(value, list) else []

    def add_recent(self, path: str | Path) -> None:
        path = str(Path(path).resolve())
        recent = [p for p in self.recent_projects() if p != path]
        self._set("recent_projects", [path, *recent][:MAX_RECENT])
        self._set("last_project", path)

    def last_project(self) -> str | None:
        value = self._get("last_project", None)
        return str(value) if value else None

    def last_annotator(self, project: str | Path) -> str | None:
        names = self._get("last_annotators", {})
        value = names.get(str(Path(project).resolve())) if isinstance(names, dict) else None
        return str(value) if value else None

    def set_last_annotator(self, project: str | Path, name: str) -> None:
        names = self._get("last_annotators", {})
        if not isinstance(names, dict):
            names = {}
        names[str(Path(project).resolve())] = name
        self._set("last_annotators", names)

    # -- view ------------------------------------------------------------------------
    def font_zoom(self) -> int:
        """Steps of zoom on the candidate text (0 = default size)."""
        value = self._get("font_zoom", 0)
        return int(value) if isinstance(value, int | float) else 0

    def set_font_zoom(self, steps: int) -> None:
        self._set("font_zoom", int(steps))

    def drawer_hidden(self) -> bool:
        """Is the guidelines and history pane under the desk collapsed?"""
        return bool(self._get("drawer_hidden", False))

    def set_drawer_hidden(self, hidden: bool) -> None:
        self._set("drawer_hidden", bool(hidden))

    def lead_tab(self) -> str:
        """The title of the lead window's tab that was open last."""
        return str(self._get("lead_tab", "Overview"))

    def set_lead_tab(self, title: str) -> None:
        self._set("lead_tab", str(title))

    def curator(self) -> str:
        """The name the lead rules under in the adjudication tab ('' until given)."""
        return str(self._get("curator", ""))

    def set_curator(self, name: str) -> None:
        self._set("curator", name.strip())

    def layout(self, name: str) -> QByteArray | None:
        value = self.qsettings.value(f"layout/{name}")
        return value if isinstance(value, QByteArray) and not value.isEmpty() else None

    def set_layout(self, name: str, state: QByteArray) -> None:
        self.qsettings.setValue(f"layout/{name}", state)
        self.qsettings.sync()
