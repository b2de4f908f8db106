"""Several processes opening a team project at once on a machine with no replica yet.

Each one finds no replica and sets out to make it; all must succeed, and the replica
they end up sharing must be a whole Triage project with no row set aside (two pulls
racing to write the same rows must not refuse each other's).
"""

from __future__ import annotations

import multiprocessing
import traceback

import pytest

from tests.pg.team_setup import publish


def _open_once(url: str, cache: str, start, results) -> None:
    import os

    os.environ["TRIAGE_CACHE_DIR"] = cache
    from triage.project import open_project

    start.wait(30)
    try:
        project = open_project(url)
        try:
            results.put(("ok", project.pool, project.server_problems))
        finally:
            project.close()
    except BaseException:  # report every failure to the test, whatever it is
        results.put(("failed", traceback.format_exc()))


@pytest.mark.slow
def test_three_first_opens_at_once_all_succeed_ten_times(pg, pg_url, tmp_path):
    publish(pg, pg_url(), tmp_path, n=30, leads=("race_lead",))
    url = pg_url("race_lead")
    ctx = multiprocessing.get_context("fork")
    for attempt in range(10):
        cache = str(tmp_path / f"cache{attempt}")
        start, results = ctx.Barrier(3), ctx.Queue()
        workers = [ctx.Process(target=_open_once, args=(url, cache, start, results))
                   for _ in range(3)]
        for worker in workers:
            worker.start()
        outcomes = [results.get(timeout=120) for _ in workers]
        for worker in workers:
            worker.join(60)
        assert outcomes == [("ok", 30, None)] * 3, (attempt, "\n".join(str(o[1]) for o in outcomes))
