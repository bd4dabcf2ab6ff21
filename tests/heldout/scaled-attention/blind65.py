"""Sixty-fifth blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, `assignments/scaled-attention/hidden/`, `reference/`, `autograder/`,
`variants.py`, `measure.py`, `mutants.py`, the naming tests, `README.md`'s feedback section or `docs/`. What
was read: the assignment notebook (its text, question statements and stub cells) and the solution cells of
`examples/submissions/scaled-attention/full_marks.ipynb` (q1: a 2-D `attention` written `Q @ K.T / d_k ** 0.5`
with a row-sum assert; the trace cell that binds the globals `d_k`, `Q`, `K`, `V`, `out` and `W`; q2: two
`randn` draws from the generator, `(q * k).sum(1)`, `.var().item()`, and a display loop `for d in [4, 16, 64]`
that leaves the global `d` at 64; q4: `softmax_entropy` with `+ 1e-9` inside the log and `entropy_table` in
the same cell; q5..q7 one letter each; q8 a loop over the heads calling the 2-D `attention` on column
slices), `tests/heldout/harness.py`, blind64.py in full for the format, the first part of lesson 79's text,
and only the variant NAMES of the earlier blind*.py sets, so that their mistakes are not repeated in the same
form. The grader was not run on this set.

Focus of the round: LEFTOVERS FROM DEBUGGING AND UNFINISHED EDITS. Each wrong variant is a full-marks
solution with one thing left behind after the student had it working (or nearly): in q1, a debugging branch
for cross-attention that prints the shapes and returns the unnormalised scores before the softmax, the trace
cell's `torch.manual_seed(42)` and `Q = torch.randn(3, d_k)`, `K = torch.randn(3, d_k)` pasted into the
function to debug it and never removed (a test value over the parameters, harmless on the trace itself), and
a rename `W` -> `weights` done in two lines but not in `out = W @ V`, which only ever worked through the trace
cell's global W from an earlier run; in q2, `scaled = True` assigned over the flag while trying the branch,
and a refactor that folded `prods = q * k` into one line while the scaled branch still reads `prods`; in q4,
the unguarded first draft of `softmax_entropy` kept below the fixed one "to compare" (the last definition
wins, and the table calls it), the reseed line commented out while checking the draws, and the loop variable
renamed `d` -> `dim` in the header and the draws while the scale and the row label still read the q2 display
loop's global `d` = 64; in q5, a probe whose dot products were clipped to a histogram's x-range before the
variance was taken; in q6, a probe helper whose default temperature was left at 1e4 from looking at Part 3's
flat limit; in q7, a Hopfield-style probe with a test value `beta = 100.0` left over the 1/sqrt(d_k) scale;
and in q8, a head output renamed `out` -> `head_out` where it is computed but appended as `out` (the trace's
global), a split helper whose demo default `n_heads=4` the call sites never override, and the early return
for one head left from the first working version, before the output projection was added. Spread: q1 x3,
q2 x2, q4 x3, q5 x1, q6 x1, q7 x1, q8 x3 (q3 is a hand-graded markdown answer with no code cell to replace).
Mix: crashes (q1's stale W and q2's stale `prods` raise NameError, q1's pasted inputs fail on `weights @ V`
when T_k != 3, q8's stale `out` fails in the output projection unless d_model == 4 * n_heads, q8's helper
when d_model is not a multiple of 4), silently wrong values (q1's debug branch for T_q != T_k, q1's pasted
inputs on 3-token inputs, q2's forced flag, q4's reseed and global d, q8's helper default and one-head
return), wrong shapes (q8's stale `out` gives 3 rows), dtype slips (q1's pasted float32 draws and q8's
float32 trace output meet float64 inputs), NaN (q4's unguarded draft on saturated rows), a stale global read
in place of a loop variable (q4) and of a return value (q8), and three written answers drawn from probes whose
leftover makes the wrong option look right. The five correct variants carry harmless leftovers of the same
kind (an inactive `mask = None` branch and a `DEBUG` flag that stays False, a commented-out assert and
prints, an inspection dict that is written and never read, always-true shape asserts) on top of other
idioms: `matmul` with `K.mT`, half-precision inputs accumulated in float32 through `softmax(dtype=...)` and
cast back, `linalg.vecdot` with `var_mean(correction=1)`, an `xlogy` entropy (0 log 0 = 0 without an epsilon), and multi-head
attention as two einsums over a (T, heads, d_k) view.

Public material used (nothing copied verbatim): NeuromatchAcademy/course-content issue #300 and PR #444 (a
plotting function read the notebook's global `v_n` instead of its parameter `v`: "It works fine in this
notebook, but won't function normally if `v_n` doesn't exist"), issue #466 there (a solution used the global
`my_bins` instead of its keyword argument `bins`), BlackHC/batchbald_redux PR #14 (a bug "which does not
[show] in jupyter-notebook since `K` is already defined by the moment of function execution") and
tiagobotari/melime PR #5 (a function "computing its results on global variables") for q1's stale W, q4's
global d and q8's stale `out`; omecra/de.omecra.oedt.updatesite issue #163 (a rename missed one occurrence,
"there happened to be a [variable] with the same name, so this code kept compiling") and python-rope/rope
issue #686 (a rename leaves one use on the old name, a runtime error) for the half-done renames in q1, q2,
q4 and q8; yeger00/pylspclient issue #21 ("The second `def definition` overrides the first") and fastai/fastai
PR #620 (a duplicated function definition removed) for q4's redefined draft; PostHog/posthog PR #44986
("Forgot to remove a check short-circuit I used to test in development"), stag019/rgbgfx issue #10 and
jkarns275/stdgba issue #5 (leftover debugging code) for q1's debug branch and q8's early return, with
mead-ml/mead-baseline PR #721 (with num_heads=1 "no need for w_O") and stevezheng23/sequence_labeling_tf PR #83
("missing projection layer in multi-head attention") for what that early return skips; layer6ai-labs/
TabDPT-inference PR #47 ("Revert temperature change after softmax fix") and aidotse/LeakPro PR #116 (review:
"Either change the default value for temp to 1 or set it to one here") for q6's temperature default and q8's
helper default; swighCode/Hopfield2.0 `hopfield_network.py` (`softmax(self.B * inner_products)`, beta as a
settable scale) and the ml-jku/hopfield-layers port in the code corpus (a large-beta limit that becomes an
argmax) for q7's beta; the Winsorized/clipped-variance pages (reference.wolfram.com WinsorizedVariance: clipping
lowers the variance) and the errorhandle.ai page on cutting a histogram's outliers before plotting for q5's
clip; the NameError-after-restart pages (matthew-brett.github.io global_scope, solveforce.com on a notebook's
hidden kernel state) for why a stale global passes in the student's kernel and fails in a fresh run.

How the variants were checked: each variant's notebook (full_marks.ipynb with the cell replaced) was run top
to bottom, every code cell but otter's init and the `grader.check` cells, with a throwaway script under
/tmp/w65-scaled-attention/ (the only cell errors: the trace cell for q1's stale W and the q2 display cell for
q2's stale `prods`); its functions were then compared with plain torch: `attention` with a float64
`softmax(Q K^T / sqrt(d_k)) V` (itself checked against `F.scaled_dot_product_attention`) on (T_q, T_k, d_k,
d_v) = (3, 3, 4, 4), (2, 5, 3, 6), (5, 2, 7, 3), (1, 4, 5, 2), (4, 4, 6, 6), (6, 6, 10, 4) in float32 and
float64 (dtype, shape, values at 1e-5), `dot_product_variance` at d_k 3, 5, 64, 200 scaled and not, within
10% of d_k or 1, a Python float, the same for two generators seeded alike, `softmax_entropy` against a
float64 `log_softmax` entropy on 1-D..3-D logits with saturated rows (+-1000) in float32/float64,
`entropy_table` against the spec recomputed at dims (4, 16, 64, 256) seed 0 (called with its defaults),
(8, 32, 100) seed 0 and (3, 5, 7, 50, 200) seed 1 after reseeding the global generator to another value, the
letters against C / A / D, and `multi_head_attention` against a float64 loop over the heads and against
`torch.nn.MultiheadAttention` without biases (loaded with the transposed weights) on (T, d_model, n_heads) =
(3, 8, 2), (4, 16, 4), (5, 12, 3), (1, 6, 2), (7, 8, 1), (3, 4, 1), (4, 6, 3), (5, 16, 2), (3, 16, 4) in
float32/float64. The five correct variants matched everywhere (the attention ones also in float16/bfloat16
at 2e-2, keeping the dtype); every wrong variant differs, only in the questions listed in its "where" (q1's
debug branch only where T_q != T_k, so not in q8; q8's helper default only where n_heads != 4; q8's early
return only where n_heads == 1). The probes were also rerun without their leftover: q5's unclipped variance
is about 15.8 ('C'; clipped, 7.95..8.02 over five seeds, 'B'), q6's helper at sqrt(d) gives rows 2.7 away
from the mean ('A'; at 1e4 within 9e-4 of it, 'D'), q7's retrieval at 1/sqrt(d_k) has a largest weight of
0.34 ('D'; at beta 100 the score gap of 1.35 makes it one-hot, 'C')."""

