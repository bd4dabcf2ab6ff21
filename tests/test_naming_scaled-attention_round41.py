"""Naming scaled-attention's mistakes, round 41 (blind40's kinds), through the grader on notebooks built from
full_marks with one cell replaced: an entropy table that stops after its first d (a `return` indented into the
loop, a `break`) is table_return_in_loop, proven by the first d's row alone on the lesson's dims and again on a
second call with other dims (a table with the LAST row alone is not named, and its aside about an append after
the loop is said only there). A scale written d_k ** -1/2 ((d_k ** -1) / 2 = 1/(2 d_k), the precedence slip with
a minus) keeps scale_precedence but is told as written, with the fix d_k ** -0.5 (not the key text's d_k ** 0.5),
where the output shows the division by 2 d_k (q2: at two d_k; q1, q4: the outputs scale_precedence names) and
the source has the `** -1 / 2`; `/ d_k ** 1/2` keeps the key's own text. A head split given the head width where
the count is taken (tensor_split, chunk) keeps mha_split_by_head_count, whose text now says both directions. My
own variants, not blind40's cells; each kind has a right variant of a similar shape that keeps full marks."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from tests.heldout.harness import grade_cells
from tests.hidden_modules import load

D = load("scaled-attention", "_diagnose", "_test_scaled_r41__diagnose")

_ENTROPY = '''def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    log_p = torch.log_softmax(logits, dim=-1)
    return -(log_p.exp() * log_p).sum(dim=-1)


'''

_ROW = '''        g = torch.Generator().manual_seed(seed)
        q, k = torch.randn(1, d, generator=g), torch.randn(5, d, generator=g)
        raw = (q @ k.T)[0]
        scaled = raw / math.sqrt(d)
        row = dict(d=d, raw_std=float(raw.std()), scaled_std=float(scaled.std()),
                   H_raw=float(softmax_entropy(raw)), H_scaled=float(softmax_entropy(scaled)))
'''

_ATTENTION = '''def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
'''

_VARIANCE = '''def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
'''

_MHA_HEAD = '''def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
'''


WRONG = {
    # --- table_return_in_loop: the loop ends after its first d ----------------------------------------------
    "q4_return_under_append": ({"softmax_entropy": _ENTROPY + '''def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    table = []
    for d in dims:
''' + _ROW + '''        table.append(row)
        return table
'''}, "table_return_in_loop"),
    "q4_break_after_append": ({"softmax_entropy": _ENTROPY + '''def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    rows = []
    for d in dims:
''' + _ROW + '''        rows.append(row)
        break                        # one row per d
    return rows
'''}, "table_return_in_loop"),
    "q4_enumerate_return_in_loop": ({"softmax_entropy": _ENTROPY + '''def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    out = [None] * len(dims)
    for i, d in enumerate(dims):
''' + _ROW + '''        out[i] = row
        return [r for r in out if r is not None]
'''}, "table_return_in_loop"),
    # --- scale_precedence told as written ("minus_half"): d_k ** -1/2 is (d_k ** -1) / 2 ---------------------
    "q2_scale_factor_power_minus_one_half": ({"dot_product_variance": _VARIANCE + '''    s = (q * k).sum(dim=-1)
    factor = d_k**-1/2 if scaled else 1.0    # 1 / sqrt(d_k)
    return (s * factor).var().item()
'''}, "minus_half"),
    "q2_pow_minus_one_half_inline": ({"dot_product_variance": _VARIANCE + '''    dots = torch.einsum("nd,nd->n", q, k)
    return (dots * (d_k ** -1 / 2 if scaled else 1)).var().item()
'''}, "minus_half"),
    # the same slip in q1's attention and q4's table: told as written there too
    "q1_scores_times_power_minus_one_half": ({"attention": _ATTENTION + '''    scores = Q @ K.T * d_k**-1/2       # 1 / sqrt(d_k)
    weights = torch.softmax(scores, dim=-1)
    return weights @ V, weights
'''}, "minus_half"),
    "q1_scale_variable_power_minus_one_half": ({"attention": _ATTENTION + '''    scale = d_k ** -1 / 2
    w = F.softmax(torch.matmul(Q, K.transpose(-2, -1)) * scale, dim=-1)
    return torch.matmul(w, V), w
'''}, "minus_half"),
    "q4_table_scaled_power_minus_one_half": ({"softmax_entropy": _ENTROPY + '''def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    rows = []
    for d in dims:
        g = torch.Generator().manual_seed(seed)
        q, k = torch.randn(1, d, generator=g), torch.randn(5, d, generator=g)
        raw = (q @ k.T)[0]
        scaled = raw * d ** -1/2
        rows.append(dict(d=d, raw_std=float(raw.std()), scaled_std=float(scaled.std()),
                         H_raw=float(softmax_entropy(raw)), H_scaled=float(softmax_entropy(scaled))))
    return rows
'''}, "minus_half"),
    # the slip without the minus keeps its own key
    "q1_divided_by_power_one_half": ({"attention": _ATTENTION + '''    weights = torch.softmax(Q @ K.T / d_k ** 1/2, dim=-1)
    return weights @ V, weights
'''}, "scale_precedence"),
    # --- mha_split_by_head_count: a count-taking split given the head width --------------------------------
    "mha_tensor_split_method_width": ({"multi_head_attention": _MHA_HEAD + '''    heads = []
    for q, k, v in zip(Q.tensor_split(d_k, dim=-1), K.tensor_split(d_k, dim=-1), V.tensor_split(d_k, dim=-1)):
        heads.append(attention(q, k, v, d_k)[0])
    return torch.cat(heads, dim=-1) @ W_O
'''}, "mha_split_by_head_count"),
    "mha_chunk_given_width": ({"multi_head_attention": _MHA_HEAD + '''    qs, ks, vs = (torch.chunk(M, d_k, dim=1) for M in (Q, K, V))
    return torch.cat([attention(qs[h], ks[h], vs[h], d_k)[0] for h in range(len(qs))], dim=1) @ W_O
'''}, "mha_split_by_head_count"),
}

CORRECT = {
    "q4_return_after_loop": {"softmax_entropy": _ENTROPY + '''def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    table = []
    for d in dims:
''' + _ROW + '''        table.append(row)
        if len(table) == len(dims):
            break
    return table
'''},
    "q2_scale_power_minus_half_parenthesised": {"dot_product_variance": _VARIANCE + '''    s = (q * k).sum(dim=-1)
    factor = d_k ** (-1 / 2) if scaled else 1.0
    return (s * factor).var().item()
'''},
    "q1_scores_times_power_minus_half": {"attention": _ATTENTION + '''    scores = Q @ K.T * d_k ** -0.5
    weights = torch.softmax(scores, dim=-1)
    return weights @ V, weights
'''},
    "mha_tensor_split_by_count": {"multi_head_attention": _MHA_HEAD + '''    heads = []
    for q, k, v in zip(Q.tensor_split(n_heads, dim=-1), K.tensor_split(n_heads, dim=-1), V.tensor_split(n_heads, dim=-1)):
        heads.append(attention(q, k, v, d_k)[0])
    return torch.cat(heads, dim=-1) @ W_O
'''},
}


def _graded(grader, name: str, cells: dict[str, str]):
    return grade_cells(grader, "scaled-attention", cells, f"round41_{name}")


@pytest.mark.parametrize("name", sorted(WRONG))
def test_own_wrong_variants_are_named(grader, name):
    cells, key = WRONG[name]
    outcome = _graded(grader, name, cells)
    assert outcome.score < outcome.max_score, outcome.explain()
    keys = [k for _q, _t, k, _m in outcome.failed]
    assert keys and all(k == ("scale_precedence" if key == "minus_half" else key) for k in keys), outcome.explain()
    messages = [m for _q, _t, _k, m in outcome.failed]
    if key == "table_return_in_loop":     # the first row kept: no aside about an append after the loop
        assert not any("keeps only the last row" in m for m in messages), outcome.explain()
    if key == "minus_half":     # scale_precedence, told as written: the minus quoted, the fix d_k ** -0.5
        assert all("d_k ** -0.5" in m and "1/(2 d_k)" in m and "** -1 / 2`" in m for m in messages), outcome.explain()
    if key == "scale_precedence":   # without the minus: the key's own text, no -0.5
        assert not any("d_k ** -0.5" in m or "d_k ** -1/2" in m for m in messages), outcome.explain()
    if key == "mha_split_by_head_count":
        assert all("tensor_split" in m for m in messages), outcome.explain()


@pytest.mark.parametrize("name", sorted(CORRECT))
def test_own_right_variants_keep_full_marks(grader, name):
    outcome = _graded(grader, name, CORRECT[name])
    assert outcome.full_marks, outcome.explain()


# --- in process: what each check leaves alone ----------------------------------------------------------------

def _rows(dims, seed):
    from reference import scaled_attention as ref
    return ref.entropy_table(dims, seed)


def _table_fn(keep):
    """An entropy_table that returns keep(rows) of the right rows."""
    return lambda dims, seed=3: keep(_rows(dims, seed))


@pytest.mark.parametrize("keep, named", [
    (lambda rows: rows[:1], True),                # the loop stops after its first d
    (lambda rows: rows[-1:], False),              # only the last row: another cause
    (lambda rows: _rows((4,), 3), False),         # always d = 4, whatever the dims: not the first d's row again
])
def test_first_row_only_needs_the_second_call(keep, named):
    dims = (4, 16, 64)
    again = _table_fn(keep)
    if named:
        with pytest.raises(D.Misconception) as m:
            D.raise_if_first_row_only(again(dims), dims, 3, again)
        assert m.value.key == "table_return_in_loop" and "dims = [64, 4]" in str(m.value)
    else:
        D.raise_if_first_row_only(again(dims), dims, 3, again)


def test_first_row_with_wrong_values_is_not_named():
    dims = (4, 16)
    rows = _rows(dims, 3)[:1]
    rows[0]["raw_std"] *= 2
    D.raise_if_first_row_only(rows, dims, 3, lambda dims, seed: _rows(dims, seed)[:1])


def test_last_row_only_keeps_the_append_aside():
    dims = (4, 16, 64)
    with pytest.raises(AssertionError, match="keeps only the last row"):
        D.raise_if_other_dims(_rows(dims, 1)[-1:], dims, 1)
    with pytest.raises(AssertionError) as first:
        D.raise_if_other_dims(_rows(dims, 1)[:1], dims, 1)
    assert "keeps only the last row" not in str(first.value) and "after the loop" in str(first.value)


@pytest.mark.parametrize("body, written", [
    ("return (dots * d_k ** -1/2).var().item()", "d_k ** -1 / 2"),
    ("return (dots * d_k ** -1.0 / 2.0).var().item()", "d_k ** -1.0 / 2"),
    ("s = d_k**-1/2\n    return (dots * s).var().item()", "d_k ** -1 / 2"),
    ("return (dots / d_k ** 1/2).var().item()", None),             # the slip without the minus: scale_precedence
    ("return (dots * d_k ** -0.5).var().item()", None),
    ("return (dots * d_k ** -1/2 + 0 * d_k ** 1/2).var().item()", None),   # both: not read
])
def test_power_minus_one_half_read_off_the_source(body, written):
    cell = ("def dot_product_variance(d_k, n_samples, generator, scaled=False):\n"
            "    dots = torch.randn(n_samples, generator=generator)\n    " + body + "\n")
    got = D._power_minus_one_half(SimpleNamespace(cells=[cell]))
    assert (got is None if written is None else got.replace(" ", "") == written.replace(" ", "")), got
