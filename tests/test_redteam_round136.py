"""Red-team round 136: naming round 74's new reads and replays (97807a8), attacked as a student and as a class.

Repros in /tmp/rt136/ (h.py grades a variant; the unit scripts take the checkout's root, /tmp/rt136-base for 97807a8):

- **A triangle compare nested past the stack crashed q4 and q6.** sdpa-from-scratch's triangle_compared_past_one
  quoted the compare with ast.unparse: `return (torch.ones(T_q, T_k).tril() + 0 + ... + 0) > 1` (600 terms) made
  q4's three tests and q6's test_weights3_causal say "RecursionError: maximum recursion depth exceeded", the
  grader's own error, where 0 terms is named triangle_compared_past_one (deep.py tri 600). The quote is
  pyparse.unparse (bounded, cut to 80 characters).
- **The triangle read walked the whole def again for every compare.** For each `name > 1` in causal_mask the read
  walked the def for the name's assignments: 800 `a > 1` in one tuple beside a 40,000-element list literal (a
  45 KB cell, all-False mask) spent 12.7 s of the trusted process's CPU per read (triq.py 800 20000) and the grade
  47.7 s of the grading process's CPU (four reads: q4's three tests and q6); a 400 KB cell would be minutes. Now one
  bounded walk (4,000 nodes) finds each name's last assignment, and each name's triangle is answered once (0.3 s,
  the cell's parse included).
- **Deep arithmetic in q8's cell crashed the helper read.** name_helper_args_swapped (q8, helper_args_swapped)
  evaluated every module-level assignment of cost_ratio's cell, and each helper argument, by recursion: `X = 1 +
  1 + ... + 1` (1,500 terms) beside `cost_ratio = cost(2 * 1024, 64) / cost(1024, 64)`, or `cost(2 * 1024 + 0 +
  ... + 0, 64)` (600 terms), made test_cost_ratio say RecursionError (deep.py helper 1500, helperq 600). The
  readers (_whole_number, _product_degrees) stop at 32 levels, and every quote in the message is pyparse.unparse,
  cut: the first is now helper_args_swapped, the second cost_linear_in_T.
- **Deep arithmetic in attention crashed scaled-attention's q1.** reciprocal_divided_said (reciprocal_scale_divided,
  read where multiply_by_sqrt_dk matched) read every division's left side as a constant by recursion: `junk = (0 +
  0 + ... + 0) / 1` (1,500 terms) in a def that multiplies by sqrt(d_k) made q1's five tests say RecursionError
  instead of multiply_by_sqrt_dk (recip.py 1500). _constant stops at 16 levels.
- **A softmax that subtracts its LAST logit was told max_index_taken_for_value.** The probes (the largest logit,
  711.5, last: right; first: overflow) cannot tell the max's position from the last entry: `m = x.narrow(dim, -1,
  1)` (wrong: no max subtracted) was told on q3, q5 and q6 that "what is subtracted is WHERE the maximum is"
  (last.py). A third probe with the largest logit in position 2 (exp(711.5 - 2) fits) must be right too: the last
  logit's shift is 0 there and overflows, and it is no_max_subtraction again; `max(...)[1]` is still named.
- **An output zeroed after the softmax was told max_index_taken_for_value.** q5's replay of a 'has a visible key'
  flag read from mask.max(-1)[1] zeroes every row whose first visible key is key 0: under a causal or a padding
  mask that is every row, so the replay is all zeros, and any output zeroed after the softmax matched it: `w =
  w.masked_fill(mask, 0.0)` (the fill's mask not inverted) was told on test_causal_rectangular and
  test_dv_differs_from_dk that its flag was read from the max's index (zero.py). Where the replay keeps no row, a
  second call with a mask whose rows start at keys 1, 0 and 2 must match the replay too (rows 0 and 2 kept); that
  notebook is now one_edit_fix on every q5 test it fails but the fully masked ones, and a flag read from
  max(-1)[1] is still named on every q5 test.
- **A comment that negates an option was read as reasoning for it.** letter_contradicts_comment (q03) read
  `ans_scale = "c"   # the rows do not collapse onto one key` as a comment describing option b, the right one, and
  told the student their reasoning was right and the letter a slip (neg.py); their comment argues against b. A
  negation among the three words before the right option's words, in their clause (ans_scale), or anywhere in a
  shapes comment (ans_cross_shapes), leaves the letter to its own key (softmax_scale_invariant here); "no
  1/sqrt(d_k): rows become nearly one-hot" or "no scaling, so the softmax saturates" beside a wrong letter is still
  named.
- **The sum-after-transpose read was quadratic in q08.** raise_if_sum_after_transpose (nw_sum_wrong_axis) walked,
  for every `.sum(0)` call, every name of the summed value's binding and each name's whole bound value again:
  `x = y+y+...` and `w = x+x+...` (550 terms each) with 170 `w.sum(0);` in a never-run `if False:` block, beside a
  `Vt = V.transpose(0, 1)` ... `.sum(dim=0)` return (a 3.9 KB def, under the 4,000-character read), spent the
  grader's 30 s check-CPU cap on each of q08's three tests: 92 s of the grading process's CPU, and each test said
  the cap instead of the name (nwsum.py 550 170). Each bound value is walked once and each summed expression answered
  once: 2.3 s for the whole grade, all three tests nw_sum_wrong_axis.
- **Any unread name made from the mask was said to be the masked scores.** raise_if_masked_scores_unused (q05,
  mask_ignored) took the first name bound to an expression reading the mask and never read again: `T =
  M.shape[-1]` beside a dropped `S.masked_fill(M == float("-inf"), float("-inf"))` (the classic non-inplace call)
  was told "`T = M.shape[-1]` computes the masked scores ... give the softmax `T`" (neg.py). The expression must read
  the mask and another of the def's own names (a parameter, or a local such as a clone of S): that notebook keeps
  mask_ignored without the false cause, and `score = S + M` is still said.
- **A quote taken from lower-cased positions.** q14's scores_transposed and q11's rank_counts_all_singular_values
  matched their regexes on source.lower() and quoted (and, on q11, tested for a comparison) the source's line at
  the match's position; 'İ' lowers to two characters, so 48 of them in a comment moved the quote of `# S = K @ Q.T`
  two lines down: "your cell writes the scores keys first (`ans_cross_shapes = "c"`)" (neg.py). The lower case is
  taken character by character, a character kept where its lower case is longer (_lower_in_place).
- **A keys-first product written to be rejected was said to be the student's layout.** q14's scores_transposed
  ('c' from a keys-first product in the answer cell) read `# S = Q @ K.T, not K @ Q.T: O takes its rows from the
  keys` as "your cell writes the scores keys first (`S = Q @ K.T, not K @ Q.T: ...`)" (neg.py). A negation in the
  product's clause, or a queries-first product in the same cell, leaves 'c' to its option's key
  (cross_roles_swapped there); `S = np.dot(K, Q.T)` is still said.
- **The shapes comment read was quadratic.** _options_in_comment (q14) scanned from every `o` to the end of the text
  for "rows per query", and \\s* around each separator retried along every run of spaces: a 6,000-character comment
  of `o*` took 1.2 s of the trusted process's CPU, one of spaces 0.7 s (rx2.py). Whitespace runs are one space
  first, and the rows are looked for within 120 characters of the `o` (0.04 s).

Held (tried, no change): read_twice_on_one_path (round 135's post-order walk: iterative, no recursion; if / elif /
match / IfExp, early returns and raises, nested matches, copies of the arms before merging; a read after an arm
ending in continue or break still counts twice, as before round 135); the pipeline's other new regexes on 6,000
characters (_SVD_COUNT, _NUMPY_FLOAT64, _KEYS_FIRST_PRODUCT, _UNIFORM_DRAW, the scale options: 0.04 s or less, rx.py);
the pipeline's raise_if_scale_outside_exp, raise_if_masked_scores_unused and raise_if_sum_after_transpose (defs of at
most 4,000 characters, pyparse.unparse quotes); scaled-attention's _nodes bound (4,000 nodes) and upcast_said's root
(8 levels); messages quoting comments and lines with ESC or U+202E (cut here, made inert by TestReport as every
message); the replays' generator (torch.Generator seeded 74, local to the call: nothing kept between students).
"""
from __future__ import annotations

