"""Red-team round 100: the otter-compatible paths.

A notebook written for otter (its `grader = otter.Notebook(...)` cell, `grader.check("q1")` cells with odd
arguments, `check_all`/`export` cells, `%pip install otter-grader`, otter's BEGIN/END QUESTION comments around a
written answer) graded as otter's export and `otter run` read it. Repros in /tmp/rt100/ (h.py grades
examples/submissions/<slug>/full_marks.ipynb with the variants of v1.py; manual.py reads scaled-attention's written
answer after the edits Jupyter makes; reach.py asks the static rule about otter's calls). Held: `from otter import
Notebook`, `otter.Notebook(colab=True)`, `display(grader.check(...))`, `%%capture` over a check, `check_all()` and
`export(...)` cells, the `%pip install otter-grader` cell, a deleted init cell (35/35 each; the check cells' errors
are only said). Found:

- **A written answer merged with a marker's cell was lost.** Intake read otter's `<!-- BEGIN QUESTION -->` /
  `<!-- END QUESTION -->` cell by cell: the BEGIN cell was skipped whole and a cell holding END ended the block
  before its text was taken. Jupyter's Merge Cells (Shift-M) of the answer with the prompt above it, or with the
  next part's heading below it (whose first line is the END comment), gave q3 an empty answer; both merged, or the
  END comment deleted with that heading, gave none at all (`manual.py`: '' and {}). The TA grading q3 by hand read
  nothing where otter's PDF export (base_exporter.filter_cells reads the markers line by line) shows the proof.
  Now the markers are read as otter reads them: text above END in its cell is the answer's, a block without END
  ends at the next BEGIN or the notebook's end, and a block with nothing between its markers is its BEGIN cell's
  text after the marker (prompt and answer, as the PDF shows them).
- **`from otter.check.notebook import Notebook` lost the imports cell.** The worker's otter stand-in was a plain
  module, so importing otter 7's own module for Notebook (which runs in otter) raised "'otter' is not a package";
  in the imports cell it took `import torch` below it with it: a right sdpa notebook scored 6/35. Now the stand-in
  is a package with `otter.check.notebook.Notebook`: 35/35.
- **`grader.check("q1", globals())` cost the static rules' points.** Otter's Notebook.check documents
  `global_env`, the namespace its public tests read. A right sdpa notebook whose check cells pass `globals()`
  (positionally or as `global_env=`) scored 33/35: the forbidden-API rules fail closed on `globals` anywhere ("the
  grader cannot check from your source ..."). In grading the call does nothing (the worker's otter stand-in), so
  intake now rewrites such a statement, alone on its lines, to `grader.check("q1")`: the namespace call leaves what
  runs, and what the rules read is still what runs. 35/35. A `globals()` anywhere else still fails them closed.
"""
from __future__ import annotations

import copy
import json

import nbformat
import pytest

from autograder.grading.intake import read_submission
from tests.conftest import ROOT

SCALED = ROOT / "examples" / "submissions" / "scaled-attention" / "full_marks.ipynb"
ANSWER_START = "Let $X_i = q_i k_i$"


def _source(cell: dict) -> str:
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def _answer_index(cells: list[dict]) -> int:
    return next(i for i, c in enumerate(cells) if c["cell_type"] == "markdown" and _source(c).startswith(ANSWER_START))


def _merge_below(cells: list[dict], index: int) -> None:
    """Jupyter's Merge Cell Below: the two sources joined by a blank line, in the upper cell."""
    cells[index]["source"] = _source(cells[index]) + "\n\n" + _source(cells[index + 1])
    del cells[index + 1]


def _drop_end(cells: list[dict], index: int) -> None:
    cells[index + 1]["source"] = _source(cells[index + 1]).replace("<!-- END QUESTION -->", "")


EDITS = {
    "answer merged into the prompt": lambda cells, i: _merge_below(cells, i - 1),
    "answer merged with the next heading": lambda cells, i: _merge_below(cells, i),
    "prompt, answer and heading merged": lambda cells, i: (_merge_below(cells, i), _merge_below(cells, i - 1)),
    "END comment deleted": _drop_end,
}


