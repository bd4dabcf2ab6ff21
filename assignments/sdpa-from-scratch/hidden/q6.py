"""Question 6: the 3-token trace (T = 3, d_k = 4, d_v = 2) with the notebook's fixed Q3, K3, V3."""
import importlib.util
from pathlib import Path

import torch
from otter.test_files import test_case

from autograder.grading.checks import (
    Misconception,
    describe,
    expect_matrix,
    how_it_differs,
    matching_variants,
    not_answered,
    register_misconceptions,
)
from reference import sdpa_from_scratch as ref

OK_FORMAT = False
name = "q6"
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

ATOL = 5e-4   # answers typed with four decimals pass; every known wrong variant is > 1e-2 away


def _compare(got, expected, variants, what, weights3=None, submission=None):
    """`variants`: a function returning the known wrong answers, called only for a wrong one."""
    if torch.isfinite(got).all() and torch.allclose(got, expected, rtol=0, atol=ATOL):
        return
    hits = {k.split("/")[0] for k in matching_variants(got, variants(), torch.float64, rtol=0, atol=ATOL)}
    if len(hits) == 1:
        key = diag.trace_scale_key(hits.pop(), what, submission, got)     # round58: sqrt(d_v) = d_k ** 0.25
        raise Misconception(key, f"{what} is wrong: it matches {diag.TRACE_SAID.get(key, '')}{describe(key)}")
    diag.name_softmax_not_applied(got, what, ATOL)        # round44: the masked scores, never softmaxed
    if not torch.isfinite(got).all():
        bad = sorted({int(i) for i in (~torch.isfinite(got)).nonzero()[:, 0]})
        masked = [i for i in range(3) if not bool(ref.causal_mask(3)[i].all())]
        if what == "weights3_causal" and bad == masked:
            # a +inf fill, a softmax subtracting each row's min or largest |x|: the values cannot tell them apart
            raise AssertionError(f"{what} contains NaN or inf in row(s) {bad}, exactly the rows with a masked "
                                 "(-inf) score: look at the masked fill and at what stable_softmax subtracts "
                                 "before exp (q3's -inf test checks it)")
        raise AssertionError(f"{what} contains NaN or inf in row(s) {bad}")
    rows = sorted({int(i) for i in ((got - expected).abs() > ATOL).nonzero()[:, 0]})
    diag.name_trace_mistake(got, what, weights3, ATOL, submission)   # read off the answer (naming25, 27)
    pattern = how_it_differs(got, expected, 0.0, ATOL)      # a constant factor, a transposition, a permutation
    # out3 from right weights: the advice is about the product (blind34's out3 typed with its columns swapped was
    # told to recompute the scores, which were right)
    typed = _as_matrix(weights3) if what == "out3" else None      # a tensor, or numbers typed as nested lists
    weights_right = (typed is not None and typed.shape == ref.weights3.shape
                     and torch.allclose(typed, ref.weights3, rtol=0, atol=ATOL))
    advice = ("your weights3 is right: out3 is weights3 @ V3, column j of it weights3 @ V3[:, j]" if weights_right
              else "recompute the scores, divide by sqrt(d_k) = 2, then take the softmax of each row")
    raise AssertionError(f"{what} is not correct in row(s) {rows}{': ' + pattern if pattern else ''} ({advice})")


def _as_matrix(value):
    """A float64 tensor of a tensor or of a small nested list of numbers (a hand-typed answer), else None."""
    if isinstance(value, torch.Tensor):
        return value.detach().double()
    if isinstance(value, (list, tuple)) and len(value) <= 16:
        try:
            return torch.tensor(value, dtype=torch.float64)
        except (TypeError, ValueError, RuntimeError):
            return None
    return None


