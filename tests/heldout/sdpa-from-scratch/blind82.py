"""Eighty-second blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or `measure.py`.
What was read: the student-facing text and solution cells of the notebook (as they stand in
`full_marks.ipynb`, whose cells these replace), `harness.py`, blind81.py (for the format), and only the
variant names of the other earlier blind sets. The grader was not run on this set.

This round's focus: MORE THAN WAS ASKED. Each wrong cell builds a "real", extended version of what the question
asks for (extra keyword arguments, convention or layout flags, option dicts, helpers with a base config), and the
extension is right in itself, but its DEFAULT or the branch it adds changes what the plain call computes: a
helper laid out like nn.MultiheadAttention with `batch_first=False` by default (q1); a Vaswani-style
`temperature=sqrt(d_k)` applied on top of a `scale=1/sqrt(d_k)`, and a divisor helper whose `scale` default is
evaluated once, at definition, from the notebook's `d_k = 8` (q2); a `dim=None` default that means "all
entries" as in scipy.special.softmax, and a `scale` keyword whose default applies an attention-style
1/sqrt(slice length) to every plain softmax (q3); an `align` switch defaulting to the bottom-right alignment of
flash-attn 2.1+, and a convention switch defaulting to nn.MultiheadAttention's "True = blocked" (q4); a
`dropout_p=0.1, training=True` default, a `need_weights=True` default that returns a tuple, padding and causal
masks merged into an all-True start with `|`, and an options dict as a mutable default whose `setdefault`
keeps the first call's scale (q5); a weights helper whose `is_causal` defaults to True, used for the unmasked
answer (q6); a trap "checked" with the student's own masked softmax whose `renorm=True` default does what the
classmate's code does not (q7); a cost helper whose defaults (`n_heads=8`) come from a base model config (q8).
The correct variants are just as extended (temperature/dtype options, align/diagonal/convention flags,
dropout/is_causal/scale/need_weights/key_padding_mask/GQA options, a layout flag, a per-call options dict),
with defaults that leave the plain call exactly as asked and branches that are right both ways.

Public material used (search tool):
- Dropout left on at evaluation: pytorch/pytorch#124464 ("SDPA does not switch off dropout during
  evaluation"), #99293 (ask for a `training` argument), huggingface/pytorch-image-models#1978 ("a recurring bug
  I see around"), wenet-e2e/wenet#2699, facebookresearch/vjepa2#160 (q5 dropout default).
- Merging a key padding mask with an attention mask: pytorch/audio#3265, keras-team/keras-hub#783, the
  torch-blocksparse#3 thread on additive vs multiplicative masks, HwwAncient/Pytorch-PLATO#2 (a join mask built
  with `a + b - a*b`, an OR, where an AND was meant) (q5 OR-merge).
- Mutable default arguments evaluated once: the python-discord "mutable-default-args" tag page, josevh.com
  "python arg dict default", kitson-consulting.co.uk "mutable default function arguments are static" (q5
  options dict, and the definition-time `scale` default of q2).
- `temperature = d_k ** 0.5` as the attention's own scale: jadore801120/attention-is-all-you-need-pytorch
  (issue #53 thread, ScaledDotProductAttention(temperature)) (q2 temperature twice).
- The other kinds (batch_first=False of nn.MultiheadAttention, True = blocked bool masks of
  nn.MultiheadAttention, flash-attn's bottom-right causal alignment, scipy's axis=None softmax, n_heads from a
  config) are the library conventions the brief's angle names, each turned into a default of the student's own.

How the variants were checked: a throwaway script under /tmp/w82-sdpa-from-scratch/ built each notebook with
`tests.heldout.harness.build_notebook`, ran every code cell but otter's in one namespace, and compared the
answers and functions with torch.softmax, F.scaled_dot_product_attention and the notebook's formulas (several
shapes, float64/float32/float16/bfloat16, 3-D/4-D, T_q != T_k, d_v != d_k, 2-D and batched masks, fully masked
rows, gradients, repeated calls with different d_k): each correct variant agrees everywhere, each wrong one
differs in its own question(s) and nowhere else.

Each wrong variant has exactly one mistake; "mistake" says in plain words what is wrong, "where" lists the
questions whose tests may lose points.
"""

