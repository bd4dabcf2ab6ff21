"""Eighty-second blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, `assignments/scaled-attention/hidden/`, `reference/`, `autograder/`,
`variants.py`, `measure.py`, the naming tests or the round tests. What was read: the cells of
`examples/submissions/scaled-attention/full_marks.ipynb` (q1 a 2-D `attention(Q, K, V, d_k)` returning
`(output, weights)`; q2 `dot_product_variance`; q4 `softmax_entropy` and `entropy_table` in one cell; q5..q7 one
letter each; q8 a loop over heads calling the 2-D `attention`; demo cells that call `attention`,
`dot_product_variance` and `entropy_table` with their plain arguments; no masks anywhere), the student-facing
question text, `tests/heldout/harness.py`, blind81.py for the format, and only the variant NAMES of the earlier
blind*.py sets. The grader was not run on this set.

Focus of the round: MORE THAN WAS ASKED. Every wrong variant is a student who built the "real" function, with
extra keyword arguments or options that are right in themselves, but whose DEFAULT (or the branch it adds)
changes what the plain call computes. In q1: `dropout_p=0.1, training=True` defaults (weights dropped and
rescaled in every plain call), `is_causal=True` by default (a lower-triangular mask nobody asked for), a
`scale=` default evaluated once at definition time from a module-level `HEAD_DIM = 64` config (the `d_k`
argument is ignored), a boolean mask option with a `mask_means_keep` switch whose default empty mask is built
in the other convention (every key hidden, NaN weights), and a `temperature` defaulting to sqrt(d_k) as in the
"annotated" repositories, applied on top of the sqrt(d_k) scale (scores divided by d_k). In q2: a `scale=`
option filled in before the `scaled` test so the plain call is always scaled, and a general `dim=` for the
coordinate axis defaulting to 0 (sums over the samples). In q4: `softmax_entropy(logits, dim=0)` (right for 1-D,
wrong for batches), and `entropy_table(..., rows=[])`, a mutable default list that every call appends to. q5,
q6 and q7 are answered with the option the student's extended version would need ("A" because their attention
always scales; "B" from a probe run with their `scale=1.0` option; "C" because their `top_k` option defaults to
1). In q8: grouped-query support (`n_kv_heads=None`, meaning equal heads) whose head-to-group index divides by
the number of kv heads instead of the group size (every head reads kv head 0 when the counts are equal), and
an nn.MultiheadAttention-style `need_weights=True` default that returns a tuple. Spread: q1 x5, q2 x2, q4 x2,
q5 x1, q6 x1, q7 x1, q8 x2 (q3 is a hand-graded markdown answer). The correct variants are extended too: scale,
masks in both conventions, causal and dropout options, a frozen config object, general `dim`/`base`, grouped
query heads and `need_weights`, all with defaults that leave the plain call exactly as asked.

Public material used (nothing copied verbatim): pytorch/pytorch issue #124464 and PR #126294 (SDPA applies
`dropout_p` whatever the mode; "pass 0.0 in eval"), huggingface/pytorch-image-models PR #1978 and
wenet-e2e/wenet issue #2699 (the same eval-mode dropout slip, "a recurring bug"), pytorch/pytorch issue #99293
(asks for a `training` argument on SDPA); jingyaogong/minimind issues #382/#453, huggingface/nanoVLM issue #80
and pytorch/pytorch issue #118972 (`is_causal` and `attn_mask` set together; the two mask conventions of SDPA and
nn.MultiheadAttention); pytorch/pytorch issue #103082 (the causal mask when T_q != T_k); onnx/onnx PR #7274,
meta-llama/llama issue #384 and jxiw/M1 issue #4 (grouped-query kv heads: which query head reads which kv head,
repeat vs repeat_interleave); jadore801120/attention-is-all-you-need-pytorch (a `ScaledDotProductAttention`
whose `temperature` is d_k ** 0.5); the torch.nn.MultiheadAttention documentation (`need_weights=True` by
default, returning `(output, averaged weights)`); the Python tutorial on default argument values (evaluated
once, when the `def` runs: mutable defaults are shared between calls).

How the variants were checked: /tmp/w82-scaled-attention/check.py built each notebook with
harness.build_notebook, ran its code cells top to bottom in one namespace (otter's init and `grader.check`
cells skipped) and compared: `attention` with a softmax reference and F.scaled_dot_product_attention (float64,
float32, float16, T_q != T_k, d_v != d_k, d_k not a square, repeated calls); `dot_product_variance` against d_k
and 1 (scaled), as a Python float, and for reproducibility; `softmax_entropy` against a log_softmax entropy on
1-D, 2-D and 3-D inputs (three dtypes) and saturated rows; `entropy_table` against the full_marks cell (default
and other dims and seeds, called several times); the letters against C / A / D; `multi_head_attention`
against the full_marks loop and torch.nn.MultiheadAttention (no biases, several head counts and widths). The
correct variants agree everywhere; each wrong one differs, and only in the questions of its "where"."""

