"""The lead window's schedule, without Qt: what is stale, what computes, what is shown."""

from __future__ import annotations

import dataclasses

from tests.helpers import make_project
from triage.views import tasks
from triage.views.lead_schedule import (
    ANALYSES,
    TABS,
    LeadSchedule,
    guidelines_tab,
    save_guidelines_tab,
    with_pvalues,
)


def steps(requests) -> list[str]:
    return [r.step for r in requests]


def test_recompute_asks_for_every_analysis_and_the_tests_after_the_metrics():
    schedule = LeadSchedule()
    requests = schedule.recompute()
    assert steps(requests) == ["agreement", "adjudication", "guidelines", "models",
                               "models-value", "models-pvalues"]
    assert schedule.stale == set()
    models, value, pvalues = requests[-3:]
    assert (models.task, models.stage, models.needs_curves) == (tasks.MODELS, "metrics", True)
    assert models.task.helper == "models"
    # The later steps reuse the first one's reading in the helper: no curves to pass.
    assert (value.stage, value.task, value.needs_curves) == ("value", tasks.MODELS, False)
    assert (pvalues.stage, pvalues.task, pvalues.needs_curves) == (
        "pvalues", tasks.MODELS, False)
    assert requests[2].task is None   # one row: computed in the window
    assert requests[1].task is tasks.DISAGREEMENTS and requests[0].task is tasks.AGREEMENT
    assert schedule.status() == ("computing agreement, adjudication, models, models-value, "
                                 "models-pvalues…")
    assert schedule.pending() == set(TABS)


def test_a_tab_computes_when_shown_stale_and_only_then():
    schedule = LeadSchedule()
    assert steps(schedule.on_tab("adjudication")) == ["adjudication"]
    assert schedule.on_tab("adjudication") == []   # no longer stale
    assert schedule.on_tab(None) == []             # overview, advice: nothing to compute
    schedule.ruled()                               # a ruling: the agreement is stale again
    assert schedule.stale == set(ANALYSES) - {"adjudication"}
    assert steps(schedule.on_tab("agreement")) == ["agreement"]
    schedule.closed()
    assert schedule.stale == set(ANALYSES)


def test_results_wait_for_their_view_and_the_tests_for_the_metrics():
    schedule = LeadSchedule()
    schedule.recompute()
    assert schedule.arrive("adjudication", ["item"]) == [("adjudication", ["item"])]
    # The chart views load matplotlib first: their results wait.
    assert schedule.arrive("models-pvalues", "p") == []
    assert schedule.arrive("agreement", "report") == []
    assert schedule.arrive("models-value", "v") == []
    assert schedule.arrive("models", "metrics") == []
    assert schedule.status() == ""
    assert schedule.view_built("agreement") == [("agreement", "report")]
    assert schedule.view_built("models") == [("models", "metrics"), ("models-value", "v"),
                                             ("models-pvalues", "p")]
    assert schedule.pending() == {"overview", "advice", "guidelines"}
    schedule.shown("overview")
    schedule.shown("advice")
    schedule.arrive("guidelines", ("g", ()))
    assert schedule.pending() == set()


def test_tests_that_arrive_first_wait_for_the_metrics_even_with_the_view_built():
    schedule = LeadSchedule()
    schedule.view_built("models")
    schedule.start("models")
    assert schedule.arrive("models-pvalues", "p") == []
    assert schedule.arrive("models-value", "v") == []
    # The Models tab fills with its first step; the later ones follow into it, in order.
    assert schedule.arrive("models", "m") == [("models", "m"), ("models-value", "v"),
                                              ("models-pvalues", "p")]
    schedule.start("models")   # recomputed: the later steps are pending again, the metrics not
    assert {"models-value", "models-pvalues"} <= schedule.pending()
    assert "models" not in schedule.pending()


def test_a_failure_counts_as_filled_and_the_news_stays_beside_what_computes():
    schedule = LeadSchedule()
    schedule.recompute()
    assert schedule.fail("agreement", "the lead helper stopped") == (
        "agreement: the lead helper stopped")
    assert "agreement" not in schedule.pending()
    assert schedule.status() == ("agreement: the lead helper stopped — computing "
                                 "adjudication, models, models-value, models-pvalues…")
    schedule.dropped("adjudication")    # it reported for another project
    schedule.say("report written to r.html")
    assert schedule.status() == ("report written to r.html — computing models, models-value, "
                                 "models-pvalues…")


def test_when_the_metrics_fail_the_later_steps_are_dropped_not_drawn_into_nothing():
    """Closing the lead window ends the models helper: the metrics fail. The value tables
    computed meanwhile have no comparison to go into; on Recompute all three come again."""
    schedule = LeadSchedule()
    schedule.view_built("models")
    schedule.recompute()
    schedule.fail("models", "the models helper stopped")
    assert schedule.arrive("models-value", "tables") == []
    assert schedule.arrive("models-pvalues", "tests") == []
    assert {"models", "models-value", "models-pvalues"}.isdisjoint(schedule.pending())
    schedule.start("models")
    assert {"models", "models-value", "models-pvalues"} <= schedule.pending()
    assert schedule.arrive("models-value", "tables") == []   # waits for the new metrics
    assert schedule.arrive("models", "data") == [("models", "data"),
                                                 ("models-value", "tables")]
    # The comparison shown: a failure of a later step leaves it as it is.
    schedule.start("models")
    schedule.fail("models-value", "broke")
    assert schedule.arrive("models-pvalues", "tests") == [("models-pvalues", "tests")]


def test_with_pvalues_fills_the_tests_in():
    @dataclasses.dataclass(frozen=True)
    class Data:
        pvalues: dict
        pvalues_pending: bool

    assert with_pvalues(Data({}, True), {"m1|m2": 0.5}) == Data({"m1|m2": 0.5}, False)


def test_guidelines_tab_saves_text_and_words_together(tmp_path):
    project = make_project(tmp_path, n=10)
    try:
        guidelines, words = guidelines_tab(project)
        assert guidelines.version == 0 and guidelines.text == ""
        saved, news = save_guidelines_tab(project, "Idioms only.", ("kick", "bucket"), "lena")
        assert news == "Saved: guidelines v1, 2 highlight words."
        assert guidelines_tab(project) == (saved, ("kick", "bucket"))
        saved, news = save_guidelines_tab(project, "Idioms only.", ("kick", "bucket"), "lena")
        assert saved.version == 1   # unchanged text and words: nothing new
    finally:
        project.close()
