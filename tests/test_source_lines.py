"""A cell's lines as Python numbers them, wherever the grader quotes or cuts a line by number (pyparse.source_lines):
str.splitlines() also ends lines at U+2028, U+0085, \\x0c and others that Python reads inside a comment."""
from __future__ import annotations

import ast
import importlib.util
import time
import types

import pytest

from autograder.grading import repair
from autograder.grading.pyparse import source_lines
from tests.conftest import ROOT

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


SEGMENT_SOURCES = [
    "a = 1\nb = 'é\u2028x'  # c\r\nc = (1 +\r 2)\n",
    "x=1",
    "def f():\n    return 'ü' + '\U0001f600' + 'ß'\n\n\ny = [1,\n     2]",
    f"# a comment{SEPARATORS[0]}still it\nz = f(1)[0]\n",
]


@pytest.mark.parametrize("source", SEGMENT_SOURCES)
def test_segments_cut_what_get_source_segment_cuts(source):
    from autograder.grading.pyparse import Segments
    segments = Segments(source)
    for node in ast.walk(ast.parse(source)):
        if hasattr(node, "lineno"):
            assert segments.of(node) == ast.get_source_segment(source, node)


def test_a_square_root_taken_twice_is_found_in_a_long_cell_without_quoting_every_node():
    """sdpa's root_taken_twice_in_source quoted every node of every cell by ast.get_source_segment, which splits
    the whole cell again per call: a 15,000-line cell held the grader for over a minute of CPU (killed at 60 s,
    measured 2026-12-05); with the lines split once and quotes made only for a hit it took 0.4 s."""
    spec = importlib.util.spec_from_file_location(
        "sdpa_diagnose_for_segments", ROOT / "assignments" / "sdpa-from-scratch" / "hidden" / "_diagnose.py")
    assert spec is not None and spec.loader is not None
    diagnose = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(diagnose)
    cell = "\n".join(f"x{i} = {i} + 1" for i in range(15000)) + "\nd = 5 ** 0.5\ny = d ** 0.5\n"
    submission = types.SimpleNamespace(cells=[cell], source=cell)
    started = time.process_time()
    assert diagnose.root_taken_twice_in_source(submission) == "d = 5 ** 0.5`, then `d ** 0.5"
    assert time.process_time() - started < 20
