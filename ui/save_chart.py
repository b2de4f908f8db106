"""The one "Save chart…" dialog every chart uses (PNG or SVG, chosen by extension)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtWidgets import QMessageBox, QWidget

from ui.file_dialogs import ask_path, start_folder


def project_folder(widget: QWidget) -> Path:
    """The open project's folder, as the widget's window knows it (desk or lead window);
    never the folder the program was started from."""
    current = getattr(widget.window(), "current_project", None)
    project = current() if callable(current) else None
    path = getattr(project, "path", None)
    return start_folder(path if isinstance(path, Path) else None)


def save_chart_dialog(parent: QWidget, title: str, save: Callable[[str], object]) -> None:
    """Ask where to save the chart titled ``title`` and call ``save(path)``."""
    name = title.lower().replace(" ", "-").replace("/", "-")
    suggested = project_folder(parent) / f"{name}.png"
    path, _ = ask_path(parent, f"Save chart – {title}", str(suggested),
                       "PNG image (*.png);;SVG drawing (*.svg)", saving=True)
    if not path:
        return
    if Path(path).suffix.lower() not in (".png", ".svg"):
        path += ".png"
    try:
        save(path)
    except (OSError, ValueError) as error:
        QMessageBox.warning(parent, "Chart not saved", f"Could not save {path}: {error}")
