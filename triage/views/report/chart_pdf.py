"""A report chart drawn into the PDF as vector graphics with fpdf2's own drawing calls.

The operations of :func:`~.chart_layout.layout` (points from the chart's top left) are
scaled to the given width in millimetres; texts are set in the document's DejaVu Sans.
"""

from __future__ import annotations

from typing import Any

from triage.views.report.chart_layout import Op, layout
from triage.views.report.chart_model import Chart
from triage.views.text import reveal

PT_MM = 25.4 / 72


def _rgb(colour: str) -> tuple[int, int, int]:
    c = colour.lstrip("#")
    return int(c[0:2], 16), int(c[2:4], 16), int(c[4:6], 16)


def _text(pdf: Any, op: Op, x: float, y: float, scale: float) -> None:
    pdf.set_font("DejaVu", "", op.size * scale / PT_MM)
    pdf.set_text_color(*_rgb(op.colour))
    text = reveal(op.text)
    width = pdf.get_string_width(text)
    shift = {"start": 0.0, "middle": width / 2, "end": width}[op.anchor]
    if op.rotate:
        with pdf.rotation(op.rotate, x, y):
            pdf.text(x - shift, y, text)
    else:
        pdf.text(x - shift, y, text)


def _shape(pdf: Any, op: Op, at: Any, scale: float) -> None:
    if op.kind == "rect":
        (x0, y0), (x1, y1) = (at(p) for p in op.points)
        pdf.set_fill_color(*_rgb(op.colour))
        if op.opacity < 1:
            with pdf.local_context(fill_opacity=op.opacity):
                pdf.rect(min(x0, x1), min(y0, y1), abs(x1 - x0), abs(y1 - y0), style="F")
        else:
            pdf.rect(min(x0, x1), min(y0, y1), abs(x1 - x0), abs(y1 - y0), style="F")
    elif op.kind == "line":
        pdf.set_draw_color(*_rgb(op.colour))
        pdf.set_line_width(op.width * scale)
        if op.dash:
            pdf.set_dash_pattern(op.dash[0] * scale, op.dash[1] * scale)
        pdf.polyline([at(p) for p in op.points], style="D")
        if op.dash:
            pdf.set_dash_pattern()
    elif op.kind == "circle":
        x, y = at(op.points[0])
        pdf.set_fill_color(*_rgb(op.colour))
        pdf.circle(x, y, op.width * scale, style="F")


def draw_chart(pdf: Any, chart: Chart, x: float, y: float, width: float) -> float:
    """Draw ``chart`` with its top left at (``x``, ``y``) mm, ``width`` mm wide; its height."""
    scale = width / chart.width_pt        # millimetres per chart point

    def at(p: tuple[float, float]) -> tuple[float, float]:
        return x + p[0] * scale, y + p[1] * scale

    clip: Any = None
    for op in layout(chart):
        if op.kind == "clip":
            (x0, y0), (x1, y1) = (at(p) for p in op.points)
            clip = pdf.rect_clip(x0, y0, x1 - x0, y1 - y0)
            clip.__enter__()
        elif op.kind == "unclip" and clip is not None:
            clip.__exit__(None, None, None)
            clip = None
        elif op.kind == "text":
            px, py = at(op.points[0])
            _text(pdf, op, px, py, scale)
        else:
            _shape(pdf, op, at, scale)
    pdf.set_text_color(0, 0, 0)
    pdf.set_draw_color(0, 0, 0)
    return chart.height_pt * scale


__all__ = ["draw_chart"]
