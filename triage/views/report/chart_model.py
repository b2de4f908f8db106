"""What a report chart shows, as plain data: marks in data units, limits, ticks and texts.

One :class:`Chart` is built from report data (:mod:`.charts`) and drawn twice by small
renderers: SVG text for the HTML page (:mod:`.chart_svg`) and fpdf2's vector drawing for
the PDF (:mod:`.chart_pdf`), so both formats show the same chart. Sizes are in points
(1/72 inch); no plotting library is imported.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

WIDE = (7.2, 3.1)   # inches, as the charts have always been
MARGINS_PT = {"left": 68.4, "right": 10.8, "bottom": 44.6, "top": 8.6}
FONT_PT = 9.0
GRID = "#dddddd"
AXIS = "#333333"
TEXT = "#222222"
MUTED_TEXT = "#666666"


@dataclass
class Mark:
    """A line through points (``step``: horizontal then vertical, as a step plot 'post')."""

    xs: Sequence[float]
    ys: Sequence[float]
    colour: str
    width: float = 1.5
    dash: str = ""          # "", "dash" or "dot"
    step: bool = False
    marker: bool = False    # a small filled circle at each point
    label: str | None = None


@dataclass
class Span:
    """A shaded band across the plot: ``axis`` 'y' is horizontal (lo..hi in y), 'x' vertical."""

    axis: str
    lo: float
    hi: float
    colour: str
    opacity: float = 1.0
    label: str | None = None


@dataclass
class Rule:
    """A straight line across the plot: ``axis`` 'y' is horizontal at y = ``at``."""

    axis: str
    at: float
    colour: str
    width: float = 1.0
    dash: str = ""
    label: str | None = None


@dataclass
class Bar:
    """A bar from 0 to ``height`` centred on ``x``, with a text above it."""

    x: float
    height: float
    width: float
    colour: str
    text: str = ""


@dataclass
class Note:
    """A text centred at a fraction of the plot (0..1 across, 0..1 up)."""

    text: str
    fx: float
    fy: float
    colour: str = MUTED_TEXT


@dataclass
class Chart:
    """One chart: size, limits, ticks, axis titles, what is drawn and the legend."""

    xlim: tuple[float, float]
    ylim: tuple[float, float]
    xticks: list[tuple[float, str]]
    yticks: list[tuple[float, str]]
    xlabel: str
    ylabel: str
    size: tuple[float, float] = WIDE
    spans: list[Span] = field(default_factory=list)
    bars: list[Bar] = field(default_factory=list)
    rules: list[Rule] = field(default_factory=list)
    marks: list[Mark] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    legend: str | None = None       # a corner ("upper left" …), "best" or None
    legend_font: float = 8.0

    @property
    def width_pt(self) -> float:
        """The chart's width in points."""
        return self.size[0] * 72

    @property
    def height_pt(self) -> float:
        """The chart's height in points."""
        return self.size[1] * 72

    def plot_box(self) -> tuple[float, float, float, float]:
        """The plot area in points from the chart's top left: (left, top, width, height)."""
        m = MARGINS_PT
        return (m["left"], m["top"], self.width_pt - m["left"] - m["right"],
                self.height_pt - m["top"] - m["bottom"])

    def to_box(self) -> tuple[Callable[[float], float], Callable[[float], float]]:
        """Functions from data x and y to points in the chart (y grows downwards)."""
        left, top, w, h = self.plot_box()
        x0, x1 = self.xlim
        y0, y1 = self.ylim
        sx = w / (x1 - x0) if x1 != x0 else 0.0
        sy = h / (y1 - y0) if y1 != y0 else 0.0
        return (lambda x: left + (x - x0) * sx), (lambda y: top + h - (y - y0) * sy)

    def legend_entries(self) -> list[tuple[str, Mark | Rule | Span]]:
        """(label, what it labels): the lines first, then the rules and the shaded bands."""
        items: list[Mark | Rule | Span] = [*self.marks, *self.rules, *self.spans]
        return [(i.label, i) for i in items if i.label]


def step_points(xs: Sequence[float], ys: Sequence[float]) -> list[tuple[float, float]]:
    """The corners of a step plot ('post'): each y holds until the next x."""
    out: list[tuple[float, float]] = []
    for i, (x, y) in enumerate(zip(xs, ys)):
        if i:
            out.append((x, out[-1][1]))
        out.append((x, y))
    return out


def auto_limits(values: Sequence[float], margin: float = 0.05) -> tuple[float, float]:
    """Data limits widened by ``margin`` of the range on each side (as plots autoscale)."""
    finite = [v for v in values if v is not None and math.isfinite(v)]
    if not finite:
        return (0.0, 1.0)
    lo, hi = min(finite), max(finite)
    if hi == lo:
        pad = abs(lo) * 0.05 or 0.5
        return (lo - pad, hi + pad)
    pad = (hi - lo) * margin
    return (lo - pad, hi + pad)


def _nice_step(span: float, most: int) -> float:
    raw = span / max(most, 1)
    mag = 10 ** math.floor(math.log10(raw))
    for k in (1, 2, 2.5, 5, 10):
        if k * mag >= raw * (1 - 1e-9):
            return k * mag
    return 10 * mag


def linear_ticks(lo: float, hi: float, most: int = 6) -> list[tuple[float, str]]:
    """Round ticks within [lo, hi] (at most about ``most`` + 1) with their labels."""
    if not (math.isfinite(lo) and math.isfinite(hi)) or hi <= lo:
        return []
    step = _nice_step(hi - lo, most)
    digits = next(d for d in range(10) if abs(round(step, d) - step) <= step * 1e-9)
    first = math.ceil(lo / step - 1e-9)
    ticks = []
    k = first
    while k * step <= hi + step * 1e-9:
        v = k * step
        ticks.append((v, f"{0.0 if abs(v) < step * 1e-9 else v:,.{digits}f}"))
        k += 1
    return ticks


_TIME_STEPS = (1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10_800,
               21_600, 43_200, 86_400, 2 * 86_400, 7 * 86_400, 14 * 86_400, 30 * 86_400,
               61 * 86_400, 91 * 86_400, 182 * 86_400, 365 * 86_400)


def time_format(span_seconds: float) -> str:
    """The strftime format of a time axis spanning ``span_seconds``."""
    return ("%H:%M:%S" if span_seconds < 600 else "%H:%M" if span_seconds < 86_400
            else "%d %b %H:%M" if span_seconds < 7 * 86_400 else "%d %b %Y")


def time_ticks(lo: float, hi: float, tz: dt.tzinfo | None,
               most: int = 7) -> list[tuple[float, str]]:
    """Ticks at round times (epoch seconds in [lo, hi], shown in ``tz``), 3 to ``most``."""
    if hi <= lo:
        return []
    zone = tz or dt.UTC
    offset = (dt.datetime.fromtimestamp(lo, zone).utcoffset() or dt.timedelta()).total_seconds()
    fmt = time_format(hi - lo)
    for step in _TIME_STEPS:
        if (hi - lo) / step <= most - 1:
            break
    first = math.ceil((lo + offset) / step) * step - offset
    ticks = []
    t = first
    while t <= hi + 1e-6:
        ticks.append((t, dt.datetime.fromtimestamp(t, zone).strftime(fmt)))
        t += step
    return ticks


__all__ = ["Bar", "Chart", "Mark", "Note", "Rule", "Span", "auto_limits", "linear_ticks",
           "step_points", "time_format", "time_ticks"]
