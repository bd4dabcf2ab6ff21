"""Text that came from students or their files, made safe to show: one place for the rules.

    shown_name          a file or folder name as people are shown it (bytes that are not UTF-8,
                        control and bidi characters as escapes), bounded
    escape_unshown      every character that could rewrite a terminal, CSV row or page, escaped
    escape_undecodable  only a name's bytes that are not UTF-8, escaped (valid UTF-8 for JSON/SQLite)
    escape_non_ascii    every character that is not ASCII, escaped (an identifier's lookalike letters shown)
    clean               a student-influenced value (an export's name, sid, date) as short inert text
    terminal_text       any text made inert for a terminal (escapes shown, newlines bounded)
    csv_cell            a cell of student-influenced text, inert in a spreadsheet (no formula)

Used by intake and the class exports (names), by every output (tables, CSV, HTML); it imports
nothing of the grader."""
from __future__ import annotations

import datetime as _dt
import os
import re
from pathlib import Path
from typing import Any


# --- names are data --------------------------------------------------------------------------------
# What a name is never shown with as it is: C0 and C1 controls and DEL (they move a terminal's cursor,
# end a CSV row), bidi embeddings, overrides, isolates and marks (a name that reads otherwise than it
# is stored), zero-width characters, line and paragraph separators, the BOM, and lone surrogates:
# the bytes of a name that are not UTF-8, which Python keeps as U+DC80..U+DCFF and no UTF-8 output
# (JSON, CSV, HTML, SQLite, a terminal) can hold. And every other default-ignorable code point
# (Unicode's DerivedCoreProperties: a character drawn as nothing): `bo<U+034F>b.ipynb`, a combining
# grapheme joiner, a variation selector, a tag character, a soft hyphen or a Hangul filler inside a
# name showed as `bob.ipynb` in every table, CSV and page beside the real bob's row (red-team round 99).
_IGNORABLE = ("\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
              "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8"
              "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff")
UNSHOWN = re.compile(f"[\x00-\x1f\x7f-\x9f\u2028\u2029{_IGNORABLE}\ud800-\udfff]")


def _escaped(match: re.Match[str]) -> str:
    o = ord(match.group())
    if 0xDC80 <= o <= 0xDCFF:  # a byte that is not UTF-8, as the OS's name decoding kept it
        return f"\\x{o - 0xDC00:02x}"
    return f"\\x{o:02x}" if o <= 0xFF else f"\\u{o:04x}" if o <= 0xFFFF else f"\\U{o:08x}"


def escape_unshown(text: str) -> str:
    """`text` with every UNSHOWN character written as an escape: valid UTF-8, and inert."""
    return UNSHOWN.sub(_escaped, text)


_NOT_ASCII = re.compile("[^\x00-\x7f]")


def escape_non_ascii(text: str) -> str:
    """`text` with every character that is not ASCII written as its escape (`c\\u0430usal_mask`): an identifier
    spelt so a student sees which letter to retype, where a lookalike would read as the asked name."""
    return _NOT_ASCII.sub(_escaped, text)


_UNDECODABLE = re.compile("[\ud800-\udfff]")


def escape_undecodable(text: str) -> str:
    """`text` with only its lone surrogates (a name's bytes that are not UTF-8) written as \\xNN:
    valid UTF-8, everything else kept."""
    return _UNDECODABLE.sub(_escaped, text)


def shown_name(name: "str | bytes | os.PathLike[str]", limit: int = 200) -> str:
    """A file or folder name as people are shown it (messages, keys, tables, CSV, HTML): a path
    gives its last part; bytes that are not UTF-8 are written \\xNN (b"\\xe9\\xff.ipynb" gives
    "\\xe9\\xff.ipynb"), control characters too ("a\\nb" gives "a\\x0ab"), bidi controls and
    separators \\uNNNN. At most `limit` characters ("…" when cut). Several names can look alike
    (a name may itself hold a backslash): a key that must be unique adds a hash (exports._key)."""
    if isinstance(name, bytes):
        name = os.fsdecode(name)
    elif isinstance(name, os.PathLike):
        path = Path(name)
        name = path.name or str(path)
    text = escape_unshown(str(name)[: limit + 1])
    return text if len(text) <= limit else text[: limit - 1] + "…"


# --- identity ----------------------------------------------------------------------------------------
# C0 and C1 controls, DEL, bidi embeddings/overrides/isolates and marks, line/paragraph separators,
# BOM, and every other character drawn as nothing (_IGNORABLE): none has a place in a name, and several rewrite
# what a terminal or spreadsheet shows.
_CONTROL = re.compile(f"[\x00-\x1f\x7f-\x9f\u2028\u2029{_IGNORABLE}]")
_SPACES = re.compile(r"\s+")


