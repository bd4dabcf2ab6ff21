"""sdpa-from-scratch, naming round 47 (after blind47): q1's shape with one entry filled by another axis's size (K's
batch size where the number of keys goes) is shape_entry_from_another_axis; q2's variance written sum / n - 1 (no
brackets: the biased variance minus 1) is variance_count_unbracketed, and a scale_divisor that is the measured spread
of the example's scores is scores_divided_by_own_std; q4's mask True wherever j != i (sign(i - j).bool()) is
causal_mask_not_equal, in q4 and in q6's causal trace; q6's trace with the softmax of the negated scores (F.softmin) is
softmax_of_negated, replayed on the trace's own inputs; a softmax wrong on finite logits (weights_not_normalised) says
so on q3's inf/NaN tests and q5's gradient test too; gradient_cut quotes a torch.tensor(...) re-wrap where the source
shows one. Each kind is graded through the sandbox on variants of its own, with correct neighbours at full marks."""
from __future__ import annotations

import pytest
import torch

from tests.heldout.harness import graded_as
from tests.hidden_modules import load

diag = load("sdpa-from-scratch", "_diagnose", "_test_sdpa_round47_diagnose")
q1 = load("sdpa-from-scratch", "q1", "_test_sdpa_round47_q1")
q2 = load("sdpa-from-scratch", "q2", "_test_sdpa_round47_q2")
ref = diag.ref

Q1 = "_Q, _K, _V = torch.zeros(4, 10, 64), torch.zeros(4, 10, 64), torch.zeros(4, 10, 128)\n{body}"
Q2 = "d_k = Q.shape[-1]\nraw_scores = Q @ K.transpose(-2, -1)\n{body}"
VARS = "raw_score_var = raw_scores.var().item()\nscaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()\n"
SM = "def stable_softmax(x, dim=-1):\n"
CM = "def causal_mask(T_q, T_k=None):\n    if T_k is None:\n        T_k = T_q\n"
SDPA = ("def scaled_dot_product_attention(Q, K, V, mask=None):\n    d_k = Q.size(-1)\n{scores}"
        "    if mask is not None:\n        scores = scores.masked_fill(~mask, float('-inf'))\n"
        "        weights = stable_softmax(scores, dim=-1)\n"
        "        weights = torch.where(mask.any(dim=-1, keepdim=True), weights, torch.zeros_like(weights))\n"
        "    else:\n        weights = stable_softmax(scores, dim=-1)\n{weights}    return weights @ V\n")
W3 = "scores3 = Q3 @ K3.T / math.sqrt(4)\n{body}out3 = weights3 @ V3\n"


def _sdpa(scores="    scores = Q @ K.transpose(-2, -1) / math.sqrt(d_k)\n", weights=""):
    return {"scaled_dot_product_attention": SDPA.format(scores=scores, weights=weights)}


# --- unit: the new replays are no other catalogued value ------------------------------------------------------------

def test_a_shape_with_one_entry_from_another_axis_is_named_and_a_shape_with_a_key_of_its_own_is_not():
    slots = ("batch", "T_q", "T_k")
    for got in ((4, 10, 4), (4, 4, 10), (10, 10, 10), (4, 128, 10)):
        with pytest.raises(diag.Misconception) as named:
            diag.name_entry_from_other_axis(got, (4, 10, 10), slots, "weights_shape", q1.INPUTS)
        assert named.value.key == "shape_entry_from_another_axis" and str(got) in str(named.value)
    for got in ((4, 10, 10), (4, 10, 7), (4, 4, 4), (4, 10), (4, 10, 10, 4)):   # right, no axis's size, two, rank
        diag.name_entry_from_other_axis(got, (4, 10, 10), slots, "weights_shape", q1.INPUTS)


