"""Each fault against each command: one sentence on stderr, a clean exit code, no traceback.

A full disk, a read-only folder, a lock, a damaged page and a
half-written (killed) import. A real small file system (tmpfs) is used when we are root;
otherwise those cases are skipped, saying why.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.helpers import mounted, pool_rows, write_pool
from tests.test_cli_core import ROOT, triage

NEW_ARGS = ("--text", "text", "--key", "key", "--score", "m1=m1", "--score", "m2=m2",
            "--gold", "gold", "--labels", "idiom:i,literal:l", "--positive", "idiom")


def new(project: Path, pool: Path):
    return triage("new", project, pool, *NEW_ARGS)


def make(folder: Path, n: int = 300) -> tuple[Path, Path]:
    pool = write_pool(folder / "pool.csv", pool_rows(n))
    project = folder / "p.triage"
    out = new(project, pool)
    assert out.returncode == 0, out.stderr
    return project, pool


def commands(project: Path, pool: Path, out_dir: Path) -> dict[str, tuple]:
    """Every command a user meets a fault with, by name."""
    more = write_pool(out_dir / "more.csv", pool_rows(300))  # a later model's scores
    return {
        "new": ("new", project.with_name("fresh.triage"), pool, *NEW_ARGS),
        "import": ("import", project, more, "--add-scores", "--key", "key", "--score", "m3=m1"),
        "config": ("config", project, "--budget", "12"),
        "status": ("status", project),
        "export": ("export", project, out_dir / "out.csv"),
        "report": ("report", project, "-o", out_dir / "r.html", "--bootstrap", "0"),
        "check": ("check", project),
    }


def assert_clean(name: str, out, *, codes=(0,), says: str | None = None) -> None:
    assert "Traceback" not in out.stderr, f"{name}:\n{out.stderr}"
    assert out.returncode in codes, f"{name}: exit {out.returncode}\n{out.stderr}"
    if out.returncode not in (0, 1):
        lines = out.stderr.strip().splitlines()
        assert lines and lines[-1].startswith("triage: "), f"{name}: {out.stderr!r}"
        assert len(lines[-1]) < 600
    if says is not None:
        assert says in (out.stderr + out.stdout).lower(), f"{name}: {out.stderr}{out.stdout}"


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# -- a small file system --------------------------------------------------------------------


@contextlib.contextmanager
def tmpfs(where: Path, size: str):
    if os.geteuid() != 0:
        pytest.skip("needs root to mount a small tmpfs (the full-disk and read-only cases)")
    with mounted(where, ["-t", "tmpfs", "-o", f"size={size}", "tmpfs"], "mount a tmpfs"):
        yield where


def fill(folder: Path) -> None:
    """Take every free byte of ``folder``'s file system.

    Unbuffered writes: a buffered file would fail again when closing flushes its rest.
    """
    for name, size in (("filler", 65536), ("filler2", 512), ("filler3", 1)):
        block = b"\0" * size
        with contextlib.suppress(OSError), open(folder / name, "wb", buffering=0) as handle:
            while handle.write(block):
                pass


@pytest.mark.slow
def test_a_full_disk_gives_a_sentence_for_every_command(tmp_path):
    project, pool = make(tmp_path)
    with tmpfs(tmp_path / "small", "2m") as small:
        here = small / "p.triage"
        here.write_bytes(project.read_bytes())
        fill(small)
        runs = commands(here, pool, tmp_path)
        for name, args in runs.items():
            out = triage(*args)
            if name in ("new", "import", "config"):
                assert_clean(name, out, codes=(2,), says="full")
                assert "free at least" in out.stderr
            else:  # reading works; what it writes goes to a folder with room
                assert_clean(name, out)
        assert not (small / "fresh.triage").exists()
        assert sorted(p.name for p in small.iterdir() if p.name.startswith("p.triage")) \
            == ["p.triage"]  # no -wal/-shm left beside the refused file


@pytest.mark.slow
def test_a_read_only_folder_opens_for_reading_and_refuses_writes(tmp_path):
    project, pool = make(tmp_path)
    with tmpfs(tmp_path / "ro", "4m") as folder:
        here = folder / "p.triage"
        here.write_bytes(project.read_bytes())
        before = digest(here)
        subprocess.run(["mount", "-o", "remount,ro", str(folder)], check=True)
        for name, args in commands(here, pool, tmp_path).items():
            out = triage(*args)
            if name in ("new", "import", "config"):
                assert_clean(name, out, codes=(2,))
                assert "read-only" in out.stderr or "cannot be written" in out.stderr, out.stderr
            else:
                assert_clean(name, out)
        assert digest(here) == before
        status = triage("status", here)
        assert "300" in status.stdout


def corrupt_a_candidates_page(project: Path) -> None:
    with sqlite3.connect(project) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        page = conn.execute("SELECT pageno FROM dbstat WHERE name = 'candidates' "
                            "AND pagetype = 'leaf' LIMIT 1 OFFSET 1").fetchone()[0]
    conn.close()
    with open(project, "r+b") as handle:
        handle.seek((page - 1) * 4096 + 300)
        handle.write(os.urandom(256))


@pytest.mark.slow  # seconds: the fast tier keeps make test within 5 minutes
def test_a_damaged_page_is_refused_before_anything_writes(tmp_path):
    project, pool = make(tmp_path)
    corrupt_a_candidates_page(project)
    before = digest(project)
    for name, args in commands(project, pool, tmp_path).items():
        out = triage(*args)
        if name == "new":
            assert_clean(name, out)  # another file: unaffected
        elif name == "check":
            assert_clean(name, out, codes=(1,), says="damaged")
        else:
            assert_clean(name, out, codes=(2,), says="damaged")
            assert "triage check" in out.stderr
    assert digest(project) == before
    assert not any(Path(f"{project}{log}").exists() for log in ("-wal", "-shm", "-journal"))


def test_a_truncated_project_is_refused_as_damaged_and_the_backup_named(tmp_path):
    from triage.base.errors import DamagedProject
    from triage.project import open_project
    from triage.store import integrity

    project, _pool = make(tmp_path)
    integrity.rolling_backup(project, 1.0)
    with open(project, "r+b") as handle:
        handle.truncate(project.stat().st_size // 2)
    with pytest.raises(DamagedProject, match=r"is damaged .*p\.triage\.backup"):
        open_project(project)


@pytest.mark.slow
def test_the_backup_is_offered_for_a_damaged_project(tmp_path):
    from triage.project.checkup import check_file
    from triage.store import integrity

    project, _pool = make(tmp_path)
    assert integrity.rolling_backup(project, 1.0) == tmp_path / "p.triage.backup"
    assert integrity.rolling_backup(project, 1.0) is None  # at most one a day
    corrupt_a_candidates_page(project)
    out = triage("status", project)
    assert "p.triage.backup" in out.stderr
    report = check_file(project)
    assert report.problems and report.backup == str(tmp_path / "p.triage.backup")
    (tmp_path / "p.triage.backup").replace(project)  # what the message says to do
    assert triage("status", project).returncode == 0


_HALF_WRITE = textwrap.dedent("""
    import os, sqlite3, sys
    conn = sqlite3.connect(sys.argv[1], isolation_level=None)
    conn.execute("PRAGMA journal_mode=DELETE")
    conn.execute("PRAGMA cache_size=5")  # spill to the file before the commit
    conn.execute("BEGIN")
    for i in range(3000):
        conn.execute("INSERT INTO candidates(key, text) VALUES (?, ?)", [f"half{i}", "x" * 200])
    os._exit(9)  # killed mid-transaction: a hot journal stays beside the file
