"""Hidden characters in the report and the CSV export."""

from __future__ import annotations

import csv

from tests.helpers import SCHEME, write_pool
from triage.ingest.importer import ColumnMapping
from triage.project import create_project
from triage.project.export import export_project
from triage.store.settings import Settings
from triage.views.report import write_report

HOSTILE = ["gnp\u202eexe.png", "esc\x1b[2Jclear", "nul\x00byte", "zero\u200bwidth"]


def _project(tmp_path):
    rows = [{"key": f"k{i}", "text": HOSTILE[i % 4] + f" {i}", "m": f"{1 - i / 40:.4f}"}
            for i in range(40)]
    src = write_pool(tmp_path / "pool.csv", rows)
    path = tmp_path / "p.triage"
    project = create_project(path, Settings(labels=SCHEME, positive_labels=("idiom",),
                                            price_per_item=0.1, overlap_rate=0.0))
    project.import_file(src, ColumnMapping(text="text", key="key", scores=(("m", "m"),)))
    ada = project.start_session("ada")
    for _ in range(8):
        c = project.next_candidate(ada)
        project.record_label(ada, c.candidate_id, "idiom", note="note \x1b]0;title\x07 here")
    project.close()
    return path


def test_the_html_report_shows_hidden_characters_as_markers(tmp_path):
    out = tmp_path / "r.html"
    write_report(_project(tmp_path), out, bootstrap=0)
    text = out.read_text(encoding="utf-8")
    assert "\x1b" not in text and "\x00" not in text and "\x07" not in text
    assert "\u202e" not in text and "\u200b" not in text
    assert "note ⟨U+001B⟩]0;title⟨U+0007⟩ here" in text


def test_the_csv_export_has_no_raw_nul_or_esc(tmp_path):
    out = tmp_path / "out.csv"
    export_project(_project(tmp_path), out)
    raw = out.read_bytes()
    assert b"\x00" not in raw and b"\x1b" not in raw and b"\x07" not in raw
    with open(out, encoding="utf-8", newline="") as handle:
        texts = {row["text"] for row in csv.DictReader(handle)}
    assert "nul⟨U+0000⟩byte 2" in texts and "esc⟨U+001B⟩[2Jclear 1" in texts
