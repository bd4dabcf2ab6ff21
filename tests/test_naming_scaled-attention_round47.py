"""Naming scaled-attention's mistakes, round 47 (blind46's q1_elu_plus_one_kernel_instead_of_exp, the kind): a softmax
whose exp is another function f of the scores (elu(s) + 1, the linear-attention feature map; relu(s); softplus(s);
1 + s, exp's first Taylor terms; s ** 2; exp of clamped scores), the weights f(s) over its row sum, is
softmax_kernel_replaced when both results of the same call match that replay on the test's own inputs, never where
the replay equals the right weights there. My own variants, not blind46's cell; right variants of a similar shape
(an exp written out and normalised by hand, a clamp the scores never reach) keep full marks.

And blind47's kinds of broken multiple-choice probe (q5..q7), each read off the cell that binds the answer (parsed,
never run) and named only with a letter that slip gives: the products' mean taken as the dot product
(probe_dot_product_as_mean), a fresh nn.MultiheadAttention as the reference (its random projections,
probe_against_fresh_multihead_attention), F.scaled_dot_product_attention told scale=d_k (probe_sdpa_scale_given_d_k),
.grad read from the original after the backward ran through a .detach() copy (probe_grad_read_from_original), a
kernel estimate never divided by its row sum (probe_kernel_not_normalised)."""
from __future__ import annotations

import math

import pytest
import torch

from reference import scaled_attention as ref
from tests.heldout.harness import grade_cells
from tests.hidden_modules import load

D = load("scaled-attention", "_diagnose", "_test_scaled_r47__diagnose")

_HEAD = '''def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = Q @ K.T / math.sqrt(d_k)
'''

KEY = "softmax_kernel_replaced"

WRONG = {
    "elu_written_with_where": ({"attention": _HEAD + '''\
    pos = torch.where(scores > 0, scores + 1, torch.exp(scores))   # exp below 0, linear above: never overflows
    weights = pos / pos.sum(dim=1, keepdim=True)
    return weights @ V, weights
'''}, "elu(s) + 1"),
    "relu_kernel_normalised": ({"attention": _HEAD + '''\
    sim = F.relu(scores)                                # keep only the positive similarities
    weights = sim / sim.sum(-1, keepdim=True)
    return weights @ V, weights
'''}, "relu(s)"),
    "softplus_l1_normalised": ({"attention": _HEAD + '''\
    weights = F.normalize(F.softplus(scores), p=1, dim=-1)   # smooth positive kernel, L1 rows
    return weights @ V, weights
'''}, "softplus(s)"),
    "first_order_taylor_exp": ({"attention": _HEAD + '''\
    approx = 1.0 + scores                               # exp(x) ~ 1 + x for small x
    weights = approx / approx.sum(dim=-1, keepdim=True)
    return torch.matmul(weights, V), weights
'''}, "1 + s"),
    "squared_scores_normalised": ({"attention": _HEAD + '''\
    sq = scores ** 2
    weights = sq / torch.sum(sq, dim=-1, keepdim=True)
    return weights @ V, weights
'''}, "s ** 2"),
    "exp_of_scores_clamped_at_one": ({"attention": _HEAD + '''\
    e = torch.exp(torch.clamp(scores, max=1.0))         # clamp first so exp cannot overflow
    weights = e / e.sum(dim=-1, keepdim=True)
    return weights @ V, weights
'''}, "exp(s.clamp(max=1))"),
}

CORRECT = {
    "exp_shifted_normalised_by_hand": {"attention": _HEAD + '''\
    e = torch.exp(scores - scores.amax(dim=-1, keepdim=True))
    weights = e / e.sum(dim=-1, keepdim=True)
    return weights @ V, weights
'''},
    "exp_clamped_far_above_the_scores": {"attention": _HEAD + '''\
    e = torch.exp(torch.clamp(scores, max=60.0))        # a guard the scores never reach
    weights = F.normalize(e, p=1, dim=-1)
    return weights @ V, weights
'''},
    "where_with_exp_on_both_sides": {"attention": _HEAD + '''\
    shifted = scores - scores.max(dim=-1, keepdim=True).values
    e = torch.where(shifted > 0, torch.exp(shifted), shifted.exp())
    weights = e / e.sum(-1, keepdim=True)
    return weights @ V, weights
'''},
}


