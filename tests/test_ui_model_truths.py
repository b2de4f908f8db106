"""What the Models tab and the charts say is true: bold marks a best value that carries
information; the demo's calibration reads as the docs say."""

from __future__ import annotations

import csv
from pathlib import Path

from PySide6.QtGui import QFont

from tests.helpers import SCHEME, write_pool
from triage.ingest.importer import ColumnMapping
from triage.project import create_project
from triage.store.settings import Settings
from triage.views.models import build_models_view_data, models_inputs

ROOT = Path(__file__).resolve().parent.parent


def _count_and_probability(tmp_path):
    """``count``: a frequency, ≥ 1 everywhere (every item ≥ 0.5: recall 1.000 for free);
    ``prob``: a probability that mostly agrees with the gold label."""
    rows = [{"key": f"c{i:03d}", "text": f"phrase {i}", "count": str(1 + i % 7),
             "prob": f"{(0.8 if i % 3 == 0 and i % 9 else 0.2) + (0.15 if i % 5 == 0 else 0):.2f}",
             "gold": "idiom" if i % 3 == 0 else "literal"} for i in range(60)]
    project = create_project(tmp_path / "p.triage", Settings(
        labels=SCHEME, positive_labels=("idiom",), price_per_item=0.04))
    project.import_file(write_pool(tmp_path / "pool.csv", rows), ColumnMapping(
        text="text", key="key", scores=(("count", "count"), ("prob", "prob")), gold="gold"))
    return project


def test_a_recall_every_item_earns_is_not_bold(qtbot, tmp_path):
    from ui.analysis import ModelsView

    project = _count_and_probability(tmp_path)
    data = build_models_view_data(models_inputs(project), trials=20, value=False)
    project.close()
    assert data.metrics["count"]["recall"] == 1.0 > data.metrics["prob"]["recall"]
    assert "count" in data.one_sided and data.best("recall") == "prob"   # informative
    assert data.best("roc_auc") == "prob"      # a ranking metric still has its best
    view = ModelsView()
    qtbot.addWidget(view)
    view.show_data(data)
    col = list(data.models).index("count")
    row = list(data.metric_names).index("recall")
    cell = view.metrics_table.item(row, col)
    assert cell.text() == "1.000"
    assert cell.font().weight() != QFont.Weight.Bold
    assert cell.toolTip().startswith("every labeled candidate scores ≥ 0.5")
    assert ("count: every labeled candidate scores ≥ 0.5: it predicts all positive, so its "
            "metrics at the threshold are never bold.") in view.metrics_caption.text()
    auc = view.metrics_table.item(list(data.metric_names).index("roc_auc"),
                                  list(data.models).index("prob"))
    assert auc.font().weight() == QFont.Weight.Bold


def test_a_tie_is_not_bold(tmp_path):
    project = _count_and_probability(tmp_path)
    data = build_models_view_data(models_inputs(project), trials=20, value=False)
    project.close()
    tied = {**data.metrics, "count": dict(data.metrics["prob"])}
    from dataclasses import replace
    assert replace(data, metrics=tied, one_sided={}).best("roc_auc") is None


def _demo_reliability() -> list[tuple[float, float, int]]:
    """(mean confidence, accuracy, items) per 0.1 confidence bin of the demo classifier."""
    with open(ROOT / "resources/demo/idioms.csv", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    bins: dict[int, list[tuple[float, bool]]] = {}
    for row in rows:
        p, idiom = float(row["m3_classifier"]), row["gold"] == "idiom"
        confidence = max(p, 1 - p)
        bins.setdefault(min(int((confidence - 0.5) * 10), 4), []).append(
            (confidence, (p >= 0.5) == idiom))
    return [(sum(c for c, _ in v) / len(v), sum(ok for _, ok in v) / len(v), len(v))
            for _b, v in sorted(bins.items())]


def test_the_docs_describe_the_demo_classifiers_calibration_as_the_chart_shows_it():
    """The Calibration chart pools both classes by confidence: the demo classifier's
    accuracy is above its confidence in every bin (underconfident), while its 'idiom'
    calls in the middle are too sure (of the items it scores 0.5–0.6, 28 % are idioms)."""
    bins = _demo_reliability()
    assert all(accuracy > confidence for confidence, accuracy, _n in bins)
    guide = (ROOT / "docs/guide/lead.md").read_text(encoding="utf-8")
    row = next(line for line in guide.splitlines() if line.startswith("| classifier"))
    assert "overconfident" not in row
    assert "as the Models tab's Calibration chart draws it, it is **underconfident**" in \
        " ".join(guide.split())
