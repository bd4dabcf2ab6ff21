"""Twenty-second blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or
`measure.py`. What was read: the student-facing text and solution cells of the master notebook,
`full_marks.ipynb` (whose cells these replace), `harness.py`, and only the module docstrings and variant
names of blind.py .. blind21.py (so that their mistakes are not repeated in the same form). This round
spreads the slips over every question (two each for q2, q4, q5, q6 and q8, one each for q1, q3, q7) and
pairs a right idea with one wrong detail: a shape probe that forgets the transpose, `.T` on a batched
tensor, the variance divided by the standard-deviation factor, a max taken without `keepdim`, a causal
triangle aligned at the bottom right, a `T_k=None` default that is never filled in, the head width read
from `Tensor.dim()`, empty rows cleared with default-dtype zeros, heads merged inside the per-head
function, a row normaliser multiplied in from the wrong side, the values multiplied first, the letter
handed in with its sentence, self-pairs left out of a count, and a ratio that doubles only the queries.

Public code was searched with the code and pages search: a public NumPy `attention` documented for
`(batch_size, seq_len_q, d_k)` inputs that still uses `np.matmul(Q, K.T)`; lptorch's `sub_max`
(`temp.add(-temp.view(-1, temp.size(1)).max(dim=0)[0])`, a max without keepdim that broadcasts only
because the reduced axis is the first one); the TF GPT-2 `causal_attention_mask(nd, ns)` of transformers
("1's in the lower triangle, counting from the lower right corner"); Charmaineem/Hands-On-LLMs
`Transformer/layers.py` (`d_k = k.dim()` then `dot / math.sqrt(d_k)`); nanoGPT's
`y = y.transpose(1, 2).contiguous().view(B, T, C)`; a public NumPy attention normalising with
`np.exp(S) @ np.diag(1 / np.sum(np.exp(S), axis=1))`; SAGAN-style self-attention
(`out = torch.bmm(proj_value, attention.permute(0, 2, 1))`, values first in a channel-first layout); and
a blog post on attention cost that counts "every letter in relation to every other letter" (n(n - 1)
ordered pairs). Eight of the fourteen wrong variants carry a slip seen there (named in a comment above
each); the other six are slips plausible for students of these lessons. Six crash (q1, q2, q4's
default and q6's product outright, q3 whenever a slice is not square, q5's dtype clash on half precision
with a mask); seven return a plausible-looking wrong value without any error (q2, q4's alignment, q5's
head width and merged heads, q6's normaliser, both q8 counts).

Each wrong variant has exactly one mistake and changes one cell of an otherwise full-marks notebook;
"mistake" says in plain words what is wrong, "where" lists the questions whose tests may lose points
(a broken `stable_softmax` may also cost q5 and q6, whose function and cell call it; a broken
`causal_mask` may also cost q5, whose public check uses it, and q6 when the square case breaks).
Correct variants are really correct but written differently (the max found with `topk`, the causal mask
from an `xy` meshgrid, attention with `.mT`, `torch.where` and an `all`-blocked row test, the trace
weights read from `torch.distributions.Categorical(logits=...).probs`, and the short answers derived in
code). Every variant was checked against plain torch (`F.scaled_dot_product_attention`, `torch.softmax`)
before it was committed; the grader was not run on this set.

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

SDPA = "scaled_dot_product_attention"
SM = "stable_softmax"
CM = "causal_mask"
SHAPES = "weights_shape"     # the q1 cell (also defines out_shape)
VAR = "raw_score_var"        # the q2 cell
TRACE = "weights3"           # the q6 cell
TRAP = "q_trap_answer"       # the q7 cell
COST = "attn_entries"        # the q8 cell

CORRECT = {
    "softmax_max_from_topk": {SM: '''
def stable_softmax(x, dim=-1):
    """Softmax along `dim`; topk(1) keeps the reduced axis, so the max broadcasts back by itself."""
    top = x.topk(1, dim=dim).values              # same shape as x, with size 1 along dim
    e = (x - top).exp()
    return e / e.sum(dim, keepdim=True)
'''},

    "causal_from_xy_meshgrid": {CM: '''
def causal_mask(T_q, T_k=None):
    """(T_q, T_k) bool mask, True where key j is not after query i."""
    T_k = T_q if T_k is None else T_k
    key_pos, query_pos = torch.meshgrid(torch.arange(T_k), torch.arange(T_q), indexing="xy")  # both (T_q, T_k)
    return key_pos <= query_pos
'''},

    "sdpa_mT_where_all_blocked": {SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V; mask is boolean and True means the query may attend to the key."""
    scores = (Q @ K.mT).div(Q.shape[-1] ** 0.5)
    if mask is None:
        return stable_softmax(scores, -1) @ V
    scores = torch.where(mask, scores, float("-inf"))
    weights = stable_softmax(scores, -1)
    all_blocked = mask.logical_not().all(dim=-1, keepdim=True)
    weights = weights.masked_fill(all_blocked, 0)
    return weights @ V
