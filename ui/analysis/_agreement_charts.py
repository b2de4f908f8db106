"""The agreement chart, drawn afresh into its Figure (on the chart thread) from
AgreementViewData: the pairwise Cohen κ heat map, α across sessions and α by score decile."""

from __future__ import annotations

import math

import numpy as np
from matplotlib import colormaps
from matplotlib.patches import Rectangle

from triage.views.analysis import AgreementViewData, Series
from triage.views.formatting import format_decimal
from triage.views.palette import BLUE, GREY, LIGHT, ORANGE, VERMILLION
from ui.analysis._common import FS, chart_text, style_axes

BANDS = ((0.800, "reliable"), (0.667, "tentative"))


def draw_agreement(fig, d: AgreementViewData) -> None:
    """The κ heat map (left), α per session and α by score decile (right), drawn afresh."""
    fig.clear()
    grid = fig.add_gridspec(2, 2, width_ratios=(1.0, 1.25))
    _heatmap(fig.add_subplot(grid[:, 0]), d)
    _trend(fig.add_subplot(grid[0, 1]), d.sessions)
    _deciles(fig.add_subplot(grid[1, 1]), d.deciles)


def _heatmap(ax, d: AgreementViewData) -> None:
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
            ax.text(j, i, f"{format_decimal(k[i, j], 2)}\nn={d.kappa_items[i, j]}", ha="center",
                    va="center", fontsize=FS - 1, color="white" if dark else "black",
                    linespacing=1.1)


def _bands(ax) -> None:
    # Named right of the plot, outside it: inside, a name ran into the last point's "n="
    # label. "reliable" above its line's level, "tentative" below: never stacked.
    for y, name in BANDS:
        above = name == "reliable"
        ax.axhline(y, color=GREY, linewidth=0.8, linestyle=(0, (4, 3)), zorder=1)
        ax.annotate(name, (1.0, y), xycoords=("axes fraction", "data"),
                    xytext=(3, 1 if above else -1), textcoords="offset points",
                    ha="left", va="bottom" if above else "top", fontsize=FS - 2,
                    color=GREY, annotation_clip=False)


def _undefined_mark(ax, x: float) -> None:
    """Say "undef." at the foot of the column: no point, no bar (an α of 0 is a value;
    the caption says why this one has none)."""
    ax.annotate("undef.", (x, 0.0), xycoords=("data", "axes fraction"), xytext=(0, 3),
                textcoords="offset points", ha="center", va="bottom", fontsize=FS - 2,
                color=GREY)


def _ylim(ax, values: np.ndarray) -> None:
    finite = values[np.isfinite(values)]
    low = min(0.0, float(finite.min()) - 0.05) if finite.size else 0.0
    ax.set_ylim(low, 1.15)  # room above α = 1 for its "n=" label, under the title


def _empty(ax, title: str, message: str) -> None:
    ax.set_title(title, fontsize=FS + 1, loc="left")
    ax.set_axis_off()
    ax.text(0.5, 0.5, message, ha="center", va="center", fontsize=FS, color=GREY,
            transform=ax.transAxes)


def _titled(ax, title: str, s: Series, nothing: str) -> bool:
    """Style the axes and title them; False (and ``nothing`` said) when ``s`` is empty."""
    if not s.groups:
        _empty(ax, title, nothing)
        return False
    style_axes(ax)
    ax.set_title(title, fontsize=FS + 1, loc="left")
    return True


def _trend(ax, s: Series) -> None:
    if not _titled(ax, "α per session (against the other annotators)", s,
                   "No sessions with overlapping labels yet"):
        return
    x = np.arange(len(s.groups))
    ok = np.isfinite(s.values)
    ax.plot(x[ok], s.values[ok], color=BLUE, linewidth=1.4, marker="o", markersize=5,
            zorder=3)
    for xi, v, n in zip(x, s.values, s.items):
        if math.isfinite(v):
            ax.annotate(f"n={n}", (xi, v), xytext=(0, 5), textcoords="offset points",
                        ha="center", fontsize=FS - 2, color=GREY)
        else:
            _undefined_mark(ax, float(xi))
    _bands(ax)
    _ylim(ax, s.values)
    step = max(1, len(x) // 12)
    ax.set_xticks(x[::step], [chart_text(s.labels[i]) for i in x[::step]], fontsize=FS - 1.5,
                  rotation=30 if len(x) > 6 else 0, ha="right" if len(x) > 6 else "center")
    ax.set_xlim(-0.5, len(x) - 0.5)
    ax.set_ylabel("α", fontsize=FS)


def _deciles(ax, s: Series) -> None:
    if not _titled(ax, "α by score decile of the active model", s,
                   "No overlapping labels yet"):
        return
    ax.grid(False, axis="x")
    x = np.arange(len(s.groups))
    ok = np.isfinite(s.values)
    ax.bar(x[ok], s.values[ok], color=ORANGE, width=0.7, zorder=2)
    for xi, v, n in zip(x, s.values, s.items):
        if math.isfinite(v):
            ax.annotate(f"n={n}", (xi, max(v, 0.0)), xytext=(0, 2), textcoords="offset points",
                        ha="center", fontsize=FS - 2, color=GREY)
        else:
            _undefined_mark(ax, float(xi))
    _bands(ax)
    _ylim(ax, s.values)
    ax.axhline(0.0, color="#444444", linewidth=0.6)
    ax.set_xticks(x, list(s.labels), fontsize=FS - 1)
    ax.set_xlabel("decile (1 = top-ranked tenth of the pool)", fontsize=FS - 1)
    ax.set_ylabel("α", fontsize=FS)
