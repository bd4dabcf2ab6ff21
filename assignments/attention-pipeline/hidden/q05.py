"""attention_weights: row-wise softmax of S + M (M may be None).

Edge cases real code gets wrong, drawn from `rng`: tied scores, a row of zeros, a transposed S and an
expanded (stride-0) M, float32 scores in the thousands (exp overflows without the row maximum
subtracted) and tiny ones. A failed edge case also shows the smallest input of its kind that still
fails (autograder.grading.shrink); what it is named is decided on the original input."""
import torch
from otter.test_files import test_case

from autograder.grading.checks import (
    Misconception,
    assert_plain_tensor,
    call,
    describe,
    randn,
    register_misconceptions,
    tolerances,
)
from autograder.errors import StudentCodeError
from autograder.grading.shrink import TensorArgs, check_value
from reference import attention_pipeline as ref

OK_FORMAT = False
name = "q05"
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


_unstable_softmaxes = D.unstable_softmaxes   # in _diagnose.py (q05 keeps under 250 lines)


def _variants(S, M=None, native=()):   # native: (S, M) in the test's own dtype, for the overflows replayed there
    return {**ref.weights_variants(S, M), **D.weights_variants(S, M), **(D.native_weights_variants(*native) if native else {})}


def _weights(fn, S, M, run):
    """`run()`, the student's A for S and M. A crash is named from a second call that shows its cause: `if M:` when
    the same call with M=None runs and is right; code for 2-D (or 3-D) S only when one slice of S with fewer batch
    dims runs and is right; a mistake (a row sum without keepdim...) a square S shows; first, a keep-mask probe."""
    try:
        return _named(fn, S, M, run)
    except (AssertionError, StudentCodeError):
        D.after_unnamed(fn, S, M)   # a row-mean shift, then the keep-mask probe
        raise


def _named(fn, S, M, run):
    try:
        return run()
    except Misconception as m:   # dim 0 of 3-D S: the implicit dim, or a hard-coded dim=0 (a 2-D call tells)
        if m.key == "softmax_implicit_dim" and D.dim0_hard_coded(fn, S):
            raise Misconception("softmax_wrong_dim", "A is the softmax over dim 0, on 3-D S and on a 2-D S alike "
                                "(dim=0 written out): " + describe("softmax_wrong_dim")) from None
        D.raise_if_channel_axis(fn, S, m)
        D.after_named(fn, S, M, m)   # the whole input negated, or a dim read from len(S)
        raise
    except StudentCodeError as e:
        named = _crash_named(fn, S, M, e)
        if named is not None:
            raise named from None
        raise


def _crash_named(fn, S, M, e):
    """What a second call shows of the crash `e` of attention_weights on S and M (see _weights); None if nothing."""
    dtype = S.dtype

    def right(S_, M_, out):
        return D.is_right(out, ref.attention_weights(S_.double(), None if M_ is None else M_.double()), dtype)

    named = D.channel_axis_crash(e, fn, S) or D.inplace_broadcast_crash(e, fn, {"S": S, "M": M}, lambda t: fn(t["S"], t["M"])) \
        or D.len_as_dim(fn, S, M, e) or D.mask_transposed_crash(e, M, lambda MT: fn(S, MT), lambda out: right(S, M, out))
    if M is not None and named is None:
        named = D.truthiness_crash(e, lambda: fn(S, None), lambda out: right(S, None, out))
    if named is None:
        named = D.mask_as_bool_crash(e, M, lambda B: fn(S, B), lambda out: right(S, M, out)) or D.half_fill_crash(e, M, fn)
    if named is None:
        named = D.batched_crash(e, {"S": S, "M": M}, lambda t: fn(t["S"], t["M"]),
                                lambda t, out: right(t["S"], t["M"], out), up=D.fixed_axis_crash(e))
    n = min(S.shape[-2:])
    if named is None and S.shape[-1] != S.shape[-2] and (M is None or M.dim() >= 2):
        # square: the first n queries and keys, with the batch dims, else of the first 2-D slice
        # scores in the thousands overflow a wrong shift on the square input too: then the same square
        # scores brought to unit size show the shape mistake on its own (naming14)
        big = float(S.abs().amax()) if S.numel() else 0.0
        for lead, unit in [(lead, unit) for unit in ((False, True) if big > 30 else (False,))
                           for lead in (((), (0,) * (S.dim() - 2)) if S.dim() > 2 else ((),))]:
            S2 = S[lead][..., :n, :n] / (big if unit else 1.0)
            M2 = None if M is None else M[lead[: max(0, M.dim() - 2)]][..., : min(n, M.shape[-2]), :n]
            try:
                out = fn(S2, M2)
            except StudentCodeError:
                continue
            S64, M64 = S2.double(), None if M2 is None else M2.double()
            named = D.square_crash(e, out, ref.attention_weights(S64, M64), _variants(S64, M64), dtype,
                                   f"S {tuple(S2.shape)}" + (", scaled to unit size" if unit else ""))
            if named is not None or not unit and big <= 30:
                break
    return named