def clean(value: Any, limit: int = 200) -> str:
    """A student-influenced string made inert and short: control characters gone (whitespace ones
    become spaces), runs of whitespace collapsed, at most `limit` characters ("…" when cut). Strings,
    numbers and dates are kept as text; anything else (lists, mappings, None) becomes ""."""
    if isinstance(value, bool) or value is None:
        return ""
    if isinstance(value, (_dt.date, _dt.datetime)):
        value = value.isoformat()
    elif isinstance(value, (int, float)):
        value = repr(value) if isinstance(value, float) else str(value) if abs(value) < 10 ** 60 else ""
    elif isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    elif not isinstance(value, str):
        return ""
    text = value[: limit * 8]
    text = escape_undecodable(text)  # a file name's bytes that are not UTF-8 (lone surrogates) as \\xNN
    text = _CONTROL.sub(lambda m: " " if m.group().isspace() else "", text)
    text = _SPACES.sub(" ", text).strip()
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


# --- inert text ------------------------------------------------------------------------------------
# C0 controls (ESC, CR, BS, BEL, ...), DEL, C1 controls (CSI/OSC/NEL as single code points), the
# Unicode line/paragraph separators, bidirectional overrides and isolates (a line that reads
# differently than it is stored), and lone surrogates (they cannot be encoded: printing one crashes).
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e"
                     "\u2066-\u2069\ud800-\udfff]")
_UNSAFE_KEEP_NEWLINES = re.compile("(?!\n)" + _UNSAFE.pattern)


def _visible(match: re.Match[str]) -> str:
    o = ord(match.group())
    return f"\\x{o:02x}" if o <= 0xFF else f"\\u{o:04x}"


def inert_lines(text: str) -> str:
    """`text` with its line breaks and tabs kept and every other control, bidi override and lone
    surrogate written as an escape: what a report's message may hold, in JSON, HTML or a terminal."""
    # _escaped: a file name's byte that is not UTF-8 (U+DC80..U+DCFF) reads \xNN, as in names
    return _UNSAFE_KEEP_NEWLINES.sub(_escaped, text.replace("\t", "    ")) if _UNSAFE.search(text) else text


def terminal_text(text: str, *, newlines: bool = False, limit: int = 2000, max_lines: int = 8) -> str:
    """`text` made inert for a terminal: every control character is shown as an escape (ESC as
    \\x1b, CR as \\x0d), so it can neither move the cursor, rewrite a line nor retitle the window.
    Newlines survive only when `newlines` (for text drawn inside a bordered cell), at most
    `max_lines` of them; the result is at most about `limit` characters."""
    text = str(text)
    clipped = len(text) > limit
    text = text[:limit]
    text = (_UNSAFE_KEEP_NEWLINES if newlines else _UNSAFE).sub(_visible, text)
    if newlines:
        lines = text.split("\n")
        if len(lines) > max_lines:
            lines, clipped = lines[:max_lines], True
        text = "\n".join(lines)
    if len(text) > limit:
        text, clipped = text[:limit], True
    return text + "…" if clipped else text


# OWASP's CSV-injection rule: a cell starting with one of these is a formula to a spreadsheet (the
# full-width forms too: some spreadsheets fold them). Leading whitespace is no cover: some trim it.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")


def csv_cell(text: str) -> str:
    """A cell of student-influenced text, inert in a spreadsheet: prefixed with ' when it would start
    a formula. Numbers the grader writes itself do not go through this and stay numbers."""
    text = str(text)
    return "'" + text if _quoted(text) else text


def _quoted(text: str) -> bool:
    """Whether csv_cell puts a ' before `text`: a formula, or a formula behind the 's a value began with, since
    csv_uncell takes one ' off such a cell. Both rules read this one, so they are inverse for every value: `'+1.ipynb`
    was written as itself and read back as `+1.ipynb`, a classmate's key (red-team round 75)."""
    return _starts_formula(text.lstrip("'"))


def _starts_formula(text: str) -> bool:
    # any Unicode space or invisible format character a spreadsheet might trim first (U+3000, U+2003,
    # a zero-width space, a BOM): red-team round 24 found the list of six spaces too short
    return text.lstrip().lstrip("\u200b\u200c\u200d\u2060\ufeff").lstrip().startswith(_FORMULA_START) \
        or text.startswith(_FORMULA_START)


def csv_uncell(value: str) -> str:
    """A cell csv_cell wrote, read back as the text it was given: its ' dropped exactly where csv_cell adds one
    (one rule for both: handscores read the submission keys a full-width sign started with their ' kept, and
    refused the grader's own template, red-team round 63)."""
    return value[1:] if value.startswith("'") and _quoted(value[1:]) else value
