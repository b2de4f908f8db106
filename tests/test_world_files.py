"""Files made the way people make them (tests/data/world/, see its README): read by the
dialog's guesser and by ``triage new`` as a subprocess, each ending in the right import or
one sentence naming the fix."""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.qt_helpers import read_source
from triage.base.errors import TriageError
from triage.ingest.read import read_table
from triage.views.new_project import (
    Dialect,
    dialect_from_form,
    guess_mapping,
    profile,
    read_as,
    sheet_with_data,
)

WORLD = Path(__file__).parent / "data" / "world"
ROOT = Path(__file__).resolve().parent.parent


def triage(*args: object) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "triage.cli", *map(str, args)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


def exported(project: Path, tmp_path: Path) -> dict[str, dict[str, str]]:
    out = tmp_path / "out.csv"
    done = triage("export", project, out)
    assert done.returncode == 0, done.stderr
    with open(out, encoding="utf-8", newline="") as handle:
        return {row["key"]: row for row in csv.DictReader(handle)}


def test_every_file_has_a_line_in_the_readme():
    readme = (WORLD / "README.md").read_text(encoding="utf-8")
    files = [p.name for p in WORLD.iterdir() if p.name != "README.md"]
    assert files and all(f"`{name}`" in readme for name in files)


@pytest.mark.slow  # subprocesses
def test_european_csv_imports_with_no_options_and_says_why(tmp_path):
    done = triage("new", tmp_path / "p.triage", WORLD / "semicolon_bom.csv")
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith("guessed: text=ticket, key=id, scores=urgent_p, gold=label; "
                                  "encoding UTF-8 with a byte-order mark; delimiter ';': all "
                                  "61 records of the sample have 4 fields; decimal comma: "
                                  "column 'urgent_p' holds numbers like '0,821'")
    assert "created" in done.stdout and "60 candidates" in done.stdout
    rows = exported(tmp_path / "p.triage", tmp_path)
    assert len(rows) == 60
    assert rows["T001"]["score_urgent_p"] == "0.821"
    assert rows["T007"]["text"].endswith(';\nsecond line, with "quotes"')


@pytest.mark.slow  # subprocesses
def test_cp1252_needs_the_encoding_option_named_in_the_refusal(tmp_path):
    done = triage("new", tmp_path / "p.triage", WORLD / "semicolon_cp1252.csv")
    assert done.returncode == 2
    assert done.stderr.strip() == (
        f"triage: {WORLD / 'semicolon_cp1252.csv'}: line 2 is not UTF-8 (byte 0xe9 at "
        "character 25); the file reads as cp1252 (Windows Western European): give "
        "--encoding cp1252")
    assert not (tmp_path / "p.triage").exists()
    done = triage("new", tmp_path / "p.triage", WORLD / "semicolon_cp1252.csv",
                  "--encoding", "cp1252")
    assert done.returncode == 0, done.stderr
    rows = exported(tmp_path / "p.triage", tmp_path)
    assert rows["T001"]["text"] == "delivery refund café password printer invoice"
    assert rows["T001"]["score_urgent_p"] == "0.821"


def test_the_dialog_asks_once_about_the_encoding_and_then_reads_it():
    sniffed = read_as(WORLD / "semicolon_cp1252.csv")
    assert sniffed.confirm == ("line 2 is not UTF-8 (byte 0xe9 at character 25); the file "
                               "reads as cp1252 (Windows Western European): read it so?")
    assert sniffed.dialect == Dialect(delimiter=";", decimal=",", encoding="cp1252")
    found = profile(WORLD / "semicolon_cp1252.csv", None, sniffed.dialect)
    assert guess_mapping(found)["scores"] == ["urgent_p"] and found.rows == 60
    chosen, fields = dialect_from_form(";", None, "utf-8", None)
    assert fields == frozenset({"delimiter", "encoding"})
    assert read_as(WORLD / "semicolon_cp1252.csv", chosen, fields).confirm is None


@pytest.mark.slow  # subprocesses
@pytest.mark.parametrize(("name", "score"), [("percent.csv", "0.82"), ("pipe.csv", "0.821"),
                                             ("title_row.csv", "0.821")])
