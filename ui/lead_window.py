"""The lead's window: the live overview plus advice, agreement, adjudication and models.

Each analysis tab is computed when it is first shown and on "Recompute"; the project is
read on the GUI thread (quick) and the statistics run in a worker, so the desk never waits.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QSize, Qt, QThreadPool, Signal
from PySide6.QtGui import QKeySequence, QShortcut
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
from ui.analysis.guidelines_view import GuidelinesView
from ui.lead_view import LeadView
from ui.palette import FOCUS_STYLE, no_tab_traps
from ui.prefs import Prefs
from ui.window_state import restore_geometry, size_window
from ui.workers import Worker

ADVICE_COLUMNS = ("Rule", "Verdict", "Why")
# The advice is not among them: it arrives as the one AdviceState (show_advice_state).
ANALYSES = ("agreement", "adjudication", "guidelines", "models")
# The lead window's keys, for the F1 sheet (bound in LeadWindow._keys and the views).
LEAD_KEYS = (("Esc or Ctrl+W", "close the lead window"), ("Ctrl+1 … Ctrl+6", "go to a tab"),
             ("F5", "recompute"), ("a label's key", "rule on the selected disagreement"),
             ("Ctrl+Z", "undo your last ruling (in the adjudication table)"),
             ("Tab / Shift+Tab", "move between fields and tables"))


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
        self.table.setTabKeyNavigation(False)
        self.table.setAccessibleName("Stopping rules")
        self.table.setWordWrap(True)
        self.estimate = QLabel("", self)
        self.estimate.setTextFormat(Qt.TextFormat.PlainText)
        self.estimate.setWordWrap(True)
        self.certify = QPushButton("Certify now…", self)
        self.certify.setAccessibleName("Certify recall now")
        self.cancel_certify = QPushButton("Cancel certification", self)
        self.cancel_certify.setAccessibleName("Cancel the certification sample")
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

    guidelinesSaved = Signal()  # the desk re-reads guidelines and highlight words

    def __init__(self, project_of: Callable, prefs: Prefs | None = None,
                 parent: QWidget | None = None, request_advice: Callable | None = None,
                 certify: Callable[[bool], None] | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Triage — lead view")
        self.setStyleSheet(FOCUS_STYLE)
        self._project_of = project_of            # () -> the open Project (or None)
        self.prefs = prefs or Prefs()
        self._request_advice = request_advice or (lambda: None)  # ask for a fresh state
        self.state = None                          # the AdviceState every tab shows
        self.rulings = Rulings(project_of)
        self.workers: dict[str, Worker] = {}
        self.overview = LeadView(self)
        self.advice = AdviceTab(self)
        self.agreement = AgreementView(self)
        self.adjudication = AdjudicationView(self, on_rule=self._rule, on_undo=self._undo_rule)
        self.adjudication.curator.setText(self.prefs.curator())
        self.adjudication.curator.editingFinished.connect(
            lambda: self.prefs.set_curator(self.adjudication.curator_name()))
        self.guidelines = GuidelinesView(self, on_save=self._save_guidelines)
        self.models = ModelsView(self)
        self.tabs = QTabWidget(self)
        self.tabs.tabBar().setAccessibleName("Lead window sections")
        for title, widget in (("Overview", self.overview), ("Advice", self.advice),
                              ("Agreement", self.agreement),
                              ("Adjudication", self.adjudication),
                              ("Guidelines", self.guidelines), ("Models", self.models)):
            self.tabs.addTab(widget, title)
        self.status = QLabel("", self)
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        recompute = QPushButton("&Recompute", self)
        recompute.setToolTip("Compute the advice and the open tab again (F5)")
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
        self._stale = set(ANALYSES)
        if certify is not None:
            self.advice.certify.clicked.connect(lambda: certify(True))
            self.advice.cancel_certify.clicked.connect(lambda: certify(False))
        no_tab_traps(self)
        self._keys()
        self._restore()
        self.tabs.currentChanged.connect(self._tab_changed)

    def _keys(self) -> None:
        """Esc and Ctrl+W close; Ctrl+1…6 pick a tab; F5 recomputes (see LEAD_KEYS)."""
        for keys, what, slot in (("Ctrl+W", "close the lead window", self.close),
                                 ("F5", "recompute", self.refresh_analysis)):
            shortcut = QShortcut(QKeySequence(keys), self)
            shortcut.setWhatsThis(what)
            shortcut.activated.connect(slot)
        for i in range(self.tabs.count()):
            shortcut = QShortcut(QKeySequence(f"Ctrl+{i + 1}"), self)
            shortcut.activated.connect(lambda i=i: self.tabs.setCurrentIndex(i))

    def _restore(self) -> None:
        """Last tab, size and position (clamped to this screen)."""
        titles = [self.tabs.tabText(i) for i in range(self.tabs.count())]
        last = self.prefs.lead_tab()
        if last in titles:
            self.tabs.setCurrentIndex(titles.index(last))
        if not restore_geometry(self, self.prefs.layout("lead_geometry")):
            size_window(self, QSize(1200, 800))

    def keyPressEvent(self, event) -> None:  # noqa: N802 - Qt override
        """Esc (not taken by a child) and Ctrl+W close the window, as dialogs do."""
        ctrl_w = (event.key() == Qt.Key.Key_W
                  and event.modifiers() == Qt.KeyboardModifier.ControlModifier)
        if event.key() == Qt.Key.Key_Escape or ctrl_w:
            self.close()
            return
        super().keyPressEvent(event)

    def closeEvent(self, event) -> None:  # noqa: N802 - Qt override
        self.prefs.set_layout("lead_geometry", self.saveGeometry())
        self.prefs.set_curator(self.adjudication.curator_name())
        self.rulings.end()
        super().closeEvent(event)

    def _tab_changed(self, index: int) -> None:
        self.prefs.set_lead_tab(self.tabs.tabText(index))
        self._refresh_current()

    # -- live overview -------------------------------------------------------------------
    def show_state(self, snapshot, info) -> None:
        self.overview.show_state(snapshot, info)

    # -- analysis ------------------------------------------------------------------------
    def refresh_analysis(self) -> None:
        """Mark every analysis stale and recompute the one on screen (and the advice)."""
        self._stale = set(ANALYSES)
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
                self.adjudication: "adjudication", self.guidelines: "guidelines",
                self.models: "models"}.get(self.tabs.currentWidget())
        if name in self._stale:
            self._run(name)

    def _run(self, name: str) -> None:
        project = self._project_of()
        if project is None:
            return
        self._stale.discard(name)
        try:
            if name in ("adjudication", "guidelines"):   # quick queries: no worker needed
                self._show_quick(name, project)
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

    def _show_quick(self, name: str, project) -> None:
        if name == "adjudication":
            from triage.project.adjudication import disagreements

            self.adjudication.show_items(disagreements(project), project.settings.labels)
        else:
            from triage.project.guidelines import current_guidelines

            self.guidelines.show_guidelines(current_guidelines(project),
                                            project.settings.highlight_words)

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

    # -- the lead's actions ----------------------------------------------------------------
    def _rule(self, candidate_id: int, value: str) -> None:
        """Record a ruling under the curator's name (asked for once, then remembered)."""
        from triage.project.adjudication import adjudicate, disagreements

        project = self._project_of()
        name = self.adjudication.curator_name()
        self.prefs.set_curator(name)
        adjudicate(project, self.rulings.session(name), candidate_id, value)
        self.adjudication.show_items(disagreements(project), project.settings.labels)
        self._stale |= {"agreement"}
        self._request_advice()

    def _undo_rule(self) -> int | None:
        from triage.project.adjudication import disagreements, undo_ruling

        project = self._project_of()
        candidate = undo_ruling(project, self.rulings.session(self.adjudication.curator_name()))
        if candidate is not None:
            self.adjudication.show_items(disagreements(project), project.settings.labels)
            self._stale |= {"agreement"}
            self._request_advice()
        return candidate

    def _save_guidelines(self, text: str, words: tuple[str, ...]) -> str:
        from triage.project.guidelines import save_guidelines

        project = self._project_of()
        if project is None:
            raise TriageError("no project is open")
        before = project.settings.highlight_words
        saved = save_guidelines(project, text, self.adjudication.curator_name() or None)
        if tuple(words) != tuple(before):
            project.update_settings(highlight_words=words)
        self.guidelines.show_guidelines(saved, project.settings.highlight_words)
        self.guidelinesSaved.emit()
        self._request_advice()
        return f"Saved: guidelines v{saved.version}, {len(words)} highlight words."

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


class Rulings:
    """The curator's session per name: rulings are recorded under the curator, not the desk."""

    def __init__(self, project_of: Callable) -> None:
        self._project_of = project_of
        self._sessions: dict[tuple[int, str], object] = {}

    def session(self, name: str):
        """The session to rule under; TriageError until the curator gives a name."""
        if not name:
            raise TriageError("type your name as curator first: every ruling records who made it")
        project = self._project_of()
        if project is None:
            raise TriageError("no project is open")
        key = (id(project), name)
        if key not in self._sessions:
            self._sessions[key] = project.start_session(name)
        return self._sessions[key]

    def end(self) -> None:
        """End the curator sessions of the open project (others were closed with theirs)."""
        project = self._project_of()
        for (pid, _name), session in list(self._sessions.items()):
            if project is not None and pid == id(project):
                with contextlib.suppress(TriageError):
                    project.end_session(session)
        self._sessions.clear()
