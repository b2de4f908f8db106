"""One SQLite engine per process, for the bulk paths: the import's ADBC writer runs in a
child process, so the importing process never loads the driver's own SQLite and keeps
its locks on the project file; progress, a cancel and the result come back across."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import SCHEME, pool_rows, write_pool
from tests.test_one_engine import held_locks
from triage.base.errors import TriageError
from triage.ingest.importer import ColumnMapping
from triage.project import create_project
from triage.store.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
MAPPING = ColumnMapping(text="text", key="key", scores=(("m1", "m1"), ("m2", "m2")), gold="gold")

# Run in a fresh interpreter: what this process loaded for other tests does not count.
SCRIPT = """
import sys
from pathlib import Path
import triage.store.poolwrite as poolwrite
from tests.helpers import SCHEME
from tests.test_one_engine import held_locks
from triage.ingest.importer import ColumnMapping
from triage.project import create_project
from triage.store.settings import Settings

poolwrite.SMALL_ROWS = 0  # the bulk path, whatever the size
folder = Path(sys.argv[1])
project = create_project(folder / "p.triage", Settings(labels=SCHEME, positive_labels=("idiom",)))
seen = []
project.import_file(folder / "pool.csv", ColumnMapping(
    text="text", key="key", scores=(("m1", "m1"), ("m2", "m2")), gold="gold"),
    progress=lambda done, total: seen.append((done, total)))
rows = project.db.execute("SELECT count(*), min(id), max(id) FROM candidates").fetchone()
plan = project.db.execute("SELECT count(*) FROM plan WHERE kind = 'overlap'").fetchone()[0]
models = [r[0] for r in project.db.execute("SELECT name FROM models ORDER BY id")]
maps = Path("/proc/self/maps").read_text()
from triage.store.content import deep_problems
deep = deep_problems(project.db.conn)
print(rows, plan, models, seen[-1][0] == seen[-1][1], held_locks(project.path) > 0,
      deep.damaged, deep.unhashed_candidates)
print("driver loaded:", "adbc_driver_sqlite" in maps or "libadbc" in maps)
"""


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="reads /proc/self/maps")
def test_the_bulk_import_never_loads_a_second_sqlite_into_the_process(tmp_path):
    write_pool(tmp_path / "pool.csv", pool_rows(3000))
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path)], capture_output=True,
                          text=True, cwd=ROOT, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    first, second = done.stdout.strip().splitlines()
    assert first == "(3000, 1, 3000) 300 ['m1', 'm2'] True True [] 0"  # checksums too
    assert second == "driver loaded: False"


def test_a_cancel_reaches_the_child_and_leaves_the_project_empty(tmp_path, monkeypatch):
    import triage.store.bulkrun as bulkrun
    import triage.store.poolwrite as poolwrite

    monkeypatch.setattr(poolwrite, "SMALL_ROWS", 0)
    sent = []
    original = bulkrun.write
    monkeypatch.setattr(bulkrun, "write", lambda *a, **k: (sent.append(a[0]), original(*a, **k)))
    src = write_pool(tmp_path / "pool.csv", pool_rows(3000))
    calls = []

    def cancel_once_writing(done: int, total: int) -> bool:
        calls.append(done)
        return len(calls) < 2  # the first call reports the read; the next, rows written

    with create_project(tmp_path / "p.triage",
                        Settings(labels=SCHEME, positive_labels=("idiom",))) as project:
        with pytest.raises(TriageError, match="cancelled"):
            project.import_file(src, MAPPING, progress=cancel_once_writing)
        assert sent == [str(project.path.resolve())]
        assert project.db.execute("SELECT count(*) FROM candidates").fetchone()[0] == 0
        assert held_locks(project.path) > 0
        project.import_file(src, MAPPING)  # and the same import works afterwards
        assert project.db.execute("SELECT count(*) FROM candidates").fetchone()[0] == 3000
        assert len(sent) == 2


def test_the_childs_refusal_comes_back_as_its_sentence(tmp_path):
    from triage.store import bulkrun

    with pytest.raises(TriageError, match="already has its candidates"):
        bulkrun.raise_reported(("error", "TriageError",
                                "this project already has its candidates; use --add-scores"))
    with pytest.raises(RuntimeError, match="InternalError: database or disk is full"):
        bulkrun.raise_reported(("error", "InternalError", "database or disk is full"))
    with pytest.raises(RuntimeError, match="ended without saying how"):
        bulkrun.raise_reported(None)
