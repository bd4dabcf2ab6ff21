"""Red-team round 98: what the notebook's own metadata claims.

nbformat/nbformat_minor, kernelspec and language_info, cell ids, cell types, cell and notebook metadata, attachments
and kept outputs, each read where the trusted side reads a notebook (intake, written answers, similarity, feedback,
report, Gradescope). Repros in /tmp/rt98/ (meta_try.py and intake_try.py read scaled-attention's full_marks.ipynb
with one thing changed each; manual_try.py the written answer's cell types; timing.py a 20 MB notebook of metadata).
Held: another language's kernelspec (graded as Python), repeated or missing ids, widget state and outputs (stripped
or never read), heading and unknown cell types (refused: Jupyter 4 has none), similarity (it reads intake's cells).
Found:

- **Metadata no part of grading reads refused a right notebook.** Intake ran nbformat's schema over the whole
  notebook, so a kernelspec without `display_name` (what JupyterLab saves once the notebook's kernel is
  uninstalled, jupyterlab#17303; jupytext's minimal header), code cells without `execution_count` (PyCharm), a
  `language_info` without `name`, a cell id of 65 characters or a cell `metadata.name` of "" gave full marks 0/28,
  "the notebook's structure is damaged, so Jupyter could not open it either" (`autograder grade
  /tmp/rt98/kernelspec_name_only.ipynb -a scaled-attention`: 0 / 28). Now the schema checks what grading reads
  (format, cell types, sources; intake._what_grading_reads): metadata, execution counts and ids are left out (the
  tags and otter's assignment name are checked where they are read).
- **A minor version that is not a number was the grader's IndexError.** `"nbformat_minor": "5"` (or 4.5, null)
  made nbformat assert, and intake raised IndexError: "could not be read as a notebook (IndexError)". It is refused
  in words now; `"nbformat": 4.0`, which Jupyter's reader takes for 4, is read as 4.
- **A written answer in a raw or code cell was no answer.** Between otter's BEGIN/END QUESTION markers only markdown
  cells were read: the answer cell turned raw or code (R or Y in Jupyter's command mode) gave the TA q3's prompt or
  nothing (manual_try.py: ''), where otter's PDF export (base_exporter.filter_cells keeps every cell between the
  markers) shows the proof. Raw and code cells there are the answer's text now, and a raw cell's attachments are read
  as a markdown cell's.
- **A percent-format .py was one cell.** A .py submission was split into cells only at Jupyter's `# In[3]:`
  markers, so VS Code's "Export to Python Script", jupytext and Spyder (`# %%`, `# %% [markdown]`, `# %% tags=...`)
  gave one cell: a right sdpa notebook with one stray failing cell scored 35/35 as .ipynb and 0/35 as that export
  (`autograder grade /tmp/rt98/stray_percent.py -a sdpa-from-scratch`). `# %%` lines are cell markers now, and a
  marker's line may end in `\r\n` (a Windows export of `# In[3]:` was one cell too).
- **A cell otter's grading skips was run.** otter 7 drops a code cell tagged `otter_ignore` (or with
  `metadata.otter.ignore`) before it grades (execute/preprocessor.py filter_ignored_cells), as its documentation has
  a student do to a long experiment. Run here, such a cell sleeping 45 s stopped the worker at cell_timeout_s: a
  right sdpa notebook 0/35 (`autograder grade /tmp/rt98/ignore_slow.ipynb -a sdpa-from-scratch`), and an ignored
  scratch `def stable_softmax` after the answer replaced it: 14/35. Such a cell is skipped now, by intake, so it
  is neither run nor read by the static rules or the similarity page: tagging hides nothing that is graded.

- **A notebook from a newer Python was told a bare SyntaxError.** Colab runs 3.12: `f"{cfg["d"]}"` (PEP 701) in q1's
  cell is a SyntaxError on the grader's 3.11, the cell's function lost, 14/28, told only "f-string: unmatched '['"
  (/tmp/rt98/py312_fstring.ipynb) to a student whose notebook ran. The grader cannot run newer syntax (docs/security.md,
  known limits); where a cell is a SyntaxError and language_info says a newer Python, the message now says which
  Python the notebook ran on and which the grader runs (grader.newer_python).

Not fixed (docs/security.md, known limits): running syntax newer than the grader's Python; a .py export without cell
markers.
"""
from __future__ import annotations

