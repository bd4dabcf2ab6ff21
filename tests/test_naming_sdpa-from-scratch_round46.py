"""sdpa-from-scratch, naming round 46 (after blind45): q6's keys (or queries) written in place through a view by the
right sqrt(d_k), so that a second call scales them again, is inplace_on_input (the trace's Q3, K3, V3 read back as a
constant multiple of the notebook's, the answer replayed on them, and an in-place write in the source), never a
scale slip; causal_mask_blocks_nothing says the effect and a cause only where the source shows it (~ on an integer
tensor, a tril() never assigned); q2's variances of the scores masked (tril, triu, the kept entries) or of the
batch's score matrices averaged or summed into one are scores_masked_before_variance and
batch_reduced_before_variance, replayed on the example; q3's softmax regrouped by reshape(-1, n) instead of a moved
axis is softmax_reshaped_not_moved; q8's count of inf from a float16 sum is count_overflows_half. Each kind is
graded through the sandbox on variants of its own, with correct neighbours that keep full marks."""
from __future__ import annotations

import pytest
import torch

from tests.heldout.harness import graded_as
from tests.hidden_modules import load

diag = load("sdpa-from-scratch", "_diagnose", "_test_sdpa_round46_diagnose")
q2 = load("sdpa-from-scratch", "q2", "_test_sdpa_round46_q2")
ref = diag.ref

Q2 = "d_k = Q.shape[-1]\nraw_scores = Q @ K.transpose(-2, -1)\n{body}scale_divisor = math.sqrt(64)\n"
SM = "def stable_softmax(x, dim=-1):\n"
CM = "def causal_mask(T_q, T_k=None):\n    if T_k is None:\n        T_k = T_q\n"
W3 = ("{helper}\n\nscores3 = _scores(Q3, K3)\nweights3 = stable_softmax(scores3, dim=-1)\nout3 = weights3 @ V3\n"
      "weights3_causal = stable_softmax(_scores(Q3, K3).masked_fill(~causal_mask(3), float('-inf')), dim=-1)\n")
Q8 = "attn_entries = {entries}\nscore_madds = 1024 * 1024 * 64\ncost_ratio = 4\n"


def _w3(helper):
    return {"weights3": W3.format(helper=helper)}


# --- unit: the replays are no other catalogued value ------------------------------------------------------------

def test_reduced_score_variances_are_no_other_value_of_q2():
    others = [r for r, _ in q2._other_values(50)] + [ref.raw_score_var]
    others += [v for vs in diag.score_statistics().values() for v in vs]
    others += list(diag.new_sample_score_variances())
    others += [r for r, *_ in diag.half_precision_variance_replays(q2.ATOL)]
    others += [v for v, *_ in diag.slice_centred_variances()]
    values = diag.reduced_score_variances()
    assert len({round(v, 4) for v, *_ in values}) == len(values)
    named = 0
    for value, key, _how in values:
        if abs(value - ref.raw_score_var) <= q2.ATOL:
            continue                                    # within the tolerance of the right one: it passes
        assert all(abs(value - o) > 1e-3 for o in others), value
        with pytest.raises(diag.Misconception) as got:
            diag.name_reduced_score_variance(value, value / 8, "said", [], q2.ATOL)
        assert got.value.key == key
        named += 1
        diag.name_reduced_score_variance(value * (1 + 1e-4), value * (1 + 1e-4) / 8, "said", [], q2.ATOL)
        diag.name_reduced_score_variance(value, value / 8 + 0.01, "said", [], q2.ATOL)      # scaled another way
        diag.name_reduced_score_variance(value, value / 8, "said", [value * (1 + 1e-5)], q2.ATOL)   # coincides
    assert named >= 8


def test_reshaped_softmax_differs_from_the_right_one_and_the_permutations():
    x = torch.randn(4, 6, 5, dtype=torch.float64, generator=torch.Generator().manual_seed(3)) * 2
    for dim in (0, 1, -2):
        right = ref.stable_softmax(x, dim=dim)
        found = diag.reshaped_softmax_variants(x, dim)
        assert "softmax_reshaped_not_moved/rows" in found
        for w in found.values():
            assert float((w - right).abs().max()) > 1e-2
            for p in diag.permuted_variants(right).values():
                assert p.shape != w.shape or float((p - w).abs().max()) > 1e-2
    assert "softmax_reshaped_not_moved/rows" not in diag.reshaped_softmax_variants(x, -1)   # the last dim: right
    assert "softmax_reshaped_not_moved/cols" not in diag.reshaped_softmax_variants(x, 0)


def _sub(*cells):
    from autograder.grading.runner import SubmissionInfo
    return SubmissionInfo(source="\n".join(cells), cells=tuple(cells))


