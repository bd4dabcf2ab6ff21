"""attention-pipeline, naming round 25 (blind21's kinds): causal=False with a float32 placeholder mask turns
float16 in into float32 out (dtype_changed, on q07's one float16 causal=False call)."""
from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any, Callable

import pytest
import torch

from autograder.errors import StudentCodeError
from autograder.grading.checks import Misconception
from reference import attention_pipeline as ref


def _hidden(name: str) -> Any:
    path = Path(__file__).resolve().parents[1] / "assignments" / "attention-pipeline" / "hidden" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"_naming25_{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _student(fn: Callable[..., Any]) -> Callable[..., Any]:
    """As the harness runs it: an exception of the student's code comes out as StudentCodeError."""
    def proxy(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except (RuntimeError, TypeError, IndexError) as e:
            raise StudentCodeError(type(e).__name__, str(e)) from None
    return proxy


def _self_attention(open_mask: Callable[[torch.Tensor], Any], cast_a: bool = False) -> Callable[..., Any]:
    def self_attention(X: torch.Tensor, W_Q: torch.Tensor, W_K: torch.Tensor, W_V: torch.Tensor,
                       causal: bool = True) -> tuple[torch.Tensor, torch.Tensor]:
        Q, K, V = ref.project_qkv(X, W_Q, W_K, W_V)
        S = ref.scaled_scores(Q, K)
        M = ref.causal_additive_mask(S.shape[-1], S.dtype, S.device) if causal else open_mask(S)
        A = ref.attention_weights(S, M)
        return (A.to(V.dtype) if cast_a else A) @ V, A
    return self_attention


def _run(self_attention: Callable[..., Any]) -> None:
    q07 = _hidden("q07")
    q07.test_batched_float32_and_float16.test_func(
        _student(self_attention), ref.project_qkv, ref.scaled_scores, ref.causal_additive_mask,
        ref.attention_weights, "cpu", torch.Generator().manual_seed(0))


@pytest.mark.parametrize("open_mask, cast_a", [
    (lambda S: torch.zeros(1), False),                           # blind21: the crash of A @ V, proven on float32
    (lambda S: torch.zeros(S.shape[-2:]), True),                 # A float32 with the right values
])
def test_float32_placeholder_mask_without_causal_is_dtype_changed(open_mask: Any, cast_a: bool) -> None:
    with pytest.raises(Misconception) as named:
        _run(_self_attention(open_mask, cast_a))
    assert named.value.key == "dtype_changed"


def test_an_open_mask_in_the_scores_dtype_keeps_the_point() -> None:
    _run(_self_attention(lambda S: S.new_zeros(())))
    _run(_self_attention(lambda S: None))


# --- q05: a row whose keys are all blocked zeroed -----------------------------------------------------------

def _weights_run(fn: Callable[..., Any]) -> None:
    _hidden("q05").test_weights_float64_rectangular_mask.test_func(_student(fn), torch.Generator().manual_seed(0))


def _open_rows_only(S: torch.Tensor, M: torch.Tensor) -> torch.Tensor:      # blind21's `A * has_open_key`
    return torch.softmax(S + M, dim=-1) * (M > torch.finfo(M.dtype).min).any(dim=-1, keepdim=True)


def _keep_mask_after(S: torch.Tensor, M: torch.Tensor) -> torch.Tensor:
    return torch.softmax(S + M, dim=-1) * (M == 0)


def _inf_fill_nan_to_zero(S: torch.Tensor, M: torch.Tensor) -> torch.Tensor:
    return torch.nan_to_num(torch.softmax(S.masked_fill(M != 0, float("-inf")), dim=-1), nan=0.0)


@pytest.mark.parametrize("fn", [_open_rows_only, _keep_mask_after])
def test_a_zeroed_fully_blocked_row_is_zero_after_softmax_by_replay(fn: Any) -> None:
    with pytest.raises(Misconception) as named:
        _weights_run(fn)
    assert named.value.key == "zero_after_softmax" and "row 2" in str(named.value)


def test_the_inf_fill_with_nan_zeroed_is_told_not_named() -> None:
    # zero rows on the first input too, but the -5 probe gives its blocked keys no weight: not the replay
    with pytest.raises(AssertionError) as told:
        _weights_run(_inf_fill_nan_to_zero)
    assert not isinstance(told.value, Misconception) and "all zeros on row 2" in str(told.value)


def test_a_finite_blocked_row_keeps_the_point() -> None:
    _weights_run(ref.attention_weights)
    _weights_run(lambda S, M: torch.exp((S + M) - torch.logsumexp(S + M, dim=-1, keepdim=True)))   # ones there


# --- q01: the fused projection split along split's default axis 0 ---------------------------------------------

def _fused_no_dim(X: torch.Tensor, W_Q: torch.Tensor, W_K: torch.Tensor, W_V: torch.Tensor) -> Any:
    d_k, d_v = W_Q.shape[1], W_V.shape[1]
    return (X @ torch.cat([W_Q, W_K, W_V], dim=1)).split([d_k, d_k, d_v])     # blind21's, dim 0


def _fused_last_dim(X: torch.Tensor, W_Q: torch.Tensor, W_K: torch.Tensor, W_V: torch.Tensor) -> Any:
    d_k, d_v = W_Q.shape[1], W_V.shape[1]
    return (X @ torch.cat([W_Q, W_K, W_V], dim=1)).split([d_k, d_k, d_v], dim=-1)


def test_the_fused_split_on_dim_0_is_named_from_a_call_with_2_dk_plus_dv_tokens() -> None:
    q01 = _hidden("q01")
    for test, args in ((q01.test_project_float64, ()), (q01.test_project_batched_float32, ("cpu",))):
        with pytest.raises(Misconception) as named:
            test.test_func(_student(_fused_no_dim), *args, torch.Generator().manual_seed(0))
        assert named.value.key == "fused_projection_split" and "T = 19 tokens" in str(named.value)
        test.test_func(_student(_fused_last_dim), *args, torch.Generator().manual_seed(0))


def test_another_crash_is_not_called_a_fused_split() -> None:
    def two_d_only(X: torch.Tensor, W_Q: torch.Tensor, W_K: torch.Tensor, W_V: torch.Tensor) -> Any:
        return tuple(torch.mm(X, W) for W in (W_Q, W_K, W_V))        # runs on 2-D X, the probe's: right there
    from autograder.grading.checks import randn
    X = randn((4, 6), torch.Generator().manual_seed(1))
    W = [randn((6, 3), torch.Generator().manual_seed(i)) for i in range(3)]
    D = _hidden("_diagnose")
    e = StudentCodeError("RuntimeError", "boom")
    assert D.fused_split_axis_crash(e, _student(two_d_only), torch.float32) is None
    assert D.fused_split_axis_crash(e, _student(lambda *a: ref.project_qkv(*a)), X.dtype) is None
    assert len(two_d_only(X, *W)) == 3


# --- q02: keys transposed on axes 2 and 3 (4-D inputs only) ---------------------------------------------------

def test_scores_for_four_dims_only_are_named_on_2_d_inputs_by_two_added_axes() -> None:
    q02 = _hidden("q02")

    def axes_2_3(Q: torch.Tensor, K: torch.Tensor) -> torch.Tensor:     # blind21's
        return torch.matmul(Q / Q.shape[-1] ** 0.5, K.transpose(2, 3))

    with pytest.raises(Misconception) as named:
        q02.test_scores_float64_rectangular.test_func(_student(axes_2_3), torch.Generator().manual_seed(0))
    assert named.value.key == "batched_input_unsupported" and "2 batch axes added" in str(named.value)

    def wrong_on_4d(Q: torch.Tensor, K: torch.Tensor) -> torch.Tensor:  # runs on 4-D, and is wrong there: not named
        return torch.matmul(Q, K.transpose(2, 3))

    with pytest.raises(AssertionError) as told:
        q02.test_scores_float64_rectangular.test_func(_student(wrong_on_4d), torch.Generator().manual_seed(0))
    assert getattr(told.value, "key", None) != "batched_input_unsupported"


# --- q04: the full mask returned whole (M.triu(1) not assigned) ------------------------------------------------

def test_a_full_mask_blocked_at_t_1_too_is_mask_blocks_nothing() -> None:
    q04 = _hidden("q04")

    def dropped(T: int, dtype: torch.dtype, device: Any = None) -> torch.Tensor:     # blind21's
        M = torch.full((T, T), torch.finfo(dtype).min, dtype=dtype, device=device)
        M.triu(diagonal=1)
        return M

    def index_pair(T: int, dtype: torch.dtype, device: Any = None) -> torch.Tensor:  # 0 at T = 1: not this
        M = torch.zeros(T, T, dtype=dtype, device=device)
        M[torch.triu_indices(T, T, 1)] = torch.finfo(dtype).min
        return M

    with pytest.raises(Misconception) as named:
        q04.test_mask_pattern.test_func(_student(dropped), "cpu", torch.Generator().manual_seed(0))
    assert named.value.key == "mask_blocks_nothing" and "1 x 1 mask" in str(named.value)
    with pytest.raises(Misconception) as other:
        q04.test_mask_pattern.test_func(_student(index_pair), "cpu", torch.Generator().manual_seed(0))
    assert other.value.key == "mask_index_tensor_as_one_index"
