"""Red-team round 73: honest students whose right notebook is rejected or loses points because of where it was written.

Each test is examples/submissions/<slug>/full_marks.ipynb plus what a real class's editor or habit adds (Colab, VS
Code, Windows, JupyterLab); it must keep full marks with a clean message. Repros in /tmp/rt73/ (v1.py-v4.py grade 90
such variants of the three assignments; these four failed, the rest held):

- **Colab's own test of where it runs, `IN_COLAB = "google.colab" in sys.modules`,** had the whole notebook rejected
  as reaching into the grader (`sys.modules` in code cell 2): 0/35, 0/28, 0/42. A membership test of a written
  string answers a bool and hands out no module: source_checks._module_membership lets exactly that spelling through
  reaches_into_grader and the static rules; `m = sys.modules`, `sys.modules[...]` and a computed left side are still
  refused (test below).
- **A notebook saved with a UTF-8 byte-order mark** (Windows Notepad, PowerShell's `Set-Content -Encoding UTF8`; VS
  Code opens it) was rejected: "the file is not a Jupyter notebook (a notebook is a text file that starts with '{')",
  which the student cannot act on (the mark is invisible); a .py export with one lost every point ("SyntaxError:
  invalid non-printable character U+FEFF" in its first cell, 0/35). intake.read_submission drops the mark, as Python
  does for a source file.
- **A shell escape continued with a backslash** (Colab's `!pip install -q einops \\` then `    tqdm`) left its
  continuation as Python: "IndentationError: unexpected indent" lost the cell, and with the imports in it 6/35, 11/28,
  22/42, named module_not_imported. IPython joins those lines into the command; transform_ipython now drops them
  with it (blank lines, so the cell's line numbers stay).
- **`weights3 = %time stable_softmax(scores3, dim=-1)`** bound None (transform_ipython's `name = %magic` rule):
  32/35 and answer_left_empty, where IPython binds the expression's value. `name = %time expr` is now `name = (expr)`.
- **Cell ids missing or repeated** (nbformat 4.5 from a tool that writes none, cells merged by hand) graded right, but
  nbformat.validate warned once per cell on the grader's stderr: `autograder batch` of two such notebooks printed 74
  lines of nbformat's internals ("DuplicateCellId: Non-unique cell id ... Corrected to ...") between its own. The
  validation now runs with warnings off (ids are no part of grading; a malformed id is still refused).

Met on the way (a student's own tests written with doctest, the reverse of the focus): **doctest reaches into the
worker.** `doctest.DocTestFinder(exclude_empty=False).find(get_ipython)[0].globs` is a copy of the worker module's
globals (the stand-in get_ipython is the worker's function): a full-marks notebook put their names (ALLOWED, AT_FDCWD,
CLONE_NEWIPC, ...) into q_trap_answer (/tmp/rt73/v9.py), past reaches_into_grader; and run_docstring_examples runs
code written in a string, which no static rule reads. doctest joins pydoc, pkgutil and unittest (round 46) in
REACHING_MODULES: refused by name. (In the worker `doctest.testmod()` tests the worker's module, not the notebook's
functions, so an honest doctest never ran the student's examples here.)
"""
from __future__ import annotations

import codecs
import json
import warnings

import pytest

from autograder.grading.intake import read_submission, transform_ipython
from autograder.grading.source_checks import reaches_into_grader
from tests.conftest import ROOT

EXAMPLES = ROOT / "examples" / "submissions"
SLUGS = ("sdpa-from-scratch", "scaled-attention", "attention-pipeline")


def _full_marks(slug: str) -> dict:
    return json.loads((EXAMPLES / slug / "full_marks.ipynb").read_text())


def _source(cell: dict) -> str:
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def _imports_cell(nb: dict) -> dict:
    return next(c for c in nb["cells"] if c["cell_type"] == "code" and _source(c).startswith("import math"))


def _assert_full_marks(r, why: str) -> None:
    lost = [(t.question, t.name, t.misconception, (t.message or "")[:120]) for t in r.tests
            if t.score < t.max_score and t.max_score > 0 and t.device != "cuda"]
    assert r.status == "graded" and r.score == r.max_score and not lost, (why, r.status, r.score, r.message[:300], lost)


@pytest.mark.parametrize("slug", SLUGS)
def test_colab_membership_test_of_sys_modules_keeps_full_marks(tmp_path, grader, slug):
    nb = _full_marks(slug)
    imports = _imports_cell(nb)
    imports["source"] = _source(imports).rstrip("\n") + "\nimport sys\nIN_COLAB = 'google.colab' in sys.modules\n" \
        "if IN_COLAB:\n    !pip install -q einops\nprint(IN_COLAB)"
    path = tmp_path / "colab.ipynb"
    path.write_text(json.dumps(nb))
    _assert_full_marks(grader.grade(path, slug, seed=73), "'google.colab' in sys.modules")


