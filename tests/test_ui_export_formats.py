"""File ▸ Export offers every format `triage export` writes: CSV, JSON lines, Parquet,
Prodigy and Label Studio; picked in the dialog and written by the desk."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq

from tests.qt_helpers import open_main_window
from tests.test_ui_desk import make_project, press
from ui.export_dialog import FORMATS, ExportDialog


def test_the_dialog_lists_every_cli_format(qtbot, tmp_path):
    dialog = ExportDialog(tmp_path / "idioms.triage")
    qtbot.addWidget(dialog)
    names = [dialog.format.itemText(i) for i in range(dialog.format.count())]
    assert [n.split(" (")[0] for n in names] == ["CSV", "JSON lines", "Parquet", "Prodigy",
                                                  "Label Studio"]
    dialog.format.setCurrentIndex(4)
    assert dialog.path.text().endswith("idioms-labels.json") and dialog.tool() == "labelstudio"
    assert not dialog.labeled.isEnabled()
    dialog.format.setCurrentIndex(2)
    assert dialog.choice() == (tmp_path / "idioms-labels.parquet", False) and not dialog.tool()
    assert len(FORMATS) == 5


def _export(qtbot, window, tmp_path: Path, index: int) -> Path:
    window.export_dialog()
    dialog = window.export_options
    dialog.format.setCurrentIndex(index)
    out, _labeled = dialog.choice()
    window.last_export = None
    dialog.accept()   # the Export button
    qtbot.waitUntil(lambda: window.last_export == out, timeout=15000)
    return out


def test_the_desk_writes_parquet_prodigy_and_label_studio(qtbot, tmp_path):
    window = open_main_window(qtbot, make_project(tmp_path), "ada")
    press(qtbot, window.desk, "i", "l")
    table = pq.read_table(_export(qtbot, window, tmp_path, 2)).to_pylist()
    assert len(table) == 20 and {r["key"]: r["label"] for r in table}["c01"] == "idiom"
    prodigy = _export(qtbot, window, tmp_path, 3)
    events = [json.loads(line) for line in prodigy.read_text().splitlines()]
    assert [(e["text"], e["answer"], e["_annotator_id"]) for e in events] == [
        ("candidate number 1", "accept", "ada"), ("candidate number 2", "reject", "ada")]
    studio = json.loads(_export(qtbot, window, tmp_path, 4).read_text())
    assert len(studio) == 20 and any(task.get("annotations") for task in studio)
    window.close()