import time
import types

import torch

from autograder.grading.checks import Misconception
from tests.heldout.harness import grade_cells
from tests.hidden_modules import load

SD = load("sdpa-from-scratch", "_diagnose", "_rt136_sdpa_diagnose")
PIPE_D = load("attention-pipeline", "_diagnose", "_rt136_pipe_diagnose")

MASK = "def causal_mask(T_q, T_k=None):\n    T_k = T_q if T_k is None else T_k\n"
Q8 = "attn_entries = 1024 * 1024\nscore_madds = 1024 * 1024 * 64\n"


def _failed(outcome, question=None):
    return [(q, k, m) for q, _t, k, m in outcome.failed if question is None or q == question]


def test_a_triangle_compare_too_deep_to_quote_is_named_not_a_grader_crash(grader):
    cells = {"causal_mask": MASK + "    return (torch.ones(T_q, T_k).tril()" + " + 0" * 600 + ") > 1\n"}
    failed = _failed(grade_cells(grader, "sdpa-from-scratch", cells, "rt136_deep_triangle"))
    assert len(failed) == 4 and all(k == "triangle_compared_past_one" and "RecursionError" not in m
                                    for _q, k, m in failed), failed


def test_the_triangle_read_walks_the_def_once():
    cell = (MASK + "    a = 0\n    c = (" + "a > 1, " * 800 + ")\n    b = [" + "0," * 20_000 + "]\n"
            "    return torch.zeros(T_q, T_k, dtype=torch.bool)\n")
    start = time.process_time()
    said = SD._triangle_threshold_past_one(types.SimpleNamespace(cells=["import torch\n", cell]))
    spent = time.process_time() - start
    assert said is None and spent < 3.0, (said, spent)
    named = MASK + "    tri = torch.ones(T_q, T_k, dtype=torch.long).tril()\n    x = 0\n    return tri > 1\n"
    assert SD._triangle_threshold_past_one(types.SimpleNamespace(cells=[named])) == "tri > 1"


