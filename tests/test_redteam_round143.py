"""Red-team round 143: naming round 84's new reads (c76ca45, with 5b80829 and dbd82df) attacked as a student and as a
class. Repros in /tmp/rt143/ (r.py ROOT SLUG CASEFILE [CASE...] grades a case file's cells: s1.py, s2.py, s3.py
sdpa-from-scratch's, p1.py attention-pipeline's; rf.py and rf2.py call checks.randomness_fix on their own cells; /tmp/rt143-base
is c76ca45, /tmp/rt143-pre the parent of 5b80829).

- **Any `V^T @ ...` in the cell was read as the column convention (sdpa-from-scratch q5).** values_on_the_left
  walked every def named scaled_dot_product_attention in the cells that bind it, and every node of it: a draft def
  above the final one (`return (V.mT @ w.mT).mT`, right, rebound by a def whose output is `(w @ V).transpose(-2,
  -1).reshape(out.shape)`), the same column form computed only in an `assert torch.allclose(...)` check, or in a
  nested helper never called, made the heads-merge slip output_column_convention in all 14 failing q5 tests ("your
  function computes the values on the left (`V.mT @ w.mT`)"), where without that line it is result_axes_permuted
  (s1.py A_stale_draft, A2_assert_check, A3_nested_unused against A0_plain_wrong). Only the def a Run All leaves
  (the last cell's last top-level def) is read now, and only its own statements (no nested def, lambda, class or
  assert: _own_statements, 20,000 nodes); V is the third parameter positional-only too (`Q, K, V, /`: was no name,
  A4_posonly_column).
- **A helper's column stack was quoted after the name was rebound (sdpa-from-scratch q6).** _helper_stacks_columns
  read the last `def row_softmax` of the cells, though a later line of the cell rebinds the name (`row_softmax =
  lambda m: stable_softmax(m, dim=-1).T`, or `row_softmax = t_softmax`, another def): weights3 =
  row_softmax(scores3) was told rows_stacked_as_columns quoting the draft's `torch.stack(..., dim=1)` (s2.py
  B_def_rebound_lambda, B2_alias; result_axes_permuted without the draft, B0_lambda_only). The def must be the last
  cell-level binding of the name in the last cell that binds it (_cell_level_bindings).
- **The randomness fix was told from a name that only contains a tier's word, or from a line that ran once (engine,
  checks.randomness_fix).** find_use matches any attribute CONTAINING a word, without case: a notebook whose
  attention kept a call counter and read `ops.operand` was told "random numbers drawn on every call" quoting
  `ops.operand` ("rand" in "operand"; `x.grand_total`, `self.dropout_p` likewise), and one that adds
  `0.0 * probe.weight.sum()` of a `probe = torch.nn.Linear(2, 2)` built once at cell level beside a real
  `torch.rand_like(w)` was told "a layer built on every call ... build it once, outside the function", which it is
  (s3.py C_global_layer_and_draw, C2_counter_operand). A tier is told only where the name reached is the tier's own
  (_RANDOMNESS_CALLED: Dropout classes, the dropout functions, the layer classes, rand*/bernoulli/multinomial/...),
  and, but for an nn.Dropout module (built once, it still drops), not through a name the notebook binds to a value
  at cell level (_built_once: that line ran once): the draw is told, or the generic text.
- **An nn.Dropout module kept as `self.dropout` was told F.dropout's keyword (engine, checks.randomness_fix).** The
  module tier's find_use(("Dropout",)) matches without case, so the attribute `self.dropout` (or `m.dropout`) of
  `self.dropout = torch.nn.Dropout(0.1)`, the commonest spelling of a module's dropout, was found first, not
  capitalised, and passed to the next tier: "dropout, which trains by default ...: pass training=False", a keyword
  the module's call does not take (before and after 5b80829's intent; rf2.py self_dropout_in_class,
  global_instance_attr). An attribute the notebook stores an nn.Dropout into is told the module's `.eval()` now
  (_holds_dropout_module, 2,000 nodes a stored value).

Held (tried, no change): right notebooks keep full marks (every round-84 read runs after a failure: the V-left read
after the transposed-reshape replay, the helper's stack after the transposed-weights replay, the entropy cut-off
after the value check, the integer replay after an is-right check, the stacked copies on a shape that is wrong);
integer and bool answers from project_qkv, scaled_scores, attention_weights, self_attention, nadaraya_watson,
prefix_average_matrix and row_entropy_bits (raise_if_integer_variant computes the variants on them first) are told
their dtype, no crash (p1.py); randomness_fix on a 290 KB notebook of 4,000 chained helpers costs 1.1 s a call,
and a grade of it takes 11.4 s, as before 5b80829 (11.5 s: the rule tests' walks dominate, t1.py);
sqrt_as_power_of_two on q2's d_k = 12 and 64 needs 4 and 16 at d_k = 12 and 32, which a fixed constant does not
give; quoted student text is cut to 50-100 characters and escaped by the engine. Not fixed (told in the report): an
nn.Dropout module already put in `.eval()`, or F.dropout(..., training=False), beside a real draw is still told
that module's or keyword's fix (the first use found is the module or the call, not its arguments).
"""
from __future__ import annotations

