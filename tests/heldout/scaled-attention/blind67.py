"""Sixty-seventh blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, `assignments/scaled-attention/hidden/`, `reference/`, `autograder/`,
`variants.py`, `measure.py`, `mutants.py`, the naming tests, `README.md`'s feedback section or `docs/`. What
was read: the assignment notebook (its text, question statements and stub cells), the solution cells of
`examples/submissions/scaled-attention/full_marks.ipynb` (q1: a 2-D `attention` written `Q @ K.T / d_k ** 0.5`
with a row-sum assert; the trace cell, which defines the globals `d_k = 4`, `Q`, `K`, `V`, `out`, `W`; q2: two
`randn` draws from the generator, `(q * k).sum(1)`, `.var().item()`, then a demo cell defining `gen` and leaving
the loop variable `d = 64`; q4: `softmax_entropy` with `+ 1e-9` inside the log and `entropy_table` in the same
cell, then a display loop leaving `row` (the d = 256 row); q5..q7 one letter each; q8 a loop over the heads
calling the 2-D `attention` on column slices of the projections), `tests/heldout/harness.py`, blind66.py in
full for the format, and only the variant NAMES of the earlier blind*.py sets, so that their mistakes are not
repeated in the same form. The grader was not run on this set.

Focus of the round: THE GLUE BETWEEN PARTS. Every function in a wrong variant is right on its own; what is
wrong is how it is called or wired: in q1, `F.normalize(exps, -1)` where -1 lands in the norm order p (not dim),
a normalising division written as a bare expression whose result is thrown away, and a softmax helper whose
`temperature` parameter is left at its default 1.0 so sqrt(d_k) is never applied (all three carry into q8,
which calls `attention`); in q2, a sampling helper whose own `scaled=False` flag is never forwarded, and a helper
declared `(n, d, generator)` but called in the outer signature's order `(d_k, n_samples, generator)`; in q4, a
table drawing from the q2 demo's global `gen` so `torch.manual_seed(seed)` no longer governs the draws, a
`temperature` argument passed to an entropy function that accepts and ignores it (so H_scaled is H_raw), and a
row helper called without forwarding `seed` (its default 0 is used); in q5, a probe reading the display loop's
leftover `row` (a ratio of stds, sqrt(d), read as the variance growth: 'B') and a probe measuring at the trace's
`d_k` = 4 but building the options from the demo loop's `d` = 64 ('A'); in q6, a letters dict read under the
'q5' key after copying the q5 cell ('C'); in q7, a probe that copies the trace's call `attention(..., d_k)` onto
4096-wide vectors, so the global d_k = 4 makes the weights one-hot ('C'); in q8, heads re-implemented inline
instead of calling `attention`, differing by the missing 1/sqrt(d_k), and the projected result assigned to a
local and never returned (None). Spread: q1 x3, q2 x2, q4 x3, q5 x2, q6 x1, q7 x1, q8 x2 (q3 is a hand-graded
markdown answer with no code cell to replace). Mix: crashes downstream (q8's None), silently wrong values (q1's
p = -1 norm, the dropped division, the unscaled helper, q2's unforwarded flag and swapped helper arguments, the
three q4 wirings, q8's unscaled inline heads), NaN (the swapped helper at d_k = 1), seed / reproducibility
(q4's global generator, the unforwarded seed), and four letters from probes wired to the wrong notebook variable.
The five correct variants do the same wiring right: a score helper called with keywords (`torch.mm`,
`.t()`, `div(math.sqrt(width))`, `torch.softmax(dim=1)`), a sampling helper receiving every argument by keyword
(`linalg.vecdot`, `d_k ** -0.5`, `torch.var(correction=1)`, `float`), a `special.entr` entropy with a row helper
that is passed `seed=seed` (scores as `torch.mv(k, q[0])`), multi-head attention calling `attention(Q=..., K=...,
V=..., d_k=...)` on `tensor_split` heads joined with `hstack`, and q7's letter looked up in a dict by its meaning.

Public material used (nothing copied verbatim): for q1's positional `F.normalize`: pytorch/pytorch PR #1467 (the
signature `normalize(input, p, dim)`, with p before dim and the reviewers' discussion of the order and defaults)
and ronghuaiyang/arcface-pytorch issue #30 (`F.normalize(self.weight)` vs `F.normalize(self.weight, dim=0)`:
which axis the positional defaults pick); for the dropped division: the d2l-style notes in
JOETONGJY/Create-your-first-neural-network (`Y = X + Y` makes a new tensor; only `Y[:] = ...` or `+=` update in
place) and acturtle/cashflower issue #177 (results computed but not kept "of course weird"); for the temperature
left at its default (q1) and the unforwarded flags / seed (q2, q4): mlc-ai/mlc-llm PR #3426 (a fallback path
called the attention kernel with `sm_scale=1.0`, the default, instead of 1/sqrt(head_dim), making the softmax
"overly peaked"), google/clusterfuzz PR #4407 and CDCgov/PyRenew issue #146 (defaults silently standing in for a
caller's value); for the accepted-but-ignored temperature in q4: chainer/chainerrl issue #227
("SoftmaxDistribution: argument beta is not used") and jeromerony/dml_cross_entropy issue #1 ("the temperature
is not used"); for q2's swapped helper arguments: nasa/ogma issue #419 ("Calls to internal function provide
arguments in wrong order"), Cyan4973/FiniteStateEntropy issue #82 (declaration and body disagree on the order of
two same-typed arguments) and celery/celery PR #939; for q4's global generator: pytorch/pytorch issues #11340 and
#17079 (a `torch.Generator` is separate from the global seed `manual_seed` sets) and Birch-san/sdxl-play issue #1
(manual_seed vs an explicit generator); for the notebook globals read by q5's and q7's probes: the "Globals Are
Bad" notes (kiwidamien.github.io, "Jupyter's use for quick experimentation encourages the use of global
variables ... subtle, hard to debug problems") and hendrikwulf.github.io's sds210 "Managing scope" page (a
function silently reading a notebook global), with omihub777/ViT-CIFAR PR #11 for what the wrong d_k does to the
softmax (over-scaled scores, overly peaked weights); for q6's copied cell: jongough/ocpn_draw_pi PR #292 ("Likely
unchanged variable name after copy and paste"), MicrosoftDocs/CommunityToolkit PR #305 and Dolibarr PR #8199;
for q8's inline heads without the scale: PAIR-code/tiny-transformers issue #71 ("we are not dividing the raw
attention by the square root of dimension") and delzac/cntkx issue #10 ("ScaledDotProductAttention doesn't apply
C.sqrt?"); for q8's missing return: AmpereComputingAI/ampere_model_library PR #206 ("Lack of the `return`
keyword was making wrappers ... fail, because they were receiving `None`") and Hjorthmedh/Snudda PR #117.

How the variants were checked: each variant's notebook (full_marks.ipynb with the cell replaced, built with
harness.build_notebook) was run top to bottom, every code cell but otter's init and the `grader.check` cells,
with a throwaway script under /tmp/w67-scaled-attention/ (no cell errors in any variant). Its functions were then
compared with plain torch: `attention` with a float64 `softmax(Q K^T / sqrt(d_k)) V` (itself checked against
`F.scaled_dot_product_attention`) on (T_q, T_k, d_k, d_v) = (3, 3, 4, 4), (2, 5, 3, 6), (5, 2, 7, 3), (1, 4, 5,
2), (4, 1, 5, 2), (4, 4, 6, 6), (6, 6, 10, 4), (2, 3, 12, 12) in float64 and float32 (dtype, shape, values,
inputs left unchanged) and, for information, float16 / bfloat16 at 2e-2 / 3e-2 (the correct variant matches
there too; full_marks' own row-sum assert at 1e-5 can trip in half precision); `dot_product_variance` at d_k 1,
3, 5, 8, 16, 64, 200, scaled and not, three seeds each, within 10% of d_k or 1, a Python float, the same for two
generators seeded alike; `softmax_entropy` against a float64 `log_softmax` entropy on (7,), (3, 5), (2, 3, 7),
(4, 1) in float32 and float64 and on the saturated rows [0, 0, 500, 0] and [-1000, 0, 0, 0]; `entropy_table`
against the spec recomputed at its defaults, (8, 32, 100) seed 0, (3, 5, 7, 50, 200) seed 1 and (1, 2, 4) seed 3,
after reseeding the global generator to another value; the letters against C / A / D; and
`multi_head_attention` against a float64 loop over the heads (itself checked against `torch.nn.MultiheadAttention`
without biases loaded with the transposed weights) on (T, d_model, n_heads) = (3, 8, 2), (4, 16, 4), (5, 12, 3),
(1, 6, 2), (7, 8, 1), (3, 4, 1), (4, 6, 3), (12, 12, 3), (2, 6, 6) in float64 and float32. The five correct
variants matched everywhere. Every wrong variant differs, and only in the questions in its "where": the three q1
wirings on every shape (and so in q8); q2's unforwarded flag in the scaled branch only, its swapped helper
everywhere (NaN at d_k = 1); q4's global generator and ignored temperature at every call of the table (its
entropy function right), the unforwarded seed only for seeds other than 0; the probes give 'B', 'A', 'C' and 'C'
and, rewired (ratio squared, or measuring at `d`; the right key; d_k = 4096), give 'C', 'C', 'A' and 'D' (the
right d_k leaves the largest weight at 0.47); q8's inline heads wherever a head is wider than 1, its missing
return everywhere."""

