"""sdpa-from-scratch, naming round 37 (after blind36): a softmax without its exponential told from the softmax of -x
by tame logits, and torch.mm / bmm's fixed-rank words named over fixed_axes in the attention's crash."""
from __future__ import annotations

import torch

from autograder.errors import StudentCodeError
from autograder.grading.checks import Misconception
from tests.hidden_modules import load

diag = load("sdpa-from-scratch", "_diagnose", "_test_sdpa_round37_diagnose")


def _key(f, *args, **kwargs):
    try:
        f(*args, **kwargs)
    except Misconception as named:
        return named.key
    except AssertionError:
        return "unnamed"
    return None


def _negated():
    return Misconception("softmax_of_negated", "stable_softmax with -inf entries is wrong: it matches ...")


def test_negated_confirmed_or_replaced_by_plain_sum():
    def negated(x, dim=-1):
        return torch.softmax(-x, dim=dim)

    def no_exp(x, dim=-1):
        z = x - x.amax(dim=dim, keepdim=True)
        return z / z.sum(dim=dim, keepdim=True)

    def unshifted(x, dim=-1):
        return x / x.sum(dim=dim, keepdim=True)

    def other(x, dim=-1):
        return torch.zeros_like(x)

    assert _key(diag.confirm_softmax_of_negated, negated, _negated()) is None      # the caller re-raises it
    assert _key(diag.confirm_softmax_of_negated, no_exp, _negated()) == "weights_by_plain_sum"
    assert _key(diag.confirm_softmax_of_negated, unshifted, _negated()) == "weights_by_plain_sum"
    assert _key(diag.confirm_softmax_of_negated, other, _negated()) == "unnamed"
    assert _key(diag.confirm_softmax_of_negated, no_exp, Misconception("softmax_subtracts_min", "x")) is None


def test_mm_on_batched_inputs_named_by_its_words_not_fixed_axes():
    def student(f):
        def call(*args, **kwargs):
            try:
                return f(*args, **kwargs)
            except RuntimeError as e:
                raise StudentCodeError(type(e).__name__, str(e)) from None
        return call

    def mm(Q, K, V, mask=None):
        return torch.mm(torch.softmax(torch.mm(Q, K.transpose(-2, -1)) / Q.shape[-1] ** 0.5, dim=-1), V)

    def dot_t(Q, K, V, mask=None):
        return torch.softmax(Q @ K.T / Q.shape[-1] ** 0.5, dim=-1) @ V

    g = torch.Generator().manual_seed(0)
    Q, K, V = (torch.randn(2, 4, 3, generator=g, dtype=torch.float64) for _ in range(3))
    for f, want in ((mm, "matmul_fixed_rank"), (dot_t, "fixed_axes")):
        fn = student(f)
        try:
            fn(Q, K, V)
        except StudentCodeError as e:
            assert _key(diag.name_crash, fn, Q, K, V, None, e) == want
        else:
            raise AssertionError("expected a crash")