import types
from unittest import mock

import pytest

from autograder.grading import checks
from tests.heldout.harness import failed_keys, graded_as

_sdpa = graded_as("sdpa-from-scratch", "redteam143")

_HEAD = ("def scaled_dot_product_attention(Q, K, V, mask=None):\n"
         "    s = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])\n"
         "    if mask is not None:\n        s = s.masked_fill(~mask, float('-inf'))\n"
         "    w = stable_softmax(s, dim=-1)\n"
         "    if mask is not None:\n        w = w.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)\n")
_MERGED = "    out = w @ V\n    return out.transpose(-2, -1).reshape(out.shape)\n"


@pytest.mark.parametrize("cell", [
    _HEAD + "    return (V.mT @ w.mT).mT\n\n\n" + _HEAD + _MERGED,
    _HEAD + "    out = w @ V\n    assert torch.allclose((V.mT @ w.mT).mT, out)\n"
            "    return out.transpose(-2, -1).reshape(out.shape)\n",
    _HEAD + "    def _cols():\n        return V.mT @ w.mT\n" + _MERGED,
], ids=["draft_def_above", "assert_check", "nested_helper_never_called"])
def test_a_values_on_the_left_line_the_output_does_not_come_from_is_not_read(grader, cell):
    keys = failed_keys(_sdpa(grader, {"scaled_dot_product_attention": cell}))
    assert "output_column_convention" not in keys and "result_axes_permuted" in keys, keys


def test_v_positional_only_is_still_the_third_parameter(grader):
    cell = (_HEAD.replace("(Q, K, V, mask=None)", "(Q, K, V, /, mask=None)")
            + "    cols = V.mT @ w.mT\n    return cols.reshape(*cols.shape[:-2], Q.shape[-2], V.shape[-1])\n")
    keys = failed_keys(_sdpa(grader, {"scaled_dot_product_attention": cell}))
    assert "output_column_convention" in keys, keys


def _trace(helper: str) -> dict[str, str]:
    return {"weights3": helper + "scores3 = Q3 @ K3.T / math.sqrt(4)\nweights3 = row_softmax(scores3)\n"
            "out3 = stable_softmax(scores3, dim=-1) @ V3\n"
            "weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float('-inf')), dim=-1)\n"}


_DRAFT = "def row_softmax(m):\n    return torch.stack([stable_softmax(r, dim=-1) for r in m], dim=1)\n"


@pytest.mark.parametrize("rebound", [
    "row_softmax = lambda m: stable_softmax(m, dim=-1).T\n",
    "def t_softmax(m):\n    return stable_softmax(m, dim=-1).T\nrow_softmax = t_softmax\n",
], ids=["lambda", "another_def"])
def test_a_helper_name_rebound_after_its_def_is_not_read_for_a_stack(grader, rebound):
    keys = failed_keys(_sdpa(grader, _trace(_DRAFT + rebound)))
    assert "rows_stacked_as_columns" not in keys and "result_axes_permuted" in keys, keys


