"""Red-team round 138: round 137's fixes (1e6442c) and the review's dedups (f532599), attacked as a student and as a
class; then the readers of the three _diagnose.py that still follow student input without a bound.

Repros in /tmp/rt138/ (h.py grades a variant; the scripts take the checkout's root, /tmp/rt138-base for 8bc59c2):

- **A 400-digit exponent in attention crashed scaled-attention's q1 naming.** raise_if_reciprocal_divided (the
  replay is multiply_by_sqrt_dk and the source divides by a reciprocal root) reads each power's exponent with
  _constant, which took float() of any int literal: `if False: junk = d_k ** 1000...0` (400 digits, dead code) beside
  `scale = d_k ** -0.5; scores = Q @ K.T / scale` raised OverflowError in the grader, which the engine told as "your
  answer holds a whole number too large to print or to compare as a float" on all five q1 tests, where the same
  def without it is reciprocal_scale_divided (recip.py). A literal past 1e300 is no scale now, as sdpa's _number
  learnt in round 130: reciprocal_scale_divided.
- **A chain of 1,500 defs crashed attention-pipeline's q03 naming; a 60-name comparison cost 11 s.**
  same_expression_compared (probe_compares_same_expression: ans_scale 'c' from two names bound to one expression
  and compared) asked whether the expression calls anything unrepeatable by following the notebook's defs by
  recursion: `def f0(x): return x if x else f1(x)` ... f1500 (the notebook runs; x is 1) then `_a = f0(1)`,
  `_b = f0(1)`, `ans_scale = "c" if _a == _b else "b"` said "RecursionError: maximum recursion depth exceeded"
  where three defs are probe_compares_same_expression (repeat.py 1500). And the defs were walked again for every
  pair of names: `_x0 == _x1 == ... == _x59`, each `f0(1)`, 300 defs ending in a torch.rand, took 9.4 s of the
  grader's CPU in that reader (10.7 s for the test; 120 names passed the 30 s guard and q03 said the grader's
  checks "spent over 30 s of CPU"; repeat_cpu.py, time_same.py). The defs' draws are read once per notebook, spread
  to their callers in a loop, and each binding's dump and reading is worked out once: 0.8 s, the same names.
- **Names reused by `or` made attention-pipeline's q03 naming exponential.** hedge_by_bool_op (letters joined by
  `and`/`or`) reads the expression through names bound once, at most 20 levels deep but with no bound on breadth:
  `x1 = x0 or x0 or ... (8 times)`, nine names deep, `ans_scale = x9 or "c"` (the notebook runs it at once) was 8^9
  reads, and q03 said the grader's checks "spent over 30 s of CPU" (30.7 s) where two names are
  answer_computed_by_code with the hedge said (boolop.py). A budget of 2,000 nodes for the whole reading:
  answer_computed_by_code, 0.1 s.
- **A keyword search through nested `any`s made scaled-attention's q5 naming exponential.** keyword_search_hits
  evaluates the search's condition on each option's text, every item of an `any(... for w in [...])` whatever
  the others gave: `if any(any(... "" in v for w0 in [10 words]) ...)` eight deep is true at once for Python, which
  stops at the first item, and 10^8 readings for the grader: q5 said the grader's checks "spent over 30 s of CPU"
  (30.1 s) where one `any` is answer_by_keyword_search (anynest.py). _condition_value counts its steps, 100,000
  for one call of keyword_search_hits (every search and options literal together): past them the search is unread,
  answer_computed_by_code.
- **A product of many terms made attention-pipeline's q11 norm read quadratic.** raise_if_rank_from_stable_rank
  reads the ratio of norms that rank_S_lesson comes from (_norm_kind, 20,000 calls at most), and took each `x * y`
  for a square by writing out both sides: `b0 = s * s * ... * s` (400 terms) in 60 names summed into rank_S_lesson
  wrote out every prefix of every chain, 23 s of the grader's CPU in that read for a 49 KB cell (normmul.py 400 60).
  Both sides are written out only where each has at most 64 nodes: 0.8 s; `matrix_norm(S) * matrix_norm(S)` is still
  the Frobenius norm squared.

Held (tried, no change): f532599's _whole_number over _const_eval (reads `**`, shifts and % now; every result still
under MAX_FOLDED_BITS, the names read with no names; 100 KB of `a = 7**7000 // 3**6000` is 0.8 s of the grader's
CPU, linear, once per q8 failure, and the notebook runs the same lines: bigint.py); scaled's _called for
_callee_of/_callee_name (the same answers: "" and None both differ from every name compared); round 137's
_is_number (`1 / ------2`, six signs, is no longer read as 2: the quote falls back to the plain scale_precedence
text, the same key), _string_literal's loop (linear, called once per answer) and the keyword search's caught
RecursionError; _power_minus_one_half's quote (pyparse.unparse, cut); the remaining self-recursive readers (scaled
_head_arg_kinds' kind: memoised, 8 values, 4 deep; _truth_value: 3 deep; pipeline _singular_values: 8 deep, one
value a name; _transposes_name and _bool_valued: two levels; sdpa _index_of: tuples need parentheses, 200 deep;
pipeline counting, sdpa _alias_eval, scaled _count_arithmetic and _condition_value: callers catch RecursionError).
"""
from __future__ import annotations

