"""One desk as its own process, for the multi-desk tests: label through the Project API.

``python -m tests.pg.desk_worker URL ROLE COUNT [--hold-after K]`` opens the team project
as login role ROLE (the desk's own code path: open_project → start_session →
next_candidate → record_label) and labels COUNT candidates, printing ``ACK label_id
candidate_id`` after each acknowledged label, then ``DONE``. With ``--hold-after K`` it
takes the next candidate after K labels, prints ``HOLD candidate_id`` and waits (to be
killed holding its lease).
"""

from __future__ import annotations

import argparse
import sys
import time

from triage.base.errors import BusyError
from triage.project import open_project


def next_candidate(project, session):
    """The next candidate, asking again while other desks win every race (as the desk does)."""
    while True:
        try:
            return project.next_candidate(session)
        except BusyError:
            print("BUSY", flush=True)
            time.sleep(0.05)


def main(argv: list[str] | None = None) -> int:
    """Run one desk; see the module docstring."""
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("role")
    parser.add_argument("count", type=int)
    parser.add_argument("--hold-after", type=int, default=None)
    args = parser.parse_args(argv)
    project = open_project(args.url)
    session = project.start_session(args.role)
    print("READY", flush=True)
    for n in range(args.count):
        item = next_candidate(project, session)
        if item is None:
            break
        if args.hold_after is not None and n == args.hold_after:
            print(f"HOLD {item.candidate_id}", flush=True)
            time.sleep(600)
        value = "idiom" if item.candidate_id % 3 == 0 else "literal"
        label_id = project.record_label(session, item.candidate_id, value, seconds=1.0)
        print(f"ACK {label_id} {item.candidate_id}", flush=True)
    project.end_session(session)
    project.close()
    print("DONE", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
