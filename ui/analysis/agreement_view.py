"""The agreement view: Krippendorff's α with its interval and reading, the pairwise Cohen κ
heat map, α across sessions and α by score decile."""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
from matplotlib import colormaps
from matplotlib.patches import Rectangle
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from triage.views.analysis import AgreementViewData, Series, agreement_view_data
from ui.analysis._common import (
    BLUE,
    FS,
    GREY,
    LIGHT,
    ORANGE,
    VERMILLION,
    ChartCanvas,
    chart_text,
    plain_label,
    role_style,
    save_figure,
    style_axes,
)
from ui.palette import CAPTION

READING_ROLE = {"reliable": "go", "tentative": "pause", "unreliable": "stop"}
REDRAW_MS = 50
VERSION_COLUMNS = ("Guidelines", "Items (2+ raters)", "Krippendorff's α", "Agreement")
BANDS = ((0.800, "reliable"), (0.667, "tentative"))


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
        self.versions.setMaximumHeight(130)
        head = QHBoxLayout()
        head.addWidget(self.alpha_label)
        head.addSpacing(12)
        head.addWidget(self.reading_label, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(head)
        layout.addWidget(self.summary_label)
        layout.addWidget(self.verdict_label)
        layout.addWidget(self.chart, 1)
        layout.addWidget(plain_label("Agreement by guideline version (ratings given under "
                                     "each version of the lead's guidelines)"))
        layout.addWidget(self.versions)
        layout.addWidget(self.caption)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(REDRAW_MS)
        self._timer.timeout.connect(self._redraw)
        self.data: AgreementViewData | None = None
        self.redraws = 0
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
        if not self._timer.isActive():
            self._timer.start()

    def _fill_versions(self, s: Series) -> None:
        """One row per guideline version: items rated by two or more, α, agreement."""
        self.versions.setRowCount(len(s.groups))
        for r, (label, value, n, pct, why) in enumerate(
                zip(s.labels, s.values, s.items, s.percent, s.reasons)):
            alpha = f"{value:.3f}" if math.isfinite(value) else f"undefined ({why or '—'})"
            share = f"{100 * pct:.1f}%" if math.isfinite(pct) else "—"
            for c, text in enumerate((label, f"{n:,}", alpha, share)):
                self.versions.setItem(r, c, QTableWidgetItem(text))

    def version_rows(self) -> list[list[str]]:
        """The guideline-version table as shown (tests)."""
        return [[self.versions.item(r, c).text() for c in range(self.versions.columnCount())]
                for r in range(self.versions.rowCount())]

    def panel_data(self) -> dict:
        """Exactly what is drawn, as plain values (for tests)."""
        return {} if self.data is None else self.data.as_dict()

    def flush(self) -> None:
        """Draw a pending report now (tests, saving)."""
        if self._timer.isActive():
            self._timer.stop()
            self._redraw()

    def save_figure(self, path: str | Path) -> Path:
        self.flush()
        return save_figure(self.chart.figure, path)

    # -- drawing -------------------------------------------------------------------------
    @staticmethod
    def _notes(d: AgreementViewData) -> list[str]:
        """Why some cells and points are missing, one line per distinct reason."""
        groups: dict[str, list[str]] = {}
        for pair, reason in d.kappa_reasons.items():
            groups.setdefault(f"Cohen's κ undefined: {reason}", []).append(pair.replace("|", " & "))
        for name, s in (("session", d.sessions), ("decile", d.deciles)):
            for label, value, reason in zip(s.labels, s.values, s.reasons):
                if math.isnan(value):
                    groups.setdefault(f"α undefined: {reason or 'no reason given'}", []).append(
                        f"{name} {label}")
        return [f"{', '.join(where)} — {why}" for why, where in groups.items()]

    def _redraw(self) -> None:
        d = self.data
        fig = self.chart.figure
        fig.clear()
        grid = fig.add_gridspec(2, 2, width_ratios=(1.0, 1.25))
        self._heatmap(fig.add_subplot(grid[:, 0]), d)
        self._trend(fig.add_subplot(grid[0, 1]), d.sessions)
        self._deciles(fig.add_subplot(grid[1, 1]), d.deciles)
        self.redraws += 1
        self.chart.draw_idle()

    def _heatmap(self, ax, d: AgreementViewData) -> None:
        names, k = d.annotators, d.kappa
        ax.set_title("Cohen's κ per pair of annotators", fontsize=FS + 1, loc="left")
        if not names:
            ax.set_axis_off()
            ax.text(0.5, 0.5, "No pair of annotators has\nlabeled the same items yet",
                    ha="center", va="center", fontsize=FS, color=GREY, transform=ax.transAxes)
            return
        n = len(names)
        cmap = colormaps["cividis"].with_extremes(bad=LIGHT, under=VERMILLION)
        image = ax.imshow(np.ma.masked_invalid(k), cmap=cmap, vmin=0.0, vmax=1.0)
        bar = ax.figure.colorbar(image, ax=ax, shrink=0.7, extend="min", pad=0.02)
        bar.ax.tick_params(labelsize=FS - 1)
        bar.set_label("κ (below 0 in vermillion)", fontsize=FS - 1)
        shown = [chart_text(name) for name in names]
        ax.set_xticks(range(n), shown, rotation=30 if n > 3 else 0, ha="right" if n > 3 else "center",
                      fontsize=FS - 0.5)
        ax.set_yticks(range(n), shown, fontsize=FS - 0.5)
        ax.tick_params(length=0)
        for side in ax.spines.values():
            side.set_visible(False)
        small = n > 8
        for i in range(n):
            for j in range(n):
                if i == j:
                    ax.text(j, i, "—", ha="center", va="center", color=GREY, fontsize=FS)
                    continue
                if math.isnan(k[i, j]):
                    if d.kappa_items[i, j] or f"{names[min(i, j)]}|{names[max(i, j)]}" in \
                            d.kappa_reasons:
                        ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, hatch="///",
                                               edgecolor=GREY, linewidth=0))
                        if not small:
                            ax.text(j, i, "undef.", ha="center", va="center", color="#333333",
                                    fontsize=FS - 1)
                    continue
                if small:
                    continue
                dark = k[i, j] < 0.55
                ax.text(j, i, f"{k[i, j]:.2f}\nn={d.kappa_items[i, j]}", ha="center",
                        va="center", fontsize=FS - 1, color="white" if dark else "black",
                        linespacing=1.1)

    def _bands(self, ax) -> None:
        for y, name in BANDS:  # "reliable" above its line, "tentative" below: never stacked
            above = name == "reliable"
            ax.axhline(y, color=GREY, linewidth=0.8, linestyle=(0, (4, 3)), zorder=1)
            ax.annotate(name, (1.0, y), xycoords=("axes fraction", "data"),
                        xytext=(-2, 2 if above else -2), textcoords="offset points",
                        ha="right", va="bottom" if above else "top", fontsize=FS - 2,
                        color=GREY)

    @staticmethod
    def _ylim(ax, values: np.ndarray) -> None:
        finite = values[np.isfinite(values)]
        low = min(0.0, float(finite.min()) - 0.05) if finite.size else 0.0
        ax.set_ylim(low, 1.05)

    def _empty(self, ax, title: str, message: str) -> None:
        ax.set_title(title, fontsize=FS + 1, loc="left")
        ax.set_axis_off()
        ax.text(0.5, 0.5, message, ha="center", va="center", fontsize=FS, color=GREY,
                transform=ax.transAxes)

    def _trend(self, ax, s: Series) -> None:
        title = "α per session (against the other annotators)"
        if not s.groups:
            self._empty(ax, title, "No sessions with overlapping labels yet")
            return
        style_axes(ax)
        ax.set_title(title, fontsize=FS + 1, loc="left")
        x = np.arange(len(s.groups))
        ok = np.isfinite(s.values)
        ax.plot(x[ok], s.values[ok], color=BLUE, linewidth=1.4, marker="o", markersize=5,
                zorder=3)
        for xi, v, n in zip(x, s.values, s.items):
            if math.isfinite(v):
                ax.annotate(f"n={n}", (xi, v), xytext=(0, 5), textcoords="offset points",
                            ha="center", fontsize=FS - 2, color=GREY)
            else:
                ax.plot([xi], [0.0], marker="x", color=GREY, markersize=6, zorder=3)
        self._bands(ax)
        self._ylim(ax, s.values)
        step = max(1, len(x) // 12)
        ax.set_xticks(x[::step], [chart_text(s.labels[i]) for i in x[::step]], fontsize=FS - 1.5,
                      rotation=30 if len(x) > 6 else 0, ha="right" if len(x) > 6 else "center")
        ax.set_xlim(-0.5, len(x) - 0.5)
        ax.set_ylabel("α", fontsize=FS)

    def _deciles(self, ax, s: Series) -> None:
        title = "α by score decile of the active model"
        if not s.groups:
            self._empty(ax, title, "No overlapping labels yet")
            return
        style_axes(ax)
        ax.grid(False, axis="x")
        ax.set_title(title, fontsize=FS + 1, loc="left")
        x = np.arange(len(s.groups))
        ok = np.isfinite(s.values)
        ax.bar(x[ok], s.values[ok], color=ORANGE, width=0.7, zorder=2)
        for xi, v, n in zip(x, s.values, s.items):
            if math.isfinite(v):
                ax.annotate(f"n={n}", (xi, max(v, 0.0)), xytext=(0, 2), textcoords="offset points",
                            ha="center", fontsize=FS - 2, color=GREY)
            else:
                ax.bar([xi], [0.12], color="white", edgecolor=GREY, hatch="///", width=0.7,
                       zorder=2)
                ax.annotate("undef.", (xi, 0.12), xytext=(0, 2), textcoords="offset points",
                            ha="center", fontsize=FS - 2, color=GREY)
        self._bands(ax)
        self._ylim(ax, s.values)
        ax.axhline(0.0, color="#444444", linewidth=0.6)
        ax.set_xticks(x, list(s.labels), fontsize=FS - 1)
        ax.set_xlabel("decile (1 = top-ranked tenth of the pool)", fontsize=FS - 1)
        ax.set_ylabel("α", fontsize=FS)
