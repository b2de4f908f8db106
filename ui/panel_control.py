"""The main window's panel controller: create the live panels once the first candidate is
on screen, read what they need off the GUI thread, and hand them snapshots, coalesced.

Two reads would stall the desk if they ran here: the offline curves (a scan of the whole
pool) and the first build of the live state (a replay of every label event). The live state
is built on a worker thread from a copy of the project's label events
(:mod:`triage.project.live_build`); the curves, like the checkpoints taken while the
annotator pauses, come from the helper process (:mod:`ui.advice_process`), which has its own
connection. The panels draw when they arrive.

The controller holds no reference to the window: it is given the splitter the panels go
in, the preferences and a way to read the open project, and it says ``refreshed(snapshot)``
after each refresh (the lead window draws the same snapshot).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt, QThreadPool, QTimer, Signal
from PySide6.QtWidgets import QSplitter

from ui.palette import no_tab_traps
from ui.prefs import Prefs
from ui.window_state import restore_splitter
from ui.workers import Worker

if TYPE_CHECKING:  # loaded with the panels, after the first candidate is on screen
    from triage.project import Project
    from triage.project.live_build import BuiltLive
    from triage.views.panels import PanelInfo

# A chart redraw costs tens of milliseconds of Python on the chart thread, and every
# SQLite call of a key press then waits its turn for the interpreter lock: a redraw that
# overlaps a key press delays the next candidate. So while labels keep coming, one panel
# (each in turn) redraws just after a label's next candidate is shown (the annotator is
# reading it: the quietest time ahead; three in a row overran a quick annotator's next key),
# at most every MIN_GAP_S; all of them redraw once the annotator pauses, and at least every
# MAX_DEFER_S. (Waiting for a pause alone lined redraws up with a steady annotator's keys.)
AFTER_LABEL_MS = 10      # (each panel then waits its own REDRAW_MS: the paint comes first)
HOLD_RENDERS_MS = 60     # renders already queued wait as long (ui.panels._base)
MIN_GAP_S = 0.3
PAUSE_MS = 600
MAX_DEFER_S = 5.0
PREPARE_HELPERS_MS = 2000  # after the curves arrive (ui.advice_process.prepare_lead_helpers)
CHECKPOINT_EVERY = 200  # label events between checkpoints taken while the annotator pauses


class PanelController(QObject):
    """The three live panels of the main window and the reads that feed them."""

    refreshed = Signal(object)   # the snapshot the panels were just given

    def __init__(self, panel_split: QSplitter, prefs: Prefs,
                 project_of: Callable[[], Project | None]) -> None:
        super().__init__(panel_split)
        self.panel_split, self.prefs, self._project_of = panel_split, prefs, project_of
        self.panels: tuple = ()
        self.info: PanelInfo | None = None
        self.refreshes = 0
        self._checkpointed_at: int | None = None  # label events at the last checkpoint
        self._background: set = set()  # workers for the panels, kept until they report
        self._live_building: Any = None  # the project whose live state a worker builds
        self._checkpointing = False
        self._panel_pool = QThreadPool()  # its own threads: two of them wait on the helper
        self._panel_pool.setMaxThreadCount(3)
        self._pause_timer = self._timer(PAUSE_MS, self.refresh_panels)
        self._soon_timer = self._timer(AFTER_LABEL_MS, self._refresh_soon)
        self._refreshed_at = float("-inf")   # monotonic time of the last refresh, any
        self._all_at = float("-inf")         # ... of the last refresh of every panel
        self._changed_at = float("-inf")     # ... and of the last change asked for
        self._turn = 0                       # the panel whose turn it is in a burst

    def _timer(self, ms: int, then: Callable[[], None]) -> QTimer:
        timer = QTimer(self)
        timer.setSingleShot(True)
        timer.setInterval(ms)
        timer.timeout.connect(then)
        return timer

    @property
    def project(self) -> Project | None:
        """The open project (the window's)."""
        return self._project_of()

    def busy(self) -> bool:
        """Is a background read of the panels (the offline curves included) still out?"""
        return bool(self._background)

    def closed(self) -> None:
        """The project closed: what arrives for it is dropped."""
        self.info = None
        self._checkpointed_at = None

    def curves(self) -> dict | None:
        """The offline curves, once read (the lead window's model comparison uses them)."""
        return (self.info.offline_curves or None) if self.info is not None else None

    def lead_info(self) -> PanelInfo | None:
        """The panel info with the annotators' table, for the lead window's overview."""
        project = self.project
        if self.info is None or project is None:
            return None
        return dataclasses.replace(self.info, annotator_rows=project.annotator_table())

    def settings_changed(self, model_changed: bool) -> None:
        """The settings changed: reload everything for another model, else refresh."""
        if model_changed:
            self.load_panel_info()
        else:
            self._settings_info()
            self.refresh_panels()

    def ensure_panels(self) -> None:
        """Create the live panels (cheap: their figures are built on the chart thread)."""
        if self.panels:
            return
        from ui.panels import GainPanel, SpendPanel, YieldPanel

        self.gain, self.spend, self.yield_ = GainPanel(), SpendPanel(), YieldPanel()
        self.panels = (self.gain, self.spend, self.yield_)
        for panel in self.panels:
            panel.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            self.panel_split.addWidget(panel)
        no_tab_traps(self.panel_split.window())
        restore_splitter(self.panel_split, self.prefs.layout("panel_split"), weights=[1, 1, 1],
                         minimum=80)

    def load_panel_info(self) -> None:
        """Create the panels and start the background reads; they draw when these arrive.

        Over several turns of the event loop, so that the desk answers between them: one
        worker loads the chart classes (an import of a few hundredths of a second that the
        GUI thread need not make), then the GUI thread creates the panels while the worker
        builds the live state and warms the serving up. One worker, not two: two threads
        running Python beside the GUI thread make it wait longer for the interpreter lock.
        """
        if self.project is None:
            self.ensure_panels()
            return
        from triage.project.live_build import build_live, live_inputs, serving_warmup

        project = self.project
        warmup = serving_warmup(project)
        inputs = live_inputs(project)
        if inputs is not None:
            self._live_building = project

        def background(progress):
            import ui.panels  # noqa: F401 - the chart classes, off the GUI thread

            progress(0, 1)  # the GUI thread creates the panels meanwhile
            built = build_live(inputs) if inputs is not None else None
            warmup()
            return built

        def failed(_message: str) -> None:
            self._live_arrived(project, None)
            self._load_panels_then_curves(project)

        self._start_read(background, lambda built: self._live_arrived(project, built),
                         progress=lambda *_: self._load_panels_then_curves(project),
                         failed=failed)

    def _load_panels_then_curves(self, project: Project) -> None:
        """The later turns of :meth:`_load_panel_info`: the panels, then the curves."""
        if project is not self.project:
            return
        self.ensure_panels()
        self.info = self._panel_info(self.info.offline_curves if self.info else {})
        if not self.live_pending():
            self.refresh_panels()
        QTimer.singleShot(0, lambda: self._read_curves(project))

    def _read_curves(self, project: Project) -> None:
        if project is not self.project:
            return
        from ui.advice_process import helper_call

        path = project.path
        self._start_read(lambda _p: helper_call("curves", path),
                         lambda curves: self._curves_arrived(project, curves))

    def _start_read(self, work, done, *, progress=None, failed=None) -> Worker:
        """Run ``work`` on a worker thread (``done`` gets its result on this thread; so do
        ``progress`` its progress calls and ``failed`` its error, connected before it runs)."""
        worker = Worker(work)
        worker.signals.finished.connect(done)
        if progress is not None:
            worker.signals.progress.connect(progress)
        if failed is not None:
            worker.signals.failed.connect(failed)
        worker.signals.finished.connect(lambda _r: self._background.discard(worker))
        worker.signals.failed.connect(lambda _m: self._background.discard(worker))
        self._background.add(worker)  # kept alive until it reports
        self._panel_pool.start(worker)
        return worker

    def live_pending(self) -> bool:
        """Is the open project's live state still being built off the GUI thread?"""
        return self._live_building is not None and self._live_building is self.project

    def _live_arrived(self, project: Project, built: BuiltLive | None) -> None:
        if project is not self.project:
            return
        self._live_building = None
        from triage.project.live_build import adopt_live

        if built is not None:  # None: the build failed; the project rebuilds on first use
            adopt_live(project, built)  # when stale, likewise
        self.refresh_panels()

    def _curves_arrived(self, project, curves: dict) -> None:
        if project is not self.project or self.info is None:
            return
        # The desk has settled: a good moment to get the lead window's helpers ready.
        from ui.advice_process import prepare_lead_helpers

        QTimer.singleShot(PREPARE_HELPERS_MS, prepare_lead_helpers)
        self.info = dataclasses.replace(self.info, offline_curves=curves)
        self.refresh_panels()

    def _panel_info(self, offline_curves: dict) -> PanelInfo:
        from triage.views.panels import PanelInfo

        project = self.project
        assert project is not None  # panels are shown for an open project only
        settings = project.settings
        model = project.active_model()
        return PanelInfo(
            pool=project.pool, currency=settings.currency, budget=settings.budget,
            value_per_positive=settings.value_per_positive,
            price_per_item=settings.price_per_item, offline_curves=offline_curves,
            active_model=model.name if model else None,
        )

    def _settings_info(self) -> None:
        """Refresh the settings-derived fields of the panel info (curves are kept)."""
        if self.project is None or self.info is None:
            return
        self.info = self._panel_info(self.info.offline_curves)

    def schedule_refresh(self) -> None:
        """A change: a panel redraws just after it, all of them once the annotator pauses
        (coalesced; see MIN_GAP_S)."""
        if self.panels:  # (the panels' module is loaded with them)
            from ui.panels import hold_renders

            hold_renders(HOLD_RENDERS_MS)
        self._changed_at = now = time.monotonic()
        self._pause_timer.start()
        if now - self._refreshed_at >= MIN_GAP_S and not self._soon_timer.isActive():
            self._soon_timer.start()

    def _refresh_soon(self) -> None:
        """One panel, in turn, gets the current snapshot (every panel, now and then)."""
        if time.monotonic() - self._all_at >= MAX_DEFER_S or len(self.panels) < 2:
            self.refresh_panels()
            return
        if self.project is None or self.info is None or not self.project.models \
                or self.live_pending():
            return
        self._refreshed_at = time.monotonic()
        self._turn = (self._turn + 1) % len(self.panels)
        self.panels[self._turn].show_state(self.project.snapshot(), self.info)

    def refresh_panels(self) -> None:
        """Hand the current snapshot to the panels (each schedules its own redraw)."""
        self._pause_timer.stop()  # a refresh asked for after the labels is this one
        self._soon_timer.stop()
        self._refreshed_at = self._all_at = now = time.monotonic()
        paused = now - self._changed_at >= PAUSE_MS / 1000
        if self.project is None or self.info is None or not self.project.models:
            return
        if self.live_pending():
            return  # the live state arrives from its worker and refreshes then
        self.refreshes += 1
        snapshot = self.project.snapshot()
        for panel in self.panels:
            panel.show_state(snapshot, self.info)
        self.refreshed.emit(snapshot)
        if self._checkpointed_at is None:
            self._checkpointed_at = snapshot.events  # counted from the opening
        elif (snapshot.events - self._checkpointed_at >= CHECKPOINT_EVERY and paused
              and not self._checkpointing):
            # The annotator has paused: a good moment to fold the log into the file, on a
            # worker with its own connection (it waits for the disk).
            from ui.advice_process import helper_call

            self._checkpointed_at = snapshot.events
            path = self.project.path
            self._checkpointing = True
            self._start_read(lambda _p: helper_call("checkpoint", path), self._checkpointed,
                             failed=self._checkpointed)

    def _checkpointed(self, _result=None) -> None:
        self._checkpointing = False