def _causal_variants():
    """Weights with each wrong causal mask, softmax as a student writes it (a query with no key
    left gets NaN), and the generic wrong variants under the right mask."""
    out = dict(diag.weight_variants(ref.Q3, ref.K3, ref.causal_mask(3), d_v=ref.V3.shape[-1]))
    scores = ref.Q3 @ ref.K3.T / 2.0
    for key, m in ref.causal_mask_variants(3, 3).items():
        s = scores.masked_fill(~m, float("-inf"))
        e = torch.exp(s - s.amax(-1, keepdim=True))
        out[key] = e / e.sum(-1, keepdim=True)
    out["causal_mask_not_equal"] = torch.softmax(scores.masked_fill(diag.diagonal_only(3, 3), float("-inf")), -1)
    # a softmax subtracting the row's minimum gives the NaN rows of a +inf fill: listed, so that a NaN
    # answer matches both and neither is named (the values alone cannot tell them apart)
    s = scores.masked_fill(~ref.causal_mask(3), float("-inf"))
    e = torch.exp(s - s.amin(-1, keepdim=True))
    out["softmax_subtracts_min"] = e / e.sum(-1, keepdim=True)
    return out


def _rounded(exact, weights=None):
    """The answer rounded to one or two decimals, or (for out3) computed from rounded weights."""
    out = {f"rounded_answer/{d}": exact.round(decimals=d) for d in (1, 2)}
    if weights is not None:
        out.update({f"rounded_answer/w{d}": weights.round(decimals=d) @ ref.V3 for d in (1, 2)})
    return out


def _plain_sum(causal=False):
    """The scores (scaled or raw, causal ones zeroed) divided by their row sum: no exponential."""
    out = {}
    for name, s in (("scaled", ref.Q3 @ ref.K3.T / 2.0), ("raw", ref.Q3 @ ref.K3.T)):
        if causal:
            s = s * ref.causal_mask(3)
        out[f"weights_by_plain_sum/{name}"] = s / s.sum(-1, keepdim=True)
    return out


def _e_rounded(causal=False):
    """The softmax with e rounded (2.7, 2.72, 2.718, 3: b ** s / sum), each where it differs from the right one
    (2.72 and 2.718 are within the tolerance of the right weights: they pass)."""
    s = ref.Q3 @ ref.K3.T / 2.0
    right = ref.weights3_causal if causal else ref.weights3
    out = {}
    for b in (2.7, 2.72, 2.718, 3.0):
        e = b ** (s - s.amax(-1, keepdim=True))
        if causal:
            e = e * ref.causal_mask(3)
        w = e / e.sum(-1, keepdim=True)
        if float((w - right).abs().max()) > 2 * ATOL:
            out[f"e_rounded/{b}"] = w
    return out


def _output_for_weights(value, what, shape, other, other_name, fix):
    """An answer of the other matrix's shape: the weights where the output is asked ((3, 3) for (3, 2)) or
    the output where the weights are asked. Named weights_as_output only when it equals, on the same Q3, K3,
    V3, what the reference gives for that other matrix (`other`, built only now: a right answer never gets
    here, its shape is right); else said in words which matrix's shape it has."""
    if not_answered(value) or tuple(getattr(value, "shape", ())) == shape:
        return
    try:
        t = torch.as_tensor(value, dtype=torch.float64)
    except Exception:  # noqa: BLE001 - expect_matrix says what is wrong with it
        return
    expected = other()
    if tuple(t.shape) != tuple(expected.shape):
        return diag.name_features_by_features(t, what, ATOL)     # round58: Q3.T @ K3, (d_k, d_k)
    if torch.isfinite(t).all() and torch.allclose(t, expected, rtol=0, atol=ATOL):
        raise Misconception("weights_as_output", f"{what} has shape {tuple(t.shape)} and equals {other_name} on "
                            f"the same Q3, K3, V3: {describe('weights_as_output')}; {fix}")
    raise AssertionError(f"{what} should have shape {shape}, got {tuple(t.shape)}: the shape of {other_name}, "
                         f"though not its values; {fix}")


