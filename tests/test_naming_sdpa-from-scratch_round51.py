"""sdpa-from-scratch, naming round 51 (after blind51, and older generic ones): a softmax shifted by each row's
second-largest entry (kthvalue(n - 1), sort()[..., -2], topk(2)[..., 1]) is shift_not_row_max, told apart from one
global max by two one-row probes (the top two 80 apart: right; 95 apart: the replay's NaN), and one global max is now
named only where the probe's output IS the global-max replay; q1 shapes equal to those of the notebook's own examples
(the batched (2, 5, 8) running example, the 3-token trace) are shape_of_running_example; e typed as 2.718 in q3's
softmax is e_rounded, replayed on the test's input (blind46); q6's causal weights divided by a running sum along the
keys (cumsum) are causal_cumsum_denominator (blind46). Each kind is graded through the sandbox on variants of its
own, with correct neighbours at full marks."""
from __future__ import annotations

import pytest
import torch

from autograder.grading.checks import tolerances
from tests.heldout.harness import graded_as
from tests.hidden_modules import load

diag = load("sdpa-from-scratch", "_diagnose", "_test_sdpa_round51_diagnose")
ref = diag.ref

SM = "def stable_softmax(x, dim=-1):\n"
TRACE = "scores3 = Q3 @ K3.T / math.sqrt(4)\nweights3 = stable_softmax(scores3, dim=-1)\nout3 = weights3 @ V3\n"


def _softmax(shift):
    def softmax(x, dim=-1):
        e = torch.exp(x - shift(x, dim))
        return e / e.sum(dim=dim, keepdim=True)
    return softmax


def _attention(softmax):
    def sdpa(Q, K, V, mask=None):
        s = Q @ K.transpose(-2, -1) / Q.shape[-1] ** 0.5
        if mask is not None:
            s = s.masked_fill(~mask, float("-inf"))
        return softmax(s) @ V
    return sdpa


SECOND = _softmax(lambda x, d: x.kthvalue(x.shape[d] - 1, dim=d, keepdim=True).values)
GLOBAL = _softmax(lambda x, d: x.max())
RIGHT = _softmax(lambda x, d: x.amax(d, keepdim=True))
MEDIAN = _softmax(lambda x, d: x.median(dim=d, keepdim=True).values)


# --- unit: the probes and replays ---------------------------------------------------------------------------------

def test_the_second_largest_probes_separate_it_from_the_max_and_the_global_max():
    near, far = diag.SECOND_LARGEST_PROBES
    assert torch.isfinite(diag.second_largest_softmax(near)).all()
    assert torch.isnan(diag.second_largest_softmax(far)).any()
    for p in (near, far):       # one global max over one row is its own: right on both
        assert torch.allclose(diag.global_max_softmax(p).double(), ref.stable_softmax(p.double(), dim=-1))


@pytest.mark.parametrize("softmax, key", [(SECOND, "shift_not_row_max"), (GLOBAL, "global_max_subtraction"),
                                          (RIGHT, ""), (MEDIAN, "softmax_subtracts_median")])
def test_each_shift_is_said_by_its_own_replay(softmax, key):
    assert diag.q3_softmax_shift(softmax) == key
    assert diag.softmax_shift(_attention(softmax)) == key


def test_a_global_max_needs_its_replay_on_the_probe():
    out = GLOBAL(ref.SOFTMAX_PROBE.clone())
    assert diag.global_replay_matches(out, ref.SOFTMAX_PROBE)
    assert not diag.global_replay_matches(SECOND(ref.SOFTMAX_PROBE.clone()), ref.SOFTMAX_PROBE)   # [0, 0, NaN]
    assert diag.second_largest_replay_matches(SECOND(ref.SOFTMAX_PROBE.clone()), ref.SOFTMAX_PROBE)


def test_example_shapes_are_the_notebooks_and_never_the_questions():
    shapes = diag.example_shapes()
    assert set(shapes["weights_shape"]) == {(2, 5, 5), (3, 3)}
    assert set(shapes["out_shape"]) == {(2, 5, 8), (3, 2)}
    diag.name_example_shape((4, 10, 10), ref.weights_shape, "weights_shape")       # right: nothing
    diag.name_example_shape((2, 5, 8), ref.weights_shape, "weights_shape")         # the example's Q, not weights


def test_typed_e_replays_are_never_the_right_softmax():
    for dtype in (torch.float64, torch.float32):
        x = torch.randn(3, 5, 7, dtype=dtype, generator=torch.Generator().manual_seed(5)) * 3
        right = ref.stable_softmax(x.double(), dim=-1)
        out = diag.typed_e_softmaxes(x)
        assert "e_rounded/2.7" in out and ("e_rounded/2.718" in out or dtype != torch.float64)
        rtol, atol = tolerances(dtype)      # each more than 3 tolerances from the right weights
        assert all(float((w.double() - right).abs().max()) > 3 * (rtol + atol) for w in out.values())


# --- through the sandbox ------------------------------------------------------------------------------------------

