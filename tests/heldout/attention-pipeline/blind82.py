"""Blind held-out set 82 for attention-pipeline.

Eighty-second blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, its diagnosis code, the reference solution, `variants.py`, the naming
tests or `measure.py`, and without running the grader on these variants. What was read: the student-facing
text of attention-pipeline.ipynb (as it appears in full_marks.ipynb), the solution cells of full_marks.ipynb,
`harness.py`, blind81.py (for the format and the docstring), round 81's throwaway check script (as a template
for this round's own), and only the variant names of the earlier blind
sets (to avoid repeating a mistake in the same form).

Round 82's angle: MORE THAN WAS ASKED: EXTENSIONS AND OPTIONS THAT BREAK THE PLAIN CASE. Each wrong variant is
a student who built the "real" function with extra options; the extension is sound in itself, but its DEFAULT
or the branch it adds changes what the plain call computes: a weight-layout flag whose default is nn.Linear's
(out, in) layout (q01); a grouped-query `n_kv_heads=1` default that repeats the keys along the batch axis
(q02); an experiment that passes `scale=None` meaning "no scale" while None is the default that scales (q03);
a `batch_dims=1` broadcasting default that gives the mask a leading axis (q04); a `scale=None` option in the
softmax that applies 1/sqrt(T_k) a second time (q05); a dropout experiment that decides the mask question
(q06); an options dict as a mutable default, so the first call's `causal` sticks (q07); a kernel bandwidth
default computed at definition time from the lesson's d_k = 4 (q08); a `dim=0` default for the normalisation
(q09); an `effective_tokens(A, base=math.e)` option whose base is not passed on to the entropy (q10); a head
count defaulting to d_model // d_k (q12); a key-padding mask merged into the given mask with `|` instead of
`&` (q13); a shared config class with `causal=True` read as the answer (q15); and a KV-cache decoding step's
cost read as the cost of S (q16).

Public material found with the `search` tool, and what it showed:
- github.com/karpathy/nanoGPT/pull/240 ("don't dropout in eval mode"), github.com/pytorch/pytorch/issues/124464
  (SDPA does not switch off dropout during evaluation), github.com/NVIDIA/Megatron-LM/pull/411 (eval sets
  dropout_p to 0 forever: a state shared between calls): options whose value outlives or overrides the plain
  call: the dropout experiment of q06 and the shared options dict of q07.
- github.com/pytorch/pytorch/pull/39321 and pull/33763, github.com/lucidrains/x-transformers/issues/164,
  github.com/NVIDIA/TransformerEngine/issues/614 (True means "masked out" in one library and "attend" in
  another), hpcaitech/Titans pull/47 (attn_mask merged with key_padding_mask through logical_or for
  True-is-blocked masks): the padding merge of q13, where a keep mask is merged with the blocked-mask operator.
- pytorch.org docs of torch.set_default_dtype and the Python rule that defaults are evaluated once, when the
  `def` runs: the bandwidth default frozen at the lesson's d_k (q08).
- The remaining kinds (nn.Linear's (out, in) weight layout as a default, grouped-query repeat with a default
  of one KV head, a `dim`/`base`/`n_heads` option with a default that is not the plain case, a config class
  shared by every layer, KV-cache decoding cost) follow the brief's list of extension slips.

The correct variants are extended too: a weight-layout flag, `scale=None` resolved per call, dropout that is
off by default, bool-or-additive masks, a rectangular (KV-cache) causal mask, `return_weights`, a padding
mask merged with torch.minimum, `dim` and `base` options, a bias flag that is off, an options dict copied per
call; every one leaves the plain call exactly as asked and runs top to bottom.

Every variant was checked with a throwaway script under /tmp/w82-attention-pipeline/: each variant's notebook
built with harness.build_notebook and run top to bottom (all code cells but otter's), then every function
and answer compared with torch.softmax / scaled_dot_product_attention-based references (fully masked rows
included) on unbatched, batched and 4-D inputs, T_q != T_k, d_k != d_v, float64, float32 and float16, with and
without masks, calling the functions in both orders (causal=True before and after causal=False).

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
    # a weight-layout flag right both ways, scale resolved per call, dropout off by default, both mask kinds
    "layout_flag_projection_per_call_scale_and_eval_default_softmax": {
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V, weight_layout="in_out"):
    """weight_layout="out_in" accepts nn.Linear-style (d_out, d_model) weights."""
    if weight_layout not in ("in_out", "out_in"):
        raise ValueError(weight_layout)
    if weight_layout == "out_in":
        W_Q, W_K, W_V = (W.transpose(-2, -1) for W in (W_Q, W_K, W_V))
    return X @ W_Q, X @ W_K, X @ W_V
''',
        SCORES: '''def scaled_scores(Q, K, scale=None):
    """scale=None means the usual 1/sqrt(d_k), worked out from this call's Q."""
    if scale is None:
        scale = 1.0 / math.sqrt(Q.shape[-1])
    return (Q @ K.transpose(-2, -1)) * scale
