"""attention-pipeline, naming round 56 (blind56's kinds).

q02: an einsum written for Q and K with a heads axis (Flax's '...qhd,...khd->...hqk' for (batch, length, heads,
depth), or the same without the ellipsis, 'bqhd,bkhd->bhqk') applied to (..., T, d_k) tensors that have none:
each operand ends with the same two letters, the last summed away and the one before it kept. Named
einsum_heads_layout_on_headless on every test where the equation, replayed on the test's own Q and K, raises the
student's very words (too few axes; the heads letter given T_q and T_k) or, where it runs, gives the student's S (a
second call: the token axis read as the heads, the batch axis as the positions). The layout's own letters
('...qd,...kd->...qk') keep full marks, and the keys-before-queries einsum stays scores_transposed.

q06 (engine, every assignment's answers): R's arrow, `ans_mask <- "c"`, which Python reads as the comparison
ans_mask < -"c": nothing is bound (a NameError, or, where the template's `...` is still there, a TypeError that leaves
it). Named answer_r_arrow_not_assigned from a module-level statement `name <- value` whose `<` and `-` stand side by
side, the line quoted as written; `name = value` keeps full marks.

q09 (engine crash words): an integer tensor (an arange or a tensor of whole numbers without dtype=, int64) raised to
a negative whole power: torch's (and NumPy's) "Integers to negative integer powers are not allowed", with the line
that raised quoted where it shows the power. Named int_tensor_negative_power; a float64 arange (or .double()) keeps
full marks.

q15 (engine crash words): the letter picked as the argmax (or argmin) of a bool tensor, NumPy's idiom for the first
True; torch's "argmax(): does not support bool input" stops the cell, so the answer is undefined. Named
argmax_of_bool; the mask made int first keeps full marks.
"""
from __future__ import annotations

import pytest

from autograder.grading.grader import Grader
from tests.heldout.harness import assert_full_marks, assert_lost, graded_as


SCORES = "scaled_scores"
MASK_ANS = "ans_mask"
AVG = "prefix_average_matrix"
CAUSAL_ANS = "ans_cross_causal"


_graded = graded_as("attention-pipeline", "round56")


# --- q02: an einsum for a heads axis on head-less Q and K -----------------------------------------------------------

FLAX = '''def scaled_scores(Q, K):
    depth = Q.shape[-1]
    Q = Q / math.sqrt(depth)
    return torch.einsum("...qhd,...khd->...hqk", Q, K)
'''

HAIKU_NO_ELLIPSIS = '''def scaled_scores(Q, K):
    logits = torch.einsum("bthd,bThd->bhtT", Q, K)
    return logits * Q.shape[-1] ** -0.5
'''

FLAX_OTHER_LETTERS = '''def scaled_scores(Q, K):
    return torch.einsum('...qhc, ...khc -> ...hqk', Q, K) / math.sqrt(K.size(-1))
'''


@pytest.mark.parametrize("body, fixed", [
    (FLAX, FLAX.replace("...qhd,...khd->...hqk", "...qd,...kd->...qk")),
    (HAIKU_NO_ELLIPSIS, HAIKU_NO_ELLIPSIS.replace("bthd,bThd->bhtT", "...td,...Td->...tT")),
    (FLAX_OTHER_LETTERS, FLAX_OTHER_LETTERS.replace("...qhc, ...khc -> ...hqk", "...qc,...kc->...qk")),
])
def test_heads_layout_einsum_is_named(grader: Grader, body: str, fixed: str) -> None:
    failed = assert_lost(_graded(grader, {SCORES: body}))
    q02 = [(t, k, m) for q, t, k, m in failed if q == "q02"]
    assert {t for t, _, _ in q02} == {"test_scores_float64_rectangular", "test_scores_batched_float32",
                                      "test_scores_noncontiguous", "test_scores_broadcast"}, failed
    assert all(k == "einsum_heads_layout_on_headless" for _, k, _ in q02), failed
    assert all("is written for Q and K with a heads axis" in m and "'...qd,...kd->...qk'" in m for _, _, m in q02), q02
    # the other questions that call scaled_scores are not charged
    assert all(k in (None, "einsum_heads_layout_on_headless") for _, _, k, _ in failed), failed
    assert_full_marks(_graded(grader, {SCORES: fixed}))      # the layout's own letters: full marks


def test_batched_heads_layout_says_the_shape(grader: Grader) -> None:
    failed = assert_lost(_graded(grader, {SCORES: FLAX}))
    batched = [m for q, t, _, m in failed if t == "test_scores_batched_float32"]
    assert batched and "S has shape (6, 2, 2) (expected (2, 6, 6)), exactly that equation's result" in batched[0]


def test_other_einsum_slips_are_not_told_heads(grader: Grader) -> None:
    # keys before queries: still scores_transposed, no heads axis in the letters
    failed = assert_lost(_graded(grader, {SCORES: FLAX.replace("...qhd,...khd->...hqk", "...qd,...kd->...kq")}))
    assert {k for q, _, k, _ in failed if q == "q02"} == {"scores_transposed"}, failed
    # one letter for both token axes (no heads axis before the summed one): the engine's einsum_letter_on_two_axes
    failed = assert_lost(_graded(grader, {SCORES: FLAX.replace("...qhd,...khd->...hqk", "...qd,...qd->...qq")}))
    assert all(k != "einsum_heads_layout_on_headless" for _, _, k, _ in failed), failed
    # and the heads letter kept before the summed one is (Flax's letters, here on 2-D Q and K alone)
    failed = assert_lost(_graded(grader, {SCORES: FLAX.replace("...qhd,...khd->...hqk", "qhd,khd->hqk")}))
    assert {k for q, _, k, _ in failed if q == "q02"} == {"einsum_heads_layout_on_headless"}, failed