@test_case(points=1, hidden=True)
def test_weights3(weights3, scores3=None, out3=None, weights3_causal=None, submission=None):
    _output_for_weights(weights3, "weights3", (3, 3), lambda: ref.out3,
                        "the attention output weights3 @ V3 (3 queries by d_v = 2)",
                        "weights3 is the (3, 3) softmax of scores3 itself, before it multiplies V3")
    diag.name_matrix_flattened(weights3, ref.weights3, "weights3", ATOL)
    got = expect_matrix(weights3, "weights3", (3, 3))
    diag.causal_in_unmasked(got, scores3, ATOL, out3, weights3_causal, submission)
    if not torch.allclose(got, ref.weights3, rtol=0, atol=ATOL):      # round46: an input written in place
        diag.name_trace_scaled_twice_in_place(got, "weights3", submission, ATOL)
    _compare(got, ref.weights3, lambda: {**diag.weight_variants(ref.Q3, ref.K3, d_v=ref.V3.shape[-1]),
                                         **_rounded(ref.weights3), **_plain_sum(), **_e_rounded(),
                                         **diag.trace_stale_scale("weights3"), **diag.trace_negated()}, "weights3", submission=submission)


@test_case(points=1, hidden=True)
def test_out3(out3, weights3=None, submission=None):
    diag.name_out3_from_keys(out3, weights3, ATOL)       # round53: weights3 @ K3 (keys for values)
    _output_for_weights(out3, "out3", (3, 2), lambda: ref.weights3,
                        "the attention weights softmax(scores3) (one per query and key, 3 by 3)",
                        "out3 is the output weights3 @ V3, of shape (3, 2)")
    diag.name_output_transposed(out3, ref.out3, "out3", ATOL)     # V3.T @ weights3.T (blind35)
    diag.name_matrix_flattened(out3, ref.out3, "out3", ATOL)       # round45: .flatten().tolist()
    got = expect_matrix(out3, "out3", (3, 2))
    if (diag.is_causal_weights(weights3, ATOL) and torch.isfinite(got).all()
            and torch.allclose(got, weights3.double() @ ref.V3, rtol=0, atol=ATOL)):
        return   # out3 = weights3 @ V3 as asked, from a weights3 that is the causal one: charged once, on weights3
    _compare(got, ref.out3, _out3_variants, "out3", weights3, submission)


def _out3_variants():
    # (a causal mask forced on this output is output_from_causal_weights below, said for this cell)
    variants = {k: v.to(torch.float64) for k, v in diag.wrong_variants(ref.Q3, ref.K3, ref.V3).items()
                if not k.startswith("causal_mask_forced")}
    variants.update({k: w @ ref.V3 for k, w in _e_rounded().items()})
    variants.update(_rounded(ref.out3, ref.weights3))
    variants.update({k: w @ ref.V3 for k, w in _plain_sum().items()})
    variants.update(diag.trace_stale_scale("out3"))
    variants.update({k: w @ ref.V3 for k, w in diag.trace_negated().items()})         # round47: F.softmin
    scores = ref.Q3 @ ref.K3.T
    # V weighted by the scores, scaled or not, instead of by their softmax
    variants.update({"values_weighted_by_scores/scaled": scores / 2.0 @ ref.V3,
                     "values_weighted_by_scores/raw": scores @ ref.V3,
                     "output_from_causal_weights": ref.weights3_causal @ ref.V3,   # the next cell's weights
                     # (w[..., None] * V[None]).sum(0) sums over the queries: row j is V[j] times key j's total
                     "output_keeps_key_axis/summed_over_queries": ref.weights3.sum(0)[:, None] * ref.V3})
    return variants


