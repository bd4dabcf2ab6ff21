"""Red-team round 67: blame moved from the student to the grader (repros in /tmp/rt67/).

A notebook's own source can make the TRUSTED grader raise while it reads that source: `ast.unparse` (recursive:
about three Python frames per level) of an expression the student nested a few hundred levels deep runs past
the interpreter's recursion limit, and the RecursionError is raised where nothing catches it as the student's:

- `source_checks._Notebook._scan` (reached from `reaches_into_grader`, before any student code runs) unparses a
  match statement's class pattern: `case a.b.b....b(y=1):` (700 attributes) in one extra cell of full_marks;
- `source_checks._reaching_the_channel` unparses a store through an alias of a protocol module:
  `import json as j` then `j.b.b....b = 1` (the shallow `j.b.b = 1` is rejected by name);
- `crash_words._parameter_overwritten` unparses the first store into a parameter that a crashing line reads
  as a truth value (`if not x:` on a tensor, `x = 0+0+...+0`, 400-600 terms, under `if False:`), from
  `runner.classify`, which `_run_each` calls OUTSIDE its per-test try.

`Grader.grade` raises, so `autograder grade` ends with a traceback, exit status 1 and no results file (on
Gradescope: "the autograder failed", 0 points, the student told it is the grader's problem), and a batch
(`grade_or_fail`) records `worker_failed`: "grader error: RecursionError", an EMPTY canvas.csv cell, never
journaled, graded again by every rerun. Each test below grades such a notebook and wants graded or rejected.
"""
from __future__ import annotations

from pathlib import Path

import nbformat

from tests.conftest import ROOT

FULL_MARKS = ROOT / "examples" / "submissions" / "sdpa-from-scratch" / "full_marks.ipynb"
SLUG = "sdpa-from-scratch"


def _notebook(tmp_path: Path, name: str, extra: str = "", replace: tuple[str, str] | None = None) -> Path:
    nb = nbformat.read(FULL_MARKS, as_version=4)
    if replace is not None:
        cell = next(c for c in nb.cells if c.cell_type == "code" and c.source.startswith(replace[0]))
        cell.source = replace[1]
    if extra:
        nb.cells.append(nbformat.v4.new_code_cell(extra))
    path = tmp_path / f"{name}.ipynb"
    nbformat.write(nb, path)
    return path


def _grade(grader, path: Path):
    # grade_or_fail is a batch's call: `grade` raising (the CLI's and Gradescope's path) shows as worker_failed here
    result = grader.grade_or_fail(path, SLUG, seed=67)
    assert result.status in ("graded", "rejected"), (result.status, result.message)
    return result


def test_a_deep_class_pattern_in_a_match_is_not_the_graders_failure(tmp_path, grader):
    chain = "a" + ".b" * 700
    path = _notebook(tmp_path, "deep_match_class", extra=f"x = 1\nmatch x:\n    case {chain}(y=1):\n        pass\n")
    _grade(grader, path)   # graded (the pattern makes the source unreadable to the rule tests: theirs) or rejected


def test_a_deep_store_into_a_protocol_module_alias_is_rejected_not_a_grader_error(tmp_path, grader):
    # the same store three attributes deep is rejected by name (reaches_into_grader); 700 deep must not be less
    path = _notebook(tmp_path, "deep_json_alias_store", extra="import json as j\nj" + ".b" * 700 + " = 1\n")
    result = _grade(grader, path)
    assert result.status == "rejected", (result.status, result.message)


def test_a_crash_in_a_function_with_a_deep_store_into_its_parameter_is_the_students(tmp_path, grader):
    deep = "+".join(["0"] * 400)
    softmax = ("def stable_softmax(x, dim=-1):\n"
               "    if False:\n"
               f"        x = {deep}\n"
               "    if not x:\n"
               "        return x\n"
               "    shifted = x - x.max(dim=dim, keepdim=True).values\n"
               "    e = shifted.exp()\n"
               "    return e / e.sum(dim=dim, keepdim=True)\n")
    path = _notebook(tmp_path, "deep_store_softmax", replace=("def stable_softmax", softmax))
    result = _grade(grader, path)
    assert result.status == "graded", (result.status, result.message)
    assert result.score < result.max_score     # `if not x:` raises for every tensor of more than one entry
