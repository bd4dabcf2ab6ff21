"""Red-team round 141: naming round 80's new reads (4fa949b, f75f9e6) attacked as a student and as a class. Repros in
/tmp/rt141/ (r1.py ROOT [CASE...] grades sdpa-from-scratch cells, r6.py and r8.py too, r2.py, r3.py and r5.py the pipeline's,
r4.py scaled-attention's; /tmp/rt141-base is f75f9e6).

- **K @ Q^T swapped back to queries by keys was read as the keys-by-queries layout (sdpa-from-scratch q5).**
  _keys_by_queries_product took any `K @ Q.transpose(..)` in the def: `s = (K @ Q.mT).mT / sqrt(d)`, or
  `st = K @ Q.transpose(-2, -1); s = st.transpose(-2, -1) / ...`, both the usual layout, beside a softmax over dim=-2
  (the real mistake) were told scores_keys_by_queries in 13 q5 tests ("a softmax over their last axis normalises
  over the queries": it does not there; r1.py A_kq_transposed_back_dim-2, A2_kq_named_then_T). A product swapped
  back (directly, through scaling arithmetic, or by the name it is bound to) is now no such layout
  (_transposed_back): softmax_wrong_dim, and one_edit_fix where it applies.
- **Any `x.clone()[..] = ..` in the cell was read as the empty rows' zeroing (sdpa-from-scratch q5).** With no
  zeroing at all (fully_masked_nan), a clone written with 1.0 under `if False:` in the def, or `x.clone()[0] = 0.0` in
  a helper beside it, was told write_into_discarded_copy quoting that line (2 tests; r1.py B_stray_clone_write,
  B2_clone_write_other_helper). The write must now be in scaled_dot_product_attention's own def and a zeroing
  (`= 0`, `*= 0`): fully_masked_nan.
- **A draft `weights3 = torch.stack(.., dim=1)` rebound later was read (sdpa-from-scratch q6).** Every assignment
  to weights3 in the cell was read: a draft stack(dim=1) followed by `weights3 = stable_softmax(scores3, dim=-1).T`
  (the line that ran, a plain transpose) was told rows_stacked_as_columns quoting the draft (r1.py
  C_draft_stack_then_T). Only the cell's last binding of the name is read now.
- **Option c's other reasonings were told "the library scales for you" (attention-pipeline q03).**
  raise_if_scale_said_applied_elsewhere took any comment naming torch with "anyway" / "already" / "default" and a
  scale word: "torch.softmax normalises each row anyway, so the scaling drops out" (the softmax-invariance reasoning),
  "with torch's default init the scores are already tiny, so scaling changes nothing", and a comment trailing an
  experiment's line ("scaled by 1/sqrt(d) already, like torch's sdpa", describing that line) were all told
  scale_assumed_applied_elsewhere (r2.py M1-M3). A comment must be on its own line or after the answer's
  assignment, and not give another reason (normalises, drops out, small/tiny, near zero, init, relative):
  softmax_scale_invariant, the option's key.
- **A column stack beside a transpose was read as the rows stacked as columns (attention-pipeline q09).**
  stacks_as_columns took any stack(dim=1) in prefix_average_matrix's def: columns built as columns
  (`torch.stack(cols, dim=1)`, column j ones from row j down: right) then a final `(M / M.sum(-1, keepdim=True)).T`,
  and `torch.stack(rows, dim=1).T` (rows back as rows) returned as `W.T`, both W_avg transposed by their explicit
  transpose, were told rows_stacked_as_columns quoting the stack (r3.py P1, P2). A def that transposes anything (.T,
  .mT, .t(), transpose, permute, swapaxes, movedim) is no longer read for the stack: upper_triangular_mask, the
  values' key.
- **An in-place clamp on a temporary inside a check was read as clamping S (attention-pipeline q05).**
  check_clamps_in_place took any clamp_ in an assert or if test: `assert torch.isfinite(S.clone().clamp_(-10, 10))
  .all()` (a copy: changes nothing) or `(Z * 1.0).clamp_(..)` in an if test, beside the real mistake
  `S = S.clamp(-10, 10)` on its own line, was told check_mutates_input in 4 q05 tests, quoting the clone ("clamps S
  in place": it does not; r5.py C1, C2). The clamp's receiver must now be a name or a view of one (indexing, .T):
  one_edit_fix now points at the clamp line.
- **An inclusive range written with a number was read as MATLAB's 1:T ported exclusive (sdpa-from-scratch q8).**
  `T = len(range(1, 1025))` (1024 positions: right) then `attn_entries = (T - 1) ** 2` was told
  inclusive_range_ported_exclusive in both q8 tests ("counted over range(1, 1025)"; r6.py R1). A stop written as a
  number must now be T itself (`range(1, 1024)` keeps its key): one_edit_fix points at the `- 1`.
- **A range shifted by + 1 was read as numbered from 0 (sdpa-from-scratch q4).** _position_ranges took
  `torch.arange(T_k)[None, :] + 1` for keys from 0: beside `q = torch.arange(1, T_q + 1)[:, None]` and the real slip
  `k <= q + 1` it was told positions_from_one_on_one_side in 3 q4 tests ("the key positions start at 0": they start
  at 1; r8.py Q1). A range that arithmetic shifts (through indexing and view methods) is no longer read:
  causal_includes_next.

Held (tried, no change): right notebooks keep full marks (every round-80 read runs only after a failure: the keys
read after softmax_wrong_dim, the clone after fully_masked_nan, the stack after weights3 == the right weights
transposed, the comment words only for the wrong letter 'c'); a kept copy written into (`w2 = w.clone(); w2[dead] =
0`) and range(1, T + 1) keep full marks (round 80's own tests); quoted student text in these messages is cut to 60-100
characters and the engine escapes control characters (round 140's d_caret_inject.py); scaled results_cached_by_shape
with a right two-level cache (`_cache[shapes] = {}`, then entries keyed by the values) beside a fixed head slice keeps
mha_head_slice_fixed, and the two-level cache alone keeps full marks (r4.py); _transposed_back and the q6 last-binding
read are bounded (20,000 nodes; 5,000 `K @ Q.mT` lines in one def: 1.8 s with the parse).
"""
from __future__ import annotations

