"""How a text file is written (delimiter, quote, decimal separator, encoding, header line),
guessed from its first MiB and said with the reason for each guess.

Excel in most of Europe saves "CSV" with ``;`` between fields, a decimal comma (``0,731``),
often a byte-order mark and sometimes in Windows' cp1252; other files have a title above
the header. :func:`sniff` looks at the whole sample (not only the header line): the
delimiter is the one of ``,`` ``;`` tab ``|`` that splits the most records into the same
number of fields; the decimal separator is a comma when, with another delimiter, a
column's values are all numbers written with one; the encoding is UTF-8 (with or without
a BOM) when the sample decodes as UTF-8, else cp1252 (latin-1 when cp1252 cannot decode
it), which the user must confirm (``--encoding`` on the command line); the header is the
first record as wide as the data, so a one-cell title above it is skipped.

A plain file (comma, UTF-8, ``.``, header on line 1) is recognised from its header line
and a UTF-8 check of the sample, without parsing it: sniffing costs nothing measurable.
"""

from __future__ import annotations

import codecs
import csv
import io
import re
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path

DELIMITERS = (",", ";", "\t", "|")
SAMPLE_BYTES = 1 << 20
NAMES = {",": "','", ";": "';'", "\t": "tab", "|": "'|'"}
ENCODINGS = {"utf-8": "UTF-8", "utf-8-sig": "UTF-8", "cp1252": "cp1252 (Windows Western "
             "European)", "latin-1": "latin-1 (ISO 8859-1)"}
_COMMA_NUMBER = re.compile(r"^\s*[+-]?\d+,\d+\s*%?\s*$")
_NUMBER = re.compile(r"^\s*[+-]?(\d+([.,]\d*)?|[.,]\d+)([eE][+-]?\d+)?\s*%?\s*$")


@dataclass(frozen=True)
class Dialect:
    """How to read a file. ``delimiter`` None: from the extension (``,``; tab for .tsv).

    ``header_row`` is the 1-based line (a spreadsheet's row number) of the header; None:
    the first non-blank one. ``sheet`` names a workbook's sheet (None: the first).
    """

    delimiter: str | None = None
    decimal: str = "."
    encoding: str = "utf-8"
    header_row: int | None = None
    sheet: str | None = None
    quote: str = '"'

    def delimiter_for(self, kind: str) -> str:
        """The delimiter of a ``csv`` or ``tsv`` file read with this dialect."""
        return self.delimiter or ("\t" if kind == "tsv" else ",")

    def fast(self, kind: str) -> bool:
        """Can the streamed import (Arrow, the extension's delimiter) read the file so?"""
        return self.arrow() and self.delimiter_for(kind) == ("\t" if kind == "tsv" else ",")

    def arrow(self) -> bool:
        """Can Arrow's reader read it (any delimiter; UTF-8, a point, the header first)?"""
        return (self.decimal == "." and self.encoding in ("utf-8", "utf-8-sig")
                and self.header_row in (None, 1) and self.quote == '"')


PLAIN = Dialect()


@dataclass(frozen=True)
class Sniffed:
    """The dialect guessed for a file, each guess with its reason.

    ``confirm`` is a question for the user when the guess needs one (an encoding other
    than UTF-8); ``problem`` says why the guess could not be used without it.
    """

    dialect: Dialect
    reasons: tuple[str, ...] = ()
    confirm: str | None = None
    problem: str | None = None  # what the confirmation is about, as a statement

    def describe(self) -> str:
        """The guesses and their reasons as one clause, '' when the file is plain."""
        return "; ".join(self.reasons)

    def refusal(self) -> str | None:
        """Why the file cannot be read without a choice, with the option that makes it."""
        if self.problem is None:
            return None
        return f"{self.problem}: give --encoding {self.dialect.encoding}"


def encoding_name(encoding: str) -> str:
    """How an encoding is named to users (``cp1252 (Windows Western European)``)."""
    return ENCODINGS.get(encoding.lower(), encoding)


def not_utf8(data: bytes, at: int) -> tuple[int, int, str]:
    """(line, character, fallback encoding) of the first byte at ``at`` that is not UTF-8."""
    line = data.count(b"\n", 0, at) + 1
    start = data.rfind(b"\n", 0, at) + 1
    character = len(data[start:at].decode("utf-8", errors="replace")) + 1
    return line, character, fallback_encoding(data)


