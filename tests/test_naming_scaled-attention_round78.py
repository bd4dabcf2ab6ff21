"""Naming scaled-attention's mistakes, round 78 (blind78's device-, dtype- and global-state-aware code, blind79's
terse one-liners: their mis-named, generic and raw variants, said with their cause by kind).

entropy_sum_outside_product (q4): -p * log(p).sum(-1), the parentheses closed before the sum. On square logits the
result has the logits' shape and equals that replay entry by entry; on non-square logits the size-mismatch crash
(a = the last axis, b = the rows) is named by a second call on square (6, 6) logits. -p * log(p) with no sum at all
(the logits' shape too) is not called this.

mha_head_slice_end_one_back (q8): each head sliced h * d_k : (h - 1) * d_k (~-h * d_k): torch's
(T x (d_model - d_k)) @ W_O crash, and a second call with a W_O of d_model - d_k rows equals one head on the first
d_model - d_k columns. A slice one column short keeps mha_head_slice_short.

mha_heads_low_precision (q8): the student's own attention run on float16 / bfloat16 copies of each head's slices and
cast back: a replay on the same input, or, after a crash (attention's own row-sum assert on float16 weights), a
second call on a new 4-token input. Projections in float16 keep mha_projections_low_precision; heads cast to Q's own
dtype keep full marks.

table_low_precision (q4): q and k cast to float16 / bfloat16 for the matmul only, the scores cast back to float32.

answer_computed_wrong_choice (q6) no longer says the (if_false, if_true)[flag] order is wrong where the flag probes
the notebook's own attention: the letter is the probe's (answer_computed_by_code). A flag that probes nothing keeps
answer_computed_wrong_choice.

My own variants, not the blind sets' cells; right neighbours keep full marks."""
from __future__ import annotations

import pytest

from tests.heldout.harness import assert_full_marks, assert_named, failed_keys, graded_as

_graded = graded_as("scaled-attention", "round78")


_TABLE_RIGHT = '''

def entropy_table(dims=(4, 16, 64, 256), seed=0):
    rows = []
    for d in dims:
        torch.manual_seed(seed)
        q, k = torch.randn(1, d), torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d ** 0.5
        rows.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                     "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return rows
'''


def _entropy(body: str) -> dict[str, str]:   # softmax_entropy and entropy_table share one cell
    return {"softmax_entropy": f'''
def softmax_entropy(logits):
{body}
''' + _TABLE_RIGHT}


SUM_OUTSIDE = {
    "log_softmax_summed_then_times_p": _entropy('''    p = torch.softmax(logits, dim=-1)
    return -p * F.log_softmax(logits, dim=-1).sum(dim=-1)'''),
    "eps_log_method_chain": _entropy('''    probs = logits.softmax(-1)
    return -(probs) * (probs + 1e-10).log().sum(-1)'''),
}
SUM_OUTSIDE_NOT = {   # no sum at all: the logits' shape too, but not this replay
    "no_row_sum": _entropy('''    p = torch.softmax(logits, dim=-1)
    return -p * torch.log(p + 1e-9)'''),
}
ENTROPY_RIGHT = {
    "product_summed": _entropy('''    p = torch.softmax(logits, dim=-1)
    return -(p * F.log_softmax(logits, dim=-1)).sum(dim=-1)'''),
}

_ATTENTION = '''
def attention(Q, K, V, d_k):
    w = torch.softmax(Q @ K.T / math.sqrt(d_k), dim=-1)
    return w @ V, w
'''
_ATTENTION_ASSERTS = '''
def attention(Q, K, V, d_k):
    w = torch.softmax(Q @ K.T / math.sqrt(d_k), dim=-1)
    assert torch.allclose(w.sum(-1), torch.ones_like(w.sum(-1)), atol=1e-5)
    return w @ V, w
'''


def _mha(body: str, attention: str = _ATTENTION) -> dict[str, str]:
    return {"attention": attention, "multi_head_attention": f'''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    T, d_model = X.shape
    d_h = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
{body}
'''}


SLICE_ONE_BACK = {
    "end_h_minus_one": _mha('''    heads = [attention(Q[:, h * d_h:(h - 1) * d_h], K[:, h * d_h:(h - 1) * d_h], V[:, h * d_h:(h - 1) * d_h],
                       d_h)[0] for h in range(n_heads)]
    return torch.cat(heads, dim=1) @ W_O'''),
    "bitwise_end_in_loop": _mha('''    outs = []
    for h in range(n_heads):
        lo, hi = h * d_h, ~-h * d_h
        outs.append(attention(Q[:, lo:hi], K[:, lo:hi], V[:, lo:hi], d_h)[0])
    return torch.cat(outs, -1) @ W_O'''),
}
SLICE_SHORT = {   # one column short: another slip, its own key
    "end_one_column_short": _mha('''    heads = [attention(Q[:, h * d_h:(h + 1) * d_h - 1], K[:, h * d_h:(h + 1) * d_h - 1],
                       V[:, h * d_h:(h + 1) * d_h - 1], d_h)[0] for h in range(n_heads)]
    return torch.cat(heads, dim=1) @ W_O'''),
}
HEADS_LOW = {
    "half_slices_cast_back": _mha('''    heads = []
    for h in range(n_heads):
        c = slice(h * d_h, (h + 1) * d_h)
        heads.append(attention(Q[:, c].half(), K[:, c].half(), V[:, c].half(), d_h)[0].to(X.dtype))
    return torch.cat(heads, dim=1) @ W_O'''),
    "bfloat16_heads_type_as": _mha('''    heads = [attention(*(M[:, h * d_h:(h + 1) * d_h].to(torch.bfloat16) for M in (Q, K, V)),
                       d_h)[0].type_as(X) for h in range(n_heads)]
    return torch.cat(heads, -1) @ W_O'''),
    "half_heads_tripping_row_sum_assert": _mha('''    heads = []
    for h in range(n_heads):
        c = slice(h * d_h, (h + 1) * d_h)
        heads.append(attention(Q[:, c].half(), K[:, c].half(), V[:, c].half(), d_h)[0].to(X.dtype))
    return torch.cat(heads, dim=1) @ W_O''', _ATTENTION_ASSERTS),
}
HEADS_RIGHT = {
    "heads_cast_to_q_dtype": _mha('''    heads = []
    for h in range(n_heads):
        c = slice(h * d_h, (h + 1) * d_h)
        heads.append(attention(Q[:, c].to(Q.dtype), K[:, c].to(Q.dtype), V[:, c].to(Q.dtype), d_h)[0])
    return torch.cat(heads, dim=1) @ W_O''', _ATTENTION_ASSERTS),
}


