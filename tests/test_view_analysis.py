"""Qt-free data of the analysis views: agreement, advice banner, adjudication, models."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score, roc_auc_score

from tests.helpers import SCHEME, make_project, pool_rows, write_pool
from triage.base.errors import TriageError
from triage.ingest.importer import ColumnMapping
from triage.project import create_project, open_project
from triage.project.adjudication import candidate_id_of, disagreements
from triage.project.agreement import agreement_for_project
from triage.stats.models.report import compare_report, k_key, model_value
from triage.store.settings import Settings
from triage.views.analysis import (
    adjudication_data,
    agreement_view_data,
    banner_data,
    session_labels,
)
from triage.views.lead_schedule import with_pvalues
from triage.views.model_inputs import cached_models_inputs
from triage.views.models import (
    ACCEPT_KS,
    VALUE_KS,
    bandit_lines,
    build_models_view_data,
    models_inputs,
    models_pvalues,
    models_view_at,
    with_value,
)

BREAKDOWNS = ("pair", "annotator", "session", "decile")
# bob departs from the gold label on these keys; everything else both label as gold says.
FLIPS = ("c0001", "c0004", "c0009")


def gold_of(key: str) -> str:
    return "idiom" if int(key[1:]) % 3 == 0 else "literal"


def flip(value: str) -> str:
    return "literal" if value == "idiom" else "idiom"


def label_two(project, *, upto: int = 20, second_session: bool = True) -> None:
    """ada and bob label c0000..c00{upto-1}; bob flips FLIPS; then ada's second session
    and bob label c0020..c0029 identically."""
    ada, bob = project.start_session("ada"), project.start_session("bob")
    for i in range(upto):
        key = f"c{i:04d}"
        cid = candidate_id_of(project, key)
        project.record_label(ada, cid, gold_of(key))
        project.record_label(bob, cid, flip(gold_of(key)) if key in FLIPS else gold_of(key))
    if second_session:
        ada2 = project.start_session("ada")
        for i in range(20, 30):
            key = f"c{i:04d}"
            cid = candidate_id_of(project, key)
            project.record_label(ada2, cid, gold_of(key))
            project.record_label(bob, cid, gold_of(key))


@pytest.fixture
def project(tmp_path):
    p = make_project(tmp_path, n=60)
    label_two(p)
    yield p
    p.close()


def test_agreement_data_matches_the_report_and_a_hand_computed_kappa(project):
    report = agreement_for_project(project, bootstrap=200, breakdowns=BREAKDOWNS).to_json()
    d = agreement_view_data(report, session_labels(project))
    assert d.alpha == report["krippendorff_alpha"]
    assert d.alpha_text.startswith(f"Krippendorff's α = {report['krippendorff_alpha']:.3f}")
    low, high = report["alpha_ci95"]
    assert f"95% CI {low:.3f} – {high:.3f}" in d.alpha_text
    assert d.reading == report["reading"] and d.reading_text.startswith(report["reading"])
    assert d.annotators == ("ada", "bob")
    # 30 items: 20 with 3 flips, 10 identical. By hand: p_o = 27/30, 10 idioms for ada,
    # 11 for bob: p_e = (10*11 + 20*19)/900; κ = (p_o - p_e)/(1 - p_e).
    pe = (10 * 11 + 20 * 19) / 900
    expected = (27 / 30 - pe) / (1 - pe)
    keys = [f"c{i:04d}" for i in range(30)]
    a = [gold_of(k) for k in keys]
    b = [flip(gold_of(k)) if k in FLIPS else gold_of(k) for k in keys]
    assert d.kappa[0, 1] == d.kappa[1, 0] == pytest.approx(expected)
    assert d.kappa[0, 1] == pytest.approx(cohen_kappa_score(a, b))
    assert d.kappa[0, 1] == report["cohen_kappa_pairs"]["ada|bob"]["kappa"]
    assert math.isnan(d.kappa[0, 0]) and d.kappa_items[0, 1] == 30
    # Sessions in time order with the annotator's name; ada's second session is perfect.
    assert d.sessions.labels == ("ada · 1", "bob · 1", "ada · 2")
    assert d.sessions.values[2] == pytest.approx(1.0)
    assert d.sessions.items == (20, 30, 10)
    # Deciles of a 60-item pool are 6 ranks wide: ranks 1..30 are deciles 1..5.
    assert d.deciles.groups == ("1", "2", "3", "4", "5")
    assert d.deciles.items == (6, 6, 6, 6, 6)
    assert d.deciles.values[4] == pytest.approx(1.0)


def test_single_annotator_agreement_is_undefined_with_the_reason(tmp_path):
    p = make_project(tmp_path, n=30)
    s = p.start_session("ada")
    for i in range(5):
        p.record_label(s, candidate_id_of(p, f"c{i:04d}"), gold_of(f"c{i:04d}"))
    report = agreement_for_project(p, bootstrap=50, breakdowns=BREAKDOWNS).to_json()
    p.close()
    d = agreement_view_data(report)
    assert d.alpha is None and report["undefined_reason"]
    assert d.alpha_text == "Krippendorff's α is undefined"
    assert report["undefined_reason"] == "alpha_no_pairable"      # a code; the view words it
    assert d.reading_text == ("undefined — no item has ratings from two or more annotators, so "
                              "there is nothing to compare")
    assert d.annotators == () and d.kappa.shape == (0, 0)


def test_undefined_kappa_cells_keep_their_reason():
    report = {"krippendorff_alpha": 0.5, "reading": "unreliable", "cohen_kappa_pairs": {
        "a|b": {"kappa": 0.25, "items": 8, "reason": None},
        "a|c": {"kappa": None, "items": 3, "reason": "only one category"},
    }, "breakdowns": [{"by": "decile", "group": "2", "items": 1, "alpha": None,
                       "percent_agreement": None, "reason": "no pairable items"}]}
    d = agreement_view_data(report)
    assert d.annotators == ("a", "b", "c")
    assert d.kappa[0, 1] == 0.25 and math.isnan(d.kappa[0, 2]) and math.isnan(d.kappa[1, 2])
    assert d.kappa_items[2, 0] == 3 and d.kappa_items[1, 2] == 0
    assert d.kappa_reasons == {"a|c": "only one category"}
    assert d.deciles.reasons == ("no pairable items",) and math.isnan(d.deciles.values[0])
    assert d.as_dict()["kappa"][0] == [None, 0.25, None]


def test_banner_keeps_the_headline_and_colours_by_decision(project):
    from triage.project.advice import project_advice
    from triage.stats.stopping import advice_to_json
    from triage.views.advice import rule_detail
    from triage.views.rule_words import worded

    advice = worded(advice_to_json(project_advice(project)))
    b = banner_data(advice)
    assert b.text == advice["headline"] and b.decision == advice["decision"]
    assert b.role == {"continue": "go", "stop": "stop", "pause": "pause"}[advice["decision"]]
    assert len(b.details) >= len(advice["reasons"])
    for line, r in zip(b.details, advice["reasons"]):
        assert r["rule"] in line and rule_detail(r, advice) in line
        assert line.startswith(r["verdict"])
    stop = banner_data({**advice, "decision": "stop"})
    assert (stop.role, stop.badge) == ("stop", "■ STOP")
    assert banner_data({**advice, "decision": "pause"}).badge == "❚❚ PAUSE"
    assert banner_data(None).role == "none"


def test_adjudication_rows_show_votes_per_annotator_and_status(project):
    carl = project.start_session("carl")
    project.record_label(carl, candidate_id_of(project, "c0001"), "literal")  # 2 of 3: majority
    d = adjudication_data(disagreements(project), project.settings.labels)
    assert d.annotators == ("ada", "bob", "carl")
    assert [(r.key, r.rank, r.votes, r.status) for r in d.rows] == [
        ("c0001", 2, ("literal", "idiom", "literal"), "majority: literal"),
        ("c0004", 5, ("literal", "idiom", ""), "tie (unresolved)"),
        ("c0009", 10, ("idiom", "literal", ""), "tie (unresolved)"),
    ]
    assert d.rows[1].text == "phrase number 4"
    assert d.labels == (("idiom", "i"), ("literal", "l"))
    assert d.summary == "3 candidates await a ruling (2 ties, 1 with a majority)"
    empty = adjudication_data([], SCHEME)
    assert empty.summary == "No disagreements await a ruling." and empty.rows == ()


def test_models_data_equals_the_core_reports_on_gold(project):
    inputs = models_inputs(project)
    d = build_models_view_data(inputs, trials=200, seed=3)
    assert d.labels_from == "gold" and d.n == 60 and d.positives == 20 and d.warnings == ()
    core = compare_report(inputs.scores, inputs.positive, trials=200, seed=3)
    for m in ("m1", "m2"):
        assert d.metrics[m] == {k: v.value for k, v in core.models[m].metrics.items()}
    # By hand: m1 = 1 - i/60 >= 0.5 for i <= 30: 31 predicted, 11 of them idioms (0, 3, .., 30).
    assert d.metrics["m1"]["precision"] == pytest.approx(11 / 31)
    assert d.metrics["m1"]["recall"] == pytest.approx(11 / 20)
    gold = np.array([i % 3 == 0 for i in range(60)])
    assert d.metrics["m2"]["roc_auc"] == pytest.approx(roc_auc_score(gold, np.arange(60) / 60))
    pair = core.pairs["m1|m2"]["roc_auc"]
    assert d.pvalues["m1|m2"]["roc_auc"]["p"] == pair.p_value
    assert d.pvalues["m1|m2"]["roc_auc"]["difference"] == pair.difference
    # Value curves and acceptance advice come from model_value with the same split.
    mv = model_value("m1", inputs.scores["m1"], gold, ks=VALUE_KS, calibrate="platt", seed=3)
    expected = [mv.by_k[k_key(k)].heldout_value for k in VALUE_KS]
    assert np.allclose(d.value_tuned["m1"], np.array(expected, dtype=float), equal_nan=True)
    assert sorted(d.acceptance) == sorted(ACCEPT_KS)
    # Savings: unlabeled candidates (30 of 60) beyond the cut-offs, at $0.04 each.
    for k in ACCEPT_KS:
        a = d.acceptance[k]["m1"]
        advice = mv.by_k[k_key(k)].advice
        assert a.unlabeled == 30
        if advice.accept_positive_at_or_above is None:
            assert a.saving == 0 and "accept nothing" in a.text
            continue
        raw = inputs.unlabeled_scores["m1"]
        auto = np.count_nonzero((raw >= advice.accept_positive_at_or_above)
                                | (raw <= advice.accept_negative_at_or_below))
        assert a.saving == pytest.approx(auto * 0.04)
        assert f"saving ${auto * 0.04:,.2f}" in a.text
    # The offline gain curves are the project's own; the budget line needs a budget.
    assert d.gain["m1"][-1] == 20 and d.gain["m1"][2] == 1 and d.budget_items is None


def test_without_gold_only_labeled_items_count_and_the_bias_is_named(tmp_path):
    src = write_pool(tmp_path / "pool.csv", pool_rows(40))
    p = create_project(tmp_path / "p.triage", Settings(
        labels=SCHEME, positive_labels=("idiom",), price_per_item=0.5, budget=5.0))
    p.import_file(src, ColumnMapping(text="text", key="key",
                                     scores=(("m1", "m1"), ("m2", "m2"))))
    p.update_settings(active_model="m1")
    label_two(p, second_session=False)
    d = build_models_view_data(models_inputs(p), trials=100)
    p.close()
    # Final labels only: the three flipped items are ties (no final label) and drop out;
    # c0009 was an idiom, so 6 of the 7 idioms among c0000..c0019 remain.
    assert d.labels_from == "labels" and (d.n, d.positives) == (17, 6)
    assert len(d.warnings) == 1
    assert d.warnings[0].startswith("the labels so far came from annotation that followed m1's")
    assert d.acceptance[1.0]["m1"].unlabeled == 20
    assert d.gain == {} and d.budget_items == pytest.approx(10.0)


def _labeled_without_gold(tmp_path):
    """Two models, no gold column, 40 candidates of which some are labeled by one session."""
    src = write_pool(tmp_path / "pool.csv", pool_rows(40))
    p = create_project(tmp_path / "p.triage", Settings(labels=SCHEME, positive_labels=("idiom",)))
    p.import_file(src, ColumnMapping(text="text", key="key",
                                     scores=(("m1", "m1"), ("m2", "m2"))))
    label_two(p, second_session=False)
    return p


def test_the_comparison_in_two_steps_equals_it_in_one(tmp_path):
    """The lead window shows the metrics first and the permutation tests when they come."""
    p = _labeled_without_gold(tmp_path)
    inputs = models_inputs(p)
    full = build_models_view_data(inputs, trials=1000)
    quick = build_models_view_data(inputs, trials=1000, pvalues=False)
    p.close()
    assert quick.pvalues == {} and quick.pvalues_pending and not full.pvalues_pending
    assert quick.metrics == full.metrics and quick.value_rule.keys() == full.value_rule.keys()
    assert models_pvalues(inputs, trials=1000) == full.pvalues
    assert set(full.pvalues) == {"m1|m2"}
    # The same, computed from the file by the lead's helper process.
    at = models_view_at(tmp_path / "p.triage", stage="quick")
    assert at.metrics == full.metrics and at.pvalues_pending
    assert models_view_at(tmp_path / "p.triage", stage="pvalues") == full.pvalues


def test_the_comparison_without_curves_has_every_other_figure(tmp_path):
    """The report asks for no curves: none are built, and every other figure is the same."""
    p = _labeled_without_gold(tmp_path)
    inputs = models_inputs(p)
    full = build_models_view_data(inputs, trials=1000, pvalues=False).as_dict()
    bare = build_models_view_data(inputs, trials=1000, pvalues=False, curves=False).as_dict()
    p.close()
    assert full["curves"] and bare["curves"] == {} and bare["gain"] == {}
    assert {k: v for k, v in bare.items() if k not in ("curves", "gain")} == \
        {k: v for k, v in full.items() if k not in ("curves", "gain")}


def test_the_comparison_in_three_steps_equals_it_in_one(tmp_path):
    """The lead window's helper: metrics first, then the value tables, then the tests, the
    later steps reusing the first one's reading; together exactly the one-step view."""
    p = _labeled_without_gold(tmp_path)
    full = build_models_view_data(models_inputs(p), trials=1000)
    p.close()
    path = tmp_path / "p.triage"
    first = models_view_at(path, stage="metrics")
    assert first.value_pending and not full.value_pending
    assert first.metrics == full.metrics and first.curves.keys() == full.curves.keys()
    assert first.value_tuned == {} and first.acceptance == {} and first.reliability == {}
    shown = with_pvalues(with_value(first, models_view_at(path, stage="value")),
                         models_view_at(path, stage="pvalues"))
    assert not shown.value_pending and not shown.pvalues_pending
    assert shown.as_dict() == full.as_dict()
    assert shown.value_reasons == full.value_reasons
    for model, rule in full.value_rule.items():
        assert np.array_equal(shown.value_rule[model], rule, equal_nan=True)


