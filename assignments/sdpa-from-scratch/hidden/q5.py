"""Question 5: scaled_dot_product_attention(Q, K, V, mask=None), compared with the reference.

Logic bugs are caught in float32/float64 with the tolerances of DESIGN.md; half precision is checked
for dtype, finiteness and closeness. Every input is drawn from `rng`. Shapes keep d_k, d_v, T_q and
T_k apart wherever they can, so that each wrong scale (sqrt(d_v), sqrt(T)...) can be told apart.
A failed value test names a mistake only when the output matches what that mistake gives on the same
input (reference.sdpa_from_scratch.wrong_variants); a crash is named only from what a second call
shows (the same call with a mask that allows everything, with as many queries as keys, or with
contiguous copies of the inputs). The rule tests (source, run-time guard, timing) check their rule
only, and their points are earned once the function gives right values (`earned_with` the basic
value case, test_float32_no_mask): a function that returns zeros keeps every rule and earns nothing.

Inputs include the edge cases real code gets wrong: a zero query and a zero key, duplicated keys,
large scores in float16, rectangular and fully masked shapes, transposed and strided views (`.view`
breaks on them) and expanded, stride-0 inputs (writing into them raises). When a value case fails,
its message also shows the smallest input of the same kind that still fails, with what was expected
and what came back (autograder.grading.shrink); what the failure is named is decided on the original input."""

import torch
from otter.test_files import test_case

from autograder.grading.checks import (
    Misconception,
    assert_function_avoids,
    assert_matches,
    assert_vectorised,
    call,
    describe,
    earned_with,
    layout_crash,
    matching_variants,
    name_from_rerun,
    nearest_variant,
    raise_if_nondeterministic,
    randn,
    register_misconceptions,
)
from autograder.errors import StudentCodeError
from autograder.grading.shrink import AttentionInput, Failure, matches, with_smallest
from reference import sdpa_from_scratch as ref

OK_FORMAT = False
name = "q5"
register_misconceptions(__file__)

SLOWDOWN_LIMIT = 5.0   # a vectorised solution ~1-2x the yardstick, a loop over rows or batch entries > 15x
FN = "scaled_dot_product_attention"


# ---------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------

def _second_call(fn, *args, **kwargs):
    try:
        return fn(*args, **kwargs)
    except StudentCodeError:
        return None


def _plain_inputs_call(fn, Q, K, V, mask):
    """The same call on contiguous copies of the inputs, without gradients (raises StudentCodeError)."""
    plain = [None if t is None else t.detach().contiguous() for t in (Q, K, V, mask)]
    return lambda: fn(*plain[:3], mask=plain[3])


