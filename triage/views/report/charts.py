"""The report's charts: matplotlib ``Figure`` objects (never pyplot) drawn from report data.

Each chart function takes one section of :func:`~triage.views.report.data.build_report_data`
and returns a Figure; :func:`to_svg` makes the inline SVG of the HTML page (text as paths,
comments and metadata stripped, sized by its viewBox) and :func:`to_png` the PDF's image.
Only the Agg and SVG backends are used.
"""

from __future__ import annotations

import datetime as dt
import io
import math
import re
from collections.abc import Collection
from typing import Any

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.backends.backend_svg import FigureCanvasSVG
from matplotlib.figure import Figure

from triage.views.palette import CURRENT_DECILE, ESTIMATE_COLOUR, GREY, LIVE_BLUE, model_colour

WIDE = (7.2, 3.1)
COLORS = ("#1f5fa8", "#c2571a", "#2e8540", "#8a3ea8", "#7a6a00", "#a8323e")
RC: Any = {"svg.fonttype": "path", "svg.hashsalt": "triage-report", "font.size": 9}


# Fixed margins in inches (room for money tick labels and the axis titles): a layout
# engine would measure every text twice per format, about half of a chart's drawing time.
MARGINS_IN = {"left": 0.95, "right": 0.15, "bottom": 0.62, "top": 0.12}


def _figure(size: tuple[float, float] = WIDE) -> tuple[Figure, Any]:
    fig = Figure(figsize=size)
    w, h = size
    m = MARGINS_IN
    fig.subplots_adjust(left=m["left"] / w, right=1 - m["right"] / w, bottom=m["bottom"] / h,
                        top=1 - m["top"] / h)
    ax = fig.add_subplot()
    ax.spines[["top", "right"]].set_visible(False)
    ax.grid(True, color="#dddddd", linewidth=0.6)
    ax.set_axisbelow(True)
    return fig, ax


def _times(values: list[str]) -> list[dt.datetime]:
    return [dt.datetime.fromisoformat(v) for v in values]


def spend_chart(spend: dict[str, Any]) -> Figure:
    """Cumulative spend over time (or over events when they share one moment), and budget."""
    fig, ax = _figure()
    line = spend["timeline"]
    cur = spend["currency"]
    times = _times(line["times"])
    # Under a minute of labels (a scripted run) the events read better than seconds.
    by_time = len(times) > 1 and (times[-1] - times[0]).total_seconds() >= 60
    x: Any = times if by_time else line["events"]
    if line["spend"]:
        ax.step(x, line["spend"], where="post", color=COLORS[0], label="spent")
    if spend["budget"] is not None:
        ax.axhline(spend["budget"], color=COLORS[5], linestyle="--", label="budget")
    if by_time:
        from matplotlib.dates import AutoDateLocator, DateFormatter

        span = (times[-1] - times[0]).total_seconds()
        fmt = ("%H:%M:%S" if span < 600 else "%H:%M" if span < 86_400 else "%d %b %H:%M"
               if span < 7 * 86_400 else "%d %b %Y")
        ax.xaxis.set_major_locator(AutoDateLocator(minticks=3, maxticks=7))
        ax.xaxis.set_major_formatter(DateFormatter(fmt, tz=times[0].tzinfo))
        ax.set_xlabel(f"time ({times[0].tzname() or 'UTC'}), from "
                      f"{times[0]:%d %b %Y %H:%M} to {times[-1]:%d %b %Y %H:%M}")
    else:
        ax.set_xlabel("annotation events")
    ax.set_ylabel(f"spend ({cur})")
    ax.set_ylim(bottom=0)
    if not line["spend"]:
        ax.text(0.5, 0.5, "nothing spent yet: no labels", transform=ax.transAxes,
                ha="center", va="center", color="0.4")
    if ax.get_legend_handles_labels()[0]:  # an empty legend is a warning, not a picture
        ax.legend(loc="upper left", frameon=False)
    return fig


