"""Forty-eighth blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, `assignments/scaled-attention/hidden/`, `reference/`, `autograder/`,
`variants.py`, `measure.py`, the naming tests, `README.md` or `docs/`. What was read: the markdown and
solution cells of `full_marks.ipynb` (the master notebook's student text: q1..q8, 2-D inputs, T_q != T_k,
d_v != d_k, "use the d_k you are given", float32 and float64, a `softmax_entropy` mapping (..., T) to
(...) that gives 0 on a saturated row, an `entropy_table` reseeded for every d, q5..q7 answered by "one
letter, as a string", a looping `multi_head_attention`), `tests/heldout/harness.py`, blind47.py in full
for the format, the opening slides of lesson 79 in /work/shared/lessons/, and only the module docstrings
and the variant NAMES of blind.py .. blind47.py, so that their mistakes are not repeated in the same form.
The grader was not run on this set.

How it was made: the earlier WRONG names count q4 ~145, q1 ~139, q8 ~126, q2 ~102 against q5 ~53,
q7 ~53 and q6 ~48, so this round puts 11 of its 14 wrong variants on the one-point questions (q5 x4,
q6 x4, q7 x3), adds one each to q1, q2 and q4, and leaves q8 alone. Code shapes the earlier names do not
show: a q1 that copies the "log-n" length scaling of long-context models (scores times ln T_k); a q2 that
draws with `torch.nn.init.trunc_normal_` (cut at +-2 by default, so variance 0.77 per coordinate); an entropy written with `torch.special.xlog1py`
where `xlogy` was meant; a q5 option table of lambdas built in a comprehension (late-binding closures:
every option becomes d^2); a q5 probe that reseeds inside its sampling loop (one pair drawn 2000 times,
variance 0); a q5 answer built with Python 2's `filter` over a string (a filter object in Python 3); a q5
probe that picks the option with `torch.bucketize` (the bin, not the nearest value); a q6 check against
`F.scaled_dot_product_attention` copied with `dropout_p=0.1` (dropout is applied even outside training);
a q6 check whose "scores" are elementwise products X_i * X_j (a softmax per feature) instead of dot
products; a q6 check that asks the SUMMED absolute error of a 16 x 32 float32 output to be below 1e-6; a
q6 check that tests a 0-d bool tensor with `is True`; a q7 probe that compares the number of keys used
per query with `K.shape[1]` (the key width) instead of `K.shape[0]`; a q7 answer taken from
`Counter.most_common(1)[0]` (a (letter, count) pair); and a q7 gradient probe seeded with
`backward(torch.zeros_like(out))`.

Public sources: pytorch/pytorch issue 124464 ("SDPA does not switch off dropout during evaluation") and
99293, huggingface/pytorch-image-models pull request 1978 and karpathy/nanoGPT pull request 240 (cited
there), wenet-e2e/wenet issue 2699 (F.scaled_dot_product_attention applies `dropout_p` whenever it is
nonzero) for the q6 check with dropout left on; the `use_logn_attn` / `logn_list = [math.log(i,
seq_length) ...]` code of Qwen's modeling_qwen.py and a Baichuan port (found by exact-string search of
public code) for the q1 log-n scaling; the pages "late binding closure" (smileboywtu.github.io/articles/
2016/04/06/late-binding-closure.html) and notes.lesleylai.info "late-binding closure in Python" for the
q5 lambda table; the `trunc_normal_(std=.02)` initialisation of timm-style ViT code (huggingface/
pytorch-image-models) and the signature of torch.nn.init.trunc_normal_ (a=-2.0, b=2.0 are absolute
bounds) for the q2 draws; PyTorch's C++/Python docs for torch::special::xlogy and xlog1py (docs.pytorch.org) for
the q4 name slip. No variant copies public code verbatim.

Each wrong variant changes one cell of the otherwise full-marks notebook and has exactly one mistake;
`where` lists the questions that may lose points (q8 calls the student's `attention`, so the q1 slip
lists q8 too; the q5/q6/q7 probes call the untouched full-marks `attention`; the q4 slip keeps
`entropy_table` as in full_marks, so its H values change too, inside q4). Correct variants are valid but
written differently from full_marks and from the earlier correct sets (scores as (K Q^T)^T with the
`.softmax` method and a broadcast mix; draws by `torch.empty(...).normal_(generator=...)`, dots by
einsum "ij,ij->i", the variance by hand with n - 1, returned through `float`; an entropy whose log is
clamped to `torch.finfo(dtype).min` and a table whose stds come from `torch.std_mean`; heads from one
fused projection `X @ cat([W_Q, W_K, W_V], 1)` cut by `tensor_split` into sections; q5 as `chr` of a 0-d
argmin tensor from a probe, q6 as `min("ABCD")`, q7 as `max("ABCD")`). Every variant was run against
plain torch (`torch.softmax`, `F.scaled_dot_product_attention`, the lesson's formula) on several shapes
and both float dtypes (a throwaway script in /tmp, not in the repository).

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""


CORRECT = {
    "attention_transposed_kq_softmax_method_broadcast_mix": {"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = torch.matmul(K, Q.T).T * (1.0 / math.sqrt(d_k))     # (K Q^T)^T = Q K^T
    weights = scores.softmax(dim=1)                               # one distribution per query row
    output = (weights.unsqueeze(-1) * V.unsqueeze(0)).sum(dim=1)  # sum_j w_ij v_j
    return output, weights
'''},
    "variance_empty_normal_einsum_hand_unbiased_float": {"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.empty(n_samples, d_k).normal_(generator=generator)
    k = torch.empty(n_samples, d_k).normal_(generator=generator)
    dots = torch.einsum("ij,ij->i", q, k)
    if scaled:
        dots = dots * d_k ** -0.5
    centred = dots - dots.mean()
    return float((centred ** 2).sum() / (n_samples - 1))
'''},
    "entropy_log_clamped_to_finfo_min_table_std_mean": {"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = logits.softmax(dim=-1)
    log_p = p.log().clamp(min=torch.finfo(p.dtype).min)    # log 0 = -inf becomes a finite number, 0 * it = 0
    return -(p * log_p).sum(dim=-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    table = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = torch.mm(q, k.t()).squeeze(0)
        scaled = raw / math.sqrt(d)
        raw_std, _ = torch.std_mean(raw)
        scaled_std, _ = torch.std_mean(scaled)
        table.append(dict(d=d, raw_std=raw_std.item(), scaled_std=scaled_std.item(),
                          H_raw=softmax_entropy(raw).item(), H_scaled=softmax_entropy(scaled).item()))
    return table
'''},
    "mha_fused_projection_tensor_split_sections": {"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = W_Q.shape[1]
    d_k = d_model // n_heads
    Q, K, V = (X @ torch.cat([W_Q, W_K, W_V], dim=1)).split(d_model, dim=1)
    outs = [attention(q, k, v, d_k)[0]
            for q, k, v in zip(Q.tensor_split(n_heads, dim=1),
                               K.tensor_split(n_heads, dim=1),
                               V.tensor_split(n_heads, dim=1))]
    return torch.concat(outs, dim=-1) @ W_O
'''},
    "answers_chr_of_tensor_argmin_min_max_of_letters": {
        "q5_answer": '''
# measure Var(q.k) at d_k = 9 and take the closest option
_g5 = torch.Generator().manual_seed(1)
_dots5 = (torch.randn(20000, 9, generator=_g5) * torch.randn(20000, 9, generator=_g5)).sum(-1)
_opts5 = torch.tensor([1.0, 9 ** 0.5, 9.0, 81.0])          # A, B, C, D at d_k = 9
q5_answer = chr(ord("A") + (_opts5 - _dots5.var()).abs().argmin())   # argmin is a 0-d tensor; chr takes it
''',
        "q6_answer": '''
q6_answer = min("ABCD")     # the first option: a softmax-weighted average of all the rows
''',
        "q7_answer": '''
q7_answer = max("ABCD")     # the last option: soft, differentiable lookup
'''},
}


WRONG = {
    "q1_scores_times_log_of_key_count": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    logn = math.log(K.shape[0])                 # log-n scaling, so longer contexts do not get flatter
    scores = Q @ K.T * logn / math.sqrt(d_k)
    weights = F.softmax(scores, dim=-1)
    return weights @ V, weights
'''}, {"mistake": "The scores are multiplied by ln(T_k) (the 'log-n' length scaling copied from long-context "
                   "models) on top of 1/sqrt(d_k), so the temperature depends on the number of keys: the "
                   "weights are sharper than softmax(QK^T/sqrt(d_k)) for T_k >= 3 and flatter for T_k = 2.",
       "where": ["q1", "q8"]}),

    "q2_draws_with_init_trunc_normal": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.nn.init.trunc_normal_(torch.empty(n_samples, d_k), std=1.0, generator=generator)
    k = torch.nn.init.trunc_normal_(torch.empty(n_samples, d_k), std=1.0, generator=generator)
    dots = (q * k).sum(1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''}, {"mistake": "The draws come from torch.nn.init.trunc_normal_ (the weight initialiser of ViT code), "
                   "whose default bounds a=-2, b=2 are absolute, so with std=1 the normal is cut at two "
                   "standard deviations: each coordinate has variance about 0.77, not 1, and Var(q.k) is "
                   "about 0.6 d_k (0.6 when scaled) instead of d_k (1).",
       "where": ["q2"]}),

    "q4_entropy_xlog1py_for_xlogy": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    return -torch.special.xlog1py(p, p).sum(dim=-1)     # x * log(y), and 0 at x = 0


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
'''}, {"mistake": "torch.special.xlog1py(p, p) is p * log(1 + p), not p * log(p) (that is xlogy): the "
                   "'entropy' is -sum p ln(1 + p), which is negative (-ln 2 on a saturated row, about "
                   "-0.18 on a uniform row of 5) instead of H(p).",
       "where": ["q4"]}),

    "q5_answer_option_lambdas_late_binding": ({"q5_answer": '''
# each option as a formula in d; measure Var(q.k) at d_k = 16 and take the closest formula
_g5 = torch.Generator().manual_seed(0)
_q5 = torch.randn(20000, 16, generator=_g5)
_k5 = torch.randn(20000, 16, generator=_g5)
_var5 = (_q5 * _k5).sum(dim=-1).var().item()
_opts5 = {s: (lambda d: d ** p) for s, p in zip("ABCD", [0, 0.5, 1, 2])}
q5_answer = min(_opts5, key=lambda s: abs(_opts5[s](16) - _var5))
'''}, {"mistake": "The option formulas are lambdas built in a comprehension; they all read the loop variable "
                   "p when called, after the loop has ended (late binding), so every option is d^2 = 256, "
                   "all distances tie and min returns the first letter 'A' instead of 'C'.",
       "where": ["q5"]}),

    "q5_answer_probe_reseeded_inside_loop": ({"q5_answer": '''
# Var(q.k) at d_k = 16, one pair at a time (seeded, so it is reproducible)
_dots5 = []
for _ in range(2000):
    torch.manual_seed(0)
    _q5, _k5 = torch.randn(16), torch.randn(16)
    _dots5.append(torch.dot(_q5, _k5).item())
_var5 = torch.tensor(_dots5).var().item()
_opts5 = {"A": 1.0, "B": 16 ** 0.5, "C": 16.0, "D": 16.0 ** 2}
q5_answer = min(_opts5, key=lambda s: abs(_opts5[s] - _var5))
'''}, {"mistake": "torch.manual_seed(0) is called inside the sampling loop, so every iteration draws the same "
                   "pair and all 2000 dot products are equal: the measured variance is 0, the nearest "
                   "option is 'A' instead of 'C'.",
       "where": ["q5"]}),

    "q5_answer_python2_filter_over_string": ({"q5_answer": '''
# keep the option letter whose formula is d_k
_formula5 = {"A": "1", "B": "sqrt(d_k)", "C": "d_k", "D": "d_k^2"}
q5_answer = filter(lambda s: _formula5[s] == "d_k", "ABCD")
'''}, {"mistake": "In Python 2 filter over a string returned a string ('C'); in Python 3 it returns a lazy "
                   "filter object, so q5_answer is not a letter (not even a str).",
       "where": ["q5"]}),

    "q5_answer_probe_bucketize_gives_bin_not_nearest": ({"q5_answer": '''
# measure Var(q.k) at d_k = 16 and find where it falls among the options
_g5 = torch.Generator().manual_seed(0)
_q5 = torch.randn(20000, 16, generator=_g5)
_k5 = torch.randn(20000, 16, generator=_g5)
_var5 = (_q5 * _k5).sum(dim=-1).var()
_opts5 = torch.tensor([1.0, 16 ** 0.5, 16.0, 16.0 ** 2])          # A < B < C < D
q5_answer = "ABCD"[torch.bucketize(_var5, _opts5).item()]
'''}, {"mistake": "torch.bucketize returns the index of the first option that is >= the measured value (the "
                   "bin it falls in), not the nearest option: a measured variance a little above 16 lands in "
                   "the bin of 256 and the answer is 'D' instead of 'C'.",
       "where": ["q5"]}),

    "q6_answer_check_sdpa_with_dropout_left_on": ({"q6_answer": '''
# compare with PyTorch's kernel (outside any function), arguments as in my model code
_X6 = torch.randn(1, 5, 8, generator=torch.Generator().manual_seed(3))
_mine6, _ = attention(_X6[0], _X6[0], _X6[0], 8)
_ref6 = F.scaled_dot_product_attention(_X6, _X6, _X6, dropout_p=0.1)[0]
q6_answer = "A" if torch.allclose(_mine6, _ref6, atol=1e-5) else "C"
'''}, {"mistake": "F.scaled_dot_product_attention applies dropout whenever dropout_p > 0 (it has no training "
                   "flag), so the reference drops and rescales random weights; it does not match, option A "
                   "is ruled out and the cell answers 'C' instead of 'A'.",
       "where": ["q6"]}),

    "q6_answer_check_scores_elementwise_not_dot": ({"q6_answer": '''
# build option A by hand, token by token: weights softmax_j(X_i . X_j / sqrt(d)), then mix the rows
_X6 = torch.randn(4, 6, generator=torch.Generator().manual_seed(5))
_out6, _ = attention(_X6, _X6, _X6, 6)
_rows6 = []
for _i in range(4):
    _s = torch.stack([_X6[_i] * _X6[_j] for _j in range(4)]) / math.sqrt(6)   # (4, 6) scores
    _w = torch.softmax(_s, dim=0)
    _rows6.append((_w * _X6).sum(dim=0))
q6_answer = "A" if torch.allclose(_out6, torch.stack(_rows6), atol=1e-5) else "C"
'''}, {"mistake": "The hand check writes the score X_i . X_j as the elementwise product X_i * X_j without "
                   "summing over the features, so it takes a separate softmax for every feature; the "
                   "expected rows are wrong, option A is ruled out and the cell answers 'C' instead of 'A'.",
       "where": ["q6"]}),

    "q6_answer_check_summed_error_below_1e_6": ({"q6_answer": '''
# option A: softmax(X X^T / sqrt(d)) X -- accept it if the total error is tiny
_X6 = torch.randn(16, 32, generator=torch.Generator().manual_seed(6))
_out6, _ = attention(_X6, _X6, _X6, 32)
_S6 = _X6 @ _X6.T / math.sqrt(32)
_e6 = torch.exp(_S6 - _S6.max(dim=-1, keepdim=True).values)        # the lesson's stable softmax
_exp6 = (_e6 / _e6.sum(dim=-1, keepdim=True)) @ _X6
q6_answer = "A" if (_out6 - _exp6).abs().sum() < 1e-6 else "C"
'''}, {"mistake": "The float32 check asks the SUM of 512 absolute differences to be below 1e-6; rounding "
                   "alone (F.softmax against the lesson's hand-written exp / sum) gives a total of about "
                   "2e-5 (each entry within 5e-7), so option A is "
                   "rejected and the cell answers 'C' instead of 'A'.",
       "where": ["q6"]}),

    "q6_answer_tensor_bool_tested_with_is_true": ({"q6_answer": '''
# option A by hand, then pick the letter
_X6 = torch.randn(5, 8, generator=torch.Generator().manual_seed(4))
_out6, _ = attention(_X6, _X6, _X6, 8)
_ok6 = (_out6 - torch.softmax(_X6 @ _X6.T / math.sqrt(8), dim=-1) @ _X6).abs().max() < 1e-5
q6_answer = "A" if _ok6 is True else "C"
'''}, {"mistake": "The comparison gives a 0-d bool TENSOR, and `tensor(True) is True` is False (it is not "
                   "the Python object True), so the check always falls through to 'C' instead of 'A'.",
       "where": ["q6"]}),

    "q7_answer_used_keys_compared_with_key_width": ({"q7_answer": '''
# soft lookup: every query gives weight to every key
_g7 = torch.Generator().manual_seed(0)
_Q7 = torch.randn(3, 8, generator=_g7)
_K7 = torch.randn(6, 8, generator=_g7)
_V7 = torch.randn(6, 2, generator=_g7)
_, _W7 = attention(_Q7, _K7, _V7, 8)
_used7 = (_W7 > 1e-4).sum(dim=-1)                 # keys used by each query
q7_answer = "D" if bool((_used7 == _K7.shape[1]).all()) else "C"
'''}, {"mistake": "The number of keys each query uses is compared with K.shape[1] (the key width d_k = 8) "
                   "instead of K.shape[0] (the number of keys, 6); the test fails and the cell answers 'C' "
                   "instead of 'D'.",
       "where": ["q7"]}),

    "q7_answer_counter_most_common_pair": ({"q7_answer": '''
from collections import Counter

# which option mentions the lesson's key words most often?
_opts7 = {"A": "returns the value of the key that equals the query exactly",
          "B": "only works when the keys are sorted",
          "C": "returns the value of the best-scoring key only, an argmax with no useful gradient",
          "D": "scores the query against every key and returns a softmax-weighted mix of all the values: "
               "a soft, differentiable version of the lookup"}
_votes7 = Counter({s: sum(w in t for w in ("every key", "softmax", "differentiable", "mix"))
                   for s, t in _opts7.items()})
q7_answer = _votes7.most_common(1)[0]
'''}, {"mistake": "Counter.most_common(1)[0] is the pair (letter, count), ('D', 4), not the letter: the "
                   "answer is a tuple instead of the string 'D' (most_common(1)[0][0]).",
       "where": ["q7"]}),

    "q7_answer_backward_seeded_with_zeros_like": ({"q7_answer": '''
# does a gradient flow back to the query? (C says no useful gradient)
_g7 = torch.Generator().manual_seed(0)
_Q7 = torch.randn(3, 4, generator=_g7, requires_grad=True)
_K7 = torch.randn(5, 4, generator=_g7)
_V7 = torch.randn(5, 2, generator=_g7)
_out7, _ = attention(_Q7, _K7, _V7, 4)
_out7.backward(torch.zeros_like(_out7))           # seed the backward pass for a non-scalar output
q7_answer = "D" if _Q7.grad.abs().max() > 0 else "C"
'''}, {"mistake": "The backward pass of the non-scalar output is seeded with zeros_like instead of "
                   "ones_like, so every gradient is multiplied by 0; the probe sees a zero gradient and "
                   "answers 'C' instead of 'D'.",
       "where": ["q7"]}),
}