CORRECT = {
    "attention_inactive_mask_branch_and_debug_flag_left_harmless": {"attention": '''
DEBUG_ATTENTION = False                                  # flip to True to print shapes while debugging


def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    mask = None                                          # kept from trying a causal mask; nothing is masked
    scores = torch.matmul(Q, K.mT) * (1.0 / math.sqrt(d_k))
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    if DEBUG_ATTENTION:
        print("scores", tuple(scores.shape), scores.dtype)
    weights = torch.softmax(scores, dim=-1)
    # assert torch.allclose(weights.sum(-1), torch.ones_like(weights[:, 0]))
    out = torch.matmul(weights, V)
    return out, weights
'''},
    "attention_half_inputs_softmax_accumulated_in_float32_cast_back": {"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    acc = torch.float32 if Q.dtype in (torch.float16, torch.bfloat16) else Q.dtype
    scores = torch.einsum("qd,kd->qk", Q.to(acc), K.to(acc)) / math.sqrt(d_k)
    weights = F.softmax(scores, dim=-1, dtype=acc)       # float32/float64 inputs stay in their own dtype
    out = torch.einsum("qk,kv->qv", weights, V.to(acc))
    return out.to(Q.dtype), weights.to(Q.dtype)
'''},
    "variance_inspection_dict_left_behind_linalg_vecdot_var_mean": {"dot_product_variance": '''
_last_run = {}                                           # filled while inspecting the draws; never read back


def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = torch.linalg.vecdot(q, k)
    if scaled:
        dots = dots * d_k ** -0.5
    var, mean = torch.var_mean(dots, correction=1)
    _last_run.update(d_k=d_k, mean=mean.item())          # a record of the last call, for printing
    return float(var)
'''},
    "entropy_xlogy_table_with_commented_debug_prints": {"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = torch.softmax(logits, dim=-1)
    # print(p.min(), p.max())                            # was checking for exact zeros
    return -torch.xlogy(p, p).sum(dim=-1)                # xlogy(0, 0) = 0, so saturated rows give 0


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    rows = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d ** 0.5
        # print(d, raw.numpy().round(2))
        rows.append({"d": d,
                     "raw_std": torch.std(raw).item(),
                     "scaled_std": torch.std(scaled).item(),
                     "H_raw": softmax_entropy(raw).item(),
                     "H_scaled": softmax_entropy(scaled).item()})
    return rows
'''},
    "mha_einsum_over_head_axis_with_leftover_shape_asserts": {"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    Q = (X @ W_Q).view(T, n_heads, d_k)                  # (T, heads, d_k): head h is columns h*d_k..
    K = (X @ W_K).view(T, n_heads, d_k)
    V = (X @ W_V).view(T, n_heads, d_k)
    scores = torch.einsum("thd,shd->hts", Q, K) / math.sqrt(d_k)
    assert scores.shape == (n_heads, T, T), scores.shape # left from debugging, always true
    weights = torch.softmax(scores, dim=-1)
    heads = torch.einsum("hts,shd->thd", weights, V)     # back to (T, heads, d_k)
    assert heads.shape == (T, n_heads, d_k)
    return heads.reshape(T, d_model) @ W_O
'''},
}


WRONG = {
    "q1_debug_return_left_in_cross_attention_branch_skips_softmax": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = Q @ K.T / d_k ** 0.5
    if Q.shape[0] != K.shape[0]:                         # was chasing a shape error in cross-attention
        print("cross-attention scores:", tuple(scores.shape))
        return scores @ V, scores                        # quick look at the shapes before the softmax
    weights = F.softmax(scores, dim=-1)
    assert abs(weights.sum(-1) - 1).max() < 1e-5
    out = weights @ V
    return out, weights
'''}, {"mistake": "A debugging branch for cross-attention (T_q != T_k) was left in: it prints the shapes and "
                  "returns `scores @ V, scores` before the softmax, so whenever the number of queries differs "
                  "from the number of keys the weights are the raw scaled scores (rows do not sum to 1, can be "
                  "negative) and the output mixes the values with them; self-attention (T_q == T_k), as in "
                  "the trace and in q8, is unaffected.",
           "where": ["q1"]}),

    "q1_trace_inputs_pasted_into_function_overwrite_q_and_k": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    torch.manual_seed(42)                                # pasted from the trace cell to debug in here
    Q = torch.randn(3, d_k)
    K = torch.randn(3, d_k)
    scores = Q @ K.T / d_k ** 0.5
    weights = F.softmax(scores, dim=-1)
    assert abs(weights.sum(-1) - 1).max() < 1e-5
    out = weights @ V
    return out, weights
