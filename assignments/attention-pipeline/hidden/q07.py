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
    beside_next_request,
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

    def expected():
        return (ref.self_attention(X64, *W64, causal=causal),
                D.split_transposed({**ref.self_attention_variants(X64, *W64, causal=causal),
                                    **D.self_attention_variants(X64, *W64, causal=causal)}))

    def check(out):
        (O_ref, A_ref), (wrong, transposed) = made.value
        D.raise_if_one_value(out, (O_ref, A_ref), ("O", "A"), "self_attention", dtype)
        O, A = expect_tuple(out, "self_attention", ("O", "A"))
        raise_if_reordered((O, A), (O_ref, A_ref), "self_attention", ("O", "A"), dtype)
        _raise_if_renormalised(A, X, W, causal, dtype)
        D.raise_if_mask_after_softmax(A, X, W, causal, dtype)
        D.raise_if_scores_returned(O, A, O_ref, X, W, causal, dtype)
        D.raise_if_scores_transposed((O, A), transposed, (O_ref, A_ref), dtype)
        named, why = D.batched_dim0_key(A, wrong, lambda: fn(X[0], *W, causal=causal), _scores(X64[0], W64, causal),
                                        dtype) if X.dim() == 3 else ("", "")
        if named:
            raise Misconception(named, why + describe(named))
        known = D.with_output_norms(wrong if named == "" else D.without_implicit_dim(wrong), O_ref, A_ref, O)
        key = D.whole_key((O, A), known, (O_ref, A_ref), dtype)
        D.raise_same_projection_cause(key, (O, A), known, stages["project_qkv"], X, W, dtype)
        if key is not None:
            raise Misconception(key, f"(O, A) are wrong: together they match {describe(key)}")
        D.raise_if_unmasked_scores_as_weights(O, O_ref, X, W, causal, dtype, A=A)
        D.raise_if_small_weights_wrong(A, O, A_ref, X64 @ W64[2], dtype, causal)   # cut to 0, or kept where blocked (r. 88)
        D.assert_matches(A, A_ref, what="A", dtype=dtype, variants={k: v[1] for k, v in known.items()}, copies=True)
        D.assert_matches(O, O_ref, what="O", dtype=dtype, variants={k: v[0] for k, v in known.items()}, copies=True)

    # the reference's answer and its catalogued mistakes, computed while the worker runs the student's call
    with beside_next_request(expected) as made:
        _batched(fn, X, W, causal, lambda: charged_in_parts(
            lambda: call(fn, X, *W, causal=causal, what="self_attention"), check,
            lambda: ref.self_attention(X, *W, causal=causal, parts=stages), parts=tuple(stages.values())), stages)


def _scores(X, W, causal):
    Q, K, _ = ref.project_qkv(X, *W)
    S = ref.scaled_scores(Q, K)
    return S + ref.causal_additive_mask(X.shape[-2], S.dtype) if causal else S


def _raise_if_renormalised(A, X, W, causal, dtype):
    """NaN rows of A where the future, zeroed after an unmasked softmax computed in the input's dtype
    and renormalised, gives 0 / 0: the same NaN rows, and the same values elsewhere, name it."""
    if not causal or type(A) is not torch.Tensor or not A.is_floating_point() or not bool(torch.isnan(A).any()):
        return
    Q, K, _ = ref.project_qkv(X, *W)
    P = torch.softmax((Q @ K.transpose(-2, -1)) / math.sqrt(Q.shape[-1]), dim=-1).tril()
    wrong = P / P.sum(dim=-1, keepdim=True)
    if A.shape != wrong.shape or not torch.equal(torch.isnan(A), torch.isnan(wrong)):
        return
    ok = ~torch.isnan(A)
    if matching_variants(A[ok], {"v": wrong[ok].double()}, dtype):
        raise Misconception("renormalised_after_softmax", f"A has NaN rows ({int(torch.isnan(A).any(-1).sum())} of "
                            f"{A.shape[-2]}) on these {dtype} inputs with one large future score: "
                            + describe("renormalised_after_softmax"))


