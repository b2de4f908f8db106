"""Writes the Prodigy fixtures beside it, from Prodigy's documented ``db-out`` format.

No public Prodigy export with a licence that allows copying was found, so these lines are
derived faithfully from the documented task format (see README.md). Run it from this
folder: ``python derive.py``. The output is committed; this file only records how.
"""

import json

T = 1732540000  # _timestamp: unix seconds, as Prodigy writes it


def write(name, rows):
    with open(name, "w", encoding="utf-8") as handle:
        handle.write("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))


def teach():
    """textcat.teach: one binary task per (text, label), meta.score = P(label), priority."""
    lines = [
        ("Loved every minute of it.", "POSITIVE", 0.912, "accept", "ada"),
        ("Loved every minute of it.", "NEGATIVE", 0.088, "reject", "ada"),
        ("The plot made no sense at all.", "POSITIVE", 0.131, "reject", "ada"),
        ("It was fine, I suppose.", "POSITIVE", 0.555, "reject", "bo"),
        ("It was fine, I suppose.", "NEGATIVE", 0.445, "accept", "bo"),
        ("A bold, beautiful film.", "POSITIVE", 0.802, "accept", "bo"),
        ("The plot made no sense at all.", "NEGATIVE", 0.869, "accept", "bo"),
        ("I want those two hours back.", "NEGATIVE", 0.934, "accept", "ada"),
        ("I want those two hours back.", "POSITIVE", 0.066, "ignore", "ada"),
        ("A bold, beautiful film.", "NEGATIVE", 0.198, "reject", "ada"),
    ]
    hashes = {}
    rows = []
    for i, (text, label, score, answer, who) in enumerate(lines):
        if text not in hashes:
            hashes[text] = [-1913025373, 487340211, 1602981447, -84200187, 2039517250][len(hashes)]
        task_hash = (hashes[text] * 31 + (1 if label == "POSITIVE" else 2)) % 2**31 - 2**30
        rows.append({"text": text, "_input_hash": hashes[text], "_task_hash": task_hash,
                     "label": label, "meta": {"score": score},
                     "priority": round(1 - abs(0.5 - score) * 2, 3), "spans": [],
                     "_view_id": "classification", "answer": answer, "_timestamp": T + 7 * i,
                     "_annotator_id": f"movies-{who}", "_session_id": f"movies-{who}"})
    write("textcat_teach.jsonl", rows)


def binary():
    """textcat.manual with one label: binary accept / reject / ignore tasks."""
    lines = [("Refund my order now", "accept", "ada"), ("What are your opening hours?", "reject", "ada"),
             ("Refund my order now", "accept", "cy"), ("This is the third time I write", "accept", "cy"),
             ("Do you ship to Norway?", "reject", "cy"), ("hmm", "ignore", "ada")]
    rows = []
    for i, (text, answer, who) in enumerate(lines):
        h = 700001 + sum(map(ord, text))
        rows.append({"text": text, "_input_hash": h, "_task_hash": h * 7 % 2**31,
                     "label": "COMPLAINT", "_view_id": "classification", "answer": answer,
                     "_timestamp": T + 60 * i, "_annotator_id": f"support-{who}",
                     "_session_id": f"support-{who}"})
    write("textcat_binary.jsonl", rows)


def choice():
    """textcat.manual --exclusive with three labels: choice tasks.

    One task is accepted with nothing selected; _timestamp is in milliseconds (as many
    export scripts write it); one _annotator_id is an object.
    """
    opts = [{"id": v, "text": v} for v in ("SPORT", "POLITICS", "SCIENCE")]
    lines = [("The match ended in a draw.", ["SPORT"], "accept"),
             ("Parliament passed the bill.", ["POLITICS"], "accept"),
             ("A new comet was spotted.", ["SCIENCE"], "accept"), ("Weather: sunny.", [], "accept"),
             ("The match ended in a draw.", ["SPORT"], "accept"),
             ("Ministers met astronomers.", ["POLITICS"], "reject")]
    rows = []
    for i, (text, accepted, answer) in enumerate(lines):
        h = 900001 + sum(map(ord, text))
        who = "ada" if i % 2 == 0 else "bo"
        rows.append({"text": text, "options": opts, "_input_hash": h, "_task_hash": h * 3 % 2**31,
                     "_view_id": "choice", "config": {"choice_style": "single"},
                     "accept": accepted, "answer": answer, "_timestamp": (T + 30 * i) * 1000,
                     "_annotator_id": f"news-{who}", "_session_id": f"news-{who}"})
    rows[4]["_annotator_id"] = {"name": "news-cy"}
    write("textcat_choice.jsonl", rows)


if __name__ == "__main__":
    teach()
    binary()
    choice()
