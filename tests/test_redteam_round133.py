"""Red-team round 133: naming round 71's new reads and replays (ccf49e2) attacked as a student and as a class.

Repros in /tmp/rt133/ (h.py grades a variant; RT_ROOT=/tmp/rt133-base runs one on ccf49e2):

- **log2_ on its own operand was looked for by walking both sides of every product.** attention-pipeline's
  in_place_operand_reread (q10's inplace_operand_overwritten gate, read on every call of entropy_variants) walked
  the left and the right operand of each BinOp of row_entropy_bits whole, quadratic in a chain: a dead-branch
  `z = A*A*...*A` of 1,800 factors in a 3,800-character row_entropy_bits (the cell's read limit is 4,000) cost 6 s
  of the grader's CPU per call (inplace_cpu.py) and a grade 12.9 s against 0.3 s (inplace_grade.py 1800 against
  2). Each node's in-place names and read names are now built once from its children's (0.04 s a call, a grade
  1.9 s); the BinOp quoted is the same one.
- **A loop over the key count was told a block loop's last partial block.** sdpa's output_rows_never_written took
  any output right on its first k < 67 rows of the 67-query probe: a row loop over `range(min(K.shape[-2],
  Q.shape[-2]))` (the key count for the query count) is right on the probe's first 6 rows, its 6 keys, and was told
  "the rows after query 5 are never computed ... a loop that stops at the last full block" on q5's
  test_causal_rectangular and test_fully_masked_rows (rows_tk.py), where ccf49e2^ said where the rows are wrong.
  A second probe with 11 keys must now be right on the same k rows.
- **A counter keyed by d_k in a default dict was told the scale kept from the first call.** scaled-attention's
  _filled_default (q1's mha_scale_kept_across_calls) took any store into a mutable default that reads d_k anywhere:
  `def attention(Q, K, V, d_k, _calls={}): _calls[d_k] = _calls.get(d_k, 0) + 1` beside a hard-coded `/ 8.0`
  (wrong_scale_constant) was told five times "your attention fills the default argument `_calls` from d_k ... what
  the first call puts there is what every later call reads" (keyed.py). The value stored must read d_k now, under
  a key (subscript, setdefault's first argument) that does not: an entry per d_k is the call's own.
- **A name once bound to a bytes size was a bytes size for good, and a def's local was the cell's.** sdpa's
  name_entries_times_four (q8, count_in_bytes) collected every name any assignment of the cell gives a bytes read,
  defs included and in no order: `n = torch.tensor(0.0).element_size()` printed, then `n = 2 * 1024; attn_entries =
  n * n` ((2T)^2), and `def attn_mb(T, dtype): n = T * T * torch.finfo(dtype).bits // 8` beside the same two lines,
  were each told "your cell multiplies by the bytes of an entry (`attn_entries = n * n`)" (bytes_reuse.py). The
  cell's own assignments are read in order now (outside defs, classes, lambdas), each name as last bound before the
  line: count_times_four, whose text gives the readings; `attn_entries = 1024 * 1024 * n` with n the element size
  is still count_in_bytes.
- **"Not bytes" was read as bytes.** attention-pipeline's raise_if_count_in_bytes (q12, param_count_in_bytes) took
  any bytes word of qkv_param_count's text: a count of the weights and their gradients, `return 2 * n` under the
  docstring "The number of weights (a count, not bytes) ...", was told "2 bytes per float16 weight" on both q12
  tests (q12_words.py; one_edit_fix before round 71). A bytes word with a negation in the 24 characters before it
  (not, no, never, nor, without, instead of, rather than, n't) is no evidence now; `return 4 * n  # 4 bytes per
  float32 weight` is still named.
- **A dropout probability of 0 kept in a name was a dropout (round 132's fix re-attacked).** sdpa's _dropout_call
  (q2, scores_through_dropout) took only a literal 0 as no dropout: `attn_pdrop = 0.0; drop =
  torch.nn.Dropout(attn_pdrop)` (a config pasted with a block) or `p_drop = 0.0; F.dropout(raw_scores, p=p_drop)`
  beside a `math.sqrt(d_k - 1)` was still told "your cell passes them through a dropout" in place of the one-edit
  fix of its d_k - 1 (drop_name.py). A name the cell binds to a literal 0 alone (no other value, +=, loop or
  parameter of that name) is that 0 now; `p_drop = 0.1` is still named.
- **A name rebound after a printed fourth root kept the fourth root (round 132's fix re-attacked).** sdpa's
  _name_divisor_fourth_root (q2) read every cell-level value of the name scale_divisor is given, in no order: `s =
  64 ** 0.25` printed, then `s = math.sqrt(8); scale_divisor = s` (the example's divisor, example_value_reused, as
  the same lines without the first two say) was told divisor_given_as_fourth_root quoting `64 ** 0.25`
  (fourth_rebind.py). The name is read as last bound before the scale_divisor line now.
- **A divided-out exponent ran the grader out of stack.** sdpa's _number (the constant reader of q2's scale reads,
  round 70's fourth root and round 53's model width among them) recursed once per division or sign: `scale_divisor
  = 64 ** (1 / 4 / 1 / ... / 1)` with 1,500 divisions (2.83, a fourth root) made q2's test_scale_divisor say
  "RecursionError: maximum recursion depth exceeded" in place of any naming (deep_div.py 1500). It reads 32 levels
  now (example_value_reused there: the exponent is no number it reads); `64 ** (1 / 4 / 1 / 1)` is still the
  fourth root.

Held (tried, no change): the sample-tail replay's CPU with eight drawn-out chunk literals (3, 7, 9, ..., 23) in a dead
branch (0.1 s, tail_cpu.py), the replays' state (STUDENT_SOFTMAX is a ContextVar set and reset per call; _def_of
reads the running test's own submission), the quotes of the new messages (ascii() for the filled default, an
identifier cut at 30 for out=, gates only for the slice and in-place reads), q8's new second call with one shape
(lazy variants; a right notebook keeps full marks), a right notebook in every round-71 file, a dropout-on attention
over six seeds (nondeterministic every time, never output_rows_never_written: drop_rows.py), control characters and
`<script>` in a quoted bytes line (escaped on the terminal, esc_term.txt), q05/q13's slice replays (the tests' A are
at most 10 wide). Measured and left: 20 decoy cells of 19,000 characters that each name `def multi_head_attention`
(and dot_product_variance, attention) in a comment, 410 KB, cost a notebook wrong in q2 and q8 7.8 s of the
grader's CPU against 3.7 s for the same cells without the words (decoy2.py 20 1 against 20 0; 2.6 s with q8 alone,
decoy.py against decoy_ctrl.py): scaled's _function_of parses every such cell on each read, round 71's
_int_literals and _filled_default among many older readers; the words also cost q8 its one-edit naming (an engine
read, older than round 71).
"""
from __future__ import annotations

