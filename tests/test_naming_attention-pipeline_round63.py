"""attention-pipeline, naming round 63 (blind63's kinds: an optimisation that changed the result).

q04: the mask built once, at the length of the first call, and only sliced ([:T, :T]) afterwards: a second float32
call longer than the first returns the first call's (right) smaller mask, and causal_additive_mask slices a name it
never assigns (a module-level cache): mask_cached_at_first_length. A cache rebuilt when T grows keeps full marks.

q05: an online (blocked) softmax whose running sum is never rescaled by exp(m - m_new) when the running max grows:
replayed with the block size read from the cell's int constants, named online_softmax_sum_not_rescaled on every
weights test (not weights_not_normalised). The rescaled online softmax keeps full marks.

q08: linear attention's elu + 1 feature-map kernel phi(q) . phi(k) in place of exp(q . k / sqrt(d_k)): replayed
(the scale on the keys, the query, both, or none), nw_linear_feature_map_kernel.

q09: a float operation done in place on an integer tensor (reciprocal_ on an int64 arange, `/=` on a long
triangle): torch's "result type Float can't be cast" and an in-place call or `/=` in prefix_average_matrix:
in_place_float_op_on_integer. The same in place on a float64 arange keeps full marks.

q10: the entropy terms summed over the lower triangle only, as if every A were causal: replayed (tril-masked sum),
entropy_lower_triangle_only.

q11: the rank counted from torch.svd_lowrank / pca_lowrank's singular values, whose q is 6 by default: an answer equal
to that q with such a call in the cell, rank_from_svd_lowrank_default. svd_lowrank with q = 20 keeps full marks.

q12: the count done in int16 (or int8) integers that wrap past their largest value: the right count taken modulo
2^bits, with that dtype in the def, count_integer_overflow. The same in int64 keeps full marks.
"""
from __future__ import annotations

import pytest

from autograder.grading.grader import Grader
from tests.heldout.harness import assert_full_marks, assert_named, graded_as


MASK = "causal_additive_mask"
WEIGHTS = "attention_weights"
NW = "nadaraya_watson"
AVG = "prefix_average_matrix"
ENT = "row_entropy_bits"          # the q10 cell (also defines effective_tokens)
RANK = "max_rank_S"               # the q11 cell (also sets rank_S_lesson)
PARAMS = "qkv_param_count"
EFFECTIVE = "\n\ndef effective_tokens(A):\n    return 2.0 ** row_entropy_bits(A)\n"
RANK_S = ("_g = torch.Generator().manual_seed(0)\n"
          "_Q = torch.randn(100, 8, generator=_g, dtype=torch.float64)\n"
          "_K = torch.randn(100, 8, generator=_g, dtype=torch.float64)\n"
          "_S = _Q @ _K.T / math.sqrt(8)\n")


_graded = graded_as("attention-pipeline", "round63")


# --- q04: a mask cached at the first call's length, only sliced -----------------------------------------------------

@pytest.mark.parametrize("cell", [
    # one mask per dtype, built at the first length (blind63's own spelling)
    '''_MASKS = {}


def causal_additive_mask(T, dtype, device=None):
    key = (dtype, str(device))
    if key not in _MASKS:
        future = torch.triu(torch.ones(T, T, dtype=torch.bool, device=device), diagonal=1)
        _MASKS[key] = torch.zeros(T, T, dtype=dtype, device=device).masked_fill(future, torch.finfo(dtype).min)
    return _MASKS[key][:T, :T]
''',
    # one global boolean triangle (nanoGPT's "bias" buffer), built once, sliced and filled per call
    '''_FUTURE = None


def causal_additive_mask(T, dtype, device=None):
    global _FUTURE
    if _FUTURE is None:
        _FUTURE = torch.ones(T, T, dtype=torch.bool).triu(1)
    future = _FUTURE[:T, :T].to(device)
    return torch.zeros(future.shape, dtype=dtype, device=device).masked_fill(future, torch.finfo(dtype).min)
''',
])
def test_mask_cached_at_first_length_is_named(grader: Grader, cell: str) -> None:
    failed = _graded(grader, {MASK: cell}).failed   # (a cache kept for every dtype fails other tests too: told there)
    assert [(q, t, k) for q, t, k, _ in failed if t == "test_mask_pattern"] == [
        ("q04", "test_mask_pattern", "mask_cached_at_first_length")], failed
    assert "returns a 5 x 5 mask" in failed[0][3] and "kept between calls" in failed[0][3], failed


