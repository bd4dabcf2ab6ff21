"""Blind held-out set 79 for attention-pipeline.

Seventy-ninth blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, its diagnosis code, the reference solution, `variants.py`, the naming
tests or `measure.py`, and without running the grader on these variants. What was read: the student-facing
text of attention-pipeline.ipynb (as it appears in full_marks.ipynb), the solution cells of full_marks.ipynb,
`harness.py`, blind77.py (for the format and the docstring), and only the variant names of the earlier blind
sets (to avoid repeating a mistake in the same form).

Round 79's angle: TERSE, CLEVER ONE-LINERS. Each function is one expression (lambdas, walrus, `*` unpacking,
chained tensor methods, einsum strings, answer cells computed by an expression), and each wrong variant has one
slip of that style: the weights unpacked with `*W` and iterated with a reversing slice (q01); `** 1/2` read as
a square root although it is (d_k ** 1) / 2 (q02); `-1 ** 2` read as (-1) ** 2 in an index expression (q03);
`~` applied to an integer 0/1 triangle, giving -1/-2 instead of a negation (q04); `M or 0`, the truth value of
a tensor (q05); an einsum whose output letters are written in the wrong order (q07); kernel weights
broadcast along the value columns, which runs only when the number of keys equals d_v (q08); the chained
comparison `0 <= j <= i` on index tensors (q09); `x[A > 0]` boolean indexing that flattens the rows (q10);
`sorted` unpacking that swaps two answers (q11); a long product missing its parentheses (q12); `*`-unpacking
project_qkv of X so keys and values never come from Y (q13); an einsum shape probe with swapped output
letters (q14); a double reversal `[::-1][-1]` that lands on the first letter (q15).

Public material found with the `search` tool, and what it showed:
- stackoverflow.com/questions/936904 ("Why does ** bind more tightly than negation?": -1 ** 2 is -1) and the
  Python reference on unary operations (pyspanishdoc.sourceforge.net/ref/unary.html: ~x is -(x+1), for
  integers): used for the `-1 ** 2` index of q03, the `** 1/2` of q02, and the `~` on an integer triangle of
  q04; the correct variants write (-1) ** 2, `** .5` and -~1 knowingly.
- github.com/ZikangZhou/HiVT/issues/44 (`~` on a padding mask read as a logical not, ~True = -2 and
  ~False = -1, both truthy) and github.com/pytorch/pytorch/issues/24180 (`~` on a uint8 tensor gives 254/255,
  not 0/1): the same slip on a torch.long triangle for q04.
- qastack mirror of stackoverflow.com/questions/10062954 (truth value of an array with more than one element
  is ambiguous; `2 < x < 10` is `2 < x and x < 10`, and `or`/`and` call bool): the `0 <= j <= i` of q09 and
  the `M or 0` of q05; duoke360.com/post/34208 gives the PyTorch form of the same error.
- sprintchase.com/?p=10350 and codegenes.net/blog/masked-select-pytorch (masked_select and x[mask] return a
  1-D tensor whatever the input shape): the flattened x[A > 0] of q10.
- The remaining kinds (einsum output letters in the wrong order, q07 and q14; broadcasting that runs only
  when two sizes coincide, q08; *-unpacking and reversing slices, q01 and q13; sorted unpacking, q11; a
  product missing parentheses, q12; a double reversal, q15) follow the brief's list of terse-code slips.

The correct variants are terse too: lambdas with `/ d ** .5`, `triu(1)` of a full finfo.min tensor, walrus in
the return tuple, einsum strings with the right output order, `[:, None]` row reciprocals, `nan_to_num` for
0 log 0, answers as index expressions that evaluate to the right letter.

Every variant was checked with a throwaway script under /tmp/w79-attention-pipeline/: each variant's notebook
built with harness.build_notebook and run top to bottom (all code cells but otter's), then every function
and answer compared with those of the unmodified full_marks.ipynb on unbatched, batched and 4-D inputs,
T_q != T_k, d_k != d_v, float64, float32 and float16, with and without masks.

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

PROJ = "project_qkv"
SCORES = "scaled_scores"
SCALE_ANS = "ans_scale"
MASK = "causal_additive_mask"
WEIGHTS = "attention_weights"
MASK_ANS = "ans_mask"
SELF = "self_attention"
NW = "nadaraya_watson"
AVG = "prefix_average_matrix"
ENT = "row_entropy_bits"         # the q10 cell (also defines effective_tokens)
RANK = "max_rank_S"              # the q11 cell (also defines rank_S_lesson)
PARAMS = "qkv_param_count"
CROSS = "cross_attention"
SHAPES_ANS = "ans_cross_shapes"
CAUSAL_ANS = "ans_cross_causal"
COST_ANS = "ans_complexity"

CORRECT = {
    # lambdas throughout the first pipeline
    "lambda_unpacked_projection_root_power_scores_and_method_softmax": {
        PROJ: '''project_qkv = lambda X, *W: tuple(X @ w for w in W)
''',
        SCORES: '''scaled_scores = lambda Q, K: Q @ K.mT / Q.shape[-1] ** .5
''',
        WEIGHTS: '''attention_weights = lambda S, M=None: (S if M is None else S + M).softmax(-1)
''',
    },
    # triu(1) of a full finfo.min tensor; walrus in the returned tuple; einsum with the right output order
    "full_min_triu_mask_and_walrus_einsum_self_attention": {
        MASK: '''causal_additive_mask = lambda T, dtype, device=None: torch.full((T, T), torch.finfo(dtype).min, dtype=dtype, device=device).triu(1)
''',
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    return torch.einsum("...ts,...sd->...td", A := attention_weights(S := scaled_scores(Q, K), causal_additive_mask(X.shape[-2], S.dtype, S.device) if causal else None), V), A
''',
    },
    # walrus kernel, row reciprocals with [:, None], nan_to_num for 0 log 0
    "walrus_kernel_row_reciprocal_prefix_and_nan_to_num_entropy": {
        NW: '''nadaraya_watson = lambda q, K, V: (w := (K @ q / q.shape[-1] ** .5).exp()) @ V / w.sum()
''',
        AVG: '''prefix_average_matrix = lambda T: torch.ones(T, T, dtype=torch.float64).tril() / torch.arange(1, T + 1, dtype=torch.float64)[:, None]
''',
        ENT: '''row_entropy_bits = lambda A: -(A * A.log2()).nan_to_num(0.0, 0.0, 0.0).sum(-1)

effective_tokens = lambda A: 2 ** row_entropy_bits(A)
''',
    },
    # answers as expressions that evaluate to the right letters and numbers
    "index_expression_answers_and_one_line_counts": {
        SCALE_ANS: '''ans_scale = "abcd"[(-1) ** 2]
''',
        MASK_ANS: '''ans_mask = "abcd"[-~1]
''',
        RANK: '''max_rank_S, rank_S_lesson = min(100, 8), 2
''',
        PARAMS: '''qkv_param_count = lambda d_model, d_k, d_v, with_output=False: d_model * (2 * d_k + d_v) + with_output * d_v * d_model
''',
        CROSS: '''cross_attention = lambda X, Y, W_Q, W_K, W_V, M=None: ((A := attention_weights(scaled_scores(X @ W_Q, Y @ W_K), M)) @ (Y @ W_V), A)
''',
        SHAPES_ANS: '''ans_cross_shapes = "ab"[torch.einsum("td,sd->ts", torch.ones(3, 8), torch.ones(5, 8)).shape == (3, 5)]
''',
        CAUSAL_ANS: '''ans_cross_causal = "abcd"[::-1][0]
''',
        COST_ANS: '''ans_complexity = "abcd"[True + True]
''',
    },
}

WRONG = {
    # --- q01
    "q01_star_weights_iterated_with_reversing_slice_returns_v_k_q": ({
        PROJ: '''project_qkv = lambda X, *W: tuple(X @ w for w in W[::-1])
''',
    }, {"mistake": "Unpacks the three weights with *W but iterates them as W[::-1], so the tuple comes back as "
                   "(V, K, Q): queries and values are swapped (a shape error when d_k != d_v).",
        "where": ["q01", "q07", "q09"]}),

    # --- q02
    "q02_power_one_half_without_parentheses_divides_by_half_dk": ({
        SCORES: '''scaled_scores = lambda Q, K: Q @ K.mT / Q.shape[-1] ** 1/2
''',
    }, {"mistake": "Writes sqrt(d_k) as `d_k ** 1/2`, which Python reads as (d_k ** 1) / 2: the scores are "
                   "divided by d_k / 2 instead of sqrt(d_k).",
        "where": ["q02", "q07", "q09", "q13"]}),

    # --- q03
    "q03_minus_one_squared_index_is_minus_one_answers_d": ({
        SCALE_ANS: '''ans_scale = "abcd"[-1 ** 2]   # (-1)^2 = 1 -> "b"
''',
    }, {"mistake": "Computes the letter as \"abcd\"[-1 ** 2], meaning (-1)**2 = 1, but unary minus binds looser "
                   "than **: the index is -1 and the answer is 'd' instead of 'b'.",
        "where": ["q03"]}),

    # --- q04
    "q04_tilde_on_integer_triangle_gives_minus_one_minus_two": ({
        MASK: '''causal_additive_mask = lambda T, dtype, device=None: (~torch.ones(T, T, dtype=torch.long, device=device).tril()).to(dtype) * -torch.finfo(dtype).min
''',
    }, {"mistake": "Negates an integer (long) lower triangle with `~`, which is bitwise not: 1 -> -2 and 0 -> -1, "
                   "not 1 -> 0 and 0 -> 1; the allowed entries get -2*max (-inf) and the future ones the most "
                   "negative finite value, so nothing is zero and the allowed keys are the most blocked.",
        "where": ["q04", "q07", "q09"]}),

    # --- q05
    "q05_mask_or_zero_asks_truth_value_of_tensor": ({
        WEIGHTS: '''attention_weights = lambda S, M=None: (S + (M or 0)).softmax(-1)
''',
    }, {"mistake": "Writes the optional mask as `M or 0`: with a mask tensor of more than one element Python asks "
                   "for its truth value and raises 'Boolean value of Tensor with more than one value is ambiguous'; "
                   "only the unmasked call works.",
        "where": ["q05", "q07", "q09", "q13"]}),

    # --- q07
    "q07_einsum_output_letters_reversed_returns_transposed_output": ({
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    return torch.einsum("...ts,...sd->...dt", A := attention_weights(S := scaled_scores(Q, K), causal_additive_mask(X.shape[-2], S.dtype, S.device) if causal else None), V), A
''',
    }, {"mistake": "The einsum computing A V has its output letters in the wrong order ('...dt' instead of "
                   "'...td'): the output comes back transposed, d_v x T instead of T x d_v.",
        "where": ["q07", "q09"]}),

    # --- q08
    "q08_kernel_weights_broadcast_along_value_columns": ({
        NW: '''nadaraya_watson = lambda q, K, V: ((w := (K @ q / q.shape[-1] ** .5).exp()) * V).sum(0) / w.sum()
''',
    }, {"mistake": "Multiplies the (n,) kernel weights into the (n, d_v) values without [:, None], so they "
                   "broadcast along the value columns, not the key rows: a shape error unless n == d_v, and "
                   "when n == d_v each column j is weighted by kappa_j, giving a wrong average.",
        "where": ["q08"]}),

    # --- q09
    "q09_chained_comparison_on_index_tensors_raises": ({
        AVG: '''prefix_average_matrix = lambda T: (W := (0 <= torch.arange(T)[None, :] <= torch.arange(T)[:, None]).double()) / W.sum(-1, keepdim=True)
''',
    }, {"mistake": "Builds the triangle with the chained comparison 0 <= j <= i on tensors; Python expands it to "
                   "(0 <= j) and (j <= i), which asks for the truth value of a tensor and raises for T > 1.",
        "where": ["q09"]}),

    # --- q10
    "q10_boolean_index_flattens_rows_before_sum": ({
        ENT: '''row_entropy_bits = lambda A: -(A * A.log2())[A > 0].sum(-1)

effective_tokens = lambda A: 2 ** row_entropy_bits(A)
''',
    }, {"mistake": "Drops the 0 log 0 terms with the boolean index x[A > 0], which returns a flat 1-D tensor: "
                   "sum(-1) then adds the entropies of all rows into one number instead of one per row.",
        "where": ["q10"]}),

    # --- q11
    "q11_sorted_tuple_unpacking_swaps_the_two_ranks": ({
        RANK: '''max_rank_S, rank_S_lesson = sorted((min(100, 8), 2))
''',
    }, {"mistake": "Unpacks the two answers from sorted(...), which orders them ascending: max_rank_S gets 2 and "
                   "rank_S_lesson gets 8.",
        "where": ["q11"]}),

    # --- q12
    "q12_long_product_without_parentheses_adds_bare_d_v": ({
        PARAMS: '''qkv_param_count = lambda d_model, d_k, d_v, with_output=False: d_model * 2 * d_k + d_v + with_output * d_v * d_model
''',
    }, {"mistake": "Writes d_model * (2 d_k + d_v) without parentheses: only 2 d_k is multiplied by d_model, "
                   "and W_V counts d_v parameters instead of d_model * d_v.",
        "where": ["q12"]}),

    # --- q13
    "q13_star_unpacked_project_qkv_of_x_ignores_y": ({
        CROSS: '''cross_attention = lambda X, Y, W_Q, W_K, W_V, M=None: (lambda Q, K, V: ((A := attention_weights(scaled_scores(Q, K), M)) @ V, A))(*project_qkv(X, W_Q, W_K, W_V))
''',
    }, {"mistake": "Reuses project_qkv by *-unpacking it into an inner lambda, but project_qkv projects X three "
                   "times: keys and values come from X instead of Y, so it is self-attention (a shape error "
                   "with a T x T' mask).",
        "where": ["q13"]}),

    # --- q14
    "q14_einsum_shape_probe_with_swapped_output_answers_a": ({
        SHAPES_ANS: '''ans_cross_shapes = "ab"[torch.einsum("td,sd->st", torch.ones(3, 8), torch.ones(5, 8)).shape == (3, 5)]
''',
    }, {"mistake": "Decides with a one-line einsum probe whose output letters are swapped ('st' instead of 'ts'): "
                   "the probe's shape is (5, 3), the test is False and the answer is 'a' instead of 'b'.",
        "where": ["q14"]}),

    # --- q15
    "q15_double_reversal_last_letter_picks_a": ({
        CAUSAL_ANS: '''ans_cross_causal = "abcd"[::-1][-1]   # the last option
''',
    }, {"mistake": "Means the last option but writes \"abcd\"[::-1][-1]: reversing and then taking the last "
                   "element gives the first letter, 'a' (always) instead of 'd'.",
        "where": ["q15"]}),
}