@pytest.mark.parametrize("cell, found", [
    ("def f(Qm, Km):\n    Kt = Km.T\n    Kt /= 2\n    return Qm @ Kt\nweights3 = f(Q3, K3)\n", "Kt /= 2"),
    ("def f(Qm, Km):\n    Km.transpose(0, 1).mul_(0.5)\n    return Qm @ Km.T\nscores3 = f(Q3, K3)\n",
     "Km.transpose(0, 1).mul_(0.5)"),
    ("K3[:] *= 0.5\nscores3 = Q3 @ K3.T\n", "K3[:] *= 0.5"),
    ("def f(Qm, Km):\n    Kt = Km.T / 2\n    Kt /= 1\n    return Qm @ Kt\nweights3 = f(Q3, K3)\n", None),  # a copy
    ("s = Q3 @ K3.T\ns /= 2\nscores3 = s\n", None),                       # fresh scores, not an input
    ("def f(Qm, Km):\n    Kt = Km.T.clone()\n    Kt.div_(2)\n    return Qm @ Kt\nweights3 = f(Q3, K3)\n", None),
    ("K3 /= 2\nx = 1\n", None),                                          # not a cell of the trace's answers
])
def test_an_input_scaled_in_place_is_read_off_the_source(cell, found):
    assert diag.inplace_scaling_of_an_input(_sub("Q3 = K3 = V3 = None\n", cell)) == found
    assert diag.inplace_scaling_of_an_input(None) is None


# --- through the sandbox ------------------------------------------------------------------------------------------

WRONG = {
    "inplace_on_input": (("q6",), "scales an input in place", [
        _w3("def _scores(Qm, Km):\n    Km.mul_(0.5)                 # 1 / sqrt(4)\n    return Qm @ Km.T\n"),
        _w3("def _scores(Qm, Km):\n    Qv = Qm[:]\n    Qv /= math.sqrt(Qm.shape[-1])\n    return Qv @ Km.T\n"),
        _w3("def _scores(Qm, Km):\n    Kt = Km.transpose(0, 1)\n    Kt.div_(Km.size(-1) ** 0.5)\n    return Qm @ Kt\n"),
    ]),
    "causal_mask_blocks_nothing": (("q4", "q6"), "bitwise NOT", [
        {"causal_mask": CM + "    blocked = torch.triu(torch.ones(T_q, T_k, dtype=torch.int64), diagonal=1)\n"
                             "    return (~blocked).bool()\n"},
        {"causal_mask": CM + "    m = torch.ones(T_q, T_k).triu(1).byte()\n    return ~m != 0\n"},
    ]),
    "scores_masked_before_variance": (("q2",), "masking the scores", [
        {"raw_score_var": Q2.format(body="keep = torch.ones(5, 5, dtype=torch.bool).tril()\n"
                                         "masked = raw_scores.masked_fill(~keep, 0.0)\n"
                                         "raw_score_var = masked.var().item()\n"
                                         "scaled_score_var = (masked / math.sqrt(d_k)).var().item()\n")},
        {"raw_score_var": Q2.format(body="upper = raw_scores.triu(diagonal=1)\n"
                                         "raw_score_var = float(torch.var(upper))\n"
                                         "scaled_score_var = raw_score_var / d_k\n")},
        {"raw_score_var": Q2.format(body="kept = raw_scores[:, torch.tril(torch.ones(5, 5)).bool()]\n"
                                         "raw_score_var = kept.var().item()\n"
                                         "scaled_score_var = (kept / d_k ** 0.5).var().item()\n")},
    ]),
    "batch_reduced_before_variance": (("q2",), "into one", [
        {"raw_score_var": Q2.format(body="s = raw_scores.sum(dim=0)\n"
                                         "raw_score_var = s.var().item()\n"
                                         "scaled_score_var = (s / math.sqrt(d_k)).var().item()\n")},
        {"raw_score_var": Q2.format(body="avg = torch.mean(raw_scores, 0)\n"
                                         "raw_score_var = float(avg.var())\n"
                                         "scaled_score_var = raw_score_var / d_k\n")},
    ]),
    "softmax_reshaped_not_moved": (("q3",), "reshape keeps memory order", [
        {"stable_softmax": SM + "    flat = x.reshape(-1, x.size(dim))\n"
                                "    e = torch.exp(flat - flat.amax(dim=-1, keepdim=True))\n"
                                "    return (e / e.sum(dim=-1, keepdim=True)).reshape(x.shape)\n"},
        {"stable_softmax": SM + "    if dim in (-1, x.dim() - 1):\n"
                                "        cols = x.reshape(-1, x.shape[-1]).T\n"
                                "    else:\n"
                                "        cols = x.reshape(x.shape[dim], -1)\n"
                                "    e = torch.exp(cols - cols.max(dim=0, keepdim=True).values)\n"
                                "    w = e / e.sum(dim=0, keepdim=True)\n"
                                "    return (w.T if dim in (-1, x.dim() - 1) else w).reshape(x.shape)\n"},
    ]),
    "count_overflows_half": (("q8",), "float16", [
        {"attn_entries": Q8.format(entries="torch.ones(1024, 1024).half().sum().item()")},
        {"attn_entries": Q8.format(entries="float(torch.tensor(1024.0, dtype=torch.float16) ** 2)")},
    ]),
}

