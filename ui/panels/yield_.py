"""Marginal-decile yield: per decile, positives / annotated and how much of it is annotated."""

from __future__ import annotations

from triage.views.palette import BLUE, GREY, HIGHLIGHT, ORANGE
from triage.views.panels import YieldData, yield_data
from ui.panels._base import ChartPanel

WIDTH = 0.38
YTOP = 1.32


class YieldPanel(ChartPanel):
    """One pair of bars per decile; the current decile is shaded and its label bold."""

    title = "Marginal-decile yield"

    def _build(self) -> None:
        from matplotlib.patches import Patch
        from matplotlib.ticker import PercentFormatter

        ax = self.ax = self.fig.add_subplot()
        self._style(ax)
        xs = list(range(1, 11))
        # The shading stops below the legend band (bars never pass 100%).
        self.span = ax.axvspan(0.5, 0.5, ymax=1.04 / YTOP, color=HIGHLIGHT, zorder=0,
                               linewidth=0)
        self.yield_bars = ax.bar([x - WIDTH / 2 for x in xs], [0] * 10, WIDTH, color=BLUE,
                                 zorder=3)
        self.share_bars = ax.bar([x + WIDTH / 2 for x in xs], [0] * 10, WIDTH, color=ORANGE,
                                 alpha=0.55, zorder=2, hatch="///" if self.large else None,
                                 edgecolor="white", linewidth=0)
        self.cost_texts = [
            ax.text(x - WIDTH / 2, 0, "", ha="center", va="bottom", zorder=5,
                    fontsize=self.fs - (0 if self.large else 1.5), color="#222222",
                    rotation=0 if self.large else 90)
            for x in xs]
        self.empty_text = ax.text(0.5, 0.6, "", transform=ax.transAxes, ha="center",
                                  va="center", fontsize=self.fs + 0.5, color=GREY)
        ax.set_xlim(0.4, 10.6)
        ax.set_ylim(0, YTOP)
        ax.set_yticks([0, 0.25, 0.5, 0.75, 1.0])
        ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
        ax.set_xticks(xs)
        ax.set_xlabel("score decile (1 = top of the ranking)", fontsize=self.fs, labelpad=1)
        ax.set_ylabel("% of the decile", fontsize=self.fs - (0 if self.large else 0.5))
        ax.set_title(self.title, fontsize=self.fs + 1, loc="left", pad=3)
        names = (("yield (positives / annotated)", "annotated share", "current decile")
                 if self.large else ("yield", "annotated", "current"))
        ax.legend(handles=[Patch(color=BLUE, label=names[0]),
                           Patch(color=ORANGE, alpha=0.55, label=names[1]),
                           Patch(color=HIGHLIGHT, label=names[2])],
                  loc="upper right", fontsize=self.fs - 1.5, frameon=False, ncols=3,
                  handlelength=1.0, columnspacing=0.8, borderaxespad=0.1)

    def _prepare(self, snapshot, info) -> YieldData:
        return yield_data(snapshot, info)

    def _draw(self, data: YieldData) -> None:
        drawn = data.drawn or [True] * len(data.yields)
        for i, (y, s, label) in enumerate(zip(data.yields, data.shares, data.bar_labels)):
            y = y if drawn[i] else None   # too few labels: "n=1" on the axis, no bar
            self.yield_bars[i].set_height(y or 0.0)
            self.share_bars[i].set_height(s or 0.0)
            text = self.cost_texts[i]
            text.set_text(label)
            # Money fits across a large bar; anything longer stands up so neighbours never clash.
            text.set_rotation(0 if self.large and label.startswith("$") and len(label) <= 6
                              else 90)
            # Standing text on a tall bar goes inside it (white), so it never reaches the
            # legend above the bars or the title.
            inside = label and text.get_rotation() == 90 and (y or 0.0) > 0.5
            text.set_y((y or 0.0) - 0.02 if inside else (y or 0.0) + 0.02)
            text.set_verticalalignment("top" if inside else "bottom")
            text.set_color("white" if inside else "#222222")
        labels = [str(d) if n else "–" for d, n in zip(data.deciles, data.items)]
        self.ax.set_xticks(data.deciles, labels)
        for tick, d in zip(self.ax.get_xticklabels(), data.deciles):
            tick.set_fontweight("bold" if d == data.current else "normal")
        if data.current is None:
            self.span.set_width(0)
        else:
            self.span.set_x(data.current - 0.5)
            self.span.set_width(1.0)
        self.empty_text.set_text("No labels yet: each decile's yield\nappears as it is annotated."
                                 if data.empty else "")
