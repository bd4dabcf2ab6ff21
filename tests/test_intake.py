import json

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from autograder.config import Limits
from autograder.errors import SubmissionError
from autograder.grading.intake import read_submission, transform_ipython


def write(tmp_path, name, content: bytes):
    p = tmp_path / name
    p.write_bytes(content)
    return p


@pytest.mark.parametrize("content,needle", [
    (b"{not json", "the file is damaged"),
    (b"\xff\xfe\x00garbage", "not text"),
    (b'{"hello": 1}', "not a Jupyter notebook"),
    (json.dumps({"cells": [], "nbformat": 3, "metadata": {}}).encode(), "format version 3"),
    (json.dumps({"cells": [{"cell_type": "code"}], "nbformat": 4, "nbformat_minor": 5,
                 "metadata": {}}).encode(), "structure is damaged"),
])
def test_broken_notebooks_get_clear_errors(tmp_path, content, needle):
    with pytest.raises(SubmissionError, match=needle):
        read_submission(write(tmp_path, "sub.ipynb", content))


def test_oversized_and_missing_files(tmp_path):
    big = tmp_path / "big.ipynb"
    with open(big, "wb") as fh:
        fh.truncate((Limits().upload_mb + 1) * 2**20)  # sparse: nothing is written, and nothing may be read
    with pytest.raises(SubmissionError, match="the largest file read is"):
        read_submission(big)
    with pytest.raises(SubmissionError, match="does not exist"):
        read_submission(tmp_path / "nope.ipynb")


def test_code_cells_magics_and_manual_answers(tmp_path):
    nb = new_notebook(cells=[
        new_code_cell("x = 1\n!pip install evil\n%matplotlib inline\n%time y = 2\n%timeit -n 3 z = 3"),
        new_markdown_cell("<!-- BEGIN QUESTION -->\n\n**Question 2:** Why?"),
        new_markdown_cell("Because."),
        new_markdown_cell("<!-- END QUESTION -->"),
    ])
    p = tmp_path / "s.ipynb"
    nbformat.write(nb, p)
    sub = read_submission(p)
    assert len(sub.cells) == 1
    ns: dict = {}
    exec(compile(sub.cells[0], "c", "exec"), ns)
    assert (ns["x"], ns["y"], ns["z"]) == (1, 2, 3)
    assert sub.manual_answers == {"2": "Because."}


def test_transform_keeps_indentation_valid_and_drops_shell_cells():
    src = "if True:\n    !ls\n    x = 1"
    compile(transform_ipython(src), "c", "exec")
    assert "rm" not in transform_ipython("%%bash\nrm -rf /")
    ns: dict = {}
    exec(transform_ipython("%%time\nw = 5"), ns)
    assert ns["w"] == 5


def _notebook_with(tmp_path, name: str, text_of_value: str):
    """A valid notebook whose metadata value "x" is written as the raw JSON text `text_of_value`."""
    nb = new_notebook(cells=[new_code_cell("def attend(Q, K, V):\n    return V")])
    nb.metadata["x"] = "@@value@@"
    return write(tmp_path, name, nbformat.writes(nb).replace('"@@value@@"', text_of_value).encode())


@pytest.mark.parametrize("value, needle", [
    ("1" + "7" * 5000, "a number thousands of digits long"),   # json.loads: ValueError, not a syntax error
    ('"\\ud800"', "lone surrogate"),                            # valid JSON, ASCII file, no Unicode text
    ('"ok \\udfff then \\ud83d"', "lone surrogate"),            # the halves of a pair, swapped
])
def test_values_no_program_can_write_out_are_refused_in_plain_words(tmp_path, value, needle):
    """Red-team round 24: such a notebook raised a plain ValueError / UnicodeEncodeError out of intake;
    the grader still rejected it, but the similarity report of the whole class stopped on it."""
    with pytest.raises(SubmissionError, match=needle):
        read_submission(_notebook_with(tmp_path, "x.ipynb", value))


@pytest.mark.parametrize("value", ['"\\ud83d\\ude00 an emoji escaped as a pair"', '"\\\\ud800 a backslash, then text"',
                                   "1" + "7" * 4000])
def test_escaped_pairs_and_long_but_readable_numbers_are_fine(tmp_path, value):
    sub = read_submission(_notebook_with(tmp_path, "ok.ipynb", value))
    assert sub.cells == ["def attend(Q, K, V):\n    return V"]
