"""sdpa-from-scratch, naming round 43 (after blind42): q2's scores or their variance taken through bfloat16 or float16
is half_precision_scores on q2 too (replayed on the example: Q and K cast before the product, or the scores cast
after it, the variance in that dtype or cast back; float16 read back in float32 is within the tolerance and passes);
a q1 shape probe whose einsum has no '->' and repeats the batch letter is batch_dim_dropped with the reason (implicit
mode sums every repeated letter away), replayed with the cell's own subscripts; q6's causal weights with the -1e9
penalty put where causal_mask is True (TensorFlow's `logits += mask * -1e9`, whose mask marks the keys to hide) is
inverted_mask, from a replay, where the cell uses causal_mask without inverting it (a +1e9 on ~mask, a sign slip
with the same weights, stays with the one-edit search). Each kind is graded through the sandbox on variants of its
own, with correct neighbours that keep full marks."""
from __future__ import annotations

import pytest
import torch

from tests.heldout.harness import graded_as
from tests.hidden_modules import load

diag = load("sdpa-from-scratch", "_diagnose", "_test_sdpa_round43_diagnose")
q2 = load("sdpa-from-scratch", "q2", "_test_sdpa_round43_q2")
q6 = load("sdpa-from-scratch", "q6", "_test_sdpa_round43_q6")
ref = diag.ref


# --- unit: what each check reads -------------------------------------------------------------------------------------

def _q2_catalogued_raw_values():
    """What q2's other keys give for raw_score_var on the example (the right value among them)."""
    vals = [r for r, _ in q2._other_values(50)]
    vals += [v for vs in diag.score_statistics().values() for v in vs]
    vals += list(diag.new_sample_score_variances())
    vals += [ref.raw_score_var * 49 / c for c in q2._AXIS_COUNTS]
    Q, K = ref._Qb.double(), ref._Kb.double()
    vals.append(float((Q.reshape(-1, 8) @ K.reshape(-1, 8).T).var()))
    p = Q[:, :, None, :] * K[:, None, :, :]
    d = torch.cdist(Q, K)
    vals += [float(p.var()), float(p.var(unbiased=False)), float(d.var()), float((d ** 2).var())]
    for how in ("layer_norm", "layer_norm without eps", "row std unbiased", "row std biased", "tensor std unbiased",
                "tensor std biased"):
        for q, k in ((q2._standardised(Q, how), q2._standardised(K, how)), (q2._standardised(Q, how), K),
                     (Q, q2._standardised(K, how))):
            s = q @ k.transpose(-2, -1)
            vals += [float(s.var()), float(s.var(unbiased=False))]
    s = (Q / Q.norm(dim=-1, keepdim=True)) @ (K / K.norm(dim=-1, keepdim=True)).transpose(-2, -1)
    return vals + [float(s.var()), float(s.var(unbiased=False))]


def test_half_precision_variances_are_no_other_value_of_q2():
    replays = diag.half_precision_variance_replays(q2.ATOL)
    assert {dtype for _r, _s, dtype, _c, _w in replays} == {"bfloat16", "float16"}
    others = _q2_catalogued_raw_values()
    for raw, _scaled, _dtype, _cast, _where in replays:
        assert abs(raw - ref.raw_score_var) > q2.ATOL                       # wrong by the grader's own tolerance
        assert all(abs(raw - v) > q2.ATOL for v in others)                  # and no other key's value
    for raw, scaled, _dtype, _cast, _where in replays:
        for s in (*scaled, ref.scaled_score_var):
            with pytest.raises(diag.Misconception) as named:
                diag.name_half_precision_variances(raw, s, q2.ATOL)
            assert named.value.key == "half_precision_scores"
        diag.name_half_precision_variances(raw, 1.0, q2.ATOL)        # scaled some other way: nothing
    diag.name_half_precision_variances(ref.raw_score_var, ref.scaled_score_var, q2.ATOL)     # right: nothing


def test_keep_mask_penalty_replays_are_no_other_catalogued_weights():
    catalogued = {**q6._causal_variants(), **q6._rounded(ref.weights3_causal), **q6._plain_sum(True),
                  **q6._e_rounded(True), "right": ref.weights3_causal, "unmasked": ref.weights3}
    replays = diag.keep_mask_penalty_replays()
    assert not torch.allclose(replays["added"], replays["filled"], atol=10 * q6.ATOL)
    for name, w in replays.items():
        assert torch.allclose(w.sum(-1), torch.ones(3, dtype=torch.float64))
        for key, c in catalogued.items():
            same = c.shape == w.shape and torch.isfinite(c).all() and torch.allclose(c, w, rtol=0, atol=10 * q6.ATOL)
            assert not same, (name, key)


def test_implicit_einsum_subscripts_are_read_from_the_source():
    class Sub:
        cells = ["import torch\n",
                 "w = torch.einsum('bqd,bkd', Q, K)\nweights_shape = tuple(w.shape)\n"
                 "out_shape = tuple(torch.einsum('bqk,bkv->bqv', w, V).shape)\n",
                 "x = torch.einsum('ij,jk', A, B)\n"]
    assert diag.implicit_einsum_specs(Sub(), "weights_shape") == ["bqd,bkd"]     # the explicit one is left out
    assert diag.implicit_einsum_specs(Sub(), "out_shape") == ["bqd,bkd"]         # same cell
    assert diag.implicit_einsum_specs(Sub(), "x") == []                         # no shared first letter
    assert diag.explicit_einsum_output("bqd,bkd") == "bqk"
    assert diag.explicit_einsum_output("nij,njv") == "niv"
    assert diag.explicit_einsum_output("bqd,bkd,bkv") == "bqv"


