"""Blind held-out set 75 for attention-pipeline.

Seventy-fifth blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, its diagnosis code, the reference solution, `variants.py`, the naming
tests or `measure.py`, and without running the grader on these variants. What was read: the student-facing
text of attention-pipeline.ipynb (as it appears in full_marks.ipynb), the solution cells of full_marks.ipynb,
`harness.py`, blind73.py (for the format and the docstring), and only the variant names of the earlier blind
sets (to avoid repeating a mistake in the same form).

Round 75's angle: SLIPS OF THE HAND IN OTHERWISE RIGHT CODE. The student knows every formula and mistypes one
token: the K line copied from the Q line with W_Q left in (q01); d_k read from shape[-2] instead of shape[-1],
so the scores are divided by sqrt(T_q) (q02); b and d, mirror letters, confused (q03); a minus sign typed twice
so blocked entries hold +finfo.max (q04); the masked sum stored as `score` and the softmax taken of `S`
(q05); the third option computed as chr(ord("a") + 3) (q06); the mask sized with X.shape[-1] instead of
X.shape[-2] (q07); a parenthesis closed before the scale, so 1/sqrt(d_k) divides the kernel (and cancels)
instead of the exponent (q08); the prefix normaliser summed over dim=-2 instead of -1 (q09); the leading
minus of the entropy dropped (q10); max() typed for min() in the rank bound (q11); the parentheses of
d_model * (2 d_k + d_v) dropped (q12); K stored already transposed and then transposed again by
scaled_scores (q13); the prime on T' overlooked in option d (q14).

Public material found with the `search` tool, and what it showed:
- stevezheng23/sequence_labeling_tf#81 and stevezheng23/reading_comprehension_tf#284 ("fix query/key/value
  project matrix reuse issue"), zacjiang/GMA#22 (query and key maps that turn out to be one map): the copied
  projection line of q01.
- stackoverflow.com/questions/936904 ("Why does ** bind more tightly than negation?") and the Python reference
  on the power operator: how precedence slips hide in one-line formulas; used for the parenthesis slips of
  q08 and q12, and for the correct variants whose `Q.shape[-1] ** 0.5` and `-(...)` look odd but are right.
- The other kinds follow the brief's list of hand slips: an index typed one off (q02, q07, q09, q06), a sign
  dropped or doubled (q04, q10), a near-miss name (q05 `score`/`S`, q11 `max`/`min`), a transposition applied
  twice (q13), a misread or mirrored letter (q03, q14).

The correct variants look like ordinary student code with odd but right spellings: a scale written
`Q.shape[-1] ** 0.5` (a Python float, ** before /), cross-attention through project_qkv called twice with
the unused outputs thrown away, a mask made by triu(1) of a finfo.min-filled tensor, the masked sum stored in
`score` and that name used, scores built as scaled_scores(K, Q) transposed back, an entropy written
`-((A * logs).sum(-1))`, and answers computed from min() and a letters string indexed from 0.

Every variant was checked with a throwaway script under /tmp/w75-attention-pipeline/: each variant's notebook
built with harness.build_notebook and run top to bottom (all code cells but otter's), then every function
compared with plain torch (torch.softmax of S + M, F.scaled_dot_product_attention, the notebook's formulas)
on unbatched, batched and 4-D inputs, batch of size 1, T_q != T_k, d_k != d_v, float64, float32, float16,
causal masks, padding masks and a fully blocked row; every written answer compared with the right letter or
integer. The correct variants agree everywhere; each wrong variant differs in its own questions and only in
those listed in "where".

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
    # a power-spelled scale (a Python float) and cross-attention through project_qkv twice
    "pow_half_scale_and_cross_via_two_project_calls": {
        SCORES: '''def scaled_scores(Q, K):
    return Q @ K.transpose(-1, -2) / Q.shape[-1] ** 0.5
''',
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, _, _ = project_qkv(X, W_Q, W_K, W_V)
    _, K, V = project_qkv(Y, W_Q, W_K, W_V)
    A = attention_weights(scaled_scores(Q, K), M)
    O = A @ V
    return O, A
''',
    },

    # a mask from triu(1) of a finfo.min tensor, the masked sum kept in `score` and used
    "triu_of_full_min_mask_and_score_name_reused": {
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    M = torch.full((T, T), torch.finfo(dtype).min, dtype=dtype, device=device)
    return torch.triu(M, diagonal=1)
''',
        WEIGHTS: '''def attention_weights(S, M=None):
    score = S if M is None else S + M
    return torch.softmax(score, dim=-1)
''',
    },

    # scores built keys-first and transposed back; the kernel written with q on the left
    "keys_first_scores_transposed_back_and_row_vector_kernel": {
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(K, Q).transpose(-1, -2)
    T = X.shape[-2]
    M = causal_additive_mask(T, S.dtype, S.device) if causal else None
    A = attention_weights(S, M)
    O = A @ V
    return O, A
''',
        NW: '''def nadaraya_watson(q, K, V):
    d_k = K.shape[-1]
    kappa = torch.exp((q @ K.transpose(-2, -1)) / math.sqrt(d_k))
    return (kappa @ V) / kappa.sum()
''',
    },

    # bracketed negation, exp2, reciprocal row numbers, a spelled-out count and computed answers
    "bracketed_negated_entropy_and_computed_small_answers": {
        AVG: '''def prefix_average_matrix(T):
    t = torch.arange(1, T + 1, dtype=torch.float64)
    return torch.tril(torch.ones(T, T, dtype=torch.float64)) / t[:, None]
''',
        ENT: '''def row_entropy_bits(A):
    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))
    return -((A * logs).sum(dim=-1))


def effective_tokens(A):
    return torch.exp2(row_entropy_bits(A))
''',
        RANK: '''d_k, T = 8, 100
max_rank_S = min(d_k, T)

rank_S_lesson = 2
''',
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    return d_model * (d_k + d_k + d_v) + (d_v * d_model if with_output else 0)
''',
        COST_ANS: '''options = "abcd"
ans_complexity = options[2]
''',
    },

    # a projection that names each matrix on its own line
    "one_line_per_projection": {
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    Q = X @ W_Q
    K = X @ W_K
    V = X @ W_V
    return (Q, K, V)
''',
        SHAPES_ANS: '''ans_cross_shapes = "b"  # S: T x T', O: T x d_v
''',
    },
}

WRONG = {
    # --- q01: the K line copied from the Q line
    "q01_key_line_copied_from_query_line_keeps_w_q": ({
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    Q = X @ W_Q
    K = X @ W_Q
    V = X @ W_V
    return Q, K, V
''',
    }, {"mistake": "The K line was copied from the Q line and W_Q was not changed to W_K, so K = X W_Q (equal "
                   "to Q) and every score is q_t . q_i instead of q_t . k_i.",
        "where": ["q01", "q07"]}),

    # --- q02: d_k read from the wrong axis
    "q02_head_width_read_from_shape_minus_two": ({
        SCORES: '''def scaled_scores(Q, K):
    d_k = Q.shape[-2]
    return Q @ K.transpose(-2, -1) / math.sqrt(d_k)
''',
    }, {"mistake": "Reads d_k as Q.shape[-2] (one index off), which is the number of queries T_q, so the "
                   "scores are divided by sqrt(T_q) instead of sqrt(d_k).",
        "where": ["q02", "q07", "q13"]}),

    # --- q03: mirror letters
    "q03_mirror_letter_d_typed_for_b": ({
        SCALE_ANS: '''ans_scale = "d"  # rows collapse onto one key
''',
    }, {"mistake": "The comment gives the right reasoning (each row collapses onto one key, option b) but the "
                   "letter typed is its mirror image 'd' (entropies become negative), so the answer is wrong.",
        "where": ["q03"]}),

    # --- q04: a minus sign typed twice
    "q04_minus_typed_before_finfo_min_gives_plus_max": ({
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    future = torch.triu(torch.ones(T, T, dtype=torch.bool, device=device), diagonal=1)
    M = torch.zeros(T, T, dtype=dtype, device=device)
    M[future] = -torch.finfo(dtype).min
    return M
''',
    }, {"mistake": "A minus sign is typed in front of finfo(dtype).min (the student thinks 'negative number'), "
                   "so blocked entries hold +finfo.max: the future keys get all the weight instead of none.",
        "where": ["q04", "q07", "q09"]}),

    # --- q05: score / S name slip
    "q05_masked_sum_stored_as_score_softmax_of_unmasked_s": ({
        WEIGHTS: '''def attention_weights(S, M=None):
    score = S
    if M is not None:
        score = S + M
    return torch.softmax(S, dim=-1)
''',
    }, {"mistake": "Stores the masked scores in `score` but takes the softmax of `S`, so the mask is never "
                   "applied: blocked keys get weight and causal rows are not lower-triangular.",
        "where": ["q05", "q07", "q09", "q13"]}),

    # --- q06: off-by-one letter offset
    "q06_third_option_as_ord_a_plus_three_gives_d": ({
        MASK_ANS: '''ans_mask = chr(ord("a") + 3)  # the third option
''',
    }, {"mistake": "Wants the third option (c, the model reads the token it must predict) but computes "
                   "chr(ord('a') + 3), one past it, which is 'd'.",
        "where": ["q06"]}),

    # --- q07: mask sized from the feature axis
    "q07_mask_length_from_last_axis_d_model": ({
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    M = causal_additive_mask(X.shape[-1], S.dtype, S.device) if causal else None
    A = attention_weights(S, M)
    return A @ V, A
''',
    }, {"mistake": "Sizes the causal mask with X.shape[-1] (d_model) instead of X.shape[-2] (T), so with "
                   "causal=True the mask does not match the T x T scores: a broadcast error (or a wrong mask "
                   "when T happens to equal d_model).",
        "where": ["q07", "q09"]}),

    # --- q08: the parenthesis closed before the scale
    "q08_paren_closed_before_scale_divides_kernel_not_exponent": ({
        NW: '''def nadaraya_watson(q, K, V):
    kappa = torch.exp(K @ q) / math.sqrt(q.shape[-1])
    return (kappa[:, None] * V).sum(dim=0) / kappa.sum()
''',
    }, {"mistake": "The exp( ... ) parenthesis is closed before the / sqrt(d_k), so the scale divides the kernel "
                   "weights (and cancels in the ratio) instead of the exponent: the result is the unscaled "
                   "exp(q . k) average.",
        "where": ["q08"]}),

    # --- q09: normaliser over the wrong axis
    "q09_row_counts_summed_with_dim_minus_two": ({
        AVG: '''def prefix_average_matrix(T):
    W = torch.tril(torch.ones(T, T, dtype=torch.float64))
    return W / W.sum(dim=-2, keepdim=True)
''',
    }, {"mistake": "Sums the triangle over dim=-2 (column counts T - j) instead of dim=-1 (row counts t), so "
                   "the rows do not hold 1/t and do not sum to 1.",
        "where": ["q09"]}),

    # --- q10: the leading minus dropped
    "q10_leading_minus_of_entropy_dropped": ({
        ENT: '''def row_entropy_bits(A):
    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))
    return (A * logs).sum(dim=-1)


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
''',
    }, {"mistake": "The minus sign in front of the sum is dropped, so the entropies come out as -H (zero or "
                   "negative) and effective_tokens gives 2^-H instead of 2^H.",
        "where": ["q10"]}),

    # --- q11: max for min
    "q11_max_typed_for_min_in_rank_bound": ({
        RANK: '''d_k, T = 8, 100
max_rank_S = max(d_k, T)

rank_S_lesson = 2
''',
    }, {"mistake": "Writes the bound rank S <= min(d_k, T) with max() typed for min(), so max_rank_S is 100 "
                   "instead of 8.",
        "where": ["q11"]}),

    # --- q12: parentheses dropped
    "q12_parentheses_dropped_value_width_added_once": ({
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    n = d_model * 2 * d_k + d_v
    if with_output:
        n += d_v * d_model
    return n
''',
    }, {"mistake": "The parentheses of d_model * (2 d_k + d_v) are dropped, so W_V counts d_v weights instead of "
                   "d_model * d_v: 49216 instead of 73728 for the lesson's d_model = 384, d_k = d_v = 64.",
        "where": ["q12"]}),

    # --- q13: a transposition applied twice
    "q13_keys_stored_transposed_then_transposed_again_by_scaled_scores": ({
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q = X @ W_Q
    K_T = (Y @ W_K).transpose(-2, -1)
    V = Y @ W_V
    A = attention_weights(scaled_scores(Q, K_T), M)
    return A @ V, A
''',
    }, {"mistake": "Stores the keys already transposed (K^T, d_k x T') and passes them to scaled_scores, which "
                   "transposes again: Q is multiplied by K^T^T, a shape error unless T' = d_k, and wrong "
                   "scores when it is.",
        "where": ["q13"]}),

    # --- q14: the prime overlooked
    "q14_prime_on_output_rows_overlooked_picks_last_match_d": ({
        SHAPES_ANS: '''ans_cross_shapes = "d"  # S is T x T', O has one row per query
''',
    }, {"mistake": "The comment has the right shapes (S: T x T', one output row per query: option b) but the "
                   "prime on O's T' in option d was overlooked and the last matching option was typed: 'd'.",
        "where": ["q14"]}),
}
