"""cross_attention: queries from X, keys and values from Y; no causal mask unless M says so."""
import math

import torch
from otter.test_files import test_case

from autograder.grading.checks import (
    Misconception,
    assert_matches,
    call,
    charged_in_parts,
    describe,
    expect_tuple,
    matching_variants,
    randn,
    register_misconceptions,
)
from autograder.errors import StudentCodeError
from reference import attention_pipeline as ref

OK_FORMAT = False
name = "q13"
register_misconceptions(__file__)


def _weights(rng, d_model, d_k, d_v, dtype):
    s = 1.0 / math.sqrt(d_model)
    return tuple(randn((d_model, d), rng, dtype, s) for d in (d_k, d_k, d_v))


def _check(fn, stages, X, Y, W, M, dtype):
    """cross_attention is built on the student's scaled_scores and attention_weights: a wrong answer that
    equals the reference's cross-attention on those stages is charged by their questions, not here."""
    X64, Y64, W64 = X.double(), Y.double(), [w.double() for w in W]
    M64 = None if M is None else M.double()
    O_ref, A_ref = ref.cross_attention(X64, Y64, *W64, M64)
    wrong = ref.cross_attention_variants(X64, Y64, *W64, M64)

    def check(out):
        O, A = expect_tuple(out, "cross_attention", ("O", "A"))
        if all(type(t) is torch.Tensor for t in (O, A)) and not matching_variants(O, {"right": O_ref}, dtype) \
                and matching_variants(O, {"right": A_ref}, dtype) and matching_variants(A, {"right": O_ref}, dtype):
            raise Misconception("results_reordered", "cross_attention returns (A, O): both are right, in the "
                                "other order; return (O, A)")
        assert_matches(A, A_ref, what="A", dtype=dtype, variants={k: v[1] for k, v in wrong.items()})
        assert_matches(O, O_ref, what="O", dtype=dtype, variants={k: v[0] for k, v in wrong.items()})

    def student():
        if M is None:
            return call(fn, X, Y, *W, what="cross_attention")
        try:
            return call(fn, X, Y, *W, M, what="cross_attention")
        except StudentCodeError as e:   # evidence from the same call without the mask
            try:
                out = fn(X, Y, *W)
            except StudentCodeError:
                raise e from None
            A = out[1] if isinstance(out, (tuple, list)) and len(out) == 2 else None
            variants = {k: v[1] for k, v in ref.cross_attention_variants(X64, Y64, *W64).items()}
            hits = matching_variants(A, variants, dtype) if type(A) is torch.Tensor else []
            if len(hits) == 1:
                raise Misconception(hits[0], f"your code raised {e.exc_type}: {e.message} with the mask; "
                                    f"without it, A matches {describe(hits[0])}") from None
            raise

    charged_in_parts(student, check, lambda: ref.cross_attention(X, Y, *W, M, parts=stages))


@test_case(points=1, hidden=True)
def test_cross_float64(cross_attention, scaled_scores, attention_weights, rng):
    T_q, T_k, d_model, d_k, d_v = 5, 10, 7, 12, 5   # sqrt(T_k) apart from isqrt(d_k) = 3
    X, Y = randn((T_q, d_model), rng, torch.float64), randn((T_k, d_model), rng, torch.float64)
    W = _weights(rng, d_model, d_k, d_v, torch.float64)
    _check(cross_attention, {"scaled_scores": scaled_scores, "attention_weights": attention_weights}, X, Y, W, None, torch.float64)


@test_case(points=1, hidden=True)
def test_cross_same_length(cross_attention, scaled_scores, attention_weights, rng):
    # T_q == T_k: a swapped role or a causal mask would still have the right shape
    T, d_model, d_k, d_v = 6, 7, 12, 5
    X, Y = randn((T, d_model), rng, torch.float64), randn((T, d_model), rng, torch.float64)
    W = _weights(rng, d_model, d_k, d_v, torch.float64)
    _check(cross_attention, {"scaled_scores": scaled_scores, "attention_weights": attention_weights}, X, Y, W, None, torch.float64)


@test_case(points=1, hidden=True)
def test_cross_padding_mask(cross_attention, scaled_scores, attention_weights, device, rng):
    # batched, with the last keys of Y blocked (padding) for every query
    B, T_q, T_k, d_model, d_k, d_v = 2, 4, 7, 8, 12, 6
    X, Y = randn((B, T_q, d_model), rng), randn((B, T_k, d_model), rng)
    W = _weights(rng, d_model, d_k, d_v, torch.float32)
    pad = int(torch.randint(1, 4, (1,), generator=rng))
    M = torch.zeros(T_q, T_k)
    M[:, T_k - pad:] = torch.finfo(torch.float32).min
    _check(cross_attention, {"scaled_scores": scaled_scores, "attention_weights": attention_weights}, X, Y, W, M, torch.float32)
