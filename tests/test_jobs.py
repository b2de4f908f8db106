"""One way to run background work: the shared pool and its lanes (Qt-free), typed helper
tasks, and no thread pool, raw thread or executor made anywhere else."""

from __future__ import annotations

import re
import threading
from pathlib import Path

import pytest

from triage.base.jobs import Lane, Pool, lane, start
from triage.views import tasks

ROOT = Path(__file__).resolve().parent.parent
# The modules that may make threads or pools: the pool itself, the GUI's lanes, and the
# helper processes they own.
OWNERS = {"triage/base/jobs.py", "ui/jobs.py", "ui/advice_process.py"}
# Allowed elsewhere, with the reason.
EXCEPTIONS = {
    # Not a daemon: the interpreter waits for the backup copy at exit rather than tearing
    # SQLite down under it (a daemon thread inside sqlite3's backup crashed the process).
    "triage/project/checkup.py": "threading.Thread(",
}
MAKERS = re.compile(r"QThreadPool|threading\.Thread\(|ThreadPoolExecutor|ProcessPoolExecutor"
                    r"|\.Process\(|QThread\b|QRunnable")


def thread_makers(root: Path = ROOT) -> list[str]:
    """``path:line: text`` for each thread, pool or executor made outside the owners."""
    out = []
    for package in ("triage", "ui"):
        for path in sorted((root / package).rglob("*.py")):
            name = path.relative_to(root).as_posix()
            if name in OWNERS:
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                code = line.split("#", 1)[0]
                found = MAKERS.search(code)
                if found and EXCEPTIONS.get(name) != found.group(0):
                    out.append(f"{name}:{number}: {line.strip()}")
    return out


def test_no_thread_pool_thread_or_executor_is_made_outside_the_jobs_modules():
    assert thread_makers() == []


def test_the_check_catches_a_private_pool(tmp_path):
    (tmp_path / "ui").mkdir()
    (tmp_path / "triage").mkdir()
    (tmp_path / "ui" / "x.py").write_text("pool = QThreadPool()\n", encoding="utf-8")
    (tmp_path / "triage" / "y.py").write_text(
        "with ThreadPoolExecutor(2) as p:\n    t = threading.Thread(target=f)\n",
        encoding="utf-8")
    assert thread_makers(tmp_path) == ["triage/y.py:1: with ThreadPoolExecutor(2) as p:",
                                       "triage/y.py:2: t = threading.Thread(target=f)",
                                       "ui/x.py:1: pool = QThreadPool()"]


def test_every_helper_task_names_a_function_that_exists():
    for task in tasks.TASKS:
        assert callable(task.resolve()), task
        assert task.helper in tasks.HELPERS


def test_a_lane_runs_at_most_its_width_at_once_in_order():
    release = threading.Event()
    running, most, order = [0], [0], []
    guard = threading.Lock()

    def job(n: int) -> int:
        with guard:
            running[0] += 1
            most[0] = max(most[0], running[0])
        release.wait(10)
        with guard:
            running[0] -= 1
            order.append(n)
        return n * n

    two = Lane("test", 2, Pool(limit=8))
    futures = [two.submit(job, n) for n in range(6)]
    release.set()
    assert [f.result(10) for f in futures] == [0, 1, 4, 9, 16, 25]
    assert most[0] <= 2 and two.wait(10) and not two.busy
    one = Lane("serial", 1, Pool(limit=8))
    seen: list[int] = []
    for future in [one.submit(seen.append, n) for n in range(20)]:
        future.result(10)
    assert seen == list(range(20))   # one at a time: in the order given


def test_a_lane_is_a_drop_in_for_an_executor():
    with lane("map", 3) as pool:
        assert list(pool.map(lambda a, b: a + b, range(10), range(10), chunksize=4)) == [
            2 * n for n in range(10)]
        failing = pool.submit(lambda: 1 / 0)
        with pytest.raises(ZeroDivisionError):
            failing.result(10)


def test_a_waiting_job_can_be_cancelled_and_never_runs():
    gate = threading.Event()
    serial = Lane("cancel", 1, Pool(limit=4))
    first = serial.submit(gate.wait, 10)
    ran: list[int] = []
    second = serial.submit(ran.append, 1)
    assert second.cancel()
    gate.set()
    assert first.result(10) is True
    assert serial.wait(10) and ran == []


def test_the_pool_grows_to_its_limit_and_queues_the_rest():
    pool, gate = Pool(limit=4), threading.Event()
    futures = [pool.submit(gate.wait, 10) for _ in range(10)]
    assert pool.threads == 4   # ten jobs waiting, never more than four threads
    gate.set()
    assert all(f.result(10) for f in futures)
    assert start(lambda: "done", "one-off").result(10) == "done"


def test_the_interpreters_exit_waits_for_a_running_job(tmp_path):
    """A daemon thread still in a call at exit would be cut off mid-call (in a C++ call:
    the process aborts); exit lets the running job end and starts no queued one."""
    import subprocess
    import sys

    done, never = tmp_path / "done", tmp_path / "never"
    script = (
        "import time, pathlib\n"
        "from triage.base.jobs import Lane\n"
        "lane = Lane('exit', 1)\n"
        "started = __import__('threading').Event()\n"
        "def slow():\n"
        "    started.set(); time.sleep(0.5)\n"
        f"    pathlib.Path({str(done)!r}).write_text('ok')\n"
        "lane.submit(slow)\n"
        f"lane.submit(lambda: pathlib.Path({str(never)!r}).write_text('ran'))\n"
        "started.wait()\n")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            timeout=60, cwd=Path(__file__).resolve().parents[1])
    assert result.returncode == 0, result.stderr
    assert done.read_text() == "ok"
    assert not never.exists()

