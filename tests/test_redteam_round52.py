"""Red-team round 52 (each test fails before its gap is closed).

Points for code that computes nothing:
- (scaled-attention q2's spread check is beaten by `target * (z * z).mean()`, a fake that reproduces a sample
  variance's spread: not closed, a known limit in docs/security.md; no test here.)
- attention-pipeline: a `self_attention` that never uses W_Q or W_K (every visible key the same weight, A V for
  the output) earns q07 test_causal_properties (A lower-triangular, rows sum to 1, O = A V) and q09
  test_zero_projections (with W_Q = W_K = 0 the uniform causal matrix IS the answer): 2 points, though the other
  q07 tests name the very mistake ("giving every key the same weight") (/tmp/rt52/pipeline_uniform.ipynb).
- scaled-attention q1: an `attention` returning uniform weights (Q and K unused) earns test_weight_rows_sum_to_one
  (/tmp/rt52/scaled_uniform.ipynb).

Notebook intake (`intake.transform_ipython` drops every line whose text starts with `!` or `%`, wherever it is, and
splits lines with str.splitlines; `get_ipython` does not exist in the worker):
- a continuation line inside brackets that starts with an operator (`!= 0)` or `% (a, b))`: the style black
  writes) becomes `pass  # dropped`, so the cell is a SyntaxError: sdpa-from-scratch full marks 35 -> 19
  (/tmp/rt52/intake_neq_continuation.ipynb) and 35 -> 33 (/tmp/rt52/intake_percent_continuation.ipynb).
- a U+2028 LINE SEPARATOR pasted into a comment (Python ignores it there) splits the line, and the comment's tail runs
  as code: 35 -> 11 (/tmp/rt52/intake_u2028_comment.ipynb).
- IPython's help syntax (`torch.amax?`) is left as is: SyntaxError, the cell is lost: 35 -> 11
  (/tmp/rt52/intake_help_syntax.ipynb).
- `get_ipython().run_line_magic(...)` (what Colab and Jupyter's own "export as Python" write for a magic) is a
  NameError: in a notebook 35 -> 6 (/tmp/rt52/intake_get_ipython.ipynb); in the .py Jupyter exports from a notebook
  with one `%time` line, 35 -> 28 (/tmp/rt52/export_magic.py: a .py is one cell, never transformed).
"""
from __future__ import annotations

import nbformat

from autograder.grading.intake import transform_ipython
from tests.conftest import ROOT

EXAMPLES = ROOT / "examples" / "submissions"


def _full_marks(slug: str):
    return nbformat.read(EXAMPLES / slug / "full_marks.ipynb", as_version=4)


def _cell(nb, start: str):
    return next(c for c in nb.cells if c.cell_type == "code" and c.source.startswith(start))


def _grade(grader, tmp_path, nb, slug, name="sub.ipynb", seed=52):
    path = tmp_path / name
    nbformat.write(nb, path)
    return grader.grade(path, slug, seed=seed)


def _earned(result, names):
    return {t.name: t.score for t in result.tests if t.name in names and t.score > 0}


# --- points for code that computes nothing ------------------------------------------------------------------
UNIFORM_SELF_ATTENTION = '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    V = X @ W_V
    T = X.shape[-2]
    ones = torch.ones(T, T, dtype=X.dtype, device=X.device)
    if causal:
        ones = torch.tril(ones)
    A = (ones / ones.sum(dim=-1, keepdim=True)).expand(*X.shape[:-2], T, T)
    return A @ V, A
'''


def test_self_attention_that_ignores_the_scores_earns_no_points(tmp_path, grader):
    nb = _full_marks("attention-pipeline")
    _cell(nb, "def self_attention").source = UNIFORM_SELF_ATTENTION
    r = _grade(grader, tmp_path, nb, "attention-pipeline")
    earned = _earned(r, {"test_causal_properties", "test_zero_projections"})
    assert not earned, (f"a self_attention that never uses W_Q or W_K (uniform causal weights) earned {earned} "
                        f"(total {r.score} / {r.max_score})")


UNIFORM_ATTENTION = '''def attention(Q, K, V, d_k):
    w = torch.full((Q.shape[-2], K.shape[-2]), 1.0 / K.shape[-2], dtype=Q.dtype, device=Q.device)
    return w @ V, w
