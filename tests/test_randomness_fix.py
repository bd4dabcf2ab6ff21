"""A function that differs from itself on the same input is told the fix of what it reaches that draws at random
(checks.randomness_fix): an nn.Dropout module never put in eval mode, F.dropout's training default, a layer built on
every call, a draw of its own. Before, every one was told F.dropout's `pass training=False` (blind83's scaled q8
module, blind67's nn.Linear bias), a keyword neither a module's call nor a layer takes."""
from __future__ import annotations

import types
from unittest import mock

import pytest

from autograder.grading import checks
from tests.heldout.harness import assert_lost, graded_as

_sdpa = graded_as("sdpa-from-scratch", "randomness_fix")


def _attention(before: str, weights_line: str) -> dict[str, str]:
    """sdpa's attention, right but for `weights_line`, which may draw at random, with `before` at cell level."""
    return {"scaled_dot_product_attention": before + (
        "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
        "    s = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])\n"
        "    if mask is not None:\n        s = s.masked_fill(~mask, float('-inf'))\n"
        "    w = stable_softmax(s, dim=-1)\n"
        "    if mask is not None:\n        w = w.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)\n"
        + weights_line + "    return w @ V\n")}


@pytest.mark.parametrize("before, line, told, not_told", [
    ("drop = torch.nn.Dropout(p=0.1)\n\n", "    w = drop(w)\n", "`.eval()`", "training=False"),
    ("", "    w = torch.nn.functional.dropout(w, 0.1)\n", "training=False", "`.eval()`"),
    ("", "    w = w + 1e-3 * torch.rand_like(w)\n", "random numbers drawn on every call", "training=False"),
], ids=["dropout_module", "functional_dropout", "own_draw"])
def test_randomness_is_told_the_fix_of_its_source(grader, before, line, told, not_told):
    failed = assert_lost(_sdpa(grader, _attention(before, line)))
    told_random = [m for _, _, k, m in failed if k == "nondeterministic"]
    assert told_random, failed
    assert all(told in m and not_told not in m for m in told_random), told_random


def _told(cells: list[str], function: str) -> str:
    with mock.patch.object(checks, "running_submission", lambda: types.SimpleNamespace(cells=cells)):
        return checks.randomness_fix(function)


def test_a_layer_built_every_call_is_told_to_be_built_once():
    cells = ["import torch\ndef project(x):\n    layer = torch.nn.Linear(4, 4)\n    return layer(x)\n"]
    assert "build it once" in _told(cells, "project")


@pytest.mark.parametrize("body", [
    "    return torch.nn.functional.linear(x, x) + torch.nn.functional.normalize(x)\n",   # no draw: no cause
    "    return x\n",
], ids=["deterministic_namesakes", "nothing"])
def test_no_source_shown_gives_the_generic_text(body):
    assert _told(["import torch\ndef f(x):\n" + body], "f") == checks.RANDOMNESS_LEFT_ON


def test_unreadable_source_or_no_submission_gives_the_generic_text():
    assert _told(["exec('def f(x): return x')\n"], "f") == checks.RANDOMNESS_LEFT_ON
    assert checks.randomness_fix("f") == checks.RANDOMNESS_LEFT_ON   # outside a test: no running submission
