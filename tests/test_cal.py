"""The cal ranking: a deterministic trainer, snapshots as data, honest training, serving."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from tests.helpers import SCHEME, write_pool
from triage.ingest.importer import ColumnMapping
from triage.project import cal as project_cal
from triage.project import create_project
from triage.stats.models.cal import CalConfig, build_features, fit_scores
from triage.stats.models.cal_sim import cal_order, labels_to_target
from triage.store import calsnap
from triage.store.calsnap import CalSnapshot
from triage.store.settings import Settings

pytest.importorskip("sklearn")

WORDS = ["river", "stone", "cloud", "table", "lamp", "green", "quiet", "north", "paper", "salt"]


def rows(n: int, seed: int = 0) -> list[dict]:
    """Positives (every 7th) mention "spill the beans"; the imported score is weak noise."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        pos = i % 7 == 0
        words = list(rng.choice(WORDS, 6))
        if pos:
            words[2:2] = ["spill", "the", "beans"]
        score = 0.3 * pos + rng.random()
        out.append({"key": f"c{i:04d}", "text": " ".join(words), "m1": f"{score:.6f}",
                    "gold": "idiom" if pos else "literal"})
    return out


def project_with(tmp_path: Path, n: int = 300, **settings):
    src = write_pool(tmp_path / "pool.csv", rows(n))
    base = dict(labels=SCHEME, positive_labels=("idiom",), overlap_rate=0.0, audit_rate=0.0)
    base.update(settings)
    project = create_project(tmp_path / "p.triage", Settings(**base))
    project.import_file(src, ColumnMapping(text="text", key="key", scores=(("m1", "m1"),),
                                           gold="gold"))
    return project


def gold_of(project) -> dict[int, str]:
    return dict(project.db.execute("SELECT id, gold FROM candidates").fetchall())


def label_from_gold(project, session, gold: dict[int, str], n: int) -> None:
    """``n`` labels in serving order, each the candidate's gold value."""
    for _ in range(n):
        c = project.next_candidate(session)
        project.record_label(session, c.candidate_id, gold[c.candidate_id])


def test_the_trainer_is_deterministic_given_its_seed_and_learns_the_text():
    data = rows(400)
    texts = [r["text"] for r in data]
    score = np.array([float(r["m1"]) for r in data])
    gold = np.array([r["gold"] == "idiom" for r in data])
    feats = build_features(texts, [score])
    labeled = np.arange(100)
    a = fit_scores(feats, labeled, gold[labeled], seed=3)
    b = fit_scores(feats, labeled, gold[labeled], seed=3)
    assert a is not None and np.array_equal(a, b)
    # Learned from 100 labels, it ranks every remaining positive above every negative.
    rest = np.arange(100, 400)
    assert a[rest][gold[rest]].min() > a[rest][~gold[rest]].max()
    assert fit_scores(feats, labeled, np.zeros(100, bool), seed=3) is None  # one class only
    order1 = cal_order(feats, [score], gold, CalConfig(seed=5))
    order2 = cal_order(feats, [score], gold, CalConfig(seed=5))
    assert np.array_equal(order1, order2) and sorted(order1.tolist()) == list(range(400))
    frozen = np.argsort(-score, kind="stable")
    assert labels_to_target(order1, gold, 0.95) < labels_to_target(frozen, gold, 0.95)


def test_labels_to_target_counts_labels_until_true_recall_reaches_it():
    gold = np.array([0, 1, 0, 1, 0, 0, 1, 1], bool)
    assert labels_to_target(np.arange(8), gold, 0.5) == 4     # 2 of 4 after the 4th label
    assert labels_to_target(np.arange(8), gold, 1.0) == 8
    assert labels_to_target(np.array([1, 3, 6, 7, 0, 2, 4, 5]), gold, 0.75) == 3


def test_a_snapshot_round_trips_through_the_writer(tmp_path):
    project = project_with(tmp_path, n=50)
    snap = CalSnapshot(labels_used=50, last_label_id=77, features="text+scores",
                       config={"seed": 1, "every": 50}, candidate_ids=np.array([5, 3, 9]),
                       scores=np.array([2.5, 1.0, -0.5]))
    sid = project.writer.add_cal_snapshot(snap)
    assert project.writer.add_cal_snapshot(snap) == sid   # the same uid twice: one row
    back = calsnap.latest_snapshot(project.db)
    assert back is not None and back.id == sid and back.uid == snap.uid
    assert (back.labels_used, back.last_label_id, back.features) == (50, 77, "text+scores")
    assert back.config == {"seed": 1, "every": 50}
    assert back.candidate_ids.tolist() == [5, 3, 9] and back.scores.tolist() == [2.5, 1.0, -0.5]
    assert [s.id for s in calsnap.all_snapshots(project.db)] == [sid]


