"""sdpa-from-scratch, naming round 50 (after blind50, and blind49's last generic one): q6's causal weights taken as
one softmax over the allowed scores picked out with the boolean mask (scores3[mask], torch.masked_select: 6 numbers
summing to 1 together) are boolean_index_flattens_rows, replayed on the trace's scores; a q8 count whose cell has a
power typed as a product (2 ** 20 * 2 * 6 for 2 ** 20 * 2 ** 6) is power_typed_as_product, named only where the
cell's own assignments, replayed with that one a * b as a ** b, give the right count; a causal mask whose query
index grid is tiled with .repeat (torch.arange(T_q).repeat(T_k).view(T_q, T_k), [i, j] = (i * T_k + j) mod T_q) is
query_index_tiled, named from second calls on square and rectangular sizes. Each kind is graded through the
sandbox on variants of its own, with correct neighbours at full marks."""
from __future__ import annotations

import pytest
import torch

from tests.heldout.harness import graded_as
from tests.hidden_modules import load

diag = load("sdpa-from-scratch", "_diagnose", "_test_sdpa_round50_diagnose")
ref = diag.ref

TRACE = "scores3 = Q3 @ K3.T / math.sqrt(4)\nweights3 = stable_softmax(scores3, dim=-1)\nout3 = weights3 @ V3\n"
CM = "def causal_mask(T_q, T_k=None):\n    if T_k is None:\n        T_k = T_q\n"
Q8 = "attn_entries = {entries}\nscore_madds = {madds}\ncost_ratio = 4\n"


def _sub(*cells):
    from autograder.grading.runner import SubmissionInfo
    return SubmissionInfo(source="\n".join(cells), cells=tuple(cells))


# --- unit: the replays, and that they are no other catalogued value -------------------------------------------------

def test_the_kept_scores_softmaxes_are_two_readings_and_not_the_right_weights():
    mask = ref.causal_mask(3)
    flat = diag.kept_scores_softmaxes()
    assert len(flat) == 2
    for w in flat.values():
        assert w.shape == (int(mask.sum()),) and abs(float(w.sum()) - 1) < 1e-9
        assert float((w - ref.weights3_causal.double()[mask]).abs().max()) > 1e-2
        assert float((w - ref.weights3.double()[mask]).abs().max()) > 1e-2
    right_rows = ref.weights3_causal[mask]
    diag.name_kept_scores_one_softmax(right_rows, "weights3_causal", 5e-4)     # the right weights, flattened: no


@pytest.mark.parametrize("cell", [
    Q8.format(entries="2 ** 20", madds="2 ** 20 * 4 * 3"),
    "d_k = 2 * 6\nattn_entries = 1024 ** 2\nscore_madds = attn_entries * d_k\n",
    Q8.format(entries="1024 ** 2", madds="(1024 * 1024) * (8 * 2)"),
])
def test_a_power_typed_as_a_product_is_named_from_the_cells_replay(cell):
    ns: dict = {}
    exec(cell, {}, ns)      # noqa: S102 - the test's own literal cells
    with pytest.raises(diag.Misconception) as named:
        diag.name_power_typed_as_product(ns["score_madds"], "score_madds", _sub(cell))
    assert named.value.key == "power_typed_as_product" and "** " in str(named.value)


@pytest.mark.parametrize("cell", [
    Q8.format(entries="1024 ** 2", madds="1024 * 1024 * 16"),           # no product of literals to re-read
    Q8.format(entries="1024 ** 2", madds="2 * 1024 * 64"),              # 2 ** 1024 * 64 is no fix
    Q8.format(entries="1024 ** 2", madds="1024 * 1024 * 64 * 2"),       # twice: 64 ** 2 is no fix
    Q8.format(entries="1024 ** 2", madds="1024 * 1024 * 2 ** 6"),       # right
])
def test_no_power_is_named_where_no_single_regrouping_gives_the_count(cell):
    ns: dict = {}
    exec(cell, {}, ns)      # noqa: S102 - the test's own literal cells
    diag.name_power_typed_as_product(ns["score_madds"], "score_madds", _sub(cell))
    diag.name_power_typed_as_product(ns["score_madds"], "score_madds", None)


def test_the_tiled_query_index_is_all_true_when_square_and_its_own_mask_when_not():
    for n in (3, 5, 11):
        assert bool(diag.query_index_tiled(n, n).all())
    rect = [(n, k) for n, k in diag.TILED_PROBES if k is not None and n != k]
    assert rect and all(diag._tiled_probe_is_telling(n, k) for n, k in rect)
    i, j = torch.arange(9)[:, None], torch.arange(6)[None, :]
    tiled = torch.arange(9).repeat(6).view(9, 6)
    assert bool((diag.query_index_tiled(9, 6) == (j <= tiled)).all()) and not bool((tiled == i).all())


# --- through the sandbox ------------------------------------------------------------------------------------------

