"""Guessing how a text file is written (triage/ingest/dialect.py): each guess and its reason."""

from __future__ import annotations

from triage.ingest.read.dialect import Dialect, _header_row, sniff


def write(tmp_path, name: str, data: bytes):
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_a_plain_file_is_read_as_its_extension_says_without_reasons(tmp_path):
    path = write(tmp_path, "p.csv", b"key,text,s\na,red; blue,0.5\nb,x,0.25\n")
    assert sniff(path, "csv").dialect == Dialect() and sniff(path, "csv").reasons == ()


def test_tabs_in_a_csv_and_a_title_with_a_comma(tmp_path):
    path = write(tmp_path, "t.csv", b"key\ttext\ts\na\tx, y\t0.5\nb\tz\t0.25\n")
    assert sniff(path, "csv").dialect.delimiter == "\t"
    path = write(tmp_path, "title.csv", b"Export, May\n\nkey,text,s,g\na,x,0.5,y\nb,z,0.2,n\n")
    found = sniff(path, "csv")
    assert found.dialect.header_row == 3
    assert found.reasons == ("header on line 3: the lines above it hold fewer fields "
                             "(a title)",)


def test_a_header_not_narrower_than_half_the_data_is_never_skipped():
    assert _header_row([(1, 4), (2, 5), (3, 5)]) == (None, "")  # a header missing a name
    assert _header_row([(1, 3), (2, 2), (3, 4), (4, 4)]) == (None, "")  # over two rows
    assert _header_row([(1, 1), (3, 4), (4, 4)]) == (3, "header on line 3: the lines above "
                                                     "it hold fewer fields (a title)")


def test_a_decimal_comma_needs_another_delimiter_and_a_whole_column(tmp_path):
    path = write(tmp_path, "d.csv", b"id;name;p\n1;a;0,5\n2;b;1\n")
    assert sniff(path, "csv").dialect == Dialect(delimiter=";", decimal=",")
    path = write(tmp_path, "n.csv", b"id;name;p\n1;a,b;0.5\n2;c;1\n")
    assert sniff(path, "csv").dialect == Dialect(delimiter=";")


def test_options_given_are_kept_and_not_explained(tmp_path):
    path = write(tmp_path, "d.csv", "id;name;p\n1;a;0,5\n2;b;1\n".encode("cp1252"))
    given = Dialect(delimiter=";", decimal=".")
    found = sniff(path, "csv", given, frozenset({"delimiter", "decimal"}))
    assert found.dialect == given and found.reasons == ()


def test_a_plain_file_is_not_parsed_to_be_guessed(tmp_path, monkeypatch):
    """The million-row case pays for one header look and a UTF-8 check, no csv parse."""
    from triage.ingest.read import dialect

    rows = "".join(f"k{i},\"text, {i}\",0.{i % 10}\n" for i in range(50_000))
    path = write(tmp_path, "big.csv", ("key,text,s\n" + rows).encode())
    monkeypatch.setattr(dialect, "_widths", lambda *a: (_ for _ in ()).throw(AssertionError))
    assert sniff(path, "csv").dialect == Dialect()


def test_a_byte_not_utf8_past_the_sample_is_named_when_guessing_columns(tmp_path):
    # The sniff reads the first MiB; the whole-file profile behind the guesses meets the
    # latin-1 byte and says where it is and which option reads it (not "give --text").
    import pytest

    from triage.base.errors import InputError
    from triage.ingest.read import profile
    from triage.ingest.read.dialect import SAMPLE_BYTES

    rows = [f"k{i},words of ticket {i} here,0.{i % 1000:03d}" for i in range(
        SAMPLE_BYTES // 30 + 10)]
    data = ("id,text,score\n" + "\n".join(rows) + "\nkx,caf\xe9 au lait,0.5\n").encode("latin-1")
    path = write(tmp_path, "late.csv", data)
    assert sniff(path, "csv").dialect == Dialect()  # the sample is plain UTF-8
    with pytest.raises(InputError) as caught:
        profile(path)
    assert f"late.csv:{len(rows) + 2}: not UTF-8 (byte 0xe9 at character 7)" in str(caught.value)
    assert "give --encoding cp1252" in str(caught.value)
