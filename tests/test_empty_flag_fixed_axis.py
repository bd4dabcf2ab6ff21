"""The flag for queries without an allowed key reduced over a fixed axis (mask.any(dim=1)): right for a 2-D mask, the
query axis of a batched one, so a batch's fully masked queries keep NaN (blind85's q5, told only the NaN). Named
empty_flag_fixed_axis from a second call on the first sequence alone with its 2-D mask, which is right."""
from __future__ import annotations

import pytest

from tests.heldout.harness import assert_full_marks, assert_named, failed_keys, graded_as

_sdpa = graded_as("sdpa-from-scratch", "empty_flag_fixed_axis")


def _attention(flag: str | None) -> dict[str, str]:
    """sdpa's attention, right, with its empty-row flag `flag` (None: no zeroing step at all)."""
    zero = "" if flag is None else f"        has_key = {flag}\n        w = torch.where(has_key, w, torch.zeros_like(w))\n"
    return {"scaled_dot_product_attention": (
        "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
        "    s = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])\n"
        "    if mask is not None:\n        s = s.masked_fill(~mask, float('-inf'))\n"
        "    w = stable_softmax(s, dim=-1)\n"
        "    if mask is not None:\n" + (zero or "        pass\n") + "    return w @ V\n")}


@pytest.mark.parametrize("flag", ["torch.any(mask, 1, keepdim=True)", "mask.sum(dim=1, keepdim=True) > 0"],
                         ids=["any_dim_1", "sum_dim_1"])
def test_a_flag_over_axis_one_is_named(grader, flag):
    failed = assert_named(_sdpa(grader, _attention(flag)), "empty_flag_fixed_axis", "q5")
    assert {t for _, t, _, _ in failed} == {"test_fully_masked_rows"}, failed


def test_no_flag_at_all_is_not_told_a_fixed_axis(grader):
    keys = failed_keys(_sdpa(grader, _attention(None)))
    assert "fully_masked_nan" in keys and "empty_flag_fixed_axis" not in keys, keys


@pytest.mark.parametrize("flag", ["mask.any(dim=-1, keepdim=True)", "mask.sum(-1, keepdim=True) > 0"],
                         ids=["any_last", "sum_last"])
def test_a_flag_over_the_last_axis_keeps_full_marks(grader, flag):
    assert_full_marks(_sdpa(grader, _attention(flag)))


def test_a_write_into_a_copy_right_in_2d_is_not_told_a_fixed_axis(grader):
    # the weights made keys-first are no contiguous tensor: reshape copies them with a batch (the write is lost) and
    # not in 2-D, where the second call is right; no reduction over axis 1 in the source, so no fixed axis (blind84)
    cells = {"scaled_dot_product_attention": (
        "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
        "    s = K @ Q.transpose(-2, -1) / math.sqrt(Q.shape[-1])\n"
        "    if mask is not None:\n        s = s.masked_fill(~mask.transpose(-2, -1), float('-inf'))\n"
        "    w = stable_softmax(s, dim=-2).transpose(-2, -1)\n"
        "    if mask is not None:\n"
        "        dead = ~mask.expand(w.shape).reshape(-1, w.shape[-1]).any(-1)\n"
        "        w.reshape(-1, w.shape[-1])[dead] = 0.0\n"
        "    return w @ V\n")}
    keys = failed_keys(_sdpa(grader, cells))
    assert keys and "empty_flag_fixed_axis" not in keys, keys
