"""attention-pipeline q09 asks prefix_average_matrix(T) a second time with the first call's T: a matrix kept between
calls and changed again on each (blind87: a cached triangle divided in place by the counts, so a repeat call gives
1/t^2 rows) kept full marks, every test calling it once per T. Now told state_kept_between_calls; a cache that
hands out copies, or none, keeps full marks. My own variants, not blind87's cell."""
from __future__ import annotations

import pytest

from tests.heldout.harness import assert_full_marks, assert_named, graded_as

_graded = graded_as("attention-pipeline", "prefix_average_repeat")

_WRONG = {
    "dict_cache_divided_in_place": '''_TRIANGLES = {}
def prefix_average_matrix(T):
    W = _TRIANGLES.setdefault(T, torch.tril(torch.ones(T, T, dtype=torch.float64)))
    W /= torch.arange(1.0, T + 1, dtype=torch.float64).unsqueeze(-1)   # each row's count of ones
    return W
''',
    "global_buffer_normalised_again": '''_BUF = None
def prefix_average_matrix(T):
    global _BUF
    if _BUF is None or _BUF.shape[0] != T:
        _BUF = torch.tril(torch.ones(T, T, dtype=torch.float64))
    _BUF.div_(torch.arange(1, T + 1, dtype=torch.float64)[:, None])
    return _BUF
''',
}

_RIGHT = {
    "cache_hands_out_copies": '''_CACHE = {}
def prefix_average_matrix(T):
    if T not in _CACHE:
        W = torch.tril(torch.ones(T, T, dtype=torch.float64))
        _CACHE[T] = W / W.sum(dim=-1, keepdim=True)
    return _CACHE[T].clone()
''',
    "cache_of_the_finished_matrix": '''import functools
@functools.lru_cache(maxsize=None)
def _triangle(T):
    W = torch.tril(torch.ones(T, T, dtype=torch.float64))
    return W / W.sum(dim=-1, keepdim=True)
def prefix_average_matrix(T):
    return _triangle(T)
''',
}


@pytest.mark.parametrize("name", sorted(_WRONG))
def test_a_matrix_changed_again_on_each_call_is_told_state_kept(grader, name):
    assert_named(_graded(grader, {"prefix_average_matrix": _WRONG[name]}), "state_kept_between_calls", "q09")


@pytest.mark.parametrize("name", sorted(_RIGHT))
def test_a_cache_that_keeps_the_matrix_right_keeps_full_marks(grader, name):
    assert_full_marks(_graded(grader, {"prefix_average_matrix": _RIGHT[name]}))
