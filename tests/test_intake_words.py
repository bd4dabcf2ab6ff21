"""What a student reads when intake refuses a file, or a cell fails (issue 13): the reason once, in
plain words; cells named as Jupyter names them; outputs never counted against the size limit; a
notebook of another assignment recognised from its metadata."""
from __future__ import annotations

import io
import json
from pathlib import Path

import nbformat
import pytest
from rich.console import Console

from autograder.config import Limits
from autograder.errors import SubmissionError
from autograder.grading.intake import read_submission
from autograder.course.outputs import print_table
from tests.conftest import ROOT
from tests.own_memory import OWN_PEAK_MB

EXAMPLES = ROOT / "examples" / "submissions" / "sdpa-from-scratch"
FULL_MARKS = EXAMPLES / "full_marks.ipynb"


def notebook(*sources: str) -> str:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(s) for s in sources]
    return nbformat.writes(nb)


def refusal(tmp_path: Path, data: bytes | str, name: str = "sub.ipynb", limits: Limits | None = None) -> str:
    path = tmp_path / name
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    with pytest.raises(SubmissionError) as e:
        read_submission(path, limits)
    return str(e.value)


@pytest.mark.parametrize("data, words", [
    (b"", "the file is empty"),
    (b"  \n\n", "the file is empty"),
    (b"PK\x03\x04" + b"\0" * 40, "zip archive"),
    (b"%PDF-1.7\n", "is a PDF"),
    (b"import torch\ndef f(): pass\n", "is not a Jupyter notebook"),
    (notebook("x = 1")[:-30].encode(), "cut short"),
    (notebook("x = 1").replace('"cells": [', '"cells": [}', 1).encode(), "damaged"),
    ('{"nbformat": 4}'.encode(), "has no cells"),
    (b"\xff\xfe{\x00", "not text"),
])
def test_a_refused_file_says_why_in_plain_words(tmp_path: Path, data: bytes, words: str) -> None:
    message = refusal(tmp_path, data)
    assert words in message, message
    for jargon in ("Expecting value", "JSONDecodeError", "Unterminated", "delimiter"):
        assert jargon not in message, message


def test_outputs_do_not_count_toward_the_size_limit(tmp_path: Path) -> None:
    """A correct notebook with a 3 MiB plot in its outputs is read under a 1 MiB limit: the limit is
    on what is graded, and outputs are not (they are stripped first)."""
    nb = nbformat.read(FULL_MARKS, as_version=4)
    nb.cells[-1] = nbformat.v4.new_code_cell("plot()", outputs=[nbformat.v4.new_output(
        "display_data", data={"image/png": "A" * (3 * 2**20)})])
    path = tmp_path / "with_plot.ipynb"
    nbformat.write(nb, path)
    assert path.stat().st_size > 3 * 2**20
    sub = read_submission(path, Limits(notebook_mb=1))
    assert len(sub.cells) == sum(c.cell_type == "code" for c in nb.cells)


def test_code_pasted_into_a_cell_counts_toward_the_size_limit(tmp_path: Path) -> None:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("data: " + "x" * (2 * 2**20))]
    message = refusal(tmp_path, nbformat.writes(nb), limits=Limits(notebook_mb=1))
    assert "without its outputs" in message and "1 MiB" in message


def test_the_file_read_at_all_is_bounded_by_upload_mb(tmp_path: Path) -> None:
    message = refusal(tmp_path, b" " * (2 * 2**20), limits=Limits(upload_mb=1))
    assert "the largest file read is 1 MiB" in message


def test_the_limits_come_from_grading_yml() -> None:
    from autograder.config import find_course
    limits = find_course(ROOT).config.limits
    text = (ROOT / "grading.yml").read_text()
    assert f"notebook_mb: {limits.notebook_mb}" in text and f"upload_mb: {limits.upload_mb}" in text


def test_a_large_output_blob_does_not_cost_a_correct_notebook_its_marks(grader, tmp_path: Path) -> None:
    """Issue 13: a correct notebook with a 50 MB output blob scored 0 (a hard-coded 20 MiB limit,
    applied before outputs were stripped)."""
    nb = nbformat.read(FULL_MARKS, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell("show()", outputs=[nbformat.v4.new_output(
        "display_data", data={"image/png": "A" * (50 * 10**6)})]))
    path = tmp_path / "big_plot.ipynb"
    nbformat.write(nb, path)
    result = grader.grade(path, "sdpa-from-scratch", seed=3)
    assert result.status == "graded", result.message
    assert result.score == result.max_score


