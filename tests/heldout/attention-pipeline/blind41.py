"""Blind held-out set 41 for attention-pipeline.

Forty-first blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, its diagnosis code, the reference solution, `variants.py`, the naming
tests or `measure.py`, and without running the grader (`autograder grade`, `tests.heldout.measure`) on these
variants. What was read: the student-facing text and solution cells of the master notebook (including its
public checks: the multiple-choice answers must be a str that is one letter after strip().lower(); the
q01 check unpacks `_Q, _K, _V = project_qkv(...)`; the q07 check wants rows of A summing to 1 with
atol=1e-5), full_marks.ipynb (whose cells these replace), `harness.py`, the lesson text
`lesson-08-attention-pipeline.txt` (its rank paragraph: rank(S) = 2 for the hand-crafted Q and K, and
"the budget is on the scores"), blind40.py in full (for the format) and only the module docstrings and
variant names of the earlier blind sets (to lean on less-touched questions and not repeat a mistake an
earlier name shows).

Public sources used (the `search` tool, pages / issues / code corpora):
- Stack Overflow question 16940293 "Why is there no tuple comprehension in Python?" (`(i for i in ...)`
  is a generator, not a tuple), for a projection that returns a generator expression (q01);
- the lemma.wiki glossary entry "temperature scaling" ("dividing every logit by the same constant
  preserves the argmax"), for an experiment that only compares argmaxes and concludes that the scale
  changes nothing (q03);
- FluxML/NNlib.jl issue #70 ("sum of vector 1.0000000000000002") and Russell91/apollo issue #5 ("probabilities
  do not sum to 1", numpy's exact-sum check), for rows of a float32 softmax tested with `== 1` (q06);
- the sinusoidal PositionalEncoding of "Attention Is All You Need" as copied in many public repositories
  (e.g. aiwq2/interview-review position_embedding.py: `pe[:, 0::2] = torch.sin(position * div_term)`,
  `x = x + self.pe[:, :x.size(1)]`), for positions added to X inside self_attention (q07);
- the dev.to post "Log and Exponential for Programmers" (big-O exponents read with log base 2), for a
  growth exponent taken with the natural log (q16).
Variants carrying a slip seen there name the source in a comment.

Round 41 leans on the questions the earlier sets touched least (q15 twice, q03 twice, q06, q14, q16, then
q11, q01, q12 twice) and on code shapes not used before: a generator expression returned where a tuple is asked
(q01), an argmax-only scale experiment (q03), score variance read as "flatter rows" (q03), an exact `== 1`
float32 row-sum test (q06), the (a)/(b) answers of q11 swapped, a thousands-separated f-string returned as
the count and `and` used as an unparenthesised inline condition (q12), shape[0], shape[1] read off a batched experiment whose batch size equals T (q14), the
otter placeholder `...` left in (q15), a comment typed inside the string quotes (q15), log instead of log2
for the growth exponent (q16), sinusoidal positions added inside self_attention (q07), the entropy summed
with a float64 accumulator (q10), and an optional mask silently dropped unless its shape equals the scores'
(q13). Each wrong variant changes one cell of an otherwise full-marks notebook and holds exactly one
mistake; `where` lists every question whose tests may lose points (q07, q09's zero-projection test and
q13's self-attention check go through project_qkv and self_attention). The experiment cells draw from
their own torch.Generator, so they do not move the global random state. Every variant was checked against
plain torch (`torch.softmax`, `torch.nn.functional.scaled_dot_product_attention`, the lesson's formula and
numbers, the full-marks cells) on several shapes and dtypes (float64, float32, float16; batched; d_k != d_v;
T_q != T_k; the lesson's inputs) with a throwaway script under /tmp/w41/ before it was written down.

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
    # nanoGPT's masked_fill(tril == 0, -inf): every causal row keeps its diagonal, so no row is all -inf
    "nanogpt_tril_masked_fill_self_attention": {
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    if causal:
        T = S.shape[-1]
        keep = torch.tril(torch.ones(T, T, dtype=torch.bool, device=S.device))
        S = S.masked_fill(keep == 0, float("-inf"))
    A = attention_weights(S)
    return A @ V, A
''',
    },
    "numpy_tri_prefix_average": {
        AVG: '''import numpy as np


def prefix_average_matrix(T):
    # np.tri: ones on and below the diagonal (float64); divide row t by t
    return torch.from_numpy(np.tri(T) / np.arange(1, T + 1)[:, None])
''',
    },
    "arange_where_mask_and_computed_letters": {
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    pos = torch.arange(T, device=device)
    blocked = pos.unsqueeze(0) > pos.unsqueeze(1)            # key index after the query index
    lowest = torch.full((), torch.finfo(dtype).min, dtype=dtype, device=device)
    zero = torch.zeros((), dtype=dtype, device=device)
    return torch.where(blocked, lowest, zero)
''',
        SHAPES_ANS: '''ans_cross_shapes = ("b")          # parentheses alone do not make a tuple
''',
        CAUSAL_ANS: '''ans_cross_causal = "abcd"[-1]
''',
        COST_ANS: '''ans_complexity = chr(ord("a") + 2)
''',
    },
    # (A Y) W_V = A (Y W_V): mix the raw rows of Y first, project afterwards
    "mix_then_project_cross_attention": {
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q = X @ W_Q
    K = Y @ W_K
    A = attention_weights(scaled_scores(Q, K), M)
    O = (A @ Y) @ W_V
    return O, A
''',
    },
    "where_entropy_pow_and_bool_times_count": {
        ENT: '''def row_entropy_bits(A):
    terms = torch.where(A == 0, torch.zeros_like(A), A * torch.log2(A))     # 0 log 0 = 0
    return -terms.sum(dim=-1)


def effective_tokens(A):
    return torch.pow(2, row_entropy_bits(A))
''',
        PARAMS: '''import math


def qkv_param_count(d_model, d_k, d_v, with_output=False):
    return math.prod((d_model, 2 * d_k + d_v)) + bool(with_output) * d_v * d_model
''',
    },
}

WRONG = {
    # Stack Overflow 16940293: parentheses around a comprehension give a generator, not a tuple
    "q01_generator_expression_instead_of_tuple": ({
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    return (X @ W for W in (W_Q, W_K, W_V))      # Q, K, V
''',
    }, {"mistake": "Returns a generator expression instead of the tuple (Q, K, V): it can be unpacked once, "
                   "but it has no length, cannot be indexed, and is empty the second time it is read.",
        "where": ["q01", "q07", "q09", "q13"]}),

    # lemma.wiki "temperature scaling": a common scale preserves the argmax
    "q03_argmax_experiment_read_as_nothing_changes": ({
        SCALE_ANS: '''_g = torch.Generator().manual_seed(0)
_Q = torch.randn(8, 512, dtype=torch.float64, generator=_g)
_K = torch.randn(8, 512, dtype=torch.float64, generator=_g)
_A_scaled = torch.softmax(scaled_scores(_Q, _K), dim=-1)
_A_raw = torch.softmax(_Q @ _K.transpose(-2, -1), dim=-1)

# does each query still pick the same key without the scale?
if torch.equal(_A_scaled.argmax(dim=-1), _A_raw.argmax(dim=-1)):
    ans_scale = "c"
else:
    ans_scale = "b"
''',
    }, {"mistake": "Only checks that each row's most-weighted key is the same with and without the scale (a "
                   "common positive factor never moves the argmax) and answers 'c' (nothing changes), "
                   "instead of 'b': without the scale the rows collapse onto one key and the entropy falls to 0.",
        "where": ["q03"]}),

    "q03_score_variance_read_as_flatter_rows": ({
        SCALE_ANS: '''_g = torch.Generator().manual_seed(0)
_Q = torch.randn(8, 512, dtype=torch.float64, generator=_g)
_K = torch.randn(8, 512, dtype=torch.float64, generator=_g)
_var_scaled = float(scaled_scores(_Q, _K).var())
_var_raw = float((_Q @ _K.transpose(-2, -1)).var())

# the unscaled scores are far more spread out, so the weights spread over more keys
ans_scale = "a" if _var_raw > _var_scaled else "b"
''',
    }, {"mistake": "Reads the larger variance of the unscaled scores as 'the weights spread out' and answers "
                   "'a' (rows flatter); widely spread scores make the softmax peak on one key, so the "
                   "entropies fall toward 0 ('b').",
        "where": ["q03"]}),

    # FluxML/NNlib.jl #70, Russell91/apollo #5: softmax rows are 1 only up to rounding
    "q06_exact_float32_row_sum_read_as_rows_not_summing": ({
        MASK_ANS: '''_g = torch.Generator().manual_seed(0)
_X = torch.randn(64, 16, generator=_g)
_W = [torch.randn(16, 16, generator=_g) for _ in range(3)]
_Q, _K, _V = (_X @ _w for _w in _W)
_A = attention_weights(scaled_scores(_Q, _K))          # no mask

# with the mask switched off, do the rows of A still sum to 1?
if bool((_A.sum(dim=-1) == 1).all()):
    ans_mask = "c"
else:
    ans_mask = "a"
''',
    }, {"mistake": "Tests the float32 row sums of the unmasked weights with exact `== 1`, which rounding "
                   "breaks, and answers 'a' (rows stop summing to 1) instead of 'c' (position t reads the "
                   "token it must predict).",
        "where": ["q06"]}),

    # "Attention Is All You Need" sinusoidal PositionalEncoding (aiwq2/interview-review position_embedding.py)
    "q07_sinusoidal_positions_added_to_inputs": ({
        SELF: '''def _positions(T, d_model, dtype, device):
    pos = torch.arange(T, dtype=dtype, device=device)[:, None]
    div = torch.pow(10000.0, torch.arange(0, d_model, 2, dtype=dtype, device=device) / d_model)
    pe = torch.zeros(T, d_model, dtype=dtype, device=device)
    pe[:, 0::2] = torch.sin(pos / div)
    pe[:, 1::2] = torch.cos(pos / div)[:, : d_model // 2]
    return pe


def self_attention(X, W_Q, W_K, W_V, causal=True):
    X = X + _positions(X.shape[-2], X.shape[-1], X.dtype, X.device)      # tokens need their positions
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    M = causal_additive_mask(X.shape[-2], S.dtype, S.device) if causal else None
    A = attention_weights(S, M)
    return A @ V, A
''',
    }, {"mistake": "Adds sinusoidal positional encodings to X before projecting, a step the question does not "
                   "ask for: Q, K and V (and so A and O) are computed from X + P instead of X.",
        "where": ["q07", "q09", "q13"]}),

    "q10_entropy_summed_in_float64": ({
        ENT: '''def row_entropy_bits(A):
    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))
    return -(A * logs).sum(dim=-1, dtype=torch.float64)      # accumulate in double precision


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
''',
    }, {"mistake": "Sums the entropy terms with dtype=torch.float64 and never casts back, so float32 and "
                   "float16 weights give float64 entropies and effective token counts instead of results in "
                   "the input's dtype.",
        "where": ["q10"]}),

    "q11_answers_a_and_b_swapped": ({
        RANK: '''max_rank_S = 2

rank_S_lesson = 8
''',
    }, {"mistake": "Swaps the two answers: the largest possible rank of S for d_k = 8 is 8 (it was given 2), and "
                   "the rank of the lesson's score matrix is 2 (it was given 8).",
        "where": ["q11"]}),

    "q12_count_returned_as_formatted_string": ({
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    n = d_model * (2 * d_k + d_v)
    if with_output:
        n += d_v * d_model
    return f"{n:,}"          # 73,728 reads better than 73728
''',
    }, {"mistake": "Returns the count as a formatted string ('72', '73,728') instead of an int, so it never "
                   "equals the number of weights.",
        "where": ["q12"]}),

    "q12_and_as_inline_condition_without_parentheses": ({
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    # add W_O's weights only when with_output is set
    return d_model * (2 * d_k + d_v) + with_output and d_v * d_model
''',
    }, {"mistake": "Uses `and` as an inline condition without parentheses: `+` binds first, so the function "
                   "returns d_v * d_model (the output projection alone, 24 instead of 72) whatever with_output is.",
        "where": ["q12"]}),

    "q13_mask_dropped_unless_same_shape": ({
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    S = scaled_scores(Q, K)
    if M is not None and M.shape != S.shape:
        M = None                      # a mask of another shape does not belong to these scores
    A = attention_weights(S, M)
    return A @ V, A
''',
    }, {"mistake": "Silently drops the additive mask whenever its shape differs from the scores', so a (T, T') "
                   "mask given with batched inputs (..., T, T') is never applied and blocked keys keep weight.",
        "where": ["q13"]}),

    "q14_batched_experiment_reads_batch_axis": ({
        SHAPES_ANS: '''_g = torch.Generator().manual_seed(0)
_X = torch.randn(3, 3, 6, dtype=torch.float64, generator=_g)     # 3 sequences of T = 3 tokens
_Y = torch.randn(3, 5, 6, dtype=torch.float64, generator=_g)     # 3 sequences of T' = 5 tokens
_W = [torch.randn(6, 4, dtype=torch.float64, generator=_g), torch.randn(6, 4, dtype=torch.float64, generator=_g),
      torch.randn(6, 2, dtype=torch.float64, generator=_g)]
_O, _A = cross_attention(_X, _Y, *_W)
_rows, _cols = _A.shape[0], _A.shape[1]
_out_rows = _O.shape[0]
if (_rows, _cols) == (3, 3) and _out_rows == 3:
    ans_cross_shapes = "a"
elif (_rows, _cols) == (3, 5) and _out_rows == 3:
    ans_cross_shapes = "b"
elif (_rows, _cols) == (5, 3) and _out_rows == 5:
    ans_cross_shapes = "c"
else:
    ans_cross_shapes = "d"
''',
    }, {"mistake": "Reads the shapes with shape[0] and shape[1] on a batched experiment whose batch size equals "
                   "T, so it sees S as 3 x 3 and answers 'a' (S is T x T) instead of 'b' (S is T x T').",
        "where": ["q14"]}),

    "q15_placeholder_left_unanswered": ({
        CAUSAL_ANS: '''ans_cross_causal = ...
''',
    }, {"mistake": "Leaves the notebook's placeholder `...` (Ellipsis) as the answer instead of a letter ('d').",
        "where": ["q15"]}),

    "q15_comment_typed_inside_the_quotes": ({
        CAUSAL_ANS: '''ans_cross_causal = "d  # only when X and Y share one time axis"
''',
    }, {"mistake": "Types the comment inside the string's quotes, so the answer is the whole sentence "
                   "'d  # only when ...' rather than the single letter 'd'.",
        "where": ["q15"]}),

    # big-O exponents are read with log base 2 ("Log and Exponential for Programmers")
    "q16_growth_exponent_with_natural_log": ({
        COST_ANS: '''_g = torch.Generator().manual_seed(0)


def _multiply_adds(T, d_k=64):
    Q = torch.randn(T, d_k, generator=_g)
    K = torch.randn(T, d_k, generator=_g)
    S = Q @ K.transpose(-2, -1)
    return S.numel() * d_k            # one d_k-long dot product per score


_ratio = _multiply_adds(200) / _multiply_adds(100)        # doubling T
_power = round(math.log(_ratio))                          # cost ~ T ** power
ans_complexity = {0: "b", 1: "a", 2: "c", 3: "d"}[_power]
''',
    }, {"mistake": "Takes the growth exponent of a doubling experiment with the natural log (ln 4 = 1.39, "
                   "rounded to 1) instead of log base 2 (log2 4 = 2), and answers 'a' (linear) instead of "
                   "'c' (quadratic).",
        "where": ["q16"]}),
}
