"""Benchmark: nominal Krippendorff's α, ours against the ``krippendorff`` package.

Two data sets, both timed in this process, best of 3:
  A. 20 raters × 100,000 items, 5 categories, 90% of the cells missing;
  B. 2 raters × 1,000,000 items, binary labels, no missing cells.

"ours (long)" starts from long-form arrays (item, category code), what the project and
the FILE reader hold; "ours (wide)" starts from the same raters × items matrix the
package gets (NaN = missing), via :func:`alpha_from_matrix` (one comparison pass per category). Target: ours ≤ 0.5 × theirs.
The two α values must agree to 1e-9.

Run:  .venv/bin/python bench/bench_agreement.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import krippendorff  # noqa: E402

from triage.stats.agreement.krippendorff import alpha_arrays, alpha_from_matrix  # noqa: E402


def best_of(fn, repeats: int = 3) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def make(raters: int, items: int, categories: int, missing: float, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    # Item-level "truth" plus noise, so α is comfortably away from 0.
    truth = rng.integers(0, categories, size=items)
    data = np.where(rng.random((raters, items)) < 0.7, truth, rng.integers(0, categories,
                                                                           (raters, items)))
    data = data.astype(float)
    data[rng.random(data.shape) < missing] = np.nan
    return data


def ours_wide(data: np.ndarray, categories: int) -> float:
    return alpha_from_matrix(data, categories).value


def run(name: str, data: np.ndarray, categories: int) -> float:
    rater, item = np.nonzero(~np.isnan(data))
    code = data[rater, item].astype(np.int64)
    domain = np.arange(categories)
    t_theirs, theirs = best_of(
        lambda: krippendorff.alpha(data, level_of_measurement="nominal", value_domain=domain)
    )
    t_long, ours_l = best_of(lambda: alpha_arrays(item, code, categories).value)
    t_wide, ours_w = best_of(lambda: ours_wide(data, categories))
    diff = max(abs(ours_l - theirs), abs(ours_w - theirs))
    print(f"{name}: {code.size:,} ratings")
    print(f"  krippendorff.alpha  {t_theirs * 1000:9.1f} ms   alpha={theirs:.12f}")
    print(f"  ours (long arrays)  {t_long * 1000:9.1f} ms   ratio {t_long / t_theirs:.3f}")
    print(f"  ours (wide matrix)  {t_wide * 1000:9.1f} ms   ratio {t_wide / t_theirs:.3f}")
    print(f"  |difference|        {diff:.2e}  {'OK' if diff <= 1e-9 else 'MISMATCH'}")
    return max(t_long, t_wide) / t_theirs if diff <= 1e-9 else float("inf")


def main() -> int:
    ratios = [
        run("A. 20 raters x 100,000 items, 90% missing, 5 categories",
            make(20, 100_000, 5, 0.9, seed=1), 5),
        run("B. 2 raters x 1,000,000 binary items", make(2, 1_000_000, 2, 0.0, seed=2), 2),
    ]
    worst = max(ratios)
    print(f"worst ratio {worst:.3f} (target <= 0.5): {'PASS' if worst <= 0.5 else 'FAIL'}")
    return 0 if worst <= 0.5 else 1


if __name__ == "__main__":
    sys.exit(main())
