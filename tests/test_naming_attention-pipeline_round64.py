"""attention-pipeline, naming round 64 (blind64's kinds: code that fits the notebook's own example).

q01: Q, K, V read as a row lookup, W[X.argmax(-1)] (an embedding lookup by each token's largest entry, however it is
spelled: indexing, F.one_hot(...) @ W, F.embedding): equal to X @ W only for one-hot tokens like the lesson's. Named
projection_as_row_lookup where all three results are exactly that lookup, replayed on the test's own X and weights
(D.qkv_variants). X @ W and an einsum keep full marks.

q04: a mask that blocks only key t + 1 (the first superdiagonal alone: M[idx, idx + 1], a diag(..., 1)), or only the
next few keys (a band above the diagonal): the notebook's public check of a few entries next to the diagonal passes,
the later keys stay open. Named mask_only_next_key where the blocked entries are exactly such a band, replayed
(triu(1) & tril(w)), said with the first key left open. triu(1) keeps full marks.

q12: a W_Q, W_K, W_V count that does not change with the sizes (the numel of the lesson's own 6 x 4 weight tensors,
72; a typed 3 * 6 * 4; sizes read from the notebook's globals instead of the arguments): named param_count_constant
where the count without W_O, wrong, is the same number at two other sizes too (second and third calls), and said as
not moving at all (the old generic words blamed d_v against d_k). A count that moves (W_K left out) keeps its own
key; the right count keeps full marks.
"""
from __future__ import annotations

import pytest

from autograder.grading.grader import Grader
from tests.heldout.harness import assert_full_marks, assert_lost, graded_as


PROJ = "project_qkv"
MASK = "causal_additive_mask"
PARAMS = "qkv_param_count"


_graded = graded_as("attention-pipeline", "round64")


def _keys_in(failed: list[tuple[str, str, str | None, str]], question: str) -> set[str | None]:
    return {k for q, _, k, _ in failed if q == question}


# --- q01: the projection as a row lookup by argmax -----------------------------------------------------------------

@pytest.mark.parametrize("cell", [
    '''def project_qkv(X, W_Q, W_K, W_V):
    ids = X.argmax(dim=-1)
    return W_Q[ids], W_K[ids], W_V[ids]
''',
    '''import torch.nn.functional as F


def project_qkv(X, W_Q, W_K, W_V):
    hot = F.one_hot(X.argmax(-1), num_classes=X.shape[-1]).to(X.dtype)   # the token as its one-hot row
    return hot @ W_Q, hot @ W_K, hot @ W_V
''',
    '''def project_qkv(X, W_Q, W_K, W_V):
    idx = torch.argmax(X, dim=-1)
    return tuple(torch.nn.functional.embedding(idx, W) for W in (W_Q, W_K, W_V))
''',
])
def test_projection_as_row_lookup_is_named(grader: Grader, cell: str) -> None:
    failed = assert_lost(_graded(grader, {PROJ: cell}))
    assert _keys_in(failed, "q01") == {"projection_as_row_lookup"}, failed
    assert "W[X.argmax(-1)]" in failed[0][3], failed


@pytest.mark.parametrize("cell", [
    '''def project_qkv(X, W_Q, W_K, W_V):
    return X @ W_Q, X @ W_K, X @ W_V
''',
    '''def project_qkv(X, W_Q, W_K, W_V):
    return tuple(torch.einsum("...d,dk->...k", X, W) for W in (W_Q, W_K, W_V))
''',
])
def test_matmul_projection_keeps_full_marks(grader: Grader, cell: str) -> None:
    assert_full_marks(_graded(grader, {PROJ: cell}))


# --- q04: only the next key (or the next few) blocked ---------------------------------------------------------------

@pytest.mark.parametrize("cell, said", [
    ('''def causal_additive_mask(T, dtype, device=None):
    M = torch.zeros(T, T, dtype=dtype, device=device)
    idx = torch.arange(T - 1, device=device)
    M[idx, idx + 1] = torch.finfo(dtype).min
    return M
''', "only key t + 1"),
    ('''def causal_additive_mask(T, dtype, device=None):
    lo = torch.full((T - 1,), torch.finfo(dtype).min, dtype=dtype, device=device)
    return torch.diag(lo, 1)
''', "only key t + 1"),
    ('''def causal_additive_mask(T, dtype, device=None):
    M = torch.zeros(T, T, dtype=dtype, device=device)
    for t in range(T):
        M[t, t + 1:t + 3] = torch.finfo(dtype).min   # the next two tokens
    return M
''', "only keys t + 1 to t + 2"),
])
def test_only_next_key_blocked_is_named(grader: Grader, cell: str, said: str) -> None:
    failed = assert_lost(_graded(grader, {MASK: cell}))
    assert _keys_in(failed, "q04") == {"mask_only_next_key"}, failed
    assert any(said in m for q, _, _, m in failed if q == "q04"), failed


def test_whole_upper_triangle_keeps_full_marks(grader: Grader) -> None:
    assert_full_marks(_graded(grader, {MASK: '''def causal_additive_mask(T, dtype, device=None):
    return torch.full((T, T), torch.finfo(dtype).min, dtype=dtype, device=device).triu(1)
'''}))