def test_the_later_steps_reuse_the_reading_only_while_the_file_is_unchanged(tmp_path):
    p = _labeled_without_gold(tmp_path)
    p.close()
    path = tmp_path / "p.triage"
    read = cached_models_inputs(path)
    assert cached_models_inputs(path, reuse=True) is read
    assert cached_models_inputs(path) is not read     # the first step always reads
    read = cached_models_inputs(path)
    p = open_project(path)
    session = p.start_session("cy")
    p.record_label(session, candidate_id_of(p, "c0035"), "idiom")
    p.close()
    again = cached_models_inputs(path, reuse=True)   # a label since: read afresh
    assert again is not read and again.positive.size == read.positive.size + 1
    assert again.positive.sum() == read.positive.sum() + 1


def test_too_few_labels_and_cancel(tmp_path):
    src = write_pool(tmp_path / "pool.csv", pool_rows(20))
    p = create_project(tmp_path / "p.triage", Settings(labels=SCHEME, positive_labels=("idiom",)))
    p.import_file(src, ColumnMapping(text="text", key="key", scores=(("m1", "m1"),)))
    d = build_models_view_data(p)
    assert d.unavailable.startswith("fewer than two labeled candidates")
    assert d.metrics == {}
    label_two(p, upto=6, second_session=False)
    calls = []
    with pytest.raises(TriageError, match="cancelled"):
        build_models_view_data(p, progress=lambda done, total: calls.append(done) or done < 2)
    p.close()
    assert calls == [0, 2]


