"""``triage check --deep``: bytes changed inside a stored text or score are found and named."""

from __future__ import annotations

import shutil
import sqlite3
import struct

import numpy as np
import pyarrow as pa
import pytest

from tests.helpers import make_project
from triage.base.checksum import string_hashes
from triage.cli.program import main


def _copy(tmp_path):
    project = make_project(tmp_path, 400)
    project.close()
    copy = tmp_path / "copy.triage"
    shutil.copyfile(tmp_path / "p.triage", copy)   # closed: no log beside it
    return copy


def _flip(path, needle: bytes, at: int) -> None:
    """Change one byte of the only occurrence of ``needle`` in the file's raw bytes."""
    raw = bytearray(path.read_bytes())
    assert raw.count(needle) == 1
    raw[raw.index(needle) + at] ^= 0x01
    path.write_bytes(bytes(raw))


def test_a_byte_flipped_inside_a_stored_text_is_named(tmp_path, capsys):
    copy = _copy(tmp_path)
    assert main(["check", "--deep", str(copy)]) == 0
    assert "ok" in capsys.readouterr().out
    # The record of candidate c0123 holds its key, then its text: change its text's "p".
    _flip(copy, b"c0123phrase number 123", 5)
    assert main(["check", str(copy)]) == 0          # SQLite sees nothing wrong
    capsys.readouterr()
    assert main(["check", "--deep", str(copy)]) == 1
    out = capsys.readouterr().out
    assert "candidate 124 (key 'c0123'): its text has changed" in out
    assert out.count("its text has changed") == 1


def test_a_byte_flipped_inside_a_stored_score_names_the_model_and_ranks(tmp_path, capsys):
    copy = _copy(tmp_path)
    # m1's two best scores, 1.0 then 0.9975 (m2's scores never reach 1): change the second.
    _flip(copy, struct.pack("<dd", 1.0, 0.9975), 8)
    assert main(["check", "--deep", "--json", str(copy)]) == 1
    out = capsys.readouterr().out
    assert "model 'm1': the ids or scores of ranks 1-64 have changed" in out


def test_a_project_without_checksums_says_so_and_records_them(tmp_path, capsys):
    project = make_project(tmp_path, 50)
    project.close()
    path = tmp_path / "p.triage"
    conn = sqlite3.connect(path)   # as a project made before checksums existed
    conn.execute("DELETE FROM _text_hashes")
    conn.execute("DELETE FROM _ranking_hashes")
    conn.commit()
    conn.close()
    assert main(["check", "--deep", str(path)]) == 0
    out = capsys.readouterr().out
    assert "50 candidate(s) and the ranking of m1, m2: no checksum was stored" in out
    assert "triage check --deep --record" in out
    assert main(["check", "--deep", "--record", str(path)]) == 0
    assert "recorded the checksums of 50 candidate(s) and 2 ranking(s)" in \
        capsys.readouterr().out
    assert main(["check", "--deep", str(path)]) == 0
    assert "no checksum" not in capsys.readouterr().out


def _reference(text: str) -> int:
    """sum((byte + 1) * R**k) mod 2**32 over the UTF-8 bytes, by Horner's rule."""
    r, value = 0x9E3779B1, 0
    for byte in reversed(text.encode()):
        value = (value * r + byte + 1) % 2**32
    return value


@pytest.mark.parametrize("texts", [["", "a", "héllo", "x" * 1_200_000 + "y", "tail"],
                                   [f"phrase {i}" * (i % 7) for i in range(2000)]])
def test_checksums_are_the_documented_polynomial(texts):
    got = string_hashes(pa.array(texts))
    assert got.dtype == np.uint32
    assert got.tolist() == [_reference(t) for t in texts]
