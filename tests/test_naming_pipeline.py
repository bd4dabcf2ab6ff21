"""Naming in scaled-attention and attention-pipeline (issue 21), checked on the reference alone, without
the sandbox: on the shapes the hidden tests use, no two catalogued mistakes give the same numbers and
none gives the right ones (a coincidence names the wrong mistake, or names one that is not there);
every wrong multiple-choice letter has its reason; the cause of a NaN is told from its pattern; a
Gaussian kernel is recognised whatever its width, and never the right smoother. The graded variants,
each expected to be named, are in tests/heldout/<slug>/variants.py (tests/test_heldout.py)."""
from __future__ import annotations

import importlib.util
import math
from itertools import combinations
from pathlib import Path

import pytest
import torch

from autograder.grading.hidden import read_misconceptions
from reference import attention_pipeline as ap
from reference import scaled_attention as sa

ROOT = Path(__file__).resolve().parents[1]


def _texts(slug: str) -> dict[str, str]:
    return read_misconceptions(ROOT / "assignments" / slug / "hidden" / "_misconceptions.py")


def _r(*shape: int, seed: int = 0) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)


def _same(a: torch.Tensor | None, b: torch.Tensor | None) -> bool:
    return (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) and a.shape == b.shape
            and bool(torch.allclose(a, b, rtol=1e-11, atol=1e-11, equal_nan=True)))  # float64 test tolerance is 1e-10


def _apart(variants: dict[str, torch.Tensor | None], right: torch.Tensor) -> list[str]:
    """The pairs of different mistakes (and mistakes and the right answer) that coincide."""
    items = [(k, v) for k, v in variants.items() if isinstance(v, torch.Tensor)]
    clash = [f"{k} == right" for k, v in items if _same(v, right)]
    clash += [f"{a} == {b}" for (a, x), (b, y) in combinations(items, 2)
              if a.split("/")[0] != b.split("/")[0] and _same(x, y)]
    return clash


# scaled-attention q1's value cases: (T_q, T_k, d_k, d_v)
SCALED_Q1_SHAPES = [(5, 7, 12, 10), (6, 4, 12, 5), (6, 6, 16, 10), (6, 6, 12, 5), (7, 7, 16, 4)]


@pytest.mark.parametrize("shape", SCALED_Q1_SHAPES)
@pytest.mark.parametrize("part", ["output", "weights"])
def test_scaled_attention_mistakes_are_apart_on_the_test_shapes(shape, part):
    T_q, T_k, d_k, d_v = shape
    Q, K, V = _r(T_q, d_k, seed=1), _r(T_k, d_k, seed=2), _r(T_k, d_v, seed=3)
    right = sa.attention(Q, K, V, d_k)[{"output": 0, "weights": 1}[part]]
    variants = sa.wrong_variants(Q, K, V, d_k, part)
    assert not _apart(variants, right)


def test_a_coincidence_of_shapes_is_not_offered_as_evidence():
    # d_k = 16: sqrt(16) = 4 exactly, in float32 and as an integer: neither mistake can show
    Q, K, V = _r(6, 16), _r(6, 16, seed=1), _r(6, 10, seed=2)
    offered = sa.wrong_variants(Q, K, V, 16, "weights")
    assert "float32_scale" not in offered and "integer_sqrt_scale" not in offered
    # the old shapes of test_float64_weights: d_v = 9 makes sqrt(d_v) = 3 = isqrt(12), the two clash
    Q, K, V = _r(5, 12), _r(7, 12, seed=1), _r(7, 9, seed=2)
    assert "scale_by_d_v == integer_sqrt_scale" in _apart(sa.wrong_variants(Q, K, V, 12, "weights"),
                                                    sa.attention(Q, K, V, 12)[1])


def test_pipeline_mistakes_are_apart_on_the_test_shapes():
    # q02: S of (5, 12) against (8, 12)
    Q, K = _r(5, 12), _r(8, 12, seed=1)
    assert not _apart(ap.scores_variants(Q, K), ap.scaled_scores(Q, K))
    # q07: self-attention, T = 10 (not 9: sqrt(9) = 3 = isqrt(12)), 6, batched T = 8, and float16's T = 5
    for T, d_model, d_v, causal in ((10, 7, 5, True), (6, 7, 5, False), (8, 10, 6, True), (5, 10, 6, False)):
        X = _r(T, d_model)
        W = [_r(d_model, d, seed=s) / math.sqrt(d_model) for s, d in ((1, 12), (2, 12), (3, d_v))]
        O, A = ap.self_attention(X, *W, causal=causal)
        wrong = ap.self_attention_variants(X, *W, causal=causal)
        assert not _apart({k: v[1] for k, v in wrong.items()
                           if k not in ("output_uses_weights_transposed",)}, A)
        assert not _apart({k: v[0] for k, v in wrong.items()}, O)
    # q13: cross-attention, T_k = 10 (not 9), and T_q == T_k
    for T_q, T_k in ((5, 10), (6, 6)):
        X, Y = _r(T_q, 7), _r(T_k, 7, seed=4)
        W = [_r(7, d, seed=s) / math.sqrt(7) for s, d in ((1, 12), (2, 12), (3, 5))]
        O, A = ap.cross_attention(X, Y, *W)
        wrong = ap.cross_attention_variants(X, Y, *W)
        assert not _apart({k: v[1] for k, v in wrong.items()
                           if k not in ("output_uses_weights_transposed",)}, A)
        assert not _apart({k: v[0] for k, v in wrong.items()}, O)
    # q09: the prefix-average matrix
    for T in range(4, 10):
        assert not _apart(ap.prefix_average_variants(T), ap.prefix_average_matrix(T))
    # q04: each wrong mask blocks a different pattern
    patterns = {k: (v != 0) for k, v in ap.mask_variants(7, torch.float64).items() if k != "infinite_mask"}
    right = ap.causal_additive_mask(7, torch.float64) != 0
    assert all(not torch.equal(p, right) for p in patterns.values())
    assert all(not torch.equal(a, b) for a, b in combinations(patterns.values(), 2))


