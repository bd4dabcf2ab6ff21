"""sdpa-from-scratch, naming round 38 (after blind37): builtin sum() in the softmax no longer read as a mean shift on
float16 large scores; the mask written in place into one (T_q, T_k) bias (the PyTorch docs' equivalent code) named
for that, not mask_unsqueezed; and five kinds that were generic: a shape given as its number of entries, a variance
divided by a count read off one axis, a causal mask with a sliding window, hard (argmax) attention in the trace, and
T^2 x log2(d_k) multiply-adds. Each kind is graded through the sandbox on two variants of its own, with a correct
neighbour that keeps full marks."""
from __future__ import annotations

import math

import pytest
import torch

from autograder.errors import StudentCodeError
from autograder.grading.checks import Misconception
from reference import sdpa_from_scratch as ref
from tests.heldout.harness import graded_as
from tests.hidden_modules import load

diag = load("sdpa-from-scratch", "_diagnose", "_test_sdpa_round38_diagnose")


def _key(f, *args, **kwargs):
    try:
        f(*args, **kwargs)
    except Misconception as named:
        return named.key
    except AssertionError:
        return "unnamed"
    return None


# --- unit: the mean shift needs the right values on SOFTMAX_PROBE --------------------------------------------------

def _attention(softmax):
    def sdpa(Q, K, V, mask=None):
        s = Q @ K.transpose(-2, -1) / math.sqrt(Q.size(-1))
        if mask is not None:
            s = s.masked_fill(~mask, float("-inf"))
        return softmax(s) @ V
    return sdpa


def _builtin_sum(x, dim=-1):
    e = torch.exp(x - x.amax(dim=dim, keepdim=True))
    return e / sum(e)


def _mean_shift(x, dim=-1):
    e = torch.exp(x - x.mean(dim=dim, keepdim=True))
    return e / e.sum(dim=dim, keepdim=True)


def test_builtin_sum_is_not_a_mean_shift_but_a_mean_shift_still_is():
    assert diag.softmax_shift(_attention(_builtin_sum)) is None
    assert diag.softmax_shift(_attention(_mean_shift)) == "softmax_subtracts_mean"
    assert diag.softmax_shift(_attention(ref.stable_softmax)) == ""


# --- unit: the in-place words with a (T_q, T_k) output only ---------------------------------------------------------

@pytest.mark.parametrize("message, key", [
    ("output with shape [5, 3] doesn't match the broadcast shape [2, 5, 3]", "mask_filled_into_2d_bias"),
    ("output with shape [3, 5] doesn't match the broadcast shape [2, 3, 5]", None),          # not (T_q, T_k)
    ("output with shape [5, 3] doesn't match the broadcast shape [2, 2, 5, 3]", None),       # not (B, T_q, T_k)
    ("The expanded size of the tensor (2) must match the existing size (5) at non-singleton dimension 0", None),
])
def test_in_place_words_named_only_for_a_T_q_by_T_k_output(message, key):
    said = StudentCodeError("RuntimeError", message)
    assert _key(diag.name_mask_written_into_2d, said, (5, 3), "x") == key


# --- through the sandbox ---------------------------------------------------------------------------------------------

H = "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
SM = "def stable_softmax(x, dim=-1):\n"
CM = "def causal_mask(T_q, T_k=None):\n    if T_k is None:\n        T_k = T_q\n"
Q2 = ("d_k = Q.shape[-1]\nraw_scores = Q @ K.transpose(-2, -1)\n{body}\n"
      "raw_score_var = v(raw_scores)\nscaled_score_var = v(raw_scores / math.sqrt(d_k))\nscale_divisor = math.sqrt(64)\n")
Q6 = ("scores3 = Q3 @ K3.T / math.sqrt(4)\n{body}"
      "weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float('-inf')), dim=-1)\n")
Q8 = "T, d_k = 1024, 64\nattn_entries = T * T\nscore_madds = {madds}\ncost_ratio = 4\n"

