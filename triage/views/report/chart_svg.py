"""A report chart as an inline ``<svg>`` element, from its laid-out drawing operations.

Texts are SVG ``<text>`` elements, escaped (and hidden characters made visible, as on the
rest of the page); sizes are in points through the viewBox, so CSS sets the width.
"""

from __future__ import annotations

import hashlib
from xml.sax.saxutils import escape

from triage.views.report.chart_layout import Op, layout
from triage.views.report.chart_model import Chart
from triage.views.text import reveal

FONTS = "DejaVu Sans, Verdana, Helvetica, Arial, sans-serif"


def _n(v: float) -> str:
    return f"{v:.1f}".removesuffix(".0")


def _attr(text: str) -> str:
    return escape(reveal(text), {'"': "&quot;"})


def _element(op: Op, clip: str) -> str:
    if op.kind == "rect":
        (x0, y0), (x1, y1) = op.points
        fill_opacity = "" if op.opacity >= 1 else f' fill-opacity="{op.opacity:g}"'
        return (f'<rect x="{_n(min(x0, x1))}" y="{_n(min(y0, y1))}" width="{_n(abs(x1 - x0))}" '
                f'height="{_n(abs(y1 - y0))}" fill="{op.colour}"{fill_opacity}/>')
    if op.kind == "line":
        pts = " ".join(f"{_n(x)},{_n(y)}" for x, y in op.points)
        dash = f' stroke-dasharray="{",".join(_n(d) for d in op.dash)}"' if op.dash else ""
        return (f'<polyline points="{pts}" fill="none" stroke="{op.colour}" '
                f'stroke-width="{op.width:g}"{dash}/>')
    if op.kind == "circle":
        (x, y), = op.points
        return f'<circle cx="{_n(x)}" cy="{_n(y)}" r="{op.width:g}" fill="{op.colour}"/>'
    if op.kind == "text":
        (x, y), = op.points
        turn = f' transform="rotate(-90 {_n(x)} {_n(y)})"' if op.rotate else ""
        anchor = "" if op.anchor == "start" else f' text-anchor="{op.anchor}"'
        return (f'<text x="{_n(x)}" y="{_n(y)}" font-size="{op.size:g}" fill="{op.colour}"'
                f'{anchor}{turn}>{_attr(op.text)}</text>')
    if op.kind == "clip":
        return f'<g clip-path="url(#{clip})">'
    return "</g>"


def to_svg(chart: Chart) -> str:
    """The chart as one ``<svg class="chart">`` element, scalable by its viewBox."""
    ops = layout(chart)
    key = f"{chart.xlabel}|{chart.ylabel}|{chart.size}".encode()
    clip = "clip-" + hashlib.blake2s(key, digest_size=5).hexdigest()
    (x0, y0), (x1, y1) = next(op.points for op in ops if op.kind == "clip")
    w, h = chart.width_pt, chart.height_pt
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 {_n(w)} {_n(h)}" '
            f'font-family="{FONTS}" role="img">'
            f'<defs><clipPath id="{clip}"><rect x="{_n(x0)}" y="{_n(y0)}" width="{_n(x1 - x0)}" '
            f'height="{_n(y1 - y0)}"/></clipPath></defs>')
    return head + "\n".join(_element(op, clip) for op in ops) + "</svg>"


__all__ = ["to_svg"]