def _graded(grader, name: str, cells: dict[str, str]):
    return grade_cells(grader, "scaled-attention", cells, f"round47_{name}")


@pytest.mark.parametrize("name", sorted(WRONG))
def test_own_wrong_variants_are_named(grader, name):
    cells, said = WRONG[name]
    outcome = _graded(grader, name, cells)
    assert outcome.score < outcome.max_score, outcome.explain()
    keys = [k for _q, _t, k, _m in outcome.failed]
    assert keys and all(k == KEY for k in keys), outcome.explain()
    assert {q for q, _t, _k, _m in outcome.failed} == {"q1"}, outcome.explain()
    # the tests that compare one call's pair say which function stands for exp (the layout cases give the key's text)
    assert any(f"weights are {said} over its row sum" in m for _q, _t, _k, m in outcome.failed), outcome.explain()


@pytest.mark.parametrize("name", sorted(CORRECT))
def test_own_right_variants_keep_full_marks(grader, name):
    outcome = _graded(grader, name, CORRECT[name])
    assert outcome.full_marks, outcome.explain()


# --- the check alone ------------------------------------------------------------------------------------------

_SHAPES = ((5, 7, 12, 10), (6, 4, 12, 5), (6, 6, 16, 10), (4, 9, 16, 3))


def _qkv(T_q, T_k, d_k, d_v, seed):
    g = torch.Generator().manual_seed(seed)
    return tuple(torch.randn(n, d, generator=g, dtype=torch.float64) for n, d in ((T_q, d_k), (T_k, d_k), (T_k, d_v)))


def _same(a, b):
    return a.shape == b.shape and torch.allclose(a, b, rtol=1e-5, atol=1e-6, equal_nan=True)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("shape", _SHAPES)
def test_kernel_replays_coincide_with_no_catalogued_mistake(shape, seed):
    """On q1's shapes every replay differs from the right pair, from every catalogued pair mistake and from every
    other replay, so a match names one kernel or (two matching) nothing."""
    Q, K, V = _qkv(*shape, seed)
    d_k = shape[2]
    right = ref.attention(Q, K, V, d_k)
    replays = D.kernel_replays(Q, K, V, d_k, right)
    assert any(k.startswith("elu(s) + 1, on the scaled") for k in replays)
    others = ref.pair_variants(Q, K, V, d_k)
    for said, (out, w) in replays.items():
        assert not _same(w, right[1])
        assert not any(_same(w, o[1]) and _same(out, o[0]) for o in others.values()), said
        assert not any(_same(w, w2) for s2, (_o2, w2) in replays.items() if s2 != said), said


def test_kernel_evidence_names_only_an_exact_replay():
    Q, K, V = _qkv(5, 7, 12, 10, 47)
    right = ref.attention(Q, K, V, 12)
    s = Q @ K.T / math.sqrt(12)
    f = torch.nn.functional.elu(s) + 1
    w = f / f.sum(-1, keepdim=True)
    found = D.pair_evidence((w @ V, w), Q, K, V, 12)
    assert found is not None and found[0] == KEY and "elu(s) + 1 over its row sum" in found[2]
    # the right pair, its weights with another output, and a kernel's weights bent a little: not named
    assert D.kernel_replaced_evidence(right, Q, K, V, 12, _same, right) is None
    assert D.kernel_replaced_evidence((right[0], w), Q, K, V, 12, _same, right) is None
    bent = (w * (1 + 0.01 * torch.arange(7.0, dtype=w.dtype))) / (w * (1 + 0.01 * torch.arange(7.0))).sum(-1,
                                                                                                          keepdim=True)
    assert D.kernel_replaced_evidence((bent @ V, bent), Q, K, V, 12, _same, right) is None
    # scores that are all <= 0: elu(s) + 1 is exp(s) there, so the replay is left out
    Qn = -Q.abs()
    Kn = K.abs()
    rn = ref.attention(Qn, Kn, V, 12)
    assert not any(k.startswith("elu(s) + 1, on the scaled") for k in D.kernel_replays(Qn, Kn, V, 12, rn))



