"""Small builders shared by core tests: write a CSV pool and make a project from it."""

from __future__ import annotations

import contextlib
import csv
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from triage.ingest.importer import ColumnMapping
from triage.project import Project, create_project
from triage.store.settings import LabelOption, Settings

SCHEME = (LabelOption("idiom", "i"), LabelOption("literal", "l"))


def write_pool(path: Path, rows: list[dict]) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


def pool_rows(n: int, *, positives_every: int = 3) -> list[dict]:
    """n candidates; m1 ranks them in key order, m2 in reverse; every k-th is an idiom."""
    return [
        {"key": f"c{i:04d}", "text": f"phrase number {i}", "m1": f"{1 - i / n:.6f}",
         "m2": f"{i / n:.6f}", "gold": "idiom" if i % positives_every == 0 else "literal"}
        for i in range(n)
    ]


def make_project(tmp_path: Path, n: int = 30, **settings) -> Project:
    src = write_pool(tmp_path / "pool.csv", pool_rows(n))
    base = dict(labels=SCHEME, positive_labels=("idiom",), price_per_item=0.04)
    base.update(settings)
    project = create_project(tmp_path / "p.triage", Settings(**base))
    project.import_file(src, ColumnMapping(text="text", key="key",
                                           scores=(("m1", "m1"), ("m2", "m2")), gold="gold"))
    return project


def label_top(project: Project, annotator: str, count: int, value: str = "idiom") -> None:
    """``annotator`` labels the next ``count`` candidates served, all with ``value``."""
    session = project.start_session(annotator)
    for _ in range(count):
        item = project.next_candidate(session)
        assert item is not None
        project.record_label(session, item.candidate_id, value)


DATA_DIR = Path(__file__).resolve().parent / "data"   # real data, each with its licence


@contextlib.contextmanager
def mounted(where: Path, mount_args: list[str], what: str) -> Iterator[Path]:
    """Mount at a new folder ``where`` (``mount ARGS where``), lazily unmounted after.

    Skips the test, naming ``what`` and mount's own message, when the mount fails.
    """
    where.mkdir()
    done = subprocess.run(["mount", *mount_args, str(where)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot {what} here: {done.stderr.strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True)
