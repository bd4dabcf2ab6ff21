"""Sixty-fourth blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, `assignments/scaled-attention/hidden/`, `reference/`, `autograder/`,
`variants.py`, `measure.py`, `mutants.py`, the naming tests, `README.md`'s feedback section or `docs/`. What
was read: the assignment notebook (its text, question statements and stub cells) and the solution cells of
`examples/submissions/scaled-attention/full_marks.ipynb` (q1: a 2-D `attention` written `Q @ K.T / d_k ** 0.5`
with a row-sum assert; q2: two `randn` draws from the generator, `(q * k).sum(1)`, `.var().item()`; q4:
`softmax_entropy` with `+ 1e-9` inside the log and `entropy_table` in the same cell; q5..q7 one letter each;
q8 a loop over the heads calling the 2-D `attention` on column slices, `X @ W` projections), `tests/heldout/
harness.py`, blind63.py in full for the format, the lesson texts in /work/shared/lessons/ (lesson 79's 3-token
trace, lesson 80's remark that d_k and d_v "are equal in single-head standard attention but differ in many
architectures"), and only the variant NAMES of the earlier blind*.py sets, so that their mistakes are not
repeated in the same form. The grader was not run on this set.

Focus of the round: CODE THAT FITS THE NOTEBOOK'S OWN EXAMPLE. Each wrong variant passes (or would pass) on
the shapes, dtypes and values the notebook shows -- the lesson's trace with Q, K and V all (3, 4), float32
everywhere, the default dims (4, 16, 64, 256) that are all perfect squares, 1-D score rows in the table --
and quietly relies on them: in q1, a loop over `range(3)` query rows (the trace has three tokens), a score
buffer sized (T, T) from the query count (T_q assumed equal to T_k), the output reshaped to `Q.shape`
(d_v assumed equal to d_k), and an input check that demands Q, K and V share one shape, as they do in the
trace; in q2, the lesson's scale 1/2 (d_k = 4) hard-coded for `scaled=True`; in q4, the row sum written as a
matmul with `torch.ones(T)` (default float32: float64 logits crash), the entropy reduced with keepdim and
then indexed `[0]` to get one number for the table's 1-D rows (a batch of rows returns only the first row's
entropy), the table's loop written `for i in range(4)` over the default dims, and the scale written
`raw / math.isqrt(d)`, exact for the perfect-square default dims only; q5 answered from the variance of the
nine scores the notebook's trace cell prints, which are already scaled (about 0.84, nearest 1: "A"); q6 from
a probe on one-hot tokens `5 * torch.eye(4)`, whose self-scores dwarf the others, so every output row is its
own token ("B"); q7 from a probe on the self-attention of random tokens, Q = K = X, where every query's
largest weight falls on the key equal to itself ("A"); and in q8, the head split written
`Q.chunk(d_k, dim=1)` (a number of chunks, not a width: right only when d_k == n_heads, as in a 16-wide,
4-head example) and a batched (1, heads, T, d_k) version whose bare `.squeeze()` also drops the head axis
when n_heads == 1 (and the token axis when T == 1), so the merge transposes the wrong axes. Spread: q1 x4,
q2 x1, q4 x4, q5 x1, q6 x1, q7 x1, q8 x2 (q3 is a hand-graded markdown answer with no code cell to replace).
Mix: crashes (q1 range(3) with T_q < 3, q1 square buffer, q1 reshape, q1 shape check, q4 float32 ones, q4
range(4) with fewer dims), wrong shapes (q1 range(3) with T_q > 3, q4 `[0]`), silently wrong values (q2, q4
isqrt, q4 range(4) with more dims, q8 chunk, q8 squeeze), a dtype slip (q4 ones), off-by-shape loop bounds
(q1, q4), wrong axis (q8 squeeze), and three written answers drawn from probes whose example makes the
wrong option look right. The five correct variants are general rewrites: broadcast `linalg.vecdot` scores
with a `tensordot` mix, a per-query row loop into `new_empty` buffers sized from both lengths (the general
form of the range(3) loop), `normal_(generator=...)` draws with an einsum and a hand-written Bessel
variance, a `special.entr` entropy with an `inner`-product table, and multi-head attention through
`unflatten` heads stacked back on axis 1.

Public material used (nothing copied verbatim): huggingface/transformers PR #48356 ("hidden_shape comes from
the query length ... the matmul fails whenever the encoder length differs"; "every suite stayed green
before because they only ever pass encoder states as long as the query") and hidet-org/hidet PR #275
(attention first required seq_len_q == seq_len_k) for q1's square score buffer; patrick-kidger/equinox
PR #38 (review: a `seq_length != seq_length2` check "will only be allowing for self-attention, and not
cross attention") for q1's shape check; lesson 80's d_k / d_v remark and SHI-Labs/NATTEN issue #25
(unexpected output shape when the query has another length) for q1's reshape; mead-ml/mead-baseline PR #703
("specify the squeeze axis, otherwise it'll break when batchsize or num_heads is 1"), NVIDIA/tacotron2
PR #303 and NVIDIA/DeepLearningExamples PR #765 (bare `squeeze` collapses a batch of one) for q8's squeeze;
pytorch/pytorch issues #9382 and #59983 and #11029 (`chunk` takes a number of chunks, `split` a chunk
size, and the two are confused) for q8's chunk; the "Expected object of scalar type Float but got Double /
mat1 and mat2 must have the same dtype" pages in the pages corpus (pythonjishu.com, duoke360.com: PyTorch's
default float32 constants meeting float64 data) for q4's `torch.ones`.

How the variants were checked: each variant's notebook (full_marks.ipynb with the cell replaced) was run top
to bottom, every code cell but otter's init and the `grader.check` cells, with a throwaway script under
/tmp/w64-scaled-attention/; its functions were then compared with plain torch: `attention` with
`softmax(Q K^T / sqrt(d_k)) V` and `F.scaled_dot_product_attention` on shapes with T_q < T_k, T_q > T_k,
T_q = 1, d_v != d_k and d_k not a perfect square, in float32 and float64 (dtype, shape, values at atol
1e-5), `dot_product_variance` at d_k 3, 5, 64, 200 within 10% of d_k and 1 and repeatable with the same
seed, `softmax_entropy` against a float64 `log_softmax` entropy on 1-D..3-D logits (saturated rows included)
in float32/float64, `entropy_table` against the spec recomputed at dims (4, 16, 64, 256), (8, 32, 100) and
(3, 5, 7, 50, 200), the letters against C / A / D, and `multi_head_attention` against the loop over heads
and against `torch.nn.MultiheadAttention` without biases (loaded with the transposed weights) on shapes
with n_heads 1, 2, 3, 4 and T 1, 3, 4, 5, 7 in float32/float64. The five correct variants matched everywhere
(the attention ones also keep float16/bfloat16 dtypes); every wrong variant differs, only in the questions
listed in its "where" (q1's range(3) also breaks q8 wherever T != 3; q8's squeeze only where n_heads == 1 or
T == 1; q8's chunk only where d_k != n_heads)."""

