"""Blind held-out set 37 for attention-pipeline.

Thirty-seventh blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, its diagnosis code, the reference solution, `variants.py`, the naming
tests or `measure.py`, and without running the grader (`autograder grade`, `tests.heldout.measure`) on these
variants. What was read: the student-facing text and solution cells of the master notebook,
full_marks.ipynb (whose cells these replace), `harness.py`, the lesson text `lesson-08-attention-pipeline.txt`
(its rlab code and the remark that blocked entries only need a per-dtype finite stand-in for -inf),
blind36.py in full (for the format) and only the module docstrings and variant names of the earlier blind
sets (to lean on less-touched questions and not repeat a mistake an earlier name shows).

Public sources used (the `search` tool, code / issues / docs corpora):
- lucidrains/memory-compressed-attention issue #2: a causal fill written `-float('-inf')`, i.e. +inf, a sign
  slip on the blocked value (here `-torch.finfo(dtype).min` written inline in self_attention);
- the TensorFlow / Keras docs of tf.keras.layers.MultiHeadAttention (tensorflow.org api_docs), whose layer
  is called `layer(query, value, key)`: value before key, the reverse of torch's (query, key, value);
- bayesiains/nflows issue #86 (`isinstance(np.int64(6), int)` is False) and numpy/numpy issue #10913
  (np.prod returns a NumPy integer of the platform width), for a count built with np.prod;
- pytorch/pytorch PR #131060 and issue #103749 (fully blocked rows turning into NaN once a finite fill
  becomes -inf), for the half-precision softmax; AndrewSukhobok95/discrete_latents_for_text_to_image_gen
  modules/common_utils.py and Zenasj/HBTGen-artifact data/pytorch-issue/issue_29546.py (masked_fill with
  float("-inf") in generate_square_subsequent_mask), for
  the correct variant that fills -inf and clamps it back to finfo.min;
- NumPy's own `np.dot` on torch tensors (checked here: it silently returns numpy.ndarray).
Variants carrying a slip seen there name the source in a comment.

Round 37 leans on the questions the earlier sets touched least (the multiple-choice q03, q06, q14, q15, q16,
and q11, q12, q01) and on code shapes not used before: np.dot on tensors, a reshape taken for a transpose,
an inline masked_fill with the sign of finfo.min flipped, in-place edits of the caller's V (q08) and M (q13),
Keras's (query, value, key) order, a softmax run in half precision, len() of a boolean tensor, np.prod
giving a NumPy integer, and answers of the wrong kind (a zero-based option index, a one-element list, a
one-based index into "abcd", the option's text, a big-O formula). Each wrong variant changes one cell of an
otherwise full-marks notebook and holds exactly one mistake; `where` lists every question whose tests may
lose points (q07, q09's zero-projection test and q13's self-attention check call project_qkv /
scaled_scores / attention_weights through self_attention; q05's and q10's public checks call
scaled_scores and attention_weights). Every variant was checked against plain torch (`torch.softmax`,
`torch.nn.functional.scaled_dot_product_attention`, the lesson's formula, the full-marks cells) on several
shapes and dtypes (float64, float32, float16; batched; d_k != d_v; T_q != T_k; the lesson's inputs) with a
throwaway script under /tmp before it was written down.

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
    "bound_matmul_map_projection": {
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    # X.matmul is X @ (.); map applies it to each weight matrix in turn
    return tuple(map(X.matmul, (W_Q, W_K, W_V)))
''',
    },
    # masked_fill with float('-inf') as in the public subsequent_mask helpers, then clamped to finfo.min
    "minus_inf_fill_clamped_to_finfo_min_mask": {
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    future = torch.ones(T, T, dtype=torch.bool, device=device).triu(diagonal=1)
    M = torch.zeros(T, T, dtype=dtype, device=device).masked_fill(future, float("-inf"))
    return M.clamp(min=torch.finfo(dtype).min)   # -inf -> most negative finite number, 0 stays 0
''',
    },
    "prefix_average_from_zero_projection_attention": {
        AVG: '''def prefix_average_matrix(T):
    # Section 7: with W_Q = W_K = 0 every score is 0, so causal attention is the prefix average
    X = torch.zeros(T, 1, dtype=torch.float64)
    W = torch.zeros(1, 1, dtype=torch.float64)
    _, A = self_attention(X, W, W, W, causal=True)
    return A
''',
    },
    "nan_to_num_neginf_log_entropy_ldexp": {
        ENT: '''def row_entropy_bits(A):
    # log2(0) = -inf; nan_to_num turns it into the dtype's most negative finite number, and 0 * that = 0
    logs = torch.log2(A).nan_to_num()
    return -(A * logs).sum(dim=-1)


def effective_tokens(A):
    H = row_entropy_bits(A)
    return torch.ldexp(torch.ones_like(H), H)   # 1 * 2 ** H
''',
    },
    "letters_computed_as_numpy_and_python_strings": {
        SCALE_ANS: '''import numpy as np

ans_scale = np.array(["a", "b", "c", "d"])[1]   # a NumPy string, still a str equal to "b"
''',
        SHAPES_ANS: '''ans_cross_shapes = "abcd"[1]
''',
        CAUSAL_ANS: '''ans_cross_causal = chr(ord("a") + 3)
''',
        COST_ANS: '''ans_complexity = "C".lower()
''',
    },
}

WRONG = {
    "q01_numpy_dot_returns_arrays": ({
        PROJ: '''import numpy as np


def project_qkv(X, W_Q, W_K, W_V):
    # NumPy habit: np.dot(X, W) is the product of every row of X with W
    return np.dot(X, W_Q), np.dot(X, W_K), np.dot(X, W_V)
''',
    }, {"mistake": "Uses np.dot on torch tensors: the numbers are X @ W but they come back as numpy.ndarray, "
                   "not tensors (and fail on a GPU or with gradients), so the pipeline that transposes them "
                   "with .transpose(-2, -1) and asks torch.finfo for their dtype breaks.",
        "where": ["q01", "q07", "q09", "q13"]}),

    "q02_keys_reshaped_instead_of_transposed": ({
        SCORES: '''def scaled_scores(Q, K):
    d_k = Q.shape[-1]
    K_t = K.reshape(*K.shape[:-2], d_k, K.shape[-2])   # (..., d_k, T_k)
    return Q @ K_t / math.sqrt(d_k)
''',
    }, {"mistake": "Gets K^T with reshape (a view of the same memory read in a new shape) instead of "
                   "transpose: the shape is (d_k, T_k) but the entries are scrambled, so the scores are "
                   "wrong whenever T_k > 1 and d_k > 1.",
        "where": ["q02", "q05", "q07", "q09", "q10", "q13"]}),

    "q03_zero_based_option_index": ({
        SCALE_ANS: '''ans_scale = 1   # options a, b, c, d -> b is index 1
''',
    }, {"mistake": "Gives the position of option b in a zero-based list (the integer 1) instead of the "
                   "letter 'b'.",
        "where": ["q03"]}),

    "q05_softmax_computed_in_half_precision": ({
        WEIGHTS: '''def attention_weights(S, M=None):
    if M is not None:
        S = S + M
    # the softmax runs in half precision (as under mixed precision) and is cast back to S's dtype
    return torch.softmax(S.half(), dim=-1).to(S.dtype)
''',
    }, {"mistake": "Casts the scores to float16 before the softmax: float32 / float64 weights keep only "
                   "about 3 significant digits, and a blocked entry (finfo(float32).min) becomes -inf in "
                   "half, so a fully blocked row turns into NaN.",
        "where": ["q05", "q07", "q09", "q10", "q13"]}),

    "q06_letter_inside_a_list": ({
        MASK_ANS: '''ans_mask = ["c"]
''',
    }, {"mistake": "Puts the right letter inside a one-element list; the answer must be the string 'c'.",
        "where": ["q06"]}),

    # sign slip on the fill value, as in lucidrains/memory-compressed-attention issue #2 (-float('-inf'))
    "q07_inline_fill_with_minus_finfo_min": ({
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    if causal:
        T = S.shape[-1]
        future = torch.triu(torch.ones(T, T, dtype=torch.bool, device=S.device), diagonal=1)
        S = S.masked_fill(future, -torch.finfo(S.dtype).min)
    A = attention_weights(S)
    return A @ V, A
''',
    }, {"mistake": "Fills the future entries with -torch.finfo(dtype).min, the most POSITIVE finite number "
                   "(finfo.min is already negative): every row except the last puts all its weight on the "
                   "future tokens, A is upper- instead of lower-triangular.",
        "where": ["q07", "q09", "q13"]}),

    "q08_values_weighted_in_place": ({
        NW: '''def nadaraya_watson(q, K, V):
    kappa = torch.exp(K @ q / math.sqrt(q.shape[-1]))
    V *= kappa[:, None]          # weight every value by its kernel
    return V.sum(dim=0) / kappa.sum()
''',
    }, {"mistake": "Multiplies the caller's V by the kernel weights in place (V *= ...): the first result "
                   "is right but V is overwritten, so the next call with the same values (or an overlapping "
                   "slice V[:t]) averages already-weighted values.",
        "where": ["q08"]}),

    "q11_len_of_a_boolean_mask": ({
        RANK: '''K_lesson = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]], dtype=torch.float64)
Q_lesson = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]], dtype=torch.float64)

max_rank_S = 8
singular = torch.linalg.svdvals(Q_lesson @ K_lesson.T / math.sqrt(4))
rank_S_lesson = len(singular > 1e-10)   # count the non-zero singular values
''',
    }, {"mistake": "Counts the non-zero singular values with len() of the boolean tensor, which is its "
                   "length (5), not the number of True entries (2); it needs .sum().",
        "where": ["q11"]}),

    # np.prod gives a NumPy integer: bayesiains/nflows issue #86, numpy/numpy issue #10913
    "q12_np_prod_returns_numpy_integer": ({
        PARAMS: '''import numpy as np


def qkv_param_count(d_model, d_k, d_v, with_output=False):
    shapes = [(d_model, d_k), (d_model, d_k), (d_model, d_v)]
    if with_output:
        shapes.append((d_v, d_model))
    return sum(np.prod(s) for s in shapes)
''',
    }, {"mistake": "Multiplies the shapes with np.prod, so the count is a numpy.int64 (isinstance(n, int) "
                   "is False) instead of a Python int; the value is right, the kind is not.",
        "where": ["q12"]}),

    "q13_scores_added_onto_callers_mask_in_place": ({
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    S = scaled_scores(Q, K)
    if M is not None:
        S = M.add_(S)            # add the scores onto the mask
    A = attention_weights(S)
    return A @ V, A
''',
    }, {"mistake": "Adds the scores into the caller's mask in place (M.add_(S)): M is overwritten with "
                   "S + M, so a second call with the same mask is wrong, and with batched inputs the "
                   "(T, T') mask cannot hold the (..., T, T') sum and it raises.",
        "where": ["q13"]}),

    # Keras's tf.keras.layers.MultiHeadAttention is called as layer(query, value, key)
    "q13_keras_query_value_key_order": ({
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    # Keras order: query, value, key
    Q, V, K = X @ W_Q, Y @ W_K, Y @ W_V
    A = attention_weights(scaled_scores(Q, K), M)
    return A @ V, A
''',
    }, {"mistake": "Follows Keras's (query, value, key) order and so projects the keys with W_V and the "
                   "values with W_K: the scores and outputs are wrong, and when d_v != d_k the shapes no "
                   "longer match.",
        "where": ["q13"]}),

    "q14_one_based_index_into_letters": ({
        SHAPES_ANS: '''ans_cross_shapes = "abcd"[2]   # the second option
''',
    }, {"mistake": "Picks the second option with a one-based index into 'abcd', which gives 'c' "
                   "(S: T' x T) instead of 'b'.",
        "where": ["q14"]}),

    "q15_option_text_instead_of_letter": ({
        CAUSAL_ANS: '''ans_cross_causal = "Only when positions in X and in Y lie on one shared time axis"
''',
    }, {"mistake": "Pastes the text of option d instead of its letter; the answer must be 'd'.",
        "where": ["q15"]}),

    "q16_big_o_formula_instead_of_letter": ({
        COST_ANS: '''ans_complexity = "O(T^2)"
''',
    }, {"mistake": "Writes the complexity as a big-O formula instead of the letter of the option; the "
                   "answer is c (quadratic).",
        "where": ["q16"]}),
}
