"""Seventy-ninth blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or `measure.py`.
What was read: the student-facing text and solution cells of the notebook (as they stand in
`full_marks.ipynb`, whose cells these replace), `harness.py`, blind77.py (for the format), and only the
variant names of the other earlier blind sets. The grader was not run on this set.

This round's focus: TERSE, CLEVER ONE-LINERS. Each wrong cell is a short expression with one slip of the kind
terse code invites: a star-unpacked shape taken from the wrong tensor (q1); `d_k ** 1/2` read as a square root
(q2); a walrus softmax with keepdim left off (broadcasts without error on square inputs) and a lambda softmax
with its dim hard-coded (q3); a padded-triangle slice that drops the wrong row and a broadcast comparison
written the wrong way round (q4); `** -1/2` precedence in the scale, `mask.float() * -1e9` with the polarity
reversed, and the empty-row test reduced over the wrong axis (q5); `mask * scores` for masking, an einsum with
its output letters swapped, and `len(K3)` taken for d_k (q6); the `-~x` increment idiom (q7); `2 ^ 2` as a power
and `a // b * c` read as `a // (b * c)` (q8). The correct variants are equally terse, with precedence explicit,
`~` only on bool masks and einsum strings right.

Public material used (search tool):
- q2 / q5 (`** 1/2`, `** -1/2`): Stack Overflow 9595135 ("Why does Python give the wrong answer for square
  root?", x**(1/2) against x**.5, mirrored at python.engineering) and alpharithms.com/square-root-python-493615
  ("Square Roots in Python: Be Mindful of Operator Precedence").
- q8 (`2 ^ 2`): "The Case of the Mystery Operator" (The Quixotic Engineer blog, 2008: 2^2 = 0, ^ is xor).
- `~` only on bool masks (correct variants) and the -~x / ~x integer idioms (q7): pytorch/pytorch issues 24180
  and 4066 (`~` on byte/int tensors is a bitwise not, giving 254/255 or -1/-2, not a logical negation).
- The other kinds (keepdim-less broadcasting that works on square inputs, einsum output order, padded-triangle
  slices, mask polarity in `mask.float() * -1e9`, `mask * scores`) are the ones this round's brief lists.

How the variants were checked: a throwaway script under /tmp/w79-sdpa-from-scratch/ built each notebook with
`tests.heldout.harness.build_notebook`, ran every code cell but otter's in one namespace, and compared the
answers and functions with torch.softmax, F.scaled_dot_product_attention and the notebook's formulas (several
shapes, float64/float32/float16, 3-D/4-D, T_q != T_k, d_v != d_k, 2-D masks, fully masked rows).

Each wrong variant has exactly one mistake; "mistake" says in plain words what is wrong, "where" lists the
questions whose tests may lose points.
"""

_SDPA_HEAD = (
    "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
    "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\"\"\"\n"
)

_Q2 = (
    "d_k = Q.shape[-1]\n"
    "raw_scores = Q @ K.transpose(-2, -1)\n"
    "raw_score_var, scaled_score_var = raw_scores.var().item(), ({scaled}).var().item()\n"
    "scale_divisor = {div}\n"
    "print(raw_score_var, scaled_score_var, scale_divisor)\n"
)

_Q6 = (
    "scores3 = {scores}\n"
    "weights3 = scores3.softmax(-1)\n"
    "out3 = {out}\n"
    "weights3_causal = {causal}\n"
    "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
)
_Q6_OK = dict(scores="Q3 @ K3.mT * Q3.shape[-1] ** -.5", out="weights3 @ V3",
              causal="scores3.masked_fill(~causal_mask(3), -math.inf).softmax(-1)")

_Q8 = "attn_entries = {e}\nscore_madds = {m}\ncost_ratio = {r}\n"
_Q8_OK = dict(e="1 << 10 * 2", m="attn_entries << 6", r="(2 * 1024) ** 2 // 1024 ** 2")

_SDPA_OK = (
    _SDPA_HEAD
    + "    s = torch.einsum(\"...qd,...kd->...qk\", Q, K) / math.sqrt(Q.size(-1))\n"
    "    w = stable_softmax(s if mask is None else s.masked_fill(~mask, -math.inf), dim=-1)\n"
    "    return (w if mask is None else torch.where(mask.any(-1, keepdim=True), w, 0.)) @ V\n"
)