import time
import types

import pytest

from tests.heldout.harness import grade_cells
from tests.hidden_modules import load

PIPE_D = load("attention-pipeline", "_diagnose", "_rt133_pipe_diagnose")


def test_an_in_place_operand_read_is_linear(monkeypatch):
    cell = ("def row_entropy_bits(A):\n    if A is None:\n        z = " + "*".join(["A"] * 1800) + "\n"
            "    return -(A * A.log2()).sum(-1) * 2\n")
    monkeypatch.setattr(PIPE_D, "current_submission", lambda: types.SimpleNamespace(cells=[cell]))
    start = time.process_time()
    said = PIPE_D.in_place_operand_reread("row_entropy_bits")
    spent = time.process_time() - start
    assert said is None and spent < 1.0, spent       # 6 s before
    right = "def row_entropy_bits(A):\n    P = A.masked_fill(A == 0, 1.0)\n    return -(P * P.log2_()).sum(-1)\n"
    monkeypatch.setattr(PIPE_D, "current_submission", lambda: types.SimpleNamespace(cells=[right]))
    assert PIPE_D.in_place_operand_reread("row_entropy_bits") == "P * P.log2_()"


def test_a_loop_over_the_key_count_is_no_last_partial_block(grader):
    cell = (
        "def scaled_dot_product_attention(Q, K, V, mask=None):\n    d_k = Q.size(-1)\n    T = K.shape[-2]\n"
        "    out = torch.zeros(*Q.shape[:-1], V.shape[-1], dtype=Q.dtype, device=Q.device)\n"
        "    for i in range(min(T, Q.shape[-2])):\n"
        "        s = (Q[..., i:i + 1, :] @ K.transpose(-2, -1)) / math.sqrt(d_k)\n"
        "        if mask is not None:\n"
        "            m = mask[..., i:i + 1, :] if mask.dim() >= 2 and mask.shape[-2] > 1 else mask\n"
        "            s = s.masked_fill(m == False, float('-inf'))\n            w = stable_softmax(s, dim=-1)\n"
        "            w = torch.where(m.any(dim=-1, keepdim=True), w, torch.zeros_like(w))\n"
        "        else:\n            w = stable_softmax(s, dim=-1)\n"
        "        out[..., i:i + 1, :] = w @ V\n    return out\n")
    outcome = grade_cells(grader, "sdpa-from-scratch", {"scaled_dot_product_attention": cell}, "rt133_rows")
    assert outcome.failed, outcome.explain()
    assert not [f for f in outcome.failed if f[2] == "output_rows_never_written"], outcome.explain()


def test_a_counter_keyed_by_d_k_is_no_scale_kept(grader):
    cell = ("def attention(Q, K, V, d_k, _calls={}):\n    _calls[d_k] = _calls.get(d_k, 0) + 1\n"
            "    weights = torch.softmax(Q @ K.T / 8.0, dim=-1)\n    return weights @ V, weights\n")
    outcome = grade_cells(grader, "scaled-attention", {"attention": cell}, "rt133_keyed")
    keys = {k for q, _t, k, _m in outcome.failed if q == "q1"}
    assert keys == {"wrong_scale_constant"}, outcome.explain()


