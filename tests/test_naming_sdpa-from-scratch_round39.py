"""sdpa-from-scratch, naming round 39 (after blind38): five kinds that were generic and one partly named: the batch
axis written None as Keras prints it (batch_axis_left_none); the q2 scores taken of standardised Q and K
(scores_of_standardised_inputs); a softmax shift clamped at 0 (shift_clamped_at_zero, from a float64 probe); causal
positions compared as fractions of each length (positions_as_fractions); causal offsets in uint8 that wrap round
(mask_offsets_wrap_unsigned, from causal_mask(260)); and the scale rounded to float32 (np.float32(1 / sqrt(d_k))) named float32_scale,
also where its error is below float32_precision's threshold. Each kind is graded through the sandbox on two variants of its own,
with correct neighbours that keep full marks."""
from __future__ import annotations

import pytest
import torch

from autograder.grading.checks import Misconception
from tests.heldout.harness import graded_as
from tests.hidden_modules import load

diag = load("sdpa-from-scratch", "_diagnose", "_test_sdpa_round39_diagnose")


def _key(f, *args, **kwargs):
    try:
        f(*args, **kwargs)
    except Misconception as named:
        return named.key
    return None


# --- unit: the second calls tell the slip from its neighbours ---------------------------------------------------

def _clamped(x, dim=-1):
    e = torch.exp(x - x.amax(dim=dim, keepdim=True).clamp(min=0))
    return e / e.sum(dim=dim, keepdim=True)


def _abs_max(x, dim=-1):       # a shift by the largest |x|: NaN on the probe's last row too
    e = torch.exp(x - x.abs().amax(dim=dim, keepdim=True))
    return e / e.sum(dim=dim, keepdim=True)


def _unshifted(x, dim=-1):
    e = torch.exp(x)
    return e / e.sum(dim=dim, keepdim=True)


def test_clamped_shift_told_from_other_shifts():
    assert _key(diag.name_shift_clamped_at_zero, _clamped, "x") == "shift_clamped_at_zero"
    for other in (_abs_max, _unshifted, lambda x, dim=-1: torch.softmax(x, dim)):
        assert _key(diag.name_shift_clamped_at_zero, other, "x") is None


def _uint8_offsets(T_q, T_k=None):
    T_k = T_q if T_k is None else T_k
    return (torch.arange(T_k, dtype=torch.uint8)[None, :] - torch.arange(T_q, dtype=torch.uint8)[:, None]) <= 0


def test_uint8_offsets_told_from_an_equality_mask():
    assert _key(diag.name_unsigned_offsets, _uint8_offsets, "x") == "mask_offsets_wrap_unsigned"
    diagonal = lambda T_q, T_k=None: torch.arange(T_q if T_k is None else T_k)[None, :] == torch.arange(T_q)[:, None]  # noqa: E731
    assert _key(diag.name_unsigned_offsets, diagonal, "x") is None


# --- through the sandbox ---------------------------------------------------------------------------------------------

H = "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
SM = "def stable_softmax(x, dim=-1):\n"
CM = "def causal_mask(T_q, T_k=None):\n    if T_k is None:\n        T_k = T_q\n"
Q2 = "{body}raw_score_var = torch.var(s).item()\nscaled_score_var = torch.var(s / math.sqrt(8)).item()\nscale_divisor = 8.0\n"
SDPA = (H + "    d_k = Q.shape[-1]\n{scale}"
        "    scores = Q @ K.transpose(-2, -1) {op}\n"
        "    if mask is not None:\n"
        "        scores = scores.masked_fill(~mask, float('-inf'))\n"
        "    w = stable_softmax(scores, dim=-1)\n"
        "    if mask is not None:\n"
        "        w = torch.where(mask.any(dim=-1, keepdim=True), w, torch.zeros_like(w))\n"
        "    return w @ V\n")

