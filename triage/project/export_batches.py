"""CSV and Parquet exports a batch of rows at a time, in bounded memory whatever the pool holds.

The small things (rankings, scores, labels) are read through the project first
(:class:`triage.project.export.ExportPlan`); the candidates' text then comes from the
file a batch of ranks at a time (:func:`triage.store.textbatches.text_batches`), each
batch about :data:`BATCH_BYTES` of text (the row count adapts to the texts' length), read
on a second thread while the previous batch is turned into lines (or a Parquet row group)
and written. Text columns are ``large_string`` while cells are built (no 2 GiB limit on a
batch); nothing holds more than a few batches at once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from triage.base import arrow
from triage.base.jobs import lane
from triage.project.adjudication import rulings_by
from triage.project.final import FinalLabel, final_labels
from triage.stats.common import decile_of_rank

if TYPE_CHECKING:
    from triage import store

BATCH_BYTES = 16 << 20   # text per batch
FIRST_ROWS = 4096        # the first batch's rows, before the texts' length is known
MAX_ROWS = 200_000

LABEL_COLUMNS = ("label", "label_status", "adjudicated", "adjudicated_by", "labels",
                 "annotators", "notes")


def notes_by_candidate(rows: list[store.LabelEvent]) -> dict[int, list[str]]:
    """candidate id -> its notes ("annotator: note"), in event order."""
    notes: dict[int, list[str]] = {}
    for r in rows:
        if r.note:
            notes.setdefault(r.candidate_id, []).append(f"{r.annotator}: {r.note}")
    return notes


def label_cells(final: FinalLabel | None, notes: list[str], curator: str) -> dict[str, Any]:
    """The label fields of one candidate (see LABEL_COLUMNS); ``curator`` made its ruling."""
    return {"label": final.value if final else None,
            "label_status": final.status if final else "unlabeled",
            "adjudicated": bool(final and final.adjudicated),
            "adjudicated_by": curator if final and final.adjudicated else "",
            "labels": len(final.votes) if final else 0,
            "annotators": ";".join(sorted(final.votes)) if final else "",
            "notes": " | ".join(notes)}


@dataclass
class ExportPlan:
    """What an export needs besides the candidates' text, read while the project is open."""

    fields: list[str]
    order: np.ndarray                 # candidate ids in rank order
    scores: list[np.ndarray]          # per model, in rank order
    rows: list[store.LabelEvent]        # the active label events

    def labeled(self) -> dict[int, dict[str, Any]]:
        """candidate id -> its label_cells, for every candidate with an active event."""
        notes = notes_by_candidate(self.rows)
        curators = rulings_by(self.rows)
        return {cid: label_cells(final, notes.get(cid, []), curators.get(cid, ""))
                for cid, final in final_labels(self.rows).items()}

    def ranks(self, labeled: dict[int, dict[str, Any]], labeled_only: bool) -> np.ndarray:
        """The 0-based ranks of the rows to write: all, or the labeled ones in rank order."""
        ranks0 = np.arange(self.order.size)
        if labeled_only:
            rank0 = np.zeros(int(self.order.max(initial=0)) + 1, dtype=np.int64)
            rank0[self.order] = ranks0
            ranks0 = np.sort(rank0[np.fromiter(labeled, np.int64, len(labeled))])
        return ranks0


def _ahead(items: Iterator[Any]) -> Iterator[Any]:
    """``items``, the next one made on another thread while the caller works on this one."""
    done = object()
    with lane("export-ahead", 1) as pool:
        coming = pool.submit(next, items, done)
        while (item := coming.result()) is not done:
            coming = pool.submit(next, items, done)
            yield item


def text_in_batches(source: str | Path, order: np.ndarray,
                    ranks0: np.ndarray) -> Iterator[tuple[np.ndarray, Any]]:
    """(0-based ranks, their key/text/gold/meta table) for the rows at ``ranks0``, in batches.

    Each batch holds about BATCH_BYTES of text.
    """
    from triage.store.textbatches import text_batches

    size = {"rows": FIRST_ROWS}
    spans: list[np.ndarray] = []

    def ids() -> Iterator[np.ndarray]:
        start = 0
        while start < ranks0.size:
            at = ranks0[start:start + size["rows"]]
            start += at.size
            spans.append(at)
            yield order[at]

    for table in _ahead(text_batches(source, ids())):
        at = spans.pop(0)
        size["rows"] = int(np.clip(BATCH_BYTES * at.size / max(table.nbytes, 1), 1, MAX_ROWS))
        yield at, table


