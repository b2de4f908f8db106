"""Untrusted text made visible and bounded, Qt-free."""

from __future__ import annotations

import pytest

from triage.base.hidden import has_hidden, reveal, reveal_controls
from triage.views.text import bounded_meta, feedback_excerpt, shown_text, text_chunks


@pytest.mark.parametrize("raw, shown", [
    ("gnp\u202eexe.png", "gnp⟨U+202E⟩exe.png"),                 # right-to-left override
    ("a\u2066b\u2069c\u200ed\u200fe", "a⟨U+2066⟩b⟨U+2069⟩c⟨U+200E⟩d⟨U+200F⟩e"),
    ("in\u200bvis\u200cible\u200d\ufeff\u2060", "in⟨U+200B⟩vis⟨U+200C⟩ible⟨U+200D⟩⟨U+FEFF⟩⟨U+2060⟩"),
    ("esc\x1b[31mred\x00nul\x7f\x85", "esc⟨U+001B⟩[31mred⟨U+0000⟩nul⟨U+007F⟩⟨U+0085⟩"),
    ("tab\tand\nnewline stay", "tab\tand\nnewline stay"),
    ("crlf\r\nline", "crlf\nline"),
    ("plain naïve 日本語 עברית", "plain naïve 日本語 עברית"),
])
def test_reveal_makes_every_hidden_character_visible(raw, shown):
    assert reveal(raw) == shown
    assert has_hidden(raw) == (raw.replace("\r\n", "\n") != shown)
    assert shown_text(raw)[0] == shown


def test_reveal_controls_keeps_bidi_marks_for_files_but_not_nul_or_esc():
    assert reveal_controls("a\x00b\x1bc\u200fd\r\n") == "a⟨U+0000⟩b⟨U+001B⟩c\u200fd\r\n"


def test_feedback_excerpt_is_one_short_line():
    text = "first line\n\n   second\tline " + "word " * 1000
    out = feedback_excerpt(text)
    assert len(out) == 80 and "\n" not in out and out.endswith("…")
    assert out.startswith("first line second line word")
    assert feedback_excerpt("short") == "short"
    assert feedback_excerpt("x" * 1_000_000).endswith("…")
    assert feedback_excerpt("a\u202eb") == "a⟨U+202E⟩b"


@pytest.mark.parametrize("text", [
    "x" * 1_000_000, ("word " * 200_000), "\n".join(f"line {i}" for i in range(100_000)),
    "", "short", "a\n" * 5,
])
def test_text_chunks_join_to_the_text_and_stay_small(text):
    chunks = text_chunks(text)
    assert "".join(chunks) == text
    assert all(len(c) <= 16_000 and c.count("\n") <= 400 for c in chunks)
    if text.startswith("word"):
        assert all(c.endswith(" ") for c in chunks[:-1])  # never a word cut in two


def test_bounded_meta_is_few_short_lines():
    lines = "\n".join(f"f{i}: " + "v" * 10_000 for i in range(20))
    out = bounded_meta(lines).split("\n")
    assert len(out) == 9 and out[-1] == "… and 12 more" and all(len(x) <= 160 for x in out)
