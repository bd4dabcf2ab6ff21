"""Hidden test for q6: a multiple-choice answer from the lesson's "check your understanding"."""
from otter.test_files import test_case

from autograder.checks import Misconception, describe
from reference import scaled_attention as ref

OK_FORMAT = False
name = "q6"
points = 1


@test_case(points=1, hidden=True)
def test_q6_answer(q6_answer):
    if not isinstance(q6_answer, str) or q6_answer.strip().upper() not in ("A", "B", "C", "D"):
        raise AssertionError('q6_answer should be one of the strings "A", "B", "C", "D"')
    choice = q6_answer.strip().upper()
    if choice == ref.q6_answer:
        return
    key = ref.MCQ_MISCONCEPTIONS["q6_answer"].get(choice)
    if key:
        raise Misconception(key, f"q6_answer is not correct: that choice reflects {describe(key)}")
    raise AssertionError("q6_answer is not correct")