import base64
import copy
import json
import sys
from typing import Callable

import pytest

from autograder.errors import SubmissionError
from autograder.grading.grader import newer_python
from autograder.grading.intake import read_submission
from tests.conftest import ROOT

SLUG = "scaled-attention"
FULL = ROOT / "examples" / "submissions" / SLUG / "full_marks.ipynb"
PROOF_START = "Let $X_i = q_i k_i$"
# a 1x1 PNG
PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")


def _base() -> dict:
    return json.loads(FULL.read_text(encoding="utf-8"))


def _code_cells(nb: dict) -> list[dict]:
    return [c for c in nb["cells"] if c["cell_type"] == "code"]


def _answer_index(nb: dict) -> int:
    return next(i for i, c in enumerate(nb["cells"]) if "".join(c["source"]).startswith(PROOF_START))


METADATA: dict[str, Callable[[dict], None]] = {
    "kernelspec without display_name (JupyterLab, kernel uninstalled)":
        lambda nb: nb["metadata"].__setitem__("kernelspec", {"name": "python3"}),
    "language_info without name": lambda nb: nb["metadata"].__setitem__("language_info", {}),
    "code cells without execution_count (PyCharm)": lambda nb: [c.pop("execution_count") for c in _code_cells(nb)],
    "execution_count as text": lambda nb: [c.__setitem__("execution_count", "1") for c in _code_cells(nb)],
    "cell without metadata": lambda nb: [c.pop("metadata") for c in _code_cells(nb)],
    "collapsed as text": lambda nb: [c["metadata"].__setitem__("collapsed", "true") for c in _code_cells(nb)],
    "cell id of 65 characters": lambda nb: [c.__setitem__("id", f"{i:065d}") for i, c in enumerate(nb["cells"])],
    "empty cell name": lambda nb: [c["metadata"].__setitem__("name", "") for c in _code_cells(nb)],
    "notebook metadata null": lambda nb: nb.__setitem__("metadata", None),
    "nbformat 4.0": lambda nb: nb.__setitem__("nbformat", 4.0),
}


@pytest.mark.parametrize("edit", list(METADATA))
def test_metadata_grading_never_reads_refuses_nothing(tmp_path, edit):
    plain = read_submission(FULL)
    nb = _base()
    METADATA[edit](nb)
    path = tmp_path / f"{SLUG}.ipynb"
    path.write_text(json.dumps(nb), encoding="utf-8")
    sub = read_submission(path)      # refused before: "structure is damaged, so Jupyter could not open it either"
    assert sub.cells == plain.cells and sub.manual_answers == plain.manual_answers


def test_a_right_notebook_with_pycharms_and_jupyterlabs_metadata_gets_full_marks(grader, tmp_path):
    nb = _base()
    METADATA["kernelspec without display_name (JupyterLab, kernel uninstalled)"](nb)
    METADATA["code cells without execution_count (PyCharm)"](nb)
    path = tmp_path / f"{SLUG}.ipynb"
    path.write_text(json.dumps(nb), encoding="utf-8")
    result = grader.grade(path, SLUG, seed=1)
    assert result.status == "graded", result.message
    assert result.score == result.max_score > 0


@pytest.mark.parametrize("minor", ["5", 4.5, None])
def test_a_minor_version_that_is_not_a_number_is_refused_in_words(tmp_path, minor):
    nb = _base()
    nb["nbformat_minor"] = minor
    path = tmp_path / "sub.ipynb"
    path.write_text(json.dumps(nb), encoding="utf-8")
    with pytest.raises(SubmissionError, match="minor version"):
        read_submission(path)


