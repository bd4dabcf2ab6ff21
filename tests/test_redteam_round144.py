"""Red-team round 144: checks.randomness_fix as changed at 15492d0 (a dropout switched off by its own arguments is
passed over, a module the notebook may have put in eval mode is told only where nothing else draws, source_checks'
public readers) attacked as a student and as a class. Repros in /tmp/rt144/ (rf.py and rf2.py call randomness_fix on
their own cells, big.py times a 273 KB notebook, test_e2e_rt144.py grades sdpa-from-scratch end to end).

- **A notebook of many dropout modules cost a minute a read (engine, _module_calls).** The functional tier's skip
  read every attribute call of the notebook, and for each one every value stored into an attribute of its name,
  2,000 nodes each: 1,500 classes with `self.dropout = torch.nn.Dropout(0.1)` and `self.dropout(x)` (273 KB) cost
  70 s a call of randomness_fix (0.6 ms at c9efc16), once per nondeterministic failure. Now one read per root and
  attribute name, only of names find_use would match ("dropout"), stopping at the first module found, and at most
  20,000 nodes a read: 23 ms warm.
- **A switched-off dropout through another name was told beside a real draw.** `drop = F.dropout` then
  `drop(w, 0.5, training=False)`, or `from torch.nn.functional import dropout as d` then `d(x, 0.5, False)`, beside
  `torch.rand_like`: "dropout, which trains by default ...: pass training=False", which it is passed (only a callee
  named like dropout was read). The callee is resolved now (_torch_function: an import's dotted name, a cell-level
  `name = F.dropout`), and the draw is told.
- **Literal switches were read by their spelling.** `training=0`, `training=not True`, `p=-0.0` draw nothing, yet
  beside a draw were told F.dropout's fix (`_constant` read only a bare literal, `is False` only False). Now `-`, `+`
  and `not` of a literal are folded, and a flag is off where it is False, 0 or 0.0. `F.dropout(*xs, 0.0)` was read
  as a rate of 0 though `*xs` may fill p (passed over where it draws): a position after `*args` is read as unknown.
- **A module put in eval mode by `.train(mode=False)` or `.training = False` was told `.eval()` beside a real draw.**
  Only `.eval()` and a positional `.train(False)` counted. Both count now (_evaluates).
- **torch.dropout was told a keyword it lacks.** `torch.dropout(w, 0.1, True)` was told "pass training=False", a
  TypeError for torch.dropout (its flag is `train`), and `torch.dropout(x, 0.5, train=False)` beside a draw was told
  as the cause. torch.dropout (alpha_, feature_) is read by `train` and told "pass train=False".
- **`F.dropout(x, p, training=self.training)` was told "trains by default: pass training=False".** It follows its
  module's flag: it is told `.eval()` on the module (or training=False) now, and where the notebook calls `.eval()`
  somewhere it is deferred, as a module is, so a real draw beside it is told first (it was told over the draw).
- **Another class's nn.Dropout in an attribute of the same name decided the rate.** `class A: self.dropout =
  nn.Dropout(0.5)` (never called) beside `class B: self.dropout = nn.Dropout(0.0)` whose forward is the one reached,
  plus a real draw: told B's module `.eval()`. Where the use's path ends in a class that stores into the attribute
  itself, only that class's stores are read (source_checks.class_stores).
- **A long name of the student's was quoted whole.** A 400-character class name, or an import alias, through which
  the draw is reached, went into the message uncut (Use.describe()). Each name is cut to 40 characters and the
  path to four steps (_use_said).

Held (tried, no change): `.eval()` in a string or a comment is no eval; `train(True)` is none; a class of the
student's own named Dropout, or with a `dropout` method, is walked to its own draw; `import numpy as torch` is told
numpy's draw; `F.dropout(x, 0.5, True, False)` (inplace) and `nn.Dropout(0.5, False)` still drop; a deep chain
`w.a.m.dropout` holding a module is told `.eval()`; `getattr(torch, 'rand' + s)` gives the generic text. Not fixed
(told in the report): `p=1e-9` still draws and is told; `P = 0.0; nn.Dropout(P)` and `functools.partial(F.dropout,
...)` are not folded (the module or the dropout is told beside a draw, as before).
"""
from __future__ import annotations

import types
from unittest import mock

import pytest

from autograder.grading import checks

_DRAW = "    return x + 1e-3 * torch.rand_like(x)\n"


def _told(cells: list[str], function: str = "f") -> str:
    with mock.patch.object(checks, "running_submission", lambda: types.SimpleNamespace(cells=cells)):
        return checks.randomness_fix(function)


