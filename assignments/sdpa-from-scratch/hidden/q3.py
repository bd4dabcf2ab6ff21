"""Question 3: stable_softmax(x, dim=-1), written by hand with max-subtraction."""
import torch
from otter.test_files import test_case

from autograder.checks import Misconception, assert_function_avoids, assert_matches, randn, register
from reference import sdpa_from_scratch as ref

OK_FORMAT = False
name = "q3"

register("softmax_ignores_dim", "ignoring the dim argument of the softmax")
register("builtin_softmax", "calling a built-in softmax instead of writing it by hand")


@test_case(points=1, hidden=True)
def test_matches_softmax(stable_softmax, device, rng):
    for dtype in (torch.float64, torch.float32):
        x = randn((3, 5, 7), rng, dtype, scale=3.0)
        got = stable_softmax(x)
        assert_matches(got, ref.stable_softmax(x, dim=-1), what=f"stable_softmax of a {dtype} input",
                       variants=ref.softmax_variants(x, dim=-1))


@test_case(points=1, hidden=True)
def test_dim_argument(stable_softmax, device, rng):
    x = randn((4, 6, 5), rng, torch.float64, scale=2.0)
    for dim in (0, 1, -2):
        got = stable_softmax(x, dim=dim)
        variants = {"softmax_ignores_dim": ref.stable_softmax(x, dim=-1)}
        assert_matches(got, ref.stable_softmax(x, dim=dim), what=f"stable_softmax(x, dim={dim})",
                       variants=variants)


@test_case(points=1, hidden=True)
def test_float16_logits_in_the_thousands(stable_softmax, device, rng):
    # half the rows near +2000, half near -3000: exp overflows or underflows without the shift
    centre = torch.tensor([2000.0, -3000.0]).repeat(4).reshape(8, 1)
    x = (centre + randn((8, 24), rng, torch.float64, scale=4.0)).to(torch.float16)
    got = stable_softmax(x, dim=-1)
    if isinstance(got, torch.Tensor) and got.dtype == torch.float16 and not torch.isfinite(got).all():
        raise Misconception("no_max_subtraction", "stable_softmax of float16 logits in the thousands "
                            "gave inf or NaN: subtract each slice's max before exp")
    assert_matches(got, ref.stable_softmax(x, dim=-1), what="stable_softmax of float16 logits in the thousands")


@test_case(points=1, hidden=True)
def test_minus_inf_entries(stable_softmax, device, rng):
    x = randn((6, 10), rng, torch.float32, scale=2.0)
    blocked = torch.rand((6, 10), generator=rng) < 0.5
    blocked[:, 3] = False                         # every row keeps at least one finite logit
    x = x.masked_fill(blocked, float("-inf"))
    got = stable_softmax(x, dim=-1)
    assert_matches(got, ref.stable_softmax(x, dim=-1), what="stable_softmax with -inf entries")
    if bool((got[blocked] != 0).any()):
        raise AssertionError("entries equal to -inf should get weight exactly 0")


@test_case(points=1, hidden=True)
def test_no_builtin_softmax(stable_softmax, submission, rng):
    x = randn((4, 9), rng, torch.float64)
    assert_matches(stable_softmax(x, dim=-1), ref.stable_softmax(x, dim=-1), what="stable_softmax")
    # Static only (the sandbox's run-time guard forbids APIs for the whole notebook, and the notebook
    # may use torch.softmax outside stable_softmax): follows the helpers stable_softmax calls and
    # fails when the source cannot show what runs. "softmax" also catches log_softmax, nn.Softmax...
    assert_function_avoids(submission, "stable_softmax", ("softmax", "softmin"), key="builtin_softmax",
                           rule="a built-in softmax: compute it from exp, max and sum yourself")
