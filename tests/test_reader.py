"""read_table: formats, line numbers, and every kind of bad input named by file/line/column."""

from __future__ import annotations

import codecs
import csv
import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from triage.base.errors import InputError, TriageError
from triage.ingest.read import read_table
from triage.ingest.read.dialect import Dialect

CHECKS = {"numeric": ["score"], "nonempty": ["text"], "unique": ["key"]}


def write(tmp_path, name, content, mode="w"):
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8", newline="")
    return path


def error_of(path, **kwargs) -> InputError:
    with pytest.raises(InputError) as info:
        read_table(path, **kwargs)
    return info.value


def test_csv_basic_types_and_lines(tmp_path):
    path = write(tmp_path, "a.csv", "key,text,score\nk1,hello,0.5\nk2,world,-1e3\n")
    table = read_table(path, **CHECKS)
    assert table.columns == ["key", "text", "score"]
    assert len(table) == 2
    assert table.column("key") == ["k1", "k2"]
    score = table.column("score")
    assert isinstance(score, np.ndarray) and score.dtype == np.float64
    assert score.tolist() == [0.5, -1000.0]
    assert table.lines.tolist() == [2, 3]
    assert table.rejected == []


def test_tsv_txt_and_tab_extensions(tmp_path):
    for name in ("a.tsv", "a.tab"):
        table = read_table(write(tmp_path, name, "key\ttext\nk\ta, b\n"))
        assert table.column("text") == ["a, b"]
    assert read_table(write(tmp_path, "a.txt", "key,text\nk,x\n")).column("text") == ["x"]


def test_unknown_extension(tmp_path):
    with pytest.raises(TriageError, match=r"unknown file type '\.docx'"):
        read_table(write(tmp_path, "a.docx", "key\n"))


def test_missing_file(tmp_path):
    err = error_of(tmp_path / "nope.csv")
    assert "nope.csv" in str(err) and "cannot be read" in str(err)


def test_bom_is_accepted(tmp_path):
    path = write(tmp_path, "a.csv", codecs.BOM_UTF8 + "key,text\nk,é\n".encode())
    table = read_table(path, required=["key"])
    assert table.columns == ["key", "text"] and table.column("text") == ["é"]


def test_invalid_utf8_names_line_character_and_the_encoding_option(tmp_path):
    """The position is a character on the line (not a byte offset called a column), and
    the sentence names the encoding the file reads as and the option that reads it."""
    path = write(tmp_path, "bad.csv", b"key,text\nk1,ok\nk2,caf\xe9 cr\xe8me\n")
    message = str(error_of(path))
    assert (f"{path}:3: not UTF-8 (byte 0xe9 at character 7); it reads as cp1252 (Windows "
            "Western European): give --encoding cp1252 (or save the file as UTF-8)") in message
    assert "column" not in message.split("\n", 1)[1]


def test_invalid_utf8_after_bom_counts_characters_after_it(tmp_path):
    path = write(tmp_path, "bad.csv", codecs.BOM_UTF8 + b"k\x81\x8d,text\n")
    message = str(error_of(path))
    assert ":1: not UTF-8 (byte 0x81 at character 2)" in message
    assert "give --encoding latin-1" in message  # cp1252 cannot read 0x81 either


def test_an_encoding_reads_the_file_and_keeps_lines(tmp_path):
    path = write(tmp_path, "win.csv", "key,text\nk1,caf\u00e9\nk2,cr\u00e8me\n".encode("cp1252"))
    table = read_table(path, dialect=Dialect(encoding="cp1252"))
    assert table.column("text") == ["café", "crème"] and list(table.lines) == [2, 3]


def test_empty_file_and_duplicate_or_empty_header(tmp_path):
    assert "header row is required" in str(error_of(write(tmp_path, "e.csv", "")))
    err = str(error_of(write(tmp_path, "d.csv", "key,text,key\n1,a,2\n")))
    assert "d.csv:1: column key: duplicate column name (columns 1 and 3)" in err
    err = str(error_of(write(tmp_path, "n.csv", "key,,text\n1,a,2\n")))
    assert "n.csv:1: column 2: empty column name" in err


def test_ragged_rows_name_the_line(tmp_path):
    path = write(tmp_path, "r.csv", "key,text\nk1,a\nk2\nk3,b,c\n\nk4,d\n")
    err = error_of(path)
    assert err.total == 2
    assert f"{path}:3: expected 2 fields, found 1" in str(err)
    assert f"{path}:4: expected 2 fields, found 3" in str(err)


