"""A chart laid out as drawing operations in points: what both renderers draw, in order.

:func:`layout` turns a :class:`~.chart_model.Chart` into rectangles, polylines, circles and
texts placed in the chart's box (points from its top left, y down). The SVG and PDF
renderers only translate these operations, so the page and the PDF draw the same thing.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from triage.views.report.chart_model import (
    AXIS,
    FONT_PT,
    GRID,
    TEXT,
    Chart,
    Mark,
    Rule,
    Span,
    step_points,
)

TICK = 3.5          # tick length in points, outwards
DASHES = {"": (), "dash": (3.7, 1.6), "dot": (1.0, 1.65)}   # per point of line width
CHAR_EM = 0.6       # a generous average glyph width (DejaVu Sans), for the legend's box


@dataclass(frozen=True)
class Op:
    """One drawing operation.

    ``kind``: 'rect' (fill, ``opacity``), 'line' (a polyline: ``points``, ``width``,
    ``dash`` in points), 'circle' (filled, radius ``width``), 'text' (at ``points[0]``,
    baseline; ``anchor`` start/middle/end; ``rotate`` 0 or 90 counter-clockwise),
    'clip' (following operations drawn inside ``points``' box) and 'unclip'."""

    kind: str
    points: tuple[tuple[float, float], ...]
    colour: str = TEXT
    width: float = 0.0
    dash: tuple[float, ...] = ()
    opacity: float = 1.0
    text: str = ""
    size: float = FONT_PT
    anchor: str = "start"
    rotate: int = 0


def _line(points: list[tuple[float, float]], colour: str, width: float, dash: str) -> Op:
    return Op("line", tuple(points), colour, width, tuple(d * width for d in DASHES[dash]))


def _text(x: float, y: float, text: str, size: float = FONT_PT, anchor: str = "start",
          colour: str = TEXT, rotate: int = 0) -> Op:
    return Op("text", ((x, y),), colour, text=text, size=size, anchor=anchor, rotate=rotate)


def _segments(mark: Mark, fx: Callable[[float], float],
              fy: Callable[[float], float]) -> list[list[tuple[float, float]]]:
    pts = list(zip(mark.xs, mark.ys))
    if mark.step:
        pts = step_points(mark.xs, mark.ys)
    out: list[list[tuple[float, float]]] = [[]]
    for x, y in pts:
        if x is None or y is None or not (math.isfinite(x) and math.isfinite(y)):
            if out[-1]:
                out.append([])
            continue
        out[-1].append((fx(x), fy(y)))
    return [s for s in out if s]


def thin(points: list[tuple[float, float]], column: float = 0.5) -> list[tuple[float, float]]:
    """The points a line needs at ``column`` points of resolution, in their order.

    Per column of that width: the first, lowest, highest and last point (a line through
    thousands of points looks the same through these; nothing in between shows)."""
    if len(points) <= 64:
        return points
    xs = np.asarray([p[0] for p in points])
    ys = np.asarray([p[1] for p in points])
    col = np.floor(xs / column).astype(np.int64)
    starts = np.flatnonzero(np.r_[True, col[1:] != col[:-1]])
    if starts.size * 4 >= len(points):
        return points
    ends = np.r_[starts[1:], len(points)] - 1
    lo = np.minimum.reduceat(ys, starts)
    hi = np.maximum.reduceat(ys, starts)
    keep = np.zeros(len(points), dtype=bool)
    keep[starts] = keep[ends] = True
    group = np.repeat(np.arange(starts.size), np.diff(np.r_[starts, len(points)]))
    first_lo = np.flatnonzero(ys == lo[group])
    first_hi = np.flatnonzero(ys == hi[group])
    keep[first_lo[np.r_[True, group[first_lo][1:] != group[first_lo][:-1]]]] = True
    keep[first_hi[np.r_[True, group[first_hi][1:] != group[first_hi][:-1]]]] = True
    return [points[i] for i in np.flatnonzero(keep)]


def _axes(chart: Chart) -> list[Op]:
    left, top, w, h = chart.plot_box()
    fx, fy = chart.to_box()
    bottom = top + h
    ops = [_line([(left, bottom), (left + w, bottom)], AXIS, 0.8, ""),
           _line([(left, top), (left, bottom)], AXIS, 0.8, "")]
    for v, label in chart.xticks:
        x = fx(v)
        ops.append(_line([(x, bottom), (x, bottom + TICK)], AXIS, 0.8, ""))
        ops.append(_text(x, bottom + TICK + 2 + FONT_PT * 0.8, label, anchor="middle"))
    for v, label in chart.yticks:
        y = fy(v)
        ops.append(_line([(left - TICK, y), (left, y)], AXIS, 0.8, ""))
        ops.append(_text(left - TICK - 2.5, y + FONT_PT * 0.35, label, anchor="end"))
    # Axis titles beside the tick labels (the widest y label estimated), as plots set them.
    ops.append(_text(left + w / 2, bottom + TICK + 2 + FONT_PT * 2.3, chart.xlabel,
                     anchor="middle"))
    widest = max((len(label) for _, label in chart.yticks), default=0) * FONT_PT * CHAR_EM
    ops.append(_text(max(FONT_PT, left - TICK - 2.5 - widest - 4), top + h / 2, chart.ylabel,
                     anchor="middle", rotate=90))
    return ops


CORNERS = ("upper left", "upper right", "lower left", "lower right")


def _covered(chart: Chart, box: tuple[float, float, float, float]) -> int:
    """How many of the chart's drawn points and bar tops fall inside ``box`` (x0, y0, x1,
    y1 in points): what a legend there would hide."""
    fx, fy = chart.to_box()
    x0, y0, x1, y1 = box
    hidden = 0
    for m in chart.marks:
        for seg in _segments(m, fx, fy):
            # The line between the points too: eight samples along each piece of it.
            pts = np.asarray(thin(seg), dtype=float)
            if len(pts) > 1:
                t = np.linspace(0.0, 1.0, 8, endpoint=False)[:, None, None]
                pts = (pts[:-1] + t * (pts[1:] - pts[:-1])).reshape(-1, 2)
            inside = (pts[:, 0] >= x0) & (pts[:, 0] <= x1) & (pts[:, 1] >= y0) & (pts[:, 1] <= y1)
            hidden += int(inside.sum())
    for bar in chart.bars:
        top = fy(bar.height)
        hidden += 4 * int(x0 <= fx(bar.x) <= x1 and top <= y1)
    return hidden


def _legend(chart: Chart) -> list[Op]:
    entries = chart.legend_entries()
    if chart.legend is None or not entries:
        return []
    left, top, w, h = chart.plot_box()
    fs = chart.legend_font
    row, handle, gap, pad = fs * 1.3, fs * 2.0, fs * 0.8, fs * 0.5
    widest = max(len(label) for label, _ in entries) * fs * CHAR_EM
    box_w, box_h = handle + gap + widest + pad, row * len(entries) + pad

    def box(corner: str) -> tuple[float, float, float, float]:
        x = left + pad / 2 if corner.endswith("left") else left + w - pad / 2 - box_w
        y = top + pad / 2 if corner.startswith("upper") else top + h - pad / 2 - box_h
        return x, y, x + box_w, y + box_h

    # "best", as plots place it: the corner where the legend hides the fewest points.
    corner = chart.legend if chart.legend != "best" else min(
        CORNERS, key=lambda c: _covered(chart, box(c)))
    bx0, by0, bx1, by1 = box(corner)
    # On a white ground, framed, so a line under it does not run through its words.
    ops: list[Op] = [Op("rect", ((bx0, by0), (bx1, by1)), "#ffffff", opacity=0.85),
                     _line([(bx0, by0), (bx1, by0), (bx1, by1), (bx0, by1), (bx0, by0)],
                           GRID, 0.6, "")]
    x0, y0 = bx0 + pad / 2, by0 + pad / 2
    for i, (label, item) in enumerate(entries):
        mid = y0 + row * i + row / 2
        if isinstance(item, Span):
            ops.append(Op("rect", ((x0, mid - fs * 0.35), (x0 + handle, mid + fs * 0.35)),
                          item.colour, opacity=max(item.opacity, 0.25)))
        elif isinstance(item, Mark | Rule):
            ops.append(_line([(x0, mid), (x0 + handle, mid)], item.colour, item.width,
                             item.dash))
            if isinstance(item, Mark) and item.marker:
                ops.append(Op("circle", ((x0 + handle / 2, mid),), item.colour, 1.5))
        ops.append(_text(x0 + handle + gap, mid + fs * 0.35, label, size=fs))
    return ops


def _plotted(chart: Chart) -> list[Op]:
    left, top, w, h = chart.plot_box()
    fx, fy = chart.to_box()
    ops: list[Op] = []
    for s in chart.spans:
        a, b = ((fx(s.lo), top), (fx(s.hi), top + h)) if s.axis == "x" else (
            (left, fy(s.hi)), (left + w, fy(s.lo)))
        ops.append(Op("rect", (a, b), s.colour, opacity=s.opacity))
    for bar in chart.bars:
        ops.append(Op("rect", ((fx(bar.x - bar.width / 2), fy(bar.height)),
                               (fx(bar.x + bar.width / 2), fy(0))), bar.colour))
    for r in chart.rules:
        pts = [(fx(r.at), top), (fx(r.at), top + h)] if r.axis == "x" else [
            (left, fy(r.at)), (left + w, fy(r.at))]
        ops.append(_line(pts, r.colour, r.width, r.dash))
    for m in chart.marks:
        for seg in _segments(m, fx, fy):
            ops.append(_line(thin(seg), m.colour, m.width, m.dash))
            if m.marker:
                ops.extend(Op("circle", (p,), m.colour, 1.5) for p in seg)
    return ops


def layout(chart: Chart) -> list[Op]:
    """Every drawing operation of ``chart``, back to front."""
    left, top, w, h = chart.plot_box()
    fx, fy = chart.to_box()
    ops = [Op("rect", ((0, 0), (chart.width_pt, chart.height_pt)), "#ffffff")]
    ops += [_line([(fx(v), top), (fx(v), top + h)], GRID, 0.6, "") for v, _ in chart.xticks]
    ops += [_line([(left, fy(v)), (left + w, fy(v))], GRID, 0.6, "") for v, _ in chart.yticks]
    ops.append(Op("clip", ((left, top), (left + w, top + h))))
    ops += _plotted(chart)
    ops.append(Op("unclip", ()))
    for bar in chart.bars:
        if bar.text:
            ops.append(_text(fx(bar.x), fy(bar.height) - 2, bar.text, 7.0, "middle"))
    for note in chart.notes:
        ops.append(_text(left + w * note.fx, top + h * (1 - note.fy), note.text,
                         anchor="middle", colour=note.colour))
    return ops + _axes(chart) + _legend(chart)


def texts(chart: Chart) -> list[str]:
    """Every text the chart shows (ticks, axis titles, legend, notes, bar labels)."""
    return [op.text for op in layout(chart) if op.kind == "text"]


__all__ = ["Op", "layout", "texts"]