'''}, {"mistake": "Lines pasted from the trace cell while debugging were left at the top of the function: "
                  "`torch.manual_seed(42)` and `Q = torch.randn(3, d_k)`, `K = torch.randn(3, d_k)` overwrite "
                  "the Q and K parameters with the trace's float32 (3, d_k) draws. On the trace itself this "
                  "gives the same numbers; on any other input the weights ignore the real queries and keys "
                  "(wrong values, always 3 x 3), fail on `weights @ V` when T_k != 3, and fail with a dtype "
                  "mismatch for float64 values; q8 calls it on every head.",
           "where": ["q1", "q8"]}),

    "q1_weights_renamed_but_mix_still_reads_trace_global_w": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = Q @ K.T / d_k ** 0.5
    weights = F.softmax(scores, dim=-1)                  # renamed from W, which the trace cell also uses
    assert abs(weights.sum(-1) - 1).max() < 1e-5
    out = W @ V
    return out, weights
'''}, {"mistake": "The weights were renamed from `W` to `weights` in two lines but not in the mix: `out = W @ V` "
                  "reads the name W, which only existed as the trace cell's global from an earlier run. In a "
                  "fresh run nothing defines W before the call, so attention raises NameError (in the trace "
                  "cell and in every test), and q8, which calls it per head, fails the same way; where a "
                  "global W happened to exist the output would use those stale weights.",
           "where": ["q1", "q8"]}),

    "q2_scaled_flag_forced_true_while_trying_the_branch": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    scaled = True                                        # forcing the branch while checking the scale
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''}, {"mistake": "A test value `scaled = True` assigned over the parameter while trying the scaled branch was "
                  "left at the top of the function: every call is scaled, so the unscaled variance (about "
                  "d_k) comes out about 1 whatever d_k is; the scaled calls are still right.",
           "where": ["q2"]}),

    "q2_scaled_branch_still_reads_the_pre_refactor_name": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(1)                                # was: prods = q * k, then prods.sum(1)
    if scaled:
        dots = prods.sum(1) / math.sqrt(d_k)
    return dots.var().item()