def test_the_server_schema_has_the_snapshot_table():
    from triage.store.pg.tables import table

    assert table("cal_snapshots").names == (
        "id", "uid", "created_at", "labels_used", "last_label_id", "features", "config",
        "candidate_ids", "scores")


def test_audit_and_certification_labels_never_reach_training(tmp_path):
    project = project_with(tmp_path, n=300)
    gold = gold_of(project)
    ada = project.start_session("ada")
    ids = sorted(gold)
    for cid in ids[:60]:
        project.record_label(ada, cid, gold[cid])
    audited = ids[60:90]
    for cid in audited:
        project.writer.insert_label(candidate_id=cid, annotator_id=ada.annotator_id,
                                    session_id=ada.session_id, value=gold[cid], kind="audit",
                                    seconds=1.0, note=None)
    certified = ids[90:100]
    for cid in certified:
        project.writer.insert_label(candidate_id=cid, annotator_id=ada.annotator_id,
                                    session_id=ada.session_id, value=gold[cid], kind="certify",
                                    seconds=1.0, note=None)
    learn, handled, last = project_cal.training_set(project.db, project.settings)
    assert set(learn) == set(ids[:60])
    assert set(audited + certified) <= handled
    snap = project.train_cal(force=True)
    assert snap is not None and snap.labels_used == 60
    # The snapshot ranks only what nobody has handled: no audited item comes back.
    assert not set(snap.candidate_ids.tolist()) & set(ids[:100])
    assert snap.last_label_id == last


def test_following_cal_serves_the_snapshot_and_never_waits_for_a_fit(tmp_path, monkeypatch):
    project = project_with(tmp_path, n=300, active_model="cal")
    gold = gold_of(project)
    ada = project.start_session("ada")
    first = []
    for _ in range(50):   # before any snapshot: the imported ranking serves
        c = project.next_candidate(ada)
        first.append(c.candidate_id)
        project.record_label(ada, c.candidate_id, gold[c.candidate_id])
    imported = project.state.ranking().order.tolist()
    assert first == imported[:50]
    # Deciles, yield and gain stay on the imported ranking while cal is followed.
    assert project.state.ranking().model.name == "m1"
    assert project.rank_of(first[0]) == 1
    snap1 = project.train_cal()
    assert snap1 is not None and snap1.labels_used == 50
    # The desk now serves the snapshot's order.
    c = project.next_candidate(ada)
    assert c.candidate_id == int(snap1.candidate_ids[0])
    project.record_label(ada, c.candidate_id, gold[c.candidate_id])

    # A second fit runs on another thread and is held inside fitting: the desk keeps
    # serving the old snapshot's order meanwhile, without waiting.
    inside, release = threading.Event(), threading.Event()
    real_fit = project_cal.fit_scores

    def held_fit(*args, **kwargs):
        inside.set()
        assert release.wait(30)
        return real_fit(*args, **kwargs)

    monkeypatch.setattr(project_cal, "fit_scores", held_fit)
    from triage.project.files import open_for_reading

    result = {}

    def train():
        reader = open_for_reading(tmp_path / "p.triage")
        try:
            result["snap"] = project_cal.train_snapshot(reader.state.db, reader.state.settings)
        finally:
            reader.close()

    worker = threading.Thread(target=train)
    worker.start()
    assert inside.wait(30)
    head = [int(x) for x in snap1.candidate_ids if x != c.candidate_id]
    served = []
    for _ in range(5):
        nxt = project.next_candidate(ada)
        served.append(nxt.candidate_id)
        project.record_label(ada, nxt.candidate_id, gold[nxt.candidate_id])
    assert served == head[:5]
    release.set()
    worker.join(30)
    snap2 = result["snap"]
    project.store_cal_snapshot(snap2)
    nxt = project.next_candidate(ada)
    fresh = [int(x) for x in snap2.candidate_ids if int(x) not in served]
    assert nxt.candidate_id == fresh[0]
    served_by = {r[0] for r in project.db.execute("SELECT served_by FROM labels")}
    assert served_by == {"cal"}   # the label records the ranking that served it


