"""Blind held-out set 45 for attention-pipeline.

Forty-fifth blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, its diagnosis code, the reference solution, `variants.py`, the naming
tests or `measure.py`, and without running the grader (`autograder grade`, `tests.heldout.measure`) on these
variants. What was read: the student-facing text and solution cells of the master notebook (including its
public checks: the multiple-choice answers must be a str that is one letter after strip().lower(); the q11
answers Python ints; qkv_param_count(6, 4, 4) == 72 and qkv_param_count(6, 4, 4, with_output=True) > 72;
the q09 check that self_attention with zero query and key projections returns prefix_average_matrix(5);
the q10 check that row_entropy_bits(prefix_average_matrix(4)) is log2(t); the q13 check that
cross-attention with Y = X equals self_attention(..., causal=False) in A), full_marks.ipynb (whose cells
these replace), `harness.py`, the lesson text `lesson-08-attention-pipeline.txt` (its rank paragraph:
rank(S) = rank(S2) = 2, so the pipeline example is no trap), blind44.py in full (for the format) and only
the module docstrings and variant names of the earlier blind sets (to lean on the less-touched questions
and not repeat a mistake an earlier name shows).

Public sources used (the `search` tool, pages / docs / issues corpora):
- byhand.ai "Self Attention" (https://www.byhand.ai/p/library-models-attention-self-attention): tokens as
  columns, "F = V x A", so the weights there have one row per key and one column per query; for a q14
  experiment done in that column convention, whose S = K^T Q is T' x T;
- the NumPy einsum docs (numpy.org numpy.einsum; docs.rs einsum-codegen `Subscripts`: "in implicit mode ...
  the axes of the output are reordered alphabetically ... np.einsum('ij,jh', a, b) returns the transpose"),
  for a q14 experiment whose implicit-mode einsum "td,sd" comes out (T', T);
- the "key with maximum value in a dictionary" pages (newbe.dev copy of the Stack Overflow question,
  cs50.stackexchange 40277: `max(d, key=d.get)`; a bare `max(d)` compares the keys), for a q06 answer;
- the argparse `type=bool` pages (note.nkmk.me python-argparse-bool, codemia.io, freshrimpsushi
  "bool('False') is True", buildsoftwaresystems.com python-string-bool-bug), for a q06 experiment whose
  "switch the mask off" flag is the string "False";
- pytorch/pytorch issue #50378 and tristandeleu/pytorch-maml-rl issue #32 (`Categorical(logits=...)` vs
  `probs=`: "should not it be Categorical(logits) since logits means the probability?"), for a q10 entropy
  taken from Categorical(logits=A);
- the numpy.polyfit docs (polyfit(x, y, deg) fits y as a polynomial in x), for a q16 log-log fit with the
  two axes swapped;
- the F.scaled_dot_product_attention signature (`is_causal=`), whose keyword a q07 variant copies.
Variants carrying a slip seen there name the source in a comment.

Round 45 leans on the questions the earlier sets touched least (q14, q06 twice each; q15, q03, q16, q11,
q12, q09) and on code shapes not used before: a q14 experiment in the column convention (S = K^T Q), a q14
experiment with an implicit-mode einsum, a q15 answer taken from a list of all multiple-choice answers with
an index counted from one, a q06 answer from `max` over a dict of confidences (largest key, not largest
value), a q06 experiment whose `"False"` string flag keeps the mask on, a q03 experiment with queries and
keys of unit length instead of unit-variance components, a q16 log-log fit with x and y swapped (slope
1/2), a q11 bound from `np.minimum` (a numpy.int64), a q12 `=+` typo, a q07 flag renamed `is_causal` after
SDPA, a q09 column of counts made with `.T` on a 1-D tensor (a no-op), a q04 mask comparing 0-based key
positions with 1-based query positions, a q10 entropy from Categorical(logits=A), and a q13 mask cast with
`.to(dtype)` without a None check. Each wrong variant changes one cell of an otherwise full-marks notebook
and holds exactly one mistake; `where` lists every question whose tests may lose points. Experiment cells
draw from their own torch.Generator, so they do not move the global random state. Every variant was checked
against plain torch (`torch.softmax`, `torch.nn.functional.scaled_dot_product_attention`, the lesson's
formula and numbers, the full-marks cells) on several shapes and dtypes (float64, float32, float16; batched;
d_k != d_v; T_q != T_k; the lesson's inputs) with a throwaway script under /tmp/w45ap_c7q/ before it was
written down.

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
    # one fused matmul split by widths (a tuple of views); the scores by einsum times the reciprocal scale;
    # an upper-case letter
    "fused_split_projection_einsum_reciprocal_scores": {
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    widths = [W_Q.shape[-1], W_K.shape[-1], W_V.shape[-1]]
    QKV = torch.matmul(X, torch.cat([W_Q, W_K, W_V], dim=-1))
    return tuple(QKV.split(widths, dim=-1))
''',
        SCORES: '''def scaled_scores(Q, K):
    return torch.einsum("...qd,...kd->...qk", Q, K) * (1.0 / math.sqrt(Q.shape[-1]))
''',
        SCALE_ANS: '''ans_scale = "B"
''',
    },
    # mask from compared positions through torch.where on 0-dim tensors of the dtype; a hand-written
    # softmax shifted by amax; the q15 letter picked from a list of answers with the right 0-based index
    "where_mask_amax_softmax_and_listed_answers": {
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    pos = torch.arange(T, device=device)
    blocked = pos.unsqueeze(0) > pos.unsqueeze(1)          # key index > query index
    low = torch.tensor(torch.finfo(dtype).min, dtype=dtype, device=device)
    return torch.where(blocked, low, torch.zeros((), dtype=dtype, device=device))
''',
        WEIGHTS: '''def attention_weights(S, M=None):
    Z = S if M is None else S + M
    Z = Z - Z.amax(dim=-1, keepdim=True)
    E = torch.exp(Z)
    return E / E.sum(dim=-1, keepdim=True)
''',
        CAUSAL_ANS: '''# my multiple-choice answers, in question order: q03, q06, q14, q15, q16
_MC = ["b", "c", "b", "d", "c"]
ans_cross_causal = _MC[3]
''',
    },
    # entropy with xlogy (xlogy(0, 0) = 0) and 2^H as e^(H in nats); the count as a sum over the shapes
    "xlogy_entropy_exp_of_nats_and_shape_sum_count": {
        ENT: '''def row_entropy_bits(A):
    return -torch.special.xlogy(A, A).sum(dim=-1) / math.log(2)


def effective_tokens(A):
    return torch.exp(-torch.special.xlogy(A, A).sum(dim=-1))
''',
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    shapes = [(d_model, d_k), (d_model, d_k), (d_model, d_v)] + ([(d_v, d_model)] if with_output else [])
    return sum(rows * cols for rows, cols in shapes)
''',
    },
    # kernel weights as a softmax over the keys, then a vector-matrix product; the prefix average as the
    # lower triangle times a column of reciprocals
    "softmax_kernel_and_reciprocal_column_prefix": {
        NW: '''def nadaraya_watson(q, K, V):
    w = torch.softmax(K @ q / math.sqrt(q.shape[-1]), dim=0)
    return w @ V
''',
        AVG: '''def prefix_average_matrix(T):
    inv = torch.arange(1, T + 1, dtype=torch.float64).reciprocal()
    return torch.ones(T, T, dtype=torch.float64).tril() * inv.unsqueeze(-1)
''',
    },
    # the mask added only when causal; einsum for the cross-attention mix; the bound from np.minimum cast
    # to int; the letter from max(d, key=d.get)
    "conditional_mask_einsum_cross_int_numpy_bound_and_dict_argmax": {
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    if causal:
        S = S + causal_additive_mask(Q.shape[-2], S.dtype, S.device)
    A = attention_weights(S)
    return torch.matmul(A, V), A
''',
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q = X @ W_Q
    _, K, V = project_qkv(Y, W_Q, W_K, W_V)
    A = attention_weights(scaled_scores(Q, K), M)
    return torch.einsum("...qk,...kv->...qv", A, V), A
''',
        RANK: '''import numpy as np

max_rank_S = int(np.minimum(8, 100))

_K = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]], dtype=torch.float64)
_Q = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]], dtype=torch.float64)
rank_S_lesson = int(torch.linalg.matrix_rank(scaled_scores(_Q, _K)))
''',
        COST_ANS: '''_confidence = {"a": 0.05, "b": 0.0, "c": 0.9, "d": 0.05}
ans_complexity = max(_confidence, key=_confidence.get)
''',
    },
}

WRONG = {
    # byhand.ai "Self Attention": tokens are columns and "F = V x A" (one row of A per key)
    "q14_experiment_in_column_convention_scores_keys_by_queries": ({
        SHAPES_ANS: '''_g = torch.Generator().manual_seed(0)
_T, _Tp, _d_model, _d_k, _d_v = 5, 3, 6, 4, 2
# column convention (as in the "by hand" worksheets): every token is a column
_X = torch.randn(_d_model, _T, generator=_g)
_Y = torch.randn(_d_model, _Tp, generator=_g)
_Wq = torch.randn(_d_k, _d_model, generator=_g)
_Wk = torch.randn(_d_k, _d_model, generator=_g)
_Wv = torch.randn(_d_v, _d_model, generator=_g)
_Q, _K, _V = _Wq @ _X, _Wk @ _Y, _Wv @ _Y
_S = _K.T @ _Q / math.sqrt(_d_k)
_A = torch.softmax(_S, dim=0)
_O = _V @ _A
_names = {_T: "T", _Tp: "T'", _d_v: "d_v"}
_S_shape = tuple(_names[n] for n in _S.shape)
ans_cross_shapes = {("T", "T"): "a", ("T", "T'"): "b", ("T'", "T"): "c"}[_S_shape]
''',
    }, {"mistake": "Reads the shape of S off an experiment written in the column convention, where S = K^T Q "
                   "has one row per key (T' x T), and answers 'c'; with tokens as rows, as the notebook "
                   "defines them, S = QK^T is T x T' and O is T x d_v ('b').",
        "where": ["q14"]}),

    # numpy.einsum docs: in implicit mode the output axes are sorted alphabetically
    "q14_experiment_with_implicit_einsum_output": ({
        SHAPES_ANS: '''_g = torch.Generator().manual_seed(0)
_T, _Tp, _d = 5, 3, 4
_Q = torch.randn(_T, _d, generator=_g)      # queries, from X
_K = torch.randn(_Tp, _d, generator=_g)     # keys, from Y
_S = torch.einsum("td,sd", _Q, _K) / math.sqrt(_d)     # q_t . k_s for every t, s
_names = {_T: "T", _Tp: "T'"}
ans_cross_shapes = "b" if (_names[_S.shape[0]], _names[_S.shape[1]]) == ("T", "T'") else "c"
''',
    }, {"mistake": "Computes the experiment's scores with an implicit-mode einsum 'td,sd', whose output axes "
                   "are sorted alphabetically (s before t), so S comes out T' x T and the answer is 'c' "
                   "instead of 'b'.",
        "where": ["q14"]}),

    "q15_answer_list_indexed_from_one": ({
        CAUSAL_ANS: '''# my multiple-choice answers, in question order: q03, q06, q14, q15, q16
_MC = ["b", "c", "b", "d", "c"]
ans_cross_causal = _MC[4]          # q15 is the 4th multiple-choice question
''',
    }, {"mistake": "Keeps all multiple-choice answers in one list and indexes q15 as the 4th item with index 4 "
                   "(counting from 1), which picks q16's 'c' instead of its own 'd'.",
        "where": ["q15"]}),

    # max(d) compares the keys; the key of the largest value is max(d, key=d.get)
    "q06_max_of_confidence_dict_gives_largest_key": ({
        MASK_ANS: '''_confidence = {"a": 0.05, "b": 0.05, "c": 0.8, "d": 0.1}
ans_mask = max(_confidence)        # the option I am most sure of
''',
    }, {"mistake": "Takes max() of a dict of confidences, which compares the keys and returns the alphabetically "
                   "last one, 'd', not the most likely option 'c' (that needs max(d, key=d.get)).",
        "where": ["q06"]}),

    # bool("False") is True (argparse type=bool pages)
    "q06_experiment_flag_string_false_keeps_mask": ({
        MASK_ANS: '''_config = {"causal": "False"}     # experiment settings, as typed on the command line
_g = torch.Generator().manual_seed(0)
_X = torch.randn(6, 8, dtype=torch.float64, generator=_g)
_Wq, _Wk, _Wv = (torch.randn(8, 4, dtype=torch.float64, generator=_g) for _ in range(3))
_Q, _K, _V = project_qkv(_X, _Wq, _Wk, _Wv)
_S = scaled_scores(_Q, _K)
_M = causal_additive_mask(6, torch.float64) if _config["causal"] else None
_A = attention_weights(_S, _M)
_leak = float(_A.triu(1).sum())                                    # weight put on future tokens
_rows_ok = torch.allclose(_A.sum(-1), torch.ones(6, dtype=torch.float64))
ans_mask = "c" if _leak > 0 else ("a" if not _rows_ok else "d")
''',
    }, {"mistake": "Switches the mask off with the string 'False', which is truthy, so the experiment still "
                   "masks, sees no weight on future tokens and answers 'd' (no gradient) instead of 'c' "
                   "(position t reads token t+1).",
        "where": ["q06"]}),

    "q03_experiment_with_unit_length_vectors": ({
        SCALE_ANS: '''import torch.nn.functional as F

_g = torch.Generator().manual_seed(0)
_d_k = 512
# queries and keys "of unit size"
_Q = F.normalize(torch.randn(8, _d_k, dtype=torch.float64, generator=_g), dim=-1)
_K = F.normalize(torch.randn(8, _d_k, dtype=torch.float64, generator=_g), dim=-1)
_A_scaled = torch.softmax(scaled_scores(_Q, _K), dim=-1)
_A_raw = torch.softmax(_Q @ _K.transpose(-2, -1), dim=-1)
_H_scaled = float((torch.special.entr(_A_scaled).sum(dim=-1) / math.log(2)).mean())
_H_raw = float((torch.special.entr(_A_raw).sum(dim=-1) / math.log(2)).mean())
ans_scale = "b" if _H_raw < 1.0 else ("a" if _H_raw > _H_scaled + 0.5 else "c")
''',
    }, {"mistake": "Runs the scale experiment with queries and keys normalised to unit length instead of unit-"
                   "variance components, so the raw dot products are cosines near 0, the unscaled rows stay "
                   "almost uniform (about 3 bits) and it answers 'c' instead of 'b'.",
        "where": ["q03"]}),

    # numpy.polyfit(x, y, deg) fits y as a function of x
    "q16_loglog_fit_with_axes_swapped": ({
        COST_ANS: '''import numpy as np


def _score_madds(T, d_k=64):
    return T * T * d_k                  # T x T scores, d_k multiply-adds each


_Ts = np.array([64, 128, 256, 512])
_costs = np.array([_score_madds(T) for T in _Ts])
_exponent = np.polyfit(np.log(_costs), np.log(_Ts), 1)[0]      # cost ~ T ** exponent
ans_complexity = {0: "b", 1: "a", 2: "c", 3: "d"}[int(round(_exponent))]
''',
    }, {"mistake": "Fits the log-log line with the axes swapped (log T against log cost), so the slope is 1/2 "
                   "instead of 2; it rounds to 0 and the answer is 'b' (not at all) instead of 'c'.",
        "where": ["q16"]}),

    "q11_bound_from_numpy_minimum": ({
        RANK: '''import numpy as np

max_rank_S = np.minimum(8, 100)          # rank(S) <= min(d_k, T)

rank_S_lesson = 2
''',
    }, {"mistake": "Computes the bound with np.minimum, which returns numpy.int64(8), not a Python int.",
        "where": ["q11"]}),

    "q12_output_term_typed_eq_plus": ({
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    n = d_model * (2 * d_k + d_v)
    if with_output:
        n =+ d_v * d_model
    return n
''',
    }, {"mistake": "Types `=+` for `+=`, so with the output projection the count is only d_v * d_model (the W_O "
                   "weights) instead of the Q, K, V weights plus them.",
        "where": ["q12"]}),

    # the keyword of torch.nn.functional.scaled_dot_product_attention(..., is_causal=False)
    "q07_flag_renamed_is_causal_like_sdpa": ({
        SELF: '''def self_attention(X, W_Q, W_K, W_V, is_causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    M = causal_additive_mask(X.shape[-2], S.dtype, S.device) if is_causal else None
    A = attention_weights(S, M)
    return A @ V, A
''',
    }, {"mistake": "Names the flag is_causal, after scaled_dot_product_attention, instead of causal, so every "
                   "call with causal=False raises a TypeError.",
        "where": ["q07", "q13"]}),

    "q09_counts_column_made_with_T_on_a_vector": ({
        AVG: '''def prefix_average_matrix(T):
    counts = torch.arange(1, T + 1, dtype=torch.float64).T      # as a column
    return torch.tril(torch.ones(T, T, dtype=torch.float64)) / counts
''',
    }, {"mistake": "Turns the counts 1..T into a column with .T, which does nothing to a 1-D tensor, so the "
                   "lower triangle is divided column by column (entry (t, i) holds 1/i, rows do not sum to 1).",
        "where": ["q09", "q10"]}),

    "q04_query_positions_counted_from_one": ({
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    keys = torch.arange(T, device=device)              # key positions
    queries = torch.arange(1, T + 1, device=device)    # query t = 1..T, as in the lesson
    future = keys.unsqueeze(0) > queries.unsqueeze(1)
    M = torch.zeros(T, T, dtype=dtype, device=device)
    return M.masked_fill(future, torch.finfo(dtype).min)
''',
    }, {"mistake": "Compares 0-based key positions with 1-based query positions, so the mask is shifted by one: "
                   "each query also sees the next token (the first superdiagonal stays open).",
        "where": ["q04", "q05", "q07", "q09", "q10"]}),

    # pytorch/pytorch#50378, tristandeleu/pytorch-maml-rl#32: logits= vs probs=
    "q10_categorical_given_weights_as_logits": ({
        ENT: '''from torch.distributions import Categorical


def row_entropy_bits(A):
    return Categorical(logits=A).entropy() / math.log(2)


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
''',
    }, {"mistake": "Builds Categorical(logits=A) from the attention weights, which are probabilities, so the "
                   "entropy is that of softmax(A), a much flatter row, instead of A's own.",
        "where": ["q10"]}),

    "q13_mask_cast_without_none_check": ({
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    S = scaled_scores(Q, K)
    A = attention_weights(S, M.to(S.dtype))       # the mask in the scores' dtype
    return A @ V, A
''',
    }, {"mistake": "Casts the mask to the scores' dtype without checking for None, so the default call without "
                   "a mask raises AttributeError.",
        "where": ["q13"]}),
}
