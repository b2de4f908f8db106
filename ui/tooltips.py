"""Tooltips that wrap: one application-wide event filter shows every tooltip as rich text,
which Qt word-wraps (at about 80 average characters), so no tooltip is wider than a small
screen, however long its line (the advice banner's tooltip ran past a 1024-pixel screen).

A plain-text tooltip is escaped (it is never read as markup), keeps its line breaks, and may
break after a slash, backslash or underscore (a long path or column name would not wrap).
"""

from __future__ import annotations

import html
import re

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QHelpEvent, Qt  # QtGui's Qt has mightBeRichText
from PySide6.QtWidgets import QAbstractItemView, QApplication, QToolTip, QWidget

_BREAK_AFTER = ("/", "\\", "_")
_ZWSP = "\u200b"   # a zero-width space: a place a line may break
_NO_WRAP = re.compile(r"white-space:\s*(pre|nowrap)(?![-\w])")


def wrapped_tooltip(text: str) -> str:
    """``text`` as rich text Qt word-wraps (rich text keeps its markup, but never a
    ``white-space: pre`` or ``nowrap`` that would stop the wrapping)."""
    if not text:
        return text
    if Qt.mightBeRichText(text):
        return _NO_WRAP.sub("white-space:pre-wrap", text)
    escaped = html.escape(text, quote=False)
    for mark in _BREAK_AFTER:
        escaped = escaped.replace(mark, mark + _ZWSP)
    return f"<p style='white-space:pre-wrap'>{escaped}</p>"


def _item_tooltip(view: QAbstractItemView, event: QHelpEvent) -> str:
    """The tooltip of the item under the pointer in ``view`` ('' if none)."""
    index = view.indexAt(event.pos())   # the event is the viewport's: its coordinates
    if not index.isValid():
        return ""
    value = index.data(Qt.ItemDataRole.ToolTipRole)
    return "" if value is None else str(value)


class _WrapTooltips(QObject):
    """Shows a widget's (or a table item's) tooltip wrapped."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        if event.type() != QEvent.Type.ToolTip or not isinstance(watched, QWidget):
            return False
        parent = watched.parentWidget()
        if isinstance(parent, QAbstractItemView) and watched is parent.viewport():
            text = _item_tooltip(parent, event)  # type: ignore[arg-type]
        else:
            text = watched.toolTip()
        if not text:
            return False
        QToolTip.showText(event.globalPos(), wrapped_tooltip(text), watched)  # type: ignore[attr-defined]
        return True


_FILTER: _WrapTooltips | None = None


def _alive(obj: QObject) -> bool:
    """Is the C++ side of ``obj`` still there (a test's application may have gone)?"""
    try:
        obj.objectName()
    except RuntimeError:
        return False
    return True


def wrap_all_tooltips() -> None:
    """Install the wrapping filter on the application (once; later calls do nothing)."""
    global _FILTER
    app = QApplication.instance()
    if app is None or (_FILTER is not None and _alive(_FILTER) and _FILTER.parent() is app):
        return
    _FILTER = _WrapTooltips(app)
    app.installEventFilter(_FILTER)
