"""sdpa-from-scratch, naming round 45 (after blind44): q2's scaled_score_var = raw / sqrt(8), which the variance
divided by sqrt(d_k) and the scores divided by d_k ** 0.25 (a square root taken twice) both give, is told apart by the
cell that assigns it: a variance taken of divided scores is scale_root_taken_twice, a variance divided is
variance_scaled_like_scores, and a source that shows neither gets one message with both readings (blind44's d_k that
already held sqrt(8) was told the variance reading alone); a hand variance that centres each score on its row's (or
column's, or sequence's) own mean is variance_centred_per_slice, replayed on the example to rounding; q8's score_madds
of one dot product (d_k = 64) is madds_of_one_score (one query's row, T d_k, stays count_per_query); q6's matrix given
flat with the right numbers row by row is matrix_flattened (a flat list of other numbers keeps the shape message).
Each kind is graded through the sandbox on variants of its own, with correct neighbours that keep full marks."""
from __future__ import annotations

import math

import pytest

from tests.heldout.harness import graded_as
from tests.hidden_modules import load

diag = load("sdpa-from-scratch", "_diagnose", "_test_sdpa_round45_diagnose")
q2 = load("sdpa-from-scratch", "q2", "_test_sdpa_round45_q2")
ref = diag.ref

Q2 = "{head}raw_scores = Q @ K.transpose(-2, -1)\n{body}scale_divisor = math.sqrt(64)\n"
W3 = ("scores3 = Q3 @ K3.T / math.sqrt(4)\nweights3 = {w}\nout3 = {out}\n"
      "weights3_causal = {causal}\n")
W3_RIGHT = {"w": "stable_softmax(scores3, dim=-1)", "out": "weights3 @ V3",
            "causal": "stable_softmax(scores3.masked_fill(~causal_mask(3), float('-inf')), dim=-1)"}
Q8 = "attn_entries = 1024 ** 2\nscore_madds = {madds}\ncost_ratio = 4\n"


def _w3(**kw):
    return {"weights3": W3.format(**{**W3_RIGHT, **kw})}


# --- unit: the replays are no other catalogued value ------------------------------------------------------------

def test_slice_centred_variances_are_no_other_value_of_q2():
    others = [r for r, _ in q2._other_values(50)] + [ref.raw_score_var]
    others += [v for vs in diag.score_statistics().values() for v in vs]
    others += list(diag.new_sample_score_variances())
    others += [r for r, *_ in diag.half_precision_variance_replays(q2.ATOL)]
    others += [ref.raw_score_var * 49 / c for c in q2._AXIS_COUNTS]
    values = diag.slice_centred_variances()
    assert len({round(v, 4) for v, *_ in values}) == len(values)         # the readings differ from each other too
    for value, _how, _count in values:
        assert all(abs(value - o) > 1e-3 for o in others), value
        with pytest.raises(diag.Misconception) as named:
            diag.name_slice_centred_variance(value, value / 8, [], q2.ATOL)
        assert named.value.key == "variance_centred_per_slice"
        diag.name_slice_centred_variance(value + 1e-3, (value + 1e-3) / 8, [], q2.ATOL)    # not to rounding
        diag.name_slice_centred_variance(value, value / 8 + 0.01, [], q2.ATOL)       # scaled another way
        diag.name_slice_centred_variance(value, value / 8, [value * (1 + 1e-5)], q2.ATOL)   # coincides: nothing


def test_root_twice_and_variance_over_root_give_one_number():
    # why the source must decide: both mistakes give raw / sqrt(8) on the example (d_k = 8)
    S = ref._Qb @ ref._Kb.transpose(-2, -1)
    assert abs(float((S / 8 ** 0.25).var()) - float(S.var()) / math.sqrt(8)) < 1e-4
    with pytest.raises(diag.Misconception) as named:        # no source: both readings, the variance one not alone
        diag.name_variance_over_root_d_k(ref.raw_score_var / 8 ** 0.5, None)
    assert named.value.key == "variance_scaled_like_scores" and "taken twice" in str(named.value)


def test_flattened_matrix_needs_the_right_numbers_in_row_order():
    for right in (ref.out3, ref.weights3, ref.weights3_causal):
        n = right.numel()
        for flat in (right.flatten().tolist(), right.reshape(1, n), right.reshape(n, 1)):
            with pytest.raises(diag.Misconception) as named:
                diag.name_matrix_flattened(flat, right, "x", 5e-4)
            assert named.value.key == "matrix_flattened"
        diag.name_matrix_flattened(right.T.flatten().tolist(), right, "x", 5e-4)      # column order: not named
        diag.name_matrix_flattened((right.flatten() + 0.1).tolist(), right, "x", 5e-4)   # other numbers
        diag.name_matrix_flattened(right, right, "x", 5e-4)                             # the right shape


# --- through the sandbox ------------------------------------------------------------------------------------------

