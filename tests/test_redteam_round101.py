"""Red-team round 101: today's changes (the Gradescope zip's course-root modules, the fingerprint's walk, the
def-name text test, the otter-compatible intake).

1. A course-root folder named for a standard-library module was walked as the course's own module. The new walk
   (fingerprint._course_modules, red-team round 97) took any folder at the course root named as an import of the
   hidden tests or the reference. A `statistics/` folder of grade tables beside scaled-attention's `import
   statistics` is no module Python loads (a folder without __init__.py is a namespace package, taken only where no
   module of its name exists; the standard library's is found), yet it was hashed into the fingerprint and packed into
   the Gradescope zip, links followed. Measured: a link in it to /etc put 1,117 files of the host into the zip uploaded
   to Gradescope (1,192 members against 74). Now such a folder counts only where `import name` would load it: a
   regular package (its __init__.py), or a namespace folder no other finder on sys.path resolves (finders asked,
   nothing imported); a built-in module's name never reads the course root.
2. `def\\x0cf(x)` and `def \\<newline> f(x)` (a form feed, a backslash line join: both bind `f` in Python) were passed
   over by pyparse.holds_name_text, which allowed only spaces and tabs after the keyword: the earlier `def f` was read
   as the one a Run All leaves (measured: last_def gave cell 0 and last_function_def the first def's `return 1`), so
   the diagnoses quoted and suggested edits of a function never graded. Now what Python reads between two tokens
   (space, tab, form feed, a backslash line join) separates the keyword from the name.
3. A cell otter ignores (`otter_ignore`, red-team round 98) was left out of the notebook's code cells, so every cell
   below it was named one number early: a right notebook with an ignored cell after its imports and a typo in its
   last code cell (Jupyter's In[23] after a Run All) was told "Cell In[22]: SyntaxError", a cell with none. Now the
   ignored cell stays in its place as an empty cell: not run, not read by the rules, and the numbering is Jupyter's.
4. The same notebook exported by jupytext (`# %% tags=["otter_ignore"]`, `# %% otter={"ignore": true}`, the percent
   format round 98 split into cells) ran the ignored cell: its scratch `def stable_softmax` replaced the answer, 14/35
   as .py where the .ipynb grades 35/35. Now a percent marker's tags and otter metadata are read as the notebook's.
5. grader.newer_python (round 98) told every SyntaxError of a notebook from a newer Python "write that line as Python
   3.11 reads it": a Colab (3.12) notebook's typo `def scratch(:`, a SyntaxError on 3.12 too, read as the grader's
   fault. No parse here tells newer syntax from a typo, so it is now said as a condition, both ways.
"""
from __future__ import annotations

import ast
import json
import os
import sys
from pathlib import Path

import pytest

from autograder.course.fingerprint import course_module_files, course_modules_digest
from autograder.grading.grader import newer_python
from autograder.grading.intake import read_submission
from autograder.grading.repair import last_def
from autograder.grading.source_checks import last_function_def
from tests.conftest import ROOT

SLUG = "sdpa-from-scratch"
SCRATCH = "def stable_softmax(x, dim=-1):  # trying something\n    return x\n"


def _course(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "course"
    hidden = root / "assignments" / "hw" / "hidden"
    hidden.mkdir(parents=True)
    (hidden / "q1.py").write_text("import statistics\nimport course_helpers\nimport course_ns\n")
    # the course's own modules: a regular package and a namespace folder no other module shadows (both load)
    (root / "course_helpers").mkdir()
    (root / "course_helpers" / "__init__.py").write_text("ANSWER = 1\n")
    (root / "course_ns").mkdir()
    (root / "course_ns" / "tables.py").write_text("TABLE = 2\n")
    # a folder of grade tables that happens to share the standard library's `statistics`, with a link out of the course
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "private.txt").write_text("not the course's\n")
    (root / "statistics").mkdir()
    (root / "statistics" / "spring.csv").write_text("alice,10\n")
    os.symlink(outside, root / "statistics" / "elsewhere")
    return root, hidden


