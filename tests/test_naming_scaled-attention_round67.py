"""Naming scaled-attention's mistakes, round 67 (blind67's mis-named and generic variants, the kinds: an answer read
from another question's entry, a result computed and never returned).

answer_read_under_other_key: a multiple-choice answer read from a dict of letters under another question's key
(`q6_answer = my_letters["q5"]`, `.get("q5_answer")`, a key left from the copied cell): named where the answer is
wrong and the notebook's last binding of it reads that entry (the letter is the entry's where the dict is written
out), not after the belief of the letter's option (attention_as_argmax had pinned q5's letter on q6); the entry
under the question's own key keeps full marks.

result_assigned_not_returned: a function with no `return` whose last line stores its result in a variable
(`output = ... @ W_O`) or computes it as a bare expression: named where the call gives None and the source of the
notebook's last def has no `return` of a value; multi_head_attention (q8) and attention (q1). A function that
stores and then returns its result keeps full marks, and one with a `return` on another path is left to
return_missing_on_path.

My own variants, not the blind set's cells; right neighbours keep full marks."""
from __future__ import annotations

import pytest

from tests.heldout.harness import grade_cells

LETTERS = '{"q5": "C", "q6": "A", "q7": "D"}'

OTHER_KEY = {
    "q6_get_q5_answer_key": ({"q6_answer": '''
answers = {"q5_answer": "C", "q6_answer": "A", "q7_answer": "D"}
q6_answer = answers.get("q5_answer")
'''}, "q6"),
    "q7_reads_q6_entry": ({"q7_answer": f'''
letters = {LETTERS}
q7_answer = letters["q6"]   # copied from the cell above
'''}, "q7"),
    "q5_reads_question_7_key": ({"q5_answer": '''
mine = {"question 5": "C", "question 7": "D"}
q5_answer = mine["question 7"]
'''}, "q5"),
}
OTHER_KEY_RIGHT = {
    "q6_reads_own_entry": {"q6_answer": f'''
letters = {LETTERS}
q6_answer = letters["q6"]
'''},
    "q7_get_own_key": {"q7_answer": f'''
letters = {LETTERS}
q7_answer = letters.get("q7")
'''},
}


def _mha(tail: str) -> dict[str, str]:
    return {"multi_head_attention": f'''def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    d_k = X.shape[-1] // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = [attention(Q[:, h * d_k:(h + 1) * d_k], K[:, h * d_k:(h + 1) * d_k],
                       V[:, h * d_k:(h + 1) * d_k], d_k)[0] for h in range(n_heads)]
{tail}
'''}


def _attention(tail: str) -> dict[str, str]:
    return {"attention": f'''def attention(Q, K, V, d_k):
    scores = Q @ K.transpose(-2, -1) / math.sqrt(d_k)
    weights = torch.softmax(scores, dim=-1)
{tail}
'''}


NOT_RETURNED = {
    "mha_annotated_result": (_mha("    result: torch.Tensor = torch.cat(heads, dim=-1) @ W_O"), "q8", "return result"),
    "mha_bare_expression": (_mha("    torch.cat(heads, dim=1) @ W_O"), "q8", "bare expression"),
    "attention_pair_stored": (_attention("    out = (weights @ V, weights)"), "q1", "return out"),
    "attention_output_stored_after_print": (_attention("    print(weights.shape)\n    output = weights @ V, weights"),
                                            "q1", "return output"),
}
NOT_RETURNED_RIGHT = {
    "mha_stored_then_returned": _mha("    output = torch.cat(heads, dim=1) @ W_O\n    return output"),
    "attention_stored_then_returned": _attention("    out = (weights @ V, weights)\n    return out"),
}


@pytest.mark.parametrize("name", sorted(OTHER_KEY))
def test_answer_read_under_other_key_is_named(grader, name):
    cells, question = OTHER_KEY[name]
    outcome = grade_cells(grader, "scaled-attention", cells, f"round67_{name}")
    assert outcome.score < outcome.max_score, outcome.explain()
    failed = [(k, m) for q, _t, k, m in outcome.failed if q == question]
    assert failed and all(k == "answer_read_under_other_key" for k, _m in failed), outcome.explain()
    assert all("another question's key" in m for _k, m in failed), outcome.explain()


