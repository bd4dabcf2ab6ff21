"""Two wrong pipeline answers that scored full marks (blind85, code that fits the example the student ran): the tests
had no call where the values are wider than the keys, nor a smoother over one key. test_project_batched_float32 now
has d_v > d_k, test_nw_is_attention_row also asks for row 0 (one key); each slip loses its point and is named."""
from __future__ import annotations

import pytest

from tests.heldout.harness import assert_lost, assert_named, failed_keys, graded_as
from tests.heldout.measure import load_blind

_pipe = graded_as("attention-pipeline", "off_the_tests_shapes")
_BLIND85 = {v.name: v for v in load_blind("attention-pipeline", "blind85")}

SPLIT_BY_D_K = {"project_qkv": "def project_qkv(X, W_Q, W_K, W_V):\n"
                               "    W = torch.cat([W_Q, W_K, W_V], dim=-1)\n"
                               "    Q, K, V = (X @ W).split(W_Q.shape[-1], dim=-1)\n"
                               "    return Q, K, V\n"}
STACKED = {"project_qkv": "def project_qkv(X, W_Q, W_K, W_V):\n"
                          "    Q, K, V = (X @ torch.stack([W_Q, W_K, W_V])).unbind(-3)\n"
                          "    return Q, K, V\n"}


@pytest.mark.parametrize("cells, key, test", [
    (_BLIND85["q01_fused_qkv_weight_split_in_d_k_wide_pieces"].cells, "fused_split_by_key_width",
     "test_project_batched_float32"),
    (SPLIT_BY_D_K, "fused_split_by_key_width", "test_project_batched_float32"),
    (_BLIND85["q08_kernel_squeezed_collapses_to_a_scalar_with_one_key"].cells, "length_one_handled_differently",
     "test_nw_is_attention_row"),
], ids=["blind85_split", "split_by_d_k", "blind85_squeezed_kernel"])
def test_a_slip_off_the_tests_shapes_loses_its_point_and_is_named(grader, cells, key, test):
    failed = assert_named(_pipe(grader, cells), key)
    assert {t for _, t, _, _ in failed} == {test}, failed


def test_stacked_weights_are_not_told_a_split(grader):
    # stacking needs equal widths: it crashes with d_v < d_k as well, so the narrower re-run shows no split
    keys = failed_keys(_pipe(grader, STACKED))
    assert "fused_split_by_key_width" not in keys and "qkv_stacked" in keys, keys


# The scan after round 84 (c76ca45): the new d_v > d_k case let a stacked-weights patch run, and round 84's copies
# read fired on attention_weights' own broadcast of M
CUT_TO_STACK = {"project_qkv": "def project_qkv(X, W_Q, W_K, W_V):\n"
                               "    d_k = W_K.shape[-1]\n"
                               "    W = torch.stack([W_Q, W_K, W_V[..., :d_k]])   # stack needs equal widths\n"
                               "    Q, K, V = (X.unsqueeze(-3) @ W).unbind(-3)\n"
                               "    return Q, K, V\n"}
MASK_QUERY_AXIS = {"attention_weights": "def attention_weights(S, M=None):\n"
                                        "    if M is not None:\n"
                                        "        S = S + M.unsqueeze(-2)   # a (batch, keys) padding mask\n"
                                        "    return torch.softmax(S, dim=-1)\n"}


def test_values_cut_to_the_key_width_to_stack_are_named(grader):
    failed = assert_lost(_pipe(grader, CUT_TO_STACK))
    said = {t: k for _, t, k, _ in failed}
    assert said.get("test_project_batched_float32") == "value_width_cut_to_d_k", failed


def test_a_mask_given_a_query_axis_is_not_a_batch_axis_assumed(grader):
    # with the float16 test's all-zero M every copy is right: the copies read is self_attention's only
    keys = failed_keys(_pipe(grader, MASK_QUERY_AXIS))
    assert keys and "batch_axis_assumed" not in keys, keys
