"""attention-pipeline, naming round 55 (blind55's kinds).

q04: a causal mask whose blocked entries stop one key short of the end (M[t, t + 1:-1], range(t + 1, T - 1), the
triu mask copied into M[:, :-1]): every key after each query is blocked except the last one, open to every earlier
query. Named mask_last_key_open where the blocked entries are exactly the right ones with the last column cleared
(replayed, entry by entry); the slice to the end keeps full marks, and a mask off by one at its start (t + 2:) stays
causal_includes_next.

q10: the notebook's own function named without being called (`2.0 ** row_entropy_bits`, a local alias of it passed
to torch.exp2, `row_entropy_bits.sum()`): the crash's words say a plain 'function' met an operation that needs a
value, and the line that raised names that def (or a name the function bound to it) with no call: the engine's
callable_not_called (crash_words), with the line quoted. The alias called, `entropy(A)`, keeps full marks.

q11: rank_S_lesson taken as the stable rank ||S||_F^2 / ||S||_2^2 of the lesson's S (1.31), or another ratio of norms
(||S||_F / ||S||_2 = 1.15, ||S||_* / ||S||_2 = 1.56), made whole: named rank_from_stable_rank where the number is
that ratio made whole (replayed) and the cell that assigns it reads the ratio (matrix_norm / linalg.norm orders,
the singular values squared and summed over the largest one, an svd unpacked). A typed 1, or a ratio of one norm to
itself, is not named so; the stable rank computed beside matrix_rank keeps full marks.

q15 (borderline, answer_computed_by_code kept): a letter stripped off a label with lstrip / rstrip of several characters
("Answered: d".lstrip("Answered: ") is ''): where the string and the characters are the notebook's own literals, the
strip is replayed on them, gives the answer, and removing the label itself gives another string, the message says
that the argument is a set of characters, not a prefix, and what .removeprefix gives. removeprefix keeps full marks.
"""
from __future__ import annotations

import pytest

from autograder.grading.grader import Grader
from tests.heldout.harness import assert_full_marks, assert_lost, graded_as


MASK = "causal_additive_mask"
ENT = "row_entropy_bits"     # the q10 cell (also defines effective_tokens)
RANK = "max_rank_S"          # the q11 cell (also sets rank_S_lesson)
CAUSAL_ANS = "ans_cross_causal"
LESSON = ("max_rank_S = 8\n"
          "_K = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]], "
          "dtype=torch.float64)\n"
          "_Q = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]], "
          "dtype=torch.float64)\n")


_graded = graded_as("attention-pipeline", "round55")


# --- q04: the last key left open ------------------------------------------------------------------------------------

SLICE_TO_MINUS_ONE = '''def causal_additive_mask(T, dtype, device=None):
    M = torch.zeros(T, T, dtype=dtype, device=device)
    for t in range(T):
        M[t, t + 1:-1] = torch.finfo(dtype).min
    return M
'''

RANGE_TO_T_MINUS_ONE = '''def causal_additive_mask(T, dtype, device=None):
    M = torch.zeros(T, T, dtype=dtype, device=device)
    low = torch.finfo(dtype).min
    for i in range(T):
        for j in range(i + 1, T - 1):
            M[i, j] = low
    return M
'''

TRIU_COPIED_BUT_LAST = '''def causal_additive_mask(T, dtype, device=None):
    M = torch.zeros(T, T, dtype=dtype, device=device)
    full = torch.full((T, T), torch.finfo(dtype).min, dtype=dtype, device=device).triu(1)
    M[:, :-1] = full[:, :-1]
    return M
'''


@pytest.mark.parametrize("body, fixed", [
    (SLICE_TO_MINUS_ONE, SLICE_TO_MINUS_ONE.replace("t + 1:-1", "t + 1:")),
    (RANGE_TO_T_MINUS_ONE, RANGE_TO_T_MINUS_ONE.replace("range(i + 1, T - 1)", "range(i + 1, T)")),
    (TRIU_COPIED_BUT_LAST, TRIU_COPIED_BUT_LAST.replace("M[:, :-1] = full[:, :-1]", "M[:, :] = full")),
])
def test_last_key_left_open_is_named(grader: Grader, body: str, fixed: str) -> None:
    failed = assert_lost(_graded(grader, {MASK: body}))
    q04 = [(t, k, m) for q, t, k, m in failed if q == "q04"]
    assert q04 and all(k == "mask_last_key_open" for _, k, _ in q04), failed
    assert all("except the last one" in m and "t + 1:" in m for _, _, m in q04), failed
    assert all(k in (None, "mask_last_key_open") for _, _, k, _ in failed), failed
    assert_full_marks(_graded(grader, {MASK: fixed}))      # the same cell to the end: full marks


