"""Blind held-out set 44 for attention-pipeline.

Forty-fourth blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, its diagnosis code, the reference solution, `variants.py`, the naming
tests or `measure.py`, and without running the grader (`autograder grade`, `tests.heldout.measure`) on these
variants. What was read: the student-facing text and solution cells of the master notebook (including its
public checks: the multiple-choice answers must be a str that is one letter after strip().lower(); the q11
answers Python ints; qkv_param_count(6, 4, 4) == 72; the q09 check that self_attention with zero query and
key projections returns prefix_average_matrix(5) within 1e-12; the q13 check that cross-attention with
Y = X equals non-causal self-attention in A), full_marks.ipynb (whose cells these replace), `harness.py`,
the lesson text `lesson-08-attention-pipeline.txt` (its rank paragraph: rank(S) = 2, rank(Q) = 2,
rank(K) = 4), blind43.py in full (for the format) and only the module docstrings and variant names of the
earlier blind sets (to lean on the less-touched questions and not repeat a mistake an earlier name shows).

Public sources used (the `search` tool, pages / docs corpora):
- the Python `or` short-circuit pages (Stack Overflow question 3914667 "Python: False or None vs None or
  False", the makemeengr.com copy of "Why does `a == x or y or z` always evaluate to True?", effbot's pyref
  `or` page: "x or y ... if x is true, its value is returned"), for a q15 answer hedged as "c" or "d";
- the hoganman/deeplearningpytorch notes ("sys.getsizeof(range_t) ... 72": the size of the Python object,
  not of its storage) and the codegenes.net "PyTorch tensor memory size" page (numel() * element_size()),
  for a q16 memory experiment measured with sys.getsizeof;
- the torch.nn.MultiheadAttention shape docs as mirrored for R torch (rdrr.io nn_multihead_attention,
  nnf_multi_head_attention_forward: "query (L, N, E) where L is the target sequence length ... key (S, N, E)
  where S is the source sequence length"), for a q14 answer that calls Y the "target";
- the TransformerEncoderLayer docs (mindspore mirror of torch's `norm_first=False`: "layer norm is located
  after the attention and feedforward operations") and umichVision/virtex `virtex/modules/transformer.py`
  on the Hugging Face hub (pre-norm vs post-norm), for a q07 output put through LayerNorm ("Add & Norm").
Variants carrying a slip seen there name the source in a comment.

Round 44 leans on the questions the earlier sets touched least (q15, q06, q16, q03 and q11 twice each, then
q14, q12, q07, q08) and on code shapes not used before: a hedged `"c" or "d"` answer that Python turns into
"c" (q15), an answer encoded to bytes (q15), options marked True/False in a dict (q06), an unmasked-weights
experiment that sums the columns (dim=0) and reads them as rows (q06), MultiheadAttention's target/source
names mapped the wrong way round (q14), a scale experiment run with a single feature, where sqrt(d_k) = 1
(q03), a for-loop over the options that reuses the answer's name and leaves "d" in it (q03), a memory
experiment with sys.getsizeof (q16), FLOPs counted for the whole layer at short lengths, where the linear
projections dominate (q16), a rank counted from the nonzero diagonal of QR's R without a tolerance (q11), the
rank read as the trace (q11), a parameter count left as a 0-dim tensor (q12), a post-norm LayerNorm on the
output (q07) and the 1/sqrt(d_k) scale applied as a power of the exponentiated kernel, which overflows in
float16 (q08). Each wrong variant changes one cell of an otherwise full-marks notebook and holds exactly one
mistake; `where` lists every question whose tests may lose points. Experiment cells draw from their own
torch.Generator, so they do not move the global random state. Every variant was checked against plain torch
(`torch.softmax`, `torch.nn.functional.scaled_dot_product_attention`, the lesson's formula and numbers, the
full-marks cells) on several shapes and dtypes (float64, float32, float16; batched; d_k != d_v; T_q != T_k;
the lesson's inputs) with a throwaway script under /tmp/w44ap_x9k/ before it was written down.

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
    # an all -inf triangle made finite by nan_to_num (its default neginf is the dtype's most negative finite
    # number); the letter picked out of a NumPy array is a numpy.str_, which is a str
    "nan_to_num_mask_and_numpy_str_letter": {
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    M = torch.full((T, T), float("-inf"), dtype=dtype, device=device).triu(1)
    return M.nan_to_num()
''',
        SHAPES_ANS: '''import numpy as np

ans_cross_shapes = np.array(list("abcd"))[1]
''',
    },
    # F.linear computes x @ weight.T, so the weights go in transposed; NaN terms of 0 * log 0 skipped by
    # nansum; 2 ** H as ldexp(1, H)
    "functional_linear_projection_and_nansum_entropy": {
        PROJ: '''import torch.nn.functional as F


def project_qkv(X, W_Q, W_K, W_V):
    return F.linear(X, W_Q.T), F.linear(X, W_K.T), F.linear(X, W_V.T)
''',
        ENT: '''def row_entropy_bits(A):
    return -(A * torch.log2(A)).nansum(dim=-1)


def effective_tokens(A):
    H = row_entropy_bits(A)
    return torch.ldexp(torch.ones_like(H), H)
''',
    },
    # softmax as exp(log_softmax); the prefix average built as attention over zero scores with the causal
    # mask; an upper-case letter that lower() accepts
    "log_softmax_weights_prefix_from_mask_and_upper_case_letter": {
        WEIGHTS: '''def attention_weights(S, M=None):
    logits = S if M is None else S + M
    return torch.log_softmax(logits, dim=-1).exp()
''',
        AVG: '''def prefix_average_matrix(T):
    return attention_weights(torch.zeros(T, T, dtype=torch.float64), causal_additive_mask(T, torch.float64))
''',
        COST_ANS: '''ans_complexity = "C"
''',
    },
    # kernel weights and the weighted sum with einsum; the parameter count from bias-free Linear layers on
    # the meta device (no memory, no random draws)
    "einsum_smoother_and_meta_linear_count": {
        NW: '''def nadaraya_watson(q, K, V):
    kappa = torch.einsum("d,td->t", q, K).div(math.sqrt(q.shape[-1])).exp()
    return torch.einsum("t,tv->v", kappa, V) / kappa.sum()
''',
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    widths = [(d_model, d_k), (d_model, d_k), (d_model, d_v)]
    if with_output:
        widths.append((d_v, d_model))
    return sum(torch.nn.Linear(i, o, bias=False, device="meta").weight.numel() for i, o in widths)
''',
    },
    # K.mT (batched transpose) and Tensor.size(-1); cross-attention reusing project_qkv on each sequence;
    # the lesson rank counted from singular values with a relative tolerance
    "mT_scores_reused_projections_and_svd_rank": {
        SCORES: '''def scaled_scores(Q, K):
    return Q @ K.mT / math.sqrt(Q.size(-1))
''',
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, _, _ = project_qkv(X, W_Q, W_K, W_V)
    _, K, V = project_qkv(Y, W_Q, W_K, W_V)
    A = attention_weights(scaled_scores(Q, K), M)
    return A @ V, A
''',
        RANK: '''max_rank_S = min(8, 100)

_K = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]], dtype=torch.float64)
_Q = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]], dtype=torch.float64)
_sv = torch.linalg.svdvals(scaled_scores(_Q, _K))
rank_S_lesson = int((_sv > 1e-10 * _sv.max()).sum())
''',
    },
}

WRONG = {
    # `x or y` returns x when x is truthy (Stack Overflow 3914667, "a == x or y or z", effbot pyref `or`)
    "q15_hedged_with_or_keeps_first_letter": ({
        CAUSAL_ANS: '''ans_cross_causal = "c" or "d"      # not sure between the two
''',
    }, {"mistake": "Hedges between two options with Python's `or`, which returns its first truthy operand, so the "
                   "answer is 'c' (whenever T = T') instead of 'd' (only when X and Y share one time axis).",
        "where": ["q15"]}),

    "q15_letter_encoded_to_bytes": ({
        CAUSAL_ANS: '''ans_cross_causal = "d".encode()    # plain ASCII answer
''',
    }, {"mistake": "Encodes the letter, so the answer is the bytes object b'd', not a str.",
        "where": ["q15"]}),

    "q06_options_marked_true_false_in_a_dict": ({
        MASK_ANS: '''ans_mask = {"a": False, "b": False, "c": True, "d": False}
''',
    }, {"mistake": "Marks every option True or False in a dict, like a multiple-select form, instead of giving "
                   "the one letter as a str.",
        "where": ["q06"]}),

    "q06_column_sums_of_unmasked_weights_read_as_rows": ({
        MASK_ANS: '''_g = torch.Generator().manual_seed(0)
_S = torch.randn(6, 6, dtype=torch.float64, generator=_g)
_A_off = attention_weights(_S)                    # causal mask switched off
_sums = _A_off.sum(dim=0)                         # the sum of each row of A
ans_mask = "a" if not torch.allclose(_sums, torch.ones(6, dtype=torch.float64)) else "c"
''',
    }, {"mistake": "Checks the unmasked weights by summing over dim=0 (the columns, one sum per key), finds sums "
                   "other than 1 and answers 'a' (rows stop summing to 1); the rows still sum to 1, and the "
                   "problem is that position t reads token t+1 ('c').",
        "where": ["q06"]}),

    # torch MultiheadAttention docs: query (L, N, E), "L is the target sequence length", key (S, N, E),
    # "S is the source sequence length" (rdrr.io nn_multihead_attention / nnf_multi_head_attention_forward)
    "q14_mha_target_length_read_as_keys_sequence": ({
        SHAPES_ANS: '''# nn.MultiheadAttention: attn_output is (L, E) and the weights (L, S), "where L is the target
# sequence length, S is the source sequence length". Y is the target the queries look at, X the source.
_L, _S = "T'", "T"
_options = {
    "a": (("T", "T"), ("T", "d_v")),
    "b": (("T", "T'"), ("T", "d_v")),
    "c": (("T'", "T"), ("T'", "d_v")),
    "d": (("T", "T'"), ("T'", "d_v")),
}
ans_cross_shapes = next(k for k, v in _options.items() if v == ((_L, _S), (_L, "d_v")))
''',
    }, {"mistake": "Maps the MultiheadAttention docs' 'target length L' to Y (the sequence being looked at) and "
                   "'source length S' to X, so it answers 'c' (S: T' x T, O: T' x d_v); L is the length of the "
                   "queries, X, and the answer is 'b'.",
        "where": ["q14"]}),

    "q03_scale_experiment_with_one_feature": ({
        SCALE_ANS: '''_g = torch.Generator().manual_seed(0)
_d_k = 1                                          # keep the experiment small and fast
_Q = torch.randn(8, _d_k, dtype=torch.float64, generator=_g)
_K = torch.randn(8, _d_k, dtype=torch.float64, generator=_g)
_A_scaled = torch.softmax(scaled_scores(_Q, _K), dim=-1)
_A_raw = torch.softmax(_Q @ _K.transpose(-2, -1), dim=-1)
_H_scaled = float(torch.special.entr(_A_scaled).sum(dim=-1).mean() / math.log(2))
_H_raw = float(torch.special.entr(_A_raw).sum(dim=-1).mean() / math.log(2))
ans_scale = "c" if math.isclose(_H_raw, _H_scaled) else ("b" if _H_raw < _H_scaled else "a")
''',
    }, {"mistake": "Runs the scale experiment with d_k = 1, where sqrt(d_k) = 1 and deleting the scale changes "
                   "nothing, so it answers 'c' instead of 'b' (at d_k = 512 the row entropies fall toward 0).",
        "where": ["q03"]}),

    "q03_loop_over_options_overwrites_answer": ({
        SCALE_ANS: '''_options = {"a": "rows flatter", "b": "entropies fall toward 0", "c": "nothing changes", "d": "negative"}
ans_scale = "b"
for ans_scale, _text in _options.items():         # keep the options in view next to the answer
    print(ans_scale + ")", _text)
''',
    }, {"mistake": "Loops over the options with the answer's own name as the loop variable, which Python leaves "
                   "bound to the last key, so ans_scale ends up 'd' (entropies become negative) instead of 'b'.",
        "where": ["q03"]}),

    # sys.getsizeof of a tensor is the Python object, not its storage (hoganman/deeplearningpytorch notes;
    # codegenes.net: numel() * element_size())
    "q16_memory_measured_with_sys_getsizeof": ({
        COST_ANS: '''import sys

_g = torch.Generator().manual_seed(0)


def _bytes_of_S(T, d_k=16):
    Q = torch.randn(T, d_k, generator=_g)
    K = torch.randn(T, d_k, generator=_g)
    return sys.getsizeof(Q @ K.transpose(-2, -1))


_ratio = _bytes_of_S(200) / _bytes_of_S(100)
ans_complexity = "b" if _ratio < 1.5 else ("a" if _ratio < 3 else "c")
''',
    }, {"mistake": "Measures the memory of S with sys.getsizeof, which gives the size of the Python tensor object "
                   "and not of its storage, sees no growth when T doubles and answers 'b' (not at all) instead "
                   "of 'c' (quadratic).",
        "where": ["q16"]}),

    "q16_flops_of_whole_layer_at_short_lengths": ({
        COST_ANS: '''from torch.utils.flop_counter import FlopCounterMode

_g = torch.Generator().manual_seed(0)


def _layer_flops(T, d_model=512, d_k=64):
    X = torch.randn(T, d_model, generator=_g)
    W = [torch.randn(d_model, d_k, generator=_g) for _ in range(3)]
    with FlopCounterMode(display=False) as counter:
        self_attention(X, *W)
    return counter.get_total_flops()


_ratio = _layer_flops(16) / _layer_flops(8)
ans_complexity = {1: "b", 2: "a", 4: "c", 8: "d"}[round(_ratio)]
''',
    }, {"mistake": "Counts the FLOPs of the whole self-attention layer at T = 8 and 16 with d_model = 512, where "
                   "the linear projections dominate, sees the count double and answers 'a' (linear) instead of "
                   "'c': S = QK^T alone has T^2 scores of d_k multiply-adds.",
        "where": ["q16"]}),

    "q11_lesson_rank_from_qr_diagonal_without_tolerance": ({
        RANK: '''max_rank_S = 8

_K = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]], dtype=torch.float64)
_Q = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]], dtype=torch.float64)
_R = torch.linalg.qr(scaled_scores(_Q, _K)).R
rank_S_lesson = int(torch.count_nonzero(_R.diagonal()))   # rank = number of pivots of R
''',
    }, {"mistake": "Counts the nonzero diagonal entries of QR's R as the rank with no tolerance; rounding leaves a "
                   "1e-16 pivot, so rank_S_lesson is 3 instead of 2.",
        "where": ["q11"]}),

    "q11_lesson_rank_read_as_trace": ({
        RANK: '''max_rank_S = 8

_K = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]], dtype=torch.float64)
_Q = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]], dtype=torch.float64)
rank_S_lesson = int(torch.trace(scaled_scores(_Q, _K)))   # rank = trace
''',
    }, {"mistake": "Takes the trace of S as its rank (true only for projection matrices), so rank_S_lesson is "
                   "int(1.5) = 1 instead of 2.",
        "where": ["q11"]}),

    "q12_count_left_as_zero_dim_tensor": ({
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    shapes = [[d_model, d_k], [d_model, d_k], [d_model, d_v]]
    if with_output:
        shapes.append([d_v, d_model])
    return torch.tensor(shapes).prod(dim=1).sum()
''',
    }, {"mistake": "Computes the count with tensor operations and returns the 0-dim tensor tensor(72) instead of "
                   "a Python int.",
        "where": ["q12"]}),

    # post-norm "Add & Norm" (torch TransformerEncoderLayer norm_first=False; virtex pre/post-norm layers)
    "q07_output_layer_normalised": ({
        SELF: '''import torch.nn.functional as F


def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    M = causal_additive_mask(X.shape[-2], S.dtype, S.device) if causal else None
    A = attention_weights(S, M)
    O = A @ V
    return F.layer_norm(O, O.shape[-1:]), A          # Add & Norm after the attention sublayer
''',
    }, {"mistake": "Puts the output through LayerNorm, as a post-norm transformer block does after the sublayer, "
                   "so O is no longer A V (A is still right).",
        "where": ["q07"]}),

    "q08_scale_applied_as_power_of_kernel": ({
        NW: '''def nadaraya_watson(q, K, V):
    kappa = torch.exp(K @ q) ** (1 / math.sqrt(q.shape[-1]))     # exp(x / s) = exp(x) ** (1 / s)
    return (kappa[:, None] * V).sum(dim=0) / kappa.sum()
''',
    }, {"mistake": "Applies the 1/sqrt(d_k) scale as a power after exponentiating the raw dot products; the "
                   "algebra holds but exp(q.k) overflows first (float16 beyond q.k of about 11, float32 "
                   "beyond 88), giving inf/inf = NaN where the scaled kernel is finite.",
        "where": ["q08"]}),
}