def _told(cells: list[str], function: str) -> str:
    with mock.patch.object(checks, "running_submission", lambda: types.SimpleNamespace(cells=cells)):
        return checks.randomness_fix(function)


@pytest.mark.parametrize("cell, told, not_told", [
    ("import torch\nproj = torch.nn.Linear(4, 4)\ndef f(x):\n    return proj(x) + torch.rand_like(x)\n",
     "random numbers drawn", "build it once"),
    ("import torch\nnoise = torch.randn(4)\ncalls = []\ndef f(x):\n    calls.append(1)\n"
     "    return x * len(calls) + noise\n", checks.RANDOMNESS_LEFT_ON, "drawn on every call"),
    ("import torch\ndef f(x):\n    operand = x\n    return operand.grand_total()\n", checks.RANDOMNESS_LEFT_ON, "drawn"),
    ("import torch\nclass M:\n    def __init__(self):\n        self.dropout_p = 0.0\nm = M()\n"
     "def f(x):\n    return x * m.dropout_p + torch.rand(1)\n", "random numbers drawn", "training=False"),
], ids=["layer_built_once_beside_a_draw", "draw_made_once_beside_a_counter", "rand_inside_a_name",
        "dropout_inside_a_name"])
def test_the_randomness_fix_is_told_of_its_own_name_and_of_code_run_every_call(cell, told, not_told):
    text = _told([cell], "f")
    assert told in text and not_told not in text, text


@pytest.mark.parametrize("cell, told", [
    ("import torch\ndef make():\n    return torch.nn.Linear(4, 4)\ndef f(x):\n    return make()(x)\n", "build it once"),
    ("import torch\ndrop = torch.nn.Dropout(0.1)\ndef f(x):\n    return drop(x)\n", "`.eval()`"),
    ("import torch\nimport torch.nn.functional as F\ndef f(x):\n    return F.alpha_dropout(x, 0.1, True)\n",
     "training=False"),
    ("import torch\nr = lambda x: torch.randn_like(x)\ndef f(x):\n    return x + r(x)\n", "drawn on every call"),
], ids=["layer_built_by_a_helper", "module_built_once", "alpha_dropout", "draw_in_a_lambda"])
def test_the_randomness_fixes_of_round_5b80829_hold(cell, told):
    assert told in _told([cell], "f")


def test_a_global_layer_beside_a_draw_is_told_the_draw_when_graded(grader):
    cell = ("probe = torch.nn.Linear(2, 2)\n\n" + _HEAD
            + "    w = w + 0.0 * probe.weight.sum() + 1e-3 * torch.rand_like(w)\n    return w @ V\n")
    failed = _sdpa(grader, {"scaled_dot_product_attention": cell}).failed
    told = [m for _q, _t, k, m in failed if k == "nondeterministic"]
    assert told and all("random numbers drawn" in m and "build it once" not in m for m in told), failed


@pytest.mark.parametrize("call", ["self.dropout(x)", "m.dropout(x)"], ids=["in_the_class", "through_the_instance"])
def test_a_dropout_module_kept_as_an_attribute_is_told_eval(call):
    forward = f"    def forward(self, x):\n        return {call}\n" if call.startswith("self") else ""
    cell = ("import torch\nclass A(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
            "        self.dropout = torch.nn.Dropout(0.1)\n" + forward + "m = A()\n"
            f"def f(x):\n    return {'m(x)' if call.startswith('self') else call}\n")
    text = _told([cell], "f")
    assert "`.eval()`" in text and "training=False" not in text, text


def test_a_dropout_module_attribute_is_told_eval_when_graded(grader):
    cell = ("class _Drop(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
            "        self.dropout = torch.nn.Dropout(0.1)\n\n\n_mod = _Drop()\n\n" + _HEAD
            + "    w = _mod.dropout(w)\n    return w @ V\n")
    failed = _sdpa(grader, {"scaled_dot_product_attention": cell}).failed
    told = [m for _q, _t, k, m in failed if k == "nondeterministic"]
    assert told and all("`.eval()`" in m and "training=False" not in m for m in told), failed