@pytest.mark.parametrize("name", sorted(NOT_RETURNED))
def test_result_assigned_not_returned_is_named(grader, name):
    cells, question, said = NOT_RETURNED[name]
    outcome = grade_cells(grader, "scaled-attention", cells, f"round67_{name}")
    failed = [(k, m) for q, _t, k, m in outcome.failed if q == question]
    assert failed and all(k == "result_assigned_not_returned" for k, _m in failed), outcome.explain()
    assert all("is None" in m and said in m for _k, m in failed), outcome.explain()


def test_return_on_another_path_is_not_this_key(grader):
    cells = _mha("    if n_heads == 1:\n        return heads[0] @ W_O\n    output = torch.cat(heads, dim=1) @ W_O")
    outcome = grade_cells(grader, "scaled-attention", cells, "round67_mha_return_on_one_path")
    q8 = [k for q, _t, k, _m in outcome.failed if q == "q8"]
    assert q8 and "result_assigned_not_returned" not in q8, outcome.explain()


RIGHT = {**OTHER_KEY_RIGHT, **NOT_RETURNED_RIGHT}


@pytest.mark.parametrize("name", sorted(RIGHT))
def test_own_right_variants_keep_full_marks(grader, name):
    outcome = grade_cells(grader, "scaled-attention", RIGHT[name], f"round67_{name}")
    assert outcome.full_marks, outcome.explain()


# --- borderline keys said with their cause (the key unchanged) ---------------------------------------------------

def _normalised(line: str) -> dict[str, str]:
    return {"attention": f'''def attention(Q, K, V, d_k):
    scores = Q @ K.transpose(-2, -1) / math.sqrt(d_k)
    exps = torch.exp(scores - scores.amax(dim=-1, keepdim=True))
    weights = {line}
    return weights @ V, weights
'''}


NORMALIZE_P = {
    "functional_normalize_minus_one": _normalised("F.normalize(exps, -1)"),
    "full_path_normalize_ndim": _normalised("torch.nn.functional.normalize(exps, scores.ndim)"),
}
NORMALIZE_RIGHT = {
    "normalize_p1_keywords": _normalised("F.normalize(exps, p=1, dim=-1)"),
    "normalize_p1_positional": _normalised("F.normalize(exps, 1, -1)"),
}