def test_many_dropout_modules_are_read_once_per_name_not_once_per_call():
    classes = "".join(f"class M{i}(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                      f"        self.dropout = torch.nn.Dropout(0.1)\n    def forward(self, x):\n"
                      f"        return self.dropout(x)\n" for i in range(300))
    cells = ["import torch\n" + classes,
             "def f(x):\n    return torch.nn.functional.dropout(x, 0.5) + torch.rand_like(x)\n"]
    real = checks._dropout_modules
    with mock.patch.object(checks, "_dropout_modules", side_effect=real) as reads:
        told = _told(cells)
    assert "torch.nn.functional.dropout" in told, told
    assert reads.call_count <= 5, reads.call_count


@pytest.mark.parametrize("cells", [
    ["import torch\nimport torch.nn.functional as F\ndrop = F.dropout\n",
     "def f(x):\n    x = drop(x, 0.5, training=False)\n" + _DRAW],
    ["import torch\nfrom torch.nn.functional import dropout as d\n", "def f(x):\n    x = d(x, 0.5, False)\n" + _DRAW],
    ["import torch\nfrom torch.nn.functional import dropout\nd2 = dropout\n",
     "def f(x):\n    x = d2(x, 0.5, training=False)\n" + _DRAW],
    ["import torch\nimport torch.nn.functional as F\ndef f(x):\n    x = F.dropout(x, 0.5, training=0)\n" + _DRAW],
    ["import torch\nimport torch.nn.functional as F\ndef f(x):\n    x = F.dropout(x, training=not True)\n" + _DRAW],
    ["import torch\nimport torch.nn.functional as F\ndef f(x):\n    x = F.dropout(x, -0.0)\n" + _DRAW],
    ["import torch\ndrop = torch.nn.Dropout(0.1)\ndrop.train(mode=False)\n", "def f(x):\n    x = drop(x)\n" + _DRAW],
    ["import torch\ndrop = torch.nn.Dropout(0.1)\ndrop.training = False\n", "def f(x):\n    x = drop(x)\n" + _DRAW],
    ["import torch\ndef f(x):\n    x = torch.dropout(x, 0.5, train=False)\n" + _DRAW],
    ["import torch\nimport torch.nn.functional as F\nclass M(torch.nn.Module):\n    def forward(self, x):\n"
     "        return F.dropout(x, 0.5, self.training)\n", "m = M()\nm.eval()\n",
     "def f(x):\n    x = m(x)\n" + _DRAW],
    ["import torch\nclass A(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
     "        self.dropout = torch.nn.Dropout(0.5)\nclass B(torch.nn.Module):\n    def __init__(self):\n"
     "        super().__init__()\n        self.dropout = torch.nn.Dropout(0.0)\n    def forward(self, x):\n"
     "        return self.dropout(x)\n", "b = B()\ndef f(x):\n    x = b(x)\n" + _DRAW],
], ids=["alias_of_F_dropout", "import_as", "alias_of_import", "training_zero", "training_not_true", "rate_minus_zero",
        "train_mode_false", "training_attr_false", "torch_dropout_train_false", "training_flag_module_evaluated",
        "other_class_same_attr"])
def test_a_switched_off_dropout_beside_a_draw_is_passed_over(cells):
    told = _told(cells)
    assert "random numbers drawn on every call" in told and "torch.rand_like" in told, told


def test_a_rate_after_star_args_is_not_read_as_the_rate():
    cells = ["import torch\nimport torch.nn.functional as F\nxs = [1, 0.5, True]\n",
             "def f(x):\n    x = F.dropout(*xs, 0.0)\n" + _DRAW]
    assert "torch.nn.functional.dropout" in _told(cells)


def test_torch_dropout_is_told_its_own_keyword():
    told = _told(["import torch\ndef f(x):\n    return torch.dropout(x, 0.5, True)\n"])
    assert "train=False" in told and "training=False" not in told, told


def test_a_dropout_following_its_module_flag_is_told_eval():
    cells = ["import torch\nimport torch.nn.functional as F\nclass M(torch.nn.Module):\n    def forward(self, x):\n"
             "        return F.dropout(x, 0.5, training=self.training)\n", "m = M()\ndef f(x):\n    return m(x)\n"]
    told = _told(cells)
    assert "`.eval()`" in told and "trains by default" not in told, told


def test_a_switched_on_alias_is_still_told():
    cells = ["import torch\nimport torch.nn.functional as F\ndrop = F.dropout\n",
             "def f(x):\n    x = drop(x, 0.5, training=False)\n    return drop(x, 0.5)\n"]
    assert "training=False" in _told(cells)


def test_a_long_name_is_cut():
    name = "A" * 400
    cells = [f"import torch\nclass {name}:\n    d = torch.nn.Dropout(0.3)\n", f"def f(x):\n    return {name}.d(x)\n"]
    told = _told(cells)
    assert "`.eval()`" in told and name not in told and len(told) < 300, told
    alias = "r" * 300
    told = _told([f"import torch\nfrom torch import rand_like as {alias}\ndef f(x):\n    return {alias}(x)\n"])
    assert "torch.rand_like" in told and alias not in told, told