import ast
import time
import types

from tests.heldout.harness import grade_cells
from tests.hidden_modules import load

SC = load("scaled-attention", "_diagnose", "_rt138_scaled_diagnose")
PD = load("attention-pipeline", "_diagnose", "_rt138_pipeline_diagnose")

_BIG = "1" + "0" * 400


def _reciprocal_attention(junk: str) -> str:
    return ("def attention(Q, K, V, d_k):\n" + junk + "    scale = d_k ** -0.5\n    scores = Q @ K.T / scale\n"
            "    weights = torch.softmax(scores, dim=-1)\n    return weights @ V, weights\n")


def test_a_huge_exponent_beside_a_reciprocal_scale_divided_is_named_not_a_grader_crash(grader):
    src = _reciprocal_attention("    if False:\n        junk = d_k ** " + _BIG + "\n")
    outcome = grade_cells(grader, "scaled-attention", {"attention": src}, "rt138_huge_exponent")
    failed = [(q, k, m) for q, _t, k, m in outcome.failed]
    assert failed and {(q, k) for q, k, _m in failed} == {("q1", "reciprocal_scale_divided")}, failed
    assert all("too large" not in m for _q, _k, m in failed), failed


def test_the_scale_read_passes_over_a_literal_past_a_float():
    assert SC._constant(ast.parse(_BIG, mode="eval").body) is None
    assert SC._constant(ast.parse("-1 / 2", mode="eval").body) == -0.5
    assert SC._is_reciprocal_root(ast.parse("d_k ** -0.5", mode="eval").body, set())
    assert not SC._is_reciprocal_root(ast.parse("d_k ** " + _BIG, mode="eval").body, set())


def _chain(n: int) -> str:
    return ("".join(f"def f{i}(x):\n    return x if x else f{i + 1}(x)\n" for i in range(n)) + f"def f{n}(x):\n"
            "    return x\n_a = f0(1)\n_b = f0(1)\nans_scale = \"c\" if _a == _b else \"b\"\n")


def test_a_chain_of_defs_past_the_stack_is_named_not_a_grader_crash(grader):
    for n in (3, 1500):
        outcome = grade_cells(grader, "attention-pipeline", {"ans_scale": _chain(n)}, f"rt138_def_chain_{n}")
        failed = [(q, k, m) for q, _t, k, m in outcome.failed]
        assert [(q, k) for q, k, _m in failed] == [("q03", "probe_compares_same_expression")], (n, failed)
        assert "RecursionError" not in failed[0][2]


