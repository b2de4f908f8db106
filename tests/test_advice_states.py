"""Stopping advice is right in every state, and every surface shows the same state.

Each advice state gets a test asserting the decision, the headline and the key numbers;
every test also checks that every number is finite and physically possible (positives never
above the unlabelled remainder, items never above what is left, recall in [0, 1]).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from tests.helpers import SCHEME, write_pool
from triage.ingest.importer import ColumnMapping
from triage.project import create_project, open_project
from triage.project.advice import advice_state
from triage.store.settings import Settings
from triage.views.advice import advice_lines, recall_band
from triage.views.analysis import banner_data
from triage.views.rule_words import worded


def _rows(gold: list[bool], scores: list[float] | None = None, *, with_gold: bool = True):
    n = len(gold)
    scores = scores if scores is not None else [1 - i / n for i in range(n)]
    rows = []
    for i, g in enumerate(gold):
        row = {"key": f"c{i:04d}", "text": f"phrase {i}", "m1": f"{scores[i]:.6f}"}
        if with_gold:
            row["gold"] = "idiom" if g else "literal"
        rows.append(row)
    return rows


def build(tmp_path: Path, gold, scores=None, *, with_gold=True, **settings):
    """A project over ``gold`` (rank order = list order unless scores say otherwise)."""
    src = write_pool(tmp_path / "pool.csv", _rows(list(gold), scores, with_gold=with_gold))
    base = dict(labels=SCHEME, positive_labels=("idiom",), price_per_item=0.04,
                audit_rate=0.0, overlap_rate=0.0, budget=100.0, value_per_positive=0.5)
    base.update(settings)
    project = create_project(tmp_path / "p.triage", Settings(**base))
    project.import_file(src, ColumnMapping(text="text", key="key", scores=(("m1", "m1"),),
                                           gold="gold" if with_gold else None))
    return project


def label_down(project, n: int, annotator: str = "ada", flip=lambda _c, v: v) -> int:
    """Label the next n served candidates with their gold labels (optionally flipped)."""
    s = project.start_session(annotator)
    done = 0
    gold = dict(project.db.execute("SELECT id, gold FROM candidates").fetchall())
    for _ in range(n):
        c = project.next_candidate(s)
        if c is None:
            break
        project.record_label(s, c.candidate_id, flip(c, gold[c.candidate_id] or "literal"))
        done += 1
    return done


def walk(x, path="advice"):
    """Every number in a JSON tree, with its path."""
    if isinstance(x, dict):
        for k, v in x.items():
            yield from walk(v, f"{path}.{k}")
    elif isinstance(x, list | tuple):
        for i, v in enumerate(x):
            yield from walk(v, f"{path}[{i}]")
    elif isinstance(x, int | float) and not isinstance(x, bool):
        yield path, x


def check_physical(state) -> dict:
    """Assert every number is finite and possible; return the JSON."""
    data = json.loads(json.dumps(worded(state.to_json()), allow_nan=False))  # NaN/inf would fail here
    for where, value in walk(data):
        assert math.isfinite(value), where
    counts, rem = data["counts"], data["remaining"]
    unl = counts["unlabelled"]
    assert 0 <= unl <= counts["pool"] and counts["found"] <= counts["labelled"]
    for key in ("positives", "lower", "upper"):
        if rem[key] is not None:
            assert -1e-9 <= rem[key] <= unl + 1e-9, key
    for key in ("point", "lower", "upper"):
        v = data["estimated_recall"][key]
        assert v is None or -1e-9 <= v <= 1 + 1e-9, key
    nb = data["next_batch"]
    assert 0 <= nb["items"] <= unl + 1e-9
    if nb["expected_positives"] is not None:
        assert 0 <= nb["expected_positives"] <= nb["items"] + 1e-9
    for est in data["estimates"].values():
        assert -1e-9 <= est["lower"] <= est["upper"] <= est["unlabelled"] + 1e-9
    for r in data["reasons"]:
        assert "nan" not in r["detail"].lower() and "inf" not in r["detail"].replace("informs", "")
        assert "e+" not in r["detail"]
    return data


def surfaces_agree(state, capsys=None, path=None) -> None:
    """CLI JSON, banner, Advice tab lines and the band show the same decision and numbers."""
    data = worded(state.to_json())
    banner, lines = banner_data(state), advice_lines(state)
    assert banner.decision == lines.decision == data["decision"]
    assert banner.text == lines.headline == data["headline"]
    assert banner.stamp == lines.stamp == f"computed at {state.labels_at:,} labels"
    assert lines.recall in banner.details
    band = recall_band(state)
    if band is not None:
        assert band.text == lines.recall and band.stamp == lines.stamp
    if capsys is not None:
        from triage.cli.program import main

        assert main(["advise", str(path), "--json"]) == 0
        cli = json.loads(capsys.readouterr().out)
        for key in ("decision", "headline", "labels_at", "estimated_recall", "next_batch",
                    "remaining", "settings_revision"):
            assert cli[key] == json.loads(json.dumps(data))[key], key


GOLD = [i % 3 == 0 for i in range(60)] + [i % 15 == 0 for i in range(240)]  # 300, rich top


def reason(data, rule):
    return next(r for r in data["reasons"] if r["rule"] == rule)


def test_no_labels_yet(tmp_path):
    p = build(tmp_path, GOLD)
    data = check_physical(advice_state(p))
    assert data["decision"] == "continue" and data["labels_at"] == 0
    assert data["headline"] == ("continue — no labels yet to estimate the yield of the next "
                                "batch")
    assert data["remaining"]["method"] == "none" and data["counts"]["found"] == 0
    assert advice_lines(advice_state(p)).recall == "recall undefined: no positive found yet"


def test_only_audit_labels(tmp_path):
    p = build(tmp_path, GOLD, audit_rate=0.05)
    s = p.start_session("ada")
    gold = dict(p.db.execute("SELECT id, gold FROM candidates").fetchall())
    for cid in p.dispatcher.audit_sequence()[:25].tolist():
        p.record_label(s, int(cid), gold[int(cid)], kind="audit")
    data = check_physical(advice_state(p))
    assert data["counts"]["depth"] == 0 and data["counts"]["audit_below_depth"] == 25
    assert data["remaining"]["method"] in ("combined", "audit")
    assert data["decision"] == "continue"
    found = data["counts"]["found"]
    assert data["estimated_total_positives"]["lower"] >= found


def test_no_gold_no_value_no_budget(tmp_path):
    p = build(tmp_path, GOLD, with_gold=False, budget=None, value_per_positive=None)
    s = p.start_session("ada")
    for i in range(40):
        c = p.next_candidate(s)
        p.record_label(s, c.candidate_id, "idiom" if i % 3 == 0 else "literal")
    data = check_physical(advice_state(p))
    assert data["decision"] == "continue"
    assert reason(data, "budget")["detail"] == "No budget is set, so money never stops the work."
    assert reason(data, "marginal_value")["detail"].startswith("No value per positive is set")
    assert "(no value per positive set)" in data["headline"]


def test_budget_spent(tmp_path):
    p = build(tmp_path, GOLD, budget=2.0)
    label_down(p, 60)
    data = check_physical(advice_state(p))
    assert data["decision"] == "stop"
    assert data["headline"] == "stop — the budget is spent: $2.40 of $2.00, overspent by $0.40"
    nums = reason(data, "budget")["numbers"]
    assert nums["left"] == 0 and nums["overspent"] == pytest.approx(0.4)


def test_budget_left_but_pool_exhausted(tmp_path):
    p = build(tmp_path, GOLD, budget=100.0)
    assert label_down(p, 400) == 300
    state = advice_state(p)
    data = check_physical(state)
    assert data["decision"] == "stop"
    assert data["headline"] == "stop — the pool is exhausted: every candidate has been handled"
    assert data["estimated_recall"] == {"point": 1.0, "lower": 1.0, "upper": 1.0,
                                        "method": data["estimated_recall"]["method"]}
    assert data["remaining"]["method"] == "exact"
    assert data["next_batch"]["items"] == 0 and data["next_batch"]["expected_positives"] == 0
    assert reason(data, "budget")["numbers"]["annotations_left"] == 0
    assert "nothing is left to buy" in reason(data, "budget")["detail"]
    assert reason(data, "knee")["numbers"]["reviewed"] == 300
    assert advice_lines(state).recall == "recall 100%, known exactly (every candidate is labelled)"


def test_every_positive_found_before_the_end(tmp_path):
    gold = [i < 30 for i in range(300)]
    p = build(tmp_path, gold, budget=100.0)
    label_down(p, 200)
    state = advice_state(p)
    data = check_physical(state)
    assert data["counts"]["found"] == 30
    assert data["remaining"]["positives"] < 1  # the model expects next to nothing below
    assert data["estimated_recall"]["point"] > 0.95
    assert "no positives" in advice_lines(state).next_batch
    assert data["next_batch"]["cost_per_positive"] is None
    assert data["decision"] == "stop"
    assert "no positives are expected" in data["headline"]


def test_no_positive_found_at_all(tmp_path):
    p = build(tmp_path, [False] * 200, budget=100.0)
    label_down(p, 50)
    state = advice_state(p)
    data = check_physical(state)
    assert data["counts"]["found"] == 0 and data["decision"] == "continue"
    assert data["estimated_recall"]["point"] is None
    assert advice_lines(state).recall == ("recall undefined: no positive found yet in 50 "
                                          "labels (50 ranked, 0 audit)")
    assert advice_lines(state).remaining.startswith("positives left: at most ")


def test_one_model_and_ties(tmp_path):
    p = build(tmp_path, GOLD, scores=[0.5] * 300, budget=100.0)  # one model, all tied
    label_down(p, 90)
    data = check_physical(advice_state(p))
    assert data["counts"]["labelled"] == 90 and data["counts"]["found"] == 11
    # Tied scores say nothing about where the positives are: the calibrated estimate puts
    # the same share everywhere, so recall is the share labelled, far below the target.
    assert data["estimated_recall"]["point"] == pytest.approx(90 / 300, abs=1e-6)
    assert reason(data, "recall")["verdict"] == "continue"
    # ... and the next items still pay: 11 positives in 90 at $0.04 each is about $0.33 a
    # positive, against $0.50 for one.
    value = reason(data, "marginal_value")
    assert value["verdict"] == "continue"
    assert value["numbers"]["cost_per_positive"] == pytest.approx(0.04 / (11 / 90), rel=1e-3)
    assert data["decision"] == "continue"
    assert data["headline"] == ("continue — the next 3 items cost about $0.33 per positive "
                                "against a value of $0.50")


def test_scores_added_mid_way(tmp_path):
    p = build(tmp_path, GOLD, budget=100.0)
    label_down(p, 60)
    before = advice_state(p)
    rows = [{"key": f"c{i:04d}", "m2": f"{(i * 7919) % 300 / 300:.6f}"} for i in range(300)]
    write_pool(tmp_path / "more.csv", rows)
    p.add_scores(tmp_path / "more.csv", key="key", scores=[("m2", "m2")])
    after = advice_state(p)
    check_physical(after)
    assert after.version != before.version and after.labels_at == before.labels_at == 60
    assert after.advice["counts"] == before.advice["counts"]  # the followed ranking is unchanged


def test_unreliable_agreement_pauses_everywhere(tmp_path, capsys):
    p = build(tmp_path, GOLD, overlap_rate=0.5, budget=100.0)
    flip = {"idiom": "literal", "literal": "idiom"}
    sessions = {who: p.start_session(who) for who in ("ada", "bob")}
    for _ in range(70):
        for who, s in sessions.items():
            c = p.next_candidate(s)
            gold = p.db.execute("SELECT gold FROM candidates WHERE id = ?",
                                [c.candidate_id]).fetchone()[0]
            rng = (c.candidate_id * 7 + (who == "bob")) % 2
            value = flip[gold] if (who == "bob" and rng) else gold
            p.record_label(s, c.candidate_id, value)
    state = advice_state(p)
    data = check_physical(state)
    assert state.reliability["overlap_items"] >= 30 and state.reliability["alpha"] < 0.667
    assert data["decision"] == "pause" and state.reliability["verdict"] == "pause"
    assert data["headline"].startswith("pause — α = ")
    lines = advice_lines(state)
    assert lines.reliability.startswith("pause: α = ") and banner_data(state).role == "pause"
    surfaces_agree(state, capsys, p.path)


@pytest.mark.slow
def test_surfaces_agree_through_a_sequence_of_changes(tmp_path, capsys):
    from triage.project.adjudication import adjudicate

    p = build(tmp_path, GOLD, audit_rate=0.05, overlap_rate=0.2, budget=100.0)
    ada = p.start_session("ada")
    seen = []

    def step():
        state = advice_state(p)
        check_physical(state)
        surfaces_agree(state, capsys, p.path)
        seen.append((state.labels_at, state.decision, state.settings_revision))
        return state

    step()
    label_down(p, 40)
    step()                                     # labels
    c = p.next_candidate(ada)
    p.skip(ada, c.candidate_id)
    step()                                     # skip
    p.undo(ada)
    step()                                     # undo
    p.update_settings(value_per_positive=0.05)
    s5 = step()                                # settings change
    assert s5.settings_revision != seen[-2][2]
    label_down(p, 30, "bob", flip=lambda c, v: v)
    rows = [{"key": f"c{i:04d}", "m2": f"{i / 300:.6f}"} for i in range(300)]
    write_pool(tmp_path / "more.csv", rows)
    p.add_scores(tmp_path / "more.csv", key="key", scores=[("m2", "m2")])
    step()                                     # import of more scores
    labelled = p.db.execute("SELECT candidate_id FROM labels LIMIT 1").fetchone()[0]
    adjudicate(p, ada, labelled, "idiom")
    step()                                     # adjudication
    assert len(seen) == 7


def test_certification_sample_is_served_blind_and_stops_when_rejected(tmp_path):
    from triage.project.certify import start_certification

    gold = [i < 40 for i in range(400)]
    p = build(tmp_path, gold, budget=100.0)
    label_down(p, 150)
    before = advice_state(p)
    plan = worded(before.to_json())["certification"]["plan"]
    assert plan["items"] is not None and plan["cost"] == pytest.approx(plan["items"] * 0.04)
    assert "Certifying 80% recall at 95% confidence now needs about" in plan["text"]
    row = start_certification(p, planned=plan["items"])
    assert row.running and row.remaining == 250 and row.found == 40
    s = p.start_session("cy")
    served = 0
    while True:
        c = p.next_candidate(s)
        if c.kind != "certify":
            break
        p.record_label(s, c.candidate_id, "literal")
        served += 1
        assert served <= 250
    state = advice_state(p)
    data = check_physical(state)
    record = state.certification
    assert record["outcome"] == "certified" and not record["running"]
    assert record["labelled"] == served and record["p_value"] < 0.05
    # Stopped as soon as the null was rejected: one fewer label would not have done.
    from triage.stats.stopping.certify import sample_pvalue

    assert sample_pvalue(40, 250, served - 1, 0, 0.8) >= 0.05
    assert reason(data, "certification")["verdict"] == "stop"
    assert data["decision"] == "stop" and data["headline"].startswith("stop — certified")


def test_reopened_file_gives_the_same_state(tmp_path):
    p = build(tmp_path, GOLD, audit_rate=0.05)
    label_down(p, 80)
    a = advice_state(p)
    p.close()
    with open_project(tmp_path / "p.triage") as again:
        b = advice_state(again)
    assert json.dumps(a.to_json()) == json.dumps(b.to_json())
    assert advice_lines(a).headline == advice_lines(b).headline and a.labels_at == b.labels_at


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as hs  # noqa: E402


class _Stats:
    """The stats-level advice wrapped like an AdviceState, for :func:`check_physical`."""

    def __init__(self, advice):
        from triage.stats.stopping import advice_to_json

        self.data = advice_to_json(advice)

    def to_json(self):
        return self.data


@settings(max_examples=60, deadline=None)
@given(pool=hs.integers(1, 150), depth_share=hs.floats(0, 1), audit_n=hs.integers(0, 40),
       skips=hs.integers(0, 5), seed=hs.integers(0, 10_000), scores=hs.booleans(),
       value=hs.sampled_from([None, 0.5, 50.0]), budget=hs.sampled_from([None, 1.0, 1000.0]),
       prevalence=hs.sampled_from([0.0, 0.05, 0.5, 1.0]), cert=hs.integers(0, 30),
       ties=hs.booleans())
@pytest.mark.slow
def test_every_reachable_state_has_possible_numbers(pool, depth_share, audit_n, skips, seed,
                                                    scores, value, budget, prevalence, cert,
                                                    ties):
    from triage.stats.stopping import AdviceInputs, advise

    rng = np.random.default_rng(seed)
    gold = rng.random(pool) < prevalence * np.linspace(1.5, 0.1, pool).clip(0, 1)
    depth = int(depth_share * pool)
    audit = rng.choice(pool, size=min(audit_n, pool), replace=False) + 1
    ranks = np.union1d(np.arange(1, depth + 1), audit)
    skipped = set(rng.choice(ranks, size=min(skips, ranks.size), replace=False).tolist())
    kept = np.array([r for r in ranks if r not in skipped], dtype=np.int64)
    unl = pool - kept.size
    found = int(gold[kept - 1].sum())
    cert_n = min(cert, unl)
    raw = (np.zeros(pool) if ties else np.linspace(2, -2, pool)) if scores else None
    a = advise(AdviceInputs(
        pool=pool, ranks=kept, positive=gold[kept - 1],
        audit_ranks=np.array([r for r in audit if r not in skipped], dtype=np.int64),
        audit_positive=gold[np.array([r for r in audit if r not in skipped], dtype=np.int64) - 1]
        if len(audit) else np.zeros(0, bool),
        depth=depth, value_per_positive=value, budget=budget, spend=0.04 * ranks.size,
        price=0.04, raw_scores=raw, exhausted=ranks.size == pool, audit_rate=0.02,
        cert_found=found if cert else None, cert_remaining=unl if cert else None,
        cert_n=cert_n, cert_k=int(rng.integers(0, cert_n + 1)) if cert_n else 0))
    data = check_physical(_Stats(a))
    assert data["decision"] in ("continue", "stop", "pause")
    if ranks.size == pool:
        assert data["decision"] == "stop" and data["next_batch"]["items"] == 0
