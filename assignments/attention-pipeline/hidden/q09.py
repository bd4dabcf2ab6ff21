"""Box kernel: zero query/key projections give Lesson 07's prefix-average matrix."""
import math

import torch
from otter.test_files import test_case

from autograder.grading.checks import (
    Misconception,
    assert_matches,
    assert_plain_tensor,
    call,
    charged_in_parts,
    describe,
    expect_tuple,
    matching_variants,
    randn,
    raise_if_wrong_default,
    register_misconceptions,
)
from autograder.errors import StudentCodeError
from reference import attention_pipeline as ref

OK_FORMAT = False
name = "q09"
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


@test_case(points=1, hidden=True)
def test_prefix_average_matrix(prefix_average_matrix, rng, submission=None):
    T = int(torch.randint(4, 10, (1,), generator=rng))
    try:
        got = call(prefix_average_matrix, T, what="prefix_average_matrix")
        D.raise_if_prefix_average_container(got, T)   # the right numbers in a list or a NumPy array (blind32)
        got = assert_plain_tensor(got, "W_avg")
    except StudentCodeError as e:   # T rows against T - 1 counts: a second call with T = 2 (naming27)
        # T against T * T, and the source repeats or tiles: the 1-D counts laid end to end (blind36)
        named = D.prefix_average_in_place_int_crash(e, submission) or D.prefix_average_repeated_flat_crash(e, T, submission) \
            or D.prefix_average_one_short_crash(prefix_average_matrix, e, T) \
            or D.chained_compare_crash(e, submission, "prefix_average_matrix")   # 0 <= j <= i on tensors (blind79)
        if named is not None:
            raise named from None
        raise
    # right below the diagonal, inf (1/0) or NaN (0/0) everywhere above: divided after the triangle was cut (blind47)
    told = D.prefix_average_masked_division(got, T)
    if told is not None:
        raise told
    # the right matrix turned over (flip / rot90, blind51's triu(ones).flip(0) for the lower triangle): replayed
    D.raise_if_triangle_flipped(got, T)
    D.raise_if_rows_stacked_as_columns(got, T)   # torch.stack(rows, dim=1), R's apply (round 80)
    want = ref.prefix_average_matrix(T)
    def variants():
        return {**ref.prefix_average_variants(T), **D.prefix_average_variants(T)}
    if got.dtype == torch.float32:   # the question asks for float64: named when the float32 values are right
        if D.is_right(got, want, torch.float32):
            raise Misconception("prefix_average_float32", "W_avg is float32 (its values are right to float32's "
                                "precision): " + describe("prefix_average_float32"))
        assert_matches(got, want, what="W_avg", dtype=torch.float32, variants=variants, reduced=False)
    try:
        assert_matches(got, want, what="W_avg", variants=variants, reduced=False)
    except Misconception as m:   # the column-index numbers from a running mean never rescaled (round 86)
        D.raise_if_prefix_running_mean(m, submission)
        raise
    except AssertionError:   # float64 values exactly the float32 recipe's, cast at the end (naming21)
        if D.float32_then_cast(got, T):
            raise Misconception("prefix_average_float32", "W_avg is float64, but its values are exactly the float32 "
                                "ones cast at the end (1/3 keeps float32's rounding, about 1e-8 off): "
                                + describe("prefix_average_float32")) from None
        raise
    D.check_prefix_average_repeat(prefix_average_matrix, T)   # the same T again: state kept between calls (blind87)
    D.check_prefix_average_one_token(prefix_average_matrix, submission)   # T = 1: [[1.]], the table's first row (blind66)


