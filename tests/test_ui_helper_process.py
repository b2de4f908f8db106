"""The helper processes: results as computed in the desk's process, the advice helper
running below the desk's priority so that it never takes the processor from it."""

from __future__ import annotations

import multiprocessing
import os

import numpy as np
import pytest

from tests.helpers import label_top, make_project
from triage.views import tasks
from ui import advice_process


@pytest.mark.slow  # several seconds: a whole window driven to its end
@pytest.mark.skipif(not hasattr(os, "getpriority"), reason="process priorities are POSIX")
def test_advice_helper_runs_below_the_desk(tmp_path):
    project = make_project(tmp_path, n=30)
    expected = project.offline_curves()
    project.close()
    try:
        curves = advice_process.helper_call(tasks.CURVES, tmp_path / "p.triage")
        helper = advice_process.HELPERS_RUNNING.process("advice")
        ours = os.getpriority(os.PRIO_PROCESS, 0)
        assert os.getpriority(os.PRIO_PROCESS, helper.pid) == min(19, ours + 10)
    finally:
        advice_process.stop_helper("advice")
    assert set(curves) == set(expected)
    for name, values in expected.items():
        assert np.array_equal(curves[name], values)


@pytest.mark.skipif("forkserver" not in multiprocessing.get_all_start_methods(),
                    reason="no forkserver here: every helper is spawned")
def test_once_the_desk_has_settled_helpers_fork_from_a_server_that_has_their_imports(
        tmp_path):
    project = make_project(tmp_path, n=30)
    label_top(project, "ada", 4)
    path = tmp_path / "p.triage"
    for helper in ("lead", "advice"):   # a desk that has settled before any helper started
        advice_process.stop_helper(helper)
    advice_process.prepare_lead_helpers()
    try:
        assert advice_process.helper_call(tasks.DISAGREEMENTS, path) == []
        curves = advice_process.helper_call(tasks.CURVES, path)
        # The processes these helpers run now (an earlier test's helper, stopped but not
        # yet reaped, may still be among multiprocessing's children under the same name).
        kinds = {name: type(advice_process.HELPERS_RUNNING.process(name)).__name__
                 for name in ("lead", "advice")}
        assert kinds == {"lead": "ForkServerProcess", "advice": "ForkServerProcess"}
        helper = advice_process.HELPERS_RUNNING.process("advice")   # forked, still below the desk
        ours = os.getpriority(os.PRIO_PROCESS, 0)
        assert os.getpriority(os.PRIO_PROCESS, helper.pid) == min(19, ours + 10)
    finally:
        advice_process.stop_helper("lead")
        advice_process.stop_helper("advice")
    assert set(curves) == set(project.offline_curves())
    project.close()
