"""Blind held-out set 81 for attention-pipeline.

Eighty-first blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, its diagnosis code, the reference solution, `variants.py`, the naming
tests or `measure.py`, and without running the grader on these variants. What was read: the student-facing
text of attention-pipeline.ipynb (as it appears in full_marks.ipynb), the solution cells of full_marks.ipynb,
`harness.py`, blind79.py (for the format and the docstring), and only the variant names of the earlier blind
sets (to avoid repeating a mistake in the same form).

Round 81's angle: DEBUGGING LEFTOVERS, HALF-FINISHED EDITS AND NOTEBOOK STATE. Each wrong variant is otherwise
right code with one slip of a notebook handed in mid-edit: a weight renamed in the signature but the old name
still read from a global a quick-check line defines (q01); `d_k = 1` left in to look at raw scores (q02); an
answer decided by an experiment whose head size was shrunk for speed and never put back (q03); a mask cache
keyed on the length only, returning a stale dtype (q04); a sanity assert that clamps the scores in place
(q05); a re-check whose result overwrites the answer (q06); a mask built from a global `T` that only a later
cell defines (q07); an `out=` buffer left from a speed experiment (q08); a rename done halfway so `effective_tokens` still calls the old natural-log helper (q10);
a TODO placeholder left as an answer (q11); an early `return` left above the output projection (q12); the
masked line commented out with the unmasked trial live (q13); a sanity print that transposes the shape probe
in place (q14); a key count truncated for printing left in a cost probe (q16).

Public material found with the `search` tool, and what it showed:
- Wang, Kuo, Li, Zeller, "Assessing and Restoring Reproducibility of Jupyter Notebooks" (ASE 2020,
  doi 10.1145/3324884.3416585, via bohrium.dp.tech and icse-conferences.org): 73% of 936 notebooks did not
  reproduce top to bottom, with identifier uses preceding their definitions and results preceding their
  computations: the global `T` that only a later cell defines (q07) and the old-name global read after a
  half-done rename (q01).
- nbviewer friggeri/notebooks "Tracking inconsistencies in Jupyter notebooks" and the FlowBook abstract
  (zhuanzhiai.com): hidden state and stale cells that diverge from a clean run: the stale cache (q04), the
  stale placeholder answer (q11) and the re-check that overwrites an answer (q06).
- github.com/pytorch/pytorch/issues/33373 (clamp_ used to keep fp16 from overflowing) and
  github.com/toshikwa/gail-airl-ppo.pytorch/issues/13 (`clamp_` modifies its tensor in place; `clamp` does
  not): the clamping assert of q05. github.com/pytorch/pytorch/issues/6028 (out= arguments): the out= buffer
  of q08. github.com/pytorch/tutorials/pull/30 (in-place vs out-of-place confusion): the `t_()` of q14.
- The remaining kinds (d_k = 1 to see raw scores, an early return, a commented-out right line,
  a truncated probe) follow the brief's list of mid-edit slips.

The correct variants look mid-edit too: commented-out tries, debug prints behind a False flag, a helper
defined twice with the later one right, harmless asserts, a real `.clone()` before in-place work, answer probes that
do not mutate; every one runs top to bottom and is right everywhere.

Every variant was checked with a throwaway script under /tmp/w81-attention-pipeline/: each variant's notebook
built with harness.build_notebook and run top to bottom (all code cells but otter's), then every function
and answer compared with torch.softmax / scaled_dot_product_attention-based references (fully masked rows included) on unbatched,
batched and 4-D inputs, T_q != T_k, d_k != d_v, float64, float32 and float16, with and without masks.

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
    # commented-out tries and a debug flag that is off
    "commented_tries_and_debug_flag_off_projection_and_scores": {
        PROJ: '''DEBUG = False

def project_qkv(X, W_Q, W_K, W_V):
    # Q = X @ W_Q.T   # first try, wrong shapes
    Q = X @ W_Q
    K = X @ W_K
    V = X @ W_V
    if DEBUG:
        print("Q", Q.shape, "K", K.shape, "V", V.shape)
    return Q, K, V
''',
        SCORES: '''def scaled_scores(Q, K):
    d_k = Q.shape[-1]
    # d_k = 1   # to see the raw scores -- removed
    S = Q @ K.transpose(-2, -1)
    if DEBUG:
        print("raw score std", S.float().std().item())
    return S / math.sqrt(d_k)
''',
    },
    # mask defined twice (the later one is right), a non-mutating assert in the softmax
    "mask_defined_twice_later_right_and_checked_softmax": {
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    # first version, -1e9 overflows float16
    return torch.triu(torch.full((T, T), -1e9), 1).to(dtype)


def causal_additive_mask(T, dtype, device=None):
    M = torch.zeros(T, T, dtype=dtype, device=device)
    blocked = torch.ones(T, T, dtype=torch.bool, device=device).triu(1)
    return M.masked_fill(blocked, torch.finfo(dtype).min)
''',
        WEIGHTS: '''def attention_weights(S, M=None):
    if M is not None:
        S = S + M
    A = torch.softmax(S, dim=-1)
    # sanity: rows sum to one (no in-place ops here)
    assert torch.allclose(A.sum(-1).double(), torch.ones((), dtype=torch.float64), atol=1e-2)
    return A
''',
    },
    # dead code and a clone before in-place work
    "dead_code_self_attention_and_cloned_in_place_prefix": {
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    # M = causal_additive_mask(X.shape[0], S.dtype)   # breaks with a batch axis
    M = causal_additive_mask(S.shape[-1], S.dtype, S.device) if causal else None
    A = attention_weights(S, M)
    O = A @ V
    # print(O.shape, A.shape)
    return O, A
''',
        NW: '''def nadaraya_watson(q, K, V):
    kappa = torch.exp(K @ q / math.sqrt(q.shape[-1]))
    num = V.clone()              # real copy: V belongs to the caller
    num *= kappa[:, None]
    return num.sum(dim=0) / kappa.sum()
''',
        AVG: '''def prefix_average_matrix(T):
    W = torch.ones(T, T, dtype=torch.float64).tril()
    counts = W.sum(dim=-1, keepdim=True).clone()
    W /= counts
    # assert W[-1, 0] == 1 / T
    return W
''',
    },
    # entropy helper renamed fully; counts with a commented-out early return; cross with mask line restored
    "renamed_entropy_helpers_commented_return_and_restored_cross_mask": {
        ENT: '''def row_entropy(A):   # old name, nats -- kept for the lesson table
    return -(A * torch.where(A > 0, torch.log(A), torch.zeros_like(A))).sum(dim=-1)


def row_entropy_bits(A):
    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))
    return -(A * logs).sum(dim=-1)


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)   # was row_entropy, renamed everywhere now
''',
        RANK: '''T, d_k = 100, 8
max_rank_S = min(T, d_k)
# rank_S_lesson = min(5, 4)   # TODO: real Q, K -- done below
rank_S_lesson = 2
''',
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    n = d_model * (2 * d_k + d_v)
    # return n   # checking the lesson's 72 first
    if with_output:
        n += d_v * d_model
    return n
''',
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    S = scaled_scores(Q, K)
    # A = attention_weights(S)   # mask off while checking rows
    A = attention_weights(S, M)
    return A @ V, A
''',
    },
    # answer cells with commented tries and probes that do not mutate
    "answer_cells_with_commented_tries_and_out_of_place_probe": {
        SCALE_ANS: '''# ans_scale = "c"   # softmax is shift invariant, not scale invariant!
ans_scale = "b"
''',
        MASK_ANS: '''ans_mask = "c"
# print(ans_mask)
''',
        SHAPES_ANS: '''T_, T2_, d_v_ = 3, 5, 4
S_probe = torch.zeros(T_, T2_)
O_probe = torch.zeros(T_, d_v_)
print("keys x queries would be", S_probe.t().shape)   # out of place
shapes = {"a": ((T_, T_), (T_, d_v_)), "b": ((T_, T2_), (T_, d_v_)), "c": ((T2_, T_), (T2_, d_v_)), "d": ((T_, T2_), (T2_, d_v_))}
ans_cross_shapes = next(k for k, (s, o) in shapes.items() if s == tuple(S_probe.shape) and o == tuple(O_probe.shape))
''',
        CAUSAL_ANS: '''# ans_cross_causal = "c"
ans_cross_causal = "d"
''',
        COST_ANS: '''def n_mults(T, d_k=64):
    Q = torch.randn(T, d_k); K = torch.randn(T, d_k)
    # K = K[:8]   # small while printing S
    S = Q @ K.T
    return S.numel() * d_k

ratio = n_mults(256) / n_mults(128)
ans_complexity = {1: "b", 2: "a", 4: "c", 8: "d"}[round(ratio)]
''',
    },
}

WRONG = {
    # --- q01
    "q01_value_weight_renamed_but_old_global_from_quick_check_read": ({
        PROJ: '''# quick check on the lesson's sizes
W_v = torch.randn(6, 4)

def project_qkv(X, W_Q, W_K, W_V):   # was (X, W_q, W_k, W_v)
    return X @ W_Q, X @ W_K, X @ W_v
''',
    }, {"mistake": "Renamed the parameters to W_Q, W_K, W_V but the value line still reads W_v, which is the random "
                   "(6, 4) float32 tensor of a quick-check line above: V ignores the given W_V (wrong values, or a "
                   "shape/dtype error), and self_attention's output is wrong with it.",
        "where": ["q01", "q07", "q09"]}),

    # --- q02
    "q02_head_size_forced_to_one_to_inspect_raw_scores": ({
        SCORES: '''def scaled_scores(Q, K):
    d_k = Q.shape[-1]
    d_k = 1   # TODO remove -- look at the raw scores first
    return Q @ K.transpose(-2, -1) / math.sqrt(d_k)
''',
    }, {"mistake": "A debugging override `d_k = 1` is left in: the scores are Q K^T without the 1/sqrt(d_k) "
                   "scaling, so every pipeline built on them is too peaked.",
        "where": ["q02", "q07", "q13"]}),

    # --- q03
    "q03_entropy_experiment_left_at_small_head_answers_c": ({
        SCALE_ANS: '''torch.manual_seed(0)
d_k = 4   # was 512, TODO put back (slow?)
q = torch.randn(8, d_k)
k = torch.randn(8, d_k)
def H(p):
    return -(p * torch.log2(p)).sum(-1).mean().item()
H_scaled = H(torch.softmax(q @ k.T / math.sqrt(d_k), -1))
H_unscaled = H(torch.softmax(q @ k.T, -1))
print(H_scaled, H_unscaled)
ans_scale = "b" if H_unscaled < 0.5 * H_scaled else "c"
''',
    }, {"mistake": "Decides by experiment, but the head size was shrunk to d_k = 4 for a quick run and never put back to "
                   "512: unscaled scores are only twice as large, the entropies stay close and the answer is 'c' "
                   "(nothing changes) instead of 'b'.",
        "where": ["q03"]}),

    # --- q04
    "q04_mask_cache_keyed_on_length_only_returns_stale_dtype": ({
        MASK: '''_mask_cache = {}

def causal_additive_mask(T, dtype, device=None):
    if T in _mask_cache:          # speed-up, TODO key on dtype/device too
        return _mask_cache[T]
    future = torch.triu(torch.ones(T, T, dtype=torch.bool, device=device), diagonal=1)
    M = torch.zeros(T, T, dtype=dtype, device=device)
    M[future] = torch.finfo(dtype).min
    _mask_cache[T] = M
    return M
''',
    }, {"mistake": "Caches the mask by length only: a second call with the same T and another dtype returns the first "
                   "dtype's mask (wrong dtype, and a blocked value that is not that dtype's finfo.min), so the "
                   "masked pipeline comes out in the wrong dtype too.",
        "where": ["q04", "q07", "q09"]}),

    # --- q05
    "q05_overflow_assert_clamps_scores_in_place": ({
        WEIGHTS: '''def attention_weights(S, M=None):
    if M is not None:
        S = S + M
    # chasing the float16 NaNs -- remove before submitting
    assert torch.isfinite(S.clamp_(-10, 10)).all()
    return torch.softmax(S, dim=-1)
''',
    }, {"mistake": "A sanity assert calls S.clamp_(-10, 10), which clamps the scores in place: blocked entries become "
                   "-10 (their weight is no longer 0, A is not lower-triangular), large scores are cut, and with "
                   "M None the caller's S is modified.",
        "where": ["q05", "q07", "q09", "q13"]}),

    # --- q06
    "q06_gradient_recheck_overwrites_answer_with_d": ({
        MASK_ANS: '''ans_mask = "c"
# re-checking option d: does any gradient reach the blocked scores?
S_dbg = torch.randn(4, 4, requires_grad=True)
A_dbg = attention_weights(S_dbg, causal_additive_mask(4, S_dbg.dtype))
A_dbg.sum().backward()
print(S_dbg.grad)
if (S_dbg.grad.triu(1) == 0).all():
    ans_mask = "d"
''',
    }, {"mistake": "Answers 'c', then a re-check left below overwrites it: the gradient of the blocked scores is 0, so "
                   "the cell sets ans_mask to 'd' (no gradient flows) instead of 'c' (position t reads token t+1).",
        "where": ["q06"]}),

    # --- q07
    "q07_mask_length_read_from_global_t_set_by_later_cell": ({
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    M = causal_additive_mask(T, S.dtype, S.device) if causal else None
    A = attention_weights(S, M)
    return A @ V, A
''',
        AVG: '''def prefix_average_matrix(T):
    W = torch.tril(torch.ones(T, T, dtype=torch.float64))
    return W / W.sum(dim=-1, keepdim=True)

T = 5
print(prefix_average_matrix(T))
''',
    }, {"mistake": "The causal mask is built with a global T instead of X.shape[-2]; T only exists because the Question 9 "
                   "cell further down sets T = 5 for a demo, so the mask is 5 x 5 whatever the sequence length "
                   "(shape error or wrong mask for T != 5).",
        "where": ["q07", "q09"]}),

    # --- q08
    "q08_exp_written_into_float32_buffer_from_speed_test": ({
        NW: '''_buf = torch.empty(5)   # preallocated for the timing loop

def nadaraya_watson(q, K, V):
    kappa = torch.exp(K @ q / math.sqrt(q.shape[-1]), out=_buf)
    return (kappa[:, None] * V).sum(dim=0) / kappa.sum()
''',
    }, {"mistake": "Left from a speed experiment, the kernel weights are written with out= into a preallocated float32 "
                   "buffer: float64 inputs raise a dtype error and float16 inputs come back as float32.",
        "where": ["q08"]}),

    # --- q10
    "q10_effective_tokens_still_calls_old_nats_helper": ({
        ENT: '''def row_entropy(A):   # first version, natural log
    return -(A * torch.where(A > 0, torch.log(A), torch.zeros_like(A))).sum(dim=-1)


def row_entropy_bits(A):
    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))
    return -(A * logs).sum(dim=-1)


def effective_tokens(A):
    return 2.0 ** row_entropy(A)   # TODO rename
''',
    }, {"mistake": "The rename to row_entropy_bits was done halfway: effective_tokens still calls the old row_entropy, "
                   "which measures nats, so it returns 2 ** (H ln 2) instead of 2 ** H.",
        "where": ["q10"]}),

    # --- q11
    "q11_lesson_rank_todo_bound_left_as_answer": ({
        RANK: '''T, d_k = 100, 8
max_rank_S = min(T, d_k)

# lesson: 5 tokens, d_k = 4 -- TODO take the real Q, K from the q02 check and use matrix_rank
rank_S_lesson = min(5, 4)
''',
    }, {"mistake": "The lesson's rank is left at a placeholder upper bound min(T, d_k) = 4 with a TODO to compute it "
                   "from the actual Q and K; the hand-crafted scores have rank 2.",
        "where": ["q11"]}),

    # --- q12
    "q12_early_return_left_above_output_projection": ({
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    n = d_model * (2 * d_k + d_v)
    return n   # checking the lesson's 72 first
    if with_output:
        n += d_v * d_model
    return n
''',
    }, {"mistake": "An early `return n` left from checking the lesson's 72 skips the W_O term: with_output=True gives "
                   "the same count as without it.",
        "where": ["q12"]}),

    # --- q13
    "q13_masked_line_commented_out_unmasked_trial_live": ({
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    S = scaled_scores(Q, K)
    # A = attention_weights(S, M)
    A = attention_weights(S)   # mask off while checking rows sum to 1 over all of Y
    return A @ V, A
''',
    }, {"mistake": "The right line (weights of S + M) is commented out and the trial without the mask is live: a given "
                   "M is ignored, so blocked keys (padding) still get weight.",
        "where": ["q13"]}),

    # --- q14
    "q14_sanity_print_transposes_probe_in_place_answers_c": ({
        SHAPES_ANS: '''T_, T2_, d_v_ = 3, 5, 4
S_probe = torch.zeros(T_, T2_)      # one row per query, one column per key
O_probe = torch.zeros(T_, d_v_)
print("keys x queries would be", S_probe.t_().shape)   # sanity print
shapes = {"a": ((T_, T_), (T_, d_v_)), "b": ((T_, T2_), (T_, d_v_)), "c": ((T2_, T_), (T2_, d_v_)), "d": ((T_, T2_), (T2_, d_v_))}
ans_cross_shapes = next(k for k, (s, o) in shapes.items() if s == tuple(S_probe.shape))
''',
    }, {"mistake": "A sanity print uses t_(), which transposes the probe in place: the score probe is read back as "
                   "(T', T) and the answer is 'c' instead of 'b'.",
        "where": ["q14"]}),

    # --- q16
    "q16_key_count_truncated_for_printing_left_in_cost_probe_answers_a": ({
        COST_ANS: '''def n_mults(T, d_k=64):
    Q = torch.randn(T, d_k); K = torch.randn(T, d_k)
    K = K[:8]   # small while printing S, TODO remove
    S = Q @ K.T
    return S.numel() * d_k

ratio = n_mults(256) / n_mults(128)
ans_complexity = {1: "b", 2: "a", 4: "c", 8: "d"}[round(ratio)]
''',
    }, {"mistake": "The cost probe still truncates the keys to 8 rows from a printing check: only the queries grow, the "
                   "count doubles when T doubles and the answer is 'a' (linear) instead of 'c'.",
        "where": ["q16"]}),
}