def _name_crash(fn, Q, K, V, mask, e):
    """A crash is named only from what a second call shows; otherwise it is reported as it is."""
    said = f"your code raised {e.exc_type}: {e.message}"
    plain_call = _plain_inputs_call(fn, Q, K, V, mask)
    if e.message.startswith("expected a tensor"):
        # the gradient call needs one tensor back: what the plain call returns says what it is (a tuple)
        plain = _second_call(plain_call)
        if plain is not None:
            _judge(fn, Q, K, V, mask, plain, "the output")
    if ("in-place operation" in e.message or "inplace operation" in e.message) \
            and _second_call(plain_call) is not None:
        # a leaf that needs gradients was written into (the gradient test's inputs)
        raise Misconception("inplace_on_input", f"{said}: without gradients it runs: do not write into "
                            "an input")
    layout = layout_crash(e, {"Q": Q, "K": K, "V": V, "mask": mask}, plain_call)
    if layout is not None:
        raise layout
    half = str(Q.dtype).replace("torch.", "")
    if "overflow" in e.message and Q.dtype in (torch.float16, torch.bfloat16):
        # which constant? in float32, a blocked key filled with -1e9 outweighs an allowed key whose
        # score is -4e9 (reference.FILL_PROBE); -inf, the dtype's min or float32's min do not
        out = _second_call(fn, *ref.FILL_PROBE[:3], mask=ref.FILL_PROBE[3])
        if type(out) is torch.Tensor and tuple(out.shape) == (1, 1) and abs(float(out)) < 0.5:
            raise Misconception("neg_1e9_float16", f"{said}: {half} cannot hold the -1e9 your code fills "
                                "masked scores with (use float('-inf'))")
        raise Misconception("fill_overflows_half", f"{said}: the constant your code fills masked scores "
                            f"with does not fit in {half} (use float('-inf') or torch.finfo(scores.dtype).min)")
    T_q, T_k = Q.shape[-2], K.shape[-2]
    if mask is None and _second_call(fn, Q, K, V, mask=torch.ones(T_q, T_k, dtype=torch.bool)) is not None:
        raise Misconception("crash_on_mask_none", f"{said} when called with mask=None (with a mask "
                            "that allows every key it runs)")
    # each second call below changes one thing; it names a mistake only if it then runs and is right
    # (the crash is that mistake) or matches a catalogued mistake and not the right result
    lead = torch.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    full = (torch.broadcast_shapes(tuple(lead) + (T_q, T_k), mask.shape) if mask is not None
            else tuple(lead) + (T_q, T_k))
    if mask is not None and tuple(mask.shape) != tuple(full):
        whole = mask.expand(full).contiguous()
        if _right(_second_call(fn, Q, K, V, mask=whole), Q, K, V, whole):
            raise Misconception("mask_not_broadcast", f"{said}, with a mask of shape {tuple(mask.shape)} for "
                                f"scores of shape {tuple(full)}; with the mask expanded to the scores' shape it "
                                "runs and is right: the mask must broadcast (masked_fill or torch.where do)")
    if len(full) > 3:
        flat = [t.reshape(-1, *t.shape[-2:]) for t in (Q.expand(*lead, *Q.shape[-2:]), K.expand(*lead, *K.shape[-2:]),
                                                       V.expand(*lead, *V.shape[-2:]))]
        m3 = None if mask is None else mask.expand(full).reshape(-1, T_q, T_k)
        if _right(_second_call(fn, *flat, mask=m3), *flat, m3):
            raise Misconception("fixed_axes", f"{said} on {len(full)}-D inputs; the same values with the batch and "
                                "head dims flattened into one (3-D inputs) run and give the right result: "
                                "use negative axes (K.transpose(-2, -1)), not K.transpose(1, 2) or K.T")
    _name_from_a_slice(fn, Q, K, V, mask, said)
    if T_q != T_k:
        T = min(T_q, T_k)   # the same inputs cut to T queries and T keys
        Qs, Ks, Vs = Q[..., :T, :], K[..., :T, :], V[..., :T, :]
        ms = None if mask is None else mask[..., : min(T, mask.shape[-2]), :T]
        out = _second_call(fn, Qs, Ks, Vs, mask=ms)
        if type(out) is torch.Tensor:
            key = name_from_rerun(out, ref.scaled_dot_product_attention(Qs, Ks, Vs, ms),
                                  ref.wrong_variants(Qs, Ks, Vs, ms), Q.dtype)
            if key is not None:
                raise Misconception(key, f"{said}, with T_q = {T_q} queries and T_k = {T_k} keys; with as "
                                    f"many queries as keys it runs and matches {describe(key)}")
            raise AssertionError(f"{said}, with T_q = {T_q} queries and T_k = {T_k} keys (with as many "
                                 "queries as keys it runs): the scores are (..., T_q, T_k)")


def _name_from_a_slice(fn, Q, K, V, mask, said):
    """fixed_axes when one 2-D slice of the same values (the first batch entry and head) runs and gives
    the right result while the batched call crashed or came back wrong (`said`): .T reverses every axis
    of a batched tensor, transpose(1, 2) picks the wrong ones."""
    lead = torch.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    if len(lead) == 0:
        return
    first = (0,) * len(lead)
    Q2, K2, V2 = (t.expand(*lead, *t.shape[-2:])[first] for t in (Q, K, V))
    m2 = None if mask is None else mask.expand(*lead, Q.shape[-2], K.shape[-2])[first]
    if _right(_second_call(fn, Q2, K2, V2, mask=m2), Q2, K2, V2, m2):
        raise Misconception("fixed_axes", f"{said} on {len(lead) + 2}-D inputs; one 2-D slice of the same values "
                            "runs and gives the right result: K.T or a fixed axis reverses or picks the wrong dims "
                            "of batched inputs; use K.transpose(-2, -1)")


