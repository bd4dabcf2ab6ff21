"""Engine fixes made while naming attention-pipeline's mistakes by kind (issue 21, fifth round).

charged_in_parts' `parts` must see an earlier answer's input write through the guard a test really gets:
namespaces' guard forwards attribute reads to the worker's proxy (`__getattr__`), so a value set on the
guard would hide every later read of the proxy's own `last_changed_inputs`."""
from __future__ import annotations

import functools
from typing import Any

import pytest
import torch

from autograder.grading import checks
from autograder.grading.checks import Misconception
from autograder.grading.runner import TrustedProxy


class _Guard:
    """Like namespaces' guard of a student function: calls and attribute reads go to the proxy."""

    def __init__(self, proxy: TrustedProxy) -> None:
        self._proxy = proxy

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._proxy(*args, **kwargs)

    def __getattr__(self, attr: str) -> Any:
        return getattr(self._proxy, attr)


def _clamp_in_place(A):
    A.clamp_(min=1e-300)
    return -(A * torch.log2(A)).sum(-1)


def test_parts_see_an_input_write_through_a_forwarding_guard() -> None:
    entropy = _Guard(TrustedProxy(_clamp_in_place, "cpu"))
    tokens = _Guard(TrustedProxy(lambda A: 2.0 ** _clamp_in_place(A), "cpu"))
    A = torch.softmax(torch.randn(2, 4, 4, dtype=torch.float64), -1).tril()
    A0 = A.clone()

    def check(got):
        checks.assert_matches(got, 2.0 ** -torch.special.xlogy(A0, A0).sum(-1) / 1.0)

    student = lambda: checks.call(tokens, A.clone(), what="effective_tokens")   # noqa: E731
    own = lambda: 2.0 ** entropy(A0.clone())                                    # noqa: E731
    checks.charged_in_parts(student, check, own, parts=[entropy])    # the write is row_entropy_bits'
    checks.charged_in_parts(student, check, own, parts=[entropy])    # and stays so on a second test
    with pytest.raises(Misconception) as named:
        checks.charged_in_parts(student, check, own)                  # no parts: charged here
    assert named.value.key == "inplace_on_input"


def test_parts_do_not_excuse_a_write_of_the_answer_itself() -> None:
    steady = _Guard(TrustedProxy(lambda A: A.sum(-1), "cpu"))
    writes = _Guard(TrustedProxy(lambda A: A.mul_(2.0).sum(-1), "cpu"))
    A = torch.rand(3, 4, dtype=torch.float64)
    with pytest.raises(Misconception) as named:
        checks.charged_in_parts(lambda: checks.call(writes, A.clone(), what="f"), lambda got: None,
                                lambda: steady(A.clone()), parts=[steady])
    assert named.value.key == "inplace_on_input"


# --- sixth round (blind5's kinds) ---------------------------------------------------------------------

@functools.cache
def _hidden(name: str) -> Any:
    """A hidden file of attention-pipeline, loaded as the engine loads it (the folder is no package)."""
    import importlib.util
    from pathlib import Path
    path = Path(__file__).resolve().parents[1] / "assignments" / "attention-pipeline" / "hidden" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"_naming6_{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_size_one_axes_are_keepdim_only_where_an_axis_was_reduced() -> None:
    want = torch.randn(5, 5, dtype=torch.float64)
    for reduced, key in ((False, "size_one_axes_added"), (True, "keepdim_left_on")):
        with pytest.raises(Misconception) as named:
            checks.assert_matches(want.view(1, 1, 5, 5), want, reduced=reduced)
        assert named.value.key == key
    with pytest.raises(Misconception) as named:   # the default is the engine's old behaviour
        checks.raise_if_other_container(want[:, None], want)
    assert named.value.key == "keepdim_left_on"


