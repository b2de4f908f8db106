"""The desk's decision flow without Qt, on a fake clock: steps, retries, busy, sentences."""

from __future__ import annotations

import pytest

from triage.base.errors import BusyError, LogLost, ServerUnavailable, TriageError, WriteFailed
from triage.views.desk_flow import STILL_SAVING, Attempt, DeskFlow


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def failing(*errors: BaseException, then: object = None):
    """A step that raises each of ``errors`` in turn, then returns ``then``."""
    left = list(errors)
    calls: list[int] = []

    def step():
        calls.append(1)
        if left:
            raise left.pop(0)
        return then
    step.calls = calls  # type: ignore[attr-defined]
    return step


def test_a_decision_runs_its_chain_of_steps_and_the_desk_is_free_again():
    flow, done = DeskFlow(Clock()), []
    assert flow.begin(lambda: (done.append("label"), lambda: done.append("next"))[1])
    assert flow.attempt() == Attempt()
    assert done == ["label", "next"] and flow.pending is None and not flow.busy
    assert flow.refuse() is None


def test_a_busy_file_keeps_the_decision_and_says_when_to_try_again():
    clock = Clock()
    flow = DeskFlow(clock, retry_s=0.5)
    step = failing(BusyError("busy"), BusyError("busy"))
    flow.begin(step)
    assert flow.attempt() == Attempt(retry_s=0.5, message=None, busy=True)
    assert flow.busy and not flow.offline and flow.refuse() == STILL_SAVING
    assert not flow.begin(lambda: None)        # a second key waits for the first decision
    clock.now += 0.4
    assert not flow.due()
    clock.now += 0.1
    assert flow.due()
    assert flow.attempt().busy
    clock.now += 0.5
    assert flow.attempt() == Attempt()          # written at the third try
    assert len(step.calls) == 3 and not flow.busy and flow.pending is None


def test_an_absent_server_is_said_plainly_and_retried():
    flow = DeskFlow(Clock(), retry_s=0.5)
    flow.begin(failing(ServerUnavailable("the team server is not answering")))
    outcome = flow.attempt()
    assert outcome == Attempt(0.5, "the team server is not answering", True)
    assert flow.offline


def test_a_full_disk_retries_less_often_and_says_the_decision_is_kept():
    flow = DeskFlow(Clock(), retry_s=0.5, fault_retry_s=3.0)
    flow.begin(failing(WriteFailed("the disk is full")))
    outcome = flow.attempt()
    assert outcome.retry_s == 3.0 and outcome.busy
    assert outcome.message == "the disk is full Your last decision is kept and will be saved."
    assert flow.attempt() == Attempt()


def test_a_lost_log_reopens_the_project_writes_again_and_says_so_once():
    flow, reopened = DeskFlow(Clock()), []
    step = failing(LogLost("log deleted"))
    flow.begin(step)
    outcome = flow.attempt(reopen=lambda: reopened.append(1), recovered="reopened; saved")
    assert outcome == Attempt(message="reopened; saved")
    assert reopened == [1] and len(step.calls) == 2
    flow.begin(lambda: None)
    assert flow.attempt(recovered="reopened; saved") == Attempt()   # said once only


def test_a_refused_decision_ends_the_chain_with_its_sentence():
    flow = DeskFlow(Clock())
    flow.begin(failing(TriageError("candidate 7 was already labelled")))
    assert flow.attempt() == Attempt(message="candidate 7 was already labelled")
    assert flow.pending is None and not flow.busy


def test_an_unexpected_fault_frees_the_desk_and_is_raised():
    flow = DeskFlow(Clock())
    flow.begin(failing(ZeroDivisionError()))
    with pytest.raises(ZeroDivisionError):
        flow.attempt()
    assert flow.pending is None and not flow.busy


def test_the_time_spent_counts_from_the_candidate_shown_and_is_capped():
    clock = Clock()
    flow = DeskFlow(clock)
    flow.shown()
    clock.now += 3.5
    assert flow.spent() == 3.5
    clock.now += 10_000          # the annotator walked away
    assert flow.spent() == 600.0
