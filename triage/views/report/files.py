"""Writing the report to a file: HTML or PDF by the extension, atomically."""

from __future__ import annotations

from collections.abc import Callable, Sequence
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


def render_report(data: dict[str, Any], fmt: str, drawn: dict[str, Any] | None = None,
                  begun: Any = None) -> bytes:
    """The report's bytes in ``fmt`` ('html' or 'pdf') from :func:`build_report_data`.

    ``drawn``: charts of that format drawn already (see :func:`.charts.drawn_charts`);
    ``begun``: the PDF's first pages, laid out ahead (see :func:`.pdf.begin_pdf`)."""
    if fmt == "html":
        from triage.views.report.html import render_html

        return render_html(data, drawn).encode("utf-8")
    from triage.views.report.pdf import render_pdf

    return render_pdf(data, drawn, begun)


def _side_sections(project: Any, names: tuple[str, ...], bootstrap: int,
                   seed: int) -> dict[str, Any]:
    from triage.views.report.data import side_sections

    return side_sections(project, names, bootstrap=bootstrap, seed=seed)


def _side_first(project: Any) -> dict[str, Any]:
    from triage.project.kept_rankings import keep_rankings
    from triage.views.report.data import side_first

    keep_rankings(project.db)   # the child reads each model's ranking once, not seven times
    return side_first(project)


def _side_imports() -> None:
    """What the child imports while the parent opens the project (it waits meanwhile)."""
    import importlib

    for module in ("numpy.ma", "numpy.random", "triage.views.report.data", "triage.views.models",
                   "triage.stats.models.report", "triage.stats.gain", "triage.project.gain",
                   "triage.project.adjudication", "triage.project.report"):
        importlib.import_module(module)


def report_data_at(project_path: str | Path, *, bootstrap: int = 1000, seed: int = 0,
                   progress: Progress | None = None, images: bool = True,
                   early: Callable[[dict[str, Any]], None] | None = None,
                   side_parts: tuple[str, ...] = ("models", "agreement", "samples"),
                   ) -> dict[str, Any]:
    """The report's data for the project at ``project_path``, on both cores where safe.

    Where a child may be forked (:func:`.side.can_fork`: the command line) the parts named
    in ``side_parts`` (of data.SIDE_PARTS: the models' section, the agreement section, the
    samples section's reads) are computed in one while this process computes the rest (and
    ``early`` draws the first charts); elsewhere, or if the child fails, here alone. The
    data is the same either way."""
    from triage.base.address import is_server_url
    from triage.views.report.side import start_side

    # Forked before this process imports what only it needs (the child imports its own),
    # so the names are those of data.SIDE_PARTS written out.
    names = side_parts
    side = None if is_server_url(project_path) else start_side(
        project_path, lambda project: _side_sections(project, names, bootstrap, seed), names,
        prepare=_side_imports, first=_side_first)
    try:
        from triage.project.files import open_project
        from triage.views.report.data import build_report_data

        with open_project(project_path) as project:
            if side is not None:
                side.go()
            return build_report_data(project, bootstrap=bootstrap, seed=seed,
                                     progress=progress, images=images, side=side,
                                     early=early)
    finally:
        if side is not None:
            side.close()


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
    outs = [Path(out)] if isinstance(out, (str, Path)) else [Path(o) for o in out]
    formats = [report_format(o) for o in outs]
    drawn: dict[str, dict[str, Any]] = {fmt: {} for fmt in formats}

    documents: dict[str, Any] = {}

    def early(first: dict[str, Any]) -> None:
        from triage.views.report.charts import drawn_charts

        for fmt in drawn:   # drawn while the side's sections are computed
            drawn[fmt] = drawn_charts(first, fmt)
        if "html" in drawn:   # the page's template compiled meanwhile
            from triage.views.report.html import template

            template()
        if "pdf" in drawn:   # the PDF's library imported, its fonts read, its first pages
            from triage.views.report.pdf import begin_pdf

            documents["pdf"] = begin_pdf(first, drawn["pdf"])

    # What each process computes, balanced for a report that is drawn: the second process
    # takes the models and the samples' reads; this one the agreement (since its charts are
    # drawn without matplotlib and the advice without scipy, it had time to spare while
    # the second process finished last, for a page and a PDF alike).
    parts = ("models", "samples")
    data = report_data_at(project_path, bootstrap=bootstrap, seed=seed, progress=progress,
                          images=images, early=early, side_parts=parts)
    from triage.views.report.data import STEPS

    payloads = [render_report(data, fmt, drawn[fmt], documents.pop(fmt, None))
                for fmt in formats]
    if progress is not None and progress(STEPS, STEPS) is False:
        raise TriageError("the report was cancelled; nothing was written")
    for target, payload in zip(outs, payloads, strict=True):
        _write_atomically(target, payload)
    return data
