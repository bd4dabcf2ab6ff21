"""attention-pipeline, naming round 60 (blind60's kinds: a rewrite that broke it).

q02: the scale 1/sqrt(d_k) worked out once and kept between calls (a mutable default `_scale=[]`, a global): S is Q K^T
times one factor on this input and on two more calls with d_k = 3 and d_k = 7, not 1/sqrt of either, and the def
keeps state: scale_cached_first_call. A factor of 1/2 on 4-D probes is also sqrt(Q.ndim): scale_from_ndim now needs a
2-D slice to give 1/sqrt(2) too, so a cached 1/2 is no longer told to read Q.shape[-1] (it does); a scale read from
Q.dim() is still named so. A cache keyed by d_k keeps full marks.

q05, q08: a loop over blocks with range(n // chunk) (or over a count of whole blocks bound first, int(n / chunk))
never visits the last partial block: the query rows past the last whole block stay zero (q05), the last n % chunk
keys are left out of both sums (q08), replayed where the def has such a range: chunk_remainder_dropped. range(0, n,
chunk) and a ceiling count keep full marks.

q12: qkv_param_count right, then asked again with only d_v (or only with_output) changed, gives the first answer
back, while the same arguments at sizes never asked are right: a memo whose key leaves an argument out,
memo_key_missing_argument (a new check at the end of test_count_qkv). A memo keyed on every argument keeps full marks.

q01: X's batch flattened into rows for one product and the rows restored in another order of (*batch, T), replayed
for each order where project_qkv reshapes: batch_restored_wrong_layout. Restoring the shape flattened keeps full marks.

q09: the prefix average written in place (tril_) into an expanded, stride-0 tensor, replayed with torch where the def
expands and writes in place: inplace_on_expanded. The same after .clone(), or tril() out of place, keeps full marks.

q11: max_rank_S = 1 measured of an einsum whose operands each sum out a letter of their own ('td,sk->ts': an outer
product of row sums, rank 1): rank_einsum_letters_differ. The same letter on both sides keeps full marks.
"""
from __future__ import annotations

import pytest

from autograder.grading.grader import Grader
from tests.heldout.harness import assert_full_marks, assert_named, graded_as


PROJ = "project_qkv"
SCORES = "scaled_scores"
WEIGHTS = "attention_weights"
NW = "nadaraya_watson"
AVG = "prefix_average_matrix"
RANK = "max_rank_S"          # the q11 cell (also sets rank_S_lesson)
PARAMS = "qkv_param_count"


_graded = graded_as("attention-pipeline", "round60")


# --- q02: the scale kept from the first call ------------------------------------------------------------------------

DEMO = ("\n\n_Q_demo = torch.tensor([[1.0, 0, 0, 0], [0, 1, 0, 0]])\n"
        "_K_demo = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [1, 1, 0, 0]])\n"
        "print(scaled_scores(_Q_demo, _K_demo))\n")


@pytest.mark.parametrize("wrong, right", [
    ('_SCALE = None\n\n\ndef scaled_scores(Q, K):\n    global _SCALE\n    if _SCALE is None:\n'
     '        _SCALE = math.sqrt(K.shape[-1])\n    return torch.matmul(Q, K.mT) / _SCALE\n' + DEMO,
     'def scaled_scores(Q, K, _by_dk={}):\n    d = Q.shape[-1]\n    if d not in _by_dk:\n'
     '        _by_dk[d] = 1.0 / math.sqrt(d)\n    return Q @ K.transpose(-2, -1) * _by_dk[d]\n' + DEMO),
    ('def scaled_scores(Q, K, cache={}):\n    factor = cache.setdefault("scale", Q.size(-1) ** -0.5)\n'
     '    return (Q @ K.mT) * factor\n' + DEMO,
     'def scaled_scores(Q, K, cache={}):\n    factor = cache.setdefault(Q.size(-1), Q.size(-1) ** -0.5)\n'
     '    return (Q @ K.mT) * factor\n' + DEMO),
])
def test_scale_kept_from_the_first_call_is_named(grader: Grader, wrong: str, right: str) -> None:
    failed = assert_named(_graded(grader, {SCORES: wrong}), "scale_cached_first_call", {"q02"}, also=("default_argument_wrong",))
    assert "d_k = 3 and for d_k = 7" in failed[0][3] and "1/sqrt(4)" in failed[0][3], failed
    assert_full_marks(_graded(grader, {SCORES: right}))


