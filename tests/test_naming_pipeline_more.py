"""attention-pipeline's diagnoses beyond the reference's catalogue (issue 21, hidden/_diagnose.py), checked
in-process on the hidden tests' own code with plain Python functions standing in for a student's (run
through the engine's TrustedProxy, so a crash arrives as StudentCodeError as it does from the sandbox):
each crash is named only from a second call that shows its cause, and never when that call does not;
the new variants are apart from each other, from the reference's and from the right answer on the
shapes the tests use; every key they can name has a text. The graded held-out variants, each expected
to be named, are in tests/heldout/attention-pipeline/variants.py (tests/test_heldout.py)."""
from __future__ import annotations

import importlib.util
import math
from itertools import combinations
from pathlib import Path
from types import ModuleType

import pytest
import torch

from autograder.grading.checks import MISCONCEPTIONS as ENGINE_TEXTS
from autograder.grading.checks import Misconception
from autograder.grading.hidden import read_misconceptions
from autograder.grading.otter_format import stand_in
from autograder.grading.runner import TrustedProxy
from reference import attention_pipeline as ap

HIDDEN = Path(__file__).resolve().parents[1] / "assignments" / "attention-pipeline" / "hidden"


def _load(stem: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"_naming_more_{stem}", HIDDEN / f"{stem}.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    with stand_in():
        spec.loader.exec_module(mod)
    return mod


D = _load("_diagnose")


def _r(*shape: int, seed: int = 0, dtype: torch.dtype = torch.float64) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=torch.float64).to(dtype)


def _named(run) -> str | None:
    """The key a check names (None: it fails without a name); the check must fail."""
    with pytest.raises(AssertionError) as e:
        run()
    return getattr(e.value, "key", None)


def _same(a: object, b: object) -> bool:
    return (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) and a.shape == b.shape
            and bool(torch.allclose(a, b, rtol=1e-11, atol=1e-11, equal_nan=True)))


def _clashes(variants: dict, right: torch.Tensor) -> list[str]:
    """Pairs of different mistakes that coincide, and new variants equal to the right answer (a reference
    variant equal to it, such as float32_scale at d_k = 16, is dropped by the tests: checks.matching_variants)."""
    items = [(k, v) for k, v in variants.items() if isinstance(v, torch.Tensor)]
    clash = [f"{k} == right" for k, v in items if _same(v, right) and k in NEW
             and k != "softmax_subtracts_min"]   # the same softmax wherever exp does not overflow
    clash += [f"{a} == {b}" for (a, x), (b, y) in combinations(items, 2)
              if a.split("/")[0] != b.split("/")[0] and _same(x, y)]
    return clash


# --- q05: attention_weights ----------------------------------------------------------------------------

q05 = _load("q05")


def _weights_fn(body):
    return TrustedProxy(body, "cpu")


def test_if_M_on_a_tensor_is_named_only_when_M_none_runs_and_is_right():
    S, M = _r(5, 8), torch.zeros(5, 8, dtype=torch.float64)
    truthy = _weights_fn(lambda S, M=None: torch.softmax(S + M if M else S, dim=-1))
    assert _named(lambda: q05._weights(truthy, S, M, lambda: truthy(S, M))) == "tensor_truthiness"
    # the same error from code that is wrong without a mask too: said, never named
    wrong_anyway = _weights_fn(lambda S, M=None: torch.softmax((S + M if M else S) * 2, dim=-1))
    assert _named(lambda: q05._weights(wrong_anyway, S, M, lambda: wrong_anyway(S, M))) is None


def test_a_row_sum_without_keepdim_is_named_from_a_square_rerun_and_a_plain_crash_is_not():
    S, M = _r(2, 3, 6, 7), None

    def no_keepdim(S, M=None):
        e = torch.exp(S - S.amax(dim=-1, keepdim=True))
        return e / e.sum(dim=-1)
    fn = _weights_fn(no_keepdim)
    assert _named(lambda: q05._weights(fn, S, M, lambda: fn(S, M))) == "sum_without_keepdim"

    def square_only(S, M=None):     # crashes on rectangles, right on squares: nothing to name
        assert S.shape[-1] == S.shape[-2], "square please"
        return torch.softmax(S, dim=-1)
    fn = _weights_fn(square_only)
    assert _named(lambda: q05._weights(fn, S, M, lambda: fn(S, M))) is None