'''},

    "trace_categorical_probs": {TRACE: '''
scores3 = Q3 @ K3.T / math.sqrt(4)
weights3 = torch.distributions.Categorical(logits=scores3).probs
out3 = weights3 @ V3
weights3_causal = torch.distributions.Categorical(
    logits=scores3.masked_fill(~causal_mask(3), float("-inf"))).probs
print(weights3, out3, weights3_causal, sep="\\n")
'''},

    "answers_derived_in_code": {
        VAR: '''
d_k = Q.shape[-1]
raw_scores = Q @ K.transpose(-2, -1)
raw_score_var = float(raw_scores.flatten().var(correction=1))
scaled_score_var = float((raw_scores / d_k ** 0.5).flatten().var(correction=1))
scale_divisor = 64 ** 0.5
print(raw_score_var, scaled_score_var, scale_divisor)
''',
        TRAP: '''
q_trap_answer = "ABCD"[2]
''',
        COST: '''
T, head_width = 1024, 64
attn_entries = T ** 2
score_madds = attn_entries * head_width
cost_ratio = (2 * T) ** 2 * head_width // score_madds
'''},
}

WRONG = {
    # --- q1 ---------------------------------------------------------------------------------------
    "q1_probe_product_without_transpose": ({SHAPES: '''
probe_q, probe_k = torch.zeros(4, 10, 64), torch.zeros(4, 10, 64)
weights_shape = tuple((probe_q @ probe_k).shape)
out_shape = weights_shape[:-1] + (128,)
'''}, {"mistake": "the shape probe multiplies Q by K instead of by K transposed: (10, 64) @ (10, 64) "
                  "cannot be multiplied, so the cell raises and neither shape is set; the product needs "
                  "K.transpose(-2, -1) and gives (4, 10, 10)",
       "where": ["q1"]}),

    # --- q2 ---------------------------------------------------------------------------------------
    # seen in: a public NumPy `attention` documented for (batch_size, seq_len_q, d_k) inputs that still
    # writes `np.matmul(Q, K.T)`; on a 3-D tensor `.T` reverses every axis instead of the last two
    "q2_dot_T_on_batched_keys": ({VAR: '''
d_k = Q.shape[-1]
raw_scores = Q @ K.T
raw_score_var = raw_scores.var().item()
scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()
scale_divisor = math.sqrt(64)
print(raw_score_var, scaled_score_var, scale_divisor)
'''}, {"mistake": "`K.T` on the batched (2, 5, 8) keys reverses all three axes to (8, 5, 2) instead of "
                  "swapping the last two, so `Q @ K.T` fails to broadcast and the cell raises before "
                  "any variance is stored; batched keys need K.transpose(-2, -1)",
       "where": ["q2"]}),

    "q2_variance_divided_by_root_d_k": ({VAR: '''
d_k = Q.shape[-1]
raw_scores = Q @ K.transpose(-2, -1)
raw_score_var = raw_scores.var().item()
scaled_score_var = raw_score_var / math.sqrt(d_k)    # the scores are divided by sqrt(d_k)
scale_divisor = math.sqrt(64)
print(raw_score_var, scaled_score_var, scale_divisor)
'''}, {"mistake": "the scaled variance is the raw variance divided by sqrt(d_k); dividing the scores by "
                  "sqrt(d_k) divides their variance by d_k, so this gives about 2.33 instead of 0.8249",
       "where": ["q2"]}),

    # --- q3 ---------------------------------------------------------------------------------------
    # seen in: lptorch `sub_max`, `temp.add(-temp.view(-1, temp.size(1)).max(dim=0)[0])`: a max without
    # keepdim that only lines up because the reduced axis happens to be the first one
    "q3_max_without_keepdim": ({SM: '''