def gain_chart(gain: dict[str, Any]) -> Figure:
    """Positives found against candidates annotated, baselines and the estimate's band."""
    fig, ax = _figure()
    ax.step(gain["annotated"], gain["positives"], where="post", color=COLORS[0], linewidth=2,
            label="found (live)")
    if gain["baseline_x"]:
        ax.plot(gain["baseline_x"], gain["baseline"], color=GREY, linestyle=":",
                label="random order")
    for model, ys in gain["offline"].items():
        ax.plot(gain["offline_x"][model], ys, linestyle="--", linewidth=1,
                color=model_colour(model, list(gain["offline"])), label=f"{model} (gold)")
    top = gain["ylim"]
    band = gain.get("band")
    if band is not None and band.get("informative"):
        ax.axhspan(band["lower"], band["upper"], color=ESTIMATE_COLOUR, alpha=0.08,
                   label="estimated positives in the pool")
        ax.axhline(band["total"], color=ESTIMATE_COLOUR, linewidth=1)
        top = max(top, min(band["upper"], 3 * max(top, 1)) * 1.05)
    elif band is not None:
        # Early: only an upper bound is known; it never stretches the axes.
        ax.axhspan(band["lower"], min(band["upper"], top), color=ESTIMATE_COLOUR, alpha=0.08,
                   label="positives found up to the ranked-order bound (clipped)")
    for x in gain["decile_lines"]:
        ax.axvline(x, color="#cccccc", linewidth=0.6)
    ax.set_xlim(0, gain["xlim"])
    ax.set_ylim(0, top)
    ax.set_xlabel("candidates annotated")
    ax.set_ylabel("positives")
    ax.legend(loc="lower right", frameon=False, fontsize=8)
    return fig