def test_a_constant_scale_and_a_scale_from_ndim_are_not_told_a_cache(grader: Grader) -> None:
    outcome = _graded(grader, {SCORES: 'def scaled_scores(Q, K):\n    return Q @ K.mT / 2.0\n'})
    assert outcome.failed and all(k not in ("scale_cached_first_call", "scale_from_ndim")
                                  for _, _, k, _ in outcome.failed), outcome.failed
    outcome = _graded(grader, {SCORES: 'def scaled_scores(Q, K):\n    return Q @ K.mT / math.sqrt(Q.dim())\n'})
    assert any(k == "scale_from_ndim" for _, _, k, _ in outcome.failed), outcome.failed
    assert all(k != "scale_cached_first_call" for _, _, k, _ in outcome.failed), outcome.failed


# --- q05, q08: the last partial block dropped ------------------------------------------------------------------------

@pytest.mark.parametrize("cells, right, questions", [
    ({WEIGHTS: 'def attention_weights(S, M=None):\n    Z = S if M is None else S + M\n    A = torch.zeros_like(Z)\n'
               '    n_blocks = Z.shape[-2] // 3\n    for b in range(n_blocks):\n'
               '        A[..., 3 * b:3 * b + 3, :] = torch.softmax(Z[..., 3 * b:3 * b + 3, :], dim=-1)\n    return A\n'},
     {WEIGHTS: 'def attention_weights(S, M=None):\n    Z = S if M is None else S + M\n    A = torch.zeros_like(Z)\n'
               '    for b in range(-(-Z.shape[-2] // 3)):\n'
               '        A[..., 3 * b:3 * b + 3, :] = torch.softmax(Z[..., 3 * b:3 * b + 3, :], dim=-1)\n    return A\n'},
     {"q05"}),
    ({WEIGHTS: 'def attention_weights(S, M=None, block=2):\n    if M is not None:\n        S = S + M\n'
               '    out = torch.zeros_like(S)\n    for start in range(0, (S.shape[-2] // block) * block, block):\n'
               '        out[..., start:start + block, :] = torch.softmax(S[..., start:start + block, :], dim=-1)\n'
               '    return out\n'},
     {WEIGHTS: 'def attention_weights(S, M=None, block=2):\n    if M is not None:\n        S = S + M\n'
               '    out = torch.zeros_like(S)\n    for start in range(0, S.shape[-2], block):\n'
               '        out[..., start:start + block, :] = torch.softmax(S[..., start:start + block, :], dim=-1)\n'
               '    return out\n'},
     {"q05"}),
    ({NW: 'def nadaraya_watson(q, K, V):\n    num, den = 0.0, 0.0\n    for i in range(int(K.shape[0] / 4)):\n'
          '        k = torch.exp(K[4 * i:4 * i + 4] @ q / math.sqrt(q.shape[-1]))\n'
          '        num = num + k @ V[4 * i:4 * i + 4]\n        den = den + k.sum()\n    return num / den\n'},
     {NW: 'def nadaraya_watson(q, K, V):\n    num, den = 0.0, 0.0\n    for i in range(0, K.shape[0], 3):\n'
          '        k = torch.exp(K[i:i + 3] @ q / math.sqrt(q.shape[-1]))\n'
          '        num = num + k @ V[i:i + 3]\n        den = den + k.sum()\n    return num / den\n'},
     {"q08"}),
    ({NW: 'def nadaraya_watson(q, K, V):\n    w = torch.exp(K @ q / math.sqrt(q.shape[-1]))\n    blocks = K.shape[0] // 4\n'
          '    parts = [(w[4 * j:4 * j + 4], V[4 * j:4 * j + 4]) for j in range(blocks)]\n'
          '    return sum(a @ v for a, v in parts) / sum(a.sum() for a, _ in parts)\n'},
     {NW: 'def nadaraya_watson(q, K, V):\n    w = torch.exp(K @ q / math.sqrt(q.shape[-1]))\n    blocks = -(-K.shape[0] // 4)\n'
          '    parts = [(w[4 * j:4 * j + 4], V[4 * j:4 * j + 4]) for j in range(blocks)]\n'
          '    return sum(a @ v for a, v in parts) / sum(a.sum() for a, _ in parts)\n'},
     {"q08"}),
])
def test_last_partial_block_dropped_is_named(grader: Grader, cells: dict[str, str], right: dict[str, str],
                                             questions: set[str]) -> None:
    assert_named(_graded(grader, cells), "chunk_remainder_dropped", questions | {"q07", "q09", "q10", "q13"},
                 also=("default_argument_wrong",))
    assert_full_marks(_graded(grader, right))


