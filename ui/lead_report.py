"""The lead window's report export: one HTML page or a PDF, written off the GUI thread.

It knows nothing of the lead window (no import of it, lazy or for typing): it takes the
parent widget, the project's path, the button to disable while it writes, and where to say
how it went.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtWidgets import QMessageBox, QPushButton, QWidget

from ui.file_dialogs import ask_path, start_folder
from ui.jobs import Worker, progress_dialog


def ask_report_path(parent: QWidget, project_path: Path) -> Path | None:
    """Ask where to write the report (HTML or PDF); ``None`` when the user cancels."""
    out, _ = ask_path(
        parent, "Export report", str(start_folder(project_path) / f"{project_path.stem}-report.html"),
        "Web page (*.html);;PDF (*.pdf)", saving=True)
    if not out:
        return None
    if Path(out).suffix.lower() not in (".html", ".htm", ".pdf"):
        out += ".html"
    return Path(out)


def write_report_in_background(parent: QWidget, project_path: Path, out: Path,
                               button: QPushButton, say: Callable[[str], None]) -> Worker:
    """Write the report off the GUI thread, with progress and cancel; the caller keeps the
    worker alive until it reports."""
    from triage.views.report import write_report

    worker = Worker(lambda progress: write_report(project_path, out, progress=progress))
    dialog = progress_dialog(worker, parent, "Writing the report…", "Export report", 300)

    def ended(news: str | None) -> None:
        dialog.reset()
        button.setEnabled(True)
        if news is not None:
            say(news)

    def failed(message: str) -> None:
        ended(None)
        QMessageBox.warning(parent, "Report failed", message)

    worker.signals.finished.connect(lambda _data: ended(f"report written to {out}"))
    worker.signals.failed.connect(failed)
    worker.signals.cancelled.connect(lambda: ended("report cancelled; nothing was written"))
    button.setEnabled(False)
    worker.start()
    return worker