def _rerun(fn, S, M):
    try:
        out = fn(S, M)
    except StudentCodeError:
        return None
    return out if type(out) is torch.Tensor and tuple(out.shape) == tuple(S.shape) else None


@test_case(points=1, hidden=True)
def test_weights_float64_rectangular_mask(attention_weights, rng):
    T_q, T_k = 5, 8
    S = randn((T_q, T_k), rng, torch.float64)
    blocked = torch.rand((T_q, T_k), generator=rng) < 0.35
    blocked[torch.arange(T_q), torch.randint(0, T_k, (T_q,), generator=rng)] = False  # one open key per row
    M = torch.zeros(T_q, T_k, dtype=torch.float64).masked_fill(blocked, torch.finfo(torch.float64).min)
    got = _weights(attention_weights, S, M, lambda: call(attention_weights, S, M, what="attention_weights"))
    D.judged(attention_weights, S, M, lambda: D.assert_matches(got, ref.attention_weights(S, M), what="A",
                                                             variants=lambda: _variants(S, M), rows_unnormalised=True, mask=M))
    # the notebook promises that a row whose keys are all blocked stays finite: S + M, not -inf. Only finite is asked
    # of that row (exp(S - logsumexp(S)) gives ones there, finfo.min having swallowed S); the rest must be right
    M[2] = torch.finfo(torch.float64).min
    what, full = "A with every key of row 2 blocked", (M != 0).all(dim=-1)
    got = assert_plain_tensor(_weights(attention_weights, S, M, lambda: call(attention_weights, S, M,
                                                                            what="attention_weights")), what)
    D.raise_if_blocked_row_wrong(attention_weights, got, S, M)
    if tuple(got.shape) == tuple(S.shape) and not bool(torch.isfinite(got).all()):
        # no maximum subtracted and one global maximum both give NaN there: every score +1000 tells them apart
        probe = _rerun(attention_weights, S + 1000.0, M)
        if probe is not None and not bool(torch.isfinite(probe).all()):
            D.raise_if_weights_not_finite(probe, S + 1000.0, M, what + ", every score 1000 larger,", attention_weights)
    D.raise_if_weights_not_finite(got, S, M, what, attention_weights)
    want = ref.attention_weights(S, M)
    if tuple(got.shape) == tuple(S.shape):
        got = torch.where(full[:, None], want.to(got.dtype), got)
    D.judged(attention_weights, S, M, lambda: D.assert_matches(got, want, what=what, variants=lambda: _variants(S, M)))


@test_case(points=1, hidden=True)
def test_weights_batched_no_mask(attention_weights, device, rng):
    S = randn((2, 3, 6, 7), rng)
    try:
        got = call(attention_weights, S, None, what="attention_weights")
    except StudentCodeError as e:
        # named only if the same call with a mask of zeros (blocking nothing) runs
        try:
            attention_weights(S, torch.zeros(S.shape[-2:], dtype=S.dtype))
        except StudentCodeError:
            named = _crash_named(attention_weights, S, None, e)
            if named is not None:
                raise named from None
            raise e from None
        raise Misconception("crash_on_mask_none", f"your code raised {e.exc_type}: {e.message} with M=None "
                            "(with a mask of zeros it runs)") from None
    S64 = S.double()
    try:
        D.random_checked(attention_weights, S, None, lambda: D.assert_matches(got, ref.attention_weights(S64), what="A (M=None)",
                         dtype=torch.float32, variants=lambda: _variants(S64), rows_unnormalised=True))
    except Misconception as m:   # dim 1 of 4-D S: hard-coded dim=1, the implicit dim (a 3-D call tells), or dim -3
        if m.key == "softmax_wrong_dim" and D.implicit_dim_shown(attention_weights, S, got):
            raise Misconception("softmax_implicit_dim", "A (M=None) is normalised over dim 1 of this 4-D S and "
                                "over dim 0 of a 3-D S: " + describe("softmax_implicit_dim")) from None
        D.raise_if_len_as_dim(attention_weights, S, None)   # dim=len(S) - 1: right where S.shape[0] = S.dim()
        raise


