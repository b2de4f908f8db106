"""``triage report PROJECT -o report.html|report.pdf``: the lead's report, and its data.

HTML is one self-contained page (charts inline as SVG); PDF is the same contents on A4,
made in pure Python. A pool of pictures adds small thumbnails of the disagreements and of
a sample of positives (JPEG inside the file); ``--no-images`` leaves them out. ``--json``
prints the report's data: every number behind every section and chart (the advice is
``advise --json``, the agreement ``agree --json`` and the model gain ``gain --json`` of
the same project); the thumbnails' bytes are left out of it, their reasons kept.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from triage.base.errors import TriageError
from triage.cli.commands._common import add_json_flag, emit
from triage.cli.commands._progress import ProgressBar
from triage.project.files import project_location


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``triage report`` to the command line."""
    p = sub.add_parser("report", help="the lead's report as self-contained HTML or PDF")
    p.add_argument("project", type=project_location)
    p.add_argument("-o", "--out", type=Path, metavar="OUT.html|OUT.pdf", action="append",
                   help="write the report here (format from the extension; atomic); give it "
                        "twice for HTML and PDF from one computation")
    p.add_argument("--bootstrap", type=int, default=1000, metavar="N",
                   help="bootstrap resamples for agreement intervals (1000, as agree)")
    p.add_argument("--seed", type=int, default=0, help="seed of the bootstrap and of model "
                   "comparisons (0)")
    p.add_argument("--no-images", action="store_true",
                   help="leave the pictures' thumbnails out (privacy); the counts stay")
    add_json_flag(p)
    p.set_defaults(func=run)


def _text(data: dict[str, Any]) -> str:
    sections = ("project", "spend", "gain", "yield", "advice", "agreement", "models",
                "samples", "pictures", "provenance")
    return "\n".join(f"{name}: {data[name]['reading']}" for name in sections if data.get(name))


def run(args: argparse.Namespace) -> int:
    """Write the report (``-o``) and/or print its data (``--json``)."""
    if args.out is None and not args.json:
        raise TriageError("give the output file with -o OUT.html or -o OUT.pdf (or --json)")
    if args.bootstrap < 0:
        raise TriageError("--bootstrap must be 0 or more")
    bar = ProgressBar("report")
    # The collector pauses while the report runs (the start-up policy's ``fork-first``).
    try:
        if args.out is not None:
            from triage.views.report import write_report

            data = write_report(args.project, args.out, bootstrap=args.bootstrap,
                                seed=args.seed, progress=bar, images=not args.no_images)
        else:
            from triage.views.report.files import report_data_at

            data = report_data_at(args.project, bootstrap=args.bootstrap, seed=args.seed,
                                  images=not args.no_images)
    finally:
        bar.finish()
    if args.out is not None and not args.json:
        names = " and ".join(str(o) for o in args.out)
        print(f"wrote the report of {args.project} to {names}")
        return 0
    from triage.views.report.data import without_thumbnails

    return emit(args, without_thumbnails(data), _text)