WRONG = {
    "boolean_index_flattens_rows": (("q6",), "one softmax over scores3[causal_mask(3)]", [
        {"weights3": TRACE + "weights3_causal = torch.masked_select(scores3, causal_mask(3)).softmax(0)\n"},
        {"weights3": TRACE + "raw = Q3 @ K3.T\nkept = raw[causal_mask(3).nonzero(as_tuple=True)]\n"
                             "e = torch.exp(kept - kept.max())\nweights3_causal = (e / e.sum()).tolist()\n"},
        {"weights3": TRACE + "allowed = scores3[torch.tril(torch.ones(3, 3)).bool()]\n"
                             "weights3_causal = stable_softmax(allowed.unsqueeze(0), dim=-1)\n"},
    ]),
    "power_typed_as_product": (("q8",), "** ", [
        {"attn_entries": "d_k = 2 * 6     # 2^6\nattn_entries = 1024 ** 2\nscore_madds = attn_entries * d_k\n"
                         "cost_ratio = 4\n"},
        {"attn_entries": Q8.format(entries="1024 * 1024", madds="1024 * 1024 * 8 * 2")},
        {"attn_entries": Q8.format(entries="2 * 20", madds="2 ** 26")},
    ]),
    "query_index_tiled": (("q4", "q6"), "(i * T_k + j) mod T_q", [
        {"causal_mask": CM + "    i = torch.arange(T_q).tile(T_k).reshape(T_q, T_k)\n"
                             "    j = torch.arange(T_k)[None, :]\n    return i >= j\n"},
        {"causal_mask": CM + "    q = torch.arange(T_q).repeat(T_k, 1).reshape(T_q, T_k)\n"
                             "    k = torch.arange(T_k).expand(T_q, T_k)\n    return (q - k) >= 0\n"},
        {"causal_mask": CM + "    rows = torch.arange(T_q).repeat(T_k).view(T_q, -1)\n"
                             "    cols = torch.arange(T_k).expand(T_q, -1)\n    return torch.ge(rows, cols)\n"},
    ]),
}

CORRECT = [
    {"weights3": TRACE + "s = scores3.clone()\ns[~causal_mask(3)] = float('-inf')\n"
                         "weights3_causal = stable_softmax(s, dim=-1)\n"},
    {"weights3": TRACE + "weights3_causal = stable_softmax(torch.where(causal_mask(3), scores3, "
                         "torch.tensor(float('-inf'))), dim=-1)\n"},
    {"attn_entries": Q8.format(entries="2 ** 10 * 2 ** 10", madds="1024 * 1024 * 8 * 8")},
    {"attn_entries": "d_k = 2 ** 6\nattn_entries = 1024 ** 2\nscore_madds = attn_entries * d_k\ncost_ratio = 2 * 2\n"},
    {"causal_mask": CM + "    q = torch.arange(T_q).repeat_interleave(T_k).view(T_q, T_k)\n"
                         "    k = torch.arange(T_k).repeat(T_q).view(T_q, T_k)\n    return k <= q\n"},
    {"causal_mask": CM + "    q = torch.arange(T_q).repeat(T_k, 1).T\n    k = torch.arange(T_k).repeat(T_q, 1)\n"
                         "    return k <= q\n"},
]


_graded = graded_as("sdpa-from-scratch", "round50")


@pytest.mark.parametrize("key, where, words, cells", [(k, w, s, c) for k, (w, s, cs) in WRONG.items() for c in cs],
                         ids=[f"{k}-{i}" for k, (_w, _s, cs) in WRONG.items() for i in range(len(cs))])
def test_each_kind_is_named_through_the_sandbox(grader, key, where, words, cells):
    outcome = _graded(grader, cells)
    assert outcome.status == "graded" and outcome.failed, outcome.explain()
    assert all(k == key for q, _t, k, _m in outcome.failed if q in where), outcome.explain()
    assert all(k in (key, None) for _q, _t, k, _m in outcome.failed), outcome.explain()
    assert any(q in where for q, _t, _k, _m in outcome.failed), outcome.explain()
    assert all(words in m for q, _t, _k, m in outcome.failed if q in where), outcome.explain()


@pytest.mark.parametrize("cells, test, said", [
    ({"weights3": TRACE + "weights3_causal = weights3[causal_mask(3)]\n"}, "test_weights3_causal", "got (6,)"),
    ({"attn_entries": Q8.format(entries="1024 ** 2", madds="1024 * 1024 * 16")}, "test_score_madds", "16,777,216"),
])
def test_neighbours_of_another_kind_stay_unnamed_and_show_their_value(grader, cells, test, said):
    outcome = _graded(grader, cells)
    assert [(t, k) for _q, t, k, _m in outcome.failed] == [(test, None)], outcome.explain()
    assert said in outcome.failed[0][3], outcome.explain()


@pytest.mark.parametrize("cells", CORRECT, ids=[f"{next(iter(c))}-{i}" for i, c in enumerate(CORRECT)])
def test_correct_neighbours_keep_full_marks(grader, cells):
    outcome = _graded(grader, cells)
    assert outcome.full_marks, outcome.explain()
