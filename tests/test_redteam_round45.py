"""Red-team round 45: what this round confirmed (each test failed before its gap was closed).

- The static source checks read attribute names from `ast.Attribute` nodes (and from getattr-like calls
  with a constant name), but a `match` statement's class pattern reads attributes too:
  `match torch: case object(softmax=f): ...` binds `f = torch.softmax` with no `ast.Attribute` named
  `softmax` anywhere and no call that the checks treat as dynamic. So
  - `source_checks.find_use` (test_no_builtin_softmax, test_no_torch_sdpa_in_source) does not see the use:
    a stable_softmax that is torch.softmax scored 35/35 (plain spelling: 34/35), and a
    scaled_dot_product_attention that pops the forbidden-API mode and calls torch's fused kernel, both
    reached through class patterns, scored 35/35 (calls_torch_sdpa.ipynb: 19/35);
  - `source_checks.reaches_into_grader` does not see `match sys: case object(modules=m)`: round 25's
    attack (replace `calls._same_tensor` in the worker) comes back, inplace_on_input.ipynb 19/35 -> 33/35.
- A flat class folder names a student by the file's stem with invisible characters removed, so
  `bob.ipynb` and `bob<U+200B>.ipynb` are two rows named "bob" in canvas.csv with different scores
  (and no warning): a file that Canvas matches by name only can take a classmate's row. The Canvas
  writer already leaves out an id that is in two submissions; a name in two id-less rows is not.
"""
from __future__ import annotations

import csv
import shutil
from pathlib import Path

import nbformat
import pytest

from tests.conftest import ROOT

EXAMPLES = ROOT / "examples" / "submissions" / "sdpa-from-scratch"


def _replace_def(src: Path, name: str, code: str, dest: Path, extra: str | None = None) -> Path:
    nb = nbformat.read(src, as_version=4)
    if name:
        cell = next(c for c in nb.cells if c.cell_type == "code" and c.source.lstrip().startswith(f"def {name}("))
        cell.source = code
    if extra is not None:
        nb.cells.insert(2, nbformat.v4.new_code_cell(extra))
    nbformat.write(nb, dest)
    return dest


def _test(r, name: str):
    return next(t for t in r.tests if t.name == name or t.name.endswith(": " + name) or t.name.endswith(name))


# --- the static checks and a match statement's class pattern ----------------------------------------------

MATCH_SOFTMAX = ("def stable_softmax(x, dim=-1):\n"
                 "    match torch:\n"
                 "        case object(softmax=f):\n"
                 "            return f(x, dim)\n")

MATCH_FUSED = ("def scaled_dot_product_attention(Q, K, V, mask=None):\n"
               "    match torch._C:\n"
               "        case object(_pop_torch_function_stack=pop, _push_on_torch_function_stack=push,\n"
               "                    _len_torch_function_stack=depth):\n"
               "            pass\n"
               "    match F:\n"
               "        case object(scaled_dot_product_attention=fused):\n"
               "            pass\n"
               "    modes = [pop() for _ in range(depth())]\n"
               "    try:\n"
               "        return fused(Q, K, V, attn_mask=mask)\n"
               "    finally:\n"
               "        for m in reversed(modes):\n"
               "            push(m)\n")

MATCH_MODULES = ("import sys\n"
                 "match sys:\n"
                 "    case object(modules=mods):\n"
                 "        pass\n"
                 "calls = mods['auto' + 'grader.sandbox.calls']\n"
                 "calls._same_tensor = lambda a, b: True\n")


def test_find_use_sees_an_attribute_read_by_a_class_pattern():
    from autograder.grading.source_checks import SourceUnreadable, find_use
    src = "import torch\n" + MATCH_SOFTMAX
    try:
        use = find_use([src], "stable_softmax", ("softmax", "softmin"))
    except SourceUnreadable:
        return    # failing closed is a fix too
    assert use is not None, "match torch: case object(softmax=f) is torch.softmax, unseen by find_use"


