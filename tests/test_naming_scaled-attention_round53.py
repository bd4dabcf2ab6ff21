"""Naming scaled-attention's mistakes, round 53 (blind53's three generic variants).

fused_qkv_chunked_wrong_axis: multi_head_attention fuses W_Q | W_K | W_V and cuts X @ W_QKV in three along the
tokens (chunk(3) or torch.tensor_split(..., 3) on the default dim 0) instead of the features: named where the
output equals the replay of that cut (T a multiple of 3: ceil(T / 3) rows), or where the crash is the replay's and
a second call with T = 6 tokens gives the replay's output.

dots_polarisation_misdivided: dot_product_variance takes q.k from the polarisation identity divided by 2 (or not
divided) instead of 4; named by exact replay on a generator seeded as the student's, and only where the function
forms both q + k and q - k (doubled draws give the same numbers).

answer_in_container for a one-entry dict holding the letter ({"D": "reason"}, {"answer": "D"}); a wrong letter in
such a dict names that choice's key.

My own variants, not the blind sets' cells; right neighbours keep full marks."""
from __future__ import annotations

import pytest

from tests.heldout.harness import grade_cells


def _mha(split: str, heads: str = "cols") -> dict[str, str]:
    if heads == "cols":
        body = '''    heads = []
    for h in range(n_heads):
        s = slice(h * d_k, (h + 1) * d_k)
        heads.append(attention(Q[:, s], K[:, s], V[:, s], d_k)[0])
    return torch.cat(heads, dim=-1) @ W_O
'''
    else:
        body = '''    outs = [attention(Q[:, i:i + d_k], K[:, i:i + d_k], V[:, i:i + d_k], d_k)[0]
            for i in range(0, d_model, d_k)]
    return torch.hstack(outs) @ W_O
'''
    return {"multi_head_attention": f'''def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    d_model = X.shape[-1]
    d_k = d_model // n_heads
    qkv = X @ torch.cat((W_Q, W_K, W_V), dim=-1)
    Q, K, V = {split}
''' + body}


FUSED = {
    "torch_chunk_function": _mha("torch.chunk(qkv, 3)"),
    "tensor_split_default_dim": _mha("torch.tensor_split(qkv, 3)", heads="hstack"),
    "chunk_dim_zero_written": _mha("qkv.chunk(3, dim=0)", heads="hstack"),
}
FUSED_RIGHT = {
    "chunk_last_dim": _mha("qkv.chunk(3, dim=-1)"),
    "split_by_width": _mha("qkv.split(d_model, dim=1)", heads="hstack"),
}


def _variance(dots: str) -> dict[str, str]:
    return {"dot_product_variance": f'''def dot_product_variance(d_k, n_samples, generator, scaled=False):
    a = torch.randn(n_samples, d_k, generator=generator)
    b = torch.randn(n_samples, d_k, generator=generator)
    dots = {dots}
    if scaled:
        dots = dots / math.sqrt(d_k)
    return float(torch.var(dots))
'''}


POLARISATION = {
    "norms_halved": (_variance("(torch.linalg.vector_norm(a + b, dim=1) ** 2 - torch.linalg.vector_norm(a - b, "
                               "dim=1) ** 2) * 0.5"), "divided by 2"),
    "squares_summed_halved": (_variance("(((a + b) ** 2).sum(-1) - ((b - a) ** 2).sum(-1)) / 2"), "divided by 2"),
    "torch_add_sub_halved": (_variance("(torch.add(a, b).pow(2).sum(1) - a.sub(b).pow(2).sum(1)) / 2"),
                             "divided by 2"),
    "not_divided": (_variance("((a + b) * (a + b)).sum(1) - ((a - b) * (a - b)).sum(1)"), "divided by 1"),
}
POLARISATION_RIGHT = {
    "quarter": _variance("(((a + b) ** 2).sum(-1) - ((a - b) ** 2).sum(-1)) / 4"),
    "norms_quarter": _variance("(torch.linalg.vector_norm(a + b, dim=1) ** 2 - torch.linalg.vector_norm(a - b, "
                               "dim=1) ** 2) * 0.25"),
}