# --- through the sandbox ---------------------------------------------------------------------------------------------

Q2 = ("d_k = Q.shape[-1]\n{scores}raw_score_var = {raw}\n"
      "scaled_score_var = {scaled}\nscale_divisor = math.sqrt(64)\n")
W3 = ("scores3 = Q3 @ K3.T / math.sqrt(4)\nweights3 = stable_softmax(scores3, dim=-1)\nout3 = weights3 @ V3\n"
      "{causal}\n")
Q1 = "_q, _k, _v = torch.zeros(4, 10, 64), torch.zeros(4, 10, 64), torch.zeros(4, 10, 128)\n"

WRONG = {
    "half_precision_scores": (("q2",), None, [
        {"raw_score_var": Q2.format(scores="s = (Q.bfloat16() @ K.bfloat16().mT).float()\n", raw="s.var().item()",
                                    scaled="(s / math.sqrt(d_k)).var().item()")},
        {"raw_score_var": Q2.format(scores="s = Q @ K.mT\n", raw="s.bfloat16().var().item()",
                                    scaled="(s / math.sqrt(d_k)).var().item()")},
        {"raw_score_var": Q2.format(scores="s = Q.half() @ K.half().transpose(1, 2)\n", raw="s.var().item()",
                                    scaled="(s / math.sqrt(d_k)).var().item()")},
    ]),
    "batch_dim_dropped": (("q1",), "'->'", [
        {"weights_shape": Q1 + "weights_shape = tuple(torch.einsum('bqd,bkd', _q, _k).shape)\n"
                               "out_shape = tuple(torch.einsum('bqd,bkd,bkv', _q, _k, _v).shape)\n"},
        {"weights_shape": Q1 + "w = torch.einsum('nid,njd', _q, _k)\nweights_shape = tuple(w.shape)\n"
                               "out_shape = tuple(torch.einsum('nij,njv', torch.zeros(4, 10, 10), _v).shape)\n"},
    ]),
    "inverted_mask": (("q6",), "KEEPS", [
        {"weights3": W3.format(causal="weights3_causal = stable_softmax(scores3 - 1e9 * causal_mask(3).float(), "
                                      "dim=-1)")},
        {"weights3": W3.format(causal="weights3_causal = stable_softmax(scores3 + torch.where(causal_mask(3), "
                                      "-1e9, 0.0), dim=-1)")},
        {"weights3": W3.format(causal="m = causal_mask(3)\n"
                                      "weights3_causal = stable_softmax(scores3.masked_fill(m, -1e4), dim=-1)")},
    ]),
}

CORRECT = [
    {"raw_score_var": Q2.format(scores="s = Q.double() @ K.double().mT\n", raw="s.var().item()",
                                scaled="(s / math.sqrt(d_k)).var().item()")},
    {"raw_score_var": Q2.format(scores="s = (Q.half() @ K.half().mT).float()   # within the tolerance\n",
                                raw="s.var().item()", scaled="(s / math.sqrt(d_k)).var().item()")},
    {"weights_shape": Q1 + "w = torch.einsum('bqd,bkd->bqk', _q, _k)\nweights_shape = tuple(w.shape)\n"
                           "out_shape = tuple(torch.einsum('...qk,...kv', w, _v).shape)   # ellipsis kept\n"},
    {"weights3": W3.format(causal="weights3_causal = stable_softmax(scores3 + (~causal_mask(3)) * -1e9, dim=-1)")},
    {"weights3": W3.format(causal="weights3_causal = stable_softmax(scores3 + (1 - causal_mask(3).double()) * "
                                  "-1e9, dim=-1)")},
]


_graded = graded_as("sdpa-from-scratch", "round43")


@pytest.mark.parametrize("key, where, words, cells", [(k, w, s, c) for k, (w, s, cs) in WRONG.items() for c in cs],
                         ids=[f"{k}-{i}" for k, (_w, _s, cs) in WRONG.items() for i in range(len(cs))])
def test_each_kind_is_named_through_the_sandbox(grader, key, where, words, cells):
    outcome = _graded(grader, cells)
    assert outcome.status == "graded" and outcome.failed, outcome.explain()
    assert all(q in where and k == key for q, _t, k, _m in outcome.failed), outcome.explain()
    assert words is None or all(words in m for _q, _t, _k, m in outcome.failed), outcome.explain()


def test_a_sign_slip_on_the_inverted_mask_is_not_called_a_keep_mask(grader):
    """+1e9 on ~mask gives the same weights as -1e9 on the mask: the slip is the sign, not the mask's meaning."""
    outcome = _graded(grader, {"weights3": W3.format(
        causal="weights3_causal = stable_softmax(scores3 + (~causal_mask(3)) * 1e9, dim=-1)")})
    assert outcome.failed and all(k != "inverted_mask" for _q, _t, k, _m in outcome.failed), outcome.explain()


@pytest.mark.parametrize("cells", CORRECT, ids=[f"{next(iter(c))}-{i}" for i, c in enumerate(CORRECT)])
def test_correct_neighbours_keep_full_marks(grader, cells):
    outcome = _graded(grader, cells)
    assert outcome.full_marks, outcome.explain()