def test_a_cache_rebuilt_for_longer_sequences_keeps_full_marks(grader: Grader) -> None:
    assert_full_marks(_graded(grader, {MASK: '''_MASKS = {}


def causal_additive_mask(T, dtype, device=None):
    key = (dtype, str(device))
    if key not in _MASKS or _MASKS[key].shape[-1] < T:
        future = torch.triu(torch.ones(T, T, dtype=torch.bool, device=device), diagonal=1)
        _MASKS[key] = torch.zeros(T, T, dtype=dtype, device=device).masked_fill(future, torch.finfo(dtype).min)
    return _MASKS[key][:T, :T]
'''}))


# --- q05: the online softmax's running sum never rescaled ----------------------------------------------------------

_ONLINE_SPLIT = '''def attention_weights(S, M=None):
    Z = S if M is None else S + M
    work = Z.float() if Z.dtype in (torch.float16, torch.bfloat16) else Z
    m = torch.full(work.shape[:-1] + (1,), -math.inf, dtype=work.dtype, device=work.device)
    l = torch.zeros_like(m)
    for blk in work.split(4, dim=-1):
        m_new = torch.maximum(m, blk.amax(dim=-1, keepdim=True))
        l = {update}
        m = m_new
    return (torch.exp(work - m) / l).to(Z.dtype)
'''
_ONLINE_RANGE = '''def attention_weights(S, M=None):
    Z = S if M is None else S + M
    work = Z.double()
    T_k = work.shape[-1]
    run_max = torch.full_like(work[..., :1], float("-inf"))
    run_sum = torch.zeros_like(run_max)
    for j in range(0, T_k, 3):
        tile = work[..., j:j + 3]
        new_max = torch.maximum(run_max, tile.max(dim=-1, keepdim=True).values)
        run_sum += torch.exp(tile - new_max).sum(dim=-1, keepdim=True)
        run_max = new_max
    return (torch.exp(work - run_max) / run_sum).to(Z.dtype)
'''


@pytest.mark.parametrize("cell", [
    _ONLINE_SPLIT.replace("{update}", "l + torch.exp(blk - m_new).sum(dim=-1, keepdim=True)"),
    _ONLINE_RANGE,
])
def test_online_softmax_sum_not_rescaled_is_named(grader: Grader, cell: str) -> None:
    failed = assert_named(_graded(grader, {WEIGHTS: cell}), "online_softmax_sum_not_rescaled")
    assert all(q == "q05" for q, _, _, _ in failed) and len(failed) >= 3, failed


def test_the_rescaled_online_softmax_keeps_full_marks(grader: Grader) -> None:
    assert_full_marks(_graded(grader, {WEIGHTS: _ONLINE_SPLIT.replace(
                            "{update}", "l * torch.exp(m - m_new) + torch.exp(blk - m_new).sum(dim=-1, keepdim=True)")}))


# --- q08: linear attention's feature-map kernel ---------------------------------------------------------------------

@pytest.mark.parametrize("cell", [
    '''def nadaraya_watson(q, K, V):
    phi = lambda x: torch.nn.functional.elu(x) + 1
    kappa = phi(K / math.sqrt(q.shape[-1])) @ phi(q)
    return (kappa[:, None] * V).sum(dim=0) / kappa.sum()
''',
    '''import torch.nn.functional as F


def nadaraya_watson(q, K, V):
    # linear attention: no exp to overflow
    fq, fK = F.elu(q) + 1.0, F.elu(K) + 1.0
    w = fK @ fq
    return w @ V / w.sum()
''',
])
def test_linear_attention_feature_map_is_named(grader: Grader, cell: str) -> None:
    failed = assert_named(_graded(grader, {NW: cell}), "nw_linear_feature_map_kernel")
    assert all(q == "q08" for q, _, _, _ in failed), failed


def test_the_exponential_kernel_keeps_full_marks(grader: Grader) -> None:
    assert_full_marks(_graded(grader, {NW: '''def nadaraya_watson(q, K, V):
    w = torch.softmax(K @ q / math.sqrt(q.shape[-1]), dim=0)
    return w @ V
'''}))


# --- q09: a float operation in place on an integer tensor ------------------------------------------------------------

@pytest.mark.parametrize("cell", [
    '''def prefix_average_matrix(T):
    counts = torch.arange(1, T + 1)
    counts.reciprocal_()
    return torch.tril(torch.ones(T, T, dtype=torch.float64)) * counts[:, None]
''',
    '''def prefix_average_matrix(T):
    W = torch.tril(torch.ones(T, T, dtype=torch.long))
    W /= W.sum(dim=1, keepdim=True)      # in place: no second T x T tensor
    return W.double()
''',
])
def test_in_place_float_op_on_integer_is_named(grader: Grader, cell: str) -> None:
    failed = assert_named(_graded(grader, {AVG: cell}), "in_place_float_op_on_integer")
    assert all(q == "q09" and "can't be cast" in m for q, _, _, m in failed), failed


