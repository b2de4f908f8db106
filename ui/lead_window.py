"""The lead's window: the live overview plus advice, agreement, adjudication and models.

Each analysis tab is computed when it is first shown and on "Recompute"; the project is
read on the GUI thread (quick) and the statistics run in a worker, so the desk never waits.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt, QThreadPool
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QProgressDialog,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from triage.base.errors import TriageError
from triage.views.advice import advice_json, advice_lines, recall_band, summary_lines
from ui.analysis import AdjudicationView, AdviceBanner, AgreementView, ModelsView
from ui.lead_view import LeadView
from ui.workers import Worker

ADVICE_COLUMNS = ("Rule", "Verdict", "Why")


class AdviceTab(QWidget):
    """The stopping advice in full: the banner, every rule, the estimates, certification."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.banner = AdviceBanner(self)
        self.table = QTableWidget(0, len(ADVICE_COLUMNS), self)
        self.table.setHorizontalHeaderLabels(ADVICE_COLUMNS)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setWordWrap(True)
        self.estimate = QLabel("", self)
        self.estimate.setTextFormat(Qt.TextFormat.PlainText)
        self.estimate.setWordWrap(True)
        self.certify = QPushButton("Certify now…", self)
        self.cancel_certify = QPushButton("Cancel certification", self)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.certify)
        buttons.addWidget(self.cancel_certify)
        layout = QVBoxLayout(self)
        layout.addWidget(self.banner)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.estimate)
        layout.addLayout(buttons)
        self.lines = advice_lines(None)
        self.cancel_certify.setEnabled(False)

    def show_advice(self, state) -> None:
        """Show an AdviceState (or its JSON): the same object the banner shows."""
        self.banner.show_advice(state)
        self.lines = lines = advice_lines(state)
        self.table.setRowCount(len(lines.rules))
        for row, cells in enumerate(lines.rules):
            for col, text in enumerate(cells):
                item = QTableWidgetItem(text)  # plain text, never HTML
                item.setToolTip(text)
                self.table.setItem(row, col, item)
        self.table.resizeColumnsToContents()
        self.table.resizeRowsToContents()
        self.estimate.setText("\n".join(summary_lines(lines)))
        record = (advice_json(state) or {}).get("certification_record") or {}
        running = bool(record.get("running"))
        self.cancel_certify.setEnabled(running)
        self.certify.setEnabled(not running and lines.decision != "none")


