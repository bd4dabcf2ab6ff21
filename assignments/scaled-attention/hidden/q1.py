"""Hidden tests for q1: attention(Q, K, V, d_k) -> (output, weights), 2-D inputs."""
import torch
from otter.test_files import test_case

from autograder.checks import Misconception, assert_matches, assert_plain_tensor, describe, randn
from reference import scaled_attention as ref

OK_FORMAT = False
name = "q1"
points = 7


def _pair(result):
    if not isinstance(result, (tuple, list)) or len(result) != 2:
        raise AssertionError("attention should return a pair (output, weights)")
    return result


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
    _, weights = _pair(attention(Q, K, V, 12))
    _check(weights, Q, K, V, 12, "weights")


@test_case(points=2, hidden=True)
def test_float64_output(attention, rng):
    Q, K, V = _inputs(rng, 6, 4, 12, 5, torch.float64)
    output, _ = _pair(attention(Q, K, V, 12))
    _check(output, Q, K, V, 12, "output")


@test_case(points=2, hidden=True)
def test_float32_square(attention, device, rng):
    # T_q == T_k like the lesson's trace, so computing K Q^T instead of Q K^T has the right shape
    Q, K, V = _inputs(rng, 6, 6, 16, 10, torch.float32)
    output, weights = _pair(attention(Q, K, V, 16))
    _check(weights, Q, K, V, 16, "weights")
    _check(output, Q, K, V, 16, "output")


@test_case(points=1, hidden=True)
def test_weight_rows_sum_to_one(attention, rng):
    Q, K, V = _inputs(rng, 4, 9, 16, 3, torch.float32, scale=3.0)
    _, weights = _pair(attention(Q, K, V, 16))
    w = assert_plain_tensor(weights, "weights")
    if tuple(w.shape) != (4, 9):
        raise AssertionError(f"weights should have shape (T_q, T_k) = (4, 9), got {tuple(w.shape)}")
    sums = w.double().sum(dim=-1)
    if torch.isfinite(sums).all() and torch.allclose(sums, torch.ones_like(sums), rtol=0, atol=1e-5):
        return
    Q64, K64, V64 = Q.double(), K.double(), V.double()
    for key in ("softmax_wrong_dim", "weights_not_normalised", "no_softmax"):
        wrong = ref.ATTENTION_VARIANTS[key](Q64, K64, V64, 16)[1]
        if torch.allclose(w.double(), wrong, rtol=1e-5, atol=1e-5):
            raise Misconception(key, f"the rows of the weight matrix do not sum to 1: they match {describe(key)}")
    raise AssertionError("the rows of the weight matrix do not sum to 1")
