"""Eighty-eighth blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or `measure.py`.
What was read: the student-facing text and solution cells of the notebook (as they stand in
`full_marks.ipynb`, whose cells these replace), `harness.py`, blind87.py (for the format only), and only the
variant names of the other earlier blind sets. The grader was not run on this set.

This round's focus: DEFENSIVE, VALIDATING AND EDGE-CASE-HANDLING CODE. Each wrong cell is written by a careful
student who guards every function (argument checks, `torch.as_tensor`, axis normalisation, "if needed"
reshapes, special branches for odd cases, fallbacks, clean-up of the result), and the one slip is one that this
habit invites: q1's shapes given for lengths padded up to a multiple of 8 "for the kernels" ((4, 16, 16) and
(4, 16, 128)); q2's score helper that gives the keys a heads axis "if needed" for multi-query layouts, which
fires on the ordinary 3-D batch and scores every sequence's queries against every sequence's keys; q2's
divisor helper that clamps the head width to the example tensors' width (so `scale_divisor` is sqrt(8), not
8); q2's variance helper whose "enough samples for the unbiased estimator" guard tests the rank of the
flattened scores instead of their count, so it always takes the biased variance; q3's guard against
`-inf - (-inf)` that leaves every slice holding a -inf (every partly masked row) unshifted, so large logits
overflow; q3's rounding clean-up that re-normalises over the last axis whatever `dim` is; q4's guard that
raises the key count to the query count "so every query can see itself" (wrong shape when T_k < T_q); q4's mask
built as an additive 0/-inf bias and normalised with `.bool()`, which turns the -inf future into True; q5's
clean-up of non-finite scores (meant for float16 overflow) placed after the masked_fill, which zeroes the
-inf fills and so erases the mask; q5's NaN check whose fallback refills the scores with the dtype's most
negative finite number, which gives fully masked queries the average of V instead of zeros; q6's "fast path"
for masks that hide nothing written with `mask.any()`, which a causal mask passes, so the causal weights are
the unmasked ones; q6's sanity check that the output rows sum to 1, whose repair re-normalises out3; q7's
check that compares the two outputs after scaling each row to unit length (so the shrink cancels and the
answer is A); q8's padding helper that rounds lengths up to a power of two with `1 << T.bit_length()`, which
doubles a length that already is one (2048 instead of 1024). The correct variants keep the same habits (input
validation, half types upcast to float32 and cast back, a NaN-safe shift for fully masked slices, fast paths
with `mask.all()`, empty-row guards with masked_fill or where, a count-based variance guard, a power-of-two
helper with `(T - 1).bit_length()`) and get every answer right.

Public material used (search tool, corpus `issues`):
- pytorch/pytorch PR #131060 ("Add a private _safe_softmax": fully masked rows give NaN from -inf scores, and
  SDPA now returns zeros there) and iree-org/iree issue #24175 (the math backend checks `isneginf(...).all()`
  rows and bypasses the softmax): what a fully masked query must get; ground q5's fallback that gives it the
  average of V and the correct variants' empty-row guards.
- tracel-ai/burn issue #4694 and PR #4697 (a fallback attention whose softmax computes -inf - (-inf) = NaN,
  fixed with clamps on the max and on the sum "without affecting normal rows"): the guard-the-shift habit;
  ground q3's guard that skips the shift on every partly masked slice and the correct variants' shift guard.
- nishide-dev/unturtle PR #56 (a mask normaliser that treated additive 0/-inf float masks as boolean
  keep-masks, "exactly inverted"): grounds q4's additive bias normalised with `.bool()`.
- THUwangcy/ReChorus issue #8 (NaN from fully masked rows, patched by masking the NaNs after the softmax) and
  TransformerLensOrg/TransformerLens PR #319 (a finite fill of -1e5 lets the model attend outside the mask):
  clean-ups that move values; ground q5's non-finite-score clean-up and q5's finite-fill fallback.
- celestiaorg/celestia-core PR #331 (a helper named as the next power of two that returned the next lower or
  equal one, found while padding square widths to powers of two): power-of-two padding helpers that return
  the wrong neighbour; grounds q8's padding helper.
- The padded-shape answer (q1), the "if needed" heads axis (q2), the clamp (q2), the count guard (q2), the
  re-normalisation (q3), the `max` guard (q4), the `any` fast path (q6), the output check (q6) and the
  scale-free comparison (q7) are this round's habit applied to the notebook's own questions.

How the variants were checked: a throwaway script under /tmp/w88-sdpa-from-scratch/ built each notebook with
`tests.heldout.harness.build_notebook`, ran every code cell but otter's in one namespace, and compared the
answers and functions with the full_marks notebook's own (and F.scaled_dot_product_attention) on many inputs:
several shapes, float64/float32/float16/bfloat16, 3-D and 4-D, T_q != T_k, d_v != d_k, 2-D, batched and
random masks, key padding masks, fully masked rows, large float16 logits, positive and negative `dim`,
slices of length 1 and a single key, rectangular causal masks both ways, input tensors left unchanged, and
gradients (with random upstream gradients) to the softmax input and to Q, K and V. Half types were compared
with a float64 truth (an error at most about twice full_marks' own). Nothing was run on a GPU. Every correct
variant agrees everywhere (float64 to 1e-9 relative, gradients to 1e-8);
every wrong one differs in its "where" questions and only there, and runs the notebook's own cells without
error.

Each wrong variant has exactly one mistake; "mistake" says in plain words what is wrong, "where" lists the
questions whose tests may lose points.
"""

