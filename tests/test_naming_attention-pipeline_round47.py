"""attention-pipeline, naming round 47 (blind47's kinds).

q09: a prefix-average matrix divided after its upper triangle was zeroed (1 / counts.tril(), torch.reciprocal of a
masked count matrix, the 0/1 triangle divided by counts * triangle) is right on and below the diagonal and holds
1/0 = inf (or 0/0 = NaN) in every entry above it: prefix_average_divided_after_mask, read off the returned matrix.
A division whose infinities are thrown away after (torch.where, masked_fill, the reciprocal taken before tril)
keeps full marks; a matrix with NaN or inf above the diagonal whose lower triangle is wrong too (the count taken down
the columns, the zero-based count) keeps its own name or none.

q16: 'a' (linear) worked out by a probe that counts the scores with len() (of scaled_scores(...), of Q @ K.T, or of a
name bound to one) is cost_counted_with_len: len() of the T x T matrix is T, so the count doubles with T. Not where
the cell also multiplies or raises to a power (len(S) * d_k, len(S) ** 2) or reads a size another way (.numel(),
.shape): the count may then be meant, and the letter wrong for another reason (answer_computed_by_code stays).

q03: 'c' (nothing changes) worked out by comparing two values bound to the very same expression (a copied line not
edited) is probe_compares_same_expression. Not where the expression draws random numbers (or calls a function of the
notebook that does), nor where a line between the two rebinds what it reads (a reused name): two such values can
differ."""
from __future__ import annotations

import pytest
import torch

from autograder.grading.grader import Grader
from tests.heldout.harness import assert_full_marks, assert_named, failed_keys, graded_as
from tests.hidden_modules import load


D = load("attention-pipeline", "_diagnose", "_naming47__diagnose")

AVG = "prefix_average_matrix"
KEY = "prefix_average_divided_after_mask"
SCALE_ANS = "ans_scale"
COST_ANS = "ans_complexity"


_graded = graded_as("attention-pipeline", "round47")


# --- q09: divided after the triangle was cut -------------------------------------------------------------------------

@pytest.mark.parametrize("body", [
    # torch.reciprocal of the row counts, repeated across the columns and cut to the lower triangle: inf above
    "    t = torch.arange(1, T + 1, dtype=torch.float64)\n"
    "    return torch.reciprocal(torch.tril(t[:, None].repeat(1, T)))\n",
    # the 0/1 triangle divided by the counts times the triangle: 0/0 = NaN above
    "    W = torch.ones(T, T, dtype=torch.float64).tril()\n"
    "    return W / (W * torch.arange(1, T + 1, dtype=torch.float64)[:, None])\n",
    # each row's own sum, masked again before dividing: NaN above
    "    L = torch.tril(torch.ones(T, T, dtype=torch.float64))\n"
    "    return L / (L.sum(dim=-1, keepdim=True) * L)\n",
    # integer counts (float32 comes back), reciprocal after tril: inf above, named, float32 said beside it
    "    return 1 / torch.arange(1, T + 1)[:, None].expand(T, T).tril()\n",
    # a ones matrix over the masked counts, built in a loop: inf above
    "    counts = torch.zeros(T, T, dtype=torch.float64)\n"
    "    for i in range(T):\n"
    "        counts[i, :i + 1] = i + 1\n"
    "    return torch.ones(T, T, dtype=torch.float64) / counts\n",
])
def test_divided_after_mask_is_named(grader: Grader, body: str) -> None:
    assert_named(_graded(grader, {AVG: "def prefix_average_matrix(T):\n" + body}), KEY, {"q09", "q10"})


