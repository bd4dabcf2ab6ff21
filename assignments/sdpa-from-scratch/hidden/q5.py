"""Question 5: scaled_dot_product_attention(Q, K, V, mask=None), compared with the reference.

Logic bugs are caught in float32/float64 with the tolerances of DESIGN.md; half precision is checked
for dtype, finiteness and closeness. Every input is drawn from `rng`."""

import torch
from otter.test_files import test_case

from autograder.checks import (Misconception, assert_function_avoids, assert_matches,
                               assert_plain_tensor, assert_vectorised, randn, register)
from autograder.errors import StudentCodeError
from reference import sdpa_from_scratch as ref

OK_FORMAT = False
name = "q5"

register("fully_masked_uniform", "filling masked scores with a large finite number: a query whose keys "
         "are all masked averages V instead of returning zeros")

SLOWDOWN_LIMIT = 5.0   # a vectorised solution ~1-2x the yardstick, a loop over rows or batch entries > 15x


# ---------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------

def _call(fn, *args, crash_key=None, **kwargs):
    """Call the student's function; name the misconception a crash reveals."""
    try:
        return fn(*args, **kwargs)
    except StudentCodeError as e:
        if e.exc_type == "ForbiddenAPIError":
            raise Misconception("forbidden_api", "scaled_dot_product_attention called "
                                "F.scaled_dot_product_attention, which this assignment forbids") from None
        if "overflow" in e.message:
            raise Misconception("neg_1e9_float16", f"your code raised {e.exc_type}: {e.message} "
                                "(float16 cannot hold -1e9: fill masked scores with float('-inf'))") from None
        if crash_key is not None:
            raise Misconception(crash_key, f"your code raised {e.exc_type}: {e.message} "
                                "when called with mask=None") from None
        raise


def _random_mask(shape, rng, p=0.5):
    """Bool mask, True = may attend; every query keeps at least one key and loses at least one."""
    m = torch.rand(shape, generator=rng) < p
    T_q, T_k = shape[-2], shape[-1]
    i = torch.arange(T_q)
    m[..., i, i % T_k] = True
    m[..., i, (i + 1) % T_k] = False
    return m


def _qkv(rng, q_shape, k_shape, v_shape, dtype, scale=1.0):
    return (randn(q_shape, rng, dtype, scale), randn(k_shape, rng, dtype, scale),
            randn(v_shape, rng, dtype))


def _check(fn, Q, K, V, mask, what, **kw):
    got = _call(fn, Q, K, V, mask=mask, **kw)
    assert_matches(got, ref.scaled_dot_product_attention(Q, K, V, mask),
                   variants=ref.wrong_variants(Q, K, V, mask), what=what)
    return got


# ---------------------------------------------------------------------------------------------
# correctness, float32 / float64
# ---------------------------------------------------------------------------------------------

@test_case(points=1, hidden=True)
def test_float32_no_mask(scaled_dot_product_attention, device, rng):
    Q, K, V = _qkv(rng, (3, 7, 16), (3, 9, 16), (3, 9, 16), torch.float32)
    _check(scaled_dot_product_attention, Q, K, V, None, "the output with mask=None",
           crash_key="crash_on_mask_none")
    devices = getattr(scaled_dot_product_attention, "last_devices", None) or []
    if any(d != device for d in devices):
        raise AssertionError(f"the inputs were on {device} but the output came back on another device")


@test_case(points=1, hidden=True)
def test_float64_dk12(scaled_dot_product_attention, device, rng):
    # d_k = 12 is not a perfect square: a scale constant rounded to float32 shows in float64
    Q, K, V = _qkv(rng, (2, 6, 12), (2, 8, 12), (2, 8, 5), torch.float64)
    mask = _random_mask((2, 6, 8), rng)
    _check(scaled_dot_product_attention, Q, K, V, mask, "the float64 output (d_k = 12)")


@test_case(points=1, hidden=True)
def test_float32_4d_random_mask(scaled_dot_product_attention, device, rng):
    Q, K, V = _qkv(rng, (2, 3, 7, 16), (2, 3, 7, 16), (2, 3, 7, 16), torch.float32)
    mask = _random_mask((2, 3, 7, 7), rng)
    _check(scaled_dot_product_attention, Q, K, V, mask, "the output for 4-D inputs with a random mask")


