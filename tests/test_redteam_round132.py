"""Red-team round 132: naming round 70's new reads and replays (1934938) attacked as a student and as a class.

Repros in /tmp/rt132/ (madds_cpu.py, madds_grade.py, sdpa_v.py, sdpa_drop.py, scaled_cpu.py, scaled_grade.py;
h.py grades a variant; RT_ROOT=/tmp/rt132-base runs one on 1934938):

- **A FLOP helper's 2 was read once for every product of every chain, and once for every assignment.** sdpa's
  madds_twice_cause (q8, madds_counted_twice) tested each product node of the helper's body by collecting its
  whole chain below it (quadratic in a chain's length), and walked the helper again for each `score_madds = ...`
  of the cell: a score_madds of twice the multiply-adds from `def count(a, b, c)` whose dead branch holds twenty
  1,500-factor products, called by five `score_madds = count(T8, 64, T8)` lines (60,545 characters), cost 59 s of
  the grader's CPU in the read alone (madds_cpu.py 1500 5 20), and a grade 53 s against 1.7 s (madds_grade.py):
  the check's 30 s CPU budget stopped it with CheckTooSlow, which the read's own `except Exception` swallowed, so
  the test went on. Each chain is now read once from its top, each helper once per read (1.2 s), and CheckTooSlow
  passes through.
- **V viewed with the query length was told K was.** sdpa's keys_reshaped_with_query_length (q5) took the crash
  `shape '[-1, T_q, d_k]' is invalid for input of size N` as K's reshape wherever the replay on K gives it, but a V
  of K's size (d_v = d_k) viewed as `V.contiguous().view(-1, L, V.shape[-1])` gives the same words: a bmm rewrite
  with K right and V viewed with L (23/35) was told on test_causal_rectangular "this is the crash of K (shape (2,
  11, 16)) reshaped with the query length". Where V holds as many entries as K, a second call with V one column
  wider must still raise K's crash; it is shape_of_an_input there now, as on the rewrite's other tests.
- **A dropout that drops nothing was named the cause.** sdpa's scores_through_dropout (q2) took any dropout call of
  the cell left training: `torch.nn.functional.dropout(raw_scores, p=0.0) / math.sqrt(d_k - 1)` (and
  `nn.Dropout(0.0)`), the identity, was told "your cell passes them through a dropout" (34/35) where the same cell
  without it is told the one-edit fix of its `d_k - 1`. A probability written as 0 is no dropout now, and
  `module.train(False)` counts as .eval().
- **Any second fourth root was told a scale split over Q and K.** sdpa's divisor_given_as_fourth_root (q2) added
  "your cell also scales Q and K by a fourth root each" wherever its cell held two fourth roots (or powers
  -0.25): `scale_divisor = 64 ** 0.25` beside `print(f'per side: {64 ** 0.25:.3f}')` (scaled scores right) was
  told so (fourth.py). The words now need a product or division by a fourth root, or by a name bound to one,
  other than the names that give scale_divisor (the round's own split, `Q * scale_each`, keeps them).
  The value read also took a def's own local of the name scale_divisor is given: `def per_side(d): s = d **
  0.25` beside `s = math.sqrt(8); scale_divisor = s` (the example's root, example_value_reused, as the
  round's own test has it) was told divisor_given_as_fourth_root quoting `d ** 0.25` (fourth_scope.py);
  only the cell's own assignments (outside defs, classes, lambdas) are read now.
- **The split quoted was the def's first, not the one that raised.** scaled-attention's split_points_crash (q8,
  mha_split_points_as_sizes) quoted the first split call of multi_head_attention whose sizes are no int literal,
  and a right `(X @ W_Q).split(d_k, dim=-1)` (d_k a name) is one: with `torch.split(X @ W_K, bounds, dim=-1)`
  below it (bounds the split points), both of q8's crashes said "(your `(X @ W_Q).split(d_k, dim=-1)`)"
  (scaled_split.py). The call quoted is now one on the line the traceback's innermost frame of
  multi_head_attention (or a def inside it) names, and none where no such frame is read.
- **A scale on both q and k walked every chain below every product.** scaled-attention's scale_on_both_said (q2's
  divide_by_dk words) bounded its outer walk to 3,000 nodes but walked each product's other operand whole: a
  dot_product_variance (19,366 characters, dividing by d_k) with five 1,900-factor products of a drawn q in a dead
  branch cost 2.8 s of the grader's CPU a call (scaled_cpu.py; a grade 5.4 s against 2.4 s). The operand is read to
  its first 400 nodes (0.2 s).

Held (tried, no change): q13's new fully blocked query on right notebooks (-inf then nan_to_num with a uniform
row, the mask added before the scale, exp(S - logsumexp(S)): 42/42, pipe_right.py), a -inf fill in
attention_weights (named there, cross_attention's case charged to it: 41/42, pipe_wrong.py), control characters in
a quoted fourth root (escaped on the terminal and in results.json, esc_term.txt), 400-digit exponents beside the
fourth root (held.py), a 9,000-character split-size message (no match, under 1 ms), softmax_temperature_root_n
beside the other softmax variants, round 131's kept-count read on a dead branch of 35,000 calls (1.9 s for
560,000 characters, linear: kept_cpu.py). Measured and left: a helper's literal 2 meaning two products (`2 * T *
T * d  # QK^T and AV`) is said as a FLOP count; the number and the source cannot tell those causes apart.
"""
from __future__ import annotations

