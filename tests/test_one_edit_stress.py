"""one_edit_fix must not report an edit that only passes the tests' inputs (repair._stress_held, round 86).

blind86's online / blockwise softmax code was told one_edit_fix by edits that remove the student's numerical safeguard
(`s` for `s - run`: the shift dropped) or freeze a running max at its first block's value: right on every recorded
call, whose scores are moderate, and no fix. Each fix found is now run again on the recorded calls with their floating
tensors scaled up (x40, x1000), beside the reference and the student's own function: a copy that answers inf/NaN in a
part of the answer where both of those stay finite is dropped. Right fixes of ordinary slips are still told, in code
that shifts (`-1` for `0` in the max's axis) and in code that never does (`/` for `*` before an unshifted exp, where
the student's own function overflows as much on the stressed calls).
"""
from __future__ import annotations

from autograder.grading.grader import Grader
from tests.heldout.harness import assert_lost, assert_named, graded_as

SDPA = "scaled_dot_product_attention"
_sdpa = graded_as("sdpa-from-scratch", "one_edit_stress")
_scaled = graded_as("scaled-attention", "one_edit_stress")

_MASKED = ("def scaled_dot_product_attention(Q, K, V, mask=None):\n"
           "    s = Q @ K.transpose(-2, -1) / math.sqrt(Q.size(-1))\n"
           "    if mask is not None:\n        s = s.masked_fill(~mask, float('-inf'))\n")
_NORMALISED = ("    tot = e.sum(dim=-1, keepdim=True)\n"
               "    w = e / torch.where(tot == 0, torch.ones_like(tot), tot)\n    return w @ V\n")


def _one_edit_messages(outcome) -> list[str]:
    return [m for _q, _t, k, m in assert_lost(outcome) if k == "one_edit_fix"]


# --- compensating edits: right on the recorded calls, overflowing where the student's code and the reference do not --

def test_shift_by_a_running_max_is_not_mended_by_dropping_the_shift(grader: Grader) -> None:
    # each score shifted by the running max of the keys before it (stable, and wrong): dropping the shift, or
    # shifting by the mask, was told one_edit_fix; both overflow once the scores are large
    cell = (_MASKED + "    run = torch.cummax(s, dim=-1).values\n"
            "    run = torch.where(torch.isneginf(run), torch.zeros_like(run), run)\n"
            "    e = torch.exp(s - run)\n" + _NORMALISED)
    told = _one_edit_messages(_sdpa(grader, {SDPA: cell}))
    assert not told, told


def test_unrescaled_running_sum_is_not_mended_by_freezing_the_max(grader: Grader) -> None:
    # an online softmax whose running sum l is never rescaled: `m` (or `m_new`, `safe`) for the block's max `b` keeps
    # the running max at the first block's value, and exp(block - m) overflows on the stressed calls
    cell = ("def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    s = Q @ K.transpose(-2, -1) / math.sqrt(Q.size(-1))\n"
            "    if mask is not None:\n        s = s.masked_fill(~mask, float('-inf'))\n"
            "    m = l = acc = None\n"
            "    for start in range(0, s.size(-1), 4):\n"
            "        blk = s[..., start:start + 4]\n"
            "        b = blk.amax(dim=-1, keepdim=True)\n"
            "        m_new = b if m is None else torch.maximum(m, b)\n"
            "        safe = torch.where(torch.isneginf(m_new), torch.zeros_like(m_new), m_new)\n"
            "        p = torch.exp(blk - safe)\n"
            "        pv = p @ V[..., start:start + 4, :]\n"
            "        if m is None:\n"
            "            l, acc = p.sum(dim=-1, keepdim=True), pv\n"
            "        else:\n"
            "            old = torch.where(torch.isneginf(m), torch.zeros_like(m), m)\n"
            "            alpha = torch.exp(old - safe)\n"
            "            l = l + p.sum(dim=-1, keepdim=True)\n"
            "            acc = alpha * acc + pv\n"
            "        m = m_new\n"
            "    return acc / torch.where(l == 0, torch.ones_like(l), l)\n")
    told = _one_edit_messages(_sdpa(grader, {SDPA: cell}))
    frozen = ("`m` in place of `b`", "`m_new` in place of `b`", "`safe` in place of `b`", "`Q` in place of `blk`")
    assert not any(f in m for m in told for f in frozen), told


# --- right fixes of ordinary slips are still told ----------------------------------------------------------------------

def test_max_over_the_batch_axis_is_still_told_its_axis(grader: Grader) -> None:
    cell = (_MASKED + "    top = s.amax(dim=0, keepdim=True)\n"
            "    top = torch.where(torch.isneginf(top), torch.zeros_like(top), top)\n"
            "    e = torch.exp(s - top)\n" + _NORMALISED)
    failed = assert_named(_sdpa(grader, {SDPA: cell}), "one_edit_fix", "q5", also=("softmax_max_wrong_axis",))
    assert any("`-1` in place of `0`" in m for _q, _t, k, m in failed if k == "one_edit_fix"), failed


def test_multiplied_scale_before_an_unshifted_exp_is_still_told(grader: Grader) -> None:
    # no shift at all: on the stressed calls the fix overflows, and so does the student's own function: kept
    cell = {"attention": "def attention(Q, K, V, d_k):\n    scores = (Q @ K.T) * math.sqrt(d_k)\n"
                         "    e = torch.exp(scores)\n    weights = e / e.sum(dim=-1, keepdim=True)\n"
                         "    return weights @ V, weights\n"}
    failed = assert_named(_scaled(grader, cell), "one_edit_fix", "q1", also=("multiply_by_sqrt_dk",))
    assert any("`Q @ K.T / math.sqrt(d_k)`" in m for _q, _t, k, m in failed if k == "one_edit_fix"), failed


def test_value_slice_after_an_unshifted_exp_is_still_told(grader: Grader) -> None:
    cell = ("def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    s = Q @ K.transpose(-2, -1) / math.sqrt(Q.size(-1))\n    e = torch.exp(s)\n"
            "    if mask is not None:\n        e = e * mask\n"
            "    tot = e.sum(dim=-1, keepdim=True)\n"
            "    w = e / torch.where(tot == 0, torch.ones_like(tot), tot)\n    return w @ V[..., :1, :]\n")
    failed = assert_named(_sdpa(grader, {SDPA: cell}), "one_edit_fix", "q5")
    assert all("`V[..., :]` in place of `V[..., :1, :]`" in m for _q, _t, _k, m in failed), failed


def test_an_edit_right_on_every_row_of_probabilities_is_still_told(grader: Grader) -> None:
    # the binary entropy's complement term added to a row entropy: `A > 1` for `A < 1` drops it on every row of
    # weights (each value in [0, 1]) and is told; weights are not stressed (x40 they are no weights, and the edit
    # would break only there)
    cell = {"row_entropy_bits": "def row_entropy_bits(A):\n"
                                "    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))\n"
                                "    comp = torch.where(A < 1, (1 - A) * torch.log2(1 - A), torch.zeros_like(A))\n"
                                "    return -(A * logs).sum(dim=-1) - comp.sum(dim=-1)\n\n\n"
                                "def effective_tokens(A):\n    return 2.0 ** row_entropy_bits(A)\n"}
    failed = assert_named(graded_as("attention-pipeline", "one_edit_stress")(grader, cell), "one_edit_fix", "q10")
    assert any("`A > 1` in place of `A < 1`" in m for _q, _t, k, m in failed if k == "one_edit_fix"), failed