def _batched(fn, X, W, causal, run, stages=None):
    """`run()`; a crash of self_attention itself (one its stages do not explain) named by a second call."""
    try:
        run()
    except StudentCodeError as e:
        named = D.self_attention_crash(fn, e, X, W, causal, stages)
        if named is not None:
            raise named from None
        raise
    except AssertionError:   # a second and third call that differ: dropout left on
        D.raise_if_random(fn, (X, *W), {"causal": causal}, "self_attention")
        raise


@test_case(points=2, hidden=True)
def test_causal_float64(self_attention, project_qkv, scaled_scores, causal_additive_mask, attention_weights, rng):
    # T = 10, not 9: sqrt(T) must differ from isqrt(d_k) = 3 (scale_by_T and integer_sqrt_scale apart)
    T, d_model, d_k, d_v = 10, 7, 12, 5
    X = randn((T, d_model), rng, torch.float64)
    W = _weights(rng, d_model, d_k, d_v, torch.float64)
    stages = dict(zip(STAGES, (project_qkv, scaled_scores, causal_additive_mask, attention_weights)))
    _check(self_attention, stages, X, W, True, torch.float64)
    # scores three times as spread: visible weights from about 1 down below 1e-8, none to be cut (round 88)
    _check(self_attention, stages, D.peaked_self_attention_input(rng, X, W), W, True, torch.float64)


@test_case(points=1, hidden=True)
def test_not_causal_float64(self_attention, project_qkv, scaled_scores, causal_additive_mask, attention_weights, rng):
    T, d_model, d_k, d_v = 6, 7, 12, 5
    X = randn((T, d_model), rng, torch.float64)
    W = _weights(rng, d_model, d_k, d_v, torch.float64)
    stages = dict(zip(STAGES, (project_qkv, scaled_scores, causal_additive_mask, attention_weights)))
    _check(self_attention, stages, X, W, False, torch.float64)


@test_case(points=1, hidden=True)
def test_batched_float32_and_float16(self_attention, project_qkv, scaled_scores, causal_additive_mask, attention_weights,
                         device, rng):
    B, T, d_model, d_k, d_v = 3, 8, 10, 12, 6
    X = randn((B, T, d_model), rng)
    W = _weights(rng, d_model, d_k, d_v, torch.float32)
    stages = dict(zip(STAGES, (project_qkv, scaled_scores, causal_additive_mask, attention_weights)))
    _check(self_attention, stages, X, W, True, torch.float32)
    # two leading axes, (B, H, T, d_model): T is X.shape[-2], not a fixed axis (the notebook's (..., T, d_model), round 88)
    _check(self_attention, stages, randn((2, 3, 5, d_model), rng), W, True, torch.float32)
    _causal_float16(self_attention, stages, rng)   # every dtype the notebook promises: float16 in, float16 out
    X, W = randn((5, d_model), rng, torch.float16), _weights(rng, d_model, d_k, d_v, torch.float16)   # causal=False too
    _check(self_attention, stages, X, W, False, torch.float16)