def _variance(helper: str, call: str) -> dict[str, str]:
    return {"dot_product_variance": f'''{helper}


def dot_product_variance(d_k, n_samples, generator, scaled=False):
    dots = {call}
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''}


_PAIRS = '''def pairs(count, width, generator):
    q = torch.randn(count, width, generator=generator)
    k = torch.randn(count, width, generator=generator)
    return (q * k).sum(-1)'''
_SAMPLE = '''def sample_dots(num, dim, g=None):
    a, b = torch.randn(num, dim, generator=g), torch.randn(num, dim, generator=g)
    return torch.einsum("nd,nd->n", a, b)'''
HELPER_SWAPPED = {
    "pairs_called_width_first": _variance(_PAIRS, "pairs(d_k, n_samples, generator)"),
    "sample_dots_called_width_first": _variance(_SAMPLE, "sample_dots(d_k, n_samples, g=generator)"),
}
HELPER_RIGHT = {
    "pairs_by_keyword": _variance(_PAIRS, "pairs(width=d_k, count=n_samples, generator=generator)"),
}
RANDN_SWAPPED_INSIDE = _variance(_PAIRS.replace("randn(count, width", "randn(width, count"),
                                 "pairs(n_samples, d_k, generator)")


def _table(draws: str, head: str = "") -> dict[str, str]:
    return {"softmax_entropy": f'''{head}
def softmax_entropy(logits):
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    rows = []
    for d in dims:
        torch.manual_seed(seed)
{draws}
        raw = (q @ k.T)[0]
        scaled = raw / math.sqrt(d)
        rows.append({{"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                     "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()}})
    return rows
'''}


OUTSIDE_GENERATOR = {
    "demo_gen_from_q2": _table("        q = torch.randn(1, d, generator=gen)\n"
                               "        k = torch.randn(5, d, generator=gen)"),
    "module_level_rng_in_this_cell": _table("        q, k = torch.randn(1, d, generator=table_rng), "
                                            "torch.randn(5, d, generator=table_rng)",
                                            head="table_rng = torch.Generator().manual_seed(0)\n"),
}
OUTSIDE_GENERATOR_RIGHT = {
    "global_rng_reseeded": _table("        q = torch.randn(1, d)\n        k = torch.randn(5, d)"),
}


@pytest.mark.parametrize("name", sorted(NORMALIZE_P))
def test_normalize_p_is_said_with_its_cause(grader, name):
    outcome = grade_cells(grader, "scaled-attention", NORMALIZE_P[name], f"round67_{name}")
    q1 = [(k, m) for q, _t, k, m in outcome.failed if q == "q1"]
    assert q1 and all(k == "weights_not_normalised" for k, _m in q1), outcome.explain()
    assert all("as p, the norm order" in m and "normalize(" in m for _k, m in q1), outcome.explain()


@pytest.mark.parametrize("name", sorted(HELPER_SWAPPED))
def test_helper_call_swap_is_said_at_the_call(grader, name):
    outcome = grade_cells(grader, "scaled-attention", HELPER_SWAPPED[name], f"round67_{name}")
    q2 = [(k, m) for q, _t, k, m in outcome.failed if q == "q2"]
    assert q2 and all(k == "randn_shape_swapped" for k, _m in q2), outcome.explain()
    assert all("the swap is at your call" in m for _k, m in q2), outcome.explain()


def test_swap_inside_the_helper_is_not_said_at_the_call(grader):
    outcome = grade_cells(grader, "scaled-attention", RANDN_SWAPPED_INSIDE, "round67_randn_swapped_inside")
    q2 = [(k, m) for q, _t, k, m in outcome.failed if q == "q2"]
    assert q2 and all(k == "randn_shape_swapped" and "your call" not in m for k, m in q2), outcome.explain()


@pytest.mark.parametrize("name", sorted(OUTSIDE_GENERATOR))
def test_outside_generator_is_said(grader, name):
    outcome = grade_cells(grader, "scaled-attention", OUTSIDE_GENERATOR[name], f"round67_{name}")
    q4 = [(k, m) for q, _t, k, m in outcome.failed if q == "q4"]
    assert q4 and all(k == "ignores_generator" for k, _m in q4), outcome.explain()
    assert all("made outside entropy_table" in m and "does not reseed" in m for _k, m in q4), outcome.explain()


BORDER_RIGHT = {**NORMALIZE_RIGHT, **HELPER_RIGHT, **OUTSIDE_GENERATOR_RIGHT}


@pytest.mark.parametrize("name", sorted(BORDER_RIGHT))
def test_borderline_right_neighbours_keep_full_marks(grader, name):
    outcome = grade_cells(grader, "scaled-attention", BORDER_RIGHT[name], f"round67_{name}")
    assert outcome.full_marks, outcome.explain()


def _probe(width: int, size: str, seed: int = 7) -> dict[str, str]:
    return {"q7_answer": f'''
torch.manual_seed({seed})
probe_q = torch.randn(1, {width})
probe_k, probe_v = torch.randn(6, {width}), torch.randn(6, 3)
_, w = attention(probe_q, probe_k, probe_v, {size})
q7_answer = "C" if w.max().item() > 0.9 else "D"
'''}


PROBE_GLOBAL_SIZE = {
    "probe_4096_wide_global_d_k": _probe(4096, "d_k"),
    "probe_1024_wide_global_d_k_other_seed": _probe(1024, "d_k", seed=1),
}
PROBE_RIGHT = {
    "probe_own_width": _probe(4096, "probe_q.shape[-1]"),
}


@pytest.mark.parametrize("name", sorted(PROBE_GLOBAL_SIZE))
def test_probe_global_size_is_said(grader, name):
    outcome = grade_cells(grader, "scaled-attention", PROBE_GLOBAL_SIZE[name], f"round67_{name}")
    q7 = [(k, m) for q, _t, k, m in outcome.failed if q == "q7"]
    assert q7 and all(k == "answer_computed_by_code" for k, _m in q7), outcome.explain()
    assert all("which this cell does not set" in m and "from another cell" in m for _k, m in q7), outcome.explain()


@pytest.mark.parametrize("name", sorted(PROBE_RIGHT))
def test_probe_with_its_own_width_keeps_full_marks(grader, name):
    outcome = grade_cells(grader, "scaled-attention", PROBE_RIGHT[name], f"round67_{name}")
    assert outcome.full_marks, outcome.explain()