CORRECT = {
    "validated_inputs_half_upcast_and_where_on_empty_rows": {
        "weights_shape": '''# Q, K: (B, T, d_k), V: (B, T, d_v)
B, T_q, T_k, d_k_q1, d_v_q1 = 4, 10, 10, 64, 128
assert T_k == 10, "one value per key"
weights_shape = tuple(int(n) for n in (B, T_q, T_k))
out_shape = tuple(int(n) for n in (B, T_q, d_v_q1))
''',
        "stable_softmax": '''def stable_softmax(x, dim=-1):
    """Softmax of x along `dim`, with the max subtracted first so that nothing overflows."""
    if not torch.is_tensor(x):
        x = torch.as_tensor(x)
    if x.dim() == 0:
        raise ValueError("stable_softmax needs at least one axis")
    if not -x.dim() <= dim < x.dim():
        raise IndexError(f"dim {dim} out of range for a {x.dim()}-D tensor")
    dim = dim % x.dim()                                   # negative axes too
    m = x.amax(dim=dim, keepdim=True)
    # a slice that is all -inf has max -inf, and -inf - (-inf) would be nan: shift such slices by 0
    m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
    exps = torch.exp(x - m)
    return exps / exps.sum(dim=dim, keepdim=True)
''',
        "causal_mask": '''def causal_mask(T_q, T_k=None):
    """(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i."""
    T_q = int(T_q)
    T_k = T_q if T_k is None else int(T_k)
    if T_q < 0 or T_k < 0:
        raise ValueError("lengths must be non-negative")
    return torch.ones(T_q, T_k, dtype=torch.bool).tril()
''',
        "scaled_dot_product_attention": '''def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).

    Q (..., T_q, d_k), K (..., T_k, d_k), V (..., T_k, d_v) -> (..., T_q, d_v)
    """
    if min(Q.dim(), K.dim(), V.dim()) < 2:
        raise ValueError("Q, K and V need a token axis and a feature axis")
    if Q.size(-1) != K.size(-1):
        raise ValueError(f"queries and keys must have the same width, got {Q.size(-1)} and {K.size(-1)}")
    if K.size(-2) != V.size(-2):
        raise ValueError("exactly one value per key")
    out_dtype = Q.dtype
    low = out_dtype in (torch.float16, torch.bfloat16)
    if low:                                   # half types: the arithmetic in float32, cast back at the end
        Q, K, V = Q.float(), K.float(), V.float()
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        mask = torch.as_tensor(mask, device=scores.device)
        if mask.dtype != torch.bool:
            mask = mask != 0
        scores = scores.masked_fill(~mask, float("-inf"))
        weights = stable_softmax(scores, dim=-1)
        has_key = mask.any(dim=-1, keepdim=True)
        weights = torch.where(has_key, weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    out = torch.matmul(weights, V)
    return out.to(out_dtype) if low else out
''',
    },
    "try_guarded_empty_rows_count_based_variance_and_power_of_two_helper": {
        "raw_score_var": '''def safe_var(x):
    """Unbiased variance of every entry of x, as a Python float (nan when there is nothing to average)."""
    x = torch.as_tensor(x).detach().flatten()
    x = x[torch.isfinite(x)]
    if x.numel() == 0:
        return float("nan")
    correction = 1 if x.numel() > 1 else 0      # n - 1 needs at least two entries
    return float(x.var(correction=correction))

d_k = int(Q.shape[-1])
raw_scores = Q @ K.transpose(-2, -1)
raw_score_var = safe_var(raw_scores)
scaled_score_var = safe_var(raw_scores / math.sqrt(d_k))
scale_divisor = float(math.sqrt(64))
print(raw_score_var, scaled_score_var, scale_divisor)
''',
        "stable_softmax": '''def stable_softmax(x, dim=-1):
    """Softmax of x along `dim`, with the max subtracted first so that nothing overflows."""
    x = torch.as_tensor(x)
    if x.numel() == 0:
        return x.clone()                                # nothing to normalise
    m = x.amax(dim=dim, keepdim=True).detach()          # a constant shift: kept out of the graph
    m = m.masked_fill(torch.isneginf(m), 0.0)           # all -inf slice: no -inf - (-inf)
    exps = torch.exp(x - m)
    return exps / exps.sum(dim=dim, keepdim=True)
''',
        "causal_mask": '''def causal_mask(T_q, T_k=None):
    """(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i."""
    if T_k is None:
        T_k = T_q
    T_q, T_k = int(T_q), int(T_k)
    if T_q == 0 or T_k == 0:
        return torch.zeros(T_q, T_k, dtype=torch.bool)  # degenerate: nothing to see
    rows = torch.arange(T_q).unsqueeze(1)
    cols = torch.arange(T_k).unsqueeze(0)
    return (cols <= rows).contiguous()
''',
        "scaled_dot_product_attention": '''def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        mask = mask.to(device=scores.device, dtype=torch.bool)
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = stable_softmax(scores, dim=-1)
    if mask is not None:
        try:
            empty = ~mask.any(dim=-1, keepdim=True)         # queries with no key at all
        except RuntimeError:                                # a mask without a key axis: nothing to fix
            empty = None
        if empty is not None:
            weights = weights.masked_fill(empty, 0.0)
    return torch.matmul(weights, V)
''',
        "attn_entries": '''def padded_length(T):
    """Smallest power of two >= T (kernels pad to it); T itself when it already is one."""
    T = int(T)
    if T <= 1:
        return 1
    return 1 << (T - 1).bit_length()

T_q8, d_k_q8 = 1024, 64
assert padded_length(T_q8) == T_q8                       # 1024 needs no padding
attn_entries = padded_length(T_q8) ** 2
score_madds = attn_entries * d_k_q8
cost_ratio = (padded_length(2 * T_q8) ** 2 * d_k_q8) // score_madds
''',
    },
    "fast_paths_with_all_and_guarded_helpers": {
        "scaled_dot_product_attention": '''def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        mask = torch.as_tensor(mask, dtype=torch.bool, device=scores.device)
        if bool(mask.all()):
            mask = None                                   # hides nothing: plain path
    if mask is None:
        return torch.matmul(stable_softmax(scores, dim=-1), V)
    scores = scores.masked_fill(~mask, float("-inf"))
    weights = stable_softmax(scores, dim=-1)
    has_key = mask.any(dim=-1, keepdim=True)
    if not bool(has_key.all()):                           # only pay for the fix when a query sees nothing
        weights = torch.where(has_key, weights, torch.zeros_like(weights))
    return torch.matmul(weights, V)
''',
        "stable_softmax": '''def stable_softmax(x, dim=-1):
    """Softmax of x along `dim`, with the max subtracted first so that nothing overflows."""
    x = torch.as_tensor(x)
    dim = dim + x.dim() if dim < 0 else dim
    if x.size(dim) == 1:
        return torch.exp(x - x)                           # one entry per slice: weight 1 (nan for -inf)
    m = x.max(dim=dim, keepdim=True).values
    m = torch.where(torch.isneginf(m), torch.zeros_like(m), m)
    exps = torch.exp(x - m)
    return exps / exps.sum(dim=dim, keepdim=True)
''',
        "weights3": '''def masked_weights(scores, mask=None):
    """Softmax over the keys of `scores`, hiding the keys where `mask` is False."""
    scores = torch.as_tensor(scores)
    if mask is None or bool(mask.all()):                  # a mask that hides nothing changes nothing
        return stable_softmax(scores, dim=-1)
    w = stable_softmax(scores.masked_fill(~mask, float("-inf")), dim=-1)
    return torch.where(mask.any(dim=-1, keepdim=True), w, torch.zeros_like(w))

assert Q3.shape[-1] == K3.shape[-1] and K3.shape[0] == V3.shape[0]
scores3 = Q3 @ K3.T / math.sqrt(Q3.shape[-1])
weights3 = masked_weights(scores3)
out3 = weights3 @ V3
weights3_causal = masked_weights(scores3, causal_mask(3))
print(weights3, out3, weights3_causal, sep="\\n")
''',
        "q_trap_answer": '''torch.manual_seed(1)
T_trap = 4
s = torch.randn(T_trap, T_trap, dtype=torch.float64)
v = torch.randn(T_trap, 3, dtype=torch.float64)
keep = causal_mask(T_trap)
reference = stable_softmax(s.masked_fill(~keep, float("-inf"))) @ v
w = stable_softmax(s).clone()
w[~keep] = 0.0
shortcut = w @ v
q_trap_answer = "A" if torch.allclose(shortcut, reference) else "C"
assert q_trap_answer in {"A", "B", "C", "D"}
''',
    },
    "promoted_compute_dtype_and_nan_to_num_on_weights": {
        "stable_softmax": '''def stable_softmax(x, dim=-1):
    """Softmax of x along `dim`, with the max subtracted first so that nothing overflows."""
    if not isinstance(dim, int):
        raise TypeError("dim must be an int")
    x = torch.as_tensor(x)
    m = x.amax(dim=dim, keepdim=True)
    m = torch.nan_to_num(m, neginf=0.0)                   # only the all -inf slices have an infinite max
    exps = torch.exp(x - m)
    return exps / exps.sum(dim=dim, keepdim=True)
''',
        "scaled_dot_product_attention": '''def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    if Q.shape[-1] != K.shape[-1] or K.shape[-2] != V.shape[-2]:
        raise ValueError(f"incompatible shapes {tuple(Q.shape)}, {tuple(K.shape)}, {tuple(V.shape)}")
    in_dtype = V.dtype
    work = torch.promote_types(in_dtype, torch.float32)  # at least float32, float64 stays float64
    Qw, Kw, Vw = Q.to(work), K.to(work), V.to(work)
    d_k = Qw.shape[-1]
    scores = torch.matmul(Qw, Kw.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        keep = mask.to(device=scores.device, dtype=torch.bool)
        scores = scores.masked_fill(~keep, float("-inf"))
    weights = stable_softmax(scores, dim=-1)
    weights = torch.nan_to_num(weights, nan=0.0)          # a query with no key at all: 0/0 -> weight 0
    return torch.matmul(weights, Vw).to(in_dtype)
''',
        "causal_mask": '''def causal_mask(T_q, T_k=None):
    """(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i."""
    if T_k is None:
        T_k = T_q
    if isinstance(T_q, bool) or isinstance(T_k, bool):
        raise TypeError("lengths must be ints")
    T_q, T_k = int(T_q), int(T_k)
    j = torch.arange(T_k).expand(T_q, T_k)
    i = torch.arange(T_q).unsqueeze(-1).expand(T_q, T_k)
    return (j <= i).clone()
''',
        "weights3": '''scores3 = Q3 @ K3.T / math.sqrt(Q3.shape[-1])
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
assert torch.allclose(weights3.sum(-1), torch.ones(3, dtype=weights3.dtype))   # the weights, not the output
causal_scores3 = scores3.masked_fill(~causal_mask(3), float("-inf"))
weights3_causal = torch.nan_to_num(stable_softmax(causal_scores3, dim=-1), nan=0.0)
print(weights3, out3, weights3_causal, sep="\\n")
''',
    },
}