def _causal_float16(self_attention, stages, rng):
    # float16 in, float16 out. The last token's large key (30 above query 0's own score), masked for every earlier query,
    # underflows their weights to 0 in float16 if the mask comes after the softmax; drawn where honest float16 arithmetic
    # is right (D.float16_large_key_input); then token 0's self-score past exp's reach
    for make_input in (D.float16_large_key_input, D.float16_large_self_score_input):   # in float16 (round 129)
        X, W = make_input(rng, lambda: _weights(rng, 7, 12, 5, torch.float64))
        _check(self_attention, stages, X, W, True, torch.float16)


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
    D.raise_if_mask_after_softmax(A, X, W, True, torch.float32)
    D.raise_if_scores_returned(O, A, want[0], X, W, True, torch.float32)
    D.assert_shape(A, want[1], "A")
    upper = A.double().triu(1)
    if not torch.isfinite(A).all():
        X64, W64 = X.double(), [w.double() for w in W]
        key = D.whole_key((O, A), D.split_transposed(D.self_attention_variants(X64, *W64))[0], want, torch.float32)
        if key is not None:
            raise Misconception(key, f"A contains NaN or inf: (O, A) match {describe(key)}")
        raise AssertionError("A contains NaN or inf")
    if (upper != 0).any():
        # named only if A is what that mistake gives on this input
        X64, W64 = X.double(), [w.double() for w in W]
        wrong = {k: v[1] for k, v in ref.self_attention_variants(X64, *W64).items()}
        wrong["blocked_scores_zeroed"] = D.self_attention_variants(X64, *W64)["blocked_scores_zeroed"][1]  # tril(S)
        hits = [k for k in matching_variants(A, wrong, torch.float32)
                if k in ("upper_triangular_mask", "mask_blocks_diagonal", "no_causal_mask", "causal_includes_next",
                         "blocked_scores_zeroed")]
        if len(hits) == 1:
            raise Misconception(hits[0], f"A has weight on future keys: it matches {describe(hits[0])}")
        D.raise_future_weight(upper)
    one = torch.ones(T, dtype=torch.float64)
    if not torch.allclose(A.double().sum(-1), one, rtol=0, atol=1e-5):
        X64, W64 = X.double(), [w.double() for w in W]
        wrong = {k: v[1] for k, v in D.split_transposed({**ref.self_attention_variants(X64, *W64),
                                                         **D.self_attention_variants(X64, *W64)})[0].items()}
        hits = list({k.split("/")[0] for k in matching_variants(A, wrong, torch.float32)})
        if len(hits) == 1:
            raise Misconception(hits[0], f"rows of A do not sum to 1: it matches {describe(hits[0])}")
        raise AssertionError("rows of A do not sum to 1")
    D.raise_if_uniform_weights(A, X, W, True, torch.float32, "A gives")  # passes every property above (red-team 52)
    V = X.double() @ W[2].double()   # O must be the weights applied to the values: O = A V
    D.raise_if_unmasked_scores_as_weights(O, A.double() @ V, X, W, True, torch.float32, A=A)
    D.assert_matches(O, A.double() @ V, what="O (compared with your own A times V)", dtype=torch.float32,
                   variants={"output_uses_weights_transposed": A.double().transpose(-2, -1) @ V,
                             "values_not_projected": A.double() @ X.double(), **D.output_layer_norms(A.double() @ V, O),
                             "same_projection/v_from_wk": A.double() @ (X.double() @ W[1].double()),
                             "same_projection/v_from_wq": A.double() @ (X.double() @ W[0].double()), **D.output_reshaped(A.double() @ V)})


@test_case(points=1, hidden=True)
def test_causal_properties(self_attention, project_qkv, scaled_scores, causal_additive_mask, attention_weights,
                           device, rng):
    # sharp rows (scores with std ~3): A must be lower-triangular with rows summing to 1
    T, d_model, d_k, d_v = 16, 8, 12, 6
    X = randn((T, d_model), rng, scale=3.0)
    W = _weights(rng, d_model, d_k, d_v, torch.float32)
    stages = dict(zip(STAGES, (project_qkv, scaled_scores, causal_additive_mask, attention_weights)))
    want = ref.self_attention(X.double(), *(w.double() for w in W))

    def check(out):
        try:
            _properties(out, X, W, T)
        except AssertionError as e:   # left to its default, causal: right when causal=True is passed names it
            D.raise_if_keys_mixed(getattr(e, "key", None), out, stages["project_qkv"], X, W, torch.float32)
            raise_if_wrong_default(self_attention, (X, *W), {"causal": True},
                                   lambda o: D.all_right(o, want, torch.float32), "self_attention")
            raise

    _batched(self_attention, X, W, True, lambda: charged_in_parts(
        lambda: call(self_attention, X, *W, what="self_attention"), check, lambda: ref.self_attention(X, *W, parts=stages),
        parts=tuple(stages.values())), stages)
