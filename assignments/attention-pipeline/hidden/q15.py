"""Multiple choice: ans_cross_causal (one of "a", "b", "c", "d")."""
from otter.test_files import test_case

from reference import attention_pipeline as ref

OK_FORMAT = False
name = "q15"


@test_case(points=1, hidden=True)
def test_ans_cross_causal(ans_cross_causal):
    if not isinstance(ans_cross_causal, str) or ans_cross_causal.strip().strip("()").lower() not in ("a", "b", "c", "d"):
        raise AssertionError("ans_cross_causal should be one of the strings 'a', 'b', 'c', 'd'")
    if ans_cross_causal.strip().strip("()").lower() != ref.ans_cross_causal:
        raise AssertionError("ans_cross_causal is not the right choice")
