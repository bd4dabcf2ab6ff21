"""Hidden tests for q1: attention(Q, K, V, d_k) -> (output, weights), 2-D inputs."""
import torch
from otter.test_files import test_case

from autograder.checks import (
    Misconception,
    assert_matches,
    assert_plain_tensor,
    call,
    describe,
    expect_tuple,
    matching_variants,
    randn,
    register_misconceptions,
)
from autograder.errors import StudentCodeError
from reference import scaled_attention as ref

OK_FORMAT = False
name = "q1"
points = 7
register_misconceptions(__file__)


def _pair(fn, Q, K, V, d_k):
    """The student's (output, weights); a crash with T_q != T_k is named from the same call cut to as
    many queries as keys, when that matches a known mistake."""
    try:
        return expect_tuple(call(fn, Q, K, V, d_k, what="attention"), "attention", ("output", "weights"))
    except StudentCodeError as e:
        T = min(Q.shape[-2], K.shape[-2])
        if Q.shape[-2] != K.shape[-2]:
            try:
                out = fn(Q[:T], K[:T], V[:T], d_k)
            except StudentCodeError:
                raise e from None
            if isinstance(out, (tuple, list)) and len(out) == 2 and type(out[1]) is torch.Tensor:
                Q64, K64, V64 = Q[:T].double(), K[:T].double(), V[:T].double()
                hits = matching_variants(out[1], ref.wrong_variants(Q64, K64, V64, d_k, "weights"), Q.dtype)
                if len(hits) == 1:
                    raise Misconception(hits[0], f"your code raised {e.exc_type}: {e.message}, with T_q = "
                                        f"{Q.shape[-2]} queries and T_k = {K.shape[-2]} keys; with as many "
                                        f"queries as keys it runs and matches {describe(hits[0])}") from None
        raise


def _inputs(rng, T_q, T_k, d_k, d_v, dtype, scale=1.0):
    Q = randn((T_q, d_k), rng, dtype, scale)
    K = randn((T_k, d_k), rng, dtype, scale)
    V = randn((T_k, d_v), rng, dtype)
    return Q, K, V


def _check(got, Q, K, V, d_k, part):
    # oracle and wrong variants in float64, compared with the tolerance of the input dtype
    Q64, K64, V64 = Q.double(), K.double(), V.double()
    index = {"output": 0, "weights": 1}[part]
    expected = ref.attention(Q64, K64, V64, d_k)[index]
    assert_matches(got, expected, what={"output": "the output", "weights": "the weight matrix"}[part], dtype=Q.dtype,
                   variants=ref.wrong_variants(Q64, K64, V64, d_k, part))


@test_case(points=2, hidden=True)
def test_float64_weights(attention, rng):
    # T_q != T_k, d_v != d_k, d_k = 12 (not a perfect square: a float32 scale constant shows)
    Q, K, V = _inputs(rng, 5, 7, 12, 9, torch.float64)
    _, weights = _pair(attention, Q, K, V, 12)
    _check(weights, Q, K, V, 12, "weights")


@test_case(points=2, hidden=True)
def test_float64_output(attention, rng):
    Q, K, V = _inputs(rng, 6, 4, 12, 5, torch.float64)
    output, _ = _pair(attention, Q, K, V, 12)
    _check(output, Q, K, V, 12, "output")


@test_case(points=2, hidden=True)
def test_float32_square(attention, device, rng):
    # T_q == T_k like the lesson's trace, so computing K Q^T instead of Q K^T has the right shape
    Q, K, V = _inputs(rng, 6, 6, 16, 10, torch.float32)
    output, weights = _pair(attention, Q, K, V, 16)
    _check(weights, Q, K, V, 16, "weights")
    _check(output, Q, K, V, 16, "output")


@test_case(points=1, hidden=True)
def test_weight_rows_sum_to_one(attention, rng):
    Q, K, V = _inputs(rng, 4, 9, 16, 3, torch.float32, scale=3.0)
    _, weights = _pair(attention, Q, K, V, 16)
    w = assert_plain_tensor(weights, "weights")
    if tuple(w.shape) != (4, 9):
        raise AssertionError(f"weights should have shape (T_q, T_k) = (4, 9), got {tuple(w.shape)}")
    sums = w.double().sum(dim=-1)
    if torch.isfinite(sums).all() and torch.allclose(sums, torch.ones_like(sums), rtol=0, atol=1e-5):
        return
    Q64, K64, V64 = Q.double(), K.double(), V.double()
    wrong = {k: ref.ATTENTION_VARIANTS[k](Q64, K64, V64, 16)[1]
             for k in ("softmax_wrong_dim", "weights_not_normalised", "no_softmax")}
    hits = matching_variants(w, wrong, torch.float32)
    if len(hits) == 1:
        raise Misconception(hits[0], f"the rows of the weight matrix do not sum to 1: they match {describe(hits[0])}")
    raise AssertionError("the rows of the weight matrix do not sum to 1")
