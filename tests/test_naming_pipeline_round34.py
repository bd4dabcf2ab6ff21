"""attention-pipeline, naming round 34 (blind33's kinds): O mixed with the unmasked softmax while the A returned
is masked is named output_from_unmasked_weights (never when A is unmasked too, or causal=False); scores taken
between the raw inputs (X X^T / sqrt(d_model) or / sqrt(d_k)) are a variant of their own, scores_from_inputs;
a loop over X.shape[0] as batches crashes on unbatched inputs with a (T, T') mask and is named from the same
inputs with a batch axis added to X and Y, the shared mask left as it is."""
from __future__ import annotations

import math
from typing import Any, Callable

import pytest
import torch

from autograder.errors import StudentCodeError
from autograder.grading.checks import Misconception
from reference import attention_pipeline as ref
from tests.hidden_modules import load


D = load("attention-pipeline", "_diagnose", "_naming34__diagnose")


def _inputs(seed: int = 0) -> tuple[torch.Tensor, tuple[torch.Tensor, ...]]:
    g = torch.Generator().manual_seed(seed)
    X = torch.randn(7, 5, generator=g, dtype=torch.float64)
    return X, tuple(torch.randn(5, d, generator=g, dtype=torch.float64) / math.sqrt(5) for d in (6, 6, 4))


def test_output_from_unmasked_weights_only_beside_a_masked_a() -> None:
    X, W = _inputs()
    O_ref, A_ref = ref.self_attention(X, *W)
    Q, K, V = ref.project_qkv(X, *W)
    O_unmasked = torch.softmax(ref.scaled_scores(Q, K), dim=-1) @ V
    with pytest.raises(Misconception) as named:
        D.raise_if_unmasked_scores_as_weights(O_unmasked, O_ref, X, W, True, torch.float64, A=A_ref)
    assert named.value.key == "output_from_unmasked_weights"
    A_unmasked = torch.softmax(ref.scaled_scores(Q, K), dim=-1)     # no mask anywhere: no_causal_mask, not this
    D.raise_if_unmasked_scores_as_weights(O_unmasked, O_ref, X, W, True, torch.float64, A=A_unmasked)
    D.raise_if_unmasked_scores_as_weights(O_unmasked, O_ref, X, W, True, torch.float64)   # no A given
    D.raise_if_unmasked_scores_as_weights(O_unmasked, O_unmasked, X, W, False, torch.float64, A=A_unmasked)
    D.raise_if_unmasked_scores_as_weights(O_ref, O_ref, X, W, True, torch.float64, A=A_ref)   # right: nothing


@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("scale", ["d_model", "d_k"])
def test_scores_from_inputs_is_one_variant_of_self_attention(causal: bool, scale: str) -> None:
    X, W = _inputs(1)
    d = X.shape[-1] if scale == "d_model" else W[0].shape[-1]
    S = X @ X.mT / math.sqrt(d)
    if causal:
        S = S + ref.causal_additive_mask(X.shape[-2], S.dtype)
    A = torch.softmax(S, dim=-1)
    got = (A @ (X @ W[2]), A)
    wrong = {**ref.self_attention_variants(X, *W, causal=causal), **D.self_attention_variants(X, *W, causal=causal)}
    assert D.whole_key(got, wrong, ref.self_attention(X, *W, causal=causal), torch.float64) == "scores_from_inputs"


def _student(fn: Callable[..., Any]) -> Callable[..., Any]:
    def proxy(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except (RuntimeError, TypeError, IndexError) as e:
            raise StudentCodeError(type(e).__name__, str(e)) from None
    return proxy


def _loop_over_batch(X, Y, W_Q, W_K, W_V, M=None):
    outs, weights = [], []
    for b in range(X.shape[0]):
        Q, K, V = X[b] @ W_Q, Y[b] @ W_K, Y[b] @ W_V
        S = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
        A = torch.softmax(S if M is None else S + M, dim=-1)
        outs.append(A @ V)
        weights.append(A)
    return torch.stack(outs), torch.stack(weights)


def test_batch_loop_with_a_shared_mask_is_named_with_the_mask_left_as_it_is() -> None:
    g = torch.Generator().manual_seed(2)
    X, Y = torch.randn(4, 8, generator=g), torch.randn(7, 8, generator=g)
    W = tuple(torch.randn(8, d, generator=g) for d in (6, 6, 5))
    M = torch.zeros(4, 7)
    M[:, 5:] = torch.finfo(torch.float32).min
    fn = _student(_loop_over_batch)
    with pytest.raises(StudentCodeError) as crash:
        fn(X, Y, *W, M)

    def right(t: dict[str, Any], out: object) -> bool:
        return D.all_right(out, ref.cross_attention(t["X"].double(), t["Y"].double(), *(w.double() for w in W),
                                                    t["M"].double()), torch.float32)

    tensors = {"X": X, "Y": Y, "M": M}
    rerun = lambda t: fn(t["X"], t["Y"], *W, t["M"])   # noqa: E731
    assert D.batched_crash(crash.value, tensors, rerun, right, up=True) is None   # the mask batched too: wrong shape
    named = D.batched_crash(crash.value, tensors, rerun, right, up=True, shared=("M",))
    assert named is not None and named.key == "batched_input_unsupported"
    assert "M (4, 7)" in str(named)
