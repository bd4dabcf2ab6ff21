"""Blind held-out set 85 for attention-pipeline.

Eighty-fifth blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, its diagnosis code, the reference solution, `variants.py`, the naming
tests or `measure.py`, and without running the grader on these variants. What was read: the student-facing
text of attention-pipeline.ipynb (as it appears in full_marks.ipynb), the solution cells of full_marks.ipynb,
`harness.py`, blind83.py (for the format and the docstring), and only the variant names of the earlier blind
sets (to avoid repeating a mistake in the same form).

Round 85's angle: CODE THAT FITS THE EXAMPLE THE STUDENT RAN. Each wrong variant is careful code that is right
on the one small example its author tried (unbatched or 3-D, d_k == d_v, square weights, a causal mask with a
key kept in every row, float32, several keys per query, peaked or uniform lesson rows) and wrong off it:
a fused QKV weight split into d_k-wide pieces, right only when d_v == d_k (q01); the head size read with
`K.size(1)`, which is the key count once a batch axis is there (q02, and a second q02 whose `Q.dim() == 2`
branch is the only one that generalises: the else branch transposes axes 1 and 2, right for 3-D only); a scale
trial run with unit-length vectors, where deleting the factor barely changes anything (q03); the blocked value
pasted from a float32 mask printout (q04); a stable softmax whose shift is clamped at 0, which underflows to
0/0 on a fully blocked row (q05); weights cut with `tril()` whenever a mask is passed, right only for the causal
mask (q05); the mask expanded over X's first axis as if it were the batch (q07); a kernel vector `squeeze()`d,
which turns into a scalar when only one key is visible (q08); weights below 1% treated as masked (q10);
effective tokens counted as non-zero weights, which equals 2^H only on Lesson 07's uniform rows (q10); the
lesson's rank-to-d_k ratio carried to the d_k = 8 head (q11); a shortcut to self-attention whenever X and Y
have the same shape (q13); the score count read off the first two axes of a batch-of-one score tensor (q16).

Public material found with the `search` tool, and what it showed:
- galsang/BiDAF-pytorch pull #26 ("Fix a bug when batch_size = 1": `.squeeze()` drops the batch axis; use
  `.squeeze(dim)`), NVIDIA/DeepLearningExamples pull #765 and CalciferZh/SMPL pull #12 (the same for batch 1):
  a `squeeze()` sized to the example's shape (q08, where the squeezed axis is the key axis of a one-key call).
- pytorch/pytorch pull #131060 (`_safe_softmax`, the long-standing question of what a fully masked row gives)
  and tracel-ai/burn pull #4697 (clamping the row max of a softmax, a fix that must not move normal rows): a
  clamp on the softmax shift and a fully blocked row nobody tried (q05 clamp).
- huggingface/transformers pull #48356 ("hidden_shape comes from the query length ... fails whenever the encoder
  length differs"; "every suite stayed green because they only ever pass encoder states as long as the query")
  and harvard-edge/cs249r_book pull #1875 (a mask reshape that assumes seq_q == seq_k): code keyed on equal
  shapes or lengths that the author's own tests never broke (q13 shortcut, q02 size(1), q07 expand).
- lucidrains/flash-attention-jax pull #15 ("fixed bug that occurred if query/key and value dimensions were
  different ... a case that doesn't seem to come up too much") and sooftware/attentions issue #2 (code that only
  works for one batch layout): d_v == d_k and 2-D/3-D assumptions (q01 fused split, q02 dim branch).
- The remaining kinds (a constant pasted from a printout, a 1% cut-off, counting non-zero weights, a ratio read off
  the lesson's numbers, a trial with unit vectors, the first two axes of a (1, T, T) tensor) follow the brief's
  list; no single public thread was used for them.

The correct variants are written by students who also test on one example (prints and asserts on the example's
shapes) but whose code is right everywhere: einsum scores with shape asserts, a -inf mask mapped to finite values
with nan_to_num, a hand-written stable softmax, a max-shifted kernel, an entropy from nan_to_num/abs, and answer
cells computed from trials sized like the questions (d_k = 512, T = 100, doubling T).

Every variant was checked with a throwaway script under /tmp/w85-attention-pipeline/: each variant's notebook
built with harness.build_notebook and run top to bottom (all code cells but otter's), then every function and
answer compared with torch.softmax-based references (fully masked rows included) on unbatched, batched and 4-D
inputs, T_q != T_k, d_k != d_v != d_model, float64, float32 and float16, with and without masks; each wrong
variant differs only in the questions of its "where".

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
    # checks every shape on the lesson's example with asserts that hold for any shape
    "asserted_shapes_einsum_scores_and_query_length_mask": {
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    assert X.shape[-1] == W_Q.shape[0] == W_K.shape[0] == W_V.shape[0], "d_model mismatch"
    Q = X @ W_Q
    K = X @ W_K
    V = X @ W_V
    assert Q.shape[:-1] == X.shape[:-1] and V.shape[-1] == W_V.shape[-1]
    return Q, K, V
''',
        SCORES: '''def scaled_scores(Q, K):
    d_k = K.shape[-1]
    assert Q.shape[-1] == d_k
    S = torch.einsum("...qd,...kd->...qk", Q, K) / math.sqrt(d_k)
    assert S.shape[-2:] == (Q.shape[-2], K.shape[-2])   # (T_q, T_k), checked on the lesson's 5 x 5 too
    return S
''',
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    T = Q.shape[-2]
    M = causal_additive_mask(T, dtype=S.dtype, device=S.device) if causal else None
    A = attention_weights(S, M)
    O = A @ V
    assert O.shape[-2:] == (T, V.shape[-1])
    return O, A
''',
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q = X @ W_Q
    K = Y @ W_K
    V = Y @ W_V
    S = scaled_scores(Q, K)
    if M is not None:
        assert M.shape[-1] == K.shape[-2], "the mask has one column per key of Y"
    A = attention_weights(S, M)
    O = A @ V
    assert O.shape[-2] == X.shape[-2]
    return O, A
''',
    },

    # -inf mask turned finite with nan_to_num, a hand-written max-shifted softmax
    "nan_to_num_mask_and_hand_written_stable_softmax": {
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    M = torch.full((T, T), float("-inf"), dtype=dtype, device=device).triu(diagonal=1)
    # -inf -> the most negative finite number of this dtype (printed -3.4028e+38 in float32, -65504 in half)
    return torch.nan_to_num(M, neginf=torch.finfo(dtype).min)
''',
        WEIGHTS: '''def attention_weights(S, M=None):
    Z = S if M is None else S + M
    Z = Z - Z.amax(dim=-1, keepdim=True)      # per row, so nothing overflows
    E = torch.exp(Z)
    return E / E.sum(dim=-1, keepdim=True)
''',
        AVG: '''def prefix_average_matrix(T):
    # the zero-score case of the pipeline: softmax of the float64 causal mask alone
    return torch.softmax(causal_additive_mask(T, torch.float64), dim=-1)
''',
    },

    # stable kernel, entropy via nan_to_num and abs, exp2
    "max_shifted_kernel_and_abs_entropy_terms": {
        NW: '''def nadaraya_watson(q, K, V):
    s = K @ q / math.sqrt(q.shape[-1])
    kappa = torch.exp(s - s.max())            # the shift cancels in the ratio
    out = (kappa.unsqueeze(-1) * V).sum(dim=0) / kappa.sum()
    return out
''',
        ENT: '''def row_entropy_bits(A):
    terms = (A * torch.log2(A)).nan_to_num(nan=0.0)   # 0 * log 0 = 0 * -inf = nan -> 0
    return terms.abs().sum(dim=-1)                     # every term is <= 0


def effective_tokens(A):
    return torch.exp2(row_entropy_bits(A))
''',
    },

    # answers computed from trials sized like the questions
    "answers_from_question_sized_trials": {
        SCALE_ANS: '''torch.manual_seed(0)
_q, _K = torch.randn(512, dtype=torch.float64), torch.randn(8, 512, dtype=torch.float64)
_p_raw = torch.softmax(_K @ _q, dim=-1)
_p_scaled = torch.softmax(_K @ _q / math.sqrt(512), dim=-1)
_H = lambda p: float(-(p * torch.log2(p.clamp_min(1e-300))).sum())
print(_H(_p_raw), _H(_p_scaled))
ans_scale = "b" if _H(_p_raw) < _H(_p_scaled) else "a"
''',
        RANK: '''torch.manual_seed(1)
_S = torch.randn(100, 8, dtype=torch.float64) @ torch.randn(100, 8, dtype=torch.float64).T / math.sqrt(8)
max_rank_S = int(torch.linalg.matrix_rank(_S))
print(max_rank_S)

rank_S_lesson = 2
''',
        COST_ANS: '''def _mult_adds(T, d_k=16):
    Q, K = torch.zeros(T, d_k), torch.zeros(T, d_k)
    S = Q @ K.transpose(-2, -1)
    return S.shape[-2] * S.shape[-1] * d_k

print(_mult_adds(64), _mult_adds(128))
ans_complexity = {2: "a", 1: "b", 4: "c", 8: "d"}[_mult_adds(128) // _mult_adds(64)]
''',
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    shapes = [(d_model, d_k), (d_model, d_k), (d_model, d_v)]
    if with_output:
        shapes.append((d_v, d_model))
    return sum(r * c for r, c in shapes)
''',
    },
}

WRONG = {
    # --- q01
    "q01_fused_qkv_weight_split_in_d_k_wide_pieces": ({
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    # one matmul for all three, like a fused c_attn
    W = torch.cat([W_Q, W_K, W_V], dim=-1)
    Q, K, V = (X @ W).split(W_Q.shape[-1], dim=-1)
    return Q, K, V
''',
    }, {"mistake": "The fused projection is split into pieces of width d_k, which gives Q, K and V only when d_v "
                   "equals d_k (as in the lesson's example); with d_v != d_k the split makes the wrong number of "
                   "pieces and the unpacking fails (or V gets the wrong width).",
        "where": ["q01", "q07", "q09"]}),

    # --- q02
    "q02_head_size_read_with_size_one_is_key_count_when_batched": ({
        SCORES: '''def scaled_scores(Q, K):
    d_k = K.size(1)          # K is (T_k, d_k): printed torch.Size([5, 4])
    return Q @ K.transpose(-2, -1) / math.sqrt(d_k)
''',
    }, {"mistake": "d_k is read as K.size(1), which is d_k only for an unbatched (T_k, d_k) key matrix; with a batch "
                   "axis it is the number of keys, so batched scores are divided by sqrt(T_k) instead of sqrt(d_k).",
        "where": ["q02", "q07", "q13"]}),

    "q02_two_d_branch_and_three_d_transpose_of_axes_one_two": ({
        SCORES: '''def scaled_scores(Q, K):
    d_k = Q.shape[-1]
    if Q.dim() == 2:
        KT = K.T
    else:                    # batched (B, T, d_k)
        KT = K.transpose(1, 2)
    return Q @ KT / math.sqrt(d_k)
''',
    }, {"mistake": "The transpose is special-cased by dimension: the batched branch swaps axes 1 and 2, which is "
                   "right for 3-D (B, T, d_k) input only; for 4-D (B, H, T, d_k) input it swaps the head and "
                   "token axes, giving a shape error or wrong scores.",
        "where": ["q02", "q07", "q13"]}),

    # --- q03
    "q03_scale_trial_with_unit_length_vectors_answers_c": ({
        SCALE_ANS: '''# trial: one query, 8 keys, d_k = 512 (normalised so the numbers stay readable)
torch.manual_seed(0)
_q = torch.randn(512); _q = _q / _q.norm()
_K8 = torch.randn(8, 512); _K8 = _K8 / _K8.norm(dim=-1, keepdim=True)
_H = lambda p: float(-(p * torch.log2(p)).sum())
print(_H(torch.softmax(_K8 @ _q, -1)), _H(torch.softmax(_K8 @ _q / math.sqrt(512), -1)))   # 2.99.. vs 3.00: same
ans_scale = "c"
''',
    }, {"mistake": "The trial uses unit-length query and keys, so the scores are already tiny and deleting the "
                   "1/sqrt(d_k) factor hardly changes the entropies; with unit-variance components the unscaled "
                   "scores are ~sqrt(512) larger and the rows collapse onto one key (b), not 'nothing changes' (c).",
        "where": ["q03"]}),

    # --- q04
    "q04_blocked_value_pasted_from_float32_mask_printout": ({
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    future = torch.triu(torch.ones(T, T, dtype=torch.bool, device=device), diagonal=1)
    M = torch.zeros(T, T, dtype=dtype, device=device)
    M[future] = -3.4028234663852886e+38      # finfo.min, as printed for the lesson's mask
    return M
''',
    }, {"mistake": "The blocked value is the float32 finfo.min copied from the example's printout, not "
                   "torch.finfo(dtype).min: in float64 the blocked entries are not the dtype's minimum, and in "
                   "float16 the number does not fit and becomes -inf.",
        "where": ["q04"]}),

    # --- q05
    "q05_softmax_shift_clamped_at_zero_fully_blocked_row_gives_nan": ({
        WEIGHTS: '''def attention_weights(S, M=None):
    Z = S if M is None else S + M
    shift = Z.amax(dim=-1, keepdim=True).clamp(min=0)   # only shift rows that could overflow
    E = torch.exp(Z - shift)
    return E / E.sum(dim=-1, keepdim=True)
''',
    }, {"mistake": "The row-max shift is clamped at 0, which only matters when a row's maximum is negative; on a "
                   "row whose keys are all blocked (maximum near finfo.min) every exponential underflows to 0 and the "
                   "row is 0/0 = NaN instead of uniform (and very negative rows lose precision).",
        "where": ["q05", "q13"]}),

    "q05_weights_cut_with_tril_whenever_a_mask_is_passed": ({
        WEIGHTS: '''def attention_weights(S, M=None):
    if M is None:
        return torch.softmax(S, dim=-1)
    A = torch.softmax(S + M, dim=-1)
    return A.tril()          # masked entries exactly 0 (checked on the causal example)
''',
    }, {"mistake": "Whenever a mask is given the weights are cut to their lower triangle, which only agrees with the "
                   "causal mask; any other mask (padding, rectangular, arbitrary) loses its upper-triangle weights "
                   "and the rows no longer sum to 1.",
        "where": ["q05", "q13"]}),

    # --- q07
    "q07_causal_mask_expanded_over_the_first_axis_of_x_as_batch": ({
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    M = None
    if causal:
        T = X.shape[-2]
        M = causal_additive_mask(T, S.dtype, S.device).expand(X.shape[0], T, T)   # one mask per batch item
    A = attention_weights(S, M)
    return A @ V, A
''',
    }, {"mistake": "The causal mask is expanded over X's first axis as if it were always the batch: right for 3-D "
                   "(B, T, d_model) input, but an unbatched X gets a (T, T, T) mask and A gains an axis, and 4-D "
                   "input fails to broadcast.",
        "where": ["q07", "q09"]}),

    # --- q08
    "q08_kernel_squeezed_collapses_to_a_scalar_with_one_key": ({
        NW: '''def nadaraya_watson(q, K, V):
    kappa = torch.exp(q.unsqueeze(0) @ K.transpose(-2, -1) / math.sqrt(q.shape[-1])).squeeze()   # (1, T) -> (T,)
    return (kappa @ V) / kappa.sum()
''',
    }, {"mistake": "The kernel row is squeezed with no axis, so with a single visible key it becomes a 0-d tensor and "
                   "`kappa @ V` fails; it works for every call with two or more keys.",
        "where": ["q08"]}),

    # --- q10
    "q10_weights_below_one_percent_treated_as_masked": ({
        ENT: '''def row_entropy_bits(A):
    visible = A > 1e-2          # masked entries are 0; the lesson's smallest weight is about 0.05
    logs = torch.where(visible, torch.log2(A), torch.zeros_like(A))
    return -(A * logs).sum(dim=-1)


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
''',
    }, {"mistake": "Weights below 0.01 are treated like masked zeros and left out of the sum, which fits the "
                   "lesson's rows but drops real -a log2 a terms on rows with small weights, so the entropy (and "
                   "2^H) comes out too small.",
        "where": ["q10"]}),

    "q10_effective_tokens_counted_as_nonzero_weights": ({
        ENT: '''def row_entropy_bits(A):
    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))
    return -(A * logs).sum(dim=-1)


def effective_tokens(A):
    # checked on Lesson 07's prefix average: 2**H is 1, 2, 3, 4, 5 = the visible keys per row
    return (A > 0).sum(dim=-1)
''',
    }, {"mistake": "effective_tokens counts the non-zero weights of each row, which equals 2^H only for uniform rows "
                   "(Lesson 07's averages it was checked on); for any peaked row it gives the number of visible "
                   "keys, not 2^H (and an integer tensor).",
        "where": ["q10"]}),

    # --- q11
    "q11_lesson_rank_to_d_k_ratio_carried_to_the_new_head": ({
        RANK: '''rank_S_lesson = 2

# the lesson's head (d_k = 4) reached rank 2, i.e. half its width
max_rank_S = 8 * rank_S_lesson // 4
''',
    }, {"mistake": "max_rank_S is scaled from the lesson's example (rank 2 with d_k = 4, so 'half of d_k') instead of "
                   "the bound min(T, d_k) = 8; it answers 4.",
        "where": ["q11"]}),

    # --- q13
    "q13_equal_shapes_shortcut_to_self_attention_on_x": ({
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    if X.shape == Y.shape:           # same sequence twice: plain self-attention
        return self_attention(X, W_Q, W_K, W_V, causal=False)
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    A = attention_weights(scaled_scores(Q, K), M)
    return A @ V, A
''',
    }, {"mistake": "When X and Y have the same shape the function returns self-attention on X, taking the keys and "
                   "values from X instead of Y and ignoring M; it is right on the example (T != T') and whenever "
                   "Y is X, wrong for any two different sequences of equal length.",
        "where": ["q13"]}),

    # --- q16
    "q16_score_count_read_from_first_two_axes_of_batch_of_one_answers_a": ({
        COST_ANS: '''def _n_scores(T, d_k=16):
    Q = torch.randn(1, T, d_k)       # batch of one, like the demo
    S = Q @ Q.transpose(-2, -1)
    return S.shape[0] * S.shape[1]

print(_n_scores(64), _n_scores(128))     # 64 128
ans_complexity = "a" if _n_scores(128) == 2 * _n_scores(64) else "c"
''',
    }, {"mistake": "The scores are counted as S.shape[0] * S.shape[1], which on a (1, T, T) batch-of-one tensor is "
                   "1 * T, so doubling T seems to double the work and the answer is linear (a) instead of "
                   "quadratic (c).",
        "where": ["q16"]}),
}
