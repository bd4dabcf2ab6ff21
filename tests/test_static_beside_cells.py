"""Issue 20: the notebook's parse and the rules that refuse to grade it (a cell too deep to read, code that reaches
into the grader) run while the worker runs the cells, not before it starts. A refusal still grades nothing: it ends
the worker at once, whatever its cells are doing, and the submission is rejected with the same words as before."""
from __future__ import annotations

import time
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent


def _notebook(tmp_path: Path, cells: list[str]) -> Path:
    nb = nbformat.read(ROOT / "examples" / "submissions" / "sdpa-from-scratch" / "full_marks.ipynb", as_version=4)
    nb.cells += [nbformat.v4.new_code_cell(c) for c in cells]
    path = tmp_path / "student.ipynb"
    nbformat.write(nb, path)
    return path


def test_a_refused_notebook_ends_its_worker_without_waiting_for_its_cells(grader, tmp_path):
    # the first cell spins for the whole cell limit (30 s) unless its worker is ended; a later one reaches for the
    # interpreter's modules, which the grader refuses to grade
    path = _notebook(tmp_path, ["while True:\n    pass\n", "import sys\nmods = sys.modules\n"])
    grader.warm_up()
    _ = grader.zygote
    began = time.monotonic()
    result = grader.grade(path, "sdpa-from-scratch", seed=1)
    took = time.monotonic() - began
    assert result.status == "rejected", result
    assert "reaches into the grader's own code" in result.message and "sys.modules" in result.message, result.message
    assert result.score == 0 and not result.cells, result
    assert took < 10.0, f"the refusal waited {took:.1f} s for a cell that never ends"


def test_a_cell_too_deep_to_read_is_refused_beside_its_cells(grader, tmp_path):
    path = _notebook(tmp_path, ["total = " + " + ".join(["1"] * 30_000) + "\n"])
    result = grader.grade(path, "sdpa-from-scratch", seed=1)
    assert result.status == "rejected" and "nested too deeply for the grader to read" in result.message, result


def test_a_gradable_notebook_is_graded_as_before(grader, tmp_path):
    result = grader.grade(_notebook(tmp_path, ["x = 1\n"]), "sdpa-from-scratch", seed=1)
    assert result.status == "graded" and result.score == result.max_score, result
