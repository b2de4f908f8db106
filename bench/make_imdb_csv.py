"""Write the IMDB test set (25,000 reviews) as a labeled CSV for ``triage simulate``.

Source: tests/data/cleanlab (cleanlab/label-errors @ 6d5d6b3, Apache-2.0; see its
LICENSE): cross-validated predicted probabilities and the original test labels. Columns:
``id`` (row index), ``p_positive`` (predicted probability of a positive review), ``p_negative``
and ``gold`` ("pos"/"neg"). No review text is included.

    .venv/bin/python bench/make_imdb_csv.py /tmp/imdb.csv
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

import numpy as np

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "cleanlab"


def main(out: str) -> int:
    probs = np.load(DATA / "cross_validated_predicted_probabilities__imdb_test_set_pyx.npy")
    labels = np.load(DATA / "original_test_labels__imdb_test_set_original_labels.npy")
    with open(out, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["id", "p_positive", "p_negative", "gold"])
        for i, (p, y) in enumerate(zip(probs, labels, strict=True)):
            w.writerow([i, repr(float(p[1])), repr(float(p[0])), "pos" if y == 1 else "neg"])
    print(f"wrote {len(labels)} rows ({int(labels.sum())} positive) to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "imdb.csv"))
