"""Blind held-out set 42 for attention-pipeline.

Forty-second blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, its diagnosis code, the reference solution, `variants.py`, the naming
tests or `measure.py`, and without running the grader (`autograder grade`, `tests.heldout.measure`) on these
variants. What was read: the student-facing text and solution cells of the master notebook (including its
public checks: the multiple-choice answers must be a str that is one letter after strip().lower(); the q11
answers Python ints; qkv_param_count(6, 4, 4) == 72 and the with_output count > 72; the q13 check that
cross-attention with Y = X equals non-causal self-attention), full_marks.ipynb (whose cells these replace),
`harness.py`, the lesson text `lesson-08-attention-pipeline.txt` (its complexity exercise, "the score matrix
has T x T entries", and its rank paragraph), blind41.py in full (for the format) and only the module
docstrings and variant names of the earlier blind sets (to lean on less-touched questions and not repeat a
mistake an earlier name shows).

Public sources used (the `search` tool, issues / docs / pages corpora):
- scipy/scipy PR #10712 "ENH: add axis parameter to stats.entropy" (the old code normalised with
  `pk = 1.0*pk / np.sum(pk, axis=0)`, "a non-documented default axis=0") and issue #2956, for an entropy
  that renormalises the weights along axis 0 the way scipy.stats.entropy does by default (q10);
- the Keras / TensorFlow docs of tf.keras.layers.Attention ("Dot-product attention layer, a.k.a.
  Luong-style attention": `scores = tf.matmul(query, key, transpose_b=True)`, no 1/sqrt(d_k), use_scale
  defaults to False), for a cross-attention ported from that layer (q13);
- the unicodeinvisible.com and mojicnt.click glossary pages on U+200B ("when text copied from web pages
  contains zero-width spaces, string comparisons fail despite identical appearance"), for a letter pasted
  with an invisible zero-width space, which str.strip() does not remove (q14);
- the same "identical-looking strings" pages (look-alike characters from another script), for the
  Cyrillic letter "с" typed with the keyboard layout left on Russian (q06).
Variants carrying a slip seen there name the source in a comment.

Round 42 leans on the questions the earlier sets touched least (q03, q06, q14, q16 twice each, then q15,
q11, q12, q10, q13, q01) and on code shapes not used before: the scale "deleted" by dividing by sqrt(d_k)
once more (q03), row sums compared to decide that the scale changes nothing (q03), a look-alike Cyrillic
letter (q06), chr(ord("a") + 3) for the third option (q06), a score experiment written as an einsum whose
output indices put keys first (q14), a zero-width space pasted after the letter (q14), a causal mask that
"fits" an equal-length cross-attention experiment read as "whenever T = T'" (q15), a cost experiment whose
Q and K are T x T so d_k grows with T (q16), a growth exponent truncated with int() (q16), max_rank_S
averaged over random trials into a float (q11), W_O counted as a square d_v x d_v block (q12), scipy-style
renormalisation along axis 0 inside the entropy (q10), Keras' unscaled Luong scores in cross_attention
(q13), and .squeeze() on the projections, which drops a batch axis of size 1 (q01). Each wrong variant
changes one cell of an otherwise full-marks notebook and holds exactly one mistake; `where` lists every
question whose tests may lose points (q07, q09's zero-projection test and q13's self-attention check go
through project_qkv and self_attention). The experiment cells draw from their own torch.Generator, so they
do not move the global random state. Every variant was checked against plain torch (`torch.softmax`,
`torch.nn.functional.scaled_dot_product_attention`, the lesson's formula and numbers, the full-marks cells)
on several shapes and dtypes (float64, float32, float16; batched, including a batch of 1; d_k != d_v;
T_q != T_k; the lesson's inputs) with a throwaway script under /tmp/w42/ before it was written down.

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
    # a namedtuple is a tuple (unpacks, indexes, has len 3); the q15 answer is an annotated assignment
    "namedtuple_projection_and_annotated_answer": {
        PROJ: '''from collections import namedtuple

QKV = namedtuple("QKV", ["Q", "K", "V"])


def project_qkv(X, W_Q, W_K, W_V):
    return QKV(Q=torch.matmul(X, W_Q), K=torch.matmul(X, W_K), V=torch.matmul(X, W_V))
''',
        CAUSAL_ANS: '''ans_cross_causal: str = "d"
''',
    },
    # each row padded out with zeros: row t is t copies of 1/t, then T - t zeros
    "padded_rows_prefix_average": {
        AVG: '''import torch.nn.functional as F


def prefix_average_matrix(T):
    rows = [F.pad(torch.full((t,), 1.0 / t, dtype=torch.float64), (0, T - t)) for t in range(1, T + 1)]
    return torch.stack(rows)
''',
    },
    # W_O has as many weights as W_V (d_model x d_v), so it doubles the V term
    "value_term_doubled_count": {
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    value_like = 2 if with_output else 1          # W_V, and W_O of the same size
    return d_model * (2 * d_k + value_like * d_v)
''',
    },
    "casefold_unicode_prefix_and_ascii_lowercase_letters": {
        SCALE_ANS: '''ans_scale = u"b"
''',
        MASK_ANS: '''ans_mask = "C".casefold()
''',
        SHAPES_ANS: '''import string

ans_cross_shapes = string.ascii_lowercase[1]
''',
        COST_ANS: '''ans_complexity = "".join(["c"])
''',
    },
    # (tril - 1) is 0 on and below the diagonal and -1 above; times finfo.max gives finfo.min
    "tril_minus_one_mask_and_transposed_values_kernel": {
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    keep = torch.ones(T, T, dtype=dtype, device=device).tril()
    return (keep - 1) * torch.finfo(dtype).max
''',
        NW: '''def nadaraya_watson(q, K, V):
    kappa = torch.exp(K @ q / math.sqrt(q.shape[-1]))      # (T,)
    return V.transpose(-2, -1) @ kappa / kappa.sum()       # (d_v, T) @ (T,) -> (d_v,)
''',
    },
}

WRONG = {
    "q01_projections_squeezed": ({
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    Q = (X @ W_Q).squeeze()      # drop stray singleton axes
    K = (X @ W_K).squeeze()
    V = (X @ W_V).squeeze()
    return Q, K, V
''',
    }, {"mistake": "Calls .squeeze() on the projections, which removes every axis of size 1: a batch of one "
                   "sequence (1, T, d_model) gives Q, K, V of shape (T, d) instead of (1, T, d), and a "
                   "single token or a width of 1 loses its axis too.",
        "where": ["q01", "q07", "q09", "q13"]}),

    "q03_scale_deleted_by_dividing_again": ({
        SCALE_ANS: '''_g = torch.Generator().manual_seed(0)
_Q = torch.randn(8, 512, dtype=torch.float64, generator=_g)
_K = torch.randn(8, 512, dtype=torch.float64, generator=_g)
_S = scaled_scores(_Q, _K)
_S_without = _S / math.sqrt(512)             # take the 1/sqrt(d_k) factor out


def _mean_entropy(S):
    A = torch.softmax(S, dim=-1)
    return float(-(A * torch.log2(A)).sum(dim=-1).mean())


ans_scale = "a" if _mean_entropy(_S_without) > _mean_entropy(_S) else "b"
''',
    }, {"mistake": "To delete the 1/sqrt(d_k) factor it divides the scaled scores by sqrt(d_k) once more "
                   "(scaling by 1/d_k instead of removing the scale), sees flatter rows and answers 'a'; "
                   "without the scale the rows collapse onto one key ('b').",
        "where": ["q03"]}),

    "q03_row_sums_compared_as_nothing_changes": ({
        SCALE_ANS: '''_g = torch.Generator().manual_seed(0)
_Q = torch.randn(8, 512, dtype=torch.float64, generator=_g)
_K = torch.randn(8, 512, dtype=torch.float64, generator=_g)
_A_scaled = torch.softmax(scaled_scores(_Q, _K), dim=-1)
_A_raw = torch.softmax(_Q @ _K.transpose(-2, -1), dim=-1)

# both are still probability distributions over the keys
ans_scale = "c" if torch.allclose(_A_scaled.sum(dim=-1), _A_raw.sum(dim=-1)) else "b"
''',
    }, {"mistake": "Compares only the row sums with and without the scale (both are 1 for any softmax) and "
                   "answers 'c' (nothing changes), instead of 'b': without the scale the row entropies fall "
                   "toward 0.",
        "where": ["q03"]}),

    # look-alike letters from another script ("identical-looking strings" pages)
    "q06_cyrillic_look_alike_letter": ({
        MASK_ANS: '''ans_mask = "\u0441"
''',
    }, {"mistake": "Types the Cyrillic letter 'с' (U+0441, keyboard layout left on Russian) instead of the "
                   "Latin 'c': it looks the same but is not one of the letters a-d.",
        "where": ["q06"]}),

    "q06_letter_offset_counted_from_one": ({
        MASK_ANS: '''ans_mask = chr(ord("a") + 3)      # the third option
''',
    }, {"mistake": "Computes the letter as chr(ord('a') + 3) for the third option, counting the offset from 1, "
                   "which gives 'd' (no gradient) instead of 'c'.",
        "where": ["q06"]}),

    "q10_renormalised_along_axis_0_like_scipy": ({
        ENT: '''def row_entropy_bits(A):
    # normalise pk as scipy.stats.entropy does (scipy PR #10712: pk / np.sum(pk, axis=0))
    pk = A / A.sum(dim=0)
    logs = torch.where(pk > 0, torch.log2(pk), torch.zeros_like(pk))
    return -(pk * logs).sum(dim=-1)


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
''',
    }, {"mistake": "Renormalises the weights along axis 0 (each column, or the batch axis of batched input, "
                   "divided by its sum) before taking the row entropies, so the rows are no longer the "
                   "attention distributions and H(A_t) comes out wrong.",
        "where": ["q10"]}),

    "q11_max_rank_averaged_over_trials": ({
        RANK: '''_g = torch.Generator().manual_seed(0)
_ranks = [int(torch.linalg.matrix_rank(torch.randn(100, 8, dtype=torch.float64, generator=_g)
                                       @ torch.randn(8, 100, dtype=torch.float64, generator=_g)))
          for _ in range(5)]
max_rank_S = sum(_ranks) / len(_ranks)        # average over the trials

rank_S_lesson = 2
''',
    }, {"mistake": "Averages the measured ranks with true division, so max_rank_S is the float 8.0 rather "
                   "than the Python int 8 the question asks for.",
        "where": ["q11"]}),

    "q12_output_projection_counted_as_square_d_v": ({
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    n = d_model * (2 * d_k + d_v)
    if with_output:
        n += d_v * d_v          # W_O on the head's output
    return n
''',
    }, {"mistake": "Counts W_O as a square d_v x d_v matrix (d_v**2 weights) instead of d_v x d_model, so "
                   "the count with the output projection is wrong whenever d_v != d_model (98304 expected "
                   "for 384, 64, 64; it gives 77824).",
        "where": ["q12"]}),

    # tf.keras.layers.Attention: "scores = tf.matmul(query, key, transpose_b=True)", use_scale=False
    "q13_keras_luong_scores_without_scale": ({
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    S = torch.matmul(Q, K.transpose(-2, -1))          # Luong-style dot-product scores
    A = attention_weights(S, M)
    return A @ V, A
''',
    }, {"mistake": "Ports Keras' Luong-style Attention layer: the cross-attention scores are Q K^T without "
                   "the 1/sqrt(d_k) scale, so the weights are too peaked.",
        "where": ["q13"]}),

    "q14_experiment_scores_with_keys_first": ({
        SHAPES_ANS: '''_g = torch.Generator().manual_seed(0)
_T, _T2 = 5, 3
_X = torch.randn(_T, 6, dtype=torch.float64, generator=_g)
_Y = torch.randn(_T2, 6, dtype=torch.float64, generator=_g)
_Q = _X @ torch.randn(6, 4, dtype=torch.float64, generator=_g)
_K = _Y @ torch.randn(6, 4, dtype=torch.float64, generator=_g)
_S = torch.einsum("id,jd->ji", _Q, _K) / math.sqrt(4)      # score of query i against key j
# O has one row per row of S
ans_cross_shapes = {(_T, _T): "a", (_T, _T2): "b", (_T2, _T): "c"}[tuple(_S.shape)]
''',
    }, {"mistake": "Builds the experiment's score matrix with an einsum whose output indices put the keys "
                   "first ('...->ji'), so S comes out T' x T and it answers 'c' instead of 'b' (S is T x T', "
                   "O is T x d_v).",
        "where": ["q14"]}),

    # U+200B pasted from a web page (unicodeinvisible.com, mojicnt.click glossary)
    "q14_letter_with_pasted_zero_width_space": ({
        SHAPES_ANS: '''ans_cross_shapes = "b\u200b"
''',
    }, {"mistake": "The letter was pasted with an invisible zero-width space after it (U+200B), which "
                   "str.strip() does not remove, so the answer is a two-character string, not 'b'.",
        "where": ["q14"]}),

    "q15_equal_length_mask_experiment": ({
        CAUSAL_ANS: '''_g = torch.Generator().manual_seed(0)
_X = torch.randn(4, 6, dtype=torch.float64, generator=_g)
_Y = torch.randn(4, 6, dtype=torch.float64, generator=_g)        # T' = T
_W = [torch.randn(6, 4, dtype=torch.float64, generator=_g) for _ in range(3)]
try:
    cross_attention(_X, _Y, *_W, M=causal_additive_mask(4, torch.float64))
    _fits = True
except RuntimeError:
    _fits = False
# the causal mask can be applied as soon as the two lengths match
ans_cross_causal = "c" if _fits else "b"
''',
    }, {"mistake": "Only checks that a causal mask broadcasts onto the scores when T = T' and answers 'c' "
                   "(whenever T = T'); a causal mask only means something when X and Y share one time axis "
                   "('d').",
        "where": ["q15"]}),

    "q16_cost_experiment_with_square_queries": ({
        COST_ANS: '''_g = torch.Generator().manual_seed(0)


def _multiply_adds(T):
    Q = torch.randn(T, T, generator=_g)        # T tokens
    K = torch.randn(T, T, generator=_g)
    S = Q @ K.transpose(-2, -1)
    return S.numel() * Q.shape[-1]             # one dot product per score


_power = round(math.log2(_multiply_adds(200) / _multiply_adds(100)))     # doubling T
ans_complexity = {0: "b", 1: "a", 2: "c", 3: "d"}[_power]
''',
    }, {"mistake": "Its cost experiment makes Q and K T x T, so d_k grows with T instead of staying fixed; "
                   "doubling T then multiplies the work by 8 and it answers 'd' (cubic) instead of 'c'.",
        "where": ["q16"]}),

    "q16_growth_exponent_truncated_with_int": ({
        COST_ANS: '''def _scores_computed(T):
    return int(torch.tril(torch.ones(T, T)).sum())       # causal: only keys i <= t


_power = int(math.log2(_scores_computed(200) / _scores_computed(100)))   # cost ~ T ** power
ans_complexity = {0: "b", 1: "a", 2: "c", 3: "d"}[_power]
''',
    }, {"mistake": "Truncates the measured growth exponent with int(): T(T+1)/2 grows by 3.98 when T doubles, "
                   "log2 gives 1.99 and int() makes it 1, so it answers 'a' (linear) instead of 'c'.",
        "where": ["q16"]}),
}