CORRECT = {
    "attention_broadcast_vecdot_scores_tensordot_mix": {"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    # every query against every key by broadcasting: (T_q, 1, d_k) . (1, T_k, d_k) -> (T_q, T_k)
    scores = torch.linalg.vecdot(Q.unsqueeze(1), K.unsqueeze(0)) / math.sqrt(d_k)
    weights = F.softmax(scores, dim=1)
    out = torch.tensordot(weights, V, dims=1)            # sum over the keys: (T_q, d_v)
    return out, weights
'''},
    "attention_row_loop_into_new_empty_buffers_sized_from_both_lengths": {"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    T_q, T_k, d_v = Q.shape[0], K.shape[0], V.shape[1]
    weights = Q.new_empty(T_q, T_k)                      # dtype and device of the inputs, any lengths
    out = Q.new_empty(T_q, d_v)
    scale = d_k ** -0.5
    for i in range(T_q):
        w = torch.softmax((K @ Q[i]) * scale, dim=0)     # one query against all T_k keys
        weights[i] = w
        out[i] = V.T @ w
    return out, weights
'''},
    "variance_normal_inplace_generator_einsum_hand_bessel": {"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.empty(n_samples, d_k).normal_(generator=generator)
    k = torch.empty(n_samples, d_k).normal_(generator=generator)
    dots = torch.einsum("nd,nd->n", q, k)
    if scaled:
        dots = dots / d_k ** 0.5
    centred = dots - dots.mean()
    return float(centred.pow(2).sum() / (n_samples - 1))   # unbiased, as torch.var
'''},
    "entropy_special_entr_table_inner_product_explicit_squeeze": {"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = torch.softmax(logits, dim=-1)
    return torch.special.entr(p).sum(dim=-1)             # entr(0) is defined as 0: no NaN when saturated


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    rows = []
    for d in list(dims):
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = torch.inner(k, q).squeeze(-1)              # (5, 1) -> (5,), only the named axis
        scaled = raw / math.sqrt(d)
        rows.append(dict(d=d, raw_std=torch.std(raw, correction=1).item(),
                         scaled_std=torch.std(scaled, correction=1).item(),
                         H_raw=softmax_entropy(raw).item(), H_scaled=softmax_entropy(scaled).item()))
    return rows
'''},
    "mha_unflatten_heads_stacked_on_axis_one_flattened": {"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    Qh, Kh, Vh = ((X @ W).unflatten(-1, (n_heads, d_k)) for W in (W_Q, W_K, W_V))   # (T, heads, d_k)
    outs = [attention(Qh[:, h], Kh[:, h], Vh[:, h], d_k)[0] for h in range(n_heads)]
    concat = torch.stack(outs, dim=1).flatten(1)         # (T, heads, d_k) -> (T, d_model), head 0 first
    return concat @ W_O
'''},
}


WRONG = {
    "q1_query_rows_looped_over_the_traces_three_tokens": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scale = 1.0 / math.sqrt(d_k)
    out_rows, weight_rows = [], []
    for i in range(3):                                   # one query row at a time (3 tokens)
        w = F.softmax((Q[i] @ K.T) * scale, dim=-1)
        weight_rows.append(w)
        out_rows.append(w @ V)
    return torch.stack(out_rows), torch.stack(weight_rows)
'''}, {"mistake": "The loop over the query rows is bounded by the literal 3, the number of tokens in the "
                  "lesson's trace, instead of T_q = Q.shape[0]: with more than 3 queries only the first 3 rows "
                  "of the output and weights are returned (wrong shapes), with fewer it fails with an index "
                  "error; q8 calls it on every head with T tokens.",
           "where": ["q1", "q8"]}),

    "q1_score_buffer_square_sized_from_query_count": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    T = Q.shape[0]                                       # number of tokens
    scores = Q.new_empty(T, T)
    for i in range(T):
        for j in range(T):
            scores[i, j] = Q[i] @ K[j]
    weights = F.softmax(scores / math.sqrt(d_k), dim=-1)
    return weights @ V, weights
