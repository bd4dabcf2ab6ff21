"""Naming scaled-attention's mistakes, round 39 (blind38's kinds), through the grader on notebooks built from
full_marks with one cell replaced: a wrong multiple-choice letter that the answer cell's CODE computed (max over a
dict's keys, a test whose fallback letter is kept, a bool used as an index the wrong way round) is said as the
code's pick (answer_computed_wrong_choice), not as that letter's belief; a number read from a notebook variable by
an unquoted formula (`q5_answer = 1 * d_k`) is a value, not an option's number (answer_value_not_letter); one
buffer written by every head and appended each time, so every head is the last one (mha_heads_share_one_buffer:
the output shows it, the source shows the buffer); and the scores' mean where their std is asked
(table_std_holds_mean). My own variants, not blind38's cells; each kind has a right variant of a similar shape
that keeps full marks."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from tests.heldout.harness import grade_cells
from tests.hidden_modules import load

D = load("scaled-attention", "_diagnose", "_test_scaled_r39__diagnose")

_MHA_HEAD = '''def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
'''

_ENTROPY = '''def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = torch.softmax(logits, dim=-1)
    return -(p * torch.log(p.clamp_min(1e-30))).sum(dim=-1)

'''


def _table(stats: str) -> str:
    return _ENTROPY + '''
def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    rows = []
    for d in dims:
        g = torch.Generator().manual_seed(seed)
        q, k = torch.randn(1, d, generator=g), torch.randn(5, d, generator=g)
        raw = (q @ k.T)[0]
        scaled = raw / math.sqrt(d)
''' + stats + '''        rows.append(dict(d=d, raw_std=float(raw_std), scaled_std=float(scaled_std),
                         H_raw=float(softmax_entropy(raw)), H_scaled=float(softmax_entropy(scaled))))
    return rows
'''


WRONG = {
    # --- answer_computed_wrong_choice: the letter is what the code picked -----------------------------------
    "q5_sorted_votes_last_key": ({"q5_answer": '''
votes = {"A": 1, "B": 2, "C": 9, "D": 0}    # C has most of my votes
q5_answer = sorted(votes)[-1]
'''}, "answer_computed_wrong_choice"),
    "q7_tuple_indexed_by_negated_flag": ({"q7_answer": '''
_hard = False                               # attention is not a hard lookup
q7_answer = ("D", "C")[not _hard]
'''}, "answer_computed_wrong_choice"),
    "q6_placeholder_kept_by_float_equality": ({"q6_answer": '''
_m = torch.tensor([0.1, 0.2]).sum().item()   # the weights of a toy row: they should add up to 0.3
q6_answer = "B"                               # until the check below confirms the weighted average
if _m == 0.3:
    q6_answer = "A"
'''}, "answer_computed_wrong_choice"),
    # --- answer_value_not_letter: a formula reading the notebook's d_k --------------------------------------
    "q5_formula_times_one": ({"q5_answer": '''
q5_answer = 1 * d_k          # Var(q.k) grows linearly in d_k
'''}, "answer_value_not_letter"),
    "q5_formula_power_one": ({"q5_answer": '''
q5_answer = d_k ** 1         # Var = d_k^1
'''}, "answer_value_not_letter"),
    # --- mha_heads_share_one_buffer: every head is the last one ----------------------------------------------
    "mha_buffer_copied_into": ({"multi_head_attention": _MHA_HEAD + '''
    buf = torch.zeros(T, d_k, dtype=X.dtype)
    heads = []
    for h in range(n_heads):
        s = slice(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(Q[:, s], K[:, s], V[:, s], d_k)
        buf.copy_(out_h)
        heads.append(buf)
    return torch.cat(heads, dim=-1) @ W_O
'''}, "mha_heads_share_one_buffer"),
    "mha_buffer_slice_assigned_list_slots": ({"multi_head_attention": _MHA_HEAD + '''
    tmp = X.new_empty(T, d_k)
    heads = [None] * n_heads
    h = 0
    while h < n_heads:
        lo, hi = h * d_k, (h + 1) * d_k
        tmp[:] = attention(Q[:, lo:hi], K[:, lo:hi], V[:, lo:hi], d_k)[0]
        heads[h] = tmp
        h += 1
    return torch.cat(heads, dim=1) @ W_O
'''}, "mha_heads_share_one_buffer"),
    # the last head's slice written for every head, no buffer: still the fixed slice, as before
    "mha_last_slice_fixed": ({"multi_head_attention": _MHA_HEAD + '''
    heads = []
    for h in range(n_heads):
        out_h, _ = attention(Q[:, -d_k:], K[:, -d_k:], V[:, -d_k:], d_k)
        heads.append(out_h)
    return torch.cat(heads, dim=-1) @ W_O
'''}, "mha_head_slice_fixed"),
    # --- table_std_holds_mean ---------------------------------------------------------------------------------
    "table_std_mean_indexed_wrong": ({"softmax_entropy": _table('''        raw_stats = torch.std_mean(raw)
        scaled_stats = torch.std_mean(scaled)
        raw_std, scaled_std = raw_stats[1], scaled_stats[1]
''')}, "table_std_holds_mean"),
    "table_raw_mean_for_std": ({"softmax_entropy": _table('''        raw_std = raw.mean()
        scaled_std = scaled.std()
''')}, "table_std_holds_mean"),
}

CORRECT = {
    "q5_max_with_key": {"q5_answer": '''
confidence = {"A": 0.05, "B": 0.1, "C": 0.8, "D": 0.05}
q5_answer = max(confidence, key=confidence.get)
'''},
    "q7_flag_index_right_way_round": {"q7_answer": '''
_soft = True
q7_answer = "CD"[_soft]
'''},
    "mha_buffer_cloned_each_head": {"multi_head_attention": _MHA_HEAD + '''
    buf = torch.empty(T, d_k, dtype=X.dtype)
    heads = []
    for h in range(n_heads):
        s = slice(h * d_k, (h + 1) * d_k)
        _, w = attention(Q[:, s], K[:, s], V[:, s], d_k)
        torch.matmul(w, V[:, s], out=buf)
        heads.append(buf.clone())
    return torch.cat(heads, dim=-1) @ W_O
'''},
    "table_std_mean_unpacked_right": {"softmax_entropy": _table('''        raw_std, _ = torch.std_mean(raw)
        scaled_std, _ = torch.std_mean(scaled)
''')},
}


def _graded(grader, name: str, cells: dict[str, str]):
    return grade_cells(grader, "scaled-attention", cells, f"round39_{name}")


@pytest.mark.parametrize("name", sorted(WRONG))
def test_own_wrong_variants_are_named(grader, name):
    cells, key = WRONG[name]
    outcome = _graded(grader, name, cells)
    assert outcome.score < outcome.max_score, outcome.explain()
    keys = [k for _q, _t, k, _m in outcome.failed]
    assert keys and all(k == key for k in keys), outcome.explain()


@pytest.mark.parametrize("name", sorted(CORRECT))
def test_own_right_variants_keep_full_marks(grader, name):
    outcome = _graded(grader, name, CORRECT[name])
    assert outcome.full_marks, outcome.explain()


# --- in process: what each check leaves alone ----------------------------------------------------------------

def _sub(*cells: str):
    return SimpleNamespace(cells=list(cells), source="\n".join(cells))


def test_computed_choice_only_for_a_computed_wrong_letter():
    from autograder.grading.checks import Misconception
    with pytest.raises(Misconception) as e:
        D.raise_if_computed_choice("q5_answer", "D", "C", _sub('c = {"C": 2, "D": 1}\nq5_answer = max(c)\n'))
    assert e.value.key == "answer_computed_wrong_choice" and "max(c)" in str(e.value)
    # a letter written out (directly, folded, or through a name bound once to it): the letter's belief applies
    for src in ('q5_answer = "D"\n', 'q5_answer = "d".upper()\n', 'mine = "D"\nq5_answer = mine\n'):
        D.raise_if_computed_choice("q5_answer", "D", "C", _sub(src))
    # right, or not a letter at all: nothing here
    D.raise_if_computed_choice("q5_answer", "C", "C", _sub('c = {"C": 2}\nq5_answer = max(c)\n'))
    D.raise_if_computed_choice("q7_answer", "['D']", "D", _sub('q7_answer = str(["D"])\n'))
    # the last cell that binds it decides: an earlier computed one, then a literal, is a literal
    D.raise_if_computed_choice("q5_answer", "D", "C", _sub('q5_answer = max("CD")\n', 'q5_answer = "D"\n'))
    # the lesson's letter from a cell that cites the lesson is left to raise_if_lesson_letter
    D.raise_if_computed_choice("q5_answer", "A", "C", _sub('quiz = {"q5": "A"}   # lesson quiz\nq5_answer = quiz["q5"]\n'))
    # the option closest to a measurement by the student's own key= (blind36): that letter's belief applies
    closest = 'o = {"A": 1, "B": 4, "C": 16}\nq5_answer = min(o, key=lambda k: abs(o[k] - 4.1))\n'
    D.raise_if_computed_choice("q5_answer", "B", "C", _sub(closest))
    # a placeholder never replaced: said, and the float == hint only where the cell compares with ==
    kept = 'q5_answer = "B"\nfor x in [1.0, 2.0]:\n    if x > 3:\n        q5_answer = "C"\n'
    with pytest.raises(Misconception) as e:
        D.raise_if_computed_choice("q5_answer", "B", "C", _sub(kept))
    assert e.value.key == "answer_computed_wrong_choice" and "placeholder 'B'" in str(e.value)
    assert "compared with ==" not in str(e.value)
    D.raise_if_computed_choice("q5_answer", "C", "C", _sub(kept.replace('"B"', '"C"', 1)))   # right: nothing
    # a test's own branch, fallback included, is what the student's check concluded (blind34/35 probes): not here
    D.raise_if_computed_choice("q6_answer", "D", "A", _sub('q6_answer = "A" if torch.allclose(a, b) else "D"\n'))
    D.raise_if_computed_choice("q6_answer", "B", "A", _sub('q6_answer = "B" if torch.allclose(a, b) else "A"\n'))
    # a letters string indexed by a number worked out (not a truth value): not this key
    D.raise_if_computed_choice("q5_answer", "D", "C", _sub('i = 3\nq5_answer = "ABCD"[i]\n'))


def test_a_number_is_a_value_only_when_read_from_elsewhere():
    from autograder.grading.checks import Misconception
    with pytest.raises(Misconception) as e:
        D.raise_if_computed_choice("q5_answer", 4, "C", _sub("d_k = 4\n", "q5_answer = d_k\n"))
    assert e.value.key == "answer_value_not_letter" and "`d_k`" in str(e.value)
    # a literal number, or a number worked out in the cell itself (an index + 1): an option's number, not here
    D.raise_if_computed_choice("q5_answer", 3, "C", _sub("q5_answer = 3\n"))
    D.raise_if_computed_choice("q5_answer", 3, "C", _sub('i = "ABCD".index("C")\nq5_answer = i + 1\n'))
    D.raise_if_computed_choice("q5_answer", True, "C", _sub("d_k = 4\n", "q5_answer = d_k > 1\n"))


def test_shared_buffer_needs_the_last_head_everywhere_and_the_buffer_in_source():
    import torch
    from autograder.grading.checks import Misconception
    g = torch.Generator().manual_seed(3)
    X = torch.randn(5, 12, generator=g, dtype=torch.float64)
    Ws = [torch.randn(12, 12, generator=g, dtype=torch.float64) / 12 ** 0.5 for _ in range(4)]
    heads = D._mha_heads(X, *Ws[:3], 3)
    last = torch.cat([heads[-1]] * 3, dim=-1) @ Ws[3]
    first = torch.cat([heads[0]] * 3, dim=-1) @ Ws[3]
    buffered = _sub(WRONG["mha_buffer_copied_into"][0]["multi_head_attention"])
    fixed = _sub(WRONG["mha_last_slice_fixed"][0]["multi_head_attention"])
    m = Misconception("mha_head_slice_fixed", "slice")
    assert D.raise_if_shared_head_buffer(buffered, m, last, X, Ws, 3, "mha").key == "mha_heads_share_one_buffer"
    assert D.raise_if_shared_head_buffer(fixed, m, last, X, Ws, 3, "mha") is m          # no buffer in the source
    assert D.raise_if_shared_head_buffer(buffered, m, first, X, Ws, 3, "mha") is m      # head 0 everywhere: a slice
    other = Misconception("qk_swapped", "swapped")
    assert D.raise_if_shared_head_buffer(buffered, other, last, X, Ws, 3, "mha") is other
