"""Tables for the PDF report: word-wrapped cells, bordered, headings repeated on each page.

fpdf2's own ``table()`` lays every cell out twice through its general line breaker, which
measures growing fragments character by character: most of a PDF report's time at a few
hundred rows. This draws the same kind of table with a greedy word wrap that measures each
distinct word once (a word wider than its column is broken between characters).
"""

from __future__ import annotations

from typing import Any

PADDING = 0.8                    # mm inside each cell
HEADING_FILL = (230, 235, 241)
BORDER = 0.2                     # mm


class _Measure:
    """String widths in the current font, each distinct word measured once."""

    def __init__(self, pdf: Any) -> None:
        self.pdf = pdf
        self.cache: dict[tuple[str, str], float] = {}

    def width(self, text: str, style: str) -> float:
        """Width of ``text`` (mm) in the font and size in force, set in ``style``."""
        key = (style, text)
        found = self.cache.get(key)
        if found is None:
            found = self.cache[key] = self.pdf.get_string_width(text)
        return found


def _split_word(word: str, room: float, measure: _Measure, style: str) -> list[str]:
    """A word too wide for its column, cut between characters into pieces that fit."""
    pieces, piece = [], ""
    for ch in word:
        if piece and measure.width(piece + ch, style) > room:
            pieces.append(piece)
            piece = ""
        piece += ch
    return [*pieces, piece] if piece else pieces


def wrap(text: str, room: float, measure: _Measure, style: str) -> list[str]:
    """``text`` as lines no wider than ``room`` (mm); line breaks in it are kept."""
    space = measure.width(" ", style)
    out: list[str] = []
    for paragraph in text.split("\n"):
        line, used = "", 0.0
        for word in paragraph.split(" "):
            w = measure.width(word, style)
            parts = [word] if w <= room else _split_word(word, room, measure, style)
            for part in parts:
                pw = w if len(parts) == 1 else measure.width(part, style)
                if line and used + space + pw > room:
                    out.append(line)
                    line, used = "", 0.0
                line, used = (f"{line} {part}", used + space + pw) if line else (part, pw)
        out.append(line)
    return out


def _row(pdf: Any, cells: list[list[str]], xs: list[float], widths: list[float],
         line_height: float, fill: bool) -> None:
    """One row at the current y: borders, optional fill, then the lines of each cell."""
    top = pdf.get_y()
    height = max(len(lines) for lines in cells) * line_height + 2 * PADDING
    font_mm = pdf.font_size
    for x, w, lines in zip(xs, widths, cells, strict=True):
        pdf.rect(x, top, w, height, style="DF" if fill else "D")
        for i, line in enumerate(lines):
            if line:
                baseline = top + PADDING + i * line_height + (line_height + 0.7 * font_mm) / 2
                pdf.text(x + PADDING, baseline, line)
    pdf.set_y(top + height)


def fast_table(pdf: Any, rows: list[list[Any]], widths: tuple[int, ...] | None = None,
               size: float = 7.5, headings: bool = True) -> None:
    """Draw ``rows`` (the first the headings when ``headings``) across the page width.

    ``widths``: relative column widths (equal when None), as fpdf2's ``col_widths``."""
    ncols = max(len(r) for r in rows)
    weights = widths or (1,) * ncols
    total = float(sum(weights))
    col = [pdf.epw * w / total for w in weights]
    xs = [pdf.l_margin + sum(col[:i]) for i in range(ncols)]
    line_height = size * 0.5
    measure = _Measure(pdf)
    pdf.set_line_width(BORDER)
    pdf.set_fill_color(*HEADING_FILL)

    def cells(row: list[Any], style: str) -> list[list[str]]:
        pdf.set_font("DejaVu", style, size)
        return [wrap("" if v is None else str(v), w - 2 * PADDING, measure, style)
                for v, w in zip(row, col, strict=True)]

    head = cells(rows[0], "B") if headings else None

    def draw_head() -> None:
        if head is not None:
            pdf.set_font("DejaVu", "B", size)
            _row(pdf, head, xs, col, line_height, fill=True)

    draw_head()
    for row in rows[1 if headings else 0:]:
        body = cells(row, "")
        height = max(len(lines) for lines in body) * line_height + 2 * PADDING
        if pdf.get_y() + height > pdf.page_break_trigger:
            pdf.add_page()
            draw_head()
            pdf.set_font("DejaVu", "", size)
        _row(pdf, body, xs, col, line_height, fill=False)
