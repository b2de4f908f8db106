"""Qt-free logic behind the new-project and settings dialogs: read the form, build the file.

The dialogs only collect text; turning it into :class:`Settings` and a column mapping, and
creating a project that is either complete or absent, happens here (and is unit-tested).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

from triage.base.errors import TriageError
from triage.base.progress import Progress as Progress

# ColumnMapping, Settings and preview are the dialog's vocabulary: ui/ takes them from here.
from triage.ingest.importer import ColumnMapping as ColumnMapping
from triage.ingest.importer import ImportResult
from triage.ingest.read import (
    PLAIN,
    SPREADSHEETS,
    Column,
    Sniffed,
    format_of,
    from_rows,
    sniff,
    sniff_sheet,
)
from triage.ingest.read import Dialect as Dialect
from triage.ingest.read import Profile as Profile
from triage.ingest.read import preview as preview
from triage.ingest.read import profile as profile
from triage.ingest.read import sheet_names as sheet_names
from triage.project import create_project
from triage.store.settings import Settings as Settings
from triage.store.settings import scheme_from_text
from triage.views.formatting import plural

_KEY_WORDS = {"key", "id", "uid", "uuid", "guid"}
_GOLD_WORDS = {"gold", "label", "labels", "class", "truth", "target", "category", "annotation"}
_SCORE_WORDS = {"score", "scores", "prob", "proba", "probability", "logit", "logits",
                "confidence", "conf", "pred", "prediction"}
_GOLD_VALUES = 20  # a gold column has at most this many distinct values
_IMAGE_WORDS = {"image", "images", "img", "picture", "photo", "pic", "thumbnail"}
_PATH_WORDS = {"path", "file", "filename", "url", "uri", "src"}
_PICTURES = 0.5  # an image column: at least half its values name a picture file
_TEXT_NAMES = ("text", "caption", "tweet", "sentence", "phrase", "candidate", "content", "body",
               "review", "abstract", "title", "comment", "message")


def parse_amount(text: str, what: str, *, optional: bool = False) -> float | None:
    """A non-negative finite number from a form field ('' gives None when optional)."""
    cleaned = text.strip().replace(",", "").lstrip("$").strip()
    if not cleaned:
        if optional:
            return None
        raise TriageError(f"{what} is required")
    try:
        value = float(cleaned)
    except ValueError:
        raise TriageError(f"{what} must be a number, not {text.strip()!r}") from None
    if not math.isfinite(value) or value < 0:
        raise TriageError(f"{what} must be a finite number of zero or more")
    return value


def parse_positives(text: str) -> tuple[str, ...]:
    """``idiom`` or ``idiom, maybe`` into a tuple of label names."""
    return tuple(p.strip() for p in re.split(r"[,;]", text) if p.strip())


def form_changes(*, scheme: str, positives: str, price_model: str, price: str,
                 hourly_rate: str = "", budget: str, currency: str, value: str
                 ) -> dict:
    """The Settings fields a money/scheme form describes (raises TriageError with a reason)."""
    labels = scheme_from_text(scheme)
    if not labels:
        raise TriageError("the label scheme needs at least one label, e.g. idiom:i,literal:l")
    chosen = parse_positives(positives) or (labels[0].value,)
    currency = currency.strip().upper()
    if not re.fullmatch(r"[A-Z]{3}", currency):
        raise TriageError(f"currency must be a three-letter code such as USD or EUR, "
                          f"not {currency!r}")
    changes = {
        "labels": labels, "positive_labels": chosen, "price_model": price_model,
        "price_per_item": parse_amount(price, "price per item"),
        "budget": parse_amount(budget, "budget", optional=True),
        "currency": currency,
        "value_per_positive": parse_amount(value, "value per positive", optional=True),
    }
    if hourly_rate.strip() or price_model == "per_hour":
        changes["default_hourly_rate"] = parse_amount(hourly_rate or "0", "hourly rate")
    return changes


def settings_changes(old: Settings, new: dict) -> dict:
    """Only the fields whose value differs from ``old`` (after validating the result)."""
    old.with_changes(**new)  # raises TriageError naming the first bad setting
    return {k: v for k, v in new.items() if getattr(old, k) != v}


def is_spreadsheet(path: str | Path) -> bool:
    """Is this a workbook (``.xlsx``, ``.ods``...), whose sheet the user picks?"""
    return Path(path).suffix.lower() in SPREADSHEETS


def _words(name: str) -> set[str]:
    """The lower-case words of a column name (``tweet_id`` -> {"tweet", "id"})."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    return {w for w in re.split(r"[^a-z0-9]+", spaced.lower()) if w}


