"""Cumulative gain: positives found against candidates annotated, with the random baseline."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from triage.views.formatting import count_tick, format_count, gain_title
from triage.views.palette import BLUE, ESTIMATE_COLOUR, GREY, HIGHLIGHT, model_colour
from triage.views.panels import GainData, RecallBand, gain_data, offline_label
from ui.panels._base import ChartPanel
from ui.panels.chart_text import MIN_FIG_PT, fitting, wrap_to

LEGEND_SHARE = 0.3   # the most of the figure's height the lead view's legend may take


def _wrapped(labels: list[str], ncols: int, width_pt: float, size: float) -> list[str]:
    """Each label wrapped to its column's width."""
    return [wrap_to(t, width_pt / ncols - 30, size) for t in labels]


def legend_lines(labels: list[str], ncols: int, width_pt: float, size: float) -> list[str]:
    """The lines a legend of ``labels`` in ``ncols`` columns takes (one string per line of
    the tallest column), or [] when a column would need a label wrapped (more than one
    column is for labels that fit across it)."""
    wrapped = _wrapped(labels, ncols, width_pt, size)
    if ncols > 1 and any("\n" in t for t in wrapped):
        return []
    rows = -(-len(wrapped) // ncols)
    per_column = [wrapped[c * rows:(c + 1) * rows] for c in range(ncols)]
    return max(([line for t in col for line in t.split("\n")] for col in per_column),
               key=len, default=[])


if TYPE_CHECKING:
    from matplotlib.lines import Line2D
    from matplotlib.patches import Rectangle


def _fitting_locator():
    """MaxNLocator whose tick count fits the axis's height (built lazily: matplotlib)."""
    from matplotlib.axis import Axis
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    class _Fitting(MaxNLocator):
        """At most as many y ticks as labels fit one above another with a line between."""

        def __init__(self, nbins: int, label_pt: float, **kwargs) -> None:
            super().__init__(nbins=nbins, **kwargs)
            self._most, self._label_pt = nbins, label_pt

        def tick_values(self, vmin, vmax):
            axes = self.axis.axes if isinstance(self.axis, Axis) else None
            fig = axes.figure if axes is not None else None
            if axes is not None and isinstance(fig, Figure):
                height_pt = axes.get_position().height * fig.get_figheight() * 72
                # A label and a gap of the same height per tick: never two labels touching.
                fit = int(height_pt / (2 * self._label_pt))
                self.set_params(nbins=max(1, min(self._most, fit)))
            return super().tick_values(vmin, vmax)

    return _Fitting


def FittingLocator(nbins: int, label_pt: float, **kwargs):  # noqa: N802 - a class to callers
    """A y locator with at most ``nbins`` ticks and never more than fit the axis's height
    (tick labels ``label_pt`` high)."""
    return _fitting_locator()(nbins, label_pt, **kwargs)


class GainPanel(ChartPanel):
    """Positives found so far (count and share of the pool) against the random order."""

    title = "Cumulative gain"
    _band: RecallBand | None = None  # the estimate band (lead view), set by show_estimate
    _band_drawn: tuple[float, float] | None = None

    def _build(self) -> None:
        from matplotlib.collections import LineCollection
        from matplotlib.ticker import FuncFormatter, MaxNLocator

        ax = self.ax = self.fig.add_subplot()
        self._style(ax)
        ax.grid(True, axis="x", color="#F2F2F2", linewidth=0.5)
        self._pool = 1
        self.span = ax.axvspan(0, 0, color=HIGHLIGHT, zorder=0, linewidth=0)
        self.deciles = LineCollection([], colors="#BBBBBB", linewidths=0.7, linestyles=":",
                                      zorder=1)
        ax.add_collection(self.deciles)
        (self.baseline,) = ax.plot([], [], color=GREY, linestyle="--", linewidth=1.0,
                                   zorder=2)
        (self.live,) = ax.plot([], [], color=BLUE, linewidth=2.2 if self.large else 1.6,
                               zorder=4, label="labels so far (live)")
        self.offline: dict[str, Line2D] = {}
        self.band_span: Rectangle | None = None
        (self.band_line,) = ax.plot([], [], color=ESTIMATE_COLOUR, linewidth=1.0, linestyle="-.",
                                    zorder=2)
        self.empty_text = ax.text(0.5, 0.55, "", transform=ax.transAxes, ha="center",
                                  va="center", fontsize=self.fs + 0.5, color=GREY, zorder=6,
                                  bbox={"facecolor": "white", "edgecolor": "#DDDDDD",
                                        "boxstyle": "round,pad=0.4"})
        ax.set_ylabel("positives found (items)", fontsize=self.fs)
        ax.xaxis.set_major_locator(MaxNLocator(nbins=6 if self.large else 4, integer=True))
        ax.yaxis.set_major_locator(FittingLocator(
            nbins=6 if self.large else 4, label_pt=max(MIN_FIG_PT, self.fs - 0.5), integer=True))
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _p: format_count(v)))
        if self.large:
            ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _p: format_count(v)))
            ax.set_xlabel("candidates annotated (items)", fontsize=self.fs)
            top = ax.secondary_xaxis("top", functions=(self._to_share, self._from_share))
            top.set_xlabel("share of the pool (%)", fontsize=self.fs - 1)
            top.tick_params(labelsize=max(MIN_FIG_PT, self.fs - 1.5), length=2)
        else:  # one axis, two-line ticks: count above its share of the pool
            ax.xaxis.set_major_formatter(FuncFormatter(self._tick))
            ax.set_xlabel("candidates annotated (items / % of pool)", fontsize=self.fs - 0.5,
                          labelpad=1)
        self.title_text = ax.set_title("", fontsize=self.fs + 1, loc="left", pad=3)

    def _legend(self, ax) -> None:
        """Never over the curves: below the chart when large, else in a light box at the
        lower right (where the curves are flattest)."""
        entries = len([h for h in ax.get_legend_handles_labels()[1]])
        height_pt = ax.get_window_extent().height * 72 / self.fig.dpi
        if not self.large and entries > 2:   # the desk: short names, side by side
            self._short_legend(ax, entries, height_pt)
            return
        if not self.large and entries * (self.fs + 2) > 0.35 * height_pt:
            return  # too short to hold a legend without hiding the curves (the lead view has it)
        if self.large:
            self._large_legend(ax)
        else:
            ax.legend(loc="lower right", fontsize=self.fs - 1, frameon=True, framealpha=0.85,
                      edgecolor="#DDDDDD", handlelength=1.4, borderaxespad=0.3,
                      labelspacing=0.2)

    def _large_legend(self, ax) -> None:
        """Below the whole chart, each label wrapped to the figure's width (a legend wider
        than the figure ran off both sides); never taller than LEGEND_SHARE of the figure,
        so the plot keeps its height: full labels in one or two columns if they fit, else
        short ones (the model's name) in two or three columns."""
        self._layout_key = None  # the layout makes room for the legend below the axes
        width_pt = self.fig.get_figwidth() * 72 - 40
        room_pt = LEGEND_SHARE * self.fig.get_figheight() * 72
        size = max(MIN_FIG_PT, self.fs - 1)
        handles, full = ax.get_legend_handles_labels()
        short = [self._short_names().get(id(h), t) for h, t in zip(handles, full)]
        for labels, choices in ((full, (1, 2)), (short, (2, 3))):
            for ncols in choices:
                lines = legend_lines(labels, ncols, width_pt, size)
                if lines and len(lines) * size * 1.35 <= room_pt:
                    self.fig.legend(handles, _wrapped(labels, ncols, width_pt, size),
                                    loc="outside lower center", ncols=ncols,
                                    fontsize=size, frameon=False, handlelength=1.6,
                                    columnspacing=1.2, labelspacing=0.25)
                    return
        # Nothing fits: the short names in as many columns as there are entries (one row).
        self.fig.legend(handles, short, loc="outside lower center", ncols=max(1, len(short)),
                        fontsize=size, frameon=False, handlelength=1.2, columnspacing=0.8)

    def _short_names(self) -> dict[int, str]:
        """One or two words per legend entry: the full sentences are in the lead view's
        Advice tab and the title."""
        names = {id(self.live): "labels (live)", id(self.baseline): "random order",
                 **{id(line): model for model, line in self.offline.items()}}
        if self.band_span is not None:
            names[id(self.band_span)] = "estimate (band)"
        return names

    def _short_legend(self, ax, entries: int, height_pt: float) -> None:
        """The desk's legend with gold curves: one word per line (the lead window's chart
        says the rest), in columns, so it stays low in the corner."""
        handles, labels = ax.get_legend_handles_labels()
        short = self._short_names()
        labels = [short.get(id(h), label) for h, label in zip(handles, labels)]
        cols = 3 if entries > 4 else 2
        rows = -(-entries // cols)
        if rows * (self.fs + 2) > 0.35 * height_pt:
            return   # too short even so: no legend rather than one over the curves
        ax.legend(handles, labels, loc="lower right", fontsize=self.fs - 1, ncols=cols,
                  frameon=True, framealpha=0.85, edgecolor="#DDDDDD", handlelength=1.2,
                  borderaxespad=0.3, labelspacing=0.2, columnspacing=0.8)

    def _to_share(self, x):
        return x * 100.0 / self._pool

    def _from_share(self, s):
        return s * self._pool / 100.0

    def _tick(self, value: float, _pos) -> str:
        return count_tick(value, self._pool)

    def show_estimate(self, band: RecallBand | None) -> None:
        """Draw the estimate of all positives in the pool as a band (the lead view)."""
        with self._state_lock:
            self._band = band
            self._state += 1
        if self._snap is not None and not self._timer.isActive():
            self._timer.start()

    def _prepare(self, snapshot, info) -> GainData:
        data = gain_data(snapshot, info)
        if self._band is None:
            return data
        if not self._band.informative or self._band.total is None:
            # Early the band is an upper bound: it never stretches the axes.
            return replace(data, band=self._band)
        # Show the estimate without letting a wide band flatten the curve: the top of the
        # band may run off the chart (its figures are in the legend).
        top = min(self._band.upper, max(self._band.total, data.ylim) * 1.3)
        return replace(data, band=self._band, ylim=max(data.ylim, top * 1.05))

    def band_extent(self) -> tuple[float, float] | None:
        """(lower, upper) of the band as drawn: clipped to the axes (tests)."""
        return self._band_drawn

    def _draw(self, data: GainData) -> None:
        ax = self.ax
        self._pool = max(data.pool, 1)
        self.live.set_data(data.annotated, data.positives)
        self.baseline.set_data(data.baseline_x, data.baseline)
        self.baseline.set_label(data.baseline_label or "_nolegend_")
        if set(self.offline) != set(data.offline):
            for line in self.offline.values():
                line.remove()
            self.offline = {}
            for model in data.offline:
                (self.offline[model],) = ax.plot(
                    [], [], color=model_colour(model, list(data.offline)), linewidth=1.0,
                    alpha=0.9, zorder=3, label=offline_label(model))
        for model, (ox, oy) in data.offline.items():
            self.offline[model].set_data(ox, oy)
        if self.band_span is not None:
            self.band_span.remove()
            self.band_span = None
        band = data.band
        if band is not None:
            # Clipped to the axes: a wide early band must not run past the top of the plot.
            self._band_drawn = (min(band.lower, data.ylim), min(band.upper, data.ylim))
            self.band_span = ax.axhspan(*self._band_drawn, color=ESTIMATE_COLOUR, alpha=0.12,
                                        linewidth=0, zorder=1, label=band.label)
            # A point estimate only when the interval says something (see views.advice).
            point = [band.total, band.total] if band.informative and band.total else []
            self.band_line.set_data([0, data.xlim] if point else [], point)
            self.band_line.set_label("_nolegend_")
        else:
            self._band_drawn = None
            self.band_line.set_data([], [])
            self.band_line.set_label("_nolegend_")
        self.deciles.set_segments([[(b, 0), (b, data.ylim)] for b in data.decile_lines])
        lo, hi = data.current_span or (0, 0)
        self.span.set_x(lo)
        self.span.set_width(hi - lo)
        ax.set_xlim(0, data.xlim)
        ax.set_ylim(0, data.ylim)
        self.empty_text.set_text(
            "Nothing annotated yet.\nThe curve grows with every label." if data.empty else "")
        title = self.title if data.empty else f"{self.title}: {data.summary}"
        width_pt = self.fig.get_figwidth() * 72 - 20
        self.title_text.set_text(wrap_to(title, width_pt, self.fs + 1) if self.large
                                 else self.title)
        if not self.large:   # the axis title never longer than the axes are high
            height_pt = ax.get_position().height * self.fig.get_figheight() * 72
            ax.set_ylabel(fitting(("positives found (items)", "positives found",
                                   "positives"), height_pt, self.fs), fontsize=self.fs)
        legend = ax.get_legend()
        if legend is not None:
            legend.remove()
        for old in list(self.fig.legends):
            old.remove()
        if not data.empty or data.offline:
            self._legend(ax)
        if not self.large and not data.empty:
            found = int(data.positives[-1])
            self.title_text.set_text(gain_title(found, int(data.annotated[-1])))