WRONG = {
    "scale_root_taken_twice": (("q2",), "8 ** 0.25", [
        {"raw_score_var": Q2.format(head="scale = math.sqrt(Q.shape[-1])\n",
                                    body="raw_score_var = raw_scores.var().item()\n"
                                         "scaled = raw_scores / math.sqrt(scale)\n"
                                         "scaled_score_var = float(scaled.var())\n")},
        {"raw_score_var": Q2.format(head="d_k = Q.size(-1)\n",
                                    body="raw_score_var = torch.var(raw_scores).item()\n"
                                         "scaled_score_var = torch.var(raw_scores / d_k ** 0.25).item()\n")},
        {"raw_score_var": Q2.format(head="root_dk = Q.shape[-1] ** (1 / 2)\n",
                                    body="raw_score_var = float(raw_scores.var())\n"
                                         "scaled_score_var = float(raw_scores.div(root_dk ** 0.5).var())\n")},
    ]),
    "variance_scaled_like_scores": (("q2",), "divides their variance by d_k", [
        {"raw_score_var": Q2.format(head="d_k = Q.shape[-1]\n",
                                    body="raw_score_var = raw_scores.var().item()\n"
                                         "scaled_score_var = raw_score_var / math.sqrt(d_k)\n")},
        {"raw_score_var": Q2.format(head="d_k = Q.shape[-1]\n",
                                    body="raw_score_var = raw_scores.var().item()\n"
                                         "scaled_score_var = raw_scores.var().item() * d_k ** -0.5\n")},
    ]),
    "variance_centred_per_slice": (("q2",), "own mean", [
        {"raw_score_var": Q2.format(head="d_k = Q.shape[-1]\n",
                                    body="def v(t):\n"
                                         "    dev = t - t.mean(-1, keepdim=True)\n"
                                         "    return float((dev * dev).sum() / t.numel())\n"
                                         "raw_score_var = v(raw_scores)\n"
                                         "scaled_score_var = v(raw_scores / math.sqrt(d_k))\n")},
        {"raw_score_var": Q2.format(head="d_k = Q.shape[-1]\n",
                                    body="c = raw_scores - raw_scores.mean(dim=1, keepdim=True)   # column means\n"
                                         "raw_score_var = (c.pow(2).sum() / (c.numel() - 1)).item()\n"
                                         "scaled_score_var = raw_score_var / d_k\n")},
        {"raw_score_var": Q2.format(head="d_k = Q.shape[-1]\n",
                                    body="c = raw_scores - raw_scores.mean(dim=(1, 2), keepdim=True)\n"
                                         "raw_score_var = ((c ** 2).sum() / 49).item()\n"
                                         "scaled_score_var = ((c / d_k ** 0.5) ** 2).sum().item() / 49\n")},
    ]),
    "madds_of_one_score": (("q8",), "one score", [
        {"attn_entries": Q8.format(madds="64   # d_k multiply-adds")},
        {"attn_entries": "T, d_k = 1024, 64\nattn_entries = T * T\nscore_madds = d_k\ncost_ratio = (2 * T) ** 2 // (T * T)\n"},
    ]),
    "count_per_query": (("q8",), "one query", [
        {"attn_entries": Q8.format(madds="1024 * 64   # one row of scores")},
    ]),
    "matrix_flattened": (("q6",), "numbers, row by row", [
        _w3(out="(weights3 @ V3).reshape(-1)"),
        _w3(causal="stable_softmax(scores3.masked_fill(~causal_mask(3), -math.inf), dim=-1).ravel().tolist()"),
        _w3(out="[float(x) for row in (weights3 @ V3).tolist() for x in row]"),
        _w3(out="(weights3 @ V3).view(1, -1)"),
    ]),
}

CORRECT = [
    {"raw_score_var": Q2.format(head="d_k = Q.shape[-1]\nroot = d_k ** 0.5\n",
                                body="raw_score_var = raw_scores.var().item()\n"
                                     "scaled_score_var = (raw_scores / root).var().item()\n")},
    {"raw_score_var": Q2.format(head="d_k = Q.shape[-1]\n",
                                body="raw_score_var = raw_scores.var().item()\n"
                                     "scaled_score_var = raw_score_var / d_k\n")},
    {"raw_score_var": Q2.format(head="d_k = Q.shape[-1]\n",
                                body="def v(t):\n"
                                     "    dev = t - t.mean()\n"
                                     "    return float((dev * dev).sum() / (t.numel() - 1))\n"
                                     "raw_score_var = v(raw_scores)\n"
                                     "scaled_score_var = v(raw_scores / math.sqrt(d_k))\n")},
    {"attn_entries": Q8.format(madds="1024 * 1024 * 64")},
    _w3(out="(weights3 @ V3).tolist()"),
    _w3(out="(weights3 @ V3).flatten().reshape(3, 2)"),
]


_graded = graded_as("sdpa-from-scratch", "round45")


@pytest.mark.parametrize("key, where, words, cells", [(k, w, s, c) for k, (w, s, cs) in WRONG.items() for c in cs],
                         ids=[f"{k}-{i}" for k, (_w, _s, cs) in WRONG.items() for i in range(len(cs))])
def test_each_kind_is_named_through_the_sandbox(grader, key, where, words, cells):
    outcome = _graded(grader, cells)
    assert outcome.status == "graded" and outcome.failed, outcome.explain()
    assert all(k == key for q, _t, k, _m in outcome.failed if q in where), outcome.explain()
    assert all(k in (key, None) for _q, _t, k, _m in outcome.failed), outcome.explain()
    assert any(q in where for q, _t, _k, _m in outcome.failed), outcome.explain()
    assert all(words in m for q, _t, _k, m in outcome.failed if q in where), outcome.explain()


def test_a_flat_list_of_other_numbers_keeps_the_shape_message(grader):
    outcome = _graded(grader, _w3(out="(weights3 @ V3).T.flatten().tolist()"))
    assert [(q, k) for q, _t, k, _m in outcome.failed] == [("q6", None)], outcome.explain()
    assert "should have shape (3, 2)" in outcome.failed[0][3], outcome.explain()


@pytest.mark.parametrize("cells", CORRECT, ids=[f"{next(iter(c))}-{i}" for i, c in enumerate(CORRECT)])
def test_correct_neighbours_keep_full_marks(grader, cells):
    outcome = _graded(grader, cells)
    assert outcome.full_marks, outcome.explain()
