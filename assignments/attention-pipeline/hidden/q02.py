"""scaled_scores: S = Q K^T / sqrt(d_k), queries as rows, keys as columns.

Edge cases real code gets wrong, drawn from `rng`: a zero query, duplicated keys, rectangular shapes,
transposed views (`.view` breaks on them) and expanded, stride-0 inputs (writing into them raises).
A failed layout case also shows the smallest input of its kind that still fails (autograder.grading.shrink);
what it is named is decided on the original input."""
import torch
from otter.test_files import test_case

from autograder.errors import StudentCodeError
from autograder.grading.checks import (Misconception, call, describe, raise_if_added_parameter_wrong, randn,
                                       register_misconceptions)
from autograder.grading.shrink import TensorArgs, check_value
from reference import attention_pipeline as ref

OK_FORMAT = False
name = "q02"
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


def _variants(Q, K):
    return {**ref.scores_variants(Q, K), **D.scores_variants(Q, K)}


def _scores(fn, Q, K, run, submission=None):
    """`run()`, the student's S for Q and K; a crash on batched inputs is named when one slice of them
    with fewer batch dims runs and is right (K.T, transpose(1, 2), bmm: code for one layout only). One
    mistake, one name: a batched S scaled by a sequence length whose 2-D slice is right reads d_k from
    a fixed axis (Q.shape[1] is d_k of a 2-D Q, T of a 3-D one): scale_wrong_axis, by its cause."""
    try:
        return run()
    except Misconception as m:
        _raise_if_heads_layout(m, fn, Q, K, submission)
        D.raise_if_scale_per_block(fn, Q, K, "S")   # each block of d_k scaled by its own width (round 86)
        D.raise_if_scale_cached(fn, Q, K, "S")   # one factor for every d_k, kept between calls (blind60)
        D.raise_if_scale_fixed(fn, Q, K, "S", only_frozen=True)   # a default read from a global (round 82)
        if m.key == "scale_from_ndim" and not D.ndim_scale_confirmed(fn, Q, K):   # 1/2 is sqrt(4) and a cached 1/2
            _raise_if_added(fn, Q, K, submission)
            D.raise_if_scale_fixed(fn, Q, K, "S")   # or a 1/2 typed in (round 82)
            raise AssertionError("S does not match the correct result: it is Q K^T times a constant") from None
        if m.key != "default_argument_wrong":   # a parameter the notebook lacks, proven by a second call, first
            _raise_if_added(fn, Q, K, submission)
        D.raise_if_scale_fixed(fn, Q, K, "S")   # one factor for every d_k and shape: typed in (round 82)
        eq = D.einsum_implicit_output(submission, "scaled_scores") if m.key == "scores_transposed" else None
        if eq is not None:   # the cause, where the code shows it: an einsum with no output named (blind39)
            head, *tail = str(m).split("\n", 1)
            raise Misconception(m.key, f"{head}: your einsum '{eq[0]}' has no '->', so its output letters come out "
                                f"sorted (keys before queries here); name the output: '{eq[1]}'"
                                + "".join("\n" + t for t in tail)) from None
        if m.key == "scale_by_T" and Q.dim() > 2 and _right_on_2d(fn, Q, K):
            raise Misconception("scale_wrong_axis", f"S is scaled by 1/sqrt(T) on these {Q.dim()}-D inputs, and on "
                                "one 2-D slice of them it is right: the size read is a fixed axis (Q.shape[1] is "
                                "d_k only for a 2-D Q): " + describe("scale_wrong_axis")) from None
        raise
    except StudentCodeError as e:
        _raise_if_heads_layout(e, fn, Q, K, submission)
        _raise_if_column_convention(fn, Q, K, submission, f"your code raised {e.exc_type}: {e.message.rstrip('.')}")
        D.raise_if_keys_reshaped_with_query_length(e, fn, Q, K, submission)   # K reshaped with T_q (blind66)
        named = D.batched_crash(e, {"Q": Q, "K": K}, lambda t: fn(t["Q"], t["K"]),
                                lambda t, out: D.is_right(out, ref.scaled_scores(t["Q"].double(), t["K"].double()),
                                                          Q.dtype), up=True)
        if named is None:   # Q * K^T for Q @ K^T: runs only on square Q and K (T = d_k), re-run there
            n = Q.shape[-1]
            Qs, Ks = (randn((n, n), torch.Generator().manual_seed(i), Q.dtype) for i in (0, 1))
            try:
                out = fn(Qs, Ks)
            except StudentCodeError:
                out = None
            if out is not None:
                named = D.square_crash(e, out, ref.scaled_scores(Qs.double(), Ks.double()),
                                       _variants(Qs.double(), Ks.double()), Q.dtype, f"Q and K both ({n}, {n})")
        if named is not None:
            raise named from None
        raise
    except AssertionError as a:   # a parameter the notebook's signature lacks, left to a default that is wrong
        _raise_if_heads_layout(a, fn, Q, K, submission)
        D.raise_if_scale_per_block(fn, Q, K, "S")
        D.raise_if_scale_cached(fn, Q, K, "S")
        D.raise_if_scale_fixed(fn, Q, K, "S", only_frozen=True)
        _raise_if_column_convention(fn, Q, K, submission, str(a).split("\n", 1)[0])
        _raise_if_added(fn, Q, K, submission)
        D.raise_if_scale_fixed(fn, Q, K, "S")
        raise


def _raise_if_heads_layout(e, fn, Q, K, submission):
    # an einsum written for a heads axis ('...qhd,...khd->...hqk') on (..., T, d_k) tensors: replayed (blind56)
    heads = D.einsum_heads_layout_failure(e, fn, Q, K, submission)
    if heads is not None:
        raise heads from None


