"""Naming scaled-attention's mistakes, round 44 (blind43's kinds), through the grader on notebooks built from
full_marks with one cell replaced: a multi-head attention whose projections are chained (K = Q @ W_K, V = K @ W_V,
or V = Q @ W_V, or Q = K @ W_Q: one projection made from another instead of from X) is mha_projection_chained,
replayed on the test's own inputs for every acyclic choice of sources, and told with the chain that matched; an
entropy table with two columns exchanged (a value list zipped with the keys in another order) keeps
table_fields_swapped, now told with the two columns whose values are exchanged. My own variants, not blind43's
cells; each kind has right variants of a similar shape that keep full marks."""
from __future__ import annotations

import pytest
import torch

from autograder.grading.checks import Misconception, matching_variants, randn
from reference import scaled_attention as ref
from tests.heldout.harness import grade_cells
from tests.hidden_modules import load

D = load("scaled-attention", "_diagnose", "_test_scaled_r44__diagnose")

_ENTROPY = '''def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    log_p = torch.log_softmax(logits, dim=-1)
    return -(log_p.exp() * log_p).sum(dim=-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    rows = []
    for d in dims:
        g = torch.Generator().manual_seed(seed)
        q, k = torch.randn(1, d, generator=g), torch.randn(5, d, generator=g)
        raw = (q @ k.T)[0]
        scaled = raw / math.sqrt(d)
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

_MHA_BATCHED = '''    q, k, v = (P.view(T, n_heads, d_k).transpose(0, 1) for P in (Q, K, V))
    w = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(d_k), dim=-1)
    return (w @ v).transpose(0, 1).reshape(T, d_model) @ W_O
'''

WRONG = {
    # --- mha_projection_chained: a projection made from another projection -------------------------------
    "mha_running_product_over_weights": ({"multi_head_attention": _MHA_HEAD + '''    projections = []
    x = X
    for W in (W_Q, W_K, W_V):
        x = x @ W                       # each projection feeds the next
        projections.append(x)
    Q, K, V = projections
''' + _MHA_LOOP}, "mha_projection_chained", "K = Q @ W_K, V = K @ W_V"),
    "mha_values_from_queries_batched": ({"multi_head_attention": _MHA_HEAD + '''\
    Q = X @ W_Q
    K = X @ W_K
    V = Q @ W_V
''' + _MHA_BATCHED}, "mha_projection_chained", "V = Q @ W_V"),
    "mha_queries_from_keys": ({"multi_head_attention": _MHA_HEAD + '''\
    K = torch.matmul(X, W_K)
    Q = torch.matmul(K, W_Q)
    V = torch.matmul(X, W_V)
''' + _MHA_LOOP}, "mha_projection_chained", "Q = K @ W_Q"),
    # --- table_fields_swapped: two columns exchanged, told by name ---------------------------------------------
    "table_zip_entropies_swapped": ({"softmax_entropy": _ENTROPY + '''\
        keys = ("d", "raw_std", "scaled_std", "H_raw", "H_scaled")
        values = (d, raw.std().item(), scaled.std().item(),
                  softmax_entropy(scaled).item(), softmax_entropy(raw).item())
        rows.append(dict(zip(keys, values)))
    return rows
'''}, "table_fields_swapped", "H_raw and H_scaled"),
    "table_stds_under_each_others_key": ({"softmax_entropy": _ENTROPY + '''\
        rows.append({"d": d, "raw_std": float(scaled.std()), "scaled_std": float(raw.std()),
                     "H_raw": float(softmax_entropy(raw)), "H_scaled": float(softmax_entropy(scaled))})
    return rows
'''}, "table_fields_swapped", "raw_std and scaled_std"),
    "table_zip_std_and_entropy_swapped": ({"softmax_entropy": _ENTROPY + '''\
        names = ["d", "raw_std", "scaled_std", "H_raw", "H_scaled"]
        stats = [d, raw.std().item(), softmax_entropy(raw).item(), scaled.std().item(),
                 softmax_entropy(scaled).item()]
        rows.append({n: s for n, s in zip(names, stats)})
    return rows
'''}, "table_fields_swapped", "scaled_std and H_raw"),
}

CORRECT = {
    "mha_projections_in_a_list": {"multi_head_attention": _MHA_HEAD + '''    projections = []
    for W in (W_Q, W_K, W_V):
        projections.append(X @ W)      # each from the input
    Q, K, V = projections
''' + _MHA_LOOP},
    "mha_one_name_reused_for_each_projection": {"multi_head_attention": _MHA_HEAD + '''\
    P = X @ W_Q
    Q = P
    P = X @ W_K
    K = P
    P = X @ W_V
    V = P
