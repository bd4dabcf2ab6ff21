"""Question 5: scaled_dot_product_attention(Q, K, V, mask=None), compared with the reference.

Logic bugs are caught in float32/float64 with the tolerances of DESIGN.md; half precision is checked
for dtype, finiteness and closeness. Every input is drawn from `rng`. Shapes keep d_k, d_v, T_q and
T_k apart wherever they can, so that each wrong scale (sqrt(d_v), sqrt(T)...) can be told apart.
A failed value test names a mistake only when the output matches what that mistake gives on the same
input (the wrong variants of reference.sdpa_from_scratch and hidden/_diagnose.py, where the naming
lives); a crash is named only from what a second call
shows (the same call with a mask that allows everything, with as many queries as keys, or with
contiguous copies of the inputs). The rule tests (source, run-time guard, timing) check their rule
only, and their points are earned once the function gives right values (`earned_with` the basic
value case, test_float32_no_mask): a function that returns zeros keeps every rule and earns nothing.

Inputs include the edge cases real code gets wrong: a zero query and a zero key, duplicated keys,
large scores in float16, rectangular and fully masked shapes, transposed and strided views (`.view`
breaks on them) and expanded, stride-0 inputs (writing into them raises). When a value case fails,
its message also shows the smallest input of the same kind that still fails, with what was expected
and what came back (autograder.grading.shrink); what the failure is named is decided on the original input."""

import importlib.util
from pathlib import Path

import torch
from otter.test_files import test_case

from autograder.grading.checks import assert_function_avoids, earned_with, randn, register_misconceptions
from reference import sdpa_from_scratch as ref

OK_FORMAT = False
name = "q5"
register_misconceptions(__file__)


