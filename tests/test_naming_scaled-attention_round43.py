"""Naming scaled-attention's mistakes, round 43 (blind42's kinds), through the grader on notebooks built from
full_marks with one cell replaced: a multi-head attention whose one-head case skips W_Q, W_K, W_V (a shortcut to
attention(X, X, X) @ W_O) is mha_one_head_skips_projections, replayed on the one-head case q8's first test now
holds (after its four heads, so a code that skips the projections for every head count keeps
mha_no_input_projections); an entropy table whose rows are right but come in another order than dims (a set, a
sort by another key), and again so when called with the dims reversed, is table_rows_reordered; a dot product
rebuilt as the cosine similarity times norms taken without dim (the whole sample matrices') is
dots_cosine_times_matrix_norms, replayed on the test's own draws. My own variants, not blind42's cells; each
kind has right variants of a similar shape that keep full marks."""
from __future__ import annotations

import pytest
import torch

from autograder.grading.checks import Misconception, matching_variants
from reference import scaled_attention as ref
from tests.heldout.harness import grade_cells
from tests.hidden_modules import load

D = load("scaled-attention", "_diagnose", "_test_scaled_r43__diagnose")

_ENTROPY = '''def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    log_p = torch.log_softmax(logits, dim=-1)
    return -(log_p.exp() * log_p).sum(dim=-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
'''

_ROW = '''        g = torch.Generator().manual_seed(seed)
        q, k = torch.randn(1, d, generator=g), torch.randn(5, d, generator=g)
        raw = (q @ k.T)[0]
        scaled = raw / math.sqrt(d)
        row = dict(d=d, raw_std=float(raw.std()), scaled_std=float(scaled.std()),
                   H_raw=float(softmax_entropy(raw)), H_scaled=float(softmax_entropy(scaled)))
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
'''

_MHA_LOOP = '''    heads = []
    for h in range(n_heads):
        c = slice(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(Q[:, c], K[:, c], V[:, c], d_k)
        heads.append(out_h)
    return torch.cat(heads, dim=-1) @ W_O
'''