def test_mask_off_by_one_at_its_start_is_not_told_the_last_key(grader: Grader) -> None:
    failed = assert_lost(_graded(grader, {MASK: SLICE_TO_MINUS_ONE.replace("t + 1:-1", "t + 2:")}))
    assert {k for q, _, k, _ in failed if q == "q04"} == {"causal_includes_next"}, failed
    # one short at both ends (t + 2:-1): neither kind alone, not told the last key
    failed = assert_lost(_graded(grader, {MASK: SLICE_TO_MINUS_ONE.replace("t + 1:-1", "t + 2:-1")}))
    assert all(k != "mask_last_key_open" for _, _, k, _ in failed), failed
    # and the slice to -1 is
    failed = assert_lost(_graded(grader, {MASK: SLICE_TO_MINUS_ONE}))
    assert {k for q, _, k, _ in failed if q == "q04"} == {"mask_last_key_open"}, failed


# --- q10: the notebook's own function named, never called -----------------------------------------------------------

ENTROPY = '''def row_entropy_bits(A):
    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))
    return -(A * logs).sum(dim=-1)


'''


@pytest.mark.parametrize("body, quoted", [
    ("def effective_tokens(A):\n    return 2.0 ** row_entropy_bits\n", "`row_entropy_bits` is your own function"),
    ("def effective_tokens(A):\n    H = row_entropy_bits\n    return torch.exp2(H)\n",
     "`H` is your own function `row_entropy_bits` (`H = row_entropy_bits`, no call)"),
    ("def effective_tokens(A):\n    return torch.exp(row_entropy_bits * math.log(2))\n",
     "`row_entropy_bits` is your own function"),
    ("def effective_tokens(A):\n    if row_entropy_bits.sum() > 0:\n        return 2 ** row_entropy_bits(A)\n",
     "`row_entropy_bits` is your own function"),
])
def test_own_function_not_called_is_named(grader: Grader, body: str, quoted: str) -> None:
    failed = assert_lost(_graded(grader, {ENT: ENTROPY + body}))
    assert [(q, t, k) for q, t, k, _ in failed] == [("q10", "test_effective_tokens", "callable_not_called")], failed
    assert quoted in failed[0][3] and "row_entropy_bits(...)" in failed[0][3], failed
    # the alias called on A: full marks
    assert_full_marks(_graded(grader, {ENT: ENTROPY + "def effective_tokens(A):\n    entropy = row_entropy_bits\n"
                                                      "    return 2 ** entropy(A)\n"}))


# --- q11: the stable rank (a ratio of norms) taken as the rank -------------------------------------------------------