def test_a_folder_named_for_a_stdlib_module_is_not_a_course_module(tmp_path):
    root, hidden = _course(tmp_path)
    carried = [rel for rel, _ in course_module_files(root, hidden, [])]
    assert not [rel for rel in carried if rel.startswith("statistics/")], carried
    # what does load from the course root is still carried
    assert "course_helpers/__init__.py" in carried and "course_ns/tables.py" in carried, carried
    # and the folder's tables are no part of the fingerprint
    before = course_modules_digest(root, hidden)
    (root / "statistics" / "spring.csv").write_text("alice,11\n")
    (tmp_path / "outside" / "private.txt").write_text("changed\n")
    assert course_modules_digest(root, hidden) == before
    (root / "course_ns" / "tables.py").write_text("TABLE = 3\n")
    assert course_modules_digest(root, hidden) != before


def test_a_builtin_module_name_never_reads_the_course_root(tmp_path):
    root, hidden = _course(tmp_path)
    (hidden / "q1.py").write_text("import itertools\n")
    (root / "itertools.py").write_text("count = 3\n")     # `import itertools` finds the built-in first
    assert course_module_files(root, hidden, []) == []


@pytest.mark.parametrize("between", ["\x0c", " \\\n    ", "\\\r\n", "\t\x0c "])
@pytest.mark.parametrize("spelling", ["f", "\uff46"])
def test_a_def_split_as_python_allows_is_the_last_def(between, spelling):
    cells = ["def f(x):\n    return 1\n", f"def{between}{spelling}(x):\n    return 2\n"]
    ns: dict = {}
    for cell in cells:
        exec(cell, ns)      # the notebook's own reading: the second def is `f`
    assert ns["f"](0) == 2
    found = last_function_def(cells, "f")
    assert found is not None and ast.unparse(found.body[0]) == "return 2"
    in_repair = last_def(cells, "f")
    assert in_repair is not None and in_repair[0] == 1


def _code(source: str, metadata: dict | None = None) -> dict:
    return {"cell_type": "code", "metadata": metadata or {}, "execution_count": None, "outputs": [], "source": source}


def _full_marks() -> dict:
    return json.loads((ROOT / "examples" / "submissions" / SLUG / "full_marks.ipynb").read_text(encoding="utf-8"))


def test_an_ignored_cell_keeps_every_cell_its_jupyter_number(grader, tmp_path):
    nb = _full_marks()
    nb["cells"].insert(3, _code("import time\ntime.sleep(60)  # a long experiment\n", {"tags": ["otter_ignore"]}))
    nb["cells"].append(_code("print('done'\n"))
    code_cells = sum(c["cell_type"] == "code" for c in nb["cells"])
    path = tmp_path / f"{SLUG}.ipynb"
    path.write_text(json.dumps(nb), encoding="utf-8")
    cells = read_submission(path).cells
    assert len(cells) == code_cells and not any("time.sleep" in c for c in cells)
    result = grader.grade(path, SLUG, seed=1)
    assert result.score == result.max_score > 0, result.message[:300]
    assert f"Cell In[{code_cells}]: SyntaxError" in result.message, result.message[:300]


def _percent(nb: dict, last_marker: str) -> str:
    parts = []
    for cell in nb["cells"]:
        source = "".join(cell["source"])
        if cell["cell_type"] == "code":
            parts.append("# %%\n" + source)
        else:
            parts.append("# %% [markdown]\n" + "\n".join("# " + line for line in source.splitlines()))
    parts.append(f"{last_marker}\n{SCRATCH}")
    return "\n\n".join(parts) + "\n"


@pytest.mark.parametrize("marker", ['# %% tags=["otter_ignore"]', '# %% otter={"ignore": true}'])
def test_a_percent_export_skips_what_otter_ignores(grader, tmp_path, marker):
    path = tmp_path / f"{SLUG}.py"
    path.write_text(_percent(_full_marks(), marker), encoding="utf-8")
    assert not any("trying something" in cell for cell in read_submission(path).cells)
    result = grader.grade(path, SLUG, seed=1)
    assert result.status == "graded" and result.score == result.max_score > 0, (result.score, result.message[:300])
    for not_ignored in ('# %% tags=["otter_ignore_not"]', '# %% otter={"ignore": "yes"}', "# %% tags=" + "[" * 990 + "]"):
        path.write_text(_percent(_full_marks(), not_ignored), encoding="utf-8")
        assert any("trying something" in cell for cell in read_submission(path).cells), not_ignored


def test_a_newer_python_is_said_as_a_condition():
    newer = f"{sys.version_info[0]}.{sys.version_info[1] + 1}"
    said = newer_python(newer)
    assert said and f"last ran on Python {newer}" in said
    assert ": write that line as" not in said and f"SyntaxError on Python {newer} too" in said, said
