"""sdpa-from-scratch, naming round 48 (after blind48): q8's count written with a shift next to a product
(1 << 20 * 64 is 1 << 1280: << binds looser than *) is shift_binds_looser, replayed on the cell's own expression,
and a count too large for a float is said in numbers instead of escaping as the grader's OverflowError; a softmax
shifted by the running max (torch.cummax) is softmax_running_max in q3, q5 and q6; a causal mask whose
tril_indices are scattered as mask[cols, rows] is upper_triangular_mask on rectangular calls too (the wide mask
replayed, the tall one's IndexError named only where the same sizes the other way round show the replay); d_k
taken as Q.numel() // T_q (every leading axis times the head width) is scale_by_batch_dim on 4-D inputs as well.
Each kind is graded through the sandbox on variants of its own, with correct neighbours at full marks."""
from __future__ import annotations

import math

import pytest
import torch

from tests.heldout.harness import graded_as
from tests.hidden_modules import load

diag = load("sdpa-from-scratch", "_diagnose", "_test_sdpa_round48_diagnose")
ref = diag.ref

SM = "def stable_softmax(x, dim=-1):\n"
CM = "def causal_mask(T_q, T_k=None):\n    if T_k is None:\n        T_k = T_q\n"
SDPA = ("def scaled_dot_product_attention(Q, K, V, mask=None):\n{d_k}"
        "    scores = Q @ K.transpose(-2, -1) / math.sqrt(d_k)\n"
        "    if mask is not None:\n        scores = scores.masked_fill(~mask, float('-inf'))\n"
        "        weights = stable_softmax(scores, dim=-1)\n"
        "        weights = torch.where(mask.any(dim=-1, keepdim=True), weights, torch.zeros_like(weights))\n"
        "    else:\n        weights = stable_softmax(scores, dim=-1)\n    return weights @ V\n")
Q8 = "attn_entries = {entries}\nscore_madds = {madds}\ncost_ratio = 4\n"


def _sub(*cells):
    from autograder.grading.runner import SubmissionInfo
    return SubmissionInfo(source="\n".join(cells), cells=tuple(cells))


# --- unit: the replays, and that they are no other catalogued value -------------------------------------------------

@pytest.mark.parametrize("name, cell", [
    ("score_madds", Q8.format(entries="1 << 20", madds="1 << 20 * 64")),
    ("score_madds", Q8.format(entries="1 << 20", madds="2 << 19 * 64")),
    ("score_madds", "bits, d_k = 10, 64\nattn_entries = 1 << bits * 2\nscore_madds = 1 << bits * 2 * d_k\n"),
    ("attn_entries", Q8.format(entries="1 << 10 ** 2", madds="(1 << 10) ** 2 * 64")),
    ("score_madds", Q8.format(entries="1 << 20", madds="1 << (20) * 64")),        # brackets that change nothing
])
def test_a_shift_that_took_the_product_is_named(name, cell):
    ns: dict = {}
    exec(cell, {}, ns)      # noqa: S102 - the test's own literal cells
    assert ns[name] != getattr(ref, name)
    with pytest.raises(diag.Misconception) as named:
        diag.name_shift_precedence(ns[name], name, _sub(cell))
    assert named.value.key == "shift_binds_looser" and "binds looser than" in str(named.value)


@pytest.mark.parametrize("cell, said", [
    (Q8.format(entries="1 << 20", madds="1 << (20 * 64)"), "386-digit"),    # bracketed on purpose: no precedence
    (Q8.format(entries="1 << 20", madds="1 << 20 * 65"), "392-digit"),      # regrouped is still wrong
    (Q8.format(entries="1 << 20", madds="2 ** (20 * 64)"), "386-digit"),    # no shift at all
])
def test_a_huge_count_with_no_regrouping_that_fixes_it_is_said_in_numbers(cell, said):
    ns: dict = {}
    exec(cell, {}, ns)      # noqa: S102 - the test's own literal cells
    with pytest.raises(AssertionError) as told:
        diag.name_shift_precedence(ns["score_madds"], "score_madds", _sub(cell))
    assert not isinstance(told.value, diag.Misconception) and said in str(told.value)
    assert "67" not in str(told.value)      # the right count is not given away


