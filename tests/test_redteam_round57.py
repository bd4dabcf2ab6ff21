"""Red-team round 57: honest students (each test fails before its gap is closed).

Right notebooks, written the way students write them, that lose points today (repros in /tmp/rt57/):

- **A harmless dynamic name anywhere in the notebook fails both static rules closed.** sdpa-from-scratch's
  test_no_builtin_softmax (q3) and test_no_torch_sdpa_in_source (q5) raise SourceUnreadable as soon as any cell
  uses a module or name in source_checks.DYNAMIC_MODULES / DYNAMIC_NAMES, whatever it does and wherever it is:
  `import gc; gc.collect()`, `from types import SimpleNamespace`, `if "weights3" in globals():`, a Config class whose
  __init__ does `setattr(self, k, v)`: 33 / 35 for full marks plus one of those lines, "the notebook uses module
  `gc`, which can change code out of sight".
- **The student's global torch state leaks into the graded calls.** `torch.set_default_dtype(torch.float64)` at the
  top of scaled-attention costs 3 points (q4 test_entropy_table_lesson and _other_dims_and_seed) with a false
  misconception, draws_in_float64, for an entropy_table that names no dtype (its torch.randn follows the default);
  `torch.set_grad_enabled(False)` at the top of sdpa-from-scratch fails q5 test_gradients_float64 with a bare
  "element 0 of tensors does not require grad" for a function that detaches nothing.
- **A superseded first try costs the rule point.** A cell that first defines stable_softmax with torch.softmax
  ("first try") and a later cell that redefines it by hand: the graded (last) definition uses no built-in softmax,
  but find_use follows every binding of the name, so q3 test_no_builtin_softmax fails ("`stable_softmax` uses
  `torch.softmax`"); the same for a first scaled_dot_product_attention that called F.scaled_dot_product_attention.
"""
from __future__ import annotations

import nbformat
import pytest

from tests.conftest import ROOT

EXAMPLES = ROOT / "examples" / "submissions"


def _full_marks_with(tmp_path, slug, name, top="", before=None):
    """full_marks.ipynb with `top` added to the imports cell and, with `before` = (first line, source), a cell
    inserted just before the code cell starting with that line."""
    nb = nbformat.read(EXAMPLES / slug / "full_marks.ipynb", as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    if top:
        imports = next(c for c in code if c.source.startswith("import math"))   # the imports cell
        imports.source = imports.source.rstrip("\n") + "\n" + top
    if before is not None:
        first, source = before
        at = next(i for i, c in enumerate(nb.cells) if c.cell_type == "code" and c.source.startswith(first))
        nb.cells.insert(at, nbformat.v4.new_code_cell(source))
    path = tmp_path / f"{name}.ipynb"
    nbformat.write(nb, path)
    return path


def _lost(r):
    return {f"{t.question}:{t.name}": (t.misconception, (t.message or "")[:160])
            for t in r.tests if t.score < t.max_score and t.max_score > 0 and t.device != "cuda"}


HARMLESS = {
    "gc_collect": "import gc\ngc.collect()   # free memory before the experiments",
    "simple_namespace": "from types import SimpleNamespace\ncfg = SimpleNamespace(d_k=8, T=5)",
    "globals_membership": "if 'Q' not in globals():\n    print('run the data cell first')",
    # `setattr(self, k, v)` in a Config.__init__ stays closed: a proof that __init__ only ever runs on a fresh instance
    # needs every way to re-run it on an existing object (or a module) excluded, and Python has too many: a class made
    # at run time on `type(cfg)` whose method calls `super().__init__(...)` on an instance it keeps, a `__new__` that
    # returns one, a 3-argument `type(...)`, a metaclass (tests/test_source_checks_round57.py, report of round 57)
}


@pytest.mark.parametrize("kind", sorted(HARMLESS))
def test_a_harmless_dynamic_line_does_not_fail_the_static_rules(tmp_path, grader, kind):
    path = _full_marks_with(tmp_path, "sdpa-from-scratch", kind, top=HARMLESS[kind])
    r = grader.grade(path, "sdpa-from-scratch", seed=57)
    assert r.score == r.max_score, (
        f"full marks plus `{HARMLESS[kind].splitlines()[-1].strip()}` in the imports cell scored "
        f"{r.score} / {r.max_score}: {_lost(r)}")


def test_a_float64_default_dtype_does_not_change_a_right_entropy_table(tmp_path, grader):
    path = _full_marks_with(tmp_path, "scaled-attention", "default64",
                            top="torch.set_default_dtype(torch.float64)")
    r = grader.grade(path, "scaled-attention", seed=57)
    lost = _lost(r)
    assert not [k for k in lost if k.startswith("q4:")], (
        f"a right entropy_table (no dtype= anywhere) lost q4 because the notebook set the default dtype to "
        f"float64 at the top; the graded calls should run under torch's default float32: {lost}")


# Not a test: the same float64 default in sdpa-from-scratch changes the notebook's OWN example (its cell's torch.randn
# draws float64 scores), so its right .var() of those scores (6.728) differs from the seed-0 float32 example the
# question fixes (6.599) and q2 test_score_variances is lost. The cell runs the student's settings by design; the
# data the question names is not the data they measured, and the message says other scores were measured. Left as is.


def test_grad_mode_off_at_the_top_does_not_fail_the_gradient_test(tmp_path, grader):
    path = _full_marks_with(tmp_path, "sdpa-from-scratch", "no_grad_global",
                            top="torch.set_grad_enabled(False)   # no training in this notebook")
    r = grader.grade(path, "sdpa-from-scratch", seed=57)
    assert r.score == r.max_score, (
        f"a right scaled_dot_product_attention lost points because the notebook turned grad mode off globally "
        f"(the gradient test should run under torch.enable_grad()): {_lost(r)}")


FIRST_TRIES = {
    "softmax": ("def stable_softmax(", "q3:test_no_builtin_softmax",
                "def stable_softmax(x, dim=-1):\n    return torch.softmax(x, dim=dim)   # first try, rewritten below"),
    "sdpa": ("def scaled_dot_product_attention(", "q5:test_no_torch_sdpa_in_source",
             "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
             "    return F.scaled_dot_product_attention(Q, K, V, attn_mask=mask)   # what it should give; mine below"),
}


@pytest.mark.parametrize("kind", sorted(FIRST_TRIES))
def test_a_superseded_first_try_does_not_cost_the_rule_point(tmp_path, grader, kind):
    first_line, rule, source = FIRST_TRIES[kind]
    path = _full_marks_with(tmp_path, "sdpa-from-scratch", f"first_try_{kind}", before=(first_line, source))
    r = grader.grade(path, "sdpa-from-scratch", seed=57)
    lost = _lost(r)
    assert rule not in lost, (
        f"a first try left in an earlier cell, replaced by an unconditional top-level `def` of the same name that "
        f"is right, lost {rule}: {lost[rule]}")