def test_the_unbracketed_count_is_no_other_value_of_q2():
    n = 50
    slipped = (ref.raw_score_var * (n - 1) / n - 1, ref.scaled_score_var * (n - 1) / n - 1)
    others = [v for pair in q2._other_values(n) for v in pair] + [ref.raw_score_var, ref.scaled_score_var]
    assert all(abs(s - o) > 10 * q2.ATOL for s in slipped for o in others)
    with pytest.raises(diag.Misconception) as named:
        diag.name_count_unbracketed(slipped[0], slipped[1], n, others, q2.ATOL)
    assert named.value.key == "variance_count_unbracketed"
    diag.name_count_unbracketed(ref.raw_score_var, ref.scaled_score_var, n, others, q2.ATOL)      # right: nothing
    diag.name_count_unbracketed(slipped[0], ref.scaled_score_var * 2, n, others, q2.ATOL)      # a second mistake
    diag.name_count_unbracketed(slipped[0] + 0.01, ref.scaled_score_var, n, others, q2.ATOL)      # not the slip


def test_the_measured_spread_is_no_other_divisor_of_q2():
    v = ref.raw_score_var
    for spread in (v ** 0.5, (v * 49 / 50) ** 0.5, v, v * 49 / 50):
        assert all(abs(spread - d) > 0.1 for d in (8 ** 0.5, 1 / 8, 8, 64, 32, 1))


def test_the_not_equal_mask_is_none_of_the_other_masks():
    for T_q, T_k in ((3, 3), (5, 5), (9, 6), (4, 9)):
        m = ~diag.diagonal_only(T_q, T_k)
        right = ref.causal_mask(T_q, T_k)
        assert not bool((m == right).all()) and not bool((m == ~right).all()) and not bool(m.all())
        assert all(not bool((m == w).all()) for w in ref.causal_mask_variants(T_q, T_k).values())
        with pytest.raises(diag.Misconception) as named:
            diag.name_not_equal_mask(m, "causal_mask")
        assert named.value.key == "causal_mask_not_equal"
        diag.name_not_equal_mask(right, "causal_mask")
    diag.name_not_equal_mask(~diag.diagonal_only(1, 4), "causal_mask")     # one query: no diagonal to tell


def test_the_tame_probe_tells_an_unnormalised_softmax_from_a_right_or_other_one():
    def cancelled(x, dim=-1):
        s = x - x.amax(dim=dim, keepdim=True)
        return torch.exp(s - s.sum(dim=dim, keepdim=True))
    assert diag.unnormalised_on_tame_logits(cancelled) is not None
    assert diag.unnormalised_on_tame_logits(lambda x, dim=-1: torch.softmax(x, dim=dim)) is None
    assert diag.unnormalised_on_tame_logits(lambda x, dim=-1: torch.softmax(-x, dim=dim)) is None
    assert diag.unnormalised_on_tame_logits(lambda x, dim=-1: torch.softmax(x, dim=0)) is None
    assert diag.unnormalised_on_tame_logits(None) is None


def _sub(*cells):
    from autograder.grading.runner import SubmissionInfo
    return SubmissionInfo(source="\n".join(cells), cells=tuple(cells))


@pytest.mark.parametrize("line, found", [
    ("    scores = torch.tensor(Q @ K.transpose(-2, -1)) / math.sqrt(d_k)\n", True),
    ("    scores = Q @ K.transpose(-2, -1) / torch.tensor(math.sqrt(d_k))\n", True),      # a computed argument
    ("    scores = Q @ K.transpose(-2, -1) / torch.tensor(2.0)\n", False),                 # a literal
    ("    scores = torch.tensor(Q.detach() @ K.transpose(-2, -1))\n", False),              # another cut written too
])
def test_a_tensor_rewrap_is_read_off_the_source(line, found):
    cell = SDPA.format(scores=line, weights="")
    assert bool(diag.tensor_rewrap_lines(_sub("import math\n", cell))) is found
    assert diag.tensor_rewrap_lines(None) == []


# --- through the sandbox ------------------------------------------------------------------------------------------