def test_code_for_2d_scores_only_is_named_from_a_slice_that_is_right():
    S = _r(2, 5, 8)
    two_d = _weights_fn(lambda S, M=None: torch.softmax(S.T, dim=0).T if S.dim() == 2 else S.view(-1, 3, 99))
    assert _named(lambda: q05._weights(two_d, S, None, lambda: two_d(S, None))) == "batched_input_unsupported"


def test_softmax_minus_the_row_minimum_is_named_from_where_it_overflows():
    S = (_r(3, 4, 9, seed=5, dtype=torch.float32) * 1000)
    M = torch.zeros(4, 9)
    Z = S + M
    e = torch.exp(Z - Z.amin(dim=-1, keepdim=True))
    with pytest.raises(Misconception) as err:
        q05.D.raise_if_weights_not_finite(e / e.sum(dim=-1, keepdim=True), S, M, "A")
    assert err.value.key == "softmax_subtracts_min"


def test_the_mask_multiplied_by_zeros_is_no_evidence():
    S = _r(4, 6)
    assert "mask_multiplied" not in D.weights_variants(S, torch.zeros(4, 6, dtype=torch.float64))
    assert "mask_multiplied" in D.weights_variants(S, ap.causal_additive_mask(6, torch.float64)[:4])


# --- q02, q07, q13: batched inputs and rectangles -----------------------------------------------------------

def test_K_T_on_batched_scores_is_named_from_a_2d_slice():
    q02 = _load("q02")
    Q, K = _r(3, 6, 16, dtype=torch.float32), _r(3, 6, 16, seed=1, dtype=torch.float32)
    fn = TrustedProxy(lambda Q, K: Q @ K.T / math.sqrt(Q.shape[-1]), "cpu")
    assert _named(lambda: q02._scores(fn, Q, K, lambda: fn(Q, K))) == "batched_input_unsupported"
    # wrong on the 2-D slice as well: the slice does not show the batched mistake, only its own (the
    # unscaled scores the 2-D call returns, a second mistake of the same code)
    fn = TrustedProxy(lambda Q, K: Q @ K.T, "cpu")
    assert _named(lambda: q02._scores(fn, Q, K, lambda: fn(Q, K))) == "no_scale"


def test_values_from_X_in_cross_attention_is_named_from_inputs_of_one_length():
    q13 = _load("q13")
    X, Y = _r(5, 7), _r(10, 7, seed=1)
    W = [_r(7, d, seed=s) / math.sqrt(7) for s, d in ((2, 12), (3, 12), (4, 5))]

    def values_from_x(X, Y, W_Q, W_K, W_V, M=None):
        A = ap.attention_weights(ap.scaled_scores(X @ W_Q, Y @ W_K), M)
        return A @ (X @ W_V), A
    fn = TrustedProxy(values_from_x, "cpu")
    with pytest.raises(Exception) as e:
        fn(X, Y, *W)
    assert q13._crash_named(fn, X, Y, W, None, e.value).key == "cross_roles_swapped"

    def crash_unless_square(X, Y, W_Q, W_K, W_V, M=None):   # right on one length: nothing to name
        assert X.shape[-2] == Y.shape[-2]
        return ap.cross_attention(X, Y, W_Q, W_K, W_V, M)
    fn = TrustedProxy(crash_unless_square, "cpu")
    with pytest.raises(Exception) as e:
        fn(X, Y, *W)
    assert q13._crash_named(fn, X, Y, W, None, e.value) is None


def test_a_whole_answer_names_the_mistake_its_parts_share():
    # keys from X keeps the A of cross_is_self_attention: A alone cannot tell them apart, (O, A) can
    X, Y = _r(6, 7), _r(6, 7, seed=1)
    W = [_r(7, d, seed=s) / math.sqrt(7) for s, d in ((2, 12), (3, 12), (4, 5))]
    wrong = {**ap.cross_attention_variants(X, Y, *W), **D.cross_attention_variants(X, Y, *W)}
    right = ap.cross_attention(X, Y, *W)
    for key in ("cross_is_self_attention", "cross_roles_swapped/keys_from_x", "cross_roles_swapped/values_from_x"):
        assert D.whole_key(wrong[key], wrong, right, torch.float64) == key.split("/")[0]
    assert D.whole_key(right, wrong, right, torch.float64) is None


# --- q04, q09: the mask and the prefix average ----------------------------------------------------------------

