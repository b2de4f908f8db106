"""No acknowledged label is lost to a file dialog: the desk in its own process, SIGKILLed.

SQLite's locks are POSIX advisory locks, held per process and file: any ``open()`` +
``close()`` of the project file inside the desk's process (a file dialog's content
sniffing, a second SQLite library, a header check) drops them all, and the next process
to close the file checkpoints and deletes the WAL the desk still writes into. These
tests run the desk in a child process, label, use a dialog through Qt's own widgets (it
lists the project's folder), label again, let another process read the file, SIGKILL the
desk, and count what the file holds.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_cli_core import triage
from tests.test_ui_desk import make_project

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs POSIX signals")


class Desk:
    """A desk process driven by tests/desk_child.py."""

    def __init__(self, path: Path, env: dict[str, str]) -> None:
        self.child = subprocess.Popen(
            [sys.executable, "-m", "tests.desk_child", str(path)], cwd=ROOT, text=True,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            env={**os.environ, "PYTHONPATH": str(ROOT), **env})
        assert self.read() == "ready"

    def read(self) -> str:
        """The child's next answer (it answers every command with one line)."""
        assert self.child.stdout is not None
        line = self.child.stdout.readline()
        assert line, f"the desk process ended (exit {self.child.poll()})"
        return line.strip()

    def send(self, command: str) -> str:
        """Send one command and wait for its answer."""
        assert self.child.stdin is not None
        self.child.stdin.write(command + "\n")
        self.child.stdin.flush()
        return self.read()

    def label(self) -> int:
        """One label; its id once the desk acknowledged it."""
        answer = self.send("label")
        assert answer.startswith("ack "), answer
        return int(answer.split()[1])

    def kill(self) -> None:
        """SIGKILL: no cleanup, no checkpoint, nothing flushed by the desk."""
        self.child.send_signal(signal.SIGKILL)
        self.child.wait(timeout=30)


def stored_labels(path: Path) -> set[int]:
    """Ids of the label events the file holds (opened after the desk is gone)."""
    conn = sqlite3.connect(path)
    try:
        return {row[0] for row in conn.execute("SELECT id FROM labels")}
    finally:
        conn.close()


def seen_by_status(path: Path) -> int:
    """How many labels another process (``triage status``) sees."""
    done = triage("status", path, "--json")
    assert done.returncode == 0, done.stderr
    return int(json.loads(done.stdout)["label_events"])


def seen_by_another_program(path: Path) -> int:
    """How many labels another program sees that opens the file, reads and closes it.

    Python's ``sqlite3`` closing the last connection it knows of checkpoints the log into
    the file and deletes it: what a database browser does to the desk's log once the
    desk's locks are gone. (``triage status`` may leave its connection to the process's
    exit, so it does not provoke this every time.)"""
    code = ("import sqlite3, sys\n"
            "db = sqlite3.connect(sys.argv[1])\n"
            "print(db.execute('SELECT count(*) FROM labels').fetchone()[0])\n"
            "db.close()\n")
    done = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True,
                          text=True, check=True)
    return int(done.stdout)


def label_dialog_read_kill(path: Path, dialog: str, env: dict[str, str]) -> tuple:
    """3 labels, the dialog, another process reads, 5 labels, another read, SIGKILL.

    Returns (acknowledged ids, what status saw at the end, ids in the file after)."""
    desk = Desk(path, env)
    try:
        acknowledged = [desk.label() for _ in range(3)]
        assert desk.send(f"dialog {dialog}") == f"done {dialog}"
        seen_by_status(path)
        acknowledged += [desk.label() for _ in range(5)]
        seen = seen_by_status(path)
    finally:
        desk.kill()
    return acknowledged, seen, stored_labels(path)


def assert_kept(acknowledged: list[int], seen: int, stored: set[int]) -> None:
    """Every acknowledged label is in the file, and the other process saw them all."""
    assert len(acknowledged) == 8
    assert sorted(set(acknowledged) - stored) == [], "acknowledged labels lost"
    assert seen == len(acknowledged), "another process did not see every label"


@pytest.fixture(scope="module")
def display():
    """Xvfb with openbox (see scripts/realwindow_probe.py), or a skip saying what is missing."""
    from scripts.realwindow_probe import virtual_display

    try:
        with virtual_display() as name:
            yield name
    except SystemExit as why:
        pytest.skip(f"real-window tests: {why}")


DIALOG_NAMES = ["open", "new", "export", "report", "guidelines", "settings", "history", "chart"]


