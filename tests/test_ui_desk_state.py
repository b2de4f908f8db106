"""The desk's Qt-free rules: keys, time per label, pace, and the wording on screen."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from triage.store.settings import LabelOption, Settings
from triage.views.desk import (
    IDLE_CAP_SECONDS,
    KeyAction,
    SessionStats,
    action_for,
    button_caption,
    format_duration,
    key_map,
    meta_text,
    position_text,
    spent_seconds,
    status_text,
)

IDIOMS = Settings().with_changes(labels=(LabelOption("idiom", "i"), LabelOption("literal", "l")),
                                 positive_labels=("idiom",))


def test_key_map_binds_scheme_keys_and_the_fixed_ones_in_either_case():
    keys = key_map(IDIOMS)
    assert keys["i"] == KeyAction("label", "idiom")
    assert keys["I"] == KeyAction("label", "idiom")  # Caps Lock on
    assert keys["l"] == KeyAction("label", "literal")
    assert keys["s"] == keys["S"] == KeyAction("skip")
    assert keys["u"] == KeyAction("undo")
    assert keys["n"] == KeyAction("note")
    assert action_for("x", keys) is None
    assert action_for("", keys) is None
    assert action_for("il", keys) is None


def test_digit_keys_of_the_default_scheme():
    keys = key_map(Settings())
    assert keys["1"] == KeyAction("label", "positive")
    assert keys["2"] == KeyAction("label", "negative")
    assert "3" not in keys


def test_button_caption_shows_the_key():
    assert button_caption(LabelOption("idiom", "i")) == "idiom  [i]"


@pytest.mark.parametrize(("shown", "pressed", "expected"), [
    (10.0, 12.5, 2.5),
    (10.0, 10.0, 0.0),
    (10.0, 9.0, 0.0),            # clock went backwards: never negative
    (0.0, 3600.0, IDLE_CAP_SECONDS),  # an hour away from the desk counts 10 minutes
    (0.0, float("nan"), 0.0),
])
def test_spent_seconds_is_clamped(shown, pressed, expected):
    assert spent_seconds(shown, pressed) == expected


@settings(max_examples=50, deadline=None)
@given(st.floats(0, 1e6), st.floats(0, 1e6))
def test_spent_seconds_always_within_zero_and_cap(shown, pressed):
    assert 0.0 <= spent_seconds(shown, pressed) <= IDLE_CAP_SECONDS


def test_session_stats_count_labels_skips_and_undo():
    stats = SessionStats("ada", started_at=100.0)
    stats.record(1, skipped=False)
    stats.record(2, skipped=True)
    stats.record(3, skipped=False)
    assert (stats.labels, stats.skips, stats.last_label_id) == (2, 1, 3)
    stats.undo()
    assert (stats.labels, stats.skips, stats.last_label_id) == (1, 1, 2)
    stats.undo()
    stats.undo()
    stats.undo()  # undoing an older session's label: nothing of this session to forget
    assert (stats.labels, stats.skips, stats.last_label_id) == (0, 0, None)


def test_pace_is_labels_per_hour_after_the_first_minute():
    stats = SessionStats("ada", started_at=0.0)
    for i in range(30):
        stats.record(i, skipped=False)
    stats.record(99, skipped=True)  # skips do not count toward the pace
    assert stats.pace(59.0) is None
    assert stats.pace(180.0) == pytest.approx(600.0)  # 30 labels in 3 minutes


def test_status_line_wording():
    stats = SessionStats("ada", started_at=0.0)
    for i in range(12):
        stats.record(i, skipped=False)
    stats.record(12, skipped=True)
    line = status_text(stats, 3725.0)
    assert line == ("annotator ada  ·  12 labels this session (1 skipped)  ·  pace 12/h  ·  "
                    "time 1:02:05")
    one = SessionStats("bo", started_at=0.0)
    one.record(1, skipped=False)
    assert status_text(one, 30.0) == ("annotator bo  ·  1 label this session  ·  pace —/h  ·  "
                                      "time 0:30")
    assert status_text(one, 30.0, busy=True).startswith("Project file busy — retrying…  ·  ")
    assert status_text(one, 30.0, busy=True, offline=True).startswith(
        "Team server not answering — retrying…  ·  ")


def test_format_duration():
    assert format_duration(0) == "0:00"
    assert format_duration(59.9) == "0:59"
    assert format_duration(3600) == "1:00:00"
    assert format_duration(-5) == "0:00"


def test_position_text():
    assert position_text(12, 1000, 1) == "rank 12 of 1,000  ·  decile 1  ·  1.2% into the pool"
    assert position_text(3, 1_000_000, 1) == (
        "rank 3 of 1,000,000  ·  decile 1  ·  0.000% into the pool")
    assert position_text(1_000_000, 1_000_000, 10).endswith("100.0% into the pool")


def test_meta_text_keeps_values_verbatim():
    assert meta_text({"verb": "kick", "noun": "<b>bucket</b>", "n": None}) == (
        "verb: kick\nnoun: <b>bucket</b>\nn: ")
    assert meta_text({"a": 1, "b": 2}, skip=("a",)) == "b: 2"
