"""Multiple choice: ans_cross_shapes (one of "a", "b", "c", "d")."""
from otter.test_files import test_case

from reference import attention_pipeline as ref

OK_FORMAT = False
name = "q14"


@test_case(points=1, hidden=True)
def test_ans_cross_shapes(ans_cross_shapes):
    if not isinstance(ans_cross_shapes, str) or ans_cross_shapes.strip().strip("()").lower() not in ("a", "b", "c", "d"):
        raise AssertionError("ans_cross_shapes should be one of the strings 'a', 'b', 'c', 'd'")
    if ans_cross_shapes.strip().strip("()").lower() != ref.ans_cross_shapes:
        raise AssertionError("ans_cross_shapes is not the right choice")
