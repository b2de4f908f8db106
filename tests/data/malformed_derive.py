"""Writes the malformed fixtures under prodigy/malformed and labelstudio/malformed.

Each is a genuine (Label Studio) or documented-format (Prodigy) fixture of this folder
with ONE value broken the way they were found in the wild. The name says what.
Run from this folder: ``python malformed_derive.py``; the output is committed.
"""

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent


def prodigy(name, change, line=3):
    rows = (HERE / "prodigy" / "textcat_binary.jsonl").read_text(encoding="utf-8").splitlines()
    obj = json.loads(rows[line - 1])
    text = change(obj)
    rows[line - 1] = text if isinstance(text, str) else json.dumps(obj)
    (HERE / "prodigy" / "malformed" / f"{name}.jsonl").write_text("\n".join(rows) + "\n",
                                                                 encoding="utf-8")


def labelstudio(name, change):
    tasks = json.loads((HERE / "labelstudio" / "sentiment.json").read_text(encoding="utf-8"))
    text = change(tasks)
    out = text if isinstance(text, str) else json.dumps(tasks, indent=1)
    (HERE / "labelstudio" / "malformed" / f"{name}.json").write_text(out, encoding="utf-8")


def surrogate(obj):
    obj["text"] = "SURROGATE"
    return json.dumps(obj).replace("SURROGATE", "broken \\ud800 text")


def ls_surrogate(tasks):
    tasks[2]["data"]["text"] = "SURROGATE"
    return json.dumps(tasks, indent=1).replace("SURROGATE", "broken \\ud800 text")


prodigy("timestamp_huge", lambda o: o.update(_timestamp=10**20))
prodigy("timestamp_negative", lambda o: o.update(_timestamp=-5))
prodigy("timestamp_float_inf", lambda o: "{\"text\": \"x\", \"label\": \"COMPLAINT\", "
        "\"answer\": \"accept\", \"_timestamp\": 1e999}")
prodigy("text_lone_surrogate", surrogate)
prodigy("triage_seconds_text", lambda o: o.update(_triage={"seconds": "fast"}))
prodigy("annotator_object_without_name", lambda o: o.update(_annotator_id={"x": 1}))
prodigy("answer_unknown", lambda o: o.update(answer="maybe"))
prodigy("accept_two_options", lambda o: o.update(accept=["A", "B"], options=[]))
prodigy("score_text", lambda o: o.update(meta={"score": "high"}))
prodigy("not_json", lambda o: "{not json")
prodigy("line_is_a_list", lambda o: "[1, 2]")
labelstudio("lead_time_text", lambda t: t[0]["annotations"][1].update(lead_time="slow"))
labelstudio("lead_time_object", lambda t: t[0]["annotations"][1].update(lead_time={"s": 3}))
labelstudio("result_value_string",
            lambda t: t[1]["annotations"][0]["result"][0].update(value="Negative"))
labelstudio("created_at_1e20", lambda t: t[3]["annotations"][0].update(created_at=1e20))
labelstudio("text_lone_surrogate", ls_surrogate)
labelstudio("prediction_not_an_id", lambda t: t[4].update(predictions=[True]))
labelstudio("two_choices", lambda t: t[0]["annotations"][0]["result"][0]["value"].update(
    choices=["Positive", "Negative"]))
labelstudio("completed_by_list", lambda t: t[1]["annotations"][1].update(completed_by=[3]))
labelstudio("annotations_not_a_list", lambda t: t[2].update(annotations=3.5))


def ls_id_surrogate(tasks):
    tasks[1]["annotations"][0]["id"] = "SURROGATE"
    return json.dumps(tasks, indent=1).replace("SURROGATE", "\\ud800")


labelstudio("annotation_id_lone_surrogate", ls_id_surrogate)
labelstudio("not_a_list", lambda t: json.dumps({"tasks": t}))