WRONG = {
    "shift_not_row_max": (("q5",), "second-largest", [
        {"stable_softmax": SM + "    s = x.sort(dim=dim, descending=True).values\n"
                                "    top = s.select(dim, 1).unsqueeze(dim)\n"
                                "    e = torch.exp(x - top)\n    return e / e.sum(dim=dim, keepdim=True)\n"},
        {"stable_softmax": SM + "    m = x.topk(2, dim=dim).values.narrow(dim, 1, 1)\n"
                                "    z = (x - m).exp()\n    return z / z.sum(dim, keepdim=True)\n"},
        {"stable_softmax": SM + "    n = x.shape[dim]\n    m, _ = torch.kthvalue(x, n - 1, dim, True)\n"
                                "    z = torch.exp(x - m)\n    return z / torch.sum(z, dim=dim, keepdim=True)\n"},
    ]),
    "shape_of_running_example": (("q1",), "the notebook's", [
        {"weights_shape": "B, T, d = 2, 5, 8\nweights_shape = (B, T, T)\nout_shape = (B, T, d)\n"},
        {"weights_shape": "weights_shape = (3, 3)\nout_shape = (3, 2)\n"},
        {"weights_shape": "weights_shape = (4, 10, 10)\nout_shape = [2, 5, 8]\n"},
    ]),
    "e_rounded": (("q3", "q5", "q6"), "2.718", [
        {"stable_softmax": SM + "    z = 2.718 ** (x - x.amax(dim=dim, keepdim=True))\n"
                                "    return z / z.sum(dim=dim, keepdim=True)\n"},
        {"stable_softmax": "E = 2.7\n" + SM + "    z = torch.pow(E, x - x.max(dim, keepdim=True).values)\n"
                                              "    return z / z.sum(dim, keepdim=True)\n"},
    ]),
    "causal_cumsum_denominator": (("q6",), "e.cumsum", [
        {"weights3": TRACE + "e = torch.exp(scores3.masked_fill(~causal_mask(3), float('-inf')))\n"
                             "weights3_causal = e / e.cumsum(1)\n"},
        {"weights3": TRACE + "ex = (scores3 - scores3.max(-1, keepdim=True).values).exp() * causal_mask(3)\n"
                             "weights3_causal = ex / torch.cumsum(ex, dim=-1)\n"},
    ]),
}

CORRECT = [
    {"stable_softmax": SM + "    m = x.kthvalue(x.shape[dim], dim=dim, keepdim=True).values\n"
                            "    z = torch.exp(x - m)\n    return z / z.sum(dim=dim, keepdim=True)\n"},
    {"stable_softmax": SM + "    m = x.topk(1, dim=dim).values\n    z = torch.exp(x - m)\n"
                            "    return z / z.sum(dim=dim, keepdim=True)\n"},
    {"stable_softmax": "import math\n" + SM + "    z = math.e ** (x - x.amax(dim=dim, keepdim=True))\n"
                                              "    return z / z.sum(dim=dim, keepdim=True)\n"},
    {"weights_shape": "B, T = 4, 10\nweights_shape = (B, T, T)\nout_shape = (B, T, 2 * 64)\n"},
    {"weights3": TRACE + "ex = scores3.exp() * causal_mask(3)\nweights3_causal = ex / ex.cumsum(-1)[:, -1:]\n"},
]


_graded = graded_as("sdpa-from-scratch", "round51")


@pytest.mark.parametrize("key, where, words, cells", [(k, w, s, c) for k, (w, s, cs) in WRONG.items() for c in cs],
                         ids=[f"{k}-{i}" for k, (_w, _s, cs) in WRONG.items() for i in range(len(cs))])
def test_each_kind_is_named_through_the_sandbox(grader, key, where, words, cells):
    outcome = _graded(grader, cells)
    assert outcome.status == "graded" and outcome.failed, outcome.explain()
    named = [(q, m) for q, _t, k, m in outcome.failed if k == key]
    assert named and all(q in where for q, _m in named), outcome.explain()
    assert all(words in m for _q, m in named), outcome.explain()
    # no other catalogued key on any failure: the dependency's one_edit_fix (a one-token fix at its place) or
    # nothing (a generic message)
    assert all(k in (key, None, "one_edit_fix") for _q, _t, k, _m in outcome.failed), outcome.explain()


def test_the_second_largest_shift_is_never_called_a_global_max(grader):
    outcome = _graded(grader, WRONG["shift_not_row_max"][2][0])
    assert [k for _q, t, k, _m in outcome.failed if t == "test_float16_large_scores"] == ["shift_not_row_max"], \
        outcome.explain()


def test_the_examples_q_shape_as_weights_stays_unnamed(grader):
    outcome = _graded(grader, {"weights_shape": "weights_shape = (2, 5, 8)\nout_shape = (2, 5, 5)\n"})
    assert [(t, k) for _q, t, k, _m in outcome.failed] == [("test_weights_shape", None), ("test_out_shape", None)], \
        outcome.explain()


@pytest.mark.parametrize("cells", CORRECT, ids=[f"{next(iter(c))}-{i}" for i, c in enumerate(CORRECT)])
def test_correct_neighbours_keep_full_marks(grader, cells):
    outcome = _graded(grader, cells)
    assert outcome.full_marks, outcome.explain()
