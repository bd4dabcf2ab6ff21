"""self_attention: X -> (O, A); causal by default."""
import math

import torch
from otter.test_files import test_case

from autograder.checks import Misconception, assert_matches, assert_plain_tensor, describe, randn
from reference import attention_pipeline as ref

OK_FORMAT = False
name = "q07"


def _weights(rng, d_model, d_k, d_v, dtype):
    s = 1.0 / math.sqrt(d_model)  # unit-variance queries and keys: softmax rows neither flat nor one-hot
    return (randn((d_model, d_k), rng, dtype, s), randn((d_model, d_k), rng, dtype, s),
            randn((d_model, d_v), rng, dtype, s))


def _pair(out):
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        raise AssertionError("self_attention should return a pair (O, A)")
    return out


def _check(out, X, W, causal, dtype):
    O, A = _pair(out)
    X64, W64 = X.double(), [w.double() for w in W]
    O_ref, A_ref = ref.self_attention(X64, *W64, causal=causal)
    wrong = ref.self_attention_variants(X64, *W64, causal=causal)
    assert_matches(A, A_ref, what="A", dtype=dtype, variants={k: v[1] for k, v in wrong.items()})
    assert_matches(O, O_ref, what="O", dtype=dtype, variants={k: v[0] for k, v in wrong.items()})


@test_case(points=2, hidden=True)
def test_causal_float64(self_attention, rng):
    T, d_model, d_k, d_v = 9, 7, 12, 5
    X = randn((T, d_model), rng, torch.float64)
    W = _weights(rng, d_model, d_k, d_v, torch.float64)
    _check(self_attention(X, *W), X, W, True, torch.float64)


@test_case(points=1, hidden=True)
def test_not_causal_float64(self_attention, rng):
    T, d_model, d_k, d_v = 6, 7, 12, 5
    X = randn((T, d_model), rng, torch.float64)
    W = _weights(rng, d_model, d_k, d_v, torch.float64)
    _check(self_attention(X, *W, causal=False), X, W, False, torch.float64)


@test_case(points=1, hidden=True)
def test_batched_float32(self_attention, device, rng):
    B, T, d_model, d_k, d_v = 3, 8, 10, 12, 6
    X = randn((B, T, d_model), rng)
    W = _weights(rng, d_model, d_k, d_v, torch.float32)
    _check(self_attention(X, *W), X, W, True, torch.float32)


@test_case(points=1, hidden=True)
def test_causal_properties(self_attention, device, rng):
    # sharp rows (scores with std ~3): A must be lower-triangular with rows summing to 1
    T, d_model, d_k, d_v = 16, 8, 12, 6
    X = randn((T, d_model), rng, scale=3.0)
    W = _weights(rng, d_model, d_k, d_v, torch.float32)
    O, A = _pair(self_attention(X, *W))
    A = assert_plain_tensor(A, "A")
    if tuple(A.shape) != (T, T):
        raise AssertionError(f"A has shape {tuple(A.shape)}, expected ({T}, {T})")
    upper = A.double().triu(1)
    if not torch.isfinite(A).all():
        raise AssertionError("A contains NaN or inf")
    if (upper != 0).any():
        if (A.double().tril(-1) == 0).all():
            key = "upper_triangular_mask"
        elif (upper[1:] == 0).all():  # only the first query reads the future: its own key was blocked
            key = "mask_blocks_diagonal"
        else:
            key = "no_causal_mask"
        raise Misconception(key, f"A has weight on future keys: it matches {describe(key)}")
    one = torch.ones(T, dtype=torch.float64)
    if not torch.allclose(A.double().sum(-1), one, rtol=0, atol=1e-5):
        if torch.allclose(A.double().sum(-2), one, rtol=0, atol=1e-5):
            raise Misconception("softmax_wrong_dim", "rows of A do not sum to 1, its columns do: it "
                                "matches " + describe("softmax_wrong_dim"))
        if (A.double().sum(-1) <= 1 + 1e-5).all():
            raise Misconception("zero_after_softmax", "rows of A sum to less than 1: it matches "
                                + describe("zero_after_softmax"))
        raise AssertionError("rows of A do not sum to 1")
    # O must be the weights applied to the values: O = A V
    V = X.double() @ W[2].double()
    assert_matches(O, A.double() @ V, what="O (compared with your own A times V)", dtype=torch.float32)