# --- q12: a count that does not move with the sizes -----------------------------------------------------------------

@pytest.mark.parametrize("cell", [
    '''_WQ12 = torch.zeros(6, 4, dtype=torch.float64)
_WK12 = torch.zeros(6, 4, dtype=torch.float64)
_WV12 = torch.zeros(6, 4, dtype=torch.float64)


def qkv_param_count(d_model, d_k, d_v, with_output=False):
    n = sum(W.numel() for W in (_WQ12, _WK12, _WV12))
    if with_output:
        n += d_v * d_model
    return n
''',
    '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    n = 3 * 6 * 4   # three 6 x 4 matrices
    return n + d_v * d_model if with_output else n
''',
    '''D_MODEL, D_K, D_V = 16, 8, 8


def qkv_param_count(d_model, d_k, d_v, with_output=False):
    n = 2 * D_MODEL * D_K + D_MODEL * D_V
    return n + (D_V * D_MODEL if with_output else 0)
''',
])
def test_constant_count_is_named(grader: Grader, cell: str) -> None:
    failed = assert_lost(_graded(grader, {PARAMS: cell}))
    assert _keys_in(failed, "q12") == {"param_count_constant"}, failed
    assert all("does not change with the sizes" in m and "different from d_k" not in m
               for q, _, _, m in failed if q == "q12"), failed


def test_a_count_that_moves_keeps_its_own_key(grader: Grader) -> None:
    failed = assert_lost(_graded(grader, {PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    n = d_model * d_k + d_model * d_v
    return n + d_v * d_model if with_output else n
'''}))
    assert "param_count_constant" not in _keys_in(failed, "q12"), failed


def test_count_from_the_arguments_keeps_full_marks(grader: Grader) -> None:
    assert_full_marks(_graded(grader, {PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    n = d_model * (2 * d_k + d_v)
    return n + (d_v * d_model if with_output else 0)
'''}))


# --- letter questions: what made the experiment mislead, said beside answer_computed_by_code (key unchanged) ---------

SCALE_ANS = "ans_scale"
MASK_ANS = "ans_mask"
SHAPES_ANS = "ans_cross_shapes"
_ENTROPY = '''

def _h(S):
    A = torch.softmax(S, dim=-1)
    return -(A * torch.log2(A)).sum(dim=-1)


'''


@pytest.mark.parametrize("cells, said", [
    ({SCALE_ANS: "_X3 = torch.randn(8, 16, dtype=torch.float64)\n_Z3 = torch.zeros(16, 512, dtype=torch.float64)\n"
                 "_Q3, _K3 = _X3 @ _Z3, _X3 @ _Z3" + _ENTROPY
                 + "ans_scale = 'c' if torch.allclose(_h(_Q3 @ _K3.T / math.sqrt(512)), _h(_Q3 @ _K3.T)) else 'b'\n"},
     "all zeros: every score is 0"),
    ({SCALE_ANS: "_X3 = torch.randn(8, 16, dtype=torch.float64)\n_W0 = torch.zeros_like(torch.empty(16, 64))\n"
                 "_Q3 = torch.matmul(_X3, _W0.double())" + _ENTROPY
                 + "if torch.allclose(_h(_Q3 @ _Q3.T / 8.0), _h(_Q3 @ _Q3.T)):\n    ans_scale = 'c'\n"
                 "else:\n    ans_scale = 'b'\n"},
     "all zeros: every score is 0"),
    ({SHAPES_ANS: "_X14 = torch.randn(5, 6, dtype=torch.float64)\n"
                  "_W14 = [torch.randn(6, 4, dtype=torch.float64) for _ in range(2)] + [torch.randn(6, 2, dtype=torch.float64)]\n"
                  "_O14, _A14 = cross_attention(_X14, _X14, *_W14)\n"
                  "_T, _Tp, _dv = 5, 5, 2\n"
                  "_opts = {'a': ((_T, _T), (_T, _dv)), 'b': ((_T, _Tp), (_T, _dv))}\n"
                  "ans_cross_shapes = next(k for k, (s, o) in _opts.items() if tuple(_A14.shape) == s and tuple(_O14.shape) == o)\n"},
     "the same tensor as X and as Y"),
    ({MASK_ANS: "_Q6 = torch.tensor([[1.0, 0], [1.0, 0], [0.0, 1]], dtype=torch.float64)\n"
                "_S6 = _Q6 @ torch.tensor([[2.0, 0], [0, 2.0], [1.0, 1]], dtype=torch.float64).T\n"
                "_M6 = torch.triu(torch.full((3, 3), -1e9, dtype=torch.float64), diagonal=1)\n"
                "_on, _off = torch.softmax(_S6 + _M6, dim=-1), torch.softmax(_S6, dim=-1)\n"
                "ans_mask = 'b' if int(torch.linalg.matrix_rank(_off)) < int(torch.linalg.matrix_rank(_on)) else 'c'\n"},
     "rows 0 and 1 are equal"),
])
def test_misleading_experiment_is_said(grader: Grader, cells: dict[str, str], said: str) -> None:
    failed = assert_lost(_graded(grader, cells))
    assert [k for _, _, k, _ in failed] == ["answer_computed_by_code"], failed
    assert said in failed[0][3], failed