import time
import types

import pytest

from tests.heldout.harness import grade_cells
from tests.hidden_modules import load

SDPA_D = load("sdpa-from-scratch", "_diagnose", "_rt132_sdpa_diagnose")
SCALED_D = load("scaled-attention", "_diagnose", "_rt132_scaled_diagnose")
SDPA = "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
Q2_HEAD = "d_k = Q.shape[-1]\nraw_scores = Q @ K.transpose(-2, -1)\nraw_score_var = raw_scores.var().item()\n"
Q2_TAIL = "scaled_score_var = scaled.var().item()\nscale_divisor = math.sqrt(64)\n"


def _madds_cell(factors: int, products: int, lines: int, ret: str) -> str:
    chain = "*".join(["a"] * factors)
    body = "".join(f"        x{i} = {chain}\n" for i in range(products))
    return ("T8 = 1024\nattn_entries = T8 * T8\ndef count(a, b, c):\n    if a < 0:\n" + body + f"    return {ret}\n"
            + "score_madds = count(T8, 64, T8)\n" * lines + "cost_ratio = 4\n")


def test_a_flop_helpers_long_products_are_read_once():
    sub = types.SimpleNamespace(cells=[_madds_cell(1500, 10, 3, "a * b * c + a * b * c")])
    start = time.process_time()
    said = SDPA_D.madds_twice_cause(sub)
    spent = time.process_time() - start
    assert spent < 3.0, spent      # 18 s before
    assert "counts 2 per multiply-add" not in said


def test_a_flop_helpers_two_is_still_read_beside_long_products():
    sub = types.SimpleNamespace(cells=[_madds_cell(1500, 3, 2, "a * b * c * 2     # mul + add")])
    said = SDPA_D.madds_twice_cause(sub)
    assert "counts 2 per multiply-add (`a * b * c * 2`)" in said, said


def test_values_viewed_with_the_query_length_are_not_keys(grader):
    cells = {"scaled_dot_product_attention": SDPA + (
        "    lead = Q.shape[:-2]\n    L, d = Q.shape[-2], Q.shape[-1]\n"
        "    q = Q.contiguous().view(-1, L, d)\n    k = K.contiguous().view(-1, K.shape[-2], d)\n"
        "    v = V.contiguous().view(-1, L, V.shape[-1])\n"
        "    s = torch.bmm(q, k.transpose(1, 2)) * d ** -0.5\n    s = s.view(*lead, L, -1)\n"
        "    if mask is not None:\n        s = s.masked_fill(~mask, float('-inf'))\n"
        "    w = stable_softmax(s, dim=-1)\n"
        "    if mask is not None:\n        w = w.masked_fill(~mask.any(-1, keepdim=True), 0.0)\n"
        "    out = torch.bmm(w.reshape(-1, L, w.shape[-1]), v)\n    return out.view(*lead, L, V.shape[-1])\n")}
    outcome = grade_cells(grader, "sdpa-from-scratch", cells, "rt132_values")
    assert outcome.failed, outcome.explain()
    assert not [f for f in outcome.failed if f[2] == "keys_reshaped_with_query_length"], outcome.explain()


