"""``triage learn`` and ``--learn yes`` as a user meets them: no duplicate snapshots, and
learning that the queue serves."""

from __future__ import annotations

import json

import pytest

from tests.test_cal import gold_of, project_with
from triage.cli.program import main
from triage.project import open_project
from triage.store import calsnap

pytest.importorskip("sklearn")


@pytest.mark.slow
def test_learn_with_no_new_labels_says_up_to_date_and_stores_nothing(tmp_path, capsys):
    project = project_with(tmp_path, n=200)
    gold = gold_of(project)
    s = project.start_session("ada")
    for cid in sorted(gold)[:60]:
        project.record_label(s, cid, gold[cid])
    project.close()
    path = str(tmp_path / "p.triage")
    assert main(["learn", path]) == 0
    assert "stored cal snapshot 1: learned from 60 labels" in capsys.readouterr().out
    assert main(["learn", path]) == 0
    assert "up to date: no labels came in since the newest snapshot" in capsys.readouterr().out
    with open_project(path) as again:
        assert calsnap.snapshot_count(again.state.db) == 1
        s = again.start_session("ada")
        cid = sorted(gold)[60]
        again.record_label(s, cid, gold[cid])
    assert main(["learn", path]) == 0
    assert "stored cal snapshot 2: learned from 61 labels" in capsys.readouterr().out


def test_learn_yes_serves_cal_as_a_bandit_arm_unless_cal_is_followed(tmp_path, capsys):
    def config(name: str, *args: str) -> dict:
        assert main(["config", str(tmp_path / name / "p.triage"), *args, "--json"]) == 0
        return json.loads(capsys.readouterr().out)

    for name in ("a", "b", "c"):
        (tmp_path / name).mkdir()
        project_with(tmp_path / name, n=50).close()
    learned = config("a", "--learn", "yes")
    assert (learned["learn"], learned["queue_mode"]) == (True, "bandit")
    followed = config("b", "--learn", "yes", "--active-model", "cal")
    assert (followed["active_model"], followed["queue_mode"]) == ("cal", "follow")
    with open_project(tmp_path / "c" / "p.triage") as project:
        project.update_settings(queue_mode="pets")
    assert config("c", "--learn", "yes")["queue_mode"] == "pets"