def guess_mapping(found: Profile) -> dict:
    """Likely key, image, text, gold and score columns of a file, from names and values.

    The key is a unique column named like id/key; the gold a column of few values named
    like label/class/gold (never also a model); the scores are float columns within
    [0, 1] or numbers named like score/prob/logit or a model (``m1_freq``); the image
    (:func:`guess_image`) a column of picture file names; the text is a column called
    ``text``, ``tweet``, ``sentence``..., else the longest text column left (none with an
    image: the picture is the candidate, the text only its caption). Values are the whole
    file's when ``found.whole``.
    """
    columns = list(found.columns)
    keys = [c for c in columns if c.unique and _words(c.name) & _KEY_WORDS]
    key = min(keys, key=lambda c: (c.name.lower() not in _KEY_WORDS, columns.index(c)),
              default=None)
    golds = [c for c in columns if c is not key and _words(c.name) & _GOLD_WORDS
             and 2 <= c.distinct <= _GOLD_VALUES]
    gold = golds[0] if golds else None
    scores = [c.name for c in columns if c not in (key, gold) and c.kind in ("float", "integer")
              and ((c.kind == "float" and c.low is not None and c.high is not None
                    and c.low >= 0 and c.high <= 1) or _score_like(c.name))]
    image = guess_image([c for c in columns if c not in (key, gold)])
    texts = [c for c in columns if c not in (key, gold) and c.name not in scores
             and c.kind == "text" and c.name != image]
    named = [c for c in texts if c.name.lower() in _TEXT_NAMES]
    longest = None if image else max(texts, key=lambda c: c.mean_length, default=None)
    text = named[0] if named else longest
    return {"key": key.name if key else None, "text": text.name if text else None,
            "gold": gold.name if gold else None, "scores": scores, "image": image}


def guess_image(columns: list[Column]) -> str | None:
    """The column that most likely holds pictures, or None.

    A text column whose values mostly end in a picture extension (``.jpg``, ``.png``,
    ``.webp``...), a name like image/img/picture first; else one named like image/img/
    path/file/url with some picture names among its values; else one called just
    ``image``, ``img``, ``picture`` or ``photo`` (addresses without an extension).
    """
    texts = [c for c in columns if c.kind == "text"]
    by_values = [c for c in texts if c.pictures >= _PICTURES]
    if by_values:
        return max(by_values, key=lambda c: (bool(_words(c.name) & _IMAGE_WORDS),
                                             c.pictures)).name
    some = [c for c in texts if c.pictures > 0 and _words(c.name) & (_IMAGE_WORDS | _PATH_WORDS)]
    named = [c for c in texts if c.name.strip().lower() in _IMAGE_WORDS]
    found = some or named
    return found[0].name if found else None


def _score_like(name: str) -> bool:
    """Is a column named like a score or a model (``kw_score``, ``prob``, ``m2_assoc``)?"""
    words = _words(name)
    return bool(words & _SCORE_WORDS) or any(re.fullmatch(r"m\d+|model", w) for w in words)


def guess_columns(header: list[str], rows: list[list[str]]) -> dict:
    """:func:`guess_mapping` of rows already read as text (a preview)."""
    return guess_mapping(from_rows(header, rows))


