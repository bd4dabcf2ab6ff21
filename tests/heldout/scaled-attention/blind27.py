"""Twenty-seventh blind held-out set for scaled-attention, written without reading the grader's catalogue
of misconceptions, its hidden tests, the reference solution, `variants.py`, `measure.py`, the naming tests
or the git log. What was read: the lessons (08, 79, 80), the student-facing text of the master notebook,
`full_marks.ipynb`, `harness.py`, and only the module docstrings and variant names of blind.py ..
blind26.py, so that their mistakes are not repeated in the same form.

How it was made: the earlier sets' names cover q1 and q4 most and q2 and q8 least, and every wrong
letter of q5-q7 is already taken in its plain form, so about half of this set sits in the core (scores,
scaling, softmax, multi-head reshapes: three in q1, five in q8) and half in the other questions (three in
q2, three in q4, one in q5). The mix follows a real first attention class: small slips inside otherwise
right code (a scale constant copied from the lesson's trace, a stray `.T` on one projection, einsum output
letters in the wrong order, a plus for a minus in the entropy identity, `unsqueeze(-1)` for
`unsqueeze(0)`), whole-approach mistakes (scores standardised by their own std, a softmax reduced over
the whole head, fresh `nn.Linear` layers for the given weights, raw tokens as values, a squared distance
for the dot product, the query taken as one of the keys), crashes and silent failures of half-remembered
APIs (`nn.Softmax(dim=2)` from batched code, numpy's `ddof=`, `tensordot` with its default `dims`), and
a hedged multiple-choice answer. Shapes earlier sets used little: a softmax module, einsum over a
`(T, h, d)` view, a hand-written softmax over two axes, a helper-free rewrite with `nn.Linear`.

Public code was searched (code and issues corpora); seven of the fifteen wrong variants carry a slip seen
there, named in a comment above each: `nn.Softmax(dim=2)` in copies of jadore801120's
attention-is-all-you-need ScaledDotProductAttention, hard-coded scale constants in ise-uiuc/WhiteFox's
sfdp models, a hand-written softmax reduced over dims (1, 2), `nn.Linear` layers built inside the
function (Facico/code-tools attn1.py), `wei @ x` from forks of Karpathy's GPT lecture
(Arseni1919/GPT_with_Karpathy), numpy's `ddof` (pytorch/pytorch#2436, #50010), and the batch-dot
confusion around tensordot/batch_dot (pytorch/pytorch#18027, lsdefine/attention-is-all-you-need-keras#25).
The other eight are plausible for a student of these lessons.
Each wrong variant changes one cell of an otherwise full-marks notebook and has exactly one mistake;
`where` lists the questions that should lose points (q8 calls the student's `attention`, so a q1 slip
that changes the output costs q8 too). Correct variants are valid but unusual (scores by broadcast
`linalg.vecdot` and weights as `exp(log_softmax)`, the variance from `var_mean` with a conditional factor
and `float()`, the table's scores by a `torch.dot` loop with `statistics.stdev`, the entropy with the
log masked where p is 0, heads split and merged by a small helper class). Every variant was run against
the full-marks cells and plain torch (`F.scaled_dot_product_attention`, `torch.nn.MultiheadAttention`)
before it was written down here (a script in /tmp, not in the repository).

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

_ENTROPY = '''def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)

'''

_TABLE = '''

def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d ** 0.5
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
'''

CORRECT = {
    "vecdot_broadcast_scores_exp_log_softmax": {"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""
    scores = torch.linalg.vecdot(Q.unsqueeze(-2), K, dim=-1)     # (T_q, 1, d) . (T_k, d) -> (T_q, T_k)
    scores = scores * d_k ** -0.5
    weights = torch.exp(F.log_softmax(scores, dim=-1))
    return torch.mm(weights, V), weights
'''},
    "var_mean_conditional_factor_float": {"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k)) over n_samples pairs drawn from `generator`."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = torch.sum(q * k, dim=-1, keepdim=True).squeeze(-1)
    factor = 1 / math.sqrt(d_k) if scaled else 1.0
    var, _mean = torch.var_mean(dots * factor)
    return float(var)
'''},
    "table_dot_loop_statistics_stdev": {"entropy_table": _ENTROPY + '''
import statistics


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    out = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = torch.empty(5)
        for j, k_j in enumerate(k):
            raw[j] = torch.dot(q[0], k_j)
        scaled = raw / math.sqrt(d)
        out.append({"d": d,
                    "raw_std": statistics.stdev(raw.tolist()),
                    "scaled_std": statistics.stdev(scaled.tolist()),
                    "H_raw": softmax_entropy(raw).item(),
                    "H_scaled": softmax_entropy(scaled).item()})
    return out
'''},
    "entropy_log_masked_at_zero": {"softmax_entropy": '''def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = torch.softmax(logits, -1)
    log_p = p.log().masked_fill(p == 0, 0.0)     # 0 * log 0 counts as 0
    return -(p * log_p).sum(-1)
''' + _TABLE},
    "heads_by_small_splitter_class": {"multi_head_attention": '''
class _HeadSplitter:
    """Cuts the columns of a (T, d_model) matrix into n_heads blocks and glues them back."""

    def __init__(self, d_model, n_heads):
        self.n_heads = n_heads
        self.d_k = d_model // n_heads

    def split(self, M):
        return M.unflatten(-1, (self.n_heads, self.d_k)).unbind(-2)

    def merge(self, blocks):
        return torch.cat(list(blocks), dim=-1)


def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    cut = _HeadSplitter(X.shape[-1], n_heads)
    outs = [attention(q, k, v, cut.d_k)[0]
            for q, k, v in zip(cut.split(X @ W_Q), cut.split(X @ W_K), cut.split(X @ W_V))]
    return torch.matmul(cut.merge(outs), W_O)
'''},
}

WRONG = {
    # seen in: copies of jadore801120/attention-is-all-you-need-pytorch ScaledDotProductAttention,
    # `self.softmax = nn.Softmax(dim=2)` written for (batch, T_q, T_k) scores, here on 2-D scores.
    "q1_softmax_module_dim2_from_batched_code": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""
    softmax = torch.nn.Softmax(dim=2)
    scores = torch.matmul(Q, K.T) / math.sqrt(d_k)
    weights = softmax(scores)
    return torch.matmul(weights, V), weights
'''}, {"mistake": "the softmax module is built with dim=2, copied from batched (B, T_q, T_k) code; on the "
                   "2-D scores of this notebook dimension 2 does not exist and the call raises IndexError",
       "where": ["q1", "q8"]}),

    # seen in: ise-uiuc/WhiteFox sfdp models that hard-code the scale (`1. / np.sqrt(10.)`), here with the
    # lesson trace's "d_k = 4, scale 1/2".
    "q1_scale_hardcoded_one_half": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""
    scores = Q @ K.T * 0.5          # scale 1/sqrt(d_k) = 1/2
    weights = F.softmax(scores, dim=-1)
    return weights @ V, weights
'''}, {"mistake": "the scale is the constant 0.5 from the lesson's trace (d_k = 4) instead of 1/sqrt(d_k), so "
                   "every other d_k is scaled wrongly",
       "where": ["q1", "q8"]}),

    "q1_scores_standardised_by_their_std": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""
    scores = Q @ K.T
    scores = scores / scores.std()      # bring the scores back to variance 1
    weights = F.softmax(scores, dim=-1)
    return weights @ V, weights
'''}, {"mistake": "the scores are divided by their own sample standard deviation (data-dependent "
                   "standardisation) instead of by the fixed sqrt(d_k); d_k is never used",
       "where": ["q1", "q8"]}),

    "q8_key_projection_transposed": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q = X @ W_Q
    K = X @ W_K.T           # the formula has K^T
    V = X @ W_V
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        heads.append(out_h)
    return torch.cat(heads, dim=1) @ W_O
'''}, {"mistake": "the key projection uses W_K transposed (X @ W_K.T) while the query and value projections "
                   "use X @ W, mixing the transpose of QK^T into the projection",
       "where": ["q8"]}),

    "q8_einsum_scores_output_letters_swapped": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    Qh = (X @ W_Q).view(T, n_heads, d_k)
    Kh = (X @ W_K).view(T, n_heads, d_k)
    Vh = (X @ W_V).view(T, n_heads, d_k)
    scores = torch.einsum("ihd,jhd->hji", Qh, Kh) / math.sqrt(d_k)
    weights = scores.softmax(dim=-1)
    out = torch.einsum("hij,jhd->ihd", weights, Vh)
    return out.reshape(T, d_model) @ W_O
'''}, {"mistake": "the scores einsum writes its output letters as hji (key before query), so the softmax over "
                   "the last axis normalises over queries and the mix uses the transposed weights",
       "where": ["q8"]}),

    # seen in: a public hand-written softmax (`own_softmax`) that takes amax and sum over dims (1, 2) of a
    # stack of score matrices.
    "q8_own_softmax_over_whole_head": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    Qh = (X @ W_Q).view(T, n_heads, d_k).transpose(0, 1)
    Kh = (X @ W_K).view(T, n_heads, d_k).transpose(0, 1)
    Vh = (X @ W_V).view(T, n_heads, d_k).transpose(0, 1)
    S = Qh @ Kh.transpose(1, 2) / math.sqrt(d_k)
    e = torch.exp(S - torch.amax(S, (1, 2), keepdim=True))
    w = e / torch.sum(e, (1, 2), keepdim=True)
    out = (w @ Vh).transpose(0, 1).reshape(T, d_model)
    return out @ W_O
'''}, {"mistake": "the hand-written softmax reduces over dims (1, 2), normalising each head's whole T x T "
                   "score matrix to sum 1 instead of each query row",
       "where": ["q8"]}),

    # seen in: Facico/code-tools jobs/deep-learning/attn/attn1.py, which builds nn.Linear projections
    # inside the function instead of using weights it is given.
    "q8_fresh_linear_layers_for_projections": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Wq = torch.nn.Linear(d_model, d_model, bias=False)
    Wk = torch.nn.Linear(d_model, d_model, bias=False)
    Wv = torch.nn.Linear(d_model, d_model, bias=False)
    with torch.no_grad():
        Q, K, V = Wq(X), Wk(X), Wv(X)
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        heads.append(attention(Q[:, cols], K[:, cols], V[:, cols], d_k)[0])
    return torch.cat(heads, dim=1) @ W_O
'''}, {"mistake": "the Q, K, V projections come from freshly initialised nn.Linear layers (random weights) "
                   "instead of the given W_Q, W_K, W_V (and float32 layers clash with float64 inputs)",
       "where": ["q8"]}),

    # seen in: forks of Karpathy's GPT lecture (e.g. Arseni1919/GPT_with_Karpathy), whose averaging step
    # mixes the tokens themselves (`wei @ x`) before values are introduced.
    "q8_values_are_raw_tokens": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K = X @ W_Q, X @ W_K
    V = X                      # each token hands over itself
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        heads.append(out_h)
    return torch.cat(heads, dim=1) @ W_O
'''}, {"mistake": "the values are the raw tokens X instead of the projection X @ W_V; W_V is never used",
       "where": ["q8"]}),

    # seen in: the numpy-parity threads pytorch/pytorch#2436 and #50010 (numpy's ddof=1 is torch's
    # default unbiased=True; torch.var has no ddof keyword).
    "q2_numpy_ddof_keyword": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k)) over n_samples pairs drawn from `generator`."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(dim=1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var(ddof=1).item()       # unbiased, like numpy
'''}, {"mistake": "the sample variance is asked for with numpy's ddof=1 keyword, which torch.var does not "
                   "accept, so every call raises TypeError",
       "where": ["q2"]}),

    # seen in: the batch-dot confusion of pytorch/pytorch#18027 and
    # lsdefine/attention-is-all-you-need-keras#25 (a batched dot taken for a plain dot / tensordot).
    "q2_tensordot_default_dims": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k)) over n_samples pairs drawn from `generator`."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = torch.tensordot(q, k)         # one dot product per row
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''}, {"mistake": "torch.tensordot with its default dims=2 contracts both axes and returns one scalar instead "
                   "of n_samples row dot products, so the variance of that single number is NaN",
       "where": ["q2"]}),

    "q2_squared_distance_as_similarity": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k)) over n_samples pairs drawn from `generator`."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = ((q - k) ** 2).sum(dim=1)     # similarity score of q and k
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''}, {"mistake": "the score is the squared distance |q - k|^2 (the Gaussian-kernel view) instead of the dot "
                   "product q.k; its variance is about 8 d_k, and 8 after scaling",
       "where": ["q2"]}),

    "q4_entropy_identity_plus_expected_logit": ({"softmax_entropy": '''def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    # H = logsumexp(s) - sum_j p_j s_j
    return torch.logsumexp(logits, dim=-1) + (p * logits).sum(dim=-1)
''' + _TABLE}, {"mistake": "the logsumexp identity for the entropy is written with a plus: logsumexp(s) + "
                           "sum p s instead of logsumexp(s) - sum p s",
                "where": ["q4"]}),

    "q4_table_scores_unsqueezed_on_last_axis": ({"entropy_table": _ENTROPY + '''

def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d ** 0.5
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        # softmax_entropy wants rows: give it a batch of one row
                        "H_raw": softmax_entropy(raw.unsqueeze(-1)).item(),
                        "H_scaled": softmax_entropy(scaled.unsqueeze(-1)).item()})
    return results
'''}, {"mistake": "the scores are unsqueezed on the last axis, (5, 1) instead of (1, 5), so each score becomes "
                   "its own length-1 row: five zero entropies, and .item() on five values raises",
       "where": ["q4"]}),

    "q4_table_query_is_first_key": ({"entropy_table": _ENTROPY + '''

def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    for d in dims:
        torch.manual_seed(seed)
        k = torch.randn(5, d)
        q = k[:1]                  # self-attention: token 0 queries the sequence
        raw = (q @ k.T)[0]
        scaled = raw / d ** 0.5
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
'''}, {"mistake": "the query is taken as the first key row (self-attention read into the experiment) instead "
                   "of its own randn(1, d) draw before the keys, so the scores include |k_0|^2 and differ",
       "where": ["q4"]}),

    "q5_answer_two_letters_hedged": ({"q5_answer": '''q5_answer = "CD"
'''}, {"mistake": "the answer hedges between d_k and d_k^2 with two letters instead of the single letter C",
       "where": ["q5"]}),
}