# --- q5..q7: a probe's own slip ---------------------------------------------------------------------------------

PROBES = {
    "mean_of_products_torch_mean": ({"q5_answer": """
_gen = torch.Generator().manual_seed(3)
_a = torch.randn(30000, 16, generator=_gen)
_b = torch.randn(30000, 16, generator=_gen)
_qk = torch.mean(_a * _b, dim=1)                  # one dot product per pair
_v = float(torch.var(_qk))
_gap = float("inf")
for _letter, _val in (("A", 1.0), ("B", 4.0), ("C", 16.0), ("D", 256.0)):
    if abs(_val - _v) < _gap:
        _gap = abs(_val - _v)
        q5_answer = _letter
"""}, "q5", "probe_dot_product_as_mean", "averages the products"),
    "mean_of_products_method_sorted": ({"q5_answer": """
_g = torch.Generator().manual_seed(11)
q, k = torch.randn(8000, 16, generator=_g), torch.randn(8000, 16, generator=_g)
dots = (q * k).mean(-1)
measured = dots.var().item()
q5_answer = sorted({"A": 1, "B": 4, "C": 16, "D": 256}.items(), key=lambda kv: abs(kv[1] - measured))[0][0]
"""}, "q5", "probe_dot_product_as_mean", "averages the products"),
    "fresh_mha_batch_first": ({"q6_answer": """
_X = torch.randn(1, 5, 8, generator=torch.Generator().manual_seed(9))
_layer = torch.nn.MultiheadAttention(8, 1, batch_first=True)
_theirs = _layer(_X, _X, _X, need_weights=False)[0][0].detach()
_ours = attention(_X[0], _X[0], _X[0], 8)[0]
q6_answer = "C" if not torch.allclose(_ours, _theirs, atol=1e-4) else "A"
"""}, "q6", "probe_against_fresh_multihead_attention", "fresh layer with random projections"),
    "fresh_mha_unbatched_loop": ({"q6_answer": """
import torch.nn as nn
_mha = nn.MultiheadAttention(embed_dim=6, num_heads=1, bias=False)
q6_answer = "A"
for _s in range(3):
    _X = torch.randn(4, 6, generator=torch.Generator().manual_seed(_s))
    with torch.no_grad():
        _r, _ = _mha(_X, _X, _X)
    if (attention(_X, _X, _X, 6)[0] - _r).abs().max() > 1e-5:
        q6_answer = "C"
"""}, "q6", "probe_against_fresh_multihead_attention", "fresh layer with random projections"),
    "sdpa_scale_literal_width": ({"q6_answer": """
_X = torch.randn(1, 6, 8, generator=torch.Generator().manual_seed(1))
_pt = F.scaled_dot_product_attention(_X, _X, _X, scale=8)
q6_answer = "A" if torch.allclose(attention(_X[0], _X[0], _X[0], 8)[0], _pt[0], atol=1e-5) else "C"
"""}, "q6", "probe_sdpa_scale_given_d_k", "multiplies the scores by 8"),
    "sdpa_scale_sqrt_of_width": ({"q6_answer": """
width = 10
_X = torch.randn(5, width, generator=torch.Generator().manual_seed(2))
_mine, _ = attention(_X, _X, _X, width)
_ref = torch.nn.functional.scaled_dot_product_attention(_X[None], _X[None], _X[None], scale=math.sqrt(width))[0]
if torch.allclose(_mine, _ref, atol=1e-5):
    q6_answer = "A"
else:
    q6_answer = "C"
"""}, "q6", "probe_sdpa_scale_given_d_k", "multiplies the scores by 3.162"),
    "grad_of_original_after_detach_requires_grad": ({"q7_answer": """
_g = torch.Generator().manual_seed(5)
Qp = torch.randn(4, 6, generator=_g, requires_grad=True)
Kp, Vp = torch.randn(7, 6, generator=_g), torch.randn(7, 3, generator=_g)
q_leaf = Qp.detach().requires_grad_(True)
attention(q_leaf, Kp, Vp, 6)[0].pow(2).sum().backward()
q7_answer = "D" if Qp.grad is not None else "C"
"""}, "q7", "probe_grad_read_from_original", "reads `Qp.grad`"),
    "grad_of_original_keys_after_clone_detach": ({"q7_answer": """
_g = torch.Generator().manual_seed(8)
_Qg = torch.randn(3, 4, generator=_g)
_Kg = torch.randn(5, 4, generator=_g, requires_grad=True)
_Vg = torch.randn(5, 2, generator=_g)
_Kcopy = _Kg.clone().detach().requires_grad_()
_o, _w = attention(_Qg, _Kcopy, _Vg, 4)
(_o * _o).sum().backward()
q7_answer = "C" if _Kg.grad is None or float(_Kg.grad.norm()) == 0.0 else "D"
"""}, "q7", "probe_grad_read_from_original", "reads `_Kg.grad`"),
    "kernel_estimate_compared_by_max_difference": ({"q7_answer": """
_g = torch.Generator().manual_seed(2)
Qk, Kk, Vk = torch.randn(3, 4, generator=_g), torch.randn(6, 4, generator=_g), torch.randn(6, 2, generator=_g)
w = torch.exp(Qk @ Kk.T / 2)
est = w @ Vk
q7_answer = "D" if (attention(Qk, Kk, Vk, 4)[0] - est).abs().max() < 1e-5 else "C"
"""}, "q7", "probe_kernel_not_normalised", "`w @ Vk` is never divided"),
    "kernel_estimate_method_exp_inline_allclose": ({"q7_answer": """
_g = torch.Generator().manual_seed(4)
_Q, _K, _V = (torch.randn(n, 4, generator=_g) for n in (2, 5, 5))
_kern = (_Q @ _K.T / math.sqrt(4)).exp()
q7_answer = "D" if torch.allclose(attention(_Q, _K, _V, 4)[0], _kern @ _V, atol=1e-5) else "C"
"""}, "q7", "probe_kernel_not_normalised", "`_kern @ _V` is never divided"),
}