def test_missing_required_column_lists_the_columns(tmp_path):
    path = write(tmp_path, "m.csv", "id,body\n1,a\n")
    err = str(error_of(path, required=["text"]))
    assert f"{path}:1: column text: required column 'text' is missing" in err
    assert "'id', 'body'" in err


def test_numeric_errors_quote_value_line_and_column(tmp_path):
    long = "x" * 100
    path = write(tmp_path, "n.csv",
                 f"key,text,score\na,t,nan\nb,t,inf\nc,t,\nd,t,abc\ne,t,{long}\nf,t,1.5\n")
    err = error_of(path, **CHECKS)
    message = str(err)
    assert err.total == 5
    assert f"{path}:2: column score: 'nan' is not a finite number" in message
    assert f"{path}:3: column score: 'inf' is not a finite number" in message
    assert f"{path}:4: column score: empty value where a number is required" in message
    assert f"{path}:5: column score: 'abc' is not a number" in message
    assert f"{path}:6: column score: '{'x' * 39}…' is not a number" in message


def test_empty_text_and_duplicate_key(tmp_path):
    path = write(tmp_path, "d.csv", "key,text,score\na,x,1\nb,  ,2\na,y,3\n")
    message = str(error_of(path, **CHECKS))
    assert f"{path}:3: column text: empty value" in message
    assert f"{path}:4: column key: duplicate value 'a' (first on line 2)" in message


def test_embedded_newlines_keep_physical_line_numbers(tmp_path):
    content = ('key,text,score\n'
               'a,"one\ntwo\nthree",1\n'      # lines 2-4
               'b,"crlf\r\ninside",2\n'        # lines 5-6
               'c,plain,oops\n'                # line 7
               'd,"x\ny",3\n')                 # lines 8-9
    path = write(tmp_path, "q.csv", content)
    table = read_table(path, skip_invalid=True, **CHECKS)
    assert table.lines.tolist() == [2, 5, 8]
    assert table.column("text")[0] == "one\ntwo\nthree"
    assert [r[0] for r in table.rejected] == [7]
    assert f"{path}:7: column score: 'oops' is not a number" in str(error_of(path, **CHECKS))


def test_embedded_newlines_across_progress_chunks(tmp_path, monkeypatch):
    monkeypatch.setattr("triage.ingest.read.careful.PROGRESS_EVERY", 3)
    rows = ["key,text"] + [f'k{i},"a\nb"' if i % 4 == 0 else f"k{i},t" for i in range(10)]
    table = read_table(write(tmp_path, "c.csv", "\n".join(rows) + "\n"))
    expected, line = [], 2
    for i in range(10):
        expected.append(line)
        line += 2 if i % 4 == 0 else 1
    assert table.lines.tolist() == expected


def test_bad_quoting_names_line(tmp_path):
    path = write(tmp_path, "q.csv", 'key,text\na,"x"y\n')
    assert f"{path}:2: cannot parse" in str(error_of(path))


def test_more_than_20_errors_are_counted(tmp_path):
    rows = "".join(f"k{i},t,bad{i}\n" for i in range(25))
    err = error_of(write(tmp_path, "many.csv", "key,text,score\n" + rows), **CHECKS)
    assert err.total == 25
    message = str(err)
    assert message.startswith("25 problems found")
    assert "... and 5 more problems" in message
    assert "many.csv:21: column score: 'bad19'" in message
    assert "bad20" not in message


def test_skip_invalid_keeps_good_rows_and_reasons(tmp_path):
    path = write(tmp_path, "s.csv", "key,text,score\na,x,1\nb,,2\nc,z\na,w,3\nd,v,4\n")
    table = read_table(path, skip_invalid=True, **CHECKS)
    assert table.column("key") == ["a", "d"]
    assert table.column("score").tolist() == [1.0, 4.0]
    assert table.lines.tolist() == [2, 6]
    assert table.rejected == [
        (3, {"key": "b", "text": "", "score": "2"}, "column text: empty value"),
        (4, {"key": "c", "text": "z"}, "expected 3 fields, found 2"),
        (5, {"key": "a", "text": "w", "score": "3"},
         "column key: duplicate value 'a' (first on line 2)"),
    ]


def test_skip_invalid_duplicate_of_rejected_row_is_kept(tmp_path):
    path = write(tmp_path, "s.csv", "key,text,score\na,x,bad\na,y,2\n")
    table = read_table(path, skip_invalid=True, **CHECKS)
    assert table.column("text") == ["y"] and [r[0] for r in table.rejected] == [2]