import pytest

from tests.heldout.harness import failed_keys, graded_as

_sdpa = graded_as("sdpa-from-scratch", "redteam141")
_pipe = graded_as("attention-pipeline", "redteam141")


def _attention(lines: str) -> dict[str, str]:
    """sdpa's attention whose scores, masking and weights `w` are `lines`, the empty rows zeroed."""
    return {"scaled_dot_product_attention": (
        "def scaled_dot_product_attention(Q, K, V, mask=None):\n" + lines +
        "    if mask is not None:\n        w = w.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)\n"
        "    return w @ V\n")}


def _unzeroed(lines: str, after: str = "") -> dict[str, str]:
    """sdpa's attention that never zeroes its fully masked rows, with `lines` before the return and `after` the def."""
    return {"scaled_dot_product_attention": (
        "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
        "    s = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])\n"
        "    if mask is not None:\n        s = s.masked_fill(~mask, float('-inf'))\n"
        "    w = stable_softmax(s, dim=-1)\n" + lines + "    return w @ V\n" + after)}


@pytest.mark.parametrize("lines", [
    "    s = (K @ Q.mT).mT / math.sqrt(Q.shape[-1])\n"
    "    if mask is not None:\n        s = s.masked_fill(~mask, float('-inf'))\n"
    "    w = stable_softmax(s, dim=-2)\n",
    "    st = K @ Q.transpose(-2, -1)\n    s = st.transpose(-2, -1) / math.sqrt(Q.shape[-1])\n"
    "    if mask is not None:\n        s = s.masked_fill(~mask, float('-inf'))\n"
    "    w = stable_softmax(s, dim=-2)\n",
], ids=["swapped_back_inline", "swapped_back_by_name"])
def test_keys_by_queries_swapped_back_is_the_softmax_axis(grader, lines):
    keys = failed_keys(_sdpa(grader, _attention(lines)))
    assert "scores_keys_by_queries" not in keys and "softmax_wrong_dim" in keys, keys


@pytest.mark.parametrize("lines, after", [
    ("    if False:\n        s.clone()[0] = 1.0\n", ""),
    ("", "\n\ndef _demo(x):\n    x.clone()[0] = 0.0  # a clone is a copy\n    return x\n"),
], ids=["other_write_in_dead_branch", "zeroing_in_another_def"])
def test_a_clone_write_that_is_not_the_zeroing_keeps_fully_masked_nan(grader, lines, after):
    keys = failed_keys(_sdpa(grader, _unzeroed(lines, after)))
    assert "write_into_discarded_copy" not in keys and "fully_masked_nan" in keys, keys


