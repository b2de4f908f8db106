"""Export from the desk: all candidates or labelled only, CSV or JSON lines, in the background.

The file goes where the user says, by default beside the project; the extension follows the
format when the name has none; the file gets the permissions the user's umask gives.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from ui.file_dialogs import save_file, with_extension
from ui.jobs import Worker, progress_dialog

# (name, extension, tool): every format `triage export` writes (tool: its --to).
FORMATS = (("CSV (spreadsheets)", ".csv", ""), ("JSON lines", ".jsonl", ""),
           ("Parquet", ".parquet", ""),
           ("Prodigy (label events, JSON lines for db-in)", ".jsonl", "prodigy"),
           ("Label Studio (tasks with annotations, JSON)", ".json", "labelstudio"))
EXTENSIONS = tuple(dict.fromkeys(ext for _n, ext, _t in FORMATS))
FILTERS = ("CSV (*.csv);;JSON lines (*.jsonl);;Parquet (*.parquet);;"
           "Label Studio JSON (*.json)")


class ExportDialog(QDialog):
    """Which rows, which format, where. ``choice()`` gives (path, labeled_only)."""

    def __init__(self, project_path: Path, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Export labels")
        self.all_rows = QRadioButton("All candidates", self)
        self.labeled = QRadioButton("Labelled candidates only", self)
        self.all_rows.setChecked(True)
        group = QButtonGroup(self)
        group.addButton(self.all_rows)
        group.addButton(self.labeled)
        self.format = QComboBox(self)
        for text, ext, _tool in FORMATS:
            self.format.addItem(text, ext)
        self.format.setAccessibleName("Format")
        self.path = QLineEdit(str(project_path.parent / f"{project_path.stem}-labels.csv"), self)
        self.path.setAccessibleName("Export file")
        browse = QPushButton("Browse…", self)
        browse.setAccessibleName("Choose the export file")
        browse.clicked.connect(self._browse)
        self.format.currentIndexChanged.connect(self._format_changed)
        where = QHBoxLayout()
        where.addWidget(self.path, 1)
        where.addWidget(browse)
        form = QFormLayout()
        rows = QVBoxLayout()
        rows.addWidget(self.all_rows)
        rows.addWidget(self.labeled)
        form.addRow("Rows", rows)
        form.addRow("Format", self.format)
        form.addRow("File", where)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel, self)
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Export")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(buttons)
        self.setMinimumWidth(520)

    def extension(self) -> str:
        return str(self.format.currentData())

    def tool(self) -> str:
        """The other tool the file is for ("prodigy", "labelstudio"; "" for a table)."""
        return FORMATS[max(0, self.format.currentIndex())][2]

    def choice(self) -> tuple[Path, bool]:
        """The export file (extension added when missing) and whether labelled rows only."""
        return (with_extension(self.path.text().strip(), EXTENSIONS, self.extension()),
                self.labeled.isChecked())

    def _format_changed(self, _index: int) -> None:
        path = Path(self.path.text().strip())
        if path.suffix.lower() in EXTENSIONS:
            self.path.setText(str(path.with_suffix(self.extension())))
        self.labeled.setEnabled(not self.tool())   # Prodigy and Label Studio: what is labeled

    def _browse(self) -> None:
        chosen = save_file(self, "Export labels", Path(self.path.text().strip()), FILTERS,
                           EXTENSIONS, self.extension())
        if chosen is not None:
            self.path.setText(str(chosen))
            if chosen.suffix.lower() != self.extension():
                self.format.setCurrentIndex(
                    next(i for i, f in enumerate(FORMATS) if f[1] == chosen.suffix.lower()))


def run_export(parent: QWidget, project_path: Path, out: Path, labeled_only: bool,
               done: Callable[[Path, int], None], tool: str = "") -> Worker:
    """Export in the background with progress and cancel (the desk stays usable); ``done``
    gets the file and the count; ``tool``: for Prodigy or Label Studio (as ``--to``). The
    caller keeps the worker alive until it reports."""
    from triage.project.exchange import export_interchange
    from triage.project.export import export_project

    def work(progress):
        if tool:
            return export_interchange(project_path, out, tool).count
        return export_project(project_path, out, labeled_only=labeled_only, progress=progress)

    worker = Worker(work)
    dialog = progress_dialog(worker, parent, "Exporting labels…", "Export", 500)

    def finished(count: int) -> None:
        dialog.reset()
        done(out, count)

    def failed(message: str) -> None:
        dialog.reset()
        QMessageBox.warning(parent, "Export failed", message)

    worker.signals.finished.connect(finished)
    worker.signals.failed.connect(failed)
    worker.signals.cancelled.connect(dialog.reset)
    worker.start()
    return worker
