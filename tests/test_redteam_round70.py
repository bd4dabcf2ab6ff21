"""Red-team round 70: the naming code of 2026-12-05 that replays a student's cell in the trusted grader.

Repros in /tmp/rt70/:

- **The one-operator replay (exponents_multiplied, remainder_for_quotient) costs the grader seconds per cell.**
  sdpa-from-scratch's _diagnose._name_cell_swap replays every cell that assigns the answer, once as written and once
  per candidate node (up to POWER_PAIRS_MAX = 40), each replay folding every statement again with _const_eval.
  _small_enough bounds a cell's NODES (2000) and MAX_FOLDED_BITS each int (20,000 bits), but not the big-int work per
  node nor the number of cells: 90 statements `x = A // B % B // B % B` with A = 2 ** 19999 + 12345 and
  B = 3 ** 6000 + 7 (2.6 KB, under the node bound) cost ~0.6-1 s of grader CPU per cell in ratio_int (q8
  test_cost_ratio) and ~0.65 s in name_exponents_multiplied (q8 test_attn_entries / test_score_madds, with a
  `** (1 * 1)` in each statement); the same cell repeated 30 times made `autograder grade` take 31 s (0.39 s
  without), 200 times 58 s; with attn_entries, score_madds and cost_ratio all in 100 such cells, the three q8
  tests each ran into limits.check_cpu_s (30 s) and one grade took 143 s (84 s of CPU). The worker runs each such
  cell in microseconds.
- **A chain of names makes attention-pipeline's rank helpers raise RecursionError into the test.**
  _diagnose._reaches follows a name to what the cell bound it to by recursion, one Python frame (plus any()'s) per
  name, with no depth bound: `a0 = 7; a1 = a0; ...; a2000 = a1999; rank_S_lesson = a2000` (a cell of 2000 plain
  assignments: it parses, and runs in the worker) makes q11's rank_from_nuclear_norm (7 is a nuclear-norm number;
  rank_counted_without_tolerance and rank_on_weights the same) raise RecursionError: the student is shown
  "RecursionError: maximum recursion depth exceeded", the grader's own error, in place of q11's message ("not
  correct: try torch.linalg.matrix_rank ..." with a 3-name chain).
- **A long count makes answer_letter_past_last_option raise RecursionError into the test.** attention-pipeline's
  _counted_letter (its inner `counting`) and scaled-attention's _count_arithmetic walk the count in chr(ord("a") + n)
  by recursion over each BinOp: `ans_cross_shapes = chr(ord("a") + 4 + 1 - 1 + ... )` with 600 `+ 1 - 1` (1200
  nested BinOps: the grader's parse reads it, the worker runs it) gives q14 test_ans_cross_shapes "RecursionError:
  maximum recursion depth exceeded in __instancecheck__" where 3 of them give the answer_letter_past_last_option
  message; scaled-attention's q5/q6/q7 (`q5_answer = chr(ord("A") + 4 + ...)`) the same.
"""
from __future__ import annotations

import time
import types

from tests.hidden_modules import load

A_B = ["A = 2 ** 19999 + 12345", "B = 3 ** 6000 + 7"]


def _sub(cell: str, copies: int) -> types.SimpleNamespace:
    return types.SimpleNamespace(cells=(cell,) * copies, source="\n".join([cell] * copies))


def _cpu(fn) -> float:
    start = time.process_time()
    try:
        fn()
    except Exception:  # noqa: BLE001 - naming or not is not the question here
        pass
    return time.process_time() - start


def test_remainder_for_quotient_replay_is_bounded():
    diag = load("sdpa-from-scratch", "_diagnose", "_test_sdpa_round70_diagnose_mod")
    cell = "\n".join(A_B + [f"x{k} = A // B % B // B % B" for k in range(90)] + ["cost_ratio = 3"])
    sub = _sub(cell, 5)     # five 2.6 KB cells assigning cost_ratio (a notebook may hold 2000)
    spent = _cpu(lambda: diag.ratio_int(3, "cost_ratio", sub))
    assert spent < 1.0, (
        f"five 2.6 KB cells of 20,000-bit divisions cost the grader {spent:.1f} s of CPU in q8's cost_ratio "
        "(name_remainder_for_quotient: 40 replays of every cell that assigns the answer); the cost grows with the "
        "cells: 30 such cells made one grade take 31 s, 200 took 58 s. Bound the work over the whole notebook "
        "(a budget for all replays, the big-int work per node), not the nodes of one cell")


