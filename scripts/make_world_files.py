"""Write tests/data/world/: candidate files made the way people make them, with the real
libraries (pandas, openpyxl, pyarrow), for the reading tests (tests/test_world_files.py).

    .venv/bin/python scripts/make_world_files.py

Deterministic content (workbooks also carry the time they were saved, so commit only the
files that changed on purpose).
"""

from __future__ import annotations

import json
import random
from decimal import Decimal
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "tests" / "data" / "world"
WORDS = ["printer", "invoice", "refund", "login", "crash", "delivery", "café", "résumé",
         "naïve", "Zürich", "password", "screen"]
README: list[tuple[str, str]] = []


def tickets(n: int = 60, seed: int = 7) -> list[dict]:
    """Support tickets: id, a text (some over two lines, some with ; , and quotes), a
    probability and a label."""
    rng = random.Random(seed)
    rows = []
    for i in range(1, n + 1):
        text = " ".join(rng.choice(WORDS) for _ in range(6))
        if i % 7 == 0:
            text += ";\nsecond line, with \"quotes\""
        rows.append({"id": f"T{i:03d}", "ticket": text,
                     "urgent_p": round(rng.random(), 3), "label": "urgent" if i % 4 == 0
                     else "routine"})
    return rows


def note(name: str, how: str) -> None:
    README.append((name, how))


def european_csv() -> None:
    import pandas as pd

    frame = pd.DataFrame(tickets())
    frame.to_csv(OUT / "semicolon_bom.csv", sep=";", decimal=",", index=False,
                 encoding="utf-8-sig", lineterminator="\r\n")
    note("semicolon_bom.csv", "pandas `to_csv(sep=';', decimal=',', encoding='utf-8-sig', "
         "lineterminator='\\r\\n')`: Excel's European CSV (BOM, CR LF, `;`, decimal comma, "
         "quoted two-line texts), 60 rows")
    frame.to_csv(OUT / "semicolon_cp1252.csv", sep=";", decimal=",", index=False,
                 encoding="cp1252")
    note("semicolon_cp1252.csv", "the same frame, `encoding='cp1252'` (é, ü as single bytes)")
    percent = frame.assign(urgent_p=[f"{round(v * 100)}%" for v in frame["urgent_p"]])
    percent.to_csv(OUT / "percent.csv", index=False)
    note("percent.csv", "pandas `to_csv()` with the score written as `73%` strings")
    frame.to_csv(OUT / "pipe.csv", sep="|", index=False)
    note("pipe.csv", "pandas `to_csv(sep='|')`")
    with open(OUT / "title_row.csv", "w", encoding="utf-8", newline="") as handle:
        handle.write("Ticket export, November 2026\n\n")
        frame.to_csv(handle, index=False)
    note("title_row.csv", "a title line and a blank line written by hand, then pandas "
         "`to_csv()` below them (header on line 3)")
    frame.head(0).to_csv(OUT / "header_only.csv", index=False)
    note("header_only.csv", "pandas `to_csv()` of the frame's `head(0)`: a header, no rows")
    with open(OUT / "dup_header.csv", "w", encoding="utf-8") as handle:
        handle.write("id,text,score,score\n1,a red door,0.5,0.25\n2,blue sky,0.75,0.5\n")
    note("dup_header.csv", "written by hand: the header names `score` twice")


def json_array() -> None:
    with open(OUT / "array.jsonl", "w", encoding="utf-8") as handle:
        json.dump([{"id": r["id"], "text": r["ticket"], "score": r["urgent_p"]}
                   for r in tickets(5)], handle, ensure_ascii=False, indent=1)
    note("array.jsonl", "`json.dump(list_of_dicts, indent=1)` saved as `.jsonl`: one JSON "
         "array, not one object per line")


def workbooks() -> None:
    from openpyxl import Workbook

    book = Workbook()
    readme = book.active
    readme.title = "Readme"
    readme["A1"] = "Tickets scored by the urgency model; data on the next sheet."
    data = book.create_sheet("Data")
    data["A1"] = "Urgency scores, November 2026"
    data.merge_cells("A1:D1")
    data.append([])
    data.append(["id", "ticket", "urgent_p", "label"])
    for row in tickets():
        data.append(list(row.values()))
    book.save(OUT / "sheet2_title.xlsx")
    note("sheet2_title.xlsx", "openpyxl: sheet `Readme` first, the data on sheet `Data` "
         "under a merged title cell (A1:D1) and an empty row (header on row 3)")
    book = Workbook()
    sheet = book.active
    sheet.title = "Pool"
    sheet.append(["id", "ticket", "raw", "urgent_p"])
    for i, row in enumerate(tickets(10), start=2):
        sheet.append([row["id"], row["ticket"], row["urgent_p"], f"=C{i}/2"])
    book.save(OUT / "formulas.xlsx")
    book = Workbook()
    sheet = book.active
    sheet.title = "Scores"
    sheet.append(["id", "ticket", "model scores", None])
    sheet.append([None, None, "m1", "m2"])
    sheet.merge_cells("A1:A2")
    sheet.merge_cells("B1:B2")
    sheet.merge_cells("C1:D1")
    for row in tickets(10):
        sheet.append([row["id"], row["ticket"], row["urgent_p"], round(1 - row["urgent_p"], 3)])
    book.save(OUT / "merged_header.xlsx")
    note("merged_header.xlsx", "openpyxl: a header over two rows: `id` and `ticket` merged "
         "down A1:A2 and B1:B2, `model scores` merged across C1:D1 above `m1` and `m2`")
    note("formulas.xlsx", "openpyxl: the score column holds formulas (`=C2/2`), saved "
         "without computed results (openpyxl never computes them)")


def parquet() -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = tickets(20)
    texts = pa.array([r["ticket"] for r in rows]).dictionary_encode()
    scores = pa.array([Decimal(f"{r['urgent_p']:.3f}") for r in rows], pa.decimal128(6, 3))
    scores = pa.array([Decimal("0.950")] + scores.to_pylist()[1:], pa.decimal128(6, 3))
    table = pa.table({"id": [r["id"] for r in rows], "ticket": texts, "urgent_p": scores,
                      "tags": [["a", "b"] if i % 2 else [] for i in range(20)],
                      "source": [{"queue": "mail", "n": i} for i in range(20)]})
    pq.write_table(table, OUT / "nested_decimal.parquet", use_dictionary=True)
    note("nested_decimal.parquet", "pyarrow: `ticket` dictionary-encoded text, `urgent_p` "
         "decimal128(6, 3) (first value 0.950), `tags` a list column, `source` a struct")


def main() -> None:
    """Write every file and the README listing how each was made."""
    OUT.mkdir(parents=True, exist_ok=True)
    european_csv()
    json_array()
    workbooks()
    parquet()
    lines = ["# Files made the way people make them", "",
             "Written by `scripts/make_world_files.py` with the real libraries; read by "
             "`tests/test_world_files.py`.", ""]
    lines += [f"- `{name}`: {how}" for name, how in README]
    (OUT / "README.md").write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