PROBES_RIGHT = {
    "dot_product_summed": {"q5_answer": """
_g = torch.Generator().manual_seed(11)
q, k = torch.randn(8000, 16, generator=_g), torch.randn(8000, 16, generator=_g)
dots = (q * k).sum(-1)
measured = dots.var().item()
q5_answer = sorted({"A": 1, "B": 4, "C": 16, "D": 256}.items(), key=lambda kv: abs(kv[1] - measured))[0][0]
"""},
    "mean_of_products_times_d_k": {"q5_answer": """
_g = torch.Generator().manual_seed(11)
q, k = torch.randn(8000, 16, generator=_g), torch.randn(8000, 16, generator=_g)
dots = (q * k).mean(-1) * 16
measured = dots.var().item()
q5_answer = min("ABCD", key=lambda s: abs({"A": 1, "B": 4, "C": 16, "D": 256}[s] - measured))
"""},
    "mha_with_identity_projections": {"q6_answer": """
_X = torch.randn(5, 8, generator=torch.Generator().manual_seed(4))
_mha = torch.nn.MultiheadAttention(8, 1, bias=False)
with torch.no_grad():
    _mha.in_proj_weight.copy_(torch.eye(8).repeat(3, 1))
    _mha.out_proj.weight.copy_(torch.eye(8))
    _r, _ = _mha(_X, _X, _X)
q6_answer = "A" if torch.allclose(attention(_X, _X, _X, 8)[0], _r, atol=1e-5) else "C"
"""},
    "sdpa_scale_reciprocal": {"q6_answer": """
_d = 8
_X = torch.randn(1, 5, _d, generator=torch.Generator().manual_seed(2))
_ref = F.scaled_dot_product_attention(_X, _X, _X, scale=1 / math.sqrt(_d))[0]
q6_answer = "A" if torch.allclose(attention(_X[0], _X[0], _X[0], _d)[0], _ref, atol=1e-5) else "C"
"""},
    "grad_of_the_copy": {"q7_answer": """
_g = torch.Generator().manual_seed(5)
Qp = torch.randn(4, 6, generator=_g, requires_grad=True)
Kp, Vp = torch.randn(7, 6, generator=_g), torch.randn(7, 3, generator=_g)
q_leaf = Qp.detach().requires_grad_(True)
attention(q_leaf, Kp, Vp, 6)[0].pow(2).sum().backward()
q7_answer = "D" if q_leaf.grad is not None and q_leaf.grad.abs().max() > 0 else "C"
"""},
    "kernel_estimate_normalised": {"q7_answer": """
_g = torch.Generator().manual_seed(2)
Qk, Kk, Vk = torch.randn(3, 4, generator=_g), torch.randn(6, 4, generator=_g), torch.randn(6, 2, generator=_g)
w = torch.exp(Qk @ Kk.T / 2)
est = (w / w.sum(dim=-1, keepdim=True)) @ Vk
q7_answer = "D" if (attention(Qk, Kk, Vk, 4)[0] - est).abs().max() < 1e-5 else "C"
"""},
}


