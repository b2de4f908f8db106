"""When the live panels redraw while labels keep coming, without Qt, on a fake clock."""

from __future__ import annotations

from triage.views.redraw import RedrawPolicy


class Clock:
    def __init__(self) -> None:
        self.now = 50.0

    def __call__(self) -> float:
        return self.now


def test_in_a_burst_one_panel_redraws_per_label_in_turn_at_most_every_gap():
    clock = Clock()
    policy = RedrawPolicy(clock, min_gap_s=0.3, pause_s=0.6, max_defer_s=5.0)
    policy.all_refreshed()
    turns = []
    for _ in range(6):           # a label every 0.4 s
        clock.now += 0.4
        assert policy.changed()
        assert not policy.all_due(3)
        turns.append(policy.next_turn(3))
    assert turns == [1, 2, 0, 1, 2, 0]
    clock.now += 0.1             # a label 0.1 s after the last redraw: none just after it
    assert not policy.changed()


def test_every_panel_redraws_after_a_pause_and_at_least_every_max_defer():
    clock = Clock()
    policy = RedrawPolicy(clock, min_gap_s=0.3, pause_s=0.6, max_defer_s=5.0)
    policy.all_refreshed()
    for _ in range(12):          # 4.8 s of labels: still one panel at a time
        clock.now += 0.4
        policy.changed()
        if not policy.all_due(3):
            policy.next_turn(3)
    clock.now += 0.4             # 5.2 s since every panel last redrew
    policy.changed()
    assert policy.all_due(3)
    assert not policy.all_refreshed()   # not a pause: the label came just now
    clock.now += 0.7
    assert policy.all_refreshed()       # the pause's redraw
    assert RedrawPolicy(clock).all_due(1)   # one panel: always all of them


def test_checkpoints_come_while_the_annotator_pauses_every_so_many_events():
    policy = RedrawPolicy(Clock(), checkpoint_every=200)
    assert not policy.checkpoint_due(1000, paused=True)   # counted from the opening
    assert not policy.checkpoint_due(1199, paused=True)
    assert not policy.checkpoint_due(1250, paused=False)  # labels still coming
    assert policy.checkpoint_due(1250, paused=True)
    assert not policy.checkpoint_due(1300, paused=True)
    policy.closed()
    assert not policy.checkpoint_due(5, paused=True)      # another project: afresh
