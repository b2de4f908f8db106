"""Offline model comparison (lead view): each model's gold gain over the whole pool."""

from __future__ import annotations

from typing import TYPE_CHECKING

from triage.views.formatting import budget_buys, comparison_label, format_count
from triage.views.palette import GREY, model_colour
from triage.views.panels import ComparisonData, comparison_data
from ui.panels._base import ChartPanel

if TYPE_CHECKING:
    from matplotlib.lines import Line2D


class ComparisonPanel(ChartPanel):
    """Per-model cumulative gain from the gold labels, with the line the budget reaches."""

    title = "Offline model comparison"

    def _build(self) -> None:
        from matplotlib.ticker import FuncFormatter, MaxNLocator

        ax = self.ax = self.fig.add_subplot()
        self._style(ax)
        self.lines: dict[str, Line2D] = {}
        (self.diagonal,) = ax.plot([], [], color=GREY, linestyle="--", linewidth=1.0,
                                   label="random order")
        self.budget_line = ax.axvline(0, color="#222222", linewidth=1.0, linestyle="-.")
        self.budget_text = ax.text(0, 1.0, "", transform=ax.get_xaxis_transform(),
                                   fontsize=self.fs - 1, va="top", ha="left", color="#222222")
        self.empty_text = ax.text(0.5, 0.55, "", transform=ax.transAxes, ha="center",
                                  va="center", fontsize=self.fs + 0.5, color=GREY)
        ax.set_xlabel("candidates annotated (in each model's rank order)", fontsize=self.fs)
        ax.set_ylabel("gold positives found", fontsize=self.fs)
        for axis in (ax.xaxis, ax.yaxis):
            axis.set_major_locator(MaxNLocator(nbins=6, integer=True))
            axis.set_major_formatter(FuncFormatter(lambda v, _p: format_count(v)))
        ax.set_title(self.title, fontsize=self.fs + 1, loc="left", pad=3)

    def _prepare(self, snapshot, info) -> ComparisonData:
        return comparison_data(snapshot, info)

    def _draw(self, data: ComparisonData) -> None:
        ax = self.ax
        if set(self.lines) != set(data.curves):
            for line in self.lines.values():
                line.remove()
            self.lines = {}
            for model in data.curves:
                (self.lines[model],) = ax.plot([], [], color=model_colour(model, list(data.curves)),
                                               zorder=3)
        for model, (x, y) in data.curves.items():
            line = self.lines[model]
            line.set_data(x, y)
            line.set_linewidth(2.2 if model == data.active_model else 1.3)
            line.set_label(comparison_label(model, model == data.active_model,
                                            data.at_budget.get(model)))
        pool = max(data.pool, 1)
        total = data.total or 0
        self.diagonal.set_data([0, pool], [0, total])
        k = data.budget_items
        self.budget_line.set_visible(k is not None and bool(data.curves))
        self.budget_line.set_xdata([k or 0, k or 0])
        self.budget_text.set_x(k or 0)
        self.budget_text.set_text(budget_buys(k) if data.curves else "")
        ax.set_xlim(0, pool)
        ax.set_ylim(0, max(total, 1) * 1.08)
        self.empty_text.set_text("" if data.curves else
                                 "No gold labels in this project:\nthe offline comparison "
                                 "needs a gold column.")
        legend = ax.get_legend()
        if legend is not None:
            legend.remove()
        if data.curves:
            ax.legend(loc="lower right", fontsize=self.fs - 1, frameon=False)