'''}, {"mistake": "The score matrix is allocated (T, T) with T taken from the queries and both loops run to "
                  "T, i.e. it assumes T_q == T_k as in the trace (and in self-attention): with more keys than "
                  "queries the extra keys are never scored and `weights @ V` fails on the shapes, with fewer "
                  "keys `K[j]` is out of range.",
           "where": ["q1"]}),

    "q1_output_reshaped_to_the_queries_shape": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = Q @ K.T / math.sqrt(d_k)
    weights = torch.softmax(scores, dim=-1)
    out = (weights @ V).reshape(Q.shape)                 # one output row per query, like the queries
    return out, weights
'''}, {"mistake": "The output is reshaped to `Q.shape`, (T_q, d_k), which assumes the values are as wide as "
                  "the queries (d_v == d_k, true in the trace where Q, K and V are all (3, 4)): whenever "
                  "d_v != d_k the reshape fails because the sizes do not match.",
           "where": ["q1"]}),

    "q1_input_check_requires_q_k_v_to_share_the_traces_shape": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    if not (Q.shape == K.shape == V.shape):
        raise ValueError(f"Q, K and V must have the same shape, got {Q.shape}, {K.shape}, {V.shape}")
    weights = F.softmax(Q @ K.T / d_k ** 0.5, dim=-1)
    return weights @ V, weights
