"""Shrinking a failing input of the attention function (autograder/grading/shrink.py, issue 13): plain Python
functions stand in for the student's code (wrapped so that their errors arrive as the sandbox delivers
them, StudentCodeError); the last tests grade real notebooks through the sandbox."""
from __future__ import annotations

import time
from pathlib import Path

import pytest
import torch

from autograder.sandbox import protocol
from autograder.sandbox.calls import to_device
from autograder.grading.checks import Misconception
from autograder.errors import ProtocolError, StudentCodeError, WorkerTimeout
from autograder.grading.shrink import (
    AttentionInput,
    Failure,
    ShrinkBudget,
    attempt_with,
    current_budget,
    describe,
    kind,
    layout_of,
    mask_class,
    shrink,
    sizes,
    with_smallest,
)
from reference import sdpa_from_scratch as ref

ROOT = Path(__file__).resolve().parent.parent
SDPA = ref.scaled_dot_product_attention


def student(fn, counter=None):
    """`fn` as a hidden test sees a student function: its errors come back as StudentCodeError."""
    def proxy(*args, **kwargs):
        if counter is not None:
            counter.append(1)
        try:
            return fn(*args, **kwargs)
        except Exception as e:  # noqa: BLE001 - what the worker sends back
            raise StudentCodeError(type(e).__name__, str(e)) from None
    return proxy


def first_failure(fn, inp):
    try:
        got = fn(inp.Q, inp.K, inp.V, mask=inp.mask)
    except StudentCodeError as e:
        return Failure.crash(e, SDPA(inp.Q, inp.K, inp.V, inp.mask))
    return Failure.value(SDPA(inp.Q, inp.K, inp.V, inp.mask), got)


def run_shrink(fn, inp, **kw):
    proxy = student(fn)
    return shrink(inp, first_failure(proxy, inp), attempt_with(proxy, SDPA), **kw)


def gen(seed=0):
    return torch.Generator().manual_seed(seed)


def qkv(shape_q, shape_k, shape_v, dtype=torch.float32, seed=0):
    g = gen(seed)
    return tuple(torch.randn(s, generator=g, dtype=torch.float64).to(dtype) for s in (shape_q, shape_k, shape_v))


def rect_input(mask=None, dtype=torch.float32):
    Q, K, V = qkv((3, 7, 16), (3, 9, 16), (3, 9, 10), dtype)
    return AttentionInput(Q, K, V, mask)


def wrong_when(condition):
    """The reference, off by one wherever `condition(Q, K, V)` holds."""
    def fn(Q, K, V, mask=None):
        out = SDPA(Q, K, V, mask)
        return out + 1 if condition(Q, K, V) else out
    return fn


# --- the shrunk input is the smallest that fails -----------------------------------------------------

@pytest.mark.parametrize("condition,smallest", [
    (lambda Q, K, V: K.shape[-2] > 3, (1, 1, 4, 1, 1)),          # only with more than 3 keys
    (lambda Q, K, V: Q.shape[-2] >= 5, (1, 5, 6, 1, 1)),         # 5 queries or more (and T_q < T_k)
    (lambda Q, K, V: Q.shape[-1] > 5, (1, 1, 2, 6, 1)),          # d_k > 5
    (lambda Q, K, V: V.shape[-1] >= 3, (1, 1, 2, 1, 3)),         # d_v >= 3
    (lambda Q, K, V: Q.shape[0] >= 2, (2, 1, 2, 1, 1)),          # a batch of two
    (lambda Q, K, V: True, (1, 1, 2, 1, 1)),                     # always: T_q < T_k keeps two keys
])
def test_shrinks_to_the_smallest_failing_input(condition, smallest):
    found = run_shrink(wrong_when(condition), rect_input())
    assert sizes(found.input) == smallest
    assert found.failure.how == ("value",)
    assert found.calls <= 30


def test_a_scale_mistake_shrinks_to_two_keys_of_width_two():
    # dividing by d_k equals dividing by sqrt(d_k) when d_k = 1, and one key always gets weight 1
    found = run_shrink(ref.sdpa_divide_by_dk, rect_input())
    assert sizes(found.input) == (1, 1, 2, 2, 1)
    expected, got = found.failure.expected, found.failure.got
    assert not torch.allclose(expected, got)
    text = describe(found, rect_input())
    assert text.startswith("The smallest input of this kind that still fails:")
    assert "Q (1, 1, 2) float32 = [[[" in text and "expected [[[" in text and "got      [[[" in text


