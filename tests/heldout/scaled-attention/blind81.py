"""Eighty-first blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, `assignments/scaled-attention/hidden/`, `reference/`, `autograder/`,
`variants.py`, `measure.py`, the naming tests or the round tests. What was read: the cells of
`examples/submissions/scaled-attention/full_marks.ipynb` (q1 a 2-D `attention`; q2 `dot_product_variance`; q4
`softmax_entropy` and `entropy_table` in one cell; q5..q7 one letter each; q8 a loop over heads calling the 2-D
`attention`; the lesson-trace cell defines the globals `d_k = 4`, `Q`, `K`, `V`, `out`, `W`; no masks), the
student-facing question text, `tests/heldout/harness.py`, blind79.py for the format, and only the variant NAMES
of the earlier blind*.py sets. The grader was not run on this set.

Focus of the round: DEBUGGING LEFTOVERS, HALF-FINISHED EDITS AND NOTEBOOK STATE. Each wrong variant is code
that is otherwise right with one mid-edit slip: in q1 a `d_k = 1` override left in to look at raw scores, a
shape check that returns the raw scores in the weights' place, and a result cache keyed by the input shapes
(a later call with new values of the same shapes gets the first call's answer; in q8 every head gets head 0's
output); in q2 a `d_k = 16` hard-coded while testing and a commented-out `if scaled:` whose body stayed live;
in q4 a refactor to log_softmax done halfway (`logp` computed, the return still logs the
unguarded `p`: NaN on saturated rows), a `dims = ...` debugging override of the argument, and a
sanity assert that mutates what it checks (`raw.abs_()`); q5 a second, stale assignment below the right one,
q6 a letter decided by a leftover probe run on orthogonal large-norm tokens (one-hot weights, so "B"), q7 the
first draft's letter live with the right line commented out; in q8 a half-done rename (the local became
`head_dim` but the call still passes `d_k`, so the lesson trace's global `d_k = 4` is read), a `heads = []`
list moved out of the function to inspect it, so each call appends to the previous call's heads, and an early
`return` of the concatenation left from checking it. Spread: q1 x3, q2 x2, q4 x3, q5 x1, q6 x1, q7 x1, q8 x3
(q3 is a hand-graded markdown answer). The correct variants look mid-edit too (dead code, commented-out tries,
debug prints behind a flag, harmless asserts, a helper defined twice where the later one is right, a real
`.clone()` before an in-place op) and are right when the notebook runs top to bottom.

Public material used (nothing copied verbatim): Wang, Kuo, Li and Zeller, "Assessing and Restoring
Reproducibility of Jupyter Notebooks" (ASE 2020; 73% of 936 executable notebooks not reproducible top to
bottom, identifier uses before definitions, results before computations); the FlowBook abstract (hidden state
and stale cells after out-of-order execution); friggeri's nbviewer notebook "Tracking inconsistencies in
Jupyter notebooks" (executions that read variables changed since); pytorch/pytorch issue #9778 and
toshikwa/gail-airl-ppo.pytorch issue #13 (`clamp_` and other in-place ops silently changing, or failing on,
the tensor they are called on).

How the variants were checked: /tmp/w81-scaled-attention/check.py built each notebook with
harness.build_notebook, ran its code cells top to bottom in one namespace (otter's init and `grader.check`
cells skipped) and compared: `attention` with a softmax reference and F.scaled_dot_product_attention (float64,
float32, float16, T_q != T_k, d_v != d_k, several calls in a row); `dot_product_variance` against d_k and 1
(scaled) and for reproducibility; `softmax_entropy` against a log_softmax entropy on 1-D, 2-D and 3-D inputs
and saturated rows; `entropy_table` against the full_marks cell (default and other dims and seeds); the
letters against C / A / D; `multi_head_attention` against the full_marks loop and torch.nn.MultiheadAttention
(several head counts, repeated calls). The correct variants agree everywhere; each wrong one differs, and only
in the questions of its "where"."""

