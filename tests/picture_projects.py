"""A labelled picture project for the gallery and report tests: the crafted pool of
tests/picture_files.py (red, blue, then the hostile files), labelled by two annotators.

ada says every picture is a defect; bea agrees on the odd ranks and says "fine" on the even
ones. So ranks 1, 3, 5 and 7 (red, truncated, bomb, SVG) are positives found, and ranks 2,
4 and 6 (blue, missing, EXIF-rotated) are disagreements (ties): of those seven pictures
three can be shown (red, blue, rotated) and four cannot.
"""

from __future__ import annotations

from pathlib import Path

from tests.picture_files import picture_pool
from triage.cli.program import main as cli
from triage.project import open_project

POSITIVE_KEYS = ["1", "3", "5", "7"]
DISAGREEMENT_KEYS = ["2", "4", "6"]
SHOWN = {"1", "2", "6"}        # the keys whose pictures can be shown


def labelled_picture_project(folder: Path) -> Path:
    """Create, label and close the project; its path."""
    pool = picture_pool(folder / "data")
    path = folder / "p.triage"
    assert cli(["new", str(path), str(pool), "--image", "picture", "--score", "m=score",
                "--labels", "defect:d,fine:f", "--positive", "defect", "--overlap-rate", "0",
                "--audit-rate", "0"]) == 0
    with open_project(path) as project:
        ids = [row[0] for row in project.db.execute("SELECT id FROM candidates ORDER BY id")]
        ada, bea = project.start_session("ada"), project.start_session("bea")
        for n, cid in enumerate(ids, start=1):
            project.record_label(ada, cid, "defect")
            project.record_label(bea, cid, "defect" if n % 2 else "fine")
        project.end_session(ada)
        project.end_session(bea)
    return path