@test_case(points=1, hidden=True)
def test_weights3_causal(weights3_causal, causal_mask=None, stable_softmax=None, submission=None):
    diag.name_extra_leading_axes(weights3_causal, ref.weights3_causal, "weights3_causal",
                                 same=lambda a, b: a.dtype.is_floating_point
                                 and torch.allclose(a.double(), b.double(), rtol=0, atol=ATOL))
    _output_for_weights(weights3_causal, "weights3_causal", (3, 3), lambda: ref.weights3_causal @ ref.V3,
                        "the causal attention output (what scaled_dot_product_attention returns with "
                        "causal_mask(3): the causal weights @ V3, 3 queries by d_v = 2)",
                        "weights3_causal is the (3, 3) softmax of the causally masked scores3, before it multiplies V3")
    diag.name_matrix_flattened(weights3_causal, ref.weights3_causal, "weights3_causal", ATOL)
    diag.name_kept_scores_one_softmax(weights3_causal, "weights3_causal", ATOL)     # round50: scores3[mask]
    got = expect_matrix(weights3_causal, "weights3_causal", (3, 3))
    if torch.isfinite(got).all() and torch.allclose(got, ref.weights3, rtol=0, atol=ATOL):
        if causal_mask is not None and not diag._mask_right(causal_mask, 3):
            # the cell may apply the mask: the mask it gets is wrong (Question 4's mistake, named there)
            said = "weights3_causal equals the unmasked weights, and causal_mask(3) is not the (3, 3) causal mask"
            diag.name_mask_not_outer(causal_mask, said)
            diag.name_mask_blocks_nothing(causal_mask, said, submission)
            raise AssertionError(f"{said}: fix causal_mask (Question 4) first, then check this cell")
        raise Misconception("mask_ignored", "weights3_causal equals the unmasked weights: apply the causal "
                            "mask to the scores before the softmax")
    if causal_mask is not None and torch.allclose(got, torch.eye(3, dtype=got.dtype), rtol=0, atol=ATOL):
        # each query's weight all on itself: causal_mask(3) keeps the diagonal alone (round39, blind38's uint8)
        diag.name_unsigned_offsets(causal_mask, "weights3_causal is the identity, each query attending to itself "
                                   "alone, as with a mask that keeps only the diagonal")
    if causal_mask is not None and not torch.allclose(got, ref.weights3_causal, rtol=0, atol=ATOL):
        diag.name_numbered_grid_trace(got, causal_mask, ATOL, submission)    # a mask blocking the cells numbered 0 (blind39)
    diag.name_trace_mask_times_inf(got, stable_softmax, causal_mask, submission)    # NaN rows: replayed (naming21, 54)
    if causal_mask is not None and not torch.allclose(got, ref.weights3_causal, rtol=0, atol=ATOL):
        diag.name_trace_scaled_twice_in_place(got, "weights3_causal", submission, ATOL, causal=True)
    diag.name_lesson_copy(got, ref.weights3_causal, "weights3_causal", ATOL)   # lesson 80's row 1 (blind35)
    diag.name_one_loop_pass(got, ref.weights3_causal, "weights3_causal", submission, ATOL)   # round57
    diag.name_keep_mask_penalty(got, causal_mask, submission, ATOL)    # mask * -1e9 with a keep mask (round43)
    _compare(got, ref.weights3_causal, lambda: {**_causal_variants(), **_rounded(ref.weights3_causal),
                                                **_plain_sum(True), **_e_rounded(True),
                                                **diag.trace_stale_scale("weights3_causal"), **diag.trace_negated(True),
                                                **diag.cumsum_denominators(), **diag.causal_prefix_variants()},
             "weights3_causal", submission=submission)


# each of the trace's tests sees the notebook's stable_softmax (diag.STUDENT_SOFTMAX) for its second calls
test_weights3.test_func = diag.blames_softmax_for_zero_fill(test_weights3.test_func)
test_out3.test_func = diag.blames_softmax_for_zero_fill(test_out3.test_func)
test_weights3_causal.test_func = diag.blames_softmax_for_zero_fill(test_weights3_causal.test_func)
test_weights3.test_func.on_missing = diag.trace_cell_crashed
test_out3.test_func.on_missing = diag.trace_cell_crashed
test_weights3_causal.test_func.on_missing = diag.trace_cell_crashed