def test_bandit_has_cal_among_its_arms(tmp_path):
    project = project_with(tmp_path, n=300, queue_mode="bandit", learn=True)
    gold = gold_of(project)
    ada = project.start_session("ada")
    label_from_gold(project, ada, gold, 60)
    # Before the first snapshot cal serves the imported order: each label counts for both.
    assert project.bandit_belief().pulls == {"m1": 60, "cal": 60}
    assert {r[0] for r in project.db.execute("SELECT served_by FROM labels")} == {"cal"}
    assert project.train_cal() is not None
    label_from_gold(project, ada, gold, 60)
    served_by = {r[0] for r in project.db.execute("SELECT served_by FROM labels")}
    assert served_by == {"m1", "cal"}   # the snapshot's head differs: the baseline serves


def test_a_pool_of_pictures_without_captions_learns_from_the_scores_only(tmp_path):
    project = project_with(tmp_path, n=120)
    project.writer.set_project_info("image_column", "text")
    assert not project_cal.has_text(project.db)
    gold = gold_of(project)
    ada = project.start_session("ada")
    for cid in sorted(gold)[:60]:
        project.record_label(ada, cid, gold[cid])
    snap = project.train_cal(force=True)
    assert snap is not None and snap.features == "scores"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "triage.cli", *args], capture_output=True,
                          text=True, timeout=300)


@pytest.mark.slow
def test_simulate_reports_labels_to_target_per_repeat(tmp_path):
    src = write_pool(tmp_path / "gold.csv", rows(400))
    common = ["simulate", str(src), "--score", "m1=m1", "--gold", "gold", "--positive", "idiom",
              "--cost", "1", "--target-recall", "0.9", "--repeats", "2", "--json"]
    out = {}
    for strategy in ("follow:m1", "cal", "bandit"):
        res = run(*common, "--strategy", strategy, "--text", "text")
        assert res.returncode == 0, res.stderr
        out[strategy] = json.loads(res.stdout)
    data = rows(400)
    gold = np.array([r["gold"] == "idiom" for r in data])
    feats = build_features([r["text"] for r in data], [np.array([float(r["m1"]) for r in data])])
    expected = [labels_to_target(cal_order(feats, [np.array([float(r["m1"]) for r in data])],
                                           gold, CalConfig(seed=s)), gold, 0.9) for s in (0, 1)]
    assert out["cal"]["labels_to_target"] == expected
    assert len(out["follow:m1"]["labels_to_target"]) == 2
    assert max(out["cal"]["labels_to_target"]) < min(out["follow:m1"]["labels_to_target"])
    assert out["cal"]["learned"] == {"arm": "cal", "features": "text+scores"}
    assert out["cal"]["rules"]["recall"]["validity"] == "heuristic"
    assert out["follow:m1"]["rules"]["recall"]["validity"] == "valid"
    text = run(*common[:-1], "--strategy", "cal")
    assert text.returncode == 0, text.stderr
    assert "labels to 90% true recall per repeat" in text.stdout
    assert "cal learned from the scores only" in text.stdout


@pytest.mark.slow
def test_desks_of_a_team_in_bandit_mode_choose_the_same_arm_from_the_labels(tmp_path):
    from triage.project import open_project

    lead = project_with(tmp_path, n=300, queue_mode="bandit", learn=True)
    gold = gold_of(lead)
    s = lead.start_session("lead")
    label_from_gold(lead, s, gold, 60)
    assert lead.train_cal() is not None
    label_from_gold(lead, s, gold, 40)
    desks = [open_project(tmp_path / "p.triage") for _ in range(3)]
    arms = []
    for calls, desk in enumerate(desks, start=1):
        mine, theirs = desk.bandit_belief(), lead.bandit_belief()   # rebuilt from the labels
        assert mine is not None and theirs is not None
        assert (mine.pulls, mine.posterior_mean) == (theirs.pulls, theirs.posterior_mean)
        bandit = desk.dispatcher.bandit
        # A desk asks as often as it serves; the arm depends on the labels, not on that.
        arms.append({bandit.choose(frozenset())[0] for _ in range(calls)})
    assert arms[0] == arms[1] == arms[2] and len(arms[0]) == 1, arms
    for d in desks:
        d.close()


def test_three_desks_on_one_file_serve_one_snapshot_order(tmp_path):
    from triage.project import open_project

    lead = project_with(tmp_path, n=300, active_model="cal")
    gold = gold_of(lead)
    s = lead.start_session("lead")
    for cid in sorted(gold)[:60]:
        lead.record_label(s, cid, gold[cid])
    snap = lead.train_cal()
    assert snap is not None and snap.id is not None
    desks = [open_project(tmp_path / "p.triage") for _ in range(3)]
    sessions = [d.start_session(f"ann{i}") for i, d in enumerate(desks)]
    served = [d.next_candidate(ss).candidate_id for d, ss in zip(desks, sessions)]
    # Each desk took the next head of the same order (claims keep them apart).
    assert served == [int(x) for x in snap.candidate_ids[:3]]
    for d in desks:
        d.close()


