"""Sixth blind held-out set for scaled-attention (Lesson 79), written without reading the grader's
catalogue of misconceptions (`hidden/_misconceptions.py`), its hidden tests, the reference solution,
`variants.py` or the naming tests. What was read: the master notebook's student-facing text,
`full_marks.ipynb` (whose cells these replace), `harness.py`, the registration lines of `measure.py`
and the five earlier blind sets, so that none of their kinds of mistake is repeated here.

The students vary. Beginners: weights normalised by the row's largest exp instead of its sum, the
weights handed back as a NumPy array "to print them", the scores computed as K Q^T, the table's keys
spelled in lower case, a multiple-choice answer written as its content ("d_k") instead of its letter,
the value projection typed as W_K. Intermediate: scores upcast to float64 "for precision" and never cast
back, the variance taken over all n^2 query-key pairs of one q @ k.T product, the entropy averaged
over the keys instead of summed, the table's scores divided by sqrt(number of keys), the heads' outputs
summed instead of concatenated, and the heads' attention maps averaged into one map before it is
applied (the "average attention" that libraries return for display). q6 and q7 have no wrong variant:
every wrong letter is in an earlier set. Public code searched: `need_weights=True, average_attn_weights`
(nn.MultiheadAttention's averaged map), `.detach().numpy()` in homework attention functions.

Each wrong variant changes one cell of an otherwise full-marks notebook and says its mistake in plain
words; `where` lists the questions that should lose points (a broken `attention` also costs q8).
Correct variants are really correct but written differently. Every variant was checked against plain
torch (`F.scaled_dot_product_attention`, `torch.softmax`) before it was graded.

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

ATT = "attention"
VAR = "dot_product_variance"
ENT = "softmax_entropy"       # the q4 cell (also defines entropy_table)
MHA = "multi_head_attention"
Q5 = "q5_answer"


def _att(scores: str = "scores = Q @ K.T / d_k ** 0.5", weights: str = "weights = F.softmax(scores, dim=-1)",
         ret: str = "return out, weights") -> str:
    return f'''
def attention(Q, K, V, d_k):
    {scores}
    {weights}
    out = weights @ V
    {ret}
'''


def _ent(entropy: str = "-(p * torch.log(p + 1e-9)).sum(dim=-1)", scaled: str = "raw / d**0.5",
         h_raw: str = '"H_raw"') -> str:
    return f'''
def softmax_entropy(logits):
    p = F.softmax(logits, dim=-1)
    return {entropy}


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    results = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d); k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = {scaled}
        results.append({{"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        {h_raw}: softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()}})
    return results
'''


def _mha(v: str = "X @ W_V", merge: str = "torch.cat(heads, dim=1)") -> str:
    return f'''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, {v}
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        heads.append(out_h)
    return {merge} @ W_O
'''


CORRECT = {
    # einsum scores, softmax by hand with the max shift
    "attention_einsum_manual_softmax": {ATT: '''
def attention(Q, K, V, d_k):
    scores = torch.einsum("qd,kd->qk", Q, K) * (1.0 / math.sqrt(d_k))
    e = torch.exp(scores - scores.amax(dim=-1, keepdim=True))
    weights = e / e.sum(dim=-1, keepdim=True)
    return weights @ V, weights
'''},
    # the scaled variance from the unscaled one, Var(X / c) = Var(X) / c^2
    "variance_divided_after": {VAR: '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    v = torch.einsum("nd,nd->n", q, k).var().item()
    return v / d_k if scaled else v
'''},
    # entropy through log_softmax (no epsilon needed), the table as a comprehension over a helper
    "entropy_log_softmax_table_helper": {ENT: '''
def softmax_entropy(logits):
    logp = torch.log_softmax(logits, dim=-1)
    return -(logp.exp() * logp).sum(dim=-1)


def _row(d, seed):
    torch.manual_seed(seed)
    q = torch.randn(1, d)
    k = torch.randn(5, d)
    raw = (k @ q.T).squeeze(1)
    scaled = raw / math.sqrt(d)
    return dict(d=d, raw_std=float(raw.std()), scaled_std=float(scaled.std()),
                H_raw=float(softmax_entropy(raw)), H_scaled=float(softmax_entropy(scaled)))


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    return [_row(d, seed) for d in dims]
'''},
    # all heads at once: reshape to (T, h, d_k), heads first, one batched attention, merge back
    "mha_batched_reshape": {MHA: '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    T, d_model = X.shape
    d_k = d_model // n_heads
    split = lambda M: (X @ M).reshape(T, n_heads, d_k).transpose(0, 1)      # (h, T, d_k)
    Q, K, V = split(W_Q), split(W_K), split(W_V)
    w = torch.softmax(Q @ K.transpose(1, 2) / math.sqrt(d_k), dim=-1)       # (h, T, T)
    heads = (w @ V).transpose(0, 1).reshape(T, d_model)
    return heads @ W_O
'''},
    # the letter chosen from a list of options
    "q5_letter_from_options": {Q5: 'q5_answer = ["A", "B", "C", "D"][2]\n'},
}

WRONG = {
    "q1_normalised_by_row_max": ({ATT: _att(weights="e = torch.exp(scores)\n"
                                                    "    weights = e / e.max(dim=-1, keepdim=True).values")},
                                 {"mistake": "normalises each row of exp(scores) by its largest entry instead of "
                                             "its sum: the top key gets weight 1 and the rows do not sum to 1",
                                  "where": ["q1", "q8"]}),
    "q1_weights_as_numpy": ({ATT: _att(ret="return out, weights.detach().numpy()")},
                            {"mistake": "returns the weights as a NumPy array (to print them) instead of a tensor",
                             "where": ["q1"]}),
    "q1_scores_upcast_to_float64": ({ATT: _att(scores="scores = Q.double() @ K.double().T / d_k ** 0.5  # precision")},
                                    {"mistake": "upcasts Q and K to float64 'for precision' and never casts back: "
                                                "float32 inputs fail (float64 @ float32 V) or come back float64",
                                     "where": ["q1", "q8"]}),
    "q1_scores_keys_by_queries": ({ATT: _att(scores="scores = K @ Q.T / d_k ** 0.5")},
                                  {"mistake": "computes the scores as K Q^T (row = key), so each row is a softmax "
                                              "over the queries of one key (the shape breaks when T_q != T_k)",
                                   "where": ["q1", "q8"]}),
    "q2_all_pairs_of_one_product": ({VAR: '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = q @ k.T                      # every q against every k: more samples for free
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''}, {"mistake": "takes the variance over all n^2 entries of q @ k.T instead of the n paired dot products "
                  "q_i . k_i (dependent samples, different number)", "where": ["q2"]}),
    "q4_entropy_mean_over_keys": ({ENT: _ent(entropy="-(p * torch.log(p + 1e-9)).mean(dim=-1)")},
                                  {"mistake": "averages -p log p over the keys instead of summing: the entropy "
                                              "divided by the number of keys", "where": ["q4"]}),
    "q4_table_key_lower_case": ({ENT: _ent(h_raw='"h_raw"')},
                                {"mistake": "spells the table key 'h_raw' instead of 'H_raw'", "where": ["q4"]}),
    "q4_table_scaled_by_number_of_keys": ({ENT: _ent(scaled="raw / math.sqrt(k.shape[0])")},
                                          {"mistake": "divides the table's scores by sqrt(number of keys) = "
                                                      "sqrt(5) instead of sqrt(d)", "where": ["q4"]}),
    "q5_answer_content_not_letter": ({Q5: 'q5_answer = "d_k"\n'},
                                     {"mistake": "writes the answer's content, d_k, instead of its letter C",
                                      "where": ["q5"]}),
    "q8_values_from_W_K": ({MHA: _mha(v="X @ W_K")},
                           {"mistake": "copy-paste slip: the values are projected with W_K instead of W_V",
                            "where": ["q8"]}),
    "q8_heads_summed": ({MHA: _mha(merge="torch.stack(heads).sum(dim=0).repeat(1, n_heads)")},
                        {"mistake": "sums the heads' outputs (then tiles the sum to width d_model) instead of "
                                    "concatenating them", "where": ["q8"]}),
    "q8_attention_maps_averaged": ({MHA: '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    maps = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        _, w_h = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        maps.append(w_h)
    avg = torch.stack(maps).mean(dim=0)       # one attention map for the layer
    return (avg @ V) @ W_O
'''}, {"mistake": "averages the heads' attention maps into one map and applies it to the full V: every head "
                  "mixes the values with the same weights", "where": ["q8"]}),
}