@pytest.mark.parametrize("edit", list(EDITS))
def test_a_written_answer_survives_jupyters_edits_of_otters_markers(tmp_path, edit):
    nb = json.loads(SCALED.read_text())
    proof = _source(nb["cells"][_answer_index(nb["cells"])])
    assert read_submission(SCALED).manual_answers["q3"] == proof.strip()
    edited = copy.deepcopy(nb)
    EDITS[edit](edited["cells"], _answer_index(edited["cells"]))
    path = tmp_path / "scaled-attention.ipynb"
    path.write_text(json.dumps(edited))
    answer = read_submission(path).manual_answers.get("q3", "")
    assert proof.strip() in answer, f"{edit}: the TA reads {answer[:80]!r} for q3"


def test_two_blocks_without_end_keep_both_answers(tmp_path):
    cells = [nbformat.v4.new_markdown_cell("<!-- BEGIN QUESTION -->\n\n**Question q3** Prove it."),
             nbformat.v4.new_markdown_cell("first proof"),
             nbformat.v4.new_markdown_cell("<!-- BEGIN QUESTION -->\n\n**Question q9** Why?"),
             nbformat.v4.new_markdown_cell("second answer"),
             nbformat.v4.new_markdown_cell("<!-- END QUESTION -->")]
    path = tmp_path / "two.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=cells), path)
    assert read_submission(path).manual_answers == {"q3": "first proof", "q9": "second answer"}


def test_otters_own_module_for_notebook_imports_in_the_worker(grader, tmp_path):
    slug = "sdpa-from-scratch"
    nb = nbformat.read(ROOT / "examples" / "submissions" / slug / "full_marks.ipynb", as_version=4)
    imports = next(c for c in nb.cells if c.cell_type == "code" and "import torch" in c.source)
    imports.source = "import otter\nfrom otter.check.notebook import Notebook\n" + imports.source
    path = tmp_path / f"{slug}.ipynb"
    nbformat.write(nb, path)
    result = grader.grade(path, slug, seed=1)
    assert result.status == "graded"
    assert "otter" not in result.message, result.message
    assert result.score == result.max_score, [(t.name, t.message[:80]) for t in result.tests if t.status != "passed"]


def test_an_otter_check_given_the_namespace_costs_nothing(grader, tmp_path):
    slug = "sdpa-from-scratch"
    nb = nbformat.read(ROOT / "examples" / "submissions" / slug / "full_marks.ipynb", as_version=4)
    checks = [c for c in nb.cells if c.cell_type == "code" and c.source.strip().startswith("grader.check(")]
    assert len(checks) >= 4
    for n, cell in enumerate(checks):   # both of otter's spellings of global_env
        cell.source = cell.source.strip()[:-1] + (", globals())" if n % 2 else ", global_env=globals())")
    path = tmp_path / f"{slug}.ipynb"
    nbformat.write(nb, path)
    result = grader.grade(path, slug, seed=1)
    assert result.score == result.max_score, [(t.name, t.message[:80]) for t in result.tests if t.status != "passed"]


def test_only_a_lone_otter_check_loses_its_namespace(tmp_path):
    cells = ['grader.check("q1", globals())  # run the public tests',
             'x = 1\ngrader.check(\n    question="q2",\n    global_env=vars(),\n)\ny = 2',
             'a = 1; grader.check("q3", globals())',
             'if True:\n    grader.check("q4", globals())',
             'grader.check("q5", {**globals()})',
             'grader.check("q6", globals(), 3)']
    path = tmp_path / "checks.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells]), path)
    read = read_submission(path).cells
    assert read[0] == "grader.check('q1')"
    assert read[1].split("\n") == ["x = 1", "grader.check('q2')", "", "", "", "y = 2"]   # line numbers kept
    assert read[2:] == cells[2:]


def test_a_namespace_call_spelt_in_full_width_is_still_seen(tmp_path):
    """Intake skips cells whose text cannot call globals()/locals()/vars(); Python reads identifiers NFKC-normalised,
    so a full-width `ｇlobals()` calls globals() and the cell must still be read (its otter check rewritten)."""
    cells = ['# café: a comment that is not ASCII\ngrader.check("q1", \uff47lobals())',
             '# naïve prose only\nx = 1']
    path = tmp_path / "checks.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells]), path)
    read = read_submission(path).cells
    assert read[0].split("\n") == ["# café: a comment that is not ASCII", "grader.check('q1')"]
    assert read[1] == cells[1]