WRONG = {
    "batch_axis_left_none": (("q1",), [
        {"weights_shape": "weights_shape = [None, 10, 10]\nout_shape = [None, 10, 128]\n"},
        {"weights_shape": "batch = None   # any batch size\nweights_shape = (batch,) + (10, 10)\n"
                          "out_shape = (batch, *(10, 128))\n"},
    ]),
    "scores_of_standardised_inputs": (("q2",), [
        {"raw_score_var": Q2.format(body="def z(t):\n    return (t - t.mean(-1, keepdim=True)) / t.std(-1, keepdim=True)\n"
                                         "s = z(Q) @ z(K).transpose(-2, -1)\n")},
        {"raw_score_var": Q2.format(body="norm = torch.nn.LayerNorm(8, elementwise_affine=False)\n"
                                         "s = norm(Q) @ norm(K).mT\n")},
        {"raw_score_var": Q2.format(body="s = torch.nn.functional.layer_norm(Q, Q.shape[-1:]) @ K.transpose(1, 2)\n")},
    ]),
    "shift_clamped_at_zero": (("q3", "q5", "q6"), [
        {"stable_softmax": SM + "    m = torch.clamp(x.amax(dim=dim, keepdim=True), min=0)\n    e = torch.exp(x - m)\n"
                                "    return e / e.sum(dim=dim, keepdim=True)\n"},
        {"stable_softmax": SM + "    m = x.max(dim=dim, keepdim=True).values\n"
                                "    m = torch.where(m > 0, m, torch.zeros_like(m))\n"
                                "    e = (x - m).exp()\n    return e / e.sum(dim, keepdim=True)\n"},
    ]),
    "positions_as_fractions": (("q4", "q5"), [
        {"causal_mask": CM + "    q = torch.arange(T_q).float()[:, None] / T_q\n"
                             "    k = torch.arange(T_k).float()[None, :] / T_k\n    return k <= q\n"},
        {"causal_mask": CM + "    rel_q = torch.linspace(0.0, 1.0, steps=T_q, dtype=torch.float64)\n"
                             "    rel_k = torch.linspace(0.0, 1.0, steps=T_k, dtype=torch.float64)\n"
                             "    return rel_k.unsqueeze(0) <= rel_q.unsqueeze(1)\n"},
    ]),
    "mask_offsets_wrap_unsigned": (("q4", "q5", "q6"), [
        {"causal_mask": CM + "    i = torch.arange(T_q).byte()[:, None]\n    j = torch.arange(T_k).byte()[None, :]\n"
                             "    return (j - i) <= 0\n"},
        {"causal_mask": CM + "    offset = torch.arange(T_k)[None, :] - torch.arange(T_q)[:, None]\n"
                             "    return offset.to(torch.uint8) < 1\n"},
    ]),
    "float32_scale": (("q5",), [
        {"scaled_dot_product_attention": SDPA.format(
            scale="    scale = torch.tensor(1 / math.sqrt(d_k), dtype=torch.float32).item()\n", op="* scale")},
        {"scaled_dot_product_attention": "import numpy as np\n\n" + SDPA.format(
            scale="    inv = np.float32(1.0) / np.sqrt(np.float32(d_k))\n", op="* inv")},
    ]),
}

CORRECT = [
    {"weights_shape": "B = 4\nweights_shape = (B, 10, 10)\nout_shape = tuple([B, 10, 128])\n"},
    {"raw_score_var": Q2.format(body="s = Q @ K.transpose(-2, -1)\n")},
    {"stable_softmax": SM + "    m = x.max(dim=dim, keepdim=True)[0]\n    e = (x - m).exp()\n"
                            "    return e / e.sum(dim, keepdim=True)\n"},
    {"causal_mask": CM + "    return torch.ones(T_q, T_k, dtype=torch.bool).tril()\n"},
    {"causal_mask": CM + "    offset = torch.arange(T_k)[None, :] - torch.arange(T_q)[:, None]\n    return offset <= 0\n"},
    {"scaled_dot_product_attention": "import numpy as np\n\n" + SDPA.format(scale="    scale = 1.0 / np.sqrt(d_k)\n",
                                                                            op="* scale")},
]


_graded = graded_as("sdpa-from-scratch", "round39")


@pytest.mark.parametrize("key, where, cells", [(k, w, c) for k, (w, cs) in WRONG.items() for c in cs],
                         ids=[f"{k}-{i}" for k, (_w, cs) in WRONG.items() for i in range(len(cs))])
def test_each_kind_is_named_through_the_sandbox(grader, key, where, cells):
    outcome = _graded(grader, cells)
    assert outcome.status == "graded" and outcome.failed, outcome.explain()
    assert all(q in where and k == key for q, _t, k, _m in outcome.failed), outcome.explain()


@pytest.mark.parametrize("cells", CORRECT, ids=[next(iter(c)) for c in CORRECT])
def test_correct_neighbours_keep_full_marks(grader, cells):
    outcome = _graded(grader, cells)
    assert outcome.full_marks, outcome.explain()
