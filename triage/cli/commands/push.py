"""``triage push FILE URL``: publish a project file (pool, settings, labels) to a server."""

from __future__ import annotations

import argparse
from pathlib import Path

from triage.cli.commands._common import add_json_flag, emit


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``triage push`` to the command line."""
    p = sub.add_parser("push", help="publish a project file, labels and all, to a "
                       "PostgreSQL server for a team")
    p.add_argument("file", type=Path, metavar="FILE", help="the project file (never changed)")
    p.add_argument("url", metavar="URL", help="postgresql://[USER@]HOST[:PORT]/DB?project=NAME")
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run ``triage push``; returns the exit code."""
    from triage.store.pg.copy import push
    from triage.store.pg.url import parse_url

    url = parse_url(args.url)
    counts = push(args.file, url)
    data = {"file": str(args.file), "url": url.display, "rows": counts}
    return emit(args, data, lambda d: (
        f"pushed {d['file']} to {d['url']}: {d['rows'].get('candidates', 0):,} candidates, "
        f"{d['rows'].get('labels', 0):,} labels, {d['rows'].get('sessions', 0):,} sessions"))