def test_t_q_and_t_k_shrink_together_when_equal():
    Q, K, V = qkv((2, 8, 16), (2, 8, 16), (2, 8, 16))
    found = run_shrink(ref.sdpa_softmax_wrong_dim, AttentionInput(Q, K, V))
    T_q, T_k = found.input.Q.shape[-2], found.input.K.shape[-2]
    assert T_q == T_k == 2


def test_a_crash_shrinks_to_the_smallest_input_that_crashes_the_same_way():
    def crashes_with_many_keys(Q, K, V, mask=None):
        if K.shape[-2] > 4:
            raise RuntimeError(f"index {K.shape[-2]} is out of bounds")
        return SDPA(Q, K, V, mask) + 1.0           # wrong, but not a crash: not the same failure
    found = run_shrink(crashes_with_many_keys, rect_input())
    assert sizes(found.input) == (1, 1, 5, 1, 1)
    assert found.failure.how == ("crash", "RuntimeError", "index # is out of bounds")
    assert found.failure.got == "RuntimeError: index 5 is out of bounds"


def test_a_value_failure_never_shrinks_into_a_crash():
    def fn(Q, K, V, mask=None):
        if K.shape[-2] < 4:
            raise ValueError("too few keys")
        return SDPA(Q, K, V, mask) * 2
    found = run_shrink(fn, rect_input())
    assert found.input.K.shape[-2] == 4 and found.failure.how == ("value",)


# --- the input's kind is kept -----------------------------------------------------------------------

def test_kind_is_kept_dtype_layout_mask_pattern_and_shape_relation():
    g = gen(1)
    base = torch.randn(2, 6, 3, 16, generator=g, dtype=torch.float64)
    Q = base.transpose(1, 2)                                             # (2, 3, 6, 16), strided
    K = torch.randn(1, 3, 9, 16, generator=g, dtype=torch.float64).expand(2, 3, 9, 16)
    V = torch.randn(2, 3, 9, 8, generator=g, dtype=torch.float64)
    inp = AttentionInput(Q, K, V, ref.causal_mask(6, 9))
    found = run_shrink(ref.sdpa_no_scale, inp)
    small = found.input
    assert kind(small) == kind(inp)
    assert layout_of(small.Q) == "strided" and layout_of(small.K) == "expanded" and layout_of(small.V) == "contiguous"
    assert small.Q.dtype == torch.float64 and mask_class(small) == "causal"
    assert small.Q.shape[-2] < small.K.shape[-2]
    assert small.K.shape[0] == 2                        # an expanded dim cannot shrink to 1 and stay expanded
    assert sizes(small) < sizes(inp)
    text = describe(found, inp)
    assert "not contiguous" in text and "expanded over dim 0 (stride 0)" in text and "causal" in text


def test_fully_masked_rows_are_kept():
    Q, K, V = qkv((2, 6, 16), (2, 8, 16), (2, 8, 10))
    mask = torch.ones(2, 6, 8, dtype=torch.bool)
    mask[:, 3] = False                                  # query 3 may see no key
    found = run_shrink(ref.sdpa_fully_masked_uniform, AttentionInput(Q, K, V, mask))
    assert mask_class(found.input) == "fully masked rows"
    assert found.input.Q.shape[-2] == 4                 # the dead row is the fourth: it stays


# --- bounded, and never changes an outcome ----------------------------------------------------------

def test_calls_are_bounded():
    calls = []
    big = AttentionInput(*qkv((4, 4, 128, 64), (4, 4, 128, 64), (4, 4, 128, 64)))
    proxy = student(ref.sdpa_no_scale, calls)
    with current_budget(ShrinkBudget(per_test_s=60, per_submission_s=60)):   # time is not what binds here
        found = shrink(big, first_failure(proxy, big), attempt_with(proxy, SDPA), max_calls=7)
    assert found.calls == 7 and len(calls) == 8         # the first call, then 7 while shrinking