def test_a_notebook_of_another_assignment_is_recognised(grader) -> None:
    result = grader.grade(ROOT / "student_template" / "scaled-attention.ipynb", "sdpa-from-scratch", seed=1)
    assert result.status == "rejected" and result.score == 0
    assert "another assignment, 'scaled-attention'" in result.message
    assert "sdpa-from-scratch.ipynb" in result.message


def test_cells_are_numbered_as_jupyter_numbers_them(toy_grader, tmp_path: Path) -> None:
    """`Cell In[2]` is what Jupyter's traceback says after Run All: the second code cell. The line is
    the line within that cell, and the cell is named once."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# title"), nbformat.v4.new_code_cell("x = 1"),
                nbformat.v4.new_markdown_cell("text"), nbformat.v4.new_code_cell("y = 2\ndef broken(:\n"),
                nbformat.v4.new_code_cell("z = 3\n\nundefined_name + 1")]
    path = tmp_path / "sub.ipynb"
    nbformat.write(nb, path)
    result = toy_grader.grade(path, "toy", seed=1)
    assert "Cell In[2]: SyntaxError: invalid syntax (line 2)" in result.message, result.message
    assert "Cell In[3]: NameError: name 'undefined_name' is not defined (line 3)" in result.message
    assert "<cell" not in result.message and result.message.count("In[2]") == 1


def test_a_rejected_submission_says_why_once_on_the_terminal(toy_grader, tmp_path: Path) -> None:
    path = tmp_path / "empty.ipynb"
    path.write_bytes(b"")
    result = toy_grader.grade(path, "toy", seed=1)
    assert result.status == "rejected"
    out = io.StringIO()
    print_table(result, Console(file=out, width=120, color_system=None))
    text = out.getvalue()
    assert text.count("the file is empty") == 1, text
    assert "Score: 0 / 4" in text
    # results.json keeps one row per test (Gradescope and the gradebook need them), each without the reason
    assert all("empty" not in t.message and "not graded" in t.message for t in result.tests)
    from autograder.config import VisibilitySettings
    from autograder.course.outputs import to_gradescope
    assert json.dumps(to_gradescope(result, VisibilitySettings())).count("the file is empty") == 1


def test_a_large_output_is_read_in_bounded_memory(tmp_path: Path) -> None:
    """upload_mb bounds what the trusted process holds while it parses: measured 2.5x the file for a
    114 MiB notebook of outputs (raw bytes, decoded text and parsed JSON at once). Checked here at
    30 MiB, in a fresh process so its peak is intake's own."""
    import subprocess
    import sys
    nb = nbformat.read(FULL_MARKS, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell("show()", outputs=[nbformat.v4.new_output(
        "display_data", data={"text/plain": "é" * (15 * 2**20)})]))
    path = tmp_path / "printout.ipynb"
    nbformat.write(nb, path)
    size_mb = path.stat().st_size / 2**20
    child = (OWN_PEAK_MB + "import sys\nfrom pathlib import Path\nfrom autograder.grading.intake import read_submission\n"
             "before = own_peak_mb()\n"
             "read_submission(Path(sys.argv[1]))\n"
             "print(own_peak_mb() - before)\n")
    done = subprocess.run([sys.executable, "-c", child, str(path)], capture_output=True, text=True,
                          timeout=60, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    growth_mb = float(done.stdout.strip().splitlines()[-1])
    assert growth_mb < 3.5 * size_mb, (growth_mb, size_mb)


@pytest.mark.parametrize("name", ["\x1b[2J\x1b[31mFULL MARKS", "x" * 10_000, "sdpa-from-scratch\n", 7, None, ["a"]])
def test_a_hostile_assignment_name_in_the_metadata_is_never_echoed(grader, tmp_path: Path, name: object) -> None:
    """Only a slug of this course is ever named back; any other value of the metadata is ignored and
    the notebook is graded as what it was submitted for."""
    nb = nbformat.read(FULL_MARKS, as_version=4)
    nb.metadata["otter"] = {"assignment_name": name}
    path = tmp_path / "sub.ipynb"
    nbformat.write(nb, path)
    result = grader.grade(path, "sdpa-from-scratch", seed=2)
    assert result.status == "graded" and result.score == result.max_score, result.message
    assert "another assignment" not in result.message
