"""Pieces of the lead's window that need no charts: the Advice tab, the curator's sessions,
and the placeholder a tab shows while its figures are computed."""

from __future__ import annotations

import contextlib
from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from triage.base.errors import TriageError
from triage.views.advice import advice_json, advice_lines, summary_lines
from ui.analysis.advice_banner import AdviceBanner

ADVICE_COLUMNS = ("Rule", "Verdict", "Why")
# The lead window's keys, for the F1 sheet (bound in LeadWindow._keys and the views).
LEAD_KEYS = (("Esc or Ctrl+W", "close the lead window (asks about unsaved guidelines)"),
             ("Ctrl+1 … Ctrl+8", "go to a tab"),
             ("F5", "recompute"), ("a label's key", "rule on the selected disagreement"),
             ("Ctrl+Z", "undo your last ruling (in the adjudication table)"),
             ("Tab / Shift+Tab", "move between fields and tables"))


def computing_placeholder(what: str, parent: QWidget | None = None) -> QLabel:
    """What a tab shows until its view and figures are ready."""
    label = QLabel(f"computing {what}…", parent)
    label.setAlignment(Qt.AlignmentFlag.AlignCenter)
    label.setAccessibleName(f"{what}: computing")
    return label


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