''',
        WEIGHTS: '''def attention_weights(S, M=None, dropout_p=0.0, training=False):
    """M: additive (0 open, finfo.min blocked) or boolean (True = attend, like SDPA)."""
    if M is not None:
        if M.dtype == torch.bool:
            S = S.masked_fill(~M, torch.finfo(S.dtype).min)
        else:
            S = S + M
    A = torch.softmax(S, dim=-1)
    if training and dropout_p > 0.0:
        A = torch.nn.functional.dropout(A, p=dropout_p, training=True)
    return A
''',
    },
    # a KV-cache aware rectangular mask (square by default) and a self_attention with extra options off
    "kv_cache_mask_and_return_weights_self_attention": {
        MASK: '''def causal_additive_mask(T, dtype, device=None, T_k=None):
    """T queries that are the last T of T_k keys (KV cache); T_k=None is the square mask."""
    if T_k is None:
        T_k = T
    future = torch.ones(T, T_k, dtype=torch.bool, device=device).triu(1 + T_k - T)
    return torch.zeros(T, T_k, dtype=dtype, device=device).masked_fill(future, torch.finfo(dtype).min)
''',
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True, dropout_p=0.0, training=False, return_weights=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    M = causal_additive_mask(S.shape[-2], S.dtype, S.device) if causal else None
    A = attention_weights(S, M)
    if training and dropout_p > 0.0:
        A = torch.nn.functional.dropout(A, p=dropout_p)
    O = A @ V
    return (O, A) if return_weights else O
''',
    },
    # a padding mask merged with torch.minimum, a kernel with a per-call scale option
    "padding_mask_minimum_merge_cross_and_scale_option_kernel": {
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None, key_padding_mask=None):
    """key_padding_mask: (..., T') bool, True = padding (blocked), as in nn.MultiheadAttention."""
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    S = scaled_scores(Q, K)
    if key_padding_mask is not None:
        pad = torch.zeros(key_padding_mask.shape, dtype=S.dtype, device=S.device)
        pad = pad.masked_fill(key_padding_mask, torch.finfo(S.dtype).min).unsqueeze(-2)
        M = pad if M is None else torch.minimum(M, pad)
    A = attention_weights(S, M)
    return A @ V, A
''',
        NW: '''def nadaraya_watson(q, K, V, scale=None):
    if scale is None:
        scale = 1.0 / math.sqrt(q.shape[-1])
    kappa = torch.exp((K @ q) * scale)
    return (kappa[:, None] * V).sum(dim=0) / kappa.sum()
''',
    },
    # dim/base options right by default, a dtype option, a bias flag that is off
    "dim_base_entropy_dtype_option_prefix_and_bias_flag_count": {
        ENT: '''def row_entropy_bits(A, dim=-1, base=2.0):
    logs = torch.log2(A) if base == 2.0 else torch.log(A) / math.log(base)
    logs = torch.where(A > 0, logs, torch.zeros_like(A))
    return -(A * logs).sum(dim=dim)


def effective_tokens(A, dim=-1, base=2.0):
    return base ** row_entropy_bits(A, dim=dim, base=base)
''',
        AVG: '''def prefix_average_matrix(T, dtype=torch.float64, device=None):
    W = torch.tril(torch.ones(T, T, dtype=dtype, device=device))
    return W / W.sum(dim=-1, keepdim=True)