# --- q06: R's arrow for an assignment -------------------------------------------------------------------------------

@pytest.mark.parametrize("cell, shown", [
    ('# c) position t would read token t + 1\nans_mask <- "c"\n', '`ans_mask <- "c"`'),
    ("ans_mask<-'c'   # R habit\n", "`ans_mask<-'c'`"),
    # the template's `...` kept above: ... < -'c' raises TypeError and the name stays `...`
    ("ans_mask = ...\nans_mask <- 'c'\n", "`ans_mask <- 'c'`"),
])
def test_r_arrow_is_named(grader: Grader, cell: str, shown: str) -> None:
    failed = assert_lost(_graded(grader, {MASK_ANS: cell}))
    assert [(q, k) for q, _, k, _ in failed] == [("q06", "answer_r_arrow_not_assigned")], failed
    assert f"the notebook has {shown}, which Python reads as the comparison" in failed[0][3], failed
    assert "one = assigns" in failed[0][3], failed
    assert_full_marks(_graded(grader, {MASK_ANS: cell.replace("<-", "=")}))      # one = : full marks


def test_less_than_a_negative_is_not_an_arrow(grader: Grader) -> None:
    # a comparison with the spaces of one (`<` then ` -`): not R's arrow, and == stays answer_compared_not_assigned
    failed = assert_lost(_graded(grader, {MASK_ANS: 'ans_mask < - "c"\n'}))
    assert all(k != "answer_r_arrow_not_assigned" for _, _, k, _ in failed), failed
    failed = assert_lost(_graded(grader, {MASK_ANS: 'ans_mask == "c"\n'}))
    assert [k for _, _, k, _ in failed] == ["answer_compared_not_assigned"], failed
    # and the arrow inside a module-level block is
    failed = assert_lost(_graded(grader, {MASK_ANS: 'if True:\n    ans_mask <- "c"\n'}))
    assert [k for _, _, k, _ in failed] == ["answer_r_arrow_not_assigned"], failed


# --- q09: an int64 tensor to a negative power -----------------------------------------------------------------------

@pytest.mark.parametrize("body, fixed", [
    ('''def prefix_average_matrix(T):
    counts = torch.arange(1, T + 1).unsqueeze(1)
    return torch.tril(torch.ones(T, T, dtype=torch.float64)) * counts ** -1
''', ("torch.arange(1, T + 1)", "torch.arange(1, T + 1, dtype=torch.float64)")),
    ('''def prefix_average_matrix(T):
    n = torch.tensor(list(range(1, T + 1)))
    W = torch.tril(torch.ones(T, T, dtype=torch.float64))
    return W * torch.pow(n, -1)[:, None]
''', ("torch.pow(n, -1)", "torch.pow(n.double(), -1)")),
    ('''def prefix_average_matrix(T):
    rows = torch.arange(T) + 1
    inv = rows ** (-1)
    return torch.tril(torch.ones(T, T, dtype=torch.float64)) * inv.reshape(-1, 1)
''', ("rows ** (-1)", "rows.double() ** (-1)")),
])
def test_int_tensor_to_negative_power_is_named(grader: Grader, body: str, fixed: tuple[str, str]) -> None:
    failed = assert_lost(_graded(grader, {AVG: body}))
    assert [(q, k) for q, _, k, _ in failed] == [("q09", "int_tensor_negative_power")], failed
    assert "Integers to negative integer powers are not allowed" in failed[0][3], failed
    assert "torch.arange and torch.tensor of whole numbers without dtype= make int64" in failed[0][3], failed
    assert_full_marks(_graded(grader, {AVG: body.replace(*fixed)}))      # a floating tensor, or 1.0 / counts: full marks


# --- q15: argmax of a bool tensor -----------------------------------------------------------------------------------

@pytest.mark.parametrize("cell, fixed", [
    ('_holds = torch.tensor([False, False, False, True])      # which option holds\n'
     'ans_cross_causal = "abcd"[_holds.argmax()]\n', ("_holds.argmax()", "_holds.int().argmax()")),
    ('_ok = torch.tensor([0, 0, 0, 1]) > 0\nans_cross_causal = ["a", "b", "c", "d"][int(torch.argmax(_ok))]\n',
     ("torch.argmax(_ok)", "torch.argmax(_ok.int())")),
    ('_fails = torch.tensor([True, True, True, False])\nans_cross_causal = "abcd"[_fails.argmin().item()]\n',
     ("_fails.argmin()", "_fails.long().argmin()")),
])
def test_argmax_of_bool_is_named(grader: Grader, cell: str, fixed: tuple[str, str]) -> None:
    failed = assert_lost(_graded(grader, {CAUSAL_ANS: cell}))
    assert [(q, k) for q, _, k, _ in failed] == [("q15", "argmax_of_bool")], failed
    assert "does not support bool input" in failed[0][3] and "mask.int().argmax()" in failed[0][3], failed
    assert_full_marks(_graded(grader, {CAUSAL_ANS: cell.replace(*fixed)}))
