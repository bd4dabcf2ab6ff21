"""rank(S) <= min(rank Q, rank K) <= d_k: two numeric answers."""
import torch
from otter.test_files import test_case

from reference import attention_pipeline as ref

OK_FORMAT = False
name = "q11"


def _number(value, what):
    if type(value) is torch.Tensor and value.numel() == 1:
        value = value.item()
    if type(value) not in (int, float) or isinstance(value, bool):
        raise AssertionError(f"{what} should be a number (it is not answered yet?)")
    return value


@test_case(points=1, hidden=True)
def test_max_rank_S(max_rank_S):
    if _number(max_rank_S, "max_rank_S") != ref.max_rank_S:
        raise AssertionError("max_rank_S is not correct: what limits the rank of Q K^T?")


@test_case(points=1, hidden=True)
def test_rank_S_lesson(rank_S_lesson):
    if _number(rank_S_lesson, "rank_S_lesson") != ref.rank_S_lesson:
        raise AssertionError("rank_S_lesson is not correct: try torch.linalg.matrix_rank on the lesson's S")
