"""Showing untrusted text: hidden characters made visible, and bounded excerpts.

The desk, the history and the report show candidate texts through these functions, so a
right-to-left override or a zero-width space is seen as a marker (``⟨U+202E⟩``), and a
1 MB line never becomes a 1 MB label under the buttons.
"""

from __future__ import annotations

from pathlib import Path

from triage.base.hidden import has_hidden, marker, reveal, reveal_controls
from triage.store.faults import explain

__all__ = ["FEEDBACK_CHARS", "HIDDEN_NOTE", "feedback_excerpt", "has_hidden", "marker",
           "reveal", "reveal_controls", "shown_text", "text_chunks", "chunk_end", "unexpected_fault",
           "bounded_meta"]

FEEDBACK_CHARS = 80
CHUNK_CHARS = 16_000     # a few screens of text at the desk's size: shown at once
CHUNK_LINES = 400
HIDDEN_NOTE = ("This text contains hidden characters (direction controls, zero-width or "
               "control characters); each is shown as ⟨U+…⟩.")


def feedback_excerpt(text: str, limit: int = FEEDBACK_CHARS) -> str:
    """At most ``limit`` characters on one line: whitespace runs collapsed, hidden ones shown."""
    head = text[: limit * 4 + 16]  # never look at more than a screenful of a huge text
    one_line = " ".join(reveal(head).split())
    if len(one_line) > limit:
        return one_line[: limit - 1].rstrip() + "…"
    return one_line + ("…" if len(head) < len(text) else "")


def shown_text(text: str) -> tuple[str, bool]:
    """(the text to display, whether it held hidden characters) for a candidate view."""
    return reveal(text), has_hidden(text)


def unexpected_fault(error: BaseException, where: str | Path | None) -> str:
    """One sentence for any failure while reading or writing a project (never a traceback)."""
    explained = explain(error, where)
    if explained is not None:
        return str(explained)
    name = where if where is not None else "the project file"
    detail = feedback_excerpt(f"{type(error).__name__}: {error}", 120)
    return (f"unexpected error ({detail}); the project file may be damaged: run "
            f"`triage check {name}` to find out")


def chunk_end(text: str, start: int, chars: int = CHUNK_CHARS, lines: int = CHUNK_LINES) -> int:
    """Where the display chunk of ``text`` beginning at ``start`` ends (exclusive).

    At most ``chars`` characters and ``lines`` lines; a cut inside a line falls after a
    space when there is one near the limit, so a word is not split across chunks.
    """
    n = len(text)
    end = min(n, start + chars)
    nl = start
    for _ in range(lines):  # the end of the first ``lines`` lines, if sooner
        nl = text.find("\n", nl, end)
        if nl < 0:
            break
        nl += 1
    else:
        end = nl
    if end < n and text[end - 1] != "\n":
        space = text.rfind(" ", max(start + 1, end - 200), end)
        end = space + 1 if space > start else end
    return end


def text_chunks(text: str, chars: int = CHUNK_CHARS, lines: int = CHUNK_LINES) -> list[str]:
    """``text`` cut into display chunks (see :func:`chunk_end`); joined, they are the text."""
    out: list[str] = []
    start = 0
    while start < len(text):
        end = chunk_end(text, start, chars, lines)
        out.append(text[start:end])
        start = end
    return out


def bounded_meta(lines: str, *, max_lines: int = 8, width: int = 160) -> str:
    """Metadata lines as the desk shows them: few, short, single lines, hidden ones visible."""
    rows = lines.split("\n")
    shown = [feedback_excerpt(r, width) for r in rows[:max_lines]]
    if len(rows) > max_lines:
        shown.append(f"… and {len(rows) - max_lines} more")
    return "\n".join(shown)
