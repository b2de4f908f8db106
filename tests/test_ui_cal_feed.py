"""The cal ranking is fit in a helper process of its own and stored by the desk."""

from __future__ import annotations

import pytest

from tests.test_cal import gold_of, project_with
from ui import advice_process
from ui.cal_feed import CalFeed

pytest.importorskip("sklearn")


@pytest.mark.slow
def test_the_cal_helper_fits_in_its_own_process_and_the_desk_stores_it(qtbot, tmp_path):
    project = project_with(tmp_path, n=300, active_model="cal")
    gold = gold_of(project)
    ada = project.start_session("ada")
    for _ in range(55):
        c = project.next_candidate(ada)
        project.record_label(ada, c.candidate_id, gold[c.candidate_id])
    assert project.trains_cal()
    stored = []
    feed = CalFeed(lambda snap: stored.append(project.store_cal_snapshot(snap)))
    try:
        feed.request(project.path)
        qtbot.waitUntil(lambda: bool(stored) and feed.worker is None, timeout=120_000)
        helper = advice_process.HELPERS_RUNNING.process("cal")
        assert helper.pid != advice_process.os.getpid()
    finally:
        advice_process.stop_helper("cal")
    assert stored == [1]
    nxt = project.next_candidate(ada)
    head = project.state.db.execute("SELECT candidate_ids FROM cal_snapshots").fetchone()[0]
    import numpy as np

    assert nxt.candidate_id == int(np.frombuffer(head, dtype="<i8")[0])
    project.close()


def test_the_settings_dialog_offers_cal_and_learning(qtbot):
    from triage.store.settings import Settings
    from ui.dialogs.settings import SettingsDialog

    dialog = SettingsDialog(Settings(), ["m1", "m2"])
    qtbot.addWidget(dialog)
    combo = dialog.model_combo
    assert [combo.itemText(i) for i in range(combo.count())] == ["m1", "m2", "cal"]
    combo.setCurrentText("cal")
    dialog.learn.setChecked(True)
    assert dialog.changes() == {"active_model": "cal", "learn": True}