WRONG = {
    # --- mha_one_head_skips_projections: one head attends over X itself ------------------------------------
    "mha_one_head_early_return": ({"multi_head_attention": _MHA_HEAD + '''    if n_heads == 1:                    # nothing to split
        out, _ = attention(X, X, X, X.shape[-1])
        return out @ W_O
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
''' + _MHA_LOOP}, "mha_one_head_skips_projections"),
    "mha_one_head_inputs_as_qkv": ({"multi_head_attention": _MHA_HEAD + '''    if n_heads > 1:
        Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    else:                               # a single head is plain self-attention
        Q = K = V = X
''' + _MHA_LOOP}, "mha_one_head_skips_projections"),
    "mha_one_head_batched_identity": ({"multi_head_attention": _MHA_HEAD + '''\
    proj = [W if n_heads > 1 else torch.eye(d_model, dtype=X.dtype) for W in (W_Q, W_K, W_V)]
    q, k, v = ((X @ W).view(T, n_heads, d_k).transpose(0, 1) for W in proj)
    w = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(d_k), dim=-1)
    return (w @ v).transpose(0, 1).reshape(T, d_model) @ W_O
'''}, "mha_one_head_skips_projections"),
    # --- table_rows_reordered: right rows, in another order than dims -----------------------------------------
    "table_set_literal": ({"softmax_entropy": _ENTROPY + '''    rows = []
    for d in list({*dims}):             # each d once
''' + _ROW + '''        rows.append(row)
    return rows
'''}, "table_rows_reordered"),
    "table_sorted_as_strings": ({"softmax_entropy": _ENTROPY + '''    rows = []
    for d in sorted(dims, key=str):
''' + _ROW + '''        rows.append(row)
    return rows
'''}, "table_rows_reordered"),
    "table_dict_by_name_sorted": ({"softmax_entropy": _ENTROPY + '''    by_name = {}
    for d in dims:
''' + _ROW + '''        by_name[f"d={d}"] = row
    return [by_name[name] for name in sorted(by_name)]
'''}, "table_rows_reordered"),
    # --- dots_cosine_times_matrix_norms: norms of the whole sample matrices --------------------------------
    "variance_cosine_times_torch_norm": ({"dot_product_variance": _VARIANCE + '''\
    dots = torch.cosine_similarity(q, k, dim=-1) * torch.norm(q) * torch.norm(k)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''}, "dots_cosine_times_matrix_norms"),
    "variance_cosine_by_hand_times_norms": ({"dot_product_variance": _VARIANCE + '''\
    cos = (q * k).sum(dim=1) / (q.norm(dim=1) * k.norm(dim=1))
    dots = cos * (q.norm() * k.norm())
    return float(torch.var(dots / math.sqrt(d_k) if scaled else dots))
'''}, "dots_cosine_times_matrix_norms"),
    "variance_cosine_one_matrix_norm": ({"dot_product_variance": _VARIANCE + '''\
    dots = F.cosine_similarity(q, k, dim=1) * q.norm(dim=1) * k.norm()
    scale = math.sqrt(d_k) if scaled else 1.0
    return (dots / scale).var().item()
'''}, "dots_cosine_times_matrix_norms"),
}

CORRECT = {
    "mha_one_head_shortcut_projected": {"multi_head_attention": _MHA_HEAD + '''    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    if n_heads == 1:                    # one head: no split needed
        return attention(Q, K, V, d_model)[0] @ W_O
''' + _MHA_LOOP},
    "mha_batched_any_head_count": {"multi_head_attention": _MHA_HEAD + '''\
    q, k, v = ((X @ W).view(T, n_heads, d_k).transpose(0, 1) for W in (W_Q, W_K, W_V))
    w = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(d_k), dim=-1)
    return (w @ v).transpose(0, 1).reshape(T, d_model) @ W_O
'''},
    "table_dict_fromkeys": {"softmax_entropy": _ENTROPY + '''    rows = []
    for d in dict.fromkeys(dims):       # each d once, in the order given
''' + _ROW + '''        rows.append(row)
    return rows
'''},
    "table_set_sorted_by_position": {"softmax_entropy": _ENTROPY + '''    rows = []
    for d in sorted(set(dims), key=list(dims).index):
''' + _ROW + '''        rows.append(row)
    return rows
'''},
    "variance_cosine_times_row_norms": {"dot_product_variance": _VARIANCE + '''\
    dots = F.cosine_similarity(q, k, dim=1) * q.norm(dim=1) * k.norm(dim=1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''},
}


def _graded(grader, name: str, cells: dict[str, str]):
    return grade_cells(grader, "scaled-attention", cells, f"round43_{name}")


_WHERE = {"mha_one_head_skips_projections": {"q8"}, "table_rows_reordered": {"q4"},
          "dots_cosine_times_matrix_norms": {"q2"}}


@pytest.mark.parametrize("name", sorted(WRONG))
def test_own_wrong_variants_are_named(grader, name):
    cells, key = WRONG[name]
    outcome = _graded(grader, name, cells)
    assert outcome.score < outcome.max_score, outcome.explain()
    keys = [k for _q, _t, k, _m in outcome.failed]
    assert keys and all(k == key for k in keys), outcome.explain()
    assert {q for q, _t, _k, _m in outcome.failed} == _WHERE[key], outcome.explain()
    messages = [m for _q, _t, _k, m in outcome.failed]
    if key == "mha_one_head_skips_projections":   # only the one-head case of the first test fails
        assert [t for _q, t, _k, _m in outcome.failed] == ["test_float64_against_reference"], outcome.explain()
        assert all("n_heads = 1" in m and "attention(X, X, X) @ W_O" in m for m in messages), outcome.explain()
    if key == "table_rows_reordered":
        assert all("in another order" in m and "asked for dims = " in m for m in messages), outcome.explain()


@pytest.mark.parametrize("name", sorted(CORRECT))
def test_own_right_variants_keep_full_marks(grader, name):
    outcome = _graded(grader, name, CORRECT[name])
    assert outcome.full_marks, outcome.explain()


def test_projections_skipped_for_every_head_count_keep_their_key(grader):
    """Skipping W_Q, W_K, W_V whatever n_heads is fails the several-head cases first: mha_no_input_projections,
    never the one-head shortcut."""
    cells = {"multi_head_attention": _MHA_HEAD + "    Q = K = V = X\n" + _MHA_LOOP}
    outcome = _graded(grader, "mha_no_projections_at_all", cells)
    keys = {k for _q, _t, k, _m in outcome.failed}
    assert keys == {"mha_no_input_projections"}, outcome.explain()


# --- in process: what each check leaves alone ----------------------------------------------------------------

def _mha_inputs(T, d_model, seed):
    g = torch.Generator().manual_seed(seed)
    X = torch.randn(T, d_model, generator=g, dtype=torch.float64)
    Ws = [torch.randn(d_model, d_model, generator=g, dtype=torch.float64) * d_model ** -0.5 for _ in range(4)]
    return X, Ws


def test_one_head_shortcut_is_no_other_one_head_variant():
    """On the one-head case's shapes (5, 12) the shortcut differs from the right output and matches only the
    no-projection replay among the catalogued ones."""
    for seed in range(3):
        X, Ws = _mha_inputs(5, 12, seed)
        right = ref.multi_head_attention(X, *Ws, 1)
        shortcut = ref.attention(X, X, X, 12)[0] @ Ws[3]
        assert not matching_variants(shortcut, {"right": right}, torch.float64)
        every = {**ref.mha_variants(X, *Ws, 1), **D.mha_slice_variants(X, *Ws, 1),
                 **D.mha_overwrite_variants(X, *Ws, 1)}
        hits = {k.split("/")[0] for k in matching_variants(shortcut, every, torch.float64, expected=right)}
        assert hits == {"mha_no_input_projections"}


def test_one_head_rekeying_needs_one_head_and_the_replay():
    X, Ws = _mha_inputs(5, 12, 0)
    shortcut = ref.attention(X, X, X, 12)[0] @ Ws[3]
    m = Misconception("mha_no_input_projections", "x")
    assert D.one_head_shortcut(m, shortcut, X, Ws, 1, "out").key == "mha_one_head_skips_projections"
    assert D.one_head_shortcut(m, shortcut, X, Ws, 4, "out") is m                     # several heads: unchanged
    assert D.one_head_shortcut(m, shortcut + 0.1, X, Ws, 1, "out") is m               # not the replay
    other = Misconception("mha_no_output_projection", "x")
    assert D.one_head_shortcut(other, shortcut, X, Ws, 1, "out") is other             # another key: unchanged


def _table_fn(order):
    def fn(dims, seed):
        return ref.entropy_table(list(order(list(dims))), seed)
    return fn


def test_reordered_rows_need_the_second_call():
    """Named only when the reversed dims come back out of order too; a table that follows the dims on the
    second call (an order fixed to one input) is said, not named; without the function it is said."""
    dims, seed = (4, 16, 64, 256), 0
    rows = ref.entropy_table([16, 256, 64, 4], seed)
    with pytest.raises(Misconception) as e:
        D.raise_if_other_dims(rows, dims, seed, _table_fn(lambda ds: sorted(ds, key=str)))
    assert e.value.key == "table_rows_reordered"
    for fn in (_table_fn(lambda ds: ds), None):
        with pytest.raises(AssertionError) as e:
            D.raise_if_other_dims(rows, dims, seed, fn)
        assert not isinstance(e.value, Misconception) and "another order" in str(e.value)
    # the rows' values wrong on the second call: not named
    wrong_values = _table_fn(lambda ds: sorted(ds, key=str))
    with pytest.raises(AssertionError) as e:
        D.raise_if_other_dims(rows, dims, seed, lambda dims, seed: wrong_values(dims, seed + 1))
    assert not isinstance(e.value, Misconception)


@pytest.mark.parametrize("scaled", [False, True])
def test_matrix_norm_replays_differ_from_every_other(scaled):
    """On q2's sizes each matrix-norm replay is far from the right variance and from every other replay."""
    for d_k in (12, 64):
        right, wrong = D.variance_variants_all(d_k, 10_000, 7, scaled)
        mine = {k: v for k, v in wrong.items() if k.startswith("dots_cosine_times_matrix_norms")}
        assert len(mine) == 6
        others = [v for k, v in wrong.items() if D.replay_key(k) != "dots_cosine_times_matrix_norms"] + list(right)
        for v in mine.values():
            assert all(abs(v - o) > 1e-3 * abs(o) for o in others)
            assert v > 50 * (1.0 if scaled else d_k)
