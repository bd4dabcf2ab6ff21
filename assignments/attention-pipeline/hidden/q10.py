"""row_entropy_bits and effective_tokens.

test_entropy_views hands row_entropy_bits a causal A that is not contiguous: transposed in memory and
shared by every batch entry (expanded, stride 0), as one head's weights broadcast over a batch. Writing
into A (A.clamp_(...), A[A == 0] = ..., A += eps) raises on it, and `.view(-1, T_k)` does too; a
failure there also shows the smallest input of its kind that still fails (autograder.grading.shrink)."""
import torch
from otter.test_files import test_case

from autograder.grading.checks import (
    Misconception,
    assert_plain_tensor,
    call,
    charged_in_parts,
    randn,
    register_misconceptions,
)
from autograder.errors import StudentCodeError
from autograder.grading.shrink import TensorArgs, check_value
from reference import attention_pipeline as ref

OK_FORMAT = False
name = "q10"
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

# Tolerances (float64 inputs). Lesson 79's recipe, -(A * log2(A + eps)).sum(-1), is biased by at most
# T_k * eps / ln 2 bits: 1.0e-8 for eps = 1e-9 and the T_k <= 7 here (2**H is then off by < 5e-7 at
# H <= log2(7)). Every known wrong variant is > 0.1 away (nats: a factor 0.69; sign; wrong dim).
H_ATOL = 1e-6
N_RTOL, N_ATOL = 1e-6, 1e-6


def _entropy_variants(A):
    return {**ref.entropy_variants(A), **D.entropy_variants(A), **D.entropy_lower_triangle_variants(A)}


def _named_twice(run, fn, T2):
    """`run()`; entropy_normalised_by_log_keys is named only when rows of another length (T2 uniform prefix
    rows) show the factor of their own log(T_k) too; otherwise the factor is said, not named (naming21)."""
    key = "entropy_normalised_by_log_keys"
    try:
        return run()
    except Misconception as m:
        if m.key == "softmax_applied_twice":   # the shared text says softmax_entropy; here the input is A itself
            raise Misconception(m.key, f"{m}; here A is already the weights: row_entropy_bits takes their log2 "
                                "directly (-(A * log2(A)).sum(-1), 0 log 0 counted as 0), with no softmax or "
                                "log_softmax of A") from None
        if m.key != key:
            raise
        W = ref.prefix_average_matrix(T2)
        try:
            out = fn(W)
        except StudentCodeError:
            out = None
        if type(out) is torch.Tensor and D.matching_variants(
                out, {k: v for k, v in D.entropy_variants(W).items() if k.split("/")[0] == key}, torch.float64):
            raise
        raise AssertionError(f"H is the correct entropy times a factor that matches ln 2 / ln(T_k) or 1 / ln(T_k) "
                             f"on these rows, but not on rows of {T2} keys") from None


def _entropy_of(fn, A):
    """fn(A); a crash on batched A where one 2-D slice runs and is right is batched_input_unsupported (blind31's
    Python loop over the rows of A, whose `row` is a matrix on batched input)."""
    try:
        return call(fn, A, what="row_entropy_bits")
    except StudentCodeError as e:
        named = D.batched_crash(e, {"A": A}, lambda t: fn(t["A"]),
                                lambda t, out: _entropy_close(out, ref.row_entropy_bits(t["A"])))
        if named is not None:
            raise named from None
        raise


def _causal_A(rng, B, T):
    # random causal attention rows: exact zeros above the diagonal, and one one-hot row (entropy 0)
    S = randn((B, T, T), rng, torch.float64, scale=1.5)
    A = ref.attention_weights(S, ref.causal_additive_mask(T, torch.float64))
    return A