CORRECT = {
    'q1_sdpa_like_keyword_options_all_defaulting_to_plain_attention': {
        'attention': '''
def attention(Q, K, V, d_k, *, scale=None, attn_mask=None, key_padding_mask=None, is_causal=False,
              dropout_p=0.0, training=False, return_weights=True):
    """Scaled dot-product attention. Q (..., T_q, d_k), K (..., T_k, d_k), V (..., T_k, d_v).

    Options (all off by default, so the plain call is exactly softmax(QK^T / sqrt(d_k)) V):
      scale            -- multiply the scores by this instead of 1/sqrt(d_k)
      attn_mask        -- bool (True = may attend, as in F.scaled_dot_product_attention) or additive float
      key_padding_mask -- bool (T_k,), True = padding key to hide (nn.MultiheadAttention's convention)
      is_causal        -- hide keys after the query position
      dropout_p        -- only used when training=True
    Returns (output, weights), or only output with return_weights=False."""
    if scale is None:
        scale = 1.0 / math.sqrt(d_k)
    scores = (Q @ K.transpose(-2, -1)) * scale
    T_q, T_k = scores.shape[-2], scores.shape[-1]
    keep = torch.ones(T_q, T_k, dtype=torch.bool, device=scores.device)
    if is_causal:
        keep = keep & torch.ones(T_q, T_k, dtype=torch.bool, device=scores.device).tril()
    if key_padding_mask is not None:
        keep = keep & ~key_padding_mask.to(torch.bool)      # hidden if padding: AND of the "keep" masks
    if attn_mask is not None and attn_mask.dtype == torch.bool:
        keep = keep & attn_mask
    scores = scores.masked_fill(~keep, float("-inf"))
    if attn_mask is not None and attn_mask.dtype != torch.bool:
        scores = scores + attn_mask
    weights = F.softmax(scores, dim=-1)
    if training and dropout_p > 0.0:
        weights = F.dropout(weights, p=dropout_p, training=True)
    out = weights @ V
    return (out, weights) if return_weights else out
''',
    },

    'q2_scale_correction_dtype_and_return_dots_options_off_by_default': {
        'dot_product_variance': '''
def dot_product_variance(d_k, n_samples, generator, scaled=False, *, scale=None, correction=1,
                         dtype=None, return_dots=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float.

    scale: an explicit factor that overrides `scaled`; correction: as in torch.var;
    dtype: of the draws (default: torch's default); return_dots=True also returns the samples."""
    q = torch.randn(n_samples, d_k, generator=generator, dtype=dtype)
    k = torch.randn(n_samples, d_k, generator=generator, dtype=dtype)
    dots = (q * k).sum(dim=-1)
    if scale is not None:
        dots = dots * scale
    elif scaled:
        dots = dots / math.sqrt(d_k)
    var = dots.var(correction=correction).item()
    if return_dots:
        return var, dots
    return var
''',
    },

    'q4_entropy_general_dim_and_base_table_rows_none_default': {
        'softmax_entropy': '''
def softmax_entropy(logits, dim=-1, base=None):
    """Entropy of softmax(logits) over `dim` (default: the last one), in nats unless `base` is given."""
    logp = F.log_softmax(logits, dim=dim)
    p = logp.exp()
    plogp = torch.where(p > 0, p * logp, torch.zeros_like(p))   # 0 * log 0 = 0 on saturated rows
    H = -plogp.sum(dim=dim)
    if base is not None:
        H = H / math.log(base)
    return H


def entropy_table(dims=(4, 16, 64, 256), seed=0, n_keys=5, rows=None):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}.
    `rows`: an optional list to append to (a fresh one by default)."""
    if rows is None:
        rows = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(n_keys, d)
        raw = (q @ k.T)[0]
        scaled = raw / d ** 0.5
        rows.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                     "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return rows
''',
    },

    'q8_grouped_query_heads_and_need_weights_off_by_default': {
        'multi_head_attention': '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads, n_kv_heads=None, need_weights=False):
    """X (T, d_model); W_* applied as X @ W. Returns (T, d_model).

    n_kv_heads: grouped-query attention; W_K and W_V then have n_kv_heads * d_k columns and query head h
    reads kv head h // (n_heads // n_kv_heads). None means one kv head per query head (plain MHA).
    need_weights=True also returns the head-averaged attention weights."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    if n_kv_heads is None:
        n_kv_heads = n_heads
    assert n_heads % n_kv_heads == 0
    group = n_heads // n_kv_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads, maps = [], []
    for h in range(n_heads):
        g = h // group
        qc = slice(h * d_k, (h + 1) * d_k)
        kc = slice(g * d_k, (g + 1) * d_k)
        out_h, w_h = attention(Q[:, qc], K[:, kc], V[:, kc], d_k)
        heads.append(out_h)
        maps.append(w_h)
    out = torch.cat(heads, dim=1) @ W_O
    if need_weights:
        return out, torch.stack(maps).mean(dim=0)
    return out
''',
    },

    'q1_frozen_config_object_temperature_once_and_answers_commented': {
        'attention': '''
from dataclasses import dataclass


@dataclass(frozen=True)
class AttnConfig:
    temperature: float = 1.0     # extra sharpening/flattening on top of the sqrt(d_k) scale
    causal: bool = False
    dropout_p: float = 0.0
    training: bool = False


def attention(Q, K, V, d_k, config=None):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    cfg = AttnConfig() if config is None else config      # a fresh default, never shared state
    scores = Q @ K.T / (math.sqrt(d_k) * cfg.temperature)  # temperature applied once, with the scale
    if cfg.causal:
        keep = torch.ones(scores.shape, dtype=torch.bool, device=scores.device).tril()
        scores = scores.masked_fill(~keep, float("-inf"))
    weights = F.softmax(scores, dim=-1)
    if cfg.training and cfg.dropout_p > 0:
        weights = F.dropout(weights, p=cfg.dropout_p)
    return weights @ V, weights
''',
        'q5_answer': '''
# Var(q.k) before any scaling: d_k (my scale option only changes the scores, not this)
q5_answer = "C"
''',
        'q6_answer': '''
# plain call (scale = 1/sqrt(d_k), no mask, no causal): a softmax-weighted mix of all rows
q6_answer = "A"
''',
        'q7_answer': '''
# soft lookup over every key (my top-k / hard options are extras, off by default)
q7_answer = "D"
''',
    },
}

WRONG = {
    'q1_dropout_p_and_training_defaults_on_drop_weights_in_plain_call': ({
        'attention': '''
def attention(Q, K, V, d_k, dropout_p=0.1, training=True):
    """Scaled dot-product attention with attention dropout (as in the Transformer: p = 0.1).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k)."""
    scores = Q @ K.T / math.sqrt(d_k)
    weights = F.softmax(scores, dim=-1)
    weights = F.dropout(weights, p=dropout_p, training=training)
    out = weights @ V
    return out, weights
''',
    }, {
        "mistake": "The added attention dropout defaults to dropout_p=0.1 with training=True, so the plain call "
                   "randomly zeroes about 10% of the weights and rescales the rest by 1/0.9: the weights' rows no "
                   "longer sum to 1 and the output is random and wrong (also in every q8 head).",
        "where": ['q1', 'q8']}),

    'q1_is_causal_defaults_to_true_masks_later_keys': ({
        'attention': '''
def attention(Q, K, V, d_k, is_causal=True):
    """Scaled dot-product attention; is_causal hides the keys after each query (decoder use).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = Q @ K.T / math.sqrt(d_k)
    if is_causal:
        T_q, T_k = scores.shape
        future = torch.ones(T_q, T_k, dtype=torch.bool, device=scores.device).triu(diagonal=1)
        scores = scores.masked_fill(future, float("-inf"))
    weights = F.softmax(scores, dim=-1)
    return weights @ V, weights
''',
    }, {
        "mistake": "The causal option defaults to is_causal=True, so the plain call applies a lower-triangular "
                   "mask: query i only sees keys 0..i (query 0 is one-hot on key 0), weights and output wrong "
                   "(also in every q8 head).",
        "where": ['q1', 'q8']}),

    'q1_scale_default_evaluated_at_def_from_head_dim_config': ({
        'attention': '''
HEAD_DIM = 64   # model config: width of one head


def attention(Q, K, V, d_k, scale=1 / math.sqrt(HEAD_DIM)):
    """Scaled dot-product attention with an overridable scale (default 1/sqrt(head dim)).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = (Q @ K.T) * scale
    weights = F.softmax(scores, dim=-1)
    return weights @ V, weights
''',
    }, {
        "mistake": "The `scale` default is computed once, when the def runs, from the module config HEAD_DIM = 64, "
                   "and the `d_k` argument is never used: every plain call scales by 1/8 instead of 1/sqrt(d_k) "
                   "(right only when d_k happens to be 64), so weights and output are wrong, in q8 too.",
        "where": ['q1', 'q8']}),

    'q1_default_empty_mask_built_as_hide_mask_read_as_keep_mask': ({
        'attention': '''
def attention(Q, K, V, d_k, mask=None, mask_means_keep=True):
    """Scaled dot-product attention with an optional boolean mask (T_q, T_k).

    mask_means_keep=True: True marks keys that may be attended (F.scaled_dot_product_attention);
    mask_means_keep=False: True marks keys to hide (nn.MultiheadAttention's key_padding_mask)."""
    scores = Q @ K.T / math.sqrt(d_k)
    if mask is None:
        mask = torch.zeros(scores.shape, dtype=torch.bool, device=scores.device)   # nothing hidden
    if mask_means_keep:
        scores = scores.masked_fill(~mask, float("-inf"))
    else:
        scores = scores.masked_fill(mask, float("-inf"))
    weights = F.softmax(scores, dim=-1)
    return weights @ V, weights
''',
    }, {
        "mistake": "The default mask (no mask given) is an all-False tensor meant as 'hide nothing' in the hide "
                   "convention, but the default switch reads masks in the keep convention, so every key is "
                   "hidden: all scores are -inf and the plain call returns NaN weights and a NaN output (also in "
                   "q8).",
        "where": ['q1', 'q8']}),

    'q1_temperature_default_root_d_k_on_top_of_the_scale': ({
        'attention': '''
def attention(Q, K, V, d_k, temperature=None):
    """Scaled dot-product attention with a softmax temperature (default: the paper's sqrt(d_k)).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    if temperature is None:
        temperature = d_k ** 0.5
    scores = Q @ K.T / math.sqrt(d_k)
    weights = F.softmax(scores / temperature, dim=-1)
    return weights @ V, weights
''',
    }, {
        "mistake": "The temperature option defaults to sqrt(d_k) and is applied on top of the sqrt(d_k) scale, "
                   "so the plain call divides the scores by d_k: weights too flat and a wrong output (right only "
                   "for d_k = 1), in q8's heads too.",
        "where": ['q1', 'q8']}),

    'q2_scale_option_filled_before_scaled_test_always_scales': ({
        'dot_product_variance': '''
def dot_product_variance(d_k, n_samples, generator, scaled=False, scale=None):
    """Sample variance of q.k (or of scale * q.k when scaled=True, default scale 1/sqrt(d_k)) over
    n_samples pairs q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    if scale is None:
        scale = 1 / math.sqrt(d_k)
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(1)
    if scaled or scale is not None:     # an explicit scale implies scaling
        dots = dots * scale
    return dots.var().item()
''',
    }, {
        "mistake": "The default scale is filled in before the `scaled or scale is not None` test, which is then "
                   "always true: the plain call (scaled=False) also divides by sqrt(d_k) and returns about 1 "
                   "instead of about d_k.",
        "where": ['q2']}),

    'q2_coordinate_dim_option_defaults_to_zero_sums_over_samples': ({
        'dot_product_variance': '''
def dot_product_variance(d_k, n_samples, generator, scaled=False, dim=0):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`; `dim` is the coordinate axis of the dot product.
    Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(dim=dim)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
''',
    }, {
        "mistake": "The general `dim` for the coordinate axis defaults to 0, but the draws are (n_samples, d_k), so "
                   "the plain call sums over the samples: d_k sums of n_samples products, whose variance is about "
                   "n_samples (about n_samples / d_k scaled) instead of d_k (1 scaled).",
        "where": ['q2']}),

    'q4_entropy_dim_option_defaults_to_zero': ({
        'softmax_entropy': '''
def softmax_entropy(logits, dim=0):
    """Entropy in nats of softmax(logits) over `dim`."""
    p = F.softmax(logits, dim=dim)
    return -(p * torch.log(p + 1e-9)).sum(dim=dim)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d); k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d**0.5
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
''',
    }, {
        "mistake": "The added `dim` argument of softmax_entropy defaults to 0 instead of -1: right for a 1-D row "
                   "(so entropy_table is fine), but a batch (..., T) is normalised and summed over its first "
                   "axis, giving the wrong values and shape (T-and-more instead of the batch shape).",
        "where": ['q4']}),

    'q4_entropy_table_rows_list_default_shared_between_calls': ({
        'softmax_entropy': '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0, rows=[]):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}.
    `rows`: a list to append the results to (to collect several runs in one table)."""
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d); k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d**0.5
        rows.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                     "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return rows
''',
    }, {
        "mistake": "The `rows=[]` option is a mutable default created once at def time: every call without it "
                   "appends to the same list, so after the demo cell's call each later entropy_table() returns "
                   "the earlier calls' rows first and the list grows call after call (wrong length and rows).",
        "where": ['q4']}),

    'q5_answer_a_because_own_attention_always_scales': ({
        'q5_answer': '''
# my attention() fills in scale = 1/sqrt(d_k) whenever no scale is given, so the dot products
# it works with always have variance 1, whatever d_k is
q5_answer = "A"
''',
    }, {
        "mistake": "Answers A (variance 1 whatever d_k) because the student's extended attention always scales "
                   "by default; the question asks about the raw q.k, whose variance is d_k (C).",
        "where": ['q5']}),

    'q6_answer_b_from_probe_with_own_unit_scale_option': ({
        'q6_answer': '''
# probe: X = 8 * torch.randn(5, 64); attention(X, X, X, 64, scale=1.0) -> weights are the identity,
# each token only takes its own row
q6_answer = "B"
''',
    }, {
        "mistake": "Answers B (each token returns itself) from a probe run with the student's own scale=1.0 "
                   "option on large tokens, where the diagonal X_i.X_i swamps the rest and the weights are "
                   "one-hot; in general the i-th output is a softmax-weighted average of all rows (A).",
        "where": ['q6']}),

    'q7_answer_c_from_own_top_k_option_defaulting_to_one': ({
        'q7_answer': '''
# my attention has top_k=1 by default (keep only the best key, faster), so it returns the
# best-scoring key's value
q7_answer = "C"
''',
    }, {
        "mistake": "Answers C (best key only, an argmax with no useful gradient) because the student's extended "
                   "attention keeps only the top-1 key by default; scaled dot-product attention mixes all values "
                   "with softmax weights, a soft differentiable lookup (D).",
        "where": ['q7']}),

    'q8_gqa_group_index_divides_by_kv_head_count': ({
        'multi_head_attention': '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads, n_kv_heads=None):
    """X (T, d_model); W_* applied as X @ W. Returns (T, d_model).
    n_kv_heads: grouped-query attention (None: as many kv heads as query heads)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    if n_kv_heads is None:
        n_kv_heads = n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        g = h // n_kv_heads            # kv head shared by this query head
        qc = slice(h * d_k, (h + 1) * d_k)
        kc = slice(g * d_k, (g + 1) * d_k)
        out_h, _ = attention(Q[:, qc], K[:, kc], V[:, kc], d_k)
        heads.append(out_h)
    return torch.cat(heads, dim=1) @ W_O
''',
    }, {
        "mistake": "The grouped-query index divides the head number by the number of kv heads instead of by the "
                   "group size n_heads // n_kv_heads; with the default (as many kv heads as heads) h // n_heads is "
                   "0, so every head uses head 0's keys and values: wrong whenever n_heads > 1.",
        "where": ['q8']}),

    'q8_need_weights_default_true_returns_output_and_weights': ({
        'multi_head_attention': '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads, need_weights=True):
    """X (T, d_model); W_* applied as X @ W. Like nn.MultiheadAttention, also returns the head-averaged
    attention weights unless need_weights=False."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads, maps = [], []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        out_h, w_h = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        heads.append(out_h)
        maps.append(w_h)
    out = torch.cat(heads, dim=1) @ W_O
    if need_weights:
        return out, torch.stack(maps).mean(dim=0)
    return out
''',
    }, {
        "mistake": "The nn.MultiheadAttention-style `need_weights` option defaults to True, so the plain call "
                   "returns the pair (output, averaged weights) instead of the (T, d_model) tensor asked for.",
        "where": ['q8']}),
}
