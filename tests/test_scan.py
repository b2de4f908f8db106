"""The quote-aware byte scan (ingest.read.rule): which files the fast path may take, and where
their records start."""

from __future__ import annotations

import pytest

from triage.ingest.read.rule import scan


@pytest.mark.parametrize("body, records, lines", [
    (b"a,b\n1,2\n3,4\n", 2, [2, 3]),
    (b"a,b\n1,2\n3,4", 2, [2, 3]),
    (b'a,b\n"x,\n""y""",2\n3,4\r\n', 2, [2, 4]),
    (b'\xef\xbb\xbf"a","b"\r\n"",""\r\n', 1, [2]),
    (b'a,b\n"1\r\n2\n3",4\n5,6\n', 2, [2, 5]),
])
def test_clean_files_give_records_and_start_lines(body, records, lines):
    found = scan(body, ",", lines=True)
    assert found is not None and found.records == records
    assert found.lines is not None and found.lines.tolist() == lines


@pytest.mark.parametrize("body", [
    b'a,b\n"ab"c,d\n',      # text after a closing quote: Arrow would read abc
    b'a,b\n"x" ,y\n',       # a space after it
    b'a,b\nab"c,d\n',       # a quote inside an unquoted field
    b'a,b\n1,"open\n',      # a quoted field that never ends
    b'a,b\n1,2\r3,4\n',     # a lone CR line end (the careful path counts its lines)
    b'a,b\n"x\ry",2\n',     # a lone CR inside a quoted field
    b"",
])
def test_unclean_quoting_is_refused(body):
    assert scan(body, ",") is None


def test_only_the_quoting_matters_without_a_count():
    assert scan(b"a,b\n1,2\r3,4\n", ",", count=False) is not None
    assert scan(b'a,b\n"ab"c,d\n', ",", count=False) is None


def test_state_carries_across_chunks(tmp_path, monkeypatch):
    """A quote, a CR or a record boundary on the edge of a read block."""
    monkeypatch.setattr("triage.ingest.read.rule.BLOCK", 3)
    body = b'k,t\n1,"a,""b""\r\nc"\r\n2,"x"\r\n3,y\n'
    path = tmp_path / "f.csv"
    path.write_bytes(body)
    found = scan(path, ",", lines=True)
    assert found is not None and found.records == 3 and found.lines.tolist() == [2, 4, 5]
    path.write_bytes(b'k,t\n1,"ab"c\n')
    assert scan(path, ",") is None