def test_other_habits_import_with_no_options(tmp_path, name, score):
    done = triage("new", tmp_path / "p.triage", WORLD / name)
    assert done.returncode == 0, done.stderr
    rows = exported(tmp_path / "p.triage", tmp_path)
    assert len(rows) == 60 and rows["T001"]["score_urgent_p"] == score
    if name == "title_row.csv":
        assert "header on line 3: the lines above it hold fewer fields (a title)" in done.stderr


@pytest.mark.slow  # subprocesses
def test_data_on_sheet_two_under_a_title(tmp_path):
    path = WORLD / "sheet2_title.xlsx"
    assert sheet_with_data(path, None, profile(path)) == (
        "sheet 'Readme' has no score column; sheet 'Data' has 60 rows that do: give "
        "--sheet 'Data'")
    done = triage("new", tmp_path / "p.triage", path)
    assert done.returncode == 2
    assert done.stderr.strip() == (f"triage: {path}: sheet 'Readme' has no score column; "
                                   "sheet 'Data' has 60 rows that do: give --sheet 'Data'")
    done = triage("new", tmp_path / "p.triage", path, "--sheet", "Data", "--header-row", "3")
    assert done.returncode == 0, done.stderr
    assert len(exported(tmp_path / "p.triage", tmp_path)) == 60
    guessed = read_as(path, Dialect(sheet="Data"))
    assert guessed.dialect.header_row == 3
    assert guessed.reasons == ("header on row 3 of sheet 'Data': the rows above it hold "
                               "fewer cells (a title)",)


@pytest.mark.slow  # subprocesses
@pytest.mark.parametrize(("name", "sentence"), [
    ("formulas.xlsx", "formulas.xlsx: cells D2, D3, D4 and 7 more of sheet 'Pool' are "
     "formulas without saved results: open and save the file in a spreadsheet program"),
    ("array.jsonl", "array.jsonl:1: the file holds a JSON array, not one JSON object per "
     "line: save it as JSON Lines (one object per line)"),
    ("dup_header.csv", "dup_header.csv:1: column score: duplicate column name (columns 3 "
     "and 4): rename one of them"),
    ("header_only.csv", "header_only.csv: the file has a header but no rows of data; there "
     "is nothing to import"),
])
def test_refusals_name_the_cause_and_the_fix(tmp_path, name, sentence):
    done = triage("new", tmp_path / "p.triage", WORLD / name)
    assert done.returncode == 2
    assert sentence in done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "p.triage").exists()


@pytest.mark.slow  # subprocesses
def test_parquet_dictionary_text_nested_values_and_exact_decimals(tmp_path):
    done = triage("new", tmp_path / "p.triage", WORLD / "nested_decimal.parquet")
    assert done.returncode == 0, done.stderr
    assert "guessed: text=ticket, key=id, scores=urgent_p" in done.stderr
    rows = exported(tmp_path / "p.triage", tmp_path)
    assert rows["T001"]["score_urgent_p"] == "0.95"
    meta = json.loads(rows["T002"]["meta"])
    assert json.loads(meta["tags"]) == ["a", "b"]
    assert json.loads(meta["source"]) == {"queue": "mail", "n": 1}


def test_a_decimal_comma_not_guessed_points_at_the_option(tmp_path):
    path = tmp_path / "scores.csv"
    shutil.copy(WORLD / "semicolon_bom.csv", path)
    with pytest.raises(TriageError) as info:
        read_table(path, numeric=["urgent_p"], dialect=Dialect(delimiter=";"))
    assert "'0,821' is not a number (a decimal comma? give --decimal ,)" in str(info.value)
    table = read_table(path, numeric=["urgent_p"], dialect=Dialect(delimiter=";", decimal=","))
    assert table.numbers("urgent_p")[0] == 0.821


