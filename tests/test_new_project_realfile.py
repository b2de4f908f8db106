"""The new-project dialog and ``triage new`` on a file shaped like a real one.

The file is the Davidson et al. hate-speech set as its users have it (tweet_id, tweet,
count, kw_score, class; 24,783 rows): ``count`` and ``class`` are the real columns of
``shared/data/davidson`` (MIT, tweet text removed there); the tweets are made up here,
with the commas, quotes, mentions, emoji and line breaks real tweets have, so the CSV
quotes them; ``kw_score`` is a keyword score with three decimals (ties), as a keyword
filter gives. The guesses, the whole-file counts and a successful create are asserted.
"""

from __future__ import annotations

import csv
import sqlite3
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import Qt

from tests.helpers import DATA_DIR
from triage.views.new_project import describe_guess, guess_mapping, guess_positive, profile

SOURCE = DATA_DIR / "davidson" / "labeled_counts_no_text.csv"
WORDS = ["lol", "this", "is", "so", "bad", "game", "tonight", "y'all", "smh", "trash",
         "love", "you", "never", "again", "why", "\U0001F602", "RT", "@user", "#mood"]


def tweets_file(path: Path) -> dict[str, int]:
    """Write the tweets file; returns the rows per class."""
    if not SOURCE.exists():
        pytest.skip(f"{SOURCE} is not here")
    with open(SOURCE, encoding="utf-8", newline="") as handle:
        real = list(csv.DictReader(handle))
    rng = np.random.default_rng(5)
    with open(path, "w", encoding="utf-8", newline="") as handle:
        out = csv.writer(handle)
        out.writerow(["tweet_id", "tweet", "count", "kw_score", "class"])
        for i, row in enumerate(real):
            words = " ".join(rng.choice(WORDS, size=int(rng.integers(4, 16))))
            tweet = [words, f'"{words}", she said', f"{words},\n{words}"][i % 3]
            hateful = int(row["hate_speech"]) / int(row["count"])
            score = min(1.0, max(0.0, 0.7 * hateful + 0.3 * rng.random()))
            out.writerow([850000000000000000 + 7919 * i, tweet, row["count"],
                          f"{score:.3f}", row["class"]])
    counts: dict[str, int] = {}
    for row in real:
        counts[row["class"]] = counts.get(row["class"], 0) + 1
    return counts


@pytest.mark.slow
def test_guesses_and_counts_come_from_the_whole_file(tmp_path):
    counts = tweets_file(tmp_path / "tweets.csv")
    found = profile(tmp_path / "tweets.csv")
    assert found.whole and found.rows == 24_783
    guess = guess_mapping(found)
    assert guess == {"key": "tweet_id", "text": "tweet", "gold": "class",
                     "scores": ["kw_score"], "image": None}
    assert describe_guess(guess) == "text=tweet, key=tweet_id, scores=kw_score, gold=class"
    gold = found.column("class")
    assert gold is not None and dict(gold.counts) == counts
    assert sum(counts.values()) == 24_783
    assert guess_positive(list(gold.counts)) == min(counts, key=counts.__getitem__) == "0"


