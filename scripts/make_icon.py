"""Render the icon's PNG from its SVG: ``python scripts/make_icon.py``.

``resources/icons/triage.svg`` is the icon; desktops that want a bitmap read
``resources/icons/triage.png`` (256×256), made from it here with Qt's SVG renderer.
"""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

ICONS = Path(__file__).resolve().parents[1] / "resources" / "icons"
SIZE = 256


def main() -> int:
    """Write triage.png beside triage.svg."""
    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])
    renderer = QSvgRenderer(str(ICONS / "triage.svg"))
    if not renderer.isValid():
        print(f"{ICONS / 'triage.svg'}: not a valid SVG", file=sys.stderr)
        return 1
    image = QImage(SIZE, SIZE, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter)
    painter.end()
    ok = image.save(str(ICONS / "triage.png"))
    del app
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
