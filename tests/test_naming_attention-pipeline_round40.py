"""attention-pipeline, naming round 40 (blind39's kinds): a softmax over dim -3 (nn.Softmax2d, or dim=-3 written out)
is softmax_over_channel_axis where A is that softmax on 3-D and 4-D S and a 2-D S raises (its value on 3-D and
4-D S is the implicit dim's, which was named: a 2-D call, right under the implicit dim, tells them apart), and a
2-D S's crash in Softmax2d's words names it too; each weight matrix counted with len() / .shape[0] (its rows) is
param_count_len_rows where the count is the rows' sum on the test's sizes and on a second call's (97, 5, 11), in
the same layout; a max_rank_S of 1 measured with matrix_rank on a constant example (torch.ones / full) is
rank_from_one_example. Each kind: two wrong variants of my own, a correct one at full marks, and a near miss that
keeps another name (or none)."""
from __future__ import annotations

from typing import Any

import pytest
import torch

from autograder.errors import StudentCodeError
from autograder.grading.grader import Grader
from tests.heldout.harness import assert_full_marks, assert_named, graded_as
from tests.hidden_modules import load


D = load("attention-pipeline", "_diagnose", "_naming40__diagnose")

WEIGHTS, RANK, PARAMS = "attention_weights", "max_rank_S", "qkv_param_count"
WHERE = {"q05", "q07", "q09", "q10", "q13"}

LESSON = '''K_lesson = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]],
                        dtype=torch.float64)
Q_lesson = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]],
                        dtype=torch.float64)
rank_S_lesson = int(torch.linalg.matrix_rank(Q_lesson @ K_lesson.T))
'''


_graded = graded_as("attention-pipeline", "round40")


# --- the softmax over dim -3 (nn.Softmax2d's channel axis) --------------------------------------------------------

@pytest.mark.parametrize("body", [
    "    Z = S if M is None else S + M\n    return torch.softmax(Z, dim=-3)   # the score matrix's own axes\n",
    "    norm = torch.nn.Softmax2d()\n    if M is not None:\n        return norm(S + M)\n    return norm(S)\n",
    "    Z = S if M is None else torch.add(S, M)\n    return torch.nn.functional.softmax(Z, -3)\n",
])
def test_softmax_over_channel_axis_is_named(grader: Grader, body: str) -> None:
    assert_named(_graded(grader, {WEIGHTS: "def attention_weights(S, M=None):\n" + body}), "softmax_over_channel_axis", WHERE)


def test_softmax_module_over_last_axis_keeps_full_marks(grader: Grader) -> None:
    assert_full_marks(_graded(grader, {WEIGHTS: "def attention_weights(S, M=None):\n    Z = S if M is None else S + M\n"
                                                "    return torch.nn.Softmax(dim=-1)(Z)\n"}))


def test_implicit_dim_keeps_its_own_name(grader: Grader) -> None:
    # F.softmax without dim: dim 0 of 3-D S and dim 1 of 4-D S too, but right on a 2-D S (no crash there)
    outcome = _graded(grader, {WEIGHTS: "def attention_weights(S, M=None):\n    Z = S if M is None else S + M\n"
                                        "    return torch.nn.functional.softmax(Z)\n"})
    keys = {k for *_, k, _ in outcome.failed}
    assert outcome.failed and "softmax_over_channel_axis" not in keys and "softmax_implicit_dim" in keys, outcome.failed


def test_channel_axis_crash_needs_its_words() -> None:
    S = torch.randn(4, 6, dtype=torch.float64)

    def fn(S_: torch.Tensor, M_: Any) -> torch.Tensor:
        return torch.softmax(S_, dim=0)

    other = StudentCodeError("IndexError", "index 5 is out of bounds for dimension 0 with size 4")
    assert D.channel_axis_crash(other, fn, S) is None
    # dim -3 out of range, but a 3-D call is not the softmax across the stack: no evidence, nothing named
    words = StudentCodeError("IndexError", "Dimension out of range (expected to be in range of [-2, 1], but got -3)")
    assert D.channel_axis_crash(words, lambda S_, M_: torch.softmax(S_, dim=-1), S) is None
    named = D.channel_axis_crash(words, fn, S)
    assert named is not None and named.key == "softmax_over_channel_axis"


# --- each weight matrix counted with len() (its rows) -------------------------------------------------------------

@pytest.mark.parametrize("body", [
    "    Ws = [torch.empty(d_model, d_k), torch.empty(d_model, d_k), torch.empty(d_model, d_v)]\n"
    "    if with_output:\n        Ws.append(torch.empty(d_v, d_model))\n"
    "    return sum(W.shape[0] for W in Ws)\n",
    "    proj = {'q': torch.nn.Linear(d_model, d_k), 'k': torch.nn.Linear(d_model, d_k),\n"
    "            'v': torch.nn.Linear(d_model, d_v)}\n"
    "    if with_output:\n        proj['o'] = torch.nn.Linear(d_v, d_model)\n"
    "    total = 0\n    for layer in proj.values():\n        total += layer.weight.size(0)\n    return total\n",
])
def test_len_rows_is_named(grader: Grader, body: str) -> None:
    assert_named(_graded(grader, {PARAMS: "def qkv_param_count(d_model, d_k, d_v, with_output=False):\n" + body}),
                         "param_count_len_rows", {"q12"})


