"""Multiple choice: ans_mask (one of "a", "b", "c", "d")."""
from otter.test_files import test_case

from reference import attention_pipeline as ref

OK_FORMAT = False
name = "q06"


@test_case(points=1, hidden=True)
def test_ans_mask(ans_mask):
    if not isinstance(ans_mask, str) or ans_mask.strip().strip("()").lower() not in ("a", "b", "c", "d"):
        raise AssertionError("ans_mask should be one of the strings 'a', 'b', 'c', 'd'")
    if ans_mask.strip().strip("()").lower() != ref.ans_mask:
        raise AssertionError("ans_mask is not the right choice")
