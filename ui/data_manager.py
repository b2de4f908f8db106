"""The data manager: every candidate in a virtual table, searched, filtered and sorted.

The lead's "Data" tab and the annotator's "Find…" (Ctrl+F). Queries run off the GUI thread
on a connection of their own (:mod:`triage.project.datamgr`), one at a time: typing while
one runs leaves only the newest waiting, and a result older than the newest question is
dropped. The full-text index is built on a second thread on first use and after the pool
grew; until it is ready the status line says so and the words wait, nothing blocks.
The table fetches the cells of the rows in sight only (:mod:`ui.data_table`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from PySide6.QtCore import QSize, Qt, QTimer, Signal
from PySide6.QtWidgets import QAbstractItemView, QSplitter, QTableView, QVBoxLayout, QWidget

from triage.base.errors import TriageError
from triage.project.datamgr import (
    Catalog,
    Query,
    Viewer,
    build_search_index,
    key_positions,
    load_catalog,
    open_reader,
    run_query,
)
from triage.project.datamgr_actions import export_selection, record_of, relabel, rule
from triage.views.data_manager import columns, page, record_view
from ui.data_filters import FilterBar
from ui.data_record import RecordPane
from ui.jobs import DATA_INDEX, DATA_QUERIES, Worker
from ui.window_state import size_window

DEBOUNCE_MS = 120


@dataclass(frozen=True)
class DataContext:
    """Where the data manager finds the project, who looks, and their session."""

    project_of: Callable[[], Any]            # the open Project, or None
    viewer_of: Callable[[], Viewer]
    session_of: Callable[[], Any]            # the Session to write under (TriageError: none)


class DataManager(QWidget):
    """Search box, filters, the virtual table and the chosen candidate's record."""

    changed = Signal()     # a relabel or a ruling was recorded

    def __init__(self, context: DataContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        from ui.data_table import DataTableModel

        self.context = context
        self.viewer = context.viewer_of()
        self.filters = FilterBar(self)
        self.model = DataTableModel(self._page, self)
        self.table = QTableView(self)
        self.table.setModel(self.model)
        self.table.setAccessibleName("Candidates")
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.verticalHeader().setDefaultSectionSize(22)
        self.table.horizontalHeader().setStretchLastSection(True)
        for header in (self.table.horizontalHeader(), self.table.verticalHeader()):
            header.setResizeContentsPrecision(100)   # a column is sized from 100 rows
        self.table.setWordWrap(False)
        self.record = RecordPane(self)
        split = QSplitter(Qt.Orientation.Horizontal, self)
        split.addWidget(self.table)
        split.addWidget(self.record)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        layout = QVBoxLayout(self)
        layout.addWidget(self.filters)
        layout.addWidget(split, 1)
        self._db: Any = None                       # the queries' own connection
        self._db_path: Any = None
        self._project_path: Any = None
        self.catalog: Catalog | None = None
        self._asked = self._running = self._shown = 0  # questions: newest, running, shown
        self._stale_catalog = True
        self.index_state = "not built"             # not built / building / ready / none
        self.workers: list[Worker] = []
        self._said = self._index_said = ""
        self._timer = QTimer(self, singleShot=True, interval=DEBOUNCE_MS)
        self._timer.timeout.connect(self.ask)
        self.filters.changed.connect(self._timer.start)
        self.filters.export.clicked.connect(self.export_dialog)
        self.table.selectionModel().currentRowChanged.connect(lambda cur, _p: self.open_row(
            cur.row()))
        self.record.relabel.connect(self.relabel)
        self.record.rule.connect(self.rule)

    def showEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        """Read the project again whenever shown: labels may have come meanwhile."""
        super().showEvent(event)
        self.reload()

    # -- questions, off the GUI thread -------------------------------------------------

    def reload(self) -> None:
        """Read the project again (opened, labels changed) and ask the current question."""
        project = self.context.project_of()
        if project is None:
            return
        if project.path != self._project_path:     # another project: start afresh
            self._project_path, self.catalog = project.path, None
            self.index_state = "not built"
            self.model.show(self.model.ids[:0], columns(self.viewer))
        self.viewer = self.context.viewer_of()
        self.filters.configure(project.settings, self.viewer)
        self.record.set_choices([o.value for o in project.settings.labels], self.viewer.lead)
        self._stale_catalog = True
        self._build_index(project)
        self.ask()

    def query(self) -> Query:
        """The question the controls ask; the words wait until the index is ready."""
        query = self.filters.query()
        if query.text and self.index_state not in ("ready", "none"):
            from dataclasses import replace
            return replace(query, text="")
        return query

    def ask(self) -> None:
        """Run the controls' question (or, if one is running, leave it next in line)."""
        project = self.context.project_of()
        if project is None or not project.models:
            return
        self._asked += 1
        if self._running:
            return          # _answered starts the newest when the running one is done
        self._start(project)

    def _start(self, project: Any) -> None:
        number, query, viewer = self._asked, self.query(), self.viewer
        ranking = project.state.ranking() if self._stale_catalog else None
        path, catalog = project.path, None if self._stale_catalog else self.catalog
        self._stale_catalog = False
        self._running = number
        index_ready = self.index_state in ("ready", "none")

        def work(_progress: Any) -> tuple[int, Catalog, Any]:
            if self._db is None or self._db_path != path:
                if self._db is not None:
                    self._db.close()
                self._db, self._db_path = open_reader(path), path
            cat = catalog
            if cat is None:
                assert ranking is not None   # read whenever the catalog is stale
                cat = load_catalog(self._db, ranking.order, ranking.scores, ranking.ranks,
                                   ranking.model.name)
            cat.indexed = cat.indexed or (index_ready and self.index_state == "ready")
            return number, cat, run_query(self._db, cat, query, viewer)

        worker = Worker(work)
        worker.signals.finished.connect(self._answered)
        worker.signals.failed.connect(self._failed)
        self._keep(worker)
        worker.start(DATA_QUERIES)

    def _answered(self, result: tuple[int, Catalog, Any]) -> None:
        number, catalog, ids = result
        self._running = 0
        if catalog is not self.catalog and catalog.key_rank is None:
            self._warm(catalog)
        self.catalog = catalog
        self.filters.set_annotators(catalog.annotators)
        if number != self._asked:      # a newer question came meanwhile: this one is stale
            self._start_if_open()
            return
        self._shown = number
        chosen = self.current_candidate()
        self.model.show(ids, columns(self.viewer))
        self._fit_columns()
        self._say(f"{ids.size:,} of {catalog.pool:,} candidates")
        rows = np.flatnonzero(ids == chosen) if chosen is not None else np.empty(0, int)
        if rows.size:                  # the candidate chosen before stays chosen
            self.table.selectRow(int(rows[0]))
        self.open_row(self.table.currentIndex().row())

    def _warm(self, catalog: Catalog) -> None:
        """Read the key order now, in line behind the queries, so a sort by key is quick."""
        worker = Worker(lambda _p: key_positions(self._db, catalog))
        self._keep(worker)
        worker.start(DATA_QUERIES)

    def busy(self) -> bool:
        """Is a question waiting or running (the table not yet the answer to the controls)?"""
        return self._timer.isActive() or bool(self._running) or self._shown != self._asked

    def _failed(self, message: str) -> None:
        self._running = 0
        self._shown = self._asked
        self._say(message)

    def _start_if_open(self) -> None:
        project = self.context.project_of()
        if project is not None:
            self._start(project)

    def _build_index(self, project: Any) -> None:
        if self.index_state == "building":
            return
        self.index_state = "building"
        path = project.path

        def work(progress: Any) -> bool:
            db = open_reader(path)
            try:
                return build_search_index(db, progress)
            finally:
                db.close()

        worker = Worker(work)
        worker.signals.progress.connect(lambda done, total: self._index_news(
            f"building the search index: {100 * done // max(1, total)} % "
            "(the words of a search wait for it)"))

        def mine() -> bool:      # a build for a project since closed is ignored
            return path == self._project_path

        worker.signals.finished.connect(lambda built: self._indexed(built) if mine() else None)
        worker.signals.failed.connect(
            lambda message: self._indexed(False, message) if mine() else None)
        self._keep(worker)
        worker.start(DATA_INDEX)

    def _indexed(self, built: bool, message: str = "") -> None:
        self.index_state = "ready" if built else "none"   # none: words found by a scan
        self._index_news("" if built else
                         f"no search index ({message or 'read-only file'}); a search reads "
                         "every text")
        if self.catalog is not None:
            self.catalog.indexed = built
        if self.filters.query().text:
            self.ask()

    def _keep(self, worker: Worker) -> None:
        self.workers = [*self.workers[-7:], worker]   # one query and one build at most run

    def _say(self, text: str) -> None:
        """The result's line (a count, a refusal, an export); the index's state after it."""
        self._said = text
        self._show_status()

    def _index_news(self, text: str) -> None:
        self._index_said = text
        self._show_status()

    def _show_status(self) -> None:
        parts = [p for p in (self._said, self._index_said) if p]
        self.filters.status.setText("  ·  ".join(parts))

    # -- the table and the record -----------------------------------------------------

    def _page(self, ids: Any) -> list[tuple[str, ...]]:
        project = self.context.project_of()
        if project is None or self.catalog is None:
            return [("",) * len(columns(self.viewer))] * len(ids)
        return page(project, self.catalog, ids, self.viewer)

    def _fit_columns(self) -> None:
        """Columns as wide as the rows in sight need (Qt measures those only), within reason."""
        self.table.resizeColumnsToContents()
        widest = max(120, self.table.viewport().width() // 3)
        for col in range(self.model.columnCount()):
            if self.table.columnWidth(col) > widest:
                self.table.setColumnWidth(col, widest)

    def current_candidate(self) -> int | None:
        """The candidate whose record is shown (None: none)."""
        row = self.table.currentIndex().row()
        return self.model.candidate_at(row) if 0 <= row < self.model.rowCount() else None

    def open_row(self, row: int) -> None:
        """Show the record of the candidate in ``row``."""
        project = self.context.project_of()
        if project is None or not 0 <= row < self.model.rowCount():
            self.record.show_record(None)
            return
        record = record_of(project, self.model.candidate_at(row), self.viewer)
        self.record.show_record(record_view(record, self.viewer, project.settings.public_fields))

    def selected_candidates(self) -> list[int]:
        """The candidates of the selected rows, in table order."""
        rows = sorted({i.row() for i in self.table.selectionModel().selectedRows()})
        return [self.model.candidate_at(r) for r in rows]

    # -- actions ----------------------------------------------------------------------

    def _act(self, what: Callable[[Any, Any], object]) -> None:
        project, candidate = self.context.project_of(), self.current_candidate()
        if project is None or candidate is None:
            return
        try:
            what(project, candidate)
        except TriageError as error:   # a team server's refusal comes back as its sentence
            self._say(str(error))
            return
        self.model.forget()
        self.open_row(self.table.currentIndex().row())
        self._stale_catalog = True
        self.changed.emit()
        self.ask()

    def relabel(self, value: str) -> None:
        """Record ``value`` as the viewer's own decision on the chosen candidate."""
        self._act(lambda p, c: relabel(p, self.context.session_of(), c, value))

    def rule(self, value: str) -> None:
        """The lead's ruling on the chosen candidate."""
        self._act(lambda p, c: rule(p, self.context.session_of(), self.viewer, c, value))

    def export_dialog(self) -> None:
        """Ask where to write the selected candidates, then write them."""
        from ui.file_dialogs import save_file

        project = self.context.project_of()
        if project is None:
            return
        out = save_file(self, "Export the selection", project.path.with_name("selection.csv"),
                        "CSV (*.csv);;JSON lines (*.jsonl);;Parquet (*.parquet)",
                        (".csv", ".jsonl", ".parquet"), ".csv")
        if out is not None:
            self.export_to(out)

    def export_to(self, out: Any) -> int:
        """Write the selected candidates to ``out``; the rows written (0 on a refusal)."""
        project = self.context.project_of()
        try:
            count = export_selection(project, self.viewer, self.selected_candidates(), out)
        except TriageError as error:
            self._say(str(error))
            return 0
        self._say(f"exported {count:,} candidates to {out}")
        return count


class FindWindow(QWidget):
    """The annotator's "Find…": the data manager over their own decisions, in a window."""

    def __init__(self, desk_window: Any) -> None:
        super().__init__(desk_window, Qt.WindowType.Window)
        self.setWindowTitle("Triage — find a candidate")
        desk = desk_window.desk

        def viewer() -> Viewer:
            session = desk.session
            return Viewer(session.annotator if session is not None else "", lead=False)

        def session() -> Any:
            if desk.session is None:
                raise TriageError("choose an annotator first: a decision records who made it")
            return desk.session

        self.manager = DataManager(DataContext(desk_window.current_project, viewer, session),
                                   self)
        self.manager.changed.connect(desk_window.live_panels.schedule_refresh)
        self.manager.changed.connect(desk_window.reading.refresh_drawer)
        layout = QVBoxLayout(self)
        layout.addWidget(self.manager)
        size_window(self, QSize(980, 560))   # less on a small or scaled-up screen


def open_find(desk_window: Any) -> FindWindow:
    """Show the annotator's find window (one per desk window), search box focused."""
    window = desk_window.findChild(FindWindow)
    if window is None:
        window = FindWindow(desk_window)
    window.show()
    window.raise_()
    window.activateWindow()
    window.manager.filters.search.setFocus()
    return window


def lead_data_tab(parent: QWidget, project_of: Callable[[], Any],
                  curator_name: Callable[[], str], rulings: Any) -> DataManager:
    """The lead window's "Data" tab: the lead sees every label and the scores."""
    return DataManager(DataContext(
        project_of, lambda: Viewer(curator_name() or "lead", lead=True),
        lambda: rulings.session(curator_name())), parent)