'''


def test_attention_with_uniform_weights_earns_no_property_point(tmp_path, grader):
    nb = _full_marks("scaled-attention")
    _cell(nb, "def attention").source = UNIFORM_ATTENTION
    r = _grade(grader, tmp_path, nb, "scaled-attention")
    earned = _earned(r, {"test_weight_rows_sum_to_one"})
    assert not earned, f"an attention with uniform weights (Q, K unused) earned {earned} (total {r.score} / {r.max_score})"


# --- intake: Python that is not IPython syntax stays Python; IPython syntax does not break a cell ---------------
def test_continuation_lines_starting_with_an_operator_are_kept():
    for src in ("ok = (x\n      != 0)\n", "s = ('%d'\n     % 3)\n", 'doc = """\n!important\n%s\n"""\n'):
        assert transform_ipython(src).rstrip("\n") == src.rstrip("\n"), f"valid Python changed: {src!r}"


def test_a_line_separator_in_a_comment_stays_in_the_comment():
    src = "x = 1  # pasted\u2028y = undefined_name\nz = 2\n"
    ns: dict = {}
    exec(compile(src, "<cell>", "exec"), ns)          # noqa: S102 - the test's own fixed code: Python runs it
    out = transform_ipython(src)
    ns2: dict = {}
    exec(compile(out, "<cell>", "exec"), ns2)         # noqa: S102 - the same fixed code after intake
    assert ns2["z"] == 2


def test_full_marks_with_a_black_style_comparison_keeps_full_marks(tmp_path, grader):
    nb = _full_marks("sdpa-from-scratch")
    c = _cell(nb, "def scaled_dot_product_attention")
    assert "has_key = mask.any(dim=-1, keepdim=True)" in c.source
    c.source = c.source.replace("has_key = mask.any(dim=-1, keepdim=True)",
                                "has_key = (mask.sum(dim=-1, keepdim=True)\n                   != 0)")
    r = _grade(grader, tmp_path, nb, "sdpa-from-scratch")
    assert r.score == r.max_score, f"valid Python (a comparison on a continuation line) scored {r.score} / {r.max_score}"


def test_help_syntax_does_not_lose_the_cell(tmp_path, grader):
    nb = _full_marks("sdpa-from-scratch")
    c = _cell(nb, "def stable_softmax")
    c.source = "torch.amax?\n" + c.source
    r = _grade(grader, tmp_path, nb, "sdpa-from-scratch")
    assert r.score == r.max_score, f"a harmless `torch.amax?` help line scored {r.score} / {r.max_score}"


def test_get_ipython_magic_calls_do_not_lose_the_cell(tmp_path, grader):
    nb = _full_marks("sdpa-from-scratch")
    c = _cell(nb, "import math")
    c.source = "get_ipython().run_line_magic('matplotlib', 'inline')\n" + c.source
    r = _grade(grader, tmp_path, nb, "sdpa-from-scratch")
    assert r.score == r.max_score, f"get_ipython().run_line_magic('matplotlib', 'inline') scored {r.score} / {r.max_score}"


def test_a_python_export_with_a_time_magic_keeps_full_marks(tmp_path, grader):
    # what Jupyter's File > Save and Export As > Executable Script writes: cells joined, magics as get_ipython() calls
    nb = _full_marks("sdpa-from-scratch")
    parts = []
    for c in nb.cells:
        if c.cell_type == "code":
            parts.append(c.source)
    i = next(k for k, s in enumerate(parts) if s.startswith("torch.manual_seed(0)\nQc"))
    parts[i] += "\nget_ipython().run_line_magic('time', '_ = scaled_dot_product_attention(Qc, Kc, Vc)')\n"
    for marked in (False, True):     # with Jupyter's `# In[ ]:` cell marks and without
        path = tmp_path / f"export{int(marked)}.py"
        sep = "\n\n# In[ ]:\n\n\n" if marked else "\n\n\n"
        path.write_text("#!/usr/bin/env python\n# coding: utf-8\n\n" + sep.join(parts) + "\n")
        r = grader.grade(path, "sdpa-from-scratch", seed=52)
        assert r.score == r.max_score, f"Jupyter's own .py export with one %time scored {r.score} / {r.max_score}"


def test_a_python_export_is_graded_cell_by_cell(tmp_path, grader):
    # a line that fails loses its own cell (as in the notebook), not the rest of the file
    nb = _full_marks("sdpa-from-scratch")
    parts = [c.source for c in nb.cells if c.cell_type == "code"]
    i = next(k for k, s in enumerate(parts) if s.startswith("torch.manual_seed(0)\nQc"))
    parts[i] = "undefined_helper()\n" + parts[i]
    path = tmp_path / "export.py"
    path.write_text("#!/usr/bin/env python\n# coding: utf-8\n\n# In[1]:\n\n\n" + "\n\n\n# In[ ]:\n\n\n".join(parts) + "\n")
    r = grader.grade(path, "sdpa-from-scratch", seed=52)
    assert r.score == r.max_score, f"a failing demo cell in an exported .py took {r.max_score - r.score} points"
