"""The report's charts as :class:`~.chart_model.Chart` descriptions built from report data.

Each chart function takes one section of :func:`~triage.views.report.data.build_report_data`
and returns a Chart (data, limits, ticks, texts); :func:`drawn_charts` draws them as inline
SVG for the page (:mod:`.chart_svg`) or keeps them for the PDF, which draws them as vector
graphics (:mod:`.chart_pdf`). No plotting library is imported.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Collection
from typing import Any

from triage.views.palette import CURRENT_DECILE, ESTIMATE_COLOUR, GREY, LIVE_BLUE, model_colour
from triage.views.report.chart_model import (
    Bar,
    Chart,
    Mark,
    Note,
    Rule,
    Span,
    auto_limits,
    linear_ticks,
    time_format,
    time_ticks,
)

COLORS = ("#1f5fa8", "#c2571a", "#2e8540", "#8a3ea8", "#7a6a00", "#a8323e")
FIRST = ("spend", "gain", "yield")   # the charts of the sections every report has first


def _chart(xlim: tuple[float, float], ylim: tuple[float, float], xlabel: str, ylabel: str,
           **kw: Any) -> Chart:
    return Chart(xlim=xlim, ylim=ylim, xticks=linear_ticks(*xlim), yticks=linear_ticks(*ylim),
                 xlabel=xlabel, ylabel=ylabel, **kw)


def spend_chart(spend: dict[str, Any]) -> Chart:
    """Cumulative spend over time (or over events when they share one moment), and budget."""
    line = spend["timeline"]
    times = [dt.datetime.fromisoformat(v) for v in line["times"]]
    # Under a minute of labels (a scripted run) the events read better than seconds.
    by_time = len(times) > 1 and (times[-1] - times[0]).total_seconds() >= 60
    xs = [t.timestamp() for t in times] if by_time else [float(e) for e in line["events"]]
    ys = [float(v) for v in line["spend"]]
    budget = spend["budget"]
    top = auto_limits([0.0, *ys, *([budget] if budget is not None else [])])[1]
    xlim = auto_limits(xs) if xs else (0.0, 1.0)
    if by_time:
        xlabel = (f"time ({times[0].tzname() or 'UTC'}), from "
                  f"{times[0]:%d %b %Y %H:%M} to {times[-1]:%d %b %Y %H:%M}")
    else:
        xlabel = "annotation events"
    chart = _chart(xlim, (0.0, top), xlabel, f"spend ({spend['currency']})",
                   legend="best")
    if by_time:
        chart.xticks = time_ticks(*xlim, times[0].tzinfo)
    if ys:
        chart.marks.append(Mark(xs, ys, COLORS[0], step=True, label="spent"))
    else:
        chart.notes.append(Note("nothing spent yet: no labels", 0.5, 0.5))
    if budget is not None:
        chart.rules.append(Rule("y", budget, COLORS[5], 1.5, "dash", label="budget"))
    return chart


def gain_chart(gain: dict[str, Any]) -> Chart:
    """Positives found against candidates annotated, baselines and the estimate's band."""
    top = gain["ylim"]
    band = gain.get("band")
    spans = []
    rules = [Rule("x", x, "#cccccc", 0.6) for x in gain["decile_lines"]]
    if band is not None and band.get("informative"):
        spans.append(Span("y", band["lower"], band["upper"], ESTIMATE_COLOUR, 0.08,
                          "estimated positives in the pool"))
        rules.append(Rule("y", band["total"], ESTIMATE_COLOUR, 1.0))
        top = max(top, min(band["upper"], 3 * max(top, 1)) * 1.05)
    elif band is not None:
        # Early: only an upper bound is known; it never stretches the axes.
        spans.append(Span("y", band["lower"], min(band["upper"], top), ESTIMATE_COLOUR, 0.08,
                          "positives found up to the ranked-order bound (clipped)"))
    chart = _chart((0.0, float(gain["xlim"])), (0.0, float(top)), "candidates annotated",
                   "positives", spans=spans, rules=rules, legend="best")
    chart.marks.append(Mark(gain["annotated"], gain["positives"], COLORS[0], 2.0, step=True,
                            label="found (live)"))
    if gain["baseline_x"]:
        chart.marks.append(Mark(gain["baseline_x"], gain["baseline"], GREY, dash="dot",
                                label="random order"))
    for model, ys in gain["offline"].items():
        chart.marks.append(Mark(gain["offline_x"][model], ys,
                                model_colour(model, list(gain["offline"])), 1.0, "dash",
                                label=f"{model} (gold)"))
    return chart