@pytest.mark.parametrize("body", [
    # the reciprocal taken first, the triangle cut after
    "    counts = torch.arange(1, T + 1, dtype=torch.float64).unsqueeze(1).expand(T, T)\n"
    "    return (1 / counts).tril()\n",
    # the infinities of 1 / counts.tril() computed, then thrown away by torch.where
    "    counts = torch.arange(1, T + 1, dtype=torch.float64).unsqueeze(1).expand(T, T)\n"
    "    keep = torch.ones(T, T, dtype=torch.bool).tril()\n"
    "    return torch.where(keep, 1 / counts.tril(), torch.zeros((), dtype=torch.float64))\n",
    # ... or by masked_fill
    "    counts = torch.arange(1, T + 1, dtype=torch.float64)[:, None].expand(T, T).tril()\n"
    "    return (1 / counts).masked_fill(counts == 0, 0.0)\n",
])
def test_division_kept_finite_keeps_full_marks(grader: Grader, body: str) -> None:
    assert_full_marks(_graded(grader, {AVG: "def prefix_average_matrix(T):\n" + body}))


def test_count_down_the_columns_keeps_its_name(grader: Grader) -> None:
    # NaN above the diagonal too, but row t divided by row - column + 1 below it: not the masked division
    keys = failed_keys(_graded(grader, {AVG: "def prefix_average_matrix(T):\n"
                                             "    W = torch.ones(T, T, dtype=torch.float64).tril()\n"
                                             "    return W / W.cumsum(dim=0)\n"}))
    assert keys == {"prefix_average_count_wrong_axis"}, keys


def _masked(T: int, above: float) -> torch.Tensor:
    W = torch.ones(T, T, dtype=torch.float64).tril() / torch.arange(1, T + 1, dtype=torch.float64)[:, None]
    return W.masked_fill(torch.ones(T, T, dtype=torch.bool).triu(1), above)


def test_masked_division_reads_the_matrix() -> None:
    T = 6
    assert D.prefix_average_masked_division(_masked(T, float("inf")), T).key == KEY
    assert D.prefix_average_masked_division(_masked(T, float("nan")), T).key == KEY
    assert D.prefix_average_masked_division(_masked(T, float("inf")).float(), T).key == KEY
    # -inf above, a mix of inf and NaN, one finite entry left above: no one division gives these
    assert D.prefix_average_masked_division(_masked(T, -float("inf")), T) is None
    mixed = _masked(T, float("inf"))
    mixed[0, 1] = float("nan")
    assert D.prefix_average_masked_division(mixed, T) is None
    partly = _masked(T, float("inf"))
    partly[0, T - 1] = 0.0
    assert D.prefix_average_masked_division(partly, T) is None
    # the lower triangle wrong (divided by t + 1, by the 0-based index): not this mistake
    W = torch.ones(T, T, dtype=torch.float64).tril()
    off = W / (W * torch.arange(2, T + 2, dtype=torch.float64)[:, None])
    assert D.prefix_average_masked_division(off, T) is None
    assert D.prefix_average_masked_division(W / torch.arange(T, dtype=torch.float64)[:, None], T) is None
    # the right matrix, another shape, another dtype
    assert D.prefix_average_masked_division(_masked(T, 0.0), T) is None
    assert D.prefix_average_masked_division(_masked(T, float("inf")), T + 1) is None
    assert D.prefix_average_masked_division(_masked(T, float("inf")).half(), T) is None


# --- q16: the cost counted with len() -----------------------------------------------------------------------------

@pytest.mark.parametrize("cell", [
    # a helper that returns len() of the score matrix, the ratio rounded and branched on
    "_g = torch.Generator().manual_seed(2)\n\n\n"
    "def _n_scores(T):\n"
    "    S = scaled_scores(torch.randn(T, 32, generator=_g), torch.randn(T, 32, generator=_g))\n"
    "    return len(S)\n\n\n"
    "_r = _n_scores(200) / _n_scores(100)\n"
    "ans_complexity = 'a' if round(_r) == 2 else 'c' if round(_r) == 4 else 'b'\n",
    # a loop that stores len() of Q @ Q.T per size, the growth looked up in a table
    "_g = torch.Generator().manual_seed(4)\n"
    "_sizes = {}\n"
    "for _T in (64, 128):\n"
    "    _Q = torch.randn(_T, 16, generator=_g)\n"
    "    _sizes[_T] = len(_Q @ _Q.T)\n"
    "_growth = _sizes[128] / _sizes[64]\n"
    "ans_complexity = {1.0: 'b', 2.0: 'a', 4.0: 'c', 8.0: 'd'}[_growth]\n",
])
def test_cost_counted_with_len_is_named(grader: Grader, cell: str) -> None:
    assert_named(_graded(grader, {COST_ANS: cell}), "cost_counted_with_len", {"q16"})