CORRECT = {
    "attention_keyword_wired_score_helper_mm_softmax_dim1": {"attention": '''
def _scaled_scores(queries, keys, width):
    """All query-key dot products divided by sqrt(width): (T_q, T_k)."""
    return torch.mm(queries, keys.t()).div(math.sqrt(width))


def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = _scaled_scores(queries=Q, keys=K, width=d_k)
    weights = torch.softmax(scores, dim=1)
    return torch.mm(weights, V), weights
'''},
    "variance_helper_forwards_every_argument_by_keyword_vecdot_var_correction": {"dot_product_variance": '''
def _sample_dots(d_k, n_samples, generator, scaled):
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = torch.linalg.vecdot(q, k, dim=-1)
    return dots * d_k ** -0.5 if scaled else dots


def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    dots = _sample_dots(d_k=d_k, n_samples=n_samples, generator=generator, scaled=scaled)
    return float(torch.var(dots, correction=1))
'''},
    "entropy_special_entr_table_row_helper_seed_forwarded": {"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    return torch.special.entr(torch.softmax(logits, dim=-1)).sum(dim=-1)


def _table_row(d, seed):
    torch.manual_seed(seed)
    q = torch.randn(1, d)
    k = torch.randn(5, d)
    raw = torch.mv(k, q[0])                    # the same 5 scores as (q @ k.T)[0]
    scaled = raw / math.sqrt(d)
    return {"d": d, "raw_std": torch.std(raw).item(), "scaled_std": torch.std(scaled).item(),
            "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()}


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    return [_table_row(d, seed=seed) for d in dims]
'''},
    "mha_tensor_split_heads_keyword_call_hstack": {"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[-1]
    head_width = d_model // n_heads
    splits = [torch.tensor_split(X @ W, n_heads, dim=1) for W in (W_Q, W_K, W_V)]
    heads = []
    for q_h, k_h, v_h in zip(*splits):
        out_h, _weights_h = attention(Q=q_h, K=k_h, V=v_h, d_k=head_width)
        heads.append(out_h)
    return torch.hstack(heads) @ W_O
'''},
    "q7_answer_looked_up_from_a_keyed_dict": {"q7_answer": '''
_q7_options = {"exact match": "A", "sorted keys": "B", "argmax only": "C", "soft weighted mix": "D"}
q7_answer = _q7_options["soft weighted mix"]
'''},
}


WRONG = {
    "q1_normalize_dim_passed_positionally_lands_in_p": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = Q @ K.T / math.sqrt(d_k)
    exps = torch.exp(scores - scores.amax(dim=-1, keepdim=True))
    weights = F.normalize(exps, -1)          # meant: normalise over the last dim
    out = weights @ V
    return out, weights
'''}, {"mistake": "The exponentials are normalised with `F.normalize(exps, -1)`, meaning 'normalise along the "
                  "last dimension'; but the second positional parameter of F.normalize is the norm order p, not "
                  "dim, so this divides each row by its 'p = -1 norm' (dim keeps its default 1) instead of by "
                  "its sum: the weight rows do not sum to 1 and the output is mixed with the wrong weights. "
                  "Multi-head attention, which calls attention, is wrong too.",
           "where": ["q1", "q8"]}),

    "q1_normalising_division_left_as_bare_expression_result_dropped": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = Q @ K.T / d_k ** 0.5
    weights = torch.exp(scores - scores.max(dim=-1, keepdim=True).values)
    weights / weights.sum(dim=-1, keepdim=True)          # normalise the rows
    out = weights @ V
    return out, weights
'''}, {"mistake": "The row normalisation of the hand-written softmax is written as a bare expression, "
                  "`weights / weights.sum(dim=-1, keepdim=True)`, whose result is thrown away (it is neither "
                  "assigned nor done in place), so the weights stay the shifted exponentials: the largest entry "
                  "of each row is 1, the rows do not sum to 1, and the output is scaled up accordingly; "
                  "multi-head attention inherits it.",
           "where": ["q1", "q8"]}),

    "q1_softmax_helper_temperature_left_at_default_one": ({"attention": '''
def softmax_rows(scores, temperature=1.0):
    """Row-wise softmax of scores / temperature."""
    return F.softmax(scores / temperature, dim=-1)


def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = Q @ K.T
    weights = softmax_rows(scores)            # the helper divides by the temperature
    out = weights @ V
    return out, weights
'''}, {"mistake": "The scaling is left to a softmax helper that divides the scores by a `temperature` "
                  "parameter, but attention calls `softmax_rows(scores)` without passing `temperature="
                  "math.sqrt(d_k)`, so the default 1.0 is used and the scores are never divided by sqrt(d_k): "
                  "the weights are the unscaled softmax (too sharp) and the output follows; multi-head "
                  "attention inherits it.",
           "where": ["q1", "q8"]}),

    "q2_scaled_flag_not_forwarded_to_sampling_helper": ({"dot_product_variance": '''
def sample_dots(d_k, n_samples, generator, scaled=False):
    """n_samples dot products q.k (divided by sqrt(d_k) when scaled=True)."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(dim=1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots


def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    dots = sample_dots(d_k, n_samples, generator)
    return dots.var().item()
'''}, {"mistake": "The sampling is moved into a helper that takes its own `scaled=False` flag, but "
                  "dot_product_variance calls `sample_dots(d_k, n_samples, generator)` without passing "
                  "`scaled`, so the helper's default is always used: with scaled=True the function still "
                  "returns the unscaled variance (about d_k instead of about 1). The unscaled case is right.",
           "where": ["q2"]}),

    "q2_sampling_helper_called_with_d_k_and_n_samples_swapped": ({"dot_product_variance": '''
def pair_dots(n, d, generator):
    """n independent dot products of two d-dimensional standard normal vectors."""
    q = torch.randn(n, d, generator=generator)
    k = torch.randn(n, d, generator=generator)
    return (q * k).sum(dim=1)


def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    dots = pair_dots(d_k, n_samples, generator)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''}, {"mistake": "The helper is declared `pair_dots(n, d, generator)` (count first) but called as "
                  "`pair_dots(d_k, n_samples, generator)` in the order of the outer signature, so it draws d_k "
                  "pairs of n_samples-dimensional vectors: the variance is taken over only d_k dot products, "
                  "each with variance n_samples, giving rough estimates of n_samples (of n_samples / d_k "
                  "when scaled; NaN for d_k = 1) instead of about d_k and about 1.",
           "where": ["q2"]}),

    "q4_table_draws_from_the_q2_demo_generator_gen": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d, generator=gen)
        k = torch.randn(5, d, generator=gen)
        raw = (q @ k.T)[0]
        scaled = raw / d ** 0.5
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
'''}, {"mistake": "The table's draws pass `generator=gen`, the torch.Generator the q2 demo cell created, so "
                  "`torch.manual_seed(seed)` no longer affects them: q and k come from the demo generator's "
                  "current state (a different stream, and a different one on every call) instead of the "
                  "global generator reseeded with `seed` for every d, so the stds and entropies are not the "
                  "specified ones and the table is not reproducible. softmax_entropy itself is right.",
           "where": ["q4"]}),

    "q4_table_passes_scale_as_temperature_that_entropy_ignores": ({"softmax_entropy": '''
def softmax_entropy(logits, temperature=1.0):
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
                        "H_raw": softmax_entropy(raw).item(),
                        "H_scaled": softmax_entropy(raw, temperature=d**0.5).item()})
    return results
'''}, {"mistake": "softmax_entropy accepts a `temperature` argument that it never uses, and the table gets "
                  "its scaled entropy as `softmax_entropy(raw, temperature=d**0.5)` instead of "
                  "`softmax_entropy(scaled)`: the temperature is silently ignored, so H_scaled is the entropy "
                  "of the raw scores (equal to H_raw, about 0 at d = 256 instead of 1.065). The stds and the "
                  "entropy of a single tensor are right.",
           "where": ["q4"]}),

    "q4_table_row_helper_called_without_seed_uses_default_zero": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)


