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
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QSplitter

from triage.views import redraw, tasks
from triage.views.redraw import RedrawPolicy
from ui.jobs import HELPERS, PANELS, Worker
from ui.palette import no_tab_traps
from ui.prefs import Prefs
from ui.window_state import restore_splitter

if TYPE_CHECKING:  # loaded with the panels, after the first candidate is on screen
    from triage.project import Project
    from triage.project.live_build import BuiltLive
    from triage.views.panels import PanelInfo

# When the panels redraw while labels keep coming is triage.views.redraw.RedrawPolicy's
# (Qt-free); here are its timers.
AFTER_LABEL_MS = 10      # (each panel then waits its own REDRAW_MS: the paint comes first)
HOLD_RENDERS_MS = 60     # renders already queued wait as long (ui.panels._base)
MIN_GAP_S = redraw.MIN_GAP_S                # (read when a controller is made)
PAUSE_MS = round(1000 * redraw.PAUSE_S)
PREPARE_HELPERS_MS = 2000  # after the curves arrive (ui.jobs.HELPERS.prepare)


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
        self._background: set = set()  # workers for the panels, kept until they report
        # A curves read asked for but not started yet (it starts on the next turn of the
        # event loop): it counts as out, or busy() would say "done" in between.
        self._curves_due: Project | None = None
        self._live_building: Any = None  # the project whose live state a worker builds
        self._checkpointing = False
        self.policy = RedrawPolicy(min_gap_s=MIN_GAP_S, pause_s=PAUSE_MS / 1000)
        self._pause_timer = self._timer(PAUSE_MS, self.refresh_panels)
        self._soon_timer = self._timer(AFTER_LABEL_MS, self._refresh_soon)

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
        return bool(self._background) or self._curves_due is not None

    def closed(self) -> None:
        """The project closed: what arrives for it is dropped."""
        self.info = None
        self.policy.closed()

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
        worker loads the chart classes (an import the GUI thread need not make), then the GUI thread creates the panels while the worker
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
        self._curves_due = project
        QTimer.singleShot(0, lambda: self._read_curves(project))

    def _read_curves(self, project: Project) -> None:
        if self._curves_due is project:
            self._curves_due = None
        if project is not self.project:
            return
        path = project.path
        self._start_read(lambda _p: HELPERS.call(tasks.CURVES, path),
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
        worker.start(PANELS)   # its own lane: two of its reads wait on the helper
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
        QTimer.singleShot(PREPARE_HELPERS_MS, HELPERS.prepare)
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
        self._pause_timer.start()
        if self.policy.changed() and not self._soon_timer.isActive():
            self._soon_timer.start()

    def _refresh_soon(self) -> None:
        """One panel, in turn, gets the current snapshot (every panel, now and then)."""
        if self.policy.all_due(len(self.panels)):
            self.refresh_panels()
            return
        if self.project is None or self.info is None or not self.project.models \
                or self.live_pending():
            return
        turn = self.policy.next_turn(len(self.panels))
        self.panels[turn].show_state(self.project.snapshot(), self.info)

    def refresh_panels(self) -> None:
        """Hand the current snapshot to the panels (each schedules its own redraw)."""
        self._pause_timer.stop()  # a refresh asked for after the labels is this one
        self._soon_timer.stop()
        paused = self.policy.all_refreshed()
        if self.project is None or self.info is None or not self.project.models:
            return
        if self.live_pending():
            return  # the live state arrives from its worker and refreshes then
        self.refreshes += 1
        snapshot = self.project.snapshot()
        for panel in self.panels:
            panel.show_state(snapshot, self.info)
        self.refreshed.emit(snapshot)
        if not self._checkpointing and self.policy.checkpoint_due(snapshot.events, paused):
            # The annotator has paused: a good moment to fold the log into the file, in the
            # helper with its own connection (it waits for the disk).
            path = self.project.path
            self._checkpointing = True
            self._start_read(lambda _p: HELPERS.call(tasks.CHECKPOINT, path), self._checkpointed,
                             failed=self._checkpointed)

    def _checkpointed(self, _result=None) -> None:
        self._checkpointing = False

