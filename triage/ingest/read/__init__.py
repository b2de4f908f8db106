"""Reading input files: one package, a fast mode and a careful mode, and the rule between them.

The public face (everything outside this package imports from here):

- :func:`read_table` reads a whole CSV, TSV, JSONL, Parquet or spreadsheet file, checks
  what the caller asks for and returns a :class:`Table`, or raises an ``InputError``
  naming file, line and column of every problem. It tries the fast mode first and falls
  back to the careful one on anything the fast mode cannot prove.
- :func:`open_batches` reads a clean file as Arrow record batches for the streamed
  import (``NotClean`` for anything else, which the importer then reads carefully;
  :func:`count_rows` and :func:`estimate_rows` go with it); :func:`import_checked` is the
  careful mode for a CSV/TSV too big to hold whole (:func:`suits` says which).
- :func:`profile` summarises every column of a file (a :class:`Profile` of
  :class:`Column` s) for the new-project dialog's guesses, from :func:`inferred` (the
  whole file with Arrow's type inference) or, when Arrow refuses the file, from
  :func:`preview` (the first rows as text, which the dialog shows; :func:`from_rows`).
- How a text file is written: :class:`Dialect` (``PLAIN``: as its extension says), guessed
  by :func:`sniff` and :func:`sniff_sheet` with reasons (:class:`Sniffed`).
- The careful parser's pieces the exchange readers share: :func:`json_lines`,
  :func:`parse_delimited`, :func:`check_header`.

Modules: :mod:`.rule` (the formats, the exception ``NotClean`` and the checks that decide
fast or careful, the quote scan among them), :mod:`.fast` (Arrow's C++ readers),
:mod:`.careful` (the csv module and ``json``, physical lines kept; numbers as people
write them), :mod:`.columnar`
(Parquet and spreadsheets), :mod:`.table` (:func:`read_table` and the validation),
:mod:`.chunked` (the careful mode in bounded memory), :mod:`.dialect` (sniffing how a
text file is written), :mod:`.survey` (preview, inference and the column summaries).
"""

from __future__ import annotations

from triage.ingest.read.careful import check_header, json_lines, parse_delimited
from triage.ingest.read.chunked import Checks, import_checked, write_rejects
from triage.ingest.read.columnar import SPREADSHEETS, sheet_names
from triage.ingest.read.dialect import PLAIN, Dialect, Sniffed, sniff, sniff_sheet
from triage.ingest.read.fast import (
    WHITESPACE,
    all_unique,
    any_blank,
    blank,
    blank_mask,
    count_rows,
    estimate_rows,
    open_batches,
)
from triage.ingest.read.rule import FORMATS, NotClean, format_of, may_stream, suits
from triage.ingest.read.survey import Column, Profile, from_rows, inferred, preview, profile, typed
from triage.ingest.read.table import PROBLEMS_KEPT, Table, decode, read_table

__all__ = [
    "FORMATS", "PLAIN", "PROBLEMS_KEPT", "SPREADSHEETS", "WHITESPACE", "Checks", "Column",
    "Dialect", "NotClean", "Profile", "Sniffed", "Table",
    "all_unique", "any_blank", "blank", "blank_mask", "check_header", "count_rows", "decode",
    "estimate_rows", "format_of", "from_rows", "import_checked", "inferred", "json_lines", "may_stream",
    "open_batches", "parse_delimited", "preview", "profile", "read_table", "sheet_names", "suits",
    "sniff", "sniff_sheet", "typed", "write_rejects",
]
