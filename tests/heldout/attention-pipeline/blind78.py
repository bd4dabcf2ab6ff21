"""Blind held-out set 78 for attention-pipeline.

Seventy-eighth blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, its diagnosis code, the reference solution, `variants.py`, the naming
tests or `measure.py`, and without running the grader on these variants. What was read: the student-facing
text of attention-pipeline.ipynb (as it appears in full_marks.ipynb), the solution cells of full_marks.ipynb,
`harness.py`, blind77.py (for the format and the docstring), and only the variant names of the earlier blind
sets (to avoid repeating a mistake in the same form).

Round 78's angle: DEVICE-, DTYPE- AND GLOBAL-STATE-AWARE CODE. The student has trained models on a GPU and
writes every function as if it must run anywhere, with `.to(device)`, `dtype=` arguments, `torch.finfo`,
`torch.autocast` and generators; each wrong variant has one slip of that kind: the projections moved with
`.to(X.device, torch.get_default_dtype())`, which silently changes the dtype too (q01); the score product run
under `torch.autocast(device_type=Q.device.type)`, which returns bfloat16 on the CPU (q02); the scale read as a
harmless constant "folded in by autocast" (q03); the blocked value taken from `torch.finfo` of the default
dtype instead of the requested one (q04); `torch.softmax(..., dtype=torch.float32)` copied from mixed-precision
code and never cast back (q05); masking read as a gradient cut like `.detach()` (q06); the causal mask asked
for in `torch.get_default_dtype()`, which promotes float16 scores to float32 (q07); the kernel computed in
float64 "for stability" and not cast back (q08); the averaging matrix made in the default dtype instead of
float64 (q09); the log clamped at `torch.finfo(torch.float32).tiny`, which is 0 in float16 (q10); the
parameter count taken as bytes of float32 weights (q12); the caller's mask moved with
`.to(S.device, torch.get_default_dtype())` (q13); the `is_causal=True` flag of GPU kernels read as "always"
(q15); GPU parallelism read as constant cost (q16).

Public material found with the `search` tool, and what it showed:
- github.com/pytorch/pytorch/issues/99012 ("Float32 attention mask not working with torch.autocast('cpu')") and
  /issues/111276 (multi_head_attention_forward dtype mismatch under torch.cpu.amp.autocast): on the CPU autocast
  runs matmuls in bfloat16 and the attention's dtype changes; used for q02 and q07/q13 (a float32 mask next to
  lower-precision scores).
- github.com/espnet/espnet/pull/4584 ("use torch.finfo for dtype other than float"), github.com/pytorch/benchmark
  /pull/794 ("attention issue fix for fp16 inference"), github.com/huggingface/transformers/pull/17306 and
  /pull/24561 (finfo(dtype).min constants made with device= and dtype= of the scores), github.com/unit8co/darts
  /pull/3087 (scale tensor made on the wrong device/dtype under mixed precision): finfo taken of the wrong
  dtype and constants built in the default dtype; used for q04, q10, q13 and the correct variants' masks.
- github.com/tinygrad/tinygrad/pull/12280 and pytorch.org/docs/2.2/amp.html (autocast's op-specific dtypes,
  softmax run in float32 under AMP): used for q05 (softmax's dtype= argument left in float32) and q08.

The correct variants are device- and dtype-aware and right everywhere: constants built with the input's
device and dtype (`torch.full(..., device=, dtype=)`, `.new_zeros`, `torch.finfo(S.dtype)`), autocast
explicitly disabled around the scores, a float32 softmax cast back to the input dtype, and the q03/q11
experiments run with a local `torch.Generator` so the global seed is left as found.

Every variant was checked with a throwaway script under /tmp/w78-attention-pipeline/: each variant's notebook
built with harness.build_notebook and run top to bottom (all code cells but otter's), then every function
compared with plain torch (torch.softmax of S + M, F.scaled_dot_product_attention, the notebook's formulas)
on unbatched, batched and 4-D inputs, T_q != T_k, d_k != d_v, float64, float32, float16, causal masks,
padding masks and a fully blocked row; every written answer compared with the right letter or integer. The
correct variants agree everywhere; each wrong variant differs in its own questions and only in those listed
in "where".

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
    # constants made with the input's device and dtype; autocast switched off around the scores
    "full_finfo_mask_with_device_dtype_and_autocast_disabled_scores": {
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    # blocked value of the *requested* dtype, built directly on the requested device
    M = torch.full((T, T), torch.finfo(dtype).min, dtype=dtype, device=device)
    return torch.triu(M, diagonal=1)
''',
        SCORES: '''def scaled_scores(Q, K):
    # keep the caller's dtype even if someone runs this inside an autocast region
    with torch.autocast(device_type=Q.device.type, enabled=False):
        S = Q @ K.transpose(-2, -1)
    return S / math.sqrt(Q.shape[-1])
''',
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    M = None
    if causal:
        M = causal_additive_mask(S.shape[-1], dtype=S.dtype, device=S.device)
    A = attention_weights(S, M)
    return A @ V, A
''',
    },
    # softmax done in float32 as mixed-precision code does, then cast back to the scores' dtype
    "float32_softmax_cast_back_and_like_built_prefix": {
        WEIGHTS: '''def attention_weights(S, M=None):
    Z = S if M is None else S + M.to(device=S.device, dtype=S.dtype)
    # float16 in, float16 out: accumulate in at least float32, return in the caller's dtype
    work = torch.promote_types(Z.dtype, torch.float32)
    return torch.softmax(Z.to(work), dim=-1).to(Z.dtype)
''',
        AVG: '''def prefix_average_matrix(T, device=None):
    t = torch.arange(1, T + 1, dtype=torch.float64, device=device)
    keep = torch.ones(T, T, dtype=torch.bool, device=device).tril()
    return torch.where(keep, 1.0 / t[:, None], torch.zeros((), dtype=torch.float64, device=device))
''',
    },
    # entropy with finfo of A itself, kernel with constants moved onto q
    "xlogy_entropy_in_input_dtype_and_shifted_kernel_on_q_device": {
        ENT: '''def row_entropy_bits(A):
    # xlogy gives 0 * log 0 = 0 in every dtype; divide nats by ln 2 in A's dtype
    nats = -torch.special.xlogy(A, A).sum(dim=-1)
    return nats / math.log(2.0)


def effective_tokens(A):
    H = row_entropy_bits(A)
    return torch.exp2(H)
''',
        NW: '''def nadaraya_watson(q, K, V):
    logits = (K @ q) / math.sqrt(q.shape[-1])
    kappa = torch.exp(logits - logits.max())        # same ratio, no overflow in float16
    num = (kappa.unsqueeze(-1) * V).sum(dim=0)
    return num / kappa.sum()
''',
    },
    # answers found by experiment with a local generator (global seed left alone), counts from meta tensors
    "generator_experiment_answers_and_meta_tensor_count": {
        SCALE_ANS: '''# experiment on a private generator so the notebook's global RNG is untouched
_g = torch.Generator().manual_seed(0)
_q = torch.randn(512, generator=_g, dtype=torch.float64)
_K = torch.randn(8, 512, generator=_g, dtype=torch.float64)
_p_raw = torch.softmax(_K @ _q, dim=-1)
_p_scaled = torch.softmax(_K @ _q / math.sqrt(512), dim=-1)
_H = lambda p: float(-(torch.special.xlogy(p, p)).sum() / math.log(2.0))
ans_scale = "b" if _H(_p_raw) < _H(_p_scaled) else "a"
''',
        RANK: '''_g = torch.Generator().manual_seed(1)
_Q = torch.randn(100, 8, generator=_g, dtype=torch.float64)
_K = torch.randn(100, 8, generator=_g, dtype=torch.float64)
max_rank_S = int(torch.linalg.matrix_rank(_Q @ _K.T / math.sqrt(8)).item())

rank_S_lesson = 2
''',
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    # shapes only: meta tensors allocate nothing on any device
    shapes = [(d_model, d_k), (d_model, d_k), (d_model, d_v)]
    if with_output:
        shapes.append((d_v, d_model))
    return int(sum(torch.empty(s, device="meta").numel() for s in shapes))
''',
    },
    # cross-attention with the mask moved onto the scores' device and dtype
    "cross_attention_mask_moved_to_scores": {
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q = X @ W_Q
    K = Y @ W_K
    V = Y @ W_V
    S = scaled_scores(Q, K)
    if M is not None:
        M = M.to(device=S.device, dtype=S.dtype)
    A = attention_weights(S, M)
    return A @ V, A
''',
    },
}

WRONG = {
    # --- q01: .to(device, default dtype)
    "q01_outputs_moved_with_to_device_and_default_dtype": ({
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    device = X.device
    dtype = torch.get_default_dtype()
    Q = (X @ W_Q).to(device, dtype)
    K = (X @ W_K).to(device, dtype)
    V = (X @ W_V).to(device, dtype)
    return Q, K, V
''',
    }, {"mistake": "Moves Q, K and V with .to(X.device, torch.get_default_dtype()) to be sure they sit on the "
                   "input's device, but the second argument also casts them to the default dtype: float64 and "
                   "float16 inputs come back as float32 (and float64 loses precision).",
        "where": ["q01", "q07", "q09"]}),

    # --- q02: autocast around the scores
    "q02_scores_computed_under_cpu_autocast_come_back_bfloat16": ({
        SCORES: '''def scaled_scores(Q, K):
    # mixed precision for the big matmul, as in training
    with torch.autocast(device_type=Q.device.type):
        S = Q @ K.transpose(-2, -1)
    return S / math.sqrt(Q.shape[-1])
''',
    }, {"mistake": "Runs the score product inside torch.autocast(device_type=Q.device.type); on the CPU autocast "
                   "computes matmuls in bfloat16, so float32 and float16 inputs give bfloat16 scores (wrong "
                   "dtype, about 3 significant digits); self- and cross-attention then fail at A @ V with a bfloat16 / "
                   "float32 (or float16) dtype mismatch.",
        "where": ["q02", "q07", "q09", "q13"]}),

    # --- q03: scale seen as a constant folded in
    "q03_scale_treated_as_constant_folded_by_autocast_answers_c": ({
        SCALE_ANS: '''# 1/sqrt(d_k) is just a Python float; under autocast such constants get folded into the matmul,
# and softmax does not care about a constant factor on every score -> nothing changes
ans_scale = "c"
''',
    }, {"mistake": "Treats 1/sqrt(d_k) as a constant that cannot matter, confusing multiplying every score by a "
                   "constant (which sharpens the softmax) with adding one (which softmax ignores): answers 'c' "
                   "instead of 'b'.",
        "where": ["q03"]}),

    # --- q04: finfo of the default dtype
    "q04_blocked_value_from_finfo_of_default_dtype": ({
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    future = torch.triu(torch.ones(T, T, dtype=torch.bool, device=device), diagonal=1)
    M = torch.zeros(T, T, dtype=dtype, device=device)
    M[future] = torch.finfo(torch.get_default_dtype()).min
    return M
''',
    }, {"mistake": "Takes the blocked value from torch.finfo(torch.get_default_dtype()) instead of "
                   "torch.finfo(dtype): float64 masks hold float32's minimum (-3.4e38) instead of -1.8e308, and "
                   "in float16 the value overflows to -inf instead of -65504.",
        "where": ["q04"]}),

    # --- q05: softmax dtype=float32 never cast back
    "q05_softmax_dtype_argument_float32_left_uncast": ({
        WEIGHTS: '''def attention_weights(S, M=None):
    if M is not None:
        S = S + M
    # softmax in float32 for numerical safety, as AMP does
    return torch.softmax(S, dim=-1, dtype=torch.float32)
''',
    }, {"mistake": "Passes dtype=torch.float32 to torch.softmax, as mixed-precision code does, but never casts "
                   "the result back: float16 and float64 scores give float32 weights (float64 also loses "
                   "precision), and A @ V in self- and cross-attention then fails with a float32 / float64 (or float16) "
                   "dtype mismatch.",
        "where": ["q05", "q07", "q09", "q13"]}),

    # --- q06: mask read as a gradient cut
    "q06_mask_read_as_detach_on_blocked_entries_answers_d": ({
        MASK_ANS: '''# the blocked entries get exp(-huge) = 0, like calling .detach() on them:
# without the mask gradients would flow where they must not -> d
ans_mask = "d"
''',
    }, {"mistake": "Reads the mask as a gradient cut (like .detach() / no_grad on the blocked entries) instead "
                   "of a leak of the future token the position must predict: answers 'd' instead of 'c'.",
        "where": ["q06"]}),

    # --- q07: mask asked for in the default dtype
    "q07_causal_mask_requested_in_default_dtype_promotes_half": ({
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    M = None
    if causal:
        M = causal_additive_mask(X.shape[-2], torch.get_default_dtype(), device=X.device)
    A = attention_weights(S, M)
    return A @ V, A
''',
    }, {"mistake": "Builds the causal mask on the right device but in torch.get_default_dtype() (float32): "
                   "float16 scores plus a float32 mask are promoted to float32 weights, and A @ V then fails with a "
                   "float32 / float16 dtype mismatch for causal float16 attention.",
        "where": ["q07", "q09"]}),

    # --- q08: kernel in float64 not cast back
    "q08_kernel_upcast_to_float64_result_not_cast_back": ({
        NW: '''def nadaraya_watson(q, K, V):
    # accumulate in double precision for stability
    q64, K64, V64 = q.to(torch.float64), K.to(torch.float64), V.to(torch.float64)
    kappa = torch.exp(K64 @ q64 / math.sqrt(q.shape[-1]))
    return (kappa[:, None] * V64).sum(dim=0) / kappa.sum()
''',
    }, {"mistake": "Upcasts q, K and V to float64 for a stable kernel sum and returns the float64 result without "
                   "casting back to the input dtype: float32 and float16 inputs give a float64 output.",
        "where": ["q08"]}),

    # --- q09: default dtype instead of float64
    "q09_prefix_matrix_in_default_dtype": ({
        AVG: '''def prefix_average_matrix(T, device=None):
    W = torch.tril(torch.ones(T, T, dtype=torch.get_default_dtype(), device=device))
    return W / W.sum(dim=-1, keepdim=True)
''',
    }, {"mistake": "Builds the averaging matrix in torch.get_default_dtype() instead of the float64 the question "
                   "asks for: it comes back float32 (1/3, 1/7 ... rounded to float32).",
        "where": ["q09"]}),

    # --- q10: finfo tiny of float32
    "q10_log_clamped_at_float32_tiny_zero_in_half": ({
        ENT: '''def row_entropy_bits(A):
    # clamp away the zeros so log2 stays finite
    tiny = torch.finfo(torch.float32).tiny
    return -(A * torch.log2(A.clamp_min(tiny))).sum(dim=-1)


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
''',
    }, {"mistake": "Clamps A at torch.finfo(torch.float32).tiny instead of the tiny of A's dtype: in float16 that "
                   "value rounds to 0, log2(0) = -inf and 0 * -inf = NaN for every masked entry, so float16 "
                   "entropies and effective token counts are NaN.",
        "where": ["q10"]}),

    # --- q12: bytes of float32 weights
    "q12_count_as_bytes_of_float32_weights": ({
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    shapes = [(d_model, d_k), (d_model, d_k), (d_model, d_v)]
    if with_output:
        shapes.append((d_v, d_model))
    # size of the weights as they would sit on the GPU
    return sum(torch.empty(s, dtype=torch.float32, device="meta").numel()
               * torch.empty(0, dtype=torch.float32).element_size() for s in shapes)
''',
    }, {"mistake": "Counts the weights' memory in bytes (numel times element_size of float32) instead of the "
                   "number of weights: every count is 4 times too large (288 instead of 72).",
        "where": ["q12"]}),

    # --- q13: caller's mask moved to default dtype
    "q13_callers_mask_moved_with_to_device_and_default_dtype": ({
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    S = scaled_scores(Q, K)
    if M is not None:
        M = M.to(S.device, torch.get_default_dtype())
    A = attention_weights(S, M)
    return A @ V, A
''',
    }, {"mistake": "Moves the caller's mask with .to(S.device, torch.get_default_dtype()): float16 scores plus the "
                   "float32 mask are promoted to float32 weights (A @ V then fails on the float16 values), and a float64 mask's finfo(float64).min becomes -inf in "
                   "float32, so a fully blocked row gives NaN instead of a uniform row.",
        "where": ["q13"]}),

    # --- q15: is_causal read as always
    "q15_gpu_kernels_is_causal_flag_read_as_always_answers_a": ({
        CAUSAL_ANS: '''# the fused GPU kernels of a language model are all called with is_causal=True,
# so every attention layer, cross-attention included, needs the mask
ans_cross_causal = "a"
''',
    }, {"mistake": "Generalises from decoder self-attention kernels called with is_causal=True to every layer: "
                   "a decoder reading a finished source sentence may read all of it, so the answer is 'd', "
                   "not 'a'.",
        "where": ["q15"]}),

    # --- q16: GPU parallelism read as constant
    "q16_gpu_parallel_scores_read_as_constant_cost_answers_b": ({
        COST_ANS: '''# on the GPU all the T x T dot products run in parallel, so the time only depends on d_k
ans_complexity = "b"
''',
    }, {"mistake": "Confuses wall-clock time on a GPU that is not yet saturated with the amount of work: T^2 "
                   "scores of d_k multiply-adds still grow quadratically, so the answer is 'c', not 'b'.",
        "where": ["q16"]}),
}
