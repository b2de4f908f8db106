"""Check Triage's Label Studio export against a real Label Studio (not in the test run).

1. makes a Triage project from the genuine export tests/data/labelstudio/sentiment.snapshot.json
   (3 annotators, 2 models, a skip);
2. exports it with ``triage export --to labelstudio`` (two annotators mapped to Label Studio
   users with --annotator-email, the third left out);
3. starts Label Studio (a separate venv, 127.0.0.1 only), creates those users and a project
   with the exported labelling config, and imports the tasks through its API;
4. exports them again (JSON and a full snapshot) and imports that back into Triage;
5. compares labels (key, annotator, label or skip, seconds) and scores with step 1.

    .venv/bin/python scripts/labelstudio_roundtrip.py --venv /tmp/ls-venv

Exits 0 when everything matches. Label Studio is stopped at the end.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from labelstudio_live import LabelStudio  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "tests" / "data" / "labelstudio" / "sentiment.snapshot.json"
MAPPED = {"ada@example.org": "ada@example.org", "bo@example.org": "bo@example.org"}


def triage(*args: str) -> str:
    """Run the triage command line; its output (fails loudly)."""
    done = subprocess.run([str(Path(sys.executable).with_name("triage")), *args], capture_output=True,
                          text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"triage {' '.join(args)} failed:\n{done.stdout}{done.stderr}")
    return done.stdout


def labels_and_scores(path: Path) -> tuple[Counter, dict]:
    """(key, annotator, value, seconds) of every active label, and every model's scores."""
    from triage import store
    from triage.project import open_project
    from triage.project.gain import project_scores
    from triage.store import exchange

    with open_project(path) as project:
        rows = store.active_labels(project.db)
        keys = {cid: key for cid, key, _t in exchange.candidates_in_id_order(project.db)}
        labels = Counter((keys[r.candidate_id], r.annotator, r.value, round(r.seconds, 3))
                         for r in rows)
        scores = {m: {keys[i + 1]: round(float(v), 9) for i, v in enumerate(s)}
                  for m, (_c, s) in project_scores(project).items()}
    return labels, scores


def main() -> int:
    """Run the round trip; print what Label Studio said and whether it matched."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--venv", type=Path, default=Path("/tmp/ls-venv"))
    parser.add_argument("--port", type=int, default=8089)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="ls-roundtrip-"))
    original = work / "original.triage"
    triage("new", str(original), str(SOURCE), "--from", "labelstudio")
    out = work / "for-labelstudio.json"
    triage("export", str(original), str(out), "--to", "labelstudio",
           *[f"--annotator-email={n}={e}" for n, e in MAPPED.items()])
    ls = LabelStudio(args.port, work / "ls-data", args.venv)
    try:
        for email in MAPPED.values():
            ls.user(email, email.split("@")[0].title(), "Tester")
        project = ls.project("Triage round trip",
                             out.with_suffix(".config.xml").read_text(encoding="utf-8"))
        answer = ls.import_tasks(project, json.loads(out.read_text(encoding="utf-8")))
        print("Label Studio import:", {k: answer.get(k) for k in (
            "task_count", "annotation_count", "prediction_count", "could_be_tasks_list")})
        (work / "again.json").write_bytes(ls.export(project, "JSON"))
        (work / "again.snapshot.json").write_bytes(ls.snapshot(project))
    finally:
        ls.stop()
    snapshot = json.loads((work / "again.snapshot.json").read_text(encoding="utf-8"))
    print("Label Studio users of the annotations:", dict(Counter(
        a["completed_by"]["email"] for t in snapshot for a in t["annotations"])))
    before = labels_and_scores(original)
    ok = True
    for name in ("again.json", "again.snapshot.json"):
        back = work / f"{name}.triage"
        print(triage("new", str(back), str(work / name), "--from", "labelstudio").strip())
        labels, scores = labels_and_scores(back)
        same_labels = labels == before[0]
        same_scores = all(scores.get(m) == s for m, s in before[1].items())
        print(f"{name}: labels {'match' if same_labels else 'DIFFER'}, "
              f"scores {'match' if same_scores else 'differ'} "
              f"({sum(labels.values())} labels)")
        if not same_labels:
            print("  only before:", before[0] - labels, "\n  only after:", labels - before[0])
        ok = ok and same_labels and (same_scores or name == "again.json")
    print(f"files in {work}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