def test_cost_counted_with_numel_keeps_full_marks(grader: Grader) -> None:
    assert_full_marks(_graded(grader, {COST_ANS: "_g = torch.Generator().manual_seed(2)\n\n\n"
                                                 "def _n_scores(T):\n"
                                                 "    S = scaled_scores(torch.randn(T, 32, generator=_g), torch.randn(T, 32,"
                                                 " generator=_g))\n"
                                                 "    return S.numel()\n\n\n"
                                                 "_r = _n_scores(200) / _n_scores(100)\n"
                                                 "ans_complexity = 'a' if round(_r) == 2 else 'c' if round(_r) == 4 else 'b'\n"}))


def test_len_times_width_is_not_len_count(grader: Grader) -> None:
    # len(S) * d_k: the rows are meant as T, the cost formula leaves out the second T; not told as len's
    keys = failed_keys(_graded(grader, {COST_ANS: "_g = torch.Generator().manual_seed(2)\n\n\n"
                                                  "def _cost(T):\n"
                                                  "    S = scaled_scores(torch.randn(T, 32, generator=_g), torch.randn(T, 32,"
                                                  " generator=_g))\n"
                                                  "    return len(S) * 32\n\n\n"
                                                  "ans_complexity = 'a' if round(_cost(200) / _cost(100)) == 2 else 'c'\n"}))
    assert keys == {"answer_computed_by_code"}, keys


# --- q03: two compared values from one expression -------------------------------------------------------------------

_ENTROPY = ("import math\n\n"
            "_g = torch.Generator().manual_seed(3)\n"
            "_Q = torch.randn(6, 512, dtype=torch.float64, generator=_g)\n"
            "_K = torch.randn(6, 512, dtype=torch.float64, generator=_g)\n\n\n"
            "def _entropy(S):\n"
            "    P = torch.softmax(S, dim=-1)\n"
            "    return float(-(P * torch.log2(P.clamp_min(1e-300))).sum(-1).mean())\n\n\n")
_DECIDE = ("if math.isclose(_with_scale, _without_scale):\n"
           "    ans_scale = 'c'\n"
           "elif _without_scale < _with_scale:\n"
           "    ans_scale = 'b'\n"
           "else:\n"
           "    ans_scale = 'a'\n")


@pytest.mark.parametrize("cell", [
    # the unscaled line copied from the scaled one, compared with math.isclose
    _ENTROPY + "_with_scale = _entropy(scaled_scores(_Q, _K))\n"
               "_without_scale = _entropy(scaled_scores(_Q, _K))      # copied from the line above\n" + _DECIDE,
    # the largest weight per row, both lines dividing by sqrt(d_k), compared through a difference
    "import math\n\n"
    "_g = torch.Generator().manual_seed(5)\n"
    "_Q, _K = torch.randn(2, 10, 512, dtype=torch.float64, generator=_g)\n"
    "_S = _Q @ _K.T\n"
    "_p_raw = torch.softmax(_S / math.sqrt(512), dim=-1).max(dim=-1).values.mean()\n"
    "_p_scaled = torch.softmax(_S / math.sqrt(512), dim=-1).max(dim=-1).values.mean()\n"
    "ans_scale = 'b' if _p_raw - _p_scaled > 0.1 else ('a' if _p_scaled - _p_raw > 0.1 else 'c')\n",
])
def test_same_expression_compared_is_named(grader: Grader, cell: str) -> None:
    assert_named(_graded(grader, {SCALE_ANS: cell}), "probe_compares_same_expression", {"q03"})


