"""Blind held-out set 66 for attention-pipeline.

Sixty-sixth blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, its diagnosis code, the reference solution, `variants.py`, the naming
tests or `measure.py`, and without running the grader (`autograder grade`, `tests.heldout.measure`) on these
variants. What was read: the student-facing text, question statements and public checks of
attention-pipeline.ipynb (tokens are rows, leading batch dimensions allowed, d_v may differ from d_k, T_q
from T_k in cross-attention, inputs' dtype kept, blocked entries hold torch.finfo(dtype).min so that even a
row whose keys are all blocked stays finite and uniform), the solution cells of full_marks.ipynb,
`harness.py`, blind65.py in full (for the format), and only the variant names of the earlier blind sets (to
avoid repeating a mistake in the same form).

Round 66's angle: RIGHT IN THE MIDDLE, WRONG AT THE EDGES. Each wrong variant is right on the ordinary input
a student tries first (the lesson's five tokens, one batch axis of size 2, a few keys with some visible) and
wrong on an input the statement allows: a real batch of size 1 squeezed away by an unbatched round trip
(q01); keys reshaped with the number of queries, which only works while T_q == T_k (q02, and q13 through
cross_attention); a one-token shortcut in the mask that returns float32 zeros (q04); a max shift taken
before the mask is added, which turns a row whose keys are all blocked into 0/0 = NaN (q05); an integer
square root that is exact only for the square head sizes 4, 16, 64 (q08); row vectors stacked and
squeezed, which returns a 0-d tensor for one token (q09); float32's smallest normal number added inside
the log, which vanishes in float16 and gives 0 * -inf = NaN (q10); and an output flag tested with
`is True`, which ignores a truthy 1 or numpy bool (q12). The written answers come from computations right
on one input and wrong on the question's own: a one-hot test run on the lesson's d_k = 4 example instead of
d_k = 512 (q03); a leak probe that compares only the last position, the one row where masking changes
nothing (q06); a rank counted as the keys with a nonzero score column, which agrees with the rank only
when no key column is a mix of others (q11); a size-to-symbol dictionary inverted while T' == d_v, so T'
is lost (q14); a leak test with a one-token source, where the causal mask blocks nothing (q15); and a
growth ratio measured from T = 1 to T = 2 with causal score counts, 3 instead of about 4 (q16). q07 and
q13 are reached through `where`: self_attention calls project_qkv, scaled_scores, causal_additive_mask
and attention_weights, and cross_attention calls scaled_scores and attention_weights.

Public material found with the `search` tool, and what it showed:
- openillumi.com "PyTorch squeeze/unsqueeze dimension mastery" and codegenes.net "How to squeeze over a
  particular dimension in PyTorch" ("when we are dealing with a single sample, the batch dimension is often
  set to 1. We can use squeeze to remove this batch dimension"), BenBrooke450/Python-PyTorch's squeeze
  summary ((1, 3, 1, 5) squeezes to (3, 5)): squeeze removes every axis that happens to have size 1; the
  q01 variant squeezes axis 0 unconditionally, the q09 variant squeezes a stack of (1, T) rows.
- huggingface/transformers#48356 ("hidden_shape comes from the query length, so viewing cross-attention K/V
  with it ... fails whenever the encoder length differs ... suites stayed green before because they only
  ever pass encoder states as long as the query"), harvard-edge/cs249r_book#1875 (a mask reshape that
  "assumes square (seq_q==seq_k), breaks cross-attention"), idiap/fast-transformers#98 (keys.reshape with
  the query length L where the key length S belongs): the q02 variant.
- pytorch/pytorch#131060 (`_safe_softmax`; fully masked rows give NaN, issues #41508, #103749) and
  tracel-ai/burn#4694 ("attention_fallback produces NaN for fully-masked rows ... the naive softmax"):
  the q05 variant's hand-written softmax shifts before masking and divides 0 by 0 on such a row, which the
  notebook says must come out uniform.
- tinygrad/tinygrad#2710 (torch.zeros / torch.ones default to float32) and tenstorrent/tt-metal#55573
  (a helper that "always returns float32 no matter what the caller asked for", unnoticed because every
  caller passed float32): the q04 variant's one-token shortcut.
- youtip.online "Python math.isqrt()" (the integer square root rounds down: isqrt(10) = 3) and the
  python-list thread "find the first value where two functions differ" (isqrt exact only on squares):
  the q08 variant's kernel scale.
- kornia/kornia#3966 (an eps of 1e-8 "is not representable in float16 ... so it rounds to 0.0 and the
  guard it feeds becomes a no-op", NaN only at float16), lisa-lab/DeepLearningTutorials#86 ("Use bigger
  epsilon for float16 so that it does not become 0"), pyg-team/pytorch_geometric#2106 and
  huggingface/trl#7263 (0 * -inf = NaN in an entropy, float16 included): the q10 variant.
- numpy-discussion "False and True not singletons?" (np.all(...) is False -> False) and noveltech.dev
  "Booleans in Python: beware of numpy": an identity test against True rejects truthy values that are not
  the bool singleton, as in the q12 variant.
The q03, q06, q11, q14, q15 and q16 variants follow the brief's list (a computation right for one input
and wrong for the question's own numbers) with the notebook's own sizes.

The correct variants are written differently from full_marks: projections through
torch.nn.functional.linear of the transposed weights and scores from an einsum on pre-scaled queries; a
mask from torch.full(...).triu(1) and weights from functional softmax of a conditional expression; a
self-attention with keyword mask arguments and an einsum mix, and a max-shifted kernel weighted through a
matrix-vector product; the prefix average as a ones-triangle times float64 reciprocals and entropies from
torch.special.xlogy in nats divided by ln 2 with exp2; a parameter count over a shape list, cross-
attention through project_qkv on both sequences, computed ranks and letters indexed from "abcd".

Each wrong variant changes one cell of an otherwise full-marks notebook and holds exactly one mistake;
`where` lists every question whose tests may lose points. Every variant was checked with a throwaway script
under /tmp/w66-attention-pipeline/: each variant's notebook built the way harness.py builds it and run top to
bottom (all code cells but otter's; no cell raised), the public checks run as plain functions from the
assignment's test cells, then every function compared with plain torch (`torch.softmax` of S + M in float64,
the notebook's own formulas, `torch.special.entr` entropies in bits) on unbatched, (2,), (1,) and (2, 3)
batched inputs, T_q != T_k, d_k != d_v, d_k in {3, 4, 5, 8}, T = 1, rows with every key blocked, in
float64, float32, float16 and bfloat16; the mask and the prefix average compared exactly; the count on
several argument sets and flag values; every written answer compared with the right letter or integer.
full_marks and the five correct variants agree everywhere (16-bit dtypes within their precision), and
each wrong variant differs or fails in its own question on an edge input and only in questions listed in
its `where`.

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
    # projections through functional linear (which multiplies by the weight's transpose, so the weights are
    # passed transposed); the scores from an einsum over pre-scaled queries
    "functional_linear_projection_and_prescaled_einsum_scores": {
        PROJ: '''import torch.nn.functional as F


def project_qkv(X, W_Q, W_K, W_V):
    Q = F.linear(X, W_Q.transpose(-2, -1))
    K = F.linear(X, W_K.transpose(-2, -1))
    V = F.linear(X, W_V.transpose(-2, -1))
    return Q, K, V
''',
        SCORES: '''def scaled_scores(Q, K):
    scale = 1.0 / math.sqrt(Q.shape[-1])
    return torch.einsum("...qd,...kd->...qk", Q * scale, K)
''',
    },
    # the mask as a full tensor of the blocked value with the lower part cut away by triu; the weights from
    # torch.nn.functional.softmax of a conditional expression
    "full_triu_mask_and_functional_softmax_of_conditional": {
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    blocked = torch.finfo(dtype).min
    return torch.full((T, T), blocked, dtype=dtype, device=device).triu(diagonal=1)
''',
        WEIGHTS: '''def attention_weights(S, M=None):
    return torch.nn.functional.softmax(S if M is None else S + M, dim=-1)
''',
    },
    # self-attention with keyword arguments to the mask and an einsum mix; the kernel shifted by its
    # largest score (the ratio is unchanged) and weighted with a matrix-vector product
    "keyword_mask_einsum_mix_and_shifted_kernel_mv": {
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    M = None
    if causal:
        M = causal_additive_mask(S.shape[-1], dtype=S.dtype, device=S.device)
    A = attention_weights(S, M)
    O = torch.einsum("...ts,...sv->...tv", A, V)
    return O, A
''',
        NW: '''def nadaraya_watson(q, K, V):
    s = torch.mv(K, q) / math.sqrt(q.numel())
    kappa = torch.exp(s - s.max())
    return torch.mv(V.transpose(0, 1), kappa) / kappa.sum()
''',
    },
    # the prefix average as a ones-triangle times float64 reciprocals of the row numbers; entropies from
    # torch.special.xlogy in nats turned into bits, effective tokens through exp2
    "reciprocal_times_triangle_prefix_and_xlogy_nats_to_bits": {
        AVG: '''def prefix_average_matrix(T):
    inv_rows = 1.0 / torch.arange(1, T + 1, dtype=torch.float64)
    return torch.tril(torch.ones(T, T, dtype=torch.float64)) * inv_rows.unsqueeze(-1)
''',
        ENT: '''def row_entropy_bits(A):
    nats = -torch.special.xlogy(A, A).sum(dim=-1)
    return nats / math.log(2.0)


def effective_tokens(A):
    return torch.exp2(row_entropy_bits(A))
''',
    },
    # a count over a list of weight shapes; cross-attention through project_qkv on each sequence; ranks
    # computed; letters indexed out of "abcd"
    "shape_list_count_project_twice_cross_and_indexed_letters": {
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    shapes = [(d_model, d_k), (d_model, d_k), (d_model, d_v)] + ([(d_v, d_model)] if with_output else [])
    total = 0
    for rows, cols in shapes:
        total += rows * cols
    return total
''',
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, _, _ = project_qkv(X, W_Q, W_K, W_V)
    _, K, V = project_qkv(Y, W_Q, W_K, W_V)
    A = attention_weights(scaled_scores(Q, K), M)
    return torch.matmul(A, V), A
''',
        RANK: '''# (a) S = Q K^T / sqrt(d_k) is 100 x 100 but factors through d_k = 8 dimensions
max_rank_S = min(100, 8)

# (b) the lesson's hand-crafted queries and keys (the Question 2 check)
_K11 = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]], dtype=torch.float64)
_Q11 = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]], dtype=torch.float64)
rank_S_lesson = int(torch.linalg.matrix_rank(scaled_scores(_Q11, _K11)).item())
''',
        SHAPES_ANS: '''ans_cross_shapes = "abcd"[1]
''',
        CAUSAL_ANS: '''ans_cross_causal = "abcd"[3]
''',
        COST_ANS: '''ans_complexity = "abcd"[2]
''',
    },
}

WRONG = {
    # --- q01: an unbatched input is given a batch axis and the axis is squeezed off again unconditionally
    "q01_unbatched_round_trip_squeezes_a_real_batch_of_one": ({
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    unbatched = X.dim() == 2
    if unbatched:
        X = X.unsqueeze(0)          # work on (B, T, d_model) throughout
    Q = torch.matmul(X, W_Q)
    K = torch.matmul(X, W_K)
    V = torch.matmul(X, W_V)
    return Q.squeeze(0), K.squeeze(0), V.squeeze(0)
''',
    }, {"mistake": "The batch axis added for an unbatched input is removed with squeeze(0) whether or not it was "
                   "added, so a real batch of size 1, shape (1, T, d_model), comes back as (T, d_k) / (T, d_v): "
                   "right for unbatched inputs and batches of 2 or more, wrong shape for a batch of one.",
        "where": ["q01", "q07", "q09", "q10", "q13"]}),

    # --- q02: keys reshaped for bmm with the number of queries, which only works while T_q == T_k
    "q02_keys_reshaped_with_query_length_fails_when_t_q_differs_from_t_k": ({
        SCORES: '''def scaled_scores(Q, K):
    *batch, T, d_k = Q.shape
    Qb = Q.reshape(-1, T, d_k)
    Kb = K.reshape(-1, T, d_k)
    S = torch.bmm(Qb, Kb.transpose(1, 2)) / math.sqrt(d_k)
    return S.reshape(*batch, T, T)
''',
    }, {"mistake": "The keys are reshaped with the query length T (and the result reshaped to T x T), so the "
                   "function is right only when T_q == T_k, as in self-attention; with a different number of "
                   "keys the reshape fails or mixes keys across batch entries, and cross-attention breaks.",
        "where": ["q02", "q05", "q07", "q09", "q10", "q13"]}),

    # --- q03: the one-hot test run on the lesson's d_k = 4 example instead of the question's d_k = 512
    "q03_one_hot_test_run_on_lesson_d_k_4_example_answers_nothing_changes": ({
        SCALE_ANS: '''# the lesson says the unscaled softmax puts 0.99999... on one key: test that on the lesson's own example
_K3 = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]], dtype=torch.float64)
_Q3 = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]], dtype=torch.float64)
_M3 = torch.zeros(5, 5, dtype=torch.float64).masked_fill(torch.ones(5, 5, dtype=torch.bool).triu(1), float("-inf"))
_A_scaled = torch.softmax(_Q3 @ _K3.T / math.sqrt(4) + _M3, dim=-1)
_A_unscaled = torch.softmax(_Q3 @ _K3.T + _M3, dim=-1)
_H = lambda A: -torch.where(A > 0, A * torch.log2(A), torch.zeros_like(A)).sum(-1)
if (_A_unscaled.max(dim=-1).values > 0.99).double().mean().item() > 0.5:   # most rows one-hot?
    ans_scale = "b"
elif bool((_H(_A_unscaled) > _H(_A_scaled)).any()):
    ans_scale = "a"
else:
    ans_scale = "c"
print(_H(_A_scaled), _H(_A_unscaled), ans_scale)
''',
    }, {"mistake": "The 'rows become one-hot' test is run on the lesson's hand-crafted d_k = 4 example, where "
                   "dropping the factor only doubles the scores and only the first row (one visible key) reaches "
                   "0.99; the rows are not flatter either, so the code falls through to 'c' (nothing changes) instead of 'b', which "
                   "holds at the question's d_k = 512.",
        "where": ["q03"]}),

    # --- q04: a one-token shortcut that returns float32 zeros
    "q04_one_token_shortcut_returns_float32_zeros": ({
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    if T == 1:
        return torch.zeros(1, 1)     # a single token has no future to block
    future = torch.triu(torch.ones(T, T, dtype=torch.bool, device=device), diagonal=1)
    M = torch.zeros(T, T, dtype=dtype, device=device)
    M[future] = torch.finfo(dtype).min
    return M
''',
    }, {"mistake": "The shortcut for T == 1 returns torch.zeros(1, 1), which is float32 on the default device "
                   "whatever dtype and device were asked for: right for every T > 1, wrong dtype (and device) "
                   "for one token, and a float16 or float64 self-attention over one token is promoted or "
                   "mixed with float32.",
        "where": ["q04", "q05", "q07", "q09", "q10"]}),

    # --- q05: the row maximum subtracted before the mask is added; a fully blocked row gives 0 / 0
    "q05_max_shift_before_mask_gives_nan_on_fully_blocked_rows": ({
        WEIGHTS: '''def attention_weights(S, M=None):
    Z = S - S.amax(dim=-1, keepdim=True)     # stable: shift by the row maximum first
    if M is not None:
        Z = Z + M
    E = torch.exp(Z)
    return E / E.sum(dim=-1, keepdim=True)
''',
    }, {"mistake": "The row maximum is taken over the unmasked scores and subtracted before the mask is added, so "
                   "in a row whose keys are all blocked every exponent is about finfo.min and every exponential "
                   "0: the row comes out 0 / 0 = NaN instead of uniform. Rows whose largest score is on an open key "
                   "are right; in float16 a row whose largest score sits on a blocked key can also underflow "
                   "to 0 / 0.",
        "where": ["q05", "q07", "q09", "q10", "q13"]}),

    # --- q06: the leak probe compares only the last position, where the mask changes nothing
    "q06_leak_probe_compares_only_last_position_answers_no_gradient": ({
        MASK_ANS: '''# does switching the mask off change what the model predicts from? look at the prediction position
_X6 = torch.randn(5, 6, dtype=torch.float64)
_W6 = [torch.randn(6, 4, dtype=torch.float64) for _ in range(3)]
_Q6, _K6, _V6 = project_qkv(_X6, *_W6)
_S6 = scaled_scores(_Q6, _K6)
_O_masked = attention_weights(_S6, causal_additive_mask(5, torch.float64)) @ _V6
_O_open = attention_weights(_S6) @ _V6
_changes = not torch.allclose(_O_masked[-1], _O_open[-1])   # the last token is where the next one is predicted
print("output changes without the mask:", _changes)
# the outputs agree, so the harm must come from training: no gradient through the blocked entries
ans_mask = "c" if _changes else "d"
''',
    }, {"mistake": "The probe compares the masked and unmasked outputs only at the last position, the one row "
                   "that sees every token either way, so no leak is seen and the answer is 'd' (no gradient "
                   "through blocked entries) instead of 'c' (position t reads the token it must predict).",
        "where": ["q06"]}),

    # --- q08: the scale as an integer square root, exact only for square head sizes
    "q08_kernel_scale_with_math_isqrt_exact_only_for_square_head_sizes": ({
        NW: '''def nadaraya_watson(q, K, V):
    d_k = q.shape[-1]
    kappa = torch.exp(K @ q / math.isqrt(d_k))
    return (kappa[:, None] * V).sum(dim=0) / kappa.sum()
''',
    }, {"mistake": "The kernel divides by math.isqrt(d_k), the square root rounded down to an integer: exact for "
                   "d_k = 4 (the lesson), 16 or 64, but for d_k = 8 it divides by 2 instead of 2.83 and for "
                   "d_k = 3 or 5 by 1 or 2, so the kernel is too sharp and the average wrong.",
        "where": ["q08"]}),

    # --- q09: (1, T) rows stacked and squeezed; one token gives a 0-d tensor
    "q09_stacked_rows_squeezed_to_a_scalar_for_one_token": ({
        AVG: '''def prefix_average_matrix(T):
    rows = []
    for t in range(1, T + 1):
        row = torch.cat([torch.full((1, t), 1.0 / t, dtype=torch.float64),
                         torch.zeros(1, T - t, dtype=torch.float64)], dim=1)
        rows.append(row)
    return torch.stack(rows).squeeze()     # (T, 1, T) -> (T, T)
''',
    }, {"mistake": "The (1, T) rows are stacked to (T, 1, T) and squeeze() removes every axis of size 1: right for "
                   "T >= 2, but for T = 1 the result is a 0-d tensor instead of the (1, 1) matrix [[1.]].",
        "where": ["q09", "q10"]}),

    # --- q10: float32's tiny added inside the log rounds to 0 in float16
    "q10_float32_tiny_inside_log_vanishes_in_half_gives_nan": ({
        ENT: '''_TINY = torch.finfo(torch.float32).tiny   # keeps log2 finite where a weight is exactly 0


def row_entropy_bits(A):
    return -(A * torch.log2(A + _TINY)).sum(dim=-1)


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
''',
    }, {"mistake": "The guard against log2(0) adds float32's smallest normal number (1.2e-38), which works in "
                   "float32 and float64 but is not representable in float16: it rounds to 0, log2(0) = -inf and "
                   "0 * -inf = NaN, so a float16 row with a zero weight (every masked row) has a NaN entropy.",
        "where": ["q10"]}),

    # --- q11: rank counted as the keys whose score column is not all zero
    "q11_lesson_rank_counted_as_keys_with_nonzero_scores": ({
        RANK: '''max_rank_S = 8

# (b) every key that gets a nonzero score from some query adds one direction
_K11 = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]], dtype=torch.float64)
_Q11 = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]], dtype=torch.float64)
_S11 = scaled_scores(_Q11, _K11)
rank_S_lesson = int((_S11.abs().sum(dim=0) > 0).sum())
''',
    }, {"mistake": "The rank of the lesson's S is counted as the number of keys whose score column is not all "
                   "zero (3), which is the rank only when those columns are independent; key 4, [1, 1, 0, 0], "
                   "is the sum of keys 1 and 2 over 2, so its column is a mix of theirs and the rank is 2.",
        "where": ["q11"]}),

    # --- q12: the output flag tested with `is True`
    "q12_output_flag_tested_with_is_true_ignores_truthy_values": ({
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    n = d_model * (2 * d_k + d_v)
    if with_output is True:
        n += d_v * d_model
    return n
''',
    }, {"mistake": "The flag is tested with `is True`, so only the bool singleton adds W_O: with_output=1, a "
                   "numpy bool or any other true value leaves the output projection out of the count.",
        "where": ["q12"]}),

    # --- q14: a size-to-symbol dictionary inverted while T' == d_v, so T' disappears
    "q14_size_to_symbol_dict_inverted_with_t_prime_equal_d_v_answers_a": ({
        SHAPES_ANS: '''# read the shapes off an experiment and translate the sizes back into symbols
_sizes = {"T": 5, "T'": 3, "d_v": 3}
_X14 = torch.randn(_sizes["T"], 6, dtype=torch.float64)
_Y14 = torch.randn(_sizes["T'"], 6, dtype=torch.float64)
_W14 = [torch.randn(6, 4, dtype=torch.float64), torch.randn(6, 4, dtype=torch.float64),
        torch.randn(6, _sizes["d_v"], dtype=torch.float64)]
_O14, _A14 = cross_attention(_X14, _Y14, *_W14)
_symbol = {size: name for name, size in _sizes.items()}
_S_sym = tuple(_symbol[n] for n in _A14.shape)
_O_sym = tuple(_symbol[n] for n in _O14.shape)
_options = {"a": (("T", "T"), ("T", "d_v")), "b": (("T", "T'"), ("T", "d_v")),
            "c": (("T'", "T"), ("T'", "d_v")), "d": (("T", "T'"), ("T'", "d_v"))}
ans_cross_shapes = max(_options, key=lambda k: (_options[k][0] == _S_sym) + (_options[k][1] == _O_sym))
print(_S_sym, _O_sym, ans_cross_shapes)
''',
    }, {"mistake": "The experiment uses T' = d_v = 3, so inverting the size-to-symbol dictionary keeps only 'd_v' "
                   "for 3 and S reads as T x d_v; no option matches S, 'a' and 'b' tie on O, and max returns the "
                   "first, 'a', instead of 'b' (S: T x T', O: T x d_v).",
        "where": ["q14"]}),

    # --- q15: a leak test with a one-token source, where the causal mask blocks nothing
    "q15_causal_mask_tested_with_one_token_source_answers_always": ({
        CAUSAL_ANS: '''# does a causal mask hurt cross-attention? compare with and without it (one source token keeps it small)
_X15 = torch.randn(4, 6, dtype=torch.float64)
_Y15 = torch.randn(1, 6, dtype=torch.float64)
_W15 = [torch.randn(6, 4, dtype=torch.float64) for _ in range(3)]
_M15 = causal_additive_mask(4, torch.float64)[:, :_Y15.shape[0]]
_O_free, _ = cross_attention(_X15, _Y15, *_W15)
_O_causal, _ = cross_attention(_X15, _Y15, *_W15, M=_M15)
_harmless = torch.allclose(_O_free, _O_causal)
print("causal mask changes nothing:", _harmless)
ans_cross_causal = "a" if _harmless else "d"
''',
    }, {"mistake": "The test uses a source of one token, whose only key (column 0) is open to every query under a "
                   "causal mask, so the mask changes nothing; the student concludes it can always be applied and "
                   "answers 'a' instead of 'd' (only when X and Y share one time axis).",
        "where": ["q15"]}),

    # --- q16: growth ratio of causal score counts measured from one token to two
    "q16_causal_score_ratio_from_one_to_two_tokens_rounds_to_linear": ({
        COST_ANS: '''# count the scores a causal layer computes, then double the length and compare
def _causal_scores(T):
    return T * (T + 1) // 2


_ratio = _causal_scores(2) / _causal_scores(1)
_by_ratio = {1: "b", 2: "a", 4: "c", 8: "d"}
ans_complexity = _by_ratio[min(_by_ratio, key=lambda r: abs(r - _ratio))]
print(_ratio, ans_complexity)
''',
    }, {"mistake": "The doubling is measured from T = 1 to T = 2, where the causal score count goes 1 -> 3; the "
                   "ratio 3 is as close to 2 as to 4 and the first match, 2, gives 'a' (linear) instead of 'c'. "
                   "At ordinary lengths (100 -> 200) the same count gives a ratio of 3.98.",
        "where": ["q16"]}),
}
