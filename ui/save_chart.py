"""The one "Save chart…" dialog every chart uses (PNG or SVG, chosen by extension)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget


def save_chart_dialog(parent: QWidget, title: str, save: Callable[[str], object]) -> None:
    """Ask where to save the chart titled ``title`` and call ``save(path)``."""
    name = title.lower().replace(" ", "-").replace("/", "-")
    path, _ = QFileDialog.getSaveFileName(parent, f"Save chart – {title}", f"{name}.png",
                                          "PNG image (*.png);;SVG drawing (*.svg)")
    if not path:
        return
    if Path(path).suffix.lower() not in (".png", ".svg"):
        path += ".png"
    try:
        save(path)
    except (OSError, ValueError) as error:
        QMessageBox.warning(parent, "Chart not saved", f"Could not save {path}: {error}")