@test_case(points=2, hidden=True)
def test_entropy_causal_rows(row_entropy_bits, rng, submission=None):
    A = _causal_A(rng, 2, 7)
    got = assert_plain_tensor(_entropy_of(row_entropy_bits, A), "H")
    # one number, the entropy of A[A > 0] (every row's entries in one flat tensor) where the code selects so (blind48)
    D.raise_if_rows_flattened_by_selection(got, A, submission, "H", torch.float64)
    # NaN exactly on the rows with a zero weight, right elsewhere: the unguarded 0 * log 0 replayed (blind42's NaN of
    # A / A.sum(dim=0), log 0 guarded, is entropy_renormalised_other_axis among the variants)
    D.raise_if_zero_log_zero_nan(got, D.zero_log_zero_nan_replay(A), "H", H_ATOL)
    D.raise_if_entropy_sign_clamped(got, A, submission, "H")   # no minus sign, clamped at 0 (blind59)
    D.raise_if_small_weights_dropped(got, A, submission, "H")   # weights below A > 1e-2 left out (blind85)
    D.raise_if_entropy_terms_returned(got, A, row_entropy_bits, "H")   # the terms a log2 a, never summed (blind65)
    _named_twice(lambda: D.assert_matches(got, ref.row_entropy_bits(A), what="H", variants=lambda: _entropy_variants(A),
                                          rtol=0, atol=H_ATOL, reduced=True), row_entropy_bits, 6)
    # uniform prefix rows carry the maximum, log2(t) bits
    W = ref.prefix_average_matrix(6)
    H_W = call(row_entropy_bits, W, what="row_entropy_bits")
    D.raise_if_entropy_terms_returned(H_W, W, row_entropy_bits, "H of uniform prefix rows")   # a 2-D-only return (blind65)
    D.assert_matches(H_W, ref.row_entropy_bits(W),
                   what="H of uniform prefix rows", variants=lambda: _entropy_variants(W), rtol=0, atol=H_ATOL,
                     reduced=True)
    # float32 weights: the entropies come back in the input's dtype (a float64 accumulator never cast back, blind41,
    # is dtype_changed where the values are right); float32's tolerance, the same test's points. No zero weight in
    # these rows: a float64-sized clamp (1e-300, 0 in float32) keeps its full marks, the dtype alone is asked here
    A32 = ((A + 0.05) / (A + 0.05).sum(dim=-1, keepdim=True)).to(torch.float32)
    # a NumPy float64 array in the def (np.zeros without dtype=, dtype=float) said as the cause (round 74)
    D.numpy_float64_said(lambda: D.assert_matches(
        assert_plain_tensor(call(row_entropy_bits, A32, what="row_entropy_bits"), "H"), ref.row_entropy_bits(A32),
        what="H for float32 A", variants=lambda: _entropy_variants(A32), rtol=0, atol=1e-4, reduced=True),
        "row_entropy_bits")
    # float16 weights (the notebook: outputs keep the input's dtype, float16 included): a float32 helper tensor
    # ((A == 0).float() added to patch the zeros, blind50) promotes float16 to float32, dtype_changed where the
    # values are right. Rows of multiples of 1/1024 with no zero: exact in float16, each row sums to exactly 1
    # (Categorical(probs=A) validates that), and no epsilon or clamp that float16 rounds to 0 meets a 0 * log 0 (the
    # lesson's recipe keeps its marks). float16's own tolerances against the float64 entropy of these very weights:
    # right code in float16 (log2, xlogy, where / nan_to_num guards, a float32 or float64 pass cast back) stays
    # within a fifth of them
    A16 = _half_rows(A)
    D.assert_matches(assert_plain_tensor(call(row_entropy_bits, A16, what="row_entropy_bits"), "H"),
                     ref.row_entropy_bits(A16.double()), what="H for float16 A", dtype=torch.float16,
                     variants=lambda: _entropy_variants(A16), reduced=True)
    # weights with two leading axes, (B, H, T_q, T_k) as multi-head attention gives them (the notebook: (..., T_q, T_k)):
    # a sum over a fixed axis 2, the key axis of 3-D A only, sums down the columns there (round 88)
    A4 = A[:, 1:6, 1:6].reshape(1, 2, 5, 5).expand(2, 2, 5, 5).contiguous()
    A4 = A4 / A4.sum(dim=-1, keepdim=True)
    D.assert_matches(assert_plain_tensor(_entropy_of(row_entropy_bits, A4), "H"), ref.row_entropy_bits(A4),
                     what="H for 4-D A (B, H, T_q, T_k)", variants=lambda: _entropy_variants(A4), rtol=0, atol=H_ATOL,
                     reduced=True)


def _half_rows(A):
    """Each row of A, 0.05 added and renormalised, rounded to multiples of 1/1024 (the largest entry takes the
    rounding's remainder, so the row sums to exactly 1), in float16: every entry is at least 0.03."""
    w = (A + 0.05) / (A + 0.05).sum(dim=-1, keepdim=True)
    k = torch.round(w * 1024)
    k.scatter_add_(-1, k.argmax(dim=-1, keepdim=True), 1024 - k.sum(dim=-1, keepdim=True))
    return (k / 1024).to(torch.float16)