_SOFTMAX_OK = (
    "def stable_softmax(x, dim=-1):\n"
    "    return (e := (x - x.amax(dim, keepdim=True)).exp()) / e.sum(dim, keepdim=True)\n"
)

_CAUSAL_OK = "causal_mask = lambda T_q, T_k=None: torch.arange(T_q)[:, None] >= torch.arange(T_q if T_k is None else T_k)\n"

CORRECT = {
    "walrus_softmax_lambda_causal_einsum_sdpa_where_scalar": {
        "stable_softmax": _SOFTMAX_OK,
        "causal_mask": _CAUSAL_OK,
        "scaled_dot_product_attention": _SDPA_OK,
    },
    "answers_by_shifts_and_index_tricks_q2_by_power_minus_half": {
        "weights_shape": "weights_shape, out_shape = (4, 10, 10), (*(4, 10), 128)\n",
        "d_k": _Q2.format(scaled="raw_scores * d_k ** -.5", div="64 ** .5"),
        "q_trap_answer": "q_trap_answer = \"ABCD\"[~-3]\n",
        "attn_entries": _Q8.format(**_Q8_OK),
    },
    "q6_method_chained_softmax_with_tilde_on_bool_mask": {
        "scores3": _Q6.format(**_Q6_OK),
    },
    "sdpa_additive_bias_from_bool_mask_and_tril_slice_mask": {
        "causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    return torch.ones(n := max(T_q, T_k or T_q), n, dtype=torch.bool).tril()[:T_q, :T_k or T_q]\n"
        ),
        "scaled_dot_product_attention": (
            _SDPA_HEAD
            + "    s = Q @ K.mT / math.sqrt(Q.size(-1))\n"
            "    s = s if mask is None else s + torch.zeros_like(s).masked_fill(~mask, -math.inf)\n"
            "    return stable_softmax(s, dim=-1).nan_to_num(0.) @ V\n"
        ),
    },
}