@test_case(points=1, hidden=True)
def test_zero_projections(self_attention, project_qkv, scaled_scores, causal_additive_mask, attention_weights, rng):
    # checks self_attention (the notebook says so); a stage that is wrong on its own is charged by its
    # own question, not here (the answer then equals the pipeline run on the student's own stages)
    T, d_model, d_k, d_v = 8, 6, 12, 5
    X = randn((T, d_model), rng, torch.float64)
    Z = torch.zeros(d_model, d_k, dtype=torch.float64)
    W_V = randn((d_model, d_v), rng, torch.float64, 1.0 / math.sqrt(d_model))
    # with zero projections most of D's variants coincide with the reference's (uniform weights is the mask
    # ignored): only the mask added after the softmax, the scale applied after it, and the inputs scored
    # against each other (X X^T: W_Q, W_K unused, blind33) are told apart here
    wrong = {**ref.self_attention_variants(X, Z, Z, W_V),
             **{k: v for k, v in D.self_attention_variants(X, Z, Z, W_V).items()
                if k in ("mask_after_softmax", "scale_after_softmax") or k.startswith(("scores_from_inputs", "mask_rows_from_block"))}}
    stages = {"project_qkv": project_qkv, "scaled_scores": scaled_scores,
              "causal_additive_mask": causal_additive_mask, "attention_weights": attention_weights}

    def check(out):
        O_ref, A_ref = ref.self_attention(X, Z, Z, W_V)
        D.raise_if_one_value(out, (O_ref, A_ref), ("O", "A"), "self_attention", torch.float64)
        O, A = expect_tuple(out, "self_attention", ("O", "A"))
        if all(type(t) is torch.Tensor for t in (O, A)) and not matching_variants(O, {"right": O_ref}, torch.float64) \
                and matching_variants(O, {"right": A_ref}, torch.float64) \
                and matching_variants(A, {"right": O_ref}, torch.float64):
            raise Misconception("results_reordered", "self_attention returns (A, O): both are right, in the "
                                "other order; return (O, A)")
        D.raise_if_scores_returned(O, A, O_ref, X, (Z, Z, W_V), True, torch.float64)
        D.raise_if_copies_stacked(A, ref.prefix_average_matrix(T), "A with W_Q = W_K = 0")   # A (T, T, T) (blind85)
        try:
            assert_matches(A, ref.prefix_average_matrix(T), what="A with W_Q = W_K = 0",
                           variants={k: v[1] for k, v in wrong.items()}, reduced=False)
        except AssertionError as e:   # called with causal left to its default: right when it is passed
            raise_if_wrong_default(self_attention, (X, Z, Z, W_V), {"causal": True},
                                   lambda o: D.all_right(o, (O_ref, A_ref), torch.float64), "self_attention")
            if getattr(e, "key", None) == "no_causal_mask":   # uniform: the mask applied elsewhere? (blind35)
                told = D.zero_projections_mask_by_value(self_attention, X, W_V, d_k)
                if told is not None:
                    raise told from None
            raise

    try:
        charged_in_parts(lambda: call(self_attention, X, Z, Z, W_V, what="self_attention"), check,
                         lambda: ref.self_attention(X, Z, Z, W_V, parts=stages), parts=tuple(stages.values()))
    except StudentCodeError as e:   # a crash of self_attention itself: what a second call shows
        named = D.self_attention_crash(self_attention, e, X, (Z, Z, W_V))
        if named is not None:
            raise named from None
        raise
    except AssertionError:   # a second and third call that differ: dropout left on
        D.raise_if_random(self_attention, (X, Z, Z, W_V), {}, "self_attention")
        raise
    # with W_Q = W_K = 0 the uniform causal weights ARE the answer: a self_attention that never uses W_Q or W_K
    # earns this point unless it is seen elsewhere. The same X and W_V with ordinary W_Q, W_K (unit-variance
    # scores): weights that stay uniform there are uniform_weights (red-team 52); anything else is not this test's
    _uniform_elsewhere(self_attention, stages, X, W_V, d_k, rng)


def _uniform_elsewhere(self_attention, stages, X, W_V, d_k, rng):
    d_model = X.shape[-1]
    W = (randn((d_model, d_k), rng, torch.float64, 1.0 / math.sqrt(d_model)),
         randn((d_model, d_k), rng, torch.float64, 1.0 / math.sqrt(d_model)), W_V)

    def check(out):
        if isinstance(out, (tuple, list)) and len(out) == 2:
            D.raise_if_uniform_weights(out[1], X, W, True, torch.float64,
                                       "A with W_Q = W_K = 0 is right, but with ordinary W_Q and W_K A still gives")

    try:   # a stage that gives uniform weights (attention_weights ignoring S) is charged by its own question
        charged_in_parts(lambda: call(self_attention, X, *W, what="self_attention"), check,
                         lambda: ref.self_attention(X, *W, parts=stages), parts=tuple(stages.values()))
    except Misconception as m:
        if m.key == "uniform_weights":
            raise
    except (StudentCodeError, AssertionError):   # a crash or another fault there: the other tests' to charge
        pass
