"""Write CIFAR-10's test set as a "find the cats" pool for ``triage simulate``.

Source: tests/data/cleanlab (cleanlab/label-errors @ 6d5d6b3, Apache-2.0; see its
LICENSE): cross-validated predicted probabilities (10,000 × 10) and the original labels.
Columns: ``id`` (row index), ``p_cat`` (predicted probability of class 3, "cat") and ``gold``
("cat"/"other"): 1,000 positives in 10,000, a realistic needle-in-a-haystack stopping case.

    .venv/bin/python bench/make_cifar_cat_csv.py /tmp/cifar_cat.csv
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

import numpy as np

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "cleanlab"
CAT = 3


def main(out: str) -> int:
    """Write the CSV to ``out``."""
    probs = np.load(DATA / "cross_validated_predicted_probabilities__cifar10_test_set_pyx.npy")
    labels = np.load(DATA / "original_test_labels__cifar10_test_set_original_labels.npy")
    with open(out, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["id", "p_cat", "gold"])
        for i, (p, y) in enumerate(zip(probs, labels, strict=True)):
            w.writerow([i, repr(float(p[CAT])), "cat" if y == CAT else "other"])
    print(f"wrote {len(labels)} rows ({int((labels == CAT).sum())} cats) to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "cifar_cat.csv"))