""")


@pytest.mark.slow
def test_a_half_written_project_is_rolled_back_on_open(tmp_path):
    project, pool = make(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    subprocess.run([sys.executable, "-c", _HALF_WRITE, str(project)], env=env)
    assert Path(f"{project}-journal").stat().st_size > 0
    for name, args in commands(project, pool, tmp_path).items():
        assert_clean(name, triage(*args))
    status = triage("status", project, "--json")
    assert '"pool": 300' in status.stdout  # no half-written rows


@pytest.mark.slow
def test_a_locked_file_says_busy_without_a_traceback(tmp_path):
    project, pool = make(tmp_path)
    other = sqlite3.connect(project, isolation_level=None, timeout=0)
    other.execute("BEGIN IMMEDIATE")  # another program holds the write lock
    try:
        env_args = commands(project, pool, tmp_path)
        for name in ("status", "export"):  # readers are not blocked by a writer (WAL)
            assert_clean(name, triage(*env_args[name]))
    finally:
        other.execute("ROLLBACK")
        other.close()


@pytest.mark.slow
def test_a_locked_file_gives_the_busy_sentence_to_writers(tmp_path):
    project, pool = make(tmp_path)
    other = sqlite3.connect(project, isolation_level=None, timeout=0)
    other.execute("BEGIN IMMEDIATE")
    try:
        runs = commands(project, pool, tmp_path)
        for name in ("config", "import"):
            assert_clean(name, triage(*runs[name]), codes=(2,), says="busy")
    finally:
        other.execute("ROLLBACK")
        other.close()


def test_a_hot_journal_is_rolled_back_in_process(tmp_path):
    from triage.project import open_project

    project, _pool = make(tmp_path, n=30)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    subprocess.run([sys.executable, "-c", _HALF_WRITE, str(project)], env=env)
    assert Path(f"{project}-journal").stat().st_size > 0
    with open_project(project) as opened:
        assert opened.pool == 30
    assert not Path(f"{project}-journal").exists()
