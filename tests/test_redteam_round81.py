"""Red-team round 81: a template the student rearranged.

Real students do not keep the template's shape. Repros in /tmp/rt81/ (v1.py-v4.py grade 40 rearrangements of
examples/submissions/sdpa-from-scratch/full_marks.ipynb with one warm grader; fu.py asks the static rule about
class-wrapped solutions, honest and hostile). Holding already: stub cells deleted or duplicated before the answer,
two defs (the last one graded, right or wrong), a def moved below its check cell, two questions' cells merged, one
cell split, execution counts out of order, the whole notebook run twice, type hints, functools.wraps, lru_cache,
torch.compile, `raise NotImplementedError` left under the code, another lesson's notebook (rejected by name).
Each test below fails on the code as found:

- **A solution wrapped in a class lost the rule point.** The static rule (source_checks.find_use) reads any
  attribute whose name holds a forbidden name as a use of it, so `stable_softmax = Ops.stable_softmax` (a
  @staticmethod of the student's own class, or `Ops().stable_softmax`) failed q3's test_no_builtin_softmax ("uses
  `Ops.stable_softmax`, which this assignment forbids") and `Attn.scaled_dot_product_attention` failed q5's
  test_no_torch_sdpa_in_source: 34/35 for right code, measured with `autograder grade`. Now an attribute of a plain
  class of the notebook (bound once at module level; no bases, keywords or decorators) whose own body binds it is not
  a use: the walk reads the whole class instead, so a built-in anywhere in it (a class attribute, another method, a
  `__getattribute__`, an `__init__` store) is still found, and a metaclass, a base, a decorator or a rebinding keeps
  the old reading.
- **The one-edit fix quoted a def that was not graded.** repair.last_def picks the notebook's last top-level `def
  name`; where that def's cell stopped above it (a `print(result)` of a name not defined yet), or a later `name =
  my_attention` rebinds the name, the tests called another function, and the fix told ("right with one change on
  line 8 of its cell: `Q` in place of `K`") was a change of code that never ran or was never called. Now a function
  is searched only where its last def is what a Run All left bound (repair.left_bound: no later module-level store,
  and its cell did not stop above the def's body).
- **An answer in a markdown or raw cell was told "not defined ... run every cell, keep the given names".** Intake
  now notes the names a non-code cell binds as code would (`def name(`, `class name`, `name =`), and a missing
  answer so bound says that a markdown (raw) cell defines it and only code cells run.
- **A notebook that worked out of order was told only its crash.** The template's stub left in place and the answer
  written in a cell further down ran, in the editor, before the cells that use it: the grader's top-to-bottom run
  gave "unsupported operand type(s) for @: 'NoneType' and 'Tensor'" (3 points of q6). A stopped cell that reads a
  function a later cell defines now says so (source_checks.defined_below).
- **A stub cell duplicated below the answer was told "None: not answered yet".** The message now says the name is
  defined twice, which cell is the template's empty stub and which def it replaced (source_checks.stub_replaces).
"""
from __future__ import annotations

import json

from autograder.grading.intake import read_submission
from autograder.grading.repair import left_bound
from autograder.grading.source_checks import find_use
from autograder.sandbox.calls import forbidden_names
from tests.conftest import ROOT

SLUG = "sdpa-from-scratch"
EXAMPLE = ROOT / "examples" / "submissions" / SLUG / "full_marks.ipynb"


def _source(cell: dict) -> str:
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def _cell(text: str, kind: str = "code") -> dict:
    cell = {"cell_type": kind, "metadata": {}, "source": text}
    if kind == "code":
        cell.update(execution_count=None, outputs=[])
    return cell


def _notebook() -> dict:
    nb = json.loads(EXAMPLE.read_text())
    for c in nb["cells"]:
        c.pop("id", None)
    nb["nbformat_minor"] = 4
    return nb


def _at(nb: dict, start: str) -> int:
    return next(i for i, c in enumerate(nb["cells"]) if c["cell_type"] == "code" and _source(c).startswith(start))


def _indented(text: str) -> str:
    return "".join("    " + line if line.strip() else line for line in text.splitlines(True))


def _grade(grader, tmp_path, nb: dict, name: str):
    path = tmp_path / f"{name}.ipynb"
    path.write_text(json.dumps(nb))
    return grader.grade(path, SLUG, seed=81)


