"""Pool files shaped like real ones, for the import matrix of ``bench_e2e.py``.

Each shape changes one thing against the bench generator's file (``_generate.py``: key,
short quote-free text, two 7/8-decimal scores, gold):

- ``short6``: scores written with 6 decimals (imported with ``--positive pos``);
- ``quoted``: texts with commas and double quotes, so the CSV quotes them (and doubles
  the quotes), one in fifty with a line break inside;
- ``extra4``: four more columns nobody maps (a source name, a date, a count, a note with
  commas), which go to each candidate's metadata;
- ``long``: texts of 300 to 1,500 characters;
- ``ties3``: scores rounded to 3 decimals (heavy ties);
- ``parquet``: the bench file's rows as Parquet (scores as doubles).

Texts are drawn from the bench vocabulary with numpy; every file is written by Python's
csv module (or pyarrow for Parquet), as other programs write them.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from bench._generate import WORDS, generate

SHAPES = ("short6", "quoted", "extra4", "long", "ties3")


def _texts(rng: np.random.Generator, rows: int, low: int, high: int) -> list[str]:
    """Texts of ``low`` to ``high`` words from the bench vocabulary."""
    words = np.asarray(WORDS, dtype=object)
    pool = [" ".join(words[rng.integers(0, len(words), size=n)])
            for n in rng.integers(low, high + 1, size=min(rows, 20_000))]
    picks = rng.integers(0, len(pool), size=rows)
    return [pool[i] for i in picks.tolist()]


def _scores(rng: np.random.Generator, rows: int) -> tuple[np.ndarray, np.ndarray]:
    m1 = rng.random(rows)
    m2 = rng.beta(0.5, 3.0, rows)
    m2[rng.random(rows) < 0.05] = 0.0
    return m1, m2


def _gold(rng: np.random.Generator, m1: np.ndarray) -> list[str]:
    return np.where(rng.random(len(m1)) < 0.4 * m1 ** 2, "pos", "neg").tolist()


def write_shape(path: Path, shape: str, rows: int, seed: int = 11) -> Path:
    """Write ``rows`` candidates of ``shape`` to ``path`` (CSV)."""
    rng = np.random.default_rng(seed)
    m1, m2 = _scores(rng, rows)
    decimals = {"short6": 6, "ties3": 3}.get(shape, 7)
    texts = _texts(rng, rows, 2, 5) if shape != "long" else _texts(rng, rows, 55, 270)
    if shape == "long":  # 300..1,500 characters
        texts = [t[:1500] if len(t) >= 300 else (t + " " + t)[:300] for t in texts]
    if shape == "quoted":
        marks = rng.integers(0, 4, size=rows).tolist()
        forms = ['{}, she said', 'he wrote "{}"', '"{}", again, "twice"', 'a, b\nand "{}"']
        texts = [forms[m if i % 50 == 0 or m < 3 else 0].format(t)
                 for i, (t, m) in enumerate(zip(texts, marks))]
    header = ["key", "text", "m1", "m2", "gold"]
    columns: list = [(f"cand-{i:07d}" for i in range(rows)), texts,
                     (f"{x:.{decimals}f}" for x in m1.tolist()),
                     (f"{x:.{decimals}f}" for x in m2.tolist()), _gold(rng, m1)]
    if shape == "extra4":
        header += ["source", "date", "count", "note"]
        sources = np.array(["news", "web", "forum", "books"], dtype=object)
        days = np.datetime64("2020-01-01") + rng.integers(0, 1500, size=rows)
        columns += [sources[rng.integers(0, 4, size=rows)].tolist(),
                    days.astype(str).tolist(), rng.integers(0, 10_000, size=rows).tolist(),
                    _texts(rng, rows, 1, 3)]
        columns[-1] = [f"{n}, checked" for n in columns[-1]]
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(zip(*columns))
    return path


def write_parquet(csv_path: Path, path: Path) -> Path:
    """The rows of a bench CSV as Parquet, scores as doubles (read by Arrow, written once)."""
    import pyarrow as pa
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    types = {"key": pa.string(), "text": pa.string(), "m1": pa.float64(),
             "m2": pa.float64(), "gold": pa.string()}
    table = pacsv.read_csv(csv_path, convert_options=pacsv.ConvertOptions(column_types=types))
    pq.write_table(table, path)
    return path


__all__ = ["SHAPES", "generate", "write_parquet", "write_shape"]