def yield_chart(yld: dict[str, Any]) -> Chart:
    """Yield per frozen score decile with the cost per positive above each bar."""
    deciles = [float(d) for d in yld["deciles"]]
    xlim = auto_limits([deciles[0] - 0.4, deciles[-1] + 0.4]) if deciles else (0.0, 1.0)
    chart = _chart(xlim, (0.0, 1.1), "score decile (1 = highest scores)",
                   "yield (positives / annotated)")
    chart.xticks = [(d, f"{d:g}") for d in deciles]
    if yld["current"] is not None:   # as on the live panel: the current decile shaded
        chart.spans.append(Span("x", yld["current"] - 0.5, yld["current"] + 0.5,
                                CURRENT_DECILE, 1.0, "decile in progress"))
    for d, y, label in zip(deciles, yld["yields"], yld["bar_labels"]):
        chart.bars.append(Bar(d, 0.0 if y is None else float(y), 0.8, LIVE_BLUE, label))
    return chart


def models_gain_chart(report: dict[str, Any]) -> Chart:
    """Each model's cumulative gain by decile, with the budget's reach."""
    chart = _chart((0.0, 10.0), (0.0, 1.05),
                   "deciles annotated (dotted verticals: what the budget buys)",
                   "cumulative gain", legend="best")
    names = list(report["models"])
    for model, m in report["models"].items():
        ys = [0.0] + [0.0 if d["cumulative_gain"] is None else d["cumulative_gain"]
                      for d in m["deciles"]]
        colour = model_colour(model, names)
        chart.marks.append(Mark(list(range(len(ys))), ys, colour, marker=True, label=model))
        reach = m.get("candidates_within_budget")
        if reach is not None and report["pool"]:
            chart.rules.append(Rule("x", 10 * reach / report["pool"], colour, 1.0, "dot"))
    chart.marks.append(Mark([0, 10], [0, 1], GREY, dash="dot", label="random order"))
    return chart


def value_chart(view: dict[str, Any]) -> Chart:
    """Held-out value with a reject option against the error cost k, per model."""
    ks = [float(k) for k in view["value_ks"]]
    curves = {model: [math.nan if y is None else float(y) for y in ys]
              for model, ys in view.get("value_tuned", {}).items()}
    ylim = auto_limits([0.0, *(y for ys in curves.values() for y in ys)])
    chart = _chart(auto_limits(ks), ylim,
                   "k: cost of an error relative to a correct prediction", "value V per item",
                   legend="best")
    chart.rules.append(Rule("y", 0.0, GREY, 0.8))
    for model, ys in curves.items():
        chart.marks.append(Mark(ks, ys, model_colour(model, view.get("models", [])),
                                label=model))
    return chart


def calibration_chart(view: dict[str, Any]) -> Chart:
    """Reliability diagram: accuracy against confidence, before and after calibration."""
    chart = _chart((0.0, 1.0), (0.0, 1.0), "predicted probability", "observed share positive",
                   size=(7.2, 3.4), legend="best", legend_font=7.0)
    chart.marks.append(Mark([0, 1], [0, 1], GREY, dash="dot", label="perfect"))
    for model, rel in view.get("reliability", {}).items():
        colour = model_colour(model, view.get("models", []))
        for when, dash in (("before", "dash"), ("after", "")):
            r = rel[when]
            chart.marks.append(Mark(r["confidence"], r["accuracy"], colour, dash=dash,
                                    marker=True, label=f"{model} {when} (ECE {r['ece']:.3f})"))
    return chart


def report_charts(data: dict[str, Any], skip: Collection[str] = ()) -> dict[str, Chart]:
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
    return {name: c for name, c in charts.items() if name not in skip}


def drawn_charts(data: dict[str, Any], fmt: str,
                 drawn: dict[str, Any] | None = None) -> dict[str, Any]:
    """The report's charts as SVG text (``fmt`` 'html') or Chart descriptions ('pdf'), by name.

    ``drawn``: charts of this format drawn already (kept, not drawn again)."""
    out = dict(drawn or {})
    charts = report_charts(data, skip=out)
    if fmt == "html":
        from triage.views.report.chart_svg import to_svg

        out.update((name, to_svg(chart)) for name, chart in charts.items())
    else:
        out.update(charts)
    return out


__all__ = ["FIRST", "drawn_charts", "report_charts", "time_format"]