CORRECT = {
    "softmax_with_temperature_and_dtype_options_that_default_to_the_plain_softmax": {
        "stable_softmax": '''def stable_softmax(x, dim=-1, temperature=1.0, dtype=None):
    """Softmax of x / temperature along `dim`, max subtracted first.

    temperature: 1.0 leaves the logits alone; dtype: like F.softmax(dtype=...), None keeps x's dtype.
    """
    if dtype is not None:
        x = x.to(dtype)
    if temperature != 1.0:
        x = x / temperature
    shifted = x - x.amax(dim=dim, keepdim=True)
    exps = torch.exp(shifted)
    return exps / exps.sum(dim=dim, keepdim=True)
''',
    },
    "causal_mask_with_align_diagonal_convention_and_device_flags_right_both_ways": {
        "causal_mask": '''def causal_mask(T_q, T_k=None, *, align="top_left", diagonal=0, allowed=True, device=None):
    """(T_q, T_k) bool mask, True where query i may see key j (j <= i).

    align: "top_left" (F.scaled_dot_product_attention) or "bottom_right" (flash-attn >= 2.1, KV cache);
    diagonal: shift like torch.tril; allowed=False gives nn.MultiheadAttention's True = blocked.
    """
    if T_k is None:
        T_k = T_q
    if align not in ("top_left", "bottom_right"):
        raise ValueError(align)
    offset = diagonal + (T_k - T_q if align == "bottom_right" else 0)
    keep = torch.ones(T_q, T_k, dtype=torch.bool, device=device).tril(diagonal=offset)
    return keep if allowed else ~keep
''',
    },
    "sdpa_with_the_full_torch_signature_dropout_causal_scale_padding_gqa_and_need_weights_off_by_default": {
        "scaled_dot_product_attention": '''def scaled_dot_product_attention(Q, K, V, mask=None, *, dropout_p=0.0, is_causal=False, scale=None,
                                 training=False, need_weights=False, key_padding_mask=None, enable_gqa=False):
    """softmax(Q K^T * scale) V, mask True = may attend, like torch's own signature plus a few extras.

    dropout only when training and dropout_p > 0; key_padding_mask (..., T_k) with True = padding;
    enable_gqa repeats K/V heads only when Q has more heads than K.
    """
    d_k = Q.size(-1)
    if enable_gqa and K.dim() >= 3 and K.size(-3) != Q.size(-3):
        rep = Q.size(-3) // K.size(-3)
        K = K.repeat_interleave(rep, dim=-3)
        V = V.repeat_interleave(rep, dim=-3)
    divisor = math.sqrt(d_k) if scale is None else 1.0 / scale
    scores = torch.matmul(Q, K.transpose(-2, -1)) / divisor
    allowed = mask
    if is_causal:
        cm = causal_mask(scores.size(-2), scores.size(-1)).to(scores.device)
        allowed = cm if allowed is None else allowed & cm
    if key_padding_mask is not None:
        kp = ~key_padding_mask.unsqueeze(-2)
        allowed = kp if allowed is None else allowed & kp
    if allowed is None:
        weights = stable_softmax(scores, dim=-1)
    else:
        scores = scores.masked_fill(~allowed, float("-inf"))
        weights = stable_softmax(scores, dim=-1)
        has_key = allowed.any(dim=-1, keepdim=True)
        weights = torch.where(has_key, weights, torch.zeros_like(weights))
    if training and dropout_p > 0.0:
        weights = F.dropout(weights, p=dropout_p, training=True)
    out = torch.matmul(weights, V)
    return (out, weights) if need_weights else out
''',
    },
    "sdpa_with_a_layout_flag_and_a_fresh_options_dict_per_call": {
        "scaled_dot_product_attention": '''_SDPA_DEFAULTS = {"layout": "bhsd", "fill": float("-inf")}


def scaled_dot_product_attention(Q, K, V, mask=None, options=None):
    """softmax(Q K^T / sqrt(d_k)) V, mask True = may attend.

    options (a new dict each call, the module defaults copied in): layout "bhsd" (torch, default) or
    "bshd" (flash-attn: 4-D inputs are (B, T, H, d) and are swapped to (B, H, T, d) and back).
    """
    opts = dict(_SDPA_DEFAULTS)
    if options:
        opts.update(options)
    flash_layout = opts["layout"] == "bshd" and Q.dim() == 4
    if flash_layout:
        Q, K, V = Q.transpose(1, 2), K.transpose(1, 2), V.transpose(1, 2)
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, opts["fill"])
        weights = stable_softmax(scores, dim=-1)
        weights = torch.where(mask.any(dim=-1, keepdim=True), weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    out = torch.matmul(weights, V)
    return out.transpose(1, 2) if flash_layout else out
''',
    },
    "answers_from_extended_helpers_with_defaults_for_the_plain_case": {
        "weights_shape": '''def attention_shapes(q_shape, k_shape, v_shape, batch_first=True):
    """(weights shape, output shape); batch_first=False reads (T, B, d) like nn.MultiheadAttention."""
    if batch_first:
        B, T_q, _ = q_shape
        T_k = k_shape[1]
    else:
        T_q, B, _ = q_shape
        T_k = k_shape[0]
    return (B, T_q, T_k), (B, T_q, v_shape[-1])


weights_shape, out_shape = attention_shapes((4, 10, 64), (4, 10, 64), (4, 10, 128))
''',
        "raw_score_var": '''d_k = Q.shape[-1]


def scores_of(q, k, scale=None, temperature=1.0):
    """q k^T divided by sqrt(d_k) (or multiplied by `scale`), then by an extra softmax temperature."""
    s = q @ k.transpose(-2, -1)
    s = s / math.sqrt(q.size(-1)) if scale is None else s * scale
    return s if temperature == 1.0 else s / temperature


raw_scores = scores_of(Q, K, scale=1.0)
raw_score_var = raw_scores.var().item()
scaled_score_var = scores_of(Q, K).var().item()
scale_divisor = math.sqrt(64)
print(raw_score_var, scaled_score_var, scale_divisor)
''',
        "weights3": '''def attention_weights(Q, K, mask=None, is_causal=False, dim=-1):
    """softmax of the scaled scores over the keys; is_causal adds the causal mask."""
    s = Q @ K.transpose(-2, -1) / math.sqrt(Q.size(-1))
    if is_causal:
        cm = causal_mask(Q.size(-2), K.size(-2))
        mask = cm if mask is None else mask & cm
    if mask is not None:
        s = s.masked_fill(~mask, float("-inf"))
    return stable_softmax(s, dim=dim)


scores3 = Q3 @ K3.T / math.sqrt(4)
weights3 = attention_weights(Q3, K3)
out3 = weights3 @ V3
weights3_causal = attention_weights(Q3, K3, is_causal=True)
print(weights3, out3, weights3_causal, sep="\\n")
''',
        "attn_entries": '''def score_madds_for(T, d_k, n_heads=1, batch=1):
    """multiply-adds of Q @ K^T; defaults: one head, one sequence (what the question asks)."""
    return batch * n_heads * T * T * d_k


attn_entries = 1024 ** 2
score_madds = score_madds_for(1024, 64)
cost_ratio = score_madds_for(2048, 64) // score_madds_for(1024, 64)
''',
    },
}