def test_time_is_bounded():
    def slow(Q, K, V, mask=None):
        time.sleep(0.05)
        return SDPA(Q, K, V, mask) * 2
    found = run_shrink(slow, rect_input(), budget_s=0.12)
    assert found.calls <= 4 and found.seconds < 0.5


def test_stops_at_anything_but_a_result_or_a_crash():
    seen = []

    def runaway(*args, **kwargs):
        seen.append(1)
        if len(seen) > 2:
            raise WorkerTimeout("calling scaled_dot_product_attention", 30)
        return SDPA(*args, **kwargs) * 2
    inp = rect_input()
    found = shrink(inp, first_failure(runaway, inp), attempt_with(runaway, SDPA))
    assert len(seen) == 3 and found.calls == 2


def test_with_smallest_appends_and_never_raises():
    inp = rect_input()
    proxy = student(ref.sdpa_no_scale)
    err = Misconception("no_scale", "the output is wrong: it matches not scaling the scores at all")
    out = with_smallest(err, proxy, inp, first_failure(proxy, inp), reference=SDPA)
    assert out is err and out.key == "no_scale"
    assert str(out).startswith("the output is wrong: it matches not scaling")
    assert "The smallest input of this kind that still fails:" in str(out) and len(str(out)) <= 1000

    def broken_reference(*args):
        raise RuntimeError("a bug of the grader's own")
    err = AssertionError("the output is wrong")
    assert str(with_smallest(err, proxy, inp, first_failure(proxy, inp), reference=broken_reference)) == \
        "the output is wrong"
    timeout = WorkerTimeout("calling f", 30)
    assert with_smallest(timeout, proxy, inp, first_failure(proxy, inp), reference=SDPA) is timeout
    assert str(timeout) == "calling f did not finish within 30 s"


def test_the_example_fits_the_message():
    found = run_shrink(ref.sdpa_divide_by_dk, rect_input())
    full = describe(found, rect_input())
    assert "Q (1, 1, 2) float32 = " in full and "expected" in full
    shapes_only = describe(found, rect_input(), limit=len(full) - 1)   # values do not fit: shapes only
    assert shapes_only.startswith("The smallest input") and "=" not in shapes_only
    assert "Q (1, 1, 2) float32\n" in shapes_only and len(shapes_only) < len(full)
    assert describe(found, rect_input(), limit=40) == ""                # nothing fits: nothing is added


# --- the layout crosses the sandbox boundary ----------------------------------------------------------

def _layouts():
    t = torch.randn(2, 5, 3, 4)
    return {
        "transposed": t.transpose(1, 2),
        "strided slice": t[..., ::2],
        "expanded": torch.randn(1, 3, 4).expand(2, 3, 4),
        "expanded and transposed": torch.randn(3, 1, 4).expand(3, 5, 4).transpose(0, 1),
        "narrowed view": t.transpose(1, 2)[:1, :2, :3],
        "bool mask view": (torch.rand(4, 6) > 0.5).t(),
    }


@pytest.mark.parametrize("name", list(_layouts()))
def test_arguments_keep_their_layout_and_replies_do_not(name):
    view = _layouts()[name]
    (back,) = protocol.decode_value(protocol.encode_value([view], layout=True), from_grader=True)
    def strides(t):   # the stride of a dim of size 1 means nothing
        return [s for n, s in zip(t.shape, t.stride()) if n > 1]
    assert torch.equal(back, view) and strides(back) == strides(view) and layout_of(back) == layout_of(view)
    assert strides(to_device(back, "cpu")) == strides(view)
    plain = protocol.decode_value(protocol.encode_value([view]))[0]   # a reply: contiguous, as always
    assert torch.equal(plain, view) and plain.is_contiguous()
    with pytest.raises(ProtocolError):                                # a reply may not carry a layout
        protocol.decode_value(protocol.encode_value([view], layout=True))


def test_a_layout_that_cannot_be_rebuilt_travels_as_values():
    overlapping = torch.arange(10.0).as_strided((3, 3), (1, 2), 1)
    (back,) = protocol.decode_value(protocol.encode_value([overlapping], layout=True), from_grader=True)
    assert torch.equal(back, overlapping) and back.is_contiguous()