def yield_chart(yld: dict[str, Any]) -> Figure:
    """Yield per frozen score decile with the cost per positive above each bar."""
    fig, ax = _figure()
    ys = [0.0 if y is None else y for y in yld["yields"]]
    if yld["current"] is not None:   # as on the live panel: the current decile shaded
        ax.axvspan(yld["current"] - 0.5, yld["current"] + 0.5, color=CURRENT_DECILE, zorder=0,
                   label="decile in progress")
    bars = ax.bar(yld["deciles"], ys, color=LIVE_BLUE)
    for bar, label in zip(bars, yld["bar_labels"]):
        ax.annotate(label, (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                    xytext=(0, 2), textcoords="offset points", ha="center", fontsize=7)
    ax.set_xticks(yld["deciles"])
    ax.set_xlabel("score decile (1 = highest scores)")
    ax.set_ylabel("yield (positives / annotated)")
    ax.set_ylim(0, 1.1)
    return fig


def models_gain_chart(report: dict[str, Any]) -> Figure:
    """Each model's cumulative gain by decile, with the budget's reach."""
    fig, ax = _figure()
    names = list(report["models"])
    for model, m in report["models"].items():
        ys = [0.0] + [0.0 if d["cumulative_gain"] is None else d["cumulative_gain"]
                      for d in m["deciles"]]
        ax.plot(range(len(ys)), ys, marker="o", markersize=3,
                color=model_colour(model, names), label=model)
        reach = m.get("candidates_within_budget")
        if reach is not None and report["pool"]:
            ax.axvline(10 * reach / report["pool"], color=model_colour(model, names),
                       linestyle=":", linewidth=1)
    ax.plot([0, 10], [0, 1], color=GREY, linestyle=":", label="random order")
    ax.set_xlabel("deciles annotated (dotted verticals: what the budget buys)")
    ax.set_ylabel("cumulative gain")
    ax.set_xlim(0, 10)
    ax.set_ylim(0, 1.05)
    ax.legend(loc="lower right", frameon=False, fontsize=8)
    return fig


def value_chart(view: dict[str, Any]) -> Figure:
    """Held-out value with a reject option against the error cost k, per model."""
    fig, ax = _figure()
    for model, ys in view.get("value_tuned", {}).items():
        vals = [math.nan if y is None else y for y in ys]
        ax.plot(view["value_ks"], vals, color=model_colour(model, view.get("models", [])),
                label=model)
    ax.axhline(0, color=GREY, linewidth=0.8)
    ax.set_xlabel("k: cost of an error relative to a correct prediction")
    ax.set_ylabel("value V per item")
    ax.legend(loc="upper right", frameon=False, fontsize=8)
    return fig


def calibration_chart(view: dict[str, Any]) -> Figure:
    """Reliability diagram: accuracy against confidence, before and after calibration."""
    fig, ax = _figure((7.2, 3.4))
    ax.plot([0, 1], [0, 1], color=GREY, linestyle=":", label="perfect")
    for model, rel in view.get("reliability", {}).items():
        color = model_colour(model, view.get("models", []))
        for when, style in (("before", "--"), ("after", "-")):
            r = rel[when]
            ax.plot(r["confidence"], r["accuracy"], linestyle=style, marker="o", markersize=3,
                    color=color, label=f"{model} {when} (ECE {r['ece']:.3f})")
    ax.set_xlabel("predicted probability")
    ax.set_ylabel("observed share positive")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.legend(loc="upper left", frameon=False, fontsize=7)
    return fig


_STRIP = [re.compile(p, re.S) for p in (r"<\?xml.*?\?>", r"<!DOCTYPE.*?>", r"<!--.*?-->",
                                        r"<metadata>.*?</metadata>")]


def to_svg(fig: Figure) -> str:
    """The figure as an inline ``<svg>`` element: text as paths, no comments, scalable."""
    import matplotlib

    buffer = io.StringIO()
    with matplotlib.rc_context(RC):
        FigureCanvasSVG(fig)
        fig.savefig(buffer, format="svg", metadata={"Date": None})
    svg = buffer.getvalue()
    for pattern in _STRIP:
        svg = pattern.sub("", svg)
    # The viewBox keeps the proportions; CSS gives the width (100% of the column).
    svg = re.sub(r'<svg([^>]*?) width="[^"]*" height="[^"]*"', r'<svg\1 class="chart"', svg,
                 count=1)
    return svg.strip()


def to_png(fig: Figure, dpi: int = 170) -> bytes:
    """The figure as PNG bytes (Agg), for the PDF."""
    import matplotlib

    buffer = io.BytesIO()
    with matplotlib.rc_context(RC):
        FigureCanvasAgg(fig)
        fig.savefig(buffer, format="png", dpi=dpi)
    return buffer.getvalue()


FIRST = ("spend", "gain", "yield")   # the charts of the sections every report has first


def to_image(fig: Figure, dpi: int = 170) -> Any:
    """The figure as a Pillow RGB image (Agg), for the PDF.

    The pixels of :func:`to_png`, without encoding a PNG the PDF library would decode."""
    import matplotlib
    from PIL import Image

    with matplotlib.rc_context(RC):
        canvas = FigureCanvasAgg(fig)
        fig.set_dpi(dpi)
        canvas.draw()
        rgba = Image.frombuffer("RGBA", canvas.get_width_height(), canvas.buffer_rgba(),
                                "raw", "RGBA", 0, 1)
    return rgba.convert("RGB")


def report_charts(data: dict[str, Any], skip: Collection[str] = ()) -> dict[str, Figure]:
    """Every chart of the report by name (a model chart only when it has something to draw).

    ``skip``: names already drawn. Data without its models section (the first sections
    alone) gives the first three charts."""
    builders = {"spend": spend_chart, "gain": gain_chart, "yield": yield_chart}
    charts = {name: builders[name](data[name]) for name in FIRST if name not in skip}
    models = data.get("models")
    if models is None:
        return charts
    if not models["gain_report"].get("undefined_reason"):
        charts["models_gain"] = models_gain_chart(models["gain_report"])
    view = models["view"]
    if view.get("value_tuned"):
        charts["value"] = value_chart(view)
    if view.get("reliability"):
        charts["calibration"] = calibration_chart(view)
    return {name: fig for name, fig in charts.items() if name not in skip}


def drawn_charts(data: dict[str, Any], fmt: str,
                 drawn: dict[str, Any] | None = None) -> dict[str, Any]:
    """The report's charts as SVG text (``fmt`` 'html') or RGB images ('pdf'), by name.

    ``drawn``: charts of this format drawn already (kept, not drawn again)."""
    convert = to_svg if fmt == "html" else to_image
    out = dict(drawn or {})
    out.update((name, convert(fig)) for name, fig in report_charts(data, skip=out).items())
    return out


__all__ = ["FIRST", "drawn_charts", "report_charts", "to_image", "to_png", "to_svg"]