def _diagnose():
    """hidden/_diagnose.py, beside this file (the hidden folder is no package)."""
    path = Path(__file__).with_name("_diagnose.py")
    spec = importlib.util.spec_from_file_location(f"{__name__}_diagnose", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


diag = _diagnose()

SLOWDOWN_LIMIT = 5.0   # a vectorised solution ~1-2x the yardstick, a loop over rows or batch entries > 15x


# ---------------------------------------------------------------------------------------------
# correctness, float32 / float64
# ---------------------------------------------------------------------------------------------

@test_case(points=1, hidden=True)
def test_float32_no_mask(scaled_dot_product_attention, device, rng):
    Q, K, V = diag.qkv(rng, (3, 7, 16), (3, 9, 16), (3, 9, 10), torch.float32)   # d_k, d_v, T_q, T_k all differ
    Q[0, 2] = 0.0                                   # a zero query: uniform weights over the keys
    diag.check(scaled_dot_product_attention, Q, K, V, None, "the output with mask=None")
    diag.check_mask_left_out(scaled_dot_product_attention, Q, K, V, "the output with mask=None")
    devices = getattr(scaled_dot_product_attention, "last_devices", None) or []
    if any(d != device for d in devices):
        raise AssertionError(f"the inputs were on {device} but the output came back on another device")


@test_case(points=1, hidden=True)
def test_float64_dk12(scaled_dot_product_attention, device, rng):
    # d_k = 12 is not a perfect square: a scale constant rounded to float32 shows in float64
    Q, K, V = diag.qkv(rng, (2, 6, 12), (2, 8, 12), (2, 8, 5), torch.float64)
    mask = diag.random_mask((2, 6, 8), rng)
    diag.check(scaled_dot_product_attention, Q, K, V, mask, "the float64 output (d_k = 12)")


@test_case(points=1, hidden=True)
def test_float32_4d_random_mask(scaled_dot_product_attention, device, rng, stable_softmax=None):
    Q, K, V = diag.qkv(rng, (2, 3, 7, 16), (2, 3, 7, 16), (2, 3, 7, 16), torch.float32)
    mask = diag.random_mask((2, 3, 7, 7), rng)
    diag.check(scaled_dot_product_attention, Q, K, V, mask, "the output for 4-D inputs with a random mask")
    diag.check_per_sequence_mask(scaled_dot_product_attention, Q, K, V, rng)    # round60: (B, 1, T_q, T_k)
    diag.check_one_head(scaled_dot_product_attention, rng, stable_softmax)    # round72: (B, 1, T, d), one head


@test_case(points=1, hidden=True)
def test_mask_2d_broadcast(scaled_dot_product_attention, device, rng):
    Q, K, V = diag.qkv(rng, (2, 3, 6, 16), (2, 3, 9, 16), (2, 3, 9, 16), torch.float32)
    K[:, :, 4] = K[:, :, 1]                         # duplicated keys: tied scores
    mask = diag.random_mask((6, 9), rng)  # one (T_q, T_k) mask shared by every batch entry and head
    diag.check(scaled_dot_product_attention, Q, K, V, mask, "the output with a 2-D mask broadcast over the batch")


@test_case(points=1, hidden=True)
def test_causal_rectangular(scaled_dot_product_attention, device, rng):
    for T_q, T_k in ((5, 11), (9, 4)):
        Q, K, V = diag.qkv(rng, (2, T_q, 16), (2, T_k, 16), (2, T_k, 16), torch.float64)
        diag.check(scaled_dot_product_attention, Q, K, V, ref.causal_mask(T_q, T_k),
                   f"the output with a causal mask, T_q = {T_q}, T_k = {T_k}")


@test_case(points=1, hidden=True)
def test_dv_differs_from_dk(scaled_dot_product_attention, device, rng):
    # padding mask of shape (B, 1, T_k): broadcast over the queries
    Q, K, V = diag.qkv(rng, (3, 4, 20), (3, 10, 20), (3, 10, 7), torch.float64)
    lengths = torch.randint(2, 11, (3,), generator=rng)
    mask = (torch.arange(10) < lengths[:, None])[:, None, :]   # (3, 1, 10)
    diag.check(scaled_dot_product_attention, Q, K, V, mask, "the output with d_v != d_k and a padding mask")


@test_case(points=1, hidden=True)
def test_fully_masked_rows(scaled_dot_product_attention, device, rng):
    Q, K, V = diag.qkv(rng, (2, 6, 16), (2, 8, 16), (2, 8, 10), torch.float32)
    mask = diag.random_mask((2, 6, 8), rng)
    dead = torch.zeros(6, dtype=torch.bool)
    dead[torch.randperm(6, generator=rng)[:2]] = True      # two queries with no allowed key
    mask[:, dead, :] = False
    diag.check_fully_masked(scaled_dot_product_attention, Q, K, V, mask, dead)
    diag.check_all_blocked(scaled_dot_product_attention, Q, K, V, rng)   # round53/64: all blocked; a 2-D mask


@test_case(points=1, hidden=True)
def test_noncontiguous_inputs(scaled_dot_product_attention, device, rng):
    # Q and K as a multi-head split leaves them, (B, T, H, d) memory seen as (B, H, T, d) through
    # .transpose(1, 2); V a strided slice (every other column); the mask a transposed view. Values are
    # ordinary (float32, d_k = 16, d_v = 10, T_q = 6, T_k = 9, a zero key): code that calls .view on
    # an input breaks (.reshape, or .contiguous() first, does not)
    B, H, T_q, T_k, d_k, d_v = 2, 3, 6, 9, 16, 10
    Q = randn((B, T_q, H, d_k), rng).transpose(1, 2)
    K = randn((B, T_k, H, d_k), rng).transpose(1, 2)
    V = randn((B, T_k, H, 2 * d_v), rng).transpose(1, 2)[..., ::2]
    K[:, :, int(torch.randint(0, T_k, (1,), generator=rng))] = 0.0     # a zero key: its score is 0
    mask = diag.random_mask((B, H, T_q, T_k), rng).transpose(-1, -2).contiguous().transpose(-1, -2)
    diag.check(scaled_dot_product_attention, Q, K, V, mask,
               "the output for inputs that are not contiguous (transposed and strided views)")


@test_case(points=1, hidden=True)
def test_broadcast_inputs(scaled_dot_product_attention, device, rng):
    # expanded inputs (stride 0: one memory location for many entries), as broadcasting hands them
    # out: the same queries for every head, K and V shared by every batch entry, one mask for all.
    # Writing into an input (Q /= ..., Q.mul_(...)) raises on them, and so does .view across the
    # expanded dims; d_k = 16, d_v = 6, T_q = 5, T_k = 8, duplicated keys (tied scores)
    B, H, T_q, T_k, d_k, d_v = 3, 2, 5, 8, 16, 6
    Q = randn((B, 1, T_q, d_k), rng).expand(B, H, T_q, d_k)
    k = randn((1, H, T_k, d_k), rng)
    k[:, :, 6] = k[:, :, 2]
    K = k.expand(B, H, T_k, d_k)
    V = randn((1, H, T_k, d_v), rng).expand(B, H, T_k, d_v)
    mask = diag.random_mask((T_q, T_k), rng).expand(B, H, T_q, T_k)
    diag.check(scaled_dot_product_attention, Q, K, V, mask,
               "the output for expanded (broadcast, stride-0) inputs")


# ---------------------------------------------------------------------------------------------
# half precision: dtype, finiteness, closeness
# ---------------------------------------------------------------------------------------------

@test_case(points=1, hidden=True)
def test_float16(scaled_dot_product_attention, device, rng):
    Q, K, V = diag.qkv(rng, (2, 3, 10, 32), (2, 3, 10, 32), (2, 3, 10, 32), torch.float16)
    mask = diag.random_mask((2, 3, 10, 10), rng)
    dead = torch.arange(10) == 3        # a query with no allowed key: zeros in float16 too (a + 1e-13 is 0 there)
    mask[..., dead, :] = False
    diag.check_fully_masked(scaled_dot_product_attention, Q, K, V, mask, dead, "the float16 output")


@test_case(points=1, hidden=True)
def test_bfloat16(scaled_dot_product_attention, device, rng):
    Q, K, V, mask = diag.honest_qkv_mask(rng, (2, 3, 10, 32), (2, 3, 10, 10), torch.bfloat16)   # a fair draw
    diag.check(scaled_dot_product_attention, Q, K, V, mask, "the bfloat16 output")


@test_case(points=1, hidden=True)
def test_float16_large_scores(scaled_dot_product_attention, device, rng):
    # Q, K = 3 * randn with d = 64: scaled scores of size ~10-40, so exp overflows float16
    # unless the max is subtracted first (DESIGN.md: non-finite every time without it).
    Q, K, V = diag.qkv(rng, (2, 128, 64), (2, 128, 64), (2, 128, 64), torch.float16, scale=3.0)
    mask = diag.random_mask((128, 128), rng)   # every query keeps ~64 keys, even with the mask inverted
    diag.check_large_scores(scaled_dot_product_attention, Q, K, V, mask)


# ---------------------------------------------------------------------------------------------
# gradients
# ---------------------------------------------------------------------------------------------

@test_case(points=1, hidden=True)
def test_gradients_float64(scaled_dot_product_attention, device, rng, submission=None):
    # d_v = 10: with d_v = 9, sqrt(d_v) = 3 = int(sqrt(12)) and an integer square root passed for sqrt(d_v)
    Q, K, V = diag.qkv(rng, (2, 5, 12), (2, 7, 12), (2, 7, 10), torch.float64)
    mask = diag.random_mask((2, 5, 7), rng)
    diag.check_gradients(scaled_dot_product_attention, Q, K, V, mask, randn((2, 5, 10), rng, torch.float64),
                         submission)


# ---------------------------------------------------------------------------------------------
# rules: no F.scaled_dot_product_attention, vectorised
# ---------------------------------------------------------------------------------------------

@test_case(points=1, hidden=True)
@earned_with("test_float32_no_mask")
def test_no_torch_sdpa_in_source(scaled_dot_product_attention, submission, rng):
    # the rule only: an answer of the right shape is checked; its values are the tests' above, and
    # the point is earned once the basic value case passes (earned_with)
    # (as many queries as keys: an answer that mixes them up still runs, and that is charged above)
    Q, K, V = diag.qkv(rng, (2, 5, 16), (2, 5, 16), (2, 5, 16), torch.float32)
    diag.attempt(scaled_dot_product_attention, Q, K, V, diag.random_mask((2, 5, 5), rng))
    # second layer behind the sandbox's run-time guard (test_no_torch_sdpa_at_run_time): follows
    # helpers, and fails when the source cannot show what runs
    assert_function_avoids(submission, "scaled_dot_product_attention", "scaled_dot_product_attention",
                           key="forbidden_api", rule="F.scaled_dot_product_attention")


@test_case(points=1, hidden=True)
@earned_with("test_float32_no_mask")
def test_no_torch_sdpa_at_run_time(scaled_dot_product_attention, device, rng):
    # the rule only: the sandbox refuses F.scaled_dot_product_attention while the call runs
    # 3-D inputs and a mask of the scores' full shape: the rule only (4-D inputs and broadcast masks are
    # the value tests' business)
    Q, K, V = diag.qkv(rng, (2, 5, 16), (2, 5, 16), (2, 5, 16), torch.float32)
    diag.attempt(scaled_dot_product_attention, Q, K, V, diag.random_mask((2, 5, 5), rng))


# Timed shapes (float64, so that a solution which upcasts internally is not slower than the yardstick;
# d = 16 and 4 are perfect squares, so a scale constant rounded to float32 is exact). Measured
# in-process, one thread, ratio to the reference (fresh inputs, generation included):
#   (1, 256, 16):    vectorised ~1x, loop over rows/queries ~18x, loop over batch entries ~1x
#   (128, 4, 4):     vectorised ~1x, loop over rows ~1.5x,        loop over batch entries ~21x
#   (64, 2, 4, 4):   vectorised ~1x, loop over dim 0 ~16x, over batch and heads ~25x
# The timed outputs must be the reference's or a known wrong variant's (a value mistake is charged by
# the value tests, not here): anything else cannot vouch for the timing.
# Masks have the scores' full shape (a mask that must broadcast is the value tests' business).
TIMED_CASES = [
    ([((1, 256, 16), "float64")] * 3, {"mask": ref.causal_mask(256).expand(1, 256, 256).contiguous()}),
    ([((128, 4, 4), "float64")] * 3, {"mask": ref.causal_mask(4).expand(128, 4, 4).contiguous()}),
    ([((64, 2, 4, 4), "float64")] * 3, {"mask": ref.causal_mask(4).expand(64, 2, 4, 4).contiguous()}),
]


@test_case(points=1, hidden=True)
@earned_with("test_float32_no_mask")
def test_vectorised(scaled_dot_product_attention, rng):
    # the rule only (vectorised, through the engine's assert_vectorised): every timed call gets inputs the
    # student has never seen, and the timed outputs are checked. A case
    # the function crashes on (4-D inputs with K.transpose(1, 2)) is the value tests' charge: the rule
    # is judged on the cases it runs, and on none only if it runs none
    diag.check_vectorised(scaled_dot_product_attention, TIMED_CASES, rng, SLOWDOWN_LIMIT)


# a mask_fills_zero failure blamed on stable_softmax when a probe shows it turns -inf into 0 (naming14); a crash inside it
for _case in [v for k, v in list(globals().items()) if k.startswith("test_") and hasattr(v, "test_func")]:
    _case.test_func = diag.blames_softmax_for_zero_fill(_case.test_func)
del _case

diag.name_renamed_parameters_in(globals())   # a renamed parameter's TypeError, named in every test