@pytest.mark.parametrize("cell, said", [
    # the singular values squared and summed over the largest one squared: 1.31, rounded
    ("_sv = torch.linalg.svdvals(_Q @ _K.T / 2)\nrank_S_lesson = round(((_sv ** 2).sum() / _sv[0] ** 2).item())\n",
     "the stable rank ||S||_F^2 / ||S||_2^2 of the lesson's S (the sum of the squared singular values over the largest "
     "one squared), 1.31, which rounds to 1"),
    # matrix_norm's Frobenius (its default) over its spectral norm (ord=2), both squared, cut to an int
    ("_S = _Q @ _K.T\nrank_S_lesson = int(torch.linalg.matrix_norm(_S) ** 2 / torch.linalg.matrix_norm(_S, ord=2) ** 2)\n",
     "the stable rank ||S||_F^2 / ||S||_2^2 of the lesson's S (the sum of the squared singular values over the largest "
     "one squared), 1.31, which truncates to 1"),
    # an svd unpacked, pow and max as methods
    ("_U, _s, _Vh = torch.linalg.svd(_K @ _Q.T)\nrank_S_lesson = int(_s.pow(2).sum().item() / _s.max().item() ** 2)\n",
     "the stable rank ||S||_F^2 / ||S||_2^2 of the lesson's S"),
    # the Frobenius over the spectral norm, not squared (1.15), through bound names
    ("_S = _Q @ _K.T\n_fro = torch.linalg.norm(_S, 'fro')\n_spec = torch.linalg.norm(_S, 2)\n"
     "rank_S_lesson = round(float(_fro / _spec))\n",
     "||S||_F / ||S||_2 of the lesson's S (the square root of its stable rank), 1.15, which rounds to 1"),
    # the nuclear over the spectral norm (1.56), cut to an int
    ("_s = torch.linalg.svdvals(_Q @ _K.T)\nrank_S_lesson = int(_s.sum() / _s.max())\n",
     "||S||_* / ||S||_2 of the lesson's S (the singular values summed, over the largest one), 1.56, which truncates to 1"),
])
def test_rank_from_stable_rank_is_named(grader: Grader, cell: str, said: str) -> None:
    failed = assert_lost(_graded(grader, {RANK: LESSON + cell}))
    assert [(q, t, k) for q, t, k, _ in failed] == [("q11", "test_rank_S_lesson", "rank_from_stable_rank")], failed
    assert "rank_S_lesson is 1, not 2" in failed[0][3] and said in failed[0][3], failed
    assert "matrix_rank" in failed[0][3], failed
    # the ratio computed beside the rank counted right: full marks
    assert_full_marks(_graded(grader, {RANK: LESSON + cell.replace("rank_S_lesson =", "_soft =")
                                       + "rank_S_lesson = int(torch.linalg.matrix_rank(_Q @ _K.T))\n"}))


@pytest.mark.parametrize("cell", [
    "rank_S_lesson = 1\n",                                       # typed: no ratio read
    # one norm over itself: 1, no ratio of two norms
    "_S = _Q @ _K.T\nrank_S_lesson = int(torch.linalg.matrix_norm(_S) / torch.linalg.matrix_norm(_S))\n",
])
def test_no_norm_ratio_is_not_told_so(grader: Grader, cell: str) -> None:
    failed = assert_lost(_graded(grader, {RANK: LESSON + cell}))
    assert [(q, t) for q, t, _, _ in failed] == [("q11", "test_rank_S_lesson")], failed
    assert all(k != "rank_from_stable_rank" for _, _, k, _ in failed), failed
    # and the same number from the stable rank is (one cell, the ratio read)
    failed = assert_lost(_graded(grader, {RANK: LESSON + "_s = torch.linalg.svdvals(_Q @ _K.T)\n"
                                          "rank_S_lesson = int((_s ** 2).sum() / _s[0] ** 2)\n"}))
    assert [k for _, _, k, _ in failed] == ["rank_from_stable_rank"], failed


# --- q15: a letter stripped off a label with a set of characters ----------------------------------------------------

@pytest.mark.parametrize("cell, said", [
    ('_note = "Answered: d"\nans_cross_causal = _note.lstrip("Answered: ")\n',
     "`.lstrip('Answered: ')` removes every leading character that is one of 'Answered: ', a set of characters, not a "
     "prefix, so on 'Answered: d' it gives ''; `.removeprefix('Answered: ')` takes the prefix itself off and gives 'd'"),
    ('ans_cross_causal = "Selected: d".lstrip("Selected: ")\n',
     "a set of characters, not a prefix, so on 'Selected: d' it gives ''"),
    ('_raw = "d, answered"\nans_cross_causal = _raw.rstrip(", answered")\n',
     "`.rstrip(', answered')` removes every trailing character that is one of ', answered', a set of characters"),
])
def test_strip_of_a_label_says_the_set_of_characters(grader: Grader, cell: str, said: str) -> None:
    failed = assert_lost(_graded(grader, {CAUSAL_ANS: cell}))
    assert [(q, k) for q, _, k, _ in failed] == [("q15", "answer_computed_by_code")], failed
    assert said in failed[0][3], failed
    # the label removed as a whole: full marks
    assert_full_marks(_graded(grader, {CAUSAL_ANS: cell.replace("lstrip", "removeprefix").replace("rstrip", "removesuffix")}))