def test_deep_arithmetic_beside_cost_ratio_is_no_grader_crash(grader):
    helper = "def cost(d, T):\n    return d * T ** 2\n\ncost_ratio = "
    swapped = Q8 + "X = 1" + " + 1" * 1500 + "\n" + helper + "cost(2 * 1024, 64) / cost(1024, 64)\n"
    failed = _failed(grade_cells(grader, "sdpa-from-scratch", {"attn_entries": swapped}, "rt136_deep_q8"))
    assert [k for _q, k, _m in failed] == ["helper_args_swapped"], failed
    deep_arg = Q8 + helper + "cost(2 * 1024" + " + 0" * 600 + ", 64) / cost(1024, 64)\n"
    try:
        SD.name_helper_args_swapped(types.SimpleNamespace(cells=[deep_arg]))
    except Misconception as e:
        raise AssertionError(f"named from an argument too deep to read: {e.key}") from None


def test_deep_arithmetic_in_attention_keeps_multiply_by_sqrt_dk(grader):
    src = ("def attention(Q, K, V, d_k):\n    junk = (0" + " + 0" * 1500 + ") / 1\n"
           "    scores = Q @ K.T * d_k ** 0.5\n    weights = F.softmax(scores, dim=-1)\n    out = weights @ V\n"
           "    return out, weights\n")
    failed = _failed(grade_cells(grader, "scaled-attention", {"attention": src}, "rt136_deep_recip"))
    assert failed and all(k == "multiply_by_sqrt_dk" and "RecursionError" not in m for _q, k, m in failed), failed


def _softmax_shifted_by(shift):
    def softmax(x):
        e = torch.exp(x - shift(x))
        return e / e.sum(dim=-1, keepdim=True)
    return softmax


def test_a_shift_by_the_last_logit_is_not_the_max_index():
    SD.name_shift_by_max_index(_softmax_shifted_by(lambda x: x.narrow(-1, -1, 1)), "w")   # nothing said
    try:
        SD.name_shift_by_max_index(_softmax_shifted_by(lambda x: x.max(-1, keepdim=True)[1]), "w")
    except Misconception as e:
        assert e.key == "max_index_taken_for_value", e.key
    else:
        raise AssertionError("the max's index half was not named")


def test_a_last_logit_softmax_is_graded_as_no_max_subtraction(grader):
    cells = {"stable_softmax": "def stable_softmax(x, dim=-1):\n    m = x.narrow(dim, -1, 1)\n"
                               "    e = torch.exp(x - m)\n    return e / e.sum(dim=dim, keepdim=True)\n"}
    failed = _failed(grade_cells(grader, "sdpa-from-scratch", cells, "rt136_last_logit"))
    assert ("q3", "no_max_subtraction") in {(q, k) for q, k, _m in failed}, failed
    assert all(k != "max_index_taken_for_value" for _q, k, _m in failed), failed


def test_a_comment_that_negates_the_right_option_is_not_its_reasoning(grader):
    cell = 'ans_scale = "c"   # the rows do not collapse onto one key\n'
    failed = _failed(grade_cells(grader, "attention-pipeline", {"ans_scale": cell}, "rt136_negated"))
    assert [(q, k) for q, k, _m in failed] == [("q03", "softmax_scale_invariant")], failed
    assert PIPE_D._negated("ans_scale", "b", "the rows do not collapse onto one key")
    assert not PIPE_D._negated("ans_scale", "b", "no 1/sqrt(d_k) at d_k = 512: rows become nearly one-hot")
    assert not PIPE_D._negated("ans_scale", "b", "without the scale the softmax saturates: near one-hot rows")
    assert not PIPE_D._negated("ans_scale", "b", "no scaling, so the softmax saturates")
    assert PIPE_D._negated("ans_cross_shapes", "b", "s is not t x t', o is t x d_v")