def test_a_pattern_for_a_mask_is_named_and_the_right_mask_is_not():
    q04 = _load("q04")
    T = 6
    future = torch.ones(T, T, dtype=torch.bool).triu(1)
    for M in (future, (~future).double(), future.float()):
        assert _named(lambda M=M: q04._raise_if_pattern(M, T, torch.float64)) == "mask_not_additive"
    nan_mask = future.double() * float("-inf")
    assert _named(lambda: q04._raise_if_pattern(nan_mask, T, torch.float64)) == "mask_nan_from_inf"
    # the same NaN pattern in another dtype than the one asked for is not named here (another cause: q04's _get)
    q04._raise_if_pattern(nan_mask.float(), T, torch.float64)
    q04._raise_if_pattern(ap.causal_additive_mask(T, torch.float64), T, torch.float64)        # nothing raised
    q04._raise_if_pattern(torch.zeros(T, T), T, torch.float64)


# --- every new variant is evidence of its own on the tests' shapes ------------------------------------------------

NEW: set[str] = set()


def _new(variants: dict) -> dict:
    NEW.update(variants)
    return variants


def test_new_variants_are_apart_on_the_test_shapes():
    for Q, K in ((_r(5, 12), _r(8, 12, seed=1)), (_r(3, 6, 16), _r(3, 6, 16, seed=1)),
                 (_r(2, 3, 5, 12), _r(2, 3, 7, 12, seed=1)), (_r(3, 2, 6, 12), _r(3, 2, 4, 12, seed=1))):
        both = {**ap.scores_variants(Q, K), **_new(D.scores_variants(Q, K))}
        assert not _clashes(both, ap.scaled_scores(Q, K))
    for S, M in ((_r(5, 8), torch.zeros(5, 8, dtype=torch.float64).masked_fill(_r(5, 8, seed=3) > 0.5, -1e300)),
                 (_r(2, 3, 6, 7), None), (_r(5, 5), None), (_r(5, 5), ap.causal_additive_mask(5, torch.float64))):
        both = {**ap.weights_variants(S, M), **_new(D.weights_variants(S, M))}
        assert not _clashes(both, ap.attention_weights(S, M))
    for T, d_k, d_v in ((7, 12, 5), (6, 12, 4), *((t, 12, 4) for t in range(4, 11))):
        q, K, V = _r(d_k), _r(T, d_k, seed=1), _r(T, d_v, seed=2)
        both = {**ap.nw_variants(q, K, V), **_new(D.nw_variants(q, K, V))}
        assert not _clashes(both, ap.nadaraya_watson(q, K, V))
    for T in range(4, 10):
        both = {**ap.prefix_average_variants(T), **_new(D.prefix_average_variants(T))}
        assert not _clashes(both, ap.prefix_average_matrix(T))
    A = ap.attention_weights(_r(2, 7, 7) * 1.5, ap.causal_additive_mask(7, torch.float64))
    assert not _clashes({**ap.entropy_variants(A), **_new(D.entropy_variants(A))}, ap.row_entropy_bits(A))
    assert not _clashes({**ap.effective_tokens_variants(A), **_new(D.effective_tokens_variants(A))}, ap.effective_tokens(A))
    for T, d_model, d_v, causal in ((10, 7, 5, True), (6, 7, 5, False), (8, 10, 6, True)):
        X = _r(T, d_model)
        W = [_r(d_model, d, seed=s) / math.sqrt(d_model) for s, d in ((1, 12), (2, 12), (3, d_v))]
        O, _ = ap.self_attention(X, *W, causal=causal)
        both = {**ap.self_attention_variants(X, *W, causal=causal), **_new(D.self_attention_variants(X, *W, causal=causal))}
        assert not _clashes({k: v[0] for k, v in both.items()}, O)


def test_every_key_the_diagnoses_can_name_has_a_text():
    texts = read_misconceptions(HIDDEN / "_misconceptions.py")
    X, Y, W = _r(5, 6), _r(5, 6, seed=1), [_r(6, 12), _r(6, 12, seed=2), _r(6, 4, seed=3)]
    S = _r(5, 5)
    keys = set(D.scores_variants(_r(3, 5, 12), _r(3, 7, 12))) | set(D.weights_variants(S, S))
    keys |= set(D.weights_variants(_r(2, 5, 5))) | set(D.self_attention_variants(X, *W))
    keys |= set(D.cross_attention_variants(X, Y, *W)) | set(D.nw_variants(_r(12), _r(7, 12), _r(7, 4)))
    keys |= set(D.prefix_average_variants(5)) | set(D.entropy_variants(S.softmax(-1)))
    keys |= set(D.effective_tokens_variants(S.softmax(-1))) | set(D.qkv_variants(X, *W))
    keys |= {"batched_input_unsupported", "tensor_truthiness", "mask_not_additive", "mask_nan_from_inf",
             "prefix_average_float32"}
    # a key the engine itself describes (checks.MISCONCEPTIONS, e.g. float16_precision) needs no text of its own, as
    # `autograder check` holds it (authoring.misconception_problems)
    missing = {k.split("/")[0] for k in keys} - set(texts) - set(ENGINE_TEXTS)
    assert not missing, sorted(missing)


