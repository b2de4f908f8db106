"""The new-project dialog's pictures: the image column, guessed from the file, and a few
previews of it.

The previews are small thumbnails decoded off the GUI thread (:class:`ui.picture_loader.
PictureLoader`, straight to the thumbnail's device pixels), each with its file name; one
that cannot be shown says why in its place. Web addresses are not fetched here: opening a
file in the dialog sends nothing anywhere (the desk fetches them). With an image column
the text becomes optional: the text column offers "(none)", and with both, the text is
the picture's caption.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QImage, QPixmap
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QVBoxLayout,
    QWidget,
)

from triage.base.pictures import resolve
from triage.views.new_project import ColumnMapping
from ui.palette import CAPTION
from ui.picture_loader import PictureLoader, key_of

NO_IMAGE = "(none: text only)"
NO_TEXT = "(none: pictures only)"
PREVIEWS = 4           # pictures previewed from the first rows
THUMB = 96             # a thumbnail's side, logical pixels
THUMB_CACHE = 8 << 20  # bytes of thumbnails kept


class Thumbnail(QFrame):
    """One preview: the picture (or why not) above its file name."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.picture = QLabel(self)
        self.picture.setFixedSize(THUMB, THUMB)
        self.picture.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.picture.setWordWrap(True)
        self.picture.setTextFormat(Qt.TextFormat.PlainText)  # file names are untrusted
        self.name = QLabel(self)
        self.name.setTextFormat(Qt.TextFormat.PlainText)
        self.name.setFixedWidth(THUMB)
        self.name.setStyleSheet(f"color:{CAPTION};")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.picture)
        layout.addWidget(self.name)
        self.image: QImage | None = None   # the picture shown (None: a placeholder)

    def show_cell(self, cell: str) -> None:
        """A new cell: its name (elided), "Loading…" until its picture arrives."""
        self.image = None
        self.picture.clear()
        self.picture.setText("Loading…")
        self.name.setText(self.name.fontMetrics().elidedText(
            cell, Qt.TextElideMode.ElideMiddle, THUMB))
        self.name.setToolTip(cell)

    def show_result(self, found: QImage | str) -> None:
        """The decoded picture, or the reason it cannot be shown."""
        if isinstance(found, QImage):
            self.image = found
            self.picture.setPixmap(QPixmap.fromImage(found))  # already thumbnail-sized
        else:
            self.image = None
            self.picture.setText(f"Cannot be shown: {found}")
        self.picture.setToolTip("" if isinstance(found, QImage) else found)


class PicturePart(QGroupBox):
    """The image column (a combo box) and previews of its first pictures."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Pictures", parent)
        self.combo = QComboBox(self)
        self.combo.setAccessibleName("Image column")
        self.combo.setToolTip("the column holding each candidate's picture: a path (relative "
                              "to the file's folder), a file:// or http(s):// address")
        self.combo.currentIndexChanged.connect(lambda _i: self._preview())
        self.thumbs = [Thumbnail(self) for _ in range(PREVIEWS)]
        row = QHBoxLayout()
        for thumb in self.thumbs:
            row.addWidget(thumb)
        row.addStretch(1)
        form = QFormLayout(self)
        form.addRow("Image column", self.combo)
        form.addRow(row)
        self.loader = PictureLoader(Path(tempfile.gettempdir()) / "triage-pictures", self,
                                    THUMB_CACHE, fitted=True)
        self.loader.ready.connect(self._ready)
        self._rows: list[list[str]] = []
        self._header: list[str] = []
        self._folder = Path(".")
        self._shown: dict[str, list[Thumbnail]] = {}  # key_of -> thumbnails waiting for it

    def fill(self, header: list[str], rows: list[list[str]], guess: dict,
             folder: Path, text: QComboBox) -> None:
        """A new file: its columns offered and the guessed one chosen (its first ``rows``
        previewed); the ``text`` choice offers "(none)", chosen for pictures without one."""
        dpr = self.devicePixelRatioF()
        self.loader.set_target(QSize(round(THUMB * dpr), round(THUMB * dpr)), dpr)
        self._header, self._rows, self._folder = header, rows, folder
        text.insertItem(0, NO_TEXT)
        if guess.get("image") and not guess["text"]:
            text.setCurrentIndex(0)
        self.combo.blockSignals(True)
        self.combo.clear()
        self.combo.addItems([NO_IMAGE, *header])
        self.combo.setCurrentText(guess.get("image") or NO_IMAGE)
        self.combo.blockSignals(False)
        self._preview()

    def column(self) -> str | None:
        """The chosen image column, None for a text-only pool."""
        chosen = self.combo.currentText()
        return None if chosen in ("", NO_IMAGE) else chosen

    def mapping(self, chosen: ColumnMapping) -> ColumnMapping:
        """``chosen`` with the image column, and no text when "(none)" is chosen."""
        from dataclasses import replace

        text = "" if chosen.text == NO_TEXT else chosen.text
        return replace(chosen, text=text, image=self.column())

    def _preview(self) -> None:
        """Thumbnails of the first pictures of the chosen column (decoded on a worker)."""
        column = self.column()
        cells = []
        if column is not None and column in self._header:
            at = self._header.index(column)
            cells = [r[at].strip() for r in self._rows if at < len(r) and r[at].strip()]
        self._shown = {}
        for thumb, cell in zip(self.thumbs, [*cells[:PREVIEWS], *[None] * PREVIEWS]):
            thumb.setVisible(cell is not None)
            if cell is None:
                continue
            thumb.show_cell(cell)
            ref = resolve(cell, self._folder)
            if ref.url is not None:  # nothing is sent anywhere from this dialog
                thumb.show_result("a web address, fetched at the desk")
                continue
            self._shown.setdefault(key_of(ref), []).append(thumb)
            found = self.loader.get(key_of(ref))
            if found is not None:
                thumb.show_result(found)
            else:
                self.loader.request(ref)

    def _ready(self, key: str) -> None:
        found = self.loader.get(key)
        if found is not None:
            for thumb in self._shown.get(key, []):
                thumb.show_result(found)

    @property
    def previews(self) -> list[Thumbnail]:
        """The thumbnails showing a cell now."""
        return [t for t in self.thumbs if not t.isHidden()]

