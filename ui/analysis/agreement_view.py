"""The agreement view: Krippendorff's α with its interval and reading, the pairwise Cohen κ
heat map, α across sessions and α by score decile."""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from triage.views.analysis import AgreementViewData, Series, agreement_view_data
from triage.views.formatting import format_count, format_decimal, format_share
from ui.analysis._agreement_charts import draw_agreement
from ui.analysis._common import ChartCanvas
from ui.analysis._text import plain_label, role_style
from ui.palette import CAPTION
from ui.tables import table_rows

READING_ROLE = {"reliable": "go", "tentative": "pause", "unreliable": "stop"}
VERSION_COLUMNS = ("Guidelines", "Items (2+ raters)", "Krippendorff's α", "Agreement")


class AgreementView(QWidget):
    """``show_report(agreement_for_project(project, ...).to_json(), session_labels=...)``."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.alpha_label = plain_label(wrap=False)
        font = self.alpha_label.font()
        font.setPointSizeF(font.pointSizeF() * 1.35)
        font.setBold(True)
        self.alpha_label.setFont(font)
        self.reading_label = plain_label(wrap=True)
        self.reading_label.setContentsMargins(6, 2, 6, 2)
        self.summary_label = plain_label()
        # The reliability verdict of the one advice state (the same words as the Advice tab).
        self.verdict_label = plain_label(wrap=True)
        self.verdict_label.setObjectName("reliabilityVerdict")
        self.caption = plain_label()
        self.caption.setStyleSheet(f"color:{CAPTION};")
        self.chart = ChartCanvas("Agreement", figsize=(9.5, 4.6), parent=self)
        self.versions = QTableWidget(0, len(VERSION_COLUMNS), self)
        self.versions.setHorizontalHeaderLabels(VERSION_COLUMNS)
        self.versions.setAccessibleName("Agreement by guideline version")
        self.versions.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.versions.setTabKeyNavigation(False)
        self.versions.verticalHeader().setVisible(False)
        self.versions.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        head = QHBoxLayout()
        head.addWidget(self.alpha_label)
        head.addSpacing(12)
        head.addWidget(self.reading_label, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(head)
        layout.addWidget(self.summary_label)
        layout.addWidget(self.verdict_label)
        # The chart and the table by guideline version take turns (two tabs): together
        # they did not fit a 1366×768 screen at 150 % without squeezing the chart's text.
        self.parts = QTabWidget(self)
        self.parts.addTab(self.chart, "Agreement chart")
        by_version = QWidget()
        box = QVBoxLayout(by_version)
        box.addWidget(plain_label("Agreement by guideline version (ratings given under "
                                  "each version of the lead's guidelines)"))
        box.addWidget(self.versions, 1)
        self.parts.addTab(by_version, "By guideline version")
        layout.addWidget(self.parts, 1)
        layout.addWidget(self.caption)
        self.data: AgreementViewData | None = None
        self.show_report({})

    # -- interface -----------------------------------------------------------------------
    def show_reliability(self, state: Any) -> None:
        """The advice state's reliability verdict, word for word (pause shows in red)."""
        from triage.views.advice import advice_lines

        lines = advice_lines(state)
        text = f"Advice: {lines.reliability}" if lines.reliability else ""
        if lines.stamp:
            text += f"  ({lines.stamp})"
        self.verdict_label.setText(text)
        verdict = lines.reliability.split(":", 1)[0] if lines.reliability else ""
        self.verdict_label.setStyleSheet(role_style({"pause": "stop"}.get(verdict, "none")))

    def show_report(self, report_json: Mapping[str, Any],
                    session_labels: Mapping[str, str] | None = None) -> None:
        """Show an ``AgreementReport.to_json()``; ``session_labels`` names sessions on the
        trend's axis (``triage.views.session_labels(project)``)."""
        self.data = agreement_view_data(report_json, session_labels)
        d = self.data
        self.alpha_label.setText(d.alpha_text if report_json else "No agreement figures yet")
        self.reading_label.setText(d.reading_text if report_json else "")
        self.reading_label.setStyleSheet(role_style(READING_ROLE.get(d.reading, "none")))
        self.reading_label.setVisible(bool(report_json))
        self.summary_label.setText(d.summary if report_json else "")
        self._fill_versions(d.guidelines)
        self.caption.setText("\n".join(self._notes(d)))
        self.caption.setVisible(bool(self.caption.text()))
        self.chart.show_chart(draw_agreement, d)  # drawn on the chart thread, 50 ms later

    def _fill_versions(self, s: Series) -> None:
        """One row per guideline version: items rated by two or more, α, agreement."""
        self.versions.setRowCount(len(s.groups))
        for r, (label, value, n, pct, why) in enumerate(
                zip(s.labels, s.values, s.items, s.percent, s.reasons)):
            alpha = format_decimal(value, 3, f"undefined ({why or '—'})")
            for c, text in enumerate((label, format_count(n), alpha, format_share(pct))):
                self.versions.setItem(r, c, QTableWidgetItem(text))

    def version_rows(self) -> list[list[str]]:
        """The guideline-version table as shown (tests)."""
        return table_rows(self.versions)

    def panel_data(self) -> dict:
        """Exactly what is drawn, as plain values (for tests)."""
        return {} if self.data is None else self.data.as_dict()

    @property
    def redraws(self) -> int:
        """How many reports the chart has drawn (tests, bench)."""
        return self.chart.redraws

    def flush(self) -> None:
        """Draw a pending report now, on this thread (tests, saving)."""
        self.chart.flush()

    def save_figure(self, path: str | Path) -> Path:
        """Save the chart as PNG or SVG, chosen by the extension."""
        return self.chart.save_figure(path)

    # -- drawing -------------------------------------------------------------------------
    @staticmethod
    def _notes(d: AgreementViewData) -> list[str]:
        """Why some cells and points are missing, one line per distinct reason."""
        groups: dict[str, list[str]] = {}
        for pair, reason in d.kappa_reasons.items():
            groups.setdefault(f"Cohen's κ undefined: {reason}", []).append(pair.replace("|", " & "))
        for name, s in (("session", d.sessions), ("decile", d.deciles)):
            for label, value, why in zip(s.labels, s.values, s.reasons):
                if math.isnan(value):
                    groups.setdefault(f"α undefined: {why or 'no reason given'}", []).append(
                        f"{name} {label}")
        return [f"{', '.join(where)} — {why}" for why, where in groups.items()]
