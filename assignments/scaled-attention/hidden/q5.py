"""Hidden test for q5: a multiple-choice answer from the lesson's "check your understanding"."""
from otter.test_files import test_case

from autograder.checks import Misconception, describe
from reference import scaled_attention as ref

OK_FORMAT = False
name = "q5"
points = 1


@test_case(points=1, hidden=True)
def test_q5_answer(q5_answer):
    if not isinstance(q5_answer, str) or q5_answer.strip().upper() not in ("A", "B", "C", "D"):
        raise AssertionError('q5_answer should be one of the strings "A", "B", "C", "D"')
    choice = q5_answer.strip().upper()
    if choice == ref.q5_answer:
        return
    key = ref.MCQ_MISCONCEPTIONS["q5_answer"].get(choice)
    if key:
        raise Misconception(key, f"q5_answer is not correct: that choice reflects {describe(key)}")
    raise AssertionError("q5_answer is not correct")