def _compared(names: int, defs: int = 300) -> str:
    return ("import torch\n" + "".join(f"def f{i}(x):\n    return x if x else f{i + 1}(x{'+x' * 40})\n"
                                       for i in range(defs))
            + f"def f{defs}(x):\n    return torch.rand(1) if x is None else x\n"
            + "".join(f"_x{j} = f0(1)\n" for j in range(names))
            + "ans_scale = \"c\" if " + " == ".join(f"_x{j}" for j in range(names)) + " else \"b\"\n")


def test_the_same_expression_read_walks_the_defs_once_not_once_per_pair():
    drawn = types.SimpleNamespace(cells=[_compared(60)])
    start = time.process_time()
    assert PD.same_expression_compared(drawn, "ans_scale") is None      # the chain ends in a draw: not said
    assert time.process_time() - start < 4.0                          # 9.4 s at 8bc59c2
    plain = types.SimpleNamespace(cells=[_compared(3).replace("torch.rand(1) if x is None else x", "x")])
    assert PD.same_expression_compared(plain, "ans_scale") == ("_x0", "_x1", "f0(1)")


def _reused(levels: int, uses: int) -> str:
    return ('x0 = "a"\n' + "".join(f"x{i} = " + " or ".join([f"x{i - 1}"] * uses) + "\n" for i in range(1, levels + 1))
            + f'ans_scale = x{levels} or "c"\n')


def test_letters_joined_through_reused_names_are_read_in_bounded_time(grader):
    outcome = grade_cells(grader, "attention-pipeline", {"ans_scale": _reused(9, 8)}, "rt138_reused_or")
    failed = [(q, k, m) for q, _t, k, m in outcome.failed]
    assert [(q, k) for q, k, _m in failed] == [("q03", "answer_computed_by_code")], failed
    assert "30 s of CPU" not in failed[0][2]
    small = grade_cells(grader, "attention-pipeline", {"ans_scale": _reused(2, 2)}, "rt138_reused_or_small")
    said = [m for _q, _t, _k, m in small.failed]
    assert len(said) == 1 and "Python's `or` returns its first operand" in said[0], said


def _nested_search(depth: int, width: int) -> str:
    cond = '"" in v'
    for i in range(depth):
        cond = f"any({cond} for w{i} in [" + ", ".join(['"x"'] * width) + "])"
    return ('opts = {"A": "the variance grows", "B": "it is the std", "C": "keeps unit variance", "D": "nothing"}\n'
            "q5_answer = None\nfor k, v in opts.items():\n    if " + cond + ":\n        q5_answer = k\n        break\n")


def test_a_keyword_search_through_nested_anys_is_read_in_bounded_time(grader):
    for depth, width, key in ((1, 2, "answer_by_keyword_search"), (8, 10, "answer_computed_by_code")):
        outcome = grade_cells(grader, "scaled-attention", {"q5_answer": _nested_search(depth, width)},
                              f"rt138_nested_any_{depth}")
        failed = [(q, k, m) for q, _t, k, m in outcome.failed]
        assert [(q, k) for q, k, _m in failed] == [("q5", key)], failed
        assert "30 s of CPU" not in failed[0][2]


def _products(terms: int, names: int) -> str:
    chain = "*".join(["s"] * terms)
    return ("import torch\ns = torch.linalg.svdvals(S)\n" + "".join(f"b{i} = {chain}\n" for i in range(names))
            + "rank_S_lesson = round(" + " + ".join(f"b{i}" for i in range(names)) + ")\n")


def test_the_norm_ratio_read_writes_out_only_small_squares():
    long = types.SimpleNamespace(cells=[_products(400, 60)])
    start = time.process_time()
    PD.raise_if_rank_from_stable_rank(1, long, "rank_S_lesson")        # no ratio of norms: nothing said
    assert time.process_time() - start < 5.0                          # 23 s at 8bc59c2
    n = ast.parse("torch.linalg.matrix_norm(S) * torch.linalg.matrix_norm(S)", mode="eval").body
    assert PD._norm_kind(n, {}) == "fro2"                              # a square written x * x is still read
