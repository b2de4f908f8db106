"""The lead view: the three live panels large, the per-annotator table and, when gold labels
exist, the offline model comparison. Every chart can be saved as PNG or SVG."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QAbstractItemView,
    QGridLayout,
    QHeaderView,
    QLabel,
    QMenu,
    QScrollArea,
    QTableWidget,
    QTableWidgetItem,
    QToolBar,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from triage.views.formatting import format_decimal, pool_caption
from triage.views.panels import LiveSnapshot, PanelInfo, format_money
from ui.panels import ComparisonPanel, GainPanel, SpendPanel, YieldPanel
from ui.tables import table_rows

TWO_COLUMNS_WIDTH = 1100  # logical pixels
COLUMNS = ("Annotator", "Labels", "Skips", "Positives", "Seconds / label", "Sessions", "Spend")


class LeadView(QWidget):
    """Large panels plus the per-annotator table; ``show_state`` as the compact panels."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Triage – lead view")
        self.gain = GainPanel(self, large=True)
        self.spend = SpendPanel(self, large=True)
        self.yield_panel = YieldPanel(self, large=True)
        self.comparison = ComparisonPanel(self, large=True)
        self.panels = {"Cumulative gain": self.gain, "Spend": self.spend,
                       "Marginal-decile yield": self.yield_panel,
                       "Offline model comparison": self.comparison}

        toolbar = QToolBar(self)
        save = QToolButton(self)
        save.setText("Save chart…")
        save.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(save)
        self.save_actions: dict[str, QAction] = {}
        for title, panel in self.panels.items():
            action = menu.addAction(f"{title}…")
            action.triggered.connect(panel.save_dialog)
            self.save_actions[title] = action
        save.setMenu(menu)
        toolbar.addWidget(save)
        self.caption = QLabel("", self)
        self.caption.setTextFormat(Qt.TextFormat.PlainText)
        toolbar.addSeparator()
        toolbar.addWidget(self.caption)

        self.table = QTableWidget(0, len(COLUMNS), self)
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.table.setMinimumHeight(150)
        self.table.setAccessibleName("Annotators")
        self.no_gold = QLabel("No gold labels in this project: the offline model comparison "
                              "appears when the imported file has a gold column.", self)
        self.no_gold.setWordWrap(True)

        grid = self.grid = QGridLayout()
        self.columns = 0
        self._arrange(2)
        body = QWidget(self)
        inner = QVBoxLayout(body)
        inner.addLayout(grid, 3)
        inner.addWidget(QLabel("Annotators", body))
        inner.addWidget(self.table, 1)
        scroll = QScrollArea(self)
        scroll.setWidgetResizable(True)
        scroll.setWidget(body)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(toolbar)
        layout.addWidget(scroll)
        self.resize(1280, 980)

    def _arrange(self, columns: int) -> None:
        """Two columns of charts on a wide window, one on a narrow (or 150 %) screen."""
        if columns == self.columns:
            return
        self.columns = columns
        for widget in (self.gain, self.yield_panel, self.spend, self.comparison, self.no_gold):
            self.grid.removeWidget(widget)
        for i, panel in enumerate((self.gain, self.yield_panel, self.spend, self.comparison)):
            self.grid.addWidget(panel, i // columns, i % columns)
        self.grid.addWidget(self.no_gold, 3 // columns, 3 % columns,
                            Qt.AlignmentFlag.AlignCenter)

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        self._arrange(2 if event.size().width() >= TWO_COLUMNS_WIDTH else 1)

    def show_state(self, snapshot: LiveSnapshot, project_info: PanelInfo) -> None:
        """Pass the state to every chart (each redraws once, coalesced) and fill the table."""
        for panel in self.panels.values():
            panel.show_state(snapshot, project_info)
        has_gold = bool(project_info.offline_curves)
        self.comparison.setVisible(has_gold)
        self.no_gold.setVisible(not has_gold)
        self.save_actions["Offline model comparison"].setEnabled(has_gold)
        self._fill_table(project_info.annotator_rows, snapshot.currency or project_info.currency)
        self.caption.setText(pool_caption(snapshot.pool, project_info.active_model))

    def table_rows(self) -> list[list[str]]:
        """The table as shown (for tests)."""
        return table_rows(self.table)

    def _fill_table(self, rows: list[dict], currency: str) -> None:
        self.table.setRowCount(len(rows))
        for r, row in enumerate(rows):
            secs = row.get("seconds_per_label")
            cells = [str(row.get("annotator", "")), str(row.get("labels", 0)),
                     str(row.get("skips", 0)), str(row.get("positives", 0)),
                     format_decimal(secs, 1), str(row.get("sessions", 0)),
                     format_money(row.get("spend"), currency)]
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)  # a plain-text item: names are untrusted
                if c:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight
                                          | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(r, c, item)

    def flush(self) -> None:
        """Draw every pending chart now (tests, screenshots)."""
        for panel in self.panels.values():
            panel.flush()