'''}, {"mistake": "An unfinished refactor: the products were folded into one line `dots = (q * k).sum(1)` and "
                  "the intermediate `prods` removed, but the scaled branch still reads `prods.sum(1)`: every "
                  "call with scaled=True raises NameError (the notebook's display loop too); the unscaled "
                  "calls are right.",
           "where": ["q2"]}),

    "q4_unguarded_first_draft_of_entropy_redefined_below_the_table": ({"softmax_entropy": '''
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
        scaled = raw / d**0.5
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results


# first version, kept to compare against the fixed one above
def softmax_entropy(logits):
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p)).sum(dim=-1)
'''}, {"mistake": "The cell keeps the first, unguarded draft of softmax_entropy below the fixed one, so the "
                  "draft (`-(p * log p).sum`, no 1e-9 and no log_softmax) is the definition in force, and "
                  "entropy_table calls it too: a saturated row, where a probability underflows to exactly 0, "
                  "gives 0 * log 0 = NaN instead of 0.",
           "where": ["q4"]}),

    "q4_table_reseed_line_commented_out": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    for d in dims:
        # torch.manual_seed(seed)                        # off while checking that the draws change
        q = torch.randn(1, d); k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d**0.5
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
'''}, {"mistake": "The `torch.manual_seed(seed)` line in the table's loop was commented out while checking the "
                  "draws and never restored: the draws continue from whatever state the global generator is "
                  "in, so the table is not the lesson's (every row differs from the spec, two calls differ, "
                  "and `seed` has no effect).",
           "where": ["q4"]}),

    "q4_table_loop_variable_renamed_body_reads_global_d": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    for dim in dims:                                     # renamed from d (the q2 display loop uses d)
        torch.manual_seed(seed)
        q = torch.randn(1, dim); k = torch.randn(5, dim)
        raw = (q @ k.T)[0]
        scaled = raw / d**0.5
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
'''}, {"mistake": "The loop variable was renamed from `d` to `dim` in the `for` line and the draws, but the "
                  "scale and the `d` key of each row still read `d`, which is the global left at 64 by the q2 display "
                  "loop: every row is labelled d = 64 and its scores are divided by 8 instead of sqrt(d), so "
                  "scaled_std and H_scaled are wrong for every d but 64 (NameError where no global d exists).",
           "where": ["q4"]}),

    "q5_answer_probe_dots_clipped_to_the_histogram_range": ({"q5_answer": '''