def read_as(path: str | Path, given: Dialect = PLAIN,
            chosen: frozenset[str] = frozenset()) -> Sniffed:
    """How to read ``path``: what ``given`` leaves open guessed from the file, with reasons.

    ``chosen`` names the fields the user set (``delimiter``, ``decimal``, ``encoding``,
    ``header_row``). A guess needing the user's word (an encoding other than UTF-8) comes
    with ``confirm``, the question the dialog asks once, and ``refusal()``, the sentence
    the command line ends with, naming ``--encoding``.
    """
    kind = format_of(path)
    if kind in ("xlsx", "ods"):
        return sniff_sheet(path, given, chosen)
    if kind == "parquet":
        return Sniffed(given)
    return sniff(path, kind, given, chosen)


DELIMITER_CHOICES = (("guess", None), ("comma ,", ","), ("semicolon ;", ";"),
                     ("tab", "\t"), ("bar |", "|"))
DECIMAL_CHOICES = (("guess", None), ("point .", "."), ("comma ,", ","))
ENCODING_CHOICES = (("guess", None), ("UTF-8", "utf-8"), ("cp1252 (Windows)", "cp1252"),
                    ("latin-1", "latin-1"))


def dialect_from_form(delimiter: str | None, decimal: str | None, encoding: str | None,
                      header_row: int | None, sheet: str | None = None
                      ) -> tuple[Dialect, frozenset[str]]:
    """The dialog's reading choices (None: guess) as a dialect and the fields chosen."""
    chosen = frozenset(n for n, v in (("delimiter", delimiter), ("decimal", decimal),
                                      ("encoding", encoding), ("header_row", header_row))
                       if v is not None)
    return Dialect(delimiter=delimiter, decimal=decimal or ".", encoding=encoding or "utf-8",
                   header_row=header_row, sheet=sheet), chosen


@dataclass(frozen=True)
class FileLook:
    """What the dialog shows of a file read as ``dialect``: the first rows, the whole
    file's profile, and a sentence when another sheet holds the data."""

    header: list[str]
    rows: list[list[str]]
    found: Profile
    elsewhere: str | None


def look_at(path: str | Path, dialect: Dialect, rows: int = 20) -> FileLook:
    """Preview, profile and the other-sheet hint of ``path`` read as ``dialect``."""
    header, first = preview(path, rows=rows, dialect=dialect)
    found = profile(path, dialect.sheet, dialect)
    elsewhere = (sheet_with_data(path, dialect.sheet, found, "choose it in the Sheet list")
                 if is_spreadsheet(path) else None)
    return FileLook(header, first, found, elsewhere)


def reading_text(sniffed: Sniffed) -> str:
    """The dialog's line on how the file is read: the guesses and why, or the default."""
    return ("Read as: " + sniffed.describe() + ".") if sniffed.reasons else ""


def sheet_with_data(path: str | Path, sheet: str | None, found: Profile,
                    fix: str = "give --sheet {sheet!r}") -> str | None:
    """A sentence naming the sheet with the data when the chosen one has no usable table.

    It ends with ``fix`` (``{sheet}`` is the sheet with the data). The guesses need a text (or picture) column and a score column; a "Readme" sheet
    before the data has neither.
    """
    guess = guess_mapping(found)
    if (guess["text"] or guess["image"]) and guess["scores"]:
        return None
    names = sheet_names(Path(path))
    current = sheet or (names[0] if names else None)
    for other in names:
        if other == current:
            continue
        try:
            theirs = profile(path, other, read_as(path, Dialect(sheet=other)).dialect)
        except TriageError:
            continue
        found_there = guess_mapping(theirs)
        if (found_there["text"] or found_there["image"]) and found_there["scores"]:
            return (f"sheet {current!r} has no {'score' if not guess['scores'] else 'text'} "
                    f"column; sheet {other!r} has {plural(theirs.rows, 'row')} that do: "
                    + fix.format(sheet=other))
    return None


def describe_guess(guess: dict) -> str:
    """The guesses as one line, e.g. ``text=tweet, key=tweet_id, scores=kw_score``."""
    shown = (f"image={guess['image']}" + (f", text={guess['text']}" if guess["text"] else "")
             if guess.get("image") else f"text={guess['text'] or '?'}")
    parts = [shown, f"key={guess['key'] or '(row number)'}",
             f"scores={','.join(guess['scores']) or 'none'}"]
    if guess["gold"]:
        parts.append(f"gold={guess['gold']}")
    return ", ".join(parts)


