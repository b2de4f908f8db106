"""A one-line banner with the stopping advice: continue / stop / pause and why."""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QWidget

from triage.views.advice import DECISION_BADGE
from triage.views.analysis import BannerData, banner_data
from ui.analysis._text import ROLE_COLOURS, plain_label

MIN_TEXT = 90  # px: the least width of the headline and of the stamp (both wrap)


class AdviceBanner(QFrame):
    """``show_advice(advice_state)`` (or its JSON); hover for every rule."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("adviceBanner")
        self.badge = plain_label(wrap=False)
        self.badge.setObjectName("adviceBadge")
        # Wraps rather than clips when the window is narrow; one line otherwise.
        self.text = plain_label(wrap=True)
        self.text.setObjectName("adviceText")
        self.stamp = plain_label(wrap=True)
        self.stamp.setObjectName("adviceStamp")
        font = self.badge.font()
        font.setBold(True)
        self.badge.setFont(font)
        # The advice arrives after the window has been sized and placed on the screen, so
        # its text must not set the window's minimum width (a longer line widened a
        # restored window past the screen's edge): fixed minimums, the text wraps.
        widest = max(self.badge.fontMetrics().horizontalAdvance(b) for b in DECISION_BADGE.values())
        self.badge.setMinimumWidth(widest + 4)
        self.text.setMinimumWidth(MIN_TEXT)
        self.stamp.setMinimumWidth(MIN_TEXT)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 4, 8, 4)
        layout.setSpacing(10)
        layout.addWidget(self.badge)
        layout.addWidget(self.text, 1)
        layout.addWidget(self.stamp)
        self.data: BannerData = banner_data(None)
        self.compact = False
        self._apply()

    def set_compact(self, compact: bool) -> None:
        """One short line (a small window): the headline elided, no stamp; the reasons
        stay in the tooltip and the lead window's Advice tab. False: the full headline."""
        self.compact = compact
        self.text.setWordWrap(not compact)
        self.stamp.setVisible(not compact)
        self._apply()

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        if self.compact:
            self._fit_text()

    def _fit_text(self) -> None:
        """The headline cut to the width it has, with an ellipsis (compact only)."""
        width = max(MIN_TEXT, self.text.width())
        self.text.setText(self.text.fontMetrics().elidedText(
            self.data.text, Qt.TextElideMode.ElideRight, width))

    def show_advice(self, advice: Any) -> None:
        """Show an AdviceState (or its JSON); ``None`` clears it."""
        self.data = banner_data(advice)
        self._apply()

    def colour_role(self) -> str:
        """go | stop | pause | none: which colour scheme the banner shows."""
        return self.data.role

    def _apply(self) -> None:
        d = self.data
        self.badge.setText(d.badge)
        self.text.setText(d.text)
        if self.compact:
            self._fit_text()
        self.stamp.setText(d.stamp)
        bg, border, fg = ROLE_COLOURS.get(d.role, ROLE_COLOURS["none"])
        self.setStyleSheet(
            f"QFrame#adviceBanner {{ background:{bg}; border:1px solid {border}; "
            f"border-left:6px solid {border}; border-radius:3px; }}"
            f"QLabel {{ color:{fg}; background:transparent; border:none; }}")
        # Tooltips are shown as rich text when they look like it: escape every line so
        # they always read literally.
        lines = [html.escape(line) for line in d.details] or ["No rules have been run."]
        if self.compact:   # the whole headline and the stamp, cut from the line itself
            lines = [html.escape(d.text), html.escape(d.stamp), "", *lines]
        tip = "<p style='white-space:pre-wrap'>" + "<br>".join(lines) + "</p>"
        self.setToolTip(tip)
        self.text.setToolTip(tip)
        self.badge.setToolTip(tip)