@pytest.mark.parametrize("line", ["m = sys.modules", "x = sys.modules['torch']", "ok = name in sys.modules",
                                  "ok = 'a' in sys.modules.keys()", "import sys as s\nm = s.modules.get('torch')",
                                  "ok = 'a' in sys.modules and sys._getframe()"])
def test_other_uses_of_sys_modules_still_refused(line):
    assert reaches_into_grader(["import sys", line]) is not None, line


@pytest.mark.parametrize("slug", SLUGS)
def test_notebook_with_byte_order_mark_keeps_full_marks(tmp_path, grader, slug):
    path = tmp_path / "bom.ipynb"
    path.write_bytes(codecs.BOM_UTF8 + json.dumps(_full_marks(slug), indent=1).replace("\n", "\r\n").encode())
    _assert_full_marks(grader.grade(path, slug, seed=73), "UTF-8 byte-order mark, CRLF")


def test_python_export_with_byte_order_mark_reads_as_without(tmp_path):
    cells = [_source(c) for c in _full_marks("sdpa-from-scratch")["cells"] if c["cell_type"] == "code"]
    text = "#!/usr/bin/env python\n# coding: utf-8\n\n" + "".join(f"# In[{i}]:\n\n\n{c}\n\n\n" for i, c in enumerate(cells))
    plain, marked = tmp_path / "plain.py", tmp_path / "marked.py"
    plain.write_text(text)
    marked.write_bytes(codecs.BOM_UTF8 + text.encode())
    assert read_submission(marked).cells == read_submission(plain).cells


@pytest.mark.parametrize("slug", SLUGS)
def test_continued_shell_escape_in_imports_cell_keeps_full_marks(tmp_path, grader, slug):
    nb = _full_marks(slug)
    imports = _imports_cell(nb)
    imports["source"] = "!pip install -q einops \\\n    tqdm \\\n    matplotlib\n%pip install \\\n  rich\n" + _source(imports)
    path = tmp_path / "pip.ipynb"
    path.write_text(json.dumps(nb))
    r = grader.grade(path, slug, seed=73)
    _assert_full_marks(r, "!pip install continued with a backslash")
    assert not r.message, r.message


def test_continued_escape_keeps_line_numbers_and_python_continuations():
    out = transform_ipython("!pip install a \\\n    b\nx = (1 +\n     2)\ny = 3 + \\\n    4")
    assert out.split("\n")[1:] == ["", "x = (1 +", "     2)", "y = 3 + \\", "    4"]


def test_value_of_time_magic_is_bound(tmp_path, grader):
    nb = _full_marks("sdpa-from-scratch")
    cell = next(c for c in nb["cells"] if c["cell_type"] == "code" and _source(c).startswith("scores3"))
    cell["source"] = _source(cell).replace("weights3 = stable_softmax(", "weights3 = %time stable_softmax(", 1)
    assert "%time" in cell["source"]
    path = tmp_path / "time.ipynb"
    path.write_text(json.dumps(nb))
    _assert_full_marks(grader.grade(path, "sdpa-from-scratch", seed=73), "weights3 = %time ...")


def test_assigned_magics_bind_what_ipython_binds():
    out = transform_ipython("a = %time f(x)  # note\nb = %timeit f(x)\nc = !ls\nd = %time y = 2").split("\n")
    assert [line.split("  #")[0] for line in out] == ["a = (f(x))", "b = None", "c = None", "d = None"]


@pytest.mark.parametrize("ids", ["repeated", "missing"])
def test_cell_id_repairs_say_nothing_on_the_terminal(tmp_path, ids):
    nb = _full_marks("sdpa-from-scratch")
    for cell in nb["cells"]:
        if ids == "repeated":
            cell["id"] = "same"
        else:
            cell.pop("id", None)
    path = tmp_path / f"{ids}.ipynb"
    path.write_text(json.dumps(nb))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sub = read_submission(path)
    assert len(sub.cells) == sum(c["cell_type"] == "code" for c in nb["cells"])
    assert not caught, [str(w.message)[:100] for w in caught[:3]]


@pytest.mark.parametrize("code", [
    "import doctest\ng = doctest.DocTestFinder(exclude_empty=False).find(get_ipython)[0].globs",
    "from doctest import DocTestFinder as D\ng = D(exclude_empty=False).find(display)[0].globs",
    "import doctest as d\nd.run_docstring_examples(f, {})"])
def test_doctest_is_refused(code):
    assert reaches_into_grader([code]) is not None, code