def table_row(d, seed=0):
    """The lesson's experiment for one width d."""
    torch.manual_seed(seed)
    q = torch.randn(1, d); k = torch.randn(5, d)
    raw = (q @ k.T)[0]
    scaled = raw / d**0.5
    return {"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
            "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()}


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    return [table_row(d) for d in dims]
'''}, {"mistake": "The per-width work is moved into `table_row(d, seed=0)`, but entropy_table calls "
                  "`table_row(d)` without forwarding its own `seed`, so every row is drawn after "
                  "`torch.manual_seed(0)`: right with the default seed, but for any other seed the table "
                  "still shows seed 0's draws.",
           "where": ["q4"]}),

    "q5_answer_from_the_tables_std_ratio_read_as_variance": ({"q5_answer": '''
# The table above (its last row, d = 256): raw scores are wider than the scaled ones by this factor
growth = row["raw_std"] / row["scaled_std"]
options = {"A": 1.0, "B": math.sqrt(row["d"]), "C": float(row["d"]), "D": float(row["d"]) ** 2}
q5_answer = min(options, key=lambda letter: abs(options[letter] - growth))
'''}, {"mistake": "The answer is read off the entropy table's last row (the display loop's leftover `row`, "
                  "d = 256): the ratio raw_std / scaled_std is exactly sqrt(d), and it is matched against the "
                  "options as if it were the growth of the variance, giving 'B' (sqrt(d_k)); a ratio of "
                  "standard deviations is the square root of the variance ratio, which is d_k ('C').",
           "where": ["q5"]}),

    "q5_answer_probe_at_trace_d_k_against_options_from_demo_loop_d": ({"q5_answer": '''
# Measure Var(q.k) and see which option it is closest to
measured = dot_product_variance(d_k, 10000, torch.Generator().manual_seed(5))
options = {"A": 1.0, "B": d ** 0.5, "C": float(d), "D": float(d) ** 2}
q5_answer = min(options, key=lambda letter: abs(options[letter] - measured))
'''}, {"mistake": "The probe mixes two notebook globals: it measures the variance at `d_k` (the trace cell's "
                  "4, about 4.0) but builds the options from `d` (left at 64 by the q2 demo loop: 1, 8, 64, "
                  "4096), so the measurement is nearest to 1 and the answer is 'A' instead of 'C'.",
           "where": ["q5"]}),

    "q6_answer_read_from_the_letters_dict_under_q5_key": ({"q6_answer": '''
my_letters = {"q5": "C", "q6": "A", "q7": "D"}      # worked out on paper
q6_answer = my_letters["q5"]
'''}, {"mistake": "The letters are kept in one dict keyed by question, but the q6 cell (copied from the q5 "
                  "cell) still reads the 'q5' key, so q6_answer is 'C' (q5's letter) instead of 'A'.",
           "where": ["q6"]}),

    "q7_answer_probe_calls_attention_with_trace_global_d_k": ({"q7_answer": '''
# Is attention a hard lookup? If (almost) all the weight lands on one key it behaves like an argmax.
torch.manual_seed(7)
probe_keys = torch.randn(6, 4096)
probe_values = torch.randn(6, 3)
probe_query = torch.randn(1, 4096)
_, probe_weights = attention(probe_query, probe_keys, probe_values, d_k)
q7_answer = "C" if probe_weights.max().item() > 0.9 else "D"
'''}, {"mistake": "The probe copies the trace cell's call `attention(..., d_k)` onto 4096-wide vectors, so "
                  "the global `d_k` (4) is used instead of 4096: the scores are divided by 2 instead of 64, "
                  "one key takes more than 90% of the weight (all of it, here), and the probe concludes 'C' (an argmax with no "
                  "useful gradient) instead of 'D'.",
           "where": ["q7"]}),

    "q8_heads_reimplemented_inline_without_the_scale": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        q, k, v = Q[:, cols], K[:, cols], V[:, cols]
        weights = F.softmax(q @ k.T, dim=-1)
        heads.append(weights @ v)
    return torch.cat(heads, dim=1) @ W_O
'''}, {"mistake": "Instead of calling the q1 `attention`, each head re-implements it inline and leaves out "
                  "the division by sqrt(d_k): the head weights are the softmax of the unscaled scores, so the "
                  "output differs from multi-head attention (and from nn.MultiheadAttention) whenever "
                  "sqrt(d_k) != 1.",
           "where": ["q8"]}),

    "q8_projected_result_assigned_but_never_returned": ({"multi_head_attention": '''
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
    output = torch.cat(heads, dim=1) @ W_O
'''}, {"mistake": "The final `output = torch.cat(heads, dim=1) @ W_O` is computed and stored in a local "
                  "variable but never returned, so the function returns None for every input.",
           "where": ["q8"]}),
}
