"""Writing the report to a file: HTML or PDF by the extension, atomically."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from triage.base.errors import TriageError
from triage.base.progress import Progress as Progress

FORMATS = {".html": "html", ".htm": "html", ".pdf": "pdf"}


def report_format(out: str | Path) -> str:
    """'html' or 'pdf' from the file name; a TriageError for anything else."""
    fmt = FORMATS.get(Path(out).suffix.lower())
    if fmt is None:
        raise TriageError(f"{out}: unknown report format; use .html or .pdf")
    return fmt


def _write_atomically(out: Path, payload: bytes) -> None:
    """Write to a temporary file beside ``out``, flush it to disk, then rename it over."""
    from triage.ingest.atomic import atomic_file

    with atomic_file(out, binary=True) as handle:
        handle.write(payload)


def render_report(data: dict[str, Any], fmt: str) -> bytes:
    """The report's bytes in ``fmt`` ('html' or 'pdf') from :func:`build_report_data`."""
    if fmt == "html":
        from triage.views.report.html import render_html

        return render_html(data).encode("utf-8")
    from triage.views.report.pdf import render_pdf

    return render_pdf(data)


def write_report(project_path: str | Path, out: str | Path | Sequence[str | Path], *,
                 bootstrap: int = 1000, seed: int = 0, progress: Progress | None = None,
                 images: bool = True) -> dict[str, Any]:
    """Build the report of the project at ``project_path`` and write it to ``out``.

    ``out`` may be several files (``report.html`` and ``report.pdf``): the data is built
    once and rendered into each. Opens its own connection, so it can run on a worker thread
    while the desk goes on. ``progress(done, total)`` may return False to cancel; nothing
    is then written. ``images=False`` leaves the pictures' thumbnails out. Returns the
    report's data.
    """
    from triage.project.files import open_project
    from triage.views.report.data import STEPS, build_report_data

    outs = [Path(out)] if isinstance(out, (str, Path)) else [Path(o) for o in out]
    formats = [report_format(o) for o in outs]
    with open_project(project_path) as project:
        data = build_report_data(project, bootstrap=bootstrap, seed=seed, progress=progress,
                                 images=images)
    payloads = [render_report(data, fmt) for fmt in formats]
    if progress is not None and progress(STEPS, STEPS) is False:
        raise TriageError("the report was cancelled; nothing was written")
    for target, payload in zip(outs, payloads, strict=True):
        _write_atomically(target, payload)
    return data
