"""attention-pipeline, naming round 59 (blind59's kinds: a symptom patched, not the cause).

q05: the softmax's weights clamped from below (softmax(...).clamp(min=1e-6), torch.clamp_min, torch.maximum with a
full tensor), a patch for the entropy's log(0): every weight the right one or the floor, whichever is larger, the
entries below the floor exactly the floor (rows sum above 1, blocked keys no longer 0): weights_floored_above_zero,
by replay of the clamp. Told before float32_precision, which the 1e-6 on a blocked 0 looked like and which no longer
fires on a floor (autograder/grading/checks.py). A clamp on the scores before the softmax keeps full marks.

q08: the (T,) kernel tiled to V's shape with .repeat(d_v) / torch.tile and a reshape to (T, d_v): entry (i, j) gets
kappa[(i * d_v + j) % T], not kappa[i]: nw_weights_tiled_flat, by replay (kept where T != d_v; with d_v = T it is
the weights along the columns). The copies put in the right order (repeat_interleave, or reshape(d_v, T).T) keep
full marks.

q10: the minus sign left out and the negative entropies raised to 0 (clamp(min=0), relu, clamp_min) instead of
negated: every entropy 0, and a clamp to 0 in row_entropy_bits: entropy_sign. All zeros with no clamp in the source
is not told so; the negated sum clamped at 0 keeps full marks.

q11: max_rank_S measured by matrix_rank on scores computed in float16 (.half(), torch.float16) and cast up only for
the rank: the rounding noise counted as rank, above d_k = 8: rank_counts_half_rounding, by the value (> d_k) and the
source (a rank call that max_rank_S reads, in a cell that computes in float16). Q and K cast to float64 before the
product keep full marks; a number above d_k with no float16 is not told so.

Each test grades its wrong spellings and, in the same test, the correct neighbours (full marks) and the look-alikes
that must not be told the key, so that every test fails before this round's change.
"""
from __future__ import annotations

import pytest

from autograder.grading.grader import Grader
from tests.heldout.harness import assert_full_marks, assert_lost, graded_as


WEIGHTS = "attention_weights"
NW = "nadaraya_watson"
ENT = "row_entropy_bits"     # the q10 cell (also defines effective_tokens)
RANK = "max_rank_S"          # the q11 cell (also sets rank_S_lesson)
EFFECTIVE = '''

def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
'''
LESSON = ('''_Kl = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]], '''
          '''dtype=torch.float64)
_Ql = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]], dtype=torch.float64)
rank_S_lesson = int(torch.linalg.matrix_rank(_Ql @ _Kl.mT / math.sqrt(4)).item())
''')


_graded = graded_as("attention-pipeline", "round59")


# --- q05: the weights floored above zero ----------------------------------------------------------------------------

FLOORED = [
    '''def attention_weights(S, M=None):
    Z = S if M is None else S + M
    return torch.clamp_min(torch.softmax(Z, dim=-1), 1e-8)     # no 0 weight: log(0) was NaN
''',
    '''def attention_weights(S, M=None):
    if M is not None:
        S = S + M
    A = torch.nn.functional.softmax(S, dim=-1)
    return torch.maximum(A, torch.full_like(A, 1e-5))
''',
    '''def attention_weights(S, M=None):
    A = torch.softmax(S if M is None else S + M, dim=-1)
    return A.clamp(1e-7, 1.0)
''',
]
LEFT_AS_SOFTMAX = [
    # the scores kept finite before the softmax: the weights themselves are untouched
    '''def attention_weights(S, M=None):
    Z = S if M is None else S + M
    return torch.softmax(Z.clamp(min=torch.finfo(Z.dtype).min), dim=-1)
''',
    # a ceiling at 1 changes nothing
    '''def attention_weights(S, M=None):
    return torch.softmax(S if M is None else S + M, dim=-1).clamp(max=1.0)
''',
]


@pytest.mark.parametrize("body, neighbour", [(b, LEFT_AS_SOFTMAX[i % 2]) for i, b in enumerate(FLOORED)])
def test_weights_floored_above_zero_is_named(grader: Grader, body: str, neighbour: str) -> None:
    failed = assert_lost(_graded(grader, {WEIGHTS: body}))
    q05 = [(t, k) for q, t, k, _ in failed if q == "q05"]
    assert q05 and all(k == "weights_floored_above_zero" for _, k in q05), failed
    assert all(k != "float32_precision" for _, _, k, _ in failed), failed
    assert "raised to" in [m for q, _, _, m in failed if q == "q05"][0], failed
    assert_full_marks(_graded(grader, {WEIGHTS: neighbour}))     # the weights left as the softmax: full marks


# --- q08: the kernel tiled flat ------------------------------------------------------------------------------------