CORRECT = {
    'q1_debug_flag_off_prints_and_dtype_aware_assert_left_in': {
        'attention': '''
DEBUG = False   # set True to see the intermediate tensors


def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = Q @ K.T
    # scores = scores / d_k          # first try: too flat, the lesson says sqrt
    # scores = scores / math.sqrt(Q.shape[1])   # same thing but use the argument
    scores = scores / math.sqrt(d_k)
    if DEBUG:
        print("scores", scores.shape, scores.dtype)
    weights = F.softmax(scores, dim=-1)
    # weights = torch.exp(scores) / torch.exp(scores).sum(-1, keepdim=True)   # overflows, use F.softmax
    tol = 5e-2 if weights.dtype in (torch.float16, torch.bfloat16) else 1e-4
    assert (weights.sum(-1) - 1).abs().max() < tol, "rows must sum to 1"
    out = weights @ V
    if DEBUG:
        print("out", out.shape)
    return out, weights
''',
    },

    'q4_softmax_entropy_defined_twice_later_log_softmax_right': {
        'softmax_entropy': '''
def softmax_entropy(logits):
    # v1 -- NaN on saturated rows (0 * log 0), kept for reference, redefined below
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p)).sum(dim=-1)


def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    logp = F.log_softmax(logits, dim=-1)
    p = logp.exp()
    H = -(p * logp).sum(dim=-1)
    # print(H)   # debug
    return H


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    for d in dims:
        torch.manual_seed(seed)   # again for every d (not once before the loop!)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d ** 0.5
        assert raw.shape == (5,), raw.shape
        # print(d, raw.std(), scaled.std())
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
''',
    },

    'q2_sorted_clone_check_q8_shape_asserts_and_commented_reshape': {
        'dot_product_variance': '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = torch.einsum("nd,nd->n", q, k)
    check = dots.clone()          # a real copy: sorting it does not touch dots
    check, _ = check.sort()
    # print("min/max dot:", check[0].item(), check[-1].item())
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
''',
        'multi_head_attention': '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    assert d_model % n_heads == 0, "d_model must be divisible by n_heads"
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    # Qh = Q.reshape(n_heads, T, d_k)   # WRONG order, mixes tokens and heads -- use the loop
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        assert out_h.shape == (T, d_k)
        heads.append(out_h)
    concat = torch.cat(heads, dim=1)
    # print(concat.shape)
    return concat @ W_O
''',
    },

    'answers_with_earlier_drafts_commented_out': {
        'q5_answer': '''
# q5_answer = "A"   # no -- that is after dividing by sqrt(d_k)
q5_answer = "C"
''',
        'q6_answer': '''
# q6_answer = "B"  ?? only if the tokens are orthogonal and huge
q6_answer = "A"
''',
        'q7_answer': '''
q7_answer = "C"   # first guess
q7_answer = "D"   # changed: softmax mixes all values, differentiable (kernel regression)
''',
    },

    'q1_clone_then_in_place_scale_q8_local_head_width': {
        'attention': '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = torch.matmul(Q, K.transpose(0, 1))
    s = scores.clone()            # keep the raw scores for printing
    s.div_(d_k ** 0.5)            # in place on the copy only
    weights = torch.softmax(s, dim=-1)
    out = torch.matmul(weights, V)
    # return out, scores           # old: returned raw scores while checking shapes
    return out, weights
''',
        'multi_head_attention': '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    head_dim = d_model // n_heads      # renamed from d_k (clashes with the trace cell's d_k)
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        cols = slice(h * head_dim, (h + 1) * head_dim)
        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], head_dim)
        heads.append(out_h)
    return torch.cat(heads, dim=1) @ W_O
''',
    },
}