def _lost(r) -> list:
    return [(t.question, t.name, (t.message or "")[:160]) for t in r.tests if t.score < t.max_score and t.device != "cuda"]


CLEAN_METHOD = ("    @staticmethod\n    def stable_softmax(x, dim=-1):\n        e = torch.exp(x - x.max(dim=dim, keepdim=True).values)\n"
                "        return e / e.sum(dim=dim, keepdim=True)\n")
IMPORTS = "import torch\nimport torch.nn.functional as F\n"


def test_solutions_wrapped_in_a_class_keep_full_marks(tmp_path, grader):
    nb = _notebook()
    soft, attn = _at(nb, "def stable_softmax"), _at(nb, "def scaled_dot_product_attention")
    nb["cells"][soft]["source"] = ("class Ops:\n" + _indented(_source(nb["cells"][soft]).replace("(x, dim=-1)", "(self, x, dim=-1)"))
                                   + "\n\nstable_softmax = Ops().stable_softmax\n")
    nb["cells"][attn]["source"] = ("class Attn:\n    @staticmethod\n" + _indented(_source(nb["cells"][attn]))
                                   + "\n\nscaled_dot_product_attention = Attn.scaled_dot_product_attention\n")
    r = _grade(grader, tmp_path, nb, "in_class")
    assert r.score == r.max_score and not _lost(r), (r.score, _lost(r))


def test_a_class_is_read_whole_where_its_member_is_used():
    names = forbidden_names(("softmax",))
    assert find_use([IMPORTS, "class Ops:\n" + CLEAN_METHOD + "\nstable_softmax = Ops.stable_softmax\n"],
                    "stable_softmax", names) is None
    hostile = {
        "class attribute": ["class Ops:\n    stable_softmax = staticmethod(torch.softmax)\n"],
        "method body": ["class Ops:\n    @staticmethod\n    def stable_softmax(x, dim=-1):\n        return F.softmax(x, dim)\n"],
        "__getattribute__": ["class Ops:\n" + CLEAN_METHOD + "    def __getattribute__(self, a):\n        return torch.softmax\n"],
        "__init__ store": ["class Ops:\n" + CLEAN_METHOD + "    def __init__(self):\n        self.stable_softmax = torch.softmax\n"],
        "stored later": ["class Ops:\n" + CLEAN_METHOD, "Ops.stable_softmax = staticmethod(torch.softmax)\n"],
        "metaclass": ["class M(type):\n    def __getattribute__(c, a):\n        return torch.softmax\n",
                      "class Ops(metaclass=M):\n" + CLEAN_METHOD],
        "base's metaclass": ["class M(type):\n    def __getattribute__(c, a):\n        return torch.softmax\n"
                             "class B(metaclass=M):\n    pass\n", "class Ops(B):\n" + CLEAN_METHOD],
        "decorator": ["def d(c):\n    c.stable_softmax = staticmethod(torch.softmax)\n    return c\n",
                      "@d\nclass Ops:\n" + CLEAN_METHOD],
        "class rebound": ["class Ops:\n" + CLEAN_METHOD, "class Ops:\n    stable_softmax = staticmethod(torch.softmax)\n"],
        "method decorator": ["def swap(f):\n    return torch.softmax\n", "class Ops:\n    @staticmethod\n    @swap\n"
                             "    def stable_softmax(x, dim=-1):\n        return x\n"],
        "class made in a def": ["def mk():\n    class Ops:\n        stable_softmax = staticmethod(torch.softmax)\n    return Ops\n"
                                "Ops = mk()\n"],
    }
    for why, cells in hostile.items():
        uses = "Ops().stable_softmax" if why in ("__getattribute__", "__init__ store") else "Ops.stable_softmax"
        assert find_use([IMPORTS, *cells, f"stable_softmax = {uses}\n"], "stable_softmax", names) is not None, why


def _fixes_told(r) -> set[str]:
    return {(t.message or "").split("\n")[0] for t in r.tests if t.misconception == "one_edit_fix"}