@test_case(points=1, hidden=True)
def test_effective_tokens(effective_tokens, row_entropy_bits, rng, submission=None):
    # effective_tokens is 2 ** row_entropy_bits: a wrong entropy is charged above, not again here
    A = _causal_A(rng, 3, 6)
    A0 = A.clone()   # the composition runs on a fresh copy: a helper that writes into A shows it there

    def check(got):
        # the same tensor for other weights, from a def that reads a notebook global, not A (blind57)
        D.raise_if_argument_ignored(effective_tokens, got, A0, submission, "effective_tokens", "effective tokens")
        got = assert_plain_tensor(got, "effective tokens")
        D.raise_if_zero_log_zero_nan(got, 2.0 ** D.zero_log_zero_nan_replay(A), "effective tokens", N_ATOL)
        D.assert_matches(got, ref.effective_tokens(A), what="effective tokens",
                       variants=lambda: {**ref.effective_tokens_variants(A), **D.effective_tokens_variants(A)}, rtol=N_RTOL, atol=N_ATOL,
                       reduced=True)

    charged_in_parts(lambda: call(effective_tokens, A, what="effective_tokens"), check,
                     lambda: ref.effective_tokens(A0.clone(), entropy=row_entropy_bits), parts=(row_entropy_bits,))
    # float32 weights (blind25's torch.float_power, always float64): named here only where row_entropy_bits keeps
    # float32 and both run, so an entropy in another dtype, or a crash, is charged once, above
    A32 = ((A0 + 0.05) / (A0 + 0.05).sum(dim=-1, keepdim=True)).to(torch.float32)
    try:
        H32, got = row_entropy_bits(A32.clone()), effective_tokens(A32)
    except (StudentCodeError, TypeError):
        return
    if type(H32) is torch.Tensor and H32.dtype == torch.float32:
        D.raise_if_other_dtype(got, ref.effective_tokens(A32), torch.float32, "effective tokens for float32 A")


def _entropy_close(got, expected):
    # this question's tolerance (H_ATOL above), also for the smaller inputs shrinking tries
    return (type(got) is torch.Tensor and got.dtype == expected.dtype and got.shape == expected.shape
            and bool(torch.allclose(got, expected, rtol=0, atol=H_ATOL)))


@test_case(points=1, hidden=True)
def test_entropy_views(row_entropy_bits, rng, submission=None):
    # A: (1, T, T) causal rows, stored column-major ((T, T) memory seen transposed), expanded over B = 3
    # (stride 0); exact zeros above the diagonal, one uniform prefix row (ties), one one-hot row
    B, T = 3, 6
    S = randn((1, T, T), rng, torch.float64, scale=1.5)
    S[:, int(torch.randint(1, T, (1,), generator=rng))] = 0.0
    A = ref.attention_weights(S, ref.causal_additive_mask(T, torch.float64))
    A = A.mT.contiguous().mT.expand(B, T, T)
    want = ref.row_entropy_bits(A)

    def judge(got):
        got = assert_plain_tensor(got, "H")
        D.raise_if_zero_log_zero_nan(got, D.zero_log_zero_nan_replay(A), "H", H_ATOL)
        D.raise_if_rows_flattened_by_selection(got, A, submission, "H for a transposed, expanded A", torch.float64)
        D.raise_if_entropy_sign_clamped(got, A, submission, "H for a transposed, expanded A")
        D.raise_if_entropy_terms_returned(got, A, row_entropy_bits, "H for a transposed, expanded A")
        _named_twice(lambda: D.assert_matches(got, want, what="H for a transposed, expanded A",
                                              variants=lambda: _entropy_variants(A), rtol=0, atol=H_ATOL, reduced=True),
                     row_entropy_bits, 5)

    args = TensorArgs({"A": A}, {"T_q": {"A": -2}, "T_k": {"A": -1}}, together_dims=(("T_q", "T_k"),),
                      compare=(("T_q", "T_k"),))
    try:
        check_value(row_entropy_bits, args, want, reference=ref.row_entropy_bits, what="H", name="row_entropy_bits",
                    judge=judge, close=_entropy_close)
    except StudentCodeError as crash:
        try:                # a crash of batched A named (a Misconception raised); else the crash as it was
            _entropy_of(row_entropy_bits, A.contiguous())
        except StudentCodeError:
            pass
        raise crash from None
