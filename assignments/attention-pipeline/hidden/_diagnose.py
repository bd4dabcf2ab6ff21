"""What attention-pipeline's hidden tests name beyond the reference's catalogue (issue 21), from evidence
only: a wrong variant is named when the student's output equals it on the same input; a crash is named
from a second call that shows its cause (one slice of a batched input runs and is right; the same call
without the mask runs and is right; a square input runs and matches one catalogued mistake, and is not
simply right).

Each question file loads it from beside itself (this folder is no package); the engine never runs it
as a test file (its name starts with "_"). Variants here extend reference/attention_pipeline.py's,
with the same {key: tensor} shape: a key "mistake/detail" is one way of making `mistake`."""
from __future__ import annotations

import ast
import functools
import itertools
import math
import re
from collections.abc import Callable, Mapping
from typing import Any

import torch

from autograder.errors import StudentCodeError
from autograder.grading import checks, crash_words
from autograder.grading.checks import Misconception, at_most_one_letter, describe, matching_variants, name_from_rerun
from autograder.grading.source_checks import read_twice_on_one_path
from reference import attention_pipeline as ref

Tensors = dict[str, Any]


def is_right(got: object, want: torch.Tensor, dtype: torch.dtype) -> bool:
    """`got` is a tensor equal to `want` within `dtype`'s tolerances."""
    return type(got) is torch.Tensor and bool(matching_variants(got, {"right": want}, dtype))


def all_right(got: object, want: tuple[torch.Tensor, ...], dtype: torch.dtype) -> bool:
    """`got` is a tuple or list of tensors, each equal to the matching part of `want`."""
    return (isinstance(got, (tuple, list)) and len(got) == len(want)
            and all(is_right(g, w, dtype) for g, w in zip(got, want)))


def _tail(e: BaseException) -> str:
    """What a failure's message adds after its first line (the smallest failing input, from shrink)."""
    text = str(e)
    return "\n" + text.split("\n", 1)[1] if "\n" in text else ""


def _said(e: StudentCodeError) -> str:
    return f"your code raised {e.exc_type}: {(e.message.splitlines() or [''])[0][:200]}"


def _shapes(tensors: Tensors) -> str:
    return ", ".join(f"{n} {tuple(t.shape)}" for n, t in tensors.items() if isinstance(t, torch.Tensor))


def assert_matches(got: object, expected: torch.Tensor, rows_unnormalised: bool = False,
                   mask: torch.Tensor | None = None, **kw: Any) -> None:
    """checks.assert_matches, except that a float32 answer where float64 is asked for, right to float32's
    precision, is named float32_precision (some step computes in float32: .float(), a float32 constant or
    tensor) instead of being told only its dtype. `rows_unnormalised`: weights (masked by `mask`) whose rows
    divided by their own sums are right are weights_not_normalised (raise_if_rows_unnormalised)."""
    kw.setdefault("reduced", False)   # only q08's and q10's functions reduce an axis: they pass reduced=True
    func = kw.pop("func", None)       # the graded def, whose dropped scaling a no_scale match says (blind67)
    # copies=True where the graded function builds its own mask from its input (self_attention): only there is a
    # result repeated over a new first axis the mask expanded over X.shape[0]; attention_weights' own M[:, None, :]
    # gives equal copies too where the test's M is all zeros (scan of c76ca45: blind55's extended mask)
    copies = kw.pop("copies", False)
    if func is not None:
        try:
            assert_matches(got, expected, rows_unnormalised, mask, copies=copies, **kw)
        except Misconception as m:
            raise_if_scaling_dropped(m, func)
            raise_if_scale_outside_exp(m, func)   # exp(K @ q) / sqrt(d_k): the paren closed early (round 74)
            raise_if_scale_width_is_one(m, func)   # d_k = len(q) of a (1, d_k) row: sqrt(1) (round 88)
            raise_if_sum_after_transpose(m, func)   # V.T * kappa summed over axis 0 (round 74)
            raise_if_input_axis_kept(m, func)   # q.unsqueeze(0) never squeezed back: no kept axis (round 76)
            raise_if_float32_default_kept(m, func)
            raise
        return
    sizes = kw.pop("sizes", None)     # {"T": 7, ...}: a constant factor left unnamed is said as one of them
    want = kw.get("dtype") or expected.dtype
    if sizes:
        try:
            assert_matches(got, expected, rows_unnormalised, mask, copies=copies, **kw)
        except Misconception:
            raise
        except AssertionError as e:
            words = factor_words(got, expected, want, sizes)
            if words is None or "off by a constant factor" not in str(e).split("\n")[0]:
                raise
            first, _, rest = str(e).partition("\n")
            raise AssertionError(f"{first} = {words}" + ("\n" + rest if rest else "")) from None
        return
    raise_if_integer_variant(got, expected, kw.get("variants"), kw.get("what", "the output"))   # (A > 0).sum() (blind85)
    if copies:   # a mask expanded over X.shape[0] (blind85)
        raise_if_copies_stacked(got, expected, kw.get("what", "the output"), want)
    if kw.get("variants") is not None:
        kw["variants"] = _without_empty_tril(got, kw["variants"])
    raise_if_other_dtype(got, expected, want, kw.get("what", "the output"))
    raise_if_output_transposed(got, expected, want, kw.get("what", "the output"))   # (d_v, T) (round 80)
    if (type(got) is torch.Tensor and got.numel() == 1 and expected.numel() > 1 and got.is_floating_point()
            and bool(torch.isfinite(got).all())):
        for how, total in (("sum", expected.sum()), ("mean", expected.mean())):
            if is_right(got.reshape(()), total.reshape(()), want):
                raise Misconception("reduced_every_axis", f"{kw.get('what', 'the output')} is one number, the {how} "
                                    f"of the right {tuple(expected.shape)} result over all its entries: "
                                    + describe("reduced_every_axis"))
    try:
        checks.assert_matches(got, expected, **kw)
    except Misconception as m:
        if rows_unnormalised and m.key == "float32_precision":   # weights clamped from below (blind59)
            raise_if_weights_floored(got, expected, kw.get("what", "A"))
        raise
    except AssertionError as e:
        if rows_unnormalised:
            raise_if_weights_floored(got, expected, kw.get("what", "A"))   # clamped from below (blind59)
            raise_if_rows_unnormalised(got, expected, want, kw.get("what", "the weights"), mask)
        words = what_differs(got, expected, want)
        if words is None:
            raise
        first, _, rest = str(e).partition("\n")
        raise AssertionError(f"{first}; {words}" + ("\n" + rest if rest else "")) from None


def raise_with_words(e: AssertionError, again: Callable[[], object], expected: torch.Tensor,
                     dtype: torch.dtype) -> None:
    """A failure of the engine's check_value (which does not hand back the answer) told again with
    what_differs' words, from a second call on the same full inputs; returns when there are none."""
    try:
        got = again()
    except StudentCodeError:
        return
    words = what_differs(got, expected, dtype)
    if words is not None:
        first, _, rest = str(e).partition("\n")
        raise AssertionError(f"{first}; {words}" + ("\n" + rest if rest else "")) from None


def what_differs(got: object, expected: torch.Tensor, dtype: torch.dtype) -> str | None:
    """Words for a wrong answer that no catalogued mistake names, where the whole of it is one plain fact
    (naming27): every entry 0, the right ones not all 0 (the result multiplied by 0 somewhere: a scale of
    0, or False used as a number), or every entry the right value rounded to a whole number. None otherwise."""
    if type(got) is not torch.Tensor or got.shape != expected.shape or not got.is_floating_point():
        return None
    g, e = got.detach().to(torch.float64), expected.detach().to(torch.float64)
    if not bool(torch.isfinite(g).all()) or not bool(torch.isfinite(e).all()) or is_right(got, expected, dtype):
        return None
    if not bool(g.any()):
        return ("every entry is 0: as if the result were multiplied by 0 somewhere (a scale or factor of 0, or "
                "False used as a number)")
    if is_right(got, e.round().to(got.dtype), dtype):
        return ("every entry equals the right value rounded to a whole number: the result is a real number, "
                "not a count; do not round it")
    return None


def factor_words(got: object, expected: torch.Tensor, dtype: torch.dtype, sizes: Mapping[str, int]) -> str | None:
    """Which size a constant factor is, when `got` is `expected` times one constant c: "1/T (T = 7)"
    for c = 1/7 with sizes {"T": 7, ...} (n, 1/n, sqrt(n), 1/sqrt(n) of each size, and 1/n^2, n^2). None
    when there is no such constant, or no reading or more than one (two sizes equal) fits it."""
    if type(got) is not torch.Tensor or got.shape != expected.shape or not got.is_floating_point():
        return None
    g, e = got.detach().to(torch.float64), expected.detach().to(torch.float64)
    big = e.abs() > 1e-6 * max(float(e.abs().max()), 1e-300)
    if int(big.sum()) < 2 or not (torch.isfinite(g).all() and torch.isfinite(e).all()):
        return None
    c = float((g[big] / e[big]).median())
    if not (math.isfinite(c) and abs(c) > 1e-12 and is_right(g, c * e, dtype)) or is_right(g, e, dtype):
        return None
    readings = []
    for name, n in sizes.items():
        for how, v in ((f"{name}", n), (f"1/{name}", 1 / n), (f"sqrt({name})", math.sqrt(n)),
                       (f"1/sqrt({name})", 1 / math.sqrt(n)), (f"{name}^2", n * n), (f"1/{name}^2", 1 / (n * n))):
            if math.isclose(c, v, rel_tol=1e-6):
                readings.append(f"{how} ({name} = {n})")
    return " or ".join(readings) or None


def _without_empty_tril(got: object, variants: Any) -> Any:
    """The variants without weights_tril_for_any_mask where `got` has no nonzero entry on or below the diagonal:
    a lower triangle of softmax weights is positive there, so an all-zero answer (e / inf after an overflowed
    sum, float16) matching its near-zero replay within tolerance is no evidence of a tril (blind85)."""
    if not (type(got) is torch.Tensor and got.dim() >= 2 and not bool(got.detach().tril().ne(0).any())):
        return variants

    def kept() -> Any:
        reps = variants() if callable(variants) else variants
        return {k: v for k, v in reps.items() if k.split("/")[0] != "weights_tril_for_any_mask"}
    return kept if callable(variants) else kept()


def raise_if_copies_stacked(got: object, expected: torch.Tensor, what: str, dtype: torch.dtype | None = None) -> None:
    """batch_axis_assumed: the right result for an unbatched input, repeated along one extra first axis (shape
    (n,) + the right shape, n > 1 and the result's own first axis (T, the unbatched input's first axis), and every
    one of the n slices right): something was expanded over the input's first axis as if it were a batch
    (blind85's causal mask .expand(X.shape[0], T, T)). A new axis whose slices differ, or any one slice wrong,
    is left to the shape check."""
    if (type(got) is not torch.Tensor or not got.is_floating_point() or got.dim() != expected.dim() + 1
            or tuple(got.shape[1:]) != tuple(expected.shape) or got.shape[0] < 2 or expected.dim() < 2
            or got.shape[0] != expected.shape[0]):   # n is the unbatched input's first axis, T, the result's too
        return
    if all(is_right(got[i], expected, dtype or expected.dtype) for i in range(got.shape[0])):
        raise Misconception("batch_axis_assumed", f"{what} has shape {tuple(got.shape)}, expected "
                            f"{tuple(expected.shape)}: it is {got.shape[0]} copies of the right result stacked on a new "
                            "first axis: " + describe("batch_axis_assumed"))


def assert_shape(got: torch.Tensor, expected: torch.Tensor, what: str, dtype: torch.dtype = torch.float32) -> None:
    """`got`'s shape is `expected`'s, or an AssertionError says both; copies of the right result stacked on a
    new first axis are named (raise_if_copies_stacked)."""
    if tuple(got.shape) != tuple(expected.shape):
        raise_if_copies_stacked(got, expected, what, dtype)
        raise AssertionError(f"{what} has shape {tuple(got.shape)}, expected {tuple(expected.shape)}")


def raise_if_integer_variant(got: object, expected: torch.Tensor, variants: Any, what: str) -> None:
    """An integer tensor where floats are asked (a count: (A > 0).sum(dim=-1), blind85) whose values are those of
    exactly one mistake's replay: named by it, not told only its dtype. The right values in an integer dtype, or
    values no replay (or two) gives, are left to the dtype check."""
    if (type(got) is not torch.Tensor or got.is_floating_point() or got.is_complex() or got.dtype == torch.bool
            or not expected.is_floating_point() or tuple(got.shape) != tuple(expected.shape) or variants is None):
        return
    g = got.detach().to(torch.float64)
    if is_right(g, expected.double(), torch.float64):
        return
    reps = variants() if callable(variants) else variants
    hits = sorted({k.split("/")[0] for k, v in reps.items() if isinstance(v, torch.Tensor)
                   and tuple(v.shape) == tuple(g.shape) and is_right(g, v.double(), torch.float64)})
    if len(hits) == 1:
        raise Misconception(hits[0], f"{what} has dtype {got.dtype} (expected {expected.dtype}), and its values "
                            f"match {describe(hits[0])}")


def raise_if_other_dtype(got: object, expected: torch.Tensor, want: torch.dtype, what: str,
                         func: str | None = None) -> None:
    """The right values in another float dtype than `want`: float32 for float64 inputs, right to float32's
    precision, is float32_precision (with its cause where `func`'s helper casts by a float32 default); any other
    (float16 upcast to float32, float32 to float64, .float() on everything) is dtype_changed."""
    if type(got) is not torch.Tensor or tuple(got.shape) != tuple(expected.shape) or got.dtype == want:
        return
    if got.dtype == torch.float32 and want == torch.float64 and is_right(got, expected, torch.float32):
        m = Misconception("float32_precision", f"{what} is float32 for float64 inputs, and right only to "
                          "float32's precision: " + describe("float32_precision"))
        if func is not None:
            raise_if_float32_default_kept(m, func)
        raise m
    if want.is_floating_point and got.is_floating_point() and is_right(got, expected, want):
        raise Misconception("dtype_changed", f"{what} is {got.dtype} for {want} inputs, with the right values: "
                            + describe("dtype_changed"))
    # a coarser dtype (float16 for float32 or float64 inputs): the right values cast to it, within its own
    # precision, is the cast alone (naming29: a float32 softmax cast back to a hard-coded float16)
    if (want.is_floating_point and got.is_floating_point() and torch.finfo(got.dtype).eps > torch.finfo(want).eps
            and is_right(got, expected.to(got.dtype), got.dtype)):
        raise Misconception("dtype_changed", f"{what} is {got.dtype} for {want} inputs, right only to "
                            f"{str(got.dtype).removeprefix('torch.')}'s precision (the right values cast to "
                            f"{got.dtype}): " + describe("dtype_changed"))


RANDOM_TRIES = 4   # calls compared with the first one before a function is taken to be deterministic


def raise_if_random(fn: Callable[..., object], args: tuple[Any, ...], kwargs: Mapping[str, Any], what: str) -> None:
    """nondeterministic when more calls of `fn` on the same inputs differ (dropout left in training mode:
    F.dropout's training=True default); only once a check has failed, so a right answer pays nothing."""
    try:
        first = fn(*args, **kwargs)
    except Exception:  # noqa: BLE001 - no first value: no evidence of randomness
        return
    try:
        # up to RANDOM_TRIES calls against the first: on softmax weights as peaked as q05's float16 rows, a dropout
        # that zeroes only near-zero entries leaves two calls equal within float16's tolerance (one make test's
        # run lost the name on test_weights_float16_stable so; the failing call had dropped a large entry)
        for _ in range(RANDOM_TRIES):
            checks.raise_if_nondeterministic(fn, args, kwargs, first, what)
    except Misconception as m:   # an nn.Dropout module in the notebook: its own switch said (naming round 76)
        # not where the notebook already switches a module out of training mode (red-team round 139:
        # `tnn.Dropout(0.1).eval()` beside torch.randn_like noise was told to call .eval() on it)
        if source_mentions(current_submission(), r"\bDropout\s*\(") and not source_mentions(
                current_submission(), r"\.eval\s*\(\s*\)|\.train\s*\(\s*(?:mode\s*=\s*)?False\b"):
            raise Misconception(m.key, f"{m}; an nn.Dropout module is in training mode from the moment it is built: "
                                "call .eval() on it (or on the module holding it), or leave it out") from None
        raise


def raise_if_mask_after_softmax(A: object, X: torch.Tensor, W: Any, causal: bool, dtype: torch.dtype) -> None:
    """Self-attention's A whose future entries all hold about torch.finfo(A.dtype).min (the mask's value,
    in the input's own dtype) and whose other entries are the unmasked softmax of the scores: the causal
    mask was added to the weights after the softmax (mask_after_softmax), whatever the dtype."""
    if not causal or type(A) is not torch.Tensor or not A.is_floating_point() or A.dim() < 2:
        return
    W_Q, W_K, _ = (w.double() for w in W)
    Q, K = X.double() @ W_Q, X.double() @ W_K
    P = torch.softmax(Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1]), dim=-1)
    T = P.shape[-1]
    if tuple(P.shape) != tuple(A.shape) or T < 2:
        return
    blocked = torch.ones(T, T, dtype=torch.bool).triu(1)
    a = A.detach().to(torch.float64)
    if not bool((a[..., blocked] <= torch.finfo(A.dtype).min / 2).all()):
        return
    if is_right(a.masked_fill(blocked, 0.0), P.masked_fill(blocked, 0.0), dtype):
        raise Misconception("mask_after_softmax", "A holds the unmasked softmax of the scores, and about "
                            f"torch.finfo({A.dtype}).min on every future key: " + describe("mask_after_softmax"))


def raise_if_scores_returned(O: object, A: object, O_ref: torch.Tensor, X: torch.Tensor, W: Any, causal: bool,
                             dtype: torch.dtype) -> None:
    """O right and A the scaled scores S, unmasked or masked (every future entry very negative): the
    softmax was computed and used, and an intermediate returned in A's place (returns_scores_as_weights).
    A right O tells it from the scores used as weights (no_softmax), whose O is S V."""
    if not (type(A) is torch.Tensor and A.is_floating_point() and is_right(O, O_ref, dtype)):
        return
    W_Q, W_K, _ = (w.double() for w in W)
    Q, K = X.double() @ W_Q, X.double() @ W_K
    S = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    if tuple(S.shape) != tuple(A.shape) or is_right(A, torch.softmax(S, dim=-1), dtype):
        return
    a = A.detach().to(torch.float64)
    blocked = torch.ones(S.shape[-2:], dtype=torch.bool).triu(1) if causal else torch.zeros(S.shape[-2:], dtype=torch.bool)
    masked = bool(blocked.any()) and bool((a[..., blocked] <= -1e4).all())
    if is_right(a.masked_fill(blocked, 0.0) if masked else a, S.masked_fill(blocked, 0.0) if masked else S, dtype):
        raise Misconception("returns_scores_as_weights", f"O is right, and A holds the scaled scores S{' (masked)' if masked else ''} "
                            "rather than their softmax: " + describe("returns_scores_as_weights"))


def raise_if_index_tensor_as_one_index(fn: Callable[..., object], M: torch.Tensor, T: int) -> None:
    """Every entry of the T x T mask blocked (T >= 2) and the T = 1 mask all zero (a second call):
    M[torch.triu_indices(T, T, 1)] = ... indexes whole rows with the (2, N) tensor (its row numbers 0..T-2
    and column numbers 1..T-1 together are every row), and at T = 1 the index is empty (naming22, blind19).
    A mask blocked everywhere at T = 1 too (a torch.full with no triu) is not this."""
    if T < 2 or not bool((M != 0).all()):
        return
    try:
        one = fn(1, M.dtype)
    except StudentCodeError:
        return
    if type(one) is torch.Tensor and tuple(one.shape) == (1, 1) and not bool((one != 0).any()):
        raise Misconception("mask_index_tensor_as_one_index", f"every entry of the {T} x {T} mask is blocked, and "
                            "the 1 x 1 mask (no key after the query) is 0: " + describe("mask_index_tensor_as_one_index"))


def raise_if_full_mask_left_whole(fn: Callable[..., object], M: torch.Tensor, T: int) -> None:
    """Every entry of the T x T mask torch.finfo(dtype).min (T >= 2), and the 1 x 1 mask too (a second call,
    where the index-tensor mistake gives 0): the torch.full mask returned as made, its triu(1) never applied,
    an out-of-place M.triu(diagonal=1) whose result is dropped (naming25, blind21). A triu forgotten outright
    gives the same masks: the fix, assign M.triu(1), is the same."""
    low = torch.finfo(M.dtype).min if M.is_floating_point() else None
    if T < 2 or low is None or not bool((M == low).all()):
        return
    try:
        one = fn(1, M.dtype)
    except StudentCodeError:
        return
    if type(one) is torch.Tensor and tuple(one.shape) == (1, 1) and bool((one == low).all()):
        raise Misconception("mask_blocks_nothing", f"every entry of the {T} x {T} mask is torch.finfo({M.dtype}).min, "
                            "the diagonal and the past included, and the 1 x 1 mask (no key after the query) too: "
                            "the full mask came back without its triu(1): " + describe("mask_blocks_nothing"))


def raise_if_unmasked_scores_as_weights(O: object, O_ref: torch.Tensor, X: torch.Tensor, W: Any, causal: bool,
                                        dtype: torch.dtype, A: object = None) -> None:
    """Causal self-attention whose O is the unmasked scaled scores times V, S @ V (naming22, blind19): the
    scores are used as the weights (no_softmax), the mask applied only where A is built. Without the mask S V
    is no_softmax's own O, named with the other variants; this replays it only for a wrong O.
    With `A` (the A returned): O is softmax(S) @ V, the unmasked weights' output, while that A is causal (no
    weight on a future key, rows summing to 1): O was mixed with other weights than the A returned (blind33)."""
    if not (causal and type(O) is torch.Tensor and O.is_floating_point() and tuple(O.shape) == tuple(O_ref.shape)) \
            or is_right(O, O_ref, dtype):
        return
    W_Q, W_K, W_V = (w.double() for w in W)
    Q, K, V = X.double() @ W_Q, X.double() @ W_K, X.double() @ W_V
    S = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    if is_right(O, S @ V, dtype):
        raise Misconception("no_softmax", "O is S @ V, the scaled scores (without the causal mask) times the values, "
                            "where A @ V is meant: " + describe("no_softmax"))
    if _causal_weights(A, S.shape) and is_right(O, torch.softmax(S, dim=-1) @ V, dtype):
        raise Misconception("output_from_unmasked_weights", "O is softmax(S) @ V, the values mixed with the weights "
                            "of the unmasked scores (every query reads the future keys), while the A you return is "
                            "masked (no weight on a future key): " + describe("output_from_unmasked_weights"))


def raise_if_uniform_weights(A: object, X: torch.Tensor, W: Any, causal: bool, dtype: torch.dtype, said: str) -> None:
    """A that is the same weight on every visible key (1 / (t + 1) in row t when causal, 1 / T without the mask)
    on these projections, where the softmax of the scores is not: the scores never reached the weights (W_Q, W_K
    unused, or S * 0). A test that checks only properties (lower-triangular, rows of 1, O = A V) or uses W_Q =
    W_K = 0 (where uniform IS the answer) cannot tell it; this compares A with that mistake's own weights
    (red-team 52). `said` leads the message."""
    if not (type(A) is torch.Tensor and A.is_floating_point()):
        return
    X64, W64 = X.double(), [w.double() for w in W]
    want = ref.self_attention(X64, *W64, causal=causal)[1]
    uniform = ref.self_attention_variants(X64, *W64, causal=causal)["uniform_weights"][1]
    if matching_variants(A, {"uniform_weights": uniform}, dtype, expected=want):
        where = "1 / (t + 1) in row t, t from 0" if causal else "1 / T"
        raise Misconception("uniform_weights", f"{said} every visible key the same weight ({where}), whatever "
                            "the scores: " + describe("uniform_weights") + "; the weights are softmax(Q K^T / "
                            "sqrt(d_k) + M), with Q = X W_Q and K = X W_K")


def _causal_weights(A: object, shape: torch.Size) -> bool:
    """A float tensor of `shape` with no weight above the diagonal and rows summing to 1: causal weights."""
    if not (type(A) is torch.Tensor and A.is_floating_point() and tuple(A.shape) == tuple(shape)
            and bool(torch.isfinite(A).all())):
        return False
    A64 = A.double()
    return bool((A64.triu(1) == 0).all()) and bool(torch.allclose(A64.sum(-1), torch.ones_like(A64[..., 0]),
                                                                  rtol=0, atol=1e-2))


def raise_if_blocked_row_nan(fn: Callable[..., object], got: object, S: torch.Tensor, M: torch.Tensor) -> None:
    """NaN on exactly the rows M blocks entirely, the other rows right, where a second call with the
    blocked entries at -5 (an additive mask, no longer finfo.min) gives what -inf there gives: the mask
    was turned into -inf (masked_fill(M != 0, -inf)) instead of added (mask_filled_with_inf)."""
    def nan_rows_else_right(out: object, want: torch.Tensor) -> bool:
        bad = torch.isnan(want).any(dim=-1)
        return (type(out) is torch.Tensor and tuple(out.shape) == tuple(want.shape)
                and torch.equal(torch.isnan(out).any(dim=-1), bad) and is_right(out[~bad], want[~bad], S.dtype))

    if not nan_rows_else_right(got, ref.attention_weights(S, M).masked_fill((M != 0).all(-1, keepdim=True),
                                                                          float("nan"))):
        return
    M5 = M.masked_fill(M != 0, -5.0)
    try:
        probe = fn(S, M5)
    except StudentCodeError:
        return
    if nan_rows_else_right(probe, torch.softmax(S.masked_fill(M5 != 0, float("-inf")), dim=-1)):
        raise Misconception("mask_filled_with_inf", f"A is NaN on the {int((M != 0).all(-1).sum())} row(s) whose "
                            "keys are all blocked and right elsewhere, and a mask of -5 gives its keys no weight "
                            "at all: " + describe("mask_filled_with_inf"))


def raise_if_cross_blocked_row_nan(fn: Callable[..., object], got: object, want: tuple[torch.Tensor, torch.Tensor],
                                   X: torch.Tensor, Y: torch.Tensor, W: tuple[torch.Tensor, ...] | list[torch.Tensor],
                                   M: torch.Tensor | None,
                                   dtype: torch.dtype) -> None:
    """cross_attention's (O, A) NaN on exactly the query rows whose keys M blocks entirely and right on every
    other row, where a second call with the blocked entries at -5 gives what -inf there gives (those keys no
    weight, not -5 added): the mask turned into -inf (masked_fill(M != 0, -inf)) instead of added, mask_filled_with_inf
    (blind70). An unguarded exp(S + M) / sum is NaN on those rows too, but adds the -5 as it is: nothing."""
    if M is None or not (isinstance(got, (tuple, list)) and len(got) == 2):
        return
    full = (M != 0).all(dim=-1)
    if not bool(full.any()):
        return

    def nan_rows_else_right(out: object, ref_out: tuple[torch.Tensor, torch.Tensor]) -> bool:
        if not (isinstance(out, (tuple, list)) and len(out) == 2):
            return False
        for g, w in zip(out, ref_out):
            if type(g) is not torch.Tensor or tuple(g.shape) != tuple(w.shape):
                return False
            try:
                bad = torch.broadcast_to(full, w.shape[:-1])
            except RuntimeError:
                return False
            if not (bool(torch.isnan(g[bad]).all()) and not bool(torch.isnan(g[~bad]).any())
                    and is_right(g[~bad], w[~bad], dtype)):
                return False
        return True

    if not nan_rows_else_right(got, want):
        return
    M5 = M.masked_fill(M != 0, -5.0)
    X64, Y64, W64 = X.double(), Y.double(), [w.double() for w in W]
    S = (X64 @ W64[0]) @ (Y64 @ W64[1]).transpose(-2, -1) / math.sqrt(W64[0].shape[-1])
    A5 = torch.softmax(S.masked_fill(M5 != 0, float("-inf")), dim=-1)
    O5, A5_added = A5 @ (Y64 @ W64[2]), torch.softmax(S + M5.double(), dim=-1)
    open_rows = ~torch.broadcast_to(full, A5.shape[:-1])
    if is_right(A5[open_rows], A5_added[open_rows], torch.float64):   # no key blocked on an open row: -5 shows nothing
        return
    try:
        probe = fn(X, Y, *W, M5)
    except StudentCodeError:
        return
    if nan_rows_else_right(probe, (O5, A5)):
        raise Misconception("mask_filled_with_inf", f"O and A are NaN on the {int(full.sum())} query row(s) whose keys "
                            "the mask blocks entirely (where finfo.min added keeps the row finite and uniform) and "
                            "right elsewhere, and a mask of -5 gives its keys no weight at all: "
                            + describe("mask_filled_with_inf"))


def assert_blocked_query_finite(fn: Callable[..., object], got: object, X: torch.Tensor, Y: torch.Tensor,
                                W: tuple[torch.Tensor, ...] | list[torch.Tensor], M: torch.Tensor, dtype: torch.dtype) -> None:
    """q13's queries whose keys M blocks entirely (the notebook, section 3: with finfo.min added such a row stays
    finite, uniform instead of NaN): mask_filled_with_inf where raise_if_cross_blocked_row_nan's evidence holds, and
    a NaN or inf there otherwise fails unnamed. Only finiteness is asked of those rows: exp(Z - logsumexp(Z)) gives
    them ones in float32 (the logsumexp rounds to Z there), which the variants hold right."""
    if not (isinstance(got, (tuple, list)) and len(got) == 2 and all(type(t) is torch.Tensor for t in got)):
        return   # the other rows' case (the same call with one row fewer blocked) judges a wrong container
    want = ref.cross_attention(X.double(), Y.double(), *(w.double() for w in W), M.double())
    raise_if_cross_blocked_row_nan(fn, tuple(got), want, X, Y, W, M, dtype)
    full = (M != 0).all(dim=-1)
    for what, t in zip(("O", "A"), got):
        try:
            bad = torch.broadcast_to(full, t.shape[:-1])
        except RuntimeError:
            return
        if not bool(torch.isfinite(t[bad]).all()):
            raise AssertionError(f"{what} is NaN or inf on the query whose keys the mask blocks entirely: with the mask's "
                                 "finfo.min added, that row stays finite (it comes out uniform; the notebook, section 3)")


def check_all_blocked_cross(fn: Callable[..., object], X: torch.Tensor, Y: torch.Tensor,
                            W: tuple[torch.Tensor, ...] | list[torch.Tensor], stages: tuple[Any, ...]) -> None:
    """q13: cross_attention with a (T, T') mask of finfo(float32).min in every entry, judged by assert_all_blocked_alike;
    an answer that is the reference run on the student's own scaled_scores and attention_weights is theirs to charge."""
    M = torch.full((X.shape[-2], Y.shape[-2]), torch.finfo(torch.float32).min)
    checks.charged_in_parts(lambda: checks.call(fn, X, Y, *W, M, what="cross_attention"),
                            lambda out: assert_all_blocked_alike(out, X, Y, W, M),
                            lambda: ref.cross_attention(X, Y, W[0], W[1], W[2], M, parts=dict(zip(
                                ("scaled_scores", "attention_weights"), stages))), parts=stages)


def assert_all_blocked_alike(got: object, X: torch.Tensor, Y: torch.Tensor, W: tuple[torch.Tensor, ...] | list[torch.Tensor],
                             M: torch.Tensor) -> None:
    """q13 with a mask that blocks every key of every query (finfo.min everywhere): S + M is one number in every entry,
    so each row of A comes out alike (uniform; the notebook, section 3; ones from exp(Z - logsumexp(Z)) in float32,
    which assert_blocked_query_finite lets stand). A that is the plain softmax of the scores is the mask dropped
    where it has no zero entry (blind88's `if M is None or M.all()`: all() of an additive mask read as 'keeps every
    key'; the test's partly blocked masks before it are applied): additive_mask_as_boolean."""
    if not (isinstance(got, (tuple, list)) and len(got) == 2 and all(type(t) is torch.Tensor for t in got)):
        return
    A = got[1]
    if not A.is_floating_point() or A.shape[-1] != M.shape[-1]:
        return
    A64 = A.detach().double()
    if bool(torch.isfinite(A64).all()) and bool((A64.amax(-1) - A64.amin(-1) <= 1e-5).all()):
        return
    Q, K = X.double() @ W[0].double(), Y.double() @ W[1].double()
    S = ref.scaled_scores(Q, K)
    for fill in (torch.finfo(torch.float16).min, -1e4):   # blocked entries at a smaller finite value (M.clamp, blind87)
        Z = (S.float() + torch.full_like(M, fill)).double()   # float32's rounding of S + fill: S's spread survives
        if not is_right(A, torch.softmax(S, dim=-1), torch.float32) and is_right(A, torch.softmax(Z, dim=-1), torch.float32):
            raise Misconception("mask_not_dtype_min", f"with a mask that blocks every key, A's rows are not uniform: they "
                                f"are the softmax of S + ({fill:g}), a blocked value that leaves the scores' differences "
                                "in place, where finfo(float32).min swamps them: " + describe("mask_not_dtype_min"))
    if is_right(A, torch.softmax(S, dim=-1), torch.float32):
        raise Misconception("additive_mask_as_boolean", "with a mask that blocks every key (finfo.min in every entry), A "
                            "is the plain softmax of the scores, as if there were no mask, while the masks with open (0) "
                            "entries before it are applied: a mask with no zero entry is read as keeping every key: "
                            + describe("additive_mask_as_boolean"))
    raise AssertionError("with a mask that blocks every key, A's rows are not uniform: S + M is the same number in every "
                         "entry there, so each row comes out uniform (the notebook, section 3)")


def raise_if_blocked_row_wrong(fn: Callable[..., object], got: object, S: torch.Tensor, M: torch.Tensor) -> None:
    """q05's rows whose keys M blocks entirely: NaN there (raise_if_blocked_row_nan) or all zeros
    (raise_if_blocked_row_zeroed); the notebook says such a row stays finite and comes out uniform."""
    full = (M != 0).all(dim=-1)
    if (type(got) is torch.Tensor and got.is_floating_point() and tuple(got.shape) == tuple(S.shape) and M.dim() == 2
            and bool(full.any()) and not bool(torch.isfinite(got[full]).all())
            and is_right(got[~full], ref.attention_weights(S, M)[~full], S.dtype)):
        # blind25: M.float() on float64 inputs turns float64's finfo.min into -inf, and a fully blocked row into
        # -inf - (-inf) = NaN. One maximum for the whole tensor gives the same NaN; a second call with the blocked
        # entries at -1e4 (a fill every float dtype holds) tells them apart: a cast mask is then right everywhere,
        # a global maximum still underflows that row
        M2 = M.masked_fill(M != 0, -1e4)
        try:
            again = fn(S, M2)
        except Exception:  # noqa: BLE001 - no second value: nothing to name
            again = None
        if is_right(again, ref.attention_weights(S, M2), S.dtype):
            raise Misconception("dtype_changed", f"A is NaN or inf only in the rows whose keys are all blocked at "
                                f"{S.dtype}'s finfo.min, and right everywhere with those keys at -1e4: the fill became "
                                "-inf in your code (a mask cast to float32 or float16, where that minimum does not "
                                "fit), so a fully blocked row is -inf - (-inf): " + describe("dtype_changed"))
    raise_if_blocked_row_nan(fn, got, S, M)
    raise_if_blocked_row_zeroed(fn, got, S, M)


def raise_if_blocked_row_zeroed(fn: Callable[..., object], got: object, S: torch.Tensor, M: torch.Tensor) -> None:
    """Every row whose keys M (finfo.min where blocked) blocks entirely all 0, where the notebook says it stays
    finite and comes out uniform. Named zero_after_softmax by replay: A is the right weights with every blocked
    weight zeroed after the softmax, and a second call with the blocked entries at -5 (no longer finfo.min)
    gives the softmax of S + M, or it with the blocked weights zeroed. The -inf fill with NaN turned into 0
    (zero rows too on the first input) gives the -5 keys no weight and renormalises: neither; it stays generic."""
    full = (M != 0).all(dim=-1)
    if not (type(got) is torch.Tensor and got.is_floating_point() and tuple(got.shape) == tuple(S.shape)
            and M.dim() == 2 and bool(full.any()) and bool(torch.isfinite(got).all())
            and bool((got[..., full, :] == 0).all())):
        return
    rows = ", ".join(str(int(i)) for i in full.nonzero().flatten())
    said = (f"A is all zeros on row {rows}, whose keys are all blocked: the notebook says such a row stays finite "
            "and comes out uniform (S + M softmaxed like any other row: every score there is about finfo.min), "
            "not zeroed; its weights must sum to 1")
    if is_right(got, ref.attention_weights(S, M) * (M == 0), S.dtype):
        M5 = M.masked_fill(M != 0, -5.0)
        right5 = ref.attention_weights(S, M5)
        try:
            probe = fn(S, M5)
        except StudentCodeError:
            probe = None
        if any(is_right(probe, w, S.dtype) for w in (right5, right5 * (M5 == 0))):
            raise Misconception("zero_after_softmax", said + "; with the blocked entries at -5 instead of finfo.min "
                                "your weights are the softmax of S + M (blocked weights zeroed after it or not): "
                                + describe("zero_after_softmax"))
    raise AssertionError(said)


def raise_if_rows_unnormalised(got: object, expected: torch.Tensor, dtype: torch.dtype, what: str,
                               M: torch.Tensor | None = None) -> None:
    """Positive weights of the right shape whose rows do not sum to 1, but each row divided by its own sum
    is right: not normalised, whatever was subtracted before the exp (nothing, a global maximum, a mean).
    Zeroing masked weights after the softmax looks the same row by row, but its rows sum to at most 1,
    and to exactly 1 where M blocks nothing: named only when some row sums to more than 1, or a row M
    leaves open does not sum to 1. A whole matrix that sums to 1 (one sum over everything) is not named."""
    if not (type(got) is torch.Tensor and got.is_floating_point() and tuple(got.shape) == tuple(expected.shape)):
        return
    g = got.detach().to(torch.float64)
    if g.dim() < 2 or g.numel() == 0 or not bool(torch.isfinite(g).all()) or bool((g < 0).any()):
        return
    sums = g.sum(dim=-1)
    if bool((sums <= 0).any()) or bool(torch.allclose(g.sum(dim=(-2, -1)), torch.ones((), dtype=torch.float64), rtol=0, atol=1e-3)):
        return
    off = (sums - 1).abs() > 1e-3
    open_rows = torch.ones_like(off) if M is None else (M == 0).all(dim=-1).expand_as(off)
    if not (bool((sums > 1 + 1e-3).any()) or bool((off & open_rows).any())):
        return
    # every row below 1: divided, by more than its own sum (an extra term, "softmax one"; blind35), which exp(s)
    # or exp(s - max) undivided does not give (the row maximum's own exp(0) = 1 is in its sum): not this key
    if bool((sums < 1 - 1e-3).all()):
        return
    if is_right(g / sums[..., None], expected, dtype):
        raise Misconception("weights_not_normalised", f"{what}: its rows sum to {float(sums.min()):.3g} .. "
                            f"{float(sums.max()):.3g}, and each row divided by its own sum is right: "
                            + describe("weights_not_normalised"))


def raise_if_one_value(got: object, want: tuple[torch.Tensor, ...], names: tuple[str, ...], what: str,
                       dtype: torch.dtype) -> None:
    """One tensor that is one of the right results, where the function returns them all as a tuple."""
    if type(got) is not torch.Tensor:
        return
    for name, w in zip(names, want):
        if is_right(got, w, dtype):
            raise Misconception("returns_one_value", f"{what} returns one tensor, the right {name}: "
                                + describe("returns_one_value") + f" (return ({', '.join(names)}))")


def other_dtype_min_said(blocked: torch.Tensor, dtype: torch.dtype) -> str:
    """Words for blocked entries that all hold another float dtype's finfo.min (blind71: a float32 mask built once,
    then cast to float64): which dtype's, and the fix; "" where they hold anything else."""
    if blocked.numel() == 0 or not bool((blocked == blocked.flatten()[0]).all()):
        return ""
    c = float(blocked.flatten()[0])
    for other in (torch.float16, torch.bfloat16, torch.float32, torch.float64):
        if other != dtype and c == torch.finfo(other).min and c != torch.finfo(dtype).min:
            name, want = str(other).removeprefix("torch."), str(dtype).removeprefix("torch.")
            return (f": they hold {c:.3g}, {name}'s torch.finfo(...).min, not {want}'s ({torch.finfo(dtype).min:.3g}): "
                    f"the mask is built in {name} (a constant or a mask made once in {name}) and then cast to {want}; "
                    "build it in the dtype asked, with torch.finfo(dtype).min of that dtype")
    return ""


def minus_1e9_mask(fn: Callable[..., object], T: int, dtype: torch.dtype, submission: object = None) -> Misconception:
    """q04: every blocked entry in `dtype` is -1e9. neg_1e9_float16 (the constant float16 cannot hold) unless the
    same code's float16 mask (a second call) is right, its blocked entries float16's own finfo.min: then -1e9 is a
    floor kept for the wider dtypes only (a clamp, or max(-1e9, finfo.min): blind73), nothing overflows, and the
    key is mask_not_dtype_min."""
    try:
        M16 = fn(T, torch.float16)
    except StudentCodeError:
        M16 = None
    upper = torch.ones(T, T, dtype=torch.bool).triu(1)
    if type(M16) is torch.Tensor and M16.dtype == torch.float16 and tuple(M16.shape) == (T, T) \
            and bool((M16.cpu()[upper] == torch.finfo(torch.float16).min).all()) and bool((M16.cpu()[~upper] == 0).all()):
        low = torch.finfo(dtype).min
        return Misconception("mask_not_dtype_min", f"blocked entries in {dtype} are -1e9, not torch.finfo(dtype).min "
                             f"({low:.4g}), while the float16 mask of the same code holds float16's own minimum "
                             "(-65504): -1e9 is a floor for the wider dtypes (a clamp at -1e9, or max(-1e9, "
                             "finfo.min)), not an overflow; nothing needs guarding, use torch.finfo(dtype).min for "
                             "every dtype: " + describe("mask_not_dtype_min"))
    return Misconception("neg_1e9_float16", "blocked entries are -1e9, a constant float16 cannot hold; use "
                         "torch.finfo(dtype).min" + shadowed_def_said(submission, "causal_additive_mask"))


def raise_if_blocked_value(blocked: torch.Tensor, dtype: torch.dtype) -> None:
    """The right entries blocked, every one holding one constant that is not very negative: named after
    the constant that is not torch.finfo(dtype).min (finfo.max or finfo.tiny typed for it, a small
    negative number), and said which it is. Returns when the blocked entries differ among themselves."""
    if blocked.numel() == 0 or not bool((blocked == blocked.flatten()[0]).all()):
        return
    c = float(blocked.flatten()[0])
    if math.isnan(c) or c == float("-inf"):
        return
    info = torch.finfo(dtype)
    which = {info.max: "torch.finfo(dtype).max, the largest positive number", info.tiny: "torch.finfo(dtype).tiny, "
             "the smallest positive normal number", info.eps: "torch.finfo(dtype).eps"}.get(c, f"{c:.3g}")
    effect = "blocks nothing" if c >= 0 else "is not negative enough to block a key"
    raise Misconception("mask_not_dtype_min", f"the blocked entries ({dtype}) all hold {which}, which added to "
                        f"the scores {effect}: " + describe("mask_not_dtype_min"))


def mask_patterns(T: int) -> dict[str, torch.Tensor]:
    """{key: the blocked entries (bool)} of masks ref.mask_variants does not list: masked_fill(tril, ...) for
    masked_fill(tril == 0, ...) blocks the diagonal and the past and leaves only the future open (naming18)."""
    return {"upper_triangular_mask/inverted": torch.ones(T, T, dtype=torch.bool).tril()}


def pattern_differs(blocked: torch.Tensor, want: torch.Tensor, M: torch.Tensor | None = None) -> str:
    """Which entries a mask gets wrong, in words: how many it blocks that must stay open and how many it
    leaves open that must be blocked, each with its first (query, key) position. With the mask `M` itself,
    entries that must be 0 but hold a finite value too small to block anything (1 from torch.ones, blind35)
    are said as what they hold, not as blocked."""
    said = []
    wrong_open = blocked & ~want
    if M is not None and M.shape == blocked.shape:
        v = M.detach().to(torch.float64)
        held = wrong_open & torch.isfinite(v) & (v.abs() < 1e4)
        if bool(held.any()):
            first = tuple(int(i) for i in held.nonzero()[0])
            vals = v[held].unique()
            what = f"hold {float(vals[0]):g} instead of 0" if vals.numel() == 1 else \
                f"hold nonzero values instead of 0 (the first {float(v[first]):g})"
            said.append(f"{int(held.sum())} entries that must be 0 {what}, a shift of those scores, not a block "
                        f"(the first at (query, key) = {first})")
            wrong_open = wrong_open & ~held
    for n, what in ((wrong_open, "blocked that must stay open"), (~blocked & want, "open that must be blocked")):
        if bool(n.any()):
            first = tuple(int(i) for i in n.nonzero()[0])
            said.append(f"{int(n.sum())} entries {what} (the first at (query, key) = {first})")
    return "; ".join(said) or "the blocked entries are right"


# --- crashes named from a second call ---------------------------------------------------------------

def batched_crash(e: StudentCodeError, tensors: Tensors, rerun: Callable[[Tensors], object],
                  right: Callable[[Tensors, object], bool], up: bool = False,
                  shared: tuple[str, ...] = ()) -> Misconception | None:
    """A crash on inputs with batch dims, where the first slice with fewer batch dims (down to 2-D) that
    runs at all is right: the code handles only 2-D (or 3-D) inputs. `rerun(part)` calls the student's
    function on `part` (the tensors sliced at index 0 of their leading dims), `right(part, out)` judges
    its output. None when no slice runs, or the first that runs is not right. With `up`, when no slice
    runs, the same inputs with one batch axis added (their largest, 2-D or 3-D) are tried as well; the
    tensors named in `shared` (a (T, T') mask every batch entry shares) are then also tried as they are,
    the batch axis added to the others alone (X and Y looped over X.shape[0] as batches: a mask given the
    batch axis too broadcasts into each entry's weights and O's shape, blind33)."""
    top = max((t.dim() for t in tensors.values() if isinstance(t, torch.Tensor)), default=0)
    named = size_as_dim_crash(e, tensors, rerun, right, top)
    if named is not None:
        return named
    for k in range(top - 1, 1, -1):
        part = {n: t[(0,) * (t.dim() - k)] if isinstance(t, torch.Tensor) and t.dim() > k else t
                for n, t in tensors.items()}
        try:
            out = rerun(part)
        except StudentCodeError:
            continue
        if not right(part, out):
            return None
        return Misconception("batched_input_unsupported", f"{_said(e)} for {_shapes(tensors)}; on one slice of "
                             f"the same inputs ({_shapes(part)}) it runs and is right: "
                             + describe("batched_input_unsupported") + _einsum_cause(e) + _tail(e))
    for added in range(1, 5 - top if up and 2 <= top <= 3 else 1):
        # nothing with fewer dims runs: the same inputs with one batch axis added (code written for
        # exactly (B, T, d): an einsum "btd,...", a fixed unpacking of X.shape), or for 2-D inputs two
        # (code for (B, H, T, d) only: K.transpose(2, 3)), run and are right (naming25)
        forms = [()] + [shared] if shared and any(isinstance(tensors.get(n), torch.Tensor) for n in shared) else [()]
        ran = part = None
        for kept in forms:
            part = {n: t[(None,) * added] if isinstance(t, torch.Tensor) and t.dim() == top and n not in kept else t
                    for n, t in tensors.items()}
            try:
                out = rerun(part)
            except StudentCodeError:
                continue
            ran = right(part, out)
            if ran:
                break
        if ran is None:
            continue
        if not ran:
            return None
        return Misconception("batched_input_unsupported", f"{_said(e)} for {_shapes(tensors)}; with "
                             f"{'a batch axis' if added == 1 else f'{added} batch axes'} added ({_shapes(part)}) it "
                             "runs and is right: your code works for one number of dimensions only. "
                             + describe("batched_input_unsupported") + _einsum_cause(e) + _tail(e))
    return None


def rank_minus_one_said(got: int, T: int, d_k: int) -> str:
    """q11's rank_from_size_arithmetic where max_rank_S is one less than a size (d_k - 1, T - 1): what a minus one is
    true of, a centred matrix (naming round 76, blind77's bound taken like a sample covariance's n - 1). Else ''."""
    if got not in (d_k - 1, T - 1):
        return ""
    return ("; one less than a size is the bound of a CENTRED matrix (a covariance with its mean subtracted loses one "
            "rank to that mean, hence n - 1); S = Q K^T subtracts no mean, so no rank is lost: min(T, d_k)")


def _einsum_cause(e: StudentCodeError) -> str:
    """The crash's own cause where torch's einsum said it (naming round 76, blind77's 'tk,kd->td' on a batched X):
    a subscript string with one letter per axis of a 2-D operand and no '...' for the batch axes. Else ''."""
    said = e.message or ""
    if "einsum()" not in said or "ellipsis" not in said:
        return ""
    return ("; here it is the einsum string: it names one letter per axis of a 2-D operand and no '...', so a batched "
            "input has more axes than letters: put '...' in front of each operand and of the result ('tk,kd->td' "
            "as '...tk,...kd->...td')")


_DIM_RANGE = re.compile(r"Dimension out of range \(expected to be in range of \[(-?\d+), (-?\d+)\], but got (-?\d+)\)")


def fixed_axis_crash(e: StudentCodeError) -> bool:
    """torch's 'Dimension out of range ... but got 2' (or 3): a dim written out for 3-D or 4-D inputs (softmax(S,
    dim=2) for (B, T, T) scores); batched_crash(up=True) then tries the same inputs with batch axes added, which
    run and are right where that fixed axis is the last one there (naming30)."""
    found = _DIM_RANGE.search(e.message or "")
    return e.exc_type == "IndexError" and found is not None and int(found.group(3)) in (2, 3)


def size_as_dim_crash(e: StudentCodeError, tensors: Tensors, rerun: Callable[[Tensors], object],
                      right: Callable[[Tensors, object], bool], top: int) -> Misconception | None:
    """size_as_dim: torch's 'Dimension out of range ... but got N' where N (at least 4, so no hard-coded
    dim=2 or dim=3) is the size of one of the inputs' last two axes, and the same values with leading axes
    of size 1 added up to N + 1 dims (the sizes unchanged, so a size passed as the dim is now the last axis,
    dim=-1) run and are right: the dim was read from a size (softmax(S, S.shape[-1])). A hard-coded dim
    would need N + 1 dims too, hence N >= 4: nobody writes dim=8 by hand."""
    found = _DIM_RANGE.search(e.message or "")
    if e.exc_type != "IndexError" or not found:
        return None
    got = int(found.group(3))
    owners = [(n, a) for n, t in tensors.items() if isinstance(t, torch.Tensor) and t.dim() >= 2
              for a in (-2, -1) if t.shape[a] == got]
    if got < 4 or got < top or not owners:
        return None
    # a size too large for that many dims (64 keys): that axis of the inputs cut to its first 6 entries, where
    # dim 6 would be the last axis of 7 dims: the dim follows the size
    n = got if got <= 16 else max(6, top)
    name, axis = owners[0]
    cut = {k: t[..., :n] if axis == -1 else t[..., :n, :] for k, t in tensors.items()
           if isinstance(t, torch.Tensor) and t.dim() >= 2 and t.shape[axis] == got}
    part = {k: cut.get(k, t) for k, t in tensors.items()}
    part = {k: t.reshape((1,) * (n + 1 - t.dim()) + tuple(t.shape)) if isinstance(t, torch.Tensor) and t.dim() == top
            else t for k, t in part.items()}
    try:
        out = rerun(part)
    except StudentCodeError:
        return None
    if not right(part, out):
        return None
    how = f"its first {n} of {got} entries along that axis, " if n != got else ""
    return Misconception("size_as_dim", f"{_said(e)}: {got} is {name}.shape[{axis}], a size of the inputs; with the "
                         f"same values ({how}given {n + 1} dims: leading axes of size 1, so that dim {n} is the last "
                         "axis) it runs and is right: " + describe("size_as_dim") + _tail(e))


def width_crash(e: StudentCodeError, tensors: Tensors, part: Tensors, rerun: Callable[[Tensors], object],
                right: Callable[[Tensors, object], bool]) -> Misconception | None:
    """A size-mismatch crash on `tensors`, whose width (d_model) differs from their length (T), where the
    same call on `part`, inputs of the same length T whose width is T too (the caller draws them, with
    weights to match), runs and is right: a length read from the wrong axis (a causal mask sized from
    X.shape[-1]). `rerun(part)` calls the student's function, `right(part, out)` judges its output."""
    if "must match the size" not in e.message and "size mismatch" not in e.message.lower():
        return None
    try:
        out = rerun(part)
    except StudentCodeError:
        return None
    if not right(part, out):
        return None
    return Misconception("length_from_wrong_axis", f"{_said(e)} for {_shapes(tensors)}; on inputs as wide as they "
                         f"are long ({_shapes(part)}) it runs and is right: " + describe("length_from_wrong_axis")
                         + _tail(e))


DTYPE_CRASH = ("to have the same dtype", "expected scalar type", "expected both vectors to have same dtype")


def self_attention_crash(fn: Callable[..., object], e: StudentCodeError, X: torch.Tensor,
                         W: tuple[torch.Tensor, ...], causal: bool = True,
                         stages: Mapping[str, Any] | None = None) -> Misconception | None:
    """What a second call shows of a crash of self_attention itself (charged_in_parts lets through only a
    crash its stages do not explain): on a batched X, one 2-D slice runs and is right (X.shape[0] as T);
    on float16, the float32 copy runs and is right (some step makes float32 and mixes it in); with
    d_model != T, inputs as wide as long run and are right (T read from X.shape[-1]); on a 2-D X, with no
    size mismatch, X with a batch axis added runs and is right (B, T, C = X.shape). None otherwise."""
    def right(X_: torch.Tensor, W_: Any, out: object, dtype: torch.dtype = X.dtype) -> bool:
        W_Q, W_K, W_V = (w.double() for w in W_)
        return all_right(out, ref.self_attention(X_.double(), W_Q, W_K, W_V, causal=causal), dtype)

    named = None
    if not causal and stages is not None:   # attention_weights(M, S): None in the scores' slot (blind67)
        named = weights_mask_first_crash(e, X, W, stages.get("attention_weights"))
    if named is None and X.dim() > 3:   # T from a fixed batch axis: X.shape[1] of (B, H, T, d_model) (blind88)
        named = batch_axis_length_crash(e, X, lambda X_: fn(X_, *W, causal=causal), lambda X_, o: right(X_, W, o))
    if named is None and X.dim() > 2:
        named = batched_crash(e, {"X": X}, lambda t: fn(t["X"], *W, causal=causal), lambda t, o: right(t["X"], W, o))
    if named is None and causal and X.dtype in (torch.float16, torch.bfloat16) \
            and any(m in e.message for m in DTYPE_CRASH):
        # the same crash only at a length an earlier float32 call used: a mask cached by T alone (blind53)
        named = mask_cached_by_length_crash(fn, e, X, W, right)
    if named is None and X.dtype in (torch.float16, torch.bfloat16) and any(m in e.message for m in DTYPE_CRASH):
        X32, W32 = X.float(), [w.float() for w in W]
        try:
            out = fn(X32, *W32, causal=causal)
        except StudentCodeError:
            out = None
        if out is not None and right(X32, W32, out, torch.float32):
            named = Misconception("dtype_changed", f"{_said(e)} on {X.dtype} inputs, and on their float32 copy it runs "
                                  "and is right: " + describe("dtype_changed"))
    if named is None:   # the head outputs merged back with d_model where they are d_v wide (blind27)
        named = merged_to_model_width_crash(fn, e, X, W, causal)
    if named is None:
        named = values_as_wide_crash(e, W, lambda W2: fn(X, *W2, causal=causal),
                                     lambda W2, out: _self_attention_key(out, X, W2, causal))
    if named is None:
        named = values_as_long_crash(fn, e, X, W, causal)
    if named is None:   # X + A @ V: runs only where d_v = d_model (naming21)
        named = residual_crash(fn, e, X, W, causal)
    if named is None and X.shape[-1] != X.shape[-2]:
        part = as_wide_as_long(X, W)
        named = width_crash(e, {"X": X}, part, lambda t: fn(t["X"], *t["W"], causal=causal),
                            lambda t, o: right(t["X"], t["W"], o))
    if named is None:   # Q @ K: K^T handed to scaled_scores, which transposes it again (naming29, blind23)
        named = keys_untransposed_crash(e, X, W)
    if named is None and causal:   # a mask built once, for one length (round 47b, blind46)
        named = mask_sized_once_crash(fn, e, X)
    if named is None and X.dim() == 2 and not _size_mismatch(e):
        # code for exactly (B, T, d_model) (B, T, C = X.shape, an einsum "btd,..."), right with a batch axis
        # added; never on a size mismatch: T read from X.shape[1] runs and is right there as well
        named = batched_crash(e, {"X": X}, lambda t: fn(t["X"], *W, causal=causal), lambda t, o: right(t["X"], W, o),
                              up=True)
    return named


def raise_if_half_mask_promoted(fn: Callable[..., object], M: torch.Tensor, T: int, dtype: torch.dtype) -> None:
    """q04: the mask asked for in a 16-bit dtype comes back as float32 and is exactly the right float32 mask (float32's
    own minimum, where a mask built from Python numbers holds the asked dtype's minimum in float32), while the same
    code asked for float64 gives the right float64 mask: the dtype replaced on purpose for 16-bit floats only (blind88's
    `if torch.finfo(dtype).bits < 32: dtype = torch.float32`). Named mask_half_promoted_to_float32."""
    if dtype not in (torch.float16, torch.bfloat16) or M.dtype != torch.float32 \
            or not torch.equal(M, ref.causal_additive_mask(T, torch.float32)) or T < 2:
        return
    try:
        wide = fn(T, torch.float64)
    except StudentCodeError:
        return
    if type(wide) is not torch.Tensor or wide.dtype != torch.float64 \
            or not torch.equal(wide, ref.causal_additive_mask(T, torch.float64)):
        return
    raise Misconception("mask_half_promoted_to_float32", f"the mask asked for in {dtype} comes back as float32, holding "
                        f"float32's own minimum ({torch.finfo(torch.float32).min:.3g}), while asked for float64 it is "
                        "right in float64: " + describe("mask_half_promoted_to_float32"))


def batch_axis_length_crash(e: StudentCodeError, X: torch.Tensor, rerun: Callable[[torch.Tensor], object],
                            right: Callable[[torch.Tensor, object], bool]) -> Misconception | None:
    """A size-mismatch crash of self_attention on X with two or more leading axes, where the same values with one
    leading axis made as long as the sequence (its entries repeated or cut to T) run and are right: the length
    read from that fixed axis (`X.shape[1]` for a 3-D batch, the head axis of (B, H, T, d_model), blind88), so
    the mask is sized by it. Named length_from_wrong_axis; None otherwise (code for 3-D X only crashes on both)."""
    if not _size_mismatch(e):
        return None
    T = X.shape[-2]
    for axis in range(X.dim() - 2):
        n = X.shape[axis]
        if n == T:
            continue
        idx = torch.arange(T) % n
        part = X.index_select(axis, idx)
        try:
            out = rerun(part)
        except StudentCodeError:
            continue
        if right(part, out):
            return Misconception("length_from_wrong_axis", f"{_said(e)} for X {tuple(X.shape)}; with X's axis {axis} "
                                 f"made as long as the sequence (X {tuple(part.shape)}, T = {T}) it runs and is right: "
                                 f"the length is read from axis {axis}, a batch axis of this X: "
                                 + describe("length_from_wrong_axis") + _tail(e))
    return None


def peaked_self_attention_input(rng: torch.Generator, X_like: torch.Tensor, W: tuple[torch.Tensor, ...]
                                ) -> torch.Tensor:
    """q07: X shaped as `X_like`, drawn three times as large (scores with a spread near 9), so that the causal weights
    of visible keys reach from about 1 down below 1e-8 (float64 holds them): at least one lies in [1e-7, 1e-5]
    and one in [1e-4, 1e-2]. A clean-up that zeroes weights under a cut (1e-6, 1e-4 ...) then loses real weight."""
    X = X_like
    for _ in range(HONEST_DRAWS):
        X = checks.randn(tuple(X_like.shape), rng, X_like.dtype, 3.0)
        A = ref.self_attention(X.double(), *(w.double() for w in W))[1]
        if bool(((A > 1e-7) & (A < 1e-5)).any()) and bool(((A > 1e-4) & (A < 1e-2)).any()):
            break
    return X


def raise_if_small_weights_wrong(A: object, O: object, A_ref: torch.Tensor, V: torch.Tensor, dtype: torch.dtype,
                                 causal: bool) -> None:
    """q07, small weights wrong: A equal to the right weights except that every weight of a visible key below some
    cut is 0 (and the rows so cut renormalised or not), with O = A V from those weights: weights_small_snapped_to_zero
    (the cut read from the answer, the largest weight zeroed under the smallest kept, never assumed). Else, with the
    causal mask, a wrong A whose future weights are all tiny and positive (a floor on S + M, clamp(min=-25), on
    scores spread wide enough that its leak shows): blocked_weight_not_zero (raise_future_weight)."""
    if type(A) is not torch.Tensor or type(O) is not torch.Tensor or tuple(A.shape) != tuple(A_ref.shape) \
            or not A.is_floating_point():
        return
    upper = A.detach().double().triu(1)
    if causal and 0 < float(upper.abs().max()) <= 1e-6 and bool((upper >= 0).all()) and not bool(A_ref.triu(1).any()) \
            and not is_right(A, A_ref, dtype):   # only the naming branch of raise_future_weight: tiny, positive
        raise_future_weight(upper)
    zeroed = (A == 0) & (A_ref > 0)
    if not bool(zeroed.any()):
        return
    cut = float(A_ref[zeroed].max())
    kept = A_ref[A_ref > 0][A_ref[A_ref > 0] > cut]
    if kept.numel() == 0 or cut >= 1e-2 or cut >= float(kept.min()):
        return
    snapped = A_ref.masked_fill(A_ref <= cut, 0.0)
    replays = {"plain": snapped, "renormalised": snapped / snapped.sum(dim=-1, keepdim=True)}
    for how, a in replays.items():
        if is_right(A, a, dtype) and is_right(O, a @ V, dtype) and not is_right(A, A_ref, dtype):
            raise Misconception("weights_small_snapped_to_zero", f"A is the right weights with every weight at most "
                                f"{cut:.1e} set to 0 ({int(zeroed.sum())} weights of visible keys"
                                + (", the rows then renormalised" if how == "renormalised" else "") + "): "
                                + describe("weights_small_snapped_to_zero"))


def mask_cached_by_length_crash(fn: Callable[..., object], e: StudentCodeError, X: torch.Tensor,
                                W: tuple[torch.Tensor, ...], right: Callable[..., bool]) -> Misconception | None:
    """mask_cached_by_size from self_attention's dtype crash on half inputs (blind53's `_MASKS[T]`, built once per T
    in the first call's dtype): at a fresh length T1 (none a hidden test asks for), a float32 call runs and is right and
    the same X in X's own dtype next crashes with a dtype mismatch, while at another fresh length T2 the same dtype
    asked first runs and is right. Code that makes float32 on every call fails the T2 call; code right in both dtypes
    never crashes at T1. None otherwise."""
    T, d_model = X.shape[-2], X.shape[-1]
    g = torch.Generator().manual_seed(53)
    runs = []
    for T_new in (T + 37, T + 41):
        X_new = (torch.randn((*X.shape[:-2], T_new, d_model), generator=g, dtype=torch.float64) * 0.5).to(X.dtype)
        runs.append(X_new)
    X1, X2 = runs
    W32 = [w.float() for w in W]
    try:
        first = fn(X1.float(), *W32, causal=True)
    except StudentCodeError:
        return None
    if not right(X1.float(), W32, first, torch.float32):
        return None
    try:
        fn(X1, *W, causal=True)
        return None
    except StudentCodeError as again:
        if not any(m in again.message for m in DTYPE_CRASH):
            return None
    try:
        fresh = fn(X2, *W, causal=True)
    except StudentCodeError:
        return None
    if not right(X2, W, fresh, X.dtype):
        return None
    return Misconception("mask_cached_by_size", f"self_attention reuses a mask built for an earlier call of the same "
                         f"length in another dtype ({_said(e)} on {X.dtype} inputs): at a new length ({T + 41}) "
                         f"{X.dtype} asked first runs and is right, and at another ({T + 37}) it crashes the same way "
                         f"right after a float32 call of that length: " + describe("mask_cached_by_size"))


def _fixed_size_run(fn: Callable[..., object], T: int, avoid: set[int]) -> tuple[object, tuple[torch.Tensor, ...]]:
    """self_attention(X, W_Q, W_K, W_V, causal=True) on fresh float64 inputs T tokens long (a fixed seed), whose
    widths d_model, d_k, d_v differ from each other and from every size in `avoid`: (its output or the
    StudentCodeError it raised, the inputs)."""
    widths = [w for w in range(6, 40) if w not in avoid][:3]
    g = torch.Generator().manual_seed(47)
    X = torch.randn((T, widths[0]), generator=g, dtype=torch.float64)
    W = tuple(torch.randn((widths[0], w), generator=g, dtype=torch.float64) / math.sqrt(widths[0])
              for w in (widths[1], widths[1], widths[2]))
    try:
        return fn(X, *W, causal=True), (X, *W)
    except StudentCodeError as err:
        return err, (X, *W)


def size_against(e: StudentCodeError, T: int) -> int | None:
    """The other size of a crash's size mismatch ("The size of tensor a (x) must match the size of tensor b (y)")
    where one of the two is the input's length T and the other is not; None otherwise."""
    found = _ANY_SIZES.search(e.message or "")
    if not found:
        return None
    a, b = int(found.group(1)), int(found.group(2))
    if T not in (a, b) or a == b:
        return None
    return a if b == T else b


def mask_sized_once_crash(fn: Callable[..., object], e: StudentCodeError, X: torch.Tensor) -> Misconception | None:
    """mask_sized_once from a crash: a broadcast of T against a size n != T, where fresh inputs n tokens long
    (widths apart from n, so no width can be what fixed it) run and are right, and inputs n - 1 and n + 1 tokens
    long crash against that same n: the mask (or whatever crashes) has one size, whatever the input's length (a
    default argument evaluated once when the def ran, a mask made at the top level). A mask cut from a larger
    buffer (right below its size) is not this: n - 1 runs there. None otherwise (round 47b, blind46)."""
    T = X.shape[-2]
    n = size_against(e, T)
    if n is None or not 3 <= n <= 64:
        return None
    avoid = {T, n - 1, n, n + 1}
    out, inputs = _fixed_size_run(fn, n, avoid)
    if isinstance(out, StudentCodeError) \
            or not all_right(out, ref.self_attention(*inputs, causal=True), torch.float64):
        return None
    if n < T:   # naming round 82 (blind83's block_size = 8 tril buffer sliced [:T, :T]): a buffer, right below its size
        named = _buffer_sliced_crash(fn, e, T, n, avoid)
        if named is not None:
            return named
    for m in (n - 1, n + 1):
        err, _ = _fixed_size_run(fn, m, avoid)
        sizes = _ANY_SIZES.search(err.message or "") if isinstance(err, StudentCodeError) else None
        if sizes is None or {int(sizes.group(1)), int(sizes.group(2))} != {m, n}:
            return None
    return Misconception("mask_sized_once", f"the causal mask has one fixed size, {n} tokens, whatever the input's "
                         f"length; build it from T = X.shape[-2] on each call. {_said(e)} for T = {T}; with {n} tokens "
                         f"it runs and is right, with {n - 1} or {n + 1} it crashes against {n} again: "
                         + describe("mask_sized_once"))


def _buffer_sliced_crash(fn: Callable[..., object], e: StudentCodeError, T: int, n: int,
                         avoid: set[int]) -> Misconception | None:
    """mask_sized_once for a mask cut from a fixed buffer made once, outside the function (blind83's top-level
    `tril = torch.tril(torch.ones(block_size, block_size))` sliced `tril[:T, :T]`): after a crash of T against
    n < T, fresh inputs n - 1 tokens long (as well as n) run and are right, n + 1 crashes against n, the notebook's
    causal_additive_mask (or self_attention) slices a name it never assigns, and it keeps nothing between calls (a
    cache grown at the first call's length is mask_cached_at_first_length's). None otherwise."""
    out, inputs = _fixed_size_run(fn, n - 1, avoid)
    if n < 3 or isinstance(out, StudentCodeError) \
            or not all_right(out, ref.self_attention(*inputs, causal=True), torch.float64):
        return None
    err, _ = _fixed_size_run(fn, n + 1, avoid)
    sizes = _ANY_SIZES.search(err.message or "") if isinstance(err, StudentCodeError) else None
    if sizes is None or {int(sizes.group(1)), int(sizes.group(2))} != {n + 1, n}:
        return None
    for func in ("causal_additive_mask", "self_attention"):
        node = _def_of(None, func)
        sliced = _slices_outer_name(node) if node is not None else None
        if sliced is not None and kept_state(None, func, written=True) is None and _buffer_never_written(sliced):
            return Misconception("mask_sized_once", f"{_said(e)} for T = {T}: your {func} slices the causal mask "
                                 f"from a buffer made once, outside it (`{sliced}`), {n} x {n}: inputs of up to {n} "
                                 f"tokens run and are right, and {n + 1} tokens crash against {n} again (a slice "
                                 "never grows the buffer): " + describe("mask_sized_once"))
    return None


def keys_untransposed_crash(e: StudentCodeError, X: torch.Tensor,
                            W: tuple[torch.Tensor, ...] | list[torch.Tensor]) -> Misconception | None:
    """self_attention's crash, words and sizes, is the one Q @ K gives (K's rows where K^T is needed) on zeros
    of this call's own Q and K shapes (crash_words.crash_replayed): K transposed before scaled_scores, which
    transposes it again, or never transposed at all. K @ Q, Q @ Q and K @ K raise the same words (Q and K have
    one shape here); each of them is a product of two untransposed (T, d_k) matrices too."""
    Q = torch.zeros((*X.shape[:-1], W[0].shape[-1]))
    K = torch.zeros((*X.shape[:-1], W[1].shape[-1]))
    crash = f"{e.exc_type}: {(e.message.splitlines() or [''])[0]}"
    if crash_words.crash_replayed(crash, {"scores_keys_not_transposed": lambda: Q @ K}) is None:
        return None
    return Misconception("scores_keys_not_transposed", f"{_said(e).rstrip('.')}: the crash that Q @ K gives on Q and K of shape "
                         f"{tuple(Q.shape)}, where the scores are Q @ K.transpose(-2, -1) (a K transposed before "
                         "scaled_scores, which transposes its second argument itself, is transposed twice): "
                         + describe("scores_keys_not_transposed"))


def weights_of_queries_crash(e: StudentCodeError, X: torch.Tensor, Y: torch.Tensor, W: Any, M: torch.Tensor | None,
                             rerun: Callable[[Any], object], dtype: torch.dtype) -> Misconception | None:
    """weights_from_queries from a crash: the softmax taken of the queries Q (T, d_k) instead of the scores, so
    A @ V (or Q + M) fails where d_k != T'. The crash alone does not tell (Q @ V, attention skipped, gives the
    same words): a second call with W_Q, W_K d_k = T' wide (their columns repeated) runs, and its (O, A) is
    (softmax(Q + M) V, softmax(Q + M)), not simply right. None otherwise (naming30)."""
    T_k = Y.shape[-2]
    if not _size_mismatch(e) or W[0].shape[-1] == T_k:
        return None
    reps = -(-T_k // W[0].shape[-1])
    W2 = [W[0].repeat(1, reps)[:, :T_k], W[1].repeat(1, reps)[:, :T_k], W[2]]
    try:
        out = rerun(W2)
    except StudentCodeError:
        return None
    X64, Y64, M64 = X.double(), Y.double(), None if M is None else M.double()
    W64 = [w.double() for w in W2]
    Q = X64 @ W64[0]
    A = torch.softmax(Q if M64 is None else Q + M64, dim=-1)
    want = ref.cross_attention(X64, Y64, W64[0], W64[1], W64[2], M64)
    if whole_key(out, {"weights_from_queries": (A @ (Y64 @ W64[2]), A)}, want, dtype) != "weights_from_queries":
        return None
    return Misconception("weights_from_queries", f"{_said(e).rstrip('.')}; with W_Q and W_K {T_k} wide (d_k = T', "
                         "their columns repeated) it runs, and A is the softmax of the queries Q (+ M) itself, O that "
                         "A times V: " + describe("weights_from_queries"))


def _size_mismatch(e: StudentCodeError) -> bool:
    """A crash of two sizes that do not line up (a broadcast or a product): what a length read from the
    wrong axis gives, not code written for one number of dimensions."""
    m = e.message.lower()
    return any(s in m for s in ("must match the size", "size mismatch", "cannot be multiplied", "shape mismatch"))


def _self_attention_key(out: object, X: torch.Tensor, W: list[torch.Tensor], causal: bool) -> str | None:
    """The one catalogued mistake of self-attention that `out` matches on X and W (whole_key), None if none."""
    W_Q, W_K, W_V = (w.double() for w in W)
    return whole_key(out, split_transposed(self_attention_variants(X.double(), W_Q, W_K, W_V, causal=causal))[0],
                     ref.self_attention(X.double(), W_Q, W_K, W_V, causal=causal), X.dtype)


SIZE_CRASH = ("must match the size", "cannot be multiplied", "Expected size", "size mismatch", "shape mismatch")


def values_as_wide_crash(e: StudentCodeError, W: tuple[torch.Tensor, ...] | list[torch.Tensor],
                         rerun: Callable[[list[torch.Tensor]], object],
                         judge: Callable[[list[torch.Tensor], object], str | None]) -> Misconception | None:
    """A size-mismatch crash with d_v != d_k, where the same call with W_V as wide as W_Q (d_v = d_k, extra
    columns drawn from a fixed seed) runs and its (O, A) match one catalogued mistake and are not simply
    right (`judge(W2, out)` says which, whole_key): the values used where the keys belong (Q V^T) runs only
    there. None otherwise."""
    W_Q, W_K, W_V = W
    d_k, d_v = W_Q.shape[-1], W_V.shape[-1]
    if d_k == d_v or not any(m.lower() in e.message.lower() for m in SIZE_CRASH):
        return None
    g = torch.Generator().manual_seed(0)
    extra = (torch.randn((W_V.shape[-2], max(d_k - d_v, 0)), generator=g, dtype=torch.float64)
             / math.sqrt(W_V.shape[-2])).to(W_V.dtype)
    zero = not bool(W_Q.any()) and not bool(W_K.any())
    if zero:   # zero W_Q and W_K (q09) make every score 0 whatever it is scored against: draw nonzero ones
        W_Q, W_K = ((torch.randn(W_Q.shape, generator=g, dtype=torch.float64) / math.sqrt(W_Q.shape[-2])).to(W_Q.dtype)
                    for _ in range(2))
    W2 = [W_Q, W_K, torch.cat([W_V, extra], dim=-1)[..., :d_k]]
    try:
        out = rerun(W2)
    except StudentCodeError:
        return None
    key = judge(W2, out)
    if key is None:
        return None
    return Misconception(key, f"{_said(e)}; with W_V as wide as W_Q (d_v = d_k = {d_k})"
                         + (", and W_Q, W_K drawn nonzero," if zero else "") + " it runs and matches "
                         + describe(key) + _tail(e))


_SIZES = re.compile(r"size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\)")


def residual_crash(fn: Callable[..., object], e: StudentCodeError, X: torch.Tensor,
                   W: tuple[torch.Tensor, ...] | list[torch.Tensor], causal: bool = True) -> Misconception | None:
    """mha_residual_added: a broadcast crash of self_attention whose two sizes are X's width d_model and the
    output's width d_v (d_model != d_v), where the same call with W_V as wide as X (d_v = d_model, extra
    columns drawn from a fixed seed, or columns cut) runs and gives exactly the right output plus X, with
    the right A: the residual X + A @ V added inside (it runs only where d_v = d_model)."""
    W_Q, W_K, W_V = W
    d_model, d_v = X.shape[-1], W_V.shape[-1]
    found = _SIZES.search(e.message or "")
    if d_model == d_v or not found or {int(found.group(1)), int(found.group(2))} != {d_model, d_v}:
        return None
    g = torch.Generator().manual_seed(0)
    extra = (torch.randn((W_V.shape[-2], max(d_model - d_v, 0)), generator=g, dtype=torch.float64)
             / math.sqrt(W_V.shape[-2])).to(W_V.dtype)
    W2 = [W_Q, W_K, torch.cat([W_V, extra], dim=-1)[..., :d_model]]
    try:
        out = fn(X, *W2, causal=causal)
    except StudentCodeError:
        return None
    X64, Q64, K64, V64 = (t.double() for t in (X, *W2))
    O_ref, A_ref = ref.self_attention(X64, Q64, K64, V64, causal=causal)
    if not isinstance(out, (tuple, list)) or len(out) != 2 or all_right(out, (O_ref, A_ref), X.dtype) \
            or not all_right(out, (O_ref + X64, A_ref), X.dtype):
        return None
    return Misconception("mha_residual_added", f"{_said(e)}: {d_model} is X's width d_model and {d_v} the output's "
                         f"width d_v; with W_V as wide as X (d_v = d_model = {d_model}) it runs, and its output is "
                         "exactly the right A @ V plus X (A right): self_attention returns A @ V alone. "
                         + describe("mha_residual_added") + _tail(e))


def values_as_long_crash(fn: Callable[..., object], e: StudentCodeError, X: torch.Tensor,
                         W: tuple[torch.Tensor, ...] | list[torch.Tensor], causal: bool = True) -> Misconception | None:
    """A size-mismatch crash of self_attention with d_v != T, where the same call with W_V as wide as X is long
    (d_v = T, extra columns drawn from a fixed seed, or columns cut) runs and its (O, A) are exactly (V @ A, A)
    with the right A, and not simply right: the output multiplied in the wrong order, V @ A for A @ V (only
    square V lets it run). Nothing else is named from this re-run (naming18)."""
    W_Q, W_K, W_V = W
    T, d_v = X.shape[-2], W_V.shape[-1]
    if d_v == T or not any(m.lower() in e.message.lower() for m in (*SIZE_CRASH, "does not broadcast")):
        return None   # (einsum's words for a size mismatch: "subscript j has size 10 ... does not broadcast")
    g = torch.Generator().manual_seed(0)
    extra = (torch.randn((W_V.shape[-2], max(T - d_v, 0)), generator=g, dtype=torch.float64)
             / math.sqrt(W_V.shape[-2])).to(W_V.dtype)
    W2 = [W_Q, W_K, torch.cat([W_V, extra], dim=-1)[..., :T]]
    try:
        out = fn(X, *W2, causal=causal)
    except StudentCodeError:
        return None
    X64, Q64, K64, V64 = (t.double() for t in (X, *W2))
    O_ref, A_ref = ref.self_attention(X64, Q64, K64, V64, causal=causal)
    if not isinstance(out, (tuple, list)) or len(out) != 2 or all_right(out, (O_ref, A_ref), X.dtype) \
            or not all_right(out, ((X64 @ V64) @ A_ref, A_ref), X.dtype):
        return None
    return Misconception("nw_operands_swapped", f"{_said(e)}; with W_V as wide as X is long (d_v = T = {T}) it runs, "
                         "A is right and O is V @ A (the values times the weights) instead of A @ V: "
                         + describe("nw_operands_swapped") + _tail(e))


def as_wide_as_long(X: torch.Tensor, W: tuple[torch.Tensor, ...] | list[torch.Tensor]) -> Tensors:
    """{"X": X', "W": weights'}: X cut or extended (with fresh entries) to d_model = T, and each weight
    given as many rows, drawn from a fixed seed: inputs where reading T from X.shape[-1] is harmless."""
    T, d = X.shape[-2], X.shape[-1]
    g = torch.Generator().manual_seed(0)
    extra = torch.randn((*X.shape[:-1], max(T - d, 0)), generator=g, dtype=torch.float64).to(X.dtype)
    X2 = torch.cat([X, extra], dim=-1)[..., :T]
    W2 = [torch.cat([w, (torch.randn((max(T - d, 0), w.shape[-1]), generator=g, dtype=torch.float64)
                         / math.sqrt(T)).to(w.dtype)], dim=-2)[:T] for w in W]
    return {"X": X2, "W": W2}


def mask_as_bool_crash(e: StudentCodeError, M: torch.Tensor | None, rerun: Callable[[torch.Tensor], object],
                       right: Callable[[object], bool]) -> Misconception | None:
    """A crash with the additive float mask M where the same call with its boolean pattern (True on the
    blocked keys, M != 0) runs and is right: the code treats the mask as a boolean one."""
    if M is None or not M.is_floating_point():
        return None
    try:
        out = rerun(M != 0)
    except StudentCodeError:
        return None
    if not right(out):
        return None
    return Misconception("additive_mask_as_boolean", f"{_said(e)} with the additive float mask; with its boolean "
                         "pattern (True on the blocked keys) in its place the same call runs and is right: "
                         + describe("additive_mask_as_boolean") + _tail(e))


HALF_OVERFLOW = "cannot be converted to type c10::Half without overflow"


def half_fill_crash(e: StudentCodeError, M: torch.Tensor | None, fn: Callable[..., object]) -> Exception | None:
    """attention_weights' float16 crash "value cannot be converted to type c10::Half without overflow" with a
    mask: a constant written over the blocked scores that float16 cannot hold (its range ends at 65504; -inf
    would not raise). A float32 probe with a mask of 0, finfo.min and a mild -2 tells what the constant is
    written over: weights with every nonzero entry blocked outright (the -2 keys get no weight, where S + M
    gives them e^-2 of theirs) are additive_mask_as_boolean; right weights say only the constant (generic)."""
    if HALF_OVERFLOW not in e.message or M is None:
        return None
    S = KEEP_S.float()
    Mp = torch.zeros_like(S).masked_fill(KEEP_BLOCKED, torch.finfo(S.dtype).min)
    mild = torch.zeros_like(KEEP_BLOCKED)
    mild[0, 0] = mild[1, 1] = mild[2, 0] = True   # open keys in KEEP_BLOCKED: each row keeps two fully open
    Mp = Mp.masked_fill(mild, -2.0)
    try:
        out = fn(S.clone(), Mp.clone())
    except StudentCodeError:
        return None
    said = f"{_said(e)} on float16 scores: a constant in it does not fit in float16 (whose range ends at 65504)"
    if is_right(out, torch.softmax(S.double() + Mp.double(), dim=-1), S.dtype):
        return AssertionError(f"{said}; in float32 the same function is right: write no constant of your own "
                              "(add the mask, S + M, or use torch.finfo(S.dtype).min)" + _tail(e))
    if not is_right(out, torch.softmax(S.double().masked_fill(Mp != 0, float("-inf")), dim=-1), S.dtype):
        return None
    return Misconception("additive_mask_as_boolean", f"{said}; on a float32 S with a mask of 0, finfo.min and a "
                         "mild -2, every key whose mask entry is not 0 gets no weight (S + M gives the -2 keys "
                         "e^-2 of theirs): the mask is read as a boolean and those scores overwritten with that "
                         "constant: " + describe("additive_mask_as_boolean") + _tail(e))


def neg_1e9_fill_crash(e: StudentCodeError, X: torch.Tensor, Y: torch.Tensor, W: Any, M: torch.Tensor | None,
                       rerun: Callable[[torch.Tensor, torch.Tensor], object]) -> Misconception | None:
    """cross_attention's float16 crash "value cannot be converted to type c10::Half without overflow" with a
    mask: a constant written over the blocked scores that float16 cannot hold. Named neg_1e9_float16 only
    when a float64 probe pins that constant to -1e9: query 0's open scores all set to -2e9 and query 1's to
    -5e8 (X's rows solved for them), the same call `rerun(X2, M64)` equals blocked scores filled with -1e9
    (query 0's weight on its blocked keys, query 1's on its open ones), which a fill of finfo(float32).min,
    -inf, -1e10 or -1e5 does not give."""
    if HALF_OVERFLOW not in e.message or M is None or X.dim() != 2 or X.shape[0] < 2:
        return None
    W_Q, W_K, W_V = (w.double() for w in W)
    Y64, X2 = Y.double(), X.double().clone()
    blocked = M != 0
    K = Y64 @ W_K
    for row, target in ((0, -2e9), (1, -5e8)):
        open_ = ~blocked[row]
        if not bool(blocked[row].any()) or int(open_.sum()) > X2.shape[-1]:
            return None
        G = K[open_] @ W_Q.T   # open scores of row = G @ x * sqrt(d_k)
        rhs = torch.full((G.shape[0], 1), target * math.sqrt(W_Q.shape[-1]), dtype=torch.float64)
        X2[row] = torch.linalg.lstsq(G, rhs).solution[:, 0]
    M64 = torch.zeros(M.shape, dtype=torch.float64).masked_fill(blocked, torch.finfo(torch.float64).min)
    S = (X2 @ W_Q) @ K.transpose(-2, -1) / math.sqrt(W_Q.shape[-1])
    for row, target in ((0, -2e9), (1, -5e8)):
        if not bool(((S[row][~blocked[row]] - target).abs() < 1e3).all()):
            return None
    A = torch.softmax(S.masked_fill(blocked, -1e9), dim=-1)
    try:
        out = rerun(X2, M64)
    except StudentCodeError:
        return None
    want = ref.cross_attention(X2, Y64, W_Q, W_K, W_V, M64)
    if not all_right(out, (A @ (Y64 @ W_V), A), torch.float32) or all_right(out, want, torch.float32):
        return None
    return Misconception("neg_1e9_float16", f"{_said(e)} on float16 inputs with a mask; in float64, with query 1's "
                         "open scores at -2e9 and query 2's at -5e8, its weights go to query 1's blocked keys and "
                         "to query 2's open ones: the blocked scores are set to -1e9: "
                         + describe("neg_1e9_float16") + _tail(e))


TRUTHINESS = "Boolean value of Tensor with more than one value is ambiguous"


def default_mask_dtype_crash(e: StudentCodeError, X: torch.Tensor, Y: torch.Tensor,
                             rerun: Callable[[torch.Tensor], object], right: Callable[[object], bool]) -> Misconception | None:
    """Half-precision inputs with M left out crash on a dtype mix, and the same call with M given as an
    all-open mask of the inputs' dtype (zeros: what M=None means) runs and is right: the M=None path makes
    float32 and mixes it in, as a default mask made without dtype= (torch.zeros(T, T')) does (naming23)."""
    if X.dtype not in (torch.float16, torch.bfloat16) or not any(m in e.message for m in DTYPE_CRASH):
        return None
    try:
        out = rerun(torch.zeros(X.shape[-2], Y.shape[-2], dtype=X.dtype, device=X.device))
    except StudentCodeError:
        return None
    if not right(out):
        return None
    return Misconception("dtype_changed", f"{_said(e)} on {X.dtype} inputs with M left out, and with M given as an "
                         f"all-open {X.dtype} mask (zeros) it runs and is right: what your code does for M=None "
                         "mixes float32 into the scores (a default mask made without dtype=, such as "
                         "torch.zeros(T, T'), is float32; make it with dtype=S.dtype, or skip the mask): "
                         + describe("dtype_changed"))


def truthiness_crash(e: StudentCodeError, without: Callable[[], object], right: Callable[[object], bool],
                     name: str = "M") -> Misconception | None:
    """`if M:` on a tensor: the crash says a tensor's truth value is ambiguous, and the same call with
    M=None (the argument left out) runs and is right."""
    if TRUTHINESS not in e.message:
        return None
    try:
        out = without()
    except StudentCodeError:
        return None
    if not right(out):
        return None
    return Misconception("tensor_truthiness", f"{_said(e)} when {name} is a tensor; with {name}=None the same call "
                         "runs and is right: " + describe("tensor_truthiness") + _tail(e))


def square_crash(e: StudentCodeError, out: object, expected: torch.Tensor,
                 variants: Mapping[str, torch.Tensor | None], dtype: torch.dtype, square: str) -> Misconception | None:
    """A crash on rectangular inputs named after the one catalogued mistake that `out`, the answer of a
    square re-run, matches (`expected` and `variants` computed on the square input), when that re-run
    is not simply right (checks.name_from_rerun)."""
    key = name_from_rerun(out, expected, variants, dtype)
    if key is None:
        return None
    twice = keys_transposed_twice("scaled_scores") if key == "scores_keys_not_transposed" else None
    return Misconception(key, f"{_said(e)}; on a square input ({square}) it runs and matches "
                         + describe(key) + (f"; here K is transposed twice: {twice}" if twice else "") + _tail(e))


def raise_if_operands_swapped(fn: Callable[..., object], e: StudentCodeError, q: torch.Tensor) -> None:
    """A product crash in nadaraya_watson (q @ K for K @ q, V @ w for w @ V: the shapes line up only
    when the matrix is square) re-run on square inputs (T = d_v = d_k, K and V redrawn, q kept), where
    every swapped product runs; named only when that re-run matches exactly one swap and is not right.
    The same re-run names a dot product summed over the keys, (K * q).sum(dim=0): one score per feature
    (d_k of them) that meets V's T rows only when T = d_k (naming19)."""
    n = q.shape[-1]
    g = torch.Generator().manual_seed(1)
    K2, V2 = (torch.randn((n, n), generator=g, dtype=q.dtype) for _ in range(2))
    try:
        out = fn(q, K2, V2)
    except StudentCodeError:
        return
    right = torch.exp(K2 @ q / math.sqrt(n))
    rows = torch.exp(K2.T @ q / math.sqrt(n))       # q @ K (or K.T @ q): scored against K's columns
    variants = {"nw_operands_swapped/query_keys": (rows[:, None] * V2).sum(0) / rows.sum(),
                "nw_operands_swapped/values_weights": V2 @ right / right.sum(),
                "nw_operands_swapped/both": V2 @ rows / rows.sum()}
    feats = torch.exp((K2 * q).sum(0) / math.sqrt(n))  # entry j: q_j times column j's sum over the keys
    variants["nw_dot_over_keys"] = (feats[:, None] * V2).sum(0) / feats.sum()
    named = square_crash(e, out, (right[:, None] * V2).sum(0) / right.sum(), variants, q.dtype,
                         f"T = d_k = d_v = {n}")
    if named is not None:
        raise named from None


# --- more wrong variants -----------------------------------------------------------------------------

def scores_variants(Q: torch.Tensor, K: torch.Tensor) -> dict[str, torch.Tensor]:
    d_k = Q.shape[-1]
    QK = Q @ K.transpose(-2, -1)
    out = {
        "multiply_by_sqrt_dk": QK * math.sqrt(d_k),
        "sqrt_precedence": QK / (d_k / 2),           # / d_k ** 1/2 read as / ((d_k ** 1) / 2)
        "sqrt_precedence/times": QK * d_k ** -1 / 2,  # * d_k ** -1/2: QK / (2 d_k)
        "floor_division_scale": QK // math.sqrt(d_k),  # // for /: every score rounded down (naming30)
        # the scale measured from the scores' own spread (S / S.std()), over all of them or each row, with or
        # without Bessel's correction: the computation replayed on the test's own inputs (naming32, blind29)
        "scores_divided_by_own_std": QK / QK.std(),
        "scores_divided_by_own_std/biased": QK / QK.std(correction=0),
        "scores_divided_by_own_std/row": QK / QK.std(dim=-1, keepdim=True),
        "scores_divided_by_own_std/row_biased": QK / QK.std(dim=-1, correction=0, keepdim=True),
    }
    try:   # Q * K^T, elementwise: runs only where the shapes broadcast (a square re-run draws them)
        out["elementwise_product"] = Q * K.transpose(-2, -1) / math.sqrt(d_k)
    except RuntimeError:
        pass
    # cosine similarities for the dot products (a kernel from the Nadaraya-Watson lesson), scaled or not (blind27)
    try:
        cos = torch.nn.functional.normalize(Q, dim=-1) @ torch.nn.functional.normalize(K, dim=-1).transpose(-2, -1)
        div = (Q / Q.norm(dim=-1, keepdim=True)) @ (K / K.norm(dim=-1, keepdim=True)).transpose(-2, -1)  # NaN at 0
        out.update({"nw_cosine_kernel/scores": cos, "nw_cosine_kernel/scaled": cos / math.sqrt(d_k),
                    "nw_cosine_kernel/divided": div, "nw_cosine_kernel/divided_scaled": div / math.sqrt(d_k)})
    except RuntimeError:
        pass
    # scores as a negative squared distance (d2l's Nadaraya-Watson kernel -(q - k)^2 / 2 carried into attention,
    # blind26): -||q - k||^2 over 2, over sqrt(d_k), or alone
    try:
        dist2 = ((Q.unsqueeze(-2) - K.unsqueeze(-3)) ** 2).sum(-1)
        out.update({"gaussian_kernel/half": -dist2 / 2, "gaussian_kernel/scaled": -dist2 / math.sqrt(d_k),
                    "gaussian_kernel/plain": -dist2})
    except RuntimeError:
        pass
    if K.shape[-2] not in (1, d_k) and d_k > 1:   # K^T by reshape / view: the right shape, the entries in memory
        # order; on a square K (T_k = d_k) the reshape is K itself, Q @ K, which is scores_keys_not_transposed
        out["keys_reshaped_not_transposed"] = Q @ K.reshape(*K.shape[:-2], d_k, K.shape[-2]) / math.sqrt(d_k)
    if Q.shape[-2] != K.shape[-2]:   # the (key, query) products laid out key-major, read as (T_q, T_k) (blind89)
        out["reshaped_not_transposed/scores"] = (K @ Q.transpose(-2, -1)).reshape(QK.shape) / math.sqrt(d_k)
    if K.shape[-2] == d_k:   # Q @ K, K not transposed: runs only where T_k = d_k (a square re-run draws it)
        out["scores_keys_not_transposed"] = Q @ K / math.sqrt(d_k)
    if Q.dim() > 2 and K.dim() > 2:   # torch.inner (tensordot on the last axes): every batch entry of Q against
        # every one of K, (..., T_q, ..., T_k); the reference itself on 2-D inputs (naming29, blind23)
        out["batched_input_unsupported/inner"] = torch.inner(Q, K) / math.sqrt(d_k)
    lengths = {d_k, Q.shape[-2], K.shape[-2]}
    for i, n in enumerate(Q.shape[:-2]):              # d_k taken from a batch axis (Q.shape[0] of 3-D Q)
        if n not in lengths and n > 1:
            out[f"scale_wrong_axis/{i}"] = QK / math.sqrt(n)
    # d_k = K.dim() (or Q.ndim): the number of dimensions, not a size (naming18); left out where that number is
    # also one of the sizes (it would be a length or an axis read too: those shapes cannot tell which)
    for who, n in (("k", K.dim()), ("q", Q.dim())):
        if n not in {*Q.shape, *K.shape}:
            out[f"scale_from_ndim/{who}"] = QK / math.sqrt(n)
    return out


def raise_future_weight(upper: torch.Tensor) -> None:
    """A's weight above the diagonal (`upper`, the rest zeroed), which must be 0: blocked_weight_not_zero where
    every such weight is positive and tiny (at most 1e-6: e^-50 from a floor on the shifted scores, blind26, or
    a small finite fill; a wrong mask leaves weights of a row's size), else the plain failure."""
    top = float(upper.abs().max())
    if 0 < top <= 1e-6 and bool((upper >= 0).all()):
        raise Misconception("blocked_weight_not_zero", f"A has weight on future keys, each at most {top:.1e}: "
                            + describe("blocked_weight_not_zero"))
    raise AssertionError("A has weight on future keys (above the diagonal)")


def weights_variants(S: torch.Tensor, M: torch.Tensor | None = None) -> dict[str, torch.Tensor]:
    Z = S if M is None else S + M
    row_max = Z.amax(dim=-1, keepdim=True)
    e = torch.exp(Z - row_max)
    out = {
        "no_softmax": Z,
        "weights_not_normalised": torch.exp(Z),
        "weights_not_normalised/shifted": e,
        "log_softmax_weights": torch.log_softmax(Z, dim=-1),
        "sigmoid_not_normalised": torch.sigmoid(Z),
        "sigmoid_weights": torch.sigmoid(Z) / torch.sigmoid(Z).sum(dim=-1, keepdim=True),
    }
    m = torch.exp(Z - Z.amin(dim=-1, keepdim=True))
    out["softmax_subtracts_min"] = m / m.sum(dim=-1, keepdim=True)
    # the numerator shifted by the row maximum, the denominator summed over the unshifted exp (blind29)
    out["weights_not_normalised/unshifted_denominator"] = e / torch.exp(Z).sum(dim=-1, keepdim=True)
    # log A = Z - logsumexp(Z) by hand with the logsumexp of the shifted scores, m never added back (blind77):
    # exp(Z - log sum exp(Z - m)), each row the softmax times e^m
    out["logsumexp_shift_dropped"] = torch.exp(Z - torch.log(e.sum(dim=-1, keepdim=True)))
    # an extra term in the denominator (blind35, the "softmax one" exp(s) / (1 + sum exp(s)), computed shifted
    # by max(row max, 0) as its authors do; or the 1 added after the shift by the row maximum): rows sum below 1
    m0 = row_max.clamp(min=0)
    one = torch.exp(Z - m0)
    out["softmax_extra_denominator_term"] = one / (torch.exp(-m0) + one.sum(dim=-1, keepdim=True))
    out["softmax_extra_denominator_term/after_shift"] = e / (1 + e.sum(dim=-1, keepdim=True))
    if M is not None and Z.dim() >= 2:   # the weights cut to their lower triangle whenever a mask is passed (blind85)
        soft = e / e.sum(dim=-1, keepdim=True)
        if not torch.equal(soft.tril(), soft):   # a causal M: the cut changes nothing, no mistake to replay
            out["weights_tril_for_any_mask"] = soft.tril()
    two = torch.exp2(Z - row_max)     # exp2 without the log2(e) factor (blind27, the Triton tutorial's softmax)
    out["softmax_base_2"] = two / two.sum(dim=-1, keepdim=True)
    if Z.shape[-2] > 1:   # the maximum over the queries (dim=-2) subtracted before a row softmax (naming11)
        c = torch.exp(Z - Z.amax(dim=-2, keepdim=True))
        out["softmax_shift_wrong_axis"] = c / c.sum(dim=-1, keepdim=True)
    if Z.dim() == 3:      # nn.Softmax() / F.softmax without dim: torch's legacy rule normalises dim 0 of 3-D
        out["softmax_implicit_dim"] = torch.softmax(Z, dim=0)
    elif Z.dim() > 3:
        out["softmax_wrong_dim/dim0"] = torch.softmax(Z, dim=0)
    # without keepdim a row statistic broadcasts along the last axis: only a square 2-D S (or one whose
    # batch dims happen to align) runs at all
    for key, wrong in (("sum_without_keepdim", lambda: e / e.sum(dim=-1)),
                       ("sum_without_keepdim/no_max", lambda: torch.exp(Z) / torch.exp(Z).sum(dim=-1)),
                       ("max_without_keepdim", lambda: _normalised(torch.exp(Z - Z.amax(dim=-1))))):
        try:
            out[key] = wrong()
        except RuntimeError:
            pass
    if Z.shape[0] > 1 and builtin_sum_called():   # e / sum(e): the builtin sum walks dim 0 (blind72)
        out["builtin_sum_over_tensor"] = e / e.sum(dim=0)
    # one sum over the whole tensor (E / E.sum()) or over each matrix, instead of each row's own
    g = torch.exp(Z - Z.max())
    out["softmax_global_sum"] = g / g.sum()
    if Z.dim() > 2:
        p = torch.exp(Z - Z.amax(dim=(-2, -1), keepdim=True))
        out["softmax_global_sum/per_matrix"] = p / p.sum(dim=(-2, -1), keepdim=True)
    # a second scale in the softmax step, by the square root of one of S's own lengths (all it can see)
    for key, n in (("scores_scaled_twice/keys", S.shape[-1]), ("scores_scaled_twice/queries", S.shape[-2])):
        if n > 1:
            out[key] = torch.softmax(S / math.sqrt(n) if M is None else S / math.sqrt(n) + M, dim=-1)
    # the similarity's sign flipped, as in a distance kernel exp(-d): the best-matching key gets the least weight
    out["scores_negated"] = torch.softmax(-S if M is None else M - S, dim=-1)
    # the softmax run in float16 / bfloat16 and cast back (blind37): replayed on the same scores, rounded as the
    # student's code rounds them (a float64 or float32 S holds exactly the values the test gave)
    if S.dtype not in (torch.float16, torch.bfloat16):
        for form, low in (("", torch.float16), ("/bfloat16", torch.bfloat16)):
            out[f"softmax_low_precision{form}"] = torch.softmax(Z.to(low), dim=-1).to(S.dtype)
    if M is not None and bool((M != 0).any()):       # S * 0 is the uniform weights: no evidence of its own
        out["mask_multiplied"] = torch.softmax(S * M, dim=-1)
        out["mask_after_softmax"] = torch.softmax(S, dim=-1) + M
        # S * (M == 0), S.masked_fill(M != 0, 0): a blocked score of 0 still gets weight exp(0)
        out["blocked_scores_zeroed"] = torch.softmax(S.masked_fill(M != 0, 0.0), dim=-1)
        if bool((M == 0).any()):   # M read as a 0/1 keep-mask: masked_fill(M == 0, -1e9) blocks the OPEN keys
            out["additive_mask_as_boolean/keep_mask"] = torch.softmax(S.masked_fill(M == 0, torch.finfo(S.dtype).min), dim=-1)
        # the mask in the normaliser only (round 86, blind86's two-pass softmax whose second pass forms exp(S - m) / l
        # from the unmasked S): the masked row's log-sum-exp taken from the scores without the mask
        Z64 = Z.double()
        out["mask_in_normaliser_only"] = torch.exp(S.double() - torch.logsumexp(Z64, dim=-1, keepdim=True)).to(S.dtype)
    out.update(chunked_weights_variants(S, M))   # query rows in blocks, the last partial one dropped (blind60)
    out.update(online_softmax_variants(S, M))   # the running sum never rescaled (blind63)
    return out


def native_weights_variants(S: torch.Tensor, M: torch.Tensor | None) -> dict[str, torch.Tensor]:
    """Wrong weights that overflow differently in S's own dtype (float16, float32 in the thousands) than in
    float64, replayed in that dtype as the student's code computes them: the numerator shifted by the row
    maximum and the denominator summed over the unshifted exp (inf there, so those rows come out 0)."""
    Z = S if M is None else S + M
    e = torch.exp(Z - Z.amax(dim=-1, keepdim=True))
    # an online softmax's running sum rescaled by the inverted factor overflows in float16 (round 86): replayed there
    online = {f"{k}/native": v for k, v in online_softmax_variants(S, M).items() if k.startswith("online_softmax_rescale_inverted")}
    return {"weights_not_normalised/unshifted_denominator_native": e / torch.exp(Z).sum(dim=-1, keepdim=True), **online}


def nonfinite_hits(got: torch.Tensor, native: dict[str, torch.Tensor]) -> list[str]:
    """The keys of `native` (wrong answers computed in got's own dtype, as the student's code computes them)
    that give NaN or inf at exactly got's non-finite entries and got's finite values elsewhere: an overflow
    float64 would not show (S * M with M = finfo.min is finite in float64 and +-inf in float32)."""
    bad = ~torch.isfinite(got)
    return [key for key, wrong in native.items()
            if type(wrong) is torch.Tensor and wrong.dtype == got.dtype and tuple(wrong.shape) == tuple(got.shape)
            and torch.equal(bad, ~torch.isfinite(wrong))
            and matching_variants(got.masked_fill(bad, 0.0), {key: wrong.masked_fill(bad, 0.0)}, got.dtype)]


def raise_if_unnormalised_overflow(fn: Callable[..., object] | None, got: torch.Tensor, S: torch.Tensor,
                                   M: torch.Tensor | None, what: str) -> None:
    """weights_not_normalised for an A with NaN or inf no unstable softmax matches (exp(S) / logsumexp(S), blind36):
    its non-finite entries are exactly where exp(S + M) overflows S's dtype; the same function on the same scores
    in float64 gives got's finite entries (and NaN or inf only where got has them), and on float64 scores it can
    hold (these, or scaled into [-4, 4] where exp overflows float64 too) it is weights_not_normalised: rows off 1,
    each row divided by its own sum right. Nothing otherwise."""
    if fn is None or got.dtype == torch.float64 or tuple(got.shape) != tuple(S.shape):
        return
    bad = ~torch.isfinite(got)
    if not torch.equal(bad, ~torch.isfinite(torch.exp(S if M is None else S + M))):
        return
    S64, M64 = S.double(), None if M is None else M.double()

    def replay(s: torch.Tensor) -> torch.Tensor | None:
        try:
            out = fn(s.clone(), None if M64 is None else M64.clone())
        except StudentCodeError:
            return None
        return out if type(out) is torch.Tensor and tuple(out.shape) == tuple(S.shape) else None
    out = replay(S64)
    if out is None or bool((~torch.isfinite(out) & ~bad).any()) or not matching_variants(
            got.masked_fill(bad, 0.0), {"replay": out.to(got.dtype).masked_fill(bad, 0.0)}, got.dtype):
        return
    said = "on these scores in float64"
    if not bool(torch.isfinite(out).all()):   # exp overflows float64 too: the same scores scaled down
        S64 = S64 * (4.0 / float(S64.abs().max().clamp_min(1e-300)))
        out, said = replay(S64), "on these scores scaled into [-4, 4], in float64"
        if out is None:
            return
    lse = weights_variants(S64, M64)["logsumexp_shift_dropped"]   # the shift m not added back (round 76): replayed
    if matching_variants(out, {"logsumexp_shift_dropped": lse}, torch.float64):
        raise Misconception("logsumexp_shift_dropped", f"{what} contains NaN or inf in {int(bad.sum())} of {bad.numel()} "
                            f"entries, exactly where exp(S) overflows {str(got.dtype).replace('torch.', '')}; the same "
                            f"function {said} matches " + describe("logsumexp_shift_dropped"))
    try:
        raise_if_rows_unnormalised(out, ref.attention_weights(S64, M64), torch.float64, said)
    except Misconception as m:
        raise Misconception(m.key, f"{what} contains NaN or inf in {int(bad.sum())} of {bad.numel()} entries, exactly "
                            f"where exp(S) overflows {str(got.dtype).replace('torch.', '')}; the same function {m}") from None


def unstable_softmaxes(S: torch.Tensor, M: torch.Tensor | None) -> dict[str, torch.Tensor]:
    """What the unstable softmaxes give on these scores, computed in their own dtype as the student's
    code would: no maximum subtracted, or one maximum over the whole tensor, or another statistic for it."""
    Z = S if M is None else S + M
    e = torch.exp(Z)
    g = torch.exp(Z - Z.max())
    m = torch.exp(Z - Z.amin(dim=-1, keepdim=True))
    c = torch.exp(Z - Z.amax(dim=-2, keepdim=True))
    return {"softmax_shift_wrong_axis": c / c.sum(dim=-1, keepdim=True),
            "no_max_subtraction": e / e.sum(dim=-1, keepdim=True),
            "global_max_subtraction": g / g.sum(dim=-1, keepdim=True),
            "softmax_subtracts_min": m / m.sum(dim=-1, keepdim=True),
            # the row mean for the row maximum (blind34): exact on tame rows, NaN where the spread is wide
            "softmax_subtracts_mean": mean_shifted_softmax(S, M),
            # the row maximum of S taken before M is added (blind66): a fully blocked row 0 / 0
            "softmax_max_before_mask": max_before_mask_softmax(S, M),
            # the row maximum clamped at 0 (amax(...).clamp(min=0), blind85): rows with a negative maximum are
            # not shifted, so a fully blocked row (maximum near finfo.min) underflows to 0 / 0
            "softmax_shift_clamped": clamped_shift_softmax(S, M)}


def clamped_shift_softmax(S: torch.Tensor, M: torch.Tensor | None) -> torch.Tensor:
    """Each row's maximum of S + M, clamped at 0 (max(row max, 0)), subtracted before exp, in S's own dtype."""
    Z = S if M is None else S + M
    e = torch.exp(Z - Z.amax(dim=-1, keepdim=True).clamp(min=0))
    return e / e.sum(dim=-1, keepdim=True)


# rows near -1000 with key 0 open in each (blind85): a shift clamped at 0 leaves them unshifted, so every exp
# underflows and the rows are 0 / 0; S's own row maximum (before or after the mask) or one global maximum is right
_LOW_S = torch.linspace(-1.0, 1.0, 12, dtype=torch.float64).reshape(3, 4) - 1000.0


def clamped_shift_kept(fn: Callable[..., object], hits: list[str]) -> list[str]:
    """Where softmax_shift_clamped fits beside other unstable softmaxes (a fully blocked row NaNs them alike), a
    second call on rows near -1000 keeps those whose replay gives what fn gives there (NaN rows at the same
    entries, or the same finite weights); a call that raises or returns another shape keeps none of them."""
    try:
        out = fn(_LOW_S.clone(), _APART_M.clone())
    except StudentCodeError:
        return [h for h in hits if h != "softmax_shift_clamped"]
    if type(out) is not torch.Tensor or tuple(out.shape) != (3, 4):
        return [h for h in hits if h != "softmax_shift_clamped"]
    reps = unstable_softmaxes(_LOW_S, _APART_M)
    if bool(torch.isfinite(out).all()):
        return [h for h in hits if bool(torch.isfinite(reps[h]).all()) and is_right(out, reps[h], torch.float64)]
    shown = nonfinite_hits(out, reps)
    return [h for h in hits if h in shown]


def max_before_mask_softmax(S: torch.Tensor, M: torch.Tensor | None) -> torch.Tensor:
    """The row maximum taken over S alone and subtracted before M is added, in S's own dtype: right wherever a
    row's largest score is on an open key, 0 / 0 = NaN on a row whose keys M blocks entirely (blind66)."""
    Z = S - S.amax(dim=-1, keepdim=True)
    e = torch.exp(Z if M is None else Z + M)
    return e / e.sum(dim=-1, keepdim=True)


# the two unstable softmaxes that NaN a fully blocked row alike, told apart by a second call (blind66): rows 1000
# apart, each with key 0 open; one maximum over the whole tensor underflows every row below the top one, the
# row maximum of S taken before the mask is right there
_APART_S = (torch.linspace(-1.0, 1.0, 12, dtype=torch.float64).reshape(3, 4)
            + 1000.0 * torch.arange(3, dtype=torch.float64)[:, None])
_APART_M = torch.zeros(3, 4, dtype=torch.float64).masked_fill(torch.ones(3, 4, dtype=torch.bool).triu(1),
                                                             torch.finfo(torch.float64).min)


def unstable_hits(fn: Callable[..., object] | None, got: torch.Tensor, S: torch.Tensor,
                  M: torch.Tensor | None) -> list[str]:
    """nonfinite_hits of unstable_softmaxes; where both global_max_subtraction and softmax_max_before_mask fit
    (a fully blocked row, the other rows tame), a second call on rows 1000 apart keeps the one it shows: the right
    weights there for the row maximum before the mask, NaN rows where one global maximum gives them for the
    other. Neither (or no fn) keeps both, and then nothing is named."""
    hits = nonfinite_hits(got, unstable_softmaxes(S, M))
    if "softmax_shift_clamped" in hits and len(hits) > 1:
        hits = [] if fn is None else clamped_shift_kept(fn, hits)
    pair = {"global_max_subtraction", "softmax_max_before_mask"}
    if fn is None or not pair <= set(hits):
        return hits
    try:
        out = fn(_APART_S.clone(), _APART_M.clone())
    except StudentCodeError:
        return hits
    if type(out) is not torch.Tensor or tuple(out.shape) != (3, 4):
        return hits
    if is_right(out, ref.attention_weights(_APART_S, _APART_M), torch.float64):
        return [h for h in hits if h != "global_max_subtraction"]
    if nonfinite_hits(out, unstable_softmaxes(_APART_S, _APART_M)) == ["global_max_subtraction"]:
        return [h for h in hits if h != "softmax_max_before_mask"]
    return hits


# a probe with an additive mask that blocks some keys of every row and leaves some open (naming15)
KEEP_S = torch.tensor([[0.3, -1.2, 0.8, 0.1, -0.5], [1.1, 0.4, -0.7, 0.9, 0.2], [-0.6, 0.5, 0.0, -1.3, 0.7]],
                      dtype=torch.float64)
KEEP_BLOCKED = torch.tensor([[0, 1, 0, 1, 0], [1, 0, 0, 0, 1], [0, 0, 1, 0, 1]], dtype=torch.bool)


def raise_if_keep_mask(fn: Callable[..., object], M: torch.Tensor | None) -> None:
    """After a failure with an M that blocks nothing (all zeros, where a keep-mask reading blocks every key
    and gives the same uniform rows as ignoring the scores): the same function on a small float64 S with an
    M that blocks some keys of each row gives softmax(S.masked_fill(M == 0, -inf)), the open keys blocked
    and the blocked ones kept, and not the right weights. Only then is it named."""
    if M is None or bool((M != 0).any()):
        return
    S = KEEP_S
    Mp = torch.zeros_like(S).masked_fill(KEEP_BLOCKED, torch.finfo(S.dtype).min)
    try:
        out = fn(S.clone(), Mp.clone())
    except StudentCodeError:
        return
    want = torch.softmax(S + Mp, dim=-1)
    wrong = torch.softmax(S.masked_fill(~KEEP_BLOCKED, float("-inf")), dim=-1)
    if (type(out) is torch.Tensor and tuple(out.shape) == tuple(S.shape) and not is_right(out, want, S.dtype)
            and is_right(out, wrong, S.dtype)):
        raise Misconception("additive_mask_as_boolean", "with an M that blocks nothing every key was blocked; on a "
                            "float64 S with an M that blocks some keys of each row, A puts all its weight on the "
                            "BLOCKED keys and none on the open ones (masked_fill(M == 0, ...)): "
                            + describe("additive_mask_as_boolean")) from None


def implicit_dim_shown(fn: Callable[..., object], S: torch.Tensor, got: object) -> bool:
    """Whether A for a 4-D S is the softmax over dim 1 and a second call on the 3-D S[0] gives the
    softmax over dim 0: torch's legacy implicit dim (nn.Softmax(), F.softmax without dim), not a
    hard-coded dim=1 (which on 3-D S would normalise dim -2). First, dim -3 written out (nn.Softmax2d): a 2-D
    call raises, where the implicit dim is right there (raise_if_channel_axis, softmax_over_channel_axis)."""
    raise_if_channel_axis(fn, S, Misconception("softmax_wrong_dim", ""))
    if S.dim() != 4 or not is_right(got, torch.softmax(S.double(), dim=1), S.dtype):
        return False
    S3 = S[0]
    try:
        out = fn(S3, None)
    except StudentCodeError:
        return False
    return is_right(out, torch.softmax(S3.double(), dim=0), S.dtype)


def dim0_hard_coded(fn: Callable[..., object], S: torch.Tensor) -> bool:
    """Whether a second call on a 2-D slice of S gives the softmax over dim 0 there too: dim=0 written
    out, not torch's implicit dim (which is 1, the right one, for 2-D input)."""
    S2 = S[(0,) * (S.dim() - 2)]
    try:
        out = fn(S2, None)
    except StudentCodeError:
        return False
    return is_right(out, torch.softmax(S2.double(), dim=0), S.dtype)


def batched_dim0_key(A: object, wrong: Mapping[str, tuple[torch.Tensor, ...]], call2d: Callable[[], object],
                     S2: torch.Tensor, dtype: torch.dtype) -> tuple[str | None, str]:
    """For an attention's A on batched (3-D) scores that is the softmax over dim 0, the batch axis
    (the key softmax_implicit_dim in `wrong`): a second call on one unbatched example (`call2d`, whose
    masked scores are S2) tells torch's legacy implicit dim (right there: dim 1 of 2-D scores) from
    dim=0 written out (dim 0 there too, the queries). ("", "") when A is not that softmax; (None, "")
    when the second call shows neither: the implicit dim must not be blamed on an explicit wrong dim."""
    unmasked = wrong.get("no_causal_mask")
    if unmasked is not None and type(A) is torch.Tensor and matching_variants(A, {"x": unmasked[1]}, dtype):
        return _mask_dropped_for_batches(call2d, S2, dtype)
    cand = wrong.get("softmax_implicit_dim")
    if cand is None or type(A) is not torch.Tensor or not matching_variants(A, {"x": cand[1]}, dtype):
        return "", ""
    head = "A is normalised over dim 0 of these batched scores (the batch axis), and on one unbatched example "
    try:
        out = call2d()
    except StudentCodeError as e:   # dim -3 (nn.Softmax2d, dim=-3) has no axis on 2-D scores (blind39)
        if _CHANNEL_CRASH.search(e.message):
            return "softmax_over_channel_axis", head + f"it raises ({e.exc_type}: {e.message.splitlines()[0][:90]}): "
        return None, ""
    A2 = out[1] if isinstance(out, (tuple, list)) and len(out) == 2 else None
    if is_right(A2, torch.softmax(S2, dim=-1), dtype):
        return "softmax_implicit_dim", head + "it is right (dim 1 there: torch's implicit dim): "
    if is_right(A2, torch.softmax(S2, dim=0), dtype):
        return "softmax_over_batch_axis", head + "over dim 0 too (the queries there: dim=0 written out): "
    return None, ""


def _mask_dropped_for_batches(call2d: Callable[[], object], S2: torch.Tensor, dtype: torch.dtype) -> tuple[str, str]:
    """A batched self-attention with no causal mask at all, whose call on one unbatched example is masked and right,
    where the def sizes the mask from dim 0 (`causal_additive_mask(len(X), ...)`, X.shape[0], X.size(0)): T read
    from the batch axis, the wrong-sized mask then dropped (an error caught, blind73). ("", "") otherwise."""
    said = mask_length_from_dim0(None, "self_attention")
    if said is None:
        return "", ""
    try:
        out = call2d()
    except StudentCodeError:
        return "", ""
    A2 = out[1] if isinstance(out, (tuple, list)) and len(out) == 2 else None
    if not is_right(A2, torch.softmax(S2, dim=-1), dtype):
        return "", ""
    return "length_from_wrong_axis", (f"A has no causal mask on these batched inputs (every future key gets weight), "
                                      f"while on one unbatched example it is masked and right: `{said}` sizes the "
                                      "mask from dim 0, the batch size here, and the mask of that size is not used "
                                      "(an error caught, or a branch skipped): ")


def mask_length_from_dim0(submission: object, func: str) -> str | None:
    """A causal_additive_mask call in the notebook's last `def func` whose first argument reads dim 0 of a name
    (len(X), X.shape[0], X.size(0)): its text, or None."""
    node = _def_of(submission, func)
    for n in ast.walk(node) if node is not None else ():
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "causal_additive_mask" and n.args:
            a = n.args[0]
            if (isinstance(a, ast.Call) and isinstance(a.func, ast.Name) and a.func.id == "len" and len(a.args) == 1) \
                    or (isinstance(a, ast.Subscript) and isinstance(a.value, ast.Attribute) and a.value.attr == "shape"
                        and ast.unparse(a.slice) == "0") \
                    or (isinstance(a, ast.Call) and isinstance(a.func, ast.Attribute) and a.func.attr == "size"
                        and len(a.args) == 1 and ast.unparse(a.args[0]) == "0"):
                return ast.unparse(n)[:120]
    return None


# a softmax over dim -3 meeting a 2-D S (blind39): nn.Softmax2d's own check, or dim=-3 out of range
_CHANNEL_CRASH = re.compile(r"Softmax2d: expected input to be 3D or 4D|Dimension out of range \(expected to be in "
                            r"range of \[-2, 1\], but got -3\)")


def channel_axis_shown(fn: Callable[..., object], S: torch.Tensor, got: object) -> str | None:
    """For A on a 3-D or 4-D S that is the softmax over dim -3 (dim 0 of 3-D: the implicit dim's value too; dim 1
    of 4-D): a call on one 2-D slice raises (Softmax2d's "expected input to be 3D or 4D", or dim -3 out of range),
    where torch's implicit dim is right, and a call at the other rank (S[0], or two stacked copies of S) is the
    softmax over dim -3 there too, where dim=0 or dim=1 written out is not. The 2-D crash's words, or None."""
    if S.dim() not in (3, 4) or not is_right(got, torch.softmax(S.double(), dim=-3), S.dtype):
        return None
    try:
        fn(S[(0,) * (S.dim() - 2)].clone(), None)
        return None
    except StudentCodeError as e:
        if not _CHANNEL_CRASH.search(e.message):
            return None
        said = f"{e.exc_type}: {e.message.splitlines()[0][:90]}"
    other = S[0].clone() if S.dim() == 4 else torch.stack([S, S * 0.5])
    try:
        out = fn(other, None)
    except StudentCodeError:
        return None
    want = torch.softmax(other.double(), dim=-3)
    if is_right(out, want, S.dtype) and not is_right(want, torch.softmax(other.double(), dim=-1), torch.float64):
        return said
    return None


def raise_if_channel_axis(fn: Callable[..., object], S: torch.Tensor, m: Misconception) -> None:
    """q05: A named the softmax over dim 0 of 3-D S (implicit dim) or dim 1 of 4-D S that is dim -3 written out
    (nn.Softmax2d, blind39): on S with M=None it is the softmax over dim -3, and channel_axis_shown's calls say so."""
    if m.key not in ("softmax_implicit_dim", "softmax_wrong_dim"):
        return
    try:
        got = fn(S.clone(), None)
    except StudentCodeError:
        return
    said = channel_axis_shown(fn, S.clone(), got)
    if said is not None:
        raise Misconception("softmax_over_channel_axis", f"A is normalised over dim -3 (dim 0 of a 3-D S, dim 1 of a "
                            f"4-D S), and a 2-D S raises ({said}): "
                            + describe("softmax_over_channel_axis")) from None


def channel_axis_crash(e: StudentCodeError, fn: Callable[..., object], S: torch.Tensor) -> Misconception | None:
    """A crash of attention_weights on a 2-D S with the words of a softmax over dim -3 (see channel_axis_shown):
    Softmax2d's own words name it; dim -3 out of range only where a call on two score matrices stacked into a
    3-D S gives the softmax across the stack (dim 0 = -3) and not the right weights."""
    if S.dim() != 2 or not _CHANNEL_CRASH.search(e.message):
        return None
    stacked = torch.stack([S, S * 0.5])
    try:
        out = fn(stacked.clone(), None)
    except StudentCodeError:
        out = None
    want = torch.softmax(stacked.double(), dim=0)
    shown = is_right(out, want, S.dtype) and not is_right(out, torch.softmax(stacked.double(), dim=-1), S.dtype)
    if not shown and "Softmax2d" not in e.message:
        return None
    said = f"{e.exc_type}: {e.message.splitlines()[0][:90]}"
    return Misconception("softmax_over_channel_axis", f"A is taken over dim -3, which this 2-D S lacks ({said})"
                         + ("; on two score matrices stacked into a 3-D S it normalises across the stack, not along "
                            "each row" if shown else "") + ": " + describe("softmax_over_channel_axis"))


def without_implicit_dim(wrong: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in wrong.items() if k.split("/")[0] != "softmax_implicit_dim"}


def _normalised(e: torch.Tensor) -> torch.Tensor:
    return e / e.sum(dim=-1, keepdim=True)


def whole_key(got: object, wrong: Mapping[str, tuple[torch.Tensor, ...]], want: tuple[torch.Tensor, ...],
              dtype: torch.dtype) -> str | None:
    """The one mistake every part of `got` (a tuple: (O, A), (Q, K, V)) matches together, when `got` is
    not simply right: parts one mistake leaves right count too (A V with V from X keeps A right, and
    its A alone would also match every mistake that shares that A). None when no one mistake does."""
    if not (isinstance(got, (tuple, list)) and len(got) == len(want)) or all_right(got, want, dtype):
        return None
    keys = {key.split("/")[0] for key, parts in wrong.items()
            if len(parts) == len(got) and all(type(g) is torch.Tensor and isinstance(w, torch.Tensor)
                                              and bool(matching_variants(g, {key: w}, dtype))
                                              for g, w in zip(got, parts))}
    return keys.pop() if len(keys) == 1 else None


def _attend(Q: torch.Tensor, K: torch.Tensor, V: torch.Tensor, M: torch.Tensor | None,
            scale: float) -> tuple[torch.Tensor, torch.Tensor]:
    S = (Q @ K.transpose(-2, -1)) * scale
    A = torch.softmax(S if M is None else S + M, dim=-1)
    return A @ V, A


def attention_family(Q: torch.Tensor, K: torch.Tensor, V: torch.Tensor, M: torch.Tensor | None,
                     lengths: Mapping[str, int], aliases: Mapping[str, str] | None = None,
                     ) -> dict[str, tuple[torch.Tensor, torch.Tensor]]:
    """{key: (O, A)}: every catalogued mistake of the scores (ref.scores_variants, scores_variants above,
    and a scale by the square root of each of `lengths`, {key: length}), of the weights (both
    weights_variants, M applied as the question does) and of the values (A^T V), made in one attention
    on Q, K, V. One shared list for every question that computes attention (q05's stages, q07, q13),
    instead of a subset per question. `aliases` renames a key where the question calls the same mistake
    otherwise (self-attention's causal mask ignored is no_causal_mask). A length equal to d_k, or to
    another length tried, is left out: those shapes cannot tell the mistakes apart."""
    d_k = Q.shape[-1]
    aliases = aliases or {}
    S = Q @ K.transpose(-2, -1) / math.sqrt(d_k)
    right = S.shape
    out: dict[str, tuple[torch.Tensor, torch.Tensor]] = {}
    scores = {**ref.scores_variants(Q, K), **scores_variants(Q, K)}
    for who, n in (("k", K.dim()), ("q", Q.dim())):   # the rank equal to a length tried: neither can be told
        if n in lengths.values():
            scores.pop(f"scale_from_ndim/{who}", None)
    for key, n in lengths.items():
        if n != d_k and list(lengths.values()).count(n) == 1:
            scores[key] = Q @ K.transpose(-2, -1) / math.sqrt(n)
        else:                                        # d_v = T_q: neither name can be told on these shapes
            for other in [k for k, m in lengths.items() if m == n]:
                scores.pop(other, None)
    for key, S2 in scores.items():
        if S2.shape == right:
            A = torch.softmax(S2 if M is None else S2 + M, dim=-1)
            out[aliases.get(key, key)] = (A @ V, A)
    for key, A in {**ref.weights_variants(S, M), **weights_variants(S, M)}.items():
        if A.shape == right:
            out[aliases.get(key, key)] = (A @ V, A)
    A = torch.softmax(S if M is None else S + M, dim=-1)
    if A.shape[-1] == A.shape[-2]:
        out["output_uses_weights_transposed"] = (A.transpose(-2, -1) @ V, A)
    # 1/sqrt(d_k) applied to the weights after the softmax of the unscaled scores (blind26): softmax(QK^T + M)
    # / sqrt(d_k); the scaled softmax divided again reads the same rows, off by the same factor
    for form, S2 in (("", Q @ K.transpose(-2, -1)), ("/twice", S)):
        A2 = torch.softmax(S2 if M is None else S2 + M, dim=-1) / math.sqrt(d_k)
        if A2.shape == right:
            out[f"scale_after_softmax{form}"] = (A2 @ V, A2)
    return out


def inputs_scored(X: torch.Tensor, Y: torch.Tensor, V: torch.Tensor, M: torch.Tensor | None,
                  d_k: int) -> dict[str, tuple[torch.Tensor, torch.Tensor]]:
    """{key: (O, A)}: the raw inputs scored against each other, X Y^T (X X^T in self-attention) scaled by
    sqrt(d_model) (scaled_scores(X, Y) reads its width) or by sqrt(d_k), for Q K^T: W_Q and W_K unused (blind33)."""
    return {f"scores_from_inputs{form}": _attend(X, Y, V, M, 1 / math.sqrt(n))
            for form, n in (("", X.shape[-1]), ("/d_k", d_k)) if form == "" or n != X.shape[-1]}


def self_attention_variants(X: torch.Tensor, W_Q: torch.Tensor, W_K: torch.Tensor, W_V: torch.Tensor,
                            causal: bool = True) -> dict[str, tuple[torch.Tensor, torch.Tensor]]:
    """{key: (O, A)}: the attention family, and the values taken from X."""
    Q, K, V = ref.project_qkv(X, W_Q, W_K, W_V)
    M = ref.causal_additive_mask(X.shape[-2], Q.dtype) if causal else None
    _, A = ref.self_attention(X, W_Q, W_K, W_V, causal=causal)
    lengths = {"scale_by_d_model": X.shape[-1], "scale_by_d_v": V.shape[-1], "scale_by_T": X.shape[-2]}
    return {
        # in self-attention K Q^T is Q and K swapped, Q Q^T is W_Q used twice: one mistake, one name
        **attention_family(Q, K, V, M, lengths, {"mask_ignored": "no_causal_mask", "scores_transposed": "qk_swapped",
                                                 "keys_are_queries": "same_projection"}),
        "values_not_projected": (A @ X, A),
        # O^T = V^T A^T, (..., d_v, T), brought back with reshape instead of a transpose (blind84)
        **{k: (v, A) for k, v in output_reshaped(A @ V).items()},
        # the (T, T) mask stretched with repeat_interleave against batch-major flattened scores (blind84)
        **({"mask_rows_interleaved": _attend(Q, K, V, rows_interleaved(M, X.shape[:-2]), 1 / math.sqrt(Q.shape[-1]))}
           if M is not None and X.dim() > 2 and math.prod(X.shape[:-2]) > 1 else {}),
        "same_projection/v_from_wk": (A @ (X @ W_K), A),
        "same_projection/v_from_wq": (A @ (X @ W_Q), A),
        **inputs_scored(X, X, V, M, Q.shape[-1]),
        **({"scores_from_values": _attend(Q, V, V, M, 1 / math.sqrt(Q.shape[-1])),
            # Q, V, K = project_qkv(...): scored against the values and the keys averaged (naming18)
            "scores_from_values/keys_averaged": _attend(Q, V, K, M, 1 / math.sqrt(Q.shape[-1]))}
           if V.shape[-1] == Q.shape[-1] else {}),
        # V @ A for A @ V: runs only where d_v = T (values_as_long_crash draws it) (naming18)
        **({"nw_operands_swapped/values_times_weights": (V @ A, A)} if V.shape[-1] == X.shape[-2] else {}),
        # the 0/1 pattern added as the mask (naming15): the open keys' (tril) or the blocked keys' (triu(1))
        # ones added to the scores, nothing blocked
        **({"mask_not_additive/open_ones": _attend(Q, K, V, torch.ones_like(M).tril(), 1 / math.sqrt(Q.shape[-1])),
            "mask_not_additive/blocked_ones": _attend(Q, K, V, torch.ones_like(M).triu(1), 1 / math.sqrt(Q.shape[-1]))}
           if M is not None else {}),
        # queries in blocks of b, each block given the mask's first rows M[:n] for M[start:start + n] (round 86,
        # blind86): row r masked by row r % b, so a query from position b on sees only the first keys
        **{f"mask_rows_from_block_start/{b}": _attend(Q, K, V, M[torch.arange(X.shape[-2]) % b], 1 / math.sqrt(Q.shape[-1]))
           for b in (2, 3, 4, 8, 16) if M is not None and b < X.shape[-2]},
    }


def rows_interleaved(M: torch.Tensor, lead: tuple[int, ...] | torch.Size) -> torch.Tensor:
    """The 2-D mask M (T_q, T_k) as code that flattens the scores batch-major to (n * T_q, T_k) (row b * T_q + t)
    adds it: each mask row repeated n times in place (M.repeat_interleave(n, dim=0)), so flattened row r gets mask
    row r // n; shaped back to lead + (T_q, T_k)."""
    n = math.prod(lead)
    return M.repeat_interleave(n, dim=0).reshape(*lead, *M.shape[-2:])


def output_reshaped(O: torch.Tensor) -> dict[str, torch.Tensor]:
    """{reshaped_not_transposed: O's transpose (..., d_v, T), laid out in memory and read back as (..., T, d_v)}
    (O = (V^T A^T).reshape(..., T, d_v), blind84); empty where that is O itself (T = 1 or d_v = 1)."""
    if O.dim() < 2 or min(O.shape[-2:]) < 2:
        return {}
    return {"reshaped_not_transposed/output": O.transpose(-2, -1).contiguous().reshape(O.shape)}


def output_layer_norms(O: torch.Tensor, got: object = None) -> dict[str, torch.Tensor]:
    """{key: O normalised over its last axis}: a LayerNorm put on the right output O (blind44's post-norm "Add &
    Norm"), (O - mean) / sqrt(var + eps) with the biased variance (F.layer_norm, nn.LayerNorm, weight 1 and bias 0)
    or torch's default unbiased one ((O - mean) / O.std(...)), at eps 0 and 1e-5 (the defaults) and at the one eps
    the student's `got` shows (its rows' spread against O's: 1e-6, 1e-12, ...). Each variant is still compared
    entry by entry: only rows of mean 0 that are O's own centred rows, each scaled by sqrt(var + one eps), match."""
    c = O - O.mean(dim=-1, keepdim=True)
    out = {}
    for form, var in (("", c.pow(2).mean(dim=-1, keepdim=True)), ("/unbiased_std", O.var(dim=-1, keepdim=True))):
        epss = {0.0, 1e-5}
        if type(got) is torch.Tensor and got.shape == O.shape and got.is_floating_point() and got.numel() > 0:
            spread = got.double().pow(2).sum(dim=-1)
            est = (c.pow(2).sum(dim=-1) / spread - var.squeeze(-1))[spread > 0]
            if est.numel() and bool(torch.isfinite(est).all()) and -1e-3 < float(est.median()) < 0.1:
                epss.add(max(float(est.median()), 0.0))
        for eps in sorted(epss):
            out[f"output_layer_normalised{form}/eps{eps:g}"] = c / torch.sqrt(var + eps)
    return out


def with_output_norms(wrong: Mapping[str, tuple[torch.Tensor, ...]], O: torch.Tensor, A: torch.Tensor,
                      got: object) -> dict[str, tuple[torch.Tensor, ...]]:
    """`wrong` ({key: (O, A)}) and the right output put through a LayerNorm with A right (output_layer_norms, its eps
    fitted to the student's `got`), for q07's whole_key."""
    return {**wrong, **{k: (o, A) for k, o in output_layer_norms(O, got).items()}}


def cross_attention_variants(X: torch.Tensor, Y: torch.Tensor, W_Q: torch.Tensor, W_K: torch.Tensor,
                             W_V: torch.Tensor, M: torch.Tensor | None = None) -> dict[str, tuple[torch.Tensor, torch.Tensor]]:
    """{key: (O, A)}: the attention family, and the roles of X and Y mixed up."""
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    d_k = Q.shape[-1]
    _, A = ref.cross_attention(X, Y, W_Q, W_K, W_V, M)
    lengths = {"scale_by_d_model": X.shape[-1], "scale_by_d_v": V.shape[-1], "scale_by_T": Y.shape[-2],
               "scale_by_T/queries": X.shape[-2]}
    out = {
        **attention_family(Q, K, V, M, lengths),
        "values_not_projected": (A @ Y, A),
        **inputs_scored(X, Y, V, M, d_k),
    }
    # one projection matrix used for two of Q, K, V (a copy-paste slip): the values' width tells W_K from W_V
    for key, (Q2, K2, V2) in {"same_projection/v_from_wk": (Q, K, Y @ W_K), "same_projection/v_from_wq": (Q, K, Y @ W_Q),
                              "same_projection/k_from_wq": (Q, Y @ W_Q, V), "same_projection/q_from_wk": (X @ W_K, K, V),
                              }.items():
        out[key] = _attend(Q2, K2, V2, M, 1 / math.sqrt(d_k))
    if V.shape[-1] == d_k:                           # Q V^T runs only where d_v = d_k (values_as_wide_crash)
        out["scores_from_values"] = _attend(Q, V, V, M, 1 / math.sqrt(d_k))
        out["scores_from_values/keys_averaged"] = _attend(Q, V, K, M, 1 / math.sqrt(d_k))   # K and V swapped
    if M is None:   # keys and values over X and Y together (T + T' of them): a mask for Y's keys alone will not add
        for order, XY in (("x_first", torch.cat([X, Y], dim=-2)), ("y_first", torch.cat([Y, X], dim=-2))):
            out[f"cross_keys_over_both/{order}"] = _attend(Q, XY @ W_K, XY @ W_V, None, 1 / math.sqrt(d_k))
    if X.shape[-2] > 1:   # the queries centred on their mean, trusting the softmax's shift invariance (blind77)
        out["queries_centred"] = _attend(Q - Q.mean(dim=-2, keepdim=True), K, V, M, 1 / math.sqrt(d_k))
    if X.shape[-2] == Y.shape[-2]:                   # A V needs as many keys as values: only then it runs
        out["cross_roles_swapped/values_from_x"] = _attend(Q, K, X @ W_V, M, 1 / math.sqrt(d_k))
        out["cross_roles_swapped/keys_from_x"] = _attend(Q, X @ W_K, V, M, 1 / math.sqrt(d_k))
    for key, A_cut in block_last_row_cut_variants(A, "cross_attention").items():
        out[key] = (A_cut @ V, A_cut)
    return out


def inclusive_slice_end(func: str) -> str | None:
    """A slice, quoted, in the notebook's last `def func` of the test now running whose end is one less than a
    block's end (`[start:start + chunk - 1]`, or `stop = start + chunk - 1` then `[start:stop]`): the end taken as the
    block's last index, where a slice stops before its end. None where it has none."""
    node = _def_of(None, func)
    if node is None:
        return None

    def minus_one(n: ast.AST | None) -> bool:
        return isinstance(n, ast.BinOp) and isinstance(n.op, ast.Sub) and isinstance(n.right, ast.Constant) \
            and n.right.value == 1
    ends = {t.id for n in ast.walk(node) if isinstance(n, ast.Assign) and minus_one(n.value)
            for t in n.targets if isinstance(t, ast.Name)}
    for n in ast.walk(node):
        if isinstance(n, ast.Slice) and n.lower is not None and (
                minus_one(n.upper) or isinstance(n.upper, ast.Name) and n.upper.id in ends):
            return pyparse_unparse(n)[:60]
    return None


def block_last_row_cut_variants(A: torch.Tensor, func: str) -> dict[str, torch.Tensor]:
    """The right A with the last row of every block of `chunk` query rows left at zero, for the chunk sizes 2..64
    (blind71's `stop = start + chunk - 1` then `[start:stop]`): replayed only where `def func` slices so
    (inclusive_slice_end)."""
    T = A.shape[-2] if A.dim() >= 2 else 0
    if T < 2 or T > 4096 or inclusive_slice_end(func) is None:
        return {}
    out = {}
    for c in range(2, min(T, 64) + 1):
        cut = A.clone()
        cut[..., c - 1::c, :] = 0
        out[f"slice_end_inclusive/chunk{c}"] = cut
    return out


def _cosine_kernels(q: torch.Tensor, K: torch.Tensor, V: torch.Tensor, right: torch.Tensor) -> dict[str, torch.Tensor]:
    cos = (K @ q) / (K.norm(dim=-1) * q.norm())
    out = {}
    for key, scale in (("nw_cosine_kernel", 1 / math.sqrt(q.shape[-1])), ("nw_cosine_kernel/unscaled", 1.0)):
        kappa = torch.exp(cos * scale)
        s = (kappa[:, None] * V).sum(0) / kappa.sum()
        if not torch.allclose(s, right, rtol=1e-4, atol=1e-6):   # unit-norm q and k: the cosine is the dot product
            out[key] = s
    return out


def _sorted_kernels(kappa: torch.Tensor, V: torch.Tensor) -> dict[str, torch.Tensor]:
    """The kernel weights sorted, the values left in key order (nw_weights_sorted_values_not); a sort that leaves the
    weights in key order (keys already ranked so) is the right answer and is left out."""
    if kappa.dim() != 1:
        return {}
    out = {}
    for how, down in (("descending", True), ("ascending", False)):
        ranked = kappa.sort(descending=down).values
        if not torch.equal(ranked, kappa):
            out[f"nw_weights_sorted_values_not/{how}"] = (ranked[:, None] * V).sum(0) / kappa.sum()
    return out


def nw_variants(q: torch.Tensor, K: torch.Tensor, V: torch.Tensor) -> dict[str, torch.Tensor]:
    T, d_k, d_v = K.shape[-2], q.shape[-1], V.shape[-1]

    def smooth(scale: float) -> torch.Tensor:
        kappa = torch.exp(K @ q * scale)
        return (kappa[:, None] * V).sum(0) / kappa.sum()

    kappa = torch.exp(K @ q / math.sqrt(d_k))
    out = {
        "multiply_by_sqrt_dk": smooth(math.sqrt(d_k)),
        "sqrt_precedence": smooth(2 / d_k),
        "sqrt_precedence/times": smooth(1 / (2 * d_k)),   # * d_k ** -1 / 2: q.k / (2 d_k) (blind70)
        "nw_returns_weights": kappa / kappa.sum(),
        "scores_negated": smooth(-1 / math.sqrt(d_k)),     # exp(-q.k / sqrt(d_k)), a distance kernel's sign
        # the kernel weights sorted (for a safe shift by s[0], or a top-k), the values left in key order: the largest
        # weight meets V[0] (round 88, blind89)
        **_sorted_kernels(kappa, V),
        # a normalised similarity for the plain one: the cosine q.k / (|q| |k|), scaled or not (naming14)
        **_cosine_kernels(q, K, V, smooth(1 / math.sqrt(d_k))),
        # the weighted values reduced over their own columns: one entry per key (T), not per column (d_v)
        "nw_sum_wrong_axis": (kappa[:, None] * V).sum(-1) / kappa.sum(),
        # V (T, d_v) reshaped to (d_v, T) instead of transposed, then times kappa (blind84); a square V reshapes to
        # itself, which is nw_operands_swapped's V @ kappa
        **({"reshaped_not_transposed/values": (V.reshape(d_v, T) @ kappa) / kappa.sum()}
           if V.dim() == 2 and min(T, d_v) > 1 and T != d_v else {}),
        "nw_sum_wrong_axis/mean": (kappa[:, None] * V).mean(-1) / kappa.sum(),
        "nw_sum_wrong_axis/no_denominator": (kappa[:, None] * V).sum(-1),
        # the weighted sum divided by another statistic of the kernel weights than their sum: by their
        # mean it is T times too large, by their maximum or norm off by a factor of its own
        "nw_wrong_denominator/mean": (kappa[:, None] * V).sum(0) / kappa.mean(),
        "nw_wrong_denominator/max": (kappa[:, None] * V).sum(0) / kappa.max(),
        "nw_wrong_denominator/norm": (kappa[:, None] * V).sum(0) / kappa.norm(),
        # a normalisation applied twice (naming15): a softmax of weights already exponentiated, or already
        # normalised (softmax of the softmax)
        "normalised_twice/softmax_of_exp": torch.softmax(kappa, dim=0) @ V,
        "normalised_twice/softmax_of_weights": torch.softmax(kappa / kappa.sum(), dim=0) @ V,
        # no exp (naming29): the scaled scores themselves as weights, divided by their sum (the scale cancels
        # there: scaled or not, one result) or not divided at all
        "no_softmax/scores_over_their_sum": ((K @ q)[:, None] * V).sum(0) / (K @ q).sum(),
        "no_softmax/raw_scores": (K @ q / math.sqrt(d_k)) @ V,
        # log-weights never exponentiated (blind31): logits - logsumexp, log_softmax of the scaled scores
        "log_softmax_weights": torch.log_softmax(K @ q / math.sqrt(d_k), dim=0) @ V,
        # one kernel weighting the values, another summed below (blind34): the scale on one side only
        "nw_kernel_mismatch/numerator_unscaled": (torch.exp(K @ q)[:, None] * V).sum(0) / kappa.sum(),
        "nw_kernel_mismatch/denominator_unscaled": (kappa[:, None] * V).sum(0) / torch.exp(K @ q).sum(),
    }
    # the (T,) kernel tiled to (T, d_v) with .repeat(d_v).reshape(T, d_v) (blind59): entry (i, j) weighted by kappa[(i *
    # d_v + j) % T]; with d_v = T that is the weights along the columns (nw_weights_on_columns), left to that key
    if T > 1 and d_v > 1 and T != d_v:
        tiled = kappa.repeat(d_v).reshape(T, d_v)
        out["nw_weights_tiled_flat"] = (tiled * V).sum(0) / kappa.sum()
        out["nw_weights_tiled_flat/tiled_denominator"] = (tiled * V).sum(0) / tiled.sum(0)
    # the normalised weights' weighted values averaged over the keys (.mean(dim=0), or the sum divided by T
    # again): the right row divided by T (naming17); kept only where T is no other size (1/T = 1/d_v)
    if T not in (d_k, d_v):
        out["values_averaged_over_keys"] = (kappa / kappa.sum())[:, None].mul(V).mean(0)
    # a product's operands swapped runs only on a square matrix (q08 names the crash from a square re-run)
    if T == d_k:      # q @ K: q scored against K's columns
        rows = torch.exp(K.mT @ q / math.sqrt(d_k))
        out["nw_operands_swapped/query_keys"] = (rows[:, None] * V).sum(0) / rows.sum()
    if T == d_v:      # V @ w for w @ V: the weights meet V's columns
        out["nw_operands_swapped/values_weights"] = V @ kappa / kappa.sum()
    if T >= 2:   # one key and its value left out (K[:-1], V[:-1] or K[1:], V[1:]): an off-by-one in the range
        for end, keep in (("last", slice(None, -1)), ("first", slice(1, None))):
            k = kappa[keep]
            out[f"nw_drops_a_key/{end}"] = (k[:, None] * V[keep]).sum(0) / k.sum()
    # sqrt of another length, kept only where it differs from every other scale the catalogue tries
    # (d_v = T = 4 would tell neither apart; T = 9 gives isqrt(12) = 3)
    other = {math.sqrt(d_k), float(math.isqrt(d_k)), d_k / 2, float(d_k)}
    # the scores divided by the query's own length |q| (q.norm()), E|q|^2 = d_k read as the scale (blind58): kept
    # only where |q| is none of those scales nor 1
    norm = float(q.norm())
    if norm > 0 and all(abs(norm - c) > 1e-3 * c for c in other | {1.0}):
        out["scale_by_query_norm"] = smooth(1 / norm)
    lengths = {"scale_by_d_v": d_v, "scale_by_T": T}
    for key, n in lengths.items():
        if math.sqrt(n) not in other and list(lengths.values()).count(n) == 1:
            out[key] = smooth(1 / math.sqrt(n))
    out.update(nw_half_kernel_variants(q, K, V))
    return out


def nw_half_kernel_variants(q: torch.Tensor, K: torch.Tensor, V: torch.Tensor) -> dict[str, torch.Tensor]:
    """The kernel weights (or the normalised weights) made in float16 to save memory and cast back to V's dtype
    (blind71's exp((K @ q / sqrt(d_k)).half())): the right formula with that one step rounded to float16, the rest in
    the input's dtype. Only for float32 and float64 inputs, whose rows carry more digits than float16's."""
    if V.dtype not in (torch.float32, torch.float64) or K.shape[-2] > 4096:
        return {}
    dt, s = V.dtype, K @ q / math.sqrt(q.shape[-1])
    kernels = {"scores": torch.exp(s.half()).to(dt), "weights": torch.exp(s).half().to(dt)}
    out = {f"float16_precision/kernel_from_{how}": (k[:, None] * V).sum(0) / k.sum() for how, k in kernels.items()}
    out["float16_precision/softmax_in_half"] = torch.softmax(s.half(), dim=0).to(dt) @ V
    out["float16_precision/softmax_rounded"] = torch.softmax(s, dim=0).half().to(dt) @ V
    return out


def prefix_average_variants(T: int) -> dict[str, torch.Tensor]:
    W = torch.ones(T, T, dtype=torch.float64).tril()
    return {
        # W / W.sum(): the whole triangle's total T(T+1)/2 instead of each row's own count (naming21)
        "softmax_global_sum/prefix_average": W / W.sum(),
        "prefix_average_not_divided": W,
        # Bessel's n - 1 for the row count t, clamped at 1 for the first row (blind77): rows from t = 2 hold 1/(t-1)
        "prefix_average_bessel": W / (W.sum(dim=-1, keepdim=True) - 1).clamp(min=1),
        # the lesson's 1-based rows and columns kept as storage (blind58): (T+1) x (T+1), row and column 0 unused
        "prefix_average_one_based": torch.nn.functional.pad(W / W.sum(dim=-1, keepdim=True), (1, 0, 1, 0)),
        "prefix_average_zero_based": W / torch.arange(T, dtype=torch.float64)[:, None],   # row 0 / 0
        # the counts in reverse, arange(T, 0, -1) (blind31): row t divided by T - t + 1
        "prefix_average_counts_reversed": W / torch.arange(T, 0, -1, dtype=torch.float64)[:, None],
        # a softmax of the 0/1 pattern: e^0 = 1 above the diagonal, e^1 on and below it
        "prefix_average_softmax_of_pattern": torch.softmax(W, dim=-1),
        "prefix_average_softmax_of_pattern/columns": torch.softmax(W, dim=0),
        # the count taken down the columns instead of along the rows: W.cumsum(0) holds row - col + 1
        # below the diagonal (0 / 0 above it), W.sum(0) broadcast over the last axis divides column j by T - j
        "prefix_average_count_wrong_axis/cumsum": W / W.cumsum(dim=0),
        "prefix_average_count_wrong_axis/sum": W / W.sum(dim=0),
        # tril(diagonal=-1): only the strictly earlier tokens, row t leaves itself out (row 0 is 0 / 0, or 0
        # where the count is clamped to 1)
        "prefix_average_excludes_self": W.tril(-1) / W.tril(-1).sum(dim=-1, keepdim=True),
        "prefix_average_excludes_self/guarded": W.tril(-1) / W.tril(-1).sum(dim=-1, keepdim=True).clamp(min=1),
        # the running sum one token behind over the right count t + 1 (accumulate(..., initial=0) zipped with
        # range(1, T + 1), blind72): row t holds tokens 0..t-1 / (t + 1), the diagonal 0
        "prefix_sum_one_behind": W.tril(-1) / torch.arange(1, T + 1, dtype=torch.float64)[:, None],
        # tril(diagonal=1): row t averages the tokens up to t + 1, the next one too (naming12)
        "causal_includes_next": torch.ones(T, T, dtype=torch.float64).tril(1)
        / torch.ones(T, T, dtype=torch.float64).tril(1).sum(dim=-1, keepdim=True),
        # a loop over the rows that starts one late (range(1, T)) or stops one early (range(T - 1)): the first
        # or the last row of the right matrix left at zero (naming15)
        "prefix_average_row_skipped/first": (W / W.sum(dim=-1, keepdim=True)).index_fill(0, torch.tensor([0]), 0.0),
        "prefix_average_row_skipped/last": (W / W.sum(dim=-1, keepdim=True)).index_fill(0, torch.tensor([T - 1]), 0.0),
        # each row divided by its Euclidean length (F.normalize's default p=2, blind40): row t holds 1/sqrt(t)
        "prefix_average_unit_length_rows": W / W.norm(dim=-1, keepdim=True),
        **expanded_prefix_variants(T),   # written in place into an expanded tensor (blind60)
    }


_ROW_SIZES = re.compile(r"size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\) at non-singleton dimension 0")


def raise_if_prefix_average_container(got: object, T: int) -> None:
    """The right W_avg in another container (blind32): a nested Python list (or tuple) of the right numbers is
    `returns_list_not_tensor`, a NumPy array of them `returns_numpy_not_tensor`, both compared with the engine's
    raise_if_other_container; the list's fix is said for this matrix, not in the engine's words for a mask."""
    if type(got) is torch.Tensor:
        return
    try:
        checks.raise_if_other_container(got, ref.prefix_average_matrix(T), "W_avg", reduced=False)
    except Misconception as m:
        if m.key != "returns_list_not_tensor":
            raise
        raise Misconception(m.key, f"W_avg is a nested Python {type(got).__name__} holding the right numbers, not "
                            "a torch tensor: the question asks for a float64 tensor (its rows feed matrix products "
                            "and comparisons as a tensor); build it with torch, e.g. torch.tensor(rows, "
                            "dtype=torch.float64), or torch.ones(T, T, dtype=torch.float64).tril() / "
                            "torch.arange(1, T + 1, dtype=torch.float64)[:, None]") from None


def prefix_average_one_short_crash(fn: Callable[..., object], e: StudentCodeError, T: int) -> Misconception | None:
    """prefix_average_row_skipped from a crash: a broadcast of T rows against T - 1 along dimension 0 (the
    row counts torch.arange(1, T) makes: its end is exclusive), and a second call with T = 2, where the one
    count 1 broadcasts, returns exactly the 0/1 triangle, every row divided by 1 (the right answer's second
    row is [0.5, 0.5]). None otherwise (naming27). Alone, the T = 2 answer is also prefix_average_not_divided's;
    the crash at T, which dividing by nothing does not give, tells them apart."""
    found = _ROW_SIZES.search(e.message or "")
    if not found or {int(found.group(1)), int(found.group(2))} != {T, T - 1}:
        return prefix_average_fixed_counts_crash(fn, e, T)
    try:
        out = fn(2)
    except StudentCodeError:
        return None
    W2 = torch.ones(2, 2, dtype=torch.float64).tril()
    if type(out) is not torch.Tensor or tuple(out.shape) != (2, 2) or not torch.equal(out.double(), W2):
        return None
    return Misconception("prefix_average_row_skipped", f"{_said(e)} for T = {T}: {T} rows against {T - 1} row "
                         "counts; with T = 2 it runs and returns [[1, 0], [1, 1]], both rows divided by 1, the one "
                         "count there: the counts stop at T - 1 (torch.arange(1, T) leaves out its end): "
                         + describe("prefix_average_row_skipped"))


_ANY_SIZES = re.compile(r"size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\) at non-singleton "
                        r"dimension \d")


def prefix_average_fixed_counts_crash(fn: Callable[..., object], e: StudentCodeError, T: int) -> Misconception | None:
    """prefix_average_counts_fixed from a crash: T rows (or columns) against a fixed number n of counts, n neither
    T nor T - 1 (the lesson's five tokens written out: torch.tensor([1., 2., 3., 4., 5.])), and a second call with
    T = n runs and is right. None otherwise (naming30)."""
    n = size_against(e, T)
    if n is None or n in (T - 1, T + 1) or not 1 <= n <= 64:
        return None
    try:
        out = fn(n)
    except StudentCodeError:
        return None
    if type(out) is not torch.Tensor or tuple(out.shape) != (n, n) \
            or not is_right(out, ref.prefix_average_matrix(n).double(), torch.float64):
        return None
    return Misconception("prefix_average_counts_fixed", f"{_said(e)} for T = {T}: {T} rows against {n} row counts; "
                         f"with T = {n} it runs and is right: " + describe("prefix_average_counts_fixed"))


def prefix_average_repeated_flat_crash(e: StudentCodeError, T: int, submission: object) -> Misconception | None:
    """prefix_average_counts_repeated_flat from a crash: a broadcast of T against T * T (the T x T pattern against
    the 1-D counts repeated end to end: arange(1, T + 1).repeat(1, T) is (1, T * T)), and the source of
    prefix_average_matrix (or a helper it calls) repeats or tiles something. None otherwise (blind36)."""
    from autograder.grading.source_checks import SourceUnreadable, cells_of, find_use
    found = _ANY_SIZES.search(e.message or "")
    if submission is None or not found or {int(found.group(1)), int(found.group(2))} != {T, T * T}:
        return None
    try:
        use = find_use(cells_of(submission), "prefix_average_matrix", ("repeat", "tile"))
    except SourceUnreadable:
        return None
    if use is None:
        return None
    return Misconception("prefix_average_counts_repeated_flat", f"{_said(e)} for T = {T}: {T} against {T * T} "
                         f"= T * T, and {use.describe()}: " + describe("prefix_average_counts_repeated_flat"))


def prefix_average_masked_division(got: object, T: int) -> Misconception | None:
    """prefix_average_divided_after_mask: W_avg right on and below the diagonal (to its dtype's tolerances, float64
    or float32) and, above it, every entry +inf (1 / counts.tril(): 1/0) or every entry NaN (W / (W * t): 0/0),
    read off the returned matrix. No other catalogued prefix-average mistake is right on the whole lower triangle:
    the zero-based count and the strictly earlier tokens put their NaN in row 0, the count down the columns
    (NaN above too) divides below the diagonal by row - column + 1. None otherwise (blind47)."""
    if type(got) is not torch.Tensor or got.dtype not in (torch.float64, torch.float32) \
            or tuple(got.shape) != (T, T) or T < 2:
        return None
    g = got.detach().to(torch.float64)
    lower = torch.ones(T, T, dtype=torch.bool).tril()
    above = g[~lower]
    if bool(torch.isposinf(above).all()):
        said = "inf (1/0)"
    elif bool(torch.isnan(above).all()):
        said = "NaN (0/0)"
    else:
        return None
    if not is_right(g[lower], ref.prefix_average_matrix(T).double()[lower], got.dtype):
        return None
    also = " (it is float32 too: the question asks for float64)" if got.dtype == torch.float32 else ""
    return Misconception("prefix_average_divided_after_mask", f"W_avg is right on and below the diagonal, but all "
                         f"{above.numel()} entries above it are {said} where they should be 0{also}: "
                         + describe("prefix_average_divided_after_mask"))


def float32_then_cast(got: object, T: int) -> bool:
    """prefix_average_float32: a float64 W_avg exactly equal (bit for bit) to the right recipe computed in
    float32 and cast at the end (W / t, W * (1 / t), or W / W.sum(-1)), and not exactly the right one."""
    if type(got) is not torch.Tensor or got.dtype != torch.float64 or tuple(got.shape) != (T, T):
        return False
    W = torch.ones(T, T).tril()
    t = torch.arange(1, T + 1, dtype=torch.float32)[:, None]
    replays = (W / t, W * (1.0 / t), W / W.sum(dim=-1, keepdim=True))
    return (not torch.equal(got, ref.prefix_average_matrix(T).double())
            and any(torch.equal(got, r.double()) for r in replays))


_SLOT_WRITES = frozenset({"index_put", "index_put_", "index_copy", "index_copy_", "scatter", "scatter_", "put_"})


def _writes_into_slots() -> bool:
    """Whether the notebook's last `def row_entropy_bits` writes values into slots (index_put, index_copy, scatter,
    put_, or an assignment to a subscript): the gate of entropy_terms_overwritten, whose one-term-per-row replay an
    einsum with crossed subscripts also gives (blind85; the scan after round 88)."""
    node = _def_of(None, "row_entropy_bits")
    if node is None:
        return False
    for n in itertools.islice(ast.walk(node), 4000):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _SLOT_WRITES:
            return True
        if isinstance(n, ast.Assign) and any(isinstance(t, ast.Subscript) for t in n.targets):
            return True         # H[rows] = terms (an `H[rows] += terms` accumulates: not this slip)
    return False


def entropy_overwritten_variants(A: torch.Tensor) -> dict[str, torch.Tensor]:
    """q10: -a log2 a of one weight per row where each row's terms go to one slot without accumulating (index_put or
    index_copy without accumulate=True, H[rows] = terms; blind89): the last nonzero weight's term, or the first's.
    A batched A whose terms all land in the T_q slots of one row (the row id the query index alone, scatter_add over
    the flattened batch, blind89) is the entropies summed over the batch: batched_input_unsupported's kind."""
    terms = torch.where(A > 0, -A * torch.log2(A.clamp_min(torch.finfo(A.dtype).tiny)), torch.zeros_like(A))
    nz = (A > 0).to(torch.int64)
    idx = torch.arange(A.shape[-1]).expand(A.shape)
    last = torch.where(nz.bool(), idx, -1).amax(dim=-1, keepdim=True).clamp_min(0)
    first = torch.where(nz.bool(), idx, A.shape[-1]).amin(dim=-1, keepdim=True).clamp_max(A.shape[-1] - 1)
    out = {"entropy_terms_overwritten/last": terms.gather(-1, last).squeeze(-1),
           "entropy_terms_overwritten/first": terms.gather(-1, first).squeeze(-1)} if _writes_into_slots() else {}
    if A.dim() > 2:
        out["batched_input_unsupported/batch_summed"] = ref.row_entropy_bits(A).reshape(-1, A.shape[-2]).sum(0)
    return out


def entropy_variants(A: torch.Tensor) -> dict[str, torch.Tensor]:
    H = ref.row_entropy_bits(A)
    if A.dim() > 2:   # the diagonal of A log2(A)^T with torch.diagonal's default dims 0, 1: the batch and query
        # axes on a batched A, not the last two; the reference itself on a 2-D A (naming29, blind23)
        logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))
        diagonal = {"batched_input_unsupported/diagonal": -torch.diagonal(A @ logs.transpose(-2, -1))}
        # sum(terms), the builtin, adds over dim 0, the batch (blind72); on a 2-D A it is entropy_wrong_dim's columns
        if builtin_sum_called():
            diagonal["builtin_sum_over_tensor"] = -(A * logs).sum(dim=0)
    else:
        diagonal = {}
    return {
        **diagonal,
        **entropy_log_in_place_variants(A),
        # the min-entropy -log2(max_j a_j), the largest weight alone (blind26), in bits and in nats
        "min_entropy": -torch.log2(A.amax(dim=-1)),
        "min_entropy/nats": -torch.log(A.amax(dim=-1)),
        # -log2 a summed (or averaged) over the row's nonzero weights, each term never weighted by its a (blind30)
        **{f"entropy_unweighted{unit}{how}": f(-torch.where(A > 0, torch.log2(A) * scale, torch.zeros_like(A)), A)
           for unit, scale in (("", 1.0), ("/nats", math.log(2))) for how, f in (
               ("", lambda t, A: t.sum(dim=-1)), ("/mean", lambda t, A: t.sum(dim=-1) / (A > 0).sum(dim=-1)))},
        "entropy_mean_not_sum": H / A.shape[-1],
        # each row's terms written into one slot without accumulating (index_put, H[rows] = terms): one term per row
        **entropy_overwritten_variants(A),
        # the NaN of 0 * log2(0) replaced only after the row sum (nan_to_num on H): every row with a zero weight
        # is NaN summed, then 0 (blind38); in bits and in nats
        **{f"entropy_nan_zeroed_after_sum{unit}": torch.nan_to_num(-(A * f(A)).sum(dim=-1), nan=0.0)
           for unit, f in (("", torch.log2), ("/nats", torch.log))},
        "entropy_log10": H * math.log10(2),
        # log(0) guarded by shifting every argument: log2(A + 1) changes every term, not only the zeros
        "entropy_log_shifted": -(A * torch.log2(A + 1)).sum(dim=-1),
        "entropy_log_shifted/nats": -(A * torch.log(A + 1)).sum(dim=-1),
        # the query axis reduced too (sum over dim=(-2, -1)): one number per matrix, not one per row
        "entropy_summed_over_queries": H.sum(dim=-1),
        "entropy_summed_over_queries/mean": H.mean(dim=-1),
        # the weights taken as logits (log_softmax(A) or softmax(A)): the entropy of softmax(A), where the masked
        # zeros get weight again; in bits and in nats (naming24)
        **{f"softmax_applied_twice{unit}": -(P * torch.log(P)).sum(dim=-1) / base
           for P in (torch.softmax(A, dim=-1),) for unit, base in (("", math.log(2)), ("/nats", 1.0))},
        # F.cross_entropy(A, A) as Keras's categorical_crossentropy on probabilities (blind80): it takes logits
        # (log_softmax, not log) with the classes on dim 1; in bits and in nats (naming round 80)
        **({f"cross_entropy_on_probabilities{unit}": torch.nn.functional.cross_entropy(A, A, reduction="none") / base
            for unit, base in (("", math.log(2)), ("/nats", 1.0))} if A.dim() >= 2 and A.is_floating_point() else {}),
        # divided by log(T_k), the row's largest entropy (a "normalised" entropy), from nats or from bits; not
        # where that factor is 1 (T_k = 2) or log10(2) (T_k = 10, entropy_log10's) (naming21)
        **({"entropy_normalised_by_log_keys": H * math.log(2) / math.log(A.shape[-1]),
            "entropy_normalised_by_log_keys/bits": H / math.log(A.shape[-1])} if A.shape[-1] not in (0, 1, 2, 10) else {}),
        **entropy_renormalised_variants(A),
    }


def _guarded_entropy(P: torch.Tensor) -> torch.Tensor:
    """-(P * log2 P).sum(-1) with log2(0) taken as 0 (torch.where(P > 0, log2(P), 0)); a NaN of P stays NaN."""
    return -(P * torch.where(P > 0, torch.log2(P), torch.zeros_like(P))).sum(dim=-1)


def entropy_renormalised_variants(A: torch.Tensor) -> dict[str, torch.Tensor]:
    """The row entropies of A first renormalised along another axis than its rows (blind42): A / A.sum(dim=0), the
    axis scipy.stats.entropy normalises by default (a column of one matrix, the batch axis of a batched A), or
    A / A.sum(dim=-2) (each matrix's columns); 0 / 0 where every entry of a sum is a masked zero stays NaN (NaN * 0
    is NaN), or becomes 0 where the division is guarded (nan_to_num, a clamped sum)."""
    out = {}
    for how, dim in (("", 0), ("/columns", -2)):
        if how and A.dim() <= 2:   # dim -2 is dim 0 of one matrix
            continue
        P = A / A.sum(dim=dim, keepdim=True)
        out["entropy_renormalised_other_axis" + how] = _guarded_entropy(P)
        out["entropy_renormalised_other_axis" + how + "/guarded"] = _guarded_entropy(torch.nan_to_num(P, nan=0.0))
    return out


def zero_log_zero_nan_replay(A: torch.Tensor) -> torch.Tensor:
    """-(A * log2(A)).sum(-1) with nothing guarded: 0 * log2(0) = 0 * -inf is NaN, so each row holding a zero
    weight is NaN and every other row is right."""
    return -(A * torch.log2(A)).sum(dim=-1)


def raise_if_zero_log_zero_nan(got: object, replay: torch.Tensor, what: str, atol: float) -> None:
    """zero_log_zero_nan only where `got` is `replay` (the unguarded 0 * log 0 on the same input): NaN exactly on
    the rows with a zero weight and right on the others. A NaN elsewhere, or a wrong value beside it, is another
    mistake (blind42's A / A.sum(dim=0): 0 / 0 on a batched causal A, its log 0 guarded) and is left to the
    variants."""
    if type(got) is not torch.Tensor or not got.is_floating_point() or not bool(torch.isnan(got).any()):
        return
    if not bool(torch.isnan(replay).any()):
        return
    if matching_variants(got, {"zero_log_zero_nan": replay}, replay.dtype, rtol=0, atol=atol):
        raise Misconception("zero_log_zero_nan", f"{what} contains NaN on the rows with a zero weight and is right on "
                            "the others: " + describe("zero_log_zero_nan"))


def effective_tokens_variants(A: torch.Tensor) -> dict[str, torch.Tensor]:
    H = ref.row_entropy_bits(A)
    return {"effective_tokens_power_reversed": H ** 2,
            "effective_tokens_exponent_negated": 2.0 ** -H,      # also 1 / 2 ** H, torch.exp2(-H)
            "effective_tokens_inverse_simpson": 1.0 / (A ** 2).sum(dim=-1),
            "entropy_log_shifted": 2.0 ** -(A * torch.log2(A + 1)).sum(dim=-1),
            # the number of keys with any weight (the support size): 2^H only for uniform rows
            "effective_tokens_support_size": (A > 0).sum(dim=-1).to(A.dtype),
            "effective_tokens_times_two": 2.0 * H,                # 2 * H typed for 2 ** H
            "entropy_summed_over_queries": 2.0 ** H.sum(dim=-1),
            # 2 ** H made a whole number of tokens: rounded, or cut down or up (naming30)
            "effective_tokens_rounded": torch.round(2.0 ** H),
            "effective_tokens_rounded/floor": torch.floor(2.0 ** H),
            "effective_tokens_rounded/ceil": torch.ceil(2.0 ** H)}


def qkv_variants(X: torch.Tensor, W_Q: torch.Tensor, W_K: torch.Tensor,
                 W_V: torch.Tensor) -> dict[str, tuple[torch.Tensor, torch.Tensor, torch.Tensor]]:
    """{key: (Q, K, V)}: one matrix used twice, or the right three in another order ((K, Q, V) is
    qk_swapped, in the reference's catalogue)."""
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    out: dict[str, tuple[torch.Tensor, torch.Tensor, torch.Tensor]] = {}
    try:   # * (elementwise) for @: runs only where X and W broadcast (square X and W, as a re-run draws them)
        out["elementwise_product"] = (X * W_Q, X * W_K, X * W_V)
    except RuntimeError:
        pass
    # the input normalised first (a pre-norm transformer's layer norm, or a standardisation) and then projected
    for key, Xn in (("layer_norm_before_projection", torch.nn.functional.layer_norm(X, X.shape[-1:])),
                    ("layer_norm_before_projection/std", (X - X.mean(-1, keepdim=True)) / X.std(-1, keepdim=True))):
        out[key] = (Xn @ W_Q, Xn @ W_K, Xn @ W_V)
    # the scale in the wrong place: X divided by sqrt(a length) (or by it) before projecting, so Q, K and V
    # all come out that one constant factor too small; a factor two lengths share names neither (naming14)
    lengths = {"d_model": X.shape[-1], "d_k": W_Q.shape[-1], "d_v": W_V.shape[-1], "T": X.shape[-2]}
    factors = {f"{name}{'' if p == 1 else '/sqrt'}": n ** (0.5 if p == 0 else 1.0)
               for name, n in lengths.items() for p in (0, 1) if n > 1}
    for key, c in factors.items():
        if sum(math.isclose(c, o, rel_tol=1e-9) for o in factors.values()) == 1:
            out[f"inputs_scaled_before_projection/{key}"] = (Q / c, K / c, V / c)
    # Q alone returned scaled by 1/sqrt(d_k) (or 1/d_k), K and V plain: the softmax scale folded into the query
    # projection (blind70); judged on all three, so it is told from X scaled before projecting
    for key, c in (("query_prescaled", math.sqrt(W_Q.shape[-1])), ("query_prescaled/d_k", float(W_Q.shape[-1]))):
        if c > 1:
            out[key] = (Q / c, K, V)
    if X.shape[-2] not in (W_Q.shape[-1], W_V.shape[-1]):   # (d_k, T) for (T, d_k): tokens as columns (naming18)
        out["projections_transposed"] = (Q.transpose(-2, -1), K.transpose(-2, -1), V.transpose(-2, -1))
    out.update(restored_layout_variants(X, (W_Q, W_K, W_V)))   # rows restored in another layout (blind60)
    # each token's product read as a row lookup, W[X.argmax(-1)] (blind64): X @ W only for one-hot tokens
    ids = X.argmax(dim=-1)
    out["projection_as_row_lookup"] = (W_Q[ids], W_K[ids], W_V[ids])
    return out | fused_split_variants(X, W_Q, W_K, W_V) | {
        "same_projection/q_from_wk": (K, K, V),
        "same_projection/v_from_wq": (Q, K, Q),
        "same_projection/v_from_wk": (Q, K, K),
        "same_projection/k_from_wv": (Q, V, V),
        # one matrix for all three (late-bound lambdas in a comprehension all see the last W): never a reordering
        "same_projection/all_from_wq": (Q, Q, Q),
        "same_projection/all_from_wk": (K, K, K),
        "same_projection/all_from_wv": (V, V, V),
        "results_reordered/qvk": (Q, V, K),
        "results_reordered/vkq": (V, K, Q),
        "results_reordered/kvq": (K, V, Q),
        "results_reordered/vqk": (V, Q, K),
    }


# --- issue 21, fifth round of naming: kinds from blind8's misses ----------------------------------------

def mask_transposed_crash(e: StudentCodeError, M: torch.Tensor | None, rerun: Callable[[torch.Tensor], object],
                          right: Callable[[object], bool]) -> Misconception | None:
    """A size-mismatch crash with a rectangular mask M, when the same call given M already transposed
    (T_k, T_q) runs and is right for M: the code transposes the mask (S + M.T). A right implementation
    cannot add a (T_k, T_q) mask to (T_q, T_k) scores, so the right answer there is the proof."""
    if (M is None or M.dim() < 2 or M.shape[-1] == M.shape[-2] or min(M.shape[-2:]) < 2
            or "must match the size" not in e.message):
        return None
    try:
        out = rerun(M.transpose(-2, -1))
    except StudentCodeError:
        return None
    if not right(out):
        return None
    return Misconception("mask_transposed", f"{_said(e)}; given the mask transposed ({tuple(M.shape[-1:-3:-1])}) "
                         "it runs and gives the right weights for M: " + describe("mask_transposed") + _tail(e))


_HEDGE_SPLIT = re.compile(r"\s*(?:,|/|&|;|\bor\b|\band\b|\s)\s*", re.IGNORECASE)


def raise_if_answer_hedged(value: object, what: str, answer: str, wrong: Mapping[str, str],
                           choices: str = "abcd") -> None:
    """Several option letters joined by ",", "/", "or", "and", "&" or spaces ("c, d") where one is asked:
    never full marks. With exactly two letters, one of them the answer and the other a wrong choice that
    `wrong` names, the wrong one's key is named (its belief is what the hedge keeps open); otherwise the
    message says only how many letters there are (naming27)."""
    if type(value) is not str:
        return
    parts = [p.strip("()").strip().lower() for p in _HEDGE_SPLIT.split(value.strip()) if p.strip("()").strip()]
    letters = sorted(set(parts))
    if len(parts) < 2 or len(letters) < 2 or not all(len(p) == 1 and p in choices for p in parts):
        return
    others = [p for p in letters if p != answer.lower()]
    if len(letters) == 2 and len(others) == 1 and others[0] in wrong:
        raise Misconception(wrong[others[0]], f"{what} is {value!r}, two letters where one is asked: one of them, "
                            f"{others[0]!r}, is not the best answer: that choice reflects "
                            f"{describe(wrong[others[0]])}; answer with the one best letter")
    raise AssertionError(f"{what} is {value!r}, {len(letters)} letters ({', '.join(letters)}) where one is asked: "
                         "answer with the one best letter")


# --- issue 21, sixth round of naming: kinds from blind9's misses ----------------------------------------

def split_transposed(wrong: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the self-attention variants without qk_swapped, qk_swapped's alone). In self-attention Q and K
    swapped in the projection (Q = X W_K) and scaled_scores(K, Q) both give S = X W_K W_Q^T X^T, on every
    input: no call of self_attention can tell them apart, so neither is named (raise_if_scores_transposed)."""
    keep = {k: v for k, v in wrong.items() if k.split("/")[0] != "qk_swapped"}
    return keep, {k: v for k, v in wrong.items() if k not in keep}


def raise_if_scores_transposed(got: object, transposed: Mapping[str, tuple[torch.Tensor, ...]],
                               want: tuple[torch.Tensor, ...], dtype: torch.dtype) -> None:
    """(O, A) of self-attention equal to what S = K Q^T gives: a generic failure that names the place
    (the scores are transposed) and both ways of getting there, since the output cannot tell which."""
    if not (isinstance(got, (tuple, list)) and len(got) == len(want)) or all_right(got, want, dtype):
        return
    for parts in transposed.values():
        if all_right(got, parts, dtype):
            raise AssertionError("(O, A) are what the transposed scores S = K Q^T give (X W_K W_Q^T X^T, keys as "
                                 "rows): either Q and K are swapped (Q comes from W_Q, K from W_K) or scaled_scores "
                                 "gets K first (call scaled_scores(Q, K)); the output is the same for both, so check "
                                 "which of the two your code does")


# --- issue 21, seventh round of naming: kinds from blind10's misses ---------------------------------------

def raise_if_mask_cached(fn: Callable[..., object], M: torch.Tensor, T: int, dtype: torch.dtype) -> None:
    """State kept between calls: a mask in another dtype than asked (the dtype of an earlier call), where a
    fresh size asked for first in `dtype` comes back right, and the same fresh size asked next in M's dtype
    comes back in `dtype` (the first call's tensor again): a cache keyed by T alone (mask_cached_by_size).
    A mask built in one fixed dtype fails the first probe; one built right fails the second."""
    if not (M.is_floating_point() and dtype.is_floating_point):
        return
    # a size no hidden test asks for (they use 4..16): a cache already holding it in another dtype would fail
    # the first probe and name nothing, never the wrong thing
    fresh = T + 37
    try:
        first = fn(fresh, dtype)
        second = fn(fresh, M.dtype)
    except StudentCodeError:
        return
    want = ref.causal_additive_mask(fresh, dtype)
    if (type(first) is torch.Tensor and first.dtype == dtype and torch.equal(first, want)
            and type(second) is torch.Tensor and second.dtype == dtype and torch.equal(second, want)):
        raise Misconception("mask_cached_by_size", f"the mask asked for in {dtype} comes back as {M.dtype}, the "
                            f"dtype of an earlier call for the same T = {T}; for a new size ({fresh}) asked first in "
                            f"{dtype} it is right, and asked next in {M.dtype} it comes back in {dtype} again: "
                            + describe("mask_cached_by_size"))


# --- issue 21, ninth round of naming: blind12's fused projection split at the wrong widths --------------

def fused_split_variants(X: torch.Tensor, W_Q: torch.Tensor, W_K: torch.Tensor,
                         W_V: torch.Tensor) -> dict[str, tuple[torch.Tensor, torch.Tensor, torch.Tensor]]:
    """X @ [W_Q | W_K | W_V] cut at the wrong widths: `.split(d_model)` (pieces of W_Q.shape[0]),
    `.chunk(3)` or `.tensor_split(3)` (near-equal thirds) instead of `.split([d_k, d_k, d_v])`. Only
    where the cut gives three pieces, not the right widths, and widths no other cut gives."""
    d_model, d_k, d_v = W_Q.shape[-2], W_Q.shape[-1], W_V.shape[-1]
    if W_K.shape[-1] != d_k:
        return {}
    fused = X @ torch.cat([W_Q, W_K, W_V], dim=-1)
    right = (d_k, d_k, d_v)
    cuts = {"fused_projection_split/d_model": fused.split(d_model, dim=-1),
            "fused_projection_split/thirds": fused.chunk(3, dim=-1),
            "fused_projection_split/tensor_split": fused.tensor_split(3, dim=-1)}
    widths = {k: tuple(p.shape[-1] for p in v) for k, v in cuts.items()}
    shared = [w for w in widths.values()]
    # a cut whose widths another cut also gives (28 = 10 + 10 + 8 for split(10) and chunk(3); 29 = 10 + 10 + 9
    # for chunk(3) and tensor_split(3)) is dropped: the output cannot tell which slip it was
    return {k: (v[0], v[1], v[2]) for k, v in cuts.items()
            if len(v) == 3 and widths[k] != right and shared.count(widths[k]) == 1}


def fused_split_axis_crash(e: StudentCodeError, fn: Callable[..., object], dtype: torch.dtype) -> Misconception | None:
    """A crash of project_qkv named fused_projection_split when a second call with T = 2 d_k + d_v tokens
    (FUSED_PROBE's widths, 19 tokens: the only length where a cut of split's default axis 0 into d_k, d_k, d_v
    rows runs) gives exactly the fused projection cut along the tokens: (d_k, T), (d_k, T), (d_v, T) pieces,
    never a right (T, d_k) shape, since T != d_k."""
    _, d_model, d_k, d_v = FUSED_PROBE
    g = torch.Generator().manual_seed(25)
    X = checks.randn((2 * d_k + d_v, d_model), g, dtype)
    W = [checks.randn((d_model, w), g, dtype) for w in (d_k, d_k, d_v)]
    try:
        out = fn(X, *W)
    except Exception:   # noqa: BLE001 - the probe's own crash only means it shows nothing
        return None
    X64, W64 = X.double(), [w.double() for w in W]
    cut = (X64 @ torch.cat(W64, dim=-1)).split([d_k, d_k, d_v], dim=0)
    if not (isinstance(out, (tuple, list)) and len(out) == 3 and all_right(out, cut, dtype)):
        return None
    return Misconception("fused_projection_split", f"{_said(e)}; with T = {2 * d_k + d_v} tokens = 2 d_k + d_v "
                         f"(d_model = {d_model}, d_k = {d_k}, d_v = {d_v}) it runs and gives Q, K, V of shapes "
                         f"({d_k}, {2 * d_k + d_v}), ({d_k}, {2 * d_k + d_v}), ({d_v}, {2 * d_k + d_v}): the fused "
                         "projection cut along the tokens (split's default dim=0), not the features: "
                         + describe("fused_projection_split"))


# T = 5, d_model = 8, d_k = 6, d_v = 7: 19 fused columns; split(8) gives 8, 8, 3, chunk(3) 7, 7, 5 and
# tensor_split(3) 7, 6, 6: three pieces each, none the right 6, 6, 7 nor another's; d_model, d_k, d_v distinct
FUSED_PROBE = (5, 8, 6, 7)


def fused_split_crash(fn: Callable[..., object], dtype: torch.dtype) -> str | None:
    """The key a crash of project_qkv is named after when a second call on FUSED_PROBE's widths (where a
    wrong cut of the fused projection gives exactly three pieces) runs, is not simply right, and equals
    one wrong cut on all three results. None otherwise."""
    T, d_model, d_k, d_v = FUSED_PROBE
    g = torch.Generator().manual_seed(21)
    X = checks.randn((T, d_model), g, dtype)
    W = [checks.randn((d_model, w), g, dtype) for w in (d_k, d_k, d_v)]
    try:
        out = fn(X, *W)
    except Exception:   # noqa: BLE001 - the probe's own crash only means it shows nothing
        return None
    X64, W64 = X.double(), [w.double() for w in W]
    want = ref.project_qkv(X64, *W64)
    if not isinstance(out, (tuple, list)) or len(out) != 3 or all_right(out, want, dtype):
        return None
    hits = {key.split("/")[0] for key, parts in fused_split_variants(X64, *W64).items()
            if all(type(o) is torch.Tensor and matching_variants(o, {key: p}, dtype) for o, p in zip(out, parts))}
    return hits.pop() if len(hits) == 1 else None


def split_by_key_width_crash(e: StudentCodeError, fn: Callable[..., object], X: torch.Tensor,
                             W: tuple[torch.Tensor, ...] | list[torch.Tensor]) -> Misconception | None:
    """project_qkv's crash where the values are wider than the keys (d_v > d_k), named from a re-run with W_V
    narrower than W_K (d_v = d_k - 1) that runs and returns the right (Q, K, V): the fused projection cut into
    d_k-wide pieces (`.split(d_k)`, `chunk` by the key width), three pieces only while d_v <= d_k (blind85). Code
    that stacks Q, K, V (qkv_stacked) crashes on the narrower W_V too, so it is not named here."""
    d_model, d_k, d_v = W[1].shape[-2], W[1].shape[-1], W[2].shape[-1]
    if d_v <= d_k or d_k < 2 or e.exc_type == "AssertionError":
        return None
    W_V = randn_like_width(W[2], d_model, d_k - 1)
    try:
        out = fn(X, W[0], W[1], W_V)
    except StudentCodeError:
        return None
    want = tuple(X.double() @ w.double() for w in (W[0], W[1], W_V))
    if not all_right(out, want, X.dtype):
        return None
    return Misconception("fused_split_by_key_width", f"{_said(e)} with d_k = {d_k}, d_v = {d_v}; with W_V narrower "
                         f"than W_K (d_v = {d_k - 1}) it runs and returns the right (Q, K, V): "
                         + describe("fused_split_by_key_width") + _tail(e))


def stacked_crash(e: StudentCodeError, fn: Callable[..., object], X: torch.Tensor,
                  W: tuple[torch.Tensor, ...] | list[torch.Tensor]) -> Misconception | None:
    """project_qkv's crash named from a re-run with W_V as wide as W_K (d_v = d_k, naming15): the answer is
    one tensor with an axis of length 3 whose slices are Q, K and V, right: the code stacks what it must
    return as a tuple, and stacking needs equal widths."""
    d_model, d_k = W[1].shape[-2], W[1].shape[-1]
    if W[2].shape[-1] == d_k or e.exc_type == "AssertionError":   # the student's own assert stacks nothing (blind73)
        return None
    W_V = randn_like_width(W[2], d_model, d_k)
    try:
        out = fn(X, W[0], W[1], W_V)
    except StudentCodeError:
        return None
    want = [X.double() @ w.double() for w in (W[0], W[1], W_V)]
    if all_right(out, tuple(want), X.dtype):   # the weights stacked (torch.stack([W_Q, W_K, W_V])): naming31
        return Misconception("qkv_stacked", f"{_said(e)}; with W_V as wide as W_K (d_v = d_k = {d_k}) it runs and "
                             "returns the right (Q, K, V): the code stacks tensors of different widths (the weights, "
                             "or Q, K, V): " + describe("qkv_stacked") + " (for weights, project with each one)" + _tail(e))
    if type(out) is not torch.Tensor:
        return None
    for dim in range(out.dim()):
        if out.shape[dim] == 3 and all(is_right(part, w, X.dtype) for part, w in zip(out.unbind(dim), want)):
            return Misconception("qkv_stacked", f"{_said(e)}; with W_V as wide as W_K (d_v = d_k = {d_k}) it runs "
                                 f"and returns one tensor whose dim {dim} holds Q, K and V, each right: "
                                 + describe("qkv_stacked") + _tail(e))
    return None


def randn_like_width(w: torch.Tensor, rows: int, cols: int) -> torch.Tensor:
    """A fixed (rows, cols) matrix in w's dtype, for a re-run with another width."""
    return torch.randn(rows, cols, generator=torch.Generator().manual_seed(15), dtype=torch.float64).to(w.dtype)


# --- naming17: blind15's kinds ---------------------------------------------------------------------------

def _qkv_call(fn: Callable[..., object], X: torch.Tensor, W: tuple[torch.Tensor, ...]) -> tuple[torch.Tensor, ...] | None:
    """The student's (Q, K, V) for a second call, None where it crashes or returns something else."""
    try:
        out = fn(X, *W)
    except StudentCodeError:
        return None
    if isinstance(out, (tuple, list)) and len(out) == 3 and all(type(t) is torch.Tensor for t in out):
        return tuple(t for t in out if isinstance(t, torch.Tensor))
    return None


def raise_if_weights_unused(fn: Callable[..., object], X: torch.Tensor, W: tuple[torch.Tensor, ...],
                            got: tuple[object, ...], dtype: torch.dtype, what: str = "") -> None:
    """given_weights_unused: each wrong one of Q, K, V does not depend on its weight matrix, shown by more
    calls with the same X. Either a call with other weights (new draws of the same shapes, no multiple of
    the first) returns the same output while the right one changes (an identity, X itself, a fixed layer),
    or two calls with the same inputs differ (random weights drawn inside) and a call with every weight
    1000 times larger returns an output of the same size where the right one grows 1000 times (a
    normalisation after the projection is deterministic; dropout or a random bias on X @ W grows with W).
    Nothing is named when a wrong part has another shape, some wrong part does depend on its weights, or a
    call crashes."""
    X64, W64 = X.double(), tuple(w.double() for w in W)
    want = ref.project_qkv(X64, *W64)
    bad = [i for i in range(3) if not is_right(got[i], want[i], dtype)]
    parts = [t for t in got if type(t) is torch.Tensor]
    if not bad or len(parts) != 3 or any(parts[i].shape != want[i].shape for i in bad):
        return
    g = torch.Generator().manual_seed(1717)
    other = tuple(checks.randn(tuple(w.shape), g, w.dtype) for w in W)
    want_other = ref.project_qkv(X64, *(w.double() for w in other))
    again, same = _qkv_call(fn, X, other), _qkv_call(fn, X, W)
    if again is None or same is None:
        return
    names = ("Q", "K", "V")
    fixed = [i for i in bad if is_right(again[i], parts[i].double(), dtype)
             and not is_right(want_other[i], want[i], dtype)]
    if fixed == bad:
        said = ", ".join(names[i] for i in bad)
        raise Misconception("given_weights_unused", f"{what or said} {'is' if len(bad) == 1 else 'are'} wrong: with "
                            f"other weight matrices (same shapes, same X) your code returns the same {said}, where "
                            "the right ones change: " + describe("given_weights_unused"))
    random = [i for i in bad if not is_right(same[i], parts[i].double(), dtype)]
    if random != bad:
        return
    big = _qkv_call(fn, X, tuple(w * 1000 for w in W))
    if big is None:
        return

    def size(t: torch.Tensor) -> float:
        return float(t.double().abs().mean())

    if all(big[i].shape == want[i].shape and size(parts[i]) > 0 and 0.1 < size(big[i]) / size(parts[i]) < 10
           for i in bad):
        said = ", ".join(names[i] for i in bad)
        raise Misconception("given_weights_unused", f"{what or said} {'is' if len(bad) == 1 else 'are'} wrong: "
                            f"two calls with the same X and weights give different {said} (random weights drawn "
                            f"inside), and with every weight matrix 1000 times larger {said} stay the same size, "
                            "where the right ones grow 1000 times: " + describe("given_weights_unused"))


# --- q07: the queries scored against themselves (naming18) ----------------------------------------------
def raise_queries_twice(project_qkv, X, W, dtype):
    """(O, A) from the scores Q Q^T (the keys never used): two codes give it on every input, K projected with
    W_Q and the queries passed for the keys (scaled_scores(Q, Q)). The student's project_qkv, already graded,
    tells them apart where its K is X W_K: then the K it returns is right and not what is scored, and
    keys_are_queries says what the scores are; where its K is X W_Q, same_projection stays (naming18)."""
    try:
        got = project_qkv(X, *W)
    except StudentCodeError:
        got = None
    X64, W64 = X.double(), [w.double() for w in W]
    K = got[1] if isinstance(got, (tuple, list)) and len(got) == 3 else None
    if is_right(K, X64 @ W64[1], dtype):
        raise Misconception("keys_are_queries", "(O, A) are what the scores Q Q^T give: the queries scored against "
                            "themselves, the keys X W_K never used; your project_qkv returns the right K, so "
                            "self_attention scores Q where K is due (scaled_scores(Q, Q)), or projects its keys "
                            "with W_Q itself: " + describe("keys_are_queries"))


def raise_same_projection_cause(key: str | None, out: object, known: Mapping[str, Any], project_qkv: Callable[..., Any],
                                X: torch.Tensor, W: Any, dtype: torch.dtype) -> None:
    """same_projection matched by (O, A): its cause where the student's project_qkv tells (raise_queries_twice for
    the scores Q Q^T, raise_if_keys_mixed for O = A X W_K)."""
    if key == "same_projection" and all_right(out, known.get("same_projection", ()), dtype):
        raise_queries_twice(project_qkv, X, W, dtype)
    raise_if_keys_mixed(key, out, project_qkv, X, W, dtype)


def raise_if_keys_mixed(key: str | None, out: object, project_qkv: Callable[..., Any], X: torch.Tensor, W: Any,
                        dtype: torch.dtype) -> None:
    """O = A X W_K (A the student's own): two codes give it on every input, V projected with W_K (same_projection)
    and the keys mixed where the values are due (return A @ K). The student's project_qkv, already graded, tells
    them apart where its V is X W_V: then the V it returns is right and not what is mixed, and values_are_keys
    says what O is; where its V is X W_K, same_projection stays (naming30)."""
    if key != "same_projection" or not (isinstance(out, (tuple, list)) and len(out) == 2) \
            or not all(type(t) is torch.Tensor and t.is_floating_point() for t in out):
        return
    O, A = out
    X64, W64 = X.double(), [w.double() for w in W]
    if A.dim() != X.dim() or A.shape[-1] != X.shape[-2] \
            or not matching_variants(O, {"k": A.double() @ (X64 @ W64[1])}, dtype):
        return
    try:
        got = project_qkv(X, *W)
    except StudentCodeError:
        return
    V = got[2] if isinstance(got, (tuple, list)) and len(got) == 3 else None
    if is_right(V, X64 @ W64[2], dtype) and not is_right(V, X64 @ W64[1], dtype):
        raise Misconception("values_are_keys", "O is your A times the keys X W_K (width d_k), not the values X W_V "
                            "(width d_v); your project_qkv returns the right V, so self_attention mixes K where V "
                            "is due (A @ K), or projects its values with W_K itself: " + describe("values_are_keys")
                            + "; return A @ V")


# --- a multiple-choice answer written as its option's words (naming29) -------------------------------------

OPTIONS = {"ans_complexity": {
    "a": ("Linearly: doubling T doubles it.", "linearly", "linear", "O(T)"),
    "b": ("Not at all: it depends only on d_k.", "not at all", "constant", "O(1)"),
    "c": ("Quadratically: there are T^2 scores of d_k multiply-adds each, so doubling T quadruples the work (and "
          "the memory for S).", "quadratically", "quadratic", "O(T^2)", "O(T**2)", "O(T^2 d_k)"),
    "d": ("Cubically, like inverting a T x T matrix.", "cubically", "cubic", "O(T^3)", "O(T**3)")}}


def _plain(text: str) -> str:
    """Lower case, letters and digits only (scaled-attention's reading of an option's text)."""
    return re.sub(r"[^0-9a-z]", "", text.lower().replace("\u00b2", "2").replace("\u00b3", "3"))


def raise_if_option_text(question: str, value: object, answer: str, wrong: Mapping[str, str]) -> None:
    """An answer that writes out one option's words (its text, its first word, its O(.)) instead of its letter:
    answer_option_text for the right option, that option's misconception for a wrong one. A letter however
    dressed is left to expect_choice."""
    if not isinstance(value, str) or at_most_one_letter(value):
        return
    said = _plain(value)
    hits = {letter for letter, texts in OPTIONS[question].items() if said and any(_plain(t) == said for t in texts)}
    if len(hits) != 1:
        return
    letter = hits.pop()
    if letter == answer:
        raise Misconception("answer_option_text", f"{question} is {value.strip()[:60]!r}, the words of option {letter}, "
                            "the right one: " + describe("answer_option_text") + f' (here "{letter}")')
    if wrong.get(letter):
        raise Misconception(wrong[letter], f"{question} is {value.strip()[:60]!r}, the words of option {letter}, which "
                            f"is not the best answer: that choice reflects {describe(wrong[letter])}; answer with one "
                            "letter")


# --- blind31: q05's softmin (the softmax's whole input negated) against the mask subtracted --------------

def raise_if_whole_input_negated(fn, S, M, named):
    """softmax(S - M) and softmin(S + M) = softmax(-S - M) give the blocked keys every weight alike: where
    `named` is mask_sign_flipped, a call with M=None tells them apart (right for the first, softmax(-S) for the
    second: blind31's F.softmin)."""
    if named.key != "mask_sign_flipped" or M is None:
        return
    try:
        bare = fn(S, None)
    except StudentCodeError:
        return
    if is_right(bare, torch.softmax(-S.double(), dim=-1), S.dtype) and not is_right(
            bare, torch.softmax(S.double(), dim=-1), S.dtype):
        raise Misconception("scores_negated", "A matches subtracting the mask here, but with M=None it is "
                            "softmax(-S): the softmax's whole input is negated, mask and all (F.softmin, or a minus "
                            "sign before the softmax): " + describe("scores_negated")) from None


def random_checked(fn, S, M, judge):
    """judge(); a failure it leaves unnamed checked first by two more calls on the same S and M (raise_if_random:
    an nn.Dropout left in train mode zeroes random weights and rescales the rest by 1 / (1 - p), round 76)."""
    try:
        judge()
    except Misconception:
        raise
    except AssertionError:
        raise_if_random(fn, (S, M), {}, "attention_weights")
        raise


def judged(fn, S, M, judge):
    """judge(), a mask_sign_flipped it names checked by raise_if_whole_input_negated; a failure it leaves unnamed
    checked for a row-mean shift (raise_if_mean_shift)."""
    try:
        judge()
    except Misconception as m:
        raise_if_random(fn, (S, M), {}, "attention_weights")   # nn.Dropout left in train mode (naming round 76)
        raise_if_scores_altered(fn, S, M)   # Keras's (1 - M) * -1e9, a clamp_ in a check (round 80)
        raise_if_whole_input_negated(fn, S, M, m)
        raise_if_mask_converted(fn, S, M, m)
        raise_if_masked_scores_unused(m)   # `score = S + M`, then softmax(S) (round 74)
        raise
    except AssertionError:
        raise_if_random(fn, (S, M), {}, "attention_weights")
        raise_if_scores_altered(fn, S, M)
        raise_if_mask_scaled(fn, S, M)
        raise_if_mean_shift(fn, S, M)
        raise


# --- round 35: a softmax dim read from len(S), a row-mean shift, NW's two kernels ------------------------

def _first_axis_sized(S: torch.Tensor, M: torch.Tensor | None, m: int) -> tuple[torch.Tensor, torch.Tensor | None]:
    """S's first axis cycled to m entries (its rows repeated, nothing else changed); M too where it has that
    same axis (a mask broadcast over it is kept as it is)."""
    idx = torch.arange(m) % S.shape[0]
    M2 = M.index_select(0, idx) if isinstance(M, torch.Tensor) and M.dim() == S.dim() and M.shape[0] == S.shape[0] else M
    return S.index_select(0, idx), M2


def len_as_dim(fn: Callable[..., object], S: torch.Tensor, M: torch.Tensor | None,
               e: StudentCodeError | None = None) -> Misconception | None:
    """size_as_dim for a softmax dim read from len(S) (S.shape[0], the first axis's size, taken for the number of
    axes): dim = len(S) - 1 (or len(S)). With `e`, its 'Dimension out of range ... got N' where N is that; without,
    A is the softmax over that axis (not the last; one of the two readings only). Named only when a second call
    on the same scores with S's first axis cut (or its rows repeated) to the size where that dim is the last axis
    runs and is right (blind34)."""
    if not isinstance(S, torch.Tensor) or S.dim() < 2 or S.shape[0] < 1 or (isinstance(M, torch.Tensor)
                                                                             and M.dim() > S.dim()):
        return None
    n, k = S.shape[0], S.dim()
    Z = (S if M is None else S + M).double()
    if e is not None:
        found = _DIM_RANGE.search(e.message or "")
        if e.exc_type != "IndexError" or not found or int(found.group(3)) - n not in (-1, 0):
            return None
        c, head = int(found.group(3)) - n, _said(e)
    else:
        try:
            got = fn(S, M)
        except StudentCodeError:
            return None
        if is_right(got, torch.softmax(Z, dim=-1), S.dtype):
            return None
        found_c = [c for c in (-1, 0) if 0 <= n + c < k - 1 and is_right(got, torch.softmax(Z, dim=n + c), S.dtype)]
        if len(found_c) != 1:
            return None
        c = found_c[0]
        head = f"A is the softmax over dim {n + c} of this {k}-D S, not over the keys (dim=-1)"
    m = k - 1 - c       # the first axis's size where len(S) + c is the last axis
    if m < 1 or m == n:
        return None
    S2, M2 = _first_axis_sized(S, M, m)
    try:
        out = fn(S2, M2)
    except StudentCodeError:
        return None
    if not is_right(out, ref.attention_weights(S2.double(), None if M2 is None else M2.double()), S.dtype):
        return None
    said = "len(S) - 1" if c == -1 else "len(S)"
    how = "its first" if m < n else "its rows repeated to"
    return Misconception("size_as_dim", f"{head}: {n + c} is {said}, and len(S) = S.shape[0] = {n} is the size of S's "
                         f"first axis, not its number of dims ({k}); on the same scores with {how} {m} rows along that "
                         f"axis (S {tuple(S2.shape)}, where {said} = {k - 1} is the last axis) it runs and is right: "
                         + describe("size_as_dim") + " (dim=-1, or S.dim() - 1)" + (_tail(e) if e is not None else ""))


def raise_if_len_as_dim(fn: Callable[..., object], S: torch.Tensor, M: torch.Tensor | None) -> None:
    """len_as_dim's value case raised (after a wrong A was named, softmax_wrong_dim on batched S)."""
    named = len_as_dim(fn, S, M)
    if named is not None:
        raise named from None


def after_named(fn, S, M, named):
    """What a second call shows after the failure `named` was named: raise_if_whole_input_negated, then a dim
    read from len(S) (raise_if_len_as_dim)."""
    raise_if_scores_altered(fn, S, M)   # Keras's (1 - M) * -1e9, a clamp_ in a check (round 80)
    raise_if_whole_input_negated(fn, S, M, named)
    raise_if_mask_converted(fn, S, M, named)
    raise_if_block_default_hides_tail(fn, S, M, named)
    raise_if_masked_scores_unused(named)   # `score = S + M`, then softmax(S) (round 74)
    if named.key in ("softmax_wrong_dim", "softmax_implicit_dim"):
        raise_if_len_as_dim(fn, S, M)


def raise_if_block_default_hides_tail(fn: Callable[..., object], S: torch.Tensor, M: torch.Tensor | None,
                                      named: Misconception) -> None:
    """chunk_remainder_dropped, not default_argument_wrong, for an added block-size parameter (chunk=4) that is
    right only at 1 (blind71): a block of 1 divides every length, so it hides a loop over range(T // chunk) that
    never visits the last partial block. The evidence: the source's whole-blocks range and the same call's A equal to
    the replay with the rows past the last whole block left at zero; the default itself is no mistake."""
    if named.key != "default_argument_wrong" or not isinstance(S, torch.Tensor):
        return
    cuts = chunked_weights_variants(S, M)
    if not cuts:
        return
    try:
        got = fn(S, M)
    except StudentCodeError:
        return
    hit = [k for k, v in cuts.items() if k.startswith("chunk_remainder_dropped/") and is_right(got, v, S.dtype)]
    if hit and whole_blocks_range("attention_weights") is not None:
        m, n = int(hit[0].rsplit("rows", 1)[1]), S.shape[-2]
        rows = f"row {m} is" if m == n - 1 else f"rows {m} to {n - 1} are"
        raise Misconception("chunk_remainder_dropped", f"A's {rows} zero: your loop "
                            f"{whole_blocks_range('attention_weights')} covers only the whole blocks (a block size "
                            "of 1 hides it, since it divides every length; the block size is no mistake): "
                            + describe("chunk_remainder_dropped")) from None


def mean_shifted_softmax(S: torch.Tensor, M: torch.Tensor | None) -> torch.Tensor:
    """The row mean subtracted before exp in place of the row maximum, in S's own dtype: exact on tame rows,
    inf / inf = NaN where a row's spread (a finfo.min mask's) puts its maximum far above its mean."""
    Z = S if M is None else S + M
    e = torch.exp(Z - Z.mean(dim=-1, keepdim=True))
    return e / e.sum(dim=-1, keepdim=True)


def raise_if_mean_shift(fn: Callable[..., object], S: torch.Tensor, M: torch.Tensor | None) -> None:
    """softmax_subtracts_mean after an unnamed failure: A (a second call on the same S and M) has NaN or inf
    exactly where the row-mean-shifted softmax replayed in S's dtype has them, the same values elsewhere, and no
    other unstable softmax of unstable_softmaxes does; where no entry is finite (nothing else to compare), the
    same S alone (M=None, float64, scores of unit size: no overflow) is right as well (blind34)."""
    try:
        got = fn(S, M)
    except StudentCodeError:
        return
    if type(got) is not torch.Tensor or tuple(got.shape) != tuple(S.shape) or bool(torch.isfinite(got).all()):
        return
    hits = nonfinite_hits(got, unstable_softmaxes(S, M))
    if hits != ["softmax_subtracts_mean"]:
        return
    bad = ~torch.isfinite(got)
    if bool(bad.all()):
        tame = S.double() / max(1.0, float(S.abs().amax()))
        # the mask used too (blind40): code that mishandles the mask (M * -1e9) is right without it
        masks = [None] + ([tame_mask(M)] if isinstance(M, torch.Tensor) and bool((M != 0).any()) else [])
        try:
            if not all(is_right(fn(tame, m), ref.attention_weights(tame, m), torch.float64) for m in masks):
                return
        except StudentCodeError:
            return
    raise Misconception("softmax_subtracts_mean", f"A contains NaN or inf in {int(bad.sum())} of {bad.numel()} "
                        "entries, exactly where the softmax with each row's mean subtracted before exp (in place of "
                        "its maximum) overflows, computed in " + str(S.dtype).replace("torch.", "") + " as your code "
                        "does" + ("" if not bool(bad.all()) else " (and on tame scores, with and without a tame mask, "
                                  "it is right)")
                        + ("; a masked (finfo.min) entry drags the mean far below the row's maximum: " if
                           isinstance(M, torch.Tensor) and bool((M != 0).any()) else "; a row's maximum is far above its "
                           "mean: ")
                        + describe("softmax_subtracts_mean")) from None


def after_unnamed(fn, S, M):
    """After an unnamed failure of attention_weights on S and M: a row-mean shift (raise_if_mean_shift), then the
    keep-mask probe (raise_if_keep_mask); first, two more calls that differ (nn.Dropout left in train mode, round 76)."""
    raise_if_random(fn, (S, M), {}, "attention_weights")
    raise_if_scores_altered(fn, S, M)   # Keras's (1 - M) * -1e9, a clamp_ in a check (round 80)
    raise_if_mask_scaled(fn, S, M)
    raise_if_mean_shift(fn, S, M)
    raise_if_keep_mask(fn, M)


# --- round 36 (blind35) ------------------------------------------------------------------------------

def zero_projections_mask_by_value(fn: Callable[..., object], X: torch.Tensor, W_V: torch.Tensor,
                                   d_k: int) -> Misconception | AssertionError | None:
    """A with W_Q = W_K = 0 uniform over every key (what no causal mask gives: every score is 0), told apart
    by second calls: with nonzero W_Q, W_K the future keys get no weight (the mask IS applied) and, with one
    token of X set to 0 (its scores exactly 0), A equals the mask chosen by the scores' value (S * tril, then
    every score equal to 0 blocked, blind35): mask_by_score_value. The mask applied but the replay not
    matching: an AssertionError saying so (no key). None when the mask is not shown applied: no_causal_mask."""
    g = torch.Generator().manual_seed(36)
    d_model, T = X.shape[-1], X.shape[-2]
    W_Q, W_K = (checks.randn((d_model, d_k), g, X.dtype, 1.0 / math.sqrt(d_model)) for _ in range(2))
    try:
        out = fn(X, W_Q, W_K, W_V)
    except StudentCodeError:
        return None
    A = out[1] if isinstance(out, (tuple, list)) and len(out) == 2 else None
    if type(A) is not torch.Tensor or tuple(A.shape) != (T, T) or not bool(torch.isfinite(A).all()) \
            or bool(A.detach().triu(1).any()) or not bool(A.detach().tril().any()):
        return None
    i = T // 2
    X3 = X.clone()
    X3[..., i, :] = 0
    S = (X3.double() @ W_Q.double()) @ (X3.double() @ W_K.double()).transpose(-2, -1) / math.sqrt(d_k)
    S = S * torch.tril(torch.ones_like(S))
    S = S.masked_fill(S == 0, torch.finfo(S.dtype).min)
    A_val = torch.softmax(S, dim=-1)
    O_val = A_val @ (X3.double() @ W_V.double())
    try:
        out3 = fn(X3, W_Q, W_K, W_V)
    except StudentCodeError:
        out3 = None
    said = ("A with W_Q = W_K = 0 is uniform over every key, the future included (what no causal mask gives), but "
            "with nonzero W_Q and W_K your future keys get no weight: the mask is applied")
    if all_right(out3, (O_val, A_val), X.dtype) and not all_right(out3, ref.self_attention(X3.double(), W_Q.double(),
                                                                                          W_K.double(), W_V.double()), X.dtype):
        return Misconception("mask_by_score_value", f"{said}, and with token {i} of X set to 0 (its scores exactly 0) "
                             "A equals blocking every score equal to 0 after zeroing the future ones: "
                             + describe("mask_by_score_value"))
    return AssertionError(f"{said}; it depends on the scores' values (all 0 here), not only on the positions")


def default_mask_square_crash(e: StudentCodeError, X: torch.Tensor, Y: torch.Tensor,
                              rerun: Callable[[torch.Tensor, torch.Tensor | None], object],
                              right: Callable[[torch.Tensor, torch.Tensor | None, object], bool]) -> Misconception | None:
    """Cross-attention with M left out crashes on a size mismatch where Y's length T' differs from X's T, while
    the same call with M given as the all-open (T, T') mask runs and is right, and so does M=None with a Y as
    long as X: what the code makes for M=None is sized from X alone (torch.zeros(T, T), blind35).
    `rerun(Y, M)` calls the student's function, `right(Y, M, out)` judges it."""
    T, T_k = X.shape[-2], Y.shape[-2]
    if T == T_k or not any(w in (e.message or "") for w in ("size of tensor", "must match", "broadcast", "shape")):
        return None
    M0 = torch.zeros(T, T_k, dtype=X.dtype, device=X.device)
    Y2 = Y[..., torch.arange(T) % T_k, :]
    try:
        with_mask, same_length = rerun(Y, M0), rerun(Y2, None)
    except StudentCodeError:
        return None
    if not (right(Y, M0, with_mask) and right(Y2, None, same_length)):
        return None
    return Misconception("default_mask_square", f"{_said(e)} with M left out and Y of {T_k} tokens, X of {T}; with "
                         f"M given as the all-open ({T}, {T_k}) mask (zeros) it runs and is right, and so it does "
                         f"with M left out and Y as long as X: " + describe("default_mask_square"))


_INPLACE_BROADCAST = re.compile(r"output with shape \[([\d, ]*)\] doesn't match the broadcast shape")


def inplace_broadcast_crash(e: StudentCodeError, fn: Callable[..., object], tensors: Tensors,
                            rerun: Callable[[Tensors], object]) -> Misconception | None:
    """'output with shape [T, T'] doesn't match the broadcast shape [B, T, T']': an in-place operation whose
    target is smaller than its result. inplace_on_input where that target has the shape of one of the inputs and
    a slice of the inputs with the batch axes dropped (copies: the caller's tensors stay as they are) runs and
    writes into one of them (the proxy's last_changed_inputs): the code adds into the caller's tensor (M.add_(S),
    M += S, blind37), not into a buffer of its own. None otherwise."""
    found = _INPLACE_BROADCAST.search(e.message or "")
    if found is None:
        return None
    target = tuple(int(n) for n in found.group(1).replace(" ", "").split(",") if n)
    if not any(isinstance(t, torch.Tensor) and tuple(t.shape) == target for t in tensors.values()):
        return None
    top = max((t.dim() for t in tensors.values() if isinstance(t, torch.Tensor)), default=0)
    for k in range(top - 1, 1, -1):
        part = {n: (t[(0,) * (t.dim() - k)] if t.dim() > k else t).clone() if isinstance(t, torch.Tensor) else t
                for n, t in tensors.items()}
        try:
            rerun(part)
        except StudentCodeError:
            continue
        changed = getattr(fn, "last_changed_inputs", None)
        if not (isinstance(changed, list) and changed):
            return None
        names = " or ".join(n for n, t in tensors.items() if isinstance(t, torch.Tensor) and tuple(t.shape) == target)
        return Misconception("inplace_on_input", f"your code adds into the caller's {names} in place: compute a new "
                             f"tensor instead (S = S + M, not M.add_(S) or M += S). On one slice ({_shapes(part)}) it "
                             f"runs and changes its input; on {_shapes(tensors)} the result does not fit into "
                             f"{list(target)} and {_said(e)}")
    return None


def _bool_valued(n: ast.AST, bound: Mapping[str, ast.AST]) -> bool:
    """`n` is a comparison (s > tol), a comparison method or function (s.gt(tol), torch.ne(s, 0)), or a name
    the same cell bound to one at module level."""
    if isinstance(n, ast.Compare):
        return True
    if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _COMPARISONS:
        return True
    return isinstance(n, ast.Name) and n.id in bound and _bool_valued(bound[n.id], {})


_COMPARISONS = frozenset({"gt", "ge", "lt", "le", "ne", "eq", "greater", "greater_equal", "less", "less_equal",
                          "not_equal"})


def len_of_comparison(submission: object, name: str) -> str | None:
    """The source of `len(<a comparison>)` in the notebook's last module-level assignment of `name`
    (rank = len(s > tol), len(torch.gt(s, tol)), or len(mask) where that cell bound mask = s > tol at module
    level): len() of a boolean tensor, its length, where the True entries were to be counted (blind37).
    len(s[s > tol]) and len((s > tol).nonzero()) count them and are not this. None otherwise."""
    last: tuple[ast.Assign, dict[str, ast.AST]] | None = None
    for tree in _cell_trees(submission):
        bound: dict[str, ast.AST] = {}
        for node in tree.body:
            if not isinstance(node, ast.Assign):
                continue
            if any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
                last = (node, dict(bound))
            for t in node.targets:
                if isinstance(t, ast.Name):
                    bound[t.id] = node.value
    if last is None:
        return None
    node, bound = last
    for n in ast.walk(node.value):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "len" and len(n.args) == 1 \
                and not n.keywords and _bool_valued(n.args[0], bound):
            return ast.unparse(n)
    return None



def source_mentions(submission: object, pattern: str) -> bool:
    """Whether a code cell of the notebook matches the regular expression `pattern` (the evidence that a method
    was used, where the value alone could come from another guess). False without a notebook."""
    import re
    from autograder.grading.source_checks import cells_of
    return submission is not None and any(re.search(pattern, source) for source in cells_of(submission))


def raise_if_integer_triangle_index(blocked: torch.Tensor, T: int) -> None:
    """The blocked entries of a T x T mask written as M[tri] = ... with an integer 0/1 triangle (torch.long /
    torch.int ones under triu(1), or tril == 0 cast with .long()): integer tensors index POSITIONS, so the 0s and
    1s pick whole rows 0 and 1 (blind38): the blocked value written there into zeros, or 0 written there into a
    full mask of the blocked value (a tril "keep" triangle). Replayed: the same mask indexed with that triangle,
    compared entry by entry; T >= 3, where rows 0 and 1 are not the whole mask."""
    if T < 3 or tuple(blocked.shape) != (T, T):
        return
    tri = torch.ones(T, T, dtype=torch.long).triu(1)
    replay = torch.zeros(T, T, dtype=torch.bool)
    replay[tri] = True
    if torch.equal(blocked.cpu(), replay):
        said = (f"the mask blocks every key of queries 0 and 1 (rows 0 and 1 whole, the diagonal included) and "
                f"nothing in the other {T - 2} rows")
    elif torch.equal(blocked.cpu(), ~replay):
        said = (f"the mask leaves rows 0 and 1 wholly open (the future included) and blocks every key of the other "
                f"{T - 2} rows (the diagonal and the past included)")
    else:
        return
    raise Misconception("mask_integer_triangle_index", f"{said}, as indexing with an integer 0/1 triangle does: "
                        + describe("mask_integer_triangle_index"))


def raise_if_last_key_open(blocked: torch.Tensor, T: int) -> None:
    """The blocked entries of a T x T mask are exactly the right ones with the last column's taken out: every key
    after each query is blocked except the last key, open to every earlier query (blind55's M[t, t + 1:-1]: a slice
    end -1 stops before the last position; range(t + 1, T - 1) likewise). Replayed: the right pattern with its last
    column cleared, compared entry by entry; T >= 3, where that column is not the whole upper triangle."""
    if T < 3 or tuple(blocked.shape) != (T, T):
        return
    replay = torch.ones(T, T, dtype=torch.bool).triu(1)
    replay[:, -1] = False
    if torch.equal(blocked.cpu(), replay):
        raise Misconception("mask_last_key_open", f"the mask blocks every key after each query except the last one "
                            f"(key {T - 1}, left open to all {T - 1} earlier queries): it is the right mask with its "
                            "last column's blocks removed: " + describe("mask_last_key_open"))


def raise_if_only_next_key_blocked(blocked: torch.Tensor, T: int) -> None:
    """The blocked entries of a T x T mask are a band just above the diagonal: only keys t + 1 .. t + w for each
    query t, w < T - 1 (blind64's M[idx, idx + 1], the first superdiagonal alone: w = 1). Replayed: the band
    triu(1) & tril(w) for each w, compared entry by entry; T >= 3, where the band is not the whole triangle."""
    if T < 3 or tuple(blocked.shape) != (T, T):
        return
    ones = torch.ones(T, T, dtype=torch.bool)
    for w in range(1, T - 1):
        if torch.equal(blocked.cpu(), ones.triu(1) & ones.tril(w)):
            which = "key t + 1 (the first diagonal above the main one)" if w == 1 else \
                f"keys t + 1 to t + {w} (the {w} diagonals above the main one)"
            raise Misconception("mask_only_next_key", f"the mask blocks only {which} for each query t: keys "
                                f"t + {w + 1} and later stay open (the first at (query, key) = (0, {w + 1})), so the "
                                "query still reads the future: " + describe("mask_only_next_key"))


def raise_if_count_constant(fn: Callable[..., object] | None, d_model: int, d_k: int, d_v: int, got: object = None,
                            with_output: bool = False) -> None:
    """A W_Q, W_K, W_V count that does not move with the sizes (blind64: the numel of the lesson's own 6 x 4
    weight tensors, 72 for any d_model, d_k, d_v): the count without W_O, wrong here, is the same number at two
    other sizes too (second and third calls). Said plainly: not only d_v against d_k, no size changes it. First, a
    count in bytes (raise_if_count_in_bytes) where `got` is given."""
    if fn is None:
        return
    raise_if_count_in_bytes(fn, got, d_model, d_k, d_v, with_output)
    sizes = [(d_model, d_k, d_v), (d_model + 13, d_k + 5, d_v + 3), (11, 3, 7)]
    counts = []
    for s in sizes:
        try:
            counts.append(fn(*s, with_output=False))
        except (StudentCodeError, TypeError):
            return
    c = counts[0]
    if type(c) not in (int, float) or not math.isfinite(c) or c == ref.qkv_param_count(d_model, d_k, d_v) \
            or any(type(n) not in (int, float) or n != c for n in counts):
        return
    n = int(c) if float(c).is_integer() else c
    lesson = " (the count of the lesson's block, d_model = 6, d_k = d_v = 4)" if n == ref.qkv_param_count(6, 4, 4) \
        else ""
    raise Misconception("param_count_constant", f"the count without W_O is {n}{lesson} for d_model={d_model}, "
                        f"d_k={d_k}, d_v={d_v}, and {n} again for "
                        + " and ".join(f"d_model={a}, d_k={b}, d_v={v}" for a, b, v in sizes[1:])
                        + f": it does not change with the sizes at all (not only d_v against d_k is wrong), where "
                        f"these sizes need {ref.qkv_param_count(d_model, d_k, d_v)}: "
                        + describe("param_count_constant")) from None


_BYTE_WORDS = re.compile(r"byte|element_size|itemsize|nbytes", re.IGNORECASE)
_NOT_BYTES = re.compile(r"\b(?:not|no|never|nor|without|instead of|rather than)\b|n't", re.IGNORECASE)


def _speaks_of_bytes(text: str) -> bool:
    """Whether `text` speaks of bytes (_BYTE_WORDS) other than to deny them: a word negated just before it (`a count,
    not bytes`, `no bytes`) is no evidence (red-team round 133: a count of weights and their gradients, twice the
    weights, whose docstring said "(a count, not bytes)", was told param_count_in_bytes)."""
    for line in text.splitlines()[:400]:
        for m in _BYTE_WORDS.finditer(line):
            if _NOT_BYTES.search(line[max(0, m.start() - 24):m.start()]) is None:
                return True
    return False


def def_text(submission: object, func: str) -> str | None:
    """The text of the notebook's last top-level `def func`, comments included, from the cell that holds it (cells
    up to STATE_DEF_CHARS long; a longer def is not read); None where there is none readable."""
    from autograder.grading.source_checks import cells_of, last_function_def
    for cell in reversed(cells_of(submission) if submission is not None else []):
        node = last_function_def([cell], func, STATE_DEF_CHARS)
        if node is not None:
            text = "\n".join(cell.splitlines()[node.lineno - 1:node.end_lineno or node.lineno])
            return text if len(text) <= STATE_DEF_CHARS else None
    return None


def raise_if_count_in_bytes(fn: Callable[..., object], got: object, d_model: int, d_k: int, d_v: int,
                            with_output: bool) -> None:
    """param_count_in_bytes (blind71's `return 4 * n`, "4 bytes per float32 weight"): the count is k = 2, 4 or 8
    (bytes per float16, float32, float64 weight) times the right one here and, without and with W_O, at two other
    sizes (no size-made factor such as a head count), and qkv_param_count's own text speaks of bytes (a comment, a
    name, element_size(), itemsize, nbytes)."""
    right = ref.qkv_param_count(d_model, d_k, d_v, with_output)
    if type(got) not in (int, float) or got == right or right <= 0:
        return
    k = got / right
    if k not in (2.0, 4.0, 8.0):
        return
    for sizes in ((d_model + 13, d_k + 5, d_v + 3), (11, 3, 7)):
        for w in (False, True):
            try:
                n = fn(*sizes, with_output=w)
            except (StudentCodeError, TypeError):
                return
            if type(n) not in (int, float) or n != k * ref.qkv_param_count(*sizes, w):
                return
    text = def_text(current_submission(), "qkv_param_count")
    if text is None or not _speaks_of_bytes(text):
        return
    width = {2.0: "float16", 4.0: "float32", 8.0: "float64"}[k]
    raise Misconception("param_count_in_bytes", f"the count is {int(got)}, {int(k)} times the {right} weights of "
                        f"d_model={d_model}, d_k={d_k}, d_v={d_v}{' with W_O' if with_output else ''}, and {int(k)} "
                        f"times at other sizes too ({int(k)} bytes per {width} weight): "
                        + describe("param_count_in_bytes")) from None


_CONSTANT_MAKERS = frozenset({"ones", "ones_like", "full", "full_like", "new_ones", "new_full"})


def _bindings(tree: ast.Module) -> dict[str, list[ast.AST]]:
    """{name: the values a cell's module-level assignments bind it to} (a, b = x, y binds a to x and b to y)."""
    bound: dict[str, list[ast.AST]] = {}
    for node in tree.body:
        if not isinstance(node, ast.Assign):
            continue
        for t in node.targets:
            if isinstance(t, ast.Name):
                bound.setdefault(t.id, []).append(node.value)
            elif isinstance(t, (ast.Tuple, ast.List)):
                parts = node.value.elts if isinstance(node.value, (ast.Tuple, ast.List)) \
                    and len(node.value.elts) == len(t.elts) else [node.value] * len(t.elts)
                for e, v in zip(t.elts, parts):
                    if isinstance(e, ast.Name):
                        bound.setdefault(e.id, []).append(v)
    return bound


def _reaches(n: ast.AST, bound: Mapping[str, list[ast.AST]], hit: Callable[[ast.AST], bool], seen: set[str]) -> bool:
    """Whether `n`, or a value a name in it was bound to in the same cell (followed through names), has a node `hit`."""
    stack = [n]   # a worklist, not recursion: a chain of 2000 names (a1 = a0, a2 = a1, ...) ran out of stack (rt 70)
    while stack:
        for sub in ast.walk(stack.pop()):
            if hit(sub):
                return True
            if isinstance(sub, ast.Name) and sub.id in bound and sub.id not in seen:
                seen.add(sub.id)
                stack.extend(bound[sub.id])
    return False


def _cell_trees(submission: object) -> list[ast.Module]:
    """The submission's code cells parsed (the grader's one parse lock; a cell that does not parse, or nests too
    deep for the parser, is left out: it never ran, or says nothing here)."""
    from autograder.grading.pyparse import parse
    from autograder.grading.source_checks import cells_of
    trees = []
    for source in cells_of(submission) if submission is not None else []:
        try:
            trees.append(parse(source))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
    return trees


def _last_assignment(submission: object, name: str) -> tuple[ast.AST, dict[str, list[ast.AST]]] | None:
    """The value of the notebook's last module-level `name = ...`, with what its cell bound (_bindings)."""
    last: tuple[ast.AST, dict[str, list[ast.AST]]] | None = None
    for tree in _cell_trees(submission):
        bound = _bindings(tree)
        for node in tree.body:
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
                last = (node.value, bound)
    return last


def rank_on_constant_example(submission: object, name: str) -> str | None:
    """The source of the matrix_rank call that the notebook's last module-level assignment of `name` reads (in
    it, or through names the same cell bound), where its argument reaches a constant tensor (torch.ones, full,
    ones_like...): a rank measured on one constant example, 1 (blind39's all-ones Q and K). None otherwise."""
    last = _last_assignment(submission, name)
    if last is None:
        return None
    value, bound = last

    def is_rank(n: ast.AST) -> bool:
        return isinstance(n, ast.Call) and (isinstance(n.func, ast.Attribute) and n.func.attr == "matrix_rank"
                                            or isinstance(n.func, ast.Name) and n.func.id == "matrix_rank")

    def is_constant(n: ast.AST) -> bool:
        return isinstance(n, ast.Call) and (isinstance(n.func, ast.Attribute) and n.func.attr in _CONSTANT_MAKERS
                                            or isinstance(n.func, ast.Name) and n.func.id in _CONSTANT_MAKERS)
    calls: list[ast.AST] = []
    _reaches(value, bound, lambda n: is_rank(n) and not calls.append(n) and False, set())
    seen: set[str] = set()   # one for every call: a name one call reached without a hit has none for the next (rt 107)
    for call_ in calls:
        if _reaches(call_, bound, is_constant, seen):
            return ast.unparse(call_)
    return None


def einsum_implicit_output(submission: object, func: str) -> tuple[str, str] | None:
    """(equation, the same with its output named) for a torch.einsum / np.einsum in the notebook's last `def func`
    whose equation has no '->' (implicit mode: the output letters come out sorted alphabetically, blind39's
    '...qd,...kd' gives ...kq); the output named is '...' (if any), then the first operand's free letters, then the
    second's. None where there is no such call."""
    from autograder.grading.source_checks import cells_of, last_function_def
    node = last_function_def(cells_of(submission), func) if submission is not None else None
    for n in ast.walk(node) if node is not None else ():
        if not (isinstance(n, ast.Call) and n.args and isinstance(n.args[0], ast.Constant)
                and isinstance(n.args[0].value, str) and "->" not in n.args[0].value
                and (isinstance(n.func, ast.Attribute) and n.func.attr == "einsum"
                     or isinstance(n.func, ast.Name) and n.func.id == "einsum")):
            continue
        eq = n.args[0].value.replace(" ", "")
        ops = eq.split(",")
        if len(ops) != 2:
            return None
        free = [[c for c in op if c.isalpha() and c not in other] for op, other in ((ops[0], ops[1]), (ops[1], ops[0]))]
        return eq, eq + "->" + ("..." if "..." in eq else "") + "".join(free[0] + free[1])
    return None


# --- round 41 (blind40) ------------------------------------------------------------------------------


def tame_mask(M: torch.Tensor) -> torch.Tensor:
    """M with every blocked entry -2 (float64): a mask of the same pattern whose sum with tame scores overflows nothing."""
    return torch.where(M != 0, -2.0, 0.0).to(torch.float64)


def raise_if_mask_scaled(fn: Callable[..., object], S: torch.Tensor, M: torch.Tensor | None) -> None:
    """mask_times_neg_1e9 after an unnamed failure (blind40's TensorFlow `S + M * -1e9` on an additive mask): A (a
    second call on the same S and M) equals softmax(S + M * -1e9) in S's dtype, NaN where finfo.min * -1e9 = +inf
    and the same values elsewhere; and on tame scores with a tame mask (blocked -2, no overflow) it is
    softmax(S + M * -1e9) there too (the blocked keys take the weight; any large negative scale gives the same), not the
    right weights. Nothing otherwise."""
    if not isinstance(M, torch.Tensor) or not bool((M != 0).any()) or not S.is_floating_point():
        return
    try:
        got = fn(S, M)
    except StudentCodeError:
        return
    key = "mask_times_neg_1e9"
    if type(got) is not torch.Tensor or tuple(got.shape) != tuple(S.shape) \
            or nonfinite_hits(got, {key: torch.softmax(S + M * -1e9, dim=-1)}) != [key]:
        return
    # tame scores on a grid of 1/64: S + 2e9 (or + 2e4, any large scale) is exact, so the replay is the code's own value
    tame, M_t = torch.round(S.double() / max(1.0, float(S.abs().amax())) * 64) / 64, tame_mask(M)
    try:
        out = fn(tame, M_t)
    except StudentCodeError:
        return
    if not is_right(out, torch.softmax(tame + M_t * -1e9, dim=-1), torch.float64) \
            or is_right(out, ref.attention_weights(tame, M_t), torch.float64):
        return
    bad = ~torch.isfinite(got)
    raise Misconception(key, f"A is softmax(S + M * -1e9): NaN or inf in {int(bad.sum())} of {bad.numel()} entries, "
                        "where a blocked entry (finfo.min) times -1e9 overflows to +inf, and with a mask whose blocked "
                        "entries are -2 all the weight goes to the blocked keys: " + describe(key)) from None


# self_attention / cross_attention left out: their first result, O, has a rank of its own
_WEIGHT_MAKERS = frozenset({"attention_weights", "softmax", "Softmax"})


def rank_on_weights(submission: object, name: str) -> str | None:
    """The source of the matrix_rank call that the notebook's last module-level assignment of `name` reads (in it,
    or through names the same cell bound), where its argument reaches the lesson's attention weights: a call of
    attention_weights or softmax (torch.softmax, F.softmax, S.softmax, nn.Softmax) whose input reads Q_lesson and
    K_lesson (blind40's rank of the lesson's causal A). None otherwise."""
    last = _last_assignment(submission, name)
    if last is None:
        return None
    value, bound = last

    def named(n: ast.AST, names: frozenset[str]) -> bool:
        return isinstance(n, ast.Call) and (isinstance(n.func, ast.Attribute) and n.func.attr in names
                                            or isinstance(n.func, ast.Name) and n.func.id in names)
    calls: list[ast.AST] = []
    _reaches(value, bound, lambda n: named(n, frozenset({"matrix_rank"})) and not calls.append(n) and False, set())
    makers: list[ast.AST] = []
    for call_ in calls:
        makers.clear()
        _reaches(call_, bound, lambda n: named(n, _WEIGHT_MAKERS) and not makers.append(n) and False, set())
        # the weights OF THE LESSON'S SCORES: the softmax's input reads both Q_lesson and K_lesson (softmax(Q_lesson)
        # alone is another matrix, whose rank 3 merely equals the unmasked A's)
        if any(all(_reaches(m, bound, lambda n, x=x: isinstance(n, ast.Name) and n.id == x, set())
                   for x in ("Q_lesson", "K_lesson")) for m in makers):
            return ast.unparse(call_)
    return None


def lesson_weight_ranks() -> set[int]:
    """The ranks of the lesson's attention weights, causal and not: softmax(S + M) and softmax(S), S = Q K^T / sqrt(d_k)."""
    Q, K = ref.lesson_qk()
    S = ref.scaled_scores(Q, K)
    M = ref.causal_additive_mask(Q.shape[0], torch.float64)
    return {int(torch.linalg.matrix_rank(ref.attention_weights(S, m))) for m in (M, None)}


def fused_kv_halves_crash(e: StudentCodeError, X: torch.Tensor, Y: torch.Tensor, W: Any, M: torch.Tensor | None,
                          rerun: Callable[[list[torch.Tensor]], object], dtype: torch.dtype) -> Misconception | None:
    """fused_kv_equal_halves for a size crash of cross_attention where d_k != d_v (blind40's `(Y @ cat([W_K, W_V],
    -1)).chunk(2, -1)`): two second calls, (1) with W_V as wide as W_K it runs and is right, and (2) with W_Q as
    wide as the first half of the fused width it runs and equals cross-attention with K and V the two halves
    (chunk(2)'s widths) of Y @ [W_K | W_V]: what no right code gives (W_Q and W_K of different widths raise)."""
    d_model, d_k, d_v = W[1].shape[-2], W[1].shape[-1], W[2].shape[-1]
    if d_k == d_v or not any(s in (e.message or "") for s in SIZE_CRASH):
        return None
    W64 = [w.double() for w in W]
    M64 = None if M is None else M.double()
    same = [W[0], W[1], randn_like_width(W[2], d_model, d_k)]
    try:
        out = rerun(same)
    except StudentCodeError:
        return None
    if not all_right(out, ref.cross_attention(X.double(), Y.double(), *(w.double() for w in same), M64), dtype):
        return None
    fused = torch.cat([W64[1], W64[2]], dim=-1)
    n = fused.shape[-1]
    for h in sorted({-(-n // 2), n // 2} - {d_k}):   # chunk(2) / tensor_split(2) put the odd column first, [:n // 2] last
        first, second = fused[..., :h], fused[..., h:]
        W_Q = randn_like_width(W[0], d_model, h)
        try:
            out = rerun([W_Q, W[1], W[2]])
        except StudentCodeError:
            continue
        if all_right(out, ref.cross_attention(X.double(), Y.double(), W_Q.double(), first, second, M64), dtype):
            break
    else:
        return None
    return Misconception("fused_kv_equal_halves", f"{_said(e)}; with d_v = d_k it runs and is right, and with W_Q "
                         f"{h} wide it runs and uses K and V {h} and {second.shape[-1]} wide, the two halves of "
                         f"Y @ [W_K | W_V] ({d_k} + {d_v} columns), not {d_k} and {d_v}: "
                         + describe("fused_kv_equal_halves") + _tail(e))


def raise_if_param_count_widths_swapped(fn: Callable[..., object], d_model: int, d_k: int, d_v: int) -> None:
    """d_k and d_v swapped (naming30): a second call with the two passed the other way round is right (d_v != d_k
    here, so a right count never is; q12). A third, by keyword (d_k=, d_v=), tells where: right there, the signature
    lists them as (d_model, d_v, d_k); still wrong, the formula itself swaps them; a crash tells neither."""
    want = ref.qkv_param_count(d_model, d_k, d_v)
    try:
        swapped = fn(d_model, d_v, d_k)
    except (StudentCodeError, TypeError):
        return
    if type(swapped) not in (int, float) or swapped != want:
        return
    try:
        keyed = fn(d_model, d_k=d_k, d_v=d_v)
    except (StudentCodeError, TypeError):
        keyed = None
    said = f"qkv_param_count({d_model}, {d_k}, {d_v}) is wrong and qkv_param_count({d_model}, {d_v}, {d_k}) is right"
    if type(keyed) in (int, float) and keyed == want:
        where = ("; called by keyword (d_k=, d_v=) it is right too: your signature lists d_v before d_k. Write it "
                 "def qkv_param_count(d_model, d_k, d_v, with_output=False)")
    elif type(keyed) in (int, float):
        where = "; called by keyword (d_k=, d_v=) it stays wrong: your formula uses d_v where d_k belongs and back"
    else:
        where = ": either your signature lists d_v before d_k, or your formula swaps them"
    raise Misconception("param_count_dk_dv_swapped", said + where + ": " + describe("param_count_dk_dv_swapped"))


def raise_if_param_count_state_kept(fn: Callable[..., object], got: object, sizes: tuple[int, int, int],
                                    with_output: bool | None) -> None:
    """State kept between calls (blind43's list default `shapes=[]` that every call extends): a wrong count that a
    second call with the very same arguments does not repeat. A count is a pure function of the sizes, so a right
    one, or any other catalogued slip, gives the same number twice; only a change between the two calls names it.
    with_output None: the test called without it, and so does the second call (a wrong default is no change)."""
    if type(got) not in (int, float) or not math.isfinite(got) \
            or got == ref.qkv_param_count(*sizes, bool(with_output)):
        return
    try:
        again = fn(*sizes) if with_output is None else fn(*sizes, with_output=with_output)
    except (StudentCodeError, TypeError):
        return
    if type(again) in (int, float) and math.isfinite(again) and again != got:
        raise Misconception("param_count_state_between_calls", f"qkv_param_count{sizes}"
                            + (" with with_output=True" if with_output else "") + f" gave {got}, then {again} when "
                            "called again with the same arguments: " + describe("param_count_state_between_calls"))


def raise_if_and_precedence(off: object, on: object, d_model: int, d_v: int, submission: object = None) -> None:
    """`base + with_output and d_v * d_model` (blind41): `+` binds before `and`, and the sum is never 0, so both
    flags return W_O's count alone; the `if ... else 0` twin is param_count_conditional_precedence too. Named only
    where the def holds such an expression (round 57: blind57's `total += n` after the shape loop gives the same
    number, W_V's count and W_O's being both d_model * d_v)."""
    wo = d_v * d_model
    if type(off) is int and type(on) is int and off == on == wo and has_conditional_term(submission, "qkv_param_count"):
        raise Misconception("param_count_conditional_precedence", f"the count is {wo}, W_O's weights alone "
                            f"(d_v * d_model = {d_v} * {d_model}), with with_output=False and with with_output=True "
                            "alike: " + describe("param_count_conditional_precedence")) from None


def raise_if_nw_scale_after_exp(fn: Callable[..., object], got: object, q: torch.Tensor, K: torch.Tensor,
                                V: torch.Tensor, want: torch.Tensor) -> None:
    """A row with NaN or inf where the right one is finite, on float16 inputs whose raw dot products pass exp's
    range while the scaled ones do not (blind44's exp(K @ q) ** (1 / sqrt(d_k))): named where exp(K q) ** (1 /
    sqrt(d_k)) replayed in the input's dtype is not finite at the same entries, and a second call with q scaled
    down (every |q.k| at most 6) returns the right row: the algebra is right, only the raw exp overflows."""
    if not (type(got) is torch.Tensor and got.is_floating_point() and got.shape == want.shape) \
            or bool(torch.isfinite(got).all()) or not bool(torch.isfinite(want).all()):
        return
    kappa = torch.exp(K @ q) ** (1 / math.sqrt(q.shape[-1]))
    replay = (kappa[:, None] * V).sum(0) / kappa.sum()
    if not torch.equal(torch.isfinite(got), torch.isfinite(replay)):
        return
    c = 6.0 / float((K.double() @ q.double()).abs().max())
    q_small = (q.double() * c).to(q.dtype)
    try:
        again = fn(q_small, K, V)
    except StudentCodeError:
        return
    right = ref.nadaraya_watson(q_small.double(), K.double(), V.double())
    if type(again) is torch.Tensor and again.is_floating_point() and again.shape == right.shape \
            and bool(matching_variants(again.to(q.dtype), {"right": right}, q.dtype)):
        big = float((K.double() @ q.double()).max())
        raise Misconception("nw_scale_after_exp", f"the smoothed row is not finite for these {q.dtype} inputs (the "
                            f"largest raw q.k is {big:.3g}, {big / math.sqrt(q.shape[-1]):.3g} once scaled), and "
                            "right when q is scaled down so that every q.k stays within 6: "
                            + describe("nw_scale_after_exp"))


# --- blind47: multiple-choice probes whose own measurement cannot show the difference asked about -------------------

def _top_level_nodes(tree: ast.AST) -> list[ast.AST]:
    """Every node of a cell outside function, lambda and class bodies (what runs when the cell runs)."""
    out: list[ast.AST] = []
    todo = [tree]
    while todo:
        node = todo.pop()
        out.append(node)
        todo.extend(c for c in ast.iter_child_nodes(node)
                    if not isinstance(c, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)))
    return out


def _answer_cell(submission: object, name: str) -> ast.Module | None:
    """The last code cell that binds `name` outside any function (an assignment, in an if/for block too)."""
    last = None
    for tree in _cell_trees(submission):
        if any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store) for n in _top_level_nodes(tree)):
            last = tree
    return last


def _computed_by_code(submission: object, name: str) -> bool:
    """The engine's reading: the notebook's last top-level binding of `name` is worked out by code, not a literal."""
    from autograder.grading.source_checks import cells_of, computed_answer
    return submission is not None and computed_answer(cells_of(submission), name) is not None


def _callee(n: ast.AST) -> str | None:
    """The name a call calls (`f(...)`: f, `torch.matmul(...)`: matmul)."""
    if not isinstance(n, ast.Call):
        return None
    return n.func.id if isinstance(n.func, ast.Name) else n.func.attr if isinstance(n.func, ast.Attribute) else None


_SCORE_MAKERS = frozenset({"scaled_scores", "attention_weights", "matmul", "mm", "bmm", "einsum"})


def len_of_scores(submission: object, name: str) -> str | None:
    """The source of `len(<a score matrix>)` (scaled_scores(...), attention_weights(...), Q @ K.T, torch.matmul, or a
    name the cell bound to one) in the cell that works `name` out by code: len() of a T x T matrix is T, its rows,
    so a cost counted that way doubles with T (blind47's q16 probe). None where the cell also forms a product or a
    power (T * T, len(S) ** 2) or reads a size another way (.numel(), .shape, .size()): the count may then be the
    right one, and the letter wrong for another reason."""
    if not _computed_by_code(submission, name):
        return None
    cell = _answer_cell(submission, name)
    if cell is None:
        return None
    bound: dict[str, list[ast.AST]] = {}
    for n in ast.walk(cell):
        if isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Mult, ast.Pow)):
            return None
        if isinstance(n, ast.Attribute) and n.attr in ("numel", "nelement", "shape", "size"):
            return None
        if isinstance(n, ast.Assign):
            for t in n.targets:
                if isinstance(t, ast.Name):
                    bound.setdefault(t.id, []).append(n.value)

    def is_scores(n: ast.AST) -> bool:
        return _callee(n) in _SCORE_MAKERS or isinstance(n, ast.BinOp) and isinstance(n.op, ast.MatMult)
    for n in ast.walk(cell):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "len" and len(n.args) == 1 \
                and not n.keywords and _reaches(n.args[0], bound, is_scores, set()):
            return ast.unparse(n)
    return None


# a call whose result may differ between two identical calls: random draws, clocks, iterators, input
_UNREPEATABLE = re.compile(r"rand|normal|dropout|bernoulli|multinomial|perm|shuffle|sample|choice|uniform|poisson|"
                           r"exponential|geometric|cauchy|time|counter|clock|monotonic|next|pop|input|read|seed|"
                           r"generator|backward|step|append|extend|update|insert|setdefault|fill_|add_|copy_", re.I)


# calls that compare their arguments (math.isclose(a, b), torch.allclose, a.eq(b), torch.gt...)
_COMPARERS = _COMPARISONS | {"isclose", "allclose", "equal", "array_equal"}


def same_expression_compared(submission: object, name: str) -> tuple[str, str, str] | None:
    """(first, second, expression): two names that the cell working `name` out by code binds once each, at its top
    level, to the very same expression, and then compares with each other (one comparison, or a call such as
    math.isclose, holds both): a line copied and not edited (blind47's q03 `_H_raw = _bits(_A_scaled)` under
    `_H_scaled = _bits(_A_scaled)`), so the two values are always equal. None where a statement between the two
    bindings mentions a name the expression reads, where the expression is a literal, or where it calls anything
    whose result may differ between calls (a random draw, a clock, an iterator, an in-place update), itself or in
    a function of the notebook it calls."""
    if not _computed_by_code(submission, name):
        return None
    cell = _answer_cell(submission, name)
    if cell is None:
        return None
    defs: dict[str, list[ast.AST]] = {}
    for tree in _cell_trees(submission):
        for n in ast.walk(tree):
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
                defs.setdefault(n.name, []).append(n)
    stores: dict[str, int] = {}
    for n in ast.walk(cell):
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            stores[n.id] = stores.get(n.id, 0) + 1
    once: dict[str, tuple[int, ast.AST]] = {}
    for i, node in enumerate(cell.body):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and stores.get(node.targets[0].id) == 1:
            once[node.targets[0].id] = (i, node.value)

    def own(n: ast.AST) -> tuple[bool, set[str]]:
        # (no unrepeatable call of its own, the notebook's functions it calls)
        callees: set[str] = set()
        for sub in ast.walk(n):
            if isinstance(sub, (ast.Await, ast.Yield, ast.YieldFrom, ast.NamedExpr)):
                return False, callees
            callee = _callee(sub)
            if callee is None:
                continue
            if _UNREPEATABLE.search(callee):
                return False, callees
            if callee in defs:
                callees.add(callee)
        return True, callees

    unrepeatable: list[set[str]] = []

    def unrepeatable_defs() -> set[str]:
        # the notebook's functions that draw (or call one that does), each def read once and the taint spread to its
        # callers in a loop (red-team round 138: followed by recursion, a chain of 1,500 defs each calling the next
        # said RecursionError in q03; walked again for every pair of a 60-name comparison, 11 s of the grader's CPU)
        if not unrepeatable:
            bad, callers = set(), {}
            for fname, nodes in defs.items():
                for d in nodes:
                    ok, callees = own(d)
                    bad |= set() if ok else {fname}
                    for c in callees:
                        callers.setdefault(c, set()).add(fname)
            todo = list(bad)
            while todo:
                for caller in callers.get(todo.pop(), ()):
                    if caller not in bad:
                        bad.add(caller)
                        todo.append(caller)
            unrepeatable.append(bad)
        return unrepeatable[0]

    def repeatable(n: ast.AST) -> bool:
        ok, callees = own(n)
        return ok and not callees & unrepeatable_defs()

    def literal_defaults(fname: str) -> dict[str, object]:
        # a notebook function defined once: its parameters' literal defaults (scale=None), by name
        nodes = defs.get(fname, [])
        if len(nodes) != 1 or not isinstance(nodes[0], ast.FunctionDef):
            return {}
        a = nodes[0].args
        pos = a.posonlyargs + a.args
        pairs = list(zip(pos[len(pos) - len(a.defaults):], a.defaults)) \
            + [(k, d) for k, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None]
        return {k.arg: d.value for k, d in pairs if isinstance(d, ast.Constant)}

    def without_defaults(n: ast.AST) -> ast.AST:
        # naming round 82 (blind82's `_scores(_q, _k, scale=None)` beside `_scores(_q, _k)`, scale=None the def's own
        # default): a keyword passed the very literal its own def defaults it to is the call without it
        if not any(isinstance(s, ast.Call) and isinstance(s.func, ast.Name) and s.keywords for s in ast.walk(n)):
            return n
        import copy
        n = copy.deepcopy(n)
        for s in ast.walk(n):
            if isinstance(s, ast.Call) and isinstance(s.func, ast.Name) and s.keywords:
                dflt = literal_defaults(s.func.id)
                s.keywords = [k for k in s.keywords if not (
                    k.arg in dflt and isinstance(k.value, ast.Constant) and type(k.value.value) is type(dflt[k.arg])
                    and k.value.value == dflt[k.arg])]
        return n

    def dumped(n: ast.AST) -> str | None:
        try:
            return ast.dump(without_defaults(n))
        except (RecursionError, MemoryError):     # nested past the stack: compared with nothing
            return None

    def untouched_between(value: ast.AST, lo: int, hi: int) -> bool:
        # no statement between the two bindings mentions a name the expression reads (rebinds it, mutates it)
        read = {s.id for s in ast.walk(value) if isinstance(s, ast.Name)}
        return not any(isinstance(s, ast.Name) and s.id in read for node in cell.body[lo + 1:hi] for s in ast.walk(node))

    # each binding's dump, call and repeatability worked out once, not once per pair (red-team round 138)
    dumps = {k: dumped(v) for k, (_i, v) in once.items()}
    calls = {k: any(isinstance(s, ast.Call) for s in ast.walk(v)) for k, (_i, v) in once.items()}
    fixed: dict[str, bool] = {}
    for i, node in enumerate(cell.body):
        for compare in (c for c in _top_level_nodes(node) if isinstance(c, ast.Compare) or _callee(c) in _COMPARERS):
            names = list(dict.fromkeys(s.id for s in ast.walk(compare) if isinstance(s, ast.Name) and s.id in once
                                       and once[s.id][0] < i))
            for a in names:
                for b in names:
                    va = once[a][1]
                    if a < b and calls[a] and dumps[a] is not None and dumps[a] == dumps[b] \
                            and (fixed[a] if a in fixed else fixed.setdefault(a, repeatable(va))) \
                            and untouched_between(va, *sorted((once[a][0], once[b][0]))):
                        first, second = (a, b) if once[a][0] < once[b][0] else (b, a)
                        vb = once[b][1]
                        if pyparse_unparse(va) != pyparse_unparse(vb):   # equal once its own defaults are left out
                            return first, second, (f"{pyparse_unparse(once[first][1])[:80]}` and "
                                                   f"`{pyparse_unparse(once[second][1])[:80]}")
                        return first, second, pyparse_unparse(va)
    return None


def raise_if_cost_counted_with_len(value: object, submission: object) -> None:
    """cost_counted_with_len: ans_complexity 'a' (linear), the letter a cost counted with len() of the T x T score
    matrix gives (it doubles with T), worked out by a cell that counts so (len_of_scores). Nothing otherwise."""
    if not isinstance(value, str) or value.strip().strip("()").strip().lower() != "a":
        return
    src = len_of_scores(submission, "ans_complexity")
    if src is not None:
        raise Misconception("cost_counted_with_len", f"ans_complexity is {value.strip()!r}, the letter your code "
                            f"worked out from `{src[:60]}`, and it is not the best answer: "
                            + describe("cost_counted_with_len"))


def raise_if_same_expression_compared(value: object, submission: object) -> None:
    """probe_compares_same_expression: ans_scale 'c' (the scale changes nothing), the letter two equal measurements
    give, worked out by a cell that compares two values bound to one expression (same_expression_compared)."""
    if not isinstance(value, str) or value.strip().strip("()").strip().lower() != "c":
        return
    found = same_expression_compared(submission, "ans_scale")
    if found is not None:
        first, second, expr = found
        two = "` and `" in expr   # two calls, one with a keyword set to its own default (naming round 82)
        shown = f"`{expr}` (a keyword passed the very default its def gives it: the same call)" if two \
            else f"`{expr[:60]}`"
        raise Misconception("probe_compares_same_expression", f"ans_scale is {value.strip()!r}, the letter your code "
                            f"worked out by comparing {first} with {second}, but both are {shown}: "
                            + describe("probe_compares_same_expression"))


# --- round 48 (blind48) -----------------------------------------------------------------------------------------

_MASK_CALLS = frozenset({"bool", "gt", "ge", "lt", "le", "ne", "eq", "greater", "greater_equal", "less", "less_equal",
                         "not_equal", "logical_and", "logical_or", "logical_not", "logical_xor", "isfinite", "isnan",
                         "isinf", "isposinf", "isneginf", "nonzero"})


def _called(n: ast.AST) -> str:
    """The name a call calls: `f` for f(...), `attr` for x.attr(...); "" otherwise."""
    if not isinstance(n, ast.Call):
        return ""
    return n.func.id if isinstance(n.func, ast.Name) else n.func.attr if isinstance(n.func, ast.Attribute) else ""


def _function_bindings(fn: ast.AST) -> dict[str, list[ast.AST]]:
    """{name: the values assignments anywhere in `fn` bind it to} (a, b = x, y binds a to x and b to y)."""
    bound: dict[str, list[ast.AST]] = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, (ast.AnnAssign, ast.NamedExpr)) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        for t in targets:
            if isinstance(t, ast.Name):
                bound.setdefault(t.id, []).append(value)
            elif isinstance(t, (ast.Tuple, ast.List)):
                parts = value.elts if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(t.elts) \
                    else [value] * len(t.elts)
                for e, v in zip(t.elts, parts):
                    if isinstance(e, ast.Name):
                        bound.setdefault(e.id, []).append(v)
    return bound


class _ReadTooLong(Exception):
    """entropy_selection_flattens' reading ran past its budget of steps (red-team round 140)."""


def _spend(budget: list[int] | None) -> None:
    if budget is not None:
        budget[0] -= 1
        if budget[0] < 0:
            raise _ReadTooLong


def _is_mask(e: ast.AST, bound: Mapping[str, list[ast.AST]], seen: set[str], budget: list[int] | None = None) -> bool:
    """`e` is a boolean mask (or the index tuple of nonzero / one-argument where): A > 0, (A > 0) & ..., ~m,
    A.gt(0), A.bool(), A.nonzero(as_tuple=True), torch.where(A > 0), or a name bound to one."""
    _spend(budget)
    if isinstance(e, ast.Compare):
        return True
    if isinstance(e, ast.BinOp) and isinstance(e.op, (ast.BitAnd, ast.BitOr, ast.BitXor)):
        return _is_mask(e.left, bound, seen, budget) or _is_mask(e.right, bound, seen, budget)
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.Invert):
        return _is_mask(e.operand, bound, seen, budget)
    if isinstance(e, ast.Call):
        return _called(e) in _MASK_CALLS or (_called(e) == "where" and len(e.args) == 1 and not e.keywords)
    if isinstance(e, ast.Name) and e.id in bound and e.id not in seen:
        seen.add(e.id)
        return any(_is_mask(v, bound, seen, budget) for v in bound[e.id])
    return False


def _selects(bound: Mapping[str, list[ast.AST]], budget: list[int] | None = None) -> Callable[[ast.AST], bool]:
    """Whether a node picks entries out of a tensor by a mask into a flat 1-D tensor: x[mask] read (not written),
    torch.masked_select(x, mask), x.masked_select(mask). Each slice read once (red-team round 140)."""
    masks: dict[int, bool] = {}

    def hit(n: ast.AST) -> bool:
        if isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Load):
            if id(n.slice) not in masks:
                masks[id(n.slice)] = _is_mask(n.slice, bound, set(), budget)
            return masks[id(n.slice)]
        return _called(n) == "masked_select"
    return hit


SELECTION_READ_STEPS = 200_000   # entropy_selection_flattens' steps (nodes and mask reads) for the whole notebook


def entropy_selection_flattens(submission: object, func: str) -> bool:
    """Whether the notebook's last `def func` (or `func = lambda ...`), or a function of the notebook it calls
    (followed by name), takes a log (log, log2, log10, xlogy, entr) of entries picked out by a boolean mask, or picks
    the log's terms by one after it ((A * A.log2())[A > 0], naming round 78) (A[A > 0], A[mask],
    torch.masked_select(A, A > 0), A[A.nonzero(as_tuple=True)]): a flat 1-D tensor of every row's entries. Student
    text: parsed, never run."""
    from autograder.grading.source_checks import cells_of
    if submission is None:
        return False
    cells = cells_of(submission)
    todo, seen, read = [func], set(), 0
    budget = [SELECTION_READ_STEPS]   # shared by every def read
    while todo and read < 8:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        fn = _last_def_or_lambda(cells, name)   # a def or a lambda (blind79's one-liner)
        if fn is None:
            continue
        read += 1
        if any(_reduces_everything(n) for n in ast.walk(fn)):
            return False     # a .sum() without dim= gives the same one number: reduced_every_axis says that
        bound = _function_bindings(fn)
        hit = _selects(bound, budget)
        try:
            for n in ast.walk(fn):
                if _takes_log(n) and _reaches_entries(n, bound, hit, set(), budget):
                    return True
                # the terms picked after the log: (A * A.log2())[A > 0] (naming round 78, blind79)
                if (isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Load) and hit(n)
                        and _reaches_entries(n.value, bound, _takes_log, set(), budget)):
                    return True
                if isinstance(n, ast.Call) and isinstance(n.func, ast.Name):
                    todo.append(n.func.id)
        except _ReadTooLong:   # red-team round 140: 700 logs of 1,000 x[m] with m = a & a & ..., 68 s of CPU
            return False
    return False


def _takes_log(n: ast.AST) -> bool:
    """A call that takes a log (log, log2, log10, log1p, xlogy, entr), not logical_* / log_softmax / logsumexp."""
    called = _called(n).lower()
    return ("log" in called and not called.startswith("logical")
            and not any(w in called for w in ("softmax", "sumexp", "logit"))) or called == "entr"


def _last_def_or_lambda(cells: list[str], name: str) -> ast.FunctionDef | ast.Lambda | None:
    """The notebook's last top-level `def name` or `name = lambda ...` (the one a Run All leaves in place), parsed
    from cells of at most 20,000 characters; None where there is none. Student text: parsed, never run. A longer cell
    that names it ends the search with None (red-team round 140: the search went on past it to an earlier draft, whose
    `0 <= i[None, :] <= i[:, None]` was quoted for the crash of the def that ran, a builtin max)."""
    from autograder.grading.pyparse import parse
    for cell in reversed(cells):
        if name not in cell:
            continue
        if len(cell) > 20_000:
            return None
        try:
            tree = parse(cell)
        except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
            continue
        for n in reversed(tree.body):
            if isinstance(n, ast.FunctionDef) and n.name == name:
                return n
            if (isinstance(n, ast.Assign) and isinstance(n.value, ast.Lambda)
                    and any(isinstance(t, ast.Name) and t.id == name for t in n.targets)):
                return n.value
            if _binds_at_top(n, name):
                return None    # bound another way last: nothing read
    return None


def _binds_at_top(stmt: ast.AST, name: str) -> bool:
    """Whether a top-level statement binds `name` in the module: an assignment's target, a def or class (also under
    if / try / with / for, red-team round 140: `if True:` around the def that ran sent the search on to an earlier
    draft), an import, a for or with target; the bodies of defs, lambdas and classes are not looked into."""
    stack = [stmt]
    while stack:
        x = stack.pop()
        if isinstance(x, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if x.name == name:
                return True
            stack.extend(x.decorator_list)
            continue
        if isinstance(x, ast.Lambda):
            continue
        if isinstance(x, ast.Name) and isinstance(x.ctx, ast.Store) and x.id == name:
            return True
        if isinstance(x, ast.alias) and (x.asname or x.name.split(".")[0]) == name:
            return True
        stack.extend(ast.iter_child_nodes(x))
    return False


_TO_ONE_NUMBER = frozenset({"min", "max", "amin", "amax", "mean", "sum", "median", "item", "numel", "len", "float",
                            "int", "std", "var", "norm", "nansum", "nanmean"})


def _reduces_everything(n: ast.AST) -> bool:
    """A torch reduction over every axis: x.sum() / x.mean() with no dim, torch.sum(x) / torch.mean(x)."""
    if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
            and n.func.attr in ("sum", "mean", "nansum", "nanmean")):
        return False
    if any(k.arg in ("dim", "axis") for k in n.keywords):
        return False
    module = isinstance(n.func.value, ast.Name) and n.func.value.id in ("torch", "np", "numpy")
    return len(n.args) == (1 if module else 0)


def _reaches_entries(n: ast.AST, bound: Mapping[str, list[ast.AST]], hit: Callable[[ast.AST], bool],
                     seen: set[str], budget: list[int] | None = None) -> bool:
    """_reaches, not looking inside a call that makes one number of what it is given (A[A > 0].min() as an eps
    reads the selection, it does not take its entries on). `budget`: steps left to the whole reading."""
    stack = [n]   # a worklist, as _reaches
    while stack:
        x = stack.pop()
        _spend(budget)
        if hit(x):
            return True
        if isinstance(x, ast.Call) and _called(x) in _TO_ONE_NUMBER:
            continue
        if isinstance(x, ast.Name) and x.id in bound and x.id not in seen:
            seen.add(x.id)
            stack.extend(bound[x.id])
            continue
        stack.extend(ast.iter_child_nodes(x))
    return False


def raise_if_rows_flattened_by_selection(got: object, A: torch.Tensor, submission: object, what: str,
                                         dtype: torch.dtype) -> None:
    """entropy_rows_flattened_by_selection: H is one number, the entropy of every positive entry of A together
    (p = A[A > 0]; -(p * log2(p)).sum(dim=-1): the selection is one flat 1-D tensor, so every row's terms are summed
    into one), replayed on this A, where the function takes the log of entries picked by a boolean mask
    (entropy_selection_flattens). The same number from .sum() without dim= (no selection) stays reduced_every_axis."""
    if not (type(got) is torch.Tensor and got.is_floating_point() and got.numel() == 1
            and A.dim() >= 2 and A[..., 0].numel() > 1 and bool(torch.isfinite(got).all())):
        return
    p = A.detach().to(torch.float64)
    p = p[p > 0]
    replay = -(p * torch.log2(p)).sum()
    if not is_right(got.reshape(()), replay.to(got.dtype), dtype):
        return
    try:
        if not entropy_selection_flattens(submission, "row_entropy_bits"):
            return
    except RecursionError:   # student text nested too deep to read: no evidence
        return
    raise Misconception("entropy_rows_flattened_by_selection", f"{what} is one number ({float(got):.4g}), the entropy "
                        f"of all the positive entries of the {tuple(A.shape)} A taken together, where one entropy per "
                        f"row ({tuple(A.shape[:-1])}) is asked: " + describe("entropy_rows_flattened_by_selection"))


# --- round 50 (blind50) -----------------------------------------------------------------------------------------

_STR_FOLDS = frozenset({"lower", "upper", "strip", "casefold"})


def _bool_op_letters(n: ast.AST, bound: Mapping[str, list[ast.AST]], letters: list[str], depth: int = 0,
                     budget: list[int] | None = None) -> str | None:
    """The string a module-level expression of string constants joined by `and` / `or` gives in Python (`and`: the
    first falsy operand, else the last; `or`: the first truthy, else the last), through case folds and names the cell
    bound once; each constant's letter (parentheses and spaces stripped) put in `letters`. None for anything else.
    `budget`: the nodes left to the whole reading, 2,000 (red-team round 138: each name is read again wherever it is
    used, so `x1 = x0 or x0 or ...` (8 uses) nine names deep was 8^9 reads, 30 s of the grader's CPU in q03)."""
    budget = [2000] if budget is None else budget
    budget[0] -= 1
    if depth > 20 or budget[0] < 0:
        return None
    if isinstance(n, ast.Constant) and type(n.value) is str:
        letters.append(n.value.strip().strip("()").strip().lower())
        return n.value
    if isinstance(n, ast.Name) and len(bound.get(n.id, ())) == 1:
        return _bool_op_letters(bound[n.id][0], bound, letters, depth + 1, budget)
    if (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _STR_FOLDS and not n.args
            and not n.keywords):
        inner = _bool_op_letters(n.func.value, bound, letters, depth + 1, budget)
        return None if inner is None else getattr(inner, n.func.attr)()
    if isinstance(n, ast.BoolOp):
        values = [_bool_op_letters(v, bound, letters, depth + 1, budget) for v in n.values]
        if any(v is None for v in values):
            return None
        pick = (next((v for v in values if not v), values[-1]) if isinstance(n.op, ast.And)
                else next((v for v in values if v), values[-1]))
        return pick
    return None


def hedge_by_bool_op(submission: object, what: str, value: object, choices: str = "abcd") -> str | None:
    """Words for an answer written as option letters joined by `and` / `or` ("c" and "d"): where the notebook's last
    `what = ...` is such an expression (two or more different letters, each alone in its string) and `value` is the
    very string Python gives for it (the last operand for `and`, the first for `or`), what Python did with it.
    None otherwise (an answer that is not that expression's value says nothing about it)."""
    if type(value) is not str:
        return None
    try:
        last = _last_assignment(submission, what)
    except RecursionError:   # student text nested too deep to read: no evidence
        return None
    if last is None:
        return None
    ops = [n for n in ast.walk(last[0]) if isinstance(n, ast.BoolOp)]
    letters: list[str] = []
    given = _bool_op_letters(last[0], last[1], letters) if ops else None
    if given is None or given != value or len(set(letters)) < 2 or not all(
            len(t) == 1 and t in choices for t in letters):
        return None
    first, other = ("and", "or") if isinstance(ops[0].op, ast.And) else ("or", "and")
    at = {"and": "last", "or": "first"}
    return (f"{what} is {value!r}, what `{ast.unparse(last[0])[:80]}` gives: Python's `{first}` returns its "
            f"{at[first]} operand (`{other}` its {at[other]}), not both letters; write the one best letter alone as a "
            "string")


def hedge_said(check: Callable[[], None], submission: object, what: str, value: object) -> None:
    """check(), a multiple-choice answer's checks; where it fails on an answer written as letters joined by `and` /
    `or` (hedge_by_bool_op), its key kept and what Python did with the expression said first."""
    try:
        check()
    except Misconception as m:
        words = hedge_by_bool_op(submission, what, value)
        if words is None:
            raise
        raise Misconception(m.key, f"{words}. {m}") from None
    except AssertionError as e:
        words = hedge_by_bool_op(submission, what, value)
        if words is None:
            raise
        raise AssertionError(f"{words}. {e}") from None


# --- round 51 (blind51) ------------------------------------------------------------------------------------------

_MATRIX_PRODUCTS = frozenset({"matmul", "mm", "bmm", "einsum", "inner", "tensordot", "dot", "outer", "linear"})
_ENTRY_PRODUCTS = frozenset({"mul", "multiply"})


def _names_a(n: ast.AST, bound: Mapping[str, list[ast.AST]], letter: str) -> bool:
    """Whether `n` (through the names its cell bound) reads a name that starts with `letter` once leading
    underscores are dropped (_Q, Q, Q_lesson, q_lesson for "q"), with no matrix product on the way."""
    if any(isinstance(s, ast.BinOp) and isinstance(s.op, ast.MatMult) or _called(s) in _MATRIX_PRODUCTS
           for s in ast.walk(n)):
        return False
    return _reaches(n, bound, lambda s: isinstance(s, ast.Name) and s.id.lstrip("_")[:1].lower() == letter
                    and not any(isinstance(v, ast.BinOp) and isinstance(v.op, ast.MatMult)
                                for vs in bound.get(s.id, []) for v in ast.walk(vs)), set())


def rank_of_elementwise_scores(submission: object, name: str) -> str | None:
    """The source of an entry-by-entry product of the queries and the keys (Q * K, torch.mul(Q, K), Q.mul(K),
    np.multiply) that the matrix_rank call of the notebook's last module-level assignment of `name` reads (in it,
    or through names the same cell bound): the lesson's scores built with `*` where S = Q @ K.T is meant (blind51).
    One operand must read a name starting with Q (_Q, Q_lesson) and the other one starting with K, neither through a
    matrix product. None otherwise."""
    last = _last_assignment(submission, name)
    if last is None:
        return None
    value, bound = last
    calls: list[ast.AST] = []
    _reaches(value, bound, lambda n: _called(n) == "matrix_rank" and not calls.append(n) and False, set())
    found: list[ast.AST] = []

    def is_product(n: ast.AST) -> bool:
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mult):
            pair = (n.left, n.right)
        elif _called(n) in _ENTRY_PRODUCTS and len(n.args) == 2:   # torch.mul(Q, K), np.multiply(Q, K)
            pair = (n.args[0], n.args[1])
        elif _called(n) in _ENTRY_PRODUCTS and len(n.args) == 1 and isinstance(n.func, ast.Attribute):   # Q.mul(K)
            pair = (n.func.value, n.args[0])
        else:
            return False
        a, b = pair
        if _names_a(a, bound, "q") and _names_a(b, bound, "k") or _names_a(a, bound, "k") and _names_a(b, bound, "q"):
            found.append(n)
            return True
        return False
    for call_ in calls:
        if _reaches(call_, bound, is_product, set()):
            return ast.unparse(found[-1])
    return None


def elementwise_lesson_rank() -> int:
    """The rank of Q * K (entry by entry) on the lesson's hand-built Q and K."""
    Q, K = ref.lesson_qk()
    return int(torch.linalg.matrix_rank(Q * K))


def raise_if_triangle_flipped(got: object, T: int) -> None:
    """W_avg equal to the right prefix-average matrix turned over: its rows reversed (flip(0) / flipud of tril, or
    flip(1) of triu), its columns reversed (flip(1) / fliplr of tril, or flip(0) of triu: blind51's
    triu(ones).flip(0) for the lower triangle), or a quarter turn (rot90); both reversed at once (rot90 by two, or
    torch.triu averaged) is upper_triangular_mask: row t averages the tokens from t on. Replayed on this T
    (none of them equals the reference, another catalogued variant or each other for T >= 2)."""
    if type(got) is not torch.Tensor or not got.is_floating_point() or tuple(got.shape) != (T, T) or T < 3:
        return
    W = ref.prefix_average_matrix(T)
    dtype = got.dtype if got.dtype in (torch.float32, torch.float64) else torch.float64
    key = "prefix_average_triangle_flipped"
    turned = {
        f"{key}/columns": (W.flip(1), "has each row's weights on its LAST columns (row t averages the last t + 1 "
                                      "tokens) instead of the first ones: the lower triangle reversed left to right, "
                                      "as flip(1) / fliplr of tril, or flip(0) of triu, gives"),
        f"{key}/rows": (W.flip(0), "has its rows in reverse order (row 0 averages all T tokens, the last row only "
                                   "token 0), as flip(0) / flipud of tril, or flip(1) of triu, gives"),
        f"{key}/rot90": (W.rot90(1, (0, 1)), "is the right matrix turned a quarter (rot90)"),
        f"{key}/rot270": (W.rot90(-1, (0, 1)), "is the right matrix turned a quarter the other way (rot90 with k=-1 "
                                               "or k=3)"),
        "upper_triangular_mask/averaged": (W.flip(0, 1), "has row t average tokens t to T - 1, itself and the later "
                                                         "ones: the upper triangle (torch.triu, or tril turned over "
                                                         "with flip((0, 1)) / rot90 by two) averaged"),
    }
    hits = matching_variants(got.detach().cpu(), {k: v.to(dtype) for k, (v, _) in turned.items()}, dtype)
    if len(hits) != 1:
        return
    key = hits[0].split("/")[0]
    raise Misconception(key, f"W_avg {turned[hits[0]][1]}: " + describe(key))


_DIAGONALS = frozenset({"diagonal", "diag"})


def _is_trace(n: ast.AST) -> bool:
    """torch.trace(S) / S.trace() / np.trace(S), or a diagonal summed as it is (S.diagonal().sum(), torch.diag(S).sum(),
    torch.sum(torch.diagonal(S))): not a count of diagonal entries that pass a test ((diag(R).abs() > tol).sum())."""
    if _called(n) == "trace":
        return True
    if _called(n) != "sum":
        return False
    inner = n.func.value if isinstance(n.func, ast.Attribute) and not n.args else n.args[0] if n.args else None
    return inner is not None and _called(inner) in _DIAGONALS


def rank_read_from_diagonal(submission: object, name: str) -> str | None:
    """The source of the trace (torch.trace, S.trace(), np.trace, or the diagonal summed as it is: S.diagonal().sum(),
    torch.diag(S).sum()) that the notebook's last module-level assignment of `name` reads, in it or through names the
    same cell bound: the sum of the diagonal taken for the rank (blind44). None otherwise."""
    last = _last_assignment(submission, name)
    if last is None:
        return None
    value, bound = last
    found: list[ast.AST] = []
    if _reaches(value, bound, lambda n: _is_trace(n) and not found.append(n), set()):
        return ast.unparse(found[0])
    return None


def lesson_trace_ranks() -> dict[int, str]:
    """{whole number: how} for the trace of the lesson's S read as its rank: int() (rounded toward zero) of the trace of
    S = Q K^T / sqrt(d_k) and of the unscaled Q K^T (K Q^T has the same diagonal); a number equal to the right rank
    is left out."""
    Q, K = ref.lesson_qk()
    out: dict[int, str] = {}
    for S, said in ((ref.scaled_scores(Q, K), "the scaled S = Q K^T / sqrt(d_k)"), (Q @ K.T, "the unscaled Q K^T")):
        tr = float(torch.trace(S))
        if tr.is_integer() or tr > 0:
            out.setdefault(int(tr), f"{tr:g}, the trace of {said}" + ("" if tr.is_integer() else ", cut to a whole number"))
    out.pop(ref.rank_S_lesson, None)
    return out


_VIEW_SIZE = re.compile(r"shape '\[([-\d, ]*)\]' is invalid for input of size (\d+)")


def merged_to_model_width_crash(fn: Callable[..., object], e: StudentCodeError, X: torch.Tensor,
                                W: tuple[torch.Tensor, ...] | list[torch.Tensor],
                                causal: bool = True) -> Misconception | None:
    """heads_merged_to_model_width: a view / reshape crash of self_attention to a shape whose last size is X's width
    d_model (!= d_v), of an input holding exactly the output's T x d_v numbers per batch entry (blind27's nanoGPT
    `y.transpose(-3, -2).contiguous().view(*lead, T, C)`), where the same call with W_V as wide as X (d_v = d_model,
    extra columns drawn from a fixed seed) runs and is right (O and A)."""
    W_Q, W_K, W_V = W
    d_model, d_v = X.shape[-1], W_V.shape[-1]
    found = _VIEW_SIZE.search(e.message or "")
    if d_model == d_v or found is None or e.exc_type != "RuntimeError":
        return None
    sizes = [int(s) for s in found.group(1).replace(" ", "").split(",") if s]
    if not sizes or sizes[-1] != d_model or int(found.group(2)) != X[..., 0].numel() * d_v:
        return None
    g = torch.Generator().manual_seed(27)
    extra = (torch.randn((W_V.shape[-2], d_model), generator=g, dtype=torch.float64)
             / math.sqrt(W_V.shape[-2])).to(W_V.dtype)
    W_V2 = torch.cat([W_V, extra], dim=-1)[..., :d_model]
    try:
        out = fn(X, W_Q, W_K, W_V2, causal=causal)
    except StudentCodeError:
        return None
    want = ref.self_attention(X.double(), W_Q.double(), W_K.double(), W_V2.double(), causal=causal)
    if not all_right(out, want, X.dtype):
        return None
    return Misconception("heads_merged_to_model_width", f"{_said(e)}: the output, {d_v} columns wide (d_v), is put "
                         f"back into {d_model} columns (d_model, X's width); with W_V as wide as X it runs and is "
                         "right: " + describe("heads_merged_to_model_width"))


# --- round 52 (blind52) -----------------------------------------------------------------------------------------

def param_count_mean_width(d_model: int, d_k: int, d_v: int, with_output: bool) -> dict[str, Any]:
    """q12's counts with W_Q, W_K, W_V given one shared width, the mean of d_k and d_v (blind52): 1.5 d_model
    (d_k + d_v), a float from the /, or made whole (// 2, int(), round()); the right count only where d_v = d_k
    (never on q12's sizes). W_O at the mean width too adds up to the right count with W_O, so only W_O's own
    d_v x d_model term is added."""
    mean = 1.5 * d_model * (d_k + d_v)
    wo = d_v * d_model if with_output else 0
    return {f"param_count_mean_width/{form}": n + wo for form, n in (
        ("/", mean), ("//", 3 * d_model * ((d_k + d_v) // 2)), ("int", int(mean)), ("round", round(mean)))}


def param_count_one_product(d_model: int, d_k: int, d_v: int, with_output: bool) -> dict[str, int]:
    """q12's count as one product of every factor of every matrix's size (round 88, blind89: the (rows, cols) index
    pairs flattened for one gather, then prod over all of them): d_model^3 d_k^2 d_v, times d_v d_model with W_O."""
    n = d_model ** 3 * d_k ** 2 * d_v * (d_v * d_model if with_output else 1)
    return {"param_count_one_product": n}


def param_count_padded_to_tiles(d_model: int, d_k: int, d_v: int, with_output: bool) -> dict[str, int]:
    """q12's counts with every width rounded up to a whole tile of 8, 16, 32, 64 or 128 (round 86, blind86: the
    weights counted as a tiled kernel stores them, padded to 16 x 16 tiles); a tile where no width is padded gives
    the right count and is left out."""
    out = {}
    for tile in (8, 16, 32, 64, 128):
        def pad(n: int, tile: int = tile) -> int:
            return -(-n // tile) * tile
        if (pad(d_model), pad(d_k), pad(d_v)) != (d_model, d_k, d_v):
            out[f"param_count_padded_to_tiles/{tile}"] = (pad(d_model) * (2 * pad(d_k) + pad(d_v))
                                                          + (pad(d_v) * pad(d_model) if with_output else 0))
    return out


def _loop_carried(loop: ast.For | ast.While, before: set[str]) -> bool:
    """Whether `loop` reads a value it also writes, one bound before the loop (a row carried from one step to the
    next: `row = row.clone()`, `W[t] = W[t - 1] ...`); a name only written into (`W[t] = ...`) is not read."""
    stored_bases = {id(n.value) for n in ast.walk(loop) if isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Store)}
    written = {n.id for n in ast.walk(loop) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)} | {
        n.value.id for n in ast.walk(loop) if isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Store)
        and isinstance(n.value, ast.Name)}
    read = {n.id for n in ast.walk(loop) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
            and id(n) not in stored_bases}
    return bool(written & read & before)


def raise_if_prefix_running_mean(m: Misconception, submission: object) -> None:
    """prefix_average_wrong_axis's numbers (entry (t, j) = 1/(j + 1)) made by a running mean, row t from row t - 1
    with the new 1/t written in and the earlier entries never rescaled (round 86, blind86): named where the def of
    prefix_average_matrix has a loop that carries a value bound before it from one step to the next (bounded ast
    read, never run)."""
    if getattr(m, "key", None) != "prefix_average_wrong_axis":
        return
    node = _def_of(submission, "prefix_average_matrix")
    if node is None:
        return
    for i, stmt in enumerate(node.body):
        if isinstance(stmt, (ast.For, ast.While)):
            before = {n.id for s in node.body[:i] for n in ast.walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
            if _loop_carried(stmt, before):
                raise Misconception("prefix_running_mean_not_rescaled", "W_avg's entry (t, j) is 1/(j + 1), and your "
                                    "loop builds each row from the one before it: "
                                    + describe("prefix_running_mean_not_rescaled")) from None


def mean_width_said(raw: object, d_model: int, d_k: int, d_v: int, with_output: bool) -> str:
    """What a mean-width count gives, and that it is a float where the / made one."""
    return (f" (with d_model={d_model}, d_k={d_k}, d_v={d_v} you give {raw!r}" + (", a float," if type(raw) is float
            else "") + f" where {ref.qkv_param_count(d_model, d_k, d_v, with_output)} is right: 3 x {d_model} x "
            f"{(d_k + d_v) / 2:g}, the mean width" + (", plus W_O" if with_output else "") + ")")


def count_wrong_words(fn: Callable[..., object] | None, d_model: int, d_k: int, d_v: int, with_output: bool) -> str:
    """"the count is wrong", with "(for d_v different from d_k)" only where a second call with d_v = d_k (the same
    d_model, d_k) is right; where that count is wrong too (blind65's d_v = 64 left in: wrong for every d_v but 64),
    that call is said instead (naming round 65)."""
    if fn is None or d_v == d_k:
        return "the count is wrong"
    try:
        same = fn(d_model, d_k, d_k, with_output=with_output)
    except (StudentCodeError, TypeError):
        return "the count is wrong"
    want = ref.qkv_param_count(d_model, d_k, d_k, with_output)
    if type(same) in (int, float) and same == want:
        return "the count is wrong (for d_v different from d_k)"
    return (f"the count is wrong, with d_v = d_k too (d_model={d_model}, d_k = d_v = {d_k}: you give {same!r:.40}, "
            f"not {want})")


def count_with_output_said(got: float, alone: object, d_model: int, d_k: int, d_v: int,
                           fn: Callable[..., object] | None = None) -> str:
    """q12's message for a count with W_O that no key explains: W_O's term is blamed only where the count without
    W_O (`alone`, a second call) is right; where that is wrong too, the W_Q, W_K, W_V part is said first."""
    base = ref.qkv_param_count(d_model, d_k, d_v)
    said = (f"{count_wrong_words(fn, d_model, d_k, d_v, True)}: with d_model={d_model}, d_k={d_k}, d_v={d_v} you "
            f"give {got}; W_Q, W_K, W_V hold {base} and W_O (d_v x d_model) {d_v * d_model}")
    if type(alone) in (int, float) and alone == base:
        return f"{said}; without W_O your count is right, so your W_O term is {got - base}"
    if type(alone) in (int, float):
        return f"{said}; without W_O you give {alone}, not {base}: fix the W_Q, W_K, W_V part first"
    return said


class _NotReplayed(Exception):
    """The cell does something the arithmetic replay below does not follow."""


_ARITH = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
          ast.Div: lambda a, b: a / b, ast.FloorDiv: lambda a, b: a // b, ast.Mod: lambda a, b: a % b}
_COMPARE = {ast.Lt: lambda a, b: a < b, ast.LtE: lambda a, b: a <= b, ast.Gt: lambda a, b: a > b,
            ast.GtE: lambda a, b: a >= b, ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b}
_PURE = {"abs": abs, "min": min, "max": max, "round": round, "float": float, "int": int,
         "log": math.log, "log2": math.log2, "sqrt": math.sqrt}


class _ArithReplay:
    """Runs a cell made only of numbers, strings, arithmetic, comparisons, if/elif/else and defs that return
    arithmetic (a hand-made cost probe), as Python would. Anything else (an import other than math, a tensor, a
    loop, a name not bound in the cell) stops it: _NotReplayed. Nothing of the student's runs here."""

    def __init__(self) -> None:
        self.steps = 0

    @staticmethod
    def _num(v: Any) -> Any:
        if type(v) not in (int, float, str, bool) or type(v) in (int, float) and not abs(v) <= 1e30:
            raise _NotReplayed
        return v

    def expr(self, n: ast.AST, env: dict[str, Any]) -> Any:
        self.steps += 1
        if self.steps > 5000:
            raise _NotReplayed
        if isinstance(n, ast.Constant) and type(n.value) in (int, float, str, bool):
            return self._num(n.value) if type(n.value) in (int, float) else n.value
        if isinstance(n, ast.Name) and n.id in env:
            return env[n.id]
        if isinstance(n, ast.BinOp):
            a, b = self.expr(n.left, env), self.expr(n.right, env)
            if any(isinstance(v, (str, bool)) for v in (a, b)):
                raise _NotReplayed
            if isinstance(n.op, ast.BitXor):
                if type(a) is not int or type(b) is not int:
                    raise _NotReplayed
                return a ^ b
            if isinstance(n.op, ast.Pow):
                if abs(b) > 8 or a == 0 and b < 0:
                    raise _NotReplayed
                return self._num(a ** b)
            op = _ARITH.get(type(n.op))
            if op is None or isinstance(n.op, (ast.Div, ast.FloorDiv, ast.Mod)) and b == 0:
                raise _NotReplayed
            return self._num(op(a, b))
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, (ast.USub, ast.UAdd, ast.Not)):
            v = self.expr(n.operand, env)
            if isinstance(n.op, ast.Not):
                return not v
            if type(v) not in (int, float, bool):   # -"a", +f: Python's TypeError, not the replay's to raise
                raise _NotReplayed
            return -v if isinstance(n.op, ast.USub) else +v
        if isinstance(n, ast.Compare):
            left = self.expr(n.left, env)
            for op, right in zip(n.ops, n.comparators):
                fn, r = _COMPARE.get(type(op)), self.expr(right, env)
                if fn is None or isinstance(left, str) != isinstance(r, str) \
                        or type(left) not in (int, float, str, bool) or type(r) not in (int, float, str, bool):
                    raise _NotReplayed
                if not fn(left, r):
                    return False
                left = r
            return True
        if isinstance(n, ast.BoolOp):   # as Python: the first operand that decides, the rest never evaluated
            v = None
            for part in n.values:
                v = self.expr(part, env)
                if isinstance(v, ast.FunctionDef):
                    raise _NotReplayed
                if bool(v) is isinstance(n.op, ast.Or):
                    return v
            return v
        if isinstance(n, ast.IfExp):
            return self.expr(n.body if self.expr(n.test, env) else n.orelse, env)
        if isinstance(n, ast.Call) and not any(isinstance(a, ast.Starred) for a in n.args) \
                and all(k.arg is not None for k in n.keywords):
            args = [self.expr(a, env) for a in n.args]
            kwargs = {k.arg: self.expr(k.value, env) for k in n.keywords}
            fn = env.get(n.func.id) if isinstance(n.func, ast.Name) else None
            if isinstance(fn, ast.FunctionDef):
                return self.call(fn, args, kwargs, env)
            name = n.func.id if isinstance(n.func, ast.Name) and n.func.id not in env else \
                n.func.attr if isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name) \
                and n.func.value.id == "math" else None
            if name in _PURE and not kwargs:
                if any(type(a) not in (int, float, bool) for a in args) \
                        or name == "round" and len(args) > 1 and abs(args[1]) > 400:   # round(5, -10**8): 10**N
                    raise _NotReplayed
                try:
                    return self._num(_PURE[name](*args))
                except (TypeError, ValueError, OverflowError) as e:
                    raise _NotReplayed from e
        raise _NotReplayed

    def call(self, fn: ast.FunctionDef, args: list[Any], kwargs: dict[str, Any], env: dict[str, Any]) -> Any:
        a = fn.args
        if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs or fn.decorator_list or len(args) > len(a.args):
            raise _NotReplayed
        names = [p.arg for p in a.args]
        defaults = dict(zip(names[len(names) - len(a.defaults):], (self.expr(d, env) for d in a.defaults)))
        local = {k: v for k, v in env.items() if isinstance(v, ast.FunctionDef)}
        for i, p in enumerate(names):
            if i < len(args):
                local[p] = args[i]
            elif p in kwargs:
                local[p] = kwargs[p]
            elif p in defaults:
                local[p] = defaults[p]
            else:
                raise _NotReplayed
        returned: list[Any] = []
        self.block(fn.body, local, returned)
        if not returned:
            raise _NotReplayed
        return returned[0]

    def block(self, body: list[ast.stmt], env: dict[str, Any], returned: list[Any]) -> None:
        for s in body:
            if returned:
                return
            if isinstance(s, ast.FunctionDef):
                env[s.name] = s
            elif isinstance(s, ast.Assign) and all(isinstance(t, ast.Name) for t in s.targets):
                v = self.expr(s.value, env)
                for t in s.targets:
                    env[t.id] = v
            elif isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Tuple) \
                    and isinstance(s.value, ast.Tuple) and len(s.value.elts) == len(s.targets[0].elts) \
                    and all(isinstance(t, ast.Name) for t in s.targets[0].elts):   # a, b = 1, 2
                values = [self.expr(v, env) for v in s.value.elts]
                for t, v in zip(s.targets[0].elts, values):
                    env[t.id] = v
            elif isinstance(s, ast.AugAssign) and isinstance(s.target, ast.Name) and s.target.id in env:
                env[s.target.id] = self.expr(ast.BinOp(ast.Name(s.target.id, ast.Load()), s.op, s.value), env)
            elif isinstance(s, ast.If):
                self.block(s.body if self.expr(s.test, env) else s.orelse, env, returned)
            elif isinstance(s, ast.Return) and s.value is not None:
                returned.append(self.expr(s.value, env))
            elif isinstance(s, ast.Pass) or isinstance(s, ast.Expr) and (isinstance(s.value, ast.Constant)
                                                                         or _callee(s.value) == "print") \
                    or isinstance(s, ast.Import) and all(a.name == "math" and a.asname is None for a in s.names):
                continue
            else:
                raise _NotReplayed


def _answer_cell_source(submission: object, name: str) -> str | None:
    """The source of the last code cell that binds `name` outside any function (as _answer_cell)."""
    from autograder.grading.pyparse import parse
    from autograder.grading.source_checks import cells_of
    last = None
    for source in cells_of(submission) if submission is not None else []:
        try:
            tree = parse(source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        if any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store) for n in _top_level_nodes(tree)):
            last = source
    return last


def caret_between_numbers(submission: object, name: str) -> tuple[str, Any, Any] | None:
    """(the line, the letter, the letter with ** for ^): where the cell that works `name` out by code writes `^`
    before a small whole number (T ^ 2), and that cell, replayed as plain arithmetic (_ArithReplay), gives `name`
    a letter as it is written (^ is xor) and a letter with every such ^ typed as ** (blind52's `T ^ 2 * d_k` cost
    probe; the retyped source is parsed again, ** binding before *). None otherwise."""
    import io
    import tokenize
    from autograder.grading.pyparse import parse
    if not _computed_by_code(submission, name):
        return None
    source = _answer_cell_source(submission, name)
    if source is None or len(source) > 6000:
        return None
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return None
    carets = [i for i, t in enumerate(tokens) if t.type == tokenize.OP and t.string == "^"]
    if not carets or any(i + 1 >= len(tokens) or tokens[i + 1].type != tokenize.NUMBER
                         or tokens[i + 1].string not in ("2", "3") for i in carets):
        return None
    at = tokens[carets[0]]
    comments = [t for t in tokens if t.type == tokenize.COMMENT and t.start[0] == at.start[0]]
    line = at.line[:comments[0].start[1]].strip() if comments else at.line.strip()
    retyped = [(t.type, "**" if i in carets else t.string) for i, t in enumerate(tokens)]
    letters = []
    for src in (source, tokenize.untokenize(retyped)):
        env: dict[str, Any] = {}
        try:
            _ArithReplay().block(parse(src).body, env, [])
        except Exception:  # noqa: BLE001 - _NotReplayed, or anything the replay meets: never the student's error
            return None
        letters.append(env.get(name))
    if not all(isinstance(v, str) for v in letters):
        return None
    return line, letters[0], letters[1]


def raise_if_caret_for_power(value: object, submission: object) -> None:
    """caret_is_xor: ans_complexity the letter its cost probe works out with `T ^ 2` (xor), where the same cell
    with ** for that ^ works out the right letter (caret_between_numbers). Nothing otherwise."""
    if not isinstance(value, str):
        return
    found = caret_between_numbers(submission, "ans_complexity")
    if found is None:
        return
    line, got, fixed = found
    norm = [v.strip().strip("()").strip().lower() for v in (value, got, fixed)]
    if norm[0] == norm[1] != norm[2] == ref.ans_complexity:
        raise Misconception("caret_is_xor", f"ans_complexity is {value.strip()!r}, worked out by your code with "
                            f"`{line[:60]}`: ^ there is xor, not a power; with ** in its place the same code gives "
                            f"{fixed.strip()!r}: " + describe("caret_is_xor"))


# --- naming round 53 (blind53): a rank counted from singular values or QR pivots with no tolerance --------------

_DECOMPOSITIONS = frozenset({"svdvals", "svd", "qr"})
_EXACT_COUNTS = frozenset({"count_nonzero", "nonzero", "argwhere"})
_EXACT_TESTS = frozenset({"ne", "not_equal", "gt", "greater"})


def _is_zero(n: ast.AST) -> bool:
    return isinstance(n, ast.Constant) and type(n.value) in (int, float) and n.value == 0


def _is_comparison(n: ast.AST) -> bool:
    return isinstance(n, ast.Compare) or (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                                          and n.func.attr in _COMPARISONS)


def _exact_nonzero_test(n: ast.AST, bound: Mapping[str, list[ast.AST]]) -> bool:
    """`n` tests against exactly zero: s != 0, s > 0, 0 < s, 0 != s, s.ne(0), torch.gt(s, 0.0), or counts the
    non-zero entries of values not compared with anything (count_nonzero(s), R.diagonal().nonzero(), argwhere):
    count_nonzero(s > tol) has a tolerance, and is not this."""
    if isinstance(n, ast.Compare) and len(n.ops) == 1:
        op, left, right = n.ops[0], n.left, n.comparators[0]
        return (isinstance(op, (ast.NotEq, ast.Gt)) and _is_zero(right)) or \
            (isinstance(op, (ast.NotEq, ast.Lt)) and _is_zero(left))
    if isinstance(n, ast.Call):
        name = n.func.attr if isinstance(n.func, ast.Attribute) else n.func.id if isinstance(n.func, ast.Name) else ""
        if name in _EXACT_COUNTS:
            operand = n.args[0] if n.args else n.func.value if isinstance(n.func, ast.Attribute) else None
            return operand is not None and not _reaches(operand, bound, _is_comparison, set())
        if name in _EXACT_TESTS:
            return any(_is_zero(a) for a in n.args)
    return False


def _is_decomposition(n: ast.AST) -> bool:
    if isinstance(n, ast.Call):
        f = n.func
        return (isinstance(f, ast.Attribute) and f.attr in _DECOMPOSITIONS) or \
            (isinstance(f, ast.Name) and f.id in _DECOMPOSITIONS)
    return False


def rank_counted_without_tolerance(submission: object, name: str) -> tuple[str, str] | None:
    """The source of the exact-zero test (`svdvals(S) != 0`, `count_nonzero(R.diagonal())`) that the notebook's last
    module-level assignment of `name` reads, in it or through names the same cell bound, where it also reaches a
    singular value or QR decomposition (svdvals, svd, qr): the rank counted with no tolerance (blind53, blind44), with
    "qr" where only QR is reached, else "svd". None otherwise (a tolerance, however small, or no decomposition in
    sight: the count alone says nothing)."""
    last = _last_assignment(submission, name)
    if last is None:
        return None
    value, bound = last
    found: list[ast.AST] = []
    used: set[str] = set()

    def decomposition(n: ast.AST) -> bool:
        if _is_decomposition(n):
            used.add(n.func.attr if isinstance(n.func, ast.Attribute) else n.func.id)
        return False
    _reaches(value, bound, decomposition, set())
    if used and _reaches(value, bound, lambda n: _exact_nonzero_test(n, bound) and not found.append(n), set()):
        return pyparse_unparse(found[0]), "qr" if used == {"qr"} else "svd"
    return None


def exact_nonzero_counts(kind: str) -> dict[int, str]:
    """{count: how} for the lesson's S (scaled, unscaled, and transposed; float64 as the lesson builds it, and float32)
    counted with no tolerance: the singular values that are not exactly zero (kind "svd"), or the non-zero pivots on
    QR's diagonal ("qr"). A count equal to the right rank is left out (rounding happened to leave exact zeros there)."""
    Q, K = ref.lesson_qk()
    out: dict[int, str] = {}
    for S, said in ((ref.scaled_scores(Q, K), "S"), (Q @ K.T, "Q K^T"), (K @ Q.T, "K Q^T")):
        for dt in (torch.float64, torch.float32):
            m, where = S.to(dt), str(dt).replace("torch.", "")
            v = torch.linalg.svdvals(m) if kind == "svd" else torch.linalg.qr(m).R.diagonal().abs()
            n = int((v != 0).sum())
            tiny = float(v[v != 0].min()) if n else 0.0
            what = "singular values of" if kind == "svd" else "pivots on the diagonal of QR's R for"
            out.setdefault(n, f"{n} {what} {said} are not exactly zero in {where}, the smallest about {tiny:.0e}, "
                              "rounding noise where the exact value is 0")
    out.pop(ref.rank_S_lesson, None)
    return out


# --- round 54 (blind54) ------------------------------------------------------------------------------------------

def _counted_letter(node: ast.AST) -> bool:
    """A letter picked by counting: chr(ord("a") + n) (or chr(97 + n)) with n only counted (int constants, names,
    len(...)), or a run of letters from the options' first ("abcde...", string.ascii_lowercase) indexed by such a
    count; str folds (.lower(), .upper(), .strip()) around it are looked through."""
    def counting(n: ast.AST) -> bool:
        if isinstance(n, ast.Constant):
            return type(n.value) is int
        if isinstance(n, ast.Name):
            return True
        if isinstance(n, ast.BinOp):
            return isinstance(n.op, (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv)) and counting(n.left) \
                and counting(n.right)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and len(n.args) == 1 and not n.keywords:
            a = n.args[0]
            return n.func.id == "len" or (n.func.id == "ord" and isinstance(a, ast.Constant)
                                          and isinstance(a.value, str) and len(a.value) == 1)
        return False
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _STR_FOLDS \
            and not node.args and not node.keywords:
        node = node.func.value
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "chr" \
            and len(node.args) == 1 and not node.keywords:
        arg = node.args[0]
        return isinstance(arg, ast.BinOp) and isinstance(arg.op, (ast.Add, ast.Sub)) and counting(arg) \
            and any((isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "ord")
                    or (isinstance(n, ast.Constant) and type(n.value) is int and 60 <= n.value <= 130)
                    for n in ast.walk(arg))
    if isinstance(node, ast.Subscript) and not isinstance(node.slice, ast.Slice) and counting(node.slice):
        base = node.value
        return (isinstance(base, ast.Constant) and isinstance(base.value, str)
                and base.value.lower().startswith("abcde")) \
            or (isinstance(base, ast.Attribute) and base.attr in ("ascii_uppercase", "ascii_lowercase",
                                                                 "ascii_letters"))
    return False


def raise_if_letter_past_options(question: str, value: object, submission: object, choices: str = "abcd") -> None:
    """answer_letter_past_last_option (round 54, blind54 q15_fourth_option_as_chr_offset_from_a; scaled-attention's
    round 52 check, for this assignment's lower-case letters): the answer is the letter right after the last option
    ('e' for options a..d), and the notebook's last module-level binding of `question` counts it out
    (chr(ord("a") + 4), "abcde"[4], string.ascii_lowercase[n_options]): the count ran one past the options. A
    literal 'e', a letter two past, or an answer re-bound later (+=, or inside a branch) is not named."""
    if submission is None or not isinstance(value, str):
        return
    past = chr(ord(choices[-1]) + 1)
    if value.strip().strip("()").strip().lower() != past:
        return
    last = _last_assignment(submission, question)
    if last is None:
        return
    trees = _cell_trees(submission)
    if any(isinstance(n, (ast.AugAssign, ast.AnnAssign)) and isinstance(n.target, ast.Name) and n.target.id == question
           for t in trees for n in ast.walk(t)):
        return
    node, _bound = last
    try:
        if not _counted_letter(node):
            return
    except (RecursionError, MemoryError):   # a count nested past the stack (600 `+ 1 - 1`: red-team round 70)
        return
    shown = pyparse_unparse(node)
    raise Misconception("answer_letter_past_last_option", f"{question} is {value.strip()!r}, the letter your code "
                        f"counts out (`{question} = {shown[:70]}`): one past the last option, {choices[-1]}, so it is "
                        "no option at all: " + describe("answer_letter_past_last_option"))


def pyparse_unparse(node: ast.AST) -> str:
    """A node's source, bounded (the grader's unparse; a plain one where that is missing)."""
    try:
        from autograder.grading.pyparse import unparse
        return unparse(node)
    except ImportError:
        return ast.unparse(node)


_NORM_CALLS = frozenset({"matrix_norm", "norm"})
_SV_CALLS = frozenset({"svdvals", "svd"})


def _nuclear_norm(n: ast.AST, bound: Mapping[str, list[ast.AST]]) -> bool:
    """`n` is a nuclear norm: matrix_norm(S, "nuc") / norm(S, p="nuc") (any spelling of the order argument), or a
    sum of singular values (svdvals(S).sum(), torch.sum(svdvals(S)), sum(svd(S).S), a name bound to them)."""
    if not isinstance(n, ast.Call):
        return False
    name = _callee(n)
    if name in _NORM_CALLS:
        return any(isinstance(a, ast.Constant) and a.value == "nuc" for a in [*n.args, *(k.value for k in n.keywords)])
    if name == "sum":
        operand = n.args[0] if n.args else n.func.value if isinstance(n.func, ast.Attribute) else None
        return operand is not None and _singular_values(operand, bound, 0)
    return False


def _singular_values(n: ast.AST, bound: Mapping[str, list[ast.AST]], depth: int) -> bool:
    """`n` is the singular values themselves (svdvals(S), svd(S).S, svd(S)[1], a name bound to one of them, or a name
    unpacked from svd(S)): not a comparison of them, nor a count (blind53's (svdvals(S) != 0).sum() is a count)."""
    if depth > 8:
        return False
    if isinstance(n, ast.Call):
        return _callee(n) in _SV_CALLS
    if isinstance(n, (ast.Attribute, ast.Subscript)):
        return _singular_values(n.value, bound, depth + 1)
    if isinstance(n, ast.Name) and len(bound.get(n.id, [])) == 1:
        return _singular_values(bound[n.id][0], bound, depth + 1)
    return False


def rank_from_nuclear_norm(submission: object, name: str) -> str | None:
    """The source of the nuclear norm (the sum of the singular values) that the notebook's last module-level
    assignment of `name` reads, in it or through names the same cell bound (blind54); None otherwise."""
    last = _last_assignment(submission, name)
    if last is None:
        return None
    value, bound = last
    found: list[ast.AST] = []
    if _reaches(value, bound, lambda n: _nuclear_norm(n, bound) and not found.append(n), set()):
        return pyparse_unparse(found[0])
    return None


def nuclear_norm_ranks() -> dict[int, str]:
    """{whole number: how} for the nuclear norm of the lesson's S (scaled, unscaled, transposed; float64 and
    float32) made whole by round, int or ceil; the right rank left out."""
    Q, K = ref.lesson_qk()
    out: dict[int, str] = {}
    for S, said in ((ref.scaled_scores(Q, K), "S"), (Q @ K.T, "Q K^T"), (K @ Q.T, "K Q^T")):
        for dt in (torch.float64, torch.float32):
            sv = torch.linalg.svdvals(S.to(dt))
            nuc = float(sv.sum())
            parts = " + ".join(f"{float(v):.2f}" for v in sv if float(v) > 1e-6)
            for made, how in ((round(nuc), "rounds to"), (int(nuc), "truncates to"), (math.ceil(nuc), "rounds up to")):
                out.setdefault(made, f"the nuclear norm of {said}, its singular values summed ({parts} = {nuc:.2f}), "
                                     f"{how} {made}")
    out.pop(ref.rank_S_lesson, None)
    return out


# the ratios of norms read as a rank (blind55): (numerator, denominator) -> the form
_NORM_RATIOS = {("fro2", "spec2"): "stable", ("fro", "spec"): "fro/spec", ("nuc", "spec"): "nuc/spec"}
_SQUARED = {"fro": "fro2", "spec": "spec2", "sv": "sv2", None: "entries2", "fro/spec": "stable"}
_ROOTED = {"fro2": "fro", "spec2": "spec", "stable": "fro/spec"}


def _norm_kind(n: ast.AST, bound: Mapping[str, list[ast.AST]], depth: int = 0,
               budget: list[int] | None = None) -> str | None:
    """What `n` is, read from its source (names followed through the cell's bindings): "sv" the singular values
    (svdvals(S), svd(S).S, a name unpacked from svd(S)), "sv2" their squares, "spec" / "spec2" the spectral norm
    ||S||_2 (the largest singular value: sv[0], sv.max(), matrix_norm(S, 2), linalg.norm(S, ord=2)) and its square,
    "fro" / "fro2" the Frobenius norm (matrix_norm(S), linalg.norm(S), torch.norm(S), S.norm()) and its square (a
    sum of squares), "nuc" the nuclear norm, or a ratio of them (_NORM_RATIOS); None for anything else. `budget`:
    the calls left to the whole reading (a cell of thousands of nested ratios is not read through, red-team 70)."""
    budget = [4000] if budget is None else budget
    budget[0] -= 1
    if depth > 12 or budget[0] < 0:
        return None
    if isinstance(n, ast.Name):
        values = bound.get(n.id, [])
        return _norm_kind(values[0], bound, depth + 1, budget) if len(values) == 1 else None
    if isinstance(n, ast.BinOp):
        if isinstance(n.op, (ast.Div, ast.FloorDiv)):
            return _NORM_RATIOS.get((_norm_kind(n.left, bound, depth + 1, budget), _norm_kind(n.right, bound, depth + 1, budget)))
        if isinstance(n.op, ast.Pow) and isinstance(n.right, ast.Constant) and n.right.value in (2, 2.0, 0.5):
            inner = _norm_kind(n.left, bound, depth + 1, budget)
            return _SQUARED.get(inner) if n.right.value != 0.5 else _ROOTED.get(inner or "")
        # a square written x * x: both sides small before they are written out (red-team round 138: each `*` of
        # `b = s * s * ... * s`, 400 terms in 60 names, wrote out its whole left side, 23 s of the grader's CPU)
        if isinstance(n.op, ast.Mult) and all(sum(1 for _ in itertools.islice(ast.walk(side), 65)) <= 64
                                              for side in (n.left, n.right)) \
                and pyparse_unparse(n.left) == pyparse_unparse(n.right):
            return _SQUARED.get(_norm_kind(n.left, bound, depth + 1, budget))
        return None
    if isinstance(n, ast.Subscript):
        inner = _norm_kind(n.value, bound, depth + 1, budget)
        index = n.slice.value if isinstance(n.slice, ast.Constant) else None
        if inner == "svd" and index == 1:
            return "sv"
        return {"sv": "spec", "sv2": "spec2"}.get(inner or "") if index == 0 else None
    if isinstance(n, ast.Attribute):
        return "sv" if n.attr == "S" and _norm_kind(n.value, bound, depth + 1, budget) == "svd" else None
    if not isinstance(n, ast.Call):
        return None
    name = _callee(n)
    method = isinstance(n.func, ast.Attribute)
    operand = n.args[0] if n.args else None
    if method and name in ("item", "double", "float", "sqrt", "pow", "square", "max", "amax", "sum", "abs"):
        operand = n.func.value if not (isinstance(n.func.value, ast.Name) and n.func.value.id in ("torch", "math")) \
            else operand
    if name in ("svdvals",):
        return "sv"
    if name == "svd":
        return "svd"
    if name in ("item", "double", "float", "abs", "as_tensor", "tensor") \
            and operand is not None:
        inner = _norm_kind(operand, bound, depth + 1, budget)
        return inner if inner not in ("sv", "sv2", "svd") else None
    if name == "div" and len(n.args) >= 2 - method:
        left, right = (n.func.value, n.args[0]) if method and not (
            isinstance(n.func.value, ast.Name) and n.func.value.id == "torch") else (n.args[0], n.args[1])
        return _NORM_RATIOS.get((_norm_kind(left, bound, depth + 1, budget), _norm_kind(right, bound, depth + 1, budget)))
    if name == "sqrt" and operand is not None:
        return _ROOTED.get(_norm_kind(operand, bound, depth + 1, budget) or "")
    if name == "square" and operand is not None:
        return _SQUARED.get(_norm_kind(operand, bound, depth + 1, budget))
    if name == "pow" and operand is not None:
        power = [a for a in (*n.args, *(k.value for k in n.keywords)) if a is not operand][-1:]
        if power and isinstance(power[0], ast.Constant) and power[0].value in (2, 2.0):
            return _SQUARED.get(_norm_kind(operand, bound, depth + 1, budget))
        return None
    if name in ("max", "amax") and operand is not None:
        return {"sv": "spec", "sv2": "spec2"}.get(_norm_kind(operand, bound, depth + 1, budget) or "")
    if name == "sum" and operand is not None:
        return {"sv": "nuc", "sv2": "fro2", "entries2": "fro2"}.get(_norm_kind(operand, bound, depth + 1, budget) or "")
    if name in _NORM_CALLS:
        order = [k.value for k in n.keywords if k.arg in ("ord", "p")]
        linalg = name == "matrix_norm" or (method and isinstance(n.func.value, ast.Attribute)
                                           and n.func.value.attr == "linalg")
        module = linalg or (method and isinstance(n.func.value, ast.Name) and n.func.value.id == "torch")
        order += n.args[1:2] if module else n.args[:1]     # torch.norm(S, p) / S.norm(p): the order after S
        value = order[0].value if order and isinstance(order[0], ast.Constant) else None if not order else "?"
        if value == "nuc":
            return "nuc"
        if value in (None, "fro") or (value == 2 and not linalg):   # torch.norm(S, 2): every entry, the Frobenius
            return "fro"
        return "spec" if value == 2 and linalg else None
    return None


def norm_ratio_ranks() -> dict[str, tuple[float, dict[int, str]]]:
    """{form: (its value, {whole number: how it is made whole})} for the ratios of norms of the lesson's S (the same
    for S, Q K^T and K Q^T: a ratio does not see the scale or a transpose); the right rank left out."""
    sv = torch.linalg.svdvals(ref.scaled_scores(*ref.lesson_qk()))
    stable = float((sv ** 2).sum() / sv[0] ** 2)
    out = {}
    for form, value in (("stable", stable), ("fro/spec", math.sqrt(stable)), ("nuc/spec", float(sv.sum() / sv[0]))):
        made = {}
        for whole, how in ((round(value), "rounds to"), (int(value), "truncates to"), (math.ceil(value), "rounds up to")):
            if whole != ref.rank_S_lesson:
                made.setdefault(whole, how)
        out[form] = (value, made)
    return out


_RATIO_WORDS = {"stable": "the stable rank ||S||_F^2 / ||S||_2^2 of the lesson's S (the sum of the squared singular "
                          "values over the largest one squared)",
                "fro/spec": "||S||_F / ||S||_2 of the lesson's S (the square root of its stable rank)",
                "nuc/spec": "||S||_* / ||S||_2 of the lesson's S (the singular values summed, over the largest one)"}


def raise_if_rank_from_stable_rank(got: int, submission: object, name: str) -> None:
    """rank_from_stable_rank (blind55): the number is a ratio of norms of the lesson's S made whole (the stable rank
    1.31 rounded to 1), replayed, where the notebook's last module-level assignment of `name` reads that very ratio
    (in it, or through names its cell bound). A bare number says nothing of a ratio, and is left alone."""
    last: tuple[ast.AST, dict[str, list[ast.AST]]] | None = None
    for tree in _cell_trees(submission):     # as _last_assignment, with `U, s, Vh = svd(S)` read as s = svd(S).S
        bound = _bindings(tree)
        for node in tree.body:
            if isinstance(node, ast.Assign) and _callee(node.value) == "svd" and len(node.targets) == 1 and isinstance(
                    node.targets[0], ast.Tuple) and len(node.targets[0].elts) == 3:
                for i, t in enumerate(node.targets[0].elts):
                    if isinstance(t, ast.Name) and bound.get(t.id) == [node.value]:
                        bound[t.id] = [ast.Attribute(value=node.value, attr="S", ctx=ast.Load())] if i == 1 else []
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
                last = (node.value, bound)
    if last is None:
        return
    value, bound = last
    found: list[tuple[ast.AST, str]] = []
    budget = [20_000]     # one bound on the whole reading, however many ratios the cell writes
    _reaches(value, bound, lambda n: (isinstance(n, ast.BinOp) or _callee(n) == "div")     # the ratio itself
             and budget[0] > 0 and (form := _norm_kind(n, bound, 0, budget)) in _RATIO_WORDS
             and not found.append((n, form)), set())
    if not found:
        return
    node, form = found[0]
    ratio, made = norm_ratio_ranks()[form]
    if got not in made:
        return
    # how the assignment makes it whole, where it says (round, int, ceil); else how the number comes out of the ratio
    said = {"round": "rounds to", "int": "truncates to", "ceil": "rounds up to", "floor": "truncates to"}
    how = next((said[c] for n in ast.walk(value) if (c := _callee(n) or "") in said and (
        round(ratio) if c == "round" else int(ratio) if c in ("int", "floor") else math.ceil(ratio)) == got), made[got])
    quoted = pyparse_unparse(node)
    quoted = quoted[:90] + ("..." if len(quoted) > 90 else "")
    raise Misconception("rank_from_stable_rank", f"{name} is {got}, not {ref.rank_S_lesson}: `{quoted}` is "
                        f"{_RATIO_WORDS[form]}, {ratio:.2f}, which {how} {got}; it is a ratio of norms, not a count: "
                        + describe("rank_from_stable_rank"))


def padded_keys_sliced_off(A: object, O: object, X: torch.Tensor, Y: torch.Tensor, W: Any, M: torch.Tensor | None,
                           dtype: torch.dtype) -> Misconception | None:
    """blind54 q13_padded_keys_sliced_off_instead_of_masked: A has one column per open key only, and (O, A) are
    exactly attention over the first keys that M leaves open (the padding at the end of Y dropped, by slicing K and V
    or Y itself): the mask applied by cutting the keys off instead of adding it to the scores."""
    if M is None or type(A) is not torch.Tensor or type(O) is not torch.Tensor or A.dim() != X.dim():
        return None
    T_k = Y.shape[-2]
    open_keys = (M.reshape(-1, M.shape[-1]) == 0).all(dim=0)
    n = int(open_keys.sum())
    if not 0 < n < T_k or not bool(open_keys[:n].all()) or A.shape[-1] != n or A.shape[-2] != X.shape[-2]:
        return None
    X64, Y64, W64 = X.double(), Y[..., :n, :].double(), [w.double() for w in W]
    O_cut, A_cut = ref.cross_attention(X64, Y64, *W64, None)
    if not (is_right(A, A_cut, dtype) and is_right(O, O_cut, dtype)):
        return None
    return Misconception("padded_keys_sliced_off", f"the padded keys are cut off instead of masked: A has shape "
                         f"{tuple(A.shape)}, one column for each of the {n} open keys only, where it should have one "
                         f"for each of the {T_k} keys, and (O, A) are exactly attention over the first {n} keys: "
                         + describe("padded_keys_sliced_off"))


_OUT_DTYPE = re.compile(r"Expected out tensor to have dtype ([\w:]{1,30}), but got float instead")


def out_buffer_default_dtype_crash(e: StudentCodeError, rerun32: Callable[[], object],
                                   right32: Callable[[object], bool], dtype: torch.dtype) -> Misconception | None:
    """blind54 q01_out_buffers_allocated_in_default_dtype: a float64 (or float16) call crashes with torch's "Expected
    out tensor to have dtype double, but got float", on a line of the student's that passes out=, and the same call
    in float32 (the default dtype the buffer was made in) runs and is right: the out= buffer made without
    dtype=X.dtype. None otherwise."""
    from autograder.grading.crash_words import crash_source_line
    if dtype == torch.float32:
        return None
    words = _OUT_DTYPE.search(e.message or "")
    line = crash_source_line(e)
    if words is None or not re.search(r"\bout\s*=", line):
        return None
    try:
        got = rerun32()
    except StudentCodeError:
        return None
    if not right32(got):
        return None
    said = str(dtype).replace("torch.", "")
    return Misconception("out_buffer_default_dtype", f"the out= buffer is float32 while the inputs are {said}: "
                         f"`{line[:70]}` raised {e.exc_type}: {e.message.splitlines()[0][:100]}, and the same call in "
                         "float32 runs and is right: " + describe("out_buffer_default_dtype"))


# --- round 56 (blind56) ------------------------------------------------------------------------------

_EINSUM_EQ = re.compile(r"[A-Za-z.]{1,12},[A-Za-z.]{1,12}->[A-Za-z.]{0,12}")


def einsum_heads_layout(submission: object, func: str) -> list[str]:
    """The two-operand einsum equations (string constants, at most 40 characters) in the notebook's last `def func`
    written for a heads axis: each operand ends with the same two letters, the last summed away (not in the output)
    and the one before it kept (Flax's '...qhd,...khd->...hqk', (batch, length, heads, depth)); in the (..., T, d_k)
    layout the letter before the summed one is the queries' in one operand and the keys' in the other."""
    from autograder.grading.source_checks import cells_of, last_function_def
    node = last_function_def(cells_of(submission), func) if submission is not None else None
    found: list[str] = []
    for n in ast.walk(node) if node is not None else ():
        if not (isinstance(n, ast.Call) and n.args and isinstance(n.args[0], ast.Constant)
                and isinstance(n.args[0].value, str) and len(n.args[0].value) <= 40
                and (isinstance(n.func, ast.Attribute) and n.func.attr == "einsum"
                     or isinstance(n.func, ast.Name) and n.func.id == "einsum")):
            continue
        eq = n.args[0].value.replace(" ", "")
        if not _EINSUM_EQ.fullmatch(eq):
            continue
        left, out = eq.split("->")
        ops = [op.replace("...", "") for op in left.split(",")]
        if (all(len(op) >= 3 and op.isalpha() for op in ops) and ops[0][-2:] == ops[1][-2:]
                and ops[0][-1] not in out and ops[0][-2] in out and eq not in found):
            found.append(eq)
    return found


def einsum_heads_layout_failure(e: BaseException, fn: Callable[..., object], Q: torch.Tensor, K: torch.Tensor,
                                submission: object) -> Misconception | None:
    """blind56 q02_flax_head_axis_einsum_on_headless_tensors: S from an einsum written for a heads axis (above) on
    (..., T, d_k) tensors that have none. Replayed on the test's own Q and K: a crash whose first line is the one the
    equation raises on them (too few axes, or the heads letter on T_q and T_k), or, where it runs, a second call that
    gives the equation's S (scaled by 1/sqrt(d_k), or not: shape and values). None otherwise."""
    for eq in einsum_heads_layout(submission, "scaled_scores"):
        try:
            replay: torch.Tensor | None = torch.einsum(eq, Q.double() / math.sqrt(Q.shape[-1]), K.double())
            raised = ""
        except RuntimeError as r:
            replay, raised = None, (str(r).splitlines() or [""])[0]
        if isinstance(e, StudentCodeError):
            if replay is not None or (e.message.splitlines() or [""])[0] != raised:
                continue
            said = f"your code raised {e.exc_type}: {raised[:150]}"
        else:
            if replay is None:
                continue
            try:
                got = fn(Q, K)
            except StudentCodeError:
                continue
            if not any(is_right(got, want, Q.dtype) for want in (replay, replay * math.sqrt(Q.shape[-1]))):
                continue
            want_shape = tuple(Q.shape[:-1]) + (K.shape[-2],)
            said = f"S has shape {tuple(got.shape)} (expected {want_shape}), exactly that equation's result"
        return Misconception("einsum_heads_layout_on_headless", f"{said}: your einsum '{eq}' is written for Q and K "
                             f"with a heads axis (next to last), and these are {tuple(Q.shape)} and {tuple(K.shape)}, "
                             "(..., T, d_k): " + describe("einsum_heads_layout_on_headless"))
    return None


# --- naming round 57 (blind57) -------------------------------------------------------------------------------------

SUM_LOOP_DEF_CHARS = 4000   # a qkv_param_count def longer than this is not read for its loop


def _count_def(submission: object, func: str) -> ast.FunctionDef | None:
    from autograder.grading.source_checks import cells_of, last_function_def
    return last_function_def(cells_of(submission), func, SUM_LOOP_DEF_CHARS) if submission is not None else None


def has_conditional_term(submission: object, func: str) -> bool:
    """Whether the notebook's last `def func` holds a conditional expression (`x if c else y`) or an `and` / `or`
    (blind41's `base + with_output and d_v * d_model`): the source that param_count_conditional_precedence needs."""
    node = _count_def(submission, func)
    return node is not None and any(isinstance(n, (ast.IfExp, ast.BoolOp)) for n in ast.walk(node))


def statement_after_loop(submission: object, func: str) -> str | None:
    """A statement that belongs in a loop's body written after it (blind57 q12_sum_dedented_out_of_the_shape_loop:
    `for rows, cols in shapes: n = rows * cols` then `total += n` at the loop's level): in the notebook's last `def
    func` (at most SUM_LOOP_DEF_CHARS), a for loop (no else) directly followed by an augmented assignment, or
    `x = x + ...`, that reads a name the loop's body binds and the loop's target does not. The statement as
    written (bounded); None where there is none. Student text: parsed, never run."""
    from autograder.grading.pyparse import unparse
    node = _count_def(submission, func)
    if node is None:
        return None
    for body in (n.body for n in ast.walk(node) if isinstance(n, (ast.FunctionDef, ast.For, ast.While, ast.If, ast.With))):
        for loop, after in zip(body, body[1:]):
            if not isinstance(loop, ast.For) or loop.orelse:
                continue
            if isinstance(after, ast.AugAssign) and isinstance(after.target, ast.Name):
                total, value = after.target.id, after.value
            elif (isinstance(after, ast.Assign) and len(after.targets) == 1 and isinstance(after.targets[0], ast.Name)
                  and isinstance(after.value, ast.BinOp)):
                total, value = after.targets[0].id, after.value
                if not any(isinstance(n, ast.Name) and n.id == total for n in ast.walk(value)):
                    continue
            else:
                continue
            bound = {n.id for s in loop.body for n in ast.walk(s) if isinstance(n, ast.Name)
                     and isinstance(n.ctx, ast.Store)} - {n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name)}
            if total not in bound and any(isinstance(n, ast.Name) and n.id in bound for n in ast.walk(value)):
                return unparse(after)[:80]
    return None


def reduce_without_start(submission: object, func: str) -> str | None:
    """The text of a functools.reduce call in the notebook's last `def func` given two arguments and no start value
    (reduce(f, items): blind72), or None."""
    node = _def_of(submission, func)
    for n in ast.walk(node) if node is not None else ():
        if isinstance(n, ast.Call) and len(n.args) == 2 and not n.keywords \
                and ((isinstance(n.func, ast.Name) and n.func.id == "reduce")
                     or (isinstance(n.func, ast.Attribute) and n.func.attr == "reduce"
                         and isinstance(n.func.value, ast.Name) and n.func.value.id == "functools")):
            return ast.unparse(n)[:120]
    return None


def count_call(fn: Callable[..., object], submission: object, *args: object, **kwargs: object) -> object:
    """checks.call of qkv_param_count; its TypeError of a number added to a tuple is named reduce_without_initial
    where the def calls functools.reduce with no start value (the first shape tuple is then the accumulator)."""
    try:
        return checks.call(fn, *args, what="qkv_param_count", **kwargs)
    except StudentCodeError as e:
        said = reduce_without_start(submission, "qkv_param_count") if e.exc_type == "TypeError" \
            and "tuple" in e.message else None
        if said is None:
            raise
        raise Misconception("reduce_without_initial", f"{e}: `{said}` has no start value, so reduce starts from the "
                            "list's first item, a shape tuple, and adds a number to it: "
                            + describe("reduce_without_initial")) from None


def raise_if_sum_after_loop(fn: Callable[..., object], submission: object, d_model: int, d_k: int,
                            d_v: int) -> None:
    """The running total added to after the loop over the weight shapes instead of in it (blind57): only the last
    matrix's count leaks out, so both flags give one matrix's count (d_model * d_k or d_model * d_v, W_O's d_v *
    d_model with with_output=True), and a second call at other sizes (97, 5, 11) gives one matrix's count again;
    named where the def also writes such a statement after a loop (statement_after_loop)."""
    singles = {d_model * d_k, d_model * d_v}
    try:
        calls = [tuple(fn(*s, with_output=w) for w in (False, True)) for s in ((d_model, d_k, d_v), (97, 5, 11))]
    except (StudentCodeError, TypeError):
        return
    if not all(type(c) is int and c in ({97 * 5, 97 * 11} if i else singles) for i, pair in enumerate(calls)
               for c in pair):
        return
    line = statement_after_loop(submission, "qkv_param_count")
    if line is None:
        return
    off, on = calls[0]
    raise Misconception("sum_after_loop", f"the count is {off} with with_output=False and {on} with "
                        f"with_output=True, one weight matrix's count each (d_model={d_model}, d_k={d_k}, d_v={d_v}), "
                        f"not their sum: `{line}` stands after the loop, not in it: " + describe("sum_after_loop"))


def raise_if_projection_return_in_loop(got: object, X: torch.Tensor, W: tuple[torch.Tensor, ...], dtype: torch.dtype,
                                       submission: object) -> None:
    """The `return` indented into the loop over (W_Q, W_K, W_V) (blind57 q01_return_indented_into_the_weight_loop):
    the function returns during the first pass, with what that pass built: a tuple or list of fewer than three
    tensors, each the right one of Q, K, V in order ((Q,) for out.append(X @ W) then return tuple(out)). Named where
    the values are exactly those (replayed: X @ W_Q, ...) and the def ends with a loop whose body ends with the return
    (source_checks.return_inside_loop)."""
    if not (isinstance(got, (tuple, list)) and 1 <= len(got) < 3 and submission is not None):
        return
    want = ref.project_qkv(X.double(), *(w.double() for w in W))
    if not all(type(g) is torch.Tensor and matching_variants(g, {"right": w}, dtype) for g, w in zip(got, want)):
        return
    from autograder.grading.source_checks import cells_of, return_inside_loop
    found = return_inside_loop(cells_of(submission), "project_qkv")
    if found is None:
        return
    kind = type(got).__name__
    raise Misconception("return_inside_loop", f"project_qkv returned a {kind} of {len(got)} "
                        f"({', '.join('QKV'[:len(got)])}, right) instead of three: `{found[1]}` is the last line of "
                        f"the loop in {found[0]}, so it returns during the first pass: "
                        + describe("return_inside_loop"))


def raise_if_argument_ignored(fn: Callable[..., object], got: object, A: torch.Tensor, submission: object,
                              func: str, what: str) -> None:
    """A function that never reads its parameter and returns a notebook global's value instead (blind57
    q10_effective_tokens_returns_stale_lesson_entropies: `return 2.0 ** H`, H the lesson table's entropies): a
    wrong result that a second call on other weights (another shape, other values) returns again, equal, and a
    last `def func` whose body loads none of its parameters and loads a name the notebook binds at module level."""
    from autograder.grading.source_checks import cells_assigning_globally, cells_of, last_function_def
    if type(got) is not torch.Tensor or submission is None:
        return
    g = torch.Generator().manual_seed(57)
    S = torch.randn((2, A.shape[-1] + 1, A.shape[-1] + 1), generator=g, dtype=torch.float64)
    other = torch.softmax(S, dim=-1)
    try:
        again = fn(other)
    except (StudentCodeError, TypeError):
        return
    if not (type(again) is torch.Tensor and again.shape == got.shape and again.dtype == got.dtype
            and bool(torch.equal(again, got))):
        return
    cells = cells_of(submission)
    node = last_function_def(cells, func, SUM_LOOP_DEF_CHARS)
    if node is None:
        return
    params = {a.arg for a in [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]}
    loads = [n.id for s in node.body for n in ast.walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]
    if not params or params & set(loads):
        return
    globals_read = [n for n in dict.fromkeys(loads) if cells_assigning_globally(cells, n)]
    if not globals_read:
        return
    raise Misconception("reads_global_not_parameter", f"{what} is the same tensor, shape {tuple(got.shape)}, for "
                        f"weights of shape {tuple(A.shape)} and of shape {tuple(other.shape)}: {func} never reads "
                        f"its parameter {sorted(params)[0]} and reads the notebook's {globals_read[0]} instead: "
                        + describe("reads_global_not_parameter"))


def on_missing_copied_answer_cell(missing: str, resolve: Callable[[str], object], submission: object = None) -> None:
    """on_missing hook of a letter question (blind57 q06_q03_cell_copied_name_left_as_ans_scale): `missing` is
    bound nowhere at module level, and exactly one other answer name of the same prefix (ans_...) is bound by a
    string literal at least twice, the last in a cell that binds nothing else: another question's answer cell
    copied with only the letter changed, so this question's name is never set and that answer is replaced."""
    from autograder.grading.source_checks import cells_assigning, cells_assigning_globally, cells_of
    from autograder.grading.source_checks import overwritten_bindings
    if submission is None or "_" not in missing:
        return
    cells = cells_of(submission)
    if cells_assigning_globally(cells, missing):
        return
    prefix = missing.split("_")[0] + "_"
    found = []
    for name in ("ans_scale", "ans_mask", "ans_cross_shapes", "ans_cross_causal", "ans_complexity"):
        if name == missing or not name.startswith(prefix):
            continue
        earlier = overwritten_bindings(cells, name)
        where = cells_assigning(cells, name)
        if earlier and len(set(where)) >= 2:   # set in two cells: the last one a copy
            last = cells[where[-1]]
            found.append((name, earlier[-1][0], last))
    if len(found) != 1:
        return
    name, before, last = found[0]
    lines = [ln.strip() for ln in last.splitlines() if ln.strip() and not ln.strip().startswith("#")]
    if len(lines) != 1:
        return
    raise Misconception("answer_cell_copied_name_kept", f"`{missing}` is not defined, and a cell of its own sets "
                        f"{name} again, `{lines[0][:60]}`, after the earlier `{before}`: "
                        + describe("answer_cell_copied_name_kept"))


LESSON_LITERAL_NODES = 200   # a tensor literal with more nodes than this is not read as a lesson matrix
LESSON_LITERALS = 8          # module-level tensor literals read, at most


def _lesson_literals(submission: object) -> list[tuple[str, torch.Tensor]]:
    """(name, value) of the notebook's module-level `name = torch.tensor([[...], ...], ...)` whose list is a
    literal of the lesson's shape (5 x 4), read with ast.literal_eval (bounded: LESSON_LITERAL_NODES nodes,
    LESSON_LITERALS bindings; the last binding of a name wins). Student text: parsed, never run."""
    from autograder.grading.source_checks import _parsed, cells_of
    found: dict[str, torch.Tensor] = {}
    for _number, tree in _parsed(tuple(cells_of(submission))).trees:
        for n in getattr(tree, "body", []):
            if not (isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)
                    and isinstance(n.value, ast.Call) and n.value.args and isinstance(n.value.args[0], ast.List)):
                continue
            func = n.value.func
            if not (isinstance(func, ast.Attribute) and func.attr in ("tensor", "Tensor", "as_tensor")):
                continue
            if sum(1 for _ in zip(range(LESSON_LITERAL_NODES + 1), ast.walk(n.value.args[0]))) > LESSON_LITERAL_NODES:
                continue
            try:
                value = torch.tensor(ast.literal_eval(n.value.args[0]), dtype=torch.float64)
            except (ValueError, TypeError, SyntaxError, RuntimeError, RecursionError):
                continue
            if tuple(value.shape) == (5, 4):
                found[n.targets[0].id] = value
            if len(found) >= LESSON_LITERALS:
                return list(found.items())
    return list(found.items())


def raise_if_lesson_matrix_mistyped(got: int, submission: object) -> None:
    """The lesson's Q or K typed with a wrong row (blind57 q11_lesson_query_row_retyped_from_key_row: the last query
    row [0, 0, 0.5, 0.5], copied from the last key row's pattern, for [0.5, 0.5, 0, 0]): the notebook binds two
    5 x 4 tensor literals, one exactly the lesson's K (or Q) and the other the lesson's Q (or K) with one or two rows
    different, and the rank of their S (replayed: matrix_rank of Q K^T) is the number given."""
    from autograder.grading.source_checks import cells_assigning, cells_of
    if submission is None:
        return
    cells = cells_of(submission)
    if not any("matrix_rank" in cells[i] for i in cells_assigning(cells, "rank_S_lesson")):
        return   # a typed number: no rank computed from the typed matrices
    lesson = dict(zip("QK", ref.lesson_qk()))
    literals = _lesson_literals(submission)
    for (qn, q), (kn, k) in ((a, b) for a in literals for b in literals if a[0] != b[0]):
        for typed, (tn, t), right in (("Q", (qn, q), k), ("K", (kn, k), q)):
            other = "K" if typed == "Q" else "Q"
            if not torch.equal(right, lesson[other]):
                continue
            rows = [i for i in range(5) if not torch.equal(t[i], lesson[typed][i])]
            if not 1 <= len(rows) <= 2 or int(torch.linalg.matrix_rank(q @ k.T)) != got:
                continue
            said = "; ".join(f"row {i + 1} is {[round(float(x), 4) for x in t[i]]} where the lesson's is "
                             f"{[round(float(x), 4) for x in lesson[typed][i]]}" for i in rows)
            raise Misconception("lesson_matrix_mistyped", f"rank_S_lesson is {got}, the rank of S for the {tn} your "
                                f"notebook types ({typed}): {said}; with the lesson's Q and K, S has rank "
                                f"{ref.rank_S_lesson}, so your rank computation is right, the matrix is not: "
                                + describe("lesson_matrix_mistyped"))


# --- naming round 58 (blind58) -----------------------------------------------------------------------

def _keep_converted(S: torch.Tensor, M: torch.Tensor) -> dict[str, torch.Tensor]:
    """M taken for a 1/0 keep mask, as the student's code runs it, in S's own dtype: Hugging Face's extended-mask
    conversion softmax(S + (1 - M) * finfo.min) (an additive mask's open entries get finfo.min added, its blocked
    ones overflow to -inf), or every entry whose 1 - M is not 0 blocked (masked_fill((1 - M).bool(), finfo.min):
    every entry of an additive mask, so all keys alike)."""
    low = torch.finfo(S.dtype).min
    return {"added": torch.softmax(S + (1.0 - M) * low, dim=-1),
            "filled": torch.softmax(S.masked_fill((1.0 - M) != 0, low), dim=-1)}


def raise_if_mask_converted(fn: Callable[..., object], S: torch.Tensor, M: torch.Tensor | None,
                            named: Misconception) -> None:
    """additive_mask_as_boolean for weights named uniform_weights whose cause is the keep-mask conversion
    (1 - M) * finfo.min run on the additive mask (blind58): a second call on the same S and M gives what that
    conversion gives, replayed in S's dtype (added to S, or its nonzero entries filled with finfo.min), and a third,
    on a small float64 S with a 1/0 keep mask (what that conversion is written for), gives softmax(S) over the kept
    keys only (S + M would give them e^1 of weight), where weights that ignore the scores stay flat. Nothing
    otherwise."""
    if named.key != "uniform_weights" or not isinstance(M, torch.Tensor) or not isinstance(S, torch.Tensor):
        return
    try:
        got = fn(S.clone(), M.clone())
        keep = (~KEEP_BLOCKED).double()
        probe = fn(KEEP_S.clone(), keep.clone())
    except StudentCodeError:
        return
    with torch.no_grad():
        replays = _keep_converted(S, M.to(S.dtype))
    hits = [k for k, want in replays.items() if bool(torch.isfinite(want).all()) and is_right(got, want, S.dtype)]
    if not hits:
        return
    kept = torch.softmax(KEEP_S.masked_fill(KEEP_BLOCKED, float("-inf")), dim=-1)
    if not is_right(probe, kept, torch.float64) or is_right(probe, torch.softmax(KEEP_S + keep, dim=-1), torch.float64):
        return
    if len(hits) == 2:   # M all 0 (or all 1 - M filled alike): the two readings give the same flat rows
        said = ("A is what taking M for a 1/0 keep mask gives (S + (1 - M) * finfo.min, Hugging Face's extended-mask "
                "step, or the entries where 1 - M is not 0 filled with finfo.min): every entry of this M is 0, read as "
                "'block', so every key is blocked alike and all get the same weight")
    elif "added" in hits:
        said = ("A is what converting M once more as a 1/0 keep mask gives, S + (1 - M) * finfo.min (Hugging Face's "
                "extended-mask step): every open entry gets finfo.min added, which swamps the scores, so the open keys "
                "all get the same weight")
    else:
        said = ("A is what reading M as a 1/0 keep mask gives, every entry where 1 - M is not 0 blocked: no entry of "
                "this M is 1, so every key is blocked and all get the same weight")
    raise Misconception("additive_mask_as_boolean", said + "; and with a 1/0 mask your weights are the softmax over "
                        "its 1 entries: " + describe("additive_mask_as_boolean") + "; it is already additive, so add "
                        "it as it is, S + M, with no conversion") from None


_AXIS_SWAPS = frozenset({"transpose", "swapaxes", "swapdims", "permute", "movedim", "moveaxis"})


def _swaps_first_two_axes(call_: ast.Call) -> bool:
    """A call that exchanges axes 0 and 1 (X.transpose(0, 1), torch.swapaxes(X, 1, 0), X.permute(1, 0, 2),
    X.movedim(0, 1)), read from its integer arguments."""
    ints = [a.value for a in call_.args if isinstance(a, ast.Constant) and type(a.value) is int]
    name = call_.func.attr if isinstance(call_.func, ast.Attribute) else getattr(call_.func, "id", "")
    if name == "permute":
        return ints[:2] == [1, 0]
    return sorted(ints[-2:]) == [0, 1]


def raise_if_sequence_first(got: object, X: torch.Tensor, W: tuple[torch.Tensor, ...], dtype: torch.dtype,
                            submission: object) -> None:
    """projection_sequence_first (blind58 q01_batched_input_moved_to_sequence_first_like_multihead_attention): a
    3-D X moved to nn.MultiheadAttention's (T, B, d_model) with X.transpose(0, 1) before projecting. Named where Q, K,
    V are all exactly the right ones with axes 0 and 1 exchanged (replayed) and the last `def project_qkv` exchanges
    axes 0 and 1 (transpose(0, 1), swapaxes, permute(1, 0, ...), movedim)."""
    if not (isinstance(got, (tuple, list)) and len(got) == 3 and X.dim() == 3 and X.shape[0] != X.shape[1]
            and submission is not None):
        return
    want = ref.project_qkv(X.double(), *(w.double() for w in W))
    if not all(type(g) is torch.Tensor and matching_variants(g, {"swapped": w.transpose(0, 1)}, dtype)
               for g, w in zip(got, want)):
        return
    from autograder.grading.pyparse import unparse
    from autograder.grading.source_checks import cells_of, last_function_def
    fn_def = last_function_def(cells_of(submission), "project_qkv", max_chars=20_000)
    found = [n for n in ast.walk(fn_def) if isinstance(n, ast.Call) and (
        getattr(n.func, "attr", None) in _AXIS_SWAPS or getattr(n.func, "id", None) in _AXIS_SWAPS)
        and _swaps_first_two_axes(n)] if fn_def is not None else []
    if not found:
        return
    B, T = X.shape[0], X.shape[1]
    raise Misconception("projection_sequence_first", f"Q, K, V have shape {tuple(got[0].shape)}, {tuple(got[1].shape)}, "
                        f"{tuple(got[2].shape)} for X {tuple(X.shape)} ({B} sequences of {T} tokens): the right values "
                        f"with the batch and token axes exchanged, what `{unparse(found[0])[:80]}` in project_qkv does "
                        "before projecting: " + describe("projection_sequence_first"))


_TRANSPOSES = frozenset({"T", "mT", "transpose", "t", "swapaxes", "swapdims", "permute"})


def _transposes_name(node: ast.AST, name: str) -> bool:
    """`name.T`, `name.mT`, `name.transpose(...)`, `name.t()`, or torch.transpose(name, ...) / torch.t(name)."""
    if isinstance(node, ast.Attribute) and node.attr in _TRANSPOSES and isinstance(node.value, ast.Name):
        return node.value.id == name
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and _transposes_name(node.func, name):
        return True   # the call quoted whole: Q.transpose(-2, -1)
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _TRANSPOSES
            and bool(node.args) and isinstance(node.args[0], ast.Name) and node.args[0].id == name
            and isinstance(node.func.value, ast.Name) and node.func.value.id == "torch")


def column_convention(fn: Callable[..., object], Q: torch.Tensor, K: torch.Tensor, submission: object,
                      said: str) -> Misconception | None:
    """scores_queries_transposed (blind58 q02_column_convention_transposes_queries_not_keys): S = Q^T K / sqrt(d_k),
    the column-vector formula on row-stored Q and K (a d_k x d_k matrix; a crash where T_q != T_k). Named where a
    call with as many keys as queries (the first min(T_q, T_k) tokens of each) gives exactly that, replayed, and the
    last `def scaled_scores` transposes its first parameter (Q.T, Q.transpose(-2, -1), Q.mT, torch.transpose(Q, ...))."""
    if submission is None or Q.dim() < 2 or K.dim() < 2 or Q.shape[-1] != K.shape[-1]:
        return None
    from autograder.grading.pyparse import unparse
    from autograder.grading.source_checks import cells_of, last_function_def
    fn_def = last_function_def(cells_of(submission), "scaled_scores", max_chars=20_000)
    if fn_def is None or not fn_def.args.args:
        return None
    q = fn_def.args.args[0].arg
    found = [n for n in ast.walk(fn_def) if _transposes_name(n, q)]
    if not found:
        return None
    n = min(Q.shape[-2], K.shape[-2])
    Qs, Ks = Q[..., :n, :], K[..., :n, :]
    try:
        out = fn(Qs, Ks)
    except StudentCodeError:
        return None
    d_k = Q.shape[-1]
    Q64, K64 = Qs.double(), Ks.double()
    want = Q64.transpose(-2, -1) @ K64 / math.sqrt(d_k)
    if not is_right(out, want, Q.dtype) or is_right(out, ref.scaled_scores(Q64, K64), Q.dtype):
        return None
    return Misconception("scores_queries_transposed", f"{said}; with as many keys as queries (Q {tuple(Qs.shape)}, K "
                         f"{tuple(Ks.shape)}) S has shape {tuple(out.shape)} (d_k x d_k, d_k = {d_k}) and is exactly "
                         f"Q^T K / sqrt(d_k), what `{unparse(found[0])[:80]}` in scaled_scores makes: "
                         + describe("scores_queries_transposed"))


# --- naming round 59 (blind59): a symptom patched, not the cause ------------------------------------------------------

def raise_if_weights_floored(got: object, expected: torch.Tensor, what: str) -> None:
    """Weights clamped from below (blind59's softmax(S + M).clamp(min=1e-6), a patch for the entropy's log(0)): every
    entry the right weight or the floor f > 0, whichever is larger, the entries whose right weight is below f exactly
    f (a clamp writes the floor itself). Told before float32_precision, which the 1e-6 floor on a 0 resembled."""
    if type(got) is not torch.Tensor or tuple(got.shape) != tuple(expected.shape) or not got.is_floating_point() \
            or got.numel() < 2:
        return
    g, e = got.detach().to(torch.float64), expected.detach().to(torch.float64)
    if not (bool(torch.isfinite(g).all()) and bool(torch.isfinite(e).all())):
        return
    floor = float(g.min())
    low = e < floor * (1 - 1e-4)   # well below it: not a rounding of the smallest entry
    if not (0.0 < floor < 0.5) or not bool(low.any()) or not bool((g[low] == floor).all()) \
            or not is_right(got, e.clamp(min=floor).to(got.dtype), got.dtype):
        return
    top = float(g.sum(dim=-1).max())
    raise Misconception("weights_floored_above_zero", f"{what} is the right weights with every weight below {floor:.3g} "
                        f"raised to {floor:.3g} ({int(low.sum())} of {low.numel()} entries, where the right weight is "
                        f"smaller or exactly 0), so rows sum up to {top:.9g}: " + describe("weights_floored_above_zero"))


_FLOOR_CALLS = frozenset({"clamp", "clamp_", "clamp_min", "clamp_min_", "clip", "clip_", "relu", "relu_", "maximum",
                          "fmax", "max"})


def _floor_at_zero(n: ast.AST) -> bool:
    """`x.clamp(min=0)`, `x.clamp(0)`, `torch.clamp(x, 0)`, `clamp_min(x, 0)`, `relu(x)`, `torch.maximum(x, zeros)`,
    `max(h, 0)`: a call that raises the negative values to 0 (a clamp with only max= lowers, and is not this)."""
    if not isinstance(n, ast.Call):
        return False
    name = n.func.attr if isinstance(n.func, ast.Attribute) else n.func.id if isinstance(n.func, ast.Name) else ""
    if name not in _FLOOR_CALLS:
        return False
    def zero(a: ast.AST) -> bool:
        return isinstance(a, ast.Constant) and type(a.value) in (int, float) and a.value == 0

    kw = {k.arg: k.value for k in n.keywords}
    if name.startswith(("clamp", "clip")):   # the floor is 0 itself: clamp(min=1e-12) guards a log, it is not this
        return ("max" not in kw or "min" in kw) and (zero(kw["min"]) if "min" in kw else any(zero(a) for a in n.args[:2]))
    if name == "max":   # the builtin over a number and 0, not torch.max(x) (a maximum, not a floor)
        return isinstance(n.func, ast.Name) and len(n.args) == 2 and any(zero(a) for a in n.args)
    return True


def raise_if_entropy_sign_clamped(got: object, A: torch.Tensor, submission: object, what: str) -> None:
    """Every entropy 0 where the right ones are not, and the notebook's row_entropy_bits raises its result to 0 (a
    clamp(min=0), relu, maximum, max(..., 0)): the minus sign left out, sum p log2 p <= 0, and the negative entropies
    clamped at 0 instead of negated (blind59). The replay, (A log2 A).sum(-1).clamp(min=0), is all 0; the clamp in
    the source is what tells it from a factor of 0."""
    from autograder.grading.pyparse import unparse
    from autograder.grading.source_checks import cells_of, last_function_def
    if type(got) is not torch.Tensor or not got.is_floating_point() or bool(got.detach().any()) \
            or not bool(torch.isfinite(got).all()):
        return
    P = A.detach().to(torch.float64)
    replay = torch.where(P > 0, P * torch.log2(P.clamp(min=1e-300)), 0.0).sum(dim=-1).clamp(min=0.0)
    right = ref.row_entropy_bits(P)
    if tuple(got.shape) != tuple(right.shape) or not bool(right.abs().max() > 1e-3) or bool(replay.any()):
        return
    node = last_function_def(cells_of(submission), "row_entropy_bits", 4000) if submission is not None else None
    clamp = next((n for n in ast.walk(node) if _floor_at_zero(n)), None) if node is not None else None
    if clamp is None:
        return
    raise Misconception("entropy_sign", f"{what} is 0 in every row: sum p log2 p, without the minus sign, is at most 0, "
                        f"and `{unparse(clamp)[:70]}` raises it to 0 (the largest right entropy is "
                        f"{float(right.max()):.3g} bits): " + describe("entropy_sign")
                        + "; negate the sum (-(p log2 p).sum) instead of clamping it")


_CUT_OPS = {ast.Gt: "gt", ast.GtE: "ge", ast.Lt: "lt", ast.LtE: "le"}


def _weight_cuts(node: ast.AST) -> list[tuple[ast.Compare, float]]:
    """The comparisons `x > c`, `x >= c`, `c < x`, `c <= x` in `node` with c a number strictly between 0 and 1
    (a cut-off on a weight: A > 1e-2), each with its c; `A > 0` is no cut-off."""
    cuts = []
    for n in ast.walk(node):
        if not (isinstance(n, ast.Compare) and len(n.ops) == 1 and type(n.ops[0]) in _CUT_OPS):
            continue
        left, right, op = n.left, n.comparators[0], type(n.ops[0])
        const, keeps_above = (right, op in (ast.Gt, ast.GtE)) if isinstance(right, ast.Constant) else (left, op in (ast.Lt, ast.LtE))
        if isinstance(const, ast.Constant) and type(const.value) in (int, float) and 0 < const.value < 1 and keeps_above:
            cuts.append((n, float(const.value)))
    return cuts


def raise_if_small_weights_dropped(got: object, A: torch.Tensor, submission: object, what: str) -> None:
    """entropy_small_weights_dropped (blind85's `visible = A > 1e-2` guard): H equal to the entropy with every
    weight at or below a cut-off c left out, where the notebook's row_entropy_bits compares a weight with that c
    (0 < c < 1) and some positive weight of A lies at or below it. Only the replay with the source's own c names
    it; a cut that drops nothing here, or an H that is not that replay, is left to the value check."""
    from autograder.grading.pyparse import unparse
    from autograder.grading.source_checks import cells_of, last_function_def
    if type(got) is not torch.Tensor or not got.is_floating_point() or submission is None:
        return
    P = A.detach().to(torch.float64)
    right = ref.row_entropy_bits(P)
    if tuple(got.shape) != tuple(right.shape) or is_right(got, right, torch.float64):
        return
    node = last_function_def(cells_of(submission), "row_entropy_bits", 4000)
    for cmp, c in _weight_cuts(node) if node is not None else []:
        if not bool(((P > 0) & (P <= c)).any()):
            continue
        for keep in (P > c, P >= c):
            replay = -torch.where(keep, P * torch.log2(P.clamp(min=1e-300)), 0.0).sum(dim=-1)
            if is_right(got, replay, got.dtype):
                raise Misconception("entropy_small_weights_dropped", f"{what} is the entropy with every weight below "
                                    f"{c:g} left out (`{unparse(cmp)[:50]}`): " + describe("entropy_small_weights_dropped"))


_RANK_CALLS = frozenset({"matrix_rank", "svdvals", "svd", "matrix_norm", "eigvals", "eigvalsh", "qr"})


def raise_if_rank_of_half_scores(got: int, submission: object, d_k: int) -> None:
    """max_rank_S above d_k, measured by a rank call that the cell's last `max_rank_S = ...` reads, in a cell that
    computes in float16 or bfloat16 (.half(), torch.float16, torch.half, .bfloat16()): the rounding errors of the
    float16 products counted as rank (blind59's matrix_rank(S.float()) of S = Q.half() @ K.half().T, 84 for d_k = 8).
    The rank of Q K^T is at most d_k, so a count above it is noise; the float16 in the cell says whose."""
    if got <= d_k:
        return
    last = None
    for tree in _cell_trees(submission):
        for node in tree.body:
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "max_rank_S" for t in node.targets):
                last = (tree, node.value)
    if last is None:
        return
    tree, value = last

    def is_rank(n: ast.AST) -> bool:
        return isinstance(n, ast.Call) and isinstance(n.func, (ast.Attribute, ast.Name)) and (
            n.func.attr if isinstance(n.func, ast.Attribute) else n.func.id) in _RANK_CALLS

    def is_half(n: ast.AST) -> bool:
        return (isinstance(n, ast.Attribute) and n.attr in ("half", "float16", "bfloat16")) or (
            isinstance(n, ast.Constant) and n.value in ("float16", "half", "bfloat16"))

    if not _reaches(value, _bindings(tree), is_rank, set()) or not any(is_half(n) for n in ast.walk(tree)):
        return
    raise Misconception("rank_counts_half_rounding", f"max_rank_S is {got}, above d_k = {d_k} (S = Q K^T passes "
                        f"through d_k dimensions, so its rank is at most {d_k}), and your cell measures it on scores "
                        "computed in float16: " + describe("rank_counts_half_rounding"))


# naming round 60 (blind60: rewrites that broke it) -------------------------------------------------------------------

STATE_DEF_CHARS = 4000   # a def longer than this is not read for the state it keeps
_MUTABLE_MAKERS = frozenset({"list", "dict", "set", "defaultdict", "OrderedDict"})
_CACHE_DECORATORS = frozenset({"cache", "lru_cache", "cached", "memoize", "memoise"})


def builtin_sum_called() -> bool:
    """Whether the notebook calls Python's builtin `sum` anywhere (a bare `sum(...)`): the evidence the
    builtin_sum_over_tensor replays need besides their numbers. On a 2-D tensor `E.sum(dim=-2)` (a wrong dim written
    out) gives the same numbers as `sum(E)`, and was told "Python's builtin sum(t) does that" (the scan after naming
    round 72: blind33's q05_denominator_summed_over_queries). Read from the notebook's one cached parse
    (source_checks._parsed: every call of every cell), never run."""
    from autograder.grading.source_checks import _parsed, cells_of
    submission = current_submission()
    if submission is None:
        return False
    return any(isinstance(call.func, ast.Name) and call.func.id == "sum"
               for call, _chain in _parsed(tuple(cells_of(submission))).calls)


def current_submission() -> object:
    """The notebook's source the runner holds for the test now running (None outside one)."""
    return checks.running_submission()


def _def_of(submission: object, func: str) -> ast.FunctionDef | None:
    from autograder.grading.source_checks import cells_of, last_function_def
    if submission is None:
        submission = current_submission()
    return last_function_def(cells_of(submission), func, STATE_DEF_CHARS) if submission is not None else None


_FILLS = frozenset({"append", "extend", "insert", "setdefault", "update", "add", "__setitem__"})


def _stores_value(node: ast.FunctionDef, name: str) -> bool:
    """Whether `node` puts a value into `name` that a later call can read back: an entry stored or filled
    (`name[k] = ...`, name.append / setdefault / update ...), or `name = value` with a value that does not read `name`
    itself (a counter `calls += 1` keeps a count, not a value of the computation)."""
    def reads(value: ast.AST) -> bool:
        return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(value))
    for n in ast.walk(node):
        if isinstance(n, (ast.Assign, ast.AnnAssign)):
            targets = n.targets if isinstance(n, ast.Assign) else [n.target]
            for t in targets:
                if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id == name:
                    return True
                if isinstance(t, ast.Name) and t.id == name and n.value is not None and not reads(n.value):
                    return True
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _FILLS \
                and isinstance(n.func.value, ast.Name) and n.func.value.id == name:
            return True
    return False


def kept_state(submission: object, func: str, written: bool = False) -> str | None:
    """The construct by which the notebook's last `def func` keeps a value from one call to the next, quoted: a
    mutable default (`_memo={}`, `_scale=[]`, `cache=dict()`), a `global` / `nonlocal` statement, or a cache
    decorator (functools.cache, lru_cache); None where it has none (or no def is readable). `written`: only a
    default or a global the def stores a value into (_stores_value), and no decorator (red-team round 107: a
    read-only `global D_K`, a call counter or an lru_cache beside a scale typed in was told a scale kept between calls;
    a cache of whole results keyed on the tensors cannot hand one scale to inputs of another d_k)."""
    node = _def_of(submission, func)
    if node is None:
        return None
    args = node.args
    named = args.args[len(args.args) - len(args.defaults):] if args.defaults else []
    pairs = [*zip(named, args.defaults), *((a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None)]
    for arg, default in pairs:
        if (isinstance(default, (ast.List, ast.Dict, ast.Set)) or (
                isinstance(default, ast.Call) and _callee(default) in _MUTABLE_MAKERS)) \
                and (not written or _stores_value(node, arg.arg)):
            return f"the mutable default `{arg.arg}={pyparse_unparse(default)[:40]}`"
    for n in ast.walk(node):
        if isinstance(n, (ast.Global, ast.Nonlocal)) and (not written or any(_stores_value(node, x) for x in n.names)):
            return f"`{pyparse_unparse(n)[:60]}`"
    for d in node.decorator_list if not written else ():
        target = d.func if isinstance(d, ast.Call) else d
        name = target.attr if isinstance(target, ast.Attribute) else target.id if isinstance(target, ast.Name) else ""
        if name in _CACHE_DECORATORS:
            return f"the decorator `@{pyparse_unparse(d)[:40]}`"
    return None


def _constant_factor(out: object, QK: torch.Tensor) -> float | None:
    """c where `out` is c * QK to float precision (QK not all zero), else None."""
    if type(out) is not torch.Tensor or tuple(out.shape) != tuple(QK.shape) or not out.is_floating_point():
        return None
    o = out.detach().to(torch.float64)
    if not bool(torch.isfinite(o).all()) or not bool(QK.abs().amax() > 1e-6):
        return None
    i = int(QK.abs().argmax())
    c = float(o.reshape(-1)[i] / QK.reshape(-1)[i])
    return c if torch.allclose(o, QK * c, rtol=1e-4, atol=1e-5) else None


def raise_if_scale_cached(fn: Callable[..., object], Q: torch.Tensor, K: torch.Tensor, what: str) -> None:
    """S = Q K^T times one factor that does not follow the head size: two more calls, d_k = 3 and d_k = 7, give Q K^T
    times the same factor as this input's d_k (not 1/sqrt of either), and the notebook's scaled_scores keeps state
    between calls (a mutable default, a global, a cache decorator): the scale worked out once (on the cell's own
    demo call) and reused for every later head size (blind60's `_scale=[]`). A constant typed in (S / 2) has no
    state and is not named so; a scale read from Q.ndim changes with the number of axes, not between these calls."""
    state = kept_state(None, "scaled_scores", written=True)
    if state is None:
        return
    Q64, K64 = Q.detach().double(), K.detach().double()
    try:
        c = _constant_factor(fn(Q, K), Q64 @ K64.transpose(-2, -1))
    except StudentCodeError:
        return
    if c is None or math.isclose(c, 1 / math.sqrt(Q.shape[-1]), rel_tol=1e-4):
        return
    g = torch.Generator().manual_seed(60)
    for d in (3, 7):
        q = torch.randn(4, d, dtype=torch.float64, generator=g).to(Q.dtype)
        k = torch.randn(5, d, dtype=torch.float64, generator=g).to(Q.dtype)
        try:
            c2 = _constant_factor(fn(q, k), q.double() @ k.double().T)
        except StudentCodeError:
            return
        if c2 is None or not math.isclose(c2, c, rel_tol=1e-3) or math.isclose(c2, 1 / math.sqrt(d), rel_tol=1e-4):
            return
    m = 1 / (c * c)
    as_root = f" = 1/sqrt({round(m)})" if c > 0 and abs(m - round(m)) < 1e-3 * max(1.0, m) else ""
    raise Misconception("scale_cached_first_call", f"{what} is Q K^T times {c:.4g}{as_root} here (d_k = {Q.shape[-1]}), "
                        "and times the same factor for d_k = 3 and for d_k = 7: the scale does not follow the head "
                        f"size, and your scaled_scores keeps a value between calls ({state}): " + describe(
                            "scale_cached_first_call"))


def ndim_scale_confirmed(fn: Callable[..., object], Q: torch.Tensor, K: torch.Tensor) -> bool:
    """Whether a 2-D slice of Q and K (ndim 2, d_k the same) gives Q K^T / sqrt(2): a scale by sqrt(Q.ndim) on 4-D
    inputs is sqrt(4) = 2, which any factor of 1/2 also gives (a cached one, blind60); a second number of axes tells."""
    q, k = Q[(0,) * (Q.dim() - 2)], K[(0,) * (K.dim() - 2)]
    if 2 in q.shape or 2 in k.shape:
        return True   # no probe tells: keep what the variant named (its own guard left sizes equal to ndim out)
    try:
        c = _constant_factor(fn(q, k), q.double() @ k.double().transpose(-2, -1))
    except StudentCodeError:
        return False
    return c is not None and math.isclose(c, 1 / math.sqrt(2), rel_tol=1e-3)


def check_count_wo_when_square(fn: Callable[..., object], d_model: int, d_k: int, d_v: int = 0,
                               earlier: object = None) -> None:
    """q12: qkv_param_count(d_model, d_k, d_model, with_output=True), right where d_v != d_model (the test's first
    call), asked with d_v = d_model: W_O is still a d_v x d_model matrix of weights. Named
    param_count_wo_skipped_when_square where the answer is the count without W_O (d_model^2 short): a guard that
    leaves W_O out when it would map d_model to d_model (blind88); memo_key_missing_argument where it is `earlier`,
    the right answer of the test's call with d_v just before, and the same call with sizes never asked is right (a
    memo keyed on (d_model, d_k): round 60's kind, asked again here); anything else wrong is said."""
    try:
        got = fn(d_model, d_k, d_model, with_output=True)
    except (StudentCodeError, TypeError):
        got = None
    want = ref.qkv_param_count(d_model, d_k, d_model, True)
    if type(got) in (int, float) and got == want:
        return
    shown = f"qkv_param_count({d_model}, {d_k}, {d_model}, with_output=True)"
    if type(got) in (int, float) and got == ref.qkv_param_count(d_model, d_k, d_model):
        raise Misconception("param_count_wo_skipped_when_square", f"{shown}, d_v = d_model, gives {got}, the count "
                            f"without W_O, {d_model * d_model} short (with d_v != d_model your count is right): "
                            + describe("param_count_wo_skipped_when_square"))
    if type(got) in (int, float) and type(earlier) in (int, float) and got == earlier and d_v:
        fresh = (d_model + 13, d_k + 3, d_model + 13)
        try:
            fresh_right = fn(*fresh, with_output=True) == ref.qkv_param_count(*fresh, True)
        except (StudentCodeError, TypeError):
            fresh_right = False
        if fresh_right:
            raise Misconception("memo_key_missing_argument", f"qkv_param_count({d_model}, {d_k}, {d_v}, "
                                f"with_output=True) is right ({earlier}), and called next with d_v = {d_model} (only "
                                f"d_v changed) it gives {got} again instead of {want}; with sizes it was never asked "
                                "for, the same call is right: " + describe("memo_key_missing_argument"))
    raise AssertionError(f"{shown}, d_v = d_model, gives {got!r}, not {want}")


def raise_if_memo_key_short(fn: Callable[..., object], d_model: int, d_k: int, d_v: int) -> None:
    """qkv_param_count right for (d_model, d_k, d_v) and then asked again with one argument changed (d_v, then
    with_output): a count is a pure function of all four, so a second answer that is wrong and equals the answer of
    the call before it, while the same arguments under sizes never asked before are counted right, is a memo whose
    key leaves that argument out (blind60's `_memo` keyed on (d_model, d_k)). Four calls at most."""
    def count(*args: int, with_output: bool = False) -> object:
        try:
            return fn(*args, with_output=with_output)
        except (StudentCodeError, TypeError):
            return None
    first = count(d_model, d_k, d_v)
    if first != ref.qkv_param_count(d_model, d_k, d_v):
        return
    for change, args, flag in (("d_v", (d_model, d_k, d_v + 7), False), ("with_output", (d_model, d_k, d_v), True)):
        got = count(*args, with_output=flag)
        want = ref.qkv_param_count(*args, flag)
        if type(got) not in (int, float) or got == want or got != first:
            continue
        fresh = (d_model + 13, d_k + 3, args[2])
        if count(*fresh, with_output=flag) != ref.qkv_param_count(*fresh, flag):
            return
        state = kept_state(None, "qkv_param_count")
        shown = "with_output=True" if flag else f"d_v = {args[2]}"
        raise Misconception("memo_key_missing_argument", f"qkv_param_count({d_model}, {d_k}, {d_v}) is right "
                            f"({first}), and called next with {shown} (only {change} changed) it gives {got} again "
                            f"instead of {want}; with sizes it was never asked for, the same call is right"
                            + (f" (your function keeps {state})" if state else "") + ": "
                            + describe("memo_key_missing_argument"))


def _floor_division(n: ast.AST) -> bool:
    """`a // b`, or int(a / b) / math.floor(a / b): a count of whole blocks."""
    if isinstance(n, ast.BinOp) and isinstance(n.op, ast.FloorDiv):
        return True
    return isinstance(n, ast.Call) and _callee(n) in ("int", "floor") and len(n.args) == 1 and isinstance(
        n.args[0], ast.BinOp) and isinstance(n.args[0].op, ast.Div)


def whole_blocks_range(func: str) -> str | None:
    """The `range(...)` call, quoted, that counts whole blocks (range(T // chunk), range(int(T / chunk))) in the
    notebook's last `def func` of the test now running; None where it has none."""
    node = _def_of(None, func)
    if node is None:
        return None
    counts = {t.id for n in ast.walk(node) if isinstance(n, ast.Assign) and any(map(_floor_division, ast.walk(n.value)))
              for t in n.targets if isinstance(t, ast.Name)}   # n_blocks = T // chunk, then range(n_blocks)
    for n in ast.walk(node):
        if isinstance(n, ast.Call) and _callee(n) == "range" and any(
                _floor_division(m) or isinstance(m, ast.Name) and m.id in counts for a in n.args for m in ast.walk(a)):
            return pyparse_unparse(n)[:60]
    return None


def whole_block_cuts(n: int) -> list[int]:
    """Where a loop over range(n // chunk) blocks of `chunk` stops, for the chunk sizes 2..64 and one past n: the
    sizes m < n it covers ((n // chunk) * chunk), 0 when the block is larger than n."""
    return sorted({(n // c) * c for c in range(2, min(n, 64) + 2)} - {n})


def chunked_weights_variants(S: torch.Tensor, M: torch.Tensor | None) -> dict[str, torch.Tensor]:
    """The softmax written over blocks of query rows with range(T_q // chunk) (blind60): the rows past the last whole
    block are never written and stay zero. Replayed only where attention_weights has such a range; the last row of
    every block left at zero where it slices [start:start + chunk - 1] (block_last_row_cut_variants)."""
    if S.dim() < 2 or S.shape[-2] > 4096:
        return {}
    A = torch.softmax(S if M is None else S + M, dim=-1)
    out = dict(block_last_row_cut_variants(A, "attention_weights"))
    if whole_blocks_range("attention_weights") is None:
        return out
    for m in whole_block_cuts(S.shape[-2]):
        cut = A.clone()
        cut[..., m:, :] = 0
        out[f"chunk_remainder_dropped/rows{m}"] = cut
    return out


def chunked_nw_variants(q: torch.Tensor, K: torch.Tensor, V: torch.Tensor) -> dict[str, torch.Tensor]:
    """Nadaraya-Watson summed over blocks of keys with range(T // chunk) (blind60): the last T % chunk keys are left
    out of numerator and denominator alike. Replayed only where nadaraya_watson has such a range."""
    if K.dim() != 2 or K.shape[0] > 4096 or whole_blocks_range("nadaraya_watson") is None:
        return {}
    kappa = torch.exp(K @ q / math.sqrt(q.shape[-1]))
    return {f"chunk_remainder_dropped/keys{m}": (kappa[:m] @ V[:m]) / kappa[:m].sum()
            for m in whole_block_cuts(K.shape[0]) if m > 0}


def _unshared_sum_equation(n: ast.AST) -> str | None:
    """An einsum's equation string (`'td,sk->ts'`) where each of two operands has a letter summed out (absent from
    the output) that the other operand does not have: two separate sums, then an outer product, not a contraction."""
    if _called(n) != "einsum" or not n.args or not isinstance(n.args[0], ast.Constant) \
            or not isinstance(n.args[0].value, str) or len(n.args[0].value) > 40:
        return None
    eq = n.args[0].value.replace(" ", "")
    if eq.count("->") != 1 or "." in eq:
        return None
    ins, out = eq.split("->")
    ops = ins.split(",")
    if len(ops) != 2 or not all(op.isalpha() for op in ops) or not (out.isalpha() or out == ""):
        return None
    own = [set(a) - set(out) - set(b) for a, b in (ops, ops[::-1])]
    return eq if all(own) else None


def raise_if_rank_einsum_letters_differ(got: int, submission: object, name: str) -> None:
    """A rank of 1 measured by the matrix_rank call that the cell's last `name = ...` reads, of an einsum whose two
    operands each sum out a letter of their own (blind60's 'td,sk->ts'): S is the outer product of Q's and K's row
    sums, rank 1 whatever Q and K are; the same feature letter on both sides was meant."""
    if got != 1:
        return
    last = _last_assignment(submission, name)
    if last is None:
        return
    value, bound = last
    calls: list[ast.AST] = []
    _reaches(value, bound, lambda n: _called(n) == "matrix_rank" and not calls.append(n) and False, set())
    found: list[str] = []
    seen: set[str] = set()   # shared by the calls: 1000 calls of one 5000-term binding walked it 1000 times (rt 107)
    for call_ in calls:
        if _reaches(call_, bound, lambda n: bool(_unshared_sum_equation(n)) and not found.append(
                _unshared_sum_equation(n) or ""), seen):
            break
    if not found:
        return
    raise Misconception("rank_einsum_letters_differ", f"{name} is 1, the rank your cell measures of an einsum "
                        f"'{found[0]}', whose operands each sum out a letter the other does not have: "
                        + describe("rank_einsum_letters_differ"))


_EXPANDS = frozenset({"expand", "expand_as", "broadcast_to"})


def inplace_after_expand(func: str) -> str | None:
    """The in-place call (`x.tril_()`, `x.div_(...)`, `masked_fill_`) or augmented assignment, quoted, in the
    notebook's last `def func` of the test now running, where that def also expands (expand, expand_as,
    broadcast_to); None otherwise."""
    node = _def_of(None, func)
    if node is None or not any(_called(n) in _EXPANDS for n in ast.walk(node)):
        return None
    for n in ast.walk(node):
        name = _called(n)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and name.endswith("_") \
                and not name.startswith("_") or isinstance(n, ast.AugAssign):
            return pyparse_unparse(n)[:60]
    return None


def expanded_prefix_variants(T: int) -> dict[str, torch.Tensor]:
    """The prefix average built by writing in place into an expanded (stride-0) tensor, replayed with torch itself
    (blind60's `recip[:, None].expand(T, T).tril_()`): the zeros land on the one number a row (or a column) shares.
    Only where prefix_average_matrix expands and writes in place; a torch that refuses the write gives none."""
    if T > 512 or inplace_after_expand("prefix_average_matrix") is None:
        return {}
    t = torch.arange(1, T + 1, dtype=torch.float64)
    makers = {
        "column_tril": lambda: (1.0 / t)[:, None].expand(T, T).tril_(),
        "ones_column_tril_div": lambda: torch.ones(T, 1, dtype=torch.float64).expand(T, T).tril_() / t[:, None],
        "ones_row_tril_div": lambda: torch.ones(1, T, dtype=torch.float64).expand(T, T).tril_() / t[:, None],
        "ones_tril_div_in_place": lambda: torch.ones(1, 1, dtype=torch.float64).expand(T, T).tril_().div_(t[:, None]),
    }
    out = {}
    for key, make in makers.items():
        try:
            out[f"inplace_on_expanded/{key}"] = make().clone()
        except RuntimeError:
            continue
    return out


_FLATTENS = frozenset({"reshape", "view", "flatten", "contiguous_view"})


def restored_layout_variants(X: torch.Tensor, W: tuple[torch.Tensor, ...]) -> dict[str, tuple[torch.Tensor, ...]]:
    """X's batch flattened into rows for one 2-D product (X.reshape(-1, d_model) @ W, batch-major) and the result
    restored in another order of the axes (blind60's Z.reshape(T, *lead, d).movedim(0, -2)): for each order of
    (*batch, T) but X's own, the rows reshaped in that order and the axes moved back to (*batch, T, d), replayed.
    Only where project_qkv reshapes (reshape, view, flatten) and X has 1 to 3 batch axes."""
    import itertools
    lead = X.dim() - 2
    if not 1 <= lead <= 3 or X.numel() > 1 << 20:
        return {}
    node = _def_of(None, "project_qkv")
    if node is None or not any(_called(n) in _FLATTENS for n in ast.walk(node)):
        return {}
    sizes = tuple(X.shape[:-1])
    rows = [X.reshape(-1, X.shape[-1]) @ w for w in W]
    out: dict[str, tuple[torch.Tensor, ...]] = {}
    for order in itertools.permutations(range(lead + 1)):
        if order == tuple(range(lead + 1)):
            continue
        back = [order.index(i) for i in range(lead + 1)]
        if [i for i in order if sizes[i] > 1] == [i for i in range(lead + 1) if sizes[i] > 1]:
            continue   # only size-1 axes moved: the same layout, the right result
        out["batch_restored_wrong_layout/" + "".join(map(str, order))] = tuple(
            r.reshape(*(sizes[i] for i in order), r.shape[-1]).permute(*back, lead + 1) for r in rows)
    return out


# --- naming round 61: a library's documented behaviour misread ----------------------------------------------------

_SPLIT_SIZES = re.compile(r"split_with_sizes expects split_sizes to sum exactly to (\d+)[^\n]{0,120}?got "
                          r"split_sizes=\[([\d, ]{1,60})\]")


def split_cut_points_crash(e: StudentCodeError, fn: Callable[..., object], X: torch.Tensor,
                           W: tuple[torch.Tensor, ...]) -> Misconception | None:
    """project_qkv's split crash named split_given_cut_points (blind61) where the sizes torch's message reports are
    the cut points of [d_k, d_k, d_v] (the offsets where Q and K end, [d_k, 2 d_k], as tensor_split takes them), and
    either they end at the fused width (2 d_k + d_v, the last offset too: nothing else reads so) or a second call with
    d_v = d_k (where [d_k, 2 d_k] sums to the width) gives two pieces where three are unpacked or returned."""
    d_k, d_v = W[0].shape[-1], W[2].shape[-1]
    m = _SPLIT_SIZES.search(e.message or "") if e.exc_type == "RuntimeError" and W[1].shape[-1] == d_k else None
    if m is None or int(m.group(1)) != 2 * d_k + d_v or d_v == d_k:
        return None
    sizes = [int(s) for s in m.group(2).replace(" ", "").split(",") if s.isdigit()]
    cuts = [d_k, 2 * d_k, 2 * d_k + d_v]
    if len(sizes) < 2 or sizes != cuts[:len(sizes)]:
        return None
    said = f"{_said(e)}: [{m.group(2)}] are where Q and K end (cut points), not the widths of the pieces"
    if len(sizes) < 3:
        try:
            out = fn(X, W[0], W[1], randn_like_width(W[2], W[2].shape[-2], d_k))
        except StudentCodeError as again:
            if not (again.exc_type == "ValueError" and "expected 3, got 2" in (again.message or "")):
                return None
            said += (f"; with d_v = d_k = {d_k}, where they add up to the width 3 d_k, it runs the split and gets "
                     f"two pieces for three names ({again.exc_type}: {(again.message or '').splitlines()[0][:80]})")
        else:
            if not (isinstance(out, (tuple, list)) and len(out) == 2):
                return None
            said += f"; with d_v = d_k = {d_k}, where they add up to the width, it returns two pieces, not three"
    return Misconception("split_given_cut_points", f"{said}: " + describe("split_given_cut_points"))


def nw_logsumexp_variants(q: torch.Tensor, K: torch.Tensor, V: torch.Tensor) -> dict[str, torch.Tensor]:
    """The weighted values divided by torch.logsumexp of the scores, the LOG of the kernels' sum taken for a stable
    sum of them (blind61), scaled scores or unscaled ones; only where it is not the right row."""
    s = K @ q / math.sqrt(q.shape[-1])
    kappa = torch.exp(s)
    right = (kappa[:, None] * V).sum(0) / kappa.sum()
    out = {}
    for key, lse in (("nw_denominator_logsumexp", torch.logsumexp(s, dim=0)),
                     ("nw_denominator_logsumexp/unscaled", torch.logsumexp(K @ q, dim=0))):
        row = (kappa[:, None] * V).sum(0) / lse
        if torch.isfinite(row).all() and not torch.allclose(row, right, rtol=1e-4, atol=1e-6):
            out[key] = row
    return out


_INDEXED_REDUCTIONS = frozenset({"max", "min", "sort", "topk", "kthvalue", "mode", "median"})


def raise_if_rank_from_max_indices(got: int, submission: object, name: str) -> None:
    """max_rank_S read as the second entry of torch.max(ranks, dim) (blind61): the pair is (values, indices), so [1]
    (or .indices) is where the largest sampled rank sits. Named where the answer is a valid index (0 up to the samples
    drawn, below the right 8) and the notebook's last assignment of `name` reads a [1] or .indices of a max / min /
    sort / topk ... call (in it, or through names its cell bound)."""
    if not 0 <= got < ref.max_rank_S:
        return
    last = _last_assignment(submission, name)
    if last is None:
        return
    value, bound = last
    hits: list[ast.AST] = []

    def reduction(n: ast.AST) -> bool:   # a pair for sure: sort, topk, kthvalue, mode always; max, min, median given
        if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _INDEXED_REDUCTIONS):
            return False   # a dim (torch.max(x, 0), x.max(0), dim=0); a bare max(...) is Python's own
        named = isinstance(n.func.value, ast.Name) and n.func.value.id == "torch"
        return n.func.attr in ("sort", "topk", "kthvalue", "mode") or any(k.arg == "dim" for k in n.keywords) \
            or len(n.args) >= (2 if named else 1)

    def pair(n: ast.AST) -> bool:   # the call itself, or a name the cell bound to one (`_best = torch.max(x, 0)`)
        return reduction(n) or isinstance(n, ast.Name) and any(reduction(v) for v in bound.get(n.id, [])[-3:])

    def picks_index(n: ast.AST) -> bool:
        if isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Constant) and n.slice.value in (1, -1) \
                and pair(n.value):
            hits.append(n)
        elif isinstance(n, ast.Attribute) and n.attr == "indices" and pair(n.value):
            hits.append(n)
        return bool(hits)
    if not _reaches(value, bound, picks_index, set()):
        return
    from autograder.grading.pyparse import unparse
    raise Misconception("max_indices_read_as_values", f"{name} is {got}, and `{unparse(hits[0])[:70]}` takes the "
                        "second entry of a (values, indices) pair: the position of the largest sampled rank, not the "
                        f"rank (the bound here is {ref.max_rank_S}): " + describe("max_indices_read_as_values"))


def raise_if_module_list_repeated(func: str) -> None:
    """A count that matches W_K left out, where the notebook's last `def func` (read up to STATE_DEF_CHARS) builds a
    list of ONE module call times a number (`[nn.Linear(d_model, d_k)] * 2`, blind61): the list holds that one module
    twice, and parameters() yields the shared weight once. Named so (the cause) instead of param_count_no_wk."""
    node = _def_of(None, func)
    if node is None:
        return

    def one_module(n: ast.AST) -> bool:
        return isinstance(n, ast.List) and len(n.elts) == 1 and isinstance(n.elts[0], ast.Call) \
            and (_callee(n.elts[0]) or "")[:1].isupper()

    def count(n: ast.AST) -> bool:
        return isinstance(n, ast.Name) or isinstance(n, ast.Constant) and type(n.value) is int and n.value > 1
    for n in ast.walk(node):
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mult) and (
                one_module(n.left) and count(n.right) or one_module(n.right) and count(n.left)):
            from autograder.grading.pyparse import unparse
            raise Misconception("module_list_repeated", f"the count matches W_K left out: `{unparse(n)[:70]}` is a "
                                "list holding ONE module several times (the same layer, one weight), and parameters() "
                                "yields a shared weight once: " + describe("module_list_repeated"))


# --- blind62: conventions carried over from other sources ---------------------------------------------------------

def _int_constant(n: ast.AST, bound: Mapping[str, list[ast.AST]], hops: int = 8) -> int | None:
    """The whole number `n` is: an int literal, or a name the cell last bound to one (followed up to `hops` names)."""
    while hops > 0 and isinstance(n, ast.Name) and bound.get(n.id):
        n, hops = bound[n.id][-1], hops - 1
    if isinstance(n, ast.Constant) and type(n.value) in (int, float) and float(n.value).is_integer():
        return int(n.value)
    return None


def raise_if_paper_head_split(got: int, submission: object, name: str, d_k: int) -> None:
    """max_rank_S as d_model / h of another model (blind62's `_d_k = 512 // 8`, then min(100, _d_k)): the question's
    d_k = 8 read as the paper's h = 8 heads. Named where the answer, above d_k, is N / 8 for a whole number N that a
    division (/ or //) reached by the notebook's last assignment of `name` divides by 8 (a literal, or a name its cell
    bound to 8) with no remainder: the value and the division in the source both."""
    if got <= d_k:
        return
    last = _last_assignment(submission, name)
    if last is None:
        return
    value, bound = last
    found: list[ast.AST] = []

    def division(n: ast.AST) -> bool:
        if isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Div, ast.FloorDiv)) \
                and _int_constant(n.right, bound) == d_k:
            top = _int_constant(n.left, bound)
            # d_model / h is a whole head width (512 = 8 x 64); T // d_k (100 // 8, a count of blocks) is not it
            if top is not None and top > d_k and top % d_k == 0 and top // d_k == got:
                found.append(n)
        return bool(found)
    if not _reaches(value, bound, division, set()):
        return
    from autograder.grading.pyparse import unparse
    raise Misconception("d_k_from_paper_heads", f"{name} is {got}, and your cell computes it from `{unparse(found[0])[:60]}`"
                        f" = {_int_constant(found[0].left, bound)} / {d_k}, d_model / h with the question's {d_k} as a "
                        "number of heads: " + describe("d_k_from_paper_heads"))


_LOGS = frozenset({"log", "log_", "log2", "log10"})


def _def_logs_param(func: str, index: int) -> bool:
    """Whether the notebook's last `def func` takes a log (torch.log, .log(), np.log ...) of something that reads its
    parameter number `index` (or a name the def bound from it, followed through its assignments)."""
    node = _def_of(None, func)
    if node is None or len(node.args.args) <= index:
        return False
    param = node.args.args[index].arg
    bound = _function_bindings(node)
    seen: set[str] = set()   # shared: a name walked without reaching the parameter cannot reach it for the next log
    for n in ast.walk(node):
        if _called(n) not in _LOGS or not isinstance(n, ast.Call):
            continue
        operands: list[ast.AST] = list(n.args)
        if isinstance(n.func, ast.Attribute) and not (isinstance(n.func.value, ast.Name) and n.func.value.id in
                                                       ("torch", "np", "numpy", "math")):
            operands.append(n.func.value)   # V.log()
        if any(_reaches(o, bound, lambda x: isinstance(x, ast.Name) and x.id == param, seen) for o in operands):
            return True
    return False


def _x_length_names(node: ast.FunctionDef, x: str) -> set[str]:
    """Names the def binds to its parameter x's token length: `*batch, T, d = x.shape` (the next-to-last name of
    an unpacking of x.shape or x.size()), or `T = x.shape[-2]` / `x.size(-2)`."""
    def of_x(v: ast.AST) -> bool:
        v = v.func if isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and v.func.attr == "size" else v
        return isinstance(v, ast.Attribute) and v.attr in ("shape", "size") and isinstance(v.value, ast.Name) \
            and v.value.id == x
    out = set()
    for n in ast.walk(node):
        if not (isinstance(n, ast.Assign) and len(n.targets) == 1):
            continue
        t, v = n.targets[0], n.value
        if isinstance(t, (ast.Tuple, ast.List)) and len(t.elts) >= 2 and of_x(v) and isinstance(t.elts[-2], ast.Name):
            out.add(t.elts[-2].id)
        elif isinstance(t, ast.Name) and ((isinstance(v, ast.Subscript) and of_x(v.value)
                                           and ast.unparse(v.slice) == "-2")
                                          or (isinstance(v, ast.Call) and of_x(v) and len(v.args) == 1
                                              and ast.unparse(v.args[0]) == "-2")):
            out.add(t.id)
    return out


def y_reshaped_with_x_length(submission: object, func: str) -> str | None:
    """A reshape / view in the notebook's last `def func(X, Y, ...)` of Y (or of a name that iterates over a tuple
    holding Y: `(Z.reshape(-1, T, d) for Z in (X, Y))`) whose sizes read X's token length (_x_length_names):
    Y cut as if it had T tokens (blind72). Its text, or None."""
    node = _def_of(submission, func)
    if node is None or len(node.args.args) < 2:
        return None
    x, y = node.args.args[0].arg, node.args.args[1].arg
    lengths = _x_length_names(node, x)
    if not lengths:
        return None
    carriers = {y}
    for n in ast.walk(node):
        target, it = (n.target, n.iter) if isinstance(n, (ast.comprehension, ast.For)) else (None, None)
        if isinstance(target, ast.Name) and isinstance(it, (ast.Tuple, ast.List)) \
                and any(isinstance(e, ast.Name) and e.id == y for e in it.elts):
            carriers.add(target.id)
    for n in ast.walk(node):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("reshape", "view") \
                and isinstance(n.func.value, ast.Name) and n.func.value.id in carriers \
                and any(isinstance(m, ast.Name) and m.id in lengths for a in n.args for m in ast.walk(a)):
            return ast.unparse(n)[:120]
    return None


def y_cut_with_query_length(fn: Callable[..., object], X: torch.Tensor, Y: torch.Tensor, W: Any, M: Any,
                            dtype: torch.dtype, said: str = "") -> Misconception | None:
    """cross_attention wrong (or crashing: `said`) with T' > T, right on Y's first T tokens (a second call, M's
    first T columns), where the def reshapes Y with X's token length (y_reshaped_with_x_length). None otherwise."""
    T, T_k = X.shape[-2], Y.shape[-2]
    if T_k <= T:
        return None
    src = y_reshaped_with_x_length(None, "cross_attention")
    if src is None:
        return None
    Y2, M2 = Y[..., :T, :].contiguous(), None if M is None else M[..., :T].contiguous()
    try:
        out = fn(X, Y2, *W) if M2 is None else fn(X, Y2, *W, M2)
    except StudentCodeError:
        return None
    want = ref.cross_attention(X.double(), Y2.double(), *(w.double() for w in W), None if M2 is None else M2.double())
    if not all_right(out, want, dtype):
        return None
    return Misconception("cross_keys_reshaped_with_query_length", f"{said}with Y as long as X (its first {T} of "
                         f"{T_k} tokens) (O, A) are right, and `{src}` reshapes Y with the length taken from X's "
                         "shape: " + describe("cross_keys_reshaped_with_query_length"))


def raise_if_y_cut_with_query_length(fn: Callable[..., object], X: torch.Tensor, Y: torch.Tensor, W: Any, M: Any,
                                     dtype: torch.dtype) -> None:
    named = y_cut_with_query_length(fn, X, Y, W, M, dtype, "(O, A) are wrong; ")
    if named is not None:
        raise named


_ONE_PASS_CALLS = frozenset({"map", "zip", "filter", "iter", "reversed", "enumerate"})


def generator_consumed_twice(submission: object, func: str) -> str | None:
    """The statement of the notebook's last `def func` that binds a name, once, to a generator (a `(... for ...)`
    expression, or map / zip / filter / iter / enumerate / reversed) which the def then reads at least twice: the
    first pass uses it up (blind72). None where there is no such name."""
    node = _def_of(submission, func)
    if node is None:
        return None
    loads: dict[str, int] = {}
    stores: dict[str, int] = {}
    for m in ast.walk(node):   # counted once: the def is read in one pass, not once per binding
        if isinstance(m, ast.Name):
            counts = loads if isinstance(m.ctx, ast.Load) else stores
            counts[m.id] = counts.get(m.id, 0) + 1
    made = []
    for n in ast.walk(node):
        if not (isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)):
            continue
        v = n.value
        if isinstance(v, ast.GeneratorExp) or (isinstance(v, ast.Call) and isinstance(v.func, ast.Name)
                                               and v.func.id in _ONE_PASS_CALLS):
            name = n.targets[0].id
            if loads.get(name, 0) >= 2 and stores.get(name, 0) == 1:
                made.append((name, n))
    # not once in each arm of an if (red-team round 134: read_twice_on_one_path, one walk for every name)
    twice = read_twice_on_one_path(node, [name for name, _n in made]) if made else set()
    # quoted bounded: a generator's expression nested past the stack (`(... + 0 + ... + 0 for k in K)`, 700 terms)
    # made ast.unparse raise RecursionError in the grader, said on q08's three tests instead of the name (rt135)
    from autograder.grading.pyparse import TOO_DEEP, unparse
    said = next((unparse(n) for name, n in made if name in twice), None)
    if said == TOO_DEEP:
        said = next(f"{name} = ..." for name, n in made if name in twice)
    return None if said is None else said[:120]


def raise_if_generator_reread(got: object, q: torch.Tensor, K: torch.Tensor, V: torch.Tensor) -> None:
    """nadaraya_watson's row is the right numerator divided by 0 (+-inf in every entry, each with the numerator's
    sign), or 0 where the numerator's pass came second, and the def reads a generator twice
    (generator_consumed_twice): the second pass, the denominator's sum (or the numerator's), sees nothing."""
    if type(got) is not torch.Tensor or got.numel() not in (1, V.shape[-1]):
        return
    kappa = torch.exp(K.double() @ q.double() / math.sqrt(q.shape[-1]))
    num = kappa @ V.double()
    g = got.detach().double().cpu().reshape(-1)
    if g.numel() == num.numel() and bool(torch.isinf(g).all()) and torch.equal(torch.sign(g), torch.sign(num)):
        what = "inf in every entry, with the signs of the right weighted sum of the values: that sum divided by 0"
    elif bool((g == 0).all()) and bool((num != 0).all()):
        what = "0 in every entry: a sum over nothing (0) divided by the weights' sum"
    else:
        return
    said = generator_consumed_twice(None, "nadaraya_watson")
    if said is not None:
        raise Misconception("generator_consumed_twice", f"the smoothed row is {what}, as when one of two passes over "
                            f"the kernel weights finds them already used up: `{said}` makes a generator, and the def "
                            "reads it twice: " + describe("generator_consumed_twice"))


def raise_if_nw_log_of_values(fn: Callable[..., object], got: object, q: torch.Tensor, K: torch.Tensor,
                              V: torch.Tensor) -> None:
    """A row with NaN where the right one is finite, from the weighted sum taken in log space (blind62's
    logsumexp(s + log V) - logsumexp(s)): named where that replay is NaN at exactly the same entries (the columns of
    V with a negative value), a second call with V made positive (|V| + 0.5) returns the right row, and the def takes
    a log of V. Small tensors, one extra call: bounded."""
    if not (type(got) is torch.Tensor and got.is_floating_point() and tuple(got.shape) == (V.shape[-1],)) \
            or not bool(torch.isnan(got).any()):
        return
    q64, K64, V64 = q.double(), K.double(), V.double()
    want = ref.nadaraya_watson(q64, K64, V64)
    s = K64 @ q64 / math.sqrt(q.shape[-1])
    replay = torch.exp(torch.logsumexp(s[:, None] + torch.log(V64), dim=0) - torch.logsumexp(s, dim=0))
    if not bool(torch.isfinite(want).all()) or not torch.equal(torch.isnan(got), torch.isnan(replay)) \
            or bool(torch.isfinite(got).any()) and not matching_variants(got, {"replay": replay}, got.dtype):
        return
    V_pos = (V64.abs() + 0.5).to(V.dtype)
    try:
        again = fn(q, K, V_pos)
    except StudentCodeError:
        return
    right = ref.nadaraya_watson(q64, K64, V_pos.double())
    if not (type(again) is torch.Tensor and again.is_floating_point() and again.shape == right.shape
            and bool(matching_variants(again.to(V.dtype), {"right": right}, V.dtype))):
        return
    if not _def_logs_param("nadaraya_watson", 2):
        return
    cols = int(torch.isnan(got).sum())
    raise Misconception("nw_log_of_values", f"the smoothed row is NaN in {cols} of {got.numel()} entries, exactly the "
                        "columns of V that hold a negative value, and right when every value of V is made positive: "
                        + describe("nw_log_of_values"))


# --- blind63: an optimisation that changed the result --------------------------------------------------------------

def _small_int_constants(node: ast.AST, lo: int = 2, hi: int = 64, most: int = 6) -> list[int]:
    """The distinct int constants lo..hi in `node` (a block size, a tile width), the first `most` of them."""
    seen: list[int] = []
    for n in ast.walk(node):
        if isinstance(n, ast.Constant) and type(n.value) is int and lo <= n.value <= hi and n.value not in seen:
            seen.append(n.value)
    return seen[:most]


def online_softmax_variants(S: torch.Tensor, M: torch.Tensor | None = None) -> dict[str, torch.Tensor]:
    """An online (blocked) softmax whose running sum is never rescaled by exp(m_old - m_new) when the running max
    grows (blind63): l += exp(block - m_new).sum() over blocks of b keys, then exp(Z - m) / l. Replayed only where
    the notebook's attention_weights loops (a `for`) and has a small int constant b (the block size), at most six
    sizes, on at most 2**16 entries and 256 blocks (bounded)."""
    node = _def_of(None, "attention_weights")
    if node is None or S.numel() > 2 ** 16 or not any(isinstance(n, (ast.For, ast.While)) for n in ast.walk(node)):
        return {}
    Z = S if M is None else S + M
    out = {}
    # the def's own small ints, then the usual block sizes (a KEY_BLOCK bound outside the def, round 86)
    sizes = list(dict.fromkeys(_small_int_constants(node) + [2, 3, 4, 8, 16, 32]))[:10]
    for b in sizes:
        if b >= Z.shape[-1] or Z.shape[-1] > 256 * b:   # at most 256 blocks a replay
            continue
        m = torch.full(Z.shape[:-1] + (1,), -math.inf, dtype=Z.dtype)
        total = torch.zeros_like(m)
        for blk in Z.split(b, dim=-1):
            m_new = torch.maximum(m, blk.amax(dim=-1, keepdim=True))
            total = total + torch.exp(blk - m_new).sum(dim=-1, keepdim=True)
            m = m_new
        out[f"online_softmax_sum_not_rescaled/block{b}"] = torch.exp(Z - m) / total
        # the rescale factor inverted, exp(m_new - m) for exp(m - m_new) (round 86, blind86): started from the first
        # block's own max and sum (from -inf the inverted factor is inf at once); right where no later block raises m
        first = Z[..., :b]
        m = first.amax(dim=-1, keepdim=True)
        total = torch.exp(first - m).sum(dim=-1, keepdim=True)
        for blk in Z[..., b:].split(b, dim=-1):
            m_new = torch.maximum(m, blk.amax(dim=-1, keepdim=True))
            total = total * torch.exp(m_new - m) + torch.exp(blk - m_new).sum(dim=-1, keepdim=True)
            m = m_new
        out[f"online_softmax_rescale_inverted/block{b}"] = torch.exp(Z - m) / total
    return out


def nw_online_variants(q: torch.Tensor, K: torch.Tensor, V: torch.Tensor) -> dict[str, torch.Tensor]:
    """A one-pass (online) kernel average over the keys with a running max whose numerator is not rescaled by
    exp(m_old - m_new) when the max grows, while the denominator is (round 86, blind86): values seen before the
    largest score keep too much weight. Key by key, started from the first key; at most 4096 keys (bounded)."""
    if K.dim() != 2 or q.dim() != 1 or not 1 < K.shape[0] <= 4096:
        return {}
    logits = K @ q / math.sqrt(q.shape[-1])
    m, den, num = logits[0], torch.ones_like(logits[0]), V[0]
    for i in range(1, K.shape[0]):
        m_new = torch.maximum(m, logits[i])
        p = torch.exp(logits[i] - m_new)
        den, num, m = den * torch.exp(m - m_new) + p, num + p * V[i], m_new
    return {"nw_online_numerator_not_rescaled": num / den}


def nw_feature_map_variants(q: torch.Tensor, K: torch.Tensor, V: torch.Tensor) -> dict[str, torch.Tensor]:
    """Nadaraya-Watson with linear attention's kernel phi(q) . phi(k), phi = elu + 1, in place of
    exp(q . k / sqrt(d_k)) (blind63): the 1/sqrt(d_k) on the keys, on the query, on both, on both as d_k^(-1/4),
    or left out."""
    if K.dim() != 2 or q.dim() != 1:
        return {}
    d_k = q.shape[-1]

    def phi(x: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.elu(x) + 1

    out = {}
    for how, (a, b) in {"": (1.0, 1.0), "/scaled_keys": (d_k ** -0.5, 1.0), "/scaled_query": (1.0, d_k ** -0.5),
                        "/scaled_both": (d_k ** -0.5, d_k ** -0.5), "/scaled_both_root": (d_k ** -0.25, d_k ** -0.25)
                        }.items():
        kappa = phi(K * a) @ phi(q * b)
        out["nw_linear_feature_map_kernel" + how] = (kappa[:, None] * V).sum(0) / kappa.sum()
    return out


def in_place_operand_reread(func: str) -> str | None:
    """A binary operation, quoted, in the notebook's last `def func` of the test now running, one side of which
    calls an in-place method on a name the other side reads (`P * P.log2_()`, `P.log_() * P`): the call overwrites
    the tensor before the product is taken, so both sides see the new values (which is no mistake everywhere: a gate
    for a replay, never a name by itself). None where it has none."""
    node = _def_of(None, func)
    if node is None:
        return None

    # each node's in-place names and read names, built once from its children's (red-team round 133: both sides of
    # every BinOp were walked whole, quadratic in a chain: a 1,900-factor product in a dead branch of a 3,900-character
    # row_entropy_bits cost 6 s of the grader's CPU per call of entropy_variants, 13 s a grade)
    nodes = list(ast.walk(node))      # breadth first: a parent before its children
    in_place: dict[int, frozenset[str]] = {}
    reads: dict[int, frozenset[str]] = {}
    for n in reversed(nodes):         # children first
        kids = [id(k) for k in ast.iter_child_nodes(n)]
        own = {n.func.value.id} if (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                                    and n.func.attr.endswith("_") and not n.func.attr.startswith("_")
                                    and isinstance(n.func.value, ast.Name)) else set()
        in_place[id(n)] = frozenset(own).union(*(in_place[k] for k in kids))
        read = {n.id} if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) else set()
        reads[id(n)] = frozenset(read).union(*(reads[k] for k in kids))
    if not in_place[id(node)]:
        return None
    for n in nodes:
        if isinstance(n, ast.BinOp) and (in_place[id(n.left)] & reads[id(n.right)]
                                         or in_place[id(n.right)] & reads[id(n.left)]):
            return pyparse_unparse(n)[:80]
    return None


def entropy_log_in_place_variants(A: torch.Tensor) -> dict[str, torch.Tensor]:
    """The log taken in place on the tensor it multiplies (blind71's -(P * P.log2_()) with P = A, zeros set to 1):
    log2_ runs first, so the terms are log2(p) * log2(p), not p log2 p. Replayed only where row_entropy_bits has such
    an operation (in_place_operand_reread); in bits and in nats."""
    if A.numel() > 1 << 16 or in_place_operand_reread("row_entropy_bits") is None:
        return {}
    P = A.masked_fill(A == 0, 1.0)
    return {f"inplace_operand_overwritten/{unit}": -(L * L).sum(dim=-1) * scale
            for unit, L, scale in (("bits", torch.log2(P), 1.0), ("nats", torch.log(P), 1.0),
                                   ("nats_over_ln2", torch.log(P), 1 / math.log(2)))}


def entropy_lower_triangle_variants(A: torch.Tensor) -> dict[str, torch.Tensor]:
    """The entropy terms summed over the lower triangle only (tril of a T_q x T_k mask), as if every A were causal
    (blind63): the terms of keys after the query's position are dropped; only where A has weight there."""
    visible = torch.ones(A.shape[-2], A.shape[-1], dtype=torch.bool, device=A.device).tril()
    if not bool((A.masked_fill(visible, 0) != 0).any()):
        return {}
    logs = torch.where(visible & (A > 0), torch.log2(A), torch.zeros_like(A))
    return {"entropy_lower_triangle_only": -(A * logs).sum(dim=-1),
            "entropy_lower_triangle_only/nats": -(A * logs).sum(dim=-1) * math.log(2)}


_LOWRANK = frozenset({"svd_lowrank", "pca_lowrank"})


def raise_if_rank_from_lowrank_default(got: int, submission: object, name: str) -> None:
    """A rank counted from torch.svd_lowrank / pca_lowrank's singular values (blind63): they return only q of
    them (q = 6 by default), so the count is q, below the true bound. Named where the answer is that q and the cell
    that assigns `name` calls one of them."""
    if got >= ref.max_rank_S:
        return
    for tree in _cell_trees(submission):
        if not any(isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in n.targets)
                   for n in tree.body):
            continue
        for n in ast.walk(tree):
            if _callee(n) not in _LOWRANK:
                continue
            assert isinstance(n, ast.Call)
            qs = [k.value for k in n.keywords if k.arg == "q"] + n.args[1:2]
            q = qs[0].value if qs and isinstance(qs[0], ast.Constant) and type(qs[0].value) is int else 6 if not qs \
                else None
            if q == got:
                raise Misconception("rank_from_svd_lowrank_default", f"{name} is {got}, the number of singular values "
                                    f"`{pyparse_unparse(n)[:60]}` returns (its q), not the rank: "
                                    + describe("rank_from_svd_lowrank_default"))


def raise_if_rank_measure_slips(got: int, submission: object, name: str) -> None:
    """raise_if_rank_from_max_indices (blind61), then raise_if_rank_from_lowrank_default (blind63), then
    raise_if_rank_at_small_length (blind65; d_k = 8 = max_rank_S, T = 100)."""
    raise_if_rank_from_max_indices(got, submission, name)
    raise_if_rank_from_lowrank_default(got, submission, name)
    raise_if_rank_at_small_length(got, submission, name, ref.max_rank_S, 100)   # T shrunk to 5 (blind65)
    raise_if_rank_after_ridge(got, submission, name, 100)   # matrix_rank(S + eps I): full rank, T (blind88)
    raise_if_rank_from_distinct_winners(got, submission, name)   # argmax(-1).unique().numel() (blind89)


def _ridge_under_rank(submission: object) -> str | None:
    """The source of a `... + c * eye(...)` (an identity added: torch.eye, np.eye, eye_like) in a def or cell of the
    notebook that also calls matrix_rank: a ridge added to a matrix before its rank is measured. None otherwise.
    Parsed cells only (the grader's bounded parse), never run."""
    from autograder.grading.pyparse import unparse

    def has_eye(n: ast.AST) -> bool:
        return any(_callee(x) in ("eye", "eye_like", "identity") for x in ast.walk(n))
    for tree in _cell_trees(submission):
        scopes = [tree, *(n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.Lambda)))]
        for scope in scopes:
            if not any(_callee(x) == "matrix_rank" for x in ast.walk(scope)):
                continue
            for x in ast.walk(scope):
                if isinstance(x, ast.BinOp) and isinstance(x.op, ast.Add) and (has_eye(x.left) or has_eye(x.right)):
                    return unparse(x)
    return None


def raise_if_rank_from_distinct_winners(got: int, submission: object, name: str) -> None:
    """q11: a wrong `name` whose notebook assignment (in it, or through names its cell bound) counts distinct
    entries (unique / set / bincount) of row winners (argmax, argsort, topk, max's indices): the number of keys that
    win some query, measured on one draw (blind89's `(Q @ K.T).argmax(dim=-1).unique().numel()`). Named
    rank_counted_as_distinct_winners; source only (parsed, never run), beside the wrong value."""
    if got == ref.max_rank_S or submission is None:
        return
    last = _last_assignment(submission, name)
    if last is None:
        return
    value, bound = last
    winners = frozenset({"argmax", "argmin", "argsort", "topk", "indices"})

    def counts_winners(n: ast.AST) -> bool:
        if not (_callee(n) in ("unique", "bincount", "unique_consecutive", "set") or isinstance(n, ast.Set)):
            return False
        return _reaches(n, bound, lambda x: _callee(x) in winners or isinstance(x, ast.Attribute)
                        and x.attr == "indices", set())
    found: list[ast.AST] = []

    def hit(n: ast.AST) -> bool:
        if counts_winners(n):
            found.append(n)
            return True
        return False
    if not _reaches(value, bound, hit, set()):
        return
    from autograder.grading.pyparse import unparse
    raise Misconception("rank_counted_as_distinct_winners", f"{name} is {got}, and your code counts distinct row "
                        f"winners (`{unparse(found[0])[:60]}`): " + describe("rank_counted_as_distinct_winners"))


def raise_if_rank_after_ridge(got: int, submission: object, name: str, T: int) -> None:
    """q11: `name` is T, the rank of a full-rank T x T matrix, where S's rank is less, and the notebook adds an
    identity multiple to a matrix where it calls matrix_rank (blind88's `matrix_rank(S + 1e-6 * torch.eye(T))`): the
    ridge, far above matrix_rank's tolerance, lifts every zero singular value. Named rank_after_ridge."""
    if got != T or submission is None:
        return
    src = _ridge_under_rank(submission)
    if src is None:
        return
    raise Misconception("rank_after_ridge", f"{name} is {T}, the rank of a full-rank {T} x {T} matrix, and your code "
                        f"measures the rank after adding an identity multiple (`{src[:60]}`): "
                        + describe("rank_after_ridge"))


def raise_if_count_wrapped(got: object, want: int, func: str) -> None:
    """A count that is the right one wrapped around to a fixed-width integer (blind63: sizes held in int16 tensors,
    d_model * (2 d_k + d_v) past 32767): + and * wrap modulo 2**bits, so the answer is the right count taken
    modulo 2**bits into the signed range. Named where `got` is that for 8, 16 or 32 bits (and not right) and the
    notebook's `def func` names an integer dtype of that width."""
    if type(got) not in (int, float) or got == want or isinstance(got, bool):
        return
    node = _def_of(None, func)
    if node is None:
        return
    words = {n.attr if isinstance(n, ast.Attribute) else n.id for n in ast.walk(node)
             if isinstance(n, ast.Attribute) or isinstance(n, ast.Name)}
    for bits, names in ((8, {"int8", "uint8", "char", "byte"}), (16, {"int16", "short", "uint16"}),
                        (32, {"int32", "int", "uint32", "intc"})):
        wrapped = (want + 2 ** (bits - 1)) % 2 ** bits - 2 ** (bits - 1)
        unsigned = want % 2 ** bits
        if got in (wrapped, unsigned) and names & words and (bits < 32 or "int32" in words or "uint32" in words):
            raise Misconception("count_integer_overflow", f"the count is {int(got)}, the right {want} wrapped around "
                                f"to a {bits}-bit integer ({want} mod 2^{bits}): " + describe("count_integer_overflow"))


_INT_CAST = re.compile(r"result type Float can't be cast to the desired output type (Long|Int|Short|Char|Byte|Bool)")


def prefix_average_in_place_int_crash(e: StudentCodeError, submission: object) -> Misconception | None:
    """An in-place float operation (reciprocal_, div_, `/=` ...) on an integer tensor (torch.arange(1, T + 1) is
    int64) (blind63): the float result cannot be written back into the integer tensor. Named from the crash's words
    and an in-place call or `/=` in prefix_average_matrix."""
    found = _INT_CAST.search(str(e))
    if found is None:
        return None
    node = _def_of(submission, "prefix_average_matrix")
    if node is None:
        return None
    for n in ast.walk(node):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr.endswith("_") \
                and not n.func.attr.startswith("_") or isinstance(n, ast.AugAssign) and isinstance(n.op, ast.Div):
            return Misconception("in_place_float_op_on_integer", f"`{pyparse_unparse(n)[:60]}` writes a float "
                                 f"result into an integer ({found.group(1).lower()}) tensor, and torch refuses "
                                 "(\"result type Float can't be cast\"): " + describe("in_place_float_op_on_integer"))
    return None


def _slices_outer_name(node: ast.FunctionDef) -> str | None:
    """A `name[:T, :T]`-style slice (every index a slice with an upper bound and no lower one) of a name the
    function never assigns itself (a module-level cache, a global), quoted; None where there is none."""
    local = {t.id for n in ast.walk(node) if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign))
             for t in (n.targets if isinstance(n, ast.Assign) else [n.target]) if isinstance(t, ast.Name)}
    local -= {n for g in ast.walk(node) if isinstance(g, ast.Global) for n in g.names}
    local |= {a.arg for a in node.args.args + node.args.kwonlyargs}
    for n in ast.walk(node):
        if not isinstance(n, ast.Subscript):
            continue
        parts = n.slice.elts if isinstance(n.slice, ast.Tuple) else [n.slice]
        sliced = [p for p in parts if isinstance(p, ast.Slice)]
        if not sliced or not all(p.upper is not None and p.lower is None for p in sliced):
            continue
        base = n.value
        while isinstance(base, ast.Subscript):   # _MASKS[key][:T, :T]
            base = base.value
        if isinstance(base, ast.Name) and base.id not in local:
            return pyparse_unparse(n)[:60]
    return None


def raise_if_mask_not_regrown(fn: Callable[..., object], T: int, T_long: int) -> None:
    """A causal mask built once, at the length of an earlier call, and only sliced afterwards (blind63's
    `_MASKS[key][:T, :T]`): asked for T tokens, then for T_long > T, in float32, the second call gives back a right
    but smaller (c, c) mask, c the cached length. Named where that is what the call returns and
    causal_additive_mask slices a name it never assigns (a module-level cache)."""
    try:
        fn(T, torch.float32)
        M = fn(T_long, torch.float32)
    except StudentCodeError as e:
        raise_if_mask_buffer_sliced(fn, e, T, T_long)
        return
    if type(M) is not torch.Tensor or M.dim() != 2 or M.shape[0] != M.shape[1] or not 1 <= M.shape[0] < T_long \
            or M.dtype != torch.float32 or not torch.equal(M.cpu(), ref.causal_additive_mask(M.shape[0], torch.float32)):
        return
    node = _def_of(None, "causal_additive_mask")
    sliced = _slices_outer_name(node) if node is not None else None
    if sliced is not None and kept_state(None, "causal_additive_mask", written=True) is None \
            and _buffer_never_written(sliced) and M.shape[0] > T:
        # naming round 82: a buffer made once at the top level, larger than T and never written (torch.where of
        # `lower[:T, :T]` runs and gives it back whole): fixed at one size, not cached at the first call's length
        raise Misconception("mask_sized_once", f"causal_additive_mask({T_long}, torch.float32) returns a "
                            f"{M.shape[0]} x {M.shape[0]} mask (right for {M.shape[0]} tokens), sliced `{sliced}` "
                            "from a buffer made once, outside the function, that no call ever grows: "
                            + describe("mask_sized_once"))
    if sliced is not None:
        raise Misconception("mask_cached_at_first_length", f"causal_additive_mask({T_long}, torch.float32) returns a "
                            f"{M.shape[0]} x {M.shape[0]} mask (right for {M.shape[0]} tokens), sliced `{sliced}` from "
                            "a mask kept between calls: " + describe("mask_cached_at_first_length"))


def _buffer_never_written(sliced: str) -> bool:
    """Whether the name a mask is sliced from (`tril` of `tril[:T, :T]`) is a buffer made once: no def of the
    notebook stores into it or declares it global or nonlocal (a cache filled by some call is
    mask_cached_at_first_length's). Each cell is parsed once (_cell_trees, the grader's parse) and walked once."""
    base = re.match(r"\w+", sliced)
    if base is None:
        return False
    name = base.group(0)
    for tree in _cell_trees(current_submission()):
        for n in ast.walk(tree):
            if isinstance(n, (ast.Global, ast.Nonlocal)) and name in n.names:
                return False
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and _stores_value(n, name):
                return False
    return True


def _mask_right(fn: Callable[..., object], T: int) -> bool | None:
    """True where causal_additive_mask(T, torch.float32) is the right mask, False where it is another value, None
    where it crashes."""
    try:
        M = fn(T, torch.float32)
    except StudentCodeError:
        return None
    return type(M) is torch.Tensor and M.dtype == torch.float32 and M.device.type == "cpu" \
        and torch.equal(M, ref.causal_additive_mask(T, torch.float32))


def raise_if_mask_buffer_sliced(fn: Callable[..., object], e: StudentCodeError, T: int, T_long: int) -> None:
    """mask_sized_once for a mask cut from a fixed buffer made once, outside the function (blind83's top-level
    `tril = torch.tril(torch.ones(block_size, block_size))` sliced `tril[:T, :T]`): the call of T_long tokens crashed
    on a size mismatch of T_long against n (T <= n < T_long), the masks of n - 1 and n tokens are right, n + 1 tokens
    crash against n too, and causal_additive_mask slices a name it never assigns and keeps nothing between calls (a
    cache grown at the first call's length is mask_cached_at_first_length's). Nothing otherwise."""
    n = size_against(e, T_long)
    if n is None or not T <= n < T_long or n < 2:
        return
    if _mask_right(fn, n) is not True or _mask_right(fn, n - 1) is not True:
        return
    try:
        fn(n + 1, torch.float32)
        return
    except StudentCodeError as again:
        if size_against(again, n + 1) != n:
            return
    node = _def_of(None, "causal_additive_mask")
    sliced = _slices_outer_name(node) if node is not None else None
    if sliced is None or kept_state(None, "causal_additive_mask", written=True) is not None \
            or not _buffer_never_written(sliced):
        return
    raise Misconception("mask_sized_once", f"causal_additive_mask({T_long}, torch.float32) raised {e.exc_type}: "
                        f"{(e.message or '').splitlines()[0][:120]}; your causal_additive_mask slices the mask from "
                        f"a buffer made once, outside it (`{sliced}`), {n} x {n}: up to {n} tokens it is right, and "
                        f"{n + 1} tokens crash against {n} again (a slice never grows the buffer): "
                        + describe("mask_sized_once"))


# --- round 64 (blind64): what made a letter-picking experiment mislead ----------------------------------------------

_ZERO_MAKERS = frozenset({"zeros", "zeros_like", "new_zeros"})


def _quote(n: ast.AST, limit: int = 70) -> str:
    from autograder.grading.pyparse import unparse
    text = unparse(n)
    return text if len(text) <= limit else text[:limit] + "..."


def _literal_rows(n: ast.AST) -> list[object] | None:
    """The rows of `torch.tensor([[...], ...])` written as a literal (a bounded literal_eval), else None."""
    if _callee(n) != "tensor" or not isinstance(n, ast.Call) or not n.args or not isinstance(n.args[0], ast.List) \
            or len(n.args[0].elts) > 64:
        return None
    try:
        rows = ast.literal_eval(n.args[0])
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        return None
    return rows if isinstance(rows, list) and all(isinstance(r, list) for r in rows) else None


def experiment_said(submission: object, name: str) -> str | None:
    """A sentence on what made the experiment in `name`'s cell mislead, where a bounded read of that cell (the
    answer worked out by code) shows it: a factor bound to torch.zeros(...) and multiplied (@, matmul, einsum: every
    score 0, so the scale cannot show; blind64's q03), a call given the same name as its first two arguments
    (cross_attention(X, X): Y = X, T' = T; q14), or a tensor literal with a repeated row in a cell that counts a
    rank (the lesson's repeated queries; q06). None otherwise: the engine's words stand alone."""
    if not _computed_by_code(submission, name):
        return None
    cell = _answer_cell(submission, name)
    if cell is None:
        return None
    nodes = list(itertools.islice(ast.walk(cell), 20001))   # a bounded read: a huge cell says nothing here
    if len(nodes) > 20000:
        return None
    zeros = {}
    for node in cell.body:
        if isinstance(node, ast.Assign) and _callee(node.value) in _ZERO_MAKERS:
            for t in node.targets:
                for sub in ast.walk(t):
                    if isinstance(sub, ast.Name):
                        zeros[sub.id] = node.value
    for n in nodes if name == "ans_scale" else ():
        operands = [n.left, n.right] if isinstance(n, ast.BinOp) and isinstance(n.op, ast.MatMult) else \
            list(n.args) if _callee(n) in {"matmul", "mm", "bmm", "einsum"} and isinstance(n, ast.Call) else []
        for o in operands:
            for _ in range(8):   # through .double(), .T, .to(...): the tensor the operand is made from
                if isinstance(o, ast.Call) and isinstance(o.func, ast.Attribute):
                    o = o.func.value
                elif isinstance(o, ast.Attribute):
                    o = o.value
            if isinstance(o, ast.Name) and o.id in zeros:
                return (f"your experiment multiplies by {o.id} = {_quote(zeros[o.id])}, all zeros: every score is 0 "
                        "with the scale or without it, so the two runs are bound to agree and cannot show what the "
                        "scale does; try it on random weights")
    crosses = [n for n in nodes if name == "ans_cross_shapes" and isinstance(n, ast.Call) and len(n.args) >= 2
               and _callee(n) == "cross_attention"]
    # round126: only where every call gives X as Y (a cell that also tries a Y of another length was not misled so)
    if crosses and all(isinstance(n.args[0], ast.Name) and isinstance(n.args[1], ast.Name)
                       and n.args[0].id == n.args[1].id for n in crosses):
        return (f"your check calls {_quote(crosses[0])}, the same tensor as X and as Y: with T' = T the shapes of "
                "the options coincide, so the first option tried matches; try a Y with another length than X")
    if name == "ans_mask" and any(_callee(n) == "matrix_rank" for n in nodes):
        for node in cell.body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                rows = _literal_rows(node.value)
                if rows is None:
                    continue
                same = [(i, j) for i in range(len(rows)) for j in range(i + 1, len(rows)) if rows[i] == rows[j]]
                if same:
                    i, j = same[0]
                    return (f"the rows of {node.targets[0].id} repeat (rows {i} and {j} are equal), so the weights "
                            "without the mask lose rank for that reason alone: a rank drop on this example says "
                            "nothing about what the mask is for (which keys a position may read)")
    return None


def with_experiment_said(check: Callable[[], None], submission: object, name: str) -> None:
    """check(), a letter question's checks; where it names answer_computed_by_code, the key kept and what made the
    experiment mislead (experiment_said) added, when a read of the cell shows it."""
    try:
        check()
    except Misconception as m:
        if m.key != "answer_computed_by_code":
            raise
        said = experiment_said(submission, name) or leftover_said(submission, name)   # leftovers: naming round 65
        if said is None:
            raise
        raise Misconception(m.key, f"{m}; {said}") from None


def raise_if_entropy_terms_returned(got: object, A: torch.Tensor, fn: Callable[[torch.Tensor], object],
                                    what: str) -> None:
    """entropy_terms_not_summed (naming round 65, blind65's debugging return left in the A.dim() == 2 branch): H
    has A's own shape and is, entry by entry, the terms a log2 a (or -a log2 a, or in nats), 0 log 0 as 0 or NaN,
    never summed over the keys. Where a second call on the same rows with a batch axis (A[None]) is right, the
    terms come back for 2-D inputs only, and that is said."""
    if type(got) is not torch.Tensor or tuple(got.shape) != tuple(A.shape) or not got.is_floating_point():
        return
    g = got.double()
    a = A.double()
    for log in (torch.log2, torch.log):
        terms = a * torch.where(a > 0, log(a.clamp_min(1e-300)), torch.zeros_like(a))
        for sign in (1.0, -1.0):
            replay = sign * terms
            zero = a == 0
            close = torch.isclose(g, replay, rtol=1e-5, atol=1e-6) | (zero & torch.isnan(g))
            if bool(close.all()) and not bool(torch.isnan(g).all()):
                break
        else:
            continue
        break
    else:
        return
    unit = "" if log is torch.log2 else " in nats (natural log)"
    sign_words = "negated but" if sign < 0 else "neither negated nor"
    said = (f"{what} has A's shape {tuple(A.shape)}: it is the per-key terms {'-' if sign < 0 else ''}a log2 a{unit} "
            f"of every weight, {sign_words} summed over the keys (dim=-1)")
    try:
        batched = fn(A.clone()[None]) if A.dim() == 2 else None
    except (StudentCodeError, TypeError, RuntimeError):
        batched = None
    if type(batched) is torch.Tensor and tuple(batched.shape) == (1, *A.shape[:-1]) and bool(
            torch.allclose(batched.double()[0], ref.row_entropy_bits(a), rtol=0, atol=1e-6)):
        said += ("; the same rows with a batch axis (A[None]) come out right, so only 2-D inputs take this path (a "
                 "return left in a branch for A.dim() == 2, from debugging?): remove it, so every input goes through "
                 "-(A * log2(A)).sum(dim=-1)")
    raise Misconception("entropy_terms_not_summed", f"{said}: " + describe("entropy_terms_not_summed"))


_SHAPE_MAKERS = frozenset({"randn", "rand", "randint", "normal", "empty", "zeros", "ones", "full", "arange", "eye",
                           "standard_normal", "random", "Tensor"})


def _int_of(n: ast.AST, bound: Mapping[str, list[ast.AST]]) -> int | None:
    """An int literal, or a name the cell bound once to one (followed through at most 5 names); None otherwise."""
    for _ in range(5):
        if isinstance(n, ast.Constant) and type(n.value) is int:
            return n.value
        if not (isinstance(n, ast.Name) and len(bound.get(n.id, ())) == 1):
            return None
        n = bound[n.id][0]
    return None


def raise_if_rank_at_small_length(got: int, submission: object, name: str, d_k: int, T: int) -> None:
    """max_rank_S measured at a length T_small < d_k the cell chose (blind65's _T = 5 to read the printout): the
    matrix_rank call the cell's last `name = ...` reads reaches a tensor made with T_small rows (its second-to-last
    size, an int literal or a name bound to one) and at least as many features, and the answer is min(T_small, d_k)
    = T_small. Named only where that source shows it (a 5 alone could be another slip)."""
    if type(got) is not int or not 0 < got < min(d_k, T):
        return
    last = _last_assignment(submission, name)
    if last is None:
        return
    value, bound = last
    calls: list[ast.AST] = []
    _reaches(value, bound, lambda n: _called(n) == "matrix_rank" and not calls.append(n) and False, set())
    found: list[ast.AST] = []

    def small_maker(n: ast.AST) -> bool:
        if not (isinstance(n, ast.Call) and _called(n) in _SHAPE_MAKERS) or found:
            return False
        dims = list(n.args[0].elts) if len(n.args) == 1 and isinstance(n.args[0], (ast.Tuple, ast.List)) else n.args
        sizes = [_int_of(d, bound) for d in dims[:4]]
        if len(sizes) >= 2 and sizes[-2] == got and sizes[-1] is not None and sizes[-1] >= got:
            found.append(n)
        return bool(found)
    seen: set[str] = set()
    for call_ in calls[:20]:
        if _reaches(call_, bound, small_maker, seen):
            break
    if not found:
        return
    raise Misconception("rank_measured_at_small_length", f"{name} is {got}, the rank your cell measures on "
                        f"`{pyparse_unparse(found[0])[:60]}`, only {got} tokens: there min(T, d_k) = min({got}, {d_k}) "
                        f"= {got}, so the tokens limit it; the head in this question has T = {T} and d_k = {d_k}, "
                        f"bound min({T}, {d_k}) = {d_k}: " + describe("rank_measured_at_small_length"))


_RANDOM_MAKERS = frozenset({"randn", "rand", "randint", "normal", "randn_like", "rand_like", "randperm"})


def _loads(n: ast.AST) -> set[str]:
    return {s.id for s in ast.walk(n) if isinstance(s, ast.Name) and isinstance(s.ctx, ast.Load)}


def leftover_said(submission: object, name: str) -> str | None:
    """A sentence on a leftover in the cell that works `name` out by code that made its experiment mislead, where a
    bounded read of that cell shows it (naming round 65, blind65's debugging leftovers): a sampler def that reseeds
    (manual_seed) on every call and is called more than once (every draw the same: keys = queries; q03), a def that
    never reads one of its parameters but reads a name the cell bound (the probe sees the demo input, not its
    argument; q06), cross_attention given a Y that the cell rebinds to its X (`Y = X` left in: T' = T; q14), or a def
    whose defaulted size is never passed by the calls that measure a growth (T_k fixed while T_q doubles; q16).
    None otherwise."""
    if not _computed_by_code(submission, name):
        return None
    cell = _answer_cell(submission, name)
    if cell is None:
        return None
    nodes = list(itertools.islice(ast.walk(cell), 20001))   # a bounded read, as experiment_said
    if len(nodes) > 20000:
        return None
    defs = {n.name: n for n in cell.body if isinstance(n, ast.FunctionDef)}
    calls: dict[str, list[ast.Call]] = {}
    for n in nodes:
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in defs:
            calls.setdefault(n.func.id, []).append(n)
    bound = _bindings(cell)
    if name == "ans_scale":
        for fname, fn in defs.items():
            inner = list(itertools.islice(ast.walk(fn), 2001))
            seeds = [n for n in inner if _callee(n) in {"manual_seed", "seed"}]
            if seeds and any(_callee(n) in _RANDOM_MAKERS for n in inner) and len(calls.get(fname, ())) >= 2:
                return (f"your sampler {fname}() calls {_quote(seeds[0], 40)} every time it runs, so each call returns "
                        "the same draw: the keys are the queries again, each query matches its own key far above the "
                        "rest, and the rows are near one-hot with the 1/sqrt(d_k) or without it, so the two runs "
                        "cannot differ; seed once, before the draws, not inside the sampler")
    if name == "ans_mask":
        for fname, fn in defs.items():
            body_loads = set().union(*(_loads(s) for s in fn.body)) if fn.body else set()
            unused = [a.arg for a in fn.args.args if a.arg not in body_loads]
            params = {a.arg for a in fn.args.args}
            passed = {n for c in calls.get(fname, []) for a in c.args for n in _loads(a)}
            # the name the calls pass in that the body reads anyway (the demo input) first, then the others by name
            outer = sorted((n for n in body_loads if n in bound and n not in params), key=lambda n: (n not in passed, n))
            if unused and outer and calls.get(fname):
                return (f"your helper {fname}({', '.join(a.arg for a in fn.args.args)}) never reads its argument "
                        f"{unused[0]}: it computes from {outer[0]}, bound in the cell, so the input you change never "
                        "reaches it and both calls give the same output: no leak can show; use the argument in its "
                        "body")
    if name == "ans_cross_shapes":
        for n in nodes:
            if not (_callee(n) == "cross_attention" and isinstance(n, ast.Call) and len(n.args) >= 2
                    and isinstance(n.args[0], ast.Name) and isinstance(n.args[1], ast.Name)):
                continue
            x, y = n.args[0].id, n.args[1].id
            last = bound.get(y, [])[-1:] if x != y else []
            if last and isinstance(last[0], ast.Name) and last[0].id == x:
                return (f"the line `{y} = {x}` (the self-attention trial?) is the cell's last binding of {y}: "
                        "cross_attention gets the same tensor as X and as Y, so T' = T, the shapes of options "
                        "a and b coincide and the first option tried matches; delete it, so Y has another length")
    if name == "ans_complexity":
        for fname, fn in defs.items():
            args = fn.args.args
            defaults = dict(zip([a.arg for a in args[len(args) - len(fn.args.defaults):]], fn.args.defaults))
            made = calls.get(fname, [])
            if len(made) < 2 or len(made) > 50:
                continue
            for i, a in enumerate(args):
                d = defaults.get(a.arg)
                low = a.arg.lower()
                if not (isinstance(d, ast.Constant) and type(d.value) is int) or not (
                        low.startswith("t") or "len" in low or "seq" in low or low in {"n", "n_k", "nk"}):
                    continue   # a length only (T_k, seq_len, n): a width or a head count left fixed is right
                if all(len(c.args) <= i and all(k.arg != a.arg for k in c.keywords) for c in made):
                    return (f"every call of {fname}() (`{_quote(made[0], 40)}`) leaves {a.arg} at its default "
                            f"{d.value}, so only the other length grows: the count doubles when T doubles because "
                            f"{a.arg} is held fixed; in self-attention the keys are the same T tokens, so pass T for "
                            f"{a.arg} too")
    return None


def shadowed_def_said(submission: object, func: str) -> str:
    """"" or a sentence where the notebook defines `def func` more than once at top level (blind65's corrected
    causal_additive_mask written above the first attempt, which, defined last, is the one that runs): the last def
    is quoted by its statement that writes a -1e9 (where it has one), and an earlier def that uses torch.finfo is
    said never to run (naming round 65). A bounded read: at most 20000 nodes of each def."""
    defs = [n for tree in _cell_trees(submission) for n in tree.body
            if isinstance(n, ast.FunctionDef) and n.name == func]
    if len(defs) < 2:
        return ""
    last = defs[-1]
    nodes = list(itertools.islice(ast.walk(last), 20001))
    if len(nodes) > 20000:
        return ""
    line = next((s for s in last.body for n in itertools.islice(ast.walk(s), 2000)
                 if isinstance(n, ast.Constant) and type(n.value) is float and abs(n.value) == 1e9), None)
    finfo = any(isinstance(n, ast.Attribute) and n.attr == "finfo" or isinstance(n, ast.Name) and n.id == "finfo"
                for n in itertools.islice(itertools.chain.from_iterable(ast.walk(d) for d in defs[:-1]), 20000))
    return (f"; your notebook defines {func} {len(defs)} times, and the last def is the one that runs"
            + (" (the one that fills the blocked entries with -1e9)" if line is not None else "")
            + (": it replaces the earlier def that uses torch.finfo(dtype).min, which never runs" if finfo else "")
            + "; delete the def you do not mean")


# --- round 66 (blind66) ------------------------------------------------------------------------------


_RESHAPE_CRASH = re.compile(r"is invalid for input of size|Expected size for first two dimensions|must match the size|"
                            r"size mismatch|shape mismatch")


def _query_length_names(fn_def: ast.FunctionDef, q: str) -> set[str]:
    """Names the function binds to Q's length (the size at -2): `T = Q.shape[-2]`, `T = Q.size(-2)` (0 or 1 too, the
    lengths of 2-D and 3-D Q), or the element before the last of `*batch, T, d_k = Q.shape`."""
    def is_q_shape(n: ast.AST) -> bool:
        return (isinstance(n, ast.Attribute) and n.attr == "shape" and isinstance(n.value, ast.Name) and n.value.id == q
                or isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "size"
                and not n.args and isinstance(n.func.value, ast.Name) and n.func.value.id == q)
    names: set[str] = set()
    for n in ast.walk(fn_def):
        if not (isinstance(n, ast.Assign) and len(n.targets) == 1):
            continue
        t, v = n.targets[0], n.value
        if isinstance(t, ast.Name) and is_query_length(v, q):
            names.add(t.id)
        elif isinstance(t, (ast.Tuple, ast.List)) and is_q_shape(v) and len(t.elts) >= 2 \
                and isinstance(t.elts[-2], ast.Name):
            names.add(t.elts[-2].id)
    return names


def is_query_length(n: ast.AST, q: str) -> bool:
    """`Q.shape[-2]` (or [0], [1]) or `Q.size(-2)` (or 0, 1): Q's length read off Q."""
    def index(e: ast.AST) -> int | None:
        if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub) and isinstance(e.operand, ast.Constant):
            e = ast.Constant(-e.operand.value) if type(e.operand.value) is int else e
        return e.value if isinstance(e, ast.Constant) and type(e.value) is int else None
    if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Attribute) and n.value.attr == "shape" \
            and isinstance(n.value.value, ast.Name) and n.value.value.id == q:
        return index(n.slice) in (-2, 0, 1)
    return (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "size" and len(n.args) == 1
            and isinstance(n.func.value, ast.Name) and n.func.value.id == q and index(n.args[0]) in (-2, 0, 1))


def keys_reshaped_with_query_length(submission: object) -> str | None:
    """The reshape / view of K (scaled_scores' second parameter) that uses Q's length (a name bound to it, or
    Q.shape[-2] itself), quoted (bounded); None where the last `def scaled_scores` has none."""
    from autograder.grading.pyparse import unparse
    from autograder.grading.source_checks import cells_of, last_function_def
    node = last_function_def(cells_of(submission), "scaled_scores", max_chars=20_000) if submission is not None else None
    if node is None or len(node.args.args) < 2:
        return None
    q, k = node.args.args[0].arg, node.args.args[1].arg
    lengths = _query_length_names(node, q)
    for n in ast.walk(node):
        if (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("reshape", "view")
                and isinstance(n.func.value, ast.Name) and n.func.value.id == k
                and any(isinstance(a, ast.Name) and a.id in lengths or is_query_length(a, q)
                        for arg in n.args for a in ast.walk(arg))):
            return unparse(n)[:80]
    return None


def raise_if_keys_reshaped_with_query_length(e: StudentCodeError, fn: Callable[..., object], Q: torch.Tensor,
                                             K: torch.Tensor, submission: object) -> None:
    """q02: a crash on T_q != T_k (a reshape or bmm size error) named keys_reshaped_with_query_length when the cell
    reshapes K with Q's length and a second call, the same Q with T_q keys (K's rows repeated or cut), runs and
    is right (blind66): code that holds only for self-attention's T_q == T_k."""
    T_q, T_k = Q.shape[-2], K.shape[-2]
    if T_q == T_k or e.exc_type != "RuntimeError" or not _RESHAPE_CRASH.search(e.message):
        return
    said = keys_reshaped_with_query_length(submission)
    if said is None:
        return
    Kc = K.index_select(-2, torch.arange(T_q) % T_k)
    try:
        out = fn(Q, Kc)
    except StudentCodeError:
        return
    if is_right(out, ref.scaled_scores(Q.double(), Kc.double()), Q.dtype):
        raise Misconception("keys_reshaped_with_query_length", f"your code raised {e.exc_type} on {T_q} queries and "
                            f"{T_k} keys (`{said}`), and with {T_q} keys it is right: "
                            + describe("keys_reshaped_with_query_length")) from None


_PER_KEY_REDUCTIONS = frozenset({"any", "all", "sum", "amax", "max", "norm", "count_nonzero", "abs_sum", "mean"})


def _per_key_reduction(n: ast.AST) -> bool:
    """A reduction over the query axis (dim / axis 0 or -2): one number per key, a column of the scores."""
    if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute | ast.Name)
            and (n.func.attr if isinstance(n.func, ast.Attribute) else n.func.id) in _PER_KEY_REDUCTIONS):
        return False
    dims = [kw.value for kw in n.keywords if kw.arg in ("dim", "axis")]
    if not dims and isinstance(n.func, ast.Attribute) and n.args:   # S.any(0), S.sum(0); torch.any(S, 0) below
        dims = [n.args[-1]] if isinstance(n.func.value, ast.Name) and n.func.value.id in ("torch", "np", "numpy") \
            and len(n.args) >= 2 else [n.args[0]]
    for d in dims:
        if isinstance(d, ast.UnaryOp) and isinstance(d.op, ast.USub) and isinstance(d.operand, ast.Constant) \
                and d.operand.value == 2:
            return True
        if isinstance(d, ast.Constant) and type(d.value) is int and d.value == 0:
            return True
    return False


def rank_from_nonzero_key_columns(submission: object, name: str) -> str | None:
    """The per-key reduction (S.abs().sum(dim=0), S.any(dim=0), count over axis 0) that the notebook's last
    module-level assignment of `name` reads, in it or through names the same cell bound, quoted (bounded): the
    keys with a non-zero score column counted as the rank (blind66). None otherwise."""
    from autograder.grading.pyparse import unparse
    last = _last_assignment(submission, name)
    if last is None:
        return None
    value, bound = last
    found: list[ast.AST] = []
    if _reaches(value, bound, lambda n: _per_key_reduction(n) and not found.append(n), set()):
        return unparse(found[0])[:70]
    return None


def nonzero_key_columns() -> int:
    """How many keys get a non-zero score from some query in the lesson's S = Q K^T (3: keys 3 and 5 are
    orthogonal to every query); the same for the scaled S."""
    Q, K = ref.lesson_qk()
    return int((Q @ K.T != 0).any(dim=0).sum())


def raise_if_rank_from_key_columns(got: int, submission: object, name: str) -> None:
    """rank_S_lesson equal to the number of keys with a non-zero score column, where the cell counts such columns
    (a reduction over the query axis): a count of columns, not of independent ones (blind66)."""
    cols = nonzero_key_columns()
    src = rank_from_nonzero_key_columns(submission, name) if got == cols != ref.rank_S_lesson else None
    if src is not None:
        raise Misconception("rank_counts_nonzero_columns", f"{name} is {got}, the number of keys with a non-zero score "
                            f"column in the lesson's S, which `{src}` counts; S has rank {ref.rank_S_lesson}: "
                            + describe("rank_counts_nonzero_columns"))


def _def_calls(submission: object, func: str, attr: str) -> list[ast.Call]:
    """The calls `x.attr(...)` / `torch.attr(x, ...)` in the notebook's last `def func` (parsed, bounded)."""
    from autograder.grading.source_checks import cells_of, last_function_def
    node = last_function_def(cells_of(submission), func, max_chars=20_000) if submission is not None else None
    return [n for n in ast.walk(node) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
            and n.func.attr == attr] if node is not None else []


def _axis_arg(call: ast.Call) -> ast.AST | None:
    """The axis a squeeze call names (x.squeeze(0), x.squeeze(dim=0), torch.squeeze(x, 0)); None for none."""
    on_torch = isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name) \
        and call.func.value.id in ("torch", "np", "numpy")
    args = call.args[1:] if on_torch else call.args
    dims = [kw.value for kw in call.keywords if kw.arg in ("dim", "axis")]
    return (list(args) + dims or [None])[0]


def raise_if_batch_of_one_squeezed(fn: Callable[..., object], X: torch.Tensor, W: tuple[torch.Tensor, ...],
                                   submission: object) -> None:
    """q01 on a real batch of one, X (1, T, d_model) (the notebook: X is (..., T, d_model)): Q, K, V must keep the
    batch axis. Named batch_of_one_squeezed where they are the right values without it and the def squeezes axis 0
    (squeeze(0) run whether or not the axis was added, blind66); the same values without it otherwise are said, and
    anything else (a crash, another mistake) is left to the tests that charge it."""
    want = ref.project_qkv(X.double(), *(w.double() for w in W))
    try:
        got = fn(X.clone(), *W)
    except StudentCodeError:
        return
    if isinstance(got, (tuple, list)) and len(got) == 3 and all(is_right(g, w, X.dtype) for g, w in zip(got, want)):
        return
    squeezed = (isinstance(got, (tuple, list)) and len(got) == 3 and all(
        type(g) is torch.Tensor and tuple(g.shape) == tuple(w.shape[1:]) and is_right(g, w[0], X.dtype)
        for g, w in zip(got, want)))
    if not squeezed:   # another mistake on 3-D X (the axes swapped, blind58's) is test_project_views' to charge
        return
    zero = [c for c in _def_calls(submission, "project_qkv", "squeeze")
            if isinstance(a := _axis_arg(c), ast.Constant) and a.value == 0]
    if zero:
        from autograder.grading.pyparse import unparse
        raise Misconception("batch_of_one_squeezed", f"for a batch of one, X {tuple(X.shape)}, Q, K, V come back "
                            f"{tuple(got[0].shape)}, {tuple(got[1].shape)}, {tuple(got[2].shape)}: the right values "
                            f"without the batch axis (`{unparse(zero[0])[:50]}`), where {tuple(want[0].shape)} is "
                            "expected: " + describe("batch_of_one_squeezed"))
    raise AssertionError(f"for a batch of one, X {tuple(X.shape)}, Q has shape {tuple(got[0].shape)}: the right "
                         f"values without the batch axis, where {tuple(want[0].shape)} is expected; a batch of "
                         "size 1 keeps its axis")


def check_one_token_mask(fn: Callable[..., object], dtype: torch.dtype) -> None:
    """q04: causal_additive_mask(1, dtype) is [[0]] in the dtype asked (the notebook: a (T, T) tensor of that dtype);
    another dtype named by raise_if_one_token_mask_dtype, anything else wrong said."""
    M = fn(1, dtype)
    want = ref.causal_additive_mask(1, dtype)
    if type(M) is torch.Tensor and M.dtype == dtype and tuple(M.shape) == (1, 1) and torch.equal(M, want):
        return
    if type(M) is torch.Tensor:
        raise_if_one_token_mask_dtype(fn, M, 1, dtype)
        raise AssertionError(f"causal_additive_mask(1, {dtype}) is {M.tolist()} ({M.dtype}, shape {tuple(M.shape)}): "
                             f"for one token the mask is [[0.]] of shape (1, 1) in {dtype}")
    raise AssertionError(f"causal_additive_mask(1, {dtype}) returned a {type(M).__name__}, not a (1, 1) tensor")


def raise_if_one_token_mask_dtype(fn: Callable[..., object], M: torch.Tensor, T: int, dtype: torch.dtype) -> None:
    """q04: the mask for T = 1 ([[0]]) in another dtype than asked, where the same dtype is right for T = 2 and
    T = 5 (second calls): a one-token case built apart, without dtype= (torch.zeros(1, 1)), blind66."""
    if T != 1 or M.dtype == dtype or tuple(M.shape) != (1, 1) or not bool((M == 0).all()):
        return
    for n in (2, 5):
        try:
            again = fn(n, dtype)
        except StudentCodeError:
            return
        if not (type(again) is torch.Tensor and again.dtype == dtype
                and torch.equal(again, ref.causal_additive_mask(n, dtype))):
            return
    raise Misconception("one_token_mask_dtype", f"causal_additive_mask(1, {dtype}) is [[0]] in {M.dtype}, and for "
                        "T = 2 and T = 5 the mask is right in the dtype asked: " + describe("one_token_mask_dtype"))


def check_prefix_average_one_token(fn: Callable[..., object], submission: object) -> None:
    """q09: prefix_average_matrix(1), the 1 x 1 matrix [[1.]] (the notebook: a T x T matrix; the lesson's table
    starts at t = 1). A 0-d (or 1-D) tensor holding 1 is named prefix_average_squeezed where the def calls
    squeeze() with no axis (every size-1 axis removed, blind66); anything else wrong is said."""
    got = fn(1)
    want = ref.prefix_average_matrix(1)
    if type(got) is torch.Tensor and got.is_floating_point() and got.dtype != torch.float64 \
            and tuple(got.shape) == (1, 1) and is_right(got.double(), want, torch.float64):
        if got.dtype == torch.float32:   # right value, torch's default dtype (a T = 1 shortcut without dtype=, blind88)
            raise Misconception("prefix_average_float32", "prefix_average_matrix(1) is [[1.]] in float32, not float64: "
                                + describe("prefix_average_float32"))
        raise AssertionError(f"prefix_average_matrix(1) is [[1.]] in {got.dtype}, not float64")
    if is_right(got, want, torch.float64):
        return
    if type(got) is torch.Tensor and got.dim() < 2 and got.numel() == 1 and float(got.reshape(())) == 1.0:
        bare = [c for c in _def_calls(submission, "prefix_average_matrix", "squeeze") if _axis_arg(c) is None]
        if bare:
            from autograder.grading.pyparse import unparse
            raise Misconception("prefix_average_squeezed", f"prefix_average_matrix(1) has shape {tuple(got.shape)}, "
                                f"not (1, 1) (`{unparse(bare[0])[:50]}`): " + describe("prefix_average_squeezed"))
        raise AssertionError(f"prefix_average_matrix(1) has shape {tuple(got.shape)}: for one token the matrix is "
                             "the 1 x 1 [[1.]]")
    raise AssertionError("prefix_average_matrix(1) is not the 1 x 1 float64 matrix [[1.]]")


def check_prefix_average_repeat(fn: Callable[..., object], T: int) -> None:
    """q09: prefix_average_matrix(T) asked again with the first call's T, right after that call was right: a matrix
    kept between calls and changed again on each (a cached triangle divided in place by the counts, blind87) or a
    cache keyed by too little comes out different the second time. Told
    state_kept_between_calls: the same argument, a right answer, then a wrong one."""
    again = fn(T)
    if is_right(again, ref.prefix_average_matrix(T), torch.float64):
        return
    raise Misconception("state_kept_between_calls", f"prefix_average_matrix({T}) is right on its first call and wrong "
                        f"on the next call with the same T = {T}: what the first call leaves behind changes the next "
                        "answer: " + describe("state_kept_between_calls"))


# --- attention-pipeline q05: weights with NaN or inf

def raise_if_weights_not_finite(got: torch.Tensor, S: torch.Tensor, M: Any, what: str, fn: Any = None) -> None:
    """attention-pipeline q05: A with NaN or inf is named after the one unstable softmax that gives NaN/inf at exactly the same
    entries and the same finite values elsewhere; otherwise (none, or two alike) it is said, not named."""
    if not (got.dtype == S.dtype and tuple(got.shape) == tuple(S.shape) and not torch.isfinite(got).all()):
        return
    bad = ~torch.isfinite(got)
    hits = unstable_hits(fn, got, S, M)   # a second call tells one global maximum from S's row maximum (blind66)
    if len(hits) == 1:
        raise Misconception(hits[0], f"{what} contains NaN or inf at the same entries as {describe(hits[0])}"
                            + ("" if hits[0] == "softmax_max_before_mask" else ": subtract each row's own maximum before exponentiating"))
    raise_if_unnormalised_overflow(fn, got, S, M, what)   # the float64 replay unnormalised (blind36)
    Z = S if M is None else S + M
    e = torch.exp(Z - Z.amax(dim=-1, keepdim=True))
    if Z.shape[0] > 1 and builtin_sum_called() and nonfinite_hits(got, {"builtin_sum_over_tensor": e / e.sum(dim=0)}):
        raise Misconception("builtin_sum_over_tensor", f"{what} contains NaN or inf in {int(bad.sum())} of "
                            f"{bad.numel()} entries, at the same entries as each row's exp(s - max) divided by the sum "
                            "over the first axis (0 / 0 where that column's terms all underflow), and its finite "
                            "entries are that quotient too: " + describe("builtin_sum_over_tensor"))
    raise AssertionError(f"{what} contains NaN or inf in {int(bad.sum())} of {bad.numel()} entries, where "
                         "the correct weights are finite")


# --- attention-pipeline q07: a float16 causal input with a large masked key, on which honest float16 arithmetic is right

# The last token sees every key, its own (large) one too. With its own large query (the case before), its float16
# self-score was up to 0.14 off, and where another key's score was near it, honest float16 arithmetic moved its row of O
# by up to 1.4 (tolerance 5e-3): the lesson's own code run in float16 lost the test's point on 31 of 3000 draws (a
# full-marks notebook 41/42 in a batch), and a log-sum-exp softmax also after the first mend. Now that query is 0 (W_Q
# without the token's direction, the other queries random still), and a draw is kept only where the honest orders of
# float16 work all give float64's answer to half the tolerance (the next draw otherwise: 6 of 3006 draws over 3000 seeds;
# none of six honest ways then failed, and the mask after the softmax failed on every one).
HONEST_DRAWS = 20


def float16_large_key_input(rng: torch.Generator, draw_weights: Callable[[], tuple[torch.Tensor, ...]]
                            ) -> tuple[torch.Tensor, tuple[torch.Tensor, ...]]:
    """(X, (W_Q, W_K, W_V)) in float16, T = 8, d_model = 7: X from `rng`, the weights from `draw_weights()` (float64,
    d_k = 12); the last token's key scores 30 above query 0's own score with query 0, and its own query is 0.
    The last token is one feature j and W_Q's row j is 0, so its query is exactly 0 however it is projected (X @ W,
    products summed, in float32): a query 0 only up to rounding (W_Q without the token's direction, before 12-06) met
    the large key with a residue that depended on the projection, and a right broadcast product lost q07's point."""
    X, W = torch.zeros(0), ()
    for _ in range(HONEST_DRAWS):
        X = checks.randn((8, 7), rng, torch.float64)
        W_Q, W_K, W_V = draw_weights()
        d_k = W_Q.shape[-1]

        # the feature whose key scores highest with query 0 once it leaves the queries
        j = max(range(W_Q.shape[0]), key=lambda i: abs(float((X[0] @ _without_row(W_Q, i)) @ W_K[i])))
        W_Q = _without_row(W_Q, j)               # the last token's query is 0: its own row of A is uniform
        q0 = X[0] @ W_Q
        s00 = float(q0 @ (X[0] @ W_K)) / math.sqrt(d_k)
        x = torch.zeros(W_Q.shape[0], dtype=X.dtype)
        x[j] = 1.0
        X[-1] = (s00 + 30.0) * math.sqrt(d_k) / float(q0 @ W_K[j]) * x     # 30 above query 0's own score
        # its key and value within float16's reach (a masked score or the row-7 mean of V stays finite and precise)
        over = max(float((X[-1] @ W_K).abs().max()) / 2000.0, float((X[-1] @ W_V).abs().max()) / 1000.0)
        if over > 1.0:
            X[-1] /= over
        X, W = X.half(), (W_Q.half(), W_K.half(), W_V.half())
        if honest_float16_right(X, W):
            break
    return X, W


def _without_row(W: torch.Tensor, j: int) -> torch.Tensor:
    """W with its row j 0 (the feature j then reaches no column)."""
    out = W.clone()
    out[j] = 0.0
    return out


def float16_large_self_score_input(rng: torch.Generator, draw_weights: Callable[[], tuple[torch.Tensor, ...]]
                                   ) -> tuple[torch.Tensor, tuple[torch.Tensor, ...]]:
    """(X, (W_Q, W_K, W_V)) in float16, T = 4, d_model = 7: token 0 scores SELF_SCORE with itself, its row's only key
    under the causal mask (weight 1 exactly, however it is computed honestly), and the later tokens' queries are 0 (their
    rows uniform). exp(SELF_SCORE) is past float16's largest number: a softmax without each row's maximum subtracted
    gives NaN in row 0. Round 129: the large key's case (float16_large_key_input) had shown it in its last row only,
    and that row's query is 0 now."""
    X, W = torch.zeros(0), ()
    for _ in range(HONEST_DRAWS):
        X = checks.randn((4, 7), rng, torch.float64)
        W_Q, W_K, W_V = draw_weights()
        later = torch.linalg.qr(X[1:].T).Q                 # (7, 3): the span of the later tokens
        W_Q = W_Q - later @ (later.T @ W_Q)                # their queries are 0
        s00 = float((X[0] @ W_Q) @ (X[0] @ W_K)) / math.sqrt(W_Q.shape[-1])
        if abs(s00) < 0.05:                                 # token 0 scaled by at most 17: X @ W stays in float16
            continue
        X[0] *= math.sqrt(SELF_SCORE / abs(s00))           # q0 and k0 both scale: the score by its square
        if s00 < 0:
            W_Q = -W_Q
        X, W = X.half(), (W_Q.half(), W_K.half(), W_V.half())
        if honest_float16_right(X, W):
            break
    return X, W


SELF_SCORE = 14.0     # exp(14) = 1.2e6, past float16's 65504; the score itself is exact enough in float16


def honest_float16_right(X: torch.Tensor, W: tuple[torch.Tensor, ...]) -> bool:
    """The causal self-attention of float16 X, W computed honestly in float16 is float64's answer to half float16's
    tolerance, O and A: the reference's; and for each of three honest projections (X @ W; each product rounded to
    float16 and summed, as (X.unsqueeze(-1) * W).sum(-2) does; in float32, cast back), four attentions (the queries
    scaled before the product; a softmax written out with its maximum subtracted; exp(S - logsumexp(S)); the softmax in
    float32, cast back). The last token's query is 0 only up to its projection's rounding: a broadcast product's
    residue met a large key and cost a right notebook q07's point at 2 seeds in 5 (12-06, blind26's fixed variant)."""
    X64, W64 = X.double(), [w.double() for w in W]
    O64, A64 = ref.self_attention(X64, *W64, causal=True)
    future = torch.triu(torch.ones(X.shape[-2], X.shape[-2], dtype=torch.bool), 1)
    ways = [ref.self_attention(X, *W, causal=True)]
    for project in (lambda w: X @ w, lambda w: (X.unsqueeze(-1) * w).sum(-2), lambda w: (X.float() @ w.float()).to(X.dtype)):
        Q, K, V = (project(w) for w in W)
        scale = math.sqrt(Q.shape[-1])
        S = (Q @ K.transpose(-2, -1) / scale).masked_fill(future, float("-inf"))
        E = torch.exp(S - S.amax(-1, keepdim=True))
        weights = [torch.softmax(((Q / scale) @ K.transpose(-2, -1)).masked_fill(future, float("-inf")), -1),
                   E / E.sum(-1, keepdim=True), (S - S.logsumexp(-1, keepdim=True)).exp(),
                   torch.softmax(S.float(), -1).to(S.dtype)]
        ways += [(A @ V, A) for A in weights]
    rtol, atol = (t / 2 for t in checks.tolerances(torch.float16))
    return all(bool(((got.double() - want).abs() <= atol + rtol * want.abs()).all())
               for O, A in ways for got, want in ((O, O64), (A, A64)))


# --- attention-pipeline q01: the reference's projections and the rows flattened

def qkv_expected(X: torch.Tensor, W_Q: torch.Tensor, W_K: torch.Tensor, W_V: torch.Tensor
                 ) -> tuple[tuple[torch.Tensor, ...], dict[str, Any]]:
    """The reference's (Q, K, V) for these inputs, in float64, and its catalogued mistakes (q01 computes them while
    the worker runs the student's call)."""
    X64, W = X.double(), [w.double() for w in (W_Q, W_K, W_V)]
    return ref.project_qkv(X64, *W), {**ref.qkv_variants(X64, *W), **qkv_variants(X64, *W)}


LINEAR_CELL_CHARS = 20000   # a cell longer than this is not read for its nn.Linear calls (round 76)


def _linear_with_bias(submission: object) -> str | None:
    """The source of the first `nn.Linear(...)` (or `Linear(...)`) call in the notebook's code cells that keeps
    its default bias (source_checks.linear_bias_kept); None where there is none. Bounded: only cells
    whose text says Linear, each at most LINEAR_CELL_CHARS, parsed once."""
    from autograder.grading.pyparse import parse, unparse
    from autograder.grading.source_checks import cells_of, linear_bias_kept
    for source in cells_of(submission) if submission is not None else []:
        if "Linear" not in source or len(source) > LINEAR_CELL_CHARS:
            continue
        try:
            tree = parse(source)
        except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
            continue
        for n in ast.walk(tree):
            if linear_bias_kept(n):
                return unparse(n)[:60]
    return None


def assert_projection_matches(got: object, want: torch.Tensor, X: torch.Tensor, **kw: Any) -> None:
    """assert_matches for one of q01's Q, K, V; a failure it leaves unnamed whose result is the right one plus one
    constant row b (the same on every token and batch entry, b not 0) is projection_bias_added where the notebook
    builds an nn.Linear that keeps its default bias (naming round 76, blind76's nn.Linear with the weights copied
    in and bias=True left on): the replay (got - X W constant over the rows) and the source together."""
    try:
        assert_matches(got, want, **kw)
    except Misconception:
        raise
    except AssertionError:
        raise_if_projection_bias(got, want, kw.get("what", "the result"), kw.get("dtype") or want.dtype)
        raise


def raise_if_projection_bias(got: object, want: torch.Tensor, what: str, dtype: torch.dtype | None = None) -> None:
    """projection_bias_added (see assert_projection_matches) for one wrong projection; returns otherwise."""
    dtype = dtype or want.dtype
    if not (type(got) is torch.Tensor and got.is_floating_point() and got.shape == want.shape and want.dim() >= 2
            and bool(torch.isfinite(got).all())) or is_right(got, want, dtype):
        return
    rows = (got.detach().double() - want.double()).reshape(-1, want.shape[-1])
    b = rows.median(dim=0).values
    lin = _linear_with_bias(current_submission()) if rows.shape[0] >= 2 else None
    if lin is not None and float(b.abs().max()) > 0 and is_right(got, want.double() + b, dtype):
        raise Misconception("projection_bias_added", f"{what} is X @ W plus one constant row (b ranging "
                            f"{float(b.min()):.3g} .. {float(b.max()):.3g}, the same on every token), and the notebook "
                            f"builds `{lin}` with its default bias: " + describe("projection_bias_added")) from None


def raise_if_value_width_cut(got: tuple[Any, ...], want: tuple[torch.Tensor, ...], X: torch.Tensor,
                             W: tuple[torch.Tensor, ...]) -> None:
    """value_width_cut_to_d_k: Q and K right, and V exactly X @ W_V[:, :d_k] where d_v > d_k (the test with d_v =
    12, d_k = 4): W_V cut to W_K's width so that the three weights stack (blind55's and blind59's `W_V[:, :d_k]`
    beside torch.stack of the weights, which crashes where d_v < d_k and is named qkv_stacked there)."""
    d_k, d_v = W[1].shape[-1], W[2].shape[-1]
    if len(got) != 3 or d_v <= d_k or not all(type(g) is torch.Tensor for g in got):
        return
    cut = X.double() @ W[2].double()[:, :d_k]
    if is_right(got[0], want[0], X.dtype) and is_right(got[1], want[1], X.dtype) and is_right(got[2], cut, X.dtype):
        raise Misconception("value_width_cut_to_d_k", f"V has shape {tuple(got[2].shape)}, expected "
                            f"{tuple(want[2].shape)}: it is X @ W_V[:, :{d_k}], the first d_k = {d_k} of W_V's {d_v} "
                            "columns: " + describe("value_width_cut_to_d_k"))


def raise_if_rows_flattened(got: tuple[Any, ...], want: tuple[torch.Tensor, ...], X: torch.Tensor,
                            dtype: torch.dtype, W: tuple[torch.Tensor, ...] | None = None) -> None:
    """Q, K, V each the right values with X's batch axes folded into its rows (X.reshape(-1, d_model) @ W,
    never shaped back): the code handles a 2-D X only. Named only when all three are exactly that. With the
    weights `W`, a V cut to W_K's width is named first (raise_if_value_width_cut)."""
    if W is not None:
        raise_if_value_width_cut(got, want, X, W)
    if X.dim() <= 2:
        return
    flat = [w.reshape(-1, w.shape[-1]) for w in want]
    if all(type(g) is torch.Tensor and g.shape == f.shape and matching_variants(g, {"right": f}, dtype)
           for g, f in zip(got, flat)):
        raise Misconception("batched_input_unsupported", f"Q, K, V have shape {tuple(got[0].shape)} for X "
                            f"{tuple(X.shape)}: the right values with the batch axes flattened into the rows, where "
                            f"{tuple(want[0].shape)} is expected: " + describe("batched_input_unsupported"))


def assert_rows_at_their_precision(got: torch.Tensor, want: torch.Tensor, S: torch.Tensor, what: str,
                                   variants: Callable[[], Mapping[str, torch.Tensor]] = dict) -> None:
    """attention-pipeline q05's large float32 scores: each row of weights within float32's tolerance widened only by its
    own scores' size (2 eps max|S_row|), not by the largest score of the case. Red-team round 129: with the case's one
    rtol (about 8e-4), a softmax computed in float16 and cast back passed, its uniform row of tiny scores 2.4e-4 off
    relatively where that row's precision allows 1e-5; honest float32 ways give that row exactly. Named where one
    catalogued mistake of `variants()` gives `got` (to float32's tolerance)."""
    rtol0, atol = checks.tolerances(torch.float32)
    row_rtol = (2 * torch.finfo(torch.float32).eps * S.double().abs().amax(dim=-1, keepdim=True)).clamp(min=rtol0)
    diff = (got.double() - want.double()).abs()
    over = diff > atol + row_rtol * want.double().abs()
    if bool(over.any()):
        rows = sorted({tuple(i[:-1]) for i in over.nonzero().tolist()})
        keys = {k.split("/")[0] for k in matching_variants(got, dict(variants()), torch.float32)}
        if len(keys) == 1:
            key = keys.pop()
            raise Misconception(key, f"{what} is off in {len(rows)} row(s) whose scores are small: it matches "
                                + describe(key))
        raise AssertionError(f"{what} is off in {len(rows)} row(s) whose scores are small (row {rows[0]}: largest "
                             f"difference {float(diff[over].max()):.3g}, where float32 at those scores' size allows about "
                             f"{atol + float(row_rtol[rows[0]].max()) * float(want.double()[rows[0]].abs().max()):.3g}): "
                             "compute every step of the softmax in the scores' own dtype")



GLOBAL_SCALE_DEF_CHARS = 4000   # a def longer than this is not read for the root it scales by


def scale_read_from_global(submission: object, func: str) -> tuple[str, float, str] | None:
    """(name, its number, the binding's text) where the last `def func` takes the square root of a name it neither
    takes nor assigns (`math.sqrt(d_k)`, `d_k ** 0.5`) and the notebook's last module-level binding of that name is a
    positive number literal (blind67 q13: a try-out line `d_model, d_k, d_v = 6, 4, 2` in the cell). Source only,
    bounded: one def of at most GLOBAL_SCALE_DEF_CHARS characters, each cell's module-level assignments."""
    from autograder.grading.pyparse import unparse
    from autograder.grading.source_checks import cells_of, last_function_def
    fn = last_function_def(cells_of(submission), func, GLOBAL_SCALE_DEF_CHARS) if submission is not None else None
    if fn is None:
        return None
    own = {a.arg for a in ast.walk(fn.args) if isinstance(a, ast.arg)} | {
        n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    own |= {a.arg for n in ast.walk(fn) if isinstance(n, (ast.Lambda, ast.FunctionDef)) for a in ast.walk(n.args)
            if isinstance(a, ast.arg)}
    rooted: list[str] = []
    for n in ast.walk(fn):
        if _callee(n) == "sqrt" and len(n.args) == 1 and isinstance(n.args[0], ast.Name):
            rooted.append(n.args[0].id)
        elif isinstance(n, ast.BinOp) and isinstance(n.op, ast.Pow) and isinstance(n.left, ast.Name):
            power = n.right.operand if isinstance(n.right, ast.UnaryOp) and isinstance(n.right.op, ast.USub) else n.right
            if isinstance(power, ast.Constant) and power.value == 0.5:    # ** 0.5, ** -0.5
                rooted.append(n.left.id)
    for name in dict.fromkeys(r for r in rooted if r not in own):
        last: tuple[ast.AST, ast.AST] | None = None
        for tree in _cell_trees(submission):
            for node in tree.body:   # the last module-level statement that stores the name (any way) wins
                if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For, ast.With)) and any(
                        isinstance(t, ast.Name) and t.id == name and isinstance(t.ctx, ast.Store) for t in ast.walk(node)):
                    plain = _bindings(ast.Module(body=[node], type_ignores=[])).get(name) \
                        if isinstance(node, ast.Assign) else None
                    last = (plain[-1] if plain else node, node)
        if last is None or not isinstance(last[0], ast.Constant):
            continue
        number = last[0].value
        # a literal past a float's range is no width: float() of a 400-digit one raised OverflowError into q13's check,
        # a right cross_attention's 3 points lost (red-team round 130); int and float compare exactly, never overflow
        if type(number) in (int, float) and 0 < number < 1e300:
            return name, float(number), unparse(last[1])[:80]
    return None


@functools.lru_cache(maxsize=4)
def _scale_read_from_global_of(cells: tuple[str, ...], func: str) -> tuple[str, float, str] | None:
    """scale_read_from_global once per notebook: q13 asks on every output, right ones too, and each ask parsed every
    cell (a 460,000-character notebook: 2.4 s of the grader's CPU per grade, red-team round 130)."""
    class _Cells:   # what cells_of reads
        pass
    sub = _Cells()
    sub.cells = list(cells)   # type: ignore[attr-defined]
    return scale_read_from_global(sub, func)


def raise_if_scale_from_global(got: object, X: torch.Tensor, Y: torch.Tensor, W: Any, M: torch.Tensor | None,
                               func: str, dtype: torch.dtype) -> None:
    """reads_global_not_parameter for the scale (blind67 q13_inline_scores_scaled_by_demo_global_d_k): `func`
    divides the scores by the root of a notebook global bound to a number (the try-out d_k = 4), and (O, A) are
    exactly attention with that scale on these inputs, which differs from 1/sqrt(d_k) of the queries passed in.
    Both the source and the replay must show it: a length that equals the number by chance (T_q = 4) never names
    it without the global in the def."""
    if not (isinstance(got, (tuple, list)) and len(got) == 2 and all(type(t) is torch.Tensor for t in got)):
        return
    from autograder.grading.source_checks import cells_of
    sub = current_submission()
    found = _scale_read_from_global_of(tuple(cells_of(sub)), func) if sub is not None else None
    d_k = W[0].shape[-1]
    if found is None or found[1] == d_k:
        return
    name, number, bound = found
    X64, Y64, W64 = X.double(), Y.double(), [w.double() for w in W]
    O_g, A_g = _attend(X64 @ W64[0], Y64 @ W64[1], Y64 @ W64[2], None if M is None else M.double(), 1 / math.sqrt(number))
    if is_right(got[0], O_g, dtype) and is_right(got[1], A_g, dtype):
        raise Misconception("reads_global_not_parameter", f"(O, A) are exactly attention scaled by 1/sqrt({number:g}): "
                            f"`{func}` takes the root of the notebook's `{name}` (`{bound}`), not of the width of the "
                            f"queries passed in ({d_k} here); use Q.shape[-1] (or call scaled_scores): "
                            + describe("reads_global_not_parameter"))


_MASK_MAKERS = frozenset({"causal_additive_mask"})
_SCORES_MADE = frozenset({"scaled_scores", "matmul", "bmm", "einsum"})


def _weights_call_mask_first(submission: object) -> str | None:
    """The text of a call `attention_weights(a, b, ...)` in the last `def self_attention` whose first positional
    argument is the mask (a causal_additive_mask(...) call, or a name the def binds to an expression holding one)
    and whose second is the scores (a scaled_scores(...) call or a product, or a name bound to one): the helper
    `attention_weights(S, M=None)` given its arguments in the other order. None otherwise. Source only, one def of
    at most GLOBAL_SCALE_DEF_CHARS characters."""
    from autograder.grading.pyparse import unparse
    from autograder.grading.source_checks import cells_of, last_function_def
    fn = last_function_def(cells_of(submission), "self_attention", GLOBAL_SCALE_DEF_CHARS) \
        if submission is not None else None
    if fn is None:
        return None
    bound: dict[str, list[ast.AST]] = {}
    for n in ast.walk(fn):
        if isinstance(n, ast.Assign):
            for t in n.targets:
                if isinstance(t, ast.Name):
                    bound.setdefault(t.id, []).append(n.value)

    def holds(arg: ast.AST, hit: Callable[[ast.AST], bool]) -> bool:
        return _reaches(arg, bound, hit, set())

    def is_mask(x: ast.AST) -> bool:
        return _callee(x) in _MASK_MAKERS

    def is_scores(x: ast.AST) -> bool:
        return _callee(x) in _SCORES_MADE or isinstance(x, ast.BinOp) and isinstance(x.op, ast.MatMult)

    for n in ast.walk(fn):
        if _callee(n) == "attention_weights" and len(n.args) >= 2 and not n.keywords \
                and holds(n.args[0], is_mask) \
                and holds(n.args[1], is_scores) and not holds(n.args[1], is_mask):
            return unparse(n)[:80]
    return None


def weights_mask_first_crash(e: StudentCodeError, X: torch.Tensor, W: tuple[torch.Tensor, ...],
                             weights: Callable[..., object] | None) -> Misconception | None:
    """weights_helper_mask_first (blind67 q07_weights_helper_called_with_mask_in_first_position): self_attention with
    causal=False crashes on a None, its source calls attention_weights(<the mask>, <the scores>), and the student's own
    attention_weights given (None, S) on these inputs raises the very same error, while (S, None) is right: the scores
    land in the mask's slot and the None (no mask) in the scores'."""
    if weights is None or e.exc_type not in ("TypeError", "AttributeError") or "NoneType" not in e.message:
        return None
    call_text = _weights_call_mask_first(current_submission())
    if call_text is None:
        return None
    X64, W64 = X.double(), [w.double() for w in W]
    Q, K, _ = ref.project_qkv(X64, *W64)
    S = ref.scaled_scores(Q, K)
    try:
        weights(None, S.to(X.dtype))
    except StudentCodeError as again:
        if (again.exc_type, again.message) != (e.exc_type, e.message):
            return None
    else:
        return None
    try:
        ordered = weights(S.to(X.dtype), None)
    except StudentCodeError:
        return None
    if not is_right(ordered, ref.attention_weights(S, None), X.dtype):
        return None
    return Misconception("weights_helper_mask_first", f"{_said(e)} with causal=False: self_attention calls "
                         f"`{call_text}`, the mask first; your attention_weights given (None, S) raises the same, and "
                         "given (S, None) it is right: " + describe("weights_helper_mask_first"))


_SVD_PARTS = ("U", "S", "Vh")


def svd_part_counted(submission: object, name: str) -> tuple[str, int] | None:
    """(the text, the index) where the notebook's last `name = ...` reaches, through the names its cell binds, a part
    of torch.linalg.svd's (U, S, Vh) other than the singular values: `svd(S)[0]` (blind67 q11), `svd(S)[2]`, or a name
    that `U, s, Vh = torch.linalg.svd(S)` binds in the first or last place. None otherwise (`[1]`, svdvals, `s`)."""
    from autograder.grading.pyparse import unparse
    last = _last_assignment(submission, name)
    if last is None:
        return None
    value, bound = last
    unpacked: dict[str, int] = {}
    for tree in _cell_trees(submission):
        for node in tree.body:
            if isinstance(node, ast.Assign) and _callee(node.value) == "svd":
                for t in node.targets:
                    if isinstance(t, (ast.Tuple, ast.List)) and len(t.elts) == 3:
                        unpacked.update({e.id: i for i, e in enumerate(t.elts) if isinstance(e, ast.Name)})
    found: list[tuple[str, int]] = []

    def hit(x: ast.AST) -> bool:
        if isinstance(x, ast.Subscript) and _callee(x.value) == "svd" and isinstance(x.slice, ast.Constant) \
                and type(x.slice.value) is int and x.slice.value in (0, 2, -1, -3):
            found.append((unparse(x)[:70], x.slice.value % 3))
        elif isinstance(x, ast.Name) and isinstance(x.ctx, ast.Load) and unpacked.get(x.id, 1) != 1:
            found.append((x.id, unpacked[x.id]))
        return bool(found)

    _reaches(value, {k: v for k, v in bound.items() if k not in unpacked}, hit, set())
    return found[0] if found else None


def lesson_svd_part_counts(index: int) -> set[int]:
    """The counts of entries of part `index` of torch.linalg.svd of the lesson's S (scaled or not) above a tolerance
    (0 and the usual round-off cut-offs, signed or by size): what counting U's or Vh's entries as singular values gives."""
    Q, K = ref.lesson_qk()
    out: set[int] = set()
    for S in (Q @ K.T, Q @ K.T / math.sqrt(Q.shape[-1])):
        part = torch.linalg.svd(S)[index]
        for t in (0.0, 1e-12, 1e-10, 1e-8, 1e-6):
            out |= {int((part > t).sum()), int((part.abs() > t).sum())}
    return out


def raise_if_rank_read_from_parts(got: int, submission: object, name: str) -> None:
    """The rank counted on a part of the lesson's S that is not its independent directions: its non-zero key columns
    (blind66), or the entries of U (or Vh) of its SVD read as the singular values (blind67): the number replayed on
    the lesson's S, and the part read in the answer's cell."""
    raise_if_rank_from_key_columns(got, submission, name)
    raise_if_rank_by_hand_slip(got, submission, name)   # torch.unique's rows (blind68), elimination short (blind69)
    part = svd_part_counted(submission, name) if got != ref.rank_S_lesson else None
    if part is None or got not in lesson_svd_part_counts(part[1]):
        return
    which = _SVD_PARTS[part[1]]
    raise Misconception("rank_from_svd_vectors", f"{name} is {got}, a count of entries of {which} (`{part[0]}`): "
                        f"torch.linalg.svd returns (U, S, Vh), and element [{part[1]}] is the {_svd_part_shape(which)} "
                        f"matrix {which}, not the singular values; S has rank {ref.rank_S_lesson}: "
                        + describe("rank_from_svd_vectors"))


def _svd_part_shape(which: str) -> str:
    Q, K = ref.lesson_qk()
    return f"{Q.shape[0]} x {Q.shape[0]}" if which == "U" else f"{K.shape[0]} x {K.shape[0]}"


ANSWER_NAMES = ("ans_scale", "ans_mask", "ans_cross_shapes", "ans_cross_causal", "ans_complexity")


def raise_if_answer_of_other_question(submission: object, name: str, value: object) -> None:
    """answer_copied_from_other_question where the notebook's last binding of `name` is another question's answer
    name alone (blind67 q15: `ans_cross_causal = ans_mask`, Question 6's 'c') and the value is not this question's
    answer: the copy, read off the source, is the slip, whatever belief the copied letter stands for here."""
    from autograder.grading.source_checks import cells_of, copied_from
    other = copied_from(cells_of(submission), name) if submission is not None else None
    if other in ANSWER_NAMES and other != name:
        want = getattr(ref, name)
        checks.raise_if_answer_copied(submission, name, value, lambda v: isinstance(v, str)
                                      and v.strip().strip("()").strip().lower() == want)


_OUT_OF_PLACE_SCALES = frozenset({"div", "divide", "true_divide", "mul", "multiply"})


def raise_if_scaling_dropped(m: Misconception, func: str) -> None:
    """no_scale said with its cause (blind67 q08_scale_division_result_dropped): the last `def func` has a statement
    that only computes the scaled scores and drops them (`scores.div(math.sqrt(d_k))`, `scores / math.sqrt(d_k)` on a
    line of its own), so the name stays unscaled. The output already matches no_scale; the line is the cause."""
    from autograder.grading.pyparse import unparse
    from autograder.grading.source_checks import last_function_def
    if m.key != "no_scale":
        return
    sub = current_submission()
    from autograder.grading.source_checks import cells_of
    fn = last_function_def(cells_of(sub), func, GLOBAL_SCALE_DEF_CHARS) if sub is not None else None
    for n in ast.walk(fn) if fn is not None else ():
        if not isinstance(n, ast.Expr):
            continue
        v = n.value
        name = v.func.value.id if isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) \
            and v.func.attr in _OUT_OF_PLACE_SCALES and isinstance(v.func.value, ast.Name) else \
            v.left.id if isinstance(v, ast.BinOp) and isinstance(v.op, (ast.Div, ast.Mult)) \
            and isinstance(v.left, ast.Name) else None
        if name is not None:
            raise Misconception("no_scale", f"{m}: the line `{unparse(n)[:70]}` computes the scaled scores and drops "
                                f"them (an out-of-place division returns a new tensor and leaves `{name}` as it was); "
                                f"assign it, `{name} = {name} / math.sqrt(d_k)`, or divide in place with div_") from None


def _is_float32(n: ast.AST | None) -> bool:
    return isinstance(n, ast.Attribute) and n.attr == "float32" or isinstance(n, ast.Constant) and n.value == "float32"


def raise_if_float32_default_kept(m: Misconception, func: str) -> None:
    """float32_precision said with its cause (blind67 q01_helper_dtype_keyword_default_float32_never_passed): `func`
    calls a helper of the notebook whose parameter defaults to torch.float32 and never passes it (by keyword or in its
    place), so every result takes that default dtype. The output already matches float32_precision; the default and
    the call are the cause. Source only: the def and the helpers it calls, each at most GLOBAL_SCALE_DEF_CHARS long."""
    from autograder.grading.pyparse import unparse
    from autograder.grading.source_checks import cells_of, last_function_def
    sub = current_submission()
    if m.key != "float32_precision" or sub is None:
        return
    cells = cells_of(sub)
    fn = last_function_def(cells, func, GLOBAL_SCALE_DEF_CHARS)
    calls = [n for n in ast.walk(fn) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)] if fn else []
    for name in dict.fromkeys(c.func.id for c in calls if isinstance(c.func, ast.Name) and c.func.id != func):
        helper = last_function_def(cells, name, GLOBAL_SCALE_DEF_CHARS)
        if helper is None:
            continue
        positional = [*helper.args.posonlyargs, *helper.args.args]
        pairs = list(zip(positional[len(positional) - len(helper.args.defaults):], helper.args.defaults))
        pairs += [(a, d) for a, d in zip(helper.args.kwonlyargs, helper.args.kw_defaults) if d is not None]
        for arg, default in pairs:
            where = positional.index(arg) if arg in positional else len(positional) + 99
            mine = [c for c in calls if isinstance(c.func, ast.Name) and c.func.id == name]
            if _is_float32(default) and mine and all(
                    len(c.args) <= where and not any(k.arg in (arg.arg, None) for k in c.keywords) for c in mine):
                raise Misconception("float32_precision", f"{m}: `{name}`'s `{arg.arg}` defaults to torch.float32 and "
                                    f"`{func}` never passes it (`{unparse(mine[0])[:60]}`), so every result takes that "
                                    f"default whatever the input's dtype; pass {arg.arg}=X.dtype, or drop the cast") from None


def _transposes(n: ast.AST, name: str) -> bool:
    """`n` is `name` transposed on its last two axes (name.T, .mT, .t(), .transpose(-2, -1) or (-1, -2) or (0, 1) on a
    matrix, torch.transpose(name, ...), name.swapaxes(...))."""
    if isinstance(n, ast.Attribute) and n.attr in ("T", "mT") and isinstance(n.value, ast.Name):
        return n.value.id == name
    if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _TRANSPOSES:
        target = n.func.value
        if isinstance(target, ast.Name) and target.id in ("torch", "np") and n.args:
            target = n.args[0]
        return isinstance(target, ast.Name) and target.id == name
    return False


def keys_transposed_twice(func: str) -> str | None:
    """What says the cause of Q @ K where the last `def func(Q, K)` hands a transposed K to a helper of the notebook
    that transposes that very argument again (blind67 q02: `_dot_rows(Q, K.transpose(-2, -1))`, whose body is `A @
    B.transpose(-2, -1)`): the two transposes cancel. None otherwise. Source only, two defs of bounded size."""
    from autograder.grading.pyparse import unparse
    from autograder.grading.source_checks import cells_of, last_function_def
    sub = current_submission()
    cells = cells_of(sub) if sub is not None else []
    fn = last_function_def(cells, func, GLOBAL_SCALE_DEF_CHARS) if cells else None
    params = [a.arg for a in fn.args.args] if fn is not None else []
    if len(params) < 2:
        return None
    for call in (n for n in ast.walk(fn) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)):
        helper = last_function_def(cells, call.func.id, GLOBAL_SCALE_DEF_CHARS) if call.func.id != func else None
        if helper is None:
            continue
        inner = [a.arg for a in helper.args.args]
        for i, arg in enumerate(call.args[:len(inner)]):
            if _transposes(arg, params[1]) and any(_transposes(n, inner[i]) for n in ast.walk(helper)):
                return (f"`{func}` passes `{unparse(arg)[:40]}` to `{call.func.id}`, which transposes its `{inner[i]}` "
                        f"again, so the two transposes cancel; pass K itself to `{call.func.id}` (or transpose it "
                        "in one place only)")
    return None


# --- naming round 69: the lesson's rank counted by hand ---------------------------------------------------------------

RANK_CELL_NODES = 20000   # a bounded read of the answer's cell


def _rank_cell_nodes(submission: object, name: str) -> list[ast.AST]:
    """The nodes of the last cell that binds `name` outside any function, at most RANK_CELL_NODES (a bounded read)."""
    cell = _answer_cell(submission, name) if submission is not None else None
    return list(itertools.islice(ast.walk(cell), RANK_CELL_NODES)) if cell is not None else []


def lesson_distinct_row_counts() -> set[int]:
    """How many distinct rows the lesson's Q and S (scaled or not) have: the count torch.unique(..., dim=0) gives."""
    Q, K = ref.lesson_qk()
    return {len(torch.unique(t, dim=0)) for t in (Q, Q @ K.T, Q @ K.T / math.sqrt(Q.shape[-1]))}


def _unique_rows_call(nodes: list[ast.AST]) -> ast.Call | None:
    """A call of torch.unique(x, dim=0) or x.unique(dim=0) (rows made distinct) among `nodes`, else None."""
    for n in nodes:
        if _callee(n) == "unique" and isinstance(n, ast.Call):
            dims = [k.value for k in n.keywords if k.arg == "dim"]
            positional = n.args[1:2] if isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name) \
                and n.func.value.id == "torch" else n.args[:1]
            dim = (dims or positional or [None])[0]
            if isinstance(dim, ast.Constant) and dim.value in (0, -2):
                return n
    return None


def lesson_short_elimination_ranks() -> set[int]:
    """The pivots a hand row reduction counts on the lesson's S (scaled or not) when its elimination loop stops one
    row short (range(rank + 1, n_rows - 1)): the last row is never cleared. First non-zero or largest pivot."""
    Q, K = ref.lesson_qk()
    out: set[int] = set()
    for S in (Q @ K.T, Q @ K.T / math.sqrt(Q.shape[-1])):
        for largest in (False, True):
            rows = S.tolist()
            n, rank = len(rows), 0
            for col in range(len(rows[0])):
                live = [r for r in range(rank, n) if abs(rows[r][col]) > 1e-9]
                if not live:
                    continue
                pivot = max(live, key=lambda r: abs(rows[r][col])) if largest else live[0]
                rows[rank], rows[pivot] = rows[pivot], rows[rank]
                for r in range(rank + 1, n - 1):
                    f = rows[r][col] / rows[rank][col]
                    rows[r] = [a - f * b for a, b in zip(rows[r], rows[rank])]
                rank += 1
            out.add(rank)
    return out


def _short_elimination_loop(nodes: list[ast.AST]) -> ast.For | None:
    """A `for` loop nested in another `for` whose range stops at `<name> - 1` (range(rank + 1, n_rows - 1)), in a
    cell that calls no library rank (matrix_rank, svd, svdvals, qr): a hand row reduction one row short. Else None."""
    if any(_callee(n) in ("matrix_rank", "svd", "svdvals", "qr", "unique") for n in nodes):
        return None
    for outer in nodes:
        if not isinstance(outer, ast.For):
            continue
        for n in itertools.islice(ast.walk(outer), RANK_CELL_NODES):
            if n is outer or not isinstance(n, ast.For) or _callee(n.iter) != "range" \
                    or not isinstance(n.iter, ast.Call) or len(n.iter.args) < 2:
                continue
            stop = n.iter.args[1]
            if isinstance(stop, ast.BinOp) and isinstance(stop.op, ast.Sub) and isinstance(stop.right, ast.Constant) \
                    and stop.right.value == 1 and isinstance(stop.left, (ast.Name, ast.Call, ast.Attribute, ast.Subscript)):
                return n
    return None


def raise_if_rank_by_hand_slip(got: int, submission: object, name: str) -> None:
    """The lesson's rank counted by hand with one slip (naming round 69): the distinct rows of S (or Q) counted with
    torch.unique(..., dim=0) (blind68), or a row reduction whose elimination loop stops one row short, so the mixed
    last row is never cleared and counts as a pivot (blind69). Each named where a replay of that count on the lesson's
    S gives the student's number AND a bounded read of the answer's cell shows it."""
    from autograder.grading.pyparse import unparse
    if got == ref.rank_S_lesson or submission is None:
        return
    nodes = _rank_cell_nodes(submission, name)
    call = _unique_rows_call(nodes) if got in lesson_distinct_row_counts() else None
    if call is not None:
        raise Misconception("rank_counts_distinct_rows", f"{name} is {got}: `{unparse(call)[:60]}` keeps one copy of "
                            f"each different row, and the lesson's S has {got} different rows; the last one (0.5 q1 + "
                            f"0.5 q3) is a mix of two others, so S has rank {ref.rank_S_lesson}: "
                            + describe("rank_counts_distinct_rows"))
    loop = _short_elimination_loop(nodes) if got in lesson_short_elimination_ranks() else None
    if loop is not None:
        raise Misconception("elimination_skips_last_row", f"{name} is {got}: the elimination loop `for "
                            f"{unparse(loop.target)[:20]} in {unparse(loop.iter)[:50]}` stops before the last row, so "
                            f"the lesson's last row (0.5 q1 + 0.5 q3, a mix of two others) is never cleared and is "
                            f"counted as a pivot of its own; S has rank {ref.rank_S_lesson}: "
                            + describe("elimination_skips_last_row"))


# --- naming round 69: a Python list of rows that are one list ----------------------------------------------------------

def _list_times_list(fn: ast.AST) -> ast.BinOp | None:
    """`[[...] * n] * m` (or `[row] * m` where the same def bound row = [...] * n) in `fn`: a list of m references to
    one inner list, at most 20000 nodes read. None otherwise ([[0.0] * T for _ in range(T)] is not this)."""
    nodes = list(itertools.islice(ast.walk(fn), 20001))
    lists = (ast.List, ast.ListComp, ast.BinOp)
    rows = {t.id for n in nodes if isinstance(n, ast.Assign) and isinstance(n.value, lists)
            for t in n.targets if isinstance(t, ast.Name)}
    for n in nodes:
        if not (isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mult)):
            continue
        for seq in (n.left, n.right):
            inner = seq.elts[0] if isinstance(seq, ast.List) and len(seq.elts) == 1 else None
            if isinstance(inner, (ast.List, ast.ListComp)) or (isinstance(inner, ast.BinOp)
                                                               and isinstance(inner.op, ast.Mult)) \
                    or isinstance(inner, ast.Name) and inner.id in rows:
                return n
    return None


def raise_if_mask_rows_aliased(blocked: torch.Tensor, T: int) -> None:
    """The mask built from a Python list `[[0.0] * T] * T` (naming round 69, blind69 q04): the T rows are one list,
    so each row's writes land in every row. Replayed: the future pattern written row by row into one shared row
    blocks every key after the first in every row (only key 0 open); compared entry by entry (T >= 3), AND the last
    `def causal_additive_mask` (at most GLOBAL_SCALE_DEF_CHARS long) multiplies a list holding a list."""
    from autograder.grading.pyparse import unparse
    from autograder.grading.source_checks import cells_of, last_function_def
    if T < 3 or tuple(blocked.shape) != (T, T):
        return
    shared = torch.ones(T, T, dtype=torch.bool).triu(1).any(dim=0).expand(T, T)
    sub = current_submission()
    if not torch.equal(blocked.cpu(), shared) or sub is None:
        return
    fn = last_function_def(cells_of(sub), "causal_additive_mask", GLOBAL_SCALE_DEF_CHARS)
    product = _list_times_list(fn) if fn is not None else None
    if product is not None:
        raise Misconception("mask_rows_share_one_list", f"every row of the mask is the same, blocking every key after "
                            f"the first (only key 0 open, also for query 0): `{unparse(product)[:50]}` makes a list of "
                            f"{T} references to ONE row list, so blocking query t's future writes into every row: "
                            + describe("mask_rows_share_one_list"))


# --- naming round 69: the kernel smoother's running sum started in the query's shape ---------------------------------

_BUFFER_MAKERS = frozenset({"zeros", "zeros_like", "empty", "empty_like", "new_zeros", "new_empty", "full",
                            "full_like", "ones_like"})


def query_shaped_buffer(func: str) -> str | None:
    """The text of a buffer the last `def func` makes in the query's shape (torch.zeros_like(q), torch.zeros(q.shape),
    q.new_zeros(...), torch.zeros(d_k) where d_k = q.shape[...] in that def): q being the def's first parameter.
    Source only, bounded: one def of at most GLOBAL_SCALE_DEF_CHARS characters. None otherwise."""
    from autograder.grading.pyparse import unparse
    from autograder.grading.source_checks import cells_of, last_function_def
    sub = current_submission()
    fn = last_function_def(cells_of(sub), func, GLOBAL_SCALE_DEF_CHARS) if sub is not None else None
    if fn is None or not fn.args.args:
        return None
    nodes = list(itertools.islice(ast.walk(fn), 20001))
    query = {fn.args.args[0].arg}
    for n in nodes:   # names bound from the query (d_k = q.shape[0], n = len(q))
        if isinstance(n, ast.Assign) and any(isinstance(x, ast.Name) and x.id in query for x in ast.walk(n.value)):
            query |= {t.id for t in n.targets if isinstance(t, ast.Name)}
    for n in nodes:
        if not isinstance(n, ast.Call) or _callee(n) not in _BUFFER_MAKERS or not isinstance(n.func, ast.Attribute):
            continue
        owner = n.func.value
        reads = [*n.args[:1]] if isinstance(owner, ast.Name) and owner.id == "torch" else [owner]
        if any(isinstance(x, ast.Name) and x.id in query for r in reads for x in ast.walk(r)):
            return unparse(n)[:60]
    return None


def raise_if_nw_buffer_shaped_like_query(fn: Callable[..., object], e: StudentCodeError, q: torch.Tensor,
                                         K: torch.Tensor, V: torch.Tensor) -> None:
    """nadaraya_watson's running sum of value rows started in the query's shape (naming round 69, blind69 q08:
    numerator = torch.zeros_like(q)): the crash pairs d_k with d_v, a second call with values as wide as the keys
    (d_v = d_k, V redrawn) runs and is right, and the def makes a buffer from the query (query_shaped_buffer)."""
    d_k, d_v = q.shape[-1], V.shape[-1]
    said = f"The size of tensor a ({d_k}) must match the size of tensor b ({d_v})"
    if d_k == d_v or e.exc_type != "RuntimeError" or said not in (e.message or ""):
        return
    V2 = torch.randn((K.shape[0], d_k), generator=torch.Generator().manual_seed(3), dtype=V.dtype)
    try:
        again = fn(q, K, V2)
    except StudentCodeError:
        return
    buffer = query_shaped_buffer("nadaraya_watson")
    if buffer is not None and type(again) is torch.Tensor and is_right(again, ref.nadaraya_watson(q, K, V2), V.dtype):
        raise Misconception("accumulator_shaped_like_query", f"your code raised {e.exc_type}: {said}; "
                            f"`{buffer}` has the query's shape ({d_k},), but it adds up rows of V, ({d_v},) wide; "
                            f"with d_v = d_k = {d_k} it runs and is right: "
                            + describe("accumulator_shaped_like_query")) from None


# --- naming round 69: a helper's mutable default keeps the first call's results ----------------------------------------

def _mutable_default(fn: ast.FunctionDef) -> tuple[str, str] | None:
    """(parameter, default's text) of the first parameter of `fn` whose default is a list, dict or set made once
    (`results=[]`, `cache={}`, `list()`), else None."""
    from autograder.grading.pyparse import unparse
    positional = [*fn.args.posonlyargs, *fn.args.args]
    pairs = list(zip(positional[len(positional) - len(fn.args.defaults):], fn.args.defaults))
    pairs += [(a, d) for a, d in zip(fn.args.kwonlyargs, fn.args.kw_defaults) if d is not None]
    for arg, default in pairs:
        if isinstance(default, (ast.List, ast.Dict, ast.Set)) or (
                _callee(default) in ("list", "dict", "set") and isinstance(default, ast.Call)
                and isinstance(default.func, ast.Name)):
            return arg.arg, unparse(default)[:30]
    return None


def mutable_default_in_calls(func: str) -> tuple[str, str, str] | None:
    """(def, parameter, default) where the last `def func`, or a def of the notebook it calls by name, takes a
    parameter whose default is a list, dict or set (made once, when the def runs, and shared by every call).
    Source only, bounded: defs of at most GLOBAL_SCALE_DEF_CHARS characters, 20000 nodes read, the notebook's one
    cached parse (source_checks._parsed) read once for every name. Red-team round 131: each called name asked
    last_function_def, which parsed every cell holding the text `def name` again: a project_qkv calling 400 names
    (in a branch that never runs) beside 20 cells whose comment holds `def aa1111 ...` (83,000 characters) cost
    62 s of the grader's CPU per grade."""
    from autograder.grading.source_checks import _parsed, cells_of
    sub = current_submission()
    cells = tuple(cells_of(sub)) if sub is not None else ()
    defs: dict[str, ast.FunctionDef] = {}
    for number, tree in _parsed(cells).trees if cells else []:
        if len(cells[number - 1]) <= GLOBAL_SCALE_DEF_CHARS:
            defs.update((n.name, n) for n in getattr(tree, "body", []) if isinstance(n, ast.FunctionDef))
    fn = defs.get(func)
    if fn is None:
        return None
    names = [func] + [n.func.id for n in itertools.islice(ast.walk(fn), 20001)
                      if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id != func]
    for name in dict.fromkeys(names):
        helper = defs.get(name)
        found = _mutable_default(helper) if helper is not None else None
        if found is not None:
            return (name, *found)
    return None


def raise_if_results_stale(fn: Callable[..., object] | None, got: object, X: torch.Tensor,
                           W: tuple[torch.Tensor, ...], dtype: torch.dtype) -> None:
    """project_qkv giving back an earlier call's (Q, K, V) (naming round 69, blind69 q01: a helper's `results=[]`
    default, one list shared by every call, read at [0:3]): wrong here, a second call with a new X and new weights
    (same shapes) returns the very same tensors, not that call's right ones, AND the def or a helper it calls takes
    a list, dict or set default (mutable_default_in_calls)."""
    if fn is None or not (isinstance(got, (tuple, list)) and len(got) == 3) \
            or not all(type(g) is torch.Tensor for g in got):
        return
    want = ref.project_qkv(X.double(), *(w.double() for w in W))
    if all(tuple(g.shape) == tuple(w.shape) and matching_variants(g, {"right": w}, dtype) for g, w in zip(got, want)):
        return
    g = torch.Generator().manual_seed(69)
    X2, *W2 = (torch.randn(tuple(t.shape), generator=g, dtype=t.dtype) for t in (X, *W))
    try:
        again = fn(X2, *W2)
    except StudentCodeError:
        return
    if not (isinstance(again, (tuple, list)) and len(again) == 3 and all(
            type(a) is torch.Tensor and type(b) is torch.Tensor and a.shape == b.shape and torch.equal(a, b)
            for a, b in zip(again, got))):
        return
    found = mutable_default_in_calls("project_qkv")
    if found is not None:
        name, arg, default = found
        raise Misconception("mutable_default_keeps_results", f"project_qkv gives back the same Q, K, V (shapes "
                            f"{tuple(got[0].shape)}, {tuple(got[1].shape)}, {tuple(got[2].shape)}, another call's) "
                            f"for this X and for a second, new X and new weights: `{name}`'s `{arg}={default}` is made "
                            "once, when the def runs, and every call adds to that same object, so what is read from "
                            "it is an earlier call's: " + describe("mutable_default_keeps_results"))


def raise_if_scores_returned_beside_right_output(O: object, A: object, O_ref: torch.Tensor,
                                                 known: Mapping[str, Any], dtype: torch.dtype) -> None:
    """no_softmax said with its cause in cross_attention (naming round 69, blind69 q13 `return output, masked_scores`):
    A matches the scores used as weights, but O is right, so the softmax was computed and used for O and only the
    value returned in A's place is the scores from before it. Values only: O right, A that variant's A."""
    if not (type(A) is torch.Tensor and is_right(O, O_ref, dtype)):
        return
    if any(k.split("/")[0] == "no_softmax" and is_right(A, v[1], dtype) for k, v in known.items()):
        raise Misconception("no_softmax", "A is wrong: it matches " + describe("no_softmax") + "; but O is right, so "
                            "the softmax weights were made and O was computed with them: the A returned is the scaled "
                            "scores (with the mask added) from before the softmax, not those weights; return the "
                            "weights O was computed with as the second value")


# --- naming round 74 (blind74: NumPy habits; blind75: slips of the hand) -----------------------------------------

def _answer_cell_comments(submission: object, name: str, limit: int = 6000) -> str | None:
    """The comments (joined, lower case) of the cell that binds `name` at top level, read with tokenize; None where
    there is no such cell, it is longer than `limit` characters, or it does not tokenize (a bounded read)."""
    import io
    import tokenize
    source = _answer_cell_source(submission, name)
    if source is None or len(source) > limit:
        return None
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return None
    return " ".join(t.string.lstrip("#").strip() for t in tokens if t.type == tokenize.COMMENT)


# what each option of a letter question says, as words a student's comment uses for it (ans_scale, q03)
_SCALE_OPTION_WORDS = {
    "a": r"flatt?e|\brises?\b|\brising\b|uniform|spread|toward log",
    "b": r"one[- ]?hot|\bone key\b|collaps|nearly all|all (?:of )?(?:its|the) weight|peak|saturat|sharp|concentrat"
         r"|fall\w* (?:toward|to) (?:0|zero)|entrop\w* (?:go|goes|drop|drops|fall|falls) (?:toward |to )?(?:0|zero)",
    "c": r"nothing changes|unchanged|invariant|same constant|no effect|doesn'?t change|does not change|cancel",
    "d": r"negative|below (?:0|zero)|less than (?:0|zero)",
}
# a comment with a negation may describe an option to reject it ('c' beside "the rows do not collapse onto one key"
# was told letter_contradicts_comment, red-team round 136): such a comment is not read as reasoning for one option
_NEGATION = re.compile(r"\b(?:not|no|never|nor|neither|none|cannot|isn'?t|aren'?t|don'?t|doesn'?t|won'?t|can'?t"
                       r"|wouldn'?t|shouldn'?t)\b|n't\b")


def _negated(what: str, option: str, comments: str) -> bool:
    """Whether the comments negate what they say of `option`: for ans_scale, a negation among the three words before
    one of the option's words in its clause (`do not collapse`, `never one-hot`; `no 1/sqrt(d_k): rows become
    one-hot` and `no scaling, so the softmax saturates` are not); for ans_cross_shapes, a negation anywhere (`S is
    not T x T'`)."""
    if what != "ans_scale":
        return _NEGATION.search(comments) is not None
    for m in re.finditer(_SCALE_OPTION_WORDS[option], comments):
        clause = re.split(r"[:;,.!?()\[\]→]|->|=>", comments[max(0, m.start() - 80):m.start()])[-1]
        before = " ".join(clause.split()[-3:])
        if _NEGATION.search(before):
            return True
    return False


_CROSS_OPTIONS = {"a": (("t", "t"), "t"), "b": (("t", "t'"), "t"), "c": (("t'", "t"), "t'"), "d": (("t", "t'"), "t'")}


def _options_in_comment(what: str, comments: str) -> set[str]:
    """The options of `what` that the comments describe: for ans_scale, every option whose words occur; for
    ans_cross_shapes, the option whose S shape (T x T', written with x, *, × or 'by') and O rows (T x d_v, or 'one
    row per query / key') the comments state, each said once (two S shapes or two O row counts: none)."""
    if what == "ans_scale":
        return {k for k, words in _SCALE_OPTION_WORDS.items() if re.search(words, comments)}
    if what != "ans_cross_shapes":
        return set()
    # whitespace runs made one space first, and an O's rows looked for within 120 characters of it (red-team round
    # 136: a 6,000-character comment of `o*` or of spaces took 1.2 s of the trusted process's CPU, a scan to the
    # end of the text from every `o`, and \s* around each separator retried along every run)
    text = " ".join(comments.replace("’", "'").replace("`", "").split())
    text = re.sub(r" ?(?:×|\*|\bby\b) ?", " x ", text)
    o_rows = {m.group(1) for m in re.finditer(r"\b(t'?)\s*x\s*d_?\{?v\b", text)}
    o_rows |= {"t" for _ in re.finditer(r"\bo\b[^.;]{0,120}?(?:one )?rows? (?:per|for each) (?:query|queries)", text)}
    o_rows |= {"t'" for _ in re.finditer(r"\bo\b[^.;]{0,120}?(?:one )?rows? (?:per|for each) (?:key|keys)", text)}
    s_shapes = {(m.group(1), m.group(2)) for m in re.finditer(r"\b(t'?)\s*x\s*(t'?)(?![\w'])", text)}
    if len(o_rows) != 1 or len(s_shapes) != 1:
        return set()
    said = (next(iter(s_shapes)), next(iter(o_rows)))
    return {k for k, shapes in _CROSS_OPTIONS.items() if shapes == said}


def raise_if_letter_contradicts_comment(what: str, value: object, submission: object) -> None:
    """letter_contradicts_comment (naming round 74, blind75's 'd' typed for 'b' beside "rows collapse onto one key",
    and 'd' beside "S is T x T', O has one row per query"): a letter written as a literal (not worked out by code)
    whose cell's comments describe exactly one option, the right one, and none of the letter's own words: the
    reasoning is right and the letter is not the option it describes. Only where the comments are unambiguous."""
    if type(value) is not str or len(value.strip()) != 1 or submission is None:
        return
    right = ref.__dict__.get(what)
    letter = value.strip().lower()
    if right is None or letter == right or letter not in "abcd" or _computed_by_code(submission, what):
        return
    comments = _answer_cell_comments(submission, what)
    if not comments or _options_in_comment(what, comments.lower()) != {right} or _negated(what, right, comments.lower()):
        return   # a comment that negates (`do not collapse onto one key` beside 'c') argues against it (rt136)
    raise Misconception("letter_contradicts_comment", f"{what} is {value!r}, but the comment beside it "
                        f"(`{comments[:90]}`) describes another option than {value!r}: "
                        + describe("letter_contradicts_comment"))


_KEYS_FIRST_PRODUCT = re.compile(
    r"\b(?:np\.|torch\.|numpy\.)?(?:dot|matmul|mm|inner)\s*\(\s*k\w*\s*,\s*q\w*\s*(?:\.t\b|\.mt\b|\.transpose)"
    r"|\bk\w*\s*@\s*q\w*\s*(?:\.t\b|\.mt\b|\.transpose)|\bk\s*q\s*\^\s*\{?t\b|\bk\s*q\.t\b"
    # R, tokens as columns (blind80): crossprod(K, Q) = t(K) %*% Q, keys on the rows (naming round 80)
    r"|\bcrossprod\s*\(\s*k\w*\s*,\s*q\w*\s*\)|\bt\s*\(\s*k\w*\s*\)\s*%\*%\s*q\w*")


_QUERIES_FIRST_PRODUCT = re.compile(
    r"\b(?:np\.|torch\.|numpy\.)?(?:dot|matmul|mm|inner)\s*\(\s*q\w*\s*,\s*k\w*\s*(?:\.t\b|\.mt\b|\.transpose)"
    r"|\bq\w*\s*@\s*k\w*\s*(?:\.t\b|\.mt\b|\.transpose)|\bq\s*k\s*\^\s*\{?t\b|\bq\s*k\.t\b"
    r"|\bcrossprod\s*\(\s*q\w*\s*,\s*k\w*\s*\)|\bt\s*\(\s*q\w*\s*\)\s*%\*%\s*k\w*")


def _lower_in_place(source: str) -> str:
    """`source` in lower case, each character kept where its lower case is longer ('İ' lowers to two): a match's
    positions are then the source's own (red-team round 136: 48 'İ' in a comment moved q14's quote of `# S = K @ Q.T`
    two lines down, to `ans_cross_shapes = "c"`, and q11's comparison test onto another line)."""
    return "".join(c if len(low := c.lower()) != 1 else low for c in source)


def _line_at(source: str, at: int) -> str:
    """The line of `source` that holds position `at`, stripped (and its leading # dropped): the evidence quoted."""
    start, end = source.rfind("\n", 0, at) + 1, source.find("\n", at)
    return source[start:end if end >= 0 else len(source)].strip().lstrip("#").strip()


def raise_if_keys_first_scores_said(value: object, submission: object) -> None:
    """scores_transposed for ans_cross_shapes (naming round 74, blind74's `S = np.dot(K, Q.T)` comment): the answer
    is 'c' (S: T' x T, O: T' x d_v) and its cell (code or comments, a bounded read) writes the scores keys first,
    K @ Q.T, np.dot(K, Q.T), matmul(K, Q.transpose(...)) or K Q^T: the layout, not a role swap, made the choice.
    A cell that says only 'keys first' or reasons from shapes (no such product) is left to the option's key."""
    if value != "c" or submission is None:
        return
    source = _answer_cell_source(submission, "ans_cross_shapes")
    if source is None or len(source) > 6000:
        return
    lowered = _lower_in_place(source)
    found = _KEYS_FIRST_PRODUCT.search(lowered)
    if found is None:
        return
    line_start = lowered.rfind("\n", 0, found.start()) + 1
    clause = re.split(r"[:;,.!?()\[\]→]|->|=>", lowered[line_start:found.start()])[-1]
    if _NEGATION.search(clause) or _QUERIES_FIRST_PRODUCT.search(lowered):
        # `S = Q @ K.T, not K @ Q.T` (rt136): the product written to be rejected, or beside the queries-first one
        return
    raise Misconception("scores_transposed", f"ans_cross_shapes is 'c': your cell writes the scores keys first "
                        f"(`{_line_at(source, found.start())[:80]}`), " + describe("scores_transposed") + "; the "
                        "notebook's S = Q K^T (tokens as rows) has one row per query and one column per key, and O = A V "
                        "one row per query: a keys-first layout (NumPy's data-matrix habit, or a kernel's memory order) "
                        "does not change those shapes")


_SVD_COUNT = re.compile(r"\blen\s*\([^\n#]*svd|svd\w*\s*\([^\n#]*\)\s*(?:\[\s*1\s*\]|\.s\b)?\s*\.\s*(?:shape|numel|size"
                        r"|nelement)|(?:number|count) of (?:the |its )?singular values")


def raise_if_singular_values_counted(got: int, submission: object, name: str) -> None:
    """rank_counts_all_singular_values (naming round 74, blind74's `rank = len(np.linalg.svd(S)[1])`): the answer is
    the number of singular values of the lesson's S, min(T_q, T_k), and the cell that binds it (code or comments, a
    bounded read, no hermitian= in it) counts svd's values by length (len(...svd...), svdvals(S).shape / .numel(),
    "number of singular values"). Not where a comparison is counted (len(s > tol): rank_len_of_boolean_mask)."""
    Q, K = ref.lesson_qk()
    if got != len(torch.linalg.svdvals(Q @ K.T)) or submission is None:
        return
    source = _answer_cell_source(submission, name)
    if source is None or len(source) > 6000 or "hermitian" in source:
        return
    found = _SVD_COUNT.search(_lower_in_place(source))
    if found is None or re.search(r"[<>]|!=|==", (source[found.start():] + "\n").split("\n")[0]):
        return   # a comparison counted (len(s > tol), sum(s != 0)): another kind
    raise Misconception("rank_counts_all_singular_values", f"{name} is {got}, the number of singular values of S "
                        f"(`{_line_at(source, found.start())[:80]}`): the lesson's S is {Q.shape[0]} x "
                        f"{K.shape[0]}, so it has {got} of them, the zero ones included; its rank is "
                        f"{ref.rank_S_lesson}: " + describe("rank_counts_all_singular_values"))


_NUMPY_FLOAT64 = re.compile(
    r"\b(?:np|numpy)\.\w+\([^\n]*\bdtype\s*=\s*(?:float\b|(?:np|numpy)\.(?:float64|double|float_)\b|['\"]float64['\"])"
    r"|\b(?:np|numpy)\.(?:zeros|ones|empty|full)\((?![^\n]*\bdtype\b)"
    r"|\.astype\(\s*(?:float\b|(?:np|numpy)\.(?:float64|double|float_)\b|['\"]float64['\"])")


def numpy_float64_said(check: Callable[[], None], func: str) -> None:
    """check(); where it names dtype_changed or dtype_mix (float64 where the input's dtype was asked), the key kept
    and its cause said where `func`'s own text (def_text, bounded) makes a NumPy array in float64 (naming round 74,
    blind74's out=np.zeros(a.shape) turned back with torch.from_numpy, np.asarray(M, dtype=float)): NumPy's default
    float, and `float` as a dtype, are float64, and torch.from_numpy keeps the array's dtype."""
    try:
        check()
    except (Misconception, StudentCodeError) as e:   # a crash: what the runner would name it (crash_words)
        from autograder.grading.source_checks import cells_of
        sub = current_submission()
        m = e if isinstance(e, Misconception) else crash_words.crash_words(e, cells_of(sub) if sub is not None else ())
        text = def_text(current_submission(), func) if m is not None and m.key in ("dtype_changed", "dtype_mix") else None
        found = _NUMPY_FLOAT64.search(text) if text is not None else None
        if m is None or found is None:
            raise
        raise Misconception(m.key, f"{m}; in `{func}`, `{_line_at(text, found.start())[:80]}` makes a float64 array "
                            "(NumPy's default float, and dtype=float, are float64, where torch's is float32), and "
                            "torch.from_numpy (or as_tensor) keeps that dtype: give it the input's dtype, or stay in "
                            "torch (torch.zeros_like, M.to(S.dtype))") from None


_EXP_CALLS = frozenset({"exp", "softmax"})


def raise_if_scale_outside_exp(m: Misconception, func: str) -> None:
    """no_scale said with its cause (naming round 74, blind75's `torch.exp(K @ q) / math.sqrt(d_k)`): the last `def
    func` divides (or multiplies) the result of an exp(...) call by a root of the head width (sqrt(...), ** 0.5,
    ** -0.5, rsqrt), so the scale is outside the exponent: it scales the kernel weights, which the ratio cancels. The
    output already matches no_scale; the line is the cause. Source only, the def at most GLOBAL_SCALE_DEF_CHARS."""
    from autograder.grading.pyparse import unparse
    from autograder.grading.source_checks import cells_of, last_function_def
    sub = current_submission()
    if m.key != "no_scale" or sub is None:
        return
    fn = last_function_def(cells_of(sub), func, GLOBAL_SCALE_DEF_CHARS)
    for n in ast.walk(fn) if fn is not None else ():
        if not (isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Div, ast.Mult)) and _callee(n.left) in _EXP_CALLS):
            continue
        root = unparse(n.right)
        if re.search(r"sqrt|\*\*\s*\(?\s*-?0?\.5|\*\*\s*\(?\s*-?1\s*/\s*2", root):
            raise Misconception("no_scale", f"{m}: in `{unparse(n)[:70]}` the parenthesis of {_callee(n.left)}(...) "
                                f"closes before the scale, so `{root[:40]}` divides the kernel weights (a constant "
                                "factor the normalisation cancels), not the scores inside the exponent; put it inside: "
                                "exp(K @ q / math.sqrt(d_k))") from None


def _root_of(n: ast.AST) -> ast.AST | None:
    """x of sqrt(x) (math., torch., np.), x ** 0.5 or x ** (1 / 2): the expression under a square root."""
    if isinstance(n, ast.Call) and _callee(n) == "sqrt" and len(n.args) == 1:
        return n.args[0]
    if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Pow):
        e = n.right
        half = isinstance(e, ast.Constant) and e.value == 0.5 or isinstance(e, ast.BinOp) and isinstance(e.op, ast.Div) \
            and isinstance(e.left, ast.Constant) and e.left.value == 1 and isinstance(e.right, ast.Constant) \
            and e.right.value == 2
        return n.left if half else None
    return None


def _leading_size(n: ast.AST) -> bool:
    """len(x), x.shape[0] or x.size(0): a size read from the first axis (the width only of a 1-D x)."""
    if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "len" and len(n.args) == 1:
        return True
    if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Attribute) and n.value.attr == "shape":
        return isinstance(n.slice, ast.Constant) and n.slice.value == 0
    return isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "size" \
        and len(n.args) == 1 and isinstance(n.args[0], ast.Constant) and n.args[0].value == 0


def raise_if_scale_width_is_one(m: Misconception, func: str) -> None:
    """no_scale said with its cause (blind88's `q = q.unsqueeze(0)` then `d_k = len(q)`): the row matches no scale
    at all, yet the last `def func` divides by the root of a width read from the first axis (len(q), q.shape[0],
    q.size(0), directly or through a name assigned so): on a query made a (1, d_k) row that width is 1, so the
    division by sqrt(1) leaves the scores unscaled. Named scale_wrong_axis. Source only (bounded), beside the value."""
    from autograder.grading.pyparse import unparse
    from autograder.grading.source_checks import cells_of, last_function_def
    sub = current_submission()
    if m.key != "no_scale" or sub is None:
        return
    fn = last_function_def(cells_of(sub), func, GLOBAL_SCALE_DEF_CHARS)
    if fn is None:
        return
    sized = {t.id: n for n in ast.walk(fn) if isinstance(n, ast.Assign) and _leading_size(n.value)
             for t in n.targets if isinstance(t, ast.Name)}
    for n in ast.walk(fn):
        x = _root_of(n)
        if x is None:
            continue
        if _leading_size(x) or isinstance(x, ast.Name) and x.id in sized:
            where = f"`{unparse(sized[x.id])[:50]}`, " if isinstance(x, ast.Name) and x.id in sized else ""
            raise Misconception("scale_wrong_axis", f"{m.args[0].split(':')[0]}: it matches no scale at all, yet "
                                f"your code divides by `{unparse(n)[:40]}` ({where}a size read from the first axis): "
                                "on a query made a (1, d_k) row that size is 1, and sqrt(1) scales nothing; "
                                + describe("scale_wrong_axis")) from None


def raise_if_masked_scores_unused(m: BaseException, func: str = "attention_weights") -> None:
    """mask_ignored said with its cause (naming round 74, blind75's `score = S + M` then `torch.softmax(S, ...)`): the
    last `def func` binds a name to an expression that reads its mask parameter (its second) and never reads that
    name again, so the masked scores are computed and dropped. The output already matches mask_ignored; the line
    is the cause. Source only: the def, at most GLOBAL_SCALE_DEF_CHARS."""
    from autograder.grading.pyparse import unparse
    from autograder.grading.source_checks import cells_of, last_function_def
    sub = current_submission()
    if getattr(m, "key", None) != "mask_ignored" or sub is None:
        return
    fn = last_function_def(cells_of(sub), func, GLOBAL_SCALE_DEF_CHARS)
    params = [a.arg for a in fn.args.args] if fn is not None else []
    if len(params) < 2:
        return
    mask = params[1]
    loaded = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    # the masked SCORES: the mask and another of the def's own names (a parameter, or a local such as a clone of S);
    # `T = M.shape[-1]` left unread beside a dropped `S.masked_fill(...)` was told "give the softmax `T`" (rt136)
    own = set(params) | {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    for n in ast.walk(fn):
        if not (isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and n.value is not None):
            continue
        targets = n.targets if isinstance(n, ast.Assign) else [n.target]
        names = [t.id for t in targets if isinstance(t, ast.Name)]
        read = {v.id for v in ast.walk(n.value) if isinstance(v, ast.Name)}
        reads_mask = mask in read and bool((read & own) - {mask})
        if len(names) == len(targets) == 1 and names[0] != mask and reads_mask and names[0] not in loaded:
            first, _, rest = str(m).partition("\n")   # a value case's smallest input stays last
            raise Misconception("mask_ignored", f"{first}: `{unparse(n)[:60]}` computes the masked scores and "
                                f"nothing reads `{names[0]}` after it (the softmax takes another name); give the "
                                f"softmax `{names[0]}`" + ("\n" + rest if rest else "")) from None


def _makes_a_transpose(n: ast.AST) -> bool:
    """Whether the expression `n` transposes something: .T, .mT, .t(), .transpose(...), .permute(...), .swapaxes."""
    return any(isinstance(s, ast.Attribute) and s.attr in ("T", "mT", "t", "transpose", "permute", "swapaxes", "swapdims")
               for s in ast.walk(n))


def raise_if_sum_after_transpose(m: Misconception, func: str) -> None:
    """nw_sum_wrong_axis said with its cause (naming round 74, blind74's `weighted = V.T * kappa` then
    `weighted.sum(axis=0)`): the last `def func` sums over dim / axis 0 a tensor that is (or is bound to) a transposed
    one, so axis 0 is V's feature axis there, not the keys. The output already matches nw_sum_wrong_axis; the lines
    are the cause. Source only: the def, at most GLOBAL_SCALE_DEF_CHARS."""
    from autograder.grading.pyparse import unparse
    from autograder.grading.source_checks import cells_of, last_function_def
    sub = current_submission()
    if m.key != "nw_sum_wrong_axis" or sub is None:
        return
    fn = last_function_def(cells_of(sub), func, GLOBAL_SCALE_DEF_CHARS)
    bound = {t.id: n.value for n in (ast.walk(fn) if fn is not None else ()) if isinstance(n, ast.Assign)
             for t in n.targets if isinstance(t, ast.Name)}
    # each bound name's value walked once, and each summed expression answered once (red-team round 136: every
    # name in `w = x + x + ... + x` walked x's whole value again for every `w.sum(0)`, 170 of them in a 3.9 KB def
    # spent the 30 s CPU cap on each of q08's three tests)
    transposed = {name for name, value in bound.items() if _makes_a_transpose(value)}
    answered: dict[int, bool] = {}
    for n in ast.walk(fn) if fn is not None else ():
        if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "sum"):
            continue
        axis = [a for a in n.args[:1]] + [k.value for k in n.keywords if k.arg in ("dim", "axis")]
        if not (len(axis) == 1 and isinstance(axis[0], ast.Constant) and axis[0].value == 0):
            continue
        of = n.func.value
        made = bound.get(of.id) if isinstance(of, ast.Name) else of
        if made is not None and id(made) not in answered:
            answered[id(made)] = _makes_a_transpose(made) or any(isinstance(v, ast.Name) and v.id in transposed
                                                          for v in ast.walk(made))
        if made is not None and answered[id(made)]:
            raise Misconception("nw_sum_wrong_axis", f"{m}: `{unparse(made)[:50]}` is transposed, so in "
                                f"`{unparse(n)[:50]}` axis 0 is V's value axis (d_v), not the keys: sum over the axis "
                                "the keys are on there (the last one), or keep V as it is and weight it with "
                                "kappa[:, None] before .sum(dim=0)") from None


def _adds_leading_axis(n: ast.AST, param: str) -> bool:
    """`param.unsqueeze(0)`, `param[None]` / `param[None, :]`, `param.view(1, -1)` / `.reshape(1, -1)`, or
    `param.unsqueeze(dim=0)`: the parameter with one leading axis of size 1 added."""
    if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and n.value.id == param:
        first = n.slice.elts[0] if isinstance(n.slice, ast.Tuple) and n.slice.elts else n.slice
        return isinstance(first, ast.Constant) and first.value is None
    if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name)
            and n.func.value.id == param):
        return False
    args = list(n.args) + [k.value for k in n.keywords if k.arg == "dim"]
    consts = [a.value if isinstance(a, ast.Constant) else None for a in args]
    if n.func.attr == "unsqueeze":
        return consts == [0]
    minus_one = len(args) == 2 and isinstance(args[1], ast.UnaryOp) and isinstance(args[1].op, ast.USub)
    return n.func.attr in ("view", "reshape") and consts[:1] == [1] and minus_one


def _removes_leading_axis(n: ast.AST) -> bool:
    """Another way to take a size-1 axis away than squeeze (red-team round 139: `(q.unsqueeze(0) @ K.T)[0]`, the
    axis taken back by indexing, beside a real `.sum(dim=0, keepdim=True)` was told size_one_axes_added): x[0] or
    x[0, ...] (not a .shape's or .size()'s entry), .flatten(), .ravel(), .view(-1) / .reshape(-1)."""
    if isinstance(n, ast.Subscript):
        first = n.slice.elts[0] if isinstance(n.slice, ast.Tuple) and n.slice.elts else n.slice
        return isinstance(first, ast.Constant) and type(first.value) is int and first.value in (0, -1) \
            and not (isinstance(n.value, ast.Attribute) and n.value.attr == "shape") \
            and not (isinstance(n.value, ast.Call) and isinstance(n.value.func, ast.Attribute)
                     and n.value.func.attr == "size")
    if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)):
        return False
    if n.func.attr in ("flatten", "ravel"):
        return True
    return n.func.attr in ("view", "reshape") and len(n.args) == 1 and isinstance(n.args[0], ast.UnaryOp) \
        and isinstance(n.args[0].op, ast.USub)


def raise_if_input_axis_kept(m: Misconception, func: str) -> None:
    """keepdim_left_on said as what it is where the source shows it (naming round 76, blind76's `q = q.unsqueeze(0)`
    "a batch of one query" for F.linear): the last `def func` adds a leading size-1 axis to its first parameter (the
    query) and never squeezes anything (nor indexes, flattens or reshapes it away: _removes_leading_axis), so the
    extra axis of the result is the query's, not a reduced one kept; keepdim is not the line to change. The output
    already matches keepdim_left_on (its values right, one axis of size 1 more); the def is the cause. Source
    only: the def, at most GLOBAL_SCALE_DEF_CHARS."""
    from autograder.grading.pyparse import unparse
    from autograder.grading.source_checks import cells_of, last_function_def
    sub = current_submission()
    if m.key != "keepdim_left_on" or sub is None:
        return
    fn = last_function_def(cells_of(sub), func, GLOBAL_SCALE_DEF_CHARS)
    if fn is None or not fn.args.args:
        return
    param = fn.args.args[0].arg
    nodes = list(ast.walk(fn))
    if any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("squeeze", "squeeze_")
           or isinstance(n, ast.Name) and n.id == "squeeze" or _removes_leading_axis(n) for n in nodes):
        return
    added = next((n for n in nodes if _adds_leading_axis(n, param)), None)
    if added is not None:
        raise Misconception("size_one_axes_added", f"{str(m).split(':')[0]}: `{unparse(added)[:50]}` gives the "
                            f"query `{param}` a leading axis of size 1 and nothing takes it away again; "
                            "no reduced axis is kept here: " + describe("size_one_axes_added") + "; return the "
                            "result with that axis removed (.squeeze(0)), or compute with the 1-D query as it "
                            "is given") from None


_UNIFORM_DRAW = re.compile(r"\brand(?:_like)?\s*\(|\brandom\.random\s*\(|\.uniform_?\s*\(")


def with_uniform_draws_said(check: Callable[[], None], submission: object, what: str) -> None:
    """check(), ans_scale's checks; where it names the chosen option's key (or answer_computed_by_code), the key kept
    and what made the experiment mislead said where the answer's cell (code or comments, a bounded read) draws its
    queries or keys uniformly on [0, 1) (rand, rand_like, np.random.rand, uniform_) and never with randn (naming
    round 74, blind74's `q = torch.rand(512)`): such scores share one large mean, a shift the softmax ignores, where
    the question gives unit-variance components."""
    try:
        check()
    except Misconception as m:
        keys = set(ref.MCQ_MISCONCEPTIONS.get(what, {}).values()) | {"answer_computed_by_code"}
        source = _answer_cell_source(submission, what) if m.key in keys else None
        if source is None or len(source) > 6000 or "randn" in source or not _UNIFORM_DRAW.search(source):
            raise
        raise Misconception(m.key, f"{m}; your experiment draws uniformly on [0, 1) (`"
                            f"{_line_at(source, _UNIFORM_DRAW.search(source).start())[:60]}`): mean 1/2 and variance "
                            "1/12, not the unit-variance components the question gives, so every score shares one "
                            "large mean (about d_k / 4), a shift the softmax ignores; draw with torch.randn") from None


# --- naming round 78 (blind79) -----------------------------------------------------------------------------------

def _small_int(n: ast.AST, depth: int = 0) -> int | None:
    """The value of an expression of small int constants (+ - * // % **, unary - +), None for anything else or
    anything large (|value| > 10**6, an exponent over 16)."""
    if depth > 20:
        return None
    if isinstance(n, ast.Constant) and type(n.value) is int:
        v = n.value
    elif isinstance(n, ast.UnaryOp) and isinstance(n.op, (ast.USub, ast.UAdd)):
        inner = _small_int(n.operand, depth + 1)
        v = None if inner is None else (-inner if isinstance(n.op, ast.USub) else inner)
    elif isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod, ast.Pow)):
        a, b = _small_int(n.left, depth + 1), _small_int(n.right, depth + 1)
        if a is None or b is None or (isinstance(n.op, (ast.FloorDiv, ast.Mod)) and b == 0) \
                or (isinstance(n.op, ast.Pow) and not 0 <= b <= 16):
            return None
        v = {ast.Add: a + b, ast.Sub: a - b, ast.Mult: a * b}.get(type(n.op)) if not isinstance(
            n.op, (ast.FloorDiv, ast.Mod, ast.Pow)) else (a // b if isinstance(n.op, ast.FloorDiv)
                                                         else a % b if isinstance(n.op, ast.Mod) else a ** b)
    else:
        return None
    return v if v is not None and abs(v) <= 10 ** 6 else None


def raise_if_letter_index_minus_power(what: str, value: object, answer: str, submission: object) -> None:
    """answer_by_position: a wrong letter picked from a string of letters by an index that writes a minus before a
    power, "abcd"[-1 ** 2]: ** binds tighter than the unary minus, so -1 ** 2 is -(1 ** 2) = -1 (the last letter),
    not (-1) ** 2 = 1 (naming round 78, blind79's q03). Read from the answer's last top-level binding (a bounded
    read); named only where that index gives the letter held, the letter is wrong, and (-a) ** b gives another."""
    if not isinstance(value, str) or submission is None or value.strip().lower() == answer.lower():
        return
    from autograder.grading.pyparse import parse
    from autograder.grading.source_checks import cells_of
    last = None
    for cell in cells_of(submission):
        if len(cell) > 20_000 or what not in cell:
            continue
        try:
            tree = parse(cell)
        except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
            continue
        for n in tree.body:
            if any(isinstance(t, ast.Name) and t.id == what for x in ast.walk(n)
                   if isinstance(x, (ast.Assign, ast.AnnAssign, ast.AugAssign))
                   for t in (x.targets if isinstance(x, ast.Assign) else [x.target])):
                last = n
    if not (isinstance(last, ast.Assign) and isinstance(last.value, ast.Subscript)
            and isinstance(last.value.value, ast.Constant) and isinstance(last.value.value.value, str)):
        return
    letters, index = last.value.value.value, last.value.slice
    powers = [x for x in ast.walk(index) if isinstance(x, ast.UnaryOp) and isinstance(x.op, ast.USub)
              and isinstance(x.operand, ast.BinOp) and isinstance(x.operand.op, ast.Pow)]
    if not powers or len(letters) > 26:
        return
    try:
        got = _small_int(index)
        meant_tree = ast.parse(pyparse_unparse(index), mode="eval").body
    except (RecursionError, SyntaxError, ValueError):
        return
    for x in ast.walk(meant_tree):   # (-a) ** b: the minus moved onto the base
        if isinstance(x, ast.UnaryOp) and isinstance(x.op, ast.USub) and isinstance(x.operand, ast.BinOp) \
                and isinstance(x.operand.op, ast.Pow):
            pw = x.operand
            x.op, x.operand = ast.UAdd(), ast.BinOp(ast.UnaryOp(ast.USub(), pw.left), ast.Pow(), pw.right)
    meant = _small_int(meant_tree)
    if got is None or meant is None or not -len(letters) <= got < len(letters) \
            or letters[got] != value.strip() or not -len(letters) <= meant < len(letters) or letters[meant] == letters[got]:
        return
    pw = powers[0].operand
    assert isinstance(pw, ast.BinOp)
    base, power = pyparse_unparse(pw.left), pyparse_unparse(pw.right)
    raise Misconception("answer_by_position", f"{what} is {value.strip()!r}, the letter your code picks by its position "
                        f"(`{pyparse_unparse(last)[:60]}`), and it is not the best answer: ** binds tighter than the "
                        f"minus before it, so -{base} ** {power} is -({base} ** {power}) and the index is {got}; "
                        f"(-{base}) ** {power} would give {meant} ({letters[meant]!r}); write the letter itself: "
                        + describe("answer_by_position"))


def raise_if_int_pattern_inverted(M: object, T: int, dtype: torch.dtype, submission: object,
                                  func: str = "causal_additive_mask") -> None:
    """invert_of_float_mask: the mask is ~P times one constant c, with P a 0/1 triangle of integers (long: ~1 = -2,
    ~0 = -1; uint8: 254, 255), replayed in float64 and cast to the asked dtype (-2c overflowing to -inf where it
    does), where the function (its last def or lambda, a bounded read) writes `~` (naming round 78, blind79's
    `~torch.ones(T, T, dtype=torch.long).tril()`): bitwise not of numbers, not a logical not."""
    if not (type(M) is torch.Tensor and M.dtype == dtype and M.is_floating_point() and tuple(M.shape) == (T, T)
            and T > 1 and submission is not None):
        return
    ones = torch.ones(T, T, dtype=torch.int64)
    values = M.to(torch.float64)
    for pattern in (ones.tril(), ones.triu(1), ones.tril(-1), ones.triu()):
        for inverted, kind in ((-1 - pattern, "long"), (255 - pattern, "uint8")):
            first = values[pattern == 0]
            if first.numel() == 0 or not bool(torch.isfinite(first[:1]).all()) or float(first[0]) == 0:
                continue
            c = float(first[0]) / float(inverted[pattern == 0][0])
            if not torch.equal(M, (inverted.to(torch.float64) * c).to(dtype)):
                continue
            try:
                fn = _last_def_or_lambda(cells_of_submission(submission), func)
                writes = fn is not None and any(isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.Invert)
                                                for n in ast.walk(fn))
            except RecursionError:
                return
            if not writes:
                return
            shown = "-2 and -1" if kind == "long" else "254 and 255"
            raise Misconception("invert_of_float_mask", f"the mask is {shown} times {c:.4g}, one value on the "
                                f"entries your triangle holds 1 and another where it holds 0, so nothing is 0: ~ on "
                                f"a {kind} 0/1 triangle is bitwise not (~1 = {-2 if kind == 'long' else 254}, ~0 = "
                                f"{-1 if kind == 'long' else 255}), not a logical not: "
                                + describe("invert_of_float_mask"))


def cells_of_submission(submission: object) -> list[str]:
    """The submission's code cells (source_checks.cells_of)."""
    from autograder.grading.source_checks import cells_of
    return cells_of(submission)


def _asks_truth(n: ast.AST) -> bool:
    """A construct that asks a value's truth: if / while / assert / a ... if ... else, and / or / not, a
    comprehension's if."""
    return isinstance(n, (ast.If, ast.While, ast.Assert, ast.IfExp, ast.BoolOp, ast.comprehension)) or (
        isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.Not))


def chained_compare_crash(e: StudentCodeError, submission: object, func: str) -> Misconception | None:
    """chained_comparison_on_tensors: the crash says a tensor's truth value is ambiguous, and the function (its last
    def or lambda, a bounded read) writes a chained comparison (a <= x <= b) and nothing else that asks a truth
    value (no if, while, assert, and / or / not): Python's `and` between the two comparisons is what asked
    (naming round 78, blind79's `0 <= j <= i` on index tensors)."""
    if TRUTHINESS not in e.message or submission is None:
        return None
    try:
        fn = _last_def_or_lambda(cells_of_submission(submission), func)
        if fn is None:
            return None
        nodes = list(ast.walk(fn))
        chains = [n for n in nodes if isinstance(n, ast.Compare) and len(n.ops) >= 2]
        if not chains or any(_asks_truth(n) for n in nodes):
            return None
        # red-team round 140: where the traceback shows the def's line that raised, a chain must be on it (a chain on
        # Python ints, `float(0 <= j <= i)` in a loop, beside `max(W.sum(-1, keepdim=True), 1)` that raised)
        lines = [f.line for f in e.notebook_frames() if isinstance(fn, ast.FunctionDef) and f.function == fn.name]
        if lines:
            chains = [n for n in chains if n.lineno <= lines[-1] <= (n.end_lineno or n.lineno)]
            if not chains:
                return None
        chained = chains[0]
        shown = pyparse_unparse(chained)[:60]
    except RecursionError:
        return None
    return Misconception("chained_comparison_on_tensors", f"{_said(e)}: your code compares in a chain (`{shown}`): "
                         + describe("chained_comparison_on_tensors") + _tail(e))


# --- naming round 80 (blind80, blind81) ------------------------------------------------------------------------


def _same_as(got: object, replay: torch.Tensor, dtype: torch.dtype) -> bool:
    """`got` equals `replay`: NaN and inf at the same places with the same values elsewhere, to `dtype`'s precision."""
    if type(got) is not torch.Tensor or tuple(got.shape) != tuple(replay.shape) or not got.is_floating_point():
        return False
    g, r = got.detach().double().cpu(), replay.detach().double().cpu()
    if not bool(torch.equal(torch.isnan(g), torch.isnan(r))) or not bool(torch.equal(torch.isinf(g), torch.isinf(r))):
        return False
    ok = torch.isfinite(g)
    return bool(torch.equal(g[~ok & ~torch.isnan(g)], r[~ok & ~torch.isnan(r)])) and (
        not bool(ok.any()) or is_right(g[ok], r[ok], dtype))


def _call_weights(fn: Callable[..., object], S: torch.Tensor, M: torch.Tensor | None) -> object:
    try:
        return fn(S.clone(), None if M is None else M.clone())
    except StudentCodeError:
        return None


def raise_if_keep_mask_formula(fn: Callable[..., object], S: torch.Tensor, M: torch.Tensor | None) -> None:
    """keep_mask_formula_on_additive_mask (blind80's Keras Softmax layer `S + (1.0 - M) * -1e9` on the additive mask):
    a second call on the same S and M equals softmax(S + (1 - M) * -1e9) replayed in S's dtype (NaN where it gives
    NaN) and is not right; and with a mask of 0s, 1s and 2s on tame float64 scores it equals that replay too (the keys
    marked 2 get +1e9 and take all the weight; a keep-mask read by M != 0 or M == 0, torch.where or masked_fill,
    spreads it over the 1s and 2s, and the right weights favour them by e and e^2). `S + M * -1e9`
    (mask_times_neg_1e9) fails the first replay. Nothing otherwise."""
    if not isinstance(M, torch.Tensor) or not S.is_floating_point() or S.dim() < 1 or S.shape[-1] < 2:
        return
    key = "keep_mask_formula_on_additive_mask"
    got = _call_weights(fn, S, M)
    replay = torch.softmax(S + (1.0 - M) * -1e9, dim=-1)
    Sd, Md = S.double(), M.double()
    if not _same_as(got, replay, S.dtype) or _same_as(got, ref.attention_weights(Sd, Md), S.dtype):
        return
    tame = torch.round(Sd / max(1.0, float(Sd.abs().amax())) * 64) / 64
    levels = torch.zeros(tame.shape[-1], dtype=torch.float64)
    levels[::2] = 1.0
    levels[1::2][:2] = 2.0   # (1 - 2) * -1e9 = +1e9: these keys take all the weight; a keep-mask by M != 0 spreads it
    levels = levels.expand(tame.shape).contiguous()
    out = _call_weights(fn, tame, levels)
    if not _same_as(out, torch.softmax(tame + (1.0 - levels) * -1e9, dim=-1), torch.float64) \
            or _same_as(out, ref.attention_weights(tame, levels), torch.float64):
        return
    bad = type(got) is torch.Tensor and not bool(torch.isfinite(got).all())
    raise Misconception(key, "A is softmax(S + (1 - M) * -1e9)" + (
        " (NaN or inf where that overflows)" if bad else ", every open score shifted by -1e9, which swamps it")
        + "; with a mask of 0s, 1s and 2s the keys marked 2 take all the weight: " + describe(key)) from None


_IN_PLACE_RANGES = frozenset({"clamp_", "clip_", "clamp_min_", "clamp_max_"})


def _number(n: ast.AST) -> float | None:
    if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub):
        v = _number(n.operand)
        return None if v is None else -v
    if isinstance(n, ast.Constant) and type(n.value) in (int, float):
        return float(n.value)
    return None


def check_clamps_in_place(func: str) -> tuple[str, float | None, float | None] | None:
    """The first in-place clamp (`x.clamp_(lo, hi)`, clip_, clamp_min_, clamp_max_, numbers as bounds) written inside
    an assert or an if test of the notebook's last `def func`: its source and bounds. None where it has none."""
    node = _def_of(None, func)
    if node is None:
        return None
    tests = [n.test for n in ast.walk(node) if isinstance(n, (ast.Assert, ast.If, ast.While))]
    for t in tests:
        for c in ast.walk(t):
            if not (isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and c.func.attr in _IN_PLACE_RANGES):
                continue
            # red-team round 141: the clamp must land on a kept tensor (a name, or a view of it by indexing or .T):
            # `S.clone().clamp_(..)` or `(Z * 1.0).clamp_(..)` clamps a temporary and changes nothing
            base = c.func.value
            for _ in range(50):
                if not isinstance(base, (ast.Subscript, ast.Attribute)):
                    break
                base = base.value
            if not isinstance(base, ast.Name):
                continue
            kws = {k.arg: k.value for k in c.keywords}
            args = list(c.args) + [None, None]
            if c.func.attr == "clamp_min_":
                lo_n, hi_n = args[0] or kws.get("min"), None
            elif c.func.attr == "clamp_max_":
                lo_n, hi_n = None, args[0] or kws.get("max")
            else:
                lo_n, hi_n = args[0] or kws.get("min"), args[1] or kws.get("max")
            lo, hi = (None if x is None else _number(x) for x in (lo_n, hi_n))
            if (lo_n is not None and lo is None) or (hi_n is not None and hi is None) or (lo is None and hi is None):
                continue
            return pyparse_unparse(c)[:60], lo, hi
    return None


def raise_if_check_clamps_scores(fn: Callable[..., object], S: torch.Tensor, M: torch.Tensor | None) -> None:
    """check_mutates_input (blind81's `assert torch.isfinite(S.clamp_(-10, 10)).all()`): attention_weights has an
    in-place clamp with number bounds inside an assert or an if test, and a second call on the same S and M equals
    softmax of (S + M) clamped to those bounds, not the right weights. Nothing otherwise (a clamp outside a check, a
    clamp that does not change this A)."""
    found = check_clamps_in_place("attention_weights")
    if found is None or not isinstance(S, torch.Tensor) or not S.is_floating_point():
        return
    code, lo, hi = found
    got = _call_weights(fn, S, M)
    Z = S if M is None else S + M
    replay = torch.softmax(Z.clamp(min=lo, max=hi), dim=-1)
    want = ref.attention_weights(S.double(), None if M is None else M.double())
    if not _same_as(got, replay, S.dtype) or _same_as(got, want, S.dtype):
        return
    key = "check_mutates_input"
    raise Misconception(key, f"A is the softmax of the scores clamped to [{lo}, {hi}]: the check `{code}` in "
                        "attention_weights clamps S in place (blocked keys get weight, large scores tie): "
                        + describe(key)) from None


def raise_if_scores_altered(fn: Callable[..., object], S: torch.Tensor, M: torch.Tensor | None) -> None:
    """Round 80's two reads of attention_weights after a failure, named or not."""
    raise_if_keep_mask_formula(fn, S, M)
    raise_if_check_clamps_scores(fn, S, M)


def raise_if_output_transposed(got: object, expected: torch.Tensor, dtype: torch.dtype, what: str) -> None:
    """output_transposed (blind80's Julia-style O = V' * A', one column per token): the attention output O (what
    begins with "O") of shape (..., d_v, T) where (..., T, d_v) is asked (T != d_v), whose last two axes swapped back
    give the right O to its dtype's precision. Nothing otherwise (a square O, any other result, other values, and an
    einsum in self_attention's or cross_attention's def: one_edit_fix says its letters)."""
    if not what.startswith("O") or type(got) is not torch.Tensor or expected.dim() < 2 or not got.is_floating_point():
        return
    if expected.shape[-1] == expected.shape[-2] or tuple(got.shape) != tuple(expected.mT.shape):
        return
    # an einsum's output letters reversed ('...dt'): left to one_edit_fix, which quotes the letters to write (blind79)
    if any(_callee(n) == "einsum" for f in ("self_attention", "cross_attention") if (d := _def_of(None, f)) is not None
           for n in ast.walk(d)):
        return
    if is_right(got.mT, expected, dtype):
        raise Misconception("output_transposed", f"{what} has shape {tuple(got.shape)}, and with its last two axes "
                            f"swapped it is the right {tuple(expected.shape)} result: " + describe("output_transposed"))


def stacks_as_columns(func: str) -> str | None:
    """The call, quoted, in the notebook's last `def func` that lays 1-D results down as columns: torch.stack(...,
    dim=1) or dim=-1, torch.column_stack or torch.hstack (source_checks.stacks_as_columns_call). None where none."""
    node = _def_of(None, func)
    if node is None:
        return None
    nodes = list(itertools.islice(ast.walk(node), 20000))
    # red-team round 141: a def that transposes anything (`stack(.., dim=1).T`, `(M / ...).T`, .mT, .t(),
    # transpose / permute / swapaxes / movedim) may owe the transposed result to that transpose, not to the stack
    if any((isinstance(n, ast.Attribute) and n.attr in ("T", "mT")) or (isinstance(n, ast.Call) and _callee(n) in (
            "t", "transpose", "permute", "swapaxes", "swapdims", "movedim", "moveaxis")) for n in nodes):
        return None
    from autograder.grading.source_checks import stacks_as_columns_call
    return next((pyparse_unparse(n)[:60] for n in nodes if stacks_as_columns_call(n)), None)


def raise_if_rows_stacked_as_columns(got: object, T: int) -> None:
    """rows_stacked_as_columns (blind80's R-style `torch.stack(rows, dim=1)`): W_avg is the right matrix transposed and
    prefix_average_matrix lays its rows down with a column stack (stacks_as_columns). The transposed matrix alone
    (triu normalised down its columns gives it too) is left to upper_triangular_mask."""
    if type(got) is not torch.Tensor or tuple(got.shape) != (T, T) or T < 2 or not got.is_floating_point():
        return
    want = ref.prefix_average_matrix(T)
    if not is_right(got, want.mT, torch.float64) or is_right(got, want, torch.float64):
        return
    code = stacks_as_columns("prefix_average_matrix")
    if code is not None:
        raise Misconception("rows_stacked_as_columns", f"W_avg is the right matrix transposed, and `{code}` lays "
                            "each row's result down as a column: " + describe("rows_stacked_as_columns"))


_SCALE_LIBRARY = re.compile(r"\blibrar(?:y|ies)\b|\bframework\b|\bjax\b|\bflax\b|\bkeras\b|\btensorflow\b|\btf\b"
                            r"|\btorch\b|\bpytorch\b|\bf\.|dot_product_attention|multiheadattention|\bsdpa\b")
_SCALE_ELSEWHERE = re.compile(r"\bdefault\b|\bscale_default\b|\banyway\b|\balready\b|\bautomatically\b|\binternally\b"
                              r"|\bfor (?:me|us|you)\b|\bscaled by\b")
_SCALE_OTHER_REASON = re.compile(r"normali[sz]|\b(?:drops?|divides?|washe?s?|falls?) out\b|\btiny\b|\bsmall\b"
                                 r"|near (?:0|zero)|\binit(?:iali[sz]ation|ialised|ialized)?\b|\brelative\b")
_SCALE_MENTION = re.compile(r"\bscal(?:e|ed|es|ing)\b|\bscale_default\b|1\s*/\s*(?:math\.|torch\.)?sqrt"
                            r"|sqrt\s*\(\s*d")


def raise_if_scale_said_applied_elsewhere(value: object, submission: object) -> None:
    """scale_assumed_applied_elsewhere for ans_scale (blind80's "jax.nn.dot_product_attention(scale=None) uses
    1/sqrt(d) anyway ... scaled by the library"): the answer is 'c' and one comment of its cell (a bounded read, each
    comment on its own) names a library or its attention function, says it scales by default (default, anyway,
    already, internally, scaled by ...) and speaks of the scale, with no negation in it (`scale=None` is read as the
    default, not as a negation) and no word of option c's own reasoning (invariant, the same constant, cancels): that
    is left to the option's key."""
    if value != "c" or submission is None:
        return
    import io
    import tokenize
    source = _answer_cell_source(submission, "ans_scale")
    if source is None or len(source) > 6000:
        return
    try:
        # red-team round 141: a comment on a line of its own or after the answer's assignment (one trailing an
        # experiment's line describes that line); option c's other reasonings (the softmax normalises, the scores
        # are small, the init) are not the library's scale
        comments = [t.string.lstrip("#").strip() for t in tokenize.generate_tokens(io.StringIO(source).readline)
                    if t.type == tokenize.COMMENT and re.match(r"\s*(?:#|ans_scale\b|$)", t.line)]
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return
    for said in comments:
        text = re.sub(r"\bscale\s*=\s*none\b", "scale_default", said.lower())
        if _SCALE_LIBRARY.search(text) and _SCALE_ELSEWHERE.search(text) and _SCALE_MENTION.search(text) \
                and not _NEGATION.search(text) and not re.search(r"invarian|same constant|cancel", text) \
                and not _SCALE_OTHER_REASON.search(text):
            key = "scale_assumed_applied_elsewhere"
            raise Misconception(key, f"ans_scale is 'c', and your comment says the scale is applied for you "
                                f"(`{said[:80]}`): " + describe(key))



# --- naming round 82 (blind82, blind83): a scale that is one fixed number, whatever d_k ----------------------------

_MODULES = frozenset({"math", "torch", "np", "numpy", "F", "nn"})


def _frozen_default(node: ast.FunctionDef) -> str | None:
    """`param=expr`, quoted, where a parameter's default is an expression reading a name of the notebook (not a
    module: bandwidth=math.sqrt(D_K), not dtype=torch.float32), with no list, dict or set in it (a mutable default is
    kept_state's), and the body divides or multiplies by that parameter; None otherwise."""
    a = node.args
    pos = a.posonlyargs + a.args
    pairs = [*zip(pos[len(pos) - len(a.defaults):], a.defaults),
             *((k, d) for k, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None)]
    for arg, d in pairs:
        names = {n.id for n in ast.walk(d) if isinstance(n, ast.Name)} - _MODULES
        if not names or any(isinstance(n, (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp))
                            for n in ast.walk(d)):
            continue
        if _replaced_in_body(node, arg.arg):
            continue
        if any(isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Div, ast.Mult, ast.Pow))
               and any(isinstance(s, ast.Name) and s.id == arg.arg for s in (n.left, n.right))
               for st in node.body for n in ast.walk(st)):
            return f"{arg.arg}={pyparse_unparse(d)}"[:60]
    return None


def _replaced_in_body(node: ast.FunctionDef, name: str) -> bool:
    """Whether the def's body binds parameter `name` to something that does not read it (`bandwidth = 4.0`, a for
    or with target, a walrus): the default is not what the body uses (red-team round 142: `bandwidth = 4.0  # tuned`
    under `bandwidth=math.sqrt(D_K)` was told scale_default_frozen quoting the default it throws away)."""
    reads_it = set()
    for n in ast.walk(node):
        if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and n.value is not None and any(
                isinstance(x, ast.Name) and x.id == name for x in ast.walk(n.value)):
            reads_it |= {id(x) for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
                         for x in ast.walk(t)}
        if isinstance(n, ast.AugAssign):
            reads_it |= {id(x) for x in ast.walk(n.target)}
    return any(isinstance(x, ast.Name) and x.id == name and isinstance(x.ctx, ast.Store) and id(x) not in reads_it
               for st in node.body for x in ast.walk(st))


def _fixed_scale_misconception(c: float, d_k: int, func: str, what: str,
                               only_frozen: bool = False) -> Misconception | None:
    """scale_default_frozen where `func`'s def has a default computed from a global (_frozen_default), else
    scale_hard_coded (None where `only_frozen`): `what` scaled by the one factor c for this d_k and for d_k = 3
    and 7."""
    h = 1 / c
    as_root = f" = sqrt({round(h * h)})" if abs(h * h - round(h * h)) < 1e-3 * max(1.0, h * h) else ""
    said = (f"{what} divides the scores by {h:.4g}{as_root} here (d_k = {d_k}), and by the same {h:.4g} for d_k = 3 "
            "and for d_k = 7: the scale does not follow the head size")
    node = _def_of(None, func)
    frozen = _frozen_default(node) if node is not None else None
    if frozen is not None:
        return Misconception("scale_default_frozen", f"{said}, and your {func} takes it from the default "
                             f"`{frozen}`: " + describe("scale_default_frozen"))
    if only_frozen or node is None or any(node.args.defaults) or any(d is not None for d in node.args.kw_defaults):
        return None   # a parameter with a plain default (d_k=64) is default_argument_wrong's, by its second call
    return Misconception("scale_hard_coded", f"{said}: " + describe("scale_hard_coded"))


def _told_elsewhere(func: str) -> bool:
    """Whether the engine's own readers name a fixed factor of `func` by its cause, closer than scale_hard_coded: state
    kept between calls in any form (repair.keeps_state: a class attribute set on the first call) or a notebook global
    read where the def's own d_k was meant (global_reads.finding: `# d_k = Q.shape[-1]` commented out). Both act only on
    a failure that names nothing, so the key is left off (the scan after round 82: blind65's and blind76's q02)."""
    from autograder.grading import global_reads, repair
    from autograder.grading.source_checks import cells_of
    submission = current_submission()
    if submission is None:
        return False
    cells = cells_of(submission)
    return repair.keeps_state(cells, func) or global_reads.finding(cells, func) is not None


def raise_if_scale_fixed(fn: Callable[..., object], Q: torch.Tensor, K: torch.Tensor, what: str,
                         only_frozen: bool = False) -> None:
    """scale_hard_coded / scale_default_frozen for scaled_scores (blind83's `/ 8`): S is Q K^T times one factor c,
    not 1/sqrt(d_k) and not 1, and two more calls of other head sizes, lengths and numbers of axes (d_k = 3, (4, 3)
    against (5, 3); d_k = 7, (2, 6, 7) against (2, 9, 7)) give Q K^T times that same c, not 1/sqrt of theirs: the
    factor follows neither d_k, a length nor Q.ndim. Left to scale_cached_first_call where scaled_scores keeps a
    value between calls (kept_state). `only_frozen`: scale_default_frozen alone (before a literal default of a
    parameter the notebook lacks is default_argument_wrong's)."""
    Q64, K64 = Q.detach().double(), K.detach().double()
    try:
        c = _constant_factor(fn(Q, K), Q64 @ K64.transpose(-2, -1))
    except StudentCodeError:
        return
    if c is None or c <= 0 or math.isclose(c, 1 / math.sqrt(Q.shape[-1]), rel_tol=1e-4) \
            or math.isclose(c, 1.0, rel_tol=1e-4):   # no scale at all: no_scale's
        return
    g = torch.Generator().manual_seed(82)
    for d, qs, ks in ((3, (4, 3), (5, 3)), (7, (2, 6, 7), (2, 9, 7))):
        q = torch.randn(qs, dtype=torch.float64, generator=g).to(Q.dtype)
        k = torch.randn(ks, dtype=torch.float64, generator=g).to(Q.dtype)
        try:
            c2 = _constant_factor(fn(q, k), q.double() @ k.double().mT)
        except StudentCodeError:
            return
        if c2 is None or not math.isclose(c2, c, rel_tol=1e-3) or math.isclose(c2, 1 / math.sqrt(d), rel_tol=1e-3):
            return
    if kept_state(None, "scaled_scores", written=True) is not None or _told_elsewhere("scaled_scores"):
        return
    named = _fixed_scale_misconception(c, Q.shape[-1], "scaled_scores", what, only_frozen)
    if named is not None:
        raise named


def _nw_factor(fn: Callable[..., object], d: int, dtype: torch.dtype) -> float | None:
    """c where nadaraya_watson on two keys whose dot products with a unit q are 0 and 1 (values 0 and 1) gives
    sigmoid(c) = exp(c) / (1 + exp(c)), the row of weights softmax(K q c); None where it crashes or gives other."""
    q = torch.zeros(d, dtype=dtype)
    q[0] = 1
    K = torch.zeros(2, d, dtype=dtype)
    K[1, 0] = 1
    V = torch.tensor([[0.0, 0.0], [1.0, 1.0]], dtype=dtype)
    try:
        out = fn(q, K, V)
    except StudentCodeError:
        return None
    if type(out) is not torch.Tensor or tuple(out.shape) != (2,) or not out.is_floating_point():
        return None
    o = out.detach().double()
    p = float(o[0])
    if not bool(torch.isfinite(o).all()) or not 1e-6 < p < 1 - 1e-6 or abs(float(o[1]) - p) > 1e-9:
        return None
    return math.log(p / (1 - p))


def raise_if_nw_scale_fixed(fn: Callable[..., object], got: object, q: torch.Tensor, K: torch.Tensor,
                            V: torch.Tensor) -> None:
    """scale_default_frozen / scale_hard_coded for nadaraya_watson (blind82's `bandwidth=math.sqrt(D_K)`): the row
    is wrong, and probes of three head sizes (this d_k, 3, 7: two keys scored 0 and 1) give the kernel exp(q.k c)
    with one c, not 1/sqrt(d_k) of any; that c replayed on the test's own inputs gives exactly its row."""
    if is_right(got, ref.nadaraya_watson(q.double(), K.double(), V.double()), V.dtype) \
            or V.dtype not in (torch.float32, torch.float64):
        return
    d_k = q.shape[-1]
    c = _nw_factor(fn, d_k, torch.float64)
    if c is None or c <= 0 or math.isclose(c, 1 / math.sqrt(d_k), rel_tol=1e-4) \
            or math.isclose(c, 1.0, rel_tol=1e-4):   # no scale at all: no_scale's
        return
    for d in (3, 7):
        c2 = _nw_factor(fn, d, torch.float64)
        if c2 is None or not math.isclose(c2, c, rel_tol=1e-6) or math.isclose(c2, 1 / math.sqrt(d), rel_tol=1e-4):
            return
    q64, K64, V64 = q.double(), K.double(), V.double()
    if not is_right(got, torch.softmax(K64 @ q64 * c, dim=0) @ V64, V.dtype):
        return
    if kept_state(None, "nadaraya_watson", written=True) is not None:
        return
    named = _fixed_scale_misconception(c, d_k, "nadaraya_watson", "the smoothed row")
    if named is not None:
        raise named


def _per_block_scaled(Q: torch.Tensor, K: torch.Tensor, w: int) -> torch.Tensor:
    """Q K^T summed over blocks of w head dimensions, each block's partial product divided by the root of its own
    width (the last block may be narrower)."""
    return sum((q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]) for q, k in zip(Q.split(w, dim=-1), K.split(w, dim=-1))),
               torch.zeros(()))


def raise_if_scale_per_block(fn: Callable[..., object], Q: torch.Tensor, K: torch.Tensor, what: str) -> None:
    """scale_per_block (round 86, blind86's split-K scores): S is Q K^T accumulated over blocks of w head dimensions
    (w = 2, 4, 8, 16, 32, less than d_k), each partial product divided by sqrt(w), the block's width, for sqrt(d_k).
    Where w divides d_k that is a constant factor sqrt(d_k / w), as a fixed scale is, so a second call with d_k =
    2w + 1 (a last block one wide) must match the same replay, which a fixed factor does not."""
    Q64, K64 = Q.detach().double(), K.detach().double()
    d_k = Q.shape[-1]
    try:
        got = fn(Q, K)
    except StudentCodeError:
        return
    right = Q64 @ K64.transpose(-2, -1) / math.sqrt(d_k)
    g = torch.Generator().manual_seed(86)
    for w in (2, 4, 8, 16, 32):
        if w >= d_k:
            break
        want = _per_block_scaled(Q64, K64, w)
        if is_right(want, right, Q.dtype) or not is_right(got, want, Q.dtype):
            continue
        q = torch.randn((3, 2 * w + 1), dtype=torch.float64, generator=g)
        k = torch.randn((4, 2 * w + 1), dtype=torch.float64, generator=g)
        try:
            got2 = fn(q.to(Q.dtype), k.to(Q.dtype))
        except StudentCodeError:
            return
        if is_right(got2, _per_block_scaled(q, k, w), Q.dtype) and not is_right(got2, q @ k.mT / math.sqrt(2 * w + 1),
                                                                                  Q.dtype):
            raise Misconception("scale_per_block", f"{what} is right only up to a factor sqrt(d_k / {w}), and with d_k "
                                f"= {2 * w + 1} it matches the sum over blocks of {w} head dimensions with each block's "
                                f"Q K^T divided by the root of its own width: " + describe("scale_per_block"))
        return


def raise_if_rank_capped_arithmetic(submission: object, name: str, T: int) -> None:
    """q11's answer T from `min(T, <arithmetic of the sizes>)` (round 86, blind86's ranks of 13 key tiles added up,
    min(T, n_tiles * d_k)): the notebook's last module-level assignment of `name` is a call of min whose other
    argument is a sum or product (bounded ast read, never run); the arithmetic is the mistake, the cap at T only
    hides it. Nothing where min's arguments are plain names or numbers (min(T, d_k) is the right bound)."""
    last = _last_assignment(submission, name)
    if last is None:
        return
    value = last[0]
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "min"
            and len(value.args) == 2 and not value.keywords):
        return
    from autograder.grading.pyparse import unparse   # bounded: ast.unparse of 400 terms ends in RecursionError
    sums = [a for a in value.args if isinstance(a, ast.BinOp) and isinstance(a.op, (ast.Mult, ast.Add))]
    if len(sums) == 1:
        raise Misconception("rank_from_size_arithmetic", f"max_rank_S is {T}, the number of tokens, as the cap of "
                            f"`{unparse(value)[:80]}`: the other bound, `{unparse(sums[0])[:40]}`, is a sum or "
                            "product of sizes (ranks added up over tiles or pieces of S, say), which is no bound on "
                            "the rank: every piece of S = Q K^T passes through the same d_k dimensions. "
                            + describe("rank_from_size_arithmetic"))