def test_exponents_multiplied_replay_is_bounded():
    diag = load("sdpa-from-scratch", "_diagnose", "_test_sdpa_round70_diagnose_exp")
    cell = "\n".join(A_B + [f"x{k} = A // B % B ** (1 * 1)" for k in range(95)] + ["attn_entries = 3"])
    sub = _sub(cell, 5)
    spent = _cpu(lambda: diag.name_count_overflowed(3, "attn_entries", sub))
    assert spent < 1.0, (
        f"five 2.6 KB cells cost the grader {spent:.1f} s of CPU in q8's attn_entries "
        "(name_exponents_multiplied replays every cell once per `*` in a power's exponent); bound the replays' "
        "work over the whole notebook")


# --- attention-pipeline q11: _reaches and a chain of names ---------------------------------------------------------

def _chain(value: int, n: int = 2000) -> types.SimpleNamespace:
    cell = "max_rank_S = 8\na0 = %d\n" % value + "\n".join(f"a{i + 1} = a{i}" for i in range(n)) \
        + f"\nrank_S_lesson = a{n}\n"
    return types.SimpleNamespace(cells=(cell,), source=cell)


def test_rank_helpers_survive_a_chain_of_names():
    diag = load("attention-pipeline", "_diagnose", "_test_pipeline_round70_diagnose")
    sub = _chain(7)
    for helper in (diag.rank_from_nuclear_norm, diag.rank_counted_without_tolerance):
        try:
            helper(sub, "rank_S_lesson")
        except RecursionError:
            raise AssertionError(f"{helper.__name__} raised RecursionError on a cell of 2000 `a{{i+1}} = a{{i}}` "
                                 "assignments (_reaches follows names by recursion with no depth bound)") from None


def test_rank_test_says_its_own_message_after_a_chain_of_names():
    q11 = load("attention-pipeline", "q11", "_test_pipeline_round70_q11")
    try:
        q11.test_rank_S_lesson.test_func(7, submission=_chain(7), max_rank_S=8)
    except AssertionError:      # a Misconception or q11's own message: what a wrong answer should get
        return
    except RecursionError:
        raise AssertionError("q11 test_rank_S_lesson raised the grader's RecursionError for rank_S_lesson = 7 "
                             "reached through a chain of 2000 names; the student saw 'RecursionError: maximum "
                             "recursion depth exceeded' instead of q11's message") from None
    raise AssertionError("rank_S_lesson = 7 passed q11")


# --- answer_letter_past_last_option: a long count -------------------------------------------------------------------

def _letter_cell(question: str, first: str, pairs: int = 600) -> types.SimpleNamespace:
    cell = f'{question} = chr(ord("{first}") + 4' + " + 1 - 1" * pairs + ")"
    return types.SimpleNamespace(cells=(cell,), source=cell)


def test_letter_past_options_survives_a_long_count():
    cases = (("attention-pipeline", "ans_cross_shapes", "a", "e"), ("scaled-attention", "q5_answer", "A", "E"))
    for slug, question, first, past in cases:
        diag = load(slug, "_diagnose", f"_test_round70_letter_{slug.replace('-', '_')}")
        try:
            diag.raise_if_letter_past_options(question, past, _letter_cell(question, first))
        except AssertionError:      # named (a Misconception), or said: either is the test's to give
            pass
        except RecursionError:
            raise AssertionError(f"{slug}'s raise_if_letter_past_options raised RecursionError on "
                                 f"`{question} = chr(ord({first!r}) + 4 + 1 - 1 ... )` (600 `+ 1 - 1`): the count is "
                                 "walked by recursion over each BinOp, and the student is shown the grader's error") \
                from None
