"""The lead window's Gallery tab: thumbnails of the positives found so far and of the
disagreements, so a lead can judge label quality at a glance.

Which items, in which order and how many in all come from :mod:`triage.views.gallery`
(computed in the lead's helper process; see :func:`triage.views.gallery.gallery_at`); the
thumbnails are made on worker threads (:class:`ui.analysis.thumbnails.ThumbnailLoader`).
The gallery is computed each time the tab is shown (thumbnails already made are kept) and
on Recompute (F5, which makes them again). Clicking a thumbnail (or moving to it with the arrow keys) shows the item: its picture
larger, key, rank, labels and caption. A text-only project's tab says there are no
pictures (the tab stays, so Ctrl+1 … Ctrl+7 pick the same tabs in every project).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QColor, QIcon, QImage, QPainter, QPixmap, QShowEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QListView,
    QListWidget,
    QListWidgetItem,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from triage.views.gallery import Gallery, GalleryItem, GallerySection, PictureOf
from ui.analysis._text import plain_label
from ui.jobs import LEAD, Worker
from ui.palette import CAPTION, SECONDARY
from ui.thumbnails import SmallPicture, ThumbnailLoader, ref_key

SIDE = 112     # thumbnail pixels a side
ITEM = Qt.ItemDataRole.UserRole


def _default_compute(path: Path) -> Gallery:
    from triage.views.tasks import GALLERY
    from ui.jobs import HELPERS

    return HELPERS.call(GALLERY, path)


def placeholder_icon(text: str, side: int = SIDE) -> QPixmap:
    """A grey box with a short word in it: loading, or a picture that cannot be shown."""
    pixmap = QPixmap(side, side)
    pixmap.fill(QColor("#F4F4F4"))
    painter = QPainter(pixmap)
    painter.setPen(QColor(SECONDARY))
    painter.drawRect(0, 0, side - 1, side - 1)
    painter.drawText(pixmap.rect().adjusted(4, 4, -4, -4),
                     Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap, text)
    painter.end()
    return pixmap


def framed(image: QImage, side: int = SIDE) -> QPixmap:
    """The thumbnail fitted into a square (enlarged when small, as the desk enlarges)."""
    pixmap = QPixmap(side, side)
    pixmap.fill(QColor("#FFFFFF"))
    scaled = image.scaled(side, side, Qt.AspectRatioMode.KeepAspectRatio,
                          Qt.TransformationMode.SmoothTransformation)
    painter = QPainter(pixmap)
    painter.drawImage((side - scaled.width()) // 2, (side - scaled.height()) // 2, scaled)
    painter.end()
    return pixmap


class ThumbList(QListWidget):
    """One section's thumbnails in rows that wrap, keys under them."""

    def __init__(self, name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setViewMode(QListView.ViewMode.IconMode)
        self.setIconSize(QSize(SIDE, SIDE))
        self.setGridSize(QSize(SIDE + 24, SIDE + 28))
        self.setResizeMode(QListView.ResizeMode.Adjust)
        self.setMovement(QListView.Movement.Static)
        self.setUniformItemSizes(True)
        self.setWordWrap(False)
        self.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.setAccessibleName(name)
        self.setMinimumHeight(SIDE + 40)


class GalleryView(QWidget):
    """Two sections of thumbnails and the selected item; ``show_gallery(Gallery)``."""

    def __init__(self, parent: QWidget | None = None, *,
                 project_of: Callable[[], Any] | None = None,
                 compute: Callable[[Path], Gallery] | None = None) -> None:
        super().__init__(parent)
        self._project_of = project_of or (lambda: None)
        self._compute = compute or _default_compute
        self.loader = ThumbnailLoader(self)
        self.loader.ready.connect(self._ready)
        self.data: Gallery | None = None
        self.stale = False     # a request came while one was computing
        self.worker: Worker | None = None
        self.images: dict[str, QImage | str] = {}          # ref_key -> what arrived
        self._waiting: dict[str, list[QListWidgetItem]] = {}
        self.message = plain_label("The gallery fills when this tab is shown.")
        self.message.setStyleSheet(f"color:{CAPTION};")
        self.captions = {name: plain_label(wrap=False) for name in ("positives", "disagreements")}
        self.lists = {"positives": ThumbList("Positives found", self),
                      "disagreements": ThumbList("Disagreements", self)}
        self.sections = sections = QSplitter(Qt.Orientation.Vertical, self)
        for name in ("disagreements", "positives"):
            box = QWidget(sections)
            column = QVBoxLayout(box)
            column.setContentsMargins(0, 0, 0, 0)
            column.addWidget(self.captions[name])
            column.addWidget(self.lists[name], 1)
            sections.addWidget(box)
            self.lists[name].currentItemChanged.connect(
                lambda item, _old, n=name: self._select(n, item))
            self.lists[name].itemClicked.connect(lambda item, n=name: self._select(n, item))
        self.picture = SmallPicture(self, side=320, loader=self.loader)
        self.detail = plain_label("Click a thumbnail to see the item here.")
        self.detail.setMaximumWidth(320)
        side = QVBoxLayout()
        side.addWidget(self.picture)
        side.addWidget(self.detail)
        side.addStretch(1)
        body = QHBoxLayout()
        body.addWidget(sections, 3)
        body.addLayout(side, 1)
        layout = QVBoxLayout(self)
        layout.addWidget(self.message)
        layout.addLayout(body, 1)
        self.selected: GalleryItem | None = None

    # -- computing ------------------------------------------------------------------------
    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 - Qt override
        """Shown: compute again (labels and rulings may have changed since; the thumbnails
        already made are kept, so this costs the helper's read, not the pictures)."""
        super().showEvent(event)
        self.refresh()

    def recompute(self) -> None:
        """Recompute (F5): the pictures may have changed too; again now if shown."""
        self.loader.forget()
        self.images.clear()
        if self.isVisible():
            self.refresh()

    def refresh(self) -> None:
        """Compute the gallery of the open project off the GUI thread (in the lead's helper)."""
        project = self._project_of()
        if project is None:
            self.message.setText("No project is open.")
            return
        if self.worker is not None:
            self.stale = True    # one at a time: computed again when this one arrives
            return
        self.stale = False
        path = project.path
        self.message.setText("computing the gallery…")
        worker = self.worker = Worker(lambda _progress: self._compute(path))
        worker.signals.finished.connect(lambda result: self._arrive(path, result))
        worker.signals.failed.connect(lambda message: self._arrive(path, None, message))
        worker.start(LEAD)

    def _arrive(self, path: Path, result: Gallery | None, error: str = "") -> None:
        self.worker = None
        project = self._project_of()
        if project is None or project.path != path:
            self.stale = True
            return
        if result is None:
            self.message.setText(f"The gallery could not be computed: {error}")
            return
        self.show_gallery(result)
        if self.stale and self.isVisible():
            self.refresh()

    # -- drawing --------------------------------------------------------------------------
    def show_gallery(self, data: Gallery) -> None:
        """Fill both sections; thumbnails come as their workers finish."""
        # Taken before filling: a refilled list may make its first item current, and that
        # signal would otherwise replace the selection to keep (a flake under load).
        kept = self.selected
        self.data = data
        self._waiting.clear()
        self.message.setText(data.message)
        self.message.setVisible(bool(data.message))
        for name, section in (("positives", data.positives),
                              ("disagreements", data.disagreements)):
            self.lists[name].blockSignals(True)
            try:
                self._fill(name, section, data.cache)
            finally:
                self.lists[name].blockSignals(False)
            self.lists[name].setEnabled(data.pictures)
        # A pool without pictures: the message alone, not two empty sections whose
        # "none yet" would contradict the Adjudication tab's disagreements.
        self.sections.setVisible(data.pictures)
        self.picture.setVisible(data.pictures)
        self.selected = None
        self.picture.clear()
        self.detail.setText("Click a thumbnail to see the item here." if data.pictures else "")
        if kept is not None:   # computed again: the same item stays selected if still there
            self._reselect(kept.key)

    def _reselect(self, key: str) -> None:
        for name, widget in self.lists.items():
            for row in range(widget.count()):
                if widget.item(row).text() == key:
                    widget.setCurrentRow(row)
                    self._select(name, widget.item(row))
                    return

    def _fill(self, name: str, section: GallerySection, cache: Path) -> None:
        self.captions[name].setText(section.caption)
        widget = self.lists[name]
        widget.clear()
        loading = QIcon(placeholder_icon("loading…"))
        for item in section.items:
            entry = QListWidgetItem(loading, item.key)
            entry.setData(ITEM, item)
            entry.setToolTip(item.tooltip)   # plain text: a tooltip without tags stays plain
            widget.addItem(entry)
            if item.ref is None:
                self._put(entry, "no picture")
                continue
            key = self.loader.request(item.ref, cache, SIDE)
            made = self.loader.get(key)
            if made is not None:
                self._put(entry, made)
            else:
                self._waiting.setdefault(key, []).append(entry)

    def _put(self, entry: QListWidgetItem, made: QImage | str) -> None:
        item: GalleryItem = entry.data(ITEM)
        if item.ref is not None:
            self.images[ref_key(item.ref, SIDE)] = made
        if isinstance(made, QImage):
            entry.setIcon(QIcon(framed(made)))
        else:
            entry.setIcon(QIcon(placeholder_icon("cannot be shown")))
            entry.setToolTip(f"{item.tooltip}\nThis picture cannot be shown: {made}.")

    def _ready(self, key: str) -> None:
        made = self.loader.get(key)
        if made is None:
            return
        for entry in self._waiting.pop(key, []):
            self._put(entry, made)

    def _select(self, name: str, entry: QListWidgetItem | None) -> None:
        if entry is None or self.data is None:
            return
        item: GalleryItem = entry.data(ITEM)
        self.selected = item
        self.picture.show_picture(PictureOf(item.ref, "", self.data.cache))
        title = "Positive" if name == "positives" else "Disagreement"
        self.detail.setText("\n".join([f"{title}: {item.key} (rank {item.rank:,})", item.labels]
                                      + ([item.caption] if item.caption else [])))

    # -- for tests ------------------------------------------------------------------------
    def shown_keys(self, name: str) -> list[str]:
        """The keys under the thumbnails of a section, in order."""
        widget = self.lists[name]
        return [widget.item(i).text() for i in range(widget.count())]

    def thumbnail(self, name: str, row: int) -> QImage | str | None:
        """What a thumbnail shows: its image, the reason it cannot be shown, or None (loading)."""
        item: GalleryItem = self.lists[name].item(row).data(ITEM)
        if item.ref is None:
            return "no picture"
        return self.images.get(ref_key(item.ref, SIDE))

    def pending(self) -> bool:
        """Is the gallery or any thumbnail still on its way?"""
        return self.worker is not None or any(self._waiting.values())
