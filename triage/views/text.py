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
           "reveal", "reveal_controls", "shown_text", "unexpected_fault"]

FEEDBACK_CHARS = 80
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
    hidden = has_hidden(text)
    return (reveal(text) if hidden else text), hidden


def unexpected_fault(error: BaseException, where: str | Path | None) -> str:
    """One sentence for any failure while reading or writing a project (never a traceback)."""
    explained = explain(error, where)
    if explained is not None:
        return str(explained)
    name = where if where is not None else "the project file"
    detail = feedback_excerpt(f"{type(error).__name__}: {error}", 120)
    return (f"unexpected error ({detail}); the project file may be damaged: run "
            f"`triage check {name}` to find out")