class LabelLookup:
    """Each candidate's label values (see LABEL_COLUMNS), taken by id a batch at a time."""

    def __init__(self, labeled: dict[int, dict[str, Any]], last_id: int):
        ids = np.array(sorted(labeled), dtype=np.int64)
        self.index = np.zeros(max(last_id, int(ids.max(initial=0))) + 1, dtype=np.int64)
        self.index[ids] = np.arange(1, ids.size + 1)
        self.values = [label_cells(None, [], "")] + [labeled[int(i)] for i in ids]

    def column(self, name: str) -> Any:
        """One label field of every labeled candidate, led by the unlabeled value (typed)."""
        import pyarrow as pa

        kind = pa.int64() if name == "labels" else pa.bool_() if name == "adjudicated" \
            else pa.large_string()
        return pa.array([v[name] for v in self.values], kind)

    def rows(self, ids: np.ndarray) -> Any:
        """Positions in :meth:`column` of the candidates ``ids``."""
        return arrow.from_numpy(self.index[ids])


def _csv_label_cells(lookup: LabelLookup) -> Any:
    """The label cells of every labeled candidate joined into one, led by the unlabeled's."""
    import pyarrow as pa

    from triage.ingest.arrowcsv import int_cells, join_cells, text_cells

    columns = []
    for name in LABEL_COLUMNS:
        values = lookup.column(name)
        if name == "labels":
            columns.append(int_cells(arrow.to_numpy(values)))
        else:  # csv writes a bool as str(bool): "True" / "False"
            columns.append(text_cells(values if name != "adjudicated" else pa.array(
                [str(v) for v in values.to_pylist()], pa.large_string())))
    return join_cells(*columns)


def csv_lines(plan: ExportPlan, lookup: LabelLookup, ranks0: np.ndarray,
              source: str | Path) -> Iterator[Any]:
    """The CSV lines of the rows at ``ranks0``, a batch (one Arrow string array) at a time."""
    from triage.ingest.arrowcsv import end_lines, float_cells, int_cells, join_cells, text_cells

    labels = _csv_label_cells(lookup)
    pool = max(plan.order.size, 1)
    for at, texts in text_in_batches(source, plan.order, ranks0):
        rank = at + 1
        yield join_cells(text_cells(texts.column("key")), text_cells(texts.column("text")),
                         int_cells(rank), int_cells(decile_of_rank(rank, pool)),
                         *[float_cells(s[at]) for s in plan.scores],
                         text_cells(texts.column("gold")),
                         labels.take(lookup.rows(plan.order[at])),
                         end_lines(text_cells(texts.column("meta"))))


def parquet_schema(plan: ExportPlan) -> Any:
    """The Parquet export's columns: the CSV's, typed; text may be null, nothing else is."""
    import pyarrow as pa

    fields = [("key", pa.string()), ("text", pa.string()), ("rank", pa.int64()),
              ("decile", pa.int64())]
    fields += [(name, pa.float64()) for name in plan.fields[4:4 + len(plan.scores)]]
    fields += [("gold", pa.string())]
    fields += [(name, pa.int64() if name == "labels" else pa.bool_() if name == "adjudicated"
                else pa.string()) for name in LABEL_COLUMNS]
    fields += [("meta", pa.string())]
    return pa.schema(fields)


def parquet_batches(plan: ExportPlan, lookup: LabelLookup, ranks0: np.ndarray,
                    source: str | Path) -> Iterator[Any]:
    """Record batches of the Parquet export of the rows at ``ranks0``, in rank order.

    Their schema is :func:`parquet_schema`'s.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    schema = parquet_schema(plan)
    labels = {name: lookup.column(name) for name in LABEL_COLUMNS}
    pool = max(plan.order.size, 1)

    def text(texts: Any, name: str, empty_is_null: bool = False) -> Any:
        values = texts.column(name).combine_chunks()
        if empty_is_null:
            values = pc.if_else(pc.equal(values, ""), None, values)
        return values.cast(pa.string())

    for at, texts in text_in_batches(source, plan.order, ranks0):
        rank = at + 1
        columns = [text(texts, "key"), text(texts, "text"), arrow.from_numpy(rank),
                   arrow.from_numpy(decile_of_rank(rank, pool))]
        for scores in plan.scores:
            values = scores[at]
            columns.append(pa.array(values, mask=np.isnan(values)))
        columns.append(text(texts, "gold", True))
        rows = lookup.rows(plan.order[at])
        columns += [labels[name].take(rows).cast(schema.field(name).type)
                    for name in LABEL_COLUMNS]
        columns.append(text(texts, "meta", True))
        yield pa.record_batch(columns, schema=schema)


def write_parquet(out: Path, schema: Any, batches: Iterator[Any],
                  tick: Callable[[int], None]) -> int:
    """Write the batches to ``out`` as Parquet (one row group each), atomically; rows written."""
    import pyarrow.parquet as pq

    from triage.ingest.writer import atomic_file

    count = 0
    with atomic_file(out, binary=True) as handle:
        writer = pq.ParquetWriter(handle, schema)
        try:
            for batch in batches:
                writer.write_batch(batch)
                count += batch.num_rows
                tick(count)
        finally:
            writer.close()
    return count