@test_case(points=1, hidden=True)
def test_mask_2d_broadcast(scaled_dot_product_attention, device, rng):
    Q, K, V = _qkv(rng, (2, 3, 6, 16), (2, 3, 9, 16), (2, 3, 9, 16), torch.float32)
    mask = _random_mask((6, 9), rng)  # one (T_q, T_k) mask shared by every batch entry and head
    _check(scaled_dot_product_attention, Q, K, V, mask, "the output with a 2-D mask broadcast over the batch")


@test_case(points=1, hidden=True)
def test_causal_rectangular(scaled_dot_product_attention, device, rng):
    for T_q, T_k in ((5, 11), (9, 4)):
        Q, K, V = _qkv(rng, (2, T_q, 16), (2, T_k, 16), (2, T_k, 16), torch.float64)
        _check(scaled_dot_product_attention, Q, K, V, ref.causal_mask(T_q, T_k),
               f"the output with a causal mask, T_q = {T_q}, T_k = {T_k}")


@test_case(points=1, hidden=True)
def test_dv_differs_from_dk(scaled_dot_product_attention, device, rng):
    # padding mask of shape (B, 1, T_k): broadcast over the queries
    Q, K, V = _qkv(rng, (3, 4, 20), (3, 10, 20), (3, 10, 7), torch.float64)
    lengths = torch.randint(2, 11, (3,), generator=rng)
    mask = (torch.arange(10) < lengths[:, None])[:, None, :]   # (3, 1, 10)
    _check(scaled_dot_product_attention, Q, K, V, mask, "the output with d_v != d_k and a padding mask")


@test_case(points=1, hidden=True)
def test_fully_masked_rows(scaled_dot_product_attention, device, rng):
    Q, K, V = _qkv(rng, (2, 6, 16), (2, 8, 16), (2, 8, 10), torch.float32)
    mask = _random_mask((2, 6, 8), rng)
    dead = torch.zeros(6, dtype=torch.bool)
    dead[torch.randperm(6, generator=rng)[:2]] = True      # two queries with no allowed key
    mask[:, dead, :] = False
    got = assert_plain_tensor(_call(scaled_dot_product_attention, Q, K, V, mask=mask), "the output")
    if tuple(got.shape) == (2, 6, 10) and torch.isnan(got[:, dead]).any():
        raise Misconception("fully_masked_nan", "a query whose keys are all masked got NaN; "
                            "it should get a row of zeros")
    assert_matches(got, ref.scaled_dot_product_attention(Q, K, V, mask),
                   variants=ref.wrong_variants(Q, K, V, mask), what="the output with fully masked queries")


# ---------------------------------------------------------------------------------------------
# half precision: dtype, finiteness, closeness
# ---------------------------------------------------------------------------------------------

@test_case(points=1, hidden=True)
def test_float16(scaled_dot_product_attention, device, rng):
    Q, K, V = _qkv(rng, (2, 3, 10, 32), (2, 3, 10, 32), (2, 3, 10, 32), torch.float16)
    mask = _random_mask((2, 3, 10, 10), rng)
    _check(scaled_dot_product_attention, Q, K, V, mask, "the float16 output")


@test_case(points=1, hidden=True)
def test_bfloat16(scaled_dot_product_attention, device, rng):
    Q, K, V = _qkv(rng, (2, 3, 10, 32), (2, 3, 10, 32), (2, 3, 10, 32), torch.bfloat16)
    mask = _random_mask((2, 3, 10, 10), rng)
    _check(scaled_dot_product_attention, Q, K, V, mask, "the bfloat16 output")


@test_case(points=1, hidden=True)
def test_float16_large_scores(scaled_dot_product_attention, device, rng):
    # Q, K = 3 * randn with d = 64: scaled scores of size ~10-40, so exp overflows float16
    # unless the max is subtracted first (DESIGN.md: non-finite every time without it).
    Q, K, V = _qkv(rng, (2, 128, 64), (2, 128, 64), (2, 128, 64), torch.float16, scale=3.0)
    mask = _random_mask((128, 128), rng)   # every query keeps ~64 keys, even with the mask inverted
    got = assert_plain_tensor(_call(scaled_dot_product_attention, Q, K, V, mask=mask), "the output")
    if got.dtype != torch.float16:
        raise AssertionError(f"the output has dtype {got.dtype}, expected torch.float16 (the input's dtype)")
    if tuple(got.shape) != tuple(Q.shape):
        raise AssertionError(f"the output has shape {tuple(got.shape)}, expected {tuple(Q.shape)}")
    if not torch.isfinite(got).all():
        raise Misconception("no_max_subtraction", "float16 inputs with large scores gave inf or NaN: "
                            "subtract each row's max before exp")
    expected = ref.scaled_dot_product_attention(Q, K, V, mask).to(torch.float64)
    diff = (got.to(torch.float64) - expected).abs()
    # near one-hot weights amplify float16 rounding of the scores; a correct half-precision
    # solution stays below ~0.02 (max) and ~1e-3 (mean)
    if diff.max() > 0.25 or diff.mean() > 0.01:
        raise AssertionError("the float16 output with large scores does not match the correct result")