WRONG = {
    "q1_lengths_padded_up_to_a_multiple_of_eight_for_the_kernels": (
        {"weights_shape": '''# fused kernels want sequence lengths padded to a multiple of 8, so I give the shapes of the
# tensors that are actually allocated
def _pad8(n):
    n = int(n)
    if n < 0:
        raise ValueError("negative length")
    return -(-n // 8) * 8

B, T, d_k_q1, d_v_q1 = 4, 10, 64, 128
weights_shape = (B, _pad8(T), _pad8(T))
out_shape = (B, _pad8(T), d_v_q1)
'''},
        {"mistake": "both shapes are given for the sequence length padded up to a multiple of 8 (16), which the "
                    "question does not ask for: with 10 queries and 10 keys the weights are (4, 10, 10) and "
                    "the output (4, 10, 128), not (4, 16, 16) and (4, 16, 128)",
         "where": ["q1"]}),
    "q2_score_helper_adds_a_heads_axis_to_3d_keys_so_queries_meet_every_sequences_keys": (
        {"raw_score_var": '''def attn_scores(q, k):
    """Raw scores q k^T, for (B, T, d) or (B, H, T, d) inputs."""
    q, k = torch.as_tensor(q), torch.as_tensor(k)
    if q.shape[-1] != k.shape[-1]:
        raise ValueError("queries and keys must have the same width")
    # multi-query layouts pass the keys without a heads axis: add one if needed
    if k.dim() == 3:
        k = k.unsqueeze(1)
    return q @ k.transpose(-2, -1)

d_k = int(Q.shape[-1])
raw_scores = attn_scores(Q, K)
raw_score_var = float(raw_scores.var())
scaled_score_var = float((raw_scores / math.sqrt(d_k)).var())
scale_divisor = float(math.sqrt(64))
print(raw_score_var, scaled_score_var, scale_divisor)
'''},
        {"mistake": "the score helper gives 3-D keys a heads axis 'if needed'; it fires on the ordinary (2, 5, 8) "
                    "batch, so K becomes (2, 1, 8, 5) after the transpose and broadcasting scores every "
                    "sequence's queries against every sequence's keys, (2, 2, 5, 5): both variances are taken "
                    "over the wrong set of scores",
         "where": ["q2"]}),
    "q2_divisor_helper_clamps_the_head_width_to_the_example_tensors_width": (
        {"raw_score_var": '''def scale_divisor_for(width):
    """The number to divide the scores by for heads of the given width."""
    width = int(width)
    if width <= 0:
        raise ValueError("the head width must be positive")
    # never scale by more than the head width the tensors actually have
    width = min(width, Q.shape[-1])
    return float(math.sqrt(width))

d_k = int(Q.shape[-1])
raw_scores = Q @ K.transpose(-2, -1)
raw_score_var = float(raw_scores.var())
scaled_score_var = float((raw_scores / scale_divisor_for(d_k)).var())
scale_divisor = scale_divisor_for(64)
print(raw_score_var, scaled_score_var, scale_divisor)
'''},
        {"mistake": "the divisor helper clamps the head width to the width of the example tensors (8), so the "
                    "divisor asked for a head of width 64 comes out as sqrt(8) = 2.83 instead of sqrt(64) = 8",
         "where": ["q2"]}),
    "q2_variance_guard_tests_the_rank_not_the_count_so_the_variance_is_biased": (
        {"raw_score_var": '''def safe_var(x):
    """Unbiased variance of every entry of x, as a Python float (nan when there is nothing to average)."""
    x = torch.as_tensor(x).detach().flatten()
    x = x[torch.isfinite(x)]
    if x.numel() == 0:
        return float("nan")
    correction = 1 if x.dim() > 1 else 0      # n - 1 needs more than one entry
    return float(x.var(correction=correction))

d_k = int(Q.shape[-1])
raw_scores = Q @ K.transpose(-2, -1)
raw_score_var = safe_var(raw_scores)
scaled_score_var = safe_var(raw_scores / math.sqrt(d_k))
scale_divisor = float(math.sqrt(64))
print(raw_score_var, scaled_score_var, scale_divisor)
'''},
        {"mistake": "the guard meant to fall back to correction 0 for a single entry tests the rank of the "
                    "flattened scores (always 1) instead of their number of entries, so both variances are the "
                    "biased ones (divided by 50, not 49): about 2% too small",
         "where": ["q2"]}),
    "q3_guard_against_minus_inf_minus_minus_inf_leaves_partly_masked_slices_unshifted": (
        {"stable_softmax": '''def stable_softmax(x, dim=-1):
    """Softmax of x along `dim`, with the max subtracted first so that nothing overflows."""
    x = torch.as_tensor(x)
    if x.dim() == 0:
        raise ValueError("stable_softmax needs at least one axis")
    dim = dim % x.dim()
    m = x.amax(dim=dim, keepdim=True)
    # -inf - (-inf) is nan: slices that hold -inf (masked scores) are not shifted
    blocked = torch.isinf(x).any(dim=dim, keepdim=True)
    m = torch.where(blocked, torch.zeros_like(m), m)
    exps = torch.exp(x - m)
    return exps / exps.sum(dim=dim, keepdim=True)
'''},
        {"mistake": "the guard against -inf - (-inf) skips the max shift for every slice that holds a -inf, not "
                    "only for slices that are all -inf: a partly masked slice with large logits is exponentiated "
                    "unshifted, overflows to inf (above about 11 in float16, 88 in float32) and gives NaN",
         "where": ["q3", "q5"]}),
    "q3_rounding_clean_up_renormalises_over_the_last_axis_whatever_dim": (
        {"stable_softmax": '''def stable_softmax(x, dim=-1):
    """Softmax of x along `dim`, with the max subtracted first so that nothing overflows."""
    x = torch.as_tensor(x)
    if x.dim() == 0:
        raise ValueError("stable_softmax needs at least one axis")
    dim = dim % x.dim()
    m = x.amax(dim=dim, keepdim=True)
    m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
    exps = torch.exp(x - m)
    p = exps / exps.sum(dim=dim, keepdim=True)
    # clean-up: half-precision rounding can leave sums of 0.999, so normalise once more
    return p / p.sum(dim=-1, keepdim=True)
'''},
        {"mistake": "the final clean-up re-normalises over the last axis instead of over `dim`: for any other "
                    "dim the slices along `dim` no longer sum to 1 and every value is wrong",
         "where": ["q3"]}),
    "q4_key_count_raised_to_the_query_count_so_every_query_sees_itself": (
        {"causal_mask": '''def causal_mask(T_q, T_k=None):
    """(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i."""
    T_q = int(T_q)
    T_k = T_q if T_k is None else int(T_k)
    if T_q < 0 or T_k < 0:
        raise ValueError("lengths must be non-negative")
    # every query must at least be able to see itself: make sure there are as many keys as queries
    T_k = max(T_k, T_q)
    rows = torch.arange(T_q).unsqueeze(1)
    cols = torch.arange(T_k).unsqueeze(0)
    return cols <= rows
'''},
        {"mistake": "a guard raises the key count to the query count, so with fewer keys than queries the mask "
                    "has shape (T_q, T_q) instead of (T_q, T_k) (for example (5, 5) for causal_mask(5, 3))",
         "where": ["q4"]}),
    "q4_additive_bias_normalised_with_bool_marks_the_future_as_allowed": (
        {"causal_mask": '''def causal_mask(T_q, T_k=None):
    """(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i."""
    T_q = int(T_q)
    T_k = T_q if T_k is None else int(T_k)
    if T_q < 0 or T_k < 0:
        raise ValueError("lengths must be non-negative")
    # built as an additive bias first: 0 where allowed, -inf above the diagonal
    bias = torch.full((T_q, T_k), float("-inf")).triu(diagonal=1)
    mask = bias
    # normalise to the notebook's convention, a torch.bool tensor
    if mask.dtype != torch.bool:
        mask = mask.bool()
    return mask
'''},
        {"mistake": "the additive 0/-inf bias is turned into a boolean mask with .bool(), which makes the -inf "
                    "entries (the future) True and the 0 entries (the past and the diagonal) False: the mask "
                    "is the wrong way round, so the causal weights look only at later keys",
         "where": ["q4", "q6"]}),
    "q5_non_finite_scores_zeroed_after_the_masked_fill_erase_the_mask": (
        {"scaled_dot_product_attention": '''def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    if Q.size(-1) != K.size(-1) or K.size(-2) != V.size(-2):
        raise ValueError("incompatible shapes")
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        mask = mask.to(device=scores.device, dtype=torch.bool)
        scores = scores.masked_fill(~mask, float("-inf"))
    # float16 products can overflow to inf: keep only finite scores before the softmax
    scores = torch.where(torch.isfinite(scores), scores, torch.zeros_like(scores))
    weights = stable_softmax(scores, dim=-1)
    if mask is not None:
        has_key = mask.any(dim=-1, keepdim=True)
        weights = torch.where(has_key, weights, torch.zeros_like(weights))
    return torch.matmul(weights, V)
'''},
        {"mistake": "the clean-up of non-finite scores comes after the masked_fill, so it also turns the -inf "
                    "fills into 0: blocked keys get an ordinary score of 0 and a real weight, and the mask is "
                    "ignored (only the fully masked rows still come out as zeros)",
         "where": ["q5"]}),
    "q5_nan_check_falls_back_to_a_finite_fill_that_averages_v_for_fully_masked_queries": (
        {"scaled_dot_product_attention": '''def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    d_k = Q.size(-1)
    raw = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is None:
        return torch.matmul(stable_softmax(raw, dim=-1), V)
    mask = mask.to(device=raw.device, dtype=torch.bool)
    weights = stable_softmax(raw.masked_fill(~mask, float("-inf")), dim=-1)
    try:
        if not bool(torch.isfinite(weights).all()):
            raise FloatingPointError("non-finite attention weights")
    except FloatingPointError:
        # fall back to the most negative finite number instead of -inf: its exponential is still 0,
        # and no row can become 0 / 0
        fill = torch.finfo(raw.dtype).min
        weights = stable_softmax(raw.masked_fill(~mask, fill), dim=-1)
    return torch.matmul(weights, V)
'''},
        {"mistake": "when a query has no key at all, the NaN check switches to a fallback that fills the blocked "
                    "scores with the dtype's most negative finite number; in a fully masked row every score is "
                    "then the same, so the softmax gives every key the same weight and that query's output is "
                    "the average of V instead of a row of zeros",
         "where": ["q5"]}),
    "q6_fast_path_for_masks_that_hide_nothing_tested_with_any": (
        {"weights3": '''def masked_weights(scores, mask=None):
    """Softmax over the keys of `scores`, hiding the keys where `mask` is False."""
    scores = torch.as_tensor(scores)
    if mask is None or bool(mask.any()):                  # a mask that hides nothing changes nothing
        return stable_softmax(scores, dim=-1)
    w = stable_softmax(scores.masked_fill(~mask, float("-inf")), dim=-1)
    return torch.where(mask.any(dim=-1, keepdim=True), w, torch.zeros_like(w))

assert Q3.shape[-1] == K3.shape[-1] and K3.shape[0] == V3.shape[0]
scores3 = Q3 @ K3.T / math.sqrt(Q3.shape[-1])
weights3 = masked_weights(scores3)
out3 = weights3 @ V3
weights3_causal = masked_weights(scores3, causal_mask(3))
print(weights3, out3, weights3_causal, sep="\\n")
'''},
        {"mistake": "the fast path meant for a mask that hides nothing tests mask.any() instead of mask.all(); "
                    "the causal mask allows some keys, so it takes the fast path and weights3_causal is just "
                    "the unmasked weights3 (query 0 still looks at keys 1 and 2)",
         "where": ["q6"]}),
    "q6_sanity_check_that_output_rows_sum_to_one_renormalises_out3": (
        {"weights3": '''scores3 = Q3 @ K3.T / math.sqrt(Q3.shape[-1])
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
# sanity check: every output row is a weighted average, so it should sum to 1; repair rounding if not
if not torch.allclose(out3.sum(dim=-1), torch.ones(3, dtype=out3.dtype)):
    out3 = out3 / out3.sum(dim=-1, keepdim=True)
weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float("-inf")), dim=-1)
print(weights3, out3, weights3_causal, sep="\\n")
'''},
        {"mistake": "the sanity check expects each output row to sum to 1, but it is the weights that sum to 1, "
                    "not the mixtures of the rows of V3; the check fails on the correct out3 and its 'repair' "
                    "divides each row of out3 by its sum, which changes it",
         "where": ["q6"]}),
    "q7_outputs_compared_after_scaling_each_row_to_unit_length_answers_a": (
        {"q_trap_answer": '''torch.manual_seed(1)
T_trap = 4
s = torch.randn(T_trap, T_trap, dtype=torch.float64)
v = torch.randn(T_trap, 3, dtype=torch.float64)
keep = causal_mask(T_trap)
reference = stable_softmax(s.masked_fill(~keep, float("-inf"))) @ v
w = stable_softmax(s).clone()
w[~keep] = 0.0
shortcut = w @ v
# compare directions only, so that rounding in the size of a row cannot make the check fail
same = torch.allclose(F.normalize(shortcut, dim=-1), F.normalize(reference, dim=-1))
q_trap_answer = "A" if same else "C"
assert q_trap_answer in {"A", "B", "C", "D"}
'''},
        {"mistake": "the check scales each output row to unit length before comparing; the shortcut's rows are "
                    "the right rows multiplied by the weight that was kept (less than 1), and that factor is "
                    "exactly what the normalisation removes, so the check passes and the answer is A instead "
                    "of C",
         "where": ["q7"]}),
    "q8_power_of_two_padding_doubles_a_length_that_already_is_one": (
        {"attn_entries": '''def padded_length(T):
    """Smallest power of two >= T (kernels pad to it)."""
    T = int(T)
    if T <= 1:
        return 1
    return 1 << T.bit_length()

T_q8, d_k_q8 = 1024, 64
attn_entries = padded_length(T_q8) ** 2
score_madds = attn_entries * d_k_q8
cost_ratio = (padded_length(2 * T_q8) ** 2 * d_k_q8) // score_madds
'''},
        {"mistake": "the padding helper uses 1 << T.bit_length(), which doubles a length that is already a power "
                    "of two: 1024 is counted as 2048, so attn_entries is 4,194,304 instead of 1,048,576 and "
                    "score_madds 268,435,456 instead of 67,108,864 (the ratio of 4 survives)",
         "where": ["q8"]}),
}