''',
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False, bias=False, n_heads=1):
    n = n_heads * d_model * (2 * d_k + d_v)
    if bias:
        n += n_heads * (2 * d_k + d_v)
    if with_output:
        n += n_heads * d_v * d_model + (d_model if bias else 0)
    return n
''',
    },
    # an options dict copied per call, and answers computed with the extended functions
    "copied_options_self_attention_and_computed_answers": {
        SELF: '''DEFAULT_OPTS = {"causal": True, "return_weights": True}

def self_attention(X, W_Q, W_K, W_V, causal=True, opts=None):
    o = dict(DEFAULT_OPTS)
    o["causal"] = causal
    o.update(opts or {})
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    M = causal_additive_mask(X.shape[-2], S.dtype, S.device) if o["causal"] else None
    A = attention_weights(S, M)
    return (A @ V, A) if o["return_weights"] else A @ V
''',
        SCALE_ANS: '''def _entropy(S):
    p = torch.softmax(S, dim=-1)
    return -(p * torch.log2(p.clamp_min(1e-300))).sum(-1).mean().item()

_g = torch.Generator().manual_seed(0)
_q = torch.randn(8, 512, dtype=torch.float64, generator=_g)
_k = torch.randn(8, 512, dtype=torch.float64, generator=_g)
_H_scaled = _entropy(scaled_scores(_q, _k))
_H_raw = _entropy(_q @ _k.T)          # the factor deleted
ans_scale = "b" if _H_raw < 0.25 * _H_scaled else "c"
''',
        SHAPES_ANS: '''_X, _Y = torch.randn(3, 6), torch.randn(5, 6)
_O, _A = cross_attention(_X, _Y, torch.randn(6, 4), torch.randn(6, 4), torch.randn(6, 2))
ans_cross_shapes = {((3, 3), (3, 2)): "a", ((3, 5), (3, 2)): "b",
                    ((5, 3), (5, 2)): "c", ((3, 5), (5, 2)): "d"}[(tuple(_A.shape), tuple(_O.shape))]
''',
    },
}

