"""New project from a file: reading choices, preview, column mapping, pictures, label scheme,
money, then a background import with progress and cancel (a failure leaves no file)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSize, Qt
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
    QVBoxLayout,
    QWidget,
)

from triage.base.errors import TriageError
from triage.views.new_project import (
    ColumnMapping,
    Dialect,
    FileLook,
    Profile,
    Settings,
    build_project,
    check_positives,
    guess_mapping,
    guess_positive,
    guess_scheme,
    look_at,
    parse_positives,
    remove_project,
    suggestion_text,
    target_for,
)
from ui.dialogs.money_form import money_form, read_money_form
from ui.dialogs.new_project_pictures import PicturePart
from ui.dialogs.new_project_reading import (
    ReadingPart,
    fill_preview,
    read_key,
    set_checks,
    sheet_for,
)
from ui.file_dialogs import PathField, open_file, save_file, start_folder
from ui.jobs import Worker
from ui.palette import CAPTION, ERROR
from ui.window_state import scrolling_dialog

NO_KEY = "(row number)"
NO_GOLD = "(none)"
PREVIEW_ROWS = 20        # shown in the table


class NewProjectDialog(QDialog):
    """A project from a CSV/TSV/JSONL, Parquet or spreadsheet file; sets ``project_path``."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("New project from a file")
        self.project_path: Path | None = None
        self.result_info = None
        self.worker: Worker | None = None
        self.reader: Worker | None = None    # the file being read for its preview
        self._read_key: tuple | None = None  # what was read last: path, dialect, size, time
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
        """Read the file in the background (the bar busy meanwhile); preview and mapping fill
        in when read. False (error shown) if the user declined its encoding."""
        path = Path(path)
        self.source.setText(str(path))
        try:
            dialect = self.reading.resolve(path, sheet_for(self.sheet_combo, path))
            key = read_key(path, dialect)
        except (TriageError, OSError) as error:
            self.show_error(str(error))
            return False
        if key == self._read_key:
            return True   # read (or being read) as it is: focus leaving the field, say
        self._dialect, self._read_key = dialect, key
        self.reader = reader = Worker(lambda _p: look_at(path, dialect, PREVIEW_ROWS))
        reader.signals.finished.connect(lambda look: self._looked(reader, path, look))
        reader.signals.failed.connect(lambda message: self._looked(reader, path, None, message))
        self._busy(True)   # the mapping is not there yet: nothing to create
        reader.start()
        return True

    def _looked(self, reader: Worker, path: Path, look: FileLook | None, error: str = "") -> None:
        """The file was read (or not): fill the preview and the mapping, here."""
        if reader is not self.reader:
            return   # another file (or sheet) was chosen meanwhile: that read counts
        self.reader = None
        self._busy(False)
        if look is None:
            self._read_key = None   # Enter reads it again
            self.show_error(error)
            return
        header, rows, self._profile = look.header, look.rows, look.found
        self.reading.note(look.elsewhere)
        for widget in (self.sheet_label, self.sheet_combo):
            widget.setVisible(self._dialect is not None and self._dialect.sheet is not None)
        self.errors.setVisible(False)
        fill_preview(self.preview, header, rows, PREVIEW_ROWS)
        self._header = header
        guess = self._fill_mapping(header, self._profile)
        self.pictures.fill(header, rows, guess, path.resolve().parent, self.text_combo)
        self._suggest_target(path)

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
        self.suggestion.setText(suggestion_text(guess, found))
        return guess

    def _gold_chosen(self, _index: int = 0) -> None:
        """The positive value is picked from the values in the gold column, with counts."""
        gold = self.gold_combo.currentText()
        self.positive_combo.clear()
        self.counts = []
        column = self._profile.column(gold) if self._profile and gold != NO_GOLD else None
        if column is not None:
            self.counts = sorted(column.counts, key=lambda kv: -kv[1])  # the whole file
            set_checks(self.score_list, lambda c: False if c == gold else None)  # not a model
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
        set_checks(self.score_list, lambda name: name in columns)

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
        self._busy(True)
        self.worker = Worker(lambda progress: build_project(target, settings, source, mapping,
                                                           progress))
        self.worker.signals.progress.connect(self._on_progress)
        self.worker.signals.finished.connect(self._on_finished)
        self.worker.signals.failed.connect(self._on_failed)
        self.worker.signals.cancelled.connect(self._on_cancelled)
        self.worker.start()

    @property
    def running(self) -> bool:
        return self.worker is not None

    def _on_progress(self, done: int, total: int) -> None:
        if total > 0:
            scale = max(1, total // 1_000_000)  # QProgressBar holds ints < 2**31
            self.progress.setRange(0, total // scale)
            self.progress.setValue(min(done, total) // scale)

    def _busy(self, busy: bool) -> None:
        """Reading the file or importing it: the bar moves; no second import meanwhile."""
        self.progress.setRange(0, 0)
        self.progress.setVisible(busy)
        self.create_button.setEnabled(not busy)

    def _done(self, discard: bool = False) -> None:
        if discard and self._target is not None:
            remove_project(self._target)  # nothing half-made left behind
        self.worker = None
        self._busy(False)

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
