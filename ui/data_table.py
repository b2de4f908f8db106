"""The data manager's virtual table: rows are a query's candidate ids, cells fetched a page
at a time as the view scrolls to them, so a million rows cost only the rows in sight."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence

import numpy as np
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

PAGE = 100          # rows fetched at once
KEPT_PAGES = 40     # pages kept in memory (the rest are fetched again when scrolled back to)

Index = QModelIndex | QPersistentModelIndex
FetchPage = Callable[[np.ndarray], list[tuple[str, ...]]]


class DataTableModel(QAbstractTableModel):
    """Rows: candidate ids in display order; cells: ``fetch(ids)`` for one page at a time."""

    def __init__(self, fetch: FetchPage, parent=None) -> None:
        super().__init__(parent)
        self._fetch = fetch
        self._titles: tuple[str, ...] = ()
        self.ids = np.empty(0, dtype=np.int64)
        self._pages: OrderedDict[int, list[tuple[str, ...]]] = OrderedDict()

    def show(self, ids: np.ndarray, titles: Sequence[str]) -> None:
        """Show these rows (a query's result) under these column titles."""
        self.beginResetModel()
        self.ids = ids
        self._titles = tuple(titles)
        self._pages.clear()
        self.endResetModel()

    def forget(self) -> None:
        """Drop the fetched cells (labels changed): the rows in sight are read again."""
        self._pages.clear()
        if self.ids.size:
            self.dataChanged.emit(self.index(0, 0),
                                  self.index(len(self.ids) - 1, len(self._titles) - 1))

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008, N802 - Qt API
        """One row per candidate of the result."""
        return 0 if parent.isValid() else int(self.ids.size)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008, N802 - Qt API
        """The viewer's columns."""
        return 0 if parent.isValid() else len(self._titles)

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802 - Qt API
                   role: int = Qt.ItemDataRole.DisplayRole) -> object:
        """Column titles; row numbers down the side."""
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if orientation == Qt.Orientation.Horizontal:
            return self._titles[section] if section < len(self._titles) else None
        return f"{section + 1:,}"

    def row_cells(self, row: int) -> tuple[str, ...]:
        """The cells of one row (its page fetched if not in memory)."""
        number = row // PAGE
        cells = self._pages.get(number)
        if cells is None:
            cells = self._fetch(self.ids[number * PAGE:(number + 1) * PAGE])
            self._pages[number] = cells
            while len(self._pages) > KEPT_PAGES:
                self._pages.popitem(last=False)
        else:
            self._pages.move_to_end(number)
        return cells[row - number * PAGE]

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        """A cell's text (and its whole text as the tooltip)."""
        if not index.isValid() or role not in (Qt.ItemDataRole.DisplayRole,
                                               Qt.ItemDataRole.ToolTipRole):
            return None
        return self.row_cells(index.row())[index.column()]

    def candidate_at(self, row: int) -> int:
        """The candidate id shown in ``row``."""
        return int(self.ids[row])
