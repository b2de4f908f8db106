"""Write the synthetic stopping pool of docs/numbers/stopping.md: 20,000 items, 2% positives.

Scores are probabilities σ(N(0, 1) + 2.5·y − 4) drawn with seed 12; columns ``id``, ``p``,
``gold`` ("pos"/"neg").

    .venv/bin/python bench/make_synthetic_csv.py synth20k.csv
"""

from __future__ import annotations

import csv
import sys

import numpy as np


def main(out: str, n: int = 20_000, prevalence: float = 0.02, seed: int = 12) -> int:
    """Write the CSV to ``out``."""
    rng = np.random.default_rng(seed)
    y = rng.random(n) < prevalence
    p = 1 / (1 + np.exp(-(rng.normal(0, 1, n) + 2.5 * y - 4)))
    with open(out, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["id", "p", "gold"])
        for i in range(n):
            w.writerow([i, repr(float(p[i])), "pos" if y[i] else "neg"])
    print(f"wrote {n} rows ({int(y.sum())} positive) to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "synth20k.csv"))
