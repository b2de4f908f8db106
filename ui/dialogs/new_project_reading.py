"""How the new-project dialog reads a text file: delimiter, decimal separator, encoding and
header row, each "guess" by default, with the guesses and their reasons shown below.

An encoding other than UTF-8 is never taken silently: the dialog asks once per file.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QMessageBox,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QWidget,
)

from triage.base.errors import TriageError
from triage.views.new_project import (
    DECIMAL_CHOICES,
    DELIMITER_CHOICES,
    ENCODING_CHOICES,
    Dialect,
    dialect_from_form,
    is_spreadsheet,
    read_as,
    reading_text,
    sheet_names,
)
from ui.palette import CAPTION


class ReadingPart(QWidget):
    """The reading choices of the dialog; :meth:`resolve` settles the dialect of a file."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None,
                 on_change: Callable[[], object] | None = None) -> None:
        super().__init__(parent)
        if on_change is not None:
            self.changed.connect(on_change)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        self.combos: dict[str, QComboBox] = {}
        for name, choices in (("Delimiter", DELIMITER_CHOICES), ("Decimal", DECIMAL_CHOICES),
                              ("Encoding", ENCODING_CHOICES)):
            combo = QComboBox(self)
            combo.setAccessibleName(name)
            for text, value in choices:
                combo.addItem(text, value)
            combo.activated.connect(lambda _i: self.changed.emit())
            row.addWidget(QLabel(name, self))
            row.addWidget(combo)
            self.combos[name] = combo
        self.header_row = QSpinBox(self)
        self.header_row.setAccessibleName("Header row")
        self.header_row.setRange(0, 1_000_000)
        self.header_row.setSpecialValueText("guess")
        self.header_row.editingFinished.connect(self.changed.emit)
        row.addWidget(QLabel("Header row", self))
        row.addWidget(self.header_row)
        self.caption = QLabel("", self)
        self.caption.setTextFormat(Qt.TextFormat.PlainText)
        self.caption.setWordWrap(True)
        self.caption.setStyleSheet(f"color:{CAPTION};")
        row.addWidget(self.caption, 1)
        self._confirmed: set[str] = set()  # files whose encoding the user accepted
        self.ask: Callable[[str], bool] = self._ask

    def _ask(self, question: str) -> bool:
        answer = QMessageBox.question(self, "Encoding", question)
        return answer == QMessageBox.StandardButton.Yes

    def given(self, sheet: str | None) -> tuple[Dialect, frozenset[str]]:
        """The choices made (None: guess) as a dialect and the names of those chosen."""
        return dialect_from_form(self.combos["Delimiter"].currentData(),
                                 self.combos["Decimal"].currentData(),
                                 self.combos["Encoding"].currentData(),
                                 self.header_row.value() or None, sheet)

    def resolve(self, path: Path, sheet: str | None) -> Dialect:
        """The dialect to read ``path`` with; TriageError when the user declines the
        encoding it reads as (asked once per file)."""
        sniffed = read_as(path, *self.given(sheet))
        key = str(path.resolve())
        if sniffed.confirm and key not in self._confirmed:
            if not self.ask(sniffed.confirm):
                raise TriageError(f"{path}: {sniffed.problem}: choose the encoding in the "
                                  "Encoding list, or save the file as UTF-8")
            self._confirmed.add(key)
        self.caption.setText(reading_text(sniffed))
        return sniffed.dialect

    def note(self, text: str | None) -> None:
        """Add a sentence (another sheet holds the data) below the guesses."""
        if text:
            self.caption.setText(" ".join(filter(None, [self.caption.text(), text])))


def fill_preview(table: QTableWidget, header: list[str], rows: list[list[str]],
                 limit: int) -> None:
    """Show ``header`` and the first ``limit`` of ``rows`` as plain text in ``table``."""
    table.clear()
    table.setColumnCount(len(header))
    table.setRowCount(min(len(rows), limit))
    table.setHorizontalHeaderLabels(header)
    for r, row in enumerate(rows[:limit]):
        for c, value in enumerate(row[: len(header)]):
            table.setItem(r, c, QTableWidgetItem(value))  # plain text item


def set_checks(items: QListWidget, checked: Callable[[str], bool | None]) -> None:
    """Tick or untick each item by ``checked(its text)`` (None: leave it as it is)."""
    for i in range(items.count()):
        item = items.item(i)
        state = checked(item.text())
        if state is not None:
            item.setCheckState(Qt.CheckState.Checked if state else Qt.CheckState.Unchecked)


def sheet_for(combo: QComboBox, path: Path) -> str | None:
    """The chosen sheet of a workbook (its sheets listed once), None for other files."""
    if not is_spreadsheet(path):
        combo.clear()
        return None
    names = sheet_names(path)
    if [combo.itemText(i) for i in range(combo.count())] != names:
        combo.clear()
        combo.addItems(names)
    return combo.currentText() or None


def read_key(path: Path, dialect: Dialect) -> tuple[str, Dialect, int, int]:
    """What makes a read of ``path`` differ from the last: the file, its size and time, and
    the dialect (sheet, encoding, delimiter …) it is read as."""
    stat = path.stat()
    return (str(path.resolve()), dialect, stat.st_size, stat.st_mtime_ns)