LETTER_DICT = {
    "q7_letter_to_note": ({"q7_answer": 'q7_answer = {"D": "all values mixed by softmax weights"}\n'}, "q7",
                          "answer_in_container"),
    "q5_label_to_letter": ({"q5_answer": 'q5_answer = dict(answer="C")\n'}, "q5", "answer_in_container"),
    "q6_lower_letter_to_list": ({"q6_answer": 'q6_answer = {"a": ["weighted", "average"]}\n'}, "q6",
                                "answer_in_container"),
    "q6_wrong_letter_to_reason": ({"q6_answer": 'q6_answer = {"D": "every key weighs the same"}\n'}, "q6",
                                  "uniform_weights"),
}
LETTER_DICT_RIGHT = {
    "q7_plain": {"q7_answer": '_why7 = {"D": "soft lookup"}\nq7_answer = next(iter(_why7))\n'},
    "q5_from_dict": {"q5_answer": '_a5 = {"answer": "C"}\nq5_answer = _a5["answer"]\n'},
}


@pytest.mark.parametrize("name", sorted(FUSED))
def test_fused_qkv_chunked_along_tokens_is_named(grader, name):
    outcome = grade_cells(grader, "scaled-attention", FUSED[name], f"round53_{name}")
    assert outcome.score < outcome.max_score, outcome.explain()
    assert outcome.failed and all((q, k) == ("q8", "fused_qkv_chunked_wrong_axis")
                                  for q, _t, k, _m in outcome.failed), outcome.explain()
    assert all("chunk(3, dim=-1)" in m for _q, _t, _k, m in outcome.failed), outcome.explain()


@pytest.mark.parametrize("name", sorted(POLARISATION))
def test_polarisation_misdivided_is_named(grader, name):
    cells, said = POLARISATION[name]
    outcome = grade_cells(grader, "scaled-attention", cells, f"round53_{name}")
    assert outcome.score < outcome.max_score, outcome.explain()
    assert outcome.failed and all((q, k) == ("q2", "dots_polarisation_misdivided")
                                  for q, _t, k, _m in outcome.failed), outcome.explain()
    assert all(said in m for _q, _t, _k, m in outcome.failed), outcome.explain()


def test_doubled_dots_without_the_identity_are_not_polarisation(grader):
    # the same numbers as / 2, but no q + k and q - k: the identity is not what the code does
    cells = _variance("2 * (a * b).sum(dim=-1)")
    outcome = grade_cells(grader, "scaled-attention", cells, "round53_doubled_dots")
    assert outcome.score < outcome.max_score, outcome.explain()
    assert all(k != "dots_polarisation_misdivided" for _q, _t, k, _m in outcome.failed), outcome.explain()


@pytest.mark.parametrize("name", sorted(LETTER_DICT))
def test_letter_in_dict_is_named(grader, name):
    cells, question, key = LETTER_DICT[name]
    outcome = grade_cells(grader, "scaled-attention", cells, f"round53_{name}")
    assert outcome.score < outcome.max_score, outcome.explain()
    assert [(q, k) for q, _t, k, _m in outcome.failed] == [(question, key)], outcome.explain()
    assert "a dict" in outcome.failed[0][3], outcome.explain()
    if key == "answer_in_container":
        assert "take the letter out" in outcome.failed[0][3], outcome.explain()
    else:
        assert "is not the best answer" in outcome.failed[0][3], outcome.explain()


RIGHT = {**FUSED_RIGHT, **POLARISATION_RIGHT, **LETTER_DICT_RIGHT}


@pytest.mark.parametrize("name", sorted(RIGHT))
def test_own_right_variants_keep_full_marks(grader, name):
    outcome = grade_cells(grader, "scaled-attention", RIGHT[name], f"round53_{name}")
    assert outcome.full_marks, outcome.explain()
