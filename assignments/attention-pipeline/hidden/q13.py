"""cross_attention: queries from X, keys and values from Y; no causal mask unless M says so."""
import math

import torch
from otter.test_files import test_case

from autograder.grading.checks import (
    Misconception,
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
name = "q13"
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


def _weights(rng, d_model, d_k, d_v, dtype):
    s = 1.0 / math.sqrt(d_model)
    return tuple(randn((d_model, d), rng, dtype, s) for d in (d_k, d_k, d_v))


def _check(fn, stages, X, Y, W, M, dtype):
    """cross_attention is built on the student's scaled_scores and attention_weights: a wrong answer that
    equals the reference's cross-attention on those stages is charged by their questions, not here."""
    X64, Y64, W64 = X.double(), Y.double(), [w.double() for w in W]
    M64 = None if M is None else M.double()

    def expected():
        return ref.cross_attention(X64, Y64, *W64, M64), _variants(X64, Y64, W64, M64)

    def check(out):
        (O_ref, A_ref), wrong = made.value
        D.raise_if_one_value(out, (O_ref, A_ref), ("O", "A"), "cross_attention", dtype)
        O, A = expect_tuple(out, "cross_attention", ("O", "A"))
        # the padded keys cut off K and V (or Y) instead of masked: attention over the open keys only, replayed
        # (blind54); A one column per open key
        cut = D.padded_keys_sliced_off(A, O, X, Y, W, M, dtype)
        if cut is not None:
            raise cut
        if all(type(t) is torch.Tensor for t in (O, A)) and not matching_variants(O, {"right": O_ref}, dtype) \
                and matching_variants(O, {"right": A_ref}, dtype) and matching_variants(A, {"right": O_ref}, dtype):
            raise Misconception("results_reordered", "cross_attention returns (A, O): both are right, in the "
                                "other order; return (O, A)")
        named, why = D.batched_dim0_key(A, wrong, lambda: fn(X[0], Y[0], *W, M) if M is not None else fn(X[0], Y[0], *W),
                                        _scores(X64[0], Y64[0], W64, M64), dtype) if X.dim() == 3 else ("", "")
        if named:
            raise Misconception(named, why + describe(named))
        if type(A) is torch.Tensor and A.dtype == dtype and M is not None and not bool(torch.isfinite(A).all()):
            hits = sorted({h.split("/")[0] for h in D.nonfinite_hits(A, {k: v[1] for k, v in _variants(X, Y, W, M).items()})})
            if len(hits) == 1:   # an overflow in the student's dtype that the float64 replay does not have
                raise Misconception(hits[0], f"A contains NaN or inf at the same entries as {describe(hits[0])} "
                                    f"gives in {str(dtype).replace('torch.', '')}")
        D.raise_if_scale_from_global((O, A), X, Y, W, M, "cross_attention", dtype)   # the try-out d_k (blind67)
        known = wrong if named == "" else D.without_implicit_dim(wrong)
        key = D.whole_key((O, A), known, (O_ref, A_ref), dtype)
        if key is not None:
            raise Misconception(key, f"(O, A) are wrong: together they match {describe(key)}")
        D.raise_if_scores_returned_beside_right_output(O, A, O_ref, known, dtype)   # `return O, scores` (round 69)
        try:
            D.assert_matches(A, A_ref, what="A", dtype=dtype, variants={k: v[1] for k, v in known.items()})
            D.assert_matches(O, O_ref, what="O", dtype=dtype, variants={k: v[0] for k, v in known.items()})
        except AssertionError:   # M left to its default: right when M=None is passed names the default
            D.raise_if_y_cut_with_query_length(fn, X, Y, W, M, dtype)   # Y flattened with X's T (blind72)
            if M is None:
                raise_if_wrong_default(fn, (X, Y, *W), {"M": None},
                                       lambda o: D.all_right(o, (O_ref, A_ref), dtype)   # in its dtype too
                                       and all(t.dtype == dtype for t in o), "cross_attention")
            raise

    def student():
        if M is None:
            return call(fn, X, Y, *W, what="cross_attention")
        try:
            return call(fn, X, Y, *W, M, what="cross_attention")
        except StudentCodeError as e:   # evidence from the same call without the mask
            try:
                out = fn(X, Y, *W)
            except StudentCodeError:
                raise e from None
            A = out[1] if isinstance(out, (tuple, list)) and len(out) == 2 else None
            variants = {k: v[1] for k, v in _variants(X64, Y64, W64, None).items()}
            hits = sorted({h.split("/")[0] for h in matching_variants(A, variants, dtype)}) \
                if type(A) is torch.Tensor else []
            if len(hits) == 1:
                raise Misconception(hits[0], f"your code raised {e.exc_type}: {e.message} with the mask; "
                                    f"without it, A matches {describe(hits[0])}") from None
            raise

    try:
        # the reference's answer and its catalogued mistakes, computed while the worker runs the student's call
        with beside_next_request(expected) as made:
            charged_in_parts(student, check, lambda: ref.cross_attention(X, Y, *W, M, parts=stages),
                             parts=tuple(stages.values()))
    except StudentCodeError as e:   # a crash of cross_attention itself: what a second call shows
        named = _crash_named(fn, X, Y, W, M, e)
        if named is not None:
            raise named from None
        raise


def _scores(X, Y, W, M):
    S = (X @ W[0]) @ (Y @ W[1]).transpose(-2, -1) / math.sqrt(W[0].shape[-1])
    return S if M is None else S + M


def _variants(X, Y, W, M):
    return {**ref.cross_attention_variants(X, Y, *W, M), **D.cross_attention_variants(X, Y, *W, M)}


def _crash_named(fn, X, Y, W, M, e):
    """`if M:` when the same call with M=None runs and is right; code for 2-D inputs only when one 2-D
    slice runs and is right; with T != T', the one mistake that inputs of one length T show (values from
    X, a causal mask...), when that answer is not simply right. None when nothing is shown."""
    dtype = X.dtype
    W64 = [w.double() for w in W]

    def want(X_, Y_, M_):
        return ref.cross_attention(X_.double(), Y_.double(), *W64, None if M_ is None else M_.double())

    # M.add_(S), M += S: the scores added into the caller's (T, T') mask, too small for batched scores (blind37)
    named = D.inplace_broadcast_crash(e, fn, {"X": X, "Y": Y, "M": M}, lambda t: fn(t["X"], t["Y"], *W, t["M"]))
    if named is None and M is not None:
        named = D.truthiness_crash(e, lambda: fn(X, Y, *W), lambda out: D.all_right(out, want(X, Y, None), dtype))
    if named is None and M is None:   # float16 with M left out: an all-open mask of its dtype runs (naming23)
        named = D.default_mask_dtype_crash(e, X, Y, lambda M0: fn(X, Y, *W, M0), lambda out: D.all_right(out, want(X, Y, None), dtype))
    if named is None and M is None:   # the default mask made T x T from X's length (blind35; before
        # batched_crash: a batch axis of 1 gives len(X) = 1, a mask that broadcasts)
        named = D.default_mask_square_crash(e, X, Y, lambda Y_, M_: fn(X, Y_, *W, M_) if M_ is not None else fn(X, Y_, *W),
                                            lambda Y_, M_, out: D.all_right(out, want(X, Y_, M_), dtype))
    if named is None:   # S + M.T: the caller's (T, T') mask read as (T', T) fails on rectangular scores (naming11)
        named = D.mask_transposed_crash(e, M, lambda MT: fn(X, Y, *W, MT), lambda out: D.all_right(out, want(X, Y, M), dtype))
    if named is None:   # S.masked_fill(M != 0, -1e9) on float16 scores, pinned by a float64 probe (naming20)
        named = D.neg_1e9_fill_crash(e, X, Y, W, M, lambda X2, M64: fn(X2, Y.double(), *W64, M64))
    if named is None:
        named = D.mask_as_bool_crash(e, M, lambda B: fn(X, Y, *W, B), lambda out: D.all_right(out, want(X, Y, M), dtype))
    if named is None:   # 2-D inputs: with a batch axis added (nn.Softmax(dim=2) fits 3-D scores only, naming21)
        named = D.batched_crash(e, {"X": X, "Y": Y, "M": M}, lambda t: fn(t["X"], t["Y"], *W, t["M"]),
                                lambda t, out: D.all_right(out, want(t["X"], t["Y"], t["M"]), dtype), up=X.dim() == 2,
                                shared=("M",))
    if named is None:   # K, V = fused.chunk(2): equal halves, right only where d_k = d_v (blind40)
        named = D.fused_kv_halves_crash(e, X, Y, W, M, lambda W2: fn(X, Y, *W2, M), dtype)
    if named is None:   # Q V^T for Q K^T runs only where d_v = d_k
        named = D.values_as_wide_crash(e, W, lambda W2: fn(X, Y, *W2, M), lambda W2, out: D.whole_key(
            out, _variants(X.double(), Y.double(), [w.double() for w in W2], None if M is None else M.double()),
            ref.cross_attention(X.double(), Y.double(), *(w.double() for w in W2), None if M is None else M.double()),
            dtype))
    if named is None:   # softmax(Q) for softmax(S): a second call with d_k = T' runs (naming30)
        named = D.weights_of_queries_crash(e, X, Y, W, M, lambda W2: fn(X, Y, *W2, M), dtype)
    if named is None and "stack expects each tensor to be equal size" in (e.message or "") \
            and W[2].shape[-1] != W[1].shape[-1]:
        # torch.stack([Y @ W_K, Y @ W_V]) (blind31): with W_V as wide as W_K it runs and is right
        W2 = [W[0], W[1], D.randn_like_width(W[2], W[1].shape[-2], W[1].shape[-1])]
        try:
            out = fn(X, Y, *W2, M)
        except StudentCodeError:
            out = None
        right2 = ref.cross_attention(X.double(), Y.double(), *(w.double() for w in W2), None if M is None else M.double())
        if out is not None and D.all_right(out, right2, dtype):
            named = Misconception("qkv_stacked", f"your code raised {e.exc_type}: {(e.message.splitlines() or [''])[0][:200]}"
                                  f"; with W_V as wide as W_K (d_v = d_k = {W[1].shape[-1]}) it runs and is right: "
                                  + describe("qkv_stacked"))
    T_q, T_k = X.shape[-2], Y.shape[-2]
    if named is None and T_q < T_k:
        Y2, M2 = Y[..., :T_q, :], None if M is None else M[..., :T_q]
        try:
            out = fn(X, Y2, *W, M2)
        except StudentCodeError:
            return None
        if not (isinstance(out, (tuple, list)) and len(out) == 2):
            return None
        M64 = None if M2 is None else M2.double()
        key = D.whole_key(out, _variants(X.double(), Y2.double(), W64, M64), want(X, Y2, M2), dtype)
        if key is not None:
            named = Misconception(key, f"your code raised {e.exc_type}: {(e.message.splitlines() or [''])[0][:200]}; with Y "
                                  f"as long as X (the first {T_q} of its {T_k} tokens) it runs and matches "
                                  + describe(key))
    return named or D.y_cut_with_query_length(fn, X, Y, W, M, dtype, f"{e}; ")


@test_case(points=1, hidden=True)
def test_cross_float64(cross_attention, scaled_scores, attention_weights, rng):
    T_q, T_k, d_model, d_k, d_v = 5, 10, 7, 12, 6   # sqrt(T_k) apart from isqrt(d_k) = 3; d_v apart from T_q
    X, Y = randn((T_q, d_model), rng, torch.float64), randn((T_k, d_model), rng, torch.float64)
    W = _weights(rng, d_model, d_k, d_v, torch.float64)
    _check(cross_attention, {"scaled_scores": scaled_scores, "attention_weights": attention_weights}, X, Y, W, None, torch.float64)


@test_case(points=1, hidden=True)
def test_cross_same_length(cross_attention, scaled_scores, attention_weights, rng):
    # T_q == T_k: a swapped role or a causal mask would still have the right shape
    T, d_model, d_k, d_v = 6, 7, 12, 5
    X, Y = randn((T, d_model), rng, torch.float64), randn((T, d_model), rng, torch.float64)
    W = _weights(rng, d_model, d_k, d_v, torch.float64)
    stages = {"scaled_scores": scaled_scores, "attention_weights": attention_weights}
    _check(cross_attention, stages, X, Y, W, None, torch.float64)
    # float16 with M left out, which no other test runs (the notebook's float16 rule): a default mask made
    # without dtype= is float32 and mixes into the float16 scores (naming23)
    _check(cross_attention, stages, X.half(), Y.half(), [w.half() for w in W], None, torch.float16)


@test_case(points=1, hidden=True)
def test_cross_padding_mask(cross_attention, scaled_scores, attention_weights, device, rng):
    # batched, with the last keys of Y blocked (padding) for every query
    B, T_q, T_k, d_model, d_k, d_v = 2, 4, 7, 8, 12, 6
    X, Y = randn((B, T_q, d_model), rng), randn((B, T_k, d_model), rng)
    W = _weights(rng, d_model, d_k, d_v, torch.float32)
    pad = int(torch.randint(1, 4, (1,), generator=rng))
    M = torch.zeros(T_q, T_k)
    M[:, T_k - pad:] = torch.finfo(torch.float32).min
    D.numpy_float64_said(lambda: _check(cross_attention, {"scaled_scores": scaled_scores, "attention_weights": attention_weights},
                                        X, Y, W, M, torch.float32), "cross_attention")   # np float64 mask (round 74)
    # the same mask for one unbatched float16 sequence, the notebook's (T, T') M for X (T, d_model) (naming20):
    # a mask given a batch axis shows in O's and A's shape, a blocked value float16 cannot hold crashes
    M16 = torch.zeros(T_q, T_k, dtype=torch.float16)
    M16[:, T_k - pad:] = torch.finfo(torch.float16).min
    _check(cross_attention, {"scaled_scores": scaled_scores, "attention_weights": attention_weights}, X[0].half(),
           Y[0].half(), [w.half() for w in W], M16, torch.float16)
    # one query whose keys are all blocked: with finfo.min added that row stays finite (the notebook, section 3);
    # -inf for the blocked entries makes it NaN (blind70). The other rows are the first case's
    M[1], stages = torch.finfo(torch.float32).min, (scaled_scores, attention_weights)
    charged_in_parts(lambda: call(cross_attention, X, Y, *W, M, what="cross_attention"),
                     lambda out: D.assert_blocked_query_finite(cross_attention, out, X, Y, W, M, torch.float32),
                     lambda: ref.cross_attention(X, Y, *W, M, parts=dict(zip(("scaled_scores", "attention_weights"), stages))),
                     parts=stages)
    D.check_all_blocked_cross(cross_attention, X, Y, W, stages)   # every key blocked: rows alike (section 3; round 88)
