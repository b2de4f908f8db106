"""What a table widget shows, as text (tests and views read tables through these)."""

from __future__ import annotations

from PySide6.QtWidgets import QTableWidget


def cell_text(table: QTableWidget, row: int, column: int) -> str:
    """The text of one cell; an empty cell (no item) reads as ``""``."""
    item = table.item(row, column)
    return "" if item is None else item.text()


def table_rows(table: QTableWidget) -> list[list[str]]:
    """Every row of the table as the text of its cells."""
    return [[cell_text(table, r, c) for c in range(table.columnCount())]
            for r in range(table.rowCount())]
