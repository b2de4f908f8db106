"""Spend: spent against budget (bar and figures), remaining, cost per positive, projection
to finish the current decile, and spend per annotator."""

from __future__ import annotations

from triage.views.palette import BLUE, GREY, LIGHT, SKY, VERMILLION
from triage.views.panels import SpendData, format_money, spend_data
from ui.panels._base import ChartPanel
from ui.panels.chart_text import MIN_FIG_PT

LINES = 6  # caption/figure rows kept as artists


class SpendPanel(ChartPanel):
    """A budget bar on top; figures bottom left; spend per annotator bottom right."""

    title = "Spend"

    def _build(self) -> None:
        from matplotlib.ticker import FuncFormatter, MaxNLocator

        grid = self.fig.add_gridspec(2, 2, height_ratios=[1, 2.6], width_ratios=[1.25, 1])
        bar = self.bar_ax = self.fig.add_subplot(grid[0, :])
        self._style(bar)
        bar.grid(False)
        bar.set_yticks([])
        bar.spines["left"].set_visible(False)
        self.budget_rect = bar.barh(0, 0, height=0.62, color=LIGHT, zorder=1)[0]
        self.projected_rect = bar.barh(0, 0, height=0.62, color=SKY, alpha=0.45, zorder=2,
                                       hatch="////", edgecolor=SKY, linewidth=0)[0]
        self.spent_rect = bar.barh(0, 0, height=0.62, color=BLUE, zorder=3)[0]
        self.budget_line = bar.axvline(0, color="#222222", linewidth=1.2, zorder=4)
        self.bar_note = bar.text(0.995, 0.5, "", transform=bar.transAxes, ha="right",
                                 va="center", fontsize=self.fs - 0.5, color=GREY, zorder=5)
        bar.set_ylim(-0.5, 0.5)
        bar.xaxis.set_major_locator(MaxNLocator(nbins=5 if self.large else 4,
                                                steps=[1, 2, 2.5, 5, 10]))
        self._currency = "USD"
        bar.xaxis.set_major_formatter(FuncFormatter(
            lambda v, _p: format_money(v, self._currency).replace(".00", "")))
        self.title_text = bar.set_title(self.title, fontsize=self.fs + 1, loc="left", pad=3)
        self.bar_axis_title = bar.set_xlabel("spent, projected and budget (USD)",
                                             fontsize=self.fs - 0.5, labelpad=1)

        text = self.text_ax = self.fig.add_subplot(grid[1, 0])
        text.set_axis_off()
        step = 1.0 / (LINES + 0.6)
        self.captions = [text.text(0.0, 1 - (i + 0.8) * step, "", fontsize=self.fs,
                                   color="#333333", va="center") for i in range(LINES)]
        self.figures = [text.text(1.0, 1 - (i + 0.8) * step, "", fontsize=self.fs,
                                  fontweight="bold", ha="right", va="center")
                        for i in range(LINES)]
        self.warning = text.text(0.0, 0.0, "", fontsize=self.fs - 1.5, color=VERMILLION,
                                 va="bottom", wrap=True)

        people = self.people_ax = self.fig.add_subplot(grid[1, 1])
        self._style(people)
        people.grid(True, axis="x", color=LIGHT, linewidth=0.6)
        people.grid(False, axis="y")
        people.xaxis.set_major_locator(MaxNLocator(nbins=3))
        people.xaxis.set_major_formatter(FuncFormatter(
            lambda v, _p: format_money(v, self._currency).replace(".00", "")))
        # Right-aligned: long names move the axes right, and a left-aligned title ran off.
        people.set_title("spend per annotator", fontsize=self.fs - 0.5, loc="right", pad=2,
                         color="#333333")
        self.slots = 8 if self.large else 4
        self.people_empty = people.text(0.5, 0.5, "no labels yet", transform=people.transAxes,
                                        ha="center", va="center", fontsize=self.fs,
                                        color=GREY)
        self.people_bars = people.barh(range(self.slots), [0] * self.slots, height=0.6,
                                       color=BLUE, alpha=0.8)
        people.set_ylim(self.slots - 0.5, -0.5)
        people.set_yticks(range(self.slots), [""] * self.slots)

    def _prepare(self, snapshot, info) -> SpendData:
        return spend_data(snapshot, info)

    def _fit_text(self) -> int:
        """How many figure lines fit the panel's height at a readable size (a short panel
        on a scaled-up screen shows the first ones, never smaller or overlapping text);
        places them evenly."""
        height_pt = self.text_ax.get_window_extent().height * 72 / self.fig.dpi
        size = max(self.fs, MIN_FIG_PT)
        # Each line needs 1.25 × its size; the lines are spaced over (shown + 0.6) steps.
        shown = max(1, min(LINES, int(height_pt / (size * 1.25) - 0.6)
                           - bool(self.warning.get_text())))
        step = 1.0 / (shown + 0.6)
        for i, (caption, figure) in enumerate(zip(self.captions, self.figures)):
            for label in (caption, figure):
                label.set_fontsize(size)
                label.set_y(1 - (i + 0.8) * step)
                label.set_visible(i < shown)
        return shown

    def _after_layout(self) -> None:
        self._fit_text()

    def _draw(self, data: SpendData) -> None:
        self._currency = data.currency
        self.bar_axis_title.set_text(f"spent, projected and budget ({data.currency})")
        projected = data.projected or 0.0
        budget = data.budget or 0.0
        right = max(budget, data.spent + projected, 1e-9) * 1.04
        self.bar_ax.set_xlim(0, right)
        self.budget_rect.set_width(budget)
        self.spent_rect.set_width(data.spent)
        self.spent_rect.set_color(VERMILLION if data.over_budget else BLUE)
        self.projected_rect.set_x(data.spent)
        self.projected_rect.set_width(projected)
        self.budget_line.set_visible(data.budget is not None)
        self.budget_line.set_xdata([budget, budget])
        self.bar_note.set_text("no budget set" if data.budget is None else "")
        self.title_text.set_text(f"{self.title} · {data.headline}")
        self.title_text.set_color(VERMILLION if data.over_budget else "black")
        for i in range(LINES):
            caption, figure = data.lines[i] if i < len(data.lines) else ("", "")
            self.captions[i].set_text(caption)
            self.figures[i].set_text(figure)
            self.figures[i].set_color(VERMILLION if caption == "Over budget by" else "#111111")
        self.warning.set_text(data.warning)
        rows = data.by_annotator[: self.slots]
        hidden = len(data.by_annotator) - len(rows)
        names = [name for name, _ in rows] + [""] * (self.slots - len(rows))
        if hidden > 0:
            names[-1] = f"+{hidden} more"
            rows = rows[:-1]
        for i, bar in enumerate(self.people_bars):
            bar.set_width(rows[i][1] if i < len(rows) else 0.0)
        top = max((v for _n, v in rows), default=0.0)
        self.people_ax.set_xlim(0, max(top * 1.1, 1e-9))
        shown = [_short(n, 14 if self.large else 10) for n in names]
        if shown != [t.get_text() for t in self.people_ax.get_yticklabels()]:
            self._layout_key = None   # wider names need room: lay out again (no overlap)
        self.people_ax.set_yticks(range(self.slots), shown, fontsize=self.fs - 0.5)
        self.people_ax.xaxis.set_visible(bool(rows) and top > 0)
        self.people_empty.set_text("" if rows else "no labels yet")


def _short(name: str, width: int) -> str:
    return name if len(name) <= width else name[: width - 1] + "…"
