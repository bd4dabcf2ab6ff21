"""project_qkv: three right-multiplications of the same X."""
import torch
from otter.test_files import test_case

from autograder.checks import (
    assert_matches,
    call,
    expect_tuple,
    randn,
    register_misconceptions,
)
from reference import attention_pipeline as ref

OK_FORMAT = False
name = "q01"
register_misconceptions(__file__)


def _check(got, X, W_Q, W_K, W_V, dtype):
    Q, K, V = expect_tuple(got, "project_qkv", ("Q", "K", "V"))
    X64, W = X.double(), [w.double() for w in (W_Q, W_K, W_V)]
    want = ref.project_qkv(X64, *W)
    wrong = ref.qkv_variants(X64, *W)
    for i, (what, g) in enumerate(zip(("Q", "K", "V"), (Q, K, V))):
        assert_matches(g, want[i], what=what, dtype=dtype,
                       variants={k: v[i] for k, v in wrong.items()})


@test_case(points=1, hidden=True)
def test_project_float64(project_qkv, rng):
    # d_model != d_k != d_v, so a transposed weight cannot slip through
    T, d_model, d_k, d_v = 7, 9, 12, 5
    X = randn((T, d_model), rng, torch.float64)
    W_Q, W_K = randn((d_model, d_k), rng, torch.float64), randn((d_model, d_k), rng, torch.float64)
    W_V = randn((d_model, d_v), rng, torch.float64)
    _check(call(project_qkv, X, W_Q, W_K, W_V, what="project_qkv"), X, W_Q, W_K, W_V, torch.float64)


@test_case(points=1, hidden=True)
def test_project_batched_float32(project_qkv, device, rng):
    B1, B2, T, d_model, d_k, d_v = 2, 3, 6, 10, 12, 4
    X = randn((B1, B2, T, d_model), rng)
    W_Q, W_K, W_V = randn((d_model, d_k), rng), randn((d_model, d_k), rng), randn((d_model, d_v), rng)
    _check(call(project_qkv, X, W_Q, W_K, W_V, what="project_qkv"), X, W_Q, W_K, W_V, torch.float32)
