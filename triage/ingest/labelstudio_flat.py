"""Label Studio's flat exports: JSON_MIN and CSV (one row per annotation).

Label Studio writes one row per annotation with the task's data fields, ``id`` (the task),
``annotator`` (a user id), ``annotation_id``, ``created_at``, ``updated_at``,
``lead_time`` and one column per result group (``from_name``) holding the choice. A task
without annotations is one row with those columns empty. These exports carry no
predictions (so no model scores unless ``--score NAME=COLUMN`` names one) and leave
skipped annotations out; the summary says so.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from triage.base.errors import InputError, Problem, TriageError
from triage.ingest import exchange_values as values
from triage.ingest.exchange import Exchange, IncomingLabel, ReadOptions, fail
from triage.ingest.exchange_pictures import Pictures
from triage.ingest.exchange_values import BadValue
from triage.ingest.labelstudio_config import LabelConfig
from triage.ingest.read import parse_delimited

ROW_FIELDS = ("id", "annotator", "annotation_id", "created_at", "updated_at", "lead_time")


def read_csv(path: Path, raw: str, options: ReadOptions, config: LabelConfig | None
             ) -> Exchange:
    """Read Label Studio's CSV export (JSON text in a cell is decoded)."""
    try:  # the careful reader's parse (strict quoting, lines counted)
        records = [r for r in parse_delimited(path, raw, ",", 0, None)[0] if r]
    except InputError as error:
        raise TriageError(f"{path}: not a Label Studio CSV export ({error})") from error
    header = records[0] if records else []
    rows = [dict(zip(header, r)) for r in records[1:]]
    if not rows or "annotation_id" not in rows[0]:
        raise TriageError(f"{path}: not a Label Studio export: a CSV export has the columns "
                          "id, annotator, annotation_id, … (and JSON exports start with '[')")
    return read_rows(path, [{k: _cell(v) for k, v in r.items()} for r in rows], options,
                     config, "CSV")


def _cell(value: str | None) -> Any:
    """A CSV cell: empty is absent, JSON lists/objects are decoded."""
    if value is None or value == "":
        return None
    if value[:1] in ("[", "{"):
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value
    return value


def _group(path: Path, rows: list[Any], options: ReadOptions, config: LabelConfig | None,
           fields: tuple[str, str]) -> str:
    """The column holding the choices: --from-name, the config's group, or the only one."""
    columns = list(dict.fromkeys(k for r in rows if isinstance(r, dict) for k in r))
    if options.from_name:
        if options.from_name not in columns:
            raise TriageError(f"{path}: --from-name {options.from_name!r} is not a column "
                              f"(columns: {', '.join(columns)})")
        return options.from_name
    if config:
        present = [g for g in config.choices if g in columns]
        if len(present) == 1:
            return present[0]
    rest = [c for c in columns if c not in ROW_FIELDS and c not in fields
            and c != options.key]
    if len(rest) == 1:
        return rest[0]
    raise TriageError(f"{path}: cannot tell which column holds the choices "
                      f"({', '.join(rest) or 'none left'}); give --from-name COLUMN or "
                      "--ls-config FILE")


def _value(cell: Any) -> str | None:
    """The one choice of a cell: a string, or {"choices": [..]} for multiple choices."""
    if cell is None:
        return None
    if isinstance(cell, dict) and isinstance(cell.get("choices"), list):
        cell = cell["choices"]
    if isinstance(cell, list):
        if len(cell) > 1:
            raise BadValue(f"choices {values.short(cell)}: Triage takes exactly one choice "
                           "per annotation")
        cell = cell[0] if cell else None
    if cell is not None and not isinstance(cell, str):
        raise BadValue(f"{values.short(cell)} is not a choice (span labels, taxonomies and "
                       "other results are not imported; give --from-name COLUMN of a "
                       "choice column)")
    return values.text(cell, "choice", required=False)


def _row(ex: Exchange, row: Any, where: str, names: tuple[str, str, str, str],
         scores: list[tuple[str, str]], problems: list[Problem]) -> None:
    text_field, key_field, group, image_field = names
    if not isinstance(row, dict):
        problems.append(ex.problem(where, "a row must be an object"))
        return
    try:
        assert ex.pictures is not None
        image = ex.pictures.optional(row.get(image_field), image_field)
        text = values.text(row.get(text_field), text_field, required=not image) or ""
        key = values.text(None if row.get(key_field) is None else str(row[key_field]),
                          key_field)
        assert key is not None
        ex.add_candidate(key, text, where, problems, image)
        for name, column in scores:
            ex.scores.setdefault(name, {})[key] = values.score(row.get(column), column)
        if row.get("annotation_id") is None:
            return
        who = values.name(row.get("annotator"), "annotator") or "labelstudio"
        label = IncomingLabel(
            key=key, annotator=f"user {who}" if who.isdigit() else who,
            value=_value(row.get(group)), session="", where=where,
            created_at=values.any_time(row.get("created_at"), "created_at"),
            seconds=values.seconds(row.get("lead_time"), "lead_time"),
            source=values.source_id("ls:", row["annotation_id"], "annotation_id"))
    except BadValue as error:
        problems.append(ex.problem(where, str(error)))
        return
    label.session = label.annotator
    ex.labels.append(label)


def read_rows(path: Path, rows: list[Any], options: ReadOptions, config: LabelConfig | None,
              kind: str) -> Exchange:
    """Read JSON_MIN (or CSV) rows: candidates and one label event per annotation row."""
    ex = Exchange(path, "labelstudio")
    text_field = (options.text or "").removeprefix("data.") or "text"
    key_field = (options.key or "").removeprefix("data.") or "id"
    image_field = ((options.image or "").removeprefix("data.")
                   or (config.image_field(options.from_name or "") if config else None)
                   or "image")
    group = _group(path, rows, options, config, (text_field, image_field))
    if config and options.text is None:
        text_field = config.text_field(group) or text_field
    if config and options.image is None:
        image_field = config.image_field(group) or image_field
    ex.pictures = Pictures(path.resolve().parent, options.image_root)
    if config:
        ex.scheme_hint = list(config.choices.get(group, []))
    scores = [(n, c.removeprefix("data.")) for n, c in options.scores]
    problems: list[Problem] = []
    for i, row in enumerate(rows):
        where = f"row {i + 2}" if kind == "CSV" else f"[{i}]"
        _row(ex, row, where, (text_field, key_field, group, image_field), scores, problems)
    fail(problems)
    ex.notes += ex.pictures.notes()
    ex.notes.append(f"Label Studio {kind} export: it has no predictions"
                    f"{'' if scores else ' (no model scores)'} and leaves skipped "
                    "annotations out; the JSON export has both")
    return ex