@pytest.mark.parametrize("cell", [
    Q8.format(entries="1 << 20", madds="(1 << 20) * 64"),
    Q8.format(entries="1 << 20", madds="1 << 20 + 6"),          # 1 << 26: right
    Q8.format(entries="1 << 20", madds="64 * 1 << 20"),         # (64 * 1) << 20: right
    Q8.format(entries="1 << 20", madds="1 >> 20 * 64"),         # 0, and (1 >> 20) * 64 is no fix
])
def test_a_right_count_or_a_shift_no_regrouping_fixes_is_not_named(cell):
    ns: dict = {}
    exec(cell, {}, ns)      # noqa: S102 - the test's own literal cells
    diag.name_shift_precedence(ns["score_madds"], "score_madds", _sub(cell))
    diag.name_shift_precedence(ns["score_madds"], "score_madds", None)


def test_the_running_max_softmax_is_no_other_softmax_variant():
    g = torch.Generator().manual_seed(48)
    x = torch.randn(3, 5, 7, generator=g, dtype=torch.float64) * 3
    for dim in (-1, 0, 1):
        variants = diag.softmax_variants(x, dim=dim)
        run = variants.pop("softmax_running_max")
        assert not torch.allclose(run, ref.stable_softmax(x, dim=dim), atol=1e-4)
        assert all(not torch.allclose(run, v.double(), atol=1e-4, equal_nan=True) for v in variants.values())
    assert torch.allclose(diag.softmax_running_max(x.flip(-1).sort(-1, descending=True).values),
                          ref.stable_softmax(x.sort(-1, descending=True).values))    # the max first: right


def test_the_swapped_tril_indices_are_no_other_mask():
    for T_q, T_k in ((3, 5), (4, 9), (2, 7)):
        m = diag.tril_indices_swapped(T_q, T_k)
        assert not bool((m == ref.causal_mask(T_q, T_k)).all()) and not bool((m == ~ref.causal_mask(T_q, T_k)).all())
        assert all(not bool((m == w).all()) for w in ref.causal_mask_variants(T_q, T_k).values())
    assert bool((diag.tril_indices_swapped(5, 5) == ref.causal_mask_upper(5)).all())
    assert diag.tril_indices_swapped(9, 6) is None


def test_numel_over_t_q_is_a_divisor_of_its_own_on_4d_inputs():
    Q = torch.zeros(2, 3, 5, 8)
    divisors = diag._lead_divisors(Q, Q, Q)
    mine = divisors.pop("scale_by_batch_dim/numel_over_T_q")
    assert mine == math.sqrt(2 * 3 * 8)
    assert all(abs(mine - d) > 1e-6 for d in [*divisors.values(), *diag._taken(Q, Q, Q)])
    assert "scale_by_batch_dim/numel_over_T_q" not in diag._lead_divisors(*(torch.zeros(2, 5, 8),) * 3)


# --- through the sandbox ------------------------------------------------------------------------------------------

WRONG = {
    "softmax_running_max": (("q3", "q5", "q6"), "running max", [
        {"stable_softmax": SM + "    m = torch.cummax(x, dim=dim)[0]\n    e = torch.exp(x - m)\n"
                                "    return e / torch.sum(e, dim=dim, keepdim=True)\n"},
        {"stable_softmax": SM + "    xt = x.movedim(dim, -1)\n    z = xt - xt.cummax(-1).values     # online max\n"
                                "    lse = torch.log(torch.exp(z).sum(-1, keepdim=True))\n"
                                "    return torch.exp(z - lse).movedim(-1, dim)\n"},
    ]),
    "upper_triangular_mask": (("q4", "q6"), "", [
        {"causal_mask": CM + "    idx = torch.tril_indices(T_q, T_k)\n"
                             "    m = torch.zeros(T_q, T_k, dtype=torch.bool)\n    m[idx[1], idx[0]] = True\n    return m\n"},
        {"causal_mask": CM + "    r, c = torch.tril_indices(T_q, T_k)\n    m = torch.zeros((T_q, T_k), dtype=torch.bool)\n"
                             "    m.index_put_((c, r), torch.tensor(True))\n    return m\n"},
        {"causal_mask": CM + "    m = torch.zeros(T_q, T_k, dtype=torch.bool)\n"
                             "    m[tuple(torch.tril_indices(T_q, T_k).flip(0))] = True\n    return m\n"},
    ]),
    "scale_by_batch_dim": (("q5",), "", [
        {"scaled_dot_product_attention": SDPA.format(d_k="    d_k = Q[..., 0, :].numel()      # features per token\n")},
        {"scaled_dot_product_attention": SDPA.format(d_k="    d_k = math.prod(Q.shape) // Q.shape[-2]\n")},
    ]),
    "shift_binds_looser": (("q8",), "binds looser than", [
        {"attn_entries": Q8.format(entries="1 << 20", madds="2 << 19 * 64")},
        {"attn_entries": "bits, d_k = 10, 64\nattn_entries = 1 << bits * 2\nscore_madds = 1 << bits * 2 * d_k\n"
                         "cost_ratio = 4\n"},
        {"attn_entries": Q8.format(entries="1 << 10 ** 2", madds="(1 << 10) ** 2 * 64")},
    ]),
}

