"""Naming scaled-attention's mistakes, round 52 (blind52's two generic variants and one told as a one-edit fix).

table_scaled_std_from_raw_std: entropy_table works scaled_std out from raw_std by a wrong factor (raw_std / d,
raw_std / d ** 2, raw_std * sqrt(d)) instead of measuring the std of the scaled scores (raw_std / sqrt(d)); named by
exact replay of the lesson's table with that column so and the other three right, told with the formula found.

answer_letter_past_last_option: a multiple-choice answer that is 'E' (one past the last option, D), counted out by
the code (chr(ord("A") + 4), "ABCDE"[n], string.ascii_uppercase[4]); a literal 'E' is not named so.

normals_rescaled_as_uniform: dot_product_variance rescales torch.randn's draws like torch.rand's (* 2 - 1, - 0.5);
named by replaying those draws on a generator seeded as the student's.

My own variants, not the blind sets' cells; right neighbours keep full marks."""
from __future__ import annotations

import pytest

from tests.heldout.harness import grade_cells

_ENTROPY = '''def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = torch.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)


'''


def _table(scaled_std: str) -> dict[str, str]:
    return {"softmax_entropy": _ENTROPY + f'''def entropy_table(dims=(4, 16, 64, 256), seed=0):
    rows = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / math.sqrt(d)
        raw_std = raw.std().item()
        rows.append(dict(d=d, raw_std=raw_std, scaled_std={scaled_std},
                         H_raw=softmax_entropy(raw).item(), H_scaled=softmax_entropy(scaled).item()))
    return rows
'''}


SCALED_STD = {
    "std_item_over_d": (_table("raw.std().item() / d"), "raw_std / d"),
    "raw_std_times_root_d": (_table("raw_std * math.sqrt(d)"), "raw_std * sqrt(d)"),
    "raw_std_over_d_squared": (_table("raw_std / (d * d)"), "raw_std / d ** 2"),
}
SCALED_STD_RIGHT = {
    "raw_std_over_root_d": _table("raw_std / math.sqrt(d)"),
    "raw_std_times_inverse_root": _table("raw_std * d ** -0.5"),
}


def _variance(draw_q: str, draw_k: str) -> dict[str, str]:
    return {"dot_product_variance": f'''def dot_product_variance(d_k, n_samples, generator, scaled=False):
    q = {draw_q}
    k = {draw_k}
    dots = (q * k).sum(dim=-1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''}


RESCALED = {
    "two_times_minus_one_in_front": _variance("2 * torch.randn(n_samples, d_k, generator=generator) - 1",
                                              "2 * torch.randn(n_samples, d_k, generator=generator) - 1"),
    "centred_by_half": _variance("torch.randn(n_samples, d_k, generator=generator) - 0.5",
                                 "torch.randn(n_samples, d_k, generator=generator) - 0.5"),
    "bracketed_shift_then_doubled": _variance("(torch.randn(n_samples, d_k, generator=generator) - 0.5) * 2",
                                              "(torch.randn(n_samples, d_k, generator=generator) - 0.5) * 2"),
}
RESCALED_RIGHT = {
    "randn_times_one_plus_zero": _variance("torch.randn(n_samples, d_k, generator=generator) * 1.0 + 0.0",
                                           "torch.randn(n_samples, d_k, generator=generator) * 1.0 + 0.0"),
}

PAST_LAST = {
    "q7_ascii_uppercase_index_four": ({"q7_answer": "import string\nq7_answer = string.ascii_uppercase[4]\n"}, "q7"),
    "q6_lower_chr_plus_option_count": ({"q6_answer": '_options6 = ["a", "b", "c", "d"]\n'
                                                     'q6_answer = chr(ord("a") + len(_options6)).upper()\n'}, "q6"),
    "q5_letters_indexed_by_count": ({"q5_answer": '_n5 = 4\nq5_answer = "ABCDEFGH"[_n5]\n'}, "q5"),
}
PAST_LAST_RIGHT = {
    "q7_chr_plus_count_minus_one": {"q7_answer": '_n7 = 4\nq7_answer = chr(ord("A") + _n7 - 1)\n'},
    "q6_letters_indexed_first": {"q6_answer": 'q6_answer = "ABCD"[0]\n'},
}


@pytest.mark.parametrize("name", sorted(SCALED_STD))
def test_scaled_std_formula_is_named(grader, name):
    cells, said = SCALED_STD[name]
    outcome = grade_cells(grader, "scaled-attention", cells, f"round52_{name}")
    assert outcome.score < outcome.max_score, outcome.explain()
    assert [(q, k) for q, _t, k, _m in outcome.failed] == [("q4", "table_scaled_std_from_raw_std")] * 2, \
        outcome.explain()
    assert all(f"scaled_std is {said} in every row" in m for _q, _t, _k, m in outcome.failed), outcome.explain()


@pytest.mark.parametrize("name", sorted(RESCALED))
def test_normals_rescaled_as_uniform_is_named(grader, name):
    outcome = grade_cells(grader, "scaled-attention", RESCALED[name], f"round52_{name}")
    assert outcome.score < outcome.max_score, outcome.explain()
    assert outcome.failed and all((q, k) == ("q2", "normals_rescaled_as_uniform")
                                  for q, _t, k, _m in outcome.failed), outcome.explain()


@pytest.mark.parametrize("name", sorted(PAST_LAST))
def test_letter_past_last_option_is_named(grader, name):
    cells, question = PAST_LAST[name]
    outcome = grade_cells(grader, "scaled-attention", cells, f"round52_{name}")
    assert outcome.score < outcome.max_score, outcome.explain()
    assert [(q, k) for q, _t, k, _m in outcome.failed] == [(question, "answer_letter_past_last_option")], \
        outcome.explain()
    assert "one past the last option, D" in outcome.failed[0][3], outcome.explain()


@pytest.mark.parametrize("cells", [{"q7_answer": 'q7_answer = "E"\n'}, {"q7_answer": 'q7_answer = chr(ord("A") + 5)\n'}],
                         ids=["literal_e", "two_past"])
def test_letter_not_counted_one_past_is_not_named(grader, cells):
    outcome = grade_cells(grader, "scaled-attention", cells, "round52_q7_not_past")
    assert outcome.score < outcome.max_score, outcome.explain()
    assert all(k != "answer_letter_past_last_option" for _q, _t, k, _m in outcome.failed), outcome.explain()


RIGHT = {**SCALED_STD_RIGHT, **RESCALED_RIGHT, **PAST_LAST_RIGHT}


@pytest.mark.parametrize("name", sorted(RIGHT))
def test_own_right_variants_keep_full_marks(grader, name):
    outcome = grade_cells(grader, "scaled-attention", RIGHT[name], f"round52_{name}")
    assert outcome.full_marks, outcome.explain()