def test_len_of_flattened_weights_keeps_full_marks(grader: Grader) -> None:
    assert_full_marks(_graded(grader, {PARAMS: "def qkv_param_count(d_model, d_k, d_v, with_output=False):\n"
                                               "    Ws = [torch.empty(d_model, d_k), torch.empty(d_model, d_k), torch.empty(d_model,"
                                               " d_v)]\n"
                                               "    if with_output:\n        Ws.append(torch.empty(d_v, d_model))\n"
                                               "    return sum(len(W.flatten()) for W in Ws)\n"}))


def test_widths_added_is_not_len_rows(grader: Grader) -> None:
    # d_model + 2 d_k + d_v whatever with_output says: with W_O the rows count of nn.Linear layers on the test's
    # sizes, but the second call (97, 5, 11) gives 118 for both flags, not 21 and 118
    outcome = _graded(grader, {PARAMS: "def qkv_param_count(d_model, d_k, d_v, with_output=False):\n"
                                       "    return d_model + 2 * d_k + d_v\n"})
    assert outcome.failed and all(k != "param_count_len_rows" for *_, k, _ in outcome.failed), outcome.failed


# --- the largest rank measured on one constant example --------------------------------------------------------------

@pytest.mark.parametrize("tail", [
    "max_rank_S = torch.linalg.matrix_rank(torch.ones(100, 8) @ torch.ones(8, 100)).item()\n",
    "Qc = torch.full((100, 8), 0.3, dtype=torch.float64)\nKr = torch.randn(100, 8, dtype=torch.float64)\n"
    "S_try = Qc @ Kr.T / 8 ** 0.5\nmax_rank_S = int(torch.linalg.matrix_rank(S_try))\n",
])
def test_rank_from_one_example_is_named(grader: Grader, tail: str) -> None:
    assert_named(_graded(grader, {RANK: LESSON + tail}), "rank_from_one_example", {"q11"})


def test_rank_on_random_example_keeps_full_marks(grader: Grader) -> None:
    assert_full_marks(_graded(grader, {RANK: LESSON + "g = torch.Generator().manual_seed(0)\n"
                                                      "Qr, Kr = torch.randn(100, 8, generator=g), torch.randn(100, 8, generator=g)\n"
                                                      "max_rank_S = int(torch.linalg.matrix_rank(Qr @ Kr.T))\n"}))


def test_bare_one_is_not_named(grader: Grader) -> None:
    # the same number with no measurement on a constant example: no evidence of the method, left generic
    outcome = _graded(grader, {RANK: LESSON + "Z = torch.ones(3, 3)\nmax_rank_S = 1\n"})
    assert outcome.failed and all(k != "rank_from_one_example" for *_, k, _ in outcome.failed), outcome.failed


# --- an einsum with no output named (scores_transposed, now with its cause) -----------------------------------------

SCORES = "scaled_scores"


@pytest.mark.parametrize("body", [
    "    return torch.einsum('...tc,...sc', Q, K) / math.sqrt(Q.shape[-1])\n",
    "    d_k = K.size(-1)\n    S = torch.einsum('... x e, ... a e', Q, K)\n    return S * (1.0 / math.sqrt(d_k))\n",
])
def test_einsum_implicit_output_says_its_cause(grader: Grader, body: str) -> None:
    cells = {SCORES: "import math\n\ndef scaled_scores(Q, K):\n" + body}
    assert_named(_graded(grader, cells), "scores_transposed", {"q02", "q05", "q07", "q09", "q10", "q13"})
    outcome = _graded(grader, cells)
    assert all("has no '->'" in m and "->..." in m for *_, m in outcome.failed), outcome.failed


@pytest.mark.parametrize("body", [
    "    return torch.einsum('...td,...sd->...ts', Q, K) / math.sqrt(Q.shape[-1])\n",
    "    return torch.einsum('...ad,...bd', Q, K) / math.sqrt(Q.shape[-1])   # sorted: a (queries), b (keys)\n",
])
def test_einsum_with_queries_first_keeps_full_marks(grader: Grader, body: str) -> None:
    assert_full_marks(_graded(grader, {SCORES: "import math\n\ndef scaled_scores(Q, K):\n" + body}))


def test_keys_times_queries_without_einsum_keeps_plain_text(grader: Grader) -> None:
    outcome = _graded(grader, {SCORES: "import math\n\ndef scaled_scores(Q, K):\n"
                                       "    return K @ Q.transpose(-2, -1) / math.sqrt(Q.shape[-1])\n"})
    assert outcome.failed and all(k == "scores_transposed" and "einsum" not in m
                                  for *_, k, m in outcome.failed), outcome.failed