def suggestion_text(guess: dict, found: Profile) -> str:
    """The dialog's line under the mapping: what was guessed, from how many rows."""
    where = (f"all {found.rows:,} rows" if found.whole else
             f"the first {found.rows:,} rows (the whole file could not be read)")
    return (f"Suggested from the names and the values of {where}: {describe_guess(guess)}. "
            "Change any of them.")


def guess_scheme(values: list[str]) -> tuple[str, str]:
    """Scheme text and positive label from a gold column's values (first seen = positive).

    Keys are first letters when they are distinct and not reserved (s/u/n: skip, undo,
    note), else 1..9. Only a pre-fill: the user confirms both fields.
    """
    names = list(dict.fromkeys(v.strip() for v in values if v.strip()))[:9]
    if not names:
        return "positive:1,negative:2", "positive"
    firsts = [n[0].lower() for n in names]
    letters = len(set(firsts)) == len(firsts) and not set(firsts) & {"s", "u", "n"}
    keys = firsts if letters else [str(i + 1) for i in range(len(names))]
    return ",".join(f"{n}:{k}" for n, k in zip(names, keys)), names[0]


_POSITIVE_NAMES = ("positive", "pos", "yes", "true", "1", "relevant", "include", "match")


def value_counts(rows: list[list[str]], column: int) -> list[tuple[str, int]]:
    """(value, rows) of a column's non-empty values, most frequent first."""
    counts: dict[str, int] = {}
    for row in rows:
        value = row[column].strip() if column < len(row) else ""
        if value:
            counts[value] = counts.get(value, 0) + 1
    return sorted(counts.items(), key=lambda kv: (-kv[1], list(counts).index(kv[0])))


def guess_positive(counts: list[tuple[str, int]]) -> str | None:
    """The value that most likely marks a find: the rarest (the yes-like one of a pair).

    Positives are what the ranking is for, and they are the minority.
    """
    if not counts:
        return None
    if len(counts) == 2:
        for value, _n in counts:
            if value.lower() in _POSITIVE_NAMES:
                return value
    return min(counts, key=lambda kv: kv[1])[0]


def check_positives(chosen: tuple[str, ...], counts: list[tuple[str, int]]) -> None:
    """Every positive label must occur in the gold column (else nothing would count)."""
    present = {value for value, _n in counts}
    missing = [p for p in chosen if p not in present]
    if counts and missing:
        raise TriageError(f"positive label {', '.join(map(repr, missing))} matches no row of "
                          f"the gold column (its values: {', '.join(sorted(present))})")


def target_for(source: str | Path) -> Path:
    """Where a new project from ``source`` goes: ``name.triage`` beside it (``name-2``... if taken)."""
    source = Path(source)
    target = source.with_suffix(".triage")
    n = 2
    while any(f.exists() for f in project_files(target)):
        target = source.with_name(f"{source.stem}-{n}.triage")
        n += 1
    return target


def project_files(path: str | Path) -> list[Path]:
    """The project file and SQLite's companions (WAL, shared memory, journal)."""
    path = Path(path)
    return [path, *(Path(f"{path}{s}") for s in ("-wal", "-shm", "-journal"))]


def remove_project(path: str | Path) -> None:
    """Delete a half-made project and its companions (nothing left behind)."""
    for file in project_files(path):
        file.unlink(missing_ok=True)


def build_project(path: str | Path, settings: Settings, source: str | Path,
                  mapping: ColumnMapping, progress: Progress | None = None) -> ImportResult:
    """Create ``path`` and import ``source`` into it: afterwards it is complete or absent.

    Refuses an existing file (never deletes what it did not create). A validation error,
    a cancel from ``progress`` or any crash removes the new file before re-raising.
    """
    path = Path(path)
    if any(f.exists() for f in project_files(path)):
        raise TriageError(f"{path} already exists; choose another name")
    project = create_project(path, settings)
    try:
        result = project.import_file(source, mapping, progress=progress)
    except BaseException:
        project.close()
        remove_project(path)
        raise
    project.close()
    return result
