"""Forty-sixth blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, `assignments/scaled-attention/hidden/`, `reference/`, `autograder/`,
`variants.py`, `measure.py`, the naming tests, `README.md` or `docs/`. What was read: the markdown and
solution cells of `full_marks.ipynb` (q1..q8: 2-D inputs, T_q != T_k, d_v != d_k, float32 and float64,
"return tensors of the same dtype as the inputs", a `softmax_entropy` that maps (..., T) to (...) and must
give 0, not NaN, on a saturated row, answers "one letter, as a string", the trace cell that leaves `Q`, `K`,
`V`, `W`, `out` and `d_k` as globals, no `numpy` import), `harness.py`, blind45.py in full for the format,
the opening slides of lesson 79 in /work/shared/lessons/ (the formula, the shapes table, the trace), and
only the module docstrings and the variant NAMES of blind.py .. blind45.py, so that their mistakes are not
repeated in the same form. The grader was not run on this set.

How it was made: the earlier WRONG names count q4 ~142, q1 ~136, q8 ~126, q2 ~100 against q5 ~47, q7 ~45
and q6 ~42, so this round puts 10 of its 14 wrong variants on the one-point questions (q5 x3, q6 x3,
q7 x4), adds q1 x2 and q4 x2, and leaves q2 and q8 (the most worked-over code questions) alone. Code
shapes the earlier names do not show: weights that normalise elu(s) + 1 (the linear-attention feature
map) instead of exp(s); a tanh logit soft-cap (Gemma 2 / Grok style) put in front of the softmax; an entropy
whose NaN guard `nan_to_num` runs after the row sum, so a row with SOME zero probabilities (not all but
one) comes out 0; an entropy that `.squeeze()`s its result and drops size-one batch axes; a q5 answer in a
triple-quoted block that keeps its newlines; a q5 probe whose einsum "nd,nd->d" sums over the samples; a
q5 letter taken by a slice ("ABCD"[2:3] is fine, ["A", "B", "C", "D"][2:3] is a list); a q6 check against
`F.scaled_dot_product_attention(..., is_causal=True)` copied from GPT code; a q6 check on a SQUARE probe
where `X @ X` (transpose forgotten) runs without a shape error; a q6 probe that normalises its tokens in
place between the attention call and the manual check; a q7 gradient probe with all-zero keys (every score
0 whatever the query); a q7 probe that rounds the weights with `torch.round` (0 decimals) and sees one-hot
rows; a q7 gradient probe with one-hot (identity) values and a summed output, which is the constant T_q;
and a q7 answer given as the boolean True ("D is the true statement").

Public sources: huggingface/trl issue 7221 ("entropy_from_logits returns NaN for zero-probability tokens")
and its pull requests 7252 / 7264 (where the `nan_to_num` goes decides what a zero-probability term
contributes) for the q4 guard placed after the sum; abhinavsb3/memGPT `model_core/attention.py`
(`F.scaled_dot_product_attention(q, k, v, is_causal=True)`, nanoGPT's causal self-attention) for the q6
check copied from GPT code; the unsloth Gemma 2 notes stored in Leeroo-AI/kapso
(`data/wikis_llm_finetuning/_staging/Unslothai_Unsloth/.../unsloth_models_gemma2_py.md`: attention logit
soft-capping `tanh(logits / cap) * cap`) for the q1 soft-cap; PetrochukM/PyTorch-NLP issue 2 and
jadore801120/attention-is-all-you-need-pytorch issue 52 (softmax / reduction over the wrong axis in
hand-written attention) and pytorch/pytorch issue 50010 (NumPy vs torch reduction conventions) as
background for the einsum probe that reduces over the wrong axis; maximzubkov/LinBERT
`models/modules/common.py` and the idiap/fast-transformers linear attention it follows
(`elu_feature_map(x) = F.elu(x) + 1`) for the q1 weights built from elu + 1. No variant copies public code
verbatim.

Each wrong variant changes one cell of the otherwise full-marks notebook and has exactly one mistake;
`where` lists the questions that may lose points (q8 calls the student's `attention`, so both q1 slips
list q8 too; the q5/q6/q7 probes call the untouched full-marks `attention`; the q4 slips keep
`entropy_table` as in full_marks). Correct variants are valid but written differently from full_marks
(scores by `torch.tensordot`, weights as shifted exponentials L1-normalised by `F.normalize(p=1)`, the mix
by `einsum`; one `empty(2, n, d).normal_(generator=...)` draw, dots by `torch.linalg.vecdot`, the
variance by hand with n - 1; the entropy as `-(p * log p).nansum(-1)` and a table that draws from a
private `torch.Generator` seeded like the global one; heads projected by column blocks of the weights and
the output projection as a sum over heads of `head_h @ W_O[rows of h]`; a q5 letter from `chr(ord("A") +
2)`, a q6 check against `F.scaled_dot_product_attention` outside any function, a q7 probe through
`torch.autograd.functional.jacobian`). Every variant was run against plain torch (`torch.softmax`,
`F.scaled_dot_product_attention`, the lesson's formula, `torch.distributions.Categorical`) on several
shapes and both float dtypes (a throwaway script in /tmp, not in the repository).

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""


CORRECT = {
    "attention_tensordot_l1_normalised_exponentials_einsum": {"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = torch.tensordot(Q, K, dims=([1], [1])) / math.sqrt(d_k)    # contract the feature axes
    e = torch.exp(scores - scores.amax(dim=-1, keepdim=True))           # shifted, so no overflow
    weights = F.normalize(e, p=1, dim=-1)                                # divide each row by its sum
    return torch.einsum("qk,kv->qv", weights, V), weights
'''},
    "variance_normal_inplace_vecdot_hand_variance": {"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q, k = torch.empty(2, n_samples, d_k).normal_(generator=generator)
    dots = torch.linalg.vecdot(q, k)
    if scaled:
        dots = dots * torch.rsqrt(torch.tensor(float(d_k)))
    centred = dots - dots.mean()
    return float((centred ** 2).sum() / (n_samples - 1))
'''},
    "entropy_nansum_table_with_private_generator": {"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = torch.softmax(logits, dim=-1)
    return -(p * p.log()).nansum(dim=-1)        # 0 * log 0 = nan is dropped, i.e. counted as 0


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    table = []
    for d in dims:
        g = torch.Generator().manual_seed(seed)      # same stream as torch.manual_seed(seed)
        q = torch.randn(1, d, generator=g)
        k = torch.randn(5, d, generator=g)
        raw = torch.mv(k, q[0])                      # the 5 scores q . k_j
        scaled = raw / math.sqrt(d)
        table.append(dict(d=d, raw_std=float(torch.std(raw)), scaled_std=float(torch.std(scaled)),
                          H_raw=float(softmax_entropy(raw)), H_scaled=float(softmax_entropy(scaled))))
    return table
'''},
    "mha_column_block_projections_output_as_sum_over_heads": {"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[-1]
    d_k = d_model // n_heads
    result = torch.zeros(X.shape[0], d_model, dtype=X.dtype)
    for h in range(n_heads):
        block = slice(h * d_k, (h + 1) * d_k)
        head, _ = attention(X @ W_Q[:, block], X @ W_K[:, block], X @ W_V[:, block], d_k)
        result = result + head @ W_O[block, :]      # concat @ W_O, one block of rows at a time
    return result
'''},
    "answers_chr_offset_sdpa_check_jacobian_probe": {
        "q5_answer": '''
q5_answer = chr(ord("A") + 2)      # the third option: Var(q.k) = d_k
''',
        "q6_answer": '''
# compare the self-attention output with PyTorch's own kernel (outside any function)
_X6 = torch.randn(5, 8, generator=torch.Generator().manual_seed(11))
_mine6, _ = attention(_X6, _X6, _X6, 8)
_ref6 = F.scaled_dot_product_attention(_X6[None], _X6[None], _X6[None])[0]
q6_answer = "A" if torch.allclose(_mine6, _ref6, atol=1e-5) else "C"
''',
        "q7_answer": '''
# a lookup is piecewise constant in the query; attention is smooth: look at d output / d query
_g7 = torch.Generator().manual_seed(3)
_K7, _V7 = torch.randn(4, 6, generator=_g7), torch.randn(4, 2, generator=_g7)
_J7 = torch.autograd.functional.jacobian(
    lambda q: attention(q, _K7, _V7, 6)[0], torch.randn(2, 6, generator=_g7))
q7_answer = "D" if _J7.abs().sum() > 0 else "C"
'''},
}


WRONG = {
    "q1_elu_plus_one_kernel_instead_of_exp": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = Q @ K.T / math.sqrt(d_k)
    sim = F.elu(scores) + 1                              # positive similarity, no exp to overflow
    weights = sim / sim.sum(dim=-1, keepdim=True)       # rows sum to 1
    return weights @ V, weights
'''}, {"mistake": "The weights normalise elu(s) + 1 (the linear-attention feature map) instead of exp(s): "
                   "rows are positive and sum to 1, but elu(s) + 1 equals exp(s) only for s <= 0 and grows "
                   "linearly above, so the weights are not softmax(QK^T / sqrt(d_k)) (much flatter).",
       "where": ["q1", "q8"]}),

    "q1_tanh_logit_softcap_before_softmax": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = Q @ K.T / math.sqrt(d_k)
    cap = 5.0
    scores = cap * torch.tanh(scores / cap)         # soft-cap the logits so the softmax never saturates
    weights = torch.softmax(scores, dim=-1)
    return weights @ V, weights
'''}, {"mistake": "A tanh soft-cap (cap * tanh(s / cap), from Gemma 2 style code) is applied to the scaled "
                   "scores before the softmax; it squashes every nonzero score, so the weights and outputs "
                   "are not softmax(QK^T / sqrt(d_k)) V (noticeably off once scores are about 1 or more).",
       "where": ["q1", "q8"]}),

    "q4_entropy_nan_to_num_after_the_row_sum": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    H = -(p * torch.log(p)).sum(dim=-1)
    return torch.nan_to_num(H, nan=0.0)      # a saturated row gives 0 * log 0 = nan: call it 0


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
'''}, {"mistake": "The NaN guard runs AFTER the row sum: one probability that underflows to 0 makes the "
                   "whole row NaN, which is then replaced by 0, so a row with some (not all but one) zero "
                   "probabilities, e.g. softmax([1000, 1000, 0]) with entropy ln 2, gets entropy 0 instead "
                   "of the entropy of its nonzero part.",
       "where": ["q4"]}),

    "q4_entropy_squeezed_drops_size_one_axes": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    log_p = F.log_softmax(logits, dim=-1)
    H = -(log_p.exp() * log_p).sum(dim=-1)
    return H.squeeze()                       # one plain value per row


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
'''}, {"mistake": ".squeeze() on the result drops every size-one batch axis, so logits of shape (1, T) give "
                   "a 0-d tensor instead of shape (1,), and (B, 1, T) gives (B,) instead of (B, 1): the "
                   "output shape is not logits.shape[:-1] (the values are right).",
       "where": ["q4"]}),

    "q5_answer_triple_quoted_block_keeps_newlines": ({"q5_answer": '''
q5_answer = """
C
"""
'''}, {"mistake": "The letter is written inside a triple-quoted block on its own line, so the string is "
                   "'\\nC\\n' (with the newlines) instead of the one letter 'C'.",
       "where": ["q5"]}),

    "q5_answer_probe_einsum_sums_over_samples": ({"q5_answer": '''
# estimate Var(q.k) at d_k = 16 and take the closest option
_g = torch.Generator().manual_seed(0)
_q = torch.randn(10000, 16, generator=_g)
_k = torch.randn(10000, 16, generator=_g)
_dots = torch.einsum("nd,nd->d", _q, _k)       # the dot products
_measured = _dots.var().item()
_options = {"A": 1.0, "B": 16 ** 0.5, "C": 16.0, "D": 16.0 ** 2}
q5_answer = min(_options, key=lambda letter: abs(_options[letter] - _measured))
'''}, {"mistake": "The einsum 'nd,nd->d' keeps the coordinate index and sums over the SAMPLES, giving 16 "
                   "sums of 10000 products each (variance about 10000) instead of 10000 dot products over "
                   "the coordinates, so the closest option is 'D' instead of 'C'.",
       "where": ["q5"]}),

    "q5_answer_list_slice_gives_one_item_list": ({"q5_answer": '''
_options = ["A", "B", "C", "D"]
q5_answer = _options[2:3]          # option C: Var(q.k) = d_k
'''}, {"mistake": "A slice of the list of options, _options[2:3], is the one-item list ['C'], not the "
                   "string 'C' that the question asks for.",
       "where": ["q5"]}),

    "q6_answer_check_against_causal_sdpa": ({"q6_answer": '''
# compare my self-attention with PyTorch's fused kernel (as used in GPT code)
_X = torch.randn(4, 8, generator=torch.Generator().manual_seed(7))
_out, _ = attention(_X, _X, _X, 8)
_ref = F.scaled_dot_product_attention(_X[None], _X[None], _X[None], is_causal=True)[0]
if torch.allclose(_out, _ref, atol=1e-5):
    q6_answer = "A"
elif torch.allclose(_out, _X, atol=1e-5):
    q6_answer = "B"
else:
    q6_answer = "C"
'''}, {"mistake": "The reference is F.scaled_dot_product_attention with is_causal=True (copied from GPT "
                   "code), which lets token i see only tokens 0..i; plain self-attention averages over ALL "
                   "rows, so the check fails, option A is ruled out and the cell answers 'C' instead of 'A'.",
       "where": ["q6"]}),

    "q6_answer_square_probe_hides_missing_transpose": ({"q6_answer": '''
# the formula by hand on a small square X: softmax(X X^T / sqrt(d)) X
_X = torch.randn(4, 4, generator=torch.Generator().manual_seed(1))
_out, _ = attention(_X, _X, _X, 4)
_expected = torch.softmax(_X @ _X / math.sqrt(4), dim=-1) @ _X
if torch.allclose(_out, _expected, atol=1e-5):
    q6_answer = "A"
elif torch.allclose(_out, _X, atol=1e-5):
    q6_answer = "B"
else:
    q6_answer = "C"
'''}, {"mistake": "The hand formula writes X @ X instead of X @ X.T; because the probe X is square (4 x 4) "
                   "there is no shape error, the expected output is simply wrong, option A is ruled out and "
                   "the cell answers 'C' instead of 'A'.",
       "where": ["q6"]}),

    "q6_answer_probe_normalises_tokens_in_place": ({"q6_answer": '''
# is out[0] the softmax-weighted average of the rows of X?
_X = torch.randn(4, 8, generator=torch.Generator().manual_seed(7))
_out, _W6 = attention(_X, _X, _X, 8)
_X /= _X.norm(dim=1, keepdim=True)               # unit rows, easier to compare
_manual0 = (_W6[0][:, None] * _X).sum(dim=0)
q6_answer = "A" if torch.allclose(_manual0, _out[0], atol=1e-5) else "C"
'''}, {"mistake": "The tokens are normalised IN PLACE (_X /= ...) after the attention call and before the "
                   "manual weighted sum, so the sum uses different rows from the ones attention mixed; it "
                   "never matches out[0] and the cell answers 'C' instead of 'A'.",
       "where": ["q6"]}),

    "q7_answer_gradient_probe_with_zero_keys": ({"q7_answer": '''
# does a gradient reach the query? keep the keys simple
_g = torch.Generator().manual_seed(0)
_Q = torch.randn(3, 4, generator=_g, requires_grad=True)
_K = torch.zeros(5, 4)
_V = torch.randn(5, 2, generator=_g)
_out, _ = attention(_Q, _K, _V, 4)
(_out ** 2).sum().backward()
q7_answer = "D" if _Q.grad.abs().max() > 0 else "C"
'''}, {"mistake": "With all-zero keys every score q.k is 0 whatever the query, so the weights are uniform "
                   "and do not depend on Q: the gradient is exactly 0 and the probe answers 'C' instead of "
                   "'D'.",
       "where": ["q7"]}),

    "q7_answer_probe_rounds_weights_with_torch_round": ({"q7_answer": '''
# print the weights rounded and look: does each query use one key or all of them?
_g = torch.Generator().manual_seed(0)
_Q = torch.randn(3, 8, generator=_g)
_K = torch.randn(6, 8, generator=_g)
_V = torch.randn(6, 2, generator=_g)
_, _W7 = attention(_Q, _K, _V, 8)
_Wr = torch.round(_W7)                            # tidy numbers
_one_key_each = bool((torch.count_nonzero(_Wr, dim=-1) <= 1).all())
q7_answer = "C" if _one_key_each else "D"
'''}, {"mistake": "torch.round rounds to 0 decimals (it is not round(x, 4)), so every weight below 0.5 "
                   "becomes 0 and each row keeps at most one key; the probe reads that as 'one key per "
                   "query' and answers 'C' instead of 'D'.",
       "where": ["q7"]}),

    "q7_answer_gradient_probe_one_hot_values_summed": ({"q7_answer": '''
# one-hot values show which key each query takes; does the output move with the query?
_g = torch.Generator().manual_seed(0)
_Q = torch.randn(2, 4, generator=_g, requires_grad=True)
_K = torch.randn(3, 4, generator=_g)
_V = torch.eye(3)
_out, _ = attention(_Q, _K, _V, 4)
_out.sum().backward()
q7_answer = "D" if _Q.grad.abs().max() > 1e-6 else "C"
'''}, {"mistake": "With one-hot (identity) values each output row IS its weight row, and its sum is always "
                   "1, so out.sum() is the constant T_q and its gradient is 0; the probe reads that as 'no "
                   "useful gradient' and answers 'C' instead of 'D'.",
       "where": ["q7"]}),

    "q7_answer_boolean_true_for_the_statement": ({"q7_answer": '''
# D is the true statement: soft, differentiable lookup
q7_answer = True
'''}, {"mistake": "The answer is the boolean True (the truth of option D) instead of the letter 'D' as a "
                   "string.",
       "where": ["q7"]}),
}