def _right(out, Q, K, V, mask):
    """Whether a second call's output is the right result for its inputs (half precision: as near as
    a correct half-precision solution gets, `_near`)."""
    if type(out) is not torch.Tensor or out.dtype != Q.dtype:
        return False
    expected = ref.scaled_dot_product_attention(Q, K, V, mask)
    if Q.dtype in (torch.float16, torch.bfloat16):
        return out.shape == expected.shape and bool(torch.isfinite(out).all()) and _near(out, expected)
    return bool(matching_variants(out, {"right": expected}, Q.dtype))


def _softmax_shift(fn):
    """What the student's softmax subtracts before exp, from which rows of reference.SOFTMAX_PROBE come
    out non-finite: a key of SOFTMAX_PROBE_PATTERNS, "" when both rows are finite (each row's max),
    None when the probe cannot tell (a crash, a wrong shape)."""
    out = _second_call(fn, *ref.SOFTMAX_PROBE_QKV, mask=None)
    if type(out) is not torch.Tensor or tuple(out.shape) != (2, 3):
        return None
    pattern = tuple(bool((~torch.isfinite(out[i])).any()) for i in range(2))
    return ref.SOFTMAX_PROBE_PATTERNS.get(pattern, "")


def _confirm_pos_inf_fill(fn, named):
    """NaN on every row with a blocked key is +inf filling only if the softmax itself is sound: a softmax
    that subtracts the row's minimum gives the same NaN (-inf - (-inf)). Raises what it finds."""
    shift = _softmax_shift(fn)
    if shift == "":
        raise named
    if shift:
        raise Misconception(shift, f"the output is NaN on every row with a blocked key, and a second call with "
                            f"large scores and no mask gives inf or NaN too: it matches {describe(shift)}")
    raise AssertionError("the output is NaN on every row with a blocked key: look at how the masked scores "
                         "are filled and at what the softmax subtracts before exp")


def _smallest(failure, fn, Q, K, V, mask, first, close=matches):
    """`failure` with the smallest input of this kind that still fails the same way added to its
    message (a bounded search, at most 30 more calls: autograder.grading.shrink). It never changes the outcome."""
    return with_smallest(failure, fn, AttentionInput(Q, K, V, mask), first,
                         reference=ref.scaled_dot_product_attention, close=close, what=FN)


def _call(fn, Q, K, V, mask, shrink=True, check_inputs=True):
    """The student's output; a crash says what it reveals (and, with `shrink`, shows the smallest
    input that crashes the same way). A call that writes into an input names inplace_on_input."""
    try:
        return call(fn, Q, K, V, mask=mask, what=FN, check_inputs=check_inputs)
    except StudentCodeError as e:
        try:
            _name_crash(fn, Q, K, V, mask, e)
            failure = e
        except AssertionError as named:
            failure = named
        if shrink:
            failure = _smallest(failure, fn, Q, K, V, mask, Failure.crash(e))
        raise failure from None


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


def _name_nan(fn, Q, K, V, mask, got, what):
    """NaN where the correct output is finite, with a mask: the same call with a mask that allows
    every key shows whether the NaN comes from the masking, or which mistake it is."""
    T_q, T_k = Q.shape[-2], K.shape[-2]
    again = _second_call(fn, Q, K, V, mask=torch.ones(T_q, T_k, dtype=torch.bool))
    if type(again) is not torch.Tensor or again.shape != got.shape or not torch.isfinite(again).all():
        return
    if matching_variants(again, {"correct": ref.scaled_dot_product_attention(Q, K, V)}, Q.dtype):
        if torch.equal(torch.isnan(got), torch.isnan(ref.sdpa_pos_inf_fill(Q, K, V, mask))):
            _confirm_pos_inf_fill(fn, Misconception("pos_inf_fill", f"{what} is NaN on every row with a blocked "
                                  "key (and right with a mask that allows every key): it matches "
                                  + describe("pos_inf_fill")))
        raise AssertionError(f"{what} contains NaN or inf where the correct result is finite, only when some "
                             "keys are masked (with a mask that allows every key it is right): look at how "
                             "the masked scores are filled and at queries with few keys")
    hits = {k.split("/")[0] for k in matching_variants(again, ref.wrong_variants(Q, K, V), Q.dtype)}
    if len(hits) == 1:
        key = hits.pop()
        raise Misconception(key, f"{what} contains NaN or inf where the correct result is finite; with a mask "
                                 f"that allows every key it matches {describe(key)}")


