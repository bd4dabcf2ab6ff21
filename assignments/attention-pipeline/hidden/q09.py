"""Box kernel: zero query/key projections give Lesson 07's prefix-average matrix."""
import math

import torch
from otter.test_files import test_case

from autograder.checks import assert_matches, assert_plain_tensor, randn
from reference import attention_pipeline as ref

OK_FORMAT = False
name = "q09"


@test_case(points=1, hidden=True)
def test_prefix_average_matrix(prefix_average_matrix, rng):
    T = int(torch.randint(4, 10, (1,), generator=rng))
    got = assert_plain_tensor(prefix_average_matrix(T), "W_avg")
    dtype = got.dtype if got.dtype in (torch.float32, torch.float64) else torch.float64
    assert_matches(got, ref.prefix_average_matrix(T), what="W_avg", dtype=dtype,
                   variants=ref.prefix_average_variants(T))


@test_case(points=1, hidden=True)
def test_zero_projections(self_attention, rng):
    T, d_model, d_k, d_v = 8, 6, 12, 5
    X = randn((T, d_model), rng, torch.float64)
    Z = torch.zeros(d_model, d_k, dtype=torch.float64)
    W_V = randn((d_model, d_v), rng, torch.float64, 1.0 / math.sqrt(d_model))
    out = self_attention(X, Z, Z, W_V)
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        raise AssertionError("self_attention should return a pair (O, A)")
    wrong = ref.self_attention_variants(X, Z, Z, W_V)
    assert_matches(out[1], ref.prefix_average_matrix(T), what="A with W_Q = W_K = 0",
                   variants={k: v[1] for k, v in wrong.items()})