# --- graded through the sandbox ---------------------------------------------------------------------

def _failed(result, name):
    return next(t for t in result.tests if t.name == name and t.status == "failed" and t.max_score > 0)


def test_a_view_on_a_transposed_input_shows_the_smallest_input_that_crashes(grader):
    nb = ROOT / "examples" / "submissions" / "sdpa-from-scratch" / "view_on_noncontiguous.ipynb"
    result = grader.grade(nb, "sdpa-from-scratch", seed=2024)
    failed = {t.name for t in result.tests if t.status == "failed" and t.max_score > 0}
    assert failed == {"test_noncontiguous_inputs", "test_broadcast_inputs"}
    report = _failed(result, "test_noncontiguous_inputs")
    assert report.misconception == "view_on_noncontiguous"
    message = report.message
    assert "view size is not compatible" in message
    assert "The smallest input of this kind that still fails:" in message
    assert "Q (2, 2, 1, 1) float32, not contiguous = [[[[" in message
    assert "\n  expected [[[[" in message and "\n  got      the same error" in message


def test_a_wrong_value_shows_the_smallest_input_with_expected_and_got(grader):
    nb = ROOT / "examples" / "submissions" / "sdpa-from-scratch" / "divide_by_dk.ipynb"
    result = grader.grade(nb, "sdpa-from-scratch", seed=2024)
    report = _failed(result, "test_float32_no_mask")
    assert report.misconception == "divide_by_dk"
    head, example = report.message.split("\n", 1)
    assert head == "the output with mask=None is wrong: it matches dividing the scores by d_k instead of sqrt(d_k)"
    assert example.startswith("The smallest input of this kind that still fails:\n  Q (1, 1, 2) float32 = ")
    assert "\n  mask None\n  expected [[[" in example and "\n  got      [[[" in example


def test_an_answer_that_is_not_a_tensor_is_not_shrunk():
    calls = []
    proxy = student(lambda Q, K, V, mask=None: None, calls)
    inp = rect_input()
    err = AssertionError("the output is None: not answered yet (the function returns nothing)")
    assert str(with_smallest(err, proxy, inp, first_failure(proxy, inp), reference=SDPA)) == str(err.args[0])
    assert len(calls) == 1                               # the first call only


# --- other signatures (TensorArgs) ------------------------------------------------------------------

def test_other_signatures_shrink_the_same_way():
    """scaled_scores(Q, K) with a transposed Q, and attention(Q, K, V, d_k) whose d_k follows Q: the
    layout, the T_q/T_k order and the derived argument survive; the sizes fall to the smallest failing."""
    from autograder.grading.shrink import Derived, TensorArgs
    from reference import attention_pipeline as pipe
    from reference import scaled_attention as sa

    g = gen(3)
    Q = torch.randn(2, 5, 3, 12, generator=g, dtype=torch.float64).transpose(1, 2)   # (2, 3, 5, 12), strided
    K = torch.randn(2, 3, 8, 12, generator=g, dtype=torch.float64)
    inp = TensorArgs({"Q": Q, "K": K}, {"T_q": {"Q": -2}, "T_k": {"K": -2}, "d_k": {"Q": -1, "K": -1}},
                     compare=(("T_q", "T_k"),))
    no_scale = student(lambda Q, K: Q @ K.transpose(-2, -1))
    first = Failure.value(pipe.scaled_scores(Q, K), no_scale(Q, K))
    found = shrink(inp, first, attempt_with(no_scale, pipe.scaled_scores))
    small = found.input.tensors()
    assert layout_of(small["Q"]) == "strided" and kind(found.input) == kind(inp)
    assert small["Q"].shape[-2] < small["K"].shape[-2] and sizes(found.input) < sizes(inp)
    assert "not contiguous" in describe(found, inp)

    def div_dk(Q, K, V, d_k):
        w = torch.softmax(Q @ K.T / d_k, dim=-1)
        return w @ V
    fn = student(div_dk)
    Q2, K2, V2 = qkv((6, 12), (6, 12), (6, 5))
    args = TensorArgs({"Q": Q2, "K": K2, "V": V2, "d_k": Derived(lambda t: t["Q"].shape[-1])},
                      {"T_q": {"Q": -2}, "T_k": {"K": -2, "V": -2}, "d_k": {"Q": -1, "K": -1}, "d_v": {"V": -1}},
                      together_dims=(("T_q", "T_k"),))
    def out(Q, K, V, d_k):
        return sa.attention(Q, K, V, d_k)[0]
    found = shrink(args, Failure.value(out(Q2, K2, V2, 12), fn(Q2, K2, V2, 12)), attempt_with(fn, out))
    text = describe(found, args)
    assert found.input.tensors()["Q"].shape[-1] < 12 and "d_k = " in text and "expected" in text


