"""attention-pipeline, naming round 45 (blind44's kinds).

q07: the output put through a LayerNorm over its features while A is right (a post-norm "Add & Norm": F.layer_norm,
nn.LayerNorm, or a hand-written (O - mean) / std, at any one eps) is output_layer_normalised, replayed on the test's
own (O, A); a norm with another affine weight, or over the whole matrix, is not that replay and is not named so.

q08: the 1/sqrt(d_k) scale applied after exponentiating the raw dot products (exp(K q) ** (1/sqrt(d_k)), in any
spelling) overflows float16 once q.k passes ~11; test_nw_random now has a float16 case at the lesson's head size
(d_k = 64, one raw q.k of 20, 2.5 once scaled) where the notebook's own solution is exact, and the NaN row is
nw_scale_after_exp where the replay is not finite at the same entries and a second call with q scaled down is right.
Correct kernels (softmax, logsumexp, float64 inside and cast back) keep full marks."""
from __future__ import annotations

import pytest

from autograder.grading.grader import Grader
from tests.heldout.harness import assert_full_marks, assert_named, failed_keys, graded_as


SELF = "self_attention"
NW = "nadaraya_watson"
HEAD = "import math\n\nimport torch\nimport torch.nn.functional as F\n\n\n"
PIPE = ("def self_attention(X, W_Q, W_K, W_V, causal=True):\n"
        "    Q, K, V = project_qkv(X, W_Q, W_K, W_V)\n"
        "    S = scaled_scores(Q, K)\n"
        "    A = attention_weights(S, causal_additive_mask(X.shape[-2], S.dtype, S.device) if causal else None)\n"
        "    O = A @ V\n")


_graded = graded_as("attention-pipeline", "round45")


# --- q07: a LayerNorm on the output ---------------------------------------------------------------------------------

@pytest.mark.parametrize("tail", [
    # an nn.LayerNorm module at its defaults (weight 1, bias 0, eps 1e-5)
    "    norm = torch.nn.LayerNorm(O.shape[-1], dtype=O.dtype, device=O.device)\n"
    "    with torch.no_grad():\n        O = norm(O)\n    return O, A\n",
    # by hand, with torch's default (unbiased) std and no eps
    "    return (O - O.mean(-1, keepdim=True)) / O.std(-1, keepdim=True), A\n",
    # F.layer_norm with explicit unit weight, zero bias and eps 1e-6 (the eps the output shows)
    "    d_v = V.shape[-1]\n"
    "    return F.layer_norm(O, (d_v,), torch.ones(d_v, dtype=O.dtype), torch.zeros(d_v, dtype=O.dtype), 1e-6), A\n",
])
def test_output_layer_normalised_is_named(grader: Grader, tail: str) -> None:
    assert_named(_graded(grader, {SELF: HEAD + PIPE + tail}), "output_layer_normalised", {"q07"})


def test_layer_norm_computed_not_returned_keeps_full_marks(grader: Grader) -> None:
    assert_full_marks(_graded(grader, {SELF: HEAD + PIPE + "    _stats = F.layer_norm(O, O.shape[-1:])   # looked at, not returned\n"
                                                           "    return O, A\n"}))


@pytest.mark.parametrize("tail", [
    # an affine weight of 2: not the plain norm's output
    "    return F.layer_norm(O, O.shape[-1:], weight=torch.full(O.shape[-1:], 2.0, dtype=O.dtype)), A\n",
    # normalised over the whole (T, d_v) matrix, not over each row's features
    "    return F.layer_norm(O, O.shape[-2:]), A\n",
])
def test_other_norms_are_not_layer_norm(grader: Grader, tail: str) -> None:
    keys = failed_keys(_graded(grader, {SELF: HEAD + PIPE + tail}))
    assert "output_layer_normalised" not in keys, keys


# --- q08: the scale applied after the exp -------------------------------------------------------------------------

@pytest.mark.parametrize("source", [
    # .pow with d_k ** -0.5, weights normalised then mixed with @
    "def nadaraya_watson(q, K, V):\n"
    "    kappa = torch.exp(K @ q).pow(q.shape[-1] ** -0.5)\n"
    "    w = kappa / kappa.sum()\n"
    "    return w @ V\n",
    # two steps, torch.pow and an einsum
    "def nadaraya_watson(q, K, V):\n"
    "    raw = torch.exp(torch.matmul(K, q))\n"
    "    kappa = torch.pow(raw, 1.0 / math.sqrt(K.shape[1]))\n"
    "    return torch.einsum('t,tv->v', kappa, V) / kappa.sum()\n",
])
def test_scale_after_exp_is_named(grader: Grader, source: str) -> None:
    assert_named(_graded(grader, {NW: HEAD + source}), "nw_scale_after_exp", {"q08"})


@pytest.mark.parametrize("source", [
    "def nadaraya_watson(q, K, V):\n"
    "    return torch.softmax(K @ q / math.sqrt(q.shape[-1]), dim=0) @ V\n",
    "def nadaraya_watson(q, K, V):\n"
    "    s = (K @ q) / math.sqrt(q.shape[-1])\n"
    "    return torch.exp(s - torch.logsumexp(s, dim=0)) @ V\n",
    "def nadaraya_watson(q, K, V):\n"
    "    kappa = torch.exp(K.double() @ q.double() / math.sqrt(q.shape[-1]))\n"
    "    return ((kappa[:, None] * V.double()).sum(0) / kappa.sum()).to(V.dtype)\n",
])
def test_scaled_kernels_keep_full_marks(grader: Grader, source: str) -> None:
    assert_full_marks(_graded(grader, {NW: HEAD + source}))


def test_unscaled_kernel_keeps_its_name(grader: Grader) -> None:
    # no scale at all is wrong in float32 already: no_scale, never the overflow key
    keys = failed_keys(_graded(grader, {NW: HEAD + "def nadaraya_watson(q, K, V):\n    kappa = torch.exp(K @ q)\n"
                                                   "    return (kappa[:, None] * V).sum(0) / kappa.sum()\n"}))
    assert keys == {"no_scale"}, keys
