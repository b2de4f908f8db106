"""Agreement coefficients against the published worked examples and degenerate cases.

The vectors live in ../shared/test-vectors/agreement.py (loaded from that path).
"""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from tests.helpers import DATA_DIR
from triage.base.errors import TriageError
from triage.stats.agreement.coefficients import (
    cohen_pairs,
    fleiss_counts,
    fleiss_kappa,
    from_subject_counts,
    gwet_ac1,
    gwet_counts,
    kappa_from_tables,
    kappa_weights,
    mean_kappa,
    percent_agreement,
    randolph_counts,
)
from triage.stats.agreement.krippendorff import coincidence_matrix, krippendorff_alpha
from triage.stats.agreement.ratings import encode, from_wide
from triage.stats.agreement.report import agreement_report, reading
from triage.views.agreement_words import agreement_words, reason_text

VECTOR_FILE = DATA_DIR / "vectors" / "agreement.py"


def _load_vectors():
    if not VECTOR_FILE.exists():
        return None
    spec = importlib.util.spec_from_file_location("agreement_vectors", VECTOR_FILE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


VECTORS = _load_vectors()
needs_vectors = pytest.mark.skipif(
    VECTORS is None, reason=f"published test vectors not found at {VECTOR_FILE}"
)
_ALL = (VECTORS.VECTORS + VECTORS.DEGENERATE) if VECTORS else []


def _contingency_to_labels(table):
    """Expand a contingency table into two label vectors (rater A, rater B)."""
    items, anns, labels = [], [], []
    k = 0
    for a, row in enumerate(table):
        for b, count in enumerate(row):
            for _ in range(int(count)):
                items += [k, k]
                anns += ["A", "B"]
                labels += [str(a), str(b)]
                k += 1
    return items, anns, labels


def _compute(entry):
    """The project's value for one vector entry (a Coefficient)."""
    metric, layout, data, level = entry["metric"], entry["layout"], entry["data"], entry["level"]
    if layout == "units_x_raters":
        ratings = from_wide(data, level=level if level in ("interval", "ratio") else "nominal")
        return krippendorff_alpha(ratings, level)
    if layout == "contingency":
        weights = level if metric == "weighted_cohen_kappa" else None
        direct = kappa_from_tables(np.array(data), kappa_weights(np.arange(len(data)), weights))[0]
        # The same value must come out of the long-form path per annotator pair.
        cats = [str(i) for i in range(len(data))]
        ratings = encode(*_contingency_to_labels(data), level="ordinal", categories=cats)
        (pair,) = cohen_pairs(ratings, weights)
        assert pair.kappa.value == pytest.approx(direct.value, abs=1e-12)
        return direct
    if layout == "subject_counts":
        q = len(data[0]) if data else 0
        fn = {"fleiss_kappa": fleiss_counts, "randolph_kappa": randolph_counts}[metric]
        return fn(*from_subject_counts(data), q)
    if layout == "label_vectors":
        y1, y2 = data["y1"], data["y2"]
        ratings = encode(list(range(len(y1))) * 2, ["A"] * len(y1) + ["B"] * len(y2), y1 + y2)
        (pair,) = cohen_pairs(ratings)
        assert mean_kappa([pair]).value == pair.kappa.value
        return pair.kappa
    raise AssertionError(f"unknown layout {layout}")


@needs_vectors
@pytest.mark.parametrize("entry", _ALL, ids=[e["name"] for e in _ALL])
def test_vector(entry):
    result = _compute(entry)
    if entry["expected"] is None:
        assert result.value is None, f"{entry['name']} must be undefined, got {result.value}"
        assert result.reason and reason_text(result.reason).endswith(("0/0", "compare", "ratings"))
    else:
        assert result.reason is None
        assert result.value == pytest.approx(entry["expected"], abs=entry["tolerance"])
        if "exact" in entry:
            assert result.value == pytest.approx(entry["exact"], abs=1e-12)


@needs_vectors
def test_companion_values_of_systematic_disagreement():
    entry = next(e for e in VECTORS.DEGENERATE if e["name"] == "systematic_total_disagreement")
    ratings = from_wide(entry["data"])
    assert mean_kappa(cohen_pairs(ratings)).value == pytest.approx(entry["companion"]["cohen_kappa"])
    assert gwet_ac1(ratings).value == pytest.approx(entry["companion"]["gwet_ac1"])
    assert fleiss_kappa(ratings).value == pytest.approx(entry["companion"]["fleiss_kappa_gwet"])


@needs_vectors
def test_single_rated_items_enter_ac1_and_fleiss_like_irrcac():
    # The vector's notes quote irrCAC: AC1 0.7091639 -> 0.7366391, Fleiss 0.6860195 -> 0.7154765.
    entry = next(e for e in VECTORS.DEGENERATE if e["name"] == "single_rated_items_are_dropped")
    before, after = from_wide(entry["data"][:15]), from_wide(entry["data"])
    assert gwet_ac1(before).value == pytest.approx(0.7091639, abs=5e-8)
    assert gwet_ac1(after).value == pytest.approx(0.7366391, abs=5e-8)
    assert fleiss_kappa(before).value == pytest.approx(0.6860195, abs=5e-8)
    assert fleiss_kappa(after).value == pytest.approx(0.7154765, abs=5e-8)
    assert krippendorff_alpha(before).value == pytest.approx(krippendorff_alpha(after).value)


def test_esslli_coincidence_matrix_matches_the_slide():
    # Seed 002: O_NN,NN + O_VBP,VBP = 4.33 + 3.33, n_NN = 8, n_VBP = 7, α ≈ 0.083.
    rows = [["NN", None, "NN", "NN"], ["NN", "VBP", "VBP", "NN"],
            ["VBP", "VBP", "VBP", "NN"], ["VBP", "NN", "NN", "VBP"]]
    r = from_wide(rows, categories=["NN", "VBP"])
    o = coincidence_matrix(r.item, r.code, 2)
    assert np.diag(o) == pytest.approx([13 / 3, 10 / 3])
    assert o.sum(axis=1) == pytest.approx([8, 7])
    assert krippendorff_alpha(r).value == pytest.approx(1 / 12, abs=1e-12)


def test_seed_004_cohen_example():
    # Boyd-Graber: A yes 25/no 25, B yes 30/no 20, 35 agreements of 50 -> κ = 0.4.
    (k,) = kappa_from_tables(np.array([[20, 5], [10, 15]]))
    assert k.value == pytest.approx(0.4, abs=1e-12)


def test_unused_declared_category_changes_ac1_but_not_alpha_or_kappa():
    items, anns = [1, 1, 2, 2, 3, 3, 4, 4], ["a", "b"] * 4
    labels = ["x", "x", "y", "y", "x", "y", "x", "x"]
    two = encode(items, anns, labels, categories=["x", "y"])
    three = encode(items, anns, labels, categories=["x", "y", "z"])
    # pa = 3/4; π = (5/8, 3/8); q=2: pe = 2·(15/64) = 15/32; q=3: pe = 15/64.
    assert gwet_ac1(two).value == pytest.approx((0.75 - 15 / 32) / (1 - 15 / 32))
    assert gwet_ac1(three).value == pytest.approx((0.75 - 15 / 64) / (1 - 15 / 64))
    assert krippendorff_alpha(two).value == pytest.approx(krippendorff_alpha(three).value)
    assert fleiss_kappa(two).value == pytest.approx(fleiss_kappa(three).value)
    assert percent_agreement(two).value == pytest.approx(0.75)


def test_percent_agreement_averages_items():
    # Item 1: 3 raters all agree (3/3 pairs); item 2: 3 raters, 1 of 3 pairs agree;
    # item 3: one rating (not pairable).
    r = encode([1, 1, 1, 2, 2, 2, 3], list("abcabca"), list("xxxxxyy"))
    assert percent_agreement(r).value == pytest.approx((1 + 1 / 3) / 2)


@pytest.mark.parametrize("fn", [krippendorff_alpha, fleiss_kappa, gwet_ac1, percent_agreement])
def test_empty_input_is_undefined(fn):
    result = fn(encode([], [], [], categories=["a", "b"]))
    assert result.value is None and reason_text(result.reason) == "there are no ratings"


def test_single_annotator_is_undefined_everywhere():
    r = encode([1, 2, 3], ["a", "a", "a"], ["x", "y", "x"])
    assert reason_text(krippendorff_alpha(r).reason).startswith("no item has ratings from two")
    assert reason_text(fleiss_kappa(r).reason).startswith("no item has two or more ratings")
    assert gwet_ac1(r).value is None and percent_agreement(r).value is None
    assert cohen_pairs(r) == []
    assert reason_text(mean_kappa([]).reason) == "no two annotators rated an item in common"


def test_one_category_is_undefined_for_chance_corrected_coefficients():
    r = encode([1, 1, 2, 2], ["a", "b", "a", "b"], ["x"] * 4, categories=["x", "y"])
    assert krippendorff_alpha(r).value is None
    assert "0/0" in reason_text(fleiss_kappa(r).reason)
    (pair,) = cohen_pairs(r)
    assert pair.kappa.value is None and "0/0" in reason_text(pair.kappa.reason)
    assert reason_text(mean_kappa([pair]).reason, ("a", "b", pair.kappa.reason)) == (
        "Cohen's κ is undefined for every annotator pair (a|b: every rating is in the same "
        "category, so chance agreement is 1 and the coefficient is 0/0)")
    # Observed agreement itself is a plain 1.0, not a chance-corrected figure.
    assert percent_agreement(r).value == 1.0


def test_ac1_needs_two_declared_categories():
    r = encode([1, 1], ["a", "b"], ["x", "x"])
    assert reason_text(gwet_counts(*from_subject_counts([[2]]), 1).reason).startswith("AC1 needs")
    assert gwet_ac1(r).value is None


def test_pairs_without_common_items_are_undefined():
    (k,) = kappa_from_tables(np.zeros((1, 2, 2)))
    assert k.value is None and "no item in common" in reason_text(k.reason)


def test_reading_bands():
    from triage.stats.agreement.ratings import Coefficient

    assert reading(Coefficient.of(0.8)) == "reliable"
    assert reading(Coefficient.of(0.7999)) == "tentative"
    assert reading(Coefficient.of(0.667)) == "tentative"
    assert reading(Coefficient.of(0.6669)) == "unreliable"
    assert reading(Coefficient.of(-0.5)) == "unreliable"
    assert reading(Coefficient.undefined("no data")) == "undefined"


def test_last_rating_of_an_item_by_an_annotator_counts():
    r = encode([1, 1, 1], ["a", "b", "a"], ["x", "y", "y"])
    assert r.replaced == 1 and len(r) == 2
    assert sorted(r.code.tolist()) == [1, 1]
    assert r.source.tolist() == [1, 2]


def test_encode_rejects_undeclared_labels_and_unordered_words():
    with pytest.raises(TriageError, match="not one of the declared categories"):
        encode([1], ["a"], ["maybe"], categories=["yes", "no"])
    with pytest.raises(TriageError, match="needs the category order"):
        encode([1, 1], ["a", "b"], ["low", "high"], level="ordinal")
    with pytest.raises(TriageError, match="not a number"):
        encode([1, 1], ["a", "b"], ["1", "high"], level="interval", categories=["1", "high"])
    with pytest.raises(TriageError, match="non-negative"):
        encode([1, 1], ["a", "b"], ["-1", "2"], level="ratio")


def test_numeric_labels_sort_numerically_for_ordinal():
    r = encode([1, 1, 2, 2], ["a", "b", "a", "b"], ["10", "9", "2", "10"], level="ordinal")
    assert r.categories == ("2", "9", "10")


def test_report_of_degenerate_input_has_reasons_and_no_numbers():
    rep = agreement_report([1, 1, 2, 2], ["a", "b", "a", "b"], ["x"] * 4, bootstrap=50)
    data = agreement_words(rep.to_json())
    assert data["krippendorff_alpha"] is None and data["fleiss_kappa"] is None
    assert data["reading"] == "undefined"
    assert data["undefined_reason"] == data["reasons"]["krippendorff_alpha"]
    assert "0/0" in data["undefined_reason"]
    assert data["alpha_ci95"] is None and "every resample" in data["reasons"]["alpha_ci95"]
    assert data["cohen_kappa_pairs"]["a|b"]["kappa"] is None
    assert data["percent_agreement"] == 1.0


def test_report_of_empty_input():
    data = agreement_report([], [], [], bootstrap=10).to_json()
    assert data["items"] == 0 and data["ratings"] == 0 and data["pairable_items"] == 0
    assert data["krippendorff_alpha"] is None and data["reasons"]["gwet_ac1"]
    assert data["cohen_kappa_pairs"] == {} and data["alpha_ci95"] is None