# ---------------------------------------------------------------------------------------------
# gradients
# ---------------------------------------------------------------------------------------------

@test_case(points=1, hidden=True)
def test_gradients_float64(scaled_dot_product_attention, device, rng):
    Q, K, V = _qkv(rng, (2, 5, 12), (2, 7, 12), (2, 7, 9), torch.float64)
    mask = _random_mask((2, 5, 7), rng)
    G = randn((2, 5, 9), rng, torch.float64)
    reply = _call(scaled_dot_product_attention.call_with_grad, Q, K, V, mask,
                  grad_wrt=(0, 1, 2), grad_output=G)
    out, grads = reply
    assert_matches(out, ref.scaled_dot_product_attention(Q, K, V, mask),
                   variants=ref.wrong_variants(Q, K, V, mask), what="the output")
    leaves = [t.clone().requires_grad_(True) for t in (Q, K, V)]
    expected = torch.autograd.grad(ref.scaled_dot_product_attention(*leaves, mask), leaves, G)
    for label, g, e in zip(("Q", "K", "V"), grads, expected):
        if g is None:
            raise AssertionError(f"no gradient reached {label}: keep the computation in torch "
                                 "(no .detach(), .item() or NumPy)")
        assert_matches(g, e, what=f"the gradient with respect to {label}")


# ---------------------------------------------------------------------------------------------
# rules: no F.scaled_dot_product_attention, vectorised
# ---------------------------------------------------------------------------------------------

@test_case(points=1, hidden=True)
def test_no_torch_sdpa_in_source(scaled_dot_product_attention, submission, rng):
    Q, K, V = _qkv(rng, (2, 4, 16), (2, 6, 16), (2, 6, 16), torch.float32)
    mask = _random_mask((2, 4, 6), rng)
    _check(scaled_dot_product_attention, Q, K, V, mask, "the output")
    # second layer behind the sandbox's run-time guard (test_no_torch_sdpa_at_run_time): follows
    # helpers, and fails when the source cannot show what runs
    assert_function_avoids(submission, "scaled_dot_product_attention", "scaled_dot_product_attention",
                           key="forbidden_api", rule="F.scaled_dot_product_attention")


@test_case(points=1, hidden=True)
def test_no_torch_sdpa_at_run_time(scaled_dot_product_attention, device, rng):
    Q, K, V = _qkv(rng, (2, 2, 5, 16), (2, 2, 6, 16), (2, 2, 6, 16), torch.float32)
    mask = _random_mask((5, 6), rng)
    _check(scaled_dot_product_attention, Q, K, V, mask, "the output")


# Timed shapes (float64, so that a solution which upcasts internally is not slower than the yardstick;
# d = 16 and 4 are perfect squares, so a scale constant rounded to float32 is exact and not charged
# here). Measured in-process, one thread, ratio to the reference (fresh inputs, generation included):
#   (1, 256, 16):    vectorised ~1x, loop over rows/queries ~18x, loop over batch entries ~1x
#   (128, 4, 4):     vectorised ~1x, loop over rows ~1.5x,        loop over batch entries ~21x
#   (64, 2, 4, 4):   vectorised ~1x, loop over dim 0 ~16x, over batch and heads ~25x
TIMED_CASES = [
    ([((1, 256, 16), "float64")] * 3, {"mask": ref.causal_mask(256)}),
    ([((128, 4, 4), "float64")] * 3, {"mask": ref.causal_mask(4)}),
    ([((64, 2, 4, 4), "float64")] * 3, {"mask": ref.causal_mask(4)}),
]


@test_case(points=1, hidden=True)
def test_vectorised(scaled_dot_product_attention, rng):
    # every timed call gets inputs the student has never seen, and the timed outputs are checked
    _call(assert_vectorised, scaled_dot_product_attention, ref.scaled_dot_product_attention, TIMED_CASES,
          rng=rng, limit=SLOWDOWN_LIMIT, what="scaled_dot_product_attention",
          advice="replace Python loops over rows, queries or batch entries by batched tensor operations")
