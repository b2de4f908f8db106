"""Make the genuine Label Studio exports under tests/data/labelstudio/ (run by hand).

Starts Label Studio from a separate venv on 127.0.0.1 (see ``labelstudio_live.py``), makes
three annotators, a sentiment project (Label Studio's default template: Positive, Negative,
Neutral) with model predictions, annotations by the three users (one skipped task), and a
second project with two choice groups and entity spans; then writes what Label Studio's
export API returns, unchanged: JSON, JSON_MIN and CSV.

    python scripts/labelstudio_fixtures.py --venv /tmp/ls-venv --out tests/data/labelstudio
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from labelstudio_live import SENTIMENT_CONFIG, LabelStudio, write_fixtures  # noqa: E402

TEXTS = [
    ("The staff were friendly and the room was spotless.", 0.93, "Positive"),
    ("Terrible service, we waited an hour for cold food.", 0.88, "Negative"),
    ("The hotel is near the station.", 0.52, "Neutral"),
    ("I would happily come back next summer.", 0.81, "Positive"),
    ("The wifi kept dropping, which was annoying.", 0.67, "Negative"),
    ("Breakfast was fine, nothing special.", 0.45, "Positive"),
    ("Absolutely loved the view from the balcony!", 0.97, "Positive"),
    ("Noise from the street kept us awake.", 0.74, "Negative"),
]

MIXED_CONFIG = """<View>
  <Text name="text" value="$review"/>
  <Labels name="entities" toName="text">
    <Label value="Place"/>
    <Label value="Food"/>
  </Labels>
  <Choices name="sentiment" toName="text" choice="single">
    <Choice value="Positive"/>
    <Choice value="Negative"/>
  </Choices>
  <Choices name="topic" toName="text" choice="single">
    <Choice value="Room"/>
    <Choice value="Dining"/>
  </Choices>
</View>
"""


def choice(from_name: str, value: str) -> dict:
    """One choices result of ``from_name`` on the text."""
    return {"from_name": from_name, "to_name": "text", "type": "choices",
            "value": {"choices": [value]}}


def sentiment(ls: LabelStudio, users: list[int], out: Path) -> None:
    """The sentiment project: predictions of two models, 3 annotators, one skip."""
    project = ls.project("Hotel reviews (sentiment)", SENTIMENT_CONFIG)
    tasks = []
    for n, (text, score, label) in enumerate(TEXTS):
        other = "Negative" if label == "Positive" else "Positive"
        tasks.append({"data": {"text": text}, "predictions": [
            {"model_version": "sentiment-v1", "score": score,
             "result": [choice("sentiment", label)]},
            {"model_version": "sentiment-v2", "score": round(1 - score / 2, 3),
             "result": [choice("sentiment", other if n % 3 == 0 else label)]}]})
    ls.import_tasks(project, tasks)
    ls.request("PATCH", f"/api/projects/{project}/", {"model_version": "sentiment-v1"})
    ids = [t["id"] for t in ls.get(f"/api/tasks/?project={project}&page_size=100")["tasks"]]
    plan = [  # (task index, annotator index, label or None for a skip, seconds)
        (0, 0, "Positive", 4.2), (0, 1, "Positive", 3.1), (0, 2, "Positive", 6.0),
        (1, 0, "Negative", 2.5), (1, 1, "Negative", 3.3),
        (2, 0, "Neutral", 7.9), (2, 2, "Positive", 5.0),
        (3, 1, "Positive", 2.0), (4, 2, "Negative", 3.7),
        (5, 0, None, 1.2),        # ada skips this task
        (6, 1, "Positive", 1.9),
    ]
    for task, who, label, seconds in plan:
        body = {"result": [] if label is None else [choice("sentiment", label)],
                "completed_by": users[who], "lead_time": seconds,
                "was_cancelled": label is None}
        ls.post(f"/api/tasks/{ids[task]}/annotations/", body)
    for kind, suffix in (("JSON", "json"), ("JSON_MIN", "min.json"), ("CSV", "csv")):
        (out / f"sentiment.{suffix}").write_bytes(ls.export(project, kind))
    (out / "sentiment.snapshot.json").write_bytes(ls.snapshot(project))
    (out / "sentiment.config.xml").write_text(SENTIMENT_CONFIG, encoding="utf-8")


def mixed(ls: LabelStudio, users: list[int], out: Path) -> None:
    """Two choice groups and entity spans in one project: what a team export often holds."""
    project = ls.project("Hotel reviews (mixed)", MIXED_CONFIG)
    ls.import_tasks(project, [{"data": {"review": t}} for t, _s, _l in TEXTS[:3]])
    ids = [t["id"] for t in ls.get(f"/api/tasks/?project={project}&page_size=100")["tasks"]]
    for n, task in enumerate(ids):
        result = [choice("sentiment", "Positive" if n != 1 else "Negative"),
                  choice("topic", "Room" if n != 1 else "Dining"),
                  {"from_name": "entities", "to_name": "text", "type": "labels",
                   "value": {"start": 4, "end": 9, "text": TEXTS[n][0][4:9],
                             "labels": ["Place"]}}]
        ls.post(f"/api/tasks/{task}/annotations/", {"result": result,
                                                    "completed_by": users[n % 3],
                                                    "lead_time": 3.0 + n})
    (out / "mixed.json").write_bytes(ls.export(project, "JSON"))
    (out / "mixed.config.xml").write_text(MIXED_CONFIG, encoding="utf-8")


def both(ls: LabelStudio, users: list[int], out: Path, _data_dir: Path) -> None:
    """The sentiment and mixed projects and their exports."""
    sentiment(ls, users, out)
    mixed(ls, users, out)


def main() -> int:
    """Start Label Studio, make both projects, write their exports, stop it."""
    return write_fixtures(__doc__, ("ada", "bo", "cy"), both, "Label Studio exports")


if __name__ == "__main__":
    raise SystemExit(main())