@test_case(points=1, hidden=True)
def test_weights_float16_stable(attention_weights, device, rng):
    # scores up to ~20: exp overflows float16 unless the row maximum is subtracted first
    S = randn((4, 64), rng, torch.float16, scale=6.0)
    M = torch.zeros(4, 64, dtype=torch.float16)  # nothing blocked: this test is about overflow only

    def judge():
        got = assert_plain_tensor(call(attention_weights, S, M, what="attention_weights"), "A (float16)")
        D.raise_if_weights_not_finite(got, S, M, "A (float16 scores up to about 20)", attention_weights)
        D.assert_matches(got, ref.attention_weights(S.double()), what="A (float16)", dtype=torch.float16,
                         variants=lambda: _variants(S.double(), M.double(), (S, M)), rows_unnormalised=True)
    _weights(attention_weights, S, M, judge)


def _weights_args(S, M):
    return TensorArgs({"S": S, "M": M}, {"T_q": {"S": -2, "M": -2}, "T_k": {"S": -1, "M": -1}},
                      together_dims=(("T_q", "T_k"),), compare=(("T_q", "T_k"),))


@test_case(points=1, hidden=True)
def test_weights_noncontiguous(attention_weights, rng):
    # S a transposed view ((T_k, T_q) memory seen as (T_q, T_k)) shared by every batch entry (expanded, stride 0: writing
    # into it, S += M, raises), M a padding mask expanded over the queries; T_q = 5, T_k = 8, two tied keys, a row of 0s
    B, T_q, T_k = 2, 5, 8
    S = randn((1, T_k, T_q), rng, torch.float64).transpose(-2, -1)
    i, j = (int(x) for x in torch.randperm(T_k, generator=rng)[:2])
    S[..., j] = S[..., i]
    S[:, int(torch.randint(0, T_q, (1,), generator=rng))] = 0.0
    S = S.expand(B, T_q, T_k)
    pad = int(torch.randint(1, 4, (1,), generator=rng))
    row = torch.zeros(1, T_k, dtype=torch.float64)
    row[:, T_k - pad:] = torch.finfo(torch.float64).min
    M = row.expand(T_q, T_k)
    want, what = ref.attention_weights(S, M), "A for a transposed S and an expanded M"
    _weights(attention_weights, S, M, lambda: check_value(   # D's judge: float32 for float64 is named
        attention_weights, _weights_args(S, M), want, reference=ref.attention_weights, what=what,
        name="attention_weights", judge=lambda got: D.assert_matches(got, want, what=what, variants=lambda: _variants(S, M),
                                                                    rows_unnormalised=True, mask=M)))


@test_case(points=1, hidden=True)
def test_weights_large_float32(attention_weights, rng):
    # float32 scores of size ~1e3 (exp overflows past ~88 unless each row's max is subtracted first),
    # one row of tiny scores (~1e-30: uniform weights). Nothing is masked: this case is about the range
    S = randn((3, 4, 9), rng, torch.float32, scale=1000.0)
    S[:, 1] *= 1e-33
    M = torch.zeros(4, 9)
    # float32 holds a score of size m only to about m * eps: exp(S - logsumexp(S)), right, moves a weight by that much
    # relatively (up to 1.2e-4 on these scores, where float32's tolerance is 1e-5: 182 of 3000 draws failed it, a
    # correct held-out variant losing a point). The case's own rtol: twice float32's precision at the largest score
    rtol = max(tolerances(torch.float32)[0], 2 * torch.finfo(torch.float32).eps * float(S.abs().max()))
    atol = tolerances(torch.float32)[1]

    def judge(got):
        got = assert_plain_tensor(got, "A (large float32 scores)")
        D.raise_if_weights_not_finite(got, S, M, "A (float32 scores in the thousands)", attention_weights)
        S64 = S.double()
        D.assert_matches(got, ref.attention_weights(S64), what="A (large float32 scores)", dtype=torch.float32,
                         variants=lambda: _variants(S64, M.double(), (S, M)), rows_unnormalised=True,
                         rtol=rtol, atol=atol)
        D.assert_rows_at_their_precision(got, ref.attention_weights(S64), S, "A (large float32 scores)",
                                         lambda: _variants(S64, M.double(), (S, M)))

    def close(got, expected):   # the shrunk inputs' verdict, with the same rtol
        return (type(got) is torch.Tensor and got.dtype == expected.dtype and got.shape == expected.shape
                and bool(torch.allclose(got.double(), expected.double(), rtol=rtol, atol=atol)))

    _weights(attention_weights, S, M, lambda: check_value(
        attention_weights, _weights_args(S, M), ref.attention_weights(S.double(), M.double()),
        reference=ref.attention_weights, what="A (large float32 scores)", name="attention_weights", judge=judge,
        close=close))
