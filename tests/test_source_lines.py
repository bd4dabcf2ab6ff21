"""A cell's lines as Python numbers them, wherever the grader quotes or cuts a line by number (pyparse.source_lines):
str.splitlines() also ends lines at U+2028, U+0085, \\x0c and others that Python reads inside a comment."""
from __future__ import annotations

import ast

import pytest

from autograder.grading import repair
from autograder.grading.pyparse import source_lines

SEPARATORS = ["\u2028", "\u2029", "\x85", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e"]


@pytest.mark.parametrize("sep", SEPARATORS)
def test_a_line_separator_in_a_comment_does_not_shift_the_lines(sep):
    cell = f"def f(x):\n    # a note{sep}more of the note\n    y = x * 2\n    return y / 3\n"
    faulty = next(n for n in ast.walk(ast.parse(cell)) if isinstance(n, ast.Return))
    assert source_lines(cell)[faulty.lineno - 1].strip() == "return y / 3"
    # the one-edit fix quotes the line it would change by its number
    assert repair.safe_line(cell, faulty.lineno) == "return y / 3"


def test_python_line_ends_all_count():
    assert source_lines("a\r\nb\rc\nd") == ["a", "b", "c", "d"]