def _table(raw_line: str) -> dict[str, str]:
    return {"softmax_entropy": f'''
def softmax_entropy(logits):
    return -(F.softmax(logits, dim=-1) * F.log_softmax(logits, dim=-1)).sum(-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    rows = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        {raw_line}
        scaled = raw / d ** 0.5
        rows.append({{"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                     "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()}})
    return rows
'''}


TABLE_LOW = {
    "half_matmul_then_float": _table("raw = (q.half() @ k.half().T)[0].float()"),
    "bfloat16_matmul_then_to_float32": _table("raw = torch.matmul(q.to(torch.bfloat16), k.to(torch.bfloat16).T).to(torch.float32)[0]"),
}
TABLE_RIGHT = {
    "float32_matmul": _table("raw = (q @ k.T)[0].float()"),
}

PROBE_PICKS = {
    "inline_probe_truth_index": {"q6_answer": '''
_Y = 30 * torch.randn(5, 32)
q6_answer = "AB"[bool(torch.allclose(attention(_Y, _Y, _Y, 32)[0], _Y, atol=1e-4))]
'''},
    "bound_probe_tuple_index": {"q6_answer": '''
_Z = torch.randn(6, 16) * 25
_only_self = torch.allclose(attention(_Z, _Z, _Z, 16)[0], _Z, atol=1e-3)
q6_answer = ("A", "B")[_only_self]
'''},
}
FLAG_PICKS = {   # a flag that probes nothing: the order of (if_false, if_true) is still what is said
    "constant_flag_negated": {"q6_answer": '''
_mixes_all = False                           # self-attention mixes every token
q6_answer = ("A", "B")[not _mixes_all]
'''},
}


@pytest.mark.parametrize("name", sorted(SUM_OUTSIDE))
def test_entropy_sum_outside_product_is_named(grader, name):
    failed = assert_named(_graded(grader, SUM_OUTSIDE[name]), "entropy_sum_outside_product", "q4")
    assert any("on square (6, 6) logits" in msg for *_, msg in failed)   # the crash, named by a second call


@pytest.mark.parametrize("name", sorted(SUM_OUTSIDE_NOT))
def test_no_row_sum_is_not_sum_outside_product(grader, name):
    assert "entropy_sum_outside_product" not in failed_keys(_graded(grader, SUM_OUTSIDE_NOT[name]))


@pytest.mark.parametrize("name", sorted(SLICE_ONE_BACK))
def test_head_slice_end_one_back_is_named(grader, name):
    assert_named(_graded(grader, SLICE_ONE_BACK[name]), "mha_head_slice_end_one_back", "q8")


@pytest.mark.parametrize("name", sorted(SLICE_SHORT))
def test_short_slice_is_not_one_back(grader, name):
    assert "mha_head_slice_end_one_back" not in failed_keys(_graded(grader, SLICE_SHORT[name]))


@pytest.mark.parametrize("name", sorted(HEADS_LOW))
def test_heads_low_precision_is_named(grader, name):
    assert_named(_graded(grader, HEADS_LOW[name]), "mha_heads_low_precision", "q8")


@pytest.mark.parametrize("name", sorted(TABLE_LOW))
def test_table_scores_cast_back_is_low_precision(grader, name):
    assert_named(_graded(grader, TABLE_LOW[name]), "table_low_precision", "q4")


@pytest.mark.parametrize("name", sorted(PROBE_PICKS))
def test_probe_flag_index_is_computed_by_code(grader, name):
    assert_named(_graded(grader, PROBE_PICKS[name]), "answer_computed_by_code", "q6")


@pytest.mark.parametrize("name", sorted(FLAG_PICKS))
def test_constant_flag_index_keeps_wrong_choice(grader, name):
    assert_named(_graded(grader, FLAG_PICKS[name]), "answer_computed_wrong_choice", "q6")


@pytest.mark.parametrize("cells", [ENTROPY_RIGHT["product_summed"], HEADS_RIGHT["heads_cast_to_q_dtype"],
                                   TABLE_RIGHT["float32_matmul"]], ids=["entropy", "mha_heads", "table"])
def test_right_neighbours_keep_full_marks(grader, cells):
    assert_full_marks(_graded(grader, cells))