WRONG = {
    # --- q01
    "q01_weight_layout_flag_defaults_to_nn_linear_out_in": ({
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V, weight_layout="out_in"):
    """Works with nn.Linear weights too: layout "out_in" is (d_out, d_model), "in_out" is (d_model, d_out)."""
    if weight_layout == "out_in":
        W_Q, W_K, W_V = (W.transpose(-2, -1) for W in (W_Q, W_K, W_V))
    return X @ W_Q, X @ W_K, X @ W_V
''',
    }, {"mistake": "Adds a weight_layout option for nn.Linear-style weights, but makes nn.Linear's (out, in) layout "
                   "the default: the plain call transposes the (d_model, d_k) weights, a shape error (or, when "
                   "d_model == d_k, the projections with transposed matrices); self_attention breaks with it.",
        "where": ["q01", "q07", "q09"]}),

    # --- q02
    "q02_grouped_query_default_one_kv_head_repeats_keys_over_batch": ({
        SCORES: '''def scaled_scores(Q, K, n_kv_heads=1):
    """Grouped-query attention: Q is (..., H, T_q, d_k), K may have fewer heads (n_kv_heads)."""
    if Q.dim() >= 3:
        n_rep = Q.shape[-3] // n_kv_heads
        K = K.repeat_interleave(n_rep, dim=-3)
    d_k = Q.shape[-1]
    return Q @ K.transpose(-2, -1) / math.sqrt(d_k)
''',
    }, {"mistake": "Supports grouped-query attention with n_kv_heads defaulting to 1, so the key repeat runs on every "
                   "batched call: the keys are repeated along the leading (batch) axis as if it were heads, and a "
                   "batch of B inputs gives B*B key sets along that axis (a shape error); 2-D inputs still work. "
                   "Everything built on the scores fails on batched input.",
        "where": ["q02", "q07", "q13"]}),

    # --- q03
    "q03_scale_none_passed_to_mean_unscaled_answers_c": ({
        SCALE_ANS: '''def _scores(q, k, scale=None):
    # scale=None -> the default 1/sqrt(d_k), like SDPA's scale argument
    if scale is None:
        scale = 1 / math.sqrt(q.shape[-1])
    return q @ k.T * scale

def _H(S):
    p = torch.softmax(S, -1)
    return -(p * torch.log2(p.clamp_min(1e-30))).sum(-1).mean().item()

torch.manual_seed(0)
_q, _k = torch.randn(8, 512, dtype=torch.float64), torch.randn(8, 512, dtype=torch.float64)
H_scaled = _H(_scores(_q, _k))
H_deleted = _H(_scores(_q, _k, scale=None))   # no scale factor
print(H_scaled, H_deleted)
ans_scale = "c" if abs(H_scaled - H_deleted) < 0.1 else ("b" if H_deleted < H_scaled else "a")
''',
    }, {"mistake": "Decides by experiment with a scale option, but 'deletes' the factor by passing scale=None, which is "
                   "the option's default 1/sqrt(d_k): both runs are scaled, the entropies agree and the answer is "
                   "'c' (nothing changes) instead of 'b'.",
        "where": ["q03"]}),

    # --- q04
    "q04_mask_batch_dims_option_defaults_to_one_leading_axis": ({
        MASK: '''def causal_additive_mask(T, dtype, device=None, batch_dims=1):
    """batch_dims leading size-1 axes so the mask broadcasts against (B, T, T) scores."""
    future = torch.triu(torch.ones(T, T, dtype=torch.bool, device=device), diagonal=1)
    M = torch.zeros(T, T, dtype=dtype, device=device)
    M[future] = torch.finfo(dtype).min
    return M.reshape((1,) * batch_dims + (T, T))
''',
    }, {"mistake": "Adds a batch_dims option to pre-shape the mask for broadcasting, defaulting to 1: the plain call "
                   "returns a (1, T, T) tensor instead of (T, T), and an unbatched causal self_attention comes out "
                   "with an extra leading axis on O and A.",
        "where": ["q04", "q07", "q09"]}),

    # --- q05
    "q05_softmax_scale_option_defaults_to_root_key_count": ({
        WEIGHTS: '''def attention_weights(S, M=None, scale=None):
    """scale: like SDPA's, None means 1/sqrt(size of the last axis)."""
    if scale is None:
        scale = 1.0 / math.sqrt(S.shape[-1])
    if M is not None:
        S = S + M
    return torch.softmax(S * scale, dim=-1)
''',
    }, {"mistake": "Gives the softmax an SDPA-like scale option whose None default is 1/sqrt(last axis): the plain call "
                   "divides the (already scaled) scores again by sqrt(T_k), so the weights are too flat, and "
                   "self- and cross-attention with them.",
        "where": ["q05", "q07", "q13"]}),

    # --- q06
    "q06_dropout_experiment_rows_not_summing_answers_a": ({
        MASK_ANS: '''# experiment with my full version (dropout on while training)
torch.manual_seed(0)
_S = torch.randn(6, 6)
_A = torch.nn.functional.dropout(torch.softmax(_S, -1), p=0.1, training=True)   # no mask, training mode
_rows_sum_to_one = torch.allclose(_A.sum(-1), torch.ones(6))
print(_A.sum(-1))
# without the mask the rows no longer sum to 1 -> that is what breaks training
ans_mask = "a" if not _rows_sum_to_one else "c"
''',
    }, {"mistake": "Runs the experiment with an extended attention that applies dropout in training mode: dropout "
                   "makes the rows stop summing to 1, which is blamed on the missing mask, so the answer is 'a' "
                   "instead of 'c' (position t can read the token it must predict).",
        "where": ["q06"]}),

    # --- q07
    "q07_options_dict_mutable_default_keeps_first_causal": ({
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True, opts={}):
    """opts may carry "causal" (and later "dropout_p" ...); the argument fills it in when absent."""
    opts.setdefault("causal", causal)
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    M = causal_additive_mask(X.shape[-2], S.dtype, S.device) if opts["causal"] else None
    A = attention_weights(S, M)
    return A @ V, A
''',
    }, {"mistake": "Keeps an options dict as a mutable default and fills it with setdefault: the first call stores its "
                   "causal value in the shared dict, and every later call uses it, so after one causal call "
                   "causal=False still masks (and after an unmasked call causal=True no longer masks).",
        "where": ["q07", "q09"]}),

    # --- q08
    "q08_bandwidth_default_frozen_at_lesson_head_size": ({
        NW: '''D_K = 4   # the lesson's head size

def nadaraya_watson(q, K, V, bandwidth=math.sqrt(D_K)):
    """bandwidth h of the kernel exp(q.k / h); the attention choice is h = sqrt(d_k)."""
    kappa = torch.exp(K @ q / bandwidth)
    return (kappa[:, None] * V).sum(dim=0) / kappa.sum()
''',
    }, {"mistake": "Makes the kernel bandwidth an option whose default is computed once, when the def runs, from the "
                   "lesson's d_k = 4: every call uses h = 2 whatever the query size, so the weights are wrong "
                   "whenever d_k != 4.",
        "where": ["q08"]}),

    # --- q09
    "q09_normalisation_dim_option_defaults_to_zero": ({
        AVG: '''def prefix_average_matrix(T, dim=0):
    """dim: the axis the weights sum to 1 along (for column-convention users)."""
    W = torch.tril(torch.ones(T, T, dtype=torch.float64))
    return W / W.sum(dim=dim, keepdim=True)
''',
    }, {"mistake": "Adds a dim option for the axis that sums to 1 but defaults it to 0: the lower triangle is divided by "
                   "its column counts (T - j) instead of the row counts, so row t does not hold 1/t and the rows "
                   "do not sum to 1.",
        "where": ["q09"]}),

    # --- q10
    "q10_effective_tokens_base_option_default_e_not_passed_on": ({
        ENT: '''def row_entropy_bits(A, base=2.0):
    logs = torch.where(A > 0, torch.log(A) / math.log(base), torch.zeros_like(A))
    return -(A * logs).sum(dim=-1)


def effective_tokens(A, base=math.e):
    """base ** H_base is the same number for every base."""
    return base ** row_entropy_bits(A)
''',
    }, {"mistake": "Gives effective_tokens a base option (default e) but does not pass it on to the entropy, which stays "
                   "in bits: it returns e ** H_bits instead of 2 ** H_bits (the entropy itself is right).",
        "where": ["q10"]}),

    # --- q12
    "q12_head_count_defaults_to_d_model_over_d_k": ({
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False, n_heads=None):
    """Multi-head count; n_heads defaults to the usual d_model // d_k heads."""
    if n_heads is None:
        n_heads = d_model // d_k
    n = n_heads * d_model * (2 * d_k + d_v)
    if with_output:
        n += n_heads * d_v * d_model
    return n
''',
    }, {"mistake": "Extends the count to several heads with n_heads defaulting to d_model // d_k: the plain call counts "
                   "d_model // d_k heads instead of one (6 times too many for the lesson's 384/64, 1.5 for 6/4).",
        "where": ["q12"]}),

    # --- q13
    "q13_padding_keep_mask_merged_with_or": ({
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None, key_padding_mask=None):
    """key_padding_mask: (..., T') bool, True = padding. Both masks go into one keep mask."""
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    S = scaled_scores(Q, K)
    keep = torch.ones(S.shape[-2:], dtype=torch.bool, device=S.device)
    if M is not None:
        keep = keep | (M == 0)
    if key_padding_mask is not None:
        keep = keep | ~key_padding_mask.unsqueeze(-2)
    S = S.masked_fill(~keep, torch.finfo(S.dtype).min)
    A = torch.softmax(S, dim=-1)
    return A @ V, A
''',
    }, {"mistake": "Turns M (and an optional padding mask) into one boolean keep mask but merges with | instead of &: "
                   "starting from all-True, the merge keeps every key, so the given M is ignored and blocked keys "
                   "get weight.",
        "where": ["q13"]}),

    # --- q15
    "q15_shared_attention_config_causal_true_answers_a": ({
        CAUSAL_ANS: '''class AttnConfig:
    causal = True        # default for every attention layer of my decoder
    dropout_p = 0.0

decoder_self, decoder_cross = AttnConfig(), AttnConfig()
# both layers share the same config, and a language model is causal, so every layer needs the mask
ans_cross_causal = "a" if decoder_cross.causal else "d"
''',
    }, {"mistake": "Answers from a config class shared by every layer with causal=True: the cross-attention layer "
                   "inherits the causal default, read as 'always', so the answer is 'a' instead of 'd'.",
        "where": ["q15"]}),

    # --- q16
    "q16_kv_cache_decode_step_cost_read_as_total_answers_a": ({
        COST_ANS: '''def decode_step_mults(T, d_k=64):
    # with a KV cache, one new query against T cached keys: T scores of d_k multiply-adds
    return T * d_k

ratio = decode_step_mults(256) / decode_step_mults(128)
ans_complexity = {1: "b", 2: "a", 4: "c", 8: "d"}[round(ratio)]
''',
    }, {"mistake": "Measures the cost with a KV-cache decoding step (one new query against T cached keys), which grows "
                   "linearly, instead of the full T x T score matrix: the answer is 'a' instead of 'c'.",
        "where": ["q16"]}),
}
