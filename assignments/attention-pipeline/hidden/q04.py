"""causal_additive_mask: 0 where key <= query, torch.finfo(dtype).min above the diagonal."""
import torch
from otter.test_files import test_case

from autograder.grading.checks import (
    Misconception,
    assert_plain_tensor,
    raise_if_other_container,
    call,
    describe,
    register_misconceptions,
)
from autograder.errors import StudentCodeError
from reference import attention_pipeline as ref

OK_FORMAT = False
name = "q04"
register_misconceptions(__file__)


def _load_diagnose():
    """hidden/_diagnose.py, the assignment's diagnoses beside this file (the folder is no package)."""
    import importlib.util
    from pathlib import Path
    spec = importlib.util.spec_from_file_location(f"_{name}_diagnose", Path(__file__).with_name("_diagnose.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


D = _load_diagnose()


def _get(fn, T, dtype, submission=None):
    try:
        got = call(fn, T, dtype, what="causal_additive_mask")
        raise_if_other_container(got, ref.causal_additive_mask(T, dtype), "the mask", dtype, reduced=False)
        M = assert_plain_tensor(got, "the mask")
    except StudentCodeError as e:
        # the crash says it: masked_fill (or torch.where) was handed a 0/1 pattern of numbers, not torch.bool
        if any(m in e.message for m in ("only supports boolean masks", "expected condition to be a boolean")):
            raise Misconception("fill_mask_not_bool", f"your code raised {e.exc_type}: {e.message}: "
                                + describe("fill_mask_not_bool")) from None
        # torch.where(cond, torch.finfo(torch.float64).min, 0.0) builds float32 from Python numbers
        if dtype == torch.float64 and "to type float without overflow" in e.message and _float32_right(fn, T):
            raise Misconception("mask_built_in_float32", f"your code raised {e.exc_type}: {e.message} for "
                                "dtype=torch.float64, and its float32 mask is right: "
                                + describe("mask_built_in_float32")) from None
        raise
    _raise_if_pattern(M, T, dtype)
    D.raise_if_int_pattern_inverted(M, T, dtype, submission)   # ~ on a long 0/1 triangle (blind79)
    if M.dtype != dtype:
        D.raise_if_mask_cached(fn, M, T, dtype)
        D.raise_if_half_mask_promoted(fn, M, T, dtype)   # 16-bit asked, float32 built with float32's own min (blind88)
        if M.dtype == torch.float32 and _float32_right(fn, T):
            # a NaN/-inf mask here is float64's minimum overflowing float32 (then 0 * -inf), not an -inf constant:
            # the float32 mask of the same code is right (naming9: blind8's q04_min_times_float32_ones)
            broke = "; in float32 float64's minimum overflows to -inf, and 0 * -inf is NaN" if bool(
                (~torch.isfinite(M)).any()) else ""
            raise Misconception("mask_built_in_float32", f"the mask asked for in {dtype} comes back as float32 "
                                f"(and the float32 mask is right{broke}): " + describe("mask_built_in_float32"))
        if M.is_floating_point() and bool(torch.isnan(M).any()):
            # NaN in another dtype than asked: named as -inf times the pattern only where the mask asked for
            # in its own dtype (where no overflow can come from a dtype change) is that NaN pattern too
            try:
                again = fn(T, M.dtype)
            except StudentCodeError:
                again = None
            if type(again) is torch.Tensor and again.dtype == M.dtype:
                _raise_if_pattern(again, T, M.dtype)
        _raise_if_dtype_ignored(fn, M, T, dtype)
        raise AssertionError(f"the mask has dtype {M.dtype}; it should have the requested dtype {dtype}")
    if tuple(M.shape) != (T, T):
        raise AssertionError(f"the mask has shape {tuple(M.shape)}, expected ({T}, {T})")
    return M


def _raise_if_dtype_ignored(fn, M, T, dtype):
    """A mask in another float dtype than asked whose values cast to the asked dtype are the right mask,
    or which is right when that other dtype is asked for: the tensor is built in one fixed dtype."""
    if not M.is_floating_point() or tuple(M.shape) != (T, T):
        return
    if torch.equal(M.to(dtype), ref.causal_additive_mask(T, dtype)):
        how = f"its values cast to {dtype} are the right mask"
    else:
        try:
            again = fn(T, M.dtype)
        except StudentCodeError:
            return
        if not (type(again) is torch.Tensor and again.dtype == M.dtype
                and torch.equal(again, ref.causal_additive_mask(T, M.dtype))):
            return
        how = f"asked for in {M.dtype} it is right"
    raise Misconception("mask_dtype_ignored", f"the mask asked for in {dtype} comes back as {M.dtype}, and {how}: "
                        + describe("mask_dtype_ignored"))


def _raise_if_pattern(M, T, dtype):
    """A 0/1 (or boolean) pattern of the blocked keys, or of the open ones, in place of an additive mask;
    or that pattern times -inf (NaN wherever 0 * -inf), named only on a mask in the asked dtype: a float32
    mask for float64 turns finfo(float64).min itself into -inf (the same NaN, another cause; _get names it)."""
    if type(M) is not torch.Tensor or tuple(M.shape) != (T, T):
        return
    future = torch.ones(T, T, dtype=torch.bool).triu(1)
    values = M.to(torch.float64)
    if T > 1 and bool((values == 1).all()):     # the blocked value written into a True/False tensor: True (blind27)
        raise Misconception("mask_not_additive", "the mask is 1 everywhere, as a value written into a True/False "
                            "tensor comes back (fill_ or masked_fill on a bool mask, then cast): "
                            + describe("mask_not_additive"))
    for pattern in (future, ~future):
        if torch.equal(values, pattern.to(torch.float64)):
            raise Misconception("mask_not_additive", f"the mask is {'True/False' if M.dtype == torch.bool else '0/1'} "
                                f"({'1 on the blocked keys' if pattern is future else '1 on the open keys'}): "
                                + describe("mask_not_additive"))
        nan = torch.isnan(values)
        if M.dtype == dtype and torch.equal(nan, ~pattern) and bool((values[pattern] == float("-inf")).all()):
            raise Misconception("mask_nan_from_inf", "the mask is NaN on every open entry and -inf on the blocked "
                                "ones: " + describe("mask_nan_from_inf"))


def _float32_right(fn, T) -> bool:
    """Whether the student's float32 mask is exactly the right one (a second call)."""
    try:
        M = fn(T, torch.float32)
    except StudentCodeError:
        return False
    return type(M) is torch.Tensor and M.dtype == torch.float32 and torch.equal(M, ref.causal_additive_mask(T))


def _check_pattern(M, T, fn=None):
    blocked = M != 0
    if torch.equal(blocked, torch.ones(T, T, dtype=torch.bool).triu(1)):
        if not (M[blocked] < 0).all():
            D.raise_if_blocked_value(M[blocked], M.dtype)
            raise AssertionError("blocked entries of an additive mask must be very negative")
        return
    if not bool(blocked.any()):   # all zeros: M.masked_fill(...) whose result is dropped, a fill never made
        raise Misconception("mask_blocks_nothing", "the mask is all zeros, so no key is blocked: "
                            + describe("mask_blocks_nothing"))
    for key, wrong in ref.mask_variants(T, torch.float64).items():
        if torch.equal(blocked, wrong != 0):
            raise Misconception(key, f"the mask blocks the wrong entries: it matches {describe(key)}")
    for key, wrong in D.mask_patterns(T).items():   # tril itself filled (the == 0 left out): only the future open
        if torch.equal(blocked, wrong):
            key = key.split("/")[0]
            raise Misconception(key, "the mask blocks the diagonal and every earlier key and leaves only the later "
                                "ones open, the causal pattern inverted (the lower triangle filled where tril == 0 "
                                f"is asked): it matches {describe(key)}")
    if fn is not None:   # every entry blocked, the 1 x 1 mask 0: the triu_indices pair used as one index
        D.raise_if_index_tensor_as_one_index(fn, M, T)
        D.raise_if_full_mask_left_whole(fn, M, T)   # blocked at T = 1 too: a triu(1) whose result is dropped
    D.raise_if_integer_triangle_index(blocked, T)
    D.raise_if_last_key_open(blocked, T)
    D.raise_if_only_next_key_blocked(blocked, T)   # M[idx, idx + 1]: the first superdiagonal alone (blind64)
    D.raise_if_mask_rows_aliased(blocked, T)   # [[0.0] * T] * T: one row list T times (naming round 69)
    words = D.pattern_differs(blocked, torch.ones(T, T, dtype=torch.bool).triu(1), M)
    lead = "blocks the wrong entries" if " must stay open" in words or " must be blocked" in words else "is wrong"
    raise AssertionError(f"the mask {lead}: exactly the keys after each query "
                         "(strictly above the diagonal) should be blocked, and every other entry 0; " + words)


@test_case(points=1, hidden=True)
def test_mask_pattern(causal_additive_mask, device, rng, submission=None):
    T = int(torch.randint(5, 10, (1,), generator=rng))
    D.raise_if_mask_not_regrown(causal_additive_mask, T, T + 40)   # a mask cached at T only sliced after (blind63)
    for dtype in (torch.float32, torch.float64):
        _check_pattern(_get(causal_additive_mask, T, dtype, submission), T, causal_additive_mask)
    D.check_one_token_mask(causal_additive_mask, torch.float64)   # one token: [[0]] in the dtype asked (blind66)
    # the mask is built where it is asked (run once per device: on a GPU a mask left on the CPU fails here,
    # and the runner names gpu_only_failure, the CPU run having passed)
    call(causal_additive_mask, T, torch.float32, device=device, what="causal_additive_mask")
    on = getattr(causal_additive_mask, "last_devices", None) or []
    if any(d != device for d in on):
        raise AssertionError(f"causal_additive_mask(T, dtype, device={device!r}) returned a mask on {on[0]}: "
                             "create it with device=device")


@test_case(points=1, hidden=True)
def test_mask_value_is_dtype_min(causal_additive_mask, rng, submission=None):
    T = int(torch.randint(5, 10, (1,), generator=rng))
    for dtype in (torch.float32, torch.float64):
        M = _get(causal_additive_mask, T, dtype, submission)
        _check_pattern(M, T, causal_additive_mask)
        vals = M[torch.ones(T, T, dtype=torch.bool).triu(1)]
        if torch.isinf(vals).any():
            raise Misconception("infinite_mask", f"blocked entries are infinite: {describe('infinite_mask')}")
        if (vals == -1e9).all():   # neg_1e9_float16, or a -1e9 floor whose float16 mask is right (blind73)
            raise D.minus_1e9_mask(causal_additive_mask, T, dtype, submission)
        if not (vals == torch.finfo(dtype).min).all():
            raise Misconception("mask_not_dtype_min", f"blocked entries in {dtype} are not "
                                                      "torch.finfo(dtype).min" + D.other_dtype_min_said(vals, dtype))


@test_case(points=1, hidden=True)
def test_mask_float16_finite(causal_additive_mask, rng, submission=None):
    T = int(torch.randint(5, 10, (1,), generator=rng))
    try:
        M = _get(causal_additive_mask, T, torch.float16, submission)
    except StudentCodeError as e:
        # torch refuses to write a constant float16 cannot hold ("cannot be converted ... overflow"):
        # the float32 mask of the same code shows which constant it is
        M32 = assert_plain_tensor(call(causal_additive_mask, T, torch.float32, what="causal_additive_mask"),
                                  "the float32 mask")
        blocked = M32[torch.ones(T, T, dtype=torch.bool).triu(1)]
        if bool((blocked == -1e9).all()):
            raise Misconception("neg_1e9_float16", f"{e}: -1e9 does not fit in float16; use torch.finfo(dtype).min"
                                + D.shadowed_def_said(submission, "causal_additive_mask")) from None
        if "overflow" in str(e):
            raise Misconception("mask_not_dtype_min", f"{e}: the constant your float32 mask uses "
                                f"({float(blocked.min()):.3g}) does not fit in float16; use "
                                "torch.finfo(dtype).min") from None
        raise
    if not torch.isfinite(M).all():
        M32 = assert_plain_tensor(call(causal_additive_mask, T, torch.float32, what="causal_additive_mask"),
                                  "the float32 mask")
        if torch.isfinite(M32).all():
            key = "neg_1e9_float16" if bool((M32[M32 != 0] == -1e9).all()) else "mask_not_dtype_min"
            raise Misconception(key, "the float16 mask contains -inf although the float32 one is finite: its constant "
                                "overflows float16; use torch.finfo(dtype).min" + (D.shadowed_def_said(
                                    submission, "causal_additive_mask") if key == "neg_1e9_float16" else ""))
        raise Misconception("infinite_mask", "the float16 mask is not finite: " + describe("infinite_mask"))
    _check_pattern(M, T, causal_additive_mask)
    if not (M[M != 0] <= -1e4).all():
        D.raise_if_blocked_value(M[M != 0], M.dtype)
        raise AssertionError("blocked float16 entries are not negative enough to vanish after the softmax")
