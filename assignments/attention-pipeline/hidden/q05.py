"""attention_weights: row-wise softmax of S + M (M may be None)."""
import torch
from otter.test_files import test_case

from autograder.checks import (
    Misconception,
    assert_matches,
    assert_plain_tensor,
    call,
    randn,
    register_misconceptions,
)
from autograder.errors import StudentCodeError
from reference import attention_pipeline as ref

OK_FORMAT = False
name = "q05"
register_misconceptions(__file__)


@test_case(points=1, hidden=True)
def test_weights_float64_rectangular_mask(attention_weights, rng):
    T_q, T_k = 5, 8
    S = randn((T_q, T_k), rng, torch.float64)
    blocked = torch.rand((T_q, T_k), generator=rng) < 0.35
    blocked[torch.arange(T_q), torch.randint(0, T_k, (T_q,), generator=rng)] = False  # one open key per row
    M = torch.zeros(T_q, T_k, dtype=torch.float64).masked_fill(blocked, torch.finfo(torch.float64).min)
    assert_matches(call(attention_weights, S, M, what="attention_weights"), ref.attention_weights(S, M), what="A",
                   variants=ref.weights_variants(S, M))


@test_case(points=1, hidden=True)
def test_weights_batched_no_mask(attention_weights, device, rng):
    S = randn((2, 3, 6, 7), rng)
    try:
        got = call(attention_weights, S, None, what="attention_weights")
    except StudentCodeError as e:
        # named only if the same call with a mask of zeros (blocking nothing) runs
        try:
            attention_weights(S, torch.zeros(S.shape[-2:], dtype=S.dtype))
        except StudentCodeError:
            raise e from None
        raise Misconception("crash_on_mask_none", f"your code raised {e.exc_type}: {e.message} with M=None "
                            "(with a mask of zeros it runs)") from None
    S64 = S.double()
    assert_matches(got, ref.attention_weights(S64), what="A (M=None)", dtype=torch.float32,
                   variants=ref.weights_variants(S64))


@test_case(points=1, hidden=True)
def test_weights_float16_stable(attention_weights, device, rng):
    # scores up to ~20: exp overflows float16 unless the row maximum is subtracted first
    S = randn((4, 64), rng, torch.float16, scale=6.0)
    M = torch.zeros(4, 64, dtype=torch.float16)  # nothing blocked: this test is about overflow only
    got = assert_plain_tensor(call(attention_weights, S, M, what="attention_weights"), "A (float16)")
    if got.dtype == torch.float16 and tuple(got.shape) == tuple(S.shape) and not torch.isfinite(got).all():
        raise Misconception("no_max_subtraction", "A contains NaN or inf for large float16 scores: "
                            "subtract each row's maximum before exponentiating")
    assert_matches(got, ref.attention_weights(S.double()), what="A (float16)", dtype=torch.float16,
                   variants=ref.weights_variants(S.double(), M.double()))