def stable_softmax(x, dim=-1):
    """Softmax of x along `dim`, with the max subtracted first so that nothing overflows."""
    largest = x.max(dim=dim).values
    exps = torch.exp(x - largest)
    return exps / exps.sum(dim=dim, keepdim=True)
'''}, {"mistake": "the max is taken without keepdim=True, so the reduced axis disappears and "
                  "`x - largest` broadcasts against the wrong axis: it raises when the slices are not "
                  "square (a (2, 3) input along the last axis, T_q != T_k scores) and subtracts one "
                  "column's max from every row when they are, which no longer cancels in the softmax",
       "where": ["q3", "q5", "q6"]}),

    # --- q4 ---------------------------------------------------------------------------------------
    # seen in: the TF GPT-2 `causal_attention_mask(nd, ns)` of transformers, "1's in the lower triangle,
    # counting from the lower right corner" (the alignment used with a cache of earlier keys)
    "q4_bottom_right_aligned": ({CM: '''
def causal_mask(T_q, T_k=None):
    """(T_q, T_k) bool mask, True where query i may see key j."""
    if T_k is None:
        T_k = T_q
    return torch.ones(T_q, T_k, dtype=torch.bool).tril(diagonal=T_k - T_q)
'''}, {"mistake": "the triangle is aligned at the bottom-right corner (tril with diagonal T_k - T_q), so "
                  "with more keys than queries query i also sees keys i+1 .. i + T_k - T_q; the notebook "
                  "asks for top-left alignment, j <= i, as is_causal=True does (square masks are right)",
       "where": ["q4", "q5"]}),

    "q4_default_t_k_not_filled_in": ({CM: '''
def causal_mask(T_q, T_k=None):
    """(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i."""
    rows = torch.arange(T_q).unsqueeze(1)   # (T_q, 1)
    cols = torch.arange(T_k).unsqueeze(0)   # (1, T_k)
    return cols <= rows
