"""The start-up policy: each measure applies within its version bounds, and only there."""

from __future__ import annotations

import gc
import subprocess
import sys

from triage.base import startup

MASKED = ("import sys; from triage.base import startup; {setup}; startup.import_sqlite_utils(); "
          "print('sqlite_utils' in sys.modules, 'pandas' in sys.modules); "
          "import pandas; print(pandas.__name__)")


def run(code: str) -> list[str]:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return out.stdout.split()


def test_sqlite_utils_loads_without_pandas_within_its_bounds_and_pandas_still_imports():
    assert run(MASKED.format(setup="pass")) == ["True", "False", "pandas"]


def test_outside_the_bounds_sqlite_utils_is_imported_plainly():
    setup = "startup.SQLITE_UTILS_BOUNDS = ((0, 0), (1, 0))"
    assert run(MASKED.format(setup=setup)) == ["True", "True", "pandas"]


def test_the_installed_version_is_read_without_importing_the_package():
    import importlib.metadata

    version = startup.installed_version("sqlite-utils", "sqlite_utils")
    assert version == tuple(int(p) for p in importlib.metadata.version("sqlite-utils").split(".")[:2])
    assert startup.installed_version("no-such-thing", "json") is None


def test_a_quick_read_pauses_the_collector_until_it_returns():
    assert gc.isenabled()
    try:
        startup.prepare_command("export")
        assert gc.isenabled()
        startup.prepare_command("agree")
        assert not gc.isenabled()
    finally:
        startup.command_finished()
    assert gc.isenabled()


def test_the_collector_runs_again_after_a_command_run_in_process(tmp_path):
    from triage.cli.program import main

    assert main(["status", str(tmp_path / "missing.triage")]) == 2
    assert gc.isenabled()


def test_a_command_that_forks_first_starts_no_thread_and_pauses_the_collector():
    got = run("import gc, threading; from triage.base import startup; "
              "print(startup.prepare_command('report')); "
              "print(threading.active_count(), gc.isenabled()); "
              "startup.command_finished(); print(gc.isenabled())")
    assert got == ["None", "1", "False", "True"]


def test_the_leads_quick_commands_never_import_scipy(tmp_path):
    # One project state's bounds are computed without scipy: warming its import on a
    # thread (as these commands did) spent a third of a second of CPU for nothing.
    from tests.helpers import label_top, make_project

    project = make_project(tmp_path, n=60)
    label_top(project, "ada", 20)
    project.close()
    path = tmp_path / "p.triage"
    for command in ("status", "advise", "gain"):
        got = run("import sys, contextlib, io; from triage.cli.program import main; "
                  "out = io.StringIO(); r = contextlib.redirect_stdout(out); r.__enter__(); "
                  f"code = main([{command!r}, {str(path)!r}]); r.__exit__(None, None, None); "
                  "print(code, 'scipy' in sys.modules)")
        assert got == ["0", "False"], command