WRONG = {
    "shape_entry_from_another_axis": (("q1",), "replaced by 4, the batch size", [
        {"weights_shape": Q1.format(body="weights_shape = (4, 10, _K.shape[0])\nout_shape = (4, 10, 128)\n")},
        {"weights_shape": Q1.format(body="weights_shape = (_Q.size(0), _Q.size(0), _K.size(1))\n"
                                         "out_shape = tuple(_Q.shape[:2]) + (_V.shape[-1],)\n")},
        {"weights_shape": Q1.format(body="weights_shape = (4, 10, 10)\n"
                                         "out_shape = tuple(_V.shape[:2]) + (_V.shape[0],)\n")},
    ]),
    "variance_count_unbracketed": (("q2",), "the biased variance minus 1", [
        {"raw_score_var": Q2.format(body="n = raw_scores.numel()\n"
                                         "raw_score_var = (((raw_scores - raw_scores.mean()) ** 2).sum() / n - 1).item()\n"
                                         "scaled_score_var = raw_score_var / d_k\nscale_divisor = math.sqrt(64)\n")},
        {"raw_score_var": Q2.format(body="dev = raw_scores.flatten() - raw_scores.mean()\n"
                                         "raw_score_var = float(torch.sum(dev * dev) / dev.numel() - 1)\n"
                                         "s = raw_scores / math.sqrt(d_k)\n"
                                         "scaled_score_var = float(((s - s.mean()) ** 2).sum() / s.numel()-1)\n"
                                         "scale_divisor = 8.0\n")},
    ]),
    "scores_divided_by_own_std": (("q2",), "not a statistic measured on one example", [
        {"raw_score_var": Q2.format(body=VARS + "scale_divisor = raw_scores.std().item()\n")},
        {"raw_score_var": Q2.format(body=VARS + "scale_divisor = float(raw_scores.var())\n")},
        {"raw_score_var": Q2.format(body=VARS + "scale_divisor = round(raw_scores.std(unbiased=False).item(), 2)\n")},
    ]),
    "causal_mask_not_equal": (("q4", "q6"), "key j != query i", [
        {"causal_mask": CM + "    i = torch.arange(T_q)[:, None]\n    j = torch.arange(T_k)[None, :]\n"
                             "    return (i - j).bool()\n"},
        {"causal_mask": CM + "    return torch.arange(T_q).view(-1, 1) - torch.arange(T_k).view(1, -1) != 0\n"},
        {"causal_mask": CM + "    return ~torch.eye(T_q, T_k, dtype=torch.bool)\n"},
    ]),
    "softmax_of_negated": (("q6",), "negated scores", [
        {"weights3": W3.format(body="weights3 = torch.softmax(-scores3, dim=-1)\n") +
         "weights3_causal = torch.softmax((-scores3).masked_fill(~causal_mask(3), float('-inf')), dim=-1)\n"},
        {"weights3": W3.format(body="e = torch.exp(-scores3)\nweights3 = e / e.sum(-1, keepdim=True)\n") +
         "ec = e * causal_mask(3)\nweights3_causal = ec / ec.sum(-1, keepdim=True)\n"},
    ]),
    "weights_not_normalised": (("q3", "q5", "q6"), "", [
        {"stable_softmax": SM + "    shifted = x - x.amax(dim=dim, keepdim=True)\n"
                                "    return torch.exp(shifted - shifted.sum(dim=dim, keepdim=True))\n"},
        {"stable_softmax": SM + "    shifted = x - x.max(dim=dim, keepdim=True).values\n"
                                "    return torch.exp(shifted) / torch.exp(shifted.sum(dim=dim, keepdim=True))\n"},
        {"stable_softmax": SM + "    e = torch.exp(x - x.amax(dim, keepdim=True))\n"
                                "    return e / e.prod(dim=dim, keepdim=True)\n"},
    ]),
    "gradient_cut": (("q5",), "torch.tensor", [
        _sdpa(scores="    scores = torch.tensor(Q @ K.transpose(-2, -1)) / math.sqrt(d_k)\n"),
        _sdpa(scores="    raw = torch.matmul(Q, K.transpose(-2, -1))\n    scores = torch.tensor(raw / d_k ** 0.5)\n"),
    ]),
}

