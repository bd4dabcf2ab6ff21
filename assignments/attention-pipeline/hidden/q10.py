"""row_entropy_bits and effective_tokens."""
import torch
from otter.test_files import test_case

from autograder.checks import Misconception, assert_matches, assert_plain_tensor, describe, randn
from reference import attention_pipeline as ref

OK_FORMAT = False
name = "q10"


def _causal_A(rng, B, T):
    # random causal attention rows: exact zeros above the diagonal
    S = randn((B, T, T), rng, torch.float64, scale=1.5)
    return ref.attention_weights(S, ref.causal_additive_mask(T, torch.float64))


@test_case(points=2, hidden=True)
def test_entropy_causal_rows(row_entropy_bits, rng):
    A = _causal_A(rng, 2, 7)
    got = assert_plain_tensor(row_entropy_bits(A), "H")
    if tuple(got.shape) == (2, 7) and torch.isnan(got).any():
        raise Misconception("zero_log_zero_nan", "H contains NaN on rows with zero weights: "
                            + describe("zero_log_zero_nan"))
    assert_matches(got, ref.row_entropy_bits(A), what="H", variants=ref.entropy_variants(A))
    # uniform prefix rows carry the maximum, log2(t) bits
    W = ref.prefix_average_matrix(6)
    assert_matches(row_entropy_bits(W), ref.row_entropy_bits(W), what="H of uniform prefix rows",
                   variants=ref.entropy_variants(W))


@test_case(points=1, hidden=True)
def test_effective_tokens(effective_tokens, rng):
    A = _causal_A(rng, 3, 6)
    got = assert_plain_tensor(effective_tokens(A), "effective tokens")
    if tuple(got.shape) == (3, 6) and torch.isnan(got).any():
        raise Misconception("zero_log_zero_nan", "effective tokens contain NaN: "
                            + describe("zero_log_zero_nan"))
    assert_matches(got, ref.effective_tokens(A), what="effective tokens",
                   variants=ref.effective_tokens_variants(A))