WRONG = {
    "q1_out_shape_star_unpacked_with_the_last_size_of_k": (
        {"weights_shape": "weights_shape, out_shape = (4, 10, 10), (*(4, 10, 64)[:-1], (4, 10, 64)[-1])\n"},
        {"mistake": "out_shape is built as (*Q.shape[:-1], K.shape[-1]): the last size is d_k (64) taken from K "
                    "instead of d_v (128) from V, giving (4, 10, 64)",
         "where": ["q1"]},
    ),
    "q2_scaled_by_d_k_power_one_over_two_without_parentheses": (
        {"d_k": _Q2.format(scaled="raw_scores / d_k ** 1/2", div="math.sqrt(64)")},
        {"mistake": "`raw_scores / d_k ** 1/2` parses as raw_scores / (d_k ** 1) / 2, i.e. divided by 2 d_k = 16, "
                    "not sqrt(d_k): the scaled variance is the raw one over 256 instead of over 8",
         "where": ["q2"]},
    ),
    "q3_walrus_softmax_denominator_summed_without_keepdim": (
        {"stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            "    return (e := (x - x.amax(dim, keepdim=True)).exp()) / e.sum(dim)\n"
        )},
        {"mistake": "the denominator is summed without keepdim=True, so it broadcasts along the wrong axis: on "
                    "square inputs each entry is divided by another row's sum (no error), on other shapes it "
                    "raises or gives wrong rows; the helper is reused in attention and in the trace",
         "where": ["q3", "q5", "q6"]},
    ),
    "q3_lambda_softmax_with_dim_hard_coded_in_the_sum": (
        {"stable_softmax": (
            "stable_softmax = lambda x, dim=-1: (e := (x - x.amax(dim, keepdim=True)).exp()) "
            "/ e.sum(-1, keepdim=True)\n"
        )},
        {"mistake": "the max is taken along `dim` but the sum along -1 always, so stable_softmax(x, dim=0) (or any "
                    "dim other than the last) is normalised over the wrong axis",
         "where": ["q3"]},
    ),
    "q4_causal_mask_sliced_from_a_padded_triangle_one_row_off": (
        {"causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    return torch.ones(T_q + 1, (T_k or T_q) + 1, dtype=torch.bool).tril()[1:, :-1]\n"
        )},
        {"mistake": "the triangle is padded by one and sliced [1:, :-1], dropping the first row instead of the "
                    "last: row i is the padded row i + 1, so query i may also see key i + 1 (j <= i + 1)",
         "where": ["q4", "q6"]},
    ),
    "q5_scale_written_as_power_minus_one_over_two": (
        {"scaled_dot_product_attention": _SDPA_OK.replace(
            "/ math.sqrt(Q.size(-1))", "* Q.size(-1) ** -1/2")},
        {"mistake": "`Q.size(-1) ** -1/2` parses as (d_k ** -1) / 2, so the scores are divided by 2 d_k instead of "
                    "sqrt(d_k); the weights are too flat",
         "where": ["q5"]},
    ),
    "q5_mask_times_minus_1e9_added_with_the_polarity_reversed": (
        {"scaled_dot_product_attention": (
            _SDPA_HEAD
            + "    s = Q @ K.mT / math.sqrt(Q.size(-1))\n"
            "    w = stable_softmax(s if mask is None else s + mask.float() * -1e9, dim=-1)\n"
            "    return (w if mask is None else torch.where(mask.any(-1, keepdim=True), w, 0.)) @ V\n"
        )},
        {"mistake": "the bias is mask.float() * -1e9, which is -1e9 where the mask is True (may attend) and 0 where "
                    "it is False: the allowed keys are blocked and the blocked ones kept",
         "where": ["q5"]},
    ),
    "q5_empty_rows_found_with_any_over_the_query_axis": (
        {"scaled_dot_product_attention": _SDPA_OK.replace("mask.any(-1, keepdim=True)", "mask.any(-2, keepdim=True)")},
        {"mistake": "the fully-masked test reduces over axis -2 (queries) instead of -1 (keys): it asks whether a key "
                    "is seen by any query, so a query whose keys are all masked keeps its nan weights and its "
                    "output row is nan instead of zeros",
         "where": ["q5"]},
    ),
    "q6_causal_scores_multiplied_by_the_mask": (
        {"scores3": _Q6.format(**dict(_Q6_OK, causal="(scores3 * causal_mask(3)).softmax(-1)"))},
        {"mistake": "the causal weights use scores3 * causal_mask(3): blocked scores become 0, not -inf, so the "
                    "future keys still get weight exp(0) and weights3_causal is wrong in rows 0 and 1",
         "where": ["q6"]},
    ),
    "q6_out3_einsum_output_letters_swapped": (
        {"scores3": _Q6.format(**dict(_Q6_OK, out="torch.einsum(\"ij,jk->ki\", weights3, V3)"))},
        {"mistake": "out3 is einsum('ij,jk->ki'), with the output letters in the wrong order: the (2, 3) "
                    "transpose of weights3 @ V3",
         "where": ["q6"]},
    ),
    "q6_scores3_scaled_by_sqrt_of_len_of_k3": (
        {"scores3": _Q6.format(**dict(_Q6_OK, scores="Q3 @ K3.mT / len(K3) ** .5"))},
        {"mistake": "the scale is len(K3) ** .5: len gives the number of rows (T = 3), not d_k = 4, so every score "
                    "is divided by sqrt(3) instead of 2 and all three answers are off",
         "where": ["q6"]},
    ),
    "q7_third_letter_picked_with_the_minus_tilde_increment": (
        {"q_trap_answer": "q_trap_answer = \"ABCD\"[-~2]  # the third option\n"},
        {"mistake": "-~2 is the increment idiom (2 + 1 = 3), not 2, so the expression picks \"D\" (only float16 "
                    "goes wrong) instead of \"C\"",
         "where": ["q7"]},
    ),
    "q8_cost_ratio_written_with_caret_for_power": (
        {"attn_entries": _Q8.format(**dict(_Q8_OK, r="2 ^ 2"))},
        {"mistake": "cost_ratio = 2 ^ 2 uses Python's xor, which is 0, not the square 4",
         "where": ["q8"]},
    ),
    "q8_cost_ratio_floor_divided_then_multiplied_by_d_k": (
        {"attn_entries": _Q8.format(**dict(_Q8_OK, r="(2 * 1024) ** 2 * 64 // 1024 ** 2 * 64"))},
        {"mistake": "the ratio of the two madd counts is written a // b * c without parentheses around the "
                    "denominator 1024 ** 2 * 64, so it is 256 * 64 = 16384 instead of 4",
         "where": ["q8"]},
    ),
}
