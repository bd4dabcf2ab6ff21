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


# red-team round 143 left this: the read told the first dropout it found, not what its arguments say. A dropout
# switched off by its own arguments is no cause; a module the notebook may have put in eval mode is told only
# where nothing else draws.
_DRAW = "    return x + 1e-3 * torch.rand_like(x)\n"


@pytest.mark.parametrize("cells", [
    ["import torch\ndef f(x):\n    x = torch.nn.functional.dropout(x, 0.5, training=False)\n" + _DRAW],
    ["import torch\ndef f(x):\n    x = torch.nn.functional.dropout(x, p=0.0)\n" + _DRAW],
    ["import torch\nfrom torch.nn.functional import dropout\n",
     "def f(x):\n    x = dropout(x, 0.5, False)\n" + _DRAW],
    ["import torch\ndrop = torch.nn.Dropout(0.1)\ndrop.eval()\n", "def f(x):\n    x = drop(x)\n" + _DRAW],
    ["import torch\nclass M(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
     "        self.dropout = torch.nn.Dropout(0.0)\n", "m = M()\n",
     "def f(x):\n    x = m.dropout(x)\n" + _DRAW],
], ids=["functional_training_false", "functional_rate_zero", "imported_positional_false", "module_evaluated",
        "module_rate_zero"])
def test_a_dropout_switched_off_beside_a_draw_is_passed_over_for_the_draw(cells):
    told = _told(cells, "f")
    assert "random numbers drawn on every call" in told and "torch.rand_like" in told, told


def test_an_evaluated_module_with_nothing_else_is_still_told_eval():
    cells = ["import torch\ndrop = torch.nn.Dropout(0.1)\nother = torch.nn.Linear(2, 2)\nother.eval()\n",
             "def f(x):\n    return drop(x)\n"]
    assert "`.eval()`" in _told(cells, "f")


def test_a_switched_off_dropout_alone_shows_no_cause():
    cells = ["import torch\ndef f(x):\n    return torch.nn.functional.dropout(x, 0.5, training=False)\n"]
    assert _told(cells, "f") == checks.RANDOMNESS_LEFT_ON


def test_a_notebook_def_named_dropout_is_still_walked():
    """`training=False` switches off torch's dropout only: the notebook's own `dropout` may draw anyway."""
    cells = ["import torch\ndef dropout(x, p, training=True):\n    return torch.nn.functional.dropout(x, p)\n",
             "def f(x):\n    return dropout(x, 0.5, training=False)\n"]
    assert "training=False" in _told(cells, "f") and "torch.nn.functional.dropout" in _told(cells, "f")


def test_a_module_attribute_switched_off_does_not_hide_a_functional_dropout():
    cells = ["import torch\nclass M(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
             "        self.dropout = torch.nn.Dropout(0.0)\n", "m = M()\n",
             "def f(x):\n    x = m.dropout(x)\n    return torch.nn.functional.dropout(x, 0.2)\n"]
    told = _told(cells, "f")
    assert "training=False" in told and "torch.nn.functional.dropout" in told, told
