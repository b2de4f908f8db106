"""The first rows of a candidate file, unvalidated, for the new-project dialog."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

from triage.base.errors import InputError, Problem
from triage.ingest.dialect import PLAIN, Dialect
from triage.ingest.reader import decode, format_of

PREVIEW_BYTES = 1 << 20


def preview(path: str | Path, rows: int = 20, sheet: str | None = None,
            dialect: Dialect | None = None) -> tuple[list[str], list[list[str]]]:
    """Header and the first ``rows`` rows as text, for the new-project dialog.

    Reads at most the first MiB of a text file, so it is instant on any file; the first
    rows of a Parquet file, a spreadsheet's ``sheet`` (None: the first) as its program
    shows it. Rows are not validated.
    """
    path = Path(path)
    kind = format_of(path)
    dialect = dialect or PLAIN
    sheet = sheet or dialect.sheet
    if kind == "parquet":
        return _parquet_head(path, rows)
    if kind in ("xlsx", "ods"):
        from triage.ingest.columnar import read_sheet

        names, cells, _lines = read_sheet(path, sheet, dialect.header_row)
        return names, [list(r) for r in zip(*(cells[n][:rows] for n in names))]
    try:
        with open(path, "rb") as handle:
            data = handle.read(PREVIEW_BYTES)
            more = bool(handle.read(1))
    except OSError as error:
        raise InputError([Problem(str(path), None, None, f"cannot be read ({error})")]) from error
    if more and b"\n" in data:
        data = data[: data.rindex(b"\n") + 1]  # never cut a character or a line in half
    text = decode(path, data, dialect.encoding)
    if kind == "jsonl":
        objects: list[dict[str, object]] = []
        for line in text.split("\n"):
            if line.strip() and len(objects) < rows:
                try:
                    obj = json.loads(line)
                except json.JSONDecodeError:
                    continue
                if isinstance(obj, dict):
                    objects.append(obj)
        header = list(dict.fromkeys(k for obj in objects for k in obj))
        return header, [[_cell(obj.get(k)) for k in header] for obj in objects]
    import csv
    import io

    reader = csv.reader(io.StringIO(text, newline=""), delimiter=dialect.delimiter_for(kind))
    start = dialect.header_row or 1
    wanted = (r for r in reader if r and reader.line_num >= start)
    records = [r for r in itertools.islice(wanted, rows + 1)]
    if not records:
        return [], []
    return [h.strip() for h in records[0]], records[1:]


def _cell(value: object) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _parquet_head(path: Path, rows: int) -> tuple[list[str], list[list[str]]]:
    from triage.ingest.columnar import as_text, parquet_file

    handle = parquet_file(path)
    names = handle.schema_arrow.names
    batch = next(handle.iter_batches(batch_size=max(rows, 1)), None)
    if batch is None:
        return names, []
    columns = [as_text(c).fill_null("").to_pylist() for c in batch.columns]
    return names, [list(r) for r in zip(*columns)]