def _attention(X: torch.Tensor, W: tuple[torch.Tensor, ...]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    Q, K, V = (X @ w for w in W)
    T = X.shape[-2]
    S = Q @ K.transpose(-2, -1) / Q.shape[-1] ** 0.5
    M = torch.zeros(T, T, dtype=X.dtype).masked_fill(torch.ones(T, T, dtype=torch.bool).triu(1), torch.finfo(X.dtype).min)
    A = torch.softmax(S + M, dim=-1)
    return A @ V, S, M


@pytest.mark.parametrize("masked", [False, True])
def test_scores_returned_with_a_right_output_is_told_from_no_softmax(masked: bool) -> None:
    D = _hidden("_diagnose")
    X = torch.randn(6, 7, dtype=torch.float64)
    W = tuple(torch.randn(7, n, dtype=torch.float64) / 7 ** 0.5 for n in (12, 12, 5))
    O, S, M = _attention(X, W)
    with pytest.raises(Misconception) as named:
        D.raise_if_scores_returned(O, S + M if masked else S, O, X, W, True, torch.float64)
    assert named.value.key == "returns_scores_as_weights"
    # the scores used as weights: O = S V is wrong, so this is not the intermediate returned
    D.raise_if_scores_returned((S + M) @ (X @ W[2]), S + M, O, X, W, True, torch.float64)
    D.raise_if_scores_returned(O, torch.softmax(S + M, -1), O, X, W, True, torch.float64)   # right: nothing


def _fill_with_inf(S: torch.Tensor, M: torch.Tensor) -> torch.Tensor:
    return torch.softmax(S.masked_fill(M != 0, float("-inf")), dim=-1)


def test_a_fully_blocked_row_names_the_mask_turned_into_inf_only_from_the_probe() -> None:
    D = _hidden("_diagnose")
    S = torch.randn(5, 8, dtype=torch.float64)
    M = torch.zeros(5, 8, dtype=torch.float64)
    M[0, 5:] = M[2] = torch.finfo(torch.float64).min
    with pytest.raises(Misconception) as named:
        D.raise_if_blocked_row_nan(_fill_with_inf, _fill_with_inf(S, M), S, M)
    assert named.value.key == "mask_filled_with_inf"

    def no_max(S: torch.Tensor, M: torch.Tensor) -> torch.Tensor:   # also NaN there, but -5 is added right
        e = torch.exp(S + M)
        return e / e.sum(-1, keepdim=True)
    D.raise_if_blocked_row_nan(no_max, no_max(S, M), S, M)


def test_rank_five_names_both_readings() -> None:
    q11 = _hidden("q11")
    # 5 is T and also matrix_rank(S, hermitian=True) of the lesson's non-symmetric S: neither is proven (naming22)
    with pytest.raises(AssertionError, match="hermitian=True") as generic:
        q11.test_rank_S_lesson.test_func(5)
    assert not isinstance(generic.value, Misconception)
    with pytest.raises(Misconception) as named:
        q11.test_max_rank_S.test_func(100)
    assert named.value.key == "rank_bounded_by_T"


def _mask_on_cpu(T: int, dtype: torch.dtype, device: str | None = None) -> torch.Tensor:
    M = torch.zeros(T, T, dtype=dtype)                       # device ignored, as blind5's q04_device_ignored
    return M.masked_fill(torch.ones(T, T, dtype=torch.bool).triu(1), torch.finfo(dtype).min)


def test_a_mask_that_ignores_device_passes_on_the_cpu() -> None:
    q04 = _hidden("q04")
    q04.test_mask_pattern.test_func(TrustedProxy(_mask_on_cpu, "cpu"), "cpu", torch.Generator().manual_seed(0))


@pytest.mark.skipif(not torch.cuda.is_available(), reason="the device a mask is built on shows only on a GPU")
def test_a_mask_that_ignores_device_fails_on_the_gpu() -> None:
    from reference import attention_pipeline as ref
    q04 = _hidden("q04")
    q04.test_mask_pattern.test_func(TrustedProxy(ref.causal_additive_mask, "cuda"), "cuda", torch.Generator().manual_seed(0))
    with pytest.raises(AssertionError, match="create it with device=device"):
        q04.test_mask_pattern.test_func(TrustedProxy(_mask_on_cpu, "cuda"), "cuda", torch.Generator().manual_seed(0))


# --- seventh round (blind6's kinds) -------------------------------------------------------------------

def _scores_against_values(X: torch.Tensor, W_Q: torch.Tensor, W_K: torch.Tensor, W_V: torch.Tensor,
                           causal: bool = True) -> tuple[torch.Tensor, torch.Tensor]:
    Q, V = X @ W_Q, X @ W_V
    T = X.shape[-2]
    S = Q @ V.transpose(-2, -1) / Q.shape[-1] ** 0.5
    if causal:
        S = S.masked_fill(torch.ones(T, T, dtype=torch.bool).triu(1), torch.finfo(X.dtype).min)
    A = torch.softmax(S, dim=-1)
    return A @ V, A


def _needs_square_values(X: torch.Tensor, W_Q: torch.Tensor, W_K: torch.Tensor, W_V: torch.Tensor,
                         causal: bool = True) -> tuple[torch.Tensor, torch.Tensor]:
    """Right whenever it runs: the crash itself is the mistake, no catalogued one."""
    if W_V.shape[-1] != W_Q.shape[-1]:
        raise RuntimeError("mat1 and mat2 shapes cannot be multiplied")
    from reference import attention_pipeline as ref
    return ref.self_attention(X, W_Q, W_K, W_V, causal=causal)


@pytest.mark.parametrize("zero", [False, True])
def test_a_crash_that_d_v_equal_to_d_k_removes_is_named_only_from_what_that_rerun_matches(zero: bool) -> None:
    from autograder.errors import StudentCodeError
    D = _hidden("_diagnose")
    X = torch.randn(8, 7, dtype=torch.float64)
    W = [torch.randn(7, n, dtype=torch.float64) / 7 ** 0.5 for n in (12, 12, 5)]
    if zero:                    # q09's zero W_Q and W_K: the probe draws nonzero ones, or every score is 0
        W[0], W[1] = torch.zeros(7, 12, dtype=torch.float64), torch.zeros(7, 12, dtype=torch.float64)
    wrong = TrustedProxy(_scores_against_values, "cpu")
    with pytest.raises(StudentCodeError) as crash:
        wrong(X, *W)
    named = D.self_attention_crash(wrong, crash.value, X, tuple(W))
    assert named is not None and named.key == "scores_from_values"
    strict = TrustedProxy(_needs_square_values, "cpu")
    with pytest.raises(StudentCodeError) as crash:
        strict(X, *W)
    assert D.self_attention_crash(strict, crash.value, X, tuple(W)) is None


def test_blind6_kinds_never_equal_the_reference_on_the_tests_shapes() -> None:
    from reference import attention_pipeline as ref
    D = _hidden("_diagnose")
    S = torch.randn(2, 5, 7, dtype=torch.float64)
    right = torch.softmax(S, dim=-1)
    for key in ("softmax_global_sum", "softmax_global_sum/per_matrix"):
        assert not torch.allclose(D.weights_variants(S)[key], right)
    q, K, V = torch.randn(12, dtype=torch.float64), torch.randn(7, 12, dtype=torch.float64), torch.randn(7, 5, dtype=torch.float64)
    for key in ("nw_wrong_denominator/mean", "nw_wrong_denominator/max", "nw_wrong_denominator/norm"):
        assert not torch.allclose(D.nw_variants(q, K, V)[key], ref.nadaraya_watson(q, K, V)), key
    for T in range(4, 10):
        W = D.prefix_average_variants(T)
        for key in ("prefix_average_count_wrong_axis/cumsum", "prefix_average_count_wrong_axis/sum"):
            assert not torch.allclose(W[key], ref.prefix_average_matrix(T), equal_nan=True), (key, T)
    A = torch.softmax(torch.randn(3, 6, 6, dtype=torch.float64), -1)
    assert not torch.allclose(D.entropy_variants(A)["entropy_log_shifted"], ref.row_entropy_bits(A), atol=1e-6)
    X, W2 = torch.randn(4, 4, dtype=torch.float64), torch.randn(4, 4, dtype=torch.float64)
    assert "elementwise_product" in D.qkv_variants(X, W2, W2, W2)
    assert "elementwise_product" not in D.qkv_variants(torch.randn(7, 9, dtype=torch.float64), *(
        torch.randn(9, n, dtype=torch.float64) for n in (12, 12, 5)))


# --- eighth round (blind7's kinds) --------------------------------------------------------------------

def _implicit_dim(S: torch.Tensor, M: torch.Tensor | None = None) -> torch.Tensor:
    return torch.softmax(S, dim=0 if S.dim() in (0, 1, 3) else 1)        # nn.Softmax()'s legacy rule


def _hard_coded_dim1(S: torch.Tensor, M: torch.Tensor | None = None) -> torch.Tensor:
    return torch.softmax(S, dim=1)


def test_dim_1_of_a_4d_softmax_is_named_implicit_only_when_a_3d_call_shows_dim_0() -> None:
    D = _hidden("_diagnose")
    S = torch.randn(2, 3, 6, 7)
    for fn, shown in ((_implicit_dim, True), (_hard_coded_dim1, False)):
        proxy = TrustedProxy(fn, "cpu")
        assert D.implicit_dim_shown(proxy, S, proxy(S, None)) is shown


def test_blind7_kinds_differ_from_the_reference_and_from_each_other() -> None:
    from reference import attention_pipeline as ref
    D = _hidden("_diagnose")
    S = torch.randn(2, 5, 5, dtype=torch.float64)
    M = ref.causal_additive_mask(5, torch.float64)
    right = ref.attention_weights(S, M)
    zeroed = D.weights_variants(S, M)["blocked_scores_zeroed"]
    assert torch.allclose(zeroed, torch.softmax(S * (M == 0), dim=-1))
    assert not torch.allclose(zeroed, right) and not torch.allclose(zeroed, D.weights_variants(S, M)["mask_multiplied"])
    assert "softmax_implicit_dim" in D.weights_variants(S) and "softmax_implicit_dim" not in D.weights_variants(S[0])


def _per_head(d_model: int, d_k: int, d_v: int, with_output: bool = False) -> int:
    return (d_model // d_k) * d_model * (2 * d_k + d_v) + (d_v * d_model if with_output else 0)


def test_a_count_multiplied_by_the_heads_is_named_and_one_head_is_no_candidate() -> None:
    q12 = _hidden("q12")
    with pytest.raises(Misconception) as named:
        q12._check(_per_head(248, 43, 70), 248, 43, 70, False)
    assert named.value.key == "param_count_times_heads"
    with pytest.raises(AssertionError) as generic:          # d_model // d_k = 1: the right count, no such key
        q12._check(_per_head(60, 43, 70) + 1, 60, 43, 70, False)
    assert not isinstance(generic.value, Misconception)


def test_an_all_zero_mask_is_named_as_blocking_nothing() -> None:
    q04 = _hidden("q04")
    with pytest.raises(Misconception) as named:
        q04._check_pattern(torch.zeros(6, 6, dtype=torch.float64), 6)
    assert named.value.key == "mask_blocks_nothing"


def _adds_mask_transposed(S, M=None):
    return torch.softmax(S if M is None else S + M.transpose(-2, -1), dim=-1)


def _adds_mask(S, M=None):
    return torch.softmax(S if M is None else S + M, dim=-1)


def test_a_transposed_mask_is_named_only_when_the_call_given_m_transposed_is_right() -> None:
    # naming9 (blind8's q05_mask_transposed): a right attention_weights cannot add an (8, 5) mask to (5, 8)
    # scores, so the probe never names it; the transposing one gives the right A for M there
    from autograder.errors import StudentCodeError
    from reference import attention_pipeline as ref
    D = _hidden("_diagnose")
    S = torch.randn(5, 8, dtype=torch.float64)
    M = torch.zeros(5, 8, dtype=torch.float64)
    M[:, 6:] = torch.finfo(torch.float64).min
    right = lambda out: D.is_right(out, ref.attention_weights(S, M), torch.float64)   # noqa: E731
    wrong, ok = TrustedProxy(_adds_mask_transposed, "cpu"), TrustedProxy(_adds_mask, "cpu")
    with pytest.raises(StudentCodeError) as crash:
        wrong(S, M)
    named = D.mask_transposed_crash(crash.value, M, lambda MT: wrong(S, MT), right)
    assert named is not None and named.key == "mask_transposed"
    assert D.mask_transposed_crash(crash.value, M, lambda MT: ok(S, MT), right) is None


def test_a_float32_mask_for_float64_is_told_from_minus_inf_times_the_pattern() -> None:
    # naming9 (blind8's q04_min_times_float32_ones): the same NaN/-inf mask, two causes; the dtype decides
    q04 = _hidden("q04")
    float32_ones = lambda T, dtype, device=None: torch.finfo(dtype).min * torch.ones(T, T).triu(1)  # noqa: E731
    inf_times = lambda T, dtype, device=None: float("-inf") * torch.ones(T, T, dtype=dtype).triu(1)  # noqa: E731
    for fn, key in ((float32_ones, "mask_built_in_float32"), (inf_times, "mask_nan_from_inf")):
        with pytest.raises(Misconception) as named:
            q04._get(fn, 6, torch.float64)
        assert named.value.key == key


# naming10 (issue 21, sixth round): blind9's misses as kinds

def test_self_attention_keys_against_queries_is_told_but_not_named() -> None:
    # scaled_scores(K, Q) and Q from W_K give the same (O, A) on every input: neither name, both fixes
    from reference import attention_pipeline as ref
    D = _hidden("_diagnose")
    g = torch.Generator().manual_seed(0)
    X, W_Q, W_K, W_V = (torch.randn(s, generator=g, dtype=torch.float64) for s in ((6, 7), (7, 12), (7, 12), (7, 5)))
    want = ref.self_attention(X, W_Q, W_K, W_V)
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    A = torch.softmax(K @ Q.T / 12 ** 0.5 + ref.causal_additive_mask(6, torch.float64), dim=-1)
    wrong, transposed = D.split_transposed({**ref.self_attention_variants(X, W_Q, W_K, W_V),
                                            **D.self_attention_variants(X, W_Q, W_K, W_V)})
    assert transposed and not any(k.startswith("qk_swapped") for k in wrong)
    assert D.whole_key((A @ V, A), wrong, want, torch.float64) is None
    with pytest.raises(AssertionError, match="scaled_scores\\(Q, K\\)") as told:
        D.raise_if_scores_transposed((A @ V, A), transposed, want, torch.float64)
    assert not isinstance(told.value, Misconception)
    D.raise_if_scores_transposed(want, transposed, want, torch.float64)     # right: nothing said


def test_blind9_kinds_name_only_their_own_output() -> None:
    D = _hidden("_diagnose")
    g = torch.Generator().manual_seed(1)
    S = torch.randn(5, 8, generator=g, dtype=torch.float64)
    out = D.weights_variants(S)
    twice = checks.matching_variants(torch.softmax(S / 8 ** 0.5, dim=-1), out, torch.float64)
    assert {k.split("/")[0] for k in twice} == {"scores_scaled_twice"}
    assert checks.matching_variants(torch.softmax(-S, dim=-1), out, torch.float64) == ["scores_negated"]
    A = torch.softmax(torch.randn(2, 7, 7, generator=g, dtype=torch.float64), -1)
    H = -(A * torch.log2(A)).sum(dim=(-2, -1))
    assert checks.matching_variants(H, D.entropy_variants(A), torch.float64) == ["entropy_summed_over_queries"]


def test_rank_as_a_sum_of_ranks_is_named_in_both_answers() -> None:
    q11 = _hidden("q11")
    for test, got in ((q11.test_max_rank_S, 16), (q11.test_rank_S_lesson, 6)):
        with pytest.raises(Misconception) as named:
            test.test_func(got)
        assert named.value.key == "rank_sum_of_ranks"


# --- seventh round (blind10's kinds) ------------------------------------------------------------------

def _fresh_cache() -> Any:
    """A mask builder that caches by T alone (the first call's dtype wins), run through the engine's proxy."""
    cache: dict[int, torch.Tensor] = {}

    def build(T: int, dtype: torch.dtype, device: str | None = None) -> torch.Tensor:
        if T not in cache:
            cache[T] = torch.zeros(T, T, dtype=dtype).masked_fill(torch.ones(T, T, dtype=torch.bool).triu(1),
                                                                  torch.finfo(dtype).min)
        return cache[T]
    return TrustedProxy(build, "cpu")


def test_a_mask_cached_by_size_is_named_only_from_a_fresh_call_order() -> None:
    from reference import attention_pipeline as ref
    D = _hidden("_diagnose")
    fn = _fresh_cache()
    M = fn(6, torch.float32)
    with pytest.raises(Misconception) as named:
        D.raise_if_mask_cached(fn, fn(6, torch.float64), 6, torch.float64)
    assert named.value.key == "mask_cached_by_size"
    # a mask built in float32 whatever is asked (no state): the fresh float64 call is float32 too, not named
    fixed = TrustedProxy(lambda T, dtype, device=None: ref.causal_additive_mask(T, torch.float32), "cpu")
    D.raise_if_mask_cached(fixed, M, 6, torch.float64)


def test_blind10_kinds_are_apart_from_the_right_answer_and_each_other() -> None:
    from reference import attention_pipeline as ref
    D = _hidden("_diagnose")
    g = torch.Generator().manual_seed(2)
    S = torch.randn(5, 8, generator=g, dtype=torch.float64)
    Z = S - S.amax(dim=-2, keepdim=True)
    col = Z.exp() / Z.exp().sum(dim=-1, keepdim=True)
    assert checks.matching_variants(col, D.weights_variants(S), torch.float64) == ["softmax_shift_wrong_axis"]
    for T in range(4, 10):    # q09 draws T from 4..9: leaving the diagonal out matches only its own key
        W = torch.ones(T, T, dtype=torch.float64).tril(-1)
        variants = {**ref.prefix_average_variants(T), **D.prefix_average_variants(T)}
        got = checks.matching_variants(W / W.sum(-1, keepdim=True), variants, torch.float64)
        assert got == ["prefix_average_excludes_self"], (T, got)
    A = ref.attention_weights(torch.randn(3, 6, 6, generator=g, dtype=torch.float64),
                              ref.causal_additive_mask(6, torch.float64))
    H = ref.row_entropy_bits(A)
    variants = {**ref.effective_tokens_variants(A), **D.effective_tokens_variants(A)}
    assert checks.matching_variants(2 * H, variants, torch.float64, expected=2.0 ** H) == ["effective_tokens_times_two"]
    X = torch.randn(5, 7, generator=g, dtype=torch.float64)
    W3 = [torch.randn(7, d, generator=g, dtype=torch.float64) for d in (12, 12, 6)]
    wrong = D.qkv_variants(X, *W3)
    Xn = torch.nn.functional.layer_norm(X, (7,))
    assert D.whole_key(tuple(Xn @ w for w in W3), wrong, tuple(X @ w for w in W3), torch.float64) \
        == "layer_norm_before_projection"


def test_swapped_product_is_named_only_from_a_square_rerun_that_matches_it() -> None:
    """naming12 (blind11 q08): q @ K for K @ q crashes unless T = d_k; the re-run on T = d_k = d_v names
    it, and a crash whose square re-run is simply right (a shape check of its own) is not named."""
    import math

    from autograder.errors import StudentCodeError
    D = _hidden("_diagnose")
    q = torch.randn(12, generator=torch.Generator().manual_seed(3), dtype=torch.float64)
    e = StudentCodeError("RuntimeError", "mat1 and mat2 shapes cannot be multiplied (1x12 and 7x12)")

    def swapped(q, K, V):
        w = torch.exp(q @ K / math.sqrt(q.shape[0]))
        return (w[:, None] * V).sum(0) / w.sum()

    with pytest.raises(Misconception) as named:
        D.raise_if_operands_swapped(TrustedProxy(swapped, "cpu"), e, q)
    assert named.value.key == "nw_operands_swapped"
    right = TrustedProxy(lambda q, K, V: torch.softmax(K @ q / math.sqrt(q.shape[0]), 0) @ V, "cpu")
    D.raise_if_operands_swapped(right, e, q)


def test_width_arithmetic_forms_are_apart_on_the_q12_widths() -> None:
    """naming12 (blind11 q12): the wrong arithmetic of the widths is named only when its count is the
    only catalogued one; on the widths q12 draws no two of its forms coincide."""
    q12 = _hidden("q12")
    rng = torch.Generator().manual_seed(0)
    for _ in range(50):
        d_model, d_k, d_v = q12._dims(rng)
        forms = list(q12._width_arithmetic(d_model, d_k, d_v).values())
        assert len(set(forms)) == len(forms)
    with pytest.raises(Misconception) as named:
        q12._check(384 * 64 * 80, 384, 64, 80, False)
    assert named.value.key == "param_count_widths_arithmetic"
    q12._check(384 * (2 * 64 + 80), 384, 64, 80, False)     # right: nothing said


def test_naming12_layout_kinds_match_only_their_own_output() -> None:
    """naming12: Q @ K (K not transposed) on the square re-run q02 draws, and tril(diagonal=1) for the
    prefix average on every T q09 draws, each match their own key and no other."""
    from reference import attention_pipeline as ref
    D = _hidden("_diagnose")
    g = torch.Generator().manual_seed(4)
    for n in (12, 16):
        Q, K = (torch.randn(n, n, generator=g, dtype=torch.float64) for _ in range(2))
        variants = {**ref.scores_variants(Q, K), **D.scores_variants(Q, K)}
        got = checks.matching_variants(Q @ K / n ** 0.5, variants, torch.float64)
        assert got == ["scores_keys_not_transposed"], (n, got)
    for T in range(4, 10):
        W = torch.ones(T, T, dtype=torch.float64).tril(1)
        variants = {**ref.prefix_average_variants(T), **D.prefix_average_variants(T)}
        got = checks.matching_variants(W / W.sum(-1, keepdim=True), variants, torch.float64)
        assert got == ["causal_includes_next"], (T, got)


def test_naming13_fused_split_is_named_only_from_the_probe_widths() -> None:
    """naming13: the fused projection cut with split(d_model), chunk(3) or tensor_split(3) is named from a
    re-run on FUSED_PROBE's widths; the right split([d_k, d_k, d_v]) names nothing. On the test's widths
    cuts that give the same widths (28 columns: split(10) and chunk(3)) are both dropped."""
    D = _hidden("_diagnose")
    fused = [lambda X, *W: (X @ torch.cat(W, -1)).split(W[0].shape[0], -1),
             lambda X, *W: (X @ torch.cat(W, -1)).chunk(3, -1),
             lambda X, *W: (X @ torch.cat(W, -1)).tensor_split(3, -1)]
    for fn in fused:
        assert D.fused_split_crash(fn, torch.float64) == "fused_projection_split"
    right = lambda X, *W: (X @ torch.cat(W, -1)).split([W[0].shape[1], W[1].shape[1], W[2].shape[1]], -1)  # noqa: E731
    assert D.fused_split_crash(right, torch.float32) is None
    g = torch.Generator().manual_seed(0)
    X = torch.randn(6, 10, generator=g, dtype=torch.float64)
    W = [torch.randn(10, w, generator=g, dtype=torch.float64) for w in (12, 12, 4)]
    assert set(D.fused_split_variants(X, *W)) == {"fused_projection_split/tensor_split"}


def test_naming14_batch_axis_softmax_is_told_from_the_implicit_dim_by_a_2d_call() -> None:
    """naming14: A = softmax over dim 0 of batched scores is softmax_over_batch_axis when a 2-D call gives
    dim 0 too (dim=0 written out), softmax_implicit_dim when the 2-D call is right, and nothing otherwise;
    the input-scale factors keep only lengths no other length equals."""
    D = _hidden("_diagnose")
    g = torch.Generator().manual_seed(1)
    S = torch.randn(2, 4, 7, generator=g, dtype=torch.float64)
    wrong = {"softmax_implicit_dim": (torch.softmax(S, 0), torch.softmax(S, 0))}
    A = torch.softmax(S, 0)
    pair = lambda dim: lambda: (None, torch.softmax(S[0], dim))  # noqa: E731
    assert D.batched_dim0_key(A, wrong, pair(0), S[0], torch.float64)[0] == "softmax_over_batch_axis"
    assert D.batched_dim0_key(A, wrong, pair(-1), S[0], torch.float64)[0] == "softmax_implicit_dim"
    assert D.batched_dim0_key(A, wrong, lambda: (None, S[0]), S[0], torch.float64)[0] is None
    assert D.batched_dim0_key(torch.softmax(S, -1), wrong, pair(0), S[0], torch.float64)[0] == ""
    X = torch.randn(6, 4, generator=g, dtype=torch.float64)   # d_v = 4 = d_model: neither is a factor
    W = [torch.randn(4, w, generator=g, dtype=torch.float64) for w in (12, 12, 4)]
    keys = {k for k in D.qkv_variants(X, *W) if k.startswith("inputs_scaled_before_projection/")}
    assert keys and not any("d_model" in k or "d_v" in k for k in keys)


# --- naming17 (blind15's kinds) --------------------------------------------------------------------------

def _project_named(body: Any, X: torch.Tensor, W: tuple[torch.Tensor, ...]) -> str | None:
    """The key raise_if_weights_unused names for `body` as project_qkv (None: nothing), run as a student's."""
    D = _hidden("_diagnose")
    fn = TrustedProxy(body, "cpu")
    try:
        D.raise_if_weights_unused(fn, X, W, fn(X, *W), X.dtype)
    except Misconception as m:
        return m.key
    return None


def test_naming17_weights_unused_only_when_more_calls_show_the_output_ignores_them() -> None:
    """Fixed (an identity, a seeded layer) and random (fresh nn.Linear, randn) weights are named; code that
    does use its weights, however wrongly (a norm after the projection: deterministic and blind to W's
    scale; dropout or a random bias: random, but growing with W; one matrix for two parts), never is."""
    g = torch.Generator().manual_seed(17)
    X = torch.randn(7, 9, generator=g, dtype=torch.float64)
    W = tuple(torch.randn(9, n, generator=g, dtype=torch.float64) for n in (12, 12, 5))

    def seeded(X, *W):
        torch.manual_seed(0)
        return tuple(torch.nn.Linear(w.shape[0], w.shape[1], bias=False).double()(X).detach() for w in W)

    unused = {
        "identity": lambda X, *W: tuple(X @ torch.eye(X.shape[-1], w.shape[-1], dtype=X.dtype) for w in W),
        "seeded": seeded,
        "fresh": lambda X, *W: tuple(torch.nn.Linear(w.shape[0], w.shape[1], bias=False).double()(X).detach()
                                     for w in W),
        "randn": lambda X, *W: tuple(X @ torch.randn(w.shape, dtype=X.dtype) for w in W),
    }
    for name, body in unused.items():
        assert _project_named(body, X, W) == "given_weights_unused", name
    used = {
        "right": lambda X, *W: tuple(X @ w for w in W),
        "norm_after": lambda X, *W: tuple(torch.nn.functional.layer_norm(X @ w, (w.shape[-1],)) for w in W),
        "dropout": lambda X, *W: tuple(torch.nn.functional.dropout(X @ w, 0.5) for w in W),
        "random_bias": lambda X, *W: tuple(X @ w + torch.randn(w.shape[-1], dtype=X.dtype) for w in W),
        "same_projection": lambda X, *W: (X @ W[0], X @ W[0], X @ W[2]),
    }
    for name, body in used.items():
        assert _project_named(body, X, W) is None, name


def test_naming17_values_averaged_over_keys_only_where_T_is_no_other_size() -> None:
    """The weighted values averaged over the keys is the right row / T: a variant of its own on q08's
    shapes (T = 7 and 6, and 4..10 with d_v = 4 except T = 4), apart from every other variant; with
    T = d_v it is dropped, and the generic message gives both readings of the factor."""
    from reference import attention_pipeline as ref
    D = _hidden("_diagnose")
    g = torch.Generator().manual_seed(3)
    for T, d_v in [(7, 5), (6, 4), *((t, 4) for t in range(4, 11))]:
        q = torch.randn(12, generator=g, dtype=torch.float64)
        K, V = (torch.randn(T, n, generator=g, dtype=torch.float64) for n in (12, d_v))
        right = ref.nadaraya_watson(q, K, V)
        wrong = {**ref.nw_variants(q, K, V, right / T), **D.nw_variants(q, K, V)}
        hits = checks.matching_variants(right / T, wrong, torch.float64, expected=right)
        assert hits == ([] if T == d_v else ["values_averaged_over_keys"]), (T, hits)
        sizes = {"T": T, "d_k": 12, "d_v": d_v}
        said = D.factor_words(right / T, right, torch.float64, sizes)
        assert said == (f"1/T (T = {T}) or 1/d_v (d_v = {d_v})" if T == d_v else f"1/T (T = {T})")
        assert D.factor_words(right, right, torch.float64, sizes) is None
        assert D.factor_words(right * 1.37, right, torch.float64, sizes) is None


def test_naming17_rank_arithmetic_maps_each_reading_once() -> None:
    """max_rank_S from arithmetic of T = 100 and d_k = 8: each reading its own value, none equal to the
    right 8 or to a value another key names (100: T; 16: rank Q + rank K; 4: the lesson's d_k)."""
    q11 = _hidden("q11")
    readings = q11.size_arithmetic(100, 8)
    assert {92, 108, 800, 10000, 64, 12, 13, 7} == set(readings)
    for got in readings:
        with pytest.raises(Misconception) as named:
            q11.test_max_rank_S.test_func(got)
        assert named.value.key == "rank_from_size_arithmetic"
        assert f"max_rank_S is {got}, " in str(named.value)
    q11.test_max_rank_S.test_func(8)
    assert 16 not in q11.size_arithmetic(4, 8)   # T^2 = 2 d_k there: rank_sum_of_ranks keeps it