WRONG = {
    "softmax_sum_wrong_axis": (("q3", "q5", "q6"), [
        {"stable_softmax": SM + "    m = x.amax(dim=dim, keepdim=True)\n    e = (x - m).exp()\n    return e / sum(e)\n"},
        {"stable_softmax": SM + "    e = torch.exp(x - x.max(dim, keepdim=True)[0])\n    total = sum(e.unbind(0))\n"
                                "    return e / total\n"},
    ]),
    "mask_filled_into_2d_bias": (("q5",), [
        {"scaled_dot_product_attention": H +
         "    T_q, T_k = Q.shape[-2], K.shape[-2]\n"
         "    bias = torch.zeros(T_q, T_k, dtype=Q.dtype, device=Q.device)\n"
         "    if mask is not None:\n"
         "        bias += torch.where(mask, 0.0, float('-inf')).to(Q.dtype)\n"
         "    w = stable_softmax(Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1]) + bias, dim=-1)\n"
         "    if mask is not None:\n"
         "        w = torch.where(mask.any(dim=-1, keepdim=True), w, torch.zeros_like(w))\n"
         "    return w @ V\n"},
        {"scaled_dot_product_attention": H +
         "    s = torch.matmul(Q, K.transpose(-1, -2)) / Q.shape[-1] ** 0.5\n"
         "    if mask is not None:\n"
         "        b = s.new_zeros(s.shape[-2:])\n"
         "        b.masked_fill_(mask == 0, float('-inf'))\n"
         "        s = s + b\n"
         "    w = stable_softmax(s, dim=-1)\n"
         "    if mask is not None:\n"
         "        w = w.masked_fill(~mask.any(-1, keepdim=True), 0.0)\n"
         "    return w @ V\n"},
    ]),
    "shape_as_entry_count": (("q1",), [
        {"weights_shape": "weights_shape = torch.empty(4, 10, 10).numel()\nout_shape = torch.empty(4, 10, 128).numel()\n"},
        {"weights_shape": "weights_shape = math.prod((4, 10, 10))\nout_shape = (4, 10, 128)\n"},
    ]),
    "variance_count_from_one_axis": (("q2",), [
        {"raw_score_var": Q2.format(body="def v(t):\n    n = t.size(-1)\n"
                                         "    return float(((t - t.mean()) ** 2).sum() / (n - 1))\n")},
        {"raw_score_var": Q2.format(body="def v(t):\n    d = t - t.mean()\n    return (d * d).sum().item() / len(t)\n")},
    ]),
    "causal_sliding_window": (("q4", "q5"), [
        {"causal_mask": CM + "    ones = torch.ones(T_q, T_k, dtype=torch.bool)\n    return ones.tril() & ~ones.tril(-3)\n"},
        {"causal_mask": CM + "    return torch.ones(T_q, T_k, dtype=torch.bool).tril().triu(-2)\n"},
    ]),
    "hard_attention_argmax": (("q6",), [
        {"weights3": Q6.format(body="weights3 = (scores3 == scores3.max(dim=-1, keepdim=True).values).double()\n"
                                    "weights3 = weights3 / weights3.sum(-1, keepdim=True)\nout3 = weights3 @ V3\n")},
        {"weights3": Q6.format(body="idx = scores3.argmax(-1)\nweights3 = torch.zeros(3, 3, dtype=torch.float64)\n"
                                    "weights3[torch.arange(3), idx] = 1.0\nout3 = V3[idx]\n")},
    ]),
    "madds_with_log2_d_k": (("q8",), [
        {"attn_entries": Q8.format(madds="T * T * int(math.log2(d_k))")},
        {"attn_entries": Q8.format(madds="T * T * (d_k.bit_length() - 1)")},
    ]),
}

CORRECT = [
    {"stable_softmax": SM + "    e = torch.exp(x - x.amax(dim=dim, keepdim=True))\n"
                            "    return e / e.sum(dim=dim, keepdim=True)\n"},
    {"scaled_dot_product_attention": H +
     "    L, S = Q.size(-2), K.size(-2)\n"
     "    attn_bias = torch.zeros(L, S, dtype=Q.dtype, device=Q.device)\n"
     "    if mask is not None:\n"
     "        attn_bias = attn_bias.masked_fill(mask.logical_not(), float('-inf'))\n"
     "    w = stable_softmax(Q @ K.transpose(-2, -1) / math.sqrt(Q.size(-1)) + attn_bias, dim=-1)\n"
     "    if mask is not None:\n"
     "        w = torch.where(mask.any(dim=-1, keepdim=True), w, 0.0)\n"
     "    return w @ V\n"},
    {"weights_shape": "weights_shape = tuple(torch.Size([4, 10, 10]))\nout_shape = (4, 10, int(torch.tensor(128)))\n"},
    {"raw_score_var": Q2.format(body="def v(t):\n    n = t.numel()\n"
                                     "    return (((t - t.mean()) ** 2).sum() / (n - 1)).item()\n")},
    {"causal_mask": CM + "    return torch.arange(T_k)[None, :] <= torch.arange(T_q)[:, None]\n"},
    {"weights3": Q6.format(body="weights3 = torch.softmax(scores3, dim=-1)\nout3 = weights3 @ V3\n")},
    {"attn_entries": Q8.format(madds="T * T * d_k")},
]


_graded = graded_as("sdpa-from-scratch", "round38")


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