@pytest.mark.parametrize("cell", [{"cell_type": "sql", "metadata": {}, "source": "select 1"},
                                  {"cell_type": "heading", "level": 1, "metadata": {}, "source": "Title"},
                                  {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None}])
def test_what_grading_reads_is_still_checked(tmp_path, cell):
    nb = _base()
    nb["cells"].insert(1, cell)
    path = tmp_path / "sub.ipynb"
    path.write_text(json.dumps(nb), encoding="utf-8")
    with pytest.raises(SubmissionError, match="structure is damaged"):
        read_submission(path)


@pytest.mark.parametrize("kind", ["raw", "code"])
def test_a_written_answer_in_a_raw_or_code_cell_is_the_answer(tmp_path, kind):
    nb = _base()
    cell = nb["cells"][_answer_index(nb)]
    proof = "".join(cell["source"]).strip()
    cell["cell_type"] = kind
    if kind == "code":
        cell.update(outputs=[], execution_count=None)
    else:
        cell["source"] = "".join(cell["source"]) + "\n\n![proof](attachment:proof.png)"
        cell["attachments"] = {"proof.png": {"image/png": base64.b64encode(PNG).decode()}}
    path = tmp_path / f"{SLUG}.ipynb"
    path.write_text(json.dumps(nb), encoding="utf-8")
    sub = read_submission(path)
    assert proof in sub.manual_answers.get("q3", ""), f"the TA reads {sub.manual_answers.get('q3', '')[:80]!r}"
    if kind == "raw":
        assert [(a.name, a.kind) for a in sub.manual_attachments.get("q3", [])] == [("proof.png", "png")]


def test_the_answer_block_still_ends_at_its_marker(tmp_path):
    """Code after END QUESTION is the notebook's, not the answer's."""
    nb = _base()
    nb["cells"].insert(_answer_index(nb) + 2, {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
                                               "source": "after_the_block = 1"})
    path = tmp_path / f"{SLUG}.ipynb"
    path.write_text(json.dumps(copy.deepcopy(nb)), encoding="utf-8")
    assert "after_the_block" not in read_submission(path).manual_answers["q3"]


def _percent_script(nb: dict, crlf: bool = False) -> str:
    """The notebook as VS Code's "Export to Python Script" and jupytext's percent format write it."""
    parts = []
    for cell in nb["cells"]:
        source = "".join(cell["source"])
        if cell["cell_type"] == "code":
            parts.append("# %%\n" + source)
        else:
            parts.append("# %% [markdown]\n" + "\n".join("# " + line for line in source.splitlines()))
    text = "\n\n".join(parts) + "\n"
    return text.replace("\n", "\r\n") if crlf else text


def _with_a_stray_cell(slug: str) -> dict:
    """A right notebook with one cell left from an experiment that raises (costs the .ipynb nothing)."""
    nb = json.loads((ROOT / "examples" / "submissions" / slug / "full_marks.ipynb").read_text(encoding="utf-8"))
    imports = next(i for i, c in enumerate(nb["cells"]) if c["cell_type"] == "code" and "import torch" in "".join(c["source"]))
    nb["cells"].insert(imports + 1, {"cell_type": "code", "id": "stray", "metadata": {}, "outputs": [], "execution_count": None,
                                     "source": "print(scores_so_far)  # left from an experiment"})
    return nb


@pytest.mark.parametrize("crlf", [False, True])
def test_a_percent_format_export_is_read_cell_by_cell(tmp_path, crlf):
    nb = _with_a_stray_cell("sdpa-from-scratch")
    path = tmp_path / "sdpa-from-scratch.py"
    path.write_bytes(_percent_script(nb, crlf).encode())
    cells = read_submission(path).cells
    stray = [c for c in cells if "scores_so_far" in c]
    assert len(stray) == 1 and "import torch" not in stray[0] and "def " not in stray[0], f"{len(cells)} cells"