def test_in_place_on_a_float_arange_keeps_full_marks(grader: Grader) -> None:
    assert_full_marks(_graded(grader, {AVG: '''def prefix_average_matrix(T):
    counts = torch.arange(1, T + 1, dtype=torch.float64)
    counts.reciprocal_()
    return torch.tril(torch.ones(T, T, dtype=torch.float64)) * counts[:, None]
'''}))


# --- q10: the entropy summed over the lower triangle only ------------------------------------------------------------

@pytest.mark.parametrize("cell", [
    '''def row_entropy_bits(A):
    T_q, T_k = A.shape[-2], A.shape[-1]
    visible = torch.ones(T_q, T_k, dtype=torch.bool, device=A.device).tril()
    logs = torch.where(visible & (A > 0), torch.log2(A), torch.zeros_like(A))
    return -(A * logs).sum(dim=-1)
''' + EFFECTIVE,
    '''def row_entropy_bits(A):
    terms = torch.special.xlogy(A, A) / math.log(2)
    return -terms.tril().sum(dim=-1)       # the future is 0 anyway
''' + EFFECTIVE,
])
def test_entropy_lower_triangle_only_is_named(grader: Grader, cell: str) -> None:
    failed = assert_named(_graded(grader, {ENT: cell}), "entropy_lower_triangle_only")
    assert all(q == "q10" for q, _, _, _ in failed), failed


def test_every_key_summed_keeps_full_marks(grader: Grader) -> None:
    assert_full_marks(_graded(grader, {ENT: '''def row_entropy_bits(A):
    return -(torch.special.xlogy(A, A) / math.log(2)).sum(dim=-1)
''' + EFFECTIVE}))


# --- q11: the rank counted from svd_lowrank's q singular values -----------------------------------------------------

@pytest.mark.parametrize("cell", [
    "_, _sv, _ = torch.svd_lowrank(_S)\nmax_rank_S = int((_sv > _sv.max() * 1e-10).sum())\nrank_S_lesson = 2\n",
    "_U, _s, _V = torch.pca_lowrank(_S, center=False)\nmax_rank_S = len(_s)\nrank_S_lesson = 2\n",
])
def test_rank_from_svd_lowrank_default_is_named(grader: Grader, cell: str) -> None:
    failed = assert_named(_graded(grader, {RANK: RANK_S + cell}), "rank_from_svd_lowrank_default")
    assert [(q, t) for q, t, _, _ in failed] == [("q11", "test_max_rank_S")], failed
    assert "max_rank_S is 6" in failed[0][3] and "lowrank" in failed[0][3], failed


def test_svd_lowrank_with_a_large_q_keeps_full_marks(grader: Grader) -> None:
    assert_full_marks(_graded(grader, {RANK: RANK_S + "_, _sv, _ = torch.svd_lowrank(_S, q=20)\n"
                                                      "max_rank_S = int((_sv > _sv.max() * 1e-10).sum())\nrank_S_lesson = 2\n"}))


# --- q12: the count wrapped around in a fixed-width integer ---------------------------------------------------------

@pytest.mark.parametrize("cell", [
    '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    d_model, d_k, d_v = (torch.as_tensor(x, dtype=torch.int16) for x in (d_model, d_k, d_v))
    n = d_model * (2 * d_k + d_v)
    if with_output:
        n = n + d_v * d_model
    return int(n)
''',
    '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    sizes = torch.tensor([d_model, d_k, d_v], dtype=torch.short)
    shapes = [(sizes[0], sizes[1]), (sizes[0], sizes[1]), (sizes[0], sizes[2])]
    if with_output:
        shapes.append((sizes[2], sizes[0]))
    return int(sum(r * c for r, c in shapes))
''',
])
def test_count_integer_overflow_is_named(grader: Grader, cell: str) -> None:
    failed = assert_named(_graded(grader, {PARAMS: cell}), "count_integer_overflow")
    assert all(q == "q12" and "wrapped around to a 16-bit integer" in m for q, _, _, m in failed), failed


def test_the_count_in_int64_keeps_full_marks(grader: Grader) -> None:
    assert_full_marks(_graded(grader, {PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    d_model, d_k, d_v = (torch.as_tensor(x, dtype=torch.int64) for x in (d_model, d_k, d_v))
    n = d_model * (2 * d_k + d_v)
    if with_output:
        n = n + d_v * d_model
    return int(n)
'''}))