def _check(fn, Q, K, V, mask, what):
    got = _call(fn, Q, K, V, mask)
    try:
        return _judge(fn, Q, K, V, mask, got, what)
    except AssertionError as failure:
        expected = ref.scaled_dot_product_attention(Q, K, V, mask)
        raise _smallest(failure, fn, Q, K, V, mask, Failure.value(expected, got)) from None


def _judge(fn, Q, K, V, mask, got, what):
    """The student's output `got` for these inputs against the reference, naming what it matches."""
    expected = ref.scaled_dot_product_attention(Q, K, V, mask)
    try:
        assert_matches(got, expected, variants=ref.wrong_variants(Q, K, V, mask), what=what)
    except Misconception as named:
        if named.key == "pos_inf_fill":
            _confirm_pos_inf_fill(fn, named)
        raise
    except AssertionError:
        if (mask is not None and type(got) is torch.Tensor and got.shape == expected.shape
                and got.dtype == expected.dtype and not torch.isfinite(got).all()):
            _name_nan(fn, Q, K, V, mask, got, what)
        if type(got) is torch.Tensor:
            if got.shape != expected.shape:
                _name_from_a_slice(fn, Q, K, V, mask, f"{what} has shape {tuple(got.shape)}")
            raise_if_nondeterministic(fn, (Q, K, V), {"mask": mask}, got, FN)
        raise
    return got


def _attempt(fn, Q, K, V, mask):
    """For the rule tests: an answer (a tensor of the output's shape), whatever its values."""
    got = _call(fn, Q, K, V, mask, shrink=False, check_inputs=False)
    want = Q.shape[:-1] + V.shape[-1:]
    if type(got) is not torch.Tensor or tuple(got.shape) != tuple(want):
        _judge(fn, Q, K, V, mask, got, "the output")     # says what it is (the weights, a tuple...)


# ---------------------------------------------------------------------------------------------
# correctness, float32 / float64
# ---------------------------------------------------------------------------------------------

