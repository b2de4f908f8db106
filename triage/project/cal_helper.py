"""The cal trainer's entry point in the desk's helper process (see :mod:`triage.project.cal`).

The helper opens the project read-only on its own connection (it is another process), fits
when enough new labels came in, and hands the snapshot back; the desk stores it through
its writer. The feature matrix stays in the helper between fits.
"""

from __future__ import annotations

from pathlib import Path

from triage.project import cal
from triage.stats.models.cal import CalConfig
from triage.store.calsnap import CalSnapshot


def train_cal_at(path: str | Path, force: bool = False) -> CalSnapshot | None:
    """In the helper process: open the project read-only, fit if due (or ``force``)."""
    from triage.project.files import open_for_reading

    project = open_for_reading(path)
    try:
        db, settings = project.state.db, project.state.settings
        config = CalConfig(seed=settings.seed)
        if not force and not cal.due(db, settings, config):
            return None
        return cal.train_snapshot(db, settings, config)
    finally:
        project.close()


__all__ = ["train_cal_at"]
