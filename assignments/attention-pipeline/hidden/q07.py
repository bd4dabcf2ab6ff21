"""self_attention: X -> (O, A); causal by default.

self_attention is built on the student's project_qkv, scaled_scores, causal_additive_mask and
attention_weights: an answer that is wrong only because one of those is (it equals the reference
pipeline run on the student's own stages) passes here, since that stage's own test charges it."""
import math

import torch
from otter.test_files import test_case

from autograder.grading.checks import (
    Misconception,
    assert_plain_tensor,
    call,
    charged_in_parts,
    describe,
    expect_tuple,
    matching_variants,
    randn,
    register_misconceptions,
)
from autograder.errors import StudentCodeError
from reference import attention_pipeline as ref

OK_FORMAT = False
name = "q07"
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

STAGES = ("project_qkv", "scaled_scores", "causal_additive_mask", "attention_weights")


def _weights(rng, d_model, d_k, d_v, dtype):
    s = 1.0 / math.sqrt(d_model)  # unit-variance queries and keys: softmax rows neither flat nor one-hot
    return (randn((d_model, d_k), rng, dtype, s), randn((d_model, d_k), rng, dtype, s),
            randn((d_model, d_v), rng, dtype, s))


def _check(fn, stages, X, W, causal, dtype):
    X64, W64 = X.double(), [w.double() for w in W]
    O_ref, A_ref = ref.self_attention(X64, *W64, causal=causal)
    wrong = {**ref.self_attention_variants(X64, *W64, causal=causal),
             **D.self_attention_variants(X64, *W64, causal=causal)}

    def check(out):
        D.raise_if_one_value(out, (O_ref, A_ref), ("O", "A"), "self_attention", dtype)
        O, A = expect_tuple(out, "self_attention", ("O", "A"))
        raise_if_reordered((O, A), (O_ref, A_ref), "self_attention", ("O", "A"), dtype)
        key = D.whole_key((O, A), wrong, (O_ref, A_ref), dtype)
        if key is not None:
            raise Misconception(key, f"(O, A) are wrong: together they match {describe(key)}")
        D.assert_matches(A, A_ref, what="A", dtype=dtype, variants={k: v[1] for k, v in wrong.items()})
        D.assert_matches(O, O_ref, what="O", dtype=dtype, variants={k: v[0] for k, v in wrong.items()})

    _batched(fn, X, W, causal, lambda: charged_in_parts(
        lambda: call(fn, X, *W, causal=causal, what="self_attention"), check,
        lambda: ref.self_attention(X, *W, causal=causal, parts=stages)))


def _batched(fn, X, W, causal, run):
    """`run()`; a crash of self_attention itself (charged_in_parts lets through only a crash its stages
    do not explain) on a batched X is named when one 2-D slice of X runs and is right (X.shape[0] as T)."""
    try:
        run()
    except StudentCodeError as e:
        def right(t, out):
            return D.all_right(out, ref.self_attention(t["X"].double(), *(w.double() for w in W), causal=causal),
                               X.dtype)
        named = D.batched_crash(e, {"X": X}, lambda t: fn(t["X"], *W, causal=causal), right) if X.dim() > 2 else None
        if named is not None:
            raise named from None
        raise


@test_case(points=2, hidden=True)
def test_causal_float64(self_attention, project_qkv, scaled_scores, causal_additive_mask, attention_weights, rng):
    # T = 10, not 9: sqrt(T) must differ from isqrt(d_k) = 3 (scale_by_T and integer_sqrt_scale apart)
    T, d_model, d_k, d_v = 10, 7, 12, 5
    X = randn((T, d_model), rng, torch.float64)
    W = _weights(rng, d_model, d_k, d_v, torch.float64)
    stages = dict(zip(STAGES, (project_qkv, scaled_scores, causal_additive_mask, attention_weights)))
    _check(self_attention, stages, X, W, True, torch.float64)


@test_case(points=1, hidden=True)
def test_not_causal_float64(self_attention, project_qkv, scaled_scores, causal_additive_mask, attention_weights, rng):
    T, d_model, d_k, d_v = 6, 7, 12, 5
    X = randn((T, d_model), rng, torch.float64)
    W = _weights(rng, d_model, d_k, d_v, torch.float64)
    stages = dict(zip(STAGES, (project_qkv, scaled_scores, causal_additive_mask, attention_weights)))
    _check(self_attention, stages, X, W, False, torch.float64)