WRONG = {
    'q1_debug_override_d_k_one_to_see_raw_scores_left_in': ({
        'attention': '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    d_k = 1   # DEBUG: look at the raw scores first -- TODO remove
    scores = Q @ K.T / d_k ** 0.5
    weights = F.softmax(scores, dim=-1)
    # print(scores)
    out = weights @ V
    return out, weights
''',
    }, {
        "mistake": "A debugging line `d_k = 1` (to look at the raw scores) was left at the top of the function, so "
                   "the scores are never scaled: softmax(QK^T) V, too sharp weights and a wrong output (also in "
                   "every q8 head).",
        "where": ['q1', 'q8']}),

    'q1_shape_check_returns_raw_scores_as_weights': ({
        'attention': '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = Q @ K.T / d_k ** 0.5
    weights = F.softmax(scores, dim=-1)
    out = weights @ V
    print(scores.shape, weights.shape, out.shape)   # checking shapes
    return out, scores   # TODO scores -> weights once shapes are ok
''',
    }, {
        "mistake": "The return left from a shape check hands back the scaled scores in place of the softmax weights: "
                   "the output is right but the second value is QK^T/sqrt(d_k), whose rows do not sum to 1 (q8 only "
                   "uses the output, so it is unaffected).",
        "where": ['q1']}),

    'q1_result_cache_keyed_by_input_shapes_from_speed_test': ({
        'attention': '''
_attn_cache = {}   # speed experiment: do not recompute the same call


def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    key = (tuple(Q.shape), tuple(K.shape), tuple(V.shape), d_k, Q.dtype)
    if key in _attn_cache:
        return _attn_cache[key]
    scores = Q @ K.T / d_k ** 0.5
    weights = F.softmax(scores, dim=-1)
    out = weights @ V
    _attn_cache[key] = (out, weights)
    return out, weights
''',
    }, {
        "mistake": "Results are cached by the inputs' shapes, dtype and d_k, not their values: any later call with new "
                   "tensors of shapes already seen returns the first call's output and weights (in q8 every head "
                   "gets the first head's output, and new inputs get old results).",
        "where": ['q1', 'q8']}),

    'q2_d_k_hard_coded_sixteen_while_testing': ({
        'dot_product_variance': '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    d_k = 16   # TODO remove, testing with the lesson's d=16
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
''',
    }, {
        "mistake": "A `d_k = 16` left from testing overrides the argument: the unscaled variance is about 16 whatever "
                   "d_k is asked for (the scaled one still comes out near 1).",
        "where": ['q2']}),

    'q2_scaled_condition_commented_out_body_left_live': ({
        'dot_product_variance': '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(1)
    # if scaled:
    dots = dots / math.sqrt(d_k)   # testing the scaled case
    return dots.var().item()
''',
    }, {
        "mistake": "The `if scaled:` line was commented out while testing and its body left live, so the dot products "
                   "are always divided by sqrt(d_k): about 1 also when scaled=False, instead of about d_k.",
        "where": ['q2']}),

    'q4_log_softmax_refactor_half_done_entropy_still_logs_p': ({
        'softmax_entropy': '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    logp = F.log_softmax(logits, dim=-1)   # switching to log_softmax for saturated rows
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p)).sum(dim=-1)   # TODO use logp here


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
        "mistake": "A refactor to log_softmax done halfway: `logp` is computed but the return line still takes "
                   "`torch.log(p)` without the old 1e-9 guard, so a saturated row (probabilities that underflow to "
                   "exactly 0) gives 0 * -inf = NaN instead of 0.",
        "where": ['q4']}),

    'q4_entropy_table_dims_debug_override_left_in': ({
        'softmax_entropy': '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    dims = (4, 16, 64, 256)   # DEBUG the lesson's dims -- TODO put the argument back
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
        "mistake": "A debugging line `dims = (4, 16, 64, 256)` overrides the argument: the table is always the "
                   "lesson's four rows, whatever dims are asked for (right only with the defaults).",
        "where": ['q4']}),

    'q4_entropy_table_sanity_assert_abs_in_place_on_scores': ({
        'softmax_entropy': '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d); k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        assert raw.abs_().max() < 1e4, "scores blew up?"   # sanity check
        scaled = raw / d**0.5
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
''',
    }, {
        "mistake": "The sanity assert calls `raw.abs_()`, which takes the absolute value in place: every negative "
                   "score is flipped before the stds and entropies are computed, so the table's values are wrong.",
        "where": ['q4']}),

    'q5_answer_stale_second_assignment_below_right_one': ({
        'q5_answer': '''
q5_answer = "C"
# after dividing by sqrt(d_k) the variance is 1 (see the q2 printout), so:
q5_answer = "A"
''',
    }, {
        "mistake": "The right letter is overwritten by a later line left from reading the scaled column of the q2 "
                   "printout: \"A\" (variance 1) instead of \"C\" (d_k, for the unscaled dot product).",
        "where": ['q5']}),

    'q6_answer_from_leftover_probe_on_orthogonal_large_tokens': ({
        'q6_answer': '''
# quick probe: tokens as rows of X, Q = K = V = X
X_probe = 10 * torch.eye(3)
o_probe, w_probe = attention(X_probe, X_probe, X_probe, X_probe.shape[1])
print(w_probe)
q6_answer = "B" if torch.allclose(o_probe, X_probe, atol=1e-3) else "A"
''',
    }, {
        "mistake": "The letter is decided by a probe left in the cell that uses orthogonal tokens of norm 10: each "
                   "self-score dominates, the weights are one-hot, the output equals X, so \"B\" instead of \"A\".",
        "where": ['q6']}),

    'q7_answer_first_draft_live_right_line_commented': ({
        'q7_answer': '''
q7_answer = "C"   # attention picks the best key
# q7_answer = "D"   # TODO re-read the kernel regression part
''',
    }, {
        "mistake": "The first draft's \"C\" (attention as an argmax over keys) is still live and the line with \"D\" "
                   "(softmax-weighted mix of all values) is commented out.",
        "where": ['q7']}),

    'q8_half_renamed_head_width_call_reads_trace_global_d_k': ({
        'multi_head_attention': '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    head_dim = d_model // n_heads      # renamed from d_k
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        cols = slice(h * head_dim, (h + 1) * head_dim)
        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        heads.append(out_h)
    return torch.cat(heads, dim=1) @ W_O
''',
    }, {
        "mistake": "A half-finished rename: the head width became `head_dim` but the attention call still passes "
                   "`d_k`, which now reads the lesson-trace global `d_k = 4`, so every head is scaled by 1/2 "
                   "instead of 1/sqrt(d_model / n_heads) (right only when the head width is 4).",
        "where": ['q8']}),

    'q8_heads_list_moved_to_module_level_for_inspection': ({
        'multi_head_attention': '''
heads = []   # moved out so I can look at the heads after the call


def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        heads.append(out_h)
    # print(len(heads))
    return torch.cat(heads, dim=1) @ W_O
''',
    }, {
        "mistake": "The heads list was moved to module level to inspect it, so it is never emptied: the first call "
                   "is right, every later call concatenates the earlier calls' heads too (a (T, k*d_model) matrix "
                   "that no longer multiplies W_O, or fails in torch.cat when T changes).",
        "where": ['q8']}),

    'q8_early_return_of_concat_left_from_checking_it': ({
        'multi_head_attention': '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        heads.append(out_h)
    concat = torch.cat(heads, dim=1)
    return concat   # check the concat against MultiheadAttention first
    return concat @ W_O
''',
    }, {
        "mistake": "An early `return concat` left from checking the concatenated heads skips the output projection: "
                   "the result is the (T, d_model) concatenation, not concat @ W_O.",
        "where": ['q8']}),
}
