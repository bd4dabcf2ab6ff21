"""Multiple choice: ans_scale (one of "a", "b", "c", "d")."""
from otter.test_files import test_case

from reference import attention_pipeline as ref

OK_FORMAT = False
name = "q03"


@test_case(points=1, hidden=True)
def test_ans_scale(ans_scale):
    if not isinstance(ans_scale, str) or ans_scale.strip().strip("()").lower() not in ("a", "b", "c", "d"):
        raise AssertionError("ans_scale should be one of the strings 'a', 'b', 'c', 'd'")
    if ans_scale.strip().strip("()").lower() != ref.ans_scale:
        raise AssertionError("ans_scale is not the right choice")
