"""The model comparison: gain per model against the budget, classic metrics with paired
tests, value with a reject option per cost factor k, calibration, the bandit's belief and
what could be accepted without review. Draws a ``ModelsViewData``; computes nothing."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from triage.views.formatting import format_decimal, format_difference, format_number, plural
from triage.views.models import (
    ACCEPT_KS,
    DEFAULT_ACCEPT_K,
    THRESHOLD_METRIC_KEYS,
    ModelsViewData,
    bandit_lines,
)
from ui.analysis._common import ChartCanvas
from ui.analysis._models_charts import (
    PENDING,
    draw_bandit,
    draw_calibration,
    draw_curves,
    draw_gain,
    draw_value,
)
from ui.analysis._text import plain_label, role_style
from ui.palette import CAPTION
from ui.tables import cell_text
from ui.window_state import FitScroll

METRIC_NAMES = {
    "precision": "Precision", "recall": "Recall", "f1": "F1", "mcc": "MCC",
    "sba": "Symmetric balanced accuracy", "roc_auc": "ROC-AUC",
    "average_precision": "Average precision",
}
TABS = ("Gain", "Metrics", "ROC / PR", "Value", "Calibration", "Bandit")
DRAW = {"Gain": draw_gain, "Value": draw_value, "Calibration": draw_calibration,
        "Curves": draw_curves, "Bandit": draw_bandit}  # chart -> what draws it


# Combined once, not per cell: each "|" of two Qt flags goes through Python's enum machinery,
# and a table of a few hundred rows has thousands of cells.
READ_ONLY = Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsEnabled
RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter


def _metric_name(key: str, threshold: float) -> str:
    if key.startswith("ndcg@"):
        return f"NDCG@{key.split('@', 1)[1]}"
    name = METRIC_NAMES.get(key, key)
    return f"{name} (score ≥ {format_number(threshold)})" if key in ("precision", "recall", "f1", "mcc",
                                                          "sba") else name


def _cell(text: str, *, bold: bool = False, tip: str | None = None) -> QTableWidgetItem:
    item = QTableWidgetItem(text)
    item.setFlags(READ_ONLY)
    item.setTextAlignment(RIGHT)
    if bold:
        font = item.font()
        font.setBold(True)
        item.setFont(font)
    if tip:
        item.setToolTip(tip)
    return item


def _se_tip(res: dict) -> str | None:
    """The Monte-Carlo standard error of a sampled p-value, for its tooltip."""
    se, trials = res.get("se"), res.get("trials")
    if se is None or res.get("exact"):
        return None
    return f"Monte-Carlo standard error ±{format_decimal(se)} ({trials} random swaps)"


def _table() -> QTableWidget:
    table = QTableWidget(0, 0)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
    table.setAlternatingRowColors(True)
    table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
    table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    return table


def _fit_height(table: QTableWidget) -> None:
    """Exactly as tall as its rows, so no empty grey block hangs below them."""
    table.resizeRowsToContents()
    rows = sum(table.rowHeight(r) for r in range(table.rowCount()))
    header = table.horizontalHeader().sizeHint().height()
    table.setFixedHeight(rows + header + 2 * table.frameWidth() + 2)


class ModelsView(QWidget):
    """``show_data(build_models_view_data(models_inputs(project)))`` — run the build in a
    worker thread; this widget only draws."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.data: ModelsViewData | None = None
        self.warning = plain_label()
        self.warning.setStyleSheet(role_style("pause") + "padding:4px;")
        self.warning.hide()
        self.info = plain_label("No model comparison yet.")
        self.tabs = QTabWidget(self)
        self.charts = {
            "Gain": ChartCanvas("Gain per model", (7.5, 4.2)),
            "Value": ChartCanvas("Value per cost factor", (7.5, 3.6)),
            "Calibration": ChartCanvas("Reliability diagrams", (7.5, 3.6)),
            "Curves": ChartCanvas("ROC and precision-recall", (7.5, 3.6)),
            "Bandit": ChartCanvas("Bandit belief", (7.5, 3.2)),
        }
        self.metrics_table, self.pvalue_table = _table(), _table()
        self.metrics_table.setAccessibleName("Metrics per model")
        self.pvalue_table.setAccessibleName("Paired permutation tests")
        self.tests_caption = plain_label()
        self.tests_caption.setStyleSheet(f"color:{CAPTION};")
        self.value_caption = plain_label()
        self.value_caption.setStyleSheet(f"color:{CAPTION};")
        self.calibration_caption = plain_label()
        self.calibration_caption.setStyleSheet(f"color:{CAPTION};")
        self.bandit_label = plain_label()
        self.k_combo = QComboBox()
        self.k_combo.setAccessibleName("Cost of an error, k")
        for k in ACCEPT_KS:
            self.k_combo.addItem(f"k = {format_number(k)}", k)
        self.k_combo.setCurrentIndex(ACCEPT_KS.index(DEFAULT_ACCEPT_K))
        self.k_combo.currentIndexChanged.connect(self._show_acceptance)
        self.acceptance = plain_label()
        self._build_tabs()
        layout = QVBoxLayout(self)
        layout.addWidget(self.warning)
        layout.addWidget(self.info)
        layout.addWidget(self.tabs, 1)

    def _build_tabs(self) -> None:
        def page(*widgets, stretch_first=True) -> QWidget:
            w = QWidget()
            box = QVBoxLayout(w)
            for i, widget in enumerate(widgets):
                if isinstance(widget, QHBoxLayout):
                    box.addLayout(widget)
                else:
                    box.addWidget(widget, 1 if (i == 0 and stretch_first) else 0)
            return w

        metrics = QWidget()
        box = QVBoxLayout(metrics)
        self.metrics_caption = plain_label("Metrics per model (columns)")
        box.addWidget(self.metrics_caption, 0)
        box.addWidget(self.metrics_table)
        box.addSpacing(6)
        box.addWidget(plain_label("Paired permutation tests: difference and p-value per pair"))
        box.addWidget(self.pvalue_table)
        box.addWidget(self.tests_caption)
        box.addStretch(1)
        pick = QHBoxLayout()
        pick.addWidget(plain_label("What to accept without review, if an error costs", wrap=False))
        pick.addWidget(self.k_combo)
        pick.addWidget(plain_label("times what a correct answer brings:", wrap=False))
        pick.addStretch(1)
        # Each page scrolls inside (its tables, captions): the tab fits a small screen.
        self.tabs.addTab(FitScroll(page(self.charts["Gain"])), "Gain")
        self.tabs.addTab(FitScroll(metrics), "Metrics")
        self.tabs.addTab(FitScroll(page(self.charts["Curves"])), "ROC / PR")
        self.tabs.addTab(FitScroll(page(self.charts["Value"], self.value_caption, pick,
                                        self.acceptance)), "Value")
        self.tabs.addTab(FitScroll(page(self.charts["Calibration"], self.calibration_caption)),
                         "Calibration")
        self.tabs.addTab(FitScroll(page(self.charts["Bandit"], self.bandit_label)), "Bandit")

    # -- interface -----------------------------------------------------------------------
    def show_data(self, data: ModelsViewData) -> None:
        """Show a ``triage.views.ModelsViewData``; each chart redraws once, 50 ms later, on
        the chart thread (a chart on a hidden tab when its tab is shown)."""
        self.data = data
        self.warning.setText("\n".join(f"Warning: {w}" for w in data.warnings))
        self.warning.setVisible(bool(data.warnings))
        source = ("gold labels" if data.labels_from == "gold"
                  else "the labels so far (candidates with a final label)")
        self.info.setText(data.unavailable or
                          f"Judged on {plural(data.n, 'candidate')} from {source}, "
                          f"{data.positives:,} positive; {plural(len(data.models), 'model')}.")
        self.metrics_caption.setText(
            f"Metrics per model (columns) on the same {plural(data.n, 'candidate')} "
            f"({source})" + "".join(
                f"\n{m}: {why}, so its metrics at the threshold are never bold."
                for m, why in data.one_sided.items())
            if not data.unavailable else "Metrics per model (columns)")
        self._fill_metrics(data)
        self._show_acceptance()
        reasons = [f"{m}: {why}" for m, why in data.value_reasons.items()]
        self.value_caption.setText(
            PENDING if data.value_pending else
            "Value V = (1−ρ)(α − k(1−α)) per labeled item, measured on the held-out half: "
            "solid at the threshold tuned on the validation half, dashed at τ = k/(k+1) on "
            "calibrated scores. Above 0 the model earns its keep at that k."
            + ("\n" + "\n".join(reasons) if reasons else ""))
        self.calibration_caption.setText("\n".join(reasons))
        self.calibration_caption.setVisible(bool(reasons))
        self.bandit_label.setText("\n".join(bandit_lines(data.bandit)) or
                                  "The queue follows one model's ranking (follow mode); the "
                                  "bandit's belief appears in bandit or pets mode.")
        self.set_tab_enabled("Bandit", data.bandit is not None)
        for name, chart in self.charts.items():
            chart.show_chart(DRAW[name], data)

    def tab_index(self, title: str) -> int:
        """The index of the tab titled ``title`` (looked up, never assumed)."""
        titles = [self.tabs.tabText(i) for i in range(self.tabs.count())]
        return titles.index(title)

    def set_tab_enabled(self, title: str, enabled: bool) -> None:
        self.tabs.setTabEnabled(self.tab_index(title), enabled)

    def tab_states(self) -> dict[str, bool]:
        """{tab title: enabled} as shown (tests)."""
        return {self.tabs.tabText(i): self.tabs.isTabEnabled(i) for i in range(self.tabs.count())}

    def panel_data(self) -> dict:
        """What is drawn (for tests): the data plus the table cells as shown."""
        if self.data is None:
            return {}
        return {**self.data.as_dict(), "cells": self.table_cells(),
                "acceptance_text": self.acceptance.text()}

    def table_cells(self) -> dict[str, dict[str, str]]:
        """{model: {metric key: cell text}} as shown in the metrics table."""
        d = self.data
        if d is None or d.unavailable:
            return {}
        return {m: {key: cell_text(self.metrics_table, r, c)
                    for r, key in enumerate(d.metric_names)}
                for c, m in enumerate(d.models)}

    @property
    def redraws(self) -> int:
        """How many data states the charts drawn so far have drawn (tests, bench)."""
        return max(chart.redraws for chart in self.charts.values())

    def flush(self) -> None:
        """Draw every chart's pending data now, on this thread (tests, saving)."""
        for chart in self.charts.values():
            chart.flush()

    def save_figure(self, path: str | Path, chart: str = "Gain") -> Path:
        """Save one chart (Gain, Value, Calibration, Curves or Bandit) as PNG or SVG."""
        return self.charts[chart].save_figure(path)

    # -- tables --------------------------------------------------------------------------
    def _fill_metrics(self, d: ModelsViewData) -> None:
        t = self.metrics_table
        t.clear()
        t.setRowCount(len(d.metric_names))
        t.setColumnCount(len(d.models))
        t.setHorizontalHeaderLabels(list(d.models))
        t.setVerticalHeaderLabels([_metric_name(k, d.threshold) for k in d.metric_names])
        for r, key in enumerate(d.metric_names):
            best = d.best(key)
            for c, m in enumerate(d.models):
                tip = d.undefined[m].get(key) or (
                    d.one_sided.get(m) if key in THRESHOLD_METRIC_KEYS else None)
                t.setItem(r, c, _cell(d.metric_cell(m, key), bold=m == best, tip=tip))
        p = self.pvalue_table
        p.clear()
        pairs = list(d.pvalues)
        headers = [h for pair in pairs for h in (pair.replace("|", "\n− "), "p")]
        p.setRowCount(len(d.metric_names) if pairs else 0)
        p.setColumnCount(len(headers))
        p.setHorizontalHeaderLabels(headers)
        p.setVerticalHeaderLabels([_metric_name(k, d.threshold) for k in d.metric_names])
        for c, pair in enumerate(pairs):
            for r, key in enumerate(d.metric_names):
                res = d.pvalues[pair].get(key, {})
                diff, pv = res.get("difference"), res.get("p")
                p.setItem(r, 2 * c, _cell(format_difference(diff), tip=res.get("reason")))
                text = format_decimal(pv, 3, "–") + (" (exact)" if pv is not None
                                                     and res.get("exact") else "")
                p.setItem(r, 2 * c + 1, _cell(text, bold=pv is not None and pv < 0.05,
                                              tip=res.get("reason") or _se_tip(res)))
        _fit_height(t)
        _fit_height(p)
        self.tests_caption.setText(
            f"Approximate randomisation: {d.trials} random swaps of the two models' scores "
            "per item (exact when every swap pattern fits; a p-value's tooltip gives its "
            "Monte-Carlo standard error). Bold p < 0.05: the difference is unlikely to be "
            "chance." if pairs else
            f"Computing the paired permutation tests ({d.trials} random swaps)…"
            if d.pvalues_pending else "One model: nothing to test.")
        raw = [m for m in d.models if m in d.value_reasons]
        if raw:
            self.tests_caption.setText(
                self.tests_caption.text() + f"\n{', '.join(raw)}: scores are not probabilities, "
                f"so the metrics at score ≥ {format_number(d.threshold)} say little about "
                f"{'it' if len(raw) == 1 else 'them'}; compare by ROC-AUC, AP and NDCG.")

    def _show_acceptance(self) -> None:
        d = self.data
        if d is None:
            return
        if d.value_pending:
            self.acceptance.setText("")
            return
        k = self.k_combo.currentData()
        lines = [a.text for a in d.acceptance.get(k, {}).values()]
        missing = [m for m in d.models if m not in d.acceptance.get(k, {})]
        if missing:
            lines.append(f"No advice for {', '.join(missing)} (scores are not probabilities "
                         "or too few labels).")
        self.acceptance.setText("\n".join(lines))