@pytest.mark.slow  # an export subprocess
def test_the_dialog_reads_a_cp1252_semicolon_file_after_one_question(qtbot, tmp_path):
    from PySide6.QtCore import Qt

    from ui.dialogs.new_project import NewProjectDialog

    dialog = NewProjectDialog()
    qtbot.addWidget(dialog)
    asked: list[str] = []
    dialog.reading.ask = lambda question: asked.append(question) or True
    assert read_source(qtbot, dialog, WORLD / "semicolon_cp1252.csv")
    assert read_source(qtbot, dialog, WORLD / "semicolon_cp1252.csv")  # asked once per file
    assert asked == ["line 2 is not UTF-8 (byte 0xe9 at character 25); the file reads as "
                     "cp1252 (Windows Western European): read it so?"]
    assert dialog.reading.caption.text().startswith(
        "Read as: encoding cp1252: the file is not UTF-8 (line 2); delimiter ';'")
    assert dialog.preview.columnCount() == 4
    assert dialog.preview.item(0, 1).text() == "delivery refund café password printer invoice"
    assert dialog.text_combo.currentText() == "ticket"
    assert dialog.mapping().scores == (("urgent_p", "urgent_p"),)
    dialog.target.setText(str(tmp_path / "p.triage"))
    with qtbot.waitSignal(dialog.accepted, timeout=20000):
        qtbot.mouseClick(dialog.create_button, Qt.MouseButton.LeftButton)
    rows = exported(tmp_path / "p.triage", tmp_path)
    assert rows["T001"]["score_urgent_p"] == "0.821"


def test_the_dialog_refuses_a_declined_encoding_and_names_another_sheet(qtbot):
    from ui.dialogs.new_project import NewProjectDialog

    dialog = NewProjectDialog()
    qtbot.addWidget(dialog)
    dialog.reading.ask = lambda question: False
    assert not dialog.set_source(WORLD / "semicolon_cp1252.csv")
    assert dialog.errors.toPlainText().endswith(
        "the file reads as cp1252 (Windows Western European): choose the encoding in the "
        "Encoding list, or save the file as UTF-8")
    assert read_source(qtbot, dialog, WORLD / "sheet2_title.xlsx")
    assert dialog.reading.caption.text() == (
        "sheet 'Readme' has no score column; sheet 'Data' has 60 rows that do: choose it in "
        "the Sheet list")


def test_a_header_over_two_rows_imports_with_header_row(tmp_path, capsys):
    from main import main

    path = WORLD / "merged_header.xlsx"
    assert main(["new", str(tmp_path / "p.triage"), str(path)]) == 2
    assert capsys.readouterr().err.strip() == (
        f"triage: {path}: no column looks like a model's score (the columns are 'id', "
        "'ticket', 'model scores'): give --score NAME=COLUMN, or --header-row N when the "
        "names are not on the first row")
    assert main(["new", str(tmp_path / "p.triage"), str(path), "--header-row", "2"]) == 0
    out = capsys.readouterr()
    assert "guessed: text=ticket, key=id, scores=m1,m2" in out.err
    assert "created" in out.out and "10 candidates, models m1, m2" in out.out


def test_plurals_in_the_import_lines(tmp_path, capsys):
    from main import main

    src = tmp_path / "two.csv"
    src.write_text("key,text,s\na,red door,0.5\nb,blue sky,high\n", encoding="utf-8")
    assert main(["new", str(tmp_path / "p.triage"), str(src), "--text", "text", "--key", "key",
                 "--score", "s", "--skip-invalid"]) == 0
    out = capsys.readouterr().out
    assert f"created {tmp_path / 'p.triage'}: 1 candidate, models s" in out
    assert "1 row rejected; see" in out


def test_commands_over_a_scored_file_read_the_european_csv_too(capsys):
    from main import main

    path = WORLD / "semicolon_cp1252.csv"
    args = ["compare", str(path), "--score", "urgent_p", "--gold", "label", "--positive",
            "urgent"]
    assert main(args) == 2
    assert "give --encoding cp1252" in capsys.readouterr().err
    assert main([*args, "--encoding", "cp1252"]) == 0
    out = capsys.readouterr()
    assert "decimal comma: column 'urgent_p'" in out.err
    assert "60 labeled items, 15 positive" in out.out