def test_one_edit_fix_is_told_only_of_the_def_that_was_graded(tmp_path, grader):
    nb = _notebook()
    at = _at(nb, "def scaled_dot_product_attention")
    right = _source(nb["cells"][at]).rstrip("\n") + "\n"
    graded = right.replace("K.transpose(-2, -1)", "V.transpose(-2, -1)")     # V where K is due: one edit mends it
    other = right.replace("torch.matmul(Q,", "torch.matmul(K,")              # K where Q is due, never graded
    nb["cells"][at]["source"] = graded
    plain = _fixes_told(_grade(grader, tmp_path, nb, "slip"))
    assert plain and all("`K` in place of `V`" in f for f in plain), plain   # the search itself still tells

    never_ran = json.loads(json.dumps(nb))
    never_ran["cells"].append(_cell("print(result.shape)\n" + other))        # stops before its def
    told = _fixes_told(_grade(grader, tmp_path, never_ran, "never_ran"))
    assert not any("`Q` in place of `K`" in f for f in told), told

    rebound = json.loads(json.dumps(nb))
    rebound["cells"][at]["source"] = other
    rebound["cells"].append(_cell(graded.replace("def scaled_dot_product_attention", "def my_attention")
                                  + "\nscaled_dot_product_attention = my_attention\n"))
    told = _fixes_told(_grade(grader, tmp_path, rebound, "rebound"))
    assert not any("`Q` in place of `K`" in f for f in told), told


def test_an_answer_in_a_markdown_or_raw_cell_is_named(tmp_path, grader):
    nb = _notebook()
    at = _at(nb, "def stable_softmax")
    nb["cells"][at] = _cell(_source(nb["cells"][at]), "markdown")
    r = _grade(grader, tmp_path, nb, "markdown")
    q3 = [t.message for t in r.tests if t.question == "q3" and t.score < t.max_score]
    assert q3 and all("a markdown cell defines it, and only code cells run" in m for m in q3), q3[:1]
    nb["cells"][at]["cell_type"] = "raw"
    path = tmp_path / "raw.ipynb"
    path.write_text(json.dumps(nb))
    assert read_submission(path).prose_bound.get("stable_softmax") == "raw"


def test_a_function_defined_below_its_use_is_named(tmp_path, grader):
    nb = _notebook()
    at = _at(nb, "def stable_softmax")
    answer = _source(nb["cells"][at])
    nb["cells"][at]["source"] = 'def stable_softmax(x, dim=-1):\n    """the template\'s stub"""\n    ...\n'
    nb["cells"].append(_cell(answer))
    r = _grade(grader, tmp_path, nb, "late")
    q6 = [t.message for t in r.tests if t.question == "q6" and t.score < t.max_score]
    assert q6 and all("It uses `stable_softmax`, which Cell In[" in m and "below it, defines" in m for m in q6), q6[:1]
    assert "from the top (as Restart & Run All does)" in r.message, r.message


def test_a_stub_cell_left_below_the_answer_is_named(tmp_path, grader):
    nb = _notebook()
    at = _at(nb, "def stable_softmax")
    nb["cells"].insert(at + 1, _cell('def stable_softmax(x, dim=-1):\n    """doc"""\n    raise NotImplementedError\n'))
    r = _grade(grader, tmp_path, nb, "stub_below")
    q3 = [t.message for t in r.tests if t.question == "q3" and t.score < t.max_score]
    assert q3, _lost(r)
    assert all("`stable_softmax` is defined twice" in m and "the template's empty stub" in m for m in q3), q3[:1]


def test_left_bound_reads_where_the_cell_stopped():
    helper = "def helper(x):\n    return x.foo()\n\n"
    graded = "def f(x):\n    return helper(x)\n\n"
    cells = ["import torch\n", helper + graded + "f(torch.zeros(1))\n"]
    assert left_bound(cells, "f", {})
    assert left_bound(cells, "f", {1: "AttributeError: 'Tensor' object has no attribute 'foo' (line 2)"})  # the demo call
    assert left_bound(cells, "f", {1: "NameError: name 'x' is not defined (line 7)"})       # below the def
    early = ["import torch\n", helper + "helper(torch.zeros(1))\n" + graded]
    assert not left_bound(early, "f", {1: "AttributeError: 'Tensor' object has no attribute 'foo' (line 2)"})
    assert not left_bound(["print(result)\n" + graded], "f", {0: "NameError: name 'result' is not defined (line 1)"})
    assert not left_bound([graded + "return 1\n"], "f", {0: "SyntaxError: 'return' outside function (line 4)"})
    assert not left_bound([graded, "f = print\n"], "f", {})
    assert not left_bound([graded + "f = print\n"], "f", {})