def test_bandit_lines_say_when_a_model_is_decided():
    belief = {"mode": "bandit", "p_best": {"m1": 0.97, "m2": 0.03}, "pulls": {"m1": 40, "m2": 9},
              "posterior_mean": {"m1": 0.4, "m2": 0.1}, "decided": "m1", "delta": 0.05}
    lines = bandit_lines(belief)
    assert lines[0] == "decided: m1 (P(best) ≥ 0.95)"
    assert lines[1] == "m1: P(best) 97.0%, 40 labels served, yield 40.0%"
    assert bandit_lines({**belief, "decided": None})[0].startswith("not decided yet")
    assert bandit_lines(None) == []


def test_agreement_job_equals_the_core_and_reads_nothing_later(project):
    from triage.views.analysis import AGREEMENT_BREAKDOWNS, agreement_job

    work = agreement_job(project, bootstrap=100, seed=7)
    expected = agreement_for_project(project, bootstrap=100, seed=7,
                                     breakdowns=AGREEMENT_BREAKDOWNS).to_json()
    project.close()  # the job must not need the database any more
    seen = []
    assert work(lambda done, total: seen.append((done, total)) or True) == expected
    assert seen == [(0, 1), (1, 1)]
    with pytest.raises(TriageError, match="cancelled"):
        work(lambda done, total: False)