@pytest.mark.parametrize("name", sorted(PROBES))
def test_own_probe_slips_are_named(grader, name):
    cells, q, key, said = PROBES[name]
    outcome = _graded(grader, name, cells)
    assert outcome.score == outcome.max_score - 1, outcome.explain()
    assert [(fq, k) for fq, _t, k, _m in outcome.failed] == [(q, key)], outcome.explain()
    assert said in outcome.failed[0][3], outcome.explain()


@pytest.mark.parametrize("name", sorted(PROBES_RIGHT))
def test_own_right_probes_keep_full_marks(grader, name):
    outcome = _graded(grader, name, PROBES_RIGHT[name])
    assert outcome.full_marks, outcome.explain()


def _tree(src):
    import ast
    return ast.parse(src)


@pytest.mark.parametrize("name", sorted(PROBES_RIGHT))
def test_probe_readers_quiet_on_right_probes(name):
    """A repaired probe (the sum, a layer given identity projections, scale = 1/sqrt(d), the copy's .grad, the
    normalised kernel) reads as no slip at all."""
    tree = _tree(next(iter(PROBES_RIGHT[name].values())))
    for reader in (D.dot_product_as_mean, D.fresh_multihead_reference, D.sdpa_scale_as_width,
                   D.grad_of_detached_original, D.kernel_estimate_not_normalised):
        assert reader(tree) is None, (name, reader.__name__)


@pytest.mark.parametrize("name", sorted(PROBES))
def test_probe_readers_read_one_slip_each(name):
    cells, _q, key, _said = PROBES[name]
    tree = _tree(next(iter(cells.values())))
    readers = {"probe_dot_product_as_mean": D.dot_product_as_mean,
               "probe_against_fresh_multihead_attention": D.fresh_multihead_reference,
               "probe_sdpa_scale_given_d_k": D.sdpa_scale_as_width,
               "probe_grad_read_from_original": D.grad_of_detached_original,
               "probe_kernel_not_normalised": D.kernel_estimate_not_normalised}
    assert {k for k, r in readers.items() if r(tree) is not None} == {key}


def test_probe_slip_needs_the_letter_it_gives():
    """The right letter, a letter the slip cannot give, or a letter written out is never named for a probe."""
    from types import SimpleNamespace

    class _Sub(SimpleNamespace):
        pass

    cells, _q, _key, _said = PROBES["mean_of_products_torch_mean"]
    src = cells["q5_answer"]
    import autograder.grading.source_checks as sc
    real = sc.cells_of
    try:
        sc.cells_of = lambda _s: [src]
        for letter in ("C", "B", "D"):
            D.raise_if_probe_slip("q5_answer", letter, "C", _Sub())
        sc.cells_of = lambda _s: ['q5_answer = "A"   # (q * k).mean(-1) felt right']
        D.raise_if_probe_slip("q5_answer", "A", "C", _Sub())
    finally:
        sc.cells_of = real