# --- q12: a memo keyed on too few arguments --------------------------------------------------------------------------

@pytest.mark.parametrize("wrong, right", [
    ('_COUNTS = {}\n\n\ndef qkv_param_count(d_model, d_k, d_v, with_output=False):\n'
     '    if (d_model, d_k, d_v) not in _COUNTS:\n'
     '        _COUNTS[(d_model, d_k, d_v)] = d_model * (2 * d_k + d_v) + (d_v * d_model if with_output else 0)\n'
     '    return _COUNTS[(d_model, d_k, d_v)]\n',
     '_COUNTS = {}\n\n\ndef qkv_param_count(d_model, d_k, d_v, with_output=False):\n'
     '    key = (d_model, d_k, d_v, with_output)\n    if key not in _COUNTS:\n'
     '        _COUNTS[key] = d_model * (2 * d_k + d_v) + (d_v * d_model if with_output else 0)\n'
     '    return _COUNTS[key]\n'),
    ('def qkv_param_count(d_model, d_k, d_v, with_output=False, _seen={}):\n'
     '    return _seen.setdefault((d_model, d_k, with_output), d_model * (2 * d_k + d_v) + with_output * d_v * d_model)\n',
     'def qkv_param_count(d_model, d_k, d_v, with_output=False, _seen={}):\n'
     '    return _seen.setdefault((d_model, d_k, d_v, with_output), '
     'd_model * (2 * d_k + d_v) + with_output * d_v * d_model)\n'),
])
def test_memo_keyed_on_too_few_arguments_is_named(grader: Grader, wrong: str, right: str) -> None:
    failed = assert_named(_graded(grader, {PARAMS: wrong}), "memo_key_missing_argument", {"q12"}, also=("default_argument_wrong",))
    assert "again" in failed[0][3] and "only" in failed[0][3], failed
    assert_full_marks(_graded(grader, {PARAMS: right}))


# --- q01: the flattened batch restored in another layout ------------------------------------------------------------

@pytest.mark.parametrize("wrong, right", [
    ('def project_qkv(X, W_Q, W_K, W_V):\n    T, d = X.shape[-2], X.shape[-1]\n    flat = X.reshape(-1, d)\n'
     '    out = []\n    for W in (W_Q, W_K, W_V):\n        Z = (flat @ W).reshape(T, -1, W.shape[-1]).transpose(0, 1)\n'
     '        out.append(Z.reshape(*X.shape[:-1], W.shape[-1]))\n    return tuple(out)\n',
     'def project_qkv(X, W_Q, W_K, W_V):\n    d = X.shape[-1]\n    flat = X.reshape(-1, d)\n'
     '    return tuple((flat @ W).reshape(*X.shape[:-1], W.shape[-1]) for W in (W_Q, W_K, W_V))\n'),
    ('def project_qkv(X, W_Q, W_K, W_V):\n    lead, T = tuple(X.shape[:-2]), X.shape[-2]\n'
     '    rows = X.flatten(0, -2)\n'
     '    return tuple((rows @ W).unflatten(0, (T,) + lead).movedim(0, -2) for W in (W_Q, W_K, W_V))\n',
     'def project_qkv(X, W_Q, W_K, W_V):\n    lead, T = tuple(X.shape[:-2]), X.shape[-2]\n'
     '    rows = X.flatten(0, -2)\n'
     '    return tuple((rows @ W).unflatten(0, lead + (T,)) for W in (W_Q, W_K, W_V))\n'),
])
def test_batch_restored_in_another_layout_is_named(grader: Grader, wrong: str, right: str) -> None:
    assert_named(_graded(grader, {PROJ: wrong}), "batch_restored_wrong_layout", {"q01", "q07", "q09", "q10", "q13"},
                 also=("default_argument_wrong",))
    assert_full_marks(_graded(grader, {PROJ: right}))


