"""Red-team round 86: answers of odd types.

Every kind of value a student may bind or return was sent through the sandbox boundary and into the trusted
process's checks (repros in /tmp/rt86/: fuzz.py calls the checks on each value as the boundary rebuilds it, e2e.py
grades examples/submissions/<slug>/full_marks.ipynb with one answer cell or function replaced).

- **A whole number past 4300 digits, or past a float's range, crashed the checks that read it.** Python 3.11 refuses
  int -> str past 4300 digits and int -> float past about 1.8e308; such an int crosses the boundary (round 54, at most
  2^16 bits), and the checks in the grader formatted or converted it: `checks._shown` (a multiple-choice answer
  `10 ** 5000`), `_raise_if_number_wrapped` (`(10 ** 5000,)` for a count, a function returning it), a hidden test's own
  message (a shape `(4, 10 ** 5000, 10)`), `float()` in a hidden test's naming (qkv_param_count returning
  `2 ** 3000`, q11's `_as_int`, a matrix of huge ints). Measured: 24 tests of the three assignments failed with
  Python's own words as feedback ("ValueError: Exceeds the limit (4300 digits) for integer string conversion; use
  sys.set_int_max_str_digits() to increase the limit", "OverflowError: int too large to convert to float"), saying
  nothing of what was given. No points moved (each such answer is wrong; a right answer returns before the naming
  that crashed). Now the checks show such an int by its size (`_shown`), and runner.classify words any int too large to
  print or convert that a test meets as the student's value being far too large to be right.
- **A multiple-choice answer of digits that int() refuses, a number answer of a power past a float.**
  `_raise_if_option_number` read an option's number with `str.isdigit()` then `int()`: a superscript or circled digit
  ('²', '①': isdigit, but not decimal) raised "ValueError: invalid literal for int()", and so did a string of more than
  4300 digits; `_number_written_out` computed "9999999999^99" as a float and raised OverflowError. Now only decimal
  digits, at most 40 of them, are read as an option's number, and a power past a float is a string like any other.
- **A set holding such an int could not be sent.** protocol.encode_value sorted a set's members by their repr, which
  raised ValueError in the worker: "your code raised ValueError: Exceeds the limit ...". Ints are ordered by value now.
- **An answer the sandbox cannot send failed the tests of the right answers that read it.** A test may take another
  answer as an optional parameter, only to name a mistake (sdpa q8: test_score_madds takes attn_entries and the other
  way round; q6: test_weights3 takes scores3, out3, weights3_causal; pipeline q11: max_rank_S and rank_S_lesson). A
  wrong answer whose value cannot cross (an int-keyed dict `{1024: 1024 ** 2}`, an object, an int past 2^16 bits)
  made resolving it raise StudentCodeError before the test ran, so the right answer's test failed with the wrong one's
  error: 33/35 for one wrong count, 32/35 with a `scores3` of the student's own (never graded itself), 40/42 in the
  pipeline for a wrong max_rank_S beside a right rank_S_lesson. runner.test_arguments now gives such an optional
  name None, as it gives an undefined one (a student could delete the name for the same effect): 34/35, 41/42.

Tried and holding (no test): True / False where a count or a shape entry is asked (refused, "got bool"; a right
count of 4 written `True + 3` is the int 4), int and float subclasses, Fraction, Decimal, complex (the sandbox refuses
them, named by type), numpy scalars and 0-d arrays, 0-d tensors (named numpy_scalar_answer / returns_tensor_not_number,
or accepted where a test says so), -0.0, NaN and inf ("not a finite number"), torch.Size and lists for shapes
(accepted), letters in spaces, parentheses, quotes, lower case, full width, with combining marks or invisible characters,
"A or B", a list or set of letters, dicts of marks, None, generators, map/filter objects, 4-MB strings of letters,
parentheses, digits and words in expect_choice / expect_number / expect_shape (each under 0.1 s), and tensor-returning
functions returning a NumPy array, a list, a tuple, complex, bool or int tensors, a dict, a set, a generator, None.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from autograder.grading.checks import expect_choice, expect_int, expect_number, expect_shape
from tests.conftest import ROOT

EXAMPLES = ROOT / "examples" / "submissions"
HUGE = 10 ** 5000          # 5001 digits: past Python's 4300-digit limit on int -> str
# what the grader's own words must never be for a student's value
PYTHON_WORDS = ("Exceeds the limit", "set_int_max_str_digits", "OverflowError", "ValueError", "invalid literal")


def _with_cells(tmp_path: Path, slug: str, replaced: dict[str, str]) -> Path:
    """full_marks.ipynb of `slug` with each code cell that starts with a key of `replaced` replaced by its value."""
    nb = json.loads((EXAMPLES / slug / "full_marks.ipynb").read_text())
    for start, source in replaced.items():
        cells = [c for c in nb["cells"] if c["cell_type"] == "code" and "".join(c["source"]).startswith(start)]
        assert len(cells) == 1, start
        cells[0]["source"] = source
    path = tmp_path / f"{slug}.ipynb"
    path.write_text(json.dumps(nb))
    return path


@pytest.mark.parametrize("value", [HUGE, -HUGE, 2 ** 65535, (HUGE,), [HUGE], (4, HUGE, 10)],
                         ids=["huge", "negative", "2**65535", "tuple", "list", "shape"])
@pytest.mark.parametrize("check", ["choice", "number", "int"])
def test_a_huge_int_is_refused_in_words(value, check):
    with pytest.raises(AssertionError) as caught:
        if check == "choice":
            expect_choice(value, "q_trap_answer", answer="C", choices="ABCD")
        elif check == "number":
            expect_number(value, "score_madds")
        else:
            expect_int(value, "attn_entries")
    message = str(caught.value)
    assert not any(w in message for w in PYTHON_WORDS), message
    assert "digits" in message and len(message) < 1000, message      # said by its size


@pytest.mark.parametrize("text", ["\u00b2", "\u2460", "\u00b9", "7" * 5000, " (" + "1" * 4301 + ") "],
                         ids=["superscript", "circled", "superscript-one", "5000-digits", "4301-in-parentheses"])
def test_digits_int_refuses_are_judged_as_text(text):
    with pytest.raises(AssertionError) as caught:
        expect_choice(text, "ans_complexity", answer="c", choices="abcd")
    assert not any(w in str(caught.value) for w in PYTHON_WORDS), str(caught.value)


@pytest.mark.parametrize("text", ["9999999999^99", "1" * 30 + "**99"], ids=["caret", "stars"])
def test_a_power_past_a_float_written_in_a_string_is_refused_in_words(text):
    with pytest.raises(AssertionError) as caught:
        expect_number(text, "score_madds")
    assert not any(w in str(caught.value) for w in PYTHON_WORDS) and "str" in str(caught.value), str(caught.value)


def test_an_honest_option_number_is_still_named():
    with pytest.raises(AssertionError) as caught:
        expect_choice("3", "q_trap_answer", answer="C", choices="ABCD")
    assert getattr(caught.value, "key", None) == "answer_option_number"


def test_a_right_shape_still_reads():
    assert expect_shape((4, 10, 10), "weights_shape") == (4, 10, 10)


def _failed(result) -> dict[str, str]:
    return {f"{t.question}:{t.name}": t.message for t in result.tests if t.status != "passed"}


def test_huge_ints_in_sdpa_answers_are_said_as_too_large(tmp_path, grader):
    """Shapes, counts and the letter as huge ints: each of those tests fails with words about the value, the rest
    of full marks stands."""
    path = _with_cells(tmp_path, "sdpa-from-scratch", {
        "weights_shape =": "B = 10 ** 5000\nweights_shape = (4, B, 10)\nout_shape = [B]",
        "q_trap_answer =": "q_trap_answer = 10 ** 5000",
        "attn_entries =": "attn_entries = (10 ** 5000,)\nscore_madds = 1024 * 1024 * 64\ncost_ratio = [10 ** 5000]",
        "scores3 = Q3": "scores3 = Q3 @ K3.T / math.sqrt(4)\nweights3 = [[10 ** 5000] * 3] * 3\nout3 = weights3",
    })
    r = grader.grade(path, "sdpa-from-scratch", seed=86)
    failed = _failed(r)
    for test in ("q1:test_weights_shape", "q1:test_out_shape", "q7:test_trap_answer", "q8:test_attn_entries",
                 "q8:test_cost_ratio", "q6:test_weights3"):
        assert test in failed, (test, failed)
        assert not any(w in failed[test] for w in PYTHON_WORDS), (test, failed[test])
        assert "too large" in failed[test] or "digits" in failed[test], (test, failed[test])
    assert "q8:test_score_madds" not in failed, failed            # a right answer beside them keeps its point


def test_a_function_returning_an_int_past_a_float_is_said_as_too_large(tmp_path, grader):
    path = _with_cells(tmp_path, "attention-pipeline", {
        "def qkv_param_count": "def qkv_param_count(d_model, d_k, d_v, with_output=False):\n    return 2 ** 3000\n"})
    r = grader.grade(path, "attention-pipeline", seed=86)
    failed = _failed(r)
    assert set(failed) == {"q12:test_count_qkv", "q12:test_count_with_output"}, failed
    for message in failed.values():
        assert not any(w in message for w in PYTHON_WORDS) and "too large" in message, message


# a wrong answer the sandbox cannot send (an int-keyed dict, an object, an int past 2^16 bits, a set holding an int
# too large to sort by its repr) beside right ones that a test reads only to name a mistake
UNSENDABLE = {"int-keyed dict": "{1024: 1024 ** 2}", "object": "type('Entries', (), {})()", "int past 2^16 bits": "2 ** 70000",
              "set of a huge int": "{10 ** 5000}"}


@pytest.mark.parametrize("wrong", list(UNSENDABLE), ids=list(UNSENDABLE))
def test_an_answer_that_cannot_cross_costs_only_its_own_tests(tmp_path, grader, wrong):
    path = _with_cells(tmp_path, "sdpa-from-scratch", {
        "attn_entries =": f"attn_entries = {UNSENDABLE[wrong]}\nscore_madds = 1024 * 1024 * 64\ncost_ratio = 4",
        "scores3 = Q3": ("weights3 = stable_softmax(Q3 @ K3.T / math.sqrt(4), dim=-1)\nout3 = weights3 @ V3\n"
                         "weights3_causal = stable_softmax((Q3 @ K3.T / math.sqrt(4)).masked_fill(~causal_mask(3), "
                         f"float('-inf')), dim=-1)\nscores3 = {UNSENDABLE[wrong]}"),
    })
    failed = _failed(grader.grade(path, "sdpa-from-scratch", seed=86))
    assert set(failed) == {"q8:test_attn_entries"}, failed      # score_madds and weights3 are right
    assert not any(w in failed["q8:test_attn_entries"] for w in ("Exceeds the limit", "set_int_max_str_digits"))


def test_a_rank_answer_that_cannot_cross_costs_only_its_own_test(tmp_path, grader):
    path = _with_cells(tmp_path, "attention-pipeline", {"max_rank_S = 8": "max_rank_S = {8: 8}\n\nrank_S_lesson = 2"})
    failed = _failed(grader.grade(path, "attention-pipeline", seed=86))
    assert set(failed) == {"q11:test_max_rank_S"}, failed