def test_the_integer_sqrt_at_d_k_12_is_apart_from_every_sequence_length_the_tests_use():
    # scale_by_T (sqrt of a length) and integer_sqrt_scale (3) coincide when a length is 9 (the d_k = 12 cases)
    lengths = {"q1": (5, 7, 6, 4), "q02": (5, 8), "q07": (10, 6, 8, 16, 5), "q13": (5, 10, 6, 4, 7)}
    assert all(math.isqrt(12) != math.sqrt(n) for ns in lengths.values() for n in ns)


@pytest.mark.parametrize("module, table, slug", [
    (sa, "MCQ_MISCONCEPTIONS", "scaled-attention"), (ap, "MCQ_MISCONCEPTIONS", "attention-pipeline")])
def test_every_wrong_choice_has_a_reason(module, table, slug):
    texts = _texts(slug)
    answers = {"q5_answer": "ABCD", "q6_answer": "ABCD", "q7_answer": "ABCD"} if slug == "scaled-attention" \
        else {name: "abcd" for name in ("ans_scale", "ans_mask", "ans_cross_shapes", "ans_cross_causal",
                                        "ans_complexity")}
    mapping = getattr(module, table)
    assert set(mapping) == set(answers)
    for name, letters in answers.items():
        right = getattr(module, name)
        assert right not in mapping[name]
        assert set(mapping[name]) == set(letters) - {right}, f"{name}: a wrong letter with no reason"
        assert all(key in texts for key in mapping[name].values())


def test_new_keys_have_one_text_in_both_assignments():
    a, b = _texts("scaled-attention"), _texts("attention-pipeline")
    for key in ("integer_sqrt_scale", "keys_are_queries", "output_uses_weights_transposed", "uniform_weights",
                "results_reordered", "entropy_sign"):
        assert key in a and key in b and a[key] == b[key], key


def _load_q05():
    spec = importlib.util.spec_from_file_location("_q05", ROOT / "assignments" / "attention-pipeline" / "hidden" / "q05.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_a_nan_is_named_after_the_softmax_that_gives_it_there():
    q05 = _load_q05()
    S = (torch.randn(3, 4, 9, generator=torch.Generator().manual_seed(5)) * 1000).float()
    S[:, 1] *= 1e-33
    M = torch.zeros(4, 9)
    unstable = q05._unstable_softmaxes(S, M)
    assert not torch.equal(torch.isfinite(unstable["no_max_subtraction"]),
                           torch.isfinite(unstable["global_max_subtraction"]))   # the test input tells them apart
    for key, got in unstable.items():
        if key in ("softmax_max_before_mask", "softmax_shift_clamped"):
            # with nothing blocked (and no row maximum below 0) it is the right softmax; a blocked row and a second
            # call tell it apart (tests/test_naming_attention-pipeline_round66.py and _round84.py, through the sandbox)
            assert torch.isfinite(got).all()
            continue
        with pytest.raises(AssertionError) as e:
            q05.D.raise_if_weights_not_finite(got.clone(), S, M, "A")
        assert getattr(e.value, "key", None) == key
    # NaN somewhere else (one entry of a right answer): said, never named
    wrong = torch.softmax(S + M, dim=-1)
    wrong[0, 0, 0] = float("nan")
    with pytest.raises(AssertionError) as e:
        q05.D.raise_if_weights_not_finite(wrong, S, M, "A")
    assert getattr(e.value, "key", None) is None and "NaN or inf in 1 of" in str(e.value)


@pytest.mark.parametrize("gamma", [0.5, 1 / (2 * math.sqrt(12)), 0.05, 2.0])
def test_a_gaussian_kernel_is_recognised_whatever_its_width(gamma):
    q, K, V = _r(12), _r(7, 12, seed=1), _r(7, 5, seed=2)
    got = ap.gaussian_smoother(q, K, V, gamma)
    fitted = ap.nw_variants(q, K, V, got)["gaussian_kernel"]
    assert torch.allclose(fitted, got, rtol=1e-10, atol=1e-10)


def test_the_right_smoother_and_other_mistakes_are_no_gaussian_kernel():
    q, K, V = _r(12), _r(7, 12, seed=1), _r(7, 5, seed=2)
    for got in [ap.nadaraya_watson(q, K, V), *(v for k, v in ap.nw_variants(q, K, V).items())]:
        fitted = ap.nw_variants(q, K, V, got)["gaussian_kernel"]
        assert not torch.allclose(fitted, got, rtol=1e-10, atol=1e-10)
    assert "gaussian_kernel" not in ap.nw_variants(q, K, V, torch.zeros(4))   # wrong shape: no fit
