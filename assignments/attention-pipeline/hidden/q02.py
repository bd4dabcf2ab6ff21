"""scaled_scores: S = Q K^T / sqrt(d_k), queries as rows, keys as columns."""
import torch
from otter.test_files import test_case

from autograder.checks import assert_matches, call, randn, register_misconceptions
from reference import attention_pipeline as ref

OK_FORMAT = False
name = "q02"
register_misconceptions(__file__)


@test_case(points=2, hidden=True)
def test_scores_float64_rectangular(scaled_scores, rng):
    # T_q != T_k and d_k = 12 (not a perfect square): catches the float32 scale constant in float64
    Q = randn((5, 12), rng, torch.float64)
    K = randn((8, 12), rng, torch.float64)
    assert_matches(call(scaled_scores, Q, K, what="scaled_scores"), ref.scaled_scores(Q, K), what="S",
                   variants=ref.scores_variants(Q, K))


@test_case(points=1, hidden=True)
def test_scores_batched_float32(scaled_scores, device, rng):
    Q = randn((3, 6, 16), rng)
    K = randn((3, 6, 16), rng)
    Q64, K64 = Q.double(), K.double()
    assert_matches(call(scaled_scores, Q, K, what="scaled_scores"), ref.scaled_scores(Q64, K64), what="S", dtype=torch.float32,
                   variants=ref.scores_variants(Q64, K64))
