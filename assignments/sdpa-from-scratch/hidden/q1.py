"""Question 1: the shape contract (Q, K (4, 10, 64), V (4, 10, 128))."""
from otter.test_files import test_case

from autograder.grading.checks import Misconception, expect_shape, register_misconceptions
from reference import sdpa_from_scratch as ref

OK_FORMAT = False
name = "q1"
register_misconceptions(__file__)


@test_case(points=1, hidden=True)
def test_weights_shape(weights_shape):
    got = expect_shape(weights_shape, "weights_shape")
    if got == ref.out_shape:
        raise Misconception("weights_as_output", "weights_shape is the shape of the output, not of the "
                            "weight matrix: the weights have one entry per (query, key) pair")
    if got != ref.weights_shape:
        raise AssertionError("weights_shape is not the shape of the attention-weight matrix: "
                             "it has one entry per (query, key) pair")


@test_case(points=1, hidden=True)
def test_out_shape(out_shape):
    got = expect_shape(out_shape, "out_shape")
    if got == ref.weights_shape:
        raise Misconception("weights_as_output", "out_shape is the shape of the weight matrix, "
                            "not of the output: the weights still multiply V")
    if len(got) == 3 and got[:2] == ref.out_shape[:2] and got[2] == 64:
        raise Misconception("output_width_dk", "out_shape takes its last dimension from d_k; "
                            "the output width comes from V")
    if got != ref.out_shape:
        raise AssertionError("out_shape is not the shape of the attention output")