@pytest.mark.slow
@pytest.mark.parametrize("dialog", DIALOG_NAMES)
def test_every_dialog_in_a_real_window_keeps_every_label(tmp_path, display, dialog):
    """The durability tier: a real X window (Xvfb, openbox, Qt's xcb), each dialog used as a
    person would (it lists the project's folder), another process reads, SIGKILL."""
    path = make_project(tmp_path)
    env = {"QT_QPA_PLATFORM": "xcb", "DISPLAY": display, "TRIAGE_CONFIG_DIR": str(tmp_path / "config")}
    assert_kept(*label_dialog_read_kill(path, dialog, env))


@pytest.mark.slow
def test_export_report_through_qt_dialog_then_sigkill_keeps_every_label(tmp_path):
    """The issue's reproduction: 3 keys, Export report… through Qt's save dialog, a
    ``triage status``, 5 keys, SIGKILL: the file must hold all 8."""
    path = make_project(tmp_path)
    assert_kept(*label_dialog_read_kill(path, "report", {"QT_QPA_PLATFORM": "offscreen"}))


@pytest.mark.slow
def test_a_log_deleted_under_the_desk_is_noticed_and_no_label_lost(tmp_path):
    """The drop provoked on purpose: the desk notices before acknowledging, reopens the
    file, writes the label again and says so; the other process sees every label."""
    path = make_project(tmp_path)
    desk = Desk(path, {"QT_QPA_PLATFORM": "offscreen"})
    try:
        acknowledged = [desk.label() for _ in range(3)]
        assert desk.send("drop") == "dropped"
        assert seen_by_another_program(path) == 3   # ...which deleted the desk's log
        assert not Path(f"{path}-wal").exists()
        acknowledged.append(desk.label())
        said = desk.send("say")
        acknowledged += [desk.label() for _ in range(4)]
        seen = seen_by_status(path)
    finally:
        desk.kill()
    assert "reopened the file and saved your last decision again" in said
    assert seen == 8
    assert set(acknowledged) <= stored_labels(path)


def _threads_of(trace: list[str]) -> set[int]:
    """The desk's own threads in an ``strace -f`` log (not its helper processes)."""
    threads = {int(trace[0].split()[0])}
    for line in trace:
        found = re.match(r"(\d+)\s+clone3?\((.*)\)\s*=\s*(\d+)", line)
        if found and "CLONE_THREAD" in found[2] and int(found[1]) in threads:
            threads.add(int(found[3]))
    return threads


def opened_behind_sqlites_back(trace: list[str], path: Path) -> list[str]:
    """Opens of the project file (or its logs) by the desk's process not made by SQLite.

    SQLite's unix VFS opens every file with O_NOFOLLOW; Python's open(), Qt's MIME
    sniffing and other libraries do not."""
    threads = _threads_of(trace)
    found = []
    for line in trace:
        hit = re.match(r'(\d+)\s+openat\(AT_FDCWD, "([^"]*)", ([^)]*)\)', line)
        if hit and int(hit[1]) in threads and hit[2].startswith(str(path)) \
                and "ENOENT" not in line and "O_NOFOLLOW" not in hit[3]:
            found.append(line)
    return found


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("strace") is None, reason="needs strace")
def test_no_dialog_opens_the_project_file_in_the_desks_process(tmp_path):
    """Every dialog in one desk process under ``strace -f``: only SQLite opens the file."""
    path = make_project(tmp_path)
    trace = tmp_path / "trace.txt"
    commands = "".join(f"label\ndialog {name}\n" for name in DIALOG_NAMES) + "label\nquit\n"
    done = subprocess.run(
        ["strace", "-f", "-e", "trace=openat,clone,clone3", "-o", str(trace),
         sys.executable, "-m", "tests.desk_child", str(path)],
        input=commands, capture_output=True, text=True, cwd=ROOT, timeout=900,
        env={**os.environ, "PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen",
             "TRIAGE_CONFIG_DIR": str(tmp_path / "config")})
    if not trace.exists() or "ptrace" in done.stderr:
        pytest.skip(f"strace cannot trace here: {done.stderr[-300:]}")
    answers = done.stdout.split("\n")
    assert answers.count("done " + DIALOG_NAMES[-1]) == 1, done.stdout + done.stderr[-2000:]
    assert sum(a.startswith("ack ") for a in answers) == len(DIALOG_NAMES) + 1
    assert opened_behind_sqlites_back(trace.read_text().splitlines(), path) == []