CORRECT = [
    {"weights_shape": Q1.format(body="weights_shape = (_Q.shape[0], _Q.shape[1], _K.shape[1])\n"
                                     "out_shape = tuple(_Q.shape[:-1]) + (_V.shape[-1],)\n")},
    {"raw_score_var": Q2.format(body="n = raw_scores.numel()\n"
                                     "raw_score_var = (((raw_scores - raw_scores.mean()) ** 2).sum() / (n - 1)).item()\n"
                                     "scaled_score_var = raw_score_var / d_k\nscale_divisor = 64 ** 0.5\n")},
    {"causal_mask": CM + "    return (torch.arange(T_q)[:, None] - torch.arange(T_k)[None, :]) >= 0\n"},
    {"causal_mask": CM + "    return torch.sign(torch.arange(T_q)[:, None] - torch.arange(T_k)[None, :]) >= 0\n"},
    {"weights3": W3.format(body="weights3 = F.softmin(-scores3, dim=-1)\n") +
     "weights3_causal = F.softmin(-scores3.masked_fill(~causal_mask(3), float('-inf')), dim=-1)\n"},
    {"stable_softmax": SM + "    shifted = x - x.amax(dim=dim, keepdim=True)\n"
                            "    return torch.exp(shifted - torch.log(torch.exp(shifted).sum(dim=dim, keepdim=True)))\n"},
    _sdpa(scores="    scores = Q @ K.transpose(-2, -1) / torch.tensor(math.sqrt(d_k), dtype=Q.dtype)\n"),
]


_graded = graded_as("sdpa-from-scratch", "round47")


@pytest.mark.parametrize("key, where, words, cells", [(k, w, s, c) for k, (w, s, cs) in WRONG.items() for c in cs],
                         ids=[f"{k}-{i}" for k, (_w, _s, cs) in WRONG.items() for i in range(len(cs))])
def test_each_kind_is_named_through_the_sandbox(grader, key, where, words, cells):
    outcome = _graded(grader, cells)
    assert outcome.status == "graded" and outcome.failed, outcome.explain()
    assert all(k == key for q, _t, k, _m in outcome.failed if q in where), outcome.explain()
    assert all(k in (key, None) for _q, _t, k, _m in outcome.failed), outcome.explain()
    assert any(q in where for q, _t, _k, _m in outcome.failed), outcome.explain()
    assert all(words in m for q, _t, _k, m in outcome.failed if q in where), outcome.explain()


def test_the_nonfinite_tests_of_an_unnormalised_softmax_say_it_too(grader):
    outcome = _graded(grader, WRONG["weights_not_normalised"][2][0])
    failed = {(q, t): (k, m) for q, t, k, m in outcome.failed}
    for test in (("q3", "test_float16_logits_in_the_thousands"), ("q3", "test_minus_inf_entries"),
                 ("q5", "test_gradients_float64")):
        assert test in failed, outcome.explain()
        key, message = failed[test]
        assert key == "weights_not_normalised" and "small finite logits" in message, outcome.explain()


def test_a_detach_cut_is_not_blamed_on_a_torch_tensor(grader):
    outcome = _graded(grader, _sdpa(scores="    scores = Q @ K.transpose(-2, -1).detach() / math.sqrt(d_k)\n"
                                           "    Q = Q.detach()\n"))
    assert outcome.failed and all(k == "gradient_cut" for _q, _t, k, _m in outcome.failed), outcome.explain()
    assert all("your torch.tensor" not in m for _q, _t, _k, m in outcome.failed), outcome.explain()


@pytest.mark.parametrize("cells", CORRECT, ids=[f"{next(iter(c))}-{i}" for i, c in enumerate(CORRECT)])
def test_correct_neighbours_keep_full_marks(grader, cells):
    outcome = _graded(grader, cells)
    assert outcome.full_marks, outcome.explain()
