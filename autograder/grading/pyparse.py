"""`parse`: `ast.parse` for every thread of the trusted process, one at a time; `unparse`: `ast.unparse` of a
student's expression, bounded; `source_lines`: a cell's lines as Python numbers them; `Segments`: the source text of
many nodes of one cell, split once.

Why a lock: CPython 3.11's AST constructor (ast2obj) keeps its recursion depth in the interpreter, not
in the thread. A batch grades in several threads of one process, and each parses notebooks
(source_checks, crash_words, similarity). When the GIL moves to another thread in the middle of a parse
(a garbage collection that runs a finalizer is enough), the two threads' counts mix and a parse of valid
code raises `SystemError: AST constructor recursion depth mismatch`, which failed a whole submission as
a grader error (CI, test_author_check, 2026-12-03; cpython gh-106905 is a related fix, not this one).
Parsing is a few milliseconds per notebook, so one lock costs nothing that shows."""
from __future__ import annotations

import ast
import re
import threading
import unicodedata

_LOCK = threading.Lock()


def parse(source: str, filename: str = "<unknown>") -> ast.Module:
    """`ast.parse(source, filename)`, never at the same time as another thread's `parse`. Raises what
    `ast.parse` raises (SyntaxError, ValueError, RecursionError, MemoryError)."""
    with _LOCK:
        return ast.parse(source, filename=filename)


TOO_DEEP = "<an expression nested too deeply to show>"


def unparse(node: ast.AST) -> str:
    """`ast.unparse(node)`, or TOO_DEEP where it cannot be written back: ast.unparse recurses about three frames a
    level, so an expression a few hundred levels deep parses and then ends the grader's own code with RecursionError
    (`0 + 0 + ... + 0`, 400 terms, in a store the naming quotes: the grade became the grader's failure, red-team
    round 67). For quotes in messages (source_checks, crash_words); the one-edit search (repair, helper_blame) keeps
    ast.unparse, whose RecursionError tells it a statement cannot be printed, so not searched (round 69: with the
    placeholder it walked every node of the expression, 7 s of the grader's CPU)."""
    try:
        return ast.unparse(node)
    except (RecursionError, MemoryError):
        return TOO_DEEP


# What Python reads between two tokens of a line: spaces, tabs, form feeds, and a backslash that joins the next line.
# Tested with [ \t] alone, `def\x0cf(x)` and `def \<newline> f(x)` (both bind f) were passed over, and the earlier
# `def f` read as the notebook's last (red-team round 101)
_BETWEEN_TOKENS = r"(?:[ \t\x0c]|\\(?:\r\n|\r|\n))+"


def holds_name_text(source: str, keyword: str, name: str) -> bool:
    """Whether `source` may hold `keyword name` (`def f`, `class C`) as Python reads it: a quick test before a parse.
    Python reads an identifier in its NFKC form (PEP 3131), so `def ｆ(x)` (full-width) or `def 𝐟(x)` binds `f`, and
    `def  f` (two spaces) is `def f`: tested on the text `def f` only, such a cell was passed over and an earlier
    `def f` read as the notebook's last, the one a Run All leaves (red-team round 99). Only each word after the
    keyword is normalised, never the whole cell (NFKC makes U+FDFA eighteen characters: a 500,000-character cell
    of it took 0.6 s and 9 million characters each time). A false yes costs one parse; the parse's names decide."""
    if f"{keyword} {name}" in source:
        return True
    if source.isascii():   # the usual cell: only the spacing can differ
        return re.search(rf"{keyword}{_BETWEEN_TOKENS}{re.escape(name)}", source) is not None
    for m in re.finditer(rf"{keyword}{_BETWEEN_TOKENS}([^\s(:\\]{{1,200}})", source):
        word = m.group(1)
        if (word if word.isascii() else unicodedata.normalize("NFKC", word)).startswith(name):
            return True
    return False


# Where Python's lines end: "\n", "\r\n", "\r". str.splitlines() also ends them at U+2028, U+2029, U+0085, \x0b, \x0c and
# \x1c-\x1e, which Python reads inside a line (a comment, a string): one of them in a comment shifted every line after
# it, so a quote by line number showed another line (red-team round 76: the similarity page cut every function at
# the wrong lines; the one-edit fix quoted the wrong line the same way).
LINE_END = re.compile(r"\r\n|\r|\n")


def source_lines(source: str) -> list[str]:
    """`source`'s lines as Python numbers them (line n is `source_lines(source)[n - 1]`)."""
    return LINE_END.split(source)


class Segments:
    """`ast.get_source_segment(source, node)` for many nodes of one source, its lines split once (by LINE_END, line
    ends kept) and held as UTF-8, the unit of an AST column: get_source_segment splits the whole source again on every
    call, and a cell binding an answer 15,000 times made one question's check spend its whole CPU budget quoting
    them (red-team round 78)."""

    def __init__(self, source: str) -> None:
        self._lines = [line.encode("utf-8", "surrogatepass") for line in re.findall(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$", source)]

    def of(self, node: ast.AST) -> str | None:
        """The source text of `node` (as get_source_segment gives it); None where the node has no position in it."""
        try:
            first, last = node.lineno - 1, node.end_lineno - 1  # type: ignore[attr-defined, operator]
            start, end = node.col_offset, node.end_col_offset  # type: ignore[attr-defined]
        except (AttributeError, TypeError):
            return None
        lines = self._lines
        if end is None or not 0 <= first <= last < len(lines):
            return None
        if first == last:
            return lines[first][start:end].decode("utf-8", "replace")
        return (lines[first][start:] + b"".join(lines[first + 1:last]) + lines[last][:end]).decode("utf-8", "replace")