def test_inputs_read_once_equal_the_former_reads(project):
    """Rankings and gold labels are read once; the arrays equal the former per-use reads."""
    from triage import store
    from triage.project.gain import project_positives, project_scores

    inputs = models_inputs(project)
    gold = store.gold_by_candidate(project.db)
    for m in project.models:
        former = np.array([project.settings.is_positive(v) for v in gold], bool)
        ranked = former[store.rank_order(project.db, m.id)]
        np.testing.assert_array_equal(project.gold_positive_in_rank_order(m), ranked)
        np.testing.assert_array_equal(inputs.offline_curves[m.name], np.cumsum(ranked))
        np.testing.assert_array_equal(project.offline_curves()[m.name], np.cumsum(ranked))
    positive, _ = project_positives(project)
    np.testing.assert_array_equal(inputs.positive, positive)
    for name, (_col, scores) in project_scores(project).items():
        np.testing.assert_array_equal(inputs.scores[name], scores)
        # The stored rank order, reused as the sort of the scores: highest first.
        order = inputs.orders[name]
        assert sorted(order.tolist()) == list(range(scores.size))
        assert np.all(np.diff(inputs.scores[name][order]) <= 0)


def test_view_trials_bound_the_tests_work_and_p_values_carry_their_error(project):
    from triage.views.models import MIN_TRIALS, PVALUE_WORK, view_trials

    assert view_trials(60) == 1000 and view_trials(PVALUE_WORK // 1000) == 1000
    assert view_trials(1_000_000) == 500 and view_trials(10**8) == MIN_TRIALS
    assert view_trials(1_000_000, trials=300) == 300
    d = build_models_view_data(models_inputs(project), trials=200, seed=3)
    cell = d.pvalues["m1|m2"]["roc_auc"]
    assert d.trials == 200 and cell["trials"] == 200 and not cell["exact"]
    assert cell["se"] == pytest.approx(math.sqrt(cell["p"] * (1 - cell["p"]) / 200))


def test_a_stored_ranking_that_does_not_sort_the_scores_is_not_trusted():
    from triage.stats.models import metrics as mt

    scores = np.array([0.2, 0.9, 0.5, 0.9])
    gold = np.array([False, True, True, False])
    want = mt.binary_report(scores, gold)
    for order in (np.array([1, 3, 2, 0]), np.array([3, 1, 2, 0]),    # good: used
                  np.array([0, 1, 2, 3]), np.array([1, 1, 2, 0]),    # unsorted, repeated
                  np.array([1, 3, 2]), np.array([1, 3, 2, 7])):     # short, out of range
        got = mt.binary_report(scores, gold, ranked=mt.rank_scores(scores, gold, order))
        assert got == want


def test_without_gold_the_reused_rank_order_covers_the_labeled_items_only(tmp_path):
    p = _labeled_without_gold(tmp_path)
    inputs = models_inputs(p)
    p.close()
    assert inputs.labels_from == "labels" and inputs.positive.size == 17
    for name, order in inputs.orders.items():
        assert sorted(order.tolist()) == list(range(17))
        assert np.all(np.diff(inputs.scores[name][order]) <= 0)