''' + _MHA_BATCHED},
    "table_zip_in_key_order": {"softmax_entropy": _ENTROPY + '''\
        keys = ("d", "raw_std", "scaled_std", "H_raw", "H_scaled")
        values = (d, raw.std().item(), scaled.std().item(),
                  softmax_entropy(raw).item(), softmax_entropy(scaled).item())
        rows.append(dict(zip(keys, values)))
    return rows
'''},
}


def _graded(grader, name: str, cells: dict[str, str]):
    return grade_cells(grader, "scaled-attention", cells, f"round44_{name}")


_WHERE = {"mha_projection_chained": {"q8"}, "table_fields_swapped": {"q4"}}


@pytest.mark.parametrize("name", sorted(WRONG))
def test_own_wrong_variants_are_named(grader, name):
    cells, key, said = WRONG[name]
    outcome = _graded(grader, name, cells)
    assert outcome.score < outcome.max_score, outcome.explain()
    keys = [k for _q, _t, k, _m in outcome.failed]
    assert keys and all(k == key for k in keys), outcome.explain()
    assert {q for q, _t, _k, _m in outcome.failed} == _WHERE[key], outcome.explain()
    messages = [m for _q, _t, _k, m in outcome.failed]
    assert all(said in m for m in messages), outcome.explain()
    if key == "mha_projection_chained":
        assert len(messages) == 3, outcome.explain()


@pytest.mark.parametrize("name", sorted(CORRECT))
def test_own_right_variants_keep_full_marks(grader, name):
    outcome = _graded(grader, name, CORRECT[name])
    assert outcome.full_marks, outcome.explain()


def _mha_inputs(T, d_model, seed, dtype=torch.float64):
    rng = torch.Generator().manual_seed(seed)
    X = randn((T, d_model), rng, dtype)
    return X, [randn((d_model, d_model), rng, dtype, scale=d_model ** -0.5) for _ in range(4)]


@pytest.mark.parametrize("shape", [(5, 48, 4), (5, 12, 1), (7, 36, 3), (6, 32, 8)])
def test_chains_differ_from_the_right_output_and_every_other_variant(shape):
    """On q8's shapes, each chain differs from the right output, from every other chain and from every variant
    q8 already tries (so mha_projection_chained can coincide with no other catalogued mistake)."""
    T, d_model, n_heads = shape
    X, Ws = _mha_inputs(T, d_model, 44)
    right = ref.multi_head_attention(X, *Ws, n_heads)
    others = {**ref.mha_variants(X, *Ws, n_heads), **D.mha_slice_variants(X, *Ws, n_heads),
              **D.mha_overwrite_variants(X, *Ws, n_heads)}
    chains = D.chained_projection_variants(X, *Ws, n_heads)
    assert len(chains) == 15           # 3 sources per role, 27, less all-X, less the 11 with a cycle
    for key, out in chains.items():
        assert not matching_variants(out, {"right": right}, torch.float32), key
        rest = {**others, **{k: v for k, v in chains.items() if k != key}}
        assert not matching_variants(out.float(), rest, torch.float32), key


def test_chain_is_said_only_where_it_matches():
    """The chain told is the one replayed; another key, or an output no chain gives, is left as it was."""
    X, Ws = _mha_inputs(5, 48, 7)
    W_Q, W_K, W_V, W_O = Ws
    Q = X @ W_Q
    K = Q @ W_K
    V = X @ W_V
    heads = [ref.attention(Q[:, h * 12:(h + 1) * 12], K[:, h * 12:(h + 1) * 12], V[:, h * 12:(h + 1) * 12], 12)[0]
             for h in range(4)]
    got = torch.cat(heads, dim=-1) @ W_O
    m = D.projection_chain_said(Misconception("mha_projection_chained", "x"), got, X, Ws, 4, "mha(...)")
    assert "K = Q @ W_K on the same input" in str(m)
    other = Misconception("same_projection", "y")
    assert D.projection_chain_said(other, got, X, Ws, 4, "mha(...)") is other
    unchained = Misconception("mha_projection_chained", "z")
    assert D.projection_chain_said(unchained, got + 1.0, X, Ws, 4, "mha(...)") is unchained


def test_swap_said_names_the_exchanged_pair():
    dims, seed = (12, 48, 100), 3
    rows = ref.entropy_table(dims, seed)
    swapped = ref.table_as_tensor([{**r, "scaled_std": r["H_raw"], "H_raw": r["scaled_std"]} for r in rows])
    m = D.table_swap_said(Misconception("table_fields_swapped", "x"), swapped, dims, seed)
    assert "scaled_std and H_raw hold each other's values" in str(m)
    untouched = Misconception("table_field_copied", "y")
    assert D.table_swap_said(untouched, swapped, dims, seed) is untouched
