"""One wording per number: money in the project's currency, agreement on few items, the
report's rule numbers in words."""

from __future__ import annotations

import numpy as np

from triage.stats.stopping import AdviceInputs, advice_to_json, advise
from triage.views.advice import advice_lines, agreement_reading_text, reliability_text
from triage.views.analysis import agreement_view_data
from triage.views.rule_numbers import rule_numbers_text


def _advice(**extra):
    ranks = np.arange(1, 61)
    return advice_to_json(advise(AdviceInputs(
        pool=1000, ranks=ranks, positive=ranks % 4 == 0, audit_ranks=np.array([700, 900]),
        audit_positive=np.array([False, True]), price=0.05, spend=3.0, budget=10.0,
        value_per_positive=0.5, **extra)))


def test_money_is_in_the_projects_currency_everywhere():
    data = _advice(currency="EUR")
    lines = advice_lines(data)
    text = "\n".join([lines.headline, lines.next_batch, lines.plan, lines.certification,
                      *(d for _r, _v, d in lines.rules)])
    assert "$" not in text
    assert "7.00 EUR left buys 140 more annotations." in text
    assert " EUR" in lines.next_batch and " EUR" in lines.plan


def test_agreement_on_few_items_is_too_few_to_judge():
    assert agreement_reading_text("unreliable", 4) == "too few to judge (n = 4)"
    assert agreement_reading_text("unreliable", 30).startswith("unreliable — α < 0.667")
    report = {"krippendorff_alpha": 0.21, "reading": "unreliable", "pairable_items": 4,
              "items": 10, "annotators": 2, "ratings": 14, "breakdowns": []}
    view = agreement_view_data(report)
    assert (view.reading, view.reading_text) == ("too few", "too few to judge (n = 4)")
    data = _advice(alpha=0.21, overlap_items=4)
    assert reliability_text(data) == ("continue: α = 0.210 on 4 overlap items: too few to "
                                      "judge (n = 4)")


def test_rule_numbers_read_as_words_and_counts():
    assert rule_numbers_text("pool", {"pool": 236, "labelled": 230.0, "unlabelled": 6,
                                      "exhausted": False}, "USD") == "230 of 236 labelled; 6 unlabelled"
    words = {r["rule"]: rule_numbers_text(r["rule"], r["numbers"], "EUR")
             for r in _advice(currency="EUR")["reasons"]}
    assert words["budget"] == "3.00 EUR spent of 10.00 EUR; 7.00 EUR left buys 140 annotations"
    for text in words.values():
        assert "_" not in text and "False" not in text and "True" not in text