'''}, {"mistake": "T_k defaults to None but is never replaced by T_q, so causal_mask(3) calls "
                  "torch.arange(None) and raises; only the two-argument form works",
       "where": ["q4", "q5", "q6"]}),

    # --- q5 ---------------------------------------------------------------------------------------
    # seen in: Charmaineem/Hands-On-LLMs Transformer/layers.py, `d_k = k.dim()` then
    # `F.softmax(dot / math.sqrt(d_k), dim=-1)`
    "q5_d_k_from_ndim": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).

    Q (..., T_q, d_k), K (..., T_k, d_k), V (..., T_k, d_v) -> (..., T_q, d_v)
    """
    d_k = K.dim()
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask == False, float("-inf"))
        weights = stable_softmax(scores, dim=-1)
        has_key = mask.any(dim=-1, keepdim=True)
        weights = torch.where(has_key, weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    return torch.matmul(weights, V)
'''}, {"mistake": "d_k is read with K.dim(), the number of axes (3 or 4), instead of K.size(-1), the "
                  "head width, so the scores are divided by sqrt(3) or sqrt(4) rather than sqrt(d_k)",
       "where": ["q5"]}),

    "q5_empty_rows_cleared_with_default_dtype_zeros": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).

    Q (..., T_q, d_k), K (..., T_k, d_k), V (..., T_k, d_v) -> (..., T_q, d_v)
    """
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask == False, float("-inf"))
        weights = stable_softmax(scores, dim=-1)
        has_key = mask.any(dim=-1, keepdim=True)
        weights = torch.where(has_key, weights, torch.zeros(weights.shape))
    else:
        weights = stable_softmax(scores, dim=-1)
    return torch.matmul(weights, V)
'''}, {"mistake": "the zeros for fully masked rows are made with torch.zeros(weights.shape), in the "
                  "default float32 (and on the CPU): torch.where promotes half-precision weights to "
                  "float32, and the product with float16 / bfloat16 V then raises a dtype mismatch "
                  "whenever a mask is given (zeros_like keeps the weights' dtype and device)",
       "where": ["q5"]}),

    # seen in: nanoGPT's CausalSelfAttention, `y = y.transpose(1, 2).contiguous().view(B, T, C)`
    # ("re-assemble all head outputs side by side"), carried into the per-head function
    "q5_heads_merged_nanogpt_style": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).

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
    out = torch.matmul(weights, V)
    B, T = Q.shape[0], Q.shape[-2]
    return out.transpose(1, 2).contiguous().view(B, T, -1)   # re-assemble the heads side by side
'''}, {"mistake": "the output goes through a multi-head merge (transpose(1, 2) then view(B, T, -1)) that "
                  "does not belong in attention itself: on 3-D inputs it swaps the query and value axes "
                  "and views them back, scrambling every row while keeping the shape, and on 4-D inputs "
                  "it returns (B, T_q, H * d_v) instead of (B, H, T_q, d_v)",
       "where": ["q5"]}),

    # --- q6 ---------------------------------------------------------------------------------------
    # seen in: a public NumPy attention, `A = np.exp(S) @ np.diag(1 / np.sum(np.exp(S), axis=1))`
    "q6_row_sums_multiplied_from_the_right": ({TRACE: '''
scores3 = Q3 @ K3.T / math.sqrt(4)
e3 = scores3.exp()
weights3 = e3 @ torch.diag(1 / e3.sum(dim=1))
out3 = weights3 @ V3
weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float("-inf")), dim=-1)
print(weights3, out3, weights3_causal, sep="\\n")
'''}, {"mistake": "the row sums are applied with a diagonal matrix on the right, which divides column j "
                  "by the sum of row j; each row must be divided by its own sum (diag on the left, or "
                  "e / e.sum(1, keepdim=True)), so the rows of weights3 (and out3) do not sum to 1",
       "where": ["q6"]}),

    # seen in: SAGAN-style self-attention, `out = torch.bmm(proj_value, attention.permute(0, 2, 1))`,
    # values first because that layout keeps channels in the rows
    "q6_values_multiplied_first": ({TRACE: '''
scores3 = Q3 @ K3.T / math.sqrt(4)
weights3 = stable_softmax(scores3, dim=-1)
out3 = V3 @ weights3.T
weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float("-inf")), dim=-1)
print(weights3, out3, weights3_causal, sep="\\n")
'''}, {"mistake": "the values are multiplied first, as in a channel-first layout: here V3 has one row per "
                  "key, so (3, 2) @ (3, 3) cannot be multiplied and the cell raises before out3 and "
                  "weights3_causal are set; the output is weights3 @ V3",
       "where": ["q6"]}),

    # --- q7 ---------------------------------------------------------------------------------------
    "q7_right_letter_with_its_sentence": ({TRAP: '''
q_trap_answer = "C. After zeroing, a row's remaining weights no longer add up to 1"
'''}, {"mistake": "the answer is handed in with its sentence; the question asks for the letter alone, "
                  "so the string is not one of A, B, C or D",
       "where": ["q7"]}),

    # --- q8 ---------------------------------------------------------------------------------------
    # seen in: a blog post on attention cost, "track every letter in a sequence in relation to every
    # other letter" (two letters, two relationships: n(n - 1) ordered pairs)
    "q8_self_pairs_left_out": ({COST: '''
attn_entries = 1024 * 1023        # each token against every other token
score_madds = 1024 * 1023 * 64
cost_ratio = 4
'''}, {"mistake": "a query's score against its own key is left out (T * (T - 1) pairs), but the weight "
                  "matrix is T x T with the diagonal included: 1048576 entries and 67108864 multiply-adds",
       "where": ["q8"]}),

    "q8_ratio_doubles_only_the_queries": ({COST: '''
attn_entries = 1024 ** 2
score_madds = 1024 * 1024 * 64
cost_ratio = (2 * 1024) * 1024 * 64 // score_madds
'''}, {"mistake": "only the number of queries is doubled in the ratio; doubling T also doubles the keys, "
                  "so the cost grows by 2 * 2 = 4, not 2",
       "where": ["q8"]}),
}
