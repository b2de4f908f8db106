"""Chart text a user can read: at least 9 pt on screen, inside the figure, never over other
text, and axes that have ticks. ``readable`` enforces the size on every draw;
``chart_text_problems`` checks the rest from the renderer's extents (the real-window tests,
the screenshots)."""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from matplotlib.text import Text
    from matplotlib.transforms import Bbox

DPI = 100  # figure dots per logical inch; the device pixel ratio multiplies it
SCREEN_DPI = 96.0  # a logical inch on screen, in Qt's points
MIN_SCREEN_PT = 9.0  # no chart text smaller than this on screen
MIN_FIG_PT = MIN_SCREEN_PT * SCREEN_DPI / DPI  # the same, in the figure's points


def wrap_to(text: str, width_pt: float, size: float) -> str:
    """``text`` broken into lines that fit ``width_pt`` at font ``size`` (an estimate: an
    average glyph is 0.6 of the font size wide)."""
    return textwrap.fill(text, max(16, int(width_pt / (0.6 * size))), break_long_words=False)


def fitting(options: tuple[str, ...], length_pt: float, size: float) -> str:
    """The first of ``options`` (longest first) whose estimated width fits ``length_pt``."""
    for text in options:
        if len(text) * 0.6 * size <= length_pt:
            return text
    return options[-1]


def _axes(figure) -> list:
    """Every visible axes of the figure, secondary axes included (no deep traversal: that
    would make every axis compute its ticks)."""
    found, todo = [], list(figure.axes)
    while todo:
        axes = todo.pop(0)
        if axes.get_visible():
            found.append(axes)
            todo += list(getattr(axes, "child_axes", []))
    return found


def _texts(figure, with_ticks: bool = True) -> list:
    """Every visible, non-empty text of the figure: titles, axis labels, texts, legends,
    and (``with_ticks``) the tick labels of the ticks in view."""
    from matplotlib.text import Text

    candidates = list(figure.texts)
    for legend in [*figure.legends, *(a.get_legend() for a in _axes(figure))]:
        if legend is not None and legend.get_visible():
            candidates += legend.get_texts()
    for axes in _axes(figure):
        candidates += [c for c in axes.get_children() if isinstance(c, Text)]
        for axis in (axes.xaxis, axes.yaxis):
            if axis.get_visible() and axes.axison:
                candidates += [axis.label, axis.get_offset_text()]
                if with_ticks:
                    candidates += _in_view(axis)
    seen: set[int] = set()
    found = []
    for t in candidates:
        if id(t) in seen:
            continue
        seen.add(id(t))
        if t.get_visible() and t.get_text().strip():
            found.append(t)
    return found


def _in_view(axis) -> list:
    """The labels of the major ticks inside the axis's view (only those are drawn)."""
    axis.get_majorticklabels()   # brings the ticks up to date
    lo, hi = sorted(axis.get_view_interval())
    slack = (hi - lo) * 1e-6
    return [label for tick in axis.get_major_ticks() if lo - slack <= tick.get_loc() <= hi + slack
            for label in (tick.label1, tick.label2) if label.get_visible()]


def readable(figure) -> None:
    """No text under MIN_FIG_PT (9 pt on screen), whatever a panel asked for."""
    for axes in _axes(figure):
        for axis in (axes.xaxis, axes.yaxis):
            for tick in axis.majorTicks[:1]:
                if tick.label1.get_fontsize() < MIN_FIG_PT:
                    axis.set_tick_params(labelsize=MIN_FIG_PT)
    for text in _texts(figure, with_ticks=False):   # the tick labels: set_tick_params above
        if text.get_fontsize() < MIN_FIG_PT:
            text.set_fontsize(MIN_FIG_PT)


def chart_text_problems(figure, name: str, renderer=None) -> list[str]:
    """Text under 9 pt on screen, off the figure, or over other text; axes without ticks.

    Uses the extents of the last draw (matplotlib's renderer), in figure pixels."""
    from matplotlib.ticker import FixedLocator

    renderer = renderer or figure.canvas.get_renderer()
    box = figure.bbox
    found = []
    placed: list[tuple[Text, Bbox]] = []
    for text in _texts(figure):
        label = f"{name}: {text.get_text()!r}"
        ext = text.get_window_extent(renderer)
        if ext.width <= 0 or ext.height <= 0:
            continue
        if text.get_fontsize() * DPI / SCREEN_DPI < MIN_SCREEN_PT - 0.05:
            found.append(f"{label} is {text.get_fontsize() * DPI / SCREEN_DPI:.1f} pt")
        if (ext.x0 < box.x0 - 1 or ext.y0 < box.y0 - 1 or ext.x1 > box.x1 + 1
                or ext.y1 > box.y1 + 1):
            found.append(f"{label} runs off the figure")
        for other, other_ext in placed:
            if ext.overlaps(other_ext) and _clash(ext, other_ext):
                found.append(f"{label} overlaps {other.get_text()!r}")
        placed.append((text, ext))
    for axes in _axes(figure):
        if not axes.axison:
            continue
        for axis, side, least in ((axes.xaxis, "bottom", 2), (axes.yaxis, "left", 1)):
            spine = axes.spines.get(side)
            if not (axis.get_visible() and spine is not None and spine.get_visible()):
                continue
            if isinstance(axis.get_major_locator(), FixedLocator):
                least = 1   # categories (one session, one annotator): one tick is right
            if len([t for t in _in_view(axis) if t.get_text().strip()]) < least:
                title = axis.get_label_text() or axes.get_title(loc="left") or side
                found.append(f"{name}: the axis {title!r} has fewer than {least} ticks")
    return found


def _clash(a, b) -> bool:
    """Overlap by more than two pixels each way (boxes touching at a corner are fine: the
    boxes are the text's full line height, the glyphs are smaller)."""
    return (min(a.x1, b.x1) - max(a.x0, b.x0) > 2.0
            and min(a.y1, b.y1) - max(a.y0, b.y0) > 2.0)
