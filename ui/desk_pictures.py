"""The desk's pictures: a pool with an image column shows each candidate as a picture.

Mixed into :class:`ui.desk.Desk`. The picture takes the text's place (the text, when the
pool has one, becomes its caption); the next few pictures are decoded ahead. URLs are
fetched into ``<project>.pictures/`` beside the project file.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QWidget

from triage.project.pictures import PictureSource, picture_source
from ui.candidate_picture import CandidatePicture

AHEAD = 4   # pictures decoded ahead of the one on screen


def cache_folder(location: str) -> Path:
    """Where fetched pictures are kept: beside a project file, else in the temp folder."""
    path = Path(location)
    if path.parent.is_dir() and "://" not in location:
        return path.with_name(path.name + ".pictures")
    return Path(tempfile.gettempdir()) / "triage-pictures"


class DeskPictures:
    """Mixed into the desk: holds the picture pane and swaps it in for the text."""

    # Provided by the desk.
    project: Any
    text: QWidget
    pictures: PictureSource | None = None
    picture: CandidatePicture | None = None

    def _start_pictures(self, layout: Any) -> None:
        """The project was opened: a picture pane when its pool has pictures."""
        self.pictures = picture_source(self.project.db, self.project.location)
        if self.pictures is None:
            if self.picture is not None:
                self.picture.setVisible(False)
            self.text.setVisible(True)
            return
        if self.picture is None:
            self.picture = CandidatePicture(cache_folder(self.project.location))
            layout.insertWidget(layout.indexOf(self.text), self.picture, 5)
        else:  # another project: its own pictures, its own fetch folder
            self.picture.loader.reset(cache_folder(self.project.location))

    def _show_picture(self, item: Any) -> None:
        """Show ``item``'s picture (or hide the pane when this pool has none)."""
        shown = self.pictures is not None and item is not None and self.picture is not None
        if self.picture is not None:
            self.picture.setVisible(shown)
        self.text.setVisible(not shown)
        if not shown:
            return
        assert self.pictures is not None and self.picture is not None
        source = self.pictures
        self.picture.show_picture(source.ref(item.text, item.meta), source.caption_of(item.text))
        # The next pictures are looked up after this one is on screen, not before.
        QTimer.singleShot(0, self._prefetch)

    def _prefetch(self) -> None:
        """Decode the next few pictures of the queue ahead."""
        if self.project is None or self.pictures is None or self.picture is None:
            return
        source = self.pictures
        for candidate in self.project.upcoming(AHEAD + 1):
            ref = source.ref(candidate.text, candidate.meta)
            if ref is not None:
                self.picture.loader.request(ref)

    def _zoom_picture(self, steps: int, before: int) -> None:
        """The text-size keys zoom the picture; zero fits it."""
        if self.picture is None:
            return
        if steps == 0:
            self.picture.view.fit()
        else:
            self.picture.view.zoom_by(steps - before)
