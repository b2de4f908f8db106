"""Files other tools accept: Prodigy JSONL for ``db-in``, Label Studio JSON tasks to import.

Prodigy: one task per label event. With a two-label scheme the task stays binary (its
``label`` is the positive label, ``answer`` accept / reject / ignore), else it is a choice
task with the scheme's options in order. A candidate that came from Prodigy gets its
original ``_input_hash``, ``meta`` and ``priority`` back and a label its ``_task_hash``,
so ``db-in`` does not duplicate tasks; Triage's own fields (key, rank, scores in ``meta``;
kind, time, seconds, note, label uid, scheme in ``_triage``) ride along.

Pictures: a task's ``image`` (Prodigy) or ``data.image`` (Label Studio) is the picture as
an absolute path, a URL or a data URI, its text the caption when there is one.

Label Studio: one task per candidate, ``data`` holding the text, key, rank and scores;
each model a prediction (``model_version``, ``score``) whose choice follows the score:
the positive label when the score is at least the threshold (its confidence the score),
else the other label (its confidence ``1 − score``); scores outside [0, 1] always predict
the positive label. Annotations carry the choice, skip (``was_cancelled``) and
``lead_time``; ``completed_by`` only when ``--annotator-email NAME=EMAIL`` maps the
annotator to a Label Studio user (Label Studio refuses unknown emails). The annotator,
kind, time, note and uid of each annotation go in the task's ``meta.triage``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from typing import Any

FROM_NAME = "label"
TO_NAME = "text"
IMAGE_NAME = "image"


def stable_hash(*parts: str) -> int:
    """A stable signed 32-bit hash, the shape of Prodigy's ``_input_hash``/``_task_hash``."""
    digest = hashlib.sha256("\x1f".join(parts).encode("utf-8")).digest()
    return int.from_bytes(digest[:4], "big", signed=True)


def _prodigy_hashes(e: dict[str, Any], question: str) -> tuple[Any, Any, str]:
    """The original (input hash, task hash, task hash as text) of an event from Prodigy.

    Events made in Triage get new hashes from the key and the question.
    """
    kept = e["source"].get("prodigy", {})
    input_hash = kept.get("_input_hash", stable_hash(e["key"]))
    origin = e.get("source_id") or ""
    if origin.startswith("prodigy:"):
        text = origin[len("prodigy:"):].rsplit(":", 1)[0]
        return input_hash, int(text) if text.lstrip("-").isdigit() else text, text
    made = stable_hash(e["key"], question)
    return input_hash, made, str(made)


def _binary(task: dict[str, Any], e: dict[str, Any], labels: list[str], yes: str,
            asked: str) -> None:
    """A binary task about ``asked`` (the label the original task asked about, or the
    positive label): accept when the event's label is it, else reject; a skip is ignore."""
    question = asked if asked in labels else yes
    answer = ("ignore" if e["value"] is None else
              "accept" if e["value"] == question else "reject")
    model = f"prodigy:{question}"
    if model in e["scores"]:   # meta.score is P(the task's label), as textcat.teach writes
        task["meta"]["score"] = e["scores"][model]
    else:
        task["meta"].pop("score", None)
    task.update(label=question, answer=answer, _view_id="classification")


def prodigy_lines(events: list[dict[str, Any]], labels: list[str], positive: list[str],
                  dataset: str) -> Iterator[str]:
    """One JSONL line per label event (dicts from :func:`triage.project.exchange`)."""
    binary = len(labels) == 2 and bool(positive) and positive[0] in labels
    yes = positive[0] if binary else ""
    opts = [{"id": o, "text": o} for o in labels]
    for e in events:
        kept = e["source"].get("prodigy", {})
        meta = dict(kept.get("meta") or {}) if isinstance(kept.get("meta"), dict) else {}
        meta.update({"key": e["key"], "rank": e["rank"],
                     **{f"score_{m}": s for m, s in e["scores"].items()}})
        task: dict[str, Any] = _content(e, "text", "image")
        task["meta"] = meta
        input_hash, task_hash, hash_text = _prodigy_hashes(e, yes or ",".join(labels))
        if binary:
            _binary(task, e, labels, yes, kept.get("labels", {}).get(hash_text, yes))
        else:
            task.update(options=opts, accept=[] if e["value"] is None else [e["value"]],
                        answer="ignore" if e["value"] is None else "accept",
                        _view_id="choice")
        task.update(_input_hash=input_hash, _task_hash=task_hash)
        if "priority" in kept:
            task["priority"] = kept["priority"]
        who = e["annotator"]
        task.update(_annotator_id=who,
                    _session_id=who if who.startswith(f"{dataset}-") else f"{dataset}-{who}",
                    _timestamp=e["timestamp"],
                    _triage={"kind": e["kind"], "created_at": e["created_at"],
                             "seconds": e["seconds"], "note": e["note"],
                             "session": e["session"], "uid": e["uid"], "labels": labels,
                             "positive": positive})
        yield json.dumps(task, ensure_ascii=False, allow_nan=False) + "\n"


