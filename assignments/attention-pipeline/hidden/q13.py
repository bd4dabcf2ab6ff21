"""cross_attention: queries from X, keys and values from Y; no causal mask unless M says so."""
import math

import torch
from otter.test_files import test_case

from autograder.checks import assert_matches, randn
from reference import attention_pipeline as ref

OK_FORMAT = False
name = "q13"


def _weights(rng, d_model, d_k, d_v, dtype):
    s = 1.0 / math.sqrt(d_model)
    return tuple(randn((d_model, d), rng, dtype, s) for d in (d_k, d_k, d_v))


def _check(out, X, Y, W, M, dtype):
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        raise AssertionError("cross_attention should return a pair (O, A)")
    X64, Y64, W64 = X.double(), Y.double(), [w.double() for w in W]
    M64 = None if M is None else M.double()
    O_ref, A_ref = ref.cross_attention(X64, Y64, *W64, M64)
    wrong = ref.cross_attention_variants(X64, Y64, *W64, M64)
    assert_matches(out[1], A_ref, what="A", dtype=dtype, variants={k: v[1] for k, v in wrong.items()})
    assert_matches(out[0], O_ref, what="O", dtype=dtype, variants={k: v[0] for k, v in wrong.items()})


@test_case(points=1, hidden=True)
def test_cross_float64(cross_attention, rng):
    T_q, T_k, d_model, d_k, d_v = 5, 9, 7, 12, 5
    X, Y = randn((T_q, d_model), rng, torch.float64), randn((T_k, d_model), rng, torch.float64)
    W = _weights(rng, d_model, d_k, d_v, torch.float64)
    _check(cross_attention(X, Y, *W), X, Y, W, None, torch.float64)


@test_case(points=1, hidden=True)
def test_cross_same_length(cross_attention, rng):
    # T_q == T_k: a swapped role or a causal mask would still have the right shape
    T, d_model, d_k, d_v = 6, 7, 12, 5
    X, Y = randn((T, d_model), rng, torch.float64), randn((T, d_model), rng, torch.float64)
    W = _weights(rng, d_model, d_k, d_v, torch.float64)
    _check(cross_attention(X, Y, *W), X, Y, W, None, torch.float64)


@test_case(points=1, hidden=True)
def test_cross_padding_mask(cross_attention, device, rng):
    # batched, with the last keys of Y blocked (padding) for every query
    B, T_q, T_k, d_model, d_k, d_v = 2, 4, 7, 8, 12, 6
    X, Y = randn((B, T_q, d_model), rng), randn((B, T_k, d_model), rng)
    W = _weights(rng, d_model, d_k, d_v, torch.float32)
    pad = int(torch.randint(1, 4, (1,), generator=rng))
    M = torch.zeros(T_q, T_k)
    M[:, T_k - pad:] = torch.finfo(torch.float32).min
    _check(cross_attention(X, Y, *W, M), X, Y, W, M, torch.float32)