def test_reaches_into_grader_sees_the_module_table_read_by_a_class_pattern():
    from autograder.grading.source_checks import reaches_into_grader
    assert reaches_into_grader([MATCH_MODULES]) is not None
    assert reaches_into_grader(["def f(): pass\nmatch f:\n    case object(__globals__=g): pass\n"]) is not None


def test_builtin_softmax_through_a_class_pattern_loses_the_rule_point(tmp_path, grader):
    path = _replace_def(EXAMPLES / "full_marks.ipynb", "stable_softmax", MATCH_SOFTMAX, tmp_path / "m.ipynb")
    r = grader.grade(path, "sdpa-from-scratch", seed=5)
    assert r.status == "rejected" or _test(r, "test_no_builtin_softmax").score == 0, (r.status, r.score)


def test_fused_sdpa_through_class_patterns_is_not_full_marks(tmp_path, grader):
    path = _replace_def(EXAMPLES / "full_marks.ipynb", "scaled_dot_product_attention", MATCH_FUSED,
                        tmp_path / "fused.ipynb")
    r = grader.grade(path, "sdpa-from-scratch", seed=5)
    assert r.status == "rejected" or _test(r, "test_no_torch_sdpa_in_source").score == 0, (r.status, r.score)
    assert r.score < r.max_score


def test_the_module_table_through_a_class_pattern_is_rejected(tmp_path, grader):
    path = _replace_def(EXAMPLES / "inplace_on_input.ipynb", "", "", tmp_path / "patched.ipynb", extra=MATCH_MODULES)
    r = grader.grade(path, "sdpa-from-scratch", seed=5)
    assert r.status == "rejected" and r.score == 0, (r.status, r.score)
    assert "reaches into the grader's own code" in r.message, r.message


# --- two id-less rows with one name in canvas.csv -----------------------------------------------------------

def test_invisible_characters_do_not_make_two_canvas_rows_with_one_name(tmp_path):
    from autograder.course.exports import discover
    from autograder.course.gradebook import write_canvas_csv
    from autograder.results import SubmissionResult
    from autograder.results import TestReport as Report
    subs = tmp_path / "class"
    subs.mkdir()
    shutil.copy(EXAMPLES / "full_marks.ipynb", subs / "bob.ipynb")
    shutil.copy(EXAMPLES / "no_scale.ipynb", subs / "bob\u200b.ipynb")
    found = discover(subs, "sdpa-from-scratch", tmp_path / "scratch")
    assert len(found.entries) == 2
    results = []
    for e, score in zip(sorted(found.entries, key=lambda e: e.key), (35.0, 19.0)):
        t = Report(question="q1", name="a", device="cpu", max_score=35, score=score,
                   status="passed" if score == 35 else "failed")
        results.append(SubmissionResult(submission=e.key, assignment="sdpa-from-scratch", score=score,
                                        max_score=35, tests=[t]))
    path = tmp_path / "canvas.csv"
    write_canvas_csv(results, path, "SDPA", found.entries, found.submitters())
    with open(path, newline="", encoding="utf-8") as fh:
        body = list(csv.reader(fh))[1:]
    names = [row[0] for row in body if not any(row[1:4])]   # rows Canvas can match by name only
    assert len(names) == len(set(names)), f"two id-less rows share a name: {body}"


# a class pattern's positional subpatterns read the attributes its class's __match_args__ names, which a
# metaclass's __instancecheck__ lets any subject match and which may be computed: fail closed on them
MATCH_ARGS = ("class _M(type):\n"
              "    def __instancecheck__(cls, o):\n"
              "        return True\n"
              "class _P(metaclass=_M):\n"
              "    __match_args__ = ('@A' + '@B',)\n")


def test_find_use_sees_a_computed_match_args_attribute():
    from autograder.grading.source_checks import SourceUnreadable, find_use
    src = ("import torch\n" + MATCH_ARGS.replace("@A", "soft").replace("@B", "max")
           + "def stable_softmax(x, dim=-1):\n    match torch:\n        case _P(f):\n            return f(x, dim)\n")
    try:
        use = find_use([src], "stable_softmax", ("softmax", "softmin"))
    except SourceUnreadable:
        return
    assert use is not None, "a computed __match_args__ name reads torch.softmax unseen"


