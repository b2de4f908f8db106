"""One SQLite engine per process: nothing else in the desk's process opens the project file.

SQLite's locks are POSIX advisory locks, owned by a process and a file: any ``open()`` +
``close()`` of the file in the same process drops them all. Linux lists every lock in
``/proc/locks``, so these tests look there: the lock SQLite holds on the project file
while a connection is open must still be there after each file dialog, header check and
report has run in the same process.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PySide6.QtWidgets import QListView

from tests.test_ui_desk import make_project
from triage.project import open_project

pytestmark = pytest.mark.skipif(not Path("/proc/locks").exists(),
                                reason="reads the locks of this process in /proc/locks")


def held_locks(path: Path) -> int:
    """How many POSIX locks this process holds on ``path`` (its inode, per /proc/locks)."""
    inode = os.stat(path).st_ino
    count = 0
    with open("/proc/locks", encoding="ascii") as locks:
        for line in locks:
            fields = line.split()
            if "->" in fields:   # a blocked request, not a held lock
                continue
            pid, where = int(fields[4]), fields[5]
            if pid == os.getpid() and int(where.rsplit(":", 1)[1]) == inode:
                count += 1
    return count


@pytest.fixture
def project(tmp_path):
    with open_project(make_project(tmp_path)) as opened:
        opened.db.execute("SELECT count(*) FROM candidates").fetchone()
        assert held_locks(opened.path) > 0
        yield opened


def test_a_plain_open_and_close_drops_sqlites_locks(project):
    """The mechanism, so that the tests below can see what they guard against."""
    with open(project.path, "rb") as handle:
        handle.read(16)
    assert held_locks(project.path) == 0


def _listed(dialog, folder: Path) -> bool:
    view = dialog.findChild(QListView, "listView")
    model, root = view.model(), view.rootIndex()
    names = {model.index(r, 0, root).data() for r in range(model.rowCount(root))}
    return {p.name for p in folder.iterdir()} <= names


@pytest.mark.parametrize("saving", [True, False])
def test_file_dialogs_list_the_project_folder_without_opening_its_files(project, qtbot, saving):
    from ui.file_dialogs import file_dialog

    folder = project.path.parent
    (folder / "p.triage.backup").write_bytes(b"SQLite format 3\x00")  # sniffable neighbours
    dialog = file_dialog(None, "Export report", str(folder / "p-report.html"),
                         "All files (*)", saving=saving)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitUntil(lambda: _listed(dialog, folder), timeout=20000)
    for view in dialog.findChildren(QListView):
        view.grab()   # paint every row: icons and types are asked for now
    qtbot.wait(200)
    dialog.reject()
    assert held_locks(project.path) > 0


def test_header_checks_of_an_open_project_go_through_sqlite(project):
    from triage.store.connection import check_project_header, is_sqlite_file

    assert is_sqlite_file(project.path)
    check_project_header(project.path)
    assert held_locks(project.path) > 0


def test_a_report_written_in_the_desks_process_keeps_its_locks(project, tmp_path):
    from triage.views.report import write_report

    write_report(project.path, tmp_path / "r.html", bootstrap=20, images=False)
    assert (tmp_path / "r.html").exists()
    assert held_locks(project.path) > 0


def test_every_file_dialog_comes_from_file_dialogs():
    """No module builds its own QFileDialog (whose default icon provider sniffs files)."""
    root = Path(__file__).resolve().parent.parent / "ui"
    offenders = [str(p.relative_to(root)) for p in sorted(root.rglob("*.py"))
                 if p.name != "file_dialogs.py" and "QFileDialog" in p.read_text("utf-8")]
    assert offenders == []