def test_a_small_difference_never_prints_as_equal_numbers():
    """Rounded to 3 digits, 1.0312 and 1.0298 both read 1.03: the student would see expected and got
    agree. Digits are added until they differ where the difference is largest, and that place is named."""
    def slightly_off(Q, K, V, mask=None):
        out = SDPA(Q, K, V, mask)
        return out + 1e-3 * out.abs().max().clamp(min=1)
    found = run_shrink(slightly_off, rect_input())
    text = describe(found, rect_input())
    expected_line = next(line for line in text.splitlines() if line.strip().startswith("expected"))
    got_line = next(line for line in text.splitlines() if line.strip().startswith("got"))
    assert expected_line.split("expected", 1)[1].strip() != got_line.split("got", 1)[1].strip(), text
    where = next(line for line in text.splitlines() if "largest difference at" in line)
    e, g = where.split("expected ", 1)[1].split(", got ")
    assert e != g, where


def test_a_large_output_still_says_where_it_differs_most():
    """Wrong only at full size, so nothing smaller fails: too many values to print, but the place of
    the largest difference, with both numbers, still fits."""
    inp = rect_input()

    def wrong_at_full_size(Q, K, V, mask=None):
        out = SDPA(Q, K, V, mask).clone()
        if tuple(Q.shape) == (3, 7, 16) and tuple(K.shape) == (3, 9, 16) and V.shape[-1] == 10:
            out[-1, -1, -1] += 0.5
        return out
    found = run_shrink(wrong_at_full_size, inp)
    assert sizes(found.input) == sizes(inp)
    text = describe(found, inp)
    assert "= [" not in text and "largest difference at [2, 6, 9]: expected " in text, text


def test_check_value_shrinks_with_the_case_tolerance():
    """A case with its own tolerance (row_entropy_bits: atol 1e-6, for the epsilon-in-the-log recipe)
    passes `close` on to shrinking: a smaller input is shown only if it fails by that tolerance, not
    by float64's 1e-10, which the same recipe's 1e-8-bit bias fails on every input."""
    from autograder.grading.shrink import TensorArgs, check_value
    from reference import attention_pipeline as pipe

    def biased(A):   # within 1e-6 everywhere, and wrong by 1 bit from 4 keys on
        return pipe.row_entropy_bits(A) + 1e-8 + (1.0 if A.shape[-1] >= 4 else 0.0)

    def close(got, expected):
        return type(got) is torch.Tensor and got.shape == expected.shape and bool(
            torch.allclose(got, expected, rtol=0, atol=1e-6))

    S = torch.randn(1, 6, 6, generator=gen(4), dtype=torch.float64)
    A = pipe.attention_weights(S, pipe.causal_additive_mask(6, torch.float64)).mT.contiguous().mT.expand(2, 6, 6)
    args = TensorArgs({"A": A}, {"T_q": {"A": -2}, "T_k": {"A": -1}}, together_dims=(("T_q", "T_k"),),
                      compare=(("T_q", "T_k"),))
    for kw, smallest in (({"close": close}, "A (2, 4, 4)"), ({}, "A (2, 1, 1)")):
        with pytest.raises(AssertionError) as failed:
            check_value(student(biased), args, pipe.row_entropy_bits(A), reference=pipe.row_entropy_bits,
                        what="H", name="row_entropy_bits", rtol=0, atol=1e-6, **kw)
        assert smallest in str(failed.value) and "expanded over dim 0" in str(failed.value)


def test_a_negative_zero_prints_as_zero():
    from autograder.grading.shrink import _values
    assert _values(torch.tensor([[-0.0], [0.0]])) == "[[0], [0]]"