@test_case(points=1, hidden=True)
def test_float32_no_mask(scaled_dot_product_attention, device, rng):
    # d_k = 16, d_v = 10, T_q = 7, T_k = 9: every wrong divisor differs
    Q, K, V = _qkv(rng, (3, 7, 16), (3, 9, 16), (3, 9, 10), torch.float32)
    Q[0, 2] = 0.0                                   # a zero query: uniform weights over the keys
    _check(scaled_dot_product_attention, Q, K, V, None, "the output with mask=None")
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
    K[:, :, 4] = K[:, :, 1]                         # duplicated keys: tied scores
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
    got = _call(scaled_dot_product_attention, Q, K, V, mask)
    try:
        if type(got) is not torch.Tensor:
            _judge(scaled_dot_product_attention, Q, K, V, mask, got, "the output with fully masked queries")
        if (tuple(got.shape) == (2, 6, 10) and torch.isnan(got[:, dead]).any()
                and torch.isfinite(got[:, ~dead]).all()):
            raise Misconception("fully_masked_nan", "a query whose keys are all masked got NaN; "
                                "it should get a row of zeros")
        _judge(scaled_dot_product_attention, Q, K, V, mask, got, "the output with fully masked queries")
    except AssertionError as failure:
        expected = ref.scaled_dot_product_attention(Q, K, V, mask)
        raise _smallest(failure, scaled_dot_product_attention, Q, K, V, mask,
                        Failure.value(expected, got)) from None


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
    mask = _random_mask((B, H, T_q, T_k), rng).transpose(-1, -2).contiguous().transpose(-1, -2)
    _check(scaled_dot_product_attention, Q, K, V, mask,
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
    mask = _random_mask((T_q, T_k), rng).expand(B, H, T_q, T_k)
    _check(scaled_dot_product_attention, Q, K, V, mask,
           "the output for expanded (broadcast, stride-0) inputs")


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


def _near(a, b):
    # near one-hot weights amplify float16 rounding of the scores; a correct half-precision solution
    # stays below ~0.02 (max) and ~1e-3 (mean), every known wrong variant is above 0.25 or 0.01
    d = (a.to(torch.float64) - b.to(torch.float64)).abs()
    return bool(d.max() <= 0.25 and d.mean() <= 0.01)


def _large_scores_ok(got, expected):
    """The verdict of test_float16_large_scores, for the shrunk inputs too."""
    return (type(got) is torch.Tensor and got.dtype == torch.float16 and got.shape == expected.shape
            and bool(torch.isfinite(got).all()) and _near(got, expected))


def _judge_large_scores(fn, Q, K, V, mask, got):
    if type(got) is not torch.Tensor or got.dtype != torch.float16 or tuple(got.shape) != tuple(Q.shape):
        _judge(fn, Q, K, V, mask, got, "the float16 output with large scores")   # a tuple, the weights...
    T_q, T_k = Q.shape[-2], K.shape[-2]
    if not torch.isfinite(got).all():
        # which step makes inf or NaN: the same call with a mask allowing every key tells the
        # softmax (still non-finite) from the masking (finite then)
        again = _second_call(fn, Q, K, V, mask=torch.ones(T_q, T_k, dtype=torch.bool))
        if type(again) is torch.Tensor and tuple(again.shape) == tuple(Q.shape) and not torch.isfinite(again).all():
            # which shift the softmax subtracts (none, one global max, the row's min): a float32 probe
            shift = _softmax_shift(fn)
            if shift:
                raise Misconception(shift, "float16 inputs with large scores gave inf or NaN, with or without a "
                                    f"mask, and so does a float32 probe: it matches {describe(shift)}")
            raise AssertionError("float16 inputs with large scores gave inf or NaN, with or without a mask: "
                                 "subtract each row's max before exp, and keep every step in range")
        if torch.equal(~torch.isfinite(got), torch.isnan(ref.sdpa_pos_inf_fill(Q, K, V, mask))):
            _confirm_pos_inf_fill(fn, Misconception("pos_inf_fill", "the output is NaN on every row with a "
                                  "blocked key, and finite without a mask: it matches " + describe("pos_inf_fill")))
        raise AssertionError("the float16 output contains inf or NaN only when a mask is given: look at how "
                             "the masked scores are filled")
    expected = ref.scaled_dot_product_attention(Q, K, V, mask)
    if _near(got, expected):
        return
    variants = ref.wrong_variants(Q, K, V, mask)
    for key, wrong in variants.items():
        if wrong.shape == got.shape and _near(got, wrong):
            raise Misconception(key.split("/")[0], "the float16 output with large scores is wrong: it matches "
                                + describe(key.split("/")[0]))
    key = nearest_variant(got, expected, variants)
    if key is not None:
        raise Misconception(key.split("/")[0], "the float16 output with large scores is wrong: it is far closer "
                            f"to what {describe(key.split('/')[0])} gives than to the correct result")
    raise_if_nondeterministic(fn, (Q, K, V), {"mask": mask}, got, FN)
    raise AssertionError("the float16 output with large scores does not match the correct result")


@test_case(points=1, hidden=True)
def test_float16_large_scores(scaled_dot_product_attention, device, rng):
    # Q, K = 3 * randn with d = 64: scaled scores of size ~10-40, so exp overflows float16
    # unless the max is subtracted first (DESIGN.md: non-finite every time without it).
    Q, K, V = _qkv(rng, (2, 128, 64), (2, 128, 64), (2, 128, 64), torch.float16, scale=3.0)
    mask = _random_mask((128, 128), rng)   # every query keeps ~64 keys, even with the mask inverted
    got = _call(scaled_dot_product_attention, Q, K, V, mask)
    try:
        _judge_large_scores(scaled_dot_product_attention, Q, K, V, mask, got)
    except AssertionError as failure:
        expected = ref.scaled_dot_product_attention(Q, K, V, mask)
        raise _smallest(failure, scaled_dot_product_attention, Q, K, V, mask, Failure.value(expected, got),
                        close=_large_scores_ok) from None


# ---------------------------------------------------------------------------------------------
# gradients
# ---------------------------------------------------------------------------------------------

@test_case(points=1, hidden=True)
def test_gradients_float64(scaled_dot_product_attention, device, rng):
    # d_v = 10: with d_v = 9, sqrt(d_v) = 3 = int(sqrt(12)) and an integer square root passed for sqrt(d_v)
    Q, K, V = _qkv(rng, (2, 5, 12), (2, 7, 12), (2, 7, 10), torch.float64)
    mask = _random_mask((2, 5, 7), rng)
    G = randn((2, 5, 10), rng, torch.float64)
    try:
        reply = call(scaled_dot_product_attention.call_with_grad, Q, K, V, mask,
                     grad_wrt=(0, 1, 2), grad_output=G, what=FN)
    except StudentCodeError as e:
        _name_crash(scaled_dot_product_attention, Q, K, V, mask, e)
        raise
    out, grads = reply
    try:
        _judge(scaled_dot_product_attention, Q, K, V, mask, out, "the output")
    except AssertionError as failure:
        expected = ref.scaled_dot_product_attention(Q, K, V, mask)
        raise _smallest(failure, scaled_dot_product_attention, Q, K, V, mask,
                        Failure.value(expected, out)) from None
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
@earned_with("test_float32_no_mask")
def test_no_torch_sdpa_in_source(scaled_dot_product_attention, submission, rng):
    # the rule only: an answer of the right shape is checked; its values are the tests' above, and
    # the point is earned once the basic value case passes (earned_with)
    # (as many queries as keys: an answer that mixes them up still runs, and that is charged above)
    Q, K, V = _qkv(rng, (2, 5, 16), (2, 5, 16), (2, 5, 16), torch.float32)
    _attempt(scaled_dot_product_attention, Q, K, V, _random_mask((2, 5, 5), rng))
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
    Q, K, V = _qkv(rng, (2, 5, 16), (2, 5, 16), (2, 5, 16), torch.float32)
    _attempt(scaled_dot_product_attention, Q, K, V, _random_mask((2, 5, 5), rng))


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
    # every timed call gets inputs the student has never seen, and the timed outputs are checked. A case
    # the function crashes on (4-D inputs with K.transpose(1, 2)) is the value tests' charge: the rule
    # is judged on the cases it runs, and on none only if it runs none
    ran = 0
    for case in TIMED_CASES:
        try:
            call(assert_vectorised, scaled_dot_product_attention, ref.scaled_dot_product_attention, [case],
                 rng=rng, limit=SLOWDOWN_LIMIT, what=FN, variants=list(ref.VARIANT_FUNCTIONS.values()),
                 advice="replace Python loops over rows, queries or batch entries by batched tensor operations")
        except StudentCodeError as e:
            if e.message.startswith("expected a tensor") or (case is TIMED_CASES[-1] and not ran):
                # a tuple, or a crash on every case: the rule tests' input says what it is
                Q, K, V = _qkv(rng, (2, 5, 16), (2, 5, 16), (2, 5, 16), torch.float64)
                _attempt(scaled_dot_product_attention, Q, K, V, _random_mask((2, 5, 5), rng))
            if case is TIMED_CASES[-1] and not ran:
                raise
            continue
        except Misconception:
            raise
        except AssertionError:
            # timed values that match nothing: an input changed in place (the timed calls share one
            # mask) or randomness left on explains it, and is named; a plain wrong value is not
            Q, K, V = _qkv(rng, (2, 5, 16), (2, 5, 16), (2, 5, 16), torch.float64)
            mask = _random_mask((2, 5, 5), rng)
            try:
                first = call(scaled_dot_product_attention, Q, K, V, mask=mask, what=FN)
            except StudentCodeError:
                raise AssertionError(f"the timing of {FN} could not be verified: it crashes on 3-D inputs "
                                     "with a full mask; the tests of its values say what is wrong") from None
            if type(first) is torch.Tensor:
                raise_if_nondeterministic(scaled_dot_product_attention, (Q, K, V), {"mask": mask}, first, FN)
            raise
        ran += 1
