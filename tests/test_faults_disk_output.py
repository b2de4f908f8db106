"""A full disk under the bulk import and under every output: the sentence names the disk.

``triage new`` on its fast path writes through ADBC's SQLite driver, whose errors are not
the standard library's; an export or a report written to a full disk is about the disk of
the output, not the project's. Each case: one sentence, exit 2, nothing half-written left
behind, and the same command works once there is room. A small tmpfs is the full disk
(root only; skipped otherwise, saying why).
"""

from __future__ import annotations

import csv
import subprocess
from pathlib import Path

import pytest

from tests.test_cli_core import triage
from tests.test_faults_cli import NEW_ARGS, assert_clean, fill, make, tmpfs


def big_pool(path: Path, rows: int = 20_000, bad: int | None = None) -> Path:
    """About 7 MB of pool: more than the 3 MB disk holds; ``bad``: a row with no score."""
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["key", "text", "m1", "m2", "gold"])
        for i in range(rows):
            score = "" if i == bad else f"{1 - i / rows:.6f}"
            writer.writerow([f"c{i:05d}", f"phrase {i} " + "word " * 60, score,
                             f"{i / rows:.6f}", "idiom" if i % 3 == 0 else "literal"])
    return path


def grow(folder: Path, size: str) -> None:
    subprocess.run(["mount", "-o", f"remount,size={size}", str(folder)], check=True)


@pytest.mark.slow
@pytest.mark.parametrize("careful", [False, True], ids=["bulk path", "careful path"])
def test_a_full_disk_during_new_says_so_leaves_nothing_and_a_rerun_works(tmp_path, careful):
    pool = big_pool(tmp_path / "pool.csv", bad=5 if careful else None)
    extra = ("--skip-invalid",) if careful else ()
    with tmpfs(tmp_path / "small", "3m") as small:
        project = small / "p.triage"
        out = triage("new", project, pool, *NEW_ARGS, *extra)
        assert_clean("new", out, codes=(2,), says="full")
        assert f"the disk holding {project} is full" in out.stderr, out.stderr
        assert "unexpected" not in out.stderr and "damaged" not in out.stderr
        assert [p.name for p in small.iterdir() if p.name.startswith("p.triage")] == []
        grow(small, "64m")
        again = triage("new", project, pool, *NEW_ARGS, *extra)
        assert again.returncode == 0, again.stderr
        status = triage("status", project)
        assert ("19,999" if careful else "20,000") in status.stdout


@pytest.mark.slow
def test_a_full_output_disk_names_the_output_and_leaves_nothing(tmp_path):
    project, _pool = make(tmp_path)
    with tmpfs(tmp_path / "out", "4m") as folder:
        fill(folder)
        runs = {"csv": ("export", project, folder / "e.csv"),
                "parquet": ("export", project, folder / "e.parquet"),
                "jsonl": ("export", project, folder / "e.jsonl"),
                # no labels: nothing to write, and still refused (not an empty file)
                "prodigy": ("export", project, folder / "e.jsonl", "--to", "prodigy"),
                "report": ("report", project, "-o", folder / "r.html", "--bootstrap", "0")}
        for name, args in runs.items():
            out = triage(*args)
            assert_clean(name, out, codes=(2,), says="full")
            written = args[2] if name != "report" else args[3]
            assert f"the disk holding {written} is full" in out.stderr, (name, out.stderr)
            assert str(project) not in out.stderr
            assert sorted(p.name for p in folder.iterdir()) == ["filler", "filler2", "filler3"]
        for filler in folder.iterdir():
            filler.unlink()
        for name, args in runs.items():
            out = triage(*args)
            assert out.returncode == 0, (name, out.stderr)


def test_the_bulk_writers_own_errors_are_recognised_wherever_they_are_raised(tmp_path):
    """ADBC's and Arrow's exceptions carry SQLite's and the system's words; so does a bulk
    write relayed from a child process as a plain RuntimeError. Other errors are not
    guessed at."""
    from triage.base.errors import WriteFailed
    from triage.store.faults import explain

    adbc = type("InternalError", (Exception,), {"__module__": "adbc_driver_manager"})
    where = tmp_path / "p.triage"
    for error in (adbc("INTERNAL: failed to execute: database or disk is full query was: "
                       "INSERT INTO main . \"candidates\""),
                  RuntimeError("bulk write failed: [Errno 28] No space left on device")):
        said = explain(error, where)
        assert isinstance(said, WriteFailed)
        assert str(said).startswith(f"the disk holding {where} is full")
    assert explain(ValueError("the disk is full of cats"), where) is None
    assert explain(adbc("INTERNAL: something else"), where) is None
