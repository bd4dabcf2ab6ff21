"""Red-team round 130: naming round 67's new source reads and replays (8e3eaa0) and bf1fb49's entropy oracle, attacked
as a student and as a class.

Repros in /tmp/rt130/ (test_repro_keys.py, test_repro_probe.py, direct_probe.py, overflow_q13.py, cost_q13.py,
test_repro_sdpa.py, direct_sdpa.py):

- **A right letter read under the student's own numbering lost its point.** scaled-attention's
  raise_if_read_under_other_key (q5-q7) took an answer as wrong unless `value.strip().upper()` was the letter, while
  the test's judge (expect_choice) takes "(d)" as right. `mcq = {"q1": "(C)", "q2": "(A)", "q3": "(D)"}` with
  `q6_answer = mcq["q2"]` (the student numbers the three questions 1-3) graded 26/28, q6 and q7 told
  answer_read_under_other_key; "a." (the right letter with a full stop) was told the same, not its form. Now the
  check asks expect_choice itself, and a right letter in another form is left to the form's own message.
- **A 400-digit integer literal in a probe's global raised OverflowError into q7.** probe_global_size_said took
  math.sqrt of the global's value (`huge = 10...0` above the cell, `attention(q, k, v, huge)` in the probe's cell): a
  wrong code-computed q7 was told "your answer holds a whole number too large to print ...". Sizes past 2**53 are no
  probe's: not said.
- **The same in attention-pipeline's q13 cost a right cross_attention 3 points, and every check parsed the whole
  notebook.** raise_if_scale_from_global runs on every output of q13, right ones too; scale_read_from_global took
  float() of the global's literal (`EPS = 10...0`, read by `math.sqrt(EPS)` under a branch that never runs): 39/42
  for a right notebook. With a 460,000-character notebook each check parsed every cell again: 3.0 s of the grader's
  CPU per grade against 0.6 s without the root (cost_q13.py). Literals past 1e300 are no width, and the read is
  made once per notebook (an lru_cache on its cells).
- **sdpa's q2 divisor read beside a 400-digit literal was told "a whole number too large".** _number (every source
  read of a constant in sdpa's diagnosis) took float() of any int literal: `dims = (10...0, 4, 10, 128)` in another
  cell and `scale_divisor = math.sqrt(dims[-1])` (11.31) raised OverflowError in _name_divisor_from_value_width.
  A literal past 1e300 now reads as no number.

Held (tried, no change): the new `_none_guarded` (elif and else branches, one-line guards, a guard in another def),
answer_read_under_other_key's quote of a long dict entry (the message is cut at 1000 characters and made inert),
answer_copied_from_other_question's right test (as lenient as q15's judge), bf1fb49's oracle (every draw of the
trusted side for the entropy table is from a generator of its own; the student's table is drawn in the worker).
"""
from __future__ import annotations

import types

from tests.heldout.harness import grade_cells
from tests.hidden_modules import load

BIG = "1" + "0" * 400


def test_right_letter_in_parens_read_under_own_numbering_keeps_its_point(grader):
    cells = {"q5_answer": 'mcq = {"q1": "(C)", "q2": "(a)", "q3": "(D)"}\nq5_answer = mcq["q1"]',
             "q6_answer": 'q6_answer = mcq["q2"]', "q7_answer": 'q7_answer = mcq["q3"]'}
    outcome = grade_cells(grader, "scaled-attention", cells, "rt130_own_numbering_parens")
    assert outcome.full_marks, outcome.explain()


def test_right_letter_with_a_full_stop_is_told_its_form():
    D = load("scaled-attention", "_diagnose", "_rt130_scaled_diagnose_form")
    sub = types.SimpleNamespace(cells=['mcq = {"q1": "c.", "q2": "a.", "q3": "d."}', 'q6_answer = mcq["q2"]'])
    D.raise_if_read_under_other_key("q6_answer", "a.", "A", sub)   # the letter is right: its form is another check's
    sub_wrong = types.SimpleNamespace(cells=['mcq = {"q1": "c.", "q2": "b.", "q3": "d."}', 'q6_answer = mcq["q2"]'])
    try:
        D.raise_if_read_under_other_key("q6_answer", "b.", "A", sub_wrong)
    except AssertionError as m:
        assert getattr(m, "key", None) == "answer_read_under_other_key", m
    else:
        raise AssertionError("a wrong letter read under another question's key was not named")