def test_skip_invalid_still_raises_for_missing_column(tmp_path):
    path = write(tmp_path, "s.csv", "key,body\na,x\n")
    with pytest.raises(InputError, match="required column 'text'"):
        read_table(path, required=["text"], skip_invalid=True)


def test_jsonl_union_of_keys_nested_and_blank_lines(tmp_path):
    lines = [json.dumps({"key": "a", "text": "x", "score": 1}),
             "",
             json.dumps({"text": "y", "key": "b", "score": 2.5, "meta": {"n": [1, 2]}}),
             json.dumps({"key": "c", "text": "ü", "score": "3", "flag": True, "none": None})]
    table = read_table(write(tmp_path, "a.jsonl", "\n".join(lines) + "\n"), **CHECKS)
    assert table.columns == ["key", "text", "score", "meta", "flag", "none"]
    assert table.lines.tolist() == [1, 3, 4]
    assert table.column("score").tolist() == [1.0, 2.5, 3.0]
    assert table.column("meta") == ["", '{"n": [1, 2]}', ""]
    assert table.column("flag") == ["", "", "true"]
    assert table.column("none") == ["", "", ""]
    assert table.column("text")[2] == "ü"


def test_jsonl_bad_lines_name_line_and_column(tmp_path):
    content = '{"key": "a", "text": "x"}\n{"key": "b", "text": }\n[1, 2]\n{"key": "c", "text": ""}\n'
    path = write(tmp_path, "b.ndjson", content)
    err = error_of(path, nonempty=["text"])
    message = str(err)
    assert err.total == 3
    assert f"{path}:2: column 22: not valid JSON: Expecting value" in message
    assert f"{path}:3: expected a JSON object, found list" in message
    assert f"{path}:4: column text: empty value" in message
    table = read_table(path, nonempty=["text"], skip_invalid=True)
    assert table.column("key") == ["a"] and [r[0] for r in table.rejected] == [2, 3, 4]


def test_jsonl_missing_key_and_nan(tmp_path):
    content = '{"key": "a", "score": NaN}\n{"key": "b"}\n'
    path = write(tmp_path, "c.jsonl", content)
    message = str(error_of(path, numeric=["score"]))
    assert f"{path}:1: column score: 'NaN' is not a finite number" in message
    assert f"{path}:2: column score: empty value where a number is required" in message


def test_progress_is_called_and_can_cancel(tmp_path, monkeypatch):
    monkeypatch.setattr("triage.ingest.read.careful.PROGRESS_EVERY", 10)
    body = "".join(f"k{i}\n" for i in range(35))
    calls = []
    path = write(tmp_path, "p.csv", "key\n" + body)
    # The fast path reads the file in one go and reports once, at the end.
    read_table(path, progress=lambda done, total: calls.append((done, total)))
    assert calls == [(36, 36)]
    with pytest.raises(TriageError, match="cancelled"):
        read_table(path, progress=lambda done, total: False)
    # The precise parser reports every ~10 records (the header counts as one), rising,
    # ending at all 36 records.
    import triage.ingest.read.table as reader

    monkeypatch.setattr(reader, "fast_delimited", lambda *a, **k: None)
    calls.clear()
    read_table(path, progress=lambda done, total: calls.append((done, total)))
    done = [c[0] for c in calls]
    assert len(done) >= 4 and done == sorted(done) and done[-1] == 36
    assert all(total >= done for done, total in calls)
    with pytest.raises(TriageError, match="cancelled"):
        read_table(path, progress=lambda done, total: False)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.text(st.characters(blacklist_categories=["Cs"]), min_size=1),
                          st.floats(allow_nan=False, allow_infinity=False)),
                min_size=1, max_size=20))
def test_roundtrip_matches_csv_writer(tmp_path, rows):
    rows = [(t, s) for t, s in rows if t.strip() and "\x00" not in t]
    path = tmp_path / "h.csv"
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["key", "text", "score"])
        starts, line = [], 2
        for i, (text, score) in enumerate(rows):
            writer.writerow([f"k{i}", text, repr(score)])
            starts.append(line)
            line += 1 + text.count("\n") + text.count("\r") - text.count("\r\n")
    table = read_table(path, **CHECKS)
    assert table.column("text") == [t for t, _ in rows]
    assert table.column("score").tolist() == [s for _, s in rows]
    assert table.lines.tolist() == starts



@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.text(st.characters(blacklist_categories=["Cs", "Cc"],
                                                blacklist_characters=',"'), min_size=1),
                          st.floats(allow_nan=False, allow_infinity=False, width=32)),
                min_size=1, max_size=30))
