"""Naming scaled-attention's mistakes, round 56 (blind56's mis-named and raw variants, the kinds).

size_one_axes_added (was keepdim_left_on): attention adds a size-1 batch axis (unsqueeze(0) for torch.bmm, a [None],
a .view(1, ...)) and never takes it off: the values are right with a leading size-1 axis, and nothing is reduced, so
the key is the one for an added axis, with the expression that adds it quoted (in q1, and in q8 where
multi_head_attention passes it on). keepdim_left_on stays where the source keeps a reduced axis (a .sum(..., keepdim=
True) that makes the output); a softmax's own keepdim=True normaliser (e / e.sum(-1, keepdim=True)) is no kept axis.
Squeezing the axis off again keeps full marks.

dtype_mix from torch.allclose's words: a sanity check compares the weights' row sums with a tensor made in the
default float32 (torch.ones(T_q), torch.tensor([1.0] * T_q)) in torch.allclose or torch.isclose, which do not promote:
float64 inputs raise "Double did not match Float", and the same call in float32 runs and is right; the ones made
with the weights' dtype keep full marks.

entropy_wrong_dim told as F.cross_entropy's class axis: softmax_entropy written as F.cross_entropy(logits, p,
reduction="none") computes over dim 1 for logits of 3 or more axes; named by the exact replay, the message says
F.cross_entropy takes its classes on dim 1; the same with the rows flattened to (N, T) first keeps full marks.

My own variants, not the blind sets' cells; right neighbours keep full marks."""
from __future__ import annotations

import pytest

from tests.heldout.harness import grade_cells


def _attention(body: str) -> dict[str, str]:
    return {"attention": f'''def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""
{body}
'''}


ADDED = {
    "index_none_matmul": _attention(
        "    scores = Q[None] @ K[None].transpose(-2, -1) / math.sqrt(d_k)\n"
        "    weights = torch.softmax(scores, dim=-1)\n    return weights @ V[None], weights"),
    "view_one_bmm": _attention(
        "    q, k, v = Q.view(1, *Q.shape), K.view(1, *K.shape), V.view(1, *V.shape)\n"
        "    weights = F.softmax(torch.bmm(q, k.transpose(1, 2)) / d_k ** 0.5, dim=-1)\n"
        "    return torch.bmm(weights, v), weights"),
    "unsqueeze_function_softmax_by_hand": _attention(
        "    scores = torch.bmm(torch.unsqueeze(Q, 0), torch.unsqueeze(K, 0).mT) / math.sqrt(d_k)\n"
        "    e = torch.exp(scores - scores.max(dim=-1, keepdim=True).values)\n"
        "    weights = e / e.sum(dim=-1, keepdim=True)\n"
        "    return weights @ V, weights"),
}
ADDED_RIGHT = {
    "bmm_squeezed_back": _attention(
        "    scores = torch.bmm(Q.unsqueeze(0), K.T.unsqueeze(0)) / math.sqrt(d_k)\n"
        "    weights = F.softmax(scores, dim=-1)\n"
        "    return torch.bmm(weights, V.unsqueeze(0))[0], weights.squeeze(0)"),
    "softmax_by_hand_keepdim": _attention(
        "    scores = Q @ K.T / math.sqrt(d_k)\n    e = torch.exp(scores - scores.amax(-1, keepdim=True))\n"
        "    weights = e / e.sum(-1, keepdim=True)\n    return weights @ V, weights"),
}
# the output as a weighted sum over the keys, the keys' axis kept (keepdim=True): a kept reduced axis, (T_q, 1, d_v)
KEPT = _attention("    weights = F.softmax(Q @ K.T / math.sqrt(d_k), dim=-1)\n"
                  "    output = (weights.unsqueeze(-1) * V.unsqueeze(0)).sum(dim=1, keepdim=True)\n"
                  "    return output, weights")

ALLCLOSE = {
    "assert_allclose_ones": _attention(
        "    weights = F.softmax(Q @ K.T / math.sqrt(d_k), dim=-1)\n"
        "    assert torch.allclose(weights.sum(-1), torch.ones(weights.shape[0]))\n"
        "    return weights @ V, weights"),
    "isclose_tensor_of_list": _attention(
        "    weights = torch.softmax(torch.matmul(Q, K.transpose(0, 1)) * d_k ** -0.5, dim=1)\n"
        "    if not torch.isclose(weights.sum(dim=1), torch.tensor([1.0] * Q.shape[0])).all():\n"
        "        raise ValueError('rows do not sum to 1')\n"
        "    return torch.matmul(weights, V), weights"),
    "allclose_zeros_of_scores": _attention(
        "    scores = Q @ K.T / math.sqrt(d_k)\n    weights = F.softmax(scores, dim=-1)\n"
        "    if torch.allclose(weights - weights.mean(-1, keepdim=True), torch.zeros(scores.shape)):\n"
        "        print('uniform weights')\n"
        "    return weights @ V, weights"),
}
ALLCLOSE_RIGHT = {
    "ones_like": _attention(
        "    weights = F.softmax(Q @ K.T / math.sqrt(d_k), dim=-1)\n"
        "    assert torch.allclose(weights.sum(-1), torch.ones_like(weights[:, 0]))\n"
        "    return weights @ V, weights"),
    "ones_with_dtype": _attention(
        "    weights = F.softmax(Q @ K.T / math.sqrt(d_k), dim=-1)\n"
        "    assert torch.allclose(weights.sum(-1), torch.ones(Q.shape[0], dtype=weights.dtype))\n"
        "    return weights @ V, weights"),
}


