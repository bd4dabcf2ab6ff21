"""What a failed sdpa-from-scratch test reveals (trusted side only). The hidden files load it by path
(the folder is no package); it holds no tests, and a file whose name starts with "_" is never collected.

Two parts:
- the wrong variants this assignment adds to reference.sdpa_from_scratch's (mistakes seen in held-out
  and public student code, issue 21), each a function of the same inputs as the oracle, computed in
  float64 and returned in Q's dtype: `wrong_variants` (all of them, for one input) and
  `VARIANT_FUNCTIONS` (the timing check accepts their values), and the wrong softmaxes of q3;
- naming a failed call of scaled_dot_product_attention (q5): a crash only from what a second call
  shows, a wrong value only from what it matches on the same input (`check`, `judge`, `call_sdpa`).

A variant that equals the correct result on an input, or another variant, names nothing there
(checks.matching_variants / raise_if_variant): the tests' shapes keep them apart."""
from __future__ import annotations

import ast
import contextvars
import copy
import functools
import inspect
import io
import itertools
import math
import re
import threading
import tokenize
import time

import torch

from autograder.errors import CheckTooSlow, StudentCodeError
from autograder.grading.checks import (
    Misconception,
    assert_matches,
    assert_vectorised,
    beside_next_request,
    broadcast_shape,
    call,
    describe,
    expect_int,
    layout_crash,
    matching_variants,
    name_from_rerun,
    raise_if_nondeterministic,
    raise_if_other_container,
    raise_if_return_missing,
    randn,
    tolerances,
    tuple_as_tensor,
    vector_jacobian_product,
)
from autograder.grading import checks as _grading_checks
from autograder.grading.crash_words import crash_replayed, crash_words
from autograder.grading.pyparse import Segments, parse, unparse
from autograder.grading.shrink import AttentionInput, Failure, matches, with_smallest
from autograder.grading.source_checks import cells_assigning, cells_of, return_inside_loop
from reference import sdpa_from_scratch as ref

FN = "scaled_dot_product_attention"


# ---------------------------------------------------------------------------------------------
# wrong softmaxes, as students write them (float64, any dtype in)
# ---------------------------------------------------------------------------------------------

def _finite_max(x: torch.Tensor, dim: int) -> torch.Tensor:
    m = x.amax(dim=dim, keepdim=True)
    return torch.where(torch.isfinite(m), m, torch.zeros_like(m))


def softmax_global_sum(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """each slice's max subtracted, then divided by the sum over the WHOLE tensor (e.sum(), no dim)"""
    e = torch.exp(x.double() - _finite_max(x.double(), dim))
    return e / e.sum()


def softmax_global_sum_global_max(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """exp(x - x.max()) / its sum over the whole tensor: a softmax of the flattened tensor"""
    x64 = x.double()
    e = torch.exp(x64 - x64[torch.isfinite(x64)].max() if torch.isfinite(x64).any() else x64)
    return e / e.sum()


def log_softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """the log-probabilities x - m - log(sum exp(x - m)): the exp at the end left out"""
    x64 = x.double()
    s = x64 - _finite_max(x64, dim)
    return s - torch.log(torch.exp(s).sum(dim=dim, keepdim=True))


def softmax_twice(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    return ref.stable_softmax(ref.stable_softmax(x.double(), dim), dim)


def softmax_without_keepdim(x: torch.Tensor, dim: int = -1, max_keep: bool = False,
                            sum_keep: bool = True) -> torch.Tensor | None:
    """x - x.max(dim).values (no keepdim) and/or e / e.sum(dim) (no keepdim), broadcast as torch does:
    wrong values where the shapes still broadcast (a square slice), None where they do not."""
    x64 = x.double()
    try:
        e = torch.exp(x64 - x64.amax(dim=dim, keepdim=max_keep))
        out = e / e.sum(dim=dim, keepdim=sum_keep)
    except RuntimeError:
        return None
    return out if out.shape == x.shape else None


KEEPDIM = {"reduction_without_keepdim/max": {"max_keep": False, "sum_keep": True},
           "reduction_without_keepdim/sum": {"max_keep": True, "sum_keep": False},
           "reduction_without_keepdim/both": {"max_keep": False, "sum_keep": False}}


def softmax_divides_by_max(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """exp(x / max) instead of exp(x - max): the logits divided by their row's maximum"""
    e = torch.exp(x / x.amax(dim=dim, keepdim=True))
    return e / e.sum(dim=dim, keepdim=True)


def softmax_running_max(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """round48 (blind48 q3_running_cummax_used_as_the_shift): exp(x - torch.cummax(x, dim).values) / sum, each entry
    shifted by the max of the entries up to it (an online max without the rescaling of the earlier terms) instead of
    one max per slice; a slice that starts with -inf gives -inf - (-inf) = NaN, as the student's does."""
    e = torch.exp(x - torch.cummax(x, dim=dim).values)
    return e / e.sum(dim=dim, keepdim=True)


def softmax_base_2(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """exp2 without the log2(e) factor: exp2(x - max) / sum, softmax(x ln 2)."""
    e = torch.exp2(x - _finite_max(x, dim))
    return e / e.sum(dim=dim, keepdim=True)


def softmax_base_10(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """round58 (blind58): powers of ten for the exponentials (10 ** x, torch.pow(10, x)): softmax(x ln 10)."""
    e = torch.pow(10.0, x - _finite_max(x, dim))
    return e / e.sum(dim=dim, keepdim=True)


def softmax_inf_to_finite(x: torch.Tensor, dim: int = -1) -> torch.Tensor | None:
    """A NaN guard that turns -inf logits into 0 (torch.where(isinf(x), 0, x), nan_to_num(x, neginf=0.0)) before
    the max-shifted exp: blocked entries get weight exp(0 - max). None when x has no -inf (then it is right)."""
    x64 = x.double()
    if not bool(torch.isneginf(x64).any()):
        return None
    x64 = torch.where(torch.isinf(x64), torch.zeros_like(x64), x64)
    return ref.stable_softmax(x64, dim)


INF_PROBE = torch.tensor([[0.5, float("-inf"), -0.25]], dtype=torch.float64)


def softmax_turns_inf_finite(softmax) -> bool:
    """The notebook's stable_softmax gives a -inf logit the weight a 0 logit gets (its NaN guard replaces -inf
    by 0): a float64 probe (0.5, -inf, -0.25), whose right weights are (0.68, 0, 0.32)."""
    if softmax is None:
        return False
    try:
        out = softmax(INF_PROBE.clone(), dim=-1)
    except Exception:  # noqa: BLE001 - a crash shows nothing here
        return False
    return inf_entries_weighted(out, INF_PROBE)


def inf_entries_weighted(got, x, dim=-1) -> bool:
    """A kind: every -inf entry of x gets a weight > 0 while the finite entries keep the right proportions (each
    slice's finite part, divided by its own sum, is the right softmax): -inf turned into some finite number
    (0 before or after the shift, a large negative one that is not large enough) inside the softmax."""
    blocked = torch.isneginf(x)
    if (type(got) is not torch.Tensor or got.shape != x.shape or not got.is_floating_point()
            or not bool(blocked.any())):
        return False
    g = got.detach().double()
    if not bool(torch.isfinite(g).all()) or not bool((g[blocked] > 1e-6).all()):
        return False
    finite = g.masked_fill(blocked, 0.0)
    sums = finite.sum(dim=dim, keepdim=True)
    if bool((sums <= 0).any()):
        return False
    want = ref.stable_softmax(x.double(), dim)
    return bool(torch.allclose(finite / sums, want, rtol=1e-3, atol=1e-5))


# the notebook's stable_softmax while a wrapped test runs (blames_softmax_for_zero_fill sets it): judge replays a
# generic failure with it (name_unnormalised_replay)
STUDENT_SOFTMAX: contextvars.ContextVar = contextvars.ContextVar("sdpa_student_softmax", default=None)


def _softmax_writes_argument() -> str:
    """round67 (blind67 q3_shift_and_exp_done_in_place_on_the_callers_logits): where the notebook's stable_softmax
    (STUDENT_SOFTMAX), called alone on a fresh (2, 3) float64 tensor, changes that tensor (the worker compares it
    with a copy), the attention's in-place write is the softmax's, into the scores it is given: said; else ""."""
    softmax = STUDENT_SOFTMAX.get()
    if softmax is None:
        return ""
    x = torch.tensor([[0.5, -1.0, 2.0], [0.0, 1.5, -0.5]], dtype=torch.float64)
    try:
        softmax(x, dim=-1)
    except Exception:  # noqa: BLE001 - a crash shows nothing here
        return ""
    changed = getattr(softmax, "last_changed_inputs", None)
    if not (isinstance(changed, list) and changed):
        return ""
    return (", and stable_softmax called alone changes the tensor it is given: the write is inside stable_softmax, "
            "into the scores the attention passes it (x -= m, x.sub_(m), x.exp_()); compute new tensors there "
            "(x = x - m, torch.exp(x))")


def blames_softmax_for_zero_fill(test):
    """Under @test_case: a failure named mask_fills_zero (blocked scores end up 0 before exp) is named
    softmax_inf_to_zero when the notebook's stable_softmax itself turns -inf into 0 (a probe shows it): the
    attention's -inf fill is then right and the 0 comes from the softmax. Adds an optional stable_softmax
    parameter, consulted only after such a failure."""
    sig = inspect.signature(test)
    params = list(sig.parameters.values())
    # a test that takes stable_softmax itself (q6's weights3_causal, naming21) gets it passed on; so does one that
    # takes the submission (naming round 76: the wrapper reads the source after a named failure, name_module_habits)
    passes = "stable_softmax" in sig.parameters
    takes_submission = "submission" in sig.parameters
    params = [p for p in params if p.name not in ("stable_softmax", "submission")]
    extra = inspect.Parameter("stable_softmax", inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None)
    source = inspect.Parameter("submission", inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None)

    @functools.wraps(test)
    def wrapped(*args, stable_softmax=None, submission=None, **kwargs):
        token = STUDENT_SOFTMAX.set(stable_softmax)   # judge's replay of a generic failure (naming25)
        try:
            return test(*args, **kwargs, **({"stable_softmax": stable_softmax} if passes else {}),
                        **({"submission": submission} if takes_submission else {}))
        except Misconception as named:
            name_module_habits(named, submission)      # naming round 76: nn.Linear's bias, a training-mode gate
            if named.key.split("/")[0] != "mask_fills_zero" or not softmax_turns_inf_finite(stable_softmax):
                raise
            where = str(named).split(": it matches")[0]
            raise Misconception("softmax_inf_to_zero", f"{where}: blocked keys get the weight of a score of 0, and "
                                "stable_softmax on (0.5, -inf, -0.25) gives the -inf logit the weight of a 0 logit: "
                                "the 0 comes from the softmax, not from the mask fill: it matches "
                                + describe("softmax_inf_to_zero")) from None
        except AssertionError as failure:
            if "NaN" in str(failure):      # naming round 88: 0 * -inf in a max picked by a product
                name_max_picked_by_product(stable_softmax, str(failure).split("\n")[0].split(": look at")[0])
            raise
        finally:
            STUDENT_SOFTMAX.reset(token)

    wrapped.__signature__ = sig.replace(parameters=[*params, extra, source])  # type: ignore[attr-defined]
    return wrapped


def sigmoid_normalised(x: torch.Tensor, dim: int = -1, shift: bool = True) -> torch.Tensor:
    """round54 (blind54 q3_logistic_sigmoid_used_for_the_exponential): torch.sigmoid(x - max) (or, shift=False, of x
    itself) divided by its sum along dim: the logistic sigmoid where exp belongs (sigmoid_for_exp)."""
    x64 = x.detach().double()
    s = torch.sigmoid(x64 - x64.amax(dim=dim, keepdim=True) if shift else x64)
    return s / s.sum(dim=dim, keepdim=True)


def softmax_variants(x: torch.Tensor, dim: int = -1) -> dict[str, torch.Tensor]:
    """reference.softmax_variants and this assignment's: {key: what that softmax gives on x}."""
    out: dict[str, torch.Tensor] = dict(ref.softmax_variants(x, dim=dim))
    out["softmax_global_sum"] = softmax_global_sum(x, dim)
    out["softmax_global_sum/global_max"] = softmax_global_sum_global_max(x, dim)
    # naming round 80 (blind81): x - max returned as it is (an early `return shifted` left from a check)
    out["softmax_returns_shifted_logits"] = x.double() - _finite_max(x.double(), dim)
    out["log_softmax"] = log_softmax(x, dim)
    out["softmax_twice"] = softmax_twice(x, dim)
    out["softmax_divides_by_max"] = softmax_divides_by_max(x, dim)
    out["softmax_base_2"] = softmax_base_2(x, dim)
    out["softmax_base_10"] = softmax_base_10(x, dim)      # round58: 10 ** x where exp belongs
    out["softmax_of_negated"] = ref.stable_softmax(-x, dim=dim)     # exp(max - x): the shift the wrong way round
    out["softmax_running_max"] = softmax_running_max(x.double(), dim)     # round48: torch.cummax as the shift
    out["sigmoid_for_exp"] = sigmoid_normalised(x, dim)     # round54: torch.sigmoid(x - max) where exp belongs
    out["sigmoid_for_exp/unshifted"] = sigmoid_normalised(x, dim, shift=False)
    if x.dim() and x.shape[dim] > 1:     # round70: a temperature defaulting to sqrt(n), n the slice's length
        out["softmax_temperature_root_n"] = ref.stable_softmax(x.double() / math.sqrt(x.shape[dim]), dim=dim)
    for key, kw in KEEPDIM.items():
        t = softmax_without_keepdim(x, dim, **kw)
        if t is not None:
            out[key] = t
    out.update(max_wrong_axis_variants(x, dim))
    return {k: v.to(x.dtype) for k, v in out.items()}


TAME_LOGITS = torch.tensor([[0.5, -1.0, 2.0, 0.25]], dtype=torch.float64)


def min_or_negated(softmax_of) -> str | None:
    """Of a softmax that overflows both rows of SOFTMAX_PROBE: on tame logits (TAME_LOGITS, where subtracting
    each row's minimum is exact) the right weights are softmax_subtracts_min, and those of -x are exp(max - x)
    (softmax_of_negated); None for anything else or a crash. `softmax_of(x)`: the student's weights for x."""
    x = TAME_LOGITS
    out = second_call(softmax_of, x.clone())
    for key, want in (("softmax_subtracts_min", ref.stable_softmax(x, dim=-1)),
                      ("softmax_of_negated", ref.stable_softmax(-x, dim=-1))):
        if type(out) is torch.Tensor and out.shape == x.shape and torch.allclose(out.double(), want, atol=1e-6):
            return key
    return None


def plain_sum_weights(out, x) -> bool:
    """out is x (or x - its row max) divided by its own row sum: the softmax without the exponential."""
    if type(out) is not torch.Tensor or out.shape != x.shape:
        return False
    shifted = x - x.amax(dim=-1, keepdim=True)
    return any(torch.allclose(out.double(), t / t.sum(dim=-1, keepdim=True), atol=1e-6) for t in (shifted, x))


def confirm_softmax_of_negated(fn, named) -> None:
    """softmax_of_negated matched on logits with -inf entries, where a softmax without the exponential
    ((x - max) / sum(x - max), or x / sum(x)) gives the same 0s and NaNs (blind36): on tame logits
    (TAME_LOGITS, no -inf) the softmax of -x is told apart from the plain sum by values. Neither: the
    key is dropped (the failure stays unnamed). Any other key passes through."""
    if named.key != "softmax_of_negated":
        return
    x = TAME_LOGITS
    out = second_call(fn, x.clone(), dim=-1)
    if type(out) is torch.Tensor and out.shape == x.shape and torch.allclose(
            out.double(), ref.stable_softmax(-x, dim=-1), atol=1e-6):
        return
    said = str(named).split(": it matches")[0].split(" is wrong")[0]
    if plain_sum_weights(out, x):
        raise Misconception("weights_by_plain_sum", f"{said} is wrong, and on finite logits {x.tolist()[0]} it "
                            f"gives {[round(v, 4) for v in out.double().tolist()[0]]}, the shifted logits (or the "
                            "logits) divided by their own sum: " + describe("weights_by_plain_sum")) from None
    raise AssertionError(f"{said} is wrong (0 and NaN where the softmax is not)") from None


def softmax_through_dot_T(x: torch.Tensor) -> torch.Tensor:
    """stable_softmax(x.T, dim=-1).T replayed: .T reverses every axis, so the last axis it normalises is x's
    axis 0 whatever dim was asked (right for 2-D inputs and dim=0 only; transpose(0, -1) gives the same)."""
    rev = tuple(reversed(range(x.dim())))
    return ref.stable_softmax(x.permute(rev), dim=-1).permute(rev)


def name_softmax_crash(fn, e: StudentCodeError, what: str) -> None:
    """A crash of stable_softmax named from what a second call on a square input (6, 6) shows: a
    reduction without keepdim broadcasts there (and gives wrong values) where it crashed elsewhere. A crash
    that shows a (values, indices) pair used as a tensor names that at once."""
    name_tuple_as_tensor(e, f"your code raised {e.exc_type}: {e.message} ({what})")
    name_softmax_rank_assert(fn, e, what)      # round69: an assert that x is 2-D
    name_softmax_dim_sign_assert(fn, e, what)      # round72: an assert that dim < 0
    x = torch.arange(36, dtype=torch.float64).reshape(6, 6).sin() * 3
    try:
        out = fn(x.clone(), dim=-1)
    except StudentCodeError:
        return
    key = name_from_rerun(out, ref.stable_softmax(x, -1), softmax_variants(x, -1), torch.float64)
    if key is not None:
        raise Misconception(key, f"your code raised {e.exc_type}: {e.message} ({what}); on a square input it runs "
                                 f"and matches {describe(key)}")
    name_column_reshape(fn, e, what)      # right on a square input: a reduction reshaped to a column (blind35)


def softmax_unsqueezed_last(x: torch.Tensor, dim: int, max_last: bool, sum_last: bool) -> torch.Tensor | None:
    """keepdim done by hand: x.max(dim).values.unsqueeze(-1) and/or e.sum(dim).unsqueeze(-1), which puts the
    reduced axis back last whatever dim was (right only for the last axis); None where it does not broadcast."""
    x64 = x.double()
    try:
        m = x64.amax(dim=dim).unsqueeze(-1) if max_last else x64.amax(dim=dim, keepdim=True)
        e = torch.exp(x64 - m)
        out = e / (e.sum(dim=dim).unsqueeze(-1) if sum_last else e.sum(dim=dim, keepdim=True))
    except RuntimeError:
        return None
    return out if out.shape == x.shape else None


def name_unsqueeze_last(fn, dim: int, e: StudentCodeError, what: str) -> None:
    """A crash of stable_softmax(x, dim) for a dim that is not the last axis, named keepdim_by_unsqueeze_last
    only when a second call with dim=-1 is right and a (4, 4, 4) cube with the same dim (where the shapes
    broadcast) gives exactly what the reduced axis put back with unsqueeze(-1) gives, and no other variant."""
    x = (torch.arange(64, dtype=torch.float64).reshape(4, 4, 4) * 0.7).sin() * 3
    if dim % x.dim() == x.dim() - 1:
        return
    try:
        last = fn(x.clone(), dim=-1)
        out = fn(x.clone(), dim=dim)
    except StudentCodeError:
        return
    if type(last) is not torch.Tensor or not matching_variants(last, {"right": ref.stable_softmax(x, -1)}, x.dtype):
        return
    variants = {k: v for k, v in softmax_variants(x, dim).items()}
    for i, (m, s) in enumerate(((True, False), (False, True), (True, True))):
        t = softmax_unsqueezed_last(x, dim, m, s)
        if t is not None:
            variants[f"keepdim_by_unsqueeze_last/{i}"] = t
    key = name_from_rerun(out, ref.stable_softmax(x, dim), variants, torch.float64)
    if key == "keepdim_by_unsqueeze_last":
        raise Misconception(key, f"your code raised {e.exc_type}: {e.message} ({what}); with dim=-1 it is right, "
                                 f"and on a (4, 4, 4) input with dim={dim} it runs and matches {describe(key)}")


def name_softmax_variant(got: torch.Tensor, x: torch.Tensor, dim: int, what: str) -> None:
    """The one wrong softmax (softmax_variants) that `got` matches on x, if exactly one does; a variant
    equal to the right result names nothing, and so does a `got` that is right."""
    expected = ref.stable_softmax(x, dim)
    if matching_variants(got, {"right": expected}, x.dtype):
        return
    hits = {k.split("/")[0] for k in matching_variants(got, softmax_variants(x, dim), x.dtype, expected=expected)}
    if len(hits) == 1:
        key = hits.pop()
        raise Misconception(key, f"{what} is wrong: it matches {describe(key)}")


def name_dtype_changed(got: object, expected: torch.Tensor, what: str) -> None:
    """A result of another dtype whose values are right (at the coarser dtype's tolerance)."""
    if (type(got) is torch.Tensor and got.dtype != expected.dtype and got.shape == expected.shape
            and got.is_floating_point()):
        coarse = max(got.dtype, expected.dtype, key=lambda d: tolerances(d)[1])
        if matching_variants(got.to(torch.float64), {"right": expected.to(torch.float64)}, coarse):
            raise Misconception("dtype_changed", f"{what} comes back as {got.dtype} for a {expected.dtype} "
                                "input, with the right values: keep the input's dtype (cast back, or do not convert)")


# ---------------------------------------------------------------------------------------------
# wrong attention functions (Q, K, V, mask) -> output in Q's dtype, or None where they do not apply
# ---------------------------------------------------------------------------------------------

def _scores(Q, K, divisor=1.0):
    return Q.double() @ K.double().transpose(-2, -1) / divisor


def _masked(s, mask, fill=float("-inf")):
    return s if mask is None else s.masked_fill(~mask.to(torch.bool), fill)


def _dead_rows_zeroed(w, mask):
    if mask is None:
        return w
    return w.masked_fill(~mask.to(torch.bool).any(dim=-1, keepdim=True), 0.0)


def _out(w, V, Q):
    try:
        return (w @ V.double()).to(Q.dtype)
    except RuntimeError:
        return None


def _weights_fn(softmax):
    """A variant whose softmax is `softmax`; its `.weights(Q, K, mask)` are the weights themselves (a
    log-probability of -inf survives there, where w @ I would make it NaN)."""
    def weights(Q, K, mask=None):
        w = softmax(_masked(_scores(Q, K, math.sqrt(Q.shape[-1])), mask))
        return None if w is None else _dead_rows_zeroed(w, mask)

    def variant(Q, K, V, mask=None):
        w = weights(Q, K, mask)
        return None if w is None else _out(w, V, Q)
    variant.weights = weights  # type: ignore[attr-defined]
    return variant


def sdpa_scale_after_softmax(Q, K, V, mask=None):
    """softmax of the unscaled scores, then the weights (or V, or the output) divided by sqrt(d_k)"""
    w = _dead_rows_zeroed(ref.stable_softmax(_masked(_scores(Q, K), mask)), mask)
    return _out(w / math.sqrt(Q.shape[-1]), V, Q)


def sdpa_mask_fills_zero(Q, K, V, mask=None, zero_dead=False):
    """scores * mask (or masked_fill(~mask, 0)): a blocked score becomes 0, not -inf"""
    if mask is None:
        return None
    w = ref.stable_softmax(_masked(_scores(Q, K, math.sqrt(Q.shape[-1])), mask, 0.0))
    return _out(_dead_rows_zeroed(w, mask) if zero_dead else w, V, Q)


def sdpa_mask_added(Q, K, V, mask=None, zero_dead=False):
    """scores + mask: +1 on the allowed keys, nothing blocked"""
    if mask is None:
        return None
    w = ref.stable_softmax(_scores(Q, K, math.sqrt(Q.shape[-1])) + mask.double())
    return _out(_dead_rows_zeroed(w, mask) if zero_dead else w, V, Q)


def sdpa_weights_transposed(Q, K, V, mask=None):
    """A^T V: the weights transposed before multiplying V (the right shape only when T_q == T_k)"""
    if Q.shape[-2] != K.shape[-2]:
        return None
    w = ref.attention_weights(Q, K, mask)
    return _out(w.transpose(-2, -1), V, Q)


def sdpa_scores_as_output(Q, K, V, mask=None):
    """the scaled (masked) scores returned instead of weights @ V"""
    return _masked(_scores(Q, K, math.sqrt(Q.shape[-1])), mask).to(Q.dtype)


def sdpa_unmasked_scores_as_output(Q, K, V, mask=None):
    return _scores(Q, K, math.sqrt(Q.shape[-1])).to(Q.dtype)


def sdpa_values_weighted_by_scores(Q, K, V, mask=None):
    """V multiplied by the scaled scores instead of their softmax (blocked scores zeroed)"""
    s = _scores(Q, K, math.sqrt(Q.shape[-1]))
    if mask is not None:
        s = s.masked_fill(~mask.to(torch.bool), 0.0)
    return (s @ V.double()).to(Q.dtype)


def sdpa_keys_not_transposed(Q, K, V, mask=None):
    """Q @ K without the transpose: it runs only when K is square (T_k == d_k)"""
    if K.shape[-2] != K.shape[-1]:
        return None
    w = ref.stable_softmax(_masked(Q.double() @ K.double() / math.sqrt(Q.shape[-1]), mask))
    return _out(_dead_rows_zeroed(w, mask), V, Q)


def sdpa_view_as_transpose(Q, K, V, mask=None):
    """Q @ K.view(..., d_k, T_k): the keys' memory read again in another shape, not transposed"""
    if K.shape[-2] == K.shape[-1]:
        return None                     # a square K: the same as Q @ K (keys_not_transposed)
    Kr = K.double().reshape(*K.shape[:-2], K.shape[-1], K.shape[-2])
    w = ref.stable_softmax(_masked(Q.double() @ Kr / math.sqrt(Q.shape[-1]), mask))
    return _out(_dead_rows_zeroed(w, mask), V, Q)


def sdpa_mask_all_for_any(Q, K, V, mask=None):
    """the queries without a key found by mask.all(dim=-1, keepdim=True): every query that has one
    blocked key gets a row of zeros"""
    if mask is None:
        return None
    m = mask.to(torch.bool)
    kept = m.all(dim=-1, keepdim=True)
    if not kept.any():
        return None                     # every row zeroed: an output of zeros is no evidence of this mistake
    w = ref.stable_softmax(_masked(_scores(Q, K, math.sqrt(Q.shape[-1])), m))
    return _out(w.masked_fill(~kept, 0.0), V, Q)


def sdpa_single_key_rows_zeroed(Q, K, V, mask=None):
    """naming25: the test for a query with no key left off by one (mask.sum(-1) <= 1, < 2): every query with a
    single allowed key gets a row of zeros too. None where no query has exactly one allowed key (then it is the
    right output)."""
    if mask is None:
        return None
    m = mask.to(torch.bool)
    count = m.sum(dim=-1, keepdim=True)
    if not bool((count == 1).any()):
        return None
    w = ref.stable_softmax(_masked(_scores(Q, K, math.sqrt(Q.shape[-1])), m))
    return _out(w.masked_fill(count <= 1, 0.0), V, Q)


def sdpa_floor_divided(Q, K, V, mask=None):
    """scores // sqrt(d_k): each scaled score rounded down to an integer"""
    s = torch.floor(_scores(Q, K) / math.sqrt(Q.shape[-1]))
    w = ref.stable_softmax(_masked(s, mask))
    return _out(_dead_rows_zeroed(w, mask), V, Q)


def sdpa_causal_forced(Q, K, V, mask=None, combine=False):
    """A causal mask the call did not ask for (a kind, issue 21 naming10): the given mask replaced by the
    causal one (is_causal=True for any mask; mask=None left as it is), or combined with it (mask & causal,
    and the causal mask alone when mask is None). None where it equals the right output (a causal mask)."""
    causal = ref.causal_mask(Q.shape[-2], K.shape[-2])
    if mask is None and not combine:
        return None
    if mask is not None and not bool((mask.to(torch.bool) & ~causal).any()):
        return None                         # the mask is already causal: the right output
    m = causal if mask is None or not combine else mask.to(torch.bool) & causal
    w = ref.stable_softmax(_masked(_scores(Q, K, math.sqrt(Q.shape[-1])), m))
    return _out(_dead_rows_zeroed(w, m), V, Q)


def sdpa_weights_times(other):
    """The weights multiplied by K or Q instead of V (a kind: the wrong operand of the last product)."""
    def variant(Q, K, V, mask=None):
        w = _dead_rows_zeroed(ref.stable_softmax(_masked(_scores(Q, K, math.sqrt(Q.shape[-1])), mask)), mask)
        return _out(w, K if other == "K" else Q, Q)
    return variant


def sdpa_divided_by_own_std(dims, correction=1):
    """naming32: the scores divided by their own measured standard deviation (S / S.std(), per query row with
    dim=-1, or per matrix) instead of sqrt(d_k); measured before the mask (a -inf makes every std NaN)."""
    def variant(Q, K, V, mask=None):
        softmax = STUDENT_SOFTMAX.get()     # a softmax that standardises its logits gives these numbers too:
        if softmax is not None and not softmax_right_on_small_logits(softmax):
            return None                     # that is the softmax's mistake (q3's), not the scale's
        s = _scores(Q, K)
        if (s.numel() if dims is None else math.prod(s.shape[d] for d in ((dims,) if isinstance(dims, int) else dims))) <= correction:
            return None                     # no spread to measure (one key): torch's std warns and gives NaN
        s = s / (s.std(correction=correction) if dims is None else s.std(dim=dims, keepdim=True, correction=correction))
        return _out(_dead_rows_zeroed(ref.stable_softmax(_masked(s, mask)), mask), V, Q)
    return variant


def sdpa_layer_normed(scaled):
    """round70 (blind70 q5_scores_layer_normalised_over_the_keys_before_the_softmax_for_stability): the scores (divided
    by sqrt(d_k), or not) passed through F.layer_norm over the key axis before the mask: each row re-centred (which
    the softmax ignores) and divided by its own biased std with layer_norm's eps, undoing the scale."""
    def variant(Q, K, V, mask=None):
        softmax = STUDENT_SOFTMAX.get()
        if softmax is not None and not softmax_right_on_small_logits(softmax):
            return None
        s = _scores(Q, K, math.sqrt(Q.shape[-1]) if scaled else 1.0)
        s = torch.nn.functional.layer_norm(s, s.shape[-1:])
        return _out(_dead_rows_zeroed(ref.stable_softmax(_masked(s, mask)), mask), V, Q)
    return variant


def _divided(divisor):
    def variant(Q, K, V, mask=None):
        w = ref.stable_softmax(_masked(_scores(Q, K, divisor(Q, K, V)), mask))
        return _out(_dead_rows_zeroed(w, mask), V, Q)
    return variant


def sdpa_mask_mirrored(Q, K, V, mask=None):
    """round58 (blind58): a square mask applied to the scores transposed (keys-by-queries scores K Q^T masked with
    the (T_q, T_k) mask as it is): query i blocked from key j where the mirror entry mask[j, i] is False;
    the queries with no allowed key (by the mask's own rows) zeroed. None unless the mask is square."""
    if mask is None or mask.dim() < 2 or mask.shape[-1] != mask.shape[-2] or Q.shape[-2] != K.shape[-2]:
        return None
    if mask.dtype == torch.bool and bool((mask == ref.causal_mask(mask.shape[-1])).all()):
        return None      # the causal mask mirrored is upper_triangular_mask's variant: that key says it
    w = ref.stable_softmax(_masked(_scores(Q, K, math.sqrt(Q.shape[-1])), mask.transpose(-2, -1)))
    return _out(_dead_rows_zeroed(w, mask), V, Q)


def sdpa_mask_opens_key_zero(Q, K, V, mask=None, dead_only=False):
    """round59 (blind59 q5_nan_rows_patched_by_unmasking_key_zero_for_every_query): the mask with key 0 opened
    (mask[..., 0] = True) before the -inf fill, for every query or (dead_only) only for the queries with no allowed
    key: those get V[0] instead of zeros. None where that opens nothing (a causal mask keeps key 0 already)."""
    if mask is None or mask.dim() < 1 or mask.shape[-1] < 2:
        return None
    keep = (mask != 0).clone()
    if dead_only:
        keep[..., 0] |= ~keep.any(dim=-1)
    else:
        keep[..., 0] = True
    if bool((keep == (mask != 0)).all()):
        return None
    return ref.scaled_dot_product_attention(Q, K, V, keep)


def sdpa_inverted_finite_bias(Q, K, V, mask=None):
    """naming round 78 (blind79): the mask's polarity reversed as an added finite bias, scores + mask * -1e9 (-1e9
    where the key MAY be seen): a query that may see every key gets the same bias on all of them, which the softmax
    drops (its row right, to the rounding of s - 1e9), where masked_fill(mask, -inf) would leave it no key; the
    queries with no allowed key zeroed. None unless some query may see every key (else inverted_mask's own replay)."""
    if mask is None or mask.dtype != torch.bool or mask.dim() < 1 or not bool(mask.all(dim=-1).any()):
        return None
    s = _scores(Q, K, math.sqrt(Q.shape[-1]))
    w = ref.stable_softmax(s + mask.to(s.dtype) * -1e9, dim=-1)
    return _out(_dead_rows_zeroed(w, mask), V, Q)


# {key: function}; "key/detail" is one way of making the mistake `key`
VARIANT_FUNCTIONS = {
    "inverted_mask/finite_bias": sdpa_inverted_finite_bias,       # naming round 78: s + mask * -1e9
    "mask_transposed_to_scores": sdpa_mask_mirrored,        # round58
    "mask_opens_key_zero": sdpa_mask_opens_key_zero,        # round59: mask[..., 0] = True against the 0/0 NaN
    "mask_opens_key_zero/dead_rows": lambda Q, K, V, mask=None: sdpa_mask_opens_key_zero(Q, K, V, mask, True),

    "scale_after_softmax": sdpa_scale_after_softmax,
    "mask_fills_zero": sdpa_mask_fills_zero,
    "mask_added": sdpa_mask_added,
    # ... and a query with no allowed key given zeros, as the notebook asks
    "mask_fills_zero/dead_rows_zeroed": lambda Q, K, V, mask=None: sdpa_mask_fills_zero(Q, K, V, mask, True),
    "mask_added/dead_rows_zeroed": lambda Q, K, V, mask=None: sdpa_mask_added(Q, K, V, mask, True),
    # the masked scores computed and dropped (masked_fill's result not kept), the empty rows still zeroed
    "mask_ignored/dead_rows_zeroed": lambda Q, K, V, mask=None: None if mask is None else _out(
        _dead_rows_zeroed(ref.stable_softmax(_scores(Q, K, math.sqrt(Q.shape[-1]))), mask), V, Q),
    "weights_transposed": sdpa_weights_transposed,
    "scores_as_output": sdpa_scores_as_output,
    "values_weighted_by_scores": sdpa_values_weighted_by_scores,
    "scores_as_output/unmasked": sdpa_unmasked_scores_as_output,
    "keys_not_transposed": sdpa_keys_not_transposed,
    "view_as_transpose": sdpa_view_as_transpose,
    "mask_all_for_any": sdpa_mask_all_for_any,
    "single_key_rows_zeroed": sdpa_single_key_rows_zeroed,
    "floor_division_scale": sdpa_floor_divided,
    "softmax_global_sum": _weights_fn(softmax_global_sum),
    "softmax_global_sum/global_max": _weights_fn(softmax_global_sum_global_max),
    # naming round 80 (blind81): the max-shifted scores used as the weights, never exponentiated nor normalised
    "softmax_returns_shifted_logits": _weights_fn(lambda x: x - _finite_max(x, -1)),
    "log_softmax": _weights_fn(log_softmax),
    "softmax_base_2": _weights_fn(softmax_base_2),
    "softmax_base_10": _weights_fn(softmax_base_10),      # round58
    # round58 (blind58): the log2(e) of a fused exp2 kernel folded into the scale before a natural-exp softmax
    "scale_extra_factor/log2e": _divided(lambda Q, K, V: math.sqrt(Q.shape[-1]) * math.log(2.0)),
    "softmax_running_max": _weights_fn(softmax_running_max),      # round48: a running max as the shift
    # the exponentials never divided by their sum (shifted by the row's max, or not shifted)
    "weights_not_normalised": _weights_fn(lambda x: torch.exp(x - _finite_max(x, -1))),
    "weights_not_normalised/no_shift": _weights_fn(torch.exp),
    # divided by the mean instead of the sum (naming23): each weight T_k times too large, masked keys counted
    "weights_not_normalised/divided_by_mean": _weights_fn(lambda x: ref.plain_softmax(x, -1) * x.shape[-1]),
    "softmax_twice": _weights_fn(softmax_twice),
    "softmax_divides_by_max": _weights_fn(softmax_divides_by_max),
    **{key: _weights_fn(lambda x, kw=kw: softmax_without_keepdim(x, -1, **kw)) for key, kw in KEEPDIM.items()},
    # d_k ** 1/2 is (d_k ** 1) / 2; scores * d_k ** -1/2 divides by 2 d_k
    "scale_precedence/half": _divided(lambda Q, K, V: Q.shape[-1] / 2),
    "scale_precedence/twice": _divided(lambda Q, K, V: 2.0 * Q.shape[-1]),
    "causal_mask_forced/replaced": sdpa_causal_forced,
    "causal_mask_forced/combined": lambda Q, K, V, mask=None: sdpa_causal_forced(Q, K, V, mask, True),
    "weights_times_wrong_input/keys": sdpa_weights_times("K"),
    "weights_times_wrong_input/queries": sdpa_weights_times("Q"),
    **{f"scores_divided_by_own_std/{where}{'_biased' if c == 0 else ''}": sdpa_divided_by_own_std(dims, c)
       for where, dims in (("all", None), ("row", -1), ("matrix", (-2, -1))) for c in (1, 0)},
    # round70 (blind70): F.layer_norm over the keys (its eps 1e-5 in the variance), of the scaled or raw scores
    "scores_divided_by_own_std/layer_norm": sdpa_layer_normed(True),
    "scores_divided_by_own_std/layer_norm_raw": sdpa_layer_normed(False),
}


def _lead_divisors(Q, K, V) -> dict[str, float]:
    """sqrt of a leading axis of Q (the batch, the heads): d_k taken from the wrong axis; or of that axis times
    d_k (sqrt(n_heads * d_k), the model width of a public scaled_dot_product: naming30)."""
    lead = {f"scale_by_batch_dim/{i}": math.sqrt(n) for i, n in enumerate(Q.shape[:-2])}
    # round48 (blind48): Q.numel() // T_q, every leading axis times d_k (batch x heads x d_k on 4-D inputs)
    every = {"scale_by_batch_dim/numel_over_T_q": math.sqrt(Q.numel() // Q.shape[-2])} if Q.dim() > 3 else {}
    return lead | every | {f"scale_by_batch_dim/{i}_times_d_k": math.sqrt(n * Q.shape[-1])
                           for i, n in enumerate(Q.shape[:-2])}


def _taken(Q, K, V) -> list[float]:
    """Divisors of the scores the reference's variants already stand for (the right one included)."""
    d_k, d_v, T_q, T_k = Q.shape[-1], V.shape[-1], Q.shape[-2], K.shape[-2]
    return [math.sqrt(n) for n in (d_k, d_k * d_k, 1, d_v, T_q, T_k)] + [float(math.isqrt(d_k))]


def wrong_variants(Q, K, V, mask=None) -> dict[str, torch.Tensor]:
    """reference.wrong_variants and this assignment's, on these inputs. A divisor another variant
    already stands for is left out (its key could not be told from the other)."""
    out = dict(ref.wrong_variants(Q, K, V, mask))
    taken = _taken(Q, K, V)
    for key, f in VARIANT_FUNCTIONS.items():
        if key.startswith("scale_precedence/"):
            d = Q.shape[-1] / 2 if key.endswith("half") else 2.0 * Q.shape[-1]
            if any(abs(d - t) < 1e-9 * d for t in taken):
                continue
            taken.append(d)
        t = f(Q, K, V, mask)
        if t is not None:
            out[key] = t
    scores = _masked(_scores(Q, K, math.sqrt(Q.shape[-1])), mask)
    for axis in range(scores.dim() - 2):             # a fixed dim=0 or dim=1 of batched scores
        w = _dead_rows_zeroed(ref.plain_softmax(scores, dim=axis), mask)
        out[f"softmax_over_batch_axis/{axis}"] = _out(w, V, Q)
    for key, w in max_wrong_axis_variants(scores, -1).items():   # the shift's max over another axis
        out[key] = _out(_dead_rows_zeroed(w, mask), V, Q)
    bias = fully_masked_bias_variant(Q, K, V, mask)      # round62: BERT's finite additive bias, no rows zeroed
    if bias is not None:
        out["fully_masked_bias"] = bias
    # the right output with its last two axes swapped (a transpose never undone)
    out["result_axes_permuted/last_two"] = ref.scaled_dot_product_attention(Q, K, V, mask).transpose(-2, -1)
    for key, d in _lead_divisors(Q, K, V).items():
        if d > 1 and not any(abs(d - t) < 1e-9 * d for t in taken):
            taken.append(d)
            out[key] = _divided(lambda Q, K, V, d=d: d)(Q, K, V, mask)
    return out


def timing_variants() -> list:
    """Functions whose values verify a timed call: the reference's and this assignment's (a value
    mistake is charged by the value tests, not by the timing)."""
    lead = [_divided(lambda Q, K, V, i=i: math.sqrt(Q.shape[i])) for i in range(3)]
    lead += [_divided(lambda Q, K, V, i=i: math.sqrt(Q.shape[i] * Q.shape[-1])) for i in range(2)]   # heads x width
    lead.append(_divided(lambda Q, K, V: math.sqrt(Q.numel() // Q.shape[-2])))     # round48: numel // T_q
    axes = [_weights_fn(lambda x, a=a: ref.plain_softmax(x, dim=a)) for a in range(2)]
    return list(ref.VARIANT_FUNCTIONS.values()) + list(VARIANT_FUNCTIONS.values()) + lead + axes


# ---------------------------------------------------------------------------------------------
# inputs
# ---------------------------------------------------------------------------------------------

def random_mask(shape, rng, p=0.5):
    """Bool mask, True = may attend; every query keeps at least one key and loses at least one, and, with three keys
    or more, keeps at least two: a row with exactly one key is never left to the draw (red-team round 54: `mask.sum(-1)
    > 1` taken for "has a key" lost 2 or 3 points by the seed). Rows with one key are the causal cases' first rows,
    the same in every grade."""
    m = torch.rand(shape, generator=rng) < p
    T_q, T_k = shape[-2], shape[-1]
    i = torch.arange(T_q)
    m[..., i, i % T_k] = True
    m[..., i, (i + 1) % T_k] = False
    if T_k >= 3:
        m[..., i, (i + 2) % T_k] = True
    return m


def qkv(rng, q_shape, k_shape, v_shape, dtype, scale=1.0):
    return (randn(q_shape, rng, dtype, scale), randn(k_shape, rng, dtype, scale), randn(v_shape, rng, dtype))


# A draw of Q, K, V and a mask in half precision on which the honest ways of computing attention in that dtype all
# give the reference's answer to 3/4 of the dtype's tolerance; the next draw otherwise. In bfloat16 the lesson's own
# code (the full-marks notebook) lost test_bfloat16 on 1 draw in 3000 (0.024 off where 0.02 + 4% was allowed: a sweep of
# right notebooks over random grading seeds found it) and 4 draws in 3000 came within a quarter of the tolerance; in
# float16 the worst of 3000 draws used 0.45 of it.
HONEST_SHARE, HONEST_DRAWS = 0.75, 20


def honest_qkv_mask(rng, shape, mask_shape, dtype):
    """(Q, K, V, mask): qkv(rng, shape, shape, shape, dtype) and random_mask(mask_shape, rng), drawn again (at most
    HONEST_DRAWS times) until every way of `honest_ways` is within HONEST_SHARE of the tolerance."""
    rtol, atol = tolerances(dtype)
    for _ in range(HONEST_DRAWS):
        Q, K, V = qkv(rng, shape, shape, shape, dtype)
        mask = random_mask(mask_shape, rng)
        want = ref.scaled_dot_product_attention(Q, K, V, mask).double()
        if all(bool(((got.double() - want).abs() <= HONEST_SHARE * (atol + rtol * want.abs())).all())
               for got in honest_ways(Q, K, V, mask)):
            break
    return Q, K, V, mask


def honest_ways(Q, K, V, mask):
    """Attention computed in the inputs' dtype five honest ways: the lesson's (the max subtracted by hand, empty rows
    zeroed), torch.softmax, the queries scaled before the product, exp(S - logsumexp(S)), the softmax in float32."""
    d = Q.shape[-1]
    S = (Q @ K.transpose(-2, -1) / math.sqrt(d)).masked_fill(~mask, float("-inf"))
    scaled_first = ((Q / math.sqrt(d)) @ K.transpose(-2, -1)).masked_fill(~mask, float("-inf"))
    E = torch.exp(S - S.amax(-1, keepdim=True))
    weights = [E / E.sum(-1, keepdim=True), torch.softmax(S, -1), torch.softmax(scaled_first, -1),
               (S - S.logsumexp(-1, keepdim=True)).exp(), torch.softmax(S.float(), -1).to(S.dtype)]
    return [torch.nan_to_num(w, nan=0.0) @ V for w in weights]


# A (B, T_k) padding mask for 3-D inputs with B != T_q: a correct function cannot broadcast it against
# the (B, T_q, T_k) scores (it raises); one that adds a dim at position 1 (mask.unsqueeze(1), the
# padding-mask habit) turns it into (B, 1, T_k) and masks every query's keys by it.
_g = torch.Generator().manual_seed(80)
PAD_PROBE = (torch.randn(2, 5, 4, generator=_g, dtype=torch.float64),
             torch.randn(2, 3, 4, generator=_g, dtype=torch.float64),
             torch.randn(2, 3, 2, generator=_g, dtype=torch.float64),
             torch.tensor([[True, False, True], [False, True, True]]))


# Square keys (T_k = d_k = 4) with T_q = 3 and d_v = 5: Q @ K without the transpose runs here.
KEYS_PROBE = (torch.randn(2, 3, 4, generator=_g, dtype=torch.float64),
              torch.randn(2, 4, 4, generator=_g, dtype=torch.float64),
              torch.randn(2, 4, 5, generator=_g, dtype=torch.float64))


# ---------------------------------------------------------------------------------------------
# second calls
# ---------------------------------------------------------------------------------------------

def second_call(fn, *args, **kwargs):
    try:
        return fn(*args, **kwargs)
    except StudentCodeError:
        return None


def right(out, Q, K, V, mask):
    """Whether a second call's output is the right result for its inputs (half precision: as near as
    a correct half-precision solution gets, `near`)."""
    if type(out) is not torch.Tensor or out.dtype != Q.dtype:
        return False
    expected = ref.scaled_dot_product_attention(Q, K, V, mask)
    if Q.dtype in (torch.float16, torch.bfloat16):
        return out.shape == expected.shape and bool(torch.isfinite(out).all()) and near(out, expected)
    return bool(matching_variants(out, {"right": expected}, Q.dtype))


def near(a, b):
    # near one-hot weights amplify float16 rounding of the scores; a correct half-precision solution
    # stays below ~0.02 (max) and ~1e-3 (mean), every known wrong variant is above 0.25 or 0.01
    d = (a.to(torch.float64) - b.to(torch.float64)).abs()
    return bool(d.max() <= 0.25 and d.mean() <= 0.01)


def name_mask_unsqueezed(fn, said):
    """Whether the function adds a dim to the mask at position 1: a (B, T_k) padding mask (PAD_PROBE),
    which a correct function cannot broadcast, runs and masks each batch entry's keys."""
    Q, K, V, pad = PAD_PROBE
    out = second_call(fn, Q, K, V, mask=pad)
    if right(out, Q, K, V, pad[:, None, :]):
        raise Misconception("mask_unsqueezed", f"{said}; and a (B, T_k) padding mask, which cannot broadcast "
                            "against (B, T_q, T_k) scores as given, runs and masks each batch entry's keys: your "
                            "code adds a dim to the mask (mask.unsqueeze(1)); use the mask as given")


# torch's words for an in-place op (masked_fill_, add_, +=, copy of a broadcast) whose result cannot be written back
# into the tensor it was called on: "output with shape [6, 8] doesn't match the broadcast shape [2, 6, 8]"
IN_PLACE_WORDS = re.compile(r"output with shape \[([0-9, ]*)\] doesn't match the broadcast shape \[([0-9, ]*)\]")


def name_mask_written_into_2d(again, square, said):
    """round38 (blind37, the PyTorch docs' equivalent code): after name_mask_for_one_shape's two calls (a 2-D
    (T_q, T_k) mask runs and is right, the same mask as (B, T_q, T_k) crashes), the second crash is torch's in-place
    words with an output of exactly (T_q, T_k) and a broadcast shape of (B, T_q, T_k): the mask is written in place
    into a tensor of one (T_q, T_k) matrix (attn_bias.masked_fill_(...), bias += ...), not reshaped."""
    words = IN_PLACE_WORDS.search(again.message) if again.exc_type == "RuntimeError" else None
    if words is None:
        return
    out, wide = ([int(n) for n in g.split(",") if n.strip()] for g in words.groups())
    if tuple(out) == tuple(square) and len(wide) == 3 and tuple(wide[1:]) == tuple(square):
        raise Misconception("mask_filled_into_2d_bias", f"{said}; on 3-D Q, K, V a 2-D (T_q, T_k) mask runs and is "
                            "right, but the same mask given as (B, T_q, T_k) fails the same way: "
                            + describe("mask_filled_into_2d_bias")) from None


def name_mask_for_one_shape(fn, mask, e, said):
    """naming25: a crash with a mask, where on 3-D inputs (PAD_PROBE's Q, K, V) a 2-D (T_q, T_k) mask runs and is
    right while the same mask expanded to (B, T_q, T_k) crashes: the mask is reshaped for a 2-D mask with 3-D
    scores only (mask.unsqueeze(0).expand(B, -1, -1), mask[None].repeat(B, 1, 1)): mask_unsqueezed. A correct
    function runs both; the two calls differ only in the mask's dims."""
    if mask is None or e.exc_type != "RuntimeError":
        return
    Q, K, V, _ = PAD_PROBE
    m2 = ref.causal_mask(Q.size(-2), K.size(-2))           # every query keeps a key, the first ones not all
    if not right(second_call(fn, Q, K, V, mask=m2), Q, K, V, m2):
        return
    try:
        fn(Q, K, V, mask=m2.expand(Q.size(0), -1, -1).contiguous())
    except StudentCodeError as again:
        name_mask_written_into_2d(again, tuple(m2.shape), said)
        raise Misconception("mask_unsqueezed", f"{said}; on 3-D Q, K, V of shape {tuple(Q.shape)} a 2-D (T_q, T_k) "
                            "mask runs and is right, but the same mask given as (B, T_q, T_k) raises "
                            f"{again.exc_type}: {again.message}: your code reshapes the mask for one shape only (a "
                            "2-D mask with 3-D scores, as mask.unsqueeze(0).expand(B, -1, -1) does): "
                            + describe("mask_unsqueezed")) from None


def name_dtype_crash(fn, Q, K, V, mask, said):
    """A crash about dtypes, with the same values in float32 running right: a step computes in float32."""
    if Q.dtype == torch.float32:
        return
    f32 = [None if t is None else (t if t.dtype == torch.bool else t.detach().float()) for t in (Q, K, V, mask)]
    out = second_call(fn, *f32[:3], mask=f32[3])
    if right(out, *f32):
        name = str(Q.dtype).replace('torch.', '')
        # round52 (blind52): the crash pairs the input's half type with the OTHER half type (Half != BFloat16):
        # a cast to that type (.half() for bfloat16 input, .bfloat16() for float16), not float32, met the input
        other = {torch.float16: ("BFloat16", "bfloat16", ".bfloat16()"),
                 torch.bfloat16: ("Half", "float16", ".half()")}.get(Q.dtype)
        if other is not None and re.search(rf"\b(c10::)?{other[0]}\b", said):
            raise Misconception("dtype_changed", f"{said} for {name} inputs; the same values in float32 run and are "
                                f"right, and the error pairs {name} with {other[1]}: your code casts to {other[1]} "
                                f"({other[2]}) where the input's own dtype is meant (a softmax done in float32 and "
                                f"cast back with {other[2]} turns {name} into {other[1]}); cast back with "
                                ".to(x.dtype)")
        raise Misconception("dtype_changed", f"{said} for {name} inputs; the same "
                            "values in float32 run and are right: some step converts to float32 (.float(), a "
                            "float32 tensor) and meets the input's dtype; keep the input's dtype")
    # naming27: a float32 replay that runs and is WRONG is judged first: the mistake it shows (mask * inf's
    # NaN) is named, not the float16 crash's dtype; only a replay that nothing names keeps the branch below
    # naming20: the crash names float32 against this very half dtype, and the float32 replay runs (its values,
    # right or not, are the float32 tests' to judge): a float32 tensor met the input's dtype
    half = {torch.float16: "Half", torch.bfloat16: "BFloat16"}.get(Q.dtype)
    float32_met_half = (half is not None and re.search(r"\bfloat\b", said, re.IGNORECASE) is not None
                        and re.search(rf"\b(c10::)?{half}\b", said) is not None
                        and type(out) is torch.Tensor and out.dtype == torch.float32
                        and tuple(out.shape) == tuple(Q.shape[:-1] + V.shape[-1:]))
    if out is not None:
        try:
            judge(fn, *f32[:3], f32[3], out, "the output for the same values in float32")
        except Misconception as named:
            # both said: the value mistake the float32 replay shows, and (where the crash pairs float32 with the half
            # type) the crash's own cause, which fixing the values alone may leave (a -1e4 * (~mask) bias is float32)
            crash = ("; the crash itself: a float32 tensor (a Python float times a bool mask, a tensor built without "
                     "dtype=) met the input's dtype; keep the input's dtype") if float32_met_half else ""
            raise Misconception(named.key, f"{said} for {str(Q.dtype).replace('torch.', '')} inputs, and the same "
                                f"values in float32 run but are wrong: {named}{crash}") from None
        except AssertionError:
            pass
    if float32_met_half:
        raise Misconception("dtype_changed", f"{said} for {str(Q.dtype).replace('torch.', '')} inputs; the same "
                            "values in float32 run (their values are judged by the float32 tests): a float32 "
                            "tensor (a Python float times a bool mask, a tensor built without dtype=) met the "
                            "input's dtype; keep the input's dtype")


def _first_slice(Q, K, V, mask):
    """The first 2-D slice (batch entry and head) of batched inputs, None for 2-D ones."""
    lead = broadcast_shape(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    if len(lead) == 0:
        return None
    first = (0,) * len(lead)
    Q2, K2, V2 = (t.expand(*lead, *t.shape[-2:])[first] for t in (Q, K, V))
    m2 = None if mask is None else mask.expand(*lead, Q.shape[-2], K.shape[-2])[first]
    return Q2, K2, V2, m2


# Two unmasked float64 probes that differ in d_k alone; no two of B, T, d_k, d_v coincide, nor any of
# them with the notebook's globals (d_k = 8 in Question 2, T = 3 and d_k = 4 in Question 6)
SCALE_PROBE_SIZES = {"B": 2, "T": 7, "d_v": 5}
SCALE_PROBE_D_K = (6, 11)


def _probe_divisor_n(fn, d_k):
    """The n with fn(Q, K, V) == softmax(Q K^T / sqrt(n)) V on a probe of this d_k (n up to 256), None
    where no n fits (another mistake) or the call fails."""
    g = torch.Generator().manual_seed(2100 + d_k)
    B, T, d_v = SCALE_PROBE_SIZES["B"], SCALE_PROBE_SIZES["T"], SCALE_PROBE_SIZES["d_v"]
    Q = 2 * torch.randn(B, T, d_k, generator=g, dtype=torch.float64)
    K = torch.randn(B, T, d_k, generator=g, dtype=torch.float64)
    V = torch.randn(B, T, d_v, generator=g, dtype=torch.float64)
    out = second_call(fn, Q, K, V, mask=None)
    if type(out) is not torch.Tensor or out.dtype != torch.float64 or tuple(out.shape) != (B, T, d_v):
        return None
    S = Q @ K.transpose(-2, -1)
    ns = torch.arange(1, 257, dtype=torch.float64)
    outs = torch.softmax(S[None] / ns.sqrt()[:, None, None, None], dim=-1) @ V
    close = ((outs - out[None]).abs().flatten(1).amax(1) < 1e-9).nonzero()
    return int(close[0, 0]) + 1 if close.numel() == 1 else None


def name_scale_constant(fn, what):
    """The scale does not move with d_k: two calls that differ in d_k alone (6, then 11) are each
    softmax(Q K^T / sqrt(n)) V with the same n, and n is none of the probes' sizes: d_k is a constant
    or the notebook's global (d_k = 8 from Question 2) instead of Q.shape[-1]. n = 1 is no_scale."""
    ns = [_probe_divisor_n(fn, d) for d in SCALE_PROBE_D_K]
    n = ns[0]
    if n is None or n != ns[1] or n == 1 or n in (*SCALE_PROBE_SIZES.values(), *SCALE_PROBE_D_K):
        return
    said = (f"{what}; called with d_k = {SCALE_PROBE_D_K[0]} and then d_k = {SCALE_PROBE_D_K[1]}, it divides the "
            f"scores by sqrt({n}) both times")
    hit = _mutable_default_filled(_grading_checks.running_submission())     # round82 (blind82): opts={} filled by setdefault
    if hit is not None:
        raise Misconception("mutable_default_kept_between_calls", f"{said}, and your function's default is filled "
                            f"and read back on every call (`{hit}`): " + describe("mutable_default_kept_between_calls"))
    raise Misconception("scale_constant", f"{said}: " + describe("scale_constant"))


def _width_read(node) -> bool:
    """An input's width or a root read: x.shape, x.size(...), math.sqrt(...) and the other roots (_root_of)."""
    return ((isinstance(node, ast.Attribute) and node.attr in ("shape", "size")) or _root_of(node) is not None)


def _fixed_key(node) -> bool:
    """A key or index written as a constant ("divisor", 0, -1), not one computed from the input."""
    return isinstance(node, ast.Constant) or _number(node) is not None


_MUTATORS = ("setdefault", "update", "append", "extend", "insert", "add", "__setitem__")


_FILLED_MEMO: list = []   # [(the cells, the answer)]: the last notebook read (red-team round 142)


def _mutable_default_filled(submission) -> str | None:
    """_mutable_default_read, worked out once per notebook: name_scale_constant runs in every q5 test that fails, and
    a 220 KB def (2,500 `if not cache: cache.setdefault(i, Q.shape[-1] ...)`) was walked again in each, 1.7 s of
    the grader's CPU a test, 16 tests (red-team round 142). Keyed by the cells' text: nothing carries over to
    another notebook."""
    if submission is None:
        return None
    key = tuple(cells_of(submission))
    # the entry read once: between a check and a second read another thread's grade (batch's in-process graders
    # share this module) could put its own notebook there, and this one would quote that student's line
    last = _FILLED_MEMO[0] if _FILLED_MEMO else None
    if last is not None and last[0] == key:
        return last[1]
    found = _mutable_default_read(submission)
    _FILLED_MEMO[:] = [(key, found)]
    return found


def _mutable_default_read(submission) -> str | None:
    """round82 (blind82 q5_options_dict_as_mutable_default_keeps_the_first_calls_scale): a def of the attention's
    cell with a parameter whose default is a mutable literal ({}, [], set(), dict(), list())
    that its body both FILLS (p.setdefault / update / append / extend / insert / add, or p[...] = ...) and READS
    back (p[...] loaded, p.get(...), p.setdefault(...) used as a value), the fill's value reading a width or a root
    (Q.size(-1), math.sqrt(...)), each under a FIXED key or index ("divisor", [0]; a cache keyed by the width,
    cache.setdefault(Q.shape[-1], ...), is right): the line that fills it, quoted; else None. A default only read
    (opts.get("divisor", 4.0)), or filled with no width (a call log) beside a fixed divisor, shows nothing. Student
    text: parsed (bounded: each def walked once), never run."""
    if submission is None:
        return None
    try:
        for seg, tree in _cell_trees(submission, "scaled_dot_product_attention")[:4]:
            for fn in [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))][:16]:
                a = fn.args
                pos = a.posonlyargs + a.args
                pairs = list(zip(pos[len(pos) - len(a.defaults):], a.defaults)) + [
                    (k, d) for k, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None]
                mutable = {p.arg for p, d in pairs if isinstance(d, (ast.Dict, ast.List, ast.Set)) or (
                    isinstance(d, ast.Call) and isinstance(d.func, ast.Name) and d.func.id in ("dict", "list", "set")
                    and not d.args and not d.keywords)}
                if not mutable:
                    continue
                # red-team round 142: a fill is KEPT only where a later call cannot redo it: setdefault, a fill
                # under a test of the default itself (`if not cache:`, `if "d" not in opts:`), or a list grown
                # every call read at a fixed index from its start ([0]); `last["d_k"] = Q.shape[-1]` every call,
                # or `seen.append(d)` read at [-1], holds this call's width: nothing kept
                none_tested = {id(c.left) for c in ast.walk(fn) if isinstance(c, ast.Compare) and len(c.ops) == 1
                               and isinstance(c.ops[0], (ast.Is, ast.IsNot)) and isinstance(c.comparators[0],
                                                                                    ast.Constant)
                               and c.comparators[0].value is None}
                guarded: set[int] = set()      # one walk, the flag carried down (nested ifs walked once)
                todo = [(fn, False)]
                while todo:
                    node, under = todo.pop()
                    if under:
                        guarded.add(id(node))
                    # `if cache is not None:` is always true of a {} default: no guard
                    test = isinstance(node, (ast.If, ast.While)) and any(
                        isinstance(t, ast.Name) and t.id in mutable and id(t) not in none_tested
                        for t in ast.walk(node.test))
                    todo.extend((c, under or (test and c is not node.test)) for c in ast.iter_child_nodes(node))
                filled, read, read_from_start = {}, set(), set()
                grown: set[int] = set()
                for n in ast.walk(fn):
                    if (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _MUTATORS
                            and isinstance(n.func.value, ast.Name) and n.func.value.id in mutable and (
                                n.func.attr != "setdefault" or (n.args and _fixed_key(n.args[0])))
                            and any(_width_read(x) for a in n.args for x in ast.walk(a))):
                        if n.func.attr == "setdefault" or id(n) in guarded:
                            filled.setdefault(n.func.value.id, n)
                        elif n.func.attr in ("append", "extend"):
                            grown.add(id(n))
                            filled.setdefault(n.func.value.id, n)
                    if (isinstance(n, (ast.Assign, ast.AugAssign)) and id(n) in guarded
                            and any(_width_read(x) for x in ast.walk(n.value))
                            and any(
                            isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id in mutable
                            and _fixed_key(t.slice)
                            for t in (n.targets if isinstance(n, ast.Assign) else [n.target]))):
                        filled.setdefault(next(t.value.id for t in (n.targets if isinstance(n, ast.Assign) else
                                                                     [n.target]) if isinstance(t, ast.Subscript)
                                               and isinstance(t.value, ast.Name) and t.value.id in mutable
                                               and _fixed_key(t.slice)), n)
                    if (isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Load) and isinstance(n.value, ast.Name)
                            and n.value.id in mutable and _fixed_key(n.slice)):
                        read.add(n.value.id)
                        index = _number(n.slice)
                        if index is not None and index >= 0:
                            read_from_start.add(n.value.id)
                    if (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "get"
                            and isinstance(n.func.value, ast.Name) and n.func.value.id in mutable
                            and n.args and _fixed_key(n.args[0])):
                        read.add(n.func.value.id)
                for n in ast.walk(fn):      # p.setdefault(...) whose value is used (not a bare statement)
                    for c in ast.iter_child_nodes(n):
                        if (not isinstance(n, ast.Expr) and isinstance(c, ast.Call)
                                and isinstance(c.func, ast.Attribute) and c.func.attr == "setdefault"
                                and isinstance(c.func.value, ast.Name) and c.func.value.id in mutable
                                and c.args and _fixed_key(c.args[0])):
                            read.add(c.func.value.id)
                for name in sorted(set(filled) & read):
                    if id(filled[name]) in grown and name not in read_from_start:
                        continue
                    return (seg.of(filled[name]) or unparse(filled[name])).splitlines()[0][:80]
    except CheckTooSlow:
        raise
    except Exception:  # noqa: BLE001 - an unreadable source shows nothing
        return None
    return None


def confirm_scale_by_size(fn, named, what):
    """scale_by_T (or scale_by_d_v) only where the probes, whose sizes all differ, show that size: a
    constant d_k (the notebook's global 8) equals T on an input where T = 8 and is named from the probes;
    a function that divides by neither is not named (the coincidence of one input's shapes)."""
    name_scale_constant(fn, what if what.endswith("wrong") else f"{what} is wrong")
    size = {"scale_by_T": SCALE_PROBE_SIZES["T"], "scale_by_d_v": SCALE_PROBE_SIZES["d_v"]}.get(named.key)
    if size is None:
        return
    ns = [_probe_divisor_n(fn, d) for d in SCALE_PROBE_D_K]
    if ns != [size, size] and ns != [None, None]:
        # no cause in words without its key: where it is wrong, and what the probes show
        shown = ", ".join(f"d_k = {d}: {'no scale 1/sqrt(n) fits' if n is None else f'1/sqrt({n})'}"
                          for d, n in zip(SCALE_PROBE_D_K, ns))
        raise AssertionError(f"{what}: the scores are scaled wrong on this input; on unmasked 3-D inputs "
                             f"(B, T, d_k) = ({SCALE_PROBE_SIZES['B']}, {SCALE_PROBE_SIZES['T']}, d_k) the scale is "
                             f"{shown}, where 1/sqrt(d_k) is right") from None


def _fold_to_3d(Q, K, V, mask):
    """Inputs of 4 or more axes with their leading axes folded into one (the same values as a 3-D batch),
    None for fewer axes."""
    lead = broadcast_shape(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    if len(lead) < 2:
        return None
    Q3, K3, V3 = (t.expand(*lead, *t.shape[-2:]).reshape(-1, *t.shape[-2:]) for t in (Q, K, V))
    m3 = None if mask is None else mask.expand(*lead, Q.shape[-2], K.shape[-2]).reshape(-1, Q.shape[-2], K.shape[-2])
    return Q3, K3, V3, m3


def name_d_k_from_a_leading_axis(fn, Q, K, V, mask, what):
    """A batched output scaled by sqrt(T) whose 2-D slice is right: d_k is read from a fixed axis
    (Q.size(1) is T_q on 3-D inputs, the heads on 4-D ones, and d_k only on 2-D ones), which is
    scale_by_batch_dim on every shape, not a sequence length taken for d_k (attention-pipeline's q02)."""
    subject = what.removesuffix(" is wrong")      # round48: name_in_float64's "<what> is wrong" said once
    sliced = _first_slice(Q, K, V, mask)
    if sliced is not None and right(second_call(fn, *sliced[:3], mask=sliced[3]), *sliced):
        raise Misconception("scale_by_batch_dim", f"{subject} is scaled by 1/sqrt(T_q) on {Q.dim()}-D inputs, and one "
                            "2-D slice of the same values is right: it matches " + describe("scale_by_batch_dim"))
    folded = _fold_to_3d(Q, K, V, mask)
    if folded is not None and right(second_call(fn, *folded[:3], mask=folded[3]), *folded):
        raise Misconception("scale_by_batch_dim", f"{subject} is scaled by 1/sqrt(T_q) on {Q.dim()}-D inputs, and the "
                            "same values with the leading axes folded into one (3-D, d_k on axis 2) are right: d_k "
                            "is read from a fixed axis (Q.shape[2] is T_q on 4-D inputs); it matches "
                            + describe("scale_by_batch_dim"))
    confirm_scale_by_size(fn, Misconception("scale_by_T", ""), what)


def name_in_float64(fn, Q, K, V, mask, said, q_scale=1.0):
    """A wrong half-precision output named only from what a float64 call on the same values shows: the
    one mistake that output equals (within float64's tolerance, where rounding is no excuse), never one
    it is merely nearer to. `q_scale` shrinks the queries first (large scores saturate the softmax,
    where several mistakes give the same near one-hot weights and none could be named): a function
    right there names nothing."""
    f64 = [None if t is None else (t if t.dtype == torch.bool else t.detach().double()) for t in (Q, K, V, mask)]
    f64[0] = f64[0] * q_scale
    out = second_call(fn, *f64[:3], mask=f64[3])
    if type(out) is not torch.Tensor or out.dtype != torch.float64:
        return
    key = name_from_rerun(out, ref.scaled_dot_product_attention(*f64), wrong_variants(*f64), torch.float64)
    if key == "scale_by_T":
        name_d_k_from_a_leading_axis(fn, *f64, said)
    if key is not None:
        how = "the same values in float64" if q_scale == 1.0 else f"the same values in float64, Q times {q_scale:.3g},"
        raise Misconception(key, f"{said}; {how} match {describe(key)}")


# A square 2-D input whose query 1 has no allowed key: mask.any(dim=-1) without keepdim, shape (T_q,),
# broadcasts along the keys here (and crashes where T_q != T_k); it zeroes key 1's column of every row.
ANY_PROBE = (torch.randn(4, 3, generator=_g, dtype=torch.float64),
             torch.randn(4, 3, generator=_g, dtype=torch.float64),
             torch.randn(4, 5, generator=_g, dtype=torch.float64),
             torch.tensor([[True, False, True, True], [False, False, False, False],
                           [True, True, False, True], [False, True, True, True]]))


def any_without_keepdim(Q, K, V, mask):
    """torch.where(mask.any(dim=-1), weights, 0) with the softmax's NaN rows left in: None where the
    shapes do not broadcast."""
    w = ref.stable_softmax(_masked(_scores(Q, K, math.sqrt(Q.shape[-1])), mask))
    try:
        w = torch.where(mask.any(dim=-1), w, torch.zeros_like(w))
    except RuntimeError:
        return None
    return _out(w, V, Q)


# ANY_PROBE's values with a mask whose queries 0 and 3 see every key: mask.all(dim=-1) for mask.any keeps
# only those and zeroes query 1 (one blocked key), which a correct function does not.
ALL_MASK = torch.tensor([[True, True, True, True], [True, True, False, True],
                         [False, False, False, False], [True, True, True, True]])
# round64: query 1 blocked from its own key only (ALL_MASK blocks key 2, off the diagonal, so that a flag read off
# the mask's diagonal is right there and only mask.all zeroes query 1)
DIAG_MASK = torch.tensor([[True, True, True, True], [True, False, True, True],
                          [False, False, False, False], [True, True, True, True]])


def sdpa_diagonal_flag(Q, K, V, mask):
    """round64 (blind64 q5_empty_rows_detected_from_the_mask_diagonal_as_if_every_query_saw_itself): the queries
    with a key read off the mask's diagonal (torch.diagonal(mask, dim1=-2, dim2=-1)): a query that cannot see
    itself gets a row of zeros. Square masks only."""
    m = mask.to(torch.bool)
    kept = torch.diagonal(m, dim1=-2, dim2=-1).unsqueeze(-1)
    w = ref.stable_softmax(_masked(_scores(Q, K, math.sqrt(Q.shape[-1])), m))
    return _out(w.masked_fill(~kept, 0.0), V, Q)


def _name_diagonal_flag(fn, said):
    """round64: right on ALL_MASK (a query that sees itself but not key 2 keeps its row) and, with DIAG_MASK,
    what the diagonal flag gives (query 1, blocked from itself only, zeroed): empty_rows_from_mask_diagonal."""
    Q, K, V = ANY_PROBE[:3]
    out = second_call(fn, Q, K, V, mask=ALL_MASK)
    live = ALL_MASK.any(dim=-1)
    if type(out) is not torch.Tensor or out.shape != (4, V.shape[-1]) or matching_variants(
            out[live], {"right": ref.scaled_dot_product_attention(Q, K, V, ALL_MASK)[live]}, torch.float64) == []:
        return
    out = second_call(fn, Q, K, V, mask=DIAG_MASK)
    wrong, live = sdpa_diagonal_flag(Q, K, V, DIAG_MASK), DIAG_MASK.any(dim=-1)
    if (type(out) is torch.Tensor and out.shape == wrong.shape
            and not matching_variants(out[live], {"right": ref.scaled_dot_product_attention(Q, K, V, DIAG_MASK)[live]},
                                      torch.float64)
            and matching_variants(out[live], {"diag": wrong[live]}, torch.float64)):
        raise Misconception("empty_rows_from_mask_diagonal", f"{said}; on a square input whose query 1 may see "
                            "every key but itself, it gives that query a row of zeros, and it keeps the row of a "
                            "query that sees itself but not another key: the flag is read off the mask's diagonal "
                            "(whether each query sees its own position); with T_q != T_k the diagonal is only "
                            "min(T_q, T_k) long: " + describe("empty_rows_from_mask_diagonal"))


def name_from_mask_probes(fn, said):
    """What a second call on ANY_PROBE's square values shows about finding the queries with no key:
    reduction_without_keepdim when it gives what mask.any(dim=-1) without keepdim gives there (key 1's
    weight zeroed, not renormalised), mask_all_for_any when, with ALL_MASK, it gives what mask.all gives;
    compared on the queries that have a key (the dead one is NaN or zeros, as the softmax makes it), and
    never when the call is right there."""
    Q, K, V = ANY_PROBE[:3]
    probes = ((ANY_PROBE[3], "reduction_without_keepdim", any_without_keepdim,
               "gives what mask.any(dim=-1) without keepdim gives (a (T_q,) result broadcast along the keys)"),
              (ALL_MASK, "mask_all_for_any", sdpa_mask_all_for_any, "gives what mask.all(dim=-1) gives"))
    for mask, key, variant, how in probes:
        out = second_call(fn, Q, K, V, mask=mask)
        wrong = variant(Q, K, V, mask)
        live = mask.any(dim=-1)
        if (type(out) is torch.Tensor and wrong is not None and out.shape == wrong.shape
                and not matching_variants(out[live], {"right": ref.scaled_dot_product_attention(Q, K, V, mask)[live]},
                                          torch.float64)
                and matching_variants(out[live], {key: wrong[live]}, torch.float64)):
            raise Misconception(key, f"{said}; on a square input with a query that has no allowed key, it {how}: "
                                + describe(key))
    _name_diagonal_flag(fn, said)


def mask_reshaped_replays(Q, K, V, mask) -> dict[int, torch.Tensor]:
    """round52 (blind52): the reference with the mask given a size-one axis at dim d (mask.unsqueeze(d), for d in
    0, 1, 2 of a mask of 3 or more dims, "room for a heads axis"), for each d where that broadcasts against the
    scores and gives another shape or other values than the right result."""
    out = {}
    if type(mask) is not torch.Tensor or mask.dim() < 3:
        return out
    expected = ref.scaled_dot_product_attention(Q, K, V, mask)
    for d in (0, 1, 2):
        try:
            got = ref.scaled_dot_product_attention(Q, K, V, mask.unsqueeze(d))
        except RuntimeError:
            continue
        if got.shape != expected.shape or not matching_variants(got, {"right": expected}, got.dtype):
            out[d] = got
    return out


def name_mask_unsqueezed_replay(fn, Q, K, V, mask, said):
    """mask_unsqueezed where a second call on the same (detached) inputs IS the reference with the mask
    unsqueezed at one dim (blind52's `if mask.dim() == 3: mask = mask.unsqueeze(1)`): on 3-D inputs the
    (B, 1, T_q, T_k) mask broadcasts the scores to (B, B, T_q, T_k)."""
    replays = mask_reshaped_replays(Q, K, V, mask)
    if not replays:
        return
    plain = [t.detach().contiguous() for t in (Q, K, V)]
    out = second_call(fn, *plain, mask=mask)
    if type(out) is not torch.Tensor:
        return
    for d, wrong in replays.items():
        if (out.shape == wrong.shape and out.dtype == wrong.dtype
                and matching_variants(out, {"mask_unsqueezed": wrong}, Q.dtype)):
            raise Misconception("mask_unsqueezed", f"{said}; it equals the right computation with the "
                                f"{mask.dim()}-D mask of shape {tuple(mask.shape)} given a dim at {d} "
                                f"(mask.unsqueeze({d})): " + describe("mask_unsqueezed"))


def name_from_a_slice(fn, Q, K, V, mask, said):
    """fixed_axes when one 2-D slice of the same values (the first batch entry and head) runs and gives
    the right result while the batched call crashed or came back wrong (`said`): .T reverses every axis
    of a batched tensor, transpose(1, 2) picks the wrong ones. round52: a mask unsqueezed at one dim is named
    first by its replay, and with a mask, fixed_axes also needs the same batched call WITHOUT the mask to go
    wrong (K.T or a fixed axis does not depend on the mask; code right without it slipped on the mask)."""
    lead = broadcast_shape(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    if len(lead) == 0:
        return
    if mask is not None:
        name_mask_unsqueezed_replay(fn, Q, K, V, mask, said)
        plain = [t.detach().contiguous() for t in (Q, K, V)]
        if right(second_call(fn, *plain, mask=None), *plain, None):
            return
    first = (0,) * len(lead)
    Q2, K2, V2 = (t.expand(*lead, *t.shape[-2:])[first] for t in (Q, K, V))
    m2 = None if mask is None else mask.expand(*lead, Q.shape[-2], K.shape[-2])[first]
    if right(second_call(fn, Q2, K2, V2, mask=m2), Q2, K2, V2, m2):
        raise Misconception("fixed_axes", f"{said} on {len(lead) + 2}-D inputs; one 2-D slice of the same values "
                            "runs and gives the right result: K.T or a fixed axis reverses or picks the wrong dims "
                            "of batched inputs; use K.transpose(-2, -1)")


def _name_from_square(fn, Q, K, V, mask, said):
    """The same inputs cut to as many queries as keys (all of them; then one 2-D slice, with its mask
    and without, in float32 where the inputs are half precision so that values can be compared): a
    mistake that needs T_q == T_k to run (K Q^T, A^T V, a reduction without keepdim) shows there."""
    T_q, T_k = Q.shape[-2], K.shape[-2]
    T = min(T_q, T_k)
    Qs, Ks, Vs = Q[..., :T, :], K[..., :T, :], V[..., :T, :]
    ms = None if mask is None else mask[..., : min(T, mask.shape[-2]), :T]
    cases = [(Qs, Ks, Vs, ms, "")] if T_q != T_k else []
    lead = broadcast_shape(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    if len(lead):
        first = (0,) * len(lead)
        dtype = torch.float32 if Q.dtype in (torch.float16, torch.bfloat16) else Q.dtype
        q, k, v = (t.expand(*lead, *t.shape[-2:])[first].to(dtype) for t in (Qs, Ks, Vs))
        if ms is not None:
            cases.append((q, k, v, ms.expand(*lead, T, T)[first], ", one 2-D slice,"))
        cases.append((q, k, v, None, ", one 2-D slice without a mask,"))
    for q, k, v, m, how in cases:
        out = second_call(fn, q, k, v, mask=m)
        if type(out) is not torch.Tensor:
            continue
        key = name_from_rerun(out, ref.scaled_dot_product_attention(q, k, v, m), wrong_variants(q, k, v, m), q.dtype)
        if key is not None:
            raise Misconception(key, f"{said}, with T_q = {T_q} queries and T_k = {T_k} keys; with {T} queries and "
                                f"{T} keys{how} it runs and matches {describe(key)}")
        if T_q != T_k and not how and right(out, q, k, v, m):
            raise AssertionError(f"{said}, with T_q = {T_q} queries and T_k = {T_k} keys (with as many queries as "
                                 "keys it runs and is right): the scores are (..., T_q, T_k)")


# More queries than keys (T_q = 5, T_k = 3), every query with an allowed key: a mask cropped to (T_q, T_q)
# is cut to nothing there (mask[..., :5, :5] of a (5, 3) mask is the whole mask), so such code is right
_gc = torch.Generator().manual_seed(81)
_CROP_PROBE = (torch.randn(2, 5, 4, generator=_gc, dtype=torch.float64),
               torch.randn(2, 3, 4, generator=_gc, dtype=torch.float64),
               torch.randn(2, 3, 2, generator=_gc, dtype=torch.float64),
               torch.tensor([[True, False, True], [False, True, False], [True, True, False],
                             [False, False, True], [True, True, True]]).expand(2, 5, 3))


def name_mask_cropped_square(fn, Q, K, V, mask, said):
    """A crash on more keys than queries whose message pairs the two lengths, where the same call without
    a mask is right and a masked call with fewer keys than queries is right: the mask was cut (or built)
    to (T_q, T_q), as a causal buffer is cropped to the sequence."""
    T_q, T_k = Q.shape[-2], K.shape[-2]
    if mask is None or T_k <= T_q or not re.search(rf"\({T_q}\) must match the size of tensor b \({T_k}\)", said):
        return
    if right(second_call(fn, Q, K, V, mask=None), Q, K, V, None) \
            and right(second_call(fn, *_CROP_PROBE), *_CROP_PROBE):
        raise Misconception("mask_cropped_square", f"{said}, with T_q = {T_q} queries and T_k = {T_k} keys; without "
                            "a mask it is right, and with a mask and fewer keys than queries (5 queries, 3 keys) it "
                            "is right too: " + describe("mask_cropped_square"))


# a shape unpacked into N names (`B, H, T, d = K.size()`): Python's words give N; an axis past the input's
# rank (`K.transpose(2, 3)` on 3-D inputs): torch's give the axis asked for
_UNPACKED = re.compile(r"(?:not enough|too many) values to unpack \(expected (\d+)")
_AXIS_PAST_RANK = re.compile(r"Dimension out of range \(expected to be in range of \[-(\d+), \d+\], but got (\d+)\)")


def name_fixed_rank(fn, Q, K, V, mask, e, said):
    """fixed_axes when the crash says the code expects inputs of another rank N (a shape unpacked into N
    names, an axis N - 1 of a smaller tensor) and the same values at rank N run and give the right
    result: axes of size one added in front (3-D to 4-D), or the leading axes flattened into one (4-D to
    3-D). A crash at the rank the test gave, or a second call that is wrong, names nothing."""
    lead = broadcast_shape(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    rank = len(lead) + 2
    found = _UNPACKED.search(e.message)
    past = _AXIS_PAST_RANK.search(e.message)
    if found is not None:
        n = int(found.group(1))
    elif past is not None and int(past.group(2)) >= int(past.group(1)):
        n = int(past.group(2)) + 1
    else:
        return
    if n == rank or not 3 <= n <= 5:
        return
    T_q, T_k = Q.shape[-2], K.shape[-2]
    full = tuple(lead) + (T_q, T_k)
    ins = [t.expand(*lead, *t.shape[-2:]) for t in (Q, K, V)]
    m = None if mask is None else mask.expand(full)
    if n > rank:
        ones = (1,) * (n - rank)
        ins = [t.reshape(*ones, *t.shape) for t in ins]
        m = None if m is None else m.reshape(*ones, *m.shape)
    else:
        keep = tuple(lead[:n - 3]) if n > 3 else ()
        ins = [t.reshape(*keep, -1, *t.shape[-2:]) for t in ins]
        m = None if m is None else m.reshape(*keep, -1, T_q, T_k)
    ins = [t.detach().contiguous() for t in ins]
    m = None if m is None else m.contiguous()
    if right(second_call(fn, *ins, mask=m), *ins, m):
        raise Misconception("fixed_axes", f"{said} on {rank}-D inputs; the same values as {n}-D inputs "
                            f"(shape {tuple(ins[0].shape)}) run and give the right result: your code expects "
                            f"{n}-D inputs: " + describe("fixed_axes"))


def name_mask_as_python_bool(fn, plain, said):
    """`not mask` (naming22): right with mask=None, and with a one-entry mask the call gets a Python bool where
    a tensor goes (torch's "got (bool, ..." of masked_fill or where): the mask itself became a bool."""
    if not right(second_call(fn, *plain[:3], mask=None), *plain[:3], None):
        return
    try:
        fn(*plain[:3], mask=torch.ones(1, 1, dtype=torch.bool))
    except StudentCodeError as again:
        if again.exc_type == "TypeError" and "invalid combination of arguments - got (bool" in again.message:
            raise Misconception("tensor_truthiness", f"{said}; with mask=None the same call is right, and with a "
                                "mask of one entry a Python bool arrives where the mask tensor goes "
                                f"({again.message.splitlines()[0][:60]}...): the mask was turned into a bool (not mask, if "
                                "mask:); invert a boolean mask with ~mask, never Python's not: "
                                + describe("tensor_truthiness")) from None


def _product_replays(Q, K, V, mask):
    """The output's product with the values put first (V @ weights, V @ weights^T) written out on zeros weights of
    this call's shape and its own V, beside the other products an attention function writes wrongly (the keys
    not transposed, Q^T @ K, V transposed after the weights, the weights times K or Q): crash_words.crash_replayed's
    replays; None where the mask does not broadcast."""
    full = tuple(broadcast_shape(Q.shape[:-2], K.shape[:-2])) + (Q.shape[-2], K.shape[-2])
    if mask is not None:
        try:
            full = tuple(broadcast_shape(full, mask.shape))
        except RuntimeError:
            return None
    q, k, v, w = Q.detach(), K.detach(), V.detach(), torch.zeros(full, dtype=V.dtype)
    return {"weights_transposed/vw": lambda: v @ w, "weights_transposed/vwT": lambda: v @ w.mT,
            "other/qk": lambda: q @ k, "other/qTk": lambda: q.mT @ k, "other/wvT": lambda: w @ v.mT,
            "other/wk": lambda: w @ k, "other/wq": lambda: w @ q}


_VF = torch.Generator().manual_seed(81)     # its own stream: _g's later draws stay as they were
VALUES_FIRST_PROBE = tuple(torch.randn(*shape, generator=_VF, dtype=torch.float64)
                           for shape in ((1, 3, 4), (1, 5, 4), (1, 5, 6)))   # T_q, T_k, d_k, d_v all differ


def name_values_first(fn, Q, K, V, mask, e, said):
    """A crash of the output's product with the values put first (V @ weights, a nanoGPT-lecture `V @ wei`):
    named when that slip, replayed on this call's own shapes (_product_replays), raises the same words and
    sizes and no other product does. Where another does too (Q @ K where d_k = d_v and T_k = T_q), ONE second
    call on VALUES_FIRST_PROBE, whose sizes all differ, must crash as V @ weights alone does there."""
    replays = _product_replays(Q, K, V, mask)
    if replays is None:
        return
    crash = f"{e.exc_type}: {e.message}"
    key = crash_replayed(crash, replays)
    if key is None and crash_replayed(crash, {k: f for k, f in replays.items() if k.startswith("weights_")}):
        try:   # ambiguous on this call's sizes: one call on sizes that tell the products apart
            fn(*VALUES_FIRST_PROBE, mask=None)
        except StudentCodeError as again:
            probe = _product_replays(*VALUES_FIRST_PROBE, None)
            if probe is not None and crash_replayed(f"{again.exc_type}: {again.message}", probe) == \
                    "weights_transposed":
                raise Misconception("weights_transposed", f"{said.rstrip('.')}: with Q (1, 3, 4), K (1, 5, 4) and "
                                    f"V (1, 5, 6) your function raises {again.exc_type}: {again.message.rstrip('.')}, "
                                    "the crash of V @ weights (or of V @ weights transposed), the values put first; "
                                    "the output is weights @ V. " + describe("weights_transposed")) from None
        return
    if key == "weights_transposed":
        raise Misconception(key, f"{said.rstrip('.')}: the crash of V @ weights (or of V @ weights transposed), the "
                            f"values put first (V is {tuple(V.shape)}); the output is weights @ V. " + describe(key))


class _TakingGradients:
    """The student's function called as the gradient test calls it (Q, K and V leaves that require grad, one
    backward pass), for the second calls of a crash in that test: a re-run without gradients would run where the
    crash is the gradients' own (.numpy() on a tensor that requires grad, blind32 q5_scores_computed_in_numpy),
    and then any change it makes (a 2-D slice, flattened axes) would seem to be the fix."""

    def __init__(self, fn):
        self._fn = fn

    def __call__(self, Q, K, V, mask=None):
        out, _grads = self._fn.call_with_grad(Q, K, V, mask=mask, grad_wrt=(0, 1, 2))
        return out

    def __getattr__(self, name):
        return getattr(self._fn, name)


def _heads_layout_probe():
    g = torch.Generator().manual_seed(56)
    Q, K, V = (torch.randn(shape, generator=g, dtype=torch.float64) for shape in ((2, 5, 3, 4), (2, 7, 3, 4),
                                                                                 (2, 7, 3, 6)))
    want = ref.scaled_dot_product_attention(Q.transpose(1, 2), K.transpose(1, 2), V.transpose(1, 2)).transpose(1, 2)
    return Q, K, V, want


HEADS_LAYOUT_PROBE = _heads_layout_probe()     # (batch 2, length 5 or 7, heads 3, features 4 or 6)


def name_heads_layout(fn, e, said):
    """round56 (blind56 q5_flax_layout_einsum_with_heads_before_features): a crash in einsum's or broadcasting's
    words where a second call shows the function is attention for (batch, length, heads, features) tensors, Flax's
    layout: on Q (2, 5, 3, 4), K (2, 7, 3, 4), V (2, 7, 3, 6) with mask=None it gives, in that layout, the right
    output (2, 5, 3, 6). A correct function cannot (its batch axes 5 and 7 do not broadcast)."""
    if not ("einsum()" in e.message or "must match the size of tensor" in e.message):
        return
    Q, K, V, want = HEADS_LAYOUT_PROBE
    out = second_call(fn, Q, K, V, mask=None)
    if (type(out) is torch.Tensor and out.shape == want.shape and out.is_floating_point()
            and torch.allclose(out.double(), want, rtol=0, atol=1e-6)):
        raise Misconception("einsum_heads_layout", f"{said}; and on Q (2, 5, 3, 4), K (2, 7, 3, 4), V (2, 7, 3, 6) "
                            "with mask=None it gives the right attention for tensors laid out as (batch, length, "
                            "heads, features), Flax's layout, not this notebook's (..., length, features): "
                            + describe("einsum_heads_layout"))


SAVED_WORDS = "needed for gradient computation has been modified by an inplace operation"


def _softmax_breaks_backward() -> bool:
    """Whether the notebook's stable_softmax (STUDENT_SOFTMAX), called alone with gradients on a (2, 3) float64
    tensor (the worker makes it a leaf and runs one backward pass), raises torch's SAVED_WORDS."""
    softmax = STUDENT_SOFTMAX.get()
    if softmax is None or not hasattr(softmax, "call_with_grad"):
        return False
    x = torch.tensor([[0.5, -1.0, 2.0], [0.0, 1.5, -0.5]], dtype=torch.float64)
    try:
        softmax.call_with_grad(x, dim=-1, grad_wrt=(0,))
    except StudentCodeError as crash:
        return SAVED_WORDS in crash.message
    except CheckTooSlow:
        raise
    except Exception:  # noqa: BLE001 - a probe that cannot run shows nothing
        return False
    return False


def name_saved_tensor_overwritten(fn, plain, said) -> None:
    """round71 (blind71 q3_exp_then_division_both_in_place_breaks_backward): the gradient test's crash in torch's
    own words for a tensor saved for backward and then written in place (SAVED_WORDS), where the same call without
    gradients runs and writes into none of its inputs (the worker compares them with copies), nor stable_softmax into
    its argument (_softmax_writes_argument): inplace_on_saved_tensor, not a write into an input. Where
    stable_softmax alone, with gradients, raises the same words, the write is said to be there; where the plain
    call's output is right, that is said too."""
    out = second_call(fn, *plain[:3], mask=plain[3])
    changed = getattr(fn, "last_changed_inputs", None)
    if out is None or not isinstance(changed, list) or changed or _softmax_writes_argument():
        return      # an input written (the attention's, or the scores by stable_softmax): inplace_on_input says it
    where = ("; stable_softmax alone, with gradients, raises the same error, so the in-place step is inside "
             "stable_softmax (the attention is not at fault)" if _softmax_breaks_backward() else "")
    values = " (its values are right)" if right(out, *plain) else ""
    raise Misconception("inplace_on_saved_tensor", f"{said}: without gradients the same call runs{values} and "
                        f"writes into none of its inputs{where}: " + describe("inplace_on_saved_tensor"))


def name_crash(fn, Q, K, V, mask, e, grad=False):
    """name_crash_by_calls, where a crash that a 2-D slice or another rank shows to be fixed_axes is said in
    torch.mm / .mm / bmm's own fixed-rank words ("self must be a matrix", "batch1 must be a 3D tensor"): those
    words prove the product of fixed rank (matmul_fixed_rank, bmm_of_matrices: round 37), not K.T or a fixed axis."""
    try:
        _name_crash_by_calls(fn, Q, K, V, mask, e, grad)
    except Misconception as named:
        if named.key == "fixed_axes":
            by_words = crash_words(e)
            if by_words is not None and by_words.key in ("matmul_fixed_rank", "bmm_of_matrices"):
                raise by_words from None
        raise


def _name_crash_by_calls(fn, Q, K, V, mask, e, grad=False):
    """A crash is named only from what a second call shows; otherwise it is reported as it is. With `grad` (the
    crash of the gradient test's call) the second calls take gradients too, but those that ask whether the same
    call runs without them (an in-place write into an input, a tuple returned)."""
    said = f"your code raised {e.exc_type}: {e.message}"
    plain = [None if t is None else t.detach().contiguous() for t in (Q, K, V, mask)]
    plain_fn = fn
    if grad:
        fn = _TakingGradients(fn)
    if grad and OUT_WORDS in e.message:
        name_out_into_input(plain_fn, plain, e, said)
        name_out_breaks_autograd(e)
    if crash_inside_broken_softmax(e):    # the helper's own crash (blind35): its own second calls, not the attention's
        name_softmax_crash(STUDENT_SOFTMAX.get(), e, "inside stable_softmax, which the attention calls")
        raise AssertionError(f"{said} (inside stable_softmax, which itself crashes or is wrong on a plain 3-D "
                             "input with dim=-1: fix it first, Question 3's tests say how)")
    name_size_crash(e, said)
    name_tuple_as_tensor(e, said)
    name_heads_layout(plain_fn, e, said)       # round56: Flax's (..., length, heads, features) einsum strings
    name_fixed_rank(fn, Q, K, V, mask, e, said)
    name_keys_reshaped_with_query_length(Q, K, e, said, plain_fn, plain)      # round70: K.reshape(-1, T_q, d_k), replayed
    if "is invalid for input of size" in e.message:
        name_output_given_input_shape(fn, *plain, said)

    def plain_call():
        return fn(*plain[:3], mask=plain[3])

    if "Boolean value of Tensor with more than one value is ambiguous" in e.message and plain[3] is not None:
        # `if mask:`: with mask=None, and with a one-entry all-True mask (truthy), the same call is right
        one = torch.ones(1, 1, dtype=torch.bool)
        if right(second_call(fn, *plain[:3], mask=None), *plain[:3], None) \
                and right(second_call(fn, *plain[:3], mask=one), *plain[:3], one):
            raise Misconception("tensor_truthiness", f"{said}: with mask=None, and with a mask of one True entry, "
                                "the same call runs and is right: " + describe("tensor_truthiness"))
        name_mask_as_python_bool(fn, plain, said)
    if e.message.startswith("expected a tensor"):
        # the gradient call needs one tensor back: what the plain call returns says what it is (a tuple)
        out = second_call(plain_fn, *plain[:3], mask=plain[3])
        if out is not None:
            judge(plain_fn, Q, K, V, mask, out, "the output")
    if grad and SAVED_WORDS in e.message:
        name_saved_tensor_overwritten(plain_fn, plain, said)      # round71: no input written, a saved tensor
    if ("in-place operation" in e.message or "inplace operation" in e.message) \
            and second_call(plain_fn, *plain[:3], mask=plain[3]) is not None:
        # a leaf that needs gradients was written into (the gradient test's inputs)
        raise Misconception("inplace_on_input", f"{said}: without gradients it runs{_softmax_writes_argument()}: "
                            "do not write into an input")
    if grad:
        # a crash of the gradients' own (no derivative for floor_divide, .numpy() on a tensor that requires grad):
        # the same call without gradients runs, and its values say what they are; the second calls below keep
        # the gradients, so none seems fixed by what it changes only because it dropped them
        out = second_call(plain_fn, *plain[:3], mask=plain[3])
        if type(out) is torch.Tensor:
            name_rows_never_written(plain_fn, out, ref.scaled_dot_product_attention(*plain),   # round71: no row
                                    f"{said}; without gradients the same call runs, but its output")  # written
            key = name_from_rerun(out, ref.scaled_dot_product_attention(*plain), wrong_variants(*plain), Q.dtype)
            if key is not None:
                raise Misconception(key, f"{said}; without gradients the same call runs and matches "
                                    + describe(key))
    if "view size is not compatible" in e.message:
        # contiguous copies that run and are wrong say the view was the mistake itself, not the layout
        try:
            out = plain_call()
        except (StudentCodeError, AssertionError):
            out = None
        if type(out) is torch.Tensor and not right(out, *plain):
            key = name_from_rerun(out, ref.scaled_dot_product_attention(*plain), wrong_variants(*plain), Q.dtype)
            if key is not None:
                raise Misconception(key, f"{said}; on contiguous copies of the same values it runs and matches "
                                    + describe(key))
            raise AssertionError(f"{said}; on contiguous copies of the same values it runs and is wrong too: "
                                 "a .view that works there still reads the values in another order")
    name_sdpa_mask_squeezed(plain_fn, plain, e, said)     # round65: mask.squeeze() drops its broadcast axes
    name_sequence_first(plain_fn, plain, said)      # round58: (T, B, d) read, axes 0 and 1 swapped
    if mask is not None and "must match the size of tensor" in e.message:
        name_mask_mirrored(plain_fn, said)       # round58: (T_k, T_q) scores masked with the (T_q, T_k) mask
    name_width_from_queries(plain_fn, plain, e, said)     # round64: zeros_like(Q) for d_v-wide output rows
    layout = layout_crash(e, {"Q": Q, "K": K, "V": V, "mask": mask}, plain_call)
    if layout is not None:
        raise layout
    half = str(Q.dtype).replace("torch.", "")
    if "overflow" in e.message and Q.dtype in (torch.float16, torch.bfloat16):
        # which constant? in float32, a blocked key filled with -1e9 outweighs an allowed key whose
        # score is -4e9 (reference.FILL_PROBE); -inf, the dtype's min or float32's min do not
        out = second_call(fn, *ref.FILL_PROBE[:3], mask=ref.FILL_PROBE[3])
        if type(out) is torch.Tensor and tuple(out.shape) == (1, 1) and abs(float(out)) < 0.5:
            raise Misconception("neg_1e9_float16", f"{said}: {half} cannot hold the -1e9 your code fills "
                                "masked scores with (use float('-inf'))")
        raise Misconception("fill_overflows_half", f"{said}: the constant your code fills masked scores "
                            f"with does not fit in {half} (use float('-inf') or torch.finfo(scores.dtype).min)")
    if "dtype" in e.message or "scalar type" in e.message:
        name_dtype_crash(fn, Q, K, V, mask, said)
    if e.exc_type == "TypeError" and e.message.startswith("sqrt(): argument") and "must be Tensor, not int" in e.message:
        raise Misconception("torch_sqrt_of_int", f"{said}: " + describe("torch_sqrt_of_int"))
    if "cannot be multiplied" in e.message or "batch2" in e.message:
        name_values_first(fn, Q, K, V, mask, e, said)
        # a product of the wrong shapes: square keys (T_k = d_k, KEYS_PROBE) let Q @ K run
        out = second_call(fn, *KEYS_PROBE, mask=None)
        key = name_from_rerun(out, ref.scaled_dot_product_attention(*KEYS_PROBE), wrong_variants(*KEYS_PROBE),
                              torch.float64)
        if key == "keys_not_transposed":
            raise Misconception(key, f"{said}; with as many keys as their width (T_k = d_k) it runs and matches "
                                + describe(key))
    if (mask is not None and "Subtraction, the `-` operator, with a bool tensor" in e.message
            and right(second_call(fn, *plain[:3], mask=None), *plain[:3], None)):
        # torch's own words for `1 - mask` (or `mask - 1`) on a bool tensor, and the same call without a
        # mask is right: the only bool tensor the function is given is the mask
        raise Misconception("bool_mask_arithmetic", f"{said}; with mask=None the same call runs and is right: "
                            + describe("bool_mask_arithmetic"))
    if mask is not None and mask.dtype == torch.bool and "bool" in e.message:
        # arithmetic on the boolean mask ((1 - mask) * -1e9): a 0/1 mask of the input's dtype, which a
        # correct function cannot use (~ and masked_fill refuse it), runs and is right
        numbers = mask.to(Q.dtype)
        if right(second_call(fn, Q, K, V, mask=numbers), Q, K, V, mask):
            raise Misconception("bool_mask_arithmetic", f"{said}; with the same mask as 0/1 numbers it runs and is "
                                "right: " + describe("bool_mask_arithmetic"))
    T_q, T_k = Q.shape[-2], K.shape[-2]
    if mask is None and second_call(fn, Q, K, V, mask=torch.ones(T_q, T_k, dtype=torch.bool)) is not None:
        raise Misconception("crash_on_mask_none", f"{said} when called with mask=None (with a mask "
                            "that allows every key it runs)")
    name_mask_cropped_square(fn, Q, K, V, mask, said)
    # each second call below changes one thing; it names a mistake only if it then runs and is right
    # (the crash is that mistake) or matches a catalogued mistake and not the right result
    lead = broadcast_shape(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    full = (broadcast_shape(tuple(lead) + (T_q, T_k), mask.shape) if mask is not None
            else tuple(lead) + (T_q, T_k))
    if mask is not None and tuple(mask.shape) != tuple(full):
        whole = mask.expand(full).contiguous()
        if right(second_call(fn, Q, K, V, mask=whole), Q, K, V, whole):
            name_mask_unsqueezed(fn, said)
            if "view size is not compatible" in e.message:
                # round60 (blind60): mask.expand(...).view(-1, T_q, T_k): a broadcast (stride-0) axis cannot merge
                raise Misconception("view_on_noncontiguous", f"{said}, with a mask of shape {tuple(mask.shape)} for "
                                    f"scores of shape {tuple(full)}; with the mask already at that shape it runs and "
                                    "is right: a mask broadcast with expand has stride-0 axes, which .view cannot "
                                    "merge with the others; flatten it with .reshape: " + describe("view_on_noncontiguous"))
            raise Misconception("mask_not_broadcast", f"{said}, with a mask of shape {tuple(mask.shape)} for "
                                f"scores of shape {tuple(full)}; with the mask expanded to the scores' shape it "
                                "runs and is right: the mask must broadcast (masked_fill or torch.where do)")
    if len(full) > 3:
        flat = [t.reshape(-1, *t.shape[-2:]) for t in (Q.expand(*lead, *Q.shape[-2:]), K.expand(*lead, *K.shape[-2:]),
                                                       V.expand(*lead, *V.shape[-2:]))]
        m3 = None if mask is None else mask.expand(full).reshape(-1, T_q, T_k)
        if right(second_call(fn, *flat, mask=m3), *flat, m3):
            raise Misconception("fixed_axes", f"{said} on {len(full)}-D inputs; the same values with the batch and "
                                "head dims flattened into one (3-D inputs) run and give the right result: "
                                "use negative axes (K.transpose(-2, -1)), not K.transpose(1, 2) or K.T")
    name_mask_for_one_shape(fn, mask, e, said)
    if mask is not None:
        name_from_mask_probes(fn, said)
    name_from_a_slice(fn, Q, K, V, mask, said)
    if mask is not None:
        name_mask_unsqueezed(fn, said)
    _name_from_square(fn, Q, K, V, mask, said)


def softmax_shift(fn):
    """What the student's softmax subtracts before exp, from which rows of reference.SOFTMAX_PROBE come
    out non-finite: a key of SOFTMAX_PROBE_PATTERNS, "" when both rows are finite (each row's max),
    None when the probe cannot tell (a crash, a wrong shape)."""
    out = second_call(fn, *ref.SOFTMAX_PROBE_QKV, mask=None)
    if type(out) is not torch.Tensor or tuple(out.shape) != (2, 3):
        return None
    pattern = tuple(bool((~torch.isfinite(out[i])).any()) for i in range(2))
    shift = ref.SOFTMAX_PROBE_PATTERNS.get(pattern, "")
    if shift == "":     # finite on SOFTMAX_PROBE: each row's max, or a shift only a -inf entry breaks
        said = mean_or_sound(*(second_call(fn, *qkv, mask=None) for qkv in MEAN_PROBES_QKV))
        if said == "softmax_subtracts_mean" and not sound_on_softmax_probe(out):
            # round38 (blind37): each slice's mean is exact on SOFTMAX_PROBE (its rows' means are in range), so
            # wrong values there are another slip whose NaN on MEAN_PROBES V = I spreads (builtin sum(): 1 / 1, 0 / 0)
            return None
        return said
    if shift == "softmax_subtracts_min":    # exp(max - x) overflows the same rows: tame scores tell them apart
        return min_or_negated(lambda x: fn(torch.ones(1, 1, dtype=x.dtype), x.T, torch.eye(x.shape[-1], dtype=x.dtype),
                                           mask=None))
    if shift != "global_max_subtraction":
        return shift
    said = global_or_max_abs(second_call(fn, *MAX_ABS_PROBE_QKV, mask=None))
    if said == shift:
        said = global_or_first_entry(second_call(fn, *FIRST_ENTRY_PROBE_QKV, mask=None))
    if said != shift:
        return said
    said = global_or_median(second_call(fn, *MEDIAN_PROBE_QKV, mask=None), values=MEDIAN_PROBE_QKV[2])
    if said != shift or not global_replay_matches(out, ref.SOFTMAX_PROBE, values=ref.SOFTMAX_PROBE_QKV[2]):
        return said if said != shift else None
    return global_or_second_largest(*(second_call(fn, *qkv, mask=None) for qkv in SECOND_LARGEST_PROBES_QKV),
                                    attention=True)


def overflow_zeroes_weights(out):
    """A softmax with no max shift written in the log domain, exp(x - log(sum(exp(x)))) (or an unshifted one
    whose NaN is turned into 0), on reference.SOFTMAX_PROBE (float32 logits 100, 99, 10 and their negatives):
    exp(100) overflows float32, so the first row's weights are all exactly 0 (x - inf), and the second row
    is right. No right softmax gives a row of zeros, and no other known shift does (naming12, blind11)."""
    if type(out) is not torch.Tensor or tuple(out.shape) != (2, 3) or not out.dtype.is_floating_point:
        return False
    want = ref.stable_softmax(ref.SOFTMAX_PROBE[1:].double(), dim=-1)[0]
    return (bool((out[0] == 0).all()) and bool(torch.isfinite(out[1]).all())
            and bool(torch.allclose(out[1].double(), want, atol=1e-5)))


# naming32 (blind29): an unshifted softmax computed in float64 (x.double() before exp) passes the float32 probe
# above; one float64 row 709.5, 709.5, 700 does not: each exp is finite (< 1.8e308) but their sum overflows, so
# every weight is exactly 0 (e / inf, or x - log(inf) in the log domain). Any shift by the max, the min, the
# mean or the first entry keeps it in range, and no right softmax gives a row of zeros.
SUM_OVERFLOW_PROBE = torch.tensor([[709.5, 709.5, 700.0]], dtype=torch.float64)
# small logits, where an unshifted softmax is exact: a softmax wrong here has another mistake (a shifted
# numerator over an unshifted sum, a standardised row), whatever the overflow probe shows
SMALL_LOGITS = torch.tensor([[0.5, -1.0, 2.0], [3.0, 0.0, -2.0]], dtype=torch.float64)


# the last softmax asked about and its answer, per thread (`autograder check` and a batch's threads grade several
# students at once in one process: one shared slot could hand one student's answer to another): every
# wrong_variants call asks it once per standardised-scores variant (six), on every failing test, each a round trip
# into the worker (issue 20)
_SMALL_LOGITS_ANSWER = threading.local()


def softmax_right_on_small_logits(fn) -> bool:
    """Whether the student's softmax gives torch's softmax of SMALL_LOGITS (a second call; False on a crash).
    Asked once per function in a thread: the answer is kept with a reference to it, so no other can take its
    place."""
    last = getattr(_SMALL_LOGITS_ANSWER, "last", None)
    if last is not None and last[0] is fn:
        return last[1]
    out = second_call(fn, SMALL_LOGITS.clone(), dim=-1)
    answer = (type(out) is torch.Tensor and out.shape == SMALL_LOGITS.shape
              and bool(torch.allclose(out.detach().double(), torch.softmax(SMALL_LOGITS, dim=-1), atol=1e-6)))
    _SMALL_LOGITS_ANSWER.last = (fn, answer)
    return answer


def name_unshifted_in_float64(fn, what):
    """no_max_subtraction where the float32 probe cannot show it (the exponentials taken in float64)."""
    out = second_call(fn, SUM_OVERFLOW_PROBE.clone(), dim=-1)
    if (type(out) is torch.Tensor and tuple(out.shape) == (1, 3) and bool((out == 0).all())
            and softmax_right_on_small_logits(fn)):
        raise Misconception("no_max_subtraction", f"{what}, and a float64 probe with logits 709.5, 709.5, 700 gives "
                            "weights of exactly 0 (each exp fits in float64, their sum passes its largest number, "
                            "1.8e308): an upcast to float64 only moves the overflow. It matches "
                            + describe("no_max_subtraction"))


# A shift finite on SOFTMAX_PROBE need not be the max: each slice's mean keeps both rows in range. Two
# float64 rows tell it (issue 21, naming7): 0, -1, -inf (the max 0 is finite, so the right softmax is
# finite; the mean is -inf, so x - mean is NaN or +inf and the slice NaN), and 1000, 0, 0, 0 (max - mean
# = 750 overflows exp in float64; max - midrange = 500 does not, nor anything after subtracting the max).
# NaN on the first and not on the second is some other shift a -inf entry breaks: None (cannot name it),
# never "" (a +inf fill is named only when the softmax takes a -inf score right).
MEAN_PROBES = (torch.tensor([[0.0, -1.0, float("-inf")]], dtype=torch.float64),
               torch.tensor([[1000.0, 0.0, 0.0, 0.0]], dtype=torch.float64))
MEAN_PROBES_QKV = tuple((torch.ones(1, 1, dtype=torch.float64), row.T.clone(),
                         torch.eye(row.shape[-1], dtype=torch.float64)) for row in MEAN_PROBES)


def sound_on_softmax_probe(out) -> bool:
    """The attention output on reference.SOFTMAX_PROBE_QKV (V = I: the weights) is the right softmax: a shift by
    each row's mean is (its rows' means, 69.7 and -69.7, leave every exp in float32's range)."""
    right = ref.stable_softmax(ref.SOFTMAX_PROBE.double(), dim=-1)
    return (type(out) is torch.Tensor and tuple(out.shape) == (2, 3) and bool(torch.isfinite(out).all())
            and bool(torch.allclose(out.double(), right, atol=1e-6)))


def mean_or_sound(minus_inf_out, spread_out):
    """From the student's softmax of MEAN_PROBES (directly or as attention weights): "" when both are
    right, "softmax_subtracts_mean" when the -inf row is all NaN and the wide row not finite, None else."""
    rights = [ref.stable_softmax(row, dim=-1) for row in MEAN_PROBES]
    outs = (minus_inf_out, spread_out)
    if any(type(o) is not torch.Tensor or o.shape != r.shape for o, r in zip(outs, rights)):
        return None
    if all(bool(torch.isfinite(o).all()) and torch.allclose(o.double(), r, atol=1e-6) for o, r in zip(outs, rights)):
        return ""
    if bool(torch.isnan(minus_inf_out).all()) and not bool(torch.isfinite(spread_out).all()):
        return "softmax_subtracts_mean"
    return None


# Each slice's largest |x| subtracted leaves SOFTMAX_PROBE's rows as one global max does (row 0's max is
# its largest |x| and the global max; row 1, -100 .. -10, underflows to 0 / 0 either way). One row
# 0, -1, -300 tells them apart: its max is the whole tensor's (right), its largest |x| is 300 (every exp
# underflows: 0 / 0, NaN). As attention inputs: d_k = 1, q = 1, k = (0, -1, -300), V the identity.
MAX_ABS_PROBE = torch.tensor([[0.0, -1.0, -300.0]])
MAX_ABS_PROBE_QKV = (torch.tensor([[1.0]]), torch.tensor([[0.0], [-1.0], [-300.0]]), torch.eye(3))


FIRST_ENTRY_PROBE = torch.tensor([[10.0, 100.0, 99.0]])   # the max not first: a shift by the first entry overflows
FIRST_ENTRY_PROBE_QKV = (torch.tensor([[1.0]]), torch.tensor([[10.0], [100.0], [99.0]]), torch.eye(3))


def global_or_first_entry(out):
    """After global_or_max_abs said global_max_subtraction (both probes' slices start with their max), from the
    softmax's output on FIRST_ENTRY_PROBE (one slice, its max second): the same key where it is finite, as one
    global max gives it; softmax_shift_by_first_entry where it is not (exp(100 - 10) overflows float32,
    blind27); None for anything else (a crash, a wrong shape)."""
    if type(out) is not torch.Tensor or tuple(out.shape) != (1, 3):
        return None
    return "global_max_subtraction" if bool(torch.isfinite(out).all()) else "softmax_shift_by_first_entry"


# round35 (blind34): each slice's MEDIAN subtracted looks like one global max on SOFTMAX_PROBE (row 1, -100 .. -10,
# has median -99: exp(89) overflows float32) and passes MAX_ABS_PROBE and FIRST_ENTRY_PROBE (their medians are near
# the max). One float64 row 0, -1, -2000, -2000, -2000 tells them apart: its max is the whole tensor's (right), its
# median is -2000 (exp(2000) and exp(1999) overflow: NaN, NaN, 0, 0, 0). As attention: d_k = 1, q = 1, V the identity.
MEDIAN_PROBE = torch.tensor([[0.0, -1.0, -2000.0, -2000.0, -2000.0]], dtype=torch.float64)
MEDIAN_PROBE_QKV = (torch.tensor([[1.0]], dtype=torch.float64), MEDIAN_PROBE.T.clone(),
                    torch.eye(5, dtype=torch.float64))


def median_softmaxes(x, dim=-1):
    """Replays of a softmax shifted by each slice's median: torch's (the lower middle value) and the midpoint of
    the two middle values (np.median, quantile(0.5)); the same one where the slice's length is odd."""
    s = x.sort(dim=dim).values
    n = x.shape[dim]
    lower, upper = s.narrow(dim, (n - 1) // 2, 1), s.narrow(dim, n // 2, 1)
    out = []
    for centre in (lower, lower + (upper - lower) / 2 if n % 2 == 0 else None):
        if centre is not None:
            e = torch.exp(x - centre)
            out.append(e / e.sum(dim=dim, keepdim=True))
    return out


def same_as_replay(got, replay, rows=None) -> bool:
    """got equals a replay where it is non-finite and close where it is finite (only `rows` when given, a bool
    mask of its leading axes)."""
    if type(got) is not torch.Tensor or type(replay) is not torch.Tensor or got.shape != replay.shape:
        return False
    g, r = got.detach().double(), replay.detach().double()
    if rows is not None:
        g, r = g[rows], r[rows]
    if not torch.equal(torch.isfinite(g), torch.isfinite(r)) or not torch.equal(torch.isnan(g), torch.isnan(r)):
        return False
    fin = torch.isfinite(g)
    return bool(torch.allclose(g[fin], r[fin], rtol=1e-2, atol=1e-3))


def global_or_median(out, values=None):
    """After the other probes said global_max_subtraction, the softmax's output on MEDIAN_PROBE: the same key where
    it is right (one max over a single row is the row's own), softmax_subtracts_median where it equals a replay
    of the median shift, None for anything else (so a global max is never named where a median replay matches).
    `values`: the probe's V where `out` is attention's output (a NaN weight makes its whole output row NaN)."""
    if any(same_as_replay(out, r if values is None else r @ values) for r in median_softmaxes(MEDIAN_PROBE)):
        return "softmax_subtracts_median"
    right = ref.stable_softmax(MEDIAN_PROBE, dim=-1)
    if (type(out) is torch.Tensor and tuple(out.shape) == (1, 5) and bool(torch.isfinite(out).all())
            and bool(torch.allclose(out.double(), right, atol=1e-6))):
        return "global_max_subtraction"
    return None


def global_max_softmax(x):
    """A softmax shifted by one maximum over the whole tensor (global_max_subtraction), replayed."""
    e = torch.exp(x - x.max())
    return e / e.sum(dim=-1, keepdim=True)


def global_replay_matches(out, x, values=None) -> bool:
    """The output on probe x (attention's with V = `values`) IS the global-max replay, NaN where it is NaN: its own
    evidence, not merely inf or NaN in the same rows."""
    replay = global_max_softmax(x.double() if x.dtype == torch.float64 else x)
    return same_as_replay(out, replay if values is None else replay @ values.to(replay.dtype))


# round51 (blind51 q3_shift_by_kthvalue_off_by_one_is_the_second_largest): a shift by each row's SECOND-largest entry
# (x.kthvalue(n - 1), x.sort().values[..., -2], x.topk(2).values[..., 1]) passes every probe above as one global max
# does (SOFTMAX_PROBE's row 1 overflows, exp(-10 + 99); the others' top two are close). Two float32 rows tell it:
# 0, -80, -200 (the top two 80 apart: exp(80) fits in float32, so it is right) and 0, -95, -200 (95 apart: exp(95)
# overflows, inf / inf = NaN on the max, 0 elsewhere). One global max over one row is the row's own: right on both;
# a shift by the mean (-93, -98), the median (-80, -95) or the minimum fails the first or is told apart earlier.
SECOND_LARGEST_PROBES = (torch.tensor([[0.0, -80.0, -200.0]]), torch.tensor([[0.0, -95.0, -200.0]]))
SECOND_LARGEST_PROBES_QKV = tuple((torch.tensor([[1.0]]), p.T.clone(), torch.eye(3)) for p in SECOND_LARGEST_PROBES)


def second_largest_softmax(x, dim=-1):
    """A softmax shifted by each slice's second-largest entry (kthvalue(n - 1), sort()[..., -2]), replayed."""
    top2 = x.sort(dim=dim).values.narrow(dim, x.shape[dim] - 2, 1)
    e = torch.exp(x - top2)
    return e / e.sum(dim=dim, keepdim=True)


def second_largest_replay_matches(out, x, values=None) -> bool:
    replay = second_largest_softmax(x)
    return same_as_replay(out, replay if values is None else replay @ values.to(replay.dtype))


def global_or_second_largest(near_out, far_out, attention=False):
    """After every other probe said global_max_subtraction, the softmax's outputs on SECOND_LARGEST_PROBES: the same
    key where both are right (one max over one row is its own), shift_not_row_max where the first is right and the
    second IS the replay of a second-largest shift (NaN on the max, 0 elsewhere; attention's output with V = I, NaN
    everywhere), None for anything else."""
    rights = [ref.stable_softmax(p.double(), dim=-1) for p in SECOND_LARGEST_PROBES]
    oks = [type(o) is torch.Tensor and tuple(o.shape) == (1, 3) and bool(torch.isfinite(o).all())
           and bool(torch.allclose(o.double(), r, atol=1e-6)) for o, r in zip((near_out, far_out), rights)]
    if not oks[0]:
        return None
    if oks[1]:
        return "global_max_subtraction"
    values = SECOND_LARGEST_PROBES_QKV[1][2] if attention else None
    if second_largest_replay_matches(far_out, SECOND_LARGEST_PROBES[1], values=values):
        return "shift_not_row_max"
    return None


def median_replay_matches(got, x, dim=-1) -> bool:
    """The student's softmax output equals a median-shift replay on the same input (softmax_subtracts_median)."""
    return any(same_as_replay(got, r) for r in median_softmaxes(x, dim))


def sdpa_median_replay_matches(got, Q, K, V, mask) -> bool:
    """Attention whose softmax subtracts each row's median, replayed on the same inputs: equal on every query that
    has an allowed key (a fully masked row is the row guard's business)."""
    scores = Q.double() @ K.double().transpose(-2, -1) / math.sqrt(Q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    rows = None if mask is None else mask.expand(scores.shape).any(dim=-1)
    if type(got) is not torch.Tensor or rows is not None and rows.shape != tuple(got.shape[:-1]):
        return False
    return any(same_as_replay(got, w @ V.double(), rows) for w in median_softmaxes(scores))


def global_or_max_abs(out):
    """Which shift a softmax that looks like global_max_subtraction on SOFTMAX_PROBE subtracts, from its
    output on MAX_ABS_PROBE: NaN in every entry is each slice's largest |x| (softmax_shift_by_max_abs),
    the right values one global max; None (cannot tell) for anything else."""
    if type(out) is not torch.Tensor or tuple(out.shape) != (1, 3):
        return None
    if bool(torch.isnan(out).all()):
        return "softmax_shift_by_max_abs"
    right = ref.stable_softmax(MAX_ABS_PROBE.double(), dim=-1)
    if bool(torch.isfinite(out).all()) and bool(torch.allclose(out.double(), right, atol=1e-6)):
        return "global_max_subtraction"
    return None


def confirm_pos_inf_fill(fn, named):
    """NaN on every row with a blocked key is +inf filling only if the softmax itself is sound: a softmax
    that subtracts the row's minimum gives the same NaN (-inf - (-inf)). Raises what it finds."""
    shift = softmax_shift(fn)
    if shift == "":
        raise named
    if shift == "softmax_subtracts_mean":
        raise Misconception(shift, "the output is NaN on every row with a blocked key, and so is a second call "
                            "with no mask whose scores hold a -inf (0, -1, -inf: the right weights are finite); "
                            "a third with scores 1000, 0, 0, 0 overflows: it matches " + describe(shift))
    if shift:
        raise Misconception(shift, f"the output is NaN on every row with a blocked key, and a second call with "
                            f"large scores and no mask gives inf or NaN too: it matches {describe(shift)}")
    raise AssertionError("the output is NaN on every row with a blocked key: look at how the masked scores "
                         "are filled and at what the softmax subtracts before exp")


def smallest(failure, fn, Q, K, V, mask, first, close=matches):
    """`failure` with the smallest input of this kind that still fails the same way added to its
    message (a bounded search, at most 30 more calls: autograder.grading.shrink). It never changes the outcome."""
    return with_smallest(failure, fn, AttentionInput(Q, K, V, mask), first,
                         reference=ref.scaled_dot_product_attention, close=close, what=FN)


def call_sdpa(fn, Q, K, V, mask, shrink=True, check_inputs=True):
    """The student's output; a crash says what it reveals (and, with `shrink`, shows the smallest
    input that crashes the same way). A call that writes into an input names inplace_on_input."""
    try:
        return call(fn, Q, K, V, mask=mask, what=FN, check_inputs=check_inputs)
    except StudentCodeError as e:
        try:
            name_crash(fn, Q, K, V, mask, e)
            failure: BaseException = e
        except AssertionError as named:
            failure = named
        if shrink:
            failure = smallest(failure, fn, Q, K, V, mask, Failure.crash(e))
        raise failure from None


def name_mask_times_inf(fn, Q, K, V, mask, got, again, what):
    """scores * mask + (~mask) * -inf: 0 * -inf is NaN wherever the mask is True, so the output is NaN
    on exactly the queries that have an allowed key, NaN everywhere with a mask that allows every key,
    and right with mask=None. (+inf fills and shifts by the minimum are NaN on the rows with a BLOCKED
    key and right with an all-True mask; an inverted mask is NaN on the rows with no blocked key.)"""
    if type(again) is not torch.Tensor or again.shape != got.shape or not torch.isnan(again).all():
        return
    live = torch.broadcast_to(mask.any(dim=-1), got.shape[:-1])
    rows_nan = torch.isnan(got).any(dim=-1)
    if not bool(live.any()) or not torch.equal(rows_nan, live) or bool(live.all() and mask.all()):
        return
    if not right(second_call(fn, Q, K, V, mask=None), Q, K, V, None):
        return
    raise Misconception("mask_times_inf", f"{what} is NaN on every query that has an allowed key, NaN everywhere "
                        "with a mask that allows every key, and right with mask=None: " + describe("mask_times_inf"))


def name_trace_mask_times_inf(got, softmax, mask_fn=None, submission=None):
    """q6's weights3_causal NaN in every row, row 2 too, which blocks no key (naming21): the masking made the
    allowed scores NaN. Named only when the student's stable_softmax gives the right causal weights for the
    -inf-filled scores (so neither it nor a +inf fill, inverted mask or min shift is the cause) and gives NaN
    everywhere on the replay scores3 + (~mask) * -inf, exactly as the answer. First (round54): NaN only in the rows
    with a blocked key, from a NaN fill (name_trace_mask_fill_nan)."""
    name_trace_mask_fill_nan(got, softmax, mask_fn, submission)
    name_trace_causal_diagonal_shifted(got, submission)     # round61: triu(..., diagonal=-1): rows 0, 1 blocked
    name_trace_mask_loop_returned(got, mask_fn, submission)     # round74: causal_mask returns in its row loop
    if softmax is None or type(got) is not torch.Tensor or not bool(torch.isnan(got).all()):
        return
    if name_trace_mask_all_false(got, softmax, mask_fn, submission):    # round53: the NaN from causal_mask(3) itself
        return
    scores, m = ref.Q3 @ ref.K3.T / 2.0, ref.causal_mask(3)
    try:
        fine = softmax(scores.masked_fill(~m, float("-inf")), dim=-1)
        replay = softmax(scores + (~m).double() * float("-inf"), dim=-1)
    except Exception:  # noqa: BLE001 - a crash here proves nothing
        return
    if (type(fine) is not torch.Tensor or fine.shape != got.shape or not bool(torch.isfinite(fine).all())
            or not torch.allclose(fine.double(), ref.weights3_causal, rtol=0, atol=1e-4)):
        return
    if type(replay) is not torch.Tensor or replay.shape != got.shape or not bool(torch.isnan(replay).all()):
        return
    raise Misconception("mask_times_inf", "weights3_causal is NaN in every row, row 2 too, which blocks no key, "
                        "while your stable_softmax gives the right causal weights for scores filled with -inf: "
                        "the masking turned the allowed scores into NaN, as scores3 + (~mask) * -inf does: "
                        + describe("mask_times_inf"))


def name_nan(fn, Q, K, V, mask, got, what, q_scale=1.0):
    """NaN where the correct output is finite, with a mask: the same call with a mask that allows
    every key shows whether the NaN comes from the masking, or which mistake it is."""
    T_q, T_k = Q.shape[-2], K.shape[-2]
    again = second_call(fn, Q, K, V, mask=torch.ones(T_q, T_k, dtype=torch.bool))
    name_mask_times_inf(fn, Q, K, V, mask, got, again, what)
    if type(again) is not torch.Tensor or again.shape != got.shape or not torch.isfinite(again).all():
        return
    if matching_variants(again, {"correct": ref.scaled_dot_product_attention(Q, K, V)}, Q.dtype):
        if torch.equal(torch.isnan(got), torch.isnan(ref.sdpa_pos_inf_fill(Q, K, V, mask))):
            confirm_pos_inf_fill(fn, Misconception("pos_inf_fill", f"{what} is NaN on every row with a blocked "
                                 "key (and right with a mask that allows every key): it matches "
                                 + describe("pos_inf_fill")))
        shift = softmax_shift(fn)
        if shift == "softmax_subtracts_median" and sdpa_median_replay_matches(got, Q, K, V, mask):
            raise Misconception(shift, f"{what} contains NaN where the correct result is finite, on the queries with "
                                "half or more of their keys masked (their median score is -inf), as a replay of "
                                "that softmax gives, and a probe whose median is far below its max overflows: it "
                                "matches " + describe(shift))
        if shift == "softmax_shift_by_first_entry":   # a blocked first key: -inf - (-inf) = NaN
            raise Misconception("softmax_shift_by_first_entry", f"{what} contains NaN where the correct result is "
                                "finite, only when some keys are masked, and probes of its softmax overflow where "
                                "a slice's first entry is far below its max: it matches "
                                + describe("softmax_shift_by_first_entry"))
        raise AssertionError(f"{what} contains NaN or inf where the correct result is finite, only when some "
                             "keys are masked (with a mask that allows every key it is right): look at how "
                             "the masked scores are filled and at queries with few keys")
    variants = wrong_variants(Q, K, V)
    hits = {k.split("/")[0] for k in matching_variants(again, variants, Q.dtype)}
    if not hits and Q.dtype in (torch.float16, torch.bfloat16):
        name_in_float64(fn, Q, K, V, None, f"{what} contains NaN or inf where the correct result is finite; "
                        "with a mask that allows every key it is wrong", q_scale)
    if len(hits) == 1:
        key = hits.pop()
        raise Misconception(key, f"{what} contains NaN or inf where the correct result is finite; with a mask "
                                 f"that allows every key it matches {describe(key)}")


def check(fn, Q, K, V, mask, what):
    # the reference's answer is computed while the worker runs the student's call (session.beside_next_request)
    with beside_next_request(lambda: ref.scaled_dot_product_attention(Q, K, V, mask)) as expected:
        got = call_sdpa(fn, Q, K, V, mask)
    try:
        return judge(fn, Q, K, V, mask, got, what, expected.value)
    except AssertionError as failure:
        raise smallest(failure, fn, Q, K, V, mask, Failure.value(expected.value, got)) from None


def check_mask_left_out(fn, Q, K, V, what):
    """The notebook's signature is scaled_dot_product_attention(Q, K, V, mask=None): a call that leaves the
    mask out must be the mask=None call. Made once, after that explicit call was right (its cost, one small
    call, every answer pays): a default that is not None (the string "none", a sentinel object) or no
    default at all crashes here, while the same call with mask=None is right."""
    try:
        again = fn(Q, K, V)
    except StudentCodeError as e:
        raise Misconception("crash_on_mask_none", f"{what} is right, but called without a mask argument, "
                            f"{FN}(Q, K, V) raises {e.exc_type}: {e.message}; the default of mask must be None "
                            "itself (def ...(Q, K, V, mask=None)), not a string or another stand-in") from None
    if not right(again, Q, K, V, None):
        raise AssertionError(f"{what} is right, but called without a mask argument, {FN}(Q, K, V) gives "
                             "another result: the default of mask must be None (no masking)")


def raise_if_axes_merged(got, expected, what):
    """fixed_axes where `got` holds the right values with two neighbouring leading axes merged into one
    ((2, 3, 7, 16) returned as (2, 21, 16): heads folded into the queries for a 3-D product and never split
    again, blind26). Only where the sizes merged are both above 1: merging a size-1 axis is another slip."""
    if type(got) is not torch.Tensor or got.dim() != expected.dim() - 1 or got.dtype != expected.dtype:
        return
    shape = tuple(expected.shape)
    for i in range(len(shape) - 2):          # the last axis (d_v) is never merged here
        if shape[i] > 1 and shape[i + 1] > 1 and tuple(got.shape) == shape[:i] + (shape[i] * shape[i + 1],) + shape[i + 2:]:
            if matching_variants(got, {"right": expected.reshape(got.shape)}, expected.dtype):
                raise Misconception("fixed_axes", f"{what} has shape {tuple(got.shape)}: the right values with axes "
                                    f"{i} and {i + 1} of {shape} merged ({shape[i]} x {shape[i + 1]} = "
                                    f"{shape[i] * shape[i + 1]}), as after a reshape for inputs of fewer dims, never "
                                    "split back: " + describe("fixed_axes"))


def judge(fn, Q, K, V, mask, got, what, expected=None):
    """_judge, with round70's layer norm: scores_divided_by_own_std said as scores_layer_normed where the output is
    that of F.layer_norm over the keys and none of the plain own-std forms (float32 and float64 tell them apart:
    layer_norm's eps 1e-5 in the variance; in half precision they stay one key)."""
    try:
        return _judge(fn, Q, K, V, mask, got, what, expected)
    except Misconception as named:
        if named.key == "scores_divided_by_own_std":
            name_layer_normed(got, Q, K, V, mask, what)
            if not own_std_confirmed(fn, Q, K, V, mask, got):      # naming round 76 (blind77): sqrt(d_k - 1)
                raise AssertionError(f"{what} is wrong") from None
        if named.key == "scale_by_batch_dim":      # round74: B x H = T_q, where Q[0, 0].numel() is T_q * d_k
            name_round74_output(fn, Q, K, V, mask, got, what.removesuffix(" is wrong"))
        raise
    except AssertionError:
        name_round74_output(fn, Q, K, V, mask, got, what)     # round74: Q[0, 0].numel(), max(-1)[1] as a flag
        raise


def name_layer_normed(got, Q, K, V, mask, what) -> None:
    if type(got) is not torch.Tensor or got.dtype not in (torch.float32, torch.float64):
        return
    forms = {k: f(Q, K, V, mask) for k, f in VARIANT_FUNCTIONS.items() if k.startswith("scores_divided_by_own_std/")}
    forms = {k: v for k, v in forms.items() if isinstance(v, torch.Tensor) and v.shape == got.shape}
    hits = set(matching_variants(got, forms, got.dtype))
    if hits and all("/layer_norm" in k for k in hits):
        raise Misconception("scores_layer_normed", f"{what} is wrong: it matches " + describe("scores_layer_normed"))


def _judge(fn, Q, K, V, mask, got, what, expected=None):
    """The student's output `got` for these inputs against the reference, naming what it matches. `expected`: the
    reference's answer on these inputs where the caller has it."""
    if expected is None:
        expected = ref.scaled_dot_product_attention(Q, K, V, mask)
    if (type(got) is torch.Tensor and got.dtype == expected.dtype and got.shape == expected.shape
            and matching_variants(got, {"right": expected}, expected.dtype)):
        return got                      # right: no wrong variant computed (most of a right answer's time)
    # more axes than any input has cannot be a reduced axis kept (blind31's mask viewed as (1, 1, T_q, T_k)):
    # they were added (size_one_axes_added), not kept (keepdim_left_on)
    widest = max(t.dim() for t in (Q, K, V, mask) if type(t) is torch.Tensor)
    if got is None:     # the other path of `if mask is not None:` returns the right output (blind31)
        if mask is None:
            keep_all = torch.ones(*Q.shape[:-1], K.shape[-2], dtype=torch.bool, device=Q.device)
            other = {"with a mask that allows every key (the same output)": lambda: fn(Q, K, V, mask=keep_all)}
            raise_if_return_missing(got, other, lambda out: right(out, Q, K, V, None), what)
        else:
            raise_if_return_missing(got, {"with mask=None": lambda: fn(Q, K, V, mask=None)},
                                    lambda out: right(out, Q, K, V, None), what)
    if type(got) is torch.Tensor and got.shape == expected.shape:
        name_state_between_calls(fn, what)      # round60: a value of one call served to a later one
    try:
        name_dtype_changed(got, expected, what)
        assert_matches(got, expected, variants=lambda: wrong_variants(Q, K, V, mask), what=what, nearest=False,
                       reduced=not (type(got) is torch.Tensor and got.dim() > widest))
    except Misconception as named:
        if named.key == "float32_precision":      # a float64 result off by ~1e-8: an epsilon, or float32
            name_scale_in_float32(got, Q, K, V, mask, what)
            name_floored_sdpa(Q, K, V, mask, got, expected, what)       # a floor on exp in the softmax (round41)
            name_denominator_epsilon(Q, K, V, mask, got, expected, what)   # round66: exp / (sum + 1e-9)
            name_weight_epsilon(got, expected, what, values=V)
        if named.key == "pos_inf_fill":
            confirm_pos_inf_fill(fn, named)
        if named.key == "scale_by_T":
            name_d_k_from_a_leading_axis(fn, Q, K, V, mask, what)
        if named.key == "scale_by_d_v":
            confirm_scale_by_size(fn, named, what)
        if named.key == "scale_extra_factor":
            confirm_scale_extra_factor(fn, what)      # round58: a value alone could be another scale's
        if named.key in ("divide_by_dk", "multiply_by_sqrt_dk", "scale_precedence", "integer_sqrt_scale",
                         "scale_by_batch_dim", "floor_division_scale", "softmax_base_2"):
            # a fixed d_k (64 on an input of d_k = 32 is d_k ** 1/2's 2 d_k) equals these on one input only
            name_scale_constant(fn, f"{what} is wrong")
        raise
    except AssertionError:
        name_sdpa_mask_squeezed_values(fn, Q, K, V, mask, got, what)     # round65: mask.squeeze() broadcast wrong
        name_scale_in_float32(got, Q, K, V, mask, what)       # below float32_precision's 1e-8 (round39)
        if type(got) is torch.Tensor and got.shape == expected.shape and torch.isfinite(got).all():
            name_scale_constant(fn, f"{what} is wrong")
        if mask is not None and type(got) is torch.Tensor:
            name_from_mask_probes(fn, f"{what} is wrong")
            name_zeroed_everything(fn, Q, K, V, mask, got, what)      # one NaN zeroes it all (blind34)
        online_tried = (mask is not None and type(got) is torch.Tensor and got.shape == expected.shape
                        and got.dtype == expected.dtype and not torch.isfinite(got).all())
        if online_tried:
            name_online_blocks(Q, K, V, mask, got, expected, what)     # naming round 86: an unguarded running max
            name_nan(fn, Q, K, V, mask, got, what)
        if type(got) is torch.Tensor:
            if got.shape != expected.shape:
                said = f"{what} has shape {tuple(got.shape)}"
                name_from_a_slice(fn, Q, K, V, mask, said)
                if mask is not None:
                    name_mask_unsqueezed(fn, said)
                raise_if_other_container(got, expected, what, reduced=got.dim() <= widest)   # as above
                raise_if_axes_merged(got, expected, what)
            name_rows_never_written(fn, got, expected, what)        # round71: before randomness is blamed
            name_empty_rows_flag_slips(Q, K, V, mask, got, expected, what)     # naming round 88: nonzero, gather(-2)
            raise_if_nondeterministic(fn, (Q, K, V), {"mask": mask}, got, FN)
            if got.shape == expected.shape and got.dtype == expected.dtype and Q.dtype in (torch.float16, torch.bfloat16):
                name_in_float64(fn, Q, K, V, mask, f"{what} is wrong")
            name_unnormalised_replay(Q, K, V, mask, got, expected, what)
            if not online_tried:    # the replays are the same as above's: not run twice on one input
                name_online_blocks(Q, K, V, mask, got, expected, what)     # naming round 86: a slip of an online loop
            name_floored_sdpa(Q, K, V, mask, got, expected, what)
            name_scores_in_half(got, Q, K, V, mask, expected, what)       # round41
            name_denominator_epsilon(Q, K, V, mask, got, expected, what)   # round66: exp / (sum + 1e-9)
            name_weight_epsilon(got, expected, what, values=V)
            name_root_taken_twice(fn, Q, K, V, mask, got, expected, what)
            say_heads_merged(got, expected, what)      # result_axes_permuted where the replay proves it (naming29)
        _raise_without_causes(got, expected, what)
        raise
    return got


def _rows_right(got, expected, dtype):
    """Per query position (axis -2), whether every batch entry's row of `got` is `expected`'s."""
    g, e = got.detach().double().movedim(-2, 0), expected.detach().double().movedim(-2, 0)
    return [bool(matching_variants(g[i], {"right": e[i]}, dtype)) for i in range(g.shape[0])]


def _rows_probe(T_q, T_k=6):
    g = torch.Generator().manual_seed(7100 + T_q + 100 * (T_k - 6))
    return tuple(torch.randn(shape, generator=g, dtype=torch.float64) for shape in ((2, T_q, 5), (2, T_k, 5), (2, T_k, 3)))


def _rows_right_first(fn, T_k):
    """The count of leading right rows of fn's output for 67 queries and T_k keys (None where the call is no (2, 67, 3)
    tensor)."""
    Q, K, V = _rows_probe(67, T_k)
    out = second_call(fn, Q, K, V, mask=None)
    if type(out) is not torch.Tensor or out.shape != (2, 67, 3):
        return None
    probe = _rows_right(out, ref.scaled_dot_product_attention(Q, K, V), torch.float64)
    return probe.index(False) if False in probe else 67


def name_rows_never_written(fn, got, expected, what) -> None:
    """round71 (blind71 q5_query_chunks_loop_drops_the_last_partial_chunk_of_an_empty_buffer): an output with a
    wrong row (those after it may hold anything, uninitialised memory among it), where a second call with 67
    queries (a prime, so no block size divides it) is right on its first k rows, 0 < k < 67, and wrong on a later
    one, the same k with 11 keys in place of 6 (a loop over the key count is not this key), and a third call with
    those first k queries alone is right everywhere: the rows past the last full block
    are never computed: output_rows_never_written. A right function, or a mistake of every row, fails the second
    or third call."""
    if (type(got) is not torch.Tensor or got.shape != expected.shape or got.dim() < 2 or got.shape[-2] < 1
            or not got.is_floating_point()):
        return
    rows = _rows_right(got, expected, expected.dtype)
    if all(rows):
        return
    Q, K, V = _rows_probe(67)
    k = _rows_right_first(fn, 6)
    # the rows a block loop writes do not follow the key count: with 11 keys the same rows are right (red-team round
    # 133: a loop over range(min(T_k, T_q)) query rows, the key count for the query count, was told this key)
    if k is None or not 0 < k < 67 or _rows_right_first(fn, 11) != k:
        return
    Qk = Q[:, :k].clone()
    if not right(second_call(fn, Qk, K, V, mask=None), Qk, K, V, None):
        return
    raise Misconception("output_rows_never_written", f"{what} is wrong from query {rows.index(False)} on; called "
                        f"with 67 queries, its first {k} rows are right and a later one is not, while the first {k} "
                        f"queries alone give the right output: the rows after query {k - 1} are never computed: "
                        + describe("output_rows_never_written"))


def half_score_replays(Q, K, V, mask):
    """round41 (blind40): attention whose scores pass through float16 (or bfloat16) on float32/float64 inputs: the
    product of half copies of Q and K (Q.half() @ K.half().T: one rounding of the exact product of the rounded
    inputs), or the full-precision scores rounded, before or after the scale, then cast back; the softmax, mask and
    product with V in float64, fully masked queries zeroed (as the reference). Keyed "<dtype> <where>"."""
    d = math.sqrt(Q.shape[-1])
    q, k = Q.detach().double(), K.detach().double().transpose(-2, -1)
    # the product as the student's code makes it, in the input's dtype and on the same (perhaps strided) tensors:
    # a float32 product differs from the exact one by float32 rounding, enough to move an entry across a float16
    # rounding boundary, and which entries move depends on the CPU's kernel for the layout (AVX-512/AMX machines:
    # strided float32 inputs missed every exact replay, test_noncontiguous_inputs unnamed)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)                     # the worker's one thread: its accumulation order
    try:
        own = (Q.detach() @ K.detach().transpose(-2, -1)).double() if Q.dtype == K.dtype else q @ k
    finally:
        torch.set_num_threads(threads)
    out = {}
    for half in (torch.float16, torch.bfloat16):
        def r(t, half=half):
            return t.to(half).double()
        name = str(half).replace("torch.", "")
        copies = r(r(q) @ r(k))
        for where, s in ((f"{name} copies of Q and K", copies / d), (f"{name} copies of Q and K", r(copies / d)),
                         (f"{name} scores", r(q @ k) / d), (f"{name} scores", r(q @ k / d)),
                         (f"{name} scores", r(r(q @ k) / d)), (f"{name} scores", r(own) / d),
                         (f"{name} scores", r(own / d))):
            w = _dead_rows_zeroed(torch.softmax(_masked(s, mask), dim=-1), mask)
            out.setdefault(where, []).append(_out(w, V, Q))
        # round71 (blind71 q5_scores_and_softmax_in_float16_to_halve_memory): the softmax taken in half precision
        # too, on the half scores (the student's stable_softmax, or torch.softmax, run on them), only the weights
        # cast back: half's rounding of the weights as well as of the scores
        try:
            halves = (Q.detach().to(half) @ K.detach().to(half).transpose(-2, -1) / d, (own / d).to(half))
        except RuntimeError:
            continue
        for s in halves:
            s = _masked(s, mask)
            e = (s - s.amax(dim=-1, keepdim=True)).exp()
            for w in (torch.softmax(s, dim=-1), e / e.sum(dim=-1, keepdim=True)):
                out.setdefault(f"{name} scores and softmax", []).append(_out(_dead_rows_zeroed(w.double(), mask), V, Q))
    return out


def name_scores_in_half(got, Q, K, V, mask, expected, what):
    """A float32/float64 output that equals, on the same input, attention whose scores were rounded through
    float16 or bfloat16 (half_score_replays), and not the right result: half_precision_scores."""
    if (Q.dtype not in (torch.float32, torch.float64) or type(got) is not torch.Tensor
            or got.shape != expected.shape or got.dtype != expected.dtype or not torch.isfinite(got).all()):
        return
    for where, replays in half_score_replays(Q, K, V, mask).items():
        if any(r is not None and matching_variants(got, {"half": r}, got.dtype, expected=expected)
               for r in replays):
            raise Misconception("half_precision_scores", f"{what} is wrong by about "
                                f"{float((got.double() - expected.double()).abs().max()):.2g}: it equals attention "
                                f"computed from {where} on the same input (a {str(Q.dtype).replace('torch.', '')} "
                                "input): " + describe("half_precision_scores"))


def name_root_taken_twice(fn, Q, K, V, mask, got, expected, what) -> None:
    """The scores divided by d_k ** 0.25 (the square root taken twice: d_k = math.sqrt(...), then
    / math.sqrt(d_k)), named only where the output equals that replay on the same input, d_k ** 0.25 is no
    other candidate's divisor here (sqrt of d_k, d_v, T, 1, isqrt(d_k)), and two second calls (d_k = 6 and
    11, no perfect squares, where a constant d_k such as Question 2's 8 cannot follow) replay it too."""
    root = Q.shape[-1] ** 0.25
    if (type(got) is not torch.Tensor or got.shape != expected.shape or got.dtype != expected.dtype
            or any(abs(root - t) < 1e-9 * root for t in _taken(Q, K, V))):
        return
    replay = _divided(lambda Q, K, V: Q.shape[-1] ** 0.25)
    if not matching_variants(got, {"scale_root_taken_twice": replay(Q, K, V, mask)}, expected.dtype,
                             expected=expected):
        return
    for d_k in SCALE_PROBE_D_K:
        g = torch.Generator().manual_seed(2100 + d_k)
        B, T, d_v = SCALE_PROBE_SIZES["B"], SCALE_PROBE_SIZES["T"], SCALE_PROBE_SIZES["d_v"]
        q, k = 2 * torch.randn(B, T, d_k, generator=g, dtype=torch.float64), torch.randn(B, T, d_k, generator=g,
                                                                                          dtype=torch.float64)
        v = torch.randn(B, T, d_v, generator=g, dtype=torch.float64)
        out = second_call(fn, q, k, v, mask=None)
        if (type(out) is not torch.Tensor or out.shape != (B, T, d_v)
                or not matching_variants(out, {"twice": replay(q, k, v)}, torch.float64)):
            return
    raise Misconception("scale_root_taken_twice", f"{what} is wrong: the scores are divided by d_k ** 0.25 = "
                        f"{root:.4g} (d_k = {Q.shape[-1]}), not sqrt(d_k) = {Q.shape[-1] ** 0.5:.4g}, here and on "
                        f"inputs of d_k = {SCALE_PROBE_D_K[0]} and {SCALE_PROBE_D_K[1]}: "
                        + describe("scale_root_taken_twice"))


def say_heads_merged(got, expected, what):
    """The right output put through a multi-head merge, out.transpose(-3, -2).reshape(..., T, H * d) (nanoGPT's
    `y.transpose(1, 2).contiguous().view(B, T, C)`) inside attention itself: on 4-D inputs the heads end up side
    by side in the feature axis; on 3-D ones the batch's rows (T_q) and features (d_v) are swapped and viewed
    back to (T_q, d_v). Named result_axes_permuted (the right values with the axes moved), only where the output
    equals that replay and no catalogued variant matches too (naming29; said in words before)."""
    import sys
    failure = sys.exc_info()[1]
    if (type(got) is not torch.Tensor or expected.dim() < 3 or got.dtype != expected.dtype
            or "matches each of" in str(failure)):      # a catalogued variant matches too: not proven
        return
    name_output_column_reshaped(got, expected, what)       # naming round 84: V^T W^T reshaped back, any rank
    e = expected.transpose(-3, -2)
    merged = e.reshape(*e.shape[:-2], e.shape[-2] * e.shape[-1])
    if expected.dim() >= 4 and got.shape == merged.shape and matching_variants(got, {"m": merged}, got.dtype):
        H, d = expected.shape[-3], expected.shape[-1]
        raise Misconception("result_axes_permuted", f"{what} has shape {tuple(got.shape)}, expected "
                            f"{tuple(expected.shape)}: it is the right "
                             f"output with its {H} heads merged side by side into the feature axis ({H} * {d} = "
                             f"{H * d}), as a multi-head layer's transpose(1, 2).view(B, T, -1) does; attention "
                             "itself returns (..., T_q, d_v): leave the merge to the layer that calls it: "
                             + describe("result_axes_permuted"))
    swapped = expected.transpose(-2, -1).reshape(expected.shape)
    if expected.dim() == 3 and got.shape == expected.shape and matching_variants(got, {"s": swapped}, got.dtype,
                                                                                expected=expected):
        raise Misconception("result_axes_permuted", f"{what} is wrong: it is the right output with its last two axes swapped (T_q and "
                             "d_v) and then viewed back to (..., T_q, d_v), as a multi-head merge "
                             "transpose(1, 2).view(B, T, -1) does: the values are right but scrambled across "
                             "rows; attention itself returns (..., T_q, d_v) unchanged: " + describe("result_axes_permuted"))


def _transposed_name(node) -> str | None:
    """The name `t` of a transpose of it: t.mT, t.T, t.mH, t.transpose(...), t.swapaxes(...), t.swapdims(...),
    t.permute(...), torch.transpose(t, ...); else None."""
    if isinstance(node, ast.Attribute) and node.attr in ("mT", "T", "mH", "H") and isinstance(node.value, ast.Name):
        return node.value.id
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        if node.func.attr in ("transpose", "swapaxes", "swapdims", "permute") and isinstance(node.func.value, ast.Name):
            if isinstance(node.func.value, ast.Name) and node.func.value.id in ("torch", "np"):
                return node.args[0].id if node.args and isinstance(node.args[0], ast.Name) else None
            return node.func.value.id
    return None


def _own_statements(fdef, limit: int = 20_000):
    """The nodes of `fdef`'s own body that run when it is called, in source order, at most `limit`: not a nested
    def, lambda or class (a helper that may never be called), nor an assert (a check, not the result)."""
    stack = list(reversed(fdef.body))
    while stack and limit > 0:
        limit -= 1
        n = stack.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.Assert)):
            continue
        yield n
        stack.extend(reversed(list(ast.iter_child_nodes(n))))


def _last_run_def(submission):
    """(segments, def) of the student's scaled_dot_product_attention that a Run All leaves: the last cell's last
    top-level def of that name; None where there is none."""
    found = [(segments, n) for segments, tree in _cell_trees(submission, FN) for n in tree.body
             if isinstance(n, ast.FunctionDef) and n.name == FN]
    return found[-1] if found else None


def values_on_the_left(submission) -> str | None:
    """naming round 84 (blind84): the quoted product in the student's scaled_dot_product_attention whose left factor
    is its third parameter (V) transposed: V.mT @ W.mT, torch.matmul(V.transpose(-2, -1), ...), or a name bound to
    such a transpose inside the function (Vt = V.mT; Vt @ ...). The column-vector convention (V^T W^T) in the
    source; None where no such product is written. Only the def a Run All leaves (the last cell's last top-level
    def) and its own statements are read: a draft def above it, a nested helper, or an assert's check is not the
    output (red-team round 143). Student text: parsed (pyparse, bounded), never run."""
    last = _last_run_def(submission)
    params = [*last[1].args.posonlyargs, *last[1].args.args] if last else []
    if last is None or len(params) < 3:    # V is the third parameter, positional-only (`Q, K, V, /`) or not
        return None
    segments, fdef = last
    v = params[2].arg
    own = list(_own_statements(fdef))
    bound = {t.id for node in own if isinstance(node, ast.Assign) and _transposed_name(node.value) == v
             for t in node.targets if isinstance(t, ast.Name)}

    def v_transposed(n):
        return _transposed_name(n) == v or (isinstance(n, ast.Name) and n.id in bound)
    for node in own:
        left = None
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
            left = node.left
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr in ("matmul", "bmm") and len(node.args) == 2):
            left = node.args[0]
        if left is not None and v_transposed(left):
            return (segments.of(node) or unparse(node)).splitlines()[0][:80]
    return None


def name_output_column_reshaped(got, expected, what):
    """naming round 84 (blind84 q5_output_as_v_t_times_w_t_reshaped_instead_of_transposed): the output is the right
    one transposed, (..., d_v, T_q), and reshaped back to (..., T_q, d_v) (a replay, any rank), AND the function's
    source multiplies with V transposed on the left (values_on_the_left): output_column_convention. The same replay
    without that product (a multi-head merge's transpose(1, 2).view, on 3-D) is left to say_heads_merged."""
    if got.shape != expected.shape or expected.shape[-1] == expected.shape[-2] or not torch.isfinite(got).all():
        return
    swapped = expected.transpose(-2, -1).reshape(expected.shape)
    # float16 with large scores: within that test's own rounding (`near`), as judge_large_scores judges it
    if not (matching_variants(got, {"s": swapped}, got.dtype, expected=expected)
            or (got.dtype == torch.float16 and near(got, swapped) and not near(got, expected))):
        return
    hit = values_on_the_left(_grading_checks.running_submission())
    if hit is None:
        return
    raise Misconception("output_column_convention", f"{what} is wrong: it is the right output transposed, (..., d_v, "
                        f"T_q), and then reshaped back to (..., T_q, d_v), and your function computes the values on "
                        f"the left (`{hit}`): " + describe("output_column_convention"))


def _raise_without_causes(got, expected, what):
    """The engine's "matches each of A; B" on a non-finite output names causes from NaN alone, which many
    mistakes share (a +inf fill, logits divided by a NaN std...): said instead is where the NaN are."""
    import sys
    failure = sys.exc_info()[1]
    if (failure is None or "on this input it matches each of" not in str(failure) or type(got) is not torch.Tensor
            or got.shape != expected.shape or torch.isfinite(got).all()):
        return
    bad = ~torch.isfinite(got) & torch.isfinite(expected)
    if not bad.any():
        return
    first = tuple(int(i) for i in bad.nonzero()[0])
    raise AssertionError(f"{what} contains NaN or inf in {int(bad.sum())} of {bad.numel()} entries (the first at "
                         f"index {first}) where the correct result is finite") from None


def attempt(fn, Q, K, V, mask):
    """For the rule tests: an answer (a tensor of the output's shape), whatever its values."""
    got = call_sdpa(fn, Q, K, V, mask, shrink=False, check_inputs=False)
    want = Q.shape[:-1] + V.shape[-1:]
    if type(got) is not torch.Tensor or tuple(got.shape) != tuple(want):
        judge(fn, Q, K, V, mask, got, "the output")     # says what it is (the weights, a tuple...)


def name_large_scores_dtype_changed(Q, K, V, mask, got):
    """A float16 call with large scores that comes back in another floating dtype with the right values, within
    the rounding of large scores (`near`, the test's own closeness; exact comparisons would fail on bfloat16's)."""
    if (type(got) is torch.Tensor and got.is_floating_point() and got.dtype != Q.dtype
            and bool(torch.isfinite(got).all())):
        expected = ref.scaled_dot_product_attention(Q, K, V, mask)
        if got.shape == expected.shape and near(got, expected):
            raise Misconception("dtype_changed", f"the float16 output with large scores comes back as {got.dtype} "
                                f"for a {Q.dtype} input, with the right values (within the rounding of large "
                                "scores): keep the input's dtype (cast back, or do not convert: a .float(), a "
                                "float32 tensor or torch.autocast inside the function changes it)")


def large_scores_ok(got, expected):
    """The verdict of test_float16_large_scores, for the shrunk inputs too."""
    return (type(got) is torch.Tensor and got.dtype == torch.float16 and got.shape == expected.shape
            and bool(torch.isfinite(got).all()) and near(got, expected))


def judge_large_scores(fn, Q, K, V, mask, got):
    name_large_scores_dtype_changed(Q, K, V, mask, got)      # round56: bfloat16 from torch.autocast, float32...
    if type(got) is not torch.Tensor or got.dtype != torch.float16 or tuple(got.shape) != tuple(Q.shape):
        if type(got) is torch.Tensor and got.dtype == torch.float16:
            # the right values in another axis order, within float16's rounding of large scores (`near`)
            expected = ref.scaled_dot_product_attention(Q, K, V, mask)
            for key, t in permuted_variants(expected).items():
                if t.shape == got.shape and near(got, t):
                    raise Misconception(key.split("/")[0], "the float16 output with large scores has shape "
                                        f"{tuple(got.shape)}: it matches " + describe(key.split("/")[0]))
            widest = max(t.dim() for t in (Q, K, V, mask) if type(t) is torch.Tensor)
            if (got.dim() > widest and got.numel() == expected.numel()
                    and tuple(got.shape[got.dim() - expected.dim():]) == tuple(expected.shape)
                    and near(got.reshape(expected.shape), expected)):     # axes added, within float16's rounding
                raise Misconception("size_one_axes_added", "the float16 output with large scores has shape "
                                    f"{tuple(got.shape)}, expected {tuple(expected.shape)}, and its values are "
                                    "right with leading size-1 axes added: " + describe("size_one_axes_added"))
        judge(fn, Q, K, V, mask, got, "the float16 output with large scores")   # a tuple, the weights...
    T_q, T_k = Q.shape[-2], K.shape[-2]
    if not torch.isfinite(got).all():
        # which step makes inf or NaN: the same call with a mask allowing every key tells the
        # softmax (still non-finite) from the masking (finite then)
        again = second_call(fn, Q, K, V, mask=torch.ones(T_q, T_k, dtype=torch.bool))
        if mask is not None:
            name_mask_times_inf(fn, Q, K, V, mask, got, again, "the float16 output with large scores")
        if type(again) is torch.Tensor and tuple(again.shape) == tuple(Q.shape) and not torch.isfinite(again).all():
            # which shift the softmax subtracts (none, one global max, the row's min): a float32 probe
            shift = softmax_shift(fn)
            if shift == "no_max_subtraction":     # round74: the max's position subtracted (max(dim)[1], .indices)
                name_shift_by_max_index(attention_softmax_of(fn), "float16 inputs with large scores gave inf or NaN")
            if shift:
                raise Misconception(shift, "float16 inputs with large scores gave inf or NaN, with or without a "
                                    f"mask, and so do probes of its softmax: it matches {describe(shift)}")
            name_unshifted_log_form(fn, "float16 inputs with large scores gave inf or NaN, with or without a mask")
            name_clamped_sdpa(fn, "float16 inputs with large scores gave inf or NaN, with or without a mask")
            name_shift_threshold(fn, "float16 inputs with large scores gave inf or NaN, with or without a mask")
            # round38 (blind37): a softmax wrong on tame scores too (builtin sum(exps) over the batch axis, 0 / 0 where
            # float16 underflows): the same values in float64, Q / 9, with a mask allowing every key, say which
            name_in_float64(fn, Q, K, V, torch.ones(T_q, T_k, dtype=torch.bool), "float16 inputs with large scores "
                            "gave inf or NaN, with or without a mask", q_scale=1 / 9)
            raise AssertionError("float16 inputs with large scores gave inf or NaN, with or without a mask: "
                                 "subtract each row's max before exp, and keep every step in range")
        if type(again) is torch.Tensor and tuple(again.shape) == tuple(Q.shape) \
                and not near(again, ref.scaled_dot_product_attention(Q, K, V)):
            # finite but wrong without a mask: the NaN says nothing of the fill; the mask-free values may
            name_nan(fn, Q, K, V, mask, got, "the float16 output with large scores", q_scale=1 / 9)
            raise AssertionError("the float16 output with large scores contains inf or NaN with a mask, and is "
                                 "wrong without one too")
        if torch.equal(~torch.isfinite(got), torch.isnan(ref.sdpa_pos_inf_fill(Q, K, V, mask))):
            confirm_pos_inf_fill(fn, Misconception("pos_inf_fill", "the output is NaN on every row with a "
                                 "blocked key, and right without a mask: it matches " + describe("pos_inf_fill")))
        name_shift_skipped_where_minus_inf(fn, "the float16 output contains inf or NaN only when a mask is given")
        raise AssertionError("the float16 output contains inf or NaN only when a mask is given: look at how "
                             "the masked scores are filled")
    expected = ref.scaled_dot_product_attention(Q, K, V, mask)
    if near(got, expected):
        return
    # named only from a variant it equals within float16's tolerance, or from what float32 shows: never
    # from being near one (an output of small entries is near every variant that averages V away)
    hits = {k.split("/")[0] for k in matching_variants(got, wrong_variants(Q, K, V, mask), torch.float16,
                                                        expected=expected)}
    if len(hits) == 1:
        key = hits.pop()
        if key == "scale_by_T":
            name_d_k_from_a_leading_axis(fn, Q, K, V, mask, "the float16 output with large scores")
        raise Misconception(key, "the float16 output with large scores is wrong: it matches " + describe(key))
    # a d_k that does not move with the input (K.dim(), a number): the two float64 probes say it (naming28)
    name_scale_constant(fn, "the float16 output with large scores is wrong")
    name_unshifted_log_form(fn, "the float16 output with large scores is wrong")
    name_from_mask_probes(fn, "the float16 output with large scores is wrong")
    name_in_float64(fn, Q, K, V, mask, "the float16 output with large scores is wrong", q_scale=1 / 9)
    name_rows_never_written(fn, got, expected, "the float16 output with large scores")    # round71
    raise_if_nondeterministic(fn, (Q, K, V), {"mask": mask}, got, FN)
    name_clamped_sdpa(fn, "the float16 output with large scores is wrong")
    say_heads_merged(got, expected, "the float16 output with large scores")
    # naming30: a float64 call on the same values (Q / 9: rows not saturated) that equals the notebook's softmax
    # replayed there, @ V, with each row the right weights times its own factor (float16's rounding of scores
    # near 40 hides the replay at this size)
    f64 = [t if t is None or t.dtype == torch.bool else t.detach().double() for t in (Q, K, V, mask)]
    f64[0] = f64[0] / 9
    out = second_call(fn, *f64[:3], mask=f64[3])
    if type(out) is torch.Tensor and out.dtype == torch.float64 and out.shape == got.shape:
        name_unnormalised_replay(*f64, out, ref.scaled_dot_product_attention(*f64), "the float16 output with large "
                                 "scores is wrong, and the output for the same values in float64 (Q / 9)")
    name_round74_output(fn, Q, K, V, mask, got, "the float16 output with large scores")    # round74: max(-1)[1]
    raise AssertionError("the float16 output with large scores does not match the correct result")


def name_unshifted_log_form(fn, what):
    """Scores through a softmax with no max shift in the log domain: d_k = 1, the keys are the logits of
    SOFTMAX_PROBE and V = I, so the output is the weights (overflow_zeroes_weights)."""
    # with no mask, then with a mask allowing every key (a softmax written only in the masked branch)
    if any(overflow_zeroes_weights(second_call(fn, *ref.SOFTMAX_PROBE_QKV, mask=m))
           for m in (None, torch.ones(2, 3, dtype=torch.bool))):
        raise Misconception("no_max_subtraction", f"{what}; a probe with scores 100, 99, 10 gives that query "
                            "weights of exactly 0 (exp(100) overflows, and x - log(inf) is -inf): it matches "
                            + describe("no_max_subtraction"))


def name_missing_gradient(grads, what, submission=None):
    """No gradient (None) reached some inputs while the output is right: the graph is cut (.detach(),
    .data, .item(), NumPy, torch.tensor(...) of a result) on their way to the output."""
    cut = [name for name, g in zip(("Q", "K", "V"), grads) if g is None]
    reached = [name for name, g in zip(("Q", "K", "V"), grads) if g is not None]
    if cut:
        where = ("the scores or the weights (both Q and K lose it, V keeps it)" if cut == ["Q", "K"] else
                 "the output" if len(cut) == 3 else "the path from " + " and ".join(cut))
        rewrapped = tensor_rewrap_lines(submission)
        fix = (f": your `{rewrapped[0]}` copies a result into a new tensor outside the graph (torch.tensor(...) of a "
               "result); use the tensor itself, no torch.tensor around it" if rewrapped else
               "; keep the computation in torch (no .detach(), .data, .item(), NumPy, or torch.tensor(...) of a result)")
        raise Misconception("gradient_cut", f"{what} is right but no gradient reached {' or '.join(cut)}"
                            f"{' (it reached ' + ', '.join(reached) + ')' if reached else ''}: the autograd graph is "
                            f"cut at {where}{fix}")


_OTHER_CUTS = re.compile(r"\.detach\(|\.data\b|\.item\(|\.numpy\(|no_grad|from_numpy|\bnp\.|numpy\.|\.tolist\(")


def tensor_rewrap_lines(submission) -> list[str]:
    """round47 (blind47 q5_scores_rewrapped_with_torch_tensor_leave_the_graph): the lines of the cells defining
    scaled_dot_product_attention (or stable_softmax, which it calls) where torch.tensor(...) / torch.as_tensor is
    not used: torch.tensor(x) whose argument is itself computed (a call, an operation, a name), which copies a
    result out of the autograd graph. A literal (torch.tensor(2.0), a list) is no such copy. Student text: parsed,
    never run; at most 120 characters of each line."""
    lines: list[str] = []
    for answer in ("scaled_dot_product_attention", "stable_softmax"):
        try:
            found = list(answer_cell_trees(submission, answer))
        except Exception:  # noqa: BLE001 - an unreadable source shows nothing
            continue
        for source, tree in found:
            if _OTHER_CUTS.search(source):      # another cut written there: which one cut it, the source cannot say
                return []
            text = source.splitlines()
            for node in ast.walk(tree):
                if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "tensor"
                        and isinstance(node.func.value, ast.Name) and node.func.value.id == "torch" and node.args):
                    continue
                if isinstance(node.args[0], (ast.Constant, ast.List, ast.Tuple, ast.UnaryOp)):
                    continue
                if 0 < node.lineno <= len(text):
                    lines.append(text[node.lineno - 1].strip()[:120])
    return list(dict.fromkeys(lines))


def detached_normaliser_gradients(Q, K, V, mask, G, max_detached):
    """round42 (blind41): the gradients (Q, K, V) of sum(out * G) for attention whose softmax divides by a DETACHED
    sum of its exponentials (e / e.sum(...).detach(), .data, under no_grad), its max shift detached too or not:
    the values are right, the gradient that flows through the normaliser is lost. A max-only detach is exact (the
    softmax does not depend on the shift) and is no replay here. Fully masked queries zeroed as the reference."""
    leaves = [t.detach().double().clone().requires_grad_(True) for t in (Q, K, V)]
    q, k, v = leaves
    scores = q @ k.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    live = torch.ones(scores.shape[:-1] + (1,), dtype=torch.bool, device=scores.device)
    if mask is not None:
        m = torch.broadcast_to(mask.to(device=scores.device, dtype=torch.bool), scores.shape)
        live = m.any(dim=-1, keepdim=True)
        scores = scores.masked_fill(~m, float("-inf")).masked_fill(~live, 0.0)   # a dead row: finite, zeroed below
    shift = scores.amax(dim=-1, keepdim=True)
    e = torch.exp(scores - (shift.detach() if max_detached else shift))
    w = torch.where(live, e / e.sum(dim=-1, keepdim=True).detach(), 0.0)
    return vector_jacobian_product(w @ v, leaves, G.double())


def _data_written(submission, answer="scaled_dot_product_attention") -> list[str]:
    """The parameters (of the function `answer`, read from its cell: parsed, never run) written through .data:
    `p.data /= ...`, `p.data = ...`, or an in-place method on it (`p.data.div_(...)`)."""
    found: list[str] = []
    try:
        for _source, tree in answer_cell_trees(submission, answer):
            for fdef in ast.walk(tree):
                if not (isinstance(fdef, ast.FunctionDef) and fdef.name == answer):
                    continue
                params = [a.arg for a in fdef.args.posonlyargs + fdef.args.args]
                for node in ast.walk(fdef):
                    targets = (node.targets if isinstance(node, ast.Assign) else [node.target]
                               if isinstance(node, ast.AugAssign) else [node.func.value]
                               if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                               and node.func.attr.endswith("_") and not node.func.attr.startswith("_") else [])
                    for t in targets:
                        if (isinstance(t, ast.Attribute) and t.attr == "data" and isinstance(t.value, ast.Name)
                                and t.value.id in params and t.value.id not in found):
                            found.append(t.value.id)
    except Exception:  # noqa: BLE001 - an unreadable source shows nothing
        return []
    return found


def name_scaled_through_data(grads, expected, Q, submission):
    """round59 (blind59 q5_leaf_inplace_error_dodged_by_scaling_q_data_in_place): the output right (the caller judged
    it), the gradient with respect to Q (or K) sqrt(d_k) times the right one and the others right, and the function's
    cell writes that very parameter through .data (autograd never sees the scale): scaled_through_data."""
    if any(type(g) is not torch.Tensor or g.shape != w.shape or not torch.isfinite(g).all()
           for g, w in zip(grads, expected)):
        return
    root = math.sqrt(Q.shape[-1])
    off = [i for i, (g, w) in enumerate(zip(grads, expected))
           if not matching_variants(g, {"right": w.to(g.dtype)}, g.dtype)]
    if len(off) != 1 or off[0] == 2 or not matching_variants(grads[off[0]], {"x": (expected[off[0]] * root).to(
            grads[off[0]].dtype)}, grads[off[0]].dtype):
        return
    written = _data_written(submission)
    params = _sdpa_params(submission)
    if len(params) < 2 or params[off[0]] not in written:
        return
    label = "QK"[off[0]]
    raise Misconception("scaled_through_data", f"the output is right, but the gradient with respect to {label} is "
                        f"sqrt(d_k) = {root:.4g} times the right one, and your function writes "
                        f"`{params[off[0]][:40]}.data`: " + describe("scaled_through_data"))


def _sdpa_params(submission, answer="scaled_dot_product_attention") -> list[str]:
    """The positional parameter names of `answer` in the last cell that defines it (parsed, never run)."""
    try:
        for _source, tree in list(answer_cell_trees(submission, answer))[-1:]:
            for fdef in ast.walk(tree):
                if isinstance(fdef, ast.FunctionDef) and fdef.name == answer:
                    return [a.arg for a in fdef.args.posonlyargs + fdef.args.args]
    except Exception:  # noqa: BLE001 - an unreadable source shows nothing
        return []
    return []


def name_normaliser_detached(grads, expected, Q, K, V, mask, G):
    """Gradients that equal, on the same input, those of a softmax whose sum is detached (with its max, or alone),
    while the output was right (the caller judged it) and the right gradients differ from that replay: the
    normaliser cut from the graph (gradient_cut)."""
    if any(type(g) is not torch.Tensor or g.shape != w.shape or not torch.isfinite(g).all()
           for g, w in zip(grads, expected)):
        return
    for max_detached in (True, False):
        replay = detached_normaliser_gradients(Q, K, V, mask, G, max_detached)
        if all(matching_variants(w, {"right": r.to(w.dtype)}, w.dtype) for w, r in zip(expected, replay)):
            continue            # no gradient here tells the cut apart (a probe where it changes nothing)
        if all(matching_variants(g, {"cut": r.to(g.dtype)}, g.dtype) for g, r in zip(grads, replay)):
            raise Misconception("gradient_cut", "the gradients with respect to Q and K are wrong (the output is "
                                "right): they equal those of a softmax whose sum is detached"
                                + (" along with its max" if max_detached else "")
                                + " (.detach(), .data or no_grad on e.sum(...)); the sum depends on the scores: "
                                "divide by e.sum(dim, keepdim=True) left in the graph (detaching the max alone is "
                                "harmless)")


# ---------------------------------------------------------------------------------------------
# whole checks of q5's tests that take more than one call
# ---------------------------------------------------------------------------------------------

def name_permuted_with_nan_rows(got, expected, dead, what):
    """An output of another axis order whose permutation back is right on every query with an allowed key
    and NaN on the fully masked ones: two faults, the permutation named (the fully masked rows said)."""
    import itertools
    if type(got) is not torch.Tensor or got.shape == expected.shape or got.dim() != expected.dim():
        return
    for p in itertools.permutations(range(got.dim())):
        back = got.permute(*p)
        if p == tuple(range(got.dim())) or back.shape != expected.shape:
            continue
        live = back[..., ~dead, :]
        if (torch.isfinite(live).all() and matching_variants(live, {"right": expected[..., ~dead, :]}, expected.dtype)
                and (torch.isnan(back[..., dead, :]).any() or torch.equal(back[..., dead, :], expected[..., dead, :]))):
            nan = torch.isnan(back[..., dead, :]).any()
            raise Misconception("result_axes_permuted", f"{what} has shape {tuple(got.shape)}, expected "
                                f"{tuple(expected.shape)}: it matches " + describe("result_axes_permuted")
                                + ("; the queries whose keys are all masked also got NaN where they should get a "
                                   "row of zeros" if nan else ""))


def check_fully_masked(fn, Q, K, V, mask, dead, what="the output with fully masked queries", got=None):
    """The output where the queries `dead` have no allowed key: a row of zeros for each (`got`: the output of
    that call, made already)."""
    if got is None:
        got = call_sdpa(fn, Q, K, V, mask)
    try:
        if type(got) is not torch.Tensor:
            judge(fn, Q, K, V, mask, got, what)
        if (tuple(got.shape) == tuple(Q.shape[:-1] + V.shape[-1:]) and torch.isnan(got[..., dead, :]).any()
                and torch.isfinite(got[..., ~dead, :]).all()):
            name_flag_from_first_entry(fn, Q, K, V, mask, what)      # round64: mask[0] of a 2-D mask
            name_flag_for_2d_mask_only(fn, Q, K, V, mask, dead, what)   # blind85: mask.any(dim=1) of a batched mask
            raise Misconception("fully_masked_nan", f"{what}: a query whose keys are all masked got NaN; "
                                "it should get a row of zeros" + _only_in_half(fn, Q, K, V, mask, dead))
        name_permuted_with_nan_rows(got, ref.scaled_dot_product_attention(Q, K, V, mask), dead, what)
        judge(fn, Q, K, V, mask, got, what)
    except AssertionError as failure:
        expected = ref.scaled_dot_product_attention(Q, K, V, mask)
        raise smallest(failure, fn, Q, K, V, mask, Failure.value(expected, got)) from None


def _only_in_half(fn, Q, K, V, mask, dead):
    """A second call: the same values in float32 give that query zeros (naming20), so the NaN is half
    precision's: a small guard such as + 1e-13 rounds to 0 in float16, and 0 / 0 is NaN."""
    if Q.dtype not in (torch.float16, torch.bfloat16):
        return ""
    again = second_call(fn, Q.float(), K.float(), V.float(), mask=mask)
    if type(again) is not torch.Tensor or again.shape != Q.shape[:-1] + V.shape[-1:] or again.dtype != torch.float32:
        return ""
    if not (again[..., dead, :] == 0).all():
        return ""
    return (f" (the same values in float32 give it zeros: a guard that is 0 in {str(Q.dtype)[6:]}, such as "
            "+ 1e-13 in a denominator, leaves 0 / 0; fill blocked scores with -inf and zero empty rows "
            "explicitly)")


def check_large_scores(fn, Q, K, V, mask):
    got = call_sdpa(fn, Q, K, V, mask)
    try:
        judge_large_scores(fn, Q, K, V, mask, got)
    except AssertionError as failure:
        expected = ref.scaled_dot_product_attention(Q, K, V, mask)
        name_online_blocks(Q, K, V, mask, got, expected, "the float16 output with large scores", large=True)  # round 86
        raise smallest(failure, fn, Q, K, V, mask, Failure.value(expected, got), close=large_scores_ok) from None


def check_gradients(fn, Q, K, V, mask, G, submission=None):
    """The output and the gradients with respect to Q, K and V of sum(output * G)."""
    try:
        out, grads = call(fn.call_with_grad, Q, K, V, mask, grad_wrt=(0, 1, 2), grad_output=G, what=FN)
    except StudentCodeError as e:
        name_graph_never_built(fn, Q, K, V, mask, e, submission)     # round60: inference_mode, no_grad
        if OUT_WORDS in e.message:      # round60: out= into a buffer kept between calls
            name_result_buffer_reused(submission, f"your code raised {e.exc_type}: {e.message.split(',')[0][:90]}")
        name_crash(fn, Q, K, V, mask, e, grad=True)
        raise
    try:
        judge(fn, Q, K, V, mask, out, "the output")
    except AssertionError as failure:
        expected = ref.scaled_dot_product_attention(Q, K, V, mask)
        if type(out) is torch.Tensor and out.shape == expected.shape:
            # round47: NaN from the notebook's softmax, wrong on finite logits already; the value tests name it by
            # putting the right softmax in its place, which this call with gradients does not
            name_nonfinite_softmax_replay(Q, K, V, mask, out, "the output")
        raise smallest(failure, fn, Q, K, V, mask, Failure.value(expected, out)) from None
    name_missing_gradient(grads, "the output", submission)
    leaves = [t.clone().requires_grad_(True) for t in (Q, K, V)]
    expected = vector_jacobian_product(ref.scaled_dot_product_attention(*leaves, mask), leaves, G)
    name_normaliser_detached(grads, expected, Q, K, V, mask, G)      # round42
    name_scaled_through_data(grads, expected, Q, submission)         # round59: Q.data /= sqrt(d_k)
    for label, g, want in zip(("Q", "K", "V"), grads, expected):
        assert_matches(g, want, what=f"the gradient with respect to {label}")


def check_vectorised(fn, cases, rng, limit):
    """Every timed call gets inputs the student has never seen, and the timed outputs are checked. A case
    the function crashes on (4-D inputs with K.transpose(1, 2)) is the value tests' charge: the rule
    is judged on the cases it runs, and on none only if it runs none."""
    ran = 0
    variants, verified = timing_variants(), []   # the variant that verified one case is tried first on the next
    for case in cases:
        try:
            call(assert_vectorised, fn, ref.scaled_dot_product_attention, [case], rng=rng, limit=limit, what=FN,
                 variants=variants, verified_by=verified,
                 advice="replace Python loops over rows, queries, small blocks of keys or batch entries by batched tensor operations")
        except StudentCodeError as e:
            if e.message.startswith("expected a tensor") or (case is cases[-1] and not ran):
                # a tuple, or a crash on every case: the rule tests' input says what it is
                Q, K, V = qkv(rng, (2, 5, 16), (2, 5, 16), (2, 5, 16), torch.float64)
                attempt(fn, Q, K, V, random_mask((2, 5, 5), rng))
            if case is cases[-1] and not ran:
                raise
            continue
        except Misconception:
            raise
        except AssertionError as unverified:
            # timed values that match nothing: an input changed in place (the timed calls share one
            # mask), randomness left on, or a catalogued mistake on a plain input explains it, and is named
            Q, K, V = qkv(rng, (2, 5, 16), (2, 5, 16), (2, 5, 16), torch.float64)
            mask = random_mask((2, 5, 5), rng)
            try:
                first = call(fn, Q, K, V, mask=mask, what=FN)
            except StudentCodeError as e:
                said = f"the timing of {FN} could not be verified: it crashes on 3-D inputs with a full mask"
                name_heads_layout(fn, e, f"{said} ({e.exc_type}: {e.message})")      # round56
                name_values_first(fn, Q, K, V, mask, e, f"{said} ({e.exc_type}: {e.message})")
                by_words = crash_words(e)      # the words alone prove it (a view with leading 1s): say so here too
                if by_words is not None:
                    raise Misconception(by_words.key, f"{said}: {by_words}") from None
                raise AssertionError(f"{said}; the tests of its values say what is wrong") from None
            if type(first) is torch.Tensor:
                name_rows_never_written(fn, first, ref.scaled_dot_product_attention(Q, K, V, mask), "the output")
                raise_if_nondeterministic(fn, (Q, K, V), {"mask": mask}, first, FN)
            # the timed inputs have a batch of one: a squeeze (or a [0]) drops that axis only there. Only
            # fewer axes are named here: more (a mask unsqueezed into the scores) is what judge's probes name
            one = tuple(t[:1] for t in (Q, K, V))
            single = second_call(fn, *one, mask=mask[:1])
            if type(single) is torch.Tensor and single.dim() < Q.dim():
                raise_if_other_container(single, ref.scaled_dot_product_attention(*one, mask[:1]),
                                         "the output for a batch of one")
            try:
                judge(fn, Q, K, V, mask, first, "the output")
            except Misconception:
                raise
            except AssertionError:
                pass
            raise unverified from None
        ran += 1


def weight_variants(Q, K, mask=None, d_v=None) -> dict[str, torch.Tensor]:
    """Wrong variants of the weight matrix alone (the hand trace): the output's with V = I, less those
    whose text speaks of the output (the scores returned, A^T V). V = I has d_v = T, so the divisors
    sqrt(d_v), sqrt(T_k), sqrt(T_q) are redone with the real d_v (the hand trace's V is 3 x 2): each is
    listed only when no other divisor (the right one, d_k, none, another of them) equals it."""
    eye = torch.eye(K.shape[-2], dtype=torch.float64)
    out = {k: v.to(torch.float64) for k, v in wrong_variants(Q.double(), K.double(), eye, mask).items()
           if k.split("/")[0] not in ("scores_as_output", "weights_transposed", "values_weighted_by_scores",
                                      "scale_by_d_v", "scale_by_T", "causal_mask_forced",
                                      "weights_times_wrong_input")
           and k != "inverted_mask/finite_bias"}     # the hand trace's: name_keep_mask_penalty reads the source
    for key, f in VARIANT_FUNCTIONS.items():
        if key in out and hasattr(f, "weights"):
            out[key] = f.weights(Q.double(), K.double(), mask)
    d_k = Q.shape[-1]
    sizes = {"scale_by_T": K.shape[-2], "scale_by_T/queries": Q.shape[-2], "scale_by_d_v": d_v}
    for key, n in sizes.items():
        others = [m for k2, m in sizes.items() if k2.split("/")[0] != key.split("/")[0]]
        if n is None or n in (d_k, d_k * d_k, 1) or n in others:
            continue
        w = ref.stable_softmax(_masked(_scores(Q.double(), K.double(), math.sqrt(n)), mask))
        out[key] = _dead_rows_zeroed(w, mask) if mask is not None else w
    return out


# ---------------------------------------------------------------------------------------------
# kinds named from a property of the answer, whatever code made it (issue 21, fifth round)
# ---------------------------------------------------------------------------------------------

def name_shape(got, expected, what, inputs, submission=None):
    """A wrong shape answer named by its kind: the batch dim left out, the right dims in another order,
    an input's shape (`inputs`: name -> the question's shape of Q, K, V). Says nothing otherwise."""
    got, expected = tuple(got), tuple(expected)
    if got == expected:
        return
    name_lengths_padded(got, expected, what, inputs, submission)     # naming round 88: T padded to a multiple of 8
    name_shape_from_front_axes(got, what, inputs, submission)     # round66: q_shape[:3], k_shape[2] on 3-D shapes
    name_shape_unpacked_width_first(got, what, inputs, submission)    # round72: `*batch, d, T = q_shape`
    stride = tuple(torch.empty(0).new_empty(expected).stride()) if expected and all(expected) else None
    if stride is not None and got == stride and stride != expected:      # round53: .stride() read for .shape
        raise Misconception("shape_read_as_stride", f"{what} is {got}, the stride of a contiguous {expected} "
                            f"tensor (the memory step of each axis), not its shape: " + describe("shape_read_as_stride"))
    if len(expected) > 2 and got == expected[1:]:
        raise Misconception("batch_dim_dropped", f"{what} is {got}, the shape of one batch entry: "
                            + describe("batch_dim_dropped"))
    dropped = [i for i in range(len(expected)) if expected[:i] + expected[i + 1:] == got]
    if dropped:     # a kind: one axis left out (pooled over the queries, a sum or mean over an axis)
        axes = " or ".join(f"axis {i} (size {expected[i]})" for i in dropped)
        raise Misconception("shape_axis_dropped", f"{what} is {got}: the right shape {expected} with {axes} "
                            "left out: " + describe("shape_axis_dropped"))
    name_one_query_shape(got, expected, what, inputs)     # naming round 63: (B, 1, X), one decoding step's query
    if sorted(got) == sorted(expected):
        raise Misconception("shape_dims_swapped", f"{what} is {got}: it holds the right sizes in another order: "
                            + describe("shape_dims_swapped"))
    added = sorted({got[i] for i in range(len(got)) if len(got) == len(expected) + 1
                    and got[:i] + got[i + 1:] == expected})
    if len(added) == 1:      # a kind: one extra axis (a heads axis); removing exactly it gives the right shape
        raise Misconception("shape_axis_added", f"{what} is {got}: the right shape {expected} with one more axis "
                            f"of size {added[0]}: " + describe("shape_axis_added"))
    names = [n for n, s in inputs.items() if tuple(s) == got]
    if names:
        raise Misconception("shape_of_an_input", f"{what} is {got}, the shape of {' and '.join(names)}: "
                            + describe("shape_of_an_input"))


def name_extra_leading_axes(got, expected, what, same=None):
    """The right values with extra leading size-1 axes ((1, T, T), a (1, 1, T, T) buffer): named when `got`
    reshaped to the expected shape is right (`same(a, b)`: exact equality unless given)."""
    if type(got) is not torch.Tensor or got.dim() <= expected.dim() or got.numel() != expected.numel():
        return
    if any(n != 1 for n in got.shape[:got.dim() - expected.dim()]) or tuple(got.shape[-expected.dim():]) != tuple(
            expected.shape):
        return
    flat = got.reshape(expected.shape)
    if bool(same(flat, expected)) if same is not None else bool(torch.equal(flat, expected)):
        raise Misconception("size_one_axes_added", f"{what} has shape {tuple(got.shape)}: the right values with "
                            f"leading size-1 axes added, where {tuple(expected.shape)} is asked: "
                            + describe("size_one_axes_added"))


def name_key_axis_kept(got, expected, T_k, what):
    """An output shape with one more axis of size T_k than the right one (each weight times its value row,
    never summed over the keys: (B, T_q, T_k, d_v))."""
    got, expected = tuple(got), tuple(expected)
    if len(got) == len(expected) + 1 and any(got[i] == T_k and got[:i] + got[i + 1:] == expected
                                             for i in range(len(got))):
        raise Misconception("output_keeps_key_axis", f"{what} is {got}: the right shape {expected} with one more "
                            f"axis of size T_k = {T_k}: " + describe("output_keeps_key_axis"))


def name_number(got, expected, candidates, what, atol):
    """A numeric answer that equals a related quantity: `candidates` maps a key to the values that mistake
    gives. Named only when the answer is within atol of exactly one key's values, and none of those is
    within 2 atol of the right answer or of another key's values (two mistakes that coincide name none)."""
    def near(a, b, tol=atol):
        return abs(a - b) <= tol

    usable = {k: [v for v in vs if not near(v, expected, 2 * atol)] for k, vs in candidates.items()}
    hits = [k for k, vs in usable.items() if any(near(got, v) for v in vs)]
    if len(hits) != 1:
        return
    key = hits[0]
    if any(near(v, w, 2 * atol) for v in usable[key] for k, ws in usable.items() if k != key for w in ws
           if near(got, v)):
        return
    raise Misconception(key, f"{what} is {got:.6g}, what this mistake gives: {describe(key)}")


RESEED_NODES_MAX = 20_000     # the most nodes of the submission's cells read for the draws' seeding


def _seed_calls(node) -> list:
    """The calls of manual_seed (torch.manual_seed, torch.random.manual_seed, manual_seed) that `node` holds."""
    return [n for n in ast.walk(node) if isinstance(n, ast.Call) and (getattr(n.func, "attr", None) == "manual_seed"
                                                                    or getattr(n.func, "id", None) == "manual_seed")]


def _seeds(node) -> bool:
    """Whether `node` holds a call of manual_seed (torch.manual_seed, torch.random.manual_seed, manual_seed)."""
    return bool(_seed_calls(node))


def _seed_text(calls, rebound=frozenset()) -> str | None:
    """The one seed the calls pass (their arguments' dump), or None where they pass several (red-team round 140:
    manual_seed(0) before Q and manual_seed(1) before K draw two different tensors), or one that may change between
    calls: a call in it (manual_seed(next(counter))) or a name the cells bind more than once (`rebound`)."""
    args = [a for c in calls for a in [*c.args, *(k.value for k in c.keywords)]]
    if any(isinstance(n, ast.Call) or (isinstance(n, ast.Name) and n.id in rebound) for a in args for n in ast.walk(a)):
        return None
    texts = {ast.dump(ast.Tuple(elts=[*c.args, *(k.value for k in c.keywords)], ctx=ast.Load())) for c in calls}
    return texts.pop() if len(texts) == 1 else None


def _defaults_of(fn) -> dict[str, tuple[int | None, ast.AST]]:
    """A def's parameters that have a default: name -> (its position, None where keyword-only; the default)."""
    a = fn.args
    pos = [*a.posonlyargs, *a.args]
    first = len(pos) - len(a.defaults)
    out: dict[str, tuple[int | None, ast.AST]] = {x.arg: (first + k, d) for k, (x, d) in enumerate(zip(pos[first:],
                                                                                                      a.defaults))}
    out.update({x.arg: (None, d) for x, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None})
    return out


class _DefaultsIn(ast.NodeTransformer):
    """Each read of a parameter written as its default (the seed a call that passes no such argument uses). A default
    is evaluated once, when the def runs: one that reads a name or calls something (`seed=SEED`, `seed=next(c)`) is
    one value for every call however the cells rebind that name later, so it is written as a constant of its own
    (the def's and the parameter's names), never as the names `_seed_text` refuses as changing between calls."""

    def __init__(self, defaults: dict[str, tuple[int | None, ast.AST]], owner: str = "") -> None:
        self.defaults, self.owner = defaults, owner

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id not in self.defaults:
            return node
        default = self.defaults[node.id][1]
        if any(isinstance(n, (ast.Name, ast.Call)) for n in ast.walk(default)):
            return ast.Constant(value=f"the default of {self.owner}({node.id}=...)")
        return default


def _reseeds_each_call(fn, rebound=frozenset()) -> tuple[str, dict[str, int | None]] | None:
    """The seed a def passes to manual_seed on EVERY call, or None: the seed must be a statement of the def's own
    body (not under an if, a loop or a try: `if not _seeded: torch.manual_seed(0)` seeds once), and read none of
    its own names nor a parameter without a default (`manual_seed(seed)` with seed=1 for K draws another tensor:
    red-team round 140). A parameter with a default that the def never rebinds is read as its default; returned
    beside the seed, {name: position}, so that a call passing it is not taken to use that seed."""
    if isinstance(fn, ast.Lambda):
        return None
    calls = [c for b in fn.body if isinstance(b, (ast.Expr, ast.Assign, ast.AnnAssign)) for c in _seed_calls(b)]
    if not calls:
        return None
    a = fn.args
    params = {x.arg for x in [*a.posonlyargs, *a.args, *a.kwonlyargs, *([a.vararg] if a.vararg else []),
                              *([a.kwarg] if a.kwarg else [])]}
    body = {n.id for b in fn.body for n in ast.walk(b) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    body |= {g for b in fn.body for n in ast.walk(b) if isinstance(n, (ast.Global, ast.Nonlocal)) for g in n.names}
    defaults = {k: v for k, v in _defaults_of(fn).items() if k not in body}
    read = {n.id for c in calls for n in ast.walk(c) if isinstance(n, ast.Name)}
    if read & body or read & (params - set(defaults)):
        return None
    used = {k: v for k, v in defaults.items() if k in read}
    if used:
        import copy
        calls = [_DefaultsIn(used, fn.name).visit(copy.deepcopy(c)) for c in calls]
    seed = _seed_text(calls, rebound)
    return (seed, {k: v[0] for k, v in used.items()}) if seed is not None else None


def _passes_any(call: ast.Call, params: dict[str, int | None]) -> bool:
    """Whether a call may pass one of `params` ({name: position, None for keyword-only}): by keyword, by position,
    or through * or ** (unknown)."""
    if any(k.arg is None or k.arg in params for k in call.keywords) or any(isinstance(x, ast.Starred)
                                                                           for x in call.args):
        return True
    return any(at is not None and len(call.args) > at for at in params.values())


def _reseeded_draws(submission) -> set[str]:
    """The names among Q and K whose draw is seeded anew (read with ast, never run): assigned a call of a def of the
    cells whose body calls manual_seed (`Q = draw(2, 5, 8)`, also in a tuple `Q, K = draw(..), draw(..)`), or
    assigned a call right after a statement of the same cell that calls manual_seed, with no draw between."""
    try:
        trees = [parse(c) for c in (cells_of(submission) if submission is not None else [])[:200]]
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set()
    if sum(1 for t in trees for _ in ast.walk(t)) > RESEED_NODES_MAX:
        return set()
    stores: dict[str, int] = {}
    for t in trees:
        for n in ast.walk(t):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                stores[n.id] = stores.get(n.id, 0) + 1
    rebound = frozenset(name for name, k in stores.items() if k > 1)
    seeding: dict[str, tuple[str, dict[str, int | None]] | None] = {}
    for t in trees:
        for n in ast.walk(t):
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
                seeding[n.name] = _reseeds_each_call(n, rebound) if n.name not in seeding else None   # twice: unread
    seeds: dict[str, str] = {}
    # red-team round 140: only the draws before the answer is computed count (a demo cell after it that seeds and
    # draws K anew changes nothing of raw_score_var), and the last draw of each name before it decides
    answer_at = None
    for i, tree in enumerate(trees):
        for j, stmt in enumerate(tree.body):
            if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and any(
                    isinstance(n, ast.Name) and n.id == "raw_score_var"
                    for t in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]) for n in ast.walk(t)):
                answer_at = (i, j)
    for i, tree in enumerate(trees):
        seeded: str | None = None
        for j, stmt in enumerate(tree.body):
            if answer_at is not None and (i, j) >= answer_at:
                break
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            if not isinstance(stmt, ast.Assign):
                calls = _seed_calls(stmt)
                if calls:
                    seeded = _seed_text(calls, rebound) or ""
                continue
            pairs = []
            for target in stmt.targets:
                if isinstance(target, ast.Name):
                    pairs.append((target.id, stmt.value))
                elif isinstance(target, ast.Tuple) and isinstance(stmt.value, ast.Tuple) \
                        and len(target.elts) == len(stmt.value.elts):
                    pairs += [(t.id, v) for t, v in zip(target.elts, stmt.value.elts) if isinstance(t, ast.Name)]
            for name, value in pairs:
                if name not in ("Q", "K"):
                    continue
                helper = getattr(value.func, "id", None) if isinstance(value, ast.Call) else None
                by_helper = seeding.get(helper) if helper is not None else None
                if by_helper is not None and isinstance(value, ast.Call) and _passes_any(value, by_helper[1]):
                    by_helper = None     # draw(2, 5, 8, seed=1): this call's own seed, not the default
                seed = seeded if seeded is not None and isinstance(value, ast.Call) \
                    else by_helper[0] if by_helper is not None else None
                if seed:
                    seeds[name] = seed
                elif not any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(value)):
                    seeds.pop(name, None)     # drawn again unseeded, or bound to something else (Q = Q.float() kept)
                if isinstance(value, ast.Call):
                    seeded = None   # one seed, then `Q, K, V = randn(..), randn(..), randn(..)`: only Q restarts it
            if any(isinstance(v, ast.Call) for _n, v in pairs):
                seeded = None
    # both drawn after the same seed (a stream restarted at one place draws the same tensor twice)
    return set(seeds) if set(seeds) == {"Q", "K"} and seeds["Q"] == seeds["K"] else set()


def name_reseeded_draws(raw, submission, atol) -> None:
    """q2, naming round 78 (blind78 q2_draw_helper_reseeds_on_every_call_so_q_k_and_v_are_the_same_tensor):
    raw_score_var is the variance of Q Q^T of the example (what keys_are_queries replays) AND the submission draws
    both Q and K seeded anew (a helper that calls manual_seed, or a seed line before each): K is Q because the
    stream restarts, not because the scores were written Q @ Q^T: reseeded_each_draw."""
    Q, K, _ = ref._batched_example()
    if not any(abs(raw - float((t @ t.transpose(-2, -1)).var())) <= atol for t in (Q, K)):
        return
    if _reseeded_draws(submission) != {"Q", "K"}:
        return
    raise Misconception("reseeded_each_draw", f"raw_score_var is {raw:.6g}, the variance of Q Q^T: your cell seeds "
                        "the random stream again before drawing K, so K is the same tensor as Q: "
                        + describe("reseeded_each_draw"))


def score_statistics(divisor=1.0):
    """What the wrong statistics of q2 give on the batched example's scores divided by `divisor`: the
    variance of the diagonal dot products only, and the mean of the variances of each slice."""
    Q, K, _ = ref._batched_example()
    S = Q @ K.transpose(-2, -1) / divisor
    return {
        "diagonal_scores_only": [float(((Q * K).sum(-1) / divisor).var())],
        "mean_of_slice_variances": [float(S.var(dim=d).mean()) for d in (-1, -2, 0, (-2, -1))],
        # a kind: the statistic of an input's entries (about 1) where the scores' (about d_k) is asked
        "variance_of_an_input": [float(t.var()) / divisor ** 2 for t in (Q, K, _)],
        # a kind: the statistic of one slice of the scores (raw_scores[0], one sequence of the batch)
        "variance_of_one_slice": [float(S[b].var()) for b in range(S.shape[0])],
        # a kind: the scores of an input against itself (Q Q^T, or K K^T) where Q K^T is asked
        "keys_are_queries": [float((t @ t.transpose(-2, -1) / divisor).var()) for t in (Q, K)],
        # a kind: the theory's value written where a measurement is asked (d_k, 1 after the scale)
        "theoretical_variance": [Q.shape[-1] / divisor ** 2],
        # a kind: the wrong operand transposed (Q^T K or K^T Q, the same entries transposed; Q^T Q, K^T K):
        # a d_k x d_k matrix summed over the tokens where the (T_q, T_k) scores Q K^T are asked (naming12)
        "weights_sized_by_features": [float((a.transpose(-2, -1) @ b / divisor).var()) for a, b in ((Q, K), (Q, Q),
                                                                                                   (K, K))],
        # a kind: K reshaped (or viewed) to (B, d_k, T_k) as if that transposed it, on the example's own tensors
        # (naming21): the shape is right, the entries regrouped
        "view_as_transpose": [float((Q @ K.reshape(K.shape[0], K.shape[-1], K.shape[-2]) / divisor).var())],
        # torch.var_mean(S) replayed: its second result, the mean, where its first, the variance, is asked
        # (`mean, var = torch.var_mean(S)` unpacked backwards, naming30)
        "variance_mean_swapped": [float(torch.var_mean(S)[1])],
        # a kind: no mean subtracted, mean(S^2) or sum(S^2) / (n - 1) (blind28 q2_mean_square_as_variance)
        "variance_as_mean_square": [float(S.pow(2).mean()), float(S.pow(2).sum() / (S.numel() - 1))],
    }


def diagonal_twice_statistics():
    """q2's raw_score_var (naming round 88, blind89 q2_pair_list_from_tril_and_triu_indices_counts_the_diagonal_twice):
    the variance (unbiased or not) of every score of the batched example plus its diagonal once more (tril_indices
    joined with triu_indices). Kept out of score_statistics: scaled by sqrt(8), 0.8279 lies within q2's 2 ATOL of
    variance_as_mean_square's 0.8265, so only the raw value (6.6232, 6.5128; none other within 0.01) is offered."""
    Q, K, _ = ref._batched_example()
    S = Q @ K.transpose(-2, -1)
    both = torch.cat([S.flatten(), S.diagonal(dim1=-2, dim2=-1).flatten()])
    return {"diagonal_scores_counted_twice": [float(both.var(unbiased=u)) for u in (True, False)]}


def name_products_not_summed(raw, scaled, atol):
    """q2, round42 (blind41): raw_score_var equal to the variance (unbiased or not) of the single products q_i k_i
    of every query with every key (Q[:, :, None, :] * K[:, None, :, :], an einsum 'bqd,bkd->bqkd', (2, 5, 5, 8)),
    the d_k = 8 features never summed into dot products: about 1 where the scores' is about d_k. Named where
    scaled_score_var is the same statistic of those products over sqrt(8) (raw / 8), or the right scaled value (the
    sum kept there); the values (0.9293, 0.9270) are none of q2's catalogued raw ones."""
    q, k = ref._Qb.double(), ref._Kb.double()
    p = q[:, :, None, :] * k[:, None, :, :]
    for unbiased in (True, False):
        v = float(p.var(unbiased=unbiased))
        if abs(raw - v) < 1e-5 * v and (abs(scaled - v / 8) < 1e-5 * v or abs(scaled - ref.scaled_score_var) < atol):
            raise Misconception("products_not_summed", f"raw_score_var is {raw:.4g}, the variance of the "
                                f"{p.numel()} single products q_i * k_i of the example's queries and keys "
                                f"{tuple(p.shape)}, not of their {2 * 5 * 5} dot products (variance "
                                f"{ref.raw_score_var:.4g}): " + describe("products_not_summed"))


def name_cross_sequence_scores(got, what, divisor=1.0, atol=1e-3):
    """q2's variance equal to that of the batched example's scores with every query paired with the keys of
    EVERY sequence (blind32 q2_torch_inner_pairs_across_batch): torch.inner(Q, K), (2, 5, 2, 5), an einsum or a
    broadcast product that keeps both batch axes, or Q and K flattened to (B T, d_k) -- the same 100 entries,
    the batch read as one sequence of 10 tokens. Replayed on the example's own Q and K; named only when that
    value is neither the right one nor one of the other statistics q2 names (2 atol apart)."""
    Q, K, _ = ref._batched_example()
    d = Q.shape[-1]
    value = float((Q.reshape(-1, d) @ K.reshape(-1, d).transpose(-2, -1) / divisor).var())
    right = float((Q @ K.transpose(-2, -1) / divisor).var())
    others = [v for vs in score_statistics(divisor).values() for v in vs] + [right]
    if abs(got - value) > atol or any(abs(value - v) <= 2 * atol for v in others):
        return
    raise Misconception("batch_as_one_sequence", f"{what} is {got:.6g}, the variance of the scores of every query "
                        "with the keys of every sequence of the batch (torch.inner(Q, K) is (2, 5, 2, 5), or the "
                        f"batch flattened to {Q.shape[0] * Q.shape[1]} tokens), {value:.6g} on the example: "
                        "the scores are Q @ K.transpose(-2, -1), within each sequence, (2, 5, 5); "
                        + describe("batch_as_one_sequence"))


@functools.lru_cache(maxsize=1)
def new_sample_score_variances():
    """The raw scores' variance of a fresh random sample, replayed (naming21): two draws of one shape, either
    after torch.manual_seed(0) or continuing the stream after the example's Q, K, V; shapes (n, d_k) and
    (B, T, d_k) with d_k = 8. Only on a wrong answer; the student's float32 steps give these values exactly.
    The same numbers every time (fixed seeds): computed once per grader process (96 draws, about 2 s)."""
    shapes = [(n, 8) for n in (10, 20, 50, 100, 200, 500, 1000, 2000)]
    shapes += [(b, t, 8) for b in (1, 2, 3, 4, 8, 10, 16, 32) for t in (5, 10, 20, 50, 100)]
    out = []
    for after_example in (False, True):
        for shape in shapes:
            g = torch.Generator().manual_seed(0)
            if after_example:
                for _ in range(3):
                    torch.randn(2, 5, 8, generator=g)
            a, b = torch.randn(*shape, generator=g), torch.randn(*shape, generator=g)
            out.append(float((a @ b.transpose(-2, -1)).var()))
    return tuple(out)


def permuted_variants(expected, prefix="result_axes_permuted"):
    """The right result with its axes in every other order (a transpose or permute never undone)."""
    import itertools
    n = expected.dim()
    return {f"{prefix}/{p}": expected.permute(*p) for p in itertools.permutations(range(n))
            if p != tuple(range(n))}


def max_wrong_axis_variants(x, dim):
    """A softmax along `dim` whose shift is the max over another single axis: sums to 1 along dim,
    but the shift differs within a slice, so the values are wrong."""
    x = x.to(torch.float64)
    dim = dim % x.dim()
    out = {}
    right = torch.exp(x - _finite_max(x, dim))
    for a in range(x.dim()):
        if a != dim and x.shape[a] > 1:       # over a size-1 axis the shift is x itself: uniform weights
            e = torch.exp(x - x.amax(dim=a, keepdim=True))
            out[f"softmax_max_wrong_axis/{a}"] = e / e.sum(dim=dim, keepdim=True)
            # the right shift, and the sum over the other axis
            out[f"softmax_sum_wrong_axis/{a}"] = right / right.sum(dim=a, keepdim=True)
    return out


# logits far apart: a correct softmax gives ratios of e^-50 between neighbours; a capped one ties the top
CLAMP_PROBE = torch.tensor([[200.0, 150.0, 100.0, 0.0]], dtype=torch.float64)


def ties_capped_logits(w):
    """`w`, the weights of CLAMP_PROBE's logits: finite, the two largest logits tied (within 1e-6), and the
    smallest one lighter: what capping the logits gives, for any cap below 150."""
    if type(w) is not torch.Tensor or w.numel() != 4 or not w.dtype.is_floating_point:
        return False
    w = w.detach().reshape(4).to(torch.float64)
    return bool(torch.isfinite(w).all() and w[0] > 0 and torch.isclose(w[0], w[1], rtol=1e-6, atol=0)
                and w[3] < w[0] * (1 - 1e-3))


def name_clamped_softmax(fn, what):
    """A softmax that gave inf/NaN or wrong values: a float64 probe of far-apart logits shows a cap."""
    if ties_capped_logits(second_call(fn, CLAMP_PROBE.clone(), dim=-1)):
        raise Misconception("clamped_logits", f"{what}; a probe with logits 200, 150, 100, 0 gives the two largest "
                            "the same weight: it matches " + describe("clamped_logits"))


# round39 (blind38): a shift clamped at 0 (x - max.clamp(min=0), relu(max), shifting only where the max is positive)
# leaves a slice of logits all far below 0 as it is. float64 rows: -1000.. (every exp underflows: 0/0 = NaN when
# unshifted), 1000.. (needs the shift: no shift overflows), -700.. (exp(-700) is still a float64 number: right
# unshifted), and 0, -1, -1000 (max 0: a shift by the largest |x| makes it NaN too). Only the clamp gives NaN on the
# first row alone and the right weights on the other three.
CLAMP_AT_ZERO_PROBE = torch.tensor([[-1000.0, -1001.0, -1003.0], [1000.0, 999.0, 997.0], [-700.0, -701.0, -703.0],
                                    [0.0, -1.0, -1000.0]], dtype=torch.float64)


def name_shift_clamped_at_zero(fn, what):
    """A softmax that gave inf/NaN: CLAMP_AT_ZERO_PROBE's second call shows the shift clamped at 0."""
    out = second_call(fn, CLAMP_AT_ZERO_PROBE.clone(), dim=-1)
    if type(out) is not torch.Tensor or tuple(out.shape) != (4, 3) or not out.dtype.is_floating_point:
        return
    right = ref.stable_softmax(CLAMP_AT_ZERO_PROBE, dim=-1)
    if bool(torch.isnan(out[0]).all()) and bool(torch.isfinite(out[1:]).all()) \
            and torch.allclose(out[1:].double(), right[1:], rtol=0, atol=1e-9):
        raise Misconception("shift_clamped_at_zero", f"{what}; a float64 probe gives NaN on logits -1000, -1001, "
                            "-1003 and the right weights on 1000, 999, 997 and on -700, -701, -703: the max is "
                            "subtracted only when it is above 0: " + describe("shift_clamped_at_zero"))


# round39 (blind38): causal_mask(260), past uint8's 255: positions (or their offset) in uint8 wrap at 256, so cols -
# rows == 0 (mod 256) keeps key 256 for query 0 and key 0 for query 256, besides the diagonal
WRAP_SIZE = 260


def diagonal_only(T_q, T_k):
    """The (T_q, T_k) bool mask True only where j == i."""
    return torch.arange(T_k)[None, :] == torch.arange(T_q)[:, None]


def tril_indices_swapped(T_q, T_k):
    """round48 (blind48 q4_tril_indices_scattered_with_rows_and_columns_swapped): the (row, column) pairs of
    torch.tril_indices(T_q, T_k) written as mask[cols, rows] = True, True at (j, i) for each key j <= query i: the
    upper triangle when square, that triangle cut to the first T_q columns when T_q < T_k; None when T_q > T_k,
    where a row index past T_k - 1 used as a column raises IndexError."""
    if T_q > T_k:
        return None
    m = torch.zeros(T_q, T_k, dtype=torch.bool)
    rows, cols = torch.tril_indices(T_q, T_k)
    m[cols, rows] = True
    return m


def _square_is_upper(fn, n):
    """fn(n) and fn(n, n) are both the upper triangle (triu of ones), any 0/1 dtype; a crash is False."""
    try:
        outs = (fn(n), fn(n, n))
    except Exception:  # noqa: BLE001 - a crash shows nothing here
        return False
    upper = ref.causal_mask_upper(n)
    return all(isinstance(o, torch.Tensor) and tuple(o.shape) == (n, n) and bool(((o != 0) == upper).all())
               for o in outs)


def _swap_replayed(fn, T_q, T_k):
    """fn(T_q, T_k) (T_q < T_k) is tril_indices_swapped's mask, which no other catalogued mask is, and a square
    call of the same function is the upper triangle."""
    want = tril_indices_swapped(T_q, T_k)
    if want is None or T_q == T_k or bool((want == ref.causal_mask(T_q, T_k)).all()) or any(
            bool((want == w).all()) for w in ref.causal_mask_variants(T_q, T_k).values()):
        return False
    try:
        got = fn(T_q, T_k)
    except Exception:  # noqa: BLE001 - a crash shows nothing here
        return False
    return (isinstance(got, torch.Tensor) and tuple(got.shape) == (T_q, T_k) and bool(((got != 0) == want).all())
            and _square_is_upper(fn, T_q))


def name_tril_indices_swapped(fn, T_q, T_k, said, crash=None):
    """q4 (round48): a rectangular causal_mask(T_q, T_k) that is the lower triangle's tril_indices scattered as
    (column, row): upper_triangular_mask, as its square calls are named. Where T_q < T_k the answer itself is
    the replay (said: what it is); where T_q > T_k it raised IndexError (crash: the exception's type), named only
    when causal_mask(T_k, T_q), the same sizes the other way round, is that replay and a square call is the
    upper triangle."""
    if T_k is None or T_q == T_k:
        return
    if crash is None:
        if T_q > T_k or not _swap_replayed(fn, T_q, T_k):
            return
        how = (f"causal_mask({T_q}, {T_k}) is that pattern (the upper triangle of its first {T_q} columns), and "
               f"causal_mask({T_q}) is the upper triangle")
    else:
        if crash != "IndexError" or T_q < T_k or not _swap_replayed(fn, T_k, T_q):
            return
        how = (f"here a query index up to {T_q - 1} is used as a key index (only {T_k} keys), and "
               f"causal_mask({T_k}, {T_q}) and causal_mask({T_k}) show the same swap")
    raise Misconception("upper_triangular_mask", f"{said}: each allowed pair (query i, key j <= i) is set at [j, i], "
                        "not [i, j] (rows and columns swapped, as mask[cols, rows] = True does with "
                        f"torch.tril_indices): set mask[rows, cols]; {how}: it matches "
                        + describe("upper_triangular_mask"))


def name_not_equal_mask(t, what):
    """round47 (blind47 q4_sign_of_the_offset_cast_to_bool_keeps_both_sides): a (T_q, T_k) bool mask that is True
    exactly where j != i (every key but the query's own: both sides of the diagonal kept, the diagonal blocked), as
    sign(i - j).bool(), (i - j).bool() or (i - j) != 0 give. Read off the returned mask's pattern alone; with
    T_q, T_k >= 2 it is none of the other catalogued masks (all True, the inverted mask, a triangle)."""
    if type(t) is not torch.Tensor or t.dtype != torch.bool or t.dim() != 2 or min(t.shape) < 2:
        return
    if bool((t == ~diagonal_only(*t.shape)).all()):
        raise Misconception("causal_mask_not_equal", f"{what} is True wherever key j != query i: it keeps every "
                            "future key (above the diagonal) and blocks each query's own key (the diagonal): "
                            + describe("causal_mask_not_equal"))


def name_unsigned_offsets(fn, said):
    """A causal mask that keeps only the diagonal: a second call causal_mask(260) is True exactly where j - i is a
    multiple of 256, what cols - rows <= 0 in uint8 gives (an == comparison keeps the diagonal alone)."""
    try:
        out = fn(WRAP_SIZE, WRAP_SIZE)
    except Exception:  # noqa: BLE001 - no evidence from a crash
        return
    if type(out) is not torch.Tensor or tuple(out.shape) != (WRAP_SIZE, WRAP_SIZE) or out.dtype != torch.bool:
        return
    i = torch.arange(WRAP_SIZE)
    if bool((out == ((i[None, :] - i[:, None]) % 256 == 0)).all()):
        raise Misconception("mask_offsets_wrap_unsigned", f"{said}: only the diagonal is True, and causal_mask"
                            f"({WRAP_SIZE}) also lets query 0 see key 256 (and query 256 key 0): the offsets are "
                            "taken modulo 256, in uint8: " + describe("mask_offsets_wrap_unsigned"))


# round40 (blind39): a lower triangle of numbered positions cast with .bool(), which is False where the number is 0:
# the grid numbered cell by cell (arange(T_q * T_k).reshape, in either order, or i + j) blocks [0, 0] alone; key
# positions j blocks column 0; query positions i row 0; i * j both. Each differs from every catalogued mask (the
# diagonal is kept except where its number is 0), and from the others at every size of 2 x 2 or more
NUMBERED_GRIDS = {
    "the cell [0, 0], numbered 0": lambda i, j: i + j,
    "column 0 (key 0), numbered 0": lambda i, j: j + 0 * i,
    "row 0 (query 0), numbered 0": lambda i, j: i + 0 * j,
    "row 0 and column 0, numbered 0": lambda i, j: i * j,
}
NUMBERED_GRID_SIZES = ((1, 1), (3, 3), (2, 5), (6, 4), (7, 7))


def _numbered_grid_mask(number, T_q, T_k):
    i, j = torch.arange(T_q)[:, None], torch.arange(T_k)[None, :]
    return (j <= i) & (number(i, j) != 0)


def name_numbered_grid(fn, t, what, submission=None):
    """numbered_grid_cast_to_bool: the mask `t` is the causal mask with the cells numbered 0 blocked (one of
    NUMBERED_GRIDS), and second calls at several sizes, square and rectangular, give that same pattern each time.
    Naming round 76 (blind77 q4_j_le_i_rewritten_as_ratio_j_over_i_le_one_fails_at_query_zero): where causal_mask's
    def compares a division (j / i <= 1), that pattern is the ratio's 0 / 0 and j / 0: mask_ratio_divides_by_zero."""
    if type(t) is not torch.Tensor or t.dtype != torch.bool or t.dim() != 2:
        return
    T_q, T_k = t.shape
    for where, number in NUMBERED_GRIDS.items():
        m = _numbered_grid_mask(number, T_q, T_k)
        if bool((m == ref.causal_mask(T_q, T_k)).all()) or not bool((t == m).all()):
            continue
        for size in NUMBERED_GRID_SIZES:
            try:
                again = fn(*size)
            except Exception:  # noqa: BLE001 - no evidence from a crash
                return
            want = _numbered_grid_mask(number, *size)
            if type(again) is not torch.Tensor or tuple(again.shape) != size or not bool(((again != 0) == want).all()):
                return
        sizes = ", ".join(f"({a}, {b})" for a, b in NUMBERED_GRID_SIZES[1:])
        ratio = _mask_ratio_compared(submission)
        if ratio is not None:
            raise Misconception("mask_ratio_divides_by_zero", f"{what} also blocks {where.rsplit(', numbered', 1)[0]}, and is "
                                f"otherwise the causal mask; so does causal_mask at sizes {sizes}: your `{ratio}` "
                                "divides by a position that is 0 there: " + describe("mask_ratio_divides_by_zero"))
        raise Misconception("numbered_grid_cast_to_bool", f"{what} also blocks {where}, and is otherwise the causal "
                            f"mask; so does causal_mask at sizes {sizes}: " + describe("numbered_grid_cast_to_bool"))


def name_numbered_grid_trace(got, causal_mask, atol, submission=None):
    """q6, round40 (blind39): weights3_causal computed with the notebook's causal_mask(3), which blocks the cells of a
    numbered grid that are 0 (numbered_grid_cast_to_bool, proven on the mask's own second calls): named when every
    row with a kept key is the softmax of scores3 over those keys, and a row with none is NaN or zero. Naming round
    63: so is a causal_mask(3) written in place into an expanded tensor (inplace_on_expanded, replayed)."""
    try:
        m = causal_mask(3)
    except Exception:  # noqa: BLE001 - no evidence from a crash
        return
    if type(m) is not torch.Tensor or tuple(m.shape) != (3, 3) or m.dtype != torch.bool:
        return
    try:
        name_numbered_grid(causal_mask, m, "causal_mask(3)", submission)
        name_inplace_on_expanded_mask(m, "causal_mask(3)", submission)
        return
    except Misconception as named:
        said, key = str(named), named.key
    s = (ref.Q3 @ ref.K3.T / 2.0).masked_fill(~m, float("-inf"))
    for row in range(3):
        if bool(m[row].any()):
            if not (torch.isfinite(got[row]).all()
                    and torch.allclose(got[row], torch.softmax(s[row], -1), rtol=0, atol=atol)):
                return
        elif not (bool(torch.isnan(got[row]).all()) or bool((got[row] == 0).all())):
            return
    raise Misconception(key, "weights3_causal is what the notebook's causal_mask(3) gives, "
                        f"and that mask is wrong: {said}")


def name_scale_in_float32(got, Q, K, V, mask, what):
    """round39 (blind38): a float64 output that is, to float64's precision, the attention with the scale
    1/sqrt(d_k) (or sqrt(d_k)) rounded to float32 (np.float32(1 / np.sqrt(d_k))): float32_scale, the catalogued
    variant divides by float32's sqrt(d_k) only; also where the error is below the engine's 1e-8 threshold for
    float32_precision (d_k = 20 gives 6.6e-9). Only where the rounding changes the scale (not d_k = 16)."""
    if type(got) is not torch.Tensor or got.dtype != torch.float64 or Q.dtype != torch.float64:
        return
    got, Q, K, V = (t.detach() for t in (got, Q, K, V))
    d = Q.shape[-1]
    exact = ref.scaled_dot_product_attention(Q, K, V, mask)
    if got.shape != exact.shape:
        return
    f32 = lambda v: float(torch.tensor(v, dtype=torch.float32))     # noqa: E731
    for scale, how in ((f32(1 / math.sqrt(d)), f"1/sqrt({d}) as float32"),
                       (1 / f32(math.sqrt(d)), f"sqrt({d}) as float32")):
        if scale == 1 / math.sqrt(d):
            continue
        rounded = ref.scaled_dot_product_attention(Q * (scale * math.sqrt(d)), K, V, mask)
        if torch.allclose(rounded, exact, rtol=0, atol=1e-12, equal_nan=True):
            continue
        if torch.allclose(got, rounded, rtol=1e-11, atol=1e-12, equal_nan=True):
            raise Misconception("float32_scale", f"{what} is wrong by about 1e-8: it is, to float64's precision, "
                                f"the output with the scale {how} ({scale!r} instead of {1 / math.sqrt(d)!r}), as "
                                "np.float32(...) or a float32 tensor rounds it: keep the scale a Python float, "
                                "1 / math.sqrt(d_k); it matches " + describe("float32_scale"))


def name_clamped_sdpa(fn, what):
    """The same probe through scaled_dot_product_attention: d_k = 1, the keys are the logits, V = I, so the
    output row is the weights."""
    Q = torch.ones(1, 1, 1, dtype=torch.float64)
    K = CLAMP_PROBE.reshape(1, 4, 1).clone()
    V = torch.eye(4, dtype=torch.float64).reshape(1, 4, 4)
    if ties_capped_logits(second_call(fn, Q, K, V, mask=None)):
        raise Misconception("clamped_logits", f"{what}; a second call whose scores are 200, 150, 100, 0 gives the "
                            "two largest the same weight: it matches " + describe("clamped_logits"))


def name_size_crash(e, said):
    """A TypeError that says a torch.Size (or tuple) came where a number belongs: the shape was sliced
    (Q.shape[-1:]) or used whole where one of its sizes was meant."""
    if e.exc_type == "TypeError" and ("torch.Size" in e.message or "not tuple" in e.message):
        raise Misconception("size_not_int", f"{said}: " + describe("size_not_int"))


def is_causal_weights(t, atol):
    """q6: True when `t` (a float tensor) is the causal weights and not the unmasked ones, on the same Q3, K3."""
    return (type(t) is torch.Tensor and tuple(t.shape) == (3, 3) and t.dtype.is_floating_point
            and bool(torch.isfinite(t).all()) and torch.allclose(t.double(), ref.weights3_causal, rtol=0, atol=atol)
            and not torch.allclose(t.double(), ref.weights3, rtol=0, atol=atol))


def _close3(t, expected, atol):
    """True when `t` is a finite floating (3, 3) or (3, 2) tensor equal to `expected` (float64)."""
    return (type(t) is torch.Tensor and tuple(t.shape) == tuple(expected.shape) and t.dtype.is_floating_point
            and bool(torch.isfinite(t).all()) and torch.allclose(t.double(), expected, rtol=0, atol=atol))


def alias_rewritten(got, atol, out3, weights3_causal, submission=None):
    """q6 (naming25): weights3 rewritten in place by the causal cell through an alias (weights3_causal =
    weights3, or a view of it, then zeroed and renormalised in place). Named inplace_on_input only when all
    three hold on the same Q3, K3, V3: weights3 equals what zeroing the blocked entries of the right weights
    in place gives (renormalised, or only zeroed), out3 is the right unmasked output weights3 @ V3 (so weights3
    was right when out3 was computed), and weights3_causal holds the same values as weights3. Not removable: a
    notebook computing out3 from a second, separate softmax and weights3 with a mask would give the same three
    values (no such cell is known)."""
    if not _close3(out3, ref.out3, atol) or not _close3(weights3_causal, got.double(), atol):
        return
    blocked = ~ref.causal_mask(3)
    zeroed = ref.weights3.masked_fill(blocked, 0.0)
    for how, replay in (("zeroed and renormalised", zeroed / zeroed.sum(-1, keepdim=True)), ("zeroed", zeroed)):
        if _close3(got, replay, atol):
            # round60: one buffer handed out by every stable_softmax call of a shape writes nothing in place
            name_result_buffer_reused(submission, "weights3 is the causal weights, and so is weights3_causal, while "
                                      "out3 = weights3 @ V3 is the right unmasked output (weights3 was right when out3 "
                                      "was computed, and the causal cell's call of stable_softmax changed it)")
            raise Misconception("inplace_on_input", f"weights3 equals the right weights {how} in place where the "
                                "causal mask blocks, and so does weights3_causal, while out3 = weights3 @ V3 is "
                                "the right unmasked output: weights3 was right when out3 was computed and the "
                                "causal cell changed it afterwards; weights3_causal = weights3 (or a view of it) "
                                "is the same tensor, not a copy, so writing into it writes into weights3: start "
                                "from weights3.clone(), or build a new tensor (masked_fill, not masked_fill_). "
                                + describe("inplace_on_input"))


def causal_in_unmasked(got, scores3, atol, out3=None, weights3_causal=None, submission=None):
    """q6: weights3 equal to the causal weights: inplace_on_input when scores3 itself now holds the causal fill
    (-inf where blocked, the scaled scores elsewhere: a masked_fill_ wrote into it before weights3 read it), or
    when the causal cell rewrote weights3 through an alias (alias_rewritten); else said in words (a mask
    applied where none is asked)."""
    if (type(got) is torch.Tensor and got.dtype.is_floating_point and tuple(got.shape) == (3, 3)
            and not _close3(got, ref.weights3, atol)):
        alias_rewritten(got, atol, out3, weights3_causal, submission)
    if not is_causal_weights(got, atol):
        return
    blocked = ~ref.causal_mask(3)
    s = ref.Q3 @ ref.K3.T / 2.0
    if (type(scores3) is torch.Tensor and tuple(scores3.shape) == (3, 3) and scores3.dtype.is_floating_point
            and bool(torch.isneginf(scores3[blocked]).all())
            and torch.allclose(scores3.double()[~blocked], s[~blocked], rtol=0, atol=atol)):
        raise Misconception("inplace_on_input", "weights3 equals the causal weights weights3_causal on the same "
                            "Q3, K3, and scores3 now holds -inf where the causal mask blocks: the causal fill wrote "
                            "into scores3 (masked_fill_ works in place, and so does writing through anything that shares "
                            "its memory: a view, scores3.numpy(), torch.from_numpy) before weights3 was computed from "
                            "it; use scores3.masked_fill(...), which returns a new tensor, or fill a copy "
                            "(scores3.clone(), np.array(scores3)). " + describe("inplace_on_input"))
    if _close3(out3, ref.weights3_causal @ ref.V3, atol):
        # out3 = weights3 @ V3 follows the causal weights too: weights3's own cell applied the mask (is_causal=True
        # copied into it, blind32 q6_unmasked_weights_read_with_is_causal), not a later cell that rewrote weights3
        # (then out3, computed before, is the unmasked output: alias_rewritten above, or nothing named)
        raise Misconception("causal_mask_in_unmasked_weights", "weights3 equals the causal weights weights3_causal "
                            "on the same Q3, K3, and out3 = weights3 @ V3 is the causal output: the cell of the "
                            "unmasked weights applies the causal mask: " + describe("causal_mask_in_unmasked_weights"))
    raise AssertionError("weights3 equals the causal weights weights3_causal on the same Q3, K3: weights3 is the "
                         "softmax of scores3 with no mask (every query sees every key)")


def name_tuple_as_tensor(e, said):
    """A crash whose own words show the result of torch.max(x, dim=...) (or min, sort, topk, mode, median,
    kthvalue: a (values, indices) namedtuple) used as a tensor: reduction_tuple_as_tensor, raised. The
    detection is shared (autograder.grading.checks.tuple_as_tensor, which scaled-attention uses too)."""
    named = tuple_as_tensor(e, said)
    if named is not None:
        raise named


def f16_normaliser_rounding(got, x, dim=-1):
    """True when `got` (float16) is the softmax of x times one factor per slice, each factor within the
    float16 rounding of that slice's log-normaliser: exp(x - logsumexp(x)) done in float16 rounds
    logsumexp to half an ulp of its size (0.5 near 2000, 1 near -3000), a correct method's limit there."""
    if type(got) is not torch.Tensor or got.dtype != torch.float16 or got.shape != x.shape:
        return False
    g = got.to(torch.float64)
    xd = x.to(torch.float64)
    if not torch.isfinite(g).all():
        return False
    p = torch.softmax(xd, dim=dim)
    lse = torch.logsumexp(xd, dim=dim, keepdim=True)
    # half an ulp of float16 at |lse| (10 mantissa bits), plus float16's own relative rounding of the output
    half_ulp = torch.exp2(torch.floor(torch.log2(lse.abs().clamp_min(1.0))) - 11)
    big = p > 1e-3
    ratio = torch.where(big, g / p, torch.nan)
    lo = torch.where(big, ratio, torch.inf).amin(dim=dim, keepdim=True)
    hi = torch.where(big, ratio, -torch.inf).amax(dim=dim, keepdim=True)
    tiny = (~big) & (g > 2 * p.clamp_min(1e-300) * torch.exp(half_ulp) + 1e-3)
    return bool((lo > 0).all() and ((hi / lo) < 1 + 4e-3).all()
                and (lo.log().abs() <= half_ulp + 4e-3).all() and (hi.log().abs() <= half_ulp + 4e-3).all()
                and not tiny.any())


def _row_factors(w, right):
    """The factor of each slice (last axis) when `w` (float64) is `right` times one positive factor per slice,
    some factor not 1 (the slice does not sum to 1); else None. Slices of `right` that are all 0 are skipped."""
    if type(w) is not torch.Tensor or w.shape != right.shape or not w.dtype.is_floating_point:
        return None
    live = right.sum(-1, keepdim=True) > 0
    w = torch.where(live, w.double(), right)
    if not torch.isfinite(w).all() or (w < 0).any():
        return None
    sums = torch.where(live, w.sum(-1, keepdim=True), torch.ones_like(live, dtype=w.dtype))
    if (sums <= 0).any() or bool(((sums - 1).abs() < 1e-3).all()):
        return None
    if not torch.allclose(w / sums, right, rtol=1e-6, atol=1e-9):
        return None
    return sums[live.expand_as(sums)]


def unnormalised_cause(g, scores, dtype=torch.float64) -> str:
    """round69 (blind69's borderlines): weights_not_normalised's words, with the cause where a replay on the same
    scores (last axis) gives `g`: exp(s - max) / (1 + their sum), a denominator started at 1 and then summed over
    every entry; or, for a 2-D matrix, each row over the running total of its own and the earlier rows' sums (the
    total not set back to 0 for each query). Else the key's own text."""
    s = scores.detach().double()
    if type(g) is not torch.Tensor or g.shape != s.shape or s.dim() == 0:
        return describe("weights_not_normalised")
    m = s.amax(-1, keepdim=True)
    replays = {}
    for shift in ("max", "none"):     # exp(s - max), or exp(s) as written on the small scores of the trace
        e = torch.exp(s - torch.where(torch.isfinite(m), m, torch.zeros_like(m))) if shift == "max" else torch.exp(s)
        total = e.sum(-1, keepdim=True)
        replays[f"plus_one/{shift}"] = e / (1 + total)
        if s.shape[-1] > 1:     # naming round 76 (blind77): the sum from index 1, sum_{i=1}^{n} typed as written
            replays[f"from_one/{shift}"] = e / e[..., 1:].sum(-1, keepdim=True)
        if s.dim() == 2:
            replays[f"running/{shift}"] = torch.nan_to_num(e / total.cumsum(0))
    hits = {k.split("/")[0] for k in matching_variants(g.detach(), replays, dtype)}
    if "plus_one" in hits:
        return ("each slice sums to S / (1 + S), S the sum of its exponentials: the denominator is 1 plus that sum (a "
                "sum started at 1, or torch.ones_like(...) + exps.sum(...)), which counts the max's exp(0) = 1 twice; "
                "start it at 0, or divide by exps.sum(dim, keepdim=True) alone")
    if "from_one" in hits:
        return ("each slice is divided by the sum of its exponentials from index 1 on (a slice such as "
                "narrow(dim, 1, n - 1) or [1:], the formula's sum from i = 1 carried into code): Python counts from "
                "0, so entry 0 is left out of the denominator and the slice sums to more than 1; divide by the "
                "whole slice's sum, exps.sum(dim, keepdim=True)")
    if "running" in hits:
        return ("row i is divided by the running total of the exponentials of rows 0 to i: the total is not set back "
                "to 0 for each query, so the later rows are divided by the earlier rows' sums too; reset it inside "
                "the loop over the queries (or divide each row by its own sum)")
    return describe("weights_not_normalised")


def name_unnormalised_replay(Q, K, V, mask, got, expected, what):
    """q5 (naming25): an output that equals, on the same Q, K, V, mask, the notebook's own stable_softmax of the
    scaled (masked) scores, rows of fully masked queries zeroed, times V, where that softmax gives each row the
    right weights times its own factor (rows not summing to 1): weights_not_normalised, the mistake of the
    softmax (q3 names it) that the attention inherits. The softmax is the one a wrapped test received
    (STUDENT_SOFTMAX); called only for an output already wrong, in float64."""
    softmax = STUDENT_SOFTMAX.get()
    if softmax is None or got.shape != expected.shape or not got.dtype.is_floating_point:
        return
    scores = Q.double() @ K.double().transpose(-2, -1) / math.sqrt(Q.size(-1))
    live = torch.ones(scores.shape[:-1] + (1,), dtype=torch.bool)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
        live = torch.broadcast_to(mask.any(dim=-1, keepdim=True), live.shape)
    try:
        w = softmax(scores.clone(), dim=-1)
    except Exception:  # noqa: BLE001 - a crash shows nothing here
        return
    if type(w) is not torch.Tensor or w.shape != scores.shape or not w.dtype.is_floating_point:
        return
    w = torch.where(live, w.detach().double(), 0.0)
    factors = _row_factors(w, torch.where(live, torch.softmax(scores, dim=-1), 0.0))
    if factors is None or not matching_variants(got, {"replay": (w @ V.double()).to(got.dtype)}, got.dtype):
        return
    flat = torch.where(live, scores, 0.0)   # a catalogued softmax of this shape (a global sum, a max) is its own key
    if any(k.split("/")[0] != "weights_not_normalised" for k in matching_variants(
            w, {k: torch.where(live, v.double(), 0.0) for k, v in softmax_variants(flat).items()}, torch.float64)):
        return
    raise Misconception("weights_not_normalised", f"{what} is wrong: it equals (stable_softmax of the scaled "
                        "scores) @ V on the same input, and your stable_softmax gives each query the right weights "
                        f"times its own factor (the rows sum to between {float(factors.min()):.3g} and "
                        f"{float(factors.max()):.3g}, not 1): " + unnormalised_cause(w, scores))


def name_trace_mistake(got, what, weights3, atol, submission=None):
    """q6, after no catalogued variant matched: a kind of mistake read off the answer's own structure, whatever
    code made it. weights3 or weights3_causal that is
    - the right weights with each row times its own factor (naming25): weights_not_normalised;
    - non-negative with every column summing to 1 and not every row: the sum taken over the queries
      (softmax_sum_wrong_axis; a whole softmax over dim 0 is a catalogued variant, softmax_wrong_dim);
    - a softmax of the (masked) weights instead of the scores: softmax_twice;
    - a softmax of the right scores except one entry of a row, with the other entries of that row agreeing
      (hand_score_slip: one dot product worked out wrong; said with the entry and both values);
    or an out3 that is the notebook's own weights3 @ V3 where weights3 is one of these."""
    name_additive_trace_scores(got, what, atol)      # round62: sum(tanh(q + k)) for the scores
    name_trace_row_sum_overwritten(got, what, submission, atol)     # naming round 88: scatter for scatter_add
    if what in ("weights3", "weights3_causal"):      # naming round 88: a sorted softmax gathered back
        name_sorted_softmax_regathered(got.double(), _trace_scores(what), -1, what)
    name_trace_scores_written_in_place(got, what, submission, atol)     # round65: scores3[0, 1:] = -inf
    if what == "out3":
        name_trace_dropout(got, weights3, submission, atol)     # round62: a dropout in training mode on the weights
    right = {"weights3": ref.weights3, "weights3_causal": ref.weights3_causal}.get(what)
    if right is not None:
        _name_trace_weights(got.double(), right, what, atol)
        return
    if what == "out3":
        if bool(torch.isfinite(got).all()) and any(torch.allclose(got.double(), h @ ref.V3, rtol=0, atol=atol)
                                                   for h in _hard_argmax_weights()):     # V3's rows the argmax picks
            raise Misconception("hard_attention_argmax", "out3 is wrong: each row is the value of the query's "
                                "highest-scoring key alone: " + describe("hard_attention_argmax"))
    if what == "out3":
        name_out3_rows_renormalised(got, weights3, atol)      # naming round 88: out3 / out3.sum(-1)
    if what != "out3" or type(weights3) is not torch.Tensor or tuple(weights3.shape) != (3, 3):
        return
    w = weights3.detach().double()
    if not (torch.isfinite(got).all() and torch.allclose(got.double(), w @ ref.V3, rtol=0, atol=atol)):
        return
    try:
        name_sorted_softmax_regathered(w, _trace_scores("weights3"), -1, "weights3")
        _name_trace_weights(w, ref.weights3, "weights3", atol)
    except Misconception as m:
        raise Misconception(m.key, f"out3 is wrong: it is weights3 @ V3, and {m}") from None


def _hard_argmax_weights():
    """round38 (blind37): the trace's unmasked weights as hard attention, all the weight on each query's highest
    score (the scale does not move it): one-hot on the first highest (F.one_hot(scores.argmax(-1))), or on every tied
    highest, as 0/1 (scores == max) or shared (row 1 of scores3 has a tie). Only unmasked: the causal trace's hard
    weights are the identity, what a diagonal-only mask gives too."""
    scores = ref.Q3 @ ref.K3.T
    top = (scores == scores.amax(-1, keepdim=True)).double()
    return [torch.nn.functional.one_hot(scores.argmax(-1), scores.shape[-1]).double(), top,
            top / top.sum(-1, keepdim=True)]


def _name_trace_weights(g, right, what, atol):
    """name_trace_mistake's checks of one (3, 3) weight matrix `g` (float64) against the `right` one."""
    mask = ref.causal_mask(3) if right is ref.weights3_causal else torch.ones(3, 3, dtype=torch.bool)
    factors = _row_factors(g, right)
    if factors is not None:
        scores = (ref.Q3 @ ref.K3.T / 2).masked_fill(~mask, float("-inf"))     # round69: the cause, replayed
        raise Misconception("weights_not_normalised", f"{what} is wrong: each row is the right weights times "
                            f"its own factor (the rows sum to between {float(factors.min()):.3g} and "
                            f"{float(factors.max()):.3g}, not 1): " + unnormalised_cause(g, scores))
    if not torch.isfinite(g).all() or (g < -atol).any():
        return
    if bool(mask.all()) and any(torch.allclose(g, h, rtol=0, atol=atol) for h in _hard_argmax_weights()):
        raise Misconception("hard_attention_argmax", f"{what} is wrong: all of each row's weight is on the "
                            "query's highest-scoring key: " + describe("hard_attention_argmax"))
    _name_trace_without_keepdim(g, mask, right, what, atol)
    rows, cols = g.sum(-1), g.sum(-2)
    if bool(((cols - 1).abs() <= 3 * atol).all()) and not bool(((rows - 1).abs() <= 3 * atol).all()):
        raise Misconception("softmax_sum_wrong_axis", f"{what} is wrong: each column sums to 1 and the rows sum "
                            f"to between {float(rows.min()):.3g} and {float(rows.max()):.3g}: the exponentials "
                            "were divided by a sum over the queries (dim 0), not by each row's sum over the keys: "
                            + describe("softmax_sum_wrong_axis"))
    # the weights softmaxed again: the unmasked or the masked ones, masked again or not
    twice = [ref.stable_softmax(w.masked_fill(~m, float("-inf"))) for w in (ref.weights3, right)
             for m in (mask, torch.ones_like(mask))]
    if any(torch.allclose(g, t, rtol=0, atol=atol) for t in twice):
        masked = " (masked)" if not bool(mask.all()) else ""
        said = f"{what} is wrong: it is the softmax of the weights{masked}, not of the scores"
        _name_softmax_overwrote_scores(said)
        raise Misconception("softmax_twice", f"{said}: " + describe("softmax_twice"))
    slip = _score_slip(g, ref.Q3 @ ref.K3.T / 2.0, mask, right, atol)
    if slip is not None:
        i, j, implied, true = slip
        raise Misconception("hand_score_slip", f"{what} is wrong in row {i}: it is the softmax of the right scaled "
                            f"scores except entry ({i}, {j}), where your weights imply {implied:.3g} and "
                            f"q{i} . k{j} / sqrt(d_k) is {true:.3g} (q{i} . k{j} = {2 * true:.3g}): "
                            + describe("hand_score_slip"))


# a square probe whose row maxes (1.2, 2, 1.5, 0.6) are not its column maxes (2, 1.2, 0.9, 1.5), nor its sums
KEEPDIM_PROBE = torch.tensor([[0.3, 1.2, -0.4, 0.1], [2.0, -1.0, 0.5, 0.0], [-0.7, 0.2, 0.9, 1.5],
                              [0.6, -0.3, -1.1, 0.4]], dtype=torch.float64)


def _softmax_reduces_without_keepdim(which):
    """The notebook's stable_softmax (STUDENT_SOFTMAX), called on KEEPDIM_PROBE, gives what taking `which`
    ("max", or "both" the max and the sum) without keepdim gives there, and not the right softmax: where the
    trace's own scores cannot tell a max without keepdim from a max over dim 0, this call can."""
    softmax = STUDENT_SOFTMAX.get()
    if softmax is None:
        return False
    try:
        got = softmax(KEEPDIM_PROBE.clone(), dim=-1)
    except Exception:  # noqa: BLE001 - a crash shows nothing here
        return False
    want = softmax_without_keepdim(KEEPDIM_PROBE, -1, **KEEPDIM[f"reduction_without_keepdim/{which}"])
    return (type(got) is torch.Tensor and want is not None and got.shape == want.shape
            and bool(torch.allclose(got.double(), want, rtol=0, atol=1e-9))
            and not bool(torch.allclose(want, ref.stable_softmax(KEEPDIM_PROBE), rtol=0, atol=1e-6)))


def _name_trace_without_keepdim(g, mask, right, what, atol):
    """naming27: weights that are the softmax of the (masked) scaled scores with a reduction taken without
    keepdim=True: on the (3, 3) trace the reduced (3,) vector broadcasts against the LAST axis, so column j
    meets row j's max or sum (e3 @ torch.diag(1 / e3.sum(1)) is e3 / e3.sum(1) too). Replayed on scores3: the
    max, the sum or both without keepdim, and the unshifted e / e.sum(1); none equals the right weights there."""
    scores = (ref.Q3 @ ref.K3.T / 2.0).masked_fill(~mask, float("-inf"))
    e = scores.exp()
    replays = {k.split("/")[1]: softmax_without_keepdim(scores, -1, **kw) for k, kw in KEEPDIM.items()}
    replays["unshifted sum"] = e / e.sum(-1)
    if torch.equal(scores.amax(0), scores.amax(1)):
        # coincidence: scores3's column maxes equal its row maxes, so a max without keepdim equals a max over
        # dim 0 (softmax_max_wrong_axis) there; a max replay names it only where the notebook's stable_softmax
        # does the same on a probe whose row and column maxes differ (a second call)
        replays = {k: v for k, v in replays.items() if k not in ("max", "both") or _softmax_reduces_without_keepdim(k)}
    for which, w in replays.items():
        if (w is not None and not torch.allclose(w, right, rtol=0, atol=atol)
                and torch.allclose(g, w, rtol=0, atol=atol)):
            part = {"max": "the max", "both": "the max and the sum"}.get(which, "the sum")
            effect = ("row j's max is subtracted from column j, which no longer cancels" if which == "max" else
                      "each COLUMN j is divided by row j's sum (as e @ torch.diag(1 / e.sum(1)) does)")
            raise Misconception("reduction_without_keepdim", f"{what} is wrong: it equals the softmax of the scaled "
                                f"scores with {part} of each row taken without keepdim=True: the (3,) result "
                                f"broadcasts along the last axis, so {effect}: " + describe("reduction_without_keepdim"))


def _name_softmax_overwrote_scores(said):
    """A softmax of the weights where the cell takes the softmax of scores3: the notebook's stable_softmax
    changing its input in place explains it (the earlier stable_softmax(scores3) left the weights in scores3)
    without a second softmax in the cell: inplace_on_input, proven by a call on a copy of the scores."""
    softmax = STUDENT_SOFTMAX.get()
    if softmax is None:
        return
    try:
        call(softmax, (ref.Q3 @ ref.K3.T / 2.0).clone(), what="stable_softmax")
    except Misconception as m:
        if m.key == "inplace_on_input":
            raise Misconception("inplace_on_input", f"{said}, and {m}: the earlier stable_softmax(scores3) left "
                                "the weights in scores3, which this cell then masked and softmaxed again") from None
    except Exception:  # noqa: BLE001 - a softmax that crashes here is its own tests' business
        return


def _score_slip(g, scores, mask, right, atol):
    """(row, key, implied score, true score) when `g` is right in every row but one, and that row is a softmax
    of the true `scores` except at one allowed entry (its other allowed entries, at least two, agree with the
    scores up to the row's shift); else None."""
    bad = [i for i in range(g.shape[0]) if not torch.allclose(g[i], right[i], rtol=0, atol=atol)]
    if len(bad) != 1:
        return None
    i = bad[0]
    keys = [j for j in range(g.shape[1]) if bool(mask[i, j])]
    if len(keys) < 3 or bool((g[i][~mask[i]].abs() > atol).any()) or bool((g[i, keys] <= 0).any()):
        return None
    shift = torch.log(g[i, keys]) - scores[i, keys]         # equal for every entry of a right row
    tol = 0.02                                               # answers typed with four decimals
    off = [k for k in range(len(keys)) if all(abs(float(shift[a] - shift[b])) <= tol
                                               for a in range(len(keys)) for b in range(len(keys))
                                               if a != k and b != k)]
    off = [k for k in off if max(abs(float(shift[k] - shift[a])) for a in range(len(keys)) if a != k) > 5 * tol]
    if len(off) != 1:
        return None
    k = off[0]
    common = float(shift[[a for a in range(len(keys)) if a != k]].mean())
    true = float(scores[i, keys[k]])
    return i, keys[k], true + float(shift[k]) - common, true


def name_not_normalised(got, x, dim, what):
    """Non-negative weights that are the right softmax once each slice is divided by its own sum, while
    some slice does not sum to 1: the division by the sum is missing (whatever was subtracted first)."""
    if type(got) is not torch.Tensor or got.shape != x.shape or not got.dtype.is_floating_point:
        return
    name_online_softmax(got, x, dim, what)      # naming round 86: an online sum's rescale left out or inverted
    g = got.detach().to(torch.float64)
    if not torch.isfinite(g).all() or (g < 0).any():
        return
    sums = g.sum(dim=dim, keepdim=True)
    if (sums <= 0).any() or bool(((sums - 1).abs() < 1e-3).all()):
        return
    if matching_variants(g / sums, {"right": ref.stable_softmax(x, dim)}, x.dtype):
        raise Misconception("weights_not_normalised", f"{what} is wrong: each slice along dim={dim} is the right "
                            "softmax times its own factor (the slices sum to between "
                            f"{float(sums.min()):.3g} and {float(sums.max()):.3g}): "
                            + unnormalised_cause(g.movedim(dim, -1), x.movedim(dim, -1), x.dtype))


# round47: small finite logits (float64, no ties, no -inf) on which a softmax that divides by something other than
# the sum of its exponentials shows its own factor per row
TAME_PROBE = torch.tensor([[0.3, -1.2, 0.8, 0.1, -0.4, 1.1], [-0.7, 0.2, 0.5, -1.5, 0.9, 0.0],
                           [1.3, -0.2, -0.9, 0.4, 0.6, -1.1]], dtype=torch.float64)


def unnormalised_on_tame_logits(fn):
    """(smallest, largest) row sum where fn(TAME_PROBE, dim=-1) is finite, non-negative, the right softmax once each
    row is divided by its own sum, with some row not summing to 1, and no other catalogued softmax of the probe;
    else None (a crash, a right softmax, another mistake)."""
    if fn is None:
        return None
    out = second_call(fn, TAME_PROBE.clone(), dim=-1)
    if type(out) is not torch.Tensor or out.shape != TAME_PROBE.shape or not out.dtype.is_floating_point:
        return None
    g = out.detach().to(torch.float64)
    if not torch.isfinite(g).all() or (g < 0).any():
        return None
    sums = g.sum(dim=-1, keepdim=True)
    if (sums <= 0).any() or bool(((sums - 1).abs() < 1e-3).all()):
        return None
    if not matching_variants(g / sums, {"right": ref.stable_softmax(TAME_PROBE, -1)}, torch.float64):
        return None
    if any(k.split("/")[0] != "weights_not_normalised"
           for k in matching_variants(g, softmax_variants(TAME_PROBE, dim=-1), torch.float64)):
        return None
    return float(sums.min()), float(sums.max())


def name_nonfinite_unnormalised(fn, said):
    """round47 (blind47 q3_log_and_exp_cancelled_across_the_sum): a softmax that gave inf or NaN (`said`) while a
    second call on small finite logits shows weights_not_normalised, the mistake its other tests name: said the
    same here, with the probe's sums (one mistake, one key), never a guess at another cause."""
    sums = unnormalised_on_tame_logits(fn)
    if sums is None:
        return
    raise Misconception("weights_not_normalised", f"{said}; and on small finite logits your stable_softmax gives "
                        f"each row the right softmax times its own factor (the rows sum to between {sums[0]:.3g} and "
                        f"{sums[1]:.3g}, not 1): fix the division by the sum of the exponentials first, then check "
                        "this input again: " + describe("weights_not_normalised"))


def name_nonfinite_softmax_replay(Q, K, V, mask, got, what):
    """q5 (round47): an output with NaN or inf where the notebook's stable_softmax (STUDENT_SOFTMAX), replayed on the
    same scaled, masked scores in float64, gives NaN or inf in every query's row that is non-finite in the output,
    and a second call on small finite logits shows weights_not_normalised (name_nonfinite_unnormalised)."""
    softmax = STUDENT_SOFTMAX.get()
    if softmax is None or type(got) is not torch.Tensor or got.dim() < 2 or torch.isfinite(got).all():
        return
    scores = Q.detach().double() @ K.detach().double().transpose(-2, -1) / math.sqrt(Q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(~torch.broadcast_to(mask.to(torch.bool), scores.shape), float("-inf"))
    w = second_call(softmax, scores.clone(), dim=-1)
    if type(w) is not torch.Tensor or w.shape != scores.shape or got.shape[:-1] != w.shape[:-1]:
        return
    bad_out = ~torch.isfinite(got.detach()).all(dim=-1)
    bad_w = ~torch.isfinite(w.detach()).all(dim=-1)
    if not bool((bad_w[bad_out]).all()):
        return
    name_nonfinite_unnormalised(softmax, f"{what} contains NaN or inf in {int((~torch.isfinite(got)).sum())} "
                                "entries, and your stable_softmax gives NaN or inf on those queries' scaled, masked "
                                "scores")


def assert_softmax(got, x, dim, what, variants, fn=None, submission=None):
    """q3's comparison: a catalogued wrong softmax, then a missing division by the sum, then what differs. `fn`, the
    notebook's softmax, for second calls (a floor on the exponentials, round41); `submission`, for its source
    (naming round 76: a softmax object built once and kept between calls)."""
    try:
        assert_matches(got, ref.stable_softmax(x, dim=dim), what=what, variants=variants)
    except Misconception as named:
        if named.key == "float32_precision":      # a float64 result off by ~1e-8: an epsilon, or float32
            name_floored_replay(fn, got, x, dim, what)
            name_weight_epsilon(got, ref.stable_softmax(x, dim=dim), what)
        if named.key == "softmax_ignores_dim" and dim < 0 and fn is not None:
            name_negative_dim_past(fn, x, dim, what)      # round59: dim used, a negative one converted one too far
        if named.key == "softmax_ignores_dim":
            name_softmax_dim_kept(submission, what)       # naming round 76: built once, its first dim kept
        if named.key in ("fixed_axes", "softmax_wrong_dim", "softmax_over_batch_axis"):
            name_softmax_fixed_axis(fn, got, x, dim, what)    # round62: second calls show one hard-coded axis
        raise
    except AssertionError:
        name_sorted_softmax_regathered(got, x, dim, what)     # naming round 88: the sort permutation applied twice
        if type(got) is torch.Tensor and bool(torch.isnan(got).any()):
            name_max_picked_by_product(fn, f"{what} contains NaN")     # naming round 88: 0 * -inf
        name_softmax_fixed_axis(fn, got, x, dim, what)      # round62: max and sum over a hard-coded axis
        name_not_normalised(got, x, dim, what)
        name_floored_replay(fn, got, x, dim, what)
        name_weight_epsilon(got, ref.stable_softmax(x, dim=dim), what)
        raise


# a 4-D float64 probe with four different sizes: every axis of it tells apart (round59)
NEG_DIM_PROBE = 2.0 * torch.sin(torch.arange(2 * 3 * 4 * 5, dtype=torch.float64) * 1.7).reshape(2, 3, 4, 5)


def _softmax_is(got, expected) -> bool:
    return (type(got) is torch.Tensor and got.shape == expected.shape and got.dtype == expected.dtype
            and bool(torch.allclose(got, expected, rtol=1e-6, atol=1e-9)))


def name_negative_dim_past(fn, x, dim, what):
    """round59 (blind59 q3_negative_dim_index_error_patched_by_clipping_to_the_last_axis): a softmax along the last
    axis for a negative dim that is not -1 (softmax_ignores_dim's reading) from a softmax that does use dim: second
    calls on NEG_DIM_PROBE (4-D) give the right softmax for dim=1 and dim=2, and for dim=-3 and dim=-4 the softmax
    along axis x.dim() + dim + 1 (2 and 1: neither the last axis nor the one asked), one axis past the one meant (a
    clip or wrap having hidden the error of dim=-1): negative_dim_off_by_one, the direction said."""
    p = NEG_DIM_PROBE
    n = p.dim()
    for d in (1, 2):
        if not _softmax_is(second_call(fn, p.clone(), dim=d), ref.stable_softmax(p, dim=d)):
            return
    for d in (-3, -4):
        if not _softmax_is(second_call(fn, p.clone(), dim=d), ref.stable_softmax(p, dim=d + n + 1)):
            return
    axis = min(x.dim() + dim + 1, x.dim() - 1)
    raise Misconception("negative_dim_off_by_one", f"{what} is the softmax along axis {axis}, yet the dim argument "
                        "is used: on a 4-D input dim=1 and dim=2 are right, but dim=-3 gives the softmax along axis 2 "
                        "and dim=-4 along axis 1, one axis past the one asked (x.dim() + dim + 1 where x.dim() + dim "
                        "is meant): " + describe("negative_dim_off_by_one"))


def _mask_right(fn, T_q, T_k=None) -> bool:
    """fn(T_q[, T_k]) is the causal mask (any 0/1 dtype); a crash or a wrong answer is False."""
    try:
        got = fn(T_q) if T_k is None else fn(T_q, T_k)
    except Exception:  # noqa: BLE001 - a crash is "not right" here
        return False
    expected = ref.causal_mask(T_q, T_k)
    return (isinstance(got, torch.Tensor) and tuple(got.shape) == tuple(expected.shape)
            and bool(((got != 0) == expected).all()))


def _mask_is(t, args) -> bool:
    """t is causal_mask(*args) (any 0/1 dtype)."""
    expected = ref.causal_mask(*args)
    return (isinstance(t, torch.Tensor) and tuple(t.shape) == tuple(expected.shape)
            and bool(((t != 0) == expected).all()))


def name_stale_mask(fn, said) -> None:
    """A mask that depends on an earlier call (a cache keyed by one length, nanoGPT's buffer built once):
    causal_mask(a, b) is right, a call with the other length changed right after returns that same mask,
    while the changed call is right for a length never asked before. Both orders: a cache keyed by T_q (T_k
    changed) or by T_k (T_q changed). Lengths no test asks (37, 41, 43, 47); a fixed-size buffer or a square
    mask is wrong on the first call already, so it is never named here."""
    for first, second, fresh in (((37, 5), (37, 13), (43, 13)), ((41, 7), (47, 7), (47, 15))):
        try:
            a, b, c = fn(*first), fn(*second), fn(*fresh)
        except Exception:  # noqa: BLE001 - no evidence from a crash
            continue
        if (_mask_is(a, first) and _mask_is(c, fresh) and not _mask_is(b, second)
                and isinstance(b, torch.Tensor) and b.shape == a.shape and bool((b == a).all())):
            raise Misconception("nondeterministic", f"{said}; causal_mask{first} is right, but causal_mask{second} "
                                f"called right after it returns that same {tuple(a.shape)} mask, while "
                                f"causal_mask{fresh}, asked first, is right: the result depends on an earlier call "
                                "(a cache keyed by one length): " + describe("nondeterministic"))


def name_fixed_size_mask(fn, T_q, T_k, what) -> None:
    """A mask right up to some size N and wrong (or crashing) beyond, square and rectangular alike:
    cut from a fixed N x N buffer (nanoGPT's tril(ones(block_size, block_size))[:T_q, :T_k]). Found by
    a search over square sizes, then confirmed: right at N, wrong at N + 1 and at a rectangular size
    inside N. Called only after causal_mask(T_q, T_k) failed at a length above the other tests'."""
    hi = max(T_q, T_k if T_k is not None else T_q)
    if not all(_mask_right(fn, n) for n in (1, 2, 3, 8)) or _mask_right(fn, hi):
        return
    lo = 8                                   # right at lo, wrong at hi: the boundary lies between
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if _mask_right(fn, mid) else (lo, mid)
    if _mask_right(fn, lo, max(1, lo - 2)) and _mask_right(fn, max(1, lo - 2), lo) and not _mask_right(fn, lo + 1):
        raise Misconception("fixed_size_mask", f"{what} is wrong, yet causal_mask(n) is right for every n up to "
                            f"{lo} and wrong from {lo + 1}: " + describe("fixed_size_mask"))


def mask_as_numbers(t, expected):
    """How a mask of numbers of `expected`'s shape spells the right causal pattern in numbers, or None: "0/1"
    (nonzero where a query may attend, torch.ones(...).tril()), or "additive" (0 where it may attend and one
    fill that blocks a softmax where it may not: -inf or a large negative number, the 0/-inf matrix added
    to the scores). The inverted 0/1 form (1 where blocked) is neither: it names nothing here."""
    if type(t) is not torch.Tensor or t.dtype == torch.bool or tuple(t.shape) != tuple(expected.shape):
        return None
    if bool(((t != 0) == expected).all()):
        return "0/1"
    blocked = t[~expected]
    if (t.dtype.is_floating_point and bool(((t == 0) == expected).all()) and blocked.numel() > 0
            and bool((blocked == blocked[0]).all()) and float(blocked[0]) < -50):   # exp(-50) ~ 2e-22: it blocks
        return "additive"
    return None


# the notebook's fixed signatures: a TypeError naming one of these parameters as unexpected is a renamed one
ASKED_SIGNATURES = {"stable_softmax": ("x", "dim=-1"), "causal_mask": ("T_q", "T_k=None"),
                    "scaled_dot_product_attention": ("Q", "K", "V", "mask=None")}
_UNEXPECTED = re.compile(r"(\w+)\(\) got an unexpected keyword argument '(\w+)'")


def raise_if_parameter_renamed(e, said) -> None:
    """A crash whose own words are "f() got an unexpected keyword argument 'X'", f one of the notebook's
    functions and X a parameter its fixed signature has: f was defined with X under another name."""
    found = _UNEXPECTED.search(str(e))
    if found is None or found.group(1) not in ASKED_SIGNATURES:
        return
    fn, param = found.groups()
    asked = ASKED_SIGNATURES[fn]
    if param not in [a.split("=")[0] for a in asked]:
        return
    raise Misconception("parameter_renamed", f"{said}: {fn} has no parameter named {param}, and the notebook "
                        f"asks for {fn}({', '.join(asked)}): " + describe("parameter_renamed"))


def names_renamed_parameters(test):
    """Under @test_case (its test_func): a failure whose words show a renamed parameter of the notebook's
    signatures (raise_if_parameter_renamed) is named parameter_renamed; any other failure is left as it is."""
    @functools.wraps(test)
    def wrapped(*args, **kwargs):
        try:
            return test(*args, **kwargs)
        except Misconception:
            raise
        except (StudentCodeError, AssertionError) as e:
            raise_if_parameter_renamed(e, str(e).split("\n")[0])
            raise
    return wrapped


def name_renamed_parameters_in(namespace: dict) -> None:
    """Every @test_case of a hidden file's `namespace` (its globals()) under names_renamed_parameters: called
    once at the end of the file, after its tests are defined."""
    for case in [v for v in list(namespace.values()) if callable(getattr(v, "test_func", None))]:
        case.test_func = names_renamed_parameters(case.test_func)


def name_default_not_filled(fn, n, said) -> None:
    """causal_mask(n) crashed (`said`), yet causal_mask(n, n) with T_k given explicitly is the right mask:
    the None default of T_k is never replaced by T_q (a comparison `T_k == T_q` typed for the assignment,
    or no assignment at all), so the square call reaches arange(None)."""
    try:
        square = fn(n, n)
    except Exception:  # noqa: BLE001 - a crash here says nothing more
        return
    if type(square) is torch.Tensor and square.dtype == torch.bool and tuple(square.shape) == (n, n) \
            and bool((square == ref.causal_mask(n)).all()):
        raise Misconception("default_none_not_replaced", f"{said}, yet causal_mask({n}, {n}) with T_k given "
                            "explicitly is right: " + describe("default_none_not_replaced"))


def name_mask_blocks_nothing(fn, what, submission=None) -> None:
    """causal_mask a bool mask of all True, of the right shape, on square AND rectangular sizes (tril()'s result
    thrown away from torch.ones(T_q, T_k)): q4 names it on each size it tries; q6's weights then equal the
    unmasked ones, one cause (naming21). A square mask of all True whose rectangular call crashes is another
    mistake (query positions not on their own axis, blind32: name_mask_not_outer), so the rectangular calls
    are the evidence too."""
    sizes = ((3, None), (5, None), (3, 5), (5, 3))
    try:
        masks = [fn(n) if k is None else fn(n, k) for n, k in sizes]
    except Exception:  # noqa: BLE001 - a crash here says nothing more
        return
    if all(type(m) is torch.Tensor and m.dtype == torch.bool and tuple(m.shape) == (n, n if k is None else k)
           and bool(m.all()) for m, (n, k) in zip(masks, sizes)):
        # round46: a cause only where the source shows it (blind45's ~ on a uint8 triangle was told of a tril()
        # left unassigned, which its code did not have)
        causes = mask_blocks_nothing_causes(submission)
        why = ("; ".join(causes) + ". ") if causes else ""
        raise Misconception("causal_mask_blocks_nothing", f"{what}: causal_mask(3), causal_mask(5), "
                            "causal_mask(3, 5) and causal_mask(5, 3) are all of the right shape and True "
                            f"everywhere. {why}" + describe("causal_mask_blocks_nothing"))


def name_mask_not_outer(fn, what) -> None:
    """Key and query positions compared without the queries on their own axis: two 1-D aranges (arange(T_k) <=
    arange(T_q)), or both expanded along the rows (arange(T_k).expand(T_q, T_k) <= arange(T_q).expand(T_k, T_q),
    blind32), or both as a row [None, :]: elementwise, so causal_mask(4) pairs each position with itself -- a
    vector (4,), a row, or a (4, 4) matrix, one value everywhere (True for <= or >=, False for < or >) -- and
    causal_mask(3, 5) raises a size mismatch. Both calls must show it."""
    try:
        square = fn(4)
    except Exception:  # noqa: BLE001 - a crash here says nothing more
        return
    if type(square) is not torch.Tensor or tuple(square.shape) not in ((4,), (4, 4), (1, 4), (4, 1)) \
            or bool((square != 0).any() != (square != 0).all()):
        return
    try:
        fn(3, 5)
    except Exception as e:  # noqa: BLE001 - the size mismatch is the proof
        if "must match the size of tensor" not in str(e):
            return
    else:
        return
    value = "True" if bool((square != 0).all()) else "False"
    raise Misconception("mask_not_outer", f"{what}: causal_mask(4) has shape {tuple(square.shape)} and is {value} "
                        "everywhere (each position compared with itself), and causal_mask(3, 5) raises a size "
                        "mismatch: " + describe("mask_not_outer"))


def name_keys_reshaped_with_query_length(Q, K, e, said, fn=None, plain=()) -> None:
    """round70 (blind70 q5_bmm_rewrite_reshapes_the_keys_with_the_query_length): with T_q != T_k, the crash is the
    one that reshaping (or viewing) K with the query length gives, replayed on zeros of the question's own Q and
    K shapes: K.reshape(-1, T_q, d_k) itself ("shape '[-1, T_q, d_k]' is invalid for input of size ..."), or,
    where that reshape happens to fit, the batched product of Q.reshape(-1, T_q, d_k) with it (bmm or matmul).
    Named before shape_of_an_input's second call, which cutting K to T_q keys also makes right (round70: blind70
    was told the output had V's shape, which its code never gave)."""
    if Q.dim() < 2 or K.dim() < 2 or Q.shape[-2] == K.shape[-2] or Q.shape[-1] != K.shape[-1]:
        return
    t_q, d_k = Q.shape[-2], Q.shape[-1]
    q, k = torch.zeros(Q.shape), torch.zeros(K.shape)
    lead = max(1, q.numel() // max(1, t_q * d_k))      # Q's leading entries: K.reshape(B, T_q, d_k)
    replays = {"keys/reshape": lambda: k.reshape(-1, t_q, d_k), "keys/view": lambda: k.view(-1, t_q, d_k),
               "keys/lead": lambda: k.reshape(lead, t_q, d_k),
               "keys/kept": lambda: k.reshape(*K.shape[:-2], t_q, d_k),
               "keys/kept_last": lambda: k.reshape(*K.shape[:-2], t_q, -1),
               "keys/bmm": lambda: torch.bmm(q.reshape(-1, t_q, d_k), k.reshape(-1, t_q, d_k).transpose(1, 2)),
               "keys/matmul": lambda: q.reshape(-1, t_q, d_k) @ k.reshape(-1, t_q, d_k).transpose(-2, -1)}
    if crash_replayed(f"{e.exc_type}: {e.message}", replays) is None or not _keys_not_values(fn, plain, replays):
        return
    raise Misconception("keys_reshaped_with_query_length", f"{said}: with T_q = {t_q} queries and T_k = "
                        f"{K.shape[-2]} keys, this is the crash of K (shape {tuple(K.shape)}) reshaped with the query "
                        f"length, K.reshape(-1, {t_q}, {d_k}), or of the batched product with it: "
                        + describe("keys_reshaped_with_query_length"))


def _keys_not_values(fn, plain, replays) -> bool:
    """Whether K's reshape is the crash where V, as many entries as K, reshaped with the query length would raise
    the same words (d_v = d_k: `V.view(-1, L, d_v)` gives "shape '[-1, T_q, d_k]' is invalid for input of size"
    K's size too): a second call with V one column wider must still raise K's crash (K and Q unchanged), and a V
    of another size than K's says nothing of the kind. Red-team round 132: a bmm rewrite that viewed V with the
    query length (K right) was told that K was reshaped with it."""
    if len(plain) != 4 or plain[2] is None or plain[2].dim() < 2 or plain[2].numel() != plain[1].numel():
        return True
    Q, K, V, mask = plain
    if fn is None:
        return False
    wide = torch.cat([V, torch.zeros(*V.shape[:-1], 1, dtype=V.dtype, device=V.device)], dim=-1)
    try:
        fn(Q, K, wide, mask=mask)
    except StudentCodeError as again:
        return crash_replayed(f"{again.exc_type}: {again.message}", replays) is not None
    return False


def name_output_given_input_shape(fn, Q, K, V, mask, said):
    """A .view/.reshape that cannot hold the output, named only from a second call: with d_v = d_k (V cut
    or tiled to K's width) the same call runs and is right, so the output was given Q's shape; with as many
    keys as queries (K, V and the mask cut or tiled to T_q keys) it is right, so it was given V's shape."""
    d_k, d_v, t_q, t_k = Q.shape[-1], V.shape[-1], Q.shape[-2], K.shape[-2]
    if d_v != d_k:
        V2 = V.repeat(*([1] * (V.dim() - 1)), -(-d_k // d_v))[..., :d_k].contiguous()
        if right(second_call(fn, Q, K, V2, mask=mask), Q, K, V2, mask):
            raise Misconception("shape_of_an_input", f"{said}; with d_v = d_k ({d_k}) the same call runs and is "
                                f"right: the output was given {'Q' if t_q != t_k else 'Q (= K)'}'s shape (..., T_q, d_k) where it is "
                                "(..., T_q, d_v): "
                                + describe("shape_of_an_input"))
    if t_k != t_q:
        def fit(t, axis):       # t cut or tiled to t_q entries along `axis`
            reps = [1] * t.dim()
            reps[axis] = -(-t_q // t.shape[axis])
            return t.repeat(*reps).narrow(axis, 0, t_q).contiguous()

        K2, V2 = fit(K, K.dim() - 2), fit(V, V.dim() - 2)
        m2 = None if mask is None or mask.shape[-1] == 1 else fit(mask, mask.dim() - 1)
        if m2 is not None and not bool(m2.any(-1).all()):
            return
        if right(second_call(fn, Q, K2, V2, mask=m2), Q, K2, V2, m2):
            raise Misconception("shape_of_an_input", f"{said}; with as many keys as queries ({t_q}, K and V cut "
                                "or tiled) the same call runs and is right: the output was given V's shape "
                                "(..., T_k, d_v) where it is (..., T_q, d_v): " + describe("shape_of_an_input"))


# --- naming29: a cell's product crash replayed on the question's own shapes --------------------------------

def name_scores_crash(missing, crash, Q_shape, K_shape):
    """`missing` is undefined because its cell stopped on a product of the scores: the same crash, words and
    sizes, comes from Q @ K (K not transposed) or from Q @ K.T on batched keys (.T reverses every axis), written
    out on zeros of the question's own Q and K shapes (crash_words.crash_replayed): that slip is named."""
    Q, K = torch.zeros(Q_shape), torch.zeros(K_shape)
    replays = {"keys_not_transposed": lambda: Q @ K}
    if K.dim() > 2:
        replays["fixed_axes"] = lambda: Q @ K.T
    key = crash_replayed(crash, replays)
    if key is None:
        return
    how = ("Q @ K, with K's rows where its transpose is needed: the scores are Q @ K.transpose(-2, -1)"
           if key == "keys_not_transposed" else
           f"Q @ K.T on {K.dim()}-D keys: .T reverses every axis ({tuple(K_shape)} -> {tuple(K_shape[::-1])}), not "
           "the last two; use K.transpose(-2, -1)")
    raise Misconception(key, f"`{missing}` is not defined: its cell stopped with {crash.split(' (line ')[0].rstrip('.')}, the "
                        f"crash that {how} gives on Q {tuple(Q_shape)} and K {tuple(K_shape)}: " + describe(key))



def name_variance_crash(missing, crash):
    """A q2 answer undefined because its cell stopped on `.var(d).item()` of Lesson 80's (2, 5, 5) scores: a
    variance per slice along axis d (.var(1) is dim=1, not NumPy's ddof=1), several numbers where .item() needs
    one. Named when that replay raises the same words and sizes ("a Tensor with 10 elements": d = 1 or 2; 25:
    d = 0). float(...) says no size ("only one element tensors"), as float(scores) would: not named. Not removable:
    .std(d), .mean(d) or .sum(d) then .item() raise the same words; the answer asked is a variance."""
    S = ref._Qb @ ref._Kb.transpose(-2, -1)
    key = crash_replayed(crash, {f"mean_of_slice_variances/{d}": (lambda d=d: S.var(d).item())
                                 for d in range(S.dim())})
    if key is None:
        return
    raise Misconception(key, f"`{missing}` is not defined: its cell stopped with {crash.split(' (line ')[0].rstrip('.')}, "
                        f"the crash that scores.var(d).item() gives on the example's {tuple(S.shape)} scores: .var(1) "
                        "is the variance along dim 1 (one per slice), not ddof=1 (torch's .var() is already the "
                        "unbiased one): " + describe(key))


def _fitted_epsilon(got, expected, along):
    """The constant c with got == expected + c * along (along: 1 for weights, the values' sum over the keys for an
    output), fitted on this input, or None: c must be tiny and not 0, and expected + c * along, rounded to got's
    dtype, must give got back (a replay on the same input), while differing from expected somewhere."""
    if (type(got) is not torch.Tensor or got.shape != expected.shape or got.dtype != expected.dtype
            or got.dtype not in (torch.float32, torch.float64) or not torch.isfinite(got).all()
            or not torch.isfinite(expected).all()):
        return None
    g, e = got.detach().to(torch.float64), expected.detach().to(torch.float64)
    a = torch.broadcast_to(along.detach().to(torch.float64), e.shape)
    if float((a * a).sum()) == 0.0:
        return None
    zero = (e == 0) & (a != 0)                       # blocked weights: there got is c itself, unrounded
    c = float((g[zero] / a[zero]).mean()) if zero.any() else float(((g - e) * a).sum() / (a * a).sum())
    if c == 0.0 or abs(c) > 1e-4:
        return None
    replay = (e + c * a).to(got.dtype)
    if bool((replay == expected).all()):
        return None                                  # the constant vanishes in this dtype: nothing to prove
    tol = (1e-12 if got.dtype == torch.float64 else 1e-6) * float(e.abs().max()) + 1e-3 * abs(c)
    if float((replay.to(torch.float64) - g).abs().max()) > tol:
        return None
    return c


def name_weight_epsilon(got, expected, what, values=None):
    """Every softmax weight with the same small constant c added (p / s + eps: the epsilon outside the fraction),
    proven by replay: the right weights plus c (q3), or the right output plus c times the values' sum over the
    keys (q5, since (W + c) @ V = W @ V + c * V.sum(keys)), give the student's result on the same input. A
    float32 step, an epsilon in the denominator (a factor per row) or a wrong scale fit no single c."""
    along = torch.ones(()) if values is None else values.sum(dim=-2, keepdim=True)
    c = _fitted_epsilon(got, expected, along)
    if c is None:
        return
    how = ("the right weights with {c:.3g} added to every one (a -inf entry gets {c:.3g}, not 0)" if values is None
           else "the right output plus {c:.3g} times the sum of the values over all keys, masked ones too: every "
           "weight has {c:.3g} added")
    raise Misconception("epsilon_added_to_weights", f"{what} is wrong: it is {how.format(c=c)}: "
                        + describe("epsilon_added_to_weights"))


# round41 (blind40): a floor on the exponentials inside the fraction (exp(x - max).clamp(min=eps), or exp + eps)
# gives each -inf entry eps / its row's sum, and the rows still sum to 1; epsilon_added_to_weights (eps outside the
# fraction) gives every blocked entry the same eps and rows of 1 + n eps. In float32 a 1e-12 floor is below what
# a replay can tell; a float64 probe whose rows differ in their maxes, their sums of exponentials and their
# numbers of -inf entries tells them apart (and from -inf turned into a finite logit, which gives exp(-max) per row)
INF = float("-inf")
FLOOR_PROBE = torch.tensor([[2.0, 1.0, INF, INF, 0.5, INF], [-1.0, INF, -1.0, -1.0, INF, -1.0],
                            [5.0, INF, 3.0, 4.0, 5.0, 2.0], [0.0, INF, INF, INF, INF, INF]], dtype=torch.float64)


def floored_softmaxes(x, c, dim=-1):
    """The softmax with its exponentials floored at c (clamp), and with c added to each (both inside the fraction)."""
    e = torch.exp(x - x.amax(dim=dim, keepdim=True))
    out = {}
    for how, f in (("clamp", e.clamp(min=c)), ("added", e + c)):
        out[how] = f / f.sum(dim=dim, keepdim=True)
    return out


def floored_exponentials(out, x=FLOOR_PROBE):
    """(c, how) when `out` (a float64 softmax of x, a probe with -inf entries) is the softmax with its
    exponentials floored at c (or c added to each) before the division, proven by replay on x; else None. Each row
    with -inf entries gives its own fit of c (a blocked weight b is c / (F + k c), F the row's sum of exponentials,
    k its -inf entries for a clamp, all its entries for an added c): they must agree, and the replay must match."""
    if type(out) is not torch.Tensor or out.dtype != torch.float64 or out.shape != x.shape:
        return None
    g = out.detach()
    blocked = torch.isinf(x)
    if not torch.isfinite(g).all() or not bool((g[blocked] > 0).all()):
        return None
    if float((g.sum(dim=-1) - 1).abs().max()) > 1e-12:       # the rows of a floor inside the fraction sum to 1
        return None
    finite = torch.exp(x - x.amax(dim=-1, keepdim=True)).sum(dim=-1)
    rows = [r for r in range(x.shape[0]) if bool(blocked[r].any())]
    for how, counted in (("clamp", blocked.sum(dim=-1)), ("added", torch.full((x.shape[0],), x.shape[-1]))):
        fits = []
        for r in rows:
            b = float(g[r][blocked[r]][0])
            fits.append(b * float(finite[r]) / (1 - int(counted[r]) * b))
        c = fits[0]
        if not 0 < c <= 1e-3 or any(abs(f - c) > 1e-6 * c for f in fits):
            continue
        if torch.allclose(g, floored_softmaxes(x, c)[how], rtol=1e-8, atol=0):
            return c, how
    return None


def _floor_of(softmax):
    """(c, how) of the notebook's softmax on FLOOR_PROBE (a second call), or None."""
    if softmax is None:
        return None
    try:
        return floored_exponentials(softmax(FLOOR_PROBE.clone(), dim=-1))
    except Exception:  # noqa: BLE001 - a crash shows nothing here
        return None


def _say_floor(what, c):
    return (f"{what} is wrong: a float64 probe with -inf entries shows why: its rows still sum to 1 and each -inf "
            f"entry gets {c:.3g} divided by its row's sum of exponentials, not 0: it matches "
            + describe("exponentials_floored"))


def name_exponentials_floored(fn, what):
    """A softmax that gives -inf entries a small weight: FLOOR_PROBE's second call shows a floor on the exponentials
    (clamp(min=eps), or + eps, before the division), where the rows still sum to 1."""
    fit = _floor_of(fn)
    if fit is not None:
        raise Misconception("exponentials_floored", _say_floor(what, fit[0]))
    name_weights_clamped(fn, what)      # round70: probs.clamp_min(eps) after the division


def name_weights_clamped(fn, what):
    """round70 (blind70 q3_probabilities_clamped_to_a_minimum_epsilon_so_a_later_log_never_sees_zero): FLOOR_PROBE's
    second call (float64) gives every -inf entry the same small c and leaves every weight above c exactly as the
    right softmax has it: the weights clamped to at least c after the division (probs.clamp_min(c), torch.clamp,
    torch.maximum), replayed on the probe; c added to every weight (epsilon_added_to_weights) moves the others by
    c too, which float64 shows, and is left to name_weight_epsilon."""
    out = second_call(fn, FLOOR_PROBE.clone(), dim=-1)
    if type(out) is not torch.Tensor or out.dtype != torch.float64 or out.shape != FLOOR_PROBE.shape:
        return
    g, e = out.detach(), ref.stable_softmax(FLOOR_PROBE, dim=-1)
    blocked = torch.isinf(FLOOR_PROBE)
    if not bool(torch.isfinite(g).all()) or not bool((g[blocked] > 0).all()):
        return
    c = float(g[blocked][0])
    if not 0 < c <= 1e-4 or bool((e[~blocked] <= c).any()):
        return
    replay, added = e.clamp_min(c), e + c
    if (float((g - replay).abs().max()) > 1e-15 or float((g - added).abs().max()) <= 1e-15
            or float((replay - e).abs().max()) == 0.0):
        return
    raise Misconception("weights_clamped_to_epsilon", f"{what} is wrong: a float64 probe with -inf entries shows "
                        f"why: every -inf entry gets weight {c:.3g}, not 0, while every other weight is exactly the "
                        f"softmax's (not moved by {c:.3g}): the weights clamped to at least {c:.3g} after the "
                        "division: " + describe("weights_clamped_to_epsilon"))


def name_floored_replay(fn, got, x, dim, what):
    """q3 on logits without -inf: an added floor (exp + eps inside the fraction) moves every weight a little; named
    where FLOOR_PROBE shows the floor and the same floor replayed on x gives `got`."""
    fit = _floor_of(fn)
    if fit is None or type(got) is not torch.Tensor or got.shape != x.shape or got.dtype != x.dtype:
        return
    replay = floored_softmaxes(x.double(), fit[0], dim)[fit[1]].to(x.dtype)
    if (not matching_variants(replay, {"right": ref.stable_softmax(x, dim=dim)}, x.dtype)
            and matching_variants(got, {"floor": replay}, x.dtype)):
        raise Misconception("exponentials_floored", _say_floor(what, fit[0]))


def name_floored_sdpa(Q, K, V, mask, got, expected, what):
    """q5: an output that equals, on the same input, attention whose softmax floors the exponentials at the c the
    notebook's own stable_softmax (STUDENT_SOFTMAX) shows on FLOOR_PROBE, rows of fully masked queries zeroed (a
    float64 output off by ~1e-6 reads as float32_precision otherwise)."""
    fit = _floor_of(STUDENT_SOFTMAX.get())
    if (fit is None or type(got) is not torch.Tensor or got.shape != expected.shape
            or got.dtype != expected.dtype or not got.dtype.is_floating_point):
        return
    scores = Q.double() @ K.double().transpose(-2, -1) / math.sqrt(Q.size(-1))
    live = torch.ones(scores.shape[:-1] + (1,), dtype=torch.bool)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
        live = torch.broadcast_to(mask.any(dim=-1, keepdim=True), live.shape)
    w = torch.where(live, floored_softmaxes(scores, fit[0])[fit[1]], 0.0)
    replay = (w @ V.double()).to(got.dtype)
    if (not matching_variants(replay, {"right": expected}, got.dtype)
            and matching_variants(got, {"floor": replay}, got.dtype)):
        raise Misconception("exponentials_floored", f"{what} is wrong: it equals attention whose softmax keeps each "
                            f"exponential above {fit[0]:.3g}, as your stable_softmax does (a float64 probe: its rows "
                            f"sum to 1 and each -inf entry gets {fit[0]:.3g} divided by its row's sum of exponentials): "
                            "it matches " + describe("exponentials_floored"))


def rows_sum_to_one(fn):
    """Whether FLOOR_PROBE's second call gives rows that sum to 1 in float64 with some -inf entry weighted: then no
    constant was added to the weights after the division (epsilon_added_to_weights would make them 1 + n eps)."""
    out = second_call(fn, FLOOR_PROBE.clone(), dim=-1)
    if type(out) is not torch.Tensor or out.dtype != torch.float64 or out.shape != FLOOR_PROBE.shape:
        return False
    g = out.detach()
    return (bool(torch.isfinite(g).all()) and bool((g[torch.isinf(FLOOR_PROBE)] != 0).any())
            and float((g.sum(dim=-1) - 1).abs().max()) <= 1e-14)


# --- q6: a cell that stopped before out3 or weights3_causal (moved from q6.py, naming29) -------------------

def trace_stale_scale(which):
    """q6 (naming30): the trace's answer `which` ("weights3", "out3", "weights3_causal") with the scores divided
    by sqrt(8), the notebook's global d_k = 8 of Question 2's example, where the trace's own d_k is 4 (a kind: a
    fixed width, written as a number or a stale global: scale_constant). Built only for a wrong answer; on the
    trace no other catalogued divisor is sqrt(8) (sqrt(T) = sqrt(3), sqrt(d_v) = sqrt(2), d_k ** 1/2 = 2, 2 d_k
    = 8; sqrt(d_k d_v) = sqrt(8) too, listed nowhere: a coincidence the trace's tensors cannot remove)."""
    s = ref.Q3 @ ref.K3.T / math.sqrt(8)
    if which == "weights3_causal":
        s = s.masked_fill(~ref.causal_mask(3), float("-inf"))
    w = ref.stable_softmax(s)
    return {"scale_constant/global_d_k": w @ ref.V3 if which == "out3" else w, **trace_features_cut(which)}


# what the trace's answer matching a key means there, said before the key's text (q6's _compare)
TRACE_SAID = {"scale_constant": "the scores divided by sqrt(8), the notebook's global d_k = 8 of Question 2's "
                                "example, where this trace's d_k is 4 (divide by math.sqrt(Q3.shape[-1]) = 2): ",
              "softmax_of_negated": "the softmax of the negated scores (F.softmin, or exp(-s) normalised), which "
                                    "puts the most weight on the least similar key; use softmax(scores): ",
              "causal_mask_not_equal": "the softmax under a mask that blocks only the diagonal (True where j != i): ",
              "dot_product_features_cut_short": "the softmax of scores summed over the first 3 of the d_k = 4 "
                                                "features alone (the last feature left out of every dot product): "}


def _raise_if_trace_product(missing, crash, resolve=None):
    """out3's cell stopped on the product of the weights and the values, and the same crash, words and sizes,
    comes from one slip written out on the trace's own tensors (crash_words.crash_replayed): V3 @ weights3 (the
    values put first, channel-first style; V3 @ weights3.T stops the same way) or weights3 * V3 (an
    elementwise product, which keeps one axis per key)."""
    if missing not in ("out3", "weights3_causal"):
        return
    W, V = ref.weights3, ref.V3
    batched = ref._batched_example()[2]      # Question 2's V, (2, 5, 8); its Q and K raise the same words
    key = crash_replayed(crash, {"weights_transposed": lambda: V @ W, "output_keeps_key_axis/wv": lambda: W * V,
                                 "output_keeps_key_axis/vw": lambda: V * W,
                                 "trace_uses_batched_example": lambda: W.float() @ batched,
                                 # round58: Q3.T @ K3, a (4, 4) feature matrix, then its softmax @ V3
                                 "scores_column_convention": lambda: torch.softmax(ref.Q3.T @ ref.K3, -1) @ V})
    if key is None:
        return
    if key == "scores_column_convention":     # any (4, 4) weights crash so: the cell's weights3 must be Q3.T @ K3's
        try:
            name_features_by_features(torch.as_tensor(resolve("weights3"), dtype=torch.float64), "weights3", 5e-4)
        except Misconception:
            pass
        except Exception:  # noqa: BLE001 - no weights3 to read: nothing shown
            return
        else:
            return
    how = ({"weights_transposed": "V3 @ weights3: the values were put first; out3 is weights3 @ V3, a (3, 3) @ "
                                  "(3, 2) product whose row i mixes the values with query i's weights",
            "output_keeps_key_axis": "weights3 * V3 (or V3 * weights3): an elementwise product of a (3, 3) and a (3, 2) "
                                     "matrix; out3 is "
                                     "the matrix product weights3 @ V3, which sums each weight times its value row "
                                     "over the keys",
            "trace_uses_batched_example": "weights3 @ a (2, 5, 8) tensor: Question 2's batched V (or its Q or K, "
                                          "the same shape and the same crash) where this trace's V3, (3, 2), "
                                          "goes; out3 is weights3 @ V3",
            "scores_column_convention": "the softmax of Q3.T @ K3, a (4, 4) matrix of feature products (d_k x d_k), "
                                        "times V3, (3, 2)"})[key]
    raise Misconception(key, f"{missing} is not defined: its cell stopped with {crash.split(' (line ')[0]}, the crash "
                        f"of {how}. " + describe(key))


def name_mask_size_off_by_one(t, expected, what):
    """mask_size_off_by_one (blind31): the causal pattern one row and one column short (arange(T - 1)) or long
    (arange(T + 1)): the right mask of the sizes each one off, the positions counted from 1 or up to T."""
    for step, said in ((-1, "short"), (1, "too long")):
        n_q, n_k = (s + step for s in expected.shape[-2:])
        if (t.dim() == 2 and tuple(t.shape) == (n_q, n_k) and min(n_q, n_k) > 0
                and bool(((t != 0) == ref.causal_mask(n_q, n_k)).all())):
            raise Misconception("mask_size_off_by_one", f"{what} has shape {tuple(t.shape)}, expected "
                                f"{tuple(expected.shape)}: the causal pattern one row and one column {said}: "
                                + describe("mask_size_off_by_one"))


def trace_cell_crashed(missing, resolve, crash=""):
    """out3 or weights3_causal undefined because their cell crashed on a mistake one of the notebook's
    functions shows, checked on a call of its own: a causal_mask of 0/1 numbers (uint8, float) with the
    right pattern (~mask or masked_fill fail; q4 names it), or a stable_softmax whose float64 result comes
    back in another dtype (weights3 @ V3 then mixes dtypes; q3 names it). Any of the three (weights3 too):
    stable_softmax of scores3 crashes in words that show a (values, indices) pair used as a tensor. out3 and
    weights3_causal: the cell's own crash, replayed on the trace's tensors (_raise_if_trace_product). q6's
    on_missing hook."""
    if missing not in ("weights3", "out3", "weights3_causal"):
        return
    softmax, mask_fn = resolve("stable_softmax"), resolve("causal_mask")
    if missing == "weights3_causal" and mask_fn is not None:
        # a mask of another size crashes the cell in the same words as an elementwise product (blind31's
        # arange(T - 1)): the mask's size is the cause, and q4's tests say it
        try:
            mask3 = mask_fn(3)
        except Exception:  # noqa: BLE001 - a crash of the mask: below
            mask3 = None
        if type(mask3) is torch.Tensor and mask3.dim() == 2 and tuple(mask3.shape) != (3, 3):
            name_mask_size_off_by_one(mask3, ref.causal_mask(3), f"{missing} is not defined: its cell stopped, "
                                      "and causal_mask(3)")
            raise AssertionError(f"{missing} is not defined: its cell stopped, and causal_mask(3) has shape "
                                 f"{tuple(mask3.shape)}, expected (3, 3) (Question 4's tests say what is wrong)")
    _raise_if_trace_product(missing, crash, resolve)
    try:
        probe = softmax(ref.Q3 @ ref.K3.T / 2.0, dim=-1) if softmax is not None else None
    except StudentCodeError as e:     # the cell's own call, on the cell's own scores
        raise_if_parameter_renamed(e, f"{missing} is not defined: its cell stopped, and stable_softmax("
                                        f"scores3, dim=-1) raises {e.exc_type}: {e.message}")
        name_tuple_as_tensor(e, f"{missing} is not defined: its cell stopped, and stable_softmax(scores3, "
                                  f"dim=-1) raises {e.exc_type}: {e.message}")
        return
    except Exception:  # noqa: BLE001 - a crash here says nothing more
        return
    if missing == "weights3":
        return
    try:
        mask = mask_fn(3) if mask_fn is not None and missing == "weights3_causal" else None
    except StudentCodeError as e:   # q4's test_square charges the same key: one cause
        name_default_not_filled(mask_fn, 3, f"{missing} is not defined: its cell stopped, and causal_mask(3) "
                                     f"raises {e.exc_type}: {e.message}")
        return
    except Exception:  # noqa: BLE001 - a crash here says nothing more
        return
    if mask is not None and type(mask) is not torch.Tensor:   # the right pattern as a list or NumPy array
        try:
            raise_if_other_container(mask, ref.causal_mask(3).double(), "causal_mask(3)")
        except Misconception as named:
            raise Misconception(named.key, f"{missing} is not defined: its cell stopped, and {named}") from None
    form = mask_as_numbers(mask, ref.causal_mask(3))
    if form is not None:     # causal_mask's own mistake (test_square charges it): the same key, one cause
        how = ("has the right pattern" if form == "0/1" else "is the additive form of the right mask (0 where "
               f"allowed, {float(mask[0, 1]):g} where blocked)")
        raise Misconception("mask_not_bool", f"{missing} is not defined: its cell stopped, and causal_mask(3) "
                            f"{how} in dtype {mask.dtype}: " + describe("mask_not_bool"))
    if (type(probe) is torch.Tensor and probe.dtype != torch.float64 and probe.dtype.is_floating_point
            and tuple(probe.shape) == (3, 3) and torch.allclose(probe.double(), ref.weights3, atol=1e-4)):
        raise Misconception("dtype_changed", f"{missing} is not defined: its cell stopped, and stable_softmax of "
                            f"the float64 scores comes back as {probe.dtype}: " + describe("dtype_changed"))


# ---------------------------------------------------------------------------------------------------
# q2: which tensors the scores were taken from, read from the student's source (parsed, never run)
# ---------------------------------------------------------------------------------------------------
_TRANSPOSES = frozenset({"T", "mT", "transpose", "permute", "swapaxes", "swapdims", "t"})


def _root(node):
    """The name a chain of attributes, subscripts and method calls starts from (V in V.transpose(-2, -1))."""
    while isinstance(node, (ast.Attribute, ast.Subscript)) or (isinstance(node, ast.Call)
                                                              and isinstance(node.func, ast.Attribute)):
        node = node.func.value if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def _transposed(node) -> bool:
    """V.T, V.mT, V.transpose(...), V.permute(...), torch.transpose(V, ...): an operand flipped for a product."""
    for n in ast.walk(node):
        if isinstance(n, ast.Attribute) and n.attr in _TRANSPOSES:
            return True
    return False


def _operands(node):
    """The two operands of a product node: a @ b, torch.matmul(a, b), torch.bmm(a, b); else None."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
        return node.left, node.right
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("matmul", "bmm")
            and len(node.args) == 2):
        return node.args[0], node.args[1]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("matmul", "bmm") \
            and len(node.args) == 1:
        return node.func.value, node.args[0]
    return None


def scores_source(submission, answer: str = "raw_score_var") -> str | None:
    """What the student's source shows about the scores behind `answer` when its value is that of another pair
    of the batched example's draws: "values" when a cell that assigns it multiplies by V transposed (Q @ V^T, K
    @ V^T, V @ Q^T: the values where the keys go), "draw_order" when a cell seeds with manual_seed and draws Q, K,
    V by torch.randn in another order, None when the source shows neither (or cannot be read)."""
    from autograder.grading.source_checks import cells_assigning, cells_of
    try:
        cells = cells_of(submission) if submission is not None else []
        trees: list[ast.Module | None] = []
        for cell in cells:
            try:
                trees.append(parse(cell))
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                trees.append(None)
        for index in cells_assigning(cells, answer):
            tree = trees[index] if 0 <= index < len(trees) else None
            for node in ast.walk(tree) if tree is not None else ():
                pair = _operands(node)
                if pair is None:
                    continue
                roots = {_root(side) for side in pair}
                if "V" in roots and roots & {"Q", "K"} and any(_transposed(side) for side in pair):
                    return "values"
        for tree in trees:
            if tree is None or "manual_seed" not in ast.dump(tree):
                continue
            order = []
            for node in ast.walk(tree):
                if isinstance(node, ast.Assign) and "randn" in ast.dump(node.value):
                    for target in node.targets:
                        names = target.elts if isinstance(target, ast.Tuple) else [target]
                        order += [(t.lineno, t.col_offset, t.id) for t in names if isinstance(t, ast.Name)]
            drawn = [name for _, _, name in sorted(order) if name in ("Q", "K", "V")]
            if sorted(drawn) == ["K", "Q", "V"] and drawn != ["Q", "K", "V"]:
                return "draw_order"
    except Exception:  # noqa: BLE001 - an unreadable source proves nothing
        return None
    return None


# --- naming round 36 -----------------------------------------------------------------------------------------

def zero_dim_entries(value, right, what):
    """returns_tensor_not_number where a shape is a tuple (or list) whose entries are 0-d tensors or NumPy
    integer scalars (indexed out of torch.tensor([4, 10, 64]), or a shape tensor) holding the right sizes: the
    values are right, their type is not (blind35). Entries of other sizes name nothing (two mistakes)."""
    if type(value) not in (tuple, list) or len(value) != len(right):
        return
    def as_int(n):
        if type(n) is int:
            return n
        if isinstance(n, torch.Tensor) and n.dim() == 0 and not n.dtype.is_floating_point and n.dtype != torch.bool:
            return int(n)
        if type(n).__module__ == "numpy" and hasattr(n, "item") and isinstance(n.item(), int) \
                and not isinstance(n.item(), bool):
            return n.item()
        return None
    sizes = [as_int(n) for n in value]
    if any(type(n) is not int for n in value) and None not in sizes and tuple(sizes) == tuple(right):
        kinds = sorted({type(n).__name__ if type(n).__module__ == "numpy" else "0-d tensor"
                        for n in value if type(n) is not int})
        raise Misconception("returns_tensor_not_number", f"{what} holds the right sizes {tuple(right)}, but its "
                            f"entries are {' and '.join(kinds)}s, not Python ints: "
                            + describe("returns_tensor_not_number") + " (int(n) for each entry)")


def name_rounded_pair(pairs, alternates, what, submission=None, names=()):
    """rounded_answer where every answer of `pairs` ((got, right) numbers) is right or equals its right value
    rounded to 0, 1 or 2 decimals, and at least one is rounded (blind35: 6.6 and 0.8). Where a catalogued mistake
    (`alternates`: tuples of what it gives for the same answers) rounds to the same numbers too, named only when the
    source shows the rounding (round(...) or .round(...) in what assigns one of `names`), else nothing."""
    def is_round_of(got, value):
        return any(abs(got - round(value, d)) <= 1e-6 * max(1.0, abs(value)) for d in (0, 1, 2))
    rounded = []
    for got, right in pairs:
        if abs(got - right) <= 1e-6 * max(1.0, abs(right)):
            continue
        # (to float32's precision: a tensor rounded by .round(decimals=2) and read back with .item())
        ds = [d for d in (2, 1, 0) if abs(got - round(right, d)) <= 1e-6 * max(1.0, abs(right))]
        if not ds:
            return
        rounded.append((got, right, ds[-1]))
    if not rounded:
        return
    shown = rounds_in_source(submission, names)
    if not shown and any(all(is_round_of(got, a) or abs(got - a) <= 1e-6 for (got, _), a in zip(pairs, alt))
                         for alt in alternates):
        return
    said = "; ".join(f"{g:g} is {r:.6g} rounded to {d} decimal{'s' if d != 1 else ''}" for g, r, d in rounded)
    raise Misconception("rounded_answer", f"{what}: {said}{' (your cell rounds it)' if shown else ''}: "
                        + describe("rounded_answer"))


def rounds_in_source(submission, names) -> bool:
    """A cell of the submission assigns one of `names` a value that goes through round(...), .round(...),
    np.round/around, or float() of a formatted string (float(f"{v:.1f}")). Student text: parsed, never run."""
    from autograder.grading.source_checks import cells_assigning, cells_of
    try:
        cells = cells_of(submission) if submission is not None else []
        for name in names:
            for index in cells_assigning(cells, name):
                try:
                    tree = parse(cells[index])
                except (SyntaxError, ValueError, RecursionError, MemoryError):
                    continue
                for node in ast.walk(tree):
                    if not isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)) or node.value is None:
                        continue
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    if not any(isinstance(n, ast.Name) and n.id == name for t in targets for n in ast.walk(t)):
                        continue
                    for call in ast.walk(node.value):
                        if not isinstance(call, ast.Call):
                            continue
                        f = call.func
                        if (isinstance(f, ast.Name) and f.id == "round") or \
                                (isinstance(f, ast.Attribute) and f.attr in ("round", "around")):
                            return True
                        if isinstance(f, ast.Name) and f.id == "float" and call.args and (
                                isinstance(call.args[0], ast.JoinedStr) or (isinstance(call.args[0], ast.Call)
                                and isinstance(call.args[0].func, ast.Attribute) and call.args[0].func.attr == "format")):
                            return True
    except Exception:  # noqa: BLE001 - an unreadable source shows nothing
        return False
    return False


def softmax_column_reshaped(x, dim, max_col, sum_col):
    """A softmax whose max and/or sum is reshaped into a (-1, 1) column instead of kept with keepdim=True: right
    for a 2-D input and dim=-1 only; None where it does not broadcast."""
    x64 = x.double()
    try:
        m = x64.amax(dim=dim).reshape(-1, 1) if max_col else x64.amax(dim=dim, keepdim=True)
        e = torch.exp(x64 - m)
        return e / (e.sum(dim=dim).reshape(-1, 1) if sum_col else e.sum(dim=dim, keepdim=True))
    except RuntimeError:
        return None


def name_column_reshape(fn, e, what):
    """reduction_reshaped_to_column for a crash of stable_softmax: a second call on a square 2-D input with dim=-1
    is right, one on a 3-D input with dim=-1 crashes (a kept axis put back with unsqueeze(-1) would run there),
    and one on the square input with dim=0 gives what a max or sum reshaped to a (-1, 1) column gives, and not the
    right softmax (blind35: e.sum(dim).reshape(-1, 1))."""
    sq = (torch.arange(25, dtype=torch.float64).reshape(5, 5) * 0.9).sin() * 2
    cube = (torch.arange(24, dtype=torch.float64).reshape(2, 3, 4) * 0.7).cos() * 2
    last = second_call(fn, sq.clone(), dim=-1)
    if type(last) is not torch.Tensor or not matching_variants(last, {"right": ref.stable_softmax(sq, -1)}, sq.dtype):
        return
    try:
        fn(cube.clone(), dim=-1)
        return
    except StudentCodeError:
        pass
    down = second_call(fn, sq.clone(), dim=0)
    if type(down) is not torch.Tensor or matching_variants(down, {"right": ref.stable_softmax(sq, 0)}, sq.dtype):
        return
    wrong = {f"c/{i}": t for i, mc in enumerate(((True, False), (False, True), (True, True)))
             if (t := softmax_column_reshaped(sq, 0, *mc)) is not None}
    if matching_variants(down, wrong, sq.dtype):
        raise Misconception("reduction_reshaped_to_column", f"your code raised {e.exc_type}: {e.message} ({what}); "
                            "on a 2-D input with dim=-1 it is right, on a (2, 3, 4) input with dim=-1 it crashes, and "
                            "on a 2-D input with dim=0 it gives what a reduction reshaped to a (-1, 1) column gives: "
                            + describe("reduction_reshaped_to_column"))


# torch's words for an out= call on a tensor that requires grad ("exp(): functions with out=... arguments don't
# support automatic differentiation, but one of the arguments requires grad")
OUT_WORDS = "functions with out=... arguments don't support automatic differentiation"


def name_out_into_input(fn, plain, e, said):
    """round40 (blind39): the gradient call crashed on an out= write; inplace_on_input where a call without gradients
    shows the write lands in an input: the attention's own inputs (a copy of the call changes Q, K or V), or, where
    the crash is inside stable_softmax, the helper's input (stable_softmax on a copy of a probe changes it: what
    Question 3's tests show). An out= into a new tensor of the function's own is not named here."""
    try:
        call(fn, *[t.clone() for t in plain[:3]], mask=plain[3], what=FN)
    except Misconception as named:
        if named.key == "inplace_on_input":
            raise Misconception("inplace_on_input", f"{FN} writes into its input (out=...): the caller's tensor "
                                "changes after a call without gradients, and with gradients torch refuses it "
                                f"({e.message.split(',')[0][:90]}); compute a new tensor instead") from None
    except (StudentCodeError, AssertionError):
        pass
    frames = re.findall(r'File "In\[\d{1,9}\]", line \d{1,7}, in ([A-Za-z_]\w{0,60})', e.traceback or "")
    softmax = STUDENT_SOFTMAX.get()
    if not frames or frames[-1] != "stable_softmax" or softmax is None:
        return
    cube = (torch.arange(24, dtype=torch.float64).reshape(2, 3, 4) * 0.7).cos() * 2
    try:
        call(softmax, cube.clone(), dim=-1, what="stable_softmax")
    except Misconception as named:
        if named.key == "inplace_on_input":
            raise Misconception("inplace_on_input", "stable_softmax, which the attention calls, writes into its input "
                                "with out=: the caller's scores are overwritten, and with gradients torch refuses it "
                                f"({e.message.split(',')[0][:90]}); compute a new tensor instead (e = torch.exp(x - m), no "
                                "out=x)") from None
    except (StudentCodeError, AssertionError):
        pass


def crash_inside_broken_softmax(e) -> bool:
    """The crash's last notebook frame is in stable_softmax, and the notebook's stable_softmax (STUDENT_SOFTMAX)
    itself crashes on a plain 3-D input with dim=-1: the helper's mistake, not the attention's (blind35: a sum
    reshaped to a column), so the attention's second calls (a 2-D slice runs: fixed_axes) must name nothing."""
    frames = re.findall(r'File "In\[\d{1,9}\]", line \d{1,7}, in ([A-Za-z_]\w{0,60})', e.traceback or "")
    softmax = STUDENT_SOFTMAX.get()
    if not frames or frames[-1] != "stable_softmax" or softmax is None:
        return False
    cube = (torch.arange(24, dtype=torch.float64).reshape(2, 3, 4) * 0.7).cos() * 2
    try:
        out = softmax(cube.clone(), dim=-1)
    except StudentCodeError:
        return True
    return not (type(out) is torch.Tensor
                and matching_variants(out, {"right": ref.stable_softmax(cube, -1)}, cube.dtype))


# lesson 80's worked causal example: "q1 attends to k0 (0.5622) and k1 (0.4378)" (other tensors than Q3, K3)
LESSON_CAUSAL_ROW1 = torch.tensor([0.5622, 0.4378, 0.0], dtype=torch.float64)


def name_lesson_copy(got, right, what, atol):
    """trace_from_lesson_example where the causal weights' row 1 is lesson 80's (0.5622, 0.4378, 0), to the
    four decimals it prints or rounded to two, and every other row is right (blind35)."""
    if tuple(got.shape) != tuple(right.shape) or not torch.isfinite(got).all():
        return
    others = [i for i in range(right.shape[0]) if i != 1]
    if not torch.allclose(got[others], right[others], rtol=0, atol=atol):
        return
    if torch.allclose(got[1], LESSON_CAUSAL_ROW1, rtol=0, atol=5.1e-3) and \
            not torch.allclose(right[1], LESSON_CAUSAL_ROW1, rtol=0, atol=5e-2):
        raise Misconception("trace_from_lesson_example", f"{what} row 1 is {[round(float(v), 4) for v in got[1]]}, "
                            "the numbers of lesson 80's worked causal example, where this notebook's Q3 and K3 give "
                            f"{[round(float(v), 4) for v in right[1]]}: " + describe("trace_from_lesson_example"))


def name_output_transposed(value, right, what, atol):
    """output_column_convention where the trace's output is the (d_v, T) transpose of the right (T, d_v) one:
    V3.T @ weights3.T, (weights3 @ V3).T, the column-vector convention (blind35)."""
    t = value.detach().double() if isinstance(value, torch.Tensor) else None
    if t is None and isinstance(value, (list, tuple)) and len(value) <= 16:
        try:
            t = torch.tensor(value, dtype=torch.float64)
        except (TypeError, ValueError, RuntimeError):
            return
    if t is not None and t.dim() == 2 and t.shape == right.shape and t.shape[0] != t.shape[1] \
            and torch.isfinite(t).all() and torch.allclose(t, right.T.reshape(right.shape), rtol=0, atol=atol):
        # naming round 60: (V3.T @ weights3.T).view(3, 2): the (d_v, T) transpose re-read in memory order
        raise Misconception("output_column_convention", f"{what} has the right shape {tuple(t.shape)} but holds the "
                            f"numbers of the transpose of the right output, read row by row: the {tuple(right.T.shape)} "
                            "column-convention result was laid back with .view/.reshape, which keeps the numbers in "
                            "memory order; a transpose (.T) moves them: " + describe("output_column_convention"))
    if t is None or tuple(t.shape) != tuple(right.T.shape) or t.shape == right.shape or not torch.isfinite(t).all():
        return
    if torch.allclose(t, right.T, rtol=0, atol=atol):
        raise Misconception("output_column_convention", f"{what} has shape {tuple(t.shape)} and equals the "
                            f"transpose of the right {tuple(right.shape)} output: "
                            + describe("output_column_convention"))


def name_zeroed_everything(fn, Q, K, V, mask, got, what):
    """nan_check_zeroes_every_row: with a mask that leaves some query no allowed key, the whole output is 0
    (where the right one is not), and the same call with those queries' rows unmasked is right (blind34:
    `if torch.isnan(weights).any(): weights = zeros_like(weights)`)."""
    if mask is None or type(got) is not torch.Tensor or not got.is_floating_point():
        return
    full = tuple(broadcast_shape(Q.shape[:-2], K.shape[:-2], V.shape[:-2], mask.shape[:-2])) + (Q.shape[-2], K.shape[-2])
    m = mask.expand(full)
    empty = ~m.any(dim=-1, keepdim=True)
    expected = ref.scaled_dot_product_attention(Q, K, V, mask)
    if not bool(empty.any()) or got.shape != expected.shape or bool((got != 0).any()) or bool((expected == 0).all()):
        return
    opened = (m | empty).contiguous()
    if right(second_call(fn, Q, K, V, mask=opened), Q, K, V, opened):
        raise Misconception("nan_check_zeroes_every_row", f"{what} is 0 everywhere, and the same call with the "
                            "queries that have no allowed key given every key is right: "
                            + describe("nan_check_zeroes_every_row"))


# --- q8: the counts, read with their source ---------------------------------------------------------------------

def written_with_caret(submission, name):
    """q8: whether a cell that assigns `name` has a `^` (True where the source cannot be read: the old reading)."""
    if submission is None:
        return True
    try:
        cells = cells_of(submission)
        for index in cells_assigning(cells, name):
            if any(isinstance(n, ast.BitXor) for n in ast.walk(parse(cells[index]))):
                return True
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return True
    return False


# round40 (blind39): a power of two typed in e-notation, 2e20 for 2 ** 20: b * 10^k where b^k is the count, or a
# factor of it (T = 2 ** 10 as 2e10, d_k = 2 ** 6 as 2e6) so typed; every such number is a multiple of 100, which no
# other count of this question is (they are powers of two, or 10^6 and 64 x 10^6 for T rounded to 1000)
def _e_readings(n):
    """{b * 10^k: "bek = b x 10^k, where b ** k = n was meant"} for each way n = b ** k with b >= 2, k >= 2."""
    out = {}
    for k in range(2, n.bit_length() + 1):
        b = round(n ** (1 / k))
        for c in (b - 1, b, b + 1):
            if c >= 2 and c ** k == n:
                out[c * 10 ** k] = f"{c}e{k} = {c} x 10^{k}, where {c} ** {k} = {n:,} was meant"
    return out


def _e_notation_counts(T=1024, D_K=64):
    counts = {"attn_entries": {v: f"typed as {said}" for v, said in _e_readings(T * T).items()},
              "score_madds": {v: f"typed as {said}" for v, said in _e_readings(T * T * D_K).items()}}
    for v, said in _e_readings(T).items():         # T itself typed so, then squared
        counts["attn_entries"].setdefault(v * v, f"T squared, with T typed as {said}")
        counts["score_madds"].setdefault(v * v * D_K, f"T^2 d_k, with T typed as {said}")
    for v, said in _e_readings(T * T).items():      # T^2 so typed, times d_k
        counts["score_madds"].setdefault(v * D_K, f"T^2 d_k, with T^2 typed as {said}")
    for v, said in _e_readings(D_K).items():        # d_k so typed
        counts["score_madds"].setdefault(T * T * v, f"T^2 d_k, with d_k typed as {said}")
    # keyed by the float too: int(2e26) is not 2 x 10^26 exactly (a float holds 53 bits)
    return {name: {float(v): said for v, said in c.items()} for name, c in counts.items()}


E_NOTATION = _e_notation_counts()     # q8's counts, T = 1024 and d_k = 64


def name_e_notation(got, name):
    """q8: power_typed_as_e_notation where the count is one of E_NOTATION's readings."""
    said = E_NOTATION[name].get(float(got))
    if said is not None:
        raise Misconception("power_typed_as_e_notation", f"{name} is {got:,}: {said}; "
                            + describe("power_typed_as_e_notation"))


# words of a comment that say the cost is quadratic (T^2, O(T**2), "quadratic", "squared", the exponent)
_QUADRATIC_WORDS = re.compile(r"quadratic|squared|exponent|\^\s*2|\*\*\s*2|\u00b2", re.IGNORECASE)


def _ratio_written(submission):
    """How the cells that assign cost_ratio write it (read with ast and tokenize, never run): "log" (a log of a
    ratio: the exponent), "literal" (a bare number), "power" (an expression with a **, as 2 * T ** 2 / T ** 2),
    "other", or None where the source cannot be read; and whether a comment on the assignment (its lines, or a
    comment line just above) says the cost is quadratic, and none says linear."""
    try:
        cells = cells_of(submission) if submission is not None else []
        found, said = None, False
        for index in cells_assigning(cells, "cost_ratio"):
            text = cells[index]
            comments = {}
            for tok in tokenize.generate_tokens(io.StringIO(text).readline):
                if tok.type == tokenize.COMMENT:
                    comments[tok.start[0]] = tok.string
            for node in ast.walk(parse(text)):
                if not (isinstance(node, ast.Assign) and any(getattr(t, "id", 0) == "cost_ratio" for t in node.targets)):
                    continue
                value = node.value
                while isinstance(value, ast.Call) and getattr(value.func, "id", "") in ("int", "float", "round") \
                        and value.args:
                    value = value.args[0]
                calls = [ast.unparse(n.func) for n in ast.walk(value) if isinstance(n, ast.Call)]
                if any(c.split(".")[-1] in ("log2", "log") for c in calls):
                    found = "log"
                elif isinstance(value, ast.Constant) and type(value.value) in (int, float):
                    found = found or "literal"
                elif any(isinstance(n, ast.Pow) for n in ast.walk(value)):
                    found = found or "power"
                else:
                    found = found or "other"
                near = [comments[n] for n in range(node.lineno - 1, (node.end_lineno or node.lineno) + 1)
                        if n in comments and (n >= node.lineno or text.splitlines()[n - 1].lstrip().startswith("#"))]
                words = " ".join(near)
                said = said or bool(_QUADRATIC_WORDS.search(words) and "linear" not in words.lower())
        return found, said
    except (SyntaxError, ValueError, RecursionError, MemoryError, tokenize.TokenError, IndexError):
        return None, False


def name_ratio_two(submission):
    """q8's cost_ratio == 2 (round40, blind39): the exponent of T^2 given for the factor where the cell says so (a
    log2 of the ratio, or a bare 2 whose comment says the cost is quadratic); a bare 2 or a linear expression
    with nothing showing the quadratic is cost_linear_in_T (blind.py's cost_ratio_linear: the same answers, the
    belief that doubling T doubles the cost); an expression with a ** that gives 2 is said, not named."""
    name_helper_args_swapped(submission)      # round74: madds(64, 2048) // madds(64, 1024) for def madds(T, d)
    name_ratio_fixed_token_budget(submission)      # naming round 86: tokens // T sequences per batch
    form, quadratic = _ratio_written(submission)
    if form == "log" or (form == "literal" and quadratic):
        how = "a log of the growth factor" if form == "log" else "the exponent of T^2, as its comment says"
        raise Misconception("cost_ratio_as_exponent", f"cost_ratio is 2, {how}: " + describe("cost_ratio_as_exponent"))
    if form == "power":
        raise AssertionError("cost_ratio is 2, from an expression with a power: the cost T^2 d_k grows by "
                             "(2T)^2 / T^2 = 4 when T doubles; check the expression (how 2 * T ** 2 is grouped, "
                             "and the counts it divides by)")
    raise Misconception("cost_linear_in_T", "cost_ratio of 2 means a cost linear in T: every query meets "
                        "every key, so T * T entries")


def name_counts_swapped(entries, madds, name):
    """round41 (blind40): attn_entries holding exactly score_madds's right value (T^2 d_k) and score_madds exactly
    attn_entries's (T^2), both at once: the two answers swapped (a tuple assignment in the wrong order, say). One of
    them alone is that answer's own key (entries_times_d_k, madds_without_d_k)."""
    if (type(entries) in (int, float) and type(madds) in (int, float) and entries == ref.score_madds
            and madds == ref.attn_entries):
        raise Misconception("counts_swapped", f"{name} holds the other count: attn_entries is {int(entries)} = T^2 x "
                            f"d_k and score_madds {int(madds)} = T^2: " + describe("counts_swapped"))


# --- naming round 43 -----------------------------------------------------------------------------------------

def answer_cell_trees(submission, answer: str):
    """(source, parsed tree) of each cell of the submission that assigns `answer`, in order; a cell that does not
    parse is passed over. Student text: parsed, never run."""
    cells = cells_of(submission) if submission is not None else []
    for index in cells_assigning(cells, answer):
        try:
            yield cells[index], parse(cells[index])
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue


def implicit_einsum_specs(submission, answer: str) -> list[str]:
    """round43 (blind42 q1_einsum_probe_in_implicit_mode_sums_the_batch): the subscripts, written as a string, of
    each einsum call (torch.einsum, np.einsum, einsum) without '->' in the cells that assign `answer`, whose terms
    all start with one letter (the batch, repeated: implicit mode sums it away). Student text: parsed, never run."""
    found: list[str] = []
    try:
        for _source, tree in answer_cell_trees(submission, answer):
            for node in ast.walk(tree):
                if not isinstance(node, ast.Call) or not node.args:
                    continue
                f = node.func
                if not ((isinstance(f, ast.Attribute) and f.attr == "einsum")
                        or (isinstance(f, ast.Name) and f.id == "einsum")):
                    continue
                spec = node.args[0]
                if not isinstance(spec, ast.Constant) or not isinstance(spec.value, str) or "->" in spec.value:
                    continue
                terms = [t.strip() for t in spec.value.split(",")]
                if len(terms) > 1 and all(terms) and len({t[0] for t in terms}) == 1 and terms[0][0].isalpha():
                    found.append(spec.value)
    except Exception:  # noqa: BLE001 - an unreadable source shows nothing
        return []
    return found


def explicit_einsum_output(spec: str) -> str:
    """The output an implicit-mode `spec` leaves out when it should keep its batch: the shared first letter, then
    each letter that appears once, in order of appearance ('bqd,bkd' -> 'bqk')."""
    letters = [c for c in spec if c.isalpha()]
    batch = spec.strip()[0]
    return batch + "".join(dict.fromkeys(c for c in letters if letters.count(c) == 1))


def keep_mask_penalty_replays() -> dict[str, torch.Tensor]:
    """round43 (blind42 q6_tensorflow_penalty_given_the_keep_mask): the trace's causal weights with the penalty put
    where causal_mask(3) is True (the kept keys), as TensorFlow's `logits += mask * -1e9` does with its mask of keys
    to HIDE: added (query 2, which keeps every key, gets the unmasked weights back: a shift), or filled in place
    (masked_fill(mask, -1e9): query 2's three scores all -1e9, uniform weights). Float64, as the trace."""
    scores = ref.Q3 @ ref.K3.T / 2.0
    keep = ref.causal_mask(3)
    return {"added": ref.stable_softmax(scores + keep.double() * -1e9, dim=-1),
            "filled": ref.stable_softmax(scores.masked_fill(keep, -1e9), dim=-1)}


_INVERTING_CALLS = ("logical_not", "bitwise_not", "logical_xor", "eq", "ne", "invert")


def _mask_inverted_in(tree) -> bool:
    """Whether a cell's code inverts something: ~m, not m, m.logical_not(), 1 - m, m == 0, m != 1 ... (a
    penalty on ~mask is the right one; +1e9 on ~mask is a sign slip, not this mistake)."""
    for n in ast.walk(tree):
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, (ast.Invert, ast.Not)):
            return True
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _INVERTING_CALLS:
            return True
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Sub) and isinstance(n.left, ast.Constant):
            return True
        if isinstance(n, ast.Compare):
            return True
    return False


def name_keep_mask_penalty(got, causal_mask, submission, atol):
    """inverted_mask where weights3_causal equals a keep_mask_penalty_replays replay, the notebook's
    causal_mask(3) is right, and the cell that assigns weights3_causal uses causal_mask without inverting anything
    (a +1e9 on ~mask gives the same weights: a sign slip, left to the one-edit search). Student text: parsed."""
    from autograder.grading.source_checks import cells_assigning, cells_of
    if causal_mask is None or not _mask_right(causal_mask, 3) or not torch.isfinite(got).all():
        return
    hits = [k for k, w in keep_mask_penalty_replays().items()
            if tuple(got.shape) == tuple(w.shape) and torch.allclose(got.double(), w, rtol=0, atol=atol)]
    if not hits:
        return
    try:
        cells = cells_of(submission) if submission is not None else []
        trees = []
        for index in cells_assigning(cells, "weights3_causal"):
            try:
                trees.append(parse(cells[index]))
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                continue
    except Exception:  # noqa: BLE001 - an unreadable source shows nothing
        return
    uses = [t for t in trees if any(isinstance(n, ast.Name) and n.id == "causal_mask" for n in ast.walk(t))]
    if not uses or any(_mask_inverted_in(t) for t in uses):
        return
    last = ("query 2, which may see every key, gets the unmasked weights back" if hits[0] == "added"
            else "query 2, which may see every key, gets equal weights on all three")
    raise Misconception("inverted_mask", "weights3_causal puts each query's weight on the later keys, the ones "
                        f"causal_mask(3) blocks, and {last}: the -1e9 penalty lands where the mask is True, on the keys "
                        "it KEEPS (TensorFlow's `logits += mask * -1e9` takes a mask of the keys to hide); penalise "
                        "where it is False: scores3 + (~mask) * -1e9, or scores3.masked_fill(~mask, float('-inf')): "
                        "it matches " + describe("inverted_mask"))


def half_precision_variance_replays(atol):
    """q2, round43 (blind42 q2_scores_computed_in_bfloat16): (raw, [scaled ...], dtype, cast, where) for the example's
    scores taken through bfloat16 or float16: Q and K cast before the product, or the float32 scores cast after it;
    the variance taken in that dtype, or after casting back to float32 or float64; the scaled scores divided in
    either. Only values more than atol from the right 6.5991 (float16 read back in float32 is within it: passes)."""
    Q, K = ref._Qb, ref._Kb
    out = []
    for half in (torch.bfloat16, torch.float16):
        name = str(half).replace("torch.", "")
        for cast, s in ((f"Q and K cast to {name} before the product", Q.to(half) @ K.to(half).transpose(-2, -1)),
                        (f"the scores cast to {name}", (Q @ K.transpose(-2, -1)).to(half))):
            for where, back in ((f"the variance taken in {name}", lambda t: t),
                                ("the variance taken after casting back", lambda t: t.float()),
                                ("the variance taken after casting back", lambda t: t.double())):
                raw = float(back(s).var())
                if abs(raw - ref.raw_score_var) <= atol:
                    continue
                scaled = {float(back(s / 8 ** 0.5).var()), float((back(s) / 8 ** 0.5).var()), raw / 8}
                out.append((raw, sorted(scaled), name, cast, where))
    return out


def name_half_precision_variances(raw, scaled, atol):
    """q2: half_precision_scores where raw_score_var is one of half_precision_variance_replays (to 1e-5 of it) and
    scaled_score_var is that replay's scaled value, or the right one (the scaled scores kept in float32). The
    replays (6.581 to 6.598) are none of q2's catalogued values (tests/test_naming_sdpa-from-scratch_round43.py)."""
    hits = [(dtype, cast, where) for value, scaled_values, dtype, cast, where in half_precision_variance_replays(atol)
            if abs(raw - value) <= 1e-5 * value and (abs(scaled - ref.scaled_score_var) < atol
                                                     or any(abs(scaled - v) < 1e-5 * v for v in scaled_values))]
    if not hits:
        return
    casts = " or ".join(dict.fromkeys(cast for _, cast, _ in hits))
    wheres = " or ".join(dict.fromkeys(where for _, _, where in hits))
    raise Misconception("half_precision_scores", f"raw_score_var is {raw:.6g}, not {ref.raw_score_var:.6g}: it is "
                        f"the variance of the example's scores computed in {hits[0][0]} ({casts}; {wheres}); keep the "
                        "example's float32 Q and K as they are: " + describe("half_precision_scores"))


def len_one_level_short(submission, answer: str) -> str | None:
    """round44 (blind43 q1_value_width_counted_with_len_one_level_short): the source text of the last entry of a
    tuple or list literal assigned to `answer` when that entry is len(x[i]) (one index, a constant: the length of
    x[i]'s FIRST axis, the rows of one matrix of a 3-D tensor, where its width is asked), in a cell that assigns
    `answer`. None when no cell shows it. Student text: parsed, never run."""
    try:
        for source, tree in answer_cell_trees(submission, answer):
            for node in ast.walk(tree):
                if not isinstance(node, ast.Assign) or not any(isinstance(t, ast.Name) and t.id == answer
                                                               for t in node.targets):
                    continue
                value = node.value
                if not isinstance(value, (ast.Tuple, ast.List)) or not value.elts:
                    continue
                last = value.elts[-1]
                if not (isinstance(last, ast.Call) and isinstance(last.func, ast.Name) and last.func.id == "len"
                        and len(last.args) == 1 and not last.keywords and isinstance(last.args[0], ast.Subscript)):
                    continue
                sub = last.args[0]
                idx = sub.slice
                if isinstance(idx, ast.UnaryOp) and isinstance(idx.op, ast.USub):
                    idx = idx.operand
                if isinstance(sub.value, ast.Subscript) or not (isinstance(idx, ast.Constant)
                                                                and type(idx.value) is int):
                    continue
                return ast.get_source_segment(source, last) or ast.unparse(last)
    except Exception:  # noqa: BLE001 - an unreadable source shows nothing
        return None
    return None


def score_statistics_to_rounding(got, divisor=1.0):
    """round44 (blind43): score_statistics(divisor) with mean_of_slice_variances kept only where `got` is one of
    its values to rounding (1e-5 relative): its four values lie close to other readings (Q @ K[0].T gives 7.50662,
    one of them 7.50708), and within q2's ATOL they named a variance taken of all the scores."""
    stats = score_statistics(divisor)
    if not any(abs(got - v) <= 1e-5 * abs(v) for v in stats["mean_of_slice_variances"]):
        del stats["mean_of_slice_variances"]
    return stats


def name_softmax_not_applied(got, what, atol):
    """round44 (blind43 q6_causal_weights_stored_before_the_softmax): weights3_causal equal to the masked scaled
    scores, Q3 K3^T / 2 where key j <= query i and -inf (or a fill at most -1e4) where not: the softmax never
    applied. Softmaxed weights lie in [0, 1], so no other catalogued answer has a -inf or such a fill."""
    if what != "weights3_causal" or tuple(got.shape) != (3, 3):
        return
    scores = ref.Q3 @ ref.K3.T / 2
    keep = ref.causal_mask(3)
    g = got.to(torch.float64)
    if not bool((g[~keep] <= -1e4).all()) or not torch.isfinite(g[keep]).all():
        return
    if torch.allclose(g[keep], scores[keep], rtol=0, atol=atol):
        fill = "-inf" if bool(torch.isneginf(g[~keep]).all()) else "a large negative fill"
        raise Misconception("softmax_not_applied", f"{what} equals the masked scores (Q3 K3^T / 2, with {fill} at "
                            "the hidden keys), not weights: its rows do not sum to 1 (row 0 should be 1, 0, 0): "
                            + describe("softmax_not_applied"))


def name_one_sequence_keys(raw, scaled, others, what="raw_score_var"):
    """round44 (blind43 q2_keys_of_the_first_sequence_broadcast_to_both): raw_score_var equal, to rounding (1e-5
    relative), to the variance of Q @ K[b].T on the batched example: one sequence's key matrix broadcast against
    the queries of every sequence (the shape stays (2, 5, 5)). Named only when scaled_score_var is that variance over
    8 (the same scores scaled) or the right one, and no value in `others` (q2's other catalogued values) is within
    2e-5 relative of it (twice the match; mean_of_slice_variances' 7.50708 is 6e-5 away from Q @ K[0].T's 7.50662):
    a coincidence with another replay names nothing."""
    Q, K, _ = ref._batched_example()
    others = [*others, ref.raw_score_var, *(v for vs in score_statistics().values() for v in vs)]
    for b in range(K.shape[0]):
        s = Q @ K[b].transpose(-2, -1)
        value, value_scaled = float(s.var()), float((s / math.sqrt(Q.shape[-1])).var())
        if abs(raw - value) > 1e-5 * abs(value):
            continue
        if abs(scaled - value_scaled) > 1e-5 * abs(value_scaled) and abs(scaled - ref.scaled_score_var) > 1e-5:
            continue
        if any(abs(value - v) <= 2e-5 * abs(value) for v in others):
            return
        raise Misconception("keys_of_one_sequence", f"{what} is {raw:.6g}, the variance of Q @ K[{b}].T on the "
                            f"example ({value:.6g}): sequence {b}'s keys scored against the queries of every "
                            "sequence; " + describe("keys_of_one_sequence"))


def len_in_answer(submission, answer: str) -> bool:
    """round44: whether an assignment to `answer` has a len() call in its value (the shape counted with len)."""
    try:
        cells = cells_of(submission) if submission is not None else []
        for index in cells_assigning(cells, answer):
            try:
                tree = parse(cells[index])
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                continue
            for node in ast.walk(tree):
                if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == answer
                                                        for t in node.targets):
                    if any(isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id == "len"
                           for c in ast.walk(node.value)):
                        return True
    except Exception:  # noqa: BLE001 - an unreadable source shows nothing
        return False
    return False


def name_rectangular_mask_open(fn, what) -> None:
    """round44 (blind43 q4_rectangular_mask_left_all_true_as_cross_attention): causal_mask right on square sizes
    (causal_mask(3), causal_mask(5), causal_mask(4, 4)) and all True, of the right shape, on rectangular ones
    ((3, 5), (5, 3), (4, 9)): the causal cut made only when T_q == T_k (a T_q != T_k taken for unmasked
    cross-attention). Every call must show it; a crash names nothing."""
    try:
        square = [(fn(3), 3, 3), (fn(5), 5, 5), (fn(4, 4), 4, 4)]
        rect = [(fn(3, 5), 3, 5), (fn(5, 3), 5, 3), (fn(4, 9), 4, 9)]
    except Exception:  # noqa: BLE001 - a crash here says nothing more
        return

    def ok(m, n, k):
        return type(m) is torch.Tensor and m.dtype == torch.bool and tuple(m.shape) == (n, k)

    if all(ok(m, n, k) and bool((m == ref.causal_mask(n, k)).all()) for m, n, k in square) \
            and all(ok(m, n, k) and bool(m.all()) for m, n, k in rect):
        raise Misconception("rectangular_mask_not_causal", f"{what}: causal_mask(3), causal_mask(5) and "
                            "causal_mask(4, 4) are right, but causal_mask(3, 5), causal_mask(5, 3) and "
                            "causal_mask(4, 9) are True everywhere: " + describe("rectangular_mask_not_causal"))


def name_flipped_triangle(t, T_q, T_k, what) -> None:
    """round44 (blind43 q4_upper_triangle_flipped_upside_down): the mask equal to the upper triangle of ones(T_q,
    T_k) turned over, rows reversed (triu().flip(0), flipud) or columns reversed (triu().flip(1), fliplr), instead
    of transposed; replayed on the same sizes, named only where it differs from the right mask."""
    T_k = T_q if T_k is None else T_k
    up = torch.ones(T_q, T_k, dtype=torch.bool).triu()
    expected = ref.causal_mask(T_q, T_k)
    for dim, how in ((0, "rows reversed, flip(0) or flipud"), (1, "columns reversed, flip(1) or fliplr")):
        replay = up.flip(dim)
        if bool((replay == expected).all()) or not bool((t == replay).all()):
            continue
        raise Misconception("triangle_flipped", f"{what} is the upper triangle of ones({T_q}, {T_k}) turned over "
                            f"({how}): " + describe("triangle_flipped"))


# --- naming round 45 (blind44) -------------------------------------------------------------------------------

def _number(node, depth: int = 0) -> float | None:
    """The value of a numeric constant written in the source (0.5, 1 / 2, 0.25, -0.5), else None: read from the
    tree, never run; at most 32 signs and divisions deep (red-team round 133: `64 ** (1 / 4 / 1 / ... / 1)`, 1,500
    divisions, recursed past the grader's stack, and q2's test_scale_divisor said "RecursionError: maximum recursion
    depth exceeded")."""
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        # a literal past a float's range is no number of the lesson's: float() of a 400-digit one raised OverflowError
        # into q2's test, told as "a whole number too large" in the answer (red-team round 130)
        return float(node.value) if abs(node.value) < 1e300 else None
    if depth >= 32:
        return None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        v = _number(node.operand, depth + 1)
        return None if v is None else -v
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        a, b = _number(node.left, depth + 1), _number(node.right, depth + 1)
        return None if a is None or b is None or b == 0 else a / b
    return None


def _root_of(node):
    """The operand of a square root written in the source (math.sqrt(x), np.sqrt(x), x.sqrt(), x ** 0.5,
    x ** (1 / 2), pow(x, 0.5)), else None."""
    if isinstance(node, ast.Call):
        f = node.func
        if isinstance(f, ast.Attribute) and f.attr == "sqrt":
            return node.args[0] if len(node.args) == 1 else (f.value if not node.args else None)
        if isinstance(f, ast.Name) and f.id == "sqrt" and len(node.args) == 1:
            return node.args[0]
        if isinstance(f, ast.Name) and f.id == "pow" and len(node.args) == 2 and _number(node.args[1]) == 0.5:
            return node.args[0]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow) and _number(node.right) == 0.5:
        return node.left
    return None


def root_taken_twice_in_source(submission) -> str | None:
    """round45 (blind44 q2_d_k_variable_holds_the_square_root_already): the source text of a square root taken of
    a name that already holds one (`d_k = Q.shape[-1] ** 0.5`, later `math.sqrt(d_k)`), of a root of a root, or of
    a power 0.25, in any cell; None when no cell shows one. Student text: parsed, never run."""
    try:
        trees = []
        for cell in cells_of(submission) if submission is not None else []:
            try:
                trees.append((cell, parse(cell)))
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                continue
        # each quote is cut from the cell's lines split once (pyparse.Segments), and only for a hit: quoting every
        # node by ast.get_source_segment split the whole cell again per node (quadratic in a long cell)
        trees = [(Segments(source), tree) for source, tree in trees]
        holders = {}
        for segments, tree in trees:
            for node in ast.walk(tree):
                if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                        and any(_root_of(n) is not None for n in ast.walk(node.value))):
                    holders[node.targets[0].id] = segments.of(node) or unparse(node)
        for segments, tree in trees:
            for node in ast.walk(tree):
                if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow) and _number(node.right) == 0.25:
                    return segments.of(node) or unparse(node)
                inner = _root_of(node)
                if inner is None:
                    continue
                if _root_of(inner) is not None:
                    return segments.of(node) or unparse(node)
                if isinstance(inner, ast.Name) and inner.id in holders:
                    return f"{holders[inner.id].splitlines()[0][:60]}`, then `{segments.of(node) or unparse(node)}"
    except Exception:  # noqa: BLE001 - an unreadable source shows nothing
        return None
    return None


_VARIANCE_CALLS = frozenset({"var", "variance", "pvariance", "nanvar"})
_UNWRAPPING = frozenset({"item", "tolist", "cpu", "detach", "numpy", "double", "float"})


def _unwrapped(node):
    """The expression under float(...), round(...), .item(), .cpu() and the like."""
    while True:
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("float", "round")
                and node.args):
            node = node.args[0]
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _UNWRAPPING
              and not node.args):
            node = node.func.value
        else:
            return node


def _value_assigned(node, answer):
    """The expression an assignment gives `answer` (one target, or one place of a tuple unpacked from a tuple)."""
    for target in node.targets:
        if isinstance(target, ast.Name) and target.id == answer:
            return node.value
        if (isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple)
                and len(target.elts) == len(node.value.elts)):
            for t, v in zip(target.elts, node.value.elts):
                if isinstance(t, ast.Name) and t.id == answer:
                    return v
    return None


def scaled_variance_source(submission, answer: str = "scaled_score_var") -> str | None:
    """round45: what the last assignment to `answer` shows: "variance" when a variance is divided (`raw_score_var
    / math.sqrt(d_k)`, `S.var() / d_k ** 0.5`, `scaled_score_var /= ...`), "scores" when it is a statistic taken of
    a tensor (`(S / math.sqrt(d_k)).var()`, `torch.var(scaled)`, a helper `_var(S / c)`), None when it shows neither
    or cannot be read. Student text: parsed, never run."""
    try:
        found = None
        for _source, tree in answer_cell_trees(submission, answer):      # a later cell's assignment wins
            line = -1
            for node in ast.walk(tree):
                if (isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and node.target.id == answer
                        and node.lineno >= line):
                    line, found = node.lineno, "variance" if isinstance(node.op, (ast.Div, ast.Mult)) else None
                    continue
                value = _value_assigned(node, answer) if isinstance(node, ast.Assign) else None
                if value is None:
                    continue
                v = _unwrapped(value)
                names = {n.id for n in ast.walk(v) if isinstance(n, ast.Name)}
                said = None
                if isinstance(v, ast.BinOp) and isinstance(v.op, (ast.Div, ast.Mult)):
                    sides = (v.left, v.right)
                    if any(_is_variance_call(n) for s in sides for n in ast.walk(s)) or "raw_score_var" in names:
                        said = "variance"
                elif isinstance(v, ast.Call) and "raw_score_var" not in names:
                    f = v.func
                    if _is_variance_call(v) or (isinstance(f, ast.Name) and any(
                            isinstance(n, ast.BinOp) and isinstance(n.op, ast.Div) for a in v.args for n in ast.walk(a))):
                        said = "scores"
                if node.lineno >= line:
                    line, found = node.lineno, said
        return found
    except Exception:  # noqa: BLE001 - an unreadable source shows nothing
        return None


def _is_variance_call(node) -> bool:
    return isinstance(node, ast.Call) and (
        (isinstance(node.func, ast.Attribute) and node.func.attr in _VARIANCE_CALLS)
        or (isinstance(node.func, ast.Name) and node.func.id in _VARIANCE_CALLS))


def name_variance_over_root_d_k(scaled, submission):
    """q2: scaled_score_var = raw / sqrt(8), which two mistakes give (blind44): the variance itself divided by
    sqrt(d_k) (variance_scaled_like_scores), or the scores divided by d_k ** 0.25, the square root taken twice
    (scale_root_taken_twice). Told apart by the source of scaled_score_var: a variance divided, or a variance taken
    of divided scores; where it shows neither, one message with both readings."""
    shown = scaled_variance_source(submission)
    if shown == "scores":
        twice = root_taken_twice_in_source(submission)
        raise Misconception("scale_root_taken_twice", f"scaled_score_var is {scaled:.4g} = raw / 2.83: your cell "
                            "takes the variance of scores divided by 8 ** 0.25 = 1.68, not by sqrt(8) = 2.83"
                            + (f" (`{twice}`: a square root of a value that is already one)" if twice else "")
                            + ": " + describe("scale_root_taken_twice"))
    if shown == "variance":
        raise Misconception("variance_scaled_like_scores", "scaled_score_var is the raw variance divided by "
                            "sqrt(d_k): dividing the scores by sqrt(d_k) divides their variance by d_k; take "
                            ".var() of the scaled scores (or divide the variance by d_k)")
    raise Misconception("variance_scaled_like_scores", f"scaled_score_var is {scaled:.4g}, the raw variance divided "
                        "by sqrt(8) = 2.83, where scores divided by sqrt(d_k) have their variance divided by d_k = 8: "
                        "either the variance itself was divided by sqrt(d_k), or the scores were divided by "
                        "d_k ** 0.25 (a square root taken twice, as of a d_k that already holds sqrt(8)); take .var() "
                        "of raw_scores / math.sqrt(Q.shape[-1])")


SLICE_MEANS = {(-1,): "each row's own mean (x.mean(dim=-1, keepdim=True), one per query)",
               (-2,): "each column's own mean (x.mean(dim=-2, keepdim=True), one per key)",
               (-2, -1): "each sequence's own mean (x.mean(dim=(-2, -1), keepdim=True))",
               (0,): "the mean across the batch (x.mean(dim=0, keepdim=True))"}


def slice_centred_variances():
    """(value, how, count): the example's scores each centred on the mean of its own slice (SLICE_MEANS), squared,
    summed over all 50 and divided by n - 1 = 49 or n = 50 (blind44 q2_hand_variance_centred_on_each_rows_mean)."""
    Q, K, _ = ref._batched_example()
    S = Q @ K.transpose(-2, -1)
    n = S.numel()
    out = []
    for dims, how in SLICE_MEANS.items():
        squares = float(((S - S.mean(dim=dims, keepdim=True)) ** 2).sum())
        out += [(squares / count, how, count) for count in (n - 1, n)]
    return out


def name_slice_centred_variance(raw, scaled, others, atol):
    """q2, round45: raw_score_var equal, to rounding (1e-5 relative), to one of slice_centred_variances (a hand
    variance centring each score on its row's, column's or sequence's mean instead of the overall one), and
    scaled_score_var that value over 8 (the same statistic of the scaled scores) or the right one. Named only
    where no value of `others` (q2's other catalogued ones) is within 2e-5 relative of it."""
    others = [*others, ref.raw_score_var, *(v for vs in score_statistics().values() for v in vs),
              *new_sample_score_variances(), *(r for r, *_ in half_precision_variance_replays(atol))]
    for value, how, count in slice_centred_variances():
        if abs(raw - value) > 1e-5 * value:
            continue
        if abs(scaled - value / 8) > 1e-5 * value / 8 and abs(scaled - ref.scaled_score_var) > atol:
            continue
        if any(abs(value - v) <= 2e-5 * abs(v) for v in others):
            return
        raise Misconception("variance_centred_per_slice", f"raw_score_var is {raw:.6g}, not {ref.raw_score_var:.6g}: "
                            f"what the scores give centred on {how}, the squares summed and divided by {count}: "
                            + describe("variance_centred_per_slice"))


def name_matrix_flattened(value, right, what, atol):
    """q6, round45 (blind44 q6_output_stored_as_a_flat_list): a matrix answer given flat, (n,), (1, n) or (n, 1),
    whose numbers in order are the right matrix's row by row (.flatten().tolist(), .view(-1), .ravel()). A flat
    answer of other numbers is left to the shape message."""
    try:
        t = value.detach().double() if isinstance(value, torch.Tensor) else torch.tensor(value, dtype=torch.float64)
    except (TypeError, ValueError, RuntimeError):
        return
    n = right.numel()
    if tuple(t.shape) not in ((n,), (1, n), (n, 1)) or not torch.isfinite(t).all():
        return
    if torch.allclose(t.reshape(-1), right.reshape(-1).double(), rtol=0, atol=atol):
        raise Misconception("matrix_flattened", f"{what} holds the right {n} numbers, row by row, but has shape "
                            f"{tuple(t.shape)}, not {tuple(right.shape)}: " + describe("matrix_flattened"))


_SCALING_INPLACE = {"div_", "mul_", "divide_", "multiply_", "true_divide_"}
_VIEW_METHODS = {"transpose", "t", "view", "permute", "swapaxes", "swapdims", "movedim", "expand", "narrow",
                 "select", "squeeze", "unsqueeze", "view_as", "as_strided", "detach"}
_TRACE_ANSWERS = ("scores3", "weights3", "out3", "weights3_causal")
_TRACE_INPUTS = ("Q3", "K3", "V3")


def _is_view_of(expr, roots) -> bool:
    """expr is one of `roots` (names holding an input) or a view of one: .T, .mT, a slice, .transpose(...), ..."""
    while True:
        if isinstance(expr, ast.Name):
            return expr.id in roots
        if isinstance(expr, ast.Attribute) and expr.attr in ("T", "mT", "H", "mH", "data"):
            expr = expr.value
        elif isinstance(expr, ast.Subscript):
            expr = expr.value
        elif (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute)
              and expr.func.attr in _VIEW_METHODS):
            expr = expr.func.value
        else:
            return False


def _scope_nodes(scope, inner):
    """The nodes of `scope` that are not inside one of `inner` (the functions nested in it)."""
    skip = {id(n) for f in inner if f is not scope for n in ast.walk(f)}
    return [n for n in ast.walk(scope) if id(n) not in skip or n is scope]


def inplace_scaling_of_an_input(submission) -> str | None:
    """round46 (blind45 q6_keys_scaled_in_place_through_a_transpose_view): the source text of the first in-place
    scaling (`x /= ...`, `x *= ...`, .div_(...), .mul_(...)) in the cells assigning the trace's answers whose target
    is an input: Q3, K3, V3, a parameter of the function it is in, or a view of one (K3.T, Km.T, Km[:],
    Km.transpose(0, 1)), directly or through a name assigned such a view; None where there is none. Student text:
    parsed, never run."""
    try:
        cells = cells_of(submission) if submission is not None else []
        chosen = sorted({i for a in _TRACE_ANSWERS for i in cells_assigning(cells, a)})
    except Exception:  # noqa: BLE001 - an unreadable source shows nothing
        return None
    for i in chosen:
        try:
            tree = parse(cells[i])
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        functions = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.Lambda))]
        for scope in [tree, *functions]:
            roots = set(_TRACE_INPUTS)
            if scope is not tree:
                roots |= {a.arg for a in (*scope.args.posonlyargs, *scope.args.args, *scope.args.kwonlyargs)}
            body = _scope_nodes(scope, functions)
            for _ in range(3):          # names assigned a view of an input (Kt = Km.T), to a fixed point
                for n in body:
                    if (isinstance(n, ast.Assign) and _is_view_of(n.value, roots)
                            and all(isinstance(t, ast.Name) for t in n.targets)):
                        roots |= {t.id for t in n.targets}
            for n in body:
                hit = ((isinstance(n, ast.AugAssign) and isinstance(n.op, (ast.Div, ast.Mult))
                        and _is_view_of(n.target, roots))
                       or (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                           and n.func.attr in _SCALING_INPLACE and _is_view_of(n.func.value, roots)))
                if hit:
                    text = ast.get_source_segment(cells[i], n) or ""
                    return " ".join(text.split())[:80]
    return None


def scores_exponentiated_in_place(submission, answer: str) -> str | None:
    """round56 (blind56 q6_scores_exponentiated_in_place_with_out_then_reused_for_the_causal_weights): the source
    text of the first exponential in the cells assigning `answer` that writes over a tensor of the cell: an exp
    call whose out= is a name (torch.exp(scores3, out=scores3)), or x.exp_(); None where there is none. Student
    text: parsed, never run."""
    try:
        for _source, tree in answer_cell_trees(submission, answer):
            for node in ast.walk(tree):
                if not isinstance(node, ast.Call):
                    continue
                f = node.func
                name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
                out = [k.value for k in node.keywords if k.arg == "out"]
                if (name == "exp" and out and isinstance(out[0], ast.Name)) or name == "exp_":
                    return unparse(node)
    except Exception:  # noqa: BLE001 - an unreadable source shows nothing
        return None
    return None


def name_trace_scores_exponentiated_in_place(got, what, submission, atol) -> None:
    """q6, round56: the causal weights are the masked softmax of exp(scores3) (or of exp(scores3 - its row max)),
    a replay of scores3 overwritten by its exponentials before the causal line reuses it, and the cell shows such
    an exponential (out= naming a tensor, or exp_). A value alone could be another slip: both are needed."""
    s = ref.Q3 @ ref.K3.T / 2.0
    keep = ref.causal_mask(3)
    if type(got) is not torch.Tensor or tuple(got.shape) != (3, 3) or not got.is_floating_point():
        return
    for e in (torch.exp(s), torch.exp(s - s.amax(dim=-1, keepdim=True))):
        w = torch.softmax(e.masked_fill(~keep, float("-inf")), dim=-1)
        if torch.allclose(got.double(), w, rtol=0, atol=atol):
            break
    else:
        return
    line = scores_exponentiated_in_place(submission, "weights3_causal")
    if line is None:
        return
    raise Misconception("overwritten_in_place_then_reused", f"{what} is the causal softmax of exp(scores3), not of "
                        f"scores3: `{line}` writes the exponentials over the scores (out= names the tensor it "
                        "writes into; exp_ works in place), and the causal line then masks and exponentiates them "
                        "again. " + describe("overwritten_in_place_then_reused"))


_FLAT_VIEWS = _VIEW_METHODS | {"reshape", "flatten", "ravel", "view_as", "reshape_as"}   # views when contiguous


def inplace_write_before_scaled_variance(submission) -> str | None:
    """round56 (blind56 q2_hand_variance_squares_a_view_of_the_raw_scores_in_place): the source text of the first
    in-place write (`d -= ...`, d.pow_(2), d.sub_(...)) in the cells assigning scaled_score_var whose target is a
    tensor the scaled_score_var line reads, or a view of it (x.view(-1), x.reshape(-1), x.flatten(), x[...], x.T),
    directly or through a name assigned such a view; None where there is none. Student text: parsed, never run."""
    try:
        for _source, tree in answer_cell_trees(submission, "scaled_score_var"):
            body = list(ast.walk(tree))
            roots = {n.id for a in body if isinstance(a, ast.Assign)
                     and any(isinstance(t, ast.Name) and t.id == "scaled_score_var" for t in a.targets)
                     for n in ast.walk(a.value) if isinstance(n, ast.Name)}
            for _ in range(3):          # names assigned a view of a root (_dev = raw_scores.view(-1)), to a fixed point
                for n in body:
                    if (isinstance(n, ast.Assign) and _is_flat_view_of(n.value, roots)
                            and all(isinstance(t, ast.Name) for t in n.targets)):
                        roots |= {t.id for t in n.targets}
            for n in body:
                if isinstance(n, ast.AugAssign) and _is_flat_view_of(n.target, roots):
                    return unparse(n)
                if (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr.endswith("_")
                        and not n.func.attr.startswith("_") and _is_flat_view_of(n.func.value, roots)):
                    return unparse(n)
    except Exception:  # noqa: BLE001 - an unreadable source shows nothing
        return None
    return None


def _is_flat_view_of(expr, roots) -> bool:
    while True:
        if isinstance(expr, ast.Name):
            return expr.id in roots
        if isinstance(expr, ast.Attribute) and expr.attr in ("T", "mT", "data"):
            expr = expr.value
        elif isinstance(expr, ast.Subscript):
            expr = expr.value
        elif isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in _FLAT_VIEWS:
            expr = expr.func.value
        else:
            return False


def _dropout_call(node, zeros=frozenset()) -> bool:
    """A dropout applied in the source, left training: F.dropout / torch.dropout / nn.functional.dropout(x, ...)
    without training=False (or a False third argument), or an nn.Dropout module built (and called) in the cell.
    `zeros`: names the cell binds to 0 alone (_zero_names), a probability of 0 as a literal is."""
    if not isinstance(node, ast.Call):
        return False
    f = node.func
    name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
    if name not in ("Dropout", "dropout", "dropout_"):
        return False
    # a probability written as 0 drops nothing: the identity (red-team round 132: `F.dropout(raw_scores, p=0.0)`
    # beside a `math.sqrt(d_k - 1)` was told the dropout, in place of the one-edit fix of its d_k - 1)
    p = [k.value for k in node.keywords if k.arg == "p"] + (node.args[:1] if name == "Dropout" else node.args[1:2])
    if any((isinstance(v, ast.Constant) and type(v.value) in (int, float) and v.value == 0)
           or (isinstance(v, ast.Name) and v.id in zeros) for v in p):
        return False
    if name == "Dropout":
        return True
    off = [k.value for k in node.keywords if k.arg in ("training", "train")] + node.args[2:3]
    return not any(isinstance(v, ast.Constant) and v.value is False for v in off)


def _zero_names(cells) -> frozenset[str]:
    """The names every binding of `cells` binds to a literal 0 (0, 0.0): a dropout probability kept in a config name
    (`attn_pdrop = 0.0`, then nn.Dropout(attn_pdrop)) drops nothing (red-team round 133: the round 132 fix read only
    a literal p, so the named 0 was still told "your cell passes them through a dropout"). A name also bound
    otherwise (another value, +=, a loop, a parameter) is left out."""
    zero: set[str] = set()
    other: set[str] = set()
    for _seg, tree in cells:
        for n in ast.walk(tree):
            if isinstance(n, ast.Assign):
                is_zero = isinstance(n.value, ast.Constant) and type(n.value.value) in (int, float) and n.value.value == 0
                for t in n.targets:
                    if is_zero and isinstance(t, ast.Name):
                        zero.add(t.id)
                    else:
                        other |= {x.id for x in ast.walk(t) if isinstance(x, ast.Name)}
            elif isinstance(n, (ast.AugAssign, ast.AnnAssign, ast.NamedExpr, ast.For, ast.comprehension)):
                other |= {x.id for x in ast.walk(n.target) if isinstance(x, ast.Name)}
            elif isinstance(n, ast.arg):
                other.add(n.arg)
    return frozenset(zero - other)


def _train_false(node) -> bool:
    """`module.train(False)` (or mode=False): what .eval() does (red-team round 132)."""
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "train"
            and any(isinstance(v, ast.Constant) and v.value is False
                    for v in node.args[:1] + [k.value for k in node.keywords if k.arg == "mode"]))


def name_scores_through_dropout(scaled, submission) -> None:
    """q2 (round70, blind70 q2_scaled_scores_passed_through_the_attention_dropout_of_a_pasted_block): the raw
    variance right (the caller has seen it) and scaled_score_var not the scaled scores' one, where the cell that
    stores scaled_score_var applies a dropout left training (F.dropout's training defaults to True): random, so
    no replay; named by the source only, the value said. A cell that calls .eval() is left out. Student text:
    parsed (bounded), never run."""
    cells = _cell_trees(submission, "scaled_score_var")
    if any((isinstance(n, ast.Attribute) and n.attr == "eval") or _train_false(n) for _seg, tree in cells
           for n in ast.walk(tree)):
        return
    zeros = _zero_names(cells)
    hit = _source_hit(cells, lambda n: _dropout_call(n, zeros))
    if hit is None:
        return
    raise Misconception("scores_through_dropout", f"scaled_score_var is {scaled:.4g}, not {ref.scaled_score_var:.4g}, "
                        f"the variance of the scaled scores, and your cell passes them through a dropout (`{hit}`): "
                        + describe("scores_through_dropout"))


def name_scores_changed_in_place_before_scaling(scaled, submission, atol) -> None:
    """q2, round56: scaled_score_var is the variance of the example's scores once changed in place, replayed (the
    squared deviations from the mean, or the squares, divided by sqrt(8)), and the cell writes in place into the
    scores the scaled line reads, or a view of them. The value alone could be another statistic: both are needed."""
    r = ref._Qb @ ref._Kb.transpose(-2, -1)
    changed = ((r - r.mean()) ** 2, r ** 2)
    if not any(abs(scaled - float((c / math.sqrt(8)).var())) < atol for c in changed):
        return
    line = inplace_write_before_scaled_variance(submission)
    if line is None:
        return
    raise Misconception("overwritten_in_place_then_reused", f"scaled_score_var is {scaled:.4g}, the variance of "
                        "the scores once changed in place (their squared deviations, or squares, divided by "
                        f"sqrt(8)), not of the scaled scores: `{line}` writes into the scores themselves (a view "
                        "such as raw_scores.view(-1) shares their memory), so the scaled line reads the changed "
                        "values. " + describe("overwritten_in_place_then_reused"))


def _stacked_along_columns(value) -> str | None:
    """naming round 80: `value` lays the per-row results out as columns (source_checks.stacks_as_columns_call:
    stack(.., dim=1), column_stack). Its text, or None."""
    from autograder.grading.source_checks import stacks_as_columns_call
    return ast.unparse(value)[:80] if stacks_as_columns_call(value) else None


def _helper_stacks_columns(value, submission) -> str | None:
    """naming round 84 (blind84 q6_rows_softmaxed_one_by_one_and_stacked_as_columns): `value` calls a function of the
    notebook, f(...), whose last def (at a cell's top level) has one return, and it returns a column stack
    (_stacked_along_columns): `f(...) returns torch.stack(..., dim=1)`. Else None. Student text: parsed, never run."""
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)):
        return None
    name = value.func.id
    trees = [tree for _source, tree in answer_cell_trees(submission, name)]
    defs = [n for n in trees[-1].body if isinstance(n, ast.FunctionDef) and n.name == name] if trees else []
    # the def must be what the name holds: the last binding of it in the last cell that binds it (red-team round
    # 143: a draft def rebound by `row_softmax = lambda m: stable_softmax(m, dim=-1).T` or to another def was quoted)
    if not defs or max(_cell_level_bindings(trees[-1], name)) != (defs[-1].lineno, defs[-1].col_offset):
        return None
    returns = [n for n in itertools.islice(ast.walk(defs[-1]), 5000) if isinstance(n, ast.Return)]
    if len(returns) != 1 or returns[0].value is None:
        return None
    line = _stacked_along_columns(returns[0].value)
    return None if line is None else f"{name}(...) returns {line}"[:100]


def _cell_level_bindings(tree, name: str) -> list[tuple[int, int]]:
    """(line, column) of every binding of `name` outside the cell's defs and lambdas: a def or class of that name,
    a store or del of it (assignment, for, with, walrus), an import of it. Bounded: 20,000 nodes."""
    out, todo, seen = [(0, -1)], [tree], 0
    while todo and seen < 20000:
        node = todo.pop()
        for child in ast.iter_child_nodes(node):
            seen += 1
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                if child.name == name:
                    out.append((child.lineno, child.col_offset))
                todo.extend(child.decorator_list)
                continue
            if isinstance(child, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
                continue
            if isinstance(child, ast.Name) and isinstance(child.ctx, (ast.Store, ast.Del)) and child.id == name:
                out.append((child.lineno, child.col_offset))
            elif isinstance(child, ast.alias) and (child.asname or child.name).split(".")[0] == name:
                out.append((node.lineno, node.col_offset))
            todo.append(child)
    return out


def name_row_results_stacked_as_columns(got, what, submission, atol) -> None:
    """q6, naming round 80 (blind80 q6_rows_softmaxed_then_stacked_as_columns_like_r_apply): `got` is the right
    weights3 transposed AND the assignment that binds `what` in its cell (read with ast, never run) stacks a list
    of pieces along dim=1 (torch.stack([... for r in scores3], dim=1), R's apply(S, 1, f)): each row's
    softmax became a column."""
    w = ref.weights3
    if (submission is None or tuple(got.shape) != tuple(w.shape)
            or not torch.allclose(got.double(), w.T, rtol=0, atol=atol)):
        return
    last = None       # red-team round 141: only the binding that ran last (a draft stack rebound by `... .T` is not it)
    for _source, tree in answer_cell_trees(submission, what):
        binds = [n for n in itertools.islice(ast.walk(tree), 20000) if isinstance(n, ast.stmt)
                 and any(isinstance(t, ast.Name) and isinstance(t.ctx, ast.Store) and t.id == what
                         for t in itertools.islice(ast.walk(n), 200) if not isinstance(n, (ast.FunctionDef,
                                                                                              ast.ClassDef)))]
        if binds:
            last = max(binds, key=lambda b: (b.lineno, b.col_offset))
    if isinstance(last, ast.Assign) and any(isinstance(t, ast.Name) and t.id == what for t in last.targets):
        line = _stacked_along_columns(last.value) or _helper_stacks_columns(last.value, submission)
        if line is not None:
            raise Misconception("rows_stacked_as_columns", f"{what} is the right weights transposed: your "
                                f"`{line}`: " + describe("rows_stacked_as_columns"))


def name_trace_scaled_twice_in_place(got, what, submission, atol, causal=False) -> None:
    """q6, round46 (blind45 q6_keys_scaled_in_place_through_a_transpose_view): `got` is the trace's weights from
    the scores divided by 4 = 2 x 2 (the number divide_by_dk gives, d_k = 4), and the cell scales an input in
    place (inplace_scaling_of_an_input: `Kt /= 2` on the view K3.T): the right scale 2 applied to K3 (or Q3)
    itself, so that the second call divides the already divided tensor again. inplace_on_input, never a scale
    slip: the source's own scale is right."""
    if not causal:
        name_row_results_stacked_as_columns(got, what, submission, atol)      # naming round 80: torch.stack(rows, dim=1)
    if causal:
        name_trace_scores_exponentiated_in_place(got, what, submission, atol)      # round56
    s = ref.Q3 @ ref.K3.T / 4.0
    if causal:
        s = s.masked_fill(~ref.causal_mask(3), float("-inf"))
    w = torch.softmax(s, dim=-1)
    if tuple(got.shape) != tuple(w.shape) or not torch.allclose(got.double(), w, rtol=0, atol=atol):
        return
    line = inplace_scaling_of_an_input(submission)
    if line is None:
        return
    raise Misconception("inplace_on_input", f"{what} is wrong because your code scales an input in place: "
                        f"`{line}` writes into the notebook's tensor itself (a view such as K3.T or Km.T shares its "
                        f"memory), so the next call scales it again: {what} matches the scores divided by 4 = 2 x 2, "
                        "the right sqrt(d_k) = 2 applied twice. Scale a new tensor instead (Km.T / math.sqrt(d_k)). "
                        + describe("inplace_on_input"))


_INT_DTYPES = {"uint8", "int8", "int16", "int32", "int64", "int", "long", "short", "ByteTensor", "LongTensor",
               "IntTensor", "CharTensor", "ShortTensor"}
_INT_CASTS = {"byte", "int", "long", "short", "char"}


def mask_blocks_nothing_causes(submission) -> list[str]:
    """round46 (blind45 q4_tilde_on_a_uint8_triangle_flips_every_bit): what the cells defining causal_mask show
    that makes a mask True everywhere: a tril()/triu() whose result is thrown away (not in place), or ~ applied
    where an integer dtype is made (~ is then a bitwise NOT: 0 -> 255 or -1, 1 -> 254 or -2, all non-zero).
    Only causes written in the source; none where none is. Student text: parsed, never run."""
    causes = []
    try:
        found = list(answer_cell_trees(submission, "causal_mask"))
    except Exception:  # noqa: BLE001 - an unreadable source shows nothing
        return causes
    for _source, tree in found:
        defs = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "causal_mask"]
        nodes = [n for d in (defs or [tree]) for n in ast.walk(d)]      # the function's own code where it is a def
        for node in nodes:
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
                f = node.value.func
                fname = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)
                if fname in ("tril", "triu"):
                    causes.append(f"Your {fname}() result is never assigned: {fname} is not in place, so the "
                                  f"ones stay uncut; write mask = mask.{fname}(...)")
        inverted = any(isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.Invert) for n in nodes)
        integer = any((isinstance(n, ast.Attribute) and n.attr in _INT_DTYPES
                       and isinstance(n.value, ast.Name) and n.value.id == "torch")
                      or (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _INT_CASTS
                          and not n.args and not n.keywords)
                      for n in nodes)
        if inverted and integer:
            causes.append("Your ~ is applied to an integer tensor (uint8, int), where it is a bitwise NOT, not a "
                          "logical one: 0 becomes 255 (or -1) and 1 becomes 254 (or -2), all non-zero, so every "
                          "entry is True as a bool; convert to bool before negating (~m.bool()) or compare (m == 0)")
    return list(dict.fromkeys(causes))


_HALF_WORDS = {"float16", "half"}


# round48 (blind48 q8_shift_binds_looser_than_times): `1 << 20 * 64` is 1 << (20 * 64) = 1 << 1280, as << and >>
# bind looser than + - * / // % and **. Replayed on the cell's own expression (parsed, evaluated on its int
# literals and the names the cell set before it, never run): the expression as Python reads it must give the answer,
# and the same expression with the shift bound to its first operand ((1 << 20) * 64) the right count.
_TIGHTER = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow)
_ARITH = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
          ast.FloorDiv: lambda a, b: a // b, ast.Mod: lambda a, b: a % b, ast.Div: lambda a, b: a / b,
          ast.BitXor: lambda a, b: a ^ b, ast.BitOr: lambda a, b: a | b, ast.BitAnd: lambda a, b: a & b}
_OP_WORD = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%", ast.Pow: "**"}


MAX_FOLDED_BITS = 20_000     # an int past this is not folded: big-int work in the grader grows with it (round 53)


def _const_eval(node, env, depth=0):
    """The value of an int/float expression of literals and names in env; None for anything else, one too large to
    work out (an int operand or result past MAX_FOLDED_BITS, for every operator: the product of two bounded ints is
    bounded before it is made, so no step does big-int work past 40,000 bits), or nested past 100 levels (read
    without the stack a student's long chain of terms would exhaust)."""
    if depth > 100:
        return None
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value if type(node.value) is float or node.value.bit_length() <= MAX_FOLDED_BITS else None
    if isinstance(node, ast.Name):
        v = env.get(node.id)
        return None if type(v) is int and v.bit_length() > MAX_FOLDED_BITS else v
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        v = _const_eval(node.operand, env, depth + 1)
        return None if v is None else (-v if isinstance(node.op, ast.USub) else v)
    if not isinstance(node, ast.BinOp):
        return None
    a, b = _const_eval(node.left, env, depth + 1), _const_eval(node.right, env, depth + 1)
    if a is None or b is None:
        return None
    try:
        if isinstance(node.op, (ast.LShift, ast.RShift)):
            if type(a) is not int or type(b) is not int or not 0 <= b <= MAX_FOLDED_BITS:
                return None
            out = a << b if isinstance(node.op, ast.LShift) else a >> b
        elif isinstance(node.op, ast.Pow):
            if abs(a) > 1 and (type(b) is not int or not 0 <= b * math.log2(abs(a)) <= MAX_FOLDED_BITS):
                return None
            out = a ** b
        else:
            f = _ARITH.get(type(node.op))
            if f is None or (isinstance(node.op, ast.Mult) and type(a) is int and type(b) is int
                             and a.bit_length() + b.bit_length() > MAX_FOLDED_BITS + 1):
                return None
            out = f(a, b)
    except (ArithmeticError, ValueError, TypeError):
        return None
    return None if type(out) is int and out.bit_length() > MAX_FOLDED_BITS else out


def _between(lines, start, end):
    """The source text from (line, col) start to end (1-based lines, UTF-8 byte columns, as ast gives them)."""
    (l0, c0), (l1, c1) = start, end
    if l0 == l1:
        return lines[l0 - 1][c0:c1].decode("utf-8", "replace")
    return b"\n".join([lines[l0 - 1][c0:], *lines[l0:l1 - 1], lines[l1 - 1][:c1]]).decode("utf-8", "replace")


def _shift_regroupings(shift, lines):
    """(shift) with the shift bound to a leading part of its unbracketed right side: 1 << 20 * 64 as
    (1 << 20) * 64, 1 << 10 ** 2 as (1 << 10) ** 2, 1 << t * 2 * d as (1 << t * 2) * d or ((1 << t) * 2) * d;
    none when that side is bracketed or binds no tighter."""
    right = shift.right
    if not (isinstance(right, ast.BinOp) and isinstance(right.op, _TIGHTER)) or "(" in _between(
            lines, (shift.left.end_lineno, shift.left.end_col_offset), (right.lineno, right.col_offset)):
        return []
    out = []
    depth = 0
    while True:
        new = copy.deepcopy(right)
        node = new
        for _ in range(depth):
            node = node.left
        node.left = ast.BinOp(left=shift.left, op=shift.op, right=node.left)
        out.append(new)
        below = node.left.right     # the operand the shift took; one more level down where it is a tighter BinOp
        if not (isinstance(below, ast.BinOp) and isinstance(below.op, _TIGHTER)) or "(" in _between(
                lines, (node.lineno, node.col_offset), (below.lineno, below.col_offset)):
            return out
        depth += 1


def _replace(tree, old, new):
    """A copy of expression `tree` with node `old` (by identity) put as `new`."""
    class _Swap(ast.NodeTransformer):
        def visit(self, node):
            return new if node is old else super().visit(node)
    memo = {id(old): old}       # keep `old` itself in the copy, so that it can be found by identity
    return _Swap().visit(copy.deepcopy(tree, memo))


def name_shift_precedence(value, what, submission) -> None:
    """q8: an int answer that a shift written next to * (or +, **) gives, read as Python binds it, where the shift
    bound to its neighbour gives the right count: shift_binds_looser. A huge int of no such cell (past float's range:
    expect_number cannot compare it) is said in numbers, not left to raise OverflowError."""
    right = getattr(ref, what, None)
    if type(value) is not int or type(right) is not int or value == right:
        return
    try:
        for source, tree in answer_cell_trees(submission, what):
            lines, env = source.encode("utf-8").splitlines(), {}
            for stmt in tree.body:
                if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
                    continue
                target = stmt.targets[0]
                if (isinstance(target, ast.Tuple) and isinstance(stmt.value, ast.Tuple)
                        and len(target.elts) == len(stmt.value.elts)):     # `bits, d_k = 10, 64`
                    env.update({t.id: _const_eval(v, env) for t, v in zip(target.elts, stmt.value.elts)
                                if isinstance(t, ast.Name)})
                if not isinstance(target, ast.Name):
                    continue
                if target.id == what and _const_eval(stmt.value, env) == value:
                    for shift in [n for n in ast.walk(stmt.value) if isinstance(n, ast.BinOp)
                                  and isinstance(n.op, (ast.LShift, ast.RShift))]:
                        for regrouped in _shift_regroupings(shift, lines):
                            if _const_eval(_replace(stmt.value, shift, regrouped), env) == right:
                                _raise_shift_looser(value, what, shift, regrouped)
                env[target.id] = _const_eval(stmt.value, env)
    except (RecursionError, MemoryError, ValueError, TypeError, AttributeError):
        pass
    try:
        float(value)
    except OverflowError:
        raise AssertionError(f"{what} is a {len(str(abs(value)))}-digit number, far too large for a count of "
                             "this question: check the expression that computes it") from None


def _raise_shift_looser(value, what, shift, regrouped):
    sign = "<<" if isinstance(shift.op, ast.LShift) else ">>"
    inner = shift.right
    digits = len(str(abs(value)))
    shown = f"{value:,}" if digits <= 15 else f"a {digits}-digit number"
    raise Misconception("shift_binds_looser", f"{what} is {shown}: `{ast.unparse(shift)}` is read as "
                        f"{ast.unparse(shift.left)} {sign} ({ast.unparse(inner)}), as {sign} binds looser than "
                        f"{_OP_WORD.get(type(inner.op), 'arithmetic')}; write `{ast.unparse(regrouped)}`: "
                        "it matches " + describe("shift_binds_looser"))



def name_count_overflowed(value, what, submission) -> None:
    """q8, round46 (blind45 q8_entries_counted_on_a_half_precision_probe): a count that is +inf (a float, or a
    one-element tensor). count_overflows_half where the cell assigning it makes a float16 tensor (torch.float16,
    torch.half, .half()): 1024 * 1024 is past float16's largest finite 65504. Without that in the source, said
    as an overflow of a narrow float type, named nothing."""
    name_power_typed_as_product(value, what, submission)     # round50: 2 ** 20 * 2 * 6, a power typed with *
    name_exponents_multiplied(value, what, submission)      # round54: 2 ** (10 * 2 * 6) for 2 ** (10 * 2 + 6)
    name_shift_precedence(value, what, submission)      # round48: 1 << 20 * 64, or a huge int
    try:
        if isinstance(value, torch.Tensor):
            if value.numel() != 1:
                return
            number = float(value.detach().reshape(()))
        elif type(value) is float:
            number = value
        else:
            return
    except (TypeError, ValueError, RuntimeError):
        return
    if number != math.inf:
        return
    half = False
    try:
        for _source, tree in answer_cell_trees(submission, what):
            half = half or any((isinstance(n, ast.Attribute) and n.attr in _HALF_WORDS)
                               or (isinstance(n, ast.Constant) and n.value in ("float16", "half"))
                               for n in ast.walk(tree))
    except Exception:  # noqa: BLE001 - an unreadable source shows nothing
        half = False
    if half:
        raise Misconception("count_overflows_half", f"{what} is inf: your cell counts with a float16 tensor, "
                            "whose sum overflows past 65504. " + describe("count_overflows_half"))
    raise AssertionError(f"{what} is inf, not a count: a sum taken in a narrow float type (float16 holds nothing "
                         "above 65504) overflows; count with integers (.numel(), 1024 ** 2)")


def reduced_score_variances():
    """q2, round46: (value, key, how) for the example's (2, 5, 5) scores changed before their .var() (unbiased):
    scores_masked_before_variance, a causal habit (blind45 q2_scores_lower_triangle_kept_by_tril_before_variance):
    torch.tril / triu zeroing one triangle (diagonal 0, -1 or 1), or only the entries a causal mask keeps selected
    (S[mask]); batch_reduced_before_variance (blind45 q2_batch_averaged_into_one_score_matrix_first): the two
    sequences' score matrices averaged or summed into one (5, 5) first."""
    Q, K, _ = ref._batched_example()
    S = Q @ K.transpose(-2, -1)
    out = []
    for fn, side in ((torch.tril, "lower"), (torch.triu, "upper")):
        for d in (0, -1, 1):
            out.append((float(fn(S, diagonal=d).var()), "scores_masked_before_variance",
                        f"torch.{fn.__name__}(scores{'' if d == 0 else f', diagonal={d}'}): the {side} triangle "
                        "kept and the other entries replaced by zeros"))
    keep = torch.ones(5, 5, dtype=torch.bool).tril()
    out.append((float(S[:, keep].var()), "scores_masked_before_variance",
                "only the scores a causal mask keeps (the lower triangle), the others left out"))
    out.append((float(S[:, ~keep].var()), "scores_masked_before_variance",
                "only the scores above the diagonal, the others left out"))
    out.append((float(S.mean(dim=0).var()), "batch_reduced_before_variance",
                "the two sequences' score matrices averaged into one (5, 5) matrix (.mean(dim=0))"))
    out.append((float(S.sum(dim=0).var()), "batch_reduced_before_variance",
                "the two sequences' score matrices summed into one (5, 5) matrix (.sum(dim=0))"))
    # round59 (blind59 q2_item_error_on_per_row_variances_patched_by_indexing_the_first_row): one query's row, or one
    # key's column, of the per-row variances (var(dim=-1)[b, i]: .item() refused the (2, 5) result, one entry taken);
    # one within 1e-3 of the right value or of another replay is left out (key 1 of sequence 0 gives 6.5995)
    taken = [ref.raw_score_var, *(v for vs in score_statistics().values() for v in vs), *new_sample_score_variances(),
             *(v for v, *_ in slice_centred_variances()), *(v for v, *_ in out)]
    for b in range(S.shape[0]):
        for i in range(S.shape[1]):
            for value, how in ((float(S[b, i].var()), f"the {S.shape[-1]} scores of query {i} of sequence {b} alone "
                                f"(one row: raw_scores.var(dim=-1)[{b}, {i}])"),
                               (float(S[b, :, i].var()), f"the {S.shape[-2]} scores of key {i} of sequence {b} alone "
                                f"(one column: raw_scores.var(dim=-2)[{b}, {i}])")):
                if all(abs(value - t) > 1e-3 for t in taken):
                    out.append((value, "variance_of_one_slice", f"{how}, not all {S.numel()} scores"))
    return out


def name_reduced_score_variance(raw, scaled, said, others, atol):
    """q2, round46: raw_score_var equal, to rounding (1e-5 relative), to one of reduced_score_variances and
    scaled_score_var that value over 8 (the caller has seen it); named only where no value of `others` (q2's other
    catalogued ones) nor another replay is within 2e-5 relative of it."""
    replays = reduced_score_variances()
    others = [*others, ref.raw_score_var, *(v for vs in score_statistics().values() for v in vs),
              *new_sample_score_variances(), *(r for r, *_ in half_precision_variance_replays(atol)),
              *(v for v, *_ in slice_centred_variances())]
    for i, (value, key, how) in enumerate(replays):
        if abs(raw - value) > 1e-5 * value or abs(scaled - value / 8) > 1e-5 * value / 8:
            continue
        if any(abs(value - v) <= 2e-5 * abs(v) for v in others) or any(
                abs(value - v) <= 2e-5 * abs(v) for j, (v, *_) in enumerate(replays) if j != i):
            return
        raise Misconception(key, f"{said}: they are the variances of {how}. " + describe(key))


def reshaped_softmax_variants(x, dim):
    """q3, round46 (blind45 q3_reshape_instead_of_moving_the_axis): the softmax of x regrouped by reshape instead of
    a moved axis: x.reshape(-1, n) softmaxed along its rows, or x.reshape(n, -1) along its columns (n =
    x.shape[dim]), reshaped back to x's shape. Only where it differs from the right softmax along dim (for the
    last dim, or dim=0 with reshape(n, -1), the regrouping is right)."""
    n = x.shape[dim]
    right = ref.stable_softmax(x, dim=dim)
    out = {}
    for how, t, d in (("rows", x.reshape(-1, n), -1), ("cols", x.reshape(n, -1), 0)):
        w = ref.stable_softmax(t, dim=d).reshape(x.shape)
        if float((w - right).abs().max()) > 1e-3:
            out[f"softmax_reshaped_not_moved/{how}"] = w
    # naming round 84 (blind84): the axis moved last the right way (movedim, or transpose(dim, -1)), the rows
    # normalised, and the result reshaped straight to x.shape instead of moved back
    for how, t in (("movedim", x.movedim(dim, -1)), ("transpose", x.transpose(dim, -1))):
        w = ref.stable_softmax(t, dim=-1).reshape(x.shape)
        if float((w - right).abs().max()) > 1e-3:
            out[f"moved_axis_reshaped_back/{how}"] = w
    return out


def name_score_distances(raw, scaled, atol):
    """Both variances those of query-key distances (torch.cdist, or squared: |q - k|^2) on the example's own Q
    and K, raw and divided by sqrt(8) (blind36): the scores were distances, not dot products (from q2.py, round46)."""
    d = torch.cdist(ref._Qb.double(), ref._Kb.double())
    for how, t in (("Euclidean distances (torch.cdist)", d), ("squared distances", d ** 2)):
        if abs(raw - t.var().item()) < atol and abs(scaled - (t / 8 ** 0.5).var().item()) < atol:
            raise Misconception("scores_as_distances", f"raw_score_var is {raw:.4g} and scaled_score_var "
                                f"{scaled:.4g}, the variances of the {how} between the example's queries and keys, "
                                "raw and scaled: " + describe("scores_as_distances"))


# --- naming round 47 (blind47) ---------------------------------------------------------------------------------------

def name_entry_from_other_axis(got, right, slots, what, inputs):
    """q1 (blind47 q1_key_count_read_from_the_batch_slot_of_the_keys): the right shape with exactly one entry replaced
    by the size of another of the question's axes ((4, 10, 4): K's batch size where T_k goes). `slots` says what each
    entry of `right` is; `inputs` the question's shapes of Q, K, V (batch, T, width). Called after every shape with a
    key of its own (an input's shape, the output's, a dropped or added axis). T_q = T_k there, so a sequence length
    in the other's place is invisible; an entry that is no axis's size, or sizes that coincide, name nothing."""
    sizes = {inputs["Q"][0]: "the batch size (axis 0 of Q, K and V)",
             inputs["Q"][1]: "the sequence length (axis 1 of Q, K and V)",
             inputs["Q"][-1]: "d_k (the last axis of Q and K)", inputs["V"][-1]: "d_v (the last axis of V)"}
    got, right = tuple(got), tuple(right)
    if len(got) != len(right) or len(sizes) != 4:
        return
    wrong = [i for i in range(len(right)) if got[i] != right[i]]
    if len(wrong) != 1 or got[wrong[0]] not in sizes:
        return
    i = wrong[0]
    raise Misconception("shape_entry_from_another_axis", f"{what} is {got}: the right shape {right} with its entry "
                        f"{i} ({slots[i]}, {right[i]}) replaced by {got[i]}, {sizes[got[i]]}: "
                        + describe("shape_entry_from_another_axis"))


def name_count_unbracketed(raw, scaled, n, others, atol):
    """q2 (blind47 q2_hand_variance_divides_by_n_then_subtracts_one): a variance written sum / n - 1 (no brackets
    round n - 1) is the biased variance minus 1: 5.467 for the raw scores, -0.1916 for the scaled ones. Named when one
    of the two is that value and the other is right, that value too, or (for scaled_score_var) the raw one's / 8 (the
    slip carried over); only while each value is more than 10 atol from every other catalogued one (`others`)."""
    slipped = (ref.raw_score_var * (n - 1) / n - 1, ref.scaled_score_var * (n - 1) / n - 1)
    others = list(others) + [ref.raw_score_var, ref.scaled_score_var]
    if any(abs(v - o) < 10 * atol for v in slipped for o in others):
        return
    raw_slip, scaled_slip = abs(raw - slipped[0]) < atol, abs(scaled - slipped[1]) < atol
    raw_ok = raw_slip or abs(raw - ref.raw_score_var) < atol
    scaled_ok = scaled_slip or abs(scaled - ref.scaled_score_var) < atol or (raw_slip and abs(scaled - raw / 8) < atol)
    if not (raw_slip or scaled_slip) or not (raw_ok and scaled_ok):
        return
    names = [f"{w} is {v:.4g}" for w, v, hit in (("raw_score_var", raw, raw_slip), ("scaled_score_var", scaled,
                                                                                    scaled_slip)) if hit]
    raise Misconception("variance_count_unbracketed", f"{' and '.join(names)}, the biased variance minus 1 (the sum "
                        f"of squared deviations / {n} - 1, where it should be / ({n} - 1)): "
                        + describe("variance_count_unbracketed"))


def name_divisor_measured(got):
    """q2 (blind47 q2_scale_divisor_from_the_measured_score_std): scale_divisor equal to the measured spread of the
    batched example's raw scores: their standard deviation (2.569, or 2.543 biased), or their variance (6.599, or
    6.467 biased). None of these is sqrt(8), 1/8, 8, 64, 32 or 1 (the other divisors q2 names)."""
    v = ref.raw_score_var
    n = ref._Qb.shape[0] * ref._Qb.shape[1] * ref._Kb.shape[1]
    spreads = {v ** 0.5: "the standard deviation", (v * (n - 1) / n) ** 0.5: "the standard deviation (biased)",
               v: "the variance", v * (n - 1) / n: "the variance (biased)"}
    for value, which in spreads.items():
        if abs(got - value) < 6e-3:      # 2.57 typed from the printed std
            raise Misconception("scores_divided_by_own_std", f"scale_divisor is {got:.4g}, {which} of the batched "
                                "example's raw scores: the divisor is the constant sqrt(d_k) = sqrt(64) = 8, fixed by "
                                "the head width, not a statistic measured on one example: "
                                + describe("scores_divided_by_own_std"))


def trace_negated(causal=False):
    """q6 (blind47 q6_softmin_picked_for_softmax): the softmax of the trace's negated scaled scores (F.softmin, exp(-s)
    over its sum), causal ones blocked (a +inf fill before softmin, a -inf one after the negation): the trace's own
    inputs replayed for softmax_of_negated."""
    s = -(ref.Q3 @ ref.K3.T / 2.0)
    if causal:
        s = s.masked_fill(~ref.causal_mask(3), float("-inf"))
    return {"softmax_of_negated": torch.softmax(s, dim=-1)}


def q3_softmax_shift(fn):
    """q3 (moved from q3.py, round47): what the student's softmax subtracts before exp (reference.SOFTMAX_PROBE):
    a misconception key, "" when the probe is fine, None when it cannot tell."""
    try:
        out = fn(ref.SOFTMAX_PROBE.clone(), dim=-1)
    except StudentCodeError:
        return None
    if type(out) is not torch.Tensor or tuple(out.shape) != (2, 3):
        return None
    shift = ref.SOFTMAX_PROBE_PATTERNS.get(tuple(bool((~torch.isfinite(out[i])).any()) for i in range(2)), "")
    if shift == "":      # each slice's max, or a shift that only a -inf entry breaks (its mean)
        try:
            return mean_or_sound(*(fn(row.clone(), dim=-1) for row in MEAN_PROBES))
        except StudentCodeError:
            return None
    if shift == "softmax_subtracts_min":    # exp(max - x) overflows the same rows: tame logits tell them apart
        return min_or_negated(lambda x: fn(x, dim=-1))
    if shift != "global_max_subtraction":
        return shift
    try:     # one global max or each slice's largest |x|: a second probe tells them apart; a third its first entry
        said = global_or_max_abs(fn(MAX_ABS_PROBE.clone(), dim=-1))
    except StudentCodeError:
        return None
    if said != "global_max_subtraction":
        return said
    try:     # then one row whose median is far below its max (round35): a median shift overflows there
        said = global_or_first_entry(fn(FIRST_ENTRY_PROBE.clone(), dim=-1))
        said = global_or_median(fn(MEDIAN_PROBE.clone(), dim=-1)) if said == shift else said
        if said != shift:
            return said
        # round51: one global max only where SOFTMAX_PROBE's output IS its replay (row 1 all NaN), and each row's
        # second-largest entry told apart by two one-row probes (the gap between the top two 80, then 95)
        said = global_or_second_largest(*(fn(p.clone(), dim=-1) for p in SECOND_LARGEST_PROBES))
        if (said == shift and global_replay_matches(out, ref.SOFTMAX_PROBE)
                or said == "shift_not_row_max" and second_largest_replay_matches(out, ref.SOFTMAX_PROBE)):
            return said
        return None
    except StudentCodeError:
        return None


def name_batch_axis_none(value, right, what):
    """q1 (moved from q1.py, round47), round39 (blind38): a tuple or list with None for the batch axis and the right
    sizes after it, (None, 10, 10) as Keras's summary prints it. None anywhere else, or other sizes after it, is said by expect_shape."""
    if not isinstance(value, (tuple, list)) or len(value) != len(right) or value[0] is not None:
        return
    if any(type(v) is not int or v != r for v, r in zip(value[1:], right[1:])):
        return
    raise Misconception("batch_axis_left_none", f"{what} is {tuple(value)!r}: the batch axis is None where it should "
                        f"be {right[0]}, the batch size of this example, {tuple(right)}: "
                        + describe("batch_axis_left_none"))



# --- naming round 50 (blind50, blind49) -----------------------------------------------------------------------

def kept_scores_softmaxes():
    """q6 (blind50 q6_causal_scores_picked_by_boolean_index_share_one_softmax): the trace's scores (scaled by
    sqrt(d_k) = 2, or raw) indexed with the causal mask, scores3[causal_mask(3)] or torch.masked_select: the 6
    allowed scores, row by row, in one 1-D tensor, and ONE softmax over all 6 of them. Each listed only where it
    differs from the right weights' allowed entries and from the other reading."""
    mask = ref.causal_mask(3)
    right = ref.weights3_causal.double()[mask]
    out = {}
    for how, s in (("scaled by sqrt(d_k) = 2", ref.Q3.double() @ ref.K3.double().T / 2.0),
                   ("unscaled", ref.Q3.double() @ ref.K3.double().T)):
        w = ref.stable_softmax(s[mask], dim=0)
        if float((w - right).abs().max()) > 1e-2 and all(float((w - o).abs().max()) > 1e-2 for o in out.values()):
            out[how] = w
    return out


def name_kept_scores_one_softmax(value, what, atol):
    """A weights3_causal of 6 numbers ((6,), (1, 6) or (6, 1)) equal to one softmax over the allowed scores picked
    out by the boolean mask (kept_scores_softmaxes, on the same Q3, K3): boolean_index_flattens_rows. Other 6-number
    answers are left to the shape message."""
    try:
        t = value.detach().double() if isinstance(value, torch.Tensor) else torch.tensor(value, dtype=torch.float64)
    except (TypeError, ValueError, RuntimeError):
        return
    n = int(ref.causal_mask(3).sum())
    if tuple(t.shape) not in ((n,), (1, n), (n, 1)) or not torch.isfinite(t).all():
        return
    for how, w in kept_scores_softmaxes().items():
        if torch.allclose(t.reshape(-1), w, rtol=0, atol=atol):
            raise Misconception("boolean_index_flattens_rows", f"{what} has shape {tuple(t.shape)} and sums to 1 "
                                f"over all {n} allowed scores: it is one softmax over scores3[causal_mask(3)] "
                                f"({how}), not one per query: " + describe("boolean_index_flattens_rows"))


POWER_PAIRS_MAX = 40      # the literal products tried per cell: each one is a replay of the cell's assignments


def _mult_operands(node, limit=32):
    """The operands of an unbroken product a * b * c (any bracketing), in source order; None past `limit`."""
    out, stack = [], [node]
    while stack:
        n = stack.pop()
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mult):
            stack += [n.right, n.left]
        else:
            out.append(n)
        if len(out) + len(stack) > limit:
            return None
    return out


def _product_of(operands):
    node = operands[0]
    for o in operands[1:]:
        node = ast.BinOp(left=node, op=ast.Mult(), right=o)
    return node


def _fold_assignments(stmts, what, swap=None):
    """The value the cell's top-level assignments (literals and names, folded by _const_eval) give `what`, with the
    expression of statement `swap[0]` replaced by swap[1]; None where it is never assigned a value."""
    env, got = {}, None
    for i, stmt in enumerate(stmts):
        value = swap[1] if swap is not None and i == swap[0] else stmt.value
        target = stmt.targets[0]
        if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) and len(target.elts) == len(value.elts):
            env.update({t.id: _const_eval(v, env) for t, v in zip(target.elts, value.elts) if isinstance(t, ast.Name)})
        elif isinstance(target, ast.Name):
            env[target.id] = _const_eval(value, env)
            if target.id == what:
                got = env[target.id]
    return got


POWER_REPLAY_NODES = 2000   # a count's cell is a few dozen nodes; the replay folds it once per literal pair
# The CPU one naming of a count may spend replaying cells (red-team round 70: 90 lines of 20,000-bit // and % in each
# of 100 cells cost the grader 84 s): only the LAST cell that assigns the answer is replayed (the one that decides it),
# and the replays stop once this much CPU is spent, naming nothing.
REPLAY_CPU_S = 0.25


def _last_answer_cell(submission, what):
    """[(source, tree)] of the last cell that assigns `what` (answer_cell_trees), or []."""
    return list(answer_cell_trees(submission, what))[-1:]


def _small_enough(stmts):
    """Whether the statements hold at most POWER_REPLAY_NODES nodes (counted until the limit, never further)."""
    seen = 0
    for stmt in stmts:
        for _node in ast.walk(stmt):
            seen += 1
            if seen > POWER_REPLAY_NODES:
                return False
    return True


def _literal_products(stmts):
    """(statement index, product node, operands, k) for each pair of int literals a * b side by side in a product
    (a, b >= 2), a power typed with * instead of **; at most POWER_PAIRS_MAX."""
    out = []
    for i, stmt in enumerate(stmts):
        inner = {id(c) for n in ast.walk(stmt.value) if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mult)
                 for c in (n.left, n.right)}
        for node in ast.walk(stmt.value):
            if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult)) or id(node) in inner:
                continue
            operands = _mult_operands(node) or []
            for k in range(len(operands) - 1):
                a, b = operands[k], operands[k + 1]
                if all(isinstance(x, ast.Constant) and type(x.value) is int for x in (a, b)) \
                        and a.value >= 2 and 2 <= b.value <= 64:
                    out.append((i, node, operands, k))
                    if len(out) >= POWER_PAIRS_MAX:
                        return out
    return out


def name_power_typed_as_product(value, what, submission) -> None:
    """q8, round50 (blind50 q8_two_to_the_sixth_typed_as_two_times_six): an int count whose cell has two int
    literals a * b side by side in a product where a ** b is meant (2 ** 20 * 2 * 6 for 2 ** 20 * 2 ** 6): named
    only where the cell's own assignments, replayed with that one a * b written as a ** b, give the right count
    (and as written give the student's). T * 2 for T ** 2 is square_as_times_two, the rest power_typed_as_product."""
    right = getattr(ref, what, None)
    if type(value) is not int or type(right) is not int or value == right:
        return
    deadline = time.process_time() + REPLAY_CPU_S
    try:
        for _source, tree in _last_answer_cell(submission, what):
            stmts = [s for s in tree.body if isinstance(s, ast.Assign) and len(s.targets) == 1][:200]
            if not _small_enough(stmts):      # each pair replays the whole cell: 197 KB of literals took 75 s (rt 60)
                continue
            if _fold_assignments(stmts, what) != value:
                continue
            for i, node, operands, k in _literal_products(stmts):
                if time.process_time() > deadline:
                    return
                a, b = operands[k].value, operands[k + 1].value
                power = ast.BinOp(left=ast.Constant(a), op=ast.Pow(), right=ast.Constant(b))
                fixed = _product_of([*operands[:k], power, *operands[k + 2:]])
                if _fold_assignments(stmts, what, (i, _replace(stmts[i].value, node, fixed))) != right:
                    continue
                key = "square_as_times_two" if (a, b) == (1024, 2) else "power_typed_as_product"
                raise Misconception(key, f"{what} is {value:,}: `{a} * {b}` in your cell is {a * b}, where "
                                    f"{a} ** {b} = {a ** b} is meant (with it your cell's count is right): "
                                    + describe(key))
    except (RecursionError, MemoryError, ValueError, TypeError, AttributeError):
        return


def query_index_tiled(T_q, T_k):
    """q4, round50 (blind49 q4_query_index_tiled_with_repeat_not_repeat_interleave): the (T_q, T_k) mask key j <=
    R[i, j], where R = torch.arange(T_q).repeat(T_k).view(T_q, T_k) (or .tile, or .repeat(T_k, 1) viewed so):
    repeat lays whole copies of 0..T_q-1 one after another, so R[i, j] = (i * T_k + j) mod T_q, not i (it is j
    on a square mask, which is then True everywhere)."""
    i, j = torch.arange(T_q)[:, None], torch.arange(T_k)[None, :]
    return j <= (i * T_k + j) % T_q


TILED_PROBES = ((3, None), (5, None), (3, 5), (5, 3), (4, 7), (7, 4))


def _tiled_probe_is_telling(T_q, T_k):
    """query_index_tiled at (T_q, T_k) differs from the right mask, its inverse, all True and every catalogued
    wrong mask."""
    m = query_index_tiled(T_q, T_k)
    right = ref.causal_mask(T_q, T_k)
    return not (bool(m.all()) or bool((m == right).all()) or bool((m == ~right).all())
                or any(bool((m == w).all()) for w in ref.causal_mask_variants(T_q, T_k).values()))


def name_query_index_tiled(fn, said) -> None:
    """causal_mask equal to query_index_tiled on every probe of TILED_PROBES (square ones all True, rectangular
    ones its own pattern, both ways round), each call a bool tensor of the right shape: query_index_tiled. A crash
    or any other answer names nothing."""
    try:
        masks = [(fn(n) if k is None else fn(n, k), n, n if k is None else k) for n, k in TILED_PROBES]
    except Exception:  # noqa: BLE001 - a crash here says nothing more
        return
    if not any(_tiled_probe_is_telling(n, k) for _m, n, k in masks if n != k):
        return
    if all(type(m) is torch.Tensor and m.dtype == torch.bool and tuple(m.shape) == (n, k)
           and bool((m == query_index_tiled(n, k)).all()) for m, n, k in masks):
        raise Misconception("query_index_tiled", f"{said}: causal_mask(3) and causal_mask(5) are True everywhere, "
                            "and causal_mask(3, 5), (5, 3), (4, 7) and (7, 4) are True exactly where key j <= (i * "
                            "T_k + j) mod T_q: " + describe("query_index_tiled"))


# --- naming round 51 (blind51) ------------------------------------------------------------------------------------

def example_shapes():
    """q1 (blind51 q1_shapes_answered_for_the_notebooks_running_example): the shapes of the notebook's own example
    tensors, per answer: the batched running example (Q, K, V (2, 5, 8), reference._Qb and kin) and the 3-token trace
    (Q3, K3 (3, 4), V3 (3, 2)), each with the words that say which one."""
    batched = "the notebook's running example (Q, K, V of shape (2, 5, 8))"
    trace = "the notebook's 3-token trace (Q3, K3 (3, 4), V3 (3, 2))"
    return {"weights_shape": {tuple((ref._Qb @ ref._Kb.transpose(-2, -1)).shape): batched,
                              tuple((ref.Q3 @ ref.K3.T).shape): trace},
            "out_shape": {tuple(ref._Qb.shape[:-1] + ref._Vb.shape[-1:]): batched,
                          tuple(ref.Q3.shape[:-1] + ref.V3.shape[-1:]): trace}}


def name_example_shape(got, right, what):
    """A q1 answer equal to the same quantity's shape in one of the notebook's examples (its weights for
    weights_shape, its output for out_shape): shape_of_running_example. Only exact matches, and only where that shape
    is not the question's."""
    which = example_shapes()[what].get(tuple(got))
    if which is None or tuple(got) == tuple(right):
        return
    part = "weights" if what == "weights_shape" else "output"
    raise Misconception("shape_of_running_example", f"{what} is {tuple(got)}, the shape of the {part} in {which}, "
                        f"not for the question's tensors, where it is {tuple(right)}: "
                        + describe("shape_of_running_example"))


# round51 (blind46 q3_exponentials_as_powers_of_a_typed_e): e typed as a rounded number, torch.pow(2.718, x) or
# 2.718 ** x for exp(x): b ** x = exp(x ln b), the softmax of x * ln(b), replayed on the same input. Each base listed
# only where its weights differ from the right ones by more than 3 times the dtype's largest tolerance (in float64,
# even 2.71828 does; in float32 only the shorter ones), so an answer within tolerance of the right one never matches.
TYPED_E_BASES = (2.7, 2.71, 2.72, 2.718, 2.7182, 2.7183, 2.71828, 3.0)


def typed_e_softmaxes(x, dim=-1):
    """{"e_rounded/<b>": the softmax with exponentials b ** x} for the typed bases that differ from the right one."""
    from autograder.grading.checks import tolerances
    x64 = x.detach().double()
    right = ref.stable_softmax(x64, dim=dim)
    rtol, atol = tolerances(x.dtype)
    out = {}
    for b in TYPED_E_BASES:
        w = ref.stable_softmax(x64 * math.log(b), dim=dim)
        if float((w - right).abs().max()) > 3 * (atol + rtol):
            out[f"e_rounded/{b}"] = w.to(x.dtype)
    return out


def cumsum_denominators():
    """q6 (round51, blind46 q6_causal_denominator_from_cumsum_along_keys): the trace's kept exponentials divided by
    their running sum along the keys, tril(e) / e.cumsum(-1) (e of the scaled scores, or of the raw ones; a shift by
    each row's max cancels): entry [i, j] over e_0 + ... + e_j. Only the diagonal is right."""
    mask = ref.causal_mask(3)
    out = {}
    for how, s in (("scaled", ref.Q3 @ ref.K3.T / 2.0), ("raw", ref.Q3 @ ref.K3.T)):
        e = torch.exp(s - s.amax(-1, keepdim=True))
        out[f"causal_cumsum_denominator/{how}"] = (e * mask) / e.cumsum(-1)
    return out


def causal_prefix_variants():
    """round52 (blind52): each query's prefix softmax (keys 0..i) padded with its zeros BEFORE the weights (F.pad(w,
    (2 - i, 0)): F.pad's pair is (left, right)), so row i's weights sit in the last i + 1 columns of weights3_causal.
    round59 (blind59 q6_causal_prefix_slice_stops_before_the_diagonal_...): each query's prefix sliced [:i], the keys
    strictly before it (causal_excludes_self), with query 0's empty slice patched to key 0 alone (max(i, 1)) or
    left a row of zeros (skipped): the strict lower triangle's softmax, row 0 [1, 0, 0] or [0, 0, 0]."""
    right = ref.weights3_causal
    n = right.shape[-1]
    rows = [torch.cat([right.new_zeros(n - 1 - i), right[i, : i + 1]]) for i in range(n)]
    out = {"causal_weights_padded_left": torch.stack(rows)}
    scores = ref.Q3 @ ref.K3.T / 2.0
    strict = torch.ones(n, n, dtype=torch.bool).tril(diagonal=-1)
    first = strict.clone()
    first[0, 0] = True
    out["causal_excludes_self/first_row_kept"] = ref.stable_softmax(scores.masked_fill(~first, float("-inf")), dim=-1)
    zero_row = out["causal_excludes_self/first_row_kept"].clone()
    zero_row[0] = 0.0
    out["causal_excludes_self/first_row_zero"] = zero_row
    return out


# the bytes of ONE element (element_size(), .itemsize): 2 (half types), 4 (float32), 8 (float64)
_BYTES_WORDS = ("element_size", "itemsize")


def name_count_from_another_rule(got, name, submission, T, d_k):
    """round52 (blind52), Question 8's counts: score_madds = T^3 (2^30: the n^3 rule of a square n x n product; no
    other count here is T^2 x 1024), and attn_entries equal to the bytes of one element (2, 4 or 8) with
    element_size() or .itemsize in the assignment that binds it (read with ast, never run): 4 alone could be
    cost_ratio's value, so the cell's own words are the evidence."""
    name_madds_flops_both_products(got, name, submission, T, d_k)      # round62: 4 T^2 d, both products' FLOPs
    name_layer_or_symmetric_count(got, name, submission, T, d_k)      # naming round 76: a layer's bias, a symmetric matrix
    name_count_over_range_from_one(got, name, submission, T, d_k)     # naming round 80: range(1, T) on both axes
    if name == "score_madds" and got == T ** 3:
        raise Misconception("madds_n_cubed_rule", f"score_madds is {got:,} = T^3 = {T}^3: "
                            + describe("madds_n_cubed_rule"))
    if name != "attn_entries" or got not in (2, 4, 8):
        return
    try:
        cells = cells_of(submission) if submission is not None else []
        trees = [parse(cells[i]) for i in cells_assigning(cells, name)]
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return
    for n in (n for tree in trees for n in ast.walk(tree)):
        if isinstance(n, ast.Assign) and any(getattr(t, "id", 0) == name for t in n.targets):
            words = [a.attr for a in ast.walk(n.value) if isinstance(a, ast.Attribute) and a.attr in _BYTES_WORDS]
            if words:
                raise Misconception("entries_from_element_size", f"attn_entries is {got}, from .{words[0]}: the "
                                    "bytes of ONE element, not the number of elements: "
                                    + describe("entries_from_element_size"))


# --- naming round 80 (blind80) ----------------------------------------------------------------------------------------

def _range_from_one_stops(node, T: int | None = None) -> str | None:
    """`range(1, stop)` with a stop that is not written `... + 1` (the inclusive bound of MATLAB's 1:T): its text.
    red-team round 141: a stop written as a number must be T itself (`range(1, 1025)` is MATLAB's 1:1024 ported right,
    T positions)."""
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range"
            and len(node.args) == 2 and isinstance(node.args[0], ast.Constant) and node.args[0].value == 1
            and not (isinstance(node.args[1], ast.BinOp) and isinstance(node.args[1].op, ast.Add))
            and not (T is not None and isinstance(node.args[1], ast.Constant) and node.args[1].value != T)):
        return ast.unparse(node)[:40]
    return None


def name_count_over_range_from_one(got, name, submission, T, d_k):
    """naming round 80 (blind80 q8_entries_counted_over_range_one_to_t_ported_from_matlab_one_colon_t), Question 8's
    counts: (T - 1)^2 (times d_k for score_madds) AND, in the cell that binds `name`, a range(1, stop) (stop not
    written `x + 1`) inside the value of `name` or of a name that value reads, or as the iterable of a for loop that
    binds one of them (read with ast, never run): MATLAB's inclusive 1:T ported as range(1, T), T - 1 positions per
    axis. The number alone is not enough: (T - 1) ** 2 typed as such says nothing of a range."""
    want = (T - 1) ** 2 * (d_k if name == "score_madds" else 1)
    if got != want or submission is None:
        return
    try:
        cells = cells_of(submission)
        trees = [parse(cells[i]) for i in cells_assigning(cells, name)]
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return
    nodes = [n for tree in trees for n in ast.walk(tree)][:20000]
    values: dict[str, list] = {}
    for n in nodes:
        if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and n.value is not None:
            for t in (n.targets if isinstance(n, ast.Assign) else [n.target]):
                if isinstance(t, ast.Name):
                    values.setdefault(t.id, []).append(n.value)
    read, todo = set(), [name]
    while todo and len(read) < 50:        # `name` and the names its value reads, transitively, in these cells
        cur = todo.pop()
        if cur in read:
            continue
        read.add(cur)
        todo += [r.id for v in values.get(cur, []) for r in ast.walk(v) if isinstance(r, ast.Name)]
    found = [r for v in (v for k in read for v in values.get(k, [])) for n in ast.walk(v)
             if (r := _range_from_one_stops(n, T))]
    found += [r for n in nodes if isinstance(n, ast.For) and (r := _range_from_one_stops(n.iter, T))
              and any(isinstance(m, ast.Name) and isinstance(m.ctx, ast.Store) and m.id in read
                      for b in n.body for m in ast.walk(b))]
    if found:
        raise Misconception("inclusive_range_ported_exclusive", f"{name} is {got:,} = (T - 1)^2 = {T - 1}^2"
                            + (f" x d_k = {d_k}" if name == "score_madds" else "") + f", counted over {found[0]}: "
                            + describe("inclusive_range_ported_exclusive"))


# --- naming round 53 (blind53) ----------------------------------------------------------------------------------------

def check_all_blocked(fn, Q, K, V, rng=None):
    """round53 (blind53), Question 5: masks with no True entry at all, one of the scores' shape (batched) and one
    (T_q, T_k) mask shared by the batch: every query is blocked, so the output is all zeros (the notebook's rule for
    a fully blocked row). `if mask is not None and mask.any():` skips the masking there and gives plain attention:
    mask_skipped_when_all_blocked, named when the output is the unmasked result on the same input and a second call
    whose mask allows key 0 alone is right (so the masking works when something is allowed)."""
    T_q, T_k = Q.shape[-2], K.shape[-2]
    if rng is not None:       # round64: first a shared 2-D (T_q, T_k) mask whose one fully masked query is not query 0
        shared = random_mask((T_q, T_k), rng)
        later = torch.zeros(T_q, dtype=torch.bool)
        later[1 + int(torch.randint(0, T_q - 1, (1,), generator=rng))] = True
        shared[later] = False
        check_fully_masked(fn, Q, K, V, shared, later, f"the output with a shared {tuple(shared.shape)} mask "
                           "and a fully masked query")
    dead = torch.ones(T_q, dtype=torch.bool)
    for mask in (torch.zeros(*Q.shape[:-1], T_k, dtype=torch.bool), torch.zeros(T_q, T_k, dtype=torch.bool)):
        what = f"the output with a {tuple(mask.shape)} mask that is False everywhere (every key blocked: all zeros)"
        got = call_sdpa(fn, Q, K, V, mask)
        if (type(got) is torch.Tensor and tuple(got.shape) == tuple(Q.shape[:-1] + V.shape[-1:])
                and not bool((got == 0).all()) and right(got, Q, K, V, None)):
            one = mask.clone()
            one[..., 0] = True                    # each query may see key 0 alone: its output is V's row 0
            if right(second_call(fn, Q, K, V, mask=one), Q, K, V, one):
                raise Misconception("mask_skipped_when_all_blocked", f"{what} is plain unmasked attention, while a "
                                    "mask that allows one key is applied right: "
                                    + describe("mask_skipped_when_all_blocked"))
        check_fully_masked(fn, Q, K, V, mask, dead, what, got)     # one call per mask: helper_blame's replay settles
    if rng is not None:
        check_edge_lengths(fn, Q, K, V)      # round66: T_q = 1 with a padding mask, T_k = 1 with a masked key


_MASK_PROBE_SIZES = ((3, None), (5, None), (3, 5), (5, 3), (4, 4))


def name_mask_all_false(fn, said, submission=None) -> None:
    """round53 (blind53), Question 4: causal_mask a bool mask of the right shape that is False everywhere, at every
    size probed, square and rectangular (torch.triu(ones == 0, diagonal=1): the comparison typed inside the
    triangle call): causal_mask_all_false. One all-False answer alone is not enough: the probes must all be."""
    try:
        masks = [fn(n) if k is None else fn(n, k) for n, k in _MASK_PROBE_SIZES]
    except Exception:  # noqa: BLE001 - a crash here says nothing more
        return
    if all(type(m) is torch.Tensor and m.dtype == torch.bool and tuple(m.shape) == (n, n if k is None else k)
           and not bool(m.any()) for m, (n, k) in zip(masks, _MASK_PROBE_SIZES)):
        name_triangle_threshold(submission, f"{said}, and so it is at every size tried (3, 5, (3, 5), (5, 3))")
        raise Misconception("causal_mask_all_false", f"{said}, and so it is at every size tried (3, 5, (3, 5), "
                            "(5, 3)): no query may see any key, not even itself: " + describe("causal_mask_all_false"))


_NEGATIVE_SIZE_WORDS = ("non-negative", "negative dimension", "negative size", "must be nonnegative")


def name_mask_assumes_more_keys(fn, T_q, T_k, e) -> None:
    """round53 (blind53), Question 4: causal_mask(T_q, T_k) with T_k < T_q raises a negative-size error (a T_q x T_q
    triangle with torch.zeros(T_q, T_k - T_q) columns glued on), while the second calls with as many or more keys
    than queries are right: causal_mask_assumes_more_keys."""
    name_causal_assert_more_keys(fn, T_q, T_k, e)      # round72: an assert T_k >= T_q
    if T_k is None or T_k >= T_q or not any(w in e.message.lower() for w in _NEGATIVE_SIZE_WORDS):
        return
    if not (_mask_right(fn, T_q, T_q) and _mask_right(fn, T_q, T_q + 3) and _mask_right(fn, T_k, T_k + 2)):
        return
    raise Misconception("causal_mask_assumes_more_keys", f"causal_mask({T_q}, {T_k}) raised {e.exc_type} ({e.message}"
                        f"), with fewer keys than queries (T_k - T_q = {T_k - T_q}), while it is right with as many "
                        "or more keys: " + describe("causal_mask_assumes_more_keys"))


def name_trace_mask_all_false(got, softmax, mask_fn, submission=None) -> bool:
    """round53 (blind53), Question 6: weights3_causal NaN in every row from the notebook's own causal_mask(3), not
    from the masking arithmetic. Returns True when causal_mask(3) is not the right mask (then the NaN is not
    mask_times_inf's evidence); raises causal_mask_all_false when it is False everywhere and the student's softmax of
    scores3.masked_fill(~causal_mask(3), -inf) is NaN everywhere, as the answer is."""
    if mask_fn is None or _mask_right(mask_fn, 3):
        return False
    try:
        m = mask_fn(3)
        replay = softmax((ref.Q3 @ ref.K3.T / 2.0).masked_fill(~m, float("-inf")), dim=-1)
    except Exception:  # noqa: BLE001 - a crash here proves nothing, but the mask is still wrong
        return True
    if (type(m) is torch.Tensor and m.dtype == torch.bool and tuple(m.shape) == (3, 3) and not bool(m.any())
            and type(replay) is torch.Tensor and replay.shape == got.shape and bool(torch.isnan(replay).all())):
        name_triangle_threshold(submission, "weights3_causal is NaN in every row because causal_mask(3) is False "
                                "everywhere (fix causal_mask, Question 4, and this cell follows)")
        raise Misconception("causal_mask_all_false", "weights3_causal is NaN in every row because causal_mask(3) is "
                            "False everywhere: every score is filled with -inf and the softmax of a row of -inf is "
                            "0 / 0; fix causal_mask (Question 4) and this cell follows: "
                            + describe("causal_mask_all_false"))
    return True


def name_out3_from_keys(value, weights3, atol) -> None:
    """round53 (blind53), Question 6: out3 = weights3 @ K3, the keys mixed where the values are meant: a (3, d_k = 4)
    answer equal to the reference's weights3 @ K3, or the student's own weights3 @ K3 (the replay with K in V's
    place): output_from_keys. No other answer here has d_k = 4 columns."""
    try:
        got = torch.as_tensor(value, dtype=torch.float64) if type(value) is not torch.Tensor else value.double()
    except (TypeError, ValueError, RuntimeError):
        return
    if got.dim() != 2 or not bool(torch.isfinite(got).all()):
        return
    name_out3_rows_zipped(got, weights3, atol)       # naming round 72: zip(weight row, value row)
    if tuple(got.shape) != tuple(ref.K3.shape):
        return
    for w in (ref.weights3, weights3):
        try:
            replay = torch.as_tensor(w, dtype=torch.float64) @ ref.K3.double()
        except (TypeError, ValueError, RuntimeError):
            continue
        if replay.shape == got.shape and torch.allclose(got, replay, rtol=0, atol=atol):
            raise Misconception("output_from_keys", f"out3 has shape {tuple(got.shape)} and equals weights3 @ K3: "
                                + describe("output_from_keys"))


# ---------------------------------------------------------------------------------------------
# naming round 54 (blind54)
# ---------------------------------------------------------------------------------------------

def _exponent_sums(stmts):
    """(statement index, node, fixed node) for each power b ** (x * y * ...) in the cell's assignments whose exponent
    is a product, and each of its `*`: the same power with that one `*` an addition, b ** (x * y + z) for
    2 ** (10 * 2 * 6) (2 ** 20 squares 2 ** 10, then times 2 ** 6 adds 6)."""
    out = []
    for i, stmt in enumerate(stmts):
        for node in ast.walk(stmt.value):
            if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow)):
                continue
            operands = _mult_operands(node.right) if isinstance(node.right, ast.BinOp) else None
            if not operands or len(operands) < 2:
                continue
            for k in range(1, len(operands)):
                total = ast.BinOp(left=_product_of(operands[:k]), op=ast.Add(), right=_product_of(operands[k:]))
                out.append((i, node, ast.BinOp(left=node.left, op=ast.Pow(), right=total)))
                if len(out) >= POWER_PAIRS_MAX:
                    return out
    return out


def _remainders(stmts):
    """(statement index, node, fixed node) for each a % b in the cell's assignments: the same with a // b."""
    out = []
    for i, stmt in enumerate(stmts):
        for node in ast.walk(stmt.value):
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
                out.append((i, node, ast.BinOp(left=node.left, op=ast.FloorDiv(), right=node.right)))
                if len(out) >= POWER_PAIRS_MAX:
                    return out
    return out


def _name_cell_swap(value, what, submission, find, key, said) -> None:
    """An int answer that the cell's own assignments give as written, and the right count once ONE node that `find`
    lists is replaced by its fix (the replay, never the value alone): raises `key` with said(source of the node)."""
    right = getattr(ref, what, None)
    if type(value) is not int or type(right) is not int or value == right:
        return
    deadline = time.process_time() + REPLAY_CPU_S
    try:
        for source, tree in _last_answer_cell(submission, what):
            stmts = [s for s in tree.body if isinstance(s, ast.Assign) and len(s.targets) == 1][:200]
            if not _small_enough(stmts) or _fold_assignments(stmts, what) != value:
                continue
            for i, node, fixed in find(stmts):
                if time.process_time() > deadline:
                    return
                if _fold_assignments(stmts, what, (i, _replace(stmts[i].value, node, fixed))) != right:
                    continue
                text = ast.get_source_segment(source, node) or ast.unparse(node)
                raise Misconception(key, f"{what} is {value:,}: {said(text, node)} (with that one change your cell "
                                    f"gives {right:,}, the right value): " + describe(key))
    except (RecursionError, MemoryError, ValueError, TypeError, AttributeError):
        return


def name_exponents_multiplied(value, what, submission) -> None:
    """q8, round54 (blind54 q8_powers_of_two_combined_by_multiplying_the_exponents): 2 ** (10 * 2 * 6) for
    2 ** (10 * 2 + 6): the cell's power of a product of exponents, replayed with the exponents added, gives the
    right count: exponents_multiplied."""
    _name_cell_swap(value, what, submission, _exponent_sums, "exponents_multiplied",
                    lambda text, node: f"`{text}` multiplies the exponents, where multiplying powers of "
                                       f"{ast.unparse(node.left)} adds them ({ast.unparse(node.left)} ** (a + b))")


def name_remainder_for_quotient(value, what, submission) -> None:
    """q8, round54 (blind54 q8_percent_typed_for_floor_division_in_the_ratio): cost_ratio = new % old (0: the new
    cost is an exact multiple of the old) where new // old is meant: the cell replayed with that % as // gives the
    right ratio: remainder_for_quotient."""
    _name_cell_swap(value, what, submission, _remainders, "remainder_for_quotient",
                    lambda text, node: f"`{text}` is the remainder of the division, not its quotient")


def _carets_as_powers(source):
    """The cell's text with each `^` operator token written `**` (the power the student meant, bound as tightly as a
    power binds: (2 * T) ^ 2 // T ** 2 is (2 * T) ** 2 // T ** 2 again), or None where it has none or cannot be read."""
    try:
        spots = [t.start for t in tokenize.generate_tokens(io.StringIO(source).readline)
                 if t.type == tokenize.OP and t.string == "^"]
    except (tokenize.TokenError, SyntaxError, IndentationError, ValueError, RecursionError, MemoryError):
        return None
    if not spots or len(spots) > POWER_PAIRS_MAX:
        return None
    lines = source.splitlines(keepends=True)
    for row, col in reversed(spots):
        lines[row - 1] = lines[row - 1][:col] + "**" + lines[row - 1][col + 1:]
    return "".join(lines)


def _assignments(tree):
    return [s for s in tree.body if isinstance(s, ast.Assign) and len(s.targets) == 1][:200]


def name_caret_for_power(value, what, submission) -> None:
    """q8, naming round 78 (blind79 q8_cost_ratio_written_with_caret_for_power): cost_ratio = 2 ^ 2 (xor: 0) where
    2 ** 2 is meant: the cell's assignments give the value as written, and the right ratio once its ^ are replayed
    as ** (a ^ whose power would not give the right ratio names nothing): caret_is_xor."""
    right = getattr(ref, what, None)
    if type(value) is not int or type(right) is not int or value == right:
        return
    try:
        for source, tree in _last_answer_cell(submission, what):
            stmts = _assignments(tree)
            if not _small_enough(stmts) or _fold_assignments(stmts, what) != value:
                continue
            fixed = _carets_as_powers(source)
            if fixed is None:
                continue
            again = _assignments(parse(fixed))
            if not _small_enough(again) or _fold_assignments(again, what) != right:
                continue
            shown = [ast.get_source_segment(source, s) or "" for s in stmts if isinstance(s.value, ast.BinOp)
                     and any(isinstance(n, ast.BinOp) and isinstance(n.op, ast.BitXor) for n in ast.walk(s.value))]
            raise Misconception("caret_is_xor", f"{what} is {value:,}: `{shown[0][:80] if shown else '^'}` uses ^, "
                                f"a bitwise xor (with ** for each ^ your cell gives {right:,}, the right value): "
                                + describe("caret_is_xor"))
    except (SyntaxError, RecursionError, MemoryError, ValueError, TypeError, AttributeError):
        return


def name_trace_mask_fill_nan(got, softmax, mask_fn, submission) -> None:
    """q6, round54 (blind54 q6_blocked_scores_filled_with_nan_as_missing_data): weights3_causal NaN exactly where the
    student's own softmax of scores3.masked_fill(~causal_mask(3), nan) is NaN (the other entries equal to it), the
    notebook's causal_mask(3) right, and the cell that assigns weights3_causal writes a NaN and no infinity (a +inf
    fill gives the same NaN rows: the values alone cannot tell): mask_fill_nan."""
    if (type(got) is not torch.Tensor or tuple(got.shape) != (3, 3) or bool(torch.isfinite(got).all())
            or mask_fn is None or not _mask_right(mask_fn, 3)):
        return
    try:
        scores = ref.Q3 @ ref.K3.T / 2.0
        replay = (softmax or ref.stable_softmax)(scores.masked_fill(~ref.causal_mask(3), float("nan")), dim=-1)
    except Exception:  # noqa: BLE001 - a crash in the replay proves nothing
        return
    if type(replay) is not torch.Tensor or replay.shape != got.shape:
        return
    g, r = got.detach().double(), replay.detach().double()
    nan = torch.isnan(g)
    if not bool(nan.any()) or not bool((nan == torch.isnan(r)).all()) or not bool(torch.isfinite(g[~nan]).all()) \
            or not torch.allclose(g[~nan], r[~nan], rtol=0, atol=5e-4):
        return
    nan_words, inf_words = 0, 0
    try:
        for _source, tree in answer_cell_trees(submission, "weights3_causal"):
            for n in ast.walk(tree):
                if isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value.strip().lower() in (
                        "nan", "-nan", "+nan"):
                    nan_words += 1
                elif isinstance(n, ast.Constant) and isinstance(n.value, str) and "inf" in n.value.lower():
                    inf_words += 1
                elif isinstance(n, (ast.Attribute, ast.Name)):
                    word = (n.attr if isinstance(n, ast.Attribute) else n.id).lower()
                    nan_words += word == "nan"
                    inf_words += word in ("inf", "infinity", "ninf", "pinf")
                elif isinstance(n, ast.Constant) and type(n.value) is float:
                    nan_words += math.isnan(n.value)
                    inf_words += math.isinf(n.value)
    except Exception:  # noqa: BLE001 - an unreadable source shows nothing
        return
    if nan_words and not inf_words:
        rows = sorted({int(i) for i in nan.nonzero()[:, 0]})
        raise Misconception("mask_fill_nan", f"weights3_causal is NaN in row(s) {rows}, the rows with a blocked "
                            "key, exactly as your softmax of scores3 with the blocked scores set to NaN gives: "
                            + describe("mask_fill_nan"))


def sliced_size_entries(value, right, what):
    """q1, round54 (blind54 q1_key_count_taken_with_a_slice_leaves_a_size_inside_the_tuple): a shape tuple (or list)
    with an entry that is a one-element torch.Size (or tuple, list) holding the right size, K.shape[1:2] where
    K.shape[1] is meant, and every other entry the right int: size_slice_in_shape. Other sizes name nothing."""
    if type(value) not in (tuple, list) or len(value) != len(right):
        return
    sliced = [i for i, n in enumerate(value) if isinstance(n, (torch.Size, tuple, list)) and len(n) == 1
              and type(n[0]) is int]
    if not sliced or any(type(n) is not int for i, n in enumerate(value) if i not in sliced):
        return
    sizes = tuple(value[i][0] if i in sliced else value[i] for i in range(len(value)))
    if sizes == tuple(right):
        i = sliced[0]
        shown = f"torch.Size([{value[i][0]}])" if isinstance(value[i], torch.Size) else repr(value[i])
        raise Misconception("size_slice_in_shape", f"{what} holds {shown} at position {i}, a one-element size, where "
                            f"the int {value[i][0]} belongs (the right shape is {tuple(right)}): "
                            + describe("size_slice_in_shape"))


def uniform_example_variances() -> dict[str, float]:
    """q2, round54 (blind54 q2_example_rebuilt_with_uniform_rand_instead_of_randn): the raw scores' variance of the
    example rebuilt with torch.rand (uniform on [0, 1)) where torch.randn is given, after the same torch.manual_seed(0):
    Q and K the first two draws of (2, 5, 8) (V drawn third: the other pairs too), float32 as torch.rand gives."""
    g = torch.Generator().manual_seed(0)
    draws = [torch.rand(2, 5, 8, generator=g) for _ in range(3)]
    return {f"draws {a + 1} and {b + 1}": float((draws[a] @ draws[b].transpose(-2, -1)).var())
            for a, b in ((0, 1), (1, 0), (0, 2), (1, 2))}


def name_uniform_example(raw, said) -> None:
    """raw_score_var equal (to 1e-5 relative) to a uniform_example_variances replay, the caller having seen
    scaled_score_var = raw / 8: uniform_draws. None of these (about 0.4) is near a normal draw's 6.6."""
    name_sequence_first_example(raw, said)      # round62: the example moved with transpose(0, 1), replayed
    if any(abs(raw - v) < 1e-5 * v for v in uniform_example_variances().values()):
        raise Misconception("uniform_draws", f"{said}: they are the variances of the example rebuilt with "
                            "torch.rand after torch.manual_seed(0): " + describe("uniform_draws"))


def ratio_int(value, what, submission) -> int:
    """q8's expect_int for cost_ratio, then (round54) a `%` typed for `//` in its cell, replayed
    (name_remainder_for_quotient)."""
    got = expect_int(value, what)
    name_remainder_for_quotient(got, what, submission)
    name_caret_for_power(got, what, submission)          # naming round 78: 2 ^ 2 (xor, 0) for 2 ** 2
    name_count_over_itself(got, what, submission)       # round59: the same list entry on both sides
    return got


def _index_value(node, ints, lengths, depth=0):
    """An int index expression of the cell's ints (_const_eval), len(name) of a list of known length, and min/max of
    such; None for anything else."""
    if depth > 20:
        return None
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords
            and node.func.id in ("min", "max", "len") and 1 <= len(node.args) <= 8):
        if node.func.id == "len":
            a = node.args[0]
            return lengths.get(a.id) if len(node.args) == 1 and isinstance(a, ast.Name) else None
        vals = [_index_value(a, ints, lengths, depth + 1) for a in node.args]
        if len(vals) < 2 or any(type(v) is not int for v in vals):
            return None
        return min(vals) if node.func.id == "min" else max(vals)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
        a, b = _index_value(node.left, ints, lengths, depth + 1), _index_value(node.right, ints, lengths, depth + 1)
        if type(a) is int and type(b) is int:
            return a + b if isinstance(node.op, ast.Add) else a - b
    v = _const_eval(node, ints)
    return v if type(v) is int else None


def _display_length(node):
    """The length of a list or tuple display, or of a comprehension over one (or over range(n)); None else."""
    if isinstance(node, (ast.List, ast.Tuple)) and not any(isinstance(e, ast.Starred) for e in node.elts):
        return len(node.elts)
    if isinstance(node, ast.ListComp) and len(node.generators) == 1 and not node.generators[0].ifs:
        it = node.generators[0].iter
        if isinstance(it, (ast.List, ast.Tuple)) and not any(isinstance(e, ast.Starred) for e in it.elts):
            return len(it.elts)
    return None


def name_count_over_itself(value, what, submission) -> None:
    """q8, round59 (blind59 q8_one_based_index_error_clipped_so_the_ratio_divides_a_count_by_itself): cost_ratio = 1
    from a last assignment `x[i] // x[j]` (or /) whose two indexes the cell's own assignments work out to the same
    entry (an index counted from 1, clipped or wrapped into range: min(2, len(x) - 1)), or `x // x`: a count divided
    by itself. Student text: parsed, never run; only ints, len() of list displays, min/max and + - are followed."""
    if what != "cost_ratio" or value != 1:
        return
    try:
        for _source, tree in _last_answer_cell(submission, what):
            stmts = [st for st in tree.body if isinstance(st, ast.Assign) and len(st.targets) == 1
                     and isinstance(st.targets[0], ast.Name)][:ALIAS_STMTS_MAX]
            if not _small_enough(stmts):
                return
            ints: dict = {}
            lengths: dict = {}
            last = None
            for st in stmts:
                name = st.targets[0].id
                n = _display_length(st.value)
                if n is not None:
                    lengths[name] = n
                else:
                    lengths.pop(name, None)
                v = _index_value(st.value, ints, lengths)
                if type(v) is int:
                    ints[name] = v
                else:
                    ints.pop(name, None)
                if name == what:
                    last = (st.value, dict(ints), dict(lengths))
            if last is None:
                return
            node, ints_then, lengths_then = last
            if not (isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Div, ast.FloorDiv))):
                return
            a, b = node.left, node.right
            if isinstance(a, ast.Name) and isinstance(b, ast.Name) and a.id == b.id:
                same = a.id
            elif (isinstance(a, ast.Subscript) and isinstance(b, ast.Subscript) and isinstance(a.value, ast.Name)
                  and isinstance(b.value, ast.Name) and a.value.id == b.value.id):
                n = lengths_then.get(a.value.id)
                i, j = (_index_value(t.slice, ints_then, lengths_then) for t in (a, b))
                if n is None or type(i) is not int or type(j) is not int or not (-n <= i < n and -n <= j < n) \
                        or i % n != j % n:
                    return
                same = f"{a.value.id}[{i % n}]"
            else:
                return
            text = unparse(node)[:80]
            raise Misconception("count_over_itself", f"{what} is 1: `{text}` divides {same[:40]} by itself (both "
                                "sides are the same entry): " + describe("count_over_itself"))
    except (RecursionError, MemoryError, ValueError, TypeError, AttributeError, KeyError):
        return


# q1's one whole number for a shape (moved from q1.py, round55)
def name_entry_count(value, right, what):
    """q1, round38 (blind37): one whole number equal to the right shape's product (4 * 10 * 10 = 400, .numel()): the
    number of entries given for the shape. Another number is said by expect_shape, without a name."""
    if isinstance(value, torch.Tensor) and value.dim() == 0 and not value.dtype.is_floating_point \
            and value.dtype != torch.bool:
        value = int(value)
    if type(value) is not int or value != math.prod(right):
        return
    raise Misconception("shape_as_entry_count", f"{what} is {value} = {' x '.join(map(str, right))}, the number of "
                        f"entries: write the shape as the tuple {tuple(right)}; " + describe("shape_as_entry_count"))


# --- naming round 55 -----------------------------------------------------------------------------------------

ALIAS_LIST_MAX = 16          # entries a replayed shape list may hold (a shape has a handful)
ALIAS_STMTS_MAX = 200        # top-level statements replayed per cell list
_UNKNOWN = object()          # a value the alias replay does not work out (a tensor, a call, ...)
_LIST_METHODS = frozenset({"append", "extend", "insert", "pop", "remove", "reverse", "sort", "clear"})


class _Stop(Exception):
    """The alias replay meets something it cannot follow: it names nothing."""


def _alias_eval(node, env):
    """The value of a shape expression: an int (literals and names, _const_eval), a list (a new one for a display,
    the bound object itself for a name), a tuple, or _UNKNOWN; list(x), tuple(x), x.copy(), x[:] and x + y copy."""
    ints = {k: v for k, v in env.items() if type(v) is int}
    n = _const_eval(node, ints)
    if type(n) is int:
        return n
    if isinstance(node, ast.Name):
        return env.get(node.id, _UNKNOWN)
    if isinstance(node, (ast.List, ast.Tuple)):
        out = []
        for e in node.elts:
            v = _alias_eval(e.value if isinstance(e, ast.Starred) else e, env)
            if isinstance(e, ast.Starred) and isinstance(v, (list, tuple)):
                out.extend(v)
            elif type(v) is int:
                out.append(v)
            else:
                return _UNKNOWN
        if len(out) > ALIAS_LIST_MAX:
            return _UNKNOWN
        return out if isinstance(node, ast.List) else tuple(out)
    if isinstance(node, ast.Call) and not node.keywords:
        f = node.func
        if isinstance(f, ast.Name) and f.id in ("list", "tuple") and len(node.args) == 1:
            v = _alias_eval(node.args[0], env)
            return (list(v) if f.id == "list" else tuple(v)) if isinstance(v, (list, tuple)) else _UNKNOWN
        if isinstance(f, ast.Attribute) and f.attr == "copy" and not node.args:
            v = _alias_eval(f.value, env)
            return list(v) if isinstance(v, list) else _UNKNOWN
    if isinstance(node, ast.Subscript):
        v = _alias_eval(node.value, env)
        if not isinstance(v, (list, tuple)):
            return _UNKNOWN
        s = node.slice
        if isinstance(s, ast.Slice) and s.lower is None and s.upper is None and s.step is None:
            return v[:]
        i = _const_eval(s, {k: x for k, x in env.items() if type(x) is int})
        return v[i] if type(i) is int and -len(v) <= i < len(v) else _UNKNOWN
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        a, b = _alias_eval(node.left, env), _alias_eval(node.right, env)
        if type(a) is type(b) and isinstance(a, (list, tuple)) and len(a) + len(b) <= ALIAS_LIST_MAX:
            return a + b
    return _UNKNOWN


def _mentions(stmt, env) -> bool:
    """Whether `stmt` reads or writes a name bound to a replayed list."""
    return any(isinstance(n, ast.Name) and isinstance(env.get(n.id), list) for n in ast.walk(stmt))


def _shown_only(node) -> bool:
    """A name, a literal, or a tuple / f-string of them: shown, never changed."""
    return all(isinstance(n, (ast.Name, ast.Constant, ast.Tuple, ast.JoinedStr, ast.FormattedValue, ast.Load))
               for n in ast.walk(node))


def _alias_mutate(stmt, env):
    """Apply a statement that changes a bound list in place (x[i] = v, del x[i], x += [...], x.append(v), ...):
    the list object, or None where `stmt` is no such statement. _Stop where it cannot be followed."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Subscript):
        target = stmt.targets[0]
        obj, v = _alias_eval(target.value, env), _alias_eval(stmt.value, env)
        i = _const_eval(target.slice, {k: x for k, x in env.items() if type(x) is int})
        if not isinstance(obj, list) or type(i) is not int or not -len(obj) <= i < len(obj) or type(v) is not int:
            raise _Stop
        obj[i] = v
        return obj
    if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name) and isinstance(stmt.op, ast.Add) \
            and isinstance(env.get(stmt.target.id), list):
        obj, v = env[stmt.target.id], _alias_eval(stmt.value, env)
        if not isinstance(v, (list, tuple)) or len(obj) + len(v) > ALIAS_LIST_MAX:
            raise _Stop
        obj.extend(v)
        return obj
    if isinstance(stmt, ast.Delete) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Subscript):
        obj = _alias_eval(stmt.targets[0].value, env)
        i = _const_eval(stmt.targets[0].slice, {k: x for k, x in env.items() if type(x) is int})
        if not isinstance(obj, list) or type(i) is not int or not -len(obj) <= i < len(obj):
            raise _Stop
        del obj[i]
        return obj
    call = stmt.value if isinstance(stmt, ast.Expr) else None
    if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr in _LIST_METHODS:
        obj = _alias_eval(call.func.value, env)
        if not isinstance(obj, list):
            return None
        args = [_alias_eval(a, env) for a in call.args]
        if call.keywords or any(a is _UNKNOWN for a in args):
            raise _Stop
        try:
            if call.func.attr == "extend" and (len(args) != 1 or not isinstance(args[0], (list, tuple))
                                               or len(obj) + len(args[0]) > ALIAS_LIST_MAX):
                raise _Stop
            if call.func.attr in ("append", "insert") and len(obj) >= ALIAS_LIST_MAX:
                raise _Stop
            getattr(obj, call.func.attr)(*args)
        except (TypeError, ValueError, IndexError) as e:
            raise _Stop from e
        return obj
    return None


def _alias_bind(targets, value, env, copies):
    """Bind each target (a name, or a tuple of names unpacking a tuple/list) to `value`; with `copies`, a list
    given to several names (x = y = [...], or y = x) is copied for each but the first."""
    for k, target in enumerate(targets):
        v = list(value) if copies and isinstance(value, list) and k > 0 else value
        if isinstance(target, ast.Name):
            env[target.id] = v
        elif isinstance(target, (ast.Tuple, ast.List)) and all(isinstance(t, ast.Name) for t in target.elts):
            parts = v if isinstance(v, (list, tuple)) and len(v) == len(target.elts) else [_UNKNOWN] * len(target.elts)
            for t, p in zip(target.elts, parts):
                env[t.id] = p
        else:
            raise _Stop


def _alias_replay(stmts, copies):
    """The names a cell's top-level statements bind, replayed with Python's sharing of lists (copies=False) or
    with every `y = x` and `x = y = [...]` of a list taken as a copy (copies=True); plus (binding, change) where a
    list bound to two names was changed in place (the first such pair). _Stop where a statement cannot be followed."""
    env: dict = {}
    shared: dict = {}         # id(list) -> the latest statement that gave it one more name
    found = None
    for stmt in stmts:
        obj = _alias_mutate(stmt, env)
        if obj is not None:
            if found is None and id(obj) in shared:
                found = (shared[id(obj)], stmt)
            continue
        if isinstance(stmt, ast.Assign):
            tuples = [t for t in stmt.targets if isinstance(t, (ast.Tuple, ast.List))]
            if tuples and isinstance(stmt.value, (ast.Tuple, ast.List)) and len(stmt.targets) == 1 \
                    and len(tuples[0].elts) == len(stmt.value.elts):
                values = [_alias_eval(v, env) for v in stmt.value.elts]       # a, b = x, y: read, then bound
                value = values if not copies else [list(v) if isinstance(v, list) else v for v in values]
                _alias_bind(stmt.targets, value, env, False)
                continue
            value = _alias_eval(stmt.value, env)
            if isinstance(value, list) and (isinstance(stmt.value, ast.Name) or len(stmt.targets) > 1):
                if copies and isinstance(stmt.value, ast.Name):
                    value = list(value)
                elif not copies:
                    shared[id(value)] = stmt        # the latest binding that shares it
            _alias_bind(stmt.targets, value, env, copies)
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)) or (isinstance(stmt, ast.Expr) and not _mentions(stmt, env)):
            continue
        elif isinstance(stmt, ast.Expr) and (_shown_only(stmt.value) or isinstance(stmt.value, ast.Call)
                                              and isinstance(stmt.value.func, ast.Name) and stmt.value.func.id
                                              in ("print", "display") and all(map(_shown_only, stmt.value.args))):
            continue        # a list shown (print(x), x at a cell's end) is not changed
        elif isinstance(stmt, (ast.FunctionDef, ast.ClassDef)) and not _mentions(stmt, env):
            env[stmt.name] = _UNKNOWN
        else:
            raise _Stop
    return env, found


def name_list_aliased(got, right, what, submission) -> None:
    """q1, round55 (blind55 q1_out_shape_list_aliases_the_weights_list): a shape written as a list, given a second
    name (`out_shape = weights_shape`, or `weights_shape = out_shape = [...]`) and then changed in place through
    one of them (`out_shape[-1] = 128`, .append, +=): both names see the change. Named list_aliased_not_copied only
    where the cells that assign the answers, replayed (literals and names only, bounded), give the student's shape
    as written and the right one with each such binding a copy. Student text: parsed, never run."""
    if tuple(got) == tuple(right) or submission is None:
        return
    cells = cells_of(submission)
    chosen = sorted({i for name in ("weights_shape", "out_shape") for i in cells_assigning(cells, name)})
    stmts = []
    try:
        for i in chosen:
            stmts += parse(cells[i]).body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return
    if len(stmts) > ALIAS_STMTS_MAX or not _small_enough(stmts):
        return
    try:
        shared, found = _alias_replay(stmts, copies=False)
        apart, _ = _alias_replay(stmts, copies=True)
    except (_Stop, RecursionError, MemoryError, TypeError, ValueError, IndexError):
        return
    mine, fixed = shared.get(what), apart.get(what)
    if found is None or not isinstance(mine, (list, tuple)) or not isinstance(fixed, (list, tuple)):
        return
    if tuple(mine) != tuple(got) or tuple(fixed) != tuple(right):
        return
    bound, changed = (unparse(s).splitlines()[0][:70] for s in found)
    raise Misconception("list_aliased_not_copied", f"{what} is {tuple(got)}, not {tuple(right)}: in your cell "
                        f"`{bound}` gives the same list a second name (it copies nothing), so `{changed}` changes "
                        f"it under both names; with a copy there, {what} would be {tuple(right)}: "
                        + describe("list_aliased_not_copied"))


def name_numpy_reduction_on_tensor(missing, crash):
    """q2, round55 (blind55 q2_np_var_called_on_the_torch_tensor): an answer undefined because its cell stopped on
    np.var (or np.std) of a torch tensor: NumPy does not convert it but calls the tensor's own .var with NumPy's
    keywords (axis=, dtype=, out=, ddof=, keepdims=), which torch's method does not take. Named numpy_keyword, with
    that reason, when the grader's own np.var / np.std of a tensor raises the same words (ddof or not: NumPy passes
    ddof=0 itself, so leaving ddof=1 out does not help)."""
    import numpy as np
    S = torch.zeros(2, 5, 5)
    replays = {f"numpy_keyword/{f.__name__}/{axis}/{keep}": (lambda f=f, a=axis, k=keep: f(S, axis=a, **k))
               for f in (np.var, np.std) for axis in (None, -1) for keep in ({}, {"keepdims": True})}
    if crash_replayed(crash, replays) is None:
        return
    which = "std" if "std()" in crash else "var"
    raise Misconception("numpy_keyword", f"`{missing}` is not defined: its cell stopped with "
                        f"{crash.split(' (line ')[0].split(', but expected')[0]}: np.{which} does not turn a torch "
                        f"tensor into an array, it calls the tensor's own .{which}(axis=..., dtype=..., out=..., "
                        f"ddof=...) with NumPy's keywords, which torch's method does not take, so leaving out ddof "
                        f"alone still fails (NumPy passes ddof=0 itself); call the tensor's method, x.{which}() "
                        f"(already unbiased), or NumPy on an array, np.{which}(x.numpy(), ddof=1): "
                        + describe("numpy_keyword"))


def one_based_permutes(submission, answer: str) -> list[tuple[int, ...]]:
    """round56 (blind56 q1_keys_permuted_with_matlab_one_based_axis_numbers): the axis numbers of each
    .permute / torch.permute call in the cells assigning `answer` whose numbers, all written as ints, are 1 to n in
    some order (MATLAB's permute(K, [1 3 2]) counted from 1): permute(1, 3, 2), permute((1, 3, 2)). Student text:
    parsed, never run."""
    found: list[tuple[int, ...]] = []
    try:
        for _source, tree in answer_cell_trees(submission, answer):
            for node in ast.walk(tree):
                if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                        and node.func.attr == "permute" and node.args):
                    continue
                args = list(node.args)
                if isinstance(node.func.value, ast.Name) and node.func.value.id == "torch":
                    args = args[1:]                        # torch.permute(K, (1, 3, 2))
                if len(args) == 1 and isinstance(args[0], (ast.Tuple, ast.List)):
                    args = list(args[0].elts)
                axes = [a.value for a in args if isinstance(a, ast.Constant) and type(a.value) is int]
                if len(axes) == len(args) >= 2 and sorted(axes) == list(range(1, len(axes) + 1)):
                    found.append(tuple(axes))
    except Exception:  # noqa: BLE001 - an unreadable source shows nothing
        return []
    return found


def name_one_based_permute_crash(missing, crash, shapes, submission):
    """q1, round56: an answer undefined because its cell stopped on a permute whose axis numbers count from 1
    (the source: every number one too many), and that permute on zeros of one of the question's shapes raises the
    cell's own words ("Dimension out of range ... but got 3")."""
    if not crash:
        return
    for axes in one_based_permutes(submission, missing):
        replays = {f"axes_counted_from_one/{i}": (lambda s=s, a=axes: torch.zeros(s).permute(*a))
                   for i, s in enumerate(dict.fromkeys(tuple(s) for s in shapes)) if len(s) == len(axes)}
        if replays and crash_replayed(crash, replays) is not None:
            right = ", ".join(str(a - 1) for a in axes)
            raise Misconception("axes_counted_from_one", f"`{missing}` is not defined: its cell stopped with "
                                f"{crash.split(' (line ')[0].rstrip('.')}: your permute{axes} numbers the axes from 1, "
                                f"as MATLAB does; a {len(axes)}-D tensor's axes are 0 to {len(axes) - 1}, so "
                                f"permute({right}) is meant: " + describe("axes_counted_from_one"))


def name_statistics_of_tensor_crash(missing, crash):
    """q2, round56 (blind56 q2_statistics_variance_fed_zero_dim_tensors_instead_of_floats): an answer undefined
    because its cell stopped where the statistics module was given a tensor: iterating it yields 0-dim tensors,
    which statistics cannot turn into fractions. Named when the grader's own statistics.variance (or pvariance,
    stdev, pstdev, mean, median_low...) of a flattened (2, 5, 5) tensor raises the same words."""
    import statistics
    S = torch.zeros(2, 5, 5).flatten()
    replays = {f"statistics_of_tensor/{f.__name__}": (lambda f=f: f(S))
               for f in (statistics.variance, statistics.pvariance, statistics.stdev, statistics.pstdev,
                         statistics.mean)}
    if not crash or not any(crash_replayed(crash, {k: f}) for k, f in replays.items()):
        return
    raise Misconception("statistics_of_tensor", f"`{missing}` is not defined: its cell stopped with "
                        f"{crash.split(' (line ')[0].rstrip('.')}, the crash that statistics.variance (or mean, stdev) "
                        "of a tensor's items gives: " + describe("statistics_of_tensor"))


SQUARE_HELPER = "generate_square_subsequent_mask"


def square_helper_words(submission, fn_name="causal_mask") -> str:
    """q4, round55 (blind55 q4_square_subsequent_mask_helper_ignores_t_k): the words for a square mask from one
    length (causal_ignores_T_k) where the notebook's `fn_name` calls nn.Transformer.generate_square_subsequent_mask,
    which takes one size and makes (size, size) masks only; "" where its source shows no such call. Parsed, never
    run."""
    try:
        for _source, tree in answer_cell_trees(submission, fn_name):
            for node in ast.walk(tree):
                if not (isinstance(node, ast.FunctionDef) and node.name == fn_name):
                    continue
                if any(isinstance(n, ast.Call) and (getattr(n.func, "attr", None) == SQUARE_HELPER
                                                    or getattr(n.func, "id", None) == SQUARE_HELPER)
                       for n in ast.walk(node)):
                    return (f"; your {fn_name} builds it with {SQUARE_HELPER}, which takes one size and only makes "
                            "square (size, size) masks: build the (T_q, T_k) mask yourself, "
                            "torch.ones(T_q, T_k, dtype=torch.bool).tril()")
    except (RecursionError, MemoryError, ValueError):
        return ""
    return ""


# q7: a letter picked by a check whose form decides it whatever the tensors hold
_TENSOR_VERDICTS = frozenset({"all", "any", "isclose", "eq", "ne", "logical_and", "logical_or", "logical_not"})


def _tensor_verdict(node, bound) -> bool:
    """Whether the expression gives a tensor (or a NumPy bool) of truth values, never the object True or False:
    x.all(), torch.isclose(a, b).any(), torch.eq(a, b), through one name bound to such a call."""
    if isinstance(node, ast.Name):
        node = bound.get(node.id)
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _TENSOR_VERDICTS


def _is_match(node, bound) -> bool:
    """An entrywise equality test: torch.isclose(a, b), a.eq(b), a == b (through one name)."""
    if isinstance(node, ast.Name):
        node = bound.get(node.id)
    if isinstance(node, ast.Compare):
        return len(node.ops) == 1 and isinstance(node.ops[0], ast.Eq)
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("isclose", "eq")


def _letter_branches(stmt, what):
    """(test, letter if true, letter if false) of `what = "A" if test else "C"` or of an if/else whose two branches
    are each `what = "<letter>"` alone; None for any other statement."""
    def letter(node):
        return node.value.strip().upper() if isinstance(node, ast.Constant) and isinstance(node.value, str) else None

    def assigned(body):
        if len(body) == 1 and isinstance(body[0], ast.Assign) and len(body[0].targets) == 1 \
                and isinstance(body[0].targets[0], ast.Name) and body[0].targets[0].id == what:
            return letter(body[0].value)
        return None
    if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == what for t in stmt.targets) \
            and isinstance(stmt.value, ast.IfExp):
        return stmt.value.test, letter(stmt.value.body), letter(stmt.value.orelse)
    if isinstance(stmt, ast.If):
        return stmt.test, assigned(stmt.body), assigned(stmt.orelse)
    return None


def trap_check_words(submission, value, answer, what="q_trap_answer") -> str:
    """q7, round55 (blind55 q7_ambiguous_truth_value_silenced_with_any, q7_tensor_verdict_compared_with_is_false):
    what the check that picks a wrong letter does whatever the tensors hold, read off the last top-level statement
    of the last cell that sets `what` (parsed, never run): `match.any()` (torch.isclose(a, b).any()) is True as
    soon as one entry matches; `v is False` (v a tensor verdict such as .all()) tests identity with the object
    False, which a tensor never is. Said only where the branch that form takes is the student's letter and the
    other branch is the answer; "" otherwise."""
    given = value.strip().strip("()").strip().upper() if isinstance(value, str) else None
    try:
        for _source, tree in list(answer_cell_trees(submission, what))[-1:]:
            bound: dict = {}
            found = None
            for stmt in tree.body:
                branches = _letter_branches(stmt, what)
                if branches is not None:
                    found = (stmt, branches, dict(bound))
                if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                    bound[stmt.targets[0].id] = stmt.value
            if found is None:
                return ""
            _stmt, (test, if_true, if_false), bound = found
            if None in (if_true, if_false, given) or if_true == if_false:
                return ""
            negated = False
            while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
                test, negated = test.operand, not negated
            shown = unparse(test)[:60]
            if isinstance(test, ast.Call) and isinstance(test.func, ast.Attribute) and test.func.attr == "any":
                inner = test.args[0] if test.args and isinstance(test.func.value, ast.Name) \
                    and test.func.value.id in ("torch", "np", "numpy") else test.func.value
                taken, other = (if_false, if_true) if negated else (if_true, if_false)
                if _is_match(inner, bound) and given == taken and other == answer.upper():
                    return (f"`{shown}` is True as soon as one entry matches, and some always do (the blocked "
                            f"entries are 0 both ways), so your check takes the \"{taken}\" branch; that the two ways "
                            f"agree needs every entry to match, .all() (or torch.allclose), which is not the case: "
                            f"the other branch, \"{other}\", is the answer")
            if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Is, ast.IsNot)) \
                    and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value in (True, False) \
                    and type(test.comparators[0].value) is bool and _tensor_verdict(test.left, bound):
                always = isinstance(test.ops[0], ast.IsNot) != negated     # identity with a tensor: never
                taken, other = (if_true, if_false) if always else (if_false, if_true)
                if given == taken and other == answer.upper():
                    obj = unparse(test.left)[:40]
                    meant = obj if isinstance(test.ops[0], ast.Is) == test.comparators[0].value else f"not {obj}"
                    return (f"`{shown}` asks whether {obj} is the very object {test.comparators[0].value}, and a "
                            f"tensor (tensor(False) from .all() or .any()) never is, so the test comes out the same "
                            f"whatever the check found and your code always takes the \"{taken}\" branch; test its "
                            f"truth instead (`{meant}`, or {obj}.item()), which gives \"{other}\"")
            # round67 (blind67 q7_shortcut_tried_on_the_already_causal_weights3_causal_answers_a): the shortcut tried
            # on q6's causal weights, whose blocked entries are 0 already, never on the plain softmax weights3
            read = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
            if "weights3_causal" in read and "weights3" not in read and given in (if_true, if_false) \
                    and answer.upper() in (if_true, if_false) and given != answer.upper():
                return ("your check tries the shortcut on weights3_causal, whose blocked entries the causal softmax "
                        "has already set to 0 (and whose rows already sum to 1), so zeroing them changes nothing and "
                        f"the check gives \"{given}\" whatever the shortcut does; try it on the plain softmax weights "
                        "weights3")
    except (RecursionError, MemoryError, ValueError, AttributeError, IndexError):
        return ""
    return ""


# --- naming round 57 -----------------------------------------------------------------------------------------

def name_count_slips(got, name, submission) -> None:
    """q8's last readings of a count before it is said in numbers: power_typed_as_e_notation (name_e_notation), then
    (round57) a count computed after its cell changed a length it reads (name_counted_after_rebinding)."""
    name_e_notation(got, name)
    name_power_of_two_past_length(got, name, submission)     # naming round 88: 1 << T.bit_length() pads 1024 to 2048
    name_count_iterable_slips(got, name, submission)     # naming round 72: an iterator read twice, a product from 0
    name_counted_after_rebinding(got, name, submission)
    name_tile_entries(got, name, submission)         # naming round 63: BLOCK_M x BLOCK_N, one FlashAttention tile
    name_count_started_at_one(got, name, submission)     # naming round 69: a counter started at 1


def _fold_in_order(stmts, order):
    """{name: value} that the cell's top-level `x = expr` and `x op= expr` statements (literals and names, folded by
    _const_eval) give, run in `order` (indexes into stmts)."""
    env = {}
    for i in order:
        stmt = stmts[i]
        if isinstance(stmt, ast.AugAssign):
            env[stmt.target.id] = _const_eval(ast.BinOp(left=ast.Name(stmt.target.id, ast.Load()), op=stmt.op,
                                                        right=stmt.value), env)
        else:
            target, value = stmt.targets[0], stmt.value
            if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) and len(target.elts) == len(value.elts):
                env.update({t.id: _const_eval(v, env) for t, v in zip(target.elts, value.elts)
                            if isinstance(t, ast.Name)})
            elif isinstance(target, ast.Name):
                env[target.id] = _const_eval(value, env)
    return env


def _binds(stmt):
    """The names a folded statement binds."""
    if isinstance(stmt, ast.AugAssign):
        return {stmt.target.id}
    target = stmt.targets[0]
    return {t.id for t in (target.elts if isinstance(target, ast.Tuple) else [target]) if isinstance(t, ast.Name)}


def name_counted_after_rebinding(got, what, submission) -> None:
    """q8, round57 (blind57 q8_length_doubled_before_score_madds_is_counted_from_it): the cell counts `what` on a line
    below one that changes a name the count reads (`T *= 2` for the ratio, then score_madds = T ** 2 * d_head): the
    cell's own statements, folded as written, give the student's count, and the same statements with the count's
    line moved just above that change give the right one while every other name the cell binds keeps its value
    (the replay, never the value alone: 4 T^2 d_k is also a batch of 4, or float32 bytes): counted_after_rebinding."""
    right = getattr(ref, what, None)
    if type(got) is not int or type(right) is not int or got == right:
        return
    deadline = time.process_time() + REPLAY_CPU_S
    try:
        for _source, tree in _last_answer_cell(submission, what):
            stmts = [s for s in tree.body if (isinstance(s, ast.Assign) and len(s.targets) == 1)
                     or (isinstance(s, ast.AugAssign) and isinstance(s.target, ast.Name))][:ALIAS_STMTS_MAX]
            if not _small_enough(stmts):
                continue
            written = list(range(len(stmts)))
            env = _fold_in_order(stmts, written)
            counts = [j for j in written if what in _binds(stmts[j])]
            if env.get(what) != got or not counts or time.process_time() > deadline:
                continue
            j = counts[-1]
            read = {n.id for n in ast.walk(stmts[j].value) if isinstance(n, ast.Name)}
            for i in reversed(range(j)):
                changed = _binds(stmts[i]) & read
                # a change of a name the count reads, bound before it (a rebinding, not the name's first value)
                if not changed or not any(changed & _binds(stmts[k]) for k in range(i)) or what in _binds(stmts[i]):
                    continue
                moved = _fold_in_order(stmts, [*written[:i], j, *written[i:j], *written[j + 1:]])
                if moved.get(what) != right or any(moved.get(n) != v for n, v in env.items() if n != what):
                    return
                line = unparse(stmts[i])[:60]
                name = sorted(changed)[0]
                raise Misconception("counted_after_rebinding", f"{what} is {got:,}: it is counted below `{line}`, "
                                    f"so it uses the changed {name} = {env.get(name)}; counted above that line, your "
                                    f"cell gives {right:,}, the right value: " + describe("counted_after_rebinding"))
    except (RecursionError, MemoryError, ValueError, TypeError, AttributeError):
        return


def name_one_loop_pass(got, right, what, submission, atol) -> None:
    """q6, round57 (blind57 q6_causal_rows_helper_returns_inside_its_row_loop): `got` right in its first row (or
    column) alone, every other entry one same number (the fill the function started from: zeros_like), and the
    function the cell calls to make `what` ends with a loop whose body ends with `return` (source_checks.
    return_inside_loop): the function returned after one pass of the loop: helper_return_in_loop."""
    name_causal_loop_short(got, right, what, submission, atol)     # round66: range(T - 1) leaves the last row 0
    if type(got) is not torch.Tensor or type(right) is not torch.Tensor or got.shape != right.shape or got.dim() != 2 \
            or min(got.shape) < 2 or not got.dtype.is_floating_point:
        return
    g, r = got.detach().double(), right.detach().double()
    if not bool(torch.isfinite(g).all()):
        return
    passes = [(word, rest) for axis, word in ((0, "row"), (1, "column"))
              if torch.allclose(g.select(axis, 0), r.select(axis, 0), rtol=0, atol=atol)
              and bool(((rest := g.narrow(axis, 1, g.shape[axis] - 1)) == g.narrow(axis, 1, 1).flatten()[0]).all())
              and not torch.allclose(rest, r.narrow(axis, 1, r.shape[axis] - 1), rtol=0, atol=atol)]
    if not passes:
        return
    word, rest = passes[0]
    found = return_inside_loop(cells_of(submission) if submission is not None else [], what)
    if found is None:
        return
    fn, line = found
    raise Misconception("helper_return_in_loop", f"{what} is right in its first {word} alone, every later {word} "
                        f"still {float(rest.flatten()[0]):g}, what one pass of the loop gives: `{line}` in `{fn}` is "
                        f"indented into its for loop, so `{fn}` returns after the first {word}: "
                        + describe("helper_return_in_loop"))


# ---------------------------------------------------------------------------------------------
# naming round 58 (blind58): a scale read off the source where two divisors coincide on the question's numbers
# ---------------------------------------------------------------------------------------------

def _cell_trees(submission, *names):
    """(Segments, tree) of the cells that store one of `names`; unreadable cells left out. Student text: parsed
    (pyparse, bounded), never run."""
    cells = cells_of(submission) if submission is not None else []
    chosen = [cells[i] for i in sorted({i for name in names for i in cells_assigning(cells, name)})]
    out = []
    for cell in chosen:
        try:
            out.append((Segments(cell), parse(cell)))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
    return out


def _source_hit(trees, test) -> str | None:
    """The quoted source of the first node of `trees` that `test` accepts, else None."""
    for segments, tree in trees:
        for node in ast.walk(tree):
            if test(node):
                return (segments.of(node) or unparse(node)).splitlines()[0][:80]
    return None


def _precedence_slip(node) -> bool:
    """`x ** 1 / 2` or `x ** -1 / 2` as Python reads it: (x ** 1) / 2, (x ** -1) / 2."""
    return (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div) and _number(node.right) == 2
            and isinstance(node.left, ast.BinOp) and isinstance(node.left.op, ast.Pow)
            and _number(node.left.right) in (1, -1))


def _leading_axis_read(node) -> bool:
    """A leading axis read: t.shape[0], t.size(0), t.shape[:-2] or len(t)."""
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "shape":
        index = node.slice
        return _number(index) == 0 or (isinstance(index, ast.Slice) and index.lower is None and index.upper is not None
                                       and index.step is None and _number(index.upper) in (-2, -1))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "size":
        return len(node.args) == 1 and _number(node.args[0]) == 0
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len"


def name_scores_over_four(scaled, submission) -> None:
    """q2: scaled_score_var = raw / 16 or raw / 256, the scores divided by 4 or 16. On the (2, 5, 8) example 4 is
    d_k / 2 (d_k ** 1/2, scale_precedence) AND sqrt(2 x 8), the batch read as heads times d_k (scale_by_batch_dim,
    blind58): which one is read off the cells that make scaled_score_var (a `** 1/2`, or a leading axis read);
    16 is 2 d_k (d_k ** -1/2) alone. Neither shown: both readings said, no key."""
    trees = _cell_trees(submission, "scaled_score_var")
    slip = _source_hit(trees, _precedence_slip)
    over = abs(scaled - ref.raw_score_var / 16) < abs(scaled - ref.raw_score_var / 256)
    if slip is not None or not over:
        raise Misconception("scale_precedence", "scaled_score_var matches scores divided by d_k / 2 or 2 d_k"
                            + (f" (`{slip}`)" if slip else "") + ": " + describe("scale_precedence"))
    lead = _source_hit(trees, _leading_axis_read)
    if lead is not None:
        raise Misconception("scale_by_batch_dim", f"scaled_score_var is {scaled:.4g} = raw / 16: the scores were "
                            f"divided by 4 = sqrt(2 x 8), the leading axis of the (2, 5, 8) example times d_k "
                            f"(your cell reads `{lead}`), not by sqrt(d_k) = sqrt(8): " + describe("scale_by_batch_dim"))
    raise AssertionError(f"scaled_score_var is {scaled:.4g} = raw / 16: the scores were divided by 4, not by "
                         "sqrt(d_k) = sqrt(8) = 2.83 (4 is d_k / 2, as d_k ** 1/2 gives, and sqrt(2 x 8), the "
                         "batch axis multiplied in): divide by math.sqrt(Q.shape[-1])")


def _width_of_values(node) -> bool:
    """V's width read: V3.shape[-1] / [1], V3.size(-1) / (1), on a name starting with V or v."""
    def values(n):
        return isinstance(n, ast.Name) and n.id[:1] in ("V", "v")
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "shape":
        return values(node.value.value) and _number(node.slice) in (-1, 1)
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "size"
            and values(node.func.value) and len(node.args) == 1 and _number(node.args[0]) in (-1, 1))


def trace_scale_key(key, what, submission, got=None):
    """q6 (T = 3, d_k = 4, d_v = 2): sqrt(d_v) = sqrt(2) = d_k ** 0.25, so the weights scaled by 1/sqrt(d_v) are
    those of the root taken twice (blind58: the text's divisor 2 used as d_k and rooted again). scale_by_d_v only
    where the trace's cells read V's width; scale_root_taken_twice where they root a root or the divisor 2; else
    both readings said, no key. weights_not_normalised is first offered to the row sum written with scatter
    (naming round 88: on the trace its replay is the same numbers, and the source tells them apart). Other keys
    pass through."""
    if key == "weights_not_normalised" and got is not None:
        name_trace_row_sum_overwritten(got, what, submission, 5e-4)
    if key == "scale_precedence":
        return _trace_precedence_key(key, what, submission)
    if key != "scale_by_d_v":
        return key
    trees = _cell_trees(submission, "scores3", "weights3", "out3", "weights3_causal")
    if _source_hit(trees, _width_of_values) is not None:
        return key
    twice = root_taken_twice_in_source(submission)
    holders = {n.targets[0].id for _s, t in trees for n in ast.walk(t) if isinstance(n, ast.Assign)
               and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) and _number(n.value) == 2}
    root_of_two = _source_hit(trees, lambda n: (_root_of(n) is not None and (
        _number(_root_of(n)) == 2 or (isinstance(_root_of(n), ast.Name) and _root_of(n).id in holders))))
    if twice or root_of_two:
        raise Misconception("scale_root_taken_twice", f"{what} is wrong: the scores are divided by sqrt(2) = "
                            f"4 ** 0.25 (`{twice or root_of_two}`: 2 is already sqrt(d_k) = sqrt(4)), not by "
                            "sqrt(d_k) = 2: " + describe("scale_root_taken_twice"))
    raise AssertionError(f"{what} is wrong: the scores are divided by sqrt(2), not by sqrt(d_k) = sqrt(4) = 2 "
                         "(sqrt(2) is d_k ** 0.25, a square root taken twice, and sqrt(d_v), the width of V3): "
                         "divide by math.sqrt(Q3.shape[-1])")


def name_sequence_first(fn, plain, said) -> None:
    """blind58: inputs read as sequence-first (T, B, d), as nn.MultiheadAttention's default, and swapped to
    batch-first with transpose(0, 1) (the result swapped back): on batch-first inputs it crashes wherever T_q !=
    T_k or a mask no longer lines up. Named where one second call, the same values given sequence-first (axes 0
    and 1 of Q, K, V swapped, the mask as it is), runs and gives the right output with its axes 0 and 1 swapped."""
    Q, K, V, mask = plain
    if not 3 <= Q.dim() == K.dim() == V.dim() or min(Q.shape[0], Q.shape[1]) < 2:
        return
    out = second_call(fn, *(t.transpose(0, 1) for t in (Q, K, V)), mask=mask)
    if type(out) is not torch.Tensor or out.dim() != Q.dim() or not right(out.transpose(0, 1), Q, K, V, mask):
        return
    if type(mask) is torch.Tensor and 1 in tuple(mask.shape):
        # round65 (blind65): a function that swaps axes is wrong on batch-first inputs whatever the mask's shape;
        # one right with the mask expanded to the scores' full shape only mishandles the mask's length-1 axes
        try:
            whole = mask.expand(broadcast_shape(Q.shape[:-2], K.shape[:-2]) + (Q.shape[-2], K.shape[-2])).contiguous()
        except (RuntimeError, ValueError):
            whole = None
        if whole is not None and right(second_call(fn, Q, K, V, mask=whole), Q, K, V, whole):
            return
    raise Misconception("sequence_first_layout", f"{said}; the same call with Q, K and V given sequence-first "
                        "(their axes 0 and 1 swapped) runs, and its output with axes 0 and 1 swapped back is right: "
                        "your function swaps axes 0 and 1 of its inputs (and of its result), as for (tokens, batch, "
                        "features) inputs: " + describe("sequence_first_layout") + "; drop the swaps")


def name_features_by_features(t, what, atol) -> None:
    """q6 (blind58): weights3 of shape (4, 4) = (d_k, d_k) that equals the softmax of Q3.T @ K3 (the column-vector
    formula q^T k put on the row-per-token Q3, K3), divided by 2 = sqrt(4) or by sqrt(3), 3 read off Q3.T's last
    axis, or not scaled: scores_column_convention, by replay on the trace's own tensors."""
    if what != "weights3" or tuple(t.shape) != (4, 4) or not bool(torch.isfinite(t).all()):
        return
    features = ref.Q3.T @ ref.K3
    if not any(torch.allclose(t, ref.stable_softmax(features / d, dim=-1), rtol=0, atol=atol)
               for d in (2.0, math.sqrt(3.0), 1.0)):
        return
    raise Misconception("scores_column_convention", f"{what} has shape (4, 4) and equals the softmax of Q3.T @ K3 "
                        "(d_k x d_k = 4 x 4 feature products) on the same Q3, K3: " + describe("scores_column_convention"))


def name_feature_zero_skipped(raw, said, submission) -> None:
    """q2 (blind58): raw_score_var the variance of the example's scores summed over features 1..d_k - 1 (the sum
    from i = 1 to d_k typed as range(1, d_k): feature 0 left out), by replay on the example, and a range starting at
    1 in the cells that make the scores (the source: another slip could give another value, never this one)."""
    S = ref._Qb[..., 1:] @ ref._Kb[..., 1:].transpose(-2, -1)
    if abs(raw - float(S.var())) > 1e-4 * abs(raw):
        return
    hit = _source_hit(_cell_trees(submission, "raw_score_var", "raw_scores", "scaled_score_var"), lambda n: (
        isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "range" and len(n.args) >= 2
        and _number(n.args[0]) == 1))
    if hit is None:
        return
    raise Misconception("dot_product_skips_first_feature", f"{said}: they are the variances of the scores summed "
                        f"over features 1 to {ref._Qb.shape[-1] - 1} alone (your cell's `{hit}` starts at 1): "
                        + describe("dot_product_skips_first_feature"))


def _mirror_probe():
    """Q, K, V (2, 5, 4/4/3) float64 and a square (2, 5, 5) mask that is not symmetric, with its diagonal kept (every
    query and every key has an allowed partner), fixed draws."""
    g = torch.Generator().manual_seed(5858)
    Q, K = (torch.randn(2, 5, 4, generator=g, dtype=torch.float64) for _ in range(2))
    V = torch.randn(2, 5, 3, generator=g, dtype=torch.float64)
    mask = (torch.rand(2, 5, 5, generator=g) < 0.5) | torch.eye(5, dtype=torch.bool)
    return Q, K, V, mask


def name_mask_mirrored(fn, said) -> None:
    """blind58: a crash in broadcasting's words on a rectangular mask where one second call, on a square input with
    a mask that is not symmetric, gives attention under the mirror image of the mask (mask.transpose(-2, -1)) and
    not the right result: the mask meets scores laid out the other way round (K Q^T kept, or the mask transposed)."""
    Q, K, V, mask = _mirror_probe()
    out = second_call(fn, Q, K, V, mask=mask)
    mirrored = sdpa_mask_mirrored(Q, K, V, mask)
    if (type(out) is not torch.Tensor or right(out, Q, K, V, mask)
            or not matching_variants(out, {"mirrored": mirrored}, torch.float64)):
        return
    raise Misconception("mask_transposed_to_scores", f"{said}; on a square input, with as many queries as keys, "
                        "it runs and matches attention under the mirror image of the mask (mask.transpose(-2, -1)): "
                        + describe("mask_transposed_to_scores"))


def confirm_scale_extra_factor(fn, what) -> None:
    """scale_extra_factor (the scale times log2(e)) only where two second calls, unmasked float64 inputs of d_k = 6
    and 11 (SCALE_PROBE_D_K), replay it too: on one input a scale fixed or cached elsewhere can equal
    sqrt(d_k) ln 2 within half precision's tolerance (blind26's scale cached on the first call)."""
    replay = _divided(lambda Q, K, V: math.sqrt(Q.shape[-1]) * math.log(2.0))
    for d_k in SCALE_PROBE_D_K:
        g = torch.Generator().manual_seed(2100 + d_k)
        B, T, d_v = SCALE_PROBE_SIZES["B"], SCALE_PROBE_SIZES["T"], SCALE_PROBE_SIZES["d_v"]
        q, k = 2 * torch.randn(B, T, d_k, generator=g, dtype=torch.float64), torch.randn(B, T, d_k, generator=g,
                                                                                          dtype=torch.float64)
        v = torch.randn(B, T, d_v, generator=g, dtype=torch.float64)
        out = second_call(fn, q, k, v, mask=None)
        if (type(out) is not torch.Tensor or out.shape != (B, T, d_v)
                or not matching_variants(out, {"factor": replay(q, k, v)}, torch.float64)):
            name_scale_constant(fn, f"{what} is wrong")     # a fixed d_k that matched on this input alone
            raise AssertionError(f"{what} is wrong: the scores are scaled wrong on this input, and on unmasked "
                                 f"inputs of d_k = {d_k} the scale is not 1/sqrt(d_k) times one constant factor")


# ---------------------------------------------------------------------------------------------
# naming round 60 (blind60): rewrites that broke it (baddbmm's input added, state carried between calls)
# ---------------------------------------------------------------------------------------------

def _baddbmm_beta_kept(node) -> bool:
    """A torch.baddbmm / x.baddbmm / addbmm call without beta=0 (beta left at its default 1, or written)."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("baddbmm", "baddbmm_", "addbmm", "addmm")):
        return False
    beta = [k.value for k in node.keywords if k.arg == "beta"]
    return not beta or _number(beta[0]) not in (0,)


def name_baddbmm_input_added(raw, scaled, submission, atol) -> None:
    """q2, round60 (blind60 q2_scale_fused_into_baddbmm_with_the_raw_scores_as_input_and_beta_left_at_one):
    scaled_score_var equal to the variance of raw + raw / sqrt(d_k) on the example (baddbmm(raw_scores, Q, K^T,
    alpha=1/sqrt(d_k)) with beta = 1 adds its input), and a cell assigning scaled_score_var calls baddbmm (or
    addbmm/addmm) without beta=0: baddbmm_input_added. The value is replayed on the example's own tensors."""
    Q, K, _ = ref._batched_example()
    S = (Q.double() @ K.double().transpose(-2, -1))
    d = Q.shape[-1]
    replay = float((S + S / math.sqrt(d)).var())
    if abs(scaled - replay) > atol or abs(raw - ref.raw_score_var) > atol:
        return
    try:
        hit = _source_hit(_cell_trees(submission, "scaled_score_var"), _baddbmm_beta_kept)
    except (RecursionError, MemoryError, ValueError, TypeError, AttributeError):
        return
    if hit is None:
        return
    raise Misconception("baddbmm_input_added", f"scaled_score_var is {scaled:.6g}, the variance of raw_scores + "
                        f"raw_scores / sqrt({d}) ({replay:.6g} on the example), not of raw_scores / sqrt({d}): "
                        f"`{hit}` keeps beta at 1, so its first argument is added to alpha * Q @ K^T: "
                        + describe("baddbmm_input_added"))


# State carried between calls (round60): a value computed for one call served to a later one. The notebook's
# functions run in the sandbox's worker, whose replies are copies made at the end of each call, so a later call
# cannot be seen to change an earlier reply: a buffer handed out again is read off the source (cached_out_buffer)
# beside what the notebook's own second call left (q6's weights3, q5's out= crash); a cache keyed by shape shows in
# two calls of one fresh shape (no test uses it) with other values: the first is right, the second is what the
# right function gives with one of its arguments taken from the first call (name_state_between_calls).
_gs = torch.Generator().manual_seed(60)
STATE_PROBE = tuple(
    (torch.randn(2, 13, 6, generator=_gs, dtype=torch.float64), torch.randn(2, 11, 6, generator=_gs, dtype=torch.float64),
     torch.randn(2, 11, 4, generator=_gs, dtype=torch.float64), random_mask((13, 11), _gs))
    for _ in range(2))


def _module_containers(tree) -> set[str]:
    """Names a cell binds at its top level to a container ({}, [], dict(), None, a tensor cache) or declares
    `global` inside a function: where state can outlive a call."""
    names: set[str] = set()
    for stmt in tree.body:
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            value = stmt.value
            if isinstance(value, (ast.Dict, ast.List, ast.Constant)) or (
                    isinstance(value, ast.Call) and isinstance(value.func, (ast.Name, ast.Attribute))
                    and getattr(value.func, "id", getattr(value.func, "attr", "")) in ("dict", "defaultdict", "list",
                                                                                      "OrderedDict", "WeakValueDictionary")):
                names |= {t.id for t in targets if isinstance(t, ast.Name)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Global):
            names |= set(node.names)
    return names


def _held_in(node, kept) -> bool:
    """`node` is a name of `kept`, or an entry of one (_CACHE[key])."""
    base = node.value if isinstance(node, ast.Subscript) else node
    return isinstance(base, ast.Name) and base.id in kept


def cached_out_buffer(submission) -> str | None:
    """round60 (blind60 q3_result_written_into_an_output_buffer_cached_by_shape_and_reused_across_calls): the first
    line of stable_softmax's or the attention's cell that writes a result with out= into a tensor kept between calls
    (out=_CACHE[key], out=_BUF with _BUF a module-level name or a global), or returns such a tensor; None where
    there is none. Student text: parsed, never run."""
    try:
        for segments, tree in _cell_trees(submission, "stable_softmax", "scaled_dot_product_attention"):
            kept = _module_containers(tree)
            for node in ast.walk(tree) if kept else ():
                if isinstance(node, ast.Call) and any(k.arg == "out" and _held_in(k.value, kept) for k in node.keywords):
                    return (segments.of(node) or unparse(node)).splitlines()[0][:100]
    except (RecursionError, MemoryError, ValueError, TypeError, AttributeError):
        return None
    return None


def name_result_buffer_reused(submission, said) -> None:
    """result_buffer_reused where the notebook's own second call left its trace (`said`) and the source writes the
    result into a buffer kept between calls (cached_out_buffer)."""
    hit = cached_out_buffer(submission)
    if hit is not None:
        raise Misconception("result_buffer_reused", f"{said}: `{hit}` writes the result into a tensor kept between "
                            "calls, so every call of that shape returns the same tensor and overwrites what an "
                            "earlier call returned: " + describe("result_buffer_reused"))


def name_state_between_calls(fn, what) -> None:
    """judge, for a wrong output: the attention called on STATE_PROBE's two inputs of one fresh shape; named
    cache_keyed_by_shape when the first is right and the second's output is the right one with an argument (Q, K,
    V or the mask) of the first call in its place, or the first call's output itself."""
    a, b = STATE_PROBE
    first = second_call(fn, *a[:3], mask=a[3])
    if type(first) is not torch.Tensor or not right(first, *a):
        return
    second = second_call(fn, *b[:3], mask=b[3])
    if type(second) is not torch.Tensor or right(second, *b) or second.shape != first.shape:
        return
    names = ("Q", "K", "V", "the mask")
    stale = [names[i] for i in range(4)
             if bool(matching_variants(second, {"stale": ref.scaled_dot_product_attention(
                 *[a[j] if j == i else b[j] for j in range(4)])}, torch.float64))]
    if not stale and torch.allclose(second.detach().double(), first.detach().double(), rtol=0, atol=1e-9):
        stale = ["every argument (the first call's output itself)"]
    if stale:
        raise Misconception("cache_keyed_by_shape", f"{what} is wrong, and two calls on inputs of one new shape "
                            f"(Q {tuple(a[0].shape)}, mask {tuple(a[3].shape)}) show why: the first is right, and the "
                            f"second gives what the right attention gives with {stale[0]} of the FIRST call: "
                            + describe("cache_keyed_by_shape"))


_NO_GRAPH = re.compile(r"^\s*(?:@\s*)?(?:with\s+)?(?:torch\.)?(?:inference_mode|no_grad|set_grad_enabled\(\s*False)")


def graph_off_line(submission) -> str | None:
    """The first decorator of a function in the attention's or the softmax's cell that turns autograd off
    (@torch.inference_mode(), @torch.no_grad(), @torch.set_grad_enabled(False)), or the head of a with-block that
    does and holds the function's return; None where there is none. Student text: parsed, never run."""
    try:
        for _segments, tree in _cell_trees(submission, "scaled_dot_product_attention", "stable_softmax"):
            for node in ast.walk(tree):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    for d in node.decorator_list:
                        if _NO_GRAPH.match(text := unparse(d)):
                            return f"@{text}"[:80]
                if isinstance(node, ast.With) and any(isinstance(n, ast.Return) for n in ast.walk(node)):
                    for item in node.items:
                        if _NO_GRAPH.match(text := unparse(item.context_expr)):
                            return f"with {text}:"[:80]
    except (RecursionError, MemoryError, ValueError, TypeError, AttributeError):
        return None
    return None


def name_graph_never_built(fn, Q, K, V, mask, e, submission) -> None:
    """q5's gradient call, round60 (blind60 q5_whole_function_decorated_with_inference_mode_for_speed): torch's
    "element 0 of tensors does not require grad and does not have a grad_fn" (the output has no graph at all),
    and the same call without gradients is right: gradient_cut, with the line that turns autograd off (a
    @torch.inference_mode() / @torch.no_grad() decorator or a with-block) quoted where the source shows one."""
    if "does not require grad and does not have a grad_fn" not in e.message:
        return
    plain = [None if t is None else t.detach().contiguous() for t in (Q, K, V, mask)]
    out = second_call(fn, *plain[:3], mask=plain[3])
    if not right(out, *plain):
        return
    hit = graph_off_line(submission)
    fix = (f"`{hit[:80]}` turns autograd off for everything it covers, so the output has no graph behind it: remove "
           "it (turn gradients off only around code that is never trained, outside this function)" if hit else
           "keep the computation in torch and in autograd (no .detach(), .data, torch.no_grad() or "
           "torch.inference_mode() on the way to the output)")
    raise Misconception("gradient_cut", f"your code raised {e.exc_type}: {e.message.splitlines()[0][:120]}: the "
                        f"output is right without gradients, but no gradient reaches Q, K or V: {fix}. "
                        + describe("gradient_cut"))


def name_out_breaks_autograd(e) -> None:
    """torch's own words for an out= call whose inputs require grad (OUT_WORDS), after the searches for an input
    written into (name_out_into_input) and a buffer handed out again: out_breaks_autograd, said for the function
    whose line raised (the last notebook frame of the traceback)."""
    if OUT_WORDS not in e.message:
        return
    frames = re.findall(r'File "In\[\d{1,9}\]", line \d{1,7}, in ([A-Za-z_]\w{0,60})', e.traceback or "")
    where = f" in `{frames[-1]}`" if frames else ""
    raise Misconception("out_breaks_autograd", f"your code raised {e.exc_type}: {e.message.split(',')[0][:90]}: a "
                        f"call{where} writes its result with out=, which autograd does not allow once an input "
                        "needs gradients: " + describe("out_breaks_autograd"))


def check_per_sequence_mask(fn, Q, K, V, rng) -> None:
    """q5 (round60): 4-D inputs (B, H, T_q, d) with a (B, 1, T_q, T_k) mask shared by the heads of each sequence,
    what broadcasting promises (one call: the helper replay of helper_blame reruns the test's calls). A wrong
    output that equals the right one with the masks tiled over the folded (B H) axis by repeat ([M0, M1, M0, M1,
    ...]) is mask_tiled_not_interleaved."""
    B, H, T_q, _ = Q.shape
    T_k = K.shape[-2]
    mask = random_mask((B, 1, T_q, T_k), rng)
    what = f"the output for 4-D inputs with a per-sequence mask of shape {tuple(mask.shape)}, shared by the heads"
    got = call_sdpa(fn, Q, K, V, mask)
    tiled = mask.reshape(B, T_q, T_k).repeat(H, 1, 1).reshape(B, H, T_q, T_k)
    if (type(got) is torch.Tensor and got.shape == Q.shape[:-1] + V.shape[-1:] and not right(got, Q, K, V, mask)
            and right(got, Q, K, V, tiled)):
        raise Misconception("mask_tiled_not_interleaved", f"{what} is wrong: it is the right output with the "
                            f"sequences' masks laid out [M0, M1, M0, M1, ...] over the {B} x {H} folded batch and "
                            "heads (repeat), where that axis runs sequence by sequence: "
                            + describe("mask_tiled_not_interleaved"))
    try:
        judge(fn, Q, K, V, mask, got, what)
    except AssertionError as failure:
        expected = ref.scaled_dot_product_attention(Q, K, V, mask)
        raise smallest(failure, fn, Q, K, V, mask, Failure.value(expected, got)) from None


# ---------------------------------------------------------------------------------------------
# naming round 61 (blind61): a library's documented behaviour misread
# ---------------------------------------------------------------------------------------------

def sdpa_mask_sum_as_flag(Q, K, V, mask=None):
    """round61 (blind61 q5_sum_of_the_bool_mask_is_a_key_count_not_a_flag_...): the masked weights multiplied by
    mask.sum(-1, keepdim=True) as a 0/1 "has a key" flag; the sum of a bool mask counts the visible keys, so an empty
    row is zeroed and every other row is scaled by its key count. Without a mask: None (that path is right)."""
    if mask is None:
        return None
    m = mask.to(torch.bool)
    w = _dead_rows_zeroed(ref.stable_softmax(_masked(_scores(Q, K, math.sqrt(Q.shape[-1])), m)), m)
    return _out(w * m.sum(dim=-1, keepdim=True).double(), V, Q)


VARIANT_FUNCTIONS["mask_sum_as_flag"] = sdpa_mask_sum_as_flag


def _triangle_with_diagonal(node) -> bool:
    """A torch.triu / torch.tril call (or method) given a diagonal offset (keyword, or the second argument)."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, (ast.Attribute, ast.Name))):
        return False
    fname = node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id
    if fname not in ("triu", "tril", "triu_", "tril_"):
        return False
    method = isinstance(node.func, ast.Attribute) and not (isinstance(node.func.value, ast.Name)
                                                           and node.func.value.id in ("torch", "np", "numpy"))
    return any(k.arg == "diagonal" for k in node.keywords) or len(node.args) > (0 if method else 1)


def name_trace_causal_diagonal_shifted(got, submission, atol=1e-4):
    """q6 (round61, blind61 q6_triu_bias_with_diagonal_minus_1_...): weights3_causal equal to the softmax under a
    causal mask shifted two places down (key j visible to query i only where j <= i - 2: torch.triu(full(-inf),
    diagonal=-1) for diagonal=1, the offset's sign read the wrong way), its fully blocked rows 0 and 1 NaN (a softmax
    over nothing) or zeros, row 2 on key 0 alone; and the cell that assigns weights3_causal (or causal_mask's) calls
    triu / tril with a diagonal offset. The one-place shifts are causal_excludes_self / causal_includes_next."""
    if type(got) is not torch.Tensor or tuple(got.shape) != (3, 3) or not got.dtype.is_floating_point:
        return
    keep = torch.ones(3, 3, dtype=torch.bool).tril(diagonal=-2)
    scores = ref.Q3 @ ref.K3.T / 2.0
    replay = torch.softmax(scores.masked_fill(~keep, float("-inf")), dim=-1)
    g = got.detach().double()
    for i in range(3):
        if bool(keep[i].any()):
            if not (bool(torch.isfinite(g[i]).all()) and torch.allclose(g[i], replay[i], rtol=0, atol=atol)):
                return
        elif not (bool(torch.isnan(g[i]).all()) or bool((g[i] == 0).all())):
            return
    hit = _source_hit(_cell_trees(submission, "weights3_causal", "causal_mask"), _triangle_with_diagonal)
    if hit is None:
        return
    raise Misconception("causal_diagonal_offset_misread", "weights3_causal is the softmax under a causal mask "
                        "shifted down by two: rows 0 and 1 have every key blocked (a softmax over nothing: NaN or "
                        "zeros) and row 2 sees key 0 alone, what your `" + hit + "` gives: "
                        + describe("causal_diagonal_offset_misread"))


def name_cosine_similarity_probe(got, submission, q_shape):
    """q1 (round61, blind61 q1_weights_probed_with_cosine_similarity_...): weights_shape equal to the shape of
    F.cosine_similarity(Q, K) on Q's shape for one of its dims (the default dim=1: the token axis of (batch, tokens,
    features), reduced), and the cell that assigns weights_shape calls cosine_similarity (parsed, never run)."""
    if type(got) is not tuple:
        return
    shapes = {i % len(q_shape): q_shape[:i] + q_shape[i + 1:] for i in range(len(q_shape))}
    dims = [d for d, s in shapes.items() if tuple(got) == tuple(s)]
    if not dims:
        return
    hit = _source_hit(_cell_trees(submission, "weights_shape"), lambda n: isinstance(n, ast.Call) and isinstance(
        n.func, (ast.Attribute, ast.Name)) and (getattr(n.func, "attr", None) or getattr(n.func, "id", "")) ==
        "cosine_similarity")
    if hit is None:
        return
    dim = "its default dim=1, the token axis" if dims[0] == 1 else f"dim={dims[0]}"
    raise Misconception("weights_from_cosine_similarity", f"weights_shape is {tuple(got)}: the shape of "
                        f"F.cosine_similarity on two {tuple(q_shape)} tensors, which reduces {dim}, as your `{hit}` "
                        "does: " + describe("weights_from_cosine_similarity"))


# --- naming round 62 (blind62: code carried over from another source's conventions) --------------------------------

def name_sequence_first_example(raw, said) -> None:
    """q2 (round62, blind62 q2_example_read_sequence_first_and_moved_to_batch_first), from name_uniform_example:
    raw_score_var equal (to 1e-5 relative) to the variance of the example's (2, 5, 8) Q and K each moved with
    .transpose(0, 1) (nn.MultiheadAttention's sequence-first reading) before Q @ K.transpose(-2, -1): (5, 2, 2)
    products between the two sequences' tokens at one position. A replay on the notebook's own draws; the caller has
    seen scaled_score_var = raw / 8."""
    Qs, Ks = ref._Qb.double().transpose(0, 1), ref._Kb.double().transpose(0, 1)
    v = float((Qs @ Ks.transpose(-2, -1)).var())
    if abs(raw - v) < 1e-5 * v:
        raise Misconception("sequence_first_layout", f"{said}: they are the variances of Q.transpose(0, 1) @ "
                            "K.transpose(0, 1).transpose(-2, -1), the (2, 5, 8) example read as (tokens, batch, "
                            "features) and moved to batch-first, which gives (5, 2, 2) products between the two "
                            "sequences' tokens at the same position, not the (2, 5, 5) query-key scores; the "
                            "example is already (batch, tokens, features): take Q @ K.transpose(-2, -1) without "
                            "moving axes. " + describe("sequence_first_layout"))


def name_softmax_fixed_axis(fn, got, x, dim, what) -> None:
    """q3 (round62, blind62 q3_max_and_sum_over_axis_1_as_for_cs231n_two_d_class_scores), from assert_softmax: the
    answer is the softmax along one fixed axis k (k != dim), and second calls on NEG_DIM_PROBE (4-D, four sizes) with
    dim = 0, 1, 2 and 3 all give the softmax along that same k (a dim + 1 slip or any use of dim gives other axes):
    the reductions are hard-coded (the (N, C) classifier habit of axis=1) and `dim` is ignored: softmax_ignores_dim,
    the fixed axis said."""
    if fn is None or type(got) is not torch.Tensor or got.shape != x.shape or not got.dtype.is_floating_point:
        return
    n = x.dim()
    for k in range(-n, n):
        if k % n == dim % n or k == -1 or k == n - 1:      # the last axis fixed is softmax_ignores_dim's variant
            continue
        if not _softmax_is(got.double(), ref.stable_softmax(x.double(), dim=k)):
            continue
        p = NEG_DIM_PROBE
        if all(_softmax_is(second_call(fn, p.clone(), dim=d), ref.stable_softmax(p, dim=k)) for d in range(p.dim())):
            raise Misconception("softmax_ignores_dim", f"{what} is the softmax along dim={k}, and on a 4-D input "
                                f"dim=0, 1, 2 and 3 all give the softmax along dim={k} too: the max and the sum use "
                                f"a fixed dim={k} (the habit of (N, C) class scores, reduced over axis 1) and the "
                                "`dim` argument is never used; reduce over `dim` (x.max(dim=dim, keepdim=True), "
                                "exps.sum(dim=dim, keepdim=True)): " + describe("softmax_ignores_dim"))


def fully_masked_bias_variant(Q, K, V, mask):
    """q5 (round62, blind62 q5_bert_extended_mask_bias_minus_10000_...): a finite additive bias (BERT's
    (1 - mask) * -10000) on the scores, with no zeroing of queries that have no allowed key: every entry of such a
    row is shifted by the same amount, so its softmax is the unmasked one (plain attention over every key); the other
    rows lose their blocked keys (exp of -10000 is 0). None without such a row. Float64, returned in Q's dtype."""
    if mask is None:
        return None
    m = mask.to(torch.bool)
    s = _scores(Q, K, math.sqrt(Q.shape[-1]))
    try:
        dead = torch.broadcast_to(~m.any(dim=-1, keepdim=True), s.shape[:-1] + (1,))
    except RuntimeError:
        return None
    if not bool(dead.any()):
        return None
    # the shift is added in the input's dtype, as the student's code adds it: s + (-10000) in float32 keeps the
    # scores to about 1e-3 (so the replay must round where that code rounds); float64 inputs keep them whole
    shifted = (s.to(Q.dtype) + torch.where(dead, -10000.0, 0.0).to(Q.dtype)).double()
    w = torch.where(dead, ref.plain_softmax(shifted, dim=-1), ref.plain_softmax(_masked(s, m), dim=-1))
    return _out(torch.nan_to_num(w), V, Q)


def name_additive_trace_scores(got, what, atol) -> None:
    """q6 (round62, blind62 q6_scores_from_keras_additive_attention_tanh_of_sums), from name_trace_mistake: weights3,
    weights3_causal or out3 equal to what additive (Bahdanau, Keras AdditiveAttention) scores give, sum over the
    features of tanh(q + k), unscaled or divided by sqrt(d_k) = 2, softmaxed (under the causal mask for
    weights3_causal), times V3 for out3: additive_scores. No dot-product mistake gives a tanh."""
    if type(got) is not torch.Tensor or tuple(got.shape) not in ((3, 3), (3, 2)) or not torch.isfinite(got).all():
        return
    s = torch.tanh(ref.Q3[:, None, :].double() + ref.K3[None, :, :].double()).sum(-1)
    for div in (1.0, 2.0):
        t = s / div
        if what == "weights3_causal":
            t = t.masked_fill(~ref.causal_mask(3), float("-inf"))
        w = torch.softmax(t, dim=-1)
        want = w @ ref.V3.double() if what == "out3" else w
        if want.shape == got.shape and torch.allclose(got.double(), want, rtol=0, atol=atol):
            raise Misconception("additive_scores", f"{what} is wrong: it is what additive scores give, "
                                f"sum(tanh(q + k)) over the features{' divided by 2' if div == 2 else ''} for each "
                                "query and key, softmaxed: " + describe("additive_scores"))


_DROPOUT_WORDS = ("Dropout", "dropout", "dropout_", "alpha_dropout", "feature_alpha_dropout")


def name_trace_dropout(got, weights3, submission, atol) -> None:
    """q6 (round62, blind62 q6_output_through_d2l_dropout_left_in_training_mode), from name_trace_mistake: out3 wrong
    while weights3 is right, every row of out3 equal to (m * weights3 / (1 - p)) @ V3 for some 0/1 pattern m of that
    row (at least one entry of out3's weights dropped in all) and one drop rate p (the cell's own literals in (0, 1),
    else 0.1, 0.2, 0.25, 0.3, 0.5), and the cell that assigns out3 calls a dropout (nn.Dropout, F.dropout, ...;
    parsed, never run): dropout_in_training_mode. 8 patterns per row: bounded."""
    if type(got) is not torch.Tensor or tuple(got.shape) != (3, 2) or not torch.isfinite(got).all():
        return
    if type(weights3) is not torch.Tensor or tuple(weights3.shape) != (3, 3):
        return
    w = weights3.detach().double()
    if not torch.allclose(w, ref.weights3, rtol=0, atol=atol):
        return
    trees = _cell_trees(submission, "out3")
    hit = _source_hit(trees, lambda n: isinstance(n, ast.Call) and (getattr(n.func, "attr", None)
                                                                  or getattr(n.func, "id", "")) in _DROPOUT_WORDS)
    if hit is None:
        return
    rates = [v for _, tree in trees for n in ast.walk(tree) if isinstance(n, ast.Constant)
             and type(v := n.value) is float and 0 < v < 1][:8] or [0.1, 0.2, 0.25, 0.3, 0.5]
    g, V3 = got.double(), ref.V3.double()
    patterns = [torch.tensor([(b >> j) & 1 for j in range(3)], dtype=torch.float64) for b in range(8)]
    for p in rates:
        dropped, rescaled = 0, False
        for i in range(3):
            row = next((m for m in patterns if torch.allclose(g[i], (m * w[i] / (1 - p)) @ V3, rtol=0, atol=atol)),
                       None)
            if row is None:
                break
            dropped += int((row == 0).sum())
            # the division by 1 - p seen in some row: a tiny literal (an eps 1e-9) as p makes any weights with
            # entries zeroed and none rescaled (a mask after the softmax) look like a dropout
            rescaled = rescaled or not torch.allclose(g[i], (row * w[i]) @ V3, rtol=0, atol=atol)
        else:
            if dropped and rescaled:
                raise Misconception("dropout_in_training_mode", f"out3 is wrong, and your weights3 is right: each "
                                    f"row of out3 is weights3 @ V3 with some weights zeroed and the rest divided by "
                                    f"1 - {p:g}, what a dropout in training mode gives (your `{hit}`): "
                                    + describe("dropout_in_training_mode"))


def name_madds_flops_both_products(got, name, submission, T, d_k) -> None:
    """q8 (round62, blind62 q8_madds_from_the_flashattention_benchmark_flop_formula), from
    name_count_from_another_rule: score_madds = 4 T^2 d_k (flash-attention's benchmark count of both products at 2
    FLOPs per multiply-add) and the assignment that binds it multiplies by a literal 4 or the cell says "flop" (the
    number alone is also (2T)^2 d_k, the doubled length, or bytes of float32): madds_flops_both_products."""
    if name != "score_madds" or got != 4 * T * T * d_k:
        return
    trees = _cell_trees(submission, "score_madds")
    four = _source_hit(trees, lambda n: isinstance(n, ast.Assign) and any(getattr(t, "id", 0) == name
                                                                          for t in n.targets)
                       and any(isinstance(b, ast.BinOp) and isinstance(b.op, ast.Mult)
                               and 4 in (_number(b.left), _number(b.right)) for b in ast.walk(n.value)))
    if four is None:
        cells = cells_of(submission) if submission is not None else []
        if not any("flop" in cells[i][:20000].lower() for i in cells_assigning(cells, name)):
            return
    raise Misconception("madds_flops_both_products", f"score_madds is {got:,} = 4 x T^2 x d_k"
                        + (f" (your `{four}`)" if four else "") + ": " + describe("madds_flops_both_products"))


# --- naming round 63 (blind63: an optimisation that changed the result) ------------------------------------------

def _last_defs(submission, fn_name: str) -> list[ast.FunctionDef]:
    """The `def fn_name` nodes of the last cell of the submission that assigns fn_name; [] where none parses.
    Student text: parsed (pyparse, bounded), never run."""
    try:
        found = list(answer_cell_trees(submission, fn_name))
    except (RecursionError, MemoryError, ValueError):
        return []
    return [n for _source, tree in found[-1:] for n in ast.walk(tree)
            if isinstance(n, ast.FunctionDef) and n.name == fn_name]


def _keeps_state_built_from_params(node: ast.FunctionDef) -> bool:
    """The def stores, between calls, something built from its own parameters (a `global`/`nonlocal` name
    assigned, or an entry or attribute of an outer object), and slices something ([:T_q, :T_k])."""
    params = {a.arg for a in node.args.args + node.args.kwonlyargs}
    outer = {name for n in ast.walk(node) if isinstance(n, (ast.Global, ast.Nonlocal)) for name in n.names}
    local = {t.id for n in ast.walk(node) if isinstance(n, ast.Assign) for t in n.targets
             if isinstance(t, ast.Name) and t.id not in outer}

    def kept(target) -> bool:
        if isinstance(target, ast.Name):
            return target.id in outer
        return isinstance(target, (ast.Subscript, ast.Attribute)) and isinstance(target.value, ast.Name) \
            and target.value.id not in local and target.value.id not in params

    stores = [n for n in ast.walk(node) if isinstance(n, ast.Assign) and any(kept(t) for t in n.targets)]
    built = any(isinstance(v, ast.Name) and v.id in params for s in stores for v in ast.walk(s.value))
    return built and any(isinstance(n, ast.Slice) for n in ast.walk(node))


def name_mask_from_first_call(fn, t, T_q, T_k, what, submission) -> None:
    """q4, naming round 63 (blind63 q4_mask_buffer_built_once_for_the_first_shape_and_sliced_after): the mask is
    built once, at the size of the first call, kept between calls and only sliced after: the answer is the
    causal mask of a smaller size (a, b) (a corner of the kept buffer), and a second call larger than both
    lengths gives the same capped size (r, c), itself right when asked. Only where causal_mask keeps a state
    built from its own parameters and slices it (a fixed block_size buffer is fixed_size_mask)."""
    if type(t) is not torch.Tensor or t.dim() != 2 or max(T_q, T_k) > 4096:
        return
    a, b = t.shape
    if not (0 < a <= T_q and 0 < b <= T_k and (a, b) != (T_q, T_k) and _mask_is(t, (a, b))):
        return
    if not any(_keeps_state_built_from_params(n) for n in _last_defs(submission, "causal_mask")):
        return
    big = (T_q + 40, T_k + 40)
    try:
        again = fn(*big)
    except Exception:  # noqa: BLE001 - no evidence from a crash
        return
    if type(again) is not torch.Tensor or again.dim() != 2:
        return
    r, c = again.shape
    if not (a <= r <= big[0] and b <= c <= big[1] and (r, c) != big and (a == T_q or r == a)
            and (b == T_k or c == b) and _mask_is(again, (r, c)) and _mask_right(fn, r, c)):
        return
    raise Misconception("mask_built_once_first_call", f"{what} has shape {(a, b)}: the top-left corner of a ({r}, "
                        f"{c}) causal mask your causal_mask keeps between calls (causal_mask{big} gives that ({r}, "
                        f"{c}) mask too): " + describe("mask_built_once_first_call"))


_EXPANDS = frozenset({"expand", "expand_as", "broadcast_to"})


def inplace_write_after_expand(submission, fn_name: str = "causal_mask") -> str | None:
    """The in-place call (`m.tril_()`, `masked_fill_`), quoted, in the notebook's `def fn_name` where that def also
    expands (expand, expand_as, broadcast_to); None otherwise."""
    for node in _last_defs(submission, fn_name):
        calls = [n for n in ast.walk(node) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)]
        if not any(n.func.attr in _EXPANDS for n in calls):
            continue
        for n in calls:
            if n.func.attr.endswith("_") and not n.func.attr.startswith("_"):
                return unparse(n)[:60]
    return None


def expanded_mask_variants(T_q: int, T_k: int) -> list[torch.Tensor]:
    """The causal mask written in place into an expanded (stride-0) tensor, replayed with torch itself (blind63's
    `torch.ones(1, T_k).expand(T_q, T_k).tril_()`): a row, a column or one number expanded, then tril_() (or
    triu_(1), inverted after); each result differs from the right mask. A torch that refuses the write gives none."""
    if T_q * T_k > 1 << 22:
        return []
    right = ref.causal_mask(T_q, T_k)
    out = []
    for shape in ((1, T_k), (T_k,), (T_q, 1), (1, 1)):
        for dtype in (torch.bool, torch.float32):
            for make in (lambda m: m.tril_() != 0, lambda m: m.triu_(1) == 0):
                try:
                    m = make(torch.ones(shape, dtype=dtype).expand(T_q, T_k))
                except RuntimeError:
                    continue
                if not bool((m == right).all()):
                    out.append(m)
    return out


def name_inplace_on_expanded_mask(t, what, submission) -> None:
    """q4 and q6, naming round 63 (blind63 q4_row_expanded_instead_of_repeated_then_tril_in_place): the mask `t` is
    what an in-place write into an expanded tensor gives at its size (replayed), and the notebook's causal_mask
    expands and writes in place: inplace_on_expanded."""
    if type(t) is not torch.Tensor or t.dim() != 2:
        return
    quote = inplace_write_after_expand(submission)
    if quote is None or not any(bool(((t != 0) == m).all()) for m in expanded_mask_variants(*t.shape)):
        return
    raise Misconception("inplace_on_expanded", f"{what} is wrong: it is what `{quote}` gives on a tensor made by "
                        "expand (every row shares one row of memory, so each row's write lands on all of them): "
                        + describe("inplace_on_expanded"))


def name_one_query_shape(got, expected, what, inputs) -> None:
    """q1, naming round 63 (blind63 q1_shapes_taken_from_a_kv_cache_decoding_step_with_one_query): the right shape
    with the query axis 1 where the question's T_q (> 1) belongs: the shapes of one cached decoding step, a single
    new query against the cached keys. (B, 1, X) is no other reading of this question's shapes."""
    T_q = inputs["Q"][-2]
    if len(expected) == 3 and expected[1] == T_q > 1 and tuple(got) == (expected[0], 1, expected[2]):
        raise Misconception("one_query_decoding_shape", f"{what} is {tuple(got)}: one query where there are {T_q}, "
                            f"where it should be {tuple(expected)}: " + describe("one_query_decoding_shape"))


_TILE_SIDES = (16, 32, 64, 128, 256)


def _int_literals(submission, answer: str) -> set[int]:
    """The int literals and the identifiers written in the cells that assign `answer` (parsed, never run)."""
    try:
        trees = [tree for _source, tree in answer_cell_trees(submission, answer)]
    except (RecursionError, MemoryError, ValueError):
        return set()
    return {n.value for tree in trees for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and type(n.value) is int}


def _names_a_tile(submission, answer: str) -> bool:
    """Whether a cell that assigns `answer` has an identifier that says block or tile (BLOCK_M, tile_n, Br)."""
    try:
        trees = [tree for _source, tree in answer_cell_trees(submission, answer)]
    except (RecursionError, MemoryError, ValueError):
        return False
    return any(isinstance(n, ast.Name) and ("block" in n.id.lower() or "tile" in n.id.lower()
                                            or n.id in ("Br", "Bc", "B_r", "B_c"))
               for tree in trees for n in ast.walk(tree))


def name_tile_entries(got, name, submission) -> None:
    """q8, naming round 63 (blind63 q8_entries_counted_as_one_flash_attention_tile): attn_entries equal to one
    FlashAttention tile, BLOCK_M x BLOCK_N (sides 16 to 256), both sides written as literals in the cell; a side 64
    (d_k, which the cell's score_madds may write) only where an identifier of the cell says block or tile."""
    if name != "attn_entries" or type(got) is not int or got == ref.attn_entries:
        return
    literals = _int_literals(submission, name)
    for m in _TILE_SIDES:
        for n in _TILE_SIDES:
            if m <= n and m * n == got and {m, n} <= literals and (
                    64 not in {m, n} or _names_a_tile(submission, name)):
                raise Misconception("entries_of_one_tile", f"{name} is {got:,} = {m} x {n}, one tile of scores "
                                    f"a FlashAttention kernel holds at a time: " + describe("entries_of_one_tile"))


def _names_model_width(node) -> bool:
    """round64: the model's full width in the source: a name or attribute with 'model' in it (d_model), the number
    512, or a root of a product (8 * 64, heads times d_k)."""
    if isinstance(node, ast.Name) and "model" in node.id.lower():
        return True
    if isinstance(node, ast.Attribute) and "model" in node.attr.lower():
        return True
    if _number(node) == 512:
        return True
    root = _root_of(node)
    if root is not None and isinstance(root, ast.BinOp) and isinstance(root.op, ast.Mult):
        return True
    # round126: a product of two roots is the root of the product (sqrt(64) * sqrt(n_heads) = sqrt(8 * 64))
    return (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult)
            and all(_root_of(side) is not None for side in (node.left, node.right)))


def _root_scaled_outside(node) -> bool:
    """round64: a square root multiplied or divided by something outside it (sqrt(d_k) * (64 / d_k)); round126: by
    something that is no root itself (a root times a root is a root of a product, not a divisor scaled up)."""
    return (isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Mult, ast.Div))
            and sum(_root_of(side) is not None for side in (node.left, node.right)) == 1)


def name_divisor_model_width(got, submission) -> None:
    """q2 (round64, blind64 q2_divisor_for_d_k_64_scaled_up_linearly_from_the_examples_root_8): 22.63 is
    sqrt(512), the model's full width (scale_by_d_model, named only where the scale_divisor cell names the model
    width: d_model, 512, or a root of a product), and also sqrt(8) * 64 / 8, the example's divisor scaled in
    proportion to d_k (divisor_proportional_to_dk, where it multiplies a root by something outside it); read in
    the value assigned to scale_divisor only;
    neither in the source: the plain fact. Student text: parsed (bounded), never run. 11.31 = sqrt(128):
    _name_divisor_from_value_width (round67)."""
    _name_divisor_from_value_width(got, submission)
    _name_divisor_fourth_root(got, submission)      # round70: 64 ** 0.25, the per-tensor factor of a split scale
    name_init_assigns_local(got, submission)        # naming round 76: `d_k = d_k` in __init__, the class's 8 kept
    if abs(got - 512 ** 0.5) >= 1e-6:
        return
    trees = [(seg, n.value) for seg, tree in _cell_trees(submission, "scale_divisor") for n in ast.walk(tree)
             if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "scale_divisor" for t in n.targets)]
    if not trees or _source_hit(trees, _names_model_width) is not None:
        raise Misconception("scale_by_d_model", f"scale_divisor is {got:.4g} = sqrt(512), the model's full width: "
                            "one head's scores are dot products of d_k = 64 entries, so divide by sqrt(64) = 8: "
                            + describe("scale_by_d_model"))
    hit = _source_hit(trees, _root_scaled_outside)
    if hit is not None:
        raise Misconception("divisor_proportional_to_dk", f"scale_divisor is {got:.4g} = sqrt(8) x 64 / 8 (`{hit}`): "
                            "the example's divisor sqrt(8) made 8 times larger for a head 8 times wider; a head 8 "
                            "times wider needs sqrt(8) times the divisor, sqrt(64) = 8: "
                            + describe("divisor_proportional_to_dk"))
    raise AssertionError(f"scale_divisor is {got:.4g}, not 8: the divisor for d_k = 64 is sqrt(64) = 8")


def _fourth_root_of(node):
    """The operand of a fourth root written in the source (x ** 0.25, x ** (1 / 4), pow(x, 0.25), a square root
    of a square root), else None."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow) and _number(node.right) == 0.25:
        return node.left
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "pow"
            and len(node.args) == 2 and _number(node.args[1]) == 0.25):
        return node.args[0]
    inner = _root_of(node)
    return None if inner is None else _root_of(inner)


def _name_divisor_fourth_root(got, submission) -> None:
    """q2 (round70, blind70 q2_scale_divisor_given_as_the_per_tensor_fourth_root_when_the_scale_is_split_over_q_and_k):
    2.83 is 64 ** 0.25 and also sqrt(8), the example's divisor (example_value_reused, which blind70's code never
    wrote): named divisor_given_as_fourth_root only where the value assigned to scale_divisor (or the name it is
    given, as last assigned before it in the same cell) takes a fourth root; the split over Q and K said where the
    cell takes another (or a power -0.25). Student text: parsed (bounded), never run."""
    if abs(got - 64 ** 0.25) >= 1e-6:
        return
    cells = _cell_trees(submission, "scale_divisor")
    pairs: list = []
    named: set[str] = set()
    for seg, tree in cells:
        # in order: the name scale_divisor is given is read as last bound before that line (red-team round 133: `s =
        # 64 ** 0.25` printed, then `s = math.sqrt(8); scale_divisor = s`, the example's value, quoted `64 ** 0.25`)
        last: dict[str, ast.AST] = {}
        for n in _cell_level_assigns(tree):
            if any(isinstance(t, ast.Name) and t.id == "scale_divisor" for t in n.targets):
                pairs.append((seg, n.value))
                if isinstance(n.value, ast.Name) and n.value.id in last:
                    pairs.append((seg, last[n.value.id]))
                    named.add(n.value.id)
            last |= {t.id: n.value for t in n.targets if isinstance(t, ast.Name)}
    hit = _source_hit(pairs, lambda n: _fourth_root_of(n) is not None)
    if hit is None:
        return
    split = _fourth_root_scales(cells, {"scale_divisor"} | named)
    how = ("; your cell also scales Q and K by a fourth root each, so the scores it measures are divided by "
           "the product, sqrt(64) = 8" if split else "")
    raise Misconception("divisor_given_as_fourth_root", f"scale_divisor is {got:.4g} = 64 ** 0.25 (`{hit}`), a "
                        f"fourth root, where the divisor of the scores is sqrt(64) = 8{how}: "
                        + describe("divisor_given_as_fourth_root"))


def _cell_level_assigns(tree) -> list:
    """The assignments of a cell outside its defs, classes and lambdas (a def's own `s = d ** 0.25` binds its own
    s: red-team round 132, where a helper's local beside `s = math.sqrt(8); scale_divisor = s` was quoted as the
    divisor's fourth root)."""
    out, todo = [], [tree]
    while todo:
        node = todo.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                continue
            if isinstance(child, ast.Assign):
                out.append(child)
            todo.append(child)
    return sorted(out, key=lambda n: (n.lineno, n.col_offset))


def _fourth_root_scales(cells, answers) -> bool:
    """Whether a cell multiplies or divides by a fourth root (or a power -0.25), written there or through a name it
    binds to one, other than the names that give scale_divisor (`answers`): the scale split over Q and K. Red-team
    round 132: any second fourth root of the cell was taken as that split, so `print(64 ** 0.25)` beside
    `scale_divisor = 64 ** 0.25` was told "your cell also scales Q and K by a fourth root each"."""
    def quarter(n):
        return _fourth_root_of(n) is not None or (isinstance(n, ast.BinOp) and isinstance(n.op, ast.Pow)
                                                  and _number(n.right) == -0.25)
    nodes = [n for _seg, tree in cells for n in ast.walk(tree)]
    scalers = {t.id for n in nodes if isinstance(n, ast.Assign) and quarter(n.value) for t in n.targets
               if isinstance(t, ast.Name)} - set(answers)

    def scales(x):
        return quarter(x) or (isinstance(x, ast.Name) and x.id in scalers)
    return any((isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Mult, ast.Div)) and (scales(n.left) or scales(n.right)))
               or (isinstance(n, ast.AugAssign) and isinstance(n.op, (ast.Mult, ast.Div)) and scales(n.value))
               for n in nodes)


def _times_two(node, covered=None) -> bool:
    """A product with the literal 2 as one factor, the whole chain (2 * m * k * n parses as ((2 * m) * k) * n).
    With `covered` (a set of node ids, one walk's): each chain is read once, from its top (ast.walk meets the top
    first), and a product inside a chain already read is no new one. Red-team round 132: every product of a chain
    read the whole chain below it again, so a dead-branch def of twenty 1,500-factor products, called by five
    `score_madds = ...` lines, cost 59 s of the grader's CPU (30 s, the check's budget, in a grade)."""
    if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult)) or (covered is not None
                                                                               and id(node) in covered):
        return False
    factors, todo = [], [node]
    while todo:
        n = todo.pop()
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mult):
            todo += [n.left, n.right]
            if covered is not None:
                covered.add(id(n))
        else:
            factors.append(n)
    return any(_number(f) == 2 for f in factors)


def _bytes_read(node) -> bool:
    """A name or attribute that says bytes (BYTES, n_bytes, .nbytes, .element_size(), .itemsize, finfo(...).bits)."""
    return ((isinstance(node, ast.Name) and "byte" in node.id.lower())
            or (isinstance(node, ast.Attribute) and ("byte" in node.attr.lower()
                                                     or node.attr in ("element_size", "itemsize", "bits"))))


def name_entries_times_four(got, name, submission) -> None:
    """q8 (round71, blind71 q8_attn_entries_counted_in_bytes_of_float32): a count 4 T^2, where the line of the cell
    that stores `name` reads a bytes size (_bytes_read) itself or through a name the cell (outside its defs) last
    assigned from one before that line: count_in_bytes, quoting it; else count_times_four, whose text gives the
    readings one number allows. Always raises. Student text: parsed (bounded: each node walked a fixed number of times), never run."""
    name_power_of_two_past_length(got, name, submission)     # naming round 88: 1 << T.bit_length() pads 1024 to 2048
    hit = None
    try:
        for seg, tree in _cell_trees(submission, name):
            # names the cell holds a bytes size in when the line runs: its own assignments (outside defs, classes,
            # lambdas), in order, each name as last bound before the line (red-team round 133: a def's local
            # `n = T * T * finfo(dtype).bits // 8`, or an `n = x.element_size()` rebound to `n = 2 * 1024`, made
            # `attn_entries = n * n`, (2T)^2, a count in bytes); one pass, each value walked once
            byte_names: set[str] = set()
            for n in _cell_level_assigns(tree):
                if hit is None and any(isinstance(t, ast.Name) and t.id == name for t in n.targets) and any(
                        _bytes_read(y) or (isinstance(y, ast.Name) and y.id in byte_names) for y in ast.walk(n.value)):
                    hit = (seg.of(n) or unparse(n)).splitlines()[0][:80]
                bound = {t.id for t in n.targets if isinstance(t, ast.Name)}
                byte_names = (byte_names | bound) if any(_bytes_read(x) for x in ast.walk(n.value)) \
                    else byte_names - bound
    except CheckTooSlow:
        raise
    except Exception:  # noqa: BLE001 - an unreadable source shows nothing
        hit = None
    if hit is not None:
        raise Misconception("count_in_bytes", f"{name} is {got}, the entries times 4: your cell multiplies by the "
                            f"bytes of an entry (`{hit}`): " + describe("count_in_bytes") + "; count the entries "
                            "alone, T * T")
    raise Misconception("count_times_four", f"{name} is {got} = 4 T^2: " + describe("count_times_four"))


_HEADS_NAME = re.compile(r"(?i)^(?:h|heads?|n_?heads?|num_?(?:attention_)?heads?|nb_?heads?|head_?count)$")


def _cell_level_rebinds(tree, assigns) -> list:
    """(line, column, name) of every other binding of a name outside the cell's defs, in order: an augmented or
    annotated assignment, a for or with target, a walrus, an import, a del (red-team round 142: `h = 8` then
    `h //= 8`, one head, was still read as the paper's 8 heads). Bounded: 20,000 nodes."""
    skip = {id(x) for n in assigns for t in n.targets for x in ast.walk(t)}
    out, todo, seen = [], [tree], 0
    while todo and seen < 20000:
        node = todo.pop()
        for child in ast.iter_child_nodes(node):
            seen += 1
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda, ast.ListComp,
                                  ast.SetComp, ast.DictComp, ast.GeneratorExp)):
                continue
            if isinstance(child, ast.Name) and isinstance(child.ctx, (ast.Store, ast.Del)) and id(child) not in skip:
                out.append((child.lineno, child.col_offset, child.id))
            elif isinstance(child, ast.alias):
                out.append((node.lineno, node.col_offset, (child.asname or child.name).split(".")[0]))
            todo.append(child)
    return sorted(out)


def name_entries_times_eight(got, name, submission) -> None:
    """q8 (round82, blind83 q8_entries_counted_for_the_papers_eight_heads): a count 8 T^2. entries_all_heads where
    the line of the cell that stores `name` (outside its defs) multiplies by a name that says heads (h, n_heads,
    num_heads) which the cell last bound to 8 before that line (`h = 8`, `T, d_k, h = 1024, 64, 8`); else
    count_in_bytes (float64's 8 bytes), as before. Always raises. Student text: parsed (bounded), never run."""
    hit = None
    try:
        for seg, tree in _cell_trees(submission, name)[:4]:
            eights: set[str] = set()
            assigns = _cell_level_assigns(tree)[:256]
            others = _cell_level_rebinds(tree, assigns)
            for n in assigns:
                while others and (others[0][0], others[0][1]) < (n.lineno, n.col_offset):
                    eights = eights - {others.pop(0)[2]}   # `h //= 8`, `for h in ...`, `with .. as h` (round 142)
                if any(isinstance(t, ast.Name) and t.id == name for t in n.targets):
                    # the line that binds `name` LAST is the count (round 142: a draft rebound is not read)
                    hit = (seg.of(n) or unparse(n)).splitlines()[0][:80] if any(
                        isinstance(y, ast.BinOp) and isinstance(y.op, ast.Mult) and any(
                            isinstance(side, ast.Name) and side.id in eights for side in (y.left, y.right))
                        for y in itertools.islice(ast.walk(n.value), 256)) else None
                for t in n.targets:
                    pairs = ([(t, n.value)] if isinstance(t, ast.Name) else list(zip(t.elts, n.value.elts))
                             if isinstance(t, ast.Tuple) and isinstance(n.value, ast.Tuple)
                             and len(t.elts) == len(n.value.elts) else [])
                    for tn, v in pairs:
                        if isinstance(tn, ast.Name):
                            eights = (eights | {tn.id}) if (_HEADS_NAME.match(tn.id) and _number(v) == 8) \
                                else eights - {tn.id}
    except CheckTooSlow:
        raise
    except Exception:  # noqa: BLE001 - an unreadable source shows nothing
        hit = None
    if hit is not None:
        raise Misconception("entries_all_heads", f"{name} is {got} = 8 T^2, and your cell multiplies by the number of "
                            f"heads (`{hit}`): " + describe("entries_all_heads"))
    raise Misconception("count_in_bytes", f"{name} is {got}, the entries times 8 (the bytes of float64): "
                        + describe("count_in_bytes"))


def madds_twice_cause(submission) -> str:
    """q8 (round70, blind70 q8_score_madds_from_a_flop_helper_that_counts_two_per_multiply_add): score_madds twice
    the multiply-adds, where the cell that stores it computes it with a helper function (defined in that cell)
    whose body multiplies by a literal 2, or writes the 2 itself in a value that names a FLOP count: the cause
    the source shows, a multiply and an add counted apart; else the key's text, which gives all three causes the
    number alone allows. Student text: parsed (bounded), never run."""
    try:
        read: set[int] = set()     # each def walked once, however many `score_madds = ...` call it (round 132)
        covered: set[int] = set()
        for seg, tree in _cell_trees(submission, "score_madds"):
            defs = {n.name: n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
            defs |= {n.targets[0].id: n.value for n in ast.walk(tree) if isinstance(n, ast.Assign)   # f = lambda ...
                     and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) and isinstance(n.value, ast.Lambda)}
            for n in ast.walk(tree):
                if not (isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "score_madds"
                                                          for t in n.targets)):
                    continue
                called = [defs[c.func.id] for c in ast.walk(n.value) if isinstance(c, ast.Call)
                          and isinstance(c.func, ast.Name) and c.func.id in defs]
                flop = any("flop" in x.id.lower() for x in ast.walk(n.value) if isinstance(x, ast.Name))
                fresh = [d for d in dict.fromkeys(called) if id(d) not in read]
                read |= {id(d) for d in fresh}
                hit = _source_hit([(seg, d) for d in fresh] + ([(seg, n.value)] if flop else []),
                                  lambda x: _times_two(x, covered))
                if hit is not None:
                    return (f"your cell counts 2 per multiply-add (`{hit}`), a FLOP count, which counts a multiply "
                            "and an add apart; score_madds asks for the multiply-adds of Q @ K.T, each once: "
                            "T * T * d_k")
    except CheckTooSlow:     # the check's CPU budget (round 132: swallowed here, the test went on past it)
        raise
    except Exception:  # noqa: BLE001 - an unreadable source shows nothing
        pass
    return describe("madds_counted_twice")


def _stored_names(tree) -> set[str]:
    """The names an assignment (plain, augmented, annotated, tuple-unpacked) of `tree` stores."""
    out: set[str] = set()
    for n in ast.walk(tree):
        targets = n.targets if isinstance(n, ast.Assign) else [n.target] if isinstance(n, (ast.AugAssign,
                                                                                          ast.AnnAssign)) else []
        for t in targets:
            out |= {e.id for e in ast.walk(t) if isinstance(e, ast.Name)}
    return out


def _name_divisor_from_value_width(got, submission) -> None:
    """q2 (round67, blind67 q2_divisor_for_d_k_64_read_off_q1s_out_shape_whose_last_axis_is_d_v): 11.31 is
    sqrt(128), question 1's value width d_v (out_shape[-1], V_shape[-1]) where this head's d_k = 64 belongs:
    value_from_another_question only where the value assigned to scale_divisor reads a name its own cell never
    sets and another cell assigns (question 1's out_shape, or a name set from a 128 written out: that cell's line
    quoted); else the plain fact (sqrt(d_k) * 4 of the example's d_k = 8 is 11.31 too). Parsed (bounded), never run."""
    if abs(got - 128 ** 0.5) >= 1e-6:
        return
    trees = _cell_trees(submission, "scale_divisor")
    own = set().union(*(_stored_names(tree) for _s, tree in trees)) if trees else set()
    assigns = [n for _s, tree in trees for n in ast.walk(tree) if isinstance(n, ast.Assign)][:200]
    values = [n.value for n in assigns if "scale_divisor" in _stored_names(n)]
    # one step back through the cell's own names (`*_, width = out_shape` then sqrt(width))
    names = {e.id for v in values for e in ast.walk(v) if isinstance(e, ast.Name)}
    values += [n.value for n in assigns if _stored_names(n) & names]
    read = [e.id for v in values for e in ast.walk(v) if isinstance(e, ast.Name) and e.id not in own]
    for name in list(dict.fromkeys(read))[:8]:
        # question 1's answer, or a name another cell sets from a 128 written out (V_shape = (4, 10, 128))
        line = _source_hit(_cell_trees(submission, name), lambda n, name=name: isinstance(n, (ast.Assign, ast.AnnAssign))
                           and name in _stored_names(n) and (name == "out_shape" or any(
                               _number(c) == 128 for c in ast.walk(n.value) if isinstance(c, ast.Constant))))
        if line is None:
            continue
        raise Misconception("value_from_another_question", f"scale_divisor is {got:.4g} = sqrt(128): it reads "
                            f"{name}, which another cell sets (`{line}`), and 128 there is question 1's value width "
                            "d_v (the last entry of out_shape and of V's shape), not this head's d_k = 64: "
                            + describe("value_from_another_question") + " (the divisor is sqrt(64) = 8)")
    raise AssertionError(f"scale_divisor is {got:.4g} = sqrt(128), not 8: 128 is not 64; the divisor for d_k = 64 "
                         "is sqrt(64) = 8")


_ROLE = re.compile(r"(?i)^_*(q|queries|query|k|keys|key|v|values|value)(_|shape|$)")


def _role(name: str) -> str | None:
    """"q", "k" or "v" for a name that spells one of attention's three inputs (Q_shape, k, values ...)."""
    found = _ROLE.match(name)
    return found.group(1)[0].lower() if found else None


def helper_slots_crossed(submission, answer: str) -> str:
    """q1 (round67, blind67 q1_shape_helper_called_in_the_keras_query_value_key_order): where `answer` (out_shape)
    is assigned from a call of a helper def'd in the notebook, positionally, and the argument that fills the
    helper's value slot (a parameter named v..., value...) is named for the keys (K_shape): the call's order, said
    with the def's. "" otherwise. Parsed (bounded), never run."""
    try:
        trees = _cell_trees(submission, answer)
        layout = _linear_weight_last_axis(trees, answer)     # naming round 76 (blind76): nn.Linear's (out, in)
        if layout is not None:
            return (f": `{layout}` reads an nn.Linear weight's last axis, but nn.Linear stores its weight as "
                    "(out_features, in_features), so that axis is the layer's input width (d_k = 64 here); the "
                    "output width is weight.shape[0] (or the layer's out_features)")
        calls = [c for _s, tree in trees for n in ast.walk(tree) if isinstance(n, ast.Assign)
                 and answer in _stored_names(n) for c in ast.walk(n.value)
                 if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)][:8]
        for call in calls:
            defs = [d for _s, tree in _cell_trees(submission, call.func.id) for d in ast.walk(tree)
                    if isinstance(d, ast.FunctionDef) and d.name == call.func.id]
            if not defs:
                continue
            params = [a.arg for a in defs[-1].args.posonlyargs + defs[-1].args.args]
            args = [a.id if isinstance(a, ast.Name) else "" for a in call.args]
            read = {n.id for n in ast.walk(defs[-1]) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
            for param, arg in zip(params, args):
                if _role(param) == "v" and _role(arg) == "k" and param in read:
                    return (f": `{unparse(call)[:80]}` passes {arg} into {call.func.id}'s {param} slot (it is "
                            f"declared ({', '.join(params)}), and positional arguments fill the slots in that "
                            "order), so the output's width is d_k: call it in the def's order, or by keyword")
    except (RecursionError, MemoryError, ValueError, AttributeError):
        return ""
    return ""


def _floor_division_hit(trees) -> str | None:
    return _source_hit(trees, lambda n: isinstance(n, ast.BinOp) and isinstance(n.op, ast.FloorDiv)
                       and _number(n.right) not in (2.0, 1.0))


def _difference_hit(trees) -> str | None:
    return _source_hit(trees, lambda n: isinstance(n, ast.BinOp) and isinstance(n.op, ast.Sub))


def name_cost_ratio_increase(got, submission, increase, ratio) -> None:
    """q8 (round64, blind64 q8_growth_factor_from_causal_triangle_counts_floor_divided): a cost_ratio equal to
    one of the increases (new / old - 1 = 3, ...) is cost_ratio_as_increase only where the cost_ratio cell
    subtracts (a `- 1` or a difference new - old); 3 from a cell whose `//` divides (not a halving by 2) is
    ratio_floor_divided (a ratio just under 4 truncated); else the plain fact. Student text: parsed, never run."""
    if got not in increase:
        return
    trees = _cell_trees(submission, "cost_ratio")
    if not trees or _difference_hit(trees) is not None:
        raise Misconception("cost_ratio_as_increase", f"cost_ratio is {got}, {increase[got]}: "
                            + describe("cost_ratio_as_increase"))
    hit = _floor_division_hit(trees) if got == ratio - 1 else None
    if hit is not None:
        raise Misconception("ratio_floor_divided", f"cost_ratio is {got}: `{hit}` divides with //, which cuts a "
                            f"ratio just under {ratio} (3.998 for the causal triangles T(T+1)/2) down to {got}: "
                            + describe("ratio_floor_divided"))
    raise AssertionError(f"cost_ratio is {got}, not {ratio}: {got} is not {ratio} (the cell subtracts nothing, so it "
                         "is not new / old - 1 either): how does T * T * d_k change when T doubles?")


def _products_scores(node) -> bool:
    """Scores in an expression: a @ product, a matmul / mm / bmm / einsum call, or a name that says scores."""
    return any((isinstance(x, ast.BinOp) and isinstance(x.op, ast.MatMult))
               or (isinstance(x, ast.Call) and (getattr(x.func, "attr", None) or getattr(x.func, "id", None))
                   in ("matmul", "mm", "bmm", "einsum"))
               or (isinstance(x, ast.Name) and "score" in x.id.lower()) for x in itertools.islice(ast.walk(node), 64))


def _scores_by_fixed_8(node) -> bool:
    """round82 (blind83 q6_hand_trace_divided_by_the_illustrated_transformers_8): scores divided by a written 8 or
    sqrt(64) (64 ** 0.5, math.sqrt(64)), or multiplied by 1 / 8 = 0.125: `Q3 @ K3.T / 8`."""
    if not isinstance(node, ast.BinOp) or not _products_scores(node.left):
        return False
    if isinstance(node.op, ast.Div):
        root = _root_of(node.right)
        return _number(node.right) == 8 or (root is not None and _number(root) == 64)
    return isinstance(node.op, ast.Mult) and _number(node.right) == 0.125


_TRACE_NAMES = ("scores3", "weights3", "out3", "weights3_causal")


def _trace_bindings(trees) -> list:
    """(segments, node) for what the trace's names hold: each cell's LAST binding of scores3 / weights3 / out3 /
    weights3_causal outside its defs, and the cell's defs those bindings call (a helper that is the trace). Red-team
    round 142: any line of the cells was read, and `blog_scores = Q3 @ K3.T / 8  # the blog's version` beside a
    scores3 divided by 2 d_k (or a helper never called) was told trace_divided_by_fixed_8 quoting that line."""
    out = []
    for segments, tree in trees:
        last = {}
        annotated = [n for st in tree.body[:2000] for n in ast.walk(st) if isinstance(n, ast.AnnAssign)
                     and n.value is not None and not isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                     ast.ClassDef))]
        for n in sorted([*_cell_level_assigns(tree), *annotated], key=lambda n: (n.lineno, n.col_offset)):
            for t in (n.targets if isinstance(n, ast.Assign) else [n.target]):
                if isinstance(t, ast.Name) and t.id in _TRACE_NAMES:
                    last[t.id] = n
        values = list({id(n): n for n in last.values()}.values())
        called = {c.func.id for v in values for c in itertools.islice(ast.walk(v.value), 2000)
                  if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)}
        out.extend((segments, n) for n in values)
        out.extend((segments, d) for d in tree.body[:512]
                   if isinstance(d, (ast.FunctionDef, ast.AsyncFunctionDef)) and d.name in called)
    return out


def _trace_precedence_key(key, what, submission):
    """q6 (round64, blind64 q6_trace_divided_by_the_q2_cells_scale_divisor_left_in_the_namespace): the trace's
    weights divided by 2 d_k = 8 (or d_k / 2) are scale_precedence only where the trace's cells write `** 1/2`
    (or no trace cell is found); a divisor that is a name the trace's cells never set but another cell does
    (q2's scale_divisor = 8) is value_from_another_question, that cell's line quoted; else the plain fact."""
    trees = _cell_trees(submission, "scores3", "weights3", "out3", "weights3_causal")
    if not trees or _source_hit(trees, _precedence_slip) is not None:
        return key
    fixed = _source_hit(_trace_bindings(trees), _scores_by_fixed_8)   # round82 (blind83): the blog's "divide by 8"
    if fixed is not None:
        raise Misconception("trace_divided_by_fixed_8", f"{what} is wrong: it matches the scores divided by 8, and "
                            f"your trace writes that 8 (`{fixed}`): " + describe("trace_divided_by_fixed_8"))
    own = {t.id for _s, tree in trees for n in ast.walk(tree) if isinstance(n, (ast.Assign, ast.AugAssign,
           ast.AnnAssign)) for t in ([n.target] if not isinstance(n, ast.Assign) else n.targets) if isinstance(t, ast.Name)}
    divisors = [n.right.id for _s, tree in trees for n in ast.walk(tree) if isinstance(n, ast.BinOp)
                and isinstance(n.op, ast.Div) and isinstance(n.right, ast.Name) and n.right.id not in own]
    for name in divisors[:8]:
        line = _source_hit(_cell_trees(submission, name), lambda n, name=name: isinstance(n, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for t in n.targets))
        if line is None:
            continue
        raise Misconception("value_from_another_question", f"{what} is wrong: the trace's scores are divided by "
                            f"{name}, which another cell sets to 8 (`{line}`: the divisor for a head of width 64), "
                            "not by this trace's sqrt(d_k) = sqrt(4) = 2: " + describe("value_from_another_question")
                            + " (divide by math.sqrt(Q3.shape[-1]))")
    raise AssertionError(f"{what} is wrong: it matches the scores divided by 2 d_k = 8, not by sqrt(d_k) = "
                         "sqrt(4) = 2: divide by math.sqrt(Q3.shape[-1])")


_SIZES_CRASH = re.compile(r"size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\)")


def name_width_from_queries(fn, plain, e, said) -> None:
    """round64 (blind64 q5_fully_masked_output_rows_replaced_by_zeros_like_the_queries_assumes_d_v_equals_d_k): a
    broadcast crash between d_v and d_k (d_v != d_k) where one second call, the same call with the keys given as
    the values (d_v = d_k), runs and is right: something of the output's shape is taken from Q (zeros_like(Q)
    for the fully masked queries' rows): output_width_dk."""
    Q, K, V, mask = plain
    found = _SIZES_CRASH.search(e.message)
    if found is None or Q is None or K is None or V is None:
        return
    d_k, d_v = Q.shape[-1], V.shape[-1]
    if d_k == d_v or {int(found.group(1)), int(found.group(2))} != {d_k, d_v}:
        return
    if not right(second_call(fn, Q, K, K, mask=mask), Q, K, K, mask):
        return
    raise Misconception("output_width_dk", f"{said}: {d_v} is d_v, the width of V and of the output, and {d_k} is "
                        "d_k, the width of Q; the same call with values as wide as the queries (d_v = d_k) runs and "
                        "is right: part of your output is made with the queries' shape (torch.zeros_like(Q), "
                        "Q.new_zeros(...), a buffer like Q), for example the rows of fully masked queries; make it "
                        "like the output (zeros_like(out)), whose width is d_v: " + describe("output_width_dk"))


def name_mask_squeezed(fn, t, expected, what) -> None:
    """round64 (blind64 q4_triangle_built_with_a_leading_axis_then_squeezed_drops_a_length_one_axis): a mask of
    a length 1 (T_q = 1 or T_k = 1) that is the right mask with its length-1 axes dropped (a bare .squeeze()),
    where one second call with neither length 1 ((2, 3)) gives the right mask: mask_size_one_axes_dropped."""
    if type(t) is not torch.Tensor or t.dim() >= expected.dim() or 1 not in tuple(expected.shape):
        return
    if tuple(t.shape) != tuple(d for d in expected.shape if d != 1) or not bool(((t != 0) == expected.reshape(t.shape)).all()):
        return
    other = second_call(fn, 2, 3)
    if type(other) is not torch.Tensor or tuple(other.shape) != (2, 3) or not bool(((other != 0) == ref.causal_mask(2, 3)).all()):
        return
    raise Misconception("mask_size_one_axes_dropped", f"{what} has shape {tuple(t.shape)}, expected "
                        f"{tuple(expected.shape)}: the right mask with its length-1 axis dropped, while "
                        "causal_mask(2, 3) has its two axes: " + describe("mask_size_one_axes_dropped"))


def name_flag_from_first_entry(fn, Q, K, V, mask, what) -> None:
    """round64 (blind64 q5_empty_row_flag_read_from_mask_index_0_as_if_every_mask_had_a_batch_axis): a 2-D
    (T_q, T_k) mask whose later fully masked queries got NaN, and one second call, the same with query 0 fully
    masked too, gives zeros everywhere: the flag is read from mask[0] (query 0's row, not one flag per query):
    empty_flag_from_first_mask_entry."""
    if type(mask) is not torch.Tensor or mask.dim() != 2 or mask.shape[0] < 2 or not bool(mask[0].any()):
        return
    blocked = mask.clone()
    blocked[0] = False
    out = second_call(fn, Q, K, V, mask=blocked)
    if (type(out) is not torch.Tensor or tuple(out.shape) != tuple(Q.shape[:-1] + V.shape[-1:])
            or not bool((out == 0).all())):
        return
    raise Misconception("empty_flag_from_first_mask_entry", f"{what}: the fully masked query got NaN; the same "
                        f"call with query 0 fully masked too gives zeros in every row: for this 2-D "
                        f"{tuple(mask.shape)} mask your flag for queries without a key is read from mask[0], which "
                        "is query 0's row, not one flag per query: " + describe("empty_flag_from_first_mask_entry"))


def name_flag_for_2d_mask_only(fn, Q, K, V, mask, dead, what) -> None:
    """blind85 (q5_empty_row_check_any_over_axis_one): a batched mask whose fully masked queries got NaN, and one
    second call on the first sequence alone (Q[0], K[0], V[0] with its 2-D mask[0], which keeps a fully masked
    query) right, zeros in those rows: the flag for queries without a key handles a 2-D mask only (it reduces a
    fixed axis, mask.any(dim=1), the key axis of a (T_q, T_k) mask and the query axis of a batched one):
    empty_flag_fixed_axis. Code with no flag at all gets NaN on the slice too, so it is not named here."""
    if (type(mask) is not torch.Tensor or mask.dim() != 3 or Q.dim() != 3 or K.dim() != 3 or V.dim() != 3
            or mask.shape[0] < 1 or not bool((~mask[0].any(dim=-1)).any())):
        return
    line = _axis_one_reduction(_grading_checks.running_submission())
    if line is None:    # a zeroing step that fails with a batch for another reason (a write into a reshape's copy)
        return
    Q0, K0, V0, m0 = Q[0], K[0], V[0], mask[0].clone()
    out = second_call(fn, Q0, K0, V0, mask=m0)
    if not right(out, Q0, K0, V0, m0):
        return
    raise Misconception("empty_flag_fixed_axis", f"{what}: with the batched {tuple(mask.shape)} mask the queries "
                        f"without an allowed key got NaN, and on the first sequence alone, with its 2-D "
                        f"{tuple(m0.shape)} mask, they get zeros and the output is right; your `{line}` reduces "
                        "axis 1: " + describe("empty_flag_fixed_axis"))


_REDUCTIONS = frozenset({"any", "all", "sum", "amax", "max", "count_nonzero", "prod", "amin", "min"})


def _axis_one_reduction(submission) -> str | None:
    """The first reduction over axis 1 in the student's scaled_dot_product_attention (the last def a Run All leaves,
    its own statements): `m.any(dim=1)`, `m.sum(1, keepdim=True)`, `torch.any(m, 1)`, `axis=1`; None where there is
    none. Student text: parsed (pyparse, bounded), never run."""
    last = _last_run_def(submission)
    if last is None:
        return None
    segments, fdef = last

    def one(n):
        return isinstance(n, ast.Constant) and type(n.value) is int and n.value == 1
    for node in itertools.islice(_own_statements(fdef), 20000):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _REDUCTIONS):
            continue
        on_torch = isinstance(node.func.value, ast.Name) and node.func.value.id == "torch"
        axis = [k.value for k in node.keywords if k.arg in ("dim", "axis")]
        axis += node.args[1:2] if on_torch else node.args[:1]
        if any(one(a) for a in axis):
            return (segments.of(node) or unparse(node)).splitlines()[0][:80]
    return None


# --- naming round 65 (blind65: leftovers from debugging) ----------------------------------------------------

def name_probe_key_count(got, right, what, submission, widths=(), answers=("weights_shape", "out_shape")) -> None:
    """round65 (blind65 q1_probe_keys_left_at_a_cross_attention_length_of_12_from_experimenting): weights_shape
    (B, T_q, n), right but for its key axis, where n is no size of the question's (neither B, T, d_k nor d_v) and
    the cell that assigns it writes n as a number (`T_q, T_k = 10, 12`): the probe's own key count, left from an
    experiment: probe_key_count_not_the_questions. Student text: parsed, never run."""
    name_weights_shape_per_query(got, right, what)       # naming round 86: (B, T_q, 1), a per-query statistic
    if (len(right) != 3 or len(got) != 3 or tuple(got[:2]) != tuple(right[:2]) or got[2] in tuple(right)
            or got[2] in tuple(widths) or got[2] < 1):
        return
    try:
        for source, tree in list(answer_cell_trees(submission, what))[-2:]:
            for stmt in ast.walk(tree):
                if not isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.Expr)) or _assigns_answer(stmt, answers):
                    continue      # a shape typed into the answer itself is no probe's
                if any(isinstance(n, ast.Constant) and type(n.value) is int and n.value == got[2]
                       for n in ast.walk(stmt)):
                    quote = (Segments(source).of(stmt) or unparse(stmt))[:120]
                    raise Misconception("probe_key_count_not_the_questions", f"{what} is {tuple(got)}: its last "
                                        f"axis counts the keys, and your cell's probe has {got[2]} of them (the "
                                        f"{got[2]} in `{quote}`), while the question's K has T_k = {right[2]} tokens: "
                                        f"the weights are (B, T_q, T_k) = {tuple(right)}; "
                                        + describe("probe_key_count_not_the_questions"))
    except (RecursionError, MemoryError, ValueError):
        return


def _assigns_answer(stmt, answers) -> bool:
    """Whether `stmt` stores one of the names `answers` (a target, or a place of an unpacked tuple)."""
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] if isinstance(stmt, ast.AnnAssign) else []
    return any(isinstance(n, ast.Name) and n.id in answers for t in targets for n in ast.walk(t))


def name_softmax_result_squeezed(fn, got, x, what) -> None:
    """round65 (blind65 q3_result_squeezed_for_a_one_line_printout_drops_length_one_axes): the softmax of an input
    with a length-1 axis that is the right result with every length-1 axis dropped, where one second call, the
    same input doubled along that axis (no length-1 axis), keeps the shape and is right: softmax_result_squeezed."""
    if type(got) is not torch.Tensor or type(x) is not torch.Tensor or 1 not in tuple(x.shape):
        return
    expected = ref.stable_softmax(x, dim=-1)
    squeezed = tuple(d for d in x.shape if d != 1)
    if tuple(got.shape) != squeezed or got.dim() == x.dim():
        return
    if not torch.allclose(got.double(), expected.double().reshape(squeezed), rtol=1e-6, atol=1e-9):
        return
    axis = tuple(x.shape).index(1)
    wide = torch.cat([x, x], dim=axis)
    other = second_call(fn, wide, dim=-1)
    if (type(other) is not torch.Tensor or tuple(other.shape) != tuple(wide.shape)
            or not torch.allclose(other.double(), ref.stable_softmax(wide, dim=-1).double(), rtol=1e-6, atol=1e-9)):
        return
    name_softmax_leading_axis_squeezed(fn, x, what, got)      # round72: only axis 0, by a (2, 1, n) second call
    raise Misconception("softmax_result_squeezed", f"{what} has shape {tuple(got.shape)}, expected "
                        f"{tuple(x.shape)}: the right values with the length-1 axis dropped, while the same input "
                        f"with that axis of length 2, {tuple(wide.shape)}, keeps its shape and is right: "
                        + describe("softmax_result_squeezed"))


_MISMATCH_SIZES = re.compile(r"size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\)")


def name_sdpa_mask_squeezed(fn, plain, e, said) -> None:
    """round65 (blind65 q5_mask_squeezed_for_a_debug_print_loses_the_axes_a_padding_mask_broadcasts_on): a
    broadcast crash with a mask that has a length-1 axis, where (1) a replay, the right attention with the mask
    squeezed (every length-1 axis dropped), crashes too on the same two sizes, and (2) one second call, the same
    mask expanded to the scores' full shape (no length-1 axis), runs and is right: mask_squeezed_loses_broadcast_axes.
    A function that swaps axes or needs the mask at full shape for another reason fails (1) or (2)."""
    Q, K, V, mask = plain
    found = _MISMATCH_SIZES.search(e.message)
    if found is None or type(mask) is not torch.Tensor or 1 not in tuple(mask.shape) or mask.dim() < 2:
        return
    try:
        ref.scaled_dot_product_attention(Q, K, V, mask.squeeze())
        return
    except (RuntimeError, IndexError, ValueError, TypeError) as replay:
        again = _MISMATCH_SIZES.search(str(replay)[:2000])
        if again is None or {again.group(1), again.group(2)} != {found.group(1), found.group(2)}:
            return
    lead = broadcast_shape(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    try:
        full = broadcast_shape(tuple(lead) + (Q.shape[-2], K.shape[-2]), mask.shape)
    except (RuntimeError, ValueError):
        return
    whole = mask.expand(full).contiguous()
    if not right(second_call(fn, Q, K, V, mask=whole), Q, K, V, whole):
        return
    raise Misconception("mask_squeezed_loses_broadcast_axes", f"{said}, with a mask of shape {tuple(mask.shape)}; "
                        f"the right attention with that mask squeezed to {tuple(mask.squeeze().shape)} raises the "
                        f"same size mismatch, and your function with the mask expanded to {tuple(full)} runs and is "
                        "right: " + describe("mask_squeezed_loses_broadcast_axes"))


def name_variances_typed_in(raw, scaled, submission) -> None:
    """round65 (blind65 q2_variances_typed_in_from_a_run_on_another_random_draw): raw_score_var wrong (the caller
    says so) and the cell's last assignment to it a number literal (`raw_score_var = 8.5882`): typed in from a
    printout of another run, not computed: variance_typed_in. Student text: parsed, never run."""
    typed = []
    try:
        for answer in ("raw_score_var", "scaled_score_var"):
            last = None
            for _source, tree in list(answer_cell_trees(submission, answer))[-1:]:
                for node in ast.walk(tree):
                    if isinstance(node, ast.Assign):
                        value = _value_assigned(node, answer)
                        if value is not None:
                            last = (node, value)
            if last is None:
                continue
            value = last[1]
            if isinstance(value, ast.UnaryOp) and isinstance(value.op, (ast.USub, ast.UAdd)):
                value = value.operand
            if isinstance(value, ast.Constant) and type(value.value) in (int, float):
                typed.append(unparse(last[0])[:80])
    except (RecursionError, MemoryError, ValueError):
        return
    if not any(t.lstrip().startswith("raw_score_var") for t in typed):
        return
    raise Misconception("variance_typed_in", f"raw_score_var is {raw:.6g}, a number typed into the cell "
                        f"({'; '.join(f'`{t}`' for t in typed)}), not computed: it is not the variance of this "
                        f"notebook's scores Q @ K.transpose(-2, -1), {ref.raw_score_var:.4g}: "
                        + describe("variance_typed_in"))


def _index_of(node):
    """A subscript's index when it is written with int constants, slices of them and tuples of those, else None."""
    if isinstance(node, ast.Tuple):
        parts = [_index_of(n) for n in node.elts[:4]]
        return None if any(p is None for p in parts) or len(node.elts) > 4 else tuple(parts)
    if isinstance(node, ast.Slice):
        ends = [None if n is None else _small_int(n) for n in (node.lower, node.upper, node.step)]
        if any(n is not None and e is None for n, e in zip((node.lower, node.upper, node.step), ends)) or ends[2] == 0:
            return None
        return slice(*ends)
    return _small_int(node)


def _small_int(node):
    """An int constant of the source below 8 in size (an index into a 3 x 3 matrix), else None."""
    n = _number(node)
    return int(n) if n is not None and math.isfinite(n) and n == int(n) and abs(n) < 8 else None


def _fill_value(node):
    """-inf (float('-inf'), -math.inf, -torch.inf, -np.inf) or a number constant, else None."""
    n = _number(node)
    if isinstance(n, (int, float)):
        return float(n)
    neg = isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub)
    inner = node.operand if neg else node
    if isinstance(inner, ast.Attribute) and inner.attr == "inf":
        return float("-inf") if neg else float("inf")
    if (isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name) and inner.func.id == "float"
            and len(inner.args) == 1 and isinstance(inner.args[0], ast.Constant)
            and str(inner.args[0].value).strip().lower() in ("-inf", "inf", "+inf", "-infinity", "infinity")):
        v = float(str(inner.args[0].value).strip())
        return -v if neg else v
    return None


def name_trace_scores_written_in_place(got, what, submission, atol) -> None:
    """round65 (blind65 q6_query_0_scores_blanked_in_place_to_try_the_hint_left_before_the_unmasked_weights): the
    trace's cells write into scores3 with a subscript assignment (`scores3[0, 1:] = float("-inf")`, the hint tried
    on the notebook's own scores) and `got` is what the trace gives on the scores so changed (a replay of that
    write on the right scores): scores_written_in_place. Student text: parsed, never run."""
    if what not in ("weights3", "out3") or type(got) is not torch.Tensor:
        return
    try:
        trees = _cell_trees(submission, "scores3", "weights3", "out3")
        writes = 0
        for segments, tree in trees:
            for node in ast.walk(tree):
                if not (isinstance(node, ast.Assign) and len(node.targets) == 1
                        and isinstance(node.targets[0], ast.Subscript)
                        and isinstance(node.targets[0].value, ast.Name) and node.targets[0].value.id == "scores3"):
                    continue
                writes += 1
                if writes > 16:       # a few writes replayed, not a cell of thousands (bounded)
                    return
                index, fill = _index_of(node.targets[0].slice), _fill_value(node.value)
                if index is None or fill is None:
                    continue
                scores = ref.Q3 @ ref.K3.T / 2.0
                try:
                    scores[index] = fill
                except (IndexError, RuntimeError, TypeError):
                    continue
                weights = torch.softmax(scores, dim=-1)
                replay = weights if what == "weights3" else weights @ ref.V3
                if (tuple(got.shape) != tuple(replay.shape) or not torch.isfinite(got).all()
                        or not torch.allclose(got.double(), replay.double(), rtol=0, atol=atol)):
                    continue
                rows = sorted({int(i) for i in ((replay - (ref.weights3 if what == "weights3" else ref.out3))
                                                .abs() > atol).nonzero()[:, 0]})
                quote = (segments.of(node) or unparse(node))[:80]
                raise Misconception("scores_written_in_place", f"{what} is wrong in row(s) {rows}: `{quote}` "
                                    "changes scores3 itself before the weights are taken, and "
                                    f"{what} is what the trace gives on the scores so changed: "
                                    + describe("scores_written_in_place"))
    except (RecursionError, MemoryError, ValueError):
        return


def name_sdpa_mask_squeezed_values(fn, Q, K, V, mask, got, what) -> None:
    """round65: the value side of name_sdpa_mask_squeezed: a mask with a length-1 axis whose squeeze still
    broadcasts (a (B, 1, T_k) mask with B = T_q lines its batch axis up with the queries), where `got` is the right
    attention with the mask squeezed (a replay, not the right result) and one second call, the mask expanded to the
    scores' full shape, runs and is right: mask_squeezed_loses_broadcast_axes."""
    if type(got) is not torch.Tensor or type(mask) is not torch.Tensor or 1 not in tuple(mask.shape):
        return
    plain = [t.detach() for t in (Q, K, V, mask)]
    try:
        replay = ref.scaled_dot_product_attention(*plain[:3], plain[3].squeeze())
        lead = broadcast_shape(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
        full = broadcast_shape(tuple(lead) + (Q.shape[-2], K.shape[-2]), mask.shape)
    except (RuntimeError, IndexError, ValueError, TypeError):
        return
    expected = ref.scaled_dot_product_attention(*plain)
    if (replay.shape != got.shape or replay.dtype != got.dtype or not matching_variants(got, {"replay": replay}, got.dtype)
            or (replay.shape == expected.shape and matching_variants(replay, {"right": expected}, got.dtype))):
        return
    whole = plain[3].expand(full).contiguous()
    if not right(second_call(fn, *plain[:3], mask=whole), *plain[:3], whole):
        return
    raise Misconception("mask_squeezed_loses_broadcast_axes", f"{what} is wrong, with a mask of shape "
                        f"{tuple(mask.shape)}: it is the right attention with that mask squeezed to "
                        f"{tuple(plain[3].squeeze().shape)}, and your function with the mask expanded to {tuple(full)} "
                        "is right: " + describe("mask_squeezed_loses_broadcast_axes"))


# ---------------------------------------------------------------------------------------------
# naming round 66 (blind66): right in the middle, wrong at the edges
# ---------------------------------------------------------------------------------------------

def _front_axis_hit(trees) -> str | None:
    """A subscript that counts axes from the front as for 4-D (B, H, T, d) shapes: `x[2]` or `x[:3]` (bounded
    walk of the parsed cells; the quote cut by pyparse.unparse)."""
    for _, tree in trees:
        for node in ast.walk(tree):
            if not isinstance(node, ast.Subscript):
                continue
            s = node.slice
            if (isinstance(s, ast.Constant) and s.value == 2 and type(s.value) is int) or (
                    isinstance(s, ast.Slice) and s.lower is None and s.step is None
                    and isinstance(s.upper, ast.Constant) and s.upper.value == 3 and type(s.upper.value) is int):
                return unparse(node)
    return None


def name_shape_from_front_axes(got, what, inputs, submission) -> None:
    """q1, round66 (blind66 q1_shape_helper_indexes_axis_2_as_in_the_4d_comparison_cell): on the 3-D shapes, the
    answer is the one built from 4-D positions (lead = q_shape[:3], T_k = k_shape[2]): the whole of q_shape plus
    k_shape[2] (weights) or v's width (out), and the cell indexes `[2]` or slices `[:3]`: shape_helper_axes_from_the_front."""
    q, k, v = (tuple(inputs[n]) for n in ("Q", "K", "V"))
    if len(q) != 3 or submission is None:
        return
    built = q + (k[2],) if what == "weights_shape" else q + (v[-1],)
    if tuple(got) != built:
        return
    hit = _front_axis_hit(_cell_trees(submission, what))
    if hit is None:
        return
    raise Misconception("shape_helper_axes_from_the_front", f"{what} is {tuple(got)}, the shape built from 4-D "
                        f"positions on the 3-D shapes {q}, {k}, {v} (`{hit}` in your cell): "
                        + describe("shape_helper_axes_from_the_front"))


def _triangle_source(trees) -> str | None:
    """triu/tril (torch.triu_indices, .triu()) or an ordered comparison of two names (i < j, j >= i) in the cell."""
    for _seg, tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                f = node.func
                name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
                if name.startswith(("triu", "tril")):
                    return unparse(node)
            if (isinstance(node, ast.Compare) and len(node.ops) == 1
                    and isinstance(node.ops[0], (ast.Lt, ast.LtE, ast.Gt, ast.GtE))
                    and isinstance(node.left, ast.Name) and isinstance(node.comparators[0], ast.Name)):
                return unparse(node)
    return None


def name_triangle_variance(raw, said, submission) -> None:
    """q2, round66 (blind66 q2_variance_of_the_upper_triangle_only_as_if_the_scores_were_symmetric): raw_score_var
    equal (1e-5 relative) to the variance of one triangle of each sequence's Q @ K^T on the example (upper or lower,
    with or without the diagonal), replayed, and the cell takes a triangle (triu/tril or an i < j comparison)."""
    hit = _triangle_source(_cell_trees(submission, "raw_score_var"))
    if hit is None or ("tril" in hit and any(abs(raw - value) <= 1e-5 * abs(value)
                                             for value, _key, _how in reduced_score_variances())):
        return      # a causal tril's triangle: round 46's scores_masked_before_variance says it (masking the scores)
    Q, K, _ = ref._batched_example()
    s = Q @ K.transpose(-2, -1)
    T = s.shape[-1]
    for offset in (0, 1):
        for which, idx in (("upper", torch.triu_indices(T, T, offset)), ("lower", torch.tril_indices(T, T, -offset))):
            value = float(s[..., idx[0], idx[1]].var())
            if abs(raw - value) > 1e-5 * abs(value):
                continue
            part = "with" if offset == 0 else "without"
            raise Misconception("variance_of_one_triangle", f"{said}: {raw:.6g} is the variance of the {which} "
                                f"triangle ({part} the diagonal) of each score matrix, which your cell takes (`{hit}`): "
                                + describe("variance_of_one_triangle"))


def _threshold_probe(top):
    """A float16 probe (1, 2, 1) x (1, 3, 1) whose largest score is `top` (d_k = 1: no scale), and its V."""
    Q = torch.tensor([[[1.0], [0.75]]], dtype=torch.float16)
    K = torch.tensor([[[top], [top - 1.0], [0.0]]], dtype=torch.float16)
    V = torch.tensor([[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]], dtype=torch.float16)
    return Q, K, V


def name_shift_threshold(fn, said) -> None:
    """q5 (q3's softmax), round66 (blind66 q3_max_shift_applied_only_when_a_logit_passes_the_float32_overflow_point_88):
    second calls on small float16 probes: logits up to 5 right, around 30 inf or NaN, and 150 to 200 right
    again (the shift switched on above a threshold between them): max_shift_behind_a_threshold. A softmax with no
    shift fails at 200 too; one always shifted passes at 30."""
    outcomes = {}
    for top in (5.0, 30.0, 200.0):
        Q, K, V = _threshold_probe(top)
        out = second_call(fn, Q, K, V, mask=None)
        if type(out) is not torch.Tensor or tuple(out.shape) != (1, 2, 2):
            return
        want = torch.softmax(Q.double() @ K.double().transpose(-2, -1), dim=-1) @ V.double()
        outcomes[top] = ("nan" if not bool(torch.isfinite(out).all()) else "right"
                         if torch.allclose(out.detach().double(), want, rtol=0, atol=5e-3) else "wrong")
    if outcomes != {5.0: "right", 30.0: "nan", 200.0: "right"}:
        return
    raise Misconception("max_shift_behind_a_threshold", f"{said}; on small float16 probes the largest logit 5 gives "
                        "the right result, 30 gives inf or NaN and 200 the right result again: the max is subtracted "
                        "only above some threshold between 30 and 150: " + describe("max_shift_behind_a_threshold"))


DENOMINATOR_EPSILONS = tuple(10.0 ** -k for k in range(3, 16)) + (1e-20,)


def name_denominator_epsilon(Q, K, V, mask, got, expected, what) -> None:
    """q5, round66 (blind66 q5_denominator_epsilon_1e_minus_9_is_zero_in_float16_so_empty_rows_are_nan): a float64
    (or float32) result that is the replay of exp(s - max) / (sum + eps), empty rows 0, for one eps of a short list
    (1e-3 .. 1e-15, 1e-20), to 1e-12 of the output's size: denominator_epsilon. The right result (eps = 0) is not
    named (judge returned before)."""
    if (type(got) is not torch.Tensor or got.dtype not in (torch.float32, torch.float64) or got.shape != expected.shape
            or not bool(torch.isfinite(got).all()) or Q.numel() * K.shape[-2] > 1 << 22):
        return
    g = got.detach().double()
    s = _masked((Q.detach().double() @ K.detach().double().transpose(-2, -1)) / math.sqrt(Q.shape[-1]), mask)
    m = s.amax(dim=-1, keepdim=True)
    e = torch.exp(s - torch.where(torch.isinf(m), torch.zeros_like(m), m))
    total = e.sum(dim=-1, keepdim=True)
    size = float(g.abs().max()) or 1.0
    tol = (1e-12 if got.dtype == torch.float64 else 2e-6) * size
    if float((g - (e / total) @ V.detach().double()).abs().max()) <= tol:
        return                                       # the plain softmax: nothing to prove
    for eps in DENOMINATOR_EPSILONS:
        replay = (e / (total + eps)) @ V.detach().double()
        if float((g - replay).abs().max()) <= tol:
            raise Misconception("denominator_epsilon", f"{what} is the right result with {eps:g} added to each row's "
                                "softmax denominator (replayed: exp(s - max) / (sum + eps) on the same input): "
                                + describe("denominator_epsilon"))


def name_causal_loop_short(got, right_value, what, submission, atol) -> None:
    """q6, round66 (blind66 q6_causal_rows_loop_stops_at_t_minus_one_leaving_the_last_query_row_zero): every row
    right but the last, which is all zeros, and the cell has a loop over range(... - 1): causal_loop_last_row_skipped."""
    if type(got) is not torch.Tensor or type(right_value) is not torch.Tensor or got.shape != right_value.shape \
            or got.dim() != 2 or got.shape[0] < 2 or submission is None:
        return
    g, r = got.detach().double(), right_value.detach().double()
    if not bool(torch.isfinite(g).all()) or bool(g[-1].abs().max() != 0) \
            or not torch.allclose(g[:-1], r[:-1], rtol=0, atol=atol):
        return
    hit = None
    for _, tree in _cell_trees(submission, what):
        for node in ast.walk(tree):
            if (isinstance(node, ast.For) and isinstance(node.iter, ast.Call) and isinstance(node.iter.func, ast.Name)
                    and node.iter.func.id == "range" and node.iter.args
                    and isinstance(stop := node.iter.args[-1] if len(node.iter.args) < 3 else node.iter.args[1], ast.BinOp)
                    and isinstance(stop.op, ast.Sub) and isinstance(stop.right, ast.Constant) and stop.right.value == 1):
                hit = unparse(node.iter)
                break
        if hit:
            break
    if hit is None:
        return
    raise Misconception("causal_loop_last_row_skipped", f"{what} is right in every row but the last, row "
                        f"{got.shape[0] - 1}, which is all zeros: your loop runs over `{hit}`, which stops before "
                        "the last query: " + describe("causal_loop_last_row_skipped"))


def check_edge_lengths(fn, Q, K, V):
    """round66 (blind66), Question 5's fully-masked test: the statement's edges with a mask that blocks something:
    a single query (T_q = 1) with a (B, 1, T_k) padding mask, and a single key (T_k = 1) whose key is masked for
    some queries (they get zeros). Named: the unmasked result where a second call with two queries (or two keys)
    and the same mask rows is right: mask_dropped_for_one_query, single_key_returns_values."""
    softmax = STUDENT_SOFTMAX.get()
    if softmax is not None:                   # a wrong softmax is Question 3's charge (and its blame's replay)
        x = torch.tensor([[0.5, -1.0, 2.0], [1.0, float("-inf"), 0.0]])
        sm = second_call(softmax, x, dim=-1)
        if type(sm) is not torch.Tensor or sm.shape != x.shape or not torch.allclose(
                torch.nan_to_num(sm.detach().double()), torch.softmax(x.double(), dim=-1), rtol=1e-5, atol=1e-6):
            return
    B, T_k = Q.shape[0], K.shape[-2]
    q1 = Q[..., :1, :].contiguous()
    pad = torch.arange(T_k) < torch.tensor([max(1, T_k - 3 - b) for b in range(B)]).unsqueeze(-1)
    pad = pad.unsqueeze(-2)                                           # (B, 1, T_k): key j kept while j < n_b
    got = call_sdpa(fn, q1, K, V, pad)
    if not right(got, q1, K, V, pad):
        said = f"the output for a single query (T_q = 1) with a {tuple(pad.shape)} padding mask"
        name_sdpa_mask_squeezed_values(fn, q1, K, V, pad, got, said)      # round65: mask.squeeze() on (B, 1, T_k)
        softmax = STUDENT_SOFTMAX.get()
        if softmax is not None:               # round65: the softmax's result squeezed, on the (B, 1, T_k) scores
            x = _masked(q1.detach() @ K.detach().transpose(-2, -1) / math.sqrt(q1.shape[-1]), pad)
            sm = second_call(softmax, x, dim=-1)
            if type(sm) is not torch.Tensor or sm.shape != x.shape or not torch.allclose(
                    torch.nan_to_num(sm.detach().double()), ref.stable_softmax(x, dim=-1).double(), rtol=1e-5, atol=1e-6):
                return            # the notebook's softmax is wrong on these scores: Question 3's charge
        q2 = Q[..., :2, :].contiguous()
        twice = right(second_call(fn, q2, K, V, mask=pad.expand(B, 2, T_k)), q2, K, V, pad.expand(B, 2, T_k))
        if twice and type(got) is torch.Tensor:      # round65's squeeze, where the length-1 axis is the query axis
            try:
                replay = ref.scaled_dot_product_attention(q1, K, V, pad.squeeze())
            except (RuntimeError, IndexError, ValueError, TypeError):
                replay = None
            if replay is not None and replay.shape == got.shape and replay.dtype == got.dtype \
                    and matching_variants(got, {"replay": replay}, got.dtype):
                raise Misconception("mask_squeezed_loses_broadcast_axes", f"{said} is the right attention with that "
                                    f"mask squeezed to {tuple(pad.squeeze().shape)}, while two queries with the same "
                                    "mask rows are right: " + describe("mask_squeezed_loses_broadcast_axes"))
        if right(got, q1, K, V, None) and twice:
            raise Misconception("mask_dropped_for_one_query", f"{said} is the unmasked result, while two queries "
                                "with the same mask rows are masked right: " + describe("mask_dropped_for_one_query"))
        check(fn, q1, K, V, pad, said)
    k1, v1 = K[..., :1, :].contiguous(), V[..., :1, :].contiguous()
    one = torch.ones(B, Q.shape[-2], 1, dtype=torch.bool)
    one[:, 1::2] = False                                              # odd queries: their only key masked (zeros)
    got = call_sdpa(fn, Q, k1, v1, one)
    if not right(got, Q, k1, v1, one):
        k2, v2 = K[..., :2, :].contiguous(), V[..., :2, :].contiguous()
        two = torch.cat([one, torch.zeros_like(one)], dim=-1)         # key 1 blocked: the same outputs
        if type(got) is torch.Tensor and got.shape == Q.shape[:-1] + v1.shape[-1:] and not bool(got.any()):
            # every row zero, even those whose one key is open: the empty-row test off by one (sum < 2),
            # when two open keys are right and one open key of two gives zeros too
            again = second_call(fn, Q, k2, v2, mask=two)
            if (type(again) is torch.Tensor and again.shape == got.shape and not bool(again.any())
                    and right(second_call(fn, Q, k2, v2, mask=torch.ones_like(two)), Q, k2, v2, torch.ones_like(two))):
                raise Misconception("single_key_rows_zeroed", "the output for a single key (T_k = 1) is all zeros, "
                                    "also for the queries whose key is open, and so is the output with two keys of "
                                    "which one is open: " + describe("single_key_rows_zeroed"))
        if right(got, Q, k1, v1, None) and right(second_call(fn, Q, k2, v2, mask=two), Q, k2, v2, two):
            raise Misconception("single_key_returns_values", "the output for a single key (T_k = 1), masked for "
                                "every other query, is V's row for every query, while two keys with the same "
                                "mask are masked right: " + describe("single_key_returns_values"))
        check(fn, Q, k1, v1, one, "the output for a single key (T_k = 1) masked for every other query (they "
              "get zeros)")


def name_single_query_all_true(fn, T_k, what) -> None:
    """q4, round66 (blind66 q4_single_query_shortcut_returns_an_all_true_row_as_in_a_decoding_step): causal_mask(1,
    T_k) all True while a second call with two queries, causal_mask(2, T_k), is right (so the extra keys are not
    padded with True in general): a single-query branch: causal_single_query_all_visible."""
    try:
        two = fn(2, T_k)
    except StudentCodeError:
        return
    if type(two) is torch.Tensor and tuple(two.shape) == (2, T_k) and bool(((two != 0) == ref.causal_mask(2, T_k)).all()):
        raise Misconception("causal_single_query_all_visible", f"{what} is True everywhere, while causal_mask(2, "
                            f"{T_k}) is right: " + describe("causal_single_query_all_visible"))


# ---- naming round 69 (blind69) ----

def name_cosine_scores(raw, said):
    """round41 (blind40): raw_score_var equal to the variance (unbiased or not) of cosine similarities, the example's
    queries and keys each scaled to unit length over its d_k = 8 features (F.normalize(., dim=-1), x / x.norm(dim=-1,
    keepdim=True), torch.cosine_similarity) before the dot products. The caller has seen scaled = raw / 8; the value
    (0.127) is none of q2's catalogued ones, named before."""
    q, k = ref._Qb.double(), ref._Kb.double()
    s = (q / q.norm(dim=-1, keepdim=True)) @ (k / k.norm(dim=-1, keepdim=True)).transpose(-2, -1)
    if any(abs(raw - float(v)) < 1e-5 * abs(float(v)) for v in (s.var(), s.var(unbiased=False))):
        raise Misconception("scores_as_cosine_similarities", f"{said}: they are those of the cosine similarities "
                            "of the example's queries and keys (each scaled to unit length first): "
                            + describe("scores_as_cosine_similarities"))



def name_variance_sum_not_reset(raw, scaled, atol) -> None:
    """q2 (round69, blind69 q2_squared_deviation_accumulator_not_reset_before_the_scaled_scores): a hand-written
    variance whose running sum of squared deviations is not set back to 0 before the second set of scores, so the
    second answer is the first one's variance plus its own (raw + scaled = 9/8 of the raw variance, about 7.42):
    named only where the first answer is right and the second is that sum (the replay: both sums divided by n - 1);
    no other catalogued value of q2 is 9/8 (or 1/8 + 1) of the raw variance."""
    r, s = ref.raw_score_var, ref.scaled_score_var
    if abs(raw - r) < atol and abs(scaled - (r + s)) < atol:
        first, second, value = "raw", "scaled", scaled
    elif abs(scaled - s) < atol and abs(raw - (r + s)) < atol:
        first, second, value = "scaled", "raw", raw
    else:
        return
    raise Misconception("variance_sum_not_reset", f"{second}_score_var is {value:.4g} = {r:.4g} + {s:.4g}, the raw "
                        f"variance plus the scaled one, while {first}_score_var is right: the running sum of squared "
                        f"deviations still holds the {first} scores' total when the {second} scores are added to it: "
                        + describe("variance_sum_not_reset"))


# the counts a hand-written variance may read off the (2, 5, 5) scores' axes instead of their 50 entries
_MEAN_COUNTS = {2: "the batch alone (2)", 5: "one axis (5)", 10: "2 x 5 = 10, two axes (the key axis, or the "
                "query axis, left out)", 25: "5 x 5 = 25, the last two axes (the batch left out)"}


def name_mean_count_from_axes(raw, said) -> None:
    """q2 (round69, blind69 q2_entry_count_by_hand_leaves_the_key_axis_out): a variance written by hand whose count n
    is read off one or two axes and used for the mean too (sum / n, then the squared deviations from that mean over
    n - 1, or over n): replayed on the example's scores for each count. The caller has seen scaled = raw / 8 (the
    same statistic of the scaled scores) and that the squared deviations from the true mean over a count are not it."""
    s = (ref._Qb.double() @ ref._Kb.double().transpose(-2, -1)).flatten()
    for count, how in _MEAN_COUNTS.items():
        mean = s.sum() / count
        for divisor in (count - 1, count):
            value = float(((s - mean) ** 2).sum() / divisor)
            if abs(raw - value) < 1e-5 * abs(value):
                raise Misconception("variance_count_from_one_axis", f"{said}: both are a variance counted by hand as "
                                    f"{count} entries, {how}, where the scores have 2 x 5 x 5 = {s.numel()}: the mean "
                                    f"is the sum / {count} and the squared deviations from it are divided by "
                                    f"{divisor}, so the mean and the divisor are both wrong; count with t.numel(): "
                                    + describe("variance_count_from_one_axis"))


def name_softmax_rank_assert(fn, e: StudentCodeError, what: str) -> None:
    """q3/q5 (round69, blind69 q3_assert_left_from_testing_on_two_d_class_scores_rejects_other_ranks): stable_softmax
    raised an AssertionError (its own assert) on an input that is not 2-D; second calls show why: on 2-D inputs (5, 7)
    it runs and is right along both axes, and a (2, 3, 4) input raises an AssertionError again: softmax_rank_assert."""
    if fn is None or e.exc_type != "AssertionError":
        return
    x = (torch.arange(35, dtype=torch.float64).reshape(5, 7) * 0.9).sin() * 3
    cube = (torch.arange(24, dtype=torch.float64).reshape(2, 3, 4) * 0.7).cos() * 2
    try:
        outs = [(fn(x.clone(), dim=d), ref.stable_softmax(x, d)) for d in (-1, 0)]
    except StudentCodeError:
        return
    if not all(matching_variants(out, {"right": want}, x.dtype) for out, want in outs):
        return
    try:
        fn(cube.clone(), dim=-1)
    except StudentCodeError as again:
        if again.exc_type != "AssertionError":
            return
    else:
        return
    raise Misconception("softmax_rank_assert", f"your code raised AssertionError: {e.message[:120]} ({what}); on 2-D "
                        "inputs the same stable_softmax runs and is right (along either axis), and on a 3-D input "
                        "its assert fails again: " + describe("softmax_rank_assert")) from None


def trace_features_cut(which):
    """q6 (round69, blind69 q6_hand_dot_product_loop_runs_over_the_token_count_not_the_feature_count): the trace's
    answer `which` with every score summed over the first 3 of the d_k = 4 features alone (a loop over the features
    that stops one short: range(n_tokens) = range(3), or range(d_k - 1)), scaled by sqrt(4) as asked."""
    k = ref.Q3.shape[-1] - 1
    s = ref.Q3[:, :k] @ ref.K3[:, :k].T / math.sqrt(ref.Q3.shape[-1])
    if which == "weights3_causal":
        s = s.masked_fill(~ref.causal_mask(3), float("-inf"))
    w = ref.stable_softmax(s)
    return {"dot_product_features_cut_short": w @ ref.V3 if which == "out3" else w}


def _start_at_one(trees, name: str = "") -> str | None:
    """The first `x = 1` of the cells that a later `x += ...` (or `x = x + ...`) of theirs adds to, quoted; with
    `name`, only an x that is `name` itself or that `name` is assigned from (`attn_entries = count`): a `step = 1`
    counted up in a loop of its own is no counter of the answer's (red-team round 131)."""
    starts, grown, feeds = {}, set(), {name}
    for segments, tree in trees:
        for node in ast.walk(tree):
            if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                    and _number(node.value) == 1):
                starts.setdefault(node.targets[0].id, (segments.of(node) or unparse(node)).splitlines()[0][:80])
            if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add) and isinstance(node.target, ast.Name):
                grown.add(node.target.id)
            if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                    and isinstance(node.value, ast.BinOp) and isinstance(node.value.op, ast.Add)
                    and isinstance(node.value.left, ast.Name) and node.value.left.id == node.targets[0].id):
                grown.add(node.targets[0].id)
            if name and isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name
                                                             for t in node.targets):
                feeds |= {n.id for n in ast.walk(node.value) if isinstance(n, ast.Name)}
    return next((quote for x, quote in starts.items() if x in grown and (not name or x in feeds)), None)


def name_count_started_at_one(got, name, submission) -> None:
    """q8 (round69, blind69 q8_entry_counter_started_at_one_like_a_product_accumulator): attn_entries (or
    score_madds) one more than the count, from a counter its cell starts at 1 and then adds to (the source: a count
    one too many has other causes, a range(T + 1) for one); else said as the plain fact."""
    right = {"attn_entries": ref.attn_entries, "score_madds": ref.score_madds}.get(name)
    if right is None or got != right + 1:
        return
    hit = _start_at_one(_cell_trees(submission, name), name)
    if hit is None:
        raise AssertionError(f"{name} is {got:,}, one more than {right:,}: {got:,} is not {right:,}; count from 0 "
                             "(or write the product of the sizes)")
    raise Misconception("count_started_at_one", f"{name} is {got:,}, one more than {right:,}: your cell's `{hit}` "
                        "starts the counter at 1: " + describe("count_started_at_one"))


_KEPT_DEFS = 20     # defs read for a kept total: those the answer cells call, and those they call (bounded)


def _counting_defs(submission) -> list:
    """(Segments, def) of the cell-level defs that the cells storing cost_ratio or score_madds call by name, and of
    the cell-level defs those call (at most _KEPT_DEFS, the last def of a name): the functions whose count the ratio
    is. Read from the notebook's one cached parse (source_checks._parsed). Red-team round 131: any def of the
    notebook was read, so a debug counter in stable_softmax named a cost_ratio of 5 typed as a number."""
    from autograder.grading.source_checks import _parsed
    cells = tuple(cells_of(submission)) if submission is not None else ()
    trees = dict(_parsed(cells).trees) if cells else {}
    defs = {}
    for number, tree in sorted(trees.items()):
        for stmt in getattr(tree, "body", []):
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                defs[stmt.name] = (number - 1, stmt)

    def called(nodes):
        return [n.func.id for node in nodes for n in ast.walk(node)
                if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in defs]

    answers = sorted({i for name in ("cost_ratio", "score_madds") for i in cells_assigning(cells, name)})
    todo = called(trees[i + 1] for i in answers if i + 1 in trees)
    seen: list = []
    while todo and len(seen) < _KEPT_DEFS:
        name = todo.pop(0)
        if name not in seen:
            seen.append(name)
            todo += called([defs[name][1]])
    return [(_LazySegments(cells[defs[name][0]]), defs[name][1]) for name in seen]


class _LazySegments:
    """Segments(cell), made only where a line of it is quoted."""

    def __init__(self, cell):
        self.cell, self.made = cell, None

    def of(self, node):
        if self.made is None:
            self.made = Segments(self.cell)
        return self.made.of(node)


def _kept_state(defs, globals_made=frozenset()) -> str | None:
    """A def of `defs` that adds to a name it declares global, or to an item or attribute of a name it never binds
    (no parameter, assignment of any kind, import or nested def of its own: a `counts: dict = {}` or a `with ... as
    box` is the call's) that a cell binds at its top level (`globals_made`): the first such line, quoted. A nonlocal
    total is bound in the def itself (the defs are cell-level), and a global the def's own body assigns (`global
    total; total = 0`) is set back on each call (red-team round 131)."""
    for segments, func in defs:
        declared = {n for node in ast.walk(func) if isinstance(node, ast.Global) for n in node.names}
        local = {n.id for n in ast.walk(func) if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))}
        local |= {a.arg for a in ast.walk(func) if isinstance(a, ast.arg)}
        local |= {n.name for n in ast.walk(func) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                       ast.ClassDef))}
        local |= {(a.asname or a.name).split(".")[0] for n in ast.walk(func) if isinstance(n, (ast.Import,
                                                                                           ast.ImportFrom))
                  for a in n.names}
        local |= {n for node in ast.walk(func) if isinstance(node, ast.Nonlocal) for n in node.names}
        local -= declared
        reset = {t.id for n in func.body if isinstance(n, (ast.Assign, ast.AnnAssign))     # `total = 0` on each call
                 for t in (n.targets if isinstance(n, ast.Assign) else [n.target]) if isinstance(t, ast.Name)}
        declared -= reset
        for node in ast.walk(func):
            if not isinstance(node, ast.AugAssign):
                continue
            target = node.target
            base = target
            while isinstance(base, (ast.Subscript, ast.Attribute)):
                base = base.value
            if not isinstance(base, ast.Name):
                continue
            if (base is target and base.id in declared) or (
                    base is not target and base.id not in local and base.id in globals_made):
                return (segments.of(node) or unparse(node)).splitlines()[0][:80]
    return None


def name_count_kept_between_calls(got, submission) -> None:
    """q8 (round69, blind69 q8_madds_counter_is_a_global_not_reset_between_calls_ratio_five): cost_ratio 5 = (c(T) +
    c(2T)) / c(T), a counting function whose total outlives the call (a global, or a module-level dict or list it
    adds to) so the count at 2T still holds the one at T: named only where the cells show such a function (the
    source: 5 has other readings); else said as the plain fact."""
    if got != ref.cost_ratio + 1:
        return
    from autograder.grading.source_checks import cells_assigning_globally
    defs = _counting_defs(submission) if submission is not None else []
    cells = cells_of(submission) if defs else []
    bases = {n.id for _segments, func in defs for t in ast.walk(func) if isinstance(t, ast.AugAssign)
             for n in ast.walk(t.target) if isinstance(n, ast.Name)}
    hit = _kept_state(defs, frozenset(b for b in bases if cells_assigning_globally(cells, b)))
    if hit is None:
        raise AssertionError(f"cost_ratio is {got}, not {ref.cost_ratio}: {got} is (1 + {ref.cost_ratio}), what a "
                             "count at 2T that still holds the count at T gives; does your count start from 0 on every "
                             "call? (T * T grows 4 times when T doubles)")
    raise Misconception("count_kept_between_calls", f"cost_ratio is {got} = (count at T + count at 2T) / count at T: "
                        f"your function's `{hit}` adds to a total that outlives the call, so the second call's count "
                        "still holds the first one's: " + describe("count_kept_between_calls"))


# ---------------------------------------------------------------------------------------------
# naming round 72 (blind72)
# ---------------------------------------------------------------------------------------------

_ONE_SHOT = frozenset({"map", "filter", "zip", "iter", "reversed", "enumerate"})


def _called(node) -> str | None:
    """The last name of a call's function (math.prod -> 'prod'), else None."""
    f = node.func if isinstance(node, ast.Call) else None
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None


def _one_shot(value) -> bool:
    """A generator expression, or a call that returns an iterator read once (map, zip, iter, itertools.*)."""
    if isinstance(value, ast.GeneratorExp):
        return True
    f = value.func if isinstance(value, ast.Call) else None
    return f is not None and (_called(value) in _ONE_SHOT or (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name)
                                                             and f.value.id == "itertools"))


def _empty_result(call, it):
    """What `call` returns on the used-up iterator named `it` (math.prod: its start or 1; sum: its start or 0;
    functools.reduce(f, it, init): init; len(list(it)): 0), or None where `call` is none of these on `it`."""
    args, kw = call.args, {k.arg: k.value for k in call.keywords}
    on_it = bool(args) and isinstance(args[0], ast.Name) and args[0].id == it
    name = _called(call)
    if name in ("prod", "sum", "fsum") and on_it:
        start = kw.get("start", args[1] if len(args) > 1 else None)
        return (1 if name == "prod" else 0) if start is None else _const_eval(start, {})
    if name == "reduce" and len(args) == 3 and isinstance(args[1], ast.Name) and args[1].id == it:
        return _const_eval(args[2], {})
    if (name == "len" and len(args) == 1 and _called(args[0]) in ("list", "tuple") and len(args[0].args) == 1
            and isinstance(args[0].args[0], ast.Name) and args[0].args[0].id == it):
        return 0
    return None


def _foldable(stmts):
    """Indexes of the top-level `x = expr` / `a, b = x, y` / `x op= expr` statements _fold_in_order reads."""
    return [i for i, s in enumerate(stmts) if (isinstance(s, ast.AugAssign) and isinstance(s.target, ast.Name)) or (
        isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], (ast.Name, ast.Tuple)))]


def name_iterator_read_twice(got, name, submission) -> None:
    """q8 (round72, blind72 q8_generator_of_sizes_consumed_by_the_first_prod): `name`'s cell binds a one-shot
    iterator (a generator expression, map, zip, iter...) at the top level, reads it in a statement before `name`'s
    own, and `name = ...` reduces it again (math.prod, sum, reduce, len(list(...))): the replay, that assignment
    folded with the reduction given its empty-iterable value (1 for a product, 0 for a sum), is `got` and not the
    right count: iterator_read_twice. The cell is parsed (bounded), never run."""
    right = {"attn_entries": ref.attn_entries, "score_madds": ref.score_madds}.get(name)
    if right is None or type(got) is not int or got == right:
        return
    for _segments, tree in _cell_trees(submission, name):
        stmts = list(getattr(tree, "body", []))
        answers = [i for i, s in enumerate(stmts) if isinstance(s, ast.Assign) and len(s.targets) == 1
                   and isinstance(s.targets[0], ast.Name) and s.targets[0].id == name]
        if not answers:
            continue
        a = answers[-1]
        iters = {s.targets[0].id: i for i, s in enumerate(stmts[:a]) if isinstance(s, ast.Assign)
                 and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name) and _one_shot(s.value)}
        # one pass over the cell: the last statement before the answer that reads each name, and the answer's calls
        # (red-team round 134: each iterator walked every later statement, 4,000 `g = iter(())` lines, a 67 KB cell,
        # spent q8's 30 s of CPU and failed the test on that, where the same answer alone is said in 3 s)
        last_read: dict[str, int] = {}
        for j, st in enumerate(stmts[:a]):
            for n in ast.walk(st):
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
                    last_read[n.id] = j
        answer_calls = [c for c in ast.walk(stmts[a].value) if isinstance(c, ast.Call)]
        said = {n.id for c in answer_calls for n in c.args[:2] if isinstance(n, ast.Name)}
        tried = [(it, i) for it, i in iters.items() if last_read.get(it, -1) > i and it in said][:8]
        for it, i in tried:
            calls = [c for c in answer_calls if _empty_result(c, it) is not None]
            if len(calls) != 1:
                continue
            empty = _empty_result(calls[0], it)
            try:      # a copy of the answer: nested past the stack (`prod(it) + 0 + ... + 0`) is no evidence (rt134)
                value = _replace(stmts[a].value, calls[0], ast.Constant(empty))
            except RecursionError:
                continue
            env = _fold_in_order(stmts, [j for j in _foldable(stmts) if j < a])
            if _const_eval(value, env) != got:
                continue
            raise Misconception("iterator_read_twice", f"{name} is {got:,}: `{it}` is a one-shot iterator "
                                f"(`{unparse(stmts[i]).splitlines()[0][:60]}`) that an earlier line of your cell "
                                f"already read, so `{unparse(calls[0])[:60]}` gets nothing and gives {empty}: "
                                + describe("iterator_read_twice"))


def _mul_function(node) -> bool:
    """operator.mul, mul, int.__mul__, or a two-argument lambda whose body multiplies them."""
    if isinstance(node, ast.Lambda):
        return isinstance(node.body, ast.BinOp) and isinstance(node.body.op, ast.Mult) and len(node.args.args) == 2
    return _called(ast.Call(func=node, args=[], keywords=[])) in ("mul", "__mul__")


def _zero_started_product(stmts, reads) -> str | None:
    """The source of the first product the statements storing one of `reads` start at 0: reduce(mul, xs, 0),
    math.prod(xs, start=0), or x = 0 then x *= ... on a name in `reads`."""
    zeros = {s.targets[0].id for s in stmts if isinstance(s, ast.Assign) and len(s.targets) == 1
             and isinstance(s.targets[0], ast.Name) and _const_eval(s.value, {}) == 0}
    for s in stmts:
        for n in ast.walk(s):
            if isinstance(n, ast.AugAssign) and isinstance(n.op, ast.Mult) and isinstance(n.target, ast.Name) \
                    and n.target.id in zeros and n.target.id in reads:
                return f"{n.target.id} = 0 ... {unparse(n).splitlines()[0][:50]}"
            if not isinstance(s, ast.Assign) or not any(isinstance(t, ast.Name) and t.id in reads for t in s.targets):
                continue
            if isinstance(n, ast.Call) and _called(n) == "reduce" and len(n.args) == 3 and _mul_function(n.args[0]) \
                    and _const_eval(n.args[2], {}) == 0:
                return unparse(n)[:70]
            start = {k.arg: k.value for k in getattr(n, "keywords", [])}.get("start")
            if isinstance(n, ast.Call) and _called(n) == "prod" and start is not None and _const_eval(start, {}) == 0:
                return unparse(n)[:70]
    return None


def name_product_started_at_zero(got, name, submission) -> None:
    """q8 (round72, blind72 q8_score_madds_from_reduce_with_start_value_zero): a count of 0 from a product its cell
    starts at 0 (reduce(operator.mul, sizes, 0), math.prod(..., start=0), or total = 0 then total *= n), in the
    statements storing `name` or a name its assignment reads: product_started_at_zero. A 0 without such a line in
    the cell is left to the plain fact."""
    if got != 0 or name not in ("attn_entries", "score_madds"):
        return
    for _segments, tree in _cell_trees(submission, name):
        stmts = list(getattr(tree, "body", []))
        sets = [s.value for s in stmts if isinstance(s, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id == name for t in s.targets)]
        reads = {name} | {n.id for v in sets for n in ast.walk(v) if isinstance(n, ast.Name)}
        hit = _zero_started_product(stmts, reads)
        if hit is not None:
            raise Misconception("product_started_at_zero", f"{name} is 0: your cell's `{hit}` starts the product at "
                                "0: " + describe("product_started_at_zero"))


def name_count_iterable_slips(got, name, submission) -> None:
    """q8 (round72): a count from an iterator read twice, or a product started at 0 (both by the cell's source)."""
    name_iterator_read_twice(got, name, submission)
    name_product_started_at_zero(got, name, submission)


def name_out3_rows_zipped(got, weights3, atol) -> None:
    """q6 (round72, blind72 q6_out3_zips_weight_rows_with_value_rows_not_columns): out3[q][r] = sum(w * v for w, v
    in zip(weights3[q], V3[r])), each weight row paired with a ROW of V3 (zip stopping at the shorter, m = min(T_k,
    d_v)): the replay weights[:, :m] @ V3[:, :m].T, from the reference's weights3 or the student's own, is `got`
    (shape (T_q, T_k), which no right out3 has when d_v != T_k): output_rows_zipped_with_value_rows."""
    V = ref.V3.double()
    if tuple(got.shape) != (ref.weights3.shape[0], V.shape[0]) or V.shape[0] == V.shape[1]:
        return
    for w in (ref.weights3, weights3):
        try:
            w = torch.as_tensor(w, dtype=torch.float64)
        except (TypeError, ValueError, RuntimeError):
            continue
        if w.dim() != 2 or w.shape[0] != got.shape[0]:
            continue
        m = min(w.shape[1], V.shape[1])
        replay = w[:, :m] @ V[:, :m].T
        if replay.shape == got.shape and torch.allclose(got, replay, rtol=0, atol=atol):
            raise Misconception("output_rows_zipped_with_value_rows", f"out3 has shape {tuple(got.shape)} and entry "
                                f"[q][r] is the sum over the first {m} pairs of zip(weights3[q], V3[r]), a weight row "
                                "with a value ROW: " + describe("output_rows_zipped_with_value_rows"))


_LENGTH_NAME = re.compile(r"(?i)^(t|l|n|len|seq|tok|num_tok)(_|$|[a-z]*$)")
_WIDTH_NAME = re.compile(r"(?i)^(d|dim|width|feat|emb|hid)(_|$|[a-z]*$)")


def name_shape_unpacked_width_first(got, what, inputs, submission) -> None:
    """q1 (round72, blind72 q1_star_unpacking_names_the_last_two_axes_width_then_length): a cell of `what` unpacks a
    shape as `*batch, d, T = ...` (the second-to-last name reads as a width: d, dim, width...; the last as a length:
    T, L, n, seq...), and `what = (..., T, ...)` puts that last name where a length goes, where `got` holds a feature
    width (an input's last size) and the right shape a length: shape_unpacked_width_first. The names are the
    evidence (the value alone is K^T V's (B, d_k, d_v) too); the cell is parsed, never run."""
    got, expected = tuple(got), tuple(getattr(ref, what, ()))
    widths = {tuple(s)[-1] for s in inputs.values()}
    if len(got) != len(expected) or got == expected or submission is None:
        return
    for _segments, tree in _cell_trees(submission, what):
        stmts = [s for s in getattr(tree, "body", []) if isinstance(s, ast.Assign) and len(s.targets) == 1]
        swapped = {}
        for s in stmts:
            t = s.targets[0]
            # a shape read (a name, q_shape[1:], x.shape, a call), not a literal pair: `d_k, T = 64, 64` unpacks no
            # shape, its T is a number written (red-team round 134: it was told "your cell unpacks `d_k, T = (64,
            # 64)`, so `T` ... holds the last axis", where the same two lines apart said weights_sized_by_features)
            if isinstance(t, ast.Tuple) and len(t.elts) >= 2 and all(isinstance(e, ast.Name) for e in t.elts[-2:]) \
                    and not isinstance(s.value, (ast.Tuple, ast.List, ast.Constant)):
                w, n = t.elts[-2].id, t.elts[-1].id
                if _WIDTH_NAME.match(w) and _LENGTH_NAME.match(n) and not _LENGTH_NAME.match(w):
                    swapped[n] = unparse(s).splitlines()[0][:60]
        answer = [s.value for s in stmts if isinstance(s.targets[0], ast.Name) and s.targets[0].id == what]
        if not swapped or not answer or not isinstance(answer[-1], ast.Tuple):
            continue
        elts = answer[-1].elts
        for k in range(1, min(len(elts), len(got)) + 1):
            e = elts[-k]
            if isinstance(e, ast.Starred):
                break
            if isinstance(e, ast.Name) and e.id in swapped and got[-k] in widths and got[-k] != expected[-k] \
                    and expected[-k] not in widths:
                raise Misconception("shape_unpacked_width_first", f"{what} is {got}: your cell unpacks "
                                    f"`{swapped[e.id]}`, so `{e.id}`, used for a length, holds the last axis, "
                                    f"{got[-k]} (a feature width), not the {expected[-k]} tokens: "
                                    + describe("shape_unpacked_width_first"))


def column_major_mask(T_q, T_k):
    """The right (T_q, T_k) mask's entries listed keys-outer (its transpose flattened), reshaped row-major to
    (T_q, T_k): what [j <= i for j, i in product(range(T_k), range(T_q))] reshaped to (T_q, T_k) gives."""
    return ref.causal_mask(T_q, T_k).T.reshape(T_q, T_k)


def _column_major_call(fn, T_q, T_k) -> bool:
    """fn(T_q, T_k) is column_major_mask(T_q, T_k) (any 0/1 dtype); a crash is False."""
    try:
        out = fn(T_q, T_k)
    except Exception:  # noqa: BLE001 - a crash shows nothing here
        return False
    return (isinstance(out, torch.Tensor) and tuple(out.shape) == (T_q, T_k)
            and bool(((out != 0) == column_major_mask(T_q, T_k)).all()))


def name_mask_filled_column_major(fn, t, T_q, T_k, what) -> None:
    """q4 (round72, blind72 q4_product_over_keys_then_queries_fills_the_grid_transposed): the mask is the right
    entries listed keys-outer and reshaped row-major (column_major_mask). A rectangular answer equal to it (no
    catalogued mask is) is named; a square one is the upper triangle (upper_triangular_mask's own replay), so it is
    named only where two second calls, causal_mask(T + 2, T) and causal_mask(T, T + 2), are that refill too:
    mask_grid_filled_column_major. Else nothing (a square upper triangle stays upper_triangular_mask)."""
    T_k = T_q if T_k is None else T_k
    if tuple(t.shape) != (T_q, T_k) or not bool(((t != 0) == column_major_mask(T_q, T_k)).all()):
        return
    if T_q == T_k and not (_column_major_call(fn, T_q + 2, T_q) and _column_major_call(fn, T_q, T_q + 2)):
        return
    if T_q != T_k and (bool((column_major_mask(T_q, T_k) == ref.causal_mask(T_q, T_k)).all()) or any(
            bool((column_major_mask(T_q, T_k) == w).all()) for w in ref.causal_mask_variants(T_q, T_k).values())):
        return
    how = ("the upper triangle here, and causal_mask(T + 2, T) and causal_mask(T, T + 2) are the same refill"
           if T_q == T_k else "the right entries taken key by key and laid out query by query")
    raise Misconception("mask_grid_filled_column_major", f"{what} is wrong: it is {how}: "
                        + describe("mask_grid_filled_column_major"))


def check_one_head(fn, rng, softmax=None) -> None:
    """q5 (round72, blind73 q5_heads_axis_added_to_3d_inputs_then_squeeze_1_on_every_output): 4-D inputs with ONE
    head, (B, 1, T_q, d), which "any number of leading dimensions" promises (a leading axis of length 1 is one of
    them). An output that is the right one with that heads axis dropped, (B, T_q, d_v), where a 3-D call with one
    query keeps its length-1 axis, is output_heads_axis_squeezed (the test's own 4-D call with several heads ran
    right before this one); any other
    failure is judged as every output is (d_k = 16, the test's other calls' width: a slip they pass, this passes)."""
    Q, K, V = qkv(rng, (2, 1, 5, 16), (2, 1, 6, 16), (2, 1, 6, 16), torch.float32)     # the test's own widths
    mask = random_mask((2, 1, 5, 6), rng)
    what = f"the output for 4-D inputs with one head, Q {tuple(Q.shape)}, K {tuple(K.shape)}, V {tuple(V.shape)}"
    got = call_sdpa(fn, Q, K, V, mask)
    expected = ref.scaled_dot_product_attention(Q, K, V, mask)
    squeezed = (type(got) is torch.Tensor and tuple(got.shape) == tuple(expected.shape[:1] + expected.shape[2:])
                and right(got.unsqueeze(1), Q, K, V, mask))
    if squeezed and _single_query_kept(fn, Q, K, V):
        raise Misconception("output_heads_axis_squeezed", f"{what} has shape {tuple(got.shape)}, expected "
                            f"{tuple(expected.shape)}: the right values with the heads axis (length 1) dropped: "
                            + describe("output_heads_axis_squeezed"))
    if not squeezed and not right(got, Q, K, V, mask):     # every length-1 axis squeezed: judge's size_one_axis_dropped
        _name_one_head_only(fn, softmax, Q, K, V, mask, got, what)
    try:
        judge(fn, Q, K, V, mask, got, what)
    except AssertionError as failure:
        raise smallest(failure, fn, Q, K, V, mask, Failure.value(expected, got)) from None


def name_softmax_dim_sign_assert(fn, e: StudentCodeError, what: str) -> None:
    """q3/q5 (round72, blind73 q3_assert_that_dim_is_negative_rejects_positive_axes): stable_softmax raised an
    AssertionError (its own assert); second calls show why: on a (5, 7) input it is right with dim=-1 and dim=-2,
    and dim=0, the same axis as dim=-2, raises an AssertionError again: softmax_dim_sign_assert."""
    if fn is None or e.exc_type != "AssertionError":
        return
    x = (torch.arange(35, dtype=torch.float64).reshape(5, 7) * 0.9).sin() * 3
    try:
        outs = [(fn(x.clone(), dim=d), ref.stable_softmax(x, d)) for d in (-1, -2)]
    except StudentCodeError:
        return
    if not all(matching_variants(out, {"right": want}, x.dtype) for out, want in outs):
        return
    try:
        fn(x.clone(), dim=0)
    except StudentCodeError as again:
        if again.exc_type != "AssertionError":
            return
    else:
        return
    raise Misconception("softmax_dim_sign_assert", f"your code raised AssertionError: {e.message[:120]} ({what}); "
                        "on a (5, 7) input the same stable_softmax is right with dim=-1 and dim=-2, and dim=0, the "
                        "same axis as dim=-2, fails its assert again: " + describe("softmax_dim_sign_assert")) from None


def name_causal_assert_more_keys(fn, T_q, T_k, e) -> None:
    """q4 (round72, blind73 q4_assert_that_there_are_at_least_as_many_keys_as_queries): causal_mask(T_q, T_k) with
    T_k < T_q raised an AssertionError (the student's own assert), while second calls with as many or more keys than
    queries are right and causal_mask(T_k + 2, T_k) raises an AssertionError again: causal_mask_assert_more_keys."""
    if T_k is None or T_k >= T_q or e.exc_type != "AssertionError":
        return
    if not (_mask_right(fn, T_q, T_q) and _mask_right(fn, T_q, T_q + 3) and _mask_right(fn, T_k, T_k + 2)):
        return
    try:
        fn(T_k + 2, T_k)
    except Exception as again:  # noqa: BLE001 - only its type is read
        if type(again).__name__ != "AssertionError" and getattr(again, "exc_type", None) != "AssertionError":
            return
    else:
        return
    raise Misconception("causal_mask_assert_more_keys", f"causal_mask({T_q}, {T_k}) raised AssertionError "
                        f"({e.message[:100]}), with fewer keys than queries, while it is right with as many or more "
                        f"keys, and causal_mask({T_k + 2}, {T_k}) fails the same way: "
                        + describe("causal_mask_assert_more_keys"))


def name_softmax_leading_axis_squeezed(fn, x, what, got) -> None:
    """q3 (round72, blind73 q3_one_d_input_unsqueezed_and_the_result_squeezed_at_zero_unconditionally): a result that
    dropped x's LEADING length-1 axis (softmax_result_squeezed's evidence holds), where a second call whose length-1
    axis is not the first, (2, 1, n), keeps its shape and is right: only axis 0 is squeezed (a .squeeze(0) undoing an
    unsqueeze for 1-D inputs), not every length-1 axis: softmax_leading_axis_squeezed."""
    if type(x) is not torch.Tensor or x.dim() < 2 or x.shape[0] != 1:
        return
    inner = torch.stack([x[0] * 0.5, x[0]]).unsqueeze(1)      # (2, 1, n): its length-1 axis is axis 1
    other = second_call(fn, inner, dim=-1)
    if (type(other) is not torch.Tensor or tuple(other.shape) != tuple(inner.shape)
            or not torch.allclose(other.double(), ref.stable_softmax(inner, dim=-1).double(), rtol=1e-6, atol=1e-9)):
        return
    raise Misconception("softmax_leading_axis_squeezed", f"{what} has shape {tuple(got.shape)}, expected "
                        f"{tuple(x.shape)}: the right values with the leading length-1 axis dropped, while "
                        f"{tuple(inner.shape)}, whose length-1 axis is not the first, keeps its shape and is right: "
                        + describe("softmax_leading_axis_squeezed"))


def _single_query_kept(fn, Q, K, V) -> bool:
    """A second call on 3-D inputs with ONE query, (B, 1, d), is right with its length-1 axis kept: the output's
    squeeze is of the heads axis only (a bare .squeeze() drops this one too: size_one_axis_dropped, judge's word)."""
    q, k, v = Q[:, 0, :1], K[:, 0], V[:, 0]
    return right(second_call(fn, q, k, v, mask=None), q, k, v, None)


def _name_one_head_only(fn, softmax, Q, K, V, mask, got, what) -> None:
    """check_one_head's wrong output, where the same inputs with the head repeated (2 heads) are right: the length-1
    heads axis is what breaks it. The notebook's stable_softmax (`softmax`, when the test has it) returning the
    (B, 1, T_q, T_k) scores' softmax with that axis dropped is softmax_result_squeezed, said for the attention; else
    said as the plain fact (judge would read the broadcast output as another mistake)."""
    two = [t.expand(t.shape[0], 2, *t.shape[2:]).contiguous() for t in (Q, K, V, mask)]
    if not right(second_call(fn, *two[:3], mask=two[3]), *two):
        return
    scores = (Q @ K.transpose(-2, -1)).masked_fill(~mask, float("-inf"))
    out = second_call(softmax, scores.clone(), dim=-1) if softmax is not None else None
    want = ref.stable_softmax(scores, dim=-1)
    if (type(out) is torch.Tensor and out.dim() < scores.dim() and out.numel() == scores.numel()
            and torch.allclose(torch.nan_to_num(out.reshape(want.shape).double()), torch.nan_to_num(want.double()),
                               rtol=1e-5, atol=1e-6)):
        raise Misconception("softmax_result_squeezed", f"{what} is wrong (shape {tuple(getattr(got, 'shape', ()))}), "
                            "while the same inputs with two heads are right: the stable_softmax it calls returns the "
                            f"softmax of the {tuple(scores.shape)} scores with shape {tuple(out.shape)}, the length-1 "
                            "heads axis dropped: " + describe("softmax_result_squeezed"))
    raise AssertionError(f"{what} is wrong (shape {tuple(getattr(got, 'shape', ()))}), while the same inputs with the "
                         "head repeated (2 heads) are right: the length-1 heads axis is lost or broadcast somewhere "
                         "(a .squeeze(), or an axis picked by its length); 4-D inputs may have a single head")


# ---------------------------------------------------------------------------------------------
# naming round 74 (blind74: NumPy habits; blind75: slips of the hand)
# ---------------------------------------------------------------------------------------------

def _loop_cut_short(t, expected):
    """"row" (or "column") where the 2-D mask `t` is right in its first row (column) alone and every later one holds
    one same value, the fill it started from, which is not the right mask there; None where not."""
    if type(t) is not torch.Tensor or t.dim() != 2 or tuple(t.shape) != tuple(expected.shape) or min(t.shape) < 2:
        return None
    t = t != 0
    for axis, word in ((0, "row"), (1, "column")):
        rest, want = (m.narrow(axis, 1, m.shape[axis] - 1) for m in (t, expected))
        if (bool((t.select(axis, 0) == expected.select(axis, 0)).all()) and (bool(rest.all()) or not bool(rest.any()))
                and not bool((rest == want).all())):
            return word
    return None


def name_mask_loop_returned_early(t, expected, what, submission) -> None:
    """round74 (blind75 q4_return_indented_into_the_row_loop): Question 4's mask right in its first row (or column)
    alone, every later one still the fill it started from, and causal_mask ends with a loop whose body ends with
    `return` (source_checks.return_inside_loop): it returned after one pass: helper_return_in_loop."""
    word = _loop_cut_short(t, expected)
    found = return_inside_loop(cells_of(submission), "causal_mask") if word and submission is not None else None
    if found is None:
        return
    fn, line = found
    raise Misconception("helper_return_in_loop", f"{what} is right in its first {word} alone, every later {word} still "
                        f"all {bool((t != 0).flatten()[-1])}, what one pass of the loop gives: `{line}` in `{fn}` is "
                        f"indented into its for loop, so `{fn}` returns after the first {word}: "
                        + describe("helper_return_in_loop"))


def name_trace_mask_loop_returned(got, mask_fn, submission) -> None:
    """round74: Question 6's weights3_causal wrong (NaN in the rows the mask leaves empty) because causal_mask(3) is
    cut short by a `return` in its loop (name_mask_loop_returned_early's evidence), and the softmax of scores3 filled
    with -inf through that mask is the answer (NaN where it is NaN): helper_return_in_loop, fixed in Question 4."""
    if mask_fn is None or submission is None or type(got) is not torch.Tensor or tuple(got.shape) != (3, 3):
        return
    try:
        m = mask_fn(3)
    except Exception:  # noqa: BLE001 - a crash here proves nothing
        return
    word = _loop_cut_short(m, ref.causal_mask(3))
    found = return_inside_loop(cells_of(submission), "causal_mask") if word else None
    if found is None:
        return
    replay = ref.stable_softmax((ref.Q3 @ ref.K3.T / 2.0).masked_fill(~(m != 0), float("-inf")), dim=-1)
    g = got.detach().double()
    if not (torch.equal(torch.isnan(g), torch.isnan(replay))
            and torch.allclose(torch.nan_to_num(g), torch.nan_to_num(replay), rtol=0, atol=1e-4)):
        return
    fn, line = found
    raise Misconception("helper_return_in_loop", f"weights3_causal is wrong because causal_mask(3) is right in its "
                        f"first {word} alone: `{line}` in `{fn}` is indented into its for loop, so `{fn}` returns "
                        f"after the first {word}; fix causal_mask (Question 4) and this cell follows: "
                        + describe("helper_return_in_loop"))


# float64 logits whose largest entry is last (position 3) or first: exp(711.5) overflows float64, exp(711.5 - 3) does not
# (then in position 2: exp(711.5 - 2) fits, so the max's position is right there too, where a shift by the LAST logit,
# 0 there, overflows: red-team round 136's `x.narrow(dim, -1, 1)` was named max_index_taken_for_value)
_INDEX_SHIFT_PROBES = (torch.tensor([[0.0, 0.0, 0.0, 711.5]], dtype=torch.float64),
                       torch.tensor([[711.5, 0.0, 0.0, 0.0]], dtype=torch.float64),
                       torch.tensor([[0.0, 0.0, 711.5, 0.0]], dtype=torch.float64))


def name_shift_by_max_index(softmax_of, what) -> None:
    """round74 (blind74 q3_shift_taken_from_the_index_half_of_the_max_pair, blind75 q3_shift_by_max_indices_typed_for_
    values): where no max is subtracted (the float16 evidence), a float64 probe with its largest logit, 711.5, in
    position 3 is right and the same logits with it in position 0 overflow: the shift is the max's position (3, then
    0), not its value: torch.max(x, dim)[1] / .indices: max_index_taken_for_value. `softmax_of(x)`: the student's
    weights for a (1, n) row of logits (stable_softmax itself, or the attention with d_k = 1 and V = I)."""
    try:
        last, first, third = (softmax_of(x.clone()) for x in _INDEX_SHIFT_PROBES)
    except Exception:  # noqa: BLE001 - a crash here proves nothing
        return
    if not all(type(o) is torch.Tensor and tuple(o.shape) == (1, 4) for o in (last, first, third)):
        return
    if (all(bool(torch.isfinite(o).all()) and torch.allclose(o.detach().double(), ref.stable_softmax(x, dim=-1),
                                                              rtol=0, atol=1e-9)
            for o, x in ((last, _INDEX_SHIFT_PROBES[0]), (third, _INDEX_SHIFT_PROBES[2])))
            and not bool(torch.isfinite(first).all())):
        raise Misconception("max_index_taken_for_value", f"{what}, and a float64 probe with logits 0, 0, 0, 711.5 is "
                            "right while the same logits in the order 711.5, 0, 0, 0 overflow: what is subtracted is "
                            "WHERE the maximum is (3, then 0), not the maximum: "
                            + describe("max_index_taken_for_value"))


def attention_softmax_of(fn):
    """The attention `fn` as a softmax of a (1, n) row of logits: d_k = 1, the keys are the logits, V = I."""
    return lambda x: fn(torch.ones(1, 1, dtype=x.dtype), x.T, torch.eye(x.shape[-1], dtype=x.dtype), mask=None)


def _argmax_flag_replay(Q, K, V, mask):
    """round74: the attention whose 'row has a visible key' flag is read from the index half of the mask's max over
    the keys (mask.max(-1)[1] > 0: the first True's position): every row whose first visible key is key 0, and every
    empty row, zeroed. None without a mask, or where that flag is the right one (no row starts with key 0)."""
    if mask is None:
        return None
    m = mask.to(torch.bool)
    flag = m.to(torch.float64).argmax(dim=-1, keepdim=True) > 0
    if bool((flag == m.any(dim=-1, keepdim=True)).all()):
        return None
    w = ref.stable_softmax(_masked(_scores(Q, K, math.sqrt(Q.shape[-1])), m), dim=-1)
    return _out(torch.where(flag, w, torch.zeros_like(w)), V, Q)


# rows whose first visible key is key 1, key 0 and key 2: the flag replay keeps rows 0 and 2 and zeroes row 1
_FLAG_PROBE_MASK = torch.tensor([[[False, True, True, False], [True, True, False, False], [False, False, True, True]]])


def _flag_replay_confirmed(fn) -> bool:
    """Where the test's mask leaves the flag replay all zeros (a causal or padding mask: every row's first visible key
    is key 0), any output zeroed after the softmax matches it (red-team round 136: `w = w.masked_fill(mask, 0.0)`
    was told max_index_taken_for_value): a second call with a mask whose rows start at keys 1, 0 and 2 must match
    the replay there too, rows 0 and 2 kept."""
    g = torch.Generator().manual_seed(136)
    Q, K, V = (torch.randn(shape, generator=g, dtype=torch.float64) for shape in ((1, 3, 2), (1, 4, 2), (1, 4, 3)))
    again = second_call(fn, Q, K, V, mask=_FLAG_PROBE_MASK.clone())
    want = _argmax_flag_replay(Q, K, V, _FLAG_PROBE_MASK)
    return (want is not None and type(again) is torch.Tensor and again.shape == want.shape
            and bool(matching_variants(again, {"max_index_taken_for_value": want}, torch.float64)))


def _slice_numel_replays(Q, K, V, mask):
    """round74: d_k taken as the element count of Q[0, 0] (Q[i] for every axis but the last two): a (T_q, d_k) matrix,
    so the scores divided by sqrt(T_q * d_k); {} where no leading axis."""
    if Q.dim() < 3:
        return {}
    return {"d_k_from_slice_numel": _divided(lambda Q, K, V: math.sqrt(Q.shape[-2] * Q.shape[-1]))(Q, K, V, mask)}


def name_round74_output(fn, Q, K, V, mask, got, what) -> None:
    """round74, a q5 output no key named (or named scale_by_batch_dim, whose divisor the slice's count can equal:
    B x H = T_q): the replays of d_k = Q[0, 0].numel(), confirmed by a second call where the slice is one query
    vector (the leading axes folded into one: right) and one where B x H != T_q (the replay again), and of a
    has-a-visible-key flag read from max(-1)[1]."""
    if type(got) is not torch.Tensor or got.dtype not in (torch.float16, torch.bfloat16, torch.float32, torch.float64):
        return
    replay = _argmax_flag_replay(Q, K, V, mask)
    if (replay is not None and replay.shape == got.shape and not right(got, Q, K, V, mask)
            and (matching_variants(got, {"max_index_taken_for_value": replay}, got.dtype)
                 or (got.dtype == torch.float16 and bool(torch.isfinite(got).all()) and near(got, replay)))
            and (bool(replay.any()) or _flag_replay_confirmed(fn))):
        raise Misconception("max_index_taken_for_value", f"{what} is wrong: it matches zeroing every query whose "
                            "FIRST visible key is key 0 (and the empty ones), what a 'has a visible key' test read "
                            "from mask.max(-1)[1] gives: [1] is the position of the first True, 0 for those rows: "
                            + describe("max_index_taken_for_value"))
    replays = {k: v for k, v in _slice_numel_replays(Q, K, V, mask).items() if v is not None and v.shape == got.shape}
    if not replays or not matching_variants(got, replays, got.dtype):
        return
    folded = _fold_to_3d(Q, K, V, mask) if Q.dim() > 3 else _first_slice(Q, K, V, mask)
    if folded is None or not right(second_call(fn, *folded[:3], mask=folded[3]), *folded):
        return
    g = torch.Generator().manual_seed(74)
    probe = [torch.randn(shape, generator=g, dtype=torch.float64) for shape in ((1, 2, 5, 3), (1, 2, 7, 3), (1, 2, 7, 4))]
    if Q.dim() == 3:
        probe = [t[0] for t in probe]
    again = second_call(fn, *probe, mask=None)
    want = _slice_numel_replays(*probe, None)["d_k_from_slice_numel"]
    if type(again) is not torch.Tensor or again.shape != want.shape \
            or not matching_variants(again, {"d_k_from_slice_numel": want}, torch.float64):
        return
    shape = tuple(Q.shape)
    raise Misconception("d_k_from_slice_numel", f"{what} is wrong: it matches dividing the scores by sqrt(T_q * d_k) = "
                        f"sqrt({shape[-2]} * {shape[-1]}), the element count of Q[{', '.join('0' * (Q.dim() - 2))}] (a "
                        f"({shape[-2]}, {shape[-1]}) matrix for these {Q.dim()}-D inputs), while the same values with "
                        f"the leading axes folded into one ({Q.dim() - 1}-D, where that slice is one query vector) are "
                        "right: " + describe("d_k_from_slice_numel"))


_ARITHMETIC_DEPTH = 32     # levels of a student's arithmetic read, at most (rt136: `1 + 1 + ... + 1`, 1,500 terms,
#                            recursed past the stack: RecursionError said on q8 instead of a name)


def _product_degrees(node, params, depth=0):
    """The power of each parameter in a product of parameters, numbers and whole powers (T * T * d, T ** 2 * d);
    None for anything else, or nested deeper than _ARITHMETIC_DEPTH."""
    if depth > _ARITHMETIC_DEPTH:
        return None
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return {}
    if isinstance(node, ast.Name) and node.id in params:
        return {node.id: 1}
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        a, b = _product_degrees(node.left, params, depth + 1), _product_degrees(node.right, params, depth + 1)
        return None if a is None or b is None else {k: a.get(k, 0) + b.get(k, 0) for k in a.keys() | b.keys()}
    if (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow) and isinstance(node.right, ast.Constant)
            and type(node.right.value) is int and 0 < node.right.value <= 4):
        a = _product_degrees(node.left, params, depth + 1)
        return None if a is None else {k: v * node.right.value for k, v in a.items()}
    return None


def _whole_number(node, names):
    """A whole number written with literals and `names` (module-level NAME = number): _const_eval's reading (bounded
    in size and in depth: red-team round 136's 1,500-term sum), None for anything else or a float."""
    value = _const_eval(node, names)
    return value if type(value) is int else None


def name_helper_args_swapped(submission) -> None:
    """round74 (blind75 q8_madds_helper_called_with_t_and_d_k_swapped_for_the_ratio): cost_ratio = f(a, 2b) / f(a, b)
    (or //) where the notebook's own `def f` returns a product that is quadratic in another parameter and linear in
    the one the doubled length goes to: the arguments are in the wrong order (the length passed as the width):
    helper_args_swapped. Read with ast (the one cached parse), never run."""
    cells = cells_of(submission) if submission is not None else []
    for index in cells_assigning(cells, "cost_ratio"):
        try:
            tree = parse(cells[index])
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        names = {t.id: v for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)
                 if (v := _whole_number(n.value, {})) is not None}
        defs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
        for node in tree.body:
            if not (isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "cost_ratio" for t in node.targets)):
                continue
            value = node.value
            while isinstance(value, ast.Call) and getattr(value.func, "id", "") in ("int", "float", "round") and value.args:
                value = value.args[0]
            if not (isinstance(value, ast.BinOp) and isinstance(value.op, (ast.Div, ast.FloorDiv))):
                continue
            top, bottom = value.left, value.right
            if not (isinstance(top, ast.Call) and isinstance(bottom, ast.Call) and isinstance(top.func, ast.Name)
                    and isinstance(bottom.func, ast.Name) and top.func.id == bottom.func.id and top.func.id in defs
                    and not top.keywords and not bottom.keywords and len(top.args) == len(bottom.args) >= 2):
                continue
            helper = defs[top.func.id]
            params = [a.arg for a in helper.args.args]
            body = helper.body[-1] if helper.body else None
            degrees = _product_degrees(body.value, set(params)) if isinstance(body, ast.Return) and body.value else None
            nums = [(_whole_number(a, names), _whole_number(b, names)) for a, b in zip(top.args, bottom.args)]
            if degrees is None or len(params) != len(nums) or any(a is None or b is None for a, b in nums):
                continue
            doubled = [i for i, (a, b) in enumerate(nums) if a != b]
            if len(doubled) != 1 or nums[doubled[0]][0] != 2 * nums[doubled[0]][1]:
                continue
            p = doubled[0]
            square = [i for i, name in enumerate(params) if degrees.get(name, 0) == 2]
            if degrees.get(params[p], 0) != 1 or len(square) != 1:
                continue
            q = square[0]
            fixed = [[unparse(a)[:40] for a in call.args] for call in (top, bottom)]   # quotes bounded (rt136)
            for args in fixed:
                args[p], args[q] = args[q], args[p]
            f = helper.name
            raise Misconception("helper_args_swapped", f"cost_ratio is 2, from `{unparse(value)[:80]}`: the doubled "
                                f"length goes in as {f}'s `{params[p]}`, which `{unparse(body)[:60]}` uses once, and "
                                f"{unparse(top.args[q])[:40]} as its `{params[q]}`, the one it squares: the arguments are "
                                f"in the wrong order for def {f}({', '.join(params)}); call "
                                f"{f}({', '.join(fixed[0])}) {'//' if isinstance(value.op, ast.FloorDiv) else '/'} "
                                f"{f}({', '.join(fixed[1])}): " + describe("helper_args_swapped"))


_TRIANGLE_CALLS = ("tril", "triu")


def _triangle_threshold_past_one(submission):
    """round74 (blind75 q4_tril_of_ones_compared_greater_than_one_not_zero): the comparison in causal_mask that turns
    a 0/1 triangle of ones (a tril/triu call, of torch.ones or a float/int mask) into booleans with a threshold no
    entry passes (> 1, >= 2, == 2 or more), as written; None where none. Student text: parsed, never run."""
    import itertools

    def triangle_of_ones(expr) -> bool:
        names = {getattr(c.func, "attr", None) or getattr(c.func, "id", "")
                 for c in itertools.islice(ast.walk(expr), 4000) if isinstance(c, ast.Call)}
        return bool(names & set(_TRIANGLE_CALLS)) and bool(names & {"ones", "ones_like"})

    for node in _last_defs(submission, "causal_mask"):
        # one bounded walk: each name's last assignment, and each name's answer once (red-team round 136: the def
        # walked again for every `a > 1`, 800 of them beside a 40 KB list literal, 48 s of the grader's CPU)
        nodes = list(itertools.islice(ast.walk(node), 4000))
        made = {a.targets[0].id: a.value for a in nodes if isinstance(a, ast.Assign) and len(a.targets) == 1
                and isinstance(a.targets[0], ast.Name)}
        answered: dict = {}
        for n in nodes:
            if not (isinstance(n, ast.Compare) and len(n.ops) == 1 and isinstance(n.comparators[0], ast.Constant)
                    and type(n.comparators[0].value) in (int, float)):
                continue
            bound, op = n.comparators[0].value, n.ops[0]
            past = ((isinstance(op, ast.Gt) and bound >= 1) or (isinstance(op, ast.GtE) and bound > 1)
                    or (isinstance(op, ast.Eq) and bound not in (0, 1)))
            if not past:
                continue
            left = n.left
            if isinstance(left, ast.Name):      # a name the def assigned the triangle to (its last assignment)
                if left.id not in answered:
                    answered[left.id] = triangle_of_ones(made.get(left.id, left))
                found = answered[left.id]
            else:
                found = triangle_of_ones(left)
            if found:
                return unparse(n)[:80]      # bounded: a compare nested past the stack is no crash (rt136)
    return None


def name_triangle_threshold(submission, said) -> None:
    """causal_mask False everywhere (name_mask_all_false's probes) and its source compares a triangle of ones with a
    threshold its 0 and 1 never pass: triangle_compared_past_one."""
    line = _triangle_threshold_past_one(submission) if submission is not None else None
    if line is not None:
        raise Misconception("triangle_compared_past_one", f"{said}: `{line}` compares a triangle of ones, whose entries "
                            "are only 0 and 1, with a threshold neither passes: " + describe("triangle_compared_past_one"))


# --- naming round 76 (blind76: framework-style code, blind77: a mathematician's habits) -----------------------------

# a layer as the cell names it, whole words (red-team round 139: "dense attention", a common phrase, in a comment
# that counts the +1 for the scale was told madds_layer_bias_counted; so was "unbiased")
_LAYER_WORDS = re.compile(r"linear\(|\bbias(?:es)?\b|\.parameters\(|\bdense\s*(?:layer|projection|\()")
# symmetric, not asymmetric / non-symmetric (red-team round 139: "asymmetric" read as "symmetric")
_SYMMETRIC_WORDS = re.compile(r"(?<![a-z-])symmetr")
_CAUSAL_WORDS = ("causal", "mask", "tril", "triu", "future", "autoregress", "j <= i", "past")


def _answer_text(submission, name: str) -> str:
    """The lower-cased text (first 20,000 characters of each) of the cells that assign `name`; '' where none.
    Student text: read, never run."""
    cells = cells_of(submission) if submission is not None else []
    return "\n".join(cells[i][:20000] for i in cells_assigning(cells, name)).lower()


def name_layer_or_symmetric_count(got, name, submission, T, d_k) -> None:
    """q8, naming round 76. blind76 q8_score_madds_counted_as_nn_linear_parameters_times_tokens_bias_included:
    score_madds = T^2 (d_k + 1), a Linear(d_k, T)'s weights and bias times T queries, with a layer (a Linear(...)
    call, a bias, .parameters(), a dense layer) in its cell's text: madds_layer_bias_counted (without those words the number is said in
    numbers, as before). blind77 q8_attn_entries_counted_as_the_independent_entries_of_a_symmetric_matrix: a count of
    T (T + 1) / 2 (times d_k for score_madds) whose cell calls the matrix symmetric and says nothing of a mask or
    causality: count_halved_symmetric, the belief, not causal_triangle_count."""
    if name == "score_madds" and got == T * T * (d_k + 1):
        text = _answer_text(submission, name)
        if _LAYER_WORDS.search(text):
            raise Misconception("madds_layer_bias_counted", f"score_madds is {got:,} = T x (T x d_k + T) = {T} x "
                                f"({T} x {d_k} + {T}): a layer's weights and its bias per query, as your cell counts "
                                "a linear layer's parameters: " + describe("madds_layer_bias_counted"))
    triangle = T * (T + 1) // 2 * (d_k if name == "score_madds" else 1)
    if name in ("attn_entries", "score_madds") and got == triangle:
        text = _answer_text(submission, name)
        if _SYMMETRIC_WORDS.search(text) and not any(w in text for w in _CAUSAL_WORDS):
            raise Misconception("count_halved_symmetric", f"{name} is {got:,}, T (T + 1) / 2"
                                + (" x d_k" if name == "score_madds" else "") + ", the independent entries of a "
                                "symmetric T x T matrix, as your cell calls it; Q K^T is not symmetric (q_i . k_j "
                                "is not q_j . k_i), so all T x T = " + f"{T * T:,} entries are there: "
                                + describe("count_halved_symmetric"))


def _mask_ratio_compared(submission) -> str | None:
    """The first comparison (<, <=, >, >=) in causal_mask's def with a true division (a / b) on one side, as written
    (cut to 80 characters), other than the test of an if, while, assert or conditional
    expression; None where none. One bounded walk of the def. Student text: parsed, never run."""
    import itertools
    for node in _last_defs(submission, "causal_mask") if submission is not None else []:
        nodes = list(itertools.islice(ast.walk(node), 4000))
        # a comparison that steers Python (an if, while, assert or conditional expression's test) is a check of
        # the sizes, not the mask's entries (red-team round 139: `if T_k / T_q > 100: raise ...` beside a numbered
        # grid cast to bool was told mask_ratio_divides_by_zero)
        guards = {id(n.test) for n in nodes if isinstance(n, (ast.If, ast.While, ast.Assert, ast.IfExp))}
        for n in nodes:
            if not (isinstance(n, ast.Compare) and len(n.ops) == 1
                    and isinstance(n.ops[0], (ast.Lt, ast.LtE, ast.Gt, ast.GtE))):
                continue
            if id(n) in guards:
                continue
            sides = (n.left, n.comparators[0])
            if any(isinstance(b, ast.BinOp) and isinstance(b.op, ast.Div) for side in sides
                   for b in itertools.islice(ast.walk(side), 200)):
                return unparse(n)[:80]
    return None


def own_std_confirmed(fn, Q, K, V, mask, got) -> bool:
    """Naming round 76 (blind77 q5_scale_uses_d_k_minus_one_degrees_of_freedom): in half precision a constant scale
    near sqrt(d_k) (sqrt(d_k - 1)) matches S / S.std() too, since random scores' spread is about sqrt(d_k). Dividing
    by the scores' own spread does not change when Q is multiplied by 3, a constant scale does: a second call in
    float64 with 3 Q that matches none of the own-spread forms withdraws scores_divided_by_own_std (the failure is
    then said plainly, and a one-line fix found by the engine). Float32 and float64 outputs keep the key unchecked;
    a second call that crashes or gives no tensor of the right shape withdraws nothing."""
    if type(got) is not torch.Tensor or got.dtype not in (torch.float16, torch.bfloat16):
        return True
    Q2, K2, V2 = (t.detach().double() for t in (Q, K, V))
    Q2 = 3.0 * Q2
    try:
        again = fn(Q2, K2, V2, mask)
    except Exception:  # noqa: BLE001 - a crash here proves nothing
        return True
    if type(again) is not torch.Tensor or again.dtype != torch.float64 or again.shape != Q2.shape[:-1] + V2.shape[-1:]:
        return True
    forms = {k: f(Q2, K2, V2, mask) for k, f in VARIANT_FUNCTIONS.items() if k.startswith("scores_divided_by_own_std/")}
    forms = {k: v for k, v in forms.items() if isinstance(v, torch.Tensor) and v.shape == again.shape}
    return bool(matching_variants(again.detach(), forms, torch.float64))


def _init_local_shadowing(tree) -> str | None:
    """`name = ...` in a class's __init__ where `name` is one of __init__'s parameters and the class body binds
    `name` too and reads `self.name`, with no `self.name = ...` in __init__: the value goes to a local, the class
    attribute stays (and is what the instance reads). The
    assignment as written (cut to 60 characters); None where none. Bounded walks."""
    import itertools
    for cls in itertools.islice(ast.walk(tree), 20000):
        if not isinstance(cls, ast.ClassDef):
            continue
        attrs = {t.id for n in cls.body if isinstance(n, (ast.Assign, ast.AnnAssign))
                 for t in (n.targets if isinstance(n, ast.Assign) else [n.target]) if isinstance(t, ast.Name)}
        for init in cls.body:
            if not (isinstance(init, ast.FunctionDef) and init.name == "__init__"):
                continue
            params = {a.arg for a in init.args.args[1:] + init.args.kwonlyargs}
            # the class attribute is read through an instance (self.x) outside __init__'s stores (red-team round 139:
            # `name = name.strip()` in an unrelated class, `self.name` never read, beside a hard-coded sqrt(8) was
            # told init_assigns_local)
            read = {a.attr for a in itertools.islice(ast.walk(cls), 20000) if isinstance(a, ast.Attribute)
                    and isinstance(a.ctx, ast.Load) and isinstance(a.value, ast.Name) and a.value.id == "self"}
            nodes = list(itertools.islice(ast.walk(init), 4000))
            on_self = {t.attr for n in nodes if isinstance(n, (ast.Assign, ast.AnnAssign))
                       for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
                       if isinstance(t, ast.Attribute)}
            for n in nodes:
                if (isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)
                        and n.targets[0].id in params & attrs & read and n.targets[0].id not in on_self):
                    return unparse(n)[:60]
    return None


def name_init_assigns_local(got, submission) -> None:
    """q2, naming round 76 (blind76 q2_config_init_assigns_a_local_so_the_class_default_d_k_of_8_stays):
    scale_divisor = sqrt(8), the example's d_k, where a cell that assigns scale_divisor defines a class whose
    __init__ assigns one of its parameters to a bare name the class body also binds (`d_k = d_k`, not
    `self.d_k = d_k`): every instance reads the class attribute: init_assigns_local. Student text: parsed, never run."""
    if submission is None or abs(got - 8 ** 0.5) >= 1e-6:
        return
    for _source, tree in answer_cell_trees(submission, "scale_divisor"):
        line = _init_local_shadowing(tree)
        if line is not None:
            raise Misconception("init_assigns_local", f"scale_divisor is {got:.4g} = sqrt(8), the example's d_k: "
                                f"your __init__'s `{line}` binds a local, so every instance reads the class "
                                "attribute: " + describe("init_assigns_local"))


def _linear_weight_last_axis(trees, answer: str) -> str | None:
    """Naming round 76 (blind76 q1_value_width_read_off_nn_linear_weight_as_if_stored_in_by_out): in the value
    assigned to `answer`, a read of a `.weight`'s last axis (x.weight.shape[-1] or [1], x.weight.size(-1) or (1)),
    as written (cut to 60 characters); None where none. Bounded walks. Student text: parsed, never run."""
    import itertools

    def last_axis(node) -> bool:
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "shape":
            base, index = node.value.value, node.slice
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "size"
              and len(node.args) == 1):
            base, index = node.func.value, node.args[0]
        else:
            return False
        return isinstance(base, ast.Attribute) and base.attr == "weight" and _number(index) in (-1.0, 1.0)

    for _seg, tree in trees:
        for n in itertools.islice(ast.walk(tree), 20000):
            if isinstance(n, ast.Assign) and answer in _stored_names(n):
                for m in itertools.islice(ast.walk(n.value), 2000):
                    if last_axis(m):
                        return unparse(m)[:60]
    return None


def _dim_kept_between_calls(node: ast.FunctionDef) -> str | None:
    """A store in the def that outlives the call (a `global`/`nonlocal` name, or an entry or attribute of a name that
    is neither a parameter nor a local) whose value reads the def's `dim` parameter (its second, whatever its name):
    the first call's dim, kept, and read back in the def outside a store. The store as written (cut to 60
    characters); None where none. Bounded walk."""
    import itertools
    args = node.args.args + node.args.kwonlyargs
    dims = {a.arg for a in args if a.arg in ("dim", "axis")} | ({args[1].arg} if len(args) > 1 else set())
    params = {a.arg for a in args}
    nodes = list(itertools.islice(ast.walk(node), 4000))
    outer = {name for n in nodes if isinstance(n, (ast.Global, ast.Nonlocal)) for name in n.names}
    local = {t.id for n in nodes if isinstance(n, ast.Assign) for t in n.targets
             if isinstance(t, ast.Name) and t.id not in outer}

    def kept(target) -> bool:
        if isinstance(target, ast.Name):
            return target.id in outer
        return isinstance(target, (ast.Subscript, ast.Attribute)) and isinstance(target.value, ast.Name) \
            and target.value.id not in local and target.value.id not in params

    stored = {id(x) for n in nodes if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign))
              for t in (n.targets if isinstance(n, ast.Assign) else [n.target]) for x in ast.walk(t)}

    # what the def reads outside a store, worked out once (names; (name, attribute) pairs)
    read_names = {x.id for x in nodes if isinstance(x, ast.Name) and id(x) not in stored}
    read_attrs = {(x.value.id, x.attr) for x in nodes if isinstance(x, ast.Attribute) and isinstance(x.value, ast.Name)
                  and id(x) not in stored}

    def read_back(target) -> bool:
        # the kept value is read somewhere in the def outside a store (red-team round 139: `_log['dim'] = dim`,
        # never read, beside a softmax along -1 was told softmax_built_once)
        base = target.value if isinstance(target, (ast.Subscript, ast.Attribute)) else target
        if not isinstance(base, ast.Name):
            return False
        return (base.id, target.attr) in read_attrs if isinstance(target, ast.Attribute) else base.id in read_names

    for n in nodes:
        if isinstance(n, ast.Assign) and any(kept(t) and read_back(t) for t in n.targets) and any(
                isinstance(v, ast.Name) and v.id in dims for v in itertools.islice(ast.walk(n.value), 400)):
            return unparse(n)[:60]
    return None


def name_softmax_dim_kept(submission, what) -> None:
    """q3, naming round 76 (blind76 q3_softmax_module_cached_at_module_level_keeps_the_first_calls_dim): a softmax
    that ignores its dim (the replay has matched) whose def stores something built from dim where it outlives the
    call (a global, a module-level cache or attribute): softmax_built_once. Student text: parsed, never run."""
    for node in _last_defs(submission, "stable_softmax") if submission is not None else []:
        line = _dim_kept_between_calls(node)
        if line is not None:
            raise Misconception("softmax_built_once", f"{what} is wrong: it is the softmax along the dim of an "
                                f"earlier call, and your `{line}` keeps what the first call built from its dim: "
                                + describe("softmax_built_once"))


def _index_minus_one(node) -> int:
    """x[N - 1] or x.size(N - 1), N a whole number written as such (1 to 63): a 1-based axis number turned into an
    index. N where it is, 0 otherwise."""
    if isinstance(node, ast.Subscript):
        index = node.slice
    elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("size", "dim")
          and len(node.args) == 1):
        index = node.args[0]
    else:
        return False
    if (isinstance(index, ast.BinOp) and isinstance(index.op, ast.Sub) and isinstance(index.left, ast.Constant)
            and type(index.left.value) is int and isinstance(index.right, ast.Constant) and index.right.value == 1
            and 0 < index.left.value < 64):
        return index.left.value
    return 0


def name_shape_reads(got, right, what, submission) -> None:
    """q1's readings of a wrong shape from its cell's text: list_aliased_not_copied (round55, name_list_aliased),
    then (naming round 76, blind77 q1_d_v_read_off_with_the_formulas_one_based_axis_number) a shape written as a
    tuple literal, wrong in one entry alone, whose entry there is x[N - 1] (or x.size(N - 1)) with N that entry's
    own axis: an axis number from the formula, counted from 1, made an index: axis_counted_from_one. Student text: parsed, never run."""
    name_list_aliased(got, right, what, submission)
    got, right = tuple(got), tuple(right)
    wrong = [i for i, (a, b) in enumerate(zip(got, right)) if a != b]
    if submission is None or len(got) != len(right) or len(wrong) != 1:
        return
    for _source, tree in answer_cell_trees(submission, what):
        for n in tree.body[:400]:
            if not (isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == what for t in n.targets)
                    and isinstance(n.value, (ast.Tuple, ast.List)) and len(n.value.elts) == len(got)):
                continue
            entry = n.value.elts[wrong[0]]
            # N is the entry's own axis (red-team round 139: `V.shape[3 - 1]`, the 3rd axis counted from 1 and
            # turned into index 2, right, of a V built 64 wide, was told axis_counted_from_one; `[2 - 1]` at the
            # shape's axis 2 is the formula's 0-based number made one less)
            if _index_minus_one(entry) == wrong[0] > 0:
                raise Misconception("axis_counted_from_one", f"{what} is {got}: its entry `{unparse(entry)[:60]}` "
                                    f"is {got[wrong[0]]}, where it should be {right[wrong[0]]}: "
                                    + describe("axis_counted_from_one"))


_BIAS_ELSEWHERE = frozenset({
    "load_state_dict", "parameters", "named_parameters", "state_dict", "register_parameter", "setattr", "delattr",
    "get_parameter", "dropout", "Dropout", "dropout_", "alpha_dropout", "bernoulli", "bernoulli_", "rand", "randn",
    "rand_like", "randn_like", "randint", "multinomial", "normal", "normal_", "uniform_", "random_"})


def _linear_left_with_bias(tree) -> str | None:
    """A Linear(...) call that keeps its default bias (source_checks.linear_bias_kept) in the cell's `tree`, where the
    cell never touches a `.bias` (zeros_, .zero_(), .fill_, = ...),
    nor sets parameters another way or draws anything else at random (_BIAS_ELSEWHERE): the layer keeps its default,
    randomly initialised bias. The call as written (cut to 60 characters); None where none. Bounded walk."""
    import itertools
    nodes = list(itertools.islice(ast.walk(tree), 20000))
    if any(isinstance(n, ast.Attribute) and n.attr == "bias" for n in nodes):
        return None
    # red-team round 139: a bias set another way (load_state_dict, parameters(), register_parameter, setattr), or
    # another source of randomness in the cell (dropout, a draw), is no evidence the default bias differs per call:
    # `nn.Linear(d, d)` loaded with zeros beside an F.dropout was told linear_default_bias, dropout's fix lost
    if any((getattr(n, "attr", None) if isinstance(n, ast.Attribute) else getattr(n, "id", None)) in _BIAS_ELSEWHERE
           for n in nodes if isinstance(n, (ast.Attribute, ast.Name))):
        return None
    from autograder.grading.source_checks import linear_bias_kept
    for n in nodes:
        if linear_bias_kept(n):
            return unparse(n)[:60]
    return None


_EMPTY_ROW_STEPS = frozenset({
    "where", "masked_fill", "masked_fill_", "nan_to_num", "nan_to_num_", "isnan", "isfinite", "isinf", "zeros_like",
    "zeros", "zero_", "fill_", "any", "all", "clamp", "clamp_", "clamp_min", "index_fill", "index_fill_"})


def _training_gate(tree) -> str | None:
    """An `if` (or conditional expression) whose test reads `.training` (self.training, module.training), in a cell
    that never calls .eval() or .train(...), whose branches hold a step that can clear a row (_EMPTY_ROW_STEPS, or a
    store into an entry): the branch depends on a mode the module is never switched out of. The test as written
    (cut to 60 characters); None where none. Bounded walk."""
    import itertools
    nodes = list(itertools.islice(ast.walk(tree), 20000))
    if any(isinstance(n, ast.Call) and getattr(n.func, "attr", None) in ("eval", "train") for n in nodes):
        return None
    def empty_row_step(n) -> bool:
        # the gated branches hold a step that can clear the NaN rows (red-team round 139: `if self.training: w =
        # F.dropout(w, p=0.0)` beside no handling of empty rows at all was told training_mode_gate)
        branches = (n.body + n.orelse) if isinstance(n, ast.If) else [n.body, n.orelse]
        return any(isinstance(x, ast.Call) and (getattr(x.func, "attr", None) or getattr(x.func, "id", None))
                   in _EMPTY_ROW_STEPS or isinstance(x, ast.Subscript) and isinstance(x.ctx, ast.Store)
                   for b in branches for x in itertools.islice(ast.walk(b), 400))

    for n in nodes:
        if isinstance(n, (ast.If, ast.IfExp)) and any(
                isinstance(a, ast.Attribute) and a.attr == "training" for a in itertools.islice(ast.walk(n.test), 200)) \
                and empty_row_step(n):
            return unparse(n.test)[:60]
    return None


def _position_ranges(fn_def) -> list[tuple[int, str, set[str]]]:
    """naming round 80: each arange(...) / range(...) call in a def as (its start: 0 or 1, its text, the names its
    stop reads); a call with another start, a step, or a start that is not a literal 0 or 1 is left out."""
    found = []
    nodes = list(itertools.islice(ast.walk(fn_def), 20000))
    parent = {id(c): p for p in nodes for c in ast.iter_child_nodes(p)}
    for n in nodes:
        if not (isinstance(n, ast.Call) and (getattr(n.func, "attr", None) == "arange"
                                             or getattr(n.func, "id", None) in ("range", "arange"))):
            continue
        # red-team round 141: `torch.arange(T_k)[None, :] + 1` numbers from 1 too: a range shifted by arithmetic
        # (through indexing and view methods) has no start to read
        cur = n
        for _ in range(50):
            up = parent.get(id(cur))
            if isinstance(up, (ast.Subscript, ast.Attribute)) and up.value is cur or (
                    isinstance(up, ast.Call) and isinstance(up.func, ast.Attribute) and up.func.value is cur):
                cur = up
                continue
            break
        if isinstance(parent.get(id(cur)), ast.BinOp):
            continue
        if len(n.args) == 1 and not n.keywords:
            start, stop = 0, n.args[0]
        elif (len(n.args) == 2 and not n.keywords and isinstance(n.args[0], ast.Constant)
              and n.args[0].value in (0, 1) and type(n.args[0].value) is int):
            start, stop = n.args[0].value, n.args[1]
        else:
            continue
        found.append((start, ast.unparse(n)[:40], {r.id for r in ast.walk(stop) if isinstance(r, ast.Name)}))
    return found


def name_positions_from_one(key, what, submission) -> None:
    """q4, naming round 80 (blind80 q4_query_numbers_from_one_like_matlab_key_numbers_from_zero): after the mask
    matched causal_includes_next (or causal_excludes_self) by its values, the cause where causal_mask's def shows
    it (parsed, never run): the positions of one axis numbered from 1 (arange(1, n + 1) whose stop reads that
    axis's parameter: the first for the queries, the second for the keys) and the other's from 0 (arange(n),
    arange(0, n), reading the other parameter), the side from 1 being the one the matched shift needs: queries
    from 1 give j <= i + 1 (includes_next), keys from 1 give j < i (excludes_self)."""
    if key not in ("causal_includes_next", "causal_excludes_self") or submission is None:
        return
    for _source, tree in answer_cell_trees(submission, "causal_mask"):
        for fn_def in (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "causal_mask"):
            params = [a.arg for a in fn_def.args.args][:2]
            if len(params) < 2:
                continue
            ones_side = params[0] if key == "causal_includes_next" else params[1]
            zero_side = params[1] if ones_side == params[0] else params[0]
            ranges = _position_ranges(fn_def)
            one = [r for start, r, names in ranges if start == 1 and ones_side in names and zero_side not in names]
            zero = [r for start, r, names in ranges if start == 0 and zero_side in names and ones_side not in names]
            if one and zero and not any(start == 1 and zero_side in names for start, _r, names in ranges):
                side = "query" if ones_side == params[0] else "key"
                other = "key" if side == "query" else "query"
                raise Misconception("positions_from_one_on_one_side", f"{what} is wrong: the {side} positions are "
                                    f"numbered from 1 (`{one[0]}`) while the {other} positions start at 0 "
                                    f"(`{zero[0]}`): " + describe("positions_from_one_on_one_side"))


def _is_transposed(node, name) -> bool:
    """`name.transpose(...)`, `.permute(...)`, `.swapaxes(...)`, `.mT` or `.T`, or torch.transpose(name, ...)."""
    if isinstance(node, ast.Attribute) and node.attr in ("mT", "T"):
        return isinstance(node.value, ast.Name) and node.value.id == name
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("transpose", "permute", "swapaxes", "swapdims")):
        return False
    base = node.func.value
    if isinstance(base, ast.Name) and base.id == name:
        return True
    return bool(node.args) and isinstance(node.args[0], ast.Name) and node.args[0].id == name


def _keys_by_queries_product(fn_def) -> str | None:
    """naming round 80: in an attention def, `K @ Q.transpose(...)` (or torch.matmul / bmm(K, Q^T)) with K and Q its
    second and first parameters: the scores laid out keys by queries. Its text, or None."""
    params = [a.arg for a in fn_def.args.args][:2]
    if len(params) < 2:
        return None
    q, k = params
    nodes = list(itertools.islice(ast.walk(fn_def), 20000))
    parent = {id(c): p for p in nodes for c in ast.iter_child_nodes(p)}
    # the names the def transposes anywhere (`st.mT`, st.transpose(..), torch.transpose(st, ..)), read once
    swapped = {b.id for m in nodes for b in (
        [m.value] if isinstance(m, ast.Attribute) and m.attr in ("mT", "T") else
        [m.func.value] + m.args[:1] if isinstance(m, ast.Call) and isinstance(m.func, ast.Attribute)
        and m.func.attr in ("transpose", "permute", "swapaxes", "swapdims") else []) if isinstance(b, ast.Name)}
    for n in nodes:
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.MatMult):
            left, right_ = n.left, n.right
        elif (isinstance(n, ast.Call) and getattr(n.func, "attr", getattr(n.func, "id", None)) in ("matmul", "bmm")
              and len(n.args) == 2):
            left, right_ = n.args
        else:
            continue
        if isinstance(left, ast.Name) and left.id == k and _is_transposed(right_, q) \
                and not _transposed_back(n, parent, swapped):
            return ast.unparse(n)[:60]
    return None


def _transposed_back(product, parent, swapped) -> bool:
    """red-team round 141: the keys-by-queries product swapped back to queries by keys before anything else reads
    it: `(K @ Q.mT).mT / s`, or `st = K @ Q.mT` (through scaling arithmetic) with `st.mT` / st.transpose(...) in the
    def. Then the layout is the usual one and a softmax over the wrong axis is that axis's mistake."""
    cur = product
    for _ in range(200):
        up = parent.get(id(cur))
        if isinstance(up, ast.BinOp):
            cur = up
            continue
        if (isinstance(up, ast.Attribute) and up.attr in ("mT", "T") and up.value is cur) or (
                isinstance(up, ast.Attribute) and up.attr in ("transpose", "permute", "swapaxes", "swapdims")
                and up.value is cur) or (
                isinstance(up, ast.Call) and getattr(up.func, "attr", None) in ("transpose", "swapaxes", "swapdims")
                and up.args and up.args[0] is cur):
            return True
        break
    up = parent.get(id(cur))
    if isinstance(up, (ast.Assign, ast.AnnAssign)) and up.value is cur:
        names = {t.id for t in (up.targets if isinstance(up, ast.Assign) else [up.target]) if isinstance(t, ast.Name)}
        return bool(names & swapped)
    return False


def name_keys_by_queries_scores(named, submission) -> None:
    """q5, naming round 80 (blind80 q5_scores_kept_keys_by_queries_softmax_still_on_the_last_axis): after the output
    matched softmax_wrong_dim (the softmax over the queries) by its replay, the cause where the attention's def
    shows it (parsed, never run): the scores computed keys by queries (K @ Q^T), so the softmax on their last axis
    runs over the queries whatever dim the code writes."""
    if submission is None or named.key.split("/")[0] != "softmax_wrong_dim":
        return
    said, _nl, shown = str(named).partition("\n")
    for _source, tree in answer_cell_trees(submission, "scaled_dot_product_attention"):
        for fn_def in (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)
                       and n.name == "scaled_dot_product_attention"):
            line = _keys_by_queries_product(fn_def)
            if line is not None:
                raise Misconception("scores_keys_by_queries", f"{said.split(': it matches')[0]}: your `{line}`: "
                                    + describe("scores_keys_by_queries")
                                    + ("\n" + shown if shown else "")) from None


def _write_into_new_copy(tree) -> str | None:
    """naming round 80 (blind80 q5_jax_at_set_rewritten_as_an_update_on_a_discarded_clone): an assignment (plain or
    augmented) whose target indexes the result of a .clone() or .copy() call, or of torch.clone(...), made on that
    very line (`w.clone()[rows] = 0`): the write lands in a temporary no name keeps. .detach() and .contiguous()
    share or may return the same memory, so they are not such a copy. Its text, or None."""
    # red-team round 141: only in the attention's own def, and only a zeroing (`= 0`, `*= 0`): a clone written
    # with something else, or in a helper beside it, is not the missing zeroing of the empty rows
    defs = [d for d in itertools.islice(ast.walk(tree), 20000)
            if isinstance(d, ast.FunctionDef) and d.name == "scaled_dot_product_attention"]
    for n in (n for d in defs for n in itertools.islice(ast.walk(d), 20000)):
        targets = n.targets if isinstance(n, ast.Assign) else [n.target] if isinstance(n, ast.AugAssign) else []
        zero = isinstance(n, (ast.Assign, ast.AugAssign)) and isinstance(n.value, ast.Constant) \
            and type(n.value.value) in (int, float) and n.value.value == 0 \
            and (isinstance(n, ast.Assign) or isinstance(n.op, ast.Mult))
        for t in targets:
            if (zero and isinstance(t, ast.Subscript) and isinstance(t.value, ast.Call)
                    and isinstance(t.value.func, ast.Attribute) and t.value.func.attr in ("clone", "copy")):
                return ast.unparse(n)[:80]
    return None


def name_module_habits(named, submission) -> None:
    """q5/q6, naming round 76 (blind76's borderlines), after a failure already named by its evidence, the cause the
    attention's cell shows (parsed, never run):
    - nondeterministic (a second call differed), and the cell builds an nn.Linear with its default bias (no
      bias=False, no .bias touched): linear_default_bias (q5_identity_projections_from_nn_linear_keep_their_default_
      random_bias: eye_ on the weight leaves the random bias);
    - fully_masked_nan (empty rows NaN), and the cell gates a step on `.training` and never calls .eval()/.train():
      training_mode_gate (q5_empty_rows_zeroed_only_when_not_self_training_in_a_module_left_in_train_mode)."""
    name_keys_by_queries_scores(named, submission)      # naming round 80: K @ Q^T, softmax on its last axis
    if submission is None or named.key not in ("nondeterministic", "fully_masked_nan"):
        return
    said, _nl, shown = str(named).partition("\n")       # the smallest failing input, where one was shown, kept
    shown = "\n" + shown if shown else ""
    for _source, tree in answer_cell_trees(submission, "scaled_dot_product_attention"):
        if named.key == "nondeterministic":
            line = _linear_left_with_bias(tree)
            if line is not None:
                raise Misconception("linear_default_bias", f"{said.split(':')[0]}; your `{line}` keeps "
                                    "nn.Linear's default bias, drawn at random when the layer is built: "
                                    + describe("linear_default_bias") + shown) from None
        else:
            line = _training_gate(tree)
            if line is not None:
                raise Misconception("training_mode_gate", f"{said.split(';')[0]}; that step sits under "
                                    f"`{line}`, and the module is never taken out of training mode: "
                                    + describe("training_mode_gate") + shown) from None
            line = _write_into_new_copy(tree)      # naming round 80 (blind80): x.clone()[rows] = 0
            if line is not None:
                raise Misconception("write_into_discarded_copy", f"{said.split(';')[0]}; your `{line}` writes "
                                    "into a copy made on that line and never kept: "
                                    + describe("write_into_discarded_copy") + shown) from None


# --- naming round 86 (blind86: log-space, online and blockwise formulations; blind87: code written for training) ------

def name_weights_shape_per_query(got, right, what) -> None:
    """q1 (naming round 86, blind86 q1_weights_shape_given_as_the_per_query_logsumexp_that_flash_attention_stores):
    weights_shape (B, T_q, 1), right but for its key axis, which is 1: the shape of a reduction over the keys kept
    with keepdim=True (a row's max, sum or log-sum-exp, the per-query statistic a memory-efficient kernel stores),
    by its replay: right[:2] + (1,), which is no other shape of this question (T_k = 10 > 1)."""
    got, right = tuple(got), tuple(right)
    if what != "weights_shape" or len(right) != 3 or right[2] == 1 or got != right[:2] + (1,):
        return
    raise Misconception("weights_shape_per_query_statistic", f"weights_shape is {got}, one number per query, the "
                        f"shape a reduction over the keys with keepdim=True gives, where the weights are {right}: "
                        + describe("weights_shape_per_query_statistic"))


_MODEL_WIDTH_NAME = re.compile(r"model|embed|hidden|d_out|n_embd|residual", re.IGNORECASE)
_PROJECTION_WORDS = re.compile(r"\bout_proj\b|\bo_proj\b|\bW_?[oO]\b|\bc_proj\b|output projection", re.IGNORECASE)


def name_output_after_projection(got, right, submission) -> None:
    """q1 (naming round 86, blind87 q1_out_width_taken_after_the_output_projection_back_to_the_model_width): out_shape
    (B, T_q, w), right but for its width, where w is not d_v AND the cell that assigns it shows an output projection
    back to a model width (the last entry of out_shape's tuple a name such as d_model, embed_dim or hidden_size, or a
    number or other plain name, not d_k's, in a cell that speaks of out_proj, W_O or an output projection; a width
    read off a layer's weight keeps output_width_dk): output_after_projection. Here d_model = d_k = 64, so the number
    alone is also output_width_dk, which stays where the source shows no model width. Student text: parsed, never
    run."""
    got, right = tuple(got), tuple(right)
    if submission is None or len(got) != 3 or got[:2] != right[:2] or got[2] == right[2]:
        return
    try:
        for source, tree in answer_cell_trees(submission, "out_shape"):
            last = None
            for n in ast.walk(tree):
                if (isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "out_shape" for t in n.targets)
                        and isinstance(n.value, (ast.Tuple, ast.List)) and len(n.value.elts) == 3):
                    last = n.value.elts[2]
            named = isinstance(last, ast.Name) and _MODEL_WIDTH_NAME.search(last.id) is not None
            d_k_named = isinstance(last, ast.Name) and last.id.lower() in ("d_k", "dk", "d_q", "dq", "k_dim", "d_head")
            typed = isinstance(last, ast.Constant) or (isinstance(last, ast.Name) and not d_k_named)
            if named or (typed and _PROJECTION_WORDS.search(source[:20000])):
                name = last.id if named and isinstance(last, ast.Name) else ""
                shown = name if len(name) <= 40 else name[:37] + "..."   # the student's own name, cut
                width = f" (your `{shown}`)" if shown else ""
                raise Misconception("output_after_projection", f"out_shape is {got}: its width {got[2]}{width} is "
                                    f"the model width after an output projection, where attention's output is "
                                    f"{right}: " + describe("output_after_projection"))
    except (RecursionError, MemoryError, ValueError):
        return


def _assignment_values(submission, answer: str):
    """The value nodes of each assignment to `answer` in the cells that store it, with the defs of those cells by
    name. Student text: parsed (bounded), never run."""
    out: list[ast.expr] = []
    defs: dict[str, ast.AST] = {}
    for _segments, tree in _cell_trees(submission, answer):
        for n in itertools.islice(ast.walk(tree), 4000):
            if isinstance(n, ast.Assign):
                if any(isinstance(t, ast.Name) and t.id == answer for t in n.targets):
                    out.append(n.value)
                elif len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) and isinstance(n.value, ast.Lambda):
                    defs[n.targets[0].id] = n.value
            elif isinstance(n, ast.FunctionDef):
                defs[n.name] = n
    return out, defs


def _reached(value, defs):
    """`value` and the bodies of the cell's defs it calls (one level, each once)."""
    nodes = [value]
    for c in ast.walk(value):
        if isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id in defs and defs[c.func.id] not in nodes:
            nodes.append(defs[c.func.id])
    return nodes


_TRAINING_WORDS = re.compile(r"backward|training step|train step|gradient|\bgrads?\b|dQ|dK", re.IGNORECASE)


def name_madds_training_step(got, submission, T, d_k) -> None:
    """q8 (naming round 86, blind87 q8_score_madds_counted_for_a_training_step_forward_plus_backward): score_madds =
    3 T^2 d_k (the forward Q @ K^T and the two products of its backward, dQ = dS K and dK = dS^T Q) AND the
    assignment that binds it (or a def it calls) multiplies by a literal 3, or the cell speaks of the backward
    pass: madds_training_step. 3 T^2 d_k is no other count of this question. Student text: parsed, never run."""
    if got != 3 * T * T * d_k or submission is None:
        return
    try:
        values, defs = _assignment_values(submission, "score_madds")
        three = any(isinstance(b, ast.BinOp) and isinstance(b.op, ast.Mult) and 3 in (_number(b.left), _number(b.right))
                    for v in values for node in _reached(v, defs) for b in ast.walk(node))
        cells = cells_of(submission)
        words = any(_TRAINING_WORDS.search(cells[i][:20000]) for i in cells_assigning(cells, "score_madds"))
    except (RecursionError, MemoryError, ValueError, SyntaxError):
        return
    if three or words:
        raise Misconception("madds_training_step", f"score_madds is {got:,} = 3 x T^2 x d_k: "
                            + describe("madds_training_step"))


_BUDGET_NAME = re.compile(r"token|budget|batch|tpb", re.IGNORECASE)


def _budget_division(node) -> bool:
    """`budget // L` or `budget / L`: a name that reads as a token budget (or a number of at least 1024) divided by
    a length (a name, or a small product with one)."""
    if not (isinstance(node, ast.BinOp) and isinstance(node.op, (ast.FloorDiv, ast.Div))):
        return False
    left, right = node.left, node.right
    budget = ((isinstance(left, ast.Name) and _BUDGET_NAME.search(left.id) is not None)
              or (_number(left) is not None and (_number(left) or 0) >= 1024))
    length = isinstance(right, ast.Name) or (isinstance(right, ast.BinOp) and isinstance(right.op, ast.Mult)
                                             and any(isinstance(x, ast.Name) for x in (right.left, right.right)))
    return budget and length


def name_ratio_fixed_token_budget(submission) -> None:
    """q8's cost_ratio == 2 (naming round 86, blind87 q8_cost_ratio_2_at_a_fixed_token_budget_per_batch): the value
    that a batch held at a fixed token budget gives (tokens // T sequences of T^2 d_k each: T halves the batch as it
    doubles) AND the assignment of cost_ratio (or a def it calls) divides such a budget by a length:
    cost_ratio_fixed_token_budget, not cost_linear_in_T. Student text: parsed, never run."""
    if submission is None:
        return
    try:
        values, defs = _assignment_values(submission, "cost_ratio")
        hit = next((unparse(b)[:60] for v in values for node in _reached(v, defs) for b in ast.walk(node)
                    if _budget_division(b)), None)
    except (RecursionError, MemoryError, ValueError, SyntaxError):
        return
    if hit is not None:
        raise Misconception("cost_ratio_fixed_token_budget", f"cost_ratio is 2, for a batch whose size is a token "
                            f"budget over the length (your `{hit}`): " + describe("cost_ratio_fixed_token_budget"))


_ONLINE_BLOCKS = tuple(range(1, 17)) + (32, 64, 128)


def _online_sdpa(Q, K, V, mask, block, *, rescale_acc=True, compound=False, guard=True, patch_empty=True):
    """The online (FlashAttention-style) attention over key blocks of `block` keys, in float64, with one slip
    where asked: the running output not rescaled (rescale_acc=False), 1/sqrt(d_k) folded into Q inside the loop
    (compound=True), no guard for a running max of -inf (guard=False). patch_empty: queries with no visible key
    get zeros (the reference's rows), else what the loop gives them."""
    q, k, v = (t.detach().to(torch.float64) for t in (Q, K, V))
    scale = 1.0 / math.sqrt(q.shape[-1])
    T_k = k.shape[-2]
    full = None if mask is None else torch.broadcast_to(mask, _grading_checks.broadcast_shape(
        mask.shape, q.shape[:-1] + (T_k,), k.shape[:-2] + (1, T_k)))
    m = l = acc = None
    for start in range(0, T_k, block):
        if compound:
            q = q * scale
            s = q @ k[..., start:start + block, :].transpose(-2, -1)
        else:
            s = (q @ k[..., start:start + block, :].transpose(-2, -1)) * scale
        if full is not None:
            s = s.masked_fill(~full[..., start:start + block], float("-inf"))
        top = s.amax(dim=-1, keepdim=True)
        m_new = top if m is None else torch.maximum(m, top)
        shift = torch.where(torch.isneginf(m_new), torch.zeros_like(m_new), m_new) if guard else m_new
        p = torch.exp(s - shift)
        if m is None or l is None or acc is None:
            l, acc = p.sum(dim=-1, keepdim=True), p @ v[..., start:start + block, :]
        else:
            alpha = torch.exp(m - shift)
            l = alpha * l + p.sum(dim=-1, keepdim=True)
            acc = (alpha * acc if rescale_acc else acc) + p @ v[..., start:start + block, :]
        m = m_new
    if acc is None or l is None:
        return None
    out = acc / torch.where(l == 0, torch.ones_like(l), l) if guard else acc / l
    if patch_empty and full is not None:
        out = torch.where(full.any(dim=-1, keepdim=True), out, torch.zeros_like(out))
    return out


_ONLINE_SLIPS = {
    "online_output_not_rescaled": {"rescale_acc": False},
    "scale_compounds_per_block": {"compound": True},
    "online_max_unguarded": {"guard": False},
}


def _near_with_nan(got, form, expected) -> bool:
    """test_float16_large_scores's closeness (`near`) for a replay: NaN exactly where the replay has NaN, the rest
    near it, and the replay not near the right answer."""
    if form is None or form.shape != got.shape or not torch.isfinite(got).any():
        return False
    nan = torch.isnan(form)
    if not torch.equal(nan, torch.isnan(got)) or not torch.isfinite(got[~nan]).all():
        return False
    if not nan.any() and near(form, expected):
        return False
    keep = ~nan.any(dim=-1, keepdim=True).expand_as(nan)
    return bool(keep.any()) and near(got[keep], form[keep])


def _nan_rows_not_other_shift(got, Q, K, mask) -> bool:
    """Whether got's NaN rows (among the queries with a visible key) are neither those of a shift by the first key's
    score (the queries whose key 0 is masked) nor those of a shift by a middle score, the median or a k-th smallest
    (the queries with at least k of their n keys masked, k near n / 2): those shifts give NaN rows too, and a
    running max of -inf is told only where the NaN rows cannot be theirs."""
    if mask is None:
        return False
    full = torch.broadcast_to(mask, _grading_checks.broadcast_shape(mask.shape, Q.shape[:-1] + (K.shape[-2],),
                                                           K.shape[:-2] + (1, K.shape[-2])))
    nan_rows = torch.isnan(got).any(dim=-1)
    seen = full.any(dim=-1)
    if nan_rows.shape != full.shape[:-1] or not bool((nan_rows & seen).any()):
        return False
    n = full.shape[-1]
    masked = (~full).sum(dim=-1)
    others = [~full[..., 0]] + [masked >= k for k in {(n - 1) // 2 + 1, n // 2 + 1, n // 2, (n + 1) // 2}]
    return not any(bool(((nan_rows == o) | ~seen).all()) for o in others)


def name_online_blocks(Q, K, V, mask, got, expected, what, large=False) -> None:
    """q5 (naming round 86, blind86's FlashAttention-style loops over key blocks of 4): the output equals, on this
    input, an online softmax over key blocks of some size with one slip, and that replay is not the right answer:
    the running output acc not rescaled by exp(m_old - m_new) where the running sum is (online_output_not_rescaled),
    the scale folded into Q inside the loop so it compounds per block (scale_compounds_per_block), or no guard for a
    running max of -inf, so a query whose first blocks are all masked turns NaN (online_max_unguarded; the rows with
    no visible key at all taken as zeros or as the loop leaves them). Each slip is tried on every block size from 1
    to 16 and 32, 64, 128 below T_k; only one slip may match. large: test_float16_large_scores's closeness (near).
    """
    if (type(got) is not torch.Tensor or type(expected) is not torch.Tensor or got.shape != expected.shape
            or not all(type(t) is torch.Tensor for t in (Q, K, V)) or Q.dim() < 2 or K.dim() < 2):
        return
    T_k = K.shape[-2]
    hits: dict[str, int] = {}
    try:
        for key, slip in _ONLINE_SLIPS.items():
            if key == "online_max_unguarded" and not _nan_rows_not_other_shift(got, Q, K, mask):
                continue
            for block in (b for b in _ONLINE_BLOCKS if 1 < b < T_k and (not large or b in (4, 8, 16))):
                forms = {f"{key}/{patch}": _online_sdpa(Q, K, V, mask, block, patch_empty=patch, **slip)
                         for patch in ((True, False) if key == "online_max_unguarded" else (True,))}
                forms = {k: (f.to(expected.dtype) if f is not None else None) for k, f in forms.items()}
                if (any(_near_with_nan(got, f, expected) for f in forms.values()) if large
                        else matching_variants(got, forms, expected.dtype, expected=expected)):
                    hits.setdefault(key, block)
                    break
    except (RuntimeError, ValueError, TypeError):
        return
    if len(hits) != 1:
        return
    (key, block), = hits.items()
    # a NaN pattern can fit smaller blocks too (the first block that hides every key of a row): no size said there
    blocks = "blocks of keys" if key == "online_max_unguarded" else f"blocks of {block} keys"
    raise Misconception(key, f"{what} is wrong: it matches, on this input, an online softmax over {blocks} in "
                        "which " + describe(key))


def _online_softmax(x, dim, block, slip):
    """The softmax along `dim` as an online (one-pass) normaliser over blocks of `block` entries, in float64, with
    one slip: the running sum never rescaled when a later block raises the running max ("online_sum_not_rescaled":
    the max overwritten before exp(m_old - m_new) is taken gives 1), or rescaled by exp(m_new - m_old)
    ("online_sum_rescale_inverted"). A running max of -inf shifts by 0."""
    z = x.detach().to(torch.float64).movedim(dim, -1)
    m = s = None
    for start in range(0, z.shape[-1], block):
        blk = z[..., start:start + block]
        top = blk.amax(dim=-1, keepdim=True)
        m_new = top if m is None else torch.maximum(m, top)
        safe = torch.where(torch.isneginf(m_new), torch.zeros_like(m_new), m_new)
        part = torch.exp(blk - safe).sum(dim=-1, keepdim=True)
        if m is None or s is None:
            s = part
        else:
            old = torch.where(torch.isneginf(m), torch.zeros_like(m), m)
            factor = torch.ones_like(s) if slip == "online_sum_not_rescaled" else torch.exp(safe - old)
            s = s * factor + part
        m = m_new
    if m is None or s is None:
        return None
    safe = torch.where(torch.isneginf(m), torch.zeros_like(m), m)
    return (torch.exp(z - safe) / s).movedim(-1, dim)


def name_online_softmax(got, x, dim, what) -> None:
    """q3 (naming round 86, blind86 q3_online_sum_rescaled_by_exp_of_new_max_minus_old_max_the_wrong_sign and
    q3_running_max_overwritten_before_the_old_sum_is_rescaled): stable_softmax's result equals, on this input, an
    online softmax over blocks of some size (1 to 16, 32, 64, 128, below the slice's length) whose running sum is
    not rescaled when a later block raises the max (online_sum_not_rescaled), or is rescaled by the inverse factor
    exp(m_new - m_old) (online_sum_rescale_inverted), and that replay is not the right softmax; only one slip may
    match. Called before weights_not_normalised, which these slips also are (the right softmax times a factor per
    slice), so the step that makes the factor is said."""
    if (type(got) is not torch.Tensor or type(x) is not torch.Tensor or got.shape != x.shape
            or not got.dtype.is_floating_point or x.dim() == 0):
        return
    try:
        expected = ref.stable_softmax(x, dim)
        n = x.shape[dim]
        hits: dict[str, int] = {}
        for slip in ("online_sum_not_rescaled", "online_sum_rescale_inverted"):
            for block in (b for b in _ONLINE_BLOCKS if b < n):
                form = _online_softmax(x, dim, block, slip)
                if form is not None and matching_variants(got, {slip: form.to(x.dtype)}, x.dtype, expected=expected):
                    hits.setdefault(slip, block)
                    break
    except (RuntimeError, ValueError, TypeError, IndexError):
        return
    if len(hits) == 1:
        (key, block), = hits.items()
        raise Misconception(key, f"{what} is wrong: it matches, on this input, an online softmax over blocks of "
                            f"{block} entries in which " + describe(key))


def name_tiled_triangle(t, T_q, T_k, what) -> None:
    """q4 (naming round 86, blind86 q4_diagonal_tiles_triangle_copied_into_the_tiles_below_the_diagonal_too): a
    causal mask built tile by tile (tiles of 2 to 32) whose tiles at or left of the diagonal all get the tile's
    lower triangle, where only the diagonal tiles need it and the tiles wholly below it must be all True, by the
    replay (j // n <= i // n and j % n <= i % n), which differs from the right mask once T_q > n:
    tile_triangle_below_diagonal."""
    T_k = T_q if T_k is None else T_k
    if type(t) is not torch.Tensor or tuple(t.shape) != (T_q, T_k):
        return
    i, j = torch.arange(T_q)[:, None], torch.arange(T_k)[None, :]
    for n in range(2, min(33, T_q)):
        if bool((t == ((j // n <= i // n) & (j % n <= i % n))).all()):
            raise Misconception("tile_triangle_below_diagonal", f"{what} is wrong: it matches a mask built in "
                                f"{n} x {n} tiles in which " + describe("tile_triangle_below_diagonal"))


# naming round 88 (blind88: defensive, validating code; blind89: selection, indexing and sparse formulations)

_PAD_WORDS = re.compile(r"pad|ceil|bit_length|round(?:ed|ing|s)? up|multiple of|-\s*\(\s*-", re.IGNORECASE)


def _padded_lengths(n: int) -> set[int]:
    """`n` rounded up to a multiple of 8, 16, 32, 64 or 128, or to a power of two (the next one, or the one after a
    power of two that n already is: 1 << n.bit_length()), each only where it is not n itself."""
    out = {-(-n // m) * m for m in (8, 16, 32, 64, 128)} | {1 << (n - 1).bit_length(), 1 << n.bit_length()}
    return {p for p in out if p != n}


def name_lengths_padded(got, expected, what, inputs, submission) -> None:
    """q1 (naming round 88, blind88 q1_lengths_padded_up_to_a_multiple_of_eight_for_the_kernels): a shape equal to
    the right one with a sequence length (T_q or T_k, 10) replaced by a padded one (_padded_lengths: 16 for a
    multiple of 8 or a power of two), every other axis right, AND a cell that stores the answer speaks of padding
    or rounds up (pad, ceil, bit_length, -(-n // m)): shape_lengths_padded. Student text: read, never run."""
    lengths = {inputs["Q"][-2], inputs["K"][-2]}
    if len(got) != len(expected) or submission is None:
        return
    off = [i for i in range(len(got)) if got[i] != expected[i]]
    if not off or not all(expected[i] in lengths and isinstance(got[i], int) and got[i] in _padded_lengths(expected[i])
                          for i in off):
        return
    try:
        cells = cells_of(submission)
        said = any(_PAD_WORDS.search(cells[i][:20000]) for i in cells_assigning(cells, what))
    except (RecursionError, MemoryError, ValueError, SyntaxError):
        return
    if said:
        raise Misconception("shape_lengths_padded", f"{what} is {tuple(got)}: the right shape {tuple(expected)} with "
                            f"the length {expected[off[0]]} padded to {got[off[0]]}: " + describe("shape_lengths_padded"))


def name_out3_rows_renormalised(got, weights3, atol) -> None:
    """q6's out3 (naming round 88, blind88 q6_sanity_check_that_output_rows_sum_to_one_renormalises_out3): the right
    out3 with each row divided by its own sum, a "repair" of output rows that were never meant to sum to 1, where
    out3 is not the notebook's own weights3 @ V3 (a wrong weights3 is named on its own: 1 / (1 + S) normalised
    weights give nearly these numbers on the trace): output_rows_renormalised."""
    out = ref.out3.double()
    replay = out / out.sum(-1, keepdim=True)
    g = got.detach().double()
    if not (bool(torch.isfinite(g).all()) and g.shape == replay.shape and torch.allclose(g, replay, rtol=0, atol=atol)):
        return
    if (type(weights3) is torch.Tensor and tuple(weights3.shape) == (3, 3)
            and torch.allclose(g, weights3.detach().double() @ ref.V3.double(), rtol=0, atol=atol)):
        return
    raise Misconception("output_rows_renormalised", "out3 is wrong: it is the right out3 with each row divided by "
                        "its own sum: " + describe("output_rows_renormalised"))


def name_pair_list_numel(got, submission, T) -> None:
    """q8 (naming round 88, blind89 q8_entries_counted_as_numel_of_the_cartesian_pair_list_counts_both_coordinates):
    attn_entries = 2 T^2 AND the assignment that binds it (or a def it calls) takes numel() / nelement() of a list
    of index pairs made in the cell (cartesian_prod, nonzero, argwhere, tril_indices / triu_indices, a stacked
    meshgrid): pair_list_numel. 2 T^2 alone has other readings (two matrices, float16 bytes), said without a name.
    Student text: parsed (bounded), never run."""
    if got != 2 * T * T or submission is None:
        return
    builders = {"cartesian_prod", "nonzero", "argwhere", "tril_indices", "triu_indices", "meshgrid", "stack",
                "combinations"}

    def name_of(f):
        return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
    try:
        values, defs = _assignment_values(submission, "attn_entries")
        nodes = [b for v in values for node in _reached(v, defs) for b in itertools.islice(ast.walk(node), 4000)]
        counted = any(isinstance(b, ast.Call) and name_of(b.func) in ("numel", "nelement") for b in nodes)
        built = any(isinstance(n, ast.Call) and name_of(n.func) in builders
                    for _segments, tree in _cell_trees(submission, "attn_entries")
                    for n in itertools.islice(ast.walk(tree), 8000))
    except (RecursionError, MemoryError, ValueError, SyntaxError):
        return
    if counted and built:
        raise Misconception("pair_list_numel", f"attn_entries is {got:,} = 2 T^2: " + describe("pair_list_numel"))


def _trace_scores(what):
    """q6's scaled scores of the trace, the causal ones masked with -inf for weights3_causal."""
    s = ref.Q3.double() @ ref.K3.double().T / 2.0
    return s.masked_fill(~ref.causal_mask(3), float("-inf")) if what == "weights3_causal" else s


def name_trace_row_sum_overwritten(got, what, submission, atol) -> None:
    """q6 (naming round 88, blind89 q6_causal_row_sums_built_with_scatter_which_overwrites_instead_of_scatter_add):
    weights3 or weights3_causal equal to the exponentials exp(s - row max) of the (masked) trace scores with each
    row divided by ONE of its own kept terms (the last written, or the first), not their sum, AND the cell calls
    scatter / scatter_ (an overwrite; scatter_add accumulates): row_sum_scatter_overwrites. On the notebook's
    trace the last kept term of each causal row is its diagonal, the row's largest (exp(0) = 1): the replay is then
    the undivided exponentials, so the source tells this from a division left out (weights_not_normalised).
    Student text: parsed (bounded), never run."""
    if what not in ("weights3", "weights3_causal") or submission is None or type(got) is not torch.Tensor:
        return
    if tuple(got.shape) != (3, 3) or not bool(torch.isfinite(got).all()):
        return
    s = _trace_scores(what)
    keep = torch.isfinite(s)
    e = torch.exp(s - s.amax(-1, keepdim=True)).masked_fill(~keep, 0.0)
    g = got.detach().double()
    for pick in ("last", "first"):
        cols = [max(j for j in range(3) if keep[i, j]) if pick == "last" else min(j for j in range(3) if keep[i, j])
                for i in range(3)]
        replay = e / torch.stack([e[i, cols[i]] for i in range(3)])[:, None]
        if torch.allclose(g, replay, rtol=0, atol=atol) and not torch.allclose(replay, e / e.sum(-1, keepdim=True),
                                                                              rtol=0, atol=atol):
            break
    else:
        return
    try:
        hit = _source_hit(_cell_trees(submission, what), lambda n: isinstance(n, ast.Call) and isinstance(
            n.func, ast.Attribute) and n.func.attr in ("scatter", "scatter_") and not any(
            k.arg == "reduce" for k in n.keywords))
    except (RecursionError, MemoryError, ValueError):
        return
    if hit is not None:
        raise Misconception("row_sum_scatter_overwrites", f"{what} is wrong: each row is its exponentials divided by "
                            f"the {pick} of them alone, not by their sum, and your cell writes the sums with scatter "
                            f"(`{hit}`): " + describe("row_sum_scatter_overwrites"))


def _regathered(x, dim):
    """The right softmax of x along `dim` computed on the sorted slice (descending or ascending) and put back with
    gather(dim, order), the sort permutation applied twice: {key/order: tensor}."""
    right = ref.stable_softmax(x, dim)
    out = {}
    for descending in (True, False):
        order = x.sort(dim=dim, descending=descending).indices
        out[f"sorted_softmax_regathered/{'desc' if descending else 'asc'}"] = right.gather(dim, order).gather(dim, order)
    return out


def name_sorted_softmax_regathered(got, x, dim, what) -> None:
    """q3 and q6 (naming round 88, blind89 q3_sorted_softmax_put_back_with_gather_instead_of_scatter): a softmax
    equal, on this input, to the softmax of the sorted logits gathered back with the sort's own indices (applying
    the permutation twice instead of undoing it), where that replay is not the right softmax (a slice whose order
    is its own inverse gives the right one): sorted_softmax_regathered."""
    if (type(got) is not torch.Tensor or type(x) is not torch.Tensor or got.shape != x.shape
            or not got.dtype.is_floating_point or x.dim() == 0):
        return
    try:
        hits = matching_variants(got, _regathered(x, dim), x.dtype, expected=ref.stable_softmax(x, dim))
    except (RuntimeError, ValueError, TypeError, IndexError):
        return
    if hits:
        raise Misconception("sorted_softmax_regathered", f"{what} is wrong: it matches, on this input, the softmax "
                            "of the sorted logits put back with gather(dim, order): " + describe("sorted_softmax_regathered"))


def _pads_past_power(node) -> bool:
    """`n.bit_length()` on anything but `n - 1` (1 << n.bit_length() is 2n for n a power of two), or
    int(log2(n)) + 1 / floor(log2(n)) + 1 as an exponent's value (the same next-power-up). Student text, parsed."""
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "bit_length"
            and not (isinstance(node.func.value, ast.BinOp) and isinstance(node.func.value.op, ast.Sub)
                     and _number(node.func.value.right) == 1)):
        return True
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and _number(node.right) == 1:
        inner = node.left
        if isinstance(inner, ast.Call) and isinstance(inner.func, (ast.Name, ast.Attribute)) and inner.args:
            fname = inner.func.id if isinstance(inner.func, ast.Name) else inner.func.attr
            arg = inner.args[0]
            return fname in ("int", "floor") and isinstance(arg, ast.Call) and (
                getattr(arg.func, "attr", None) == "log2" or getattr(arg.func, "id", None) == "log2")
    return False


def name_power_of_two_past_length(got, name, submission, T=1024, d_k=64) -> None:
    """q8 (naming round 88, blind88 q8_power_of_two_padding_doubles_a_length_that_already_is_one): attn_entries =
    (2T)^2 or score_madds = (2T)^2 d_k, T = 1024 a power of two, AND a cell that stores the count pads a length
    with the next power of two ABOVE it (1 << n.bit_length(), 2 ** (int(log2(n)) + 1)): power_of_two_padding_past_length.
    Student text: parsed (bounded), never run."""
    if submission is None or got != {"attn_entries": 4 * T * T, "score_madds": 4 * T * T * d_k}.get(name):
        return
    try:
        hit = _source_hit([(seg, tree) for seg, tree in _cell_trees(submission, name)], _pads_past_power)
    except (RecursionError, MemoryError, ValueError):
        return
    if hit is not None:
        raise Misconception("power_of_two_padding_past_length", f"{name} is {got:,}, the count at 2T = {2 * T}: your "
                            f"cell pads the length to a power of two with `{hit}`, which for T = {T}, already a power "
                            "of two, gives 2T: " + describe("power_of_two_padding_past_length"))


def _masked_weights64(Q, K, mask):
    """float64 softmax of the scaled scores with blocked keys at -inf: a fully masked query's row is NaN."""
    q, k = Q.detach().double(), K.detach().double()
    s = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    return torch.softmax(s.masked_fill(~mask.bool(), float("-inf")), dim=-1)


def name_empty_rows_flag_slips(Q, K, V, mask, got, expected, what) -> None:
    """q5 (naming round 88, blind89): two slips of the indices that clear the rows of fully masked queries, each by
    the replay on the test's inputs (float64), named where it matches and is not the right output:
    - empty_rows_indices_mixed_across_batch (q5_empty_query_rows_from_flattened_nonzero_mix_batch_indices_into_
      query_indices): the right output with index_fill(-2, idx, 0) where idx is the flattened nonzero() of a
      batched (..., T_q) flag (batch indices read as query indices);
    - has_key_flag_gathered_wrong_axis (q5_any_key_flag_gathered_at_the_first_allowed_key_along_the_query_axis):
      the weights cleared where mask.gather(-2, first) is False, `first` each query's first allowed key
      (argmax over the keys), with gather or take_along_dim (which broadcasts): the flag read along the query
      axis, another query's entry."""
    if (mask is None or type(got) is not torch.Tensor or got.shape != expected.shape or mask.dtype != torch.bool
            or Q.dim() < 3):
        return
    replays = {}
    try:
        idx = (~mask.any(dim=-1)).nonzero().flatten()
        if mask.dim() > 2 and idx.numel() and int(idx.max()) < expected.shape[-2]:
            replays["empty_rows_indices_mixed_across_batch"] = expected.double().index_fill(-2, idx, 0.0)
        first = mask.int().argmax(dim=-1, keepdim=True)
        if first.numel() and int(first.max()) < mask.shape[-2]:
            weights = _masked_weights64(Q, K, mask)
            # rows cleared where key 0 alone is blocked (the flag read off the first key, blind60/85's slip): where
            # the gathered flag gives the same output, the input does not tell the two apart (the scan after round 88)
            key0 = weights.masked_fill(~mask[..., :1], 0.0) @ V.detach().double()
            for how, has_key in (("gather", lambda: mask.gather(-2, first)),
                                 ("take_along_dim", lambda: torch.take_along_dim(mask, first, dim=-2))):
                replay = weights.masked_fill(~has_key(), 0.0) @ V.detach().double()
                if replay.shape != key0.shape or not torch.allclose(replay, key0, equal_nan=True):
                    replays[f"has_key_flag_gathered_wrong_axis/{how}"] = replay
        hits = {h.split("/")[0] for h in matching_variants(got, replays, got.dtype, expected=expected)}
    except (RuntimeError, ValueError, IndexError, TypeError):
        return
    if len(hits) == 1:
        key = hits.pop()
        raise Misconception(key, f"{what} is wrong: it matches, on this input, " + describe(key))


_MAX_PROBE = torch.tensor([[0.5, float("-inf"), 1.0, -0.25], [0.2, 0.1, -0.3, 0.4]], dtype=torch.float64)


def _selection_product(fdef) -> str | None:
    """The quoted product of the def's own statements that multiplies a 0/1 selection (one_hot, or an == test) into
    something, where the def also reduces with a sum: the max picked as sum(selection * x). Student text, parsed."""
    own = list(_own_statements(fdef, 4000))

    def selection(n) -> bool:
        return any((isinstance(c, ast.Call) and (getattr(c.func, "attr", None) == "one_hot"
                                                 or getattr(c.func, "id", None) == "one_hot"))
                   or (isinstance(c, ast.Compare) and any(isinstance(o, ast.Eq) for o in c.ops))
                   for c in itertools.islice(ast.walk(n), 400))
    bound = {t.id for n in own if isinstance(n, ast.Assign) and selection(n.value)
             for t in n.targets if isinstance(t, ast.Name)}

    def picks(n) -> bool:
        return selection(n) or any(isinstance(c, ast.Name) and c.id in bound for c in itertools.islice(ast.walk(n), 400))
    summed = any(isinstance(n, ast.Call) and getattr(n.func, "attr", getattr(n.func, "id", None)) in ("sum", "nansum")
                 for n in own)
    for n in own:
        if summed and isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mult) and (picks(n.left) or picks(n.right)):
            return ast.unparse(n)[:60]
    return None


def name_max_picked_by_product(fn, said) -> None:
    """q3, q5, q6 (naming round 88, blind89 q3_row_max_read_through_a_one_hot_of_the_argmax_makes_zero_times_minus_
    inf_nan): a NaN result where a second call of the notebook's stable_softmax on a float64 probe gives NaN on the
    whole slice holding a -inf and the right weights on the finite slice, and the right weights with -inf replaced
    by -30, AND its def (the last one a Run All leaves) picks the max as a sum of a 0/1 selection (one_hot, ==)
    times the logits: max_picked_by_product. A softmax subtracting the min gives the same numbers: the source tells
    them apart. Student text: parsed (bounded), never run."""
    if fn is None:
        return
    out = second_call(fn, _MAX_PROBE.clone(), dim=-1)
    finite = _MAX_PROBE.masked_fill(torch.isinf(_MAX_PROBE), -30.0)
    out_finite = second_call(fn, finite.clone(), dim=-1)
    right, right_finite = torch.softmax(_MAX_PROBE, -1), torch.softmax(finite, -1)
    if not all(type(t) is torch.Tensor and t.shape == _MAX_PROBE.shape and t.dtype.is_floating_point
               for t in (out, out_finite)):
        return
    if not (bool(torch.isnan(out[0]).all()) and torch.allclose(out[1].double(), right[1], atol=1e-6)
            and torch.allclose(out_finite.double(), right_finite, atol=1e-6)):
        return
    try:
        found = [n for _seg, tree in _cell_trees(_grading_checks.running_submission(), "stable_softmax")
                 for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "stable_softmax"]
        hit = _selection_product(found[-1]) if found else None
    except (RecursionError, MemoryError, ValueError, SyntaxError):
        return
    if hit is not None:
        raise Misconception("max_picked_by_product", f"{said}, and stable_softmax on (0.5, -inf, 1.0, -0.25) is NaN "
                            f"on the whole slice while finite slices are right; your softmax picks its max as a "
                            f"product (`{hit}`): " + describe("max_picked_by_product"))


def name_shift_skipped_where_minus_inf(fn, said) -> None:
    """q5 (naming round 88, blind88 q3_guard_against_minus_inf_minus_minus_inf_leaves_partly_masked_slices_unshifted):
    three second calls of the attention on one query with keys 100, 0, 99 (d_k = 1, V = I): in float32 with key 1
    masked it gives inf or NaN, in float32 with no mask and in float64 with the mask it gives the right weights.
    exp(100) overflows float32 alone, so the max is subtracted on the unmasked slice and not on the slice that holds
    a -inf, though that slice has finite entries: the guard against -inf - (-inf) tests for any -inf in the slice
    where only an all -inf slice needs it: shift_skipped_where_minus_inf."""
    def probe(dtype, masked):
        Q = torch.ones(1, 1, 1, dtype=dtype)
        K = torch.tensor([[[100.0], [0.0], [99.0]]], dtype=dtype)
        mask = torch.tensor([[True, not masked, True]])
        return second_call(fn, Q, K, torch.eye(3, dtype=dtype)[None], mask=mask), mask
    outs = {}
    for dtype, masked in ((torch.float32, True), (torch.float32, False), (torch.float64, True)):
        out, mask = probe(dtype, masked)
        if type(out) is not torch.Tensor or tuple(out.shape) != (1, 1, 3):
            return
        right = torch.softmax(torch.tensor([100.0, 0.0, 99.0], dtype=torch.float64).masked_fill(~mask[0], float("-inf")), -1)
        outs[(dtype, masked)] = (out, right)
    out, _right = outs[(torch.float32, True)]
    if bool(torch.isfinite(out).all()):
        return
    for key in ((torch.float32, False), (torch.float64, True)):
        out, right = outs[key]
        if not (bool(torch.isfinite(out).all()) and torch.allclose(out.double().flatten(), right, atol=1e-5)):
            return
    raise Misconception("shift_skipped_where_minus_inf", f"{said}; one query with keys scoring 100, 0, 99 gives inf or "
                        "NaN in float32 when key 1 is masked, and the right weights with no mask and in float64 "
                        "with the mask: " + describe("shift_skipped_where_minus_inf"))
