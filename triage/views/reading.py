"""Qt-free pieces of reading at the desk: keyword highlights, the history list, the
shortcut sheet and the guidelines caption. ``ui/`` draws what these return."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from triage.store.settings import Settings
from triage.views.desk import NOTE_KEY, SKIP_KEY, UNDO_KEY
from triage.views.text import feedback_excerpt


def parse_words(text: str) -> tuple[str, ...]:
    """Highlight words from the lead's field: one per line or comma-separated, no repeats."""
    seen: dict[str, str] = {}
    for part in re.split(r"[,\n]", text):
        word = part.strip()
        if word and word.casefold() not in seen:
            seen[word.casefold()] = word
    return tuple(seen.values())


def highlight_spans(text: str, words: Iterable[str]) -> list[tuple[int, int]]:
    """(start, length) of every whole-word, case-insensitive occurrence of ``words``.

    Words are matched literally (no pattern syntax); overlapping matches keep the longest.
    """
    chosen = sorted({w.strip() for w in words if w.strip()}, key=len, reverse=True)
    if not chosen or not text:
        return []
    pattern = re.compile(r"(?<!\w)(?:" + "|".join(re.escape(w) for w in chosen) + r")(?!\w)",
                         re.IGNORECASE)
    return [(m.start(), m.end() - m.start()) for m in pattern.finditer(text)]


@dataclass(frozen=True)
class HistoryRow:
    """One line of the desk's history list."""

    label_id: int
    when: str        # "14:02", local time (the column heading says so)
    key: str
    value: str       # the label, or "skipped"
    text: str        # the candidate, on one line


def history_rows(decisions: Sequence) -> list[HistoryRow]:
    """The history list from ``triage.project.history.recent_decisions`` (newest first)."""
    out = []
    for d in decisions:
        when = local_clock(d.created_at)
        # Only the start of the text is looked at: splitting a 100,000-line candidate into
        # words for each of 50 rows cost the desk hundreds of megabytes.
        out.append(HistoryRow(d.label_id, when, d.key, d.value or "skipped",
                              feedback_excerpt(d.text, 200)))
    return out


HISTORY_TIME_HEADING = "Time (local)"


def local_clock(stamp: str) -> str:
    """"HH:MM" in this computer's local time for a stored (UTC, ISO 8601) event time.

    Times are for display only (the order of decisions is the log's); a stamp that does
    not parse is shown as stored rather than hidden.
    """
    try:
        when = dt.datetime.fromisoformat(stamp)
    except (TypeError, ValueError):
        return str(stamp)
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.UTC)
    return when.astimezone().strftime("%H:%M")


def desk_shortcuts(settings: Settings) -> list[tuple[str, str]]:
    """(key, what it does) for the desk's single keys under this project's scheme."""
    rows = [(o.key, f"label the candidate {o.value!r}") for o in settings.labels]
    rows += [(SKIP_KEY, "skip (seen and paid for, no label)"),
             (UNDO_KEY, "undo your last decision (also Ctrl+Z)"),
             (NOTE_KEY, "write a note on your last label")]
    return rows


def shortcut_sheet(sections: Sequence[tuple[str, Sequence[tuple[str, str]]]]) -> str:
    """Plain-text sheet: a heading per section, then ``key<TAB>description`` lines.

    The screen sets one tab stop past the widest key: aligned in any font, whatever the
    keys' characters; a padding of spaces was not, in a font without every key's glyph.
    """
    lines: list[str] = []
    for title, rows in sections:
        if not rows:
            continue
        lines.append(title)
        lines += [f"  {k}\t{what}" for k, what in rows]
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def guidelines_caption(version: int, author: str | None, saved_at: str | None) -> str:
    """``Guidelines v3 · by lee · 2024-05-01 14:02`` (or that none were written yet)."""
    if version == 0:
        return "No guidelines yet: the lead writes them in the lead window."
    parts = [f"Guidelines v{version}"]
    if author:
        parts.append(f"by {author}")
    if saved_at:
        parts.append(saved_at[:16].replace("T", " "))
    return " · ".join(parts)
