"""The lead window's report export: one HTML page or a PDF, written off the GUI thread."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QThreadPool
from PySide6.QtWidgets import QFileDialog, QMessageBox

from ui.workers import Worker, progress_dialog

if TYPE_CHECKING:
    from ui.lead_window import LeadWindow


def export_report_dialog(window: LeadWindow) -> None:
    """Ask where to write the report (HTML or PDF), then write it in the background."""
    project = window._project_of()
    if project is None:
        return
    out, _ = QFileDialog.getSaveFileName(
        window, "Export report", f"{project.path.stem}-report.html",
        "Web page (*.html);;PDF (*.pdf)")
    if out:
        if Path(out).suffix.lower() not in (".html", ".htm", ".pdf"):
            out += ".html"
        window.export_report_to(Path(out))


def export_report_to(window: LeadWindow, out: Path) -> Worker | None:
    """Write the report off the GUI thread, with progress and cancel."""
    from triage.views.report import write_report

    project = window._project_of()
    if project is None:
        return None
    path = project.path
    worker = Worker(lambda progress: write_report(path, out, progress=progress))
    dialog = progress_dialog(worker, window, "Writing the report…", "Export report", 300)

    def finished(_data) -> None:
        dialog.reset()
        window.report_button.setEnabled(True)
        window.say(f"report written to {out}")

    def failed(message: str) -> None:
        dialog.reset()
        window.report_button.setEnabled(True)
        QMessageBox.warning(window, "Report failed", message)

    def cancelled() -> None:
        dialog.reset()
        window.report_button.setEnabled(True)
        window.say("report cancelled; nothing was written")

    worker.signals.finished.connect(finished)
    worker.signals.failed.connect(failed)
    worker.signals.cancelled.connect(cancelled)
    window.report_button.setEnabled(False)
    window.report_worker = worker   # keep it alive until it reports
    QThreadPool.globalInstance().start(worker)
    return worker