def test_fast_path_equals_the_precise_parser(tmp_path, monkeypatch, rows):
    """The C-parser fast path must give exactly what the precise parser gives."""
    import triage.ingest.read.table as reader

    body = "".join(f"k{i},{text},{score!r}\n" for i, (text, score) in enumerate(rows))
    path = write(tmp_path, "fast.csv", "key,text,score\n" + body)
    fast = read_table(path, numeric=["score"], unique=["key"])
    assert reader.fast_delimited(path.read_text(encoding="utf-8"), ",", ["score"], 0,
                                  None) is not None
    with monkeypatch.context() as patch:   # undone before hypothesis's next example
        patch.setattr(reader, "fast_delimited", lambda *a, **k: None)
        slow = read_table(path, numeric=["score"], unique=["key"])
    assert fast.columns == slow.columns and fast.lines.tolist() == slow.lines.tolist()
    assert fast.column("key") == slow.column("key") and fast.column("text") == slow.column("text")
    assert fast.column("score").tolist() == slow.column("score").tolist()


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.lists(st.one_of(st.characters(blacklist_categories=["Cs"]),
                                             st.sampled_from([",", '"', "\n", "\r\n", "\t"])),
                                   min_size=1, max_size=8).map("".join),
                          st.floats(allow_nan=False, allow_infinity=False, width=32),
                          st.sampled_from(["", "x,y", 'say "hi"', "a\nb"])),
                min_size=1, max_size=20),
       st.sampled_from(["\n", "\r\n"]), st.sampled_from([",", "\t"]))
def test_quoted_fast_path_equals_the_precise_parser(tmp_path, monkeypatch, rows, end, delim):
    """Quoted fields (delimiters, quotes, line breaks inside): the same columns and the same
    physical start lines on both paths, and the fast path takes every file without a
    lone CR."""
    import triage.ingest.read.table as reader

    path = tmp_path / ("q.csv" if delim == "," else "q.tsv")
    with open(path, "w", encoding="utf-8", newline="") as handle:
        out = csv.writer(handle, delimiter=delim, lineterminator=end)
        out.writerow(["key", "text", "score", "extra"])
        out.writerows([(f"k{i}", t, repr(s), x) for i, (t, s, x) in enumerate(rows)])

    def read():
        try:
            table = read_table(path, numeric=["score"])
        except InputError as error:
            return str(error)
        return (table.columns, table.lines.tolist(),
                {c: list(table.column(c)) for c in table.columns})

    fast = read()
    taken = reader.fast_delimited(path, delim, ["score"]) is not None
    with monkeypatch.context() as patch:
        patch.setattr(reader, "fast_delimited", lambda *a, **k: None)
        slow = read()
    assert fast == slow
    if not any("\r" in t.replace("\r\n", "") for t, _s, _x in rows):
        assert taken


def test_fast_path_whitespace_is_pythons():
    from triage.ingest.read import WHITESPACE

    assert sorted(WHITESPACE) == sorted(c for c in map(chr, range(0x110000)) if c.isspace())


@pytest.mark.parametrize("body", [
    '{"key": "a", "text": "x", "score": 1}\n{"key": "b", "text": "y", "score": 0.5}\n',
    '{"key": "a", "text": "x", "score": 1, "n": 3}\n{"key": "b", "text": "y", "score": 2, "n": 4}\n',
    '{"key": "a", "text": "x", "score": 1}\n\n{"key": "b", "text": "y", "score": 2}\n',
    '{"key": "a", "text": "x", "score": 1}\n  \n{"key": "b", "text": "y", "score": 2}\n',
    '{"key": "a", "text": "x", "score": 1}\n{"key": "b", "score": 2, "text": "y", "z": 1.5}\n',
    '{"key": "a", "text": "x", "score": "1"}\n',
    '{"key": "a", "text": null, "score": 1}\n{"key": "b", "text": "y", "score": 2}\n',
    '{"key": "a", "text": "2020-01-01", "score": 9007199254740993}\n',
])
def test_jsonl_fast_path_equals_the_precise_parser(tmp_path, monkeypatch, body):
    import triage.ingest.read.table as reader

    path = write(tmp_path, "f.jsonl", body)

    def read():
        try:
            table = read_table(path, numeric=["score"])
        except InputError as error:
            return str(error)
        return table.columns, table.lines.tolist(), {c: list(table.column(c)) for c in
                                                      table.columns}

    fast = read()
    with monkeypatch.context() as patch:
        patch.setattr(reader, "fast_jsonl", lambda *a, **k: None)
        slow = read()
    assert fast == slow