@test_case(points=1, hidden=True)
def test_batched_float32(self_attention, project_qkv, scaled_scores, causal_additive_mask, attention_weights,
                         device, rng):
    B, T, d_model, d_k, d_v = 3, 8, 10, 12, 6
    X = randn((B, T, d_model), rng)
    W = _weights(rng, d_model, d_k, d_v, torch.float32)
    stages = dict(zip(STAGES, (project_qkv, scaled_scores, causal_additive_mask, attention_weights)))
    _check(self_attention, stages, X, W, True, torch.float32)


def raise_if_reordered(got, want, what, names, dtype):
    """Every part right, in another order: (A, O) for (O, A)."""
    if len(got) == 2 and all(type(g) is torch.Tensor for g in got) \
            and not matching_variants(got[0], {"right": want[0]}, dtype) \
            and matching_variants(got[0], {"right": want[1]}, dtype) \
            and matching_variants(got[1], {"right": want[0]}, dtype):
        raise Misconception("results_reordered", f"{what} returns ({names[1]}, {names[0]}): both are right, in "
                            f"the other order; return ({names[0]}, {names[1]})")


def _properties(out, X, W, T):
    want = ref.self_attention(X.double(), *(w.double() for w in W))
    D.raise_if_one_value(out, want, ("O", "A"), "self_attention", torch.float32)
    O, A = expect_tuple(out, "self_attention", ("O", "A"))
    raise_if_reordered((O, A), want, "self_attention", ("O", "A"), torch.float32)
    A = assert_plain_tensor(A, "A")
    if tuple(A.shape) != (T, T):
        raise AssertionError(f"A has shape {tuple(A.shape)}, expected ({T}, {T})")
    upper = A.double().triu(1)
    if not torch.isfinite(A).all():
        raise AssertionError("A contains NaN or inf")
    if (upper != 0).any():
        # named only if A is what that mistake gives on this input
        X64, W64 = X.double(), [w.double() for w in W]
        wrong = {k: v[1] for k, v in ref.self_attention_variants(X64, *W64).items()}
        hits = [k for k in matching_variants(A, wrong, torch.float32)
                if k in ("upper_triangular_mask", "mask_blocks_diagonal", "no_causal_mask", "causal_includes_next")]
        if len(hits) == 1:
            raise Misconception(hits[0], f"A has weight on future keys: it matches {describe(hits[0])}")
        raise AssertionError("A has weight on future keys (above the diagonal)")
    one = torch.ones(T, dtype=torch.float64)
    if not torch.allclose(A.double().sum(-1), one, rtol=0, atol=1e-5):
        X64, W64 = X.double(), [w.double() for w in W]
        wrong = {k: v[1] for k, v in {**ref.self_attention_variants(X64, *W64),
                                      **D.self_attention_variants(X64, *W64)}.items()}
        hits = list({k.split("/")[0] for k in matching_variants(A, wrong, torch.float32)})
        if len(hits) == 1:
            raise Misconception(hits[0], f"rows of A do not sum to 1: it matches {describe(hits[0])}")
        raise AssertionError("rows of A do not sum to 1")
    # O must be the weights applied to the values: O = A V
    V = X.double() @ W[2].double()
    D.assert_matches(O, A.double() @ V, what="O (compared with your own A times V)", dtype=torch.float32,
                   variants={"output_uses_weights_transposed": A.double().transpose(-2, -1) @ V,
                             "values_not_projected": A.double() @ X.double()})


@test_case(points=1, hidden=True)
def test_causal_properties(self_attention, project_qkv, scaled_scores, causal_additive_mask, attention_weights,
                           device, rng):
    # sharp rows (scores with std ~3): A must be lower-triangular with rows summing to 1
    T, d_model, d_k, d_v = 16, 8, 12, 6
    X = randn((T, d_model), rng, scale=3.0)
    W = _weights(rng, d_model, d_k, d_v, torch.float32)
    stages = dict(zip(STAGES, (project_qkv, scaled_scores, causal_additive_mask, attention_weights)))
    charged_in_parts(lambda: call(self_attention, X, *W, what="self_attention"),
                     lambda out: _properties(out, X, W, T),
                     lambda: ref.self_attention(X, *W, parts=stages))
