"""Generate a realistic candidate CSV for the import benchmark: key, text, two scores[, gold].

Texts are short phrases (2-5 words from a fixed vocabulary, like multiword-expression
candidates). At 1,000,000 rows ``m1`` (uniform, 7 decimals) has about 9.5% tied items and
``m2`` (skewed, 8 decimals, 5% exact zeros) about 11.5%, so tie handling is exercised as
with real model output.
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

import numpy as np

WORDS = ["break", "the", "ice", "spill", "beans", "kick", "bucket", "under", "the", "weather", "piece", "of", "cake", "hit", "the", "sack", "once", "in", "a", "blue", "moon", "cost", "an", "arm", "and", "a", "leg", "let", "the", "cat", "out", "of", "bag", "call", "it", "a", "day", "cut", "corners", "go", "back", "to", "drawing", "board", "hang", "in", "there", "make", "long", "story", "short", "miss", "boat", "no", "pain", "gain", "on", "the", "ball", "pull", "leg", "so", "far", "so", "good", "speak", "of", "devil", "time", "flies", "when", "having", "fun", "get", "out", "of", "hand", "get", "something", "off", "chest", "give", "benefit", "doubt", "go", "down", "in", "flames", "red", "tape", "white", "lie", "green", "light", "black", "sheep", "cold", "feet", "hot", "potato", "big", "picture", "small", "talk", "last", "straw", "fine", "line", "open", "secret", "close", "call", "high", "time", "low", "profile", "running", "water", "heavy", "rain", "strong", "coffee", "fast", "food", "hard", "disk", "soft", "drink", "dry", "run", "wet", "blanket"]


def generate(path: str | Path, rows: int, seed: int = 7, gold: bool = False) -> Path:
    """Write ``rows`` candidates to ``path`` (CSV) and return the path.

    ``gold`` adds a ``gold`` column ("pos" or "neg"; positives are likelier at high ``m1``,
    about 14% overall) drawn from its own generator, so the other columns do not change.
    """
    rng = np.random.default_rng(seed)
    words = np.asarray(WORDS, dtype=object)
    lengths = rng.integers(2, 6, size=rows)
    picks = rng.integers(0, len(words), size=(rows, 5))
    m1 = np.round(rng.random(rows), 7)
    m2 = np.round(rng.beta(0.5, 3.0, rows), 8)
    m2[rng.random(rows) < 0.05] = 0.0
    path = Path(path)
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["key", "text", "m1", "m2"] + (["gold"] if gold else []))
        texts = (" ".join(words[p[:n]]) for p, n in zip(picks, lengths))
        columns = [(f"cand-{i:07d}" for i in range(rows)), texts,
                   (f"{x:.7f}" for x in m1.tolist()), (f"{x:.8f}" for x in m2.tolist())]
        if gold:
            positive = np.random.default_rng(seed + 1).random(rows) < 0.4 * m1 ** 2
            columns.append(np.where(positive, "pos", "neg").tolist())
        writer.writerows(zip(*columns))
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out", type=Path)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--gold", action="store_true", help="add a gold column (pos/neg)")
    args = parser.parse_args()
    generate(args.out, args.rows, gold=args.gold)
    print(f"wrote {args.rows:,} rows to {args.out}")


if __name__ == "__main__":
    main()
