"""Project settings: the label scheme, money, and the knobs of the queue.

Stored as one JSON value per key in the ``settings`` table, so a newer Triage can add
keys without a migration and an older file simply gets the defaults.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any

from triage.base.errors import TriageError

PRICE_MODELS = ("per_item", "per_hour")
QUEUE_MODES = ("follow", "bandit", "pets")


@dataclass(frozen=True)
class LabelOption:
    """One class of the label scheme and the key that records it on the desk."""

    value: str
    key: str


def default_scheme() -> tuple[LabelOption, ...]:
    """The label scheme of a new project: positive (key 1) and negative (key 2)."""
    return (LabelOption("positive", "1"), LabelOption("negative", "2"))


@dataclass(frozen=True)
class Settings:
    """Everything a lead can set for a project. Money is in ``currency`` units."""

    labels: tuple[LabelOption, ...] = field(default_factory=default_scheme)
    positive_labels: tuple[str, ...] = ("positive",)
    price_model: str = "per_item"
    price_per_item: float = 0.04
    default_hourly_rate: float = 0.0
    budget: float | None = None
    currency: str = "USD"
    value_per_positive: float | None = None
    active_model: str | None = None
    show_score: bool = False
    overlap_rate: float = 0.10
    labels_per_overlap_item: int = 2
    retest_rate: float = 0.0
    audit_rate: float = 0.02
    target_recall: float = 0.80
    confidence: float = 0.95
    queue_mode: str = "follow"
    learn: bool = False     # learn the cal ranking from the labels (an arm; or active model "cal")
    seed: int = 20181
    highlight_words: tuple[str, ...] = ()   # shown highlighted on the desk (whole words)
    # The unmapped columns annotators see under the text; None: every one that is not a
    # number (another model's score would anchor a blind annotator).
    public_fields: tuple[str, ...] | None = None

    def validate(self) -> Settings:
        """Raise TriageError naming the first setting that makes no sense; else return self."""
        values = [o.value for o in self.labels]
        keys = [o.key for o in self.labels]
        if not values:
            raise TriageError("the label scheme needs at least one label")
        if any(not v.strip() for v in values):
            raise TriageError("label names must not be empty")
        if len(set(values)) != len(values):
            raise TriageError("label names must be unique")
        if len(set(keys)) != len(keys) or any(len(k) != 1 for k in keys):
            raise TriageError("each label needs its own single-character key")
        reserved = set(keys) & {"s", "u", "n", "S", "U", "N"}
        if reserved:
            raise TriageError(f"keys {sorted(reserved)} are reserved for skip, undo and note")
        unknown = set(self.positive_labels) - set(values)
        if unknown:
            raise TriageError(f"positive label(s) {sorted(unknown)} are not in the label scheme")
        if self.price_model not in PRICE_MODELS:
            raise TriageError(f"price model must be one of {', '.join(PRICE_MODELS)}")
        if self.queue_mode not in QUEUE_MODES:
            raise TriageError(f"queue mode must be one of {', '.join(QUEUE_MODES)}")
        for name in ("price_per_item", "default_hourly_rate"):
            if getattr(self, name) < 0:
                raise TriageError(f"{name.replace('_', ' ')} must not be negative")
        if self.budget is not None and self.budget < 0:
            raise TriageError("budget must not be negative")
        if self.value_per_positive is not None and self.value_per_positive < 0:
            raise TriageError("value per positive must not be negative")
        for name in ("overlap_rate", "retest_rate", "audit_rate"):
            if not 0.0 <= getattr(self, name) <= 0.5:
                raise TriageError(f"{name.replace('_', ' ')} must be between 0 and 0.5")
        if not 2 <= self.labels_per_overlap_item <= 20:
            raise TriageError("labels per overlap item must be between 2 and 20")
        if not 0.0 < self.target_recall <= 1.0:
            raise TriageError("target recall must be in (0, 1]")
        if not 0.5 <= self.confidence < 1.0:
            raise TriageError("confidence must be in [0.5, 1)")
        if len(self.highlight_words) > 500 or any(
                not w.strip() or len(w) > 100 for w in self.highlight_words):
            raise TriageError("highlight words must be non-empty, at most 100 characters "
                              "each and 500 in all")
        return self

    def is_positive(self, value: str | None) -> bool:
        """True when ``value`` is one of the labels that count as a positive."""
        return value is not None and value in self.positive_labels

    def with_changes(self, **changes: Any) -> Settings:
        """A validated copy with ``changes`` applied (labels may be given as dicts)."""
        if "labels" in changes:
            changes["labels"] = tuple(_as_option(o) for o in changes["labels"])
        if "positive_labels" in changes:
            changes["positive_labels"] = tuple(changes["positive_labels"])
        if "highlight_words" in changes:
            changes["highlight_words"] = tuple(changes["highlight_words"])
        if changes.get("public_fields") is not None:
            changes["public_fields"] = tuple(str(f) for f in changes["public_fields"])
        return replace(self, **changes).validate()

    def to_rows(self) -> list[tuple[str, str]]:
        """(key, JSON) rows for the settings table."""
        data = asdict(self)
        return [(k, json.dumps(v)) for k, v in data.items()]

    @classmethod
    def from_rows(cls, rows: list[tuple[str, str]]) -> Settings:
        """Build from stored rows; unknown keys (from a newer Triage) are ignored."""
        known = {f.name for f in fields(cls)}
        data = {k: json.loads(v) for k, v in rows if k in known}
        if "labels" in data:
            data["labels"] = tuple(_as_option(o) for o in data["labels"])
        if "positive_labels" in data:
            data["positive_labels"] = tuple(data["positive_labels"])
        if "highlight_words" in data:
            data["highlight_words"] = tuple(str(w) for w in data["highlight_words"])
        if data.get("public_fields") is not None:
            data["public_fields"] = tuple(str(f) for f in data["public_fields"])
        return cls(**data)


def _as_option(option: Any) -> LabelOption:
    if isinstance(option, LabelOption):
        return option
    if isinstance(option, dict):
        return LabelOption(str(option["value"]), str(option["key"]))
    value, key = option
    return LabelOption(str(value), str(key))


def scheme_from_text(text: str) -> tuple[LabelOption, ...]:
    """Parse ``idiom,literal`` or ``idiom:i,literal:l`` into options; keys default to 1..9."""
    options = []
    for n, part in enumerate(p.strip() for p in text.split(",") if p.strip()):
        value, sep, key = part.partition(":")
        options.append(LabelOption(value.strip(), key.strip() if sep else str(n + 1)))
    return tuple(options)
