"""The static check follows the functions a graded function calls, reads each cell on its own, and
fails closed when the source cannot show what runs. Each case is a notebook given as its code cells."""
from __future__ import annotations


import pytest

from autograder.grading.checks import Misconception, assert_function_avoids
from autograder.grading.runner import SubmissionInfo
from autograder.grading.source_checks import SourceUnreadable, cells_of, find_use, function_uses_attribute

SDPA = "scaled_dot_product_attention"
SOFTMAX = ("softmax", "softmin")

IMPORTS = "import math\nimport torch\nimport torch.nn.functional as F"
CLEAN_SOFTMAX = '''
def stable_softmax(x, dim=-1):
    """Softmax with the max subtracted first: unlike torch.softmax, written by hand."""
    e = torch.exp(x - x.amax(dim=dim, keepdim=True))
    return e / e.sum(dim=dim, keepdim=True)
'''
CLEAN_SDPA = '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    scores = Q @ K.transpose(-2, -1) / math.sqrt(Q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = stable_softmax(scores, dim=-1)
    return weights @ V
'''


def uses(cells, func="stable_softmax", names=SOFTMAX):
    return function_uses_attribute(cells, func, names)


# ---------------------------------------------------------------------------------------------------
# what it must find
# ---------------------------------------------------------------------------------------------------

def test_direct_use():
    cells = [IMPORTS, "def stable_softmax(x, dim=-1):\n    return torch.softmax(x, dim=dim)"]
    assert uses(cells)
    assert uses([IMPORTS, "def stable_softmax(x, dim=-1):\n    return x.softmax(dim)"])
    assert uses([IMPORTS, "def stable_softmax(x, dim=-1):\n    return torch.nn.Softmax(dim)(x)"])
    assert uses([IMPORTS, "def stable_softmax(x, dim=-1):\n    return F.log_softmax(x, dim).exp()"])
    assert uses([IMPORTS, "def stable_softmax(x, dim=-1):\n    return F.softmin(-x, dim)"])


def test_helper_function():
    cells = [IMPORTS, "def _norm(x, dim):\n    return F.softmax(x, dim=dim)",
             "def stable_softmax(x, dim=-1):\n    return _norm(x, dim)"]
    use = find_use(cells, "stable_softmax", SOFTMAX)
    assert use is not None and use.via == ("_norm",)
    assert "`_norm`" in use.describe() and "softmax" in use.describe()


def test_helper_of_helper_in_any_order():
    cells = [IMPORTS,
             "def stable_softmax(x, dim=-1):\n    return outer(x, dim)",
             "def outer(x, dim):\n    y = x * 1\n    return inner(y, dim)",
             "def inner(y, dim):\n    return torch.special.softmax(y, dim)"]
    use = find_use(cells, "stable_softmax", SOFTMAX)
    assert use is not None and use.via == ("outer", "inner")


def test_lambda_class_method_and_container_helpers():
    assert uses([IMPORTS, "sm = lambda x, d: F.softmax(x, d)",
                 "def stable_softmax(x, dim=-1):\n    return sm(x, dim)"])
    assert uses([IMPORTS, "class Norm:\n    def __call__(self, x, d):\n        return x.softmax(d)",
                 "def stable_softmax(x, dim=-1):\n    return Norm()(x, dim)"])
    assert uses([IMPORTS, "OPS = {}", "OPS['sm'] = F.softmax",
                 "def stable_softmax(x, dim=-1):\n    return OPS['sm'](x, dim)"])
    assert uses([IMPORTS, "OPS = []", "OPS.append(torch.softmax)",
                 "def stable_softmax(x, dim=-1):\n    return OPS[0](x, dim)"])
    # a library attribute patched to point at the forbidden function
    assert uses([IMPORTS, "torch.my_norm = torch.softmax",
                 "def stable_softmax(x, dim=-1):\n    return torch.my_norm(x, dim)"])
    # a default argument and a decorator run the forbidden function too
    assert uses([IMPORTS, "def stable_softmax(x, dim=-1, _f=F.softmax):\n    return _f(x, dim)"])
    assert uses([IMPORTS, "def deco(f):\n    return lambda x, dim=-1: torch.softmax(x, dim)",
                 "@deco\ndef stable_softmax(x, dim=-1):\n    return x"])


def test_alias_import():
    assert uses(["from torch import softmax as normalise",
                 "def stable_softmax(x, dim=-1):\n    return normalise(x, dim)"])
    assert uses(["from torch.nn.functional import softmax",
                 "def helper(x, d):\n    return softmax(x, d)",
                 "def stable_softmax(x, dim=-1):\n    return helper(x, dim)"])
    assert uses([f"from torch.nn.functional import {SDPA}",
                 f"{SDPA} = {SDPA}"], SDPA, SDPA)
    assert uses(["import torch.nn.functional as G", f"def {SDPA}(Q, K, V, mask=None):\n"
                 f"    return G.{SDPA}(Q, K, V, attn_mask=mask)"], SDPA, SDPA)
    assert uses(["from torch.nn.functional import *",
                 "def stable_softmax(x, dim=-1):\n    return softmax(x, dim)"])


def test_getattr_with_a_constant_string():
    assert uses([IMPORTS, "def stable_softmax(x, dim=-1):\n    return getattr(torch, 'softmax')(x, dim)"])
    assert uses([IMPORTS, "import operator", "def stable_softmax(x, dim=-1):\n"
                 "    return operator.methodcaller('softmax', dim)(x)"])
    assert not uses([IMPORTS, "def stable_softmax(x, dim=-1):\n"
                     "    e = getattr(torch, 'exp')(x - x.amax(dim, keepdim=True))\n"
                     "    return e / e.sum(dim, keepdim=True)"])


def test_broken_ipython_line_in_another_cell_does_not_blind_the_check():
    bad = "def stable_softmax(x, dim=-1):\n    return torch.softmax(x, dim=dim)"
    # `?torch.softmax` is IPython help syntax that intake does not turn into Python
    cells = [IMPORTS, "?torch.softmax", bad, "x = (1,"]
    assert uses(cells)
    # ... while a cell that does not parse never ran, so it defines nothing
    assert not uses([IMPORTS, CLEAN_SOFTMAX, bad + "\n?x"])


def test_lone_triple_quotes_cannot_hide_a_cell():
    bad = "def stable_softmax(x, dim=-1):\n    return torch.softmax(x, dim=dim)"
    assert uses([IMPORTS, '"""', bad, '"""', CLEAN_SOFTMAX])


def test_every_definition_counts_not_only_the_last():
    # a cell that raises before its def leaves the earlier one in place: both are checked
    bad = "def stable_softmax(x, dim=-1):\n    return torch.softmax(x, dim=dim)"
    assert uses([IMPORTS, bad, "1 / 0\n" + CLEAN_SOFTMAX])


# ---------------------------------------------------------------------------------------------------
# what it must not flag
# ---------------------------------------------------------------------------------------------------

def test_correct_implementation_that_uses_softmax_elsewhere_passes():
    cells = [IMPORTS, CLEAN_SOFTMAX, CLEAN_SDPA,
             "x = torch.randn(3, 5)\nexpected = torch.softmax(x, dim=-1)\n"
             "print(torch.allclose(stable_softmax(x), expected))",
             "weights = F.softmax(torch.randn(2, 2), dim=-1)",
             "def compare(x):\n    return (stable_softmax(x) - x.softmax(-1)).abs().max()",
             f"theirs = F.{SDPA}(x, x, x)\nours = {SDPA}(x, x, x)"]
    assert not uses(cells)
    assert not uses(cells, SDPA, SDPA)
    # locals that share a name with a module-level alias are not that alias
    assert not uses(cells + [f"def {SDPA}(Q, K, V, mask=None):\n    theirs = Q\n"
                             "    weights = stable_softmax(Q @ K.transpose(-2, -1), -1)\n"
                             "    return [theirs for theirs in [weights @ V]][0]"], SDPA, SDPA)
    # the docstring of CLEAN_SOFTMAX names torch.softmax: a string is not a call


def test_full_marks_example_passes():
    from pathlib import Path
    from autograder.grading.intake import read_submission
    root = Path(__file__).resolve().parent.parent / "examples" / "submissions" / "sdpa-from-scratch"
    cells = read_submission(root / "full_marks.ipynb").cells
    assert not uses(cells)
    assert not uses(cells, SDPA, SDPA)
    assert uses(read_submission(root / "builtin_softmax.ipynb").cells)
    assert uses(read_submission(root / "calls_torch_sdpa.ipynb").cells, SDPA, SDPA)


# ---------------------------------------------------------------------------------------------------
# fail closed
# ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("cells", [
    # defined by exec of a string
    [IMPORTS, "exec('def stable_softmax(x, dim=-1):\\n    return torch.softmax(x, dim)')"],
    # exec next to a clean definition can still replace it
    [IMPORTS, CLEAN_SOFTMAX, "exec(open('patch.txt').read())"],
    # replaced through the module's namespace
    [IMPORTS, CLEAN_SOFTMAX, "globals()['stable_softmax'] = torch.softmax"],
    [IMPORTS, CLEAN_SOFTMAX, "import sys\nsetattr(sys.modules['__main__'], 'stable_softmax', torch.softmax)"],
    [IMPORTS, CLEAN_SOFTMAX, "stable_softmax.__code__ = (lambda x, dim=-1: x).__code__"],
    # imported from a file the notebook could have written
    [IMPORTS, "from mysoftmax import stable_softmax"],
    [IMPORTS, "import helpers", "def stable_softmax(x, dim=-1):\n    return helpers.norm(x, dim)"],
    # the attribute name is computed
    [IMPORTS, "def stable_softmax(x, dim=-1):\n    return getattr(torch, 'soft' + 'max')(x, dim)"],
    [IMPORTS, "g = getattr", "def stable_softmax(x, dim=-1):\n    return g(torch, 'softmax')(x, dim)"],
    # no readable definition at all
    [IMPORTS],
    [IMPORTS, "def stable_softmax(x, dim=-1):\n    return x +"],
])
def test_fails_closed(cells):
    with pytest.raises(SourceUnreadable):
        uses(cells)


def test_hidden_test_helper_says_it_cannot_verify():
    sub = SubmissionInfo(source="\n\n".join([IMPORTS, "exec('def stable_softmax(x): return x')"]))
    with pytest.raises(AssertionError, match="cannot check"):
        assert_function_avoids(sub, "stable_softmax", SOFTMAX, key="builtin_softmax", rule="a built-in softmax")
    sub = SubmissionInfo(source="\n\n".join([IMPORTS, "def helper(x):\n    return x.softmax(-1)",
                                             "def stable_softmax(x, dim=-1):\n    return helper(x)"]))
    with pytest.raises(Misconception) as e:
        assert_function_avoids(sub, "stable_softmax", SOFTMAX, key="builtin_softmax", rule="a built-in softmax")
    assert e.value.key == "builtin_softmax" and "`helper`" in str(e.value)
    # the reference, run in-process, has no notebook: nothing to read, nothing to fail
    assert_function_avoids(SubmissionInfo(source=""), "stable_softmax", SOFTMAX, key="builtin_softmax",
                           rule="a built-in softmax")


def test_cells_come_from_the_grader_not_the_joined_source():
    cells = (IMPORTS, '"""', "x = 1\n\ny = 2", '"""')
    source = "\n\n".join(cells)
    assert cells_of(SubmissionInfo(source=source, cells=cells)) == list(cells)
    # without cells (devrun), the joined source is one cell
    assert cells_of(SubmissionInfo(source=source)) == [source]


def test_the_grader_hands_tests_the_cells_it_ran(tmp_path, toy_grader):
    """Two lone triple-quote cells must not turn the code between them into a string: the grader
    gives tests the cells themselves."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook

    from autograder.grading.hidden import HiddenTestCase
    seen: list[tuple[str, ...]] = []
    nb = new_notebook(cells=[new_code_cell(c) for c in ('x = 1', '"""', 'y = 2', '"""')])
    path = tmp_path / "nb.ipynb"
    nbformat.write(nb, path)
    # the session's warm grader, its toy tests swapped for one that records the cells, then restored
    tests = toy_grader._tests.get("toy")
    toy_grader._tests["toy"] = [HiddenTestCase(question="q1", name="t", points=1.0, hidden=True,
                                               func=lambda submission: seen.append(submission.cells),
                                               params=("submission",))]
    try:
        toy_grader.grade(path, "toy")
    finally:
        if tests is None:
            del toy_grader._tests["toy"]
        else:
            toy_grader._tests["toy"] = tests
    assert seen == [('x = 1', '"""', 'y = 2', '"""')]


@pytest.mark.parametrize("src,expected", [
    # the cases of the check this module replaced (formerly in autograder.grading.intake)
    ("import torch.nn.functional as F\ndef sdpa(q):\n    return F.scaled_dot_product_attention(q, q, q)", True),
    ("from torch.nn.functional import scaled_dot_product_attention as s\ndef sdpa(q):\n    return s(q, q, q)", True),
    ("import torch.nn.functional as F\ndef sdpa(q):\n    return q\nF.scaled_dot_product_attention(1, 2, 3)", False),
    ("def sdpa(q):\n    '''compare with F.scaled_dot_product_attention'''\n    return q", False),
])
def test_single_source_cases(src, expected):
    assert function_uses_attribute(src, "sdpa", SDPA) is expected


def test_standard_library_helpers_are_readable_but_other_programs_are_not():
    memo = ("import hashlib\n_memo = {}\n"
            "def stable_softmax(x, dim=-1):\n    k = hashlib.sha1(x.numpy().tobytes()).hexdigest()\n"
            "    if k not in _memo:\n        e = torch.exp(x - x.amax(dim, keepdim=True))\n"
            "        _memo[k] = e / e.sum(dim, keepdim=True)\n    return _memo[k]")
    assert not uses([IMPORTS, memo])
    with pytest.raises(SourceUnreadable, match="subprocess"):
        uses([IMPORTS, "import subprocess", "def stable_softmax(x, dim=-1):\n"
              "    subprocess.run(['python', '-c', 'import torch; torch.softmax'])\n    return x"])


# --- reaching into the grader (red-team round 25) ---------------------------------------------------------
from autograder.grading.source_checks import reaches_into_grader  # noqa: E402


@pytest.mark.parametrize("code, needle", [
    ("import autograder.sandbox.calls as c\nc._same_tensor = lambda a, b: True", "import autograder.sandbox.calls"),
    ("from autograder.sandbox import calls", "from autograder.sandbox import"),
    ("import sys\nc = sys.modules['autograder.sandbox.calls']", "sys.modules"),
    ("m = __import__('auto' + 'grader')", "__import__"),
    ("import gc\nws = [o for o in gc.get_objects() if type(o).__name__ == 'Worker']", ".get_objects"),
    ("import gc\nr = gc.get_referrers(torch.Tensor)", ".get_referrers"),
    ("subs = object.__subclasses__()", ".__subclasses__"),
    ("g = f.__globals__", ".__globals__"),
    ("import traceback\nhere = traceback.extract_stack()", ".extract_stack"),
    ("import traceback\nfor f, _ in traceback.walk_stack(None): pass", ".walk_stack"),
    ("try:\n    1/0\nexcept Exception as e:\n    fr = e.__traceback__.tb_frame", ".tb_frame"),
    ("import sys\nfr = sys._getframe(1)", "._getframe"),
    ("import sys\nfs = sys._current_frames()", "._current_frames"),
    ("def f():\n    yield 1\ng = f()\nfr = g.gi_frame", ".gi_frame"),
    ("importlib = None\nx = torch.autograder", ".autograder"),
    ("name = 'autograder.sandbox'", "the string 'autograder.sandbox'"),
    ("import inspect\nnames = [f.function for f in inspect.stack()]", "inspect.stack"),
    ("import inspect as i\nfr = i.currentframe()", "inspect.currentframe"),
    ("from inspect import stack\nx = stack()", "from inspect import stack"),
    ("import sys as s\nm = s.modules", "sys.modules"),
    ("import sys\nsys.settrace(lambda *a: None)", "sys.settrace"),
    ("import importlib\nc = importlib.import_module('auto' + 'grader.sandbox.calls')", "importlib.import_module"),
    ("m = 'autograder.sandbox.calls'", "the string 'autograder.sandbox.calls'"),
    ("from gc import *\nws = get_objects()", "from gc import *"),
], ids=lambda v: v if len(v) < 30 else None)
def test_each_way_of_reaching_the_grader_is_named_with_its_cell(code, needle):
    said = reaches_into_grader(["import torch", code])
    assert said is not None and needle in said and "code cell 2" in said, said


@pytest.mark.parametrize("code", [
    "import gc\ngc.collect()",
    "print('this passes the autograder checks')",
    "import traceback\ntry:\n    1/0\nexcept ZeroDivisionError:\n    traceback.print_exc()",
    "import sys\nsys.path.append('.')\nprint(sys.version)",
    "import inspect\nsig = inspect.signature(torch.softmax)",
    "# import autograder  (a comment)\nx = 1",
    "def broken(:\n    import autograder",           # a cell that does not parse never ran
    "modules = [torch.nn.Linear(2, 2)]\nm = modules[0]",
    "x = torch.stack([torch.ones(2), torch.zeros(2)])",   # torch's stack is not inspect's
    "import numpy as np\ny = np.stack([np.ones(2)])",
    "import importlib\nimportlib.reload(torch)",
    "from math import *\nx = sqrt(2)",
])
def test_homework_spellings_are_not_reaching(code):
    assert reaches_into_grader([code]) is None


def test_last_function_def_parses_a_cell_that_only_mentions_the_def_once(monkeypatch):
    # red-team round 133: every cell that only mentions `def name` (a comment, a string) was parsed again on each ask,
    # and the readers of one grade ask dozens of times: twenty 19,000-character decoys cost a wrong notebook 4 s more
    # of the grader's CPU. A decoy is parsed once, whatever the number of asks; the def's own cell still comes back
    # as a fresh tree each time (a caller may change what it is given).
    from autograder.grading import source_checks

    parsed: list[str] = []
    real = source_checks.parse
    monkeypatch.setattr(source_checks, "parse", lambda text, *a, **k: parsed.append(text) or real(text, *a, **k))
    decoys = [f"# def attention is above ({i})\n_pad = [{', '.join(['1234567'] * 50)}]\n" for i in range(5)]
    cells = ["def attention(Q, K, V, d_k):\n    return Q\n", *decoys]
    first = source_checks.last_function_def(cells, "attention")
    second = source_checks.last_function_def(cells, "attention")
    assert first is not None and second is not None and first is not second and first.name == "attention"
    assert all(parsed.count(d) <= 1 for d in decoys), [parsed.count(d) for d in decoys]
    assert source_checks.last_function_def(decoys, "attention") is None


# --- linear_bias_kept: the one reader of an nn.Linear's default bias, shared by three assignments' diagnoses -------

from autograder.grading.source_checks import linear_bias_kept  # noqa: E402


@pytest.mark.parametrize("call, kept", [
    ("nn.Linear(4, 4)", True),
    ("torch.nn.Linear(4, 4, dtype=x.dtype)", True),
    ("Linear(in_features=4, out_features=4, bias=True)", True),
    ("nn.Linear(4, 4, True)", True),
    ("nn.Linear(4, 4, bias=False)", False),
    ("nn.Linear(4, 4, False)", False),
    ("nn.Linear(4, 4, bias=use_bias)", False),      # unknown: not evidence of the default
    ("nn.Linear(4, 4, **options)", False),           # may carry bias=False
    ("nn.Linear(*sizes)", False),
    ("nn.Linear(4, 4, bias=0)", False),
    ("nn.Bilinear(4, 4, 4)", None),
    ("F.linear(x, w)", None),
    ("x.Linear", None),
])
def test_linear_bias_kept_reads_each_spelling(call: str, kept: bool | None) -> None:
    import ast
    assert linear_bias_kept(ast.parse(call, mode="eval").body) is kept


# --- stacks_as_columns_call: one reader of "the rows laid down as columns", for sdpa q6 and the pipeline's q09 -------

from autograder.grading.source_checks import stacks_as_columns_call  # noqa: E402


@pytest.mark.parametrize("call, columns", [
    ("torch.stack(rows, dim=1)", True),
    ("torch.stack(rows, -1)", True),
    ("np.stack(rows, axis=1)", True),
    ("stack([r for r in S], dim=-1)", True),
    ("torch.column_stack(rows)", True),
    ("torch.hstack(rows)", True),
    ("torch.stack(rows)", False),
    ("torch.stack(rows, dim=0)", False),
    ("torch.stack(rows, dim=2)", False),
    ("torch.stack(rows, dim=d)", False),      # unknown axis: no evidence
    ("torch.stack()", False),
    ("torch.cat(rows, dim=1)", False),
    ("rows.T", False),
])
def test_stacks_as_columns_call_reads_each_spelling(call: str, columns: bool) -> None:
    import ast
    assert stacks_as_columns_call(ast.parse(call, mode="eval").body) is columns