WRONG = {
    "q1_shape_helper_batch_first_false_by_default_reads_the_batch_as_the_sequence": (
        {"weights_shape": '''def attention_shapes(q_shape, k_shape, v_shape, batch_first=False):
    """(weights shape, output shape); inputs laid out like nn.MultiheadAttention, (T, B, d) unless batch_first."""
    if batch_first:
        B, T_q, _ = q_shape
        T_k = k_shape[1]
    else:
        T_q, B, _ = q_shape
        T_k = k_shape[0]
    return (B, T_q, T_k), (B, T_q, v_shape[-1])


weights_shape, out_shape = attention_shapes((4, 10, 64), (4, 10, 64), (4, 10, 128))
'''},
        {"mistake": "the shape helper defaults to nn.MultiheadAttention's batch_first=False, so the (4, 10, 64) "
                    "inputs are read as 4 tokens in a batch of 10: weights_shape is (10, 4, 4) instead of "
                    "(4, 10, 10) and out_shape (10, 4, 128) instead of (4, 10, 128)",
         "where": ["q1"]},
    ),
    "q2_temperature_default_root_d_k_applied_on_top_of_the_scale": (
        {"raw_score_var": '''d_k = Q.shape[-1]


def scores_of(q, k, scale=None, temperature=None):
    """q k^T * scale / temperature; scale defaults to 1/sqrt(d_k), temperature to d_k ** 0.5 (Vaswani)."""
    d = q.size(-1)
    if scale is None:
        scale = 1.0 / math.sqrt(d)
    if temperature is None:
        temperature = d ** 0.5
    return q @ k.transpose(-2, -1) * scale / temperature


raw_scores = Q @ K.transpose(-2, -1)
raw_score_var = raw_scores.var().item()
scaled_score_var = scores_of(Q, K).var().item()
scale_divisor = math.sqrt(64)
print(raw_score_var, scaled_score_var, scale_divisor)
'''},
        {"mistake": "the helper applies both a scale 1/sqrt(d_k) and, by default, a temperature sqrt(d_k), so the "
                    "scores are divided by d_k = 8 and scaled_score_var is raw_score_var / 64 (about 0.1) "
                    "instead of raw_score_var / 8 (about 1)",
         "where": ["q2"]},
    ),
    "q2_divisor_helper_scale_default_evaluated_once_from_the_notebook_d_k": (
        {"raw_score_var": '''d_k = Q.shape[-1]


def score_divisor(d, scale=1 / math.sqrt(d_k)):
    """what the scores are divided by for head width d; `scale` overrides it like F.sdpa's scale=."""
    return 1 / scale


raw_scores = Q @ K.transpose(-2, -1)
raw_score_var = raw_scores.var().item()
scaled_score_var = (raw_scores / score_divisor(d_k)).var().item()
scale_divisor = score_divisor(64)
print(raw_score_var, scaled_score_var, scale_divisor)
'''},
        {"mistake": "the default scale=1/sqrt(d_k) is evaluated once, when the helper is defined, from the "
                    "notebook's d_k = 8, so score_divisor(64) ignores its argument and scale_divisor is "
                    "sqrt(8) = 2.83 instead of 8.0 (the variance at d_k = 8 is right)",
         "where": ["q2"]},
    ),
    "q3_dim_default_none_means_all_entries_like_scipy_softmax": (
        {"stable_softmax": '''def stable_softmax(x, dim=None):
    """Softmax of x with the max subtracted first.

    dim=None: over all entries, as scipy.special.softmax(axis=None); otherwise along `dim`.
    """
    if dim is None:
        flat = x.reshape(-1)
        exps = torch.exp(flat - flat.max())
        return (exps / exps.sum()).reshape(x.shape)
    shifted = x - x.amax(dim=dim, keepdim=True)
    exps = torch.exp(shifted)
    return exps / exps.sum(dim=dim, keepdim=True)
'''},
        {"mistake": "the dim default was changed from -1 to None, meaning 'over every entry' as in scipy, so "
                    "stable_softmax(x) without dim normalises the whole tensor (all entries sum to 1) "
                    "instead of each last-axis slice; calls that pass dim are right",
         "where": ["q3"]},
    ),
    "q3_scale_keyword_defaulting_to_inverse_root_of_the_slice_length": (
        {"stable_softmax": '''def stable_softmax(x, dim=-1, scale=None):
    """Softmax of scale * x along `dim`, max subtracted first.

    scale=None -> 1/sqrt(size of the slice), as attention does; pass scale=1.0 for a plain softmax.
    """
    if scale is None:
        scale = 1.0 / math.sqrt(x.size(dim))
    z = x * scale
    shifted = z - z.amax(dim=dim, keepdim=True)
    exps = torch.exp(shifted)
    return exps / exps.sum(dim=dim, keepdim=True)
'''},
        {"mistake": "a scale option was added whose default is 1/sqrt(slice length), so every plain call "
                    "computes softmax(x / sqrt(n)) instead of softmax(x); the attention weights, already "
                    "scaled by 1/sqrt(d_k), are then scaled again and come out too flat",
         "where": ["q3", "q5", "q6"]},
    ),
    "q4_align_switch_defaulting_to_bottom_right_like_flash_attn": (
        {"causal_mask": '''def causal_mask(T_q, T_k=None, align="bottom_right"):
    """(T_q, T_k) bool mask, True where query i may see key j.

    align="bottom_right": the last query sees every key (flash-attn >= 2.1, KV cache decoding);
    align="top_left": j <= i, as F.scaled_dot_product_attention(is_causal=True).
    """
    if T_k is None:
        T_k = T_q
    rows = torch.arange(T_q).unsqueeze(1)
    cols = torch.arange(T_k).unsqueeze(0)
    if align == "top_left":
        return cols <= rows
    if align == "bottom_right":
        return cols <= rows + (T_k - T_q)
    raise ValueError(align)
'''},
        {"mistake": "the alignment switch defaults to bottom-right instead of the top-left alignment the question "
                    "asks for, so when T_q != T_k the diagonal is shifted by T_k - T_q (for (2, 4) query 0 sees "
                    "keys 0..2, not key 0 only); square masks are right",
         "where": ["q4", "q5"]},
    ),
    "q4_convention_switch_defaulting_to_true_means_blocked": (
        {"causal_mask": '''def causal_mask(T_q, T_k=None, true_means="blocked"):
    """Causal bool mask of shape (T_q, T_k).

    true_means="blocked": nn.MultiheadAttention's bool attn_mask (True = may NOT attend);
    true_means="allowed": F.scaled_dot_product_attention's (True = may attend).
    """
    if T_k is None:
        T_k = T_q
    rows = torch.arange(T_q).unsqueeze(1)
    cols = torch.arange(T_k).unsqueeze(0)
    allowed = cols <= rows
    return ~allowed if true_means == "blocked" else allowed
'''},
        {"mistake": "the mask-convention switch defaults to nn.MultiheadAttention's True = blocked, so the plain "
                    "call returns the strict upper triangle (True above the diagonal) instead of True on and "
                    "below it; the causal weights built from it in Q6 are wrong",
         "where": ["q4", "q5", "q6"]},
    ),
    "q5_dropout_p_default_0_1_with_training_true": (
        {"scaled_dot_product_attention": '''def scaled_dot_product_attention(Q, K, V, mask=None, dropout_p=0.1, training=True):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend) and attention dropout.

    Q (..., T_q, d_k), K (..., T_k, d_k), V (..., T_k, d_v) -> (..., T_q, d_v)
    """
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask == False, float("-inf"))
        weights = stable_softmax(scores, dim=-1)
        has_key = mask.any(dim=-1, keepdim=True)
        weights = torch.where(has_key, weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    if training and dropout_p > 0:
        weights = F.dropout(weights, p=dropout_p, training=True)
    return torch.matmul(weights, V)
'''},
        {"mistake": "attention dropout was added with defaults dropout_p=0.1 and training=True, so every plain "
                    "call drops about 10% of the weights at random and scales the rest by 1/0.9: the output "
                    "is random and differs from softmax(QK^T/sqrt(d_k))V",
         "where": ["q5"]},
    ),
    "q5_need_weights_default_true_returns_a_tuple": (
        {"scaled_dot_product_attention": '''def scaled_dot_product_attention(Q, K, V, mask=None, need_weights=True):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).

    Returns (output, weights) like nn.MultiheadAttention; need_weights=False returns the output alone.
    """
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask == False, float("-inf"))
        weights = stable_softmax(scores, dim=-1)
        has_key = mask.any(dim=-1, keepdim=True)
        weights = torch.where(has_key, weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    out = torch.matmul(weights, V)
    if need_weights:
        return out, weights
    return out
''',
         "Qc": '''torch.manual_seed(0)
Qc, Kc, Vc = torch.randn(2, 4, 6, 16), torch.randn(2, 4, 9, 16), torch.randn(2, 4, 9, 24)
for label, mask in [("no mask", None), ("causal", causal_mask(6, 9))]:
    ours, _ = scaled_dot_product_attention(Qc, Kc, Vc, mask=mask)
    theirs = F.scaled_dot_product_attention(Qc, Kc, Vc, attn_mask=mask)
    print(f"{label:8s} match = {torch.allclose(ours, theirs, atol=1e-5)}, "
          f"max abs diff = {(ours - theirs).abs().max().item():.2e}")
'''},
        {"mistake": "need_weights defaults to True as in nn.MultiheadAttention, so the plain call returns the "
                    "tuple (output, weights) instead of the output tensor (the student's own check unpacks it)",
         "where": ["q5"]},
    ),
    "q5_extra_masks_or_merged_into_an_all_true_start_so_the_mask_is_ignored": (
        {"scaled_dot_product_attention": '''def scaled_dot_product_attention(Q, K, V, mask=None, key_padding_mask=None, is_causal=False):
    """softmax(Q K^T / sqrt(d_k)) V; mask True = may attend, key_padding_mask (..., T_k) True = padding,
    is_causal adds the causal mask. All masks are merged into one `allowed` tensor.
    """
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    T_q, T_k = scores.shape[-2:]
    allowed = torch.ones(T_q, T_k, dtype=torch.bool, device=scores.device)
    if mask is not None:
        allowed = allowed | mask
    if key_padding_mask is not None:
        allowed = allowed | ~key_padding_mask.unsqueeze(-2)
    if is_causal:
        allowed = allowed | causal_mask(T_q, T_k).to(scores.device)
    scores = scores.masked_fill(~allowed, float("-inf"))
    weights = stable_softmax(scores, dim=-1)
    has_key = allowed.any(dim=-1, keepdim=True)
    weights = torch.where(has_key, weights, torch.zeros_like(weights))
    return torch.matmul(weights, V)
'''},
        {"mistake": "the masks are merged into an all-True start with | (or) instead of & (and), so the result "
                    "is all True whatever the mask says: a given mask is ignored, blocked keys get weight and "
                    "fully masked queries are not zero; unmasked calls are right",
         "where": ["q5"]},
    ),
    "q5_options_dict_as_mutable_default_keeps_the_first_calls_scale": (
        {"scaled_dot_product_attention": '''def scaled_dot_product_attention(Q, K, V, mask=None, opts={}):
    """softmax(Q K^T / divisor) V with an optional boolean mask (True = may attend).

    opts: "divisor" (default sqrt(d_k)), "fill" (default -inf).
    """
    opts.setdefault("divisor", math.sqrt(Q.size(-1)))
    opts.setdefault("fill", float("-inf"))
    scores = torch.matmul(Q, K.transpose(-2, -1)) / opts["divisor"]
    if mask is not None:
        scores = scores.masked_fill(mask == False, opts["fill"])
        weights = stable_softmax(scores, dim=-1)
        has_key = mask.any(dim=-1, keepdim=True)
        weights = torch.where(has_key, weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    return torch.matmul(weights, V)
'''},
        {"mistake": "the options dict is a mutable default filled with setdefault, so the divisor of the first "
                    "call (sqrt(16) = 4, from the notebook's comparison cell) is kept for every later call: "
                    "any other d_k is scaled by 1/4 instead of 1/sqrt(d_k)",
         "where": ["q5"]},
    ),
    "q6_weights_helper_is_causal_default_true_used_for_the_unmasked_answer": (
        {"weights3": '''def attention_weights(Q, K, mask=None, is_causal=True):
    """softmax(Q K^T / sqrt(d_k)) over the keys, optional bool mask; causal by default (decoder)."""
    s = Q @ K.transpose(-2, -1) / math.sqrt(Q.size(-1))
    if is_causal:
        cm = causal_mask(Q.size(-2), K.size(-2))
        mask = cm if mask is None else mask & cm
    if mask is not None:
        s = s.masked_fill(~mask, float("-inf"))
    return stable_softmax(s, dim=-1)


scores3 = Q3 @ K3.T / math.sqrt(4)
weights3 = attention_weights(Q3, K3)
out3 = weights3 @ V3
weights3_causal = attention_weights(Q3, K3, is_causal=True)
print(weights3, out3, weights3_causal, sep="\\n")
'''},
        {"mistake": "the weights helper's is_causal defaults to True, so the 'unmasked' weights3 (and out3 from "
                    "it) are the causal ones: rows 0 and 1 put no weight on later keys; weights3_causal is right",
         "where": ["q6"]},
    ),
    "q7_answer_a_checked_with_own_masked_softmax_whose_renorm_default_is_on": (
        {"q_trap_answer": '''def masked_softmax(scores, keep, renorm=True):
    """softmax, then zero the blocked weights; renorm=True rescales each row to sum to 1 again."""
    w = torch.softmax(scores, dim=-1) * keep
    return w / w.sum(dim=-1, keepdim=True) if renorm else w


s = torch.randn(4, 4)
after = masked_softmax(s, causal_mask(4))
before = torch.softmax(s.masked_fill(~causal_mask(4), float("-inf")), dim=-1)
print(torch.allclose(after, before))   # True: zeroing after == -inf before
q_trap_answer = "A"
'''},
        {"mistake": "the shortcut was tested with the student's own masked softmax, whose renorm=True default "
                    "rescales the rows, which the classmate's code does not do; the check agreed and the "
                    "answer was A instead of C (rows no longer sum to 1)",
         "where": ["q7"]},
    ),
    "q8_cost_helper_n_heads_default_eight_from_a_base_config": (
        {"attn_entries": '''def score_madds_for(T, d_k, n_heads=8, batch=1):
    """multiply-adds of Q @ K^T for a layer; defaults from my base config (8 heads, batch 1)."""
    return batch * n_heads * T * T * d_k


attn_entries = 1024 ** 2
score_madds = score_madds_for(1024, 64)
cost_ratio = score_madds_for(2048, 64) // score_madds_for(1024, 64)
'''},
        {"mistake": "the cost helper defaults to n_heads=8 from a base model config, so score_madds counts 8 heads: "
                    "536870912 instead of 1024 * 1024 * 64 = 67108864 for one head (the ratio 4 is unaffected)",
         "where": ["q8"]},
    ),
}
