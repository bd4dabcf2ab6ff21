"""Seventeenth blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, `measure.py`, the naming tests or
the git log. What was read: the lessons, the student-facing text of the master notebook, `full_marks.ipynb`,
`harness.py`, and only the module docstrings and variant names of blind.py .. blind16.py, so that their
mistakes are not repeated in the same form.

How it was made: the earlier sets' names show q2 (the variance experiment) as the least covered part, so
four of the fourteen wrong variants are there; the rest are slips that pair a right idea with one wrong
detail (a missing `.values`, a half-precision softmax, an in-place op that aliases, an off-by-one in a
dim or a slice end, a default dtype, a view of a transposed tensor). Public code was searched (code,
issues and pages corpora) and eight slips were carried over from it: a row max subtracted without taking
`.values` (torch.max's namedtuple, cf. flatironinstitute/deepblast#93), a softmax taken in float16 and cast
back (a public precision-test script's `F.softmax(scores.half(), dim=-1).float()`), `torch.dot` on
flattened 2-D draws (the sprintchase.com torch.dot tutorial: "flatten them to 1D first"), a flag tested
with `is not None` as in the `scale=None` of PyTorch's SDPA reference code, the entropy's softmax taken
with `dtype=torch.float32` (Hugging Face attention code, here without the cast back), `d ** 1/2` (found
in several public repositories, and in a transformer tutorial's comment `embed_size ** 1/2`), a
default-dtype buffer filled head by head (`torch.empty(n)` filled in a loop in LLMs-from-scratch notes),
and `.transpose(...).view(...)` on the merged heads (vllm-project/vllm#11978, facebookresearch/fairseq#2598).
The others are plausible for a student of these lessons: sqrt taken of the whole scaled fraction, two
draws through one `normal_` buffer, `torch.var_mean` read in the wrong order, a log taken in place on
the probabilities, the entropy summed over `dim=logits.dim()`, and the notebook's inclusive column range
"h * d_k to (h + 1) * d_k - 1" typed as a Python slice end.

Each wrong variant changes one cell of an otherwise full-marks notebook and has exactly one mistake;
`where` lists the questions whose tests may lose points (q8 calls the student's `attention`, so a broken
q1 costs q8 too). Correct variants are valid but unusual (`.mT` scores with an `amax`-shifted softmax,
`torch.cov` of the dot products with a multiplied scale, the table's scores from `torch.mv` and dicts
built with `zip`, heads from `split` written into an `X.new_zeros` buffer). Every variant was checked
against plain torch (the full-marks cells, `torch.softmax`, `F.scaled_dot_product_attention`,
`torch.nn.MultiheadAttention`) before it was written down here.

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

ATT = "attention"
VAR = "dot_product_variance"
ENT = "softmax_entropy"          # the q4 cell (also defines entropy_table)
MHA = "multi_head_attention"

_ENT_OK = '''def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)
'''

_TABLE_OK = '''

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
'''


def _att(body: str) -> str:
    return ('def attention(Q, K, V, d_k):\n'
            '    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""\n' + body)


def _var(body: str) -> str:
    return ('def dot_product_variance(d_k, n_samples, generator, scaled=False):\n'
            '    """Sample variance of q.k (or q.k / sqrt(d_k)) over n_samples pairs from `generator`."""\n'
            + body)


def _ent(body: str) -> str:
    return ('def softmax_entropy(logits):\n'
            '    """Entropy in nats of softmax(logits) over the last dim."""\n' + body + _TABLE_OK)


def _mha(body: str) -> str:
    return ('def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):\n'
            '    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""\n'
            + body)


CORRECT = {
    # q1: .mT for the transpose, the scale as a negative power, and a hand-written softmax shifted by
    # the row's amax (keepdim, so it broadcasts over the keys).
    "mT_scores_amax_softmax": {ATT: _att('''    scores = torch.matmul(Q, K.mT) * d_k ** -0.5
    shifted = scores - scores.amax(dim=-1, keepdim=True)
    e = shifted.exp()
    weights = e / e.sum(dim=-1, keepdim=True)
    return torch.matmul(weights, V), weights
''')},

    # q2: torch.cov of a 1-D tensor is its unbiased sample variance; the scale multiplies every product.
    "cov_of_dots_scale_factor": {VAR: _var('''    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    factor = 1.0 / math.sqrt(d_k) if scaled else 1.0
    dots = q.mul(k).sum(dim=-1) * factor
    return torch.cov(dots).item()
''')},

    # q4: the table's five scores as k @ q (torch.mv), each dict built from zip, the std with an explicit
    # correction=1.
    "table_mv_zip_dicts": {ENT: _ENT_OK + '''

def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    keys = ("d", "raw_std", "scaled_std", "H_raw", "H_scaled")
    rows = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = torch.mv(k, q[0])
        scaled = raw / math.sqrt(d)
        values = (d, torch.std(raw, correction=1).item(), torch.std(scaled, correction=1).item(),
                  softmax_entropy(raw).item(), softmax_entropy(scaled).item())
        rows.append(dict(zip(keys, values)))
    return rows
'''},

    # q8: heads from split(d_k, dim=1) zipped together, written into a buffer made with X.new_zeros
    # (so it has X's dtype), then projected.
    "split_zip_new_zeros_buffer": {MHA: _mha('''    T, d_model = X.shape
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    concat = X.new_zeros(T, d_model)
    for h, (q, k, v) in enumerate(zip(Q.split(d_k, dim=1), K.split(d_k, dim=1), V.split(d_k, dim=1))):
        concat[:, h * d_k:(h + 1) * d_k] = attention(q, k, v, d_k)[0]
    return concat @ W_O
''')},
}


WRONG = {
    # seen in: public stable softmaxes write `x.max(dim=-1, keepdim=True).values` or unpack `x_max, _ = ...`;
    # torch.max with a dim returns a (values, indices) namedtuple (cf. flatironinstitute/deepblast#93).
    "q1_row_max_namedtuple_subtracted": ({ATT: _att('''    scores = Q @ K.T / math.sqrt(d_k)
    scores = scores - scores.max(dim=-1, keepdim=True)
    e = torch.exp(scores)
    weights = e / e.sum(dim=-1, keepdim=True)
    return weights @ V, weights
''')}, {"mistake": "The row max is subtracted without taking `.values`: `scores.max(dim=-1, keepdim=True)` "
        "returns a (values, indices) pair, and subtracting it from a tensor raises a TypeError, so "
        "`attention` never returns.", "where": ["q1", "q8"]}),

    "q1_sqrt_of_whole_fraction": ({ATT: _att('''    scores = torch.sqrt(Q @ K.T / d_k)   # QK^T over root d_k
    weights = F.softmax(scores, dim=-1)
    return weights @ V, weights
''')}, {"mistake": "The square root is put around the whole fraction, sqrt(QK^T / d_k), instead of on "
        "d_k alone: every negative score becomes NaN and the rest are the wrong size, so the "
        "weights and output are NaN or wrong.", "where": ["q1", "q8"]}),

    # seen in: a public precision-test script, `F.softmax(scores.half(), dim=-1).float()`.
    "q1_softmax_in_half_precision": ({ATT: _att('''    scores = Q @ K.T / math.sqrt(d_k)
    weights = F.softmax(scores.half(), dim=-1).to(Q.dtype)   # half precision is faster
    return weights @ V, weights
''')}, {"mistake": "The softmax is computed in float16 and cast back: the dtype comes back right but "
        "the weights carry float16 rounding (errors around 1e-4 to 1e-3), so they and the output do "
        "not match a float32 or float64 attention.", "where": ["q1", "q8"]}),

    "q2_two_draws_one_normal_buffer": ({VAR: _var('''    buf = torch.empty(n_samples, d_k)
    q = buf.normal_(generator=generator)
    k = buf.normal_(generator=generator)
    dots = (q * k).sum(1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
''')}, {"mistake": "`normal_` fills the buffer in place and returns that same tensor, so q and k are one "
        "tensor (the second draw overwrites the first): the 'dot products' are squared norms |k|^2, "
        "whose variance is about 2 d_k (2 when scaled), not d_k (1).", "where": ["q2"]}),

    # seen in: PyTorch's F.scaled_dot_product_attention reference code tests `scale` against None
    # (`scale=None`); here the same test is used on a boolean flag.
    "q2_scaled_flag_tested_against_none": ({VAR: _var('''    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(1)
    if scaled is not None:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
''')}, {"mistake": "`scaled` is tested with `is not None`, which is also true for the default False, so "
        "the dot products are always divided by sqrt(d_k): the unscaled variance comes out about 1 "
        "instead of d_k.", "where": ["q2"]}),

    # seen in: the sprintchase.com torch.dot tutorial ("What if the tensor is 2D? ... flatten them to
    # 1D first").
    "q2_torch_dot_of_flattened_draws": ({VAR: _var('''    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = torch.dot(q.flatten(), k.flatten())   # torch.dot wants 1-D tensors
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
''')}, {"mistake": "Flattening before `torch.dot` gives one dot product of length n_samples * d_k "
        "instead of n_samples dot products of length d_k, and the variance of a single number is "
        "NaN.", "where": ["q2"]}),

    "q2_var_mean_read_in_wrong_order": ({VAR: _var('''    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    mean, var = torch.var_mean(dots)
    return var.item()
''')}, {"mistake": "`torch.var_mean` returns (variance, mean), not (mean, variance); unpacked the other "
        "way round, the function returns the sample mean of the dot products (about 0) instead of "
        "their variance.", "where": ["q2"]}),

    # seen in: Hugging Face attention code, `softmax(..., dim=-1, dtype=torch.float32)`, here without
    # the `.to(dtype)` that follows it there.
    "q4_entropy_softmax_dtype_float32": ({ENT: _ent('''    p = F.softmax(logits, dim=-1, dtype=torch.float32)   # stable softmax in fp32
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)
''')}, {"mistake": "The softmax is taken with `dtype=torch.float32` and never cast back, so a float64 "
        "input gets a float32 entropy (wrong dtype, and only float32 precision).", "where": ["q4"]}),

    "q4_log_taken_in_place_on_p": ({ENT: _ent('''    p = F.softmax(logits, dim=-1)
    log_p = p.add_(1e-9).log_()   # in place, saves memory
    return -(p * log_p).sum(dim=-1)
''')}, {"mistake": "`add_` and `log_` work in place and return `p` itself, so `log_p` and `p` are the "
        "same tensor holding ln p: the function returns -sum((ln p)^2), a negative number, not the "
        "entropy (and the table's entropies are wrong with it).", "where": ["q4"]}),

    "q4_entropy_summed_over_dim_ndim": ({ENT: _ent('''    p = F.softmax(logits, dim=-1)
    last = logits.dim()   # the last dimension
    return -(p * torch.log(p + 1e-9)).sum(dim=last)
''')}, {"mistake": "Off by one: the last dimension is `logits.dim() - 1`, not `logits.dim()`, so the sum "
        "asks for a dimension that does not exist and raises an IndexError for every input (the "
        "table fails with it).", "where": ["q4"]}),

    # seen in: `x ** 1/2` for a square root in public code (`delta ** 1/2`, `int(n ** 1/2)`), and in a
    # transformer tutorial's comment "We divide by (embed_size ** 1/2)".
    "q4_table_half_power_precedence": ({ENT: _ENT_OK + _TABLE_OK.replace(
        "scaled = raw / d**0.5", "scaled = raw / d ** 1/2")},
        {"mistake": "`raw / d ** 1/2` parses as (raw / d) / 2 because `**` binds tighter than `/`: the "
         "table's scores are divided by 2d instead of sqrt(d), so scaled_std and H_scaled are wrong.",
         "where": ["q4"]}),

    "q8_slice_end_inclusive": ({MHA: _mha('''    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k - 1)   # columns h*d_k to (h+1)*d_k - 1
        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        heads.append(out_h)
    return torch.cat(heads, dim=1) @ W_O
''')}, {"mistake": "The notebook's inclusive column range is typed as a Python slice, whose end is "
        "exclusive, so each head gets d_k - 1 columns and drops its last one; the concatenation has "
        "d_model - n_heads columns and the product with W_O fails.", "where": ["q8"]}),

    # seen in: Raschka-style notes that fill `torch.empty(inputs.shape[0])` element by element in a
    # loop (a buffer in the default dtype).
    "q8_buffer_in_default_dtype": ({MHA: _mha('''    T, d_model = X.shape
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    concat = torch.zeros(T, d_model)
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        concat[:, cols], _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
    return concat @ W_O
''')}, {"mistake": "The buffer for the concatenated heads is made with `torch.zeros(T, d_model)`, which "
        "is float32 whatever X is: float64 head outputs are rounded into it and the product with a "
        "float64 W_O raises a dtype error (use `X.new_zeros` or `dtype=X.dtype`).", "where": ["q8"]}),

    # seen in: nanoGPT-style `y.transpose(1, 2).contiguous().view(B, T, C)` copied without the
    # `.contiguous()` (vllm-project/vllm#11978, facebookresearch/fairseq#2598).
    "q8_view_of_transposed_heads": ({MHA: _mha('''    T, d_model = X.shape
    d_k = d_model // n_heads
    Qh = (X @ W_Q).view(T, n_heads, d_k).transpose(0, 1)   # (n_heads, T, d_k)
    Kh = (X @ W_K).view(T, n_heads, d_k).transpose(0, 1)
    Vh = (X @ W_V).view(T, n_heads, d_k).transpose(0, 1)
    heads = torch.stack([attention(Qh[h], Kh[h], Vh[h], d_k)[0] for h in range(n_heads)])
    concat = heads.transpose(0, 1).view(T, d_model)
    return concat @ W_O
''')}, {"mistake": "The heads are merged with `.transpose(0, 1).view(T, d_model)`; after the transpose the "
        "tensor is not contiguous, so `view` raises a RuntimeError (it needs `.contiguous()` first, "
        "or `reshape`).", "where": ["q8"]}),
}
