"""Server addresses: what passes through to libpq, what is refused and why (no server)."""

from __future__ import annotations

import pytest

from triage.base.errors import TriageError
from triage.store.pg.url import check_project_name, is_server_url, parse_url


def test_address_splits_into_libpq_uri_and_project():
    url = parse_url("postgresql://ada@db.example.org:6543/annot?project=idioms&sslmode=verify-full")
    assert url.project == "idioms"
    assert url.schema == "triage_idioms"
    assert (url.user, url.hosts, url.port, url.dbname) == ("ada", "db.example.org", "6543",
                                                          "annot")
    assert url.conninfo == "postgresql://ada@db.example.org:6543/annot?sslmode=verify-full"
    assert url.param("sslmode") == "verify-full"
    assert (url.lead_role, url.annotator_role) == ("triage_idioms_lead",
                                                   "triage_idioms_annotator")


def test_socket_directory_and_short_scheme_pass_through():
    url = parse_url("postgres:///team?host=/run/pg&project=p1")
    assert url.host == "/run/pg"
    assert url.conninfo == "postgres:///team?host=%2Frun%2Fpg"
    assert url.user is None and url.dbname == "team"


@pytest.mark.parametrize("text", [
    "postgresql://ada:s3cret@host/db?project=p",
    "postgresql://ada@host/db?project=p&password=s3cret",
])
def test_a_password_in_the_address_is_refused_and_never_repeated(text):
    with pytest.raises(TriageError) as caught:
        parse_url(text)
    message = str(caught.value)
    assert "PGPASSWORD" in message and "~/.pgpass" in message and "PGSERVICE" in message
    assert "s3cret" not in message


def test_an_empty_password_is_only_the_user():
    url = parse_url("postgresql://postgres:@/postgres?host=/tmp/x&project=p")
    assert url.user == "postgres" and url.conninfo.startswith("postgresql://postgres@/")


def test_display_names_the_project_and_the_host():
    url = parse_url("postgresql://ada@h:5/db?sslmode=require&project=p")
    assert url.display == "postgresql://ada@h:5/db?sslmode=require&project=p"
    assert url.host == "h"


@pytest.mark.parametrize("text, needle", [
    ("postgresql://host/db", "?project=NAME"),
    ("postgresql://host/db?project=a&project=b", "once"),
    ("postgresql://host/db?project=Idioms", "lower-case"),
    ("postgresql://host/db?project=1abc", "starting with a letter"),
    ("postgresql://host/db?project=a-b", "lower-case"),
])
def test_malformed_addresses_say_what_is_wrong(text, needle):
    with pytest.raises(TriageError) as caught:
        parse_url(text)
    assert needle in str(caught.value)


def test_project_name_rule_bounds():
    assert check_project_name("a" * 40) == "a" * 40
    with pytest.raises(TriageError):
        check_project_name("a" * 41)


def test_files_are_not_addresses():
    assert is_server_url("postgresql://h/d?project=p")
    assert is_server_url("postgres://h/d?project=p")
    assert not is_server_url("idioms.triage")
    assert not is_server_url("postgresql.triage")


def test_commands_refuse_a_password_before_connecting(tmp_path, capsys):
    from triage.cli.program import main

    url = "postgresql://ana:hunter2@db.invalid/annot?project=p"
    for argv in (["push", str(tmp_path / "x.triage"), url], ["pull", url, str(tmp_path / "y")],
                 ["server", "init", url, "--lead", "lena"],
                 ["new", url, str(tmp_path / "pool.csv"), "--text", "t", "--score", "m"]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert "put no password in the server address" in err and "hunter2" not in err
    assert not (tmp_path / "y").exists()


@pytest.mark.parametrize("text", [
    "postgresql://ada@host/db?project=p&PASSWORD=s3cret",
    "postgresql://ada@host/db?project=p&Password=s3cret",
    "postgresql://ada@host/db?project=p&sslpassword=s3cret",
    "postgresql://ada@host/db?project=p&%20password=s3cret",
])
def test_a_password_in_any_case_is_refused_without_echo(text):
    with pytest.raises(TriageError) as caught:
        parse_url(text)
    assert "s3cret" not in str(caught.value)
    assert "put no password" in str(caught.value)


@pytest.mark.parametrize("name", ["abc%0A", "abc%0D", "abc%00", "abc%20"])
def test_project_names_must_match_whole(name):
    with pytest.raises(TriageError, match="not allowed"):
        parse_url(f"postgresql://host/db?project={name}")
    with pytest.raises(TriageError):
        check_project_name("abc\n")


def test_the_desk_and_the_core_recognise_a_server_address_the_same_way():
    from pathlib import Path

    from triage.project.files import project_location
    from ui.app import build_parser

    for text in ("postgresql://h/db?project=p", "POSTGRES://h/db", "p.triage",
                 "postgresql:/x", "folder/postgresql://x", "https://h/db"):
        desk = build_parser().parse_args([text]).project
        assert desk == project_location(text)
        assert isinstance(desk, str) == is_server_url(text)
    assert project_location("p.triage") == Path("p.triage")