def test_the_shapes_comment_read_is_linear():
    for text in ("o*" * 2995, "o" + " " * 5990, "o by " * 1190):
        start = time.process_time()
        said = PIPE_D._options_in_comment("ans_cross_shapes", text)
        spent = time.process_time() - start
        assert said == set() and spent < 0.3, (text[:10], spent)
    assert PIPE_D._options_in_comment("ans_cross_shapes", "s is t by t' and o gets one row per query") == {"b"}
    assert PIPE_D._options_in_comment("ans_cross_shapes", "s: t × t', o: t × d_v") == {"b"}
    assert PIPE_D._options_in_comment("ans_cross_shapes", "s is t  x   t',   o is t'  *  d_v") == {"d"}


def test_the_sum_after_transpose_read_walks_each_binding_once(grader):
    cell = ("def nadaraya_watson(q, K, V):\n    kappa = torch.exp(K @ q / q.shape[-1] ** 0.5)\n    Vt = V.transpose(0, 1)\n"
            "    if False:\n        y = 0\n        x = y" + "+y" * 550 + "\n        w = x" + "+x" * 550 + "\n        "
            + "w.sum(0);" * 170 + "\n    return (Vt * kappa).sum(dim=0) / kappa.sum()\n")
    assert len(cell) < 4000
    start = time.process_time()
    failed = _failed(grade_cells(grader, "attention-pipeline", {"nadaraya_watson": cell}, "rt136_nw_sum"))
    spent = time.process_time() - start
    assert len(failed) == 3 and all(q == "q08" and k == "nw_sum_wrong_axis" and "axis 0 is V's value axis" in m
                                    for q, k, m in failed), failed
    assert spent < 20, spent


def test_an_output_zeroed_after_the_softmax_is_not_a_max_index_flag(grader):
    cell = ("def scaled_dot_product_attention(Q, K, V, mask=None):\n    d_k = Q.shape[-1]\n"
            "    scores = Q @ K.transpose(-2, -1) / math.sqrt(d_k)\n"
            "    if mask is not None:\n        scores = scores.masked_fill(~mask, float('-inf'))\n"
            "    w = stable_softmax(scores, dim=-1)\n    if mask is not None:\n        w = w.masked_fill(mask, 0.0)\n"
            "    return w @ V\n")
    failed = _failed(grade_cells(grader, "sdpa-from-scratch", {"scaled_dot_product_attention": cell}, "rt136_zeroed"))
    assert failed and all(k != "max_index_taken_for_value" for _q, k, _m in failed), failed



def test_a_quote_is_the_line_that_matched_whatever_lowers_longer():
    cell = "# " + "\u0130" * 48 + "\n# S = K @ Q.T\nx = 1\nans_cross_shapes = \"c\"\n"
    try:
        PIPE_D.raise_if_keys_first_scores_said("c", types.SimpleNamespace(cells=[cell]))
    except Misconception as e:
        assert e.key == "scores_transposed" and "(`S = K @ Q.T`)" in str(e), str(e)
    else:
        raise AssertionError("the keys-first product was not said")



def test_an_unread_shape_of_the_mask_is_not_the_masked_scores(grader):
    cell = ("def attention_weights(S, M=None):\n    if M is not None:\n        T = M.shape[-1]\n"
            "        S.masked_fill(M == float('-inf'), float('-inf'))\n    return torch.softmax(S, dim=-1)\n")
    failed = _failed(grade_cells(grader, "attention-pipeline", {"attention_weights": cell}, "rt136_mask_shape"))
    assert failed and all(k == "mask_ignored" and "give the softmax `T`" not in m for _q, k, m in failed), failed



def test_a_keys_first_product_written_to_be_rejected_is_not_said():
    for cell in ("# S = Q @ K.T, not K @ Q.T: O takes its rows from the keys\nans_cross_shapes = \"c\"\n",
                 "# S = Q @ K.T (K @ Q.T is its transpose)\nans_cross_shapes = \"c\"\n"):
        PIPE_D.raise_if_keys_first_scores_said("c", types.SimpleNamespace(cells=[cell]))   # nothing said
    try:
        PIPE_D.raise_if_keys_first_scores_said("c", types.SimpleNamespace(cells=["# S = np.dot(K, Q.T)\nans_cross_shapes = \"c\"\n"]))
    except Misconception as e:
        assert e.key == "scores_transposed", e.key
    else:
        raise AssertionError("the keys-first product was not said")
