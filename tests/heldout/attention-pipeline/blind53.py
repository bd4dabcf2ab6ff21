"""Blind held-out set 53 for attention-pipeline.

Fifty-third blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, its diagnosis code, the reference solution, `variants.py`, the naming
tests or `measure.py`, and without running the grader (`autograder grade`, `tests.heldout.measure`) on these
variants. What was read: the student-facing text and solution cells of full_marks.ipynb (the master
notebook's conventions: tokens are rows, leading batch dimensions allowed, inputs' dtype kept, blocked
entries hold torch.finfo(dtype).min, prefix average in float64, multiple-choice answers are one-letter
strings, both q11 answers Python ints), `harness.py`, blind52.py in full (for the format) and only the
variant names of the earlier blind sets (counted per question: q15, q14, q03, q06 and q16 are the least
touched, then q11 and q01/q09; q05, q07, q10 the most). The lesson text was not opened this round.

Public sources used (the `search` tool, issues corpus):
- lucasjinreal/pytorch_chatbot #4 (`attn_weights = F.softmax(` with no dim, the "Implicit dimension choice
  for softmax has been deprecated" warning) and svishwa/crowdcount-cascaded-mtl #22 ("how do I know whether
  dim should be 0 or 1"): F.softmax without dim picks dim 0 for a 3-D tensor; the q03 experiment runs on a
  (1, 8, 512) batch and so normalises over the batch axis of size 1.
Variants carrying a slip seen there name the source in a comment.

Round 53 leans on q15, q14, q06 (two each) and q03, q16, q11, plus q02, q05, q07 and q10 (two on q10),
in code shapes not used before: a q15 answer that is the bound method " d ".strip (never called), a q15
letter turned into its position by string.ascii_lowercase.index, a q14 vote tally kept as
Counter.most_common(1) (a list of pairs), a q14 letter picked with max over dict.items() (a (letter, score)
tuple), a q06 answer that is an Enum member instead of its value, a q06 leak test whose condition tests the
opposite (torch.equal(A, A.tril()) read as "sees the future", answers 'd'), a q03 experiment on a batched
tensor with F.softmax and no dim (normalises over the batch axis, answers 'c'), a q16 cost written
T * 2 * d_k (answers 'a'), a q11 lesson rank counted as the singular values that are not exactly zero (3),
a q02 head width read with len(Q[0]) (the query count once a batch axis is present), a q05 mask applied
after the softmax as a 0/1 keep factor without renormalising, a q10 entropy converted from nats by dividing
by log2(e) instead of multiplying, a q10 entropy that patches the zero weights to one inside the
caller's tensor, and a q07 mask cached by length alone (keeps the first call's dtype).
The correct variants use other functions and idioms than full_marks: tensordot projections and a
`** -0.5` scale with .mT, a full(-finfo.max).triu(1) mask with torch.add and Tensor.softmax, nan_to_num entropy with
torch.exp2 and a max-shifted einsum kernel, a NumPy-built prefix average through torch.from_numpy with
.item() ranks and a d_k + d_k + d_v count, and a masked_fill self-attention with letters written as ("b"),
"\\x63", {"b"}.pop(), numpy.str_("d") and "c\\n".
Each wrong variant changes one cell of an otherwise full-marks notebook and holds exactly one mistake;
`where` lists every question whose tests may lose points. Experiment cells draw from their own
torch.Generator, so they do not move the global random state. Every variant was checked against plain torch
(`torch.softmax`, `torch.nn.functional.scaled_dot_product_attention`, the full-marks cells, the lesson's
hand-built Q and K as used in blind52's q11 cell) on several shapes and dtypes (float64, float32, float16;
batched; d_k != d_v; T_q != T_k) with a throwaway script under /tmp/w53-attention/ before it was written
down.

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
    # projections with tensordot over the last axis; scores with .mT and a ** -0.5 Python-float scale
    "tensordot_projection_and_power_scale_scores": {
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    Q = torch.tensordot(X, W_Q, dims=1)
    K = torch.tensordot(X, W_K, dims=1)
    V = torch.tensordot(X, W_V, dims=1)
    return Q, K, V
''',
        SCORES: '''def scaled_scores(Q, K):
    return (Q @ K.mT) * (Q.shape[-1] ** -0.5)
''',
    },
    # the mask as full(-finfo.max).triu(1); torch.add and the Tensor.softmax method
    "full_triu_mask_and_softmax_method": {
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    return torch.full((T, T), -torch.finfo(dtype).max, dtype=dtype, device=device).triu(1)
''',
        WEIGHTS: '''def attention_weights(S, M=None):
    Z = S if M is None else torch.add(S, M)
    return Z.softmax(-1)
''',
    },
    # entropy with nan_to_num on the log and exp2 tokens; the kernel shifted by its max, mixed with einsum
    "nan_to_num_entropy_exp2_and_shifted_einsum_kernel": {
        ENT: '''def row_entropy_bits(A):
    return -(A * torch.log2(A).nan_to_num()).sum(-1)


def effective_tokens(A):
    return torch.exp2(row_entropy_bits(A))
''',
        NW: '''def nadaraya_watson(q, K, V):
    s = K @ q / math.sqrt(K.shape[-1])
    w = torch.exp(s - s.max())
    return torch.einsum("t,tv->v", w, V) / w.sum()
''',
    },
    # the prefix average built in NumPy (float64) and brought back with from_numpy; .item() ranks; a
    # d_k + d_k + d_v count with int(flag)
    "numpy_prefix_average_item_rank_and_int_flag_count": {
        AVG: '''import numpy as np


def prefix_average_matrix(T):
    return torch.from_numpy(np.tril(np.ones((T, T))) / np.arange(1, T + 1)[:, None])
''',
        RANK: '''max_rank_S = int(min((8, 100)))

_Kl = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]], dtype=torch.float64)
_Ql = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]], dtype=torch.float64)
rank_S_lesson = torch.linalg.matrix_rank(scaled_scores(_Ql, _Kl)).item()
''',
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    return d_model * (d_k + d_k + d_v) + int(with_output) * d_model * d_v
''',
    },
    # self-attention with masked_fill on a boolean triangle; letters in parentheses, an escape, a set pop,
    # a NumPy string (a str subclass) and a trailing newline
    "masked_fill_self_attention_and_odd_letters": {
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    if causal:
        T = S.shape[-1]
        future = torch.ones(T, T, dtype=torch.bool, device=S.device).triu(1)
        S = S.masked_fill(future, torch.finfo(S.dtype).min)
    A = torch.softmax(S, dim=-1)
    return torch.matmul(A, V), A
''',
        SCALE_ANS: '''ans_scale = ("b")
''',
        MASK_ANS: '''ans_mask = "\\x63"
''',
        SHAPES_ANS: '''ans_cross_shapes = {"b"}.pop()
''',
        CAUSAL_ANS: '''import numpy as np

ans_cross_causal = np.str_("d")
''',
        COST_ANS: '''ans_complexity = "c\\n"
''',
    },
}

WRONG = {
    "q15_strip_method_referenced_not_called": ({
        CAUSAL_ANS: '''ans_cross_causal = " d ".strip          # tidy the spaces
''',
    }, {"mistake": "Forgets the parentheses on strip, so ans_cross_causal is the bound method \" d \".strip, "
                   "not the string 'd'.",
        "where": ["q15"]}),

    "q15_letter_turned_into_position_with_str_index": ({
        CAUSAL_ANS: '''import string

ans_cross_causal = string.ascii_lowercase.index("d")
''',
    }, {"mistake": "Gives the option's position, the int 3 from string.ascii_lowercase.index('d'), instead "
                   "of the letter 'd'.",
        "where": ["q15"]}),

    "q14_vote_tally_kept_as_counter_most_common_list": ({
        SHAPES_ANS: '''from collections import Counter

_votes = Counter(["b", "b", "d"])          # what I got from the three ways I worked it out
ans_cross_shapes = _votes.most_common(1)
''',
    }, {"mistake": "Keeps Counter.most_common(1), the list [('b', 2)], instead of taking its letter 'b'.",
        "where": ["q14"]}),

    "q14_letter_picked_with_max_over_dict_items_keeps_pair": ({
        SHAPES_ANS: '''_confidence = {"a": 0.05, "b": 0.8, "c": 0.1, "d": 0.05}
ans_cross_shapes = max(_confidence.items(), key=lambda kv: kv[1])
''',
    }, {"mistake": "Picks the most likely option with max over dict.items(), which returns the (letter, score) "
                   "pair ('b', 0.8), not the letter 'b'.",
        "where": ["q14"]}),

    "q06_enum_member_instead_of_its_value": ({
        MASK_ANS: '''from enum import Enum


class Option(Enum):
    A = "a"
    B = "b"
    C = "c"
    D = "d"


ans_mask = Option.C
''',
    }, {"mistake": "Answers with the Enum member Option.C instead of its value, the string 'c'.",
        "where": ["q06"]}),

    "q06_leak_test_checks_the_opposite_condition": ({
        MASK_ANS: '''_g = torch.Generator().manual_seed(0)
_X = torch.randn(6, 8, dtype=torch.float64, generator=_g)
_Ws = [torch.randn(8, 4, dtype=torch.float64, generator=_g) for _ in range(3)]
_Q, _K, _V = project_qkv(_X, *_Ws)
_A = attention_weights(scaled_scores(_Q, _K))          # no mask
_sees_future = torch.equal(_A, torch.tril(_A))          # does row t reach past column t?
_rows_sum_to_one = torch.allclose(_A.sum(-1), torch.ones(6, dtype=torch.float64))
if not _rows_sum_to_one:
    ans_mask = "a"
elif _sees_future:
    ans_mask = "c"
else:
    ans_mask = "d"
''',
    }, {"mistake": "Its leak test is backwards: torch.equal(A, A.tril()) is true when no weight lies above the "
                   "diagonal, so the unmasked A 'does not see the future' and it answers 'd' instead of 'c'.",
        "where": ["q06"]}),

    # lucasjinreal/pytorch_chatbot #4, svishwa/crowdcount-cascaded-mtl #22: F.softmax without dim
    "q03_batched_experiment_functional_softmax_without_dim": ({
        SCALE_ANS: '''import torch.nn.functional as F

_g = torch.Generator().manual_seed(0)
_Q = torch.randn(1, 8, 512, dtype=torch.float64, generator=_g)     # one batch of 8 tokens
_K = torch.randn(1, 8, 512, dtype=torch.float64, generator=_g)


def _mean_bits(S):
    A = F.softmax(S)
    return -(A * torch.log2(A)).sum(dim=-1).mean().item()


_H_raw = _mean_bits(_Q @ _K.transpose(-2, -1))
_H_scaled = _mean_bits(scaled_scores(_Q, _K))
if _H_raw < _H_scaled - 0.5:
    ans_scale = "b"
elif _H_raw > _H_scaled + 0.5:
    ans_scale = "a"
else:
    ans_scale = "c"
''',
    }, {"mistake": "Its experiment calls F.softmax without dim on a (1, 8, 8) batch, which normalises over the "
                   "batch axis (every weight 1, entropy 0 both ways), so it sees no change and answers 'c' "
                   "instead of 'b'.",
        "where": ["q03"]}),

    "q16_cost_written_times_two_for_squared": ({
        COST_ANS: '''def _cost(T, d_k=64):
    return T * 2 * d_k          # T squared scores, d_k multiply-adds each


_ratio = _cost(200) / _cost(100)
if abs(_ratio - 2) < 0.5:
    ans_complexity = "a"
elif abs(_ratio - 4) < 0.5:
    ans_complexity = "c"
elif _ratio > 6:
    ans_complexity = "d"
else:
    ans_complexity = "b"
''',
    }, {"mistake": "Writes T squared as T * 2, so the cost doubles with T and it answers 'a' (linear) instead "
                   "of 'c'.",
        "where": ["q16"]}),

    "q11_lesson_rank_counts_singular_values_not_exactly_zero": ({
        RANK: '''max_rank_S = 8

_Kl = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]], dtype=torch.float64)
_Ql = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]], dtype=torch.float64)
rank_S_lesson = int((torch.linalg.svdvals(scaled_scores(_Ql, _Kl)) != 0).sum())
''',
    }, {"mistake": "Counts the singular values that are not exactly zero, with no tolerance, so a round-off "
                   "value of about 1e-16 is counted and the lesson rank comes out 3 instead of 2.",
        "where": ["q11"]}),

    "q02_head_width_from_len_of_first_query": ({
        SCORES: '''def scaled_scores(Q, K):
    d_k = len(Q[0])          # length of one query vector
    return Q @ K.transpose(-2, -1) / math.sqrt(d_k)
''',
    }, {"mistake": "Reads d_k as len(Q[0]), the length of the first query only for 2-D input; with a batch "
                   "axis Q[0] is a whole (T_q, d_k) matrix and it divides by sqrt(T_q).",
        "where": ["q02", "q07", "q13"]}),

    "q05_mask_applied_after_softmax_as_keep_factor": ({
        WEIGHTS: '''def attention_weights(S, M=None):
    A = torch.softmax(S, dim=-1)
    if M is not None:
        A = A * (M == 0)          # drop the blocked keys
    return A
''',
    }, {"mistake": "Takes the softmax of the unmasked scores and then zeroes the blocked entries with a 0/1 keep "
                   "factor without renormalising, so masked rows no longer sum to 1.",
        "where": ["q05", "q07", "q09", "q13"]}),

    "q10_nats_divided_by_log2_e_instead_of_multiplied": ({
        ENT: '''def row_entropy_bits(A):
    nats = torch.special.entr(A).sum(dim=-1)
    return nats / math.log2(math.e)          # nats -> bits


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
''',
    }, {"mistake": "Converts nats to bits by dividing by log2(e) instead of multiplying (dividing by ln 2), so "
                   "every entropy is about 0.48 times too small.",
        "where": ["q10"]}),

    "q10_zero_weights_patched_to_one_in_callers_tensor": ({
        ENT: '''def row_entropy_bits(A):
    P = A
    P[P == 0] = 1          # 1 * log2(1) = 0, so the masked weights add nothing
    return -(P * torch.log2(P)).sum(dim=-1)


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
''',
    }, {"mistake": "Patches the zero weights to 1 in place: P = A is the caller's tensor, so every masked 0 in A "
                   "becomes 1 (the rows no longer sum to 1) even though the entropies returned are right.",
        "where": ["q10"]}),
    "q07_mask_cached_by_length_keeps_first_dtype": ({
        SELF: '''_MASKS = {}


def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    M = None
    if causal:
        T = S.shape[-1]
        if T not in _MASKS:          # build each size only once
            _MASKS[T] = causal_additive_mask(T, S.dtype, S.device)
        M = _MASKS[T]
    A = attention_weights(S, M)
    return A @ V, A
''',
    }, {"mistake": "Caches the mask by its length only, so a later call with the same T in another dtype reuses "
                   "the first call's mask (its dtype and its finfo.min): S + M promotes A to that dtype (float32 "
                   "weights for float16 inputs) and A @ V then fails on the mixed dtypes.",
        "where": ["q07", "q09"]}),
}
