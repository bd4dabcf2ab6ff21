"""Multiple choice: ans_complexity (one of "a", "b", "c", "d")."""
from otter.test_files import test_case

from reference import attention_pipeline as ref

OK_FORMAT = False
name = "q16"


@test_case(points=1, hidden=True)
def test_ans_complexity(ans_complexity):
    if not isinstance(ans_complexity, str) or ans_complexity.strip().strip("()").lower() not in ("a", "b", "c", "d"):
        raise AssertionError("ans_complexity should be one of the strings 'a', 'b', 'c', 'd'")
    if ans_complexity.strip().strip("()").lower() != ref.ans_complexity:
        raise AssertionError("ans_complexity is not the right choice")