def test_unscaled_line_edited_keeps_full_marks(grader: Grader) -> None:
    assert_full_marks(_graded(grader, {SCALE_ANS: _ENTROPY + "_with_scale = _entropy(scaled_scores(_Q, _K))\n"
                                                             "_without_scale = _entropy(_Q @ _K.T)\n" + _DECIDE}))


class _Notebook:
    def __init__(self, *cells: str) -> None:
        self.cells = list(cells)


def test_same_expression_reads_the_source() -> None:
    found = D.same_expression_compared(_Notebook(_ENTROPY + "_with_scale = _entropy(scaled_scores(_Q, _K))\n"
                                                            "_without_scale = _entropy(scaled_scores(_Q, _K))\n"
                                                 + _DECIDE), SCALE_ANS)
    assert found == ("_with_scale", "_without_scale", "_entropy(scaled_scores(_Q, _K))"), found
    # random draws: two calls differ
    drawn = ("_a = torch.randn(3, generator=_g).sum()\n_b = torch.randn(3, generator=_g).sum()\n"
             "ans_scale = 'c' if abs(_a - _b) < 1 else 'b'\n")
    assert D.same_expression_compared(_Notebook("_g = torch.Generator()\n" + drawn), SCALE_ANS) is None
    # ... or inside a function of the notebook the expression calls
    helper = "def _draw(n):\n    return torch.rand(n).sum()\n"
    assert D.same_expression_compared(_Notebook(helper, "_a = _draw(3)\n_b = _draw(3)\n"
                                                "ans_scale = 'c' if _a == _b else 'b'\n"), SCALE_ANS) is None
    # a name the expression reads rebound between the two lines: the same text, another value
    reused = ("_A = torch.softmax(_S / 8, -1)\n_h1 = _entropy(_A)\n_A = torch.softmax(_S, -1)\n_h2 = _entropy(_A)\n"
              "ans_scale = 'c' if math.isclose(_h1, _h2) else 'b'\n")
    assert D.same_expression_compared(_Notebook(_ENTROPY + reused), SCALE_ANS) is None
    # the same expression bound twice but never compared, and a literal answer
    assert D.same_expression_compared(_Notebook("_a = _f(1)\n_b = _f(1)\nans_scale = _pick(_a)\n"), SCALE_ANS) is None
    assert D.same_expression_compared(_Notebook("_a = _f(1)\n_b = _f(1)\nprint(_a == _b)\nans_scale = 'c'\n"),
                                      SCALE_ANS) is None


def test_len_of_scores_reads_the_source() -> None:
    # a product in the cell (2 * n): the count may be meant, not this
    assert D.len_of_scores(_Notebook("_n = [len(scaled_scores(q, q)) for q in _qs]\n"
                                     "ans_complexity = 'a' if _n[1] == 2 * _n[0] else 'c'\n"), COST_ANS) is None
    assert D.len_of_scores(_Notebook("_S = torch.matmul(_Q, _K.mT)\n_m = torch.matmul(_Q2, _K2.mT)\n"
                                     "ans_complexity = 'a' if len(_m) / len(_S) == 2 else 'c'\n"), COST_ANS) == "len(_m)"
    # len() of the inputs (the sequence length, not a count of scores) is not this
    assert D.len_of_scores(_Notebook("ans_complexity = 'a' if len(_X2) / len(_X1) == 2 else 'c'\n"), COST_ANS) is None
    # a literal letter: the student chose it
    assert D.len_of_scores(_Notebook("_n = len(scaled_scores(_Q, _K))\nans_complexity = 'a'\n"), COST_ANS) is None
