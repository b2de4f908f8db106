"""The core commands through real subprocess calls: new, import, status, config, export."""

from __future__ import annotations

import csv
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import pool_rows, write_pool

ROOT = Path(__file__).resolve().parent.parent


def triage(*args, cwd=None):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "triage.cli", *map(str, args)],
                          capture_output=True, text=True, cwd=cwd or ROOT, env=env)


def new_project(tmp_path, n=30, extra=()):
    src = write_pool(tmp_path / "pool.csv", pool_rows(n))
    out = triage("new", tmp_path / "p.triage", src, "--text", "text", "--key", "key",
                 "--score", "m1=m1", "--score", "m2=m2", "--gold", "gold",
                 "--labels", "idiom:i,literal:l", "--positive", "idiom",
                 "--price", "0.04", "--budget", "16", *extra)
    return out


@pytest.mark.slow
def test_new_status_and_json_keys(tmp_path):
    out = new_project(tmp_path)
    assert out.returncode == 0, out.stderr
    assert "30 candidates" in out.stdout
    status = triage("status", tmp_path / "p.triage", "--json")
    assert status.returncode == 0, status.stderr
    data = json.loads(status.stdout)
    assert data["pool"] == 30 and data["active_model"] == "m1"
    assert [m["name"] for m in data["models"]] == ["m1", "m2"]
    assert data["spend"] == 0 and data["budget"] == 16 and data["budget_left"] == 16
    assert len(data["deciles"]) == 10 and data["deciles"][0]["items"] == 3
    text = triage("status", tmp_path / "p.triage")
    assert "30 candidates" in text.stdout and "decile" in text.stdout


def test_new_with_a_bad_file_reports_line_and_column_and_leaves_nothing(tmp_path):
    rows = pool_rows(5)
    rows[2]["m1"] = "abc"
    src = write_pool(tmp_path / "bad.csv", rows)
    out = triage("new", tmp_path / "p.triage", src, "--text", "text", "--key", "key",
                 "--score", "m1=m1")
    assert out.returncode != 0
    assert "bad.csv:4" in out.stderr and "m1" in out.stderr
    assert not (tmp_path / "p.triage").exists()


def test_open_non_project_is_a_clear_error(tmp_path):
    (tmp_path / "x.triage").write_text("not a database")
    out = triage("status", tmp_path / "x.triage")
    assert out.returncode == 2
    assert "not a Triage project" in out.stderr


@pytest.mark.slow
def test_config_changes_settings_and_rejects_nonsense(tmp_path):
    new_project(tmp_path)
    out = triage("config", tmp_path / "p.triage", "--budget", "20", "--currency", "EUR", "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["budget"] == 20
    bad = triage("config", tmp_path / "p.triage", "--positive", "nope")
    assert bad.returncode == 2 and "positive label" in bad.stderr


@pytest.mark.slow
def test_export_csv_is_guarded_and_complete(tmp_path):
    rows = pool_rows(12)
    rows[0]["text"] = "=HYPERLINK(\"http://x\")"
    src = write_pool(tmp_path / "pool.csv", rows)
    out = triage("new", tmp_path / "p.triage", src, "--text", "text", "--key", "key",
                 "--score", "m1=m1", "--labels", "idiom,literal")
    assert out.returncode == 0, out.stderr
    from triage.project import open_project

    with open_project(tmp_path / "p.triage") as project:
        s = project.start_session("ada")
        c = project.next_candidate(s)
        project.record_label(s, c.candidate_id, "idiom", note="clear case")
    exp = triage("export", tmp_path / "p.triage", tmp_path / "out.csv")
    assert exp.returncode == 0, exp.stderr
    with open(tmp_path / "out.csv", newline="", encoding="utf-8") as handle:
        data = list(csv.DictReader(handle))
    assert len(data) == 12
    assert data[0]["text"].startswith("'=")
    assert (data[0]["label"], data[0]["label_status"], data[0]["annotators"]) == ("idiom", "final", "ada")
    assert "clear case" in data[0]["notes"]
    assert data[1]["label_status"] == "unlabeled"
    jl = triage("export", tmp_path / "p.triage", tmp_path / "out.jsonl", "--labeled-only")
    assert jl.returncode == 0, jl.stderr
    lines = (tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 1 and json.loads(lines[0])["text"] == "=HYPERLINK(\"http://x\")"


def test_add_scores_keeps_labels(tmp_path):
    new_project(tmp_path, n=10)
    from triage.project import open_project

    with open_project(tmp_path / "p.triage") as project:
        s = project.start_session("ada")
        c = project.next_candidate(s)
        project.record_label(s, c.candidate_id, "idiom")
    later = write_pool(tmp_path / "m3.csv",
                       [{"key": f"c{i:04d}", "m3": str(i % 4)} for i in range(10)])
    out = triage("import", tmp_path / "p.triage", later, "--add-scores", "--key", "key",
                 "--score", "m3=m3")
    assert out.returncode == 0, out.stderr
    conn = sqlite3.connect(tmp_path / "p.triage")
    assert conn.execute("SELECT count(*) FROM labels").fetchone()[0] == 1
    assert conn.execute("SELECT name, tied_items FROM models ORDER BY id").fetchall()[-1] == ("m3", 10)
    conn.close()


def test_the_command_table_matches_the_command_modules():
    # `triage --help` lists COMMANDS without importing every module: the table must name
    # every module's command with the help its parser registers, and nothing else.
    import argparse
    import pkgutil

    from triage.cli import commands
    from triage.cli.program import COMMANDS, build_parser, command_module

    modules = sorted(m.name for m in pkgutil.iter_modules(commands.__path__)
                     if not m.name.startswith("_"))
    assert sorted(command_module(name).rsplit(".", 1)[1] for name in COMMANDS) == modules
    full = build_parser()
    choices = next(a for a in full._actions if isinstance(a, argparse._SubParsersAction))
    registered = {c.dest: c.help for c in choices._choices_actions}
    assert registered == COMMANDS


def test_every_command_help_says_each_default_once_and_never_none():
    # `triage new --help` once read "(default: guessed) (default: None)".
    import argparse
    import re

    from triage.cli.program import build_parser

    full = build_parser()
    choices = next(a for a in full._actions if isinstance(a, argparse._SubParsersAction))
    for name, parser in choices.choices.items():
        text = " ".join(parser.format_help().split())
        assert not re.search(r"\(default: (None|False|\[\])\)", text), name
        assert not re.search(r"\(default: [^)]*\) \(default:", text), name


def test_a_command_run_imports_only_its_own_module():
    code = ("import sys\nfrom triage.cli.program import build_parser\n"
            "args = build_parser('status').parse_args(['status', 'x.triage'])\n"
            "print(sorted(m.rsplit('.', 1)[1] for m in sys.modules\n"
            "             if m.startswith('triage.cli.commands.') and '._' not in m))\n"
            "print('pandas' in sys.modules, args.func.__module__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=True)
    assert out.stdout.split("\n")[:2] == ["['status']", "False triage.cli.commands.status"]