'''}, {"mistake": "A defensive input check demands that Q, K and V all have the same shape, as they do in "
                  "the lesson's trace (all (3, 4)) and in self-attention; the question allows T_q != T_k and "
                  "d_v != d_k, and on every such input the function raises a ValueError.",
           "where": ["q1"]}),

    "q2_scaled_branch_uses_the_lessons_half_for_d_k_four": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(1)
    if scaled:
        dots = dots * 0.5                                # the scale 1/sqrt(d_k) = 1/2
    return dots.var().item()
'''}, {"mistake": "The scaled branch multiplies by the constant 0.5, the lesson's scale for its d_k = 4, "
                  "instead of dividing by sqrt(d_k): the scaled variance is d_k / 4, right only at d_k = 4 "
                  "(about 16 at d_k = 64, 1.25 at d_k = 5).",
           "where": ["q2"]}),

    "q4_entropy_row_sum_as_matmul_with_default_float32_ones": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    terms = -(p * torch.log(p + 1e-9))
    return terms @ torch.ones(logits.shape[-1])          # sum over the last axis as one matmul


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
'''}, {"mistake": "The row sum is written as a matmul with `torch.ones(T)`, created without a dtype, so it "
                  "is float32: it works on the table's float32 scores but float64 logits fail with a dtype "
                  "mismatch in the matmul (and other dtypes, e.g. float16, fail the same way).",
           "where": ["q4"]}),

    "q4_entropy_keepdim_then_first_element_for_one_row": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    H = -(p * torch.log(p + 1e-9)).sum(dim=-1, keepdim=True)
    return H[0]                                          # the row's entropy as one number


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
'''}, {"mistake": "The entropy is summed with keepdim=True and then indexed `[0]` to get one number, which is "
                  "right only for a single 1-D row like the table's scores: for a batch of rows (N, T) it "
                  "returns the first row's entropy with shape (1,) instead of N entropies, and for (A, B, T) "
                  "a (B, 1) slice of the first block.",
           "where": ["q4"]}),

    "q4_table_loop_bound_four_from_the_default_dims": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    for i in range(4):                                   # one row per dimension
        d = dims[i]
        torch.manual_seed(seed)
        q = torch.randn(1, d); k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d**0.5
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
'''}, {"mistake": "The table's loop is `for i in range(4)`, the length of the default dims, instead of "
                  "running over `dims`: with fewer than 4 dims it fails with an index error, with more it "
                  "silently drops the rows after the fourth.",
           "where": ["q4"]}),

    "q4_table_scale_by_integer_root_exact_for_square_dims": ({"softmax_entropy": '''
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
        scaled = raw / math.isqrt(d)                     # sqrt(d): 2, 4, 8, 16
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
'''}, {"mistake": "The table scales by `math.isqrt(d)`, the integer square root, which equals sqrt(d) only for "
                  "perfect squares like the default dims 4, 16, 64, 256: for any other d (8 gives 2 instead of "
                  "2.83, 32 gives 5 instead of 5.66, 50 gives 7 instead of 7.07) scaled_std and H_scaled "
                  "are wrong.",
           "where": ["q4"]}),

    "q5_answer_probe_variance_of_the_traces_printed_scores": ({"q5_answer": '''
# Probe: the variance of the dot products in the notebook's own trace (d_k = 4), matched to the options.
torch.manual_seed(42)
_d = 4
_Q = torch.randn(3, _d)
_K = torch.randn(3, _d)
_scores = _Q @ _K.T / _d ** 0.5                          # the "scores" line the trace cell prints
_measured = _scores.var().item()
_values = {"A": 1.0, "B": math.sqrt(_d), "C": float(_d), "D": float(_d) ** 2}
q5_answer = min(_values, key=lambda letter: abs(_values[letter] - _measured))
'''}, {"mistake": "The probe takes the variance of the nine scores the trace cell prints, which are already "
                  "divided by sqrt(d_k) (and only nine numbers): it measures about 0.84, nearest to 1, so "
                  "'A' instead of 'C' (the unscaled q.k has variance d_k).",
           "where": ["q5"]}),

    "q6_answer_probe_on_one_hot_tokens_scaled_for_readability": ({"q6_answer": '''