def fallback_encoding(data: bytes) -> str:
    """cp1252 when it decodes ``data`` (Windows' own), else latin-1 (decodes anything)."""
    try:
        data.decode("cp1252")
    except UnicodeDecodeError:
        return "latin-1"
    return "cp1252"


def read_sample(path: Path) -> bytes:
    """The first MiB of ``path``, cut after its last complete line."""
    with open(path, "rb") as handle:
        data = handle.read(SAMPLE_BYTES)
        more = bool(handle.read(1))
    if more and b"\n" in data:
        data = data[: data.rindex(b"\n") + 1]
    return data


def _decoded(data: bytes, given: Dialect) -> tuple[str, str, list[str], str | None]:
    """(text, encoding, reasons, problem) of the sample, as given or as guessed."""
    if given.encoding not in ("utf-8", "utf-8-sig"):
        try:
            return data.decode(given.encoding, errors="replace"), given.encoding, [], None
        except LookupError:
            return data.decode("latin-1"), given.encoding, [], None
    bom = data.startswith(codecs.BOM_UTF8)
    body = data[len(codecs.BOM_UTF8):] if bom else data
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as error:
        if error.start >= len(body) - 3 and len(data) == SAMPLE_BYTES:
            text = body[:error.start].decode("utf-8")  # a character cut by the sample
        else:
            line, character, other = not_utf8(body, error.start)
            problem = (f"line {line} is not UTF-8 (byte 0x{body[error.start]:02x} at "
                       f"character {character}); the file reads as {encoding_name(other)}")
            return (body.decode(other, errors="replace"), other,
                    [f"encoding {other}: the file is not UTF-8 (line {line})"], problem)
    return text, "utf-8", (["encoding UTF-8 with a byte-order mark"] if bom else []), None


