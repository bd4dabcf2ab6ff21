"""`parse`: `ast.parse` for every thread of the trusted process, one at a time; `unparse`: `ast.unparse` of a
student's expression, bounded; `source_lines`: a cell's lines as Python numbers them.

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


# Where Python's lines end: "\n", "\r\n", "\r". str.splitlines() also ends them at U+2028, U+2029, U+0085, \x0b, \x0c and
# \x1c-\x1e, which Python reads inside a line (a comment, a string): one of them in a comment shifted every line after
# it, so a quote by line number showed another line (red-team round 76: the similarity page cut every function at
# the wrong lines; the one-edit fix quoted the wrong line the same way).
LINE_END = re.compile(r"\r\n|\r|\n")


def source_lines(source: str) -> list[str]:
    """`source`'s lines as Python numbers them (line n is `source_lines(source)[n - 1]`)."""
    return LINE_END.split(source)