def test_a_dropout_of_probability_zero_is_not_named(grader):
    for line in ("scaled = torch.nn.functional.dropout(raw_scores, p=0.0) / math.sqrt(d_k - 1)\n",
                 "drop = torch.nn.Dropout(0.0)\nscaled = drop(raw_scores) / math.sqrt(d_k - 1)\n"):
        outcome = grade_cells(grader, "sdpa-from-scratch", {"d_k": Q2_HEAD + line + Q2_TAIL}, "rt132_p0")
        keys = {k for q, _t, k, _m in outcome.failed if q == "q2"}
        assert keys == {"one_edit_fix"}, outcome.explain()


def test_a_module_set_to_eval_by_train_false_is_not_a_dropout():
    cell = Q2_HEAD + ("drop = torch.nn.Dropout(0.2)\ndrop.train(False)\nscaled = drop(raw_scores) / 7.0\n" + Q2_TAIL)
    SDPA_D.name_scores_through_dropout(1.5, types.SimpleNamespace(cells=[cell]))   # says nothing, raises nothing


def test_a_scale_on_both_walks_a_bounded_operand():
    chain = "*".join(["q"] * 1900)
    cell = ("def dot_product_variance(d_k, n_samples=10000, generator=None, scaled=False):\n"
            "    q = torch.randn(n_samples, d_k, generator=generator)\n"
            "    k = torch.randn(n_samples, d_k, generator=generator)\n"
            "    if d_k < 0:\n" + "".join(f"        z{i} = {chain}\n" for i in range(5)) +
            "    dots = (q * k).sum(-1) / d_k if scaled else (q * k).sum(-1)\n    return dots.var().item()\n")
    start = time.process_time()
    said = SCALED_D.scale_on_both_said(types.SimpleNamespace(cells=[cell]))
    spent = time.process_time() - start
    assert said == "" and spent < 1.0, spent      # 2.8 s before


def test_a_printed_fourth_root_is_no_split_over_q_and_k():
    cell = Q2_HEAD + ("scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()\nscale_divisor = 64 ** 0.25\n"
                      "print(f'per side: {64 ** 0.25:.3f}')\n")
    with pytest.raises(AssertionError) as named:
        SDPA_D._name_divisor_fourth_root(64 ** 0.25, types.SimpleNamespace(cells=[cell]))
    assert named.value.key == "divisor_given_as_fourth_root" and "scales Q and K" not in str(named.value)
    split = Q2_HEAD + ("scale_each = d_k ** -0.25\n"
                       "scaled_score_var = ((Q * scale_each) @ (K * scale_each).transpose(-2, -1)).var().item()\n"
                       "scale_divisor = math.sqrt(math.sqrt(64))\n")
    with pytest.raises(AssertionError) as named:
        SDPA_D._name_divisor_fourth_root(64 ** 0.25, types.SimpleNamespace(cells=[split]))
    assert "scales Q and K by a fourth root each" in str(named.value)


def test_the_split_quoted_is_the_one_that_raised(grader):
    cell = ("def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):\n    d_model = X.shape[-1]\n"
            "    d_k = d_model // n_heads\n    qs = (X @ W_Q).split(d_k, dim=-1)\n"
            "    bounds = [h * d_k for h in range(1, n_heads)]\n    ks = torch.split(X @ W_K, bounds, dim=-1)\n"
            "    vs = torch.split(X @ W_V, bounds, dim=-1)\n"
            "    heads = [attention(q, k, v, d_k)[0] for q, k, v in zip(qs, ks, vs)]\n"
            "    return torch.cat(heads, dim=-1) @ W_O\n")
    outcome = grade_cells(grader, "scaled-attention", {"multi_head_attention": cell}, "rt132_split")
    named = [m for _q, _t, k, m in outcome.failed if k == "mha_split_points_as_sizes"]
    assert named and all("(your `torch.split(X @ W_K, bounds, dim=-1)`)" in m for m in named), outcome.explain()


def test_a_helpers_own_fourth_root_is_not_the_divisors(grader):
    cell = Q2_HEAD + ("scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()\n"
                      "def per_side(d):\n    s = d ** 0.25\n    return s\n"
                      "s = math.sqrt(8)\nscale_divisor = s\n")
    outcome = grade_cells(grader, "sdpa-from-scratch", {"d_k": cell}, "rt132_scope")
    assert {k for q, _t, k, _m in outcome.failed if q == "q2"} == {"example_value_reused"}, outcome.explain()
