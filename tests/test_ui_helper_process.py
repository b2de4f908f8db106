"""The helper processes: results as computed in the desk's process, the advice helper
running below the desk's priority so that it never takes the processor from it."""

from __future__ import annotations

import os

import numpy as np
import pytest

from tests.helpers import make_project
from ui import advice_process


@pytest.mark.skipif(not hasattr(os, "getpriority"), reason="process priorities are POSIX")
def test_advice_helper_runs_below_the_desk(tmp_path):
    project = make_project(tmp_path, n=30)
    expected = project.offline_curves()
    project.close()
    try:
        curves = advice_process.helper_call("curves", tmp_path / "p.triage")
        helper = advice_process._servers["advice"][0]
        ours = os.getpriority(os.PRIO_PROCESS, 0)
        assert os.getpriority(os.PRIO_PROCESS, helper.pid) == min(19, ours + 10)
    finally:
        advice_process.stop_helper("advice")
    assert set(curves) == set(expected)
    for name, values in expected.items():
        assert np.array_equal(curves[name], values)