def _widths(text: str, delimiter: str) -> list[tuple[int, int]]:
    """(line, fields) of each non-blank record of the sample split by ``delimiter``."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    out = []
    line = 1
    try:
        for record in reader:
            if record and any(f.strip() for f in record):
                out.append((line, len(record)))
            line = reader.line_num + 1
    except csv.Error:
        pass
    if text and not text.endswith(("\n", "\r")) and out:
        out.pop()  # the last record may be cut by the sample
    return out


def _delimiter(text: str, default: str) -> tuple[str, list[tuple[int, int]], str]:
    """The delimiter that splits the most records into the same width, with its reason."""
    best: tuple[tuple[int, int, int], str, list[tuple[int, int]]] | None = None
    for order, delimiter in enumerate(sorted(DELIMITERS, key=lambda d: d != default)):
        widths = _widths(text, delimiter)
        if not widths:
            continue
        width, same = Counter(w for _l, w in widths).most_common(1)[0]
        score = (same if width > 1 else 0, width, -order)
        if best is None or score > best[0]:
            best = (score, delimiter, widths)
    if best is None or best[0][0] == 0:
        return default, [], ""
    (same, width, _o), delimiter, widths = best
    share = "all" if same == len(widths) else f"{same} of the"
    why = (f"delimiter {NAMES[delimiter]}: {share} {len(widths)} records of the sample "
           f"have {width} fields")
    return delimiter, widths, why


def _header_row(widths: list[tuple[int, int]]) -> tuple[int | None, str]:
    """The header line when short records (a title) come before the data's width.

    Short: at most half as wide as the data (a title with a comma splits in two). Wider
    records above it (a header over two rows, a header missing one name) are not guessed:
    ``--header-row`` names the header then.
    """
    if len(widths) < 2:
        return None, ""
    width = Counter(w for _l, w in widths).most_common(1)[0][0]
    first = next(line for line, w in widths if w >= width)
    above = [w for line, w in widths if line < first]
    if first == widths[0][0] or width < 2 or any(w > max(1, width // 2) for w in above):
        return None, ""
    return first, (f"header on line {first}: the lines above it hold fewer fields "
                   "(a title)")


def _decimal(text: str, delimiter: str, header: int | None) -> tuple[str, str]:
    """A decimal comma when a column of numbers is written with one (never with ``,``)."""
    if delimiter == ",":
        return ".", ""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    try:
        records = [r for r in reader if r and any(f.strip() for f in r)]
    except csv.Error:
        return ".", ""
    start = 0
    if header is not None:
        start = next((i for i, r in enumerate(records) if len(r) > 1), 0)
    if len(records) <= start + 1:
        return ".", ""
    names, rows = records[start], records[start + 1:]
    for j, name in enumerate(names):
        cells = [r[j].strip() for r in rows if j < len(r) and r[j].strip()]
        if cells and all(_NUMBER.match(c) and "." not in c for c in cells):
            example = next((c for c in cells if _COMMA_NUMBER.match(c)), None)
            if example is not None:
                return ",", (f"decimal comma: column {name.strip()!r} holds numbers like "
                             f"{example!r}")
    return ".", ""


def sniff(path: str | Path, kind: str, given: Dialect = PLAIN,
          chosen: frozenset[str] = frozenset()) -> Sniffed:
    """The dialect of a CSV/TSV/JSONL file: what ``given`` leaves open, guessed.

    ``chosen`` names the fields of ``given`` the user set (``delimiter``, ``decimal``,
    ``encoding``, ``header_row``): those are kept as they are and not explained.
    """
    path = Path(path)
    try:
        data = read_sample(path)
    except OSError:
        return Sniffed(given)
    text, encoding, reasons, problem = _decoded(data, given)
    if "encoding" in chosen:
        encoding, reasons, problem = given.encoding, [], None
    dialect = replace(given, encoding=encoding)
    question = f"{problem}: read it so?" if problem else None
    if kind not in ("csv", "tsv"):
        return Sniffed(dialect, tuple(reasons), question, problem)
    default = given.delimiter_for(kind)
    if _plain_header(text, default) and "header_row" not in chosen and encoding == "utf-8":
        # one look at the header suffices
        return Sniffed(dialect, tuple(reasons), question, problem)
    delimiter, widths, why = ((given.delimiter, _widths(text, given.delimiter), "")
                              if "delimiter" in chosen and given.delimiter else
                              _delimiter(text, default))
    reasons += [why] if why and delimiter != default else []
    header = given.header_row
    if "header_row" not in chosen:
        header, why = _header_row(widths)
        reasons += [why] if why else []
    decimal = given.decimal
    if "decimal" not in chosen:
        decimal, why = _decimal(text, delimiter, header)
        reasons += [why] if why else []
    dialect = replace(dialect, delimiter=None if delimiter == default else delimiter,
                      header_row=header, decimal=decimal)
    return Sniffed(dialect, tuple(reasons), question, problem)


def sniff_sheet(path: str | Path, given: Dialect = PLAIN,
                chosen: frozenset[str] = frozenset()) -> Sniffed:
    """The header row of a workbook's sheet, guessed below a title, with the reason.

    The header is the first row as wide as the data when only short rows (a title, or a
    merged title cell: at most half as many cells) come before it.
    """
    from triage.ingest.read.columnar import sheet_rows

    if "header_row" in chosen:
        return Sniffed(given)
    name, rows = sheet_rows(Path(path), given.sheet, limit=200)
    widths = []
    for number, row in enumerate(rows, start=1):
        cells = sum(1 for v in row if v not in (None, ""))
        if cells:
            widths.append((number, cells))
        if len(widths) >= 200:
            break
    header, _why = _header_row(widths)
    if header is None:
        return Sniffed(given)
    why = (f"header on row {header} of sheet {name!r}: the rows above it hold fewer "
           "cells (a title)")
    return Sniffed(replace(given, header_row=header), (why,))


def _plain_header(text: str, delimiter: str) -> bool:
    """Is the first line a header split by ``delimiter`` and by no other candidate, as
    wide as the unquoted line below it?

    Then the file is read as the extension says without parsing the sample (the common
    case, and the one a million-row file should not pay for).
    """
    lines = text.lstrip("\ufeff").split("\n", 2)
    line = lines[0]
    if '"' in line or delimiter not in line:
        return False
    if any(d in line for d in DELIMITERS if d != delimiter):
        return False
    below = lines[1] if len(lines) > 1 else ""
    return '"' in below or below.count(delimiter) == line.count(delimiter)
