"""Guideline versions on every label, agreement by version, and the history API (no Qt)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.helpers import make_project
from triage.project import open_project
from triage.project.guidelines import current_guidelines, guideline_history, save_guidelines
from triage.project.history import change_decision, recent_decisions

ROOT = Path(__file__).resolve().parent.parent


def test_versions_history_and_the_agree_command(tmp_path):
    project = make_project(tmp_path, n=40, overlap_rate=0.0, audit_rate=0.0)
    assert current_guidelines(project).version == 0
    ada, bob = project.start_session("ada"), project.start_session("bob")
    c = project.next_candidate(ada)
    project.record_label(ada, c.candidate_id, "idiom")           # before any guidelines
    assert save_guidelines(project, "Rule one.", "lee").version == 1
    assert save_guidelines(project, "Rule one.\n", "lee").version == 1   # unchanged text
    for i in range(10):
        if i == 5:
            save_guidelines(project, "Rule one. Rule two.", "kim")
        c = project.next_candidate(ada)
        project.record_label(ada, c.candidate_id, "idiom")
        project.record_label(bob, c.candidate_id, "idiom" if i >= 5 or i % 2 else "literal")
    assert [(g.version, g.author) for g in guideline_history(project)] == [(1, "lee"), (2, "kim")]
    versions = project.db.execute("SELECT guideline_version FROM labels ORDER BY id").fetchall()
    assert [v for (v,) in versions] == [None] + [1] * 10 + [2] * 10
    project.close()
    done = subprocess.run([sys.executable, "main.py", "agree", str(tmp_path / "p.triage"),
                           "--by", "guideline_version", "--json", "--bootstrap", "0"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    rows = [r for r in json.loads(done.stdout)["breakdowns"] if r["by"] == "guideline_version"]
    assert [(r["group"], r["items"]) for r in rows] == [("none", 0), ("v1", 5), ("v2", 5)]
    assert rows[2]["percent_agreement"] == 1.0 and rows[1]["percent_agreement"] < 1.0


def test_history_change_is_a_new_event_that_undo_takes_back(tmp_path):
    project = make_project(tmp_path, n=20, overlap_rate=0.0, audit_rate=0.0)
    ada = project.start_session("ada")
    for value in ("idiom", "literal", "idiom"):
        c = project.next_candidate(ada)
        project.record_label(ada, c.candidate_id, value)
    history = recent_decisions(project, ada)
    assert [(d.key, d.value) for d in history] == [("c0002", "idiom"), ("c0001", "literal"),
                                                   ("c0000", "idiom")]
    change_decision(project, ada, history[1], "idiom")
    assert [(d.key, d.value) for d in recent_decisions(project, ada)][:2] == [
        ("c0001", "idiom"), ("c0002", "idiom")]
    positives = project.snapshot().positives_found
    assert project.undo(ada) == history[1].candidate_id
    assert [(d.key, d.value) for d in recent_decisions(project, ada)] == [
        ("c0002", "idiom"), ("c0001", "literal"), ("c0000", "idiom")]
    assert project.snapshot().positives_found == positives - 1
    project.update_settings(highlight_words=("kick", "bucket"))
    project.close()
    with open_project(tmp_path / "p.triage") as again:
        assert again.settings.highlight_words == ("kick", "bucket")