# Probe: self-attention with Q = K = V = X on easy-to-read tokens (one-hot rows, scaled up).
_X = 5.0 * torch.eye(4)
_d = _X.shape[1]
_W = F.softmax(_X @ _X.T / math.sqrt(_d), dim=-1)
_Y = _W @ _X
q6_answer = "B" if torch.allclose(_Y, _X, atol=1e-3) else "A"   # does every token come out as itself?
'''}, {"mistake": "The probe uses one-hot tokens scaled by 5: each token's self-score (12.5) dwarfs its "
                  "scores with the other, orthogonal tokens (0), so the weights are one-hot to within about "
                  "1e-5 and every output row is within 1e-4 of its own token; the probe's example makes the weighted "
                  "average look like 'each token attends only to itself': 'B' instead of 'A'.",
           "where": ["q6"]}),

    "q7_answer_probe_self_attention_queries_equal_keys_diagonal_wins": ({"q7_answer": '''
# Probe: is attention a lookup of the key equal to the query? Use self-attention, where each query IS a key.
torch.manual_seed(0)
_T, _d = 4, 8
_X = torch.randn(_T, _d)
_W = F.softmax(_X @ _X.T / math.sqrt(_d), dim=-1)
_hit = bool((_W.argmax(dim=-1) == torch.arange(_T)).all())   # the equal key gets the largest weight
q7_answer = "A" if _hit else "D"
'''}, {"mistake": "The probe runs self-attention (Q = K = X), where a query's self-score |x|^2/sqrt(d) is "
                  "usually the largest, sees every row's largest weight on the key equal to the query and "
                  "concludes attention returns that key's value like a hash table: 'A' instead of 'D' "
                  "(the largest weights are 0.42..0.98, so the output is a mix, not a lookup).",
           "where": ["q7"]}),

    "q8_heads_cut_by_chunk_given_the_head_width": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for q_h, k_h, v_h in zip(Q.chunk(d_k, dim=1), K.chunk(d_k, dim=1), V.chunk(d_k, dim=1)):
        out_h, _ = attention(q_h, k_h, v_h, d_k)
        heads.append(out_h)
    return torch.cat(heads, dim=1) @ W_O
'''}, {"mistake": "The heads are cut with `Q.chunk(d_k, dim=1)`, but chunk takes the NUMBER of pieces, not "
                  "their width: it makes d_k heads of n_heads columns each (scaled by sqrt(d_k)), which is "
                  "right only when d_k == n_heads (e.g. d_model = 16 with 4 heads); otherwise the output is "
                  "silently wrong (with n_heads = 1 every column becomes its own head).",
           "where": ["q8"]}),

    "q8_batched_heads_bare_squeeze_drops_single_head_axis": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    X = X.unsqueeze(0)                                   # batch of one, as in (B, T, d_model) code
    def split(Y):                                        # (1, T, d_model) -> (1, heads, T, d_k)
        return Y.view(1, T, n_heads, d_k).transpose(1, 2)
    q, k, v = split(X @ W_Q), split(X @ W_K), split(X @ W_V)
    w = F.softmax(q @ k.transpose(-2, -1) / math.sqrt(d_k), dim=-1)
    heads = (w @ v).squeeze()                            # drop the batch axis: (heads, T, d_k)
    concat = heads.transpose(0, 1).reshape(T, d_model)
    return concat @ W_O
'''}, {"mistake": "The batch axis of one is removed with a bare `.squeeze()`, which also drops the head axis "
                  "when n_heads == 1 (and the token axis when T == 1): the following `transpose(0, 1)` then "
                  "swaps tokens and features (or heads and features) and the reshape scrambles the "
                  "concatenated heads, so the output is silently wrong in those cases (needs squeeze(0)).",
           "where": ["q8"]}),
}