@pytest.mark.slow
def test_stored_snapshots_replay_exactly_from_their_labels(tmp_path):
    project = project_with(tmp_path, n=300, active_model="cal")
    gold = gold_of(project)
    ada = project.start_session("ada")
    stored = 0
    for _ in range(130):
        c = project.next_candidate(ada)
        project.record_label(ada, c.candidate_id, gold[c.candidate_id])
        stored += project.train_cal() is not None
    assert stored == 2   # at 50 labels, then at 100 (every 50, growing by 10 %)
    res = run("learn", str(tmp_path / "p.triage"), "--verify", "--json")
    assert res.returncode == 0, res.stderr
    checks = json.loads(res.stdout)["verified"]
    assert [(v["labels_used"], v["same"]) for v in checks] == [(50, True), (100, True)]
    res = run("learn", str(tmp_path / "p.triage"))
    assert res.returncode == 0 and "stored cal snapshot 3: learned from 130 labels" in res.stdout


def test_advice_marks_each_rule_valid_or_heuristic_for_the_ranking_followed(tmp_path):
    from triage.project.advice import advice_state

    project = project_with(tmp_path, n=300, audit_rate=0.05)
    gold = gold_of(project)
    ada = project.start_session("ada")
    label_from_gold(project, ada, gold, 80)
    frozen = advice_state(project).to_json()
    validity = {r["rule"]: r["validity"] for r in frozen["reasons"]}
    assert validity["recall"] == "valid" and validity["knee"] == "heuristic"
    project.update_settings(active_model="cal")
    from triage.views.rule_words import worded

    learned = worded(advice_state(project).to_json())
    validity = {r["rule"]: r["validity"] for r in learned["reasons"]}
    assert validity["recall"] == "heuristic" and validity["certification"] == "valid"
    assert validity["budget"] == "valid" and validity["marginal_value"] == "heuristic"
    assert "learns from the labels (cal)" in learned["validity"]
    assert "rests on reliability, pool, budget, certification;" in learned["validity"]


def test_the_head_is_the_full_sort_cut_short_with_seeded_ties():
    from triage.stats.models.cal import head

    rng = np.random.default_rng(0)
    for _ in range(200):
        n = int(rng.integers(1, 300))
        scores = np.round(rng.normal(size=n), 1)          # many ties
        excluded = rng.random(n) < 0.3
        keep, seed = int(rng.integers(0, n + 5)), int(rng.integers(10))
        tie = np.random.default_rng([seed, 0xCA1]).random(n)
        full = np.lexsort((tie, -scores))
        assert head(scores, excluded, keep, seed).tolist() == full[~excluded[full]][:keep].tolist()


def test_without_scikit_learn_turning_learning_on_says_what_to_install(tmp_path, monkeypatch):
    from triage.base.errors import TriageError

    project = project_with(tmp_path, n=30)
    monkeypatch.setitem(sys.modules, "sklearn", None)   # import sklearn now fails
    with pytest.raises(TriageError, match=r"pip install 'triage\[learn\]'"):
        project.update_settings(active_model="cal")
    assert project.settings.active_model is None          # nothing was stored


def test_advise_names_the_rules_valid_for_a_learned_ranking(tmp_path):
    project = project_with(tmp_path, n=200, active_model="cal", audit_rate=0.05)
    gold = gold_of(project)
    ada = project.start_session("ada")
    label_from_gold(project, ada, gold, 40)
    project.close()
    res = run("advise", str(tmp_path / "p.triage"))
    assert res.returncode == 0, res.stderr
    assert ("Following a ranking that learns from the labels (cal): the advice rests on "
            "reliability, pool, budget, certification;") in res.stdout


def test_status_says_what_the_cal_ranking_learned_from(tmp_path):
    project = project_with(tmp_path, n=120, active_model="cal")
    project.writer.set_project_info("image_column", "text")   # pictures without captions
    gold = gold_of(project)
    ada = project.start_session("ada")
    for cid in sorted(gold)[:60]:
        project.record_label(ada, cid, gold[cid])
    project.train_cal(force=True)
    project.close()
    res = run("status", str(tmp_path / "p.triage"))
    assert res.returncode == 0, res.stderr
    assert ("cal ranking (followed): 1 fits, the newest learned from 60 labels; the pool has "
            "no text, so it learns from the imported scores only; deciles and yield stay on m1"
            ) in res.stdout