def test_a_draft_stack_rebound_is_not_read(grader):
    cells = {"scores3": "scores3 = Q3 @ K3.T / math.sqrt(4)\n"
                        "weights3 = torch.stack([stable_softmax(row, dim=-1) for row in scores3], dim=1)\n"
                        "weights3 = stable_softmax(scores3, dim=-1).T\n"
                        "out3 = weights3 @ V3\n"
                        "weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float('-inf')), dim=-1)\n"}
    keys = failed_keys(_sdpa(grader, cells))
    assert "rows_stacked_as_columns" not in keys, keys


@pytest.mark.parametrize("cell", [
    "# torch.softmax normalises each row anyway, so the scaling drops out\nans_scale = 'c'\n",
    "# with torch's default init the scores are already tiny, so scaling changes nothing\nans_scale = 'c'\n",
    "import torch\ns = torch.randn(4, 4) / 8 ** 0.5  # scaled by 1/sqrt(d) already, like torch's sdpa\nans_scale = 'c'\n",
], ids=["softmax_normalises_anyway", "default_init_small", "comment_on_an_experiment_line"])
def test_other_reasons_for_c_are_not_the_library_scale(grader, cell):
    keys = failed_keys(_pipe(grader, {"ans_scale": cell}))
    assert "scale_assumed_applied_elsewhere" not in keys and "softmax_scale_invariant" in keys, keys


@pytest.mark.parametrize("body", [
    "    cols = [torch.cat([torch.zeros(j, dtype=torch.float64), torch.ones(T - j, dtype=torch.float64)])\n"
    "            for j in range(T)]\n"
    "    M = torch.stack(cols, dim=1)   # column j: ones from row j down\n"
    "    return (M / M.sum(dim=-1, keepdim=True)).T\n",
    "    L = torch.ones(T, T, dtype=torch.float64).tril()\n"
    "    W = torch.stack([r / r.sum() for r in L], dim=1).T   # rows back as rows\n"
    "    return W.T\n",
], ids=["columns_stacked_as_columns_then_T", "stack_swapped_back_then_T"])
def test_a_transpose_in_the_def_is_not_rows_stacked_as_columns(grader, body):
    keys = failed_keys(_pipe(grader, {"prefix_average_matrix": "def prefix_average_matrix(T):\n" + body}))
    assert "rows_stacked_as_columns" not in keys, keys


@pytest.mark.parametrize("cell", [
    "def attention_weights(S, M=None):\n    S = S if M is None else S + M\n"
    "    assert torch.isfinite(S.clone().clamp_(-10, 10)).all()\n    S = S.clamp(-10, 10)\n"
    "    return torch.softmax(S, dim=-1)\n",
    "def attention_weights(S, M=None):\n    Z = S if M is None else S + M\n"
    "    if not torch.isfinite((Z * 1.0).clamp_(min=-10.0, max=10.0)).all():\n        raise ValueError('inf')\n"
    "    Z = torch.clamp(Z, -10, 10)\n    return torch.softmax(Z, dim=-1)\n",
], ids=["clamp_on_a_clone_in_assert", "clamp_on_a_temporary_in_if"])
def test_an_in_place_clamp_on_a_temporary_is_not_the_check(grader, cell):
    keys = failed_keys(_pipe(grader, {"attention_weights": cell}))
    assert "check_mutates_input" not in keys, keys


def test_an_inclusive_range_with_a_written_stop_is_not_ported_exclusive(grader):
    # range(1, 1025) is MATLAB's 1:1024 ported right (1024 positions); the slip is the `- 1` after it
    cells = {"attn_entries": "T = len(range(1, 1025))\nattn_entries = (T - 1) ** 2\n"
                             "score_madds = attn_entries * 64\ncost_ratio = 4\n"}
    keys = failed_keys(_sdpa(grader, cells))
    assert "inclusive_range_ported_exclusive" not in keys, keys


def test_a_range_shifted_by_one_is_not_numbered_from_zero(grader):
    # the keys' arange(T_k) + 1 numbers them from 1 as well: the slip is the compare's `q + 1`
    cells = {"causal_mask": "def causal_mask(T_q, T_k=None):\n    T_k = T_q if T_k is None else T_k\n"
                            "    q = torch.arange(1, T_q + 1)[:, None]\n    k = torch.arange(T_k)[None, :] + 1\n"
                            "    return k <= q + 1\n"}
    keys = failed_keys(_sdpa(grader, cells))
    assert "positions_from_one_on_one_side" not in keys and "causal_includes_next" in keys, keys
