"""Qt-free state and wording of the annotation desk: keys, timing, pace, the status line.

``ui.desk`` only draws what these functions return, so the rules (which key does what,
how long a label took, what the pace is) are unit-tested without Qt.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from triage.store.settings import LabelOption, Settings
from triage.views.text import HIDDEN_NOTE, bounded_meta

# An annotator who walks away leaves the candidate on screen; counting the whole break as
# time spent on one label would distort per-hour spend and seconds-per-label.
IDLE_CAP_SECONDS = 600.0

SKIP_KEY, UNDO_KEY, NOTE_KEY = "s", "u", "n"


@dataclass(frozen=True)
class KeyAction:
    """What a key does on the desk: ``label`` (with its value), ``skip``, ``undo``, ``note``."""

    kind: str
    value: str | None = None


def key_map(settings: Settings) -> dict[str, KeyAction]:
    """Single-character key -> action. Letter keys match either case."""
    actions = {SKIP_KEY: KeyAction("skip"), UNDO_KEY: KeyAction("undo"),
               NOTE_KEY: KeyAction("note")}
    for option in settings.labels:
        actions[option.key] = KeyAction("label", option.value)
    out: dict[str, KeyAction] = {}
    for key, action in actions.items():
        out[key] = action
        # Caps Lock must not turn the desk deaf, unless the scheme uses both cases itself.
        for variant in (key.lower(), key.upper()):
            out.setdefault(variant, action)
    return out


def action_for(text: str, settings_map: dict[str, KeyAction]) -> KeyAction | None:
    """The action bound to the typed ``text`` (one character), or None."""
    if len(text) != 1:
        return None
    return settings_map.get(text)


def button_caption(option: LabelOption) -> str:
    """Label button text, e.g. ``idiom  [i]``."""
    return f"{option.value}  [{option.key}]"


def spent_seconds(shown_at: float, pressed_at: float, cap: float = IDLE_CAP_SECONDS) -> float:
    """Seconds from showing a candidate to the decision, clamped to [0, cap]."""
    spent = pressed_at - shown_at
    if not math.isfinite(spent) or spent < 0:
        return 0.0
    return min(spent, cap)


@dataclass
class SessionStats:
    """Counts of one desk session. ``history`` holds this session's decisions, newest last."""

    annotator: str
    started_at: float
    labels: int = 0
    skips: int = 0
    history: list[tuple[int, bool]] = field(default_factory=list)  # (label_id, skipped)
    # label_id of a history change -> skipped-ness of the decision it corrects (None: the
    # decision was not this session's). A correction is not a new label (docs/numbers/gain.md).
    corrections: dict[int, bool | None] = field(default_factory=dict)

    def record(self, label_id: int, skipped: bool) -> None:
        """Count one decision of this session (a label, or a skip)."""
        self.history.append((label_id, skipped))
        if skipped:
            self.skips += 1
        else:
            self.labels += 1

    def correct(self, label_id: int, skipped: bool, corrects: int) -> None:
        """Count a change from the history: no new decision.

        Only a label that became a skip (or back) moves between the counts, when the
        decision was this session's.
        """
        was = next((s for i, s in self.history if i == corrects), None)
        self.history.append((label_id, skipped))
        self.corrections[label_id] = was
        if was is not None and was != skipped:
            self._move(was, skipped)

    def _move(self, from_skip: bool, to_skip: bool) -> None:
        self.skips += int(to_skip) - int(from_skip)
        self.labels += int(from_skip) - int(to_skip)

    def undo(self) -> None:
        """Forget the newest decision of this session.

        Undo of an older session's label changes nothing here.
        """
        if not self.history:
            return
        label_id, skipped = self.history.pop()
        if label_id in self.corrections:
            was = self.corrections.pop(label_id)
            if was is not None and was != skipped:
                self._move(skipped, was)
            return
        if skipped:
            self.skips -= 1
        else:
            self.labels -= 1

    @property
    def last_label_id(self) -> int | None:
        """The id of this session's newest decision, or None before the first."""
        return self.history[-1][0] if self.history else None

    def elapsed(self, now: float) -> float:
        """Seconds since the session started (never negative)."""
        return max(0.0, now - self.started_at)

    def pace(self, now: float) -> float | None:
        """Labels (skips excluded) per hour so far.

        None before a minute has passed, when the figure would be noise.
        """
        elapsed = self.elapsed(now)
        if elapsed < 60.0:
            return None
        return self.labels * 3600.0 / elapsed


