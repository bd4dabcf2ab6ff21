"""Hidden tests for q1: attention(Q, K, V, d_k) -> (output, weights), 2-D inputs.

Edge cases real code gets wrong, drawn from `rng`: transposed and strided views (`.view` breaks on
them), expanded stride-0 inputs (writing into them raises), a zero query, duplicated keys. A failed
layout case also shows the smallest input of its kind that still fails (autograder.grading.shrink); what it
is named is decided on the original input. These cases are square (T_q = T_k) so that a K Q^T is
still named by its values."""

import torch
from otter.test_files import test_case

from autograder.grading.checks import (
    Misconception,
    assert_plain_tensor,
    describe,
    raise_if_other_container,
    matching_variants,
    randn,
    register_misconceptions,
)
from reference import scaled_attention as ref

OK_FORMAT = False
name = "q1"
points = 9
register_misconceptions(__file__)


def _load_diagnose():
    """hidden/_diagnose.py, the diagnoses beside this file (the folder is no package)."""
    import importlib.util
    from pathlib import Path
    spec = importlib.util.spec_from_file_location(f"_{name}_diagnose", Path(__file__).with_name("_diagnose.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


D = _load_diagnose()


@test_case(points=2, hidden=True)
def test_float64_weights(attention, rng, submission=None):
    with D.scale_as_written(submission, "attention"):   # d_k ** -1/2 told as written
        # T_q != T_k, d_v != d_k, d_k = 12 (not a perfect square: a float32 scale constant shows). d_v = 10:
        # sqrt(d_v) must differ from every other catalogued scale (isqrt(12) = 3, sqrt(T_k), sqrt(T_q))
        Q, K, V = D.draw_inputs(rng, 5, 7, 12, 10, torch.float64)
        D.check_pair(D.call_pair(attention, Q, K, V, 12), Q, K, V, 12, "weights", attention)
        D.check_wide_scores(attention)   # scaled scores of std 30 in float64: a clamp of the scores shows (naming88)


@test_case(points=2, hidden=True)
def test_float64_output(attention, rng, submission=None):
    with D.scale_as_written(submission, "attention"):   # d_k ** -1/2 told as written
        Q, K, V = D.draw_inputs(rng, 6, 4, 12, 5, torch.float64)
        D.check_pair(D.call_pair(attention, Q, K, V, 12), Q, K, V, 12, "output", attention)
        # one query, then one key: 2-D inputs too (a bare .squeeze() drops the length-1 axis)
        D.check_size_one_axes(attention, rng, submission=submission)


@test_case(points=2, hidden=True)
def test_float32_square(attention, device, rng, submission=None):
    with D.scale_as_written(submission, "attention"):   # d_k ** -1/2 told as written
        # T_q == T_k like the lesson's trace, so computing K Q^T instead of Q K^T has the right shape
        Q, K, V = D.draw_inputs(rng, 6, 6, 16, 10, torch.float32)
        pair = D.call_pair(attention, Q, K, V, 16)
        D.check_pair(pair, Q, K, V, 16, "weights", attention)
        D.check_pair(pair, Q, K, V, 16, "output", attention)
        D.check_square_keys(attention)   # K square, T_k = d_k: a layout guessed from K's shape (naming72)


@test_case(points=1, hidden=True)
def test_weight_rows_sum_to_one(attention, rng, submission=None):
    Q, K, V = D.draw_inputs(rng, 4, 9, 16, 3, torch.float32, scale=3.0)
    with D.scale_as_written(submission, "attention"):   # a size-1 axis kept or added: told from the source
        pair = D.call_pair(attention, Q, K, V, 16)   # a result stored, never returned: told too (naming67)
        D.raise_if_first_query_only(pair, Q, K, V, 16, "the weight matrix")
        raise_if_other_container(pair[1], ref.attention(Q.double(), K.double(), V.double(), 16)[1],
                                 "the weight matrix", dtype=Q.dtype)
    w = assert_plain_tensor(pair[1], "weights")
    right = ref.attention(Q.double(), K.double(), V.double(), 16)
    D.raise_if_weights_transposed(pair, right, Q.dtype, "the weight matrix")
    if tuple(w.shape) != (4, 9):
        raise AssertionError(f"weights should have shape (T_q, T_k) = (4, 9), got {tuple(w.shape)}")
    sums = w.double().sum(dim=-1)
    if torch.isfinite(sums).all() and torch.allclose(sums, torch.ones_like(sums), rtol=0, atol=1e-5):
        D.raise_if_uniform_weights(pair, Q, K, V, 16)   # rows of 1/T_k sum to 1 too (red-team 52)
        return
    # rows off by a coarser dtype's rounding (float16 weights for float32 input, autocast): right values, other dtype
    D.raise_if_dtype_changed(w, right[1], Q.dtype, "the weight matrix", "attention")
    found = D.pair_evidence(pair, Q, K, V, 16, attention)
    if found is not None:
        raise D.normalize_p_said(submission, Misconception(found[0], "the rows of the weight matrix do not sum to 1: "
                                 f"with the output of the same call they match {found[2]}"), "attention")
    Q64, K64, V64 = Q.double(), K.double(), V.double()
    wrong = {k: ref.ATTENTION_VARIANTS[k](Q64, K64, V64, 16)[1]
             for k in ("softmax_wrong_dim", "weights_not_normalised", "no_softmax")}
    hits = matching_variants(w, wrong, torch.float32)
    if len(hits) == 1:
        raise D.normalize_p_said(submission, Misconception(
            hits[0], f"the rows of the weight matrix do not sum to 1: they match {describe(hits[0])}"), "attention")
    D.raise_if_sqrt_of_scores(attention, pair, Q, K, V, 16, "weight matrix")
    D._raise_if_random(attention, Q, K, V, 16, pair)
    raise AssertionError("the rows of the weight matrix do not sum to 1" + D.rows_summary(w, "the weight matrix"))


@test_case(points=1, hidden=True)
def test_noncontiguous_inputs(attention, rng, submission=None):
    with D.scale_as_written(submission, "attention"):   # d_k ** -1/2 told as written
        # Q and V transposed views ((d, T) memory seen as (T, d)), K every other column of a wider matrix;
        # T_q = T_k = 6, d_k = 12, d_v = 5, a zero query (uniform weights) and two equal keys (tied scores)
        T, d_k, d_v = 6, 12, 5
        Q = randn((d_k, T), rng).T
        K = randn((T, 2 * d_k), rng)[:, ::2]
        V = randn((d_v, T), rng).T
        Q[int(torch.randint(0, T, (1,), generator=rng))] = 0.0
        i, j = (int(x) for x in torch.randperm(T, generator=rng)[:2])
        K[j] = K[i]
        D.check_layout(attention, Q, K, V, "for transposed and strided (not contiguous) inputs")


@test_case(points=1, hidden=True)
def test_broadcast_inputs(attention, rng, submission=None):
    with D.scale_as_written(submission, "attention"):   # d_k ** -1/2 told as written
        # expanded, stride-0 inputs as broadcasting hands them out: each query one number repeated d_k
        # times, each row of V one value repeated d_v times (Q /= ..., Q.mul_(...) raise on them). Not one
        # query repeated T times: identical rows make a softmax over the queries look like other mistakes.
        # T_q = T_k = 7, d_k = 16, d_v = 4
        T, d_k, d_v = 7, 16, 4
        Q = randn((T, 1), rng).expand(T, d_k)
        K = randn((T, d_k), rng)
        V = randn((T, 1), rng).expand(T, d_v)
        D.check_layout(attention, Q, K, V, "for expanded (broadcast, stride-0) inputs")
