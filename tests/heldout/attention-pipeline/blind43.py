"""Blind held-out set 43 for attention-pipeline.

Forty-third blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, its diagnosis code, the reference solution, `variants.py`, the naming
tests or `measure.py`, and without running the grader (`autograder grade`, `tests.heldout.measure`) on these
variants. What was read: the student-facing text and solution cells of the master notebook (including its
public checks: the multiple-choice answers must be a str that is one letter after strip().lower(); the q11
answers Python ints; qkv_param_count(6, 4, 4) == 72 and the with_output count > 72; the q13 check that
cross-attention with Y = X equals non-causal self-attention), full_marks.ipynb (whose cells these replace),
`harness.py`, the lesson text `lesson-08-attention-pipeline.txt` (its rank paragraph, the "scale is an
entropy knob" experiment, exercise 4's W_O in R^{d_v x d_model} and exercise 5's "T x T entries"),
blind42.py in full (for the format) and only the module docstrings and variant names of the earlier blind
sets (to lean on less-touched questions and not repeat a mistake an earlier name shows).

Public sources used (the `search` tool, docs / issues / pages corpora):
- huggingface/trl issue #7221 "entropy_from_logits returns NaN for zero-probability tokens" (`0 * -inf`,
  fixed with xlogy in PR #7225), tensorflow/probability issue #241 "NaN Entropy for Categorical
  Distribution" and kkirchheim/pytorch-ood issue #84 (softmax outputs 0.0, log(0.0) gives NaN), for a q03
  experiment whose naive entropy turns NaN on the unscaled rows, so the comparison falls to its else branch;
- the PyTorch docs of torch.nn.TransformerDecoder / TransformerDecoderLayer (`forward(tgt, memory,
  tgt_mask=None, memory_mask=None, ..., tgt_is_causal=None, memory_is_causal=False)`), for a q15 answer
  "derived" from the existence of a memory mask / memory_is_causal argument;
- the "mutable default arguments" pages (pydis static tag mutable-default-args, the notebook.community
  cohpy page "Mutable default arguments are usually a bug", Lutz's "Learning Python" gotcha quoted on
  qna.habr.com), for a parameter count that collects shapes in a list default argument (q12);
- the ml3x.com "Matrix Operation Benchmark" page (matmul 10x10 in 0.006 ms against 100x100 in 0.012 ms)
  and the MATLAB Answers thread 404667 on timing small products (overheads dominate small sizes), for a
  q16 cost experiment timed on tiny sequences;
- the PyTorch docs of torch.utils.flop_counter.FlopCounterMode (`get_total_flops()`), for a correct q16
  answer computed from counted FLOPs;
- the padding discussions in joeynmt/joeynmt issue #151 and fairseq issue #245 (source and target padded
  to common lengths), for a q14 shape experiment that pads Y to X's length first.
Variants carrying a slip seen there name the source in a comment.

Round 43 leans on the questions the earlier sets touched least (q15, q06, q03, q16 twice each, then q14,
q11, q12, q08, q13, q01) and on code shapes not used before: an unmasked-weights experiment that sums only
the lower triangle and reads "rows stop summing to 1" (q06), a letter typed with a full stop (q06), a naive
0*log0 entropy whose NaN makes the comparison pick 'a' (q03), the per-row variance of the weights read as
their spread (q03), the memory_is_causal argument of nn.TransformerDecoderLayer read as "always" (q15), the
markdown's bold marker copied with the letter (q15), a timing experiment on tiny sequences (q16), the cost
measured as the size of Q and K (q16), Y zero-padded to X's length before reading the shapes (q14), the
lesson rank counted as nonzero rows of S (q11), a list default argument that accumulates shapes across
calls (q12), K scaled in place inside the kernel smoother (q08), a quarter-root scale applied to Q, K and
also V (q13), and projections computed in float64 whatever the input dtype (q01). Each wrong variant
changes one cell of an otherwise full-marks notebook and holds exactly one mistake; `where` lists every
question whose tests may lose points (q07, q09's zero-projection test and q13's self-attention check go
through project_qkv). The experiment cells draw from their own torch.Generator, so they do not move the
global random state. Every variant was checked against plain torch (`torch.softmax`,
`torch.nn.functional.scaled_dot_product_attention`, the lesson's formula and numbers, the full-marks cells)
on several shapes and dtypes (float64, float32, float16; batched; d_k != d_v; T_q != T_k; the lesson's
inputs) with a throwaway script under /tmp/w43/ before it was written down.

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
    # torch.func.vmap maps over the leading axis (tokens when unbatched, sequences when batched); the
    # letter was pasted with a no-break space, which str.strip() removes
    "vmap_projection_and_no_break_space_letter": {
        PROJ: '''from torch.func import vmap


def project_qkv(X, W_Q, W_K, W_V):
    def one(x):
        return x @ W_Q, x @ W_K, x @ W_V
    return vmap(one)(X)
''',
        MASK_ANS: '''ans_mask = "c\\u00a0"
''',
    },
    # FLOPs counted by torch.utils.flop_counter at T and 2T; a parenthesised string is still a str
    "flop_counter_complexity_and_parenthesised_letter": {
        COST_ANS: '''from torch.utils.flop_counter import FlopCounterMode

_g = torch.Generator().manual_seed(0)


def _score_flops(T, d_k=16):
    Q = torch.randn(T, d_k, generator=_g)
    K = torch.randn(T, d_k, generator=_g)
    with FlopCounterMode(display=False) as counter:
        Q @ K.transpose(-2, -1)
    return counter.get_total_flops()


_ratio = _score_flops(64) / _score_flops(32)
ans_complexity = {2: "a", 1: "b", 4: "c", 8: "d"}[round(_ratio)]
''',
        SCALE_ANS: '''ans_scale = ("b")
''',
    },
    # both ranks measured: a random 100 x 8 times 8 x 100 product, and the lesson's S, made Python ints
    "measured_ranks_and_boolean_count": {
        RANK: '''_g = torch.Generator().manual_seed(0)
max_rank_S = int(torch.linalg.matrix_rank(torch.randn(100, 8, dtype=torch.float64, generator=_g)
                                          @ torch.randn(8, 100, dtype=torch.float64, generator=_g)))

_K = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]], dtype=torch.float64)
_Q = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]], dtype=torch.float64)
rank_S_lesson = torch.linalg.matrix_rank(scaled_scores(_Q, _K)).item()
''',
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    return d_model * (d_k + d_k + d_v) + int(bool(with_output)) * d_v * d_model
''',
    },
    # entropy from torch.distributions.Categorical (nats, zero probabilities handled), turned into bits
    "categorical_entropy_in_bits": {
        ENT: '''from torch.distributions import Categorical


def row_entropy_bits(A):
    return Categorical(probs=A, validate_args=False).entropy() / math.log(2)


def effective_tokens(A):
    return torch.exp2(row_entropy_bits(A))
''',
    },
    # K transposed once, scale multiplied in as d_k ** -0.5, functional softmax; letters with stray
    # whitespace that strip() removes
    "transposed_keys_functional_cross_and_whitespace_letters": {
        CROSS: '''import torch.nn.functional as F


def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q = torch.matmul(X, W_Q)
    K_t = torch.matmul(Y, W_K).transpose(-2, -1)
    V = torch.matmul(Y, W_V)
    S = torch.matmul(Q, K_t) * (W_K.shape[-1] ** -0.5)
    if M is not None:
        S = S + M
    A = F.softmax(S, dim=-1)
    return torch.matmul(A, V), A
''',
        SHAPES_ANS: '''ans_cross_shapes = "b\\n"
''',
        CAUSAL_ANS: '''ans_cross_causal = " d"
''',
    },
}

WRONG = {
    "q01_projections_computed_in_float64": ({
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    # do the products in double precision to avoid rounding error
    X = X.double()
    return X @ W_Q.double(), X @ W_K.double(), X @ W_V.double()
''',
    }, {"mistake": "Computes the projections in float64 whatever the input dtype and never casts back, so "
                   "float32 and float16 inputs give float64 Q, K, V (and a float64 O and A downstream) "
                   "instead of tensors in the input's dtype.",
        "where": ["q01", "q07", "q09", "q13"]}),

    # 0 * log(0) = NaN: huggingface/trl #7221, tensorflow/probability #241, pytorch-ood #84
    "q03_nan_entropy_comparison_falls_to_else": ({
        SCALE_ANS: '''_g = torch.Generator().manual_seed(0)
_Q = torch.randn(32, 512, generator=_g)
_K = torch.randn(32, 512, generator=_g)
_A_scaled = torch.softmax(scaled_scores(_Q, _K), dim=-1)
_A_raw = torch.softmax(_Q @ _K.transpose(-2, -1), dim=-1)
_H_scaled = float(-(_A_scaled * torch.log2(_A_scaled)).sum(dim=-1).mean())
_H_raw = float(-(_A_raw * torch.log2(_A_raw)).sum(dim=-1).mean())

ans_scale = "b" if _H_raw < _H_scaled else "a"
''',
    }, {"mistake": "Its scale experiment takes the entropy as -(A * log2 A) without treating 0 log 0 as 0: the "
                   "unscaled float32 rows contain exact zeros, the entropy is NaN, the comparison is False "
                   "and it answers 'a' (flatter rows) instead of 'b' (the entropies fall toward 0).",
        "where": ["q03"]}),

    "q03_weight_variance_read_as_spread": ({
        SCALE_ANS: '''_g = torch.Generator().manual_seed(0)
_Q = torch.randn(8, 512, dtype=torch.float64, generator=_g)
_K = torch.randn(8, 512, dtype=torch.float64, generator=_g)
_A_scaled = torch.softmax(scaled_scores(_Q, _K), dim=-1)
_A_raw = torch.softmax(_Q @ _K.transpose(-2, -1), dim=-1)

# a larger variance across a row means the weights are more spread out
ans_scale = "a" if _A_raw.var(dim=-1).mean() > _A_scaled.var(dim=-1).mean() else "b"
''',
    }, {"mistake": "Measures how spread a row is by the variance of its weights; a one-hot row has the largest "
                   "variance, so it reads the unscaled rows as more spread and answers 'a' instead of 'b' "
                   "(the row entropies fall toward 0).",
        "where": ["q03"]}),

    "q06_lower_triangle_row_sums_of_unmasked_weights": ({
        MASK_ANS: '''_g = torch.Generator().manual_seed(0)
_S = torch.randn(6, 6, dtype=torch.float64, generator=_g)
_A_off = attention_weights(_S)                   # causal mask switched off
# the weights a causal model is allowed to use are the lower triangle
_sums = _A_off.tril().sum(dim=-1)
ans_mask = "a" if not torch.allclose(_sums, torch.ones(6, dtype=torch.float64)) else "c"
''',
    }, {"mistake": "With the mask switched off it sums only the lower triangle of each row, finds sums below 1 "
                   "and answers 'a' (rows stop summing to 1); the unmasked rows still sum to 1, and the real "
                   "problem is that position t reads token t+1 ('c').",
        "where": ["q06"]}),

    "q06_letter_with_full_stop": ({
        MASK_ANS: '''ans_mask = "c."
''',
    }, {"mistake": "Writes the letter as a sentence with a full stop, 'c.', which strip() leaves as two "
                   "characters, so the answer is not one of the letters a-d.",
        "where": ["q06"]}),

    "q08_keys_scaled_in_place": ({
        NW: '''def nadaraya_watson(q, K, V):
    K /= math.sqrt(q.shape[-1])                  # fold the scale into the keys
    kappa = torch.exp(K @ q)
    return (kappa[:, None] * V).sum(dim=0) / kappa.sum()
''',
    }, {"mistake": "Folds the 1/sqrt(d_k) scale into the keys with an in-place division, which changes the "
                   "caller's K (and the tensor K is a view of): a second call with the same keys scales them "
                   "again and returns a different, too flat average.",
        "where": ["q08"]}),

    # Python's mutable default argument gotcha (pydis mutable-default-args, cohpy notebook, Lutz)
    "q12_shapes_accumulated_in_mutable_default": ({
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False, shapes=[]):
    shapes += [(d_model, d_k), (d_model, d_k), (d_model, d_v)]
    if with_output:
        shapes.append((d_v, d_model))
    return sum(rows * cols for rows, cols in shapes)
''',
    }, {"mistake": "Collects the weight shapes in a list default argument, which Python creates once: every "
                   "call adds its shapes to those of the earlier calls, so only the first call is right "
                   "(the lesson's 384/64/64 counts come out far too large).",
        "where": ["q12"]}),

    # source and target padded to common lengths: joeynmt #151, fairseq #245
    "q14_y_padded_to_query_length_in_experiment": ({
        SHAPES_ANS: '''import torch.nn.functional as F

_g = torch.Generator().manual_seed(0)
_T, _T2 = 5, 3
_X = torch.randn(_T, 6, dtype=torch.float64, generator=_g)
_Y = torch.randn(_T2, 6, dtype=torch.float64, generator=_g)
_Y = F.pad(_Y, (0, 0, 0, _T - _T2))            # pad Y with zero tokens so the two sequences line up
_W = [torch.randn(6, 4, dtype=torch.float64, generator=_g) for _ in range(3)]
_O, _A = cross_attention(_X, _Y, *_W)
ans_cross_shapes = {(_T, _T): "a", (_T, _T2): "b", (_T2, _T): "c"}[tuple(_A.shape)]
''',
    }, {"mistake": "Pads Y with zero tokens to X's length before its shape experiment, so S comes out T x T and "
                   "it answers 'a' instead of 'b' (S is T x T', O is T x d_v).",
        "where": ["q14"]}),

    # torch.nn.TransformerDecoderLayer.forward(..., memory_mask=None, ..., memory_is_causal=False)
    "q15_memory_is_causal_argument_read_as_always": ({
        CAUSAL_ANS: '''import inspect

_params = inspect.signature(torch.nn.TransformerDecoderLayer.forward).parameters
# PyTorch's decoder layer has a causal switch for its cross-attention, so every decoder needs one
ans_cross_causal = "a" if "memory_is_causal" in _params else "d"
''',
    }, {"mistake": "Reads the existence of a memory_is_causal / memory_mask argument on PyTorch's decoder layer "
                   "as proof that cross-attention always needs a causal mask and answers 'a'; it only makes "
                   "sense when X and Y share one time axis ('d').",
        "where": ["q15"]}),

    "q15_markdown_bold_copied_with_letter": ({
        CAUSAL_ANS: '''ans_cross_causal = "**d**"
''',
    }, {"mistake": "Copies the option marker from the markdown source together with its bold asterisks, "
                   "'**d**', which is not a single letter.",
        "where": ["q15"]}),

    # small products are dominated by call overhead (ml3x matmul benchmark, MATLAB Answers 404667)
    "q16_timed_on_tiny_sequences": ({
        COST_ANS: '''import timeit

_g = torch.Generator().manual_seed(0)


def _seconds(T, d_k=8):
    Q = torch.randn(T, d_k, generator=_g)
    K = torch.randn(T, d_k, generator=_g)
    return min(timeit.repeat(lambda: Q @ K.transpose(-2, -1), number=200, repeat=5))


_ratio = _seconds(4) / _seconds(2)               # doubling T
ans_complexity = "b" if _ratio < 1.5 else ("a" if _ratio < 3 else "c")
''',
    }, {"mistake": "Times the score product on tiny sequences (T = 2 and 4), where the call overhead dominates, "
                   "sees the time barely change and answers 'b' (not at all) instead of 'c' (quadratic).",
        "where": ["q16"]}),

    "q16_cost_measured_as_size_of_q_and_k": ({
        COST_ANS: '''_g = torch.Generator().manual_seed(0)


def _work(T, d_k=16):
    Q = torch.randn(T, d_k, generator=_g)
    K = torch.randn(T, d_k, generator=_g)
    return Q.numel() + K.numel()                  # numbers the product has to go through


_ratio = _work(200) / _work(100)
ans_complexity = {1: "b", 2: "a", 4: "c", 8: "d"}[round(_ratio)]
''',
    }, {"mistake": "Measures the cost by the number of entries of Q and K, which doubles with T, and answers "
                   "'a' (linear) instead of 'c': S has T^2 entries of d_k multiply-adds each.",
        "where": ["q16"]}),

    "q11_lesson_rank_counted_as_nonzero_rows": ({
        RANK: '''max_rank_S = 8

_K = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]], dtype=torch.float64)
_Q = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]], dtype=torch.float64)
_S = scaled_scores(_Q, _K)
rank_S_lesson = int((_S.abs().sum(dim=-1) > 0).sum())      # rank = number of nonzero rows
''',
    }, {"mistake": "Counts the nonzero rows of the lesson's S as its rank (true only after row reduction), "
                   "so rank_S_lesson is 5 instead of 2.",
        "where": ["q11"]}),

    # the quarter-root split of the scale (guided-diffusion QKVAttention) carried over to V as well
    "q13_quarter_root_scale_also_on_values": ({
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    s = W_Q.shape[-1] ** -0.25                   # split 1/sqrt(d_k) over both sides
    Q, K, V = (X @ W_Q) * s, (Y @ W_K) * s, (Y @ W_V) * s
    S = Q @ K.transpose(-2, -1)
    A = attention_weights(S, M)
    return A @ V, A
''',
    }, {"mistake": "Splits the 1/sqrt(d_k) scale as d_k**-0.25 on the queries and keys but also multiplies "
                   "the values by it, so A is right and the output O is shrunk by d_k**-0.25.",
        "where": ["q13"]}),
}