def _raise_if_column_convention(fn, Q, K, submission, said):
    # S = Q^T K, the column-vector formula on row-stored Q and K: replayed where T_q = T_k, and read (blind58)
    named = D.column_convention(fn, Q, K, submission, said)
    if named is not None:
        raise named from None


def _raise_if_added(fn, Q, K, submission):
    raise_if_added_parameter_wrong(fn, (Q, K), lambda out: D.is_right(out, ref.scaled_scores(Q.double(), K.double()),
                                   Q.dtype), submission=submission, func_name="scaled_scores",
                                   reference=ref.scaled_scores, what="S")


def _right_on_2d(fn, Q, K) -> bool:
    q, k = Q[(0,) * (Q.dim() - 2)], K[(0,) * (K.dim() - 2)]
    try:
        out = fn(q, k)
    except StudentCodeError:
        return False
    return D.is_right(out, ref.scaled_scores(q.double(), k.double()), Q.dtype)


@test_case(points=2, hidden=True)
def test_scores_float64_rectangular(scaled_scores, rng, submission=None):
    # T_q != T_k and d_k = 12 (not a perfect square): catches the float32 scale constant in float64
    Q = randn((5, 12), rng, torch.float64)
    K = randn((8, 12), rng, torch.float64)
    _scores(scaled_scores, Q, K, lambda: D.assert_matches(
        call(scaled_scores, Q, K, what="scaled_scores"), ref.scaled_scores(Q, K), what="S",
        variants=lambda: _variants(Q, K)), submission)  # variants computed only for a wrong S (issue 20)
    # T_k = d_k = 12: a layout guard that reads such keys as already transposed (K.shape[-2] == d_k) gives Q @ K
    K = randn((12, 12), rng, torch.float64)
    _scores(scaled_scores, Q, K, lambda: D.assert_matches(call(scaled_scores, Q, K, what="scaled_scores"), ref.scaled_scores(
        Q, K), what="S for T_k = d_k = 12", variants=lambda: _variants(Q, K)), submission)   # (round 88)


@test_case(points=1, hidden=True)
def test_scores_batched_float32(scaled_scores, device, rng, submission=None):
    # B = 2: not 3, the rank of Q (a scale by sqrt(Q.dim()) and by sqrt(Q.shape[0]) apart)
    Q = randn((2, 6, 16), rng)
    K = randn((2, 6, 16), rng)
    Q64, K64 = Q.double(), K.double()
    _scores(scaled_scores, Q, K, lambda: D.assert_matches(
        call(scaled_scores, Q, K, what="scaled_scores"), ref.scaled_scores(Q64, K64), what="S", dtype=torch.float32,
        variants=lambda: _variants(Q64, K64)), submission)


def _scores_args(Q, K):
    return TensorArgs({"Q": Q, "K": K}, {"T_q": {"Q": -2}, "T_k": {"K": -2}, "d_k": {"Q": -1, "K": -1}},
                      together_dims=(("T_q", "T_k"),), compare=(("T_q", "T_k"),))


def _check_scores(fn, Q, K, what, submission=None):
    Q64, K64 = Q.double(), K.double()

    def run():
        try:
            check_value(fn, _scores_args(Q, K), ref.scaled_scores(Q64, K64), reference=ref.scaled_scores, what=what,
                        name="scaled_scores", dtype=Q.dtype, variants=lambda: _variants(Q64, K64))
        except Misconception:
            raise
        except AssertionError as e:   # all zeros, or rounded: said from a second call (naming27)
            try:   # the right values in another dtype (np.sqrt's float64 scalar promotes): dtype_changed (blind35)
                D.raise_if_other_dtype(fn(Q, K), ref.scaled_scores(Q64, K64), Q.dtype, what)
            except StudentCodeError:
                pass
            D.raise_with_words(e, lambda: fn(Q, K), ref.scaled_scores(Q64, K64), Q.dtype)
            raise
    _scores(fn, Q, K, run, submission)


@test_case(points=1, hidden=True)
def test_scores_noncontiguous(scaled_scores, rng, submission=None):
    # Q and K as a multi-head split leaves them: (B, T, H, d_k) memory seen as (B, H, T, d_k) through
    # .transpose(1, 2). T_q = 5, T_k = 7, d_k = 12; a zero query (its scores are 0) and two equal keys
    B, H, T_q, T_k, d_k = 2, 3, 5, 7, 12
    Q = randn((B, T_q, H, d_k), rng, torch.float64).transpose(1, 2)
    K = randn((B, T_k, H, d_k), rng, torch.float64).transpose(1, 2)
    Q[:, :, int(torch.randint(0, T_q, (1,), generator=rng))] = 0.0
    i, j = (int(x) for x in torch.randperm(T_k, generator=rng)[:2])
    K[:, :, j] = K[:, :, i]
    _check_scores(scaled_scores, Q, K, "S for transposed (not contiguous) Q and K", submission)


@test_case(points=1, hidden=True)
def test_scores_broadcast(scaled_scores, rng, submission=None):
    # expanded, stride-0 inputs as broadcasting hands them out: the same queries for every head, the
    # same keys for every batch entry (Q /= ... or Q.mul_(...) raises on them). T_q = 6, T_k = 5: no size is 4,
    # the rank of Q and K (a scale by sqrt(K.dim()) and by sqrt(T_k) apart)
    B, H, T_q, T_k, d_k = 3, 2, 6, 5, 12
    Q = randn((B, 1, T_q, d_k), rng).expand(B, H, T_q, d_k)
    K = randn((1, H, T_k, d_k), rng).expand(B, H, T_k, d_k)
    _check_scores(scaled_scores, Q, K, "S for expanded (broadcast, stride-0) Q and K", submission)
