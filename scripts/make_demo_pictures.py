"""Build the picture demo: handwritten digits, "is it a 3?", scored by two real classifiers.

Source: scikit-learn's bundled copy of the UCI "Optical Recognition of Handwritten Digits"
test set (E. Alpaydin, C. Kaynak, 1998; CC BY 4.0). Each 8 × 8 bitmap (values 0–16) is
written enlarged to a 64 × 64 PNG, dark ink on white, nearest-neighbour (the pixels stay
visible as the blocks they are).

The digits are split in two halves at random (seeded). Two logistic regressions learn
"is it a 3?" on the first half; the demo pool is the first ``N_POOL`` of the second half,
scored by them, with the true digit as the gold label ("three" or "other"):

- ``logistic``: all 64 pixels (strong);
- ``coarse``: the 16 sums of 2 × 2 blocks (weaker: a ranking worth comparing).

Needs scikit-learn (a test dependency) and Pillow (installed with matplotlib).
Deterministic for given library versions: ``python scripts/make_demo_pictures.py``.
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

import numpy as np

SEED = 19980701
N_POOL = 400
SIDE = 64
OUT = Path(__file__).resolve().parents[1] / "resources" / "demo_pictures"


def _png(bitmap: np.ndarray, path: Path) -> None:
    from PIL import Image

    grey = (255 - np.clip(bitmap, 0, 16) * 255 / 16).astype(np.uint8)
    image = Image.fromarray(grey, mode="L").resize((SIDE, SIDE), Image.Resampling.NEAREST)
    image.save(path, optimize=True)


def _coarse(images: np.ndarray) -> np.ndarray:
    return images.reshape(-1, 4, 2, 4, 2).sum(axis=(2, 4)).reshape(len(images), -1)


def build(out: Path = OUT) -> int:
    """Write the PNGs and ``digits.csv`` into ``out``; returns the number of candidates."""
    from sklearn.datasets import load_digits
    from sklearn.linear_model import LogisticRegression

    digits = load_digits()
    order = np.random.default_rng(SEED).permutation(len(digits.target))
    half = len(order) // 2
    train, pool = order[:half], order[half:half + N_POOL]
    is3 = digits.target == 3
    strong = LogisticRegression(max_iter=5000).fit(digits.data[train], is3[train])
    coarse = LogisticRegression(max_iter=5000).fit(_coarse(digits.images[train]), is3[train])
    p_strong = strong.predict_proba(digits.data[pool])[:, 1]
    p_coarse = coarse.predict_proba(_coarse(digits.images[pool]))[:, 1]
    (out / "img").mkdir(parents=True, exist_ok=True)
    with open(out / "digits.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["key", "picture", "digit", "gold", "logistic", "coarse"])
        for i, index in enumerate(pool):
            key = f"uci-{index:04d}"
            _png(digits.images[index], out / "img" / f"{key}.png")
            writer.writerow([key, f"img/{key}.png", int(digits.target[index]),
                             "three" if is3[index] else "other",
                             f"{p_strong[i]:.6g}", f"{p_coarse[i]:.6g}"])
    return len(pool)


def main() -> None:
    """Command line: ``--out FOLDER`` (default resources/demo_pictures)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    print(f"{build(args.out)} digits written to {args.out}")


if __name__ == "__main__":
    main()
