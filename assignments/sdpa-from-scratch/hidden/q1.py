"""Question 1: the shape contract (Q, K (4, 10, 64), V (4, 10, 128))."""
from otter.test_files import test_case

from autograder.checks import Misconception, register
from reference import sdpa_from_scratch as ref

OK_FORMAT = False
name = "q1"

register("output_width_dk", "taking the output width from d_k instead of d_v")
register("weights_as_output", "confusing the (T_q, T_k) weight matrix with the output")


def _shape(value, what):
    if value is None or value is Ellipsis:
        raise AssertionError(f"{what} is not set")
    if not isinstance(value, (tuple, list)) or not all(
            isinstance(n, int) and not isinstance(n, bool) for n in value):
        raise AssertionError(f"{what} should be a tuple of Python ints")
    return tuple(value)


@test_case(points=1, hidden=True)
def test_weights_shape(weights_shape):
    got = _shape(weights_shape, "weights_shape")
    if got == ref.out_shape:
        raise AssertionError("weights_shape is the shape of the output, not of the weight matrix")
    if got != ref.weights_shape:
        raise AssertionError("weights_shape is not the shape of the attention-weight matrix: "
                             "it has one entry per (query, key) pair")


@test_case(points=1, hidden=True)
def test_out_shape(out_shape):
    got = _shape(out_shape, "out_shape")
    if got == ref.weights_shape:
        raise Misconception("weights_as_output", "out_shape is the shape of the weight matrix, "
                            "not of the output: the weights still multiply V")
    if len(got) == 3 and got[:2] == ref.out_shape[:2] and got[2] == 64:
        raise Misconception("output_width_dk", "out_shape takes its last dimension from d_k; "
                            "the output width comes from V")
    if got != ref.out_shape:
        raise AssertionError("out_shape is not the shape of the attention output")
