"""The desk's pictures: a pool with an image column shows each candidate as a picture.

Owned by :class:`ui.desk.Desk`. The picture takes the text's place (the text, when the
pool has one, becomes its caption); the next few pictures are decoded ahead. URLs are
fetched into ``<project>.pictures/`` beside the project file.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QWidget

from triage.project.pictures import PictureSource, picture_source
from ui.candidate_picture import CandidatePicture

AHEAD = 4   # pictures decoded ahead of the one on screen
PREFETCH_MS = 20  # the next pictures are looked up after the shown one is painted


def cache_folder(location: str) -> Path:
    """Where fetched pictures are kept: beside a project file, else in the temp folder."""
    path = Path(location)
    if path.parent.is_dir() and "://" not in location:
        return path.with_name(path.name + ".pictures")
    return Path(tempfile.gettempdir()) / "triage-pictures"


class DeskPictures:
    """The desk's picture pane: swapped in for the candidate text when the pool has pictures.

    The desk owns one and calls :meth:`start` when a project opens, :meth:`show` for each
    candidate and :meth:`zoom` for the text-size keys; it reads nothing else of it.
    """

    def __init__(self, text: QWidget, project_now: Callable[[], Any]) -> None:
        self.text = text                          # the desk's text view, hidden for pictures
        self.project_now = project_now            # the desk's open project (None once closed)
        self.source: PictureSource | None = None  # None: this pool has no pictures
        self.picture: CandidatePicture | None = None
        # A 0 ms timer would run before the paint (Qt posts paints at a low priority) and
        # the queue lookup would delay the picture the key press asked for.
        self.prefetcher = QTimer()
        self.prefetcher.setSingleShot(True)
        self.prefetcher.setInterval(PREFETCH_MS)
        self.prefetcher.timeout.connect(self.prefetch)

    def start(self, project: Any, layout: Any) -> None:
        """The project was opened: a picture pane (in ``layout``) when its pool has pictures."""
        self.source = picture_source(project.db, project.location)
        if self.source is None:
            if self.picture is not None:
                self.picture.setVisible(False)
            self.text.setVisible(True)
            return
        if self.picture is None:
            self.picture = CandidatePicture(cache_folder(project.location))
            layout.insertWidget(layout.indexOf(self.text), self.picture, 5)
        else:  # another project: its own pictures, its own fetch folder
            self.picture.loader.reset(cache_folder(project.location))

    def show(self, item: Any) -> None:
        """Show ``item``'s picture (or hide the pane when this pool has none)."""
        shown = self.source is not None and item is not None and self.picture is not None
        if self.picture is not None:
            self.picture.setVisible(shown)
        self.text.setVisible(not shown)
        if not shown:
            return
        assert self.source is not None and self.picture is not None
        source = self.source
        self.picture.show_picture(source.ref(item.text, item.meta), source.caption_of(item.text))
        # The next pictures are looked up after this one is on screen, not before.
        if not self.prefetcher.isActive():
            self.prefetcher.start()

    def prefetch(self) -> None:
        """Decode the next few pictures of the queue ahead."""
        project = self.project_now()
        if project is None or self.source is None or self.picture is None:
            return
        source = self.source
        for candidate in project.upcoming(AHEAD + 1):
            ref = source.ref(candidate.text, candidate.meta)
            if ref is not None:
                self.picture.loader.request(ref)

    def zoom(self, steps: int, before: int) -> None:
        """The text-size keys zoom the picture; zero fits it."""
        if self.picture is None:
            return
        if steps == 0:
            self.picture.view.fit()
        else:
            self.picture.view.zoom_by(steps - before)
