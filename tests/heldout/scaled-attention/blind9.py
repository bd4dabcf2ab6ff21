"""Ninth blind held-out set for scaled-attention (Lesson 81), written without reading the grader's
catalogue of misconceptions (`hidden/_misconceptions.py`), its hidden tests, the reference solution,
`variants.py`, the naming tests or the key comments of `measure.py`. What was read: the student-facing
text of `full_marks.ipynb` (whose cells these replace), `harness.py`, the registration lines of
`measure.py` and the variant names of the eight earlier blind sets, so that their mistakes are not
repeated in the same form.

A mixed class. Beginners: n_samples and d_k swapped in `torch.randn`'s shape, a copy-pasted dict entry
(the raw std stored as the scaled one), the 1e-9 put outside the log, the std letter picked for the
variance question, the argmax letter picked for the lookup question. Intermediate: K transposed in place
with `t_()` (the caller's tensor changes), attention restricted to the top-2 keys, the entropy divided
by ln T (a normalised entropy), the table drawn in float64, heads concatenated last-first,
`torch.split` given the number of heads where it wants the chunk size, the notebook's global `d_k` used
as the head width.

Each wrong variant changes one cell of an otherwise full-marks notebook and says its mistake in words;
`where` lists the questions that may lose points. Correct variants are really correct but written
differently. Every variant was checked against plain torch (`torch.softmax`, `nn.MultiheadAttention`)
before it was graded.

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

ATT = "attention"
VAR = "dot_product_variance"
ENT = "softmax_entropy"        # the q4 cell (also defines entropy_table)
Q5, Q6, Q7 = "q5_answer", "q6_answer", "q7_answer"
MHA = "multi_head_attention"

_TABLE = '''

def entropy_table(dims=(4, 16, 64, 256), seed=0):
    results = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d); k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d**0.5
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
'''

_ENT = '''
def softmax_entropy(logits):
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)
'''


def _mha(body: str) -> str:
    return f'''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    d_model = X.shape[1]
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
{body}
'''


CORRECT = {
    # q1 with einsum and a log-sum-exp normalisation
    "einsum_logsumexp": {ATT: '''
def attention(Q, K, V, d_k):
    s = torch.einsum("qd,kd->qk", Q, K) / math.sqrt(d_k)
    w = torch.exp(s - torch.logsumexp(s, dim=1, keepdim=True))
    return torch.einsum("qk,kv->qv", w, V), w
'''},
    # q2 with both vectors drawn in one call
    "variance_one_draw": {VAR: '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    qk = torch.randn(2, n_samples, d_k, generator=generator)
    dots = torch.einsum("nd,nd->n", qk[0], qk[1])
    scale = d_k ** -0.5 if scaled else 1.0
    return torch.var(dots * scale).item()
'''},
    # q4 with torch.distributions, and a 1-D query in the table
    "categorical_entropy_1d_query": {ENT: '''
from torch.distributions import Categorical

def softmax_entropy(logits):
    return Categorical(logits=logits).entropy()


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    def row(d):
        torch.manual_seed(seed)
        q = torch.randn(d)
        k = torch.randn(5, d)
        raw = k @ q
        scaled = raw / math.sqrt(d)
        return dict(d=d, raw_std=float(raw.std()), scaled_std=float(scaled.std()),
                    H_raw=float(softmax_entropy(raw)), H_scaled=float(softmax_entropy(scaled)))
    return [row(d) for d in dims]
'''},
    # q4 with nansum over p * log_softmax; the letters upper-cased
    "nansum_entropy_upper_letters": {
        ENT: '''
def softmax_entropy(logits):
    logp = torch.log_softmax(logits, dim=-1)
    return -torch.nansum(logp.exp() * logp, dim=-1)
''' + _TABLE,
        Q5: 'q5_answer = "c".upper()\n', Q6: 'q6_answer = "a".upper()\n', Q7: 'q7_answer = "d".upper()\n'},
    # q8: each head projected with its own column block of W, W_O applied block-wise and summed
    "mha_column_blocks": {MHA: '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    d_model = W_Q.shape[0]
    d_k = d_model // n_heads
    total = torch.zeros(X.shape[0], W_O.shape[1], dtype=X.dtype)
    for h in range(n_heads):
        c = slice(h * d_k, (h + 1) * d_k)
        o, _ = attention(X @ W_Q[:, c], X @ W_K[:, c], X @ W_V[:, c], d_k)
        total = total + o @ W_O[c, :]
    return total
'''},
    # q8 batched over heads with reshape and permute, merged back in order
    "mha_batched_heads": {MHA: _mha('''
    T, H = X.shape[0], n_heads
    d_k = d_model // H
    q, k, v = (M.reshape(T, H, d_k).permute(1, 0, 2) for M in (Q, K, V))
    w = torch.softmax(q @ k.transpose(1, 2) / math.sqrt(d_k), dim=-1)
    heads = (w @ v).permute(1, 0, 2).reshape(T, d_model)
    return heads @ W_O''')},
}

WRONG = {
    "q1_transposes_keys_in_place": ({ATT: '''
def attention(Q, K, V, d_k):
    scores = Q @ K.t_() / math.sqrt(d_k)
    weights = scores.softmax(dim=-1)
    return weights @ V, weights
'''}, {"mistake": "transposes K with the in-place t_(), so the caller's K is left transposed after the "
                  "call (a second call, or any later use of K, sees a (d_k, T_k) tensor)",
       "where": ["q1", "q8"]}),
    "q1_top_two_keys_only": ({ATT: '''
def attention(Q, K, V, d_k):
    scores = Q @ K.T / math.sqrt(d_k)
    kth = scores.topk(min(2, scores.shape[-1]), dim=-1).values[:, -1:]
    scores = scores.masked_fill(scores < kth, float("-inf"))     # sparse attention: keep the best 2
    weights = F.softmax(scores, dim=-1)
    return weights @ V, weights
'''}, {"mistake": "keeps only the two best-scoring keys per query (a top-k sparse attention) instead of "
                  "weighting every key", "where": ["q1", "q8"]}),
    "q2_randn_shape_swapped": ({VAR: '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    q = torch.randn(d_k, n_samples, generator=generator)
    k = torch.randn(d_k, n_samples, generator=generator)
    dots = (q * k).sum(1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''}, {"mistake": "swaps the two sizes in torch.randn: it draws d_k pairs of vectors of length n_samples, so "
                  "it returns the variance of d_k dot products of length n_samples (about n_samples)",
       "where": ["q2"]}),
    "q4_entropy_normalised_by_log_t": ({ENT: '''
def softmax_entropy(logits):
    p = F.softmax(logits, dim=-1)
    H = -(p * torch.log(p + 1e-9)).sum(dim=-1)
    return H / math.log(logits.shape[-1])          # 1 for a uniform row, 0 for a one-hot row
''' + _TABLE}, {"mistake": "divides the entropy by ln T (the normalised entropy in [0, 1]) where the entropy "
                            "in nats is asked", "where": ["q4"]}),
    "q4_epsilon_outside_log": ({ENT: '''
def softmax_entropy(logits):
    p = F.softmax(logits, dim=-1)
    return -((p + 1e-9) * torch.log(p)).sum(dim=-1)
''' + _TABLE}, {"mistake": "adds the 1e-9 to the factor p instead of inside the log, so a saturated row still "
                            "takes log(0) = -inf and gives -inf or NaN instead of 0", "where": ["q4"]}),
    "q4_table_scaled_std_copied": ({ENT: _ENT + _TABLE.replace(
        '"scaled_std": scaled.std().item()', '"scaled_std": raw.std().item()')},
        {"mistake": "copy-paste slip in the table: the scaled std is computed from the raw scores, so it "
                    "equals raw_std", "where": ["q4"]}),
    "q4_table_drawn_in_float64": ({ENT: _ENT + _TABLE.replace(
        "q = torch.randn(1, d); k = torch.randn(5, d)",
        "q = torch.randn(1, d, dtype=torch.float64); k = torch.randn(5, d, dtype=torch.float64)")},
        {"mistake": "draws q and k in float64 for precision: torch's float64 generator gives different "
                    "numbers from the same seed, so the table is not the lesson's", "where": ["q4"]}),
    "q5_answer_std_letter": ({Q5: '''
# the typical size of q.k grows like sqrt(d_k)
q5_answer = "ABCD"[1]
'''}, {"mistake": "answers B (sqrt(d_k)), the standard deviation of q.k, where its variance d_k is asked",
       "where": ["q5"]}),
    "q7_answer_argmax_by_chr": ({Q7: '''
q7_answer = chr(ord("A") + 2)     # attention picks the best key
'''}, {"mistake": "answers C: thinks attention returns only the best-scoring key's value (a hard argmax) "
                  "rather than a softmax-weighted mix of all values", "where": ["q7"]}),
    "q8_heads_concatenated_last_first": ({MHA: _mha('''
    d_k = d_model // n_heads
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        heads.insert(0, out_h)
    return torch.cat(heads, dim=1) @ W_O''')},
        {"mistake": "inserts each head at the front of the list, so the heads are concatenated in reverse "
                    "order and meet the wrong rows of W_O", "where": ["q8"]}),
    "q8_split_by_head_count": ({MHA: _mha('''
    d_k = d_model // n_heads
    outs = [attention(q, k, v, d_k)[0] for q, k, v in
            zip(Q.split(n_heads, dim=1), K.split(n_heads, dim=1), V.split(n_heads, dim=1))]
    return torch.cat(outs, dim=1) @ W_O''')},
        {"mistake": "passes n_heads to torch.split, which takes the size of each chunk, not their number: "
                    "it makes d_model / n_heads heads of width n_heads", "where": ["q8"]}),
    "q8_global_d_k_for_heads": ({MHA: _mha('''
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        heads.append(attention(Q[:, cols], K[:, cols], V[:, cols], d_k)[0])
    return torch.cat(heads, dim=1) @ W_O''')},
        {"mistake": "never computes the head width: d_k is the notebook's global d_k = 4 from the q1 "
                    "example, so the heads have the wrong width and scale unless d_model / n_heads "
                    "happens to be 4", "where": ["q8"]}),
}
