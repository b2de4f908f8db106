"""The lead's window: the live overview plus advice, agreement, adjudication, models, data.

The window opens at once; a tab whose figures are not ready says "computing…". Every analysis
starts when the window opens and on "Recompute": agreement, disagreements and the model comparison
are computed in the lead's helper process (:mod:`ui.advice_process`, its own connection and
interpreter, so neither the desk nor this window waits), the guidelines (one row) here. The chart
views load matplotlib (about a second): it is imported on a worker thread first and the two chart
views are built when it is there. The model comparison comes in three steps.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from functools import partial
from importlib import import_module
from pathlib import Path
from typing import Any

from PySide6.QtCore import QSize, Qt, QThreadPool, QTimer, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QTabWidget, QVBoxLayout, QWidget

from triage.base.errors import TriageError
from triage.views.advice import recall_band
from triage.views.lead_schedule import (
    ANALYSES,
    LeadSchedule,
    Request,
    fill_in,
    guidelines_tab,
    save_guidelines_tab,
)
from ui.analysis.adjudication_view import AdjudicationView
from ui.analysis.gallery_view import GalleryView
from ui.analysis.guidelines_view import GuidelinesView
from ui.data_manager import lead_data_tab
from ui.lead_report import ask_report_path, write_report_in_background
from ui.lead_tabs import ADVICE_COLUMNS, LEAD_KEYS, AdviceTab, Rulings, computing_placeholder
from ui.lead_view import LeadView
from ui.palette import FOCUS_STYLE, no_tab_traps
from ui.prefs import Prefs
from ui.window_state import keep_on_screen, restore_geometry, size_window
from ui.workers import Worker

__all__ = ["ADVICE_COLUMNS", "ANALYSES", "LEAD_KEYS", "AdviceTab", "LeadWindow", "Rulings"]

# Imported on a worker before the chart views are built (matplotlib: about a second).
CHART_MODULES = ("matplotlib.backends.backend_agg", "ui.analysis.agreement_view",
                 "ui.analysis.models_view")


class LeadWindow(QWidget):
    """Tabs for the lead. ``show_state`` feeds the live overview like the compact panels."""

    guidelinesSaved = Signal()  # the desk re-reads guidelines and highlight words

    def __init__(self, project_of: Callable, prefs: Prefs | None = None,
                 parent: QWidget | None = None, request_advice: Callable | None = None,
                 certify: Callable[[bool], None] | None = None,
                 curves_of: Callable[[], dict | None] | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Triage — lead view")
        self.setStyleSheet(FOCUS_STYLE)
        self._project_of = project_of            # () -> the open Project (or None)
        self._curves_of = curves_of or (lambda: None)  # the desk's offline curves, if read
        self.prefs = prefs or Prefs()
        self._request_advice = request_advice or (lambda: None)  # ask for a fresh state
        self.state = None                          # the AdviceState every tab shows
        self.rulings = Rulings(project_of)
        self.workers: dict[str, Worker] = {}
        self._pools = {h: QThreadPool(self) for h in ("lead", "models")}  # one thread each,
        for pool in self._pools.values():   # so that the Models tab never waits for the lead's
            pool.setMaxThreadCount(1)       # helper, and each helper's requests keep their order
        self.schedule = LeadSchedule()             # what is stale, computing, shown
        self.overview = LeadView(self)
        self.advice = AdviceTab(self)
        self.adjudication = AdjudicationView(self, on_rule=self._rule, on_undo=self._undo_rule,
                                             project_of=project_of)
        self.adjudication.curator.setText(self.prefs.curator())
        self.adjudication.curator.editingFinished.connect(
            lambda: self.prefs.set_curator(self.adjudication.curator_name()))
        self.guidelines = GuidelinesView(self, on_save=self._save_guidelines)
        self.gallery = GalleryView(self, project_of=project_of)
        self.data = lead_data_tab(self, project_of, self.adjudication.curator_name, self.rulings)
        self.agreement: Any = None                 # the chart views: see _load_chart_views
        self.models: Any = None
        self._placeholders = {"agreement": computing_placeholder("agreement", self),
                              "models": computing_placeholder("the model comparison", self)}
        self.tabs = QTabWidget(self)
        self.tabs.tabBar().setAccessibleName("Lead window sections")
        for title, widget in (("Overview", self.overview), ("Advice", self.advice),
                              ("Agreement", self._placeholders["agreement"]),
                              ("Adjudication", self.adjudication), ("Guidelines", self.guidelines),
                              ("Models", self._placeholders["models"]), ("Gallery", self.gallery),
                              ("Data", self.data)):
            self.tabs.addTab(widget, title)
        self._build_bar(certify)
        no_tab_traps(self)
        self._keys()
        self._restore()
        self.tabs.currentChanged.connect(self._tab_changed)
        self._load_chart_views()

    def _build_bar(self, certify: Callable[[bool], None] | None) -> None:
        self.status = QLabel("", self)
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        recompute = QPushButton("&Recompute", self)
        recompute.setToolTip("Compute the advice and every tab again (F5)")
        recompute.clicked.connect(self.refresh_analysis)
        self.report_button = QPushButton("Export report…", self)
        self.report_button.setToolTip("The lead's report as one HTML page or a PDF")
        self.report_button.clicked.connect(self.export_report_dialog)
        self.report_worker: Worker | None = None
        bar = QHBoxLayout()
        bar.addWidget(self.status, 1)
        bar.addWidget(self.report_button)
        bar.addWidget(recompute)
        # No scroll bar round the tabs: a tab's buttons (rulings, Save guidelines,
        # certification) always in sight. The chart tabs scroll inside (1366×768 at 150 %
        # leaves 512 logical pixels; the Agreement tab's charts want more).
        layout = QVBoxLayout(self)
        layout.addLayout(bar)
        layout.addWidget(self.tabs, 1)
        if certify is not None:
            self.advice.certify.clicked.connect(lambda: certify(True))
            self.advice.cancel_certify.clicked.connect(lambda: certify(False))

    def _load_chart_views(self) -> None:
        """Import matplotlib and the chart views on a worker, then build the views here."""
        if all(name in sys.modules for name in CHART_MODULES):
            self._build_chart_views()
            return
        worker = Worker(lambda _p: [import_module(name) for name in CHART_MODULES])
        worker.signals.finished.connect(lambda _r: self._build_chart_views())
        worker.signals.failed.connect(lambda message: self.say(f"charts: {message}"))
        self.workers["charts"] = worker
        QThreadPool.globalInstance().start(worker)

    def _build_chart_views(self) -> None:
        """Put the chart views in place of their placeholders, one per event-loop turn."""
        from ui.analysis.agreement_view import AgreementView
        from ui.analysis.models_view import ModelsView

        def place(name: str, view: QWidget) -> None:
            placeholder = self._placeholders.pop(name)
            index, current = self.tabs.indexOf(placeholder), self.tabs.currentIndex()
            title = self.tabs.tabText(index)
            self.tabs.blockSignals(True)  # the same tab stays current: nothing to recompute
            self.tabs.removeTab(index)
            self.tabs.insertTab(index, view, title)
            self.tabs.setCurrentIndex(current)
            self.tabs.blockSignals(False)
            placeholder.deleteLater()
            self._draw_all(self.schedule.view_built(name))

        def agreement() -> None:
            self.agreement = AgreementView(self)
            if self.state is not None:
                self.agreement.show_reliability(self.state)
            place("agreement", self.agreement)
            QTimer.singleShot(0, models)

        def models() -> None:
            self.models = ModelsView(self)
            place("models", self.models)
            no_tab_traps(self)
            # The chart views widen the window's minimum: a narrow window restored at the
            # screen's edge would now reach past it.
            if (layout := self.layout()) is not None:
                layout.activate()
            keep_on_screen(self)

        agreement()

    def keyPressEvent(self, event) -> None:  # noqa: N802 - Qt override
        """Esc (not taken by a child) and Ctrl+W close the window, as dialogs do."""
        ctrl_w = (event.key() == Qt.Key.Key_W
                  and event.modifiers() == Qt.KeyboardModifier.ControlModifier)
        if event.key() == Qt.Key.Key_Escape or ctrl_w:
            self.close()
            return
        super().keyPressEvent(event)

    def _keys(self) -> None:
        """Esc and Ctrl+W close; Ctrl+1…8 pick a tab; F5 recomputes (see LEAD_KEYS)."""
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

    def closeEvent(self, event) -> None:  # noqa: N802 - Qt override
        from ui.advice_process import stop_helper

        if self.isVisible() and not self.guidelines.confirm_leave():
            event.ignore()   # Cancel, or the save failed: the draft stays on screen
            return
        self.prefs.set_layout("lead_geometry", self.saveGeometry())
        self.prefs.set_curator(self.adjudication.curator_name())
        self.rulings.end()
        # A model comparison still running is of no use now: end its helper (the next
        # opening starts another); what it was computing counts as stale.
        stop_helper("models")
        self.schedule.closed()
        super().closeEvent(event)

    def _tab_changed(self, index: int) -> None:
        self.prefs.set_lead_tab(self.tabs.tabText(index))
        self._refresh_current()

    def bring_forward(self) -> None:
        """Show, raise and take the keyboard focus (Ctrl+L on an open lead window)."""
        self.show()
        self.raise_()
        self.activateWindow()
        current = self.tabs.currentWidget()
        target = current.focusWidget() if current is not None else None
        (target or self.tabs.tabBar()).setFocus(Qt.FocusReason.ActiveWindowFocusReason)

    def current_project(self):
        """The open project (or None): Save chart… starts in its folder."""
        return self._project_of()

    def pending_tabs(self) -> set[str]:
        """The tabs not yet showing their figures: "computing…" or still filling."""
        return self.schedule.pending()

    # -- live overview -------------------------------------------------------------------
    def show_state(self, snapshot, info) -> None:
        self.overview.show_state(snapshot, info)
        self.schedule.shown("overview")

    # -- analysis ------------------------------------------------------------------------
    def refresh_analysis(self) -> None:
        """Recompute the advice and every analysis tab, each on its worker or helper."""
        self._request_advice()
        self.gallery.recompute()
        if self._project_of() is None:
            self.schedule.closed()   # all stale: they compute once a project is open
            return
        self._run(self.schedule.recompute())

    def project_opened(self) -> None:
        """Another project is open: drop the old one's news (a report written…) and figures."""
        self.say("")
        if self.isVisible():
            self.refresh_analysis()

    def show_advice_state(self, state) -> None:
        """The one advice state: Advice tab, the gain chart's band, the Agreement verdict."""
        self.state = state
        self.advice.show_advice(state)
        self.overview.gain.show_estimate(recall_band(state))
        if self.agreement is not None:
            self.agreement.show_reliability(state)
        self.schedule.shown("advice")

    def _refresh_current(self) -> None:
        widget = self.tabs.currentWidget()
        views = {"agreement": self.agreement, "adjudication": self.adjudication,
                 "guidelines": self.guidelines, "models": self.models}
        name = next((n for n in ANALYSES if widget is not None and widget in (
            views[n], self._placeholders.get(n))), None)
        if self._project_of() is not None:
            self._run(self.schedule.on_tab(name))

    def _run(self, requests: list[Request]) -> None:
        """Do what the schedule asks: the guidelines here (one row), the rest in helpers."""
        project = self._project_of()
        if project is None:   # the callers ask the schedule only with one open
            return
        from ui.advice_process import helper_call

        path = project.path
        for request in requests:
            if request.helper == "local":
                try:
                    self._draw_all(self.schedule.arrive(request.step, guidelines_tab(project)))
                except TriageError as error:
                    self.say(self.schedule.fail(request.step, str(error)))
                continue
            args = (self._curves_of(),) if request.needs_curves else ()
            extra = {"stage": request.stage} if request.stage else {}
            work = partial(helper_call, request.task, path, *args, helper=request.helper, **extra)
            self._start(request.step, path, work, request.helper)

    def _start(self, name: str, path: Path, work: Callable[[], Any], helper: str) -> None:
        worker = Worker(lambda _progress: work())
        worker.signals.finished.connect(lambda result: self._arrive(name, path, result))
        worker.signals.failed.connect(lambda message: self._arrive(name, path, None, message))
        self.workers[name] = worker   # keep it alive until it reports
        self._say_computing()
        self._pools[helper].start(worker)

    def say(self, news: str) -> None:
        """Show news (a report written, an error) in the status line; it stays there, beside
        what is still computing, until the next news."""
        self.schedule.say(news)
        self._say_computing()

    def _say_computing(self) -> None:
        self.status.setText(self.schedule.status())

    def _arrive(self, name: str, path: Path, result: Any, error: str | None = None) -> None:
        self.workers.pop(name, None)
        project = self._project_of()
        if project is None or project.path != path:
            self.schedule.dropped(name)   # another project is open now
        elif error is not None:
            self.schedule.fail(name, error)   # it will not fill: the status line says why
        else:
            self._draw_all(self.schedule.arrive(name, result))
        self._say_computing()

    def _draw_all(self, results: list[tuple[str, Any]]) -> None:
        """Draw each result the schedule hands over into its tab."""
        for name, result in results:
            if name == "agreement":
                report, names = result
                self.agreement.show_report(report, names)
            elif name == "adjudication":
                project = self._project_of()
                labels = project.settings.labels if project is not None else ()
                self.adjudication.show_items(result, labels)
            elif name == "guidelines":
                self.guidelines.show_guidelines(*result)
            elif name == "models":
                self.models.show_data(result)
            else:  # the value tables or the tests, into the comparison already shown
                self.models.show_data(fill_in(name, self.models.data, result))

    # -- the lead's actions ----------------------------------------------------------------
    def _rule(self, candidate_id: int, value: str) -> None:
        """Record a ruling under the curator's name (asked for once, then remembered)."""
        from triage.project.adjudication import adjudicate, disagreements

        project = self._project_of()
        name = self.adjudication.curator_name()
        self.prefs.set_curator(name)
        adjudicate(project, self.rulings.session(name), candidate_id, value)
        self.adjudication.show_items(disagreements(project), project.settings.labels)
        self.schedule.ruled()
        self._request_advice()

    def _undo_rule(self) -> int | None:
        from triage.project.adjudication import disagreements, undo_ruling

        project = self._project_of()
        candidate = undo_ruling(project, self.rulings.session(self.adjudication.curator_name()))
        if candidate is not None:
            self.adjudication.show_items(disagreements(project), project.settings.labels)
            self.schedule.ruled()
            self._request_advice()
        return candidate

    def _save_guidelines(self, text: str, words: tuple[str, ...]) -> str:
        project = self._project_of()
        if project is None:
            raise TriageError("no project is open")
        saved, news = save_guidelines_tab(project, text, tuple(words),
                                          self.adjudication.curator_name() or None)
        self.guidelines.show_guidelines(saved, project.settings.highlight_words)
        self.guidelinesSaved.emit()
        self._request_advice()
        return news

    # -- the report ------------------------------------------------------------------------
    def export_report_dialog(self) -> None:
        """Ask where to write the report (HTML or PDF), then write it in the background."""
        project = self._project_of()
        out = ask_report_path(self, project.path) if project is not None else None
        if out is not None:
            self.export_report_to(out)

    def export_report_to(self, out: Path) -> Worker | None:
        """Write the report off the GUI thread, with progress and cancel."""
        project = self._project_of()
        if project is None:
            return None
        self.report_worker = write_report_in_background(self, project.path, out,
                                                        self.report_button, self.say)
        return self.report_worker