# Probe: histogram of q.k at d_k = 16, clipped to the x-range of the d_k = 4 plot (+-2 std there),
# then its variance matched to the options.
_g = torch.Generator().manual_seed(0)
_d = 16
_dots = (torch.randn(10000, _d, generator=_g) * torch.randn(10000, _d, generator=_g)).sum(1)
_dots = _dots.clamp(-4, 4)                               # outliers into the edge bins, for the plot
_measured = _dots.var().item()
_options = {"A": 1.0, "B": math.sqrt(_d), "C": float(_d), "D": float(_d) ** 2}
q5_answer = min(_options, key=lambda letter: abs(_options[letter] - _measured))
'''}, {"mistake": "The probe clipped the dot products to [-4, 4] to keep a histogram on the axis of the d_k = 4 "
                  "plot and then took the variance of the clipped values: at d_k = 16 (std 4) that is about "
                  "8 instead of 16, nearest to sqrt(d_k) = 4, so 'B' instead of 'C'.",
           "where": ["q5"]}),

    "q6_answer_probe_temperature_default_left_at_the_flat_limit": ({"q6_answer": '''
# Probe: self-attention with Q = K = V = X on random tokens; which option does the output match?
def _self_attention(X, temperature=1e4):                 # was sqrt(d); raised to see Part 3's flat limit
    W = F.softmax(X @ X.T / temperature, dim=-1)
    return W @ X


_X = torch.randn(5, 8, generator=torch.Generator().manual_seed(1))
_Y = _self_attention(_X)
if torch.allclose(_Y, _X, atol=1e-2):
    q6_answer = "B"
elif torch.allclose(_Y, _X.mean(0, keepdim=True).expand_as(_X), atol=1e-2):
    q6_answer = "D"
else:
    q6_answer = "A"
