"""Blind held-out set 38 for attention-pipeline.

Thirty-eighth blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, its diagnosis code, the reference solution, `variants.py`, the naming
tests or `measure.py`, and without running the grader (`autograder grade`, `tests.heldout.measure`) on these
variants. What was read: the student-facing text and solution cells of the master notebook (including its
public format checks: the multiple-choice answers must be one letter after strip().lower(), the q11
answers Python ints), full_marks.ipynb (whose cells these replace), `harness.py`, the lesson text
`lesson-08-attention-pipeline.txt` (its rlab code for Q, K, the mask and the Nadaraya-Watson loop),
blind37.py in full (for the format) and only the module docstrings and variant names of the earlier blind
sets (to lean on less-touched questions and not repeat a mistake an earlier name shows).

Public sources used (the `search` tool, code / issues corpora):
- pytorch/pytorch issues #27623, #60831 and PR #49950 (nn.MultiheadAttention's kdim / vdim are the
  feature widths of the key / value INPUTS, "total number of features in key"; the q / k / v projections
  always map to embed_dim), for a parameter count taken from nn.MultiheadAttention(kdim=d_k, vdim=d_v);
- the extended-attention-mask helpers that turn a (batch, T') key-padding mask into
  `attention_mask[:, None, None, :]` (A1ex-Chen/DL_project_log
  GenderBias-VL/lvlm_inference/LAMM/src/ChEF/models/mplug_owl/visual_encoder_get_extended_attention_mask.py,
  and the anlp copy of get_extended_attention_mask), applied here to a mask that is already (T, T');
- pytorch/pytorch issue #132613 (`with torch.autocast("cpu", dtype=torch.bfloat16):` around a forward),
  for projections run under autocast, which on the CPU also turns float32 and float16 matmuls into
  bfloat16 (checked here with torch 2.13);
- the `F.linear(q, k)` shortcut for q @ k^T seen in public attention code (checked here: F.linear's weight
  must be 2-D, so it breaks on batched keys);
- the TensorFlow habit `tf.reduce_sum(tf.cast(mask, tf.float32))` for counting, ported to torch, which
  yields a float where the notebook asks for an int.
Variants carrying a slip seen there name the source in a comment.

Round 38 leans on the questions the earlier sets touched least (the multiple-choice q06, q15, q03, q14,
q16, then q11, q01, q12, q09) and on code shapes not used before: a multiple-choice answer COMPUTED by a
small experiment whose comparison is reversed (q03), by an experiment that swaps X and Y (q14), or by a
cost count that measures one row (q16); a one-based option number (q06); a letter wrapped in its own
quotes (q15); rank from non-zero eigenvalues and a float count (q11); a library module's parameter count
(q12); a NumPy array returned (q09); an integer 0/1 triangle used as an index (q04); the HF-style
`[..., None, :]` expansion of an additive mask (q13); projections under autocast (q01); F.linear for the
scores (q02); nan_to_num applied after the row sum (q10). Each wrong variant changes one cell of an
otherwise full-marks notebook and holds exactly one mistake; `where` lists every question whose tests
may lose points (q07, q09's zero-projection test and q13's self-attention check call project_qkv /
scaled_scores / causal_additive_mask / attention_weights through self_attention; q05's and q10's public
checks call scaled_scores, causal_additive_mask and attention_weights). Every variant was checked against plain torch
(`torch.softmax`, `torch.nn.functional.scaled_dot_product_attention`, the lesson's formula and numbers,
the full-marks cells) on several shapes and dtypes (float64, float32, float16; batched; d_k != d_v;
T_q != T_k; the lesson's inputs) with a throwaway script under /tmp before it was written down.

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
    "vecdot_broadcast_scores": {
        SCORES: '''def scaled_scores(Q, K):
    # pair every query (..., T_q, 1, d_k) with every key (..., 1, T_k, d_k) and dot along d_k
    d_k = Q.size(-1)
    return torch.linalg.vecdot(Q.unsqueeze(-2), K.unsqueeze(-3)) * (1.0 / math.sqrt(d_k))
''',
    },
    "log_of_keep_triangle_clamped_mask": {
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    keep = torch.ones(T, T, dtype=dtype, device=device).tril()     # 1 = may attend, 0 = future
    return keep.log().clamp(min=torch.finfo(dtype).min)             # log 1 = 0, log 0 = -inf -> finfo.min
''',
    },
    "self_attention_as_cross_attention_on_itself": {
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    # self-attention is cross-attention of a sequence with itself, plus the causal mask
    M = causal_additive_mask(X.size(-2), X.dtype, X.device) if causal else None
    return cross_attention(X, X, W_Q, W_K, W_V, M)
''',
    },
    "categorical_entropy_in_bits": {
        ENT: '''def row_entropy_bits(A):
    # Categorical clamps log 0 to finfo.min, so 0 * log 0 contributes 0; entropy() is in nats
    return torch.distributions.Categorical(probs=A, validate_args=False).entropy() / math.log(2)


def effective_tokens(A):
    return torch.exp(row_entropy_bits(A) * math.log(2))   # e^(H ln 2) = 2^H
''',
    },
    "outer_product_prefix_and_size_numel_count": {
        AVG: '''def prefix_average_matrix(T):
    inv_t = 1.0 / torch.arange(1, T + 1, dtype=torch.float64)
    return torch.outer(inv_t, torch.ones(T, dtype=torch.float64)).tril()
''',
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    shapes = [(d_model, d_k), (d_model, d_k), (d_model, d_v)] + ([(d_v, d_model)] if with_output else [])
    return sum(torch.Size(s).numel() for s in shapes)
''',
    },
}

WRONG = {
    # torch.autocast("cpu", dtype=torch.bfloat16) around a forward, as in pytorch/pytorch issue #132613
    "q01_projections_under_autocast": ({
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    # mixed precision makes the three matmuls faster
    with torch.autocast(device_type=X.device.type, dtype=torch.bfloat16):
        return X @ W_Q, X @ W_K, X @ W_V
''',
    }, {"mistake": "Runs the projections under torch.autocast with bfloat16: float32 (and, on the CPU, "
                   "float16) inputs come back as bfloat16 tensors with about 3 significant digits, so "
                   "Q, K, V are not in the input's dtype and lose precision (only float64 is untouched).",
        "where": ["q01", "q07", "q09", "q13"]}),

    "q02_functional_linear_for_the_scores": ({
        SCORES: '''import torch.nn.functional as F


def scaled_scores(Q, K):
    # F.linear(x, w) is x @ w^T, so it gives Q K^T in one call
    return F.linear(Q, K) / math.sqrt(Q.shape[-1])
''',
    }, {"mistake": "Computes Q K^T with F.linear(Q, K), whose weight must be a single 2-D matrix: "
                   "right for one unbatched sequence, but it raises as soon as K carries batch "
                   "dimensions (..., T_k, d_k).",
        "where": ["q02", "q05", "q07", "q09", "q10", "q13"]}),

    "q03_experiment_comparison_reversed": ({
        SCALE_ANS: '''_g = torch.Generator().manual_seed(0)
_q = torch.randn(8, 512, generator=_g, dtype=torch.float64)
_k = torch.randn(8, 512, generator=_g, dtype=torch.float64)


def _mean_entropy(S):
    A = torch.softmax(S, dim=-1)
    return float(-(A * torch.log2(A.clamp_min(1e-300))).sum(-1).mean())


_H_scaled = _mean_entropy(_q @ _k.T / math.sqrt(512))
_H_unscaled = _mean_entropy(_q @ _k.T)
# without the scale the entropy ... goes up if it is bigger than with it
ans_scale = "a" if _H_unscaled < _H_scaled else "b"
''',
    }, {"mistake": "Measures the row entropies with and without the 1/sqrt(d_k) scale correctly but "
                   "reads the comparison backwards: the unscaled entropy is the smaller one (rows collapse "
                   "toward one key, option b), and the reversed test picks 'a' (rows flatter).",
        "where": ["q03"]}),

    "q04_integer_triangle_used_as_index": ({
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    future = torch.triu(torch.ones(T, T, dtype=torch.long, device=device), diagonal=1)   # 1 above the diagonal
    M = torch.zeros(T, T, dtype=dtype, device=device)
    M[future] = torch.finfo(dtype).min
    return M
''',
    }, {"mistake": "Builds the future pattern as an integer 0/1 tensor and indexes with it: integer "
                   "tensors index POSITIONS (rows 0 and 1), not entries, so whole rows 0 and 1 are "
                   "blocked (diagonal included) and every other row is left open; the triangle must be "
                   "a boolean mask.",
        "where": ["q04", "q05", "q07", "q09", "q10", "q13"]}),

    "q06_one_based_option_number": ({
        MASK_ANS: '''ans_mask = 3   # the third option
''',
    }, {"mistake": "Gives the option's position counted from 1 (the integer 3) instead of the letter 'c'.",
        "where": ["q06"]}),

    "q09_numpy_array_returned": ({
        AVG: '''import numpy as np


def prefix_average_matrix(T):
    W = np.tri(T)                                   # lower-triangular ones, float64
    return W / np.arange(1, T + 1)[:, None]
''',
    }, {"mistake": "Builds Lesson 07's matrix with NumPy and returns the numpy.ndarray itself: the numbers "
                   "are right but the question asks for a float64 torch tensor.",
        "where": ["q09"]}),

    "q10_nan_to_num_after_the_row_sum": ({
        ENT: '''def row_entropy_bits(A):
    # log2(0) = -inf and 0 * -inf = nan; clean the nans up at the end
    return (-(A * torch.log2(A)).sum(dim=-1)).nan_to_num(0.0)


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
''',
    }, {"mistake": "Replaces the NaN only after summing the row: a single zero weight (every masked row) "
                   "makes the whole sum NaN, which becomes 0, so those rows get entropy 0 and 1 effective "
                   "token; 0 log 0 must be set to 0 term by term, before the sum.",
        "where": ["q10"]}),

    "q11_rank_from_nonzero_eigenvalues": ({
        RANK: '''K_lesson = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]], dtype=torch.float64)
Q_lesson = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]], dtype=torch.float64)

max_rank_S = 8
eigenvalues = torch.linalg.eigvals(Q_lesson @ K_lesson.T / math.sqrt(4))
rank_S_lesson = int((eigenvalues.abs() > 1e-10).sum())   # rank = number of non-zero eigenvalues
''',
    }, {"mistake": "Takes the rank as the number of non-zero eigenvalues, which holds only for "
                   "diagonalisable (e.g. symmetric) matrices: S = QK^T/2 is not symmetric and has one "
                   "non-zero eigenvalue but rank 2; the rank counts non-zero singular values.",
        "where": ["q11"]}),

    # TensorFlow habit tf.reduce_sum(tf.cast(mask, tf.float32)), ported to torch
    "q11_count_summed_as_float": ({
        RANK: '''K_lesson = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]], dtype=torch.float64)
Q_lesson = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]], dtype=torch.float64)

max_rank_S = 8
singular = torch.linalg.svdvals(Q_lesson @ K_lesson.T / math.sqrt(4))
rank_S_lesson = (singular > 1e-10).float().sum().item()   # cast the mask to float and add it up
''',
    }, {"mistake": "Counts the non-zero singular values by casting the boolean mask to float and summing, "
                   "so rank_S_lesson is the float 2.0, not the Python int the question asks for.",
        "where": ["q11"]}),

    # nn.MultiheadAttention's kdim / vdim are input widths: pytorch/pytorch #27623, #60831, PR #49950
    "q12_counted_from_multihead_attention_kdim": ({
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    # let torch build the block and count its weights
    mha = torch.nn.MultiheadAttention(d_model, num_heads=1, bias=False, kdim=d_k, vdim=d_v)
    n = sum(p.numel() for name, p in mha.named_parameters() if not name.startswith("out_proj"))
    if with_output:
        n += mha.out_proj.weight.numel()
    return n
''',
    }, {"mistake": "Counts the weights of torch.nn.MultiheadAttention(d_model, 1, kdim=d_k, vdim=d_v), "
                   "reading kdim / vdim as the key and value widths: they are the widths of the key and "
                   "value INPUTS, and every projection maps to d_model, so W_Q is d_model x d_model and "
                   "W_O too (196608 and 344064 instead of 73728 and 98304 for the lesson's exercise).",
        "where": ["q12"]}),

    # the HF-style expansion attention_mask[:, None, None, :] of a key-padding mask (see the docstring)
    "q13_mask_expanded_like_a_key_padding_vector": ({
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    if M is not None:
        M = M[..., None, :]      # broadcast the key mask over the queries
    A = attention_weights(scaled_scores(Q, K), M)
    return A @ V, A
''',
    }, {"mistake": "Expands the mask with M[..., None, :] as if it were a (T',) key-padding vector, but M "
                   "is already (T, T'): the sum broadcasts to (T, T, T'), so A and O get an extra query "
                   "axis (every query's row paired with every mask row) whenever a mask is passed.",
        "where": ["q13"]}),

    "q14_experiment_with_x_and_y_swapped": ({
        SHAPES_ANS: '''_X = torch.ones(3, 6, dtype=torch.float64)      # T = 3 query tokens
_Y = torch.ones(7, 6, dtype=torch.float64)      # T' = 7 key / value tokens
_W = torch.eye(6, dtype=torch.float64)[:, :4]
_O, _A = cross_attention(_Y, _X, _W, _W, _W)    # queries from X, keys and values from Y
_shapes = {((3, 3), (3, 4)): "a", ((3, 7), (3, 4)): "b", ((7, 3), (7, 4)): "c", ((3, 7), (7, 4)): "d"}
ans_cross_shapes = _shapes[(tuple(_A.shape), tuple(_O.shape))]
''',
    }, {"mistake": "Finds the shapes by experiment but calls cross_attention(Y, X, ...), so the queries "
                   "come from Y: S comes out T' x T and O T' x d_v, and the lookup answers 'c' instead of "
                   "'b'.",
        "where": ["q14"]}),

    "q15_letter_wrapped_in_its_own_quotes": ({
        CAUSAL_ANS: '''ans_cross_causal = '"d"'   # a string such as "a"
''',
    }, {"mistake": "Types the quotes of the instruction's example into the string: the value is the three "
                   "characters '\"d\"' (quote marks included), not the one-letter string 'd'.",
        "where": ["q15"]}),

    "q16_cost_of_one_row_counted": ({
        COST_ANS: '''def _score_cost(T, d_k=64):
    S = torch.zeros(T, d_k) @ torch.zeros(T, d_k).T
    return S.shape[-1] * d_k        # multiply-adds: one per score entry, d_k each


_ratio = _score_cost(200) / _score_cost(100)
ans_complexity = {1: "b", 2: "a", 4: "c", 8: "d"}[round(_ratio)]
''',
    }, {"mistake": "Counts the multiply-adds of one row of S (T scores) instead of all T^2 entries, so "
                   "doubling T only doubles the count and the answer comes out 'a' (linear) instead of "
                   "'c' (quadratic).",
        "where": ["q16"]}),
}