def _content(item: dict[str, Any], text: str, image: str) -> dict[str, Any]:
    """The text and picture fields of a task: a picture's caption only when there is one."""
    if not item.get("image"):   # not a picture pool, or a candidate without a picture
        return {text: item["text"]}
    return {image: item["image"], **({text: item["text"]} if item["text"] else {})}


def _result(value: str, to_name: str = TO_NAME) -> list[dict[str, Any]]:
    return [{"from_name": FROM_NAME, "to_name": to_name, "type": "choices",
             "value": {"choices": [value]}}]


def _prediction(model: str, score: float, yes: str, no: str, probabilities: bool,
                threshold: float, to_name: str) -> dict[str, Any]:
    """A Label Studio prediction whose choice follows the score and the threshold."""
    if probabilities and no and score < threshold:
        return {"model_version": model, "score": 1.0 - score, "result": _result(no, to_name)}
    return {"model_version": model, "score": score, "result": _result(yes, to_name)}


def labelstudio_chunks(tasks: list[dict[str, Any]], labels: list[str], positive: list[str],
                       emails: dict[str, str], threshold: float = 0.5) -> Iterator[str]:
    """The JSON list of tasks, a task at a time (from :func:`triage.project.exchange`)."""
    yes = positive[0]
    no = next((v for v in labels if v not in positive), "")
    models = {m for t in tasks for m in t["scores"]}
    probabilities = {m: all(0 <= t["scores"][m] <= 1 for t in tasks if m in t["scores"])
                     for m in models}
    to_name = IMAGE_NAME if any(t.get("image") is not None for t in tasks) else TO_NAME
    yield "["
    for n, t in enumerate(tasks):
        task = {
            "data": {**_content(t, "text", "image"), "key": t["key"], "rank": t["rank"],
                     **{f"score_{m}": s for m, s in t["scores"].items()}},
            "meta": {"triage": {"key": t["key"], "rank": t["rank"], "labels": labels,
                                "positive": positive, "annotations": [
                {"annotator": e["annotator"], "kind": e["kind"], "note": e["note"],
                 "session": e["session"], "created_at": e["created_at"], "uid": e["uid"]}
                for e in t["events"]]}},
            "predictions": [_prediction(m, s, yes, no, probabilities[m], threshold, to_name)
                            for m, s in t["scores"].items()],
            "annotations": [{
                "result": [] if e["value"] is None else _result(e["value"], to_name),
                "was_cancelled": e["value"] is None, "lead_time": e["seconds"],
                **({"completed_by": {"email": emails[e["annotator"]]}} if e["annotator"] in emails
                   else {}),
            } for e in t["events"]],
        }
        yield ("\n" if n == 0 else ",\n") + json.dumps(task, ensure_ascii=False, allow_nan=False)
    yield "\n]\n"


def labeling_config(labels: list[str], *, pictures: bool = False, captions: bool = True
                    ) -> str:
    """The Label Studio labeling config that matches the exported tasks.

    With pictures it is Label Studio's image classification template (``<Image>``, the
    choices about it), with the caption as a ``<Text>`` when there are captions.
    """
    from xml.sax.saxutils import quoteattr

    choices = "".join(f"\n    <Choice value={quoteattr(v)}/>" for v in labels)
    shown = f'  <Text name="{TO_NAME}" value="$text"/>\n' if captions or not pictures else ""
    if pictures:
        shown = f'  <Image name="{IMAGE_NAME}" value="$image"/>\n' + shown
    to_name = IMAGE_NAME if pictures else TO_NAME
    return (f'<View>\n{shown}  <Choices name="{FROM_NAME}" '
            f'toName="{to_name}" choice="single">{choices}\n  </Choices>\n</View>\n')