# --- q09: written in place into an expanded tensor ------------------------------------------------------------------

@pytest.mark.parametrize("wrong, right", [
    ('def prefix_average_matrix(T):\n    c = 1 / torch.arange(1, T + 1, dtype=torch.float64)\n'
     '    return c.unsqueeze(-1).expand(-1, T).tril_()\n',
     'def prefix_average_matrix(T):\n    c = 1 / torch.arange(1, T + 1, dtype=torch.float64)\n'
     '    return c.unsqueeze(-1).expand(-1, T).clone().tril_()\n'),
    ('def prefix_average_matrix(T):\n    grid = torch.ones(T, 1, dtype=torch.float64).expand(T, T)\n'
     '    grid.tril_()\n    return grid / torch.arange(1, T + 1, dtype=torch.float64)[:, None]\n',
     'def prefix_average_matrix(T):\n    grid = torch.ones(T, 1, dtype=torch.float64).expand(T, T)\n'
     '    grid = grid.tril()\n    return grid / torch.arange(1, T + 1, dtype=torch.float64)[:, None]\n'),
])
def test_in_place_on_expanded_is_named(grader: Grader, wrong: str, right: str) -> None:
    assert_named(_graded(grader, {AVG: wrong}), "inplace_on_expanded", {"q09", "q10"}, also=("default_argument_wrong",))
    assert_full_marks(_graded(grader, {AVG: right}))


# --- q11: an einsum whose operands each sum their own letter ---------------------------------------------------------

RANK_TAIL = "max_rank_S = int(torch.linalg.matrix_rank(_S))\nrank_S_lesson = 2\n"


@pytest.mark.parametrize("wrong, right", [
    ('_g = torch.Generator().manual_seed(1)\n_Q = torch.randn(100, 8, dtype=torch.float64, generator=_g)\n'
     '_K = torch.randn(100, 8, dtype=torch.float64, generator=_g)\n_S = torch.einsum("id,jk->ij", _Q, _K)\n' + RANK_TAIL,
     '_g = torch.Generator().manual_seed(1)\n_Q = torch.randn(100, 8, dtype=torch.float64, generator=_g)\n'
     '_K = torch.randn(100, 8, dtype=torch.float64, generator=_g)\n_S = torch.einsum("id,jd->ij", _Q, _K)\n' + RANK_TAIL),
    ('Qs, Ks = torch.rand(100, 8), torch.rand(100, 8)\n_eq = "ab,cd->ac"\n'
     'max_rank_S = torch.linalg.matrix_rank(torch.einsum("ab, cd -> ac", Qs, Ks)).item()\nrank_S_lesson = 2\n',
     'Qs, Ks = torch.rand(100, 8, dtype=torch.float64), torch.rand(100, 8, dtype=torch.float64)\n'
     'max_rank_S = torch.linalg.matrix_rank(torch.einsum("ab, cb -> ac", Qs, Ks)).item()\nrank_S_lesson = 2\n'),
])
def test_rank_of_einsum_with_unshared_letters_is_named(grader: Grader, wrong: str, right: str) -> None:
    failed = assert_named(_graded(grader, {RANK: wrong}), "rank_einsum_letters_differ", {"q11"}, also=("default_argument_wrong",))
    assert "max_rank_S is 1" in failed[0][3], failed
    assert_full_marks(_graded(grader, {RANK: right}))
