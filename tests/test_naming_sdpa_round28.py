"""sdpa-from-scratch, naming round 28: a multi-head merge (out.transpose(1, 2).view(B, T, -1)) carried into
attention itself is said in words (no key of the catalogue says it), only where the output equals the right
output put through that merge; test_float16_large_scores asks the scale_constant probes too. In-process: the
hidden checks called with trusted proxies of small functions."""
from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import pytest
import torch

from autograder.grading.checks import Misconception
from autograder.grading.runner import TrustedProxy
from reference import sdpa_from_scratch as ref

HIDDEN = Path(__file__).resolve().parents[1] / "assignments" / "sdpa-from-scratch" / "hidden"


def _load_diagnose():
    spec = importlib.util.spec_from_file_location("_test_sdpa_round28_diagnose", HIDDEN / "_diagnose.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


diag = _load_diagnose()


def _merge_nanogpt(Q, K, V, mask=None):
    out = ref.scaled_dot_product_attention(Q, K, V, mask)
    return out.transpose(1, 2).contiguous().view(Q.shape[0], Q.shape[-2], -1)


def _merge_flatten(Q, K, V, mask=None):
    # another code of the same merge: the heads moved behind the queries, then the last two axes flattened
    out = ref.scaled_dot_product_attention(Q, K, V, mask)
    return out.permute(*range(out.dim() - 3), -2, -3, -1).flatten(-2)


def _message(fn, Q, K, V, mask) -> tuple[str | None, str]:
    proxy = TrustedProxy(fn, "cpu")
    try:
        diag.judge(proxy, Q, K, V, mask, proxy(Q, K, V, mask=mask), "the output")
    except Misconception as e:
        return e.key, str(e)
    except AssertionError as e:
        return "", str(e)
    return None, ""


@pytest.mark.parametrize("fn", [_merge_nanogpt, _merge_flatten])
def test_heads_merged_said_in_words(fn) -> None:
    g = torch.Generator().manual_seed(28)
    Q, K, V = (torch.randn(2, 3, 5, 4, generator=g, dtype=torch.float64) for _ in range(3))
    key, said = _message(fn, Q, K, V, torch.rand(5, 5, generator=g) < 0.7)
    assert key == "result_axes_permuted" and "3 heads merged side by side into the feature axis (3 * 4 = 12)" in said


def test_heads_merge_on_3d_inputs_said_as_a_swap() -> None:
    g = torch.Generator().manual_seed(29)
    Q, K = torch.randn(2, 5, 4, generator=g, dtype=torch.float64), torch.randn(2, 6, 4, generator=g, dtype=torch.float64)
    V = torch.randn(2, 6, 3, generator=g, dtype=torch.float64)
    key, said = _message(_merge_nanogpt, Q, K, V, None)
    assert key == "result_axes_permuted" and "last two axes swapped (T_q and d_v)" in said


def test_right_answer_and_other_shapes_not_said_merged() -> None:
    g = torch.Generator().manual_seed(30)
    Q, K, V = (torch.randn(2, 3, 5, 4, generator=g, dtype=torch.float64) for _ in range(3))
    assert _message(ref.scaled_dot_product_attention, Q, K, V, None) == (None, "")
    # the heads' outputs side by side WITHOUT the transpose (a plain reshape of (B, H, T, d)): not this merge
    key, said = _message(lambda q, k, v, mask=None: ref.scaled_dot_product_attention(q, k, v, mask).reshape(2, 5, 12),
                         Q, K, V, None)
    assert "merged side by side" not in said


def test_float16_large_scores_names_a_rank_as_d_k() -> None:
    def rank_as_d_k(Q, K, V, mask=None):
        scores = (Q @ K.transpose(-2, -1)) / math.sqrt(K.dim())
        if mask is not None:
            scores = scores.masked_fill(~mask, float("-inf"))
        return torch.softmax(scores, dim=-1) @ V

    g = torch.Generator().manual_seed(31)
    Q, K, V = (3 * torch.randn(2, 16, 64, generator=g) for _ in range(3))
    Q, K, V = Q.half(), K.half(), V.half()
    mask = torch.rand(16, 16, generator=g) < 0.5
    mask[:, 0] = True
    proxy = TrustedProxy(rank_as_d_k, "cpu")
    with pytest.raises(Misconception) as named:
        diag.judge_large_scores(proxy, Q, K, V, mask, proxy(Q, K, V, mask=mask))
    assert named.value.key == "scale_constant" and "sqrt(3) both times" in str(named.value)


def test_the_softmax_probe_is_asked_once_per_function() -> None:
    """Each standardised-scores variant asks whether the notebook's softmax is right on small logits, on every
    failing test: a round trip into the worker each time. The answer is kept for the last function asked."""
    calls: list[str] = []

    def counted(name, softmax):
        def fn(x, dim=-1):
            calls.append(name)
            return softmax(x, dim=dim)
        return fn

    right, shifted = counted("right", torch.softmax), counted("wrong", lambda x, dim: torch.softmax(x * 2, dim=dim))
    assert diag.softmax_right_on_small_logits(right) and diag.softmax_right_on_small_logits(right)
    assert not diag.softmax_right_on_small_logits(shifted) and not diag.softmax_right_on_small_logits(shifted)
    assert diag.softmax_right_on_small_logits(right)          # asked again after another: asked again
    assert calls == ["right", "wrong", "right"]
    # another thread (another student graded beside this one) never reads this thread's answer
    import threading
    seen: list[bool] = []
    other = threading.Thread(target=lambda: seen.append(diag.softmax_right_on_small_logits(right)))
    other.start()
    other.join()
    assert seen == [True] and calls == ["right", "wrong", "right", "right"]