def test_a_float32_answer_is_named_only_when_right_to_float32():
    want = _r(4, 5)
    assert _named(lambda: D.assert_matches(want.float(), want, what="H")) == "float32_precision"
    assert _named(lambda: D.assert_matches((want * 2).float(), want, what="H")) is None     # its dtype, said
    D.assert_matches(want.float(), want.float(), what="H")                                  # a float32 case


def test_one_tensor_for_a_pair_is_named_only_when_it_is_one_of_the_right_results():
    O, A = _r(4, 3), _r(4, 4, seed=1)
    assert _named(lambda: D.raise_if_one_value(O, (O, A), ("O", "A"), "f", torch.float64)) == "returns_one_value"
    D.raise_if_one_value(O * 2, (O, A), ("O", "A"), "f", torch.float64)                      # nothing to name
    D.raise_if_one_value((O, A), (O, A), ("O", "A"), "f", torch.float64)


# --- issue 21, fourth round: the right values in another container ---------------------------------------

def test_the_right_values_in_another_container_are_named_and_wrong_ones_are_not():
    from autograder.grading.checks import raise_if_other_container

    A = ap.attention_weights(torch.randn(2, 5, 5, dtype=torch.float64), ap.causal_additive_mask(5, torch.float64))
    H = ap.row_entropy_bits(A)                                        # (2, 5)
    for got, key in ((H[..., None], "keepdim_left_on"), (H[:1].reshape(5), "size_one_axis_dropped"),
                     (H.numpy(), "returns_numpy_not_tensor")):
        want = H[:1] if key == "size_one_axis_dropped" else H
        with pytest.raises(Misconception) as e:
            raise_if_other_container(got, want, "H")
        assert e.value.key == key
    raise_if_other_container(H[..., None] + 1, H, "H")              # the wrong values: nothing named
    raise_if_other_container(H.T.contiguous(), H, "H")               # another shape, not a size-1 axis
    raise_if_other_container((H + 1).numpy(), H, "H")
    raise_if_other_container(H, H, "H")


@pytest.mark.parametrize("T", range(4, 10))
def test_prefix_average_mistakes_are_apart_on_every_test_length(T):
    right = ap.prefix_average_matrix(T)
    items = list(ap.prefix_average_variants(T).items())
    assert {"prefix_average_no_tril", "prefix_average_floor_division"} <= {k for k, _ in items}
    assert not any(torch.allclose(v, right) for _, v in items)
    assert not [(a, b) for (a, x), (b, y) in combinations(items, 2) if torch.allclose(x, y)]


@pytest.mark.parametrize("with_output", [False, True])
def test_param_count_precedence_variants_are_apart_and_wrong(with_output):
    rng = torch.Generator().manual_seed(0)
    for _ in range(200):                       # the hidden test's ranges: d_model 20..499, d_k 2..79, d_v > d_k
        d_model = int(torch.randint(20, 500, (1,), generator=rng))
        d_k = int(torch.randint(2, 80, (1,), generator=rng))
        d_v = d_k + int(torch.randint(1, 40, (1,), generator=rng))
        got = ap.param_count_variants(d_model, d_k, d_v, with_output)
        right = ap.qkv_param_count(d_model, d_k, d_v, with_output)
        assert got["param_count_precedence"] == d_model * 2 * d_k + d_v + (d_v * d_model if with_output else 0)
        assert right not in got.values()
        by_value: dict[int, set[str]] = {}
        for key, n in got.items():
            by_value.setdefault(n, set()).add(key.split("/")[0])
        # precedence's own forms meet when d_v = 2 d_k: one key, still named right. (W_V forgotten plus W_O
        # equals W_O left out, the same formula: q12 names neither, as two keys match)
        clash = {n: keys for n, keys in by_value.items() if len(keys) > 1 and "param_count_precedence" in keys}
        assert not clash
