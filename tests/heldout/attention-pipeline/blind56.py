"""Blind held-out set 56 for attention-pipeline.

Fifty-sixth blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, its diagnosis code, the reference solution, `variants.py`, the naming
tests or `measure.py`, and without running the grader (`autograder grade`, `tests.heldout.measure`) on these
variants. What was read: the student-facing text and solution cells of full_marks.ipynb (tokens are rows,
leading batch dimensions allowed, inputs' dtype kept, blocked entries hold torch.finfo(dtype).min, the
prefix average in float64, letters as one-letter strings, both q11 answers Python ints), `harness.py`,
blind55.py in full (for the format and the lesson's hand-built Q and K), and only the variant names of the
earlier blind sets (to avoid repeating a mistake in the same form).

Round 56's angle: habits carried over from elsewhere (MATLAB/Julia, R, NumPy, JAX/Flax, tutorial snippets)
and PyTorch semantics that surprise, each drawn from public material found with the `search` tool:
- Flax's dot_product_attention_weights (code corpus, e.g. amyxlu/msa-transformer-jax model.py and many
  forks: `query = query / jnp.sqrt(depth)` then `jnp.einsum('...qhd,...khd->...hqk', query, key)` on
  (batch..., length, heads, depth) inputs): the q02 variant that pastes that einsum onto head-less
  (..., T, d_k) tensors, so the token axis is read as the head axis.
- the JAX/functorch vmap docs (pytorch.org functorch.vmap: "write a function func that runs on examples and
  then lift it ... with vmap(func)"): the q01 variant that writes the projection for one token with W^T x
  and vmaps it once, which assumes an unbatched (T, d_model) X.
- Stack Overflow "Numpy transpose of 1D array not giving expected result" (example-a.com/answer/11885581,
  newbedev: "Transpose is a noop for one-dimensional arrays", the asker expected MATLAB's column vector) and
  the torch warning quoted in blind55 (`x.T` on a tensor of dimension other than 2): the q04 variant that
  writes MATLAB's `(1:T)' < (1:T)` as `pos.T < pos`, an element-wise comparison that blocks nothing.
- GitHub issues about "IndexError: The shape of the mask [64, 64] at index 0 does not match the shape of
  the indexed tensor [3, 4, 85, 64]" (lishaoxu1994/DiffStyler #2, marvis/pytorch-yolo2 #174,
  sjtuytc/UnboundedNeRFPytorch #102): boolean-mask indexing does not broadcast; the q05 variant adds the mask
  only at its nonzero entries through S[M != 0], which fails once S has a batch axis.
- attention-entropy code with "add epsilon to avoid log(0)" (afiq-aswadi/kata-sr
  katas/exercises/compute_attention_entropy, `torch.log(patterns + 1e-10)`; hankyul2/DomainAdaptation
  src/entropy.py): the q03 experiment whose log2(A + 1e-12) makes a one-hot row's entropy -1.4e-12 bits,
  which it reads as "they become negative".
- colinfay.me "Why do we use arrow as an assignment operator?" (R's `<-`): the q06 variant written
  `ans_mask <- "c"`, which Python reads as the comparison ans_mask < -"c" (a NameError).
- runebook.dev torch.exp troubleshooting and the "only one element tensors can be converted to Python
  scalars" error (MATLAB's exp is element-wise, Python's math.exp is not): the q08 variant with math.exp.
- hatchjs.com / pythonkb.com "Integers to negative integer powers are not allowed" (NumPy; MATLAB's
  (1:T).^-1 is double): the q09 variant that takes the reciprocal counts as an int64 arange ** -1.
- errorhandle.ai and example-a.com/answer/55728769 (NaN compares unequal to everything, NaN == NaN is
  False): the q10 variant that patches the 0 * log 0 terms with terms[terms == float("nan")] = 0.
- pytorch/pytorch #11951 and #105243 ("Expected object of scalar type Float but got scalar type Long",
  "mat1 and mat2 must have the same dtype"): the q11 variant that types the lesson's integer K as plain
  literals (doubles in MATLAB/NumPy habits, int64 in torch), so Q @ K^T fails and rank_S_lesson is never set.
- python/cpython #103487 ("Deprecate bitwise inversion (~) of bool": ~True == -2, bool(~True) is True) and
  spedas/pyspedas #822: the q12 variant that writes MATLAB's logical not `~with_output`.
- MATLAB's sum(X), which runs down the first dimension (the numpy-for-MATLAB-users notes on runebook.dev
  list the habits that change between the two; no public source was found for this exact experiment): the
  q14 experiment that mixes the values with a broadcast product summed with .sum(0) and so sees O as
  T' x d_v.
- pytorch/pytorch #35529 ("argmax_cpu not implemented for 'Bool'"; NumPy's argmax of booleans finds the
  first True, tensorflow #39515 the same for tf.argmax): the q15 variant that picks its letter with
  argmax over a bool tensor of the options that hold.
- the Nemotron-CC Q&A "Multiplying 1D Array in Python" and iditect.com "Multiplying a tuple by a scalar"
  (`a * 2` repeats a tuple): the q16 experiment whose (T, T) * 2 is (T, T, T, T), a ratio of T^2, read as
  faster than quadratic.
q07 and q13 are reached through `where`: the q01, q02, q04 and q05 variants break self_attention (q07,
and q09's zero-projection test), the q02 and q05 variants break cross_attention (q13).

The correct variants use habits from elsewhere that happen to be right in torch: NumPy's axis= / keepdims=
keywords (torch accepts them), tensordot with dims=([-1], [0]), einsum scores divided by math.sqrt, a
where-built mask from ~tril, a float64 arange ** -1, NaN patched with torch.isnan, mv-based kernel
averages, torch.pow(2.0, H), `not with_output`, the lesson's Q and K typed as float64, argmax over an int
tensor of options, and a doubled shape built element by element.

Each wrong variant changes one cell of an otherwise full-marks notebook and holds exactly one mistake;
`where` lists every question whose tests may lose points. Every variant was checked with a throwaway script
under /tmp/w56-attention-pipeline/: each variant's notebook run top to bottom (all code cells but otter's),
then every function compared with plain torch (`torch.softmax`, `torch.nn.functional
.scaled_dot_product_attention` with is_causal and with an additive attn_mask, torch.special.entr, the
notebook's own formulas) on unbatched, batched and 4-D inputs, T_q != T_k, d_k != d_v, in float64, float32,
float16 and bfloat16, and every written answer compared with the right letter or integer; the correct
variants agree everywhere (float16/bfloat16 within their precision), and each wrong variant differs or fails
in its `where` questions and nowhere else.

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
    # NumPy keywords that torch accepts: softmax(axis=...) and sum(axis=..., keepdims=True)
    "numpy_axis_keywords_softmax_and_keepdims_prefix": {
        WEIGHTS: '''def attention_weights(S, M=None):
    Z = S if M is None else S + M
    return torch.softmax(Z, axis=-1)
''',
        AVG: '''def prefix_average_matrix(T):
    W = torch.ones(T, T, dtype=torch.float64).tril()
    return W / W.sum(axis=-1, keepdims=True)
''',
    },
    # tensordot over the last axis with negative dims; einsum scores divided by a Python float
    "tensordot_negative_dims_projection_and_einsum_div_scores": {
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    return tuple(torch.tensordot(X, W, dims=([-1], [0])) for W in (W_Q, W_K, W_V))
''',
        SCORES: '''def scaled_scores(Q, K):
    return torch.einsum("...qd,...kd->...qk", Q, K).div(math.sqrt(K.size(-1)))
''',
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q = torch.tensordot(X, W_Q, dims=1)
    K = torch.tensordot(Y, W_K, dims=1)
    V = torch.tensordot(Y, W_V, dims=1)
    A = attention_weights(scaled_scores(Q, K), M)
    return torch.matmul(A, V), A
''',
    },
    # the mask from the logical not of a boolean tril through torch.where; float64 arange ** -1
    "where_not_tril_mask_and_float_arange_reciprocal_prefix": {
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    future = ~torch.ones(T, T, dtype=torch.bool, device=device).tril()
    blocked = torch.full((), torch.finfo(dtype).min, dtype=dtype, device=device)
    return torch.where(future, blocked, torch.zeros((), dtype=dtype, device=device))
''',
        AVG: '''def prefix_average_matrix(T):
    counts = torch.arange(1, T + 1, dtype=torch.float64).unsqueeze(1)
    return torch.tril(torch.ones(T, T, dtype=torch.float64)) * counts ** -1
''',
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    if causal:
        S = S + causal_additive_mask(S.size(-1), dtype=Q.dtype, device=Q.device)
    A = attention_weights(S)
    return torch.matmul(A, V), A
''',
    },
    # NaN terms patched with torch.isnan; 2 ** H with torch.pow; mv-based kernel average
    "isnan_patched_entropy_pow_tokens_and_mv_kernel": {
        ENT: '''def row_entropy_bits(A):
    terms = A * torch.log2(A)
    terms = torch.where(torch.isnan(terms), torch.zeros_like(terms), terms)
    return -terms.sum(dim=-1)


def effective_tokens(A):
    return torch.pow(2.0, row_entropy_bits(A))
''',
        NW: '''def nadaraya_watson(q, K, V):
    kappa = torch.exp(torch.mv(K, q) / math.sqrt(q.numel()))
    return torch.mv(V.mT, kappa) / kappa.sum()
''',
    },
    # `not` for the flag, the lesson's Q and K typed as float64, argmax over an int tensor of options,
    # a doubled shape built element by element
    "not_flag_float_lesson_rank_int_argmax_letter_and_doubled_shape": {
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    n = d_model * d_k + d_model * d_k + d_model * d_v
    if not with_output:
        return n
    return n + d_v * d_model
''',
        RANK: '''max_rank_S = min(8, 100)

_Kl = torch.tensor([[2, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]], dtype=torch.float64)
_Ql = torch.tensor([[1, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]], dtype=torch.float64)
rank_S_lesson = int(torch.linalg.matrix_rank(scaled_scores(_Ql, _Kl)).item())
''',
        SCALE_ANS: '''ans_scale = "B".lower()
''',
        MASK_ANS: '''ans_mask = "abcd"[2]
''',
        CAUSAL_ANS: '''_holds = torch.tensor([False, False, False, True])      # which option holds
ans_cross_causal = "abcd"[int(_holds.int().argmax())]
''',
        COST_ANS: '''_T, _d_k = 100, 64
_S_shape = (_T, _T)
_S_shape_2x = tuple(2 * n for n in _S_shape)
_ratio = math.prod(_S_shape_2x) * _d_k / (math.prod(_S_shape) * _d_k)
ans_complexity = {1: "b", 2: "a", 4: "c"}.get(round(_ratio), "d")
''',
    },
}

WRONG = {
    # JAX/functorch vmap docs: write it for one example, vmap over the batch
    "q01_jax_style_token_vmap_assumes_unbatched_input": ({
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    # JAX style: write the projection for one token (q = W^T x), then vmap over the tokens
    def one_token(x):
        return W_Q.mT @ x, W_K.mT @ x, W_V.mT @ x
    return torch.vmap(one_token)(X)
''',
    }, {"mistake": "Writes the projection for a single token vector (W^T x) and vmaps it once over the first "
                   "axis, which is only the token axis of an unbatched X: for a batched X each call receives "
                   "a whole (T, d_model) sequence and W^T @ X fails (or, when T == d_model, mixes the wrong "
                   "axes).",
        "where": ["q01", "q07", "q09"]}),

    # Flax dot_product_attention_weights: einsum('...qhd,...khd->...hqk')
    "q02_flax_head_axis_einsum_on_headless_tensors": ({
        SCORES: '''def scaled_scores(Q, K):
    # as in flax.linen.dot_product_attention_weights
    depth = Q.shape[-1]
    Q = Q / math.sqrt(depth)
    return torch.einsum("...qhd,...khd->...hqk", Q, K)
''',
    }, {"mistake": "Pastes Flax's einsum '...qhd,...khd->...hqk', written for (batch, length, heads, depth) "
                   "inputs, onto (..., T, d_k) tensors without a head axis: unbatched inputs fail, and for "
                   "batched ones the token axis is taken as the head axis and the batch axis as the "
                   "positions, giving a (T, B, B) result instead of (B, T_q, T_k).",
        "where": ["q02", "q07", "q09", "q13"]}),

    # attention-entropy snippets: log(p + eps) "to avoid log(0)"
    "q03_experiment_log_plus_epsilon_reads_negative_entropy": ({
        SCALE_ANS: '''_g = torch.Generator().manual_seed(0)
_d_k = 512
_Q = torch.randn(8, _d_k, dtype=torch.float64, generator=_g)
_K = torch.randn(8, _d_k, dtype=torch.float64, generator=_g)


def _entropy_bits(S):
    A = torch.softmax(S, dim=-1)
    return -(A * torch.log2(A + 1e-12)).sum(dim=-1)          # epsilon to avoid log(0)


_S = _Q @ _K.transpose(-2, -1)
_H_raw = _entropy_bits(_S)
_H_scaled = _entropy_bits(_S / math.sqrt(_d_k))
if _H_raw.min() < 0:
    ans_scale = "d"                                          # some rows came out below zero
elif _H_raw.mean() < _H_scaled.mean() - 0.5:
    ans_scale = "b"
elif _H_raw.mean() > _H_scaled.mean() + 0.5:
    ans_scale = "a"
else:
    ans_scale = "c"
''',
    }, {"mistake": "Its experiment computes the entropy as -sum A log2(A + 1e-12); for a one-hot row of the "
                   "unscaled scores that is -log2(1 + 1e-12) = -1.4e-12 bits, an artefact of the epsilon, "
                   "which it reads as the entropies becoming negative and answers 'd' instead of 'b'.",
        "where": ["q03"]}),

    # SO "Numpy transpose of 1D array not giving expected result" (MATLAB's (1:T)')
    "q04_matlab_column_transpose_of_1d_arange_blocks_nothing": ({
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    pos = torch.arange(T, device=device)
    future = pos.T < pos                 # (1:T)' < (1:T): query index below key index
    return torch.zeros(T, T, dtype=dtype, device=device).masked_fill(future, torch.finfo(dtype).min)
''',
    }, {"mistake": "Writes MATLAB's (1:T)' < (1:T) as pos.T < pos, but .T of a 1-D tensor is the same 1-D "
                   "tensor, so the comparison is element-wise (all False) instead of a (T, T) outer "
                   "comparison; the mask blocks nothing and stays all zeros.",
        "where": ["q04", "q07", "q09"]}),

    # DiffStyler #2, pytorch-yolo2 #174: boolean-mask indexing does not broadcast
    "q05_mask_added_through_boolean_index_fails_with_batch_axis": ({
        WEIGHTS: '''def attention_weights(S, M=None):
    if M is not None:
        S = S.clone()
        changed = M != 0
        S[changed] = S[changed] + M[changed]       # touch only the entries the mask changes
    return torch.softmax(S, dim=-1)
''',
    }, {"mistake": "Adds the mask only at its nonzero entries through boolean indexing S[M != 0], which is "
                   "right when S and M have the same shape but does not broadcast: a (T, T) mask on batched "
                   "(B, T, T) scores raises an IndexError instead of applying to every batch element.",
        "where": ["q05", "q07", "q09", "q13"]}),

    # colinfay.me: R's <- assignment arrow
    "q06_r_assignment_arrow_parsed_as_comparison": ({
        MASK_ANS: '''# c) without the mask position t reads token t+1, the very token it is trained to predict
ans_mask <- "c"
''',
    }, {"mistake": "Assigns with R's arrow, ans_mask <- 'c', which Python parses as the comparison "
                   "ans_mask < -'c'; it raises a NameError and ans_mask is never defined.",
        "where": ["q06"]}),

    # math.exp is not element-wise (only one element tensors can be converted to Python scalars)
    "q08_math_exp_on_the_score_vector": ({
        NW: '''def nadaraya_watson(q, K, V):
    kappa = math.exp(K @ q / math.sqrt(q.shape[-1]))
    return (kappa[:, None] * V).sum(dim=0) / kappa.sum()
''',
    }, {"mistake": "Takes the kernel weights with math.exp, which (unlike MATLAB's exp or torch.exp) only "
                   "accepts one number: on the vector of T scores it raises 'only one element tensors can be "
                   "converted to Python scalars' (with a single key it returns a float, which cannot be indexed).",
        "where": ["q08"]}),

    # NumPy "Integers to negative integer powers are not allowed"
    "q09_int64_arange_to_power_minus_one": ({
        AVG: '''def prefix_average_matrix(T):
    counts = torch.arange(1, T + 1).unsqueeze(1)          # 1, 2, ..., T down the rows
    return torch.tril(torch.ones(T, T, dtype=torch.float64)) * counts ** -1
''',
    }, {"mistake": "Takes the reciprocal row counts as counts ** -1 on an int64 arange, as MATLAB's "
                   "(1:T)'.^-1 would on doubles; torch refuses integers to negative integer powers and "
                   "raises a RuntimeError.",
        "where": ["q09"]}),

    # NaN compares unequal to everything
    "q10_nan_terms_patched_with_equality_test": ({
        ENT: '''def row_entropy_bits(A):
    terms = A * torch.log2(A)
    terms[terms == float("nan")] = 0.0          # 0 * log 0 counts as 0
    return -terms.sum(dim=-1)


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
''',
    }, {"mistake": "Patches the 0 * log 0 terms with terms[terms == float('nan')] = 0, but NaN is not equal "
                   "to anything (not even NaN), so nothing is replaced and every row with a zero weight "
                   "(every masked row) has entropy NaN.",
        "where": ["q10"]}),

    # pytorch #11951, #105243: "Expected object of scalar type Float but got scalar type Long"
    "q11_lesson_keys_typed_as_integer_literals": ({
        RANK: '''max_rank_S = 8

_Kl = torch.tensor([[2, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]])
_Ql = torch.tensor([[1, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]])
rank_S_lesson = int(torch.linalg.matrix_rank(scaled_scores(_Ql, _Kl)))
''',
    }, {"mistake": "Types the lesson's keys as integer literals, which torch stores as int64 (not as doubles "
                   "as MATLAB or float-minded habits expect); the queries hold 0.5 and are float32, so "
                   "Q @ K^T raises a dtype-mismatch RuntimeError and rank_S_lesson is never set.",
        "where": ["q11"]}),

    # python/cpython #103487: ~True == -2, which is truthy
    "q12_matlab_tilde_not_on_the_output_flag": ({
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    n = d_model * (2 * d_k + d_v)
    if ~with_output:                     # ~ is "not", as in MATLAB
        return n
    return n + d_v * d_model
''',
    }, {"mistake": "Negates the flag with MATLAB's ~, which on a Python bool is the bitwise inversion of the "
                   "integer (~False == -1, ~True == -2), truthy both ways, so it always returns early and "
                   "with_output=True never adds the d_v * d_model weights of W_O.",
        "where": ["q12"]}),

    # MATLAB's sum runs down the first dimension
    "q14_experiment_mix_summed_down_the_first_axis": ({
        SHAPES_ANS: '''_g = torch.Generator().manual_seed(0)
_T, _Tp, _dm, _dk, _dv = 3, 5, 6, 4, 2
_X = torch.randn(_T, _dm, dtype=torch.float64, generator=_g)
_Y = torch.randn(_Tp, _dm, dtype=torch.float64, generator=_g)
_Q = _X @ torch.randn(_dm, _dk, dtype=torch.float64, generator=_g)
_K = _Y @ torch.randn(_dm, _dk, dtype=torch.float64, generator=_g)
_V = _Y @ torch.randn(_dm, _dv, dtype=torch.float64, generator=_g)
_S = _Q @ _K.transpose(-2, -1) / math.sqrt(_dk)
_A = torch.softmax(_S, dim=-1)
_O = (_A.unsqueeze(-1) * _V.unsqueeze(0)).sum(0)          # sum(A .* V): weighted values added up
_options = {
    "a": ((_T, _T), (_T, _dv)),
    "b": ((_T, _Tp), (_T, _dv)),
    "c": ((_Tp, _T), (_Tp, _dv)),
    "d": ((_T, _Tp), (_Tp, _dv)),
}
ans_cross_shapes = [k for k, (s, o) in _options.items() if s == tuple(_S.shape) and o == tuple(_O.shape)][0]
''',
    }, {"mistake": "Its experiment mixes the values with a broadcast product summed with .sum(0), down the "
                   "first axis as MATLAB's sum does, which adds over the queries instead of the keys; O comes "
                   "out T' x d_v and it answers 'd' instead of 'b'.",
        "where": ["q14"]}),

    # pytorch #35529: argmax of a bool tensor is not implemented
    "q15_option_picked_by_argmax_of_a_bool_tensor": ({
        CAUSAL_ANS: '''_holds = torch.tensor([False, False, False, True])      # which option holds
ans_cross_causal = "abcd"[_holds.argmax()]
''',
    }, {"mistake": "Picks the letter as the argmax of a bool tensor of the options that hold, the NumPy "
                   "idiom for the first True; torch's argmax does not support bool input and raises, so "
                   "ans_cross_causal is never set.",
        "where": ["q15"]}),

    # "Multiplying 1D Array in Python": a * 2 repeats a tuple
    "q16_shape_tuple_times_two_repeats_the_shape": ({
        COST_ANS: '''_T, _d_k = 100, 64
_S_shape = (_T, _T)                          # T x T scores, d_k multiply-adds each
_S_shape_2x = _S_shape * 2                   # the same at twice the length
_ratio = math.prod(_S_shape_2x) * _d_k / (math.prod(_S_shape) * _d_k)
ans_complexity = {1: "b", 2: "a", 4: "c"}.get(round(_ratio), "d")      # faster than quadratic: d
''',
    }, {"mistake": "Doubles the shape of S with (T, T) * 2, which repeats the tuple to (T, T, T, T) instead "
                   "of doubling each length, so the cost ratio is T^2 = 10000 rather than 4 and it answers "
                   "'d' (faster than quadratic) instead of 'c'.",
        "where": ["q16"]}),
}