def test_reaches_into_grader_sees_a_computed_match_args_attribute():
    from autograder.grading.source_checks import reaches_into_grader
    src = ("import sys\n" + MATCH_ARGS.replace("@A", "mod").replace("@B", "ules")
           + "match sys:\n    case _P(mods):\n        pass\n")
    assert reaches_into_grader([src]) is not None


# --- torch's stack of function modes, where the forbidden-API guard sits -----------------------------------

POP_GUARD = ("def scaled_dot_product_attention(Q, K, V, mask=None):\n"
             "    modes = [torch._C._pop_torch_function_stack() for _ in range(torch._C._len_torch_function_stack())]\n"
             "    try:\n"
             "        return __ATTEND__\n"
             "    finally:\n"
             "        for m in reversed(modes):\n"
             "            torch._C._push_on_torch_function_stack(m)\n")


@pytest.mark.parametrize("spelling", [
    "torch._C._pop_torch_function_stack()",
    "torch._C.DisableTorchFunction()",
    "torch.overrides._pop_mode()",
    "torch.utils._python_dispatch._disable_current_modes()",
])
def test_the_guards_mode_stack_is_refused_by_any_spelling(spelling):
    from autograder.grading.source_checks import reaches_into_grader
    assert reaches_into_grader([f"import torch\nx = {spelling}\n"]) is not None


def test_a_notebook_that_pops_the_forbidden_api_guard_is_rejected(tmp_path, grader):
    # the fused kernel is not even called: popping the guard is enough to be refused, in words
    code = POP_GUARD.replace("__ATTEND__", "torch.softmax(Q @ K.transpose(-2, -1) / Q.shape[-1] ** 0.5, -1) @ V")
    path = _replace_def(EXAMPLES / "full_marks.ipynb", "scaled_dot_product_attention", code, tmp_path / "pop.ipynb")
    r = grader.grade(path, "sdpa-from-scratch", seed=5)
    assert r.status == "rejected" and r.score == 0, (r.status, r.score)
    assert "_pop_torch_function_stack" in r.message, r.message


@pytest.mark.parametrize("body", [
    "return torch.distributions.Categorical(logits=x.movedim(dim, -1)).probs.movedim(-1, dim)",
    "from torch.distributions.utils import logits_to_probs\n    return logits_to_probs(x.movedim(dim, -1)).movedim(-1, dim)",
])
def test_a_distributions_softmax_loses_the_rule_point(tmp_path, grader, body):
    code = f"def stable_softmax(x, dim=-1):\n    {body}\n"
    path = _replace_def(EXAMPLES / "full_marks.ipynb", "stable_softmax", code, tmp_path / "dist.ipynb")
    r = grader.grade(path, "sdpa-from-scratch", seed=5)
    assert _test(r, "test_matches_softmax").score > 0, "the values are right"
    assert _test(r, "test_no_builtin_softmax").score == 0


def test_an_import_inside_the_function_is_read():
    from autograder.grading.source_checks import SourceUnreadable, find_use
    local = "import torch\ndef stable_softmax(x, dim=-1):\n    from torch.nn.functional import softmax as s\n    return s(x, dim)\n"
    use = find_use([local], "stable_softmax", ("softmax",))
    assert use is not None and "torch.nn.functional.softmax" in use.what
    plain = "def stable_softmax(x, dim=-1):\n    from math import e\n    return e ** (x - x.max()) / (e ** (x - x.max())).sum()\n"
    assert find_use([plain], "stable_softmax", ("softmax",)) is None
    hidden = "def stable_softmax(x, dim=-1):\n    from mystery import helper\n    return helper(x)\n"
    with pytest.raises(SourceUnreadable):
        find_use([hidden], "stable_softmax", ("softmax",))