CORRECT = [
    {"stable_softmax": SM + "    m = torch.cummax(x, dim=dim).values.narrow(dim, x.shape[dim] - 1, 1)\n"     # its last
                            "    e = torch.exp(x - m)\n    return e / e.sum(dim=dim, keepdim=True)\n"},   # is the max
    {"causal_mask": CM + "    r, c = torch.tril_indices(T_q, T_k)\n    m = torch.zeros(T_q, T_k, dtype=torch.bool)\n"
                         "    m[r, c] = True\n    return m\n"},
    {"scaled_dot_product_attention": SDPA.format(d_k="    d_k = Q.numel() // math.prod(Q.shape[:-1])\n")},
    {"attn_entries": Q8.format(entries="1 << 20", madds="(1 << 20) * 64")},
    {"attn_entries": Q8.format(entries="1 << 10 * 2", madds="1 << 20 + 6")},
]


_graded = graded_as("sdpa-from-scratch", "round48")


@pytest.mark.parametrize("key, where, words, cells", [(k, w, s, c) for k, (w, s, cs) in WRONG.items() for c in cs],
                         ids=[f"{k}-{i}" for k, (_w, _s, cs) in WRONG.items() for i in range(len(cs))])
def test_each_kind_is_named_through_the_sandbox(grader, key, where, words, cells):
    outcome = _graded(grader, cells)
    assert outcome.status == "graded" and outcome.failed, outcome.explain()
    assert all(k == key for q, _t, k, _m in outcome.failed if q in where), outcome.explain()
    assert all(k in (key, None) for _q, _t, k, _m in outcome.failed), outcome.explain()
    assert any(q in where for q, _t, _k, _m in outcome.failed), outcome.explain()
    assert all(words in m for q, _t, _k, m in outcome.failed if q in where), outcome.explain()


def test_the_rectangular_masks_of_swapped_indices_say_the_swap(grader):
    outcome = _graded(grader, WRONG["upper_triangular_mask"][2][0])
    failed = {t: (k, m) for q, t, k, m in outcome.failed if q == "q4"}
    for test, words in (("test_more_queries_than_keys", "IndexError"), ("test_more_keys_than_queries", "is wrong")):
        assert test in failed, outcome.explain()
        key, message = failed[test]
        assert key == "upper_triangular_mask" and "mask[rows, cols]" in message and words in message, outcome.explain()


def test_a_huge_count_is_a_failed_check_not_the_graders_overflow(grader):
    outcome = _graded(grader, {"attn_entries": Q8.format(entries="1 << 20", madds="1 << (20 * 64)")})
    assert [(q, t) for q, t, _k, _m in outcome.failed] == [("q8", "test_score_madds")], outcome.explain()
    _q, _t, key, message = outcome.failed[0]
    assert key is None and "386-digit number" in message and "OverflowError" not in message, outcome.explain()


@pytest.mark.parametrize("cells", CORRECT, ids=[f"{next(iter(c))}-{i}" for i, c in enumerate(CORRECT)])
def test_correct_neighbours_keep_full_marks(grader, cells):
    outcome = _graded(grader, cells)
    assert outcome.full_marks, outcome.explain()