def test_a_percent_format_export_with_a_stray_cell_gets_full_marks(grader, tmp_path):
    slug = "sdpa-from-scratch"
    path = tmp_path / f"{slug}.py"
    path.write_text(_percent_script(_with_a_stray_cell(slug)), encoding="utf-8")
    result = grader.grade(path, slug, seed=1)
    assert result.status == "graded" and result.score == result.max_score > 0, (result.score, result.message[:300])


def _with_an_ignored_cell(slug: str, source: str, metadata: dict) -> dict:
    nb = json.loads((ROOT / "examples" / "submissions" / slug / "full_marks.ipynb").read_text(encoding="utf-8"))
    nb["cells"].append({"cell_type": "code", "id": "ignored", "metadata": metadata, "outputs": [], "execution_count": None,
                        "source": source})
    return nb


@pytest.mark.parametrize("metadata", [{"tags": ["otter_ignore"]}, {"otter": {"ignore": True}}])
def test_a_cell_otter_ignores_is_not_run(tmp_path, metadata):
    nb = _with_an_ignored_cell(SLUG, "import time\ntime.sleep(45)  # a long experiment", metadata)
    path = tmp_path / f"{SLUG}.ipynb"
    path.write_text(json.dumps(nb), encoding="utf-8")
    assert not any("time.sleep(45)" in cell for cell in read_submission(path).cells)
    nb["cells"][-1]["metadata"] = {"tags": ["otter_ignore_not"], "otter": {"ignore": "yes"}}
    path.write_text(json.dumps(nb), encoding="utf-8")
    assert any("time.sleep(45)" in cell for cell in read_submission(path).cells)


def test_an_experiment_otter_ignores_costs_nothing(grader, tmp_path):
    """Otter's grading skips the cell; run, its scratch version of a graded function replaced the answer (14/35)."""
    slug = "sdpa-from-scratch"
    nb = _with_an_ignored_cell(slug, "def stable_softmax(x, dim=-1):  # trying something\n    return x\n",
                               {"tags": ["otter_ignore"]})
    path = tmp_path / f"{slug}.ipynb"
    path.write_text(json.dumps(nb), encoding="utf-8")
    result = grader.grade(path, slug, seed=1)
    assert result.status == "graded" and result.score == result.max_score > 0, (result.score, result.message[:300])


@pytest.mark.parametrize("info,version", [({"name": "python", "version": "3.12.11"}, "3.12"), ({"name": "python"}, ""),
                                          ({"name": "R", "version": "4.3.1"}, ""), ({"name": "python", "version": 3.12}, ""),
                                          ({"name": "python", "version": "\u202e3.99"}, "")])
def test_the_python_a_notebook_ran_on_is_read_from_its_metadata(tmp_path, info, version):
    nb = _base()
    nb["metadata"]["language_info"] = info
    path = tmp_path / f"{SLUG}.ipynb"
    path.write_text(json.dumps(nb), encoding="utf-8")
    assert read_submission(path).python_version == version


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="the grader's Python reads 3.12's f-strings")
def test_a_syntax_error_in_a_notebook_from_a_newer_python_says_so(grader, tmp_path):
    nb = _base()
    nb["metadata"]["language_info"] = {"name": "python", "version": "3.12.11"}
    answer = next(c for c in nb["cells"] if "".join(c["source"]).startswith("def attention("))
    answer["source"] = "".join(answer["source"]) + '\n\n_cfg = {"d": 4}\nprint(f"checked d={_cfg["d"]}")\n'
    path = tmp_path / f"{SLUG}.ipynb"
    path.write_text(json.dumps(nb), encoding="utf-8")
    result = grader.grade(path, SLUG, seed=1)
    assert "SyntaxError" in result.message and "last ran on Python 3.12" in result.message, result.message[:400]
    assert newer_python("3.12") and not newer_python(f"{sys.version_info[0]}.{sys.version_info[1]}") and not newer_python("")
