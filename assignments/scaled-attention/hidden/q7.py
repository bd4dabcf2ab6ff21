"""Hidden test for q7: a multiple-choice answer from the lesson's "check your understanding"."""
from otter.test_files import test_case

from autograder.checks import Misconception, describe
from reference import scaled_attention as ref

OK_FORMAT = False
name = "q7"
points = 1


@test_case(points=1, hidden=True)
def test_q7_answer(q7_answer):
    if not isinstance(q7_answer, str) or q7_answer.strip().upper() not in ("A", "B", "C", "D"):
        raise AssertionError('q7_answer should be one of the strings "A", "B", "C", "D"')
    choice = q7_answer.strip().upper()
    if choice == ref.q7_answer:
        return
    key = ref.MCQ_MISCONCEPTIONS["q7_answer"].get(choice)
    if key:
        raise Misconception(key, f"q7_answer is not correct: that choice reflects {describe(key)}")
    raise AssertionError("q7_answer is not correct")