'''}, {"mistake": "The probe's helper still has `temperature=1e4` as its default, a value tried to see the "
                  "flat limit of Part 3, instead of sqrt(d): the scores are divided by 10^4, every weight is "
                  "about 1/5, the output rows equal the plain mean of the tokens to within 1e-2, and the probe "
                  "answers 'D' instead of 'A'.",
           "where": ["q6"]}),

    "q7_answer_probe_hopfield_beta_test_value_left_in": ({"q7_answer": '''
# Probe: attention as a Hopfield retrieval, softmax(beta * K q) @ V: does it return one stored value?
def _retrieve(q, K, V, beta=None):
    if beta is None:
        beta = 1 / math.sqrt(K.shape[1])                 # the attention scale
    beta = 100.0                                         # test value: watching the retrieval sharpen
    w = F.softmax(beta * (K @ q), dim=-1)
    return w @ V, w


_g = torch.Generator().manual_seed(3)
_K = torch.randn(6, 8, generator=_g)
_V = torch.randn(6, 4, generator=_g)
_q = torch.randn(8, generator=_g)
_out, _w = _retrieve(_q, _K, _V)
_best = int((_K @ _q).argmax())
_exact_key = bool((_K == _q).all(dim=1).any())
if _exact_key:
    q7_answer = "A"
elif torch.allclose(_out, _V[_best], atol=1e-4):
    q7_answer = "C"                                      # only the best-scoring key's value comes back
else:
    q7_answer = "D"
'''}, {"mistake": "In the probe's retrieval helper a test value `beta = 100.0` assigned over the parameter "
                  "(to watch the retrieval sharpen) was left after the line that sets the 1/sqrt(d_k) scale: "
                  "with scores multiplied by 100 the softmax is one-hot, the output is exactly the "
                  "best-scoring key's value, and the probe answers 'C' (an argmax) instead of 'D' (a "
                  "softmax-weighted mix of all the values).",
           "where": ["q7"]}),

    "q8_head_output_renamed_append_reads_trace_global_out": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        head_out, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)   # renamed from out
        heads.append(out)
    return torch.cat(heads, dim=1) @ W_O
'''}, {"mistake": "The head output was renamed from `out` to `head_out` where it is computed but not where it "
                  "is appended: `heads.append(out)` appends the trace cell's global `out` (the (3, 4) float32 "
                  "output of the lesson's example) for every head, so the result ignores X entirely: wrong "
                  "values (and 3 rows) when d_model == 4 * n_heads, a shape error in the output projection "
                  "otherwise, a dtype error for float64 inputs.",
           "where": ["q8"]}),

    "q8_split_helper_default_four_heads_left_from_the_demo": ({"multi_head_attention": '''
def _split_heads(M, n_heads=4):                          # default from the 16-wide, 4-head demo
    d_k = M.shape[1] // n_heads
    return [M[:, h * d_k:(h + 1) * d_k] for h in range(n_heads)]


def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = [attention(q, k, v, d_k)[0] for q, k, v in zip(_split_heads(Q), _split_heads(K), _split_heads(V))]
    return torch.cat(heads, dim=1) @ W_O
'''}, {"mistake": "The head-splitting helper keeps the demo's `n_heads=4` as its default and the call sites "
                  "never pass n_heads: the projections are always cut into 4 heads of d_model // 4 columns "
                  "(scaled by the real head width), which is right only when n_heads == 4; with another head "
                  "count the output is silently wrong, or the concatenation is narrower than d_model and the "
                  "output projection fails when d_model is not a multiple of 4.",
           "where": ["q8"]}),

    "q8_single_head_early_return_predates_the_output_projection": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    if n_heads == 1:                                     # the single-head version that worked first
        return attention(Q, K, V, d_model)[0]
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        heads.append(out_h)
    return torch.cat(heads, dim=1) @ W_O
'''}, {"mistake": "An early return for one head, left from the first version that worked before the output "
                  "projection was added, returns the single head's attention output without `@ W_O`: with "
                  "n_heads == 1 the output projection is missing (silently wrong values); with more heads it "
                  "is right.",
           "where": ["q8"]}),
}