class LeadWindow(QWidget):
    """Tabs for the lead. ``show_state`` feeds the live overview like the compact panels."""

    def __init__(self, project_of: Callable, lead_session_of: Callable,
                 parent: QWidget | None = None, request_advice: Callable | None = None,
                 certify: Callable[[bool], None] | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Triage — lead view")
        self._project_of = project_of            # () -> the open Project (or None)
        self._lead_session_of = lead_session_of  # () -> a Session for rulings
        self._request_advice = request_advice or (lambda: None)  # ask for a fresh state
        self.state = None                          # the AdviceState every tab shows
        self.workers: dict[str, Worker] = {}
        self.overview = LeadView(self)
        self.advice = AdviceTab(self)
        self.agreement = AgreementView(self)
        self.adjudication = AdjudicationView(self, on_rule=self._rule)
        self.models = ModelsView(self)
        self.tabs = QTabWidget(self)
        for title, widget in (("Overview", self.overview), ("Advice", self.advice),
                              ("Agreement", self.agreement),
                              ("Adjudication", self.adjudication), ("Models", self.models)):
            self.tabs.addTab(widget, title)
        self.status = QLabel("", self)
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        recompute = QPushButton("Recompute", self)
        recompute.clicked.connect(self.refresh_analysis)
        self.report_button = QPushButton("Export report…", self)
        self.report_button.setToolTip("The lead's report as one HTML page or a PDF")
        self.report_button.clicked.connect(self.export_report_dialog)
        self.report_worker: Worker | None = None
        bar = QHBoxLayout()
        bar.addWidget(self.status, 1)
        bar.addWidget(self.report_button)
        bar.addWidget(recompute)
        layout = QVBoxLayout(self)
        layout.addLayout(bar)
        layout.addWidget(self.tabs, 1)
        self._stale = {"agreement", "adjudication", "models"}
        if certify is not None:
            self.advice.certify.clicked.connect(lambda: certify(True))
            self.advice.cancel_certify.clicked.connect(lambda: certify(False))
        self.tabs.currentChanged.connect(lambda _i: self._refresh_current())

    # -- live overview -------------------------------------------------------------------
    def show_state(self, snapshot, info) -> None:
        self.overview.show_state(snapshot, info)

    # -- analysis ------------------------------------------------------------------------
    def refresh_analysis(self) -> None:
        """Mark every analysis stale and recompute the one on screen (and the advice)."""
        self._stale = {"agreement", "adjudication", "models"}
        self._request_advice()
        self._refresh_current()

    def show_advice_state(self, state) -> None:
        """The one advice state: Advice tab, the gain chart's band, the Agreement verdict."""
        self.state = state
        self.advice.show_advice(state)
        self.overview.gain.show_estimate(recall_band(state))
        self.agreement.show_reliability(state)

    def _refresh_current(self) -> None:
        name = {self.agreement: "agreement",
                self.adjudication: "adjudication", self.models: "models"}.get(
            self.tabs.currentWidget())
        if name in self._stale:
            self._run(name)

    def _run(self, name: str) -> None:
        project = self._project_of()
        if project is None:
            return
        self._stale.discard(name)
        try:
            if name == "adjudication":   # a quick query: no worker needed
                from triage.project.adjudication import disagreements

                self.adjudication.show_items(disagreements(project), project.settings.labels)
                return
            work, done = self._job(name, project)
        except TriageError as error:
            self.status.setText(f"{name}: {error}")
            return
        worker = Worker(work)
        worker.signals.finished.connect(done)
        worker.signals.failed.connect(lambda message: self.status.setText(f"{name}: {message}"))
        worker.signals.finished.connect(lambda _r: self.status.setText(""))
        self.workers[name] = worker   # keep it alive until it reports
        self.status.setText(f"computing {name}…")
        QThreadPool.globalInstance().start(worker)

    def _job(self, name: str, project):
        """(work(progress), on_finished) for a tab; reads the project here, on this thread."""
        if name == "agreement":
            from triage.views.analysis import agreement_job, session_labels

            names = session_labels(project)
            return (agreement_job(project, bootstrap=1000),
                    lambda report: self.agreement.show_report(report, names))
        from triage.views.models import build_models_view_data, models_inputs

        inputs = models_inputs(project)
        return (lambda progress: build_models_view_data(inputs, progress=progress),
                self.models.show_data)

    def _rule(self, candidate_id: int, value: str) -> None:
        from triage.project.adjudication import adjudicate, disagreements

        project = self._project_of()
        adjudicate(project, self._lead_session_of(), candidate_id, value)
        self.adjudication.show_items(disagreements(project), project.settings.labels)
        self._stale |= {"agreement"}
        self._request_advice()

    # -- the report ------------------------------------------------------------------------
    def export_report_dialog(self) -> None:
        """Ask where to write the report (HTML or PDF), then write it in the background."""
        project = self._project_of()
        if project is None:
            return
        out, _ = QFileDialog.getSaveFileName(
            self, "Export report", f"{project.path.stem}-report.html",
            "Web page (*.html);;PDF (*.pdf)")
        if out:
            if Path(out).suffix.lower() not in (".html", ".htm", ".pdf"):
                out += ".html"
            self.export_report_to(Path(out))

    def export_report_to(self, out: Path) -> Worker | None:
        """Write the report off the GUI thread, with progress and cancel."""
        from triage.views.report import write_report

        project = self._project_of()
        if project is None:
            return None
        path = project.path
        worker = Worker(lambda progress: write_report(path, out, progress=progress))
        dialog = QProgressDialog("Writing the report…", "Cancel", 0, 100, self)
        dialog.setWindowTitle("Export report")
        dialog.setMinimumDuration(300)
        dialog.canceled.connect(worker.cancel)
        worker.signals.progress.connect(
            lambda done, total: dialog.setValue(int(100 * done / max(1, total))))

        def finished(_data) -> None:
            dialog.reset()
            self.report_button.setEnabled(True)
            self.status.setText(f"report written to {out}")

        def failed(message: str) -> None:
            dialog.reset()
            self.report_button.setEnabled(True)
            QMessageBox.warning(self, "Report failed", message)

        def cancelled() -> None:
            dialog.reset()
            self.report_button.setEnabled(True)
            self.status.setText("report cancelled; nothing was written")

        worker.signals.finished.connect(finished)
        worker.signals.failed.connect(failed)
        worker.signals.cancelled.connect(cancelled)
        self.report_button.setEnabled(False)
        self.report_worker = worker   # keep it alive until it reports
        QThreadPool.globalInstance().start(worker)
        return worker
