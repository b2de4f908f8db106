"""Scale of the cal ranking: features once, a refit with 50k labels, rescoring, top-k, the
helper's peak memory, and the desk's key-to-next time while the helper fits.

    .venv/bin/python bench/bench_cal_scale.py --rows 1000000 --labels 50000
    .venv/bin/python bench/bench_cal_scale.py --rows 200000 --labels 50000 --desk 300

Texts are synthetic short texts (8–16 words drawn Zipf-like from a 30,000-word
vocabulary; positives, 2 %, carry one of 40 topic words with probability 0.6), the
imported score a noisy function of the label. The trainer part runs in a child process
(what the desk's helper is), whose peak resident memory is reported. ``--desk N`` then
builds a project of the same pool, following ``cal``, and times N key presses
(``next_candidate`` + ``record_label``) with the helper idle and with it fitting the
project (``train_cal_at``) on its own read connection.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def synthetic(rows: int, seed: int = 0) -> tuple[list[str], np.ndarray, np.ndarray]:
    """(texts, gold, imported score)."""
    rng = np.random.default_rng(seed)
    vocab = np.array([f"w{i}" for i in range(30_000)])
    weights = 1.0 / np.arange(1, vocab.size + 1)
    weights /= weights.sum()
    gold = rng.random(rows) < 0.02
    lengths = rng.integers(8, 17, rows)
    words = rng.choice(vocab, size=int(lengths.sum()), p=weights)
    topic = np.array([f"topic{i}" for i in range(40)])
    texts, at = [], 0
    for i in range(rows):
        w = list(words[at:at + lengths[i]])
        at += lengths[i]
        if gold[i] and rng.random() < 0.6:
            w[0] = str(rng.choice(topic))
        texts.append(" ".join(w))
    score = 0.8 * gold + rng.normal(0, 1, rows)
    return texts, gold, score


def trainer(rows: int, labels: int, out: multiprocessing.Queue) -> None:
    """The helper's work at scale, timed; its peak memory."""
    from sklearn.feature_extraction.text import HashingVectorizer  # noqa: F401 - imports
    from sklearn.linear_model import SGDClassifier  # are not timed

    from triage.stats.models.cal import CalConfig, build_features, fit_scores, head

    texts, gold, score = synthetic(rows)
    t0 = time.perf_counter()
    feats = build_features(texts, [score])
    t_feat = time.perf_counter() - t0
    del texts
    rng = np.random.default_rng(1)
    labeled = np.sort(rng.choice(rows, labels, replace=False))
    config = CalConfig(seed=0)
    t0 = time.perf_counter()
    clf = SGDClassifier(loss="log_loss", class_weight="balanced", alpha=config.alpha,
                        max_iter=config.epochs, tol=None, random_state=0)
    clf.fit(feats[labeled], gold[labeled])
    t_fit = time.perf_counter() - t0
    t0 = time.perf_counter()
    scores = clf.decision_function(feats)
    t_score = time.perf_counter() - t0
    excluded = np.zeros(rows, bool)
    excluded[labeled] = True
    t0 = time.perf_counter()
    top = head(scores, excluded, 1000, 0)
    t_top = time.perf_counter() - t0
    t0 = time.perf_counter()
    again = fit_scores(feats, labeled, gold[labeled], 0, config)  # what the helper calls
    t_whole = time.perf_counter() - t0
    assert again is not None and top.size == 1000
    out.put({"rows": rows, "labels": labels, "features_s": t_feat, "retrain_s": t_fit,
             "rescore_s": t_score, "topk_s": t_top, "fit_and_rescore_s": t_whole,
             "matrix_mb": (feats.data.nbytes + feats.indices.nbytes + feats.indptr.nbytes) / 1e6,
             "helper_peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024})


def cal_project(path: Path, rows: int, work: Path) -> tuple[Any, dict[int, str]]:
    """A project following cal over ``synthetic(rows)`` (its CSV written in ``work``), and
    each candidate id's gold label."""
    import csv

    from triage.ingest.importer import ColumnMapping
    from triage.project import create_project
    from triage.store.settings import LabelOption, Settings

    texts, gold, score = synthetic(rows)
    src = work / "pool.csv"
    with open(src, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["key", "text", "m1", "gold"])
        for i in range(rows):
            w.writerow([f"c{i}", texts[i], f"{score[i]:.6f}", "yes" if gold[i] else "no"])
    settings = Settings(labels=(LabelOption("yes", "y"), LabelOption("no", "o")),
                        positive_labels=("yes",), active_model="cal", overlap_rate=0.0,
                        audit_rate=0.0)
    project = create_project(path, settings)
    project.import_file(src, ColumnMapping(text="text", key="key", scores=(("m1", "m1"),),
                                           gold="gold"))
    gold_of = dict(project.state.db.execute("SELECT id, gold FROM candidates").fetchall())
    return project, gold_of


def desk_probe(rows: int, presses: int, work: Path) -> dict[str, float]:
    """p50/p99 of a key press (serve + record) with the helper idle and while it fits."""
    from triage.project.cal_helper import train_cal_at

    project, gold_of = cal_project(work / "p.triage", rows, work)
    session = project.start_session("probe")

    def press(n: int) -> list[float]:
        out = []
        for _ in range(n):
            t0 = time.perf_counter()
            c = project.next_candidate(session)
            project.record_label(session, c.candidate_id, gold_of[c.candidate_id])
            out.append(time.perf_counter() - t0)
        return out

    press(60)
    project.train_cal(force=True)
    idle = press(presses)
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(1, initializer=os.nice, initargs=(10,)) as pool:  # as the desk's helper
        job = pool.apply_async(train_cal_at, (str(work / "p.triage"), True))
        busy = []
        while not job.ready() or len(busy) < presses:
            busy += press(10)
        job.get()
    project.close()
    q = lambda xs, p: float(np.percentile(np.array(xs) * 1000, p))  # noqa: E731
    return {"desk_rows": rows, "idle_p50_ms": q(idle, 50), "idle_p99_ms": q(idle, 99),
            "fitting_p50_ms": q(busy, 50), "fitting_p99_ms": q(busy, 99),
            "presses_while_fitting": len(busy)}


def main() -> None:
    """Run the trainer in a child process, then the desk probe; print JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--labels", type=int, default=50_000)
    parser.add_argument("--desk", type=int, default=0, metavar="PRESSES")
    parser.add_argument("--desk-rows", type=int)
    args = parser.parse_args()
    ctx = multiprocessing.get_context("spawn")
    out: multiprocessing.Queue = ctx.Queue()
    child = ctx.Process(target=trainer, args=(args.rows, args.labels, out))
    child.start()
    result = out.get()
    child.join()
    print(json.dumps(result), flush=True)
    if args.desk:
        with tempfile.TemporaryDirectory() as work:
            print(json.dumps(desk_probe(args.desk_rows or args.rows, args.desk, Path(work))))


if __name__ == "__main__":
    main()