def format_duration(seconds: float) -> str:
    """``h:mm:ss`` (or ``m:ss`` under an hour)."""
    total = int(max(0.0, seconds))
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def status_text(stats: SessionStats, now: float, *, busy: bool = False,
                offline: bool = False) -> str:
    """The desk's status line (``offline``: the busy store is a team server not answering)."""
    pace = stats.pace(now)
    parts = [
        f"annotator {stats.annotator}",
        f"{stats.labels:,} label{'s' if stats.labels != 1 else ''} this session"
        + (f" ({stats.skips:,} skipped)" if stats.skips else ""),
        "pace —/h" if pace is None else f"pace {pace:,.0f}/h",
        f"time {format_duration(stats.elapsed(now))}",
    ]
    if busy:
        parts.insert(0, "Team server not answering — retrying…" if offline
                     else "Project file busy — retrying…")
    return "  ·  ".join(parts)


def position_text(rank: int, pool: int, decile: int) -> str:
    """Where the candidate stands, e.g. ``rank 12 of 1,000 · decile 1 · 1.2% into the pool``."""
    depth = 100.0 * rank / pool if pool else 0.0
    digits = 1 if depth >= 1 or depth == 0 else 3
    return f"rank {rank:,} of {pool:,}  ·  decile {decile}  ·  {depth:.{digits}f}% into the pool"


def meta_text(meta: dict[str, Any], *, skip: tuple[str, ...] = ()) -> str:
    """Metadata as ``name: value`` lines (plain text; values are shown as they are)."""
    lines = []
    for name, value in meta.items():
        if name in skip:
            continue
        shown = "" if value is None else str(value)
        lines.append(f"{name}: {shown}")
    return "\n".join(lines)


def looks_like_a_number(value: Any) -> bool:
    """A number, or text that reads as one (``7``, ``3.811``, `` -0.2e3``): maybe a score."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int | float):
        return True
    try:
        float(str(value).strip())
    except ValueError:
        return False
    return bool(str(value).strip())


def public_meta(meta: dict[str, Any], public_fields: Sequence[str] | None) -> dict[str, Any]:
    """The fields an annotator may see: those the lead chose, or by default the non-numbers.

    ``public_fields`` is the lead's choice; by default a number is hidden because another
    model's score anchors the blind.
    """
    if public_fields is not None:
        chosen = set(public_fields)
        return {k: v for k, v in meta.items() if k in chosen}
    return {k: v for k, v in meta.items() if not looks_like_a_number(v)}


def desk_meta(meta: dict[str, Any] | None, public_fields: Sequence[str] | None,
              hidden: bool) -> str:
    """The metadata lines under a candidate: public fields, bounded; a note on hidden text."""
    shown = public_meta(meta or {}, public_fields)
    text = bounded_meta(meta_text(shown)) if shown else ""
    return "\n".join(filter(None, (HIDDEN_NOTE, text))) if hidden else text


def score_text(score: float, model: str) -> str:
    """The model's score of the candidate, e.g. ``score 0.8312  (model bert)``."""
    return f"score {score:.4g}  (model {model})"


def log_recovered_text(location: str) -> str:
    """What the desk says once it rewrote a decision whose write-ahead log was deleted."""
    return (f"Another program deleted the write-ahead log of {location} while the desk was "
            "writing to it; the desk reopened the file and saved your last decision again.")
