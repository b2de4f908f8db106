"""New project from a file: reading choices, preview, column mapping, pictures, label scheme,
money, then a background import with progress and cancel (a failure leaves no file)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSize, Qt, QThreadPool
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from triage.base.errors import TriageError
from triage.views.new_project import (
    ColumnMapping,
    Dialect,
    Profile,
    Settings,
    build_project,
    check_positives,
    describe_guess,
    guess_mapping,
    guess_positive,
    guess_scheme,
    is_spreadsheet,
    look_at,
    parse_positives,
    remove_project,
    sheet_names,
    target_for,
)
from ui.dialogs.money_form import money_form, read_money_form
from ui.dialogs.new_project_pictures import PicturePart
from ui.dialogs.new_project_reading import ReadingPart
from ui.file_dialogs import PathField, open_file, save_file, start_folder
from ui.palette import CAPTION, ERROR
from ui.window_state import scrolling_dialog
from ui.workers import Worker

NO_KEY = "(row number)"
NO_GOLD = "(none)"
PREVIEW_ROWS = 20        # shown in the table


class NewProjectDialog(QDialog):
    """A project from a CSV/TSV/JSONL, Parquet or spreadsheet file; sets ``project_path``."""

    def __init__(self, parent: QWidget | None = None, *,
                 thread_pool: QThreadPool | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("New project from a file")
        self.pool = thread_pool or QThreadPool.globalInstance()
        self.project_path: Path | None = None
        self.result_info = None
        self.worker: Worker | None = None
        self._target: Path | None = None
        self._suggested_target = ""          # the target we filled in, not the user
        self.counts: list[tuple[str, int]] = []   # gold values and their rows
        self._header: list[str] = []
        self._profile: Profile | None = None     # every column over the whole file
        self._cancel_requested = False
        self._closing = False
        src_row = self._source_row()
        self.reading = ReadingPart(self, lambda: self.set_source(self.source.text()))
        self._dialect: Dialect | None = None
        self.preview = QTableWidget(0, 0, self)
        self.preview.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.preview.setMinimumHeight(140)
        self.preview.setTabKeyNavigation(False)
        self.preview.setAccessibleName("Preview of the first rows")
        self.preview.horizontalHeader().setStretchLastSection(True)
        columns = QHBoxLayout()
        columns.addWidget(self._mapping_box(), 1)
        money = QGroupBox("Labels and money", self)
        form, self.fields = money_form(self)
        money.setLayout(form)
        columns.addWidget(money, 1)
        tgt_row = self._target_row()
        self._footer()
        self.pictures = PicturePart(self)  # the image column and a few previews
        layout = QVBoxLayout()
        layout.addLayout(src_row)
        layout.addWidget(self.reading)
        layout.addWidget(self.preview, 1)
        layout.addLayout(columns)
        layout.addWidget(self.pictures)
        # Never taller than the screen (1024×600): the form scrolls; where the project
        # goes, the progress, the problems and the buttons stay in sight under it.
        scrolling_dialog(self, layout, tgt_row, self.progress, self.errors, self.buttons,
                         preferred=QSize(820, 640))

    def _source_row(self) -> QHBoxLayout:
        self.source = PathField(self)
        self.source.setAccessibleName("Candidates file")
        self.source.setPlaceholderText("candidates file (.csv, .tsv, .jsonl, .parquet, .xlsx, "
                                       ".ods)")
        self.source.editingFinished.connect(lambda: self.set_source(self.source.text()))
        browse = QPushButton("Browse…", self)
        browse.clicked.connect(self._browse_source)
        self.sheet_label = QLabel("Sheet", self)
        self.sheet_combo = QComboBox(self)
        self.sheet_combo.setAccessibleName("Sheet")
        self.sheet_combo.activated.connect(lambda _i: self.set_source(self.source.text()))
        for widget in (self.sheet_label, self.sheet_combo):  # only a workbook has sheets
            widget.setVisible(False)
        src_row = QHBoxLayout()
        src_row.addWidget(self.source, 1)
        src_row.addWidget(self.sheet_label)
        src_row.addWidget(self.sheet_combo)
        src_row.addWidget(browse)
        return src_row

    def _sheet_for(self, path: Path) -> str | None:
        """The chosen sheet of a workbook (its sheets listed once), None for other files."""
        if not is_spreadsheet(path):
            self.sheet_combo.clear()
            return None
        names = sheet_names(path)
        if [self.sheet_combo.itemText(i) for i in range(self.sheet_combo.count())] != names:
            self.sheet_combo.clear()
            self.sheet_combo.addItems(names)
        return self.sheet_combo.currentText() or None

    def _mapping_box(self) -> QGroupBox:
        mapping = QGroupBox("Columns", self)
        mform = QFormLayout(mapping)
        self.key_combo, self.text_combo, self.gold_combo = (QComboBox(self) for _ in range(3))
        self.score_list = QListWidget(self)
        self.score_list.setMaximumHeight(90)
        mform.addRow("Key", self.key_combo)
        mform.addRow("Text", self.text_combo)
        self.positive_combo = QComboBox(self)
        self.positive_combo.setToolTip("the gold value that counts as a find, with its rows")
        self.positive_combo.currentIndexChanged.connect(self._positive_chosen)
        self.gold_combo.currentIndexChanged.connect(self._gold_chosen)
        self.score_list.setAccessibleName("Score columns")
        mform.addRow("Gold label", self.gold_combo)
        mform.addRow("Positive value", self.positive_combo)
        mform.addRow("Scores (one model each)", self.score_list)
        self.suggestion = QLabel("", self)
        self.suggestion.setTextFormat(Qt.TextFormat.PlainText)
        self.suggestion.setWordWrap(True)
        self.suggestion.setStyleSheet(f"color:{CAPTION};")
        mform.addRow(self.suggestion)
        return mapping

    def _target_row(self) -> QHBoxLayout:
        self.target = QLineEdit(self)
        self.target.setAccessibleName("Project file")
        self.target.setPlaceholderText("where to save the project (.triage)")
        save_as = QPushButton("Save as…", self)
        save_as.clicked.connect(self._browse_target)
        tgt_row = QHBoxLayout()
        tgt_row.addWidget(QLabel("Project file", self))
        tgt_row.addWidget(self.target, 1)
        tgt_row.addWidget(save_as)
        return tgt_row

    def _footer(self) -> None:
        self.progress = QProgressBar(self)
        self.progress.setVisible(False)
        self.errors = QPlainTextEdit(self)
        self.errors.setReadOnly(True)
        self.errors.setObjectName("errors")
        self.errors.setAccessibleName("Problems")
        self.errors.setStyleSheet(f"color:{ERROR};")
        self.errors.setMaximumHeight(110)
        self.errors.setVisible(False)
        self.buttons = QDialogButtonBox(self)
        self.create_button = self.buttons.addButton("Create project",
                                                    QDialogButtonBox.ButtonRole.AcceptRole)
        self.cancel_button = self.buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        self.create_button.clicked.connect(self.start_import)
        self.cancel_button.clicked.connect(self.reject)

    # -- the source file ---------------------------------------------------------------
    def _browse_source(self) -> None:
        path = open_file(self, "Candidates file", start_folder(self.source.text()),
                         "Tables (*.csv *.tsv *.jsonl *.parquet *.xlsx *.ods);;All files (*)")
        if path:
            self.set_source(path)

    def _browse_target(self) -> None:
        suggested = Path(self.target.text().strip() or start_folder(self.source.text()))
        path = save_file(self, "Project file", suggested, "Triage project (*.triage)",
                         (".triage",), ".triage")
        if path:
            self.target.setText(str(path))

    def set_source(self, path: str | Path) -> bool:
        """Preview the file, guess its mapping from all of it; False (error shown) if unreadable."""
        path = Path(path)
        self.source.setText(str(path))
        try:
            self._dialect = self.reading.resolve(path, self._sheet_for(path))
            look = look_at(path, self._dialect, PREVIEW_ROWS)  # Arrow: 1M rows well under 1 s
            header, rows, self._profile = look.header, look.rows, look.found
            self.reading.note(look.elsewhere)
        except (TriageError, OSError) as error:
            self.show_error(str(error))
            return False
        for widget in (self.sheet_label, self.sheet_combo):
            widget.setVisible(self._dialect.sheet is not None)
        self.errors.setVisible(False)
        self.preview.clear()
        self.preview.setColumnCount(len(header))
        self.preview.setRowCount(min(len(rows), PREVIEW_ROWS))
        self.preview.setHorizontalHeaderLabels(header)
        for r, row in enumerate(rows[:PREVIEW_ROWS]):
            for c, value in enumerate(row[: len(header)]):
                self.preview.setItem(r, c, QTableWidgetItem(value))  # plain text item
        self._header = header
        guess = self._fill_mapping(header, self._profile)
        self.pictures.fill(header, rows, guess, path.resolve().parent, self.text_combo)
        self._suggest_target(path)
        return True

    def _fill_mapping(self, header: list[str], found: Profile) -> dict:
        """Offer every column in each role, the guess selected, named as a suggestion and
        returned."""
        guess = guess_mapping(found)
        self.key_combo.clear()
        self.key_combo.addItems([NO_KEY, *header])
        self.key_combo.setCurrentText(guess["key"] or NO_KEY)
        self.text_combo.clear()
        self.text_combo.addItems(header)
        if guess["text"]:
            self.text_combo.setCurrentText(guess["text"])
        self.score_list.clear()
        for name in header:
            item = QListWidgetItem(name, self.score_list)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if name in guess["scores"]
                               else Qt.CheckState.Unchecked)
        self.gold_combo.clear()
        self.gold_combo.addItems([NO_GOLD, *header])
        self.gold_combo.setCurrentText(guess["gold"] or NO_GOLD)
        self._gold_chosen()
        where = (f"all {found.rows:,} rows" if found.whole else
                 f"the first {found.rows:,} rows (the whole file could not be read)")
        self.suggestion.setText(f"Suggested from the names and the values of {where}: "
                                f"{describe_guess(guess)}. Change any of them.")
        return guess

    def _gold_chosen(self, _index: int = 0) -> None:
        """The positive value is picked from the values in the gold column, with counts."""
        gold = self.gold_combo.currentText()
        self.positive_combo.clear()
        self.counts = []
        column = self._profile.column(gold) if self._profile and gold != NO_GOLD else None
        if column is not None:
            self.counts = sorted(column.counts, key=lambda kv: -kv[1])  # the whole file
            self._untick(gold)  # the gold label grades the models: it is not one
        for value, n in self.counts:
            self.positive_combo.addItem(f"{value}  ({n:,} rows)", value)
        self.positive_combo.setEnabled(bool(self.counts))
        if column is None or not self.counts:
            return
        scheme, _first = guess_scheme([value for value, _n in column.counts])
        self.fields.scheme.setText(scheme)
        positive = guess_positive(self.counts)
        self.positive_combo.setCurrentIndex(max(0, self.positive_combo.findData(positive)))
        self._positive_chosen()

    def _untick(self, name: str) -> None:
        for i in range(self.score_list.count()):
            item = self.score_list.item(i)
            if item.text() == name:
                item.setCheckState(Qt.CheckState.Unchecked)

    def _positive_chosen(self, _index: int = 0) -> None:
        value = self.positive_combo.currentData()
        if value is not None:
            self.fields.positives.setText(str(value))

    def _suggest_target(self, source: Path) -> None:
        """The project follows the source's name, unless the user typed a path of their own."""
        current = self.target.text().strip()
        if not current or current == self._suggested_target:
            self._suggested_target = str(target_for(source))
            self.target.setText(self._suggested_target)

    def set_scores(self, columns: list[str]) -> None:
        """Check exactly these score columns (tests and scripted use)."""
        for i in range(self.score_list.count()):
            item = self.score_list.item(i)
            item.setCheckState(Qt.CheckState.Checked if item.text() in columns
                               else Qt.CheckState.Unchecked)

    def mapping(self) -> ColumnMapping:
        scores = [self.score_list.item(i).text() for i in range(self.score_list.count())
                  if self.score_list.item(i).checkState() == Qt.CheckState.Checked]
        key = self.key_combo.currentText()
        gold = self.gold_combo.currentText()
        return self.pictures.mapping(ColumnMapping(
            text=self.text_combo.currentText(), key=None if key == NO_KEY else key,
            scores=tuple((c, c) for c in scores), gold=None if gold == NO_GOLD else gold,
            sheet=self.sheet_combo.currentText() or None, dialect=self._dialect))

    # -- running the import --------------------------------------------------------------
    def show_error(self, message: str) -> None:
        self.errors.setPlainText(message)
        self.errors.setVisible(True)

    def start_import(self) -> None:
        """Validate the form, then create and import in the background."""
        if self.worker is not None:
            return
        try:
            source = Path(self.source.text().strip())
            if not source.is_file():
                raise TriageError(f"{source} is not a readable file; choose the candidates file")
            mapping = self.mapping()
            if not mapping.text and not mapping.image:
                raise TriageError("choose the text column (or an image column)")
            if not mapping.scores:
                raise TriageError("check at least one score column (each is a model)")
            target = Path(self.target.text().strip())
            if not self.target.text().strip():
                raise TriageError("choose where to save the project file")
            if target.exists():
                raise TriageError(f"{target} already exists; choose another name")
            settings = Settings().with_changes(**read_money_form(self.fields))
            if mapping.gold:
                check_positives(parse_positives(self.fields.positives.text()), self.counts)
        except TriageError as error:
            self.show_error(str(error))
            return
        self._target, self._cancel_requested = target, False
        self.errors.setVisible(False)
        self.progress.setRange(0, 0)
        self.progress.setVisible(True)
        self.create_button.setEnabled(False)
        self.worker = Worker(lambda progress: build_project(target, settings, source, mapping,
                                                           progress))
        self.worker.signals.progress.connect(self._on_progress)
        self.worker.signals.finished.connect(self._on_finished)
        self.worker.signals.failed.connect(self._on_failed)
        self.worker.signals.cancelled.connect(self._on_cancelled)
        self.pool.start(self.worker)

    @property
    def running(self) -> bool:
        return self.worker is not None

    def _on_progress(self, done: int, total: int) -> None:
        if total > 0:
            scale = max(1, total // 1_000_000)  # QProgressBar holds ints < 2**31
            self.progress.setRange(0, total // scale)
            self.progress.setValue(min(done, total) // scale)

    def _done(self, discard: bool = False) -> None:
        if discard and self._target is not None:
            remove_project(self._target)  # nothing half-made left behind
        self.worker = None
        self.progress.setVisible(False)
        self.create_button.setEnabled(True)

    def _on_finished(self, result) -> None:
        if self._cancel_requested:  # finished just as the user cancelled: honour the cancel
            self._on_cancelled()
            return
        self._done()
        self.project_path, self.result_info = self._target, result
        super().accept()

    def _on_failed(self, message: str) -> None:
        self._done(discard=True)  # build_project already removed it; make sure
        self.show_error(message)

    def _on_cancelled(self) -> None:
        self._done(discard=True)
        self.show_error("Import cancelled; no project was created.")
        if self._closing:
            super().reject()

    def reject(self) -> None:
        """Cancel a running import first (and close once it has cleaned up)."""
        if self.worker is not None:
            self._cancel_requested = self._closing = True
            self.worker.cancel()
            return
        super().reject()