def test_probe_global_of_400_digits_keeps_the_naming():
    D = load("scaled-attention", "_diagnose", "_rt130_scaled_diagnose_probe")
    from autograder.grading.checks import Misconception
    sub = types.SimpleNamespace(cells=[f"huge = {BIG}", '''
probe_q = torch.randn(1, 8)
probe_k, probe_v = torch.randn(6, 8), torch.randn(6, 3)
if huge < 0:
    _, w = attention(probe_q, probe_k, probe_v, huge)
q7_answer = "C" if huge > 0 else "D"
'''])
    m = Misconception("answer_computed_by_code", "q7_answer is 'C', worked out by code")
    assert D.probe_global_size_said(m, "q7_answer", sub) is m


def _cross_attention(extra: str) -> str:
    return f'''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    A = attention_weights(scaled_scores(Q, K), M)
    if M is not None and EPS < 0:
        A = A * {extra}
    return A @ V, A'''


def test_right_cross_attention_beside_a_400_digit_global_keeps_full_marks(grader):
    cells = {"ans_scale": f'ans_scale = "b"\nEPS = {BIG}', "cross_attention": _cross_attention("math.sqrt(EPS)")}
    outcome = grade_cells(grader, "attention-pipeline", cells, "rt130_q13_huge_global")
    assert outcome.full_marks, outcome.explain()


def test_scale_from_global_reads_the_notebook_once(monkeypatch):
    import torch

    from autograder.grading import pyparse
    D = load("attention-pipeline", "_diagnose", "_rt130_pipeline_diagnose_cost")
    cells = ['EPS = 1e-6', *(f"pad_{i} = {i}" for i in range(40)), _cross_attention("math.sqrt(EPS)")]
    monkeypatch.setattr(D, "current_submission", lambda: types.SimpleNamespace(cells=cells))
    parsed = []
    real = pyparse.parse
    monkeypatch.setattr(pyparse, "parse", lambda source, *a, **k: parsed.append(source) or real(source, *a, **k))
    g = torch.Generator().manual_seed(0)
    X, Y = torch.randn(4, 8, generator=g, dtype=torch.float64), torch.randn(6, 8, generator=g, dtype=torch.float64)
    W = [torch.randn(8, d, generator=g, dtype=torch.float64) for d in (12, 12, 6)]
    Q, K, V = X @ W[0], Y @ W[1], Y @ W[2]
    A = torch.softmax(Q @ K.T / 12 ** 0.5, dim=-1)
    for _ in range(10):     # q13 asks on every output of its cases, right ones too
        D.raise_if_scale_from_global((A @ V, A), X, Y, W, None, "cross_attention", torch.float64)
    assert len(parsed) <= len(cells), f"{len(parsed)} parses for {len(cells)} cells in 10 checks"


def test_sdpa_divisor_beside_a_400_digit_literal_is_named(grader):
    cells = {"out_shape": f"weights_shape = (4, 10, 10)\nout_shape = (4, 10, 128)\ndims = ({BIG}, 4, 10, 128)",
             "scale_divisor": '''d_k = Q.shape[-1]
raw_scores = Q @ K.transpose(-2, -1)
raw_score_var = raw_scores.var().item()
scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()
scale_divisor = math.sqrt(dims[-1])'''}
    outcome = grade_cells(grader, "sdpa-from-scratch", cells, "rt130_sdpa_divisor_huge_literal")
    q2 = [(k, m) for q, _t, k, m in outcome.failed if q == "q2"]
    assert q2 and all(k == "value_from_another_question" for k, _m in q2), outcome.explain()