TILED = [
    '''def nadaraya_watson(q, K, V):
    kappa = torch.exp(K @ q / math.sqrt(q.shape[-1]))
    w = kappa.repeat(V.shape[-1]).reshape(V.shape)          # tile kappa to V's shape
    return (w * V).sum(dim=0) / kappa.sum()
''',
    '''def nadaraya_watson(q, K, V):
    T, d_v = V.shape
    w = torch.softmax(K @ q / math.sqrt(q.shape[-1]), dim=0)
    return (torch.tile(w, (d_v,)).view(T, d_v) * V).sum(0)
''',
]
IN_ORDER = [
    '''def nadaraya_watson(q, K, V):
    kappa = torch.exp(K @ q / math.sqrt(q.shape[-1]))
    w = kappa.repeat_interleave(V.shape[-1]).reshape(V.shape)   # each weight copied along its own row
    return (w * V).sum(dim=0) / kappa.sum()
''',
    '''def nadaraya_watson(q, K, V):
    kappa = torch.exp(K @ q / math.sqrt(q.shape[-1]))
    w = kappa.repeat(V.shape[-1]).reshape(V.shape[-1], V.shape[0]).T
    return (w * V).sum(dim=0) / kappa.sum()
''',
]


@pytest.mark.parametrize("body, neighbour", list(zip(TILED, IN_ORDER)))
def test_kernel_tiled_flat_is_named(grader: Grader, body: str, neighbour: str) -> None:
    failed = assert_lost(_graded(grader, {NW: body}))
    assert {(q, k) for q, _, k, _ in failed} == {("q08", "nw_weights_tiled_flat")}, failed
    assert_full_marks(_graded(grader, {NW: neighbour}))          # the copies in the right order: full marks


# --- q10: the entropy's sign dropped, then clamped at 0 ---------------------------------------------------------------

@pytest.mark.parametrize("body", [
    '''def row_entropy_bits(A):
    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))
    return torch.relu((A * logs).sum(dim=-1))            # negative entropies: keep them at 0
''',
    '''def row_entropy_bits(A):
    H = torch.special.xlogy(A, A).sum(-1) / math.log(2)
    return torch.clamp_min(H, 0.0)
''',
    '''def row_entropy_bits(A):
    H = (A * torch.log2(A.clamp(min=1e-12))).sum(-1)
    return torch.clamp(H, 0)
''',
])
def test_entropy_sign_clamped_is_named(grader: Grader, body: str) -> None:
    failed = assert_lost(_graded(grader, {ENT: body + EFFECTIVE}))
    assert {(q, k) for q, t, k, _ in failed if t != "test_effective_tokens"} == {("q10", "entropy_sign")}, failed
    said = [m for _, t, _, m in failed if t == "test_entropy_causal_rows"][0]
    assert "0 in every row" in said and "negate the sum" in said, failed
    # the negated sum clamped at 0 keeps full marks
    assert_full_marks(_graded(grader, {ENT: body.replace("(A * logs)", "(-A * logs)").replace("xlogy(A, A)", "xlogy(A, A).neg()")
                                       .replace("(A * torch.log2", "(-A * torch.log2") + EFFECTIVE}))
    # all zeros with no clamp in the source is not told the sign
    failed = assert_lost(_graded(grader, {ENT: "def row_entropy_bits(A):\n    return (A * 0.0).sum(dim=-1)\n" + EFFECTIVE}))
    assert all(k != "entropy_sign" for _, _, k, _ in failed), failed


# --- q11: the rank of float16 scores ------------------------------------------------------------------------------

@pytest.mark.parametrize("cell", [
    '''_g = torch.Generator().manual_seed(1)
_Q = torch.randn(100, 8, generator=_g).half()
_K = torch.randn(100, 8, generator=_g).half()
max_rank_S = int(torch.linalg.matrix_rank((_Q @ _K.T).float()))
''',
    '''_g = torch.Generator().manual_seed(3)
_Q = torch.randn(100, 8, generator=_g).to(torch.float16)
_K = torch.randn(100, 8, generator=_g).to(dtype=torch.float16)
_S = (_Q @ _K.mT / math.sqrt(8)).to(torch.float64)
_rank = torch.linalg.matrix_rank(_S)
max_rank_S = _rank.item()
''',
])
def test_rank_of_float16_scores_is_named(grader: Grader, cell: str) -> None:
    failed = assert_lost(_graded(grader, {RANK: cell + LESSON}))
    assert [(q, t, k) for q, t, k, _ in failed] == [("q11", "test_max_rank_S", "rank_counts_half_rounding")], failed
    assert "above d_k = 8" in failed[0][3] and "float16" in failed[0][3], failed
    # a number above d_k with no float16 in the cell is not told so
    failed = assert_lost(_graded(grader, {RANK: "max_rank_S = int(torch.linalg.matrix_rank(torch.randn(50, 50)))\n" + LESSON}))
    assert all(k != "rank_counts_half_rounding" for _, _, k, _ in failed), failed
    # Q and K cast to float64 before the product (the float16 tensors kept): full marks
    assert_full_marks(_graded(grader, {RANK: '''_g = torch.Generator().manual_seed(1)
_Q = torch.randn(100, 8, generator=_g).half()
_K = torch.randn(100, 8, generator=_g).half()
max_rank_S = int(torch.linalg.matrix_rank(_Q.double() @ _K.double().T))
''' + LESSON}))
