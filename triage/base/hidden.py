"""Characters that change how a text looks without being seen: make them visible.

Candidate texts are untrusted. A right-to-left override shows a stored ``gnp.exe`` as
"exe.png", zero-width characters hide inside words, and ESC or NUL reach terminals and
spreadsheets. :func:`reveal` replaces each with a visible marker such as ``⟨U+202E⟩``;
every place that shows or writes a candidate (the desk, the report, exports) uses it.
"""

from __future__ import annotations

import re

# Bidirectional controls (embeddings, overrides, isolates, marks), zero-width characters
# and the byte-order mark / word joiner.
_BIDI = "\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c"
_ZERO_WIDTH = "\u200b-\u200d\ufeff\u2060"
# C0 controls except tab, newline and the CR of a CRLF, DEL, and C1 controls.
_CONTROL = "\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f"
_HIDDEN = re.compile(f"[{_BIDI}{_ZERO_WIDTH}{_CONTROL}]|\r(?!\n)")
_CONTROL_ONLY = re.compile(f"[{_CONTROL}]")
_CRLF = re.compile("\r\n")


def marker(char: str) -> str:
    """The visible stand-in for one hidden character, e.g. ``⟨U+202E⟩``."""
    return f"⟨U+{ord(char):04X}⟩"


def has_hidden(text: str) -> bool:
    """True when ``text`` holds a bidi control, a zero-width or a control character."""
    return _HIDDEN.search(text) is not None


def reveal(text: str) -> str:
    """``text`` with every hidden character replaced by its marker (CRLF becomes a newline)."""
    if "\r\n" in text:
        text = _CRLF.sub("\n", text)
    if not _HIDDEN.search(text):
        return text  # the common case costs one scan
    return _HIDDEN.sub(lambda m: marker(m.group()), text)


def reveal_controls(text: str) -> str:
    """Only control characters (NUL, ESC, ...; tab, CR and newline kept) made visible.

    For files written for other programs: bidi marks are legitimate in right-to-left
    text there, but raw NUL or ESC bytes break or attack the reader.
    """
    if not _CONTROL_ONLY.search(text):
        return text
    return _CONTROL_ONLY.sub(lambda m: marker(m.group()), text)