def _entropy(body: str) -> dict[str, str]:
    return {"softmax_entropy": f'''def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
{body}


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    rows = []
    for d in dims:
        torch.manual_seed(seed)
        q, k = torch.randn(1, d), torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / math.sqrt(d)
        rows.append(dict(d=d, raw_std=raw.std().item(), scaled_std=scaled.std().item(),
                         H_raw=softmax_entropy(raw).item(), H_scaled=softmax_entropy(scaled).item()))
    return rows
'''}


CROSS = {
    "functional_soft_labels": _entropy(
        "    return torch.nn.functional.cross_entropy(logits, logits.softmax(-1), reduction='none')"),
    "named_probs": _entropy("    probs = torch.softmax(logits, dim=-1)\n"
                            "    H = F.cross_entropy(input=logits, target=probs, reduction=\"none\")\n    return H"),
}
CROSS_RIGHT = {
    "rows_flattened_first": _entropy(
        "    T = logits.shape[-1]\n    rows = logits.reshape(-1, T)\n"
        "    H = F.cross_entropy(rows, F.softmax(rows, dim=-1), reduction='none')\n"
        "    return H.reshape(logits.shape[:-1])"),
}


@pytest.mark.parametrize("name", sorted(ADDED))
def test_added_batch_axis_is_size_one_axes_added(grader, name):
    outcome = grade_cells(grader, "scaled-attention", ADDED[name], f"round56_{name}")
    assert outcome.score < outcome.max_score, outcome.explain()
    q1 = [(k, m) for q, _t, k, m in outcome.failed if q == "q1"]
    assert len(q1) >= 4 and all(k == "size_one_axes_added" for k, _m in q1), outcome.explain()
    assert all(k == "size_one_axes_added" for _q, _t, k, _m in outcome.failed), outcome.explain()
    assert all("the axis comes from `" in m and "in attention" in m for _k, m in q1), outcome.explain()


def test_kept_reduced_axis_stays_keepdim_left_on(grader):
    outcome = grade_cells(grader, "scaled-attention", KEPT, "round56_kept_sum")
    assert outcome.score < outcome.max_score, outcome.explain()
    q1 = [k for q, _t, k, _m in outcome.failed if q == "q1"]
    assert q1 and "keepdim_left_on" in q1, outcome.explain()
    assert all(k != "size_one_axes_added" for _q, _t, k, _m in outcome.failed), outcome.explain()


@pytest.mark.parametrize("name", sorted(ALLCLOSE))
def test_allclose_with_default_float32_is_dtype_mix(grader, name):
    outcome = grade_cells(grader, "scaled-attention", ALLCLOSE[name], f"round56_{name}")
    assert outcome.score < outcome.max_score, outcome.explain()
    q1 = [(k, m) for q, _t, k, m in outcome.failed if q == "q1"]
    assert len(q1) >= 2 and all(k == "dtype_mix" for k, _m in q1), outcome.explain()
    assert all(k == "dtype_mix" for _q, _t, k, _m in outcome.failed), outcome.explain()
    assert all("did not match" in m and "in float32 it runs" in m for _k, m in q1), outcome.explain()


@pytest.mark.parametrize("name", sorted(CROSS))
def test_cross_entropy_class_axis_is_said(grader, name):
    outcome = grade_cells(grader, "scaled-attention", CROSS[name], f"round56_{name}")
    assert outcome.score < outcome.max_score, outcome.explain()
    assert outcome.failed and all((q, k) == ("q4", "entropy_wrong_dim")
                                  for q, _t, k, _m in outcome.failed), outcome.explain()
    assert any("F.cross_entropy takes its classes on dim 1" in m for _q, _t, _k, m in outcome.failed), \
        outcome.explain()


RIGHT = {**ADDED_RIGHT, **ALLCLOSE_RIGHT, **CROSS_RIGHT}


@pytest.mark.parametrize("name", sorted(RIGHT))
def test_own_right_variants_keep_full_marks(grader, name):
    outcome = grade_cells(grader, "scaled-attention", RIGHT[name], f"round56_{name}")
    assert outcome.full_marks, outcome.explain()