CORRECT = [
    _w3("def _scores(Qm, Km):\n    Kt = Km.T / math.sqrt(Km.shape[1])\n    return Qm @ Kt\n"),
    _w3("def _scores(Qm, Km):\n    Kt = Km.T.clone()\n    Kt /= math.sqrt(Km.shape[1])\n    return Qm @ Kt\n"),
    {"causal_mask": CM + "    return ~torch.triu(torch.ones(T_q, T_k, dtype=torch.uint8), diagonal=1).bool()\n"},
    {"causal_mask": CM + "    return torch.triu(torch.ones(T_q, T_k, dtype=torch.uint8), diagonal=1) == 0\n"},
    {"raw_score_var": Q2.format(body="raw_score_var = raw_scores.flatten().var().item()\n"
                                     "scaled_score_var = (raw_scores.reshape(-1) / math.sqrt(d_k)).var().item()\n")},
    {"stable_softmax": SM + "    moved = x.movedim(dim, -1)\n"
                            "    e = torch.exp(moved - moved.amax(dim=-1, keepdim=True))\n"
                            "    return (e / e.sum(dim=-1, keepdim=True)).movedim(-1, dim)\n"},
    {"attn_entries": Q8.format(entries="torch.ones(1024, 1024, dtype=torch.half).numel()")},
    {"attn_entries": Q8.format(entries="int(torch.ones(1024, 1024).sum())")},
]


_graded = graded_as("sdpa-from-scratch", "round46")


@pytest.mark.parametrize("key, where, words, cells", [(k, w, s, c) for k, (w, s, cs) in WRONG.items() for c in cs],
                         ids=[f"{k}-{i}" for k, (_w, _s, cs) in WRONG.items() for i in range(len(cs))])
def test_each_kind_is_named_through_the_sandbox(grader, key, where, words, cells):
    outcome = _graded(grader, cells)
    assert outcome.status == "graded" and outcome.failed, outcome.explain()
    assert all(k == key for q, _t, k, _m in outcome.failed if q in where), outcome.explain()
    assert all(k in (key, None) for _q, _t, k, _m in outcome.failed), outcome.explain()
    assert any(q in where for q, _t, _k, _m in outcome.failed), outcome.explain()
    assert all(words in m for q, _t, _k, m in outcome.failed if q in where), outcome.explain()


def test_a_tril_left_unassigned_is_told_so_and_not_the_bitwise_not(grader):
    outcome = _graded(grader, {"causal_mask": CM + "    mask = torch.ones(T_q, T_k, dtype=torch.bool)\n"
                                                   "    mask.tril()\n    return mask\n"})
    assert outcome.failed and all(k == "causal_mask_blocks_nothing" for _q, _t, k, _m in outcome.failed), \
        outcome.explain()
    assert all("never assigned" in m and "bitwise" not in m for _q, _t, _k, m in outcome.failed), outcome.explain()


def test_a_mask_of_ones_with_no_cause_in_the_source_says_the_effect_alone(grader):
    outcome = _graded(grader, {"causal_mask": CM + "    return torch.ones(T_q, T_k) > 0\n"})
    assert outcome.failed and all(k == "causal_mask_blocks_nothing" for _q, _t, k, _m in outcome.failed), \
        outcome.explain()
    assert all("never assigned" not in m and "bitwise" not in m and "True everywhere" in m
               for _q, _t, _k, m in outcome.failed), outcome.explain()


def test_an_input_rebound_is_not_called_written_in_place(grader):
    # K3 replaced by a new tensor (no write into the notebook's), with an unrelated in-place /= on fresh scores
    outcome = _graded(grader, {"weights3": "K3 = K3 * 0.5\nscores3 = Q3 @ K3.T\nscores3 /= 2\n"
                                           "weights3 = stable_softmax(scores3, dim=-1)\nout3 = weights3 @ V3\n"
                                           "weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), "
                                           "float('-inf')), dim=-1)\n"})
    assert outcome.failed, outcome.explain()
    assert all(k != "inplace_on_input" for _q, _t, k, _m in outcome.failed), outcome.explain()


@pytest.mark.parametrize("cells", CORRECT, ids=[f"{next(iter(c))}-{i}" for i, c in enumerate(CORRECT)])
def test_correct_neighbours_keep_full_marks(grader, cells):
    outcome = _graded(grader, cells)
    assert outcome.full_marks, outcome.explain()