@pytest.mark.slow   # a few seconds: the slow tier, which CI runs
def test_the_dialog_guesses_and_creates_the_project(qtbot, tmp_path):
    from ui.dialogs.new_project import NewProjectDialog

    counts = tweets_file(tmp_path / "tweets.csv")
    dialog = NewProjectDialog()
    qtbot.addWidget(dialog)
    qtbot.keyClicks(dialog.source, str(tmp_path / "tweets.csv"))
    qtbot.keyClick(dialog.source, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: dialog.reader is None, timeout=30000)   # read in the background
    assert dialog.key_combo.currentText() == "tweet_id"
    assert dialog.text_combo.currentText() == "tweet"
    assert dialog.gold_combo.currentText() == "class"
    assert dialog.mapping().scores == (("kw_score", "kw_score"),)
    shown = [dialog.positive_combo.itemText(i) for i in range(dialog.positive_combo.count())]
    assert shown == [f"{v}  ({n:,} rows)" for v, n in sorted(counts.items(),
                                                             key=lambda kv: -kv[1])]
    assert dialog.positive_combo.currentData() == "0"  # the rarest: hate speech
    assert "all 24,783 rows" in dialog.suggestion.text()
    # The user ticks class as a model too, then chooses it as gold again: it is unticked.
    item = dialog.score_list.findItems("class", Qt.MatchFlag.MatchExactly)[0]
    item.setCheckState(Qt.CheckState.Checked)
    dialog.gold_combo.setCurrentText("(none)")
    dialog.gold_combo.setCurrentText("class")
    assert item.checkState() == Qt.CheckState.Unchecked
    target = tmp_path / "hate.triage"
    dialog.target.clear()
    qtbot.keyClicks(dialog.target, str(target))
    with qtbot.waitSignal(dialog.accepted, timeout=60_000):
        qtbot.mouseClick(dialog.create_button, Qt.MouseButton.LeftButton)
    with sqlite3.connect(target) as conn:
        assert conn.execute("SELECT count(*) FROM candidates").fetchone() == (24_783,)
        assert conn.execute("SELECT name FROM models").fetchall() == [("kw_score",)]
        assert conn.execute("SELECT count(*) FROM candidates WHERE gold = '0'"
                            ).fetchone() == (counts["0"],)


def test_a_gold_column_also_ticked_as_a_model_is_a_sentence(tmp_path):
    from triage.base.errors import TriageError
    from triage.ingest.importer import ColumnMapping, import_candidates
    from triage.store.connection import create_database

    tweets_file(tmp_path / "tweets.csv")
    db = create_database(tmp_path / "p.triage")
    mapping = ColumnMapping(text="tweet", key="tweet_id", gold="class",
                            scores=(("kw_score", "kw_score"), ("class", "class")))
    with pytest.raises(TriageError) as info:
        import_candidates(db, tmp_path / "tweets.csv", mapping)
    db.close()
    assert str(info.value) == ("column 'class' is chosen both as the gold label and as a "
                               "model's score; a column can be one or the other")


@pytest.mark.slow   # a few seconds: the slow tier, which CI runs
def test_triage_new_guesses_what_it_is_not_told(tmp_path, capsys):
    from main import main

    tweets_file(tmp_path / "tweets.csv")
    code = main(["new", str(tmp_path / "p.triage"), str(tmp_path / "tweets.csv")])
    out = capsys.readouterr()
    assert code == 0
    assert "guessed: text=tweet, key=tweet_id, scores=kw_score, gold=class" in out.err
    with sqlite3.connect(tmp_path / "p.triage") as conn:
        assert conn.execute("SELECT count(*) FROM candidates").fetchone() == (24_783,)
        assert conn.execute("SELECT name, source_column FROM models").fetchall() == [
            ("kw_score", "kw_score")]


def test_a_file_arrow_cannot_read_whole_is_guessed_from_its_head(tmp_path):
    """A ragged row: the guesses come from the first MiB, and say so; nested JSON values
    are "other" columns, never an exception."""
    path = tmp_path / "ragged.csv"
    path.write_text("id,text,score\n1,a b c,0.5\n2,d e,0.25\n3,f\n", encoding="utf-8")
    found = profile(path)
    assert not found.whole and found.rows == 3
    assert guess_mapping(found) == {"key": "id", "text": "text", "gold": None,
                                    "scores": ["score"], "image": None}
    nested = tmp_path / "nested.jsonl"
    nested.write_text('{"id": "a", "text": "x y", "tags": [1, 2], "p": 0.5}\n'
                      '{"id": "b", "text": "z", "tags": [3], "p": 0.25}\n', encoding="utf-8")
    found = profile(nested)
    assert found.whole and found.column("tags").kind == "other"
    assert guess_mapping(found)["scores"] == ["p"]