@pytest.mark.parametrize("head", [
    "n = torch.tensor(0.0).element_size()   # bytes per float32 entry\nprint(n, 'bytes per entry')\n",
    "def attn_mb(T, dtype=torch.float32):\n    n = T * T * torch.finfo(dtype).bits // 8\n    return n / 2 ** 20\n",
], ids=["rebound", "def_local"])
def test_a_name_rebound_from_bytes_is_no_bytes_size(grader, head):
    cell = head + "n = 2 * 1024\nattn_entries = n * n\nscore_madds = 1024 * 1024 * 64\ncost_ratio = 4\n"
    outcome = grade_cells(grader, "sdpa-from-scratch", {"attn_entries": cell}, "rt133_bytes")
    assert {k for q, _t, k, _m in outcome.failed if q == "q8"} == {"count_times_four"}, outcome.explain()
    still = "n = torch.tensor(0.0).element_size()\nattn_entries = 1024 * 1024 * n\nscore_madds = 1024 * 1024 * 64\n" \
            "cost_ratio = 4\n"
    outcome = grade_cells(grader, "sdpa-from-scratch", {"attn_entries": still}, "rt133_bytes_still")
    assert {k for q, _t, k, _m in outcome.failed if q == "q8"} == {"count_in_bytes"}, outcome.explain()


def test_a_count_said_not_to_be_bytes_is_not_named_bytes(grader):
    cell = ("def qkv_param_count(d_model, d_k, d_v, with_output=False):\n"
            '    """The number of weights (a count, not bytes) that training keeps: each weight and its gradient."""\n'
            "    n = d_model * (2 * d_k + d_v)\n    if with_output:\n        n += d_v * d_model\n    return 2 * n\n")
    outcome = grade_cells(grader, "attention-pipeline", {"qkv_param_count": cell}, "rt133_not_bytes")
    assert outcome.failed, outcome.explain()
    assert "param_count_in_bytes" not in {k for _q, _t, k, _m in outcome.failed}, outcome.explain()


Q2_HEAD = "d_k = Q.shape[-1]\nraw_scores = Q @ K.transpose(-2, -1)\nraw_score_var = raw_scores.var().item()\n"
Q2_TAIL = "scaled_score_var = scaled.var().item()\nscale_divisor = math.sqrt(64)\n"


@pytest.mark.parametrize("line", [
    "attn_pdrop = 0.0\ndrop = torch.nn.Dropout(attn_pdrop)\nscaled = drop(raw_scores) / math.sqrt(d_k - 1)\n",
    "p_drop = 0.0\nscaled = torch.nn.functional.dropout(raw_scores, p=p_drop) / math.sqrt(d_k - 1)\n",
], ids=["module", "functional"])
def test_a_dropout_probability_named_zero_is_no_dropout(grader, line):
    outcome = grade_cells(grader, "sdpa-from-scratch", {"d_k": Q2_HEAD + line + Q2_TAIL}, "rt133_p0")
    assert {k for q, _t, k, _m in outcome.failed if q == "q2"} == {"one_edit_fix"}, outcome.explain()
    real = line.replace("= 0.0", "= 0.1")
    outcome = grade_cells(grader, "sdpa-from-scratch", {"d_k": Q2_HEAD + real + Q2_TAIL}, "rt133_p1")
    assert {k for q, _t, k, _m in outcome.failed if q == "q2"} == {"scores_through_dropout"}, outcome.explain()


def test_a_fourth_root_rebound_before_the_divisor_is_not_the_divisors(grader):
    cell = Q2_HEAD + ("scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()\n"
                      "s = 64 ** 0.25\nprint(f'fourth root of 64: {s:.3f}')\ns = math.sqrt(8)\nscale_divisor = s\n")
    outcome = grade_cells(grader, "sdpa-from-scratch", {"d_k": cell}, "rt133_rebind")
    assert {k for q, _t, k, _m in outcome.failed if q == "q2"} == {"example_value_reused"}, outcome.explain()
    kept = Q2_HEAD + ("scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()\n"
                      "s = math.sqrt(8)\ns = 64 ** 0.25\nscale_divisor = s\n")
    outcome = grade_cells(grader, "sdpa-from-scratch", {"d_k": kept}, "rt133_rebind_kept")
    assert {k for q, _t, k, _m in outcome.failed if q == "q2"} == {"divisor_given_as_fourth_root"}, outcome.explain()


def test_a_deeply_divided_exponent_is_no_recursion_error(grader):
    cell = Q2_HEAD + ("scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()\n"
                      "scale_divisor = 64 ** (1 / 4" + " / 1" * 1500 + ")\n")
    outcome = grade_cells(grader, "sdpa-from-scratch", {"d_k": cell}, "rt133_deep")
    said = [(k, m) for q, _t, k, m in outcome.failed if q == "q2"]
    assert said and all(k is not None and "RecursionError" not in m for k, m in said), outcome.explain()
